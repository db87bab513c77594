//! The words users read about answers, written once: the CLI and the
//! language server both say "robust (proved)" or "harm unknown: timed out"
//! through these functions, so an answer is never worded as more than it is.
//! Every "robust", "never", "benign" and "confirmed" comes with its qualifier.

use litmus_checker::certainty::{Answer, Coverage};
use litmus_checker::machine::{Event, EventKind};
use litmus_checker::outcome::Observation;
use litmus_checker::trace::Edge;
use litmus_checker::violation::Harm;
use litmus_checker::violation::{CycleStep, Robustness};
use litmus_ir::Program;

/// "(proved)", "(within bounds)" — the short qualifier of a known answer.
fn short(c: &Coverage) -> &'static str {
    match c {
        Coverage::Complete => "proved",
        Coverage::Bounded(_) => "within bounds",
        Coverage::Stopped(_) => "unknown",
    }
}

/// The condition's answer: "never (proved)", "always (within bounds)",
/// "unknown (timed out)".
pub fn observation(a: &Answer<Observation>) -> String {
    match a {
        Answer::Unknown(w) => format!("unknown ({})", w.describe()),
        _ => format!("{} ({})", a.value().expect("known").as_str(), short(&a.coverage())),
    }
}

/// A model's robustness, short: "robust (proved)", "robust within bounds",
/// "2 SC violations", "robustness unknown (timed out)".
pub fn robustness(rb: &Robustness) -> String {
    let n = rb.violations.len();
    match rb.robust() {
        Answer::Proved(true) => match rb.iterations {
            litmus_checker::Iterations::Every { states, loops: true } => {
                format!("robust for every iteration (proved: {} states)", litmus_checker::progress::thousands(states))
            }
            _ => "robust (proved)".into(),
        },
        Answer::WithinBounds(true, _) => "robust within bounds".into(),
        Answer::Unknown(w) => format!("robustness unknown ({})", w.describe()),
        _ => format!("{n} SC violation{}", if n == 1 { "" } else { "s" }),
    }
}

/// Where a monitor is not complete for a model, how its robustness was
/// decided: what the monitor missed, found by the model's own executions.
pub fn cross_check(rb: &Robustness) -> String {
    let (model, monitor) = (rb.model.upper(), rb.monitor.as_str());
    let why = rb.monitor.gap();
    let total = rb.violations.len();
    match rb.missed_by_monitor.len() {
        0 => format!(
            "the {monitor} monitor alone cannot prove {model} robustness ({why}): {model}'s own executions were explored too"
        ),
        1 if total == 1 => format!(
            "the {monitor} monitor missed this {model} violation ({why}); exploring {model}'s own executions found it"
        ),
        n if n == total => format!(
            "the {monitor} monitor missed all {n} {model} violations ({why}); exploring {model}'s own executions found them"
        ),
        n => format!(
            "the {monitor} monitor missed {n} of the {total} {model} violations ({why}); exploring {model}'s own executions found {}",
            if n == 1 { "it" } else { "them" }
        ),
    }
}

/// A note for an answer within bounds or unknown: what was cut or why it
/// stopped ("" when proved).
pub fn caveat(c: &Coverage) -> String {
    match c {
        Coverage::Complete => String::new(),
        _ => c.qualifier(),
    }
}

/// A violation's harm, as a clause: "harmful: `assert(…)` can then fail",
/// "benign (proved): …", "harm unknown (timed out)".
pub fn harm(p: &Program, a: &Answer<Harm>) -> String {
    match a {
        Answer::Unknown(w) => format!("harm unknown ({})", w.describe()),
        _ => {
            let q = short(&a.coverage());
            match a.value().expect("known") {
                Harm::Fails { stmt, .. } => {
                    format!("harmful ({q}): `{}` can then fail", p.stmts[*stmt as usize].text)
                }
                Harm::ChangesCondition { .. } => {
                    format!("harmful ({q}): the final condition's answer then differs from SC")
                }
                Harm::Benign => format!(
                    "benign ({q}): no execution exhibiting it fails an assertion or changes the final condition"
                ),
            }
        }
    }
}

