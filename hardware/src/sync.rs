//! Spinning: the per-run start barrier, backoff, and where each thread
//! spins (for the time-limit message).

use litmus_ir::StmtId;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// A clock every core reads alike: the TSC on x86-64 (constant and
/// synchronised across cores on current CPUs), else nanoseconds.
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions (older toolchains mark it unsafe).
        #[allow(unused_unsafe)]
        unsafe {
            std::arch::x86_64::_rdtsc()
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        EPOCH.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
    }
}

/// Spin politely: busy-wait a little (a pinned thread's partner is running
/// on its own core), then yield, so threads sharing a core (more threads
/// than cores, or another program's) still get to run.
#[derive(Default)]
pub struct Backoff {
    spins: u32,
}

impl Backoff {
    const BUSY: u32 = 100_000_000;

    pub fn snooze(&mut self) {
        if self.spins < Self::BUSY {
            std::hint::spin_loop();
            self.spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

const RUNNING: u32 = u32::MAX;
const BARRIER: u32 = u32::MAX - 1;

/// Where a thread is, as far as spinning goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Where {
    /// Running its code (not spinning).
    Running,
    /// Waiting for the other threads at the start of a run.
    Barrier,
    /// Retrying the `await` or `lock` of this statement.
    Spinning(StmtId),
}

/// A thread's [`Where`], written by it and read by the driver.
#[repr(align(128))]
pub struct Spot(AtomicU32);

impl Default for Spot {
    fn default() -> Self {
        Spot(AtomicU32::new(RUNNING))
    }
}

impl Spot {
    pub fn spin_at(&self, stmt: StmtId) {
        self.0.store(stmt, Ordering::Relaxed);
    }
    pub fn at_barrier(&self) {
        self.0.store(BARRIER, Ordering::Relaxed);
    }
    pub fn clear(&self) {
        self.0.store(RUNNING, Ordering::Relaxed);
    }
    pub fn get(&self) -> Where {
        match self.0.load(Ordering::Relaxed) {
            RUNNING => Where::Running,
            BARRIER => Where::Barrier,
            s => Where::Spinning(s),
        }
    }
}

/// A counting spin barrier that also hands out a start time: the last
/// thread to arrive sets it a little ahead ([`SpinBarrier::LEAD`] ticks, time
/// for the others to see the release) and every thread waits for that
/// instant on its own clock (litmus7's "timebase" mode). Released threads
/// alone would start a cache-line transfer and a `pause` apart, longer
/// than a store takes to drain, and SB's relaxed outcome would never show.
///
/// With more threads than cores spinning would only keep the thread that
/// must arrive off its core, so the barrier then blocks instead
/// ([`SpinBarrier::blocking`]): the threads start as the scheduler wakes
/// them, not together, and relaxed outcomes are rarer.
pub struct SpinBarrier {
    threads: usize,
    arrived: Padded<AtomicUsize>,
    generation: Padded<AtomicUsize>,
    start: Padded<AtomicU64>,
    blocking: Option<Blocking>,
}

/// The blocking barrier's state: arrived, generation, start.
struct Blocking {
    state: Mutex<(usize, u64, u64)>,
    wake: Condvar,
}

#[repr(align(128))]
struct Padded<T>(T);

impl SpinBarrier {
    pub fn new(threads: usize) -> Self {
        SpinBarrier {
            threads,
            arrived: Padded(AtomicUsize::new(0)),
            generation: Padded(AtomicUsize::new(0)),
            start: Padded(AtomicU64::new(0)),
            blocking: None,
        }
    }

    /// A barrier whose waiters sleep (for more threads than cores).
    pub fn blocking(threads: usize) -> Self {
        let blocking = Some(Blocking { state: Mutex::new((0, 0, 0)), wake: Condvar::new() });
        SpinBarrier { blocking, ..SpinBarrier::new(threads) }
    }

    /// Ticks between the release and the common start.
    pub const LEAD: u64 = 2000;

    /// Wait for every thread; the common start time ([`ticks`]), or `None`
    /// when `abort` was set meanwhile.
    pub fn wait(&self, abort: &AtomicBool) -> Option<u64> {
        if let Some(b) = &self.blocking {
            return self.wait_blocking(b, abort);
        }
        let g = self.generation.0.load(Ordering::Acquire);
        if self.arrived.0.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            let start = ticks() + Self::LEAD;
            self.start.0.store(start, Ordering::Relaxed);
            // Reset before releasing: a released thread may arrive again
            // at once, and must count from zero.
            self.arrived.0.store(0, Ordering::Relaxed);
            self.generation.0.store(g.wrapping_add(1), Ordering::Release);
            return Some(start);
        }
        let mut backoff = Backoff::default();
        while self.generation.0.load(Ordering::Acquire) == g {
            if abort.load(Ordering::Relaxed) {
                return None;
            }
            backoff.snooze();
        }
        // No later round can set it before this thread arrives there.
        Some(self.start.0.load(Ordering::Relaxed))
    }

    fn wait_blocking(&self, b: &Blocking, abort: &AtomicBool) -> Option<u64> {
        let mut st = b.state.lock().unwrap_or_else(|e| e.into_inner());
        st.0 += 1;
        if st.0 == self.threads {
            st.0 = 0;
            st.1 += 1;
            st.2 = ticks() + Self::LEAD;
            b.wake.notify_all();
            return Some(st.2);
        }
        let g = st.1;
        while st.1 == g {
            if abort.load(Ordering::Relaxed) {
                return None;
            }
            // Poll the abort flag now and then: the time limit sets it.
            st = b.wake.wait_timeout(st, std::time::Duration::from_millis(1)).unwrap_or_else(|e| e.into_inner()).0;
        }
        Some(st.2)
    }
}

/// Wait until `ticks()` reaches `at` (at most a few [`SpinBarrier::LEAD`]s:
/// a clock that disagrees never holds a thread long).
pub fn wait_until(at: u64) {
    let now = ticks();
    if at <= now || at - now > 8 * SpinBarrier::LEAD {
        return;
    }
    // No `pause` here: it lasts up to ~140 cycles on recent x86 cores,
    // as long as the store buffer's window itself.
    while ticks() < at {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barrier_lets_no_thread_start_a_round_before_all_arrived() {
        rounds_in_step(SpinBarrier::new(3), 3, 2000);
    }

    #[test]
    fn blocking_barrier_lets_no_thread_start_a_round_before_all_arrived() {
        rounds_in_step(SpinBarrier::blocking(5), 5, 500);
    }

    fn rounds_in_step(b: SpinBarrier, threads: usize, rounds: usize) {
        let abort = AtomicBool::new(false);
        let arrivals: Vec<AtomicUsize> = (0..rounds).map(|_| AtomicUsize::new(0)).collect();
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    for round in &arrivals {
                        round.fetch_add(1, Ordering::SeqCst);
                        assert!(b.wait(&abort).is_some());
                        // Everyone arrived at this round before anyone left it.
                        assert_eq!(round.load(Ordering::SeqCst), threads);
                    }
                });
            }
        });
    }

    #[test]
    fn an_aborted_barrier_releases_the_waiting() {
        released_on_abort(SpinBarrier::new(2));
        released_on_abort(SpinBarrier::blocking(2));
    }

    fn released_on_abort(b: SpinBarrier) {
        let abort = AtomicBool::new(false);
        std::thread::scope(|s| {
            let h = s.spawn(|| b.wait(&abort));
            std::thread::sleep(std::time::Duration::from_millis(20));
            abort.store(true, Ordering::Relaxed);
            assert!(h.join().unwrap().is_none());
        });
    }
}
