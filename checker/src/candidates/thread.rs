//! One thread run alone, each read given a value guessed from its cell's
//! domain: every path the thread can take, with its events, the registers
//! it ends with and how it ended. Registers carry the reads their values
//! came from, so each access knows its address and data dependencies and
//! each event the reads its branches tested (herd's `addr`, `data`, `ctrl`).

use crate::machine::{resolve, FailureKind};
use litmus_ir::{Addr, Cell, FenceKind, Instr, Labels, Operand, PairOp, PairOrder, Program, Reg, RmwOp, StmtId};

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
    /// The same three through "pick" dependencies too (herd's AArch64
    /// `pick-*-dep`: through the condition of a `CSEL`); each holds its
    /// plain counterpart.
    pub pick: [u64; 3],
    /// Is it of the previous event's instruction (a pair instruction's
    /// second access), and how the two are ordered inside it?
    pub joint: Joint,
}

/// How an event stands to the previous one of its run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Joint {
    /// Of a later instruction (or the first event).
    No,
    /// Of the same instruction, unordered with it.
    Same,
    /// Of the same instruction, after it (herd's `iico_order` from it).
    After,
    /// Of the same instruction, before it.
    Before,
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
    /// The instructions it ran, in order, when asked for (register events
    /// are made from them: [`super::regs`]).
    pub trace: Vec<Step>,
}

/// One instruction a run ran: where, and its first event's index in the
/// run's events (its events run to the next step's first).
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub pc: u32,
    pub first: u32,
    /// Which way it went where that is no event's: the operand a select
    /// chose ([`ALT_SECOND`]), the way an atomic ran ([`RmwWay::alt`]).
    pub alt: u8,
}

/// A select chose its second operand.
pub const ALT_SECOND: u8 = 1;
/// An AArch64 CAS: succeeded with its old value's register written from
/// the read (herd's `DataFromRx`), from the expected value's register
/// (`DataFromRRs`); failed without writing, failed writing back.
pub const CAS_FROM_READ: u8 = 0;
pub const CAS_FROM_EXPECTED: u8 = 1;
pub const CAS_FAIL: u8 = 2;
pub const CAS_FAIL_WRITE_BACK: u8 = 3;

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
    /// … and the reads it was picked by (a `CSEL`'s condition), with `taint`'s.
    pick: Vec<u64>,
    /// The reads every branch taken so far tested (plain, and with picks).
    ctrl: u64,
    pctrl: u64,
    /// Where values carry dependencies through memory: per cell, what the
    /// thread's last write to it depended on (plain, with picks).
    stored: Vec<(u64, u64)>,
    loops: Vec<u32>,
    events: Vec<Ev>,
    trace: Vec<Step>,
    /// The cell the last load-reserved reserved (and whether by a pair),
    /// until a store-conditional.
    reserved: Option<(Cell, bool)>,
    /// Set when the run ended as it forked (a taken lock, a failed update).
    end: Option<End>,
}

/// One way an atomic read-modify-write may run (see `runs`).
struct RmwWay {
    /// The value written, and the reads it depends on (plain, with picks).
    write: Option<(i64, u64, u64)>,
    /// What the write depends on beyond that, through memory only (its
    /// own read: herd's `iico` inside the instruction is no `data`).
    through: (u64, u64),
    /// What the register taking the old value depends on.
    old: (u64, u64),
    /// Which way it is, for the register events ([`Step::alt`]).
    alt: u8,
}

/// One way a `CASP` may run: what it writes (if anything), that value's
/// dependencies (plain, with picks), what it adds to them through memory,
/// what the old values' registers depend on, and which way it is.
struct PairWay {
    written: Option<[i64; 2]>,
    data: (u64, u64),
    through: (u64, u64),
    regs: (u64, u64),
    alt: u8,
}

/// What an event depends on (see [`Ev`]).
#[derive(Clone, Copy)]
struct Deps {
    addr: u64,
    data: u64,
    ctrl: u64,
    pick: [u64; 3],
}

impl St {
    /// Register `r` holds `v`, depending on reads `d` (`p` with picks).
    fn set(&mut self, r: Reg, v: i64, d: u64, p: u64) {
        self.regs[r as usize] = v;
        self.taint[r as usize] = d;
        self.pick[r as usize] = p | d;
    }

