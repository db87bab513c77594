//! `litmus run` on this machine (run: `cargo bench -p litmus-hardware --bench
//! hardware [-- FILE… --iterations N]`). Per program: runs per second, how
//! often the final condition held (per million runs: for SB, MP, IRIW and
//! R their relaxed outcome), and the histogram of final states with what
//! SC and TSO allow.

use litmus_checker::explore::explore;
use litmus_checker::machine::Model;
use litmus_checker::Options;
use litmus_hardware::{self as hardware, Placement, Settings};
use std::path::{Path, PathBuf};

/// The programs and how many runs each gets by default.
const DEFAULT: [(&str, u64); 8] = [
    ("examples/sb.litmus", 1_000_000),
    ("examples/mp.litmus", 1_000_000),
    ("examples/iriw.litmus", 100_000),
    ("tests/corpus/herd-x86/catalogue__x86__tests__SB.litmus", 1_000_000),
    ("tests/corpus/herd-x86/catalogue__x86__tests__SB+mfences.litmus", 1_000_000),
    ("tests/corpus/herd-x86/catalogue__x86__tests__R.litmus", 1_000_000),
    ("tests/corpus/herd-x86/catalogue__x86__tests__2+2W.litmus", 1_000_000),
    ("tests/corpus/herd-x86/doc__podrw000.litmus", 1_000_000),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let iterations: Option<u64> =
        args.iter().position(|a| a == "--iterations").and_then(|i| args.get(i + 1)).and_then(|n| n.parse().ok());
    let files: Vec<PathBuf> = args.iter().filter(|a| a.ends_with(".litmus")).map(PathBuf::from).collect::<Vec<_>>();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let jobs: Vec<(PathBuf, u64)> = if files.is_empty() {
        DEFAULT.iter().map(|(f, n)| (root.join(f), iterations.unwrap_or(*n))).collect()
    } else {
        files.into_iter().map(|f| (f, iterations.unwrap_or(100_000))).collect()
    };
    println!("{:<28} {:>9} {:>8} {:>11} {:>13}  placement", "program", "runs", "seconds", "runs/s", "cond per 1M");
    let mut histograms = Vec::new();
    for (path, n) in jobs {
        let name = path.file_stem().unwrap().to_string_lossy().replace("catalogue__x86__tests__", "");
        let src = std::fs::read_to_string(&path).unwrap();
        let Some(p) = litmus_dsl::analyze(&src).program else {
            println!("{name}: does not analyse");
            continue;
        };
        let o = hardware::run(&p, &Settings { iterations: n, ..Settings::default() });
        let place = match &o.placement {
            Placement::Pinned(c) => format!("pinned {c:?}"),
            Placement::Unpinned { cores, .. } => format!("unpinned ({} threads, {cores} cores)", p.threads.len()),
        };
        let per_million = o.satisfying() as f64 * 1e6 / o.runs.max(1) as f64;
        println!(
            "{:<28} {:>9} {:>8.2} {:>11.0} {:>13.1}  {place}",
            name,
            o.runs,
            o.elapsed.as_secs_f64(),
            o.per_second(),
            per_million
        );
        histograms.push((name, p, o));
    }
    for (name, p, o) in &histograms {
        let opts = Options::default();
        let sc = explore(p, Model::Sc, &opts);
        let tso = explore(p, Model::Tso, &opts);
        println!("\n{name} ({}):", p.condition.as_ref().map_or(String::new(), |c| c.text.clone()));
        for (v, c) in &o.states {
            let mark = |m: Option<bool>, w: &str| match m {
                Some(true) => w.to_string(),
                Some(false) => "-".to_string(),
                None => "?".to_string(),
            };
            println!(
                "  {} {:<40} {:>9}  {:>3} {:>3}",
                if c.satisfies == Some(true) { "*" } else { " " },
                hardware::show_state(p, v),
                c.runs,
                mark(hardware::allows(&sc, v), "SC"),
                mark(hardware::allows(&tso, v), "TSO")
            );
        }
    }
}
