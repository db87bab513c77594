//! The litmus7-style driver. A batch is `batch` instances of the test, each
//! with its own cells (reset to the initial values before the batch). One
//! OS thread per test thread, pinned to a core of its own when there are
//! enough; each thread runs instance 0, 1, … in turn, and all threads
//! start each instance together at a spin barrier, so their code overlaps
//! in time. After the batch the final states are read and tallied.
//!
//! The driver (the calling thread) sleeps while a batch runs; past the time
//! limit it raises the abort flag, which every spin (barrier, await, lock)
//! polls, and the run ends with what the finished batches showed.

use super::exec::{self, End, Limits, Slot, Trace};
use super::sync::{wait_until, SpinBarrier, Spot, Where};
use super::{Count, Ends, Observed, Placement, Run, RunOutcome, Settings, Stopped, Unpinned};
use litmus_checker::outcome::CondSite;
use litmus_checker::relaxer::rng::{mix, Rng};
use litmus_ir::{ObservableKind, Program, Thread};
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Run `prog` on the CPU.
pub fn run(prog: &Program, settings: &Settings) -> Observed {
    let settings = Settings { record: false, ..settings.clone() };
    match run_with(prog, &settings, |_| Ok::<(), Infallible>(())) {
        Ok(o) => o,
        Err(never) => match never {},
    }
}

/// Run `prog` on the CPU, handing each run to `on_run` when
/// `settings.record` (in order); its first error stops everything.
pub fn run_with<E>(
    prog: &Program,
    settings: &Settings,
    mut on_run: impl FnMut(&Run<'_>) -> Result<(), E>,
) -> Result<Observed, E> {
    let threads = prog.threads.len();
    let cells = prog.mem_size();
    let size = settings.batch.max(1);
    let mem: Vec<Slot> = (0..size * cells).map(|_| Slot::default()).collect();
    let mut obs = Observed {
        states: Default::default(),
        runs: 0,
        batches: 0,
        ends: Ends::default(),
        failures: Default::default(),
        stuck_at: Default::default(),
        placement: placement(threads, settings.pin),
        elapsed: Duration::ZERO,
        stopped: None,
    };
    let start = Instant::now();
    while obs.runs < settings.iterations {
        let n = (settings.iterations - obs.runs).min(size as u64) as usize;
        for i in 0..n {
            for (c, &v) in prog.init.iter().enumerate() {
                mem[i * cells + c].0.store(v, Ordering::Relaxed);
            }
        }
        let outs = match one_batch(prog, &mem[..n * cells], n, obs.batches, &obs.placement, settings) {
            Ok(outs) => outs,
            Err(threads) => {
                obs.stopped = Some(Stopped { batch: obs.batches + 1, limit: settings.time_limit, threads });
                break;
            }
        };
        if outs.iter().any(|o| o.pin_failed) {
            obs.placement = Placement::Unpinned { cores: available_cores(), why: Unpinned::Failed };
        }
        for i in 0..n {
            let ends: Vec<End> = outs.iter().map(|o| o.ends[i]).collect();
            let outcome = tally(prog, &mut obs, &ends, &outs, &mem[i * cells..(i + 1) * cells], i);
            if settings.record {
                let run = Run {
                    index: obs.runs + i as u64,
                    batch: obs.batches,
                    instance: i,
                    traces: outs.iter().map(|o| &o.traces[i]).collect(),
                    ends,
                    outcome,
                };
                if let Err(e) = on_run(&run) {
                    obs.elapsed = start.elapsed();
                    return Err(e);
                }
            }
        }
        obs.runs += n as u64;
        obs.batches += 1;
    }
    obs.elapsed = start.elapsed();
    Ok(obs)
}

fn available_cores() -> usize {
    core_affinity::get_core_ids()
        .map(|ids| ids.len())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A core of its own per thread if this process may use enough of them.
fn placement(threads: usize, pin: bool) -> Placement {
    let ids = core_affinity::get_core_ids().unwrap_or_default();
    let cores = if ids.is_empty() { available_cores() } else { ids.len() };
    if !pin {
        Placement::Unpinned { cores, why: Unpinned::NotAsked }
    } else if ids.len() < threads || ids.is_empty() {
        Placement::Unpinned { cores, why: Unpinned::TooFewCores }
    } else {
        Placement::Pinned(ids[..threads].iter().map(|c| c.id).collect())
    }
}

/// What one thread did in a batch.
struct WorkerOut {
    /// Final registers, `regs.len()` per instance.
    regs: Vec<i64>,
    ends: Vec<End>,
    /// Per instance when recording.
    traces: Vec<Trace>,
    pin_failed: bool,
}

/// Tells the driver a worker is done, however it ends (a panic too).
struct Finished<'a> {
    remaining: &'a AtomicUsize,
    driver: std::thread::Thread,
}

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.remaining.fetch_sub(1, Ordering::Release);
        self.driver.unpark();
    }
}

