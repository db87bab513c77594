//! What can be changed to order a violation's po edge, per architecture
//! (the program's dialect: its instructions are what can be written), and
//! what each change costs. Costs are a default table, cheapest first: a
//! rough rank of what each costs on common cores, not a measurement.
//!
//! - AArch64: `LDAPR` 1, `LDAR` 2, `STLR` 2 (a plain `LDR`/`STR` made
//!   acquire-PC, acquire, release); `DMB ISHLD` 3, `DMB ISHST` 3, `DMB ISH` 5.
//! - RISC-V: `.aq` 1, `.rl` 1, `.aqrl` 2 on an AMO; `fence r,r` 2, `fence
//!   r,w` 2, `fence w,w` 2, `fence r,rw` 3, `fence rw,w` 3, `fence.tso` 3, `fence rw,rw` 4.
//! - C11: a memory order raised on an atomic access (each order's rank:
//!   relaxed 0, acquire and release 1, acq_rel 2, seq_cst 3; the change
//!   costs the difference); `atomic_thread_fence` acquire 2, release 2,
//!   acq_rel 3, seq_cst 4.
//!
//! A native program written with memory orders takes C11's menu, its
//! non-atomic accesses included (`x@release` makes that access atomic).
//! Other programs have no menu here (x86 and the native dialect without
//! orders are repaired with fences by [`crate::fences`]).

use crate::options::RepairCosts;
use crate::violation::{Change, Repair};
use litmus_ir::{Dialect, FenceKind, Instr, Labels, Place, Program, StmtId};

/// A barrier index in [`FenceKind::ARM`].
fn arm(name: &str) -> FenceKind {
    FenceKind::Arm(FenceKind::ARM.iter().position(|&n| n == name).expect("a known barrier") as u8)
}

/// The barriers of a dialect with their costs (the user's over the
/// table's), cheapest first.
fn barriers(d: Dialect, costs: &RepairCosts) -> Vec<(FenceKind, u32)> {
    let mut out = table(d);
    for (kind, cost) in out.iter_mut() {
        *cost = costs.of(&barrier_name(d, *kind), *cost);
    }
    out.sort_by_key(|&(_, c)| c);
    out
}

/// A barrier's name in the cost table (`DMB ISH`, `fence r,rw`, `fence seq_cst`).
pub fn barrier_name(d: Dialect, kind: FenceKind) -> String {
    match (d, kind) {
        (Dialect::HerdC, FenceKind::Order(l)) => format!("fence {}", l.memory_order().unwrap_or("seq_cst")),
        _ => litmus_dsl::edit::barrier_text(d, kind).trim_end_matches(';').to_string(),
    }
}

/// The default table of barriers, cheapest first.
fn table(d: Dialect) -> Vec<(FenceKind, u32)> {
    use FenceKind as F;
    let (r, w) = (F::R, F::W);
    match d {
        Dialect::HerdAArch64 => vec![(arm("DMB.ISHLD"), 3), (arm("DMB.ISHST"), 3), (arm("DMB.ISH"), 5)],
        Dialect::HerdRiscv => vec![
            (F::Sets { pred: r, succ: r }, 2),
            (F::Sets { pred: r, succ: w }, 2),
            (F::Sets { pred: w, succ: w }, 2),
            (F::Sets { pred: r, succ: r | w }, 3),
            (F::Sets { pred: r | w, succ: w }, 3),
            (F::Tso, 3),
            (F::Sets { pred: r | w, succ: r | w }, 4),
        ],
        Dialect::HerdC => vec![
            (F::Order(Labels::MO_ACQ), 2),
            (F::Order(Labels::MO_REL), 2),
            (F::Order(Labels::MO_ACQ_REL), 3),
            (F::Order(Labels::MO_SC), 4),
        ],
        _ => Vec::new(),
    }
}

/// Whose menu a program takes: its dialect's, but C11's for a native
/// program written with memory orders.
fn flavour(prog: &Program) -> Dialect {
    if prog.dialect == Dialect::Native && prog.is_c11() {
        Dialect::HerdC
    } else {
        prog.dialect
    }
}

/// Has this program a menu?
pub fn repairable(prog: &Program) -> bool {
    !table(flavour(prog)).is_empty()
}

/// How an access reads and writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Load,
    Store,
    Update,
}

/// The access statement `s` of thread `t` makes, and its labels. A
/// native statement with several (`let r = x + y;`) has none to change:
/// its text has no one access to relabel.
fn access(prog: &Program, t: u16, s: StmtId) -> Option<(Access, Labels)> {
    let mut all = prog.threads.get(t as usize)?.code.iter().filter_map(|i| match *i {
        Instr::Load { labels, stmt, .. } if stmt == s => Some((Access::Load, labels)),
        Instr::Store { labels, stmt, .. } if stmt == s => Some((Access::Store, labels)),
        Instr::Rmw { labels, stmt, .. } if stmt == s => Some((Access::Update, labels)),
        _ => None,
    });
    let first = all.next();
    if prog.dialect == Dialect::Native && all.next().is_some() {
        return None;
    }
    first
}

