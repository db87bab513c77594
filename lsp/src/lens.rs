//! The code lens on the test header: each model's verdict at a glance.

use litmus_checker::{Model, Report};
use litmus_dsl::Span;
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
    let mut parts = Vec::new();
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
        if let Some(o) = o {
            if !o.failures.is_empty() {
                let n = o.failures.len();
                s.push_str(&format!(", {n} failing assertion{}", if n == 1 { "" } else { "s" }));
            }
            if o.observation.is_none() && !o.complete() {
                // No condition to qualify: say what the exploration was worth.
                s.push_str(&format!(" ({})", o.coverage.qualifier()));
            } else if o.observation.is_none() && m.is_reference() {
                // SC's answers (no condition): how far they reach.
                if let Some(d) = o.iterations.describe() {
                    s.push_str(&format!(" ({d})"));
                }
            }
        }
        parts.push(s);
    }
    if checking && r.outcomes.len() >= parts.len() {
        parts.push("re-checking…".into());
    }
    parts.join(" · ")
}
