//! Outcome explorations leave a thread waiting at an `await` or `lock`
//! attempt that would fail (`Limits::waits_block`) instead of running it
//! into a blocked execution. Against the exploration of every execution,
//! blocked ones included, on generated programs with awaits, locks and
//! loops, every example and every corpus test, under SC, TSO and PSO: the
//! same complete traces, each once; the same deadlocked, failed and cut
//! ends; and, over the examples, far fewer blocked executions.

mod common;

use common::{trace_key, TraceKey};
use litmus_checker::dpor::{Control, ExecKind, Explorer, Limits, Stats};
use litmus_checker::machine::{Machine, Model, ThreadStatus};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// What one run ends with, its ends that are not blocked ones sorted, and
/// its statistics.
struct Ends {
    complete: Vec<TraceKey>,
    /// The final values of the complete ones.
    states: BTreeSet<Vec<i64>>,
    /// Final values of deadlocked executions, where failed ones fail, and
    /// whether one was cut (a cut execution may also end blocked: one
    /// that waits goes on).
    others: BTreeSet<(String, Vec<i64>)>,
    stats: Stats,
}

fn ends(m: &Machine<'_>, waits_block: bool) -> Ends {
    let mut ex = Explorer::new(m);
    let mut complete = Vec::new();
    let mut states = BTreeSet::new();
    let mut others = BTreeSet::new();
    ex.run(Limits { waits_block, ..Limits::default() }, |e| {
        match e.kind {
            ExecKind::Complete => {
                complete.push(trace_key(e.events, m.threads, m.cells, m.model));
                states.insert(m.observe(e.state));
            }
            ExecKind::Pruned => {}
            ExecKind::Deadlock => {
                others.insert(("deadlock".into(), m.observe(e.state)));
            }
            ExecKind::Failed => {
                for (t, s) in e.state.threads.iter().enumerate() {
                    if let ThreadStatus::Failed { stmt, .. } = s {
                        others.insert(("failed".into(), vec![t as i64, *stmt as i64]));
                    }
                }
            }
            ExecKind::Cut => {
                others.insert(("cut".into(), vec![]));
            }
        }
        Control::Continue
    });
    complete.sort();
    Ends { complete, states, others, stats: ex.stats }
}

fn agree(prog: &litmus_ir::Program, model: Model, name: &str) -> Result<Stats, TestCaseError> {
    let two_loads = common::two_loads(prog);
    let m = Machine::new(prog, model, 2, 4);
    let every = ends(&m, false);
    let waiting = ends(&m, true);
    let set = |v: &[TraceKey]| v.iter().cloned().collect::<BTreeSet<_>>();
    prop_assert_eq!(&waiting.states, &every.states, "{} {:?}: final states differ", name, model);
    if two_loads {
        // An attempt that waits reads its loads' cell when one reading
        // passes: the traces whose loads read different values in one
        // passing attempt may go (never an outcome: see `Machine::gated`).
        prop_assert!(set(&waiting.complete).is_subset(&set(&every.complete)), "{} {:?}: a new trace", name, model);
    } else {
        prop_assert_eq!(set(&waiting.complete), set(&every.complete), "{} {:?}: complete traces differ", name, model);
        // Under SC a complete trace is its rf and co: each once in both.
        // Under TSO and PSO some traces differ only in where a commit falls
        // among its own thread's steps: how many of those each run explores
        // may differ.
        if model == Model::Sc {
            prop_assert_eq!(waiting.complete.len(), every.complete.len(), "{} {:?}: complete executions", name, model);
        }
    }
    prop_assert_eq!(&waiting.others, &every.others, "{} {:?}: other ends differ", name, model);
    Ok(waiting.stats)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn waiting_keeps_every_end_with_awaits_and_locks(threads in common::blocking_program(2..4, 1..5)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            agree(&prog, model, &src)?;
        }
    }

    #[test]
    fn waiting_keeps_every_end_with_loops(threads in common::looping_program(2..4, 1..4)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            agree(&prog, model, &src)?;
        }
    }
}

#[test]
fn waiting_keeps_every_end_on_examples_and_corpus() {
    let (mut runs, mut pruned_before, mut pruned_after) = (0, 0u64, 0u64);
    let (mut steps_before, mut steps_after) = (0u64, 0u64);
    for (name, src) in common::corpus_and_example_sources() {
        let prog = litmus_dsl::analyze(&src).program.unwrap_or_else(|| panic!("{name} does not analyse"));
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            let m = Machine::new(&prog, model, 2, 4);
            let before = ends(&m, false).stats;
            let after = agree(&prog, model, &name).unwrap();
            (pruned_before, pruned_after) = (pruned_before + before.pruned, pruned_after + after.pruned);
            (steps_before, steps_after) = (steps_before + before.transitions, steps_after + after.transitions);
            runs += 1;
        }
    }
    eprintln!(
        "{runs} runs: blocked executions {pruned_before} → {pruned_after}, transitions {steps_before} → {steps_after}"
    );
    assert!(steps_after < steps_before);
    assert!(runs >= 3 * 110);
    // The examples wait on flags and locks: most of their blocked
    // executions go.
    assert!(pruned_after * 2 < pruned_before, "{pruned_before} → {pruned_after}");
}

