//! `litmus check` of one file: analyse and explore it, and its JSON report
//! (running many is `suite::batch`).

use crate::active::{self, ActiveArgs, ActiveRun};
use crate::report::{
    BoundsJson, ConditionJson, CycleJson, DiagnosticJson, FailureJson, FenceJson, FileReport, JointRepairJson,
    ModelJson, Models, Position, ViolationJson, Word,
};
use crate::Color;
use litmus_checker::violation::FencePoint;
use litmus_checker::{Answer, Certainty, Coverage, Model, ModelOutcome, MonitorKind, Options, Robustness};
use litmus_dsl::{analyze, Analysis, Severity};
use std::time::Duration;

/// How `check` writes its reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SuiteFormat {
    /// rustc-style reports (one line per file with --brief), then a summary.
    Human,
    /// One JSON object per file per line, in list order; the summary last.
    Json,
    /// JSON Lines streamed: each file's object as soon as it is checked, the summary last.
    Jsonl,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Files to check (`.litmus`, native or herd x86 dialect), or folders:
    /// their `.litmus` files at any depth, or what their herd `@all` index lists.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: SuiteFormat,
    /// Human output: one line per file instead of each file's report.
    #[arg(long)]
    pub brief: bool,
    /// Files checked at once (default: every core). The output does not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub jobs: Option<u32>,
    /// Check only shard K of N (1-based) of the file list, a deterministic
    /// partition balanced by file size; `auto` reads it from the scheduler's
    /// environment (LITMUS_SHARD, GitLab, Slurm arrays, Kubernetes Indexed Jobs).
    #[arg(long, value_name = "K/N|auto")]
    pub shard: Option<String>,
    /// Expected verdicts (a verdicts.tsv, or herd7 output); the run then says
    /// which tests disagree, and its exit status is whether all agree.
    /// `auto`: each test's own, beside it — herd's `X.litmus.expected`, or a
    /// `verdicts.tsv` in its folder.
    #[arg(long, value_name = "FILE|auto")]
    pub expect: Vec<String>,
    /// The model of expectations given as herd7 output.
    #[arg(long, default_value = "tso", value_parser = model_name)]
    pub expect_model: String,
    /// Leave times out of the reports, so two runs compare byte for byte.
    #[arg(long)]
    pub no_timing: bool,
    #[arg(long, value_delimiter = ',', help = model_help())]
    pub model: Vec<String>,
    #[command(flatten)]
    pub bounds: Bounds,
    /// Colour in human output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    #[command(flatten)]
    pub active: ActiveArgs,
    /// Stop each file's check at its first finding — a failing assertion or
    /// a witnessed violation — and report it with its witness (as Nidhugg
    /// and GenMC do); what was not searched is unknown.
    #[arg(long)]
    pub first: bool,
    /// A progress bar on stderr (phase, executions, elapsed time): auto
    /// (when stderr is a terminal and the format is human), always, never.
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: crate::progress::ProgressArg,
}

