//! The unbounded procedure (run: `cargo bench -p litmus-checker --bench unbounded`):
//! on the translations of Trencher's examples (`examples/trencher/`), the
//! classics of `examples/` and a growing ticket lock, the stateful search
//! with attacks — robustness under TSO, then under TSO and PSO with SC's
//! outcomes — its states, states per second and bytes per state, and the
//! fence search; beside Trencher on the original file when it is built here
//! (`TRENCHER=/path/to/trencher`, its examples found next to it, or
//! `TRENCHER_EXAMPLES`), each tool timed as a process (`trencher -r`, `-f`;
//! `litmus fix --model tso` with `LITMUS`, default `target/release/litmus`).
//! Every run is the best of `UNBOUNDED_RUNS` (default 5).

use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_checker::options::StateLimits;
use litmus_checker::unbounded::{self, fences};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut out = None;
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        out = Some(r);
    }
    (best, out.expect("at least one run"))
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

/// The original Trencher file a translation names in its header.
fn original(src: &str) -> Option<String> {
    let line = src.lines().find(|l| l.contains("Trencher's examples/"))?;
    let from = line.find("examples/")? + "examples/".len();
    let rest = &line[from..];
    Some(rest[..rest.find(".txt")? + 4].to_string())
}

/// Trencher's own time for its algorithm (`-b`: milliseconds, parsing and
/// the process left out), best of `runs`.
fn trencher_algorithm(bin: &Path, file: &Path, runs: usize) -> Option<u64> {
    (0..runs)
        .filter_map(|_| {
            let o = Command::new(bin).args(["-b", "-r"]).arg(file).output().ok()?;
            let s = String::from_utf8_lossy(&o.stdout).to_string();
            let mut w = s.split_whitespace();
            w.find(|&x| x == "realTime")?;
            w.next()?.parse().ok()
        })
        .min()
}

/// Trencher's answer and time as a process (best of `runs`).
fn trencher(bin: &Path, flag: &str, file: &Path, runs: usize) -> (Duration, String) {
    best(runs, || {
        let out = Command::new(bin).arg(flag).arg(file).output();
        match out {
            Ok(o) if o.status.success() => {
                let s = String::from_utf8_lossy(&o.stdout).to_string();
                if flag == "-r" {
                    if s.contains("NOT robust") { "not robust" } else { "robust" }.to_string()
                } else {
                    s.split('(').nth(1).and_then(|x| x.split_whitespace().next()).unwrap_or("?").to_string()
                }
            }
            Ok(o) => format!("crash ({})", o.status.code().map_or("signal".into(), |c| c.to_string())),
            Err(e) => format!("error: {e}"),
        }
    })
}