/// Run `n` instances over `mem`; past the time limit, where each thread was.
fn one_batch(
    prog: &Program,
    mem: &[Slot],
    n: usize,
    batch: u64,
    placement: &Placement,
    settings: &Settings,
) -> Result<Vec<WorkerOut>, Vec<Where>> {
    let threads = prog.threads.len();
    let barrier = match placement {
        Placement::Unpinned { cores, .. } if threads > *cores => SpinBarrier::blocking(threads),
        _ => SpinBarrier::new(threads),
    };
    let abort = AtomicBool::new(false);
    let spots: Vec<Spot> = (0..threads).map(|_| Spot::default()).collect();
    let remaining = AtomicUsize::new(threads);
    // The clock starts when the first run does, once every thread is past
    // its start barrier: on a loaded machine spawning the threads, or a
    // released thread getting a core, can take seconds, which is not the
    // program spinning (nor should it be reported as waiting at the start).
    let started = AtomicUsize::new(0);
    let layout = prog.layout();
    std::thread::scope(|s| {
        let handles: Vec<_> = prog
            .threads
            .iter()
            .enumerate()
            .map(|(t, thread)| {
                let core = match placement {
                    Placement::Pinned(cores) => Some(cores[t]),
                    Placement::Unpinned { .. } => None,
                };
                let ctx = Worker {
                    thread,
                    cells: prog.mem_size(),
                    layout: &layout,
                    mem,
                    n,
                    barrier: &barrier,
                    lim: Limits {
                        loop_bound: settings.loop_bound,
                        spin_limit: settings.spin_limit,
                        abort: &abort,
                        spot: &spots[t],
                    },
                    record: settings.record,
                    seed: ((t as u64) << 32) ^ batch,
                    started: &started,
                };
                let done = Finished { remaining: &remaining, driver: std::thread::current() };
                s.spawn(move || {
                    let _done = done;
                    ctx.work(core)
                })
            })
            .collect();
        let mut stopped = None;
        // `None` until the first run starts; then `Some(None)` if the limit
        // is too far to be an instant.
        let mut deadline: Option<Option<Instant>> = None;
        while remaining.load(Ordering::Acquire) > 0 {
            if deadline.is_none() && started.load(Ordering::Acquire) == threads {
                deadline = Some(Instant::now().checked_add(settings.time_limit));
            }
            let now = Instant::now();
            match deadline.flatten() {
                Some(d) if now >= d && stopped.is_none() => {
                    // Where they are before they are told to stop.
                    stopped = Some(spots.iter().map(Spot::get).collect::<Vec<_>>());
                    abort.store(true, Ordering::Relaxed);
                }
                Some(d) if stopped.is_none() => std::thread::park_timeout(d - now),
                // Stopping: every spin polls the flag, the rest is bounded.
                _ => std::thread::park_timeout(Duration::from_millis(1)),
            }
        }
        let outs: Vec<WorkerOut> =
            handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect();
        match stopped {
            Some(w) => Err(w),
            None => Ok(outs),
        }
    })
}

struct Worker<'a> {
    thread: &'a Thread,
    cells: usize,
    layout: &'a litmus_ir::Layout,
    mem: &'a [Slot],
    n: usize,
    barrier: &'a SpinBarrier,
    lim: Limits<'a>,
    record: bool,
    /// Of this thread's start skews.
    seed: u64,
    /// How many threads have started the first run (the batch's clock
    /// starts once all have).
    started: &'a AtomicUsize,
}

/// Each thread starts a run up to this many ticks after the common start,
/// drawn afresh per run: whatever systematic lag one thread's path from the
/// barrier to its first access has, some runs still line the threads up
/// (litmus7's timebase mode varies its delays for the same reason). Measured
/// on SB: with every thread starting at the same tick, the relaxed outcome's
/// frequency moved between 0 and 13% as unrelated code around the
/// interpreter changed; with this skew it stayed at 7–8%.
const SKEW: u64 = 512;