/// Where a fence goes, in words: "after line 15, column 13", "before line
/// 16, column 3", "at the head of the loop at line 17 (before it and last
/// in its body)".
pub fn fence_place(p: &Program, f: &litmus_checker::violation::FencePoint) -> String {
    use litmus_ir::Place;
    let s = &p.stmts[f.stmt as usize];
    match f.place {
        Place::After => format!("after line {}, column {}", s.end_line, s.end_col),
        Place::Before => format!("before line {}, column {}", s.line, s.col),
        Place::LoopHead => {
            format!("at the head of the loop at line {} (before it and last in its body)", s.line)
        }
    }
}

/// The same, short: "after 15:13", "before 16:3", "loop head 17:3".
pub fn fence_place_short(p: &Program, f: &litmus_checker::violation::FencePoint) -> String {
    use litmus_ir::Place;
    let s = &p.stmts[f.stmt as usize];
    match f.place {
        Place::After => format!("after {}:{}", s.end_line, s.end_col),
        Place::Before => format!("before {}:{}", s.line, s.col),
        Place::LoopHead => format!("at the loop head {}:{}", s.line, s.col),
    }
}

/// Whether fences were confirmed by re-checking: "re-checked: robust
/// (proved)", "re-checked: robust within bounds", "not confirmed: a
/// violation remains", "not confirmed: the re-check timed out".
pub fn confirmation(a: &Answer<bool>) -> String {
    match a {
        Answer::Proved(true) => "re-checked: robust (proved)".into(),
        Answer::WithinBounds(true, _) => "re-checked: robust within bounds".into(),
        Answer::Proved(false) | Answer::WithinBounds(false, _) => {
            "not confirmed: a violation remains after fencing".into()
        }
        Answer::Unknown(w) => format!("not confirmed: the re-check is unknown ({})", w.describe()),
    }
}

/// A failure seen under some models, worded once: "assertion failed under
/// TSO, PSO (never under SC: a relaxed-memory bug)" — the contrast with SC
/// only as far as SC's exploration went (`sc`: its coverage, if SC was
/// checked and did not fail it).
/// A final state as the user reads it: `data = 1, P0:r0 = 0` (its
/// observables, in order).
pub fn state(p: &litmus_ir::Program, values: &[i64]) -> String {
    let each: Vec<String> =
        p.observables.iter().zip(values).map(|(o, v)| format!("{} = {}", o.name, p.show_value(*v))).collect();
    if each.is_empty() {
        "a final state".into()
    } else {
        each.join(", ")
    }
}

/// A fence as the file's dialect writes it: `fence wr;` natively, the x86
/// instruction (`MFENCE`) or RISC-V's (`fence rw,rw`) in a herd file, a
/// seq_cst `atomic_thread_fence` in a C one.
pub fn fence_text(p: &litmus_ir::Program, kind: litmus_ir::FenceKind) -> String {
    match p.dialect {
        litmus_ir::Dialect::HerdX86 => litmus_dsl::edit::x86_fence(kind).to_string(),
        litmus_ir::Dialect::HerdRiscv => litmus_dsl::edit::riscv_fence(kind),
        litmus_ir::Dialect::HerdAArch64 => litmus_dsl::edit::arm_fence(kind),
        litmus_ir::Dialect::Native => litmus_dsl::edit::native_fence(kind),
        litmus_ir::Dialect::HerdC => litmus_dsl::edit::C_FENCE.trim_end_matches(';').to_string(),
    }
}

/// A repair's change in words: "`DMB ISH` after 15:13 (P0)", "`LDR
/// W0,[X1]` → `LDAR W0,[X1]` (P1)".
pub fn repair(p: &Program, r: &litmus_checker::violation::Repair) -> String {
    use litmus_checker::violation::{Change, FencePoint};
    let thread = &p.threads[r.thread as usize].name;
    match r.change {
        Change::Fence { place, kind } => {
            let f = FencePoint { thread: r.thread, stmt: r.stmt, kind, place };
            let text = litmus_dsl::edit::barrier_text(p.dialect, kind);
            format!("`{}` {} ({thread})", text.trim_end_matches(';'), fence_place_short(p, &f))
        }
        Change::Labels { to, .. } => {
            let s = &p.stmts[r.stmt as usize];
            match litmus_dsl::edit::relabel_stmt(p, r.stmt, &s.text, to) {
                Some((_, text)) => format!("`{}` → `{text}` ({thread})", s.text),
                None => format!("`{}` made {} ({thread})", s.text, to.names().collect::<Vec<_>>().join(",")),
            }
        }
    }
}

