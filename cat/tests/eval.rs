//! herd's own `sc.cat` and `x86tso.cat`, unchanged, on hand-made
//! executions; and a changed x86tso that changes exactly one verdict.

use std::path::{Path, PathBuf};

use litmus_cat::eval::{evaluate, Execution, Options, Verdict, MAX_EVENTS};
use litmus_cat::{CatError, Model};

const HERD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/models/herd");

fn herd() -> Option<PathBuf> {
    let p = PathBuf::from(HERD);
    if p.is_dir() {
        Some(p)
    } else {
        // Vendored with the repository: its absence is a broken checkout.
        panic!("no {HERD}: herd's stock models ship in tests/corpus/models/herd")
    }
}

fn model(name: &str) -> Model {
    Model::load(Path::new(HERD).join(name), &[]).unwrap()
}

/// `loc` as herd has it: every pair of events on the same location.
fn same_loc(classes: &[&[usize]]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for c in classes {
        for &a in *c {
            for &b in *c {
                v.push((a, b));
            }
        }
    }
    v
}

/// Store buffering, `x = y = 0`; T0: `x = 1; r0 = y`, T1: `y = 1; r1 = x`.
/// Events: 0 IW x, 1 IW y, 2 W x (T0), 3 R y (T0), 4 W y (T1), 5 R x (T1),
/// and with `fenced`, 6 and 7 an MFENCE between each store and load.
/// `relaxed`: both loads read the initial writes; else T1 reads T0's store.
fn sb(fenced: bool, relaxed: bool) -> Execution {
    let (n, po): (usize, Vec<(usize, usize)>) =
        if fenced { (8, vec![(2, 6), (6, 3), (2, 3), (4, 7), (7, 5), (4, 5)]) } else { (6, vec![(2, 3), (4, 5)]) };
    let rf = if relaxed { vec![(1, 3), (0, 5)] } else { vec![(1, 3), (2, 5)] };
    let mut x = Execution::new(n)
        .set("IW", &[0, 1])
        .set("W", &[0, 1, 2, 4])
        .set("R", &[3, 5])
        .rel("po", &po)
        .rel("rf", &rf)
        .rel("co", &[(0, 2), (1, 4)])
        .rel("loc", &same_loc(&[&[0, 2, 5], &[1, 3, 4]]));
    if fenced {
        x = x.set("F", &[6, 7]).set("MFENCE", &[6, 7]);
    }
    x
}

/// Message passing; T0: `x = 1; y = 1`, T1: `r0 = y; r1 = x`, with
/// `r0 = 1, r1 = 0`. Events: 0 IW x, 1 IW y, 2 W x, 3 W y, 4 R y, 5 R x.
fn mp() -> Execution {
    Execution::new(6)
        .set("IW", &[0, 1])
        .set("W", &[0, 1, 2, 3])
        .set("R", &[4, 5])
        .rel("po", &[(2, 3), (4, 5)])
        .rel("rf", &[(3, 4), (0, 5)])
        .rel("co", &[(0, 2), (1, 3)])
        .rel("loc", &same_loc(&[&[0, 2, 5], &[1, 3, 4]]))
}

