//! The transition system the stateful search explores: the program under
//! SC, and — for robustness — Trencher's *attacks* (Bouajjani, Derevenetc,
//! Meyer, ESOP'13) run inside the same state space.
//!
//! An attack under TSO: some thread, the *attacker*, delays one store
//! `w_A` (it goes into a private overlay instead of memory; later stores of
//! the attacker join it there, and its loads of those cells forward from
//! it); it goes on running, never past a fence or an atomic (they would
//! drain `w_A`), until one of its loads reads memory: the *attack access*
//! `r_A`, after which it stops. Every other thread runs under SC. From
//! `r_A`'s location on, *helpers* are tracked: a thread becomes one when its
//! access conflicts with a location marked by the attack access or an
//! earlier helper (it reads a marked write, or writes a marked location),
//! and marks what it accesses from then on. The attack succeeds when a
//! helper touches `w_A`'s location: then `w_A →po r_A →hb … → access →fr/co
//! w_A` is a happens-before cycle of a real TSO execution (the overlay
//! stores commit after it). The program is robust iff no attack succeeds
//! from any reachable SC state (the paper's Theorem). The extra state — the
//! overlay, one mark per location, a bit per helper — is finite, so SC
//! reachability with a visited set decides robustness for every iteration.
//!
//! PSO adds store→store reordering: the attacker's stores to other
//! locations may also commit at once (as PSO's per-location buffers allow),
//! and such a commit, or a native atomic on another location, may be the
//! attack access. See `docs/unbounded.md` for why this is complete.
//!
//! Moves are a thread and a choice; the SC part of a node is a
//! [`machine::State`](crate::machine::State) under SC whose loops are not
//! counted.

use super::flow::Flow;
use crate::machine::{fence_drains, Event, EventKind, FailureKind, Machine, Model, State, ThreadStatus, NONE};
use crate::model::Buffers;
use litmus_ir::{Cell, Instr, Program, StmtId};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Phase {
    /// No attacker yet: the program under SC.
    #[default]
    Sc = 0,
    /// The attacker runs with `w_A` delayed, before its attack access.
    Attacking = 1,
    /// The attack access happened; helpers are being tracked.
    Helping = 2,
}

/// Attack model tags (a node's `Atk::model`).
pub const TSO: u8 = 0;
pub const PSO: u8 = 1;

pub fn model_of(tag: u8) -> Model {
    Model::ALL.into_iter().find(|&m| tag_of(m) == Some(tag)).expect("a tag names a model")
}

/// The attack search's name for a model whose robustness attacks decide.
pub fn tag_of(m: Model) -> Option<u8> {
    match m.buffers() {
        _ if !m.decided_by_attacks() => None,
        Buffers::PerThread => Some(TSO),
        Buffers::PerCell => Some(PSO),
        Buffers::None | Buffers::Axiomatic => None,
    }
}

/// Marks of the helpers' happens-before tracking.
pub const READ: u8 = 1;
pub const WRITE: u8 = 2;

/// The attack's part of a node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Atk {
    pub phase: Phase,
    pub model: u8,
    pub attacker: u16,
    /// The pc of the delayed store `w_A`.
    pub w_pc: u32,
    /// The pc of the attack access (`NONE` before it).
    pub r_pc: u32,
    /// `w_A`'s location.
    pub cell: Cell,
    /// The attacker's delayed stores: the newest value per location, by location.
    pub overlay: Vec<(Cell, i64)>,
    /// Locations hb-after the attack access, by location: `READ` or `WRITE`.
    pub marks: Vec<(Cell, u8)>,
    /// Threads whose accesses are hb-after the attack access (bit per thread).
    pub helpers: u64,
}

impl Atk {
    pub fn reset(&mut self) {
        self.phase = Phase::Sc;
        self.model = 0;
        self.attacker = 0;
        self.w_pc = 0;
        self.r_pc = NONE;
        self.cell = 0;
        self.overlay.clear();
        self.marks.clear();
        self.helpers = 0;
    }

