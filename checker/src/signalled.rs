//! A monitor's signal made a violation: the relaxed witness replayed from
//! the SC execution it came from ([`crate::witness`]), the cycle shown over
//! source statements, and the fence positions that would remove it. Both
//! the monitors' [`crate::robust::Collector`] and the graph decision
//! ([`crate::graph::robust`], which names graphs as the monitor would) make
//! their violations here.

use crate::certainty::{Answer, Why};
use crate::hb::Hb;
use crate::machine::{Event, EventKind, Machine, Model, NONE};
use crate::model::Access;
use crate::monitor::RawViolation;
use crate::options::Options;
use crate::trace::Edge;
use crate::violation::{CycleStep, Spot, Violation};
use crate::witness;
use litmus_dsl::digraph;
use litmus_ir::{FenceKind, Program};

/// The violation a monitor signalled (`r`) on the SC execution `log`
/// (`hb` its happens-before, valid up to the access at least): its
/// relaxed witness, cycle and fence candidates; `None` if no witness
/// replays to a cyclic trace. `m` is the relaxed model's machine (unbounded
/// buffers, the check's loop bound: [`witness_machine`]), built once by the
/// caller: a witness costs a few times what building it does. `sober`:
/// Sober's signal, whose witness runs what happens up to the access's
/// thread's previous event (BSS's: what happens before the access).
pub fn violation(
    m: &Machine<'_>,
    stop: &Options,
    log: &[Event],
    hb: &Hb,
    r: RawViolation,
    sober: bool,
) -> Option<Violation> {
    let (prog, model) = (m.prog, m.model);
    let upto: Vec<u32> = if sober { hb.clock(r.prev).to_vec() } else { hb.pre(log, r.access) };
    let w = if sober {
        witness::build_borderline(m, log, hb, &upto, (r.store, r.access))
    } else {
        witness::build(m, stop, log, hb, &upto, (r.store, r.access))
    }?;
    let cycle = display_cycle(log, hb, r);
    let candidates = fence_candidates(prog, model, log, &cycle, r);
    Some(Violation {
        model,
        store_stmt: log[r.store as usize].stmt,
        access_stmt: log[r.access as usize].stmt,
        cycle: cycle_steps(log, &cycle),
        witness: w,
        sc_events: log[..=r.access as usize].to_vec(),
        harm: Answer::Unknown(Why::Pending),
        occurrences: 0,
        candidates,
        fence: Vec::new(),
        attack: None,
        finals: None,
    })
}

/// The machine witnesses of `model` replay on.
pub fn witness_machine<'p>(prog: &'p Program, model: Model, stop: &Options) -> Machine<'p> {
    Machine::new(prog, model, stop.loop_bound, u32::MAX)
}

/// The cycle `store →hb* prev →po access →c store` as a shortest chain of
/// events of the SC execution: (event, edge leaving it).
fn display_cycle(log: &[Event], hb: &Hb, r: RawViolation) -> Vec<(u32, Edge)> {
    let n = r.access as usize;
    let (start, goal) = (r.store as usize, r.prev as usize);
    // Breadth first from the store to prev over po (to any later event of
    // the thread), rf, co and fr edges among events before the access, each
    // hb-before prev.
    let edges = |v: usize| {
        let e = &log[v];
        let mut next: Vec<(usize, Edge)> = Vec::new();
        for (j, f) in log.iter().enumerate().take(n).skip(v + 1) {
            if f.kind == EventKind::Commit || matches!(f.kind, EventKind::Fence(_)) && j != goal {
                continue;
            }
            if f.thread == e.thread {
                next.push((j, Edge::Po));
            } else if f.cell != NONE && f.cell == e.cell {
                if e.is_write() && matches!(f.kind, EventKind::Load | EventKind::Rmw) && f.rf == v as u32 {
                    next.push((j, Edge::Rf));
                } else if e.is_write() && f.is_write() {
                    next.push((j, Edge::Co));
                } else if !e.is_write() && f.is_write() {
                    next.push((j, Edge::Fr));
                }
            }
        }
        next.retain(|&(j, _)| hb.before(log, j as u32, goal as u32));
        next
    };
    // The store is prev itself: no chain. No chain found: none shown.
    let chain = (start != goal)
        .then(|| digraph::shortest_path(log.len(), start, edges, |_, w, _| w == goal))
        .flatten()
        .unwrap_or_default();
    let mut path: Vec<(u32, Edge)> = chain.into_iter().map(|(v, e)| (v as u32, e)).collect();
    let access_edge = if log[r.access as usize].kind == EventKind::Load { Edge::Fr } else { Edge::Co };
    path.push((r.prev, Edge::Po));
    path.push((r.access, access_edge));
    path
}

/// The cycle as source statements, fences left out. A fence is met only
/// as the access's thread's previous event (the chain's goal); it is not an
/// event of the trace's cycle (po, rf, co, fr over accesses, `trace.rs`),
/// only lies on one of its po edges, and orders that edge — it takes no part
/// in the violation, so it gets no role or diagnostic of a member (after a
/// quick fix fenced one side of SB, the new fence was marked as part of the
/// remaining cycle). Its po edges in and out become one po edge.
fn cycle_steps(log: &[Event], cycle: &[(u32, Edge)]) -> Vec<CycleStep> {
    cycle
        .iter()
        .filter(|&&(ev, _)| !matches!(log[ev as usize].kind, EventKind::Fence(_)))
        .map(|&(ev, edge)| CycleStep { thread: log[ev as usize].thread, stmt: log[ev as usize].stmt, edge })
        .collect()
}

/// Statements after which a fence removes this violation: the delayed
/// store may not pass the next event of its thread on the cycle, so a fence
/// anywhere from the store up to that event orders them. (Each violation
/// names its own delayed store: a cycle with several relaxable edges yields
/// one violation per edge, and every one of them needs its fence.)
fn fence_candidates(
    prog: &Program,
    model: Model,
    log: &[Event],
    cycle: &[(u32, Edge)],
    r: RawViolation,
) -> Vec<(Spot, FenceKind)> {
    let s = &log[r.store as usize];
    // The stretch of the cycle in the store's thread, starting at the store.
    let mut exit = cycle[0].0;
    for &(ev, _) in &cycle[1..] {
        if log[ev as usize].thread != s.thread {
            break;
        }
        exit = ev;
    }
    let b = &log[exit as usize];
    // ww suffices when the store is only overtaken by a store (PSO).
    let later = if b.kind == EventKind::Store { Access::Write } else { Access::Read };
    let kind = model.weakest_fence(Access::Write, later);
    crate::violation::fence_spots(prog, log, s.thread, r.store, exit.max(r.store + 1), kind)
}
