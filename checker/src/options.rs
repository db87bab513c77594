//! How far a check may go: its bounds, its [`Budget`] of time, and the
//! names of models and monitors as users spell them (one parser for the
//! CLI and the language server).

use crate::budget::Budget;
use crate::machine::Model;
use crate::monitor::MonitorKind;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The bounds' defaults, for every front end (CLI flags, editor settings).
pub const DEFAULT_LOOP_BOUND: u32 = 2;
pub const DEFAULT_BUFFER_BOUND: u32 = 16;

#[derive(Clone, Debug)]
pub struct Options {
    pub loop_bound: u32,
    pub buffer_bound: u32,
    pub preemption_bound: Option<u32>,
    /// How TSO and PSO outcomes are explored (see [`ExplorerKind`]).
    pub explorer: ExplorerKind,
    /// Worker threads for one exploration by graph (default: every core;
    /// 1: the sequential search). Answers and witnesses do not depend on it.
    pub threads: usize,
    /// Try the unbounded procedure (`crate::unbounded`) first, within these
    /// limits: answers for every iteration where the state space is finite,
    /// the bounded engine for the rest. `None` (the library's default, so
    /// its tests exercise the bounded engine): bounded only. The CLI, the
    /// language server and suites turn it on ([`Options::with_unbounded`]).
    pub unbounded: Option<StateLimits>,
    /// The interleaving explorer's outcome runs leave a thread whose next
    /// `await`/`lock` attempt would fail waiting, instead of running it
    /// into an execution that ends blocked (`crate::dpor::Limits::waits_block`;
    /// the default). `false`: every attempt runs, as in the monitored SC
    /// exploration — the reference the tests hold the default to.
    pub waits: bool,
    /// The deadline, cancel flag, `--first` and progress display the
    /// whole check shares.
    pub budget: Budget,
    /// The user's costs of repairs, over the default table
    /// (`crate::repair::menu`).
    pub repair_costs: RepairCosts,
}

/// Costs the user sets for repairs (setting `repairCosts`, `--repair-cost
/// NAME=N`), by the name the default table gives each form: a barrier
/// (`DMB ISH`, `fence r,rw`, `fence.tso`, `fence seq_cst`), an access form
/// (`LDAPR`, `LDAR`, `STLR`; `.aq`, `.rl`, `.aqrl`), a memory order's rank
/// (`acquire`, `release`, `acq_rel`, `seq_cst`). Names are matched without
/// case; the last setting of a name wins; others keep the table's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepairCosts(pub Vec<(String, u32)>);

impl RepairCosts {
    /// The cost of the form named `name`: the user's, else `default`.
    pub fn of(&self, name: &str, default: u32) -> u32 {
        self.0.iter().rev().find(|(n, _)| n.eq_ignore_ascii_case(name)).map_or(default, |&(_, c)| c)
    }

    /// `NAME=N` pairs (`LDAR=1`, `DMB ISH=4`).
    pub fn parse(items: &[String]) -> Result<RepairCosts, String> {
        let mut out = Vec::new();
        for it in items {
            let (name, n) = it.rsplit_once('=').ok_or_else(|| format!("`{it}`: expected NAME=COST"))?;
            let n: u32 = n.trim().parse().map_err(|_| format!("`{it}`: the cost is not a whole number"))?;
            out.push((name.trim().to_string(), n));
        }
        Ok(RepairCosts(out))
    }
}

/// How far the unbounded procedure's search of states may go
/// ([`crate::unbounded`]).
#[derive(Clone, Debug)]
pub struct StateLimits {
    pub max_states: usize,
    /// Key bytes and per-state tables together.
    pub max_bytes: usize,
    /// Growth is judged only past this many states (small finite programs
    /// finish first).
    pub growth_after: usize,
    /// A relaxed model's search stops when a store first waits for room
    /// (its answer could then only be within the buffer bound, as the
    /// bounded engine's, which is usually cheaper).
    pub stop_at_full_buffer: bool,
}

impl Default for StateLimits {
    fn default() -> Self {
        StateLimits { max_states: 4_000_000, max_bytes: 1 << 30, growth_after: 20_000, stop_at_full_buffer: false }
    }
}

