//! Inlay hints, before conversion: after each load the values it may read
//! per model, and after the final condition its answer per model — read off
//! the check already done (no second run).
//!
//! Wording: SC's set comes first, unnamed; then each group of models whose
//! set differs from SC's, named (`r0 ∈ {1} · TSO/PSO {0,1}`). When every
//! model agrees there is one set (`r0 ∈ {0,1}`). A set from a search that
//! was cut or stopped starts with `≥` (there may be more); the tooltip
//! says what each search was worth. While a model's outcomes are still being
//! explored (the report of the first phase has only SC's) it is named with
//! `…` — a lone SC set would claim that every model agrees.

use litmus_checker::{Model, ModelOutcome, Report};
use litmus_ir::{Dialect, Instr, Program, StmtId};
use litmus_present::words;

/// One hint: where (a byte offset, the hint goes after it), its label and
/// tooltip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub at: usize,
    pub label: String,
    pub tooltip: String,
}

/// The hints of a checked program within the byte range `[from, to)`.
pub fn hints(src: &str, prog: &Program, r: &Report, from: usize, to: usize) -> Vec<Hint> {
    let mut out = Vec::new();
    let outcomes: Vec<&ModelOutcome> = ordered(r);
    if outcomes.is_empty() {
        return out;
    }
    let pending = pending(r);
    for stmt in loads(prog) {
        let info = &prog.stmts[stmt as usize];
        // A herd test's table keeps its columns: its hints go at the end of
        // the row, not between the threads' instructions.
        let at = match prog.dialect {
            Dialect::HerdX86 | Dialect::HerdRiscv | Dialect::HerdAArch64 => line_end(src, info.span.end),
            Dialect::Native | Dialect::HerdC => after_semicolon(src, info.span.end),
        };
        if at < from || at > to {
            continue;
        }
        if let Some(h) = load_hint(prog, &outcomes, &pending, stmt, at) {
            out.push(h);
        }
    }
    if let Some(c) = &prog.condition {
        let at = after_semicolon(src, c.span.end);
        if at >= from && at <= to {
            if let Some(h) = condition_hint(&outcomes, &pending, at) {
                out.push(h);
            }
        }
    }
    out
}

/// The outcomes in model order (SC first).
fn ordered(r: &Report) -> Vec<&ModelOutcome> {
    let mut v: Vec<&ModelOutcome> = r.outcomes.iter().collect();
    v.sort_by_key(|o| o.model);
    v
}

/// Models the check decides robustness for whose outcomes are not in yet.
fn pending(r: &Report) -> Vec<Model> {
    let mut v: Vec<Model> =
        r.robustness.iter().map(|rb| rb.model).filter(|m| !r.outcomes.iter().any(|o| o.model == *m)).collect();
    v.sort();
    v.dedup();
    v
}

/// ` · TSO/PSO …` for the models still being explored.
fn pending_label(pending: &[Model]) -> String {
    if pending.is_empty() {
        return String::new();
    }
    format!(" · {} …", pending.iter().map(|m| m.upper()).collect::<Vec<_>>().join("/"))
}

fn pending_tooltip(tooltip: &mut String, pending: &[Model]) {
    for m in pending {
        tooltip.push_str(&format!("\n- {}: still being explored", m.upper()));
    }
}

