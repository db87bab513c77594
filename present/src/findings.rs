//! What a check found, as diagnostics on source spans, before any protocol:
//! parse and analysis diagnostics (fast path), then what the checker found
//! (violations and every other statement of their cycles, failing
//! assertions, conditions that differ from SC, deadlocks). Derived once
//! here; the language server only converts them (`litmus_lsp::convert`) and
//! `litmus check`'s human output only renders them, adding each one's
//! witness by what it is [`About`]. Codes come from [`crate::codes`].

use crate::words::CIRCLED;
use crate::{codes, words};
use litmus_checker::harm::harmful;
use litmus_checker::machine::Event;
use litmus_checker::relaxer::ActiveRun;
use litmus_checker::violation::CycleStep;
use litmus_checker::{Model, ModelOutcome, Report, Robustness};
use litmus_dsl::Analysis;
use litmus_ir::{Program, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub span: Span,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub related: Vec<(Span, String)>,
    /// How to fix it, where the check knows (a violation's fences).
    pub help: Option<String>,
    /// What the finding is about, for actions on it (show its execution,
    /// replay its run) and for the witness the CLI prints under it.
    pub about: Option<About>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum About {
    /// Violations with the same delayed store and the same statement it
    /// is delayed past, one finding for all: each the `index`-th of the
    /// report's `model`-th robustness answer, as `(model, index)`, in report
    /// order (never empty); `generation`: the text they were found in (set
    /// by the server).
    Violation { at: Vec<(usize, usize)>, generation: Option<u64> },
    /// A run of active testing: `litmus explain --replay HANDLE` re-runs it.
    Replay(String),
    /// The failures of statement `stmt` (each model's first witness).
    Failure { stmt: u32 },
    /// The final condition answers differently under the `model`-th outcome.
    ConditionDiffers { model: usize },
    /// The final condition (a promise: `forall`, `~exists`) fails under SC
    /// (the `model`-th outcome), in its `state`-th final state.
    ConditionFails { model: usize, state: usize },
    /// The final condition divides by zero (each such model's witness).
    ConditionUndefined,
    /// The `model`-th outcome's deadlocks.
    Deadlock { model: usize },
    /// The `index`-th race of the `model`-th outcome.
    Race { model: usize, index: usize },
}

/// The parts of a check that findings come from (a [`Report`], or the
/// CLI's own record of a check).
#[derive(Clone, Copy)]
pub struct Found<'a> {
    pub outcomes: &'a [ModelOutcome],
    pub robustness: &'a [Robustness],
    pub active: Option<&'a ActiveRun>,
}

impl<'a> Found<'a> {
    pub fn of(r: &'a Report) -> Self {
        Found { outcomes: &r.outcomes, robustness: &r.robustness, active: r.active.as_ref() }
    }
}

pub fn analysis_findings(a: &Analysis) -> Vec<Finding> {
    a.diagnostics
        .iter()
        .map(|d| Finding {
            span: d.span,
            severity: if d.is_error() { Severity::Error } else { Severity::Warning },
            code: d.code,
            message: match &d.help {
                Some(h) => format!("{}\n{}", d.message, h),
                None => d.message.clone(),
            },
            related: d.related.iter().map(|r| (r.span, r.message.clone())).collect(),
            help: None,
            about: None,
        })
        .collect()
}

/// How the statements of a cycle other than its delayed store are shown
/// (setting `cycleMembers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Members {
    Hint,
    Information,
    Off,
}

impl Members {
    pub fn as_str(self) -> &'static str {
        match self {
            Members::Hint => "hint",
            Members::Information => "information",
            Members::Off => "off",
        }
    }

    fn severity(self) -> Option<Severity> {
        match self {
            Members::Hint => Some(Severity::Hint),
            Members::Information => Some(Severity::Information),
            Members::Off => None,
        }
    }
}

/// The cycle as related information: every statement from `from` on, with
/// the edge leaving it.
fn cycle_related(p: &Program, steps: &[CycleStep], from: usize) -> Vec<(Span, String)> {
    let k = steps.len();
    (from..k)
        .map(|i| {
            let st = steps[i];
            let s = &p.stmts[st.stmt as usize];
            let to = &p.stmts[steps[(i + 1) % k].stmt as usize];
            let label = format!(
                "{} {} `{}` —{}→ `{}`",
                CIRCLED[i.min(19)],
                p.threads[st.thread as usize].name,
                s.text,
                st.edge.as_str(),
                to.text
            );
            (s.span, label)
        })
        .collect()
}

