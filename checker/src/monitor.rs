//! Monitors that decide, from one SC execution, whether a TSO or PSO
//! execution of the program could violate SC.
//!
//! - [`bss`]: the operational monitors of Burnim, Sen and Stergiou (TACAS'11,
//!   Figs. 4–5). Stores go to simulated buffers; before event `e` of thread
//!   `p` on address `a`, if another thread's pending store `e'` to `a` has
//!   `e' →hb* prev[p]`, running `e` before committing `e'` closes the cycle
//!   `e' →hb* prev[p] →po e →c e'`. Then other threads' stores to `a` are
//!   committed (TSO: with the FIFO prefix before them), and `e` is performed.
//!   O(N·P): per address at most one thread has pending stores, and the last
//!   one is the one to check.
//!
//!   [`Forcing::Causal`] (the default) improves on the paper: a pending store
//!   counts as committed only if what forced its commit *happens before* `e`,
//!   not merely precedes it in the interleaving. The answer then depends only
//!   on the trace, so one interleaving per Mazurkiewicz trace (what DPOR
//!   explores) is enough for completeness; the paper's rule
//!   ([`Forcing::Interleaving`]) needs the right interleaving of each trace.
//! - [`sober`]: Burckhardt and Musuvathi's monitor (MSR-TR-2008-12, Fig. 2),
//!   TSO only, with their relaxed-happens-before vector clock (Fig. 3).

use crate::hb::Hb;
use crate::machine::{Event, EventKind, Machine, Model, NONE};
use crate::thread_cells::ThreadCells;
use litmus_dsl::ir::StmtId;
use litmus_dsl::{Dialect, FenceKind, Program};

/// A violation in one SC execution: running `access` (of thread p) before
/// `store` (of another thread) commits closes an hb cycle through `prev`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RawViolation {
    /// The delayed store (index in the SC log).
    pub store: u32,
    /// The access that overtakes it (index in the SC log).
    pub access: u32,
    /// The event before `access` in its thread that the store happens before.
    pub prev: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forcing {
    /// A store's commit is forced only by events that happen before `e`.
    Causal,
    /// As in the paper: by any event before `e` in the interleaving.
    Interleaving,
}

/// The BSS monitor for one model, incremental like [`Hb`]: `push` the next
/// event, `truncate` back to a prefix.
pub struct Bss {
    model: Model,
    forcing: Forcing,
    x86: bool,
    t: usize,
    /// The (thread, cell) pairs where the thread's code can store to the
    /// cell: `by_cell` and the PSO queues exist only for those (a big array
    /// touched at a few cells costs a few lists, not one per cell).
    pairs: ThreadCells,
    /// Per thread: its stores (log index, cell), in order.
    stores: Vec<Vec<(u32, u32)>>,
    /// Per pair (thread, cell): (po index, index into `stores[thread]`).
    by_cell: Vec<Vec<(u32, u32)>>,
    /// Per queue and forcer q: how q's events forced the queue's commits, as
    /// steps (how many of the queue's stores are forced, q's po index then).
    /// A queue is a thread's FIFO (TSO: key `owner · t + q`) or its stores
    /// to one cell (PSO: `pair · t + q`, counting in `by_cell`). Forcing is monotone, so store k of a queue was first
    /// forced by q at the first step past k: no per-store state.
    steps: Vec<Vec<(u32, u32)>>,
    /// Undo: the step lists pushed on, in order.
    trail: Vec<u32>,
    /// Per event: trail length before it, and the thread whose store it
    /// appended (`NONE` if none).
    marks: Vec<(u32, u32)>,
    /// Fences of statements from `.0` on are measured ones: only those in
    /// `.1` act ([`Bss::measuring`]).
    measured: Option<(StmtId, Vec<StmtId>)>,
}

