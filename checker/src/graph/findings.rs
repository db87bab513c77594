//! What a graph search keeps — the first witness per final state, per
//! failing (statement, kind), the first four deadlocks and condition-error
//! sites — made independent of how many workers searched.
//!
//! A search (the whole tree, or one subtree of a parallel search) records
//! each graph it made a witness for (or tried to) with the graph's
//! [`Path`]. It tries whenever the graph is new *to what it searched so far
//! in depth-first order*, which includes every graph the sequential search
//! would try: what the sequential search had seen before a graph of this
//! subtree is a superset of what the subtree had. [`merge`] then replays the
//! sequential rules over all records in path order, so every answer —
//! which witness, which four deadlocks, how many findings went unwitnessed —
//! is the sequential search's, for any number of workers.

use super::consistency::Checker;
use super::explore::Path;
use super::graph::Graph;
use super::linearize::{self, Linear};
use crate::dpor::ExecKind;
use crate::machine::{FailureKind, Machine, ThreadStatus};
use crate::options::Options;
use crate::outcome::{failure_prefix, CondSite, Final, Keeper, Witness, KEPT};
use crate::reads::Reads;
use litmus_ir::{Program, StmtId};
use std::collections::BTreeSet;

/// One graph a witness was made (`Some`) or attempted (`None`: the machine
/// could not follow it within the buffer bound) for.
enum Found {
    State {
        values: Vec<i64>,
        satisfies: Option<bool>,
        witness: Option<Witness>,
    },
    CondError {
        site: CondSite,
        witness: Option<Witness>,
    },
    /// Every failing thread of the graph, each with its witness (the
    /// execution cut at its failure), or none at all.
    Failed {
        fails: Vec<(u16, StmtId, FailureKind)>,
        witnesses: Option<Vec<Witness>>,
    },
    Deadlock(Option<Witness>),
}

/// A search's records, in its depth-first order, and what it has seen.
#[derive(Default)]
pub struct Findings {
    found: Vec<(Path, Found)>,
    states: BTreeSet<Vec<i64>>,
    failures: Vec<(StmtId, FailureKind)>,
    deadlocks: usize,
    sites: Vec<CondSite>,
    /// The loads of every graph searched (a union: order does not matter).
    reads: Reads,
    /// The model has no machine (a `.cat` file): witnesses are runs of
    /// the built-in machine that names its violations where it can follow
    /// the graph, else the graphs written as logs ([`super::encode`]).
    naming: Option<crate::machine::Model>,
}

impl Findings {
    /// What a search under `model` keeps.
    pub fn new(model: crate::machine::Model) -> Findings {
        let naming = match model {
            crate::machine::Model::Cat(id) => Some(crate::catalog::get(id).naming),
            _ => None,
        };
        Findings { naming, ..Findings::default() }
    }

    /// `g` as a witness: the model's machine following it, or the graph
    /// itself as a log.
    pub(super) fn linear(&self, g: &Graph, m: &Machine<'_>, checker: &mut Checker) -> Option<Linear> {
        if let Some(naming) = self.naming {
            if checker.consistent(g, naming) {
                let follower = Machine::new(m.prog, naming, m.loop_bound, m.buffer_bound);
                if let Some(l) = linearize::linearize(g, &follower, checker) {
                    return Some(l);
                }
            }
            let l = super::encode::encode(g, m);
            debug_assert!(l.is_some(), "a consistent graph with a po ∪ rf cycle");
            return l;
        }
        linear(g, m, checker)
    }

