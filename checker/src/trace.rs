//! The trace of an execution (program order, reads-from, coherence, from-read
//! over loads, stores and atomics) and its happens-before cycles.
//!
//! A trace is sequentially consistent iff `po ∪ rf ∪ co ∪ fr` is acyclic
//! (Shasha–Snir; BSS Prop. 1). This is the judge every reported violation
//! must pass: its witness, replayed, must have such a cycle.

use crate::machine::{Event, EventKind, NONE};
use litmus_dsl::digraph;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edge {
    Po,
    Rf,
    Co,
    Fr,
}

impl Edge {
    pub fn as_str(self) -> &'static str {
        match self {
            Edge::Po => "po",
            Edge::Rf => "rf",
            Edge::Co => "co",
            Edge::Fr => "fr",
        }
    }
}

/// Trace events are indices into the event log: loads, stores (with a
/// coherence position once committed) and atomics.
pub struct Trace {
    /// Log indices of the trace's events.
    pub events: Vec<u32>,
    /// Adjacency: for each trace event (by position in `events`), its edges.
    pub succ: Vec<Vec<(u32, Edge)>>,
}

impl Trace {
    /// Build the trace of a log. Stores that never reached memory (under
    /// TSO/PSO, no commit) are left out: a trace is defined on what became
    /// globally visible.
    pub fn of(log: &[Event]) -> Trace {
        // The write that defines each store's coherence position: itself
        // (SC store, atomic) or its commit.
        let mut committed = vec![false; log.len()];
        // An atomic takes its place in coherence where it runs, unless a
        // commit places it (a whole candidate's log: `crate::candidates`).
        for e in log.iter().filter(|e| e.kind == EventKind::Commit) {
            committed[e.store as usize] = true;
        }
        let mut co: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for (i, e) in log.iter().enumerate() {
            match e.kind {
                EventKind::Commit => co.entry(e.cell).or_default().push(e.store),
                EventKind::Rmw if !committed[i] => co.entry(e.cell).or_default().push(i as u32),
                _ => {}
            }
        }
        let is_sc = !log.iter().any(|e| e.kind == EventKind::Commit);
        if is_sc {
            co.clear();
            for (i, e) in log.iter().enumerate() {
                if matches!(e.kind, EventKind::Store | EventKind::Rmw) {
                    co.entry(e.cell).or_default().push(i as u32);
                }
            }
        }
        let in_trace = |i: usize| match log[i].kind {
            EventKind::Load | EventKind::Rmw => true,
            EventKind::Store => is_sc || committed[i],
            _ => false,
        };
        let events: Vec<u32> = (0..log.len()).filter(|&i| in_trace(i)).map(|i| i as u32).collect();
        let mut pos = vec![u32::MAX; log.len()];
        for (k, &i) in events.iter().enumerate() {
            pos[i as usize] = k as u32;
        }
        let mut succ: Vec<Vec<(u32, Edge)>> = vec![Vec::new(); events.len()];
        // po: each event to the next of its thread.
        let mut last_of: std::collections::HashMap<u16, u32> = Default::default();
        for (k, &i) in events.iter().enumerate() {
            let t = log[i as usize].thread;
            if let Some(&prev) = last_of.get(&t) {
                succ[prev as usize].push((k as u32, Edge::Po));
            }
            last_of.insert(t, k as u32);
        }
        // co: each write to the next in coherence order; the position of each.
        let mut co_pos: std::collections::HashMap<u32, (u32, usize)> = Default::default();
        for (&cell, ws) in &co {
            for (n, w) in ws.iter().enumerate() {
                co_pos.insert(*w, (cell, n));
                if n + 1 < ws.len() {
                    succ[pos[*w as usize] as usize].push((pos[ws[n + 1] as usize], Edge::Co));
                }
            }
        }
        // rf and fr.
        for (k, &i) in events.iter().enumerate() {
            let e = &log[i as usize];
            if !matches!(e.kind, EventKind::Load | EventKind::Rmw) {
                continue;
            }
            let src = source_write(log, e.rf);
            if src != NONE && pos[src as usize] != u32::MAX && src != i {
                succ[pos[src as usize] as usize].push((k as u32, Edge::Rf));
            }
            // fr: to the write after the source in coherence (the rest follow by co).
            let ws = co.get(&e.cell).map(|v| v.as_slice()).unwrap_or(&[]);
            let next = if src == NONE {
                ws.first().copied()
            } else {
                co_pos.get(&src).and_then(|&(_, n)| ws.get(n + 1).copied())
            };
            if let Some(w) = next {
                if w != i && pos[w as usize] != u32::MAX {
                    succ[k].push((pos[w as usize], Edge::Fr));
                }
            }
        }
        Trace { events, succ }
    }