/// How relaxed outcomes are explored. Both give the same answers (tested);
/// they differ in cost. The graph explorer visits far fewer executions on
/// store-buffering programs (slow.litmus, SB-n: 3–11x faster) but costs more
/// per execution, and on programs that wait (fenced Dekker, Peterson,
/// bakery: loops and awaits, where source-DPOR already visits one execution
/// per graph) it is 2–4.6x slower (`benches/peers.rs`). So `Auto`, the
/// default, takes graphs for programs that never wait (loops that store
/// and retry have many interleavings per graph: Lamport's fast mutex 5x
/// faster by graphs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ExplorerKind {
    /// Graphs for programs without awaits or locks; else interleaving.
    #[default]
    Auto,
    /// By execution graph (one visit per consistent rf/co graph) where it
    /// applies — TSO and PSO without a preemption bound — else by
    /// interleaving.
    Graph,
    /// Source-DPOR over the machine's interleavings (buffer commits are
    /// steps), with the buffer bound.
    Interleaving,
    /// A model given as data by its candidate executions, as herd7 does
    /// ([`crate::candidates`]); other models as `Auto`.
    Candidates,
}

impl ExplorerKind {
    /// `auto`, `graph`, `interleaving` or `candidates` (any case).
    pub fn parse(name: &str) -> Result<ExplorerKind, SettingError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(ExplorerKind::Auto),
            "graph" => Ok(ExplorerKind::Graph),
            "interleaving" => Ok(ExplorerKind::Interleaving),
            "candidates" => Ok(ExplorerKind::Candidates),
            _ => Err(SettingError::UnknownExplorer(name.trim().to_string())),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ExplorerKind::Auto => "auto",
            ExplorerKind::Graph => "graph",
            ExplorerKind::Interleaving => "interleaving",
            ExplorerKind::Candidates => "candidates",
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            loop_bound: DEFAULT_LOOP_BOUND,
            buffer_bound: DEFAULT_BUFFER_BOUND,
            preemption_bound: None,
            explorer: ExplorerKind::default(),
            threads: all_cores(),
            unbounded: None,
            waits: true,
            budget: Budget::default(),
            repair_costs: RepairCosts::default(),
        }
    }
}

/// The stack of every thread that checks: the graph search and the
/// explorers recurse about once per event, so a long thread's search needs
/// more than a thread's default 2 MiB (3,000 stores overflowed it). Only
/// address space is reserved; pages are used as the search goes.
pub const CHECK_STACK: usize = 64 << 20;

/// A scoped thread with [`CHECK_STACK`] (what every thread of a check is).
pub fn spawn_checking<'scope, 'env, T: Send + 'scope>(
    s: &'scope std::thread::Scope<'scope, 'env>,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    std::thread::Builder::new().stack_size(CHECK_STACK).spawn_scoped(s, f).expect("a thread can be started")
}

/// The cores this process may use and finds free (asked once: the answer
/// reads cgroup files and the load): the default worker and job count.
pub fn all_cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // Less the cores other processes keep busy as the process starts: a
        // worker there only takes turns with them (issue 43: on a 2-core
        // machine with one core busy, two workers were slower than one).
        // Only speed depends on it: answers are the same for any count.
        cores.saturating_sub(busy_elsewhere()).max(1)
    })
}

/// Threads running on other processes' behalf now: the running count of
/// `/proc/loadavg` less this process's reading thread, the least of three
/// looks (a kernel thread may be running for an instant). 0 where unknown.
fn busy_elsewhere() -> usize {
    (0..3)
        .filter_map(|_| {
            let text = std::fs::read_to_string("/proc/loadavg").ok()?;
            let running: usize = text.split_whitespace().nth(3)?.split('/').next()?.parse().ok()?;
            Some(running.saturating_sub(1))
        })
        .min()
        .unwrap_or(0)
}

impl Options {
    /// These options, stopping at the first finding.
    pub fn stop_at_first(mut self) -> Self {
        self.budget.found = Some(Arc::new(AtomicBool::new(false)));
        self
    }

    /// Tests: these options, cancelled at the `n`-th poll of the budget.
    pub fn cancel_after_polls(mut self, n: u64) -> Self {
        self.budget.cancel = Some(Arc::new(AtomicBool::new(false)));
        self.budget.polls_left = Some(Arc::new(std::sync::atomic::AtomicU64::new(n)));
        self
    }

    /// These options, trying the unbounded procedure first (default limits).
    pub fn with_unbounded(mut self) -> Self {
        self.unbounded = Some(StateLimits::default());
        self
    }

    /// These options with the deadline `timeout` from now.
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        // A timeout too large for an Instant is no deadline at all.
        self.budget.deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        self
    }

    /// These options with another budget (a phase's share of the check's).
    pub fn with_budget(&self, budget: Budget) -> Self {
        Options { budget, ..self.clone() }
    }
}

