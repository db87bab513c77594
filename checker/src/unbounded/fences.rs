//! The fewest fences that stop every attack, proved sufficient by the
//! attack search itself and proved fewest by the attack paths it finds
//! (Trencher's fence insertion, ESOP'13 §6, with fences wherever a
//! statement boundary is, solved as an implicit hitting set).
//!
//! A run of an attack is stopped by a fence exactly when the attacker
//! passes it between its delayed store and its access (a fence it passes
//! before the store or after the access, or one in another thread, which
//! runs SC, changes nothing). So every set that stops all attacks must put
//! a fence on each attack run's stretch from store to access — and the
//! places on one run's stretch are a *constraint*. The search keeps a list
//! of them: it takes a smallest set hitting every constraint known (none
//! at first: the empty set), re-checks the program fenced there, and if an
//! attack still succeeds, the places its run passed (read off *markers*,
//! fences of a kind no attacked model drains, standing at every other
//! place) are a new constraint, one the set missed. When the re-check
//! finds no attack, the set is sufficient — proved by that search — and a
//! smallest one: every sufficient set hits every constraint found, and no
//! set smaller than this one does. A set of places on *some* path of an
//! attack (not every path) is no constraint, which is why the runs, not
//! the control flow, name them.
//!
//! The search is bounded by work: re-checks and the hitting-set search's
//! steps. Past either, a fence right after each delayed store (which stops
//! every attack from it) is taken, re-checked, and said not to be proved
//! fewest.
//!
//! Places are those of [`Program::fence_place_ok`]: after a statement,
//! before one (a load, an `if`, a loop), at a loop's head (before the loop
//! and last in its body, so each evaluation of the condition follows a
//! fence: one place, two `fence;` in the text). A place of a function's
//! statement is one place in every thread that inlined it, as in the text.

use super::flow::{successors, Bits};
use super::search::{self, Visitor};
use super::system::{Choice, Closing, Move, Node, Phase, System};
use super::{decides, Stop};
use crate::certainty::{Answer, Why};
use crate::machine::{EventKind, Model};
use crate::model::Access;
use crate::options::Options;
use crate::options::StateLimits;
use crate::violation::{AttackId, FenceFix, FencePoint, Violation};
use litmus_dsl::edit::FenceInsertion;
use litmus_ir::{FenceKind, Instr, Place, Program, StmtForm, StmtId, StmtRange};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Re-checks the search may run before it settles for a set not proved
/// fewest (each one finds at least one new constraint).
pub const RECHECKS: usize = 256;

/// Steps of the hitting-set search, over all its calls, before the same.
const HITTING_STEPS: usize = 2_000_000;

/// A place a fence can go, and the (thread, pc)s its fences stand at
/// (before the instruction at each pc).
#[derive(Clone, Debug)]
struct Candidate {
    stmt: StmtId,
    place: Place,
    pcs: Vec<(u16, u32)>,
}

impl Candidate {
    fn point(&self, prog: &Program, kind: FenceKind) -> FencePoint {
        FencePoint { thread: prog.stmts[self.stmt as usize].thread, stmt: self.stmt, kind, place: self.place }
    }

    fn insertion(&self, kind: FenceKind) -> FenceInsertion {
        FenceInsertion { stmt: self.stmt, kind, place: self.place }
    }

    /// Does one of its fences stand in `region` of thread `t`?
    fn on(&self, t: u16, region: &Bits) -> bool {
        self.pcs.iter().any(|&(u, pc)| u == t && region.has(pc as usize))
    }
}

/// The pcs on some path of `code` from just after `w` to `r` (`r` included).
fn region(code: &[Instr], w: u32, r: u32) -> Bits {
    let n = code.len() + 1;
    let mut fwd = Bits::new(n);
    let mut stack: Vec<usize> = successors(code, w as usize).collect();
    while let Some(pc) = stack.pop() {
        if pc >= n || fwd.has(pc) {
            continue;
        }
        fwd.set(pc);
        if pc as u32 != r {
            stack.extend(successors(code, pc));
        }
    }
    // Backward: predecessors that reach `r`.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for pc in 0..code.len() {
        for s in successors(code, pc) {
            if s < n {
                preds[s].push(pc);
            }
        }
    }
    let mut out = Bits::new(n);
    let mut stack = vec![r as usize];
    while let Some(pc) = stack.pop() {
        if !fwd.has(pc) || out.has(pc) {
            continue;
        }
        out.set(pc);
        stack.extend(preds[pc].iter().copied());
    }
    out
}