/// What a check says, without how it found it (witnesses, statistics and
/// the values read differ between the two runs): per model the final
/// states, failures, deadlock, observation and coverage; per relaxed model
/// the violations with their harm, and the fences.
fn verdicts(r: &litmus_checker::Report) -> String {
    // How many executions a bound cut differs; that one did is kept.
    let cuts =
        |x: String| x.split(|c: char| c.is_ascii_digit()).filter(|p| !p.is_empty()).collect::<Vec<_>>().join("#");
    let mut s = String::new();
    for o in &r.outcomes {
        let states: Vec<_> = o.states.iter().map(|x| (x.values.clone(), x.satisfies)).collect();
        let fails: Vec<_> = o.failures.iter().map(|f| (f.thread, f.stmt, f.kind.as_str())).collect();
        s += &format!(
            "{:?}: {states:?} {fails:?} deadlock {} {} {}\n",
            o.model,
            !o.deadlocks.is_empty(),
            cuts(format!("{:?}", o.observation)),
            cuts(format!("{:?}", o.coverage))
        );
    }
    for rb in &r.robustness {
        // Harmful or benign, and how sure (which execution shows a harm may differ).
        let vs: Vec<_> = rb
            .violations
            .iter()
            .map(|v| (v.key(), cuts(format!("{:?}", v.harm.clone().map(|h| h.is_harmful())))))
            .collect();
        let confirmed = cuts(format!("{:?}", rb.fences_confirmed));
        s += &format!("{:?}: {vs:?} fences {:?} {confirmed}\n", rb.model, rb.fences);
    }
    s + &cuts(format!("{:?}", r.joint))
}

/// The whole check (two threads: outcomes explored ahead) says the same
/// with failing attempts left waiting as with every attempt run: harm too,
/// which a cycle through a failed attempt may decide (the check then
/// judges it over every attempt: `HarmSearch::finish`).
fn same_verdicts(src: &str, name: &str) {
    use litmus_checker::monitor::MonitorKind;
    use litmus_checker::{check_all, Options};
    let prog = common::compile(src);
    let waiting = Options { threads: 2, loop_bound: 2, ..Options::default() };
    let every = Options { waits: false, ..waiting.clone() };
    // SC alone: no monitor rides its exploration, whose attempts then wait.
    for models in [&[Model::Sc, Model::Tso, Model::Pso][..], &[Model::Sc]] {
        let a = check_all(&prog, models, MonitorKind::Bss, &waiting);
        let b = check_all(&prog, models, MonitorKind::Bss, &every);
        assert_eq!(verdicts(&a), verdicts(&b), "{name} {models:?}");
    }
}

#[test]
fn the_check_says_the_same_on_examples_corpus_and_harnesses() {
    for (name, src) in common::corpus_and_example_sources() {
        same_verdicts(&src, &name);
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/harnesses");
    for name in ["dekker_f_k2", "dekker_nf_k2", "peterson_nf_k2", "bakery_f_k1"] {
        let src = std::fs::read_to_string(dir.join(format!("{name}.litmus"))).unwrap();
        same_verdicts(&src, name);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn the_check_says_the_same_on_generated_programs(threads in common::blocking_program(2..4, 1..5)) {
        let src = common::render(&threads);
        same_verdicts(&src, &src);
    }
}

/// A spin reduced to an await whose body keeps its load in a register: the
/// waiting run must not read the cell once for both loads (`r` can hold 1
/// when the loop exits on 2), under every model.
#[test]
fn a_spin_keeping_its_load_in_a_register_loses_no_final_state() {
    use litmus_checker::explore::{explore, explore_listened};
    use litmus_checker::Options;
    let prog = common::compile(
        "litmus SPIN\nshared x = 0;\nthread P0 { x = 1; x = 2; }\n\
         thread P1 { let r = 0; let t = x; while (t != 2) { r = x; t = x; } }\nexists (P1:r == 1);\n",
    );
    for model in [Model::Sc, Model::Tso, Model::Pso] {
        let opts = Options::default();
        let waiting = explore(&prog, model, &opts);
        let every = explore_listened(&prog, model, &opts, &mut litmus_checker::dpor::NoListener, |_| {});
        let states = |o: &litmus_checker::ModelOutcome| o.states.iter().map(|s| s.values.clone()).collect::<Vec<_>>();
        assert_eq!(states(&waiting), states(&every), "{model:?}");
        assert!(waiting.states.iter().any(|s| s.satisfies == Some(true)), "{model:?}: r == 1 is reachable");
    }
}
