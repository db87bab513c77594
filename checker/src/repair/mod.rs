//! Repairs of a program not robust under a model its whole candidates
//! decide (ARM, RISC-V, C11): barriers and stronger accesses at the po
//! edges of its violations' cycles ([`menu`]), each with a cost. The
//! cheapest set is found by re-checking: sets of the menu's changes in
//! order of total cost (then of size), each applied to the IR and its
//! robustness decided again, until one is robust. Nothing is assumed of
//! the model: it alone says, by the re-check, what a change orders.
//!
//! Sets holding a change at every violation's edge are tried first (they
//! are few, and usually hold the answer); the cheapest robust one bounds a
//! second search over every set cheaper than it. The set found is claimed
//! the cheapest (among the menu's changes) only when every cheaper set was
//! re-checked and proved not robust; a cap on the sets tried, or a
//! re-check that did not finish, leaves it unproved.

mod hitting;
pub mod menu;

use crate::certainty::{Answer, Why};
use crate::machine::Model;
use crate::options::Options;
use crate::violation::{Change, Repair, Violation};
use litmus_ir::Program;
use std::collections::{BTreeSet, BinaryHeap};

/// Sets re-checked at most (the empty one, the program itself, is known).
pub const MAX_SETS: usize = 4096;

/// A cheapest set found, and what its re-check earned.
#[derive(Clone, Debug)]
pub struct RepairFix {
    pub repairs: Vec<Repair>,
    /// The repaired program is robust (proved or within bounds); `false`
    /// when no set tried was; unknown when a re-check did not finish.
    pub confirmed: Answer<bool>,
    /// Every cheaper set of the menu's changes was proved not robust.
    pub minimal: bool,
    /// Sets re-checked.
    pub tried: usize,
}

