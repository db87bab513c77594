//! The interpreter of the IR under SC, TSO and PSO: a compact state and a
//! step function that does not allocate (states are reused with
//! `clone_from`).
//!
//! A *process* is either a thread or a store buffer (TSO: one per thread;
//! PSO: one per thread and cell). A thread's *transition* is one visible
//! operation followed by every local instruction up to its next visible one:
//! register arithmetic, branches, asserts, fences that need no draining and,
//! under TSO/PSO, stores (they only append to the thread's own buffer; the
//! commit that follows is what other threads see). Loads are always visible,
//! even when they forward from the buffer: whether they forward depends on
//! when the buffer commits.

use litmus_dsl::ir::{self, Addr, Cell, Instr, Operand, Program, Reg, RmwOp, StmtId};
use litmus_dsl::FenceKind;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Model {
    Sc,
    Tso,
    Pso,
}

impl Model {
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Sc => "sc",
            Model::Tso => "tso",
            Model::Pso => "pso",
        }
    }
    pub fn upper(self) -> &'static str {
        match self {
            Model::Sc => "SC",
            Model::Tso => "TSO",
            Model::Pso => "PSO",
        }
    }
}

pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    Load,
    /// SC: a store to memory. TSO/PSO: a store into the thread's buffer.
    Store,
    /// TSO/PSO: a buffered store reaching memory.
    Commit,
    Rmw,
    Fence(FenceKind),
}

/// One memory event of an execution, in execution order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub thread: u16,
    pub kind: EventKind,
    /// `NONE` for fences.
    pub cell: Cell,
    /// Loads: the value read. Stores/commits: the value written. Rmw: written.
    pub value: i64,
    /// Rmw: the value read.
    pub old: i64,
    pub stmt: StmtId,
    /// Loads and Rmw: the event whose value was read (a store, commit or
    /// rmw; for a forwarded load, the buffered store); `NONE` = initial value.
    pub rf: u32,
    /// Commits: the store event being committed.
    pub store: u32,
    /// The exploration transition this event belongs to.
    pub step: u32,
}

impl Event {
    pub fn is_write(&self) -> bool {
        matches!(self.kind, EventKind::Store | EventKind::Commit | EventKind::Rmw)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailureKind {
    Assertion,
    IndexOutOfBounds,
    DivisionByZero,
    BadAddress,
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Assertion => "assertion failed",
            FailureKind::IndexOutOfBounds => "array index out of bounds",
            FailureKind::DivisionByZero => "division by zero",
            FailureKind::BadAddress => "invalid address",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CutReason {
    LoopBound,
    BufferBound,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Every thread finished and every buffer drained: a final state.
    Complete,
    /// Some thread failed an assertion or hit a run-time error.
    Failed,
    /// The loop bound stopped some thread.
    Cut,
    /// `assume` was false, or a thread is stuck on an `await` or `lock`.
    Pruned,
}

/// Where a thread stands. A thread that stops early (failed, cut, stuck)
/// does not stop the others: they run on, so exploration sees every write
/// that could have changed its course.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreadStatus {
    Running,
    Done,
    /// Its `await` evaluation or `lock` attempt failed: it waits forever in
    /// this execution (one where it succeeds later is explored separately).
    Stuck,
    /// `assume` was false: the execution is not one of the program's.
    Pruned,
    /// An assertion or run-time error; `at` is the log length just after it.
    Failed {
        stmt: StmtId,
        kind: FailureKind,
        at: u32,
    },
    /// The loop bound stopped it.
    Cut,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufEntry {
    pub cell: Cell,
    pub value: i64,
    /// The store event in the log.
    pub store: u32,
    /// The transition that buffered it (`NONE`: the initial local run).
    pub origin: u32,
}

/// A machine state. Everything is flat so `clone_from` reuses memory.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub mem: Vec<i64>,
    /// The event that last wrote each cell in memory (`NONE`: initial).
    pub writer: Vec<u32>,
    pub regs: Vec<i64>,
    pub pc: Vec<u32>,
    pub loops: Vec<u32>,
    pub threads: Vec<ThreadStatus>,
    /// TSO: one FIFO per thread; PSO: one per (thread, cell); SC: none.
    pub bufs: Vec<VecDeque<BufEntry>>,
    /// Some store had to wait for room in a buffer (the answer is bounded).
    pub buffer_bound_hit: bool,
}

impl Clone for State {
    fn clone(&self) -> Self {
        State {
            mem: self.mem.clone(),
            writer: self.writer.clone(),
            regs: self.regs.clone(),
            pc: self.pc.clone(),
            loops: self.loops.clone(),
            threads: self.threads.clone(),
            bufs: self.bufs.clone(),
            buffer_bound_hit: self.buffer_bound_hit,
        }
    }

    /// Field by field, reusing every allocation (the derived one would not):
    /// exploration copies a state per step.
    fn clone_from(&mut self, o: &Self) {
        self.mem.clone_from(&o.mem);
        self.writer.clone_from(&o.writer);
        self.regs.clone_from(&o.regs);
        self.pc.clone_from(&o.pc);
        self.loops.clone_from(&o.loops);
        self.threads.clone_from(&o.threads);
        self.bufs.clone_from(&o.bufs);
        self.buffer_bound_hit = o.buffer_bound_hit;
    }
}

impl State {
    pub fn running(&self, t: usize) -> bool {
        self.threads[t] == ThreadStatus::Running
    }
}

/// What a process's next transition touches: enough to decide dependence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub proc: u32,
    pub owner: u16,
    pub cell: Cell,
    pub write: bool,
    pub is_commit: bool,
}

struct AwaitInfo {
    start: u32,
    check: u32,
}

pub struct Machine<'p> {
    pub prog: &'p Program,
    pub model: Model,
    pub loop_bound: u32,
    pub buffer_bound: u32,
    pub threads: usize,
    pub cells: usize,
    reg_base: Vec<usize>,
    loop_base: Vec<usize>,
    /// Per thread, per pc: the await region containing it.
    awaits: Vec<Vec<Option<usize>>>,
    await_info: Vec<Vec<AwaitInfo>>,
    /// Registers of a dry run (reused, so enabledness checks do not allocate).
    scratch: std::cell::RefCell<Vec<i64>>,
}