/// Exploration bounds and the monitor, shared by check, fix and explain.
#[derive(clap::Args, Clone, Debug)]
pub struct Bounds {
    /// A repair's cost over the default table, by the name the table gives
    /// it (`LDAR=1`, `DMB ISH=4`, `fence r,rw=2`, `seq_cst=2`); repeatable.
    #[arg(long = "repair-cost", value_name = "NAME=COST", value_parser = parse_repair_cost)]
    pub repair_cost: Vec<(String, u32)>,
    /// Where a model file's `include`s are looked for, after its own
    /// folder (`--model FILE.cat`); herd's stock files need none: they are
    /// built in.
    #[arg(long = "cat-include", value_name = "DIR")]
    pub cat_include: Vec<std::path::PathBuf>,
    /// Iterations of each loop body per entry; longer executions are cut
    /// (the bounded engine's bound: what the unbounded procedure, tried
    /// first, leaves undecided is explored with it).
    #[arg(long, default_value_t = litmus_checker::options::DEFAULT_LOOP_BOUND)]
    pub loop_bound: u32,
    /// Skip the unbounded procedure (the stateful search that proves
    /// answers for every iteration): explore with the bounds only.
    #[arg(long)]
    pub bounded: bool,
    /// At most this many preemptions in the SC exploration (default: unbounded).
    #[arg(long)]
    pub preemption_bound: Option<u32>,
    /// At most this many pending stores per thread under TSO/PSO/PSLO
    /// (the interleaving explorer's bound; graphs have no buffers to bound).
    #[arg(long, default_value_t = litmus_checker::options::DEFAULT_BUFFER_BOUND)]
    pub buffer_bound: u32,
    /// How TSO and PSO outcomes are explored: graph (one visit per
    /// consistent execution graph; needs no --preemption-bound),
    /// interleaving (every order of buffer commits, up to the buffer bound),
    /// or auto (graph for programs without awaits or locks).
    #[arg(long, value_enum, default_value = "auto")]
    pub explorer: ExplorerArg,
    /// Worker threads for one exploration by graph, and (more than one)
    /// relaxed outcomes explored beside the SC exploration in a bounded
    /// check (default: every core). The output does not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Give up on a file after this many seconds, across every phase (what
    /// is unfinished then is reported as unknown).
    #[arg(long, value_parser = timeout_arg, allow_hyphen_values = true)]
    pub timeout: Option<Duration>,
    /// The SC-violation monitor: bss (Burnim–Sen–Stergiou; TSO and PSO),
    /// sober (Burckhardt–Musuvathi; TSO, with bss for PSO), or
    /// bss-interleaving (BSS with the paper's commit rule), or graph (no
    /// monitor: the model's execution graphs, each one that is not
    /// SC-consistent a violation; where no preemption bound is set). PSLO
    /// has none: its own executions are explored.
    #[arg(long, value_enum, default_value = "bss")]
    pub monitor: MonitorArg,
}

/// A model's name, as `Model::ALL` spells them.
/// `--model`'s help: every model the checker knows.
fn model_help() -> String {
    let names: Vec<&str> = Model::ALL.iter().map(|m| m.as_str()).collect();
    let default = |d| litmus_checker::catalog::defaults_for(d).iter().map(|m| m.as_str()).collect::<Vec<_>>().join(",");
    format!(
        "Memory models to check, comma-separated: {}, or a herd model file (FILE.cat; herd's stock files by name, e.g. x86tso.cat) [default: {} for a native program, {} for a herd x86 test]",
        names.join(", "),
        default(litmus_ir::Dialect::Native),
        default(litmus_ir::Dialect::HerdX86)
    )
}

fn model_name(s: &str) -> Result<String, String> {
    Model::parse_in(s, &[]).map(|m| m.as_str().to_string()).map_err(|e| e.to_string())
}

