//! One thread run alone, each read given a value guessed from its cell's
//! domain: every path the thread can take, with its events, the registers
//! it ends with and how it ended. Registers carry the reads their values
//! came from, so each access knows its address and data dependencies and
//! each event the reads its branches tested (herd's `addr`, `data`, `ctrl`).

use crate::machine::{resolve, FailureKind};
use litmus_ir::{Addr, Cell, FenceKind, Instr, Labels, Operand, Program, RmwOp, StmtId};

/// The most events a thread may have here (dependencies are 64-bit masks).
pub const MAX_THREAD_EVENTS: usize = 63;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    /// An atomic that read and wrote (one instruction, two events).
    Update,
    /// An atomic that only read (a failed `cas`, a `lock` found taken).
    AtomicRead,
    Fence(FenceKind),
}

#[derive(Clone, Copy, Debug)]
pub struct Ev {
    pub kind: Kind,
    pub cell: Cell,
    /// The value read (reads, updates, atomic reads).
    pub old: i64,
    /// The value written (writes, updates).
    pub value: i64,
    pub labels: Labels,
    pub stmt: StmtId,
    /// This thread's earlier events (by index) its address depends on.
    pub addr: u64,
    /// … the value it writes depends on.
    pub data: u64,
    /// … a branch before it tested.
    pub ctrl: u64,
}

impl Ev {
    pub fn reads(&self) -> bool {
        matches!(self.kind, Kind::Read | Kind::Update | Kind::AtomicRead)
    }
    pub fn writes(&self) -> bool {
        matches!(self.kind, Kind::Write | Kind::Update)
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Done,
    /// An `await` or `lock` that can never pass in this run.
    Stuck,
    /// `assume` was false: not one of the program's runs.
    Pruned,
    Failed(StmtId, FailureKind),
    /// The loop bound stopped it.
    Cut,
}

#[derive(Clone, Debug)]
pub struct Run {
    pub events: Vec<Ev>,
    pub regs: Vec<i64>,
    pub end: End,
}

/// Why a thread's runs could not be listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Over {
    /// A run with more than [`MAX_THREAD_EVENTS`] events.
    Events,
    /// More steps than the work budget.
    Work,
}

#[derive(Clone)]
struct St {
    pc: usize,
    regs: Vec<i64>,
    /// Per register: the reads its value came from.
    taint: Vec<u64>,
    /// The reads every branch taken so far tested.
    ctrl: u64,
    loops: Vec<u32>,
    events: Vec<Ev>,
    /// The cell the last load-reserved reserved, until a store-conditional.
    reserved: Option<Cell>,
    /// Set when the run ended as it forked (a taken lock, a failed update).
    end: Option<End>,
}

/// How the interpretation of one path stopped.
enum Stop {
    End(End),
    /// At a read: one path per value went on the stack.
    Forked,
}

