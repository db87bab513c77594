//! Happens-before (po ∪ rf ∪ co ∪ fr) of an SC execution, as vector clocks
//! over threads: `f →hb* g` iff `clock(f)[t(f)] <= clock(g)[t(f)]`.
//!
//! Incremental: events are pushed one by one and the clocks can be cut back
//! to a prefix (an undo trail restores the working clocks), so consecutive
//! executions of a depth-first exploration share their common prefix.

use crate::machine::{Event, EventKind, NONE};

pub struct Hb {
    pub threads: usize,
    /// Clock of each event after it (own component = its 1-based po index).
    clocks: Vec<u32>,
    /// Join of each event's immediate predecessors (po, and conflicts).
    pre: Vec<u32>,
    /// The previous event of the same thread (`NONE` if first).
    pub prev: Vec<u32>,
    // Working state: per-thread clocks, per-cell last-write and reads-since.
    cur: Vec<u32>,
    w: Vec<u32>,
    r: Vec<u32>,
    last: Vec<u32>,
    /// Undo trail: (which array, index, old value); `marks[i]` is its length
    /// before event i.
    trail: Vec<(u8, u32, u32)>,
    marks: Vec<usize>,
    len: usize,
}

const CUR: u8 = 0;
const W: u8 = 1;
const R: u8 = 2;
const LAST: u8 = 3;

impl Hb {
    pub fn new(threads: usize, cells: usize) -> Hb {
        let t = threads;
        Hb {
            threads,
            clocks: Vec::new(),
            pre: Vec::new(),
            prev: Vec::new(),
            cur: vec![0; t * t],
            w: vec![0; cells * t],
            r: vec![0; cells * t],
            last: vec![NONE; t],
            trail: Vec::new(),
            marks: Vec::new(),
            len: 0,
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
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn set(&mut self, which: u8, idx: usize, v: u32) {
        let arr = match which {
            CUR => &mut self.cur,
            W => &mut self.w,
            R => &mut self.r,
            _ => &mut self.last,
        };
        if arr[idx] != v {
            self.trail.push((which, idx as u32, arr[idx]));
            arr[idx] = v;
        }
    }

    /// Add event `i` (the next one) of `log`.
    pub fn push(&mut self, log: &[Event], i: usize) {
        debug_assert_eq!(i, self.len);
        let t = self.threads;
        self.marks.push(self.trail.len());
        self.len += 1;
        let e = &log[i];
        if e.kind == EventKind::Commit {
            self.clocks.extend(std::iter::repeat(0).take(t));
            self.pre.extend(std::iter::repeat(0).take(t));
            self.prev.push(NONE);
            return;
        }
        let th = e.thread as usize;
        let base = self.clocks.len();
        self.clocks.extend_from_slice(&self.cur[th * t..(th + 1) * t]);
        if e.cell != NONE {
            let c = e.cell as usize;
            let (clocks, w, r) = (&mut self.clocks, &self.w, &self.r);
            join(&mut clocks[base..base + t], &w[c * t..(c + 1) * t]);
            if e.is_write() {
                join(&mut clocks[base..base + t], &r[c * t..(c + 1) * t]);
            }
        }
        self.pre.extend_from_slice(&self.clocks[base..base + t]);
        self.clocks[base + th] += 1;
        for k in 0..t {
            let v = self.clocks[base + k];
            self.set(CUR, th * t + k, v);
        }
        if e.cell != NONE {
            let c = e.cell as usize;
            if e.is_write() {
                for k in 0..t {
                    let v = self.clocks[base + k];
                    self.set(W, c * t + k, v);
                    self.set(R, c * t + k, 0);
                }
            } else {
                for k in 0..t {
                    let v = self.clocks[base + k].max(self.r[c * t + k]);
                    self.set(R, c * t + k, v);
                }
            }
        }
        self.prev.push(self.last[th]);
        self.set(LAST, th, i as u32);
    }

    /// Forget every event from `n` on.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        let keep = self.marks[n];
        while self.trail.len() > keep {
            let (which, idx, old) = self.trail.pop().unwrap();
            let arr = match which {
                CUR => &mut self.cur,
                W => &mut self.w,
                R => &mut self.r,
                _ => &mut self.last,
            };
            arr[idx as usize] = old;
        }
        self.marks.truncate(n);
        self.clocks.truncate(n * self.threads);
        self.pre.truncate(n * self.threads);
        self.prev.truncate(n);
        self.len = n;
    }

    pub fn clock(&self, i: u32) -> &[u32] {
        &self.clocks[i as usize * self.threads..(i as usize + 1) * self.threads]
    }

    pub fn pre(&self, i: u32) -> &[u32] {
        &self.pre[i as usize * self.threads..(i as usize + 1) * self.threads]
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
