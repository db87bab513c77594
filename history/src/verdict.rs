//! What a check of a history answers: consistent with the store order that
//! shows it, or a violation named by the criterion that failed and a cycle
//! of operations whose edges say why each follows the previous one.

use super::model::{History, OpId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    Sc,
    Tso,
}

impl Model {
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Sc => "sc",
            Model::Tso => "tso",
        }
    }
    pub fn upper(self) -> &'static str {
        match self {
            Model::Sc => "SC",
            Model::Tso => "TSO",
        }
    }
    /// The partial store order its criterion builds: `pww` (CCM, SC),
    /// `wpww` (wCCM, TSO).
    pub fn store_order_name(self) -> &'static str {
        match self {
            Model::Sc => "pww",
            Model::Tso => "wpww",
        }
    }
}

/// How a store order is looked for once the polynomial criteria pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// CCM (wCCM under TSO), then backtracking over the pairs of writes its
    /// partial store order leaves unordered.
    CcmEnum,
    /// CCM (wCCM), then SAT over the pairs left unordered (lazily: a
    /// clause per cycle found in a model).
    CcmSat,
    /// The direct SAT encoding of the model's axioms (the paper's X-SAT).
    Sat,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::CcmEnum => "ccm-enum",
            Method::CcmSat => "ccm-sat",
            Method::Sat => "sat",
        }
    }
    pub const ALL: [Method; 3] = [Method::CcmEnum, Method::CcmSat, Method::Sat];
}

/// The criterion a violating history fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Criterion {
    /// Causal consistency: `po ∪ wr ∪ rw[co]` has a cycle.
    Cc,
    /// Causal convergence: `po ∪ wr ∪ cf[co]` has a cycle.
    Ccv,
    /// Convergent causal memory: `po ∪ wr ∪ pww ∪ rw[pww]` has a cycle.
    Ccm,
    /// Weak CCM: `ppo ∪ wr_e ∪ wpww ∪ rw[wpww]` or `po-loc ∪ wr ∪ wpww ∪ rw[wpww]` has a cycle.
    Wccm,
    /// The polynomial criteria hold, but no store order extending the
    /// partial one satisfies the model's axioms.
    NoStoreOrder,
    /// Each location is written by one thread: program order fixes its
    /// store order, and that one order breaks the axioms (decided so for
    /// histories too big for the criteria's relations).
    ForcedStoreOrder,
}

impl Criterion {
    pub fn as_str(self) -> &'static str {
        match self {
            Criterion::Cc => "CC",
            Criterion::Ccv => "CCv",
            Criterion::Ccm => "CCM",
            Criterion::Wccm => "wCCM",
            Criterion::NoStoreOrder => "no store order",
            Criterion::ForcedStoreOrder => "forced store order",
        }
    }

    /// The relation that has the cycle, in the paper's notation.
    pub fn condition(self, model: Model) -> &'static str {
        match (self, model) {
            (Criterion::Cc, _) => "po ∪ wr ∪ rw[co] is cyclic",
            (Criterion::Ccv, _) => "po ∪ wr ∪ cf[co] is cyclic",
            (Criterion::Ccm, _) => "po ∪ wr ∪ pww ∪ rw[pww] is cyclic",
            (Criterion::Wccm, _) => "ppo ∪ wr_e ∪ wpww ∪ rw[wpww] or po-loc ∪ wr ∪ wpww ∪ rw[wpww] is cyclic",
            (Criterion::NoStoreOrder, Model::Sc) => "every store order makes po ∪ wr ∪ ww ∪ rw cyclic",
            (Criterion::NoStoreOrder, Model::Tso) => {
                "every store order makes ppo ∪ wr_e ∪ ww ∪ rw or po-loc ∪ wr ∪ ww ∪ rw cyclic"
            }
            (Criterion::ForcedStoreOrder, Model::Sc) => {
                "the only store order (each location's writes in program order) makes po ∪ wr ∪ ww ∪ rw cyclic"
            }
            (Criterion::ForcedStoreOrder, Model::Tso) => {
                "the only store order (each location's writes in program order) makes ppo ∪ wr_e ∪ ww ∪ rw or po-loc ∪ wr ∪ ww ∪ rw cyclic"
            }
        }
    }
}

