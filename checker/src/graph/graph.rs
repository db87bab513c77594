//! An execution graph: each thread's events in program order, what each
//! read reads from (rf), the coherence order of each cell (co), and the
//! order in which the exploration added the events (stamps).
//!
//! Threads are interpreted by the machine itself: an SC [`Machine`] state
//! holds every thread's registers, pc, loop counters and status, and a
//! thread's next event is the machine's next step of that thread with the
//! value its read reads put in memory first. So a graph's threads behave
//! exactly as in the machine (branches, asserts, awaits, `lock`, run-time
//! errors, the loop bound) without a second interpreter.

use crate::machine::{self, EventKind, Machine, State};
use litmus_ir::{Cell, FenceKind, Instr, Labels, Program, StmtId};

/// The thread number of the initial writes (`index` is their cell).
pub const INIT: u16 = u16::MAX;

/// An event: the `index`-th event of `thread`, or an initial write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id {
    pub thread: u16,
    pub index: u32,
}

impl Id {
    pub fn init(cell: Cell) -> Id {
        Id { thread: INIT, index: cell }
    }
    pub fn is_init(self) -> bool {
        self.thread == INIT
    }
}

/// One memory event: a load, a store, an atomic (which both reads and
/// writes), or a `lock` attempt that found the lock taken (reads only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ev {
    pub cell: Cell,
    pub reads: bool,
    pub writes: bool,
    /// An atomic or `lock` attempt: it waits for the buffers an atomic
    /// waits for and never forwards from its own buffer.
    pub atomic: bool,
    /// An atomic's labels (herd's `X` for an x86 locked one): the model
    /// says whether they make it a full fence.
    pub labels: Labels,
    /// Writes: the value written; reads only: the value read.
    pub value: i64,
    /// Reads: the write read from.
    pub rf: Id,
    pub stmt: StmtId,
    /// The fences (bits of [`fence_bit`]) its thread ran since its previous
    /// event: a fence only orders what comes after it, so it is kept with
    /// the next event (a fence with nothing after it orders nothing).
    pub fences: u8,
    /// When the exploration added it (increasing along each thread).
    pub stamp: u32,
    /// Added maximally: a read reading the co-last write, a write placed
    /// co-last (TruSt's condition for deleting it in a backward revisit).
    pub added_max: bool,
    /// May be revisited by a later write (false once in the porf-prefix of
    /// a write that revisited backwards: its place is fixed).
    pub revisitable: bool,
}

pub fn fence_bit(k: FenceKind) -> u8 {
    match k {
        FenceKind::Full => 1,
        FenceKind::WW => 2,
        FenceKind::WR => 4,
        FenceKind::RR => 8,
        // A RISC-V fence, in the x86 kinds' terms (the graph explorer
        // answers x86's models; RISC-V's are the candidate explorer's).
        k if k.orders(true, false) => 1,
        k if k.orders(true, true) => 2,
        _ => 8,
    }
}

/// The fence bits ([`fence_bit`]) of the kinds that drain under `model`.
pub fn draining_fences(model: crate::machine::Model) -> u8 {
    [FenceKind::Full, FenceKind::WW, FenceKind::WR, FenceKind::RR]
        .into_iter()
        .filter(|&k| model.drains(k))
        .fold(0, |bits, k| bits | fence_bit(k))
}

/// What a thread does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Not running (done, stuck, pruned, failed, cut).
    Finished,
    /// A step with no event (an access whose address fails: the thread fails).
    Silent,
    /// A load, an atomic or a `lock` attempt of `cell`.
    Read {
        cell: Cell,
        atomic: bool,
        labels: Labels,
    },
    Write {
        cell: Cell,
    },
}

#[derive(Clone, Debug)]
pub struct Graph {
    pub threads: Vec<Vec<Ev>>,
    /// Per cell, its writes in coherence order (the initial write, first,
    /// is implicit).
    pub co: Vec<Vec<Id>>,
    pub next_stamp: u32,
    /// The threads' interpreter: an SC machine state (its memory is scratch).
    pub st: State,
    /// Per thread, the fences run since its last event.
    pub pending: Vec<u8>,
}

impl Graph {
    /// The empty graph: every thread run up to its first memory access.
    pub fn new(sc: &Machine<'_>, log: &mut Vec<machine::Event>) -> Graph {
        log.clear();
        let st = sc.initial(log);
        let mut pending = vec![0u8; sc.threads];
        for e in log.iter() {
            if let EventKind::Fence(k) = e.kind {
                pending[e.thread as usize] |= fence_bit(k);
            }
        }
        Graph { threads: vec![Vec::new(); sc.threads], co: vec![Vec::new(); sc.cells], next_stamp: 0, st, pending }
    }

