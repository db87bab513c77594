//! Stateless exploration with source-DPOR and sleep sets (Abdulla, Aronis,
//! Jonsson, Sagonas, POPL'14, Algorithm 1), over the processes of a
//! [`Machine`]: threads under SC; threads and their store buffers under TSO
//! and PSO (as in Abdulla et al., TACAS'15); under PSLO also the threads'
//! store histories. Every Mazurkiewicz trace is explored once: sleep sets
//! stop the others before they complete.
//!
//! Two transitions are dependent when they are of one process, or access one
//! cell and one of them writes. A store's commit also depends on the
//! transition that buffered it, and a fence or atomic on the commits that
//! had to drain first: those orders can never be reversed, so they join the
//! happens-before relation without being races.
//!
//! PSLO. A load never reads memory: it reads its own buffer or the front of
//! its own history, so it is independent of other threads' writes (a write
//! appends at the back). What a load reads is decided by the pops of its
//! history before it: a pop of `h(p, a)` races with `p`'s loads of `a` from
//! the history, in both orders. A pop follows the write that appended the
//! value it exposes (without it there is nothing to pop: not a race).
//! Nothing ever disables a pop (a commit or atomic of `p` on `a`, which
//! replaces `p`'s history of `a`, waits until it is a singleton; histories
//! stay enabled after their thread stops), so every load's chance to read a
//! later value shows up as a race with some pop after it. Whatever waits for
//! singletons — those commits and atomics, and the fences that reset the
//! histories — depends on the pops that made them so (not reversible), but
//! the writes those pops exposed could have come after it instead: those
//! pops join its clock only after its races are decided. A resetting fence
//! (like a load of every cell its thread may still load: for the other
//! cells, where it stands changes nothing its thread can observe) races
//! with the last write of each such cell by another thread unless that
//! write happens before it by another path, and every later write of one
//! by another thread races with it.
//!
//! Waiting (outcome runs, [`Limits::waits_block`]). An `await` on one cell
//! or a `lock` whose attempt would fail does not run: its thread waits, so
//! no execution ends blocked by it (GenMC's graph count, where Nidhugg
//! counts assume-blocked ones). The failed attempt an exhaustive run would
//! make there still races: at each state where a thread waits and its
//! cell was just written (or it just arrived), the attempt's races are
//! computed as if it ran there, and each reversal is planned — so an
//! earlier position where it would pass is explored. A reversal whose
//! every runnable initial is such a failing attempt is dropped: it leads
//! only to executions that end blocked. The tests hold this to the run of
//! every attempt on complete traces, deadlocks, failures and cuts.

use crate::bitset::BitSet;
use crate::clocks::Clocks;
use crate::machine::{Access, Event, Machine, State, Verdict, NONE};
use crate::model::Buffers;
use crate::progress::Tally;
use litmus_ir::Instr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExecKind {
    /// Every thread finished and every buffer drained.
    Complete,
    /// An assertion or run-time error stopped it.
    Failed,
    /// `assume` false, or a thread stuck on an `await` or `lock` that
    /// failed: no final state.
    Pruned,
    /// A loop or buffer bound cut it.
    Cut,
    /// Threads wait forever: each unfinished one is stuck on an `await` or
    /// `lock` that cannot succeed any more.
    Deadlock,
}

impl ExecKind {
    /// How an execution that can take no further step in state `st` ended
    /// (both explorers ask this of their final states).
    pub fn of(m: &Machine<'_>, st: &State) -> ExecKind {
        match m.verdict(st) {
            Verdict::Complete => ExecKind::Complete,
            Verdict::Failed => ExecKind::Failed,
            Verdict::Cut => ExecKind::Cut,
            Verdict::Pruned if m.deadlocked(st) => ExecKind::Deadlock,
            Verdict::Pruned => ExecKind::Pruned,
        }
    }
}

pub struct Execution<'a> {
    pub kind: ExecKind,
    pub events: &'a [Event],
    pub state: &'a State,
    /// The process of each transition, in order (replayable).
    pub schedule: &'a [u32],
    /// `events[..fresh]` are the first events of the execution reported
    /// before this one by the same run, unchanged (0: nothing known): a
    /// depth-first search shares long prefixes, which need not be read again.
    pub fresh: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub executions: u64,
    pub complete: u64,
    pub failed: u64,
    pub pruned: u64,
    pub cut: u64,
    pub deadlocks: u64,
    pub sleep_blocked: u64,
    pub transitions: u64,
    pub timed_out: bool,
    /// A preemption bound stopped some schedule.
    pub preemption_bounded: bool,
    /// Branches of the search the preemption bound skipped.
    pub preemption_skips: u64,
    /// Some store waited for room in a full buffer.
    pub buffer_bounded: bool,
    /// Executions in which some store waited for room in a full buffer.
    pub buffer_waits: u64,
    /// Stopped by the cancel flag.
    pub cancelled: bool,
    /// Stopped at the first finding (`--first`).
    pub first: bool,
    /// Races whose reversal had no initial that could run then: every
    /// enabled process was explored there instead.
    pub fallbacks: u64,
    /// Races whose reversal would start with an attempt that fails, left
    /// unexplored by a run whose waits block ([`Limits::waits_block`]).
    pub gate_skips: u64,
    /// A stateful search (`crate::unbounded`): the distinct states it
    /// visited (0 for the stateless explorers).
    pub states: u64,
    /// Stopped by its work budget (`Budget::max_steps`: this many steps).
    pub work_cut: Option<u64>,
    /// Stopped at a graph its model (a `.cat` file) could not judge.
    pub unjudged: Option<crate::catalog::Unjudged>,
}

