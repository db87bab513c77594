//! Spin loops and per-loop bounds (run: `cargo bench -p litmus-checker --bench loops`):
//! fenced Dekker and Peterson, 2 threads × 2/3/4 entries, under SC, TSO and
//! PSO — waiting by spin loops reduced to their final iteration, by the same
//! loops as written (each spin bounded by `--loop-bound 2`, the entries
//! counted by `for`, so the outer loop does not multiply the spin bound),
//! and by `await` — the exploration of the final states (`explore::explore`).
//! Each run stops after `LOOPS_BUDGET` seconds (default 20), printed as "> N s".
//!
//! Peer figures (`../shared/bench/README.md`, same kind of 2-core machine,
//! GenMC 0.10.3 and Nidhugg on the C versions, whose AWAIT is a spin loop
//! their spin-assume transformation reduces; `check --model M` there):
//! dekker_f_k3 TSO: GenMC 0.70 s (6,993 graphs), Nidhugg 2.37 s;
//! dekker_f_k4 SC: GenMC 34.0 s, Nidhugg 76.9 s; TSO: GenMC 26.4 s
//! (221,331 graphs), Nidhugg 89.9 s; PSO: Nidhugg 129.1 s;
//! peterson_f_k5 TSO: GenMC 12.5 s, Nidhugg 38.1 s.

mod common;

use common::mutex::{self, Style};
use litmus_checker::explore::explore;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_dsl::{analyze_with, LowerOptions};
use std::time::{Duration, Instant};

/// A harness generator: entries per thread, how to wait.
type Harness = fn(u32, Style) -> String;

fn peer(name: &str, k: u32, model: Model) -> &'static str {
    match (name, k, model) {
        ("dekker", 3, Model::Tso) => "GenMC 0.70 s (6,993 graphs), Nidhugg 2.37 s",
        ("dekker", 4, Model::Sc) => "GenMC 34.0 s, Nidhugg 76.9 s",
        ("dekker", 4, Model::Tso) => "GenMC 26.4 s (221,331 graphs), Nidhugg 89.9 s",
        ("dekker", 4, Model::Pso) => "Nidhugg 129.1 s",
        _ => "",
    }
}

fn main() {
    let budget = Duration::from_secs(std::env::var("LOOPS_BUDGET").ok().and_then(|s| s.parse().ok()).unwrap_or(20));
    println!("spin loops: reduced / as written (spins cut at --loop-bound 2) / await; budget {budget:?} per run");
    let harnesses: [(&str, Harness); 2] = [("dekker", mutex::dekker), ("peterson", mutex::peterson)];
    for (name, make) in harnesses {
        for k in 2..=4 {
            for model in [Model::Sc, Model::Tso, Model::Pso] {
                let mut cells = Vec::new();
                for (style, reduce) in [(Style::Spin, true), (Style::Spin, false), (Style::Await, true)] {
                    let prog =
                        analyze_with(&make(k, style), LowerOptions { reduce_spins: reduce, ..LowerOptions::default() })
                            .program
                            .unwrap();
                    let mut opts = Options { loop_bound: 2, ..Options::default() };
                    opts.budget.deadline = Some(Instant::now() + budget);
                    let t = Instant::now();
                    let out = explore(&prog, model, &opts);
                    let secs = t.elapsed().as_secs_f64();
                    let answer = if out.complete() {
                        "proved"
                    } else if opts.budget.late() {
                        "stopped"
                    } else {
                        "within bounds"
                    };
                    let time =
                        if answer == "stopped" { format!("> {} s", budget.as_secs()) } else { format!("{secs:.3} s") };
                    cells.push(format!("{time:>9} {:>9} ex {answer:<13}", out.stats.executions));
                    assert!(out.failures.is_empty(), "{name} k={k} {model:?}: a fenced harness fails");
                }
                println!("  {name} k={k} {:<4} {} | {}", format!("{model:?}"), cells.join(" | "), peer(name, k, model));
            }
        }
    }
}