/// A candidate violation's cycle as the model's axioms see it, a line per
/// axiom whose order keeps some of its edges: "`external` keeps ② ③ ④, not
/// ① `STR W0,[X1]` —po→ `STR W2,[X3]`: ordering it forbids this execution".
pub fn axioms(p: &Program, v: &litmus_checker::Violation) -> Vec<String> {
    let cycle = &v.witness.cycle;
    let k = cycle.len();
    let step = |j: usize| {
        let (a, b) = (&v.witness.events[cycle[j].0 as usize], &v.witness.events[cycle[(j + 1) % k].0 as usize]);
        format!(
            "{} `{}` —{}→ `{}`",
            CIRCLED[j.min(19)],
            p.stmts[a.stmt as usize].text,
            cycle[j].1.as_str(),
            p.stmts[b.stmt as usize].text
        )
    };
    v.telling_axioms()
        .map(|o| {
            let yes: Vec<&str> = (0..k).filter(|&j| o.kept[j]).map(|j| CIRCLED[j.min(19)]).collect();
            let missing: Vec<usize> = (0..k).filter(|&j| !o.kept[j]).collect();
            let no: Vec<String> = missing.iter().map(|&j| step(j)).collect();
            let close = match (o.forbids_once_ordered(cycle), missing.len()) {
                (true, 1) => ": ordering it forbids this execution",
                (true, _) => ": ordering them forbids this execution",
                (false, _) => "",
            };
            format!("`{}` keeps {}, not {}{close}", o.name, yes.join(" "), no.join(", "))
        })
        .collect()
}

/// Why a model forbids the final condition's outcome, an axiom per line:
/// "`external` (acyclic ob): ① P0 `STR W0,[X1]` —bob→ ② P0 `STR W2,[X3]`
/// —rfe→ ③ P1 `LDAR W0,[X1]` —bob→ ④ P1 `LDR W2,[X3]` —fre→ ①".
pub fn forbidden(p: &Program, f: &litmus_checker::outcome::Forbidden) -> Vec<String> {
    use litmus_checker::outcome::Who;
    let who = |w: &Who| match *w {
        Who::Access { thread, stmt } => {
            format!("{} `{}`", p.threads[thread as usize].name, p.stmts[stmt as usize].text)
        }
        Who::Init(c) => format!("the initial value of {}", p.cell_name(c)),
        Who::Register(t) => format!("a register step of {}", p.threads[t as usize].name),
    };
    f.axioms
        .iter()
        .map(|a| {
            let k = a.steps.len();
            let mut text = format!("`{}` ({} {})", a.name, a.kind, a.expr);
            if k > 0 {
                text.push_str(": ");
            }
            for (j, (w, edge)) in a.steps.iter().enumerate() {
                text.push_str(&format!("{} {}", CIRCLED[j.min(19)], who(w)));
                match (edge, a.kind) {
                    // A relation that relates an event to itself (a composition).
                    (Some(e), "irreflexive") if k == 1 => text.push_str(&format!(" is after itself by {e}")),
                    (Some(e), "empty") => text.push_str(&format!(" —{e}→ ")),
                    (Some(e), _) => text.push_str(&format!(" —{e}→ {}", if j + 1 == k { CIRCLED[0] } else { "" })),
                    (None, _) => {}
                }
            }
            text.trim_end().to_string()
        })
        .collect()
}

/// Models as a finding names them: "TSO, PSO", each once, in order met.
pub fn models(models: impl IntoIterator<Item = litmus_checker::Model>) -> String {
    let mut names: Vec<&str> = Vec::new();
    for m in models {
        if !names.contains(&m.upper()) {
            names.push(m.upper());
        }
    }
    names.join(", ")
}

pub fn failure(kind: &str, ms: &[litmus_checker::Model], sc: Option<&Coverage>) -> String {
    let contrast = match sc {
        Some(Coverage::Complete) => " (never under SC: a relaxed-memory bug)",
        Some(Coverage::Bounded(_)) => " (not under SC within bounds)",
        Some(Coverage::Stopped(_)) | None => "",
    };
    format!("{kind} under {}{contrast}", models(ms.iter().copied()))
}