impl<'p> Machine<'p> {
    pub fn new(prog: &'p Program, model: Model, loop_bound: u32, buffer_bound: u32) -> Self {
        let mut reg_base = Vec::new();
        let mut loop_base = Vec::new();
        let (mut r, mut l) = (0, 0);
        let mut awaits = Vec::new();
        let mut await_info = Vec::new();
        for t in &prog.threads {
            reg_base.push(r);
            loop_base.push(l);
            r += t.regs.len();
            l += t.loops as usize;
            let mut map = vec![None; t.code.len() + 1];
            let mut infos = Vec::new();
            for (pc, ins) in t.code.iter().enumerate() {
                if let Instr::AwaitStart { check, .. } = *ins {
                    let end = (check as usize).min(t.code.len().saturating_sub(1));
                    let at = infos.len();
                    map.iter_mut().take(end + 1).skip(pc).for_each(|m| *m = Some(at));
                    infos.push(AwaitInfo { start: pc as u32, check });
                }
            }
            awaits.push(map);
            await_info.push(infos);
        }
        reg_base.push(r);
        loop_base.push(l);
        Machine {
            prog,
            model,
            loop_bound,
            buffer_bound: buffer_bound.max(1),
            threads: prog.threads.len(),
            cells: prog.mem_size(),
            reg_base,
            loop_base,
            awaits,
            await_info,
            scratch: std::cell::RefCell::new(Vec::new()),
        }
    }

    pub fn procs(&self) -> usize {
        match self.model {
            Model::Sc => self.threads,
            Model::Tso => 2 * self.threads,
            Model::Pso => self.threads + self.threads * self.cells,
        }
    }

    /// The thread a process belongs to.
    pub fn owner(&self, proc: usize) -> usize {
        if proc < self.threads {
            proc
        } else {
            match self.model {
                Model::Sc => proc,
                Model::Tso => proc - self.threads,
                Model::Pso => (proc - self.threads) / self.cells.max(1),
            }
        }
    }

    pub fn is_buffer(&self, proc: usize) -> bool {
        proc >= self.threads
    }

    fn buf_index(&self, thread: usize, cell: Cell) -> usize {
        match self.model {
            Model::Sc => usize::MAX,
            Model::Tso => thread,
            Model::Pso => thread * self.cells + cell as usize,
        }
    }