fn main() {
    let runs: usize = std::env::var("UNBOUNDED_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tbin = std::env::var("TRENCHER").ok().map(PathBuf::from).filter(|p| p.is_file());
    let texamples = std::env::var("TRENCHER_EXAMPLES")
        .ok()
        .map(PathBuf::from)
        .or_else(|| tbin.as_ref().and_then(|b| b.parent()?.parent()?.parent().map(|d| d.join("examples"))));
    let litmus = std::env::var("LITMUS").map(PathBuf::from).unwrap_or_else(|_| root.join("target/release/litmus"));
    let litmus = litmus.is_file().then_some(litmus);
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["examples/trencher", "examples/trencher/memorax", "examples"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
            .collect();
        v.sort();
        files.extend(v);
    }
    println!(
        "{:<36} {:>11} {:>8} | {:>9} {:>10} {:>8} | {:>8} {:>8} {:>9} | {:>12} {:>9} | {:>8} {:>10} {:>12} {:>10}",
        "program",
        "TSO robust",
        "verdict",
        "states",
        "states/s",
        "B/state",
        "TSO ms",
        "+PSO ms",
        "fences ms",
        "fences",
        "fix (CLI)",
        "tr. alg.",
        "trencher -r",
        "answer",
        "-f ms (n)"
    );
    let (mut total_tso, mut total_fix_cli, mut total_tr, mut total_trf) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let (mut total_verdict, mut total_alg) = (Duration::ZERO, 0u64);
    let (mut faster, mut compared) = (0, 0);
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let Some(prog) = litmus_dsl::analyze(&src).program else { continue };
        let name = f.strip_prefix(&root).unwrap_or(&f).display().to_string().replace("examples/", "");
        let opts = Options::default().with_timeout(Some(Duration::from_secs(20)));
        let limits = StateLimits::default();
        let (t_tso, tso) = best(runs, || unbounded::prove(&prog, &[Model::Tso], &opts, &limits));
        let Ok(tso) = tso else {
            let why = tso.err().map(|s| s.describe()).unwrap_or_default();
            println!("{name:<36} not proved: {why} ({} ms)", ms(t_tso));
            continue;
        };
        let (t_both, _) = best(runs, || unbounded::prove(&prog, &[Model::Sc, Model::Tso, Model::Pso], &opts, &limits));
        // The verdict alone, as Trencher's -r: stop at the first attack.
        let (t_verdict, _) = best(runs, || unbounded::robust(&prog, Model::Tso, &opts, &limits));
        let robust = tso.robustness[0].violations.is_empty();
        let (t_fences, fix) = best(runs, || {
            let mut v = tso.robustness[0].violations.clone();
            fences::minimal_fences(&prog, &[Model::Tso], &tso.attacks, &tso.runs, &mut v, &opts, &limits)
        });
        let texts: usize = fix.fences.iter().map(|f| if f.place == litmus_ir::Place::LoopHead { 2 } else { 1 }).sum();
        let fences = format!("{} ({} in text)", fix.fences.len(), texts);
        let fix_cli = litmus.as_ref().map(|bin| {
            best(runs, || Command::new(bin).args(["fix", "--model", "tso"]).arg(&f).output().map(|_| ()).ok()).0
        });
        total_tso += t_tso;
        if let Some(t) = fix_cli {
            total_fix_cli += t;
        }
        let secs = tso.elapsed.as_secs_f64().max(1e-9);
        let mut line = format!(
            "{name:<36} {:>11} {:>8} | {:>9} {:>10.0} {:>8} | {:>8} {:>8} {:>9} | {:>12} {:>9}",
            if robust { "robust" } else { "not robust" },
            ms(t_verdict),
            tso.states,
            tso.states as f64 / secs,
            tso.bytes / tso.states.max(1),
            ms(t_tso),
            ms(t_both),
            ms(t_fences),
            fences,
            fix_cli.map(ms).unwrap_or_else(|| "-".into())
        );
        if let (Some(bin), Some(dir), Some(orig)) = (&tbin, &texamples, original(&src)) {
            let file = dir.join(&orig);
            if file.is_file() {
                let (tr, answer) = trencher(bin, "-r", &file, runs);
                let (tf, n) = trencher(bin, "-f", &file, runs);
                let alg = trencher_algorithm(bin, &file, runs);
                total_tr += tr;
                total_trf += tf;
                total_verdict += t_verdict;
                total_alg += alg.unwrap_or(0);
                compared += 1;
                // Like for like: litmus's verdict beside Trencher's
                // algorithm time (whole milliseconds: at most one ms more).
                if alg.is_some_and(|a| t_verdict.as_secs_f64() * 1e3 < (a + 1) as f64) {
                    faster += 1;
                }
                let alg = alg.map_or("-".into(), |a| a.to_string());
                line.push_str(&format!(
                    " | {alg:>8} {:>10} {:>12} {:>10}",
                    ms(tr),
                    answer,
                    format!("{} ({n})", ms(tf))
                ));
            }
        }
        println!("{line}");
    }
    println!("\ntotal: litmus robustness (TSO, in process) {} ms", ms(total_tso));
    if total_fix_cli > Duration::ZERO {
        println!("total: litmus fix --model tso (processes) {} ms", ms(total_fix_cli));
    }
    if compared > 0 {
        println!(
            "total on the {compared} programs Trencher answers: litmus verdict {} ms (in process), Trencher's algorithm {} ms (its -b times, whole ms); trencher -r {} ms, -f {} ms (processes); litmus's verdict no slower (within Trencher's millisecond) on {faster}",
            ms(total_verdict),
            total_alg,
            ms(total_tr),
            ms(total_trf)
        );
    }
}
