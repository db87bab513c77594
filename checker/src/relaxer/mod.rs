//! Active testing for programs too big to explore: RELAXER (Burnim, Sen,
//! Stergiou, ISSTA'11). Phase I ([`predict`]) runs the program under SC on
//! random schedules and predicts potential happens-before cycles; Phase II
//! ([`steer`]) runs it again under a relaxed model, steering the scheduler
//! and the simulated store buffers to create each cycle, and goes on to the
//! end of the run to see whether the program then breaks.
//!
//! Everything is seeded: a trial's seed is derived from the user's seed and
//! the trial's place (model, cycle, number), so results do not depend on how
//! many threads run the trials. A cycle is *confirmed* only when a run's
//! trace contains it ([`confirm`]); that run is its witness and its handle
//! replays it exactly. Nothing here ever says "robust": an active answer is
//! "no violation found in N runs".

pub mod confirm;
pub mod ops;
pub mod predict;
pub mod rng;
pub mod settings;
pub mod steer;

use crate::certainty::Why;
use crate::machine::{Event, FailureKind, Machine, Model, State, ThreadStatus, Verdict};
use crate::options::Options;
use crate::outcome::Observation;
use crate::progress::{self, Phase, Tally};
use crate::trace::Edge;
use crate::Answer;
use litmus_ir::{Program, StmtId};
use rayon::prelude::*;
use std::time::{Duration, Instant};

pub use ops::{Label, Op};
pub use predict::{predict, predict_all, Prediction};
pub use settings::Settings;

/// How a steered run broke the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bug {
    /// An assertion failed or a run-time error happened.
    Failure { thread: u16, stmt: StmtId, kind: FailureKind },
    /// The final state contradicts the condition (`~exists`/`forall`), or
    /// reaches an `exists` condition SC never reaches.
    Condition,
}

/// One steered run that created its cycle: the witness.
#[derive(Clone, Debug)]
pub struct Trial {
    pub handle: Handle,
    pub schedule: Vec<u32>,
    pub events: Vec<Event>,
    /// The cycle in the run's trace: (event, edge leaving it).
    pub cycle: Vec<(u32, Edge)>,
    pub bug: Option<Bug>,
}

impl Trial {
    /// The cycle as statements, each with the edge leaving it.
    pub fn steps(&self) -> Vec<crate::violation::CycleStep> {
        self.cycle
            .iter()
            .map(|&(i, edge)| {
                let e = &self.events[i as usize];
                crate::violation::CycleStep { thread: e.thread, stmt: e.stmt, edge }
            })
            .collect()
    }
}

/// What Phase II did with one predicted cycle under one model.
#[derive(Clone, Debug)]
pub struct CycleResult {
    pub cycle: Vec<Label>,
    /// False when no pair of the cycle is one the model can reorder: then
    /// no run is made (it cannot be created).
    pub attempted: bool,
    pub trials: u32,
    pub confirmations: u32,
    /// Trials that created the cycle and broke the program.
    pub bugs: u32,
    /// The first confirming trial (the first that also broke the program,
    /// if any did).
    pub witness: Option<Trial>,
}

impl CycleResult {
    /// The empirical probability that one steered run creates the cycle.
    pub fn probability(&self) -> f64 {
        if self.trials == 0 {
            0.0
        } else {
            self.confirmations as f64 / self.trials as f64
        }
    }
}

/// Active testing of one model.
#[derive(Clone, Debug)]
pub struct Active {
    pub model: Model,
    pub cycles: Vec<CycleResult>,
    /// Steered runs made (all cycles).
    pub runs: u64,
    /// Runs cut by the step limit or the loop bound.
    pub cut_runs: u64,
    pub time: Duration,
    /// The deadline or cancel flag stopped Phase II before every trial ran.
    pub stopped: Option<Why>,
}

impl Active {
    pub fn confirmed(&self) -> usize {
        self.cycles.iter().filter(|c| c.confirmations > 0).count()
    }
    pub fn bugs(&self) -> usize {
        self.cycles.iter().filter(|c| c.bugs > 0).count()
    }
    /// The average empirical probability over the confirmed cycles (the
    /// paper's last columns: a cycle never created is taken as infeasible).
    pub fn mean_probability(&self) -> Option<f64> {
        let c: Vec<f64> = self.cycles.iter().filter(|c| c.confirmations > 0).map(|c| c.probability()).collect();
        (!c.is_empty()).then(|| c.iter().sum::<f64>() / c.len() as f64)
    }
}

/// A replayable trial: the model, the cycle it steered for, the settings
/// that shape a run and its seed. Written as text for `explain --replay`.
#[derive(Clone, Debug, PartialEq)]
pub struct Handle {
    pub model: Model,
    pub cycle: Vec<Label>,
    pub probability: f64,
    pub delay_load: u64,
    pub delay_store: u64,
    pub loop_bound: u32,
    pub seed: u64,
}

