//! Executions told in words, one step per event, for humans (CLI output,
//! editor hovers). Plain text only: no protocol or terminal types here.

use litmus_checker::machine::{Event, EventKind, Model, NONE};
use litmus_checker::model::Buffers;
use litmus_ir::Program;

/// One numbered step of a witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub thread: String,
    pub line: u32,
    pub col: u32,
    /// The source statement, as written.
    pub statement: String,
    /// What happened: `load y = 0 (initial value)`.
    pub action: String,
}

fn source_of(prog: &Program, events: &[Event], i: u32) -> String {
    if i == NONE {
        return "initial value".into();
    }
    let e = &events[i as usize];
    let (e, what) =
        if e.kind == EventKind::Commit && e.store != NONE { (&events[e.store as usize], "") } else { (e, "") };
    let s = &prog.stmts[e.stmt as usize];
    format!("{}from {} `{}`, line {}", what, prog.threads[e.thread as usize].name, s.text, s.line)
}

/// Under PSLO, did load `i` read a value memory no longer held (a write to
/// its cell reached memory after its source and before it)?
fn stale(events: &[Event], i: usize) -> bool {
    let e = &events[i];
    events[..i].iter().enumerate().any(|(j, w)| {
        w.cell == e.cell && matches!(w.kind, EventKind::Commit | EventKind::Rmw) && (e.rf == NONE || j > e.rf as usize)
    })
}

/// A model the candidate explorer answers (one that lets a read take a
/// write not yet made, ARM's or RISC-V's; any model given as data for a
/// program with labels, C11's orders) has executions, not runs: its
/// witness is each thread's events in program order, told without buffers
/// or commits.
pub fn told_as_execution(prog: &Program, model: Model) -> bool {
    prog.candidates_only() || model.buffers() == Buffers::Axiomatic && (!model.by_graphs() || prog.has_labels())
}

/// A whole candidate's coherence, from its commits (each cell's writes in
/// order): `coherence of x: 0 (initial), 1 (P0 `STR W0,[X1]`, line 15)`,
/// for each cell with two writes or more, the initial one counted.
pub fn coherence(prog: &Program, events: &[Event]) -> Vec<String> {
    let mut by_cell: std::collections::BTreeMap<u32, Vec<&Event>> = Default::default();
    for e in events.iter().filter(|e| e.kind == EventKind::Commit && e.store != NONE) {
        by_cell.entry(e.cell).or_default().push(&events[e.store as usize]);
    }
    by_cell
        .into_iter()
        .map(|(cell, ws)| {
            let mut order = vec![format!("{} (initial)", prog.show_value(prog.init[cell as usize]))];
            for w in ws {
                let s = &prog.stmts[w.stmt as usize];
                let t = &prog.threads[w.thread as usize].name;
                order.push(format!("{} ({t} `{}`, line {})", prog.show_value(w.value), s.text, s.line));
            }
            format!("coherence of {}: {}", prog.cell_name(cell), order.join(" → "))
        })
        .collect()
}

pub fn steps(prog: &Program, model: Model, events: &[Event]) -> Vec<Step> {
    let graph = told_as_execution(prog, model);
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| !(graph && e.kind == EventKind::Commit))
        .map(|(i, e)| {
            let s = &prog.stmts[e.stmt as usize];
            let cell = if e.cell == NONE { String::new() } else { prog.cell_name(e.cell) };
            let v = |x: i64| prog.show_value(x);
            let action = match e.kind {
                EventKind::Load => {
                    let forwarded = !graph
                        && e.rf != NONE
                        && events[e.rf as usize].kind == EventKind::Store
                        && events[e.rf as usize].thread == e.thread
                        && model.buffered();
                    if forwarded {
                        format!("load {cell} = {} (forwarded from its own buffer)", v(e.value))
                    } else if model.has_histories() && stale(events, i) {
                        let src = source_of(prog, events, e.rf);
                        format!("load {cell} = {} ({src}; an older value, still in its history)", v(e.value))
                    } else if e.is_atomic() {
                        format!(
                            "atomic {cell}: reads {}, fails, writes nothing ({})",
                            v(e.value),
                            source_of(prog, events, e.rf)
                        )
                    } else {
                        format!("load {cell} = {} ({})", v(e.value), source_of(prog, events, e.rf))
                    }
                }
                EventKind::Store if !model.buffered() || graph => format!("store {cell} = {}", v(e.value)),
                EventKind::Store => {
                    format!("store {cell} = {} into {}'s buffer", v(e.value), prog.threads[e.thread as usize].name)
                }
                EventKind::Commit => format!("commit {cell} = {} to memory", v(e.value)),
                EventKind::Rmw => {
                    if e.old == e.value {
                        format!("atomic {cell}: reads {}, leaves it", v(e.old))
                    } else {
                        format!("atomic {cell}: {} → {}", v(e.old), v(e.value))
                    }
                }
                EventKind::Fence(k) => format!("fence {}", k.as_str()),
            };
            Step {
                thread: prog.threads[e.thread as usize].name.clone(),
                line: s.line,
                col: s.col,
                statement: s.text.clone(),
                action,
            }
        })
        .collect()
}

/// The steps as aligned text lines: `  3  P1  13:3  let r1 = x   load x = 0 (initial value)`.
pub fn lines(prog: &Program, model: Model, events: &[Event]) -> Vec<String> {
    let st = steps(prog, model, events);
    let wt = st.iter().map(|s| s.thread.len()).max().unwrap_or(0);
    let ws = st.iter().map(|s| s.statement.chars().count().min(40)).max().unwrap_or(0);
    let wn = st.len().to_string().len();
    st.iter()
        .enumerate()
        .map(|(i, s)| {
            let mut stmt: String = s.statement.chars().take(40).collect();
            if s.statement.chars().count() > 40 {
                stmt.pop();
                stmt.push('…');
            }
            let pad = ws - stmt.chars().count();
            format!(
                "{:>wn$}  {:<wt$}  {:>5}  {}{}   {}",
                i + 1,
                s.thread,
                format!("{}:{}", s.line, s.col),
                stmt,
                " ".repeat(pad),
                s.action
            )
        })
        .collect()
}
