//! Parser of the native dialect (chumsky), with error recovery: a broken
//! statement becomes `StmtKind::Error` and parsing goes on after its `;`.
//! A misspelt keyword is reported and read as the keyword before parsing
//! (`misspelt`); a lone `;` is an empty statement, left out of the tree.

use super::ast::*;
use super::lexer::Token;
use crate::diagnostic::Diagnostic;
use crate::nesting::{
    balanced, bump, deeper, mismatch, nesting_message, new_item, peek, report, skip_expression, skip_group, Bracket,
    Brackets, Nesting, MAX_NESTING, NESTING_CODE, OVER,
};
use crate::span::Span;
use chumsky::input::ValueInput;
use chumsky::prelude::*;

type Extra<'t, 's> = crate::nesting::Extra<'t, Token<'s>>;
type Inp<'t, 'p, 's, I> = crate::nesting::Inp<'t, 'p, I, Token<'s>>;

fn sp(s: SimpleSpan) -> Span {
    Span::new(s.start, s.end)
}

/// Parse an integer literal (decimal or `0x` hex).
pub(crate) fn parse_int(s: &str) -> Option<i64> {
    let s = s.replace('_', "");
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok().map(|v| v as i64)
    } else {
        s.parse::<i64>().ok()
    }
}

fn ident<'t, 's: 't, I>() -> impl Parser<'t, I, Ident, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    select! { Token::Ident(s) = e => Ident { name: s.to_string(), span: sp(e.span()) } }.labelled("identifier")
}

fn int_lit<'t, 's: 't, I>() -> impl Parser<'t, I, IntLit, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    just(Token::Minus)
        .or_not()
        .then(select! { Token::Int(s) => s })
        .validate(|(neg, s), e, emitter| {
            let value = match parse_int(s) {
                Some(v) => v,
                None => {
                    emitter.emit(Rich::custom(e.span(), format!("invalid integer literal `{s}`")));
                    0
                }
            };
            IntLit { value: if neg.is_some() { value.wrapping_neg() } else { value }, span: sp(e.span()) }
        })
        .labelled("integer")
}

/// An expression and its height: how many levels of nesting lie below its
/// root (0 for a leaf). A subtree that crossed the limit has height `OVER`.
type Hx = (Expr, u32);

/// One level more, unless the subtree already crossed the limit.
fn up(h: u32) -> u32 {
    if h >= OVER {
        OVER
    } else {
        h + 1
    }
}

fn bracket(t: &Token<'_>) -> Bracket {
    match t {
        Token::LParen => Bracket::Open(0),
        Token::RParen => Bracket::Close(0),
        Token::LBracket => Bracket::Open(1),
        Token::RBracket => Bracket::Close(1),
        Token::LBrace => Bracket::Open(2),
        Token::RBrace => Bracket::Close(2),
        _ => Bracket::None,
    }
}

/// Tokens that cannot occur inside an expression: skipping one stops there.
fn ends_expression(t: &Token<'_>) -> bool {
    use Token::*;
    matches!(
        t,
        RParen
            | RBracket
            | LBrace
            | RBrace
            | Comma
            | Semi
            | Assign
            | Else
            | Let
            | If
            | While
            | Bound
            | For
            | In
            | DotDot
            | Await
            | Assert
            | Assume
            | Fence
            | Lock
            | Unlock
            | Return
            | Thread
            | Fn
            | Shared
            | Atomic
            | Exists
            | Forall
            | Litmus
    )
}

fn binop(t: &Token<'_>) -> Option<(BinOp, u8)> {
    use Token::*;
    Some(match t {
        OrOr => (BinOp::Or, 1),
        AndAnd => (BinOp::And, 2),
        EqEq => (BinOp::Eq, 3),
        NotEq => (BinOp::Ne, 3),
        Lt => (BinOp::Lt, 4),
        Le => (BinOp::Le, 4),
        Gt => (BinOp::Gt, 4),
        Ge => (BinOp::Ge, 4),
        Plus => (BinOp::Add, 5),
        Minus => (BinOp::Sub, 5),
        Star => (BinOp::Mul, 6),
        Slash => (BinOp::Div, 6),
        Percent => (BinOp::Rem, 6),
        _ => return None,
    })
}