    /// The initial state, with every thread run up to its first visible operation.
    pub fn initial(&self, log: &mut Vec<Event>) -> State {
        let mut regs = Vec::with_capacity(self.reg_base[self.threads]);
        for t in &self.prog.threads {
            regs.extend_from_slice(&t.init_regs);
        }
        let nbufs = match self.model {
            Model::Sc => 0,
            Model::Tso => self.threads,
            Model::Pso => self.threads * self.cells,
        };
        let mut st = State {
            mem: self.prog.init.clone(),
            writer: vec![NONE; self.cells],
            regs,
            pc: vec![0; self.threads],
            loops: vec![0; self.loop_base[self.threads]],
            threads: vec![ThreadStatus::Running; self.threads],
            bufs: vec![VecDeque::new(); nbufs],
            buffer_bound_hit: false,
        };
        for t in 0..self.threads {
            self.run_local(&mut st, t, NONE, log);
        }
        st
    }

    #[inline]
    fn reg(&self, st: &State, t: usize, r: Reg) -> i64 {
        st.regs[self.reg_base[t] + r as usize]
    }

    #[inline]
    fn set_reg(&self, st: &mut State, t: usize, r: Reg, v: i64) {
        st.regs[self.reg_base[t] + r as usize] = v;
    }

    #[inline]
    fn val(&self, st: &State, t: usize, o: Operand) -> i64 {
        match o {
            Operand::Imm(v) => v,
            Operand::Reg(r) => self.reg(st, t, r),
        }
    }

    /// The cell an address denotes, or the failure it causes.
    fn cell_of(&self, st: &State, t: usize, a: Addr) -> Result<Cell, FailureKind> {
        self.cell_in(&st.regs[self.reg_base[t]..self.reg_base[t + 1]], a)
    }

    /// The same, given the thread's registers.
    fn cell_in(&self, regs: &[i64], a: Addr) -> Result<Cell, FailureKind> {
        let val = |o: Operand| match o {
            Operand::Imm(v) => v,
            Operand::Reg(r) => regs[r as usize],
        };
        match a {
            Addr::Fixed(c) => Ok(c),
            Addr::Indexed { base, len, index } => {
                let i = val(index);
                if i >= 0 && i < len as i64 {
                    Ok(base + i as u32)
                } else {
                    Err(FailureKind::IndexOutOfBounds)
                }
            }
            Addr::Computed { base, index, disp } => {
                let mut a = disp;
                if let Some(b) = base {
                    a = a.wrapping_add(regs[b as usize]);
                }
                if let Some((r, s)) = index {
                    a = a.wrapping_add(regs[r as usize].wrapping_mul(s));
                }
                ir::address_cell(a, self.cells).ok_or(FailureKind::BadAddress)
            }
        }
    }

    fn fail(&self, st: &mut State, t: usize, stmt: StmtId, kind: FailureKind, log: &[Event]) {
        st.threads[t] = ThreadStatus::Failed { stmt, kind, at: log.len() as u32 };
    }

    /// Does this fence need the buffers drained under this model?
    pub fn fence_drains(&self, kind: FenceKind) -> bool {
        match self.model {
            Model::Sc => false,
            Model::Tso => matches!(kind, FenceKind::Full | FenceKind::WR),
            Model::Pso => !matches!(kind, FenceKind::RR),
        }
    }

    fn thread_buffers_empty(&self, st: &State, t: usize) -> bool {
        match self.model {
            Model::Sc => true,
            Model::Tso => st.bufs[t].is_empty(),
            Model::Pso => st.bufs[t * self.cells..(t + 1) * self.cells].iter().all(|b| b.is_empty()),
        }
    }

    fn buffered(&self, st: &State, t: usize) -> usize {
        match self.model {
            Model::Sc => 0,
            Model::Tso => st.bufs[t].len(),
            Model::Pso => st.bufs[t * self.cells..(t + 1) * self.cells].iter().map(|b| b.len()).sum(),
        }
    }

    /// Must this rmw wait for buffers to drain first (and which)?
    fn rmw_ready(&self, st: &State, t: usize, cell: Cell, x86_locked: bool) -> bool {
        match self.model {
            Model::Sc => true,
            Model::Tso => st.bufs[t].is_empty(),
            Model::Pso if x86_locked => self.thread_buffers_empty(st, t),
            Model::Pso => st.bufs[self.buf_index(t, cell)].is_empty(),
        }
    }

