//! The prepared model against the evaluator: the same verdicts (or the
//! same errors) on random executions, for herd's stock models.

mod common;

use common::{Graph, Rng, Style};
use litmus_cat::eval::{evaluate, Execution, Options, MAX_EVENTS};
use litmus_cat::{stock, Model};
use std::path::Path;

/// Models whose every shape of execution below compiles.
const COMPILED: &[&str] =
    &["sc", "x86tso", "x86tso-mixed", "sc-rmw", "x86pso", "tso", "uniproc", "uni", "minimal", "naked", "mips-tso"];

fn compare(name: &str, opts: &Options, cases: usize, seed: u64) {
    compare_model(name, &stock::load(name).unwrap(), opts, cases, seed)
}

/// Up to this many threads, instructions per thread, locations.
#[derive(Clone, Copy)]
struct Size(usize, usize, usize);

const USUAL: Size = Size(4, 5, 3);

/// Flips one pair of `co` (so that it may not be an order of the
/// candidates any more), keeping its domain: the final writes, and so
/// the number of candidates the evaluator enumerates, stay the same.
fn mutate_co(x: &mut Execution, rng: &mut Rng) {
    let n = x.n;
    if let Some(co) = x.rels.get_mut("co") {
        let (a, b) = (rng.below(n), rng.below(n));
        if co.0[a] != 0 && co.0[a] != 1 << b {
            co.0[a] ^= 1 << b;
        }
    }
}

fn compare_model(name: &str, model: &Model, opts: &Options, cases: usize, seed: u64) {
    compare_sized(name, model, opts, cases, seed, USUAL)
}

fn compare_sized(name: &str, model: &Model, opts: &Options, cases: usize, seed: u64, size: Size) {
    let mut p = model.prepare(opts).unwrap();
    let mut rng = Rng::new(seed);
    let (mut allowed, mut forbidden, mut errors) = (0, 0, 0);
    let mut kinds = std::collections::BTreeSet::new();
    for case in 0..cases {
        let wild = rng.chance(10);
        let (threads, locs) = (1 + rng.below(size.0), 1 + rng.below(size.2));
        let g = Graph::random(&mut rng, threads, size.1, locs, wild);
        let style = Style::random(&mut rng);
        let mut x = g.to_execution(style);
        if rng.chance(8) {
            mutate_co(&mut x, &mut rng);
        }
        if let Some(why) = p.fallback(&x) {
            panic!("{name}: {style:?} falls back: {why}");
        }
        let want = evaluate(model, &x, opts);
        let got = p.check(&x);
        match (&want, &got) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{name}, case {case}: {x:?}");
                assert_eq!(p.allowed(&x).unwrap(), a.allowed(), "{name}, case {case}");
                if a.allowed() {
                    allowed += 1;
                } else {
                    forbidden += 1;
                }
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string(), "{name}, case {case}");
                assert_eq!(p.allowed(&x).unwrap_err().to_string(), a.to_string());
                errors += 1;
                kinds.insert(a.to_string().split(": ").skip(1).collect::<Vec<_>>().join(": "));
            }
            _ => panic!("{name}, case {case}: evaluate {want:?}, prepared {got:?}\n{x:?}"),
        }
    }
    eprintln!("{name}: {allowed} allowed, {forbidden} forbidden, {errors} errors {kinds:?}");
    let errs = name.starts_with("static");
    assert!(allowed > 0 || errs || name.starts_with("never"), "{name}: nothing allowed");
    assert!(
        forbidden > 0 || errs || matches!(name, "naked" | "minimal") || name.starts_with("always"),
        "{name}: nothing forbidden"
    );
}

#[test]
fn the_stock_models_give_the_evaluators_verdicts() {
    for (i, name) in COMPILED.iter().enumerate() {
        compare(name, &Options::default(), 400, 1000 + i as u64);
    }
}

#[test]
fn with_the_cos_opt_variant() {
    let opts = Options { variants: ["cos-opt".to_string()].into() };
    // Without co0 in cobase, the evaluator enumerates every order of each
    // location's writes: small programs only.
    for name in ["sc", "x86tso", "uniproc"] {
        compare_sized(name, &stock::load(name).unwrap(), &opts, 200, 77, Size(2, 3, 2));
    }
}

#[test]
fn an_execution_without_co_falls_back_to_the_evaluator() {
    let model = stock::load("sc").unwrap();
    let mut p = model.prepare(&Options::default()).unwrap();
    let mut x = Graph::random(&mut Rng::new(3), 2, 3, 2, false).to_execution(Style::EXPLORER);
    x.rels.remove("co");
    assert!(p.fallback(&x).is_some());
    let a = evaluate(&model, &x, &Options::default()).unwrap_err().to_string();
    assert_eq!(p.check(&x).unwrap_err().to_string(), a);
    assert_eq!(p.allowed(&x).unwrap_err().to_string(), a);
    // A model that has nothing to enumerate compiles without co.
    let naked = stock::load("naked").unwrap();
    let mut q = naked.prepare(&Options::default()).unwrap();
    assert_eq!(q.fallback(&x), None);
    assert_eq!(q.check(&x).unwrap(), evaluate(&naked, &x, &Options::default()).unwrap());
}