impl Stats {
    /// One more maximal execution (or graph) of this kind.
    pub fn count(&mut self, kind: ExecKind) {
        match kind {
            ExecKind::Complete => self.complete += 1,
            ExecKind::Failed => self.failed += 1,
            ExecKind::Pruned => self.pruned += 1,
            ExecKind::Cut => self.cut += 1,
            ExecKind::Deadlock => self.deadlocks += 1,
        }
        self.executions += 1;
    }

    /// Add the counts of a search of another part of the same tree (flags: either).
    pub fn absorb(&mut self, o: &Stats) {
        self.executions += o.executions;
        self.complete += o.complete;
        self.failed += o.failed;
        self.pruned += o.pruned;
        self.cut += o.cut;
        self.deadlocks += o.deadlocks;
        self.sleep_blocked += o.sleep_blocked;
        self.transitions += o.transitions;
        self.timed_out |= o.timed_out;
        self.work_cut = self.work_cut.or(o.work_cut);
        self.unjudged = self.unjudged.or(o.unjudged);
        self.preemption_bounded |= o.preemption_bounded;
        self.preemption_skips += o.preemption_skips;
        self.buffer_bounded |= o.buffer_bounded;
        self.buffer_waits += o.buffer_waits;
        self.cancelled |= o.cancelled;
        self.first |= o.first;
        self.fallbacks += o.fallbacks;
        self.gate_skips += o.gate_skips;
        self.states += o.states;
    }
}

#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// The check's deadline, cancel flag, `--first` and progress display.
    pub budget: crate::budget::Budget,
    /// Iterative context bounding (CHESS): at most this many preemptions.
    /// Disables partial-order reduction. SC only.
    pub preemption_bound: Option<u32>,
    /// Outcomes only: a thread whose next attempt at an `await` or `lock`
    /// would fail waits instead of running it (see [`Machine::gated`] and
    /// the module doc), so no execution ends blocked by such an attempt.
    /// Off where something follows the events (the monitors read failed
    /// attempts too) and under a preemption bound.
    pub waits_block: bool,
}

pub enum Control {
    Continue,
    Stop,
}

/// Follows the event log as exploration extends and cuts it: the online
/// monitors ride along the depth-first search instead of re-reading every
/// execution.
pub trait EventListener {
    /// `log[from..]` was appended since the last call (in batches: before
    /// the log is cut, before an execution is reported, at the end);
    /// `clocks` holds the vector clock of every transition so far, the new
    /// ones' included (under SC, SC happens-before: see [`Clocks`]).
    fn on_events(&mut self, log: &[Event], from: usize, clocks: Clocks<'_>);
    /// The log was cut back to `len` events (told only before the events
    /// that follow the cut: a cut with nothing after it may go untold).
    fn on_truncate(&mut self, len: usize);
}

/// A listener that ignores everything.
pub struct NoListener;

impl EventListener for NoListener {
    fn on_events(&mut self, _: &[Event], _: usize, _: Clocks<'_>) {}
    fn on_truncate(&mut self, _: usize) {}
}

struct Frame {
    /// The transition taken from this state (valid below the top).
    proc: u32,
    access: Access,
    log_start: u32,
    /// To undo: the previous transition of `proc`.
    prev_of_proc: u32,
    /// The `by_key` lists this transition was pushed on (`NONE`: unused).
    pushed: [u32; 2],
    /// It was pushed on the list of PSLO resetting fences.
    pushed_fence: bool,
    backtrack: BitSet,
    sleep: BitSet,
    /// Threads left waiting here at an attempt that would fail (runs whose
    /// waits block; valid once initialized).
    waiting: BitSet,
    initialized: bool,
    /// Preemptions used to reach this state (bounded mode).
    preemptions: u32,
}

pub struct Explorer<'m, 'p> {
    m: &'m Machine<'p>,
    procs: usize,
    states: Vec<State>,
    frames: Vec<Frame>,
    /// Vector clock of each transition, stride `procs`.
    clocks: Vec<u32>,
    /// Per state (stride `procs`), for each process in its frame's sleep
    /// set: its next transition's access, or `Access::NONE` to be read
    /// from the state. Asleep, a process does not move, and only its own
    /// thread's moves (a commit of its buffer) can change what it touches,
    /// so it is read about once, not at every step below.
    slept: Vec<Access>,
    log: Vec<Event>,
    schedule: Vec<u32>,
    /// Per key, the transitions that accessed it: keys `0..cells` are memory
    /// cells; under PSLO, `cells + h` is history `h` (`Machine::hist_index`).
    by_key: Vec<Vec<u32>>,
    /// PSLO: the transitions that wait for their thread's histories (reset
    /// fences, x86 LOCK'd atomics), in order: they read every cell.
    resets: Vec<u32>,
    proc_last: Vec<u32>,
    proc_count: Vec<u32>,
    scratch_clock: Vec<u32>,
    /// `add_backtrack`'s scratch: initials and the transitions not after j.
    scratch_initials: Vec<usize>,
    scratch_v: Vec<u32>,
    pub stats: Stats,
    /// This run's executions for the budget's progress display, sent in batches.
    tally: Tally,
    /// This run leaves threads waiting at attempts that would fail
    /// ([`Limits::waits_block`]).
    gates: bool,
    /// The shortest the log was since the last execution was reported
    /// ([`Execution::fresh`]).
    low_water: usize,
}

impl<'m, 'p> Explorer<'m, 'p> {
    pub fn new(m: &'m Machine<'p>) -> Self {
        let procs = m.procs();
        Explorer {
            m,
            procs,
            states: Vec::new(),
            frames: Vec::new(),
            clocks: Vec::new(),
            slept: Vec::new(),
            log: Vec::new(),
            schedule: Vec::new(),
            by_key: vec![Vec::new(); m.cells + m.histories()],
            resets: Vec::new(),
            proc_last: vec![NONE; procs],
            proc_count: vec![0; procs],
            scratch_clock: vec![0; procs],
            scratch_initials: Vec::new(),
            scratch_v: Vec::new(),
            stats: Stats::default(),
            tally: Tally::default(),
            gates: false,
            low_water: 0,
        }
    }