/// Active testing's answer for a model, one line: never "robust" — "2 of
/// Which cycle lengths active testing searched: "lengths 4, 6 searched",
/// "length 4 searched, 6 cut short".
pub fn cycle_lengths(p: &litmus_checker::relaxer::Prediction) -> String {
    let list = |v: &[usize]| v.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ");
    let searched = match p.lengths.len() {
        0 => "no length searched whole".to_string(),
        1 => format!("length {} searched", list(&p.lengths)),
        _ => format!("lengths {} searched", list(&p.lengths)),
    };
    match p.partial {
        Some(n) => format!("{searched}, {n} cut short"),
        None => searched,
    }
}

/// 6 predicted cycles confirmed (1 breaks the program) in 180 runs", or
/// "no violation found in 180 runs (active testing proves nothing)".
pub fn active(a: &litmus_checker::relaxer::Active, predicted: usize) -> String {
    let mut s = match a.confirmed() {
        0 => format!(
            "no violation found in {} active run{} ({predicted} cycle{} predicted; this proves nothing)",
            a.runs,
            if a.runs == 1 { "" } else { "s" },
            if predicted == 1 { "" } else { "s" }
        ),
        n => format!(
            "{n} of {predicted} predicted cycle{} confirmed by active testing{} in {} runs",
            if predicted == 1 { "" } else { "s" },
            match a.bugs() {
                0 => String::new(),
                b => format!(" ({b} break{} the program)", if b == 1 { "s" } else { "" }),
            },
            a.runs
        ),
    };
    if let Some(w) = a.stopped {
        s.push_str(&format!("; stopped early: {}", w.describe()));
    }
    s
}

/// What a confirmed cycle did to the program, as a clause.
pub fn active_bug(p: &Program, bug: Option<&litmus_checker::relaxer::Bug>) -> String {
    use litmus_checker::relaxer::Bug;
    match bug {
        Some(Bug::Failure { stmt, kind, .. }) => {
            format!("harmful: then `{}` fails ({})", p.stmts[*stmt as usize].text, kind.as_str())
        }
        Some(Bug::Condition) => "harmful: the final condition's answer then differs from SC".into(),
        None => "no run that created it broke the program (not a proof that none can)".into(),
    }
}

/// What statement `i` of a cycle does in it, as a clause: "reads y before
/// P1's store `y = 1`", "writes y after P0's `let r0 = y` read the old
/// value". Worded from the edge leaving it, or for a program-order edge
/// (which says nothing about memory) from the edge entering it. `events`:
/// an execution of the cycle (its witness), for what each statement
/// accesses.
pub fn cycle_role(p: &Program, steps: &[CycleStep], events: &[Event], i: usize) -> String {
    let k = steps.len();
    let st = steps[i];
    let access = events
        .iter()
        .find(|e| {
            e.thread == st.thread
                && e.stmt == st.stmt
                && matches!(e.kind, EventKind::Load | EventKind::Store | EventKind::Rmw)
        })
        .map(|e| (e.kind, p.cell_name(e.cell)));
    let verb = match &access {
        Some((EventKind::Load, c)) => format!("reads {c}"),
        Some((EventKind::Rmw, c)) => format!("updates {c}"),
        Some((_, c)) => format!("writes {c}"),
        None => "runs".into(),
    };
    // Another thread's statement is named with its thread.
    let who = |j: usize| {
        let s = &steps[j];
        let text = &p.stmts[s.stmt as usize].text;
        if s.thread == st.thread {
            format!("`{text}`")
        } else {
            format!("{}'s `{text}`", p.threads[s.thread as usize].name)
        }
    };
    let (next, prev) = ((i + 1) % k, (i + k - 1) % k);
    match (st.edge, steps[prev].edge) {
        (Edge::Fr, _) => format!("{verb} before {} overwrites it", who(next)),
        (Edge::Co, _) => format!("{verb} before {} overwrites it", who(next)),
        (Edge::Rf, _) => format!("{verb}, which {} then reads", who(next)),
        (Edge::Po, Edge::Fr) => format!("{verb} after {} read the old value", who(prev)),
        (Edge::Po, Edge::Rf) => format!("{verb} as written by {}", who(prev)),
        (Edge::Po, Edge::Co) => format!("{verb} after {}", who(prev)),
        (Edge::Po, Edge::Po) => format!("{verb} after {} in program order", who(prev)),
    }
}

/// A member's diagnostic: its role and the cycle it belongs to, "reads y
/// before P1's `y = 1` overwrites it — part of the TSO/PSO cycle of line 8".
pub fn cycle_member(role: &str, models: &[litmus_checker::Model], line: u32) -> String {
    let names: Vec<&str> = models.iter().map(|m| m.upper()).collect();
    format!("{role} — part of the {} cycle of line {line}", names.join("/"))
}

