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
use litmus_dsl::ir::StmtId;
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

/// The BSS monitor for one model, incremental like [`Hb`]: `push` the next
/// event, `truncate` back to a prefix.
pub struct Bss {
    model: Model,
    forcing: Forcing,
    x86: bool,
    t: usize,
    cells: usize,
    /// Per thread: its stores (log index, po index, cell), in order.
    stores: Vec<Vec<(u32, u32, u32)>>,
    /// Per (thread, store index, q): po index of q's first event that forced
    /// the store's commit (`NONE`: none yet). Flat per thread.
    forced: Vec<Vec<u32>>,
    /// Per (thread, cell): indices into `stores[thread]`.
    by_cell: Vec<Vec<u32>>,
    /// TSO: per (owner, q), how many of owner's stores q has forced (a
    /// FIFO prefix). PSO: per (owner, cell, q), of `by_cell[owner, cell]`.
    wm: Vec<u32>,
    /// Undo: (forced slot (thread, flat index) or watermark, old value).
    trail: Vec<(u32, u32, u32)>,
    /// Per event: trail length before it, and the thread whose store it
    /// appended (`NONE` if none).
    marks: Vec<(usize, u32)>,
    /// Fences of statements from `.0` on are measured ones: only those in
    /// `.1` act ([`Bss::measuring`]).
    measured: Option<(StmtId, Vec<StmtId>)>,
}

const WM: u32 = u32::MAX;

impl Bss {
    pub fn new(prog: &Program, model: Model, forcing: Forcing) -> Bss {
        let t = prog.threads.len();
        let cells = prog.mem_size();
        let wm = if model == Model::Pso { t * cells * t } else { t * t };
        Bss {
            model,
            forcing,
            x86: prog.dialect == Dialect::HerdX86,
            t,
            cells,
            stores: vec![Vec::new(); t],
            forced: vec![Vec::new(); t],
            by_cell: vec![Vec::new(); t * cells],
            wm: vec![0; wm],
            trail: Vec::new(),
            marks: Vec::new(),
            measured: None,
        }
    }

    /// A monitor that sees only some of a program's fences: those of
    /// statements `>= first` were inserted to be measured one position at a
    /// time, and of them only `own` act; the others it skips as if absent.
    /// Under SC a fence is a local no-op that only logs its event, so one SC
    /// exploration of the program with every measured fence serves a monitor
    /// per position, each seeing what it would see with its fence alone.
    pub fn measuring(mut self, first: StmtId, own: Vec<StmtId>) -> Bss {
        self.measured = Some((first, own));
        self
    }

    fn force(&mut self, owner: usize, store: usize, q: usize, po: u32) {
        let slot = store * self.t + q;
        if self.forced[owner][slot] == NONE {
            self.trail.push((owner as u32, slot as u32, NONE));
            self.forced[owner][slot] = po;
        }
    }

    fn set_wm(&mut self, idx: usize, v: u32) {
        self.trail.push((WM, idx as u32, self.wm[idx]));
        self.wm[idx] = v;
    }

    /// q (at po index `po`) forces owner's stores: TSO the FIFO prefix up to
    /// store index `upto`; PSO those to `cell` (all issued so far).
    fn force_tso(&mut self, owner: usize, q: usize, upto: usize, po: u32) {
        let w = owner * self.t + q;
        let from = self.wm[w] as usize;
        if from < upto {
            for s in from..upto {
                self.force(owner, s, q, po);
            }
            self.set_wm(w, upto as u32);
        }
    }

    fn force_pso(&mut self, owner: usize, cell: usize, q: usize, po: u32) {
        let w = (owner * self.cells + cell) * self.t + q;
        let n = self.by_cell[owner * self.cells + cell].len();
        let from = self.wm[w] as usize;
        if from < n {
            for k in from..n {
                let s = self.by_cell[owner * self.cells + cell][k] as usize;
                self.force(owner, s, q, po);
            }
            self.set_wm(w, n as u32);
        }
    }

    /// Thread p drains its buffer(s): all of them, or (PSO native atomic) one.
    fn drain(&mut self, p: usize, only: Option<usize>, po: u32) {
        if self.model == Model::Pso {
            match only {
                Some(c) => self.force_pso(p, c, p, po),
                None => {
                    for c in 0..self.cells {
                        self.force_pso(p, c, p, po);
                    }
                }
            }
        } else {
            let n = self.stores[p].len();
            self.force_tso(p, p, n, po);
        }
    }