/// Every run of thread `t` of `prog` whose reads take values in `domain`
/// (per cell). `steps` counts the instructions interpreted, up to `max_steps`.
pub fn runs(
    prog: &Program,
    t: usize,
    init_regs: &[i64],
    domain: &[Vec<i64>],
    loop_bound: u32,
    steps: &mut u64,
    max_steps: u64,
) -> Result<Vec<Run>, Over> {
    let code = &prog.threads[t].code;
    let loops = code.iter().filter_map(|i| if let Instr::LoopEnter { id } = i { Some(*id as usize + 1) } else { None });
    let loops = loops.chain(code.iter().filter_map(|i| match i {
        Instr::LoopIter { id, .. } => Some(*id as usize + 1),
        _ => None,
    }));
    let n_loops = loops.max().unwrap_or(0);
    let start = St {
        pc: 0,
        regs: init_regs.to_vec(),
        taint: vec![0; init_regs.len()],
        ctrl: 0,
        loops: vec![0; n_loops],
        events: Vec::new(),
        reserved: None,
        end: None,
    };
    let cells = prog.init.len();
    let mut out = Vec::new();
    let mut stack = vec![start];
    while let Some(mut s) = stack.pop() {
        if let Some(end) = s.end {
            out.push(Run { events: s.events, regs: s.regs, end });
            continue;
        }
        let stop = loop {
            *steps += 1;
            if *steps > max_steps {
                return Err(Over::Work);
            }
            if s.events.len() > MAX_THREAD_EVENTS {
                return Err(Over::Events);
            }
            let Some(&ins) = code.get(s.pc) else { break Stop::End(End::Done) };
            let mut next = s.pc + 1;
            let val = |s: &St, o: Operand| match o {
                Operand::Imm(v) => (v, 0),
                Operand::Reg(r) => (s.regs[r as usize], s.taint[r as usize]),
            };
            let addr_taint = |s: &St, a: Addr| match a {
                Addr::Fixed(_) => 0,
                Addr::Indexed { index, .. } => val(s, index).1,
                Addr::Computed { base, index, .. } => {
                    base.map_or(0, |r| s.taint[r as usize]) | index.map_or(0, |(r, _)| s.taint[r as usize])
                }
            };
            match ins {
                Instr::Mov { dst, src } => {
                    let (v, d) = val(&s, src);
                    s.regs[dst as usize] = v;
                    s.taint[dst as usize] = d;
                }
                Instr::Un { dst, op, a } => {
                    let (v, d) = val(&s, a);
                    s.regs[dst as usize] = op.eval(v);
                    s.taint[dst as usize] = d;
                }
                Instr::Bin { dst, op, a, b, stmt } => {
                    let ((va, da), (vb, db)) = (val(&s, a), val(&s, b));
                    match op.eval(va, vb) {
                        Some(v) => {
                            s.regs[dst as usize] = v;
                            s.taint[dst as usize] = da | db;
                        }
                        None => break Stop::End(End::Failed(stmt, FailureKind::DivisionByZero)),
                    }
                }
                Instr::Jump { target } => next = target as usize,
                Instr::Branch { cond, if_nonzero, target } => {
                    let (v, d) = val(&s, cond);
                    s.ctrl |= d;
                    if (v != 0) == if_nonzero {
                        next = target as usize;
                    }
                }
                Instr::LoopEnter { id } => s.loops[id as usize] = 0,
                Instr::LoopIter { id, bound, .. } => {
                    let c = &mut s.loops[id as usize];
                    *c += 1;
                    if *c > bound.unwrap_or(loop_bound) {
                        break Stop::End(End::Cut);
                    }
                }
                Instr::Assert { cond, stmt } => {
                    if val(&s, cond).0 == 0 {
                        break Stop::End(End::Failed(stmt, FailureKind::Assertion));
                    }
                }
                Instr::Assume { cond, .. } => {
                    if val(&s, cond).0 == 0 {
                        break Stop::End(End::Pruned);
                    }
                }
                Instr::AwaitStart { .. } => {}
                Instr::AwaitCheck { cond, .. } => {
                    let (v, d) = val(&s, cond);
                    s.ctrl |= d;
                    if v == 0 {
                        break Stop::End(End::Stuck);
                    }
                }
                Instr::Halt => break Stop::End(End::Done),
                Instr::Fence { kind, stmt } => {
                    let ctrl = s.ctrl;
                    s.events.push(Ev {
                        kind: Kind::Fence(kind),
                        cell: 0,
                        old: 0,
                        value: 0,
                        labels: kind.labels(),
                        stmt,
                        addr: 0,
                        data: 0,
                        ctrl,
                    });
                }
                Instr::Store { addr, val: v, labels, stmt } => {
                    let cell = match resolve(&s.regs, addr, cells) {
                        Ok(c) => c,
                        Err(k) => break Stop::End(End::Failed(stmt, k)),
                    };
                    let (value, data) = val(&s, v);
                    let (a, ctrl) = (addr_taint(&s, addr), s.ctrl);
                    s.events.push(Ev { kind: Kind::Write, cell, old: 0, value, labels, stmt, addr: a, data, ctrl });
                }
                Instr::Load { dst, addr, labels, stmt, .. } => {
                    let cell = match resolve(&s.regs, addr, cells) {
                        Ok(c) => c,
                        Err(k) => break Stop::End(End::Failed(stmt, k)),
                    };
                    let (a, ctrl) = (addr_taint(&s, addr), s.ctrl);
                    let me = 1u64 << s.events.len().min(63);
                    if labels.contains(Labels::EX) {
                        s.reserved = Some(cell);
                    }
                    // One run per value the read may take, each on the stack.
                    for &v in domain[cell as usize].iter().rev() {
                        let mut b = St { pc: next, ..s.clone() };
                        b.regs[dst as usize] = v;
                        b.taint[dst as usize] = me;
                        b.events.push(Ev {
                            kind: Kind::Read,
                            cell,
                            old: v,
                            value: 0,
                            labels,
                            stmt,
                            addr: a,
                            data: 0,
                            ctrl,
                        });
                        stack.push(b);
                    }
                    break Stop::Forked;
                }
                Instr::StoreCond { status, addr, val: v, labels, stmt } => {
                    let cell = match resolve(&s.regs, addr, cells) {
                        Ok(c) => c,
                        Err(k) => break Stop::End(End::Failed(stmt, k)),
                    };
                    // herd's two runs: it fails (status 1, no event), or,
                    // where the reservation is this cell, it writes (status 0).
                    let reserved = s.reserved.take() == Some(cell);
                    let mut fail = St { pc: next, ..s.clone() };
                    fail.regs[status as usize] = 1;
                    fail.taint[status as usize] = 0;
                    if reserved {
                        let (value, data) = val(&s, v);
                        let (a, ctrl) = (addr_taint(&s, addr), s.ctrl);
                        let mut ok = St { pc: next, ..s.clone() };
                        // herd's RISC-V: a success's status depends on its
                        // write and its address (`SwitchDepScWrite`,
                        // `SwitchDepScResult`, both on by default there).
                        ok.taint[status as usize] = 1u64 << ok.events.len().min(63) | a;
                        ok.events.push(Ev {
                            kind: Kind::Write,
                            cell,
                            old: 0,
                            value,
                            labels,
                            stmt,
                            addr: a,
                            data,
                            ctrl,
                        });
                        ok.regs[status as usize] = 0;
                        stack.push(ok);
                    }
                    stack.push(fail);
                    break Stop::Forked;
                }
                Instr::Rmw { dst, addr, op, labels, stmt } => {
                    let cell = match resolve(&s.regs, addr, cells) {
                        Ok(c) => c,
                        Err(k) => break Stop::End(End::Failed(stmt, k)),
                    };
                    let (a, ctrl) = (addr_taint(&s, addr), s.ctrl);
                    let me = 1u64 << s.events.len().min(63);
                    for &v in domain[cell as usize].iter().rev() {
                        let mut b = St { pc: next, ..s.clone() };
                        // What it writes, if it writes, and from which registers.
                        let write = match op {
                            RmwOp::Xchg(o) => Some(val(&b, o)),
                            RmwOp::Fetch(f, o) => {
                                let (x, d) = val(&b, o);
                                match f.eval(v, x) {
                                    Some(w) => Some((w, d)),
                                    None => {
                                        stack.push(St {
                                            end: Some(End::Failed(stmt, FailureKind::DivisionByZero)),
                                            ..b
                                        });
                                        continue;
                                    }
                                }
                            }
                            RmwOp::Cas { expected, new, .. } => {
                                let (e, _) = val(&b, expected);
                                (v == e).then(|| val(&b, new))
                            }
                            RmwOp::Lock => (v == 0).then_some((1, 0)),
                        };
                        b.regs[dst as usize] = v;
                        b.taint[dst as usize] = me;
                        let (kind, value, data, labels) = match (write, op) {
                            (Some((w, d)), _) => (Kind::Update, w, d, labels),
                            // A C11 cas that fails only reads, with its failure order.
                            (None, RmwOp::Cas { fail: Some(f), .. }) => (Kind::Read, 0, 0, f),
                            (None, _) => (Kind::AtomicRead, 0, 0, labels),
                        };
                        b.events.push(Ev { kind, cell, old: v, value, labels, stmt, addr: a, data, ctrl });
                        if matches!(op, RmwOp::Lock) && write.is_none() {
                            // A taken lock: the thread waits forever here.
                            b.end = Some(End::Stuck);
                        }
                        stack.push(b);
                    }
                    break Stop::Forked;
                }
            }
            s.pc = next;
        };
        if let Stop::End(end) = stop {
            out.push(Run { events: s.events, regs: s.regs, end });
        }
    }
    Ok(out)
}
