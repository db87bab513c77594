//! What porting a program from one model to another changes
//! ([`litmus_checker::port`]), in words: the verdict on executions, the
//! execution that shows it, the final states gained and lost. `litmus
//! port` prints these lines; the editor's "Port to another model" command
//! shows them as Markdown.

use crate::{narrate, words};
use litmus_checker::port::Port;
use litmus_checker::Answer;
use litmus_ir::Program;

/// The verdict on executions and how sure it is: ("robust", "proved"),
/// ("not robust", "proved"), ("unknown", why).
pub fn verdict(p: &Port) -> (&'static str, String) {
    match &p.executions {
        Answer::Proved(true) => ("robust", "proved".into()),
        Answer::WithinBounds(true, c) => ("robust", format!("within bounds: {}", c.describe())),
        Answer::Proved(false) | Answer::WithinBounds(false, _) => ("not robust", "proved".into()),
        Answer::Unknown(why) => ("unknown", why.describe()),
    }
}

/// One line of the report, and how far it is indented (0: a heading line,
/// 1: under it, 2: an execution's step or a state).
pub type Line = (usize, String);

/// The report: "executions: not robust against TSO under AARCH64
/// (proved)", the witness's steps, the final states each model reaches
/// that the other does not (`*`: the condition holds there).
pub fn lines(prog: &Program, p: &Port) -> Vec<Line> {
    let (from, to) = (p.from.upper(), p.to.upper());
    let mut out = Vec::new();
    let (word, how) = verdict(p);
    out.push((0, format!("executions: {word} against {from} under {to} ({how})")));
    if let Some(w) = &p.witness {
        out.push((0, format!("an execution {to} allows and {from} forbids (each thread in program order):")));
        for line in narrate::lines(prog, p.to, &w.events).into_iter().chain(narrate::coherence(prog, &w.events)) {
            out.push((2, line));
        }
    }
    let complete = if p.outcomes_complete() { "" } else { " (as far as the explorations went)" };
    let mut states = |what: String, o: &litmus_checker::ModelOutcome, at: &[usize]| {
        if at.is_empty() {
            out.push((0, format!("final states {what}: none{complete}")));
            return;
        }
        out.push((0, format!("final states {what}{complete}:")));
        for &i in at {
            let st = &o.states[i];
            let mark = if st.satisfies == Some(true) { "*" } else { " " };
            out.push((1, format!("{mark} {}", words::state(prog, &st.values))));
        }
    };
    states(format!("under {to}, not under {from}"), &p.to_outcome, &p.gained);
    states(format!("under {from}, not under {to}"), &p.from_outcome, &p.lost);
    out
}

/// The report as Markdown: a heading, the lines, steps and states in code.
pub fn markdown(prog: &Program, p: &Port) -> String {
    let mut md = format!("# {} — from {} to {}\n\n", prog.name, p.from.upper(), p.to.upper());
    let mut code = false;
    for (indent, line) in lines(prog, p) {
        match (indent, code) {
            (0, true) => {
                md.push_str("```\n\n");
                code = false;
            }
            (1 | 2, false) => {
                md.push_str("```\n");
                code = true;
            }
            _ => {}
        }
        if indent == 0 {
            md.push_str(&format!("{line}\n\n"));
        } else {
            md.push_str(&format!("{}{line}\n", "  ".repeat(indent - 1)));
        }
    }
    if code {
        md.push_str("```\n");
    }
    md
}
