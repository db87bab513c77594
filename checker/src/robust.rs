//! Robustness per relaxed model: run the monitors on every SC execution,
//! group violations by their static statement pair, prove each with a
//! replayed witness, explain it as a cycle, judge harm, and compute the
//! fewest fences that remove them all (confirmed by re-checking).

use crate::dpor::{Control, ExecKind, Execution, Explorer, Limits};
use crate::hb::Hb;
use crate::machine::{Event, EventKind, Machine, Model, NONE};
use crate::monitor::{self, Forcing, RawViolation};
use crate::outcome::{Observation, Options};
use crate::trace::Edge;
use crate::witness::{self, RelaxedWitness};
use litmus_dsl::edit::FenceInsertion;
use litmus_dsl::ir::{StmtForm, StmtId};
use litmus_dsl::{FenceKind, Program};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MonitorKind {
    /// Burnim–Sen–Stergiou, commits forced only by causally preceding events.
    Bss,
    /// Burnim–Sen–Stergiou exactly as in the paper (interleaving order).
    BssInterleaving,
    /// Burckhardt–Musuvathi (TSO only; PSO falls back to BSS).
    Sober,
}

impl MonitorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MonitorKind::Bss => "bss",
            MonitorKind::BssInterleaving => "bss-interleaving",
            MonitorKind::Sober => "sober",
        }
    }
}

/// One statement of a cycle and the edge leaving it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CycleStep {
    pub thread: u16,
    pub stmt: StmtId,
    pub edge: Edge,
}

#[derive(Clone, Debug)]
pub enum Harm {
    /// A continuation fails this statement (an assertion or run-time error).
    Fails {
        stmt: StmtId,
        events: Vec<Event>,
    },
    /// A continuation reaches a final state that changes the final
    /// condition's answer with respect to SC.
    ChangesCondition {
        events: Vec<Event>,
    },
    Benign,
    /// The continuations could not all be explored (bounds, timeout).
    Unknown,
}

impl Harm {
    pub fn is_harmful(&self) -> bool {
        matches!(self, Harm::Fails { .. } | Harm::ChangesCondition { .. })
    }
}

/// A fence to insert after a statement of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FencePoint {
    pub thread: u16,
    pub stmt: StmtId,
    pub kind: FenceKind,
}

#[derive(Clone, Debug)]
pub struct Violation {
    pub model: Model,
    /// The delayed store and the access that overtakes it.
    pub store_stmt: StmtId,
    pub access_stmt: StmtId,
    pub cycle: Vec<CycleStep>,
    pub witness: RelaxedWitness,
    /// The SC execution the monitor flagged, up to the access.
    pub sc_events: Vec<Event>,
    pub harm: Harm,
    /// Times the monitor signalled this pair (once per distinct SC prefix).
    pub occurrences: u64,
    /// Fence positions that each remove this violation, and whether
    /// ordering stores suffices there.
    pub candidates: Vec<(StmtId, bool)>,
    /// The fence, of the minimal set, that removes this violation.
    pub fence: Vec<FencePoint>,
}

#[derive(Clone, Debug)]
pub struct Robustness {
    pub model: Model,
    pub monitor: MonitorKind,
    pub violations: Vec<Violation>,
    /// Statement pairs the monitor signalled but for which no witness
    /// replayed to a cyclic trace (never shown as violations; while any
    /// remain, robustness is not claimed).
    pub unconfirmed: u64,
    /// A minimal set of fences making the program robust (empty if robust).
    pub fences: Vec<FencePoint>,
    /// The fenced program was re-checked and found robust.
    pub fences_confirmed: bool,
    /// The SC exploration the monitors ran on was complete (no bound hit):
    /// otherwise "robust" only holds within bounds.
    pub complete: bool,
}

impl Robustness {
    pub fn robust(&self) -> bool {
        self.violations.is_empty()
    }

