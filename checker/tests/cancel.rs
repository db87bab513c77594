//! The editor cancels a check when the text changes: the flag must stop
//! every phase promptly and mark the report as partial — a minutes-long
//! check stops within 500 ms of the flag, raised early (SC exploration),
//! midway (harm, fences) or late (relaxed outcomes); PSLO's own exploration
//! too.

use litmus_checker::{check_all, Model, MonitorKind, Options};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Minutes of exploration under PSO (tests/programs/slow.litmus).
fn slow_program() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/programs/slow.litmus")).unwrap()
}

#[test]
fn the_cancel_flag_stops_a_long_check_promptly() {
    let src = slow_program();
    let prog = litmus_dsl::analyze(&src).program.expect("clean");
    // Early (SC exploration), middle (harm, fences), late (relaxed outcomes).
    for delay in [20, 300, 1500] {
        cancel_after(&prog, Duration::from_millis(delay), &[Model::Sc, Model::Tso, Model::Pso]);
    }
    // PSLO's robustness comes from its own exploration: stopped as promptly.
    for delay in [20, 300] {
        cancel_after(&prog, Duration::from_millis(delay), &[Model::Sc, Model::Pslo]);
    }
}

fn cancel_after(prog: &litmus_ir::Program, delay: Duration, models: &[Model]) {
    let cancel = Arc::new(AtomicBool::new(false));
    let mut opts = Options::default();
    opts.budget.cancel = Some(cancel.clone());
    let flag = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(delay);
        flag.store(true, Ordering::Relaxed);
        Instant::now()
    });
    let report = check_all(prog, models, MonitorKind::Bss, &opts);
    let stopped = Instant::now();
    let cancelled_at = canceller.join().unwrap();
    assert!(report.cancelled, "the report says it is partial");
    let lag = stopped.saturating_duration_since(cancelled_at);
    assert!(lag < Duration::from_millis(500), "cancelled at {delay:?}, stopped {lag:?} after");
}
