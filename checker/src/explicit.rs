//! Robustness by explicit exploration, for PSLO (no monitor decides it from
//! SC executions): every execution of the model whose trace has a
//! happens-before cycle is a violation — the execution is its own witness.
//!
//! A violation is named, as the monitors' are, by a statement pair of the
//! cycle: an edge `a →po b` whose order the execution did not keep. When
//! each event *takes effect*, in log order: a store when it commits, an
//! atomic when it runs, a load when the value it read was the memory value
//! (just before the write that replaced it, if the load read a stale value
//! from its history; just after its source commits if it forwarded). Every
//! rf, co and fr edge goes forward in that order, so a cycle has some po
//! edge that goes backward: `b` took effect before `a`. A load–load pair
//! is PSLO's own reordering (fixed by `fence rr`), a store–load pair a
//! delayed store (`fence wr`), a store–store pair a store overtaken by a
//! later one (`fence ww`).

use crate::certainty::{Answer, Coverage, Why};
use crate::dpor::{Control, Explorer, Limits};
use crate::machine::{Event, EventKind, Machine, Model, NONE};
use crate::model::Access;
use crate::monitor::MonitorKind;
use crate::options::Options;
use crate::reference::replay;
use crate::trace::{Edge, Trace};
use crate::violation::{CycleStep, Robustness, Spot, Violation};
use crate::witness::RelaxedWitness;
use litmus_ir::{FenceKind, Program, StmtId};
use std::collections::BTreeMap;

/// When each event takes effect, in log order: event `k` at `2k + 2`, a
/// value in between for a load that read a replaced value or forwarded
/// (see the module doc). Fences, commits and stores never committed get
/// `u64::MAX`.
pub fn effect_times(log: &[Event]) -> Vec<u64> {
    // The writes (commits, atomics) of each cell in log order, and where a
    // buffered store committed.
    let sc = !log.iter().any(|e| e.kind == EventKind::Commit);
    let mut writes: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut commit_of = vec![NONE; log.len()];
    for (i, e) in log.iter().enumerate() {
        match e.kind {
            EventKind::Commit => {
                writes.entry(e.cell).or_default().push(i as u32);
                if e.store != NONE {
                    commit_of[e.store as usize] = i as u32;
                }
            }
            // An atomic, or an SC store: its own write.
            EventKind::Rmw => writes.entry(e.cell).or_default().push(i as u32),
            EventKind::Store if sc => writes.entry(e.cell).or_default().push(i as u32),
            _ => {}
        }
    }
    // The first write of the cell after log index `w` (`NONE`: before all).
    let next_write = |cell: u32, w: u32| -> Option<u32> {
        let ws = writes.get(&cell)?;
        let k = if w == NONE { 0 } else { ws.partition_point(|&x| x <= w) };
        ws.get(k).copied()
    };
    log.iter()
        .enumerate()
        .map(|(i, e)| {
            // Event k takes effect at 2k + 2; odd values fall just between.
            let at = |k: u64| 2 * k + 2;
            let i = i as u64;
            match e.kind {
                EventKind::Rmw => at(i),
                EventKind::Store if sc => at(i),
                EventKind::Store => match commit_of[i as usize] {
                    NONE => u64::MAX,
                    c => at(c as u64),
                },
                EventKind::Load => {
                    let forwarded = e.rf != NONE && log[e.rf as usize].kind == EventKind::Store;
                    if forwarded {
                        // Just after its source commits.
                        match commit_of[e.rf as usize] {
                            NONE => at(i),
                            c => at(c as u64) + 1,
                        }
                    } else {
                        // Just before the write that replaced its value.
                        match next_write(e.cell, e.rf) {
                            Some(n) if (n as u64) < i => at(n as u64) - 1,
                            _ => at(i),
                        }
                    }
                }
                EventKind::Commit | EventKind::Fence(_) => u64::MAX,
            }
        })
        .collect()
}

/// The po edges `a →po b` of a cycle whose order the execution did not
/// keep (`b` took effect before `a`), as (a, b) log indices.
pub fn relaxed_pairs(log: &[Event], cycle: &[(u32, Edge)]) -> Vec<(u32, u32)> {
    let eff = effect_times(log);
    let n = cycle.len();
    (0..n)
        .filter(|&k| cycle[k].1 == Edge::Po)
        .map(|k| (cycle[k].0, cycle[(k + 1) % n].0))
        .filter(|&(a, b)| eff[b as usize] < eff[a as usize])
        .collect()
}

