//! The depth-first search over execution graphs (TruSt, Kokologiannakis,
//! Marmanis, Gladstein, Vafeiadis, POPL'22; GenMC's revisit conditions).
//!
//! Events are added one at a time, always to the first running thread. A
//! read is tried with every write of its cell already in the graph (forward
//! revisits). A store is tried at every place in its cell's coherence order
//! (an atomic right after the write it reads); and a write *backward
//! revisits* each earlier read of its cell outside its porf-prefix: the
//! events added after the read that are not in the write's porf-prefix are
//! deleted and the read reads the write. A revisit is made only when every
//! deleted event (and the read) was *added maximally* — a read reading the
//! co-last write, a write placed co-last, none co-before what stays, none
//! reading a deleted write added after it — so each graph has exactly one
//! way to be reached: every consistent graph is visited once.

use super::axioms::JudgeError;
use super::consistency::Checker;
use super::consistent::{Consistency, Keeps};
use super::graph::{Graph, Id, Next};
use super::incremental::Incremental;
use crate::dpor::{Control, ExecKind, Stats};
use crate::machine::{self, Machine, Model};
use crate::options::Options;
use crate::progress::Tally;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A graph's place in the sequential depth-first order: the index of each
/// node among its parent's children, from the root. Paths compare as the
/// sequential search visits (a leaf's path is never a prefix of another's),
/// which is what lets subtrees searched apart merge into the sequential
/// answer ([`super::findings`]).
pub type Path = Vec<u32>;

/// Where a parallel search hands subtrees to other workers
/// ([`super::parallel`]).
pub trait Split {
    /// Should this worker hand out work now (no other worker could take
    /// any from it)?
    fn hungry(&self) -> bool;
    /// Is a subtree whose graph has `events` events worth a task?
    fn worth(&self, events: usize) -> bool;
    /// Hand out every child (tests: the most merging).
    fn everywhere(&self) -> bool;
    /// A complete graph with `events` events was reached (how deep leaves are).
    fn leaf(&self, events: usize);
    /// Search the subtree of `g`, at `path`, elsewhere.
    fn spawn(&self, path: Path, g: Graph);
    /// This worker made `steps` more steps: the whole search's so far.
    fn spend(&self, steps: u64) -> u64;
}

pub struct Search<'m, 'p, 'o, 's, F> {
    /// The threads' interpreter (SC: every access is a step of its own).
    pub sc: &'m Machine<'p>,
    pub model: Model,
    pub checker: Checker,
    /// The model's answer to "is this graph consistent?".
    cons: Consistency,
    /// Graphs done with, their buffers reused by the next copy.
    pool: Vec<Graph>,
    opts: &'o Options,
    /// The empty graph (initial interpreter state).
    init: Graph,
    log: Vec<machine::Event>,
    view: Vec<u32>,
    stack: Vec<Id>,
    pub stats: Stats,
    stopped: bool,
    polls: u32,
    /// Steps (`stats.transitions`) already told to `split`.
    spent: u64,
    on_graph: F,
    /// The current node's path, and per open node how many children it has
    /// visited so far.
    path: Path,
    kids: Vec<u32>,
    /// Parallel search: where subtrees go; per open listed node from the
    /// task's root down, its path length and its children not yet searched
    /// (each with its index); emptied lists for reuse.
    split: Option<&'s dyn Split>,
    levels: Vec<(usize, VecDeque<(u32, Graph)>)>,
    spare: Vec<VecDeque<(u32, Graph)>>,
    /// Children are listed, not visited (the node is `node_listed`).
    listing: bool,
    /// Most events in a complete graph so far (reported to `split` when it grows).
    deepest: usize,
    /// Graphs for `opts.progress`, sent in batches (each worker its own:
    /// no shared cache line per graph) and in full when the search is dropped.
    tally: Tally,
    /// A revisit's threads to replay (reused).
    redo: Vec<bool>,
}

/// A worker's reusable buffers: the checkers, the graph pool, the log.
pub struct Scratch {
    checker: Checker,
    inc: Incremental,
    pool: Vec<Graph>,
    init: Graph,
    log: Vec<machine::Event>,
    view: Vec<u32>,
    stack: Vec<Id>,
}

