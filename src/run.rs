//! `litmus run FILE`: run a program on this machine's CPU, litmus7-style,
//! and set the histogram of final states it showed beside what the default
//! models (SC, TSO, PSO) allow (the explorer's final states). A state the
//! CPU's own model (x86-TSO: [`Model::of_cpu`]) forbids is a bug somewhere
//! (exit 1). `--record DIR` writes each run's history.

use crate::check::{load, timeout_arg};
use crate::Format;
use litmus_checker::machine::FailureKind;
use litmus_checker::{Model, ModelOutcome, Options};
use litmus_hardware::{self as hardware, record, Observed, Placement, Settings, Unpinned, Where};
use litmus_ir::{Program, StmtId};
use litmus_present::words;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(clap::Args)]
pub struct RunArgs {
    /// The program (`.litmus`, native or herd x86 dialect).
    pub file: String,
    /// Runs in all (instances of the test).
    #[arg(long, default_value_t = 100_000)]
    pub iterations: u64,
    /// Instances per batch (at most 100,000: every cell of every instance
    /// has a 128-byte line): every thread runs them in turn, all threads
    /// starting each one together; memory is reset between batches.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub batch: u64,
    /// Iterations of each loop body per entry; a run that goes further is
    /// cut (as `check` cuts executions).
    #[arg(long, default_value_t = litmus_checker::options::DEFAULT_LOOP_BOUND)]
    pub loop_bound: u32,
    /// Failed attempts of one `await` or `lock` before its run is counted stuck.
    #[arg(long, default_value_t = 100_000)]
    pub spin_limit: u64,
    /// Seconds a batch may take; then the run stops, saying where each
    /// thread was spinning.
    #[arg(long, default_value = "10", value_parser = timeout_arg, allow_hyphen_values = true)]
    pub time_limit: Duration,
    /// Do not pin threads to cores.
    #[arg(long)]
    pub no_pin: bool,
    /// Pending stores per thread in the TSO/PSO explorations (as `check`).
    #[arg(long, default_value_t = litmus_checker::options::DEFAULT_BUFFER_BOUND)]
    pub buffer_bound: u32,
    /// Give up on the models' explorations after this many seconds, all
    /// three together (what they did not reach is then not judged).
    #[arg(long, default_value = "30", value_parser = timeout_arg, allow_hyphen_values = true)]
    pub timeout: Duration,
    /// Write each run's history to DIR/run-N.txt (the history text format).
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
}

/// The architecture `litmus run` runs on (x86-64 instructions, whatever
/// CPU this is: off x86 its model's verdict is not a bug).
const ARCH: &str = "x86-64";

/// The models a run is set beside (the defaults, and the CPU's own), and
/// which of them is the CPU's.
fn models() -> (Vec<Model>, usize) {
    let mut models = Model::defaults();
    let cpu = Model::of_cpu(ARCH).expect("a model of x86-64");
    if !models.contains(&cpu) {
        models.push(cpu);
    }
    let at = models.iter().position(|&m| m == cpu).expect("pushed");
    (models, at)
}

pub fn run(args: &RunArgs) -> u8 {
    let l = match load(&args.file) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let Some(p) = &l.analysis.program else {
        eprint!("{}", litmus_dsl::diagnostic::render(&l.analysis.diagnostics, &l.path, &l.src, false));
        return 2;
    };
    if p.candidates_only() {
        eprintln!("error: {}: `litmus run` does not run store-conditionals (`sc`, whether one fails is not the CPU's to show) nor pair instructions", l.path);
        return 2;
    }
    if let Some(dir) = &args.record {
        if let Err(e) = record::check_program(p) {
            eprintln!("error: {e}");
            return 2;
        }
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: cannot create `{}`: {e}", dir.display());
            return 2;
        }
    }
    let opts = Options { loop_bound: args.loop_bound, buffer_bound: args.buffer_bound, ..Options::default() }
        .with_timeout(Some(args.timeout));
    let (names, cpu) = models();
    let models: Vec<ModelOutcome> = names.iter().map(|&m| litmus_checker::explore::explore(p, m, &opts)).collect();
    let settings = Settings {
        iterations: args.iterations,
        batch: args.batch as usize,
        loop_bound: args.loop_bound,
        spin_limit: args.spin_limit,
        time_limit: args.time_limit,
        pin: !args.no_pin,
        record: args.record.is_some(),
    };
    let title = format!("{} ({}) run on this CPU by `litmus run`", p.name, l.path);
    let width = args.iterations.saturating_sub(1).to_string().len();
    let observed = hardware::run_with(p, &settings, |run| {
        let dir = args.record.as_deref().unwrap_or(Path::new("."));
        let text = record::history(p, run, &title).map_err(|e| e.to_string())?;
        let path = dir.join(format!("run-{:0width$}.txt", run.index));
        std::fs::write(&path, text).map_err(|e| format!("cannot write `{}`: {e}", path.display()))
    });
    let observed = match observed {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let judged = judge(&models, cpu, &observed);
    let out = match args.format {
        Format::Json => {
            serde_json::to_string(&json(&l.path, p, args, &models, &observed, &judged)).expect("serialises") + "\n"
        }
        Format::Human => human(&l.path, p, args, &models, &observed, &judged),
    };
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    if let Some(s) = &observed.stopped {
        eprintln!("error: {}", stop_message(p, s, &observed));
    }
    if judged.forbidden_runs() > 0 && cfg!(target_arch = "x86_64") {
        eprintln!(
            "error: this CPU showed {} that x86-{m} forbids ({} run{}); {m}'s exploration finished, so the model, the checker or this runner is wrong",
            judged.forbidden_what(),
            judged.forbidden_runs(),
            if judged.forbidden_runs() == 1 { "" } else { "s" },
            m = names[cpu].upper()
        );
        1
    } else if observed.stopped.is_some() || judged.unjudged > 0 {
        3
    } else {
        0
    }
}

