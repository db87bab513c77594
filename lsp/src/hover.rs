//! Hovers: on a flagged statement, the violation's cycle, harm and witness;
//! on a failing assertion, its witness; on a name, its declaration.

use litmus_checker::harm::harmful;
use litmus_checker::Report;
use litmus_dsl::Analysis;
use litmus_ir::{Program, Span};
use litmus_present::narrate;
use litmus_present::words;
use litmus_present::words::CIRCLED;
use std::fmt::Write;

fn contains(span: Span, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

/// Lines as links into the document (`uri#L8`, which VS Code opens at
/// the line), or as text when there is no URI.
#[derive(Clone, Copy)]
pub struct Lines<'a>(pub Option<&'a str>);

impl Lines<'_> {
    fn link(self, thread: &str, line: u32) -> String {
        match self.0 {
            Some(uri) => format!("[{thread} line {line}]({uri}#L{line})"),
            None => format!("{thread} line {line}"),
        }
    }
}

/// Markdown for the thing at `offset` of `text`, and the span it describes.
/// The editor shows a finding's diagnostic above the hover, so a hover on
/// a finding starts with what the diagnostic does not say: the cycle (or
/// the witness), then the fix.
pub fn hover(
    text: &str,
    analysis: &Analysis,
    report: Option<&Report>,
    offset: usize,
    lines: Lines<'_>,
) -> Option<(String, Span)> {
    if let (Some(p), Some(r)) = (&analysis.program, report) {
        if let Some(h) = violation_hover(p, r, offset, lines) {
            return Some(h);
        }
        if let Some(h) = header_hover(text, r, offset) {
            return Some(h);
        }
        if let Some(h) = failure_hover(p, r, offset, lines) {
            return Some(h);
        }
        if let Some(h) = condition_hover(p, r, offset, lines) {
            return Some(h);
        }
        if let Some(h) = forbidden_hover(p, r, offset) {
            return Some(h);
        }
    }
    if let Some(h) = analysis.program.as_ref().and_then(|p| spin_hover(p, offset)) {
        return Some(h);
    }
    let sym = analysis.symbols.at(offset)?;
    let span = std::iter::once(sym.def).chain(sym.refs.iter().copied()).find(|s| contains(*s, offset))?;
    let mut md = format!("```litmus\n{}\n```\n", sym.detail);
    let kind = match sym.kind {
        litmus_dsl::SymbolKind::Shared => "shared location",
        litmus_dsl::SymbolKind::Array => "shared array",
        litmus_dsl::SymbolKind::Register => "register",
        litmus_dsl::SymbolKind::Function => "function",
        litmus_dsl::SymbolKind::Param => "parameter",
        litmus_dsl::SymbolKind::Thread => "thread",
        litmus_dsl::SymbolKind::Label => "label",
    };
    let _ = write!(md, "\n{kind}");
    if let Some(scope) = &sym.scope {
        let _ = write!(md, " of `{scope}`");
    }
    let _ = write!(md, ", {} use{}", sym.refs.len(), if sym.refs.len() == 1 { "" } else { "s" });
    Some((md, span))
}

/// On the test's header: each model's verdict, and how far it reaches
/// ("robust for every iteration (proved: 342 states)", or why the bounded
/// engine answered).
fn header_hover(text: &str, r: &Report, offset: usize) -> Option<(String, Span)> {
    let span = crate::lens::header_span(text);
    if span.start == span.end || !contains(span, offset) {
        return None;
    }
    let mut md = String::from("**litmus**\n");
    for o in &r.outcomes {
        let mut line = format!("\n- **{}**", o.model.upper());
        if let Some(obs) = &o.observation {
            let _ = write!(line, " condition {}", words::observation(obs));
        }
        if let Some(rb) = r.robustness.iter().find(|rb| rb.model == o.model) {
            let _ = write!(line, "; {}", words::robustness(rb));
        }
        match o.iterations.describe() {
            Some(d) => {
                let _ = write!(line, " — {d}");
            }
            None if !o.complete() => {
                let _ = write!(line, " — {}", o.coverage.qualifier());
            }
            None => {}
        }
        md.push_str(&line);
    }
    Some((md, span))
}

