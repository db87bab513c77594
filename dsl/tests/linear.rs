//! The frontend is linear: each large input of the bench (thousands of
//! diagnostics to render, 2 MB of declarations or statements, a million
//! nested parentheses, errors on a very long line) is analysed and rendered
//! well within a bound a quadratic path would blow (before, these took from
//! a second to over two minutes; now each takes well under one in a release
//! build). The bound is generous for a loaded CI machine, and a case that
//! exceeds it fails at once instead of running on.

#[path = "../benches/inputs/mod.rs"]
mod inputs;

use std::sync::mpsc;
use std::time::{Duration, Instant};

#[test]
fn large_inputs_are_analysed_and_rendered_in_linear_time() {
    let bound = Duration::from_secs(if cfg!(debug_assertions) { 60 } else { 5 });
    for (name, src) in inputs::large() {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let t = Instant::now();
            let a = litmus_dsl::analyze(&src);
            let out = litmus_dsl::diagnostic::render(&a.diagnostics, "large.litmus", &src, false);
            let _ = tx.send((t.elapsed(), src.len(), a.diagnostics.len(), out.len()));
        });
        let Ok((took, len, diags, rendered)) = rx.recv_timeout(bound) else {
            panic!("{name}: not done within {bound:?}");
        };
        assert!(took < bound, "{name}: {took:?} (bound {bound:?})");
        // Rendered text stays linear too: source lines are shown within a
        // budget, and each diagnostic adds a few lines of its own.
        assert!(rendered <= 3 * len + (1 << 20) + 1024 * diags, "{name}: {rendered} bytes rendered");
    }
}
