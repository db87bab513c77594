//! `litmus explain FILE --violation N`: the witness of a violation, step by
//! step, or its events with po/rf/co/fr edges as a picture (`--svg`) or
//! for Graphviz (`--dot`), both drawn by `litmus_present::picture`.

use crate::active::{ActiveArgs, Mode};
use crate::check::{check_file, load_one, options, Bounds};
use litmus_checker::harm::whole_execution;
use litmus_checker::violation::Harm;
use litmus_history::{execution, to_text};
use litmus_present::words;
use litmus_present::{narrate, picture};
use std::fmt::Write;

#[derive(clap::Args)]
pub struct ExplainArgs {
    pub file: String,
    /// The violation's number, as `litmus check` lists them (from 1).
    #[arg(long, required_unless_present_any = ["replay", "condition"], conflicts_with_all = ["replay", "condition"])]
    pub violation: Option<usize>,
    /// The SC interleaving that breaks the final condition (a `forall` or
    /// `~exists` that fails under SC: the program's own bug), step by step.
    #[arg(long, conflicts_with = "replay")]
    pub condition: bool,
    /// Re-run an active-testing run by the handle `litmus check --mode
    /// active` printed, and show it step by step.
    #[arg(long)]
    pub replay: Option<String>,
    /// Print a Graphviz graph of the witness instead.
    #[arg(long)]
    pub dot: bool,
    /// Print the witness as a self-contained SVG picture instead (threads
    /// as columns, po/rf/co/fr edges, the cycle numbered).
    #[arg(long, conflicts_with_all = ["dot", "history"])]
    pub svg: bool,
    /// With --svg or --dot: draw the whole execution (the witness run to
    /// the end, preferring a continuation that fails an assertion or
    /// changes the final condition), not only the events up to the cycle.
    #[arg(long)]
    pub whole: bool,
    /// Print the witness as a history in `litmus history`'s text format
    /// instead (loads, stores where they were issued, atomics, fences).
    #[arg(long, conflicts_with = "dot")]
    pub history: bool,
    /// Memory models the violations are numbered over, as `check` numbers
    /// them [default: the file's, as `check` has them].
    #[arg(long, value_delimiter = ',')]
    pub model: Vec<String>,
    #[command(flatten)]
    pub bounds: Bounds,
}