fn run(m: &Model, x: &Execution) -> Verdict {
    evaluate(m, x, &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn sc_forbids_the_relaxed_outcomes() {
    if herd().is_none() {
        return;
    }
    let sc = model("sc.cat");
    let v = run(&sc, &sb(false, true));
    assert!(!v.allowed(), "{v:?}");
    assert_eq!(v.failed(), ["sc"]);
    assert!(!run(&sc, &sb(true, true)).allowed());
    let v = run(&sc, &mp());
    assert_eq!(v.failed(), ["sc"], "{v:?}");
    // An SC outcome passes every check.
    let v = run(&sc, &sb(false, false));
    assert!(v.allowed(), "{v:?}");
    assert!(v.checks.iter().any(|c| c.name == "atom" && c.holds));
}

#[test]
fn x86tso_allows_sb_but_not_with_mfence_nor_mp() {
    if herd().is_none() {
        return;
    }
    let tso = model("x86tso.cat");
    let v = run(&tso, &sb(false, true));
    assert!(v.allowed(), "{v:?}");
    let v = run(&tso, &sb(true, true));
    assert_eq!(v.failed(), ["tso"], "{v:?}");
    let v = run(&tso, &mp());
    assert_eq!(v.failed(), ["tso"], "{v:?}");
    assert!(run(&tso, &sb(false, false)).allowed());
    assert!(run(&tso, &sb(true, false)).allowed());
}

#[test]
fn x86tso_without_its_fence_clause_changes_exactly_sb_mfence() {
    let Some(dir) = herd() else { return };
    let text = std::fs::read_to_string(dir.join("x86tso.cat")).unwrap();
    let clause = "let ghb = mfence | implied";
    assert!(text.contains(clause));
    let changed = text.replace(clause, "let ghb = implied");
    // Next to herd's file, so that its includes and stdlib.cat are found.
    let nofence = Model::from_source(&dir.join("x86tso-nofence.cat"), &changed, &[]).unwrap();
    let tso = model("x86tso.cat");
    let cases = [
        ("SB", sb(false, true)),
        ("SB+mfences", sb(true, true)),
        ("MP", mp()),
        ("SB sc", sb(false, false)),
        ("SB+mfences sc", sb(true, false)),
    ];
    let mut changed = Vec::new();
    for (name, x) in &cases {
        if run(&tso, x).allowed() != run(&nofence, x).allowed() {
            changed.push(*name);
        }
    }
    assert_eq!(changed, ["SB+mfences"]);
}

#[test]
fn a_co_that_is_not_a_candidate_is_an_error_not_a_verdict() {
    if herd().is_none() {
        return;
    }
    // co from the last write to the initial one: not a linearisation of co0.
    let mut x = sb(false, true);
    x = x.rel("co", &[(2, 0), (4, 1)]).set("FW", &[0, 1]);
    match evaluate(&model("sc.cat"), &x, &Options::default()) {
        Err(CatError::NotACandidate(d)) => assert!(d.message.contains("not one of the model's candidates"), "{d}"),
        other => panic!("{other:?}"),
    }
    // Without co, herd enumerates every candidate: one (each cell's
    // initial write, then its one write) is taken as herd takes it, the
    // verdict that co's; more are refused, at the `with` of cos-no-opt.cat.
    let mut x = sb(false, true);
    let given = evaluate(&model("sc.cat"), &x, &Options::default()).unwrap().allowed();
    x.rels.remove("co");
    let v = evaluate(&model("sc.cat"), &x, &Options::default()).unwrap();
    assert_eq!(v.allowed(), given);
    assert!(!given, "SB's relaxed outcome under SC");
    // A second write of x (event 6, in T0 after its first): two candidates.
    let mut two = Execution::new(7)
        .set("IW", &[0, 1])
        .set("W", &[0, 1, 2, 4, 6])
        .set("R", &[3, 5])
        .rel("po", &[(2, 3), (2, 6), (3, 6), (4, 5)])
        .rel("rf", &[(1, 3), (0, 5)])
        .rel("loc", &same_loc(&[&[0, 2, 5, 6], &[1, 3, 4]]));
    two.rels.remove("co");
    match evaluate(&model("sc.cat"), &two, &Options::default()) {
        Err(CatError::Unsupported(d)) => {
            assert!(d.path.ends_with("cos-no-opt.cat"), "{d}");
            assert!(d.message.starts_with("not supported yet"), "{d}");
        }
        other => panic!("{other:?}"),
    }
}

fn eval_src(src: &str, x: &Execution) -> Result<Verdict, CatError> {
    let m = Model::from_source(Path::new("/nonexistent/t.cat"), src, &[])?;
    evaluate(&m, x, &Options::default())
}

#[test]
fn language_pieces() {
    let x = mp();
    // let rec: a least fixpoint (transitive closure by hand).
    let v = eval_src("T\nlet rec t = po | (t ; po)\nempty t \\ po+ as same\nempty po+ \\ t as same2\n", &x).unwrap();
    assert!(v.allowed(), "{v:?}");
    // Functions, tuples, try, flags, negated checks, cartesian products.
    let v = eval_src(
        "T\nlet f(a, b) = a & (b * b)\nlet g = fun r -> r^-1\n\
         let u = try undefined-name with f(po, M)\n\
         empty u \\ po as a\nacyclic g(u) as b\n\
         flag ~empty rf as has-rf\nflag ~empty 0 as never\n~empty W * R as c\n",
        &x,
    )
    .unwrap();
    assert!(v.allowed(), "{v:?}");
    assert_eq!(v.flags, ["has-rf"]);
    // A failing check is named.
    let v = eval_src("T\nirreflexive po? as refl\n", &x).unwrap();
    assert_eq!(v.failed(), ["refl"]);
    // An unbound name outside `try` is an error at its span.
    match eval_src("T\nlet a = po\n  acyclic a | nope\n", &x) {
        Err(CatError::Eval(d)) => {
            assert_eq!((d.line, d.column), (3, 15), "{d}");
            assert!(d.message.contains("nope"), "{d}");
        }
        other => panic!("{other:?}"),
    }
    // An unsupported primitive is refused even under `try`.
    match eval_src("T\nlet a = try fromto(po) with 0\n", &x) {
        Err(CatError::Unsupported(d)) => {
            assert_eq!((d.line, d.column), (2, 13), "{d}");
            assert!(d.message.contains("fromto"), "{d}");
        }
        other => panic!("{other:?}"),
    }
    // Procedures: checks inside are named by the call.
    let v = eval_src("T\nprocedure acy(r) = acyclic r end\ncall acy(po | po^-1) as cyc\n", &x).unwrap();
    assert_eq!(v.failed(), ["cyc"]);
}

/// An execution the bit masks cannot hold is refused, not answered.
#[test]
fn an_execution_too_large_is_an_error_not_a_panic() {
    let big = Execution::new(MAX_EVENTS + 1).set("W", &[MAX_EVENTS]);
    assert!(matches!(evaluate(&model("sc.cat"), &big, &Options::default()), Err(CatError::Execution(_))));
    // The largest execution that fits is answered.
    assert_eq!(MAX_EVENTS, 128);
    let last = MAX_EVENTS - 1;
    let most = Execution::new(MAX_EVENTS).set("R", &[0]).set("W", &[last]).rel("po", &[(0, last)]).rel("co", &[]);
    let v = evaluate(&model("sc.cat"), &most, &Options::default()).unwrap();
    assert!(v.allowed(), "{v:?}");
    let past = Execution::new(4).rel("po", &[(0, 9)]);
    let e = evaluate(&model("sc.cat"), &past, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("event 9 does not fit"), "{e}");
}

/// What herd's AArch64 model needs of a plain test, alike evaluated and
/// compiled: a sequence stops at an empty prefix (a name bound only for
/// page tables after it is never read), sets the execution says are
/// `absent` are empty and known so, `same-oa` holds of no pair of litmus's
/// integer values, and `with … from` a set of one candidate binds it.
#[test]
fn what_the_aarch64_model_needs() {
    let src = "T\n\
        let e = domain 0\n\
        empty [e]; page-tables-only; po as seq-stops\n\
        empty [SYS]; page-tables-only as absent-stops\n\
        empty same-oa(po) as no-page-table-values\n\
        empty SYS as absent-is-empty\n\
        with t from {0}\n\
        empty t as one-candidate\n\
        empty (SYS * _) & po as absent-product\n";
    let m = Model::from_source(Path::new("/nonexistent/t.cat"), src, &[]).unwrap();
    let x = mp().absent(["SYS"]);
    let v = evaluate(&m, &x, &Options::default()).unwrap();
    assert!(v.checks.iter().all(|c| c.holds) && v.checks.len() == 6, "{v:?}");
    let mut p = m.prepare(&Options::default()).unwrap();
    assert_eq!(p.fallback(&x), None, "compiled");
    assert_eq!(p.check(&x).unwrap().checks, v.checks);
    // Not absent, the name is unbound: an error, never an answer.
    assert!(evaluate(&m, &mp(), &Options::default()).is_err());
}
