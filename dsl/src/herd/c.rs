//! herd's C litmus format (`C name`, read as herd7 reads it with `-c11`):
//! threads written as C functions over pointers to the shared locations
//! (`P0 (atomic_int* x, int* y) { … }`), C11 atomics with their memory
//! orders, plain accesses through the pointers, locals, `if`/`while`.
//! The initial state, `locations`, `filter` and the final condition are
//! herd's, read into the same syntax tree as the other formats; the
//! thread bodies into [`Stmt`]s (in `ast.rs`), lowered by `c_lower.rs`.

// A diagnostic is the error: returned once per statement, not hot.
#![allow(clippy::result_large_err)]

use super::ast::{
    BinOp, CExpr, CExprKind, CLoc, CThread, CVal, Expr, ExprKind, HFinal, InitItem, InitTarget, InitValue, Stmt,
};
use crate::diagnostic::Diagnostic;
use crate::native::ast::{Ident, IntLit, Quantifier};
use crate::span::Span;
use logos::Logos;

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
enum Tok<'s> {
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'s str),
    #[regex(r"0[xX][0-9a-fA-F]+|[0-9]+")]
    Int(&'s str),
    #[token("(*")]
    OcamlComment,
    #[token("/*")]
    CComment,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("=")]
    Assign,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("&")]
    Amp,
    #[token("|")]
    Bar,
    #[token("^")]
    Caret,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("/\\")]
    And,
    #[token("\\/")]
    Or,
    #[token("{mb}")]
    MbAnnot,
}

/// What the parser gives the herd lowering: the parts of a herd file.
pub struct Parsed {
    pub init: Vec<InitItem>,
    pub threads: Vec<CThread>,
    pub locations: Vec<CLoc>,
    pub filter: Option<CExpr>,
    pub final_: Option<HFinal>,
}

struct P<'s> {
    src: &'s str,
    toks: Vec<(Tok<'s>, Span)>,
    at: usize,
    diags: Vec<Diagnostic>,
}

type R<T> = Result<T, Diagnostic>;

/// Where the lexer is among the body's brace blocks: the first at the top
/// is the initial state (herd's litmus syntax, `(* … *)` comments), the
/// later ones are threads' code (C: `(*` is a parenthesis and a star).
#[derive(Default)]
struct Blocks {
    depth: u32,
    closed: u32,
}

impl Blocks {
    fn see(&mut self, t: Result<Tok<'_>, ()>) {
        match t {
            Ok(Tok::LBrace) => self.depth += 1,
            Ok(Tok::RBrace) if self.depth > 0 => {
                self.depth -= 1;
                if self.depth == 0 {
                    self.closed += 1;
                }
            }
            _ => {}
        }
    }

    fn in_code(&self) -> bool {
        self.depth > 0 && self.closed > 0
    }
}

/// Parse the body of a C test from byte `start` (after its preamble).
/// Returns the comments' spans too.
pub fn parse(src: &str, start: usize) -> (Option<Parsed>, Vec<Diagnostic>, Vec<Span>) {
    let mut toks = Vec::new();
    let mut comments = Vec::new();
    let mut diags = Vec::new();
    let mut lex = Tok::lexer(&src[start..]);
    let mut depth = Blocks::default();
    while let Some(t) = lex.next() {
        let r = lex.span();
        let span = Span::new(start + r.start, start + r.end);
        depth.see(t);
        match t {
            // herd's C lexer reads thread code as C: `if (*b)` opens no comment.
            Ok(Tok::OcamlComment) if depth.in_code() => {
                toks.push((Tok::LParen, Span::new(span.start, span.start + 1)));
                toks.push((Tok::Star, Span::new(span.start + 1, span.end)));
            }
            Ok(Tok::OcamlComment) | Ok(Tok::CComment) => {
                let close = if t == Ok(Tok::OcamlComment) { "*)" } else { "*/" };
                let rest = &src[span.end..];
                match rest.find(close) {
                    Some(e) => {
                        let end = span.end + e + 2;
                        comments.push(Span::new(span.start, end));
                        lex.bump(e + 2);
                    }
                    None => {
                        diags.push(
                            Diagnostic::error("E0001", span, "unterminated comment")
                                .with_label("this comment is never closed"),
                        );
                        return (None, diags, comments);
                    }
                }
            }
            Ok(t) => toks.push((t, span)),
            Err(()) => diags.push(
                Diagnostic::error("E0001", span, format!("unexpected character `{}`", span.text(src)))
                    .with_label("not part of herd's C syntax"),
            ),
        }
    }
    if !diags.is_empty() {
        return (None, diags, comments);
    }
    let mut p = P { src, toks, at: 0, diags };
    let parsed = p.file();
    let mut diags = p.diags;
    match parsed {
        Ok(f) => (Some(f), diags, comments),
        Err(d) => {
            diags.push(d);
            (None, diags, comments)
        }
    }
}