    /// The value a load by `t` of `cell` sees, and the event it reads from.
    fn read(&self, st: &State, t: usize, cell: Cell) -> (i64, u32) {
        match self.model {
            Model::Sc => {}
            Model::Tso => {
                if let Some(e) = st.bufs[t].iter().rev().find(|e| e.cell == cell) {
                    return (e.value, e.store);
                }
            }
            Model::Pso => {
                if let Some(e) = st.bufs[self.buf_index(t, cell)].back() {
                    return (e.value, e.store);
                }
            }
        }
        (st.mem[cell as usize], st.writer[cell as usize])
    }

    /// Run thread `t`'s local instructions until its next visible one.
    /// `step` is the transition these instructions belong to.
    pub fn run_local(&self, st: &mut State, t: usize, step: u32, log: &mut Vec<Event>) {
        let code = &self.prog.threads[t].code;
        loop {
            if !st.running(t) {
                return;
            }
            let pc = st.pc[t] as usize;
            let Some(&ins) = code.get(pc) else {
                st.threads[t] = ThreadStatus::Done;
                return;
            };
            let mut next = pc as u32 + 1;
            match ins {
                Instr::Mov { dst, src } => {
                    let v = self.val(st, t, src);
                    self.set_reg(st, t, dst, v);
                }
                Instr::Un { dst, op, a } => {
                    let v = op.eval(self.val(st, t, a));
                    self.set_reg(st, t, dst, v);
                }
                Instr::Bin { dst, op, a, b, stmt } => match op.eval(self.val(st, t, a), self.val(st, t, b)) {
                    Some(v) => self.set_reg(st, t, dst, v),
                    None => return self.fail(st, t, stmt, FailureKind::DivisionByZero, log),
                },
                Instr::Jump { target } => next = target,
                Instr::Branch { cond, if_nonzero, target } => {
                    if (self.val(st, t, cond) != 0) == if_nonzero {
                        next = target;
                    }
                }
                Instr::LoopEnter { id } => st.loops[self.loop_base[t] + id as usize] = 0,
                Instr::LoopIter { id, .. } => {
                    let c = &mut st.loops[self.loop_base[t] + id as usize];
                    *c += 1;
                    if *c > self.loop_bound {
                        st.threads[t] = ThreadStatus::Cut;
                        return;
                    }
                }
                Instr::Assert { cond, stmt } => {
                    if self.val(st, t, cond) == 0 {
                        return self.fail(st, t, stmt, FailureKind::Assertion, log);
                    }
                }
                Instr::Assume { cond, .. } => {
                    if self.val(st, t, cond) == 0 {
                        st.threads[t] = ThreadStatus::Pruned;
                        return;
                    }
                }
                Instr::AwaitStart { .. } => {}
                Instr::AwaitCheck { cond, start, .. } => {
                    if self.val(st, t, cond) == 0 {
                        // A failed evaluation only read: the thread waits
                        // here for good in this execution.
                        st.threads[t] = ThreadStatus::Stuck;
                        st.pc[t] = start;
                        return;
                    }
                }
                Instr::Halt => {
                    st.threads[t] = ThreadStatus::Done;
                    return;
                }
                Instr::Fence { kind, stmt } => {
                    if self.fence_drains(kind) && !self.thread_buffers_empty(st, t) {
                        return; // visible: waits for the buffers to drain
                    }
                    log.push(Event {
                        thread: t as u16,
                        kind: EventKind::Fence(kind),
                        cell: NONE,
                        value: 0,
                        old: 0,
                        stmt,
                        rf: NONE,
                        store: NONE,
                        step,
                    });
                }
                Instr::Store { addr, val, stmt } => {
                    if self.model == Model::Sc {
                        return;
                    }
                    let cell = match self.cell_of(st, t, addr) {
                        Ok(c) => c,
                        Err(k) => return self.fail(st, t, stmt, k, log),
                    };
                    if self.buffered(st, t) >= self.buffer_bound as usize {
                        st.buffer_bound_hit = true;
                        return; // visible: waits for a commit
                    }
                    let value = self.val(st, t, val);
                    self.issue_store(st, t, cell, value, stmt, step, log);
                }
                Instr::Load { .. } | Instr::Rmw { .. } => return,
            }
            st.pc[t] = next;
        }
    }

