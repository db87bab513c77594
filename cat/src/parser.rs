//! A recursive-descent parser for cat, following herd's
//! `lib/modelParser.mly`. Expressions (herd's `base`) are parsed by
//! precedence climbing with herd's precedences, lowest first:
//! `|` (right), `++` (right), `;` (right), `\` (left), `&` (right),
//! postfix `*` `+` `?`, prefix `~` and binary `*` (cartesian product),
//! then `^-1`. So `\` binds less tightly than `&`, as in herd's grammar
//! (its manual says otherwise). Application is juxtaposition, `f x` or
//! `f(x, y)`, and binds tightest. `A * B` is a product when a `*` is
//! followed by something that starts an operand, else `*` is the closure.

use std::sync::Arc;

use crate::ast::*;
use crate::lexer::{lex, Tok, Token};

/// A parse error: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub span: Span,
    pub message: String,
}

type PResult<T> = Result<T, ParseError>;

/// Parses one cat file.
pub fn parse(src: &str) -> PResult<Program> {
    let toks = lex(src).map_err(|e| ParseError { span: e.span, message: e.message })?;
    let mut p = Parser { toks, pos: 0 };
    p.program()
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
}

const BP_UNION: u8 = 1;
const BP_ADD: u8 = 2;
const BP_SEQ: u8 = 3;
const BP_DIFF: u8 = 4;
const BP_INTER: u8 = 5;
const BP_POSTFIX: u8 = 6;
const BP_INV: u8 = 7;

