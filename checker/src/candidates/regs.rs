//! Register events, for models that compute dependencies themselves
//! (herd's `catdep`, e.g. its stock `aarch64.cat`), made as herd7's
//! AArch64 semantics makes them: each instruction a run ran reads its
//! register operands (`Rreg`; an address's in `ADDR`, a stored value's in
//! `DATA`), writes its destination (`Wreg`); a conditional branch is a
//! commit event (`B`, `BCC`), a select's or CAS's comparison one too (`B`,
//! `PRED`), an unconditional branch an event of no set; `iico_data`,
//! `iico_ctrl` and `iico_order` order them inside the instruction. The
//! model derives `addr`, `data` and `ctrl` from them.
//!
//! One instruction here is one instruction of the IR: a herd instruction
//! lowered to several (`CMP` into two flag registers, `CSINC` into an add
//! and a select, a post-index into an access and an add) has its inner
//! steps joined by register writes and reads in program order rather than
//! by `iico`; a dependency from a memory read in one instruction to an
//! access in a later one goes through either alike.

use super::thread::{Run, ALT_SECOND, CAS_FAIL, CAS_FAIL_WRITE_BACK, CAS_FROM_EXPECTED};
use litmus_ir::{Addr, BinOp, Instr, Labels, Operand, PairOp, Program, RmwOp};

/// A register: the IR's, or the exclusive monitor's reservation (herd's
/// `ResAddr`, written by a load-exclusive, read by a store-exclusive).
pub type RegId = u32;
pub const RES_ADDR: RegId = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegKind {
    Read(RegId),
    Write(RegId),
    /// A commit: of a conditional branch (`BCC`), else of a comparison (`PRED`).
    Commit {
        branch: bool,
    },
    /// An unconditional branch, a CAS that did not write (herd's `NoAction`).
    Nothing,
}

#[derive(Clone, Copy, Debug)]
pub struct RegEv {
    pub kind: RegKind,
    /// The run's step (instruction) it belongs to.
    pub step: u32,
    /// A read of an address register (herd's `ADDR`), of a stored value (`DATA`).
    pub addr: bool,
    pub data: bool,
}

/// An event of a run: a memory event's read or write half (one for every
/// event but an update's), or a register event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    Mem { event: u32, write: bool },
    Reg(u32),
}

/// A run's register events and the edges inside its instructions.
#[derive(Default, Debug)]
pub struct Micro {
    pub evs: Vec<RegEv>,
    /// Per memory event of the run: its step.
    pub mem_step: Vec<u32>,
    pub iico_data: Vec<(Node, Node)>,
    pub iico_ctrl: Vec<(Node, Node)>,
    pub iico_order: Vec<(Node, Node)>,
}

impl Micro {
    fn ev(&mut self, kind: RegKind, step: u32) -> Node {
        self.evs.push(RegEv { kind, step, addr: false, data: false });
        Node::Reg(self.evs.len() as u32 - 1)
    }

    fn write(&mut self, r: RegId, step: u32) -> Node {
        self.ev(RegKind::Write(r), step)
    }

    /// A read of `o` if it is a register (an immediate or the zero
    /// register is no event).
    fn operand(&mut self, o: Operand, step: u32) -> Option<Node> {
        match o {
            Operand::Reg(r) => Some(self.ev(RegKind::Read(r as RegId), step)),
            Operand::Imm(_) => None,
        }
    }

    /// A stored value's read, in `DATA` when `data`.
    fn value(&mut self, o: Operand, step: u32, data: bool) -> Option<Node> {
        let n = self.operand(o, step);
        if let (Some(Node::Reg(i)), true) = (n, data) {
            self.evs[i as usize].data = true;
        }
        n
    }

