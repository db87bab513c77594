//! Monitors that decide, from one SC execution, whether a TSO or PSO
//! execution of the program could violate SC.
//!
//! - [`Bss`]: the operational monitors of Burnim, Sen and Stergiou (TACAS'11,
//!   Figs. 4–5). Stores go to simulated buffers; before event `e` of thread
//!   `p` on address `a`, if another thread's pending store `e'` to `a` has
//!   `e' →hb* prev[p]`, running `e` before committing `e'` closes the cycle
//!   `e' →hb* prev[p] →po e →c e'`. Then other threads' stores to `a` are
//!   committed (TSO: with the FIFO prefix before them), and `e` is performed.
//!   O(N·P): per address at most one thread has pending stores, and the last
//!   one is the one to check.
//!
//!   [`Forcing::Causal`] (the default) improves on the paper: a pending store
//!   counts as committed only if what forced its commit *happens before* `e`,
//!   not merely precedes it in the interleaving. The answer then depends only
//!   on the trace, so one interleaving per Mazurkiewicz trace (what DPOR
//!   explores) is enough for completeness; the paper's rule
//!   ([`Forcing::Interleaving`]) needs the right interleaving of each trace.
//! - [`Sober`]: Burckhardt and Musuvathi's monitor (MSR-TR-2008-12, Fig. 2),
//!   TSO only, with their relaxed-happens-before vector clock (Fig. 3).
//!
//! Both ride the SC exploration: `push` the next event, `truncate` back to
//! a prefix (what the depth-first search shares with the next execution is
//! not monitored again). Happens-before comes from the explorer's own
//! clocks ([`crate::clocks`]), so the monitors keep only their own state.

mod bss;
mod delays;
mod kind;
mod signal;
mod sober;

pub use bss::Bss;
pub use kind::MonitorKind;
pub use signal::{Forcing, RawViolation};
pub use sober::Sober;
