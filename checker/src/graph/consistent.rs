//! The one question the graph explorer asks of a model (GenMC's
//! `ConsistencyChecker`, one per model): is this graph — a prefix while it
//! grows, or complete — consistent, and what does a backward revisit keep?
//! Two answers exist: the built-in machines' timing, checked incrementally
//! from the changed events ([`super::incremental`]), and a model given as
//! data, its axioms evaluated on the graph ([`super::axioms`]).

use super::axioms::{Judge, JudgeError};
use super::graph::{Graph, Id};
use super::incremental::Incremental;
use crate::machine::Model;

/// What a backward revisit keeps besides the events added before the read
/// it revisits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keeps {
    /// The revisiting write's porf-prefix (models with no `po ∪ rf` cycle:
    /// every model the explorer takes; see [`crate::catalog`]'s probes).
    PorfPrefix,
}

pub enum Consistency {
    /// A built-in model: its machine's timing, as an order to be acyclic.
    Timing { model: Model, inc: Incremental },
    /// A model given as data.
    Axioms(Box<Judge>),
}

impl Consistency {
    /// The check for `model`, reusing `inc`'s buffers where it is built in.
    pub fn of(model: Model, inc: Incremental) -> Consistency {
        match model {
            Model::Cat(id) => Consistency::Axioms(Box::new(Judge::new(id))),
            _ => Consistency::Timing { model, inc },
        }
    }

    /// The buffers to keep for the next search.
    pub fn into_incremental(self) -> Incremental {
        match self {
            Consistency::Timing { inc, .. } => inc,
            Consistency::Axioms(_) => Incremental::default(),
        }
    }

    /// Is `g` (a prefix) consistent, given that it was before `news` (each
    /// the newest event of its thread, with its rf and co place) changed?
    /// A model given as data asks the checks no extension can undo.
    pub fn after(&mut self, g: &Graph, news: &[Id]) -> Result<bool, JudgeError> {
        match self {
            Consistency::Timing { model, inc } => Ok(inc.consistent_after(g, *model, news)),
            Consistency::Axioms(j) => j.consistent(g, false),
        }
    }

    /// Is a consistent graph's maximal extension (a read of the co-last
    /// write, a write placed co-last: TruSt's) always consistent, whatever
    /// the event? Proved for the machines' timing (the new event can run,
    /// or commit, after everything); a model given as data is asked event
    /// by event ([`Consistency::maximal_extension_holds`]).
    pub fn maximal_extensions_hold(&self) -> bool {
        matches!(self, Consistency::Timing { .. })
    }

    /// Is `g`, consistent before its newest event `id` came as TruSt's
    /// maximal extension (a read of the co-last write, a write placed
    /// co-last), consistent without asking? Always for the machines'
    /// timing; for a model given as data where its checks are shown kept
    /// ([`Judge::extension_kept`]) for a single new access (not an atomic,
    /// of a cell already accessed) and the fences before it.
    pub fn maximal_extension_holds(&mut self, g: &Graph, id: Id) -> bool {
        match self {
            Consistency::Timing { .. } => true,
            Consistency::Axioms(j) => {
                let e = g.ev(id);
                let single = !(e.reads && e.writes);
                let old_cell = || {
                    g.threads.iter().enumerate().any(|(t, evs)| {
                        evs.iter()
                            .enumerate()
                            .any(|(i, x)| x.cell == e.cell && (t != id.thread as usize || i != id.index as usize))
                    })
                };
                single && old_cell() && j.extension_kept(g, id).unwrap_or(false)
            }
        }
    }

    /// A complete graph: what the checks of its prefixes left unasked.
    /// Nothing, where every check of the model is monotone: they held of
    /// this very graph when its last event came (asked, or shown kept by a
    /// maximal extension); the empty graph was never asked.
    pub fn complete(&mut self, g: &Graph) -> Result<bool, JudgeError> {
        let asked = g.threads.iter().any(|t| !t.is_empty()) && !self.maximal_extensions_hold();
        match self {
            Consistency::Timing { .. } => Ok(true),
            Consistency::Axioms(j) => {
                if asked && j.all_monotone(g)? {
                    return Ok(true);
                }
                j.consistent(g, true)
            }
        }
    }

    pub fn keeps(&self) -> Keeps {
        Keeps::PorfPrefix
    }

    /// The model given as data, if it is one.
    pub fn judge(&self) -> Option<&Judge> {
        match self {
            Consistency::Axioms(j) => Some(j),
            Consistency::Timing { .. } => None,
        }
    }
}
