//! The values each load may read, as recorded by the explorers, equal a
//! brute-force oracle: every interleaving of the machine (memoised on the
//! reference explorer's canonical states), keeping the loads of each path
//! that ends in a non-pruned maximal state — with every `await`/`lock`
//! attempt run (the monitored SC exploration), or with failing ones left
//! waiting and read at the end (the outcome explorations). Interleaving DPOR (SC, TSO,
//! PSO, PSLO) and the graph explorer (SC, TSO, PSO; 1 and 3 workers) both,
//! on the examples, the corpus and generated programs (with awaits, locks
//! and spins).

mod common;

use common::Op;
use litmus_checker::dpor::ExecKind;
use litmus_checker::dpor::NoListener;
use litmus_checker::explore::{explore, explore_listened};
use litmus_checker::machine::{Event, EventKind, Machine, Model, State};
use litmus_checker::options::Options;
use litmus_checker::reads::Reads;
use litmus_checker::{reference, ExplorerKind};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

type Set = BTreeSet<(u32, u32, i64)>;

/// The loads (statement, cell, value) of every path from `st` to a
/// non-pruned end; `None` if every path from it is pruned. `None` overall
/// when more than `budget` states would be needed. `waits`: an attempt at an
/// await or lock that would fail does not run (its thread waits), and a
/// thread waiting at the end reads there (as DPOR's outcome explorations
/// run, `Limits::waits_block`).
fn reach(
    m: &Machine<'_>,
    st: &State,
    waits: bool,
    memo: &mut HashMap<State, Option<Rc<Set>>>,
    budget: usize,
) -> Option<Option<Rc<Set>>> {
    let key = reference::canonical(st);
    if let Some(r) = memo.get(&key) {
        return Some(r.clone());
    }
    if memo.len() >= budget {
        return None;
    }
    let enabled: Vec<usize> = (0..m.procs()).filter(|&p| m.enabled(st, p) && !(waits && m.gated(st, p))).collect();
    let out = if enabled.is_empty() {
        (ExecKind::of(m, st) != ExecKind::Pruned).then(|| {
            let mut end = Set::new();
            for t in (0..m.threads).filter(|_| waits) {
                m.attempt_reads(st, t, |stmt, cell, v| {
                    end.insert((stmt, cell, v));
                });
            }
            Rc::new(end)
        })
    } else {
        let mut acc: Option<Set> = None;
        for p in enabled {
            let mut next = st.clone();
            let mut log: Vec<Event> = Vec::new();
            m.step(&mut next, p, 0, &mut log);
            if let Some(rest) = reach(m, &next, waits, memo, budget)? {
                let a = acc.get_or_insert_with(Set::new);
                a.extend(rest.iter().copied());
                a.extend(log.iter().filter(|e| e.kind == EventKind::Load).map(|e| (e.stmt, e.cell, e.value)));
            }
        }
        acc.map(Rc::new)
    };
    memo.insert(key, out.clone());
    Some(out)
}

fn oracle(prog: &litmus_ir::Program, model: Model, opts: &Options, waits: bool, budget: usize) -> Option<Set> {
    let m = Machine::new(prog, model, opts.loop_bound, opts.buffer_bound);
    let mut log = Vec::new();
    let init = m.initial(&mut log);
    // Loads before any transition (none today; kept for honesty).
    let first: Set = log.iter().filter(|e| e.kind == EventKind::Load).map(|e| (e.stmt, e.cell, e.value)).collect();
    let mut memo = HashMap::new();
    let r = reach(&m, &init, waits, &mut memo, budget)?;
    Some(r.map(|s| s.iter().copied().chain(first).collect()).unwrap_or_default())
}

/// The recorded sets, flattened (they must hold every value: none over the cap).
fn flat(r: &Reads) -> Set {
    let mut s = Set::new();
    for (stmt, cell, vs) in r.iter() {
        assert!(!vs.more, "more than the cap in a small test");
        s.extend(vs.values.iter().map(|&v| (stmt, cell, v)));
    }
    s
}

fn opts(explorer: ExplorerKind, threads: usize) -> Options {
    Options { explorer, threads, loop_bound: 2, buffer_bound: 64, ..Options::default() }
}