/// Per row of the histogram: the state, its runs (0: allowed by some model
/// but not observed), whether each model allows it.
struct Row {
    values: Vec<i64>,
    runs: u64,
    satisfies: Option<bool>,
    allowed: Vec<Option<bool>>,
}

struct FailureRow {
    thread: u16,
    stmt: StmtId,
    kind: FailureKind,
    runs: u64,
    allowed: Vec<Option<bool>>,
}

struct Judged {
    rows: Vec<Row>,
    failures: Vec<FailureRow>,
    /// Which model (of `allowed`) is the CPU's.
    cpu: usize,
    /// Observed states or failures the CPU model's exploration cannot
    /// judge (it was cut by more than the loop bound, or stopped).
    unjudged: usize,
}

impl Judged {
    fn forbidden_runs(&self) -> u64 {
        let s: u64 =
            self.rows.iter().filter(|r| r.runs > 0 && r.allowed[self.cpu] == Some(false)).map(|r| r.runs).sum();
        s + self.failures.iter().filter(|f| f.allowed[self.cpu] == Some(false)).map(|f| f.runs).sum::<u64>()
    }

    fn forbidden_what(&self) -> &'static str {
        let states = self.rows.iter().any(|r| r.runs > 0 && r.allowed[self.cpu] == Some(false));
        let failures = self.failures.iter().any(|f| f.allowed[self.cpu] == Some(false));
        match (states, failures) {
            (true, true) => "final states and failures",
            (true, false) => "final states",
            _ => "failures",
        }
    }
}

