//! The fewest fences that stop every attack, proved sufficient by the
//! attack search itself (Trencher's fence insertion, ESOP'13 §6, with
//! fences wherever a statement boundary is).
//!
//! An attack `(t, w_A, r_A)` needs thread `t` to run from its delayed store
//! to its attack access without draining: a fence stops it exactly when
//! every such run passes the fence. A fence in another thread changes
//! nothing (the others run SC), nor one `t` runs before `w_A` or after
//! `r_A` (its buffer is empty then, or it has stopped). So the threads are
//! independent, and for each the candidates are the places whose fence lies
//! on a path from `w_A` to `r_A` of some attack of it (what cannot stop an
//! attack need not be tried). Sets of candidates are tried by increasing
//! size, each one hitting every attack's paths, and each re-checked by the
//! attack search on the fenced program (this thread attacking): the first
//! set after which no attack succeeds is a smallest one. A fence right after
//! each attack's delayed store always works, and bounds the search.
//!
//! Places are those of [`Program::fence_place_ok`]: after a statement,
//! before one (a load, an `if`, a loop), at a loop's head (before the loop
//! and last in its body, so each evaluation of the condition follows a
//! fence: one place, two `fence;` in the text).

use super::feasible_attacks;
use super::flow::{successors, Bits};
use crate::certainty::{Answer, Why};
use crate::machine::Model;
use crate::model::Access;
use crate::options::Options;
use crate::options::StateLimits;
use crate::violation::AttackId;
use crate::violation::FenceFix;
use crate::violation::{FencePoint, Violation};
use litmus_dsl::edit::FenceInsertion;
use litmus_dsl::ir::{Instr, Place, Program, StmtId, StmtRange};
use litmus_dsl::FenceKind;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A place a fence can go in one thread, and the pcs its fence runs at.
#[derive(Clone, Debug)]
struct Candidate {
    stmt: StmtId,
    place: Place,
    /// Where its fences stand (before the instruction at each pc).
    pcs: Vec<u32>,
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

/// Every place of thread `t` a fence can take, with its pcs.
fn candidates(prog: &Program, t: usize) -> Vec<Candidate> {
    let th = &prog.threads[t];
    let mut ranges: BTreeMap<StmtId, Vec<StmtRange>> = BTreeMap::new();
    for r in th.stmt_ranges.iter().chain(&th.control_ranges) {
        ranges.entry(r.stmt).or_default().push(*r);
    }
    let mut out = Vec::new();
    for (&stmt, rs) in &ranges {
        for place in [Place::After, Place::Before, Place::LoopHead] {
            if !prog.fence_place_ok(stmt, place) {
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
            if !pcs.is_empty() {
                out.push(Candidate { stmt, place, pcs });
            }
        }
    }
    out
}

fn point(prog: &Program, c: &Candidate, kind: FenceKind) -> FencePoint {
    FencePoint { thread: prog.stmts[c.stmt as usize].thread, stmt: c.stmt, kind, place: c.place }
}

/// The code of thread `t` with full fences at `set`, statements cleared:
/// two places that give the same code are one candidate.
fn signature(prog: &Program, t: usize, set: &[&Candidate]) -> Vec<Instr> {
    let ins: Vec<FenceInsertion> =
        set.iter().map(|c| FenceInsertion { stmt: c.stmt, kind: FenceKind::Full, place: c.place }).collect();
    let fenced = litmus_dsl::fence_ir::insert_fences(prog, &ins);
    fenced.threads[t]
        .code
        .iter()
        .map(|i| match *i {
            Instr::Fence { kind, .. } => Instr::Fence { kind, stmt: 0 },
            other => other,
        })
        .collect()
}

/// A re-check: the thread attacking (all: `None`) and the fenced places.
type Recheck = (Option<u16>, Vec<(StmtId, Place)>);

/// The search's shared state: the program, the models, what re-checks cost.
struct Search<'a> {
    prog: &'a Program,
    models: &'a [Model],
    opts: &'a Options,
    limits: &'a StateLimits,
    /// Re-checks run (the budget), and their answers by (thread, fence set).
    rechecks: usize,
    cache: HashMap<Recheck, Result<bool, Why>>,
}

/// Re-checks one thread's search may run before it settles for a set that
/// is not proved smallest.
const RECHECKS: usize = 4_000;

impl Search<'_> {
    /// Does no attack (of `only`, or any thread) succeed with full fences at `set`?
    fn stops_all(&mut self, only: Option<u16>, set: &[FencePoint]) -> Result<bool, Why> {
        let mut key: Vec<(StmtId, Place)> = set.iter().map(|f| (f.stmt, f.place)).collect();
        key.sort();
        if let Some(r) = self.cache.get(&(only, key.clone())) {
            return *r;
        }
        if let Some(why) = crate::certainty::Why::stopped(&self.opts.budget) {
            return Err(why);
        }
        self.rechecks += 1;
        let fenced = litmus_dsl::fence_ir::insert_fences(self.prog, &crate::violation::insertions(set));
        let r = match feasible_attacks(&fenced, self.models, only, self.opts, self.limits) {
            Ok(attacks) => Ok(attacks.is_empty()),
            Err(super::Stop::Stopped(w)) => Err(w),
            Err(_) => Err(Why::Timeout),
        };
        self.cache.insert((only, key), r);
        r
    }