/// Every explorer's sets equal the oracle's under every model, when the
/// oracle finishes; the graph explorer's are the same on 1 and 3 workers.
fn agree(src: &str, budget: usize) -> Result<usize, TestCaseError> {
    let prog = common::compile(src);
    let mut compared = 0;
    for model in [Model::Sc, Model::Tso, Model::Pso, Model::Pslo] {
        let o = opts(ExplorerKind::Interleaving, 1);
        let Some(want) = oracle(&prog, model, &o, false, budget) else {
            continue;
        };
        // Every attempt run (as the monitored SC exploration runs).
        let every = explore_listened(&prog, model, &o, &mut NoListener, |_| {});
        prop_assert!(every.coverage.finished());
        prop_assert_eq!(&flat(&every.reads), &want, "DPOR, every attempt {:?}\n{}", model, src);
        // Failing attempts left waiting (outcome explorations).
        let dpor = explore(&prog, model, &o);
        prop_assert!(dpor.coverage.finished());
        let waiting = oracle(&prog, model, &o, true, budget);
        if let Some(w) = &waiting {
            prop_assert_eq!(&flat(&dpor.reads), w, "DPOR, waiting {:?}\n{}", model, src);
        }
        if model != Model::Pslo {
            let g1 = explore(&prog, model, &opts(ExplorerKind::Graph, 1));
            let g3 = explore(&prog, model, &opts(ExplorerKind::Graph, 3));
            prop_assert_eq!(&g1.reads, &g3.reads, "graph on 1 and 3 workers {:?}\n{}", model, src);
            // Graphs keep blocked reads, as a run of every attempt does
            // (SC has no graph explorer: its outcomes are DPOR's, waiting).
            let expected = if model.buffered() { Some(&want) } else { waiting.as_ref() };
            if let Some(w) = expected.filter(|_| g1.coverage == every.coverage) {
                prop_assert_eq!(&flat(&g1.reads), w, "graph {:?}\n{}", model, src);
            }
        }
        compared += 1;
    }
    Ok(compared)
}

#[test]
fn examples_and_corpus_equal_the_oracle() {
    let mut compared = 0;
    for (name, src) in common::corpus_and_example_sources() {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        if prog.stmts.len() > 40 {
            continue;
        }
        compared += agree(&src, 5_000).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // Most files finish under the oracle's budget.
    eprintln!("{compared} (file, model) pairs compared");
    assert!(compared > 200, "only {compared} (file, model) pairs compared");
}

#[test]
fn sb_reads_per_model() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/sb.litmus")).unwrap();
    let prog = common::compile(&src);
    for (model, want) in [(Model::Sc, vec![vec![0, 1], vec![0, 1]]), (Model::Tso, vec![vec![0, 1], vec![0, 1]])] {
        let o = explore(&prog, model, &Options::default());
        let got: Vec<Vec<i64>> = o.reads.iter().map(|(_, _, v)| v.values.clone()).collect();
        assert_eq!(got, want, "{model:?}");
    }
}

#[test]
fn the_cap_keeps_the_smallest_values_in_any_order() {
    use litmus_checker::reads::{ValueSet, CAP};
    let vals: Vec<i64> = (0..20).map(|i| (i * 7) % 20).collect();
    let mut a = ValueSet::default();
    vals.iter().for_each(|&v| a.insert(v));
    let mut b = ValueSet::default();
    vals.iter().rev().for_each(|&v| b.insert(v));
    assert_eq!(a, b);
    assert_eq!(a.values, (0..CAP as i64).collect::<Vec<_>>());
    assert!(a.more);
    let mut small = ValueSet::default();
    (0..CAP as i64).for_each(|v| small.insert(v));
    assert!(!small.more);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 50, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_equal_the_oracle(threads in common::program(2..4, 1..4, true)) {
        agree(&common::render(&threads), 20_000)?;
    }

    #[test]
    fn blocking_programs_equal_the_oracle(threads in common::blocking_program(2..4, 1..3)) {
        let _: &Vec<Vec<Op>> = &threads;
        agree(&common::render(&threads), 20_000)?;
    }
}