pub fn timeout_arg(s: &str) -> Result<Duration, String> {
    let secs: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    litmus_checker::options::parse_timeout(secs).map_err(|e| e.to_string())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplorerArg {
    Auto,
    Graph,
    Interleaving,
    Candidates,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MonitorArg {
    Bss,
    Sober,
    BssInterleaving,
    Graph,
}

impl MonitorArg {
    pub fn kind(self) -> MonitorKind {
        match self {
            MonitorArg::Bss => MonitorKind::Bss,
            MonitorArg::Sober => MonitorKind::Sober,
            MonitorArg::BssInterleaving => MonitorKind::BssInterleaving,
            MonitorArg::Graph => MonitorKind::Graph,
        }
    }
}

pub struct Loaded {
    pub path: String,
    pub src: String,
    pub analysis: Analysis,
}

/// For the one-file commands (`fix`, `explain`): the models and the file,
/// which must analyse cleanly. On failure the error or the diagnostics are
/// printed and the exit status (2) is returned.
pub fn load_one(model_names: &[String], bounds: &Bounds, path: &str) -> Result<(Vec<Model>, Loaded), u8> {
    let fail = |e: String| {
        eprintln!("error: {e}");
        2
    };
    let asked = parse_models(model_names, bounds).map_err(fail)?;
    let l = load(path).map_err(fail)?;
    let Some(p) = &l.analysis.program else {
        eprint!("{}", litmus_dsl::diagnostic::render(&l.analysis.diagnostics, &l.path, &l.src, false));
        return Err(2);
    };
    Ok((models_for(&asked, p.dialect, Some(p)), l))
}

pub fn load(path: &str) -> Result<Loaded, String> {
    let src = read_utf8(path)?;
    let analysis = analyze(&src);
    Ok(Loaded { path: path.to_string(), src, analysis })
}

/// A file's text, or why it cannot be had.
pub fn read_utf8(path: &str) -> Result<String, String> {
    let bytes = read_regular(path)?;
    String::from_utf8(bytes).map_err(|e| {
        // Where it breaks: line, and byte within the line (1-based).
        let ok = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = ok.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = ok.len() - ok.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        format!("`{path}` is not valid UTF-8: line {line}, byte {col} (offset {})", ok.len())
    })
}

/// The bytes of a regular file. Anything else is refused before it is
/// opened: reading a FIFO or a device named on the command line would wait
/// for a writer past every timeout (folder walks skip them the same way).
pub fn read_regular(path: &str) -> Result<Vec<u8>, String> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => return Err(format!("`{path}` is not a regular file")),
        _ => {}
    }
    std::fs::read(path).map_err(|e| format!("cannot read `{path}`: {e}"))
}

/// A file and what the checker found.
pub struct Checked {
    pub loaded: Loaded,
    pub models: Vec<Model>,
    pub outcomes: Vec<ModelOutcome>,
    pub robustness: Vec<Robustness>,
    /// Active testing, for the relaxed models exhaustive checking did not
    /// finish (auto) or for all (active).
    pub active: Option<ActiveRun>,
    /// The bounded engine's loop bound (`--loop-bound`): said wherever it cut.
    pub loop_bound: u32,
    /// One repair for every model decided on whole candidates, when there
    /// are several ([`litmus_checker::Report::joint_repair`]), and what its
    /// re-check earned.
    pub joint_repair: Option<(Vec<Model>, litmus_checker::repair::RepairFix)>,
}

/// What a file's check amounts to, for the exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Nothing found, every answer proved or within bounds: exit 0.
    Clean,
    /// Nothing found, but some answer is unknown (timeout, cancel,
    /// unconfirmed signal): exit 3.
    Unknown,
    /// A violation, failing assertion, deadlock, a condition a witnessed
    /// state contradicts, or a condition that divides by zero: exit 1.
    Finding,
    /// A usage or parse error: exit 2.
    Error,
}

impl Status {
    /// The word reports carry (`status`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Clean => "clean",
            Status::Unknown => "unknown",
            Status::Finding => "finding",
            Status::Error => "error",
        }
    }
}

impl Checked {
    pub fn status(&self) -> Status {
        let Some(p) = &self.loaded.analysis.program else { return Status::Error };
        if self.loaded.analysis.has_errors() {
            return Status::Error;
        }
        let actives = self.active.iter().flat_map(|a| a.models.iter());
        let finding = self.robustness.iter().any(|r| !r.violations.is_empty())
            || actives.clone().any(|a| a.confirmed() > 0)
            || self.outcomes.iter().any(|o| {
                !o.failures.is_empty()
                    || !o.deadlocks.is_empty()
                    || !o.condition_errors.is_empty()
                    || o.condition_fails(p)
            });
        // An active answer is never clean: finding nothing proves nothing.
        let unknown = self.outcomes.iter().any(|o| !o.coverage.finished())
            || self.robustness.iter().any(|r| !r.robust().is_known())
            || actives.count() > 0
            || self.outcomes.len() < self.models.len();
        if finding {
            Status::Finding
        } else if unknown {
            Status::Unknown
        } else {
            Status::Clean
        }
    }
}

