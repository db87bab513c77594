//! Happens-before (po ∪ rf ∪ co ∪ fr) of an SC execution, as vector clocks
//! over threads: `f →hb* g` iff `clock(f)[t(f)] <= clock(g)[t(f)]`.
//!
//! Incremental: events are pushed one by one and the clocks can be cut back
//! to a prefix, so consecutive executions of a depth-first exploration share
//! their common prefix. The working state is indices into the clock table
//! (each thread's last event, each cell's last write and its last read per
//! thread), so undoing an event restores at most two of them.

use crate::machine::{Event, EventKind, NONE};

pub struct Hb {
    pub threads: usize,
    /// Clock of each event after it (own component = its 1-based po index).
    /// Only grows: rows past `len()` are stale, overwritten when reused.
    clocks: Vec<u32>,
    /// The previous event of the same thread (`NONE` if first).
    pub prev: Vec<u32>,
    /// Slots, each an event index or `NONE`: per thread its last event
    /// (`threads`), per cell its last write (`cells`), per (cell, thread)
    /// that thread's last read of the cell.
    slots: Vec<u32>,
    /// Undo: (slot, old value). `marks[i]`: trail length before event i.
    trail: Vec<(u32, u32)>,
    marks: Vec<u32>,
    cells: usize,
}

impl Hb {
    pub fn new(threads: usize, cells: usize) -> Hb {
        Hb {
            threads,
            clocks: Vec::new(),
            prev: Vec::new(),
            slots: vec![NONE; threads + cells + cells * threads],
            trail: Vec::new(),
            marks: Vec::new(),
            cells,
        }
    }

    pub fn of(log: &[Event], threads: usize) -> Hb {
        let cells = log.iter().filter(|e| e.cell != NONE).map(|e| e.cell as usize + 1).max().unwrap_or(0);
        let mut hb = Hb::new(threads, cells);
        for i in 0..log.len() {
            hb.push(log, i);
        }
        hb
    }

    /// Events processed so far.
    pub fn len(&self) -> usize {
        self.marks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }

    fn set(&mut self, s: usize, v: u32) {
        let old = std::mem::replace(&mut self.slots[s], v);
        self.trail.push((s as u32, old));
    }

    /// Row `base` ⊔= the clock of event `ev` (if any).
    fn join_row(&mut self, base: usize, ev: u32) {
        if ev == NONE {
            return;
        }
        let t = self.threads;
        let (old, new) = self.clocks.split_at_mut(base);
        let src = &old[ev as usize * t..ev as usize * t + t];
        for (x, &y) in new[..t].iter_mut().zip(src) {
            *x = (*x).max(y);
        }
    }

    /// Add event `i` (the next one) of `log`.
    pub fn push(&mut self, log: &[Event], i: usize) {
        debug_assert_eq!(i, self.len());
        let t = self.threads;
        self.marks.push(self.trail.len() as u32);
        let e = &log[i];
        let base = i * t;
        if self.clocks.len() < base + t {
            self.clocks.resize(base + t, 0);
        }
        let th = e.thread as usize;
        let last = if e.kind == EventKind::Commit { NONE } else { self.slots[th] };
        // Start from the thread's last clock (po), then join the conflicts.
        if last == NONE {
            self.clocks[base..base + t].fill(0);
        } else {
            let (old, new) = self.clocks.split_at_mut(base);
            new[..t].copy_from_slice(&old[last as usize * t..last as usize * t + t]);
        }
        if e.kind == EventKind::Commit {
            self.prev.push(NONE);
            return;
        }
        if e.cell != NONE {
            let c = e.cell as usize;
            let w = self.slots[t + c];
            self.join_row(base, w);
            if e.is_write() {
                // fr: every read of the cell since its last write.
                let reads = t + self.cells + c * t;
                for q in 0..t {
                    let r = self.slots[reads + q];
                    if r != NONE && (w == NONE || r > w) {
                        self.join_row(base, r);
                    }
                }
            }
        }
        self.clocks[base + th] += 1;
        self.prev.push(last);
        self.set(th, i as u32);
        if e.cell != NONE {
            let c = e.cell as usize;
            if e.is_write() {
                self.set(t + c, i as u32);
            } else {
                self.set(t + self.cells + c * t + th, i as u32);
            }
        }
    }

    /// Forget every event from `n` on.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len() {
            return;
        }
        let keep = self.marks[n] as usize;
        while self.trail.len() > keep {
            let (s, old) = self.trail.pop().unwrap();
            self.slots[s as usize] = old;
        }
        self.marks.truncate(n);
        self.prev.truncate(n);
    }

    pub fn clock(&self, i: u32) -> &[u32] {
        &self.clocks[i as usize * self.threads..(i as usize + 1) * self.threads]
    }

    /// Component `k` of the join of event `i`'s immediate predecessors.
    pub fn pre_at(&self, log: &[Event], i: u32, k: usize) -> u32 {
        self.clock(i)[k] - (log[i as usize].thread as usize == k) as u32
    }

    /// The join of event `i`'s immediate predecessors (po and conflicts).
    pub fn pre(&self, log: &[Event], i: u32) -> Vec<u32> {
        (0..self.threads).map(|k| self.pre_at(log, i, k)).collect()
    }

    /// The event's 1-based index in its thread.
    pub fn po(&self, log: &[Event], i: u32) -> u32 {
        self.clock(i)[log[i as usize].thread as usize]
    }

    /// `f →hb* g` (reflexive).
    pub fn before(&self, log: &[Event], f: u32, g: u32) -> bool {
        let t = log[f as usize].thread as usize;
        self.clock(f)[t] <= self.clock(g)[t]
    }
}

pub fn join(a: &mut [u32], b: &[u32]) {
    for (x, y) in a.iter_mut().zip(b) {
        if *y > *x {
            *x = *y;
        }
    }
}
