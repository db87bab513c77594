//! Spin-loop reduction (`dsl/src/spin.rs`) keeps the meaning of programs:
//! the explicit-state reference explorer finds the same final states and
//! the same failures with the reduction as without it, under every model and
//! loop bounds 1 to 3, on small spin programs and every example with a spin.
//! What changes is coverage: an execution the unreduced
//! loop runs past the loop bound is cut; reduced, the spin makes one attempt
//! and an attempt that cannot succeed is a stuck thread — a deadlock when it
//! waits forever on the final memory. So the reduced search is complete
//! whenever the unreduced one is, and a deadlock only it reports stands
//! where the unreduced search was cut. DPOR equals the reference on the
//! reduced programs, and a reduced Dekker/Peterson harness explores exactly
//! the executions of its `await` twin.

use litmus_checker::explore::explore;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_checker::reference;
use litmus_dsl::{analyze_with, LowerOptions};
use litmus_ir::Program;
use std::path::Path;

#[path = "../benches/common/mutex.rs"]
#[allow(dead_code)]
mod mutex;
use mutex::Style;

fn lowered(src: &str, reduce_spins: bool) -> Program {
    lowered_with(src, LowerOptions { reduce_spins, ..LowerOptions::default() })
}

fn lowered_with(src: &str, opts: LowerOptions) -> Program {
    let a = analyze_with(src, opts);
    assert!(!a.has_errors(), "{:?}", a.diagnostics);
    a.program.unwrap()
}

/// Compare the two lowerings of `src` under every model; the differences, as text.
fn compare(name: &str, src: &str, bounds: &[u32]) -> Vec<String> {
    compare_with(name, src, bounds, LowerOptions::default())
}

fn compare_with(name: &str, src: &str, bounds: &[u32], opts: LowerOptions) -> Vec<String> {
    let (reduced, plain) = (lowered_with(src, opts), lowered(src, false));
    assert!(!reduced.spins.is_empty(), "{name}: no spin loop reduced");
    let mut bad = Vec::new();
    for &lb in bounds {
        let opts = Options { loop_bound: lb, ..Options::default() };
        for model in [Model::Sc, Model::Tso, Model::Pso, Model::Pslo] {
            let cap = if model == Model::Pslo { 200_000 } else { 2_000_000 };
            let r = reference::explore(&reduced, model, &opts, cap);
            let p = reference::explore(&plain, model, &opts, cap);
            if r.visited >= cap || p.visited >= cap {
                continue;
            }
            let values =
                |o: &reference::ReferenceOutcome| o.states.iter().map(|s| s.values.clone()).collect::<Vec<_>>();
            let what = format!("{name} {model:?} loop bound {lb}");
            if values(&r) != values(&p) {
                bad.push(format!("{what}: final states {:?} reduced, {:?} as written", values(&r), values(&p)));
            }
            if r.failures != p.failures {
                bad.push(format!("{what}: failures {:?} reduced, {:?} as written", r.failures, p.failures));
            }
            if p.complete && !r.complete {
                bad.push(format!("{what}: complete as written, not reduced"));
            }
            if r.deadlock && !p.deadlock && p.complete {
                bad.push(format!("{what}: a deadlock only reduced, where the unreduced search was complete"));
            }
            if p.deadlock && !r.deadlock {
                bad.push(format!("{what}: a deadlock as written, none reduced"));
            }
            // The explorer the checker runs agrees with the reference on the reduced program.
            let d = explore(&reduced, model, &opts);
            let ds: Vec<_> = d.states.iter().map(|s| s.values.clone()).collect();
            let df: Vec<_> = d.failures.iter().map(|f| (f.thread, f.stmt, f.kind)).collect();
            if ds != values(&r)
                || df != r.failures
                || d.complete() != r.complete
                || d.deadlocks.is_empty() == r.deadlock
            {
                bad.push(format!("{what}: DPOR differs from the reference on the reduced program"));
            }
        }
    }
    bad
}

fn thread(name: &str, body: &str) -> String {
    format!("thread {name} {{\n{body}\n}}\n")
}

