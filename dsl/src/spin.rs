//! Spin-loop reduction, an IR pass run by lowering on each `while` just
//! emitted (as Nidhugg and GenMC treat side-effect-free spins: await/assume).
//!
//! A loop whose iterations only read and compute registers, each from its own
//! reads, has executions that differ only in how many failed iterations come
//! before the last one; a failed iteration changes nothing another thread or
//! a later iteration can see, so dropping it leaves an equivalent execution.
//! Such a loop is lowered so that only its final iteration is explored:
//!
//! ```text
//!   cond                      ; with the values before the loop
//!   Branch !c -> end
//!   AwaitStart                ; one iteration, then the condition again,
//!   body; cond; n = !c        ; as an `await` that passes when it is false
//!   AwaitCheck n              ; fails: the thread is stuck, as an await's
//! end:
//! ```
//!
//! An attempt that would loop again makes the thread stuck (the execution
//! where the attempt comes later is explored separately), and a spin that
//! can never exit on the final memory is a deadlock, not a cut by the loop
//! bound. Final states and failures are those of the unreduced loop under
//! any loop bound ≥ 1 (checked by the reference explorer on the examples).

use crate::ir::{Addr, BinOp, Instr, Operand, Reg, RegInfo, RegKind, StmtId, UnOp};

/// Where a `while` lies in its thread's code: `LoopEnter` at `enter`, the
/// condition's code up to the exit branch at `exit` (its operand `cond`),
/// `LoopIter` at `exit + 1`, the body, the back jump at `back`; the loop
/// exits to `back + 1`. Recorded by lowering; `stmt` is the header's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LoopShape {
    pub(crate) enter: usize,
    pub(crate) exit: usize,
    pub(crate) back: usize,
    pub(crate) cond: Operand,
    pub(crate) stmt: StmtId,
}

/// Work bound of the liveness analysis (instructions × register words):
/// past it the thread's loops stay loops (correct, only slower to explore).
const MAX_WORK: usize = 4_000_000;

