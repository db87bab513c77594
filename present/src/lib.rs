//! Presentation: what the checker found, for people. Nothing here decides
//! anything; the CLI and the language server both render through it, so a
//! finding reads the same in a terminal and in an editor.
//!
//! - [`picture`]: a witness as an execution graph (SVG, Graphviz DOT);
//! - [`narrate`]: a witness as numbered steps;
//! - [`words`]: answers and their certainty in words;
//! - [`codes`]: the diagnostic codes and their documentation;
//! - [`porting`]: what moving a program to another model changes;
//! - [`findings`]: what a check found, as diagnostics on source spans
//!   (the server converts them to LSP; no protocol here).

pub mod codes;
pub mod findings;
pub mod narrate;
pub mod picture;
pub mod porting;
pub mod words;