/// Small programs around spins: reads of several cells, branches in the
/// body, spins that can never exit, spins in a bounded outer loop, a body
/// that can divide by zero, message passing under PSLO.
fn programs() -> Vec<(String, String)> {
    let head = "litmus T\nshared x = 0;\nshared y = 0;\nshared z = 0;\nshared a[2] = {1, 0};\n";
    let cases = [
        ("mp", thread("P0", "x = 1;\ny = 1;"), thread("P1", "let f = y;\nwhile (f == 0) { f = y; }\nlet r = x;")),
        (
            "mp-fenced",
            thread("P0", "x = 1;\nfence;\ny = 1;"),
            thread("P1", "while (y == 0) { }\nfence rr;\nlet r = x;"),
        ),
        (
            "two-cells",
            thread("P0", "x = 1;\nz = 2;\ny = 1;"),
            thread("P1", "let f = y;\nlet g = z;\nwhile (f == 0 || g == 0) { f = y; g = z; }\nlet r = x;"),
        ),
        (
            "branchy-body",
            thread("P0", "x = 2;\ny = 1;\nx = 0;"),
            thread("P1", "let f = 0;\nwhile (f == 0) { if (x == 2) { f = y; } else { f = x + y; } }\nlet r = f;"),
        ),
        ("never-exits", thread("P0", "x = 1;"), thread("P1", "let f = y;\nwhile (f == 0) { f = y; }\nlet r = x;")),
        ("exits-once", thread("P0", "y = 1;\ny = 0;"), thread("P1", "let f = y;\nwhile (f == 0) { f = y; }\nx = 1;")),
        (
            "outer-loop",
            thread("P0", "for k in 0..2 {\n  x = k + 1;\n  let t = y;\n  while (t != k + 1) { t = y; }\n}"),
            thread("P1", "for k in 0..2 {\n  let s = x;\n  while (s != k + 1) { s = x; }\n  y = k + 1;\n}"),
        ),
        (
            "division",
            thread("P0", "z = 1;\ny = 1;"),
            thread("P1", "let f = 0;\nlet d = 0;\nwhile (f == 0) { d = 4 / z; f = y; }\nx = d;"),
        ),
        (
            "indexed",
            thread("P0", "z = 1;\nz = 3;\ny = 1;"),
            thread("P1", "let f = 0;\nwhile (f == 0) { let i = z; f = a[i]; f = f + y; }\nx = f;"),
        ),
        (
            "first-check-apart",
            thread("P0", "x = 1;\ny = 1;"),
            thread("P1", "let f = x;\nwhile (f == 1) { f = y; }\nlet r = f;"),
        ),
        (
            "both-wait",
            thread("P0", "x = 1;\nlet f = y;\nwhile (f == 0) { f = y; }\nz = 1;"),
            thread("P1", "y = 1;\nlet g = x;\nwhile (g == 0) { g = x; }\nlet r = z;"),
        ),
    ];
    cases
        .into_iter()
        .map(|(name, p0, p1)| (name.to_string(), format!("{head}{p0}{p1}exists (P1:r == 0);\n")))
        .map(|(n, s)| {
            if n == "outer-loop" || n == "division" || n == "indexed" || n == "exits-once" || n == "both-wait" {
                (n, s.replace("exists (P1:r == 0);\n", ""))
            } else {
                (n, s)
            }
        })
        .collect()
}

#[test]
fn reduction_keeps_final_states_and_failures_on_small_programs() {
    let mut bad = Vec::new();
    for (name, src) in programs() {
        bad.extend(compare(&name, &src, &[1, 2, 3]));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Loops that only read but carry a register from one iteration to the
/// next (a counter; a flag set on some iterations, read after the loop).
fn carrying() -> Vec<(String, String)> {
    let head = "litmus T\nshared x = 0;\nshared y = 0;\n";
    let writer = thread("P0", "x = 1;\nx = 0;\ny = 1;");
    [
        ("counter", "let n = 0;\nlet f = y;\nwhile (f == 0) { n = n + 1; f = y; }", "exists (P1:n == 2);"),
        ("flag", "let r = 0;\nlet f = y;\nwhile (f == 0) { f = y; if (x == 1) { r = 1; } }", "exists (P1:r == 1);"),
    ]
    .into_iter()
    .map(|(name, body, cond)| (name.to_string(), format!("{head}{writer}{}{cond}\n", thread("P1", body))))
    .collect()
}

#[test]
fn loops_carrying_registers_are_not_reduced_and_the_comparison_would_catch_it() {
    for (name, src) in carrying() {
        assert!(lowered(&src, true).spins.is_empty(), "{name} was reduced");
        // Reduced anyway (the register conditions skipped), the final states differ.
        let wrong = LowerOptions { unchecked_spins: true, ..LowerOptions::default() };
        assert!(!compare_with(&name, &src, &[2], wrong).is_empty(), "{name}: a wrong reduction went unnoticed");
    }
}

#[test]
fn reduction_keeps_final_states_and_failures_on_the_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut bad = Vec::new();
    let mut with_spins = 0;
    for e in std::fs::read_dir(&root).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "litmus") {
            continue;
        }
        let src = std::fs::read_to_string(&p).unwrap();
        if lowered(&src, true).spins.is_empty() {
            continue;
        }
        with_spins += 1;
        bad.extend(compare(&p.display().to_string(), &src, &[1, 2]));
    }
    assert!(with_spins >= 1, "no example has a spin loop");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_spin_that_never_exits_is_a_deadlock_not_a_cut() {
    let src = format!(
        "litmus T\nshared x = 0;\nshared y = 0;\n{}{}",
        thread("P0", "x = 1;"),
        thread("P1", "let f = y;\nwhile (f == 0) { f = y; }")
    );
    let opts = Options::default();
    let reduced = explore(&lowered(&src, true), Model::Sc, &opts);
    assert!(reduced.complete(), "the reduced search is complete");
    assert!(!reduced.deadlocks.is_empty(), "the spin waits forever: a deadlock with its witness");
    let plain = explore(&lowered(&src, false), Model::Sc, &opts);
    assert!(!plain.complete() && plain.deadlocks.is_empty(), "as written, the loop bound cuts it");
}

#[test]
fn the_mutex_spin_harnesses_explore_as_their_await_twins() {
    // Two entries each, the outer loop a counted `for`: each reduced spin is
    // one attempt, as an `await` is, so the executions are the same.
    let opts = Options { loop_bound: 1, ..Options::default() };
    let harnesses: [fn(u32, Style) -> String; 2] = [mutex::dekker, mutex::peterson];
    for make in harnesses {
        let run = |style| explore(&lowered(&make(2, style), true), Model::Sc, &opts);
        let (spin, wait) = (run(Style::Spin), run(Style::Await));
        assert!(spin.complete() && spin.failures.is_empty() && spin.deadlocks.is_empty());
        assert_eq!(spin.stats.executions, wait.stats.executions);
        // As written, the spins are cut by the loop bound.
        let plain = explore(&lowered(&make(2, Style::Spin), false), Model::Sc, &opts);
        assert!(!plain.complete());
    }
}
