//! Herd's question per model: which final states are reachable, does the
//! final condition's predicate hold always, sometimes or never, which
//! assertions can fail — each with a witness execution.

use crate::certainty::{Answer, Coverage};
use crate::dpor::{Control, ExecKind, Execution, Explorer, Limits, Stats};
use crate::machine::{Event, FailureKind, Machine, Model, State, ThreadStatus};
use crate::reads::Reads;
use litmus_dsl::ir::{Program, StmtId};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

pub use crate::options::Options;

/// An execution that shows something: its events and its schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    pub events: Vec<Event>,
    pub schedule: Vec<u32>,
}

impl Witness {
    pub fn of(e: &Execution<'_>) -> Self {
        Witness { events: e.events.to_vec(), schedule: e.schedule.to_vec() }
    }
}

#[derive(Clone, Debug)]
pub struct FinalState {
    /// Values of the program's observables, in order.
    pub values: Vec<i64>,
    /// Whether the final condition's predicate holds (None: no condition).
    pub satisfies: Option<bool>,
    pub witness: Witness,
}

#[derive(Clone, Debug)]
pub struct Failure {
    pub thread: u16,
    pub stmt: StmtId,
    pub kind: FailureKind,
    pub witness: Witness,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observation {
    Always,
    Sometimes,
    Never,
    /// No execution reached a final state (every one failed, was pruned,
    /// deadlocked, was cut or filtered out): the condition was never
    /// evaluated. Its own answer, not `never`.
    NoFinalStates,
}

impl Observation {
    /// The answer to the final condition over these final states, as earned
    /// by a search of this coverage (`None` without a condition).
    /// "Sometimes" needs only its two witnesses; the others need the search.
    pub fn of(prog: &Program, states: &[FinalState], coverage: Coverage) -> Option<Answer<Observation>> {
        prog.condition.as_ref().map(|_| {
            let yes = states.iter().filter(|s| s.satisfies == Some(true)).count();
            if yes > 0 && yes < states.len() {
                Answer::Proved(Observation::Sometimes)
            } else if states.is_empty() {
                coverage.answer(Observation::NoFinalStates)
            } else if yes == 0 {
                coverage.answer(Observation::Never)
            } else {
                coverage.answer(Observation::Always)
            }
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Observation::Always => "always",
            Observation::Sometimes => "sometimes",
            Observation::Never => "never",
            Observation::NoFinalStates => "no final states",
        }
    }

    /// Would a final state where the condition is `holds` change this answer?
    pub fn changed_by(self, holds: bool) -> bool {
        match self {
            Observation::Never => holds,
            Observation::Always => !holds,
            Observation::Sometimes => false,
            Observation::NoFinalStates => true,
        }
    }
}

/// Where a final condition could not be evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CondSite {
    Filter,
    Condition,
}

impl CondSite {
    pub fn as_str(self) -> &'static str {
        match self {
            CondSite::Filter => "filter",
            CondSite::Condition => "final condition",
        }
    }
}

/// A final state in which the filter or the condition divides by zero: an
/// error, reported with its witness, never a silent 0.
#[derive(Clone, Debug)]
pub struct CondError {
    pub site: CondSite,
    pub witness: Witness,
}

/// What a complete execution's final state amounts to.
pub enum Final {
    /// The filter rejects it: not one of herd's final states.
    Filtered,
    State {
        values: Vec<i64>,
        satisfies: Option<bool>,
    },
    /// The filter or the condition divides by zero.
    Undefined(CondSite),
}

impl Final {
    pub fn of(prog: &Program, machine: &Machine<'_>, st: &State) -> Final {
        match Final::judge(prog, machine, st) {
            Final::State { satisfies, .. } => Final::State { values: machine.observe(st), satisfies },
            other => other,
        }
    }

    /// The filter and the condition only: a `State` comes without its
    /// values (empty; `of` adds them), so judging allocates nothing.
    pub fn judge(prog: &Program, machine: &Machine<'_>, st: &State) -> Final {
        if let Some(f) = &prog.filter {
            match machine.eval(f, st) {
                None => return Final::Undefined(CondSite::Filter),
                Some(false) => return Final::Filtered,
                Some(true) => {}
            }
        }
        let satisfies = match &prog.condition {
            None => None,
            Some(c) => match machine.eval(&c.expr, st) {
                None => return Final::Undefined(CondSite::Condition),
                v => v,
            },
        };
        Final::State { values: Vec::new(), satisfies }
    }
}