/// One diagnostic per statement of each cycle besides the one that carries
/// the finding: cycles with the same statements (the same cycle found from
/// each of its stores, or under several models) are shown once, anchored
/// at the first finding's statement.
struct MemberSet<'a> {
    cycles: Vec<Cycle<'a>>,
}

/// A cycle as first found, and every model it was found under.
struct Cycle<'a> {
    /// Its statements, sorted: what identifies it.
    key: Vec<u32>,
    steps: Vec<CycleStep>,
    /// The first finding's witness, for what each statement accesses.
    events: &'a [Event],
    models: Vec<Model>,
}

impl<'a> MemberSet<'a> {
    fn new() -> Self {
        MemberSet { cycles: Vec::new() }
    }

    fn add(&mut self, model: Model, steps: &[CycleStep], events: &'a [Event]) {
        let mut key: Vec<u32> = steps.iter().map(|s| s.stmt).collect();
        key.sort_unstable();
        key.dedup();
        match self.cycles.iter_mut().find(|c| c.key == key) {
            Some(c) if !c.models.contains(&model) => c.models.push(model),
            Some(_) => {}
            None => self.cycles.push(Cycle { key, steps: steps.to_vec(), events, models: vec![model] }),
        }
    }

    /// One finding per statement: a statement in several cycles names
    /// them all (their anchors' lines, every model), its role in each.
    fn findings(&self, p: &Program, sev: Severity, code: &'static str, out: &mut Vec<Finding>) {
        // Per statement, in first-met order: (role, anchor line, cycle).
        let mut entries = Vec::new();
        for c in &self.cycles {
            let steps = &c.steps;
            let anchor = &p.stmts[steps[0].stmt as usize];
            for i in 1..steps.len() {
                // A statement met twice in the cycle (a loop) is shown once.
                if steps[..i].iter().any(|s| s.stmt == steps[i].stmt) {
                    continue;
                }
                entries.push((steps[i].stmt, (words::cycle_role(p, steps, c.events, i), anchor.line, c)));
            }
        }
        for (stmt, roles) in grouped(entries) {
            let mut models: Vec<Model> = Vec::new();
            for m in roles.iter().flat_map(|(_, _, c)| &c.models) {
                if !models.contains(m) {
                    models.push(*m);
                }
            }
            let message = match &roles[..] {
                [(role, line, _)] => words::cycle_member(role, &models, *line),
                _ => words::cycle_member_of_many(
                    &roles.iter().map(|(r, l, _)| (r.as_str(), *l)).collect::<Vec<_>>(),
                    &models,
                ),
            };
            out.push(Finding {
                span: p.stmts[stmt as usize].span,
                severity: sev,
                code,
                message,
                related: cycle_related(p, &roles[0].2.steps, 0),
                help: None,
                about: None,
            });
        }
    }
}

/// `items` grouped by key: groups in the order their keys are first met,
/// each group's values in order.
fn grouped<K: PartialEq, V>(items: impl IntoIterator<Item = (K, V)>) -> Vec<(K, Vec<V>)> {
    let mut out: Vec<(K, Vec<V>)> = Vec::new();
    for (k, v) in items {
        match out.iter_mut().find(|(g, _)| *g == k) {
            Some((_, vs)) => vs.push(v),
            None => out.push((k, vec![v])),
        }
    }
    out
}

/// Everything a check found, in the order the editor lists it.
pub fn check_findings(p: &Program, r: Found<'_>, members: Members) -> Vec<Finding> {
    let mut out = Vec::new();
    violations(p, r, members, &mut out);
    active_cycles(p, r, members, &mut out);
    failures(p, r, &mut out);
    conditions(p, r, &mut out);
    deadlocks(p, r, &mut out);
    races(p, r, &mut out);
    out
}

