//! Syntax tree of a herd7 litmus test: x86 (`X86` Intel or `X86_64` AT&T
//! syntax), RISC-V (`RISCV`), AArch64 (`AArch64`) or C (`C`: its threads' statements below).

use crate::native::ast::{Ident, IntLit, Quantifier};
use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    X86,
    X86_64,
    RiscV,
    /// herd's C format (`C name`): C11 atomics.
    C,
    /// herd's AArch64 (`AArch64 name`).
    AArch64,
}

impl Arch {
    /// The dialect of a test written for it.
    pub fn dialect(self) -> crate::Dialect {
        match self {
            Arch::X86 | Arch::X86_64 => crate::Dialect::HerdX86,
            Arch::RiscV => crate::Dialect::HerdRiscv,
            Arch::C => crate::Dialect::HerdC,
            Arch::AArch64 => crate::Dialect::HerdAArch64,
        }
    }
}

#[derive(Clone, Debug)]
pub struct HerdFile {
    pub arch: Arch,
    pub arch_span: Span,
    pub name: Ident,
    pub doc: Option<(String, Span)>,
    /// `Key=value` lines of the preamble.
    pub meta: Vec<(String, String, Span)>,
    pub init: Vec<InitItem>,
    pub threads: Vec<Ident>,
    /// `code[t]`: the cells of thread `t`, top to bottom.
    pub code: Vec<Vec<Cell>>,
    /// A C test's threads (its `code` is empty).
    pub c_threads: Vec<CThread>,
    pub locations: Vec<CLoc>,
    pub filter: Option<CExpr>,
    pub final_: Option<HFinal>,
    /// Span of the thread table (header row to last row).
    pub table_span: Span,
}

#[derive(Clone, Debug)]
pub struct InitItem {
    pub ty: Option<Ident>,
    pub target: InitTarget,
    pub value: Option<InitValue>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum InitTarget {
    Loc(Ident),
    Array(Ident, IntLit),
    Reg(IntLit, Ident),
}

#[derive(Clone, Debug)]
pub enum InitValue {
    Int(IntLit),
    /// Code as data: a label's address (`P0:L0`) or an instruction
    /// (`instr:"B .+4"`), which litmus refuses (instruction fetch).
    Code(Span),
    /// The address of a location (`0:rax=t`).
    Addr(Ident),
    Array(Vec<IntLit>, Span),
}

/// One cell of the thread table: an optional label and an optional instruction.
#[derive(Clone, Debug)]
pub struct Cell {
    pub label: Option<Ident>,
    pub instr: Option<Instr>,
    /// The cell's text without surrounding blanks (empty cells: a zero-width span).
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Instr {
    /// `LOCK` and friends.
    pub prefix: Option<Ident>,
    pub mnemonic: Ident,
    pub operands: Vec<Operand>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Operand {
    /// `$1`, or a bare number in Intel syntax.
    Imm(IntLit),
    /// `$x`: the address of a symbol.
    ImmSym(Ident),
    /// `%eax` (AT&T) or a bare name (Intel): a register or a label/symbol.
    Reg(Ident, bool),
    Mem(MemRef),
}

impl Operand {
    pub fn span(&self) -> Span {
        match self {
            Operand::Imm(i) => i.span,
            Operand::ImmSym(i) | Operand::Reg(i, _) => i.span,
            Operand::Mem(m) => m.span,
        }
    }
}

/// A memory operand: `[x]`, `[x+EAX*4]`, `(x)`, `8(%rax,%rbx,8)`, `%cs:0(...)`.
/// Which part is a register and which a location is decided when lowering.
#[derive(Clone, Debug, Default)]
pub struct MemRef {
    pub seg: Option<Ident>,
    pub disp: i64,
    pub parts: Vec<MemPart>,
    pub span: Span,
    /// AArch64 pre-index (`[X0,#-16]!`): the base register is written back.
    pub pre_index: bool,
}

#[derive(Clone, Debug)]
pub struct MemPart {
    pub name: Ident,
    pub scale: i64,
    /// Written `%name`: certainly a register.
    pub percent: bool,
}

#[derive(Clone, Debug)]
pub struct HFinal {
    pub quantifier: Quantifier,
    pub cond: CExpr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct CExpr {
    pub kind: CExprKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum CExprKind {
    True,
    False,
    Not(Box<CExpr>),
    And(Box<CExpr>, Box<CExpr>),
    Or(Box<CExpr>, Box<CExpr>),
    Eq(CLoc, CVal, bool),
}

#[derive(Clone, Debug)]
pub enum CLoc {
    Reg(IntLit, Ident),
    Loc(Ident),
    Elem(Ident, IntLit),
}

impl CLoc {
    pub fn span(&self) -> Span {
        match self {
            CLoc::Reg(t, r) => t.span.join(r.span),
            CLoc::Loc(i) => i.span,
            CLoc::Elem(i, n) => i.span.join(n.span),
        }
    }
}

#[derive(Clone, Debug)]
pub enum CVal {
    Int(IntLit),
    Sym(Ident),
    /// A whole array's value, `x={1,0}`: each element in turn.
    Array(Vec<IntLit>, Span),
}

/// A thread: `P0 (atomic_int* x, int* y) { … }`.
#[derive(Clone, Debug)]
pub struct CThread {
    pub name: Ident,
    /// The locations it reaches, each through a pointer of that name.
    pub params: Vec<Ident>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `int r = e;`, `int r;`.
    Decl {
        name: Ident,
        init: Option<Expr>,
        span: Span,
    },
    /// `r = e;`
    Assign {
        name: Ident,
        value: Expr,
        span: Span,
    },
    /// `*x = e;`: a plain store.
    Store {
        target: Ident,
        value: Expr,
        span: Span,
    },
    /// A call, or any expression, for its effects.
    Expr(Expr, Span),
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
        span: Span,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
        span: Span,
    },
}

impl Stmt {
    pub fn span(&self) -> Span {
        match self {
            Stmt::Decl { span, .. }
            | Stmt::Assign { span, .. }
            | Stmt::Store { span, .. }
            | Stmt::Expr(_, span)
            | Stmt::If { span, .. }
            | Stmt::While { span, .. } => *span,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i64),
    Var(Ident),
    /// `*x`: a plain load through pointer `x`.
    Deref(Ident),
    Call(Ident, Vec<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    BitNot(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
}
