//! Which single fence removes which violation, measured for every candidate
//! position in one SC exploration instead of one re-check per position.
//!
//! The program gets a full fence after every position at once (IR
//! insertion). Under SC a fence is a local no-op that only logs its event,
//! so the SC executions (and the schedules DPOR explores) are those of the
//! unfenced program. A BSS monitor per (position, model) skips every
//! measured fence but its own ([`Bss::measuring`]): it sees what it would
//! see in a re-check with that fence alone. A violation is removed by a
//! position when its monitor never signals the violation's statement pair
//! — known only if the exploration finished. A monitor that has signalled
//! every pair it watches has nothing left to tell and stops listening.
//!
//! Only the complete BSS monitor can be measured so: Sober (TSO), the
//! paper's BSS (both cross-checked by the model's own executions) and PSLO
//! (its own exploration) are re-checked per position
//! ([`crate::fences::Rechecks`]).
//! A test holds both ways to the same answers.

use crate::certainty::Coverage;
use crate::clocks::Clocks;
use crate::machine::{Event, Model};
use crate::monitor::MonitorKind;
use crate::monitor::{Bss, Forcing};
use crate::options::Options;
use crate::violation::Violation;
use litmus_dsl::edit::FenceInsertion;
use litmus_dsl::ir::StmtId;
use litmus_dsl::{FenceKind, Program};
use std::collections::HashMap;

/// Can this model's violations be measured here (a BSS monitor decides it)?
pub fn measurable(model: Model, monitor: MonitorKind) -> bool {
    // A monitor that can miss violations cannot measure that a fence
    // removed one: its re-checks explore the model's executions too.
    model.monitored() && monitor.complete_for(model)
}

struct Watch {
    bss: Bss,
    model: Model,
    /// Indices (into the violations) of the pairs not signalled yet.
    open: Vec<usize>,
}

struct Measuring<'v> {
    keys: &'v [(Model, StmtId, StmtId)],
    watches: Vec<Option<Watch>>,
    /// A monitor per (fence set, model) with every fence of the set: it
    /// listens until its first signal (`signalled`).
    sets: Vec<Option<Bss>>,
    signalled: Vec<bool>,
    listened: usize,
    /// The monitors are still to be cut back to `listened`.
    cut: bool,
}

impl crate::dpor::EventListener for Measuring<'_> {
    fn on_events(&mut self, log: &[Event], from: usize, clocks: Clocks<'_>) {
        if self.cut {
            // Cuts come one event at a time as the search backtracks.
            self.cut = false;
            for w in self.watches.iter_mut().flatten() {
                w.bss.truncate(from);
            }
            for b in self.sets.iter_mut().flatten() {
                b.truncate(from);
            }
        }
        let mut raws = Vec::new();
        for i in from..log.len() {
            for slot in self.watches.iter_mut() {
                let Some(w) = slot else { continue };
                w.bss.push(log, i, clocks, &mut |_, r| raws.push(r));
                for r in raws.drain(..) {
                    let key = (w.model, log[r.store as usize].stmt, log[r.access as usize].stmt);
                    w.open.retain(|&k| self.keys[k] != key);
                }
                if w.open.is_empty() {
                    *slot = None;
                }
            }
            for (slot, signalled) in self.sets.iter_mut().zip(&mut self.signalled) {
                let Some(b) = slot else { continue };
                b.push(log, i, clocks, &mut |_, _| *signalled = true);
                if *signalled {
                    *slot = None;
                }
            }
        }
        self.listened = log.len();
    }

    fn on_truncate(&mut self, len: usize) {
        if len < self.listened {
            self.listened = len;
            self.cut = true;
        }
    }
}

/// What one measuring exploration showed.
pub struct Measured {
    /// For each violation, the positions after which a full fence alone
    /// removes it.
    pub kills: Vec<Vec<StmtId>>,
    /// For each fence set asked about and each model measured, in that
    /// order: did its monitor, with all the set's fences, never signal?
    /// Then the program with that set is robust under the model, as far as
    /// `coverage` goes (BSS is complete: a violation would have signalled).
    pub quiet: Vec<bool>,
    /// The measured models, in `quiet`'s order.
    pub models: Vec<Model>,
    pub coverage: Coverage,
}

