//! A relaxed model's outcomes explored ahead: on a core of its own, beside
//! the SC exploration with its monitors, before the violations whose harm
//! that exploration must judge are known. It keeps the executions that
//! could do damage (a failure; a final state under a condition) — what
//! harm is judged from ([`crate::harm::HarmSearch`] looks at no other) — up
//! to [`KEPT`] of them and [`KEPT_EVENTS`] events; more, and it gives up at
//! once: the outcome step then explores as it always did. Once the
//! violations are known, the kept executions judge them as the whole
//! exploration would have.

use crate::dpor::{ExecKind, Execution};
use crate::harm::HarmSearch;
use crate::machine::{Event, Machine, Model, State};
use crate::options::Options;
use crate::outcome::{ModelOutcome, Observation};
use crate::violation::Violation;
use crate::Answer;
use litmus_ir::Program;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Executions that could do damage an exploration ahead keeps at most,
/// and their events in all (what they hold stays a few megabytes).
pub const KEPT: usize = 256;
pub const KEPT_EVENTS: usize = 1 << 16;

/// One model's outcome explored ahead, and the executions harm may need.
pub struct Ahead {
    pub model: Model,
    pub outcome: ModelOutcome,
    kept: Vec<Kept>,
}

struct Kept {
    kind: ExecKind,
    events: Vec<Event>,
    state: State,
    schedule: Vec<u32>,
}

/// Could an execution ending so do damage, whatever SC's answer is?
fn may_damage(prog: &Program, kind: ExecKind) -> bool {
    kind == ExecKind::Failed || (kind == ExecKind::Complete && prog.condition.is_some())
}

/// Is exploring `model`'s outcome ahead worth a core? The interleaving
/// explorer runs on one thread whatever happens. The graph explorer runs on
/// all of them unless some harm is still to be judged, which it then
/// watches in sequence: ahead, it keeps every core only where no execution
/// can do damage (no assertion or run-time error, no condition) — else the
/// outcome step's own search, on every core once harm is settled, is
/// faster than one ahead on one.
pub fn worth(prog: &Program, model: Model, opts: &Options) -> bool {
    // It keeps executions of the model's machine: a model with none is not.
    model.has_machine() && (!crate::explore::by_graph(prog, model, opts) || harmless(prog))
}

/// No execution of the program can do damage.
fn harmless(prog: &Program) -> bool {
    crate::harm::cannot_fail(prog) && prog.condition.is_none()
}

/// Explore `model`'s outcome with `opts`, stopped by `stop` too (set by
/// whoever no longer needs it). `None` if stopped, or if more than
/// [`KEPT`] executions (or [`KEPT_EVENTS`] events) could do damage.
pub fn explore(prog: &Program, model: Model, opts: &Options, stop: &Arc<AtomicBool>) -> Option<Ahead> {
    let mut budget = opts.budget.clone();
    budget.parent = budget.cancel.replace(stop.clone());
    // Progress is the main thread's to report.
    budget.progress = None;
    let opts = Options { budget, ..opts.clone() };
    let (mut kept, mut held) = (Vec::new(), 0);
    let mut keep = |e: &Execution<'_>| {
        if !may_damage(prog, e.kind) || stop.load(Ordering::Relaxed) {
            return;
        }
        if kept.len() == KEPT || held + e.events.len() > KEPT_EVENTS {
            stop.store(true, Ordering::Relaxed);
            return;
        }
        held += e.events.len();
        kept.push(Kept {
            kind: e.kind,
            events: e.events.to_vec(),
            state: e.state.clone(),
            schedule: e.schedule.to_vec(),
        });
    };
    let outcome = if crate::explore::by_graph(prog, model, &opts) {
        // On every core where nothing is to be kept ([`worth`]).
        let mut keeper = (!harmless(prog)).then_some(Keeper { prog, keep: &mut keep });
        crate::graph::explore(prog, model, &opts, keeper.as_mut().map(|k| k as &mut dyn crate::graph::Observer))
    } else {
        crate::explore::explore_with(prog, model, &opts, &mut keep)
    };
    (!opts.budget.cancelled() && outcome.coverage.finished()).then_some(Ahead { model, outcome, kept })
}

/// The graph explorer's observer of [`explore`]: only executions that
/// could do damage are linearized and shown.
struct Keeper<'a, F> {
    prog: &'a Program,
    keep: &'a mut F,
}

impl<F: FnMut(&Execution<'_>)> crate::graph::Observer for Keeper<'_, F> {
    fn wants(&self, kind: ExecKind, _: &State) -> bool {
        may_damage(self.prog, kind)
    }
    fn observe(&mut self, e: &Execution<'_>) {
        (self.keep)(e)
    }
}

impl Ahead {
    /// Judge the harm of `violations` (of this model) from the kept
    /// executions: what a [`HarmSearch`] riding the whole exploration finds,
    /// since it looks only at executions that could do damage.
    pub fn judge(
        &self,
        prog: &Program,
        opts: &Options,
        sc: Option<&Answer<Observation>>,
        violations: &mut [Violation],
    ) {
        let machine = Machine::new(prog, self.model, opts.loop_bound, opts.buffer_bound);
        let waited = crate::explore::leaves_waiting(&machine, opts);
        let mut search = HarmSearch::new(prog, &machine, sc, violations).waited(waited);
        for k in &self.kept {
            search.observe(&Execution {
                kind: k.kind,
                events: &k.events,
                state: &k.state,
                schedule: &k.schedule,
                fresh: 0,
            });
        }
        search.finish(self.outcome.coverage, opts, violations);
    }
}