    /// Can process `p` run from the (initialized) state at `depth` in this
    /// run: enabled, and not a thread left waiting at an attempt that would
    /// fail.
    #[inline]
    fn can_run(&self, depth: usize, p: usize) -> bool {
        self.m.enabled(&self.states[depth], p) && !self.frames[depth].waiting.contains(p)
    }

    /// The vector clock process `p`'s next transition (of `access`) would
    /// have from state `depth`, in the scratch clock (hand it back), and its
    /// races in `races`; the keys to file it under, and whether it is a
    /// PSLO resetting fence (see [`Self::conflicts`]).
    fn clock_and_races(
        &mut self,
        depth: usize,
        p: usize,
        access: &Access,
        preds: &mut Vec<u32>,
        late: &mut Vec<u32>,
        races: &mut Vec<u32>,
    ) -> (Vec<u32>, [u32; 2], bool) {
        preds.clear();
        late.clear();
        self.causal_preds(&self.states[depth], p, preds, late);
        let mut acc = std::mem::take(&mut self.scratch_clock);
        acc.iter_mut().for_each(|c| *c = 0);
        if self.proc_last[p] != NONE {
            acc.copy_from_slice(self.clock(self.proc_last[p]));
        }
        for &x in preds.iter() {
            join(&mut acc, self.clock(x));
        }
        races.clear();
        let (keys, is_reset) = self.conflicts(access, &mut acc, races);
        for &x in late.iter() {
            join(&mut acc, self.clock(x));
        }
        acc[p] = self.proc_count[p] + 1;
        (acc, keys, is_reset)
    }

    /// The threads waiting at state `depth` (its frame's `waiting`; a new
    /// run's frames are fresh, so without waits it stays empty). A thread's
    /// attempt is tried (a dry run) where it may have changed: its thread
    /// (or buffer) moved, or the cell it reads was written; else it is as
    /// in the state before.
    fn find_waiting(&mut self, depth: usize) {
        let st = &self.states[depth];
        let mut waiting = std::mem::take(&mut self.frames[depth].waiting);
        waiting.clear();
        let prev = (depth > 0).then(|| self.frames[depth - 1].access);
        for t in 0..self.m.threads {
            let again = prev.is_none_or(|a| a.owner as usize == t || a.write);
            let gated = if again { self.m.gated(st, t) } else { self.frames[depth - 1].waiting.contains(t) };
            if gated {
                waiting.insert(t);
            }
        }
        self.frames[depth].waiting = waiting;
    }

    /// The races of each attempt left waiting at state `depth`, as if it
    /// ran there (an exploration of every execution, blocked ones
    /// included, would run it there): reversing one may let it succeed.
    /// Only where that set may have grown since the state before: the
    /// thread (or its buffer) just moved, or the cell was just written. A
    /// later state adds no initial that an earlier one did not cover (the
    /// waiting thread's clock does not change).
    fn waiting_races(&mut self, depth: usize, preds: &mut Vec<u32>, late: &mut Vec<u32>, races: &mut Vec<u32>) {
        let prev = if depth > 0 { Some(self.frames[depth - 1].access) } else { None };
        for p in 0..self.m.threads {
            // Cheap tests first: most transitions write nothing.
            if !self.frames[depth].waiting.contains(p) || prev.is_some_and(|a| a.owner as usize != p && !a.write) {
                continue;
            }
            let st = &self.states[depth];
            if !self.m.enabled(st, p) {
                continue;
            }
            let access = self.m.access(st, p);
            if prev.is_some_and(|a| a.owner as usize != p && a.cell != access.cell) {
                continue;
            }
            let (acc, _, _) = self.clock_and_races(depth, p, &access, preds, late, races);
            for &j in races.iter() {
                self.add_backtrack(j, depth as u32, p, &acc);
            }
            self.scratch_clock = acc;
        }
    }

    fn new_frame(&self) -> Frame {
        Frame {
            proc: NONE,
            access: Access::NONE,
            log_start: 0,
            prev_of_proc: NONE,
            pushed: [NONE; 2],
            pushed_fence: false,
            backtrack: BitSet::with_capacity(self.procs),
            sleep: BitSet::with_capacity(self.procs),
            waiting: BitSet::with_capacity(self.procs),
            initialized: false,
            preemptions: 0,
        }
    }

