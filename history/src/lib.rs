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
pub mod cat;
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
pub mod split;
pub mod unique;
pub mod verdict;
mod wccm;

pub use ccm::{ccv_order, unordered_pairs};

pub use json::parse_json;
pub use model::{ErrorKind, History, HistoryError, Loc, OpId, OpKind};
pub use parse::{parse_text, to_text};
pub use verdict::{Criterion, EdgeKind, Method, Model, Outcome, Stats, Step, Undecided, Verdict};

/// Parse either format: JSON when the first non-blank character is `{`.
pub fn parse_any(src: &str) -> Result<History, HistoryError> {
    if src.trim_start().starts_with('{') {
        parse_json(src)
    } else {
        parse_text(src)
    }
}

use relation::Rel;

/// What a check may spend: a deadline, and the memory its dense relations
/// may take (checked before they are allocated).
#[derive(Clone, Debug)]
pub struct Limits {
    pub deadline: Option<std::time::Instant>,
    pub max_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { deadline: None, max_bytes: 2 << 30 }
    }
}

impl Limits {
    pub(crate) fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| std::time::Instant::now() >= d)
    }
}

/// Histories up to this many operations are decided by the criteria even
/// when program order alone fixes the store order (their explanations name
/// the criterion that fails); bigger ones take the linear path.
const SMALL: usize = 4096;

/// The dense relations a check holds at once, at most (criteria: co, hb,
/// the partial order, the graphs' closures; see [`relation`]).
pub(crate) const LIVE_RELATIONS: u64 = 6;

/// Is the history consistent with the model? The verdict, with the store
/// order that shows it or the cycle that refutes it.
pub fn check(h: &History, model: Model, method: Method) -> Outcome {
    check_within(h, model, method, &Limits::default())
}

/// [`check`] within `limits`: `Verdict::Unknown` when they do not suffice.
/// Independent parts ([`split`]) are checked one by one.
pub fn check_within(h: &History, model: Model, method: Method, limits: &Limits) -> Outcome {
    let mut stats = Stats { write_pairs: h.write_pairs(), ..Default::default() };
    let Some(parts) = split::parts(h) else {
        return check_part(h, model, method, limits);
    };
    let mut unordered = Some(0);
    let mut order: Vec<Vec<OpId>> = (0..h.locs.len()).map(|l| vec![l]).collect();
    let mut undecided = None;
    for part in &parts {
        let o = check_part(&part.history, model, method, limits);
        unordered = unordered.zip(o.stats.unordered).map(|(a, b)| a + b);
        stats.decisions += o.stats.decisions;
        stats.dead_ends += o.stats.dead_ends;
        stats.backjumps += o.stats.backjumps;
        stats.sat_vars += o.stats.sat_vars;
        stats.sat_clauses += o.stats.sat_clauses;
        stats.sat_rounds += o.stats.sat_rounds;
        match o.verdict {
            Verdict::Consistent { store_order } => part.place(store_order, &mut order),
            // One part's cycle is the whole's: the rest need not be decided.
            Verdict::Violation { criterion, cycle, other } => {
                let cycle = part.lift(cycle);
                let verdict = Verdict::Violation { criterion, cycle, other: other.map(|c| part.lift(c)) };
                return Outcome { model, method, verdict, stats };
            }
            Verdict::Unknown { why } => {
                undecided.get_or_insert(why);
            }
        }
    }
    stats.unordered = unordered;
    let verdict = match undecided {
        Some(why) => Verdict::Unknown { why },
        None => Verdict::Consistent { store_order: order },
    };
    Outcome { model, method, verdict, stats }
}

