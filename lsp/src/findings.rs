//! What the editor shows as diagnostics, before conversion to LSP types:
//! parse and analysis diagnostics (fast path), then what the checker found
//! (violations, failing assertions, conditions that differ from SC).

use litmus_checker::harm::harmful;
use litmus_checker::{words, Model, Report};
use litmus_dsl::{Analysis, Program, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Information,
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub span: Span,
    pub severity: Severity,
    pub code: String,
    pub message: String,
    pub related: Vec<(Span, String)>,
    /// For a violation: `{"violation": [model index, violation index]}`.
    pub data: Option<serde_json::Value>,
}

pub fn analysis_findings(a: &Analysis) -> Vec<Finding> {
    a.diagnostics
        .iter()
        .map(|d| Finding {
            span: d.span,
            severity: if d.is_error() { Severity::Error } else { Severity::Warning },
            code: d.code.to_string(),
            message: match &d.help {
                Some(h) => format!("{}\n{}", d.message, h),
                None => d.message.clone(),
            },
            related: d.related.iter().map(|r| (r.span, r.message.clone())).collect(),
            data: None,
        })
        .collect()
}

pub const CIRCLED: [&str; 20] =
    ["①", "②", "③", "④", "⑤", "⑥", "⑦", "⑧", "⑨", "⑩", "⑪", "⑫", "⑬", "⑭", "⑮", "⑯", "⑰", "⑱", "⑲", "⑳"];

pub fn check_findings(p: &Program, r: &Report) -> Vec<Finding> {
    let mut out = Vec::new();
    for (mi, rb) in r.robustness.iter().enumerate() {
        for (vi, v) in rb.violations.iter().enumerate() {
            let store = &p.stmts[v.store_stmt as usize];
            let past = &p.stmts[v.delayed_past() as usize];
            let harm = format!(" — {}", words::harm(p, &v.harm));
            let k = v.cycle.len();
            let related = v
                .cycle
                .iter()
                .enumerate()
                .skip(1)
                .map(|(i, st)| {
                    let s = &p.stmts[st.stmt as usize];
                    let to = &p.stmts[v.cycle[(i + 1) % k].stmt as usize];
                    (
                        s.span,
                        format!(
                            "{} {} `{}` —{}→ `{}`",
                            CIRCLED[i.min(19)],
                            p.threads[st.thread as usize].name,
                            s.text,
                            st.edge.as_str(),
                            to.text
                        ),
                    )
                })
                .collect();
            out.push(Finding {
                span: store.span,
                severity: if harmful(&v.harm) { Severity::Error } else { Severity::Warning },
                code: "sc-violation".into(),
                message: format!("{}: `{}` may be delayed past `{}`{harm}", rb.model.upper(), store.text, past.text),
                related,
                data: Some(serde_json::json!({ "violation": [mi, vi] })),
            });
        }
    }
    // Cycles active testing confirmed (a file past the exhaustive budget).
    for a in r.active.iter().flat_map(|run| &run.models) {
        for c in a.cycles.iter().filter(|c| c.confirmations > 0) {
            let Some(w) = &c.witness else { continue };
            let steps: Vec<(u16, u32, &str)> = w
                .cycle
                .iter()
                .map(|&(i, e)| (w.events[i as usize].thread, w.events[i as usize].stmt, e.as_str()))
                .collect();
            let k = steps.len();
            let related = steps
                .iter()
                .enumerate()
                .skip(1)
                .map(|(i, &(t, stmt, edge))| {
                    let s = &p.stmts[stmt as usize];
                    let to = &p.stmts[steps[(i + 1) % k].1 as usize];
                    let label = format!(
                        "{} {} `{}` —{edge}→ `{}`",
                        CIRCLED[i.min(19)],
                        p.threads[t as usize].name,
                        s.text,
                        to.text
                    );
                    (s.span, label)
                })
                .collect();
            let first = &p.stmts[steps[0].1 as usize];
            out.push(Finding {
                span: first.span,
                severity: if w.bug.is_some() { Severity::Error } else { Severity::Warning },
                code: "sc-violation-active".into(),
                message: format!(
                    "{}: happens-before cycle found by active testing (created in {} of {} runs) — {}",
                    a.model.upper(),
                    c.confirmations,
                    c.trials,
                    words::active_bug(p, w.bug.as_ref())
                ),
                related,
                data: Some(serde_json::json!({ "replay": w.handle.to_string() })),
            });
        }
    }
    // Failing assertions, once per statement, naming every model.
    let mut by_stmt: std::collections::BTreeMap<u32, Vec<Model>> = Default::default();
    for o in &r.outcomes {
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
        let sc = r.outcomes.iter().find(|o| o.model == Model::Sc).filter(|_| !models.contains(&Model::Sc));
        out.push(Finding {
            span: s.span,
            severity: Severity::Error,
            code: "assertion".into(),
            message: words::failure(kind, &models, sc.map(|o| &o.coverage)),
            related: Vec::new(),
            data: None,
        });
    }
    // A final condition whose answer differs from SC's (both earned), or
    // that a witnessed state contradicts.
    if let (Some(c), Some(sc)) = (&p.condition, r.outcomes.iter().find(|o| o.model == Model::Sc)) {
        for o in r.outcomes.iter().filter(|o| o.model != Model::Sc) {
            let (Some(obs), Some(sc_obs)) = (&o.observation, &sc.observation) else { continue };
            let fails = o.condition_fails(p);
            let differs = obs.is_known() && sc_obs.is_known() && obs.value() != sc_obs.value();
            if differs || (fails && !sc.condition_fails(p)) {
                out.push(Finding {
                    span: c.span,
                    severity: if fails { Severity::Error } else { Severity::Warning },
                    code: "condition".into(),
                    message: format!(
                        "{}: observed {}, {} states; under SC {}",
                        o.model.upper(),
                        words::observation(obs),
                        o.states.len(),
                        words::observation(sc_obs)
                    ),
                    related: Vec::new(),
                    data: None,
                });
            }
        }
    }
    // A final condition (or filter) that divides by zero in a reachable state.
    if let Some(c) = &p.condition {
        let models: Vec<&str> =
            r.outcomes.iter().filter(|o| !o.condition_errors.is_empty()).map(|o| o.model.upper()).collect();
        if !models.is_empty() {
            out.push(Finding {
                span: c.span,
                severity: Severity::Error,
                code: "condition".into(),
                message: format!(
                    "division by zero: the final condition or filter is undefined in a final state reachable under {}",
                    models.join(", ")
                ),
                related: Vec::new(),
                data: None,
            });
        }
    }
    for o in &r.outcomes {
        if !o.deadlocks.is_empty() {
            if let Some(t) = p.threads.first() {
                out.push(Finding {
                    span: t.name_span,
                    severity: Severity::Warning,
                    code: "deadlock".into(),
                    message: format!(
                        "{}: some execution deadlocks (every unfinished thread waits forever)",
                        o.model.upper()
                    ),
                    related: Vec::new(),
                    data: None,
                });
            }
        }
    }
    out
}
