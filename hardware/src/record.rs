//! Per-run histories in the history text format (`docs/history.md`): one
//! line per thread, `P0: W(x,1) R(y,0) F RMW(z,0,1)`, `#` comments, an
//! `init:` line for initial values other than 0.
//!
//! A history names the write a read saw by its value, so each value may be
//! written to a location at most once, and never its initial value. A
//! program that visibly breaks that (a constant stored twice, a constant in
//! a loop, its initial value stored, as `unlock` does) is refused before it
//! runs ([`check_program`]); what depends on values at run time is checked
//! per run ([`history`]). Conversions follow the history module's own
//! (`history::execution`): `fence`/`fence wr`/`MFENCE` are `F`, `fence ww`
//! and `fence rr` are dropped, an atomic that wrote back what it read is
//! `F R F`. Failed `await`/`lock` attempts are left out (they only read: a
//! history missing reads is consistent whenever the whole one is), and
//! counted in a comment.

use super::exec::Op;
use super::{show_state, show_stmt, Run, RunOutcome};
use litmus_history::unique::{Clash, UniqueWrites};
use litmus_ir::{Addr, Cell, Instr, Operand, Program};
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error(
        "cannot record histories: `{location}` is written {value} by {first} and by {second}; a history names the write a read saw by its value, so each value may be written to a location at most once"
    )]
    Twice { location: String, value: i64, first: String, second: String },
    #[error(
        "cannot record histories: `{location}` is written {value} in a loop by {site}, so possibly more than once; a history names the write a read saw by its value, so each value may be written to a location at most once"
    )]
    InLoop { location: String, value: i64, site: String },
    #[error(
        "cannot record histories: `{location}` is written {value}, its initial value, by {site}; a read of {value} would not say which write it saw"
    )]
    Initial { location: String, value: i64, site: String },
    #[error(
        "cannot record run {run}: `{location}` was written {value} by {first} and again by {second}; a history needs each value written to a location at most once"
    )]
    RunTwice { run: u64, location: String, value: i64, first: String, second: String },
    #[error(
        "cannot record run {run}: `{location}` was written {value}, its initial value, by {site}; a read of {value} would not say which write it saw"
    )]
    RunInitial { run: u64, location: String, value: i64, site: String },
}

/// Refuse a program whose constant stores already break "each value at
/// most once per location, never the initial one".
pub fn check_program(prog: &Program) -> Result<(), RecordError> {
    let mut seen = UniqueWrites::new(&prog.init);
    for (t, th) in prog.threads.iter().enumerate() {
        let t = t as u16;
        for (pc, ins) in th.code.iter().enumerate() {
            let Instr::Store { addr, val: Operand::Imm(value), stmt, .. } = *ins else { continue };
            let cell = match addr {
                Addr::Fixed(c) => c,
                Addr::Indexed { base, len, index: Operand::Imm(i) } if i >= 0 && i < len as i64 => base + i as Cell,
                _ => continue,
            };
            let location = prog.cell_name(cell);
            let site = show_stmt(prog, t, stmt);
            if seen.is_initial(cell as usize, value) {
                return Err(RecordError::Initial { location, value, site });
            }
            // A jump back over the store: it may run again.
            let in_loop = th.code[pc..].iter().any(|i| match *i {
                Instr::Jump { target } | Instr::Branch { target, .. } => (target as usize) <= pc,
                _ => false,
            });
            if in_loop {
                return Err(RecordError::InLoop { location, value, site });
            }
            if let Err(Clash::Again((t0, s0))) = seen.add(cell as usize, value, (t, stmt)) {
                return Err(RecordError::Twice { location, value, first: show_stmt(prog, t0, s0), second: site });
            }
        }
    }
    Ok(())
}

/// Run `run`'s history as text, or why it has none. `title` opens it as a
/// comment (the test and file, say).
pub fn history(prog: &Program, run: &Run<'_>, title: &str) -> Result<String, RecordError> {
    let mut written = UniqueWrites::new(&prog.init);
    for (t, tr) in run.traces.iter().enumerate() {
        for op in &tr.ops {
            let (cell, value, stmt) = match *op {
                Op::Write { cell, value, stmt } => (cell, value, stmt),
                Op::Rmw { cell, write, stmt, .. } => (cell, write, stmt),
                _ => continue,
            };
            let site = || show_stmt(prog, t as u16, stmt);
            let location = prog.cell_name(cell);
            match written.add(cell as usize, value, (t as u16, stmt)) {
                Ok(()) => {}
                Err(Clash::Initial) => {
                    return Err(RecordError::RunInitial { run: run.index, location, value, site: site() })
                }
                Err(Clash::Again((t0, s0))) => {
                    let first = show_stmt(prog, t0, s0);
                    return Err(RecordError::RunTwice { run: run.index, location, value, first, second: site() });
                }
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "# {title}");
    let _ =
        writeln!(out, "# run {} (batch {}, instance {}): {}", run.index, run.batch, run.instance, ending(prog, run));
    let inits: Vec<String> = prog
        .init
        .iter()
        .enumerate()
        .filter(|(_, &v)| v != 0)
        .map(|(c, v)| format!("{}={v}", prog.cell_name(c as Cell)))
        .collect();
    if !inits.is_empty() {
        let _ = writeln!(out, "init: {}", inits.join(" "));
    }
    for (th, tr) in prog.threads.iter().zip(&run.traces) {
        let ops: Vec<String> = tr.ops.iter().map(|op| op_text(prog, op)).collect();
        if ops.is_empty() {
            let _ = writeln!(out, "{}:", th.name);
        } else {
            let _ = writeln!(out, "{}: {}", th.name, ops.join(" "));
        }
    }
    for (th, tr) in prog.threads.iter().zip(&run.traces) {
        if tr.dropped_attempts > 0 {
            let n = tr.dropped_attempts;
            let s = if n == 1 { "" } else { "s" };
            let _ = writeln!(out, "# {}: {n} failed await/lock attempt{s} not recorded (they only read)", th.name);
        }
    }
    Ok(out)
}

fn ending(prog: &Program, run: &Run<'_>) -> String {
    match &run.outcome {
        RunOutcome::Final { values, satisfies } => {
            let cond = match satisfies {
                Some(true) => " (the condition holds)",
                Some(false) => " (the condition does not hold)",
                None => "",
            };
            format!("final state {}{cond}", show_state(prog, values))
        }
        RunOutcome::Filtered => "final state rejected by the filter".into(),
        RunOutcome::Undefined(site) => format!("the {} divides by zero", site.as_str()),
        RunOutcome::Failed => "a thread failed (assertion or run-time check)".into(),
        RunOutcome::Cut => "cut by the loop bound".into(),
        RunOutcome::Pruned => "pruned by an assume".into(),
        RunOutcome::Stuck => "an await or lock never succeeded (spin limit)".into(),
    }
}

fn op_text(prog: &Program, op: &Op) -> String {
    let loc = |c: &Cell| prog.cell_name(*c);
    match op {
        Op::Read { cell, value } => format!("R({},{value})", loc(cell)),
        Op::Write { cell, value, .. } => format!("W({},{value})", loc(cell)),
        Op::Rmw { cell, read, write, .. } => format!("RMW({},{read},{write})", loc(cell)),
        Op::Fence => "F".into(),
        Op::FencedRead { cell, value } => format!("F R({},{value}) F", loc(cell)),
    }
}
