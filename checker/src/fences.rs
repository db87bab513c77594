//! The fewest fences that make a program robust, and the re-checks that
//! confirm them. A re-check is a check like any other: it is *proved*,
//! *within bounds* or *unknown*, and only a re-check that finished may
//! confirm fences — or count a fence as removing a violation.

use crate::certainty::{Answer, Why};
use crate::collect::Collector;
use crate::machine::Model;
use crate::outcome::Options;
use crate::robust::{all_robust, FencePoint, MonitorKind, Robustness, Violation};
use litmus_dsl::edit::FenceInsertion;
use litmus_dsl::ir::{StmtForm, StmtId};
use litmus_dsl::{FenceKind, Program};
use std::collections::HashMap;

/// Fences chosen for a program, and what their re-check earned.
#[derive(Clone, Debug)]
pub struct FenceFix {
    pub fences: Vec<FencePoint>,
    /// The fenced program is robust under every model: `true` proved or
    /// within bounds; `false` when a (witnessed) violation remains;
    /// unknown when the re-check did not finish.
    pub confirmed: Answer<bool>,
    /// The set is a minimum one (the hitting-set search was exhaustive).
    pub minimal: bool,
}

/// A smallest set of positions hitting every violation's candidates, and
/// whether the search for it was exhaustive (if its budget ran out, the set
/// is a greedy one: it hits every set but may not be the smallest).
pub fn min_hitting_set(sets: &[Vec<StmtId>]) -> (Vec<StmtId>, bool) {
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
    let exhaustive = budget > 0;
    let set = best.unwrap_or_else(|| {
        // Budget exhausted before any cover: greedy.
        let mut chosen: Vec<StmtId> = Vec::new();
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
fn fences_at(prog: &Program, chosen: &[StmtId], constraints: &[Vec<(StmtId, FenceKind)>]) -> Vec<FencePoint> {
    let mut fences: Vec<FencePoint> = chosen
        .iter()
        .map(|&stmt| FencePoint {
            thread: prog.stmts[stmt as usize].thread,
            stmt,
            kind: combine(constraints.iter().filter_map(|c| c.iter().find(|x| x.0 == stmt)).map(|c| c.1)),
        })
        .collect();
    fences.sort();
    fences
}

/// Fences for constraints (each violation's candidate positions): a minimum
/// hitting set, and whether it is proved minimum.
fn hitting_fences(prog: &Program, constraints: &[Vec<(StmtId, FenceKind)>]) -> (Vec<FencePoint>, bool) {
    let sets: Vec<Vec<StmtId>> = constraints.iter().map(|c| c.iter().map(|x| x.0).collect()).collect();
    let (set, minimal) = min_hitting_set(&sets);
    (fences_at(prog, &set, constraints), minimal)
}

/// Fences from the violations' own cycles, not re-checked (without the
/// source there is nothing to re-check): their confirmation stays pending.
pub fn unchecked_fences(prog: &Program, violations: &mut [Violation], robust: Answer<bool>) -> FenceFix {
    if violations.is_empty() {
        return FenceFix { fences: Vec::new(), confirmed: robust, minimal: true };
    }
    unchecked(prog, violations, Why::Pending)
}

/// The cycle-based choice, unconfirmed for this reason.
fn unchecked(prog: &Program, violations: &mut [Violation], why: Why) -> FenceFix {
    let constraints: Vec<Vec<(StmtId, FenceKind)>> = violations.iter().map(|v| v.candidates.clone()).collect();
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

/// The robustness of the program with `at` inserted, under each relaxed
/// model, and its statements mapped back to the original's.
struct Recheck {
    robustness: Vec<Robustness>,
    back: HashMap<StmtId, StmtId>,
}

impl Recheck {
    fn run(
        src: &str,
        prog: &Program,
        at: &[FencePoint],
        models: &[Model],
        monitor: MonitorKind,
        opts: &Options,
    ) -> Result<Recheck, Why> {
        // Stopped: not even the fenced text is analysed (on a big file that
        // alone, once per candidate position, would outlast the deadline).
        if let Some(why) = opts.why_stopped() {
            return Err(why);
        }
        let fenced_src = litmus_dsl::edit::apply(src, &litmus_dsl::edit::fence_edits(src, prog, &insertions(at)));
        let fenced = litmus_dsl::analyze(&fenced_src).program.ok_or(Why::Unchecked)?;
        let relaxed: Vec<Model> = models.iter().copied().filter(|m| *m != Model::Sc).collect();
        let mut c = Collector::new(&fenced, &relaxed, monitor, opts);
        let sc = c.run(opts);
        Ok(Recheck { robustness: c.finish(sc.coverage), back: map_back(prog, &fenced, at) })
    }

    fn robust(&self) -> Answer<bool> {
        all_robust(&self.robustness)
    }

    /// Every re-check finished (proved or within bounds), so what it did not
    /// find is known not to be there.
    fn finished(&self) -> bool {
        self.robustness.iter().all(|r| r.coverage.finished())
    }

    /// The statement pairs (of the original) signalled after fencing,
    /// witnessed or not; a pair that does not map back is a new one.
    fn remaining(&self) -> Vec<(Model, StmtId, StmtId)> {
        let map = |s: StmtId| *self.back.get(&s).unwrap_or(&StmtId::MAX);
        self.robustness
            .iter()
            .flat_map(|r| {
                let pairs = r.violations.iter().map(|v| v.key()).chain(r.unconfirmed.iter().copied());
                pairs.map(move |(s, a)| (r.model, map(s), map(a)))
            })
            .collect()
    }
}

/// Choose fences by the violations' own cycles and re-check the fenced
/// source under every model until it is robust (a few rounds: a fence can
/// expose what the first set missed).
fn confirm_fences(
    src: &str,
    prog: &Program,
    models: &[Model],
    monitor: MonitorKind,
    violations: &mut [Violation],
    opts: &Options,
) -> FenceFix {
    let mut constraints: Vec<Vec<(StmtId, FenceKind)>> = violations.iter().map(|v| v.candidates.clone()).collect();
    let (mut fences, mut minimal) = hitting_fences(prog, &constraints);
    let mut confirmed = Answer::Unknown(Why::Pending);
    for _round in 0..4 {
        let re = match Recheck::run(src, prog, &fences, models, monitor, opts) {
            Ok(re) => re,
            Err(why) => {
                confirmed = Answer::Unknown(why);
                break;
            }
        };
        confirmed = re.robust();
        if !confirmed.is(&false) {
            // Robust (proved or within bounds), or the re-check did not finish.
            break;
        }
        let mut progressed = false;
        for r in &re.robustness {
            for v in &r.violations {
                let set: Vec<(StmtId, FenceKind)> =
                    v.candidates.iter().filter_map(|&(s, k)| re.back.get(&s).map(|&o| (o, k))).collect();
                if !set.is_empty() && !constraints.contains(&set) {
                    constraints.push(set);
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

/// Is `f` among violation `i`'s candidate positions?
fn candidate(constraints: &[Vec<(StmtId, FenceKind)>], i: usize, f: &FencePoint) -> bool {
    constraints.get(i).is_some_and(|c| c.iter().any(|x| x.0 == f.stmt))
}

/// Fences that make the program robust under all the given models at once,
/// with the program's robustness before fencing.
pub fn joint_fences(
    src: &str,
    prog: &Program,
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
) -> (Answer<bool>, FenceFix) {
    let relaxed: Vec<Model> = models.iter().copied().filter(|m| *m != Model::Sc).collect();
    let mut c = Collector::new(prog, &relaxed, monitor, opts);
    let sc = c.run(opts);
    let before = c.finish(sc.coverage);
    let mut all: Vec<Violation> = before.iter().flat_map(|r| r.violations.iter().cloned()).collect();
    let robust = all_robust(&before);
    (robust.clone(), minimal_fences(src, prog, models, monitor, &mut all, robust, opts))
}

/// Statements of the program that store (where a fence can matter: a fence
/// later in the same straight-line stretch orders less).
pub fn store_stmts(prog: &Program) -> Vec<StmtId> {
    stmts_where(prog, |i| matches!(i, litmus_dsl::ir::Instr::Store { .. }))
}

/// Where a fence can matter under these models: after a store; under PSLO
/// (which reorders loads) after a load or an atomic too.
pub fn fence_positions(prog: &Program, models: &[Model]) -> Vec<StmtId> {
    use litmus_dsl::ir::Instr;
    let loads = models.contains(&Model::Pslo);
    stmts_where(prog, |i| match i {
        Instr::Store { .. } => true,
        Instr::Load { .. } | Instr::Rmw { .. } => loads,
        _ => false,
    })
}

fn stmts_where(prog: &Program, pick: impl Fn(&litmus_dsl::ir::Instr) -> bool) -> Vec<StmtId> {
    use litmus_dsl::ir::Instr;
    let mut v: Vec<StmtId> = prog
        .threads
        .iter()
        .flat_map(|t| t.code.iter())
        .filter(|i| pick(i))
        .filter_map(|i| match *i {
            Instr::Store { stmt, .. } | Instr::Load { stmt, .. } | Instr::Rmw { stmt, .. } => Some(stmt),
            _ => None,
        })
        .filter(|&s| prog.stmts[s as usize].form == StmtForm::Simple)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// For each violation, the positions (of `positions`) after which a full
/// fence alone removes it — as far as re-checks that finished show: a
/// re-check that stopped (deadline, cancel) shows nothing.
pub fn kills_of(
    src: &str,
    prog: &Program,
    positions: &[StmtId],
    violations: &[Violation],
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
) -> Vec<Vec<StmtId>> {
    let full = |stmt: StmtId| FencePoint { thread: prog.stmts[stmt as usize].thread, stmt, kind: FenceKind::Full };
    let keys: Vec<(Model, StmtId, StmtId)> =
        violations.iter().map(|v| (v.model, v.store_stmt, v.access_stmt)).collect();
    let mut kills: Vec<Vec<StmtId>> = vec![Vec::new(); violations.len()];
    for &p in positions {
        let re = match Recheck::run(src, prog, &[full(p)], models, monitor, opts) {
            Ok(re) => re,
            // Stopped: nothing more can be measured.
            Err(Why::Timeout | Why::Cancelled) => break,
            Err(_) => continue,
        };
        if !re.finished() {
            continue;
        }
        let left = re.remaining();
        for (i, k) in keys.iter().enumerate() {
            if !left.contains(k) {
                kills[i].push(p);
            }
        }
    }
    kills
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
    src: &str,
    prog: &Program,
    models: &[Model],
    monitor: MonitorKind,
    violations: &mut [Violation],
    robust: Answer<bool>,
    opts: &Options,
) -> FenceFix {
    if violations.is_empty() {
        return FenceFix { fences: Vec::new(), confirmed: robust, minimal: true };
    }
    if let Some(why) = opts.why_stopped() {
        return unchecked(prog, violations, why);
    }
    let mut positions = fence_positions(prog, models);
    for v in violations.iter() {
        positions.extend(v.candidates.iter().map(|c| c.0));
    }
    positions.sort();
    positions.dedup();
    let kills = kills_of(src, prog, &positions, violations, models, monitor, opts);
    if kills.iter().any(|k| k.is_empty()) {
        return confirm_fences(src, prog, models, monitor, violations, opts);
    }
    let full = |stmt: StmtId| FencePoint { thread: prog.stmts[stmt as usize].thread, stmt, kind: FenceKind::Full };
    let (chosen, minimal) = min_hitting_set(&kills);
    let mut fences: Vec<FencePoint> = chosen.iter().map(|&s| full(s)).collect();
    fences.sort();
    let confirmed = match Recheck::run(src, prog, &fences, models, monitor, opts) {
        Ok(re) => re.robust(),
        Err(why) => Answer::Unknown(why),
    };
    if !confirmed.is(&true) {
        return confirm_fences(src, prog, models, monitor, violations, opts);
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
                .filter(|(_, k)| k.contains(&f.stmt))
                .map(|(v, _)| combine(v.candidates.iter().map(|c| c.1))),
        );
    }
    let weakened = Recheck::run(src, prog, &fences, models, monitor, opts).map(|re| re.robust());
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
    assign(violations, &fences, |i, f| kills[i].contains(&f.stmt));
    FenceFix { fences, confirmed, minimal }
}
