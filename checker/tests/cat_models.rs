//! Models given as data against the built-in models (issue 45): a program
//! checked under herd's own `x86tso.cat` (`x86tso-mixed.cat` for X86_64
//! corpus files) has TSO's final states, observation and robustness; under
//! the corpus's `sc-rmw.cat`, SC's; under `x86pso.cat`, PSO's.
//!
//! - the 88 herd x86 corpus tests: herd7's own verdicts too (`verdicts.tsv`);
//! - the native examples that fit the evaluator (at most 64 events per
//!   graph; the others are counted, and must say why they are unknown);
//! - generated native programs (`LITMUS_CAT_PROGRAMS`, default 1,000 per
//!   set: SC, TSO, and as many PSO-comparable ones). PSO is compared on
//!   programs without atomics and without `fence ww`: the built-in PSO
//!   drains every per-cell buffer at an atomic's own cell only, and at
//!   `fence ww` drains them all, where herd's x86 vocabulary has a locked
//!   instruction drain every buffer and SFENCE order stores only.
//!
//! Robustness is compared as an answer (robust or not, and proved) and as
//! the set of violations, each named by its statement pair.

mod common;

use litmus_checker::certainty::Answer;
use litmus_checker::check::check;
use litmus_checker::machine::Model;
use litmus_checker::monitor::MonitorKind;
use litmus_checker::options::Options;
use litmus_checker::outcome::ModelOutcome;
use litmus_checker::robust::robustness_of;
use litmus_checker::violation::Robustness;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, TestRng, TestRunner};
use std::collections::BTreeSet;

use common::{cat, root, verify_maximal};

/// What is compared of an outcome: states (values, condition), failures,
/// deadlocks, condition errors and the observation.
fn summary(o: &ModelOutcome) -> String {
    let states: BTreeSet<(Vec<i64>, Option<bool>)> = o.states.iter().map(|s| (s.values.clone(), s.satisfies)).collect();
    let failures: BTreeSet<String> = o.failures.iter().map(|f| format!("{}:{:?}", f.stmt, f.kind)).collect();
    format!(
        "states {states:?} failures {failures:?} deadlocks {} errors {} observation {:?} complete {}",
        o.deadlocks.len(),
        o.condition_errors.len(),
        o.known_observation(),
        o.complete()
    )
}

fn robust_summary(r: &Robustness) -> String {
    let keys: BTreeSet<(u32, u32)> = r.violations.iter().map(|v| v.key()).collect();
    let answer = match r.robust() {
        Answer::Proved(b) => format!("{b} proved"),
        Answer::WithinBounds(b, _) => format!("{b} within bounds"),
        Answer::Unknown(w) => format!("unknown ({})", w.describe()),
    };
    format!("{answer}, violations {keys:?}, unconfirmed {:?}", r.unconfirmed)
}

/// Every witness of a model given as data replays under it: each final
/// state's and failure's, and each violation's, whose hb cycle is checked
/// edge by edge on its trace.
fn replay(name: &str, o: &ModelOutcome, r: Option<&Robustness>) -> Result<(), String> {
    use litmus_checker::graph::axioms::allows;
    use litmus_checker::machine::EventKind;
    use litmus_checker::trace::{Edge, Trace};
    let Model::Cat(id) = o.model else { return Ok(()) };
    let sc = |ev: &[litmus_checker::machine::Event]| !ev.iter().any(|e| e.kind == EventKind::Commit);
    let witnesses = o.states.iter().map(|s| &s.witness.events).chain(o.failures.iter().map(|f| &f.witness.events));
    for (k, w) in witnesses.enumerate() {
        if allows(id, w, sc(w)) != Ok(true) {
            return Err(format!("{name} {}: witness {k} not allowed by the model", o.model.as_str()));
        }
    }
    for v in r.map_or(&[][..], |r| &r.violations[..]) {
        let ev = &v.witness.events;
        if allows(id, ev, sc(ev)) != Ok(true) {
            return Err(format!("{name}: violation {:?}'s witness not allowed by the model", v.key()));
        }
        let trace = Trace::of(ev);
        let pos = |i: u32| trace.events.iter().position(|&x| x == i);
        let c = &v.witness.cycle;
        for (k, &(a, edge)) in c.iter().enumerate() {
            let b = c[(k + 1) % c.len()].0;
            let ok = match (pos(a), pos(b)) {
                (Some(pa), Some(pb)) => match edge {
                    Edge::Po => ev[a as usize].thread == ev[b as usize].thread && pa < pb,
                    _ => trace.succ[pa].contains(&(pb as u32, edge)),
                },
                _ => false,
            };
            if !ok {
                return Err(format!(
                    "{name}: violation {:?}: edge {a} -{}-> {b} not in its trace",
                    v.key(),
                    edge.as_str()
                ));
            }
        }
        if c.is_empty() {
            return Err(format!("{name}: violation {:?} without a cycle", v.key()));
        }
    }
    Ok(())
}

