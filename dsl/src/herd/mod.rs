//! herd7's litmus format (x86, RISC-V and C): lexer, syntax tree, parser,
//! lowering (`riscv.rs`: RISC-V's instructions).
pub mod ast;
pub mod c;
mod c_lower;
mod context;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod riscv;