    /// Process event `i` (the next one): report violations, then simulate it.
    pub fn push(&mut self, log: &[Event], i: usize, hb: &Hb, out: &mut impl FnMut(RawViolation)) {
        self.marks.push((self.trail.len(), NONE));
        let e = &log[i];
        if e.kind == EventKind::Commit {
            return;
        }
        let i = i as u32;
        let t = self.t;
        let p = e.thread as usize;
        let po = hb.po(log, i);
        if e.cell != NONE {
            let a = e.cell as usize;
            // The check (Fig. 4/5, line 6).
            let prev = hb.prev[i as usize];
            if prev != NONE {
                let cprev = hb.clock(prev);
                let ci = hb.clock(i);
                for q in (0..t).filter(|&q| q != p) {
                    let list = &self.by_cell[q * self.cells + a];
                    // The last store of q to a that happens before prev[p].
                    let k = list.partition_point(|&si| self.stores[q][si as usize].1 <= cprev[q]);
                    if k == 0 {
                        continue;
                    }
                    let si = list[k - 1] as usize;
                    let forced = &self.forced[q][si * t..(si + 1) * t];
                    let is_forced = match self.forcing {
                        // Forced by an event that happens before e (e's own
                        // component minus one: its predecessors).
                        Forcing::Causal => (0..t).any(|r| forced[r] != NONE && forced[r] <= ci[r] - (r == p) as u32),
                        Forcing::Interleaving => forced.iter().any(|&f| f != NONE),
                    };
                    if !is_forced {
                        out(RawViolation { store: self.stores[q][si].0, access: i, prev });
                    }
                }
            }
            // e forces the commit of other threads' stores to a (lines 10–12).
            for q in (0..t).filter(|&q| q != p) {
                if self.model == Model::Pso {
                    self.force_pso(q, a, p, po);
                } else if let Some(&last) = self.by_cell[q * self.cells + a].last() {
                    self.force_tso(q, p, last as usize + 1, po);
                }
            }
        }
        // Perform e (lines 15–25): buffer a store; drain on atomics and fences.
        match e.kind {
            EventKind::Store => {
                let idx = self.stores[p].len() as u32;
                self.stores[p].push((i, po, e.cell));
                self.forced[p].extend(std::iter::repeat_n(NONE, t));
                self.by_cell[p * self.cells + e.cell as usize].push(idx);
                self.marks.last_mut().unwrap().1 = p as u32;
            }
            EventKind::Rmw => {
                let only = (self.model == Model::Pso && !self.x86).then_some(e.cell as usize);
                self.drain(p, only, po);
            }
            EventKind::Fence(k) => {
                let acts = match &self.measured {
                    Some((first, own)) => e.stmt < *first || own.contains(&e.stmt),
                    None => true,
                };
                if acts && crate::machine::fence_drains(self.model, k) {
                    self.drain(p, None, po);
                }
            }
            _ => {}
        }
    }

    /// Forget every event from `n` on.
    pub fn truncate(&mut self, n: usize) {
        while self.marks.len() > n {
            let (keep, appended) = self.marks.pop().unwrap();
            while self.trail.len() > keep {
                let (owner, idx, old) = self.trail.pop().unwrap();
                if owner == WM {
                    self.wm[idx as usize] = old;
                } else {
                    self.forced[owner as usize][idx as usize] = old;
                }
            }
            if appended != NONE {
                let p = appended as usize;
                let (_, _, cell) = self.stores[p].pop().unwrap();
                self.forced[p].truncate(self.stores[p].len() * self.t);
                self.by_cell[p * self.cells + cell as usize].pop();
            }
        }
    }
}

/// The BSS monitor under `model` (TSO or PSO) over one SC execution.
pub fn bss(prog: &Program, model: Model, forcing: Forcing, log: &[Event], hb: &Hb, out: &mut impl FnMut(RawViolation)) {
    let mut m = Bss::new(prog, model, forcing);
    for i in 0..log.len() {
        m.push(log, i, hb, out);
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
