//! The fewest fences that make a program robust, and the re-checks that
//! confirm them. A re-check is a check like any other: it is *proved*,
//! *within bounds* or *unknown*, and only a re-check that finished may
//! confirm fences — or count a fence as removing a violation.
//!
//! Re-checks run on the program with the fences inserted into its IR
//! ([`litmus_dsl::fence_ir`]; a test holds it equal to re-analysing the
//! fenced text), so statements keep their ids. [`Rechecks`] caches them by
//! fence set and model, and measures candidate positions in parallel.

use crate::certainty::{Answer, Coverage, Why};
use crate::machine::{fence_drains, fence_resets, Model};
use crate::monitor::MonitorKind;
use crate::options::Options;
use crate::robust::Collector;
use crate::violation::{all_robust, FencePoint, Spot, Violation};
use crate::violation::{insertions, FenceFix};
use litmus_ir::{FenceKind, Place, Program, StmtId};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// A smallest set of positions hitting every violation's candidates, and
/// whether the search for it was exhaustive (if its budget ran out, the set
/// is a greedy one: it hits every set but may not be the smallest).
/// A violation with no candidate (no fence of the program's dialect can
/// reach it) cannot be hit: it is left out here, and the re-check of the
/// fenced program still finds it.
pub fn min_hitting_set<T: Copy + PartialEq>(sets: &[Vec<T>]) -> (Vec<T>, bool) {
    let sets: Vec<Vec<T>> = sets.iter().filter(|s| !s.is_empty()).cloned().collect();
    let sets = &sets[..];
    let mut best: Option<Vec<T>> = None;
    fn go<T: Copy + PartialEq>(sets: &[Vec<T>], chosen: &mut Vec<T>, best: &mut Option<Vec<T>>, budget: &mut u32) {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        if best.as_ref().is_some_and(|b| chosen.len() >= b.len()) {
            return;
        }
        // The unhit set with fewest choices.
        let unhit = sets.iter().filter(|s| !s.iter().any(|x| chosen.contains(x))).min_by_key(|s| s.len());
        let Some(set) = unhit else {
            *best = Some(chosen.clone());
            return;
        };
        for &x in set {
            chosen.push(x);
            go(sets, chosen, best, budget);
            chosen.pop();
        }
    }
    let mut budget = 200_000;
    go(sets, &mut Vec::new(), &mut best, &mut budget);
    let exhaustive = budget > 0;
    let set = best.unwrap_or_else(|| {
        // Budget exhausted before any cover: greedy.
        let mut chosen: Vec<T> = Vec::new();
        while let Some(s) = sets.iter().find(|s| !s.iter().any(|x| chosen.contains(x))) {
            chosen.push(s[0]);
        }
        chosen
    });
    (set, exhaustive)
}

/// One fence that does what each of `kinds` does: the kind itself if they
/// agree, else `wr` (under every model at least as strong as `ww` and
/// `rr`: it drains, and under PSLO resets the histories too).
pub fn combine(kinds: impl IntoIterator<Item = FenceKind>) -> FenceKind {
    let mut it = kinds.into_iter();
    let Some(first) = it.next() else { return FenceKind::WR };
    if first != FenceKind::Full && it.all(|k| k == first) {
        first
    } else {
        FenceKind::WR
    }
}

/// Fences at the chosen positions, each as weak as the violations it
/// removes allow (`ww` only if they are all store→store delays, `rr` if all
/// PSLO load→load ones).
fn fences_at(prog: &Program, chosen: &[Spot], constraints: &[Vec<(Spot, FenceKind)>]) -> Vec<FencePoint> {
    let mut fences: Vec<FencePoint> = chosen
        .iter()
        .map(|&spot| FencePoint {
            place: spot.place,
            thread: prog.stmts[spot.stmt as usize].thread,
            stmt: spot.stmt,
            kind: combine(constraints.iter().filter_map(|c| c.iter().find(|x| x.0 == spot)).map(|c| c.1)),
        })
        .collect();
    fences.sort();
    fences
}

/// Fences for constraints (each violation's candidate positions): a minimum
/// hitting set, and whether it is proved minimum.
fn hitting_fences(prog: &Program, constraints: &[Vec<(Spot, FenceKind)>]) -> (Vec<FencePoint>, bool) {
    let sets: Vec<Vec<Spot>> = constraints.iter().map(|c| c.iter().map(|x| x.0).collect()).collect();
    let (set, minimal) = min_hitting_set(&sets);
    (fences_at(prog, &set, constraints), minimal)
}

/// The cycle-based choice, unconfirmed for this reason.
fn unchecked(prog: &Program, violations: &mut [Violation], why: Why) -> FenceFix {
    let constraints = own_candidates(violations);
    let (fences, minimal) = hitting_fences(prog, &constraints);
    assign(violations, &fences, |i, f| candidate(&constraints, i, f));
    FenceFix { fences, confirmed: Answer::Unknown(why), minimal }
}

