//! The graph search on several cores. Each child graph is an independent
//! copy, so subtrees are independent work: no backtrack sets, nothing
//! shared on the hot path. A task is a subtree (a graph and its [`Path`]);
//! a worker searches it depth-first like the sequential search, except that
//! nodes far from the leaves list their children before searching them.
//! When the worker's own deque is empty (so an idle worker could steal
//! nothing from it) it hands out the last unsearched child of its
//! shallowest listed node — the biggest piece of work it holds — as a rayon
//! task, which idle workers steal. Nodes within [`MARGIN`] events of the
//! deepest complete graph so far recurse as the sequential search does
//! (their subtrees are too small to pay for a task; listing costs ~8 % more
//! instructions). Splitting only where an idle worker could take the piece
//! keeps tasks few (hundreds per million graphs) and large.
//!
//! Each task records its findings with their paths ([`super::findings`]);
//! the merge keeps what the sequential search keeps, and statistics sum,
//! so the outcome is the same for any number of workers.

use super::explore::{Path, Scratch, Search, Split};
use super::findings::Findings;
use super::graph::Graph;
use crate::dpor::{Control, Stats};
use crate::machine::{Machine, Model};
use crate::options::Options;
use litmus_ir::Program;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A node is split only if complete graphs so far had at least this many
/// more events than it has: a subtree of a few events is a few graphs.
const MARGIN: usize = 4;

/// When a node hands its children to other workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Splitting {
    /// When this worker's queue is empty and the node is not near the
    /// leaves (the search's policy).
    Lazy,
    /// Always: every graph is a task of its own (tests: the most merging).
    Everywhere,
}

/// What one worker thread keeps between tasks (machines are not `Sync`:
/// each worker has its own).
struct Worker<'p> {
    sc: Machine<'p>,
    m: Machine<'p>,
    scratch: Option<Scratch>,
}

struct Shared<'o, 'p> {
    prog: &'p Program,
    model: Model,
    opts: &'o Options,
    /// Per worker thread (by rayon's index), its machines and buffers.
    workers: Vec<Mutex<Option<Worker<'p>>>>,
    /// Each finished task's records and statistics.
    results: Mutex<Vec<(Findings, Stats)>>,
    /// Most events in a complete graph so far.
    deepest: AtomicUsize,
    /// Steps of every task so far (the work budget's count).
    steps: AtomicU64,
    splitting: Splitting,
}

struct Splitter<'a, 's, 'o, 'p> {
    shared: &'s Shared<'o, 'p>,
    scope: &'a rayon::Scope<'s>,
}

impl<'s, 'o: 's, 'p: 's> Split for Splitter<'_, 's, 'o, 'p> {
    fn hungry(&self) -> bool {
        rayon_core::current_thread_has_pending_tasks() == Some(false)
    }

    fn worth(&self, events: usize) -> bool {
        // Before the first complete graph, how deep leaves are is unknown.
        let deepest = self.shared.deepest.load(Ordering::Relaxed);
        self.shared.splitting == Splitting::Everywhere || deepest == 0 || events + MARGIN <= deepest
    }

    fn everywhere(&self) -> bool {
        self.shared.splitting == Splitting::Everywhere
    }

    fn leaf(&self, events: usize) {
        self.shared.deepest.fetch_max(events, Ordering::Relaxed);
    }

    fn spawn(&self, path: Path, g: Graph) {
        let shared = self.shared;
        self.scope.spawn(move |scope| task(shared, scope, path, g));
    }

    fn spend(&self, steps: u64) -> u64 {
        self.shared.steps.fetch_add(steps, Ordering::Relaxed) + steps
    }
}

/// Search every consistent graph of `prog` under `model` with `threads`
/// workers. The records of every task, and the summed statistics; `None`
/// if no thread pool could be made (then search sequentially).
pub fn explore(
    prog: &Program,
    model: Model,
    opts: &Options,
    threads: usize,
    splitting: Splitting,
) -> Option<(Vec<Findings>, Stats)> {
    let pool = pool(threads)?;
    let sc = Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound);
    let init = Graph::new(&sc, &mut Vec::new());
    let shared = Shared {
        prog,
        model,
        opts,
        workers: (0..pool.current_num_threads()).map(|_| Mutex::new(None)).collect(),
        results: Mutex::new(Vec::new()),
        deepest: AtomicUsize::new(0),
        steps: AtomicU64::new(0),
        splitting,
    };
    pool.install(|| rayon::scope(|scope| task(&shared, scope, Vec::new(), init)));
    let results = shared.results.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut stats = Stats::default();
    let mut parts = Vec::with_capacity(results.len());
    for (findings, s) in results {
        stats.absorb(&s);
        parts.push(findings);
    }
    Some((parts, stats))
}

/// Search the subtree of `g` at `path` on this worker.
fn task<'s, 'o: 's, 'p: 's>(shared: &'s Shared<'o, 'p>, scope: &rayon::Scope<'s>, path: Path, g: Graph) {
    let (prog, model, opts) = (shared.prog, shared.model, shared.opts);
    let slot = rayon::current_thread_index().and_then(|i| shared.workers.get(i));
    // A worker runs one task at a time (tasks never wait), so its slot is
    // free; a fresh worker otherwise.
    let mut w = slot.and_then(|s| s.lock().ok().and_then(|mut w| w.take())).unwrap_or_else(|| Worker {
        sc: Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound),
        m: Machine::new(prog, model.interpreter(), opts.loop_bound, opts.buffer_bound),
        scratch: None,
    });
    let mut findings = Findings::new(model);
    let split = Splitter { shared, scope };
    let scratch = w.scratch.take().unwrap_or_else(|| Scratch::new(&w.sc));
    let m = &w.m;
    let mut search = Search::with_scratch(&w.sc, model, opts, scratch, Some(&split), |g, kind, checker, path| {
        findings.graph(prog, m, opts, g, kind, checker, path);
        Control::Continue
    });
    search.run_from(path, g);
    search.settle_steps();
    let stats = std::mem::take(&mut search.stats);
    let scratch = search.into_scratch();
    w.scratch = Some(scratch);
    if let Some(s) = slot {
        if let Ok(mut s) = s.lock() {
            *s = Some(w);
        }
    }
    if let Ok(mut r) = shared.results.lock() {
        r.push((findings, stats));
    }
}

/// A pool of `threads` workers, made once per size and kept.
fn pool(threads: usize) -> Option<Arc<rayon::ThreadPool>> {
    static POOLS: OnceLock<Mutex<Vec<Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS.get_or_init(|| Mutex::new(Vec::new())).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = pools.iter().find(|p| p.current_num_threads() == threads) {
        return Some(p.clone());
    }
    let p = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("litmus-graph-{i}"))
            // The search recurses once per event or so: room for long programs.
            .stack_size(crate::options::CHECK_STACK)
            .build()
            .ok()?,
    );
    pools.push(p.clone());
    Some(p)
}