impl<'s> P<'s> {
    fn peek(&self) -> Option<Tok<'s>> {
        self.toks.get(self.at).map(|t| t.0)
    }
    fn peek_at(&self, k: usize) -> Option<Tok<'s>> {
        self.toks.get(self.at + k).map(|t| t.0)
    }
    fn span(&self) -> Span {
        match self.toks.get(self.at) {
            Some(t) => t.1,
            None => Span::new(self.src.len(), self.src.len()),
        }
    }
    fn prev_end(&self) -> usize {
        self.at.checked_sub(1).and_then(|i| self.toks.get(i)).map_or(0, |t| t.1.end)
    }
    fn bump(&mut self) -> (Tok<'s>, Span) {
        let t = self.toks[self.at];
        self.at += 1;
        t
    }
    fn eat(&mut self, t: Tok<'s>) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn error(&self, what: &str) -> Diagnostic {
        let span = self.span();
        let found = if self.at < self.toks.len() { format!("`{}`", span.text(self.src)) } else { "the end".into() };
        Diagnostic::error("E0002", span, format!("expected {what}, found {found}"))
            .with_label(format!("expected {what}"))
    }
    fn expect(&mut self, t: Tok<'s>, what: &str) -> R<Span> {
        if self.peek() == Some(t) {
            Ok(self.bump().1)
        } else {
            Err(self.error(what))
        }
    }
    fn ident(&mut self) -> R<Ident> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let sp = self.bump().1;
                Ok(Ident { name: s.to_string(), span: sp })
            }
            _ => Err(self.error("a name")),
        }
    }
    fn int(&mut self) -> R<IntLit> {
        let neg = self.eat(Tok::Minus);
        let start = self.span();
        match self.peek() {
            Some(Tok::Int(s)) => {
                let sp = self.bump().1;
                let v = parse_int(s).ok_or_else(|| Diagnostic::error("E0002", sp, "number out of range"))?;
                Ok(IntLit { value: if neg { v.wrapping_neg() } else { v }, span: start.join(sp) })
            }
            _ => Err(self.error("a number")),
        }
    }

    fn file(&mut self) -> R<Parsed> {
        let init = self.init()?;
        let mut threads = Vec::new();
        while matches!(self.peek(), Some(Tok::Ident(s)) if is_thread_name(s)) {
            threads.push(self.thread()?);
        }
        let mut locations = Vec::new();
        let mut filter = None;
        let mut final_ = None;
        loop {
            match self.peek() {
                Some(Tok::Ident("locations")) => {
                    self.bump();
                    self.expect(Tok::LBracket, "`[`")?;
                    while !self.eat(Tok::RBracket) {
                        locations.push(self.cloc()?);
                        if !self.eat(Tok::Semi) && self.peek() != Some(Tok::RBracket) {
                            return Err(self.error("`;` or `]`"));
                        }
                    }
                }
                Some(Tok::Ident("filter")) => {
                    self.bump();
                    filter = Some(self.cond()?);
                }
                // herd's memory regions (`regions: x:PROP, y:A B`): sets of
                // a Bell model's; a cat model has none, so they change nothing.
                Some(Tok::Ident("regions")) => {
                    self.bump();
                    self.expect(Tok::Colon, "`:`")?;
                    loop {
                        self.ident()?;
                        self.expect(Tok::Colon, "`:`")?;
                        self.ident()?;
                        while matches!(self.peek(), Some(Tok::Ident(w)) if !is_keyword(w))
                            && self.peek_at(1) != Some(Tok::Colon)
                        {
                            self.bump();
                        }
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                Some(Tok::Ident("exists" | "forall")) | Some(Tok::Tilde) => {
                    let start = self.span();
                    let q = match self.bump().0 {
                        Tok::Ident("forall") => Quantifier::Forall,
                        Tok::Tilde => {
                            if !matches!(self.peek(), Some(Tok::Ident("exists"))) {
                                return Err(self.error("`exists`"));
                            }
                            self.bump();
                            Quantifier::NotExists
                        }
                        _ => Quantifier::Exists,
                    };
                    let cond = self.cond()?;
                    final_ = Some(HFinal { quantifier: q, span: start.join(cond.span), cond });
                }
                None => break,
                _ => return Err(self.error("a thread `P0 (…) { … }`, `locations`, `filter` or the final condition")),
            }
        }
        // No condition: herd7's is `forall true` (always, one state).
        let final_ = final_.or_else(|| {
            let at = Span::new(self.prev_end(), self.prev_end());
            Some(HFinal { quantifier: Quantifier::Forall, cond: CExpr { kind: CExprKind::True, span: at }, span: at })
        });
        Ok(Parsed { init, threads, locations, filter, final_ })
    }

    /// `{ [x] = 0; y = 1; int z = 2; 0:r0 = 1; }`
    fn init(&mut self) -> R<Vec<InitItem>> {
        self.expect(Tok::LBrace, "the initial state `{ … }`")?;
        let mut items = Vec::new();
        loop {
            while self.eat(Tok::Semi) {}
            if self.eat(Tok::RBrace) {
                break;
            }
            let start = self.span();
            // A C type before the name (`int x = 1;`, `int *p = &z;`).
            let mut ty = None;
            while let (Some(Tok::Ident(s)), Some(Tok::Ident(_) | Tok::Star | Tok::LBracket)) =
                (self.peek(), self.peek_at(1))
            {
                let _ = s;
                ty = Some(self.ident()?);
                self.eat(Tok::Star);
            }
            if ty.is_some() {
                self.eat(Tok::Star);
            }
            let target = match self.peek() {
                Some(Tok::LBracket) => {
                    self.bump();
                    let id = self.ident()?;
                    self.expect(Tok::RBracket, "`]`")?;
                    InitTarget::Loc(id)
                }
                Some(Tok::Int(_)) => {
                    let t = self.int()?;
                    self.expect(Tok::Colon, "`:`")?;
                    InitTarget::Reg(t, self.ident()?)
                }
                Some(Tok::Ident(s)) if is_thread_name(s) && self.peek_at(1) == Some(Tok::Colon) => {
                    let (_, sp) = self.bump();
                    let t = IntLit { value: s[1..].parse().unwrap_or(-1), span: sp };
                    self.bump();
                    InitTarget::Reg(t, self.ident()?)
                }
                _ => InitTarget::Loc(self.ident()?),
            };
            let value = if self.eat(Tok::Assign) {
                Some(match self.peek() {
                    Some(Tok::Amp) => {
                        self.bump();
                        InitValue::Addr(self.ident()?)
                    }
                    Some(Tok::Ident(_)) if self.peek_at(1) == Some(Tok::LParen) => {
                        let f = self.ident()?;
                        return Err(Diagnostic::error("E0140", f.span, format!("`{}` is not supported", f.name))
                            .with_label("a macro of the Linux kernel's (`atomic_t`), not C11"));
                    }
                    Some(Tok::Ident(_)) => InitValue::Addr(self.ident()?),
                    _ => InitValue::Int(self.int()?),
                })
            } else {
                None
            };
            items.push(InitItem { ty, target, value, span: start.join(Span::new(self.prev_end(), self.prev_end())) });
            if !self.eat(Tok::Semi) && self.peek() != Some(Tok::RBrace) {
                return Err(self.error("`;` or `}`"));
            }
        }
        Ok(items)
    }

    fn thread(&mut self) -> R<CThread> {
        let name = self.ident()?;
        self.expect(Tok::LParen, "`(`")?;
        let mut params = Vec::new();
        while !self.eat(Tok::RParen) {
            // Type words, a `*`, the name: `volatile int* y`, `atomic_int *x`.
            let mut last = None;
            loop {
                match self.peek() {
                    Some(Tok::Ident(_)) => last = Some(self.ident()?),
                    Some(Tok::Star) => {
                        self.bump();
                    }
                    _ => break,
                }
            }
            params.push(last.ok_or_else(|| self.error("a parameter"))?);
            if !self.eat(Tok::Comma) && self.peek() != Some(Tok::RParen) {
                return Err(self.error("`,` or `)`"));
            }
        }
        let body = self.block()?;
        let span = name.span.join(Span::new(self.prev_end(), self.prev_end()));
        Ok(CThread { name, params, body, span })
    }

    fn block(&mut self) -> R<Vec<Stmt>> {
        self.expect(Tok::LBrace, "`{`")?;
        let mut out = Vec::new();
        while !self.eat(Tok::RBrace) {
            if self.peek().is_none() {
                return Err(self.error("`}`"));
            }
            if self.eat(Tok::Semi) {
                continue;
            }
            out.push(self.stmt()?);
        }
        Ok(out)
    }

    /// A statement, or a block as one (its statements).
    fn body(&mut self) -> R<Vec<Stmt>> {
        if self.peek() == Some(Tok::LBrace) {
            self.block()
        } else {
            Ok(vec![self.stmt()?])
        }
    }

    fn stmt(&mut self) -> R<Stmt> {
        let start = self.span();
        let end = |p: &Self| start.join(Span::new(p.prev_end(), p.prev_end()));
        match (self.peek(), self.peek_at(1)) {
            (Some(Tok::Ident("if")), _) => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                let cond = self.expr()?;
                self.expect(Tok::RParen, "`)`")?;
                let then = self.body()?;
                let els = if self.peek() == Some(Tok::Ident("else")) {
                    self.bump();
                    self.body()?
                } else {
                    Vec::new()
                };
                Ok(Stmt::If { cond, then, els, span: end(self) })
            }
            (Some(Tok::Ident("while")), _) => {
                self.bump();
                self.expect(Tok::LParen, "`(`")?;
                let cond = self.expr()?;
                self.expect(Tok::RParen, "`)`")?;
                let body = self.body()?;
                Ok(Stmt::While { cond, body, span: end(self) })
            }
            (Some(Tok::Ident(ty)), Some(Tok::Ident(_) | Tok::Star)) if is_type_word(ty) => {
                // `int r0 = e;`, `int r0;`, `__int128_t r1 = *y;`
                while matches!(self.peek(), Some(Tok::Ident(s)) if is_type_word(s)) || self.peek() == Some(Tok::Star) {
                    self.bump();
                }
                let name = self.ident()?;
                let init = if self.eat(Tok::Assign) { Some(self.expr()?) } else { None };
                self.expect(Tok::Semi, "`;`")?;
                Ok(Stmt::Decl { name, init, span: end(self) })
            }
            (Some(Tok::Ident(_)), Some(Tok::Assign)) => {
                let name = self.ident()?;
                self.bump();
                let value = self.expr()?;
                self.expect(Tok::Semi, "`;`")?;
                Ok(Stmt::Assign { name, value, span: end(self) })
            }
            (Some(Tok::Star), Some(Tok::Ident(_))) if self.peek_at(2) == Some(Tok::Assign) => {
                self.bump();
                let target = self.ident()?;
                self.bump();
                let value = self.expr()?;
                self.expect(Tok::Semi, "`;`")?;
                Ok(Stmt::Store { target, value, span: end(self) })
            }
            _ => {
                let e = self.expr()?;
                self.expect(Tok::Semi, "`;`")?;
                Ok(Stmt::Expr(e, end(self)))
            }
        }
    }

    fn expr(&mut self) -> R<Expr> {
        self.binary(0)
    }

    fn binary(&mut self, min: u8) -> R<Expr> {
        let mut lhs = self.unary()?;
        loop {
            let (op, prec) = match self.peek() {
                Some(Tok::OrOr) => (BinOp::Or, 1),
                Some(Tok::AndAnd) => (BinOp::And, 2),
                Some(Tok::Bar) => (BinOp::BitOr, 3),
                Some(Tok::Caret) => (BinOp::BitXor, 4),
                Some(Tok::Amp) => (BinOp::BitAnd, 5),
                Some(Tok::EqEq) => (BinOp::Eq, 6),
                Some(Tok::Ne) => (BinOp::Ne, 6),
                Some(Tok::Lt) => (BinOp::Lt, 7),
                Some(Tok::Le) => (BinOp::Le, 7),
                Some(Tok::Gt) => (BinOp::Gt, 7),
                Some(Tok::Ge) => (BinOp::Ge, 7),
                Some(Tok::Plus) => (BinOp::Add, 8),
                Some(Tok::Minus) => (BinOp::Sub, 8),
                Some(Tok::Star) => (BinOp::Mul, 9),
                Some(Tok::Slash) => (BinOp::Div, 9),
                Some(Tok::Percent) => (BinOp::Rem, 9),
                _ => return Ok(lhs),
            };
            if prec < min {
                return Ok(lhs);
            }
            self.bump();
            let rhs = self.binary(prec + 1)?;
            let span = lhs.span.join(rhs.span);
            lhs = Expr { kind: ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)), span };
        }
    }

    fn unary(&mut self) -> R<Expr> {
        let start = self.span();
        let un = |p: &mut Self, k: fn(Box<Expr>) -> ExprKind| -> R<Expr> {
            p.bump();
            let e = p.unary()?;
            Ok(Expr { span: start.join(e.span), kind: k(Box::new(e)) })
        };
        match self.peek() {
            Some(Tok::Bang) => un(self, ExprKind::Not),
            Some(Tok::Minus) => un(self, ExprKind::Neg),
            Some(Tok::Tilde) => un(self, ExprKind::BitNot),
            Some(Tok::Star) => {
                self.bump();
                let x = self.ident()?;
                Ok(Expr { span: start.join(x.span), kind: ExprKind::Deref(x) })
            }
            Some(Tok::LParen) => {
                self.bump();
                let e = self.expr()?;
                self.expect(Tok::RParen, "`)`")?;
                Ok(e)
            }
            Some(Tok::Int(_)) => {
                let i = self.int()?;
                Ok(Expr { kind: ExprKind::Int(i.value), span: i.span })
            }
            Some(Tok::Ident(_)) => {
                let id = self.ident()?;
                if self.peek() == Some(Tok::MbAnnot) {
                    let sp = self.span();
                    return Err(Diagnostic::error("E0140", sp, "Linux-kernel annotations (`{mb}`) are not supported")
                        .with_label("litmus reads C11 atomics"));
                }
                if self.eat(Tok::LParen) {
                    let mut args = Vec::new();
                    while !self.eat(Tok::RParen) {
                        args.push(self.expr()?);
                        if !self.eat(Tok::Comma) && self.peek() != Some(Tok::RParen) {
                            return Err(self.error("`,` or `)`"));
                        }
                    }
                    let span = id.span.join(Span::new(self.prev_end(), self.prev_end()));
                    return Ok(Expr { kind: ExprKind::Call(id, args), span });
                }
                Ok(Expr { span: id.span, kind: ExprKind::Var(id) })
            }
            _ => Err(self.error("an expression")),
        }
    }

    /// A condition's location: `0:r0`, `P0:r0`, `x`, `[x]`.
    fn cloc(&mut self) -> R<CLoc> {
        match (self.peek(), self.peek_at(1)) {
            (Some(Tok::Int(_)), _) => {
                let t = self.int()?;
                self.expect(Tok::Colon, "`:`")?;
                Ok(CLoc::Reg(t, self.ident()?))
            }
            (Some(Tok::Ident(s)), Some(Tok::Colon)) if is_thread_name(s) => {
                let (_, sp) = self.bump();
                self.bump();
                let t = IntLit { value: s[1..].parse().unwrap_or(-1), span: sp };
                Ok(CLoc::Reg(t, self.ident()?))
            }
            (Some(Tok::LBracket), _) => {
                self.bump();
                let id = self.ident()?;
                self.expect(Tok::RBracket, "`]`")?;
                Ok(CLoc::Loc(id))
            }
            _ => Ok(CLoc::Loc(self.ident()?)),
        }
    }

    /// herd's condition: `/\`, `\/`, `~`/`not`, `loc = value`, `true`.
    fn cond(&mut self) -> R<CExpr> {
        let lhs = self.cond_and()?;
        if self.eat(Tok::Or) {
            let rhs = self.cond()?;
            let span = lhs.span.join(rhs.span);
            return Ok(CExpr { kind: CExprKind::Or(Box::new(lhs), Box::new(rhs)), span });
        }
        Ok(lhs)
    }

    fn cond_and(&mut self) -> R<CExpr> {
        let lhs = self.cond_atom()?;
        if self.eat(Tok::And) {
            let rhs = self.cond_and()?;
            let span = lhs.span.join(rhs.span);
            return Ok(CExpr { kind: CExprKind::And(Box::new(lhs), Box::new(rhs)), span });
        }
        Ok(lhs)
    }

    fn cond_atom(&mut self) -> R<CExpr> {
        let start = self.span();
        match self.peek() {
            Some(Tok::LParen) => {
                self.bump();
                let c = self.cond()?;
                let end = self.expect(Tok::RParen, "`)`")?;
                Ok(CExpr { kind: c.kind, span: start.join(end) })
            }
            Some(Tok::Tilde) | Some(Tok::Ident("not")) => {
                self.bump();
                let c = self.cond_atom()?;
                Ok(CExpr { span: start.join(c.span), kind: CExprKind::Not(Box::new(c)) })
            }
            Some(Tok::Ident("true")) => Ok(CExpr { kind: CExprKind::True, span: self.bump().1 }),
            Some(Tok::Ident("false")) => Ok(CExpr { kind: CExprKind::False, span: self.bump().1 }),
            _ => {
                let l = self.cloc()?;
                let eq = match self.peek() {
                    Some(Tok::Assign) | Some(Tok::EqEq) => true,
                    Some(Tok::Ne) => false,
                    _ => return Err(self.error("`=`")),
                };
                self.bump();
                let v = match self.peek() {
                    Some(Tok::Ident(_)) => CVal::Sym(self.ident()?),
                    _ => CVal::Int(self.int()?),
                };
                let span = start.join(Span::new(self.prev_end(), self.prev_end()));
                Ok(CExpr { kind: CExprKind::Eq(l, v, eq), span })
            }
        }
    }
}

