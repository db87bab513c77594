//! Does an execution's trace contain a predicted cycle? RELAXER §4.3:
//! events `e1 … en` with `l(ej) = lj`, `ej →po ej+1` for odd `j` and
//! `ej →c e(j+1)%n` for even `j`, where `→c` is the conflict order of §3.2:
//! `e →c e'` iff one cell and either `e'` writes and `c(e) < c(e')`, or `e`
//! writes, `e'` reads and `c(e) ≤ c(e')` (`c`: the coherence position of a
//! write, or of the write a load reads). `→c ⊆ (rf ∪ co ∪ fr)⁺`, so a match
//! is a happens-before cycle of the trace (`crate::trace`), which the tests
//! check on every confirmation.

use super::ops::{Label, Op};
use super::predict::op_of;
use crate::machine::{Event, EventKind, NONE};
use crate::trace::{source_write, Edge};

struct Ev {
    log: u32,
    label: Label,
    cell: u32,
    /// Position among its thread's memory events.
    ordinal: u32,
    /// Coherence position (1-based; 0 = the initial value, for loads).
    c: u32,
    /// A cycle through this event must lie before this log index.
    until: u32,
}

impl Ev {
    fn writes(&self) -> bool {
        self.label.op != Op::Read
    }
}

fn conflict(e: &Ev, f: &Ev) -> bool {
    e.cell == f.cell
        && e.label.thread != f.label.thread
        && ((f.writes() && e.c < f.c) || (e.writes() && f.label.op == Op::Read && e.c <= f.c))
}

/// The edges from `e` to `f` (a conflict): one, or — a write before the
/// write a read sees — `co` to that write, then `rf` from it (a load
/// overwrites nothing: `co` ends at a write).
fn edges(log: &[Event], e: &Ev, f: &Ev) -> Vec<(u32, Edge)> {
    match (e.writes(), f.writes()) {
        (false, _) => vec![(e.log, Edge::Fr)],
        (true, true) => vec![(e.log, Edge::Co)],
        (true, false) if e.c == f.c => vec![(e.log, Edge::Rf)],
        (true, false) => vec![(e.log, Edge::Co), (source_write(log, log[f.log as usize].rf), Edge::Rf)],
    }
}

/// How a cycle goes from `evs[e]` (closing a pair) to `evs[f]` (opening
/// the next).
#[derive(Clone, Copy)]
enum Link {
    /// A conflict `e →c f`.
    Direct,
    /// A conflict to a write `w` of `f`'s thread on `f`'s cell that
    /// precedes `f`, then `w →po f` (a load reading its own write).
    OwnWrite(usize),
    /// `e →po c`, then a conflict `c →c f` from a later access `c` of `e`'s
    /// thread (the cycle leaves the thread after the pair).
    Exit(usize),
}

/// `history_links`: also the links only a model with load histories needs
/// (see `Settings::history_links`); other models' cycles close by conflicts.
fn link(evs: &[Ev], e: usize, f: usize, history_links: bool) -> Option<Link> {
    if conflict(&evs[e], &evs[f]) {
        return Some(Link::Direct);
    }
    if !history_links {
        return None;
    }
    let (x, r) = (&evs[e], &evs[f]);
    if r.label.op == Op::Read {
        // The latest such write: the one the read most likely saw.
        let own = (0..evs.len()).rev().find(|&w| {
            let y = &evs[w];
            y.writes()
                && y.label.thread == r.label.thread
                && y.cell == r.cell
                && y.ordinal < r.ordinal
                && conflict(x, y)
        });
        if let Some(w) = own {
            return Some(Link::OwnWrite(w));
        }
    }
    // The first later access of e's thread that conflicts with f.
    (0..evs.len())
        .find(|&c| evs[c].label.thread == x.label.thread && evs[c].ordinal > x.ordinal && conflict(&evs[c], r))
        .map(Link::Exit)
}

