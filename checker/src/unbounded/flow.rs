//! What the stateful search needs to know about each thread's code before it
//! starts: the control-flow successors of every instruction, which
//! registers are live at each pc (a dead register is left out of a state's
//! key: two states that differ only there have the same future), and which
//! cells the thread may still read or write from each pc on (the partial-order
//! reduction's independence, and the attack search's pruning).

use crate::machine::{Machine, State, ThreadStatus};
use litmus_ir::{Addr, Cell, CondExpr, Instr, ObservableKind, Operand, Program, Reg, RmwOp};

/// A fixed-size bit set (registers or cell slots).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bits(Vec<u64>);

impl Bits {
    pub fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub fn has(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    /// `self |= o`; whether anything changed.
    fn union(&mut self, o: &Bits) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    /// The first 64 bits.
    pub fn word0(&self) -> u64 {
        self.0.first().copied().unwrap_or(0)
    }
    pub fn intersects(&self, o: &Bits) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        crate::bitset::ones(&self.0)
    }
}

/// Where control may go after `code[pc]` (a pc equal to `code.len()` is the
/// thread's end). A failed `await` leaves its thread stuck for good, so its
/// check continues only forward.
pub fn successors(code: &[Instr], pc: usize) -> impl Iterator<Item = usize> {
    let (a, b) = match code.get(pc) {
        None | Some(Instr::Halt) => (None, None),
        Some(Instr::Jump { target }) => (Some(*target as usize), None),
        Some(Instr::Branch { target, .. }) => (Some(pc + 1), Some(*target as usize)),
        Some(_) => (Some(pc + 1), None),
    };
    a.into_iter().chain(b)
}

/// The registers an instruction reads.
fn uses(ins: &Instr, out: &mut Vec<Reg>) {
    ins.read_regs(&mut |r| out.push(r))
}

fn cond_regs(e: &CondExpr, thread: u16, out: &mut Vec<Reg>) {
    match e {
        CondExpr::Reg { thread: t, reg } if *t == thread => out.push(*reg),
        CondExpr::Un(_, a) => cond_regs(a, thread, out),
        CondExpr::Bin(_, a, b) => {
            cond_regs(a, thread, out);
            cond_regs(b, thread, out);
        }
        _ => {}
    }
}

fn cond_cells(e: &CondExpr, out: &mut Vec<Cell>) {
    match e {
        CondExpr::Mem(c) => out.push(*c),
        CondExpr::Un(_, a) => cond_cells(a, out),
        CondExpr::Bin(_, a, b) => {
            cond_cells(a, out);
            cond_cells(b, out);
        }
        _ => {}
    }
}

/// The per-thread tables.
pub struct Flow {
    /// `[thread][pc]`: registers live before `code[pc]` (index `code.len()`:
    /// at the thread's end, those the final condition observes).
    pub live: Vec<Vec<Bits>>,
    /// `[thread][pc]`: cell slots (`Machine::touched` order) the thread may
    /// read from `pc` on, and may write.
    pub reads: Vec<Vec<Bits>>,
    pub writes: Vec<Vec<Bits>>,
    /// Cell slots the final state observes (observables, condition, filter).
    pub observed: Bits,
    /// The largest magnitude of a constant in the program (growth detection).
    pub max_constant: i64,
}

impl Flow {
    /// Cell slots some future of `st` reads: a running (or stuck: its
    /// await is what a deadlock reports) thread may still read it, or the
    /// final state observes it. `None` past 64 slots (then every cell).
    pub fn live_cells(&self, st: &State) -> Option<u64> {
        if st.mem().len() > 64 {
            return None;
        }
        let mut live = self.observed.word0();
        for (t, status) in st.threads.iter().enumerate() {
            if matches!(status, ThreadStatus::Running | ThreadStatus::Stuck) {
                live |= self.reads_at(t, st.pc_at(t)).word0();
            }
        }
        Some(live)
    }

    /// The cell slots thread `t` may still read standing at `pc` (past its
    /// end: none).
    pub fn reads_at(&self, t: usize, pc: u32) -> &Bits {
        let reads = &self.reads[t];
        &reads[(pc as usize).min(reads.len() - 1)]
    }

    pub fn new(prog: &Program, m: &Machine<'_>) -> Flow {
        let slots = m.touched().len();
        let slot = |c: u32| m.touched().binary_search(&c).ok();
        let mut live = Vec::new();
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for t in 0..prog.threads.len() {
            live.push(liveness(prog, t));
            let (rd, wr) = reachable_cells(&prog.threads[t].code, slots, &slot);
            reads.push(rd);
            writes.push(wr);
        }
        let mut observed = Bits::new(slots);
        let mut cells = Vec::new();
        for o in &prog.observables {
            if let ObservableKind::Mem(c) = o.kind {
                cells.push(c);
            }
        }
        for e in prog.condition.iter().map(|c| &c.expr).chain(prog.filter.as_ref()) {
            cond_cells(e, &mut cells);
        }
        // A cell outside the table is observed whole (nothing is dropped).
        for c in cells {
            match slot(c) {
                Some(s) => observed.set(s),
                None => (0..slots).for_each(|s| observed.set(s)),
            }
        }
        Flow { live, reads, writes, observed, max_constant: max_constant(prog) }
    }
}