/// At the nesting limit: report the crossing at the next token and skip the
/// rest of the expression; it becomes one error node.
fn overflow_expr<'t, 's: 't, I>(inp: &mut Inp<'t, '_, 's, I>) -> Option<Hx>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    let (_, first) = peek(inp)?;
    let span = skip_expression(inp, ends_expression)?;
    report(inp, first);
    Some((Expr { kind: ExprKind::Error, span: sp(span) }, OVER))
}

/// Skip a block whose braces do not match, counting braces only, up to the
/// next item at worst.
fn skip_broken_block<'t, 's: 't, I>(inp: &mut Inp<'t, '_, 's, I>) -> SimpleSpan
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    let before = inp.cursor();
    let mut depth = 0u32;
    while let Some(t) = inp.peek() {
        match t {
            Token::LBrace => depth += 1,
            Token::RBrace => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    inp.skip();
                    break;
                }
            }
            t if depth > 0 && item_start().contains(&t) => break,
            _ => {}
        }
        inp.skip();
    }
    inp.span_since(&before)
}

fn skip_block<'t, 's: 't, I>(inp: &mut Inp<'t, '_, 's, I>) -> SimpleSpan
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    skip_group(inp).unwrap_or_else(|| skip_broken_block(inp))
}

/// At the nesting limit: a block is skipped whole and left empty.
fn overflow_block<'t, 's: 't, I>(inp: &mut Inp<'t, '_, 's, I>) -> Option<Block>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    let (t, first) = peek(inp)?;
    if t != Token::LBrace {
        return None;
    }
    report(inp, first);
    Some(Block { stmts: Vec::new(), span: sp(skip_block(inp)) })
}

/// At the nesting limit: the rest of an `else if` chain is skipped and
/// becomes one broken statement.
fn overflow_if<'t, 's: 't, I>(inp: &mut Inp<'t, '_, 's, I>) -> Option<Stmt>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    let (t, first) = peek(inp)?;
    if t != Token::If {
        return None;
    }
    report(inp, first);
    let before = inp.cursor();
    while inp.peek() == Some(Token::If) {
        inp.skip();
        skip_expression(inp, ends_expression);
        if inp.peek() == Some(Token::LBrace) {
            skip_block(inp);
        }
        if inp.peek() != Some(Token::Else) {
            break;
        }
        inp.skip();
        if inp.peek() == Some(Token::LBrace) {
            skip_block(inp);
            break;
        }
    }
    Some(Stmt { kind: StmtKind::Error, span: sp(inp.span_since(&before)) })
}

/// A binary node over `a` and `b`, unless it is one level too deep.
fn binary<'t, 's: 't, I>(inp: &mut Inp<'t, '_, 's, I>, (a, ha): Hx, op: BinOp, op_span: SimpleSpan, (b, hb): Hx) -> Hx
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    let span = a.span.join(b.span);
    let h = up(ha.max(hb));
    if h >= OVER || inp.state().depth + h > MAX_NESTING {
        if h < OVER {
            report(inp, op_span);
        }
        return (Expr { kind: ExprKind::Error, span }, OVER);
    }
    (Expr { kind: ExprKind::Binary(op, Box::new(a), Box::new(b)), span }, h)
}

/// Precedence climbing over the binary operators, left-associative; the
/// operands are unary expressions. No alternatives are tried per operator.
fn climb<'t, 's: 't, I, P>(inp: &mut Inp<'t, '_, 's, I>, operand: &P, min: u8) -> Result<Hx, Rich<'t, Token<'s>>>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
    P: Parser<'t, I, Hx, Extra<'t, 's>>,
{
    let mut lhs = inp.parse(operand)?;
    while let Some((op, prec)) = inp.peek().as_ref().and_then(binop) {
        if prec < min {
            break;
        }
        let op_span = bump(inp);
        let rhs = climb(inp, operand, prec + 1)?;
        lhs = binary(inp, lhs, op, op_span, rhs);
    }
    Ok(lhs)
}

