//! The unbounded procedure (stateful SC search with Trencher's attacks,
//! `checker/src/unbounded`) against the bounded engine and against explicit
//! TSO/PSO exploration: whatever the bounded search finds is found (final
//! states, failures, deadlocks, values read, violations), what it proves
//! complete is equal, nothing proved robust has a bounded violation, and
//! every attack's witness replays on the model's machine to a trace with a
//! happens-before cycle — on every example, corpus test, Trencher
//! translation and 1,300 generated programs with loops, awaits and locks.
//! Explicit exploration is the ground truth (a cyclic trace iff an attack
//! succeeds); the relaxed models' own stateful outcomes contain the bounded
//! exploration's (equal where both are complete); a growing ticket lock, a
//! state cap and a deadline prove nothing.

mod common;

use litmus_checker::dpor::{Control, Explorer, Limits as DporLimits};
use litmus_checker::machine::{Machine, Model};
use litmus_checker::options::Options;
use litmus_checker::options::StateLimits as Limits;
use litmus_checker::unbounded::{self, Stop};
use litmus_checker::{trace, Answer, Coverage, Iterations, MonitorKind};
use litmus_ir::Program;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;

const MODELS: [Model; 3] = [Model::Sc, Model::Tso, Model::Pso];

fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut v = Vec::new();
    for dir in
        ["examples", "examples/relaxer", "examples/trencher", "examples/trencher/memorax", "tests/corpus/herd-x86"]
    {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<_> = rd.map(|e| e.unwrap().path()).collect();
        paths.sort();
        for p in paths.into_iter().filter(|p| p.extension().is_some_and(|x| x == "litmus")) {
            v.push((
                format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    v
}

/// Does some execution of `model` (loops cut at `loop_bound`) have a cyclic trace?
fn explicitly_cyclic(p: &Program, model: Model, loop_bound: u32) -> (bool, bool) {
    let m = Machine::new(p, model, loop_bound, 8);
    let mut ex = Explorer::new(&m);
    let mut found = false;
    ex.run(DporLimits::default(), |e| {
        if trace::has_cycle(e.events) {
            found = true;
            return Control::Stop;
        }
        Control::Continue
    });
    (found, found || Coverage::of_stats(&ex.stats) == Coverage::Complete)
}

/// The unbounded answers agree with the bounded engine's (and with explicit
/// exploration when `explicit`); `Err` says how they do not.
fn agree(p: &Program, name: &str, explicit: bool, infinite: bool) -> Result<(), String> {
    // The bounded engine, within a few seconds (an infinite loop unrolled
    // three times can take long): where it stops, only what it found counts.
    let opts = Options { loop_bound: 3, ..Options::default() }.with_timeout(Some(std::time::Duration::from_secs(1)));
    let proved = match unbounded::prove(p, &MODELS, &Options::default(), &Limits::default()) {
        Ok(proved) => proved,
        // An infinite state space (a counter in a loop): nothing claimed.
        Err(Stop::Growth { .. } | Stop::States(_)) if infinite => return Ok(()),
        Err(s) => return Err(format!("{name}: not proved: {}", s.describe())),
    };
    let bounded = litmus_checker::check_robustness(p, &MODELS, MonitorKind::Bss, &opts);
    let (u, b) = (&proved.sc, &bounded.outcomes[0]);
    if !u.iterations.every() || u.coverage != Coverage::Complete {
        return Err(format!("{name}: the unbounded SC outcome is not proved"));
    }
    let complete = b.coverage == Coverage::Complete;
    // Final states: what the bounded search saw, the unbounded one saw.
    let states = |o: &litmus_checker::ModelOutcome| -> BTreeSet<(Vec<i64>, Option<bool>)> {
        o.states.iter().map(|s| (s.values.clone(), s.satisfies)).collect()
    };
    let (us, bs) = (states(u), states(b));
    if !bs.is_subset(&us) || (complete && us != bs) {
        return Err(format!("{name}: SC final states {us:?} vs bounded {bs:?} (complete: {complete})"));
    }
    let fails = |o: &litmus_checker::ModelOutcome| -> BTreeSet<(u32, String)> {
        o.failures.iter().map(|f| (f.stmt, f.kind.as_str().to_string())).collect()
    };
    let (uf, bf) = (fails(u), fails(b));
    if !bf.is_subset(&uf) || (complete && uf != bf) {
        return Err(format!("{name}: SC failures {uf:?} vs bounded {bf:?}"));
    }
    if (!b.deadlocks.is_empty() && u.deadlocks.is_empty())
        || (complete && b.deadlocks.is_empty() != u.deadlocks.is_empty())
    {
        return Err(format!("{name}: deadlocks {} vs bounded {}", u.deadlocks.len(), b.deadlocks.len()));
    }
    // Failure witnesses are SC executions that fail there.
    let msc = Machine::new(p, Model::Sc, u32::MAX, u32::MAX).with_unbounded_loops();
    for f in &u.failures {
        let (st, _) = litmus_checker::reference::replay(&msc, &f.witness.schedule);
        if !matches!(st.threads[f.thread as usize], litmus_checker::machine::ThreadStatus::Failed { stmt, .. } if stmt == f.stmt)
        {
            return Err(format!("{name}: SC failure witness of {} does not fail", f.stmt));
        }
    }
    // Values read: equal where the bounded search is complete. (A cut
    // execution counts its loads even where every way on from them would
    // be pruned — a failed `await` attempt whose thread then waits for a
    // write that comes — so a bounded set may hold more there.)
    if complete && u.reads != b.reads {
        return Err(format!("{name}: reads {:?} vs bounded {:?}", u.reads, b.reads));
    }
    // The condition's answer, when the bounded one is earned.
    if complete && u.observation != b.observation {
        return Err(format!("{name}: observation {:?} vs bounded {:?}", u.observation, b.observation));
    }
    // The relaxed models' own states, for every iteration (buffers of 16,
    // as the bounded engine's): what the bounded exploration finds is found.
    // (The big ones — RELAXER's benchmarks, the translations that loop for
    // ever — are left out: the bounded exploration is what takes long.)
    let small = !name.contains("relaxer") && !name.contains("trencher");
    for model in [Model::Tso, Model::Pso].into_iter().filter(|_| small) {
        let limits = Limits { max_states: 200_000, ..Limits::default() };
        let Ok(u) = unbounded::relaxed(p, model, 16, &Options::default(), &limits) else { continue };
        // The outcome exploration (failing attempts wait); the values read
        // are compared with the run of every attempt, as the stateful search
        // runs them (one that leaves them waiting reads fewer: see `reads`).
        let b = litmus_checker::explore::explore(p, model, &opts);
        let every = &mut litmus_checker::dpor::NoListener;
        let be = litmus_checker::explore::explore_listened(p, model, &opts, every, |_| {});
        let (us, bs) = (states(&u), states(&b));
        let complete = b.coverage == Coverage::Complete && u.coverage == Coverage::Complete;
        if (u.coverage == Coverage::Complete && !bs.is_subset(&us)) || (complete && us != bs) {
            return Err(format!("{name}: {model:?} final states {us:?} vs bounded {bs:?}"));
        }
        let (uf, bf) = (fails(&u), fails(&b));
        if (u.coverage == Coverage::Complete && !bf.is_subset(&uf)) || (complete && uf != bf) {
            return Err(format!("{name}: {model:?} failures {uf:?} vs bounded {bf:?}"));
        }
        if complete && u.deadlocks.is_empty() != b.deadlocks.is_empty() {
            return Err(format!("{name}: {model:?} deadlocks {} vs bounded {}", u.deadlocks.len(), b.deadlocks.len()));
        }
        if complete && u.observation != b.observation {
            return Err(format!("{name}: {model:?} observation {:?} vs bounded {:?}", u.observation, b.observation));
        }
        // Values read too: the key drops cells nobody reads any more, and
        // the reduction takes commits alone; neither may lose a value.
        if complete && be.coverage == Coverage::Complete && u.reads != be.reads {
            return Err(format!("{name}: {model:?} reads {:?} vs bounded {:?}", u.reads, be.reads));
        }
        // Its witnesses are the model's executions, ending as claimed.
        let m = Machine::new(p, model, u32::MAX, 16).with_unbounded_loops();
        for f in &u.failures {
            let (st, _) = litmus_checker::reference::replay(&m, &f.witness.schedule);
            if !matches!(st.threads[f.thread as usize], litmus_checker::machine::ThreadStatus::Failed { .. }) {
                return Err(format!("{name}: {model:?} failure witness of {} does not fail", f.stmt));
            }
        }
    }
    for model in [Model::Tso, Model::Pso] {
        let ur = proved.robustness.iter().find(|r| r.model == model).unwrap();
        let br = bounded.robustness.iter().find(|r| r.model == model).unwrap();
        if !ur.unconfirmed.is_empty() {
            return Err(format!("{name}: {model:?} attacks without a replayable witness: {:?}", ur.unconfirmed));
        }
        let keys: BTreeSet<(u32, u32)> = ur.violations.iter().map(|v| v.key()).collect();
        for v in &br.violations {
            if !keys.contains(&v.key()) {
                return Err(format!(
                    "{name}: {model:?} bounded violation {:?} not found by attacks ({keys:?})",
                    v.key()
                ));
            }
        }
        if br.robust() == Answer::Proved(true) && !ur.violations.is_empty() {
            return Err(format!("{name}: {model:?} robust (proved, bounded) but attacks found {keys:?}"));
        }
        if explicit {
            let (cyclic, decided) = explicitly_cyclic(p, model, 3);
            if cyclic && ur.violations.is_empty() {
                return Err(format!("{name}: {model:?} an execution has a cyclic trace, attacks found none"));
            }
            if decided && !cyclic && !ur.violations.is_empty() {
                return Err(format!("{name}: {model:?} no execution is cyclic (complete), attacks found {keys:?}"));
            }
        }
        // Every violation is a real execution of the model with a cycle.
        let m = Machine::new(p, model, u32::MAX, u32::MAX).with_unbounded_loops();
        for v in &ur.violations {
            let (_, events) = litmus_checker::reference::replay(&m, &v.witness.schedule);
            if events != v.witness.events {
                return Err(format!("{name}: {model:?} witness of {:?} does not replay", v.key()));
            }
            if trace::Trace::of(&events).cycle().is_none() {
                return Err(format!("{name}: {model:?} witness of {:?} has no cycle", v.key()));
            }
            let first = v.cycle.first().map(|c| c.stmt);
            if first != Some(v.store_stmt) || v.cycle.len() < 2 {
                return Err(format!("{name}: {model:?} cycle of {:?} does not start at its delayed store", v.key()));
            }
        }
    }
    Ok(())
}

#[test]
fn agrees_with_the_bounded_engine_on_examples_corpus_and_trencher() {
    let mut errors = Vec::new();
    let mut n = 0;
    for (name, src) in sources() {
        let Some(p) = litmus_dsl::analyze(&src).program else { continue };
        n += 1;
        // Growing tickets say so in their header: the search must notice.
        if let Err(e) = agree(&p, &name, false, src.contains("without bound")) {
            errors.push(e);
        }
    }
    assert!(n > 120, "only {n} programs");
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn explicit_exploration_agrees_on_the_small_ones() {
    // Ground truth independent of the monitors: some TSO/PSO execution has a
    // cyclic trace iff an attack succeeds (where exploration finishes).
    let mut errors = Vec::new();
    for (name, src) in sources().into_iter().filter(|(n, _)| n.contains("corpus") || n.starts_with("examples/")) {
        let Some(p) = litmus_dsl::analyze(&src).program else { continue };
        if name.contains("relaxer") || name.contains("trencher") {
            continue;
        }
        if let Err(e) = agree(&p, &name, true, false) {
            errors.push(e);
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn agrees_on_generated_programs_with_loops(threads in common::looping_program(2..4, 1..4)) {
        let src = common::render(&threads);
        let p = common::compile(&src);
        if let Err(e) = agree(&p, "generated", true, true) {
            prop_assert!(false, "{e}\n{src}");
        }
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn agrees_on_generated_blocking_programs(threads in common::blocking_program(2..4, 1..4)) {
        let src = common::render(&threads);
        let p = common::compile(&src);
        if let Err(e) = agree(&p, "generated", true, true) {
            prop_assert!(false, "{e}\n{src}");
        }
    }
}

#[test]
fn a_cell_read_again_by_a_stuck_await_stays_in_the_key() {
    // P0 reads x = 1, then y = 0, and is stuck at its await's start; in
    // between nobody was left to read x. The deadlock check re-reads both:
    // once P2 has written y, the await would pass, so no run deadlocks. A
    // key that dropped x's value (as dead) made that a false deadlock.
    let src = "litmus AwaitTwo\nshared x = 0, y = 0;\n\
        thread P0 { await (x == 1 && y == 1); }\n\
        thread P1 { x = 1; }\n\
        thread P2 { y = 1; }\n";
    let p = common::compile(src);
    agree(&p, "await-two", true, false).unwrap();
    let proved = unbounded::prove(&p, &[Model::Tso, Model::Pso], &Options::default(), &Limits::default()).unwrap();
    assert!(proved.sc.deadlocks.is_empty(), "{:?}", proved.sc.deadlocks);
    for model in [Model::Tso, Model::Pso] {
        let o = unbounded::relaxed(&p, model, 16, &Options::default(), &Limits::default()).unwrap();
        assert!(o.deadlocks.is_empty(), "{model:?}: {:?}", o.deadlocks);
    }
}

/// A ticket lock whose tickets grow for ever: the search notices and
/// stops, naming the variable, in bounded time — never loops, never proves.
const TICKETS: &str = "litmus Tickets
shared next = 0, serving = 0, in_cs = 0;
fn acquire() {
  let t = fetch_add(next, 1);
  await (serving == t);
}
fn release() {
  let s = serving;
  serving = s + 1;
}
thread P0 {
  while (true) {
    acquire();
    let c = fetch_add(in_cs, 1);
    assert (c == 0);
    fetch_add(in_cs, -1);
    release();
  }
}
thread P1 {
  while (true) {
    acquire();
    let c = fetch_add(in_cs, 1);
    assert (c == 0);
    fetch_add(in_cs, -1);
    release();
  }
}
";

#[test]
fn a_growing_ticket_is_noticed_in_bounded_time() {
    let p = common::compile(TICKETS);
    let t = std::time::Instant::now();
    let r = unbounded::prove(&p, &MODELS, &Options::default(), &Limits::default());
    let took = t.elapsed();
    match r {
        Err(Stop::Growth { var, value, .. }) => {
            assert!(var == "next" || var == "serving" || var.contains(":t") || var.contains(":s"), "{var}");
            assert!(value > 32, "{value}");
        }
        other => panic!("expected growth, got {:?}", other.map(|p| p.states)),
    }
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    // Through the whole check: the bounded engine answers, and says why.
    let opts = Options::default().with_unbounded().with_timeout(Some(std::time::Duration::from_secs(20)));
    let r = litmus_checker::check_all(&p, &MODELS, MonitorKind::Bss, &opts);
    let sc = &r.outcomes[0];
    assert!(
        matches!(&sc.iterations, Iterations::Fallback(w) if w.contains("grows without bound")),
        "{:?}",
        sc.iterations
    );
    assert_ne!(sc.coverage, Coverage::Complete, "a cut-short SC search claims nothing proved");
    for rb in &r.robustness {
        assert!(matches!(&rb.iterations, Iterations::Fallback(_)), "{:?}", rb.iterations);
        assert_ne!(rb.robust(), Answer::Proved(true), "{:?}", rb.model);
    }
}

#[test]
fn a_state_cap_and_a_deadline_stop_the_search_and_prove_nothing() {
    let p = common::compile(TICKETS);
    let tiny = Limits { max_states: 100, ..Limits::default() };
    assert!(matches!(unbounded::prove(&p, &MODELS, &Options::default(), &tiny), Err(Stop::States(100))));
    let late = Options::default().with_timeout(Some(std::time::Duration::ZERO));
    assert!(matches!(
        unbounded::prove(&p, &MODELS, &late, &Limits::default()),
        Err(Stop::Stopped(litmus_checker::Why::Timeout))
    ));
}

/// A loop-free program with many threads has far more states than
/// executions (SB with 12 threads: millions of states, 4,096 executions).
/// Without loops the bounded engine's answer is proved too, so the stateful
/// search stops at its cap for loop-free programs and hands over, with no
/// "not proved for every iteration" note: before, SB-12 spent 60 % of its
/// timeout there (6 s of 10, 36 s of 300) before the bounded engine's 0.1 s.
#[test]
fn a_loop_free_program_with_many_states_goes_to_the_bounded_engine_at_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(root.join("benches/harnesses/sb12.litmus")).unwrap();
    let prog = litmus_dsl::analyze(&src).program.unwrap();
    let opts = Options::default().with_unbounded().with_timeout(Some(std::time::Duration::from_secs(60)));
    let t = std::time::Instant::now();
    let r = litmus_checker::find_violations(&prog, &[Model::Sc, Model::Tso], MonitorKind::Bss, &opts);
    assert!(t.elapsed() < std::time::Duration::from_secs(20), "{:?}", t.elapsed());
    assert_eq!(r.outcomes[0].coverage, Coverage::Complete);
    assert!(!matches!(r.outcomes[0].iterations, Iterations::Fallback(_)), "{:?}", r.outcomes[0].iterations);
    assert_eq!(r.robustness[0].violations.len(), 12);
    assert!(r.robustness[0].robust().is(&false));
    // The bounded engine answered: its SC exploration, not the states.
    assert!(r.proved_sc.is_none());
    assert_eq!(r.outcomes[0].stats.executions, 4095);
}

/// Which engine answers a loop-free program the stateful search does not
/// settle in its first states: the bounded one where its SC exploration is
/// small (SB-12: 4,095 executions), the stateful one where that is large
/// and the states are few (slow.litmus: 78,409 executions, under 100,000
/// states), as each is the cheaper there.
#[test]
fn a_loop_free_program_goes_to_the_engine_that_is_cheaper_for_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let opts = Options::default().with_unbounded().with_timeout(Some(std::time::Duration::from_secs(60)));
    for (file, stateful) in [("checker/benches/harnesses/sb12.litmus", false), ("tests/programs/slow.litmus", true)] {
        let src = std::fs::read_to_string(root.join(file)).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        assert!(!unbounded::loops(&prog));
        let r = litmus_checker::find_violations(&prog, &[Model::Sc, Model::Tso], MonitorKind::Bss, &opts);
        assert_eq!(r.proved_sc.is_some(), stateful, "{file}");
        assert_eq!(r.outcomes[0].coverage, Coverage::Complete, "{file}");
        assert_eq!(r.robustness[0].robust(), Answer::Proved(false), "{file}");
    }
}

/// With a second core, a loop-free program's SC executions are explored
/// with the monitors beside the stateful search's first try, and when that
/// try fails and they are few, that exploration is the bounded engine's
/// answer. It must be the answer the sequence gives (one core): the same
/// engine, outcomes, violations with their witnesses, and measured fences
/// (the fence step reads them). SB-8 takes that way, slow.litmus the
/// stateful search's bigger try, SB-4 the first try, and SB-12 none (its
/// positions alone overflow both tries: the bounded engine answers at once).
#[test]
fn a_loop_free_answer_explored_beside_the_states_is_the_sequential_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = [
        ("checker/benches/harnesses/sb8.litmus", false),
        ("checker/benches/harnesses/sb12.litmus", false),
        ("checker/benches/harnesses/sb4.litmus", true),
        ("tests/programs/slow.litmus", true),
    ];
    for (file, stateful) in files {
        let src = std::fs::read_to_string(root.join(file)).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        let report = |threads| {
            let opts = Options { threads, ..Options::default() }
                .with_unbounded()
                .with_timeout(Some(std::time::Duration::from_secs(60)));
            let mut r =
                litmus_checker::find_violations(&prog, &[Model::Sc, Model::Tso, Model::Pso], MonitorKind::Bss, &opts);
            litmus_checker::check::judge_and_fence(&mut r, &prog, MonitorKind::Bss, &opts);
            r
        };
        let (one, two) = (report(1), report(2));
        assert_eq!(two.proved_sc.is_some(), stateful, "{file}");
        assert_eq!(one.proved_sc.is_some(), stateful, "{file}");
        assert_eq!(format!("{:?}", one.outcomes[0].states), format!("{:?}", two.outcomes[0].states), "{file}");
        assert_eq!(one.outcomes[0].stats.executions, two.outcomes[0].stats.executions, "{file}");
        assert_eq!(two.outcomes[0].coverage, Coverage::Complete, "{file}");
        assert_eq!(one.premeasured.is_some(), two.premeasured.is_some(), "{file}");
        for (a, b) in one.robustness.iter().zip(&two.robustness) {
            assert_eq!(a.robust(), b.robust(), "{file}");
            assert_eq!(format!("{:?}", a.violations), format!("{:?}", b.violations), "{file} {:?}", a.model);
            assert_eq!(a.fences, b.fences, "{file} {:?}", a.model);
        }
    }
}

/// The estimate that sends a loop-free program straight to the bounded
/// engine: SB-n's threads each make two shared accesses (3^n positions),
/// and it is above half the bigger try's 100,000 states only where that
/// try fails (SB-10: more than 100,000 states; ms2.litmus, 12,672
/// positions, proves in 33,045; slow.litmus, 729, in 72,468 with attacks).
#[test]
fn shared_positions_estimate_which_stateful_tries_can_fit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let estimate = |file: &str| {
        let src = std::fs::read_to_string(root.join(file)).unwrap();
        unbounded::shared_positions(&litmus_dsl::analyze(&src).program.unwrap())
    };
    assert_eq!(estimate("checker/benches/harnesses/sb12.litmus"), 3u64.pow(12));
    assert_eq!(estimate("checker/benches/harnesses/sb10.litmus"), 3u64.pow(10));
    assert_eq!(estimate("checker/benches/harnesses/sb8.litmus"), 3u64.pow(8));
    assert!(estimate("examples/relaxer/ms2.litmus") < 50_000);
    assert!(estimate("tests/programs/slow.litmus") < 50_000);
}

/// What a check found, without timings: outcomes, violations with their
/// witnesses, fences.
fn found(r: &litmus_checker::check::Report) -> String {
    let outcomes: Vec<String> =
        r.outcomes.iter().map(|o| format!("{:?} {:?} {}", o.states, o.coverage, o.stats.executions)).collect();
    let robustness: Vec<String> = r
        .robustness
        .iter()
        .map(|rb| format!("{:?} {:?} {:?} {:?}", rb.model, rb.robust(), rb.violations, rb.fences))
        .collect();
    format!("{outcomes:?}\n{robustness:?}")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A stateful search too small for most of these programs (it checks
    /// its cap every 256 states: the smallest finish first) sends them to
    /// the bounded engine, whose answer the second core explored beside it
    /// (with two threads) or the bounded engine explores after it (one
    /// thread): the same answer with one thread as with two, and the bounded
    /// engine's own (`--bounded`) where the states did not answer.
    #[test]
    fn a_loop_free_answer_explored_beside_the_states_is_the_bounded_engines(
        threads in common::program(3..5, 2..5, true),
    ) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let models = [Model::Sc, Model::Tso, Model::Pso];
        let check = |threads: usize, unbounded: bool| {
            let mut opts = Options { threads, ..Options::default() };
            if unbounded {
                opts.unbounded = Some(Limits { max_states: 2, ..Limits::default() });
            }
            let mut r = litmus_checker::find_violations(&prog, &models, MonitorKind::Bss, &opts);
            litmus_checker::check::judge_and_fence(&mut r, &prog, MonitorKind::Bss, &opts);
            r
        };
        let (beside, alone) = (check(2, true), check(1, true));
        prop_assert_eq!(beside.proved_sc.is_some(), alone.proved_sc.is_some(), "engines differ:\n{}", src);
        prop_assert_eq!(found(&beside), found(&alone), "one thread against two:\n{}", src);
        if beside.proved_sc.is_none() {
            prop_assert_eq!(found(&beside), found(&check(1, false)), "against --bounded:\n{}", src);
        }
    }
}
