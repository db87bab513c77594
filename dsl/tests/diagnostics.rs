//! Diagnostics of parsing and analysis: each mistake is reported once, at
//! its span, and parsing goes on after it (three independent mistakes give
//! three errors and a partial tree). One test per kind of mistake, in both
//! dialects; insta snapshots hold the rendered text.

use insta::assert_snapshot;
use litmus_dsl::{analyze, diagnostic::render, Severity};

/// One line per diagnostic: code, severity, line:col-line:col, message.
fn compact(src: &str) -> String {
    let a = analyze(src);
    a.diagnostics
        .iter()
        .map(|d| {
            let (l0, c0) = a.lines.line_col(src, d.span.start);
            let (l1, c1) = a.lines.line_col(src, d.span.end);
            let sev = if d.severity == Severity::Error { "error" } else { "warning" };
            format!("{} {sev} {l0}:{c0}-{l1}:{c1} {}", d.code, d.message)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const HEADER: &str = "litmus T\nshared x = 0;\nshared y = 0;\n";

fn with_header(body: &str) -> String {
    format!("{HEADER}{body}")
}

#[test]
fn three_independent_mistakes_give_three_errors_and_a_partial_tree() {
    let src = "litmus THREE \"three mistakes\"\n\
shared x = 0;\n\
shared y = 0;\n\
\n\
thread P0 {\n\
  x = = 1;\n\
  let r0 = y;\n\
}\n\
\n\
thread P1 {\n\
  y = 1;\n\
  let r1 = z;\n\
  fence sideways;\n\
}\n\
\n\
exists (P0:r0 == 0 && P1:r1 == 0);\n";
    let a = analyze(src);
    let errors: Vec<_> = a.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 3, "{:#?}", a.diagnostics);
    // The statements after the broken one still parsed: `r0` is known, so the
    // final condition is not blamed.
    assert!(a.symbols.list.iter().any(|s| s.name == "r0"));
    assert!(a.program.is_none());
    assert_snapshot!(render(&a.diagnostics, "three.litmus", src, false));
}

#[test]
fn unknown_names() {
    assert_snapshot!(compact(&with_header("thread P0 { x = 1; let r = z + y; let q = r + w; }\nexists (P0:q == 0);")));
}

#[test]
fn suggestion_for_a_misspelled_name() {
    let a = analyze(&with_header("thread P0 { let r = yy; }\nexists (P0:r == 0);"));
    let d = a.diagnostics.iter().find(|d| d.code == "E0221").unwrap();
    assert_eq!(d.help.as_deref(), Some("did you mean `y`?"));
}

#[test]
fn assignment_to_undeclared_and_before_let() {
    assert_snapshot!(compact(&with_header(
        "thread P0 { z = 1; r = 2; let r = x; x = r; }\nexists (P0:r == 0 && y == 0);"
    )));
}

#[test]
fn register_read_before_its_let() {
    assert_snapshot!(compact(&with_header("thread P0 { let a = b; let b = x; y = a + b; }")));
}

#[test]
fn duplicate_declarations() {
    assert_snapshot!(compact(
        "litmus D\nshared x = 0;\nshared x = 1, y;\nfn f() { return 1; }\nfn f() { return 2; }\n\
         thread P0 { let r = x; let r = y; y = f() + r; }\nthread P0 { x = 1; }\nexists (P0:r == 0);"
    ));
}

#[test]
fn registers_may_not_shadow_shared_names() {
    assert_snapshot!(compact(&with_header("thread P0 { let x = y; y = x; }")));
}

#[test]
fn thread_register_references_in_the_final_condition() {
    assert_snapshot!(compact(&with_header(
        "thread P0 { let r = x; }\nthread P1 { y = 1; }\nexists (P2:r == 0 && P1:r == 0 && P0:r == 1 && 0:r == 1 && q == 1);"
    )));
}

#[test]
fn arity_and_void_functions() {
    assert_snapshot!(compact(&with_header(
        "fn set(v) { x = v; }\nfn get() { return x; }\nthread P0 { set(1, 2); let r = set(3); let s = get(4); y = r + s; }"
    )));
}

#[test]
fn recursion_is_rejected_at_the_call_that_closes_the_cycle() {
    assert_snapshot!(compact(&with_header(
        "fn f(n) { return g(n); }\nfn g(n) { return f(n); }\nfn h() { return h(); }\nthread P0 { let r = f(1) + h(); y = r; }"
    )));
}

#[test]
fn constant_array_indices_are_bounds_checked() {
    assert_snapshot!(compact(
        "litmus A\nshared a[2] = {1, 2, 3};\nshared s = 0;\n\
         thread P0 { a[2] = 1; let r = a[-1]; let q = a[1]; s = a; let t = s[0]; a[q] = r + t; }\nexists (a[5] == 0);"
    ));
}

#[test]
fn statements_after_return() {
    assert_snapshot!(compact(&with_header(
        "fn f() { return 1; x = 2; y = 3; }\nthread P0 { let r = f(); y = r; return; x = 1; }"
    )));
}

#[test]
fn unused_registers_and_locations_are_warnings() {
    let src = "litmus U\nshared x = 0;\nshared unused = 0;\nfn never() { x = 1; }\nthread P0 { let r = x; let _quiet = x; let used = x; x = used; }";
    assert_snapshot!(compact(src));
    assert!(analyze(src).program.is_some(), "warnings do not block lowering");
}

#[test]
fn misplaced_constructs() {
    assert_snapshot!(compact(&with_header(
        "thread P0 { let r = P1:q; lock(nolock); let c = cas(r, 0, 1); await (fetch_add(x, 1) == 0); x; return 5; }\n\
         thread P1 { let q = 1; y = q; }\nexists (cas(x, 0, 1) == 0);\nexists (x == 1);"
    )));
}

#[test]
fn syntax_errors_recover_per_statement() {
    let src = "litmus S\nshared x = 0;\nthread P0 {\n  x = 1 +;\n  let r = x\n  x = 2;\n  if (x == ) { x = 3; }\n  while x { }\n  x = 4;\n}\nthread P1 { x = 5; }\n";
    let out = compact(src);
    assert_snapshot!(out);
}

#[test]
fn lexical_errors() {
    assert_snapshot!(compact("litmus L\nshared x = 0;\nthread P0 { x = 1 $ 2; x = 0xZZ; }\n/* never closed"));
}

#[test]
fn missing_header() {
    assert_snapshot!(compact("shared x = 0;\nthread P0 { x = 1; }"));
}

#[test]
fn herd_errors_point_at_their_cells() {
    let src = "X86 BAD\n{ x=0; 5:EAX=1; }\n P0          | P1          ;\n MOV [x],$1  | FROB EAX    ;\n MOV EAX,[x] | MOV FOO,[x] ;\n JMP nowhere |             ;\nexists (0:EAX=1 /\\ 2:EAX=0 /\\ 1:ZZZ=1)\n";
    assert_snapshot!(compact(src));
}

#[test]
fn aarch64_errors_point_at_their_cells() {
    let src = "AArch64 BAD\n{ 0:X1=x; 1:X1=y; }\n P0            | P1            ;\n LDR W0,[X1,#4] | FROB W0       ;\n DMB XY        | B.QQ L0       ;\n LDR W0,[X31]  | L0:           ;\nexists (0:X0=1 /\\ 1:Q9=0)\n";
    assert_snapshot!(compact(src));
}

#[test]
fn herd_unsupported_architecture() {
    assert_snapshot!(compact("PPC MP\n{ }\n P0 ;\n li r1,1 ;\nexists (0:r1=1)\n"));
}

#[test]
fn herd_row_with_too_many_columns() {
    assert_snapshot!(compact("X86 R\n{ }\n P0 ;\n MOV [x],$1 | MOV [y],$1 ;\nexists (x=1)\n"));
}

#[test]
fn missing_closing_brace_ends_the_block_before_the_next_thread() {
    let src = "litmus B\nshared x = 0;\nthread P0 { x = 1; let r = y;\nthread P1 { let q = z; }\nexists (P0:r == 0 && P1:q == 0);\n";
    assert_snapshot!(compact(src));
    let a = analyze(src);
    assert!(a.symbols.list.iter().any(|s| s.name == "q"), "P1 still parsed");
}

#[test]
fn shared_memory_has_a_total_limit() {
    // Four arrays of 65,536 cells fit in 262,144; a fifth does not.
    let arrays = |n: usize| {
        let decls: String = (0..n).map(|i| format!("shared _a{i}[65536];\n")).collect();
        format!("litmus M\n{decls}shared x = 0;\nthread P0 {{ x = 1; }}\n")
    };
    let errors =
        |src: &str| analyze(src).diagnostics.into_iter().filter(|d| d.is_error()).map(|d| d.code).collect::<Vec<_>>();
    assert_eq!(errors(&arrays(3)), Vec::<&str>::new());
    assert_eq!(errors(&arrays(5)), ["E0223"]);
}

#[test]
fn loop_bounds_must_be_constants_in_range() {
    assert_snapshot!(compact(&with_header(
        "thread P0 {\n  let n = x;\n  while (x == 0) bound n { }\n  while (x == 0) bound 0 { }\n  while (x == 0) bound 1001 { }\n  while (x == 0) bound -3 { }\n  while (x == 0) bound 4 { }\n}\n"
    )));
}

#[test]
fn counted_loops_need_constant_nonempty_ranges_and_keep_their_counter() {
    assert_snapshot!(compact(&with_header(
        "thread P0 {\n  let n = y;\n  for k in 0..n { x = k; }\n  for k in 3..3 { x = k; }\n  for k in 0..5000 { x = k; }\n  for k in 0..4 { k = 2; x = k; }\n  for i in 1..3 { for j in 0..i { x = j; } }\n}\n"
    )));
}

#[test]
fn a_broken_loop_header_is_one_error_and_the_rest_parses() {
    // `bound` without a value and a `for` without `in`: each one error, and
    // the statements after them are still analysed (`q` is unknown).
    assert_snapshot!(compact(&with_header(
        "thread P0 {\n  while (x == 0) bound { }\n  for k 0..2 { x = 1; }\n  let r = q;\n}\n"
    )));
}
