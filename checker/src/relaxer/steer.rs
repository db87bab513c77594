//! Phase II of RELAXER (§4.3, Figs. 7–9): one controlled run of the program
//! under a relaxed model, steered to create one predicted cycle.
//!
//! Time is logical: one tick per thread transition, no sleeps. Each store
//! gets a commit time when it enters its buffer — now, or (with probability
//! P, for a store that opens a pair of the cycle, `c_o`) now + `delay_store`
//! — and `after_any` commits every buffer front whose time has come (FIFO:
//! a store behind a delayed one waits for it). A load or atomic that opens
//! a pair pauses its thread for `delay_load` < `delay_store` ticks with
//! probability P — under TSO too, unlike the paper: in a cycle through
//! three threads a load may open a pair (RWC's reader) and must wait for
//! the racing write. A fence or atomic that must drain waits until
//! the commit times of its thread's stores have come (`before_membar`), so
//! no purposely delayed store commits early. The run goes on to its end:
//! every thread finished or stuck for good, every buffer drained.

use super::ops::{Label, Op};
use super::predict::op_of;
use super::rng::Rng;
use super::settings::Settings;
use crate::machine::{Event, EventKind, Machine, State, ThreadStatus, Verdict};
use litmus_ir::{Cell, Instr};
use std::collections::VecDeque;

/// What one steered run did.
#[derive(Clone, Debug)]
pub struct Run {
    pub events: Vec<Event>,
    /// The process of each transition, in order (threads, then buffers as
    /// in [`Machine::procs`]): replays the run on the machine.
    pub schedule: Vec<u32>,
    pub state: State,
    pub verdict: Verdict,
    /// The step limit stopped the run.
    pub cut_by_steps: bool,
    /// The reads of failed attempts that their thread made again later,
    /// each with the log length when it tried again (see [`Attempts`]).
    pub abandoned: Vec<(u32, u32)>,
}

/// Failed attempts: an await or lock that read and then waited. In the
/// exhaustive explorer's executions a failed attempt waits for good (the
/// retry is the same attempt made later, in another execution). So when a
/// steered run's thread tries again, the reads of its failed attempt are
/// *abandoned* at that point: the run up to the retry is a prefix of an
/// execution where the thread waits for good, and a cycle through those
/// reads counts only if all of it happened before the retry.
struct Attempts {
    /// Log length when the thread's await attempt in progress began.
    from: Vec<Option<usize>>,
    /// The reads of each thread's last failed attempt.
    failed: Vec<Vec<u32>>,
    abandoned: Vec<(u32, u32)>,
}

impl Attempts {
    fn new(threads: usize) -> Self {
        Attempts { from: vec![None; threads], failed: vec![Vec::new(); threads], abandoned: Vec::new() }
    }

    fn before(&mut self, m: &Machine<'_>, st: &State, t: usize, log_len: usize) {
        if st.threads[t] == ThreadStatus::Stuck {
            self.abandoned.extend(self.failed[t].drain(..).map(|r| (r, log_len as u32)));
        }
        if self.from[t].is_none() && m.in_await(t, st.pc_at(t)) {
            self.from[t] = Some(log_len);
        }
    }

    fn after(&mut self, m: &Machine<'_>, st: &State, t: usize, log_before: usize, log: &[Event]) {
        if st.threads[t] == ThreadStatus::Stuck {
            let from = self.from[t].take().unwrap_or(log_before);
            self.failed[t] = (from..log.len())
                .filter(|&i| log[i].thread as usize == t && log[i].kind == EventKind::Load)
                .map(|i| i as u32)
                .collect();
        } else if !m.in_await(t, st.pc_at(t)) {
            self.from[t] = None;
        }
    }
}

/// Picks in a row of a thread that then could not step, before a run gives up.
const IDLE_LIMIT: u32 = 10_000;

/// The buffer (process index minus threads) a store of `t` to `cell` enters.
fn buffer_of(m: &Machine<'_>, t: usize, cell: Cell) -> usize {
    m.buf_index(t, cell).expect("a store enters a buffer of its thread")
}