    /// The reads of an address's registers, each in `ADDR`.
    fn address(&mut self, a: Addr, step: u32) -> Vec<Node> {
        let regs: Vec<litmus_ir::Reg> = match a {
            Addr::Fixed(_) => vec![],
            Addr::Indexed { index: Operand::Reg(r), .. } => vec![r],
            Addr::Indexed { index: Operand::Imm(_), .. } => vec![],
            Addr::Computed { base, index, .. } => base.into_iter().chain(index.map(|(r, _)| r)).collect(),
        };
        regs.into_iter()
            .map(|r| {
                let n = self.ev(RegKind::Read(r as RegId), step);
                if let Node::Reg(i) = n {
                    self.evs[i as usize].addr = true;
                }
                n
            })
            .collect()
    }

    fn data(&mut self, from: impl IntoIterator<Item = Node>, to: Node) {
        for f in from {
            self.iico_data.push((f, to));
        }
    }

    fn ctrl(&mut self, from: impl IntoIterator<Item = Node>, to: Node) {
        for f in from {
            self.iico_ctrl.push((f, to));
        }
    }
}

/// The register events of `run` (of thread `t`), made from its trace.
pub fn micro(prog: &Program, t: usize, run: &Run) -> Micro {
    let code = &prog.threads[t].code;
    let mut m = Micro { mem_step: vec![0; run.events.len()], ..Micro::default() };
    // The value register a store just read, by its statement: herd's
    // post-indexed `STR` has it flow into the base register's update too,
    // which the IR makes the next instruction (of the same statement).
    let mut stored: Option<(litmus_ir::StmtId, Node)> = None;
    for (k, st) in run.trace.iter().enumerate() {
        let just_stored = stored.take();
        let step = k as u32;
        let end = run.trace.get(k + 1).map_or(run.events.len() as u32, |n| n.first);
        for j in st.first..end {
            m.mem_step[j as usize] = step;
        }
        // This instruction's memory event: its read and write halves.
        let (read, write) = match run.events.get(st.first as usize).filter(|_| st.first < end) {
            Some(e) => (
                e.reads().then_some(Node::Mem { event: st.first, write: false }),
                e.writes().then_some(Node::Mem { event: st.first, write: true }),
            ),
            None => (None, None),
        };
        let Some(&ins) = code.get(st.pc as usize) else { continue };
        match ins {
            Instr::Mov { dst, src: a } | Instr::Un { dst, a, .. } => {
                let r = m.operand(a, step);
                let w = m.write(dst as RegId, step);
                m.data(r, w);
            }
            // herd reads a register given twice once, except to multiply.
            Instr::Bin { dst, op, a, b, stmt } => {
                let ra = m.operand(a, step);
                let rb = if a == b && op != BinOp::Mul { None } else { m.operand(b, step) };
                let w = m.write(dst as RegId, step);
                m.data(ra.into_iter().chain(rb), w);
                if let Some((_, v)) = just_stored.filter(|(s, _)| *s == stmt) {
                    m.data([v], w);
                }
            }
            // The comparison's commit, then only the chosen operand is read
            // (`iico_ctrl`: herd's "pick"), and written.
            Instr::Select { dst, cond, a, b } => {
                let c = m.operand(cond, step);
                let p = m.ev(RegKind::Commit { branch: false }, step);
                m.data(c, p);
                let chosen = m.operand(if st.alt == ALT_SECOND { b } else { a }, step);
                let w = m.write(dst as RegId, step);
                match chosen {
                    Some(r) => {
                        m.ctrl([p], r);
                        m.data([r], w);
                    }
                    None => m.ctrl([p], w),
                }
            }
            Instr::Jump { .. } => {
                m.ev(RegKind::Nothing, step);
            }
            Instr::Branch { cond, .. }
            | Instr::AwaitCheck { cond, .. }
            | Instr::Assert { cond, .. }
            | Instr::Assume { cond, .. } => {
                let c = m.operand(cond, step);
                let b = m.ev(RegKind::Commit { branch: true }, step);
                m.data(c, b);
            }
            Instr::Load { dst, addr, labels, .. } => {
                let a = m.address(addr, step);
                if labels.contains(Labels::EX) {
                    let res = m.write(RES_ADDR, step);
                    m.data(a.iter().copied(), res);
                }
                if let Some(r) = read {
                    m.data(a, r);
                    let w = m.write(dst as RegId, step);
                    m.data([r], w);
                }
            }
            Instr::Store { addr, val, stmt, .. } => {
                let a = m.address(addr, step);
                let v = m.value(val, step, true);
                if let Some(w) = write {
                    m.data(a.into_iter().chain(v), w);
                }
                stored = v.map(|v| (stmt, v));
            }
            // herd's AArch64 store-exclusive: the reservation read and
            // cleared; on success the write, its value's register not in
            // `DATA` (as herd has it); the status register written with
            // no edge into it.
            Instr::StoreCond { status, addr, val, .. } => {
                let res = m.ev(RegKind::Read(RES_ADDR), step);
                let v = m.value(val, step, false);
                let a = m.address(addr, step);
                let cleared = m.write(RES_ADDR, step);
                m.ctrl([res], cleared);
                m.write(status as RegId, step);
                if let Some(w) = write {
                    m.data(a.iter().copied().chain(v), w);
                    m.ctrl([res].into_iter().chain(a), w);
                }
            }
            Instr::Rmw { dst, addr, op, labels, .. } => {
                let a = m.address(addr, step);
                let Some(r) = read else { continue };
                m.data(a.iter().copied(), r);
                if let Some(w) = write {
                    m.data(a.iter().copied(), w);
                }
                // No register takes the old value of an atomic to the zero register.
                let noret = labels.contains(Labels::NORET);
                match op {
                    RmwOp::Xchg(o) => {
                        let v = m.value(o, step, true);
                        if let Some(w) = write {
                            m.data(v, w);
                            m.iico_order.push((r, w));
                        }
                    }
                    RmwOp::Fetch(_, o) => {
                        let v = m.value(o, step, true);
                        if let Some(w) = write {
                            m.data(v.into_iter().chain([r]), w);
                        }
                    }
                    RmwOp::Cas { expected, new, .. } => {
                        cas(&mut m, step, st.alt, (expected, new), (r, write), noret, dst);
                        continue;
                    }
                    RmwOp::Lock => {}
                }
                if !noret {
                    let d = m.write(dst as RegId, step);
                    m.data([r], d);
                }
            }
            Instr::Pair { op, addr, .. } => {
                let (first, second) = (st.first, st.first + 1);
                let mem = |write: bool| [Node::Mem { event: first, write }, Node::Mem { event: second, write }];
                let here = st.first < end;
                let a = m.address(addr, step);
                match op {
                    // herd's LDP: the address feeds both reads, each its register.
                    PairOp::Load { dst } => {
                        if labels_ex(code, st.pc) {
                            let res = m.write(RES_ADDR, step);
                            m.data(a.iter().copied(), res);
                        }
                        if here {
                            for (r, d) in mem(false).into_iter().zip(dst) {
                                m.data(a.iter().copied(), r);
                                let w = m.write(d as RegId, step);
                                m.data([r], w);
                            }
                        }
                    }
                    PairOp::Store { val } => {
                        for (w, v) in mem(true).into_iter().zip(val) {
                            let v = m.value(v, step, true);
                            if here {
                                m.data(a.iter().copied().chain(v), w);
                            }
                        }
                    }
                    // herd's STXP: as STXR, but the values (not in `DATA`)
                    // are read only by a success.
                    PairOp::StoreCond { status, val } => {
                        let res = m.ev(RegKind::Read(RES_ADDR), step);
                        let cleared = m.write(RES_ADDR, step);
                        m.ctrl([res], cleared);
                        m.write(status as RegId, step);
                        if here {
                            for (w, v) in mem(true).into_iter().zip(val) {
                                let v = m.value(v, step, false);
                                m.data(a.iter().copied().chain(v), w);
                                m.ctrl([res].into_iter().chain(a.iter().copied()), w);
                            }
                        }
                    }
                    PairOp::Cas { old, new, .. } => casp(&mut m, step, st.alt, (old, new), &a, (mem(false), mem(true))),
                }
            }
            Instr::Fence { .. }
            | Instr::LoopEnter { .. }
            | Instr::LoopIter { .. }
            | Instr::AwaitStart { .. }
            | Instr::Halt => {}
        }
    }
    m
}