/// Each pair of racing accesses, once, on its first statement (and the
/// other as related), naming every model that finds it.
fn races(p: &Program, r: Found<'_>, out: &mut Vec<Finding>) {
    type Accesses = [(u16, u32); 2];
    let mut each: Vec<(Accesses, (usize, usize))> = Vec::new();
    for (mi, o) in r.outcomes.iter().enumerate() {
        for (ri, race) in o.races.iter().enumerate() {
            each.push((race.accesses, (mi, ri)));
        }
    }
    for (pair, at) in grouped(each) {
        let (mi, ri) = at[0];
        let names = words::models(at.iter().map(|&(m, _)| r.outcomes[m].model));
        let [(ta, a), (tb, b)] = pair;
        let (sa, sb) = (&p.stmts[a as usize], &p.stmts[b as usize]);
        let (na, nb) = (&p.threads[ta as usize].name, &p.threads[tb as usize].name);
        let flag = &r.outcomes[mi].races[ri].flag;
        let same = a == b;
        out.push(Finding {
            span: sa.span,
            severity: Severity::Error,
            code: codes::DATA_RACE.code,
            message: if same {
                format!(
                    "{names}: `{}` races with itself in another instance ({flag}): the behaviour is undefined",
                    sa.text
                )
            } else {
                format!(
                    "{names}: `{}` ({na}) races with `{}` ({nb}) ({flag}): the behaviour is undefined",
                    sa.text, sb.text
                )
            },
            related: if same { Vec::new() } else { vec![(sb.span, format!("the other access ({nb})"))] },
            help: Some(words::race_fix(p).into()),
            about: Some(About::Race { model: mi, index: ri }),
        });
    }
}

/// One finding per delayed store and statement it is delayed past, naming
/// every model (and harm, and fix, per model where they differ), then the
/// other statements of the cycles (as `members` says).
fn violations(p: &Program, r: Found<'_>, members: Members, out: &mut Vec<Finding>) {
    let mut cycles = MemberSet::new();
    // Per (delayed store, statement it is delayed past): its violations.
    let mut each = Vec::new();
    for (mi, rb) in r.robustness.iter().enumerate() {
        for (vi, v) in rb.violations.iter().enumerate() {
            cycles.add(rb.model, &v.cycle, &v.witness.events);
            each.push(((v.store_stmt, v.delayed_past()), (mi, vi)));
        }
    }
    for ((store, past), at) in grouped(each) {
        let vs: Vec<(Model, &litmus_checker::violation::Violation)> =
            at.iter().map(|&(mi, vi)| (r.robustness[mi].model, &r.robustness[mi].violations[vi])).collect();
        let names = words::models(vs.iter().map(|&(m, _)| m));
        let per_model = |f: &dyn Fn(&litmus_checker::violation::Violation) -> Option<String>| -> Option<String> {
            let each: Vec<(Model, Option<String>)> = vs.iter().map(|&(m, v)| (m, f(v))).collect();
            if each.iter().all(|(_, t)| *t == each[0].1) {
                return each[0].1.clone();
            }
            let mut parts: Vec<String> = Vec::new();
            for (m, t) in &each {
                let part = format!("{}: {}", m.upper(), t.as_deref().unwrap_or("none"));
                if !parts.contains(&part) {
                    parts.push(part);
                }
            }
            Some(parts.join("; "))
        };
        let harm = per_model(&|v| Some(words::harm(p, &v.harm))).unwrap_or_default();
        let (s, d) = (&p.stmts[store as usize], &p.stmts[past as usize]);
        out.push(Finding {
            span: s.span,
            severity: if vs.iter().any(|(_, v)| harmful(&v.harm)) { Severity::Error } else { Severity::Warning },
            code: codes::VIOLATION.code,
            message: format!("{names}: `{}` may be delayed past `{}` — {harm}", s.text, d.text),
            related: cycle_related(p, &vs[0].1.cycle, 1),
            help: per_model(&|v| fix(p, &v.fence)).map(|f| format!("fix: {f}")),
            about: Some(About::Violation { at, generation: None }),
        });
    }
    if let Some(sev) = members.severity() {
        cycles.findings(p, sev, codes::VIOLATION.code, out);
    }
}

