//! Issue 43: the default worker count costs no more than one worker where
//! a second has nothing useful to do. A robust program's relaxed outcomes
//! are SC's, so exploring them ahead on the other core (as the default did
//! from the start of the check) doubled the CPU time of fenced Peterson
//! and bakery under `--bounded` and, on a busy machine, their wall time.
//! The exploration ahead now starts at the check's first finding.
//!
//! Its own test binary: the CPU time of children is counted per process.

use std::process::Command;

fn children_cpu() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// CPU seconds of `litmus check --bounded` on a harness with these flags.
fn cpu(file: &str, extra: &[&str]) -> f64 {
    let path = format!("{}/checker/benches/harnesses/{file}", env!("CARGO_MANIFEST_DIR"));
    let before = children_cpu();
    let out = Command::new(env!("CARGO_BIN_EXE_litmus"))
        .args(["check", "--bounded", "--model", "tso", "--loop-bound", "5", "--format", "json"])
        .args(extra)
        .arg(path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    children_cpu() - before
}

#[test]
fn a_robust_program_costs_the_default_workers_what_it_costs_one() {
    // Best of three each (scheduling noise only adds).
    let best = |extra: &[&str]| (0..3).map(|_| cpu("peterson_f_k5.litmus", extra)).fold(f64::MAX, f64::min);
    let one = best(&["--threads", "1"]);
    let two = best(&["--threads", "2"]);
    // Before: 0.43 s against 0.24 s.
    assert!(two < one * 1.3 + 0.02, "two workers {two:.3} s of CPU, one {one:.3} s");
}
