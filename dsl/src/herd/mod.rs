//! The herd7 x86 dialect: lexer, syntax tree, parser, lowering.
pub mod ast;
pub mod lexer;
pub mod lower;
pub mod parser;
