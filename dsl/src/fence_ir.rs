//! Fences inserted into the IR directly: the program that inserting them
//! into the source ([`crate::edit::fence_edits`]) and analysing it again
//! would give, without the text. Every statement keeps its id (the fences'
//! own statements are appended), so findings on the fenced program need no
//! mapping back. A test holds both paths to the same instructions and the
//! same behaviour on every example and corpus file.

use crate::edit::FenceInsertion;
use crate::ir::{Instr, Place, Program, StmtForm, StmtId, StmtInfo, StmtRange};
use crate::span::Span;
use crate::{Dialect, FenceKind};
use std::collections::HashMap;

/// One fence to place at `at`, as statement `stmt`: after `range` (a jump
/// to `at` lands on it from inside the range only), or — no range —
/// before what is at `at` (every jump to `at` lands on it).
#[derive(Clone, Copy, Debug)]
struct Placement {
    at: u32,
    range: Option<StmtRange>,
    kind: FenceKind,
    stmt: StmtId,
}

impl Placement {
    fn at(&self) -> u32 {
        self.at
    }

    /// Does a jump from `from` to where it stands land on it?
    fn catches(&self, from: u32) -> bool {
        self.range.is_none_or(|r| contains(&r, from))
    }

    /// Where it goes among the fences at one place, as in the text: the
    /// fences after statements ending there, inner first; then the ones
    /// before what starts there.
    fn order(&self) -> (u32, u8, std::cmp::Reverse<u32>) {
        match self.range {
            Some(r) => (self.at, 0, std::cmp::Reverse(r.start)),
            None => (self.at, 1, std::cmp::Reverse(0)),
        }
    }
}

fn contains(r: &StmtRange, pc: u32) -> bool {
    r.start <= pc && pc < r.end
}

/// `outer` strictly encloses `inner` (ranges are nested or disjoint, and
/// statements without code have no range).
fn encloses(outer: &StmtRange, inner: &StmtRange) -> bool {
    // (A `for` is both a simple statement and a control one, with one extent.)
    (outer.start, outer.end) != (inner.start, inner.end) && outer.start <= inner.start && inner.end <= outer.end
}

/// The text of a fence statement, as the source edit writes it (without
/// its `;`, like every statement's text).
fn fence_text(dialect: Dialect, kind: FenceKind) -> String {
    crate::edit::barrier_text(dialect, kind).trim_end_matches(';').to_string()
}

/// The kind the fence the text gets lowers to: x86 has no `wr` fence, the
/// edit writes MFENCE (full).
fn written_kind(dialect: Dialect, kind: FenceKind) -> FenceKind {
    match (dialect, kind) {
        (Dialect::HerdX86, FenceKind::WR) => FenceKind::Full,
        (Dialect::HerdRiscv, k) => crate::edit::riscv_kind(k),
        (Dialect::HerdAArch64, k) => crate::edit::arm_kind(k),
        (Dialect::HerdC, FenceKind::Order(l)) => FenceKind::Order(l),
        (Dialect::HerdC, _) => FenceKind::Order(crate::ir::Labels::MO_SC),
        _ => kind,
    }
}

/// `prog` with a fence of each insertion's kind at its place, as the text
/// edit ([`crate::edit::fence_edits`]) writes it: after a statement (`s;
/// fence; t;`: the statement's own code falls through into the fence, a
/// jump from elsewhere to where it ends goes past it), before one (`fence;
/// s;`: everything that comes to it passes the fence), or at a loop's head
/// (`fence; while (c) { …; fence; }`: before the loop, and at the end of
/// its body for the jumps from inside it).
///
/// As in the text, one fence per source statement and place: a statement
/// of a function is fenced in every thread and at every call that inlined
/// it (two insertions naming it keep the first by (statement, kind) order,
/// like the text edit). Places a statement cannot take
/// ([`Program::fence_place_ok`]) are skipped.
pub fn insert_fences(prog: &Program, fences: &[FenceInsertion]) -> Program {
    insert_fences_traced(prog, fences).0
}