/// Tell each violation which fence of the set removes it.
fn assign(violations: &mut [Violation], fences: &[FencePoint], removes: impl Fn(usize, &FencePoint) -> bool) {
    for (i, v) in violations.iter_mut().enumerate() {
        v.fence = fences.iter().filter(|f| removes(i, f)).take(1).copied().collect();
    }
}

/// What one model's re-check of a fenced program found, in the original
/// program's statements (fencing keeps them).
#[derive(Clone, Debug)]
struct Checked {
    robust: Answer<bool>,
    coverage: Coverage,
    /// The (store, access) pairs signalled, witnessed or not.
    pairs: Vec<(StmtId, StmtId)>,
    /// Each witnessed violation's fence candidates.
    candidates: Vec<Vec<(Spot, FenceKind)>>,
}

/// One re-check of a fence set under several models.
struct Recheck(Vec<(Model, Checked)>);

impl Recheck {
    /// Robust under every model: a witnessed violation anywhere says no;
    /// any unknown answer makes the whole unknown; else the weakest.
    fn robust(&self) -> Answer<bool> {
        let answers: Vec<&Answer<bool>> = self.0.iter().map(|(_, c)| &c.robust).collect();
        if answers.iter().any(|a| a.is(&false)) {
            return Answer::Proved(false);
        }
        answers.iter().fold(Coverage::Complete, |c, a| c.and(a.coverage())).answer(true)
    }

    /// Every re-check finished (proved or within bounds), so what it did not
    /// find is known not to be there.
    fn finished(&self) -> bool {
        self.0.iter().all(|(_, c)| c.coverage.finished())
    }

    /// The statement pairs signalled after fencing, per model.
    fn remaining(&self) -> impl Iterator<Item = (Model, StmtId, StmtId)> + '_ {
        self.0.iter().flat_map(|(m, c)| c.pairs.iter().map(move |&(s, a)| (*m, s, a)))
    }
}

/// A fence set as the checker tells it apart under one model: each fence by
/// what it does there (drain, reset). Kinds alike in both give the same
/// executions and verdicts (only the kind named in fence events differs),
/// so `full` and `wr` share a re-check, and under TSO `ww` and `rr`.
type Key = (Model, Vec<(Spot, bool, bool)>);

fn key(model: Model, at: &[FencePoint]) -> Key {
    let mut v: Vec<(Spot, bool, bool)> =
        at.iter().map(|f| (f.spot(), fence_drains(model, f.kind), fence_resets(model, f.kind))).collect();
    v.sort();
    v.dedup();
    (model, v)
}

/// The re-checks of one program's fencings under one deadline, cached by
/// fence set and model: the per-model and the joint fence searches share
/// them (a measurement under all models at once serves each model).
pub struct Rechecks<'a> {
    prog: &'a Program,
    monitor: MonitorKind,
    opts: &'a Options,
    cache: Mutex<HashMap<Key, Checked>>,
    /// Measured (finished) kills: does a full fence after the position
    /// remove the model's violation of this (store, access) pair?
    removes: Mutex<HashMap<(Model, Spot, StmtId, StmtId), bool>>,
    /// Fence sets a measurement proved not robust, by model: those measured
    /// whole whose monitor signalled, and single fences that left one of
    /// the model's violations.
    signalled: Mutex<std::collections::HashSet<Key>>,
    /// Explorations run (the bench reports them).
    runs: AtomicUsize,
    /// Their steps (transitions), summed: what the minimality proof may
    /// spend is measured in them, never in time.
    steps: AtomicU64,
    /// What the program's own SC exploration measured on the way: kills
    /// and fence sets it answers need no exploration.
    pre: Option<std::sync::Arc<crate::measure::Premeasured>>,
}

impl<'a> Rechecks<'a> {
    pub fn new(prog: &'a Program, monitor: MonitorKind, opts: &'a Options) -> Self {
        Rechecks {
            prog,
            monitor,
            opts,
            cache: Mutex::new(HashMap::new()),
            removes: Mutex::new(HashMap::new()),
            signalled: Mutex::new(Default::default()),
            runs: AtomicUsize::new(0),
            steps: AtomicU64::new(0),
            pre: None,
        }
    }

    /// Answer from `pre` (the program's SC exploration with its monitors
    /// measuring) what it knows.
    pub fn premeasured(mut self, pre: Option<std::sync::Arc<crate::measure::Premeasured>>) -> Self {
        self.pre = pre;
        self
    }

    /// The premeasured answer for the program with fences `at` under
    /// `model`, recorded: robust goes to the cache, not robust to
    /// `signalled`. `None`: not known there.
    fn premeasured_robust(&self, model: Model, at: &[FencePoint]) -> Option<bool> {
        let pre = self.pre.as_ref()?;
        let robust = pre.robust(model, at)?;
        if robust {
            let coverage = pre.coverage(model);
            let checked =
                Checked { robust: coverage.answer(true), coverage, pairs: Vec::new(), candidates: Vec::new() };
            self.cache.lock().expect("no re-check panics holding it").insert(key(model, at), checked);
        } else {
            self.signalled.lock().expect("no measurement panics holding it").insert(key(model, at));
        }
        Some(robust)
    }

