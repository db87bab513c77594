//! A graph as a machine execution: a topological order of its points
//! (consistency's order, commits as early as possible) drives the model's
//! machine — each event's thread runs up to it, each store commits through
//! its buffer — and the schedule replays (`reference::replay`) to a log
//! with exactly the graph's rf and co (checked: [`matches`]).

use super::consistency::{is_commit, Checker};
use super::graph::{Graph, Id};
use super::rules::Rules;
use crate::machine::{Event, EventKind, Machine, State, NONE};

pub struct Linear {
    pub schedule: Vec<u32>,
    pub events: Vec<Event>,
    pub state: State,
}

/// Drive `m` (the graph's model) through `g`; `None` if the machine cannot
/// follow it (then the graph is not one of its executions — a bug — or a
/// store would wait for room past the buffer bound).
pub fn linearize(g: &Graph, m: &Machine<'_>, checker: &mut Checker) -> Option<Linear> {
    let order = checker.order(g, m.model)?;
    follow_to(g, m, checker, order, true)
}

/// Drive `m` through a prefix of an execution (`g` is [`Graph::prefix`]) in
/// `order`, a topological order of its points that `checker` computed for
/// `g` last: no thread runs past its last event in `g`.
pub fn follow_prefix(g: &Graph, m: &Machine<'_>, checker: &Checker, order: Vec<u32>) -> Option<Linear> {
    follow_to(g, m, checker, order, false)
}

fn follow_to(g: &Graph, m: &Machine<'_>, checker: &Checker, order: Vec<u32>, to_end: bool) -> Option<Linear> {
    let rules = Rules::of(m.model);
    let mut log = Vec::new();
    let mut st = m.initial(&mut log);
    let mut schedule: Vec<u32> = Vec::new();
    let mut issued = vec![0u32; m.threads];
    count(&log, 0, &mut issued);
    let step = |p: usize, st: &mut State, log: &mut Vec<Event>, schedule: &mut Vec<u32>, issued: &mut Vec<u32>| {
        if !m.enabled(st, p) {
            return false;
        }
        let from = log.len();
        m.step(st, p, schedule.len() as u32, log);
        schedule.push(p as u32);
        count(log, from, issued);
        true
    };
    for node in order {
        let id = checker.id_of(node / 2);
        let (t, i) = (id.thread as usize, id.index);
        let ev = g.ev(id);
        let buffered = rules.buffered(ev);
        if is_commit(node) && !buffered {
            continue; // not a point
        }
        if !is_commit(node) && buffered {
            continue; // buffered when its thread runs past it
        }
        // Run the thread up to (and including) this event.
        let mut guard = 0;
        while issued[t] <= i {
            guard += 1;
            if guard > 10_000 || !step(t, &mut st, &mut log, &mut schedule, &mut issued) {
                return None;
            }
        }
        if is_commit(node) {
            let p = m.buffer_proc(t, ev.cell)?;
            let from = log.len();
            if !step(p, &mut st, &mut log, &mut schedule, &mut issued) {
                return None;
            }
            debug_assert!(log[from].kind == EventKind::Commit);
        }
    }
    // Whatever each thread still does makes no event (fences, local code).
    for t in (0..m.threads).filter(|_| to_end) {
        let mut guard = 0;
        while m.enabled(&st, t) {
            guard += 1;
            if guard > 10_000 || !step(t, &mut st, &mut log, &mut schedule, &mut issued) {
                return None;
            }
        }
    }
    Some(Linear { schedule, events: log, state: st })
}

/// Count each thread's memory events (loads, stores, atomics; not commits
/// or fences) in `log[from..]`.
fn count(log: &[Event], from: usize, issued: &mut [u32]) {
    for e in &log[from..] {
        if matches!(e.kind, EventKind::Load | EventKind::Store | EventKind::Rmw) {
            issued[e.thread as usize] += 1;
        }
    }
}

/// Does the machine log have exactly the graph's events, rf and co?
pub fn matches(g: &Graph, m: &Machine<'_>, log: &[Event]) -> Result<(), String> {
    let mut ids: Vec<Option<Id>> = vec![None; log.len()];
    let mut n = vec![0u32; g.threads.len()];
    let mut co: Vec<Vec<Id>> = vec![Vec::new(); g.co.len()];
    for (k, e) in log.iter().enumerate() {
        let t = e.thread as usize;
        match e.kind {
            EventKind::Load | EventKind::Store | EventKind::Rmw => {
                let id = Id { thread: e.thread, index: n[t] };
                n[t] += 1;
                ids[k] = Some(id);
                let Some(ev) = g.threads[t].get(id.index as usize) else {
                    return Err(format!("extra event {e:?}"));
                };
                let reads = matches!(e.kind, EventKind::Load | EventKind::Rmw);
                let writes = matches!(e.kind, EventKind::Store | EventKind::Rmw);
                if ev.cell != e.cell || ev.reads != reads || ev.writes != writes || ev.value != e.value {
                    return Err(format!("event {id:?}: graph {ev:?}, machine {e:?}"));
                }
                if reads {
                    let rf = if e.rf == NONE { Some(Id::init(e.cell)) } else { ids[e.rf as usize] };
                    if rf != Some(ev.rf) {
                        return Err(format!("rf of {id:?}: graph {:?}, machine {rf:?}", ev.rf));
                    }
                }
                if e.kind == EventKind::Rmw || e.kind == EventKind::Store && !m.model.buffered() {
                    co[e.cell as usize].push(id);
                }
            }
            EventKind::Commit => {
                ids[k] = ids[e.store as usize];
                co[e.cell as usize].push(ids[k].ok_or("commit of an unknown store")?);
            }
            EventKind::Fence(_) => {}
        }
    }
    for (t, evs) in g.threads.iter().enumerate() {
        if n[t] as usize != evs.len() {
            return Err(format!("thread {t}: graph {} events, machine {}", evs.len(), n[t]));
        }
    }
    if co != g.co {
        return Err(format!("co: graph {:?}, machine {co:?}", g.co));
    }
    Ok(())
}
