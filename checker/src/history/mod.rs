//! Checking recorded histories for SC and TSO conformance (Bouajjani, Enea,
//! Mutluergil, Tasiran, "Checking sequential consistency and TSO
//! conformance of histories"): polynomial criteria first — CC, CCv, CCM for
//! SC; wCCM for TSO — whose partial store orders every witnessing store
//! order contains, then a search for the rest of the store order by
//! backtracking (`ccm-enum`) or SAT (`ccm-sat`); and the direct SAT
//! encoding of the axioms (`sat`) as the baseline.
//!
//! - [`model`]: the history type; [`parse`] and [`json`]: the input formats;
//!   [`execution`]: the history of an execution of the explorer;
//!   [`generate`]: random valid histories from simulated SC/TSO runs;
//! - [`base`]: the fixed relations and the axioms (the judge of every
//!   store order); `ccm`, `wccm`: the criteria; `enumerate`, `sat`: the
//!   completions; [`verdict`]: answers and their explanations.

pub mod base;
mod ccm;
mod enumerate;
pub mod execution;
pub mod generate;
mod graph;
pub mod json;
pub mod model;
pub mod parse;
pub mod relation;
mod sat;
pub mod unique;
pub mod verdict;
mod wccm;

pub use ccm::{ccv_order, unordered_pairs};
pub use json::parse_json;
pub use model::{ErrorKind, History, HistoryError, Loc, OpId, OpKind};
pub use parse::{parse_any, parse_text, to_text};
pub use verdict::{Criterion, EdgeKind, Method, Model, Outcome, Stats, Step, Verdict};

use relation::Rel;

/// Is the history consistent with the model? The verdict, with the store
/// order that shows it or the cycle that refutes it.
pub fn check(h: &History, model: Model, method: Method) -> Outcome {
    let mut stats = Stats { write_pairs: h.write_pairs(), ..Default::default() };
    let fixed = base::axioms(h, model);
    let verdict = match method {
        Method::Sat => {
            let r = sat::solve(h, &fixed, &init_first(h));
            stats.sat_vars = r.vars;
            stats.sat_clauses = r.clauses;
            stats.sat_rounds = r.rounds;
            match r.order {
                Some(store_order) => Verdict::Consistent { store_order },
                // The solver proves there is none; the criteria say why.
                None => explain(h, model, &fixed),
            }
        }
        Method::CcmEnum | Method::CcmSat => match partial_order(h, model) {
            Err((criterion, cycle)) => Verdict::Violation { criterion, cycle, other: None },
            Ok(partial) => {
                stats.unordered = Some(unordered_pairs(h, &partial));
                if method == Method::CcmEnum {
                    let s = enumerate::extend(h, &fixed, &partial);
                    stats.decisions = s.decisions;
                    searched(s)
                } else {
                    let r = sat::complete(h, model, &partial);
                    stats.sat_vars = r.vars;
                    stats.sat_clauses = r.clauses;
                    stats.sat_rounds = r.rounds;
                    match r.order {
                        Some(store_order) => Verdict::Consistent { store_order },
                        None => searched(enumerate::extend(h, &fixed, &partial)),
                    }
                }
            }
        },
    };
    debug_assert!(match &verdict {
        Verdict::Consistent { store_order } =>
            base::is_store_order(h, store_order) && base::violated_by(h, model, store_order).is_none(),
        Verdict::Violation { cycle, .. } => !cycle.is_empty(),
    });
    Outcome { model, method, verdict, stats }
}

/// The partial store order of the model's criterion (`pww` for SC, `wpww`
/// for TSO), or the criterion that fails with its cycle.
pub fn partial_order(h: &History, model: Model) -> Result<Rel, (Criterion, Vec<Step>)> {
    let mut p = match model {
        Model::Sc => ccm::sc_criteria(h)?,
        Model::Tso => wccm::tso_criteria(h)?,
    };
    // The criteria order the initial writes first already; the completions
    // rely on it.
    p.union_with(&init_first(h));
    Ok(p)
}

/// Each initial write before every other write to its location.
fn init_first(h: &History) -> Rel {
    let mut r = Rel::new(h.len());
    for (l, ws) in h.writes_of.iter().enumerate() {
        for &w in &ws[1..] {
            r.set(l, w);
        }
    }
    r
}

fn searched(s: enumerate::Search) -> Verdict {
    match s.result {
        Ok(store_order) => Verdict::Consistent { store_order },
        Err((cycle, other)) => Verdict::Violation { criterion: Criterion::NoStoreOrder, cycle, other },
    }
}

/// Why a history the solver refuted is inconsistent: the first criterion
/// that fails, else the enumeration's cycles. (Should the enumeration find
/// a store order after all, it is checked against the axioms and returned:
/// a verified order is a proof.)
fn explain(h: &History, model: Model, fixed: &[Vec<(OpId, OpId, EdgeKind)>]) -> Verdict {
    match partial_order(h, model) {
        Err((criterion, cycle)) => Verdict::Violation { criterion, cycle, other: None },
        Ok(partial) => {
            let v = searched(enumerate::extend(h, fixed, &partial));
            debug_assert!(!v.consistent(), "SAT and the enumeration disagree");
            v
        }
    }
}
