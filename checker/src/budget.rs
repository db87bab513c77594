//! How long a check may run and who may stop it: one deadline, a cancel
//! flag, `--first`, and where progress goes. One [`Budget`] is shared by
//! every phase and every search of a check (it travels in
//! [`crate::Options`]; the interleaving explorer takes it as it is), so
//! `--timeout 2` means two seconds for the whole file, not two per phase.

use crate::progress::Progress;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Every search stops at this instant; what it did not finish is unknown.
    pub deadline: Option<Instant>,
    /// Stop early when set (from another thread): the answer is unknown.
    pub cancel: Option<Arc<AtomicBool>>,
    /// A second cancel flag, heeded as `cancel` is: the check's own, where
    /// `cancel` stops one part of it (an exploration ahead, which the check
    /// stops when it no longer needs it).
    pub parent: Option<Arc<AtomicBool>>,
    /// Tests: set `cancel` at the n-th poll of [`Budget::stopped`], to cut a
    /// check short at every phase boundary deterministically.
    pub polls_left: Option<Arc<AtomicU64>>,
    /// `--first`: set at the first finding (a failing assertion, a
    /// witnessed violation); every search stops there, as Nidhugg and GenMC
    /// do, and what it did not finish is unknown (`Why::First`).
    pub found: Option<Arc<AtomicBool>>,
    /// Where the check reports its phase and executions for a progress
    /// display (the CLI's bar, the server's `$/progress`); none by default.
    pub progress: Option<Arc<Progress>>,
    /// Opened at the first finding (a witnessed violation, a failure) or
    /// the first execution a bound cut, for whoever waits to start work
    /// only a proof of robustness would spare (the relaxed outcomes explored
    /// ahead: a program proved robust takes SC's, and nothing past a bound
    /// is proved).
    pub on_finding: Option<Arc<Gate>>,
    /// Work, not time: each exploration stops after this many steps
    /// (transitions of the interleaving explorer, nodes of the graph
    /// explorer), counted by the exploration itself, so where it stops is
    /// the same on any machine under any load (`Why::Work`). `None`: no cap.
    pub max_steps: Option<u64>,
}

impl Budget {
    pub fn cancelled(&self) -> bool {
        let set = |c: &Option<Arc<AtomicBool>>| c.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        set(&self.cancel) || set(&self.parent)
    }

    /// Past the deadline.
    pub fn late(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Tests: one poll of the countdown; cancels when it is spent.
    pub fn poll(&self) {
        if let (Some(left), Some(cancel)) = (&self.polls_left, &self.cancel) {
            if left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1)).is_err() {
                cancel.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Cancelled, past the deadline, or `--first` found something: whatever
    /// is not finished now stays unknown.
    pub fn stopped(&self) -> bool {
        self.poll();
        self.late() || self.cancelled() || self.found()
    }

    /// `--first` and something was found.
    pub fn found(&self) -> bool {
        self.found.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// A finding (with its witness) was made: with `--first`, stop.
    pub fn note_finding(&self) {
        if let Some(f) = &self.found {
            f.store(true, Ordering::Relaxed);
        }
        if let Some(g) = &self.on_finding {
            g.open();
        }
    }

    /// An execution was cut by a bound: the answers can be within bounds
    /// only (opens `on_finding`).
    pub fn note_bounded(&self) {
        if let Some(g) = &self.on_finding {
            g.open();
        }
    }

    /// This budget, without `--first` (a search that must judge the one
    /// finding it was given).
    pub fn without_first(&self) -> Budget {
        Budget { found: None, ..self.clone() }
    }

    /// This budget, ending at `deadline` if that comes first.
    pub fn until(&self, deadline: Instant) -> Budget {
        Budget { deadline: Some(self.deadline.map_or(deadline, |d| d.min(deadline))), ..self.clone() }
    }

    /// This budget, ending `frac` of the way from now to its deadline.
    pub fn share(&self, frac: f64) -> Budget {
        let now = Instant::now();
        Budget { deadline: self.deadline.map(|d| now + d.saturating_duration_since(now).mul_f64(frac)), ..self.clone() }
    }

    /// The time left before the deadline, if there is one.
    pub fn left(&self) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_duration_since(Instant::now()))
    }
}

/// A gate threads wait at until someone opens it (once, for good).
#[derive(Debug, Default)]
pub struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
    /// Cheap to ask again and again (a search's every finding opens it).
    is_open: AtomicBool,
}

impl Gate {
    pub fn open(&self) {
        if self.is_open.swap(true, Ordering::Relaxed) {
            return;
        }
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.opened.notify_all();
    }

    /// Wait until it is open.
    pub fn wait(&self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        while !*open {
            open = self.opened.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }
}