    /// Copy `o` into `self`, reusing allocations.
    pub fn copy_from(&mut self, o: &Graph) {
        self.threads.resize_with(o.threads.len(), Vec::new);
        for (a, b) in self.threads.iter_mut().zip(&o.threads) {
            a.clone_from(b);
        }
        self.co.resize_with(o.co.len(), Vec::new);
        for (a, b) in self.co.iter_mut().zip(&o.co) {
            a.clone_from(b);
        }
        self.next_stamp = o.next_stamp;
        self.st.clone_from(&o.st);
        self.pending.clone_from(&o.pending);
    }

    /// The first `len[t]` events of each thread `t`, with coherence
    /// restricted to them (a prefix closed under rf is an execution
    /// prefix). The interpreter state is `self`'s, not the prefix's.
    pub fn prefix(&self, len: &[u32]) -> Graph {
        let threads = self.threads.iter().zip(len).map(|(t, &n)| t[..n as usize].to_vec()).collect();
        let co = self
            .co
            .iter()
            .map(|list| list.iter().copied().filter(|w| w.index < len[w.thread as usize]).collect())
            .collect();
        Graph { threads, co, next_stamp: self.next_stamp, st: self.st.clone(), pending: self.pending.clone() }
    }

    /// Number the events densely, thread after thread: `base[t]` is thread
    /// `t`'s first number, and a last entry the count, which is returned.
    pub fn number_events(&self, base: &mut Vec<u32>) -> u32 {
        base.clear();
        let mut n = 0u32;
        for t in &self.threads {
            base.push(n);
            n += t.len() as u32;
        }
        base.push(n);
        n
    }

    pub fn ev(&self, id: Id) -> &Ev {
        &self.threads[id.thread as usize][id.index as usize]
    }

    pub fn ev_mut(&mut self, id: Id) -> &mut Ev {
        &mut self.threads[id.thread as usize][id.index as usize]
    }

    /// The value a write wrote.
    pub fn value(&self, prog: &Program, w: Id) -> i64 {
        if w.is_init() {
            prog.init[w.index as usize]
        } else {
            self.ev(w).value
        }
    }

    /// The writes co-after `w` (every write of the cell for the initial one).
    pub fn co_after(&self, cell: Cell, w: Id) -> &[Id] {
        let list = &self.co[cell as usize];
        if w.is_init() {
            return list;
        }
        match list.iter().position(|&x| x == w) {
            Some(p) => &list[p + 1..],
            None => &[],
        }
    }

    /// The first thread still running, in thread order (TruSt's fixed
    /// order of adding events).
    pub fn first_running(&self) -> Option<usize> {
        (0..self.threads.len()).find(|&t| self.st.running(t))
    }

    /// What thread `t` does next.
    pub fn peek(&self, sc: &Machine<'_>, t: usize) -> Next {
        if !self.st.running(t) {
            return Next::Finished;
        }
        match sc.prog.threads[t].code.get(self.st.pc_at(t) as usize) {
            Some(&Instr::Load { addr, .. }) => match sc.cell_of(&self.st, t, addr) {
                Ok(cell) => Next::Read { cell, atomic: false, labels: Labels::NONE },
                Err(_) => Next::Silent,
            },
            Some(&Instr::Rmw { addr, labels, .. }) => match sc.cell_of(&self.st, t, addr) {
                Ok(cell) => Next::Read { cell, atomic: true, labels },
                Err(_) => Next::Silent,
            },
            Some(&Instr::Store { addr, .. }) => match sc.cell_of(&self.st, t, addr) {
                Ok(cell) => Next::Write { cell },
                Err(_) => Next::Silent,
            },
            _ => Next::Silent,
        }
    }

    /// Run thread `t`'s next step, its read (if any) reading `value`; the
    /// machine event it made and the fences that preceded it.
    pub fn exec(
        &mut self,
        sc: &Machine<'_>,
        t: usize,
        read: Option<(Cell, i64)>,
        log: &mut Vec<machine::Event>,
    ) -> (Option<machine::Event>, u8) {
        if let Some((cell, v)) = read {
            let w = sc.writer(&self.st, cell);
            sc.set_mem(&mut self.st, cell, v, w);
        }
        log.clear();
        sc.step(&mut self.st, t, 0, log);
        let before = std::mem::take(&mut self.pending[t]);
        let mut main = None;
        for e in log.iter() {
            match e.kind {
                EventKind::Fence(k) => self.pending[t] |= fence_bit(k),
                _ if main.is_none() => main = Some(*e),
                _ => {}
            }
        }
        (main, before)
    }

