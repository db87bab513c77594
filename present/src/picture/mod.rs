//! Execution graphs as pictures: a witness's events laid out the way herd7's
//! `-show` and GenMC's error graphs draw them (threads as columns, program
//! order downwards, the initial writes on top, po/rf/co/fr edges in herd's
//! colours, the cycle highlighted and numbered), written as self-contained
//! SVG or as Graphviz dot.
//!
//! It reads the checker's witness (its `Event`s, `Trace`, `Violation`);
//! both the CLI (`litmus explain --svg/--dot`) and the language server
//! (`litmus/executionGraph`) draw with it; it knows nothing of LSP.

mod build;
mod dot;
mod geometry;
mod labels;
mod layout;
mod route;
mod svg;
mod xml;

pub use build::{of_events, of_forbidden, of_violation, of_whole, Arrow, Node, NodeKind, Picture};
pub use dot::dot;
pub use svg::svg;
