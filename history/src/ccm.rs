//! The polynomial criteria for SC (Bouajjani, Enea, Mutluergil, Tasiran:
//! "Checking sequential consistency and TSO conformance of histories",
//! §3): CC and CCv, the cheap rejections, then CCM and its partial store
//! order `pww`, which every store order that shows SC contains.
//!
//! `hb_o` is computed only for the last operation of each thread: it grows
//! along program order (each of its rules for `o` holds for any later `o'`
//! of the thread), so those few contain the union over every `o`.

use super::base::{self, Edges};
use super::graph::Graph;
use super::model::{History, OpId};
use super::relation::Rel;
use super::verdict::{Criterion, EdgeKind, Step};

/// `hb_o` of one operation: the least transitive relation with
/// (1) the pairs of `co` among operations causally before `o` (`o` itself
/// only as the later one), and (2) `w → w'` whenever `w` is `hb_o`-before a
/// read `r` that takes its value from `w'` and `(r, o) ∈ π*` (`reads`).
pub(super) fn hb_of(h: &History, co: &Rel, o: OpId, reads: &[OpId]) -> Rel {
    let n = h.len();
    let past: Vec<bool> = (0..n).map(|x| x == o || co.has(x, o)).collect();
    let mut hb = Rel::new(n);
    for x in (0..n).filter(|&x| past[x] && x != o) {
        for y in co.succ(x).filter(|&y| past[y]) {
            hb.set(x, y);
        }
    }
    // co is transitive and `past` closed downwards, so `hb` is transitive
    // here; rule 2 then adds pairs until nothing changes.
    loop {
        let mut changed = false;
        for &r in reads {
            let s = h.source[r];
            let l = h.ops[r].kind.loc().expect("reads have a location");
            for &w in &h.writes_of[l] {
                if w != s && w != r && hb.has(w, r) && hb.add_closed(w, s) {
                    changed = true;
                }
            }
        }
        if !changed {
            return hb;
        }
    }
}

/// `rw[R]`: a read before every write that `R` puts after its source
/// (not an atomic before itself; and when `R` is cyclic, not a read before
/// its own source: the cycle of `R` is the better explanation).
pub(super) fn add_rw(h: &History, g: &mut Graph, order: &Rel) {
    for r in h.thread_ops().filter(|&r| h.ops[r].kind.reads()) {
        let l = h.ops[r].kind.loc();
        let s = h.source[r];
        for w in order.succ(s) {
            if w != r && w != s && h.ops[w].kind.writes() && h.ops[w].kind.loc() == l {
                g.add(r, w, EdgeKind::Rw);
            }
        }
    }
}

/// `cf[R]` pairs (write, write): a write `R`-before a read of another write
/// is before that write. `external` keeps only reads from other threads
/// (the paper's `cf_e`, for TSO).
pub(super) fn cf_pairs(h: &History, order: &Rel, external: bool) -> Vec<(OpId, OpId)> {
    let mut out = Vec::new();
    for r in h.thread_ops().filter(|&r| h.ops[r].kind.reads()) {
        let s = h.source[r];
        if external && (h.is_init(s) || h.ops[s].thread == h.ops[r].thread) {
            continue;
        }
        let l = h.ops[r].kind.loc().expect("reads have a location");
        for &w in &h.writes_of[l] {
            if w != s && w != r && order.has(w, r) {
                out.push((w, s));
            }
        }
    }
    out
}

/// The pairs of `R` between writes to one location.
pub(super) fn ww_pairs(h: &History, order: &Rel) -> Vec<(OpId, OpId)> {
    let mut out = Vec::new();
    for ws in &h.writes_of {
        for &a in ws {
            for &b in ws {
                if a != b && order.has(a, b) {
                    out.push((a, b));
                }
            }
        }
    }
    out
}

/// A graph of fixed edges plus a partial store order and its `rw`.
pub(super) fn graph_with(h: &History, fixed: &[(OpId, OpId, EdgeKind)], order: &Rel, order_kind: EdgeKind) -> Graph {
    let mut g = Graph::new(h.len());
    for &(a, b, k) in fixed {
        g.add(a, b, k);
    }
    for (a, b) in ww_pairs(h, order) {
        g.add(a, b, order_kind);
    }
    add_rw(h, &mut g, order);
    g
}

/// The closure of some pairs of writes.
pub(super) fn order_of(n: usize, pairs: impl IntoIterator<Item = (OpId, OpId)>) -> Rel {
    let mut r = Rel::new(n);
    for (a, b) in pairs {
        r.set(a, b);
    }
    r.close();
    r
}

/// What the SC criteria found: `pww` if CC, CCv and CCM hold.
pub(super) fn sc_criteria(h: &History) -> Result<Rel, (Criterion, Vec<Step>)> {
    let n = h.len();
    let po = base::po(h);
    let wr = base::wr(h);
    let mut fixed: Vec<(OpId, OpId, EdgeKind)> = po.iter().map(|&(a, b)| (a, b, EdgeKind::Po)).collect();
    fixed.extend(wr.iter().map(|&(a, b)| (a, b, EdgeKind::Wr)));
    let mut g = Graph::new(n);
    for &(a, b, k) in &fixed {
        g.add(a, b, k);
    }
    // po ∪ wr itself cyclic: co is no order, and CC fails already.
    if let Some(c) = g.cycle() {
        return Err((Criterion::Cc, c));
    }
    let co = base::closure(n, &[&po, &wr]);
    add_rw(h, &mut g, &co);
    if let Some(c) = g.cycle() {
        return Err((Criterion::Cc, c));
    }
    let mut g = Graph::new(n);
    for &(a, b, k) in &fixed {
        g.add(a, b, k);
    }
    for (a, b) in cf_pairs(h, &co, false) {
        g.add(a, b, EdgeKind::Cf);
    }
    if let Some(c) = g.cycle() {
        return Err((Criterion::Ccv, c));
    }
    let pww = pww(h, &co);
    if let Some(c) = graph_with(h, &fixed, &pww, EdgeKind::Pww).cycle() {
        return Err((Criterion::Ccm, c));
    }
    Ok(pww)
}

/// `pww = (hb_WW ∪ cf[hb])⁺` with `hb = (⋃_o hb_o)⁺`.
fn pww(h: &History, co: &Rel) -> Rel {
    let mut hb = Rel::new(h.len());
    for t in &h.threads {
        let Some(last) = t.ops.clone().last() else { continue };
        let reads: Vec<OpId> = t.ops.clone().filter(|&r| h.ops[r].kind.reads()).collect();
        hb.union_with(&hb_of(h, co, last, &reads));
    }
    hb.close();
    let pairs = ww_pairs(h, &hb).into_iter().chain(cf_pairs(h, &hb, false));
    order_of(h.len(), pairs)
}

/// CCv's order on writes, `(co_WW ∪ cf[co])⁺`: what the paper compares
/// `pww` against (how many pairs each leaves unordered).
pub fn ccv_order(h: &History) -> Rel {
    let po: Edges = base::po(h);
    let co = base::closure(h.len(), &[&po, &base::wr(h)]);
    order_of(h.len(), ww_pairs(h, &co).into_iter().chain(cf_pairs(h, &co, false)))
}

/// Pairs of distinct non-initial writes to one location that `order`
/// leaves unordered.
pub fn unordered_pairs(h: &History, order: &Rel) -> usize {
    let mut n = 0;
    for ws in &h.writes_of {
        for (i, &a) in ws.iter().enumerate().skip(1) {
            for &b in &ws[i + 1..] {
                if !order.has(a, b) && !order.has(b, a) {
                    n += 1;
                }
            }
        }
    }
    n
}