    #[inline]
    fn clock(&self, i: u32) -> &[u32] {
        &self.clocks[i as usize * self.procs..(i as usize + 1) * self.procs]
    }

    /// Does transition `i` happen before a transition with clock `c`?
    #[inline]
    fn hb(&self, i: u32, c: &[u32]) -> bool {
        let p = self.frames[i as usize].proc as usize;
        self.clock(i)[p] <= c[p]
    }

    fn dependent(&self, a: &Access, b: &Access) -> bool {
        if a.proc == b.proc {
            return true;
        }
        if a.pop || b.pop {
            // A pop touches only its thread's history of its cell: read by
            // the thread's loads, waited on by its resetting fences, reset by
            // its commits and atomics on the cell. Others' writes append at
            // the back: they commute with it.
            let (pop, x) = if a.pop { (a, b) } else { (b, a) };
            return !x.pop
                && x.owner == pop.owner
                && (x.cell == pop.cell && (x.hist || x.write) || x.all_cells && self.observes(x, pop.cell));
        }
        let same_cell = a.cell != NONE && a.cell == b.cell;
        if a.owner == b.owner && (a.is_commit != b.is_commit) {
            // A thread and its own buffer: ordered by the buffer's contents
            // when they touch one cell, or when the thread waits on it.
            let thread = if a.is_commit { b } else { a };
            if same_cell && self.own_commit_commutes(a, b) {
                return false;
            }
            return same_cell || thread.cell == NONE || thread.all_cells;
        }
        // PSLO: a write can make a resetting fence wait (it matters if the
        // fence's thread may load the cell afterwards).
        if a.all_cells && b.mem && b.write && self.observes(a, b.cell)
            || b.all_cells && a.mem && a.write && self.observes(b, a.cell)
        {
            return true;
        }
        same_cell && a.mem && b.mem && (a.write || b.write)
    }

    /// TSO/PSO: does a thread's load commute with its own buffer's commit of
    /// the same cell? A load that forwards from a newer store than the one
    /// committed reads that store either way. One that forwards from the
    /// committed store would read memory after the commit, where another
    /// thread's write may come first: a race — unless no other thread can
    /// write the cell; then it reads the same store either way, and so does
    /// a load from memory after the commit.
    fn own_commit_commutes(&self, a: &Access, b: &Access) -> bool {
        if self.m.model.has_histories() || a.is_commit == b.is_commit {
            return false;
        }
        let (load, commit) = if a.is_commit { (b, a) } else { (a, b) };
        if load.write || load.all_cells || load.cell == NONE {
            return false;
        }
        load.fwd != NONE && load.fwd != commit.fwd || !self.m.others_may_write(load.owner as usize, load.cell)
    }

    /// Does the cell's history matter after resetting access `a` — may its
    /// thread load the cell later? (If not, a write of it only makes `a`
    /// wait for a pop that changes nothing observable: independent.)
    fn observes(&self, a: &Access, cell: u32) -> bool {
        self.m.loaded_after(a.owner as usize, a.at).is_none_or(|c| c.contains(cell))
    }

    /// The key of `thread`'s history of `cell` (PSLO, where it has one).
    fn hkey(&self, thread: u16, cell: u32) -> Option<u32> {
        self.m.hist_index(thread as usize, cell).map(|h| (self.m.cells + h) as u32)
    }

    /// Transitions that must precede `proc`'s next one besides conflicts:
    /// for a commit, the transition that buffered the store; for a history
    /// pop, the one that appended the value it exposes; for a fence or
    /// atomic, the last commits it waited for. `late`: under PSLO, for what
    /// waits for histories to be singletons, the pops that made them so
    /// (joined after the race checks: the writes behind them could have come
    /// after it).
    fn causal_preds(&self, st: &State, proc: usize, out: &mut Vec<u32>, late: &mut Vec<u32>) {
        let m = self.m;
        if m.is_history(proc) {
            let h = &st.hist[proc - m.threads - m.buffers()];
            if let Some(e) = h.get(1) {
                if e.origin != NONE {
                    out.push(e.origin);
                }
            }
            return;
        }
        if proc >= m.threads {
            // A commit follows the transition that buffered its store (and,
            // under PSLO, the pop that made its history a singleton).
            if let Some(e) = st.bufs[proc - m.threads].front() {
                if e.origin != NONE {
                    out.push(e.origin);
                }
                if let Some(h) = m.hist_index(m.owner(proc), e.cell) {
                    late.push(st.shrunk_at(h));
                    late.retain(|&x| x != NONE);
                }
            }
            return;
        }
        if !m.model.buffered() {
            return;
        }
        let t = proc;
        let code = &m.prog.threads[t].code;
        let (drain, all, cell, resets) = match code.get(st.pc_at(t) as usize) {
            Some(&Instr::Fence { kind, .. }) => (m.fence_drains(kind), true, NONE, m.fence_resets(kind)),
            Some(&Instr::Rmw { labels, .. }) => {
                let acc = m.access(st, proc);
                (true, m.model.atomic_drains_all(labels), acc.cell, acc.all_cells)
            }
            _ => return,
        };
        if let Some(h) = m.hist_index(t, cell).filter(|_| !resets && cell != NONE) {
            // An atomic waits for its own history of the cell.
            late.push(st.shrunk_at(h));
        }
        if drain {
            match m.model.buffers() {
                Buffers::PerThread => out.push(self.proc_last[m.threads + t]),
                Buffers::PerCell if all => out.extend(m.buffer_procs(t).map(|b| self.proc_last[b])),
                Buffers::PerCell if cell != NONE => out.extend(m.buffer_proc(t, cell).map(|b| self.proc_last[b])),
                _ => {}
            }
        }
        if resets {
            // Only the pops of histories it observes: for the others the
            // wait changes nothing (see `observes`).
            let seen = m.loaded_after(t, st.pc_at(t));
            late.extend(
                m.hist_indices(t).filter(|&h| seen.is_none_or(|s| s.contains(m.hist_cell(h)))).map(|h| st.shrunk_at(h)),
            );
        }
        out.retain(|&x| x != NONE);
        late.retain(|&x| x != NONE);
    }