/// The statement and access of thread `t`'s next visible operation, if it
/// is a load or an atomic.
fn next_read(m: &Machine<'_>, st: &State, t: usize) -> Option<(u32, Op)> {
    match m.prog.threads[t].code.get(st.pc_at(t) as usize)? {
        Instr::Load { stmt, .. } => Some((*stmt, Op::Read)),
        Instr::Rmw { stmt, .. } => Some((*stmt, Op::Update)),
        _ => None,
    }
}

/// One steered run for `cycle` under `m`'s model, all choices from `seed`.
pub fn run(m: &Machine<'_>, cycle: &[Label], s: &Settings, seed: u64) -> Run {
    // c_o: the statements that open a pair (delayed); the closing ones run
    // as soon as they can, which is what the scheduler does anyway.
    let c_o: Vec<(u32, Op)> = cycle.iter().step_by(2).map(|l| (l.stmt, l.op)).collect();
    let opens_pair = |stmt: u32, op: Op| c_o.contains(&(stmt, op));
    let mut rng = Rng::new(seed);
    let mut log = Vec::new();
    let mut schedule = Vec::new();
    let mut st = m.initial(&mut log);
    let nbufs = m.buffers();
    let pslo = m.model.has_histories();
    // c_e: the statements that close a pair. Under PSLO a load among them
    // reads the oldest value of its history with probability P (Fig. 9).
    let c_e: Vec<(u32, Op)> = cycle.iter().skip(1).step_by(2).map(|l| (l.stmt, l.op)).collect();
    // Commit times, parallel to each buffer's FIFO. `None`: not delayed, so
    // it commits as soon as its thread goes on past it (the machine buffers
    // a store at the end of the transition before it, so "now" would let it
    // overtake nothing: a thread's first stores would commit before any
    // other thread ran).
    let mut times: Vec<VecDeque<Option<u64>>> = vec![VecDeque::new(); nbufs];
    let mut paused_until = vec![0u64; m.threads];
    // The pc whose pause decision is made (one coin per dynamic instance).
    let mut decided: Vec<Option<u32>> = vec![None; m.threads];
    // A read that opens a pair must see the write the cycle races into it
    // from the previous pair (`rf`): with probability P it waits (a tick at
    // a time, at most `4 · delay_store`) until some instance of that write
    // is visible. A fixed pause misses it when the writer is far behind (a
    // traversal that reaches a node before its insertion is published).
    let n = cycle.len();
    let racer_of = |stmt: u32, op: Op| -> Option<(u32, Op)> {
        (0..n).step_by(2).find(|&j| cycle[j].stmt == stmt && cycle[j].op == op).map(|j| {
            let r = cycle[(j + n - 1) % n];
            (r.stmt, r.op)
        })
    };
    let mut visible: std::collections::HashSet<(u32, Op)> = Default::default();
    let mut seen_upto = 0;
    // Per thread: the racing write it waits for, and for how many ticks.
    let mut waiting: Vec<Option<((u32, Op), u64)>> = vec![None; m.threads];
    let mut now: u64 = 0;
    let mut ready = Vec::with_capacity(m.threads);
    let mut timed_upto = 0;
    let mut steps: u64 = 0;
    let mut cut_by_steps = false;
    let mut idle = 0u32;
    let mut attempts = Attempts::new(m.threads);
    // Thread `t` has gone on past its undelayed stores: they commit now.
    let release = |times: &mut Vec<VecDeque<Option<u64>>>, t: usize, now: u64| {
        for q in &mut times[m.buf_indices(t)] {
            for x in q.iter_mut().filter(|x| x.is_none()) {
                *x = Some(now);
            }
        }
    };
    loop {
        time_stores(m, &log[timed_upto..], &mut times, &opens_pair, s, &mut rng, now);
        timed_upto = log.len();
        // after_any: commit every store whose time has come.
        commit_due(m, &mut st, &mut log, &mut schedule, &mut times, 0..nbufs, now);
        timed_upto = timed_upto.max(log.len());
        // A thread can be scheduled if it can step, or if it has undelayed
        // stores to perform (the machine buffered them early; they happen
        // when the thread is scheduled, as in the paper's model).
        ready.clear();
        ready.extend((0..m.threads).filter(|&t| {
            let undelayed = times[m.buf_indices(t)].iter().any(|q| q.iter().any(|x| x.is_none()));
            paused_until[t] <= now && (steppable(m, &st, t) || undelayed)
        }));
        if ready.is_empty() {
            // Nothing can run now: jump to the next commit or wake-up.
            match next_wake(&times, &paused_until, now) {
                Some(t) if t > now => {
                    now = t;
                    continue;
                }
                _ => break,
            }
        }
        let t = ready[rng.below(ready.len())];
        release(&mut times, t, now);
        now += 1;
        if !steppable(m, &st, t) {
            continue; // it performed its stores; it waits (fence, lock) or is done
        }
        // Writes made visible so far (a load sees a committed store).
        for e in &log[seen_upto..] {
            match e.kind {
                EventKind::Commit => _ = visible.insert((e.stmt, Op::Write)),
                EventKind::Store if !m.model.buffered() => _ = visible.insert((e.stmt, Op::Write)),
                EventKind::Rmw => _ = visible.insert((e.stmt, Op::Update)),
                _ => {}
            }
        }
        seen_upto = log.len();
        // before_load / before_CAS: pause before a read that opens a pair,
        // so the racing access of another thread goes first.
        if decided[t] != Some(st.pc_at(t)) {
            if let Some((stmt, op)) = next_read(m, &st, t) {
                decided[t] = Some(st.pc_at(t));
                waiting[t] = None;
                if opens_pair(stmt, op) && rng.chance(s.probability) {
                    let racer = racer_of(stmt, op).filter(|r| r.1 != Op::Read && !visible.contains(r));
                    if let Some(r) = racer {
                        // Wait for it, looking again each tick (below).
                        waiting[t] = Some((r, 1));
                        paused_until[t] = now + 1;
                    } else {
                        paused_until[t] = now + s.delay_load + rng.below(s.delay_load as usize + 1) as u64;
                    }
                    continue;
                }
            }
        } else if let Some((r, ticks)) = waiting[t] {
            // Still waiting for the racing write?
            if !visible.contains(&r) && ticks < 4 * s.delay_store {
                waiting[t] = Some((r, ticks + 1));
                paused_until[t] = now + 1;
                continue;
            }
            waiting[t] = None;
        }
        if pslo {
            prepare_pslo(m, &mut st, &mut log, &mut schedule, &mut times, t, now, &c_e, s.probability, &mut rng);
        }
        // Its stores commit before its next operation, unless delayed.
        commit_due(m, &mut st, &mut log, &mut schedule, &mut times, m.buf_indices(t), now);
        // What it waits for of its own is done: it goes if the machine lets it.
        let held = match st.threads[t] {
            ThreadStatus::Running => !m.enabled(&st, t),
            _ => !steppable(m, &st, t),
        };
        if held {
            idle += 1;
            if idle > IDLE_LIMIT {
                // Cannot happen (what made it ready still holds); were it
                // to, the run ends cut rather than spinning.
                debug_assert!(false, "a ready thread that never steps");
                cut_by_steps = true;
                break;
            }
            continue;
        }
        idle = 0;
        let before = log.len();
        attempts.before(m, &st, t, before);
        st.threads[t] = ThreadStatus::Running;
        let step = schedule.len() as u32;
        m.step(&mut st, t, step, &mut log);
        attempts.after(m, &st, t, before, &log);
        schedule.push(t as u32);
        decided[t] = None;
        steps += 1;
        if steps >= s.max_steps {
            cut_by_steps = true;
            break;
        }
    }
    let verdict = m.verdict(&st);
    Run { events: log, schedule, state: st, verdict, cut_by_steps, abandoned: attempts.abandoned }
}