    /// Robust and every monitor signal accounted for.
    pub fn certainly_robust(&self) -> bool {
        self.violations.is_empty() && self.unconfirmed == 0
    }
}

struct Group {
    v: Option<Violation>,
    attempts: u32,
    occurrences: u64,
}

/// Collects violations from SC executions as they are explored. The BSS
/// monitors are incremental: an execution shares its prefix with the one
/// before (depth-first order), and only the new suffix is monitored.
pub struct Collector<'p> {
    prog: &'p Program,
    models: Vec<Model>,
    monitor: MonitorKind,
    loop_bound: u32,
    groups: Vec<BTreeMap<(StmtId, StmtId), Group>>,
    hb: Hb,
    bss: Vec<Option<monitor::Bss>>,
    /// Events the incremental monitors have seen (a prefix of the log).
    listened: usize,
}

impl crate::dpor::EventListener for Collector<'_> {
    fn on_events(&mut self, log: &[Event], from: usize) {
        if self.bss.iter().all(|m| m.is_none()) {
            return;
        }
        debug_assert_eq!(from, self.listened);
        let mut raws: Vec<(usize, RawViolation)> = Vec::new();
        for i in from..log.len() {
            self.hb.push(log, i);
            for (mi, m) in self.bss.iter_mut().enumerate() {
                if let Some(m) = m {
                    m.push(log, i, &self.hb, &mut |r| raws.push((mi, r)));
                }
            }
            for (mi, r) in raws.drain(..) {
                // What the monitor has seen: the execution up to event i.
                self.record(&log[..=i], mi, r);
            }
        }
        self.listened = log.len();
    }

    fn on_truncate(&mut self, len: usize) {
        if len >= self.listened {
            return;
        }
        self.hb.truncate(len);
        for m in self.bss.iter_mut().flatten() {
            m.truncate(len);
        }
        self.listened = len;
    }
}

/// Lets the collector be both the listener and (for Sober) the observer.
struct ListenerRef<'a, 'b, 'p>(&'a std::cell::RefCell<&'b mut Collector<'p>>);

impl crate::dpor::EventListener for ListenerRef<'_, '_, '_> {
    fn on_events(&mut self, log: &[Event], from: usize) {
        self.0.borrow_mut().on_events(log, from);
    }
    fn on_truncate(&mut self, len: usize) {
        self.0.borrow_mut().on_truncate(len);
    }
}

impl<'p> Collector<'p> {
    pub fn new(prog: &'p Program, models: &[Model], monitor: MonitorKind, loop_bound: u32) -> Self {
        let models: Vec<Model> = models.iter().copied().filter(|m| *m != Model::Sc).collect();
        let bss = models
            .iter()
            .map(|&m| match (monitor, m) {
                (MonitorKind::Sober, Model::Tso) => None,
                (MonitorKind::BssInterleaving, _) => Some(monitor::Bss::new(prog, m, Forcing::Interleaving)),
                _ => Some(monitor::Bss::new(prog, m, Forcing::Causal)),
            })
            .collect();
        Collector {
            prog,
            groups: models.iter().map(|_| BTreeMap::new()).collect(),
            models,
            monitor,
            loop_bound,
            hb: Hb::new(prog.threads.len(), prog.mem_size()),
            bss,
            listened: 0,
        }
    }

    /// Sober is not incremental: it runs on each whole execution.
    pub fn observe(&mut self, e: &Execution<'_>) {
        for mi in 0..self.models.len() {
            if self.bss[mi].is_none() {
                let hb = Hb::of(e.events, self.prog.threads.len());
                let mut found = Vec::new();
                monitor::sober(self.prog, e.events, &hb, &mut |r| found.push(r));
                let saved_hb = std::mem::replace(&mut self.hb, hb);
                for r in found {
                    self.record(e.events, mi, r);
                }
                self.hb = saved_hb;
            }
        }
    }

