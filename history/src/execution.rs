//! The history of an execution the checker produced: per thread, its loads,
//! stores, atomics and fences in program order. Under TSO/PSO a store sits
//! where it was issued (its `Store` event); its commit only decides the
//! store order, which is what a history leaves out. Fences that order a
//! store before a later load under TSO (`fence`, `fence wr`, x86 `mfence`)
//! become `F`; the others order nothing TSO does not already.
//!
//! A history names the write a read took its value from by the value, so
//! the program must write each value to a location at most once and never
//! its initial value; otherwise the conversion fails. An atomic that wrote
//! back the value it read (a failed compare-and-swap) is a read between
//! two fences: it changed nothing, and it drained the buffer.

use super::model::{History, OpKind, ThreadSpec};
use super::unique::{Clash, UniqueWrites};
use litmus_checker::machine::{Event, EventKind};
use litmus_ir::{FenceKind, Program, Span};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExecutionError {
    #[error(
        "{thread} writes {value} to {loc}, which {first} wrote already: a history needs each value written to a location at most once (make the program write distinct values)"
    )]
    Duplicate { loc: String, value: i64, thread: String, first: String },
    #[error(
        "{thread} writes {value} to {loc}, its initial value: a read of {value} would not say which write it read"
    )]
    WritesInitial { loc: String, value: i64, thread: String },
}

/// The history of an execution's event log.
pub fn from_events(prog: &Program, events: &[Event]) -> Result<History, ExecutionError> {
    let cells = prog.mem_size();
    // Locations: every cell, so ids are cell numbers.
    let locs: Vec<String> = (0..cells as u32).map(|c| prog.cell_name(c)).collect();
    let init = prog.init.clone();
    let thread_name = |t: usize| prog.threads.get(t).map_or_else(|| format!("P{t}"), |th| th.name.clone());
    let mut written = UniqueWrites::new(&init);
    let mut threads: Vec<Vec<(OpKind, Span)>> = vec![Vec::new(); prog.threads.len()];
    for e in events {
        let t = e.thread as usize;
        let loc = e.cell as usize;
        let kinds: Vec<OpKind> = match e.kind {
            // An atomic that wrote nothing new (a failed cas, one that wrote
            // back what it read): a read, fenced as its atomic is (as `run`
            // records it).
            _ if e.is_atomic() && e.value == e.old => {
                vec![OpKind::Fence, OpKind::Read { loc, value: e.old }, OpKind::Fence]
            }
            EventKind::Load => vec![OpKind::Read { loc, value: e.value }],
            EventKind::Store => vec![OpKind::Write { loc, value: e.value }],
            EventKind::Rmw => vec![OpKind::Rmw { loc, read: e.old, write: e.value }],
            EventKind::Fence(FenceKind::Full | FenceKind::WR) => vec![OpKind::Fence],
            EventKind::Fence(_) | EventKind::Commit => vec![],
        };
        for k in &kinds {
            if let Some(value) = k.written_value() {
                let (loc_name, thread) = (locs[loc].clone(), thread_name(t));
                match written.add(loc, value, t) {
                    Ok(()) => {}
                    Err(Clash::Initial) => return Err(ExecutionError::WritesInitial { loc: loc_name, value, thread }),
                    Err(Clash::Again(first)) => {
                        let first = thread_name(first);
                        return Err(ExecutionError::Duplicate { loc: loc_name, value, thread, first });
                    }
                }
            }
        }
        threads[t].extend(kinds.into_iter().map(|k| (k, Span::default())));
    }
    let specs = threads
        .into_iter()
        .enumerate()
        .map(|(t, ops)| ThreadSpec { name: thread_name(t), span: Span::default(), ops })
        .collect();
    // Values are unique, and every value read was written by some event
    // or is the initial one.
    match History::new(locs, init, specs) {
        Ok(h) => Ok(h),
        Err((kind, _)) => unreachable!("an execution's history is well formed: {kind}"),
    }
}