    /// How many re-checks ran an exploration (the rest came from the cache).
    pub fn explorations(&self) -> usize {
        self.runs.load(Ordering::Relaxed)
    }

    /// The steps the re-checks' explorations took so far.
    pub fn steps(&self) -> u64 {
        self.steps.load(Ordering::Relaxed)
    }

    /// The robustness of the program with `at` inserted under each of
    /// `models`: what the cache lacks is checked in one exploration.
    fn run(&self, at: &[FencePoint], models: &[Model]) -> Result<Recheck, Why> {
        let relaxed: Vec<Model> = models.iter().copied().filter(|m| m.buffered()).collect();
        let cached = |m: Model| self.cache.lock().expect("no re-check panics holding it").get(&key(m, at)).cloned();
        // Robust by what was measured: no exploration. (Not robust: the
        // exploration still names the violations left.)
        let missing: Vec<Model> = relaxed
            .iter()
            .copied()
            .filter(|&m| cached(m).is_none() && self.premeasured_robust(m, at) != Some(true))
            .collect();
        if !missing.is_empty() {
            // Stopped: nothing more is checked (a stopped search is
            // unknown anyway).
            if let Some(why) = crate::certainty::Why::stopped(&self.opts.budget) {
                return Err(why);
            }
            self.runs.fetch_add(1, Ordering::Relaxed);
            let fenced = litmus_dsl::fence_ir::insert_fences(self.prog, &insertions(at));
            let mut c = Collector::new(&fenced, &missing, self.monitor, self.opts);
            let sc = c.run(self.opts);
            self.steps.fetch_add(sc.stats.transitions, Ordering::Relaxed);
            let found = c.finish(sc.coverage);
            let mut cache = self.cache.lock().expect("no re-check panics holding it");
            for r in found {
                let n = self.prog.stmts.len() as StmtId;
                let checked = Checked {
                    robust: r.robust(),
                    coverage: r.coverage,
                    pairs: r.violations.iter().map(|v| v.key()).chain(r.unconfirmed.iter().copied()).collect(),
                    // The fences' own statements are no positions of the
                    // original program.
                    candidates: r
                        .violations
                        .iter()
                        .map(|v| v.candidates.iter().copied().filter(|c| c.0.stmt < n).collect())
                        .collect(),
                };
                cache.insert(key(r.model, at), checked);
            }
        }
        relaxed.iter().map(|&m| cached(m).map(|c| (m, c)).ok_or(Why::Pending)).collect::<Result<_, _>>().map(Recheck)
    }

    /// For each violation, the positions (of `positions`) after which a full
    /// fence alone removes it — as far as explorations that finished show: a
    /// stopped one (deadline, cancel) shows nothing. The violations BSS
    /// monitors decide are measured for all positions in one SC exploration
    /// ([`crate::measure`]); the others (Sober, PSLO) by a re-check per
    /// position, in parallel, each under all their models at once.
    pub fn kills(&self, positions: &[Spot], violations: &[Violation], models: &[Model]) -> Vec<Vec<Spot>> {
        self.kills_guessing(positions, violations, models, &[])
    }

