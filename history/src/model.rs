//! A recorded history: per thread, the sequence of reads, writes, atomic
//! read-modify-writes and fences it issued, with the values. Each value is
//! written at most once per location, so the write a read took its value
//! from (`wr`) is determined by the value; the initial value is an implicit
//! write that precedes every operation in program order.

use super::unique::{Clash, UniqueWrites};
use litmus_ir::Span;

/// Index of a location in [`History::locs`].
pub type Loc = usize;
/// Index of an operation in [`History::ops`].
pub type OpId = usize;

pub const NO_OP: OpId = usize::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read {
        loc: Loc,
        value: i64,
    },
    Write {
        loc: Loc,
        value: i64,
    },
    /// One atomic event that read `read` and wrote `write` (a locked x86
    /// instruction: under TSO also a full fence).
    Rmw {
        loc: Loc,
        read: i64,
        write: i64,
    },
    /// A full fence (x86 `mfence`): orders earlier writes before later reads.
    Fence,
}

impl OpKind {
    pub fn loc(self) -> Option<Loc> {
        match self {
            OpKind::Read { loc, .. } | OpKind::Write { loc, .. } | OpKind::Rmw { loc, .. } => Some(loc),
            OpKind::Fence => None,
        }
    }
    /// Writes and atomics.
    pub fn writes(self) -> bool {
        matches!(self, OpKind::Write { .. } | OpKind::Rmw { .. })
    }
    /// Reads and atomics.
    pub fn reads(self) -> bool {
        matches!(self, OpKind::Read { .. } | OpKind::Rmw { .. })
    }
    /// The value read, for reads and atomics.
    pub fn read_value(self) -> Option<i64> {
        match self {
            OpKind::Read { value, .. } => Some(value),
            OpKind::Rmw { read, .. } => Some(read),
            _ => None,
        }
    }
    /// The value written, for writes and atomics.
    pub fn written_value(self) -> Option<i64> {
        match self {
            OpKind::Write { value, .. } => Some(value),
            OpKind::Rmw { write, .. } => Some(write),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub kind: OpKind,
    /// `None`: the initial write of its location.
    pub thread: Option<usize>,
    /// Where the operation is written in the input (empty when built
    /// from an execution or generated).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub name: String,
    /// Its operations, in program order: a contiguous range of [`History::ops`].
    pub ops: std::ops::Range<OpId>,
}

/// One thread as input gives it: operations over location indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadSpec {
    pub name: String,
    pub span: Span,
    pub ops: Vec<(OpKind, Span)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History {
    pub locs: Vec<String>,
    /// Initial value of each location (0 unless the input says otherwise).
    pub init: Vec<i64>,
    pub threads: Vec<Thread>,
    /// The initial writes (operation `l` writes location `l`'s initial
    /// value), then every thread's operations, thread by thread.
    pub ops: Vec<Op>,
    /// For reads and atomics, the write they read from (`wr`); `NO_OP` otherwise.
    pub source: Vec<OpId>,
    /// Per location, its writes: the initial one first, then in operation order.
    pub writes_of: Vec<Vec<OpId>>,
    /// Per write, the reads and atomics that read from it.
    pub readers_of: Vec<Vec<OpId>>,
}

/// What is wrong with an input history.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    #[error("{0}")]
    Syntax(String),
    #[error("{value} is read from {loc}, but no operation writes {value} to {loc}")]
    Unwritten { loc: String, value: i64 },
    #[error("{value} is written to {loc} a second time: a history writes each value to a location at most once")]
    Duplicate { loc: String, value: i64, first: Span },
    #[error(
        "{value} is written to {loc}, but it is {loc}'s initial value: a read of it could not tell the writes apart"
    )]
    WritesInitial { loc: String, value: i64 },
    #[error("thread {name} is defined twice")]
    DuplicateThread { name: String, first: Span },
    #[error("the initial value of {loc} is given twice")]
    DuplicateInit { loc: String, first: Span },
}

/// An input error with its place: byte span and 1-based line and column
/// (in chars).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {kind}")]
pub struct HistoryError {
    pub kind: ErrorKind,
    pub span: Span,
    pub line: u32,
    pub column: u32,
}

impl HistoryError {
    /// An error at `span` of `src`.
    pub fn at(kind: ErrorKind, span: Span, src: &str) -> Self {
        let (line, column) = litmus_dsl::span::LineIndex::new(src).line_col(src, span.start);
        HistoryError { kind, span, line, column }
    }

    /// A stable code, as the program's diagnostics have (`E06xx`: histories).
    pub fn code(&self) -> &'static str {
        match self.kind {
            ErrorKind::Syntax(_) => "E0601",
            ErrorKind::Unwritten { .. } => "E0602",
            ErrorKind::Duplicate { .. } => "E0603",
            ErrorKind::WritesInitial { .. } => "E0604",
            ErrorKind::DuplicateThread { .. } => "E0605",
            ErrorKind::DuplicateInit { .. } => "E0606",
        }
    }
}