impl Bss {
    pub fn new(prog: &Program, model: Model, forcing: Forcing) -> Bss {
        let t = prog.threads.len();
        let cells = prog.mem_size();
        let stored: Vec<Vec<u32>> = prog
            .threads
            .iter()
            .map(|th| {
                let c = Machine::stores_of(&th.code, cells);
                if c.all {
                    (0..cells as u32).collect()
                } else {
                    c.some
                }
            })
            .collect();
        let pairs = ThreadCells::new(stored.iter().map(Vec::as_slice));
        let queues = if model == Model::Pso { pairs.len() * t } else { t * t };
        Bss {
            model,
            forcing,
            x86: prog.dialect == Dialect::HerdX86,
            t,
            stores: vec![Vec::new(); t],
            by_cell: vec![Vec::new(); pairs.len()],
            pairs,
            steps: vec![Vec::new(); queues],
            trail: Vec::new(),
            marks: Vec::new(),
            measured: None,
        }
    }

    /// A monitor that sees only some of a program's fences: those of
    /// statements `>= first` were inserted to be measured one position at a
    /// time, and of them only `own` act; the others it skips as if absent.
    /// Under SC a fence is a local no-op that only logs its event, so one SC
    /// exploration of the program with every measured fence serves a monitor
    /// per position, each seeing what it would see with its fence alone.
    pub fn measuring(mut self, first: StmtId, own: Vec<StmtId>) -> Bss {
        self.measured = Some((first, own));
        self
    }

    /// q (at po index `po`) forces the first `upto` stores of queue `key`.
    fn force(&mut self, key: usize, upto: u32, po: u32) {
        let list = &mut self.steps[key];
        if list.last().map_or(0, |s| s.0) < upto {
            list.push((upto, po));
            self.trail.push(key as u32);
        }
    }

    /// The po index of q's event that first forced store `k` of the queue
    /// whose steps for q are `list` (`NONE`: not forced).
    fn forced_at(list: &[(u32, u32)], k: u32) -> u32 {
        // Usually the store is recent: its step is among the last ones.
        let mut found = NONE;
        for &(upto, po) in list.iter().rev() {
            if upto <= k {
                break;
            }
            found = po;
        }
        found
    }

    fn tso_key(&self, owner: usize, q: usize) -> usize {
        owner * self.t + q
    }

    /// The PSO queue of `pair`'s stores, forced by `q`.
    fn pso_key(&self, pair: usize, q: usize) -> usize {
        pair * self.t + q
    }

    /// Thread p drains its buffer(s): all of them, or (PSO native atomic) one.
    fn drain(&mut self, p: usize, only: Option<usize>, po: u32) {
        if self.model == Model::Pso {
            for pair in self.pairs.of(p) {
                if only.is_none_or(|o| o == self.pairs.cell(pair) as usize) {
                    let n = self.by_cell[pair].len() as u32;
                    self.force(self.pso_key(pair, p), n, po);
                }
            }
        } else {
            let n = self.stores[p].len() as u32;
            self.force(self.tso_key(p, p), n, po);
        }
    }

