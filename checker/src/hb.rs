//! Happens-before (po ∪ rf ∪ co ∪ fr) of an SC execution, as vector clocks
//! over threads: `f →hb* g` iff `clock(f)[t(f)] <= clock(g)[t(f)]`.

use crate::machine::{Event, EventKind, NONE};

pub struct Hb {
    pub threads: usize,
    /// Clock of each event after it (own component = its 1-based po index).
    clocks: Vec<u32>,
    /// Join of each event's immediate predecessors (po, and conflicts).
    pre: Vec<u32>,
    /// The previous event of the same thread (`NONE` if first).
    pub prev: Vec<u32>,
}

impl Hb {
    pub fn of(log: &[Event], threads: usize) -> Hb {
        let t = threads;
        let mut clocks = vec![0u32; log.len() * t];
        let mut pre = vec![0u32; log.len() * t];
        let mut prev = vec![NONE; log.len()];
        let mut cur = vec![0u32; t * t];
        let mut last = vec![NONE; t];
        let cells = log.iter().filter(|e| e.cell != NONE).map(|e| e.cell as usize + 1).max().unwrap_or(0);
        let mut w = vec![0u32; cells * t];
        let mut r = vec![0u32; cells * t];
        let mut acc = vec![0u32; t];
        for (i, e) in log.iter().enumerate() {
            if e.kind == EventKind::Commit {
                continue;
            }
            let th = e.thread as usize;
            acc.copy_from_slice(&cur[th * t..(th + 1) * t]);
            if e.cell != NONE {
                let c = e.cell as usize;
                join(&mut acc, &w[c * t..(c + 1) * t]);
                if e.is_write() {
                    join(&mut acc, &r[c * t..(c + 1) * t]);
                }
            }
            pre[i * t..(i + 1) * t].copy_from_slice(&acc);
            acc[th] += 1;
            clocks[i * t..(i + 1) * t].copy_from_slice(&acc);
            cur[th * t..(th + 1) * t].copy_from_slice(&acc);
            if e.cell != NONE {
                let c = e.cell as usize;
                if e.is_write() {
                    w[c * t..(c + 1) * t].copy_from_slice(&acc);
                    r[c * t..(c + 1) * t].iter_mut().for_each(|x| *x = 0);
                } else {
                    join(&mut r[c * t..(c + 1) * t], &acc);
                }
            }
            prev[i] = last[th];
            last[th] = i as u32;
        }
        Hb { threads, clocks, pre, prev }
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