fn is_thread_name(s: &str) -> bool {
    s.len() > 1 && s.starts_with('P') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Words of the C types herd's tests declare locals with.
fn is_type_word(s: &str) -> bool {
    matches!(
        s,
        "int" | "long" | "short" | "char" | "unsigned" | "signed" | "volatile" | "const" | "atomic_int" | "_Atomic"
    ) || s.ends_with("_t")
}

fn parse_int(s: &str) -> Option<i64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok().map(|v| v as i64),
        None => s.parse::<i64>().ok(),
    }
}

/// What a token of a C test's body is, for highlighting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class<'s> {
    Word(&'s str),
    Number,
    Operator,
    Punctuation,
}

/// The tokens of a C test's body from byte `start` (comments left out:
/// the parser reports their spans).
pub fn classify(src: &str, start: usize) -> Vec<(Class<'_>, Span)> {
    let mut out = Vec::new();
    let mut lex = Tok::lexer(&src[start..]);
    let mut depth = Blocks::default();
    while let Some(t) = lex.next() {
        let r = lex.span();
        let span = Span::new(start + r.start, start + r.end);
        depth.see(t);
        let class = match t {
            Ok(Tok::OcamlComment) if depth.in_code() => {
                out.push((Class::Punctuation, Span::new(span.start, span.start + 1)));
                out.push((Class::Operator, Span::new(span.start + 1, span.end)));
                continue;
            }
            Ok(Tok::OcamlComment) | Ok(Tok::CComment) => {
                let close = if t == Ok(Tok::OcamlComment) { "*)" } else { "*/" };
                match src[span.end..].find(close) {
                    Some(e) => lex.bump(e + 2),
                    None => break,
                }
                continue;
            }
            Ok(Tok::Ident(w)) => Class::Word(w),
            Ok(Tok::Int(_)) => Class::Number,
            Ok(Tok::LBrace | Tok::RBrace | Tok::LParen | Tok::RParen | Tok::LBracket | Tok::RBracket)
            | Ok(Tok::Semi | Tok::Comma | Tok::Colon | Tok::MbAnnot) => Class::Punctuation,
            Ok(_) => Class::Operator,
            Err(()) => continue,
        };
        out.push((class, span));
    }
    out
}

/// Is `w` a word of C or of herd's C format (a keyword, a type, an atomic
/// function, a memory order), rather than a name the test chose?
pub fn is_keyword(w: &str) -> bool {
    matches!(w, "if" | "else" | "while" | "exists" | "forall" | "locations" | "filter" | "not" | "true" | "false")
        || is_type_word(w)
        || w.starts_with("atomic_")
        || w.starts_with("memory_order_")
}
