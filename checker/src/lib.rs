//! The checker: runs the IR under SC, TSO, PSO and PSLO, and says what it
//! found with a witness for each finding. Its modules in layers, each
//! importing only from the layers before it (`scripts/import-circles.py`
//! checks there is no circle):
//!
//! 1. The machine: [`model`] (a memory model, asked, never compared by
//!    name), [`machine`] (the interpreter), [`dpor`] (source-DPOR over its
//!    interleavings), [`trace`], [`hb`], [`clocks`], [`reads`], [`progress`].
//! 2. Bounds and answers: [`certainty`] (proved, within bounds, unknown),
//!    [`budget`] and [`options`], [`monitor`], [`witness`], [`outcome`]
//!    (herd's question per model), [`violation`] (robustness's answers).
//! 3. Exploration: [`graph`] (execution graphs), [`reference`] (the
//!    explicit-state oracle), [`explore`] (which explorer answers),
//!    [`explicit`] (a model's own executions, cycle by cycle).
//! 4. Robustness, harm, proofs and fences: [`robust`] (the monitors on the
//!    SC exploration), [`measure`], [`harm`], [`ahead`] (a relaxed model's
//!    outcomes explored beside the SC exploration), [`unbounded`] (attacks,
//!    for every iteration), [`fences`].
//! 5. Active testing: [`relaxer`] (RELAXER) for programs too big to explore.
//! 6. The check: [`check`] (its steps over one [`Report`]) and [`plan`]
//!    (the steps in order, for the CLI, the server and suites alike).
//!
//! What is not engine has crates of its own: `litmus-present` (pictures,
//! narration, words, codes), `litmus-history` (recorded histories, with the
//! SAT solver) and `litmus-hardware` (runs on the CPU).

pub mod ahead;
pub mod bitset;
pub mod budget;
pub mod candidates;
pub mod catalog;
pub mod certainty;
pub mod check;
pub mod clocks;
pub mod dpor;
pub mod explicit;
pub mod explore;
pub mod fences;
pub mod graph;
pub mod harm;
pub mod hb;
pub mod machine;
pub mod measure;
pub mod model;
pub mod monitor;
pub mod options;
pub mod outcome;
pub mod plan;
pub mod port;
pub mod progress;
pub mod reads;
pub mod reference;
pub mod relaxer;
pub mod repair;
pub mod robust;
pub mod signalled;
pub mod thread_cells;
pub mod trace;
pub mod unbounded;
pub mod violation;
pub mod witness;

pub use budget::Budget;
pub use certainty::{Answer, Certainty, Coverage, Cuts, Iterations, Why};
pub use check::Report;
pub use check::{
    add_relaxed_outcomes, add_relaxed_outcomes_ahead, check, check_robustness, find_violations, judge_and_fence,
};
pub use machine::Model;
pub use monitor::MonitorKind;
pub use options::{ExplorerKind, Options, SettingError};
pub use outcome::{ModelOutcome, Observation};
pub use plan::check_all;
pub use progress::{Phase, Progress};
pub use violation::FenceFix;
pub use violation::{Robustness, Violation};
