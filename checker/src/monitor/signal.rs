//! What a monitor signals, and how it decides a store was forced to commit.

/// A violation in one SC execution: running `access` (of thread p) before
/// `store` (of another thread) commits closes an hb cycle through `prev`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RawViolation {
    /// The delayed store (index in the SC log).
    pub store: u32,
    /// The access that overtakes it (index in the SC log).
    pub access: u32,
    /// The event before `access` in its thread that the store happens before.
    pub prev: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forcing {
    /// A store's commit is forced only by events that happen before `e`.
    Causal,
    /// As in the paper: by any event before `e` in the interleaving.
    Interleaving,
}
