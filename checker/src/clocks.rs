//! SC happens-before read off the explorer's own vector clocks, so the
//! monitors riding an SC exploration compute no clocks of their own.
//!
//! Under SC the explorer's processes are the threads, two transitions are
//! dependent when they are of one thread or touch one cell and one writes,
//! and each transition begins with its one memory event (load, store,
//! atomic); what follows it in the transition are fences, which conflict
//! with nothing. So a transition's clock, restricted to the other threads,
//! is the SC happens-before (po ∪ rf ∪ co ∪ fr) clock of each of its events,
//! counted in transitions rather than events ([`crate::hb::Hb`] counts
//! events; a test holds both equal).

use crate::machine::{Event, EventKind, NONE};

/// One row per transition (`width` components, one per process).
#[derive(Clone, Copy)]
pub struct Clocks<'a> {
    rows: &'a [u32],
    width: usize,
}

impl<'a> Clocks<'a> {
    pub fn new(rows: &'a [u32], width: usize) -> Self {
        Clocks { rows, width }
    }

    /// The clock of event `e`'s transition; `None` before the first one
    /// (the fences a thread runs before its first memory event).
    #[inline]
    pub fn row(&self, e: &Event) -> Option<&'a [u32]> {
        (e.step != NONE).then(|| &self.rows[e.step as usize * self.width..(e.step as usize + 1) * self.width])
    }

    /// Event `e`'s place in its thread, comparable with clocks: `2k` for
    /// the memory event of the thread's k-th transition, `2k + 1` for a
    /// fence after it (k = 0: before the first). An event at place `f` of
    /// thread `r` happens before any event of another thread whose
    /// transition clock `c` has `f <= 2 · c[r]`.
    #[inline]
    pub fn place(&self, e: &Event) -> u32 {
        Self::place_in(self.row(e), e)
    }

    /// [`Clocks::place`], given `e`'s row ([`Clocks::row`]) already read.
    #[inline]
    pub fn place_in(row: Option<&[u32]>, e: &Event) -> u32 {
        2 * row.map_or(0, |r| r[e.thread as usize]) + matches!(e.kind, EventKind::Fence(_)) as u32
    }

    /// The transition count of event `e` in its thread (0 before the first).
    #[inline]
    pub fn count(&self, e: &Event) -> u32 {
        self.at(e, e.thread as usize)
    }

    /// Component `k` of the clock of event `e`'s transition (0 before the
    /// first): for another thread than `e`'s, how many of k's transitions
    /// happen before `e`.
    #[inline]
    pub fn at(&self, e: &Event, k: usize) -> u32 {
        if e.step == NONE {
            0
        } else {
            self.rows[e.step as usize * self.width + k]
        }
    }
}