impl std::fmt::Display for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let labels: Vec<String> =
            self.cycle.iter().map(|l| format!("{}.{}{}", l.thread, l.stmt, l.op.letter())).collect();
        write!(
            f,
            "{}/{}/p{}/d{}.{}/l{}/{:016x}",
            self.model.as_str(),
            labels.join("-"),
            self.probability,
            self.delay_load,
            self.delay_store,
            self.loop_bound,
            self.seed
        )
    }
}

impl std::str::FromStr for Handle {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "`{s}` is not a replay handle (model/cycle/pP/dL.S/lB/seed, as `litmus check --mode active` prints)"
            )
        };
        let parts: Vec<&str> = s.trim().split('/').collect();
        let [model, cycle, p, d, l, seed] = parts.as_slice() else { return Err(bad()) };
        let model = Model::parse(model).map_err(|_| bad())?;
        let cycle = cycle
            .split('-')
            .map(|x| {
                let (t, rest) = x.split_once('.')?;
                let op = Op::from_letter(rest.chars().last()?)?;
                let stmt = rest[..rest.len() - 1].parse().ok()?;
                Some(Label { thread: t.parse().ok()?, stmt, op })
            })
            .collect::<Option<Vec<_>>>()
            .filter(|c| c.len() >= 2 && c.len() % 2 == 0)
            .ok_or_else(bad)?;
        let probability: f64 = p
            .strip_prefix('p')
            .and_then(|x| x.parse().ok())
            .filter(|p: &f64| (0.0..=1.0).contains(p))
            .ok_or_else(bad)?;
        let (dl, ds) = d.strip_prefix('d').and_then(|x| x.split_once('.')).ok_or_else(bad)?;
        Ok(Handle {
            model,
            cycle,
            probability,
            delay_load: dl.parse().map_err(|_| bad())?,
            delay_store: ds.parse().map_err(|_| bad())?,
            loop_bound: l.strip_prefix('l').and_then(|x| x.parse().ok()).ok_or_else(bad)?,
            seed: u64::from_str_radix(seed, 16).map_err(|_| bad())?,
        })
    }
}

/// Can `model` reorder the pair `(a, b)` (`a` before `b` in program order)?
/// Judged by access kinds only: whether the cells differ is up to the run.
pub fn relaxes(model: Model, a: Op, b: Op) -> bool {
    let access = |o: Op| match o {
        Op::Read => crate::model::Access::Read,
        Op::Write => crate::model::Access::Write,
        Op::Update => crate::model::Access::Update,
    };
    model.reorders(access(a), access(b))
}

/// Phase II under `model` for every predicted cycle: `settings.trials`
/// steered runs each, in parallel, deterministic for a given seed.
pub fn test(
    prog: &Program,
    model: Model,
    prediction: &Prediction,
    settings: &Settings,
    opts: &Options,
    sc: Option<&Answer<Observation>>,
) -> Active {
    let start = Instant::now();
    let model_no = model.code() as u64;
    // A machine per worker: its scratch registers are not shared.
    // Each worker counts its runs for `opts.progress` in batches.
    let init =
        || (Machine::new(prog, model, opts.loop_bound, opts.buffer_bound), Tally::new(opts.budget.progress.clone()));
    let per_cycle = |(m, tally): &mut (Machine, Tally), (ci, cycle): (usize, &Vec<Label>)| {
        let attempted = cycle.chunks(2).any(|p| relaxes(model, p[0].op, p[1].op));
        let mut r =
            CycleResult { cycle: cycle.clone(), attempted, trials: 0, confirmations: 0, bugs: 0, witness: None };
        let (mut runs, mut cut) = (0, 0);
        if !attempted {
            return (r, runs, cut);
        }
        for k in 0..settings.trials {
            if opts.budget.stopped() {
                break;
            }
            let seed = rng::derive(settings.seed, &[2, model_no, ci as u64, k as u64]);
            let run = steer::run(m, cycle, settings, seed);
            runs += 1;
            tally.one();
            r.trials += 1;
            if run.cut_by_steps || run.verdict == Verdict::Cut {
                cut += 1;
            }
            let Some(found) = confirm::find_with_abandoned(&run.events, cycle, &run.abandoned, model.has_histories())
            else {
                continue;
            };
            r.confirmations += 1;
            let bug = bug_of(m, &run.state, run.verdict, sc);
            if bug.is_some() {
                r.bugs += 1;
            }
            let better = match &r.witness {
                None => true,
                Some(w) => w.bug.is_none() && bug.is_some(),
            };
            if better {
                let handle = Handle {
                    model,
                    cycle: cycle.clone(),
                    probability: settings.probability,
                    delay_load: settings.delay_load,
                    delay_store: settings.delay_store,
                    loop_bound: opts.loop_bound,
                    seed,
                };
                r.witness = Some(Trial { handle, schedule: run.schedule, events: run.events, cycle: found, bug });
            }
        }
        (r, runs, cut)
    };
    // Seeds are per cycle and trial, so the results do not depend on who
    // runs what; one thread asked for: no hand-off to rayon's global pool.
    let results: Vec<(CycleResult, u64, u64)> = if opts.threads > 1 {
        prediction.cycles.par_iter().enumerate().map_init(init, per_cycle).collect()
    } else {
        let mut worker = init();
        prediction.cycles.iter().enumerate().map(|c| per_cycle(&mut worker, c)).collect()
    };
    let runs = results.iter().map(|r| r.1).sum();
    let cut_runs = results.iter().map(|r| r.2).sum();
    let cycles: Vec<CycleResult> = results.into_iter().map(|r| r.0).collect();
    let finished = cycles.iter().all(|c| !c.attempted || c.trials == settings.trials);
    Active {
        model,
        cycles,
        runs,
        cut_runs,
        time: start.elapsed(),
        stopped: (!finished).then(|| crate::certainty::Why::stopped(&opts.budget)).flatten(),
    }
}