fn judge(models: &[ModelOutcome], cpu: usize, obs: &Observed) -> Judged {
    let mut rows: Vec<Row> = obs
        .states
        .iter()
        .map(|(v, c)| Row {
            values: v.clone(),
            runs: c.runs,
            satisfies: c.satisfies,
            allowed: models.iter().map(|m| hardware::allows(m, v)).collect(),
        })
        .collect();
    // What some model allows that no run showed, with 0 runs.
    for (m, o) in models.iter().enumerate() {
        for s in &o.states {
            if !obs.states.contains_key(&s.values) && !rows.iter().any(|r| r.values == s.values) {
                let mut allowed: Vec<_> = models.iter().map(|k| hardware::allows(k, &s.values)).collect();
                allowed[m] = Some(true);
                rows.push(Row { values: s.values.clone(), runs: 0, satisfies: s.satisfies, allowed });
            }
        }
    }
    rows.sort_by(|a, b| a.values.cmp(&b.values));
    let failures: Vec<FailureRow> = obs
        .failures
        .iter()
        .map(|(&(thread, stmt, kind), &runs)| FailureRow {
            thread,
            stmt,
            kind,
            runs,
            allowed: models.iter().map(|m| hardware::allows_failure(m, stmt, kind)).collect(),
        })
        .collect();
    let unjudged = rows.iter().filter(|r| r.runs > 0 && r.allowed[cpu].is_none()).count()
        + failures.iter().filter(|f| f.allowed[cpu].is_none()).count();
    Judged { rows, failures, cpu, unjudged }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn placement_text(obs: &Observed, threads: usize) -> String {
    match &obs.placement {
        Placement::Pinned(cores) => {
            let c: Vec<String> = cores.iter().map(|c| c.to_string()).collect();
            format!("threads pinned to cores {}", c.join(", "))
        }
        Placement::Unpinned { cores, why: Unpinned::TooFewCores } => format!(
            "{threads} threads but {} this process may use: not pinned (threads share cores, so their code overlaps less often)",
            plural(*cores as u64, "core", "cores")
        ),
        Placement::Unpinned { why: Unpinned::NotAsked, .. } => "threads not pinned (--no-pin)".into(),
        Placement::Unpinned { why: Unpinned::Failed, .. } => "pinning failed: threads not pinned".into(),
    }
}

fn where_text(p: &Program, t: usize, w: Where) -> String {
    let name = &p.threads[t].name;
    match w {
        Where::Running => format!("{name} was running"),
        Where::Barrier => format!("{name} was waiting for the other threads to start a run"),
        Where::Spinning(s) => format!("{name} was spinning at {}", hardware::show_stmt(p, t as u16, s)),
    }
}

fn stop_message(p: &Program, s: &hardware::Stopped, obs: &Observed) -> String {
    let wheres: Vec<String> = s.threads.iter().enumerate().map(|(t, &w)| where_text(p, t, w)).collect();
    format!(
        "batch {} did not finish within its time limit of {} s: {}. An await or lock that never succeeds spins until then; raise --time-limit for a slow program. Counted: the {} of the batches before.",
        s.batch,
        s.limit.as_secs_f64(),
        wheres.join("; "),
        plural(obs.runs, "run", "runs")
    )
}

fn mark(a: Option<bool>, m: Model) -> String {
    match a {
        Some(true) => format!("{:<3}", m.upper()),
        Some(false) => " - ".into(),
        None => " ? ".into(),
    }
}

fn observation(obs: &Observed) -> Option<&'static str> {
    let yes = obs.satisfying();
    let total: u64 = obs.states.values().map(|c| c.runs).sum();
    Some(if total == 0 {
        "no final states"
    } else if yes == 0 {
        "never"
    } else if yes == total {
        "always"
    } else {
        "sometimes"
    })
}

