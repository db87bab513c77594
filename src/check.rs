//! `litmus check`: analyse and explore files (in parallel), report each in
//! input order, human or JSON.

use crate::report::{
    ConditionJson, CycleJson, DiagnosticJson, FailureJson, FenceJson, FileReport, ModelJson, Models, Position,
    ViolationJson,
};
use crate::{human, Color, Format};
use litmus_checker::robust::FencePoint;
use litmus_checker::{Model, ModelOutcome, MonitorKind, Options, Robustness};
use litmus_dsl::{analyze, Analysis, Quantifier, Severity};
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::time::Duration;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Files to check (`.litmus`, native or herd x86 dialect).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Memory models to check, comma-separated: sc, tso, pso.
    #[arg(long, default_value = "sc,tso,pso", value_delimiter = ',')]
    pub model: Vec<String>,
    #[command(flatten)]
    pub bounds: Bounds,
    /// Colour in human output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
}

/// Exploration bounds and the monitor, shared by check, fix and explain.
#[derive(clap::Args, Clone, Debug)]
pub struct Bounds {
    /// Iterations of each loop body per entry; longer executions are cut.
    #[arg(long, default_value_t = 2)]
    pub loop_bound: u32,
    /// At most this many preemptions in the SC exploration (default: unbounded).
    #[arg(long)]
    pub preemption_bound: Option<u32>,
    /// At most this many pending stores per thread under TSO/PSO.
    #[arg(long, default_value_t = 16)]
    pub buffer_bound: u32,
    /// Give up on a file after this many seconds, across every phase (what
    /// is unfinished then is reported as unknown).
    #[arg(long, value_parser = timeout_arg)]
    pub timeout: Option<Duration>,
    /// The SC-violation monitor: bss (Burnim–Sen–Stergiou; TSO and PSO),
    /// sober (Burckhardt–Musuvathi; TSO, with bss for PSO), or
    /// bss-interleaving (BSS with the paper's commit rule).
    #[arg(long, value_enum, default_value = "bss")]
    pub monitor: MonitorArg,
}

