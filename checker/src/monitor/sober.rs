//! Sober (Burckhardt, Musuvathi, MSR-TR-2008-12), TSO: at each load, walk
//! back the coherence order of its address. `write(c) →rhb* lastR(p)` stops
//! the walk (already ordered under TSO); `write(c) →hb* last(p)` is a
//! borderline trace: the load could have read the value before `write(c)`.

use super::signal::RawViolation;
use crate::clocks::Clocks;
use crate::machine::{Event, EventKind, NONE};
use litmus_ir::FenceKind;

/// What undoing one event restores: its thread's slots before it, and
/// whether it appended a write to its cell's coherence order.
struct Mark {
    thread: u16,
    cell: u32,
    loaded: bool,
    wrote: bool,
    last: u32,
    last_r: u32,
    last_s: u32,
    /// `last_read[cell][thread]` before it (a load).
    last_read: u32,
}

/// Incremental: `push` the next event, `truncate` back to a prefix.
///
/// Fig. 3's timestamps have a load and a store component per thread, and
/// `w →rhb* g` iff `ts(w) <= ts(g)` (its Theorem 12). The walk asks this
/// only for a write w of a thread q, and the writes of q are a chain in
/// rhb (a store is ordered before the thread's later stores and atomics),
/// so `ts(w)[store q] <= ts(g)[store q]` alone decides it; and joins and
/// increments are per component, so the store components never depend on
/// the load ones. Only those are kept: t per event, not 2t.
///
/// Fig. 3's clocks are joins of event timestamps, so each is kept as the
/// index of the event(s) it equals: `lc[p]` is the timestamp of p's last
/// load, atomic or store-load fence, `sc[p]` of its last store, atomic or
/// fence, `mc1[q][a]` of the last write to `a` that is not a store of q
/// (writes to one address have growing timestamps: found walking back the
/// coherence order), `mc2[a]` the join of the last write to `a` and the
/// loads of `a` since.
pub struct Sober {
    t: usize,
    /// Store components of each event's timestamp (zero for those Fig. 3
    /// ignores), stride t.
    ts: Vec<u32>,
    /// Per cell: its writes in coherence order; per event: its 1-based place
    /// there (0: not a write).
    co: Vec<Vec<u32>>,
    co_index: Vec<u32>,
    /// Per thread (event index or `NONE`): its last event, its last load,
    /// atomic or fence (lc), its last store, atomic or fence (sc).
    last: Vec<u32>,
    last_r: Vec<u32>,
    last_s: Vec<u32>,
    /// Per (cell, thread): the thread's last load of the cell.
    last_read: Vec<u32>,
    marks: Vec<Mark>,
}

impl Sober {
    pub fn new(threads: usize, cells: usize) -> Sober {
        Sober {
            t: threads,
            ts: Vec::new(),
            co: vec![Vec::new(); cells],
            co_index: Vec::new(),
            last: vec![NONE; threads],
            last_r: vec![NONE; threads],
            last_s: vec![NONE; threads],
            last_read: vec![NONE; cells * threads],
            marks: Vec::new(),
        }
    }

    /// The timestamp row being built (from `base`) `⊔= ts[ev]` (nothing for
    /// `NONE`).
    #[inline]
    fn join(&mut self, base: usize, ev: u32) {
        if ev != NONE {
            let t = self.t;
            let (done, row) = self.ts.split_at_mut(base);
            crate::hb::join(row, &done[ev as usize * t..ev as usize * t + t]);
        }
    }

    /// The row being built `⊔= mc2[a]`: the last write to `a` and the loads
    /// of it since.
    fn join_mc2(&mut self, base: usize, a: usize) {
        let w = self.co[a].last().copied().unwrap_or(NONE);
        self.join(base, w);
        for q in 0..self.t {
            let r = self.last_read[a * self.t + q];
            if r != NONE && (w == NONE || r > w) {
                self.join(base, r);
            }
        }
    }

    /// `mc1[p][a]`: the last write to `a` that is not a store of `p`.
    fn visible_write(&self, log: &[Event], p: usize, a: usize) -> u32 {
        let own_store = |w: u32| {
            let e = &log[w as usize];
            e.thread as usize == p && e.kind == EventKind::Store
        };
        self.co[a].iter().rev().copied().find(|&w| !own_store(w)).unwrap_or(NONE)
    }

