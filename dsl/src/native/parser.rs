//! Parser of the native dialect (chumsky), with error recovery: a broken
//! statement becomes `StmtKind::Error` and parsing goes on after its `;`.

use super::ast::*;
use super::lexer::Token;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use chumsky::input::{Input as _, ValueInput};
use chumsky::prelude::*;

type Extra<'t, 's> = extra::Err<Rich<'t, Token<'s>, SimpleSpan>>;

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
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    select! { Token::Ident(s) = e => Ident { name: s.to_string(), span: sp(e.span()) } }.labelled("identifier")
}

fn int_lit<'t, 's: 't, I>() -> impl Parser<'t, I, IntLit, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
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

fn expr<'t, 's: 't, I>() -> impl Parser<'t, I, Expr, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    recursive(|expr| {
        let lvalue = ident()
            .then(expr.clone().delimited_by(just(Token::LBracket), just(Token::RBracket)).or_not())
            .map_with(|(name, index), e| LValue { name, index: index.map(Box::new), span: sp(e.span()) })
            .labelled("location");

        let args = expr
            .clone()
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(just(Token::LParen), just(Token::RParen));

        let int = select! { Token::Int(s) => s }.validate(|s, e, emitter| match parse_int(s) {
            Some(v) => ExprKind::Int(v),
            None => {
                emitter.emit(Rich::custom(e.span(), format!("invalid integer literal `{s}`")));
                ExprKind::Error
            }
        });

        let cas = just(Token::Cas)
            .ignore_then(
                lvalue
                    .clone()
                    .then_ignore(just(Token::Comma))
                    .then(expr.clone())
                    .then_ignore(just(Token::Comma))
                    .then(expr.clone())
                    .delimited_by(just(Token::LParen), just(Token::RParen)),
            )
            .map(|((l, a), b)| ExprKind::Cas(l, Box::new(a), Box::new(b)));
        let rmw2 = |tok: Token<'s>, f: fn(LValue, Box<Expr>) -> ExprKind| {
            just(tok)
                .ignore_then(
                    lvalue
                        .clone()
                        .then_ignore(just(Token::Comma))
                        .then(expr.clone())
                        .delimited_by(just(Token::LParen), just(Token::RParen)),
                )
                .map(move |(l, a)| f(l, Box::new(a)))
        };
        let xchg = rmw2(Token::Xchg, ExprKind::Xchg);
        let fetch_add = rmw2(Token::FetchAdd, ExprKind::FetchAdd);

        let thread_name =
            ident().or(select! { Token::Int(s) = e => Ident { name: s.to_string(), span: sp(e.span()) } });
        let thread_reg =
            thread_name.then_ignore(just(Token::Colon)).then(ident()).map(|(t, r)| ExprKind::ThreadReg(t, r));

        let name_based = ident()
            .then(
                args.clone()
                    .map(Some)
                    .map(|a| (Some(a), None))
                    .or(expr
                        .clone()
                        .delimited_by(just(Token::LBracket), just(Token::RBracket))
                        .map(|i| (None, Some(i))))
                    .or_not(),
            )
            .map(|(name, rest)| match rest {
                Some((Some(Some(args)), _)) => ExprKind::Call(name, args),
                Some((_, Some(index))) => ExprKind::Index(name, Box::new(index)),
                _ => ExprKind::Var(name),
            });

        let atom = choice((
            thread_reg,
            int,
            just(Token::True).to(ExprKind::Bool(true)),
            just(Token::False).to(ExprKind::Bool(false)),
            cas,
            xchg,
            fetch_add,
            name_based,
        ))
        .map_with(|kind, e| Expr { kind, span: sp(e.span()) })
        .or(expr.clone().delimited_by(just(Token::LParen), just(Token::RParen)))
        .recover_with(via_parser(nested_delimiters(
            Token::LParen,
            Token::RParen,
            [(Token::LBracket, Token::RBracket), (Token::LBrace, Token::RBrace)],
            |span| Expr { kind: ExprKind::Error, span: sp(span) },
        )))
        .labelled("expression")
        .boxed();

        let unary = choice((just(Token::Bang).to(UnOp::Not), just(Token::Minus).to(UnOp::Neg)))
            .map_with(|op, e| (op, sp(e.span())))
            .repeated()
            .foldr_with(atom, |(op, op_span), a, e| {
                let span = op_span.join(a.span);
                let _ = e;
                Expr { kind: ExprKind::Unary(op, Box::new(a)), span }
            })
            .boxed();

        let bin = |prev: chumsky::Boxed<'t, 't, I, Expr, Extra<'t, 's>>, ops: Vec<(Token<'s>, BinOp)>| {
            let op = choice(ops.into_iter().map(|(t, o)| just(t).to(o)).collect::<Vec<_>>());
            prev.clone()
                .foldl_with(op.then(prev).repeated(), |a, (op, b), _| {
                    let span = a.span.join(b.span);
                    Expr { kind: ExprKind::Binary(op, Box::new(a), Box::new(b)), span }
                })
                .boxed()
        };
        let product =
            bin(unary, vec![(Token::Star, BinOp::Mul), (Token::Slash, BinOp::Div), (Token::Percent, BinOp::Rem)]);
        let sum = bin(product, vec![(Token::Plus, BinOp::Add), (Token::Minus, BinOp::Sub)]);
        let cmp = bin(
            sum,
            vec![(Token::Le, BinOp::Le), (Token::Lt, BinOp::Lt), (Token::Ge, BinOp::Ge), (Token::Gt, BinOp::Gt)],
        );
        let eq = bin(cmp, vec![(Token::EqEq, BinOp::Eq), (Token::NotEq, BinOp::Ne)]);
        let and = bin(eq, vec![(Token::AndAnd, BinOp::And)]);
        bin(and, vec![(Token::OrOr, BinOp::Or)])
    })
}

