//! herd7's litmus format (x86 and RISC-V): lexer, syntax tree, parser,
//! lowering (`riscv.rs`: RISC-V's instructions).
pub mod ast;
mod context;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod riscv;
