//! The native dialect: lexer, syntax tree, parser.
pub mod ast;
pub mod lexer;
pub mod parser;