/// A `match` on tags: each tag's body, and the default's.
type TagClauses<T> = (Vec<(String, T)>, Option<T>);

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn peek_at(&self, k: usize) -> &Tok {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i].tok
    }
    fn span(&self) -> Span {
        self.toks[self.pos].span
    }
    fn prev_span(&self) -> Span {
        self.toks[self.pos.saturating_sub(1)].span
    }
    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }
    fn err<T>(&self, what: &str) -> PResult<T> {
        Err(ParseError { span: self.span(), message: format!("expected {what}, found {}", self.peek().describe()) })
    }
    fn expect(&mut self, t: Tok, what: &str) -> PResult<Span> {
        if self.peek() == &t {
            Ok(self.bump().span)
        } else {
            self.err(what)
        }
    }
    fn var(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Var(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.err(what),
        }
    }

    fn program(&mut self) -> PResult<Program> {
        let name = match self.peek().clone() {
            Tok::Var(a) => {
                let s = self.bump().span;
                match self.peek().clone() {
                    Tok::Var(b) | Tok::Str(b) => {
                        let s2 = self.bump().span;
                        Some((format!("{a} {b}"), s.to(s2)))
                    }
                    _ => Some((a, s)),
                }
            }
            Tok::Str(a) => Some((a, self.bump().span)),
            _ => None,
        };
        let catdep = self.eat(&Tok::Catdep);
        let mut body = Vec::new();
        loop {
            match self.peek() {
                Tok::Eof => break,
                Tok::Enum => body.push(self.enum_decl()?),
                _ if self.starts_ins() => body.push(self.ins()?),
                _ => return self.err("an instruction (`let`, a check, `include`, `show`, …)"),
            }
        }
        Ok(Program { name, catdep, body })
    }

    fn enum_decl(&mut self) -> PResult<Ins> {
        let start = self.bump().span;
        let name = self.var("the enumeration's name")?;
        self.expect(Tok::Equal, "`=`")?;
        self.eat(&Tok::Alt);
        let mut tags = Vec::new();
        loop {
            match self.peek().clone() {
                Tok::Tag(t) => {
                    self.bump();
                    tags.push(t);
                }
                _ => return self.err("a tag"),
            }
            if !self.eat(&Tok::Alt) {
                break;
            }
        }
        Ok(Ins { span: start.to(self.prev_span()), kind: InsKind::Enum { name, tags } })
    }

    fn starts_ins(&self) -> bool {
        use Tok::*;
        matches!(
            self.peek(),
            Let | Match
                | Acyclic
                | Irreflexive
                | TestEmpty
                | Comp
                | Requires
                | Flag
                | Assert
                | Show
                | Unshow
                | Include
                | Procedure
                | Call
                | Debug
                | Forall
                | With
                | If
                | Instructions
                | Default
        )
    }

    fn ins_list(&mut self) -> PResult<Vec<Ins>> {
        let mut v = Vec::new();
        while self.starts_ins() {
            v.push(self.ins()?);
        }
        Ok(v)
    }

    fn ins(&mut self) -> PResult<Ins> {
        let start = self.span();
        let kind = match self.peek().clone() {
            Tok::Let => {
                self.bump();
                if self.eat(&Tok::Rec) {
                    let binds = self.bindings()?;
                    let test = if self.eat(&Tok::When) {
                        Some(self.app_test(TestType::Check, self.prev_span())?)
                    } else {
                        None
                    };
                    self.eat(&Tok::In);
                    InsKind::Rec(binds, test)
                } else {
                    let binds = self.bindings()?;
                    self.eat(&Tok::In);
                    InsKind::Let(binds)
                }
            }
            Tok::Match => {
                self.bump();
                let scrutinee = self.exp()?;
                self.expect(Tok::With, "`with`")?;
                self.eat(&Tok::Alt);
                let (clauses, default) = self.tag_clauses(Self::ins_list)?;
                self.expect(Tok::End, "`end` closing the `match`")?;
                InsKind::Match { scrutinee, clauses, default }
            }
            Tok::Requires | Tok::Flag | Tok::Assert => {
                let ty = match self.bump().tok {
                    Tok::Requires => TestType::UndefinedUnless,
                    Tok::Flag => TestType::Flag,
                    _ => TestType::Assert,
                };
                InsKind::Test(self.app_test(ty, start)?)
            }
            Tok::Acyclic | Tok::Irreflexive | Tok::TestEmpty | Tok::Comp => {
                InsKind::Test(self.app_test(TestType::Check, start)?)
            }
            Tok::Show => {
                self.bump();
                let e = self.base(0)?;
                if self.eat(&Tok::As) {
                    InsKind::ShowAs(e, self.var("a name after `as`")?)
                } else if let ExprKind::Var(x) = e.kind {
                    let mut names = vec![x];
                    while self.eat(&Tok::Comma) {
                        names.push(self.var("a name")?);
                    }
                    InsKind::Show(names)
                } else {
                    return self.err("`as NAME` after `show EXPR`");
                }
            }
            Tok::Unshow => {
                self.bump();
                InsKind::Unshow(self.var_list()?)
            }
            Tok::Include => {
                self.bump();
                match self.peek().clone() {
                    Tok::Str(s) => {
                        let sp = self.bump().span;
                        InsKind::Include(s, sp)
                    }
                    _ => return self.err("a file name string after `include`"),
                }
            }
            Tok::Procedure => {
                self.bump();
                let rec = self.eat(&Tok::Rec);
                let name = self.var("the procedure's name")?;
                let param = if self.eat(&Tok::LPar) {
                    let f = self.formals()?;
                    self.expect(Tok::RPar, "`)`")?;
                    tuple_pat(f)
                } else {
                    Pat::Var(self.pat0()?)
                };
                self.expect(Tok::Equal, "`=`")?;
                let body = self.ins_list()?;
                self.expect(Tok::End, "`end` closing the procedure")?;
                InsKind::Procedure { name, param, body, rec }
            }
            Tok::Call => {
                self.bump();
                let name = self.var("the procedure's name")?;
                let arg = self.simple()?;
                let as_name = self.optional_name()?;
                InsKind::Call { name, arg, as_name }
            }
            Tok::Debug => {
                self.bump();
                InsKind::Debug(self.exp()?)
            }
            Tok::Forall => {
                self.bump();
                let var = self.var("a name")?;
                self.expect(Tok::In, "`in`")?;
                let set = self.exp()?;
                self.expect(Tok::Do, "`do`")?;
                let body = self.ins_list()?;
                self.expect(Tok::End, "`end` closing the `forall`")?;
                InsKind::Forall { var, set, body }
            }
            Tok::With => {
                self.bump();
                let var = self.var("a name")?;
                self.expect(Tok::From, "`from`")?;
                InsKind::WithFrom { var, set: self.exp()? }
            }
            Tok::If => {
                self.bump();
                let cond = self.variant(0)?;
                let then = self.ins_list()?;
                let otherwise = if self.eat(&Tok::Else) { self.ins_list()? } else { Vec::new() };
                self.expect(Tok::End, "`end` closing the `if`")?;
                InsKind::IfVariant { cond, then, otherwise }
            }
            Tok::Instructions | Tok::Default => {
                let default = self.bump().tok == Tok::Default;
                let name = self.var("an event type")?;
                self.expect(Tok::LBrac, "`[`")?;
                let args = self.args(Tok::RBrac)?;
                self.expect(Tok::RBrac, "`]`")?;
                InsKind::Events { name, args, default }
            }
            _ => return self.err("an instruction"),
        };
        Ok(Ins { span: start.to(self.prev_span()), kind })
    }

    fn var_list(&mut self) -> PResult<Vec<String>> {
        let mut v = vec![self.var("a name")?];
        while self.eat(&Tok::Comma) {
            v.push(self.var("a name")?);
        }
        Ok(v)
    }

    fn optional_name(&mut self) -> PResult<Option<String>> {
        if self.eat(&Tok::As) {
            Ok(Some(self.var("a name after `as`")?))
        } else {
            Ok(None)
        }
    }

    fn app_test(&mut self, ty: TestType, start: Span) -> PResult<Test> {
        let negated = self.eat(&Tok::Comp);
        let kind = match self.peek() {
            Tok::Acyclic => TestKind::Acyclic,
            Tok::Irreflexive => TestKind::Irreflexive,
            Tok::TestEmpty => TestKind::Empty,
            _ => return self.err("`acyclic`, `irreflexive` or `empty`"),
        };
        self.bump();
        let expr = self.exp()?;
        let name = self.optional_name()?;
        Ok(Test { span: start.to(self.prev_span()), ty, negated, kind, expr, name })
    }

    fn variant(&mut self, min: u8) -> PResult<VariantCond> {
        let mut lhs = match self.peek().clone() {
            Tok::Variant => {
                self.bump();
                match self.peek().clone() {
                    Tok::Str(s) => {
                        self.bump();
                        VariantCond::Name(s)
                    }
                    _ => return self.err("a variant name string"),
                }
            }
            Tok::Str(s) => {
                self.bump();
                VariantCond::Name(s)
            }
            Tok::Not => {
                self.bump();
                VariantCond::Not(Box::new(self.variant(3)?))
            }
            Tok::LPar => {
                self.bump();
                let v = self.variant(0)?;
                self.expect(Tok::RPar, "`)`")?;
                v
            }
            _ => return self.err("a variant condition (a string)"),
        };
        loop {
            match self.peek() {
                Tok::Alt if min < 1 => {
                    self.bump();
                    lhs = VariantCond::Or(Box::new(lhs), Box::new(self.variant(1)?));
                }
                Tok::LAnd if min < 2 => {
                    self.bump();
                    lhs = VariantCond::And(Box::new(lhs), Box::new(self.variant(2)?));
                }
                _ => return Ok(lhs),
            }
        }
    }

    fn pat0(&mut self) -> PResult<Option<String>> {
        match self.peek().clone() {
            Tok::Underscore => {
                self.bump();
                Ok(None)
            }
            Tok::Var(s) => {
                self.bump();
                Ok(Some(s))
            }
            _ => self.err("a name or `_`"),
        }
    }

    fn formals(&mut self) -> PResult<Vec<Option<String>>> {
        if matches!(self.peek(), Tok::RPar) {
            return Ok(Vec::new());
        }
        self.formals_n()
    }

    fn formals_n(&mut self) -> PResult<Vec<Option<String>>> {
        let mut v = vec![self.pat0()?];
        while self.eat(&Tok::Comma) {
            v.push(self.pat0()?);
        }
        Ok(v)
    }

    fn bindings(&mut self) -> PResult<Vec<Binding>> {
        let mut v = vec![self.binding()?];
        while self.eat(&Tok::And) {
            v.push(self.binding()?);
        }
        Ok(v)
    }

    fn binding(&mut self) -> PResult<Binding> {
        let start = self.span();
        // `f x = e`, `f(x, y) = e`: a function.
        if let Tok::Var(f) = self.peek().clone() {
            let next = self.peek_at(1).clone();
            if matches!(next, Tok::Var(_) | Tok::Underscore) {
                self.bump();
                let x = self.pat0()?;
                return self.fun_binding(start, f, Pat::Var(x));
            }
            if next == Tok::LPar {
                self.bump();
                self.bump();
                let fs = self.formals()?;
                self.expect(Tok::RPar, "`)`")?;
                return self.fun_binding(start, f, tuple_pat(fs));
            }
        }
        let pat = if self.eat(&Tok::LPar) {
            let fs = self.formals()?;
            self.expect(Tok::RPar, "`)`")?;
            tuple_pat(fs)
        } else {
            tuple_pat(self.formals_n()?)
        };
        self.expect(Tok::Equal, "`=`")?;
        let expr = self.exp()?;
        Ok(Binding { span: start.to(self.prev_span()), pat, expr })
    }

    fn fun_binding(&mut self, start: Span, f: String, param: Pat) -> PResult<Binding> {
        self.expect(Tok::Equal, "`=`")?;
        let body = self.exp()?;
        let span = start.to(self.prev_span());
        Ok(Binding {
            span,
            pat: Pat::Var(Some(f.clone())),
            expr: Expr { span, kind: ExprKind::Fun { param, body: Arc::new(body), name: f } },
        })
    }

    /// herd's `exp`: the binding forms, or a base, or a tuple of bases.
    fn exp(&mut self) -> PResult<Expr> {
        let start = self.span();
        let kind = match self.peek() {
            Tok::Let => {
                self.bump();
                let rec = self.eat(&Tok::Rec);
                let binds = self.bindings()?;
                self.expect(Tok::In, "`in`")?;
                let body = Box::new(self.exp()?);
                if rec {
                    ExprKind::BindRec(binds, body)
                } else {
                    ExprKind::Bind(binds, body)
                }
            }
            Tok::Fun => {
                self.bump();
                let param = if self.eat(&Tok::LPar) {
                    let f = self.formals()?;
                    self.expect(Tok::RPar, "`)`")?;
                    tuple_pat(f)
                } else {
                    Pat::Var(self.pat0()?)
                };
                self.expect(Tok::Arrow, "`->`")?;
                ExprKind::Fun { param, body: Arc::new(self.exp()?), name: "*fun*".into() }
            }
            Tok::Try => {
                self.bump();
                let a = self.exp()?;
                self.expect(Tok::With, "`with`")?;
                ExprKind::Try(Box::new(a), Box::new(self.exp()?))
            }
            Tok::If => {
                self.bump();
                let c = self.cond()?;
                self.expect(Tok::Then, "`then`")?;
                let a = self.exp()?;
                self.expect(Tok::Else, "`else`")?;
                ExprKind::If(Box::new(c), Box::new(a), Box::new(self.exp()?))
            }
            Tok::Match => return self.match_exp(),
            _ => {
                let b = self.base(0)?;
                if self.peek() != &Tok::Comma {
                    return Ok(b);
                }
                let mut v = vec![b];
                while self.eat(&Tok::Comma) {
                    v.push(self.base(0)?);
                }
                ExprKind::Tuple(v)
            }
        };
        Ok(Expr { span: start.to(self.prev_span()), kind })
    }

    fn cond(&mut self) -> PResult<Cond> {
        if matches!(self.peek(), Tok::Str(_) | Tok::Variant | Tok::Not | Tok::LPar) {
            let save = self.pos;
            if let Ok(v) = self.variant(0) {
                if self.peek() == &Tok::Then {
                    return Ok(Cond::Variant(v));
                }
            }
            self.pos = save;
        }
        let a = self.exp()?;
        match self.peek() {
            Tok::Equal => {
                self.bump();
                Ok(Cond::Eq(a, self.exp()?))
            }
            Tok::Subset => {
                self.bump();
                Ok(Cond::Subset(a, self.exp()?))
            }
            Tok::In => {
                self.bump();
                Ok(Cond::In(a, self.exp()?))
            }
            _ => self.err("`=`, `subset` or `in` in a condition"),
        }
    }

    /// `'tag -> body || … || _ -> body`: the clauses of a `match` on tags
    /// (instructions or expressions alike), the default ending them.
    fn tag_clauses<T>(&mut self, mut body: impl FnMut(&mut Self) -> PResult<T>) -> PResult<TagClauses<T>> {
        let mut clauses = Vec::new();
        let mut default = None;
        loop {
            match self.peek().clone() {
                Tok::Tag(t) => {
                    self.bump();
                    self.expect(Tok::Arrow, "`->`")?;
                    clauses.push((t, body(self)?));
                }
                Tok::Underscore => {
                    self.bump();
                    self.expect(Tok::Arrow, "`->`")?;
                    default = Some(body(self)?);
                    break;
                }
                _ => return self.err("a tag clause `'tag -> …` or `_ -> …`"),
            }
            if !self.eat(&Tok::Alt) {
                break;
            }
        }
        Ok((clauses, default))
    }

    fn match_exp(&mut self) -> PResult<Expr> {
        let start = self.bump().span;
        let scrutinee = Box::new(self.exp()?);
        self.expect(Tok::With, "`with`")?;
        self.eat(&Tok::Alt);
        let kind = match self.peek() {
            Tok::Tag(_) | Tok::Underscore if self.peek_at(1) == &Tok::Arrow => {
                let (clauses, default) = self.tag_clauses(Self::exp)?;
                ExprKind::Match { scrutinee, clauses, default: default.map(Box::new) }
            }
            _ => {
                let (empty, clause) = if self.peek() == &Tok::LAcc {
                    let e = self.empty_clause()?;
                    self.expect(Tok::Alt, "`||`")?;
                    (e, self.element_clause()?)
                } else {
                    let c = self.element_clause()?;
                    self.expect(Tok::Alt, "`||`")?;
                    (self.empty_clause()?, c)
                };
                ExprKind::MatchSet { scrutinee, empty: Box::new(empty), clause: Box::new(clause) }
            }
        };
        self.expect(Tok::End, "`end` closing the `match`")?;
        Ok(Expr { span: start.to(self.prev_span()), kind })
    }

    fn empty_clause(&mut self) -> PResult<Expr> {
        self.expect(Tok::LAcc, "`{}`")?;
        self.expect(Tok::RAcc, "`}`")?;
        self.expect(Tok::Arrow, "`->`")?;
        self.exp()
    }

    fn element_clause(&mut self) -> PResult<SetClause> {
        let a = self.pat0()?;
        if self.eat(&Tok::Union) {
            let x = self.pat0()?;
            self.expect(Tok::PlusPlus, "`++`")?;
            let b = self.pat0()?;
            self.expect(Tok::Arrow, "`->`")?;
            return Ok(SetClause::PreEltPost(a, x, b, self.exp()?));
        }
        self.expect(Tok::PlusPlus, "`++` in a set clause `x ++ s -> …`")?;
        let s = self.pat0()?;
        self.expect(Tok::Arrow, "`->`")?;
        Ok(SetClause::EltRem(a, s, self.exp()?))
    }

    fn args(&mut self, close: Tok) -> PResult<Vec<Expr>> {
        let mut v = Vec::new();
        if self.peek() == &close {
            return Ok(v);
        }
        v.push(self.base(0)?);
        while self.eat(&Tok::Comma) {
            v.push(self.base(0)?);
        }
        Ok(v)
    }

    /// Tokens that start herd's `simple`, or a name: an operand of
    /// application.
    fn starts_arg(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Var(_) | Tok::Tag(_) | Tok::Zero | Tok::LAcc | Tok::Underscore | Tok::LPar | Tok::Begin | Tok::LBrac
        )
    }

    fn simple(&mut self) -> PResult<Expr> {
        let start = self.span();
        let kind = match self.peek().clone() {
            Tok::Zero => {
                self.bump();
                ExprKind::Empty
            }
            Tok::Tag(t) => {
                self.bump();
                ExprKind::Tag(t)
            }
            Tok::Underscore => {
                self.bump();
                ExprKind::Universe
            }
            Tok::LAcc => {
                self.bump();
                let a = self.args(Tok::RAcc)?;
                self.expect(Tok::RAcc, "`}`")?;
                ExprKind::ExplicitSet(a)
            }
            Tok::LPar => {
                self.bump();
                if self.eat(&Tok::RPar) {
                    ExprKind::Tuple(Vec::new())
                } else {
                    let e = self.exp()?;
                    self.expect(Tok::RPar, "`)`")?;
                    return Ok(Expr { span: start.to(self.prev_span()), kind: e.kind });
                }
            }
            Tok::Begin => {
                self.bump();
                let e = self.exp()?;
                self.expect(Tok::End, "`end`")?;
                return Ok(Expr { span: start.to(self.prev_span()), kind: e.kind });
            }
            Tok::LBrac => {
                self.bump();
                let e = self.exp()?;
                self.expect(Tok::RBrac, "`]`")?;
                ExprKind::Op1(Op1::ToId, Box::new(e))
            }
            _ => return self.err("an expression"),
        };
        Ok(Expr { span: start.to(self.prev_span()), kind })
    }

    fn primary(&mut self) -> PResult<Expr> {
        let start = self.span();
        match self.peek().clone() {
            Tok::Var(x) => {
                self.bump();
                let mut e = Expr { span: start, kind: ExprKind::Var(x) };
                while self.starts_arg() {
                    let arg = if let Tok::Var(y) = self.peek().clone() {
                        let s = self.bump().span;
                        Expr { span: s, kind: ExprKind::Var(y) }
                    } else {
                        self.simple()?
                    };
                    e = Expr { span: start.to(arg.span), kind: ExprKind::App(Box::new(e), Box::new(arg)) };
                }
                Ok(e)
            }
            Tok::Comp => {
                self.bump();
                let e = self.base(BP_INV)?;
                Ok(Expr { span: start.to(e.span), kind: ExprKind::Op1(Op1::Comp, Box::new(e)) })
            }
            _ => self.simple(),
        }
    }

    /// herd's `base`, by precedence climbing: operators binding at least
    /// `min` are taken.
    fn base(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.primary()?;
        loop {
            let s = lhs.span;
            let op1 = |lhs: Expr, op: Op1, end: Span| Expr { span: s.to(end), kind: ExprKind::Op1(op, Box::new(lhs)) };
            let (op2, bp, rbp) = match self.peek() {
                Tok::Hat if min <= BP_INV => {
                    self.bump();
                    let end = self.expect(Tok::Inv, "`-1` after `^`")?;
                    lhs = op1(lhs, Op1::Inv, end);
                    continue;
                }
                Tok::Star if min <= BP_POSTFIX => {
                    let end = self.bump().span;
                    if self.starts_arg() {
                        let rhs = self.base(BP_INV)?;
                        lhs = Expr {
                            span: s.to(rhs.span),
                            kind: ExprKind::Op2(Op2::Cartesian, Box::new(lhs), Box::new(rhs)),
                        };
                    } else {
                        lhs = op1(lhs, Op1::Star, end);
                    }
                    continue;
                }
                Tok::Plus | Tok::Opt if min <= BP_POSTFIX => {
                    let t = self.bump();
                    let op = if t.tok == Tok::Plus { Op1::Plus } else { Op1::Opt };
                    lhs = op1(lhs, op, t.span);
                    continue;
                }
                Tok::Inter => (Op2::Inter, BP_INTER, BP_INTER),
                Tok::Diff => (Op2::Diff, BP_DIFF, BP_DIFF + 1),
                Tok::Semi => (Op2::Seq, BP_SEQ, BP_SEQ),
                Tok::PlusPlus => (Op2::Add, BP_ADD, BP_ADD),
                Tok::Union => (Op2::Union, BP_UNION, BP_UNION),
                _ => return Ok(lhs),
            };
            if bp < min {
                return Ok(lhs);
            }
            self.bump();
            let rhs = self.base(rbp)?;
            lhs = Expr { span: s.to(rhs.span), kind: ExprKind::Op2(op2, Box::new(lhs), Box::new(rhs)) };
        }
    }
}

fn tuple_pat(mut v: Vec<Option<String>>) -> Pat {
    if v.len() == 1 {
        Pat::Var(v.pop().unwrap_or(None))
    } else {
        Pat::Tuple(v)
    }
}
