//! The code lens on the test header: each model's verdict at a glance.

use litmus_checker::{Answer, Coverage, Model, Report, Why};
use litmus_ir::Span;
use litmus_present::findings::{Finding, Severity};
use litmus_present::words;

/// Where the header is: the `litmus NAME` line, or the architecture line.
pub fn header_span(src: &str) -> Span {
    let mut at = 0;
    for line in src.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("litmus") || t.starts_with("X86") {
            let start = at + (line.len() - t.len());
            return Span::new(start, at + line.trim_end().len());
        }
        at += line.len();
    }
    Span::new(0, 0)
}

/// A few words for a status bar, the worst finding first: the program's
/// own bug (a condition or assertion SC breaks), then harmful violations,
/// then the rest; `clean` when nothing is published.
pub fn headline(findings: &[Finding]) -> String {
    use litmus_present::codes;
    let count = |code: &str, sev: Option<Severity>| {
        findings.iter().filter(|f| f.code == code && sev.is_none_or(|s| f.severity == s)).count()
    };
    let plural = |n: usize, one: &str, many: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {many}") };
    let mut parts = Vec::new();
    if count(codes::CONDITION_FAILS.code, None) > 0 {
        parts.push("condition fails under SC".to_string());
    }
    let failures = count(codes::FAILURE.code, None);
    if failures > 0 {
        parts.push(plural(failures, "failing statement", "failing statements"));
    }
    let harmful = count(codes::VIOLATION.code, Some(Severity::Error))
        + count(codes::ACTIVE_VIOLATION.code, Some(Severity::Error));
    let other = count(codes::VIOLATION.code, Some(Severity::Warning))
        + count(codes::ACTIVE_VIOLATION.code, Some(Severity::Warning));
    if harmful > 0 {
        parts.push(plural(harmful, "harmful violation", "harmful violations"));
    }
    if other > 0 {
        parts.push(plural(other, "violation (not proved harmful)", "violations (not proved harmful)"));
    }
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    let counted = count(codes::CONDITION_FAILS.code, None) + failures + harmful;
    if parts.is_empty() && errors > counted {
        parts.push(plural(errors, "error", "errors"));
    }
    if parts.is_empty() {
        let warnings = findings.iter().filter(|f| f.severity == Severity::Warning).count();
        return if warnings > 0 { plural(warnings, "warning", "warnings") } else { "clean".into() };
    }
    parts.join(", ")
}

/// Is some answer of the report unknown for a reason `why` accepts (a
/// model's outcomes or its robustness stopped short)?
pub fn unknown(r: &Report, why: impl Fn(&Why) -> bool) -> bool {
    r.outcomes.iter().any(|o| matches!(&o.coverage, Coverage::Stopped(w) if why(w)))
        || r.robustness.iter().any(|rb| matches!(rb.robust(), Answer::Unknown(w) if why(&w)))
}

/// `SC never · TSO sometimes, 2 SC violations · PSO sometimes, 2 SC violations`.
/// A relaxed model whose outcomes are still being explored shows its
/// violations and `outcomes…`.
pub fn verdicts(r: Option<&Report>, checking: bool) -> String {
    let Some(r) = r else {
        return if checking {
            "litmus: checking…".into()
        } else {
            "litmus: not checked (fix the errors first)".into()
        };
    };
    let mut models: Vec<Model> =
        r.outcomes.iter().map(|o| o.model).chain(r.robustness.iter().map(|rb| rb.model)).collect();
    models.sort();
    models.dedup();
    // Each model's verdict, and what its exploration was worth where it has
    // no condition to qualify (said once when every model's is the same).
    let mut parts: Vec<(String, Option<String>)> = Vec::new();
    for m in models {
        let o = r.outcomes.iter().find(|o| o.model == m);
        let mut s = m.upper().to_string();
        match o {
            Some(o) => {
                if let Some(obs) = &o.observation {
                    s.push(' ');
                    s.push_str(&words::observation(obs));
                }
            }
            None => s.push_str(" outcomes…"),
        }
        if let Some(rb) = r.robustness.iter().find(|rb| rb.model == m) {
            s.push_str(", ");
            s.push_str(&words::robustness(rb));
        }
        let mut worth = None;
        if let Some(o) = o {
            if !o.failures.is_empty() {
                let n = o.failures.len();
                s.push_str(&format!(", {n} failing assertion{}", if n == 1 { "" } else { "s" }));
            }
            if o.observation.is_none() && !o.complete() {
                // No condition to qualify: say what the exploration was worth.
                worth = Some(o.coverage.qualifier());
            } else if o.observation.is_none() && m.is_reference() {
                // SC's answers (no condition): how far they reach.
                worth = o.iterations.describe();
            }
        }
        parts.push((s, worth));
    }
    let shared = (parts.len() > 1 && parts.iter().all(|(_, w)| w.is_some() && *w == parts[0].1))
        .then(|| parts[0].1.clone())
        .flatten();
    let mut parts: Vec<String> = parts
        .into_iter()
        .map(|(s, w)| match w.filter(|_| shared.is_none()) {
            Some(w) => format!("{s} ({w})"),
            None => s,
        })
        .collect();
    if checking && r.outcomes.len() >= parts.len() {
        parts.push("re-checking…".into());
    }
    match shared {
        Some(w) => format!("{} — each {w}", parts.join(" · ")),
        None => parts.join(" · "),
    }
}

#[cfg(test)]
mod tests {
    use litmus_checker::Model;

    #[test]
    fn what_every_models_exploration_was_worth_is_said_once() {
        // Dekker's loops are cut at the bound under every model: the lens
        // said "(within bounds: the loop bound cut 9 executions)" three times.
        let (_, _, r) = crate::test_support::checked("examples/dekker.litmus", &[Model::Sc, Model::Tso, Model::Pso]);
        let title = super::verdicts(Some(&r), false);
        assert_eq!(title.matches("the loop bound cut").count(), 1, "{title}");
        assert!(title.contains("— each within bounds"), "{title}");
        assert!(title.starts_with("SC") && title.contains("TSO") && title.contains("PSO"), "{title}");
    }
}
