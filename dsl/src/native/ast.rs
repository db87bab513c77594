//! Syntax tree of the native dialect. Every node carries its byte span.

use crate::span::Span;
/// The fence kinds and quantifiers the IR keeps as written.
pub use litmus_ir::{FenceKind, Labels, Quantifier};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct File {
    pub header: Option<Header>,
    pub items: Vec<Item>,
}

#[derive(Clone, Debug)]
pub struct Header {
    pub name: Ident,
    pub doc: Option<(String, Span)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Item {
    Shared(SharedDecl),
    Fn(FnDef),
    Thread(ThreadDef),
    Final(Final),
}

#[derive(Clone, Debug)]
pub struct SharedDecl {
    pub vars: Vec<VarDecl>,
    /// Declared `atomic`: every access is atomic, `seq_cst` unless it
    /// says otherwise (`x@relaxed`), as C's `_Atomic` objects are.
    pub atomic: bool,
    pub span: Span,
}

/// An access's memory order as written (`@acquire`): C11's, as the
/// label herd's C names it ([`Labels::memory_order`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemOrder {
    pub labels: Labels,
    /// The order's name (without the `@`).
    pub span: Span,
}

impl MemOrder {
    /// The orders by their C names, weakest first.
    pub const NAMES: [(&'static str, Labels); 5] = [
        ("relaxed", Labels::RLX),
        ("acquire", Labels::MO_ACQ),
        ("release", Labels::MO_REL),
        ("acq_rel", Labels::MO_ACQ_REL),
        ("seq_cst", Labels::MO_SC),
    ];

    pub fn by_name(name: &str) -> Option<Labels> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|&(_, l)| l)
    }
}

#[derive(Clone, Debug)]
pub struct VarDecl {
    pub name: Ident,
    /// `Some` for arrays: the declared length.
    pub len: Option<IntLit>,
    pub init: Option<Init>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Init {
    Scalar(IntLit),
    Array(Vec<IntLit>, Span),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLit {
    pub value: i64,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct FnDef {
    pub name: Ident,
    pub params: Vec<Ident>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ThreadDef {
    pub name: Ident,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Let {
        name: Ident,
        value: Expr,
    },
    Assign {
        target: LValue,
        value: Expr,
    },
    If {
        cond: Expr,
        then: Block,
        els: Option<Box<Else>>,
    },
    /// `while (cond) bound N { body }`: `bound` is the loop's own bound (a
    /// constant, checked by sema); without it `--loop-bound` applies.
    While {
        cond: Expr,
        bound: Option<Box<Expr>>,
        body: Block,
    },
    /// `for var in from..to { body }`: a counted loop over constant bounds;
    /// `var` is a register of the body's scope that the body cannot assign.
    For {
        var: Ident,
        from: Box<Expr>,
        to: Box<Expr>,
        body: Block,
    },
    Await(Expr),
    Assert(Expr),
    Assume(Expr),
    Fence(FenceKind),
    Lock(Ident),
    Unlock(Ident),
    Return(Option<Expr>),
    /// A call or atomic evaluated for its effect.
    Expr(Expr),
    /// A statement that did not parse; its error was reported.
    Error,
}

#[derive(Clone, Debug)]
pub enum Else {
    Block(Block),
    If(Stmt),
}

#[derive(Clone, Debug)]
pub struct LValue {
    pub name: Ident,
    pub index: Option<Box<Expr>>,
    /// `x@release = 1`, `cas(x@acq_rel, 0, 1)`.
    pub order: Option<MemOrder>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Not,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinOp {
    pub fn as_str(self) -> &'static str {
        use BinOp::*;
        match self {
            Or => "||",
            And => "&&",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
        }
    }
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    /// A name (register, shared scalar, or an array used without index).
    Var(Ident),
    Index(Ident, Box<Expr>),
    /// `THREAD:reg` in a final condition; the thread may be a name or an index.
    ThreadReg(Ident, Ident),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Call(Ident, Vec<Expr>),
    Cas(LValue, Box<Expr>, Box<Expr>),
    Xchg(LValue, Box<Expr>),
    FetchAdd(LValue, Box<Expr>),
    /// A load with its memory order: `x@acquire`, `a[i]@relaxed` (the
    /// inner expression a `Var` or an `Index`; sema checks that it names
    /// a shared location).
    Ordered(Box<Expr>, MemOrder),
    Error,
}

#[derive(Clone, Debug)]
pub struct Final {
    pub quantifier: Quantifier,
    pub cond: Expr,
    pub span: Span,
}

impl Block {
    /// Visit every statement, nested ones included, in source order.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Stmt)) {
        for s in &self.stmts {
            s.walk(f);
        }
    }
}

impl Stmt {
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Stmt)) {
        f(self);
        match &self.kind {
            StmtKind::If { then, els, .. } => {
                then.walk(f);
                match els.as_deref() {
                    Some(Else::Block(b)) => b.walk(f),
                    Some(Else::If(s)) => s.walk(f),
                    None => {}
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => body.walk(f),
            _ => {}
        }
    }
}

impl Expr {
    /// Visit this expression and its sub-expressions, pre-order.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Index(_, i) => i.walk(f),
            ExprKind::Unary(_, a) | ExprKind::Ordered(a, _) => a.walk(f),
            ExprKind::Binary(_, a, b) => {
                a.walk(f);
                b.walk(f);
            }
            ExprKind::Call(_, args) => args.iter().for_each(|a| a.walk(f)),
            ExprKind::Cas(lv, a, b) => {
                if let Some(i) = &lv.index {
                    i.walk(f);
                }
                a.walk(f);
                b.walk(f);
            }
            ExprKind::Xchg(lv, a) | ExprKind::FetchAdd(lv, a) => {
                if let Some(i) = &lv.index {
                    i.walk(f);
                }
                a.walk(f);
            }
            _ => {}
        }
    }
}