/// The statements one fence at `place` goes with, by source statement: a
/// function's statements have one id per calling thread, and a fence
/// inserted at any of them goes at all ([`insert_fences`]); only ids that
/// can take the place ([`Program::fence_place_ok`]), in id order.
pub fn fence_groups(prog: &Program, place: Place) -> HashMap<Span, Vec<StmtId>> {
    let mut groups: HashMap<Span, Vec<StmtId>> = HashMap::new();
    let places = prog.fence_places();
    for (id, s) in prog.stmts.iter().enumerate() {
        if places.ok(id as StmtId, place) {
            groups.entry(s.span).or_default().push(id as StmtId);
        }
    }
    groups
}

/// [`insert_fences`], and which fence statements each insertion's statement
/// and place got (one per thread that runs it, two at a loop's head; none
/// if it was skipped).
pub fn insert_fences_traced(prog: &Program, fences: &[FenceInsertion]) -> (Program, Vec<(StmtId, Place, StmtId)>) {
    let mut traced = Vec::new();
    let mut fences = fences.to_vec();
    fences.sort_by_key(|f| (f.stmt, f.place, f.kind));
    fences.dedup_by_key(|f| (f.stmt, f.place));
    let mut out = prog.clone();
    // Per thread: what goes where.
    let mut placements: Vec<Vec<Placement>> = vec![Vec::new(); prog.threads.len()];
    // Each source statement's ids per place, and each id's copies' ranges.
    let mut by_span: HashMap<(Span, Place), Vec<StmtId>> = HashMap::new();
    for place in [Place::After, Place::Before, Place::LoopHead] {
        by_span.extend(fence_groups(prog, place).into_iter().map(|(span, ids)| ((span, place), ids)));
    }
    let mut copies: HashMap<StmtId, Vec<StmtRange>> = HashMap::new();
    for r in prog.threads.iter().flat_map(|t| t.stmt_ranges.iter().chain(&t.control_ranges)) {
        copies.entry(r.stmt).or_default().push(*r);
    }
    for f in fences {
        let Some(info) = prog.stmts.get(f.stmt as usize) else { continue };
        // The first insertion at a source statement and place takes it.
        let Some(ids) = by_span.remove(&(info.span, f.place)) else { continue };
        for id in ids {
            let s = &prog.stmts[id as usize];
            let t = s.thread as usize;
            if t >= prog.threads.len() {
                continue;
            }
            // The fence's own statement: an empty span where the text puts
            // it (a loop head's two: before the loop, before its body's `}`).
            let mut own = |at: usize, line: u32, col: u32| {
                let stmt = out.stmts.len() as StmtId;
                traced.push((f.stmt, f.place, stmt));
                out.stmts.push(StmtInfo {
                    thread: s.thread,
                    form: StmtForm::Simple,
                    span: Span::new(at, at),
                    extent: Span::new(at, at),
                    text: fence_text(prog.dialect, f.kind),
                    line,
                    col,
                    end_line: line,
                    end_col: col,
                });
                stmt
            };
            let stmt = match f.place {
                Place::After => own(s.extent.end, s.end_line, s.end_col),
                Place::Before | Place::LoopHead => own(s.extent.start, s.line, s.col),
            };
            let last = if f.place == Place::LoopHead { own(s.extent.end, s.end_line, s.end_col) } else { stmt };
            let kind = written_kind(prog.dialect, f.kind);
            let ranges = copies.get(&id).map(Vec::as_slice).unwrap_or(&[]);
            let th = &prog.threads[t];
            match f.place {
                Place::After => placements[t].extend(ranges.iter().map(|&range| Placement {
                    at: range.end,
                    range: Some(range),
                    kind,
                    stmt,
                })),
                Place::Before => placements[t].extend(ranges.iter().map(|&range| Placement {
                    at: range.start,
                    range: None,
                    kind,
                    stmt,
                })),
                Place::LoopHead => {
                    // Before the loop, and last in its body (the jumps from
                    // inside the loop to its back jump land on it).
                    for h in th.loop_heads.iter().filter(|h| h.stmt == id) {
                        let Some(whole) = ranges.iter().find(|r| r.start < h.head && h.back < r.end) else {
                            continue;
                        };
                        placements[t].push(Placement { at: whole.start, range: None, kind, stmt });
                        let body = StmtRange { stmt: id, start: h.head, end: h.back };
                        placements[t].push(Placement { at: h.back, range: Some(body), kind, stmt: last });
                    }
                }
            }
        }
    }
    for (t, mut ps) in placements.into_iter().enumerate() {
        if ps.is_empty() {
            continue;
        }
        // At one place, the inner statement's fence first (`f() { …; x = 1;
        // fence; } … f(); fence;`), then those before what starts there.
        ps.sort_by_key(|p| p.order());
        place(&mut out.threads[t], &ps);
    }
    (out, traced)
}