fn expr_h<'t, 's: 't, I>() -> impl Parser<'t, I, Hx, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    recursive(|expr| {
        // An expression one level deeper: inside `( )`, `[ ]` or an argument list.
        let sub = deeper(expr.clone(), overflow_expr);

        let lvalue = ident()
            .then(sub.clone().delimited_by(just(Token::LBracket), just(Token::RBracket)).or_not())
            .then(mem_order().or_not())
            .map_with(|((name, index), order), e| {
                // The height of the index: the node holding the location is one more.
                let h = index.as_ref().map_or(0, |i: &Hx| i.1);
                (LValue { name, index: index.map(|i| Box::new(i.0)), order, span: sp(e.span()) }, h)
            })
            .labelled("location");

        let args = sub
            .clone()
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(just(Token::LParen), just(Token::RParen));

        let int = select! { Token::Int(s) => s }.validate(|s, e, emitter| match parse_int(s) {
            Some(v) => (ExprKind::Int(v), 0),
            None => {
                emitter.emit(Rich::custom(e.span(), format!("invalid integer literal `{s}`")));
                (ExprKind::Error, 0)
            }
        });

        // A node over children of the given heights; one error node if any crossed the limit.
        fn node(kind: ExprKind, heights: &[u32]) -> (ExprKind, u32) {
            let h = up(heights.iter().copied().max().unwrap_or(0));
            if h >= OVER {
                (ExprKind::Error, OVER)
            } else {
                (kind, h)
            }
        }

        let cas = just(Token::Cas)
            .ignore_then(
                lvalue
                    .clone()
                    .then_ignore(just(Token::Comma))
                    .then(sub.clone())
                    .then_ignore(just(Token::Comma))
                    .then(sub.clone())
                    .delimited_by(just(Token::LParen), just(Token::RParen)),
            )
            .map(|(((l, hl), (a, ha)), (b, hb))| node(ExprKind::Cas(l, Box::new(a), Box::new(b)), &[hl, ha, hb]));
        let rmw2 = |tok: Token<'s>, f: fn(LValue, Box<Expr>) -> ExprKind| {
            just(tok)
                .ignore_then(
                    lvalue
                        .clone()
                        .then_ignore(just(Token::Comma))
                        .then(sub.clone())
                        .delimited_by(just(Token::LParen), just(Token::RParen)),
                )
                .map(move |((l, hl), (a, ha))| node(f(l, Box::new(a)), &[hl, ha]))
        };
        let xchg = rmw2(Token::Xchg, ExprKind::Xchg);
        let fetch_add = rmw2(Token::FetchAdd, ExprKind::FetchAdd);

        let thread_name =
            ident().or(select! { Token::Int(s) = e => Ident { name: s.to_string(), span: sp(e.span()) } });
        let thread_reg =
            thread_name.then_ignore(just(Token::Colon)).then(ident()).map(|(t, r)| (ExprKind::ThreadReg(t, r), 0));

        let name_based = ident()
            .then(
                args.clone()
                    .map(|a| (Some(a), None))
                    .or(sub.clone().delimited_by(just(Token::LBracket), just(Token::RBracket)).map(|i| (None, Some(i))))
                    .or_not(),
            )
            .map(|(name, rest)| match rest {
                Some((Some(args), _)) => {
                    let heights: Vec<u32> = args.iter().map(|a: &Hx| a.1).collect();
                    let args = args.into_iter().map(|a| a.0).collect();
                    if heights.is_empty() {
                        (ExprKind::Call(name, args), 0)
                    } else {
                        node(ExprKind::Call(name, args), &heights)
                    }
                }
                Some((_, Some((index, h)))) => node(ExprKind::Index(name, Box::new(index)), &[h]),
                _ => (ExprKind::Var(name), 0),
            })
            .map_with(|(kind, h), e| (Expr { kind, span: sp(e.span()) }, h))
            // A load's memory order: the access is the node inside.
            .then(mem_order().or_not())
            .map(|((inner, h), order)| match order {
                Some(o) => node(ExprKind::Ordered(Box::new(inner), o), &[h]),
                None => (inner.kind, h),
            });

        let atom = choice((
            thread_reg,
            int,
            just(Token::True).to((ExprKind::Bool(true), 0)),
            just(Token::False).to((ExprKind::Bool(false), 0)),
            cas,
            xchg,
            fetch_add,
            name_based,
        ))
        .map_with(|(kind, h), e| (Expr { kind, span: sp(e.span()) }, h))
        // Parentheses are no node, but a level all the same (of parsing).
        .or(sub.clone().delimited_by(just(Token::LParen), just(Token::RParen)).map(|(e, h)| (e, up(h))))
        .recover_with(via_parser(balanced(Token::LParen, |span| (Expr { kind: ExprKind::Error, span: sp(span) }, 0))))
        .labelled("expression")
        .boxed();

        // Prefix operators, counted on the way down: the operator where the
        // limit is crossed is reported and the rest of the operand skipped.
        let unary = custom(move |inp: &mut Inp<'t, '_, 's, I>| {
            let base = inp.state().depth;
            let mut ops: Vec<(UnOp, Span)> = Vec::new();
            while let Some(op) = match inp.peek() {
                Some(Token::Bang) => Some(UnOp::Not),
                Some(Token::Minus) => Some(UnOp::Neg),
                _ => None,
            } {
                let op_span = bump(inp);
                if base + ops.len() as u32 + 1 > MAX_NESTING {
                    report(inp, op_span);
                    let end = skip_expression(inp, ends_expression).map_or(op_span.end, |s| s.end);
                    let start = ops.first().map_or(op_span.start, |o| o.1.start);
                    return Ok((Expr { kind: ExprKind::Error, span: Span::new(start, end) }, OVER));
                }
                ops.push((op, sp(op_span)));
            }
            let k = ops.len() as u32;
            inp.state().depth += k;
            let r = inp.parse(&atom);
            inp.state().depth -= k;
            let (mut e, mut h) = r?;
            if h >= OVER {
                let span = ops.first().map_or(e.span, |o| o.1.join(e.span));
                return Ok((Expr { kind: ExprKind::Error, span }, OVER));
            }
            for (op, op_span) in ops.into_iter().rev() {
                let span = op_span.join(e.span);
                e = Expr { kind: ExprKind::Unary(op, Box::new(e)), span };
                h += 1;
            }
            Ok((e, h))
        })
        .boxed();

        custom(move |inp: &mut Inp<'t, '_, 's, I>| climb(inp, &unary, 0))
    })
}

