//! Error recovery as a user meets it (issue 44, item 8): a misspelt keyword
//! is one error that says which keyword was meant, and the rest of the file
//! is read as if it were written (no "no thread `P1`" at the condition); an
//! empty statement `;` is legal, as in C; names are Rust's identifiers
//! (`café`, `λ`), and a character that cannot be part of one says so.

use insta::assert_snapshot;
use litmus_dsl::edit::{apply, fence_edits, FenceInsertion, Place};
use litmus_dsl::native::format::format;
use litmus_dsl::native::lexer::is_identifier;
use litmus_dsl::{analyze, diagnostic::render, Analysis, SymbolKind};

/// Every diagnostic: code, the text under it, message, help.
fn diags(src: &str) -> Vec<(&'static str, String, String, Option<String>)> {
    analyze(src)
        .diagnostics
        .iter()
        .map(|d| (d.code, d.span.text(src).to_string(), d.message.clone(), d.help.clone()))
        .collect()
}

fn one(
    code: &'static str,
    text: &str,
    message: &str,
    help: &str,
) -> Vec<(&'static str, String, String, Option<String>)> {
    vec![(code, text.to_string(), message.to_string(), Some(help.to_string()))]
}

/// The declared names and their kinds, sorted: what recovery must keep.
fn names(a: &Analysis) -> Vec<(String, SymbolKind, Option<String>)> {
    let mut v: Vec<_> = a.symbols.list.iter().map(|s| (s.name.clone(), s.kind, s.scope.clone())).collect();
    v.sort_by(|a, b| (&a.0, &a.2).cmp(&(&b.0, &b.2)));
    v
}

/// Store buffering with `@` where a keyword goes.
fn sb(p0: &str, p1: &str) -> String {
    format!(
        "litmus SB\nshared x = 0;\nshared y = 0;\n\nthread P0 {{\n{p0}\n}}\n\nthread P1 {{\n{p1}\n}}\n\nexists (P0:r0 == 0 && P1:r1 == 0);\n"
    )
}

/// (program with `@` where the keyword goes, the keyword, a misspelling).
fn misspellings() -> Vec<(String, &'static str, &'static str)> {
    let (p0, p1) = ("  x = 1;\n  let r0 = y;", "  y = 1;\n  let r1 = x;");
    let sb_thread = "litmus SB\nshared x = 0;\nshared y = 0;\nthread P0 { x = 1; let r0 = y; }\n\
                     @ P1 { y = 1; let r1 = x; }\nexists (P0:r0 == 0 && P1:r1 == 0);\n";
    let guarded = |stmt: &str| sb(&format!("  x = 1;\n  {stmt}\n  let r0 = y;"), p1);
    vec![
        (sb_thread.to_string(), "thread", "thred"),
        (sb_thread.to_string(), "thread", "thraed"),
        (sb_thread.to_string(), "thread", "Thread"),
        (sb_thread.replace("shared y", "@ y").replace("@ P1", "thread P1"), "shared", "shraed"),
        (sb(p0, p1).replace("exists", "@"), "exists", "exsits"),
        // After a final condition without its (optional) `;`.
        (sb_thread.replace("0);\n", "0)\n@ P2 { x = 2; }\n").replace("@ P1", "thread P1"), "thread", "thred"),
        (sb(p0, p1).replace("exists", "~@"), "exists", "exsits"),
        (sb(p0, p1).replace("exists", "@"), "forall", "froall"),
        (
            "litmus F\nshared x = 0;\n@ set(v) { x = v; }\nthread P0 { set(1); let r = x; }\nexists (P0:r == 1);\n"
                .to_string(),
            "fn",
            "fun",
        ),
        (
            "litmus R\nshared x = 0;\nfn get() { @ x; }\nthread P0 { let r = get(); }\nexists (P0:r == 1);\n"
                .to_string(),
            "return",
            "retrun",
        ),
        (sb("  x = 1;\n  @ r0 = y;", p1), "let", "lett"),
        (sb("  x = 1;\n  @ r0 = y;", p1), "let", "Let"),
        (guarded("@ (y == 0) { }"), "while", "whiel"),
        (guarded("@ (y == 0) bound 2 { }"), "while", "wihle"),
        (guarded("@ (y == 0) { x = 2; }"), "if", "iff"),
        (guarded("if (y == 0) { x = 2; } @ { x = 3; }"), "else", "esle"),
        (guarded("@ k in 0..2 { x = k; }"), "for", "foor"),
        (guarded("@ wr;"), "fence", "fenec"),
        (guarded("@;"), "fence", "fenec"),
        (guarded("@ (y == 0);"), "await", "awiat"),
        (guarded("@ (y == 0 || y == 1);"), "assert", "asert"),
        (guarded("@ (y == 0);"), "assume", "asume"),
        (guarded("@(y);"), "lock", "lokc"),
        (guarded("lock(y); @(y);"), "unlock", "unlokc"),
        (sb("  x = 1;\n  let r0 = y;\n  @;", p1), "return", "retrun"),
    ]
}

