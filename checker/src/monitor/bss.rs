//! The BSS monitors (Burnim, Sen, Stergiou, TACAS'11, Figs. 4–5) for TSO
//! and PSO in one pass: the simulated stores (per thread, per thread and
//! cell), the last event of each thread and the check's search are the
//! same for both models; only the forcing of commits is per model.
//!
//! Only the stores that may be overtaken ([`super::delays`]) are watched:
//! every other one is committed whenever the check would look at it, so
//! its forcing is not tracked and it is never signalled. A fenced
//! program's monitor tracks little; one whose stores none may be overtaken
//! tracks nothing.

use super::signal::{Forcing, RawViolation};
use crate::clocks::Clocks;
use crate::machine::{Event, EventKind, Machine, Model, NONE};
use crate::thread_cells::ThreadCells;
use litmus_ir::{Addr, Dialect, Instr, Program, StmtId};

/// What undoing one event restores.
struct Mark {
    /// The trail's length before it.
    trail: u32,
    thread: u16,
    /// It appended a store of its thread to this pair's list (`NONE`: it
    /// stored nothing), watched or not as the entry says.
    pair: u32,
    /// Its thread's last event before it.
    last: u32,
}

/// `Bss::store_pair` of a statement no store has been seen of yet.
const UNSET: u32 = NONE - 1;

/// One model's queues: per (thread, cell) (PSO) or per thread (TSO), and
/// where their counters begin in [`Bss::upto`].
#[derive(Clone, Copy)]
struct Queues {
    model: Model,
    pso: bool,
    base: usize,
}

/// A trail entry's tag (its two high bits): it restores a counter of
/// [`Bss::upto`] or of [`Variants::upto`], or clears a slot of
/// [`Bss::first`] (no tag) or of [`Variants::first`].
const UPTO: u32 = 1 << 30;
const VFIRST: u32 = 2 << 30;
const VUPTO: u32 = 3 << 30;
const TAG: u32 = 3 << 30;

/// Measuring: the monitor stands for several, each acting on some of the
/// program's measured fences ([`Bss::measuring`]). Everything but the
/// drains of measured fences is the same for all of them, and is simulated
/// once; each variant keeps only what its own measured fences drained.
struct Variants {
    /// Fences of statements from `first` on are measured ones.
    first: StmtId,
    /// Per measured fence (statement − `first`), the variants it acts in.
    acting: Vec<Vec<u32>>,
    count: usize,
    /// Per (model, variant): still listened to.
    live: Vec<bool>,
    /// Per model, thread and variant: how many of the thread's stores its
    /// measured fences drained (counting in `stores`).
    upto: Vec<u32>,
    /// Per watched store (by number), model and variant: the place of its
    /// owner's first measured drain there (`NONE`: none).
    first_drain: Vec<u32>,
}

/// A store in its pair's list: what the check and the forcing need of it.
#[derive(Clone, Copy)]
struct Entry {
    /// Its transition count: it happens before an event iff that event's
    /// clock has at least this in the store's thread.
    count: u32,
    /// Its thread's watched stores up to it (inclusive): the TSO queue's
    /// prefix that committing it commits.
    fifo: u32,
    /// The same among its pair's stores (the PSO queue's prefix).
    in_pair: u32,
    /// Its number among the watched stores (`NONE`: not watched).
    watched: u32,
}