/// Every place of the threads `threads` a fence can take, with its pcs in
/// every thread (a function's statement: one place, wherever it was
/// inlined), in (thread, statement, place) order.
fn candidates(prog: &Program, threads: &BTreeSet<u16>) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    // A function's statements have one id per thread: one place per source
    // statement and place, named by its first id (as the text edit does).
    let mut index: HashMap<(litmus_ir::Span, Place), usize> = HashMap::new();
    let places = prog.fence_places();
    for &t in threads {
        let th = &prog.threads[t as usize];
        let mut ranges: BTreeMap<StmtId, Vec<StmtRange>> = BTreeMap::new();
        for r in th.stmt_ranges.iter().chain(&th.control_ranges) {
            ranges.entry(r.stmt).or_default().push(*r);
        }
        for (&stmt, rs) in &ranges {
            for place in [Place::After, Place::Before, Place::LoopHead] {
                if !places.ok(stmt, place) {
                    continue;
                }
                let pcs: Vec<u32> = match place {
                    Place::After => rs.iter().map(|r| r.end).collect(),
                    Place::Before => rs.iter().map(|r| r.start).collect(),
                    Place::LoopHead => th
                        .loop_heads
                        .iter()
                        .filter(|h| h.stmt == stmt)
                        .flat_map(|h| {
                            let start = rs.iter().find(|r| r.start < h.head && h.back < r.end).map(|r| r.start);
                            start.into_iter().chain([h.back])
                        })
                        .collect(),
                };
                if pcs.is_empty() {
                    continue;
                }
                let key = (prog.stmts[stmt as usize].span, place);
                let i = *index.entry(key).or_insert_with(|| {
                    out.push(Candidate { stmt, place, pcs: Vec::new() });
                    out.len() - 1
                });
                out[i].pcs.extend(pcs.into_iter().map(|pc| (t, pc)));
            }
        }
    }
    out
}

/// The code with one fence at `c`, fence statements cleared: two places
/// that give the same code are one place.
fn signature(prog: &Program, c: &Candidate) -> Vec<Vec<Instr>> {
    let fenced = litmus_dsl::fence_ir::insert_fences(prog, &[c.insertion(FenceKind::Full)]);
    fenced
        .threads
        .iter()
        .map(|th| {
            th.code
                .iter()
                .map(|i| match *i {
                    Instr::Fence { kind, .. } => Instr::Fence { kind, stmt: 0 },
                    other => other,
                })
                .collect()
        })
        .collect()
}

/// What a re-check found: no attack, or the places passed by one run of
/// each attack that still succeeds.
enum Recheck {
    Stopped,
    Runs(Vec<Vec<usize>>),
}

/// The search's shared state: the program, the models, what re-checks cost.
struct Search<'a> {
    prog: &'a Program,
    models: &'a [Model],
    opts: &'a Options,
    limits: &'a StateLimits,
    cands: Vec<Candidate>,
    /// A fence kind no attacked model drains: the markers'.
    marker: Option<FenceKind>,
    /// The stores attacks start from ((model tag, statement), sorted): a
    /// fenced program's attacks are among the unfenced one's.
    starts: Vec<(u8, StmtId)>,
    rechecks: usize,
    steps: usize,
    /// The order candidates are tried in: of two smallest sets, the one
    /// with fences after statements rather than before them, and before
    /// them rather than at a loop's head (two fences in the text, one
    /// run each iteration); after a simple statement rather than after a
    /// whole `if` or loop.
    rank: Vec<(Place, bool, usize)>,
    /// Per candidate, the first one met with the same fenced code.
    same: HashMap<usize, usize>,
    signatures: HashMap<Vec<Vec<Instr>>, usize>,
}

