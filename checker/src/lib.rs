//! The checker: runs the IR under SC, TSO and PSO.
//!
//! - [`machine`]: the interpreter (state, one step per visible operation);
//! - [`dpor`]: stateless exploration with source-DPOR and sleep sets;
//! - [`reference`]: explicit-state exploration with hashing (the oracle);
//! - [`outcome`]: herd's question per model (final states, observation,
//!   failing assertions, each with a witness);
//! - [`narrate`]: executions as numbered steps for humans.

pub mod bitset;
pub mod dpor;
pub mod machine;
pub mod narrate;
pub mod outcome;
pub mod reference;

pub use machine::Model;
pub use outcome::{ModelOutcome, Observation, Options};

/// Check a program under each requested model (in the order given).
pub fn check(prog: &litmus_dsl::Program, models: &[Model], opts: &Options) -> Vec<ModelOutcome> {
    models.iter().map(|&m| outcome::explore(prog, m, opts)).collect()
}