/// The statements with a load instruction, each once, in order.
fn loads(prog: &Program) -> Vec<StmtId> {
    let mut v: Vec<StmtId> = prog
        .threads
        .iter()
        .flat_map(|t| &t.code)
        .filter_map(|i| match i {
            Instr::Load { stmt, .. } => Some(*stmt),
            _ => None,
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The end of the line holding byte `at` (before its line break).
fn line_end(src: &str, at: usize) -> usize {
    let at = at.min(src.len());
    src[at..].find(['\n', '\r']).map_or(src.len(), |i| at + i)
}

/// After the statement's `;`; or, when a `//` comment ends the line, after
/// the comment, so the hint never pushes (hand-aligned) comments aside.
fn after_semicolon(src: &str, end: usize) -> usize {
    let end = end.min(src.len());
    let end = if src[end..].starts_with(';') { end + 1 } else { end };
    let eol = line_end(src, end);
    if src[end..eol].trim_start().starts_with("//") {
        eol
    } else {
        end
    }
}

/// What the hint names: the register the load reads into (a herd test's
/// with its thread, as its condition names it: `1:eax`), else the location
/// read.
fn target(prog: &Program, stmt: StmtId, locations: &[String]) -> String {
    match litmus_checker::reads::register(prog, stmt) {
        Some(reg) if prog.dialect.is_herd() => format!("{}:{reg}", prog.stmts[stmt as usize].thread),
        Some(reg) => reg,
        None => locations.join(","),
    }
}

/// Per model, the short set of one statement's values (cells of one
/// location are one load: `a[i]` — their values are merged).
fn sets(o: &ModelOutcome, stmt: StmtId) -> (String, String) {
    let mut merged: Option<litmus_checker::reads::ValueSet> = None;
    for (_, v) in o.reads.of(stmt) {
        merged.get_or_insert_with(Default::default).union(v);
    }
    (words::values(merged.as_ref(), &o.coverage), words::values_long(merged.as_ref(), &o.coverage))
}

fn location_names(prog: &Program, outcomes: &[&ModelOutcome], stmt: StmtId) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for o in outcomes {
        for (cell, _) in o.reads.of(stmt) {
            let n = prog.cell_name(*cell);
            let base = n.split('[').next().unwrap_or(&n).to_string();
            if !names.contains(&base) {
                names.push(base);
            }
        }
    }
    names
}

fn load_hint(prog: &Program, outcomes: &[&ModelOutcome], pending: &[Model], stmt: StmtId, at: usize) -> Option<Hint> {
    let locations = location_names(prog, outcomes, stmt);
    if locations.len() > 1 {
        // `let r = x + y`: the register is not what was read; one hint per
        // location would be noise, the tooltip of the lens says the rest.
        return None;
    }
    let name = target(prog, stmt, &locations);
    if name.is_empty() {
        // Nothing it read was recorded and it names no register (an
        // `await`'s load): no hint rather than ` ∈ ≥{}`.
        return None;
    }
    let per: Vec<(Model, String, String)> = outcomes
        .iter()
        .map(|o| {
            let (s, l) = sets(o, stmt);
            (o.model, s, l)
        })
        .collect();
    let label = format!("{name} ∈ {}{}", grouped(&per), pending_label(pending));
    let mut tooltip = format!("Values `{name}` may read ({}):", prog.stmts[stmt as usize].text);
    for (m, _, long) in &per {
        tooltip.push_str(&format!("\n- {}: {long}", m.upper()));
    }
    pending_tooltip(&mut tooltip, pending);
    Some(Hint { at, label, tooltip })
}

/// `{1} · TSO/PSO {0,1}`: the first model's value unnamed, then each group
/// of models whose value differs from it (one value: just it).
fn grouped(per: &[(Model, String, String)]) -> String {
    let base = &per[0];
    let mut groups: Vec<(Vec<Model>, &str)> = Vec::new();
    for (m, s, _) in &per[1..] {
        if s == &base.1 {
            continue;
        }
        match groups.iter_mut().find(|g| g.1 == s) {
            Some(g) => g.0.push(*m),
            None => groups.push((vec![*m], s)),
        }
    }
    let mut out = if base.0.is_reference() || groups.is_empty() {
        base.1.clone()
    } else {
        format!("{} {}", base.0.upper(), base.1)
    };
    for (ms, s) in groups {
        let names: Vec<&str> = ms.iter().map(|m| m.upper()).collect();
        out.push_str(&format!(" · {} {s}", names.join("/")));
    }
    out
}

/// `SC never · TSO/PSO sometimes`: the condition's answer per model, models
/// with the same answer grouped; `?` marks an answer within bounds.
fn condition_hint(outcomes: &[&ModelOutcome], pending: &[Model], at: usize) -> Option<Hint> {
    let mut groups: Vec<(Vec<Model>, String)> = Vec::new();
    let mut tooltip = String::from("The final condition's answer per model:");
    for o in outcomes {
        let a = o.observation.as_ref()?;
        let short = match a {
            litmus_checker::Answer::Proved(v) => v.as_str().to_string(),
            litmus_checker::Answer::WithinBounds(v, _) => format!("{}?", v.as_str()),
            litmus_checker::Answer::Unknown(_) => "unknown".into(),
        };
        tooltip.push_str(&format!("\n- {}: {}", o.model.upper(), words::observation(a)));
        match groups.iter_mut().find(|g| g.1 == short) {
            Some(g) => g.0.push(o.model),
            None => groups.push((vec![o.model], short)),
        }
    }
    let label = groups
        .iter()
        .map(|(ms, s)| format!("{} {s}", ms.iter().map(|m| m.upper()).collect::<Vec<_>>().join("/")))
        .collect::<Vec<_>>()
        .join(" · ")
        + &pending_label(pending);
    pending_tooltip(&mut tooltip, pending);
    Some(Hint { at, label, tooltip })
}

#[cfg(test)]
mod tests {
    use super::hints;
    use litmus_checker::{check_all, check_robustness, find_violations, Model, MonitorKind, Options};

    fn labels(src: &str, report: &litmus_checker::Report, prog: &litmus_ir::Program) -> Vec<String> {
        hints(src, prog, report, 0, src.len()).into_iter().map(|h| h.label + " | " + &h.tooltip).collect()
    }

    #[test]
    fn models_still_being_explored_are_named_pending_not_left_out() {
        let (src, prog) = crate::test_support::load("examples/mp.litmus");
        let prog = &prog;
        let models = [Model::Sc, Model::Tso, Model::Pso];
        let opts = Options::default();
        // The first phase: SC's outcomes only, robustness for TSO and PSO.
        // Then harm and fences, still without the relaxed outcomes.
        for partial in [
            find_violations(prog, &models, MonitorKind::Bss, &opts),
            check_robustness(prog, &models, MonitorKind::Bss, &opts),
        ] {
            let got = labels(&src, &partial, prog);
            assert_eq!(got.len(), 3, "two loads and the condition: {got:#?}");
            for l in &got {
                let (label, tooltip) = l.split_once(" | ").unwrap();
                assert!(label.ends_with(" · TSO/PSO …"), "{label}");
                assert!(tooltip.contains("- TSO: still being explored"), "{tooltip}");
            }
        }
        // The whole check: no pending model.
        let whole = check_all(prog, &models, MonitorKind::Bss, &opts);
        let got = labels(&src, &whole, prog);
        assert!(got.iter().all(|l| !l.contains('…') && !l.contains("still being explored")), "{got:#?}");
        assert!(got.iter().any(|l| l.starts_with("SC/TSO never · PSO sometimes |")), "{got:#?}");
    }

    #[test]
    fn a_hint_goes_after_a_line_comment_not_before_it() {
        let src = "let r0 = y;   // aligned\nlet r1 = x;\n";
        let first = src.find(';').unwrap();
        assert_eq!(super::after_semicolon(src, first), src.find('\n').unwrap());
        let second = src.rfind(';').unwrap();
        assert_eq!(super::after_semicolon(src, second), second + 1);
    }

    #[test]
    fn an_await_gets_no_nameless_empty_hint() {
        // dekker's `await (turn == 0);` showed ` ∈ ≥{}`.
        let (src, prog, r) =
            crate::test_support::checked("examples/dekker.litmus", &[Model::Sc, Model::Tso, Model::Pso]);
        let got = labels(&src, &r, &prog);
        assert!(!got.is_empty());
        for l in &got {
            let label = l.split_once(" | ").unwrap().0;
            assert!(!label.starts_with(' ') && !label.contains("{}"), "{label:?} in {got:#?}");
        }
    }

    #[test]
    fn a_herd_tests_hints_name_the_threads_register_at_the_rows_end() {
        let (src, prog, r) = crate::test_support::checked(
            "tests/corpus/herd-x86/catalogue__x86_64__tests__MP.litmus",
            &[Model::Sc, Model::Tso],
        );
        let hs = hints(&src, &prog, &r, 0, src.len());
        let loads: Vec<&super::Hint> = hs.iter().filter(|h| h.label.contains('∈')).collect();
        assert_eq!(loads.iter().map(|h| h.label.as_str()).collect::<Vec<_>>(), ["1:eax ∈ {0,1}", "1:ebx ∈ {0,1}"]);
        for h in loads {
            // At the end of its row: the table's columns stay aligned.
            assert!(src[h.at..].starts_with('\n'), "{:?}", &src[h.at.saturating_sub(20)..h.at]);
        }
    }
}