    /// Races of a transition with access `a` against earlier ones, and its
    /// clock `acc` joined with theirs; the keys to file it under, and
    /// whether it is a PSLO resetting fence (see the module doc).
    fn conflicts(&self, a: &Access, acc: &mut [u32], races: &mut Vec<u32>) -> ([u32; 2], bool) {
        let mut keys = [NONE; 2];
        if !self.m.model.has_histories() {
            if a.cell != NONE {
                self.scan_mem(a, acc, races);
                if a.is_commit {
                    self.scan_forwarded(a, acc, races);
                }
                keys[0] = a.cell;
            }
            return (keys, false);
        }
        if a.pop {
            let h = self.hkey(a.owner, a.cell).expect("a pop of a history that exists");
            self.scan_hist(a, h, acc, races);
            return ([h, NONE], false);
        }
        let mut last_write = None;
        if a.cell != NONE {
            last_write = self.scan_mem(a, acc, races);
            // Memory accesses, and loads that forward (an own commit decides them).
            if a.mem || !a.hist {
                keys[0] = a.cell;
            }
            // Loads from the history race with its pops. Commits and atomics
            // replace it (once popped to a singleton: their late preds); a
            // pop after them follows them.
            if let Some(h) = self.hkey(a.owner, a.cell).filter(|_| a.hist || a.write) {
                if a.hist {
                    self.scan_hist(a, h, acc, races);
                }
                keys[1] = h;
            }
        }
        if a.write && a.mem {
            // Another thread's resetting fence since the cell's last write:
            // this write, before it, would have made it wait.
            for &j in self.resets.iter().rev() {
                if last_write.is_some_and(|w| j < w) {
                    break;
                }
                let b = self.frames[j as usize].access;
                if b.owner == a.owner || !self.observes(&b, a.cell) {
                    continue;
                }
                if !self.hb(j, acc) {
                    races.push(j);
                }
                join(acc, self.clock(j));
            }
        }
        if a.all_cells {
            // The last write of every cell by another thread (the value the
            // history had to reach): a race unless it happens before by
            // another path than the pops.
            let mut last: Vec<u32> = Vec::new();
            // The cells its thread may load after it (all, for a computed address).
            let observed: Box<dyn Iterator<Item = u32>> = match self.m.loaded_after(a.owner as usize, a.at) {
                Some(c) if !c.all => Box::new(c.some.iter().copied()),
                _ => Box::new(0..self.m.cells as u32),
            };
            for c in observed {
                if c == a.cell {
                    continue; // scanned as a memory access
                }
                let w = self.by_key[c as usize].iter().rev().copied().find(|&j| {
                    let b = self.frames[j as usize].access;
                    b.owner != a.owner && b.mem && b.write
                });
                last.extend(w);
            }
            last.sort_unstable_by(|x, y| y.cmp(x));
            for j in last {
                if !self.hb(j, acc) {
                    races.push(j);
                }
                join(acc, self.clock(j));
            }
        }
        (keys, a.all_cells)
    }

    /// The memory cell's list, newest first, up to its last write (returned).
    /// Under PSLO, other threads' loads (which read their own buffer or
    /// history) are independent of everything here, and a load depends only
    /// on its own thread's commits: a write of another thread orders every
    /// earlier memory access, but not this thread's own loads — the scan goes
    /// on for those until a write of this thread.
    fn scan_mem(&self, a: &Access, acc: &mut [u32], races: &mut Vec<u32>) -> Option<u32> {
        if a.fwd != NONE && !a.is_commit {
            // TSO/PSO: a forwarding load reads no memory; what it depends on
            // (its own commit of that store) comes later.
            return None;
        }
        let mut last_write = None;
        for &j in self.by_key[a.cell as usize].iter().rev() {
            let b = self.frames[j as usize].access;
            if b.proc == a.proc {
                if b.write {
                    return last_write.or(Some(j));
                }
                continue;
            }
            let own = a.owner == b.owner;
            if own && self.own_commit_commutes(a, &b) {
                continue;
            }
            if last_write.is_some() {
                // Past another thread's write: only this thread's loads are left.
                if own && b.write {
                    break;
                }
                if !own || b.mem {
                    continue;
                }
            } else if !(a.mem && b.mem || own) {
                continue;
            }
            if !(a.write || b.write) {
                continue;
            }
            // A thread's atomic after its own commit of the cell: the commit
            // had to drain first; not reversible.
            let drained = own && b.is_commit && !a.is_commit && a.write;
            if !drained && !self.hb(j, acc) {
                races.push(j);
            }
            join(acc, self.clock(j));
            if b.write {
                if own || !a.mem || !self.m.model.has_histories() {
                    return Some(j);
                }
                last_write = Some(j);
            }
        }
        last_write
    }