/// A compare-and-swap's events after its address's reads: the expected
/// value's read and the comparison's commit, then by the way it went
/// (herd's four: two successes, a failure writing back, one not writing).
fn cas(
    m: &mut Micro,
    step: u32,
    alt: u8,
    (expected, new): (Operand, Operand),
    (r, write): (Node, Option<Node>),
    noret: bool,
    dst: litmus_ir::Reg,
) {
    let e = if noret { None } else { m.value(expected, step, true) };
    let succeeded = !matches!(alt, CAS_FAIL | CAS_FAIL_WRITE_BACK);
    let v = if succeeded { m.value(new, step, true) } else { None };
    let p = m.ev(RegKind::Commit { branch: false }, step);
    m.data(e.into_iter().chain([r]), p);
    let old = (!noret).then(|| m.write(dst as RegId, step));
    match write {
        Some(w) => {
            m.ctrl([p], w);
            if succeeded {
                m.data(v, w);
            } else {
                m.data([r], w);
            }
        }
        None => {
            let nothing = m.ev(RegKind::Nothing, step);
            m.ctrl([p], nothing);
        }
    }
    if let Some(old) = old {
        if alt == CAS_FROM_EXPECTED {
            m.data(e, old);
            m.ctrl([p], old);
        } else {
            m.data([r], old);
        }
    }
}

