//! From a path of the search to executions users see: under SC, the path
//! replayed on the SC machine; for an attack, a real TSO/PSO execution on
//! the relaxed machine, judged by its trace like every reported violation.
//!
//! The relaxed replay follows the path's moves. Each thread produces the
//! same events in the same order on both machines (same code, same values
//! read), so a move is matched by running its thread on the relaxed machine
//! until it has produced as many events. A store that reaches memory in the
//! path (every store under SC, a PSO commit) is committed there at once;
//! the attacker's delayed stores stay in its buffer, past its attack access
//! and the helpers' accesses, and commit only in the final drain.

use super::system::{Choice, Move, Node, Phase, System};
use crate::machine::{Event, EventKind, Machine, Model, State, NONE};
use crate::outcome::Witness;
use crate::trace::Trace;
use crate::witness::RelaxedWitness;

/// The SC execution of a path: its events and schedule, and the state it ends in.
pub fn sc(sys: &System<'_>, path: &[Move]) -> (Witness, State) {
    let m = &sys.m;
    let mut log = Vec::new();
    let mut st = m.initial(&mut log);
    let mut schedule = Vec::with_capacity(path.len());
    for (i, mv) in path.iter().enumerate() {
        m.step(&mut st, mv.thread as usize, i as u32, &mut log);
        schedule.push(mv.thread as u32);
    }
    (Witness { events: log, schedule }, st)
}

/// The relaxed machine driven to match a path.
struct Driver<'m, 'p> {
    m: &'m Machine<'p>,
    st: State,
    log: Vec<Event>,
    schedule: Vec<u32>,
    /// Per thread: its events so far (commits excluded), by log index.
    mine: Vec<Vec<u32>>,
}

impl Driver<'_, '_> {
    fn step(&mut self, proc: usize) {
        let from = self.log.len();
        let n = self.schedule.len() as u32;
        self.m.step(&mut self.st, proc, n, &mut self.log);
        self.schedule.push(proc as u32);
        self.index(from);
    }

    fn index(&mut self, from: usize) {
        for i in from..self.log.len() {
            let e = &self.log[i];
            if e.kind != EventKind::Commit {
                self.mine[e.thread as usize].push(i as u32);
            }
        }
    }

    /// Run thread `t` until it has produced `k` events.
    fn advance(&mut self, t: usize, k: usize) -> Option<()> {
        let mut guard = 0;
        while self.mine[t].len() < k {
            guard += 1;
            if guard > 1_000_000 || !self.st.running(t) || !self.m.enabled(&self.st, t) {
                return None;
            }
            self.step(t);
        }
        Some(())
    }

    /// Commit the store event at log index `store` (the head of its buffer).
    fn commit(&mut self, store: u32) -> Option<()> {
        let b = (0..self.st.bufs.len()).find(|&b| self.st.bufs[b].front().is_some_and(|e| e.store == store))?;
        self.commit_head(self.m.threads + b)
    }

    /// Commit the head of buffer process `proc`. Under PSLO a commit waits
    /// until its thread's history of the cell holds one value: the older
    /// values are popped first, as the machine's own schedules do (a
    /// commit without them is no execution of the machine).
    fn commit_head(&mut self, proc: usize) -> Option<()> {
        if !self.m.enabled(&self.st, proc) {
            let cell = self.st.bufs[proc - self.m.threads].front()?.cell;
            let h = self.m.threads + self.m.buffers() + self.m.hist_index(self.m.owner(proc), cell)?;
            while !self.m.enabled(&self.st, proc) {
                if !self.m.enabled(&self.st, h) {
                    return None;
                }
                self.step(h);
            }
        }
        self.step(proc);
        Some(())
    }

    /// Commit every pending store, oldest first per buffer.
    fn drain(&mut self) -> Option<()> {
        while let Some(b) = (0..self.st.bufs.len()).find(|&b| !self.st.bufs[b].is_empty()) {
            self.commit_head(self.m.threads + b)?;
        }
        Some(())
    }
}