/// Compare `builtin` and `given` on `prog`; a difference is a line.
fn compare(name: &str, prog: &litmus_ir::Program, builtin: Model, given: Model, opts: &Options) -> Result<(), String> {
    let a = &check(prog, &[builtin], opts)[0];
    let b = &check(prog, &[given], opts)[0];
    replay(name, b, None)?;
    let (sa, sb) = (summary(a), summary(b));
    if sa != sb {
        return Err(format!("{name} {} vs {}:\n  built-in {sa}\n  cat      {sb}", builtin.as_str(), given.as_str()));
    }
    if builtin.buffered() {
        let ra = robust_summary(&robustness_of(prog, builtin, MonitorKind::Bss, opts));
        let rob = robustness_of(prog, given, MonitorKind::Bss, opts);
        replay(name, b, Some(&rob))?;
        let rb = robust_summary(&rob);
        if ra != rb {
            return Err(format!(
                "{name} robustness {} vs {}:\n  built-in {ra}\n  cat      {rb}",
                builtin.as_str(),
                given.as_str()
            ));
        }
    }
    Ok(())
}

#[test]
fn corpus_cat_models_agree_with_builtin_and_herd() {
    verify_maximal();
    let dir = root().join("tests/corpus/herd-x86");
    let tsv = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let (sc, tso, mixed, pso) = (cat("sc-rmw.cat"), cat("x86tso.cat"), cat("x86tso-mixed.cat"), cat("x86pso.cat"));
    assert_eq!(tso.as_str(), "x86tso", "a model from a file is named by its stem");
    let opts = Options::default();
    let mut bad = Vec::new();
    let mut rows = 0;
    for line in tsv.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let src = std::fs::read_to_string(dir.join(c[0])).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap_or_else(|| panic!("{} does not lower", c[0]));
        let tso_cat = if c[2] == "X86_64" { mixed } else { tso };
        for (builtin, given, obs_col, states_col) in
            [(Model::Sc, sc, 4, 5), (Model::Tso, tso_cat, 6, 7), (Model::Pso, pso, 8, 9)]
        {
            if let Err(e) = compare(c[0], &prog, builtin, given, &opts) {
                bad.push(e);
            }
            let out = &check(&prog, &[given], &opts)[0];
            bad.extend(common::herd_difference(&c, given, out, obs_col, states_col));
        }
        rows += 1;
    }
    assert_eq!(rows, 88);
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn examples_cat_models_agree_with_builtin() {
    verify_maximal();
    let (sc, tso, pso) = (cat("sc-rmw.cat"), cat("x86tso.cat"), cat("x86pso.cat"));
    let opts = Options::default();
    let (mut bad, mut compared, mut too_big) = (Vec::new(), 0, Vec::new());
    for (name, src) in common::corpus_and_example_sources().into_iter().filter(|(n, _)| !n.contains("__")) {
        let prog = common::compile(&src);
        for (builtin, given) in [(Model::Sc, sc), (Model::Tso, tso), (Model::Pso, pso)] {
            if builtin == Model::Pso && !pso_comparable(&prog) {
                continue;
            }
            // herd's x86 models read C's `A` (an atomic access) as x86's
            // locked one; the machines read no order on an access.
            if builtin != Model::Sc && prog.is_c11() {
                continue;
            }
            let o = &check(&prog, &[given], &opts)[0];
            if let litmus_checker::certainty::Coverage::Stopped(w) = o.coverage {
                // Too big for the evaluator: unknown, and saying why.
                assert!(w.as_str() == "too-many-events", "{name} {}: stopped: {}", given.as_str(), w.describe());
                too_big.push(format!("{name} {}", given.as_str()));
                continue;
            }
            compared += 1;
            if let Err(e) = compare(&name, &prog, builtin, given, &opts) {
                bad.push(e);
            }
        }
    }
    eprintln!("examples: {compared} comparisons; too big for the evaluator: {}", too_big.join(", "));
    assert!(compared >= 30, "only {compared} comparisons");
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

/// Does the built-in PSO mean what `x86pso.cat` means on this program? Not
/// with a native atomic (it drains only its own cell's buffer) or a
/// `fence ww` (it drains every buffer): see the module doc.
fn pso_comparable(prog: &litmus_ir::Program) -> bool {
    use litmus_ir::Instr;
    prog.threads.iter().flat_map(|t| &t.code).all(|i| match i {
        Instr::Rmw { labels, .. } => labels.contains(litmus_ir::Labels::X),
        Instr::Fence { kind, .. } => *kind != litmus_ir::FenceKind::WW,
        _ => true,
    })
}

/// `n` generated programs from a fixed seed, as sources.
fn generated(n: usize, atomics: bool, seed: u8) -> Vec<String> {
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &[seed; 32]),
    );
    let strat = common::program(2..4, 1..5, atomics);
    (0..n).map(|_| common::render(&strat.new_tree(&mut runner).unwrap().current())).collect()
}

