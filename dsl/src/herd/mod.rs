//! herd7's litmus format (x86, AArch64, RISC-V and C): lexer, syntax tree, parser,
//! lowering (`riscv.rs`, `aarch64.rs`: those architectures' instructions).
pub mod aarch64;
pub mod ast;
pub mod c;
mod c_lower;
mod context;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod riscv;
