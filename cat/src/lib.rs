//! `litmus-cat`: herd's cat language, read and evaluated.
//!
//! A cat file describes a memory model as data: definitions of sets and
//! relations over the events of one candidate execution, and checks
//! (`acyclic`, `irreflexive`, `empty`) that the execution must pass. This
//! crate holds the whole pipeline on its own, with no tie to the checker
//! yet:
//!
//! ```text
//! text → tokens (lexer) → AST (parser) → Model (files + includes) → verdicts (eval)
//! ```
//!
//! - [`lexer`] and [`parser`] read the language as herd7's
//!   `lib/modelLexer.mll` and `lib/modelParser.mly` do (precedences
//!   included: `\` below `&`). Every [`ast`] node carries a byte span;
//!   anything unreadable is a [`Diagnostic`] with file, line and column.
//! - [`Model::load`] reads a file and its `include`s (searched in the
//!   including file's directory, then the include directories), every
//!   branch of an `if "variant"` included, finds include cycles and
//!   missing files at the `include`'s span, and, as herd does, takes
//!   `stdlib.cat` as an implicit prelude when it is found.
//! - [`stock`] embeds herd's library and the project's models
//!   (`stock::load("x86tso")`), read through [`Model::from_sources`], which
//!   resolves includes by a lookup instead of the filesystem.
//! - [`prepared`]: [`Model::prepare`] compiles a model once (per shape of
//!   execution) into a graph of relation operations on rows of words (`u64`
//!   up to 64 events, `u128` above);
//!   [`Prepared::check`] and [`Prepared::allowed`] give `evaluate`'s
//!   verdicts hundreds of times faster, binding a given `co` instead of
//!   enumerating `cos.cat`'s candidates. [`monotone`] says which checks
//!   may prune a partial execution ([`Prepared::allowed_partial`]).
//! - [`eval`] evaluates a model on one finite [`eval::Execution`] (at most
//!   128 events, [`eval::MAX_EVENTS`]; sets are `u128` masks, [`eval::Set`],
//!   relations rows of them): values are
//!   sets, relations, events, pairs, tags, tuples, sets of values,
//!   closures and procedures; `let rec` is a least fixpoint; each check
//!   gets a verdict, `flag`s are reported apart.
//!
//! Limits: `with x from S` takes the execution's own `co` (when it is one
//! of `S`'s candidates) rather than enumerating every candidate; herd's
//! primitives other than `domain`, `range`, `classes`, `classes-loc`,
//! `linearisations` and `fail` are refused with "not supported yet" at
//! their span, never silently; so are class relations and bell-only
//! instructions evaluated in a model. An unsupported construct is not
//! caught by `try … with`, so it can never turn into a fallback answer.

pub mod ast;
mod compile;
pub mod eval;
mod extend;
pub mod lexer;
pub mod model;
pub mod monotone;
pub mod parser;
pub mod prepared;
mod rows;
pub mod stock;

pub use model::{CatError, Diagnostic, Model, SourceFile};
pub use prepared::{CheckInfo, Prepared};