#[test]
fn a_misspelt_keyword_is_one_error_and_the_file_reads_as_if_it_were_right() {
    for (template, keyword, word) in misspellings() {
        let good = template.replacen('@', keyword, 1);
        let bad = template.replacen('@', word, 1);
        let right = analyze(&good);
        assert!(!right.has_errors(), "{good}\n{:#?}", right.diagnostics);
        // Exactly one diagnostic: no cascade at the condition or the registers.
        let help = format!("did you mean `{keyword}`?");
        assert_eq!(diags(&bad), one("E0004", word, &format!("unknown keyword `{word}`"), &help), "{bad}");
        // The tree is the one the keyword gives: the same names, and the
        // quick fix writes the keyword.
        let a = analyze(&bad);
        assert_eq!(names(&a), names(&right), "{bad}");
        let d = &a.diagnostics[0];
        let (span, text) = d.suggestion.clone().expect("a quick fix");
        let fixed = format!("{}{text}{}", &bad[..span.start], &bad[span.end..]);
        assert_eq!(fixed, good);
    }
}

#[test]
fn the_issue_s_examples() {
    let thred = sb("  x = 1;\n  let r0 = y;", "  y = 1;\n  let r1 = x;").replace("thread P1", "thred P1");
    assert_eq!(diags(&thred), one("E0004", "thred", "unknown keyword `thred`", "did you mean `thread`?"),);
    let lett = sb("  x = 1;\n  lett r0 = y;", "  y = 1;\n  let r1 = x;");
    assert_eq!(diags(&lett), one("E0004", "lett", "unknown keyword `lett`", "did you mean `let`?"));
    let a = analyze(&thred);
    assert_snapshot!(render(&a.diagnostics, "sb.litmus", &thred, false));
}

#[test]
fn a_misspelt_keyword_after_a_missing_semicolon_still_declares() {
    // Two mistakes, two errors: the `;` and the keyword; `r0` exists.
    let src = sb("  x = 1\n  lett r0 = y;", "  y = 1;\n  let r1 = x;");
    let d = diags(&src);
    let got: Vec<_> = d.iter().map(|d| (d.0, d.1.as_str(), d.2.as_str())).collect();
    assert_eq!(
        got,
        [("E0002", "1", "expected `;`, found `let`"), ("E0004", "lett", "unknown keyword `lett`")],
        "{d:#?}"
    );
}