/// On the `while` of a loop lowered as a spin: what that means for the user.
fn spin_hover(p: &Program, offset: usize) -> Option<(String, Span)> {
    p.spins.iter().map(|&id| &p.stmts[id as usize]).find_map(|s| {
        let keyword = Span::new(s.span.start, s.span.start + "while".len());
        contains(keyword, offset).then(|| {
            let md = "**spin loop**: it only re-reads until its condition fails, so only its final \
                      iteration is explored (one attempt, like `await`). It is never cut by the loop bound; \
                      if it can never exit, the execution is reported as a deadlock.";
            (md.to_string(), keyword)
        })
    })
}

fn violation_hover(p: &Program, r: &Report, offset: usize, lines: Lines<'_>) -> Option<(String, Span)> {
    let mut md = String::new();
    let mut span = None;
    // The same cycle found under several models is shown once, naming them all.
    let key = |v: &litmus_checker::Violation| v.cycle.iter().map(|s| (s.stmt, s.edge.as_str())).collect::<Vec<_>>();
    let mut shown: Vec<Vec<(u32, &str)>> = Vec::new();
    for rb in &r.robustness {
        for v in &rb.violations {
            let store = &p.stmts[v.store_stmt as usize];
            if !contains(store.span, offset) || shown.contains(&key(v)) {
                continue;
            }
            shown.push(key(v));
            let models: Vec<&str> = r
                .robustness
                .iter()
                .filter(|o| o.violations.iter().any(|w| key(w) == key(v)))
                .map(|o| o.model.upper())
                .collect();
            span = Some(store.span);
            let past = &p.stmts[v.delayed_past() as usize];
            let harm =
                if harmful(&v.harm) { format!("**{}**", words::harm(p, &v.harm)) } else { words::harm(p, &v.harm) };
            let _ = writeln!(
                md,
                "**{} cycle** (`{}` delayed past `{}`) — {harm}\n",
                models.join("/"),
                store.text,
                past.text
            );
            let k = v.cycle.len();
            for (i, st) in v.cycle.iter().enumerate() {
                let s = &p.stmts[st.stmt as usize];
                let back = if i + 1 == k { " ①" } else { "" };
                let _ = writeln!(
                    md,
                    "{} {}: `{}` —{}→{back}  ",
                    CIRCLED[i.min(19)],
                    lines.link(&p.threads[st.thread as usize].name, s.line),
                    s.text,
                    st.edge.as_str()
                );
            }
            for line in words::axioms(p, v) {
                let _ = writeln!(md, "\n**Axiom** {line}.");
            }
            if !rb.repairs.is_empty() {
                let cost: u32 = rb.repairs.iter().map(|x| x.cost).sum();
                let list: Vec<String> = rb.repairs.iter().map(|x| words::repair(p, x)).collect();
                let _ = writeln!(
                    md,
                    "\n**Fix**: the {}repair under {} (cost {cost}): {} — {}{}.",
                    if rb.fences_minimal { "cheapest " } else { "" },
                    rb.model.upper(),
                    list.join(", "),
                    words::confirmation(&rb.fences_confirmed),
                    if rb.fences_confirmed.is(&true) { " (quick fix available)" } else { "" }
                );
            } else if !rb.violations.is_empty() && v.fence.is_empty() {
                if let litmus_checker::Answer::Unknown(why) = &rb.fences_confirmed {
                    let _ = writeln!(md, "\n**Fix**: none yet: {}.", why.describe());
                }
            }
            for f in &v.fence {
                let _ = writeln!(
                    md,
                    "\n**Fix**: insert `{}` {} — {}{}.",
                    words::fence_text(p, f.kind),
                    words::fence_place(p, f),
                    words::confirmation(&rb.fences_confirmed),
                    if rb.fences_confirmed.is(&true) { " (quick fix available)" } else { "" }
                );
            }
            witness(&mut md, p, rb.model, &v.witness.events, 16);
            let _ = writeln!(md, "\n---\n");
        }
    }
    span.map(|s| (md.trim_end().trim_end_matches("---").trim_end().to_string(), s))
}