impl Entry {
    /// How much of its queue committing it commits: of its pair's
    /// (`pso`), or of its thread's FIFO.
    #[inline]
    fn prefix(&self, pso: bool) -> u32 {
        if pso {
            self.in_pair
        } else {
            self.fifo
        }
    }
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
    /// Per store statement of a fixed cell, its pair (`NONE`: another
    /// kind, or an address computed at run time: searched for).
    store_pair: Vec<u32>,
    /// Per store statement, the models (bit per queue) under which it may
    /// be overtaken ([`super::delays`]); a store is watched iff any.
    signals: Vec<u8>,
    /// No statement is watched: the monitor does nothing.
    inert: bool,
    /// Per watched store (by number, in push order): its log index.
    watched: Vec<u32>,
    /// Per thread: its watched stores (numbers), in order (its TSO queue).
    stores: Vec<Vec<u32>>,
    /// Per pair (thread, cell): its watched stores (its PSO queue).
    queue: Vec<Vec<u32>>,
    /// Per pair: every store of it, watched or not.
    by_cell: Vec<Vec<Entry>>,
    /// Per cell, from `writers_at[cell]` to `writers_at[cell + 1]` in
    /// `writers`: each (thread, pair) whose code can store to it, so an
    /// access visits only those.
    writers_at: Vec<u32>,
    writers: Vec<(u32, u32)>,
    /// Per model, queue and forcer: how many of the queue's watched stores
    /// the forcer has forced (a TSO queue is its owner's FIFO, counting in
    /// `stores[owner]`; a PSO queue is a pair's, counting in `queue[pair]`);
    /// from `drains`, per model and thread: its drains of all its buffers,
    /// counting in `stores`. Forcing is monotone, so each counter only
    /// grows (until undone).
    upto: Vec<u32>,
    drains: usize,
    /// Per watched store (by number), model and thread r: the place ([`Clocks::place`])
    /// at which r's events first forced it (its owner's slot: its drains);
    /// `NONE`: not yet. Is the store committed when event e runs? Iff some
    /// slot's place is at most `2 · clock(e)[r]`: one row compared, not a
    /// search per forcer.
    first: Vec<u32>,
    /// Undo: what was set since each mark ([`UPTO`]).
    trail: Vec<(u32, u32)>,
    /// Per thread: its last event so far (`NONE`: none).
    last: Vec<u32>,
    marks: Vec<Mark>,
    /// Measuring several fence sets at once ([`Bss::measuring`]).
    variants: Option<Variants>,
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
        for &model in models {
            debug_assert!(model.monitored(), "BSS decides the monitored models");
            let pso = model.per_cell_buffers();
            queues.push(Queues { model, pso, base: n });
            n += if pso { pairs.len() * t } else { t * t };
        }
        // The pairs a store of the thread may fill (a cell it only updates
        // atomically never holds a buffered store of it); and per store
        // statement its pair, if all its copies store to one fixed cell
        // (`NONE` stays: searched for at run time).
        let mut fills = vec![false; pairs.len()];
        let mut store_pair = vec![UNSET; prog.stmts.len()];
        for (q, th) in prog.threads.iter().enumerate() {
            for ins in &th.code {
                let Instr::Store { addr, stmt, .. } = *ins else { continue };
                let pair = match addr {
                    Addr::Fixed(c) => pairs.index(q, c).map_or(NONE, |i| i as u32),
                    _ => NONE,
                };
                match pair {
                    NONE => pairs.of(q).for_each(|i| fills[i] = true),
                    i => fills[i as usize] = true,
                }
                let slot = &mut store_pair[stmt as usize];
                *slot = if *slot == UNSET || *slot == pair { pair } else { NONE };
            }
        }
        // Counting sort of those pairs by cell.
        let cells = prog.mem_size();
        let mut writers_at = vec![0u32; cells + 1];
        for i in (0..pairs.len()).filter(|&i| fills[i]) {
            writers_at[pairs.cell(i) as usize + 1] += 1;
        }
        for c in 0..cells {
            writers_at[c + 1] += writers_at[c];
        }
        let mut writers = vec![(0, 0); writers_at[cells] as usize];
        let mut fill = writers_at.clone();
        for q in 0..t {
            for i in pairs.of(q).filter(|&i| fills[i]) {
                let slot = &mut fill[pairs.cell(i) as usize];
                writers[*slot as usize] = (q as u32, i as u32);
                *slot += 1;
            }
        }
        let mut bss = Bss {
            store_pair,
            forcing,
            x86: prog.dialect == Dialect::HerdX86,
            t,
            signals: Vec::new(),
            inert: false,
            watched: Vec::new(),
            stores: vec![Vec::new(); t],
            queue: vec![Vec::new(); pairs.len()],
            by_cell: vec![Vec::new(); pairs.len()],
            writers_at,
            writers,
            pairs,
            upto: vec![0; n + queues.len() * t],
            drains: n,
            queues,
            first: Vec::new(),
            trail: Vec::new(),
            last: vec![NONE; t],
            marks: Vec::new(),
            variants: None,
        };
        bss.watch(prog, None);
        bss
    }

    /// Which stores to watch: those that may be overtaken under some of
    /// the models, fences of statements from `measured` on taken as absent.
    fn watch(&mut self, prog: &Program, measured: Option<StmtId>) {
        self.signals = vec![0; prog.stmts.len()];
        for (m, q) in self.queues.iter().enumerate() {
            for (s, may) in super::delays::delayable(prog, q.model, measured).into_iter().enumerate() {
                self.signals[s] |= u8::from(may) << m;
            }
        }
        self.inert = self.signals.iter().all(|&b| b == 0);
    }

    /// A monitor that stands for one per entry of `own` (its *variants*),
    /// each seeing only some of the program's fences: those of statements
    /// `>= first` were inserted to be measured, and of them only the
    /// variant's own act; it skips the others as if absent. Under SC a
    /// fence is a local no-op that only logs its event, so one SC
    /// exploration of the program with every measured fence serves a
    /// monitor per fence set, each seeing what it would see with that set
    /// alone. Signals name their variant. `prog` is the program with every
    /// measured fence.
    pub fn measuring(mut self, prog: &Program, first: StmtId, own: &[Vec<StmtId>], fences: usize) -> Bss {
        // A store a measured fence keeps from being overtaken may be
        // overtaken in the variants without it.
        self.watch(prog, Some(first));
        let mut acting = vec![Vec::new(); fences];
        for (v, set) in own.iter().enumerate() {
            for &f in set {
                acting[(f - first) as usize].push(v as u32);
            }
        }
        let (m, count) = (self.queues.len(), own.len());
        self.variants = Some(Variants {
            first,
            acting,
            count,
            live: vec![true; m * count],
            upto: vec![0; m * self.t * count],
            first_drain: Vec::new(),
        });
        self
    }

    /// Stop checking variant `v` under model `m` (what it could tell is
    /// known).
    pub fn retire(&mut self, m: usize, v: usize) {
        if let Some(vs) = &mut self.variants {
            vs.live[m * vs.count + v] = false;
        }
    }

    /// Is any variant still checked?
    pub fn listening(&self) -> bool {
        self.variants.as_ref().is_none_or(|vs| vs.live.iter().any(|&l| l))
    }

    /// Model `m`'s variant `v`: thread p's measured fence (at `place`)
    /// drains all its stores.
    fn drain_variant(&mut self, m: usize, v: usize, p: usize, place: u32) {
        let n = self.stores[p].len() as u32;
        let Some(vs) = &mut self.variants else { return };
        let key = (m * self.t + p) * vs.count + v;
        let Some(old) = raise(&mut vs.upto, &mut self.trail, key, VUPTO, n) else { return };
        for k in old..n {
            let slot = (self.stores[p][k as usize] as usize * self.queues.len() + m) * vs.count + v;
            first_at(&mut vs.first_drain, &mut self.trail, slot, VFIRST, place);
        }
    }

    /// Model `m`: forcer `r` (at `place`) forces the first `upto` watched
    /// stores of the queue whose counter is `key`: `owner`'s FIFO, or (PSO)
    /// the queue of `pair`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn force(&mut self, m: usize, key: usize, owner: usize, pair: Option<usize>, upto: u32, r: usize, place: u32) {
        let Some(old) = raise(&mut self.upto, &mut self.trail, key, UPTO, upto) else { return };
        let width = self.queues.len() * self.t;
        let queue = match pair {
            Some(pair) => &self.queue[pair],
            None => &self.stores[owner],
        };
        for &w in &queue[old as usize..upto as usize] {
            let slot = w as usize * width + m * self.t + r;
            first_at(&mut self.first, &mut self.trail, slot, 0, place);
        }
    }

    /// Model `m`'s queue holding q's stores to `pair` (PSO: the pair's;
    /// TSO: q's FIFO): the key of forcer `r`'s counter in `upto`, and
    /// whether it is per pair.
    #[inline]
    fn queue_of(&self, m: usize, q: usize, pair: usize, r: usize) -> (usize, bool) {
        let Queues { pso, base, .. } = self.queues[m];
        if pso {
            (base + pair * self.t + r, true)
        } else {
            (base + q * self.t + r, false)
        }
    }

    /// Remember what undoing the next event (of `thread`) restores.
    #[inline]
    fn mark(&mut self, thread: u16, pair: u32, last: u32) {
        self.marks.push(Mark { trail: self.trail.len() as u32, thread, pair, last });
    }

    /// Is watched store `w` committed under model `m` when the event with
    /// clock `ci` runs?
    #[inline]
    fn committed(&self, m: usize, w: u32, ci: &[u32]) -> bool {
        let width = self.queues.len() * self.t;
        let row = &self.first[w as usize * width + m * self.t..][..self.t];
        // The match outside the loop: inside, it cost 1.5 % of the run's
        // instructions (the loop no longer specialised).
        match self.forcing {
            Forcing::Causal => row.iter().zip(ci).any(|(&f, &c)| counts(Forcing::Causal, f, c)),
            Forcing::Interleaving => row.iter().any(|&f| counts(Forcing::Interleaving, f, 0)),
        }
    }

    /// Model `m`: thread p drains its buffer(s), all of them or (PSO
    /// native atomic) one.
    fn drain(&mut self, m: usize, p: usize, only: Option<usize>, place: u32) {
        match only {
            Some(c) => {
                // (No pair: p's code never stores to c, nothing to drain.)
                if let Some(pair) = self.pairs.index(p, c as u32) {
                    let n = self.queue[pair].len() as u32;
                    let (key, _) = self.queue_of(m, p, pair, p);
                    self.force(m, key, p, Some(pair), n, p, place);
                }
            }
            None => {
                let n = self.stores[p].len() as u32;
                self.force(m, self.drains + m * self.t + p, p, None, n, p, place);
            }
        }
    }

    /// Process event `i` (the next one): report violations (`out(model
    /// index, variant index, signal)`; variant 0 when not measuring), then
    /// simulate it. `clocks`: the exploration's, SC happens-before
    /// ([`Clocks`]).
    pub fn push(
        &mut self,
        log: &[Event],
        i: usize,
        clocks: Clocks<'_>,
        out: &mut impl FnMut(usize, usize, RawViolation),
    ) {
        if self.inert {
            return;
        }
        let e = &log[i];
        let p = e.thread as usize;
        let prev = self.last[p];
        if matches!(e.kind, EventKind::Commit) {
            self.mark(e.thread, NONE, prev);
            return;
        }
        let store = matches!(e.kind, EventKind::Store);
        if self.watched.is_empty() && !(store && self.signals[e.stmt as usize] != 0) {
            // Nothing watched yet: no check can find a store, no forcing
            // has one to commit, and an unwatched store before every
            // watched one is neither checked nor counted in a queue.
            self.mark(e.thread, NONE, prev);
            self.last[p] = i as u32;
            return;
        }
        if let EventKind::Fence(k) = e.kind {
            self.mark(e.thread, NONE, prev);
            self.last[p] = i as u32;
            self.fence(e, k, clocks);
            return;
        }
        let pair = match store {
            true => match self.store_pair[e.stmt as usize] {
                NONE => self.pairs.index(p, e.cell).expect("a thread stores only where its code can") as u32,
                pair => pair,
            },
            false => NONE,
        };
        self.mark(e.thread, pair, prev);
        self.last[p] = i as u32;
        // The event's clock, read once (its place and the check need it).
        let row = clocks.row(e);
        let place = Clocks::place_in(row, e);
        if e.cell != NONE {
            // (A memory event always belongs to a transition under SC.)
            let ci = row.filter(|_| prev != NONE);
            self.access(log, i as u32, prev, place, ci, clocks, out);
        }
        // Perform e (lines 15–25): buffer a store; drain on atomics.
        if store {
            let pair = pair as usize;
            let mut watched = NONE;
            if self.signals[e.stmt as usize] != 0 {
                let w = self.watched.len();
                let need = (w + 1) * self.queues.len() * self.t;
                if self.first.len() < need {
                    self.first.resize(need, NONE);
                }
                if let Some(vs) = &mut self.variants {
                    let need = (w + 1) * self.queues.len() * vs.count;
                    if vs.first_drain.len() < need {
                        vs.first_drain.resize(need, NONE);
                    }
                }
                watched = w as u32;
                self.watched.push(i as u32);
                self.stores[p].push(watched);
                self.queue[pair].push(watched);
            }
            let entry = Entry {
                count: place / 2,
                fifo: self.stores[p].len() as u32,
                in_pair: self.queue[pair].len() as u32,
                watched,
            };
            self.by_cell[pair].push(entry);
        } else if e.is_atomic() && !self.stores[p].is_empty() {
            for m in 0..self.queues.len() {
                let only = (self.queues[m].pso && !self.x86).then_some(e.cell as usize);
                self.drain(m, p, only, place);
            }
        }
    }

    /// Fence `e` (of kind `k`) drains its thread's buffers under the
    /// models where it does, or (measured) in its variants.
    fn fence(&mut self, e: &Event, k: litmus_ir::FenceKind, clocks: Clocks<'_>) {
        let p = e.thread as usize;
        let n = self.stores[p].len() as u32;
        let drained = |m: usize| self.upto[self.drains + m * self.t + p] >= n;
        if self.variants.is_none() && (0..self.queues.len()).all(drained) {
            // Nothing of its thread is watched, or all of it is drained.
            return;
        }
        let place = clocks.place(e);
        let measured = self.variants.as_ref().filter(|vs| e.stmt >= vs.first).map(|vs| vs.first);
        for m in 0..self.queues.len() {
            if !self.queues[m].model.drains(k) {
                continue;
            }
            match measured {
                None => self.drain(m, p, None, place),
                Some(first) => {
                    // (Taken out while its variants drain, put back after.)
                    let f = (e.stmt - first) as usize;
                    let acting = self.variants.as_mut().map(|vs| std::mem::take(&mut vs.acting[f]));
                    for &v in acting.iter().flatten() {
                        self.drain_variant(m, v as usize, p, place);
                    }
                    if let (Some(vs), Some(acting)) = (self.variants.as_mut(), acting) {
                        vs.acting[f] = acting;
                    }
                }
            }
        }
    }

    /// [`Bss::push`] every event from `from` on; `out` also gets the
    /// signalling event's index.
    pub fn push_all(
        &mut self,
        log: &[Event],
        from: usize,
        clocks: Clocks<'_>,
        out: &mut impl FnMut(usize, usize, usize, RawViolation),
    ) {
        for i in from..log.len() {
            self.push(log, i, clocks, &mut |m, v, r| out(i, m, v, r));
        }
    }

    /// The check (Fig. 4/5, line 6) and the commits event `i` (a memory
    /// access at `place`, after `prev` in its thread; its clock `ci`, none
    /// for its thread's first event) forces.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn access(
        &mut self,
        log: &[Event],
        i: u32,
        prev: u32,
        place: u32,
        ci: Option<&[u32]>,
        clocks: Clocks<'_>,
        out: &mut impl FnMut(usize, usize, RawViolation),
    ) {
        let e = &log[i as usize];
        let (p, a) = (e.thread as usize, e.cell as usize);
        for w in self.writers_at[a] as usize..self.writers_at[a + 1] as usize {
            let (q, pair) = (self.writers[w].0 as usize, self.writers[w].1 as usize);
            if q == p {
                continue;
            }
            // q has not stored to a yet: nothing to check, nothing to force.
            let list = &self.by_cell[pair];
            let Some(&last) = list.last() else { continue };
            // p's earlier accesses forced every watched store of q to a
            // already (most accesses, once a program has run a while; all,
            // where q's stores so far are unwatched): the store checked
            // below is committed, and there is nothing new to force.
            let forced = |m: usize| {
                let (key, pso) = self.queue_of(m, q, pair, p);
                self.upto[key] >= last.prefix(pso)
            };
            if (0..self.queues.len()).all(forced) {
                continue;
            }
            if let Some(ci) = ci {
                // The last store of q to a that happens before prev[p]
                // (most often the last one: scan from the back). Stores are
                // memory events: one happens before prev iff its transition
                // count is at most prev's clock's.
                let before = clocks.at(&log[prev as usize], q);
                let checked = list.iter().rposition(|en| en.count <= before).map(|k| list[k].watched);
                if let Some(w) = checked.filter(|&w| w != NONE) {
                    let store = self.watched[w as usize];
                    let signals = self.signals[log[store as usize].stmt as usize];
                    for m in 0..self.queues.len() {
                        if signals & (1 << m) == 0 || self.committed(m, w, ci) {
                            continue;
                        }
                        let raw = RawViolation { store, access: i, prev };
                        let Some(vs) = &self.variants else {
                            out(m, 0, raw);
                            continue;
                        };
                        // Not committed by what all variants share: by the
                        // variant's own measured drains, then?
                        let row = &vs.first_drain[(w as usize * self.queues.len() + m) * vs.count..][..vs.count];
                        for (v, &d) in row.iter().enumerate() {
                            if !counts(self.forcing, d, ci[q]) && vs.live[m * vs.count + v] {
                                out(m, v, raw);
                            }
                        }
                    }
                }
            }
            // e forces the commit of q's stores to a (lines 10–12): TSO the
            // FIFO prefix up to q's last store to a, PSO all of them.
            for m in 0..self.queues.len() {
                let (key, pso) = self.queue_of(m, q, pair, p);
                self.force(m, key, q, pso.then_some(pair), last.prefix(pso), p, place);
            }
        }
    }

    /// Forget every event from `n` on.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.marks.len() {
            return;
        }
        let keep = self.marks[n].trail as usize;
        for &(at, old) in self.trail[keep..].iter().rev() {
            let i = (at & !TAG) as usize;
            match at & TAG {
                0 => self.first[i] = old,
                UPTO => self.upto[i] = old,
                tag => {
                    let vs = self.variants.as_mut().expect("only measuring sets these");
                    if tag == VFIRST {
                        vs.first_drain[i] = old;
                    } else {
                        vs.upto[i] = old;
                    }
                }
            }
        }
        self.trail.truncate(keep);
        for m in self.marks[n..].iter().rev() {
            let p = m.thread as usize;
            self.last[p] = m.last;
            if m.pair != NONE {
                let entry = self.by_cell[m.pair as usize].pop().expect("its store");
                if entry.watched != NONE {
                    self.watched.pop();
                    self.stores[p].pop();
                    self.queue[m.pair as usize].pop();
                }
            }
        }
        self.marks.truncate(n);
    }
}