    /// A new event; a write is remembered as its cell's last.
    #[allow(clippy::too_many_arguments)]
    fn push(&mut self, kind: Kind, cell: Cell, old: i64, value: i64, labels: Labels, stmt: StmtId, dp: Deps) {
        if matches!(kind, Kind::Write | Kind::Update) {
            self.stored[cell as usize] = (dp.addr | dp.data, dp.pick[0] | dp.pick[1] | dp.addr | dp.data);
        }
        let pick = [dp.pick[0] | dp.addr, dp.pick[1] | dp.data, dp.pick[2] | dp.ctrl];
        self.events.push(Ev {
            kind,
            cell,
            old,
            value,
            labels,
            stmt,
            addr: dp.addr,
            data: dp.data,
            ctrl: dp.ctrl,
            pick,
            joint: Joint::No,
        });
    }

    /// The last event is the second access of its instruction.
    fn join(&mut self, order: PairOrder) {
        let e = self.events.last_mut().expect("two accesses");
        e.joint = match order {
            PairOrder::Unordered => Joint::Same,
            PairOrder::LowFirst => Joint::After,
            PairOrder::HighFirst => Joint::Before,
        };
    }
}

/// How the interpretation of one path stopped.
enum Stop {
    End(End),
    /// At a read: one path per value went on the stack.
    Forked,
}

