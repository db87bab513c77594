//! The interpreter of the IR under SC, TSO, PSO and PSLO: a compact state
//! and a step function that does not allocate (states are reused with
//! `clone_from`).
//!
//! A *process* is a thread, a store buffer (TSO: one per thread; PSO and
//! PSLO: one per thread and cell it can store to) or, under PSLO, a
//! *history* (one per thread and cell another thread can store to; see
//! [`ThreadCells`]). A thread's *transition* is one visible operation
//! followed by every local instruction up to its next visible one: register
//! arithmetic, branches, asserts, fences that need no waiting and, under
//! TSO/PSO/PSLO, stores (they only append to the thread's own buffer; the
//! commit that follows is what other threads see). Loads are always visible,
//! even when they forward from the buffer: whether they forward depends on
//! when the buffer commits.
//!
//! PSLO (RELAXER, Burnim–Sen–Stergiou ISSTA'11, Fig. 6) is PSO plus a
//! *store history* `S[p][a]` per thread `p` and cell `a`: the values of `a`
//! that `p` may still read, oldest first; its newest element is always the
//! memory value. A load with no pending own store to its cell reads the
//! *front* (oldest element) of its history; the history process `h(p, a)`,
//! enabled while the history holds more than one value, drops the front.
//! Reading the k-th element is popping k-1 times and reading the front, so
//! the behaviours are exactly Fig. 6's nondeterministic choices. A commit or
//! an atomic by `p` makes `S[p][a]` the singleton of the new value and
//! appends it to every other thread's history of `a`; it first waits for
//! `S[p][a]` to be a singleton (the values it drops are popped first: no
//! behaviour changes, and no pop is ever disabled). `fence rr`, `fence wr`
//! and `fence` (and the atomics the model takes as full fences: x86 locked
//! ones) wait until every history of their thread is a singleton, as
//! draining fences wait for the buffers; under PSLO they are always
//! visible operations (whether they may run depends on other threads'
//! writes).

use crate::model::Buffers;
use crate::thread_cells::ThreadCells;
use litmus_ir::{self as ir, Addr, Cell, FenceKind, Instr, Labels, Operand, Program, Reg, RmwOp, StmtId};
use std::collections::VecDeque;

pub use crate::model::Model;

pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    Load,
    /// SC: a store to memory. TSO/PSO/PSLO: a store into the thread's buffer.
    Store,
    /// TSO/PSO/PSLO: a buffered store reaching memory.
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
    /// Commits: the store event being committed (in a whole candidate's
    /// log, [`crate::candidates`], also an atomic: its coherence position).
    pub store: u32,
    /// The exploration transition this event belongs to.
    pub step: u32,
}

/// `Event::store` of a load made by an atomic that wrote nothing (a `cas`
/// that failed): it reads, and orders its thread's buffer as its atomic
/// does.
pub const ATOMIC_READ: u32 = u32::MAX - 1;

impl Event {
    pub fn is_write(&self) -> bool {
        matches!(self.kind, EventKind::Store | EventKind::Commit | EventKind::Rmw)
    }

    /// An atomic's event: it drains (or orders) the buffer as a fence of
    /// its own does — a successful one, which writes, or a failed `cas`,
    /// which only reads.
    pub fn is_atomic(&self) -> bool {
        self.kind == EventKind::Rmw || (self.kind == EventKind::Load && self.store == ATOMIC_READ)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailureKind {
    Assertion,
    IndexOutOfBounds,
    DivisionByZero,
    BadAddress,
    /// A store-conditional or a pair instruction, which no machine runs (a
    /// check routes its program to the candidate explorer:
    /// [`Program::candidates_only`]).
    StoreConditional,
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Assertion => "assertion failed",
            FailureKind::IndexOutOfBounds => "array index out of bounds",
            FailureKind::DivisionByZero => "division by zero",
            FailureKind::BadAddress => "invalid address",
            FailureKind::StoreConditional => {
                "a store-conditional or a pair instruction, which this engine does not run"
            }
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

/// One value of a PSLO store history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HistEntry {
    pub value: i64,
    /// The event that wrote it (a commit or an atomic; `NONE`: initial).
    pub writer: u32,
    /// The transition that put it there (`NONE`: the initial state).
    pub origin: u32,
}

/// A machine state. Its numbers are two flat vectors, the values (memory
/// and registers) and everything else of 32 bits, so that the copy the
/// exploration makes per step is two `memcpy`s rather than one per part:
/// read the parts with the accessors (a slice, [`State::mem`], or an
/// element, [`State::mem_at`]).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// [`State::mem`] then [`State::regs`].
    vals: Vec<i64>,
    /// [`State::writer`], [`State::pc`], [`State::loops`],
    /// [`State::pending`], [`State::shrunk`], [`State::unsettled`].
    words: Vec<u32>,
    /// Where each part begins (the same for every state of a machine).
    lay: Layout,
    pub threads: Vec<ThreadStatus>,
    /// TSO: one FIFO per thread; PSO/PSLO: one per (thread, cell it can
    /// store to), numbered as [`Machine::buf_index`]; SC: none.
    pub bufs: Vec<VecDeque<BufEntry>>,
    /// PSLO: the store history of each (thread, cell another thread can
    /// store to), numbered as [`Machine::hist_index`], oldest first, never
    /// empty; its newest entry is the memory value. Other models: none.
    /// (Any other history would only ever hold the memory value: a load
    /// without one reads memory.)
    pub hist: Vec<VecDeque<HistEntry>>,
    /// Some store had to wait for room in a buffer (the answer is bounded).
    pub buffer_bound_hit: bool,
}

/// Where a state's parts begin in its flat vectors: the registers in
/// `vals` at `regs` (memory before them), and in `words` part k from
/// `words[k]` to `words[k + 1]` (writer, pc, loops, pending, shrunk,
/// unsettled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Layout {
    regs: u32,
    words: [u32; 7],
}