/// Raise counter `key` of `upto` to `to`, on the trail with `tag`; the old
/// value, or `None` if it was already there.
fn raise(upto: &mut [u32], trail: &mut Vec<(u32, u32)>, key: usize, tag: u32, to: u32) -> Option<u32> {
    let old = upto[key];
    if old >= to {
        return None;
    }
    debug_assert!(key < 1 << 30, "a trail index must leave its two tag bits free");
    trail.push((key as u32 | tag, old));
    upto[key] = to;
    Some(old)
}

/// Record `place` in `slot` of `first` unless an earlier place is there
/// (places only grow), on the trail with `tag`.
fn first_at(first: &mut [u32], trail: &mut Vec<(u32, u32)>, slot: usize, tag: u32, place: u32) {
    if first[slot] == NONE {
        debug_assert!(slot < 1 << 30, "a trail index must leave its two tag bits free");
        first[slot] = place;
        trail.push((slot as u32 | tag, NONE));
    }
}

/// Does a forcing at place `f` (`NONE`: none), by a thread whose component
/// in the clock of the event e being checked is `c`, count when e runs?
#[inline]
fn counts(forcing: Forcing, f: u32, c: u32) -> bool {
    match forcing {
        // Forced by an event that happens before e: of another thread, at
        // most e's clock; of e's own, strictly before it in po (e has
        // forced nothing yet: at most is strictly before).
        Forcing::Causal => f <= 2 * c,
        Forcing::Interleaving => f != NONE,
    }
}