#[test]
fn a_word_that_is_a_name_stays_a_name() {
    // Declared names that look like keywords, used where a name may stand.
    let srcs = [
        "litmus N\nshared fenc = 0;\nshared lett = 0;\nthread P0 { fenc = 1; lett = 2; let r = fenc + lett; }\n\
         exists (P0:r == 0);\n",
        "litmus N\nshared x = 0;\nfn retrun(v) { x = v; }\nfn asert(v) { x = v; }\nthread P0 { retrun(1); asert(2); }\n",
        "litmus N\nshared x = 0;\nthread P0 { let whiel = x; let iff = whiel; x = iff; }\n",
    ];
    for src in srcs {
        let a = analyze(src);
        assert!(a.diagnostics.is_empty(), "{src}\n{:#?}", a.diagnostics);
    }
    // A word too far from any keyword is the parser's error, not a guess.
    let src = sb("  x = 1;\n  let r0 = y;", "  y = 1;\n  let r1 = x;").replace("thread P1", "process P1");
    assert!(diags(&src).iter().all(|d| d.0 != "E0004"), "{:#?}", diags(&src));
    // A two-letter name at an item's start is not taken for `fn`.
    let src = "litmus N\nshared x = 0;\nab = 1;\nthread P0 { x = 1; }\n";
    assert!(diags(src).iter().all(|d| d.0 != "E0004"), "{:#?}", diags(src));
}

#[test]
fn unknown_names_close_to_a_declared_one_get_a_suggestion() {
    let cases: [(&str, &str, &str, &str); 6] = [
        ("thread P0 { xx = 1; let r0 = y; }", "E0217", "xx", "x"),
        ("thread P0 { lock(yy); x = 1; unlock(y); let r0 = y; }", "E0213", "yy", "y"),
        ("thread P0 { x = 1; let r0 = yy; }", "E0221", "yy", "y"),
        ("thread P0 { x = 1; let r0 = y; }\nexists (xx == 1 && P0:r0 == 0);", "E0221", "xx", "x"),
        ("thread Left { x = 1; let r0 = y; }\nexists (Lef:r0 == 0);", "E0226", "Lef", "Left"),
        ("thread P0 { x = 1; let count = y; }\nexists (P0:cuont == 0);", "E0227", "cuont", "count"),
    ];
    for (body, code, wrong, right) in cases {
        let src = format!("litmus N\nshared x = 0;\nshared y = 0;\n{body}\n");
        let a = analyze(&src);
        let errors: Vec<_> = a.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert_eq!(errors.len(), 1, "{src}\n{:#?}", a.diagnostics);
        let d = errors[0];
        assert_eq!((d.code, d.span.text(&src)), (code, wrong), "{src}");
        assert_eq!(d.help.as_deref(), Some(format!("did you mean `{right}`?").as_str()), "{src}");
        assert_eq!(d.suggestion.as_ref().map(|s| s.1.as_str()), Some(right));
    }
    // Two threads equally close: no guess, the list.
    let src = "litmus N\nshared x = 0;\nthread P0 { x = 1; }\nthread P1 { x = 2; }\nexists (P2:r == 0);\n";
    let a = analyze(src);
    let d = a.diagnostics.iter().find(|d| d.code == "E0226").unwrap();
    assert_eq!(d.help.as_deref(), Some("threads are: P0, P1"));
}

#[test]
fn an_empty_statement_is_legal_and_means_nothing() {
    let src = sb("  x = 1;;\n  let r0 = y; ;", "  ; y = 1;\n  if (x == 1) { ; } ;\n  let r1 = x;");
    let clean = sb("  x = 1;\n  let r0 = y;", "  y = 1;\n  if (x == 1) { }\n  let r1 = x;");
    let a = analyze(&src);
    assert!(a.diagnostics.is_empty(), "{:#?}", a.diagnostics);
    let key = a.program.as_ref().expect("lowered").semantic_key();
    assert_eq!(analyze(&clean).program.unwrap().semantic_key(), key);
    // The formatter drops them, and the program stays the same.
    let out = format(&src).expect("formats");
    assert_eq!(Some(out.clone()), format(&clean));
    assert!(!out.contains(";;") && !out.contains("{ ;"), "{out}");
    assert_eq!(analyze(&out).program.unwrap().semantic_key(), key);
    // Fences go in as in any file.
    fences_everywhere(&src);
}

