//! Exploration by execution graph for TSO and PSO (and SC, for tests): one
//! visit per consistent graph — events per thread in program order, rf per
//! read, co per cell — instead of one per interleaving of buffer commits.
//!
//! - [`graph`]: the graph, its threads interpreted by the machine itself;
//! - [`consistency`]: the model as a predicate (the machine's timing,
//!   acyclic);
//! - [`incremental`]: the same predicate after one added event, searched
//!   from that event only;
//! - [`explore`]: TruSt's depth-first search with forward and backward
//!   revisits, each graph reached once;
//! - [`linearize`]: a graph as a machine schedule (witnesses, harm).
//!
//! There is no buffer bound here: a graph says which store each read sees,
//! not how full the buffers were. The loop bound still cuts executions.

pub mod consistency;
pub mod explore;
#[allow(clippy::module_inception)]
pub mod graph;
pub mod incremental;
pub mod linearize;

use crate::dpor::{Control, ExecKind, Execution, Stats};
use crate::machine::{Machine, Model, ThreadStatus};
use crate::options::Options;
use crate::outcome::{schedule_prefix, CondError, Failure, Final, FinalState, ModelOutcome, Witness};
use litmus_dsl::ir::Program;
use std::collections::BTreeMap;
use std::time::Instant;

/// Can the graph explorer answer for this model and these options? TSO
/// and PSO (SC for tests), without a preemption bound (it bounds
/// interleavings, which graphs do not have).
pub fn supports(model: Model, opts: &Options) -> bool {
    matches!(model, Model::Sc | Model::Tso | Model::Pso) && opts.preemption_bound.is_none()
}

/// Explore every consistent graph of `prog` under `model`. `observer`, if
/// given, sees each graph as a machine execution (linearized: costly), when
/// `wants` says it is interested in an ending of this kind and final state.
pub fn explore(prog: &Program, model: Model, opts: &Options, mut observer: Option<&mut dyn Observer>) -> ModelOutcome {
    let start = Instant::now();
    let sc = Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound);
    let m = Machine::new(prog, model, opts.loop_bound, opts.buffer_bound);
    let mut states: BTreeMap<Vec<i64>, FinalState> = BTreeMap::new();
    let mut failures: Vec<Failure> = Vec::new();
    let mut deadlocks: Vec<Witness> = Vec::new();
    let mut condition_errors: Vec<CondError> = Vec::new();
    let mut unwitnessed = 0u64;
    let stats = {
        let mut search = explore::Search::new(&sc, model, opts, |g, kind, checker| {
            let witness = |checker: &mut consistency::Checker| {
                let l = linearize::linearize(g, &m, checker);
                debug_assert!(l.is_some(), "a consistent graph the machine cannot follow");
                #[cfg(debug_assertions)]
                if let Some(l) = &l {
                    if let Err(e) = linearize::matches(g, &m, &l.events) {
                        panic!("linearized graph differs from its replay: {e}");
                    }
                }
                l
            };
            if let Some(o) = observer.as_deref_mut() {
                if o.wants(kind, &g.st) {
                    if let Some(l) = witness(checker) {
                        o.observe(&Execution { kind, events: &l.events, state: &l.state, schedule: &l.schedule });
                    }
                }
            }
            match kind {
                ExecKind::Complete => match Final::of(prog, &m, &g.st) {
                    Final::Filtered => {}
                    Final::State { values, satisfies } => {
                        if !states.contains_key(&values) {
                            match witness(checker) {
                                Some(l) => {
                                    let witness = Witness { events: l.events, schedule: l.schedule };
                                    states.insert(values.clone(), FinalState { values, satisfies, witness });
                                }
                                None => unwitnessed += 1,
                            }
                        }
                    }
                    Final::Undefined(site) => {
                        if condition_errors.len() < 4 && !condition_errors.iter().any(|c| c.site == site) {
                            match witness(checker) {
                                Some(l) => condition_errors.push(CondError {
                                    site,
                                    witness: Witness { events: l.events, schedule: l.schedule },
                                }),
                                None => unwitnessed += 1,
                            }
                        }
                    }
                },
                ExecKind::Failed => {
                    let new: Vec<(usize, _, _)> =
                        g.st.threads
                            .iter()
                            .enumerate()
                            .filter_map(|(t, s)| match *s {
                                ThreadStatus::Failed { stmt, kind, .. } => Some((t, stmt, kind)),
                                _ => None,
                            })
                            .filter(|&(_, stmt, kind)| !failures.iter().any(|f| f.stmt == stmt && f.kind == kind))
                            .collect();
                    if !new.is_empty() {
                        match witness(checker) {
                            Some(l) => {
                                for (thread, stmt, kind) in new {
                                    // The witness stops at the failure.
                                    let at = match l.state.threads[thread] {
                                        ThreadStatus::Failed { at, .. } => at as usize,
                                        _ => l.events.len(),
                                    };
                                    let events = &l.events[..at];
                                    let witness = Witness {
                                        events: events.to_vec(),
                                        schedule: schedule_prefix(&l.schedule, events),
                                    };
                                    failures.push(Failure { thread: thread as u16, stmt, kind, witness });
                                    opts.note_finding();
                                }
                            }
                            None => unwitnessed += 1,
                        }
                    }
                }
                ExecKind::Deadlock => {
                    if deadlocks.len() < 4 {
                        match witness(checker) {
                            Some(l) => deadlocks.push(Witness { events: l.events, schedule: l.schedule }),
                            None => unwitnessed += 1,
                        }
                    }
                }
                ExecKind::Pruned | ExecKind::Cut => {}
            }
            Control::Continue
        });
        search.run();
        search.stats
    };
    failures.sort_by_key(|f| (f.stmt, f.thread));
    let states: Vec<FinalState> = states.into_values().collect();
    let mut stats: Stats = stats;
    // A finding the machine could not replay within the buffer bound is
    // not shown: the answer is then only within that bound.
    if unwitnessed > 0 {
        stats.buffer_bounded = true;
        stats.buffer_waits += unwitnessed;
    }
    ModelOutcome::of(prog, model, states, failures, deadlocks, condition_errors, stats, start)
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
