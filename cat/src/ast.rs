//! The syntax tree of a cat file, close to herd's `lib/AST.mli`. Every node
//! carries the byte span of its text in its file.

/// A byte range in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }
    /// The span from the start of `self` to the end of `other`.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start, end: other.end.max(self.end) }
    }
}

/// A parsed file: its header (`X86 TSO`, `"name"`), whether it says
/// `catdep`, and its instructions.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub name: Option<(String, Span)>,
    pub catdep: bool,
    pub body: Vec<Ins>,
}

/// A variable pattern: `x`, `_` (None), or a tuple of them.
#[derive(Debug, Clone, PartialEq)]
pub enum Pat {
    Var(Option<String>),
    Tuple(Vec<Option<String>>),
}

/// One binding of a `let`; `let f(x) = e` is stored as `f = fun (x) -> e`.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub span: Span,
    pub pat: Pat,
    pub expr: Expr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestKind {
    Acyclic,
    Irreflexive,
    Empty,
}

/// Plain check (forbids), `undefined_unless`, `flag` or `assert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestType {
    Check,
    UndefinedUnless,
    Flag,
    Assert,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Test {
    pub span: Span,
    pub ty: TestType,
    pub negated: bool,
    pub kind: TestKind,
    pub expr: Expr,
    pub name: Option<String>,
}

/// A condition on herd's variants (`-variant` options).
#[derive(Debug, Clone, PartialEq)]
pub enum VariantCond {
    Name(String),
    Not(Box<VariantCond>),
    And(Box<VariantCond>, Box<VariantCond>),
    Or(Box<VariantCond>, Box<VariantCond>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ins {
    pub span: Span,
    pub kind: InsKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum InsKind {
    Let(Vec<Binding>),
    Rec(Vec<Binding>, Option<Test>),
    Match {
        scrutinee: Expr,
        clauses: Vec<(String, Vec<Ins>)>,
        default: Option<Vec<Ins>>,
    },
    Test(Test),
    ShowAs(Expr, String),
    Show(Vec<String>),
    Unshow(Vec<String>),
    /// The file name and the span of the string.
    Include(String, Span),
    Procedure {
        name: String,
        param: Pat,
        body: Vec<Ins>,
        rec: bool,
    },
    Call {
        name: String,
        arg: Expr,
        as_name: Option<String>,
    },
    Debug(Expr),
    Forall {
        var: String,
        set: Expr,
        body: Vec<Ins>,
    },
    WithFrom {
        var: String,
        set: Expr,
    },
    IfVariant {
        cond: VariantCond,
        then: Vec<Ins>,
        otherwise: Vec<Ins>,
    },
    /// `instructions R[…]` (default: false) or `default R[…]` (true), bell only.
    Events {
        name: String,
        args: Vec<Expr>,
        default: bool,
    },
    Enum {
        name: String,
        tags: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op1 {
    /// `e+`
    Plus,
    /// `e*`
    Star,
    /// `e?`
    Opt,
    /// `~e`
    Comp,
    /// `e^-1`
    Inv,
    /// `[e]`
    ToId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op2 {
    Union,
    Seq,
    Inter,
    Diff,
    /// `A * B`
    Cartesian,
    /// `e ++ s`
    Add,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    Eq(Expr, Expr),
    Subset(Expr, Expr),
    In(Expr, Expr),
    Variant(VariantCond),
}

/// The non-empty clause of a set match: `x ++ s -> e` or `s1 | x ++ s2 -> e`.
#[derive(Debug, Clone, PartialEq)]
pub enum SetClause {
    EltRem(Option<String>, Option<String>, Expr),
    PreEltPost(Option<String>, Option<String>, Option<String>, Expr),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// `0`
    Empty,
    /// `_`
    Universe,
    Tag(String),
    Var(String),
    /// `{a, b}`
    ExplicitSet(Vec<Expr>),
    /// `(a, b)`, `()`
    Tuple(Vec<Expr>),
    Op1(Op1, Box<Expr>),
    Op2(Op2, Box<Expr>, Box<Expr>),
    App(Box<Expr>, Box<Expr>),
    Fun {
        param: Pat,
        body: std::sync::Arc<Expr>,
        name: String,
    },
    Bind(Vec<Binding>, Box<Expr>),
    BindRec(Vec<Binding>, Box<Expr>),
    Try(Box<Expr>, Box<Expr>),
    If(Box<Cond>, Box<Expr>, Box<Expr>),
    Match {
        scrutinee: Box<Expr>,
        clauses: Vec<(String, Expr)>,
        default: Option<Box<Expr>>,
    },
    MatchSet {
        scrutinee: Box<Expr>,
        empty: Box<Expr>,
        clause: Box<SetClause>,
    },
}