impl Search<'_> {
    /// The runs of the attacks still feasible with full fences at `set`,
    /// as the places each passed between its store and its access.
    fn recheck(&mut self, set: &[usize]) -> Result<Recheck, Why> {
        let marker = self.marker.ok_or(Why::Unconfirmed(1))?;
        if let Some(why) = Why::stopped(&self.opts.budget) {
            return Err(why);
        }
        self.rechecks += 1;
        let ins: Vec<FenceInsertion> = self
            .cands
            .iter()
            .enumerate()
            .map(|(i, c)| c.insertion(if set.contains(&i) { FenceKind::Full } else { marker }))
            .collect();
        let (fenced, traced) = litmus_dsl::fence_ir::insert_fences_traced(self.prog, &ins);
        // Each fence statement, by the place it stands for.
        let by_stmt: HashMap<StmtId, usize> = traced
            .iter()
            .filter_map(|&(of, place, fence)| {
                Some((fence, self.cands.iter().position(|c| (c.stmt, c.place) == (of, place))?))
            })
            .collect();
        let relaxed: Vec<Model> = self.models.iter().copied().filter(|&m| decides(m)).collect();
        let mut sys = System::new(&fenced, &relaxed);
        sys.attack_stores = Some(self.starts.clone());
        let mut runs = FirstRuns::default();
        let (space, result) = search::explore(&sys, self.limits, self.opts, &mut runs);
        match result {
            Ok(()) => {}
            Err(stop) => return Err(why(stop)),
        }
        if runs.first.is_empty() {
            return Ok(Recheck::Stopped);
        }
        let mut out = Vec::new();
        for &(from, mv) in runs.first.values() {
            let mut path = space.path(from);
            path.push(mv);
            let passed = passed_markers(&sys, &path, marker);
            let mut places: Vec<usize> =
                passed.iter().filter_map(|s| by_stmt.get(s)).map(|&i| self.canonical(i)).collect();
            places.sort_unstable();
            places.dedup();
            out.push(places);
        }
        Ok(Recheck::Runs(out))
    }

    /// The constraints of runs found on the unfenced program: each replayed
    /// on it with a marker at every place (markers change no move, so the
    /// run is the same) to read the places it passes. This spares the
    /// search's first re-check, which would find them again.
    fn constraints_of(&mut self, runs: &[super::AttackRun]) -> Vec<Vec<usize>> {
        let Some(marker) = self.marker else { return Vec::new() };
        let runs: Vec<&Vec<Move>> =
            runs.iter().filter(|(a, _)| self.models.contains(&a.model)).map(|(_, path)| path).collect();
        if runs.is_empty() {
            return Vec::new();
        }
        let ins: Vec<FenceInsertion> = self.cands.iter().map(|c| c.insertion(marker)).collect();
        let (marked, traced) = litmus_dsl::fence_ir::insert_fences_traced(self.prog, &ins);
        let by_stmt: HashMap<StmtId, usize> = traced
            .iter()
            .filter_map(|&(of, place, fence)| {
                Some((fence, self.cands.iter().position(|c| (c.stmt, c.place) == (of, place))?))
            })
            .collect();
        let relaxed: Vec<Model> = self.models.iter().copied().filter(|&m| decides(m)).collect();
        let sys = System::new(&marked, &relaxed);
        let mut out: Vec<Vec<usize>> = Vec::new();
        for path in runs {
            let passed = passed_markers(&sys, path, marker);
            let mut places: Vec<usize> =
                passed.iter().filter_map(|s| by_stmt.get(s)).map(|&i| self.canonical(i)).collect();
            places.sort_unstable();
            places.dedup();
            // A run that passes no place can be stopped by none: leave it
            // to the re-checks (which then settle for no proof).
            if !places.is_empty() && !out.contains(&places) {
                out.push(places);
            }
        }
        out
    }

    /// The first candidate met whose fence gives the same code as `i`'s.
    fn canonical(&mut self, i: usize) -> usize {
        if let Some(&j) = self.same.get(&i) {
            return j;
        }
        let sig = signature(self.prog, &self.cands[i]);
        let j = *self.signatures.entry(sig).or_insert(i);
        self.same.insert(i, j);
        j
    }

    /// A smallest set stopping every attack, and whether it is proved
    /// smallest; `None`: the work bound ran out first.
    fn smallest(&mut self, seed: Vec<Vec<usize>>) -> Result<Option<Vec<usize>>, Why> {
        let mut constraints = seed;
        loop {
            let Some(set) = smallest_hitting(&constraints, &self.rank, &mut self.steps) else { return Ok(None) };
            if self.rechecks >= RECHECKS {
                return Ok(None);
            }
            match self.recheck(&set)? {
                Recheck::Stopped => return Ok(Some(set)),
                Recheck::Runs(runs) => {
                    for run in runs {
                        // A run passes no fence of the set (it would have
                        // stopped there); one that did, or passed no place
                        // at all, means the places are not what the re-check
                        // ran: nothing is claimed.
                        if run.is_empty() || run.iter().any(|c| set.contains(c)) {
                            return Ok(None);
                        }
                        if !constraints.contains(&run) {
                            constraints.push(run);
                        }
                    }
                }
            }
        }
    }

    /// Does no attack succeed with these fences (as chosen, kinds and all)?
    fn stops_all(&mut self, fences: &[FencePoint]) -> Answer<bool> {
        if let Some(why) = Why::stopped(&self.opts.budget) {
            return Answer::Unknown(why);
        }
        self.rechecks += 1;
        let fenced = litmus_dsl::fence_ir::insert_fences(self.prog, &crate::violation::insertions(fences));
        let starts = Some(self.starts.clone());
        match super::feasible_attacks_from(&fenced, self.models, None, starts, self.opts, self.limits) {
            Ok(attacks) => Answer::Proved(attacks.is_empty()),
            Err(stop) => Answer::Unknown(why(stop)),
        }
    }
}

