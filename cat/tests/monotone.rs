//! Which checks prune a partial execution: the analysis's answers for
//! the stock models, and its soundness on random executions and random
//! extensions of them (a monotone check that fails on an execution fails
//! on every extension).

mod common;

use std::path::Path;

use common::{Graph, Rng, Style};
use litmus_cat::eval::Options;
use litmus_cat::{stock, CheckInfo, Model, Prepared};

fn shape() -> litmus_cat::eval::Execution {
    Graph::random(&mut Rng::new(1), 2, 3, 2, false).to_execution(Style::EXPLORER)
}

fn checks(p: &mut Prepared) -> Vec<CheckInfo> {
    p.checks(&shape())
}

#[test]
fn every_check_of_the_explorers_models_is_monotone() {
    for name in ["x86tso", "sc-rmw", "x86pso", "sc", "tso", "uniproc", "x86tso-mixed"] {
        let mut p = stock::load(name).unwrap().prepare(&Options::default()).unwrap();
        let cs = checks(&mut p);
        assert!(!cs.is_empty(), "{name}");
        let names: Vec<String> =
            cs.iter().filter(|c| c.ty == litmus_cat::ast::TestType::Check).map(|c| c.name.clone()).collect();
        assert_eq!(p.monotone_checks(&shape()), names, "{name}: {cs:?}");
        eprintln!("{name}: monotone {names:?}");
    }
}

const MIXED: &str = "\"mixed\"
include \"cos.cat\"
acyclic po | rf | co | fr as sc
empty (co \\ (co;co)) & po as immediate
empty W \\ domain(co) as finals
~acyclic po as negated
flag ~empty rf as flagged
undefined_unless empty rf & po as undef
irreflexive [W]; ~(po;po); [W] as complement
irreflexive ([R]; ~po; [W]) ; rf as complement-of-stable
let rec t = po | t;rf
acyclic t as recursive
let rec bad = po \\ (bad;bad)
empty bad & rf as nonmonotone-rec
empty rf \\ (po;po) as difference
irreflexive (rf^-1;rf)+ ; po as seq
acyclic 0 as static
";

#[test]
fn the_analysis_is_conservative() {
    let m = Model::from_sources(Path::new("mixed.cat"), MIXED, &stock::source).unwrap();
    let mut p = m.prepare(&Options::default()).unwrap();
    let got: Vec<(String, bool)> = checks(&mut p).into_iter().map(|c| (c.name, c.monotone)).collect();
    let want = [
        ("sc", true),
        ("immediate", false),
        ("finals", false),
        ("negated", false),
        ("flagged", false),
        ("undef", false),
        ("complement", false),
        ("complement-of-stable", true),
        ("recursive", true),
        ("nonmonotone-rec", false),
        ("difference", false),
        ("seq", true),
        ("static", true),
    ];
    let want: Vec<(String, bool)> = want.iter().map(|(n, b)| (n.to_string(), *b)).collect();
    assert_eq!(got, want);
}

/// For each random execution and each of a few random extensions of it:
/// every monotone check failing on the execution fails on the extension,
/// and `allowed_partial` is the conjunction of the monotone checks.
fn sound(name: &str, model: &Model, cases: usize, seed: u64) -> (usize, usize) {
    let mut p = model.prepare(&Options::default()).unwrap();
    let mut rng = Rng::new(seed);
    let (mut pruned, mut carried) = (0, 0);
    for case in 0..cases {
        let threads = 1 + rng.below(4);
        let locs = 1 + rng.below(3);
        let small = Graph::random(&mut rng, threads, 3, locs, false);
        let style = if rng.chance(70) { Style::EXPLORER } else { Style { immediate_co: true, ..Style::EXPLORER } };
        let xs = small.to_execution(style);
        let Ok(vs) = p.check(&xs) else { continue };
        let info = p.checks(&xs);
        assert_eq!(info.len(), vs.checks.len());
        let partial = p.allowed_partial(&xs).unwrap();
        let fails: Vec<bool> = vs.checks.iter().zip(&info).map(|(c, i)| i.monotone && !c.holds).collect();
        assert_eq!(partial, !fails.iter().any(|&f| f), "{name}, case {case}");
        if !partial {
            pruned += 1;
        }
        for _ in 0..4 {
            let mut big = small.clone();
            let more = 1 + rng.below(6);
            for _ in 0..more {
                let t = rng.below(threads + 1);
                big.step(&mut rng, t, false);
            }
            let xb = big.to_execution(style);
            let vb = p.check(&xb).unwrap_or_else(|e| panic!("{name}, case {case}: {e}"));
            for (k, f) in fails.iter().enumerate() {
                if *f {
                    assert!(
                        !vb.checks[k].holds,
                        "{name}, case {case}: {} passes again\n{xs:?}\n{xb:?}",
                        vb.checks[k].name
                    );
                    carried += 1;
                }
            }
            if !partial {
                assert!(!p.allowed(&xb).unwrap(), "{name}, case {case}");
                assert!(!p.allowed_partial(&xb).unwrap(), "{name}, case {case}");
            }
        }
    }
    (pruned, carried)
}

#[test]
fn a_monotone_failure_stays_in_every_extension() {
    let models = ["x86tso", "sc-rmw", "x86pso", "sc", "tso", "uniproc", "x86tso-mixed", "mips-tso"];
    for (i, name) in models.iter().enumerate() {
        let (pruned, carried) = sound(name, &stock::load(name).unwrap(), 300, 40 + i as u64);
        eprintln!("{name}: {pruned} of 300 pruned, {carried} failures carried over");
        assert!(pruned > 0, "{name}");
    }
    let m = Model::from_sources(Path::new("mixed.cat"), MIXED, &stock::source).unwrap();
    let (pruned, carried) = sound("mixed", &m, 300, 99);
    eprintln!("mixed: {pruned} of 300 pruned, {carried} failures carried over");
}

/// The analysis is not vacuous: the checks it leaves out do pass again
/// on extensions (here an immediate-co check: a write inserted between
/// two others takes their pair out of `co \ (co;co)`).
#[test]
fn a_check_left_out_can_pass_again() {
    let src = "\"imm\"\ninclude \"cos.cat\"\nempty (co \\ (co;co)) & po as immediate\n";
    let m = Model::from_sources(Path::new("imm.cat"), src, &stock::source).unwrap();
    let mut p = m.prepare(&Options::default()).unwrap();
    // One thread writing x twice: the two writes are immediate in co.
    let write = |thread, instr| common::Event {
        kind: common::Kind::Write,
        thread: Some(thread),
        loc: Some(0),
        locked: false,
        tag: "",
        instr,
    };
    let mut g = Graph::initial(1);
    g.events.extend([write(0, 1), write(0, 2)]);
    g.co[0].extend([1, 2]);
    let x = g.to_execution(Style::EXPLORER);
    let imm = |p: &mut Prepared, x| p.check(x).unwrap().checks[0].holds;
    assert!(!imm(&mut p, &x), "{x:?}");
    assert!(p.allowed_partial(&x).unwrap());
    // Another thread's write, inserted between them.
    let mut big = g.clone();
    big.events.push(write(1, 3));
    big.co[0].insert(2, 3);
    assert!(imm(&mut p, &big.to_execution(Style::EXPLORER)));
}