/// Tokens that can only start a top-level item: statement recovery stops there.
fn item_start<'s>() -> [Token<'s>; 6] {
    [Token::Thread, Token::Fn, Token::Shared, Token::Exists, Token::Forall, Token::Litmus]
}

fn block<'t, 's: 't, I>() -> impl Parser<'t, I, Block, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    recursive(|block| {
        let expr = expr();
        let semi = just(Token::Semi).labelled("`;`");
        let paren_expr = expr.clone();

        let let_ = just(Token::Let)
            .ignore_then(ident())
            .then_ignore(just(Token::Assign))
            .then(expr.clone())
            .then_ignore(semi)
            .map(|(name, value)| StmtKind::Let { name, value });

        let lvalue = ident()
            .then(expr.clone().delimited_by(just(Token::LBracket), just(Token::RBracket)).or_not())
            .map_with(|(name, index), e| LValue { name, index: index.map(Box::new), span: sp(e.span()) });
        let assign = lvalue
            .then_ignore(just(Token::Assign))
            .then(expr.clone())
            .then_ignore(semi)
            .map(|(target, value)| StmtKind::Assign { target, value });

        let if_ = recursive(|if_| {
            just(Token::If)
                .ignore_then(paren_expr.clone())
                .then(block.clone())
                .then(just(Token::Else).ignore_then(block.clone().map(Else::Block).or(if_.map(Else::If))).or_not())
                .map_with(|((cond, then), els), e| Stmt {
                    kind: StmtKind::If { cond, then, els: els.map(Box::new) },
                    span: sp(e.span()),
                })
        });

        let while_ = just(Token::While)
            .ignore_then(paren_expr.clone())
            .then(block.clone())
            .map(|(cond, body)| StmtKind::While { cond, body });

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
                        other => {
                            emitter.emit(Rich::custom(
                                span,
                                format!("unknown fence kind `{other}`: expected `ww`, `wr`, `rr` or `full`"),
                            ));
                            FenceKind::Full
                        }
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

        // Recovery: skip to the end of the statement (balanced brackets), never
        // past a `}` or a token that starts a new item.
        let mut stop = vec![Token::Semi, Token::RBrace, Token::LBrace, Token::LParen, Token::RParen];
        stop.extend(item_start());
        let skip = choice((
            nested_delimiters(
                Token::LBrace,
                Token::RBrace,
                [(Token::LParen, Token::RParen), (Token::LBracket, Token::RBracket)],
                |_| (),
            ),
            nested_delimiters(
                Token::LParen,
                Token::RParen,
                [(Token::LBracket, Token::RBracket), (Token::LBrace, Token::RBrace)],
                |_| (),
            ),
            none_of(stop).ignored(),
        ));
        // The first token is skipped whatever it is; after it, a keyword that
        // starts a statement ends the broken one (a missing `;` loses one line).
        let stmt_start = [
            Token::Let,
            Token::If,
            Token::While,
            Token::Await,
            Token::Assert,
            Token::Assume,
            Token::Fence,
            Token::Lock,
            Token::Unlock,
            Token::Return,
        ];
        let mut first_stop = vec![Token::Semi, Token::RBrace];
        first_stop.extend(item_start());
        let first = skip.clone().or(none_of(first_stop).ignored());
        let rest = skip.and_is(one_of(stmt_start).not());
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
        stmt.repeated()
            .collect::<Vec<_>>()
            .delimited_by(just(Token::LBrace), close)
            .map_with(|stmts, e| Block { stmts, span: sp(e.span()) })
            .recover_with(via_parser(nested_delimiters(
                Token::LBrace,
                Token::RBrace,
                [(Token::LParen, Token::RParen), (Token::LBracket, Token::RBracket)],
                |span| Block { stmts: Vec::new(), span: sp(span) },
            )))
            .labelled("block")
            .boxed()
    })
}

