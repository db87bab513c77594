//! Monitors that decide, from one SC execution, whether a TSO or PSO
//! execution of the program could violate SC.
//!
//! - [`bss`]: the operational monitors of Burnim, Sen and Stergiou (TACAS'11,
//!   Figs. 4–5). Stores go to simulated buffers; before event `e` of thread
//!   `p` on address `a`, if another thread's pending store `e'` to `a` has
//!   `e' →hb* prev[p]`, running `e` before committing `e'` closes the cycle
//!   `e' →hb* prev[p] →po e →c e'`. Then other threads' stores to `a` are
//!   committed (TSO: with the FIFO prefix before them), and `e` is performed.
//!   O(N·P): per address at most one thread has pending stores, and the last
//!   one is the one to check.
//!
//!   [`Forcing::Causal`] (the default) improves on the paper: a pending store
//!   counts as committed only if what forced its commit *happens before* `e`,
//!   not merely precedes it in the interleaving. The answer then depends only
//!   on the trace, so one interleaving per Mazurkiewicz trace (what DPOR
//!   explores) is enough for completeness; the paper's rule
//!   ([`Forcing::Interleaving`]) needs the right interleaving of each trace.
//! - [`sober`]: Burckhardt and Musuvathi's monitor (MSR-TR-2008-12, Fig. 2),
//!   TSO only, with their relaxed-happens-before vector clock (Fig. 3).

use crate::hb::Hb;
use crate::machine::{Event, EventKind, Model, NONE};
use litmus_dsl::{Dialect, FenceKind, Program};

/// A violation in one SC execution: running `access` (of thread p) before
/// `store` (of another thread) commits closes an hb cycle through `prev`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RawViolation {
    /// The delayed store (index in the SC log).
    pub store: u32,
    /// The access that overtakes it (index in the SC log).
    pub access: u32,
    /// The event before `access` in its thread that the store happens before.
    pub prev: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forcing {
    /// A store's commit is forced only by events that happen before `e`.
    Causal,
    /// As in the paper: by any event before `e` in the interleaving.
    Interleaving,
}

struct StoreRec {
    ev: u32,
    po: u32,
    /// Per thread q: the po index of q's first event that forced this
    /// store's commit (`NONE`: none yet).
    forced: Vec<u32>,
}