/// An expression; the nesting limit holds from the depth it starts at.
fn expr<'t, 's: 't, I>() -> impl Parser<'t, I, Expr, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    expr_h().map(|(e, _)| e)
}

/// Tokens that can only start a top-level item: statement recovery stops there.
fn item_start<'s>() -> [Token<'s>; 7] {
    [Token::Thread, Token::Fn, Token::Shared, Token::Atomic, Token::Exists, Token::Forall, Token::Litmus]
}

/// `@order`: an access's memory order, by its C name.
fn mem_order<'t, 's: 't, I>() -> impl Parser<'t, I, MemOrder, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    just(Token::At).ignore_then(select! { Token::Ident(s) = e => (s, e.span()) }.labelled("memory order").validate(
        |(s, span), _, emitter| {
            let labels = MemOrder::by_name(s).unwrap_or_else(|| {
                emitter.emit(Rich::custom(
                    span,
                    format!(
                        "unknown memory order `{s}`: expected `relaxed`, `acquire`, `release`, `acq_rel` or `seq_cst`"
                    ),
                ));
                Labels::MO_SC
            });
            MemOrder { labels, span: sp(span) }
        },
    ))
}

/// A block one nesting level below its context.
fn nested_block<'t, 's: 't, I, P>(block: P) -> impl Parser<'t, I, Block, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
    P: Parser<'t, I, Block, Extra<'t, 's>> + Clone,
{
    deeper(block, overflow_block)
}

