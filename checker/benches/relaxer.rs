//! RELAXER's Table 1 in kind (run: `cargo bench -p litmus-checker --bench
//! relaxer [-- FILE…]`; default: examples/relaxer/*.litmus). Per program
//! and model: cycles predicted, confirmed, that break the program, mean
//! empirical probability, Phase I time, Phase II time per run and runs per
//! second; then time to the first confirmed bug versus exhaustive
//! exploration of the same file (`RELAXER_EXHAUSTIVE_SECS`, default 60).

use litmus_checker::explore::explore;
use litmus_checker::machine::Model;
use litmus_checker::relaxer::{self, Settings};
use litmus_checker::{find_violations, MonitorKind, Options};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn files() -> Vec<PathBuf> {
    let args: Vec<PathBuf> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).map(PathBuf::from).collect();
    if !args.is_empty() {
        return args;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/relaxer");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "litmus")).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The loop bound a file asks for in a `// bench: loop-bound N` line (default 2).
fn loop_bound(src: &str) -> u32 {
    src.lines()
        .find_map(|l| l.split_once("loop-bound").and_then(|(_, n)| n.split_whitespace().next()?.parse().ok()))
        .unwrap_or(2)
}

fn main() {
    let exhaustive_secs: u64 = std::env::var("RELAXER_EXHAUSTIVE_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let models = [Model::Tso, Model::Pso, Model::Pslo];
    println!(
        "{:<22} {:<5} {:>9} {:>9} {:>5} {:>6} {:>9} {:>11} {:>9}",
        "program", "model", "predicted", "confirmed", "bugs", "p̄", "phase I", "II per run", "runs/s"
    );
    let mut firsts = Vec::new();
    for path in files() {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let Some(p) = litmus_dsl::analyze(&src).program else {
            println!("{name}: does not analyse");
            continue;
        };
        let opts = Options { loop_bound: loop_bound(&src), ..Options::default() };
        let s = Settings::default();
        let pred = relaxer::predict(&p, &s, &opts);
        let sc = explore(&p, Model::Sc, &Options { ..opts.clone() }.with_timeout(Some(Duration::from_secs(5))));
        for &m in &models {
            let a = relaxer::test(&p, m, &pred, &s, &opts, sc.observation.as_ref());
            let per_run = a.time.as_secs_f64() / a.runs.max(1) as f64;
            println!(
                "{:<22} {:<5} {:>9} {:>9} {:>5} {:>6} {:>7.1}ms {:>9.3}ms {:>9.0}",
                name,
                m.upper(),
                pred.cycles.len(),
                a.confirmed(),
                a.bugs(),
                a.mean_probability().map(|p| format!("{p:.2}")).unwrap_or("-".into()),
                pred.time.as_secs_f64() * 1e3,
                per_run * 1e3,
                a.runs as f64 / a.time.as_secs_f64().max(1e-9)
            );
        }
        // Time to the first confirmed bug (Phase I + Phase II, one trial
        // per cycle at a time) versus exhaustive exploration under TSO.
        let t = Instant::now();
        let mut first = None;
        'outer: for k in 0..s.trials {
            let one = Settings { trials: 1, seed: k as u64, ..s.clone() };
            let pred = relaxer::predict(&p, &one, &opts);
            let a = relaxer::test(&p, Model::Tso, &pred, &one, &opts, sc.observation.as_ref());
            if a.bugs() > 0 {
                first = Some(t.elapsed());
                break 'outer;
            }
        }
        let t = Instant::now();
        let ex_opts = opts.clone().with_timeout(Some(Duration::from_secs(exhaustive_secs)));
        let ex = find_violations(&p, &[Model::Sc, Model::Tso], MonitorKind::Bss, &ex_opts);
        let ex_time = t.elapsed();
        let ex_found = ex.robustness[0].violations.len();
        firsts.push((name, first, ex_time, ex.robustness[0].coverage.finished(), ex_found));
    }
    println!("\ntime to the first TSO bug: active testing vs exhaustive (SC exploration with the TSO monitor)");
    for (name, first, ex, finished, found) in firsts {
        println!(
            "{:<22} active {:>10}   exhaustive {:>9.1}ms ({}, {found} violations)",
            name,
            first.map(|d| format!("{:.1}ms", d.as_secs_f64() * 1e3)).unwrap_or("none".into()),
            ex.as_secs_f64() * 1e3,
            if finished { "finished" } else { "timed out" }
        );
    }
}
