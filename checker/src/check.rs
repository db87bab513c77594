//! The steps of a check, as functions over one [`Report`]: SC's outcome
//! with the monitors riding along ([`find_violations`]), harm and fences
//! ([`judge_and_fence`]), the relaxed models' outcomes
//! ([`add_relaxed_outcomes`]). [`crate::plan`] runs them in order for
//! every front end.

use crate::certainty::{Answer, Coverage, Iterations, Why};
use crate::machine::Model;
use crate::monitor::MonitorKind;
use crate::options::Options;
use crate::outcome::{ModelOutcome, Observation};
use crate::progress::{self, Phase};
use crate::violation::{self, FenceFix, Robustness, Violation};
use crate::{explore, fences, graph, harm, machine, options, relaxer, robust, unbounded};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Check a program under each requested model (in the order given):
/// outcomes only.
pub fn check(prog: &litmus_ir::Program, models: &[Model], opts: &Options) -> Vec<ModelOutcome> {
    models
        .iter()
        .map(|&m| {
            progress::enter(&opts.budget.progress, Phase::Outcomes, Some(m));
            explore::explore(prog, m, opts)
        })
        .collect()
}

/// Everything the checker says about a program.
#[derive(Clone, Debug)]
pub struct Report {
    /// Per requested model, in order.
    pub outcomes: Vec<ModelOutcome>,
    /// Per requested relaxed model (TSO, PSO), in order.
    pub robustness: Vec<Robustness>,
    /// Fences that make the program robust under every requested relaxed
    /// model at once, and what their re-check earned.
    pub joint: FenceFix,
    /// Under several models decided on whole candidates (ARM, RISC-V, C11,
    /// models as data), one not robust: those models, and one set of
    /// changes (barriers, stronger accesses) making the program robust
    /// under them all, re-checked under each ([`crate::repair::repair_all`]).
    pub joint_repair: Option<(Vec<Model>, crate::repair::RepairFix)>,
    /// The cancel flag stopped the check: the report is partial.
    pub cancelled: bool,
    /// SC's answer to the final condition (what harm is judged against).
    pub sc_observation: Option<Answer<Observation>>,
    /// Active testing of the relaxed models exhaustive checking left
    /// unknown ([`plan::Step::Active`]).
    pub active: Option<relaxer::ActiveRun>,
    /// The feasible attacks, when the unbounded procedure decided
    /// robustness (its fences are then chosen and proved by attacks too).
    pub attacks: Option<Vec<violation::AttackId>>,
    /// A shortest run of each of them (the fence search reads the places
    /// each passes instead of searching again).
    pub attack_runs: Option<std::sync::Arc<Vec<unbounded::AttackRun>>>,
    /// SC's outcome as the unbounded procedure proved it (kept even when
    /// SC was not asked for: robust models' outcomes are derived from it).
    pub proved_sc: Option<ModelOutcome>,
    /// SC's outcome as the bounded engine explored it (kept even when SC
    /// was not asked for: a model the program is proved robust under takes
    /// its outcomes from it).
    pub bounded_sc: Option<ModelOutcome>,
    /// What the bounded SC exploration's monitors measured of fences on
    /// the way ([`crate::measure::Premeasured`]): the fence search reads
    /// it instead of exploring again.
    pub premeasured: Option<std::sync::Arc<crate::measure::Premeasured>>,
}

/// The fast half of [`crate::plan::check_all`]: [`find_violations`] then
/// [`judge_and_fence`]. `outcomes` holds SC's only (if requested).
pub fn check_robustness(prog: &litmus_ir::Program, models: &[Model], monitor: MonitorKind, opts: &Options) -> Report {
    let mut report = find_violations(prog, models, monitor, opts);
    judge_and_fence(&mut report, prog, monitor, opts);
    report
}

/// SC's outcomes with the monitors riding along: each relaxed model's
/// witnessed violations, harm not yet judged, no fences.
/// Usually a small fraction of the whole check: the editor shows this first.
pub fn find_violations(prog: &litmus_ir::Program, models: &[Model], monitor: MonitorKind, opts: &Options) -> Report {
    progress::enter(&opts.budget.progress, Phase::Violations, Some(Model::Sc));
    match unbounded_violations(prog, models, monitor, opts) {
        Ok(report) => report,
        Err(Fallback { bounded: Some(report), .. }) => *report,
        Err(Fallback { why, bounded: None }) => bounded_violations(prog, models, monitor, opts, why),
    }
}