    /// Explore the SC executions with the monitors riding along; returns
    /// the SC outcome.
    pub fn run(&mut self, opts: &Options) -> crate::outcome::ModelOutcome {
        let prog = self.prog;
        let sober = self.bss.iter().any(|m| m.is_none());
        let cell = std::cell::RefCell::new(self);
        let mut listener = ListenerRef(&cell);
        crate::outcome::explore_listened(prog, Model::Sc, opts, &mut listener, |e| {
            if sober {
                cell.borrow_mut().observe(e);
            }
        })
    }

    fn record(&mut self, log: &[Event], mi: usize, r: RawViolation) {
        let model = self.models[mi];
        let hb = &self.hb;
        let key = (log[r.store as usize].stmt, log[r.access as usize].stmt);
        let g = self.groups[mi].entry(key).or_insert(Group { v: None, attempts: 0, occurrences: 0 });
        g.occurrences += 1;
        if g.v.is_some() || g.attempts >= 8 {
            return;
        }
        g.attempts += 1;
        let sober = self.monitor == MonitorKind::Sober && model == Model::Tso;
        // BSS replays what happens before the access; Sober what happens up
        // to the access's thread's previous event.
        let upto: Vec<u32> = if sober { hb.clock(r.prev).to_vec() } else { hb.pre(log, r.access) };
        let built = if sober {
            witness::build_borderline(self.prog, model, self.loop_bound, log, hb, &upto, r.store, r.access)
        } else {
            witness::build(self.prog, model, self.loop_bound, log, hb, &upto, r.store, r.access)
        };
        match built {
            Some(w) => {
                let cycle = display_cycle(log, hb, r);
                let candidates = fence_candidates(self.prog, model, log, &cycle, r);
                g.v = Some(Violation {
                    model,
                    store_stmt: key.0,
                    access_stmt: key.1,
                    cycle: cycle
                        .iter()
                        .map(|&(ev, edge)| CycleStep {
                            thread: log[ev as usize].thread,
                            stmt: log[ev as usize].stmt,
                            edge,
                        })
                        .collect(),
                    witness: w,
                    sc_events: log[..=r.access as usize].to_vec(),
                    harm: Harm::Unknown,
                    occurrences: 0,
                    candidates,
                    fence: Vec::new(),
                });
            }
            None => {}
        }
    }

    /// The confirmed violations per relaxed model, in statement order.
    pub fn finish(self) -> Vec<(Model, Vec<Violation>, u64)> {
        let mut out = Vec::new();
        for (model, groups) in self.models.into_iter().zip(self.groups) {
            let unconfirmed = groups.values().filter(|g| g.v.is_none()).count() as u64;
            let mut vs: Vec<Violation> = groups
                .into_values()
                .filter_map(|g| {
                    g.v.map(|mut v| {
                        v.occurrences = g.occurrences;
                        v
                    })
                })
                .collect();
            vs.sort_by_key(|v| (v.store_stmt, v.access_stmt));
            out.push((model, vs, unconfirmed));
        }
        out
    }
}