/// The models a file is checked under: those named, or (none named) its
/// defaults, by dialect (a herd x86 test: SC and TSO; a native program
/// with memory orders: SC and RC11).
pub fn models_for(asked: &[Model], dialect: litmus_ir::Dialect, prog: Option<&litmus_ir::Program>) -> Vec<Model> {
    match prog {
        _ if !asked.is_empty() => asked.to_vec(),
        Some(p) => litmus_checker::catalog::defaults_of(p),
        None => litmus_checker::catalog::defaults_for(dialect),
    }
}

pub fn parse_models(names: &[String], bounds: &Bounds) -> Result<Vec<Model>, String> {
    Model::parse_list_in(names, &bounds.cat_include).map_err(|e| e.to_string())
}

fn parse_repair_cost(s: &str) -> Result<(String, u32), String> {
    litmus_checker::options::RepairCosts::parse(&[s.to_string()]).map(|c| c.0[0].clone())
}

/// The options for one file, its deadline starting now (one deadline for
/// every phase of its check).
pub fn options(b: &Bounds) -> Options {
    Options {
        loop_bound: b.loop_bound,
        buffer_bound: b.buffer_bound,
        preemption_bound: b.preemption_bound,
        explorer: match b.explorer {
            ExplorerArg::Auto => litmus_checker::ExplorerKind::Auto,
            ExplorerArg::Graph => litmus_checker::ExplorerKind::Graph,
            ExplorerArg::Interleaving => litmus_checker::ExplorerKind::Interleaving,
            ExplorerArg::Candidates => litmus_checker::ExplorerKind::Candidates,
        },
        threads: b.threads.map_or_else(litmus_checker::options::all_cores, |n| n as usize),
        unbounded: (!b.bounded).then(Default::default),
        waits: true,
        budget: Default::default(),
        repair_costs: litmus_checker::options::RepairCosts(b.repair_cost.clone()),
    }
    .with_timeout(b.timeout)
}

pub fn check_file(loaded: Loaded, models: &[Model], monitor: MonitorKind, opts: &Options, act: &ActiveArgs) -> Checked {
    let mut c = Checked {
        loaded,
        models: models.to_vec(),
        outcomes: Vec::new(),
        robustness: Vec::new(),
        active: None,
        loop_bound: opts.loop_bound,
        joint_repair: None,
    };
    let Some(p) = &c.loaded.analysis.program else { return c };
    let r = act.plan(models, monitor, opts).run(p);
    c.joint_repair = r.joint_repair;
    (c.outcomes, c.robustness, c.active) = (r.outcomes, r.robustness, r.active);
    c
}

pub fn fence_json(p: &litmus_ir::Program, f: &FencePoint) -> FenceJson {
    use litmus_ir::Place;
    let s = &p.stmts[f.stmt as usize];
    let (end, start) = (Position { line: s.end_line, column: s.end_col }, Position { line: s.line, column: s.col });
    let (mut after, mut before, mut loop_head) = (None, None, None);
    match f.place {
        Place::After => after = Some(end),
        Place::Before => before = Some(start),
        Place::LoopHead => loop_head = Some(start),
    }
    FenceJson {
        thread: p.threads[f.thread as usize].name.clone(),
        place: f.place.as_str().into(),
        after,
        before,
        loop_head,
        kind: f.kind.as_str().into(),
        what: "barrier".into(),
        ..Default::default()
    }
}

/// Why a model forbids the condition's outcome, per axiom.
fn forbidden_json(p: &litmus_ir::Program, f: &litmus_checker::outcome::Forbidden) -> Vec<crate::report::AxiomJson> {
    use litmus_checker::outcome::Who;
    let texts = litmus_present::words::forbidden(p, f);
    f.axioms
        .iter()
        .zip(texts)
        .map(|(a, text)| crate::report::AxiomJson {
            axiom: a.name.clone(),
            kind: a.kind.into(),
            expr: a.expr.clone(),
            text,
            steps: a
                .steps
                .iter()
                .map(|(w, edge)| crate::report::AxiomStepJson {
                    access: match *w {
                        Who::Access { thread, stmt } => {
                            let s = &p.stmts[stmt as usize];
                            Some(crate::report::AccessJson {
                                thread: p.threads[thread as usize].name.clone(),
                                line: s.line,
                                column: s.col,
                                text: s.text.clone(),
                            })
                        }
                        _ => None,
                    },
                    edge: edge.clone(),
                })
                .collect(),
        })
        .collect()
}

