//! `litmus check --mode active|auto`: active testing (RELAXER) where
//! exhaustive checking cannot finish. Its arguments, its run over a file,
//! and its JSON and human renderings. An active answer is never "robust":
//! a confirmed cycle is a proved violation (its run is the witness); no
//! confirmation is "no violation found in N runs".

use crate::report::{ActiveCycleJson, ActiveJson, CycleJson};
use litmus_checker::plan::{self, Plan};
use litmus_checker::relaxer::{self, Active, Settings};
use litmus_checker::{Model, MonitorKind, Options};
use litmus_ir::Program;
use litmus_present::words;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Explore every execution (within the bounds).
    Exhaustive,
    /// Active testing only (RELAXER).
    Active,
    /// Exhaustive within its work (`--work`, and `--budget` seconds if
    /// given), then active testing for every relaxed model it did not finish.
    Auto,
}

/// Active testing's knobs, shared by check and explain.
#[derive(clap::Args, Clone, Debug)]
pub struct ActiveArgs {
    /// exhaustive, active (RELAXER), or auto (exhaustive, then active for
    /// whatever the budget did not finish).
    #[arg(long, value_enum, default_value = "auto")]
    pub mode: Mode,
    /// auto: seconds of exhaustive checking per file before active testing
    /// takes over (default: half of `--timeout` when one is given, else
    /// none: `--work` alone ends it).
    #[arg(long, value_parser = budget_arg, allow_hyphen_values = true)]
    pub budget: Option<Duration>,
    /// Steps each exploration may take (transitions of the interleaving
    /// explorer, nodes of the graph explorer; `k`, `M`, `G` suffixes) before
    /// it stops and says so [default: 20M in auto and active mode, none in
    /// exhaustive mode]. Work, not time: the same answer on any machine.
    #[arg(long, value_parser = work_arg)]
    pub work: Option<u64>,
    /// Active: steered runs per predicted cycle and model.
    #[arg(long, default_value_t = 30)]
    pub runs: u32,
    /// Active: random SC runs to predict cycles from.
    #[arg(long, default_value_t = 100)]
    pub sc_runs: u32,
    /// Active: the seed of every random choice (same seed, same results).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Active: the chance of delaying or pausing at a cycle's statement.
    #[arg(long, default_value_t = 0.5, value_parser = probability_arg)]
    pub probability: f64,
    /// Active: the longest predicted cycle, in events (even, 4 to 16)
    /// [default: grow by itself, shortest first, up to 2 × threads].
    #[arg(long, value_parser = cycle_length_arg)]
    pub cycle_length: Option<usize>,
}

fn budget_arg(s: &str) -> Result<Duration, String> {
    let secs: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    litmus_checker::options::parse_timeout(secs).map_err(|e| e.to_string())
}

fn work_arg(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mul) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1_000),
        Some((i, 'M' | 'm')) => (&t[..i], 1_000_000),
        Some((i, 'G' | 'g')) => (&t[..i], 1_000_000_000),
        _ => (t, 1),
    };
    match num.trim().replace('_', "").parse::<u64>() {
        Ok(n) if n > 0 => n.checked_mul(mul).ok_or_else(|| format!("`{s}` is too many steps")),
        _ => Err(format!("`{s}` is not a number of steps (a positive whole number, optionally with k, M or G)")),
    }
}

fn probability_arg(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("`{s}` is not a probability (a number from 0 to 1)")),
    }
}

fn cycle_length_arg(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (4..=16).contains(&n) && n % 2 == 0 => Ok(n),
        _ => Err(format!("`{s}` is not a cycle length (an even number of events from 4 to 16)")),
    }
}

impl ActiveArgs {
    /// The check these arguments ask for (the file's deadline in `opts`).
    pub fn plan(&self, models: &[Model], monitor: MonitorKind, opts: &Options) -> Plan {
        let mode = match self.mode {
            Mode::Exhaustive => plan::Mode::Exhaustive,
            Mode::Active => plan::Mode::Active,
            Mode::Auto => plan::Mode::Auto,
        };
        let mut opts = opts.clone();
        opts.budget.max_steps = self.work.or(opts.budget.max_steps);
        Plan::new(models.to_vec(), monitor, opts, mode, self.budget, self.settings())
    }

    pub fn settings(&self) -> Settings {
        Settings {
            sc_runs: self.sc_runs,
            trials: self.runs,
            seed: self.seed,
            probability: self.probability,
            cycle_length: self.cycle_length,
            ..Settings::default()
        }
    }
}

pub use relaxer::ActiveRun;

pub use relaxer::robust;

fn stmt_json(p: &Program, thread: u16, stmt: u32, edge: &'static str) -> CycleJson {
    let s = &p.stmts[stmt as usize];
    CycleJson {
        thread: p.threads[thread as usize].name.clone(),
        line: s.line,
        column: s.col,
        statement: s.text.clone(),
        edge: edge.into(),
    }
}

/// A cycle's statements and edges, as drawn: the run's trace cycle when
/// confirmed, else the predicted labels.
pub fn cycle_steps(c: &relaxer::CycleResult) -> Vec<(u16, u32, &'static str)> {
    match &c.witness {
        Some(w) => {
            w.cycle.iter().map(|&(i, e)| (w.events[i as usize].thread, w.events[i as usize].stmt, e.as_str())).collect()
        }
        None => c
            .cycle
            .iter()
            .enumerate()
            .map(|(j, l)| (l.thread, l.stmt, if j % 2 == 0 { "po" } else { "race" }))
            .collect(),
    }
}

pub fn json(p: &Program, run: &ActiveRun, a: &Active) -> ActiveJson {
    let pred = run.prediction_for(a.model);
    ActiveJson {
        predicted: pred.cycles.len(),
        confirmed: a.confirmed(),
        bugs: a.bugs(),
        runs: a.runs,
        sc_runs: pred.runs,
        seed: run.settings.seed,
        probability: run.settings.probability,
        cycle_length: run
            .settings
            .cycle_length
            .unwrap_or_else(|| litmus_checker::relaxer::settings::longest_cycle(p.threads.len())),
        lengths_searched: pred.lengths.clone(),
        length_cut: pred.partial,
        phase1_ms: Some(pred.time.as_secs_f64() * 1e3),
        phase2_ms: Some(a.time.as_secs_f64() * 1e3),
        mean_probability: a.mean_probability(),
        stopped: a.stopped.map(|w| w.as_str().into()),
        truncated: pred.truncated,
        cycles: a
            .cycles
            .iter()
            .filter(|c| c.attempted)
            .map(|c| ActiveCycleJson {
                cycle: cycle_steps(c).into_iter().map(|(t, s, e)| stmt_json(p, t, s, e)).collect(),
                runs: c.trials,
                confirmations: c.confirmations,
                probability: c.probability(),
                bugs: c.bugs,
                harm: c.witness.as_ref().map(|w| words::active_bug(p, w.bug.as_ref())),
                replay: c.witness.as_ref().map(|w| w.handle.to_string()),
            })
            .collect(),
    }
}
