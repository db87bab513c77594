//! The monitors by name: which one rides the SC exploration, and whether
//! it decides a model's robustness by itself.

use crate::machine::Model;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MonitorKind {
    /// Burnim–Sen–Stergiou, commits forced only by causally preceding events.
    Bss,
    /// Burnim–Sen–Stergiou exactly as in the paper (interleaving order).
    BssInterleaving,
    /// Burckhardt–Musuvathi (TSO only; PSO falls back to BSS).
    Sober,
    /// No monitor: the model's own executions explored, each one with a
    /// cyclic trace a violation (PSLO, whatever monitor was asked for).
    Explicit,
    /// No monitor: the model's execution graphs, each one that is not
    /// SC-consistent a violation (`crate::graph::robust`).
    Graph,
    /// No monitor: Trencher's attacks searched for in every reachable SC
    /// state (`crate::unbounded`), for every iteration.
    Attack,
}

impl MonitorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MonitorKind::Bss => "bss",
            MonitorKind::BssInterleaving => "bss-interleaving",
            MonitorKind::Sober => "sober",
            MonitorKind::Explicit => "explicit",
            MonitorKind::Graph => "graph",
            MonitorKind::Attack => "attack",
        }
    }

    /// Does this monitor decide `model`'s robustness by itself: is "no
    /// signal on any explored SC execution" a proof of robustness? Where
    /// not, the model's own executions are explored too ([`crate::robust`])
    /// and what the monitor missed is reported as such.
    pub fn complete_for(self, model: Model) -> bool {
        match self {
            // The paper's commit rule needs the right interleaving of each
            // trace; the SC exploration visits one per trace (DPOR).
            MonitorKind::BssInterleaving => false,
            // Sober misses cycles through a load that forwarded from its
            // own thread's buffer (tests/sober_gap); PSO stays with BSS.
            MonitorKind::Sober => !model.sober(),
            MonitorKind::Bss | MonitorKind::Explicit | MonitorKind::Graph | MonitorKind::Attack => true,
        }
    }

    /// Why [`MonitorKind::complete_for`] is false, in words.
    pub fn gap(self) -> &'static str {
        match self {
            MonitorKind::BssInterleaving => {
                "the paper's commit rule needs every interleaving of each trace, and the SC search explores one"
            }
            MonitorKind::Sober => "Sober misses cycles through a load that reads its own thread's buffered store",
            _ => "",
        }
    }
}
