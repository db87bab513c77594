//! Herd's question per model: which final states are reachable, does the
//! final condition's predicate hold always, sometimes or never, which
//! assertions can fail — each with a witness execution.

use crate::certainty::{Answer, Coverage};
use crate::dpor::{Execution, Stats};
use crate::machine::{Event, FailureKind, Machine, Model, State};
use crate::reads::Reads;
use litmus_ir::{Program, StmtId};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

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
    /// What a model given as data flags of some execution it allows, by
    /// name: an `undefined_unless` that fails (herd's C models: a data
    /// race, undefined behaviour) or a `flag` that holds. Sorted, each once.
    pub flags: Vec<String>,
    /// The accesses behind the flags that point at some (a data race:
    /// two accesses an allowed execution leaves unordered), each pair
    /// once, with an execution that shows it.
    pub races: Vec<Race>,
    /// Why the model never reaches the final condition's outcome (an
    /// `exists` never observed, a `forall` that holds), where a model
    /// given as data decides it: a candidate that reaches it and the
    /// axioms that forbid it.
    pub forbidden: Option<Forbidden>,
}

/// A candidate execution that reaches the final condition's outcome (the
/// condition holding; for a `forall`, failing) and that the model
/// forbids, with each axiom it fails: herd7's "Forbidden", said why.
#[derive(Clone, Debug)]
pub struct Forbidden {
    /// The candidate, as a log (each thread's events in program order).
    pub witness: Witness,
    pub axioms: Vec<ForbiddenAxiom>,
}

/// One axiom a forbidden candidate fails, and its cycle in the model's own
/// relations (`external`: `STR x` —bob→ `STR y` —rfe→ `LDAR y` —bob→ `LDR x`
/// —fre→): each step an event and the relation that orders it before the
/// next.
#[derive(Clone, Debug)]
pub struct ForbiddenAxiom {
    pub name: String,
    /// `acyclic`, `irreflexive` or `empty`.
    pub kind: &'static str,
    /// The relation tested, as the model writes it.
    pub expr: String,
    pub steps: Vec<(Who, Option<String>)>,
}

/// Whose event a step of an axiom's cycle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Access {
        thread: u16,
        stmt: StmtId,
    },
    /// A cell's initial write.
    Init(litmus_ir::Cell),
    /// A register event of a thread (a model that computes dependencies).
    Register(u16),
}

/// Two accesses that a model given as data finds in some allowed
/// execution where it says the behaviour is undefined (herd's
/// `undefined_unless empty race`: a data race under C11).
#[derive(Clone, Debug)]
pub struct Race {
    /// The check's name (`data-race`).
    pub flag: String,
    /// The two accesses, as (thread, statement), in order.
    pub accesses: [(u16, litmus_ir::StmtId); 2],
    /// The execution that has them, as a log (its values replay it).
    pub witness: Witness,
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
            flags: Vec::new(),
            races: Vec::new(),
            forbidden: None,
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
        self.first_breaking(prog).is_some()
    }

    /// The first final state that breaks the condition's promise (a
    /// `forall` that does not hold there, a `~exists` that does); an
    /// `exists` is a question, which no state breaks.
    pub fn first_breaking(&self, prog: &Program) -> Option<usize> {
        use litmus_ir::Quantifier;
        let breaking = match prog.condition.as_ref()?.quantifier {
            Quantifier::NotExists => Some(true),
            Quantifier::Forall => Some(false),
            Quantifier::Exists => return None,
        };
        self.states.iter().position(|s| s.satisfies == breaking)
    }

    /// Does some final state reach the condition's outcome (its predicate
    /// holding; for a `forall`, failing)? `None` without a condition.
    pub fn reaches_outcome(&self, prog: &Program) -> Option<bool> {
        let target = prog.condition.as_ref()?.quantifier.outcome();
        Some(self.states.iter().any(|s| s.satisfies == Some(target)))
    }

    /// The observation, if earned.
    pub fn known_observation(&self) -> Option<Observation> {
        self.observation.as_ref().and_then(|a| a.value().copied())
    }
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