/// Why a re-check's search did not finish: the deadline or a cancel, or
/// its work (a cap on states or memory, a value that kept growing).
fn why(stop: Stop) -> Why {
    match stop {
        Stop::Stopped(w) => w,
        Stop::States(n) => Why::Work(n as u64),
        _ => Why::Work(0),
    }
}

/// The first successful run of each attack a search finds (its parent
/// state and closing move: breadth-first, a shortest one).
#[derive(Default)]
struct FirstRuns {
    first: BTreeMap<(u8, u16, u32, u32), (u32, Move)>,
}

impl Visitor for FirstRuns {
    fn success(&mut self, from: u32, mv: Move, _c: Closing, before: &Node) {
        let a = &before.atk;
        self.first.entry((a.model, a.attacker, a.w_pc, a.r_pc)).or_insert((from, mv));
    }
}

/// The marker fences the attacker passed between its delayed store and its
/// attack access, on a path of the search (replayed on its system).
fn passed_markers(sys: &System<'_>, path: &[Move], marker: FenceKind) -> BTreeSet<StmtId> {
    let mut node = sys.initial();
    let mut log = Vec::new();
    let mut out = BTreeSet::new();
    for &mv in path {
        let attacking = match mv.choice {
            Choice::Attack(_) => true,
            // What the access itself runs into comes after it.
            Choice::Access => false,
            Choice::Step | Choice::Commit => node.atk.phase == Phase::Attacking && node.atk.attacker == mv.thread,
        };
        if sys.apply(&mut node, mv, &mut log).is_none() {
            break;
        }
        if attacking {
            for e in log.iter().filter(|e| e.thread == mv.thread) {
                if e.kind == EventKind::Fence(marker) {
                    out.insert(e.stmt);
                }
            }
        }
    }
    out
}

