//! One check of a program, as every front end runs it: the CLI's `check`
//! (and suites), and the language server, which delivers after each step.
//! The steps, in order:
//!
//! 1. [`Step::Violations`]: SC's outcome with the monitors riding along
//!    (or the unbounded procedure's proof): each relaxed model's witnessed
//!    violations. Usually a small share of the work: an editor shows it first.
//! 2. [`Step::Judge`]: each violation's harm from its own continuations,
//!    and the fewest fences, confirmed by re-checking the fenced program.
//! 3. [`Step::Outcomes`]: the relaxed models' own outcomes (which also
//!    settle the harm step 2 left open).
//! 4. [`Step::Active`]: active testing (RELAXER) for the relaxed models the
//!    exhaustive steps left unknown, with what is left of the file's time.
//!
//! The exhaustive steps (1–3) get the exhaustive share of the work
//! ([`Mode::Auto`]: each exploration at most [`WORK`] steps, or `--work`;
//! and `budget`, or half the timeout, where the user gave a time); active
//! testing gets what the exhaustive steps left unknown, and never starts
//! once the file's own deadline has passed or the check was cancelled. [`Mode::Active`] runs step 4 alone (with SC's
//! answer to an `exists` condition first, within the exhaustive share).

use crate::check::{
    add_relaxed_outcomes, add_relaxed_outcomes_ahead, bounded_violations, find_violations, judge_and_fence,
    unbounded_violations, Fallback, Report,
};
use crate::explore;
use crate::machine::Model;
use crate::monitor::MonitorKind;
use crate::options::Options;
use crate::progress::{self, Phase};
use crate::relaxer;
use litmus_ir::Program;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The exhaustive steps' work in [`Mode::Auto`] and [`Mode::Active`]
/// unless the options give their own (`--work`): steps per exploration
/// (transitions of the interleaving explorer, nodes of the graph
/// explorer): about four seconds of one exploration on this project's
/// 2-core machine.
pub const WORK: u64 = 20_000_000;

/// When active testing runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Explore every execution (within the bounds); no active testing.
    Exhaustive,
    /// Active testing (RELAXER) only.
    Active,
    /// Exhaustive within its share of the time, then active testing for
    /// every relaxed model it did not decide.
    #[default]
    Auto,
}

/// One step of a check (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    Violations,
    Judge,
    Outcomes,
    Active,
}

impl Step {
    /// What the step does, for a status line: "judging harm and fences".
    pub fn doing(self) -> &'static str {
        match self {
            Step::Violations => "looking for violations",
            Step::Judge => "judging harm and fences",
            Step::Outcomes => "exploring the relaxed models' outcomes",
            Step::Active => "active testing",
        }
    }
}

/// Everything one check of a program does.
#[derive(Clone, Debug)]
pub struct Plan {
    pub models: Vec<Model>,
    pub monitor: MonitorKind,
    /// The bounds, and the file's budget: its deadline runs from when the
    /// options were made.
    pub opts: Options,
    pub mode: Mode,
    /// [`Mode::Auto`]: the exhaustive steps' share of the time (default:
    /// half the timeout; none without one: then work alone ends them).
    pub exhaustive_budget: Option<Duration>,
    pub active: relaxer::Settings,
    /// Options of the exhaustive steps (the file's, within the exhaustive
    /// share), fixed when the plan is made.
    exhaustive: Options,
}

impl Plan {
    /// A plan whose exhaustive share starts now.
    pub fn new(
        models: Vec<Model>,
        monitor: MonitorKind,
        opts: Options,
        mode: Mode,
        exhaustive_budget: Option<Duration>,
        active: relaxer::Settings,
    ) -> Plan {
        let exhaustive = match mode {
            Mode::Exhaustive => opts.clone(),
            Mode::Auto | Mode::Active => {
                // Work ends the exhaustive share (each exploration's steps:
                // the same answer on any machine, under any load); time only
                // where the user gave some (`--budget`, or half the timeout).
                let mut o = opts.clone();
                o.budget.max_steps = Some(o.budget.max_steps.unwrap_or(WORK));
                let share = exhaustive_budget.or_else(|| opts.budget.left().map(|t| t / 2));
                match share.and_then(|s| Instant::now().checked_add(s)) {
                    Some(end) => o.with_budget(o.budget.until(end)),
                    None => o,
                }
            }
        };
        Plan { models, monitor, opts, mode, exhaustive_budget, active, exhaustive }
    }