/// The pairs of `keys` (statement of `a`, statement of `b`) an execution
/// exhibits: events of those statements, `a` before `b` in one thread, on a
/// common hb cycle (one strongly connected component), `b` taking effect
/// before `a`.
pub fn exhibited(log: &[Event], keys: &[(StmtId, StmtId)]) -> Vec<bool> {
    let trace = Trace::of(log);
    let comp = trace.components();
    let eff = effect_times(log);
    let mut at: BTreeMap<StmtId, Vec<usize>> = BTreeMap::new();
    for (k, &i) in trace.events.iter().enumerate() {
        at.entry(log[i as usize].stmt).or_default().push(k);
    }
    let none = Vec::new();
    keys.iter()
        .map(|&(sa, sb)| {
            let aa = at.get(&sa).unwrap_or(&none);
            let bb = at.get(&sb).unwrap_or(&none);
            aa.iter().any(|&ka| {
                let a = trace.events[ka] as usize;
                bb.iter().any(|&kb| {
                    let b = trace.events[kb] as usize;
                    a < b && log[a].thread == log[b].thread && comp[ka] == comp[kb] && eff[b] < eff[a]
                })
            })
        })
        .collect()
}

/// The store a forwarded load read (its delay is what the pair shows), or
/// the event itself.
fn delayed(log: &[Event], a: u32) -> u32 {
    let e = &log[a as usize];
    if e.kind == EventKind::Load && e.rf != NONE && log[e.rf as usize].kind == EventKind::Store {
        e.rf
    } else {
        a
    }
}

/// The weakest fence that orders `a` (or the store it forwarded) before `b`.
pub fn fence_kind(model: Model, log: &[Event], a: u32, b: u32) -> FenceKind {
    let access = |kind: EventKind| match kind {
        EventKind::Store => Access::Write,
        EventKind::Rmw => Access::Update,
        _ => Access::Read,
    };
    model.weakest_fence(access(log[delayed(log, a) as usize].kind), access(log[b as usize].kind))
}

/// Statements after which a fence orders `a` (or the store it forwarded)
/// before `b`: those of the thread from there up to `b`, that fall through.
fn candidates(prog: &Program, model: Model, log: &[Event], a: u32, b: u32) -> Vec<(Spot, FenceKind)> {
    crate::violation::fence_spots(prog, log, log[b as usize].thread, delayed(log, a), b, fence_kind(model, log, a, b))
}

/// A violation's two events (log indices) and its cycle from the first.
type Named = (u32, u32, Vec<(u32, Edge)>);

/// How the violation `a →po b` (b took effect first) of a cyclic execution
/// is named, with its cycle from the first event named. PSLO: by the pair
/// itself, a load that forwarded by the store it read (with a cycle through
/// that store). TSO and PSO: as their monitors and attacks name theirs — the
/// delayed store and the other thread's access that closes the cycle on its
/// location (fr or co into it), which is what harm looks for in a trace.
/// `None`: this pair cannot be named so.
fn name(model: Model, log: &[Event], trace: &Trace, cycle: &[(u32, Edge)], a: u32, b: u32) -> Option<Named> {
    let store = delayed(log, a);
    let from = |first: u32, path: Vec<(u32, Edge)>| std::iter::once((first, Edge::Po)).chain(path).collect::<Vec<_>>();
    if model.has_histories() {
        // A load that forwarded from its own thread's buffer took effect
        // with that store: the store is what was delayed past `b`.
        if store != a {
            if let Some(path) = trace.path(log, b, store) {
                return Some((store, b, from(store, path)));
            }
        }
        let at = cycle.iter().position(|&(ev, _)| ev == a).unwrap_or(0);
        let mut rotated = cycle[at..].to_vec();
        rotated.extend_from_slice(&cycle[..at]);
        return Some((a, b, rotated));
    }
    let s = &log[store as usize];
    if s.kind != EventKind::Store {
        return None;
    }
    let path = trace.path_until(log, b, |v, w, e| {
        w == store && matches!(e, Edge::Fr | Edge::Co) && log[v as usize].thread != s.thread
    })?;
    let closing = path.last()?.0;
    Some((store, closing, from(store, path)))
}

struct Group {
    v: Option<Violation>,
    occurrences: u64,
}

/// The violations of executions that are their own witnesses, grouped by
/// the statement pair that names them (PSLO's executions; the graphs of a
/// model given as data, written as logs).
pub struct Namer<'p> {
    prog: &'p Program,
    model: Model,
    groups: BTreeMap<(StmtId, StmtId), Group>,
    unnamed: std::collections::BTreeSet<(StmtId, StmtId)>,
}