    /// Process event `i` (the next one): report violations, then simulate it.
    pub fn push(&mut self, log: &[Event], i: usize, hb: &Hb, out: &mut impl FnMut(RawViolation)) {
        self.marks.push((self.trail.len() as u32, NONE));
        let e = &log[i];
        if e.kind == EventKind::Commit {
            return;
        }
        let i = i as u32;
        let t = self.t;
        let p = e.thread as usize;
        let po = hb.po(log, i);
        if e.cell != NONE {
            let a = e.cell as usize;
            let pso = self.model == Model::Pso;
            // The check (Fig. 4/5, line 6).
            let prev = hb.prev[i as usize];
            if prev != NONE {
                let cprev = hb.clock(prev);
                let ci = hb.clock(i);
                for q in (0..t).filter(|&q| q != p) {
                    // (No pair: q's code never stores to a.)
                    let Some(pair) = self.pairs.index(q, a as u32) else { continue };
                    let list = &self.by_cell[pair];
                    // The last store of q to a that happens before prev[p]
                    // (most often the last one: scan from the back).
                    let Some(k) = list.iter().rposition(|&(po, _)| po <= cprev[q]) else {
                        continue;
                    };
                    let si = list[k].1;
                    // Its place in its queue, and the queue's steps per forcer.
                    let (place, key0) = if pso { (k as u32, self.pso_key(pair, 0)) } else { (si, self.tso_key(q, 0)) };
                    let steps = &self.steps[key0..key0 + t];
                    let is_forced = match self.forcing {
                        // Forced by an event that happens before e (e's own
                        // component minus one: its predecessors).
                        Forcing::Causal => (0..t).any(|r| {
                            let f = Self::forced_at(&steps[r], place);
                            f != NONE && f <= ci[r] - (r == p) as u32
                        }),
                        Forcing::Interleaving => steps.iter().any(|l| l.last().is_some_and(|s| s.0 > place)),
                    };
                    if !is_forced {
                        out(RawViolation { store: self.stores[q][si as usize].0, access: i, prev });
                    }
                }
            }
            // e forces the commit of other threads' stores to a (lines 10–12):
            // TSO the FIFO prefix up to q's last store to a, PSO all of them.
            for q in (0..t).filter(|&q| q != p) {
                let Some(pair) = self.pairs.index(q, a as u32) else { continue };
                let list = &self.by_cell[pair];
                if pso {
                    let n = list.len() as u32;
                    self.force(self.pso_key(pair, p), n, po);
                } else if let Some(&(_, last)) = list.last() {
                    self.force(self.tso_key(q, p), last + 1, po);
                }
            }
        }
        // Perform e (lines 15–25): buffer a store; drain on atomics and fences.
        match e.kind {
            EventKind::Store => {
                let idx = self.stores[p].len() as u32;
                self.stores[p].push((i, e.cell));
                let pair = self.pairs.index(p, e.cell).expect("a thread stores only where its code can");
                self.by_cell[pair].push((po, idx));
                self.marks.last_mut().unwrap().1 = p as u32;
            }
            EventKind::Rmw => {
                let only = (self.model == Model::Pso && !self.x86).then_some(e.cell as usize);
                self.drain(p, only, po);
            }
            EventKind::Fence(k) => {
                let acts = match &self.measured {
                    Some((first, own)) => e.stmt < *first || own.contains(&e.stmt),
                    None => true,
                };
                if acts && crate::machine::fence_drains(self.model, k) {
                    self.drain(p, None, po);
                }
            }
            _ => {}
        }
    }

    /// Forget every event from `n` on.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.marks.len() {
            return;
        }
        let keep = self.marks[n].0 as usize;
        for &key in &self.trail[keep..] {
            self.steps[key as usize].pop();
        }
        self.trail.truncate(keep);
        for &(_, appended) in &self.marks[n..] {
            if appended != NONE {
                let p = appended as usize;
                let (_, cell) = self.stores[p].pop().unwrap();
                let pair = self.pairs.index(p, cell).expect("pushed there");
                self.by_cell[pair].pop();
            }
        }
        self.marks.truncate(n);
    }
}

/// The BSS monitor under `model` (TSO or PSO) over one SC execution.
pub fn bss(prog: &Program, model: Model, forcing: Forcing, log: &[Event], hb: &Hb, out: &mut impl FnMut(RawViolation)) {
    let mut m = Bss::new(prog, model, forcing);
    for i in 0..log.len() {
        m.push(log, i, hb, out);
    }
}

