//! The progress a check reports (`Options::progress`) is what it did: once
//! an exploration is over, the shared execution count equals its
//! statistics, for both explorers and any number of graph workers (the
//! counts are sent in batches, so the last partial batch must arrive too);
//! a whole check counts the relaxed outcomes' share exactly and active
//! testing counts its runs; the phases are entered in the check's order.

mod common;

use litmus_checker::machine::Model;
use litmus_checker::progress::{Phase, BATCH};
use litmus_checker::relaxer::{self, Settings};
use litmus_checker::{explore, graph, ExplorerKind, MonitorKind, Options, Progress};

/// SB around a cycle of `n` threads, each storing 1 then 2: many
/// executions (each load reads one of three values).
fn sb(n: usize) -> String {
    let mut s = String::from("litmus SB\n");
    for i in 0..n {
        s += &format!("shared x{i} = 0;\n");
    }
    for i in 0..n {
        s += &format!("thread P{i} {{\n  x{i} = 1;\n  x{i} = 2;\n  let r{i} = x{};\n}}\n", (i + 1) % n);
    }
    let all: Vec<String> = (0..n).map(|i| format!("P{i}:r{i} == 0")).collect();
    s + &format!("exists ({});\n", all.join(" && "))
}

fn with(explorer: ExplorerKind, threads: usize) -> (Options, std::sync::Arc<Progress>) {
    let p = Progress::new();
    let mut opts = Options { explorer, threads, ..Options::default() };
    opts.budget.progress = Some(p.clone());
    (opts, p)
}

#[test]
fn the_count_equals_the_executions_explored() {
    let prog = common::compile(&sb(4));
    for model in [Model::Sc, Model::Tso, Model::Pso] {
        // Interleavings (source-DPOR), then graphs on one and two workers.
        let (opts, p) = with(ExplorerKind::Interleaving, 1);
        let o = explore::explore(&prog, model, &opts);
        let many = o.stats.executions > BATCH;
        assert!(many || model == Model::Sc, "{model:?}: too few executions ({}) to test batching", o.stats.executions);
        assert_eq!(p.executions(), o.stats.executions, "{model:?} by interleaving");
        for threads in [1, 2] {
            let (opts, p) = with(ExplorerKind::Graph, threads);
            let o = graph::explore(&prog, model, &opts, None);
            assert_eq!(p.executions(), o.stats.executions, "{model:?} by graph on {threads} workers");
        }
    }
}

#[test]
fn a_whole_check_counts_every_exploration_and_ends_in_its_last_phase() {
    let prog = common::compile(&sb(3));
    let (opts, p) = with(ExplorerKind::Auto, 2);
    let models = [Model::Sc, Model::Tso, Model::Pso];
    let r = litmus_checker::find_violations(&prog, &models, MonitorKind::Bss, &opts);
    let s = p.snapshot();
    assert_eq!((s.phase, s.model), (Phase::Violations, Some(Model::Sc)));
    // The SC exploration with the monitors, and the witnesses' replays, at least.
    let sc = r.outcomes[0].stats.executions;
    assert!(s.executions >= sc, "{} < {sc}", s.executions);
    let mut r = r;
    litmus_checker::judge_and_fence(&mut r, &prog, MonitorKind::Bss, &opts);
    let s = p.snapshot();
    assert_eq!((s.phase, s.model), (Phase::Fences, Some(Model::Pso)), "per-model fences last");
    let before = p.executions();
    litmus_checker::add_relaxed_outcomes(&mut r, &prog, &models, &opts);
    let s = p.snapshot();
    assert_eq!((s.phase, s.model), (Phase::Outcomes, Some(Model::Pso)));
    let relaxed: u64 = r.outcomes.iter().filter(|o| o.model != Model::Sc).map(|o| o.stats.executions).sum();
    assert_eq!(p.executions() - before, relaxed, "the relaxed outcomes' executions, exactly");
    assert_eq!(
        s.message(),
        format!("PSO: outcomes · {} executions", litmus_checker::progress::thousands(s.executions))
    );
}

#[test]
fn active_testing_counts_its_runs() {
    let (opts, p) = with(ExplorerKind::Auto, 2);
    let settings = Settings { trials: 100, sc_runs: 20, ..Settings::default() };
    let prog = common::compile(&sb(2));
    let run = relaxer::run(&prog, &[Model::Tso, Model::Pso], &settings, &opts, None);
    let runs: u64 = run.models.iter().map(|a| a.runs).sum();
    assert!(runs > BATCH, "{runs} runs");
    assert_eq!(p.executions(), runs);
    let s = p.snapshot();
    assert_eq!((s.phase, s.model), (Phase::Active, Some(Model::Pso)));
}