/// Stores that entered a buffer since last time (`new`) get their commit
/// time: `None` (commits when its thread goes on) unless it opens a pair
/// and the coin says delay it.
fn time_stores(
    m: &Machine<'_>,
    new: &[Event],
    times: &mut [VecDeque<Option<u64>>],
    opens_pair: &impl Fn(u32, Op) -> bool,
    s: &Settings,
    rng: &mut Rng,
    now: u64,
) {
    for e in new {
        if e.kind == EventKind::Store && m.model.buffered() {
            let delay = opens_pair(e.stmt, Op::Write) && rng.chance(s.probability);
            let b = buffer_of(m, e.thread as usize, e.cell);
            // Delays vary (from `delay_store` to 4× it): with one fixed
            // delay, two delayed stores of a cycle would tie.
            let d = s.delay_store + rng.below(3 * s.delay_store as usize + 1) as u64;
            times[b].push_back(delay.then_some(now + d));
        }
    }
}

/// The next time something can happen: a delayed commit or a paused
/// thread's wake-up.
fn next_wake(times: &[VecDeque<Option<u64>>], paused_until: &[u64], now: u64) -> Option<u64> {
    times
        .iter()
        .filter_map(|q| q.front().copied().flatten())
        .chain(paused_until.iter().copied().filter(|&t| t > now))
        .min()
}