/// Thread `t`'s live registers before each pc (and at its end: those the
/// condition, filter and observables read): backward, to a fixpoint.
fn liveness(prog: &Program, t: usize) -> Vec<Bits> {
    let th = &prog.threads[t];
    let code = &th.code;
    let n = code.len();
    let nregs = th.regs.len();
    let mut lv = vec![Bits::new(nregs); n + 1];
    let mut out = Vec::new();
    for o in &prog.observables {
        if let ObservableKind::Reg { thread, reg } = o.kind {
            if thread as usize == t {
                out.push(reg);
            }
        }
    }
    if let Some(c) = &prog.condition {
        cond_regs(&c.expr, t as u16, &mut out);
    }
    if let Some(f) = &prog.filter {
        cond_regs(f, t as u16, &mut out);
    }
    for r in out {
        if (r as usize) < nregs {
            lv[n].set(r as usize);
        }
    }
    let mut buf = Vec::new();
    loop {
        let mut changed = false;
        for pc in (0..n).rev() {
            let mut s = Bits::new(nregs);
            for q in successors(code, pc) {
                s.union(&lv[q.min(n)]);
            }
            for d in code[pc].written_regs() {
                s.0[d as usize / 64] &= !(1 << (d as usize % 64));
            }
            buf.clear();
            uses(&code[pc], &mut buf);
            for &r in &buf {
                s.set(r as usize);
            }
            changed |= lv[pc].union(&s);
        }
        if !changed {
            return lv;
        }
    }
}

/// Per pc, the cell slots the thread may read and write from there on:
/// a forward closure, computed backward to a fixpoint.
fn reachable_cells(code: &[Instr], slots: usize, slot: &impl Fn(u32) -> Option<usize>) -> (Vec<Bits>, Vec<Bits>) {
    let n = code.len();
    let mut rd = vec![Bits::new(slots); n + 1];
    let mut wr = vec![Bits::new(slots); n + 1];
    let mut own_r = vec![Bits::new(slots); n];
    let mut own_w = vec![Bits::new(slots); n];
    for (pc, ins) in code.iter().enumerate() {
        let cells = |a: Addr, b: &mut Bits| match a {
            Addr::Fixed(c) => {
                if let Some(s) = slot(c) {
                    b.set(s)
                }
            }
            Addr::Indexed { base, len, .. } => (base..base + len).filter_map(slot).for_each(|s| b.set(s)),
            Addr::Computed { .. } => (0..slots).for_each(|s| b.set(s)),
        };
        match *ins {
            Instr::Load { addr, .. } => cells(addr, &mut own_r[pc]),
            Instr::Store { addr, .. } => cells(addr, &mut own_w[pc]),
            Instr::Rmw { addr, .. } => {
                cells(addr, &mut own_r[pc]);
                cells(addr, &mut own_w[pc]);
            }
            _ => {}
        }
    }
    loop {
        let mut changed = false;
        for pc in (0..n).rev() {
            let mut r = own_r[pc].clone();
            let mut w = own_w[pc].clone();
            for q in successors(code, pc) {
                r.union(&rd[q.min(n)]);
                w.union(&wr[q.min(n)]);
            }
            // A failed check leaves its thread stuck at the await's start,
            // where a deadlock re-reads the condition: its cells stay live.
            if let Instr::AwaitCheck { start, .. } = code[pc] {
                r.union(&rd[start as usize]);
                w.union(&wr[start as usize]);
            }
            changed |= rd[pc].union(&r);
            changed |= wr[pc].union(&w);
        }
        if !changed {
            return (rd, wr);
        }
    }
}

/// The largest magnitude of a constant in the program: immediates, initial
/// registers and initial values that are not addresses.
fn max_constant(prog: &Program) -> i64 {
    let mut max_constant: i64 = 0;
    let mut consts = |o: Operand| {
        if let Operand::Imm(v) = o {
            max_constant = max_constant.max(v.checked_abs().unwrap_or(i64::MAX));
        }
    };
    for ins in prog.threads.iter().flat_map(|th| &th.code) {
        match *ins {
            Instr::Store { val, .. } | Instr::Mov { src: val, .. } => consts(val),
            Instr::Bin { a, b, .. } => {
                consts(a);
                consts(b);
            }
            Instr::Rmw { op: RmwOp::Xchg(v) | RmwOp::Fetch(_, v), .. } => consts(v),
            Instr::Rmw { op: RmwOp::Cas { expected, new, .. }, .. } => {
                consts(expected);
                consts(new);
            }
            _ => {}
        }
    }
    for &v in prog.threads.iter().flat_map(|th| &th.init_regs) {
        max_constant = max_constant.max(v.checked_abs().unwrap_or(i64::MAX));
    }
    let layout = prog.layout();
    for &v in &prog.init {
        // Pointers (herd) are addresses, not counts.
        if layout.cell(v).is_none() {
            max_constant = max_constant.max(v.checked_abs().unwrap_or(i64::MAX));
        }
    }
    max_constant
}