    fn overlaid(&self, c: Cell) -> Option<usize> {
        self.overlay.binary_search_by_key(&c, |e| e.0).ok()
    }

    fn mark(&self, c: Cell) -> u8 {
        self.marks.binary_search_by_key(&c, |e| e.0).map_or(0, |i| self.marks[i].1)
    }

    fn set_mark(&mut self, c: Cell, k: u8) {
        match self.marks.binary_search_by_key(&c, |e| e.0) {
            Ok(i) => self.marks[i].1 = k,
            Err(i) => self.marks.insert(i, (c, k)),
        }
    }

    fn set_overlay(&mut self, c: Cell, v: i64) {
        match self.overlay.binary_search_by_key(&c, |e| e.0) {
            Ok(i) => self.overlay[i].1 = v,
            Err(i) => self.overlay.insert(i, (c, v)),
        }
    }
}

/// A node of the search: the SC machine state and the attack's state.
pub struct Node {
    pub st: State,
    pub atk: Atk,
}

impl Clone for Node {
    fn clone(&self) -> Self {
        Node { st: self.st.clone(), atk: self.atk.clone() }
    }
    fn clone_from(&mut self, o: &Self) {
        self.st.clone_from(&o.st);
        self.atk.clone_from(&o.atk);
    }
}

/// What a move does beyond its thread's SC step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Choice {
    /// The thread's next step (the attacker's: through its overlay).
    Step,
    /// Become the attacker (this model), delaying the store at hand.
    Attack(u8),
    /// The attacker's attack access (then it stops).
    Access,
    /// PSO: the attacker's store to a location it has not delayed commits at once.
    Commit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub thread: u16,
    pub choice: Choice,
}

/// A successful attack: the helper access that closes the cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Closing {
    pub thread: u16,
    pub pc: u32,
    pub stmt: StmtId,
}

/// What a move did.
#[derive(Clone, Copy, Debug)]
pub struct Applied {
    /// The memory access of the move (its visible operation), if any.
    pub event: Option<Event>,
    /// The thread failed in this move.
    pub failed: Option<(StmtId, FailureKind)>,
    /// The attack succeeded with this move.
    pub success: Option<Closing>,
}

pub struct System<'p> {
    pub prog: &'p Program,
    /// The program under SC, loops not counted.
    pub m: Machine<'p>,
    pub flow: Flow,
    /// The models attacked (`TSO`, `PSO`); none: the SC state space only.
    pub attack_models: Vec<u8>,
    /// Only this thread may attack (fence search per thread).
    pub only_attacker: Option<u16>,
    /// Only stores of these (model tag, statement)s may start an attack
    /// (sorted): a fenced program's re-check, whose attacks are among the
    /// unfenced program's (fences only take attacks away; statement ids
    /// stay). `None`: every store.
    pub attack_stores: Option<Vec<(u8, StmtId)>>,
    /// The machine is this relaxed model's (with store buffers) and the
    /// moves are its processes — threads and buffers: the model's own
    /// states, no attacks (`crate::unbounded::relaxed`).
    pub relaxed: bool,
    /// No thread can go back to a pc it left (no backward jump): every
    /// move makes progress, the state graph has no cycle, and a
    /// persistent set needs no cycle proviso.
    pub acyclic: bool,
}

/// Does every jump go forward? (A failed `await` leaves its thread stuck
/// rather than jumping back.)
fn acyclic(prog: &Program) -> bool {
    prog.threads.iter().all(|th| {
        th.code.iter().enumerate().all(|(pc, ins)| match *ins {
            Instr::Jump { target } | Instr::Branch { target, .. } => target as usize > pc,
            _ => true,
        })
    })
}