#[derive(Clone, Debug)]
pub struct ModelOutcome {
    pub model: Model,
    /// Distinct final states (after the filter), ordered by value.
    pub states: Vec<FinalState>,
    /// The final condition's answer and what it is worth (`None`: no condition).
    pub observation: Option<Answer<Observation>>,
    /// One per failing statement and kind.
    pub failures: Vec<Failure>,
    pub deadlocks: Vec<Witness>,
    /// Final states where the filter or condition divides by zero (a few).
    pub condition_errors: Vec<CondError>,
    /// How far the exploration went (bounds hit, timeout, cancel).
    pub coverage: Coverage,
    /// The values each load read, as far as `coverage` says.
    pub reads: Reads,
    pub stats: Stats,
    pub elapsed: Duration,
    /// Whether the answers hold for every iteration (the unbounded
    /// procedure proved them) or how far the bounded engine went.
    pub iterations: crate::certainty::Iterations,
}

impl ModelOutcome {
    /// The outcome of a search that found these, with its answers as
    /// earned by its statistics (how far it went).
    #[allow(clippy::too_many_arguments)]
    pub fn of(
        prog: &Program,
        model: Model,
        states: Vec<FinalState>,
        failures: Vec<Failure>,
        deadlocks: Vec<Witness>,
        condition_errors: Vec<CondError>,
        reads: Reads,
        stats: Stats,
        start: Instant,
    ) -> ModelOutcome {
        let coverage = Coverage::of_stats(&stats);
        let observation = Observation::of(prog, &states, coverage);
        ModelOutcome {
            model,
            states,
            observation,
            failures,
            deadlocks,
            condition_errors,
            coverage,
            reads,
            stats,
            elapsed: start.elapsed(),
            iterations: Default::default(),
        }
    }

    pub fn assertion_failures(&self) -> impl Iterator<Item = &Failure> {
        self.failures.iter()
    }

    /// Nothing cut, nothing stopped.
    pub fn complete(&self) -> bool {
        self.coverage == Coverage::Complete
    }

    /// Does a witnessed final state contradict the condition's quantifier —
    /// `~exists` with a state where it holds, `forall` with one where it does
    /// not? (A witness proves it; no search needs to finish.)
    pub fn condition_fails(&self, prog: &Program) -> bool {
        use litmus_dsl::Quantifier;
        match prog.condition.as_ref().map(|c| c.quantifier) {
            Some(Quantifier::NotExists) => self.states.iter().any(|s| s.satisfies == Some(true)),
            Some(Quantifier::Forall) => self.states.iter().any(|s| s.satisfies == Some(false)),
            _ => false,
        }
    }

    /// The observation, if earned.
    pub fn known_observation(&self) -> Option<Observation> {
        self.observation.as_ref().and_then(|a| a.value().copied())
    }
}

/// Explore `prog` under `model`.
pub fn explore(prog: &Program, model: Model, opts: &Options) -> ModelOutcome {
    if by_graph(prog, model, opts) {
        return crate::graph::explore(prog, model, opts, None);
    }
    explore_with(prog, model, opts, |_| {})
}

/// Are this model's outcomes explored by execution graph with these options?
pub fn by_graph(prog: &Program, model: Model, opts: &Options) -> bool {
    use crate::options::ExplorerKind;
    let wanted = match opts.explorer {
        ExplorerKind::Graph => true,
        ExplorerKind::Interleaving => false,
        ExplorerKind::Auto => !waits_or_loops(prog),
    };
    wanted && matches!(model, Model::Tso | Model::Pso) && crate::graph::supports(model, opts)
}

/// Does some thread loop, await or take a lock? (Where source-DPOR already
/// visits about one execution per graph and is cheaper per execution.)
fn waits_or_loops(prog: &Program) -> bool {
    use litmus_dsl::ir::{Instr, RmwOp};
    prog.threads
        .iter()
        .flat_map(|t| &t.code)
        .any(|i| matches!(i, Instr::LoopEnter { .. } | Instr::AwaitStart { .. } | Instr::Rmw { op: RmwOp::Lock, .. }))
}