/// A C11 memory order's strength: what a stronger one must exceed.
fn strength(l: Labels) -> u32 {
    if l.contains(Labels::MO_SC) {
        3
    } else if l.contains(Labels::MO_ACQ_REL) {
        2
    } else if l.contains(Labels::MO_ACQ) || l.contains(Labels::MO_REL) {
        1
    } else {
        0
    }
}

/// A C11 memory order's rank (what raising it costs): by default its
/// strength, else the user's (`relaxed` and a plain access rank 0).
fn rank(l: Labels, costs: &RepairCosts) -> u32 {
    match l.memory_order() {
        Some(o @ ("acquire" | "release" | "acq_rel" | "seq_cst")) => costs.of(o, strength(l)),
        _ => 0,
    }
}

/// The stronger labels an access may take, with their costs: a form's
/// cost (the user's over the table's) less the current form's, at least 1.
fn stronger(d: Dialect, native: bool, a: Access, l: Labels, costs: &RepairCosts) -> Vec<(Labels, u32)> {
    let step = |to: u32, from: u32| to.saturating_sub(from).max(1);
    match (d, a) {
        (Dialect::HerdAArch64, Access::Load) if l == Labels::NONE => {
            vec![(Labels::Q, step(costs.of("LDAPR", 1), 0)), (Labels::A, step(costs.of("LDAR", 2), 0))]
        }
        (Dialect::HerdAArch64, Access::Load) if l == Labels::Q => {
            vec![(Labels::A, step(costs.of("LDAR", 2), costs.of("LDAPR", 1)))]
        }
        (Dialect::HerdAArch64, Access::Store) if l == Labels::NONE => vec![(Labels::L, step(costs.of("STLR", 2), 0))],
        (Dialect::HerdRiscv, Access::Update) => {
            if l.intersects(Labels::ACQ.union(Labels::REL).union(Labels::ACQ_REL)) {
                return Vec::new();
            }
            vec![
                (l | Labels::ACQ, step(costs.of(".aq", 1), 0)),
                (l | Labels::REL, step(costs.of(".rl", 1), 0)),
                (l | Labels::ACQ_REL, step(costs.of(".aqrl", 2), 0)),
            ]
        }
        (Dialect::HerdC, _) if l.contains(Labels::A) || native && l.contains(Labels::NA) => {
            let base = l.without(Labels::ORDERS.union(Labels::NA)) | Labels::A;
            let targets: &[Labels] = match a {
                Access::Load => &[Labels::MO_ACQ, Labels::MO_SC],
                Access::Store => &[Labels::MO_REL, Labels::MO_SC],
                Access::Update => &[Labels::MO_ACQ, Labels::MO_REL, Labels::MO_ACQ_REL, Labels::MO_SC],
            };
            targets
                .iter()
                .filter(|&&o| strength(o) > strength(l))
                .map(|&o| (base | o, step(rank(o, costs), rank(l, costs))))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The changes that may order thread `t`'s po edge from statement `a` to
/// statement `b`: each barrier between them (right after `a`, or right
/// before `b` where nothing can follow `a`), and each stronger form of
/// either access.
pub fn actions(prog: &Program, t: u16, a: StmtId, b: StmtId, costs: &RepairCosts) -> Vec<Repair> {
    let mut out = barriers_between(prog, t, a, b, costs);
    out.extend(upgrades(prog, t, a, costs));
    out.extend(upgrades(prog, t, b, costs));
    out
}

/// Each barrier of the dialect between statements `a` and `b` of thread
/// `t`: right after `a`, or right before `b` where nothing can follow `a`.
pub fn barriers_between(prog: &Program, t: u16, a: StmtId, b: StmtId, costs: &RepairCosts) -> Vec<Repair> {
    let spot = if prog.fence_place_ok(a, Place::After) {
        Some((a, Place::After))
    } else if prog.fence_place_ok(b, Place::Before) {
        Some((b, Place::Before))
    } else {
        None
    };
    let Some((stmt, place)) = spot else { return Vec::new() };
    barriers(flavour(prog), costs)
        .into_iter()
        .map(|(kind, cost)| Repair { thread: t, stmt, change: Change::Fence { place, kind }, cost })
        .collect()
}

/// Each stronger form of statement `s`'s access (none if it makes none).
pub fn upgrades(prog: &Program, t: u16, s: StmtId, costs: &RepairCosts) -> Vec<Repair> {
    let Some((acc, from)) = access(prog, t, s) else { return Vec::new() };
    stronger(flavour(prog), prog.dialect == Dialect::Native, acc, from, costs)
        .into_iter()
        .map(|(to, cost)| Repair { thread: t, stmt: s, change: Change::Labels { from, to }, cost })
        .collect()
}

/// The statements of thread `t`'s accesses, in program order, each once.
pub fn accesses(prog: &Program, t: u16) -> Vec<StmtId> {
    let mut out: Vec<StmtId> = Vec::new();
    for i in prog.threads.get(t as usize).map_or(&[][..], |th| &th.code[..]) {
        if let Instr::Load { stmt, .. } | Instr::Store { stmt, .. } | Instr::Rmw { stmt, .. } = *i {
            if !out.contains(&stmt) {
                out.push(stmt);
            }
        }
    }
    out
}