    /// The address whose buffer thread `t` waits on (PSO native atomic), or
    /// `NONE` when it waits for all of its buffers (or none).
    pub fn waits_for_cell(&self, st: &State, t: usize) -> Cell {
        if self.model != Model::Pso {
            return NONE;
        }
        match self.prog.threads[t].code.get(st.pc[t] as usize) {
            Some(&Instr::Rmw { addr, x86_locked: false, .. }) => self.cell_of(st, t, addr).unwrap_or(NONE),
            _ => NONE,
        }
    }

    /// A store by thread `t`: to memory under SC, into its buffer otherwise.
    #[allow(clippy::too_many_arguments)]
    fn issue_store(
        &self,
        st: &mut State,
        t: usize,
        cell: Cell,
        value: i64,
        stmt: StmtId,
        step: u32,
        log: &mut Vec<Event>,
    ) {
        let idx = log.len() as u32;
        log.push(Event {
            thread: t as u16,
            kind: EventKind::Store,
            cell,
            value,
            old: 0,
            stmt,
            rf: NONE,
            store: NONE,
            step,
        });
        if self.model == Model::Sc {
            st.mem[cell as usize] = value;
            st.writer[cell as usize] = idx;
        } else {
            let b = self.buf_index(t, cell);
            st.bufs[b].push_back(BufEntry { cell, value, store: idx, origin: step });
        }
    }

    /// Is `proc`'s next transition enabled? Only buffers can hold a thread
    /// back (a fence or atomic waits for them to drain, a store for room);
    /// an `await` or `lock` that would fail is attempted, and the thread
    /// gets stuck.
    pub fn enabled(&self, st: &State, proc: usize) -> bool {
        if proc >= self.threads {
            return !st.bufs[proc - self.threads].is_empty();
        }
        let t = proc;
        if !st.running(t) {
            return false;
        }
        match self.prog.threads[t].code.get(st.pc[t] as usize) {
            None => false,
            Some(&Instr::Store { .. }) => self.model == Model::Sc || self.buffered(st, t) < self.buffer_bound as usize,
            Some(&Instr::Rmw { addr, x86_locked, .. }) => match self.cell_of(st, t, addr) {
                Ok(cell) => self.rmw_ready(st, t, cell, x86_locked),
                Err(_) => true,
            },
            Some(Instr::Fence { .. }) => self.thread_buffers_empty(st, t),
            Some(_) => true,
        }
    }

    /// Would thread `t`'s pending `await` succeed if evaluated afresh now,
    /// atomically? (A fresh attempt: a failing one in progress is dropped.)
    pub fn dry_run_await(&self, st: &State, t: usize) -> bool {
        let Some(a) = self.awaits[t].get(st.pc[t] as usize).copied().flatten() else {
            return true;
        };
        let check = self.await_info[t][a].check as usize;
        let pc0 = self.await_info[t][a].start as usize + 1;
        let code = &self.prog.threads[t].code;
        let mut regs = self.scratch.borrow_mut();
        regs.clear();
        regs.extend_from_slice(&st.regs[self.reg_base[t]..self.reg_base[t + 1]]);
        let get = |regs: &[i64], o: Operand| match o {
            Operand::Imm(v) => v,
            Operand::Reg(r) => regs[r as usize],
        };
        let mut pc = pc0;
        for _ in 0..10_000 {
            if pc > check || pc >= code.len() {
                return true;
            }
            let mut next = pc + 1;
            match code[pc] {
                Instr::Load { dst, addr, .. } => {
                    let Ok(c) = self.cell_in(&regs, addr) else {
                        return true;
                    };
                    regs[dst as usize] = self.read(st, t, c).0;
                }
                Instr::Rmw { dst, addr, op, .. } => {
                    let Ok(c) = self.cell_in(&regs, addr) else {
                        return true;
                    };
                    let old = self.read(st, t, c).0;
                    if op == RmwOp::Lock && old != 0 {
                        return false;
                    }
                    regs[dst as usize] = old;
                }
                Instr::Mov { dst, src } => regs[dst as usize] = get(&regs, src),
                Instr::Un { dst, op, a } => regs[dst as usize] = op.eval(get(&regs, a)),
                Instr::Bin { dst, op, a, b, .. } => match op.eval(get(&regs, a), get(&regs, b)) {
                    Some(v) => regs[dst as usize] = v,
                    None => return true,
                },
                Instr::Jump { target } => next = target as usize,
                Instr::Branch { cond, if_nonzero, target } if (get(&regs, cond) != 0) == if_nonzero => {
                    next = target as usize;
                }
                Instr::AwaitCheck { cond, .. } => return get(&regs, cond) != 0,
                _ => {}
            }
            pc = next;
        }
        true
    }