/// `prog` with `set` applied: barriers inserted, accesses relabelled
/// (statement ids kept, so each change is found again in the result).
pub fn apply(prog: &Program, set: &[Repair]) -> Program {
    let mut out = prog.clone();
    for r in set {
        if let Change::Labels { to, .. } = r.change {
            if let Some(th) = out.threads.get_mut(r.thread as usize) {
                for i in th.code.iter_mut() {
                    match i {
                        litmus_ir::Instr::Load { labels, stmt, .. }
                        | litmus_ir::Instr::Store { labels, stmt, .. }
                        | litmus_ir::Instr::Rmw { labels, stmt, .. }
                            if *stmt == r.stmt =>
                        {
                            *labels = to
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    let fences: Vec<litmus_dsl::edit::FenceInsertion> = set
        .iter()
        .filter_map(|r| match r.change {
            Change::Fence { place, kind } => Some(litmus_dsl::edit::FenceInsertion { stmt: r.stmt, kind, place }),
            Change::Labels { .. } => None,
        })
        .collect();
    if fences.is_empty() {
        out
    } else {
        litmus_dsl::fence_ir::insert_fences(&out, &fences)
    }
}

/// The changes the violations' cycles offer at their po edges (the edges
/// that name them, and the others, which the model may keep only in part),
/// each once, in a fixed order.
pub fn pool(prog: &Program, violations: &[Violation], costs: &crate::options::RepairCosts) -> Vec<Repair> {
    let mut all = BTreeSet::new();
    for v in violations {
        let t = v.cycle.first().map_or(0, |s| s.thread);
        all.extend(menu::actions(prog, t, v.store_stmt, v.access_stmt, costs));
        let k = v.cycle.len();
        for (i, step) in v.cycle.iter().enumerate() {
            let next = &v.cycle[(i + 1) % k];
            if step.edge == crate::trace::Edge::Po && next.thread == step.thread {
                all.extend(menu::actions(prog, step.thread, step.stmt, next.stmt, costs));
            }
        }
    }
    let mut out: Vec<Repair> = all.into_iter().collect();
    out.sort_by_key(|r| (r.cost, r.stmt, r.change));
    out
}

/// Two changes that cannot go together: two labels for one access, two
/// barriers at one place (the one written last would be the one kept).
fn clash(a: &Repair, b: &Repair) -> bool {
    a.stmt == b.stmt
        && match (a.change, b.change) {
            (Change::Labels { .. }, Change::Labels { .. }) => true,
            (Change::Fence { place: p, .. }, Change::Fence { place: q, .. }) => p == q,
            _ => false,
        }
}

/// The cheapest set of `pool`'s changes that makes `prog` robust (see the
/// module doc). `groups`: per violation, the changes at its edge. Sets
/// holding a change of every group are tried first, cheapest first: the
/// first robust one bounds the search; then every set cheaper than it is
/// tried, cheapest first, and each must be proved not robust for the
/// found set to be claimed the cheapest. `recheck` decides a program's
/// robustness.
pub fn cheapest(
    prog: &Program,
    pool: &[Repair],
    groups: &[Vec<usize>],
    opts: &Options,
    mut recheck: impl FnMut(&Program) -> Answer<bool>,
) -> RepairFix {
    let cost_of = |set: &[usize]| set.iter().map(|&i| pool[i].cost).sum::<u32>();
    let fix = |set: &[usize], confirmed: Answer<bool>, minimal: bool, tried: usize| RepairFix {
        repairs: set.iter().map(|&i| pool[i]).collect(),
        confirmed,
        minimal,
        tried,
    };
    let mut tried = 0usize;
    // Costs of the sets whose re-check did not finish, and why: no set
    // costing more is proved the cheapest.
    let mut unsure: Vec<(u32, Why)> = Vec::new();
    let mut stopped: Option<Why> = None;
    let mut check = |set: &[usize], tried: &mut usize, unsure: &mut Vec<(u32, Why)>| -> Option<Answer<bool>> {
        if *tried >= MAX_SETS || opts.budget.stopped() {
            return None;
        }
        *tried += 1;
        let chosen: Vec<Repair> = set.iter().map(|&i| pool[i]).collect();
        let a = recheck(&apply(prog, &chosen));
        if let Answer::Unknown(why) = &a {
            unsure.push((cost_of(set), *why));
        }
        Some(a)
    };
    let why_stopped = |tried: usize| Why::stopped(&opts.budget).unwrap_or(Why::Work(tried as u64));
    // 1. Sets touching every violation, cheapest first.
    let hitting = hitting::HittingSets::new(pool, groups, clash);
    let mut seen: std::collections::HashSet<Vec<usize>> = Default::default();
    let mut best: Option<(Vec<usize>, Answer<bool>)> = None;
    for set in hitting {
        let Some(a) = check(&set, &mut tried, &mut unsure) else {
            stopped = Some(why_stopped(tried));
            break;
        };
        seen.insert(set.clone());
        if a.is(&true) {
            best = Some((set, a));
            break;
        }
    }
    // 2. Every set cheaper than that (every set, if none was found),
    // cheapest first: the first robust one is the cheapest of all.
    let bound = best.as_ref().map(|(s, _)| cost_of(s));
    let mut heap: BinaryHeap<std::cmp::Reverse<(u32, usize, Vec<usize>)>> = BinaryHeap::new();
    heap.push(std::cmp::Reverse((0, 0, Vec::new())));
    let mut complete = stopped.is_none();
    while let Some(std::cmp::Reverse((cost, _, set))) = heap.pop() {
        if bound.is_some_and(|b| cost >= b) {
            break;
        }
        if !set.is_empty() && !seen.contains(&set) {
            let Some(a) = check(&set, &mut tried, &mut unsure) else {
                stopped.get_or_insert(why_stopped(tried));
                complete = false;
                break;
            };
            if a.is(&true) {
                let minimal = unsure.iter().all(|(u, _)| *u >= cost);
                return fix(&set, a, minimal, tried);
            }
        }
        let from = set.last().map_or(0, |&l| l + 1);
        for j in from..pool.len() {
            if set.iter().any(|&i| clash(&pool[i], &pool[j])) {
                continue;
            }
            let mut next = set.clone();
            next.push(j);
            heap.push(std::cmp::Reverse((cost + pool[j].cost, next.len(), next)));
        }
    }
    match best {
        Some((set, a)) => {
            let c = cost_of(&set);
            let minimal = complete && unsure.iter().all(|(u, _)| *u >= c);
            fix(&set, a, minimal, tried)
        }
        None => RepairFix {
            repairs: Vec::new(),
            confirmed: match stopped {
                Some(why) => Answer::Unknown(why),
                // A re-check that did not finish: its reason is the answer's.
                None if !unsure.is_empty() => Answer::Unknown(unsure[0].1),
                // Every set tried: none is robust.
                None => Answer::Proved(false),
            },
            minimal: false,
            tried,
        },
    }
}

/// Repair `violations` of `prog` under `model` (decided on candidates).
pub fn repair(prog: &Program, model: Model, violations: &[Violation], opts: &Options) -> RepairFix {
    repair_all(prog, &[model], violations, opts)
}

/// Repair `violations` (of any of `models`, each decided on candidates)
/// so that `prog` is robust under every one of `models`.
pub fn repair_all(prog: &Program, models: &[Model], violations: &[Violation], opts: &Options) -> RepairFix {
    let pool = pool(prog, violations, &opts.repair_costs);
    if pool.is_empty() {
        return RepairFix { repairs: Vec::new(), confirmed: Answer::Unknown(Why::NoRepairs), minimal: false, tried: 0 };
    }
    let groups: Vec<Vec<usize>> = violations
        .iter()
        .map(|v| {
            let t = v.cycle.first().map_or(0, |s| s.thread);
            let at = menu::actions(prog, t, v.store_stmt, v.access_stmt, &opts.repair_costs);
            (0..pool.len()).filter(|&i| at.contains(&pool[i])).collect()
        })
        .collect();
    // Candidates found not SC so far (the violations' own, then each
    // re-check's), per model: one that a changed program still allows,
    // replayed, proves it not robust without a search. A change that keeps
    // every event (a stronger access) keeps them replayable.
    let mut known: Vec<(Model, crate::outcome::Witness)> = violations
        .iter()
        .filter(|v| models.contains(&v.model))
        .map(|v| (v.model, crate::outcome::Witness { events: v.witness.events.clone(), schedule: Vec::new() }))
        .collect();
    cheapest(prog, &pool, &groups, opts, |p| {
        for (m, w) in known.iter().rev() {
            if let Ok(r) = crate::candidates::replay(p, *m, opts, &w.events) {
                if r.allowed && r.cyclic() {
                    return Answer::Proved(false);
                }
            }
        }
        let answers = models
            .iter()
            .map(|&m| {
                let (a, w) = crate::candidates::robust_witness(p, m, opts);
                if let Some(w) = w {
                    known.push((m, w));
                }
                a
            })
            .collect();
        crate::violation::all_robust_answers(answers)
    })
}

/// The cheapest set of the changes at `violations`' edges after which the
/// final condition's outcome (an `exists` holding, a `forall` failing) is
/// reached under none of `models` — the user's goal when the outcome, not
/// robustness, is what must go. Sets are tried cheapest first over the
/// whole pool, each re-explored: the first that never reaches the outcome
/// is the cheapest of them, as [`cheapest`] proves it.
pub fn repair_condition(prog: &Program, models: &[Model], violations: &[Violation], opts: &Options) -> RepairFix {
    let pool = pool(prog, violations, &opts.repair_costs);
    if pool.is_empty() || prog.condition.is_none() {
        return RepairFix { repairs: Vec::new(), confirmed: Answer::Unknown(Why::NoRepairs), minimal: false, tried: 0 };
    }
    cheapest(prog, &pool, &[], opts, |p| {
        crate::violation::all_robust_answers(models.iter().map(|&m| unreachable(p, m, opts)).collect())
    })
}

/// Is the final condition's outcome never reached under `model`?
fn unreachable(prog: &Program, model: Model, opts: &Options) -> Answer<bool> {
    let o = crate::explore::explore(prog, model, opts);
    match o.reaches_outcome(prog) {
        None => Answer::Proved(true),
        Some(true) => Answer::Proved(false),
        Some(false) => o.coverage.answer(true),
    }
}

/// The source edits of a repair ([`litmus_dsl::edit::repair_edits`]).
pub fn edits(repairs: &[Repair]) -> Vec<litmus_dsl::edit::RepairEdit> {
    use litmus_dsl::edit::{FenceInsertion, RepairEdit};
    repairs
        .iter()
        .map(|r| match r.change {
            Change::Fence { place, kind } => RepairEdit::Fence(FenceInsertion { stmt: r.stmt, kind, place }),
            Change::Labels { to, .. } => RepairEdit::Relabel { stmt: r.stmt, to },
        })
        .collect()
}