/// Reduce every spin among `loops` (of one thread's finished code); the
/// negated condition needs a register, added to `regs` if any is reduced.
/// Returns the statements of the reduced loops. `ranges` (each statement's
/// code, for fences inserted into the IR) follow the code; a statement
/// inside a reduced block loses its range (no fence goes inside an attempt:
/// the block is one await).
pub(crate) fn reduce_spins(
    code: &mut Vec<Instr>,
    regs: &mut Vec<RegInfo>,
    loops: &[LoopShape],
    checked: bool,
    ranges: &mut Vec<crate::ir::StmtRange>,
    control: &mut Vec<crate::ir::StmtRange>,
    heads: &mut Vec<crate::ir::LoopHead>,
) -> Vec<StmtId> {
    let words = regs.len().div_ceil(64).max(1);
    if loops.is_empty() || code.len().saturating_mul(words) > MAX_WORK {
        return Vec::new();
    }
    let users: Vec<Reg> = (0..regs.len()).filter(|&r| regs[r].kind == RegKind::User).map(|r| r as Reg).collect();
    let live = liveness(code, regs.len(), &users);
    let mut spins: Vec<LoopShape> =
        loops.iter().copied().filter(|l| is_spin(code, *l, &live[l.back + 1], checked)).collect();
    if spins.is_empty() {
        return Vec::new();
    }
    spins.sort_by_key(|l| l.enter);
    // Each spin's block starts at `first`: its loop, or the copy of its
    // first iteration just before it.
    let mut firsts = Vec::with_capacity(spins.len());
    let mut free_from = 0;
    for l in &spins {
        let first = first_iteration(code, *l, free_from, regs, &live).unwrap_or(l.enter);
        firsts.push(first);
        free_from = l.back + 1;
    }
    let neg = regs.len() as Reg;
    regs.push(RegInfo { name: "%spin".into(), kind: RegKind::Temp });

    // Where each old pc lands (inside a block: at its start).
    let mut map = vec![0u32; code.len() + 1];
    let mut at = 0usize;
    let mut pc = 0usize;
    let mut next = spins.iter().zip(&firsts).peekable();
    while pc < code.len() {
        if let Some((l, &first)) = next.next_if(|(_, &f)| f == pc) {
            map[pc..=l.back].iter_mut().for_each(|m| *m = at as u32);
            at += block_len(*l, first);
            pc = l.back + 1;
        } else {
            map[pc] = at as u32;
            at += 1;
            pc += 1;
        }
    }
    map[code.len()] = at as u32;
    let inside = |r: &crate::ir::StmtRange| {
        spins.iter().zip(&firsts).any(|(l, &first)| {
            let (lo, hi) = (first as u32, l.back as u32 + 1);
            lo <= r.start && r.end <= hi && !(r.start <= first as u32 && hi <= r.end)
        })
    };
    ranges.retain(|r| !inside(r));
    for r in ranges.iter_mut() {
        r.start = map[r.start as usize];
        r.end = map[r.end as usize];
    }
    // A reduced loop keeps its whole range (a fence before or after it is
    // outside its attempt) only if its block starts at its `while`; it has
    // no head any more (its body is one attempt).
    control.retain(|r| !inside(r));
    for r in control.iter_mut() {
        r.start = map[r.start as usize];
        r.end = map[r.end as usize];
    }
    heads.retain(|h| !spins.iter().any(|l| l.stmt == h.stmt));
    for h in heads.iter_mut() {
        h.head = map[h.head as usize];
        h.back = map[h.back as usize];
    }

    let old = std::mem::take(code);
    let relocate = |i: Instr| match i {
        Instr::Jump { target } => Instr::Jump { target: map[target as usize] },
        Instr::Branch { cond, if_nonzero, target } => Instr::Branch { cond, if_nonzero, target: map[target as usize] },
        Instr::AwaitStart { check, stmt } => Instr::AwaitStart { check: map[check as usize], stmt },
        Instr::AwaitCheck { cond, start, stmt } => Instr::AwaitCheck { cond, start: map[start as usize], stmt },
        other => other,
    };
    let mut pc = 0usize;
    let mut next = spins.iter().zip(&firsts).peekable();
    while pc < old.len() {
        if let Some((l, &first)) = next.next_if(|(_, &f)| f == pc) {
            emit_spin(code, &old, *l, first, neg);
            pc = l.back + 1;
        } else {
            code.push(relocate(old[pc]));
            pc += 1;
        }
    }
    debug_assert_eq!(code.len(), at);
    spins.iter().map(|l| l.stmt).collect()
}

/// The size of spin `l`'s block: one attempt (its first iteration, or its
/// body when empty, then the condition) and three instructions; or, when
/// the first check stands apart, the condition, the attempt, four more.
fn block_len(l: LoopShape, first: usize) -> usize {
    let (c, b) = (l.exit - l.enter - 1, l.back - l.exit - 2);
    if first < l.enter || b == 0 {
        b + c + 3
    } else {
        2 * c + b + 4
    }
}

/// Where the copy of spin `l`'s body that runs just before it starts (the
/// `let t = x; while (t != 0) { t = x; }` idiom: a do-while, every check
/// follows an iteration), if there is one: the instructions before the loop
/// do what the body does (up to statements, and temporaries dead outside
/// each copy), control enters them only at their start (`free_from` and on:
/// nothing of an earlier block), and none can fail (a failure's statement
/// would tell the copies apart). An empty body is its own copy.
fn first_iteration(code: &[Instr], l: LoopShape, free_from: usize, regs: &[RegInfo], live: &[Regs]) -> Option<usize> {
    let body = l.exit + 2;
    let n = l.back - body;
    if n == 0 {
        return Some(l.enter);
    }
    let first = l.enter.checked_sub(n).filter(|&f| f >= free_from)?;
    let mut pairs = Renaming::default();
    let same = (0..n).all(|k| {
        let (a, b) = (code[first + k], code[body + k]);
        !can_fail(&b) && same_modulo(a, first, b, body, &mut pairs)
    });
    // A temporary of one copy standing for another of the other: each set
    // inside its copy before any read, and dead after it and after the loop.
    let local = |r: Reg, start: usize, end: usize| {
        regs[r as usize].kind == RegKind::Temp && !live[start].has(r) && !live[end].has(r) && !live[l.back + 1].has(r)
    };
    let renamed_ok = |&(a, b): &(Reg, Reg)| a == b || (local(a, first, l.enter) && local(b, body, l.back));
    if !same || !pairs.0.iter().all(renamed_ok) {
        return None;
    }
    // Nothing outside the copy jumps into it past its start (nor to the
    // loop, which would skip it).
    let inside = |t: usize| t > first && t <= l.enter;
    let entered = code.iter().enumerate().any(|(pc, i)| {
        let from_outside = pc < first || pc >= l.enter;
        from_outside
            && match *i {
                Instr::Jump { target } | Instr::Branch { target, .. } => inside(target as usize),
                Instr::AwaitStart { check, .. } => inside(check as usize),
                Instr::AwaitCheck { start, .. } => inside(start as usize),
                _ => false,
            }
    });
    (!entered).then_some(first)
}

