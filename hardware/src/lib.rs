//! Running a program on this machine's CPU, as herdtools' litmus7 does:
//! real OS threads (pinned to distinct cores when there are enough), real
//! shared memory, many instances of the test per batch with every run's
//! threads started together, and the histogram of the final states reached.
//! What the models allow is the explorer's business ([`litmus_checker::outcome`]);
//! comparing the two is the caller's.
//!
//! - [`exec`]: one thread of one run, the IR over atomic cells (and the
//!   mapping of each instruction to x86-64);
//! - [`batch`]: the driver (batches, pinning, the spin barrier per run, the
//!   time limit per batch) and the tally of final states;
//! - [`sync`]: the barrier, backoff, where a thread spins;
//! - [`record`]: per-run histories in the history text format.
//!
//! Bounded like the explorer: a loop past the loop bound cuts the run (a
//! run the explorer would cut too), an `await` or `lock` gives up after
//! `spin_limit` failed attempts (the run is *stuck*), and a batch that is
//! not done within `time_limit` stops everything, saying where each thread
//! was spinning.

pub mod batch;
pub mod exec;
pub mod record;
pub mod sync;

use litmus_checker::machine::FailureKind;
use litmus_checker::outcome::CondSite;
use litmus_ir::{Program, StmtId};
use std::collections::BTreeMap;
use std::time::Duration;

pub use batch::{run, run_with};
pub use exec::{End, Op, Trace};
pub use sync::Where;

#[derive(Clone, Debug)]
pub struct Settings {
    /// Runs in all (instances of the test).
    pub iterations: u64,
    /// Instances per batch: each thread runs them one after the other, all
    /// threads starting each one together; memory is reset between batches.
    pub batch: usize,
    pub loop_bound: u32,
    /// Failed attempts of one `await` or `lock` before its run is stuck.
    pub spin_limit: u64,
    /// A batch still running after this long stops the whole run.
    pub time_limit: Duration,
    /// Pin each thread to a core of its own (when there are enough).
    pub pin: bool,
    /// Keep each run's memory operations for [`record`].
    pub record: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            iterations: 100_000,
            batch: 1000,
            loop_bound: 2,
            spin_limit: 100_000,
            time_limit: Duration::from_secs(10),
            pin: true,
            record: false,
        }
    }
}

/// Where the threads ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Thread `i` on core `cores[i]`.
    Pinned(Vec<usize>),
    /// Not pinned: more threads than the cores this process may use, or
    /// pinning was not asked for or failed.
    Unpinned { cores: usize, why: Unpinned },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unpinned {
    TooFewCores,
    NotAsked,
    Failed,
}

/// How one run ended, after its threads did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// Every thread finished: a final state (the program's observables)
    /// and whether the condition holds there (`None`: no condition).
    Final { values: Vec<i64>, satisfies: Option<bool> },
    /// The filter rejected the final state.
    Filtered,
    /// The filter or the condition divides by zero in the final state.
    Undefined(CondSite),
    /// Some thread failed an assertion or a run-time check.
    Failed,
    /// Some thread ran past the loop bound.
    Cut,
    /// Some thread's `assume` was false.
    Pruned,
    /// Some thread's `await` or `lock` never succeeded within the spin limit.
    Stuck,
}

/// One finished run, handed to the caller when recording.
pub struct Run<'a> {
    /// 0-based, over all batches.
    pub index: u64,
    /// 0-based batch, and the instance within it.
    pub batch: u64,
    pub instance: usize,
    /// Per thread.
    pub ends: Vec<End>,
    pub traces: Vec<&'a Trace>,
    pub outcome: RunOutcome,
}

/// A final state's count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    pub runs: u64,
    pub satisfies: Option<bool>,
}

/// Runs by how they ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ends {
    pub complete: u64,
    pub filtered: u64,
    pub filter_errors: u64,
    pub condition_errors: u64,
    pub failed: u64,
    pub cut: u64,
    pub pruned: u64,
    pub stuck: u64,
}

/// The batch that hit its time limit, and where each thread was then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// 1-based.
    pub batch: u64,
    pub limit: Duration,
    pub threads: Vec<Where>,
}

/// What the runs showed.
#[derive(Clone, Debug)]
pub struct Observed {
    /// Final states (after the filter) by the observables' values.
    pub states: BTreeMap<Vec<i64>, Count>,
    /// Runs of the batches that finished.
    pub runs: u64,
    pub batches: u64,
    pub ends: Ends,
    /// Failing runs by (thread, statement, kind).
    pub failures: BTreeMap<(u16, StmtId, FailureKind), u64>,
    /// Stuck runs by (thread, statement of the await or lock).
    pub stuck_at: BTreeMap<(u16, StmtId), u64>,
    pub placement: Placement,
    /// Wall time of the batches (thread start-up and tallying included).
    pub elapsed: Duration,
    /// The time limit stopped the run (what came before is counted).
    pub stopped: Option<Stopped>,
}

impl Observed {
    /// Runs that reached a final state where the condition holds.
    pub fn satisfying(&self) -> u64 {
        self.states.values().filter(|c| c.satisfies == Some(true)).map(|c| c.runs).sum()
    }

    pub fn per_second(&self) -> f64 {
        self.runs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// A final state as `check` prints it: `P0:r0=0 P1:r1=1 x=2`.
pub fn show_state(prog: &Program, values: &[i64]) -> String {
    prog.observables
        .iter()
        .zip(values)
        .map(|(o, v)| format!("{}={}", o.name, prog.show_value(*v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A statement as messages name it: "P1 line 12 (`await (x == 1)`)".
pub fn show_stmt(prog: &Program, thread: u16, stmt: StmtId) -> String {
    let name = prog.threads.get(thread as usize).map_or("?", |t| t.name.as_str());
    match prog.stmts.get(stmt as usize) {
        Some(s) => format!("{name} line {} (`{}`)", s.line, s.text),
        None => name.to_string(),
    }
}

/// Does `model`'s exploration allow this final state? `None` when it did
/// not find it and cannot say: only an exploration that finished with
/// nothing cut but by the loop bound (runs past it are cut here too) makes
/// an absent state forbidden.
pub fn allows(model: &litmus_checker::ModelOutcome, values: &[i64]) -> Option<bool> {
    if model.states.iter().any(|s| s.values == values) {
        Some(true)
    } else {
        decisive(model).then_some(false)
    }
}

/// The same for a failing statement.
pub fn allows_failure(model: &litmus_checker::ModelOutcome, stmt: StmtId, kind: FailureKind) -> Option<bool> {
    if model.failures.iter().any(|f| f.stmt == stmt && f.kind == kind) {
        Some(true)
    } else {
        decisive(model).then_some(false)
    }
}

fn decisive(model: &litmus_checker::ModelOutcome) -> bool {
    use litmus_checker::Coverage;
    match model.coverage {
        Coverage::Complete => true,
        Coverage::Bounded(c) => c.preemption_bound == 0 && c.buffer_bound == 0,
        Coverage::Stopped(_) => false,
    }
}
