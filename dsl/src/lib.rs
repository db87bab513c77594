//! The litmus language: lexing, parsing (native and herd x86 dialects),
//! semantic analysis and lowering to the IR the checker runs.

pub mod diagnostic;
pub mod herd;
pub mod native;
pub mod span;

pub use diagnostic::{Diagnostic, Severity};
pub use span::{LineIndex, Span};