    /// [`Rechecks::kills`], also re-checking full fences at each of `sets`
    /// (the set the search expects to choose, and the smaller ones its
    /// minimality proof would re-check) in the measuring exploration, for
    /// the models it measures: those sets then need no exploration of
    /// their own.
    fn kills_guessing(
        &self,
        positions: &[Spot],
        violations: &[Violation],
        models: &[Model],
        sets: &[Vec<Spot>],
    ) -> Vec<Vec<Spot>> {
        if self.opts.budget.stopped() {
            return vec![Vec::new(); violations.len()];
        }
        // A model given as data: its violating graphs judged again with
        // each fence ([`crate::graph::fenced`]), no exploration.
        let judged = |i: usize| self.pre.as_ref().is_some_and(|pre| pre.judges(violations[i].model));
        let (by_graphs, others): (Vec<usize>, Vec<usize>) = (0..violations.len()).partition(|&i| judged(i));
        let (measured, rechecked): (Vec<usize>, Vec<usize>) =
            others.into_iter().partition(|&i| crate::measure::measurable(violations[i].model, self.monitor));
        let pick = |ix: &[usize]| ix.iter().map(|&i| violations[i].clone()).collect::<Vec<_>>();
        let rechecked_models: Vec<Model> =
            models.iter().copied().filter(|&m| rechecked.iter().any(|&i| violations[i].model == m)).collect();
        // The monitors measure fences right after statements; one before a
        // statement (past a reduced spin) is re-checked.
        let before: Vec<Spot> = positions.iter().copied().filter(|p| p.place != Place::After).collect();
        let measured_models: Vec<Model> =
            models.iter().copied().filter(|&m| measured.iter().any(|&i| violations[i].model == m)).collect();
        let monitors = || {
            let mut k = self.measure(positions, &pick(&measured), sets);
            if !before.is_empty() && !measured.is_empty() {
                let more = self.kills_by_rechecks(&before, &pick(&measured), &measured_models);
                for (k, more) in k.iter_mut().zip(more) {
                    k.extend(more);
                    k.sort_by_key(|s| positions.iter().position(|p| p == s));
                }
            }
            k
        };
        let rechecks = || {
            if rechecked.is_empty() {
                return Vec::new();
            }
            self.kills_by_rechecks(positions, &pick(&rechecked), &rechecked_models)
        };
        // Both at once: the one exploration beside the per-position re-checks
        // — when there are re-checks and more than one thread is asked for.
        // Else no hand-off to rayon's global pool, whose idle workers spin
        // (a suite gives each of its files one thread).
        let (by_monitors, by_rechecks) = if self.opts.threads > 1 && !rechecked.is_empty() {
            rayon::join(monitors, rechecks)
        } else {
            (monitors(), rechecks())
        };
        let mut kills = vec![Vec::new(); violations.len()];
        for (i, k) in measured.iter().zip(by_monitors).chain(rechecked.iter().zip(by_rechecks)) {
            kills[*i] = k;
        }
        if let Some(pre) = self.pre.as_ref().filter(|_| !by_graphs.is_empty()) {
            let mut ms: Vec<Model> = Vec::new();
            for &i in &by_graphs {
                if !ms.contains(&violations[i].model) {
                    ms.push(violations[i].model);
                }
            }
            for m in ms {
                let ix: Vec<usize> = by_graphs.iter().copied().filter(|&i| violations[i].model == m).collect();
                let pairs: Vec<(StmtId, StmtId)> = ix.iter().map(|&i| violations[i].key()).collect();
                for &p in positions {
                    if let Some(removed) = pre.removed(m, &[self.full(p)], &pairs) {
                        for (&i, r) in ix.iter().zip(removed) {
                            if r {
                                kills[i].push(p);
                            }
                        }
                    }
                }
            }
        }
        kills
    }

    /// The monitors' share of [`Rechecks::kills`]: what an earlier
    /// measurement (say under all models, for the joint set) left out is
    /// measured in one exploration, and remembered.
    fn measure(&self, positions: &[Spot], violations: &[Violation], sets: &[Vec<Spot>]) -> Vec<Vec<Spot>> {
        let entry = |p: Spot, v: &Violation| (v.model, p, v.store_stmt, v.access_stmt);
        if let Some(pre) = &self.pre {
            let mut removes = self.removes.lock().expect("no measurement panics holding it");
            for &p in positions.iter().filter(|p| p.place == Place::After) {
                for v in violations {
                    if let Some(r) = pre.removes(v.model, p.stmt, v.key()) {
                        removes.insert(entry(p, v), r);
                    }
                }
            }
        }
        let known = |p: Spot| {
            let removes = self.removes.lock().expect("no measurement panics holding it");
            violations.iter().all(|v| removes.contains_key(&entry(p, v)))
        };
        // Fences right after statements only ([`Rechecks::kills`] re-checks
        // the others).
        let missing: Vec<StmtId> =
            positions.iter().copied().filter(|&p| p.place == Place::After && !known(p)).map(|p| p.stmt).collect();
        if !missing.is_empty() && !violations.is_empty() {
            self.runs.fetch_add(1, Ordering::Relaxed);
            // A set rides along if its fences are among those measured.
            let sets: Vec<&Vec<Spot>> = sets
                .iter()
                .filter(|set| {
                    !set.is_empty() && set.iter().all(|g| g.place == Place::After && missing.contains(&g.stmt))
                })
                .collect();
            let stmts: Vec<Vec<StmtId>> = sets.iter().map(|set| set.iter().map(|g| g.stmt).collect()).collect();
            // Stopped: nothing is known removed.
            let Some(measured) =
                crate::measure::measure(self.prog, &missing, violations, self.monitor, self.opts, &stmts)
            else {
                return vec![Vec::new(); violations.len()];
            };
            let per_set = measured.models.len();
            let mut cache = self.cache.lock().expect("no re-check panics holding it");
            let mut signalled = self.signalled.lock().expect("no measurement panics holding it");
            for (i, set) in sets.iter().enumerate() {
                let at: Vec<FencePoint> = set.iter().map(|&g| self.full(g)).collect();
                for (&m, &quiet) in measured.models.iter().zip(&measured.quiet[i * per_set..(i + 1) * per_set]) {
                    if !quiet {
                        // Not robust (a BSS signal is a violation), though
                        // maybe not witnessed: no cache entry, which would
                        // have to name its violations.
                        signalled.insert(key(m, &at));
                    } else if measured.coverage.finished() {
                        let coverage = measured.coverage;
                        let checked = Checked {
                            robust: coverage.answer(true),
                            coverage,
                            pairs: Vec::new(),
                            candidates: Vec::new(),
                        };
                        cache.insert(key(m, &at), checked);
                    }
                }
            }
            let kills = measured.kills;
            // A single fence that leaves one of a model's violations is not
            // robust under that model either.
            for &p in &missing {
                let at = [self.full(Spot::after(p))];
                for &m in &measured.models {
                    if violations.iter().zip(&kills).any(|(v, k)| v.model == m && !k.contains(&p)) {
                        signalled.insert(key(m, &at));
                    }
                }
            }
            drop((cache, signalled));
            let mut removes = self.removes.lock().expect("no measurement panics holding it");
            for (v, k) in violations.iter().zip(&kills) {
                for &p in &missing {
                    removes.insert(entry(Spot::after(p), v), k.contains(&p));
                }
            }
        }
        let removes = self.removes.lock().expect("no measurement panics holding it");
        violations
            .iter()
            .map(|v| positions.iter().copied().filter(|&p| removes.get(&entry(p, v)) == Some(&true)).collect())
            .collect()
    }

