//! The relaxed models' outcomes explored ahead, beside the SC exploration
//! with its monitors (`ahead.rs`, two threads), give the check's report the
//! sequential steps give (one thread) — outcomes with their witnesses and
//! statistics, each violation's harm, the fences — on every example and
//! corpus file, on generated programs with conditions and assertions, and
//! on programs with more executions that could do damage than the ones
//! ahead keep (then the outcome step explores again); and a check cut
//! short claims nothing either way.

mod common;

use litmus_checker::machine::Model;
use litmus_checker::monitor::MonitorKind;
use litmus_checker::{check_all, Options, Report};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::time::Duration;

/// Everything a report says but how long it took.
fn render(r: &Report) -> String {
    let mut outcomes = r.outcomes.clone();
    for o in outcomes.iter_mut() {
        o.elapsed = Duration::ZERO;
    }
    format!("{outcomes:?}\n{:?}\n{:?}\n{:?}", r.robustness, r.joint, r.sc_observation)
}

fn with_threads(threads: usize, loop_bound: u32) -> Options {
    Options { threads, loop_bound, ..Options::default() }
}

fn same_either_way(src: &str, name: &str, loop_bound: u32) {
    same_with(src, name, &with_threads(1, loop_bound), &with_threads(2, loop_bound));
}

fn same_with(src: &str, name: &str, one: &Options, two: &Options) {
    same_under(src, name, &[Model::Sc, Model::Tso, Model::Pso], one, two);
}

fn same_under(src: &str, name: &str, models: &[Model], one: &Options, two: &Options) {
    let prog = common::compile(src);
    let one = check_all(&prog, models, MonitorKind::Bss, one);
    let two = check_all(&prog, models, MonitorKind::Bss, two);
    assert_eq!(render(&one), render(&two), "{name}");
}

/// As the CLI checks by default: the unbounded procedure first, and the
/// bounded engine (with its outcomes ahead) where it cannot decide — SB
/// with 8 threads (too many states: the bounded engine answers), and
/// programs it decides.
#[test]
fn the_bounded_engine_after_the_unbounded_procedure_gets_one_report_with_outcomes_ahead() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/harnesses");
    for name in ["sb8", "sb10", "dekker_f_k2", "dekker_nf_k2"] {
        let src = std::fs::read_to_string(dir.join(format!("{name}.litmus"))).unwrap();
        same_with(&src, name, &with_threads(1, 2).with_unbounded(), &with_threads(2, 2).with_unbounded());
    }
    for (name, src) in common::corpus_and_example_sources().into_iter().step_by(7) {
        same_with(&src, &name, &with_threads(1, 2).with_unbounded(), &with_threads(2, 2).with_unbounded());
    }
}

#[test]
fn examples_and_corpus_get_one_report_with_outcomes_explored_ahead() {
    for (name, src) in common::corpus_and_example_sources() {
        same_either_way(&src, &name, 2);
    }
}

/// Fenced Dekker entering twice, and the unfenced one, whose assertion
/// fails in many more TSO executions than those kept ahead.
#[test]
fn harnesses_get_one_report_with_outcomes_explored_ahead() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/harnesses");
    for name in ["dekker_f_k2", "dekker_nf_k2", "peterson_nf_k2", "sb8"] {
        let src = std::fs::read_to_string(dir.join(format!("{name}.litmus"))).unwrap();
        same_either_way(&src, name, 2);
    }
}

#[test]
fn generated_programs_get_one_report_with_outcomes_explored_ahead() {
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[23; 32]));
    for atomics in [true, false] {
        let strategy = common::program(2..4, 2..5, atomics);
        for _ in 0..150 {
            let threads = strategy.new_tree(&mut runner).unwrap().current();
            let src = common::render(&threads);
            same_either_way(&src, &src, 2);
        }
    }
}

/// Cancelled before it starts, the check claims no model's outcome,
/// explored ahead or not.
#[test]
fn a_cancelled_check_claims_nothing_ahead() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/harnesses/dekker_f_k2.litmus"),
    )
    .unwrap();
    let prog = common::compile(&src);
    let mut opts = with_threads(2, 2);
    opts.budget.cancel = Some(Arc::new(AtomicBool::new(true)));
    let r = check_all(&prog, &[Model::Tso, Model::Pso], MonitorKind::Bss, &opts);
    for o in &r.outcomes {
        assert!(!o.coverage.finished(), "{:?}: {:?}", o.model, o.coverage);
    }
    for rb in &r.robustness {
        assert!(!rb.robust().is_known(), "{:?}", rb.robust());
    }
}

/// Where the unbounded procedure decides, a model it did not prove robust
/// has its own states searched beside the fences (two threads) or in the
/// outcome step (one): one report either way, on every Trencher
/// translation and on generated looping programs.
#[test]
fn own_states_searched_beside_the_fences_give_one_report() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/trencher");
    for dir in [root.clone(), root.join("memorax")] {
        let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        for p in paths.into_iter().filter(|p| p.extension().is_some_and(|x| x == "litmus")) {
            let name = p.display().to_string();
            if name.contains("ticket_spin_lock-2") {
                continue; // seconds of states before it falls back: too slow here
            }
            let src = std::fs::read_to_string(&p).unwrap();
            // TSO as `check --model tso` (PSO's bounded outcomes of the Cilk
            // queue take seconds).
            let (one, two) = (with_threads(1, 2).with_unbounded(), with_threads(2, 2).with_unbounded());
            same_under(&src, &name, &[Model::Sc, Model::Tso], &one, &two);
        }
    }
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[43; 32]));
    let strategy = common::looping_program(2..3, 1..4);
    for _ in 0..100 {
        let threads = strategy.new_tree(&mut runner).unwrap().current();
        let src = common::render(&threads);
        same_with(&src, &src, &with_threads(1, 2).with_unbounded(), &with_threads(2, 2).with_unbounded());
    }
}
