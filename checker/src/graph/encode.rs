//! A graph as an event log, for a model with no machine (a `.cat` file):
//! the witness is the graph itself, written in the log's vocabulary so
//! that everything that reads witnesses (traces, cycles, pictures, words)
//! reads it unchanged. Each access is an event at its place in its thread;
//! each plain store also has a `Commit`, its place in coherence (commits of
//! a cell in co order); a load's `rf` names the commit (or atomic) it read,
//! or the store itself where the commit cannot come first.
//!
//! The order is a topological order of: program order, each store before
//! its commit, commits of a cell in co order, a load after the commit it
//! reads. When those admit no order (a model that lets a load see a write
//! whose commit must wait for the load), the load reads the store event
//! itself, which `po ∪ rf` being acyclic (the explorer's assumption, see
//! [`crate::catalog`]) always allows. The threads then run to their ends
//! on the SC interpreter, which makes no more events.

use super::graph::{fence_bit, Graph, Id};
use super::linearize::Linear;
use crate::machine::{Event, EventKind, Machine, NONE};
use litmus_ir::FenceKind;

/// The log of `g` (complete, its final state set); `None` only if `g` has
/// a `po ∪ rf` cycle.
pub fn encode(g: &Graph, sc: &Machine<'_>) -> Option<Linear> {
    let threads = g.threads.len();
    // Per thread: next event to run; per write: whether its commit is out.
    let mut next = vec![0usize; threads];
    let mut log: Vec<Event> = Vec::new();
    let mut schedule: Vec<u32> = Vec::new();
    // Log index of each event's execution and (plain stores) commit.
    let mut exec_at: Vec<Vec<u32>> = g.threads.iter().map(|t| vec![NONE; t.len()]).collect();
    let mut commit_at: Vec<Vec<u32>> = exec_at.clone();
    // Per cell, how many of its co list have committed.
    let mut committed = vec![0usize; g.co.len()];
    let plain_store = |id: Id| !id.is_init() && g.ev(id).writes && !g.ev(id).reads;
    let source = |id: Id, exec_at: &[Vec<u32>], commit_at: &[Vec<u32>], relaxed: bool| -> Option<u32> {
        if id.is_init() {
            return Some(NONE);
        }
        let (t, i) = (id.thread as usize, id.index as usize);
        let c = if plain_store(id) { commit_at[t][i] } else { exec_at[t][i] };
        if c != NONE {
            return Some(c);
        }
        (relaxed && exec_at[t][i] != NONE).then_some(exec_at[t][i])
    };
    let total: usize = g.threads.iter().map(Vec::len).sum::<usize>()
        + g.threads.iter().flatten().filter(|e| e.writes && !e.reads).count();
    let mut emitted = 0usize;
    let mut relaxed = false;
    while emitted < total {
        let mut progress = false;
        // Commits first (as early as they can: a load then reads memory).
        for (cell, list) in g.co.iter().enumerate() {
            while let Some(&w) = list.get(committed[cell]) {
                let (t, i) = (w.thread as usize, w.index as usize);
                if plain_store(w) {
                    if exec_at[t][i] == NONE {
                        break;
                    }
                    commit_at[t][i] = log.len() as u32;
                    let e = g.ev(w);
                    log.push(Event {
                        thread: w.thread,
                        kind: EventKind::Commit,
                        cell: e.cell,
                        value: e.value,
                        old: 0,
                        stmt: e.stmt,
                        rf: NONE,
                        store: exec_at[t][i],
                        step: schedule.len() as u32,
                    });
                    schedule.push(w.thread as u32);
                    emitted += 1;
                    progress = true;
                } else if exec_at[t][i] == NONE {
                    break; // an atomic commits as it runs
                }
                committed[cell] += 1;
            }
        }
        for t in 0..threads {
            while let Some(e) = g.threads[t].get(next[t]) {
                let i = next[t];
                let id = Id { thread: t as u16, index: i as u32 };
                if e.writes && e.reads {
                    // An atomic runs at its place in co, after what it reads.
                    let list = &g.co[e.cell as usize];
                    if list.get(committed[e.cell as usize]) != Some(&id) {
                        break;
                    }
                }
                let rf = if e.reads {
                    match source(e.rf, &exec_at, &commit_at, relaxed) {
                        Some(r) => r,
                        None => break,
                    }
                } else {
                    NONE
                };
                for k in [FenceKind::Full, FenceKind::WW, FenceKind::WR, FenceKind::RR] {
                    if e.fences & fence_bit(k) != 0 {
                        log.push(Event {
                            thread: t as u16,
                            kind: EventKind::Fence(k),
                            cell: NONE,
                            value: 0,
                            old: 0,
                            stmt: e.stmt,
                            rf: NONE,
                            store: NONE,
                            step: schedule.len() as u32,
                        });
                    }
                }
                let kind = match (e.reads, e.writes) {
                    (true, true) => EventKind::Rmw,
                    (true, false) => EventKind::Load,
                    _ => EventKind::Store,
                };
                let old = if kind == EventKind::Rmw { g.value(sc.prog, e.rf) } else { 0 };
                let store = if kind == EventKind::Load && e.atomic { crate::machine::ATOMIC_READ } else { NONE };
                exec_at[t][i] = log.len() as u32;
                log.push(Event {
                    thread: t as u16,
                    kind,
                    cell: e.cell,
                    value: e.value,
                    old,
                    stmt: e.stmt,
                    rf,
                    store,
                    step: schedule.len() as u32,
                });
                schedule.push(t as u32);
                next[t] += 1;
                emitted += 1;
                progress = true;
                if kind == EventKind::Rmw {
                    committed[e.cell as usize] += 1;
                    break; // commits may follow it
                }
            }
        }
        if !progress {
            if relaxed {
                return None;
            }
            relaxed = true;
        } else {
            relaxed = false;
        }
    }
    Some(Linear { schedule, events: log, state: g.st.clone() })
}