/// The cycles active testing confirmed (a file past the exhaustive budget).
fn active_cycles(p: &Program, r: Found<'_>, members: Members, out: &mut Vec<Finding>) {
    let mut cycles = MemberSet::new();
    for a in r.active.iter().flat_map(|run| &run.models) {
        for c in a.cycles.iter().filter(|c| c.confirmations > 0) {
            let Some(w) = &c.witness else { continue };
            let steps = w.steps();
            let Some(first) = steps.first().map(|s| &p.stmts[s.stmt as usize]) else { continue };
            cycles.add(a.model, &steps, &w.events);
            out.push(Finding {
                span: first.span,
                severity: if w.bug.is_some() { Severity::Error } else { Severity::Warning },
                code: codes::ACTIVE_VIOLATION.code,
                message: format!(
                    "{}: happens-before cycle found by active testing (created in {} of {} runs) — {}",
                    a.model.upper(),
                    c.confirmations,
                    c.trials,
                    words::active_bug(p, w.bug.as_ref())
                ),
                related: cycle_related(p, &steps, 1),
                help: None,
                about: Some(About::Replay(w.handle.to_string())),
            });
        }
    }
    if let Some(sev) = members.severity() {
        cycles.findings(p, sev, codes::ACTIVE_VIOLATION.code, out);
    }
}

/// Failing assertions, once per statement, naming every model.
fn failures(p: &Program, r: Found<'_>, out: &mut Vec<Finding>) {
    let mut by_stmt: std::collections::BTreeMap<u32, Vec<Model>> = Default::default();
    for o in r.outcomes {
        for f in &o.failures {
            by_stmt.entry(f.stmt).or_default().push(o.model);
        }
    }
    for (stmt, models) in by_stmt {
        let s = &p.stmts[stmt as usize];
        let kind = r
            .outcomes
            .iter()
            .flat_map(|o| &o.failures)
            .find(|f| f.stmt == stmt)
            .map(|f| f.kind.as_str())
            .unwrap_or("assertion failed");
        let sc =
            r.outcomes.iter().find(|o| o.model.is_reference()).filter(|_| !models.iter().any(|m| m.is_reference()));
        out.push(Finding {
            span: s.span,
            severity: Severity::Error,
            code: codes::FAILURE.code,
            message: words::failure(kind, &models, sc.map(|o| &o.coverage)),
            related: Vec::new(),
            help: None,
            about: Some(About::Failure { stmt }),
        });
    }
}

/// A final condition whose answer differs from SC's (both earned), or that
/// a witnessed state contradicts; one that divides by zero in a reachable
/// state.
fn conditions(p: &Program, r: Found<'_>, out: &mut Vec<Finding>) {
    sc_breaks_condition(p, r, out);
    if let (Some(c), Some(sc)) = (&p.condition, r.outcomes.iter().find(|o| o.model.is_reference())) {
        // Models that answer alike are one finding.
        let mut differing = Vec::new();
        for (mi, o) in r.outcomes.iter().enumerate().filter(|(_, o)| o.model.buffered()) {
            let (Some(obs), Some(sc_obs)) = (&o.observation, &sc.observation) else { continue };
            let fails = o.condition_fails(p);
            let differs = obs.is_known() && sc_obs.is_known() && obs.value() != sc_obs.value();
            if differs || (fails && !sc.condition_fails(p)) {
                differing.push(((fails, words::observation(obs)), mi));
            }
        }
        let sc_words = sc.observation.as_ref().map(words::observation).unwrap_or_default();
        for ((fails, obs), ms) in grouped(differing) {
            let names = words::models(ms.iter().map(|&mi| r.outcomes[mi].model));
            let counts: Vec<usize> = ms.iter().map(|&mi| r.outcomes[mi].states.len()).collect();
            let states = if counts.iter().all(|&n| n == counts[0]) {
                format!("{} states", counts[0])
            } else {
                let each: Vec<String> =
                    ms.iter().zip(&counts).map(|(&mi, n)| format!("{n} ({})", r.outcomes[mi].model.upper())).collect();
                format!("{} states", each.join(", "))
            };
            out.push(Finding {
                span: c.span,
                severity: if fails { Severity::Error } else { Severity::Warning },
                code: codes::CONDITION_DIFFERS.code,
                message: format!("{names}: observed {obs}, {states}; under SC {sc_words}"),
                related: Vec::new(),
                help: None,
                about: Some(About::ConditionDiffers { model: ms[0] }),
            });
        }
    }
    if let Some(c) = &p.condition {
        let models = words::models(r.outcomes.iter().filter(|o| !o.condition_errors.is_empty()).map(|o| o.model));
        if !models.is_empty() {
            out.push(Finding {
                span: c.span,
                severity: Severity::Error,
                code: codes::CONDITION_UNDEFINED.code,
                message: format!(
                    "division by zero: the final condition or filter is undefined in a final state reachable under {models}"
                ),
                related: Vec::new(),
                help: None,
                about: Some(About::ConditionUndefined),
            });
        }
    }
}