/// One unit of a broken statement, for recovery: a well-formed `{ }` or
/// `( )` group, an opening bracket never closed, or any other token but `;`,
/// `}` and those that start an item. A run of stray tokens is one error.
fn skip_unit<'t, 's: 't, I>() -> impl Parser<'t, I, (), Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    custom(|inp: &mut Inp<'t, '_, 's, I>| match inp.peek() {
        Some(Token::LBrace | Token::LParen) => {
            if skip_group(inp).is_none() {
                inp.skip();
            }
            Ok(())
        }
        Some(t) if !(t == Token::Semi || t == Token::RBrace || item_start().contains(&t)) => {
            inp.skip();
            Ok(())
        }
        _ => Err(mismatch(inp)),
    })
}

fn block<'t, 's: 't, I>() -> impl Parser<'t, I, Block, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    recursive(|block| {
        let block = nested_block(block);
        let expr = expr();
        let semi = just(Token::Semi).labelled("`;`");
        let paren_expr = expr.clone();
        let sub = deeper(expr_h(), overflow_expr);

        let let_ = just(Token::Let)
            .ignore_then(ident())
            .then_ignore(just(Token::Assign))
            .then(expr.clone())
            .then_ignore(semi)
            .map(|(name, value)| StmtKind::Let { name, value });

        let lvalue = ident()
            .then(sub.delimited_by(just(Token::LBracket), just(Token::RBracket)).or_not())
            .then(mem_order().or_not())
            .map_with(|((name, index), order), e| LValue {
                name,
                index: index.map(|i| Box::new(i.0)),
                order,
                span: sp(e.span()),
            });
        let assign = lvalue
            .then_ignore(just(Token::Assign))
            .then(expr.clone())
            .then_ignore(semi)
            .map(|(target, value)| StmtKind::Assign { target, value });

        let if_ = recursive(|if_| {
            let else_if = deeper(if_, overflow_if);
            just(Token::If)
                .ignore_then(paren_expr.clone())
                .then(block.clone())
                .then(just(Token::Else).ignore_then(block.clone().map(Else::Block).or(else_if.map(Else::If))).or_not())
                .map_with(|((cond, then), els), e| Stmt {
                    kind: StmtKind::If { cond, then, els: els.map(Box::new) },
                    span: sp(e.span()),
                })
        });
        // The loop's own bound; sema checks that it is a constant in range.
        let bound = just(Token::Bound).ignore_then(expr.clone().labelled("loop bound")).or_not();
        let while_ = just(Token::While)
            .ignore_then(paren_expr.clone())
            .then(bound)
            .then(block.clone())
            .map(|((cond, bound), body)| StmtKind::While { cond, bound: bound.map(Box::new), body });
        let for_ = just(Token::For)
            .ignore_then(ident())
            .then_ignore(just(Token::In))
            .then(expr.clone())
            .then_ignore(just(Token::DotDot))
            .then(expr.clone())
            .then(block.clone())
            .map(|(((var, from), to), body)| StmtKind::For { var, from: Box::new(from), to: Box::new(to), body });

        let cond_stmt = |tok: Token<'s>, f: fn(Expr) -> StmtKind| {
            just(tok).ignore_then(paren_expr.clone()).then_ignore(semi).map(f)
        };

        let fence = just(Token::Fence)
            .ignore_then(
                select! { Token::Ident(s) = e => (s, e.span()) }
                    .validate(|(s, span), _, emitter| match s {
                        "full" => FenceKind::Full,
                        "ww" => FenceKind::WW,
                        "wr" => FenceKind::WR,
                        "rr" => FenceKind::RR,
                        other => match MemOrder::by_name(other) {
                            // C11's `atomic_thread_fence(order)`.
                            Some(l) => FenceKind::Order(l),
                            None => {
                                emitter.emit(Rich::custom(
                                    span,
                                    format!(
                                        "unknown fence kind `{other}`: expected `ww`, `wr`, `rr`, `full`, \
                                         or a memory order (`acquire`, `release`, `acq_rel`, `seq_cst`)"
                                    ),
                                ));
                                FenceKind::Full
                            }
                        },
                    })
                    .or_not(),
            )
            .then_ignore(semi)
            .map(|k| StmtKind::Fence(k.unwrap_or(FenceKind::Full)));

        let lock = |tok: Token<'s>, f: fn(Ident) -> StmtKind| {
            just(tok)
                .ignore_then(ident().delimited_by(just(Token::LParen), just(Token::RParen)))
                .then_ignore(semi)
                .map(f)
        };

        let return_ = just(Token::Return).ignore_then(expr.clone().or_not()).then_ignore(semi).map(StmtKind::Return);

        let expr_stmt = expr.clone().then_ignore(semi).map(StmtKind::Expr);

        let simple = choice((
            let_,
            while_,
            for_,
            cond_stmt(Token::Await, StmtKind::Await),
            cond_stmt(Token::Assert, StmtKind::Assert),
            cond_stmt(Token::Assume, StmtKind::Assume),
            fence,
            lock(Token::Lock, StmtKind::Lock),
            lock(Token::Unlock, StmtKind::Unlock),
            return_,
            assign,
            expr_stmt,
        ))
        .map_with(|kind, e| Stmt { kind, span: sp(e.span()) });

        // Recovery: skip to the end of the statement (well-formed bracket
        // groups whole), never past a `}` or a token that starts a new item.
        // An opening bracket that is never closed is one token, so even a long
        // unbalanced run is skipped in linear time.
        // The first token is skipped whatever it is; after it, a keyword that
        // starts a statement ends the broken one (a missing `;` loses one line).
        let stmt_start = [
            Token::Let,
            Token::If,
            Token::While,
            Token::For,
            Token::Await,
            Token::Assert,
            Token::Assume,
            Token::Fence,
            Token::Lock,
            Token::Unlock,
            Token::Return,
        ];
        let first = skip_unit();
        let rest = skip_unit().and_is(one_of(stmt_start).not());
        // A broken `let r = ...;` still declares `r`, so later uses of `r`
        // do not cascade into "unknown name" errors.
        let let_recovery = just(Token::Let)
            .ignore_then(ident())
            .then_ignore(rest.clone().repeated())
            .then_ignore(just(Token::Semi).or_not())
            .map_with(|name, e| {
                let span = sp(e.span());
                Stmt { kind: StmtKind::Let { name, value: Expr { kind: ExprKind::Error, span } }, span }
            });
        let recovery = let_recovery.or(first
            .then(rest.repeated())
            .then(just(Token::Semi).or_not())
            .map_with(|_, e| Stmt { kind: StmtKind::Error, span: sp(e.span()) }));

        let stmt = if_.or(simple).recover_with(via_parser(recovery)).labelled("statement");

        // A block whose `}` is missing ends before the next item (reported),
        // so the threads after it still parse.
        let close =
            just(Token::RBrace).ignored().recover_with(via_parser(one_of(item_start()).rewind().ignored().or(end())));
        // A lone `;` is an empty statement, as in C: nothing in the tree.
        let empty = just(Token::Semi).to(None).labelled("statement");
        empty
            .or(stmt.map(Some))
            .repeated()
            .collect::<Vec<_>>()
            .delimited_by(just(Token::LBrace), close)
            .map_with(|stmts, e| Block { stmts: stmts.into_iter().flatten().collect(), span: sp(e.span()) })
            .recover_with(via_parser(balanced(Token::LBrace, |span| Block { stmts: Vec::new(), span: sp(span) })))
            .labelled("block")
            .boxed()
    })
}

