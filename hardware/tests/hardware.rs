//! Running programs on the CPU (`hardware`): only what cannot flake. Every
//! observed final state and failure is one x86-TSO's exploration has (on
//! x86-64; elsewhere the runner's orderings allow no more than TSO either),
//! on the examples, the corpus and generated programs with atomics, awaits,
//! locks and spin loops; the loop bound, spin limit and time limit end runs
//! as documented (as the explorer's bounds do); atomics on one thread equal
//! the explorer; recorded histories parse, write each value once and read
//! only written or initial values; programs that cannot be recorded are
//! refused.

#[path = "../../checker/tests/common/mod.rs"]
mod common;

use litmus_checker::explore::explore;
use litmus_checker::machine::{FailureKind, Model};
use litmus_checker::{ModelOutcome, Options};
use litmus_hardware::{self as hardware, record, Placement, RunOutcome, Settings, Where};
use litmus_ir::Program;
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One run at a time: two would share the two cores and mostly wait.
static CPU: Mutex<()> = Mutex::new(());

fn cpu() -> std::sync::MutexGuard<'static, ()> {
    CPU.lock().unwrap_or_else(|e| e.into_inner())
}

fn load(rel: &str) -> Program {
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)).unwrap();
    common::compile(&src)
}

fn settings(iterations: u64) -> Settings {
    Settings { iterations, batch: 500, time_limit: Duration::from_secs(20), ..Settings::default() }
}

fn tso(p: &Program) -> ModelOutcome {
    explore(p, Model::Tso, &Options::default())
}

/// Every observed state and failure is one TSO's (finished) exploration has.
fn assert_within_tso(name: &str, p: &Program, o: &hardware::Observed) {
    let t = tso(p);
    for v in o.states.keys() {
        assert_eq!(
            hardware::allows(&t, v),
            Some(true),
            "{name}: observed {} that TSO does not allow",
            hardware::show_state(p, v)
        );
    }
    for &(_, stmt, kind) in o.failures.keys() {
        assert_eq!(hardware::allows_failure(&t, stmt, kind), Some(true), "{name}: {kind:?} at {stmt}");
    }
}