    /// [`Rechecks::kills`] by a re-check per position for every violation
    /// (what the one-exploration measurement must agree with).
    pub fn kills_by_rechecks(&self, positions: &[Spot], violations: &[Violation], models: &[Model]) -> Vec<Vec<Spot>> {
        let keys: Vec<(Model, StmtId, StmtId)> =
            violations.iter().map(|v| (v.model, v.store_stmt, v.access_stmt)).collect();
        let one = |&p: &Spot| match self.run(&[self.full(p)], models) {
            Ok(re) if re.finished() => {
                let left: Vec<(Model, StmtId, StmtId)> = re.remaining().collect();
                keys.iter().map(|k| !left.contains(k)).collect()
            }
            // Stopped or cut short: nothing is known removed.
            _ => vec![false; keys.len()],
        };
        let removed: Vec<Vec<bool>> = if self.opts.threads > 1 {
            positions.par_iter().map(one).collect()
        } else {
            positions.iter().map(one).collect()
        };
        (0..keys.len())
            .map(|i| positions.iter().zip(&removed).filter(|(_, r)| r[i]).map(|(&p, _)| p).collect())
            .collect()
    }

    /// Did a measurement see a violation stay with the full fences `set`
    /// inserted, under one of `models`? Then that set is not robust without
    /// a re-check: a BSS monitor with those fences signalled on an SC
    /// execution of the program, and a BSS signal is a violation (the BSS
    /// paper's Theorem 1, soundness). Known for the sets measured whole, and
    /// for each single fence (its monitor did not remove some violation).
    pub fn signalled_with(&self, set: &[FencePoint], models: &[Model]) -> bool {
        let known = |m: Model| self.signalled.lock().expect("no measurement panics holding it").contains(&key(m, set));
        models.iter().any(|&m| m.buffered() && (known(m) || self.premeasured_robust(m, set) == Some(false)))
    }

    fn full(&self, at: Spot) -> FencePoint {
        FencePoint {
            thread: self.prog.stmts[at.stmt as usize].thread,
            stmt: at.stmt,
            kind: FenceKind::Full,
            place: at.place,
        }
    }
}

/// Choose fences by the violations' own cycles and re-check the fenced
/// program under every model until it is robust (a few rounds: a fence can
/// expose what the first set missed).
fn confirm_fences(re: &Rechecks<'_>, models: &[Model], violations: &mut [Violation]) -> FenceFix {
    let prog = re.prog;
    let mut constraints = own_candidates(violations);
    let (mut fences, mut minimal) = hitting_fences(prog, &constraints);
    let mut confirmed = Answer::Unknown(Why::Pending);
    for _round in 0..4 {
        let checked = match re.run(&fences, models) {
            Ok(c) => c,
            Err(why) => {
                confirmed = Answer::Unknown(why);
                break;
            }
        };
        confirmed = checked.robust();
        if !confirmed.is(&false) {
            // Robust (proved or within bounds), or the re-check did not finish.
            break;
        }
        let mut progressed = false;
        for (_, c) in &checked.0 {
            for set in &c.candidates {
                if !set.is_empty() && !constraints.contains(set) {
                    constraints.push(set.clone());
                    progressed = true;
                }
            }
        }
        if !progressed {
            break;
        }
        (fences, minimal) = hitting_fences(prog, &constraints);
    }
    assign(violations, &fences, |i, f| candidate(&constraints, i, f));
    FenceFix { fences, confirmed, minimal }
}

/// Each violation's own candidates (from its cycle): the constraints of
/// the cycle-based choice.
fn own_candidates(violations: &[Violation]) -> Vec<Vec<(Spot, FenceKind)>> {
    violations.iter().map(|v| v.candidates.clone()).collect()
}