/// A smallest set of candidates hitting every constraint: independent
/// groups of constraints (sharing no candidate) solved apart, each by
/// branch and bound (the constraint with the fewest candidates first, its
/// candidates by `rank`, so of the smallest sets the first in that order
/// is found, the same every time). `None`: `steps` ran out.
fn smallest_hitting<R: Ord>(constraints: &[Vec<usize>], rank: &[R], steps: &mut usize) -> Option<Vec<usize>> {
    // Groups: union-find over the candidates the constraints share.
    let mut parent: BTreeMap<usize, usize> = BTreeMap::new();
    fn find(p: &mut BTreeMap<usize, usize>, x: usize) -> usize {
        let up = *p.entry(x).or_insert(x);
        if up == x {
            return x;
        }
        let root = find(p, up);
        p.insert(x, root);
        root
    }
    for c in constraints {
        for w in c.windows(2) {
            let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
            parent.insert(a.max(b), a.min(b));
        }
        if let Some(&x) = c.first() {
            find(&mut parent, x);
        }
    }
    let mut groups: BTreeMap<usize, Vec<&[usize]>> = BTreeMap::new();
    for c in constraints {
        let root = find(&mut parent, c[0]);
        groups.entry(root).or_default().push(c);
    }
    let mut out = Vec::new();
    for group in groups.values() {
        let mut best: Option<Vec<usize>> = None;
        branch(group, rank, &mut Vec::new(), &mut best, steps)?;
        out.extend(best.expect("a group has a hitting set"));
    }
    out.sort_unstable();
    Some(out)
}

fn branch<R: Ord>(
    cons: &[&[usize]],
    rank: &[R],
    chosen: &mut Vec<usize>,
    best: &mut Option<Vec<usize>>,
    steps: &mut usize,
) -> Option<()> {
    *steps = steps.checked_sub(1)?;
    let open: Vec<&[usize]> = cons.iter().copied().filter(|c| !c.iter().any(|x| chosen.contains(x))).collect();
    if open.is_empty() {
        if best.as_ref().is_none_or(|b| chosen.len() < b.len()) {
            *best = Some(chosen.clone());
        }
        return Some(());
    }
    if let Some(b) = best {
        // A lower bound: constraints sharing no candidate, greedily.
        let mut used: BTreeSet<usize> = BTreeSet::new();
        let mut disjoint = 0;
        for c in &open {
            if !c.iter().any(|x| used.contains(x)) {
                used.extend(c.iter().copied());
                disjoint += 1;
            }
        }
        if chosen.len() + disjoint >= b.len() {
            return Some(());
        }
    }
    let least = open.iter().min_by_key(|c| c.len()).expect("open is not empty");
    let mut order: Vec<usize> = least.to_vec();
    order.sort_by(|&a, &b| rank[a].cmp(&rank[b]));
    for x in order {
        chosen.push(x);
        let r = branch(cons, rank, chosen, best, steps);
        chosen.pop();
        r?;
    }
    Some(())
}

/// The weakest kind for a fence stopping these attacks: `ww` where each is
/// a PSO attack whose access is a store (store→store), else `wr`.
fn kind_for(prog: &Program, attacks: &[&AttackId]) -> FenceKind {
    let store_only = attacks.iter().all(|a| {
        a.model.weakest_fence(Access::Write, Access::Write) == FenceKind::WW
            && matches!(prog.threads[a.attacker as usize].code.get(a.r_pc as usize), Some(Instr::Store { .. }))
    });
    if store_only && !attacks.is_empty() {
        FenceKind::WW
    } else {
        FenceKind::WR
    }
}