pub fn run(args: &ExplainArgs) -> u8 {
    let (models, l) = match load_one(&args.model, &args.bounds, &args.file) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if let Some(h) = &args.replay {
        return replay(&l, h, &args.bounds);
    }
    let c = check_file(l, &models, args.bounds.monitor.kind(), &options(&args.bounds), &exhaustive_only());
    let p = c.loaded.analysis.program.as_ref().unwrap();
    if args.condition {
        return condition(args, &c, p);
    }
    let violation = args.violation.expect("clap requires --violation without --replay or --condition");
    let all: Vec<_> = c.robustness.iter().flat_map(|r| r.violations.iter()).collect();
    let Some(v) = violation.checked_sub(1).and_then(|i| all.get(i)) else {
        eprintln!("error: there is no violation {violation} ({} found)", all.len());
        return 2;
    };
    if args.dot || args.svg {
        let sc = c.outcomes.iter().find(|o| o.model.is_reference()).and_then(|o| o.observation.as_ref());
        let whole = args.whole.then(|| whole_execution(p, v, sc, &options(&args.bounds))).flatten();
        if args.whole && whole.is_none() {
            eprintln!("note: no continuation of the witness keeps its cycle: drawing the witness alone");
        }
        let pic = match &whole {
            Some(w) => picture::of_whole(p, v, violation, w),
            None => picture::of_violation(p, v, violation),
        };
        print!("{}", if args.svg { picture::svg(&pic) } else { picture::dot(&pic) });
        return 0;
    }
    if args.history {
        return match execution::from_events(p, &v.witness.events) {
            Ok(h) => {
                print!("{}", to_text(&h));
                0
            }
            Err(e) => {
                eprintln!("error: the witness has no history: {e}");
                2
            }
        };
    }
    let store = &p.stmts[v.store_stmt as usize];
    let access = &p.stmts[v.access_stmt as usize];
    // A model with load histories (PSLO) names a violation by a po pair of
    // the cycle whose later statement took effect first; the others by the
    // delayed store and the access it is delayed past.
    let explicit = v.model.has_histories();
    // A whole candidate (no machine ran it): its events, then coherence.
    let candidate = v.witness.state_after_access.is_none();
    let mut out = String::new();
    if explicit || candidate {
        let _ = writeln!(
            out,
            "violation {} under {}: `{}` ({} line {}) takes effect before `{}` (line {}), which precedes it",
            violation,
            v.model.upper(),
            access.text,
            p.threads[access.thread as usize].name,
            access.line,
            store.text,
            store.line
        );
    } else {
        let _ = writeln!(
            out,
            "violation {} under {}: `{}` ({} line {}) is delayed",
            violation,
            v.model.upper(),
            store.text,
            p.threads[store.thread as usize].name,
            store.line
        );
    }
    let _ = writeln!(out, "cycle:");
    for st in &v.cycle {
        let s = &p.stmts[st.stmt as usize];
        let _ = writeln!(
            out,
            "    {} {}:{}  {}   —{}→",
            p.threads[st.thread as usize].name,
            s.line,
            s.col,
            s.text,
            st.edge.as_str()
        );
    }
    let axioms = words::axioms(p, v);
    if !axioms.is_empty() {
        let _ = writeln!(out, "the model's axioms on this cycle (the orders they test):");
        for line in axioms {
            let _ = writeln!(out, "    {line}");
        }
    }
    let later = v.witness.cycle.get(1).map(|c| c.0 as usize);
    let _ = writeln!(
        out,
        "witness under {} ({}):",
        v.model.upper(),
        if candidate {
            "an execution the model allows: each thread's events in program order; a read may take a write its thread has not reached".to_string()
        } else if explicit {
            format!("{} steps; an execution whose trace has the cycle", v.witness.events.len())
        } else {
            format!("{} steps; the delayed store commits last", v.witness.events.len())
        }
    );
    for (i, line) in narrate::lines(p, v.model, &v.witness.events).iter().enumerate() {
        let mark = if candidate {
            String::new()
        } else if explicit {
            if Some(i) == later {
                format!("   ← takes effect before `{}`", store.text)
            } else {
                String::new()
            }
        } else if i + 1 == v.witness.before_drain {
            "   ← runs before the delayed store commits".to_string()
        } else {
            String::new()
        };
        let _ = writeln!(out, "    {line}{mark}");
    }
    if candidate {
        for line in narrate::coherence(p, &v.witness.events) {
            let _ = writeln!(out, "    {line}");
        }
    }
    let trace_cycle: Vec<String> = v
        .witness
        .cycle
        .iter()
        .map(|(ev, edge)| {
            let e = &v.witness.events[*ev as usize];
            format!("{} `{}` —{}→", p.threads[e.thread as usize].name, p.stmts[e.stmt as usize].text, edge.as_str())
        })
        .collect();
    let _ = writeln!(out, "its trace has the cycle: {} (back to the start)", trace_cycle.join(" "));
    let _ = writeln!(out, "{}", words::harm(p, &v.harm));
    if let Some(Harm::Fails { events, .. } | Harm::ChangesCondition { events }) = v.harm.value() {
        let _ = writeln!(out, "an execution of {} that exhibits this violation and shows it:", v.model.upper());
        for line in narrate::lines(p, v.model, events) {
            let _ = writeln!(out, "    {line}");
        }
    }
    print!("{out}");
    0
}