/// Is `f` among violation `i`'s candidate positions?
fn candidate(constraints: &[Vec<(Spot, FenceKind)>], i: usize, f: &FencePoint) -> bool {
    constraints.get(i).is_some_and(|c| c.iter().any(|x| x.0 == f.spot()))
}

/// Fences that make the program robust under all the given models at once,
/// with the program's robustness before fencing.
pub fn joint_fences(
    prog: &Program,
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
) -> (Answer<bool>, FenceFix) {
    let relaxed: Vec<Model> = models.iter().copied().filter(|m| m.buffered()).collect();
    // For every iteration, where attacks decide every model asked.
    if let Some(limits) = opts.unbounded.as_ref().filter(|_| relaxed.iter().all(|&m| crate::unbounded::decides(m))) {
        if let Ok(p) = crate::unbounded::prove(prog, &relaxed, opts, limits) {
            let mut all: Vec<Violation> = p.robustness.iter().flat_map(|r| r.violations.iter().cloned()).collect();
            let robust = all_robust(&p.robustness);
            let fix =
                crate::unbounded::fences::minimal_fences(prog, &relaxed, &p.attacks, &p.runs, &mut all, opts, limits);
            return (robust, fix);
        }
    }
    let before = crate::robust::measured_robustness(prog, &relaxed, monitor, opts);
    let mut all: Vec<Violation> = before.robustness.iter().flat_map(|r| r.violations.iter().cloned()).collect();
    let robust = all_robust(&before.robustness);
    let rechecks = Rechecks::new(prog, monitor, opts).premeasured(before.premeasured);
    (robust.clone(), minimal_fences(&rechecks, models, &mut all, robust))
}

/// Statements of the program that store (where a fence can matter: a fence
/// later in the same straight-line stretch orders less).
pub fn store_stmts(prog: &Program) -> Vec<StmtId> {
    stmts_where(prog, |i| matches!(i, litmus_ir::Instr::Store { .. }))
}

/// Where a fence can matter under these models: after a store; under a
/// model that lets a later load overtake a load or an atomic (PSLO), after
/// those too.
pub fn fence_positions(prog: &Program, models: &[Model]) -> Vec<StmtId> {
    use crate::model::Access;
    use litmus_ir::Instr;
    let loads =
        models.iter().any(|m| m.reorders(Access::Read, Access::Read) || m.reorders(Access::Update, Access::Read));
    stmts_where(prog, |i| match i {
        Instr::Store { .. } => true,
        Instr::Load { .. } | Instr::Rmw { .. } => loads,
        _ => false,
    })
}