    /// Process event `i` (the next one): report borderline loads, then
    /// stamp it. `clocks`: the exploration's, SC happens-before.
    pub fn push(&mut self, log: &[Event], i: usize, clocks: Clocks<'_>, out: &mut impl FnMut(RawViolation)) {
        debug_assert_eq!(i, self.marks.len());
        let e = &log[i];
        let t = self.t;
        let p = e.thread as usize;
        let a = e.cell as usize;
        let has_cell = e.cell != NONE;
        self.marks.push(Mark {
            thread: e.thread,
            cell: e.cell,
            loaded: e.kind == EventKind::Load,
            wrote: false,
            last: self.last[p],
            last_r: self.last_r[p],
            last_s: self.last_s[p],
            last_read: if e.kind == EventKind::Load { self.last_read[a * t + p] } else { NONE },
        });
        self.co_index.push(0);
        if e.kind == EventKind::Commit {
            self.ts.extend(std::iter::repeat_n(0, t));
            return;
        }
        let last = self.last[p];
        let last_r = self.last_r[p];
        // The check (Fig. 2, lines 6–16), at every read: a load, and an
        // atomic too — it reads after its own thread's stores, but may read
        // before another thread's delayed store (a cycle closed by a cas
        // that failed was missed).
        if matches!(e.kind, EventKind::Load | EventKind::Rmw) && last != NONE {
            // An atomic also runs after its own thread's stores commit: what
            // is ordered before them is ordered before it.
            let last_s = if e.is_atomic() { self.last_s[p] } else { NONE };
            let ordered =
                |w: u32, q: usize, g: u32| g != NONE && self.ts[w as usize * t + q] <= self.ts[g as usize * t + q];
            let mut c = if e.rf == NONE { 0 } else { self.co_index[e.rf as usize] };
            while c > 0 {
                let w = self.co[a][c as usize - 1];
                let q = log[w as usize].thread as usize;
                if q == p {
                    break;
                }
                if ordered(w, q, last_r) || ordered(w, q, last_s) {
                    break;
                }
                // w (a memory event of q) happens before last.
                if clocks.count(&log[w as usize]) <= clocks.at(&log[last as usize], q) {
                    out(RawViolation { store: w, access: i as u32, prev: last });
                    break;
                }
                c -= 1;
            }
        }
        // process_event (Fig. 3), store components only, into a new row.
        // Fences that order stores before loads are interlocked operations
        // on an address nobody else uses.
        let i32 = i as u32;
        let base = self.ts.len();
        self.ts.resize(base + t, 0);
        match e.kind {
            // An atomic orders as a full fence; a failed cas (a load) also reads.
            _ if e.is_atomic() || matches!(e.kind, EventKind::Fence(FenceKind::Full | FenceKind::WR)) => {
                let reads = e.kind == EventKind::Load;
                self.join(base, self.last_s[p]);
                self.join(base, last_r);
                if reads {
                    self.join(base, self.visible_write(log, p, a));
                }
                if has_cell {
                    self.join_mc2(base, a);
                }
                if reads {
                    self.last_read[a * t + p] = i32;
                }
                self.ts[base + p] += 1;
                self.last_r[p] = i32;
                self.last_s[p] = i32;
            }
            EventKind::Load => {
                self.join(base, last_r);
                self.join(base, self.visible_write(log, p, a));
                self.last_r[p] = i32;
                self.last_read[a * t + p] = i32;
            }
            EventKind::Store => {
                self.join(base, self.last_s[p]);
                self.join(base, last_r);
                self.join_mc2(base, a);
                self.ts[base + p] += 1;
                self.last_s[p] = i32;
            }
            _ => {}
        }
        if e.is_write() {
            self.co[a].push(i32);
            self.co_index[i] = self.co[a].len() as u32;
            self.marks[i].wrote = true;
        }
        self.last[p] = i32;
    }

    /// Forget every event from `n` on.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.marks.len() {
            return;
        }
        let t = self.t;
        for m in self.marks[n..].iter().rev() {
            let p = m.thread as usize;
            self.last[p] = m.last;
            self.last_r[p] = m.last_r;
            self.last_s[p] = m.last_s;
            if m.loaded {
                self.last_read[m.cell as usize * t + p] = m.last_read;
            }
            if m.wrote {
                self.co[m.cell as usize].pop();
            }
        }
        self.marks.truncate(n);
        self.ts.truncate(n * t);
        self.co_index.truncate(n);
    }
}