/// Is the pair instruction at `pc` an exclusive (`LDXP`)?
fn labels_ex(code: &[Instr], pc: u32) -> bool {
    matches!(code.get(pc as usize), Some(Instr::Pair { labels, .. }) if labels.contains(Labels::EX))
}

/// A `CASP`'s events after its address's reads, as herd's `aarch64_cas`
/// makes them from pairs: every edge between two pieces goes from each of
/// the one's events to each of the other's (cartesian).
fn casp(
    m: &mut Micro,
    step: u32,
    alt: u8,
    (old, new): ([litmus_ir::Reg; 2], [Operand; 2]),
    a: &[Node],
    (reads, writes): ([Node; 2], [Node; 2]),
) {
    let rs: Vec<Node> = old.iter().filter_map(|&r| m.value(Operand::Reg(r), step, true)).collect();
    let succeeded = !matches!(alt, CAS_FAIL | CAS_FAIL_WRITE_BACK);
    let rt: Vec<Node> = if succeeded { new.iter().filter_map(|&o| m.value(o, step, true)).collect() } else { vec![] };
    let p = m.ev(RegKind::Commit { branch: false }, step);
    for r in reads {
        m.data(a.iter().copied(), r);
    }
    m.data(rs.iter().copied().chain(reads), p);
    let wrs = [m.write(old[0] as RegId, step), m.write(old[1] as RegId, step)];
    for w in wrs {
        if alt == CAS_FROM_EXPECTED {
            m.data(rs.iter().copied(), w);
            m.ctrl([p], w);
        } else {
            m.data(reads, w);
        }
    }
    if alt == CAS_FAIL {
        let nothing = m.ev(RegKind::Nothing, step);
        m.ctrl([p], nothing);
        return;
    }
    for w in writes {
        m.data(a.iter().copied(), w);
        if succeeded {
            m.data(rt.iter().copied(), w);
        } else {
            m.data(reads, w);
        }
        m.ctrl([p], w);
    }
}