fn stmts_where(prog: &Program, pick: impl Fn(&litmus_ir::Instr) -> bool) -> Vec<StmtId> {
    use litmus_ir::Instr;
    let places = prog.fence_places();
    let mut v: Vec<StmtId> = prog
        .threads
        .iter()
        .flat_map(|t| t.code.iter())
        .filter(|i| pick(i))
        .filter_map(|i| match *i {
            Instr::Store { stmt, .. } | Instr::Load { stmt, .. } | Instr::Rmw { stmt, .. } => Some(stmt),
            _ => None,
        })
        .filter(|&s| places.fenceable(s))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// [`Rechecks::kills`] on fresh re-checks of `prog`.
pub fn kills_of(
    prog: &Program,
    positions: &[Spot],
    violations: &[Violation],
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
) -> Vec<Vec<Spot>> {
    Rechecks::new(prog, monitor, opts).kills(positions, violations, models)
}

/// Where the fence search measures: every position a fence can matter at
/// under `models`, and every violation's candidates.
pub fn measured_positions(prog: &Program, models: &[Model], violations: &[Violation]) -> Vec<Spot> {
    let mut positions: Vec<Spot> = fence_positions(prog, models).into_iter().map(Spot::after).collect();
    for v in violations {
        positions.extend(v.candidates.iter().map(|c| c.0));
    }
    positions.sort();
    positions.dedup();
    positions
}

/// The fewest fences that make the program robust under all `models`;
/// `robust` is the program's robustness as checked (what "no fences"
/// earns when there are no violations).
///
/// Each violation's cycle names where a fence must go to break *that*
/// cycle, but a fence elsewhere can remove the violation too (by making the
/// rest of its cycle impossible). So the candidates are measured: a full
/// fence after each store, alone, and the violations it removes (only a
/// re-check that finished counts); then a minimum hitting set, re-checked,
/// and each fence weakened to `ww` where that keeps the program robust. If
/// a violation is removed by no single fence, the cycle-based choice (also
/// re-checked) is used instead.
pub fn minimal_fences(
    re: &Rechecks<'_>,
    models: &[Model],
    violations: &mut [Violation],
    robust: Answer<bool>,
) -> FenceFix {
    let start = re.steps();
    let positions = measured_positions(re.prog, models, violations);
    let fix = choose_fences(re, models, &positions, violations, robust);
    // The proof may cost what the choice's re-checks did, and
    // MINIMALITY_STEPS at least: work, so that whether a set is proved the
    // fewest never depends on how busy the machine is.
    let allowed = (re.steps() - start).max(MINIMALITY_STEPS);
    settle_minimality(re, models, &positions, violations, fix, re.steps().saturating_add(allowed))
}

/// Steps of re-checks (transitions) the minimality proof may always take:
/// about a second of them.
const MINIMALITY_STEPS: u64 = 5_000_000;

/// How many fence sets one smaller may be re-checked to prove a set the
/// fewest (full fences at every choice of that many positions).
const MINIMALITY_CHECKS: u64 = 2048;

/// How many of those the measuring exploration checks on the way (a
/// monitor each).
const MEASURED_SUBSETS: u64 = 64;

/// Is the confirmed set the fewest fences? A hitting set is the fewest
/// among the positions each *single* fence was measured to help (or the
/// cycles' own positions), but two fences together can remove what
/// neither does alone. So every set of one fewer full fence among the
/// positions is re-checked: each must keep a witnessed violation. One that
/// does not replaces the set (and the next size down is tried); too many
/// to re-check, re-checks past `until` steps in all, or one that did not
/// finish, leaves the set not proved minimal.
fn settle_minimality(
    re: &Rechecks<'_>,
    models: &[Model],
    positions: &[Spot],
    violations: &mut [Violation],
    mut fix: FenceFix,
    until: u64,
) -> FenceFix {
    if !fix.confirmed.is(&true) {
        return fix;
    }
    while let Some(k) = fix.fences.len().checked_sub(1) {
        if binomial(positions.len() as u64, k as u64) > MINIMALITY_CHECKS {
            fix.minimal = false;
            return fix;
        }
        let mut proved = true;
        let mut smaller = None;
        for subset in subsets(positions.len(), k) {
            if re.steps() > until {
                proved = false;
                break;
            }
            let set: Vec<FencePoint> = subset.iter().map(|&i| re.full(positions[i])).collect();
            if re.signalled_with(&set, models) {
                continue; // not robust: the measurement saw a violation stay
            }
            match re.run(&set, models) {
                Ok(c) if c.robust().is(&true) => {
                    smaller = Some((set, c.robust()));
                    break;
                }
                Ok(c) if c.robust().is(&false) => {}
                // Not finished: this size is not ruled out.
                _ => proved = false,
            }
        }
        let Some((mut set, confirmed)) = smaller else {
            fix.minimal = proved;
            return fix;
        };
        // `wr` acts as `full` in every model the machine runs.
        for f in set.iter_mut() {
            f.kind = FenceKind::WR;
        }
        set.sort();
        let constraints = own_candidates(violations);
        assign(violations, &set, |i, f| candidate(&constraints, i, f));
        fix = FenceFix { fences: set, confirmed, minimal: false };
    }
    fix.minimal = true;
    fix
}

fn binomial(n: u64, k: u64) -> u64 {
    (0..k.min(n.saturating_sub(k))).fold(1u64, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

/// Every `k`-subset of `0..n`, in lexicographic order.
fn subsets(n: usize, k: usize) -> impl Iterator<Item = Vec<usize>> {
    let mut next = (k <= n).then(|| (0..k).collect::<Vec<usize>>());
    std::iter::from_fn(move || {
        let cur = next.take()?;
        let mut c = cur.clone();
        // The rightmost index that can still move right.
        if let Some(i) = (0..k).rev().find(|&i| c[i] < n - k + i) {
            c[i] += 1;
            for j in i + 1..k {
                c[j] = c[j - 1] + 1;
            }
            next = Some(c);
        }
        Some(cur)
    })
}

/// The fence choice of [`minimal_fences`], before its minimality is settled.
fn choose_fences(
    re: &Rechecks<'_>,
    models: &[Model],
    positions: &[Spot],
    violations: &mut [Violation],
    robust: Answer<bool>,
) -> FenceFix {
    let prog = re.prog;
    if violations.is_empty() {
        return FenceFix { fences: Vec::new(), confirmed: robust, minimal: true };
    }
    if let Some(why) = crate::certainty::Why::stopped(&re.opts.budget) {
        return unchecked(prog, violations, why);
    }
    // The set the cycles name, re-checked while measuring: the measured
    // choice is often the same.
    let (guess, _) = hitting_fences(prog, &own_candidates(violations));
    let guess: Vec<Spot> = guess.iter().map(|f| f.spot()).collect();
    // And, if few, the sets one smaller that its minimality proof re-checks
    // (sets of one are measured anyway).
    let mut sets = vec![guess.clone()];
    let smaller = guess.len().saturating_sub(1);
    if smaller >= 2 && binomial(positions.len() as u64, smaller as u64) <= MEASURED_SUBSETS {
        sets.extend(subsets(positions.len(), smaller).map(|ix| ix.iter().map(|&i| positions[i]).collect()));
    }
    let kills = re.kills_guessing(positions, violations, models, &sets);
    if kills.iter().any(|k| k.is_empty()) {
        return confirm_fences(re, models, violations);
    }
    let (chosen, minimal) = min_hitting_set(&kills);
    let mut fences: Vec<FencePoint> = chosen.iter().map(|&s| re.full(s)).collect();
    fences.sort();
    let confirmed = match re.run(&fences, models) {
        Ok(c) => c.robust(),
        Err(why) => Answer::Unknown(why),
    };
    if !confirmed.is(&true) {
        return confirm_fences(re, models, violations);
    }
    // Each fence as weak as the violations it removes allow: `ww` where
    // they are all store→store delays (as on real PSO hardware, where it
    // orders stores only), `rr` where they are all PSLO load→load ones, else
    // `wr`. (The operational PSO of the seeds drains on `ww` and `wr` alike,
    // so the re-check cannot tell those apart: the kind follows the cycles.
    // Under PSLO they differ, and the re-check below tells.)
    for f in fences.iter_mut() {
        f.kind = combine(
            violations
                .iter()
                .zip(&kills)
                .filter(|(_, k)| k.contains(&f.spot()))
                .map(|(v, _)| combine(v.candidates.iter().map(|c| c.1))),
        );
    }
    // (Under TSO and PSO the weakened set is the full one to the checker:
    // the cache answers.)
    let weakened = re.run(&fences, models).map(|c| c.robust());
    let confirmed = match weakened {
        Ok(a) if a.is(&true) => a,
        _ => {
            // `wr` and `full` act alike in every model the machine runs
            // (they drain; under PSLO they also reset the histories — a test
            // holds them to it), so the full fences' re-check confirms `wr`.
            for f in fences.iter_mut() {
                f.kind = FenceKind::WR;
            }
            confirmed
        }
    };
    assign(violations, &fences, |i, f| kills[i].contains(&f.spot()));
    FenceFix { fences, confirmed, minimal }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;
    use std::sync::atomic::{AtomicBool, AtomicU64};
    use std::sync::Arc;

    /// `confirm_fences` under a budget that cancels at its `n`-th poll
    /// (deterministic: one thread), with how many polls it made.
    fn confirm_cut_at(prog: &Program, violations: &[Violation], n: u64) -> (FenceFix, u64) {
        let left = Arc::new(AtomicU64::new(n));
        let budget = Budget {
            cancel: Some(Arc::new(AtomicBool::new(false))),
            polls_left: Some(left.clone()),
            ..Budget::default()
        };
        let opts = Options { threads: 1, budget, ..Options::default() };
        let re = Rechecks::new(prog, MonitorKind::Bss, &opts);
        let mut vs = violations.to_vec();
        let fix = confirm_fences(&re, &[Model::Tso, Model::Pso], &mut vs);
        (fix, n - left.load(Ordering::Relaxed))
    }

    /// A "confirmed" is earned by re-checks that finished: one stopped
    /// before it began, or cut anywhere before its last poll, leaves the
    /// fences unknown — never robust; given every poll it needs, the same
    /// fences are confirmed.
    #[test]
    fn fences_are_confirmed_only_by_rechecks_that_finished() {
        let src =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/programs/slow.litmus")).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        let opts = Options { threads: 1, ..Options::default() };
        let found = crate::find_violations(&prog, &[Model::Tso, Model::Pso], MonitorKind::Bss, &opts);
        let violations: Vec<Violation> = found.robustness.iter().flat_map(|r| r.violations.clone()).collect();
        assert!(!violations.is_empty());
        let (whole, polls) = confirm_cut_at(&prog, &violations, u64::MAX / 2);
        assert!(whole.confirmed.value() == Some(&true), "uncut: confirmed robust, got {:?}", whole.confirmed);
        assert!(polls > 100, "{polls} polls");
        let earned = |fix: &FenceFix| fix.confirmed.value() == Some(&true);
        // Stopped before the first re-check began.
        let (fix, _) = confirm_cut_at(&prog, &violations, 0);
        assert!(matches!(fix.confirmed, Answer::Unknown(Why::Cancelled)), "{:?}", fix.confirmed);
        // Cut inside a re-check, early, midway, at its very last poll.
        for n in [1, polls / 3, polls / 2, polls - 1] {
            let (fix, _) = confirm_cut_at(&prog, &violations, n);
            assert!(!earned(&fix), "cut at poll {n} of {polls}: {:?}", fix.confirmed);
            assert!(matches!(fix.confirmed, Answer::Unknown(_)), "cut at poll {n} of {polls}: {:?}", fix.confirmed);
        }
        // Every poll it needs: the same fences, confirmed.
        let (fix, _) = confirm_cut_at(&prog, &violations, polls);
        assert!(earned(&fix), "{:?}", fix.confirmed);
        assert_eq!(fix.fences, whole.fences);
    }
}