/// The SC outcome (its index) and its first final state that break the
/// condition's promise, if any: what E0305 is about.
pub fn sc_breaking_state(p: &Program, outcomes: &[ModelOutcome]) -> Option<(usize, usize)> {
    let (mi, sc) = outcomes.iter().enumerate().find(|(_, o)| o.model.is_reference())?;
    Some((mi, sc.first_breaking(p)?))
}

/// A promise (`forall`, `~exists`) that SC itself breaks: the program's
/// own bug, whatever the memory model, so an error on the condition with
/// SC's interleaving as its witness. (An `exists` is a question.)
fn sc_breaks_condition(p: &Program, r: Found<'_>, out: &mut Vec<Finding>) {
    let (Some(c), Some((mi, state))) = (&p.condition, sc_breaking_state(p, r.outcomes)) else { return };
    let sc = &r.outcomes[mi];
    let also: Vec<Model> =
        r.outcomes.iter().filter(|o| !o.model.is_reference() && o.condition_fails(p)).map(|o| o.model).collect();
    let also = if also.is_empty() { String::new() } else { format!(" (and under {})", words::models(also)) };
    let what = match c.quantifier {
        litmus_ir::Quantifier::NotExists => "is reachable",
        _ => "is reachable, where it does not hold",
    };
    out.push(Finding {
        span: c.span,
        severity: Severity::Error,
        code: codes::CONDITION_FAILS.code,
        message: format!(
            "`{} ({})` fails under SC{also}: {} {what} — the program's own bug, not the memory model's",
            c.quantifier.as_str(),
            c.text,
            words::state(p, &sc.states[state].values),
        ),
        related: witness_related(p, &sc.states[state].witness.events),
        help: None,
        about: Some(About::ConditionFails { model: mi, state }),
    });
}

/// A witness's statements in the order they ran, as related information
/// (the first 12 steps; the hover and `explain` have them all).
fn witness_related(p: &Program, events: &[Event]) -> Vec<(Span, String)> {
    let mut out: Vec<(Span, String)> = Vec::new();
    let mut last = None;
    for e in events {
        if e.stmt == litmus_checker::machine::NONE || last == Some((e.thread, e.stmt)) {
            continue;
        }
        last = Some((e.thread, e.stmt));
        let s = &p.stmts[e.stmt as usize];
        out.push((
            s.span,
            format!("{} {} `{}`", CIRCLED[out.len().min(19)], p.threads[e.thread as usize].name, s.text),
        ));
        if out.len() == 12 {
            break;
        }
    }
    out
}

/// Deadlocks, once for every model that has them, on the first thread's name.
fn deadlocks(p: &Program, r: Found<'_>, out: &mut Vec<Finding>) {
    let ms: Vec<usize> = (0..r.outcomes.len()).filter(|&mi| !r.outcomes[mi].deadlocks.is_empty()).collect();
    if let (Some(&first), Some(t)) = (ms.first(), p.threads.first()) {
        let names = words::models(ms.iter().map(|&mi| r.outcomes[mi].model));
        out.push(Finding {
            span: t.name_span,
            severity: Severity::Warning,
            code: codes::DEADLOCK.code,
            message: format!("{names}: some execution deadlocks (every unfinished thread waits forever)"),
            related: Vec::new(),
            help: None,
            about: Some(About::Deadlock { model: first }),
        });
    }
}

/// "insert `fence` after `x = 1`; …", for a violation's fences.
fn fix(p: &Program, fences: &[litmus_checker::violation::FencePoint]) -> Option<String> {
    (!fences.is_empty()).then(|| {
        let each: Vec<String> = fences
            .iter()
            .map(|f| format!("insert `{}` {}", words::fence_text(p, f.kind), words::fence_place(p, f)))
            .collect();
        each.join(", ")
    })
}