/// `--condition`: the SC execution that breaks the final condition, as the
/// check's finding has it (E0305), in words or drawn.
fn condition(args: &ExplainArgs, c: &crate::check::Checked, p: &litmus_ir::Program) -> u8 {
    use litmus_present::findings::{check_findings, About, Found, Members};
    let found = Found { outcomes: &c.outcomes, robustness: &c.robustness, active: c.active.as_ref() };
    let at = check_findings(p, found, Members::Off).into_iter().find_map(|f| match f.about {
        Some(About::ConditionFails { model, state }) => Some((f.message, model, state)),
        _ => None,
    });
    let forbidden = c.outcomes.iter().find(|o| o.forbidden.is_some());
    if let (None, Some(o)) = (&at, forbidden) {
        return explain_forbidden(args, p, o);
    }
    let Some((message, model, state)) = at else {
        let why = match &p.condition {
            None => "the test has no final condition".to_string(),
            Some(cond) if cond.quantifier == litmus_ir::Quantifier::Exists => {
                "its final condition is an `exists`: a question, which no execution breaks".to_string()
            }
            Some(_) => match c.outcomes.iter().find(|o| o.model.is_reference()) {
                Some(sc) => format!("no SC execution breaks the final condition ({})", sc.coverage.qualifier()),
                None => "SC was not checked".to_string(),
            },
        };
        eprintln!("note: {why}");
        return 1;
    };
    let o = &c.outcomes[model];
    let events = &o.states[state].witness.events;
    if args.dot || args.svg {
        let title = format!("{}: the final condition fails under {}", p.name, o.model.upper());
        let mut pic = picture::of_events(p, events, &[], title);
        pic.model = o.model.upper().into();
        print!("{}", if args.svg { picture::svg(&pic) } else { picture::dot(&pic) });
        return 0;
    }
    if args.history {
        return match execution::from_events(p, events) {
            Ok(h) => {
                print!("{}", to_text(&h));
                0
            }
            Err(e) => {
                eprintln!("error: the witness has no history: {e}");
                2
            }
        };
    }
    let mut out = format!("{message}\nwitness under {} ({} steps):\n", o.model.upper(), events.len());
    for line in narrate::lines(p, o.model, events) {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(out, "final state: {}", words::state(p, &o.states[state].values));
    print!("{out}");
    0
}

/// `--condition` on an outcome a model given as data forbids: a candidate
/// that reaches it, each axiom it fails with its cycle in the model's
/// relations; drawn, the first axiom's cycle over the candidate.
fn explain_forbidden(args: &ExplainArgs, p: &litmus_ir::Program, o: &litmus_checker::ModelOutcome) -> u8 {
    let f = o.forbidden.as_ref().expect("a forbidden outcome");
    let events = &f.witness.events;
    if args.dot || args.svg {
        let title = format!("{}: the final condition's outcome, forbidden under {}", p.name, o.model.upper());
        let mut pic = picture::of_forbidden(p, f, 0, title);
        pic.model = o.model.upper().into();
        print!("{}", if args.svg { picture::svg(&pic) } else { picture::dot(&pic) });
        return 0;
    }
    let mut out = format!(
        "{} forbids the final condition's outcome: a candidate execution that reaches it fails
",
        o.model.upper()
    );
    for line in words::forbidden(p, f) {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(out, "the candidate (each thread in program order):");
    for line in narrate::lines(p, o.model, events) {
        let _ = writeln!(out, "    {line}");
    }
    for line in narrate::coherence(p, events) {
        let _ = writeln!(out, "    {line}");
    }
    print!("{out}");
    0
}

/// Explain's violations are the exhaustive check's (numbered as `check` lists them).
fn exhaustive_only() -> ActiveArgs {
    use clap::Parser;
    #[derive(Parser)]
    struct A {
        #[command(flatten)]
        a: ActiveArgs,
    }
    let mut a = A::parse_from(["explain"]).a;
    a.mode = Mode::Exhaustive;
    a
}

/// `--replay HANDLE`: the same steered run again (same model, cycle,
/// settings and seed), step by step, and the cycle its trace contains.
fn replay(l: &crate::check::Loaded, handle: &str, bounds: &Bounds) -> u8 {
    use litmus_checker::relaxer;
    let h: relaxer::Handle = match handle.parse() {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let p = l.analysis.program.as_ref().expect("load_one checked it");
    let bad_label = h.cycle.iter().find(|c| {
        p.stmts.get(c.stmt as usize).is_none_or(|s| s.thread != c.thread) || c.thread as usize >= p.threads.len()
    });
    if bad_label.is_some() {
        eprintln!("error: the handle names statements `{}` does not have (was it edited since?)", l.path);
        return 2;
    }
    let (run, found) = relaxer::replay(p, &h, &options(bounds));
    let mut out = String::new();
    let _ = writeln!(out, "active-testing run {} under {} ({} steps):", h, h.model.upper(), run.events.len());
    for line in narrate::lines(p, h.model, &run.events) {
        let _ = writeln!(out, "    {line}");
    }
    match found {
        Some(cycle) => {
            let chain: Vec<String> = cycle
                .iter()
                .map(|&(i, e)| {
                    let ev = &run.events[i as usize];
                    let s = &p.stmts[ev.stmt as usize];
                    format!("{} {}:{} `{}` —{}→", p.threads[ev.thread as usize].name, s.line, s.col, s.text, e.as_str())
                })
                .collect();
            let _ = writeln!(out, "its trace has the cycle: {} (back to the start)", chain.join(" "));
            print!("{out}");
            0
        }
        None => {
            print!("{out}");
            eprintln!("error: this run does not create the cycle (the file or the bounds differ from the run's)");
            1
        }
    }
}