/// One part, by the method, within the limits.
fn check_part(h: &History, model: Model, method: Method, limits: &Limits) -> Outcome {
    let mut stats = Stats { write_pairs: h.write_pairs(), ..Default::default() };
    if h.len() > SMALL {
        if let Some(order) = forced_order(h) {
            // Linear: one graph per condition over the only store order.
            let verdict = match base::violated_by(h, model, &order) {
                None => Verdict::Consistent { store_order: order },
                Some(cycle) => Verdict::Violation { criterion: Criterion::ForcedStoreOrder, cycle, other: None },
            };
            stats.unordered = Some(0);
            return Outcome { model, method, verdict, stats };
        }
    }
    let needed = LIVE_RELATIONS * relation::Rel::bytes(h.len());
    if needed > limits.max_bytes {
        let why = Undecided::Memory { needed, limit: limits.max_bytes, what: "its relations" };
        return Outcome { model, method, verdict: Verdict::Unknown { why }, stats };
    }
    if limits.expired() {
        return Outcome { model, method, verdict: Verdict::Unknown { why: Undecided::Timeout }, stats };
    }
    let verdict = relation::with_deadline(limits.deadline, || decide(h, model, method, limits, &mut stats));
    // A relation cut short by the deadline proves nothing.
    let verdict = if limits.expired() { Verdict::Unknown { why: Undecided::Timeout } } else { verdict };
    Outcome { model, method, verdict, stats }
}

/// Each location's writes in program order, when one thread makes them all
/// (program order then fixes the store order: coherence under SC and TSO).
fn forced_order(h: &History) -> Option<Vec<Vec<OpId>>> {
    h.writes_of
        .iter()
        .map(|ws| {
            let writer = ws.get(1).map(|&w| h.ops[w].thread);
            // Operations are numbered in program order within a thread.
            ws[1..].iter().all(|&w| Some(h.ops[w].thread) == writer).then(|| ws.clone())
        })
        .collect()
}

fn decide(h: &History, model: Model, method: Method, limits: &Limits, stats: &mut Stats) -> Verdict {
    let fixed = base::axioms(h, model);
    let verdict = match method {
        Method::Sat => {
            let r = sat::solve(h, &fixed, &init_first(h), limits);
            stats.sat_vars = r.vars;
            stats.sat_clauses = r.clauses;
            stats.sat_rounds = r.rounds;
            match r.order {
                Ok(Some(store_order)) => Verdict::Consistent { store_order },
                // The solver proves there is none; the criteria say why.
                Ok(None) => explain(h, model, &fixed),
                Err(why) => Verdict::Unknown { why },
            }
        }
        Method::CcmEnum | Method::CcmSat => match partial_order(h, model) {
            Err((criterion, cycle)) => Verdict::Violation { criterion, cycle, other: None },
            Ok(partial) => {
                stats.unordered = Some(unordered_pairs(h, &partial));
                if method == Method::CcmEnum {
                    let s = enumerate::extend(h, &fixed, &partial, limits);
                    (stats.decisions, stats.dead_ends, stats.backjumps) = (s.decisions, s.dead_ends, s.backjumps);
                    searched(s)
                } else {
                    let r = sat::complete(h, model, &partial, limits);
                    stats.sat_vars = r.vars;
                    stats.sat_clauses = r.clauses;
                    stats.sat_rounds = r.rounds;
                    match r.order {
                        Ok(Some(store_order)) => Verdict::Consistent { store_order },
                        Ok(None) => refuted(enumerate::explain(h, &fixed, &partial)),
                        Err(why) => Verdict::Unknown { why },
                    }
                }
            }
        },
    };
    debug_assert!(match &verdict {
        Verdict::Consistent { store_order } =>
            base::is_store_order(h, store_order) && base::violated_by(h, model, store_order).is_none(),
        Verdict::Violation { cycle, .. } => !cycle.is_empty() || limits.expired(),
        Verdict::Unknown { .. } => true,
    });
    verdict
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
        Err(enumerate::Stopped::Refuted(r)) => refuted(r),
        Err(enumerate::Stopped::Limit(why)) => Verdict::Unknown { why },
    }
}

fn refuted((cycle, other): enumerate::Refutation) -> Verdict {
    Verdict::Violation { criterion: Criterion::NoStoreOrder, cycle, other }
}

/// Why a history the solver refuted is inconsistent: the first criterion
/// that fails, else the cycles met under each way of the first choice (the
/// solver's proof stands: no exhaustive search to repeat it).
fn explain(h: &History, model: Model, fixed: &[Vec<(OpId, OpId, EdgeKind)>]) -> Verdict {
    match partial_order(h, model) {
        Err((criterion, cycle)) => Verdict::Violation { criterion, cycle, other: None },
        Ok(partial) => refuted(enumerate::explain(h, fixed, &partial)),
    }
}
