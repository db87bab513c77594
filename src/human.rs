//! Human output of `litmus check`: herd-like per-model answers, the final
//! states by model, and each finding (the editor's, from
//! `litmus_present::findings`) with a witness over the source lines.

use crate::check::Checked;
use litmus_checker::machine::Event;
use litmus_checker::outcome::Witness;
use litmus_checker::{Coverage, Model, ModelOutcome, MonitorKind, Observation, Robustness};
use litmus_dsl::diagnostic::{render as render_diags, Diagnostic};
use litmus_ir::Program;
use litmus_present::findings::{check_findings, About, Found, Members, Severity};
use litmus_present::{narrate, words};
use std::collections::BTreeMap;
use std::fmt::Write;

pub struct Rendered {
    pub stdout: String,
    pub stderr: String,
}

fn bold(s: &str, color: bool) -> String {
    if color {
        format!("\x1b[1m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

/// `timing`: wall times in the text (off with `--no-timing`, so two runs
/// compare byte for byte).
pub fn render(c: &Checked, color: bool, timing: bool) -> Rendered {
    let l = &c.loaded;
    let a = &l.analysis;
    let mut stderr = String::new();
    if !a.diagnostics.is_empty() {
        stderr.push_str(&render_diags(&a.diagnostics, &l.path, &l.src, color));
    }
    let mut out = String::new();
    let Some(p) = &a.program else {
        let n = a.diagnostics.iter().filter(|d| d.is_error()).count();
        let _ = writeln!(out, "{}: {n} error{}, not checked", l.path, if n == 1 { "" } else { "s" });
        return Rendered { stdout: out, stderr };
    };
    let doc = p.doc.as_ref().map(|d| format!(" \"{d}\"")).unwrap_or_default();
    let _ = writeln!(
        out,
        "{} — {}{doc} ({}, {} thread{})",
        bold(&l.path, color),
        p.name,
        p.dialect.as_str(),
        p.threads.len(),
        if p.threads.len() == 1 { "" } else { "s" }
    );
    let sc = c.outcomes.iter().find(|o| o.model.is_reference());
    if let Some(cond) = &p.condition {
        let _ = writeln!(out, "  {} ({})", cond.quantifier.as_str(), cond.text);
    }
    for o in &c.outcomes {
        let rob = c.robustness.iter().find(|r| r.model == o.model);
        let _ = writeln!(out, "    {}", model_line(o, sc, rob, timing));
    }
    if let Some(run) = &c.active {
        let why = if c.outcomes.is_empty() { "active mode" } else { "exhaustive checking did not finish" };
        let _ = writeln!(
            out,
            "  active testing ({why}; RELAXER: {} SC runs predicted {} cycle{} — {}{}):",
            run.prediction.runs,
            run.prediction.cycles.len(),
            if run.prediction.cycles.len() == 1 { "" } else { "s" },
            words::cycle_lengths(&run.prediction),
            if timing { format!(" in {:.1} ms", run.prediction.time.as_secs_f64() * 1e3) } else { String::new() }
        );
        for a in &run.models {
            let _ = writeln!(
                out,
                "    {:<4} {}{}",
                a.model.upper(),
                words::active(a, run.prediction_for(a.model).cycles.len()),
                if timing { format!("  [{:.1} ms]", a.time.as_secs_f64() * 1e3) } else { String::new() }
            );
        }
    }
    if p.condition.is_some() || !p.observables.is_empty() {
        states_table(&mut out, p, &c.outcomes);
        forbidden(&mut out, p, &c.outcomes);
    }
    findings(&mut out, c, p, color);
    fences(&mut out, c, p);
    // Why the unbounded procedure did not decide (once per reason).
    let mut reasons: Vec<&str> = Vec::new();
    for r in c.outcomes.iter().map(|o| &o.iterations).chain(c.robustness.iter().map(|r| &r.iterations)) {
        if let Some(why) = r.reason().filter(|w| !reasons.contains(w)) {
            reasons.push(why);
            let _ = writeln!(out, "  note: {why}");
        }
    }
    // A monitor that is not complete for a model did not decide it alone.
    for rb in c.robustness.iter().filter(|rb| !rb.monitor.complete_for(rb.model)) {
        let _ = writeln!(out, "  note: {}", words::cross_check(rb));
    }
    for o in &c.outcomes {
        let caveat = words::caveat(&o.coverage);
        if !caveat.is_empty() {
            // The bound that cut, by its value (`--loop-bound`).
            let bound = match o.coverage {
                Coverage::Bounded(cuts) if cuts.loop_bound > 0 => format!(" (loop bound {})", c.loop_bound),
                _ => String::new(),
            };
            let _ = writeln!(out, "  note: {}'s exploration is {caveat}{bound}", o.model.upper());
        }
    }
    if let Some(rb) = c.robustness.iter().find(|r| !matches!(r.monitor, MonitorKind::Explicit | MonitorKind::Graph)) {
        // TSO's and PSO's robustness rests on the one SC exploration (PSLO's
        // on its own, whose note is its model's above).
        let caveat = words::caveat(&rb.coverage);
        if !caveat.is_empty() && sc.is_none() {
            let _ = writeln!(out, "  note: the SC exploration the monitors rode on is {caveat}");
        }
    }
    Rendered { stdout: out, stderr }
}

fn model_line(o: &ModelOutcome, sc: Option<&ModelOutcome>, rob: Option<&Robustness>, timing: bool) -> String {
    let obs = match &o.observation {
        Some(a) => words::observation(a),
        None => "-".into(),
    };
    let n = o.states.len();
    let mut s = format!("{:<4} {:<28} {:>3} state{}", o.model.upper(), obs, n, if n == 1 { " " } else { "s" });
    // Compare with SC only as far as SC's exploration earned it.
    if let (Some(sc), true) = (sc, o.model.buffered()) {
        let new = o.states.iter().filter(|st| !sc.states.iter().any(|x| x.values == st.values)).count();
        if new > 0 {
            match sc.coverage {
                Coverage::Complete => {
                    let _ = write!(s, "  ({new} not reachable under SC)");
                }
                Coverage::Bounded(_) => {
                    let _ = write!(s, "  ({new} not reached under SC within bounds)");
                }
                Coverage::Stopped(_) => {}
            }
        }
    }
    let fails = o.failures.len();
    if fails > 0 {
        let _ = write!(s, "  {fails} failing assertion{}", if fails == 1 { "" } else { "s" });
    }
    if !o.deadlocks.is_empty() {
        s.push_str("  deadlock");
    }
    if !o.condition_errors.is_empty() {
        s.push_str("  the condition divides by zero");
    }
    if !o.flags.is_empty() {
        let _ = write!(s, "  flagged: {} (some allowed execution)", o.flags.join(", "));
    }
    if let Some(r) = rob {
        let _ = write!(s, "  {}", words::robustness(r));
    }
    match &o.iterations {
        litmus_checker::Iterations::Every { states, loops } => {
            let _ = write!(
                s,
                "  [{} states{}, proved{}]",
                litmus_checker::progress::thousands(*states),
                ms(o.elapsed, timing),
                if *loops { " for every iteration" } else { "" }
            );
        }
        // A stateful search counts states, not executions.
        _ if o.stats.states > 0 => {
            let _ = write!(
                s,
                "  [{} states{}{}]",
                litmus_checker::progress::thousands(o.stats.states),
                ms(o.elapsed, timing),
                match o.coverage {
                    Coverage::Complete => "",
                    Coverage::Bounded(_) => ", within bounds",
                    Coverage::Stopped(_) => ", stopped",
                }
            );
        }
        _ => {
            let _ = write!(
                s,
                "  [{} executions{}{}]",
                o.stats.executions,
                ms(o.elapsed, timing),
                match o.coverage {
                    Coverage::Complete => "",
                    Coverage::Bounded(_) => ", within bounds",
                    Coverage::Stopped(_) => ", stopped",
                }
            );
        }
    }
    s
}

/// Why each model given as data forbids the condition's outcome: the
/// axioms a candidate that reaches it fails, each with its cycle.
fn forbidden(out: &mut String, p: &Program, outcomes: &[ModelOutcome]) {
    for o in outcomes {
        let Some(f) = &o.forbidden else { continue };
        let _ =
            writeln!(out, "  {} forbids the condition's outcome; a candidate that reaches it fails:", o.model.upper());
        for line in words::forbidden(p, f) {
            let _ = writeln!(out, "    {line}");
        }
    }
}

fn states_table(out: &mut String, p: &Program, outcomes: &[ModelOutcome]) {
    let mut rows: BTreeMap<Vec<i64>, (Option<bool>, Vec<Model>)> = BTreeMap::new();
    for o in outcomes {
        for s in &o.states {
            let e = rows.entry(s.values.clone()).or_insert((s.satisfies, Vec::new()));
            e.1.push(o.model);
        }
    }
    if rows.is_empty() || p.observables.is_empty() {
        return;
    }
    let _ = writeln!(out, "  final states (* = the condition holds):");
    let texts: Vec<String> = rows
        .keys()
        .map(|vals| {
            p.observables
                .iter()
                .zip(vals)
                .map(|(o, v)| format!("{}={}", o.name, p.show_value(*v)))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let w = texts.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    let total = rows.len();
    for ((_, (sat, models)), text) in rows.iter().zip(&texts).take(32) {
        let mark = if *sat == Some(true) { "*" } else { " " };
        let cols: Vec<String> = outcomes
            .iter()
            .map(|o| if models.contains(&o.model) { format!("{:<3}", o.model.upper()) } else { " - ".into() })
            .collect();
        let _ = writeln!(out, "    {mark} {text:<w$}   {}", cols.join(" "));
    }
    if total > 32 {
        let _ = writeln!(out, "    … and {} more", total - 32);
    }
}

/// A final state under `o` whose condition value SC never reaches.
fn witness_of_difference<'a>(o: &'a ModelOutcome, sc: &ModelOutcome) -> Option<&'a Witness> {
    o.states
        .iter()
        .filter(|s| !sc.states.iter().any(|x| x.values == s.values))
        .find(|s| s.satisfies == Some(true) || sc.known_observation() == Some(Observation::Always))
        .map(|s| &s.witness)
}

/// Each finding (derived once, in `litmus_present::findings`, as the
/// editor gets them) drawn over the source, with what the terminal adds:
/// the witness step by step, or the command that shows or replays it.
fn findings(out: &mut String, c: &Checked, p: &Program, color: bool) {
    let l = &c.loaded;
    let found = Found { outcomes: &c.outcomes, robustness: &c.robustness, active: c.active.as_ref() };
    for f in check_findings(p, found, Members::Off) {
        let mut d = match f.severity {
            Severity::Error => Diagnostic::error(f.code, f.span, &f.message),
            _ => Diagnostic::warning(f.code, f.span, &f.message),
        };
        for (span, m) in &f.related {
            d = d.with_related(*span, m);
        }
        if let Some(h) = &f.help {
            d = d.with_help(h);
        }
        if let Some(label) = f.about.as_ref().and_then(|a| label(c, p, a)) {
            d = d.with_label(label);
        }
        let _ = writeln!(out);
        out.push_str(&render_diags(&[d], &l.path, &l.src, color));
        if let Some(a) = &f.about {
            below(out, c, p, a);
        }
    }
}

/// The number `litmus explain --violation` knows a violation by.
fn violation_number(c: &Checked, model: usize, index: usize) -> usize {
    c.robustness[..model].iter().map(|r| r.violations.len()).sum::<usize>() + index + 1
}

/// What the terminal writes under a finding's first line.
fn label(c: &Checked, p: &Program, about: &About) -> Option<String> {
    Some(match about {
        About::Violation { at, .. } => {
            if let [(m, i)] = at[..] {
                format!("violation {}", violation_number(c, m, i))
            } else {
                let n: Vec<String> = at
                    .iter()
                    .map(|&(m, i)| format!("{} ({})", violation_number(c, m, i), c.robustness[m].model.upper()))
                    .collect();
                format!("violations {}", n.join(", "))
            }
        }
        About::Failure { stmt } => format!("`{}` can fail", p.stmts[*stmt as usize].text),
        About::ConditionDiffers { model } => {
            format!("answered differently under {} than under SC", c.outcomes[*model].model.upper())
        }
        About::ConditionFails { .. } => "broken by an interleaving of the program as written".into(),
        About::ConditionUndefined => "undefined in a reachable final state: an error, not a 0".into(),
        About::Deadlock { .. } => "every unfinished thread can wait forever".into(),
        About::Race { model, index } => {
            let race = &c.outcomes[*model].races[*index];
            let [_, (t, s)] = race.accesses;
            format!("races with {} `{}`", p.threads[t as usize].name, p.stmts[s as usize].text)
        }
        About::Replay(_) => return None,
    })
}

/// What the terminal adds below a finding: its witness step by step, or
/// the command that shows or replays it.
fn below(out: &mut String, c: &Checked, p: &Program, about: &About) {
    let path = &c.loaded.path;
    let witness = |out: &mut String, o: &ModelOutcome, events: &[Event]| {
        let how = if narrate::told_as_execution(p, o.model) { " (each thread in program order)" } else { "" };
        let _ = writeln!(out, "  witness under {}{how}:", o.model.upper());
        for line in narrate::lines(p, o.model, events) {
            let _ = writeln!(out, "      {line}");
        }
    };
    match about {
        About::Violation { at, .. } => {
            let (model, index) = at[0];
            let chain: Vec<String> = c.robustness[model].violations[index]
                .cycle
                .iter()
                .map(|st| {
                    let s = &p.stmts[st.stmt as usize];
                    let t = &p.threads[st.thread as usize].name;
                    format!("{t} {}:{} `{}` —{}→", s.line, s.col, s.text, st.edge.as_str())
                })
                .collect();
            let _ = writeln!(out, "  cycle: {} (back to the start)", chain.join(" "));
            for &(m, i) in at {
                let _ = writeln!(
                    out,
                    "  `litmus explain {path} --violation {}` shows the {} execution step by step",
                    violation_number(c, m, i),
                    c.robustness[m].model.upper()
                );
            }
        }
        About::Replay(handle) => {
            let _ = writeln!(out, "  replay: litmus explain {path} --replay {handle}");
        }
        About::Failure { stmt } => {
            let first = c.outcomes.iter().find_map(|o| o.failures.iter().find(|f| f.stmt == *stmt).map(|f| (o, f)));
            if let Some((o, fail)) = first {
                witness(out, o, &fail.witness.events);
                let s = &p.stmts[*stmt as usize];
                let _ = writeln!(out, "      → `{}` fails in {}", s.text, p.threads[fail.thread as usize].name);
            }
        }
        About::ConditionDiffers { model } => {
            let o = &c.outcomes[*model];
            let sc = c.outcomes.iter().find(|o| o.model.is_reference());
            if let Some(w) = sc.and_then(|sc| witness_of_difference(o, sc)) {
                witness(out, o, &w.events);
            }
        }
        About::ConditionFails { model, state } => {
            let o = &c.outcomes[*model];
            witness(out, o, &o.states[*state].witness.events);
            let _ = writeln!(out, "  `litmus explain {path} --condition` draws it (--svg)");
        }
        About::ConditionUndefined => {
            for o in &c.outcomes {
                if let Some(ce) = o.condition_errors.first() {
                    let _ = writeln!(out, "  division by zero in the {} under {}", ce.site.as_str(), o.model.upper());
                    witness(out, o, &ce.witness.events);
                }
            }
        }
        About::Deadlock { model } => {
            let o = &c.outcomes[*model];
            if let Some(w) = o.deadlocks.first() {
                witness(out, o, &w.events);
            }
        }
        About::Race { model, index } => {
            let o = &c.outcomes[*model];
            witness(out, o, &o.races[*index].witness.events);
        }
    }
}

/// The fences chosen per model, and how far their re-check got.
fn fences(out: &mut String, c: &Checked, p: &Program) {
    for r in c.robustness.iter().filter(|r| !r.fences.is_empty()) {
        let list: Vec<String> = r
            .fences
            .iter()
            .map(|f| {
                format!(
                    "`{}` {} ({})",
                    words::fence_text(p, f.kind),
                    words::fence_place_short(p, f),
                    p.threads[f.thread as usize].name
                )
            })
            .collect();
        let n = r.fences.len();
        // Only a finished re-check lets the fences be said to work.
        let claim = if r.fences_confirmed.is(&true) {
            format!("make{} it robust under", if n == 1 { "s" } else { "" })
        } else {
            "chosen for".to_string()
        };
        let _ = writeln!(
            out,
            "\n  {n} fence{} {claim} {} ({}{}): {}",
            if n == 1 { "" } else { "s" },
            r.model.upper(),
            words::confirmation(&r.fences_confirmed),
            if r.fences_minimal { "" } else { "; not proved the fewest" },
            list.join(", ")
        );
    }
    for r in c.robustness.iter().filter(|r| !r.repairs.is_empty()) {
        repair_line(out, p, "", &r.repairs, r.model.upper(), &r.fences_confirmed, r.fences_minimal);
    }
    if let Some((models, fix)) = &c.joint_repair {
        let names = words::models(models.iter().copied());
        if fix.repairs.is_empty() {
            let why = match &fix.confirmed {
                litmus_checker::certainty::Answer::Unknown(why) => why.describe(),
                _ => "no set of the changes at the violations' edges makes it robust under all of them".into(),
            };
            let _ = writeln!(out, "  no repair for {names} at once: {why}");
        } else {
            repair_line(out, p, "for all of them at once, ", &fix.repairs, &names, &fix.confirmed, fix.minimal);
        }
    }
    for r in c.robustness.iter().filter(|r| !r.violations.is_empty() && r.fences.is_empty() && r.repairs.is_empty()) {
        if let litmus_checker::certainty::Answer::Unknown(why) = &r.fences_confirmed {
            let _ = writeln!(out, "  no repair under {}: {}", r.model.upper(), why.describe());
        }
    }
    if c.robustness.iter().any(|r| !r.fences.is_empty()) {
        let _ = writeln!(out, "  `litmus fix {}` inserts them", c.loaded.path);
    }
}

/// "2 changes make it robust under MODELS (cost 3; re-checked: robust
/// (proved); the cheapest at its violations): …", after `lead`.
fn repair_line(
    out: &mut String,
    p: &Program,
    lead: &str,
    repairs: &[litmus_checker::violation::Repair],
    models: &str,
    confirmed: &litmus_checker::certainty::Answer<bool>,
    minimal: bool,
) {
    let n = repairs.len();
    let cost: u32 = repairs.iter().map(|x| x.cost).sum();
    let claim = match (confirmed.is(&true), n == 1) {
        (true, true) => "makes it robust under",
        (true, false) => "make it robust under",
        (false, _) => "chosen for",
    };
    let list: Vec<String> = repairs.iter().map(|x| words::repair(p, x)).collect();
    let _ = writeln!(
        out,
        "\n  {lead}{n} change{} {claim} {models} (cost {cost}; {}{}): {}",
        if n == 1 { "" } else { "s" },
        words::confirmation(confirmed),
        if minimal { "; the cheapest at its violations" } else { "; not proved the cheapest" },
        list.join(", ")
    );
}

/// ", 1.3 ms", or nothing without timing.
fn ms(d: std::time::Duration, timing: bool) -> String {
    if timing {
        format!(", {:.1} ms", d.as_secs_f64() * 1e3)
    } else {
        String::new()
    }
}