fn human(path: &str, p: &Program, args: &RunArgs, models: &[ModelOutcome], obs: &Observed, j: &Judged) -> String {
    let mut out = String::new();
    let doc = p.doc.as_ref().map(|d| format!(" \"{d}\"")).unwrap_or_default();
    let n = p.threads.len();
    let _ =
        writeln!(out, "{path} — {}{doc} ({}, {})", p.name, p.dialect.as_str(), plural(n as u64, "thread", "threads"));
    let _ = writeln!(
        out,
        "  {} in {} of up to {}, {}: {:.2} s, {:.0} runs/s",
        plural(obs.runs, "run", "runs"),
        plural(obs.batches, "batch", "batches"),
        args.batch,
        placement_text(obs, n),
        obs.elapsed.as_secs_f64(),
        obs.per_second()
    );
    let m: Vec<String> = models
        .iter()
        .map(|o| {
            let caveat = words::caveat(&o.coverage);
            let c = if caveat.is_empty() { "proved".to_string() } else { caveat };
            format!("{} {} ({c})", o.model.upper(), plural(o.states.len() as u64, "state", "states"))
        })
        .collect();
    let _ = writeln!(out, "  models (explored): {}", m.join(", "));
    if let Some(c) = &p.condition {
        let _ = writeln!(out, "  {} ({})", c.quantifier.as_str(), c.text);
    }
    let cpu = models[j.cpu].model.upper();
    let marks = |allowed: &[Option<bool>]| -> String {
        let cols: Vec<String> = models.iter().zip(allowed).map(|(o, &a)| mark(a, o.model)).collect();
        cols.join(" ")
    };
    if !j.rows.is_empty() && !p.observables.is_empty() {
        let texts: Vec<String> = j.rows.iter().map(|r| hardware::show_state(p, &r.values)).collect();
        let w = texts.iter().map(|t| t.chars().count()).max().unwrap_or(0);
        let _ = writeln!(out, "  final states (* = the condition holds, ! = x86-{cpu} forbids it):");
        let header: Vec<String> = models.iter().map(|o| format!("{:<3}", o.model.upper())).collect();
        let _ = writeln!(out, "      {:<w$}   {:>10}   {}", "", "runs", header.join(" ").trim_end());
        for (r, t) in j.rows.iter().zip(&texts) {
            let flag = if r.runs > 0 && r.allowed[j.cpu] == Some(false) { "!" } else { " " };
            let star = if r.satisfies == Some(true) { "*" } else { " " };
            let _ = writeln!(out, "  {flag} {star} {t:<w$}   {:>10}   {}", r.runs, marks(&r.allowed));
        }
    }
    for f in &j.failures {
        let flag = if f.allowed[j.cpu] == Some(false) { "!" } else { " " };
        let _ = writeln!(
            out,
            "  {flag} {} at {}: {}   {}",
            f.kind.as_str(),
            hardware::show_stmt(p, f.thread, f.stmt),
            plural(f.runs, "run", "runs"),
            marks(&f.allowed)
        );
    }
    let e = &obs.ends;
    let mut other = Vec::new();
    for (n, what) in [
        (e.failed, "failed"),
        (e.cut, "cut by the loop bound"),
        (e.stuck, "stuck (an await or lock spun past --spin-limit)"),
        (e.pruned, "pruned by an assume"),
        (e.filtered, "filtered out"),
        (e.filter_errors, "with a filter that divides by zero"),
        (e.condition_errors, "with a condition that divides by zero"),
    ] {
        if n > 0 {
            other.push(format!("{n} {what}"));
        }
    }
    let _ = write!(out, "  {} reached a final state", plural(e.complete, "run", "runs"));
    if other.is_empty() {
        let _ = writeln!(out);
    } else {
        let _ = writeln!(out, "; {}", other.join(", "));
    }
    for (&(t, s), &k) in &obs.stuck_at {
        let _ = writeln!(out, "    stuck at {}: {}", hardware::show_stmt(p, t, s), plural(k, "run", "runs"));
    }
    if p.condition.is_some() {
        let yes = obs.satisfying();
        let per_million = if obs.runs > 0 { yes as f64 * 1e6 / obs.runs as f64 } else { 0.0 };
        let _ = writeln!(
            out,
            "  the condition holds in {yes} of {} ({per_million:.0} per million): observed {}",
            plural(obs.runs, "run", "runs"),
            observation(obs).unwrap_or("-")
        );
    }
    let forbidden = j.forbidden_runs();
    if forbidden > 0 {
        let _ = writeln!(out, "  x86-{cpu} forbids what {} showed (marked !)", plural(forbidden, "run", "runs"));
        if !cfg!(target_arch = "x86_64") {
            let _ = writeln!(out, "  note: this CPU is not x86-64, so {cpu}'s verdict is not a bug here");
        }
    } else if j.unjudged > 0 {
        let _ = writeln!(
            out,
            "  {} {cpu}'s exploration did not reach cannot be judged: it was {}",
            plural(j.unjudged as u64, "observed state", "observed states"),
            words::caveat(&models[j.cpu].coverage)
        );
    } else if !obs.states.is_empty() {
        let _ = writeln!(out, "  every observed final state is allowed by x86-{cpu}");
    }
    if let Some(dir) = &args.record {
        if obs.runs > 0 {
            let _ = writeln!(out, "  histories: {} in {}", plural(obs.runs, "file", "files"), dir.display());
        }
    }
    out
}