/// Why one operation of a cycle precedes the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// Program order.
    Po,
    /// TSO's preserved program order (no write before a later read, unless
    /// a fence or an atomic is between them).
    Ppo,
    /// Program order between accesses to one location.
    PoLoc,
    /// The write a read takes its value from.
    Wr,
    /// A read before the writes that overwrite the value it read.
    Rw,
    /// The conflict relation: a write causally before a read of another write.
    Cf,
    /// The partial store order the criteria derive (pww, wpww, or CCv's order).
    Pww,
    /// A store order pair the search chose or derived from its choices.
    Ww,
}

impl EdgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Po => "po",
            EdgeKind::Ppo => "ppo",
            EdgeKind::PoLoc => "po-loc",
            EdgeKind::Wr => "wr",
            EdgeKind::Rw => "rw",
            EdgeKind::Cf => "cf",
            EdgeKind::Pww => "pww",
            EdgeKind::Ww => "ww",
        }
    }
}

/// One operation of a cycle and the edge that leaves it for the next
/// (the last one's leads back to the first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub op: OpId,
    pub edge: EdgeKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Per location, its writes in a store order that satisfies the model
    /// (the initial write first).
    Consistent { store_order: Vec<Vec<OpId>> },
    Violation {
        criterion: Criterion,
        cycle: Vec<Step>,
        /// With [`Criterion::NoStoreOrder`] after a choice: the cycle found
        /// with the first chosen pair of writes the other way round
        /// (`cycle` has it one way).
        other: Option<Vec<Step>>,
    },
    /// Not decided within the limits ([`super::Limits`]).
    Unknown { why: Undecided },
}

/// Why a history was not decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// The deadline passed.
    Timeout,
    /// Deciding it needs more memory than the limit allows (bytes: what
    /// it would take at least, and the limit; `what` takes it: the dense
    /// relations, the search's stack, the SAT encoding). Said before allocating.
    Memory { needed: u64, limit: u64, what: &'static str },
}

impl Undecided {
    pub fn as_str(self) -> &'static str {
        match self {
            Undecided::Timeout => "timeout",
            Undecided::Memory { .. } => "memory",
        }
    }

    pub fn describe(self) -> String {
        match self {
            Undecided::Timeout => "timed out".into(),
            Undecided::Memory { needed, limit, what } => {
                format!("{what} need at least {} of memory, more than the limit of {}", bytes(needed), bytes(limit))
            }
        }
    }
}

/// `1.5 GiB`, `300 MiB`.
fn bytes(n: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    if n as f64 >= GIB {
        format!("{:.1} GiB", n as f64 / GIB)
    } else {
        format!("{:.0} MiB", (n as f64 / MIB).ceil())
    }
}

impl Verdict {
    pub fn consistent(&self) -> bool {
        matches!(self, Verdict::Consistent { .. })
    }
}

/// What the check measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Pairs of distinct non-initial writes to one location.
    pub write_pairs: usize,
    /// Of those, the pairs the partial store order (pww, wpww) leaves
    /// unordered; `None` when it was not computed (the `sat` method, or a
    /// violation found earlier).
    pub unordered: Option<usize>,
    /// Choices the enumeration made (both ways of a pair count as two).
    pub decisions: u64,
    /// Of those, the ways that failed below an earlier choice that held,
    /// and the times the search went back to an earlier choice after both
    /// ways of a later one failed (conflict-directed backjumping).
    pub dead_ends: u64,
    pub backjumps: u64,
    /// Size of the SAT instance, when one was solved.
    pub sat_vars: usize,
    pub sat_clauses: usize,
    /// Models the solver produced (the lazy completion of `ccm-sat` may
    /// need several).
    pub sat_rounds: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub model: Model,
    pub method: Method,
    pub verdict: Verdict,
    pub stats: Stats,
}

/// A cycle as text: `P0:W(x,1) -po-> P0:R(y,0) -rw-> … -rw-> P0:W(x,1)`.
pub fn cycle_text(h: &History, cycle: &[Step]) -> String {
    let mut out = String::new();
    for s in cycle {
        out.push_str(&format!("{} -{}-> ", h.op_label(s.op), s.edge.as_str()));
    }
    if let Some(first) = cycle.first() {
        out.push_str(&h.op_label(first.op));
    }
    out
}

/// A store order as text: `x: 0 1 2; y: 0 3` (values in order).
pub fn store_order_text(h: &History, order: &[Vec<OpId>]) -> String {
    order
        .iter()
        .enumerate()
        .map(|(l, ws)| {
            let vals: Vec<String> =
                ws.iter().map(|&w| h.ops[w].kind.written_value().unwrap_or_default().to_string()).collect();
            format!("{}: {}", h.locs[l], vals.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
