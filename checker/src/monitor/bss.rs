//! The BSS monitors (Burnim, Sen, Stergiou, TACAS'11, Figs. 4–5) for TSO
//! and PSO in one pass: the simulated stores (per thread, per thread and
//! cell), the last event of each thread and the check's search are the
//! same for both models; only the forcing of commits is per model.

use super::signal::{Forcing, RawViolation};
use crate::clocks::Clocks;
use crate::machine::{Event, EventKind, Machine, Model, NONE};
use crate::thread_cells::ThreadCells;
use litmus_dsl::ir::StmtId;
use litmus_dsl::{Dialect, Program};

/// What undoing one event restores.
struct Mark {
    /// The trail's length before it.
    trail: u32,
    thread: u16,
    /// It appended a store of its thread.
    stored: bool,
    /// Its thread's last event before it.
    last: u32,
}

/// One model's forcing: whether its queues are per (thread, cell) (PSO) or
/// per thread (TSO), and where its step lists begin in [`Bss::steps`].
#[derive(Clone, Copy)]
struct Queues {
    pso: bool,
    base: usize,
}

/// The BSS monitor for one or more models (TSO, PSO).
pub struct Bss {
    queues: Vec<Queues>,
    forcing: Forcing,
    x86: bool,
    t: usize,
    /// The (thread, cell) pairs where the thread's code can store to the
    /// cell: `by_cell` and the PSO queues exist only for those (a big array
    /// touched at a few cells costs a few lists, not one per cell).
    pairs: ThreadCells,
    /// Per thread: its stores (log index, cell), in order.
    stores: Vec<Vec<(u32, u32)>>,
    /// Per pair (thread, cell): (transition count, index into `stores[thread]`).
    by_cell: Vec<Vec<(u32, u32)>>,
    /// Per model, queue and forcer q: how q's events forced the queue's
    /// commits, as steps (how many of the queue's stores are forced, q's
    /// place then: [`Clocks::place`]). A queue is a thread's FIFO (TSO: key
    /// `owner · t + q`) or its stores to one cell (PSO: `pair · t + q`,
    /// counting in `by_cell`). Forcing is monotone, so store
    /// k of a queue was first forced by q at the first step past k: no
    /// per-store state. After the queues, from `drains`, per model and
    /// thread: its drains of all its buffers, counting in `stores` (one
    /// step, not one per cell).
    steps: Vec<Vec<(u32, u32)>>,
    drains: usize,
    /// Undo: the step lists pushed on, in order.
    trail: Vec<u32>,
    /// Per thread: its last event so far (`NONE`: none).
    last: Vec<u32>,
    marks: Vec<Mark>,
    /// Fences of statements from `.0` on are measured ones: only those in
    /// `.1` act ([`Bss::measuring`]).
    measured: Option<(StmtId, Vec<StmtId>)>,
}