impl Worker<'_> {
    fn work(&self, core: Option<usize>) -> WorkerOut {
        let pin_failed = core.is_some_and(|id| !core_affinity::set_for_current(core_affinity::CoreId { id }));
        let nregs = self.thread.regs.len();
        let mut init = self.thread.init_regs.clone();
        init.resize(nregs, 0);
        let mut out = WorkerOut {
            regs: vec![0; self.n * nregs],
            ends: Vec::with_capacity(self.n),
            traces: Vec::with_capacity(if self.record { self.n } else { 0 }),
            pin_failed,
        };
        let mut regs = init.clone();
        let mut loops = vec![0u32; self.thread.loops as usize];
        let cells = self.cells;
        let mut rng = Rng::new(mix(self.seed));
        for i in 0..self.n {
            let mem = &self.mem[i * cells..(i + 1) * cells];
            // Preload (litmus7's `-preload`): with the cells in every
            // thread's cache a load hits at once while a store waits for
            // the other copies to be invalidated — the store buffer's window.
            for c in mem {
                std::hint::black_box(c.0.load(Ordering::Relaxed));
            }
            regs.copy_from_slice(&init);
            // Room for the run's operations now: an allocation between a
            // store and the next load would close the window the test is for.
            let mut trace = if self.record {
                Trace { ops: Vec::with_capacity(self.thread.code.len() + 16), dropped_attempts: 0 }
            } else {
                Trace::default()
            };
            self.lim.spot.at_barrier();
            let Some(start) = self.barrier.wait(self.lim.abort) else {
                return out;
            };
            self.lim.spot.clear();
            if i == 0 {
                self.started.fetch_add(1, Ordering::Release);
            }
            wait_until(start + rng.below(SKEW as usize) as u64);
            let rec = self.record.then_some(&mut trace);
            let end = exec::run(self.thread, self.layout, mem, &mut regs, &mut loops, rec, &self.lim);
            if end == End::Aborted {
                return out;
            }
            out.regs[i * nregs..(i + 1) * nregs].copy_from_slice(&regs);
            out.ends.push(end);
            if self.record {
                out.traces.push(trace);
            }
        }
        out
    }
}

/// Count instance `i` of a batch (its threads' `ends`, its cells `mem`).
fn tally(prog: &Program, obs: &mut Observed, ends: &[End], outs: &[WorkerOut], mem: &[Slot], i: usize) -> RunOutcome {
    let e = &mut obs.ends;
    let mut failed = false;
    for (t, end) in ends.iter().enumerate() {
        match *end {
            End::Failed { stmt, kind } => {
                failed = true;
                *obs.failures.entry((t as u16, stmt, kind)).or_default() += 1;
            }
            End::Stuck { stmt } => *obs.stuck_at.entry((t as u16, stmt)).or_default() += 1,
            _ => {}
        }
    }
    // Precedence as the explorer's verdicts: failed, cut, then the rest.
    let outcome = if failed {
        RunOutcome::Failed
    } else if ends.contains(&End::Cut) {
        RunOutcome::Cut
    } else if ends.iter().any(|e| matches!(e, End::Stuck { .. })) {
        RunOutcome::Stuck
    } else if ends.contains(&End::Pruned) {
        RunOutcome::Pruned
    } else {
        final_state(prog, outs, mem, i)
    };
    match &outcome {
        RunOutcome::Final { values, satisfies } => {
            e.complete += 1;
            obs.states.entry(values.clone()).or_insert(Count { runs: 0, satisfies: *satisfies }).runs += 1;
        }
        RunOutcome::Filtered => {
            e.complete += 1;
            e.filtered += 1;
        }
        RunOutcome::Undefined(CondSite::Filter) => {
            e.complete += 1;
            e.filter_errors += 1;
        }
        RunOutcome::Undefined(CondSite::Condition) => {
            e.complete += 1;
            e.condition_errors += 1;
        }
        RunOutcome::Failed => e.failed += 1,
        RunOutcome::Cut => e.cut += 1,
        RunOutcome::Pruned => e.pruned += 1,
        RunOutcome::Stuck => e.stuck += 1,
    }
    outcome
}

/// The final state of instance `i`, as [`litmus_checker::outcome::Final`] judges
/// the explorer's: filter, then observables and the condition.
fn final_state(prog: &Program, outs: &[WorkerOut], mem: &[Slot], i: usize) -> RunOutcome {
    let reg = |t: u16, r: u16| {
        let nregs = prog.threads[t as usize].regs.len();
        outs[t as usize].regs[i * nregs + r as usize]
    };
    let cell = |c: u32| mem[c as usize].0.load(Ordering::Relaxed);
    if let Some(f) = &prog.filter {
        match f.eval(&reg, &cell) {
            None => return RunOutcome::Undefined(CondSite::Filter),
            Some(0) => return RunOutcome::Filtered,
            Some(_) => {}
        }
    }
    let satisfies = match &prog.condition {
        None => None,
        Some(c) => match c.expr.eval(&reg, &cell) {
            None => return RunOutcome::Undefined(CondSite::Condition),
            Some(v) => Some(v != 0),
        },
    };
    let values = prog
        .observables
        .iter()
        .map(|o| match o.kind {
            ObservableKind::Reg { thread, reg: r } => reg(thread, r),
            ObservableKind::Mem(c) => cell(c),
        })
        .collect();
    RunOutcome::Final { values, satisfies }
}