    /// Would thread `t` wait forever if nothing else changed: stuck, or its
    /// next step is an `await`/`lock` that would fail now, or cannot happen?
    pub fn blocked(&self, st: &State, t: usize) -> bool {
        match st.threads[t] {
            ThreadStatus::Running | ThreadStatus::Stuck => {}
            _ => return false,
        }
        let pc = st.pc[t] as usize;
        if let Some(&Instr::Rmw { addr, op: RmwOp::Lock, .. }) = self.prog.threads[t].code.get(pc) {
            if let Ok(c) = self.cell_of(st, t, addr) {
                return st.mem[c as usize] != 0;
            }
        }
        if self.awaits[t].get(pc).copied().flatten().is_some() {
            return !self.dry_run_await(st, t);
        }
        st.threads[t] == ThreadStatus::Stuck || !self.enabled(st, t)
    }

    /// Some thread is unfinished, every unfinished one is blocked, and no
    /// buffer can commit: a deadlock.
    pub fn deadlocked(&self, st: &State) -> bool {
        let unfinished = |t: usize| matches!(st.threads[t], ThreadStatus::Running | ThreadStatus::Stuck);
        (0..self.threads).any(unfinished)
            && (0..self.threads).all(|t| !unfinished(t) || self.blocked(st, t))
            && st.bufs.iter().all(|b| b.is_empty())
    }

    /// How an execution that can take no further step ended.
    pub fn verdict(&self, st: &State) -> Verdict {
        let any = |f: fn(&ThreadStatus) -> bool| st.threads.iter().any(f);
        if any(|t| matches!(t, ThreadStatus::Failed { .. })) {
            Verdict::Failed
        } else if any(|t| *t == ThreadStatus::Cut) {
            Verdict::Cut
        } else if self.finished(st) {
            Verdict::Complete
        } else {
            Verdict::Pruned
        }
    }

    /// Every thread done and every buffer drained.
    pub fn finished(&self, st: &State) -> bool {
        st.threads.iter().all(|t| *t == ThreadStatus::Done) && st.bufs.iter().all(|b| b.is_empty())
    }

    /// What `proc`'s next transition accesses (call only when enabled).
    pub fn access(&self, st: &State, proc: usize) -> Access {
        let owner = self.owner(proc) as u16;
        let mut acc = Access { proc: proc as u32, owner, cell: NONE, write: false, is_commit: false };
        if proc >= self.threads {
            if let Some(e) = st.bufs[proc - self.threads].front() {
                acc.cell = e.cell;
                acc.write = true;
                acc.is_commit = true;
            }
            return acc;
        }
        let t = proc;
        match self.prog.threads[t].code.get(st.pc[t] as usize) {
            Some(&Instr::Load { addr, .. }) => {
                if let Ok(c) = self.cell_of(st, t, addr) {
                    acc.cell = c;
                }
            }
            Some(&Instr::Store { addr, .. }) if self.model == Model::Sc => {
                if let Ok(c) = self.cell_of(st, t, addr) {
                    acc.cell = c;
                    acc.write = true;
                }
            }
            Some(&Instr::Rmw { addr, op, .. }) => {
                if let Ok(c) = self.cell_of(st, t, addr) {
                    acc.cell = c;
                    // A lock attempt that fails only reads.
                    acc.write = !(op == RmwOp::Lock && st.mem[c as usize] != 0);
                }
            }
            _ => {}
        }
        acc
    }