/// Sober (TSO): at each load, walk back the coherence order of its address.
/// `write(c) →rhb* lastR(p)` stops the walk (already ordered under TSO);
/// `write(c) →hb* last(p)` is a borderline trace: the load could have read
/// the value before `write(c)`.
///
/// Incremental like [`Hb`]: `push` the next event, `truncate` back to a
/// prefix. Fig. 3's clocks are joins of event timestamps, so each is kept as
/// the index of the event(s) it equals: `lc[p]` is the timestamp of p's last
/// load, atomic or store-load fence, `sc[p]` of its last store, atomic or
/// fence, `mc1[q][a]` of the last write to `a` that is not a store of q
/// (writes to one address have growing timestamps), `mc2[a]` the join of
/// the last write to `a` and the loads of `a` since. Undoing an event
/// restores a few indices.
pub struct Sober {
    t: usize,
    cells: usize,
    /// Timestamp of each event (zero for those Fig. 3 ignores), stride 2t.
    ts: Vec<u32>,
    /// Per cell: its writes in coherence order; per event: its 1-based place
    /// there (0: not a write).
    co: Vec<Vec<u32>>,
    co_index: Vec<u32>,
    /// Slots (undone by the trail), each an event index or `NONE`:
    /// `last[p]`, `last_r[p]` (lc), `last_s[p]` (sc), `last_write[a]`,
    /// `last_read[a][q]`, `vis_write[q][a]` (mc1).
    slots: Vec<u32>,
    trail: Vec<(u32, u32)>,
    /// Per event: trail length before it, and the cell it wrote (`NONE`: none).
    marks: Vec<(u32, u32)>,
    cur: Vec<u32>,
}

impl Sober {
    pub fn new(threads: usize, cells: usize) -> Sober {
        Sober {
            t: threads,
            cells,
            ts: Vec::new(),
            co: vec![Vec::new(); cells],
            co_index: Vec::new(),
            slots: vec![NONE; 3 * threads + cells + 2 * cells * threads],
            trail: Vec::new(),
            marks: Vec::new(),
            cur: vec![0; 2 * threads],
        }
    }

    fn last(&self, p: usize) -> usize {
        p
    }
    fn last_r(&self, p: usize) -> usize {
        self.t + p
    }
    fn last_s(&self, p: usize) -> usize {
        2 * self.t + p
    }
    fn last_write(&self, a: usize) -> usize {
        3 * self.t + a
    }
    fn last_read(&self, a: usize, q: usize) -> usize {
        3 * self.t + self.cells + a * self.t + q
    }
    fn vis_write(&self, q: usize, a: usize) -> usize {
        3 * self.t + self.cells + self.cells * self.t + q * self.cells + a
    }

    fn set(&mut self, slot: usize, v: u32) {
        self.trail.push((slot as u32, self.slots[slot]));
        self.slots[slot] = v;
    }

    fn row(&self, ev: u32) -> &[u32] {
        let w2 = 2 * self.t;
        &self.ts[ev as usize * w2..(ev as usize + 1) * w2]
    }

    /// `cur ⊔= ts[slot's event]`.
    fn join_slot(&mut self, slot: usize) {
        let ev = self.slots[slot];
        if ev != NONE {
            let w2 = 2 * self.t;
            let src = &self.ts[ev as usize * w2..(ev as usize + 1) * w2];
            crate::hb::join(&mut self.cur, src);
        }
    }

    /// `cur ⊔= mc2[a]`.
    fn join_mc2(&mut self, a: usize) {
        let w = self.slots[self.last_write(a)];
        self.join_slot(self.last_write(a));
        for q in 0..self.t {
            let r = self.slots[self.last_read(a, q)];
            if r != NONE && (w == NONE || r > w) {
                self.join_slot(self.last_read(a, q));
            }
        }
    }

