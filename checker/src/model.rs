//! The memory models, each answering questions about itself: its names,
//! how its stores travel (a buffer per thread or per cell), what each fence
//! and atomic drains or resets, which pairs of accesses it lets reorder.
//! Code elsewhere asks these questions instead of testing which model it is
//! (a new model then changes this file, not every `if model == …`).

use litmus_dsl::FenceKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Model {
    Sc,
    Tso,
    Pso,
    /// PSO plus per-thread store histories: loads may be satisfied early
    /// (RELAXER's Partial Store Load Order).
    Pslo,
}

/// An access, as a model's reordering rule sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    /// An atomic read-modify-write.
    Update,
}

impl Model {
    /// Every model, in the order reports list them.
    pub const ALL: [Model; 4] = [Model::Sc, Model::Tso, Model::Pso, Model::Pslo];

    pub fn as_str(self) -> &'static str {
        match self {
            Model::Sc => "sc",
            Model::Tso => "tso",
            Model::Pso => "pso",
            Model::Pslo => "pslo",
        }
    }

    pub fn upper(self) -> &'static str {
        match self {
            Model::Sc => "SC",
            Model::Tso => "TSO",
            Model::Pso => "PSO",
            Model::Pslo => "PSLO",
        }
    }

    /// Do stores go through a buffer (a commit of their own), or straight
    /// to memory (SC)?
    pub fn buffered(self) -> bool {
        self != Model::Sc
    }

    /// One buffer per (thread, cell): PSO and PSLO.
    pub fn per_cell_buffers(self) -> bool {
        matches!(self, Model::Pso | Model::Pslo)
    }

    /// One FIFO buffer per thread, across cells: TSO.
    pub fn one_buffer_per_thread(self) -> bool {
        self.buffered() && !self.per_cell_buffers()
    }

    /// Does a fence of this kind drain the thread's buffers?
    pub fn drains(self, kind: FenceKind) -> bool {
        match self {
            Model::Sc => false,
            Model::Tso => matches!(kind, FenceKind::Full | FenceKind::WR),
            Model::Pso | Model::Pslo => !matches!(kind, FenceKind::RR),
        }
    }

    /// Does a fence of this kind reset the thread's load histories (PSLO:
    /// `rr`, `wr` and `full`)?
    pub fn resets(self, kind: FenceKind) -> bool {
        self.has_histories() && kind != FenceKind::WW
    }

    /// Per-thread store histories, from which loads may read older values.
    pub fn has_histories(self) -> bool {
        self == Model::Pslo
    }

    /// Does an atomic drain every buffer of its thread (not only its own
    /// cell's)? Under TSO every atomic; under PSO and PSLO an x86 LOCK'd
    /// instruction only (a native atomic drains its own cell's).
    pub fn atomic_drains_all(self, x86_locked: bool) -> bool {
        self.buffered() && (self.one_buffer_per_thread() || x86_locked)
    }

    /// May `later` take effect before `earlier`, an access of the same
    /// thread on another cell?
    pub fn reorders(self, earlier: Access, later: Access) -> bool {
        match self {
            Model::Sc => false,
            Model::Tso => earlier == Access::Write && later == Access::Read,
            // A native atomic drains only its own cell's buffer under PSO.
            Model::Pso => earlier == Access::Write,
            // PSLO also lets a load read an older value than an earlier load
            // or atomic saw (its store history); a store never overtakes a load.
            Model::Pslo => earlier == Access::Write || later == Access::Read,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queries agree with each other on every model and fence kind.
    #[test]
    fn queries_are_consistent() {
        for m in Model::ALL {
            assert_eq!(m.buffered(), m.per_cell_buffers() || m.one_buffer_per_thread());
            for k in [FenceKind::Full, FenceKind::WW, FenceKind::WR, FenceKind::RR] {
                // Nothing to drain or reset without buffers.
                assert!(m.buffered() || !(m.drains(k) || m.resets(k)));
                // A full fence does everything a weaker one does.
                assert!(m.drains(FenceKind::Full) || !m.drains(k));
                assert!(m.resets(FenceKind::Full) || !m.resets(k));
            }
            assert_eq!(m.reorders(Access::Write, Access::Read), m.buffered());
        }
    }
}