    /// TSO/PSO: a commit races with the loads that forwarded from its store
    /// (see `own_commit_commutes`). They commute with the thread's other
    /// commits and with other threads' writes, so `scan_mem` may stop
    /// before reaching them: look for them apart, back to the transition
    /// that buffered the store.
    fn scan_forwarded(&self, a: &Access, acc: &mut [u32], races: &mut Vec<u32>) {
        if !self.m.others_may_write(a.owner as usize, a.cell) {
            return;
        }
        for &j in self.by_key[a.cell as usize].iter().rev() {
            if a.origin != NONE && j <= a.origin {
                break;
            }
            let b = self.frames[j as usize].access;
            if b.owner == a.owner && !b.is_commit && !b.write && b.fwd == a.fwd {
                if !self.hb(j, acc) {
                    races.push(j);
                }
                join(acc, self.clock(j));
            }
        }
    }

    /// A PSLO history's list, newest first, up to its last change (a pop or
    /// a reset). Only a load and a pop race; a reset follows what it resets.
    fn scan_hist(&self, a: &Access, key: u32, acc: &mut [u32], races: &mut Vec<u32>) {
        let a_writes = !a.hist;
        for &j in self.by_key[key as usize].iter().rev() {
            let b = self.frames[j as usize].access;
            let b_writes = !b.hist;
            if b.proc == a.proc {
                if b_writes {
                    break;
                }
                continue;
            }
            if !(a_writes || b_writes) {
                continue;
            }
            if (a.pop && b.hist || a.hist && b.pop) && !self.hb(j, acc) {
                races.push(j);
            }
            join(acc, self.clock(j));
            if b_writes {
                break;
            }
        }
    }