/// Commit the front of each buffer in `bufs` while its time has come.
fn commit_due(
    m: &Machine<'_>,
    st: &mut State,
    log: &mut Vec<Event>,
    schedule: &mut Vec<u32>,
    times: &mut [VecDeque<Option<u64>>],
    bufs: std::ops::Range<usize>,
    now: u64,
) {
    for (b, q) in times.iter_mut().enumerate().take(bufs.end).skip(bufs.start) {
        while q.front().is_some_and(|&x| x.is_some_and(|x| x <= now)) && !st.bufs[b].is_empty() {
            q.pop_front();
            if m.model.has_histories() {
                // The commit replaces its thread's history of the cell.
                let cell = st.bufs[b][0].cell;
                settle(m, st, log, schedule, m.owner(m.threads + b), cell);
            }
            let step = schedule.len() as u32;
            m.step(st, m.threads + b, step, log);
            schedule.push((m.threads + b) as u32);
        }
    }
}

/// PSLO: drop the older values of `t`'s history of `cell` (history pops),
/// so its loads read memory.
fn settle(m: &Machine<'_>, st: &mut State, log: &mut Vec<Event>, schedule: &mut Vec<u32>, t: usize, cell: Cell) {
    let Some(h) = m.history_proc(t, cell) else { return };
    while m.enabled(st, h) {
        let step = schedule.len() as u32;
        m.step(st, h, step, log);
        schedule.push(h as u32);
    }
}

/// Can thread `t` take its next step now? Under PSLO, as Phase II would
/// run it: its loads other than the cycle's closing ones read memory (an
/// await is judged on what it will read, not on older history values), and
/// what it waits for of its own is committed and dropped on the spot.
/// A running thread may make an attempt that fails (an await or lock reads,
/// then waits), as in the exhaustive explorer's executions; a waiting one
/// goes again only when its retry would succeed.
fn steppable(m: &Machine<'_>, st: &State, t: usize) -> bool {
    let pslo = m.model.has_histories();
    match st.threads[t] {
        ThreadStatus::Running => m.enabled(st, t) || (pslo && waits_on_itself(m, st, t)),
        ThreadStatus::Stuck if pslo => !m.blocked_settled(st, t),
        ThreadStatus::Stuck => !m.blocked(st, t),
        _ => false,
    }
}

/// PSLO: is thread `t` held back only by its own buffers or histories (a
/// fence or an atomic)? Phase II commits and pops those on the spot
/// (`prepare_pslo`), so the thread counts as ready.
fn waits_on_itself(m: &Machine<'_>, st: &State, t: usize) -> bool {
    st.threads[t] == ThreadStatus::Running
        && matches!(m.prog.threads[t].code.get(st.pc_at(t) as usize), Some(Instr::Fence { .. } | Instr::Rmw { .. }))
}