    /// The steps this plan runs, in order.
    pub fn steps(&self) -> &'static [Step] {
        match self.mode {
            Mode::Active => &[Step::Active],
            Mode::Exhaustive => &[Step::Violations, Step::Judge, Step::Outcomes],
            Mode::Auto => &[Step::Violations, Step::Judge, Step::Outcomes, Step::Active],
        }
    }

    /// The options a step runs with.
    pub fn options(&self, step: Step) -> &Options {
        match step {
            Step::Active => &self.opts,
            _ => &self.exhaustive,
        }
    }

    /// The report before any step.
    pub fn start(&self) -> Report {
        Report::empty()
    }

    /// Run one step on the report of the steps before it.
    pub fn run_step(&self, step: Step, prog: &Program, report: &mut Report) {
        let opts = self.options(step);
        match step {
            Step::Violations => *report = find_violations(prog, &self.models, self.monitor, opts),
            Step::Judge => judge_and_fence(report, prog, self.monitor, opts),
            Step::Outcomes => add_relaxed_outcomes(report, prog, &self.models, opts),
            Step::Active => self.active_step(prog, report),
        }
    }

    /// Every step. With more than one thread, where the bounded engine
    /// answers (the unbounded procedure was not asked or could not decide),
    /// the relaxed models' outcomes are explored ahead ([`crate::ahead`]),
    /// beside the violations and fences, where the outcome step would
    /// explore them.
    pub fn run(&self, prog: &Program) -> Report {
        let mut report = self.start();
        let steps = self.steps();
        if !self.ahead_wanted() || steps.first() != Some(&Step::Violations) {
            for &step in steps {
                self.run_step(step, prog, &mut report);
            }
            return report;
        }
        // Step 1 as `find_violations` runs it, in its two halves: the
        // bounded engine's is where outcomes go ahead — from its first
        // finding on: a program with none is robust, and takes SC's
        // outcomes (exploring them ahead would only take a core).
        let gate = Arc::new(crate::budget::Gate::default());
        let mut first = self.options(Step::Violations).clone();
        first.budget.on_finding = Some(gate.clone());
        let opts = &first;
        progress::enter(&opts.budget.progress, Phase::Violations, Some(Model::Sc));
        // The unbounded procedure's answer, or else the bounded engine's if
        // it explored already, and why the bounded engine answers.
        let (mut ready, why, decided) = match unbounded_violations(prog, &self.models, self.monitor, opts) {
            Ok(r) => (Some(r), None, true),
            Err(Fallback { why, bounded }) => (bounded.map(|r| *r), why, false),
        };
        let ahead = if decided { Vec::new() } else { self.ahead_models(prog) };
        let outcome_opts = self.options(Step::Outcomes);
        let stops: Vec<Arc<AtomicBool>> = ahead.iter().map(|_| Arc::new(AtomicBool::new(false))).collect();
        // Models are taken in order by whichever thread is free: the one
        // ahead from the start, the check's own once its steps before the
        // outcomes are done.
        let next = AtomicUsize::new(0);
        let take = |found: &mut Vec<crate::ahead::Ahead>, opts: &Options| loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&m) = ahead.get(i) else { break };
            found.extend(crate::ahead::explore(prog, m, opts, &stops[i]));
        };
        // Beside the check's own thread, one worker fewer: the check's
        // thread is busy (on a busy machine, more would only take turns).
        let beside_opts = Options { threads: outcome_opts.threads.saturating_sub(1).max(1), ..outcome_opts.clone() };
        std::thread::scope(|s| {
            let beside = (!ahead.is_empty()).then(|| {
                crate::options::spawn_checking(s, || {
                    gate.wait();
                    let mut found = Vec::new();
                    take(&mut found, &beside_opts);
                    found
                })
            });
            report = ready.take().unwrap_or_else(|| bounded_violations(prog, &self.models, self.monitor, opts, why));
            // Where the unbounded procedure decided, a model it found no
            // proof of robustness for gets its own states searched beside the
            // fences (both need only the proof): the outcome step takes them.
            let own = (decided && outcome_opts.threads > 1 && steps.contains(&Step::Outcomes)).then(|| {
                let early = report.clone();
                let models = self.models.clone();
                // Progress is the main thread's to report.
                let mut quiet = outcome_opts.clone();
                quiet.budget.progress = None;
                crate::options::spawn_checking(s, move || {
                    crate::check::stateful_outcomes(&early, prog, &models, &quiet)
                })
            });
            for &step in steps[1..].iter().take_while(|&&s| s != Step::Outcomes) {
                self.run_step(step, prog, &mut report);
            }
            // What the outcome step will not explore needs no exploration
            // ahead (a model proved robust takes SC's), nor does a
            // cancelled check.
            for (i, &m) in ahead.iter().enumerate() {
                if outcome_opts.budget.cancelled() || !crate::check::explores_outcome(&report, m) {
                    stops[i].store(true, Ordering::Relaxed);
                }
            }
            gate.open();
            let mut found = Vec::new();
            take(&mut found, outcome_opts);
            if let Some(beside) = beside {
                found.extend(beside.join().expect("an exploration ahead does not panic"));
            }
            let mut own = own.map(|t| t.join().expect("a stateful search beside does not panic")).unwrap_or_default();
            for &step in steps.iter().skip_while(|&&s| s != Step::Outcomes) {
                match step {
                    Step::Outcomes => add_relaxed_outcomes_ahead(
                        &mut report,
                        prog,
                        &self.models,
                        outcome_opts,
                        std::mem::take(&mut found),
                        std::mem::take(&mut own),
                    ),
                    _ => self.run_step(step, prog, &mut report),
                }
            }
        });
        report
    }

    /// Are outcomes explored ahead where the bounded engine answers? With
    /// more than one thread, where the outcome step runs; not with
    /// `--first`, which wants the first finding of one search.
    fn ahead_wanted(&self) -> bool {
        let opts = self.options(Step::Outcomes);
        opts.threads > 1
            && opts.budget.found.is_none()
            // (Tests cutting a check at its n-th poll want one sequence.)
            && opts.budget.polls_left.is_none()
            && self.steps().contains(&Step::Outcomes)
    }

    /// The relaxed models whose outcomes [`Plan::run`] explores ahead: those
    /// where it is worth a core ([`crate::ahead::worth`]).
    fn ahead_models(&self, prog: &Program) -> Vec<Model> {
        let opts = self.options(Step::Outcomes);
        if prog.candidates_only() {
            return Vec::new(); // (no machine runs it: the outcome step's candidates)
        }
        self.models.iter().copied().filter(|&m| m.buffered() && crate::ahead::worth(prog, m, opts)).collect()
    }

    /// The models active testing will run for after the exhaustive steps
    /// gave `report`: every model in active mode; in auto mode, those whose
    /// robustness is unknown, unless the file's own time is up.
    pub fn active_models(&self, report: &Report) -> Vec<Model> {
        match self.mode {
            Mode::Exhaustive => Vec::new(),
            Mode::Active => self.models.clone(),
            Mode::Auto if self.opts.budget.stopped() => Vec::new(),
            Mode::Auto => report.robustness.iter().filter(|rb| !rb.robust().is_known()).map(|rb| rb.model).collect(),
        }
        .into_iter()
        // Active testing runs the model's machine.
        .filter(|m| m.has_machine())
        .collect()
    }

    /// Active testing of [`Plan::active_models`].
    fn active_step(&self, prog: &Program, report: &mut Report) {
        if self.mode == Mode::Active {
            // An `exists` condition breaks only where SC never meets it: SC
            // (cheap next to the relaxed models) gets the exhaustive share;
            // if it does not finish, such condition bugs are not judged.
            let exists = prog.condition.as_ref().is_some_and(|c| c.quantifier == litmus_ir::Quantifier::Exists);
            report.sc_observation =
                if exists { explore::explore(prog, Model::Sc, &self.exhaustive).observation } else { None };
        }
        let models = self.active_models(report);
        // Active testing runs the machines, which do not run a store-conditional.
        if models.is_empty() || prog.candidates_only() {
            return;
        }
        report.active = Some(relaxer::run(prog, &models, &self.active, &self.opts, report.sc_observation.as_ref()));
        report.cancelled = self.opts.budget.cancelled();
    }
}

/// Outcomes under each model and, for TSO/PSO, robustness from monitoring
/// the SC executions (PSLO: from exploring its own), and fences confirmed by
/// re-checking the fenced program. Every phase shares `opts`' one deadline.
/// (The exhaustive steps of a [`Plan`].)
pub fn check_all(prog: &Program, models: &[Model], monitor: MonitorKind, opts: &Options) -> Report {
    let plan = Plan::new(models.to_vec(), monitor, opts.clone(), Mode::Exhaustive, None, relaxer::Settings::default());
    plan.run(prog)
}
