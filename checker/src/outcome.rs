//! Herd's question per model: which final states are reachable, does the
//! final condition's predicate hold always, sometimes or never, which
//! assertions can fail — each with a witness execution.

use crate::dpor::{Control, ExecKind, Execution, Explorer, Limits, Stats};
use crate::machine::{Event, FailureKind, Machine, Model, ThreadStatus};
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
    fn of(e: &Execution<'_>) -> Self {
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
}

impl Observation {
    /// The answer to the final condition over these final states (`None`
    /// without a condition).
    pub fn of(prog: &Program, states: &[FinalState]) -> Option<Observation> {
        prog.condition.as_ref().map(|_| {
            let yes = states.iter().filter(|s| s.satisfies == Some(true)).count();
            if yes == 0 {
                Observation::Never
            } else if yes == states.len() {
                Observation::Always
            } else {
                Observation::Sometimes
            }
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Observation::Always => "always",
            Observation::Sometimes => "sometimes",
            Observation::Never => "never",
        }
    }
}

#[derive(Clone, Debug)]
pub struct ModelOutcome {
    pub model: Model,
    /// Distinct final states (after the filter), ordered by value.
    pub states: Vec<FinalState>,
    pub observation: Option<Observation>,
    /// One per failing statement and kind.
    pub failures: Vec<Failure>,
    pub deadlocks: Vec<Witness>,
    /// False when a bound or the timeout cut some execution.
    pub complete: bool,
    pub stats: Stats,
    pub elapsed: Duration,
}

impl ModelOutcome {
    pub fn assertion_failures(&self) -> impl Iterator<Item = &Failure> {
        self.failures.iter()
    }
}

/// Explore `prog` under `model`.
pub fn explore(prog: &Program, model: Model, opts: &Options) -> ModelOutcome {
    explore_with(prog, model, opts, |_| {})
}

/// Explore, also handing every maximal execution to `observer`.
pub fn explore_with(
    prog: &Program,
    model: Model,
    opts: &Options,
    observer: impl FnMut(&Execution<'_>),
) -> ModelOutcome {
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
    let limits = Limits {
        deadline: opts.deadline,
        cancel: opts.cancel.clone(),
        preemption_bound: if model == Model::Sc { opts.preemption_bound } else { None },
    };
    ex.run_listened(limits, listener, |e| {
        observer(e);
        match e.kind {
            ExecKind::Complete => {
                let keep = prog.filter.as_ref().is_none_or(|f| machine.eval(f, e.state));
                if keep {
                    let values = machine.observe(e.state);
                    states.entry(values.clone()).or_insert_with(|| FinalState {
                        values,
                        satisfies: prog.condition.as_ref().map(|c| machine.eval(&c.expr, e.state)),
                        witness: Witness::of(e),
                    });
                }
            }
            ExecKind::Failed => {
                for (thread, ts) in e.state.threads.iter().enumerate() {
                    if let ThreadStatus::Failed { stmt, kind, at } = *ts {
                        if !failures.iter().any(|f| f.stmt == stmt && f.kind == kind) {
                            // The witness stops at the failure.
                            let events = &e.events[..at as usize];
                            let witness =
                                Witness { events: events.to_vec(), schedule: schedule_prefix(e.schedule, events) };
                            failures.push(Failure { thread: thread as u16, stmt, kind, witness });
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
    let observation = Observation::of(prog, &states);
    let stats = ex.stats.clone();
    ModelOutcome {
        model,
        states,
        observation,
        failures,
        deadlocks,
        complete: stats.cut == 0 && !stats.timed_out && !stats.preemption_bounded && !stats.buffer_bounded,
        stats,
        elapsed: start.elapsed(),
    }
}

/// The transitions that produced `events` (a prefix of the execution).
fn schedule_prefix(schedule: &[u32], events: &[Event]) -> Vec<u32> {
    let steps = events.iter().filter(|e| e.step != crate::machine::NONE).map(|e| e.step + 1).max().unwrap_or(0);
    schedule[..(steps as usize).min(schedule.len())].to_vec()
}
