//! Robustness from execution graphs (`graph::robust`) against the BSS
//! monitor riding the SC exploration: the same statement pairs, the same
//! answer (where BSS leaves a signal unconfirmed, the graphs' answer is the
//! model's own executions'), and every witness replays to a cyclic trace.
//! On the corpus and examples the graph search takes, and on generated
//! programs: loop-free ones, ones that await and lock, and ones that loop.

mod common;

use litmus_checker::graph::robust;
use litmus_checker::machine::{Machine, Model};
use litmus_checker::monitor::MonitorKind;
use litmus_checker::options::Options;
use litmus_checker::reference::replay;
use litmus_checker::robust::robustness_of;
use litmus_checker::{trace, Answer};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

fn keys(rb: &litmus_checker::violation::Robustness) -> Vec<(u32, u32)> {
    rb.violations.iter().map(|v| v.key()).collect()
}

/// Where the two decisions disagree, in words.
fn disagreements(prog: &litmus_ir::Program, opts: &Options) -> Vec<String> {
    let mut bad = Vec::new();
    for model in [Model::Tso, Model::Pso] {
        let bss = robustness_of(prog, model, MonitorKind::Bss, opts);
        let graphs = robust::robustness(prog, model, opts);
        assert_eq!(graphs.monitor, MonitorKind::Graph);
        let explicit = || common::explicitly_robust(prog, model, u32::MAX);
        match bss.robust() {
            Answer::Unknown(_) if graphs.robust().value() != Some(&explicit()) => {
                bad.push(format!("{model:?}: graphs {:?}, explicit robust={}", graphs.robust(), explicit()))
            }
            Answer::Unknown(_) => {}
            known if known != graphs.robust() => {
                bad.push(format!("{model:?}: BSS {known:?}, graphs {:?}", graphs.robust()))
            }
            _ => {}
        }
        if keys(&bss) != keys(&graphs) {
            bad.push(format!("{model:?}: BSS pairs {:?}, graphs {:?}", keys(&bss), keys(&graphs)));
        }
        if !graphs.unconfirmed.is_empty() {
            bad.push(format!("{model:?}: graphs left {:?} unconfirmed", graphs.unconfirmed));
        }
        for v in &graphs.violations {
            let m = Machine::new(prog, model, opts.loop_bound, u32::MAX);
            let (_, events) = replay(&m, &v.witness.schedule);
            if !trace::has_cycle(&events) {
                bad.push(format!("{model:?}: the witness of {:?} replays without a cycle", v.key()));
            }
        }
    }
    bad
}

#[test]
fn corpus_and_examples_the_graph_search_takes() {
    let mut bad = Vec::new();
    let mut checked = 0;
    for (name, src) in common::corpus_and_example_sources() {
        let Some(prog) = litmus_dsl::analyze(&src).program else { continue };
        let opts = Options { threads: 1, ..Options::default() };
        if !litmus_checker::explore::by_graph(&prog, Model::Tso, &opts) {
            continue;
        }
        checked += 1;
        bad.extend(disagreements(&prog, &opts).into_iter().map(|d| format!("{name}: {d}")));
    }
    assert!(checked >= 88, "only {checked} files checked");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn config(cases: u32) -> ProptestConfig {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    ProptestConfig {
        cases: env("LITMUS_GRAPH_ROBUST_CASES").map_or(cases, |n| n as u32),
        rng_seed: RngSeed::Fixed(env("LITMUS_GRAPH_ROBUST_SEED").unwrap_or(20261128)),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn check(threads: &[Vec<common::Op>], loop_bound: u32) -> Result<(), TestCaseError> {
    let src = common::render(threads);
    let prog = common::compile(&src);
    let opts = Options { threads: 1, loop_bound, ..Options::default() };
    let bad = disagreements(&prog, &opts);
    prop_assert!(bad.is_empty(), "{}\n{src}", bad.join("\n"));
    Ok(())
}

proptest! {
    #![proptest_config(config(2_000))]
    #[test]
    fn generated_loop_free_programs(threads in common::program(2..5, 1..4, true)) {
        check(&threads, 2)?;
    }
}

proptest! {
    #![proptest_config(config(500))]
    #[test]
    fn generated_programs_that_await_and_lock(threads in common::blocking_program(2..4, 1..4)) {
        check(&threads, 2)?;
    }

    #[test]
    fn generated_programs_that_loop(threads in common::looping_program(2..4, 1..3)) {
        check(&threads, 2)?;
    }
}

/// Where BSS signals a pair it cannot witness (its answer would be
/// unknown), the model's graphs settle it. Here they show the signal
/// never happens: robust, proved, where BSS alone (a preemption bound
/// keeps the graphs out) leaves it unknown. Generated; the model's own
/// executions agree.
#[test]
fn a_signal_bss_cannot_witness_is_settled_by_the_graphs() {
    let src = "litmus GEN
shared x = 0, y = 0, z = 0, m = 0;
thread P0 {
  x = 0 + 1;
  let r0 = y;
  lock(m);
  x = 2;
  y = 1;
  unlock(m);
}
thread P1 {
  let r0 = cas(y, 1, 2);
  let r1 = 0;
  let r2 = x;
  while (r2 != 2) { r1 = x; r2 = x; }
  let r3 = y;
}
thread P2 {
  await (y == 0);
  lock(m);
  let _b100 = y;
  let _b101 = x;
  unlock(m);
  if (0 == 1) {
    let _b0 = y;
  } else {
    cas(x, 1, 1);
  }
}
exists (P0:r0 == 0 && P1:r0 == 0 && P1:r1 == 0 && P1:r2 == 0 && P1:r3 == 0);
";
    let prog = common::compile(src);
    let opts = Options { threads: 1, loop_bound: 2, ..Options::default() };
    let alone = Options { preemption_bound: Some(1_000), ..opts.clone() };
    let bss = robustness_of(&prog, Model::Tso, MonitorKind::Bss, &alone);
    assert!(!bss.unconfirmed.is_empty() && !bss.robust().is_known(), "{:?}", bss.robust());
    let settled = robustness_of(&prog, Model::Tso, MonitorKind::Bss, &opts);
    assert_eq!(settled.robust(), Answer::Proved(true));
    assert!(settled.violations.is_empty() && settled.unconfirmed.is_empty());
    assert!(common::explicitly_robust(&prog, Model::Tso, u32::MAX));
    // `--monitor graph` decides it alone, the same way.
    let graphs = robustness_of(&prog, Model::Tso, MonitorKind::Graph, &opts);
    assert_eq!((graphs.monitor, graphs.robust()), (MonitorKind::Graph, Answer::Proved(true)));
    // Cut short at every poll up to where it finishes: "robust" only where
    // the searches (the SC exploration, then the graphs) finished.
    let mut cut = 0;
    for polls in 0..400u64 {
        let budget = litmus_checker::Budget {
            cancel: Some(Arc::new(AtomicBool::new(false))),
            polls_left: Some(Arc::new(AtomicU64::new(polls))),
            ..Default::default()
        };
        let o = Options { budget, ..opts.clone() };
        for monitor in [MonitorKind::Bss, MonitorKind::Graph] {
            let rb = robustness_of(&prog, Model::Tso, monitor, &o);
            match rb.robust() {
                Answer::Proved(true) => assert!(rb.coverage.finished() && rb.unconfirmed.is_empty()),
                known if known.is_known() => panic!("{monitor:?} at poll {polls}: {known:?}"),
                _ => cut += 1,
            }
        }
    }
    assert!(cut > 10, "the polls cut {cut} runs");
}