/// Why the unbounded procedure did not answer (`why`: `None` when it was
/// not asked, or the bounded engine is exact), and the bounded engine's
/// answer when it was already explored on the way (a loop-free program's
/// executions, explored beside the stateful search).
pub struct Fallback {
    pub why: Option<String>,
    pub bounded: Option<Box<Report>>,
}

impl Fallback {
    fn not_asked() -> Fallback {
        Fallback { why: None, bounded: None }
    }
}

/// [`find_violations`] by the bounded engine, where the unbounded
/// procedure was not asked (`fallback` `None`) or could not decide (why).
pub fn bounded_violations(
    prog: &litmus_ir::Program,
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
    fallback: Option<String>,
) -> Report {
    bounded_violations_observed(prog, models, monitor, opts, fallback, |_| {})
}

/// [`bounded_violations`], handing every SC execution to `observer` too.
fn bounded_violations_observed(
    prog: &litmus_ir::Program,
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
    fallback: Option<String>,
    observer: impl FnMut(&crate::dpor::Execution<'_>),
) -> Report {
    let relaxed: Vec<Model> = models.iter().copied().filter(|m| m.buffered()).collect();
    let robust::Measured { mut sc, mut robustness, premeasured } = if prog.candidates_only() {
        // No machine runs it: SC's candidates, each model's own (or none).
        let sc = explore::explore(prog, Model::Sc, opts);
        let robustness = relaxed.iter().map(|&m| robust::own_executions(prog, m, opts)).collect();
        robust::Measured { sc, robustness, premeasured: None }
    } else {
        robust::measured_robustness_observed(prog, &relaxed, monitor, opts, observer)
    };
    if let Some(why) = fallback {
        sc.iterations = Iterations::Fallback(why.clone());
        for rb in robustness.iter_mut() {
            rb.iterations = Iterations::Fallback(why.clone());
        }
    }
    let sc_observation = sc.observation.clone();
    let bounded_sc = Some(sc.clone());
    let outcomes = if models.iter().any(|m| m.is_reference()) { vec![sc] } else { Vec::new() };
    Report {
        outcomes,
        robustness,
        joint: pending(),
        joint_repair: None,
        cancelled: opts.budget.cancelled(),
        sc_observation,
        active: None,
        attacks: None,
        attack_runs: None,
        proved_sc: None,
        bounded_sc,
        premeasured,
    }
}

impl Report {
    /// The report before any step of a check: nothing known yet.
    pub fn empty() -> Report {
        Report {
            outcomes: Vec::new(),
            robustness: Vec::new(),
            joint: pending(),
            joint_repair: None,
            cancelled: false,
            sc_observation: None,
            active: None,
            attacks: None,
            attack_runs: None,
            proved_sc: None,
            bounded_sc: None,
            premeasured: None,
        }
    }
}

fn pending() -> FenceFix {
    FenceFix { fences: Vec::new(), confirmed: Answer::Unknown(Why::Pending), minimal: true }
}

/// States the stateful search may visit for a program without loops before
/// the bounded engine (exact there) takes over.
const LOOP_FREE_STATES: usize = 100_000;

/// For a program without loops, the stateful search first gets this many
/// states; if it needs more, the bounded engine answers when its SC
/// exploration has at most [`LOOP_FREE_EXECUTIONS`] executions (SB with 12
/// threads: 4,095 executions but millions of states), and only else does
/// the stateful search go on to [`LOOP_FREE_STATES`] (tests/programs/slow.litmus:
/// 78,409 executions, under 100,000 states). The first try is small:
/// slow.litmus under SC alone needs 3,163 states, SB-6 6,716; SB-8 and up
/// need millions, and 10,000 of them cost 7 ms for nothing.
const LOOP_FREE_FIRST_STATES: usize = 5_000;
const LOOP_FREE_EXECUTIONS: u64 = 20_000;

/// The unbounded procedure's share of the check: SC's outcome and
/// TSO/PSO robustness for every iteration. Otherwise the bounded engine
/// answers ([`Fallback`]: why, and its answer if already explored).
pub fn unbounded_violations(
    prog: &litmus_ir::Program,
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
) -> Result<Report, Fallback> {
    // `--first` asks for the bounded search's first finding; a
    // store-conditional is not the machines' to run.
    let asked = opts.budget.found.is_none() && !prog.candidates_only();
    let Some(limits) = opts.unbounded.as_ref().filter(|_| asked) else {
        return Err(Fallback::not_asked());
    };
    // Its share of the budget: the bounded engine must have time left.
    let share = opts.with_budget(opts.budget.share(0.6));
    // Without loops the bounded engine's answer is proved as well: the
    // stateful search only pays while its states stay few (SB with 12
    // threads has millions of states but 4,096 executions).
    let loop_free = !unbounded::loops(prog);
    let capped = |n: usize| options::StateLimits { max_states: limits.max_states.min(n), ..limits.clone() };
    let proved = if loop_free {
        // A loop-free program loses nothing to the bounded engine: no note.
        // Nor does it when its states are sure to overflow both tries (SB
        // with 10 threads: 59,049 combinations of positions alone, more than
        // 100,000 states; 12 threads: 531,441): the bounded engine answers
        // at once, its outcomes explored ahead on the other core.
        if unbounded::shared_positions(prog) > LOOP_FREE_STATES as u64 / 2 {
            return Err(Fallback::not_asked());
        }
        let first = capped(LOOP_FREE_FIRST_STATES);
        match loop_free_search(prog, models, monitor, &share, &first, &capped(LOOP_FREE_STATES)) {
            LoopFree::Proved(p) => *p,
            LoopFree::Bounded(explored) => return Err(Fallback { why: None, bounded: explored }),
            LoopFree::Unproved => return Err(Fallback::not_asked()),
        }
    } else {
        unbounded::prove(prog, models, &share, limits).map_err(|stop| Fallback {
            why: Some(format!("not proved for every iteration: {}", stop.describe())),
            bounded: None,
        })?
    };
    let sc_observation = proved.sc.observation.clone();
    let mut robustness = proved.robustness;
    let mut kept = Vec::new();
    // PSLO has no attack reduction: its own executions, with the bounds.
    for &m in models.iter().filter(|&&m| m.buffered() && !unbounded::decides(m)) {
        if let Some(p) = &opts.budget.progress {
            p.model_within(Phase::Violations, m);
        }
        let (mut rb, graphs) = robust::own_executions_kept(prog, m, opts);
        kept.extend(graphs);
        rb.iterations = Iterations::Fallback(format!(
            "{} is not decided for every iteration (no attack reduction): its executions are explored with the bounds",
            m.upper()
        ));
        robustness.push(rb);
    }
    robustness.sort_by_key(|r| models.iter().position(|&m| m == r.model));
    let outcomes = if models.iter().any(|m| m.is_reference()) { vec![proved.sc.clone()] } else { Vec::new() };
    Ok(Report {
        outcomes,
        robustness,
        joint: pending(),
        joint_repair: None,
        cancelled: opts.budget.cancelled(),
        sc_observation,
        active: None,
        attacks: Some(proved.attacks),
        attack_runs: Some(std::sync::Arc::new(proved.runs)),
        proved_sc: Some(proved.sc),
        bounded_sc: None,
        premeasured: crate::measure::Premeasured::of_graphs(prog, kept).map(std::sync::Arc::new),
    })
}

/// Who answers for a loop-free program.
enum LoopFree {
    /// The stateful search, within its states.
    Proved(Box<unbounded::Proved>),
    /// The bounded engine (its SC executions are few), with its answer if
    /// it was explored on the way.
    Bounded(Option<Box<Report>>),
    /// The bounded engine: the stateful search needed too many states.
    Unproved,
}

/// A loop-free program: the stateful search gets `first` states; if it
/// needs more, the bounded engine answers when its SC exploration has at
/// most [`LOOP_FREE_EXECUTIONS`] executions, and only else does the
/// stateful search go on to `more`.
///
/// With a second core, the SC executions are explored beside the first try
/// as the bounded engine explores them (monitors riding along), stopped
/// past that many or once the try succeeds; if the try fails, the bigger
/// one starts at once, beside them, and is stopped if they are within. So
/// the decision is the same as in sequence, and sooner: SB-12's 6 ms of
/// monitored executions beside the first try are the bounded engine's
/// answer, where they used to be 5 ms of counting and then the 6 ms again.
/// Where the monitors do not decide every model asked (PSLO), the
/// executions are only counted.
fn loop_free_search(
    prog: &litmus_ir::Program,
    models: &[Model],
    monitor: MonitorKind,
    share: &Options,
    first: &options::StateLimits,
    more: &options::StateLimits,
) -> LoopFree {
    let prove = |opts: &Options, limits| match unbounded::prove(prog, models, opts, limits) {
        Ok(p) => LoopFree::Proved(Box::new(p)),
        Err(_) => LoopFree::Unproved,
    };
    // (A test cutting the check at its n-th poll wants one sequence.)
    if share.threads < 2 || share.budget.polls_left.is_some() {
        return match unbounded::prove(prog, models, share, first) {
            Ok(p) => LoopFree::Proved(Box::new(p)),
            Err(_) if explore::sc_executions_within(prog, share, LOOP_FREE_EXECUTIONS) => LoopFree::Bounded(None),
            Err(_) => prove(share, more),
        };
    }
    let stoppable = |stop: &Arc<AtomicBool>| {
        let mut o = share.clone();
        o.budget.parent = o.budget.cancel.replace(stop.clone());
        o
    };
    let (counted, again) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let mut counting = stoppable(&counted);
    // Progress is the stateful search's to report.
    counting.budget.progress = None;
    let mut relaxed = models.iter().copied().filter(|m| m.buffered()).peekable();
    let explores = relaxed.peek().is_some() && relaxed.all(|m| m.monitored() && monitor.complete_for(m));
    std::thread::scope(|s| {
        // `Some(explored)`: within, and the bounded engine's answer if explored.
        let count = crate::options::spawn_checking(s, || {
            if !explores {
                return explore::sc_executions_within(prog, &counting, LOOP_FREE_EXECUTIONS).then_some(None);
            }
            let mut seen = 0u64;
            let report = bounded_violations_observed(prog, models, monitor, &counting, None, |_| {
                seen += 1;
                if seen > LOOP_FREE_EXECUTIONS {
                    counted.store(true, Ordering::Relaxed);
                }
            });
            let within = seen <= LOOP_FREE_EXECUTIONS && !counting.budget.stopped();
            within.then(|| Some(Box::new(report)))
        });
        if let Ok(p) = unbounded::prove(prog, models, share, first) {
            // A count stopped because the try succeeded is not read.
            counted.store(true, Ordering::Relaxed);
            let _ = count.join();
            return LoopFree::Proved(Box::new(p));
        }
        // Executions already explored and within: no bigger try at all.
        if count.is_finished() {
            return match count.join().unwrap_or(None) {
                Some(explored) => LoopFree::Bounded(explored),
                None => prove(share, more),
            };
        }
        let retry = stoppable(&again);
        let bigger = crate::options::spawn_checking(s, move || prove(&retry, more));
        match count.join().unwrap_or(None) {
            Some(explored) => {
                again.store(true, Ordering::Relaxed);
                let _ = bigger.join();
                LoopFree::Bounded(explored)
            }
            None => bigger.join().unwrap_or(LoopFree::Unproved),
        }
    })
}

/// Look for harm in each violation's own continuations (what is found is
/// proved; the rest is settled by [`add_relaxed_outcomes`]) and choose
/// minimal fences (jointly, then per model), confirmed by re-checking the
/// fenced program. The searches share their re-checks: the joint one
/// measures each position under all models at once, each model's reads its
/// share.
pub fn judge_and_fence(report: &mut Report, prog: &litmus_ir::Program, monitor: MonitorKind, opts: &Options) {
    let harmless = harm::harmless(prog, report.sc_observation.as_ref());
    for rb in report.robustness.iter_mut() {
        for v in rb.violations.iter_mut() {
            progress::enter(&opts.budget.progress, Phase::Harm, Some(v.model));
            if let Some(f) = &v.finals {
                v.harm = f.harm(prog.condition.is_some(), report.sc_observation.as_ref());
            } else if harmless {
                v.harm = Answer::Proved(violation::Harm::Benign);
            } else if let Some(h) = harm::quick_harm(prog, v, report.sc_observation.as_ref(), opts) {
                v.harm = h;
            }
        }
    }
    progress::enter(&opts.budget.progress, Phase::Fences, None);
    // Attacks decided every relaxed model asked (PSLO's fences need its own
    // executions: then every model takes the bounded re-checks, jointly).
    let decided = report.robustness.iter().all(|rb| unbounded::decides(rb.model));
    if let Some(attacks) = report.attacks.clone().filter(|_| decided) {
        attack_fences(report, prog, &attacks, opts);
        return;
    }
    let rechecks = fences::Rechecks::new(prog, monitor, opts).premeasured(report.premeasured.clone());
    let robust = violation::all_robust(&report.robustness);
    let relaxed: Vec<Model> = report.robustness.iter().map(|rb| rb.model).collect();
    // Fences are the machines' repairs: a model decided on whole candidates
    // (ARM, RISC-V, C11) is not repaired by them.
    let unrepaired = |rb: &Robustness| explore::by_candidates(prog, rb.model, opts) && !rb.violations.is_empty();
    let none = || FenceFix { fences: Vec::new(), confirmed: Answer::Unknown(Why::NoRepairs), minimal: false };
    let joint = (relaxed.len() > 1).then(|| {
        if report.robustness.iter().any(unrepaired) {
            return none();
        }
        let mut all: Vec<Violation> = report.robustness.iter().flat_map(|rb| rb.violations.iter().cloned()).collect();
        fences::minimal_fences(&rechecks, &relaxed, &mut all, robust.clone())
    });
    for rb in report.robustness.iter_mut() {
        progress::enter(&opts.budget.progress, Phase::Fences, Some(rb.model));
        if unrepaired(rb) {
            // Changes from the architecture's menu, each set re-checked.
            let fix = crate::repair::repair(prog, rb.model, &rb.violations, opts);
            rb.repairs = fix.repairs;
            take_fix(rb, FenceFix { fences: Vec::new(), confirmed: fix.confirmed, minimal: fix.minimal });
            continue;
        }
        let robust = rb.robust();
        let fix = fences::minimal_fences(&rechecks, &[rb.model], &mut rb.violations, robust);
        take_fix(rb, fix);
    }
    report.joint = joint_fix(joint, &report.robustness);
    // Each model's cheapest repair may leave another's violations: one set
    // for them all, re-checked under each (the others need none).
    let decided: Vec<Model> =
        report.robustness.iter().filter(|rb| explore::by_candidates(prog, rb.model, opts)).map(|rb| rb.model).collect();
    let others_robust = report.robustness.iter().all(|rb| decided.contains(&rb.model) || rb.violations.is_empty());
    if decided.len() > 1 && others_robust && report.robustness.iter().any(unrepaired) {
        let all: Vec<Violation> = report
            .robustness
            .iter()
            .filter(|rb| decided.contains(&rb.model))
            .flat_map(|rb| rb.violations.iter().cloned())
            .collect();
        let fix = crate::repair::repair_all(prog, &decided, &all, opts);
        report.joint_repair = Some((decided, fix));
    }
    report.cancelled = opts.budget.cancelled();
}

/// A model's own fences and what their re-check earned.
fn take_fix(rb: &mut Robustness, fix: FenceFix) {
    rb.fences = fix.fences;
    rb.fences_confirmed = fix.confirmed;
    rb.fences_minimal = fix.minimal;
}

/// The fences for every model at once: the joint search's where it ran
/// (more than one model), else the one model's, else none (no model).
fn joint_fix(joint: Option<FenceFix>, rbs: &[Robustness]) -> FenceFix {
    match (joint, rbs) {
        (Some(fix), _) => fix,
        (None, [one]) => FenceFix {
            fences: one.fences.clone(),
            confirmed: one.fences_confirmed.clone(),
            minimal: one.fences_minimal,
        },
        (None, _) => FenceFix { fences: Vec::new(), confirmed: violation::all_robust(rbs), minimal: true },
    }
}

/// Fences chosen and proved by attacks (the unbounded procedure decided
/// robustness): jointly for every relaxed model it decides, then per model.
fn attack_fences(report: &mut Report, prog: &litmus_ir::Program, attacks: &[violation::AttackId], opts: &Options) {
    let limits = opts.unbounded.clone().unwrap_or_default();
    let runs = report.attack_runs.clone().unwrap_or_default();
    let runs = &runs[..];
    let decided: Vec<Model> = report.robustness.iter().map(|rb| rb.model).filter(|&m| unbounded::decides(m)).collect();
    let joint = (decided.len() > 1).then(|| {
        let mut all: Vec<Violation> = report
            .robustness
            .iter()
            .filter(|rb| unbounded::decides(rb.model))
            .flat_map(|rb| rb.violations.iter().cloned())
            .collect();
        unbounded::fences::minimal_fences(prog, &decided, attacks, runs, &mut all, opts, &limits)
    });
    for rb in report.robustness.iter_mut() {
        progress::enter(&opts.budget.progress, Phase::Fences, Some(rb.model));
        let fix =
            unbounded::fences::minimal_fences(prog, &[rb.model], attacks, runs, &mut rb.violations, opts, &limits);
        take_fix(rb, fix);
    }
    report.joint = joint_fix(joint, &report.robustness);
    report.cancelled = opts.budget.cancelled();
}

/// The slow half of [`crate::plan::check_all`]: herd's question for each relaxed model
/// by explicit store-buffer exploration; outcomes end up in `models` order.
/// The same exploration settles each violation's harm.
pub fn add_relaxed_outcomes(report: &mut Report, prog: &litmus_ir::Program, models: &[Model], opts: &Options) {
    add_relaxed_outcomes_ahead(report, prog, models, opts, Vec::new(), Vec::new());
}

/// [`add_relaxed_outcomes`], taking the outcomes `ahead` explored (beside
/// the earlier steps, [`crate::plan::Plan::run`]) where their exploration
/// would otherwise run now.
/// `own`: relaxed models' stateful searches run beside the earlier steps
/// ([`stateful_outcomes`]), taken where this step would run them.
pub fn add_relaxed_outcomes_ahead(
    report: &mut Report,
    prog: &litmus_ir::Program,
    models: &[Model],
    opts: &Options,
    mut ahead: Vec<crate::ahead::Ahead>,
    mut own: Vec<(Model, Option<ModelOutcome>)>,
) {
    let sc = report.sc_observation.clone();
    for &m in models {
        if !m.buffered() || report.outcomes.iter().any(|o| o.model == m) {
            continue;
        }
        progress::enter(&opts.budget.progress, Phase::Outcomes, Some(m));
        if let Some(o) = robust_outcome(report, prog, m) {
            report.outcomes.push(o);
            continue;
        }
        // Not proved robust: the model's own states, for every iteration
        // (store buffers bounded), where the unbounded procedure is on.
        let own = match own.iter().position(|(x, _)| *x == m) {
            Some(k) => own.swap_remove(k).1,
            None => stateful_outcome(report, prog, m, opts),
        };
        if let Some(o) = &own {
            let rb = report.robustness.iter_mut().find(|rb| rb.model == m);
            let settled = rb.is_none_or(|rb| {
                rb.violations.iter().all(|v| !matches!(v.harm, Answer::Unknown(Why::Pending)))
                    || harm::benign_from_outcome(prog, o, sc.as_ref(), &mut rb.violations)
            });
            if settled {
                report.outcomes.push(own.expect("some"));
                continue;
            }
        }
        let rb = report.robustness.iter().position(|rb| rb.model == m);
        if let Some(a) = ahead.iter().position(|a| a.model == m).map(|k| ahead.swap_remove(k)) {
            if let Some(i) = rb {
                a.judge(prog, opts, sc.as_ref(), &mut report.robustness[i].violations);
            }
            report.outcomes.push(bounded_note(report, own.unwrap_or(a.outcome), m));
            continue;
        }
        let machine = machine::Machine::new(prog, m.interpreter(), opts.loop_bound, opts.buffer_bound);
        // (The graph explorer runs every attempt: only the interleaving
        // explorer leaves failing ones waiting.)
        let waited = !explore::by_graph(prog, m, opts) && explore::leaves_waiting(&machine, opts);
        let mut search = rb.map(|i| {
            harm::HarmSearch::new(prog, &machine, sc.as_ref(), &report.robustness[i].violations).waited(waited)
        });
        // The search that found the violations saw every graph already (a
        // model given as data): its outcome, and harm judged on the
        // violating graphs it kept (no other graph shows a violation).
        let pre = report.premeasured.clone();
        let o = if let Some((o, kept)) = pre.as_ref().and_then(|p| p.outcome(m)) {
            if let Some(s) = search.as_mut().filter(|s| !s.done()) {
                kept.observe(s);
            }
            o.clone()
        } else if explore::by_graph(prog, m, opts) {
            // Harm sees the graphs that could show it, linearized (in the
            // sequential order); with every harm settled, the search runs on
            // all its threads.
            let open = search.as_mut().filter(|s| !s.done());
            graph::explore(prog, m, opts, open.map(|s| s as &mut dyn graph::Observer))
        } else {
            explore::explore_with(prog, m, opts, |e| {
                if let Some(s) = search.as_mut() {
                    s.observe(e);
                }
            })
        };
        if let (Some(s), Some(i)) = (search, rb) {
            s.finish(o.coverage, opts, &mut report.robustness[i].violations);
        }
        // The stateful search's outcome, where it ran (the bounded search
        // only settled the harm).
        report.outcomes.push(bounded_note(report, own.unwrap_or(o), m));
    }
    report.outcomes.sort_by_key(|o| models.iter().position(|&m| m == o.model));
    report.cancelled = opts.budget.cancelled();
}

/// Will [`add_relaxed_outcomes`] explore `m`'s executions with the bounds
/// after the steps that gave `report`? Not where it has them already, nor
/// where the program is proved robust under `m` (SC's are taken).
pub fn explores_outcome(report: &Report, m: Model) -> bool {
    !report.outcomes.iter().any(|o| o.model == m) && robust_source(report, m).is_none()
}

/// A relaxed model's outcome `o` as the outcome step gives it: where the
/// unbounded procedure ran but `o` is the bounded engine's, it says why.
fn bounded_note(report: &Report, mut o: ModelOutcome, m: Model) -> ModelOutcome {
    if report.proved_sc.is_some() && !o.complete() && !o.iterations.every() && o.iterations.reason().is_none() {
        // The unbounded procedure decides robustness, not a non-robust
        // model's own outcomes: say why these are bounded.
        o.iterations = Iterations::Fallback(format!(
            "{}'s outcomes are explored with the bounds (the program is not proved robust under {0})",
            m.upper()
        ));
    }
    o
}

/// [`stateful_outcome`] for each relaxed model of `models` the outcome
/// step will search after the violation step gave `report` (not proved
/// robust): what it depends on is known then, so it may run beside the
/// fences. The same answers as the outcome step's own calls.
pub fn stateful_outcomes(
    report: &Report,
    prog: &litmus_ir::Program,
    models: &[Model],
    opts: &Options,
) -> Vec<(Model, Option<ModelOutcome>)> {
    models
        .iter()
        .filter(|&&m| m.buffered() && explores_outcome(report, m) && unbounded::decides(m))
        .map(|&m| (m, stateful_outcome(report, prog, m, opts)))
        .collect()
}

/// A relaxed model's outcome from the stateful search of its own states
/// (TSO, PSO), within half the time left and 500,000 states, given up as
/// soon as a buffer fills (it could not prove more than the bounded engine
/// then); `None` where the unbounded procedure is off or it did not finish.
fn stateful_outcome(report: &Report, prog: &litmus_ir::Program, m: Model, opts: &Options) -> Option<ModelOutcome> {
    let limits = opts.unbounded.as_ref().filter(|_| report.proved_sc.is_some() && unbounded::decides(m))?;
    let limits = options::StateLimits {
        max_states: limits.max_states.min(500_000),
        stop_at_full_buffer: true,
        ..limits.clone()
    };
    let share = opts.with_budget(opts.budget.share(0.5));
    unbounded::relaxed(prog, m, opts.buffer_bound, &share, &limits).ok()
}

/// A model's outcome where the program is proved robust under it: its
/// executions' traces are all SC traces, so its final states, failures and
/// deadlocks are SC's (witnesses replayed on its machine) — for every
/// iteration where the unbounded procedure proved it, else as far as the
/// bounded engine's SC exploration, which must have finished with nothing
/// cut (a proof, not "within bounds").
fn robust_outcome(report: &Report, prog: &litmus_ir::Program, m: Model) -> Option<ModelOutcome> {
    // SC's witnesses are replayed on the model's machine: none, none taken.
    if !m.has_machine() {
        return None;
    }
    let (sc, iterations) = robust_source(report, m)?;
    unbounded::relaxed_outcome(prog, sc, m, iterations)
}

/// The SC outcome [`robust_outcome`] takes `m`'s from, and how far through
/// the loops it holds: `None` unless the program is proved robust under `m`.
fn robust_source(report: &Report, m: Model) -> Option<(&ModelOutcome, Iterations)> {
    let rb = report.robustness.iter().find(|rb| rb.model == m)?;
    if rb.robust() != Answer::Proved(true) {
        return None;
    }
    if rb.iterations.every() {
        return Some((report.proved_sc.as_ref()?, rb.iterations.clone()));
    }
    let sc = report.bounded_sc.as_ref().filter(|sc| sc.coverage == Coverage::Complete)?;
    Some((sc, sc.iterations.clone()))
}