    /// A complete graph `g` (final memory set) at `path`, which ended as
    /// `kind`: record it if it may be a finding. `m` is the model's machine.
    #[allow(clippy::too_many_arguments)]
    pub fn graph(
        &mut self,
        prog: &Program,
        m: &Machine<'_>,
        opts: &Options,
        g: &Graph,
        kind: ExecKind,
        checker: &mut Checker,
        path: &[u32],
    ) {
        if kind != ExecKind::Pruned {
            // Read-only events: loads and `lock` attempts that found it taken.
            for e in g.threads.iter().flatten().filter(|e| e.reads && !e.writes) {
                self.reads.add(e.stmt, e.cell, e.value);
            }
        }
        let found = match kind {
            ExecKind::Complete => match Final::of(prog, m, &g.st) {
                Final::Filtered => return,
                Final::State { values, satisfies } => {
                    if self.states.contains(&values) {
                        return;
                    }
                    let witness = self.linear(g, m, checker).map(whole);
                    if witness.is_some() {
                        self.states.insert(values.clone());
                    }
                    Found::State { values, satisfies, witness }
                }
                Final::Undefined(site) => {
                    if self.sites.len() >= KEPT || self.sites.contains(&site) {
                        return;
                    }
                    let witness = self.linear(g, m, checker).map(whole);
                    if witness.is_some() {
                        self.sites.push(site);
                    }
                    Found::CondError { site, witness }
                }
            },
            ExecKind::Failed => {
                let fails: Vec<(u16, StmtId, FailureKind)> =
                    g.st.threads
                        .iter()
                        .enumerate()
                        .filter_map(|(t, s)| match *s {
                            ThreadStatus::Failed { stmt, kind, .. } => Some((t as u16, stmt, kind)),
                            _ => None,
                        })
                        .collect();
                if fails.iter().all(|&(_, stmt, kind)| self.failures.contains(&(stmt, kind))) {
                    return;
                }
                let witnesses = self.linear(g, m, checker).map(|l| {
                    fails
                        .iter()
                        .map(|&(thread, ..)| {
                            // The witness stops at the failure.
                            let at = match l.state.threads[thread as usize] {
                                ThreadStatus::Failed { at, .. } => at as usize,
                                _ => l.events.len(),
                            };
                            let events = &l.events[..at];
                            Witness { events: events.to_vec(), schedule: failure_prefix(&l.schedule, events, thread) }
                        })
                        .collect::<Vec<_>>()
                });
                if witnesses.is_some() {
                    for &(_, stmt, kind) in &fails {
                        if !self.failures.contains(&(stmt, kind)) {
                            self.failures.push((stmt, kind));
                        }
                    }
                    opts.budget.note_finding();
                }
                Found::Failed { fails, witnesses }
            }
            ExecKind::Deadlock => {
                if self.deadlocks >= KEPT {
                    return;
                }
                let witness = self.linear(g, m, checker).map(whole);
                self.deadlocks += usize::from(witness.is_some());
                Found::Deadlock(witness)
            }
            ExecKind::Pruned | ExecKind::Cut => return,
        };
        self.found.push((path.to_vec(), found));
    }
}

/// The sequential search's findings from the records of searches that
/// together covered its tree (each record's path unique), and the loads of
/// every graph searched.
pub fn merge(parts: Vec<Findings>) -> (Keeper, Reads) {
    let mut reads = Reads::default();
    for p in &parts {
        reads.union(&p.reads);
    }
    let mut all: Vec<(Path, Found)> = parts.into_iter().flat_map(|f| f.found).collect();
    // Stable: a sequential search's records all have the root's path, in order.
    all.sort_by(|a, b| a.0.cmp(&b.0));
    let mut keep = Keeper::default();
    for (_, found) in all {
        match found {
            Found::State { values, satisfies, witness } => keep.state(values, satisfies, witness),
            Found::CondError { site, witness } => keep.condition_error(site, witness),
            Found::Failed { fails, witnesses } => keep.failures(&fails, witnesses),
            Found::Deadlock(witness) => keep.deadlock(witness),
        }
    }
    (keep, reads)
}

/// `g` as an execution of the model's machine.
pub(super) fn linear(g: &Graph, m: &Machine<'_>, checker: &mut Checker) -> Option<Linear> {
    let l = linearize::linearize(g, m, checker);
    debug_assert!(l.is_some(), "a consistent graph the machine cannot follow");
    #[cfg(debug_assertions)]
    if let Some(l) = &l {
        if let Err(e) = linearize::matches(g, m, &l.events) {
            panic!("linearized graph differs from its replay: {e}");
        }
    }
    l
}

fn whole(l: Linear) -> Witness {
    Witness { events: l.events, schedule: l.schedule }
}
