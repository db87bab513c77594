//! Which explorer answers a model's outcome question, and the interleaving
//! one's outcome: source-DPOR over the machine's interleavings
//! ([`crate::dpor`]), or execution graphs ([`crate::graph`]) where they
//! apply and are cheaper. Both keep what they find the same way
//! ([`crate::outcome::Keeper`]).

use crate::dpor::{Control, ExecKind, Execution, Explorer, Limits};
use crate::machine::{Machine, Model, ThreadStatus};
use crate::options::Options;
use crate::outcome::{failure_prefix, Final, Keeper, ModelOutcome, Witness};
use crate::reads::Reads;
use litmus_ir::Program;
use std::time::Instant;

/// Explore `prog` under `model`.
pub fn explore(prog: &Program, model: Model, opts: &Options) -> ModelOutcome {
    if by_candidates(prog, model, opts) {
        return crate::candidates::explore(prog, model, opts);
    }
    if by_graph(prog, model, opts) {
        return crate::graph::explore(prog, model, opts, None);
    }
    explore_with(prog, model, opts, |_| {})
}

/// Are this model's outcomes explored by execution graph with these options?
pub fn by_graph(prog: &Program, model: Model, opts: &Options) -> bool {
    use crate::options::ExplorerKind;
    if by_candidates(prog, model, opts) {
        return false;
    }
    if model.is_axiomatic() {
        return true; // its only other explorer
    }
    let wanted = match opts.explorer {
        ExplorerKind::Graph => true,
        ExplorerKind::Interleaving => false,
        ExplorerKind::Candidates => !waits(prog),
        ExplorerKind::Auto => !waits(prog),
    };
    wanted && model.buffered() && crate::graph::supports(model, opts)
}

/// Are this model's outcomes explored as herd7 does, by candidate
/// executions ([`crate::candidates`]): a model given as data that allows a
/// `po ∪ rf` cycle, or any model given as data when asked; and every model
/// for a program with a store-conditional, which no machine runs (a
/// built-in model by its definition as data, if it has one); and a model
/// given as data for a program whose labels the graphs do not carry.
pub fn by_candidates(prog: &Program, model: Model, opts: &Options) -> bool {
    prog.candidates_only()
        || model.is_axiomatic()
            && (!model.by_graphs() || opts.explorer == crate::options::ExplorerKind::Candidates || prog.has_labels())
}

/// Does [`explore_with`] leave failing `await`/`lock` attempts waiting for
/// `m`'s program and model (its executions then have no failed attempt)?
pub fn leaves_waiting(m: &Machine<'_>, opts: &Options) -> bool {
    // (A preemption bound, SC's only, turns waiting off: see `explore_run`.)
    opts.waits
        && !by_graph(m.prog, m.model, opts)
        && (m.model.buffered() || opts.preemption_bound.is_none())
        && m.has_gates()
}

/// Does some thread await or take a lock? (Where source-DPOR already
/// visits about one execution per graph and is cheaper per execution:
/// fenced Dekker, Peterson, bakery. Loops alone do not make it so: a loop
/// that stores and retries has many interleavings per graph — Lamport's
/// fast mutex 355,038 executions against 59,754 graphs, 0.27 s against
/// 0.05 s under TSO.)
fn waits(prog: &Program) -> bool {
    use litmus_ir::{Instr, RmwOp};
    prog.threads
        .iter()
        .flat_map(|t| &t.code)
        .any(|i| matches!(i, Instr::AwaitStart { .. } | Instr::Rmw { op: RmwOp::Lock, .. }))
}

/// Does the SC exploration of `prog` (as the bounded engine runs it) end
/// within `n` executions? Cut off at the (n + 1)-th, and unmonitored: the
/// cheap question of whether the bounded engine is the cheaper one.
pub fn sc_executions_within(prog: &Program, opts: &Options, n: u64) -> bool {
    let machine = Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound);
    let mut ex = Explorer::new(&machine);
    let limits = Limits { budget: opts.budget.clone(), preemption_bound: opts.preemption_bound, waits_block: false };
    let mut seen = 0u64;
    ex.run(limits, |_| {
        seen += 1;
        if seen > n {
            Control::Stop
        } else {
            Control::Continue
        }
    });
    seen <= n && !opts.budget.stopped()
}