/// An SC execution (its schedule of threads) as an execution of a
/// relaxed model: each store committed right after it is issued, where SC
/// did it. Its events and schedule, and the state it ends in (drained).
pub fn relaxed_of_sc(prog: &litmus_ir::Program, model: Model, schedule: &[u32]) -> Option<(Witness, State)> {
    let sc = Machine::new(prog, Model::Sc, u32::MAX, u32::MAX).with_unbounded_loops();
    let m = Machine::new(prog, model, u32::MAX, u32::MAX).with_unbounded_loops();
    let threads = prog.threads.len();
    let mut slog = Vec::new();
    let mut st = sc.initial(&mut slog);
    let mut counts = vec![0usize; threads];
    for e in &slog {
        counts[e.thread as usize] += 1;
    }
    let mut log0 = Vec::new();
    let rst = m.initial(&mut log0);
    let mut d = Driver { m: &m, st: rst, log: log0, schedule: Vec::new(), mine: vec![Vec::new(); threads] };
    d.index(0);
    for (i, &t) in schedule.iter().enumerate() {
        let t = t as usize;
        let from = slog.len();
        sc.step(&mut st, t, i as u32, &mut slog);
        let Some(e) = slog.get(from).copied().filter(super::system::is_access) else {
            counts[t] += slog.len() - from;
            continue;
        };
        let k = counts[t] + 1;
        counts[t] += slog.len() - from;
        d.advance(t, k)?;
        let got = d.mine[t][k - 1];
        let r = d.log[got as usize];
        if r.kind != e.kind || r.cell != e.cell || r.value != e.value {
            return None;
        }
        if e.kind == EventKind::Store {
            d.commit(got)?;
        }
    }
    // Threads that failed or stopped in SC stop here too: run each as far as
    // its SC run went (its events after the last step), then drain.
    for (t, &want) in counts.iter().enumerate() {
        while d.mine[t].len() < want && d.st.running(t) && d.m.enabled(&d.st, t) {
            d.step(t);
        }
        // A thread whose last SC step failed without an event (an access
        // out of bounds) fails at its next step here too.
        if matches!(st.threads[t], crate::machine::ThreadStatus::Failed { .. })
            && d.st.running(t)
            && d.m.enabled(&d.st, t)
        {
            d.step(t);
        }
    }
    d.drain()?;
    Some((Witness { events: d.log, schedule: d.schedule }, d.st))
}

/// A successful attack replayed on the relaxed machine: the execution,
/// the index in it of the delayed store, of the attack access and of the
/// closing access. `None` if the replay departs from the path or its trace
/// has no cycle (never shown then).
pub struct Replayed {
    pub witness: RelaxedWitness,
    pub store: u32,
    pub access: u32,
    pub closing: u32,
}

pub fn attack(sys: &System<'_>, model: Model, path: &[Move]) -> Option<Replayed> {
    let prog = sys.prog;
    let m = Machine::new(prog, model, u32::MAX, u32::MAX).with_unbounded_loops();
    let threads = prog.threads.len();
    let mut log0 = Vec::new();
    let st = m.initial(&mut log0);
    let mut d = Driver { m: &m, st, log: log0, schedule: Vec::new(), mine: vec![Vec::new(); threads] };
    d.index(0);
    let mut node: Node = sys.initial();
    let mut plog = Vec::new();
    // The product's events per thread so far (its initial run included).
    let mut counts = vec![0usize; threads];
    {
        let mut init = Vec::new();
        sys.m.initial(&mut init);
        for e in &init {
            counts[e.thread as usize] += 1;
        }
    }
    let (mut store, mut access, mut closing) = (NONE, NONE, NONE);
    for mv in path {
        let t = mv.thread as usize;
        let before = node.atk.phase;
        let attacker = before == Phase::Attacking && node.atk.attacker as usize == t;
        let a = sys.apply(&mut node, *mv, &mut plog)?;
        let Some(e) = a.event else {
            counts[t] += plog.len();
            continue;
        };
        let k = counts[t] + 1;
        counts[t] += plog.len();
        d.advance(t, k)?;
        let got = d.mine[t][k - 1];
        let r = d.log[got as usize];
        if r.kind != e.kind || r.cell != e.cell || r.value != e.value || r.stmt != e.stmt {
            return None;
        }
        let delayed = match mv.choice {
            Choice::Attack(_) => {
                store = got;
                true
            }
            Choice::Step => attacker && e.kind == EventKind::Store,
            Choice::Access | Choice::Commit => false,
        };
        if mv.choice == Choice::Access {
            access = got;
        }
        if e.kind == EventKind::Store && !delayed {
            d.commit(got)?;
        }
        if a.success.is_some() {
            closing = got;
        }
    }
    if store == NONE || access == NONE || closing == NONE {
        return None;
    }
    let before_drain = d.log.len();
    let state_after_access = d.st.clone();
    d.drain()?;
    let trace = Trace::of(&d.log);
    let cycle = trace.path(&d.log, store, store)?;
    Some(Replayed {
        witness: RelaxedWitness {
            schedule: d.schedule,
            events: d.log,
            before_drain,
            state_after_access: Some(state_after_access),
            cycle,
        },
        store,
        access,
        closing,
    })
}