/// PSLO's Phase II before thread `t`'s next operation (Fig. 9). A load that
/// closes a pair of the cycle reads the oldest value of its history with
/// probability P; any other load first drops the older values (it reads
/// memory). A fence does not pause as under PSO: its thread's delayed
/// stores lose their times and commit now, and a resetting fence drops the
/// older history values. An atomic commits its cell's stores (all of them
/// if it is x86 LOCK'd) and replaces the history it writes.
#[allow(clippy::too_many_arguments)]
fn prepare_pslo(
    m: &Machine<'_>,
    st: &mut State,
    log: &mut Vec<Event>,
    schedule: &mut Vec<u32>,
    times: &mut [VecDeque<Option<u64>>],
    t: usize,
    now: u64,
    c_e: &[(u32, Op)],
    probability: f64,
    rng: &mut Rng,
) {
    let own = m.buf_indices(t);
    let mut commit_now =
        |st: &mut State, log: &mut Vec<Event>, schedule: &mut Vec<u32>, bufs: std::ops::Range<usize>| {
            for q in &mut times[bufs.clone()] {
                q.iter_mut().for_each(|x| *x = Some(now));
            }
            commit_due(m, st, log, schedule, times, bufs, now);
        };
    match m.prog.threads[t].code.get(st.pc_at(t) as usize) {
        Some(&Instr::Load { addr, stmt, .. }) => {
            let Ok(cell) = m.cell_of(st, t, addr) else { return };
            if m.buf_index(t, cell).is_some_and(|b| !st.bufs[b].is_empty()) {
                return; // it forwards from its own buffer
            }
            let early = c_e.contains(&(stmt, Op::Read)) && rng.chance(probability);
            if !early {
                settle(m, st, log, schedule, t, cell);
            }
        }
        Some(&Instr::Rmw { addr, labels, .. }) => {
            let Ok(cell) = m.cell_of(st, t, addr) else { return };
            if m.model.rmw_is_full_fence(labels) {
                commit_now(st, log, schedule, own);
                for c in m.hist_indices(t).map(|h| m.hist_cell(h)) {
                    settle(m, st, log, schedule, t, c);
                }
            } else {
                let b = buffer_of(m, t, cell);
                commit_now(st, log, schedule, b..b + 1);
                settle(m, st, log, schedule, t, cell);
            }
        }
        Some(&Instr::Fence { kind, .. }) => {
            if m.fence_drains(kind) {
                commit_now(st, log, schedule, own);
            }
            if m.fence_resets(kind) {
                for c in m.hist_indices(t).map(|h| m.hist_cell(h)) {
                    settle(m, st, log, schedule, t, c);
                }
            }
        }
        _ => {}
    }
}

/// A replayed run: its events, final state, and abandoned attempts' reads
/// (read, log length at the retry) as in [`Run`]'s `abandoned`.
pub type Replayed = (Vec<Event>, State, Vec<(u32, u32)>);

/// The same run again from its schedule (no randomness): what `explain
/// --replay` shows, and the check that a handle replays exactly.
pub fn replay(m: &Machine<'_>, schedule: &[u32]) -> Option<Replayed> {
    let mut log = Vec::new();
    let mut st = m.initial(&mut log);
    let mut attempts = Attempts::new(m.threads);
    for (i, &p) in schedule.iter().enumerate() {
        let p = p as usize;
        let thread = p < m.threads;
        let before = log.len();
        if thread {
            // Any step the machine allows (a stuck await may try again).
            if !(st.running(p) || st.threads[p] == ThreadStatus::Stuck) {
                return None;
            }
            attempts.before(m, &st, p, before);
            st.threads[p] = ThreadStatus::Running;
        }
        if p >= m.procs() || !m.enabled(&st, p) {
            return None;
        }
        m.step(&mut st, p, i as u32, &mut log);
        if thread {
            attempts.after(m, &st, p, before, &log);
        }
    }
    Some((log, st, attempts.abandoned))
}

/// The events' labels (for tests and displays).
pub fn label_of(e: &Event) -> Option<Label> {
    op_of(e).map(|op| Label { thread: e.thread, stmt: e.stmt, op })
}
