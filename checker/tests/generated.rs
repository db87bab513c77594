//! Property tests on generated programs (with and without awaits and
//! locks): DPOR agrees with the explicit reference under every model, and
//! the SC exploration visits every Mazurkiewicz trace exactly once (against
//! a brute-force enumeration of the machine's interleavings).

mod common;

use litmus_checker::dpor::{Control, Explorer, Limits};
use litmus_checker::explore::explore;
use litmus_checker::machine::{Event, EventKind, Machine, Model, State};
use litmus_checker::options::Options;
use litmus_checker::reference;
use proptest::prelude::*;
use std::collections::{BTreeSet, HashSet};

/// A Mazurkiewicz trace, canonically: each thread's accesses in order, and
/// per cell the accesses in order with runs of reads as sets (reads of one
/// cell commute).
fn trace_key(events: &[Event], cells: usize) -> Vec<Vec<(u16, u32, bool)>> {
    let mut per_thread_index = std::collections::HashMap::<u16, u32>::new();
    let mut per_cell: Vec<Vec<(u16, u32, bool)>> = vec![Vec::new(); cells];
    for e in events {
        if matches!(e.kind, EventKind::Fence(_)) {
            continue;
        }
        let i = per_thread_index.entry(e.thread).or_insert(0);
        per_cell[e.cell as usize].push((e.thread, *i, e.is_write()));
        *i += 1;
    }
    for accesses in &mut per_cell {
        // Sort each maximal run of reads.
        let mut start = 0;
        while start < accesses.len() {
            if accesses[start].2 {
                start += 1;
                continue;
            }
            let mut end = start;
            while end < accesses.len() && !accesses[end].2 {
                end += 1;
            }
            accesses[start..end].sort();
            start = end;
        }
    }
    per_cell
}

/// One execution's trace: per cell, the accesses in coherence order.
type TraceKey = Vec<Vec<(u16, u32, bool)>>;

/// Every SC interleaving, by brute force; the set of traces seen.
fn brute_force_traces(m: &Machine<'_>) -> BTreeSet<TraceKey> {
    fn go(m: &Machine<'_>, st: &State, log: &mut Vec<Event>, out: &mut BTreeSet<TraceKey>) {
        let enabled: Vec<usize> = (0..m.procs()).filter(|&p| m.enabled(st, p)).collect();
        if enabled.is_empty() {
            out.insert(trace_key(log, m.cells));
            return;
        }
        for p in enabled {
            let mut next = st.clone();
            let mark = log.len();
            m.step(&mut next, p, 0, log);
            go(m, &next, log, out);
            log.truncate(mark);
        }
    }
    let mut log = Vec::new();
    let init = m.initial(&mut log);
    let mut out = BTreeSet::new();
    go(m, &init, &mut log, &mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn dpor_agrees_with_reference(threads in common::program(2..5, 1..5, true)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let opts = Options::default();
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            let d = explore(&prog, model, &opts);
            let r = reference::explore(&prog, model, &opts, 5_000_000);
            let ds: Vec<_> = d.states.iter().map(|s| s.values.clone()).collect();
            let rs: Vec<_> = r.states.iter().map(|s| s.values.clone()).collect();
            prop_assert_eq!(ds, rs, "{:?}\n{}", model, src);
            prop_assert_eq!(d.known_observation(), r.observation);
        }
    }

    #[test]
    fn dpor_agrees_with_reference_with_awaits_and_locks(threads in common::blocking_program(2..4, 1..5)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let opts = Options::default();
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            let d = explore(&prog, model, &opts);
            let r = reference::explore(&prog, model, &opts, 5_000_000);
            let ds: Vec<_> = d.states.iter().map(|s| s.values.clone()).collect();
            let rs: Vec<_> = r.states.iter().map(|s| s.values.clone()).collect();
            prop_assert_eq!(ds, rs, "{:?}\n{}", model, src);
            prop_assert_eq!(!d.deadlocks.is_empty(), r.deadlock, "{:?} deadlock\n{}", model, src);
        }
    }

    #[test]
    fn sc_dpor_visits_each_mazurkiewicz_trace_once_with_blocking(threads in common::blocking_program(2..4, 1..4)) {
        each_trace_once(&threads)?;
    }

    #[test]
    fn sc_dpor_visits_each_mazurkiewicz_trace_once(threads in common::program(2..4, 1..5, true)) {
        each_trace_once(&threads)?;
    }
}

/// SC DPOR explores every Mazurkiewicz trace of the program exactly once
/// (against brute-force enumeration).
fn each_trace_once(threads: &[Vec<common::Op>]) -> Result<(), TestCaseError> {
    let src = common::render(threads);
    let prog = common::compile(&src);
    let m = Machine::new(&prog, Model::Sc, 2, 16);
    let expected = brute_force_traces(&m);
    let mut seen = Vec::new();
    let mut ex = Explorer::new(&m);
    ex.run(Limits::default(), |e| {
        seen.push(trace_key(e.events, m.cells));
        Control::Continue
    });
    let distinct: HashSet<_> = seen.iter().cloned().collect();
    prop_assert_eq!(distinct.len(), seen.len(), "a trace was explored twice\n{}", src);
    let seen: BTreeSet<_> = seen.into_iter().collect();
    prop_assert_eq!(seen, expected, "\n{}", src);
    Ok(())
}