/// The cycle `store →hb* prev →po access →c store` as a shortest chain of
/// events of the SC execution: (event, edge leaving it).
fn display_cycle(log: &[Event], hb: &Hb, r: RawViolation) -> Vec<(u32, Edge)> {
    let n = r.access as usize;
    // BFS from the store to prev over po (to any later event of the
    // thread), rf, co and fr edges among events before the access.
    let mut parent: HashMap<usize, (usize, Edge)> = HashMap::new();
    let mut queue = VecDeque::new();
    let start = r.store as usize;
    let goal = r.prev as usize;
    queue.push_back(start);
    parent.insert(start, (usize::MAX, Edge::Po));
    while let Some(v) = queue.pop_front() {
        if v == goal {
            break;
        }
        let e = &log[v];
        let mut next: Vec<(usize, Edge)> = Vec::new();
        for j in v + 1..n {
            let f = &log[j];
            if f.kind == EventKind::Commit || matches!(f.kind, EventKind::Fence(_)) && j != goal {
                continue;
            }
            if f.thread == e.thread {
                next.push((j, Edge::Po));
            } else if f.cell != NONE && f.cell == e.cell {
                if e.is_write() && matches!(f.kind, EventKind::Load | EventKind::Rmw) && f.rf == v as u32 {
                    next.push((j, Edge::Rf));
                } else if e.is_write() && f.is_write() {
                    next.push((j, Edge::Co));
                } else if !e.is_write() && f.is_write() {
                    next.push((j, Edge::Fr));
                }
            }
        }
        for (j, edge) in next {
            if hb.before(log, j as u32, goal as u32) && !parent.contains_key(&j) {
                parent.insert(j, (v, edge));
                queue.push_back(j);
            }
        }
    }
    let mut path = Vec::new();
    let mut cur = goal;
    while cur != start {
        let Some(&(p, edge)) = parent.get(&cur) else { break };
        path.push((p as u32, edge));
        cur = p;
    }
    path.reverse();
    let access_edge = if log[r.access as usize].kind == EventKind::Load { Edge::Fr } else { Edge::Co };
    path.push((r.prev, Edge::Po));
    path.push((r.access, access_edge));
    path
}

/// Statements after which a fence removes this violation: the delayed
/// store may not pass the next event of its thread on the cycle, so a fence
/// anywhere from the store up to that event orders them. (Each violation
/// names its own delayed store: a cycle with several relaxable edges yields
/// one violation per edge, and every one of them needs its fence.)
fn fence_candidates(
    prog: &Program,
    model: Model,
    log: &[Event],
    cycle: &[(u32, Edge)],
    r: RawViolation,
) -> Vec<(StmtId, bool)> {
    let s = &log[r.store as usize];
    // The stretch of the cycle in the store's thread, starting at the store.
    let mut exit = cycle[0].0;
    for &(ev, _) in &cycle[1..] {
        if log[ev as usize].thread != s.thread {
            break;
        }
        exit = ev;
    }
    let b = &log[exit as usize];
    // ww suffices when the store is only overtaken by a store (PSO).
    let ww_only = model == Model::Pso && b.kind == EventKind::Store;
    let mut out: Vec<(StmtId, bool)> = Vec::new();
    for j in r.store..exit.max(r.store + 1) {
        let f = &log[j as usize];
        if f.thread != s.thread || matches!(f.kind, EventKind::Commit | EventKind::Fence(_)) {
            continue;
        }
        // A fence can only follow a statement that falls through.
        if prog.stmts[f.stmt as usize].form != StmtForm::Simple {
            continue;
        }
        if !out.iter().any(|c| c.0 == f.stmt) {
            out.push((f.stmt, ww_only));
        }
    }
    if out.is_empty() {
        out.push((s.stmt, ww_only));
    }
    out
}