impl History {
    /// Build a history and resolve each read's write from the values.
    /// Errors carry the span of the offending operation.
    pub fn new(locs: Vec<String>, init: Vec<i64>, threads: Vec<ThreadSpec>) -> Result<History, (ErrorKind, Span)> {
        assert_eq!(locs.len(), init.len(), "one initial value per location");
        let nlocs = locs.len();
        let mut ops: Vec<Op> = (0..nlocs)
            .map(|l| Op { kind: OpKind::Write { loc: l, value: init[l] }, thread: None, span: Span::default() })
            .collect();
        let mut names: std::collections::HashMap<&str, Span> = Default::default();
        let mut out_threads = Vec::with_capacity(threads.len());
        for (t, spec) in threads.iter().enumerate() {
            if let Some(&first) = names.get(spec.name.as_str()) {
                return Err((ErrorKind::DuplicateThread { name: spec.name.clone(), first }, spec.span));
            }
            names.insert(&spec.name, spec.span);
            let start = ops.len();
            ops.extend(spec.ops.iter().map(|&(kind, span)| Op { kind, thread: Some(t), span }));
            out_threads.push(Thread { name: spec.name.clone(), ops: start..ops.len() });
        }
        // Who wrote each (location, value): the initial writes (op `loc`),
        // then the rest.
        let mut unique = UniqueWrites::new(&init);
        let mut writes_of: Vec<Vec<OpId>> = (0..nlocs).map(|l| vec![l]).collect();
        for (id, op) in ops.iter().enumerate().skip(nlocs) {
            let (Some(loc), Some(value)) = (op.kind.loc(), op.kind.written_value()) else { continue };
            if let Err(clash) = unique.add(loc, value, id) {
                let name = locs[loc].clone();
                return Err(match clash {
                    Clash::Initial => (ErrorKind::WritesInitial { loc: name, value }, op.span),
                    Clash::Again(first) => (ErrorKind::Duplicate { loc: name, value, first: ops[first].span }, op.span),
                });
            }
            writes_of[loc].push(id);
        }
        let mut source = vec![NO_OP; ops.len()];
        let mut readers_of = vec![Vec::new(); ops.len()];
        for (id, op) in ops.iter().enumerate() {
            let (Some(loc), Some(value)) = (op.kind.loc(), op.kind.read_value()) else { continue };
            let writer = if unique.is_initial(loc, value) { Some(loc) } else { unique.writer(loc, value) };
            let Some(w) = writer else {
                return Err((ErrorKind::Unwritten { loc: locs[loc].clone(), value }, op.span));
            };
            source[id] = w;
            readers_of[w].push(id);
        }
        Ok(History { locs, init, threads: out_threads, ops, source, writes_of, readers_of })
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Is `op` one of the initial writes?
    pub fn is_init(&self, op: OpId) -> bool {
        op < self.locs.len()
    }

    /// The operations of the threads (no initial writes).
    pub fn thread_ops(&self) -> std::ops::Range<OpId> {
        self.locs.len()..self.ops.len()
    }

    /// Number of pairs of distinct non-initial writes to the same location:
    /// what a store order must decide.
    pub fn write_pairs(&self) -> usize {
        self.writes_of.iter().map(|ws| (ws.len() - 1) * ws.len().saturating_sub(2) / 2).sum()
    }

    /// Number of store orders: per location, every order of its
    /// non-initial writes (saturating).
    pub fn store_orders(&self) -> u64 {
        let fact = |n: usize| (1..=n as u64).fold(1u64, |a, k| a.saturating_mul(k));
        self.writes_of.iter().fold(1u64, |a, ws| a.saturating_mul(fact(ws.len() - 1)))
    }

    /// How an operation is written in the text format: `W(x,1)`.
    pub fn op_text(&self, op: OpId) -> String {
        match self.ops[op].kind {
            OpKind::Read { loc, value } => format!("R({},{value})", self.locs[loc]),
            OpKind::Write { loc, value } => format!("W({},{value})", self.locs[loc]),
            OpKind::Rmw { loc, read, write } => format!("RMW({},{read},{write})", self.locs[loc]),
            OpKind::Fence => "F".to_string(),
        }
    }

    /// `P0:W(x,1)`, or `init:W(x,0)` for an initial write.
    pub fn op_label(&self, op: OpId) -> String {
        match self.ops[op].thread {
            Some(t) => format!("{}:{}", self.threads[t].name, self.op_text(op)),
            None => format!("init:{}", self.op_text(op)),
        }
    }
}
