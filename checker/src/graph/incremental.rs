//! The consistency check after one change: a graph that was consistent
//! gets one new event (a read's rf, a write's coherence place). Every edge
//! the change adds touches the new event's points, so a new cycle passes
//! through them: a depth-first search from the new point, over successors
//! computed from the graph itself (no edge list, no rebuild), decides it.
//! The edges are those of [`super::consistency`]; that module's full check
//! stays the reference (debug builds compare the two).

use super::graph::{Ev, Graph, Id};
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
}

impl Incremental {
    /// Is `g` — consistent before `new` (the newest event of its thread,
    /// with its rf and co place) was added — still consistent?
    pub fn consistent_after(&mut self, g: &Graph, model: Model, new: Id) -> bool {
        let e = *g.ev(new);
        let list = &g.co[e.cell as usize];
        if e.writes {
            // The write now co-after `new` may be an atomic reading the one
            // co-before it: it must stay right after what it reads.
            let Some(p) = list.iter().position(|&x| x == new) else { return false };
            if let Some(&nx) = list.get(p + 1) {
                let n = g.ev(nx);
                if n.reads && n.rf == if p == 0 { Id::init(e.cell) } else { list[p - 1] } {
                    return false;
                }
            }
        }
        self.base.clear();
        let mut n = 0u32;
        for t in &g.threads {
            self.base.push(n);
            n += t.len() as u32;
        }
        if self.seen.len() < 2 * n as usize {
            self.seen.resize(2 * n as usize, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        // A buffered store's new edges all reach its commit; otherwise its
        // execution point (an atomic's commit point) is where they meet.
        let start = (new, buffered(model, &e));
        self.stack.clear();
        self.push_succ(g, model, start);
        while let Some(p) = self.stack.pop() {
            if p == start {
                return false;
            }
            let k = self.point(p);
            if self.seen[k] == self.epoch {
                continue;
            }
            self.seen[k] = self.epoch;
            self.push_succ(g, model, p);
        }
        true
    }

    fn point(&self, (id, commit): (Id, bool)) -> usize {
        2 * (self.base[id.thread as usize] + id.index) as usize + commit as usize
    }

    /// The successors of point `(id, commit)` onto the stack.
    fn push_succ(&mut self, g: &Graph, model: Model, (id, commit): (Id, bool)) {
        let sc = model == Model::Sc;
        let tso = model == Model::Tso;
        let t = id.thread as usize;
        let evs = &g.threads[t];
        let e = &evs[id.index as usize];
        let is_cpoint = commit || (e.writes && !buffered(model, e));
        if !commit {
            if let Some(_next) = evs.get(id.index as usize + 1) {
                self.stack.push((Id { thread: id.thread, index: id.index + 1 }, false));
            }
            if buffered(model, e) {
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
                        self.stack.push((nx, buffered(model, g.ev(nx))));
                    }
                }
            }
        }
        if commit && !sc {
            // Own thread after a buffered store `id` of cell c: the next
            // store of its buffer (FIFO), what drains it, reads of c that
            // do not forward from it — up to the next store to c.
            let c = e.cell;
            let mut last_any = true;
            let mut fifo = false;
            for (j, x) in evs.iter().enumerate().skip(id.index as usize + 1) {
                let xid = Id { thread: id.thread, index: j as u32 };
                let fence_drains = x.fences & if tso { 1 | 4 } else { 1 | 2 | 4 } != 0;
                let drain_all = fence_drains || x.atomic && (tso || x.x86);
                let drained = if drain_all {
                    if tso {
                        last_any
                    } else {
                        true
                    }
                } else {
                    x.atomic && x.cell == c
                };
                let own_read = x.reads && x.cell == c && (x.atomic || x.rf != id);
                if drained || own_read {
                    self.stack.push((xid, false));
                }
                if buffered(model, x) {
                    if !fifo && (tso || x.cell == c) {
                        fifo = true;
                        self.stack.push((xid, true));
                    }
                    last_any = false;
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
                    self.stack.push((nx, buffered(model, g.ev(nx))));
                }
            }
            for (u, xs) in g.threads.iter().enumerate() {
                for (j, x) in xs.iter().enumerate() {
                    if !(x.reads && x.rf == id && x.cell == e.cell) {
                        continue;
                    }
                    let r = Id { thread: u as u16, index: j as u32 };
                    if r == id || (!sc && commit && u == t && !x.atomic && forwards(xs, id.index, j, e.cell)) {
                        continue;
                    }
                    self.stack.push((r, false));
                }
            }
        }
    }
}

/// Does a store go through a buffer (its commit a point of its own)?
fn buffered(model: Model, e: &Ev) -> bool {
    model != Model::Sc && e.writes && !e.reads
}

/// Is store `s` the newest store to `cell` before event `r` of the same thread?
fn forwards(evs: &[Ev], s: u32, r: usize, cell: u32) -> bool {
    r > s as usize && !evs[s as usize + 1..r].iter().any(|x| x.writes && !x.reads && x.cell == cell)
}
