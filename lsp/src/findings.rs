//! What the editor shows as diagnostics, before conversion to LSP types:
//! parse and analysis diagnostics (fast path), then what the checker found
//! (violations, failing assertions, conditions that differ from SC).

use litmus_checker::robust::Harm;
use litmus_checker::{Model, Observation, Report};
use litmus_dsl::{Analysis, Program, Quantifier, Span};

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

/// The statement a violation's store is delayed past: the next step of the
/// cycle in its thread.
pub fn delayed_past(v: &litmus_checker::Violation) -> litmus_dsl::ir::StmtId {
    v.cycle.get(1).filter(|s| s.thread == v.cycle[0].thread).map(|s| s.stmt).unwrap_or(v.access_stmt)
}

pub fn check_findings(p: &Program, r: &Report) -> Vec<Finding> {
    let mut out = Vec::new();
    for (mi, rb) in r.robustness.iter().enumerate() {
        for (vi, v) in rb.violations.iter().enumerate() {
            let store = &p.stmts[v.store_stmt as usize];
            let past = &p.stmts[delayed_past(v) as usize];
            let harm = match &v.harm {
                Harm::Fails { stmt, .. } => format!(" — harmful: `{}` can then fail", p.stmts[*stmt as usize].text),
                Harm::ChangesCondition { .. } => " — harmful: the final condition's answer changes".to_string(),
                Harm::Benign => " — benign".to_string(),
                Harm::Unknown => String::new(),
            };
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
                severity: if v.harm.is_harmful() { Severity::Error } else { Severity::Warning },
                code: "sc-violation".into(),
                message: format!("{}: `{}` may be delayed past `{}`{harm}", rb.model.upper(), store.text, past.text),
                related,
                data: Some(serde_json::json!({ "violation": [mi, vi] })),
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
    let checked_sc = r.outcomes.iter().any(|o| o.model == Model::Sc);
    for (stmt, models) in by_stmt {
        let s = &p.stmts[stmt as usize];
        let names: Vec<&str> = models.iter().map(|m| m.upper()).collect();
        let kind = r
            .outcomes
            .iter()
            .flat_map(|o| &o.failures)
            .find(|f| f.stmt == stmt)
            .map(|f| f.kind.as_str())
            .unwrap_or("assertion failed");
        let relaxed_only = checked_sc && !models.contains(&Model::Sc);
        out.push(Finding {
            span: s.span,
            severity: Severity::Error,
            code: "assertion".into(),
            message: format!(
                "{kind} under {}{}",
                names.join(", "),
                if relaxed_only { " (never under SC)" } else { "" }
            ),
            related: Vec::new(),
            data: None,
        });
    }
    // A final condition whose answer differs from SC's.
    if let (Some(c), Some(sc)) = (&p.condition, r.outcomes.iter().find(|o| o.model == Model::Sc)) {
        for o in r.outcomes.iter().filter(|o| o.model != Model::Sc) {
            if o.observation != sc.observation {
                let (obs, sc_obs) = (
                    o.observation.map(|x| x.as_str()).unwrap_or("-"),
                    sc.observation.map(|x| x.as_str()).unwrap_or("-"),
                );
                let fails = match c.quantifier {
                    Quantifier::NotExists => o.observation != Some(Observation::Never),
                    Quantifier::Forall => o.observation != Some(Observation::Always),
                    Quantifier::Exists => false,
                };
                out.push(Finding {
                    span: c.span,
                    severity: if fails { Severity::Error } else { Severity::Warning },
                    code: "condition".into(),
                    message: format!(
                        "{}: the condition is {obs} observed ({} states); under SC {sc_obs}",
                        o.model.upper(),
                        o.states.len()
                    ),
                    related: Vec::new(),
                    data: None,
                });
            }
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