/// The BSS monitor under `model` (TSO or PSO) over one SC execution.
pub fn bss(prog: &Program, model: Model, forcing: Forcing, log: &[Event], hb: &Hb, out: &mut impl FnMut(RawViolation)) {
    let t = hb.threads;
    let cells = prog.mem_size();
    let x86 = prog.dialect == Dialect::HerdX86;
    let mut stores: Vec<Vec<StoreRec>> = (0..t).map(|_| Vec::new()).collect();
    // Per (thread, cell): indices into `stores[thread]`.
    let mut by_cell: Vec<Vec<usize>> = vec![Vec::new(); t * cells];
    // TSO: per (owner, q) how many of owner's stores q has forced (a prefix).
    let mut wm_tso = vec![0usize; t * t];
    // PSO: per (owner, cell, q) how many of by_cell[owner, cell] q has forced.
    let mut wm_pso = vec![0usize; if model == Model::Pso { t * cells * t } else { 0 }];

    let force_prefix = |stores: &mut Vec<StoreRec>, wm: &mut usize, upto: usize, q: usize, po: u32| {
        while *wm < upto {
            let s = &mut stores[*wm];
            if s.forced[q] == NONE {
                s.forced[q] = po;
            }
            *wm += 1;
        }
    };

    for (i, e) in log.iter().enumerate() {
        let i = i as u32;
        if e.kind == EventKind::Commit {
            continue;
        }
        let p = e.thread as usize;
        let po = hb.po(log, i);
        if e.cell != NONE {
            let a = e.cell as usize;
            // The check (BSS Fig. 4/5, line 6).
            let prev = hb.prev[i as usize];
            if prev != NONE {
                let cprev = hb.clock(prev);
                let pre = hb.pre(i);
                for q in (0..t).filter(|&q| q != p) {
                    let list = &by_cell[q * cells + a];
                    // The last store of q to a that happens before prev[p].
                    let k = list.partition_point(|&si| stores[q][si].po <= cprev[q]);
                    if k == 0 {
                        continue;
                    }
                    let s = &stores[q][list[k - 1]];
                    let forced = match forcing {
                        Forcing::Causal => (0..t).any(|r| s.forced[r] != NONE && s.forced[r] <= pre[r]),
                        Forcing::Interleaving => s.forced.iter().any(|&f| f != NONE),
                    };
                    if !forced {
                        out(RawViolation { store: s.ev, access: i, prev });
                    }
                }
            }
            // e forces the commit of other threads' stores to a (Fig. 4/5, lines 10–12).
            for q in (0..t).filter(|&q| q != p) {
                match model {
                    Model::Pso => {
                        let n = by_cell[q * cells + a].len();
                        let wm = &mut wm_pso[(q * cells + a) * t + p];
                        let list = &by_cell[q * cells + a];
                        while *wm < n {
                            let s = &mut stores[q][list[*wm]];
                            if s.forced[p] == NONE {
                                s.forced[p] = po;
                            }
                            *wm += 1;
                        }
                    }
                    _ => {
                        // TSO: the FIFO prefix up to q's last store to a.
                        if let Some(&last) = by_cell[q * cells + a].last() {
                            force_prefix(&mut stores[q], &mut wm_tso[q * t + p], last + 1, p, po);
                        }
                    }
                }
            }
        }
        // Perform e (lines 15–25): buffer a store; drain on atomics and fences.
        let drain_all = |stores: &mut Vec<Vec<StoreRec>>,
                         wm_tso: &mut Vec<usize>,
                         wm_pso: &mut Vec<usize>,
                         by_cell: &Vec<Vec<usize>>| {
            let n = stores[p].len();
            force_prefix(&mut stores[p], &mut wm_tso[p * t + p], n, p, po);
            if model == Model::Pso {
                for c in 0..cells {
                    let list = &by_cell[p * cells + c];
                    let wm = &mut wm_pso[(p * cells + c) * t + p];
                    while *wm < list.len() {
                        let s = &mut stores[p][list[*wm]];
                        if s.forced[p] == NONE {
                            s.forced[p] = po;
                        }
                        *wm += 1;
                    }
                }
            }
        };
        match e.kind {
            EventKind::Store => {
                by_cell[p * cells + e.cell as usize].push(stores[p].len());
                stores[p].push(StoreRec { ev: i, po, forced: vec![NONE; t] });
            }
            EventKind::Rmw => match model {
                Model::Pso if !x86 => {
                    let a = e.cell as usize;
                    let list = &by_cell[p * cells + a];
                    let wm = &mut wm_pso[(p * cells + a) * t + p];
                    while *wm < list.len() {
                        let s = &mut stores[p][list[*wm]];
                        if s.forced[p] == NONE {
                            s.forced[p] = po;
                        }
                        *wm += 1;
                    }
                }
                _ => drain_all(&mut stores, &mut wm_tso, &mut wm_pso, &by_cell),
            },
            EventKind::Fence(k) => {
                let drains = match model {
                    Model::Pso => k != FenceKind::RR,
                    _ => matches!(k, FenceKind::Full | FenceKind::WR),
                };
                if drains {
                    drain_all(&mut stores, &mut wm_tso, &mut wm_pso, &by_cell);
                }
            }
            _ => {}
        }
    }
}

