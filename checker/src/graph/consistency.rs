//! Is a graph an execution of the machine under a model? The machine's own
//! timing, as an order to be acyclic: every event has an *execution point*
//! (a load when it reads, a store when its thread buffers it, an atomic or
//! fence when it runs) and a buffered store also a *commit point*. The
//! graph is consistent iff these constraints have no cycle (a topological
//! order is then a schedule of the machine with exactly this rf and co):
//!
//! - a thread's execution points in program order; a store commits after
//!   it is buffered; commits in FIFO order per buffer (TSO: the thread's
//!   one buffer; PSO: per cell);
//! - what waits for buffers to drain — a fence that drains under the model
//!   (TSO: `fence`, `fence wr`; PSO: also `fence ww`), an atomic or `lock`
//!   attempt (TSO: all own stores; PSO: those of its cell; x86 LOCK'd: all)
//!   — runs after those commits;
//! - coherence is the order of commit points (an atomic's is its execution);
//! - a read of `w`: if `w` is its thread's newest earlier store to the cell
//!   (not an atomic read), it forwards or reads it from memory: it only
//!   runs before the next write in co commits. Otherwise its own earlier
//!   stores to the cell have committed, `w` has, and the next write in co
//!   has not (fr);
//! - an atomic comes right after the write it reads in co.
//!
//! SC: no buffers (a store's commit is its execution).

use super::graph::{Graph, Id};
use super::rules::{Earlier, Rules};
use crate::machine::Model;

const NONE: u32 = u32::MAX;

/// Scratch space for checks (reused: no allocation per check).
#[derive(Default)]
pub struct Checker {
    /// Per thread, the dense number of its first event.
    base: Vec<u32>,
    /// Per dense event, its position in co (writes).
    copos: Vec<u32>,
    /// Per cell, the index of the thread's newest buffered store to it.
    last_cell: Vec<u32>,
    /// Cells the current thread stored to (to reset `last_cell`).
    touched: Vec<u32>,
    /// Per buffer ([`Rules::buffer`]), the index of its newest store.
    last_buf: Vec<u32>,
    touched_bufs: Vec<u32>,
    edges: Vec<(u32, u32)>,
    start: Vec<u32>,
    succ: Vec<u32>,
    indeg: Vec<u32>,
    cursor: Vec<u32>,
    stack: Vec<u32>,
    commits: Vec<u32>,
    order: Vec<u32>,
    nodes: u32,
}

/// A point of the order: `2 * dense` is an event's execution, `+ 1` its commit.
pub fn is_commit(node: u32) -> bool {
    node & 1 == 1
}

impl Checker {
    pub fn new() -> Self {
        Self::default()
    }

    /// The dense number of event `id`.
    pub fn dense(&self, id: Id) -> u32 {
        self.base[id.thread as usize] + id.index
    }

    /// The event of a dense number.
    pub fn id_of(&self, d: u32) -> Id {
        let t = self.base.partition_point(|&b| b <= d) - 1;
        Id { thread: t as u16, index: d - self.base[t] }
    }

    /// Is `g` consistent under `model`?
    pub fn consistent(&mut self, g: &Graph, model: Model) -> bool {
        self.build(g, model) && self.sort(false)
    }

    /// A schedule of points consistent with `g` (commits as early as
    /// possible, so buffers hold as little as they can), if consistent.
    pub fn order(&mut self, g: &Graph, model: Model) -> Option<Vec<u32>> {
        if !(self.build(g, model) && self.sort(true)) {
            return None;
        }
        Some(self.order.clone())
    }

    fn build(&mut self, g: &Graph, model: Model) -> bool {
        let rules = Rules::of(model);
        let n = g.number_events(&mut self.base);
        self.nodes = 2 * n;
        self.copos.clear();
        self.copos.resize(n as usize, NONE);
        for list in &g.co {
            for (k, &id) in list.iter().enumerate() {
                let d = self.dense(id);
                self.copos[d as usize] = k as u32;
            }
        }
        // Per cell and per buffer, the thread's newest buffered store (its index).
        self.last_cell.clear();
        self.last_cell.resize(g.co.len(), NONE);
        self.last_buf.clear();
        self.last_buf.resize(g.co.len().max(1), NONE);
        self.edges.clear();
        for t in 0..g.threads.len() {
            if !self.thread_edges(g, rules, t) {
                return false;
            }
        }
        self.forget_thread();
        for list in &g.co {
            for k in 1..list.len() {
                let (a, b) = (self.cpoint(g, rules, list[k - 1]), self.cpoint(g, rules, list[k]));
                self.edges.push((a, b));
            }
        }
        true
    }

    /// Clear the newest stores of the thread walked last.
    fn forget_thread(&mut self) {
        for &c in &self.touched {
            self.last_cell[c as usize] = NONE;
        }
        self.touched.clear();
        for &b in &self.touched_bufs {
            self.last_buf[b as usize] = NONE;
        }
        self.touched_bufs.clear();
    }

