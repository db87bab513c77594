//! The editor cancels a check when the text changes: the flag must stop
//! every phase promptly and mark the report as partial.

use litmus_checker::{check_all, Model, MonitorKind, Options};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Three threads of four store/load pairs over four locations: minutes of
/// exploration under PSO.
fn slow_program() -> String {
    let mut s = String::from("litmus Slow\nshared a = 0;\nshared b = 0;\nshared c = 0;\nshared d = 0;\n");
    let names = ["a", "b", "c", "d"];
    for t in 0..3 {
        s.push_str(&format!("thread P{t} {{\n"));
        for i in 0..4 {
            s.push_str(&format!("  {} = {};\n  let r{i} = {};\n", names[(t + i) % 4], i + 1, names[(t + i + 1) % 4]));
        }
        s.push_str("}\n");
    }
    s
}

#[test]
fn the_cancel_flag_stops_a_long_check_promptly() {
    let src = slow_program();
    let prog = litmus_dsl::analyze(&src).program.expect("clean");
    // Early (SC exploration), middle (harm, fences), late (relaxed outcomes).
    for delay in [20, 300, 1500] {
        cancel_after(&src, &prog, Duration::from_millis(delay));
    }
}

fn cancel_after(src: &str, prog: &litmus_dsl::Program, delay: Duration) {
    let cancel = Arc::new(AtomicBool::new(false));
    let opts = Options { cancel: Some(cancel.clone()), ..Options::default() };
    let flag = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(delay);
        flag.store(true, Ordering::Relaxed);
        Instant::now()
    });
    let report = check_all(prog, Some(src), &[Model::Sc, Model::Tso, Model::Pso], MonitorKind::Bss, &opts);
    let stopped = Instant::now();
    let cancelled_at = canceller.join().unwrap();
    assert!(report.cancelled, "the report says it is partial");
    let lag = stopped.saturating_duration_since(cancelled_at);
    assert!(lag < Duration::from_millis(500), "cancelled at {delay:?}, stopped {lag:?} after");
}