/// Executions of more than 64 events (up to `MAX_EVENTS`), which the
/// prepared model runs on 128-bit rows: the evaluator's verdicts, and the
/// 64-bit rows of a small execution checked next by the same prepared
/// model are not disturbed.
#[test]
fn executions_of_more_than_64_events() {
    for (i, name) in ["sc", "x86tso", "sc-rmw", "x86pso", "uniproc"].iter().enumerate() {
        let model = stock::load(name).unwrap();
        let opts = Options::default();
        let mut p = model.prepare(&opts).unwrap();
        let mut rng = Rng::new(300 + i as u64);
        let small = Graph::random(&mut rng, 3, 5, 2, false).to_execution(Style::EXPLORER);
        let small_verdict = evaluate(&model, &small, &opts).unwrap();
        let (mut allowed, mut forbidden) = (0, 0);
        for case in 0..10 {
            // Half the events initial writes, so that few writes share a
            // location and the evaluator's enumeration of coherence
            // orders stays small.
            let size = if case == 0 { MAX_EVENTS } else { 65 + rng.below(MAX_EVENTS - 65) };
            let mut g = Graph::initial(size / 2);
            while g.events.len() < size - 1 {
                let t = rng.below(4);
                if case % 2 == 0 {
                    g.step_sc(&mut rng, t);
                } else {
                    g.step(&mut rng, t, false);
                }
            }
            let mut x = g.to_execution(Style::EXPLORER);
            assert!(x.n > 64 && x.n <= MAX_EVENTS, "{}", x.n);
            if rng.chance(4) {
                mutate_co(&mut x, &mut rng);
            }
            assert_eq!(p.fallback(&x), None, "{name}");
            match (evaluate(&model, &x, &opts), p.check(&x)) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "{name}, case {case}");
                    assert_eq!(p.allowed(&x).unwrap(), a.allowed(), "{name}, case {case}");
                    if a.allowed() {
                        allowed += 1;
                        assert!(p.allowed_partial(&x).unwrap(), "{name}, case {case}");
                    } else {
                        forbidden += 1;
                    }
                }
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}, case {case}"),
                (a, b) => panic!("{name}, case {case}: evaluate {a:?}, prepared {b:?}"),
            }
            assert_eq!(p.check(&small).unwrap(), small_verdict, "{name}, after case {case}");
        }
        eprintln!("{name}: {allowed} allowed, {forbidden} forbidden");
        assert!(allowed > 0, "{name}: nothing allowed");
        assert!(forbidden > 0 || *name == "uniproc", "{name}: nothing forbidden");
    }
}

#[test]
fn a_bad_execution_is_an_error() {
    let mut p = stock::load("x86tso").unwrap().prepare(&Options::default()).unwrap();
    let big = Execution::new(MAX_EVENTS + 1).set("W", &[MAX_EVENTS]);
    assert!(p.check(&big).is_err());
    assert!(p.allowed(&big).is_err());
    let past = Execution::new(4).rel("po", &[(0, 9)]);
    assert!(p.allowed(&past).unwrap_err().to_string().contains("event 9 does not fit"));
}

/// Language pieces the stock models do not all use: `let rec` (sets,
/// relations, mutual), procedures, flags, `undefined_unless`, asserts,
/// negated checks, tests of `_` and `0`, `try`, tag matches.
const PIECES: &[(&str, &str)] = &[
    (
        "rec",
        "\"rec\"\ninclude \"cos.cat\"\n\
         let rec hb = po | rf | hb;hb\n\
         let rec a = po | b;rf and b = a | co\n\
         let rec s = W | range(s2) and s2 = [s];po\n\
         acyclic hb | fr as one\nirreflexive a;fr as two\nempty s \\ (W | R | F) as three\n\
         let rec bad = po \\ (bad;bad)\nflag ~empty bad as f\n",
    ),
    (
        "procs",
        "\"procs\"\ninclude \"cos.cat\"\n\
         procedure acy(r) = acyclic r end\n\
         call acy(po | rf | fr | co) as sc\ncall acy(po-loc | rf | fr | co)\n\
         undefined_unless empty rmw & (fre;coe) as at\nflag ~empty (rf & ext) as rfe\n\
         ~acyclic po | po^-1 as never-fails\nempty 0 as zero\nflag acyclic _ as unv\n",
    ),
    ("asserts", "\"asserts\"\ninclude \"cos.cat\"\nacyclic po | rf | fr | co as sc\nassert empty rmw & (fre;coe)\n"),
    ("static-error", "\"e\"\ninclude \"cos.cat\"\nacyclic po | rf as a\nacyclic nowhere as b\n"),
    (
        "try-and-tags",
        "\"t\"\nenum Mode = 'a || 'b\nlet pick(m) = match m with 'a -> po || 'b -> rf end\n\
         let u = try nowhere with pick('a) | pick('b)\n\
         let v = try (po | W) with 0\ninclude \"cos.cat\"\n\
         acyclic u | fr | co as one\nirreflexive (u ; v)+ as two\n\
         let f = fun r -> r^-1\nempty f(po) & po as three\nacyclic (po; [MFENCE]; po) | rf as four\n\
         let c = ~(W * W) & loc\nirreflexive c ; (co | co*) as five\n",
    ),
    ("never", "\"never\"\nempty _ as nope\n"),
    ("always", "\"always\"\nacyclic 0 as yes\n"),
];