    /// The commit point of a write (an atomic's or SC store's: its execution).
    fn cpoint(&self, g: &Graph, rules: Rules, id: Id) -> u32 {
        let d = self.dense(id);
        if !id.is_init() && rules.buffered(g.ev(id)) {
            2 * d + 1
        } else {
            2 * d
        }
    }

    /// The edges out of thread `t`'s events (program order, its buffers,
    /// what it reads); false if a read or atomic has no coherence place.
    fn thread_edges(&mut self, g: &Graph, rules: Rules, t: usize) -> bool {
        let evs = &g.threads[t];
        self.forget_thread();
        let base = self.base[t];
        let earlier = |this: &Self, i: u32, newest_in_buffer: bool| {
            let cell = evs[i as usize].cell;
            let id = Id { thread: t as u16, index: i };
            Earlier { id, cell, newest_in_buffer, newest_of_cell: this.last_cell[cell as usize] == i }
        };
        for (i, ev) in evs.iter().enumerate() {
            let id = Id { thread: t as u16, index: i as u32 };
            let d = base + i as u32;
            let x = 2 * d;
            if i > 0 {
                self.edges.push((x - 2, x));
            }
            // Waiting for own stores: the newest of each buffer, and the
            // newest to this cell when another store follows it in its buffer.
            let mut own = None;
            if rules.any_buffers() {
                for k in 0..self.touched_bufs.len() {
                    let s = earlier(self, self.last_buf[self.touched_bufs[k] as usize], true);
                    if rules.waits_for(ev, s) {
                        self.edges.push((2 * (base + s.id.index) + 1, x));
                    }
                }
                let c = self.last_cell[ev.cell as usize];
                if c != NONE {
                    let s = earlier(self, c, self.last_buf[rules.buffer(ev.cell) as usize] == c);
                    if !s.newest_in_buffer && rules.waits_for(ev, s) {
                        self.edges.push((2 * (base + c) + 1, x));
                    }
                    own = Some(s);
                }
            }
            if ev.reads {
                let w = ev.rf;
                if !w.is_init() && !own.is_some_and(|s| rules.forwards(ev, s)) {
                    let p = self.cpoint(g, rules, w);
                    self.edges.push((p, x));
                }
                let list = &g.co[ev.cell as usize];
                let next = if w.is_init() {
                    list.first()
                } else {
                    let pw = self.copos[self.dense(w) as usize];
                    if pw == NONE {
                        return false; // reads a write with no coherence place
                    }
                    list.get(pw as usize + 1)
                };
                if let Some(&nx) = next {
                    if nx != id {
                        let p = self.cpoint(g, rules, nx);
                        self.edges.push((x, p));
                    }
                }
                if ev.writes {
                    // Atomicity: right after the write it reads.
                    let p = self.copos[d as usize];
                    if p == NONE {
                        return false;
                    }
                    let pred = if p == 0 { Id::init(ev.cell) } else { list[p as usize - 1] };
                    if pred != w {
                        return false;
                    }
                }
            } else if rules.buffered(ev) {
                self.edges.push((x, x + 1));
                let b = rules.buffer(ev.cell);
                let prev = self.last_buf[b as usize];
                if prev != NONE {
                    self.edges.push((2 * (base + prev) + 1, x + 1));
                } else {
                    self.touched_bufs.push(b);
                }
                self.last_buf[b as usize] = i as u32;
                if self.last_cell[ev.cell as usize] == NONE {
                    self.touched.push(ev.cell);
                }
                self.last_cell[ev.cell as usize] = i as u32;
            }
        }
        true
    }

    /// Kahn's algorithm over the edges; true iff acyclic. `order` ends as
    /// a topological order (commits preferred when `commits_first`).
    fn sort(&mut self, commits_first: bool) -> bool {
        let n = self.nodes as usize;
        self.start.clear();
        self.start.resize(n + 1, 0);
        self.indeg.clear();
        self.indeg.resize(n, 0);
        for &(a, b) in &self.edges {
            self.start[a as usize + 1] += 1;
            self.indeg[b as usize] += 1;
        }
        for i in 0..n {
            self.start[i + 1] += self.start[i];
        }
        self.succ.clear();
        self.succ.resize(self.edges.len(), 0);
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.start[..n]);
        for &(a, b) in &self.edges {
            let c = &mut self.cursor[a as usize];
            self.succ[*c as usize] = b;
            *c += 1;
        }
        self.stack.clear();
        self.commits.clear();
        self.order.clear();
        for v in 0..n as u32 {
            if self.indeg[v as usize] == 0 {
                if commits_first && is_commit(v) {
                    self.commits.push(v);
                } else {
                    self.stack.push(v);
                }
            }
        }
        let mut seen = 0usize;
        while let Some(v) = self.commits.pop().or_else(|| self.stack.pop()) {
            seen += 1;
            if commits_first {
                self.order.push(v);
            }
            for k in self.start[v as usize]..self.start[v as usize + 1] {
                let w = self.succ[k as usize];
                let d = &mut self.indeg[w as usize];
                *d -= 1;
                if *d == 0 {
                    if commits_first && is_commit(w) {
                        self.commits.push(w);
                    } else {
                        self.stack.push(w);
                    }
                }
            }
        }
        seen == n
    }
}