/// Can this instruction stop its thread with an error?
fn can_fail(i: &Instr) -> bool {
    match *i {
        Instr::Load { addr, .. } => !matches!(addr, Addr::Fixed(_)),
        Instr::Bin { op: BinOp::Div | BinOp::Rem, b, .. } => !matches!(b, Operand::Imm(v) if v != 0),
        _ => false,
    }
}

/// Registers of one copy paired with the other's, one to one.
#[derive(Default)]
struct Renaming(Vec<(Reg, Reg)>);

impl Renaming {
    fn pair(&mut self, a: Reg, b: Reg) -> bool {
        match self.0.iter().find(|p| p.0 == a || p.1 == b) {
            Some(&p) => p == (a, b),
            None => {
                self.0.push((a, b));
                true
            }
        }
    }
    fn operand(&mut self, a: Operand, b: Operand) -> bool {
        match (a, b) {
            (Operand::Reg(x), Operand::Reg(y)) => self.pair(x, y),
            (a, b) => a == b,
        }
    }
}

/// `a` at `a_base + k` does what `b` at `b_base + k` does, statements aside
/// and registers paired by `r`.
fn same_modulo(a: Instr, a_base: usize, b: Instr, b_base: usize, r: &mut Renaming) -> bool {
    let rel = |t: u32, base: usize| t as i64 - base as i64;
    let addr = |x: Addr, y: Addr, r: &mut Renaming| match (x, y) {
        (Addr::Indexed { base, len, index }, Addr::Indexed { base: b2, len: l2, index: i2 }) => {
            (base, len) == (b2, l2) && r.operand(index, i2)
        }
        (x, y) => x == y && !matches!(x, Addr::Computed { .. }),
    };
    match (a, b) {
        (Instr::Load { dst, addr: x, .. }, Instr::Load { dst: d2, addr: y, .. }) => addr(x, y, r) && r.pair(dst, d2),
        (Instr::Mov { dst, src }, Instr::Mov { dst: d2, src: s2 }) => r.operand(src, s2) && r.pair(dst, d2),
        (Instr::Un { dst, op, a }, Instr::Un { dst: d2, op: o2, a: a2 }) => {
            op == o2 && r.operand(a, a2) && r.pair(dst, d2)
        }
        (Instr::Bin { dst, op, a, b, .. }, Instr::Bin { dst: d2, op: o2, a: a2, b: b2, .. }) => {
            op == o2 && r.operand(a, a2) && r.operand(b, b2) && r.pair(dst, d2)
        }
        (Instr::Jump { target }, Instr::Jump { target: t2 }) => rel(target, a_base) == rel(t2, b_base),
        (Instr::Branch { cond, if_nonzero, target }, Instr::Branch { cond: c2, if_nonzero: n2, target: t2 }) => {
            if_nonzero == n2 && r.operand(cond, c2) && rel(target, a_base) == rel(t2, b_base)
        }
        _ => false,
    }
}

