//! Weak convergent causal memory (the paper's §4): CCM rebuilt on TSO's
//! relaxed program orders, `ppo` and `po-loc`, and on `wr_e`; its weak
//! partial store order `wpww` is contained in every store order that shows
//! TSO.
//!
//! CC and CCv are not tried first under TSO: they reject store buffering
//! (`W(x,1) R(y,0) ∥ W(y,1) R(x,0)`), which TSO allows.
//!
//! As for CCM, `hb^π_o` grows along `π⁺`, so it is computed only for the
//! operations of each thread that are `π⁺`-before no other (for ppo: the
//! last one, and the last write when only plain reads follow it; for
//! po-loc: the last access to each location).

use super::base::{self, Edges};
use super::ccm::{cf_pairs, graph_with, hb_of, order_of, ww_pairs};
use super::model::{History, OpId};
use super::relation::Rel;
use super::verdict::{Criterion, EdgeKind, Step};

/// `wpww` if both wCCM conditions hold.
pub(super) fn tso_criteria(h: &History) -> Result<Rel, (Criterion, Vec<Step>)> {
    let n = h.len();
    let ppo = base::ppo(h);
    let po_loc = base::po_loc(h);
    let wr_e = base::wr_e(h);
    let hb_ppo = hb_union(h, &ppo, &wr_e);
    let hb_loc = hb_union(h, &po_loc, &wr_e);
    let mut whb = hb_ppo.clone();
    whb.union_with(&hb_loc);
    whb.close();
    let pairs = ww_pairs(h, &whb).into_iter().chain(cf_pairs(h, &hb_loc, true)).chain(cf_pairs(h, &hb_ppo, true));
    let wpww = order_of(n, pairs);
    for fixed in base::axioms(h, super::verdict::Model::Tso) {
        if let Some(c) = graph_with(h, &fixed, &wpww, EdgeKind::Pww).cycle() {
            return Err((Criterion::Wccm, c));
        }
    }
    Ok(wpww)
}

/// `hb^π = (⋃_o hb^π_o)⁺` over `co^π = (π ∪ wr_e)⁺`.
fn hb_union(h: &History, pi: &Edges, wr_e: &Edges) -> Rel {
    let n = h.len();
    let co = base::closure(n, &[pi, wr_e]);
    // π* within threads (the initial writes' edges play no part: they are no
    // thread's reads and no thread's last operations).
    let within: Edges = pi.iter().copied().filter(|&(a, _)| !h.is_init(a)).collect();
    let pi_plus = base::closure(n, &[&within]);
    let mut hb = Rel::new(n);
    for t in &h.threads {
        for o in t.ops.clone() {
            if t.ops.clone().any(|o2| pi_plus.has(o, o2)) {
                continue;
            }
            let reads: Vec<OpId> =
                t.ops.clone().filter(|&r| h.ops[r].kind.reads() && (r == o || pi_plus.has(r, o))).collect();
            hb.union_with(&hb_of(h, &co, o, &reads));
        }
    }
    hb.close();
    hb
}