    /// Execute `proc`'s next transition (it must be enabled). Returns the
    /// transitions that must precede it besides those on the same cell:
    /// for a commit, the transition that buffered the store.
    pub fn step(&self, st: &mut State, proc: usize, step: u32, log: &mut Vec<Event>) -> u32 {
        if proc >= self.threads {
            let b = proc - self.threads;
            let e = st.bufs[b].pop_front().expect("commit of an empty buffer");
            let t = self.owner(proc);
            let idx = log.len() as u32;
            let stmt = log.get(e.store as usize).map(|s| s.stmt).unwrap_or(0);
            log.push(Event {
                thread: t as u16,
                kind: EventKind::Commit,
                cell: e.cell,
                value: e.value,
                old: 0,
                stmt,
                rf: NONE,
                store: e.store,
                step,
            });
            st.mem[e.cell as usize] = e.value;
            st.writer[e.cell as usize] = idx;
            return e.origin;
        }
        let t = proc;
        let pc = st.pc[t] as usize;
        let ins = self.prog.threads[t].code[pc];
        match ins {
            Instr::Load { dst, addr, stmt } => match self.cell_of(st, t, addr) {
                Ok(cell) => {
                    let (value, rf) = self.read(st, t, cell);
                    self.set_reg(st, t, dst, value);
                    log.push(Event {
                        thread: t as u16,
                        kind: EventKind::Load,
                        cell,
                        value,
                        old: 0,
                        stmt,
                        rf,
                        store: NONE,
                        step,
                    });
                }
                Err(k) => return self.fail_step(st, t, stmt, k, log),
            },
            Instr::Store { addr, val, stmt } => match self.cell_of(st, t, addr) {
                Ok(cell) => {
                    let value = self.val(st, t, val);
                    self.issue_store(st, t, cell, value, stmt, step, log);
                }
                Err(k) => return self.fail_step(st, t, stmt, k, log),
            },
            Instr::Rmw { dst, addr, op, stmt, .. } => match self.cell_of(st, t, addr) {
                Ok(cell) if op == RmwOp::Lock && st.mem[cell as usize] != 0 => {
                    // The lock is taken: the attempt reads it, and the thread waits.
                    let value = st.mem[cell as usize];
                    let rf = st.writer[cell as usize];
                    log.push(Event {
                        thread: t as u16,
                        kind: EventKind::Load,
                        cell,
                        value,
                        old: 0,
                        stmt,
                        rf,
                        store: NONE,
                        step,
                    });
                    st.threads[t] = ThreadStatus::Stuck;
                    return NONE;
                }
                Ok(cell) => {
                    let old = st.mem[cell as usize];
                    let new = match op {
                        RmwOp::Xchg(v) => self.val(st, t, v),
                        RmwOp::Fetch(bop, v) => bop.eval(old, self.val(st, t, v)).unwrap_or(old),
                        RmwOp::Cas { expected, new } => {
                            if old == self.val(st, t, expected) {
                                self.val(st, t, new)
                            } else {
                                old
                            }
                        }
                        RmwOp::Lock => 1,
                    };
                    let idx = log.len() as u32;
                    log.push(Event {
                        thread: t as u16,
                        kind: EventKind::Rmw,
                        cell,
                        value: new,
                        old,
                        stmt,
                        rf: st.writer[cell as usize],
                        store: NONE,
                        step,
                    });
                    st.mem[cell as usize] = new;
                    st.writer[cell as usize] = idx;
                    self.set_reg(st, t, dst, old);
                }
                Err(k) => return self.fail_step(st, t, stmt, k, log),
            },
            Instr::Fence { kind, stmt } => {
                log.push(Event {
                    thread: t as u16,
                    kind: EventKind::Fence(kind),
                    cell: NONE,
                    value: 0,
                    old: 0,
                    stmt,
                    rf: NONE,
                    store: NONE,
                    step,
                });
            }
            _ => {}
        }
        st.pc[t] = pc as u32 + 1;
        self.run_local(st, t, step, log);
        NONE
    }

    fn fail_step(&self, st: &mut State, t: usize, stmt: StmtId, k: FailureKind, log: &[Event]) -> u32 {
        self.fail(st, t, stmt, k, log);
        NONE
    }

    /// The value of every observable in a final state.
    pub fn observe(&self, st: &State) -> Vec<i64> {
        self.prog
            .observables
            .iter()
            .map(|o| match o.kind {
                ir::ObservableKind::Reg { thread, reg } => self.reg(st, thread as usize, reg),
                ir::ObservableKind::Mem(c) => st.mem[c as usize],
            })
            .collect()
    }

    /// Evaluate a condition on a final state.
    /// A condition's truth in a final state; `None` if it divides by zero.
    pub fn eval(&self, e: &ir::CondExpr, st: &State) -> Option<bool> {
        e.eval(&|t, r| self.reg(st, t as usize, r), &|c| st.mem[c as usize]).map(|v| v != 0)
    }
}
