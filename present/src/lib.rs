//! Presentation: what the checker found, for people. Nothing here decides
//! anything; the CLI and the language server both render through it, so a
//! finding reads the same in a terminal and in an editor.
//!
//! - [`picture`]: a witness as an execution graph (SVG, Graphviz DOT);
//! - [`narrate`]: a witness as numbered steps;
//! - [`words`]: answers and their certainty in words;
//! - [`codes`]: the diagnostic codes and their documentation.

pub mod codes;
pub mod narrate;
pub mod picture;
pub mod words;