#[test]
fn observed_states_are_allowed_by_tso() {
    let _cpu = cpu();
    let files = [
        ("examples/sb.litmus", 3000),
        ("examples/mp.litmus", 3000),
        ("examples/iriw.litmus", 500),
        ("examples/mp-xchg.litmus", 2000),
        ("examples/sb-fences.litmus", 2000),
        ("tests/corpus/herd-x86/catalogue__x86__tests__SB.litmus", 2000),
        ("tests/corpus/herd-x86/catalogue__x86__tests__MP.litmus", 2000),
        ("tests/corpus/herd-x86/catalogue__x86__tests__SB+mfences.litmus", 2000),
        ("tests/corpus/herd-x86/catalogue__x86__tests__R.litmus", 2000),
        ("tests/corpus/herd-x86/catalogue__x86__tests__2+2W.litmus", 2000),
        ("tests/corpus/herd-x86/doc__iriw.litmus", 500),
        ("tests/corpus/herd-x86/herd__tests__instructions__X86_64__A000.litmus", 1000),
    ];
    for (rel, n) in files {
        let p = load(rel);
        let o = hardware::run(&p, &settings(n));
        assert_eq!(o.runs, n, "{rel}");
        assert_eq!(o.ends.complete, n, "{rel}: loop-free programs always finish");
        assert!(o.stopped.is_none(), "{rel}");
        assert_within_tso(rel, &p, &o);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Generated programs (atomics, fences, branches, awaits, locks, spin
    /// loops): whatever the CPU shows, TSO allows, and a run ends only in
    /// ways the explorer knows.
    #[test]
    fn generated_programs_stay_within_tso(threads in common::blocking_program(2..3, 1..5)) {
        let _cpu = cpu();
        let src = common::render(&threads);
        let p = common::compile(&src);
        let s = Settings { spin_limit: 2000, ..settings(300) };
        let o = hardware::run(&p, &s);
        prop_assert!(o.stopped.is_none(), "{src}");
        let t = tso(&p);
        for v in o.states.keys() {
            prop_assert_eq!(hardware::allows(&t, v), Some(true), "{}\nobserved {}", src, hardware::show_state(&p, v));
        }
        for &(_, stmt, kind) in o.failures.keys() {
            prop_assert_eq!(hardware::allows_failure(&t, stmt, kind), Some(true), "{}\n{:?}", src, kind);
        }
    }
}

const SPIN: &str = "litmus Spin\nshared x = 0;\nshared y = 0;\n\
    thread P0 {\n  await (x == 1);\n  y = 1;\n}\n\
    thread P1 {\n  let r = y;\n}\n\
    exists (P1:r == 1);\n";

#[test]
fn a_spinning_await_stops_at_the_time_limit() {
    let _cpu = cpu();
    let p = common::compile(SPIN);
    let s = Settings { spin_limit: u64::MAX, time_limit: Duration::from_millis(300), ..settings(10_000) };
    let t0 = Instant::now();
    let o = hardware::run(&p, &s);
    assert!(t0.elapsed() < Duration::from_secs(5), "took {:?}", t0.elapsed());
    let stopped = o.stopped.expect("the time limit stops it");
    assert_eq!(stopped.batch, 1);
    assert_eq!(o.runs, 0);
    let await_stmt = p.stmts.iter().position(|s| s.text.starts_with("await")).unwrap() as u32;
    assert_eq!(stopped.threads[0], Where::Spinning(await_stmt));
    assert_eq!(stopped.threads[1], Where::Barrier);
}

#[test]
fn an_await_past_the_spin_limit_is_a_stuck_run() {
    let _cpu = cpu();
    let p = common::compile(SPIN);
    let o = hardware::run(&p, &Settings { spin_limit: 50, ..settings(200) });
    assert!(o.stopped.is_none());
    assert_eq!((o.runs, o.ends.stuck, o.ends.complete), (200, 200, 0));
    assert_eq!(o.stuck_at.values().sum::<u64>(), 200);
    assert!(o.states.is_empty());
}

#[test]
fn the_loop_bound_cuts_runs_as_it_cuts_executions() {
    let _cpu = cpu();
    let src = "litmus Loop\nshared x = 0;\n\
        thread P0 {\n  let i = 0;\n  while (i < 3) {\n    i = i + 1;\n  }\n  x = i;\n}\n\
        thread P1 {\n  let r = x;\n}\n\
        exists (x == 3);\n";
    let p = common::compile(src);
    let o = hardware::run(&p, &Settings { loop_bound: 2, ..settings(100) });
    assert_eq!((o.ends.cut, o.ends.complete), (100, 0));
    let o = hardware::run(&p, &Settings { loop_bound: 3, ..settings(100) });
    assert_eq!((o.ends.cut, o.ends.complete), (0, 100));
    assert_eq!(o.satisfying(), 100);
}

#[test]
fn failing_assertions_and_assumes_end_runs() {
    let _cpu = cpu();
    let src = "litmus Fail\nshared x = 0;\n\
        thread P0 {\n  let r = x;\n  assert (r == 1);\n}\n\
        thread P1 {\n  let s = x;\n  assume (s == 1);\n}\n";
    let p = common::compile(src);
    let o = hardware::run(&p, &settings(100));
    assert_eq!((o.ends.failed, o.ends.complete), (100, 0));
    let ((t, _, kind), n) = o.failures.iter().next().unwrap();
    assert_eq!((*t, *kind, *n), (0, FailureKind::Assertion, 100));
}

#[test]
fn atomics_follow_the_explorer_on_one_thread() {
    let _cpu = cpu();
    let src = "litmus Atomics\nshared x = 0;\nshared m = 0;\n\
        thread P0 {\n  x = 5;\n  let a = fetch_add(x, 2);\n  let b = cas(x, 7, 9);\n  let c = cas(x, 1, 2);\n\
          let d = xchg(x, 4);\n  lock(m);\n  fence;\n  fence ww;\n  let e = x;\n}\n\
        exists (P0:a == 5 && P0:b == 7 && P0:c == 9 && P0:d == 9 && P0:e == 4 && x == 4 && m == 1);\n";
    let p = common::compile(src);
    let sc = explore(&p, Model::Sc, &Options::default());
    assert_eq!(sc.states.len(), 1);
    let mut texts = Vec::new();
    let o = hardware::run_with(&p, &Settings { record: true, ..settings(20) }, |run| {
        texts.push(record::history(&p, run, "atomics").unwrap());
        Ok::<(), ()>(())
    })
    .unwrap();
    assert_eq!(o.satisfying(), 20);
    assert_eq!(o.states.keys().next(), Some(&sc.states[0].values));
    // A CAS that failed wrote nothing: a read between fences.
    assert!(
        texts[0].contains("P0: W(x,5) RMW(x,5,7) RMW(x,7,9) F R(x,9) F RMW(x,9,4) RMW(m,0,1) F R(x,4)\n"),
        "{}",
        texts[0]
    );
}

/// An operation: kind (`R`, `W`, `M` for RMW, `F`), location, values.
type HistOp = (char, String, i64, i64);

/// A small reader of the history text format: per thread, its operations.
fn parse_history(text: &str) -> Result<Vec<(String, Vec<HistOp>)>, String> {
    let mut threads = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap().trim();
        if line.is_empty() || line.starts_with("init:") {
            continue;
        }
        let (name, ops) = line.split_once(':').ok_or(format!("no `:` in {line:?}"))?;
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("bad thread name {name:?}"));
        }
        let mut v = Vec::new();
        for op in ops.split_whitespace() {
            if op == "F" {
                v.push(('F', String::new(), 0, 0));
                continue;
            }
            let (kind, rest) = op.split_once('(').ok_or(format!("bad op {op:?}"))?;
            let args: Vec<&str> = rest.strip_suffix(')').ok_or(format!("bad op {op:?}"))?.split(',').collect();
            let num = |s: &str| s.parse::<i64>().map_err(|_| format!("bad value in {op:?}"));
            match (kind, args.as_slice()) {
                ("R", [l, v1]) => v.push(('R', l.to_string(), num(v1)?, 0)),
                ("W", [l, v1]) => v.push(('W', l.to_string(), num(v1)?, 0)),
                ("RMW", [l, r, w]) => v.push(('M', l.to_string(), num(r)?, num(w)?)),
                _ => return Err(format!("bad op {op:?}")),
            }
        }
        threads.push((name.to_string(), v));
    }
    Ok(threads)
}