fn count() -> usize {
    std::env::var("LITMUS_CAT_PROGRAMS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

#[test]
fn generated_programs_cat_models_agree_with_builtin() {
    verify_maximal();
    let (sc, tso, pso) = (cat("sc-rmw.cat"), cat("x86tso.cat"), cat("x86pso.cat"));
    let opts = Options::default();
    let n = count();
    let mut bad = Vec::new();
    let mut compared = 0;
    for (i, src) in generated(n, true, 45).iter().enumerate() {
        let prog = common::compile(src);
        for (builtin, given) in [(Model::Sc, sc), (Model::Tso, tso)] {
            compared += 1;
            if let Err(e) = compare(&format!("program {i}"), &prog, builtin, given, &opts) {
                bad.push(format!("{e}\n{src}"));
            }
        }
    }
    // As many PSO-comparable programs as the other sets have.
    let pso_programs = generated(3 * n, false, 46).into_iter().filter(|s| pso_comparable(&common::compile(s))).take(n);
    let mut pso_compared = 0;
    for (i, src) in pso_programs.enumerate() {
        let prog = common::compile(&src);
        compared += 1;
        pso_compared += 1;
        if let Err(e) = compare(&format!("program {i} (PSO)"), &prog, Model::Pso, pso, &opts) {
            bad.push(format!("{e}\n{src}"));
        }
    }
    eprintln!("{n} programs per set, {compared} comparisons, {} differences", bad.len());
    assert_eq!(pso_compared, n, "too few PSO-comparable programs drawn");
    let verified = litmus_checker::graph::explore::MAXIMAL_VERIFIED.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("{verified} maximal extensions taken unasked, each checked");
    assert!(verified >= 1000, "the maximal extensions were hardly taken unasked: {verified}");
    assert!(
        bad.is_empty(),
        "{} differences:\n{}",
        bad.len(),
        bad.iter().take(5).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// A deliberately changed model changes exactly what it should: herd's
/// `x86tso.cat` without its `mfence` clause in `ghb` is x86-TSO where
/// MFENCE orders nothing. So on every corpus test it must answer as the
/// built-in TSO answers the same program with each MFENCE (a full fence,
/// or `fence wr`) turned into a fence TSO ignores (`fence rr`); the tests
/// without MFENCE keep their answers, those with one whose outcome needs
/// it change.
#[test]
fn a_model_without_mfence_answers_as_tso_without_fences() {
    verify_maximal();
    use litmus_ir::FenceKind;
    use litmus_ir::Instr;
    let herd = root().join("tests/corpus/models/herd");
    let text = std::fs::read_to_string(herd.join("x86tso.cat")).unwrap();
    let changed = text.replace("let ghb = mfence | implied", "let ghb = implied");
    assert_ne!(changed, text, "the clause is there to remove");
    let dir = std::env::temp_dir().join(format!("litmus-cat-models-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("x86tso-nomfence.cat");
    std::fs::write(&path, changed).unwrap();
    let nomfence = Model::parse_in(path.to_str().unwrap(), &[herd]).unwrap();
    let tso = cat("x86tso.cat");
    let corpus = root().join("tests/corpus/herd-x86");
    let opts = Options::default();
    let (mut bad, mut changed_verdicts, mut with_mfence) = (Vec::new(), Vec::new(), 0);
    for (name, src) in common::corpus_and_example_sources().into_iter().filter(|(n, _)| n.contains("__")) {
        assert!(corpus.join(&name).exists());
        let prog = common::compile(&src);
        let mut weakened = prog.clone();
        let mut fences = 0;
        for t in &mut weakened.threads {
            for i in &mut t.code {
                if let Instr::Fence { kind, .. } = i {
                    if matches!(kind, FenceKind::Full | FenceKind::WR) {
                        *kind = FenceKind::RR;
                        fences += 1;
                    }
                }
            }
        }
        with_mfence += usize::from(fences > 0);
        let expected = summary(&check(&weakened, &[Model::Tso], &opts)[0]);
        let got = summary(&check(&prog, &[nomfence], &opts)[0]);
        if got != expected {
            bad.push(format!("{name}:\n  expected {expected}\n  got      {got}"));
        }
        let before = check(&prog, &[tso], &opts)[0].known_observation();
        let after = check(&prog, &[nomfence], &opts)[0].known_observation();
        if before != after {
            assert!(fences > 0, "{name}: the verdict changed without an MFENCE");
            changed_verdicts.push(name);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{with_mfence} tests with MFENCE; verdicts changed: {}", changed_verdicts.join(", "));
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
    assert!(!changed_verdicts.is_empty(), "removing mfence changed no verdict");
}

/// The evaluator checks itself against the machines on every graph the
/// explorer visits (a test-mode oracle): each complete graph the built-in
/// SC, TSO and PSO searches reach is allowed by `sc-rmw.cat`, `x86tso.cat`
/// and `x86pso.cat`, and the cat models' own searches reach exactly as
/// many graphs (so no other either), on the corpus, the examples and
/// generated programs.
#[test]
fn every_graph_of_the_machines_is_allowed_by_their_cat_files() {
    verify_maximal();
    use litmus_checker::dpor::Control;
    use litmus_checker::graph::axioms::Judge;
    use litmus_checker::graph::explore::Search;
    use litmus_checker::machine::Machine;
    let (sc, tso, pso) = (cat("sc-rmw.cat"), cat("x86tso.cat"), cat("x86pso.cat"));
    let opts = Options::default();
    let mut programs: Vec<(String, litmus_ir::Program)> =
        common::corpus_and_example_sources().into_iter().map(|(n, s)| (n, common::compile(&s))).collect();
    programs
        .extend(generated(count(), true, 47).iter().enumerate().map(|(i, s)| (format!("gen {i}"), common::compile(s))));
    let (mut graphs, mut bad) = (0u64, Vec::new());
    for (name, prog) in &programs {
        let m = Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound);
        for (builtin, given) in [(Model::Sc, sc), (Model::Tso, tso), (Model::Pso, pso)] {
            if builtin == Model::Pso && !pso_comparable(prog) {
                continue;
            }
            let Model::Cat(id) = given else { unreachable!() };
            let mut judge = Judge::new(id);
            let (mut n, mut rejected) = (0u64, 0u64);
            let mut search = Search::new(&m, builtin, &opts, |g, _, _, _| {
                n += 1;
                rejected += u64::from(judge.consistent(g, true) != Ok(true));
                Control::Continue
            });
            search.run();
            let mut own = 0u64;
            let mut search = Search::new(&m, given, &opts, |_, _, _, _| {
                own += 1;
                Control::Continue
            });
            search.run();
            graphs += n;
            if rejected > 0 || own != n {
                bad.push(format!(
                    "{name} {}: {n} graphs, {rejected} rejected by {}, {own} of its own",
                    builtin.as_str(),
                    given.as_str()
                ));
            }
        }
    }
    eprintln!("{} programs, {graphs} graphs judged", programs.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
