//! Every robustness decision against explicit exploration of the model's own
//! executions (robust iff no execution's trace has an hb cycle), on
//! thousands of generated 3–4-thread programs with fences and atomics:
//! each monitor's final answer (BSS, the paper's BSS, Sober — the last two
//! cross-checked by the model's own executions where they are not complete),
//! each complete monitor alone, and Trencher's attacks. Zero disagreements;
//! every violation's witness replays to a cyclic trace.
//!
//! The seed is fixed so CI checks the same 5,000 programs every time;
//! `LITMUS_DIFF_SEED=<n>` (and `LITMUS_DIFF_CASES`) look further.

mod common;

use litmus_checker::machine::{Machine, Model};
use litmus_checker::monitor::MonitorKind;
use litmus_checker::options::Options;
use litmus_checker::reference::replay;
use litmus_checker::robust::robustness_of;
use litmus_checker::{trace, Answer};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// No execution of `model` has a cyclic trace (buffers unbounded).
fn explicitly_robust(prog: &litmus_ir::Program, model: Model) -> bool {
    common::explicitly_robust(prog, model, u32::MAX)
}

fn config() -> ProptestConfig {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    ProptestConfig {
        cases: env("LITMUS_DIFF_CASES").unwrap_or(5_000) as u32,
        rng_seed: RngSeed::Fixed(env("LITMUS_DIFF_SEED").unwrap_or(20261126)),
        // Fixed seed: a failure is reproduced by the seed, not a file.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// What each decision says, against explicit exploration.
fn disagreements(prog: &litmus_ir::Program) -> Vec<String> {
    let opts = Options::default();
    let mut bad = Vec::new();
    let explicit = [Model::Tso, Model::Pso].map(|m| (m, explicitly_robust(prog, m)));
    for &(model, robust) in &explicit {
        for mon in [MonitorKind::Bss, MonitorKind::BssInterleaving, MonitorKind::Sober] {
            let rb = robustness_of(prog, model, mon, &opts);
            if rb.robust() != Answer::Proved(robust) {
                bad.push(format!("{model:?} {mon:?}: {:?}, explicit robust={robust}", rb.robust()));
            }
            // A complete monitor decides alone: nothing is left for a
            // cross-check to find.
            if mon.complete_for(model) && !rb.missed_by_monitor.is_empty() {
                bad.push(format!("{model:?} {mon:?}: complete, yet cross-checked"));
            }
            if mon.complete_for(model) && !rb.unconfirmed.is_empty() {
                bad.push(format!("{model:?} {mon:?}: {} signals without a witness", rb.unconfirmed.len()));
            }
            for v in &rb.violations {
                let m = Machine::new(prog, v.model, opts.loop_bound, u32::MAX);
                let (_, events) = replay(&m, &v.witness.schedule);
                if events != v.witness.events || trace::Trace::of(&events).cycle().is_none() {
                    bad.push(format!("{model:?} {mon:?}: a witness does not replay to a cycle"));
                }
            }
        }
    }
    // Trencher's attacks, for every iteration (these programs are loop-free).
    let limits = litmus_checker::options::StateLimits::default();
    match litmus_checker::unbounded::prove(prog, &[Model::Tso, Model::Pso], &opts, &limits) {
        Ok(p) => {
            for rb in &p.robustness {
                let robust = explicit.iter().find(|e| e.0 == rb.model).unwrap().1;
                if rb.robust() != Answer::Proved(robust) {
                    bad.push(format!("{:?} attacks: {:?}, explicit robust={robust}", rb.model, rb.robust()));
                }
            }
        }
        Err(stop) => bad.push(format!("attacks stopped: {}", stop.describe())),
    }
    bad
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_monitor_agrees_with_explicit_exploration(threads in common::program(3..5, 1..4, true)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let bad = disagreements(&prog);
        prop_assert!(bad.is_empty(), "{}\n{}", bad.join("\n"), src);
    }
}

/// The two programs the adversarial campaign found: each monitor alone
/// missed them, and said "robust (proved)".
#[test]
fn the_monitors_that_are_not_complete_are_cross_checked() {
    // SB with a fence after each load: the paper's commit rule needs the
    // interleaving in which the fence comes late; DPOR explores another.
    let sb = common::compile(
        "litmus SBF\nshared x = 0, y = 0;\n\
         thread P0 { x = 1; let r0 = y; fence; }\n\
         thread P1 { y = 1; let r1 = x; fence; }\n\
         exists (P0:r0 == 0 && P1:r1 == 0);\n",
    );
    // A load that forwards from its own buffer before the cycle: Sober's gap.
    let fwd = common::compile(
        "litmus FWD\nshared x = 0, y = 0;\n\
         thread P0 { x = 1; let r0 = x; let r1 = y; }\n\
         thread P1 { y = 2; x = 3; }\n\
         exists (P0:r1 == 0 && x == 1);\n",
    );
    let opts = Options::default();
    for (prog, mon, models) in [
        (&sb, MonitorKind::BssInterleaving, &[Model::Tso, Model::Pso][..]),
        (&fwd, MonitorKind::Sober, &[Model::Tso][..]),
    ] {
        for &model in models {
            let rb = robustness_of(prog, model, mon, &opts);
            assert_eq!(rb.robust(), Answer::Proved(false), "{mon:?} {model:?}");
            // The monitor alone found none of them: all came from the cross-check.
            assert_eq!(rb.missed_by_monitor.len(), rb.violations.len(), "{mon:?} {model:?}");
            // Named as the monitors and attacks name theirs: the delayed
            // store and the other thread's access that closes the cycle.
            let bss = robustness_of(prog, model, MonitorKind::Bss, &opts);
            let keys = |r: &litmus_checker::Robustness| r.violations.iter().map(|v| v.key()).collect::<Vec<_>>();
            assert_eq!(keys(&rb), keys(&bss), "{mon:?} {model:?}");
        }
    }
}