/// The longest timeout accepted: a year. Longer is a typo, not a wish.
pub const MAX_TIMEOUT_SECS: f64 = 365.0 * 86_400.0;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingError {
    #[error("timeout must be a number of seconds ≥ 0 and ≤ {MAX_TIMEOUT_SECS}, not {0}")]
    Timeout(String),
    #[error("unknown model `{0}` (expected sc, tso, pso, pslo or a model file, FILE.cat)")]
    UnknownModel(String),
    /// A model file that cannot be read or used (the message says where).
    #[error("{0}")]
    CatModel(String),
    #[error("unknown explorer `{0}` (expected graph or interleaving)")]
    UnknownExplorer(String),
    #[error("unknown monitor `{0}` (expected bss, sober, bss-interleaving or graph)")]
    UnknownMonitor(String),
}

/// A timeout in seconds, as typed: finite, not negative, at most a year.
pub fn parse_timeout(secs: f64) -> Result<Duration, SettingError> {
    if !secs.is_finite() || !(0.0..=MAX_TIMEOUT_SECS).contains(&secs) {
        return Err(SettingError::Timeout(secs.to_string()));
    }
    Duration::try_from_secs_f64(secs).map_err(|_| SettingError::Timeout(secs.to_string()))
}

impl Model {
    /// A model's name (`sc`, `tso`, `pso`, `pslo`; any case).
    pub fn parse(name: &str) -> Result<Model, SettingError> {
        let name = name.trim();
        Model::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| SettingError::UnknownModel(name.to_string()))
    }

    /// A model's name, or a herd model file (`FILE.cat`, its includes
    /// searched next to it, then in `include_dirs`). A `.cat` name that is
    /// no file but one of herd's stock files (`x86tso.cat`) is the built-in
    /// copy of it; a model already loaded is found by its name.
    pub fn parse_in(name: &str, include_dirs: &[std::path::PathBuf]) -> Result<Model, SettingError> {
        let name = name.trim();
        if let Ok(m) = Model::parse(name) {
            return Ok(m);
        }
        if !name.ends_with(".cat") {
            return crate::catalog::architecture(name)
                .or_else(|| crate::catalog::by_name(name))
                .ok_or_else(|| SettingError::UnknownModel(name.to_string()));
        }
        let path = std::path::Path::new(name);
        let bad = |e: crate::catalog::CatModelError| SettingError::CatModel(e.to_string());
        if !path.exists() {
            if let Ok(model) = litmus_cat::stock::load(name) {
                return crate::catalog::register(path, model).map_err(bad);
            }
        }
        crate::catalog::load(path, include_dirs).map_err(bad)
    }

    /// A list of names: sorted, without duplicates; the first bad name is an error.
    pub fn parse_list<S: AsRef<str>>(names: &[S]) -> Result<Vec<Model>, SettingError> {
        Model::parse_list_in(names, &[])
    }

    /// [`Model::parse_list`], with model files ([`Model::parse_in`]).
    pub fn parse_list_in<S: AsRef<str>>(
        names: &[S],
        include_dirs: &[std::path::PathBuf],
    ) -> Result<Vec<Model>, SettingError> {
        let mut out = names.iter().map(|n| Model::parse_in(n.as_ref(), include_dirs)).collect::<Result<Vec<_>, _>>()?;
        out.sort();
        out.dedup();
        Ok(out)
    }
}

impl MonitorKind {
    pub fn parse(name: &str) -> Result<MonitorKind, SettingError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "bss" => Ok(MonitorKind::Bss),
            "sober" => Ok(MonitorKind::Sober),
            "bss-interleaving" => Ok(MonitorKind::BssInterleaving),
            "graph" => Ok(MonitorKind::Graph),
            _ => Err(SettingError::UnknownMonitor(name.trim().to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts() {
        assert_eq!(parse_timeout(2.5), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_timeout(0.0), Ok(Duration::ZERO));
        for bad in [-1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e20, MAX_TIMEOUT_SECS * 2.0] {
            assert!(parse_timeout(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names() {
        assert_eq!(Model::parse_list(&["PSO", "sc", "tso", "sc"]), Ok(vec![Model::Sc, Model::Tso, Model::Pso]));
        assert_eq!(Model::parse("x86"), Err(SettingError::UnknownModel("x86".into())));
        assert_eq!(Model::parse(" PSLO "), Ok(Model::Pslo));
        assert_eq!(Model::parse_list(&["pslo", "sc", "pso"]), Ok(vec![Model::Sc, Model::Pso, Model::Pslo]));
        assert_eq!(MonitorKind::parse("Sober"), Ok(MonitorKind::Sober));
        assert!(MonitorKind::parse("herd").is_err());
    }
}