/// Sober (TSO): at each load, walk back the coherence order of its address.
/// `write(c) →rhb* lastR(p)` stops the walk (already ordered under TSO);
/// `write(c) →hb* last(p)` is a borderline trace: the load could have read
/// the value before `write(c)`.
pub fn sober(prog: &Program, log: &[Event], hb: &Hb, out: &mut impl FnMut(RawViolation)) {
    let t = hb.threads;
    let cells = prog.mem_size();
    let w2 = 2 * t;
    // Fig. 3: load/store clocks per thread, mc1 per thread×address, mc2 per address.
    let mut lc = vec![0u32; t * w2];
    let mut sc = vec![0u32; t * w2];
    let mut mc1 = vec![0u32; t * cells * w2];
    let mut mc2 = vec![0u32; cells * w2];
    // Timestamps of events (only reads and writes are kept).
    let mut ts = vec![0u32; log.len() * w2];
    // Coherence order per address (indices into the log).
    let mut co: Vec<Vec<u32>> = vec![Vec::new(); cells];
    let mut co_index = vec![0u32; log.len()];
    let mut last = vec![NONE; t];
    let mut last_r = vec![NONE; t];
    let mut cur = vec![0u32; w2];
    let merge = |dst: &mut [u32], src: &[u32]| crate::hb::join(dst, src);
    for (i, e) in log.iter().enumerate() {
        if e.kind == EventKind::Commit {
            continue;
        }
        let p = e.thread as usize;
        // The check, for loads only (Fig. 2, lines 6–16).
        if e.kind == EventKind::Load && last[p] != NONE {
            let a = e.cell as usize;
            let mut c = if e.rf == NONE { 0 } else { co_index[e.rf as usize] };
            while c > 0 {
                let w = co[a][c as usize - 1];
                if log[w as usize].thread as usize == p {
                    break;
                }
                if last_r[p] != NONE
                    && leq(
                        &ts[w as usize * w2..(w as usize + 1) * w2],
                        &ts[last_r[p] as usize * w2..(last_r[p] as usize + 1) * w2],
                    )
                {
                    break;
                }
                if hb.before(log, w, last[p]) {
                    out(RawViolation { store: w, access: i as u32, prev: last[p] });
                    break;
                }
                c -= 1;
            }
        }
        // process_event (Fig. 3). Fences that order stores before loads are
        // interlocked operations on an address nobody else uses.
        let kind = match e.kind {
            EventKind::Load => Some(0),
            EventKind::Store => Some(1),
            EventKind::Rmw => Some(2),
            EventKind::Fence(FenceKind::Full | FenceKind::WR) => Some(3),
            _ => None,
        };
        if let Some(k) = kind {
            let a = if e.cell == NONE { None } else { Some(e.cell as usize) };
            cur.iter_mut().for_each(|x| *x = 0);
            match k {
                0 => {
                    let a = a.unwrap();
                    merge(&mut cur, &lc[p * w2..(p + 1) * w2]);
                    merge(&mut cur, &mc1[(p * cells + a) * w2..(p * cells + a + 1) * w2]);
                    cur[2 * p] += 1;
                    merge(&mut lc[p * w2..(p + 1) * w2], &cur);
                    merge(&mut mc2[a * w2..(a + 1) * w2], &cur);
                }
                1 => {
                    let a = a.unwrap();
                    merge(&mut cur, &sc[p * w2..(p + 1) * w2]);
                    merge(&mut cur, &lc[p * w2..(p + 1) * w2]);
                    merge(&mut cur, &mc2[a * w2..(a + 1) * w2]);
                    cur[2 * p + 1] += 1;
                    for q in (0..t).filter(|&q| q != p) {
                        merge(&mut mc1[(q * cells + a) * w2..(q * cells + a + 1) * w2], &cur);
                    }
                    merge(&mut mc2[a * w2..(a + 1) * w2], &cur);
                    merge(&mut sc[p * w2..(p + 1) * w2], &cur);
                }
                _ => {
                    merge(&mut cur, &sc[p * w2..(p + 1) * w2]);
                    merge(&mut cur, &lc[p * w2..(p + 1) * w2]);
                    if let Some(a) = a {
                        merge(&mut cur, &mc2[a * w2..(a + 1) * w2]);
                    }
                    cur[2 * p] += 1;
                    cur[2 * p + 1] += 1;
                    if let Some(a) = a {
                        for q in 0..t {
                            merge(&mut mc1[(q * cells + a) * w2..(q * cells + a + 1) * w2], &cur);
                        }
                        merge(&mut mc2[a * w2..(a + 1) * w2], &cur);
                    }
                    merge(&mut lc[p * w2..(p + 1) * w2], &cur);
                    merge(&mut sc[p * w2..(p + 1) * w2], &cur);
                }
            }
            ts[i * w2..(i + 1) * w2].copy_from_slice(&cur);
        }
        if e.is_write() {
            let a = e.cell as usize;
            co[a].push(i as u32);
            co_index[i] = co[a].len() as u32;
        }
        if matches!(e.kind, EventKind::Load | EventKind::Rmw | EventKind::Fence(FenceKind::Full | FenceKind::WR)) {
            last_r[p] = i as u32;
        }
        last[p] = i as u32;
    }
}

fn leq(a: &[u32], b: &[u32]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}