/// For each violation (all of measurable models), the positions after which
/// a full fence alone removes it, and in the same exploration whether each
/// of `sets` (full fences after positions of `positions`) makes the program
/// robust: the re-checks the fence search would otherwise run. `None` if
/// the exploration was stopped.
pub fn measure(
    prog: &Program,
    positions: &[StmtId],
    violations: &[Violation],
    monitor: MonitorKind,
    opts: &Options,
    sets: &[Vec<StmtId>],
) -> Option<Measured> {
    let mut kills = vec![Vec::new(); violations.len()];
    if positions.is_empty() || violations.is_empty() {
        return Some(Measured { kills, quiet: Vec::new(), models: Vec::new(), coverage: Coverage::Complete });
    }
    let keys: Vec<(Model, StmtId, StmtId)> =
        violations.iter().map(|v| (v.model, v.store_stmt, v.access_stmt)).collect();
    let models: Vec<Model> = Model::ALL.into_iter().filter(|&m| violations.iter().any(|v| v.model == m)).collect();
    let ins: Vec<FenceInsertion> = positions.iter().map(|&stmt| FenceInsertion::after(stmt, FenceKind::Full)).collect();
    let (fenced, traced) = litmus_dsl::fence_ir::insert_fences_traced(prog, &ins);
    let first = prog.stmts.len() as StmtId;
    let forcing = if monitor == MonitorKind::BssInterleaving { Forcing::Interleaving } else { Forcing::Causal };
    let mut own_of: HashMap<StmtId, Vec<StmtId>> = HashMap::new();
    for &(p, f) in &traced {
        own_of.entry(p).or_default().push(f);
    }
    // Each set's monitors act on all the set's fences.
    let mut sets_bss = Vec::new();
    for set in sets {
        let own: Vec<StmtId> = set.iter().flat_map(|p| own_of.get(p).cloned().unwrap_or_default()).collect();
        for &m in &models {
            sets_bss.push(Some(Bss::new(&fenced, &[m], forcing).measuring(first, own.clone())));
        }
    }
    let mut watches = Vec::new();
    for p in positions {
        let own = own_of.remove(p).unwrap_or_default();
        // A fence drains its own thread's buffers only, so under BSS it can
        // force (and so un-signal) only that thread's stores.
        let threads: Vec<u16> = own.iter().map(|&f| fenced.stmts[f as usize].thread).collect();
        for &m in &models {
            let open: Vec<usize> = (0..keys.len())
                .filter(|&k| keys[k].0 == m && threads.contains(&prog.stmts[keys[k].1 as usize].thread))
                .collect();
            // Nothing to watch: nothing to remove.
            watches.push((!open.is_empty()).then(|| Watch {
                bss: Bss::new(&fenced, &[m], forcing).measuring(first, own.clone()),
                model: m,
                open,
            }));
        }
    }
    let signalled = vec![false; sets_bss.len()];
    let mut listener = Measuring { keys: &keys, watches, sets: sets_bss, signalled, listened: 0, cut: false };
    // One exploration (DPOR dominates: splitting the monitors over threads
    // would explore again per part).
    let sc = crate::explore::explore_listened(&fenced, Model::Sc, opts, &mut listener, |_| {});
    if !sc.coverage.finished() {
        return None;
    }
    // Per position: which pairs stayed unsignalled under its monitors.
    let mut removed = vec![vec![true; keys.len()]; positions.len()];
    for (i, w) in listener.watches.iter().enumerate() {
        let row = &mut removed[i / models.len()];
        let model = models[i % models.len()];
        for (k, key) in keys.iter().enumerate() {
            if key.0 == model && w.as_ref().is_none_or(|w| !w.open.contains(&k)) {
                row[k] = false;
            }
        }
    }
    for (p, row) in positions.iter().zip(&removed) {
        for (k, &gone) in row.iter().enumerate() {
            if gone {
                kills[k].push(*p);
            }
        }
    }
    let quiet = listener.signalled.iter().map(|&s| !s).collect();
    Some(Measured { kills, quiet, models, coverage: sc.coverage })
}