fn timeout_arg(s: &str) -> Result<Duration, String> {
    let secs: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    litmus_checker::options::parse_timeout(secs).map_err(|e| e.to_string())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MonitorArg {
    Bss,
    Sober,
    BssInterleaving,
}

impl MonitorArg {
    pub fn kind(self) -> MonitorKind {
        match self {
            MonitorArg::Bss => MonitorKind::Bss,
            MonitorArg::Sober => MonitorKind::Sober,
            MonitorArg::BssInterleaving => MonitorKind::BssInterleaving,
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
pub fn load_one(model_names: &[String], path: &str) -> Result<(Vec<Model>, Loaded), u8> {
    let fail = |e: String| {
        eprintln!("error: {e}");
        2
    };
    let models = parse_models(model_names).map_err(fail)?;
    let l = load(path).map_err(fail)?;
    if l.analysis.program.is_none() {
        eprint!("{}", litmus_dsl::diagnostic::render(&l.analysis.diagnostics, &l.path, &l.src, false));
        return Err(2);
    }
    Ok((models, l))
}

pub fn load(path: &str) -> Result<Loaded, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    let src = String::from_utf8(bytes).map_err(|_| format!("`{path}` is not valid UTF-8"))?;
    let analysis = analyze(&src);
    Ok(Loaded { path: path.to_string(), src, analysis })
}

/// A file and what the checker found.
pub struct Checked {
    pub loaded: Loaded,
    pub outcomes: Vec<ModelOutcome>,
    pub robustness: Vec<Robustness>,
}

impl Checked {
    /// Exit status 1: a failing assertion, a deadlock, or a `~exists`/`forall`
    /// condition that does not hold under some model.
    pub fn has_findings(&self) -> bool {
        let q = self.loaded.analysis.program.as_ref().and_then(|p| p.condition.as_ref()).map(|c| c.quantifier);
        self.robustness.iter().any(|r| !r.violations.is_empty())
            || self.outcomes.iter().any(|o| {
                !o.failures.is_empty()
                    || !o.deadlocks.is_empty()
                    || match (q, o.observation) {
                        (Some(Quantifier::NotExists), Some(obs)) => obs != litmus_checker::Observation::Never,
                        (Some(Quantifier::Forall), Some(obs)) => obs != litmus_checker::Observation::Always,
                        _ => false,
                    }
            })
    }
}

pub fn parse_models(names: &[String]) -> Result<Vec<Model>, String> {
    Model::parse_list(names).map_err(|e| e.to_string())
}

/// The options for one file, its deadline starting now (one deadline for
/// every phase of its check).
pub fn options(b: &Bounds) -> Options {
    Options {
        loop_bound: b.loop_bound,
        buffer_bound: b.buffer_bound,
        preemption_bound: b.preemption_bound,
        deadline: None,
        cancel: None,
    }
    .with_timeout(b.timeout)
}

pub fn check_file(loaded: Loaded, models: &[Model], monitor: MonitorKind, opts: &Options) -> Checked {
    let (outcomes, robustness) = match &loaded.analysis.program {
        Some(p) => {
            let r = litmus_checker::check_all(p, Some(&loaded.src), models, monitor, opts);
            (r.outcomes, r.robustness)
        }
        None => (Vec::new(), Vec::new()),
    };
    Checked { loaded, outcomes, robustness }
}

pub fn fence_json(p: &litmus_dsl::Program, f: &FencePoint) -> FenceJson {
    let s = &p.stmts[f.stmt as usize];
    FenceJson {
        thread: p.threads[f.thread as usize].name.clone(),
        after: Position { line: s.end_line, column: s.end_col },
        kind: f.kind.as_str(),
    }
}

pub fn file_report(c: &Checked) -> FileReport {
    let l = &c.loaded;
    let a = &l.analysis;
    let prog = a.program.as_ref();
    let models = c
        .outcomes
        .iter()
        .map(|o| {
            let failures = o
                .failures
                .iter()
                .map(|f| {
                    let p = prog.unwrap();
                    let s = &p.stmts[f.stmt as usize];
                    FailureJson {
                        line: s.line,
                        column: s.col,
                        thread: p.threads[f.thread as usize].name.clone(),
                        kind: f.kind.as_str(),
                    }
                })
                .collect();
            let rob = c.robustness.iter().find(|r| r.model == o.model);
            let p = prog.unwrap();
            let violations = rob
                .map(|r| {
                    r.violations
                        .iter()
                        .map(|v| ViolationJson {
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
                                        edge: st.edge.as_str(),
                                    }
                                })
                                .collect(),
                            harmful: v.harm.is_harmful(),
                            fence: v.fence.iter().map(|f| fence_json(p, f)).collect(),
                            occurrences: v.occurrences,
                        })
                        .collect()
                })
                .unwrap_or_default();
            let json = ModelJson {
                observation: o.observation.map(|x| x.as_str()),
                states: o.states.len(),
                complete: o.complete && rob.is_none_or(|r| r.complete),
                // Unknown (absent) while monitor signals lack a witness.
                robust: if o.model == Model::Sc {
                    Some(true)
                } else {
                    rob.and_then(|r| (r.unconfirmed == 0 || !r.robust()).then(|| r.robust()))
                },
                violations: (o.model != Model::Sc).then_some(violations),
                fences: rob.map(|r| r.fences.iter().map(|f| fence_json(p, f)).collect()),
                fences_confirmed: rob.map(|r| r.fences_confirmed),
                assertion_failures: failures,
                unconfirmed: rob.map(|r| r.unconfirmed).filter(|&n| n > 0),
                deadlocks: o.deadlocks.len(),
                executions: o.stats.executions,
                cut: o.stats.cut,
                timed_out: o.stats.timed_out,
            };
            (o.model.as_str(), json)
        })
        .collect();
    let models = Models(models);
    FileReport {
        file: l.path.clone(),
        test: a.name.clone(),
        dialect: a.dialect.as_str(),
        condition: a
            .condition
            .as_ref()
            .map(|c| ConditionJson { quantifier: c.quantifier.as_str(), text: c.text.clone() }),
        models,
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
                    },
                    code: d.code,
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

pub fn run(args: &CheckArgs) -> u8 {
    let models = match parse_models(&args.model) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal(),
    };
    let monitor = args.bounds.monitor.kind();
    // Files are checked in parallel; results are printed in input order.
    // Each file's deadline starts when its check does.
    let results: Vec<Result<Checked, String>> = args
        .files
        .par_iter()
        .map(|path| load(path).map(|l| check_file(l, &models, monitor, &options(&args.bounds))))
        .collect();
    let mut status = 0u8;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for r in results {
        let c = match r {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {e}");
                status = 2;
                continue;
            }
        };
        if c.loaded.analysis.has_errors() {
            status = 2;
        } else if c.has_findings() && status == 0 {
            status = 1;
        }
        let text = match args.format {
            Format::Json => serde_json::to_string(&file_report(&c)).expect("report serialises") + "\n",
            Format::Human => {
                let r = human::render(&c, color);
                let _ = std::io::stderr().write_all(r.stderr.as_bytes());
                r.stdout
            }
        };
        let _ = out.write_all(text.as_bytes());
    }
    status
}