/// Well formed: parses; each value written at most once per location and
/// never the initial one; every read sees a written value or the initial one.
fn assert_well_formed(p: &Program, text: &str) {
    let threads = parse_history(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(threads.len(), p.threads.len(), "{text}");
    let init = |loc: &str| p.location(loc).map_or(0, |l| p.init[l.base as usize]);
    let mut written: HashMap<(String, i64), ()> = HashMap::new();
    for (_, ops) in &threads {
        for (k, loc, a, b) in ops {
            let w = match k {
                'W' => Some(*a),
                'M' => Some(*b),
                _ => None,
            };
            if let Some(w) = w {
                assert_ne!(w, init(loc), "{text}");
                assert!(written.insert((loc.clone(), w), ()).is_none(), "{loc} written {w} twice:\n{text}");
            }
        }
    }
    for (_, ops) in &threads {
        for (k, loc, a, _) in ops {
            if matches!(k, 'R' | 'M') {
                assert!(*a == init(loc) || written.contains_key(&(loc.clone(), *a)), "read of {a} unwritten:\n{text}");
            }
        }
    }
}

#[test]
fn recorded_histories_are_well_formed() {
    let _cpu = cpu();
    for (rel, n) in [
        ("examples/sb.litmus", 300),
        ("examples/mp-xchg.litmus", 300),
        ("examples/mp-await.litmus", 300),
        ("examples/iriw.litmus", 50),
        ("tests/corpus/herd-x86/catalogue__x86__tests__SB+mfences.litmus", 300),
        ("tests/corpus/herd-x86/catalogue__x86__tests__2+2W.litmus", 300),
    ] {
        let p = load(rel);
        record::check_program(&p).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let mut count = 0;
        let o = hardware::run_with(&p, &Settings { record: true, ..settings(n) }, |run| {
            assert_eq!(run.index, count);
            count += 1;
            let text = record::history(&p, run, rel).unwrap();
            assert!(text.starts_with(&format!("# {rel}\n# run {} ", run.index)), "{text}");
            if let RunOutcome::Final { values, .. } = &run.outcome {
                assert!(text.contains(&hardware::show_state(&p, values)), "{text}");
            }
            assert_well_formed(&p, &text);
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!((o.runs, count), (n, n), "{rel}");
    }
}

#[test]
fn programs_whose_writes_repeat_a_value_are_refused() {
    let msg = |src: &str| record::check_program(&common::compile(src)).unwrap_err().to_string();
    // unlock writes 0, the lock's initial value.
    let e =
        msg(&std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/spinlock.litmus"))
            .unwrap());
    assert!(e.contains("`m` is written 0, its initial value"), "{e}");
    let e = msg("litmus T\nshared x = 0;\nthread P0 { x = 1; }\nthread P1 { x = 1; }\n");
    assert!(e.contains("`x` is written 1 by P0 line 3") && e.contains("and by P1 line 4"), "{e}");
    let e = msg(
        "litmus L\nshared x = 0;\nthread P0 {\n  let i = 0;\n  while (i < 2) {\n    x = 1;\n    i = i + 1;\n  }\n}\n",
    );
    assert!(e.contains("`x` is written 1 in a loop by P0 line 6"), "{e}");
}

#[test]
fn a_run_that_writes_a_value_twice_has_no_history() {
    let _cpu = cpu();
    // Statically unknown (a register's value), and always 1: a duplicate.
    let p = common::compile(
        "litmus D\nshared x = 0;\nshared y = 0;\nthread P0 { let r = y; x = r + 1; }\nthread P1 { x = 1; }\n",
    );
    record::check_program(&p).unwrap();
    let r = hardware::run_with(&p, &Settings { record: true, ..settings(10) }, |run| {
        record::history(&p, run, "d").map(drop)
    });
    let e = r.unwrap_err().to_string();
    assert!(e.starts_with("cannot record run 0: `x` was written 1 by"), "{e}");
}

#[test]
fn allowed_means_explored_and_found_forbidden_means_explored_and_absent() {
    let p = load("examples/sb.litmus");
    let both_zero = vec![0, 0];
    let sc = explore(&p, Model::Sc, &Options::default());
    assert_eq!(hardware::allows(&tso(&p), &both_zero), Some(true));
    assert_eq!(hardware::allows(&sc, &both_zero), Some(false));
    // A stopped exploration cannot say a state is forbidden.
    let stopped = explore(&p, Model::Sc, &Options::default().cancel_after_polls(0));
    assert!(!stopped.coverage.finished());
    assert_eq!(hardware::allows(&stopped, &both_zero), None);
}

#[test]
fn threads_are_pinned_to_distinct_cores_when_there_are_enough() {
    let _cpu = cpu();
    let p = load("examples/sb.litmus");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let o = hardware::run(&p, &settings(10));
    match o.placement {
        Placement::Pinned(c) => {
            assert_eq!(c.len(), 2);
            assert_ne!(c[0], c[1]);
        }
        Placement::Unpinned { .. } => assert!(cores < 2, "{:?}", o.placement),
    }
    let o = hardware::run(&load("examples/iriw.litmus"), &settings(10));
    if cores < 4 {
        assert!(matches!(o.placement, Placement::Unpinned { .. }));
    }
    assert_eq!(o.ends.complete, 10);
}