impl<'p> System<'p> {
    pub fn new(prog: &'p Program, models: &[Model]) -> System<'p> {
        let m = Machine::new(prog, Model::Sc, u32::MAX, u32::MAX).with_unbounded_loops();
        let flow = Flow::new(prog, &m);
        let attack_models = models.iter().filter_map(|&m| tag_of(m)).collect();
        System {
            prog,
            m,
            flow,
            attack_models,
            only_attacker: None,
            attack_stores: None,
            relaxed: false,
            acyclic: acyclic(prog),
        }
    }

    /// The states of a relaxed model itself (TSO or PSO, buffers of at most
    /// `buffer_bound` stores): each process's step a move, no attacks.
    pub fn relaxed(prog: &'p Program, model: Model, buffer_bound: u32) -> System<'p> {
        let m = Machine::new(prog, model, u32::MAX, buffer_bound).with_unbounded_loops();
        let flow = Flow::new(prog, &m);
        System {
            prog,
            m,
            flow,
            attack_models: Vec::new(),
            only_attacker: None,
            attack_stores: None,
            relaxed: true,
            acyclic: acyclic(prog),
        }
    }

    pub fn initial(&self) -> Node {
        let mut log = Vec::new();
        Node { st: self.m.initial(&mut log), atk: Atk { r_pc: NONE, ..Atk::default() } }
    }

    fn slot(&self, c: Cell) -> Option<usize> {
        self.m.touched().binary_search(&c).ok()
    }

    /// May a running thread other than `not` (and the stopped attacker)
    /// still access `c` — write it, if `write_only`?
    pub fn others_may(&self, st: &State, not: usize, c: Cell, write_only: bool) -> bool {
        let Some(s) = self.slot(c) else { return false };
        (0..st.threads.len()).any(|j| {
            j != not && st.threads[j] == ThreadStatus::Running && {
                let pc = st.pc_at(j) as usize;
                self.flow.writes[j][pc].has(s) || (!write_only && self.flow.reads[j][pc].has(s))
            }
        })
    }

    /// The instruction thread `t` stands at.
    fn at(&self, st: &State, t: usize) -> Option<Instr> {
        self.prog.threads[t].code.get(st.pc_at(t) as usize).copied()
    }

    /// The moves enabled at a node.
    pub fn moves(&self, n: &Node, out: &mut Vec<Move>) {
        out.clear();
        let st = &n.st;
        let a = &n.atk;
        if self.relaxed {
            for p in 0..self.m.procs() {
                if (p >= st.threads.len() || st.running(p)) && self.m.enabled(st, p) {
                    out.push(Move { thread: p as u16, choice: Choice::Step });
                }
            }
            return;
        }
        for t in 0..st.threads.len() {
            if !st.running(t) || !self.m.enabled(st, t) {
                continue;
            }
            let th = t as u16;
            let step = Move { thread: th, choice: Choice::Step };
            match a.phase {
                Phase::Sc => {
                    out.push(step);
                    if self.attack_models.is_empty() || self.only_attacker.is_some_and(|o| o != th) {
                        continue;
                    }
                    if let Some(Instr::Store { addr, stmt, .. }) = self.at(st, t) {
                        if let Ok(c) = self.m.cell_of(st, t, addr) {
                            // A store nobody else touches can close no cycle.
                            if self.others_may(st, t, c, false) {
                                for &model in &self.attack_models {
                                    if self
                                        .attack_stores
                                        .as_ref()
                                        .is_none_or(|a| a.binary_search(&(model, stmt)).is_ok())
                                    {
                                        out.push(Move { thread: th, choice: Choice::Attack(model) });
                                    }
                                }
                            }
                        }
                    }
                }
                Phase::Attacking if th == a.attacker => self.attacker_moves(n, t, out),
                Phase::Attacking => out.push(step),
                Phase::Helping if th != a.attacker => out.push(step),
                Phase::Helping => {}
            }
        }
    }

    fn attacker_moves(&self, n: &Node, t: usize, out: &mut Vec<Move>) {
        let (st, a) = (&n.st, &n.atk);
        let th = t as u16;
        let mv = |choice| Move { thread: th, choice };
        let pso = a.model == PSO;
        match self.at(st, t) {
            Some(Instr::Load { addr, .. }) => {
                let Ok(c) = self.m.cell_of(st, t, addr) else { return };
                out.push(mv(Choice::Step));
                // Reading memory (not its own delayed store), and someone may
                // still write what it read.
                if a.overlaid(c).is_none() && self.others_may(st, t, c, true) {
                    out.push(mv(Choice::Access));
                }
            }
            Some(Instr::Store { addr, .. }) => {
                let Ok(c) = self.m.cell_of(st, t, addr) else { return };
                out.push(mv(Choice::Step));
                if pso && c != a.cell && a.overlaid(c).is_none() {
                    out.push(mv(Choice::Commit));
                    if self.others_may(st, t, c, false) {
                        out.push(mv(Choice::Access));
                    }
                }
            }
            Some(Instr::Rmw { addr, labels, .. }) => {
                // TSO: an atomic drains the buffer. PSO: one that is no full
                // fence (a native one) drains its own location's only.
                let Ok(c) = self.m.cell_of(st, t, addr) else { return };
                if pso && !self.m.model.rmw_is_full_fence(labels) && c != a.cell && a.overlaid(c).is_none() {
                    out.push(mv(Choice::Step));
                    if self.others_may(st, t, c, false) {
                        out.push(mv(Choice::Access));
                    }
                }
            }
            _ => {}
        }
    }

    /// Could this move be taken alone (a persistent set of one): its
    /// thread has no other move, and its access is independent of every
    /// access the other threads can still make.
    pub fn independent(&self, n: &Node, mv: Move, moves: &[Move]) -> bool {
        if self.relaxed {
            return self.relaxed_independent(&n.st, mv.thread as usize);
        }
        if mv.choice != Choice::Step || moves.iter().filter(|m| m.thread == mv.thread).count() != 1 {
            return false;
        }
        let t = mv.thread as usize;
        let st = &n.st;
        let addr = match self.at(st, t) {
            Some(Instr::Load { addr, .. }) => (addr, true),
            Some(Instr::Store { addr, .. } | Instr::Rmw { addr, .. }) => (addr, false),
            _ => return true,
        };
        match self.m.cell_of(st, t, addr.0) {
            // It fails: local to its thread.
            Err(_) => true,
            Ok(c) => !self.others_may(st, t, c, addr.1),
        }
    }

    /// A relaxed model's process move that can be taken alone: its access
    /// commutes with everything the other threads and their buffers can
    /// still do. A thread's load, with nobody else left to write its cell;
    /// its atomic, with nobody else left to touch it; a fence or a store
    /// (only its own buffers see them); a commit whose cell nobody else
    /// reads, and nobody else writes or nobody at all reads any more (the
    /// key then drops the cell's value, so the order of writes to it is
    /// unobservable). A thread's own commits commute with its steps: a load
    /// forwards the newest store either way, a store appends behind them.
    fn relaxed_independent(&self, st: &State, p: usize) -> bool {
        let m = &self.m;
        let (t, cell, write) = if m.is_buffer(p) {
            let Some(e) = st.bufs[p - st.threads.len()].front() else { return false };
            (m.owner(p), e.cell, true)
        } else {
            let t = p;
            let (addr, write) = match self.at(st, t) {
                Some(Instr::Load { addr, .. }) => (addr, false),
                Some(Instr::Rmw { addr, .. }) => (addr, true),
                Some(_) => return true,
                None => return false,
            };
            match m.cell_of(st, t, addr) {
                Err(_) => return true,
                Ok(c) => (t, c, write),
            }
        };
        let Some(s) = self.slot(cell) else { return false };
        let others_read = (0..st.threads.len()).any(|j| {
            j != t
                && matches!(st.threads[j], ThreadStatus::Running | ThreadStatus::Stuck)
                && self.flow.reads_at(j, st.pc_at(j)).has(s)
        });
        let others_write = self.others_may(st, t, cell, true)
            || (0..m.buffers())
                .any(|b| m.owner(st.threads.len() + b) != t && st.bufs[b].iter().any(|e| e.cell == cell));
        if !m.is_buffer(p) {
            // A load conflicts with others' writes; an atomic with any access.
            return !(others_write || write && others_read);
        }
        let dead = self.flow.live_cells(st).is_some_and(|live| live & (1 << s) == 0);
        !others_read && (!others_write || dead)
    }

    /// Apply a move. `None`: the move leads nowhere an attack could succeed
    /// from (the attacker stopped or was blocked by a fence; nobody can
    /// still touch `w_A`'s location). `log` receives the move's events.
    pub fn apply(&self, n: &mut Node, mv: Move, log: &mut Vec<Event>) -> Option<Applied> {
        let t = mv.thread as usize;
        log.clear();
        let mut applied = Applied { event: None, failed: None, success: None };
        if self.relaxed {
            self.m.step(&mut n.st, t, 0, log);
            applied.event = log.iter().find(|e| e.thread as usize == t && is_access(e)).copied();
            if let Some(ThreadStatus::Failed { stmt, kind, .. }) = n.st.threads.get(t) {
                applied.failed = Some((*stmt, *kind));
            }
            return Some(applied);
        }
        match (n.atk.phase, mv.choice) {
            (Phase::Sc, Choice::Step) => {
                self.m.step(&mut n.st, t, 0, log);
            }
            (Phase::Sc, Choice::Access | Choice::Commit) => return None,
            (Phase::Sc, Choice::Attack(model)) => {
                let Some(Instr::Store { addr, .. }) = self.at(&n.st, t) else { return None };
                let cell = self.m.cell_of(&n.st, t, addr).ok()?;
                n.atk.phase = Phase::Attacking;
                n.atk.model = model;
                n.atk.attacker = t as u16;
                n.atk.w_pc = n.st.pc_at(t);
                n.atk.r_pc = NONE;
                n.atk.cell = cell;
                n.atk.overlay.clear();
                n.atk.marks.clear();
                n.atk.helpers = 0;
                self.attacker_step(n, t, true, false, log)?;
            }
            (Phase::Attacking, choice) if t == n.atk.attacker as usize => {
                let pc = n.st.pc_at(t);
                let overlay = choice == Choice::Step;
                self.attacker_step(n, t, overlay, choice == Choice::Access, log)?;
                if choice == Choice::Access {
                    let e = *log.first()?;
                    n.atk.phase = Phase::Helping;
                    n.atk.r_pc = pc;
                    n.atk.marks.clear();
                    n.atk.set_mark(e.cell, if e.kind == EventKind::Load { READ } else { WRITE });
                    n.atk.helpers = 0;
                    // The attacker stops: its own state no longer matters.
                    n.st.threads[t] = ThreadStatus::Pruned;
                    *n.st.pc_at_mut(t) = 0;
                    let r = self.m.reg_range(t);
                    n.st.regs_mut()[r].iter_mut().for_each(|v| *v = 0);
                }
            }
            (Phase::Attacking, _) => {
                self.m.step(&mut n.st, t, 0, log);
            }
            (Phase::Helping, _) => {
                let pc = n.st.pc_at(t);
                self.m.step(&mut n.st, t, 0, log);
                if let Some(e) = log.first().copied().filter(is_access) {
                    applied.success = self.track(n, t, &e).then_some(Closing { thread: t as u16, pc, stmt: e.stmt });
                }
            }
        }
        applied.event = log.first().copied().filter(is_access);
        if let ThreadStatus::Failed { stmt, kind, .. } = n.st.threads[t] {
            applied.failed = Some((stmt, kind));
        }
        if n.atk.phase != Phase::Sc && applied.success.is_none() && !self.tidy(n) {
            return None;
        }
        Some(applied)
    }

    /// The attacker's step: its loads see its delayed stores, its stores
    /// are delayed (`overlay`) or reach memory. A draining fence after its
    /// operation blocks it for good, unless this is its attack access.
    fn attacker_step(&self, n: &mut Node, t: usize, overlay: bool, access: bool, log: &mut Vec<Event>) -> Option<()> {
        let st = &mut n.st;
        let a = &mut n.atk;
        let target = match self.at(st, t) {
            Some(Instr::Store { addr, .. }) => self.m.cell_of(st, t, addr).ok(),
            _ => None,
        };
        // Memory as the attacker sees it.
        let mut saved: Vec<(usize, i64, u32)> = Vec::with_capacity(a.overlay.len() + 1);
        for &(c, v) in &a.overlay {
            let s = self.slot(c)?;
            saved.push((s, st.mem_at(s), st.writer_at(s)));
            *st.mem_at_mut(s) = v;
        }
        let delayed = overlay && target.is_some();
        if let Some(c) = target.filter(|&c| delayed && a.overlaid(c).is_none()) {
            let s = self.slot(c)?;
            saved.push((s, st.mem_at(s), st.writer_at(s)));
        }
        self.m.step(st, t, 0, log);
        for &(s, v, w) in saved.iter().rev() {
            *st.mem_at_mut(s) = v;
            *st.writer_at_mut(s) = w;
        }
        if delayed {
            if let Some(e) = log.first().filter(|e| e.kind == EventKind::Store) {
                a.set_overlay(e.cell, e.value);
            }
        }
        if access {
            return Some(());
        }
        let model = model_of(a.model);
        if log.iter().skip(1).any(|e| matches!(e.kind, EventKind::Fence(k) if fence_drains(model, k))) {
            return None;
        }
        st.running(t).then_some(())
    }

    /// Helper tracking for thread `t`'s access `e` (Helping phase): does it
    /// close the cycle (a helper touching `w_A`'s location)?
    fn track(&self, n: &mut Node, t: usize, e: &Event) -> bool {
        let a = &mut n.atk;
        let bit = 1u64 << t;
        let mark = a.mark(e.cell);
        let write = e.kind != EventKind::Load;
        let conflicts = if write { mark != 0 } else { mark == WRITE };
        if a.helpers & bit == 0 && !conflicts {
            return false;
        }
        a.helpers |= bit;
        if e.cell == a.cell {
            return true;
        }
        a.set_mark(e.cell, if write { WRITE } else { mark.max(READ) });
        false
    }

    /// Keep the attack's state canonical: forget marks no running thread can
    /// conflict with any more and helpers that stopped. `false`: the attack
    /// can no longer succeed (the attacker stopped before its access, or
    /// nobody can still touch `w_A`'s location).
    fn tidy(&self, n: &mut Node) -> bool {
        let st = &n.st;
        let a = &mut n.atk;
        let attacker = a.attacker as usize;
        if a.phase == Phase::Attacking && !st.running(attacker) {
            return false;
        }
        if !self.others_may(st, attacker, a.cell, false) {
            return false;
        }
        if a.phase == Phase::Helping {
            let marks = std::mem::take(&mut a.marks);
            a.marks = marks.into_iter().filter(|&(c, k)| self.others_may(st, attacker, c, k == READ)).collect();
            for t in 0..st.threads.len() {
                if !st.running(t) {
                    a.helpers &= !(1u64 << t);
                }
            }
        }
        true
    }
}

/// A memory access event (what a step of an SC thread begins with).
pub fn is_access(e: &Event) -> bool {
    matches!(e.kind, EventKind::Load | EventKind::Store | EventKind::Rmw)
}