    /// Append thread `t`'s next event (a read reads `rf`; a store gets no
    /// coherence place here). Returns its id, or `None` if the step made no
    /// event.
    pub fn add(
        &mut self,
        sc: &Machine<'_>,
        t: usize,
        next: Next,
        rf: Option<Id>,
        log: &mut Vec<machine::Event>,
    ) -> Option<Id> {
        let (cell, atomic, labels) = match next {
            Next::Read { cell, atomic, labels } => (cell, atomic, labels),
            Next::Write { cell } => (cell, false, Labels::NONE),
            _ => {
                self.exec(sc, t, None, log);
                return None;
            }
        };
        let read = rf.map(|w| (cell, self.value(sc.prog, w)));
        let (main, fences) = self.exec(sc, t, read, log);
        let e = main?;
        let ev = Ev {
            cell,
            reads: matches!(e.kind, EventKind::Load | EventKind::Rmw),
            writes: matches!(e.kind, EventKind::Store | EventKind::Rmw),
            atomic,
            labels,
            value: e.value,
            rf: rf.unwrap_or(Id::init(cell)),
            stmt: e.stmt,
            fences,
            stamp: self.next_stamp,
            added_max: false,
            revisitable: true,
        };
        self.next_stamp += 1;
        let id = Id { thread: t as u16, index: self.threads[t].len() as u32 };
        self.threads[t].push(ev);
        Some(id)
    }

    /// The porf-prefix of `a` (a's program-order predecessors, what they
    /// read from, recursively, and `a`): per thread, its length.
    pub fn porf_view(&self, a: Id, view: &mut Vec<u32>, stack: &mut Vec<Id>) {
        view.clear();
        view.resize(self.threads.len(), 0);
        stack.clear();
        stack.push(a);
        while let Some(id) = stack.pop() {
            if id.is_init() {
                continue;
            }
            let t = id.thread as usize;
            let old = view[t];
            if id.index < old {
                continue;
            }
            view[t] = id.index + 1;
            for e in &self.threads[t][old as usize..=id.index as usize] {
                if e.reads {
                    stack.push(e.rf);
                }
            }
        }
    }

    /// Re-run the threads `redo` names from `init`'s state over the events
    /// kept, each read reading its rf's value: their registers, statuses,
    /// written values and (for a `lock` attempt) whether it writes are then
    /// those of the graph. The other threads' interpreter states must be
    /// those of their events already: a revisit changes what one read reads
    /// (the last event of its thread, with no reader left) and deletes
    /// suffixes, so every other thread's events, values included, are as
    /// they were (the kept events are closed under po and rf).
    pub fn replay_threads(&mut self, sc: &Machine<'_>, init: &Graph, redo: &[bool], log: &mut Vec<machine::Event>) {
        for (t, &again) in redo.iter().enumerate().take(self.threads.len()) {
            if again {
                sc.copy_thread(&mut self.st, &init.st, t);
                self.pending[t] = init.pending[t];
                self.replay_thread(sc, t, log);
            }
        }
    }

    fn replay_thread(&mut self, sc: &Machine<'_>, t: usize, log: &mut Vec<machine::Event>) {
        for i in 0..self.threads[t].len() {
            let ev = self.threads[t][i];
            let read = ev.reads.then(|| (ev.cell, self.value(sc.prog, ev.rf)));
            debug_assert!(
                matches!(self.peek(sc, t), Next::Read { cell, .. } | Next::Write { cell } if cell == ev.cell),
                "replay diverged"
            );
            let (main, fences) = self.exec(sc, t, read, log);
            let Some(e) = main else {
                debug_assert!(false, "replay made no event");
                self.threads[t].truncate(i);
                break;
            };
            let x = &mut self.threads[t][i];
            x.value = e.value;
            x.reads = matches!(e.kind, EventKind::Load | EventKind::Rmw);
            x.writes = matches!(e.kind, EventKind::Store | EventKind::Rmw);
            x.fences = fences;
        }
    }

    /// The final memory (each cell's co-last value) into the interpreter's
    /// state, for the machine's verdict and the final condition.
    pub fn set_final_memory(&mut self, sc: &Machine<'_>) {
        for &c in sc.touched() {
            let v = match self.co[c as usize].last() {
                Some(&w) => self.ev(w).value,
                None => sc.prog.init[c as usize],
            };
            sc.set_mem(&mut self.st, c, v, machine::NONE);
        }
    }
}