    /// A smallest set of places of thread `t` stopping its attacks, and
    /// whether it is proved smallest (the search was exhaustive).
    fn thread(&mut self, t: u16, attacks: &[AttackId]) -> Result<(Vec<Candidate>, bool), Why> {
        let prog = self.prog;
        let code = &prog.threads[t as usize].code;
        let regions: Vec<Bits> = attacks.iter().map(|a| region(code, a.w_pc, a.r_pc)).collect();
        // Candidates on some attack's paths, one per distinct fenced code
        // (after a statement rather than before the next, if both do).
        let mut seen: HashMap<Vec<Instr>, ()> = HashMap::new();
        let mut cands: Vec<(Candidate, Vec<usize>)> = Vec::new();
        for c in candidates(prog, t as usize) {
            let hits: Vec<usize> =
                (0..attacks.len()).filter(|&i| c.pcs.iter().any(|&pc| regions[i].has(pc as usize))).collect();
            if hits.is_empty() || seen.insert(signature(prog, t as usize, &[&c]), ()).is_some() {
                continue;
            }
            cands.push((c, hits));
        }
        // The bound: a fence right after each distinct delayed store.
        let stores: BTreeSet<u32> = attacks.iter().map(|a| a.w_pc).collect();
        let upper: Vec<Candidate> = stores
            .iter()
            .filter_map(|&w| {
                let stmt = code[w as usize].event_stmt()?;
                let c = candidates(prog, t as usize).into_iter().find(|c| c.stmt == stmt && c.place == Place::After)?;
                Some(c)
            })
            .collect();
        let full =
            |set: &[&Candidate]| -> Vec<FencePoint> { set.iter().map(|c| point(prog, c, FenceKind::Full)).collect() };
        for k in 1..upper.len().max(1) {
            let mut sets: BTreeSet<Vec<usize>> = BTreeSet::new();
            hitting(&cands, attacks.len(), k, &mut Vec::new(), &mut sets);
            for set in sets {
                if self.rechecks > RECHECKS {
                    return self.settle(t, &upper, false);
                }
                let chosen: Vec<&Candidate> = set.iter().map(|&i| &cands[i].0).collect();
                if self.stops_all(Some(t), &full(&chosen))? {
                    return Ok((chosen.into_iter().cloned().collect(), true));
                }
            }
        }
        self.settle(t, &upper, true)
    }

    /// The fences after the delayed stores, re-checked.
    fn settle(&mut self, t: u16, upper: &[Candidate], minimal: bool) -> Result<(Vec<Candidate>, bool), Why> {
        let set: Vec<FencePoint> = upper.iter().map(|c| point(self.prog, c, FenceKind::Full)).collect();
        match self.stops_all(Some(t), &set)? {
            true => Ok((upper.to_vec(), minimal)),
            // Cannot happen (a fence right after the store drains it).
            false => Err(Why::Unconfirmed(1)),
        }
    }
}