/// Insert a fence at every place the program allows, one at a time: the
/// text stays a program without errors.
fn fences_everywhere(src: &str) {
    let prog = analyze(src).program.expect("lowered");
    for s in 0..prog.stmts.len() as u32 {
        for place in [Place::After, Place::Before, Place::LoopHead] {
            if place != Place::After && !prog.fence_place_ok(s, place) {
                continue;
            }
            let fence = FenceInsertion { stmt: s, kind: litmus_dsl::FenceKind::Full, place };
            let out = apply(src, &fence_edits(src, &prog, &[fence]));
            let a = analyze(&out);
            assert!(!a.has_errors(), "{out}\n{:#?}", a.diagnostics);
        }
    }
}

const UNICODE: &str = "litmus Unicode \"names as in Rust\"
shared café = 0;
shared données[2] = {0, 0};

fn écrire(valeur) {
  café = valeur;
}

thread λ {
  écrire(1);
  let r0 = données[1];
}

thread Π1 {
  données[1] = 1; // un commentaire
  let r_é = café;
  for ί in 0..2 { données[0] = ί; }
}

exists (λ:r0 == 0 && Π1:r_é == 0);
";

#[test]
fn unicode_names_analyse_lower_and_format() {
    let a = analyze(UNICODE);
    assert!(a.diagnostics.is_empty(), "{:#?}", a.diagnostics);
    let prog = a.program.as_ref().expect("lowered");
    let threads: Vec<&str> = prog.threads.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(threads, ["λ", "Π1"]);
    assert_eq!(a.condition.as_ref().unwrap().text, "λ:r0 == 0 && Π1:r_é == 0");
    // Every declaration and use covers exactly its name.
    for s in &a.symbols.list {
        for span in std::iter::once(s.def).chain(s.refs.iter().copied()) {
            assert_eq!(span.text(UNICODE), s.name, "{s:?}");
        }
    }
    let at = |name: &str| UNICODE.find(name).unwrap();
    assert_eq!(a.symbols.at(at("données") + 2).map(|s| s.name.as_str()), Some("données"));
    // Any offset, a char boundary or not, is safe to look up.
    for o in 0..=UNICODE.len() {
        let _ = a.symbols.at(o);
        let _ = a.lines.line_col(UNICODE, o);
    }
    let key = prog.semantic_key();
    let out = format(UNICODE).expect("formats");
    assert_eq!(analyze(&out).program.unwrap().semantic_key(), key);
    assert_eq!(format(&out).as_deref(), Some(out.as_str()), "idempotent");
    fences_everywhere(UNICODE);
    for name in ["café", "données", "λ", "Π1", "r_é", "_", "_x9"] {
        assert!(is_identifier(name), "{name}");
    }
    for name in ["", "1x", "a b", "thread", "x→y", "\u{301}x"] {
        assert!(!is_identifier(name), "{name}");
    }
}

#[test]
fn mistakes_around_unicode_names_point_at_whole_characters() {
    // An unknown name close to a Unicode one gets it as a suggestion.
    let src = UNICODE.replace("let r_é = café;", "let r_é = cafe;");
    let a = analyze(&src);
    assert_eq!(
        diags(&src),
        vec![("E0221", "cafe".into(), "unknown name `cafe`".into(), Some("did you mean `café`?".into()))]
    );
    let _ = render(&a.diagnostics, "u.litmus", &src, false);
    // A misspelt keyword among Unicode names.
    let src = UNICODE.replace("thread Π1", "thraed Π1");
    assert_eq!(diags(&src), one("E0004", "thraed", "unknown keyword `thraed`", "did you mean `thread`?"));
}

