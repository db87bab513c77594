//! herd's stock model library reads, includes resolved; malformed text gets
//! a diagnostic at the right place.

use std::path::{Path, PathBuf};

use litmus_cat::{CatError, Model};

const HERD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/models/herd");

/// Files in the library that are not cat: `.def` files are herd's C
/// macro definitions (read by herd's `-macros` option, a different
/// language), and the licence is text.
const NOT_CAT: &[&str] = &["LICENSE.txt", "c11.def", "kernel.def", "xchg.def"];

/// Files herd7's own grammar rejects: `uniproc-normw-cat.cat` writes
/// `rf -1` (an old inverse without `^`), which `lib/modelParser.mly` no
/// longer has (only `base HAT INV`). The error must be at that `-1`.
const HERD_REJECTS: &[(&str, usize, usize)] = &[("uniproc-normw-cat.cat", 7, 14)];

#[test]
fn every_stock_model_reads_with_its_includes() {
    let dir = Path::new(HERD);
    assert!(dir.is_dir(), "no {HERD}: herd's stock models ship in tests/corpus/models/herd");
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    assert_eq!(names.len(), 92);
    let mut parsed = 0;
    let mut failures = Vec::new();
    for p in &names {
        let name = p.file_name().unwrap().to_str().unwrap();
        if NOT_CAT.contains(&name) {
            continue;
        }
        if let Some(&(_, line, col)) = HERD_REJECTS.iter().find(|r| r.0 == name) {
            match Model::load(p, &[]) {
                Err(CatError::Syntax(d)) => assert_eq!((d.line, d.column), (line, col), "{d}"),
                other => panic!("{name}: {other:?}"),
            }
            continue;
        }
        match Model::load(p, &[]) {
            Ok(m) => {
                parsed += 1;
                assert!(m.prelude.is_some() || name == "stdlib.cat", "{name}: no stdlib");
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(parsed, 87, "86 .cat files and one .bell");
}

fn syntax_error(src: &str) -> (usize, usize, String) {
    match Model::from_source(Path::new("/nonexistent/t.cat"), src, &[]) {
        Err(CatError::Syntax(d)) => (d.line, d.column, d.message),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn malformed_text_gets_a_diagnostic_at_its_span() {
    // A binary operator with no right operand.
    let (l, c, m) = syntax_error("T\nlet a = po |\nlet b = rf\n");
    assert_eq!((l, c), (3, 1), "{m}");
    assert!(m.contains("expected an expression"), "{m}");
    // `^` must be followed by `-1`.
    let (l, c, m) = syntax_error("T\nacyclic po^+ as x\n");
    assert_eq!((l, c), (2, 12), "{m}");
    assert!(m.contains("`-1`"), "{m}");
    // An unterminated comment points at its opening.
    let (l, c, m) = syntax_error("T\nlet a = po (* no end\n");
    assert_eq!((l, c), (2, 12), "{m}");
    assert!(m.contains("unterminated comment"), "{m}");
    // A stray character.
    let (l, c, m) = syntax_error("T\nlet a = po $ rf\n");
    assert_eq!((l, c), (2, 12), "{m}");
    assert!(m.contains('$'), "{m}");
    // `as` needs a name.
    let (l, c, m) = syntax_error("T\nacyclic po as\n");
    assert_eq!((l, c), (3, 1), "{m}");
    assert!(m.contains("a name after `as`"), "{m}");
    // An unclosed `match`.
    let (l, c, m) = syntax_error("T\nlet f x = match x with 'a -> po\nlet b = 0\n");
    assert_eq!((l, c), (3, 1), "{m}");
    assert!(m.contains("`end`"), "{m}");
    // An expression where an instruction belongs.
    let (l, c, m) = syntax_error("T\nlet a = 0\npo | rf\n");
    assert_eq!((l, c), (3, 1), "{m}");
    assert!(m.contains("instruction"), "{m}");
}

#[test]
fn missing_include_and_cycles_are_reported_at_the_include() {
    let dir = std::env::temp_dir().join(format!("litmus-cat-inc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.cat"), "A\ninclude \"b.cat\"\n").unwrap();
    std::fs::write(dir.join("b.cat"), "B\nlet x = 0\n  include \"a.cat\"\n").unwrap();
    std::fs::write(dir.join("c.cat"), "C\n\ninclude \"nowhere.cat\"\n").unwrap();
    match Model::load(dir.join("a.cat"), &[]) {
        Err(CatError::Include(d)) => {
            assert!(d.path.ends_with("b.cat"), "{d}");
            assert_eq!((d.line, d.column), (3, 11), "{d}");
            assert!(d.message.contains("cycle"), "{d}");
        }
        other => panic!("{other:?}"),
    }
    match Model::load(dir.join("c.cat"), &[]) {
        Err(CatError::Include(d)) => {
            assert_eq!((d.line, d.column), (3, 9), "{d}");
            assert!(d.message.contains("nowhere.cat"), "{d}");
        }
        other => panic!("{other:?}"),
    }
    // Include directories are searched after the including file's own.
    std::fs::write(dir.join("d.cat"), "D\ninclude \"sc.cat\"\n").unwrap();
    let m = Model::load(dir.join("d.cat"), &[PathBuf::from(HERD)]).unwrap();
    assert!(m.files.len() > 5);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn precedence_follows_herds_grammar() {
    use litmus_cat::ast::{ExprKind, InsKind, Op1, Op2};
    let m = Model::from_source(
        Path::new("/nonexistent/t.cat"),
        "T\nlet a = x \\ y & z\nlet b = R * W ; po*\nlet c = ~x ; y^-1\nlet d = f(x, y) | g x\n",
        &[],
    )
    .unwrap();
    let body = &m.root_file().program.body;
    let rhs = |i: usize| match &body[i].kind {
        InsKind::Let(b) => b[0].expr.kind.clone(),
        k => panic!("{k:?}"),
    };
    // `\` below `&`: x \ (y & z).
    match rhs(0) {
        ExprKind::Op2(Op2::Diff, _, r) => assert!(matches!(r.kind, ExprKind::Op2(Op2::Inter, ..))),
        k => panic!("{k:?}"),
    }
    // (R * W) ; (po*)
    match rhs(1) {
        ExprKind::Op2(Op2::Seq, l, r) => {
            assert!(matches!(l.kind, ExprKind::Op2(Op2::Cartesian, ..)));
            assert!(matches!(r.kind, ExprKind::Op1(Op1::Star, _)));
        }
        k => panic!("{k:?}"),
    }
    // (~x) ; (y^-1)
    match rhs(2) {
        ExprKind::Op2(Op2::Seq, l, r) => {
            assert!(matches!(l.kind, ExprKind::Op1(Op1::Comp, _)));
            assert!(matches!(r.kind, ExprKind::Op1(Op1::Inv, _)));
        }
        k => panic!("{k:?}"),
    }
    match rhs(3) {
        ExprKind::Op2(Op2::Union, l, r) => {
            assert!(matches!(l.kind, ExprKind::App(..)));
            assert!(matches!(r.kind, ExprKind::App(..)));
        }
        k => panic!("{k:?}"),
    }
}
