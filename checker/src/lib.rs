//! The checker: runs the IR under SC, TSO and PSO.
//!
//! - [`machine`]: the interpreter (state, one step per visible operation);
//! - [`dpor`]: stateless exploration with source-DPOR and sleep sets;
//! - [`reference`]: explicit-state exploration with hashing (the oracle);
//! - [`outcome`]: herd's question per model (final states, observation,
//!   failing assertions, each with a witness);
//! - [`narrate`]: executions as numbered steps for humans.

pub mod bitset;
pub mod dpor;
pub mod hb;
pub mod machine;
pub mod monitor;
pub mod narrate;
pub mod options;
pub mod outcome;
pub mod reference;
pub mod robust;
pub mod trace;
pub mod witness;

pub use machine::Model;
pub use options::{Options, SettingError};
pub use outcome::{ModelOutcome, Observation};
pub use robust::{MonitorKind, Robustness, Violation};

/// Check a program under each requested model (in the order given):
/// outcomes only.
pub fn check(prog: &litmus_dsl::Program, models: &[Model], opts: &Options) -> Vec<ModelOutcome> {
    models.iter().map(|&m| outcome::explore(prog, m, opts)).collect()
}

/// Everything the checker says about a program.
#[derive(Clone, Debug)]
pub struct Report {
    /// Per requested model, in order.
    pub outcomes: Vec<ModelOutcome>,
    /// Per requested relaxed model (TSO, PSO), in order.
    pub robustness: Vec<Robustness>,
    /// Fences that make the program robust under every requested relaxed
    /// model at once, and whether the fenced text was re-checked robust.
    pub joint_fences: Vec<robust::FencePoint>,
    pub joint_confirmed: bool,
    /// The cancel flag stopped the check: the report is partial.
    pub cancelled: bool,
    /// SC's answer to the final condition (what harm is judged against).
    pub sc_observation: Option<Observation>,
}

/// Outcomes under each model and, for TSO/PSO, robustness from monitoring
/// the SC executions. With the source, fences are confirmed by re-checking
/// the fenced text.
pub fn check_all(
    prog: &litmus_dsl::Program,
    src: Option<&str>,
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
) -> Report {
    let mut report = check_robustness(prog, src, models, monitor, opts);
    add_relaxed_outcomes(&mut report, prog, models, opts);
    report
}

/// The fast half of [`check_all`]: [`find_violations`] then
/// [`judge_and_fence`]. `outcomes` holds SC's only (if requested).
pub fn check_robustness(
    prog: &litmus_dsl::Program,
    src: Option<&str>,
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
) -> Report {
    let mut report = find_violations(prog, models, monitor, opts);
    judge_and_fence(&mut report, prog, src, monitor, opts);
    report
}

/// SC's outcomes with the monitors riding along: each relaxed model's
/// witnessed violations, harm not yet judged (`Harm::Unknown`), no fences.
/// Usually a small fraction of the whole check: the editor shows this first.
pub fn find_violations(prog: &litmus_dsl::Program, models: &[Model], monitor: MonitorKind, opts: &Options) -> Report {
    let relaxed: Vec<Model> = models.iter().copied().filter(|m| *m != Model::Sc).collect();
    let mut collector = robust::Collector::new(prog, &relaxed, monitor, opts.loop_bound);
    let sc = collector.run(opts);
    let robustness = collector
        .finish()
        .into_iter()
        .map(|(model, violations, unconfirmed)| Robustness {
            model,
            monitor,
            violations,
            unconfirmed,
            fences: Vec::new(),
            fences_confirmed: false,
            complete: sc.complete,
        })
        .collect();
    let sc_observation = sc.observation;
    let outcomes = if models.contains(&Model::Sc) { vec![sc] } else { Vec::new() };
    Report {
        outcomes,
        robustness,
        joint_fences: Vec::new(),
        joint_confirmed: false,
        cancelled: opts.cancelled(),
        sc_observation,
    }
}

/// Judge each violation's harm and choose minimal fences (per model and
/// jointly); with the source, fences are confirmed by re-checking it.
pub fn judge_and_fence(
    report: &mut Report,
    prog: &litmus_dsl::Program,
    src: Option<&str>,
    monitor: MonitorKind,
    opts: &Options,
) {
    let mut all = Vec::new();
    for rb in report.robustness.iter_mut() {
        if opts.cancelled() {
            break;
        }
        for v in rb.violations.iter_mut() {
            v.harm = robust::judge_harm(prog, v, report.sc_observation, opts);
        }
        let model = rb.model;
        (rb.fences, rb.fences_confirmed) = match src {
            Some(src) => robust::minimal_fences(src, prog, &[model], monitor, &mut rb.violations, opts),
            None => (robust::choose_fences(prog, &mut rb.violations), false),
        };
        all.extend(rb.violations.iter().cloned());
    }
    let relaxed: Vec<Model> = report.robustness.iter().map(|rb| rb.model).collect();
    (report.joint_fences, report.joint_confirmed) = match (src, report.robustness.len()) {
        (_, 0) => (Vec::new(), true),
        (_, 1) => (report.robustness[0].fences.clone(), report.robustness[0].fences_confirmed),
        (Some(src), _) if !opts.cancelled() => robust::minimal_fences(src, prog, &relaxed, monitor, &mut all, opts),
        _ => (Vec::new(), false),
    };
    report.cancelled = opts.cancelled();
}

/// The slow half of [`check_all`]: herd's question for each relaxed model
/// by explicit store-buffer exploration; outcomes end up in `models` order.
pub fn add_relaxed_outcomes(report: &mut Report, prog: &litmus_dsl::Program, models: &[Model], opts: &Options) {
    for &m in models {
        if m != Model::Sc && !opts.cancelled() && !report.outcomes.iter().any(|o| o.model == m) {
            report.outcomes.push(outcome::explore(prog, m, opts));
        }
    }
    report.outcomes.sort_by_key(|o| models.iter().position(|&m| m == o.model));
    report.cancelled = opts.cancelled();
}