/// The witness in steps, the first `max` of them (the rest counted).
fn witness(
    md: &mut String,
    p: &Program,
    model: litmus_checker::Model,
    events: &[litmus_checker::machine::Event],
    max: usize,
) {
    let steps = narrate::lines(p, model, events);
    let _ = writeln!(md, "\nWitness under {} ({} steps):\n\n```text", model.upper(), steps.len());
    for line in steps.iter().take(max) {
        let _ = writeln!(md, "{line}");
    }
    if steps.len() > max {
        let _ = writeln!(md, "… {} more (Show execution draws them all)", steps.len() - max);
    }
    let _ = writeln!(md, "```");
}

fn failure_hover(p: &Program, r: &Report, offset: usize, lines: Lines<'_>) -> Option<(String, Span)> {
    for o in &r.outcomes {
        for f in &o.failures {
            let s = &p.stmts[f.stmt as usize];
            if !contains(s.span, offset) {
                continue;
            }
            let mut md = format!(
                "**{} under {}**: `{}` fails in {}\n",
                f.kind.as_str(),
                o.model.upper(),
                s.text,
                lines.link(&p.threads[f.thread as usize].name, s.line)
            );
            witness(&mut md, p, o.model, &f.witness.events, 30);
            return Some((md.trim_end().to_string(), s.span));
        }
    }
    None
}

/// On a condition SC breaks (E0305): the interleaving that breaks it and
/// the final state it reaches.
fn condition_hover(p: &Program, r: &Report, offset: usize, lines: Lines<'_>) -> Option<(String, Span)> {
    let c = p.condition.as_ref().filter(|c| contains(c.span, offset))?;
    let (model, state) = crate::execution::condition_witness(p, r)?;
    let events = &state.witness.events;
    let mut md = format!(
        "**The program's own bug**: an interleaving of the program as written (SC) ends in {}, where `{} ({})` does not hold.\n\nIts statements in order:\n\n",
        words::state(p, &state.values),
        c.quantifier.as_str(),
        c.text
    );
    let mut last = None;
    for e in events {
        if last == Some((e.thread, e.stmt)) {
            continue;
        }
        last = Some((e.thread, e.stmt));
        let s = &p.stmts[e.stmt as usize];
        let _ = writeln!(md, "- {}: `{}`", lines.link(&p.threads[e.thread as usize].name, s.line), s.text);
    }
    witness(&mut md, p, model, events, 30);
    Some((md.trim_end().to_string(), c.span))
}

/// On a condition a model given as data never lets hold: the axioms a
/// candidate that reaches it fails, each with its cycle in the model's own
/// relations (herd7's "Forbidden", said why).
fn forbidden_hover(p: &Program, r: &Report, offset: usize) -> Option<(String, Span)> {
    let c = p.condition.as_ref().filter(|c| contains(c.span, offset))?;
    let mut md = String::new();
    for o in &r.outcomes {
        let Some(f) = &o.forbidden else { continue };
        let _ = writeln!(
            md,
            "**Forbidden under {}**: a candidate execution that reaches `{} ({})` fails
",
            o.model.upper(),
            c.quantifier.as_str(),
            c.text
        );
        for line in words::forbidden(p, f) {
            let _ = writeln!(md, "- **Axiom** {line}");
        }
        md.push('\n');
    }
    (!md.is_empty()).then(|| (md.trim_end().to_string(), c.span))
}

#[cfg(test)]
mod tests {
    use super::{hover, Lines};

    #[test]
    fn the_while_of_a_reduced_spin_says_so() {
        let src = "litmus T\nshared x = 0;\nthread P0 {\n  let f = x;\n  while (f == 0) { f = x; }\n  while (f == 1) { x = 2; f = x; }\n}\n";
        let a = litmus_dsl::analyze(src);
        let at = |nth: usize| src.match_indices("while").nth(nth).unwrap().0 + 2;
        let (md, span) = hover(src, &a, None, at(0), Lines(None)).expect("a hover on the spin's `while`");
        assert!(md.contains("spin loop") && md.contains("deadlock"), "{md}");
        assert_eq!(&src[span.start..span.end], "while");
        // A loop that stores is explored as written: no such hover.
        assert!(hover(src, &a, None, at(1), Lines(None)).is_none_or(|(md, _)| !md.contains("spin loop")));
    }
}