/// A repair's entry: a barrier as a fence's, or a changed access.
pub fn repair_json(p: &litmus_ir::Program, r: &litmus_checker::violation::Repair) -> FenceJson {
    use litmus_checker::violation::Change;
    match r.change {
        Change::Fence { place, kind } => FenceJson {
            cost: Some(r.cost),
            ..fence_json(p, &FencePoint { thread: r.thread, stmt: r.stmt, kind, place })
        },
        Change::Labels { to, .. } => {
            let s = &p.stmts[r.stmt as usize];
            let (word, text) = litmus_dsl::edit::relabel_stmt(p, r.stmt, &s.text, to)
                .unwrap_or_else(|| (to.names().collect::<Vec<_>>().join(","), s.text.clone()));
            FenceJson {
                thread: p.threads[r.thread as usize].name.clone(),
                place: "at".into(),
                kind: word.into(),
                what: if p.is_c11() { "order" } else { "instruction" }.into(),
                statement: Some(Position { line: s.line, column: s.col }),
                from: Some(s.text.clone()),
                text: Some(text),
                cost: Some(r.cost),
                ..Default::default()
            }
        }
    }
}

fn certainty<T>(a: &Answer<T>) -> (Word, Option<String>) {
    let note = (a.certainty() != Certainty::Proved).then(|| a.qualifier());
    (a.certainty().as_str().into(), note)
}

fn violation_json(p: &litmus_ir::Program, v: &litmus_checker::Violation, missed: bool) -> ViolationJson {
    let (harm_certainty, harm_note) = certainty(&v.harm);
    ViolationJson {
        cycle: v
            .cycle
            .iter()
            .map(|st| {
                let s = &p.stmts[st.stmt as usize];
                CycleJson {
                    thread: p.threads[st.thread as usize].name.clone(),
                    line: s.line,
                    column: s.col,
                    statement: s.text.clone(),
                    edge: st.edge.as_str().into(),
                }
            })
            .collect(),
        harmful: v.harm.value().map(|h| h.is_harmful()),
        harm_certainty,
        harm_note,
        fence: v.fence.iter().map(|f| fence_json(p, f)).collect(),
        occurrences: v.occurrences,
        missed_by_monitor: missed,
    }
}