impl Bss {
    /// A monitor for `models` (each TSO or PSO); its signals name a model
    /// by its index there.
    pub fn new(prog: &Program, models: &[Model], forcing: Forcing) -> Bss {
        let t = prog.threads.len();
        let stored = Machine::stored_cells(prog);
        let pairs = ThreadCells::new(stored.iter().map(Vec::as_slice));
        let mut queues = Vec::new();
        let mut n = 0;
        for &m in models {
            debug_assert!(m.monitored(), "BSS decides the monitored models");
            let pso = m.per_cell_buffers();
            queues.push(Queues { pso, base: n });
            n += if pso { pairs.len() * t } else { t * t };
        }
        Bss {
            queues,
            forcing,
            x86: prog.dialect == Dialect::HerdX86,
            t,
            stores: vec![Vec::new(); t],
            by_cell: vec![Vec::new(); pairs.len()],
            pairs,
            steps: vec![Vec::new(); n + models.len() * t],
            drains: n,
            trail: Vec::new(),
            last: vec![NONE; t],
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

    /// The first of the step lists (one per forcer) of model `m`'s queue
    /// holding `owner`'s stores to the cell of `pair` (`owner`'s).
    #[inline]
    fn queue(&self, m: usize, owner: usize, pair: usize) -> usize {
        let Queues { pso, base } = self.queues[m];
        if pso {
            base + pair * self.t
        } else {
            base + owner * self.t
        }
    }

    /// The forcer at `key` (at place `place`) forces the first `upto`
    /// stores of its queue.
    #[inline]
    fn force(&mut self, key: usize, upto: u32, place: u32) {
        let list = &mut self.steps[key];
        if list.last().map_or(0, |s| s.0) < upto {
            list.push((upto, place));
            self.trail.push(key as u32);
        }
    }

    /// The place of the event that first forced store `k` of a queue,
    /// given the queue's steps for that forcer (`NONE`: not forced).
    #[inline]
    fn forced_at(list: &[(u32, u32)], k: u32) -> u32 {
        // Usually the store is recent: its step is among the last ones.
        let mut found = NONE;
        for &(upto, place) in list.iter().rev() {
            if upto <= k {
                break;
            }
            found = place;
        }
        found
    }

    /// Is a store of thread q — `k`-th of the queue whose step lists begin
    /// at `key0`, `si`-th of q's — committed under model `m` when thread
    /// p's event with clock `ci` runs?
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn forced(&self, m: usize, key0: usize, k: u32, q: usize, si: u32, ci: &[u32], p: usize) -> bool {
        let steps = &self.steps[key0..key0 + self.t];
        let drains = &self.steps[self.drains + m * self.t + q];
        match self.forcing {
            // Forced by an event that happens before e: of another thread,
            // at most e's clock; of e's own, strictly before it in po. (e's
            // own thread first: most often an earlier access of p's forced
            // the store.)
            Forcing::Causal => {
                let own = Self::forced_at(&steps[p], k);
                if own != NONE && own < 2 * ci[p] {
                    return true;
                }
                let drained = Self::forced_at(drains, si);
                drained != NONE && drained <= 2 * ci[q]
                    || steps.iter().enumerate().any(|(r, l)| {
                        let f = Self::forced_at(l, k);
                        r != p && f != NONE && f <= 2 * ci[r]
                    })
            }
            Forcing::Interleaving => {
                drains.last().is_some_and(|s| s.0 > si) || steps.iter().any(|l| l.last().is_some_and(|s| s.0 > k))
            }
        }
    }

    /// Model `m`: thread p drains its buffer(s), all of them or (PSO
    /// native atomic) one.
    fn drain(&mut self, m: usize, p: usize, only: Option<usize>, place: u32) {
        match only {
            Some(c) => {
                // (No pair: p's code never stores to c, nothing to drain.)
                if let Some(pair) = self.pairs.index(p, c as u32) {
                    let n = self.by_cell[pair].len() as u32;
                    self.force(self.queue(m, p, pair) + p, n, place);
                }
            }
            None => {
                let n = self.stores[p].len() as u32;
                self.force(self.drains + m * self.t + p, n, place);
            }
        }
    }

    /// Process event `i` (the next one): report violations (`out(model
    /// index, signal)`), then simulate it. `clocks`: the exploration's, SC
    /// happens-before ([`Clocks`]).
    pub fn push(&mut self, log: &[Event], i: usize, clocks: Clocks<'_>, out: &mut impl FnMut(usize, RawViolation)) {
        let e = &log[i];
        let p = e.thread as usize;
        let prev = self.last[p];
        self.marks.push(Mark { trail: self.trail.len() as u32, thread: e.thread, stored: false, last: prev });
        if e.kind == EventKind::Commit {
            return;
        }
        self.last[p] = i as u32;
        let place = clocks.place(e);
        if e.cell != NONE {
            self.access(log, i as u32, prev, place, clocks, out);
        }
        // Perform e (lines 15–25): buffer a store; drain on atomics and fences.
        match e.kind {
            EventKind::Store => {
                let idx = self.stores[p].len() as u32;
                self.stores[p].push((i as u32, e.cell));
                let pair = self.pairs.index(p, e.cell).expect("a thread stores only where its code can");
                self.by_cell[pair].push((place / 2, idx));
                self.marks.last_mut().unwrap().stored = true;
            }
            _ if e.is_atomic() => {
                for m in 0..self.queues.len() {
                    let only = (self.queues[m].pso && !self.x86).then_some(e.cell as usize);
                    self.drain(m, p, only, place);
                }
            }
            EventKind::Fence(k) => {
                let acts = match &self.measured {
                    Some((first, own)) => e.stmt < *first || own.contains(&e.stmt),
                    None => true,
                };
                for m in 0..self.queues.len() {
                    let model = if self.queues[m].pso { Model::Pso } else { Model::Tso };
                    if acts && crate::machine::fence_drains(model, k) {
                        self.drain(m, p, None, place);
                    }
                }
            }
            _ => {}
        }
    }

    /// The check (Fig. 4/5, line 6) and the commits event `i` (a memory
    /// access at `place`, after `prev` in its thread) forces.
    fn access(
        &mut self,
        log: &[Event],
        i: u32,
        prev: u32,
        place: u32,
        clocks: Clocks<'_>,
        out: &mut impl FnMut(usize, RawViolation),
    ) {
        let e = &log[i as usize];
        let (p, a) = (e.thread as usize, e.cell as usize);
        for q in 0..self.t {
            if q == p {
                continue;
            }
            // q's code never stores to a, or q has not yet: nothing to
            // check, nothing to force.
            let Some(pair) = self.pairs.index(q, a as u32) else { continue };
            let list = &self.by_cell[pair];
            let Some(&(_, last_si)) = list.last() else { continue };
            let n = list.len() as u32;
            if prev != NONE {
                // The last store of q to a that happens before prev[p]
                // (most often the last one: scan from the back). Stores are
                // memory events: one happens before prev iff its transition
                // count is at most prev's clock's.
                let before = clocks.at(&log[prev as usize], q);
                // (A memory event always belongs to a transition under SC.)
                let found = list.iter().rposition(|&(count, _)| count <= before);
                if let (Some(k), Some(ci)) = (found, clocks.row(e)) {
                    let si = list[k].1;
                    for m in 0..self.queues.len() {
                        // Its place in its queue.
                        let place = if self.queues[m].pso { k as u32 } else { si };
                        if !self.forced(m, self.queue(m, q, pair), place, q, si, ci, p) {
                            out(m, RawViolation { store: self.stores[q][si as usize].0, access: i, prev });
                        }
                    }
                }
            }
            // e forces the commit of q's stores to a (lines 10–12): TSO the
            // FIFO prefix up to q's last store to a, PSO all of them.
            for m in 0..self.queues.len() {
                let upto = if self.queues[m].pso { n } else { last_si + 1 };
                self.force(self.queue(m, q, pair) + p, upto, place);
            }
        }
    }

    /// Forget every event from `n` on.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.marks.len() {
            return;
        }
        let keep = self.marks[n].trail as usize;
        for &key in &self.trail[keep..] {
            self.steps[key as usize].pop();
        }
        self.trail.truncate(keep);
        for m in self.marks[n..].iter().rev() {
            let p = m.thread as usize;
            self.last[p] = m.last;
            if m.stored {
                let (_, cell) = self.stores[p].pop().unwrap();
                let pair = self.pairs.index(p, cell).expect("pushed there");
                self.by_cell[pair].pop();
            }
        }
        self.marks.truncate(n);
    }
}