fn file<'t, 's: 't, I>() -> impl Parser<'t, I, File, Extra<'t, 's>>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan, Cursor = usize>,
{
    let name =
        select! { Token::Name(s) = e => Ident { name: s.to_string(), span: sp(e.span()) } }.labelled("test name");
    let doc = select! { Token::Str(s) = e => (unescape(s), sp(e.span())) };
    let header = just(Token::Litmus).ignore_then(name).then(doc.or_not()).map_with(|(name, doc), e| Header {
        name,
        doc,
        span: sp(e.span()),
    });

    let var_decl = ident()
        .then(int_lit().delimited_by(just(Token::LBracket), just(Token::RBracket)).or_not())
        .then(
            just(Token::Assign)
                .ignore_then(
                    int_lit()
                        .separated_by(just(Token::Comma))
                        .allow_trailing()
                        .collect::<Vec<_>>()
                        .delimited_by(just(Token::LBrace), just(Token::RBrace))
                        .map_with(|v, e| Init::Array(v, sp(e.span())))
                        .or(int_lit().map(Init::Scalar)),
                )
                .or_not(),
        )
        .map_with(|((name, len), init), e| VarDecl { name, len, init, span: sp(e.span()) });
    let shared = just(Token::Shared)
        .to(false)
        .or(just(Token::Atomic).to(true))
        .then(var_decl.separated_by(just(Token::Comma)).at_least(1).collect::<Vec<_>>())
        .then_ignore(just(Token::Semi))
        .map_with(|(atomic, vars), e| Item::Shared(SharedDecl { vars, atomic, span: sp(e.span()) }));

    let fn_ = just(Token::Fn)
        .ignore_then(ident())
        .then(
            ident()
                .separated_by(just(Token::Comma))
                .allow_trailing()
                .collect::<Vec<_>>()
                .delimited_by(just(Token::LParen), just(Token::RParen)),
        )
        .then(nested_block(block()))
        .map_with(|((name, params), body), e| Item::Fn(FnDef { name, params, body, span: sp(e.span()) }));

    let thread = just(Token::Thread)
        .ignore_then(ident())
        .then(nested_block(block()))
        .map_with(|(name, body), e| Item::Thread(ThreadDef { name, body, span: sp(e.span()) }));

    let quant = choice((
        just(Token::Exists).to(Quantifier::Exists),
        just(Token::Tilde).then(just(Token::Exists)).to(Quantifier::NotExists),
        just(Token::Forall).to(Quantifier::Forall),
    ));
    let final_ = quant
        .then(expr())
        .then_ignore(just(Token::Semi).or_not())
        .map_with(|(quantifier, cond), e| Item::Final(Final { quantifier, cond, span: sp(e.span()) }));

    let item = new_item()
        .ignore_then(choice((shared, fn_, thread, final_)))
        .recover_with(skip_then_retry_until(any().ignored(), end()))
        .labelled("item");

    header
        .or_not()
        .then(item.repeated().collect::<Vec<_>>())
        .then_ignore(end())
        .map(|(header, items)| File { header, items })
}

