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
use crate::machine::{Event, EventKind, Model};
use crate::monitor::MonitorKind;
use crate::monitor::{Bss, Forcing, RawViolation};
use crate::options::Options;
use crate::violation::Violation;
use litmus_dsl::edit::FenceInsertion;
use litmus_ir::{FenceKind, Program, StmtId, StmtRange};
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
    for &(p, _, f) in &traced {
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
    let mut bss =
        Bss::new(&fenced, &models, forcing).measuring(&fenced, first, &own, fenced.stmts.len() - first as usize);
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

/// Fences measured without being inserted: a full fence right after a
/// statement whose code ends with its store or load (straight-line, no
/// other access after it) drains at the place right after that event
/// (`2k + 1`, [`Clocks::place`]), so which of them would have committed a
/// signalled store before its access is read off the SC execution itself —
/// the events of the store's thread from it up to the access's clock. The
/// monitors of the program's own SC exploration thus measure every such
/// position at once ([`Premeasured`]), at a cost only where they signal.
#[derive(Clone, Debug)]
pub struct VirtualFences {
    /// Per statement: the position its fence stands for (a source
    /// statement's copies, one per calling thread, share one: an inserted
    /// fence goes after all of them), or `NONE` where it is not measured so.
    canon: Vec<StmtId>,
    /// Per statement: the kind of the event its fence follows (its store,
    /// or its one load).
    last: Vec<EventKind>,
}

impl VirtualFences {
    pub fn new(prog: &Program) -> VirtualFences {
        use litmus_ir::{Instr, Place};
        // The event a copy's fence follows directly, if the copy has no
        // control flow and ends (but for register moves) with it: its one
        // store (loads before it are its operands), or its one load.
        let last_event = |code: &[Instr], a: usize, b: usize| -> Option<EventKind> {
            let body = code.get(a..b)?;
            let local = |i: &Instr| {
                matches!(i, Instr::Mov { .. } | Instr::Un { .. } | Instr::Bin { .. } | Instr::Select { .. })
            };
            if !body.iter().all(|i| local(i) || matches!(i, Instr::Load { .. } | Instr::Store { .. })) {
                return None;
            }
            let loads = body.iter().filter(|i| matches!(i, Instr::Load { .. })).count();
            let stores: Vec<usize> = (0..body.len()).filter(|&k| matches!(body[k], Instr::Store { .. })).collect();
            match stores[..] {
                [k] if body[k + 1..].iter().all(local) => Some(EventKind::Store),
                [] if loads == 1 => Some(EventKind::Load),
                _ => None,
            }
        };
        // Each statement's ranges, found once (asking per statement is
        // quadratic in a long thread).
        let mut ranges: Vec<Vec<(usize, StmtRange)>> = vec![Vec::new(); prog.stmts.len()];
        for (ti, t) in prog.threads.iter().enumerate() {
            for r in &t.stmt_ranges {
                if let Some(v) = ranges.get_mut(r.stmt as usize) {
                    v.push((ti, *r));
                }
            }
        }
        let direct = |s: StmtId| -> Option<EventKind> {
            let mut kind = None;
            for &(ti, r) in ranges.get(s as usize).into_iter().flatten() {
                let k = last_event(&prog.threads[ti].code, r.start as usize, r.end as usize)?;
                if kind.is_some_and(|old| old != k) {
                    return None;
                }
                kind = Some(k);
            }
            kind
        };
        let n = prog.stmts.len();
        let (mut canon, mut last) = (vec![crate::machine::NONE; n], vec![EventKind::Store; n]);
        // A fence inserted after one copy goes after all of them: they are
        // one position.
        for ids in litmus_dsl::fence_ir::fence_groups(prog, Place::After).values() {
            let kinds: Option<Vec<EventKind>> = ids.iter().map(|&s| direct(s)).collect();
            let Some(kinds) = kinds else { continue };
            let first = *ids.iter().min().expect("a span has a statement");
            for (&s, k) in ids.iter().zip(kinds) {
                canon[s as usize] = first;
                last[s as usize] = k;
            }
        }
        VirtualFences { canon, last }
    }

    /// The position a fence right after event `e` stands for, if measured
    /// (`NONE`: none).
    #[inline]
    pub fn after(&self, e: &Event) -> StmtId {
        match self.canon.get(e.stmt as usize) {
            Some(&p) if self.last[e.stmt as usize] == e.kind => p,
            _ => crate::machine::NONE,
        }
    }

    /// The position a fence right after statement `stmt` stands for
    /// (`NONE`: not measured).
    #[inline]
    pub fn of(&self, stmt: StmtId) -> StmtId {
        self.canon.get(stmt as usize).copied().unwrap_or(crate::machine::NONE)
    }
}

/// Per statement pair (delayed store, overtaking access): the minimal
/// position sets of its signals.
pub(crate) type PairKillers = HashMap<(StmtId, StmtId), Vec<Box<[StmtId]>>>;

/// Which fences right after statements would have removed what the SC
/// exploration's BSS monitors signalled: per model and statement pair, the
/// minimal sets of positions (by [`VirtualFences`]) of which a fence
/// commits the store before the access, one per signal. A fence set
/// removes a signal iff it holds one of the signal's positions (the
/// owner's drains are a minimum over its fences; nothing else depends on
/// them), so the program with full fences at a set S is robust under the
/// model iff S meets every recorded set — what a re-check of it would
/// show, read off without exploring ([`Premeasured::robust`]); and a fence
/// alone removes a violation iff it is in every set of its pair.
///
/// A model given as data has no monitor: its own search keeps its
/// violating graphs, which are judged again with the fences inserted
/// ([`crate::graph::fenced`]).
#[derive(Clone, Debug)]
pub struct Premeasured {
    pub(crate) fences: VirtualFences,
    /// Per measured model: per pair, the minimal position sets.
    pub(crate) models: Vec<(Model, PairKillers)>,
    pub(crate) coverage: Coverage,
    /// Per model given as data: its violating graphs.
    pub(crate) graphs: Vec<std::sync::Arc<crate::graph::fenced::Kept>>,
}

impl Premeasured {
    /// What a model's own search kept ([`crate::graph::fenced`]).
    pub fn of_graphs(prog: &Program, graphs: Vec<std::sync::Arc<crate::graph::fenced::Kept>>) -> Option<Premeasured> {
        (!graphs.is_empty()).then(|| Premeasured {
            fences: VirtualFences::new(prog),
            models: Vec::new(),
            coverage: Coverage::Complete,
            graphs,
        })
    }

    fn kept(&self, model: Model) -> Option<&crate::graph::fenced::Kept> {
        self.graphs.iter().find(|k| k.model == model).map(|k| &**k)
    }

    /// The outcome of `model`'s own search, where it was kept (a model
    /// given as data: the search that found its violating graphs).
    /// With the graphs that show its violations, all of them kept.
    pub fn outcome(&self, model: Model) -> Option<(&crate::outcome::ModelOutcome, &crate::graph::fenced::Kept)> {
        let k = self.kept(model).filter(|k| k.all())?;
        Some((k.outcome.as_ref()?, k))
    }

    /// Does it answer for `model` exactly what a re-check would (a model
    /// given as data whose search kept all its violating graphs)?
    pub fn judges(&self, model: Model) -> bool {
        self.kept(model).is_some_and(|k| k.exact())
    }

    /// Which of `pairs` a re-check of the program with fences `at` would
    /// show removed under `model`, if known here (a model given as data).
    pub fn removed(
        &self,
        model: Model,
        at: &[crate::violation::FencePoint],
        pairs: &[(StmtId, StmtId)],
    ) -> Option<Vec<bool>> {
        self.kept(model)?.removed(at, pairs)
    }

    fn pairs(&self, model: Model) -> Option<&PairKillers> {
        self.models.iter().find(|(m, _)| *m == model).map(|(_, p)| p).filter(|_| self.coverage.finished())
    }

    /// Does a full fence right after `stmt` alone remove `model`'s
    /// violations of `pair`? `None`: not measured.
    pub fn removes(&self, model: Model, stmt: StmtId, pair: (StmtId, StmtId)) -> Option<bool> {
        let p = self.fences.of(stmt);
        if p == crate::machine::NONE {
            return None;
        }
        let sets = self.pairs(model)?.get(&pair)?;
        Some(sets.iter().all(|k| k.contains(&p)))
    }

    /// Is the program with fences `at` robust under `model`, by the
    /// signals recorded? `None`: some fence is not measured here.
    pub fn robust(&self, model: Model, at: &[crate::violation::FencePoint]) -> Option<bool> {
        if let Some(k) = self.kept(model) {
            return k.robust(at);
        }
        let pairs = self.pairs(model)?;
        let mut set = Vec::new();
        for f in at {
            if f.place != litmus_ir::Place::After {
                return None;
            }
            // A fence that does not drain under the model is not there for
            // its monitor.
            if !model.drains(f.kind) {
                continue;
            }
            let p = self.fences.of(f.stmt);
            if p == crate::machine::NONE {
                return None;
            }
            set.push(p);
        }
        Some(pairs.values().flatten().all(|k| k.iter().any(|p| set.contains(p))))
    }

    /// How far the search that measured `model` went.
    pub fn coverage(&self, model: Model) -> Coverage {
        self.kept(model).map_or(self.coverage, |k| k.coverage)
    }
}

/// Record one signal's position set `k` (sorted, deduplicated) among the
/// minimal ones of its pair: a superset of one there adds nothing.
pub(crate) fn record_killers(sets: &mut Vec<Box<[StmtId]>>, k: &[StmtId]) {
    let subset = |a: &[StmtId], b: &[StmtId]| a.iter().all(|x| b.binary_search(x).is_ok());
    if sets.iter().any(|s| subset(s, k)) {
        return;
    }
    sets.retain(|s| !subset(k, s));
    sets.push(k.into());
}
