//! Human output of `litmus check`: herd-like per-model answers, the final
//! states by model, and each finding with a witness over the source lines.

use crate::check::Checked;
use litmus_checker::harm::harmful;
use litmus_checker::machine::Event;
use litmus_checker::outcome::Witness;
use litmus_checker::violation::CycleStep;
use litmus_checker::{Coverage, Model, ModelOutcome, MonitorKind, Observation, Robustness};
use litmus_dsl::diagnostic::{render as render_diags, Diagnostic};
use litmus_dsl::ir::Program;
use litmus_present::narrate;
use litmus_present::words::CIRCLED;
use litmus_present::{codes, words};
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
            "  active testing ({why}; RELAXER: {} SC runs predicted {} cycle{}{}):",
            run.prediction.runs,
            run.prediction.cycles.len(),
            if run.prediction.cycles.len() == 1 { "" } else { "s" },
            if timing { format!(" in {:.1} ms", run.prediction.time.as_secs_f64() * 1e3) } else { String::new() }
        );
        for a in &run.models {
            let _ = writeln!(
                out,
                "    {:<4} {}{}",
                a.model.upper(),
                words::active(a, run.prediction.cycles.len()),
                if timing { format!("  [{:.1} ms]", a.time.as_secs_f64() * 1e3) } else { String::new() }
            );
        }
    }
    if p.condition.is_some() || !p.observables.is_empty() {
        states_table(&mut out, p, &c.outcomes);
    }
    // Where a relaxed model answers differently from SC, show how — only
    // when SC's own answer is earned.
    if let Some(sc) = sc.filter(|sc| sc.known_observation().is_some()) {
        let mut shown = Vec::new();
        for o in c.outcomes.iter().filter(|o| o.model.buffered()) {
            let obs = o.known_observation();
            // PSO usually differs the way TSO does: one witness is enough.
            if obs.is_some() && obs != sc.known_observation() && !shown.contains(&obs) {
                shown.push(obs);
                if let Some(w) = witness_of_difference(o, sc) {
                    let _ = writeln!(
                        out,
                        "  {} {} the condition, SC does not ({}) [{}]. Witness:",
                        o.model.upper(),
                        match obs {
                            Some(Observation::Never) => "never satisfies",
                            _ => "satisfies",
                        },
                        sc.observation.as_ref().map(|a| a.qualifier()).unwrap_or_default(),
                        codes::CONDITION_DIFFERS.code
                    );
                    for line in narrate::lines(p, o.model, &w.events) {
                        let _ = writeln!(out, "      {line}");
                    }
                }
            }
        }
    }
    findings(&mut out, c, p, color);
    violations(&mut out, c, p, color);
    active_cycles(&mut out, c, p, color);
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
    if let Some(rb) = c.robustness.iter().find(|r| r.monitor != MonitorKind::Explicit) {
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

fn findings(out: &mut String, c: &Checked, p: &Program, color: bool) {
    let l = &c.loaded;
    // Group failures by statement across models.
    let mut by_stmt: BTreeMap<(u32, &'static str), Vec<&ModelOutcome>> = BTreeMap::new();
    for o in &c.outcomes {
        for f in &o.failures {
            by_stmt.entry((f.stmt, f.kind.as_str())).or_default().push(o);
        }
    }
    for ((stmt, kind), models) in by_stmt {
        let s = &p.stmts[stmt as usize];
        let under: Vec<Model> = models.iter().map(|o| o.model).collect();
        let sc = c.outcomes.iter().find(|o| o.model.is_reference()).filter(|_| !under.iter().any(|m| m.is_reference()));
        let msg = words::failure(kind, &under, sc.map(|o| &o.coverage));
        let d = Diagnostic::error(codes::FAILURE.code, s.span, msg).with_label(format!("`{}` can fail", s.text));
        let _ = writeln!(out);
        out.push_str(&render_diags(&[d], &l.path, &l.src, color));
        let o = models[0];
        let f = o.failures.iter().find(|f| f.stmt == stmt).unwrap();
        let _ = writeln!(out, "  witness under {}:", o.model.upper());
        for line in narrate::lines(p, o.model, &f.witness.events) {
            let _ = writeln!(out, "      {line}");
        }
        let _ = writeln!(out, "      → `{}` fails in {}", s.text, p.threads[f.thread as usize].name);
    }
    for o in &c.outcomes {
        if let Some(w) = o.deadlocks.first() {
            let _ = writeln!(
                out,
                "\n  {} can deadlock [{}]: every unfinished thread waits forever after",
                o.model.upper(),
                codes::DEADLOCK.code
            );
            for line in narrate::lines(p, o.model, &w.events) {
                let _ = writeln!(out, "      {line}");
            }
        }
    }
    for o in &c.outcomes {
        let Some(ce) = o.condition_errors.first() else { continue };
        let msg = format!("division by zero in the {} under {}", ce.site.as_str(), o.model.upper());
        let _ = writeln!(out);
        match (&p.condition, ce.site) {
            (Some(cond), litmus_checker::outcome::CondSite::Condition) => {
                let d = Diagnostic::error(codes::CONDITION_UNDEFINED.code, cond.span, msg)
                    .with_label("undefined in a reachable final state: an error, not a 0".to_string());
                out.push_str(&render_diags(&[d], &l.path, &l.src, color));
            }
            _ => {
                let _ = writeln!(out, "  error: {msg}");
            }
        }
        let _ = writeln!(out, "  witness under {}:", o.model.upper());
        for line in narrate::lines(p, o.model, &ce.witness.events) {
            let _ = writeln!(out, "      {line}");
        }
    }
}

/// A cycle over the source: the edge leaving the first statement as its
/// label, every other statement with its role in the cycle, in the words
/// the editor's diagnostics on those statements use.
fn cycle_labels(mut d: Diagnostic, p: &Program, steps: &[CycleStep], events: &[Event]) -> Diagnostic {
    let k = steps.len();
    for (i, st) in steps.iter().enumerate() {
        let name = &p.threads[st.thread as usize].name;
        if i == 0 {
            let to = &p.stmts[steps[(i + 1) % k].stmt as usize];
            d = d.with_label(format!("{} {name} —{}→ {}", CIRCLED[0], st.edge.as_str(), to.text));
        } else {
            let role = words::cycle_role(p, steps, events, i);
            d = d.with_related(p.stmts[st.stmt as usize].span, format!("{} {name} {role}", CIRCLED[i.min(19)]));
        }
    }
    d
}

/// Each SC violation drawn over the source: the cycle's statements in order,
/// with the edge leaving each; then the fences that remove them all.
fn violations(out: &mut String, c: &Checked, p: &Program, color: bool) {
    let l = &c.loaded;
    let mut n = 0;
    for r in &c.robustness {
        for v in &r.violations {
            n += 1;
            let store = &p.stmts[v.store_stmt as usize];
            let next = &p.stmts[v.delayed_past() as usize];
            let (sev, what) = (harmful(&v.harm), words::harm(p, &v.harm));
            let msg =
                format!("{}: `{}` may be delayed past `{}` (violation {n})", r.model.upper(), store.text, next.text);
            let mut d = if sev {
                Diagnostic::error(codes::VIOLATION.code, store.span, msg)
            } else {
                Diagnostic::warning(codes::VIOLATION.code, store.span, msg)
            };
            d = cycle_labels(d, p, &v.cycle, &v.witness.events);
            let fix = v
                .fence
                .iter()
                .map(|f| format!("insert `{}` {}", litmus_dsl::edit::native_fence(f.kind), words::fence_place(p, f)))
                .collect::<Vec<_>>()
                .join("; ");
            d = d.with_help(format!("{what}\nfix: {fix}"));
            let _ = writeln!(out);
            out.push_str(&render_diags(&[d], &l.path, &l.src, color));
            let chain: Vec<String> = v
                .cycle
                .iter()
                .map(|st| {
                    let s = &p.stmts[st.stmt as usize];
                    format!(
                        "{} {}:{} `{}` —{}→",
                        p.threads[st.thread as usize].name,
                        s.line,
                        s.col,
                        s.text,
                        st.edge.as_str()
                    )
                })
                .collect();
            let _ = writeln!(out, "  cycle: {} (back to the start)", chain.join(" "));
            let _ = writeln!(
                out,
                "  `litmus explain {} --violation {n}` shows the {} execution step by step",
                l.path,
                r.model.upper()
            );
        }
        if !r.fences.is_empty() {
            let list: Vec<String> = r
                .fences
                .iter()
                .map(|f| {
                    format!(
                        "`{}` {} ({})",
                        litmus_dsl::edit::native_fence(f.kind),
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
    }
    if n > 0 {
        let _ = writeln!(out, "  `litmus fix {}` inserts them", l.path);
    }
}

/// Each cycle active testing confirmed, drawn over the source like a
/// violation, with the handle that replays its run.
fn active_cycles(out: &mut String, c: &Checked, p: &Program, color: bool) {
    let Some(run) = &c.active else { return };
    let l = &c.loaded;
    let mut n = 0;
    for a in &run.models {
        for cy in a.cycles.iter().filter(|cy| cy.confirmations > 0) {
            let Some(w) = &cy.witness else { continue };
            n += 1;
            let steps = crate::active::cycle_steps(cy);
            let first = &p.stmts[steps[0].1 as usize];
            let msg = format!(
                "{}: happens-before cycle found by active testing (cycle {n}: created in {} of {} runs)",
                a.model.upper(),
                cy.confirmations,
                cy.trials
            );
            let mut d = if w.bug.is_some() {
                Diagnostic::error(codes::ACTIVE_VIOLATION.code, first.span, msg)
            } else {
                Diagnostic::warning(codes::ACTIVE_VIOLATION.code, first.span, msg)
            };
            d = cycle_labels(d, p, &w.steps(), &w.events);
            d = d.with_help(format!(
                "{}\nreplay: litmus explain {} --replay {}",
                words::active_bug(p, w.bug.as_ref()),
                l.path,
                w.handle
            ));
            let _ = writeln!(out);
            out.push_str(&render_diags(&[d], &l.path, &l.src, color));
        }
    }
}

/// ", 1.3 ms", or nothing without timing.
fn ms(d: std::time::Duration, timing: bool) -> String {
    if timing {
        format!(", {:.1} ms", d.as_secs_f64() * 1e3)
    } else {
        String::new()
    }
}
