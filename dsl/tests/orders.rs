//! Memory orders in the native dialect: `atomic` locations, `x@order` on
//! an access, fences with an order. What each lowers to (C11's labels, as
//! herd's C gives them), what sema refuses, and how a repair's relabel
//! writes an order into the text.

use litmus_dsl::ir::{FenceKind, Instr, Labels, Program, RmwOp};

fn program(src: &str) -> Program {
    let a = litmus_dsl::analyze(src);
    let errors: Vec<_> = a.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    a.program.expect("lowered")
}

fn errors(src: &str) -> Vec<(String, String)> {
    let a = litmus_dsl::analyze(src);
    a.diagnostics.iter().filter(|d| d.is_error()).map(|d| (d.code.to_string(), d.span.text(src).to_string())).collect()
}

/// Each access of thread `t` as (statement text, labels), in code order;
/// fences as ("fence", their order's label).
fn accesses(p: &Program, t: usize) -> Vec<(String, Labels)> {
    p.threads[t]
        .code
        .iter()
        .filter_map(|i| match *i {
            Instr::Load { labels, stmt, .. } | Instr::Store { labels, stmt, .. } | Instr::Rmw { labels, stmt, .. } => {
                Some((p.stmts[stmt as usize].text.clone(), labels))
            }
            Instr::Fence { kind: FenceKind::Order(l), .. } => Some(("fence".into(), l)),
            _ => None,
        })
        .collect()
}

const MP: &str = "litmus MP\nshared data = 0;\natomic flag = 0;\n\
    thread P0 {\n  data = 1;\n  flag@release = 1;\n}\n\
    thread P1 {\n  let r0 = flag;\n  let r1 = data;\n  let r2 = flag@relaxed;\n}\n\
    exists (P1:r0 == 1 && P1:r1 == 0);\n";

#[test]
fn accesses_take_c11_labels() {
    let p = program(MP);
    assert!(p.is_c11());
    let (a, na) = (Labels::A, Labels::NA);
    assert_eq!(accesses(&p, 0), [("data = 1".to_string(), na), ("flag@release = 1".to_string(), a | Labels::MO_REL)]);
    // An `atomic` location's plain access is seq_cst, as C's `_Atomic` objects.
    assert_eq!(
        accesses(&p, 1),
        [
            ("let r0 = flag".to_string(), a | Labels::MO_SC),
            ("let r1 = data".to_string(), na),
            ("let r2 = flag@relaxed".to_string(), a | Labels::RLX)
        ]
    );
}

#[test]
fn read_modify_writes_fences_and_locks() {
    let src = "litmus R\nshared x = 0, m = 0;\nshared a[2];\n\
        thread P0 {\n  let o = cas(x@acq_rel, 0, 1);\n  let f = fetch_add(x@relaxed, 1);\n  let g = xchg(x, 2);\n\
        fence acquire;\n  fence seq_cst;\n  lock(m);\n  unlock(m);\n  let e = a[o]@acquire;\n}\n";
    let p = program(src);
    let rmw = Labels::A | Labels::RMW;
    assert_eq!(
        accesses(&p, 0),
        [
            ("let o = cas(x@acq_rel, 0, 1)".to_string(), rmw | Labels::MO_ACQ_REL),
            ("let f = fetch_add(x@relaxed, 1)".to_string(), rmw | Labels::RLX),
            // A read-modify-write without an order is seq_cst, as in C.
            ("let g = xchg(x, 2)".to_string(), rmw | Labels::MO_SC),
            ("fence".to_string(), Labels::MO_ACQ),
            ("fence".to_string(), Labels::MO_SC),
            ("lock(m)".to_string(), rmw | Labels::MO_ACQ),
            ("unlock(m)".to_string(), Labels::A | Labels::MO_REL),
            ("let e = a[o]@acquire".to_string(), Labels::A | Labels::MO_ACQ),
        ]
    );
    // A failing acq_rel compare-exchange reads as acquire (C's default).
    let fail = p.threads[0].code.iter().find_map(|i| match i {
        Instr::Rmw { op: RmwOp::Cas { fail, .. }, .. } => Some(*fail),
        _ => None,
    });
    assert_eq!(fail, Some(Some(Labels::A | Labels::MO_ACQ)));
}

#[test]
fn a_program_without_orders_has_no_labels() {
    let p = program("litmus SB\nshared x, y;\nthread P0 { x = 1; let r = y; let c = cas(x, 1, 2); fence; }\n");
    assert!(!p.is_c11() && !p.has_labels());
}

#[test]
fn orders_where_c11_has_none_are_errors_at_their_span() {
    let src = "litmus E\nshared x;\nfn f() { return 1; }\nthread P0 {\n  let r = x@release;\n  x@acquire = 1;\n\
        x@acq_rel = 2;\n  let q = 0;\n  q@relaxed = 1;\n  let s = q@acquire;\n  let u = f()@acquire;\n}\n\
        exists (x@acquire == 1);\n";
    assert_eq!(
        errors(src),
        [
            ("E0235".to_string(), "release".to_string()),
            ("E0235".to_string(), "acquire".to_string()),
            ("E0235".to_string(), "acq_rel".to_string()),
            ("E0234".to_string(), "relaxed".to_string()),
            ("E0234".to_string(), "acquire".to_string()),
            ("E0234".to_string(), "acquire".to_string()),
            ("E0234".to_string(), "acquire".to_string()),
        ]
    );
    let unknown = errors("litmus U\nshared x;\nthread P0 { x@weak = 1; fence sometimes; }\n");
    assert_eq!(unknown.iter().map(|e| e.1.as_str()).collect::<Vec<_>>(), ["weak", "sometimes"], "{unknown:?}");
}

#[test]
fn the_formatter_keeps_an_access_and_its_order_together() {
    let src = "litmus F\natomic x;\nthread P0 {\n  let r = x @ acquire;\n  x  @release = r;\n}\n";
    let out = litmus_dsl::native::format::format(src).expect("formatted");
    assert!(out.contains("let r = x@acquire;") && out.contains("x@release = r;"), "{out}");
}

#[test]
fn a_relabel_writes_the_order_on_the_access() {
    let src = "litmus L\nshared a[2], flag;\nthread P0 {\n  flag = 1;\n  let r = a[1]@relaxed;\n  let c = cas(flag, 0, 1);\n}\n";
    let p = program(src);
    let text = |i: usize, to: Labels| {
        let s = &p.stmts[i];
        litmus_dsl::edit::relabel_stmt(&p, i as u32, &s.text, to).map(|(w, t)| format!("{w}: {t}"))
    };
    assert_eq!(text(0, Labels::A | Labels::MO_REL).as_deref(), Some("release: flag@release = 1"));
    assert_eq!(text(1, Labels::A | Labels::MO_ACQ).as_deref(), Some("acquire: let r = a[1]@acquire"));
    assert_eq!(
        text(2, Labels::A | Labels::RMW | Labels::MO_ACQ_REL).as_deref(),
        Some("acq_rel: let c = cas(flag@acq_rel, 0, 1)")
    );
}
