//! The code lens on the test header: each model's verdict at a glance.

use litmus_checker::Report;
use litmus_dsl::Span;

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
pub fn verdicts(r: Option<&Report>, checking: bool) -> String {
    let Some(r) = r else {
        return if checking {
            "litmus: checking…".into()
        } else {
            "litmus: not checked (fix the errors first)".into()
        };
    };
    let mut parts = Vec::new();
    for o in &r.outcomes {
        let mut s = format!("{} {}", o.model.upper(), o.observation.map(|x| x.as_str()).unwrap_or(""));
        let s_trim = s.trim_end().to_string();
        s = s_trim;
        if let Some(rb) = r.robustness.iter().find(|rb| rb.model == o.model) {
            let n = rb.violations.len();
            if n == 0 {
                s.push_str(if rb.complete { ", robust" } else { ", robust within bounds" });
            } else {
                s.push_str(&format!(", {n} SC violation{}", if n == 1 { "" } else { "s" }));
            }
        }
        if !o.failures.is_empty() {
            s.push_str(&format!(
                ", {} failing assertion{}",
                o.failures.len(),
                if o.failures.len() == 1 { "" } else { "s" }
            ));
        }
        if !o.complete {
            s.push_str(" (within bounds)");
        }
        parts.push(s);
    }
    if checking {
        parts.push("re-checking…".into());
    }
    parts.join(" · ")
}