/// The trace events of a log with their conflict positions. Stores that
/// never committed have no place in coherence and are left out.
fn events(log: &[Event]) -> Vec<Ev> {
    let mut pos = vec![0u32; log.len()];
    let mut count: std::collections::HashMap<u32, u32> = Default::default();
    let relaxed = log.iter().any(|e| e.kind == EventKind::Commit);
    for (i, e) in log.iter().enumerate() {
        let write = match e.kind {
            EventKind::Commit => Some(e.store as usize),
            EventKind::Rmw => Some(i),
            EventKind::Store if !relaxed => Some(i),
            _ => None,
        };
        if let Some(w) = write {
            let n = count.entry(e.cell).or_default();
            *n += 1;
            pos[w] = *n;
        }
    }
    let mut ordinal = std::collections::HashMap::<u16, u32>::new();
    let mut out = Vec::new();
    for (i, e) in log.iter().enumerate() {
        let Some(op) = op_of(e) else { continue };
        let k = ordinal.entry(e.thread).or_default();
        *k += 1;
        let c = match op {
            Op::Read => {
                let src = source_write(log, e.rf);
                if src == NONE {
                    0
                } else {
                    pos[src as usize]
                }
            }
            _ => pos[i],
        };
        if op != Op::Read && c == 0 {
            continue; // a store still in its buffer
        }
        out.push(Ev {
            log: i as u32,
            label: Label { thread: e.thread, stmt: e.stmt, op },
            cell: e.cell,
            ordinal: *k,
            c,
            until: u32::MAX,
        });
    }
    out
}

/// The cycle's events in the log and the edge leaving each, if the trace
/// contains the cycle.
pub fn find(log: &[Event], cycle: &[Label], history_links: bool) -> Option<Vec<(u32, Edge)>> {
    find_with_abandoned(log, cycle, &[], history_links)
}

/// The same, where each read in `abandoned` (a failed attempt's, with the
/// log length at its retry) may take part only in a cycle that is all
/// before that retry.
pub fn find_with_abandoned(
    log: &[Event],
    cycle: &[Label],
    abandoned: &[(u32, u32)],
    history_links: bool,
) -> Option<Vec<(u32, Edge)>> {
    let mut evs = events(log);
    for e in &mut evs {
        if let Some(&(_, at)) = abandoned.iter().find(|a| a.0 == e.log) {
            e.until = at;
        }
    }
    let by_label: Vec<Vec<usize>> =
        cycle.iter().map(|l| (0..evs.len()).filter(|&i| evs[i].label == *l).collect()).collect();
    if by_label.iter().any(|c| c.is_empty()) {
        return None;
    }
    let mut chosen: Vec<usize> = Vec::with_capacity(cycle.len());
    if search(&evs, &by_label, &mut chosen, history_links) {
        let n = chosen.len();
        Some(
            (0..n)
                // A one-event pair appears once, with the edge leaving it.
                .filter(|&j| !(j % 2 == 0 && chosen[j] == chosen[j + 1]))
                .flat_map(|j| {
                    let (ei, fi) = (chosen[j], chosen[(j + 1) % n]);
                    if j % 2 == 0 {
                        return vec![(evs[ei].log, Edge::Po)];
                    }
                    match link(&evs, ei, fi, history_links).expect("the search checked the link") {
                        Link::Direct => edges(log, &evs[ei], &evs[fi]),
                        // Through the thread's own write, then po to the read.
                        Link::OwnWrite(w) => {
                            let mut v = edges(log, &evs[ei], &evs[w]);
                            v.push((evs[w].log, Edge::Po));
                            v
                        }
                        // On in the thread to a later access, then its conflict.
                        Link::Exit(c) => {
                            let mut v = vec![(evs[ei].log, Edge::Po)];
                            v.extend(edges(log, &evs[c], &evs[fi]));
                            v
                        }
                    }
                })
                .collect(),
        )
    } else {
        None
    }
}

fn search(evs: &[Ev], by_label: &[Vec<usize>], chosen: &mut Vec<usize>, links: bool) -> bool {
    let j = chosen.len();
    if j == by_label.len() {
        if link(evs, chosen[j - 1], chosen[0], links).is_none() {
            return false;
        }
        // Every event of the cycle, the links' own write or access too,
        // must lie before the retry of any abandoned read among them.
        let via = (1..j).step_by(2).filter_map(|k| match link(evs, chosen[k], chosen[(k + 1) % j], links) {
            Some(Link::OwnWrite(x) | Link::Exit(x)) => Some(x),
            _ => None,
        });
        let all: Vec<usize> = chosen.iter().copied().chain(via).collect();
        let last = all.iter().map(|&i| evs[i].log).max().unwrap_or(0);
        let until = all.iter().map(|&i| evs[i].until).min().unwrap_or(u32::MAX);
        return last < until;
    }
    for &i in &by_label[j] {
        let ok = match j {
            0 => true,
            // po, reflexive: a one-event pair is the same event twice.
            _ if j % 2 == 1 => {
                let prev = &evs[chosen[j - 1]];
                prev.ordinal < evs[i].ordinal || (prev.log == evs[i].log && by_label[j - 1] == by_label[j])
            }
            _ => link(evs, chosen[j - 1], i, links).is_some(),
        };
        if ok {
            chosen.push(i);
            if search(evs, by_label, chosen, links) {
                return true;
            }
            chosen.pop();
        }
    }
    false
}