#[test]
fn language_pieces_give_the_evaluators_verdicts() {
    for (i, (name, src)) in PIECES.iter().enumerate() {
        let m = Model::from_sources(Path::new(&format!("{name}.cat")), src, &stock::source)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        compare_model(name, &m, &Options::default(), 300, 500 + i as u64);
    }
}

/// An explorer may prepare on one thread and check on another.
#[test]
fn prepared_models_are_send() {
    fn send<T: Send>(_: &T) {}
    let p = stock::load("x86tso").unwrap().prepare(&Options::default()).unwrap();
    send(&p);
}

/// Many writes to one location: the evaluator would enumerate 10! orders
/// (it refuses past 100000); the prepared model binds the given `co` and
/// answers at once, guard included.
#[test]
fn many_writes_per_location_are_answered_without_enumerating() {
    let write = |thread, instr| common::Event {
        kind: common::Kind::Write,
        thread: Some(thread),
        loc: Some(0),
        locked: false,
        tag: "",
        instr,
    };
    let mut g = Graph::initial(1);
    for k in 0..12 {
        g.events.push(write(k % 3, 1 + k));
        g.co[0].push(1 + k);
    }
    let x = g.to_execution(Style::EXPLORER);
    for name in ["x86tso", "sc-rmw", "x86pso"] {
        let mut p = stock::load(name).unwrap().prepare(&Options::default()).unwrap();
        let t = std::time::Instant::now();
        assert!(p.allowed(&x).unwrap(), "{name}");
        assert!(t.elapsed().as_millis() < 100, "{name}: {:?}", t.elapsed());
        // The same writes, co against one thread's program order.
        let mut bad = g.clone();
        bad.co[0].swap(1, 4);
        assert!(!p.allowed(&bad.to_execution(Style::EXPLORER)).unwrap(), "{name}");
        // Not a total order: not one of the candidates.
        let mut y = x.clone();
        let co = y.rels.get_mut("co").unwrap();
        co.0[3] &= !(1 << 7);
        co.0[7] |= 1 << 3;
        assert!(p.allowed(&y).unwrap_err().to_string().contains("not one of the model's candidates"), "{name}");
    }
}

/// `co_base` is what the co guard asks of a co: a co (each location's
/// writes in an order, the initial write first) is one of the model's
/// candidates exactly when it extends the base within each location.
#[test]
fn the_co_base_is_what_the_co_guard_asks() {
    let cos_opt = Options { variants: ["cos-opt".to_string()].into() };
    for (name, opts) in [("sc-rmw", Options::default()), ("x86tso", Options::default()), ("sc", cos_opt)] {
        let mut p = stock::load(name).unwrap().prepare(&opts).unwrap();
        let mut rng = Rng::new(91);
        let (mut kept, mut dropped) = (0, 0);
        for case in 0..300 {
            let (threads, locs) = (1 + rng.below(3), 1 + rng.below(2));
            let mut g = Graph::random(&mut rng, threads, 4, locs, false);
            // Half the time, a location's writes in another order.
            if rng.chance(50) {
                for ws in g.co.iter_mut().filter(|ws| ws.len() > 1) {
                    let k = rng.below(ws.len() - 1);
                    ws.swap(k, k + 1);
                }
            }
            let x = g.to_execution(Style::EXPLORER);
            let base = p.co_base(&x).unwrap_or_else(|| panic!("{name}: a base"));
            let (co, loc) = (&x.rels["co"], &x.rels["loc"]);
            let w = x.sets["W"];
            let extends =
                (0..x.n).filter(|&j| w >> j & 1 == 1).all(|j| base.0[j] & loc.0[j] & w & !(1 << j) & !co.0[j] == 0);
            match p.allowed(&x) {
                Err(e) if e.to_string().contains("not one of the model's candidates") => {
                    assert!(!extends, "{name}, case {case}: guard refused an extension of the base");
                    dropped += 1;
                }
                _ => {
                    assert!(extends, "{name}, case {case}: guard took a co that breaks the base");
                    kept += 1;
                }
            }
        }
        eprintln!("{name}: {kept} co's extend the base, {dropped} do not");
        assert!(kept > 0, "{name}");
    }
}
