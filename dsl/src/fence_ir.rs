//! Fences inserted into the IR directly: the program that inserting them
//! into the source ([`crate::edit::fence_edits`]) and analysing it again
//! would give, without the text. Every statement keeps its id (the fences'
//! own statements are appended), so findings on the fenced program need no
//! mapping back. A test holds both paths to the same instructions and the
//! same behaviour on every example and corpus file.

use crate::edit::{native_fence, x86_fence, FenceInsertion};
use crate::ir::{Instr, Program, StmtForm, StmtId, StmtInfo, StmtRange};
use crate::span::Span;
use crate::{Dialect, FenceKind};
use std::collections::HashMap;

/// One fence to place: after `range` (at its end), as statement `stmt`.
#[derive(Clone, Copy, Debug)]
struct Placement {
    range: StmtRange,
    kind: FenceKind,
    stmt: StmtId,
}

impl Placement {
    fn at(&self) -> u32 {
        self.range.end
    }
}

fn contains(r: &StmtRange, pc: u32) -> bool {
    r.start <= pc && pc < r.end
}

/// `outer` strictly encloses `inner` (ranges are nested or disjoint, and
/// statements without code have no range).
fn encloses(outer: &StmtRange, inner: &StmtRange) -> bool {
    outer != inner && outer.start <= inner.start && inner.end <= outer.end
}

/// The text of a fence statement, as the source edit writes it (without
/// its `;`, like every statement's text).
fn fence_text(dialect: Dialect, kind: FenceKind) -> String {
    match dialect {
        Dialect::Native => native_fence(kind).trim_end_matches(';').to_string(),
        Dialect::HerdX86 => x86_fence(kind).to_string(),
    }
}

/// The kind the fence the text gets lowers to: x86 has no `wr` fence, the
/// edit writes MFENCE (full).
fn written_kind(dialect: Dialect, kind: FenceKind) -> FenceKind {
    match (dialect, kind) {
        (Dialect::HerdX86, FenceKind::WR) => FenceKind::Full,
        _ => kind,
    }
}

/// `prog` with a fence of each insertion's kind right after its statement,
/// as `s; fence; t;` in the text: the statement's own code falls through
/// into the fence, a jump from elsewhere to where it ends goes past it.
///
/// As in the text, one fence per source statement: a statement of a
/// function is fenced in every thread and at every call that inlined it
/// (two insertions naming it keep the first by (statement, kind) order,
/// like the text edit). Statements that are not [`StmtForm::Simple`] or
/// have no code (`r;`) are never fence positions and are skipped.
pub fn insert_fences(prog: &Program, fences: &[FenceInsertion]) -> Program {
    insert_fences_traced(prog, fences).0
}

/// [`insert_fences`], and which fence statements each insertion's statement
/// got (one per thread that runs it; none if it was skipped).
pub fn insert_fences_traced(prog: &Program, fences: &[FenceInsertion]) -> (Program, Vec<(StmtId, StmtId)>) {
    let mut traced = Vec::new();
    let mut fences = fences.to_vec();
    fences.sort();
    fences.dedup_by_key(|f| f.stmt);
    let mut out = prog.clone();
    // Per thread: what goes where.
    let mut placements: Vec<Vec<Placement>> = vec![Vec::new(); prog.threads.len()];
    // Each source statement's ids (a function's statements have one per
    // calling thread), and each id's copies' ranges.
    let mut by_span: HashMap<Span, Vec<StmtId>> = HashMap::new();
    for (id, s) in prog.stmts.iter().enumerate() {
        if s.form == StmtForm::Simple {
            by_span.entry(s.span).or_default().push(id as StmtId);
        }
    }
    let mut copies: HashMap<StmtId, Vec<StmtRange>> = HashMap::new();
    for r in prog.threads.iter().flat_map(|t| &t.stmt_ranges) {
        copies.entry(r.stmt).or_default().push(*r);
    }
    for f in fences {
        let Some(info) = prog.stmts.get(f.stmt as usize) else { continue };
        // The first insertion at a source statement takes it.
        let Some(ids) = by_span.remove(&info.span) else { continue };
        for id in ids {
            let s = &prog.stmts[id as usize];
            let t = s.thread as usize;
            let Some(ranges) = copies.get(&id).filter(|_| t < prog.threads.len()) else { continue };
            let stmt = out.stmts.len() as StmtId;
            traced.push((f.stmt, stmt));
            out.stmts.push(StmtInfo {
                thread: s.thread,
                form: StmtForm::Simple,
                span: Span::new(s.span.end, s.span.end),
                text: fence_text(prog.dialect, f.kind),
                line: s.end_line,
                col: s.end_col,
                end_line: s.end_line,
                end_col: s.end_col,
            });
            let kind = written_kind(prog.dialect, f.kind);
            placements[t].extend(ranges.iter().map(|&range| Placement { range, kind, stmt }));
        }
    }
    for (t, mut ps) in placements.into_iter().enumerate() {
        if ps.is_empty() {
            continue;
        }
        // At one place, the inner statement's fence first (`f() { …; x = 1;
        // fence; } … f(); fence;`).
        ps.sort_by_key(|p| (p.at(), std::cmp::Reverse(p.range.start)));
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
        target + before(target) + here.iter().take_while(|p| !contains(&p.range, from)).count() as u32
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
            Instr::AwaitStart { check, .. } => *check = land(pc, *check),
            Instr::AwaitCheck { start, .. } => *start = land(pc, *start),
            _ => {}
        }
        code.push(ins);
    }
    // Fences after the thread's last statement.
    for p in next {
        code.push(Instr::Fence { kind: p.kind, stmt: p.stmt });
    }
    thread.code = code;
    // The ranges, moved; the fences' own; code order again.
    let mut ranges: Vec<StmtRange> = thread
        .stmt_ranges
        .iter()
        .map(|q| {
            let here = &ps[before(q.end) as usize..upto(q.end) as usize];
            let inner = here.iter().filter(|p| encloses(q, &p.range)).count() as u32;
            StmtRange { stmt: q.stmt, start: q.start + upto(q.start), end: q.end + before(q.end) + inner }
        })
        .collect();
    for (i, p) in ps.iter().enumerate() {
        let at = p.at() + i as u32;
        ranges.push(StmtRange { stmt: p.stmt, start: at, end: at + 1 });
    }
    ranges.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    thread.stmt_ranges = ranges;
}