fn model_json(
    p: &litmus_ir::Program,
    o: &ModelOutcome,
    rob: Option<&Robustness>,
    act: Option<(&ActiveRun, &litmus_checker::relaxer::Active)>,
    loop_bound: u32,
) -> ModelJson {
    let failures = o.failures.iter().map(|f| FailureJson::at(p, f.thread, f.stmt, f.kind)).collect();
    let robust = match (o.model, rob) {
        // SC is robust by definition; the claim still goes no further than
        // the exploration did, so a cut-short run never prints `true` bare.
        (m, _) if m.is_reference() => Some(o.coverage.answer(true)),
        // Exhaustive checking did not finish: active testing's word.
        (_, Some(r)) if !r.robust().is_known() && act.is_some() => Some(active::robust(act.unwrap().1)),
        (_, r) => r.map(|r| r.robust()),
    };
    let (robust_certainty, robust_note) = robust.as_ref().map(certainty).unzip();
    let (observation_certainty, observation_note) = o.observation.as_ref().map(certainty).unzip();
    let (fences_certainty, fences_note) = rob.map(|r| certainty(&r.fences_confirmed)).unzip();
    let bounds = match o.coverage {
        Coverage::Bounded(c) => Some(BoundsJson {
            loop_bound_set: (c.loop_bound > 0).then_some(loop_bound),
            loop_bound: c.loop_bound,
            preemption_bound: c.preemption_bound,
            buffer_bound: c.buffer_bound,
        }),
        _ => None,
    };
    ModelJson {
        observation: o.known_observation().map(|x| x.as_str().into()),
        observation_certainty,
        observation_note: observation_note.flatten(),
        states: o.states.len(),
        complete: o.complete() && rob.is_none_or(|r| r.coverage == Coverage::Complete),
        certainty: o.coverage.certainty().as_str().into(),
        bounds_hit: bounds,
        unknown_reason: match o.coverage {
            Coverage::Stopped(w) => Some(w.as_str().into()),
            _ => None,
        },
        robust: robust.as_ref().and_then(|a| a.value().copied()),
        robust_certainty,
        robust_note: robust_note.flatten(),
        violations: rob.map(|r| {
            r.violations.iter().map(|v| violation_json(p, v, r.missed_by_monitor.contains(&v.key()))).collect()
        }),
        fences: rob.map(|r| {
            r.fences.iter().map(|f| fence_json(p, f)).chain(r.repairs.iter().map(|x| repair_json(p, x))).collect()
        }),
        fences_confirmed: rob.and_then(|r| r.fences_confirmed.value().copied()),
        fences_certainty,
        fences_note: fences_note.flatten(),
        fences_minimal: rob.filter(|r| !r.fences_minimal).map(|_| false),
        assertion_failures: failures,
        reads: crate::reads_json::reads_json(p, o),
        condition_errors: o.condition_errors.iter().map(|c| c.site.as_str().into()).collect(),
        flags: o.flags.clone(),
        races: o
            .races
            .iter()
            .map(|r| crate::report::RaceJson {
                flag: r.flag.clone(),
                accesses: r
                    .accesses
                    .iter()
                    .map(|&(t, s)| {
                        let s = &p.stmts[s as usize];
                        crate::report::AccessJson {
                            thread: p.threads[t as usize].name.clone(),
                            line: s.line,
                            column: s.col,
                            text: s.text.clone(),
                        }
                    })
                    .collect(),
            })
            .collect(),
        forbidden_by: o.forbidden.as_ref().map_or_else(Vec::new, |f| forbidden_json(p, f)),
        unconfirmed: rob.map(|r| r.unconfirmed.len() as u64).filter(|&n| n > 0),
        deadlocks: o.deadlocks.len(),
        executions: o.stats.executions,
        cut: o.stats.cut,
        steps: o.stats.transitions,
        timed_out: o.stats.timed_out,
        mode: if act.is_some() { "active" } else { "exhaustive" }.into(),
        active: act.map(|(run, a)| active::json(p, run, a)),
        iterations: iterations(o, rob).as_str().into(),
        iterations_note: iterations(o, rob).reason().map(str::to_string),
        states_explored: match iterations(o, rob) {
            litmus_checker::Iterations::Every { states, .. } => Some(states),
            _ => None,
        },
    }
}

/// How far a model's answers reach through loops: every iteration only if
/// its outcome and its robustness both do; a fallback's reason if either fell back.
fn iterations(o: &ModelOutcome, rob: Option<&Robustness>) -> litmus_checker::Iterations {
    use litmus_checker::Iterations;
    let parts: Vec<&Iterations> = std::iter::once(&o.iterations).chain(rob.map(|r| &r.iterations)).collect();
    if let Some(f) = parts.iter().find(|it| matches!(it, Iterations::Fallback(_))) {
        return (*f).clone();
    }
    if parts.iter().all(|it| it.every()) {
        return o.iterations.clone();
    }
    Iterations::Bounded
}

