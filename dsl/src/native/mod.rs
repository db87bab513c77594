//! The native dialect: lexer, syntax tree, parser, analysis, lowering.
pub mod ast;
pub mod format;
pub mod lexer;
pub mod lower;
pub(crate) mod misspelt;
pub mod parser;
pub mod sema;