/// A smallest set of positions hitting every violation's candidates.
pub fn min_hitting_set(sets: &[Vec<StmtId>]) -> Vec<StmtId> {
    let mut best: Option<Vec<StmtId>> = None;
    fn go(sets: &[Vec<StmtId>], chosen: &mut Vec<StmtId>, best: &mut Option<Vec<StmtId>>, budget: &mut u32) {
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
    best.unwrap_or_else(|| {
        // Budget exhausted: greedy.
        let mut chosen: Vec<StmtId> = Vec::new();
        while let Some(s) = sets.iter().find(|s| !s.iter().any(|x| chosen.contains(x))) {
            chosen.push(s[0]);
        }
        chosen
    })
}

/// Fences at the chosen positions, each as weak as the violations it
/// removes allow (`ww` only if they are all PSO store→store delays).
fn fences_at(prog: &Program, chosen: &[StmtId], constraints: &[Vec<(StmtId, bool)>]) -> Vec<FencePoint> {
    let mut fences: Vec<FencePoint> = chosen
        .iter()
        .map(|&stmt| {
            let ww = constraints.iter().filter_map(|c| c.iter().find(|x| x.0 == stmt)).all(|c| c.1);
            FencePoint {
                thread: prog.stmts[stmt as usize].thread,
                stmt,
                kind: if ww { FenceKind::WW } else { FenceKind::WR },
            }
        })
        .collect();
    fences.sort();
    fences
}

/// Choose fences for violations (of any models): a minimum hitting set of
/// their candidate positions.
pub fn choose_fences(prog: &Program, violations: &mut [Violation]) -> Vec<FencePoint> {
    let constraints: Vec<Vec<(StmtId, bool)>> = violations.iter().map(|v| v.candidates.clone()).collect();
    let sets: Vec<Vec<StmtId>> = constraints.iter().map(|c| c.iter().map(|x| x.0).collect()).collect();
    let fences = fences_at(prog, &min_hitting_set(&sets), &constraints);
    for v in violations.iter_mut() {
        v.fence = fences.iter().filter(|f| v.candidates.iter().any(|c| c.0 == f.stmt)).take(1).copied().collect();
    }
    fences
}

/// Continue a violation's witness under its model: harmful if some
/// continuation fails or changes the final condition's answer.
pub fn judge_harm(prog: &Program, v: &Violation, sc_observation: Option<Observation>, opts: &Options) -> Harm {
    let m = Machine::new(prog, v.model, opts.loop_bound, opts.buffer_bound);
    let mut ex = Explorer::new(&m);
    let prefix = v.witness.events[..v.witness.before_drain].to_vec();
    let mut harm = Harm::Benign;
    let deadline = opts.deadline;
    ex.run_from(
        v.witness.state_after_access.clone(),
        prefix,
        Limits { deadline, cancel: opts.cancel.clone(), preemption_bound: None },
        |e| {
            match e.kind {
                ExecKind::Failed => {
                    let stmt = e
                        .state
                        .threads
                        .iter()
                        .find_map(|t| {
                            if let crate::machine::ThreadStatus::Failed { stmt, .. } = t {
                                Some(*stmt)
                            } else {
                                None
                            }
                        })
                        .unwrap_or(0);
                    harm = Harm::Fails { stmt, events: e.events.to_vec() };
                    return Control::Stop;
                }
                ExecKind::Complete => {
                    if let (Some(c), Some(obs)) = (&prog.condition, sc_observation) {
                        let holds = m.eval(&c.expr, e.state);
                        let kept = prog.filter.as_ref().is_none_or(|f| m.eval(f, e.state));
                        let changes = kept
                            && match obs {
                                Observation::Never => holds,
                                Observation::Always => !holds,
                                Observation::Sometimes => false,
                            };
                        if changes {
                            harm = Harm::ChangesCondition { events: e.events.to_vec() };
                            return Control::Stop;
                        }
                    }
                }
                _ => {}
            }
            Control::Continue
        },
    );
    if matches!(harm, Harm::Benign) && (ex.stats.timed_out || ex.stats.cut > 0) {
        Harm::Unknown
    } else {
        harm
    }
}

/// The fence insertions for the source editor.
pub fn insertions(fences: &[FencePoint]) -> Vec<FenceInsertion> {
    fences.iter().map(|f| FenceInsertion { stmt: f.stmt, kind: f.kind }).collect()
}

/// Statement of the fenced program → statement of the original, matching
/// each thread's statements in order and skipping the inserted fences
/// (each comes right after the statement it follows).
fn map_back(orig: &Program, fenced: &Program, fences: &[FencePoint]) -> HashMap<StmtId, StmtId> {
    let mut map = HashMap::new();
    for t in 0..orig.threads.len() as u16 {
        let o: Vec<StmtId> = (0..orig.stmts.len() as u32).filter(|&i| orig.stmts[i as usize].thread == t).collect();
        let f: Vec<StmtId> = (0..fenced.stmts.len() as u32).filter(|&i| fenced.stmts[i as usize].thread == t).collect();
        let mut j = 0;
        for &s in &o {
            if j >= f.len() {
                break;
            }
            map.insert(f[j], s);
            j += 1;
            if fences.iter().any(|x| x.stmt == s) {
                j += 1; // the inserted fence
            }
        }
    }
    map
}

/// Choose fences and re-check the fenced source under every model until it
/// is robust (a few rounds: a fence can expose what the first set missed).
pub fn confirm_fences(
    src: &str,
    prog: &Program,
    models: &[Model],
    monitor: MonitorKind,
    violations: &mut [Violation],
    opts: &Options,
) -> (Vec<FencePoint>, bool) {
    let mut constraints: Vec<Vec<(StmtId, bool)>> = violations.iter().map(|v| v.candidates.clone()).collect();
    let mut fences = choose_fences(prog, violations);
    for _round in 0..4 {
        if fences.is_empty() {
            return (fences, true);
        }
        let edits = litmus_dsl::edit::fence_edits(src, prog, &insertions(&fences));
        let fenced_src = litmus_dsl::edit::apply(src, &edits);
        let Some(fenced) = litmus_dsl::analyze(&fenced_src).program else {
            return (fences, false);
        };
        let remaining: Vec<Violation> = models
            .iter()
            .filter(|m| **m != Model::Sc)
            .flat_map(|&m| violations_of(&fenced, m, monitor, opts))
            .collect();
        if remaining.is_empty() {
            return (fences, true);
        }
        let back = map_back(prog, &fenced, &fences);
        let mut progressed = false;
        for v in remaining {
            let set: Vec<(StmtId, bool)> =
                v.candidates.iter().filter_map(|&(s, ww)| back.get(&s).map(|&o| (o, ww))).collect();
            if !set.is_empty() && !constraints.contains(&set) {
                constraints.push(set);
                progressed = true;
            }
        }
        if !progressed {
            return (fences, false);
        }
        let sets: Vec<Vec<StmtId>> = constraints.iter().map(|c| c.iter().map(|x| x.0).collect()).collect();
        fences = fences_at(prog, &min_hitting_set(&sets), &constraints);
        for v in violations.iter_mut() {
            v.fence = fences.iter().filter(|f| v.candidates.iter().any(|c| c.0 == f.stmt)).take(1).copied().collect();
        }
    }
    (fences, false)
}

/// Fences that make the program robust under all the given models at once.
pub fn joint_fences(
    src: &str,
    prog: &Program,
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
) -> (Vec<FencePoint>, bool) {
    let mut all: Vec<Violation> =
        models.iter().filter(|m| **m != Model::Sc).flat_map(|&m| violations_of(prog, m, monitor, opts)).collect();
    minimal_fences(src, prog, models, monitor, &mut all, opts)
}

/// The confirmed violations of a program under one relaxed model.
pub fn violations_of(prog: &Program, model: Model, monitor: MonitorKind, opts: &Options) -> Vec<Violation> {
    let mut c = Collector::new(prog, &[model], monitor, opts.loop_bound);
    c.run(opts);
    c.finish().pop().map(|x| x.1).unwrap_or_default()
}

/// Statements of the program that store (where a fence can matter: a fence
/// later in the same straight-line stretch orders less).
pub fn store_stmts(prog: &Program) -> Vec<StmtId> {
    let mut v: Vec<StmtId> = prog
        .threads
        .iter()
        .flat_map(|t| t.code.iter())
        .filter_map(|i| match i {
            litmus_dsl::ir::Instr::Store { stmt, .. } => Some(*stmt),
            _ => None,
        })
        .filter(|&s| prog.stmts[s as usize].form == StmtForm::Simple)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The violations (as statement pairs of `prog`) left after fencing `at`.
fn remaining_after(
    src: &str,
    prog: &Program,
    at: &[FencePoint],
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
) -> Option<Vec<(Model, StmtId, StmtId)>> {
    let fenced_src = litmus_dsl::edit::apply(src, &litmus_dsl::edit::fence_edits(src, prog, &insertions(at)));
    let fenced = litmus_dsl::analyze(&fenced_src).program?;
    let back = map_back(prog, &fenced, at);
    let mut out = Vec::new();
    for &m in models.iter().filter(|m| **m != Model::Sc) {
        for v in violations_of(&fenced, m, monitor, opts) {
            // A violation whose statements do not map back is a new one.
            out.push((
                m,
                *back.get(&v.store_stmt).unwrap_or(&StmtId::MAX),
                *back.get(&v.access_stmt).unwrap_or(&StmtId::MAX),
            ));
        }
    }
    Some(out)
}

/// The fewest fences that make the program robust under all `models`.
///
/// Each violation's cycle names where a fence must go to break *that*
/// cycle, but a fence elsewhere can remove the violation too (by making the
/// rest of its cycle impossible). So the candidates are measured: a full
/// fence after each store, alone, and the violations it removes; then a
/// minimum hitting set, re-checked, and each fence weakened to `ww` where
/// that keeps the program robust. If a violation is removed by no single
/// fence, the cycle-based choice (also re-checked) is used instead.
pub fn minimal_fences(
    src: &str,
    prog: &Program,
    models: &[Model],
    monitor: MonitorKind,
    violations: &mut [Violation],
    opts: &Options,
) -> (Vec<FencePoint>, bool) {
    if violations.is_empty() {
        return (Vec::new(), true);
    }
    let mut positions = store_stmts(prog);
    for v in violations.iter() {
        positions.extend(v.candidates.iter().map(|c| c.0));
    }
    positions.sort();
    positions.dedup();
    let full = |stmt: StmtId| FencePoint { thread: prog.stmts[stmt as usize].thread, stmt, kind: FenceKind::Full };
    let keys: Vec<(Model, StmtId, StmtId)> =
        violations.iter().map(|v| (v.model, v.store_stmt, v.access_stmt)).collect();
    let mut kills: Vec<Vec<StmtId>> = vec![Vec::new(); violations.len()];
    for &p in &positions {
        let Some(left) = remaining_after(src, prog, &[full(p)], models, monitor, opts) else { continue };
        for (i, k) in keys.iter().enumerate() {
            if !left.contains(k) {
                kills[i].push(p);
            }
        }
    }
    if kills.iter().any(|k| k.is_empty()) {
        return confirm_fences(src, prog, models, monitor, violations, opts);
    }
    let chosen = min_hitting_set(&kills);
    let mut fences: Vec<FencePoint> = chosen.iter().map(|&s| full(s)).collect();
    fences.sort();
    match remaining_after(src, prog, &fences, models, monitor, opts) {
        Some(left) if left.is_empty() => {}
        _ => return confirm_fences(src, prog, models, monitor, violations, opts),
    }
    // `ww` where every violation the fence removes is a PSO store→store
    // delay (as on real PSO hardware, where it orders stores only), else
    // `wr`. (The operational PSO of the seeds drains on both, so the
    // re-check cannot tell them apart: the kind follows the cycles.)
    for f in fences.iter_mut() {
        let ww = violations
            .iter()
            .zip(&kills)
            .filter(|(_, k)| k.contains(&f.stmt))
            .all(|(v, _)| v.model == Model::Pso && v.candidates.iter().all(|c| c.1));
        f.kind = if ww { FenceKind::WW } else { FenceKind::WR };
    }
    if !remaining_after(src, prog, &fences, models, monitor, opts).is_some_and(|l| l.is_empty()) {
        for f in fences.iter_mut() {
            f.kind = FenceKind::WR;
        }
    }
    for (v, k) in violations.iter_mut().zip(&kills) {
        v.fence = fences.iter().filter(|f| k.contains(&f.stmt)).take(1).copied().collect();
    }
    (fences, true)
}