/// A model only tested actively (`--mode active`): nothing explored, so no
/// states or observation; robustness as active testing found it.
fn active_only_json(p: &litmus_ir::Program, act: Option<(&ActiveRun, &litmus_checker::relaxer::Active)>) -> ModelJson {
    let robust = act.map(|(_, a)| active::robust(a));
    let (robust_certainty, robust_note) = robust.as_ref().map(certainty).unzip();
    ModelJson {
        observation: None,
        observation_certainty: p.condition.as_ref().map(|_| "unknown".into()),
        observation_note: p.condition.as_ref().map(|_| "not explored (active mode)".to_string()),
        states: 0,
        complete: false,
        certainty: "unknown".into(),
        bounds_hit: None,
        unknown_reason: Some("not-explored".into()),
        flags: Vec::new(),
        races: Vec::new(),
        forbidden_by: Vec::new(),
        robust: robust.as_ref().and_then(|a| a.value().copied()),
        robust_certainty,
        robust_note: robust_note.flatten(),
        violations: None,
        fences: None,
        fences_confirmed: None,
        fences_certainty: None,
        fences_note: None,
        fences_minimal: None,
        assertion_failures: Vec::new(),
        reads: Vec::new(),
        condition_errors: Vec::new(),
        unconfirmed: None,
        deadlocks: 0,
        executions: 0,
        cut: 0,
        steps: 0,
        timed_out: false,
        mode: "active".into(),
        active: act.map(|(run, a)| active::json(p, run, a)),
        iterations: "bounded".into(),
        iterations_note: None,
        states_explored: None,
    }
}

pub fn file_report(c: &Checked) -> FileReport {
    let l = &c.loaded;
    let a = &l.analysis;
    let models = match &a.program {
        Some(p) => c
            .models
            .iter()
            .map(|&m| {
                let act = c.active.as_ref().and_then(|run| run.of(m).map(|a| (run, a)));
                let json = match c.outcomes.iter().find(|o| o.model == m) {
                    Some(o) => model_json(p, o, c.robustness.iter().find(|r| r.model == m), act, c.loop_bound),
                    None => active_only_json(p, act),
                };
                (m.as_str().into(), json)
            })
            .collect(),
        None => Vec::new(),
    };
    FileReport {
        file: l.path.clone(),
        status: c.status().as_str().into(),
        time_ms: None,
        expect: None,
        error: None,
        test: a.name.clone(),
        dialect: Some(a.dialect.as_str().into()),
        condition: a
            .condition
            .as_ref()
            .map(|c| ConditionJson { quantifier: c.quantifier.as_str().into(), text: c.text.clone() }),
        models: Models(models),
        joint_repair: match (&a.program, &c.joint_repair) {
            (Some(p), Some((models, fix))) => Some(JointRepairJson {
                models: models.iter().map(|m| m.as_str().to_string()).collect(),
                fences: fix.repairs.iter().map(|x| repair_json(p, x)).collect(),
                cost: fix.repairs.iter().map(|x| x.cost).sum(),
                fences_confirmed: fix.confirmed.value().copied(),
                fences_certainty: certainty(&fix.confirmed).0,
                cheapest: fix.minimal,
            }),
            _ => None,
        },
        diagnostics: a
            .diagnostics
            .iter()
            .map(|d| {
                let (line, column) = a.lines.line_col(&l.src, d.span.start);
                let (end_line, end_column) = a.lines.line_col(&l.src, d.span.end);
                DiagnosticJson {
                    severity: match d.severity {
                        Severity::Error => "error",
                        Severity::Warning => "warning",
                    }
                    .into(),
                    code: d.code.into(),
                    line,
                    column,
                    end_line,
                    end_column,
                    message: d.message.clone(),
                }
            })
            .collect(),
    }
}

/// The JSON line of a file that could not be read (so a batch has one line per input).
pub fn error_report(path: &str, error: &str) -> FileReport {
    FileReport {
        file: path.to_string(),
        status: Status::Error.as_str().into(),
        time_ms: None,
        expect: None,
        error: Some(error.to_string()),
        test: None,
        dialect: None,
        condition: None,
        models: Models(Vec::new()),
        diagnostics: Vec::new(),
        joint_repair: None,
    }
}