/// Fences stopping every attack of `models` (`attacks`: those feasible in
/// `prog`; `runs`: a run of some of them, as the search that found them
/// took it, whose places start the constraints), proved by re-checking, and
/// a smallest such set where the search finished within its work bound. Each violation learns the fences of the
/// set that stop it (those on its attacks' paths: the others are never
/// passed between its store and its access).
pub fn minimal_fences(
    prog: &Program,
    models: &[Model],
    attacks: &[AttackId],
    runs: &[super::AttackRun],
    violations: &mut [Violation],
    opts: &Options,
    limits: &StateLimits,
) -> FenceFix {
    let attacks: Vec<AttackId> = attacks.iter().filter(|a| models.contains(&a.model)).copied().collect();
    if attacks.is_empty() {
        return FenceFix { fences: Vec::new(), confirmed: Answer::Proved(true), minimal: true };
    }
    let threads: BTreeSet<u16> = attacks.iter().map(|a| a.attacker).collect();
    let marker = [FenceKind::RR, FenceKind::WW, FenceKind::WR, FenceKind::Full]
        .into_iter()
        .find(|&k| models.iter().all(|m| !m.drains(k) && !m.resets(k)));
    let cands = candidates(prog, &threads);
    let mut starts: Vec<(u8, StmtId)> = attacks
        .iter()
        .filter_map(|a| {
            let stmt = prog.threads[a.attacker as usize].code[a.w_pc as usize].event_stmt()?;
            Some((super::system::tag_of(a.model)?, stmt))
        })
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let mut s = Search {
        prog,
        models,
        opts,
        limits,
        rank: cands
            .iter()
            .enumerate()
            .map(|(i, c)| (c.place, prog.stmts[c.stmt as usize].form != StmtForm::Simple, i))
            .collect(),
        cands,
        marker,
        starts,
        rechecks: 0,
        steps: HITTING_STEPS,
        same: HashMap::new(),
        signatures: HashMap::new(),
    };
    let seed = s.constraints_of(runs);
    let (set, minimal) = match s.smallest(seed) {
        Ok(Some(set)) => (set, true),
        Ok(None) => (upper(prog, &s.cands, &attacks), false),
        Err(why) => return FenceFix { fences: Vec::new(), confirmed: Answer::Unknown(why), minimal: false },
    };
    let regions: Vec<Bits> =
        attacks.iter().map(|a| region(&prog.threads[a.attacker as usize].code, a.w_pc, a.r_pc)).collect();
    let chosen: Vec<Candidate> = set.iter().map(|&i| s.cands[i].clone()).collect();
    let mut fences: Vec<FencePoint> = chosen
        .iter()
        .map(|c| {
            // The attacks whose paths this fence is on: what its kind must stop.
            let on: Vec<&AttackId> =
                attacks.iter().zip(&regions).filter(|(a, r)| c.on(a.attacker, r)).map(|(a, _)| a).collect();
            c.point(prog, kind_for(prog, &on))
        })
        .collect();
    // The whole set, as weak as chosen, against every attack of every
    // model — unless each fence drains as a full one does under every model
    // (`wr` under TSO): then the search's last re-check, which found no
    // attack with full fences there, proved it already.
    let as_full = fences.iter().all(|f| {
        models
            .iter()
            .all(|m| m.drains(f.kind) == m.drains(FenceKind::Full) && m.resets(f.kind) == m.resets(FenceKind::Full))
    });
    let mut confirmed = if minimal && as_full { Answer::Proved(true) } else { s.stops_all(&fences) };
    if confirmed == Answer::Proved(false) {
        // A weakened fence let an attack through: full strength (`wr`).
        for f in fences.iter_mut() {
            f.kind = FenceKind::WR;
        }
        confirmed = s.stops_all(&fences);
    }
    for v in violations.iter_mut() {
        let Some(a) = v.attack else { continue };
        // Every attack from the violation's delayed store: the fences on
        // their paths stop them all, whatever access closes the cycle.
        let mine: Vec<&Bits> = attacks
            .iter()
            .zip(&regions)
            .filter(|(b, _)| (b.model, b.attacker, b.w_pc) == (a.model, a.attacker, a.w_pc))
            .map(|(_, r)| r)
            .collect();
        v.fence = chosen
            .iter()
            .zip(&fences)
            .filter(|(c, _)| mine.iter().any(|r| c.on(a.attacker, r)))
            .map(|(_, f)| *f)
            .collect();
        v.fence.sort();
    }
    fences.sort();
    FenceFix { fences, confirmed, minimal }
}

/// A fence right after each delayed store: it drains the store at once,
/// so no attack from it succeeds.
fn upper(prog: &Program, cands: &[Candidate], attacks: &[AttackId]) -> Vec<usize> {
    let mut set: Vec<usize> = attacks
        .iter()
        .filter_map(|a| {
            let stmt = prog.threads[a.attacker as usize].code[a.w_pc as usize].event_stmt()?;
            let span = prog.stmts[stmt as usize].span;
            cands.iter().position(|c| c.place == Place::After && prog.stmts[c.stmt as usize].span == span)
        })
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}