/// A statement in several cycles: "part of the TSO/PSO cycles of lines 8,
/// 13: reads y before … (line 8); writes x after … (line 13)", its roles
/// (at most three, then how many more) by the line each cycle is anchored at.
pub fn cycle_member_of_many(roles: &[(&str, u32)], models: &[litmus_checker::Model]) -> String {
    let names: Vec<&str> = models.iter().map(|m| m.upper()).collect();
    let mut lines: Vec<u32> = roles.iter().map(|&(_, l)| l).collect();
    lines.sort_unstable();
    lines.dedup();
    let lines: Vec<String> = lines.iter().map(u32::to_string).collect();
    let mut each: Vec<String> = Vec::new();
    for &(role, line) in roles {
        let item = format!("{role} (line {line})");
        if !each.contains(&item) {
            each.push(item);
        }
    }
    let more = each.len().saturating_sub(3);
    each.truncate(3);
    if more > 0 {
        each.push(format!("{more} more"));
    }
    format!("part of the {} cycles of lines {}: {}", names.join("/"), lines.join(", "), each.join("; "))
}

/// A load's values as far as its model's search went, short (inlay hints,
/// the CLI): `{0,1}`; `{0,1,…}` past [`litmus_checker::reads::CAP`]; `≥{0,1}` when
/// the search was cut or stopped (there may be more); `∅` when no
/// execution runs it; `?` when a cut search never ran it.
pub fn values(v: Option<&litmus_checker::reads::ValueSet>, c: &Coverage) -> String {
    let mut s = String::new();
    // A cut search that never ran the load knows nothing of it: `?`, not
    // an empty set to read as "at least nothing".
    if v.is_none() && *c != Coverage::Complete {
        return "?".into();
    }
    if *c != Coverage::Complete {
        s.push('≥');
    }
    match v {
        None => s.push('∅'),
        Some(v) => {
            let mut parts: Vec<String> = v.values.iter().map(|x| x.to_string()).collect();
            if v.more {
                parts.push("…".into());
            }
            s.push('{');
            s.push_str(&parts.join(","));
            s.push('}');
        }
    }
    s
}

/// The same, long (tooltips): "{0,1} (proved)", "at least {0,1} (within
/// bounds: …)", "at least {0,1} (unknown: timed out)".
pub fn values_long(v: Option<&litmus_checker::reads::ValueSet>, c: &Coverage) -> String {
    let short = values(v, c);
    match c {
        Coverage::Complete if v.is_none() => "none: no explored execution runs it (proved)".into(),
        Coverage::Complete => format!("{short} (proved)"),
        _ if v.is_none() => {
            format!("unknown: no explored execution ran it before the search stopped ({})", c.qualifier())
        }
        _ => format!("at least {} ({})", short.trim_start_matches('≥'), c.qualifier()),
    }
}

/// The numbers of a cycle's statements, in order.
pub const CIRCLED: [&str; 20] =
    ["①", "②", "③", "④", "⑤", "⑥", "⑦", "⑧", "⑨", "⑩", "⑪", "⑫", "⑬", "⑭", "⑮", "⑯", "⑰", "⑱", "⑲", "⑳"];

/// How a data race is removed, as the program's dialect writes it.
pub fn race_fix(p: &Program) -> &'static str {
    if p.dialect == litmus_ir::Dialect::Native {
        "fix: make both accesses atomic (`x@relaxed` or stronger, or declare the location `atomic`), \
         or order them by happens-before (a release store and an acquire load that reads it, between them)"
    } else {
        "fix: make both accesses atomic (`atomic_load_explicit`/`atomic_store_explicit`), \
         or order them by happens-before (a release store and an acquire load that reads it, between them)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use litmus_checker::certainty::Why;

    #[test]
    fn a_cut_search_that_never_ran_a_load_says_so() {
        // A 7-thread ring's hint read "PSO ≥{}".
        let cut = Coverage::Stopped(Why::Timeout);
        assert_eq!(values(None, &cut), "?");
        assert!(values_long(None, &cut).starts_with("unknown: no explored execution ran it"));
        assert_eq!(values(None, &Coverage::Complete), "∅");
    }
}
