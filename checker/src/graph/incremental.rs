//! The consistency check after one change: a graph that was consistent
//! gets one new event (a read's rf, a write's coherence place). Every edge
//! the change adds touches the new event's points, so a new cycle passes
//! through them: a depth-first search from the new point, over successors
//! computed from the graph itself (no edge list, no rebuild), decides it.
//! The edges are those of [`super::consistency`]; that module's full check
//! stays the reference (debug builds compare the two).

use super::graph::{Ev, Graph, Id};
use super::rules::{Earlier, Rules};
use crate::machine::Model;

/// Scratch space (reused: no allocation per check).
#[derive(Default)]
pub struct Incremental {
    /// Per thread, the dense number of its first event.
    base: Vec<u32>,
    /// Per point (`2 * dense + commit`), the epoch it was last seen in.
    seen: Vec<u32>,
    epoch: u32,
    stack: Vec<(Id, bool)>,
    /// The reads of each write (by dense number), as ranges of `readers`.
    rstart: Vec<u32>,
    readers: Vec<Id>,
    /// Events in the graph checked; whether `readers` is built for it (on
    /// first need: many searches end before reaching a write).
    n: u32,
    indexed: bool,
}

impl Incremental {
    /// Is `g` consistent, given that without the events `news` (each the
    /// newest of its thread, with its rf and co place) it was? Every edge
    /// not implied by that smaller graph touches one of them.
    pub fn consistent_after(&mut self, g: &Graph, model: Model, news: &[Id]) -> bool {
        for &new in news {
            if !atomic_places_kept(g, new) {
                return false;
            }
        }
        let n = g.number_events(&mut self.base);
        if self.seen.len() < 2 * n as usize {
            self.seen.resize(2 * n as usize, 0);
        }
        self.n = n;
        self.indexed = false;
        let rules = Rules::of(model);
        news.iter().all(|&new| self.acyclic_through(g, rules, new))
    }

    /// `rstart`/`readers`: each write's reads.
    fn index_readers(&mut self, g: &Graph, n: u32) {
        self.rstart.clear();
        self.rstart.resize(n as usize + 2, 0);
        for evs in &g.threads {
            for x in evs {
                if x.reads && !x.rf.is_init() {
                    let d = self.base[x.rf.thread as usize] + x.rf.index;
                    self.rstart[d as usize + 2] += 1;
                }
            }
        }
        for i in 2..self.rstart.len() {
            self.rstart[i] += self.rstart[i - 1];
        }
        self.readers.clear();
        self.readers.resize(self.rstart[n as usize + 1] as usize, Id::init(0));
        for (t, evs) in g.threads.iter().enumerate() {
            for (j, x) in evs.iter().enumerate() {
                if x.reads && !x.rf.is_init() {
                    let d = self.base[x.rf.thread as usize] + x.rf.index;
                    let c = &mut self.rstart[d as usize + 1];
                    self.readers[*c as usize] = Id { thread: t as u16, index: j as u32 };
                    *c += 1;
                }
            }
        }
    }

    /// No cycle through the point of `new` where its new edges meet.
    fn acyclic_through(&mut self, g: &Graph, rules: Rules, new: Id) -> bool {
        let e = *g.ev(new);
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        // A buffered store's new edges all reach its commit; otherwise its
        // execution point (an atomic's commit point) is where they meet.
        let start = (new, rules.buffered(&e));
        self.stack.clear();
        self.push_succ(g, rules, start);
        while let Some(p) = self.stack.pop() {
            if p == start {
                return false;
            }
            let k = self.point(p);
            if self.seen[k] == self.epoch {
                continue;
            }
            self.seen[k] = self.epoch;
            self.push_succ(g, rules, p);
        }
        true
    }

    fn point(&self, (id, commit): (Id, bool)) -> usize {
        2 * (self.base[id.thread as usize] + id.index) as usize + commit as usize
    }

    /// The successors of point `(id, commit)` onto the stack.
    fn push_succ(&mut self, g: &Graph, rules: Rules, (id, commit): (Id, bool)) {
        let t = id.thread as usize;
        let evs = &g.threads[t];
        let e = &evs[id.index as usize];
        let is_cpoint = commit || (e.writes && !rules.buffered(e));
        if !commit {
            if let Some(_next) = evs.get(id.index as usize + 1) {
                self.stack.push((Id { thread: id.thread, index: id.index + 1 }, false));
            }
            if rules.buffered(e) {
                self.stack.push((id, true));
            }
            if e.reads {
                // fr: before the write co-after the one it reads commits.
                let list = &g.co[e.cell as usize];
                let next = if e.rf.is_init() {
                    list.first()
                } else {
                    list.iter().position(|&x| x == e.rf).and_then(|p| list.get(p + 1))
                };
                if let Some(&nx) = next {
                    if nx != id {
                        self.stack.push((nx, rules.buffered(g.ev(nx))));
                    }
                }
            }
        }
        if commit {
            // Own thread after a buffered store `id`: what waits for its
            // commit, and the next store of its buffer (FIFO) — up to the
            // next store to its cell, after which that one stands for it.
            let c = e.cell;
            let b = rules.buffer(c);
            let mut newest_in_buffer = true;
            for (j, x) in evs.iter().enumerate().skip(id.index as usize + 1) {
                let xid = Id { thread: id.thread, index: j as u32 };
                let s = Earlier { id, cell: c, newest_in_buffer, newest_of_cell: true };
                if rules.waits_for(x, s) {
                    self.stack.push((xid, false));
                }
                if rules.buffered(x) {
                    if newest_in_buffer && rules.buffer(x.cell) == b {
                        newest_in_buffer = false;
                        self.stack.push((xid, true));
                    }
                    if x.cell == c {
                        break;
                    }
                }
            }
        }
        if is_cpoint {
            // Coherence: the next write commits later; readers read after.
            let list = &g.co[e.cell as usize];
            if let Some(p) = list.iter().position(|&x| x == id) {
                if let Some(&nx) = list.get(p + 1) {
                    self.stack.push((nx, rules.buffered(g.ev(nx))));
                }
            }
            if !self.indexed {
                self.index_readers(g, self.n);
                self.indexed = true;
            }
            let d = (self.base[t] + id.index) as usize;
            for k in self.rstart[d]..self.rstart[d + 1] {
                let r = self.readers[k as usize];
                let x = g.ev(r);
                let u = r.thread as usize;
                let forwarded = commit && u == t && {
                    let newest_of_cell = newest_of_cell(evs, id.index, r.index as usize, e.cell);
                    rules.forwards(x, Earlier { id, cell: e.cell, newest_in_buffer: false, newest_of_cell })
                };
                if r == id || forwarded {
                    continue;
                }
                self.stack.push((r, false));
            }
        }
    }
}

/// If `new` writes: the write now co-after it may be an atomic reading the
/// one co-before it, which must stay right after what it reads.
fn atomic_places_kept(g: &Graph, new: Id) -> bool {
    let e = g.ev(new);
    if !e.writes {
        return true;
    }
    let list = &g.co[e.cell as usize];
    let Some(p) = list.iter().position(|&x| x == new) else { return false };
    match list.get(p + 1) {
        Some(&nx) => {
            let n = g.ev(nx);
            !(n.reads && n.rf == if p == 0 { Id::init(e.cell) } else { list[p - 1] })
        }
        None => true,
    }
}

/// Is store `s` the newest store to `cell` before event `r` of the same thread?
fn newest_of_cell(evs: &[Ev], s: u32, r: usize, cell: u32) -> bool {
    r > s as usize && !evs[s as usize + 1..r].iter().any(|x| x.writes && !x.reads && x.cell == cell)
}
