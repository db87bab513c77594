//! Whole-suite throughput: a generated diy-style suite (default 10,000
//! tests; `LITMUS_BENCH_FILES`), checked with `litmus check DIR` on one job
//! and on every core, as files per second and peak memory of the process —
//! and the peak at a tenth of the files, to show memory is flat in the
//! number of files (reports stream; only a window waits to be printed).
//!
//!     cargo bench --bench suite

#[path = "../tests/diy/mod.rs"]
mod diy;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn generate(dir: &Path, n: usize) {
    if dir.join(format!("done-{n}")).exists() {
        return;
    }
    let _ = std::fs::remove_dir_all(dir);
    let mut rng = diy::Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..n {
        let t = diy::random(&mut rng, 4);
        let p = dir.join(format!("g{:02}/t{i:05}.litmus", i / 500));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    }
    std::fs::write(dir.join(format!("done-{n}")), "").unwrap();
}

/// Wall seconds and peak resident memory (MiB) of one run.
fn run(args: &[&str], dir: &Path) -> (f64, f64, i32) {
    let t0 = Instant::now();
    // Reaped by wait4 below, which also gives its peak memory.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(env!("CARGO_BIN_EXE_litmus"))
        .args(args)
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    (t0.elapsed().as_secs_f64(), usage.ru_maxrss as f64 / 1024.0, libc::WEXITSTATUS(status))
}

fn main() {
    let n: usize = std::env::var("LITMUS_BENCH_FILES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-suite");
    let (big, small) = (root.join(format!("n{n}")), root.join(format!("n{}", n / 10)));
    generate(&big, n);
    generate(&small, n / 10);
    println!("suite: {n} generated diy-style tests (2–4 threads), models sc,tso,pso; {cores} cores");
    println!("{:>7} {:>6} {:>6} {:>9} {:>10} {:>9}", "files", "format", "jobs", "wall s", "files/s", "peak MiB");
    for (dir, files) in [(&small, n / 10), (&big, n)] {
        for format in ["jsonl", "json"] {
            let mut jobs_list = vec![1, cores];
            jobs_list.dedup();
            for jobs in jobs_list {
                let j = jobs.to_string();
                // One thread per exploration: `--jobs 1` is one core.
                let (wall, mib, code) = run(&["check", "--format", format, "--jobs", &j, "--threads", "1"], dir);
                assert!(code == 0 || code == 1, "exit {code}");
                println!("{files:>7} {format:>6} {jobs:>6} {wall:>9.2} {:>10.0} {mib:>9.1}", files as f64 / wall);
            }
        }
    }
}
