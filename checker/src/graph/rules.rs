//! A model's ordering rules within one thread, written once for both
//! consistency checks: which stores go through a buffer, which stores share
//! one (and so commit in program order), which later events of the thread
//! wait for a buffered store's commit, and which reads forward from it. The
//! batch check ([`super::consistency`]) walks each thread forward and asks
//! them of the newest stores; the incremental one ([`super::incremental`])
//! walks forward from one store. Neither encodes a rule of its own, and
//! both may leave out an edge that program order and FIFO commits imply.

use super::graph::{draining_fences, Ev, Id};
use crate::machine::Model;

/// The rules of one model, computed once per check.
#[derive(Clone, Copy)]
pub struct Rules {
    model: Model,
    buffered: bool,
    one_buffer: bool,
    /// Fence bits that drain the thread's buffers.
    draining: u8,
}

/// An earlier buffered store of the thread, as a later event `x` sees it.
#[derive(Clone, Copy)]
pub struct Earlier {
    pub id: Id,
    pub cell: u32,
    /// No store of the same buffer between it and `x`.
    pub newest_in_buffer: bool,
    /// No store to the same cell between it and `x`.
    pub newest_of_cell: bool,
}

impl Rules {
    pub fn of(model: Model) -> Self {
        Rules {
            model,
            buffered: model.buffered(),
            one_buffer: model.one_buffer_per_thread(),
            draining: draining_fences(model),
        }
    }

    /// Does the model buffer stores at all (SC: no, nothing here applies)?
    pub fn any_buffers(&self) -> bool {
        self.buffered
    }

    /// Does this store go through a buffer (a commit point of its own)? An
    /// atomic writes memory when it runs.
    pub fn buffered(&self, e: &Ev) -> bool {
        self.buffered && e.writes && !e.reads
    }

    /// The buffer a store to `cell` joins; stores of one buffer commit in
    /// program order.
    pub fn buffer(&self, cell: u32) -> u32 {
        if self.one_buffer {
            0
        } else {
            cell
        }
    }

    /// Does `x` wait for every buffer of its thread to drain (a draining
    /// fence before it, or an atomic that drains all)?
    fn drains_all(&self, x: &Ev) -> bool {
        x.fences & self.draining != 0 || x.atomic && self.model.atomic_drains_all(x.labels)
    }

    /// Does `x` wait for every earlier store of its thread to `cell` to
    /// commit (a draining fence before it, or an atomic that drains them)?
    pub fn drains(&self, x: &Ev, cell: u32) -> bool {
        self.buffered && (self.drains_all(x) || x.atomic && self.buffer(x.cell) == self.buffer(cell))
    }

    /// Does `x` run only after the earlier store `s` commits? Draining
    /// events wait for the newest store of each buffer; an atomic for the
    /// newest of its cell's buffer; a read of `s`'s cell for `s` if it is
    /// the newest store to the cell and the read does not forward from it.
    pub fn waits_for(&self, x: &Ev, s: Earlier) -> bool {
        if !self.buffered {
            return false;
        }
        let drained = s.newest_in_buffer && self.drains(x, s.cell);
        drained || s.newest_of_cell && x.reads && x.cell == s.cell && !self.forwards(x, s)
    }

    /// Does read `x` take its value from its own store `s` in the buffer?
    /// Only a plain read of the newest store to its cell does.
    pub fn forwards(&self, x: &Ev, s: Earlier) -> bool {
        self.buffered && x.reads && !x.atomic && s.newest_of_cell && x.cell == s.cell && x.rf == s.id
    }
}