/// Sets of `k` candidates (indices) that together hit every attack: the
/// least-hit attack first, each of its candidates in turn.
fn hitting(
    cands: &[(Candidate, Vec<usize>)],
    attacks: usize,
    k: usize,
    chosen: &mut Vec<usize>,
    out: &mut BTreeSet<Vec<usize>>,
) {
    if out.len() > 20_000 {
        return;
    }
    let hit = |a: usize| chosen.iter().any(|&c| cands[c].1.contains(&a));
    let open: Vec<usize> = (0..attacks).filter(|&a| !hit(a)).collect();
    let Some(&a) = open.iter().min_by_key(|&&a| cands.iter().filter(|c| c.1.contains(&a)).count()) else {
        let mut s = chosen.clone();
        s.sort();
        out.insert(s);
        return;
    };
    if chosen.len() == k {
        return;
    }
    for (i, c) in cands.iter().enumerate() {
        if c.1.contains(&a) && !chosen.contains(&i) {
            chosen.push(i);
            hitting(cands, attacks, k, chosen, out);
            chosen.pop();
        }
    }
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
/// `prog`), proved by re-checking, and a smallest such set where the search
/// was exhaustive. Each violation learns the fence that stops it.
pub fn minimal_fences(
    prog: &Program,
    models: &[Model],
    attacks: &[AttackId],
    violations: &mut [Violation],
    opts: &Options,
    limits: &StateLimits,
) -> FenceFix {
    let attacks: Vec<AttackId> = attacks.iter().filter(|a| models.contains(&a.model)).copied().collect();
    if attacks.is_empty() {
        return FenceFix { fences: Vec::new(), confirmed: Answer::Proved(true), minimal: true };
    }
    let mut s = Search { prog, models, opts, limits, rechecks: 0, cache: HashMap::new() };
    let mut by_thread: BTreeMap<u16, Vec<AttackId>> = BTreeMap::new();
    for a in &attacks {
        by_thread.entry(a.attacker).or_default().push(*a);
    }
    let mut chosen: Vec<(Candidate, Vec<AttackId>)> = Vec::new();
    let mut minimal = true;
    for (&t, ats) in &by_thread {
        let (set, proved_min) = match s.thread(t, ats) {
            Ok(r) => r,
            Err(why) => return FenceFix { fences: Vec::new(), confirmed: Answer::Unknown(why), minimal: false },
        };
        minimal &= proved_min;
        let code = &prog.threads[t as usize].code;
        for c in set {
            // The attacks whose paths this fence is on: what its kind must stop.
            let on: Vec<AttackId> = ats
                .iter()
                .filter(|a| {
                    let r = region(code, a.w_pc, a.r_pc);
                    c.pcs.iter().any(|&pc| r.has(pc as usize))
                })
                .copied()
                .collect();
            chosen.push((c, on));
        }
    }
    let mut fences: Vec<FencePoint> =
        chosen.iter().map(|(c, on)| point(prog, c, kind_for(prog, &on.iter().collect::<Vec<_>>()))).collect();
    // The whole set, as weak as chosen, against every attack of every model.
    let mut confirmed = match s.stops_all(None, &fences) {
        Ok(true) => Answer::Proved(true),
        Ok(false) => Answer::Proved(false),
        Err(why) => Answer::Unknown(why),
    };
    if confirmed == Answer::Proved(false) {
        // A weakened fence let an attack through: full strength (`wr`).
        for f in fences.iter_mut() {
            f.kind = FenceKind::WR;
        }
        confirmed = match s.stops_all(None, &fences) {
            Ok(b) => Answer::Proved(b),
            Err(why) => Answer::Unknown(why),
        };
    }
    fences.sort();
    for v in violations.iter_mut() {
        let Some(a) = v.attack else { continue };
        let code = &prog.threads[a.attacker as usize].code;
        let r = region(code, a.w_pc, a.r_pc);
        v.fence = chosen
            .iter()
            .filter(|(c, _)| {
                prog.stmts[c.stmt as usize].thread == a.attacker && c.pcs.iter().any(|&pc| r.has(pc as usize))
            })
            .filter_map(|(c, _)| fences.iter().find(|f| f.stmt == c.stmt && f.place == c.place).copied())
            .take(1)
            .collect();
    }
    FenceFix { fences, confirmed, minimal }
}
