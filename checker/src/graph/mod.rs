//! Exploration by execution graph for TSO and PSO (and SC, for tests): one
//! visit per consistent graph — events per thread in program order, rf per
//! read, co per cell — instead of one per interleaving of buffer commits.
//!
//! - [`graph`]: the graph, its threads interpreted by the machine itself;
//! - [`rules`]: the model's ordering rules within a thread, which both
//!   checks below ask;
//! - [`consistency`]: the model as a predicate (the machine's timing,
//!   acyclic);
//! - [`incremental`]: the same predicate after one added event, searched
//!   from that event only;
//! - [`explore`]: TruSt's depth-first search with forward and backward
//!   revisits, each graph reached once;
//! - [`linearize`]: a graph as a machine schedule (witnesses, harm);
//! - [`findings`]: what a search keeps, recorded with each graph's place in
//!   the sequential order so that parts searched apart merge exactly;
//! - [`parallel`]: the search on several cores (subtrees are independent);
//! - [`robust`]: robustness from the graphs (each one SC-consistent or a
//!   violation with its own witness).
//!
//! There is no buffer bound here: a graph says which store each read sees,
//! not how full the buffers were. The loop bound still cuts executions.

pub mod axiomatic;
pub mod axioms;
pub mod consistency;
pub mod consistent;
pub mod encode;
pub mod explore;
pub mod fenced;
pub mod findings;
#[allow(clippy::module_inception)]
pub mod graph;
pub mod incremental;
pub mod linearize;
pub mod parallel;
pub mod robust;
pub mod rules;

use crate::dpor::{Control, ExecKind, Execution, Stats};
use crate::machine::{Machine, Model};
use crate::options::Options;
use crate::outcome::ModelOutcome;
use litmus_ir::Program;
use std::time::Instant;

/// Can the graph explorer answer for this model and these options? TSO
/// and PSO (SC for tests), without a preemption bound (it bounds
/// interleavings, which graphs do not have).
pub fn supports(model: Model, opts: &Options) -> bool {
    model.by_graphs() && opts.preemption_bound.is_none()
}

/// Explore every consistent graph of `prog` under `model`. `observer`, if
/// given, sees each graph as a machine execution (linearized: costly), when
/// `wants` says it is interested in an ending of this kind and final state.
///
/// Without an observer the search runs on `opts.threads` workers
/// ([`parallel`]); the outcome is the same for any number. An observer
/// keeps the sequential search: it sees graphs in its order, as the
/// interleaving explorer's observers do (harm keeps the first proof).
pub fn explore(prog: &Program, model: Model, opts: &Options, observer: Option<&mut dyn Observer>) -> ModelOutcome {
    let threads = opts.threads.max(1);
    match observer {
        // `--first` keeps one search: which worker finds first is timing.
        None if threads > 1 && opts.budget.found.is_none() => {
            explore_splitting(prog, model, opts, parallel::Splitting::Lazy)
        }
        None => {
            let start = Instant::now();
            let (parts, stats) = sequential(prog, model, opts, None);
            outcome(prog, model, opts, parts, stats, start)
        }
        // An observer sees graphs in the one search's order, however far
        // it went: no other order exists to disagree with.
        observer => {
            let start = Instant::now();
            let (parts, stats) = sequential(prog, model, opts, observer);
            let (keep, reads) = findings::merge(parts);
            keep.finish(prog, model, reads, stats, start)
        }
    }
}

/// Explore on `opts.threads` workers (at least one task, even with one
/// worker), splitting the search as `splitting` says.
pub fn explore_splitting(prog: &Program, model: Model, opts: &Options, splitting: parallel::Splitting) -> ModelOutcome {
    let start = Instant::now();
    let (parts, stats) = match parallel::explore(prog, model, opts, opts.threads.max(1), splitting) {
        Some(done) => done,
        None => sequential(prog, model, opts, None),
    };
    outcome(prog, model, opts, parts, stats, start)
}

/// The outcome of the searches that together covered the tree. Which
/// graphs workers reached before the work budget ran out depends on how
/// they shared the tree: a search past its budget keeps nothing but that
/// it stopped, on one worker as on many (the steps of the whole tree are
/// the same however it was shared, so whether it went past is not).
pub(crate) fn outcome(
    prog: &Program,
    model: Model,
    opts: &Options,
    mut parts: Vec<findings::Findings>,
    mut stats: Stats,
    start: Instant,
) -> ModelOutcome {
    if let Some(max) = opts.budget.max_steps.filter(|&m| stats.transitions > m) {
        parts.clear();
        stats = Stats { transitions: max, work_cut: Some(max), ..Stats::default() };
    }
    let (keep, reads) = findings::merge(parts);
    keep.finish(prog, model, reads, stats, start)
}

/// The search on this thread, in depth-first order.
fn sequential(
    prog: &Program,
    model: Model,
    opts: &Options,
    mut observer: Option<&mut dyn Observer>,
) -> (Vec<findings::Findings>, Stats) {
    let sc = Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound);
    let m = Machine::new(prog, model.interpreter(), opts.loop_bound, opts.buffer_bound);
    let mut found = findings::Findings::new(model);
    let stats = {
        let mut search = explore::Search::new(&sc, model, opts, |g, kind, checker, path| {
            if let Some(o) = observer.as_deref_mut() {
                if o.wants(kind, &g.st) {
                    if let Some(l) = found.linear(g, &m, checker) {
                        o.observe(&Execution {
                            kind,
                            events: &l.events,
                            state: &l.state,
                            schedule: &l.schedule,
                            fresh: 0,
                        });
                    }
                }
            }
            found.graph(prog, &m, opts, g, kind, checker, path);
            Control::Continue
        });
        search.run();
        search.stats
    };
    (vec![found], stats)
}

/// What rides along a graph exploration and wants some graphs as machine
/// executions.
pub trait Observer {
    /// Is an execution ending this way, with this final state (registers,
    /// statuses, final memory), of interest?
    fn wants(&self, kind: ExecKind, state: &crate::machine::State) -> bool;
    fn observe(&mut self, e: &Execution<'_>);
}

/// Every graph, as an execution (tests, the `explore_with` contract).
pub struct Every<F>(pub F);

impl<F: FnMut(&Execution<'_>)> Observer for Every<F> {
    fn wants(&self, _: ExecKind, _: &crate::machine::State) -> bool {
        true
    }
    fn observe(&mut self, e: &Execution<'_>) {
        (self.0)(e)
    }
}
