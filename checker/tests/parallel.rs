//! The graph search on several workers (2, 3 and 8, and with every graph a
//! task of its own) gives the sequential search's outcome, byte for byte —
//! states with their witnesses, failures, deadlocks, condition errors,
//! statistics — however the search is split (examples, corpus, generated
//! programs with atomics, awaits, locks and spins); and a search stopped by
//! `--first`, a deadline or the cancel flag stops every worker and claims
//! nothing proved.

mod common;

use litmus_checker::graph::{self, parallel::Splitting};
use litmus_checker::machine::Model;
use litmus_checker::outcome::ModelOutcome;
use litmus_checker::{Answer, Coverage, Options, Why};
use proptest::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Everything an outcome says but how long it took.
fn render(o: &ModelOutcome) -> String {
    let mut o = o.clone();
    o.elapsed = Duration::ZERO;
    format!("{o:?}")
}

fn with_threads(threads: usize) -> Options {
    Options { threads, ..Options::default() }
}

/// The sequential search's outcome, and the parallel ones that must equal
/// it: lazily split on 2, 3 and 8 workers; with every graph a task of its
/// own (unless the tree is large: that many tasks take long in a debug build).
fn same_for_any_thread_count(prog: &litmus_ir::Program, model: Model, name: &str) -> Result<(), String> {
    let one = graph::explore(prog, model, &with_threads(1), None);
    let want = render(&one);
    let mut runs = vec![(2, Splitting::Lazy), (3, Splitting::Lazy), (8, Splitting::Lazy)];
    if one.stats.executions <= 5_000 {
        runs.push((3, Splitting::Everywhere));
    }
    for (threads, splitting) in runs {
        let o = graph::explore_splitting(prog, model, &with_threads(threads), splitting);
        if render(&o) != want {
            return Err(format!(
                "{name} under {model:?}: {threads} threads ({splitting:?}) differ from one\none: {want}\n{threads}: {}",
                render(&o)
            ));
        }
    }
    Ok(())
}

#[test]
fn examples_and_corpus_have_one_outcome_for_any_thread_count() {
    for (name, src) in common::corpus_and_example_sources() {
        let prog = common::compile(&src);
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            same_for_any_thread_count(&prog, model, &name).unwrap();
        }
    }
}

/// Three threads of store/load pairs (slow.litmus, smaller) with an
/// assertion that fails in some graphs and a condition that divides by
/// zero in others: thousands of graphs, so lazy splitting happens, and
/// every kind of finding to merge.
fn medium(pairs: usize) -> String {
    let locs = ["a", "b", "c"];
    let mut s = String::from("litmus Medium\nshared a = 0, b = 0, c = 0;\n");
    for t in 0..3 {
        s.push_str(&format!("thread P{t} {{\n"));
        for k in 0..pairs {
            let (w, r) = (locs[(t + k) % 3], locs[(t + k + 1) % 3]);
            s.push_str(&format!("  {w} = {};\n  let r{k} = {r};\n", k + 1));
        }
        s.push_str(&format!("  assert (r0 != {});\n}}\n", t + 1));
    }
    s.push_str("exists (10 / (P0:r1 - 1) == 1 || P1:r0 == 7);\n");
    s
}

#[test]
fn findings_of_every_kind_merge_as_the_sequential_search_keeps_them() {
    for pairs in [2, 3] {
        let src = medium(pairs);
        let prog = common::compile(&src);
        for model in [Model::Tso, Model::Pso] {
            let one = graph::explore(&prog, model, &with_threads(1), None);
            assert!(!one.failures.is_empty() && !one.condition_errors.is_empty(), "{src}");
            same_for_any_thread_count(&prog, model, &src).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Generated programs (atomics, if/else, fences): one outcome.
    #[test]
    fn generated_programs_have_one_outcome(threads in common::program(2..4, 1..5, true)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            same_for_any_thread_count(&prog, model, &src).map_err(TestCaseError::fail)?;
        }
    }

    /// With awaits, locks and spin loops (deadlocks, pruned and cut graphs).
    #[test]
    fn generated_blocking_programs_have_one_outcome(threads in common::blocking_program(2..4, 1..4)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        for model in [Model::Tso, Model::Pso] {
            same_for_any_thread_count(&prog, model, &src).map_err(TestCaseError::fail)?;
        }
    }
}

/// slow.litmus (a million graphs under TSO) with an assertion most graphs
/// break and a condition no graph meets.
fn slow_failing() -> litmus_ir::Program {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let src = std::fs::read_to_string(root.join("tests/programs/slow.litmus")).unwrap();
    let src = src.replacen("  let r3 = a;\n}", "  let r3 = a;\n  assert (r3 == 4);\n}", 1) + "exists (P0:r0 == 9);\n";
    common::compile(&src)
}

/// A stopped search is not a proof: no `never`, coverage stopped for `why`.
fn stopped(o: &ModelOutcome, why: Why) {
    assert_eq!(o.coverage, Coverage::Stopped(why), "{:?}", o.stats);
    assert!(!o.complete());
    assert!(!matches!(o.observation, Some(Answer::Proved(_))), "{:?}", o.observation);
}

#[test]
fn first_finding_stops_every_worker() {
    let prog = slow_failing();
    for threads in [2, 8] {
        let opts = with_threads(threads).stop_at_first();
        let t = Instant::now();
        let o = graph::explore(&prog, Model::Tso, &opts, None);
        assert!(t.elapsed() < Duration::from_secs(10), "{threads} threads: {:?}", t.elapsed());
        assert!(!o.failures.is_empty());
        assert!(o.stats.first);
        stopped(&o, Why::First);
    }
}

#[test]
fn deadline_stops_every_worker() {
    let prog = slow_failing();
    for threads in [2, 8] {
        // Passed before the search starts: nothing is explored.
        let o = graph::explore(&prog, Model::Tso, &with_threads(threads).with_timeout(Some(Duration::ZERO)), None);
        assert!(o.stats.timed_out);
        stopped(&o, Why::Timeout);
        // Passing while the workers search.
        let t = Instant::now();
        let opts = with_threads(threads).with_timeout(Some(Duration::from_millis(100)));
        let o = graph::explore(&prog, Model::Pso, &opts, None);
        assert!(t.elapsed() < Duration::from_secs(2), "{threads} threads: {:?}", t.elapsed());
        stopped(&o, Why::Timeout);
    }
}

#[test]
fn cancel_stops_every_worker() {
    let prog = slow_failing();
    let cancel = Arc::new(AtomicBool::new(false));
    let mut opts = with_threads(4);
    opts.budget.cancel = Some(cancel.clone());
    let t = Instant::now();
    let o = std::thread::scope(|s| {
        let h = s.spawn(|| graph::explore(&prog, Model::Pso, &opts, None));
        std::thread::sleep(Duration::from_millis(100));
        cancel.store(true, Ordering::Relaxed);
        let cancelled = Instant::now();
        let o = h.join().unwrap();
        assert!(cancelled.elapsed() < Duration::from_millis(500), "{:?}", cancelled.elapsed());
        o
    });
    assert!(t.elapsed() < Duration::from_secs(2));
    assert!(o.stats.cancelled);
    stopped(&o, Why::Cancelled);
}