fn file<'t, 's: 't, I>() -> impl Parser<'t, I, File, Extra<'t, 's>>
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
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
        .ignore_then(var_decl.separated_by(just(Token::Comma)).at_least(1).collect::<Vec<_>>())
        .then_ignore(just(Token::Semi))
        .map_with(|vars, e| Item::Shared(SharedDecl { vars, span: sp(e.span()) }));

    let fn_ = just(Token::Fn)
        .ignore_then(ident())
        .then(
            ident()
                .separated_by(just(Token::Comma))
                .allow_trailing()
                .collect::<Vec<_>>()
                .delimited_by(just(Token::LParen), just(Token::RParen)),
        )
        .then(block())
        .map_with(|((name, params), body), e| Item::Fn(FnDef { name, params, body, span: sp(e.span()) }));

    let thread = just(Token::Thread)
        .ignore_then(ident())
        .then(block())
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

    let item = choice((shared, fn_, thread, final_))
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
            let d = Diagnostic::error("E0002", span, format!("expected {expected_s}, found {found_s}"))
                .with_label(format!("unexpected {found_s}"));
            match prev_token(span.start) {
                Some(prev) if exp.len() == 1 && (exp[0] == "`;`" || exp[0] == "`}`" || exp[0] == "`)`") => {
                    d.with_related(Span::new(prev.end, prev.end), format!("{} expected after this", exp[0]))
                }
                _ => d,
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
    let (tokens, mut diags, comments) = super::lexer::lex_with_comments(src);
    let tokens: Vec<(Token<'_>, SimpleSpan)> =
        tokens.into_iter().map(|(t, s)| (t, SimpleSpan::from(s.start..s.end))).collect();
    let eoi = SimpleSpan::from(src.len()..src.len());
    let (ast, errs) = file().parse(tokens.as_slice().map(eoi, |(t, s)| (t, s))).into_output_errors();
    // A lexical error already has its diagnostic; the parse error it causes is noise.
    let lexed: Vec<Span> = diags.iter().map(|d| d.span).collect();
    let prev = |at: usize| {
        let i = tokens.partition_point(|t| t.1.end <= at);
        (i > 0).then(|| sp(tokens[i - 1].1))
    };
    diags.extend(errs.iter().map(|e| rich_to_diag(e, prev)).filter(|d| !lexed.contains(&d.span)));
    if let Some(f) = &ast {
        if f.header.is_none() {
            let at = tokens.first().map(|t| sp(t.1)).unwrap_or(Span::new(0, 0));
            diags.push(
                Diagnostic::error("E0003", Span::new(at.start, at.start), "missing `litmus NAME` header")
                    .with_label("the file should start with `litmus NAME \"description\"`"),
            );
        }
    }
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    (ast.unwrap_or_default(), diags, comments)
}