/// Every run of thread `t` of `prog` whose reads take values in `domain`
/// (per cell). `steps` counts the instructions interpreted, up to `max_steps`;
/// `trace` keeps each run's instructions.
#[allow(clippy::too_many_arguments)]
pub fn runs(
    prog: &Program,
    t: usize,
    init_regs: &[i64],
    domain: &[Vec<i64>],
    loop_bound: u32,
    trace: bool,
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
        pick: vec![0; init_regs.len()],
        ctrl: 0,
        pctrl: 0,
        stored: vec![(0, 0); prog.init.len()],
        loops: vec![0; n_loops],
        events: Vec::new(),
        trace: Vec::new(),
        reserved: None,
        end: None,
    };
    let cells = prog.layout();
    let through_memory = prog.dialect.deps_through_memory();
    let status_deps = prog.dialect.status_carries_deps();
    let arm_cas = prog.dialect.cas_as_arm();
    let mut out = Vec::new();
    let mut stack = vec![start];
    while let Some(mut s) = stack.pop() {
        if let Some(end) = s.end {
            out.push(Run { events: s.events, regs: s.regs, end, trace: s.trace });
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
            if trace {
                s.trace.push(Step { pc: s.pc as u32, first: s.events.len() as u32, alt: 0 });
            }
            let mut next = s.pc + 1;
            // A value, the reads it depends on, and those with picks.
            let val = |s: &St, o: Operand| match o {
                Operand::Imm(v) => (v, 0, 0),
                Operand::Reg(r) => (s.regs[r as usize], s.taint[r as usize], s.pick[r as usize]),
            };
            let addr_taint = |s: &St, a: Addr| match a {
                Addr::Fixed(_) => (0, 0),
                Addr::Indexed { index, .. } => {
                    let (_, d, p) = val(s, index);
                    (d, p)
                }
                Addr::Computed { base, index, .. } => {
                    let of = |r: Option<Reg>| r.map_or((0, 0), |r| (s.taint[r as usize], s.pick[r as usize]));
                    let (b, i) = (of(base), of(index.map(|(r, _)| r)));
                    (b.0 | i.0, b.1 | i.1)
                }
            };
            // What a new event depends on: its address, its data, the branches.
            let deps = |s: &St, (a, pa): (u64, u64), (d, pd): (u64, u64)| Deps {
                addr: a,
                data: d,
                ctrl: s.ctrl,
                pick: [pa, pd, s.pctrl],
            };
            // A read's value: itself, and what the last write of its thread to
            // that cell depended on where dependencies go through memory.
            let read_taint = |s: &St, cell: Cell, me: u64| {
                let (d, p) = if through_memory { s.stored[cell as usize] } else { (0, 0) };
                (me | d, me | p)
            };
            match ins {
                Instr::Mov { dst, src } => {
                    let (v, d, p) = val(&s, src);
                    s.set(dst, v, d, p);
                }
                Instr::Un { dst, op, a } => {
                    let (v, d, p) = val(&s, a);
                    s.set(dst, op.eval(v), d, p);
                }
                Instr::Bin { dst, op, a, b, stmt } => {
                    let ((va, da, pa), (vb, db, pb)) = (val(&s, a), val(&s, b));
                    match op.eval(va, vb) {
                        Some(v) => s.set(dst, v, da | db, pa | pb),
                        None => break Stop::End(End::Failed(stmt, FailureKind::DivisionByZero)),
                    }
                }
                // The chosen operand's dependencies; the condition's only as picks.
                Instr::Select { dst, cond, a, b } => {
                    let (c, dc, pc) = val(&s, cond);
                    let (v, d, p) = val(&s, if c != 0 { a } else { b });
                    if let (Some(step), true) = (s.trace.last_mut(), c == 0) {
                        step.alt = ALT_SECOND;
                    }
                    s.set(dst, v, d, p | dc | pc);
                }
                Instr::Jump { target } => next = target as usize,
                Instr::Branch { cond, if_nonzero, target } => {
                    let (v, d, p) = val(&s, cond);
                    s.ctrl |= d;
                    s.pctrl |= p;
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
                    let (v, d, p) = val(&s, cond);
                    s.ctrl |= d;
                    s.pctrl |= p;
                    if v == 0 {
                        break Stop::End(End::Stuck);
                    }
                }
                Instr::Halt => break Stop::End(End::Done),
                Instr::Fence { kind, stmt } => {
                    let dp = deps(&s, (0, 0), (0, 0));
                    s.push(Kind::Fence(kind), 0, 0, 0, kind.labels(), stmt, dp);
                }
                Instr::Store { addr, val: v, labels, stmt } => {
                    let cell = match resolve(&s.regs, addr, &cells) {
                        Ok(c) => c,
                        Err(k) => break Stop::End(End::Failed(stmt, k)),
                    };
                    let (value, d, p) = val(&s, v);
                    let dp = deps(&s, addr_taint(&s, addr), (d, p));
                    s.push(Kind::Write, cell, 0, value, labels, stmt, dp);
                }
                Instr::Load { dst, addr, labels, stmt, .. } => {
                    let cell = match resolve(&s.regs, addr, &cells) {
                        Ok(c) => c,
                        Err(k) => break Stop::End(End::Failed(stmt, k)),
                    };
                    let dp = deps(&s, addr_taint(&s, addr), (0, 0));
                    let me = 1u64 << s.events.len().min(63);
                    let (d, p) = read_taint(&s, cell, me);
                    if labels.contains(Labels::EX) {
                        s.reserved = Some((cell, false));
                    }
                    // One run per value the read may take, each on the stack.
                    for &v in domain[cell as usize].iter().rev() {
                        let mut b = St { pc: next, ..s.clone() };
                        b.set(dst, v, d, p);
                        b.push(Kind::Read, cell, v, 0, labels, stmt, dp);
                        stack.push(b);
                    }
                    break Stop::Forked;
                }
                Instr::StoreCond { status, addr, val: v, labels, stmt } => {
                    let cell = match resolve(&s.regs, addr, &cells) {
                        Ok(c) => c,
                        Err(k) => break Stop::End(End::Failed(stmt, k)),
                    };
                    // herd's two runs: it fails (status 1, no event), or,
                    // where the reservation is this cell, it writes (status 0).
                    let reserved = s.reserved.take() == Some((cell, false));
                    let mut fail = St { pc: next, ..s.clone() };
                    fail.set(status, 1, 0, 0);
                    if reserved {
                        let (value, d, p) = val(&s, v);
                        let at = addr_taint(&s, addr);
                        let dp = deps(&s, at, (d, p));
                        let mut ok = St { pc: next, ..s.clone() };
                        // herd's RISC-V: a success's status depends on its
                        // write and its address (`SwitchDepScWrite`,
                        // `SwitchDepScResult`, both on there, off on AArch64).
                        let me = 1u64 << ok.events.len().min(63);
                        let (sd, sp) = if status_deps { (me | at.0, me | at.1) } else { (0, 0) };
                        ok.push(Kind::Write, cell, 0, value, labels, stmt, dp);
                        ok.set(status, 0, sd, sp);
                        stack.push(ok);
                    }
                    stack.push(fail);
                    break Stop::Forked;
                }
                Instr::Pair { op, addr, second, labels, order, stmt } => {
                    let c1 = match resolve(&s.regs, addr, &cells) {
                        Ok(c) => c,
                        Err(k) => break Stop::End(End::Failed(stmt, k)),
                    };
                    let Some(c2) = cells.cell(cells.address(c1).wrapping_add(second)) else {
                        break Stop::End(End::Failed(stmt, FailureKind::BadAddress));
                    };
                    let at = addr_taint(&s, addr);
                    let n = s.events.len();
                    let me = [1u64 << n.min(63), 1u64 << (n + 1).min(63)];
                    let (t1, t2) = (read_taint(&s, c1, me[0]), read_taint(&s, c2, me[1]));
                    match op {
                        PairOp::Store { val: vals } => {
                            for (c, v) in [(c1, vals[0]), (c2, vals[1])] {
                                let (value, d, p) = val(&s, v);
                                let dp = deps(&s, at, (d, p));
                                s.push(Kind::Write, c, 0, value, labels, stmt, dp);
                            }
                            s.join(order);
                        }
                        PairOp::Load { dst } => {
                            if labels.contains(Labels::EX) {
                                s.reserved = Some((c1, true));
                            }
                            let dp = deps(&s, at, (0, 0));
                            for &v1 in domain[c1 as usize].iter().rev() {
                                for &v2 in domain[c2 as usize].iter().rev() {
                                    let mut b = St { pc: next, ..s.clone() };
                                    b.set(dst[0], v1, t1.0, t1.1);
                                    b.set(dst[1], v2, t2.0, t2.1);
                                    b.push(Kind::Read, c1, v1, 0, labels, stmt, dp);
                                    b.push(Kind::Read, c2, v2, 0, labels, stmt, dp);
                                    b.join(order);
                                    stack.push(b);
                                }
                            }
                            break Stop::Forked;
                        }
                        // herd's: both writes or none, as one store-exclusive.
                        PairOp::StoreCond { status, val: vals } => {
                            let reserved = s.reserved.take() == Some((c1, true));
                            let mut fail = St { pc: next, ..s.clone() };
                            fail.set(status, 1, 0, 0);
                            if reserved {
                                let mut ok = St { pc: next, ..s.clone() };
                                for (c, v) in [(c1, vals[0]), (c2, vals[1])] {
                                    let (value, d, p) = val(&s, v);
                                    let dp = deps(&s, at, (d, p));
                                    ok.push(Kind::Write, c, 0, value, labels, stmt, dp);
                                }
                                ok.join(order);
                                ok.set(status, 0, 0, 0);
                                stack.push(ok);
                            }
                            stack.push(fail);
                            break Stop::Forked;
                        }
                        PairOp::Cas { old, new, fail } => {
                            let e = [val(&s, Operand::Reg(old[0])), val(&s, Operand::Reg(old[1]))];
                            let w = [val(&s, new[0]), val(&s, new[1])];
                            // herd's pair pieces feed one another crosswise:
                            // each half's value and register depend on both.
                            let (rd, rp) = (t1.0 | t2.0, t1.1 | t2.1);
                            let (ed, ep) = (e[0].1 | e[1].1, e[0].2 | e[1].2);
                            let (wd, wp) = (w[0].1 | w[1].1, w[0].2 | w[1].2);
                            let cmp = ep | rp;
                            for &v1 in domain[c1 as usize].iter().rev() {
                                for &v2 in domain[c2 as usize].iter().rev() {
                                    let b = St { pc: next, ..s.clone() };
                                    let mut ways: Vec<PairWay> = Vec::with_capacity(2);
                                    if v1 == e[0].0 && v2 == e[1].0 {
                                        let written = Some([w[0].0, w[1].0]);
                                        let data = (wd, wp | cmp);
                                        let (through, alt) = ((0, cmp), CAS_FROM_READ);
                                        ways.push(PairWay { written, data, through, regs: (rd, rp), alt });
                                        let (regs, alt) = ((ed, ep | rp), CAS_FROM_EXPECTED);
                                        ways.push(PairWay { written, data, through, regs, alt });
                                    } else {
                                        let (data, through) = ((0, 0), (0, 0));
                                        ways.push(PairWay {
                                            written: None,
                                            data,
                                            through,
                                            regs: (rd, rp),
                                            alt: CAS_FAIL,
                                        });
                                        let written = Some([v1, v2]);
                                        let (data, through, alt) = ((0, cmp), (rd, rp | cmp), CAS_FAIL_WRITE_BACK);
                                        ways.push(PairWay { written, data, through, regs: (rd, rp), alt });
                                    }
                                    for PairWay { written, data, through, regs, alt } in ways {
                                        let mut b = b.clone();
                                        if let Some(step) = b.trace.last_mut() {
                                            step.alt = alt;
                                        }
                                        b.set(old[0], v1, regs.0, regs.1);
                                        b.set(old[1], v2, regs.0, regs.1);
                                        for (k, (c, v)) in [(c1, v1), (c2, v2)].into_iter().enumerate() {
                                            match written {
                                                Some(x) => {
                                                    let dp = deps(&b, at, data);
                                                    b.push(Kind::Update, c, v, x[k], labels, stmt, dp);
                                                    let st = &mut b.stored[c as usize];
                                                    st.0 |= through.0;
                                                    st.1 |= through.0 | through.1;
                                                }
                                                None => {
                                                    let dp = deps(&b, at, (0, 0));
                                                    b.push(Kind::Read, c, v, 0, fail, stmt, dp);
                                                }
                                            }
                                        }
                                        b.join(order);
                                        stack.push(b);
                                    }
                                }
                            }
                            break Stop::Forked;
                        }
                    }
                }
                Instr::Rmw { dst, addr, op, labels, stmt } => {
                    let cell = match resolve(&s.regs, addr, &cells) {
                        Ok(c) => c,
                        Err(k) => break Stop::End(End::Failed(stmt, k)),
                    };
                    let at = addr_taint(&s, addr);
                    let me = 1u64 << s.events.len().min(63);
                    let (rd, rp) = read_taint(&s, cell, me);
                    for &v in domain[cell as usize].iter().rev() {
                        let b = St { pc: next, ..s.clone() };
                        // Each way the instruction may run: what it writes (if
                        // anything) and that value's dependencies, what it
                        // adds to them through memory (its own read), and
                        // what the old value's register depends on.
                        let mut ways: Vec<RmwWay> = Vec::with_capacity(2);
                        let old = (rd, rp);
                        match op {
                            RmwOp::Xchg(o) => {
                                let (w, d, p) = val(&b, o);
                                ways.push(RmwWay { write: Some((w, d, p)), through: (0, 0), old, alt: 0 });
                            }
                            RmwOp::Fetch(f, o) => {
                                let (x, d, p) = val(&b, o);
                                match f.eval(v, x) {
                                    // The value written comes from the read too.
                                    Some(w) => {
                                        ways.push(RmwWay { write: Some((w, d, p)), through: (rd, rp), old, alt: 0 })
                                    }
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
                                let (e, ed, ep) = val(&b, expected);
                                let (w, d, p) = val(&b, new);
                                // The comparison (of the read with `expected`)
                                // decides the write: a pick dependency.
                                let cmp = ep | rp;
                                if v == e {
                                    ways.push(RmwWay {
                                        write: Some((w, d, p | cmp)),
                                        through: (0, cmp),
                                        old,
                                        alt: CAS_FROM_READ,
                                    });
                                    if arm_cas {
                                        // herd's AArch64: the old value's register
                                        // may take its value from `expected`.
                                        ways.push(RmwWay {
                                            write: Some((w, d, p | cmp)),
                                            through: (0, cmp),
                                            old: (ed, ep | rp),
                                            alt: CAS_FROM_EXPECTED,
                                        });
                                    }
                                } else {
                                    ways.push(RmwWay { write: None, through: (0, 0), old, alt: CAS_FAIL });
                                    if arm_cas {
                                        // … and a failing one may write back what it read.
                                        ways.push(RmwWay {
                                            write: Some((v, 0, cmp)),
                                            through: (rd, rp | cmp),
                                            old,
                                            alt: CAS_FAIL_WRITE_BACK,
                                        });
                                    }
                                }
                            }
                            RmwOp::Lock => {
                                ways.push(RmwWay { write: (v == 0).then_some((1, 0, 0)), through: (0, 0), old, alt: 0 })
                            }
                        }
                        for way in ways {
                            let mut b = b.clone();
                            if let Some(step) = b.trace.last_mut() {
                                step.alt = way.alt;
                            }
                            b.set(dst, v, way.old.0, way.old.1);
                            let (kind, value, data, labels) = match (way.write, op) {
                                (Some((w, d, p)), _) => (Kind::Update, w, (d, p), labels),
                                // A cas that fails only reads, with its failure order.
                                (None, RmwOp::Cas { fail: Some(f), .. }) => (Kind::Read, 0, (0, 0), f),
                                (None, _) => (Kind::AtomicRead, 0, (0, 0), labels),
                            };
                            let dp = deps(&b, at, data);
                            b.push(kind, cell, v, value, labels, stmt, dp);
                            if kind == Kind::Update {
                                let st = &mut b.stored[cell as usize];
                                st.0 |= way.through.0;
                                st.1 |= way.through.0 | way.through.1;
                            }
                            if matches!(op, RmwOp::Lock) && way.write.is_none() {
                                // A taken lock: the thread waits forever here.
                                b.end = Some(End::Stuck);
                            }
                            stack.push(b);
                        }
                    }
                    break Stop::Forked;
                }
            }
            s.pc = next;
        };
        if let Stop::End(end) = stop {
            out.push(Run { events: s.events, regs: s.regs, end, trace: s.trace });
        }
    }
    Ok(out)
}
