//! Which single fence removes which violation, measured for every candidate
//! position in one SC exploration instead of one re-check per position.
//!
//! The program gets a full fence after every position at once (IR
//! insertion). Under SC a fence is a local no-op that only logs its event,
//! so the SC executions (and the schedules DPOR explores) are those of the
//! unfenced program. One BSS monitor stands for one per (position, model)
//! and per (fence set asked about, model), its *variants*
//! ([`Bss::measuring`]): each skips every measured fence but its own, and
//! sees what it would see in a re-check with those fences alone. They
//! differ only in what their own fences drain, so the rest (stores,
//! forcing by accesses, the check up to the drains) is simulated once, not
//! once per position: on SB-12 the measurement went from 25 monitors over
//! one exploration (41 ms) to one. A violation is removed by a position
//! when its variant never signals the violation's statement pair — known
//! only if the exploration finished. A variant that has signalled every
//! pair it watches has nothing left to tell and is retired.
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
use crate::monitor::{Bss, Forcing, RawViolation};
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

struct Measuring<'v> {
    keys: &'v [(Model, StmtId, StmtId)],
    /// One monitor for every (fence set, model): its variants are the
    /// positions (one fence each), then the fence sets asked about. `None`
    /// once no variant is listened to.
    bss: Option<Bss>,
    models: Vec<Model>,
    /// Variants that are positions (the first ones).
    positions: usize,
    /// Per (model, position): indices (into the violations) of the pairs
    /// not signalled yet; the variant is retired once none is left.
    open: Vec<Vec<usize>>,
    /// Per (set, model): signalled (then retired: it listens until its
    /// first signal).
    signalled: Vec<bool>,
    raws: Vec<(usize, usize, RawViolation)>,
    listened: usize,
    /// The monitor is still to be cut back to `listened`.
    cut: bool,
}

impl crate::dpor::EventListener for Measuring<'_> {
    fn on_events(&mut self, log: &[Event], from: usize, clocks: Clocks<'_>) {
        let Some(bss) = &mut self.bss else { return };
        if self.cut {
            // Cuts come one event at a time as the search backtracks.
            self.cut = false;
            bss.truncate(from);
        }
        let raws = &mut self.raws;
        for i in from..log.len() {
            bss.push(log, i, clocks, &mut |m, v, r| raws.push((m, v, r)));
            for (m, v, r) in raws.drain(..) {
                if v < self.positions {
                    let key = (self.models[m], log[r.store as usize].stmt, log[r.access as usize].stmt);
                    let open = &mut self.open[m * self.positions + v];
                    open.retain(|&k| self.keys[k] != key);
                    if open.is_empty() {
                        bss.retire(m, v);
                    }
                } else {
                    self.signalled[(v - self.positions) * self.models.len() + m] = true;
                    bss.retire(m, v);
                }
            }
        }
        if !bss.listening() {
            self.bss = None;
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
    // The variants: each position's own fences, then each set's.
    let mut own: Vec<Vec<StmtId>> = positions.iter().map(|p| own_of.get(p).cloned().unwrap_or_default()).collect();
    for set in sets {
        own.push(set.iter().flat_map(|p| own_of.get(p).cloned().unwrap_or_default()).collect());
    }
    let mut open = vec![Vec::new(); models.len() * positions.len()];
    for (v, fences) in own.iter().take(positions.len()).enumerate() {
        // A fence drains its own thread's buffers only, so under BSS it can
        // force (and so un-signal) only that thread's stores.
        let threads: Vec<u16> = fences.iter().map(|&f| fenced.stmts[f as usize].thread).collect();
        for (m, &model) in models.iter().enumerate() {
            open[m * positions.len() + v] = (0..keys.len())
                .filter(|&k| keys[k].0 == model && threads.contains(&prog.stmts[keys[k].1 as usize].thread))
                .collect();
        }
    }
    let mut bss = Bss::new(&fenced, &models, forcing).measuring(first, &own, fenced.stmts.len() - first as usize);
    // Nothing to watch: nothing to remove.
    for (m, _) in models.iter().enumerate() {
        for v in 0..positions.len() {
            if open[m * positions.len() + v].is_empty() {
                bss.retire(m, v);
            }
        }
    }
    let mut listener = Measuring {
        keys: &keys,
        bss: Some(bss),
        models: models.clone(),
        positions: positions.len(),
        open,
        signalled: vec![false; sets.len() * models.len()],
        raws: Vec::new(),
        listened: 0,
        cut: false,
    };
    // One exploration (DPOR dominates: splitting the monitors over threads
    // would explore again per part).
    let sc = crate::explore::explore_listened(&fenced, Model::Sc, opts, &mut listener, |_| {});
    if !sc.coverage.finished() {
        return None;
    }
    // Per position: which pairs stayed unsignalled under its monitors.
    let mut removed = vec![vec![true; keys.len()]; positions.len()];
    for (p, row) in removed.iter_mut().enumerate() {
        for (m, &model) in models.iter().enumerate() {
            let open = &listener.open[m * positions.len() + p];
            for (k, key) in keys.iter().enumerate() {
                if key.0 == model && !open.contains(&k) {
                    row[k] = false;
                }
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