/// Part `k` of a state's `words` ([`Layout`]): the part, and element `i`
/// of it, each read-only and mutable.
macro_rules! words_part {
    ($(#[$doc:meta])* $k:literal, $get:ident, $get_mut:ident, $at:ident, $at_mut:ident) => {
        $(#[$doc])*
        #[inline]
        pub fn $get(&self) -> &[u32] {
            &self.words[self.lay.words[$k] as usize..self.lay.words[$k + 1] as usize]
        }
        #[inline]
        pub fn $get_mut(&mut self) -> &mut [u32] {
            let (a, b) = (self.lay.words[$k] as usize, self.lay.words[$k + 1] as usize);
            &mut self.words[a..b]
        }
        #[doc = concat!("Element `i` of [`State::", stringify!($get), "`].")]
        #[inline]
        pub fn $at(&self, i: usize) -> u32 {
            debug_assert!(i < self.$get().len());
            self.words[self.lay.words[$k] as usize + i]
        }
        #[inline]
        pub fn $at_mut(&mut self, i: usize) -> &mut u32 {
            debug_assert!(i < self.$get().len());
            &mut self.words[self.lay.words[$k] as usize + i]
        }
    };
}

impl Clone for State {
    fn clone(&self) -> Self {
        State {
            vals: self.vals.clone(),
            words: self.words.clone(),
            lay: self.lay,
            threads: self.threads.clone(),
            bufs: self.bufs.clone(),
            hist: self.hist.clone(),
            buffer_bound_hit: self.buffer_bound_hit,
        }
    }

    /// Part by part, reusing every allocation (the derived one would not):
    /// exploration copies a state per step.
    fn clone_from(&mut self, o: &Self) {
        copy_into(&mut self.vals, &o.vals);
        copy_into(&mut self.words, &o.words);
        self.lay = o.lay;
        copy_into(&mut self.threads, &o.threads);
        clone_queues(&mut self.bufs, &o.bufs);
        clone_queues(&mut self.hist, &o.hist);
        self.buffer_bound_hit = o.buffer_bound_hit;
    }
}

/// `dst.clone_from(src)` for a state's flat vectors, whose lengths are the
/// machine's (equal after the first copy): without `Vec::clone_from`'s
/// bookkeeping.
#[inline(always)]
fn copy_into<T: Copy>(dst: &mut Vec<T>, src: &[T]) {
    if dst.len() == src.len() {
        dst.copy_from_slice(src);
    } else {
        dst.clear();
        dst.extend_from_slice(src);
    }
}

impl State {
    /// The memory value of each cell some thread can access, in the order
    /// of [`Machine::touched`] (read it with [`Machine::mem`]): the others
    /// keep their initial values, and a state costs what the program
    /// touches, not what it declares.
    #[inline]
    pub fn mem(&self) -> &[i64] {
        &self.vals[..self.lay.regs as usize]
    }
    #[inline]
    pub fn mem_mut(&mut self) -> &mut [i64] {
        let n = self.lay.regs as usize;
        &mut self.vals[..n]
    }
    /// Element `i` of [`State::mem`].
    #[inline]
    pub fn mem_at(&self, i: usize) -> i64 {
        debug_assert!(i < self.lay.regs as usize);
        self.vals[i]
    }
    #[inline]
    pub fn mem_at_mut(&mut self, i: usize) -> &mut i64 {
        debug_assert!(i < self.lay.regs as usize);
        &mut self.vals[i]
    }
    /// Every thread's registers, thread after thread.
    #[inline]
    pub fn regs(&self) -> &[i64] {
        &self.vals[self.lay.regs as usize..]
    }
    #[inline]
    pub fn regs_mut(&mut self) -> &mut [i64] {
        let n = self.lay.regs as usize;
        &mut self.vals[n..]
    }
    /// Element `i` of [`State::regs`].
    #[inline]
    pub fn regs_at(&self, i: usize) -> i64 {
        self.vals[self.lay.regs as usize + i]
    }
    #[inline]
    pub fn regs_at_mut(&mut self, i: usize) -> &mut i64 {
        &mut self.vals[self.lay.regs as usize + i]
    }
    words_part!(
        /// The event that last wrote each cell of [`State::mem`] (`NONE`: initial).
        0, writer, writer_mut, writer_at, writer_at_mut
    );
    words_part!(
        /// Per thread: the index of its next instruction.
        1, pc, pc_mut, pc_at, pc_at_mut
    );
    words_part!(
        /// Per loop of each thread: its iterations so far.
        2, loops, loops_mut, loops_at, loops_at_mut
    );
    words_part!(
        /// Per thread: its buffered stores (all its buffers together).
        3, pending, pending_mut, pending_at, pending_at_mut
    );
    words_part!(
        /// PSLO, per history: the transition (a history pop) that last
        /// made the history a singleton, `NONE` if a commit or atomic of the
        /// thread did (or it never held more). What a waiting fence needed.
        4, shrunk, shrunk_mut, shrunk_at, shrunk_at_mut
    );
    words_part!(
        /// PSLO, per thread: how many of its histories hold more than one value.
        5, unsettled, unsettled_mut, unsettled_at, unsettled_at_mut
    );
}

/// `dst.clone_from(src)` for a state's queues, skipping the empty ones
/// (most of them, most of the time: a per-cell buffer per thread and cell):
/// a clone per exploration step.
fn clone_queues<T: Copy>(dst: &mut Vec<VecDeque<T>>, src: &[VecDeque<T>]) {
    dst.resize_with(src.len(), VecDeque::new);
    for (a, b) in dst.iter_mut().zip(src) {
        if !(a.is_empty() && b.is_empty()) {
            // Buffers hold a few entries: pushed one by one, with none of
            // `clone_from`'s or `extend`'s generic bookkeeping.
            a.clear();
            for &e in b {
                a.push_back(e);
            }
        }
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
    /// It reads or writes the memory value of `cell` (every access with a
    /// cell, except PSLO loads and history pops: they touch only their
    /// thread's own buffer and history).
    pub mem: bool,
    /// PSLO: a load that reads the front of its thread's history of `cell`
    /// (no pending own store to forward from).
    pub hist: bool,
    /// PSLO: a history process dropping the oldest value of its thread's
    /// history of `cell`.
    pub pop: bool,
    /// TSO/PSO: a load that forwards from its thread's buffer, the store
    /// event it reads; a commit, the store event it commits (`NONE`
    /// otherwise, and always under PSLO).
    pub fwd: u32,
    /// A commit: the transition that buffered its store (`NONE`: before
    /// the exploration began). Loads that forward from it come after.
    pub origin: u32,
    /// PSLO: waits until every history of its thread is a singleton (a
    /// resetting fence, an atomic that is a full fence): another thread's
    /// write to any cell can make it wait — it matters for the cells its
    /// thread may load afterwards ([`Machine::loaded_after`] at `at`).
    pub all_cells: bool,
    /// A thread's transition: the pc of its visible operation.
    pub at: u32,
}

impl Access {
    /// Nothing: the access of no transition.
    pub const NONE: Access = Access {
        proc: NONE,
        owner: 0,
        cell: NONE,
        write: false,
        is_commit: false,
        mem: false,
        hist: false,
        pop: false,
        fwd: NONE,
        origin: NONE,
        all_cells: false,
        at: NONE,
    };
}

/// A set of cells: some, or all of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cells {
    pub all: bool,
    /// Sorted, without duplicates (unless `all`).
    pub some: Vec<Cell>,
}

impl Cells {
    /// One entry per cell, in order, only real cells; none when `all`.
    fn normalized(mut self, cells: usize) -> Cells {
        if self.all {
            self.some.clear();
        } else {
            self.some.retain(|&c| (c as usize) < cells);
            self.some.sort_unstable();
            self.some.dedup();
        }
        self
    }

    pub fn contains(&self, c: Cell) -> bool {
        self.all || self.some.binary_search(&c).is_ok()
    }
}

struct AwaitInfo {
    start: u32,
    check: u32,
    /// The pc of its first load, when its loads all read one fixed cell and
    /// it does nothing else with memory: an attempt then only reads that
    /// cell, and an outcome exploration may leave it waiting (see
    /// [`Machine::gated`]).
    first_load: Option<u32>,
}

pub struct Machine<'p> {
    pub prog: &'p Program,
    pub model: Model,
    pub loop_bound: u32,
    pub buffer_bound: u32,
    /// Loops run without counting iterations (no bound cuts them, and the
    /// counters stay 0): the stateful search of [`crate::unbounded`], whose
    /// visited set ends loops instead.
    pub unbounded_loops: bool,
    pub threads: usize,
    pub cells: usize,
    /// Where each cell is in bytes, for computed addresses.
    layout: ir::Layout,
    reg_base: Vec<usize>,
    loop_base: Vec<usize>,
    /// Per thread, per pc: the await region containing it.
    awaits: Vec<Vec<Option<usize>>>,
    /// Per thread: for each fence and atomic that is a full fence (by pc),
    /// the cells the thread may load after it.
    loads_after: Vec<std::collections::HashMap<u32, Cells>>,
    /// Per touched cell (in `touched` order): how many threads' code may
    /// write it (store or atomic), and the last such thread.
    writers: Vec<(u32, u32)>,
    await_info: Vec<Vec<AwaitInfo>>,
    /// PSO/PSLO: the (thread, cell) pairs with a store buffer — the cells
    /// each thread can store to.
    buf_pairs: ThreadCells,
    /// PSLO: the (thread, cell) pairs with a store history — the cells
    /// other threads can store to (only their writes lengthen it).
    hist_pairs: ThreadCells,
    /// How many buffer processes there are, and history processes (asked
    /// several times per step: kept, not derived from the model each time).
    nbufs: usize,
    nhists: usize,
    /// The cells some thread's code can access (sorted): a cell's place
    /// among them is its place in `State::mem`.
    touched: Vec<Cell>,
    /// Registers of a dry run (reused, so enabledness checks do not allocate).
    scratch: std::cell::RefCell<Vec<i64>>,
}

impl<'p> Machine<'p> {
    pub fn new(prog: &'p Program, model: Model, loop_bound: u32, buffer_bound: u32) -> Self {
        debug_assert!(model.has_machine(), "no machine runs {}: ask for its interpreter", model.as_str());
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
                    infos.push(AwaitInfo {
                        start: pc as u32,
                        check,
                        first_load: Self::one_cell_attempt(&t.code, &t.regs, pc, check as usize),
                    });
                }
            }
            awaits.push(map);
            await_info.push(infos);
        }
        reg_base.push(r);
        loop_base.push(l);
        let cells = prog.mem_size();
        let loads_after = prog
            .threads
            .iter()
            .map(|t| {
                (0..t.code.len())
                    .filter(|&pc| match t.code[pc] {
                        Instr::Fence { .. } => true,
                        Instr::Rmw { labels, .. } => model.rmw_is_full_fence(labels),
                        _ => false,
                    })
                    .map(|pc| (pc as u32, Self::loads_from(&t.code, pc + 1, cells)))
                    .collect()
            })
            .collect();
        let every = |c: Cells| if c.all { (0..cells as Cell).collect() } else { c.some };
        let stores = Self::stored_cells(prog);
        let mut touched: Vec<Cell> = prog
            .threads
            .iter()
            .flat_map(|th| {
                every(Self::accessed(&th.code, cells, |ins| match *ins {
                    Instr::Load { addr, .. } | Instr::Store { addr, .. } | Instr::Rmw { addr, .. } => Some(addr),
                    _ => None,
                }))
            })
            .collect();
        touched.sort_unstable();
        touched.dedup();
        let mut writers = vec![(0u32, NONE); touched.len()];
        for (t, mine) in stores.iter().enumerate() {
            for &c in mine {
                let w = &mut writers[touched.binary_search(&c).expect("a stored cell is touched")];
                w.0 += 1;
                w.1 = t as u32;
            }
        }
        let buf_pairs = match model.buffers() {
            Buffers::PerCell => ThreadCells::new(stores.iter().map(Vec::as_slice)),
            Buffers::None | Buffers::Axiomatic | Buffers::PerThread => ThreadCells::default(),
        };
        let hist_pairs = if model.has_histories() {
            let others: Vec<Vec<Cell>> = (0..stores.len())
                .map(|p| {
                    let mut c: Vec<Cell> = stores
                        .iter()
                        .enumerate()
                        .filter(|&(q, _)| q != p)
                        .flat_map(|(_, s)| s.iter().copied())
                        .collect();
                    c.sort_unstable();
                    c.dedup();
                    c
                })
                .collect();
            ThreadCells::new(others.iter().map(Vec::as_slice))
        } else {
            ThreadCells::default()
        };
        let nbufs = match model.buffers() {
            Buffers::None | Buffers::Axiomatic => 0,
            Buffers::PerThread => prog.threads.len(),
            Buffers::PerCell => buf_pairs.len(),
        };
        let nhists = hist_pairs.len();
        Machine {
            prog,
            model,
            loop_bound,
            buffer_bound: buffer_bound.max(1),
            unbounded_loops: false,
            threads: prog.threads.len(),
            cells: prog.mem_size(),
            layout: prog.layout(),
            reg_base,
            loop_base,
            awaits,
            await_info,
            loads_after,
            writers,
            buf_pairs,
            hist_pairs,
            nbufs,
            nhists,
            touched,
            scratch: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// The cells a thread's code may load from `pc` on (following every
    /// branch): a load's fixed cell, an indexed load's whole array, every
    /// cell for a computed address.
    fn loads_from(code: &[Instr], pc: usize, cells: usize) -> Cells {
        let mut seen = vec![false; code.len() + 1];
        let mut stack = vec![pc];
        let mut out = Cells::default();
        while let Some(pc) = stack.pop() {
            if pc >= code.len() || std::mem::replace(&mut seen[pc], true) {
                continue;
            }
            match code[pc] {
                Instr::Load { addr, .. } => match addr {
                    Addr::Fixed(c) => out.some.push(c),
                    Addr::Indexed { base, len, .. } => out.some.extend(base..base + len),
                    Addr::Computed { .. } => out.all = true,
                },
                Instr::Jump { target } => {
                    stack.push(target as usize);
                    continue;
                }
                Instr::Branch { target, .. } => stack.push(target as usize),
                Instr::Halt => continue,
                _ => {}
            }
            stack.push(pc + 1);
        }
        out.normalized(cells)
    }

    /// Per thread, every cell its code can store to (an indexed or computed
    /// store: all of them): where its buffers and the monitors'
    /// store lists exist.
    pub fn stored_cells(prog: &Program) -> Vec<Vec<Cell>> {
        let cells = prog.mem_size();
        let every = |c: Cells| if c.all { (0..cells as Cell).collect() } else { c.some };
        prog.threads.iter().map(|th| every(Self::stores_of(&th.code, cells))).collect()
    }

    /// The cells a thread's code may write (stores and atomics, reachable
    /// or not): a fixed cell, an indexed access's whole array, every cell
    /// for a computed address.
    pub fn stores_of(code: &[Instr], cells: usize) -> Cells {
        Self::accessed(code, cells, |ins| match *ins {
            Instr::Store { addr, .. } | Instr::Rmw { addr, .. } => Some(addr),
            _ => None,
        })
    }

    /// The cells the addresses `addr_of` picks from `code` may denote.
    fn accessed(code: &[Instr], cells: usize, addr_of: impl Fn(&Instr) -> Option<Addr>) -> Cells {
        let mut out = Cells::default();
        for addr in code.iter().filter_map(addr_of) {
            match addr {
                Addr::Fixed(c) => out.some.push(c),
                Addr::Indexed { base, len, .. } => out.some.extend(base..base + len),
                Addr::Computed { .. } => out.all = true,
            }
        }
        out.normalized(cells)
    }

    /// May a thread other than `thread` write `cell` (statically)?
    pub fn others_may_write(&self, thread: usize, cell: Cell) -> bool {
        let Some(s) = self.slot(cell) else { return false };
        let (n, last) = self.writers[s];
        n > 1 || n == 1 && last as usize != thread
    }

    /// PSLO: the cells whose history matters after the fence (or atomic
    /// that is a full fence) at `pc` of `thread` — those it may load later.
    /// Another thread's write of any other cell only makes it wait for a
    /// pop that changes nothing it can observe.
    pub fn loaded_after(&self, thread: usize, pc: u32) -> Option<&Cells> {
        self.loads_after.get(thread).and_then(|m| m.get(&pc))
    }

    /// Processes, numbered: threads `0..threads`; then the store buffers
    /// (TSO: one per thread; PSO/PSLO: one per thread and cell it can store
    /// to, thread-major); then, under PSLO, the histories (one per thread
    /// and cell another thread can store to, likewise). The pairs left out
    /// are exactly the processes that could never move (an empty buffer, a
    /// history of one value), and the order of the others is kept, so the
    /// exploration is the same as with one process per thread and cell.
    #[inline]
    pub fn procs(&self) -> usize {
        self.threads + self.nbufs + self.nhists
    }

    /// How many buffer processes there are.
    #[inline]
    pub fn buffers(&self) -> usize {
        self.nbufs
    }

    /// How many history processes there are (PSLO only).
    #[inline]
    pub fn histories(&self) -> usize {
        self.nhists
    }

    /// The thread a process belongs to.
    pub fn owner(&self, proc: usize) -> usize {
        if proc < self.threads {
            return proc;
        }
        let i = proc - self.threads;
        match self.model.buffers() {
            Buffers::None | Buffers::Axiomatic => proc,
            _ if i >= self.buffers() => self.hist_pairs.owner(i - self.buffers()),
            Buffers::PerThread => i,
            Buffers::PerCell => self.buf_pairs.owner(i),
        }
    }

    /// Is `proc` a thread (not a buffer or a history)?
    pub fn is_thread(&self, proc: usize) -> bool {
        proc < self.threads
    }

    /// Is `proc` a store buffer (its transitions commit stores)?
    pub fn is_buffer(&self, proc: usize) -> bool {
        proc >= self.threads && proc < self.threads + self.buffers()
    }

    /// Is `proc` a PSLO history (its transitions drop the oldest value)?
    #[inline]
    pub fn is_history(&self, proc: usize) -> bool {
        // (Only PSLO has histories.)
        proc >= self.threads + self.nbufs && proc < self.procs()
    }

    /// The process of `thread`'s store buffer for `cell` (under TSO its one
    /// buffer, whatever the cell); `None` under SC and where the thread
    /// cannot store to the cell.
    pub fn buffer_proc(&self, thread: usize, cell: Cell) -> Option<usize> {
        self.buf_index(thread, cell).map(|b| self.threads + b)
    }

    /// The process of `thread`'s store history of `cell`: PSLO only, where
    /// another thread can store to the cell.
    pub fn history_proc(&self, thread: usize, cell: Cell) -> Option<usize> {
        self.hist_index(thread, cell).map(|h| self.threads + self.buffers() + h)
    }

    /// The indices (in `State::bufs`) of `thread`'s store buffers.
    pub fn buf_indices(&self, thread: usize) -> std::ops::Range<usize> {
        match self.model.buffers() {
            Buffers::None | Buffers::Axiomatic => 0..0,
            Buffers::PerThread => thread..thread + 1,
            Buffers::PerCell => self.buf_pairs.of(thread),
        }
    }

    /// The processes of `thread`'s store buffers.
    pub fn buffer_procs(&self, thread: usize) -> std::ops::Range<usize> {
        let r = self.buf_indices(thread);
        self.threads + r.start..self.threads + r.end
    }

    /// The indices (in `State::hist`) of `thread`'s histories.
    pub fn hist_indices(&self, thread: usize) -> std::ops::Range<usize> {
        self.hist_pairs.of(thread)
    }

    /// The cell of a per-cell buffer (PSO/PSLO) or of a history (PSLO).
    pub fn proc_cell(&self, proc: usize) -> Option<Cell> {
        if self.is_history(proc) {
            Some(self.hist_pairs.cell(proc - self.threads - self.buffers()))
        } else if self.is_buffer(proc) && self.model.per_cell_buffers() {
            Some(self.buf_pairs.cell(proc - self.threads))
        } else {
            None
        }
    }

    /// Index in `State::bufs` of `thread`'s buffer for `cell`; `None` under
    /// SC and where the thread cannot store to the cell.
    pub fn buf_index(&self, thread: usize, cell: Cell) -> Option<usize> {
        match self.model.buffers() {
            Buffers::None | Buffers::Axiomatic => None,
            Buffers::PerThread => Some(thread),
            Buffers::PerCell => self.buf_pairs.index(thread, cell),
        }
    }

    /// Index in `State::hist` of `thread`'s history of `cell` (PSLO, where
    /// another thread can store to the cell).
    pub fn hist_index(&self, thread: usize, cell: Cell) -> Option<usize> {
        self.hist_pairs.index(thread, cell)
    }

    /// The cell of history `h` (an index in `State::hist`).
    pub fn hist_cell(&self, h: usize) -> Cell {
        self.hist_pairs.cell(h)
    }

    /// Thread `t`'s buffer for `cell` (`None`: it has none).
    fn buf_of<'s>(&self, st: &'s State, t: usize, cell: Cell) -> Option<&'s VecDeque<BufEntry>> {
        self.buf_index(t, cell).map(|b| &st.bufs[b])
    }
    /// The cells some thread can access, in their `State::mem` order.
    pub fn touched(&self) -> &[Cell] {
        &self.touched
    }

    /// The place of `cell` in `State::mem`, if some thread accesses it.
    /// (A search, not a table per cell: few cells are touched.)
    #[inline]
    fn slot(&self, cell: Cell) -> Option<usize> {
        self.touched.binary_search(&cell).ok()
    }

    /// The memory value of `cell` (one no thread accesses keeps its
    /// initial value).
    #[inline]
    pub fn mem(&self, st: &State, cell: Cell) -> i64 {
        match self.slot(cell) {
            None => self.prog.init[cell as usize],
            Some(s) => st.mem_at(s),
        }
    }

    /// The event that last wrote `cell` to memory (`NONE`: initial).
    #[inline]
    /// An atomic's attempt that only reads memory (a taken lock, a failed
    /// cas; `store` marks the latter, see [`ATOMIC_READ`]): its load event.
    /// Returns the value read.
    #[allow(clippy::too_many_arguments)]
    fn log_read_only(
        &self,
        st: &State,
        t: usize,
        cell: Cell,
        stmt: StmtId,
        step: u32,
        store: u32,
        log: &mut Vec<Event>,
    ) -> i64 {
        let value = self.mem(st, cell);
        let rf = self.writer(st, cell);
        log.push(Event { thread: t as u16, kind: EventKind::Load, cell, value, old: value, stmt, rf, store, step });
        value
    }

    pub fn writer(&self, st: &State, cell: Cell) -> u32 {
        self.slot(cell).map_or(NONE, |s| st.writer_at(s))
    }

    /// Put `value`, written by event `writer`, in memory at `cell` (a cell
    /// some thread accesses: only those can be written).
    #[inline]
    pub fn set_mem(&self, st: &mut State, cell: Cell, value: i64, writer: u32) {
        let s = self.slot(cell).expect("a write of a cell no thread's code accesses");
        *st.mem_at_mut(s) = value;
        *st.writer_at_mut(s) = writer;
    }

    /// The initial state, with every thread run up to its first visible operation.
    pub fn initial(&self, log: &mut Vec<Event>) -> State {
        let mut regs = Vec::with_capacity(self.reg_base[self.threads]);
        for t in &self.prog.threads {
            regs.extend_from_slice(&t.init_regs);
        }
        let nbufs = self.buffers();
        let hist: Vec<VecDeque<HistEntry>> = (0..self.histories())
            .map(|i| {
                let value = self.prog.init[self.hist_pairs.cell(i) as usize];
                VecDeque::from([HistEntry { value, writer: NONE, origin: NONE }])
            })
            .collect();
        let mut vals: Vec<i64> = self.touched.iter().map(|&c| self.prog.init[c as usize]).collect();
        let regs_at = vals.len() as u32;
        vals.extend(regs);
        let parts: [Vec<u32>; 6] = [
            vec![NONE; self.touched.len()],
            vec![0; self.threads],
            vec![0; self.loop_base[self.threads]],
            vec![0; self.threads],
            vec![NONE; hist.len()],
            vec![0; if self.model.has_histories() { self.threads } else { 0 }],
        ];
        let mut lay = Layout { regs: regs_at, words: [0; 7] };
        let mut words = Vec::new();
        for (k, part) in parts.into_iter().enumerate() {
            words.extend(part);
            lay.words[k + 1] = words.len() as u32;
        }
        let mut st = State {
            vals,
            words,
            lay,
            threads: vec![ThreadStatus::Running; self.threads],
            bufs: vec![VecDeque::new(); nbufs],
            hist,
            buffer_bound_hit: false,
        };
        for t in 0..self.threads {
            self.run_local(&mut st, t, NONE, log);
        }
        st
    }

    /// These settings, with loops never cut nor counted (see `unbounded_loops`).
    pub fn with_unbounded_loops(mut self) -> Self {
        self.unbounded_loops = true;
        self
    }

    /// Thread `t`'s own part of `src` (registers, next instruction, loop
    /// counters, status) into `dst`; under SC that is all of the thread
    /// but what it wrote to memory.
    pub fn copy_thread(&self, dst: &mut State, src: &State, t: usize) {
        debug_assert!(!self.model.buffered(), "buffers and histories are not copied");
        let regs = self.reg_range(t);
        dst.regs_mut()[regs.clone()].copy_from_slice(&src.regs()[regs]);
        *dst.pc_at_mut(t) = src.pc_at(t);
        let loops = self.loop_base[t]..self.loop_base[t + 1];
        dst.loops_mut()[loops.clone()].copy_from_slice(&src.loops()[loops]);
        dst.threads[t] = src.threads[t];
    }

    /// Where thread `t`'s registers lie in `State::regs`.
    pub fn reg_range(&self, t: usize) -> std::ops::Range<usize> {
        self.reg_base[t]..self.reg_base[t + 1]
    }

    #[inline]
    fn reg(&self, st: &State, t: usize, r: Reg) -> i64 {
        st.regs_at(self.reg_base[t] + r as usize)
    }

    #[inline]
    fn set_reg(&self, st: &mut State, t: usize, r: Reg, v: i64) {
        *st.regs_at_mut(self.reg_base[t] + r as usize) = v;
    }

    #[inline]
    fn val(&self, st: &State, t: usize, o: Operand) -> i64 {
        match o {
            Operand::Imm(v) => v,
            Operand::Reg(r) => self.reg(st, t, r),
        }
    }

    /// The cell an address denotes, or the failure it causes.
    #[inline]
    pub fn cell_of(&self, st: &State, t: usize, a: Addr) -> Result<Cell, FailureKind> {
        // Most addresses are fixed: no registers to look at.
        if let Addr::Fixed(c) = a {
            return Ok(c);
        }
        self.cell_in(&st.regs()[self.reg_base[t]..self.reg_base[t + 1]], a)
    }

    /// The same, given the thread's registers.
    fn cell_in(&self, regs: &[i64], a: Addr) -> Result<Cell, FailureKind> {
        resolve(regs, a, &self.layout)
    }

    fn fail(&self, st: &mut State, t: usize, stmt: StmtId, kind: FailureKind, log: &[Event]) {
        st.threads[t] = ThreadStatus::Failed { stmt, kind, at: log.len() as u32 };
    }

    /// Does this fence need the buffers drained under this model?
    pub fn fence_drains(&self, kind: FenceKind) -> bool {
        fence_drains(self.model, kind)
    }

    /// Does this fence reset the thread's load histories (PSLO: `rr`, `wr`
    /// and `full`; it waits until each is a singleton)?
    pub fn fence_resets(&self, kind: FenceKind) -> bool {
        fence_resets(self.model, kind)
    }

    fn thread_buffers_empty(&self, st: &State, t: usize) -> bool {
        st.pending_at(t) == 0
    }

    /// Every history of thread `t` holds one value (always, but under PSLO).
    pub fn histories_single(&self, st: &State, t: usize) -> bool {
        st.unsettled().get(t).is_none_or(|&n| n == 0)
    }

    /// Thread `t`'s history of `cell` holds one value (always, but under
    /// PSLO, and where the thread has no history of the cell).
    pub fn history_single(&self, st: &State, t: usize, cell: Cell) -> bool {
        self.hist_index(t, cell).is_none_or(|h| st.hist[h].len() == 1)
    }

    fn buffered(&self, st: &State, t: usize) -> usize {
        st.pending_at(t) as usize
    }

    /// Must this rmw wait for buffers to drain first (and which)? Under PSLO
    /// it also waits for its history of the cell to be a singleton (it
    /// replaces it), and one that is a full fence (by its labels) for all
    /// of them.
    fn rmw_ready(&self, st: &State, t: usize, cell: Cell, labels: Labels) -> bool {
        let full = self.model.rmw_is_full_fence(labels);
        match self.model.buffers() {
            Buffers::None | Buffers::Axiomatic => true,
            Buffers::PerThread if full => st.bufs[t].is_empty() && self.histories_single(st, t),
            Buffers::PerThread => st.bufs[t].is_empty() && self.history_single(st, t, cell),
            Buffers::PerCell if full => self.thread_buffers_empty(st, t) && self.histories_single(st, t),
            Buffers::PerCell => {
                self.buf_of(st, t, cell).is_none_or(|b| b.is_empty()) && self.history_single(st, t, cell)
            }
        }
    }

    /// The store event a load by `t` of `cell` would forward from: its own
    /// newest pending store to the cell, if any.
    fn forwarded(&self, st: &State, t: usize, cell: Cell) -> Option<u32> {
        self.own_newest(st, t, cell).map(|e| e.store)
    }

    /// `t`'s newest pending store to `cell`, if any.
    fn own_newest<'s>(&self, st: &'s State, t: usize, cell: Cell) -> Option<&'s BufEntry> {
        match self.model.buffers() {
            Buffers::None | Buffers::Axiomatic => None,
            Buffers::PerThread => st.bufs[t].iter().rev().find(|e| e.cell == cell),
            Buffers::PerCell => self.buf_of(st, t, cell)?.back(),
        }
    }

    /// The value a load by `t` of `cell` sees, and the event it reads from:
    /// its own newest pending store to the cell, else memory (PSLO: the
    /// oldest value of its history).
    fn read(&self, st: &State, t: usize, cell: Cell) -> (i64, u32) {
        if let Some(e) = self.own_newest(st, t, cell) {
            return (e.value, e.store);
        }
        // Without a history (no other thread writes the cell) it would only
        // ever hold the memory value.
        if let Some(h) = self.hist_index(t, cell) {
            let h = st.hist[h][0];
            return (h.value, h.writer);
        }
        (self.mem(st, cell), self.writer(st, cell))
    }

    /// What a load by `t` of `cell` reads, or (`settled`) would read once
    /// its PSLO history were dropped to the memory value.
    fn read_settled(&self, st: &State, t: usize, cell: Cell, settled: bool) -> i64 {
        if settled && self.model.has_histories() && self.buf_of(st, t, cell).is_none_or(|b| b.is_empty()) {
            return self.mem(st, cell);
        }
        self.read(st, t, cell).0
    }

    /// A write of `cell` by thread `t` reached memory (a commit or an
    /// atomic, event `idx`): under PSLO, `t`'s history of the cell (a
    /// singleton: the write waited for it) becomes that value, and every
    /// other thread may still read the older values of its own history first.
    fn record_write(&self, st: &mut State, t: usize, cell: Cell, value: i64, idx: u32, step: u32) {
        if !self.model.has_histories() {
            return;
        }
        let e = HistEntry { value, writer: idx, origin: step };
        for p in 0..self.threads {
            let Some(h) = self.hist_index(p, cell) else { continue };
            if p == t {
                debug_assert_eq!(st.hist[h].len(), 1, "a write replaces a singleton history");
                st.hist[h].clear();
                *st.shrunk_at_mut(h) = NONE;
            } else if st.hist[h].len() == 1 {
                *st.unsettled_at_mut(p) += 1;
            }
            st.hist[h].push_back(e);
        }
    }

    /// Run thread `t`'s local instructions until its next visible one.
    /// `step` is the transition these instructions belong to.
    pub fn run_local(&self, st: &mut State, t: usize, step: u32, log: &mut Vec<Event>) {
        let code = &self.prog.threads[t].code;
        loop {
            if !st.running(t) {
                return;
            }
            let pc = st.pc_at(t) as usize;
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
                Instr::Select { dst, cond, a, b } => {
                    let v = self.val(st, t, if self.val(st, t, cond) != 0 { a } else { b });
                    self.set_reg(st, t, dst, v);
                }
                Instr::Jump { target } => next = target,
                Instr::Branch { cond, if_nonzero, target } => {
                    if (self.val(st, t, cond) != 0) == if_nonzero {
                        next = target;
                    }
                }
                Instr::LoopEnter { id } => *st.loops_at_mut(self.loop_base[t] + id as usize) = 0,
                Instr::LoopIter { .. } if self.unbounded_loops => {}
                Instr::LoopIter { id, bound, .. } => {
                    let c = &mut *st.loops_at_mut(self.loop_base[t] + id as usize);
                    *c += 1;
                    // A loop's own bound replaces the global one.
                    if *c > bound.unwrap_or(self.loop_bound) {
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
                        *st.pc_at_mut(t) = start;
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
                    if self.fence_resets(kind) {
                        // Visible: it waits for the histories, which other
                        // threads' writes lengthen.
                        return;
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
                Instr::Store { addr, val, stmt, .. } => {
                    if !self.model.buffered() {
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
                Instr::StoreCond { stmt, .. } | Instr::Pair { stmt, .. } => {
                    return self.fail(st, t, stmt, FailureKind::StoreConditional, log)
                }
            }
            *st.pc_at_mut(t) = next;
        }
    }

    /// The address whose buffer thread `t` waits on (PSO/PSLO native
    /// atomic), or `NONE` when it waits for all of its buffers (or none).
    pub fn waits_for_cell(&self, st: &State, t: usize) -> Cell {
        if !self.model.per_cell_buffers() {
            return NONE;
        }
        match self.prog.threads[t].code.get(st.pc_at(t) as usize) {
            Some(&Instr::Rmw { addr, labels, .. }) if !self.model.rmw_is_full_fence(labels) => {
                self.cell_of(st, t, addr).unwrap_or(NONE)
            }
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
        if !self.model.buffered() {
            self.set_mem(st, cell, value, idx);
        } else {
            // Every cell a thread can store to has its buffer.
            let b = self.buf_index(t, cell).expect("a store to a cell its thread has no buffer for");
            st.bufs[b].push_back(BufEntry { cell, value, store: idx, origin: step });
            *st.pending_at_mut(t) += 1;
        }
    }

    /// Is `proc`'s next transition enabled? Only buffers and histories can
    /// hold a thread back (a fence or atomic waits for them to drain or to
    /// be singletons, a store for room); an `await` or `lock` that would
    /// fail is attempted, and the thread gets stuck. A buffer is enabled
    /// while it holds a store; a history while it holds more than one value
    /// (whatever its thread does: it may have read its last value already,
    /// and the explorer must still see which value it could have read).
    #[inline]
    pub fn enabled(&self, st: &State, proc: usize) -> bool {
        // A finished thread, asked at every step of the rest of the run
        // (SB-12: 7 asks per step, most of them this), answers inline.
        if proc < self.threads && !st.running(proc) {
            return false;
        }
        self.enabled_slow(st, proc)
    }

    fn enabled_slow(&self, st: &State, proc: usize) -> bool {
        if self.is_history(proc) {
            return st.hist[proc - self.threads - self.buffers()].len() > 1;
        }
        if proc >= self.threads {
            let b = &st.bufs[proc - self.threads];
            return match b.front() {
                None => false,
                // PSLO: a commit replaces its thread's history of the cell;
                // it waits until the values it drops are popped (so no pop
                // is ever disabled, and what a load could have read stays
                // visible to the explorer as a race with a pop).
                Some(e) => self.history_single(st, self.owner(proc), e.cell),
            };
        }
        let t = proc;
        if !st.running(t) {
            return false;
        }
        match self.prog.threads[t].code.get(st.pc_at(t) as usize) {
            None => false,
            Some(&Instr::Store { .. }) => !self.model.buffered() || self.buffered(st, t) < self.buffer_bound as usize,
            Some(&Instr::Rmw { addr, labels, .. }) => match self.cell_of(st, t, addr) {
                Ok(cell) => self.rmw_ready(st, t, cell, labels),
                Err(_) => true,
            },
            Some(&Instr::Fence { kind, .. }) => {
                (!self.fence_drains(kind) || self.thread_buffers_empty(st, t))
                    && (!self.fence_resets(kind) || self.histories_single(st, t))
            }
            Some(_) => true,
        }
    }

    /// Would thread `t`'s pending `await` succeed if evaluated afresh now,
    /// atomically? (A fresh attempt: a failing one in progress is dropped.)
    /// Asked when nothing can move: under PSLO every history then holds only
    /// the memory value, what every retry reads from then on.
    pub fn dry_run_await(&self, st: &State, t: usize) -> bool {
        self.dry_run_await_with(st, t, false)
    }

    /// The same, but (PSLO) reading memory where the thread's histories
    /// hold older values: would it succeed once they were dropped?
    fn dry_run_await_with(&self, st: &State, t: usize, settled: bool) -> bool {
        let Some(a) = self.awaits[t].get(st.pc_at(t) as usize).copied().flatten() else {
            return true;
        };
        let check = self.await_info[t][a].check as usize;
        let pc0 = self.await_info[t][a].start as usize + 1;
        let code = &self.prog.threads[t].code;
        let mut regs = self.scratch.borrow_mut();
        regs.clear();
        regs.extend_from_slice(&st.regs()[self.reg_base[t]..self.reg_base[t + 1]]);
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
                    regs[dst as usize] = self.read_settled(st, t, c, settled);
                }
                Instr::Rmw { dst, addr, op, .. } => {
                    let Ok(c) = self.cell_in(&regs, addr) else {
                        return true;
                    };
                    let old = self.read_settled(st, t, c, settled);
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

    /// Can some attempt be left waiting ([`Machine::gated`])? A `lock`, or
    /// an await on one cell; never under PSLO.
    pub fn has_gates(&self) -> bool {
        !self.model.has_histories()
            && (self.await_info.iter().flatten().any(|a| a.first_load.is_some())
                || self
                    .prog
                    .threads
                    .iter()
                    .flat_map(|t| &t.code)
                    .any(|i| matches!(i, Instr::Rmw { op: RmwOp::Lock, .. })))
    }

    /// An await's code from `start` to its check at `check`: the pc of its
    /// first load, if every attempt only reads one fixed cell and the value
    /// its last load reads alone decides it — the condition is a
    /// disjunction of tests, one per load (`x == 0 || x >= r`): each test
    /// reads only its own load and registers from before the await, and
    /// passes straight to the check; and, with several loads, every register
    /// the attempt writes is a temporary (dead once it passes). An attempt
    /// that passes reading `v1 … vn` then also passes reading `vn` at every
    /// load, as one reading at once would, and leaves nothing else behind:
    /// leaving a thread wait until one atomic reading would pass loses no
    /// outcome.
    fn one_cell_attempt(code: &[Instr], regs: &[ir::RegInfo], start: usize, check: usize) -> Option<u32> {
        let Some(&Instr::AwaitCheck { cond: Operand::Reg(verdict), .. }) = code.get(check) else {
            return None;
        };
        let mut first: Option<(u32, Cell)> = None;
        let mut loads = 0;
        // With several loads, what the others read must die with the
        // attempt: a spin reduced to an await may keep a body's load in a
        // user register (`while (t != 2) { r = x; t = x; }`), whose value one
        // reading at once would change.
        let mut keeps = false;
        let mut wrote = |r: Reg| keeps |= regs.get(r as usize).is_none_or(|i| i.kind != ir::RegKind::Temp);
        // Registers set by the current test, and by the earlier ones.
        let (mut own, mut earlier): (Vec<Reg>, Vec<Reg>) = (Vec::new(), Vec::new());
        let reads_ok = |o: Operand, own: &[Reg], earlier: &[Reg]| match o {
            Operand::Reg(r) => own.contains(&r) || !earlier.contains(&r),
            Operand::Imm(_) => true,
        };
        for (pc, ins) in code.iter().enumerate().take(check).skip(start + 1) {
            match *ins {
                Instr::Load { dst, addr: Addr::Fixed(c), .. } => {
                    match first {
                        None => first = Some((pc as u32, c)),
                        Some((_, c0)) if c0 == c => {}
                        Some(_) => return None,
                    }
                    loads += 1;
                    earlier.append(&mut own);
                    own.push(dst);
                    wrote(dst);
                }
                Instr::Mov { dst, src: a } | Instr::Un { dst, a, .. } => {
                    if !reads_ok(a, &own, &earlier) {
                        return None;
                    }
                    own.push(dst);
                    wrote(dst);
                }
                Instr::Bin { dst, a, b, .. } => {
                    if !reads_ok(a, &own, &earlier) || !reads_ok(b, &own, &earlier) {
                        return None;
                    }
                    own.push(dst);
                    wrote(dst);
                }
                Instr::Branch { cond: Operand::Reg(r), if_nonzero: true, target }
                    if target as usize == check && r == verdict && own.contains(&r) && first.is_some() => {}
                _ => return None,
            }
        }
        first.filter(|_| own.contains(&verdict) && !(loads > 1 && keeps)).map(|(pc, _)| pc)
    }

    /// Would thread `t`'s next transition be an attempt that only reads one
    /// cell and fails: the first load of an `await` on one cell (a fresh
    /// attempt) or a `lock` that is taken? Its thread waits for good in the
    /// execution that runs it (a blocked execution); an exploration of
    /// outcomes only may leave the thread waiting instead, until a write
    /// makes the attempt succeed (never under PSLO, whose loads read
    /// histories).
    pub fn gated(&self, st: &State, t: usize) -> bool {
        if t >= self.threads || !st.running(t) || self.model.has_histories() {
            return false;
        }
        let pc = st.pc_at(t) as usize;
        match self.prog.threads[t].code.get(pc) {
            Some(&Instr::Rmw { addr, op: RmwOp::Lock, .. }) => {
                self.cell_of(st, t, addr).is_ok_and(|c| self.mem(st, c) != 0)
            }
            Some(Instr::Load { .. }) => match self.awaits[t].get(pc).copied().flatten() {
                Some(a) if self.await_info[t][a].first_load == Some(pc as u32) => !self.dry_run_await(st, t),
                _ => false,
            },
            _ => false,
        }
    }

    /// The loads of thread `t`'s attempt if it ran now and failed, for a
    /// thread [`Machine::gated`] at the end of an execution: each reads the
    /// cell's present value (statement, cell, value). What an exploration
    /// that runs every attempt records for a thread stuck there.
    pub fn attempt_reads(&self, st: &State, t: usize, mut out: impl FnMut(StmtId, Cell, i64)) {
        if !self.gated(st, t) {
            return;
        }
        let pc = st.pc_at(t) as usize;
        let code = &self.prog.threads[t].code;
        match code[pc] {
            Instr::Rmw { addr, stmt, .. } => {
                if let Ok(c) = self.cell_of(st, t, addr) {
                    out(stmt, c, self.mem(st, c));
                }
            }
            _ => {
                // A failing one-cell attempt runs every load of its await
                // (each test fails), all reading one cell.
                let check = self.awaits[t][pc].map_or(pc, |a| self.await_info[t][a].check as usize);
                for ins in &code[pc..check] {
                    if let Instr::Load { addr: Addr::Fixed(c), stmt, .. } = *ins {
                        out(stmt, c, self.read(st, t, c).0);
                    }
                }
            }
        }
    }

    /// Is `pc` inside one of thread `t`'s awaits (its loads and check)?
    pub fn in_await(&self, t: usize, pc: u32) -> bool {
        self.awaits[t].get(pc as usize).copied().flatten().is_some()
    }

    /// Would thread `t` wait forever if nothing else changed: stuck, or its
    /// next step is an `await`/`lock` that would fail now, or cannot happen?
    pub fn blocked(&self, st: &State, t: usize) -> bool {
        self.blocked_with(st, t, false)
    }

    /// The same, as if thread `t`'s PSLO histories held only the memory
    /// value (RELAXER's Phase II drops them when the thread reads).
    pub fn blocked_settled(&self, st: &State, t: usize) -> bool {
        self.blocked_with(st, t, true)
    }

    fn blocked_with(&self, st: &State, t: usize, settled: bool) -> bool {
        match st.threads[t] {
            ThreadStatus::Running | ThreadStatus::Stuck => {}
            _ => return false,
        }
        let pc = st.pc_at(t) as usize;
        if let Some(&Instr::Rmw { addr, op: RmwOp::Lock, .. }) = self.prog.threads[t].code.get(pc) {
            if let Ok(c) = self.cell_of(st, t, addr) {
                return self.mem(st, c) != 0;
            }
        }
        if self.awaits[t].get(pc).copied().flatten().is_some() {
            return !self.dry_run_await_with(st, t, settled);
        }
        st.threads[t] == ThreadStatus::Stuck || !self.enabled(st, t)
    }

    /// Some thread is unfinished, every unfinished one is blocked, no
    /// buffer can commit and (PSLO) every history holds only the memory
    /// value — what every retry of an `await` reads from then on: a deadlock.
    pub fn deadlocked(&self, st: &State) -> bool {
        let unfinished = |t: usize| matches!(st.threads[t], ThreadStatus::Running | ThreadStatus::Stuck);
        (0..self.threads).any(unfinished)
            && (0..self.threads).all(|t| !unfinished(t) || self.blocked(st, t))
            && st.pending().iter().all(|&n| n == 0)
            && st.unsettled().iter().all(|&n| n == 0)
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
        st.threads.iter().all(|t| *t == ThreadStatus::Done) && st.pending().iter().all(|&n| n == 0)
    }

    /// What `proc`'s next transition accesses (call only when enabled).
    pub fn access(&self, st: &State, proc: usize) -> Access {
        let owner = self.owner(proc) as u16;
        let mut acc = Access { proc: proc as u32, owner, ..Access::NONE };
        if self.is_history(proc) {
            acc.cell = self.proc_cell(proc).unwrap_or(NONE);
            acc.pop = true;
            return acc;
        }
        let pslo = self.model.has_histories();
        if proc >= self.threads {
            if let Some(e) = st.bufs[proc - self.threads].front() {
                acc.cell = e.cell;
                acc.write = true;
                acc.is_commit = true;
                acc.mem = true;
                if !pslo {
                    acc.fwd = e.store;
                    acc.origin = e.origin;
                }
            }
            return acc;
        }
        let t = proc;
        acc.at = st.pc_at(t);
        match self.prog.threads[t].code.get(st.pc_at(t) as usize) {
            Some(&Instr::Load { addr, .. }) => {
                if let Ok(c) = self.cell_of(st, t, addr) {
                    acc.cell = c;
                    // A PSLO load reads its own buffer or history, never memory.
                    acc.mem = !pslo;
                    acc.hist = pslo && self.buf_of(st, t, c).is_none_or(|b| b.is_empty());
                    // TSO/PSO: a load that forwards reads no memory.
                    if let Some(s) = self.forwarded(st, t, c).filter(|_| !pslo) {
                        acc.fwd = s;
                        acc.mem = false;
                    }
                }
            }
            Some(&Instr::Store { addr, .. }) if !self.model.buffered() => {
                if let Ok(c) = self.cell_of(st, t, addr) {
                    acc.cell = c;
                    acc.write = true;
                    acc.mem = true;
                }
            }
            Some(&Instr::Rmw { addr, op, labels, .. }) => {
                if let Ok(c) = self.cell_of(st, t, addr) {
                    acc.cell = c;
                    acc.mem = true;
                    // A lock attempt or a cas that fails only reads.
                    acc.write = match op {
                        RmwOp::Lock => self.mem(st, c) == 0,
                        RmwOp::Cas { expected, .. } => self.mem(st, c) == self.val(st, t, expected),
                        _ => true,
                    };
                }
                acc.all_cells = pslo && self.model.rmw_is_full_fence(labels);
            }
            Some(&Instr::Fence { kind, .. }) => acc.all_cells = self.fence_resets(kind),
            _ => {}
        }
        acc
    }

    /// Execute `proc`'s next transition (it must be enabled). Returns the
    /// transitions that must precede it besides those on the same cell:
    /// for a commit, the transition that buffered the store; for a history
    /// pop (which logs no event), the one that appended the value it exposes.
    pub fn step(&self, st: &mut State, proc: usize, step: u32, log: &mut Vec<Event>) -> u32 {
        if self.is_history(proc) {
            let h = proc - self.threads - self.buffers();
            st.hist[h].pop_front().expect("pop of an empty history");
            if st.hist[h].len() == 1 {
                *st.shrunk_at_mut(h) = step;
                *st.unsettled_at_mut(self.hist_pairs.owner(h)) -= 1;
            }
            return st.hist[h][0].origin;
        }
        if proc >= self.threads {
            let b = proc - self.threads;
            let e = st.bufs[b].pop_front().expect("commit of an empty buffer");
            let t = self.owner(proc);
            *st.pending_at_mut(t) -= 1;
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
            self.set_mem(st, e.cell, e.value, idx);
            self.record_write(st, t, e.cell, e.value, idx, step);
            return e.origin;
        }
        let t = proc;
        let pc = st.pc_at(t) as usize;
        let ins = self.prog.threads[t].code[pc];
        match ins {
            Instr::Load { dst, addr, stmt, .. } => match self.cell_of(st, t, addr) {
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
            Instr::Store { addr, val, stmt, .. } => match self.cell_of(st, t, addr) {
                Ok(cell) => {
                    let value = self.val(st, t, val);
                    self.issue_store(st, t, cell, value, stmt, step, log);
                }
                Err(k) => return self.fail_step(st, t, stmt, k, log),
            },
            Instr::Rmw { dst, addr, op, stmt, .. } => match self.cell_of(st, t, addr) {
                Ok(cell) if op == RmwOp::Lock && self.mem(st, cell) != 0 => {
                    // The lock is taken: the attempt reads it, and the thread waits.
                    self.log_read_only(st, t, cell, stmt, step, NONE, log);
                    st.threads[t] = ThreadStatus::Stuck;
                    return NONE;
                }
                Ok(cell) if matches!(op, RmwOp::Cas { expected, .. } if self.mem(st, cell) != self.val(st, t, expected)) =>
                {
                    // A cas that fails writes nothing (as C11's
                    // compare-exchange, and as `run` records it on the CPU):
                    // an atomic read, ordered as its atomic is.
                    let old = self.log_read_only(st, t, cell, stmt, step, ATOMIC_READ, log);
                    self.set_reg(st, t, dst, old);
                }
                Ok(cell) => {
                    let old = self.mem(st, cell);
                    let new = match op {
                        RmwOp::Xchg(v) => self.val(st, t, v),
                        RmwOp::Fetch(bop, v) => bop.eval(old, self.val(st, t, v)).unwrap_or(old),
                        RmwOp::Cas { expected, new, .. } => {
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
                        rf: self.writer(st, cell),
                        store: NONE,
                        step,
                    });
                    self.set_mem(st, cell, new, idx);
                    self.record_write(st, t, cell, new, idx, step);
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
        *st.pc_at_mut(t) = pc as u32 + 1;
        self.run_local(st, t, step, log);
        NONE
    }

    fn fail_step(&self, st: &mut State, t: usize, stmt: StmtId, k: FailureKind, log: &[Event]) -> u32 {
        self.fail(st, t, stmt, k, log);
        NONE
    }

    /// The value of every observable in a final state.
    pub fn observe(&self, st: &State) -> Vec<i64> {
        let mut out = Vec::with_capacity(self.prog.observables.len());
        self.observe_into(st, &mut out);
        out
    }

    /// [`Machine::observe`] into `out` (cleared first): no allocation once
    /// `out` is big enough.
    pub fn observe_into(&self, st: &State, out: &mut Vec<i64>) {
        out.clear();
        out.extend(self.prog.observables.iter().map(|o| match o.kind {
            ir::ObservableKind::Reg { thread, reg } => self.reg(st, thread as usize, reg),
            ir::ObservableKind::Mem(c) => self.mem(st, c),
        }));
    }

    /// Evaluate a condition on a final state.
    /// A condition's truth in a final state; `None` if it divides by zero.
    pub fn eval(&self, e: &ir::CondExpr, st: &State) -> Option<bool> {
        e.eval(&|t, r| self.reg(st, t as usize, r), &|c| self.mem(st, c)).map(|v| v != 0)
    }
}

/// The cell address `a` denotes given a thread's registers, or the failure
/// it causes (an index out of bounds, a byte address that is no cell of the
/// `cells` there are). One definition for the explorer and the hardware
/// runner, so both fail on the same accesses.
pub fn resolve(regs: &[i64], a: Addr, layout: &ir::Layout) -> Result<Cell, FailureKind> {
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
            layout.cell(a).ok_or(FailureKind::BadAddress)
        }
    }
}

/// Does a fence of this kind need the buffers drained under `model`? (All a
/// fence does besides [`fence_resets`]: two kinds alike in both act alike.)
pub fn fence_drains(model: Model, kind: FenceKind) -> bool {
    model.drains(kind)
}

/// Does a fence of this kind reset the thread's load histories under
/// `model` (PSLO: `rr`, `wr` and `full`)?
pub fn fence_resets(model: Model, kind: FenceKind) -> bool {
    model.resets(kind)
}