/// Rebuild one thread's code with the fences placed (sorted by place).
fn place(thread: &mut crate::ir::Thread, ps: &[Placement]) {
    let before = |pc: u32| ps.partition_point(|p| p.at() < pc) as u32;
    let upto = |pc: u32| ps.partition_point(|p| p.at() <= pc) as u32;
    // Where a jump from `from` to old `target` lands: past the fences of
    // statements it is not inside (they precede, inner first, those it is
    // inside: a prefix), onto the first fence of one it is inside.
    let land = |from: u32, target: u32| {
        let here = &ps[before(target) as usize..upto(target) as usize];
        target + before(target) + here.iter().take_while(|p| !p.catches(from)).count() as u32
    };
    let old = std::mem::take(&mut thread.code);
    let mut code = Vec::with_capacity(old.len() + ps.len());
    let mut next = ps.iter().peekable();
    for (pc, ins) in old.iter().enumerate() {
        let pc = pc as u32;
        while let Some(p) = next.next_if(|p| p.at() == pc) {
            code.push(Instr::Fence { kind: p.kind, stmt: p.stmt });
        }
        let mut ins = *ins;
        match &mut ins {
            Instr::Jump { target } | Instr::Branch { target, .. } => *target = land(pc, *target),
            // An await's own ends: the instructions themselves, never a
            // fence before the await.
            Instr::AwaitStart { check, .. } => *check += upto(*check),
            Instr::AwaitCheck { start, .. } => *start += upto(*start),
            _ => {}
        }
        code.push(ins);
    }
    // Fences after the thread's last statement.
    for p in next {
        code.push(Instr::Fence { kind: p.kind, stmt: p.stmt });
    }
    thread.code = code;
    // The ranges, moved (a statement ends before the fences after it or
    // before what follows it, past those after statements inside it); the
    // fences' own; code order again.
    let moved = |q: &StmtRange| {
        let here = &ps[before(q.end) as usize..upto(q.end) as usize];
        let inner = here.iter().filter(|p| p.range.is_some_and(|r| encloses(q, &r))).count() as u32;
        StmtRange { stmt: q.stmt, start: q.start + upto(q.start), end: q.end + before(q.end) + inner }
    };
    thread.control_ranges = thread.control_ranges.iter().map(moved).collect();
    for h in thread.loop_heads.iter_mut() {
        h.head += upto(h.head);
        h.back += upto(h.back);
    }
    let mut ranges: Vec<StmtRange> = thread.stmt_ranges.iter().map(moved).collect();
    for (i, p) in ps.iter().enumerate() {
        let at = p.at() + i as u32;
        ranges.push(StmtRange { stmt: p.stmt, start: at, end: at + 1 });
    }
    ranges.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    thread.stmt_ranges = ranges;
}