fn unescape(s: &str) -> String {
    let inner = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(s);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Turn a chumsky error into a diagnostic; `prev_end` finds the end of the
/// token before the error so a missing `;` is shown where it belongs.
pub(crate) fn rich_to_diag<T: std::fmt::Display + std::fmt::Debug>(
    e: &Rich<'_, T, SimpleSpan>,
    prev_token: impl Fn(usize) -> Option<Span>,
) -> Diagnostic {
    use chumsky::error::RichReason;
    let span = sp(*e.span());
    match e.reason() {
        RichReason::Custom(msg) if *msg == nesting_message() => Diagnostic::error(NESTING_CODE, span, msg.clone())
            .with_label("the limit is crossed here")
            .with_help("split the construct, e.g. compute parts of an expression into registers with `let`"),
        RichReason::Custom(msg) => Diagnostic::error("E0002", span, msg.clone()),
        RichReason::ExpectedFound { expected, found } => {
            let found_s = match found {
                Some(t) => format!("{}", **t),
                None => "end of file".to_string(),
            };
            let mut exp: Vec<String> = expected.iter().map(pattern_name).collect();
            exp.sort();
            exp.dedup();
            // Operators that could continue an expression drown the useful
            // alternative (`;`, `)`, an expression): keep them only if alone.
            let continuation = |s: &String| {
                [
                    "`!=`", "`%`", "`&&`", "`*`", "`+`", "`-`", "`/`", "`:`", "`<=`", "`<`", "`==`", "`>=`", "`>`",
                    "`||`", "`[`", "`(`", "`!`",
                ]
                .contains(&s.as_str())
            };
            if exp.iter().any(|s| !continuation(s)) {
                exp.retain(|s| !continuation(s));
            }
            let expected_s = match exp.len() {
                0 => String::from("something else"),
                1 => exp[0].clone(),
                _ => {
                    let last = exp.pop().unwrap();
                    format!("{} or {}", exp.join(", "), last)
                }
            };
            let message = format!("expected {expected_s}, found {found_s}");
            match prev_token(span.start) {
                // A missing `;` (or closer) is the previous token's fault: the
                // squiggle goes there (end of line), not on the next line's
                // first word.
                // (Not after a bad character: the lexer's error there says it.)
                Some(prev)
                    if exp.len() == 1
                        && (exp[0] == "`;`" || exp[0] == "`}`" || exp[0] == "`)`")
                        && found_s != "invalid character" =>
                {
                    Diagnostic::error("E0002", prev, message)
                        .with_label(format!("{} expected after this", exp[0]))
                        .with_related(span, format!("unexpected {found_s}"))
                }
                _ => Diagnostic::error("E0002", span, message).with_label(format!("unexpected {found_s}")),
            }
        }
    }
}

fn pattern_name<T: std::fmt::Display + std::fmt::Debug>(p: &chumsky::error::RichPattern<'_, T>) -> String {
    use chumsky::error::RichPattern;
    match p {
        RichPattern::Token(t) => format!("{}", **t),
        RichPattern::Label(l) => l.to_string(),
        RichPattern::EndOfInput => "end of file".into(),
        other => format!("{other:?}"),
    }
}

/// Parse native-dialect source: a (possibly partial) tree and every error.
pub fn parse(src: &str) -> (File, Vec<Diagnostic>) {
    let (file, diags, _) = parse_with_comments(src);
    (file, diags)
}

/// `parse`, plus the comment spans its lexer saw.
pub fn parse_with_comments(src: &str) -> (File, Vec<Diagnostic>, Vec<Span>) {
    if src.len() > crate::packed::MAX_LEN {
        return (File::default(), vec![crate::packed::too_long(src)], Vec::new());
    }
    let (mut tokens, mut diags, comments) = super::lexer::lex_packed(src);
    let brackets = Brackets::new(tokens.len(), |i| bracket(&tokens.get(src, i)));
    // `thred P1 {` is parsed as `thread P1 {`, reported once.
    let respelt = super::misspelt::respell(src, &mut tokens, &brackets);
    let mut state = Nesting::new(brackets);
    let (ast, errs) = file().parse_with_state(tokens.input(src), &mut state).into_output_errors();
    // A lexical error already has its diagnostic; the parse error it causes is noise.
    let lexed: std::collections::HashSet<Span> = diags.iter().map(|d| d.span).collect();
    let prev = |at: usize| {
        let i = tokens.partition(at);
        (i > 0).then(|| sp(tokens.span(i - 1)))
    };
    diags.extend(errs.iter().map(|e| rich_to_diag(e, prev)).filter(|d| !lexed.contains(&d.span)));
    diags.extend(respelt);
    if let Some(f) = &ast {
        if f.header.is_none() {
            let at = if tokens.len() > 0 { sp(tokens.span(0)) } else { Span::new(0, 0) };
            diags.push(
                Diagnostic::error("E0003", Span::new(at.start, at.start), "missing `litmus NAME` header")
                    .with_label("the file should start with `litmus NAME \"description\"`"),
            );
        }
    }
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    (ast.unwrap_or_default(), diags, comments)
}