#[derive(Serialize)]
struct RunJson {
    file: String,
    test: String,
    dialect: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    condition: Option<crate::report::ConditionJson>,
    observables: Vec<String>,
    iterations: u64,
    runs: u64,
    batches: u64,
    batch_size: u64,
    elapsed_ms: f64,
    runs_per_second: f64,
    placement: PlacementJson,
    /// The default models and the CPU's, in that order.
    #[serde(serialize_with = "ordered::serialize")]
    models: Vec<(&'static str, ModelJson)>,
    states: Vec<StateJson>,
    failures: Vec<FailureJson>,
    ends: EndsJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    condition_runs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    observation: Option<&'static str>,
    /// Runs whose final state (or failure) the CPU's model (x86-TSO)
    /// forbids (the key keeps its name for the readers of the format).
    tso_forbidden_runs: u64,
    /// Observed states (or failures) the CPU model's exploration cannot judge.
    unjudged: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<StoppedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<String>,
}

#[derive(Serialize)]
struct PlacementJson {
    pinned: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    cores: Option<Vec<usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    available_cores: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'static str>,
}

#[derive(Serialize)]
struct ModelJson {
    states: usize,
    certainty: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// Per model, in the order of `models`: does it allow the state?
#[derive(Serialize)]
struct AllowedJson(#[serde(serialize_with = "ordered::serialize")] Vec<(&'static str, Option<bool>)>);

impl AllowedJson {
    fn of(models: &[ModelOutcome], allowed: &[Option<bool>]) -> Self {
        AllowedJson(models.iter().zip(allowed).map(|(o, &a)| (o.model.as_str(), a)).collect())
    }
}

#[derive(Serialize)]
struct StateJson {
    state: String,
    values: Vec<i64>,
    runs: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    condition: Option<bool>,
    allowed: AllowedJson,
}

#[derive(Serialize)]
struct FailureJson {
    thread: String,
    line: u32,
    column: u32,
    kind: &'static str,
    runs: u64,
    allowed: AllowedJson,
}

#[derive(Serialize)]
struct EndsJson {
    complete: u64,
    failed: u64,
    cut: u64,
    stuck: u64,
    pruned: u64,
    filtered: u64,
    filter_errors: u64,
    condition_errors: u64,
}

#[derive(Serialize)]
struct StoppedJson {
    batch: u64,
    time_limit_s: f64,
    message: String,
}

/// A `Vec<(name, value)>` as a JSON object in its order.
mod ordered {
    use serde::ser::{Serialize, SerializeMap, Serializer};

    pub fn serialize<S: Serializer, T: Serialize>(v: &[(&'static str, T)], s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(v.len()))?;
        for (k, x) in v {
            m.serialize_entry(k, x)?;
        }
        m.end()
    }
}

fn json(path: &str, p: &Program, args: &RunArgs, models: &[ModelOutcome], obs: &Observed, j: &Judged) -> RunJson {
    let placement = match &obs.placement {
        Placement::Pinned(c) => {
            PlacementJson { pinned: true, cores: Some(c.clone()), available_cores: None, why: None }
        }
        Placement::Unpinned { cores, why } => PlacementJson {
            pinned: false,
            cores: None,
            available_cores: Some(*cores),
            why: Some(match why {
                Unpinned::TooFewCores => "too-few-cores",
                Unpinned::NotAsked => "not-asked",
                Unpinned::Failed => "failed",
            }),
        },
    };
    let e = &obs.ends;
    let r = RunJson {
        file: path.to_string(),
        test: p.name.clone(),
        dialect: p.dialect.as_str(),
        condition: p
            .condition
            .as_ref()
            .map(|c| crate::report::ConditionJson { quantifier: c.quantifier.as_str().into(), text: c.text.clone() }),
        observables: p.observables.iter().map(|o| o.name.clone()).collect(),
        iterations: args.iterations,
        runs: obs.runs,
        batches: obs.batches,
        batch_size: args.batch,
        elapsed_ms: obs.elapsed.as_secs_f64() * 1e3,
        runs_per_second: obs.per_second(),
        placement,
        models: models
            .iter()
            .map(|o| {
                let note = words::caveat(&o.coverage);
                (
                    o.model.as_str(),
                    ModelJson {
                        states: o.states.len(),
                        certainty: o.coverage.certainty().as_str(),
                        note: (!note.is_empty()).then_some(note),
                    },
                )
            })
            .collect(),
        states: j
            .rows
            .iter()
            .map(|r| StateJson {
                state: hardware::show_state(p, &r.values),
                values: r.values.clone(),
                runs: r.runs,
                condition: r.satisfies,
                allowed: AllowedJson::of(models, &r.allowed),
            })
            .collect(),
        failures: j
            .failures
            .iter()
            .map(|f| {
                let at = crate::report::FailureJson::at(p, f.thread, f.stmt, f.kind);
                FailureJson {
                    thread: at.thread,
                    line: at.line,
                    column: at.column,
                    kind: f.kind.as_str(),
                    runs: f.runs,
                    allowed: AllowedJson::of(models, &f.allowed),
                }
            })
            .collect(),
        ends: EndsJson {
            complete: e.complete,
            failed: e.failed,
            cut: e.cut,
            stuck: e.stuck,
            pruned: e.pruned,
            filtered: e.filtered,
            filter_errors: e.filter_errors,
            condition_errors: e.condition_errors,
        },
        condition_runs: p.condition.as_ref().map(|_| obs.satisfying()),
        observation: p.condition.as_ref().and(observation(obs)),
        tso_forbidden_runs: j.forbidden_runs(),
        unjudged: j.unjudged,
        stopped: obs.stopped.as_ref().map(|s| StoppedJson {
            batch: s.batch,
            time_limit_s: s.limit.as_secs_f64(),
            message: stop_message(p, s, obs),
        }),
        record: args.record.as_ref().map(|d| d.display().to_string()),
    };
    r
}