/// The reduced block of spin `l`, at the end of `code`; it starts at the
/// old `first` (the copy of its first iteration, or the loop).
fn emit_spin(code: &mut Vec<Instr>, old: &[Instr], l: LoopShape, first: usize, neg: Reg) {
    let (head, body) = (l.enter + 1, l.exit + 2);
    let in_cond = |base: usize| move |t: u32| (base + (t as usize - head)) as u32;
    let start_len = code.len();
    if first < l.enter || body == l.back {
        // One attempt: the first iteration's copy (or nothing), the condition.
        let start = code.len();
        let b = start + 1;
        let c = b + (l.enter - first);
        let check = c + (l.exit - head) + 1;
        code.push(Instr::AwaitStart { check: check as u32, stmt: l.stmt });
        code.extend(old[first..l.enter].iter().map(|&i| retarget(i, |t| (b + (t as usize - first)) as u32)));
        code.extend(old[head..l.exit].iter().map(|&i| retarget(i, in_cond(c))));
        code.push(Instr::Un { dst: neg, op: UnOp::Not, a: l.cond });
        code.push(Instr::AwaitCheck { cond: Operand::Reg(neg), start: start as u32, stmt: l.stmt });
        debug_assert_eq!(code.len(), check + 1);
        debug_assert_eq!(code.len() - start_len, block_len(l, first));
        return;
    }
    let c1 = code.len();
    let exit_at = c1 + (l.exit - head);
    let start = exit_at + 1;
    let b = start + 1;
    let c2 = b + (l.back - body);
    let not_at = c2 + (l.exit - head);
    let check = not_at + 1;
    let end = check + 1;
    // Targets inside the condition (its end is the exit branch) and inside
    // the body (its end is the second condition's start).
    let in_body = |t: u32| (b + (t as usize - body)) as u32;
    code.extend(old[head..l.exit].iter().map(|&i| retarget(i, in_cond(c1))));
    code.push(Instr::Branch { cond: l.cond, if_nonzero: false, target: end as u32 });
    code.push(Instr::AwaitStart { check: check as u32, stmt: l.stmt });
    code.extend(old[body..l.back].iter().map(|&i| retarget(i, in_body)));
    code.extend(old[head..l.exit].iter().map(|&i| retarget(i, in_cond(c2))));
    code.push(Instr::Un { dst: neg, op: UnOp::Not, a: l.cond });
    code.push(Instr::AwaitCheck { cond: Operand::Reg(neg), start: start as u32, stmt: l.stmt });
    debug_assert_eq!(code.len(), end);
    debug_assert_eq!(code.len() - start_len, block_len(l, first));
}

fn retarget(i: Instr, map: impl Fn(u32) -> u32) -> Instr {
    match i {
        Instr::Jump { target } => Instr::Jump { target: map(target) },
        Instr::Branch { cond, if_nonzero, target } => Instr::Branch { cond, if_nonzero, target: map(target) },
        other => other,
    }
}

/// A set of registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Regs(Vec<u64>);

impl Regs {
    fn new(n: usize) -> Self {
        Regs(vec![0; n.div_ceil(64).max(1)])
    }
    fn insert(&mut self, r: Reg) {
        self.0[r as usize / 64] |= 1 << (r % 64);
    }
    fn remove(&mut self, r: Reg) {
        self.0[r as usize / 64] &= !(1 << (r % 64));
    }
    fn union(&mut self, o: &Regs) {
        self.0.iter_mut().zip(&o.0).for_each(|(a, b)| *a |= b);
    }
    fn intersect(&mut self, o: &Regs) {
        self.0.iter_mut().zip(&o.0).for_each(|(a, b)| *a &= b);
    }
    fn has(&self, r: Reg) -> bool {
        self.0[r as usize / 64] & (1 << (r % 64)) != 0
    }
    fn meets(&self, o: &Regs) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }
}

/// Registers live before each pc (and at `code.len()`): read on some path
/// before being written. At the thread's end its user registers are live
/// (the final condition may name them).
fn liveness(code: &[Instr], nregs: usize, users: &[Reg]) -> Vec<Regs> {
    let mut at_end = Regs::new(nregs);
    users.iter().for_each(|&r| at_end.insert(r));
    let mut live = vec![Regs::new(nregs); code.len() + 1];
    live[code.len()] = at_end.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for pc in (0..code.len()).rev() {
            let ins = code[pc];
            let mut out = Regs::new(nregs);
            for s in ins.successors(pc) {
                out.union(&live[s.min(code.len())]);
            }
            if matches!(ins, Instr::Halt) {
                out = at_end.clone();
            }
            for d in ins.written_regs() {
                out.remove(d);
            }
            reads(&ins, &mut |r| out.insert(r));
            if out != live[pc] {
                live[pc] = out;
                changed = true;
            }
        }
    }
    live
}