/// Explore, also handing every maximal execution to `observer`.
pub fn explore_with(
    prog: &Program,
    model: Model,
    opts: &Options,
    observer: impl FnMut(&Execution<'_>),
) -> ModelOutcome {
    if by_candidates(prog, model, opts) {
        // Its witnesses are whole candidates, not runs to follow.
        return crate::candidates::explore(prog, model, opts);
    }
    if by_graph(prog, model, opts) {
        // One execution per graph, linearized.
        return crate::graph::explore(prog, model, opts, Some(&mut crate::graph::Every(observer)));
    }
    // Nothing follows the events: attempts that would fail need not run.
    explore_run(prog, model, opts, &mut crate::dpor::NoListener, opts.waits, observer)
}

/// Explore with `listener` following the event log as the search extends and
/// backtracks (the online monitors' hook), and `observer` seeing every
/// maximal execution.
pub fn explore_listened(
    prog: &Program,
    model: Model,
    opts: &Options,
    listener: &mut dyn crate::dpor::EventListener,
    observer: impl FnMut(&Execution<'_>),
) -> ModelOutcome {
    explore_run(prog, model, opts, listener, false, observer)
}

fn explore_run(
    prog: &Program,
    model: Model,
    opts: &Options,
    listener: &mut dyn crate::dpor::EventListener,
    waits_block: bool,
    mut observer: impl FnMut(&Execution<'_>),
) -> ModelOutcome {
    let start = Instant::now();
    let machine = Machine::new(prog, model, opts.loop_bound, opts.buffer_bound);
    let mut ex = Explorer::new(&machine);
    let mut keep = Keeper::default();
    let mut reads = Reads::default();
    // A complete execution's observed values, looked up before any copy.
    let mut values: Vec<i64> = Vec::new();
    let preemption_bound = if !model.buffered() { opts.preemption_bound } else { None };
    let limits = Limits { budget: opts.budget.clone(), preemption_bound, waits_block };
    // How many first events of the current log `reads` holds already: an
    // execution reads only what changed since the one before (an execution
    // an `assume` pruned does not count: it does not exist).
    let mut read_upto = 0usize;
    ex.run_listened(limits, listener, |e| {
        observer(e);
        let from = read_upto.min(e.fresh);
        if e.kind == ExecKind::Pruned {
            read_upto = from;
        } else {
            reads.add_events(&e.events[from..]);
            read_upto = e.events.len();
        }
        if waits_block && e.kind != ExecKind::Pruned {
            // A thread left waiting: its attempt at the end, as the run that
            // tries every attempt sees it there.
            for t in 0..machine.threads {
                machine.attempt_reads(e.state, t, |stmt, cell, v| reads.add(stmt, cell, v));
            }
        }
        match e.kind {
            ExecKind::Complete => match Final::judge(prog, &machine, e.state) {
                Final::Filtered => {}
                Final::State { satisfies, .. } => {
                    machine.observe_into(e.state, &mut values);
                    if !keep.has_state(&values) {
                        keep.state(values.clone(), satisfies, Some(Witness::of(e)));
                    }
                }
                Final::Undefined(site) => {
                    if keep.wants_site(site) {
                        keep.condition_error(site, Some(Witness::of(e)));
                    }
                }
            },
            ExecKind::Failed => {
                for (thread, ts) in e.state.threads.iter().enumerate() {
                    if let ThreadStatus::Failed { stmt, kind, at } = *ts {
                        if !keep.has_failure(stmt, kind) {
                            // The witness stops at the failure.
                            let events = &e.events[..at as usize];
                            let schedule = failure_prefix(e.schedule, events, thread as u16);
                            let witness = Witness { events: events.to_vec(), schedule };
                            keep.failures(&[(thread as u16, stmt, kind)], Some(vec![witness]));
                            opts.budget.note_finding();
                        }
                    }
                }
            }
            ExecKind::Deadlock => {
                if keep.wants_deadlock() {
                    keep.deadlock(Some(Witness::of(e)));
                }
            }
            ExecKind::Pruned | ExecKind::Cut => {}
        }
        Control::Continue
    });
    keep.finish(prog, model, reads, ex.stats.clone(), start)
}