impl<'p> Namer<'p> {
    pub fn new(prog: &'p Program, model: Model) -> Self {
        Namer { prog, model, groups: BTreeMap::new(), unnamed: Default::default() }
    }

    /// One execution (`log`, run by `schedule`): a violation per po edge of
    /// its hb cycle that it did not keep, if it has one. `after(b)` is the
    /// state right after event `b`'s transition and how many events lead
    /// to it (to continue from). Returns the pairs it was named by (an
    /// unnamed one's unconfirmed pair).
    pub fn execution(
        &mut self,
        opts: &Options,
        log: &[Event],
        schedule: &[u32],
        mut after: impl FnMut(u32) -> (crate::machine::State, usize),
    ) -> Vec<(StmtId, StmtId)> {
        let (prog, model) = (self.prog, self.model);
        let trace = Trace::of(log);
        let Some(cycle) = trace.cycle() else { return Vec::new() };
        let mut keys = Vec::new();
        let mut pairs = relaxed_pairs(log, &cycle);
        if pairs.is_empty() {
            // Cannot happen (rf, co and fr all go forward in effect order);
            // were it to, the cycle still makes the program not robust.
            debug_assert!(false, "a cycle with every po edge kept");
            let n = cycle.len();
            pairs
                .extend((0..n).filter(|&k| cycle[k].1 == Edge::Po).map(|k| (cycle[k].0, cycle[(k + 1) % n].0)).take(1));
        }
        let mut named = false;
        for (a, b) in pairs {
            let Some((first, second, rotated)) = name(model, log, &trace, &cycle, a, b) else { continue };
            named = true;
            let key = (log[first as usize].stmt, log[second as usize].stmt);
            keys.push(key);
            let g = self.groups.entry(key).or_insert(Group { v: None, occurrences: 0 });
            g.occurrences += 1;
            if g.v.is_some() {
                continue;
            }
            let (state_after_access, before_drain) = after(b);
            opts.budget.note_finding();
            g.v = Some(Violation {
                model,
                store_stmt: key.0,
                access_stmt: key.1,
                cycle: rotated
                    .iter()
                    .map(|&(ev, edge)| CycleStep { thread: log[ev as usize].thread, stmt: log[ev as usize].stmt, edge })
                    .collect(),
                witness: RelaxedWitness {
                    schedule: schedule.to_vec(),
                    events: log.to_vec(),
                    before_drain,
                    state_after_access: Some(state_after_access),
                    cycle: rotated,
                },
                sc_events: log[..=b as usize].to_vec(),
                harm: Answer::Unknown(Why::Pending),
                occurrences: 0,
                candidates: candidates(prog, model, log, a, b),
                fence: Vec::new(),
                attack: None,
                finals: None,
            });
        }
        if !named {
            // A cycle no pair of which could be named as the model's
            // violations are: robustness stays unknown, never "robust".
            let (a, b) = relaxed_pairs(log, &cycle).first().copied().unwrap_or((cycle[0].0, cycle[0].0));
            let key = (log[a as usize].stmt, log[b as usize].stmt);
            self.unnamed.insert(key);
            keys.push(key);
        }
        keys
    }

    /// The answer, for a search that went as far as `coverage` says.
    pub fn finish(self, monitor: MonitorKind, coverage: Coverage) -> Robustness {
        let mut violations: Vec<Violation> = self
            .groups
            .into_values()
            .filter_map(|g| {
                g.v.map(|mut v| {
                    v.occurrences = g.occurrences;
                    v
                })
            })
            .collect();
        violations.sort_by_key(|v| v.key());
        let unconfirmed = self.unnamed.into_iter().collect();
        Robustness::found(self.model, monitor, violations, unconfirmed, coverage)
    }
}

/// PSLO robustness: explore every execution; each one with a cyclic trace
/// gives a violation per po edge of its cycle that it did not keep.
pub fn robustness(prog: &Program, model: Model, opts: &Options) -> Robustness {
    let m = Machine::new(prog, model, opts.loop_bound, opts.buffer_bound);
    let mut ex = Explorer::new(&m);
    let mut namer = Namer::new(prog, model);
    let limits = Limits { budget: opts.budget.clone(), preemption_bound: None, waits_block: false };
    ex.run(limits, |e| {
        namer.execution(opts, e.events, e.schedule, |b| {
            let steps = (e.events[b as usize].step as usize + 1).min(e.schedule.len());
            let (state_after_access, prefix) = replay(&m, &e.schedule[..steps]);
            (state_after_access, prefix.len())
        });
        Control::Continue
    });
    namer.finish(MonitorKind::Explicit, Coverage::of_stats(&ex.stats))
}