/// Is loop `l` a spin: its iteration (body, then the condition that
/// decides whether another follows) only loads and computes registers and
/// branches forward within its own part; it reads no register before
/// writing it that it also writes; and what it leaves for after the loop
/// (`live_after`) it writes on every path or not at all — so what an
/// iteration leaves behind depends only on its own reads and on registers
/// the loop never changes.
fn is_spin(code: &[Instr], l: LoopShape, live_after: &Regs, checked: bool) -> bool {
    let LoopShape { enter, exit, back, cond, .. } = l;
    let (head, body) = (enter + 1, exit + 2);
    let shaped = enter < exit
        && exit + 2 <= back
        && back < code.len()
        && matches!(code[enter], Instr::LoopEnter { .. })
        && matches!(code[exit], Instr::Branch { if_nonzero: false, target, .. } if target as usize == back + 1)
        && matches!(code[exit + 1], Instr::LoopIter { .. })
        && matches!(code[back], Instr::Jump { target } if target as usize == head);
    if !shaped {
        return false;
    }
    // The iteration as one straight list, jump targets mapped into it (the
    // body's end is the condition's start; the condition's end, the exit
    // branch, ends the list).
    let body_len = back - body;
    let mut unit: Vec<(Instr, Option<usize>)> = Vec::with_capacity(body_len + exit - head);
    for (range, end, base) in [(body..back, back, 0), (head..exit, exit, body_len)] {
        let first = range.start;
        for pc in range {
            let target = match code[pc] {
                Instr::Load { .. }
                | Instr::Mov { .. }
                | Instr::Un { .. }
                | Instr::Bin { .. }
                | Instr::Select { .. } => None,
                Instr::Jump { target } | Instr::Branch { target, .. }
                    if (target as usize) > pc && target as usize <= end =>
                {
                    Some(base + target as usize - first)
                }
                _ => return false,
            };
            unit.push((code[pc], target));
        }
    }
    let n = unit.len();
    let nregs = live_after.0.len() * 64;
    // Backward: read before written from k on (the end reads the condition).
    let mut exposed = vec![Regs::new(nregs); n + 1];
    if let Operand::Reg(r) = cond {
        exposed[n].insert(r);
    }
    // Forward: written on every path to k (None: k unreachable so far).
    let mut must: Vec<Option<Regs>> = vec![None; n + 1];
    must[0] = Some(Regs::new(nregs));
    let mut may = Regs::new(nregs);
    for k in (0..n).rev() {
        let (ins, target) = unit[k];
        let mut out = if matches!(ins, Instr::Jump { .. }) { Regs::new(nregs) } else { exposed[k + 1].clone() };
        if let Some(t) = target {
            out.union(&exposed[t]);
        }
        for d in ins.written_regs() {
            out.remove(d);
            may.insert(d);
        }
        reads(&ins, &mut |r| out.insert(r));
        exposed[k] = out;
    }
    for k in 0..n {
        let (ins, target) = unit[k];
        let Some(mut m) = must[k].clone() else { continue };
        for d in ins.written_regs() {
            m.insert(d);
        }
        let mut meet = |to: usize, m: &Regs| match &mut must[to] {
            Some(x) => x.intersect(m),
            slot @ None => *slot = Some(m.clone()),
        };
        if let Some(t) = target {
            meet(t, &m);
        }
        if !matches!(ins, Instr::Jump { .. }) {
            meet(k + 1, &m);
        }
    }
    let mut partly = may.clone();
    if let Some(m) = &must[n] {
        partly.0.iter_mut().zip(&m.0).for_each(|(a, b)| *a &= !b);
    }
    !checked || (!exposed[0].meets(&may) && !live_after.meets(&partly))
}

fn reads(i: &Instr, out: &mut impl FnMut(Reg)) {
    i.read_regs(out)
}

#[cfg(test)]
mod tests {
    use crate::ir::Instr;

    fn program(src: &str, reduce: bool) -> crate::Program {
        let a = crate::analyze_with(src, crate::LowerOptions { reduce_spins: reduce, ..Default::default() });
        assert!(!a.has_errors(), "{:?}", a.diagnostics);
        a.program.unwrap()
    }

    fn reduced(body: &str) -> bool {
        spins(body) > 0
    }