/// Did this run break the program? Judged on its final state.
pub fn bug_of(m: &Machine<'_>, st: &State, verdict: Verdict, sc: Option<&Answer<Observation>>) -> Option<Bug> {
    use litmus_ir::Quantifier;
    for (t, s) in st.threads.iter().enumerate() {
        if let ThreadStatus::Failed { stmt, kind, .. } = *s {
            return Some(Bug::Failure { thread: t as u16, stmt, kind });
        }
    }
    if verdict != Verdict::Complete {
        return None;
    }
    let cond = m.prog.condition.as_ref()?;
    let holds = m.eval(&cond.expr, st)?;
    let sc_never = matches!(sc.and_then(|a| a.value()), Some(Observation::Never));
    let broken = match cond.quantifier {
        Quantifier::NotExists => holds,
        Quantifier::Forall => !holds,
        Quantifier::Exists => holds && sc_never,
    };
    broken.then_some(Bug::Condition)
}

/// Re-run a handle's trial (same model, cycle, settings and seed).
pub fn replay(prog: &Program, h: &Handle, opts: &Options) -> (steer::Run, Option<Vec<(u32, Edge)>>) {
    let m = Machine::new(prog, h.model, h.loop_bound, opts.buffer_bound);
    let s = Settings {
        probability: h.probability,
        delay_load: h.delay_load,
        delay_store: h.delay_store,
        ..Settings::default()
    };
    let run = steer::run(&m, &h.cycle, &s, h.seed);
    let found = confirm::find_with_abandoned(&run.events, &h.cycle, &run.abandoned, h.model.has_histories());
    (run, found)
}

/// Active testing of a program: one prediction, then each relaxed model.
#[derive(Clone, Debug)]
pub struct ActiveRun {
    /// Phase I's prediction: with history links when every model tested
    /// has load histories, else without.
    pub prediction: Prediction,
    /// With history links, for the models with load histories, when models
    /// without them are tested too (the same runs, a search of its own).
    pub history_prediction: Option<Prediction>,
    pub models: Vec<Active>,
    pub settings: Settings,
}

impl ActiveRun {
    pub fn of(&self, m: Model) -> Option<&Active> {
        self.models.iter().find(|a| a.model == m)
    }

    /// The cycles model `m` was tested on.
    pub fn prediction_for(&self, m: Model) -> &Prediction {
        match &self.history_prediction {
            Some(p) if m.has_histories() => p,
            _ => &self.prediction,
        }
    }
}

/// Phase I once, then Phase II for each relaxed model of `models`.
pub fn run(
    prog: &Program,
    models: &[Model],
    settings: &Settings,
    opts: &Options,
    sc: Option<&Answer<Observation>>,
) -> ActiveRun {
    progress::enter(&opts.budget.progress, Phase::Active, None);
    // The cycles only a model with load histories needs come from a search
    // of their own over the same runs: the other models' cycles, and so
    // their seeds, stay as they are.
    let histories = models.iter().any(|m| m.has_histories());
    let plain = models.iter().any(|m| m.buffered() && !m.has_histories());
    let modes: &[bool] = match (plain, histories) {
        (true, true) => &[false, true],
        (false, true) => &[true],
        _ => &[false],
    };
    let mut found = predict_all(prog, settings, opts, modes);
    let history_prediction = (histories && plain).then(|| found.pop()).flatten();
    let prediction = found.remove(0);
    let run = ActiveRun { prediction, history_prediction, models: Vec::new(), settings: settings.clone() };
    let models = models
        .iter()
        .filter(|&&m| m.buffered())
        .map(|&m| {
            progress::enter(&opts.budget.progress, Phase::Active, Some(m));
            test(prog, m, run.prediction_for(m), settings, opts, sc)
        })
        .collect();
    ActiveRun { models, ..run }
}

/// The robustness claim of an actively tested model: a confirmed cycle
/// proves a violation; otherwise nothing is known.
pub fn robust(a: &Active) -> Answer<bool> {
    if a.confirmed() > 0 {
        Answer::Proved(false)
    } else {
        Answer::Unknown(a.stopped.unwrap_or(Why::Tested(a.runs)))
    }
}