    /// Process event `i` (the next one): report borderline loads, then
    /// stamp it.
    pub fn push(&mut self, log: &[Event], i: usize, hb: &Hb, out: &mut impl FnMut(RawViolation)) {
        debug_assert_eq!(i, self.marks.len());
        self.marks.push((self.trail.len() as u32, NONE));
        let w2 = 2 * self.t;
        self.ts.extend(std::iter::repeat_n(0, w2));
        self.co_index.push(0);
        let e = &log[i];
        if e.kind == EventKind::Commit {
            return;
        }
        let p = e.thread as usize;
        let last = self.slots[self.last(p)];
        let last_r = self.slots[self.last_r(p)];
        // The check, for loads only (Fig. 2, lines 6–16).
        if e.kind == EventKind::Load && last != NONE {
            let a = e.cell as usize;
            let mut c = if e.rf == NONE { 0 } else { self.co_index[e.rf as usize] };
            while c > 0 {
                let w = self.co[a][c as usize - 1];
                if log[w as usize].thread as usize == p {
                    break;
                }
                if last_r != NONE && leq(self.row(w), self.row(last_r)) {
                    break;
                }
                if hb.before(log, w, last) {
                    out(RawViolation { store: w, access: i as u32, prev: last });
                    break;
                }
                c -= 1;
            }
        }
        // process_event (Fig. 3). Fences that order stores before loads are
        // interlocked operations on an address nobody else uses.
        let a = e.cell as usize;
        let i32 = i as u32;
        self.cur.iter_mut().for_each(|x| *x = 0);
        match e.kind {
            EventKind::Load => {
                self.join_slot(self.last_r(p));
                self.join_slot(self.vis_write(p, a));
                self.cur[2 * p] += 1;
                self.set(self.last_r(p), i32);
                self.set(self.last_read(a, p), i32);
            }
            EventKind::Store => {
                self.join_slot(self.last_s(p));
                self.join_slot(self.last_r(p));
                self.join_mc2(a);
                self.cur[2 * p + 1] += 1;
                self.set(self.last_s(p), i32);
                for q in (0..self.t).filter(|&q| q != p) {
                    self.set(self.vis_write(q, a), i32);
                }
            }
            EventKind::Rmw | EventKind::Fence(FenceKind::Full | FenceKind::WR) => {
                let cell = e.cell != NONE;
                self.join_slot(self.last_s(p));
                self.join_slot(self.last_r(p));
                if cell {
                    self.join_mc2(a);
                }
                self.cur[2 * p] += 1;
                self.cur[2 * p + 1] += 1;
                self.set(self.last_r(p), i32);
                self.set(self.last_s(p), i32);
                if cell {
                    for q in 0..self.t {
                        self.set(self.vis_write(q, a), i32);
                    }
                }
            }
            _ => {}
        }
        if matches!(
            e.kind,
            EventKind::Load | EventKind::Store | EventKind::Rmw | EventKind::Fence(FenceKind::Full | FenceKind::WR)
        ) {
            self.ts[i * w2..(i + 1) * w2].copy_from_slice(&self.cur);
        }
        if e.is_write() {
            self.set(self.last_write(a), i32);
            self.co[a].push(i32);
            self.co_index[i] = self.co[a].len() as u32;
            self.marks[i].1 = e.cell;
        }
        self.set(self.last(p), i32);
    }

    /// Forget every event from `n` on.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.marks.len() {
            return;
        }
        let keep = self.marks[n].0 as usize;
        while self.trail.len() > keep {
            let (s, old) = self.trail.pop().unwrap();
            self.slots[s as usize] = old;
        }
        for &(_, cell) in &self.marks[n..] {
            if cell != NONE {
                self.co[cell as usize].pop();
            }
        }
        self.marks.truncate(n);
        self.ts.truncate(n * 2 * self.t);
        self.co_index.truncate(n);
    }
}

/// Sober over one whole SC execution.
pub fn sober(prog: &Program, log: &[Event], hb: &Hb, out: &mut impl FnMut(RawViolation)) {
    let mut m = Sober::new(hb.threads, prog.mem_size());
    for i in 0..log.len() {
        m.push(log, i, hb, out);
    }
}

fn leq(a: &[u32], b: &[u32]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}