#[test]
fn a_character_that_is_no_part_of_a_name_says_what_names_are() {
    let src = sb("  x = 1;\n  let r0 = y;", "  y = 1;\n  let r1 = x → 1;");
    let d = diags(&src);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!((d[0].0, d[0].1.as_str(), d[0].2.as_str()), ("E0001", "→", "unexpected character `→`"));
    let help = d[0].3.as_deref().unwrap();
    assert!(help.contains("identifiers as in Rust") && help.contains("`café`"), "{help}");
    let a = analyze(&src);
    assert_snapshot!(render(&a.diagnostics, "arrow.litmus", &src, false));
    // A name may not start with a mark (U+0301, combining acute accent).
    let src = "litmus M\nshared x = 0;\nthread P0 { let \u{301}r = x; }\n";
    let d = diags(src);
    assert_eq!((d[0].0, d[0].1.as_str()), ("E0001", "\u{301}"), "{d:#?}");
    // herd's x86 dialect keeps its own (ASCII) names and message.
    let herd = "X86 H\n{ café=0; }\n P0 ;\n MOV [café],$1 ;\nexists (café=1)\n";
    let a = analyze(herd);
    let e = a.diagnostics.iter().find(|d| d.code == "E0001").expect("herd refuses `é`");
    assert!(e.help.is_none(), "{e:?}");
}

/// The native examples we ship, to mutate.
fn examples() -> &'static [String] {
    static FILES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
            .collect();
        files.sort();
        files
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .filter(|s| litmus_dsl::detect_dialect(s) == litmus_dsl::Dialect::Native)
            .collect()
    })
}

/// A keyword misspelt: a letter dropped, doubled, or swapped with the next.
fn misspell(word: &str, how: usize) -> String {
    let mut c: Vec<char> = word.chars().collect();
    let i = how % c.len();
    match how % 3 {
        0 if c.len() > 2 => {
            c.remove(i);
        }
        1 if i + 1 < c.len() => c.swap(i, i + 1),
        _ => c.insert(i, c[i]),
    }
    c.into_iter().collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 128, ..Default::default() })]
    /// Whatever the mistake, analysis (lowering included) never panics,
    /// every span falls on whole characters, and a file that formats keeps
    /// its program.
    #[test]
    fn mutated_examples_analyse_safely(file in 0usize..1000, at in 0usize..100_000, what in 0usize..5, how in 0usize..100) {
        let src = &examples()[file % examples().len()];
        let bounds: Vec<usize> = src.char_indices().map(|(i, _)| i).collect();
        let p = bounds[at % bounds.len()];
        let mutated = match what {
            0 => format!("{};{}", &src[..p], &src[p..]),
            1 => format!("{}{}{}", &src[..p], ["é", "λ", "→", "\u{301}", "données "][how % 5], &src[p..]),
            2 => {
                // Misspell the keyword at or after `p`, if any.
                let words = ["thread", "shared", "let", "while", "return", "fence", "await", "exists", "if", "else"];
                let found = words.iter().filter_map(|w| src[p..].find(w).map(|i| (p + i, *w))).min();
                match found {
                    Some((i, w)) => format!("{}{}{}", &src[..i], misspell(w, how), &src[i + w.len()..]),
                    None => src.clone(),
                }
            }
            3 => format!("{}{}", &src[..p], src[p..].chars().skip(1).collect::<String>()),
            _ => format!("{};;{}", &src[..p], &src[p..]),
        };
        let a = analyze(&mutated);
        let spans = a.diagnostics.iter().map(|d| d.span).chain(a.symbols.list.iter().flat_map(|s| {
            std::iter::once(s.def).chain(s.refs.iter().copied())
        }));
        for s in spans {
            let ok = |o: usize| o >= mutated.len() || mutated.is_char_boundary(o);
            proptest::prop_assert!(ok(s.start) && ok(s.end), "{s:?} in {mutated}");
        }
        let _ = render(&a.diagnostics, "m.litmus", &mutated, false);
        if let Some(prog) = &a.program {
            if let Some(out) = format(&mutated) {
                let again = analyze(&out).program.map(|p| p.semantic_key());
                proptest::prop_assert_eq!(again, Some(prog.semantic_key()));
            }
        }
    }
}