    /// How many of the loops of `body` are reduced.
    fn spins(body: &str) -> usize {
        let src = format!("litmus T\nshared x = 0;\nshared y = 0;\nthread P0 {{\n{body}\n}}\n");
        let p = program(&src, true);
        let loops =
            |p: &crate::Program| p.threads[0].code.iter().filter(|i| matches!(i, Instr::LoopIter { .. })).count();
        let unreduced = program(&src, false);
        assert!(unreduced.spins.is_empty());
        // A reduced loop leaves no iteration behind; the others keep theirs.
        assert_eq!(loops(&p) + p.spins.len(), loops(&unreduced), "{:?}", p.threads[0].code);
        p.spins.len()
    }

    #[test]
    fn pure_spins_are_reduced() {
        assert!(reduced("let f = x; while (f == 1) { f = x; }"));
        assert!(reduced("while (x == 1) { }"));
        assert!(reduced("let f = x; let g = 0; while (f == 1 && g != 2) { f = x; g = y + 1; }"));
        // A register the loop never writes may be read.
        assert!(reduced("let k = y; let f = x; while (f != k) { f = x; }"));
        // A register set on some paths only, dead after the loop.
        assert!(reduced("let f = x; while (f == 1) { let r = 0; if (y == 1) { r = 5; } f = x + r; }"));
        // Short-circuit and branches inside the body.
        assert!(reduced("let f = x; while (f == 1 || y == 2) { if (y == 1) { f = x; } else { f = y; } }"));
    }

    fn loads(body: &str) -> usize {
        let src = format!("litmus T\nshared x = 0;\nshared y = 0;\nthread P0 {{\n{body}\n}}\n");
        program(&src, true).threads[0].code.iter().filter(|i| matches!(i, Instr::Load { .. })).count()
    }

    #[test]
    fn a_do_while_spin_is_one_attempt() {
        // The first iteration written before the loop, or an empty body:
        // one load per attempt, as `await` has.
        assert_eq!(loads("let f = x; while (f == 1) { f = x; }"), 1);
        assert_eq!(loads("while (x == 1) { }"), 1);
        assert_eq!(loads("let f = x; let g = y; while (f == 1 || g == 1) { f = x; g = y; }"), 2);
        // A different first read stands apart: the check before the loop, then the attempt.
        assert_eq!(loads("let f = y; while (f == 1) { f = x; }"), 2);
        // A branch around the first copy: it does not always run.
        assert_eq!(loads("let f = 0; if (y == 1) { f = x; } while (f == 1) { f = x; }"), 3);
    }

    #[test]
    fn loops_with_effects_or_carried_registers_are_not() {
        assert!(!reduced("let f = x; while (f == 1) { y = 1; f = x; }"));
        assert!(!reduced("let f = x; while (f == 1) { fence; f = x; }"));
        assert!(!reduced("let f = x; while (f == 1) { f = fetch_add(y, 1); }"));
        assert!(!reduced("let f = x; while (f == 1) { assert (y == 0); f = x; }"));
        assert!(!reduced("let f = x; while (f == 1) { await (y == 1); f = x; }"));
        // The inner loop is a spin, the outer one contains a loop.
        assert_eq!(spins("let f = x; while (f == 1) { while (y == 1) { } f = x; }"), 1);
        assert_eq!(spins("let f = x; while (f == 1) { f = x; } while (y == 1) { }"), 2);
        assert!(!reduced("let f = x; while (f == 1) { return; }"));
        // A counter carried from one iteration to the next.
        assert!(!reduced("let k = 0; while (k < 3) { k = k + 1; }"));
        // Only some paths redefine f: its old value can survive an iteration.
        assert!(!reduced("let f = x; while (f == 1) { if (y == 1) { f = x; } }"));
        // The condition depends on a register the body does not read afresh.
        assert!(!reduced("let f = x; let g = 0; while (f == 1) { g = g + f; f = x; }"));
        // A register set on some iterations only, read after the loop.
        assert!(!reduced("let r = 0; let f = x; while (f == 1) { if (y == 1) { r = 5; } f = x; } y = r;"));
        // ... even when only the final condition names it.
        assert!(!reduced("let r = 0; let f = x; while (f == 1) { if (y == 1) { r = 5; } f = x; }"));
    }
}
