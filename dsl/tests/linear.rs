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

/// Runs `f` on a thread; fails at once past `bound` instead of running on.
fn within<T: Send + 'static>(name: &str, bound: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(bound).unwrap_or_else(|_| panic!("{name}: not done within {bound:?}"))
}

/// Issue 43: where fences may go was asked statement by statement, each
/// question scanning every thread's ranges: 80,000 straight-line stores
/// took 5 s before any check began (and `--timeout` waited for it). Now
/// one pass answers for every statement.
#[test]
fn where_fences_go_is_found_in_linear_time() {
    let bound = Duration::from_secs(if cfg!(debug_assertions) { 60 } else { 5 });
    let mut src = String::from("litmus Big\nshared x = 0;\nshared y = 0;\nthread P0 {\n");
    for i in 0..120_000 {
        src.push_str(&format!("  x = {};\n", i % 7));
    }
    src.push_str("  let r = y;\n}\nthread P1 {\n  y = 1;\n  let s = x;\n}\n");
    let n = within("fence places", bound, move || {
        let p = litmus_dsl::analyze(&src).program.expect("it lowers");
        let groups = litmus_dsl::fence_ir::fence_groups(&p, litmus_dsl::ir::Place::After);
        let places = p.fence_places();
        let ok = (0..p.stmts.len() as u32).filter(|&s| places.fenceable(s)).count();
        // One insertion re-lays the thread once.
        let one = litmus_dsl::edit::FenceInsertion {
            stmt: 5,
            kind: litmus_dsl::FenceKind::Full,
            place: litmus_dsl::ir::Place::After,
        };
        let fenced = litmus_dsl::fence_ir::insert_fences(&p, &[one]);
        assert_eq!(fenced.threads[0].code.len(), p.threads[0].code.len() + 1);
        (groups.len(), ok)
    });
    assert!(n.0 >= 120_000 && n.1 >= 120_000, "{n:?}");
}

/// Issue 43: 19 functions each calling the next twice inline half a million
/// calls (25 s and a gigabyte under `--timeout 5`); the analysis now refuses
/// the call that crosses the limit, at once, with a diagnostic at its span.
#[test]
fn inlining_that_doubles_is_refused_at_once() {
    let bound = Duration::from_secs(if cfg!(debug_assertions) { 60 } else { 5 });
    let mut src = String::from("litmus Inl\nshared x = 0;\nfn f0() { x = 1; }\n");
    for i in 1..=19 {
        src.push_str(&format!("fn f{i}() {{ f{}(); f{}(); }}\n", i - 1, i - 1));
    }
    src.push_str("thread P0 {\n  f19();\n}\nthread P1 {\n  let r = x;\n}\n");
    let text = src.clone();
    let a = within("doubling calls", bound, move || litmus_dsl::analyze(&text));
    let errs: Vec<_> = a.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].code, "E0233");
    assert!(a.program.is_none());
    // The call that crosses the limit: in the function whose two calls
    // together pass it.
    let at = &src[errs[0].span.start..errs[0].span.end];
    assert_eq!(at, "f14", "{:?}", errs[0]);
    // Below the limit, the same shape is fine.
    let small = src.replace("f19();", "f10();");
    let a = litmus_dsl::analyze(&small);
    assert!(a.diagnostics.iter().all(|d| !d.is_error()), "{:?}", a.diagnostics);
}