/// Explore, also handing every maximal execution to `observer`.
pub fn explore_with(
    prog: &Program,
    model: Model,
    opts: &Options,
    observer: impl FnMut(&Execution<'_>),
) -> ModelOutcome {
    if by_graph(prog, model, opts) {
        // One execution per graph, linearized.
        return crate::graph::explore(prog, model, opts, Some(&mut crate::graph::Every(observer)));
    }
    explore_listened(prog, model, opts, &mut crate::dpor::NoListener, observer)
}

/// Explore with `listener` following the event log as the search extends and
/// backtracks (the online monitors' hook), and `observer` seeing every
/// maximal execution.
pub fn explore_listened(
    prog: &Program,
    model: Model,
    opts: &Options,
    listener: &mut dyn crate::dpor::EventListener,
    mut observer: impl FnMut(&Execution<'_>),
) -> ModelOutcome {
    let start = Instant::now();
    let machine = Machine::new(prog, model, opts.loop_bound, opts.buffer_bound);
    let mut ex = Explorer::new(&machine);
    let mut states: BTreeMap<Vec<i64>, FinalState> = BTreeMap::new();
    let mut failures: Vec<Failure> = Vec::new();
    let mut deadlocks: Vec<Witness> = Vec::new();
    let mut condition_errors: Vec<CondError> = Vec::new();
    let mut reads = Reads::default();
    // A complete execution's observed values, looked up before any copy.
    let mut values: Vec<i64> = Vec::new();
    let limits = Limits {
        deadline: opts.deadline,
        cancel: opts.cancel.clone(),
        polls_left: opts.polls_left.clone(),
        found: opts.found.clone(),
        preemption_bound: if !model.buffered() { opts.preemption_bound } else { None },
        progress: opts.progress.clone(),
    };
    ex.run_listened(limits, listener, |e| {
        observer(e);
        reads.add_execution(e.kind, e.events);
        match e.kind {
            ExecKind::Complete => match Final::judge(prog, &machine, e.state) {
                Final::Filtered => {}
                Final::State { satisfies, .. } => {
                    machine.observe_into(e.state, &mut values);
                    if !states.contains_key(&values[..]) {
                        let state = FinalState { values: values.clone(), satisfies, witness: Witness::of(e) };
                        states.insert(values.clone(), state);
                    }
                }
                Final::Undefined(site) => {
                    if condition_errors.len() < 4 && !condition_errors.iter().any(|c| c.site == site) {
                        condition_errors.push(CondError { site, witness: Witness::of(e) });
                    }
                }
            },
            ExecKind::Failed => {
                for (thread, ts) in e.state.threads.iter().enumerate() {
                    if let ThreadStatus::Failed { stmt, kind, at } = *ts {
                        if !failures.iter().any(|f| f.stmt == stmt && f.kind == kind) {
                            // The witness stops at the failure.
                            let events = &e.events[..at as usize];
                            let schedule = failure_prefix(e.schedule, events, thread as u16);
                            let witness = Witness { events: events.to_vec(), schedule };
                            failures.push(Failure { thread: thread as u16, stmt, kind, witness });
                            opts.note_finding();
                        }
                    }
                }
            }
            ExecKind::Deadlock => {
                if deadlocks.len() < 4 {
                    deadlocks.push(Witness::of(e));
                }
            }
            ExecKind::Pruned | ExecKind::Cut => {}
        }
        Control::Continue
    });
    failures.sort_by_key(|f| (f.stmt, f.thread));
    let states: Vec<FinalState> = states.into_values().collect();
    ModelOutcome::of(prog, model, states, failures, deadlocks, condition_errors, reads, ex.stats.clone(), start)
}

/// The transitions that produced `events` (a prefix of the execution).
pub(crate) fn schedule_prefix(schedule: &[u32], events: &[Event]) -> Vec<u32> {
    let steps = events.iter().filter(|e| e.step != crate::machine::NONE).map(|e| e.step + 1).max().unwrap_or(0);
    schedule[..(steps as usize).min(schedule.len())].to_vec()
}

/// The transitions up to `thread`'s failure, whose events are `events`:
/// those that produced them, and the failing one — its thread's last (a
/// failed thread moves no more), which may log nothing (an access whose
/// index is out of bounds fails before it reads).
pub(crate) fn failure_prefix(schedule: &[u32], events: &[Event], thread: u16) -> Vec<u32> {
    let mut prefix = schedule_prefix(schedule, events);
    if let Some(last) = schedule.iter().rposition(|&p| p == thread as u32) {
        if last >= prefix.len() {
            prefix = schedule[..=last].to_vec();
        }
    }
    prefix
}