/// Deadlocks and condition-error sites kept per model.
pub const KEPT: usize = 4;

/// What an exploration keeps, for either explorer: the first witness per
/// final state and per failing (statement, kind), the first [`KEPT`]
/// deadlocks and condition-error sites, in the order findings are fed. A
/// finding the machine could not follow (`None` witness: the buffer bound)
/// is counted, not kept, and makes the answer within that bound.
#[derive(Default)]
pub struct Keeper {
    states: BTreeMap<Vec<i64>, FinalState>,
    failures: Vec<Failure>,
    deadlocks: Vec<Witness>,
    condition_errors: Vec<CondError>,
    unwitnessed: u64,
}

impl Keeper {
    /// A final state with these values is kept already.
    pub fn has_state(&self, values: &[i64]) -> bool {
        self.states.contains_key(values)
    }

    /// A condition error at `site` would be kept.
    pub fn wants_site(&self, site: CondSite) -> bool {
        self.condition_errors.len() < KEPT && !self.condition_errors.iter().any(|c| c.site == site)
    }

    /// A deadlock would be kept.
    pub fn wants_deadlock(&self) -> bool {
        self.deadlocks.len() < KEPT
    }

    /// (`stmt`, `kind`) has failed already.
    pub fn has_failure(&self, stmt: StmtId, kind: FailureKind) -> bool {
        self.failures.iter().any(|f| f.stmt == stmt && f.kind == kind)
    }

    pub fn state(&mut self, values: Vec<i64>, satisfies: Option<bool>, witness: Option<Witness>) {
        if self.has_state(&values) {
            return;
        }
        match witness {
            Some(witness) => {
                self.states.insert(values.clone(), FinalState { values, satisfies, witness });
            }
            None => self.unwitnessed += 1,
        }
    }

    pub fn condition_error(&mut self, site: CondSite, witness: Option<Witness>) {
        if !self.wants_site(site) {
            return;
        }
        match witness {
            Some(witness) => self.condition_errors.push(CondError { site, witness }),
            None => self.unwitnessed += 1,
        }
    }

    /// The threads that failed in one execution, `(thread, stmt, kind)`,
    /// with the witness of each (the execution cut at its failure).
    pub fn failures(&mut self, fails: &[(u16, StmtId, FailureKind)], witnesses: Option<Vec<Witness>>) {
        if fails.iter().all(|&(_, stmt, kind)| self.has_failure(stmt, kind)) {
            return;
        }
        let Some(witnesses) = witnesses else {
            self.unwitnessed += 1;
            return;
        };
        for (&(thread, stmt, kind), witness) in fails.iter().zip(witnesses) {
            if !self.has_failure(stmt, kind) {
                self.failures.push(Failure { thread, stmt, kind, witness });
            }
        }
    }

    pub fn deadlock(&mut self, witness: Option<Witness>) {
        if !self.wants_deadlock() {
            return;
        }
        match witness {
            Some(w) => self.deadlocks.push(w),
            None => self.unwitnessed += 1,
        }
    }

    /// The outcome, with its answers as earned by the search's statistics.
    pub fn finish(self, prog: &Program, model: Model, reads: Reads, mut stats: Stats, start: Instant) -> ModelOutcome {
        let mut failures = self.failures;
        failures.sort_by_key(|f| (f.stmt, f.thread));
        // A finding the machine could not replay within the buffer bound is
        // not shown: the answer is then only within that bound.
        if self.unwitnessed > 0 {
            stats.buffer_bounded = true;
            stats.buffer_waits += self.unwitnessed;
        }
        let states = self.states.into_values().collect();
        ModelOutcome::of(prog, model, states, failures, self.deadlocks, self.condition_errors, reads, stats, start)
    }
}