impl Scratch {
    pub fn new(sc: &Machine<'_>) -> Scratch {
        let mut log = Vec::new();
        let init = Graph::new(sc, &mut log);
        Scratch {
            checker: Checker::new(),
            inc: Incremental::default(),
            pool: Vec::new(),
            init,
            log,
            view: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// The empty graph.
    pub fn init(&self) -> &Graph {
        &self.init
    }
}

/// Graphs kept for reuse: a worker that receives subtrees from others would
/// otherwise keep every graph it was handed.
const POOL_MAX: usize = 1024;

impl<'m, 'p, 'o, 's, F: FnMut(&mut Graph, ExecKind, &mut Checker, &[u32]) -> Control> Search<'m, 'p, 'o, 's, F> {
    pub fn new(sc: &'m Machine<'p>, model: Model, opts: &'o Options, on_graph: F) -> Self {
        Self::with_scratch(sc, model, opts, Scratch::new(sc), None, on_graph)
    }

    /// A search reusing `scratch` (built for `sc`), handing subtrees to
    /// `split` if given.
    pub fn with_scratch(
        sc: &'m Machine<'p>,
        model: Model,
        opts: &'o Options,
        scratch: Scratch,
        split: Option<&'s dyn Split>,
        on_graph: F,
    ) -> Self {
        let Scratch { checker, inc, pool, init, log, view, stack } = scratch;
        Search {
            sc,
            model,
            checker,
            cons: Consistency::of(model, inc),
            pool,
            opts,
            init,
            log,
            view,
            stack,
            stats: Stats::default(),
            stopped: false,
            polls: 0,
            spent: 0,
            on_graph,
            path: Vec::new(),
            kids: Vec::new(),
            split,
            levels: Vec::new(),
            spare: Vec::new(),
            listing: false,
            deepest: 0,
            tally: Tally::new(opts.budget.progress.clone()),
            redo: Vec::new(),
        }
    }

    /// The buffers, for the worker's next search.
    pub fn into_scratch(self) -> Scratch {
        let Search { checker, cons, pool, init, log, view, stack, .. } = self;
        Scratch { checker, inc: cons.into_incremental(), pool, init, log, view, stack }
    }

    /// Visit every consistent graph.
    pub fn run(&mut self) {
        let g = self.init.clone();
        self.run_from(Vec::new(), g);
    }

    /// Visit every consistent graph of the subtree of `g`, at `path` in the
    /// whole search.
    pub fn run_from(&mut self, path: Path, g: Graph) {
        self.path = path;
        self.kids.clear();
        self.any_node(g);
    }

    /// A copy of `g` in a graph from the pool (no allocation once warm).
    fn copy(&mut self, g: &Graph) -> Graph {
        match self.pool.pop() {
            Some(mut c) => {
                c.copy_from(g);
                c
            }
            None => g.clone(),
        }
    }

    fn give(&mut self, g: Graph) {
        if self.pool.len() < POOL_MAX {
            self.pool.push(g);
        }
    }

    fn stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        // The first poll too: a check whose deadline has passed stops before
        // it starts, however small the program.
        self.polls = self.polls.wrapping_add(1);
        if self.polls % 64 != 1 {
            return false;
        }
        self.poll()
    }

    /// One poll of the budget and the work (out of line: `expand`, which
    /// recurses once per event, keeps a small frame — a long thread's
    /// search runs on a thread's default stack).
    #[cold]
    #[inline(never)]
    fn poll(&mut self) -> bool {
        if self.opts.budget.stopped() {
            self.stopped = true;
            self.stats.timed_out = true;
            self.stats.cancelled = self.opts.budget.cancelled();
            self.stats.first = self.opts.budget.found();
        } else if let Some(max) = self.opts.budget.max_steps {
            // Steps done, never more: past the budget here, the whole
            // search is past it.
            if self.steps_so_far() > max {
                self.stopped = true;
                self.stats.work_cut = Some(max);
            }
        }
        self.stopped
    }

    /// The whole search's steps so far, as far as this worker knows (its
    /// own told to the others first).
    fn steps_so_far(&mut self) -> u64 {
        match self.split {
            None => self.stats.transitions,
            Some(split) => {
                let new = self.stats.transitions - self.spent;
                self.spent = self.stats.transitions;
                split.spend(new)
            }
        }
    }

    /// Tell the other workers the steps not told yet (a task's end).
    pub fn settle_steps(&mut self) {
        if self.split.is_some() {
            self.steps_so_far();
        }
    }

    /// A child of the current node: its place is the next index.
    fn visit(&mut self, g: Graph) {
        if self.split.is_none() {
            // One search visits in order: paths are not needed (its records
            // keep the root's path, and the merge's sort is stable).
            return self.expand(g);
        }
        let k = self.kids.last_mut().expect("a child has a parent");
        let i = *k;
        *k += 1;
        if self.listing {
            // Searched after its siblings are made (`node_listed`).
            if let Some((_, level)) = self.levels.last_mut() {
                level.push_back((i, g));
            }
            return;
        }
        self.path.push(i);
        self.any_node(g);
        self.path.pop();
    }

    /// The node at `self.path`: listed where a parallel search may hand
    /// parts of its subtree out, else recursive.
    fn any_node(&mut self, g: Graph) {
        match self.split {
            Some(split) if split.worth(events(&g)) => self.node_listed(g, split),
            _ => self.node(g),
        }
    }

    /// The node at `self.path`, its children visited as they are made.
    fn node(&mut self, g: Graph) {
        self.kids.push(0);
        let outer = std::mem::replace(&mut self.listing, false);
        self.expand(g);
        self.listing = outer;
        self.kids.pop();
    }

    /// The node at `self.path` in a parallel search: its children are
    /// listed first, then searched in order — so that the shallowest
    /// children not yet searched can be handed to idle workers (the largest
    /// pieces of work at hand; a recursive search keeps them in its loops).
    /// Near the leaves, where subtrees are too small to hand out, nodes are
    /// recursive (listing costs ~8 % more instructions).
    fn node_listed(&mut self, g: Graph, split: &dyn Split) {
        let level = self.spare.pop().unwrap_or_default();
        self.levels.push((self.path.len(), level));
        self.kids.push(0);
        let outer = std::mem::replace(&mut self.listing, true);
        self.expand(g);
        self.listing = outer;
        self.kids.pop();
        let everywhere = split.everywhere();
        while let Some((i, child)) = self.levels.last_mut().and_then(|(_, l)| l.pop_front()) {
            self.path.push(i);
            if everywhere {
                split.spawn(self.path.clone(), child);
            } else {
                if !self.stopped && split.hungry() {
                    self.hand_out(split);
                }
                self.any_node(child);
            }
            self.path.pop();
        }
        if let Some((_, level)) = self.levels.pop() {
            self.spare.push(level);
        }
    }

    /// Hand the last unsearched child of the shallowest listed node to
    /// another worker, if it is worth a task.
    fn hand_out(&mut self, split: &dyn Split) {
        let Some(l) = self.levels.iter().position(|(_, c)| !c.is_empty()) else { return };
        let (at, level) = &mut self.levels[l];
        if !level.back().is_some_and(|(_, g)| split.worth(events(g))) {
            return;
        }
        if let Some((i, g)) = level.pop_back() {
            // The listed node's path is the first `at` indices of ours.
            let mut path = self.path[..*at].to_vec();
            path.push(i);
            split.spawn(path, g);
        }
    }

    /// Extend a consistent graph in every way.
    fn expand(&mut self, mut g: Graph) {
        if self.stop() {
            return self.give(g);
        }
        loop {
            let Some(t) = g.first_running() else {
                return self.report(g);
            };
            match g.peek(self.sc, t) {
                Next::Read { cell, .. } => return self.add_read(g, t, cell),
                Next::Write { cell } => return self.add_write(g, t, cell),
                next => {
                    g.add(self.sc, t, next, None, &mut self.log);
                }
            }
        }
    }

    fn add_read(&mut self, g: Graph, t: usize, cell: u32) {
        let next = g.peek(self.sc, t);
        let n = g.co[cell as usize].len();
        for k in co_floor(&g, t, cell)..=n {
            if self.stopped {
                break;
            }
            let w = if k == 0 { Id::init(cell) } else { g.co[cell as usize][k - 1] };
            let mut g2 = self.copy(&g);
            let Some(id) = g2.add(self.sc, t, next, Some(w), &mut self.log) else {
                self.give(g);
                return self.visit(g2);
            };
            self.stats.transitions += 1;
            g2.ev_mut(id).added_max = k == n;
            if g2.ev(id).writes {
                // An atomic: right after what it reads; it may revisit.
                g2.co[cell as usize].insert(k, id);
                self.revisits(&g2, id, &[]);
            }
            // Reading the co-last write is always consistent under the
            // machines' timing: the read can run after everything else
            // (TruSt's maximal extension); a model given as data says when.
            let maximal = k == n && self.cons.maximal_extension_holds(&g2, id);
            self.verify_maximal(maximal, &g2, id);
            if maximal || self.consistent_after(&g2, id) {
                self.visit(g2);
            } else {
                self.give(g2);
            }
        }
        self.give(g);
    }

    fn add_write(&mut self, mut g: Graph, t: usize, cell: u32) {
        let next = g.peek(self.sc, t);
        let Some(id) = g.add(self.sc, t, next, None, &mut self.log) else {
            return self.visit(g);
        };
        self.stats.transitions += 1;
        self.revisits(&g, id, &[]);
        let n = g.co[cell as usize].len();
        for k in co_floor(&g, t, cell)..=n {
            if self.stopped {
                break;
            }
            let mut g2 = self.copy(&g);
            g2.co[cell as usize].insert(k, id);
            g2.ev_mut(id).added_max = k == n;
            // Co-last is consistent under the machines' timing (it can
            // commit after everything); a model given as data says when.
            let maximal = k == n && self.cons.maximal_extension_holds(&g2, id);
            self.verify_maximal(maximal, &g2, id);
            if maximal || self.consistent_after(&g2, id) {
                self.visit(g2);
            } else {
                self.give(g2);
            }
        }
        self.give(g);
    }

    /// Debug builds, and tests that ask ([`VERIFY_MAXIMAL`]): the model's
    /// own answer on a maximal extension taken as consistent unasked.
    fn verify_maximal(&mut self, maximal: bool, g: &Graph, id: Id) {
        if maximal && (cfg!(debug_assertions) || VERIFY_MAXIMAL.load(Ordering::Relaxed)) {
            assert!(self.holds(g, id), "a maximal extension taken unasked is not consistent");
            MAXIMAL_VERIFIED.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The full answer on a graph the search took as consistent unasked
    /// (debug builds' check of the maximal extensions).
    fn holds(&mut self, g: &Graph, new: Id) -> bool {
        if self.cons.judge().is_some() {
            self.cons.after(g, &[new]).unwrap_or(true)
        } else {
            self.checker.consistent(g, self.model)
        }
    }

    /// Is `g` consistent, given that it was before its newest event `new`
    /// was added (searched from `new` only; debug builds compare with the
    /// full check).
    fn consistent_after(&mut self, g: &Graph, new: Id) -> bool {
        let ok = self.answer(g, &[new], false);
        debug_assert!(!self.cons.maximal_extensions_hold() || ok == self.checker.consistent(g, self.model));
        ok
    }

    /// Backward revisits by write `a` (the newest event; a plain store has
    /// no coherence place yet, an atomic has).
    fn revisits(&mut self, g: &Graph, a: Id, dirty: &[Id]) {
        let mut view = std::mem::take(&mut self.view);
        let mut stack = std::mem::take(&mut self.stack);
        // What stays whatever the revisit deletes: the model says.
        match self.cons.keeps() {
            Keeps::PorfPrefix => g.porf_view(a, &mut view, &mut stack),
        }
        let cell = g.ev(a).cell;
        let mut reads: Vec<Id> = Vec::new();
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, e) in evs.iter().enumerate().skip(view[t] as usize) {
                if e.reads && e.cell == cell && e.revisitable && e.added_max {
                    reads.push(Id { thread: t as u16, index: i as u32 });
                }
            }
        }
        // Newest first (GenMC's order; any order visits the same graphs).
        reads.sort_by_key(|&r| std::cmp::Reverse(g.ev(r).stamp));
        let mut keep = vec![0u32; g.threads.len()];
        for r in reads {
            if self.stopped {
                break;
            }
            let sr = g.ev(r).stamp;
            for (t, evs) in g.threads.iter().enumerate() {
                keep[t] = view[t].max(evs.partition_point(|e| e.stamp <= sr) as u32);
            }
            if !self.maximal(g, r, a, &keep) {
                continue;
            }
            self.revisit(g, r, a, &keep, &view, dirty);
        }
        self.view = view;
        self.stack = stack;
    }

    /// TruSt's condition: the read `r` and every event to be deleted were
    /// added maximally with respect to what stays.
    fn maximal(&self, g: &Graph, r: Id, a: Id, keep: &[u32]) -> bool {
        let kept = |id: Id| id.is_init() || id.index < keep[id.thread as usize];
        let ok = |e_id: Id| {
            let e = g.ev(e_id);
            if !e.added_max {
                return false;
            }
            if e.reads {
                let w = e.rf;
                if !w.is_init() && !kept(w) && g.ev(w).stamp > e.stamp {
                    return false; // revisited by a write being deleted
                }
                if g.co_after(e.cell, w).iter().any(|&s| s != a && s != e_id && kept(s)) {
                    return false;
                }
            }
            if e.writes && g.co_after(e.cell, e_id).iter().any(|&s| s != a && kept(s)) {
                return false;
            }
            true
        };
        if !ok(r) {
            return false;
        }
        for (t, evs) in g.threads.iter().enumerate() {
            for i in keep[t] as usize..evs.len() {
                if !ok(Id { thread: t as u16, index: i as u32 }) {
                    return false;
                }
            }
        }
        true
    }

    /// Delete what `keep` leaves out, make `r` read `a`, and visit each
    /// coherence place of `a` among the writes that stay.
    fn revisit(&mut self, g: &Graph, r: Id, a: Id, keep: &[u32], porf: &[u32], dirty: &[Id]) {
        // What changed since the last graph known consistent: the revisit
        // chain's writes and reads, each the last event of its thread.
        let mut dirty = dirty.to_vec();
        dirty.extend([a, r]);
        let mut g2 = self.copy(g);
        // Threads to run again: those losing events, and the revisited read's.
        let mut redo = std::mem::take(&mut self.redo);
        redo.clear();
        redo.extend(
            g.threads.iter().enumerate().map(|(t, evs)| keep[t] as usize != evs.len() || t == r.thread as usize),
        );
        for (t, evs) in g2.threads.iter_mut().enumerate() {
            evs.truncate(keep[t] as usize);
            for e in evs.iter_mut().take(porf[t] as usize) {
                e.revisitable = false;
            }
        }
        for list in g2.co.iter_mut() {
            list.retain(|id| id.index < keep[id.thread as usize]);
        }
        let cell = g.ev(a).cell;
        g2.co[cell as usize].retain(|&id| id != r);
        g2.ev_mut(r).rf = a;
        g2.replay_threads(self.sc, &self.init, &redo, &mut self.log);
        self.redo = redo;
        let r_writes = g2.ev(r).writes;
        if g.ev(a).reads {
            // An atomic's place is fixed (right after what it reads).
            let p = g2.co[cell as usize].iter().position(|&x| x == a).expect("atomic in co");
            g2.ev_mut(r).added_max = p + 1 == g2.co[cell as usize].len();
            if r_writes {
                g2.co[cell as usize].insert(p + 1, r);
            }
            self.revisited(g2, r, r_writes, &dirty);
            return;
        }
        let n = g2.co[cell as usize].len();
        for k in 0..=n {
            if self.stopped {
                break;
            }
            let mut g3 = self.copy(&g2);
            let list = &mut g3.co[cell as usize];
            list.insert(k, a);
            if r_writes {
                list.insert(k + 1, r);
            }
            g3.ev_mut(a).added_max = k == n;
            g3.ev_mut(r).added_max = k == n;
            self.revisited(g3, r, r_writes, &dirty);
        }
        self.give(g2);
    }

    /// A revisited graph: an atomic `r` now writes a new value, which may
    /// revisit reads in turn (GenMC's write part of a revisited RMW).
    fn revisited(&mut self, g: Graph, r: Id, r_writes: bool, dirty: &[Id]) {
        if r_writes {
            self.revisits(&g, r, dirty);
        }
        // Without the chain's events the graph is a po-prefix of a
        // consistent one (if every kept read's write is kept), so consistent.
        let rf_kept = g
            .threads
            .iter()
            .flatten()
            .all(|e| !e.reads || e.rf.is_init() || (e.rf.index as usize) < g.threads[e.rf.thread as usize].len());
        let ok = rf_kept && self.answer(&g, dirty, false);
        debug_assert!(!self.cons.maximal_extensions_hold() || ok == self.checker.consistent(&g, self.model));
        if ok {
            self.visit(g);
        } else {
            self.give(g);
        }
    }

    /// The model's answer on `g` (a prefix changed at `news`, or
    /// `complete`). A graph the model cannot judge stops the search, which
    /// says why.
    fn answer(&mut self, g: &Graph, news: &[Id], complete: bool) -> bool {
        let got = if complete { self.cons.complete(g) } else { self.cons.after(g, news) };
        match got {
            Ok(ok) => ok,
            Err(e) => {
                let id = self.cons.judge().map(|j| j.id);
                let why = match &e {
                    JudgeError::TooBig(n) => crate::catalog::Unjudged::TooManyEvents(*n as u32),
                    JudgeError::Model(msg) => {
                        let id = id.expect("only a model given as data fails to judge");
                        crate::catalog::note_error(id, msg);
                        crate::catalog::Unjudged::ModelError(id)
                    }
                };
                self.stats.unjudged.get_or_insert(why);
                self.stopped = true;
                false
            }
        }
    }

    /// A complete graph: how its execution ended.
    fn report(&mut self, mut g: Graph) {
        // Prefixes may have been judged by part of the model only.
        if !self.answer(&g, &[], true) {
            return self.give(g);
        }
        g.set_final_memory(self.sc);
        let kind = ExecKind::of(self.sc, &g.st);
        self.stats.count(kind);
        self.tally.one();
        if let Some(split) = self.split {
            let n = events(&g);
            if n > self.deepest {
                self.deepest = n;
                split.leaf(n);
            }
        }
        if let Control::Stop = (self.on_graph)(&mut g, kind, &mut self.checker, &self.path) {
            self.stopped = true;
        }
        self.give(g);
    }
}

/// Tests: check every maximal extension taken unasked against the model's
/// own answer, in release builds too (debug builds always do).
pub static VERIFY_MAXIMAL: AtomicBool = AtomicBool::new(false);

/// How many were checked so (a test that checks them sees some).
pub static MAXIMAL_VERIFIED: AtomicU64 = AtomicU64::new(0);

fn events(g: &Graph) -> usize {
    g.threads.iter().map(Vec::len).sum()
}

/// Per-thread coherence: thread `t`'s next access of `cell` reads a write,
/// or places its write, co-after every write of `cell` it wrote or read
/// (any earlier place closes a cycle through those, in every model; a
/// revisit keeps that cycle, as it keeps the thread's po-prefix and what it
/// read). The first co index allowed (0: the initial write / co-first).
fn co_floor(g: &Graph, t: usize, cell: u32) -> usize {
    let list = &g.co[cell as usize];
    let mut floor = 0;
    for (i, &w) in list.iter().enumerate() {
        if w.thread as usize == t {
            floor = i + 1;
        }
    }
    for e in &g.threads[t] {
        if e.reads && e.cell == cell && !e.rf.is_init() && e.rf.thread as usize != t {
            if let Some(p) = list[floor..].iter().position(|&x| x == e.rf) {
                floor += p + 1;
            }
        }
    }
    floor
}