    /// A cycle, as (log index, edge leaving it), if the trace has one: the
    /// first one a depth-first search closes, not a shortest one (for a
    /// shortest cycle through an event, [`Trace::path`]).
    pub fn cycle(&self) -> Option<Vec<(u32, Edge)>> {
        let n = self.events.len();
        // Iterative DFS with colours; on a back edge, unwind the stack.
        let mut colour = vec![0u8; n];
        let mut stack: Vec<(u32, usize)> = Vec::new();
        let mut via: Vec<(u32, Edge)> = vec![(u32::MAX, Edge::Po); n];
        for root in 0..n {
            if colour[root] != 0 {
                continue;
            }
            stack.push((root as u32, 0));
            colour[root] = 1;
            while let Some(&mut (v, ref mut next)) = stack.last_mut() {
                if let Some(&(w, edge)) = self.succ[v as usize].get(*next) {
                    *next += 1;
                    match colour[w as usize] {
                        0 => {
                            colour[w as usize] = 1;
                            via[w as usize] = (v, edge);
                            stack.push((w, 0));
                        }
                        1 => {
                            // Back edge v -> w: the cycle is w .. v -> w.
                            let mut cyc = vec![(self.events[v as usize], edge)];
                            let mut cur = v;
                            while cur != w {
                                let (p, e) = via[cur as usize];
                                cyc.push((self.events[p as usize], e));
                                cur = p;
                            }
                            cyc.reverse();
                            return Some(cyc);
                        }
                        _ => {}
                    }
                } else {
                    colour[v as usize] = 2;
                    stack.pop();
                }
            }
        }
        None
    }
}

impl Trace {
    /// A shortest happens-before path from the event at log index `from`
    /// to the one at `to` (`from == to`: a shortest cycle through it), as
    /// (log index, edge leaving it) up to the event before `to`: po to any
    /// later event of the thread, rf, co and fr between events of the trace.
    pub fn path(&self, log: &[Event], from: u32, to: u32) -> Option<Vec<(u32, Edge)>> {
        self.path_until(log, from, |_, w, _| w == to)
    }

    /// [`Trace::path`] to the first edge `v →e w` (log indices) that
    /// `arrives(v, w, e)` accepts, breadth first: the path ends with `v`.
    pub fn path_until(
        &self,
        log: &[Event],
        from: u32,
        arrives: impl Fn(u32, u32, Edge) -> bool,
    ) -> Option<Vec<(u32, Edge)>> {
        let start = self.events.iter().position(|&i| i == from)?;
        // Later events of each thread, in order: the po-closure.
        let mut by_thread: std::collections::HashMap<u16, Vec<usize>> = Default::default();
        for (k, &i) in self.events.iter().enumerate() {
            by_thread.entry(log[i as usize].thread).or_default().push(k);
        }
        let (events, succ, by_thread) = (&self.events, &self.succ, &by_thread);
        let edges = move |v: usize| {
            let t = log[events[v] as usize].thread;
            let later = by_thread[&t].iter().copied().filter(move |&k| k > v).map(|k| (k, Edge::Po));
            let direct = succ[v].iter().filter(|(_, e)| *e != Edge::Po).map(|&(w, e)| (w as usize, e));
            later.chain(direct)
        };
        let path = digraph::shortest_path(events.len(), start, edges, |v, w, e| arrives(events[v], events[w], e))?;
        Some(path.into_iter().map(|(k, e)| (events[k], e)).collect())
    }

    /// The strongly connected component of each trace event: two events
    /// lie on a common hb cycle iff they share one (and are distinct).
    pub fn components(&self) -> Vec<usize> {
        digraph::components(&self.succ, |&(w, _)| w as usize)
    }
}

/// The store/atomic event a read takes its value from (through a commit).
pub fn source_write(log: &[Event], rf: u32) -> u32 {
    if rf == NONE {
        return NONE;
    }
    let e = &log[rf as usize];
    if e.kind == EventKind::Commit {
        e.store
    } else {
        rf
    }
}

/// Does the execution's trace have a happens-before cycle?
pub fn has_cycle(log: &[Event]) -> bool {
    Trace::of(log).cycle().is_some()
}