    /// Explore every trace, calling `on_exec` on each maximal execution.
    pub fn run(&mut self, limits: Limits, on_exec: impl FnMut(&Execution<'_>) -> Control) {
        let mut init_log = Vec::new();
        let init = self.m.initial(&mut init_log);
        self.run_from(init, init_log, limits, on_exec)
    }

    /// `run`, telling `listener` about every event appended and cut.
    pub fn run_listened(
        &mut self,
        limits: Limits,
        listener: &mut dyn EventListener,
        on_exec: impl FnMut(&Execution<'_>) -> Control,
    ) {
        let mut init_log = Vec::new();
        let init = self.m.initial(&mut init_log);
        self.run_inner(init, init_log, limits, listener, on_exec)
    }

    /// Explore every continuation of a given state (whose events so far are
    /// `log`): how a witness of a violation may go on.
    pub fn run_from(
        &mut self,
        init: State,
        log: Vec<Event>,
        limits: Limits,
        on_exec: impl FnMut(&Execution<'_>) -> Control,
    ) {
        self.run_inner(init, log, limits, &mut NoListener, on_exec)
    }

    fn run_inner(
        &mut self,
        init: State,
        log: Vec<Event>,
        limits: Limits,
        listener: &mut dyn EventListener,
        mut on_exec: impl FnMut(&Execution<'_>) -> Control,
    ) {
        let bounded = limits.preemption_bound;
        self.gates = limits.waits_block && bounded.is_none() && self.m.has_gates();
        self.tally = Tally::new(limits.budget.progress.clone());
        // Buffered stores and history values of the given state precede
        // every new transition.
        let mut init = init;
        for b in &mut init.bufs {
            for e in b.iter_mut() {
                e.origin = NONE;
            }
        }
        for h in &mut init.hist {
            for e in h.iter_mut() {
                e.origin = NONE;
            }
        }
        init.shrunk_mut().iter_mut().for_each(|x| *x = NONE);
        self.log = log;
        self.low_water = 0;
        listener.on_truncate(0);
        listener.on_events(&self.log, 0, Clocks::new(&[], self.procs));
        // The listener hears the new events in batches, before the log is
        // cut and before an execution is reported, rather than after every
        // transition (about one event each): the same events in the same
        // order, a call per execution instead of one per transition.
        let mut heard = self.log.len();
        self.by_key.iter_mut().for_each(|v| v.clear());
        self.resets.clear();
        self.proc_last.iter_mut().for_each(|x| *x = NONE);
        self.proc_count.iter_mut().for_each(|x| *x = 0);
        self.clocks.clear();
        self.schedule.clear();
        self.states.clear();
        self.states.push(init);
        self.frames.clear();
        self.frames.push(self.new_frame());
        let mut depth = 0usize;
        let mut preds = Vec::new();
        let mut late = Vec::new();
        let mut races: Vec<u32> = Vec::new();
        let mut enabled_buf: Vec<usize> = Vec::new();
        'outer: loop {
            if !self.frames[depth].initialized {
                self.frames[depth].initialized = true;
                if self.gates {
                    self.find_waiting(depth);
                    self.waiting_races(depth, &mut preds, &mut late, &mut races);
                }
                // Source-DPOR starts from one process, the first enabled one
                // not asleep: the others need not be asked (12 % of SB-12's
                // monitored exploration asked them all).
                let first = match bounded {
                    Some(_) => {
                        enabled_buf.clear();
                        enabled_buf.extend((0..self.procs).filter(|&p| self.can_run(depth, p)));
                        enabled_buf.first().copied()
                    }
                    None => {
                        let f = &self.frames[depth];
                        // (The others were asked already: asleep ones are left.)
                        (0..self.procs)
                            .find(|&p| !f.sleep.contains(p) && self.can_run(depth, p))
                            .or_else(|| f.sleep.iter().find(|&p| self.can_run(depth, p)))
                    }
                };
                let st = &self.states[depth];
                {
                    if first.is_none() {
                        let kind = ExecKind::of(self.m, st);
                        self.tell(listener, &mut heard);
                        if kind == ExecKind::Cut || self.states[depth].buffer_bound_hit {
                            // Nothing is proved past a bound: work that only
                            // a proof would spare is wanted now.
                            limits.budget.note_bounded();
                        }
                        if let Control::Stop = self.report(kind, depth, &mut on_exec) {
                            break 'outer;
                        }
                        if limits.budget.found() {
                            self.stats.first = true;
                            break 'outer;
                        }
                    } else if let Some(b) = bounded {
                        // Bounded mode: every enabled process within the bound.
                        let prev = if depth > 0 { self.frames[depth - 1].proc as usize } else { usize::MAX };
                        let prev_enabled = prev != usize::MAX && enabled_buf.contains(&prev);
                        let used = self.frames[depth].preemptions;
                        for &p in &enabled_buf {
                            let cost = (prev_enabled && p != prev) as u32;
                            if used + cost <= b {
                                self.frames[depth].backtrack.insert(p);
                            } else {
                                self.stats.preemption_bounded = true;
                                self.stats.preemption_skips += 1;
                                limits.budget.note_bounded();
                            }
                        }
                    } else if let Some(p) = first.filter(|&p| !self.frames[depth].sleep.contains(p)) {
                        self.frames[depth].backtrack.insert(p);
                    } else {
                        // Every enabled process is asleep.
                        self.stats.sleep_blocked += 1;
                    }
                }
            }

            // The next process to explore from this state.
            let next = {
                let f = &self.frames[depth];
                f.backtrack.iter().find(|&p| !f.sleep.contains(p))
            };
            let Some(p) = next else {
                // Backtrack.
                if depth == 0 {
                    break;
                }
                self.tell(listener, &mut heard);
                depth -= 1;
                self.undo(depth);
                // (The listener hears of the cut with the next events.)
                heard = heard.min(self.log.len());
                continue;
            };
            if self.stats.transitions.is_multiple_of(256) {
                limits.budget.poll();
                let cancelled = limits.budget.cancelled();
                if limits.budget.late() || cancelled {
                    self.stats.timed_out = true;
                    self.stats.cancelled = cancelled;
                    break;
                }
                if limits.budget.found() {
                    self.stats.first = true;
                    break;
                }
                if let Some(max) = limits.budget.max_steps.filter(|&m| self.stats.transitions >= m) {
                    self.stats.work_cut = Some(max);
                    break;
                }
            }
            self.stats.transitions += 1;

            let st = &self.states[depth];
            let access = self.m.access(st, p);
            // Children sleep: processes asleep here whose next step is independent.
            let mut child_sleep = match self.frames.get_mut(depth + 1) {
                Some(f) => std::mem::take(&mut f.sleep),
                None => BitSet::with_capacity(self.procs),
            };
            child_sleep.clear();
            let (here, below) = ((depth * self.procs), (depth + 1) * self.procs);
            if self.slept.len() < below + self.procs {
                self.slept.resize(below + self.procs, Access::NONE);
            }
            if bounded.is_none() {
                for q in self.frames[depth].sleep.iter() {
                    let aq = match self.slept[here + q] {
                        a if a.proc == NONE => self.m.access(st, q),
                        a => a,
                    };
                    debug_assert_eq!(aq, self.m.access(st, q), "an asleep process keeps its access");
                    if !self.dependent(&aq, &access) {
                        child_sleep.insert(q);
                        self.slept[below + q] = if aq.owner == access.owner { Access::NONE } else { aq };
                    }
                }
            }
            self.frames[depth].sleep.insert(p);
            self.slept[here + p] = access;

            // Clock of the new transition, and its races.
            let n = depth as u32;
            let (acc, keys, is_reset) = self.clock_and_races(depth, p, &access, &mut preds, &mut late, &mut races);
            if bounded.is_none() {
                for &j in &races {
                    self.add_backtrack(j, n, p, &acc);
                }
            }

            // Execute.
            let log_start = self.log.len() as u32;
            if self.states.len() <= depth + 1 {
                let s = self.states[depth].clone();
                self.states.push(s);
            } else {
                let (lo, hi) = self.states.split_at_mut(depth + 1);
                hi[0].clone_from(&lo[depth]);
            }
            self.m.step(&mut self.states[depth + 1], p, n, &mut self.log);
            self.clocks.truncate(depth * self.procs);
            self.clocks.extend_from_slice(&acc);
            self.scratch_clock = acc;
            self.schedule.truncate(depth);
            self.schedule.push(p as u32);

            let f = &mut self.frames[depth];
            f.proc = p as u32;
            f.access = access;
            f.log_start = log_start;
            f.prev_of_proc = self.proc_last[p];
            f.pushed = keys;
            f.pushed_fence = is_reset;
            for k in keys.into_iter().filter(|&k| k != NONE) {
                self.by_key[k as usize].push(n);
            }
            if is_reset {
                self.resets.push(n);
            }
            self.proc_last[p] = n;
            self.proc_count[p] += 1;

            let preemptions = self.frames[depth].preemptions
                + (bounded.is_some()
                    && depth > 0
                    && self.frames[depth - 1].proc as usize != p
                    && self.m.enabled(&self.states[depth], self.frames[depth - 1].proc as usize))
                    as u32;
            depth += 1;
            if self.frames.len() <= depth {
                self.frames.push(self.new_frame());
            }
            let f = &mut self.frames[depth];
            f.initialized = false;
            f.backtrack.clear();
            f.sleep = child_sleep;
            f.preemptions = preemptions;
        }
        self.tell(listener, &mut heard);
        // The shared count is exact once a run is over.
        self.tally.flush();
    }

    /// Hand the listener the events after the first `heard` (the log was
    /// cut back to `heard` since it last heard, if it heard more).
    #[inline]
    fn tell(&self, listener: &mut dyn EventListener, heard: &mut usize) {
        if *heard < self.log.len() {
            listener.on_truncate(*heard);
            listener.on_events(&self.log, *heard, Clocks::new(&self.clocks, self.procs));
            *heard = self.log.len();
        }
    }

    /// Undo the transition taken at `depth` (the state there is intact).
    fn undo(&mut self, depth: usize) {
        let f = &self.frames[depth];
        let p = f.proc as usize;
        for k in f.pushed.into_iter().filter(|&k| k != NONE) {
            self.by_key[k as usize].pop();
        }
        if f.pushed_fence {
            self.resets.pop();
        }
        self.proc_last[p] = f.prev_of_proc;
        self.proc_count[p] -= 1;
        self.log.truncate(f.log_start as usize);
        self.low_water = self.low_water.min(self.log.len());
        self.schedule.truncate(depth);
    }

    /// Source-DPOR: make sure some initial of `notdep(j).p` is explored from
    /// the state before transition `j`.
    fn add_backtrack(&mut self, j: u32, n: u32, p: usize, clock_n: &[u32]) {
        let mut initials = std::mem::take(&mut self.scratch_initials);
        let mut v = std::mem::take(&mut self.scratch_v);
        initials.clear();
        v.clear();
        self.backtrack_initial(j, n, p, clock_n, &mut initials, &mut v);
        self.scratch_initials = initials;
        self.scratch_v = v;
    }

    /// `add_backtrack` over scratch vectors.
    fn backtrack_initial(
        &mut self,
        j: u32,
        n: u32,
        p: usize,
        clock_n: &[u32],
        initials: &mut Vec<usize>,
        v: &mut Vec<u32>,
    ) {
        for k in j + 1..n {
            if self.hb(j, self.clock(k)) {
                continue;
            }
            let ck = self.clock(k);
            if !v.iter().any(|&x| self.hb(x, ck)) {
                let q = self.frames[k as usize].proc as usize;
                // An initial already to be explored from j: nothing to add
                // (the rest of the scan, quadratic in its length, would
                // only find more).
                if self.frames[j as usize].backtrack.contains(q) {
                    return;
                }
                initials.push(q);
            }
            v.push(k);
        }
        if !v.iter().any(|&x| self.hb(x, clock_n)) {
            initials.push(p);
        }
        let f = &self.frames[j as usize];
        if initials.iter().any(|&q| f.backtrack.contains(q)) {
            return;
        }
        let q = if initials.contains(&p) { p } else { initials[0] };
        let (j, st) = (j as usize, &self.states[j as usize]);
        // Any initial will do; prefer `q`, else one that can run now.
        let q = if self.can_run(j, q) { Some(q) } else { initials.iter().copied().find(|&r| self.can_run(j, r)) };
        if let Some(q) = q {
            self.frames[j].backtrack.insert(q);
        } else if self.gates && initials.iter().any(|&r| self.m.enabled(st, r)) {
            // Every initial that is enabled is an attempt that would fail
            // (the one an exploration of every execution would take): it
            // leads only to executions that end blocked.
            self.stats.gate_skips += 1;
        } else {
            self.stats.fallbacks += 1;
            for r in 0..self.procs {
                if self.can_run(j, r) {
                    self.frames[j].backtrack.insert(r);
                }
            }
        }
    }

    fn report(&mut self, kind: ExecKind, depth: usize, on_exec: &mut impl FnMut(&Execution<'_>) -> Control) -> Control {
        self.stats.count(kind);
        self.tally.one();
        if self.states[depth].buffer_bound_hit {
            self.stats.buffer_bounded = true;
            self.stats.buffer_waits += 1;
        }
        let fresh = std::mem::replace(&mut self.low_water, self.log.len());
        on_exec(&Execution {
            kind,
            events: &self.log,
            state: &self.states[depth],
            schedule: &self.schedule[..depth],
            fresh,
        })
    }
}

fn join(a: &mut [u32], b: &[u32]) {
    for (x, y) in a.iter_mut().zip(b) {
        if *y > *x {
            *x = *y;
        }
    }
}
