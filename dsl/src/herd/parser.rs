//! Parser of herd7 x86 litmus tests: a hand-written scan of the free-form
//! preamble (`X86 NAME`, doc string, `Key=value` lines), then chumsky over the
//! tokens of the initial state, the thread table and the final condition.

use super::ast::*;
use super::lexer::Tok;
use crate::diagnostic::Diagnostic;
use crate::native::ast::{Ident, IntLit, Quantifier};
use crate::native::parser::{parse_int, rich_to_diag};
use crate::nesting::{
    balanced, bump, deeper, new_item, report, skip_expression, Bracket, Brackets, Nesting, MAX_NESTING, OVER,
};
use crate::span::Span;
use chumsky::input::ValueInput;
use chumsky::prelude::*;

type Extra<'t, 's> = crate::nesting::Extra<'t, Tok<'s>>;
type Inp<'t, 'p, 's, I> = crate::nesting::Inp<'t, 'p, I, Tok<'s>>;

fn sp(s: SimpleSpan) -> Span {
    Span::new(s.start, s.end)
}

/// Architectures herd7 knows; only the x86 ones are supported.
pub const HERD_ARCHS: &[&str] =
    &["X86", "X86_64", "AArch64", "ARM", "PPC", "MIPS", "RISCV", "C", "LISA", "Bell", "BPF", "JAVA", "CPP"];

struct Preamble {
    arch: Arch,
    arch_span: Span,
    name: Ident,
    doc: Option<(String, Span)>,
    meta: Vec<(String, String, Span)>,
    body: usize,
    comments: Vec<Span>,
}

fn preamble(src: &str, diags: &mut Vec<Diagnostic>) -> Option<Preamble> {
    let b = src.as_bytes();
    // A byte-order mark first is no part of the architecture's name.
    let mut i = if src.starts_with('\u{FEFF}') { '\u{FEFF}'.len_utf8() } else { 0 };
    while i < b.len() && (b[i] as char).is_ascii_whitespace() {
        i += 1;
    }
    let a0 = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    let arch_span = Span::new(a0, i);
    let arch = match arch_span.text(src) {
        "X86" => Arch::X86,
        "X86_64" => Arch::X86_64,
        "RISCV" => Arch::RiscV,
        "AArch64" => Arch::AArch64,
        "C" => Arch::C,
        other => {
            diags.push(
                Diagnostic::error("E0101", arch_span, format!("architecture `{other}` is not supported"))
                    .with_label("litmus checks X86, X86_64, AArch64, RISCV and C herd tests")
                    .with_help("write the test for X86/X86_64, AArch64, RISCV or C, or in the native dialect"),
            );
            return None;
        }
    };
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    let n0 = i;
    while i < b.len() && !(b[i] as char).is_ascii_whitespace() {
        i += 1;
    }
    let name = Ident { name: src[n0..i].to_string(), span: Span::new(n0, i) };
    if name.name.is_empty() {
        diags.push(
            Diagnostic::error("E0102", Span::new(n0, n0), "missing test name after the architecture")
                .with_label("expected a name such as `SB` here"),
        );
    }
    // The rest of the first line is ignored, as herd does.
    while i < b.len() && b[i] != b'\n' {
        i += 1;
    }
    let mut doc = None;
    let mut meta = Vec::new();
    let mut comments = Vec::new();
    loop {
        while i < b.len() && (b[i] as char).is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            diags.push(
                Diagnostic::error("E0103", Span::new(src.len(), src.len()), "missing initial state `{ ... }`")
                    .with_label("expected `{` before the end of the file"),
            );
            return None;
        }
        if src[i..].starts_with("(*") {
            match super::lexer::nested_comment_rest(&b[i + 2..]).map(|n| i + 2 + n) {
                Some(end) => {
                    comments.push(Span::new(i, end));
                    i = end
                }
                None => {
                    diags.push(
                        Diagnostic::error("E0001", Span::new(i, i + 2), "unterminated comment")
                            .with_label("this comment is never closed"),
                    );
                    return None;
                }
            }
            continue;
        }
        if b[i] == b'{' {
            break;
        }
        let line_end = src[i..].find('\n').map(|e| i + e).unwrap_or(src.len());
        let line = src[i..line_end].trim_end();
        if b[i] == b'"' {
            if let Some(e) = src[i + 1..line_end].find('"') {
                doc = Some((src[i + 1..i + 1 + e].to_string(), Span::new(i, i + e + 2)));
            } else {
                diags.push(Diagnostic::error("E0104", Span::new(i, line_end), "unterminated string"));
            }
        } else if let Some(eq) = line
            .find('=')
            .filter(|&eq| eq > 0 && line[..eq].chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        {
            meta.push((line[..eq].to_string(), line[eq + 1..].trim().to_string(), Span::new(i, i + line.len())));
        } else {
            diags.push(
                Diagnostic::error("E0105", Span::new(i, i + line.len()), "unexpected text before the initial state")
                    .with_label("expected a `\"doc\"` string, a `Key=value` line or `{`"),
            );
        }
        i = line_end;
    }
    Some(Preamble { arch, arch_span, name, doc, meta, body: i, comments })
}

fn ident<'t, 's: 't, I>() -> impl Parser<'t, I, Ident, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Tok<'s>, Span = SimpleSpan, Cursor = usize>,
{
    select! { Tok::Ident(s) = e => Ident { name: s.to_string(), span: sp(e.span()) } }.labelled("name")
}

/// A thread's number before `:`: `0`, or `P0` as herd also reads it
/// (`P1:EAX = 1`).
fn thread_num<'t, 's: 't, I>() -> impl Parser<'t, I, IntLit, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Tok<'s>, Span = SimpleSpan, Cursor = usize>,
{
    select! {
        Tok::Int(s) = e => IntLit { value: parse_int(s).unwrap_or(-1), span: sp(e.span()) },
        Tok::Ident(s) = e if s.len() > 1 && s.starts_with('P') && s[1..].bytes().all(|b| b.is_ascii_digit()) =>
            IntLit { value: s[1..].parse().unwrap_or(-1), span: sp(e.span()) },
    }
}

fn int_lit<'t, 's: 't, I>() -> impl Parser<'t, I, IntLit, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Tok<'s>, Span = SimpleSpan, Cursor = usize>,
{
    just(Tok::Minus)
        .or_not()
        .then(select! { Tok::Int(s) => s })
        .validate(|(neg, s), e, emitter| {
            let v = parse_int(s).unwrap_or_else(|| {
                emitter.emit(Rich::custom(e.span(), format!("invalid integer literal `{s}`")));
                0
            });
            IntLit { value: if neg.is_some() { v.wrapping_neg() } else { v }, span: sp(e.span()) }
        })
        .labelled("integer")
}

fn bracket(t: &Tok<'_>) -> Bracket {
    match t {
        Tok::LParen => Bracket::Open(0),
        Tok::RParen => Bracket::Close(0),
        Tok::LBracket => Bracket::Open(1),
        Tok::RBracket => Bracket::Close(1),
        Tok::LBrace => Bracket::Open(2),
        Tok::RBrace => Bracket::Close(2),
        _ => Bracket::None,
    }
}

/// Tokens that cannot occur inside a condition: skipping one stops there.
fn ends_condition(t: &Tok<'_>) -> bool {
    use Tok::*;
    matches!(t, RParen | RBracket | LBrace | RBrace | Semi | Bar | Exists | Forall | Locations | Filter)
}

/// A condition and its height (levels of nesting below its root; `OVER`
/// once it crossed the limit).
type Hc = (CExpr, u32);

/// At the nesting limit: report the crossing at the next token and skip the
/// rest of the condition; it becomes `false`.
fn overflow_cond<'t, 's: 't, I>(inp: &mut Inp<'t, '_, 's, I>) -> Option<Hc>
where
    I: ValueInput<'t, Token = Tok<'s>, Span = SimpleSpan, Cursor = usize>,
{
    let (_, first) = crate::nesting::peek(inp)?;
    let span = skip_expression(inp, ends_condition)?;
    report(inp, first);
    Some((CExpr { kind: CExprKind::False, span: sp(span) }, OVER))
}

/// `/\` binds tighter than `\/`, and `\/` than `=>` (herd's implication:
/// `p => q` is `~p \/ q`); all are left-associative. Each operator of
/// a chain nests its left operand one level deeper.
fn climb_cond<'t, 's: 't, I, P>(inp: &mut Inp<'t, '_, 's, I>, operand: &P, min: u8) -> Result<Hc, Rich<'t, Tok<'s>>>
where
    I: ValueInput<'t, Token = Tok<'s>, Span = SimpleSpan, Cursor = usize>,
    P: Parser<'t, I, Hc, Extra<'t, 's>>,
{
    let (mut lhs, mut h) = inp.parse(operand)?;
    loop {
        let (op, prec) = match inp.peek() {
            Some(Tok::And) => (Tok::And, 2),
            Some(Tok::Or) => (Tok::Or, 1),
            Some(Tok::Implies) => (Tok::Implies, 0),
            _ => break,
        };
        if prec < min {
            break;
        }
        let op_span = bump(inp);
        let (rhs, hr) = climb_cond(inp, operand, prec + 1)?;
        let span = lhs.span.join(rhs.span);
        let hn = if h >= OVER || hr >= OVER { OVER } else { h.max(hr) + 1 };
        if hn >= OVER || inp.state().depth + hn > MAX_NESTING {
            if hn < OVER {
                report(inp, op_span);
            }
            (lhs, h) = (CExpr { kind: CExprKind::False, span }, OVER);
        } else {
            let (a, b) = (Box::new(lhs), Box::new(rhs));
            let kind = match op {
                Tok::And => CExprKind::And(a, b),
                Tok::Or => CExprKind::Or(a, b),
                _ => {
                    let not_a = CExpr { span: a.span, kind: CExprKind::Not(a) };
                    CExprKind::Or(Box::new(not_a), b)
                }
            };
            (lhs, h) = (CExpr { kind, span }, hn);
        }
    }
    Ok((lhs, h))
}

fn cond<'t, 's: 't, I>() -> impl Parser<'t, I, CExpr, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Tok<'s>, Span = SimpleSpan, Cursor = usize>,
{
    let thread = thread_num();
    let loc = choice((
        thread.then_ignore(just(Tok::Colon)).then(ident()).map(|(t, r)| CLoc::Reg(t, r)),
        ident().delimited_by(just(Tok::LBracket), just(Tok::RBracket)).map(CLoc::Loc),
        ident().then(int_lit().delimited_by(just(Tok::LBracket), just(Tok::RBracket))).map(|(a, i)| CLoc::Elem(a, i)),
        ident().map(CLoc::Loc),
    ))
    .labelled("location or `T:register`");
    // Code as data (`instr:"B .+4"`) reads as a symbol, refused when lowered.
    let code = ident()
        .then_ignore(just(Tok::Colon))
        .then_ignore(ident().ignored().or(select! { Tok::Str(_) => () }))
        .map_with(|i, e| CVal::Sym(Ident { name: format!("{}:", i.name), span: sp(e.span()) }));
    let array = int_lit()
        .separated_by(just(Tok::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(just(Tok::LBrace), just(Tok::RBrace))
        .map_with(|v, e| CVal::Array(v, sp(e.span())));
    let val = int_lit().map(CVal::Int).or(code).or(array).or(ident().map(CVal::Sym)).labelled("value");
    let op =
        choice((just(Tok::Eq).to(true), just(Tok::EqEq).to(true), just(Tok::Ne).to(false), just(Tok::Ne2).to(false)));
    let atom = loc.then(op).then(val).map(|((l, eq), v)| CExprKind::Eq(l, v, eq));

    let cond = recursive(|cond| {
        let primary = choice((just(Tok::True).to(CExprKind::True), just(Tok::False).to(CExprKind::False), atom))
            .map_with(|kind, e| (CExpr { kind, span: sp(e.span()) }, 0))
            // Parentheses are no node, but a level all the same (of parsing).
            .or(deeper(cond, overflow_cond)
                .delimited_by(just(Tok::LParen), just(Tok::RParen))
                .map(|(c, h): Hc| (c, if h >= OVER { OVER } else { h + 1 })))
            .boxed();
        // `~` is counted on the way down, like the native prefix operators.
        let unary = custom(move |inp: &mut Inp<'t, '_, 's, I>| {
            let base = inp.state().depth;
            let mut nots: Vec<Span> = Vec::new();
            // herd writes negation `~` or `not`.
            while matches!(inp.peek(), Some(Tok::Tilde | Tok::Ident("not"))) {
                let s = bump(inp);
                if base + nots.len() as u32 + 1 > MAX_NESTING {
                    report(inp, s);
                    let end = skip_expression(inp, ends_condition).map_or(s.end, |r| r.end);
                    let start = nots.first().map_or(s.start, |n| n.start);
                    return Ok((CExpr { kind: CExprKind::False, span: Span::new(start, end) }, OVER));
                }
                nots.push(sp(s));
            }
            let k = nots.len() as u32;
            inp.state().depth += k;
            let r = inp.parse(&primary);
            inp.state().depth -= k;
            let (mut c, mut h) = r?;
            if h >= OVER {
                let span = nots.first().map_or(c.span, |n| n.join(c.span));
                return Ok((CExpr { kind: CExprKind::False, span }, OVER));
            }
            for s in nots.into_iter().rev() {
                let span = s.join(c.span);
                c = CExpr { kind: CExprKind::Not(Box::new(c)), span };
                h += 1;
            }
            Ok((c, h))
        })
        .boxed();
        custom(move |inp: &mut Inp<'t, '_, 's, I>| climb_cond(inp, &unary, 0))
    });
    new_item().ignore_then(cond.map(|(c, _)| c))
}

fn operand<'t, 's: 't, I>() -> impl Parser<'t, I, Operand, Extra<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Tok<'s>, Span = SimpleSpan, Cursor = usize>,
{
    let pct_reg = just(Tok::Percent).ignore_then(ident());
    let part_att = pct_reg.clone().map(|name| (name, true)).or(ident().map(|name| (name, false)));
    // AT&T: disp(base, index, scale); any part may be missing.
    let att_inner = part_att
        .clone()
        .or_not()
        .then(
            just(Tok::Comma)
                .ignore_then(part_att.clone().or_not())
                .then(just(Tok::Comma).ignore_then(int_lit()).or_not())
                .or_not(),
        )
        .delimited_by(just(Tok::LParen), just(Tok::RParen));
    let att_mem =
        int_lit().map(|i| (i.value, None)).or(ident().map(|s| (0, Some(s)))).or_not().then(att_inner).map_with(
            |(disp, (base, rest)), e| {
                let mut m = MemRef { span: sp(e.span()), ..MemRef::default() };
                if let Some((d, sym)) = disp {
                    m.disp = d;
                    if let Some(sym) = sym {
                        m.parts.push(MemPart { name: sym, scale: 1, percent: false });
                    }
                }
                if let Some((name, percent)) = base {
                    m.parts.push(MemPart { name, scale: 1, percent });
                }
                if let Some((Some((name, percent)), scale)) = rest {
                    m.parts.push(MemPart { name, scale: scale.map(|s| s.value).unwrap_or(1), percent });
                }
                m
            },
        );
    let seg_mem = pct_reg.clone().then_ignore(just(Tok::Colon)).then(att_mem.clone()).map(|(seg, mut m)| {
        m.span = seg.span.join(m.span);
        m.seg = Some(seg);
        m
    });
    // Intel: [x], [x+EAX], [EAX*4+x+8]
    let intel_terms = {
        let t = choice((
            ident()
                .then(just(Tok::Star).ignore_then(int_lit()).or_not())
                .map(|(n, s)| (Some(n), s.map(|s| s.value).unwrap_or(1), 0i64)),
            int_lit().map(|i| (None, 1i64, i.value)),
        ));
        t.clone()
            .then(just(Tok::Plus).ignore_then(t).repeated().collect::<Vec<_>>())
            .delimited_by(just(Tok::LBracket), just(Tok::RBracket))
            .map_with(|(first, rest), e| {
                let mut m = MemRef { span: sp(e.span()), ..MemRef::default() };
                for (name, scale, disp) in std::iter::once(first).chain(rest) {
                    match name {
                        Some(name) => m.parts.push(MemPart { name, scale, percent: false }),
                        None => m.disp += disp,
                    }
                }
                m
            })
    };
    // AArch64: [X1], [X1,X2], [X4,W2,SXTW], [X1,#8], [X1,X2,LSL #3]:
    // the base, then an index and its extension, or an offset.
    let arm_item = choice((
        just(Tok::Hash).ignore_then(int_lit()).map(|i| (None, i.value)),
        ident().then(just(Tok::Hash).ignore_then(int_lit()).or_not()).map(|(n, s)| (Some(n), s.map_or(0, |s| s.value))),
    ));
    let arm_mem = ident()
        .then(just(Tok::Comma).ignore_then(arm_item).repeated().at_least(1).collect::<Vec<_>>())
        .delimited_by(just(Tok::LBracket), just(Tok::RBracket))
        .then(just(Tok::Bang).or_not())
        .map_with(|((base, rest), bang), e| {
            let mut m = MemRef { span: sp(e.span()), pre_index: bang.is_some(), ..MemRef::default() };
            m.parts.push(MemPart { name: base, scale: 1, percent: false });
            for (name, k) in rest {
                match name {
                    // An extension or shift (`SXTW`, `LSL #3`): its amount as the scale.
                    Some(name) => m.parts.push(MemPart { name, scale: k, percent: false }),
                    None => m.disp += k,
                }
            }
            m
        });
    choice((
        just(Tok::Hash).ignore_then(int_lit()).map(Operand::Imm),
        arm_mem.map(Operand::Mem),
        seg_mem.map(Operand::Mem),
        att_mem.map(Operand::Mem),
        intel_terms.map(Operand::Mem),
        just(Tok::Dollar).ignore_then(int_lit()).map(Operand::Imm),
        just(Tok::Dollar).ignore_then(ident()).map(Operand::ImmSym),
        pct_reg.map(|r| Operand::Reg(r, true)),
        int_lit().map(Operand::Imm),
        ident().map(|r| Operand::Reg(r, false)),
    ))
    .labelled("operand")
}

fn body<'t, 's: 't, I>() -> impl Parser<'t, I, HerdFile, Extra<'t, 's>>
where
    I: ValueInput<'t, Token = Tok<'s>, Span = SimpleSpan, Cursor = usize>,
{
    let thread_idx = thread_num();
    let target = choice((
        thread_idx.then_ignore(just(Tok::Colon)).then(ident()).map(|(t, r)| InitTarget::Reg(t, r)),
        ident().delimited_by(just(Tok::LBracket), just(Tok::RBracket)).map(InitTarget::Loc),
        ident()
            .then(int_lit().delimited_by(just(Tok::LBracket), just(Tok::RBracket)))
            .map(|(a, n)| InitTarget::Array(a, n)),
        ident().map(InitTarget::Loc),
    ));
    let value = choice((
        int_lit().map(InitValue::Int),
        ident()
            .then(just(Tok::Colon))
            .then(ident().ignored().or(select! { Tok::Str(_) => () }))
            .map_with(|_, e| InitValue::Code(sp(e.span()))),
        just(Tok::Dollar).or(just(Tok::Amp)).or_not().ignore_then(ident()).map(InitValue::Addr),
        int_lit()
            .separated_by(just(Tok::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(just(Tok::LBrace), just(Tok::RBrace))
            .map_with(|v, e| InitValue::Array(v, sp(e.span()))),
    ));
    // A C-style type, a pointer's too (`int *p = &z`, `int *1:a0`).
    let item = ident()
        .then_ignore(just(Tok::Star).or_not())
        .then(target.clone())
        .map(|(ty, t)| (Some(ty), t))
        .or(target.map(|t| (None, t)))
        .then(just(Tok::Eq).ignore_then(value).or_not())
        .map_with(|((ty, target), value), e| InitItem { ty, target, value, span: sp(e.span()) });
    let init = item
        .separated_by(just(Tok::Semi).repeated().at_least(1))
        .allow_leading()
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(Tok::LBrace), just(Tok::RBrace))
        .recover_with(via_parser(balanced(Tok::LBrace, |_| Vec::new())))
        // herd's splitter takes a `;` after the block (`{x = 0};`).
        .then_ignore(just(Tok::Semi).or_not())
        .labelled("initial state");

    let header_row = ident()
        .separated_by(just(Tok::Bar))
        .at_least(1)
        .collect::<Vec<_>>()
        .then_ignore(just(Tok::Semi))
        .labelled("thread names (`P0 | P1 ;`)");

    let prefix = select! { Tok::Ident(s) = e if s.eq_ignore_ascii_case("lock") || s.eq_ignore_ascii_case("rep") =>
    Ident { name: s.to_string(), span: sp(e.span()) } };
    let instr = prefix
        .or_not()
        .then(ident())
        .then(operand().separated_by(just(Tok::Comma)).collect::<Vec<_>>())
        .map_with(|((prefix, mnemonic), operands), e| Instr { prefix, mnemonic, operands, span: sp(e.span()) });
    let cell = ident().then_ignore(just(Tok::Colon)).or_not().then(instr.or_not()).map_with(|(label, instr), e| Cell {
        label,
        instr,
        span: sp(e.span()),
    });
    // `final` and a bare `(…)` are herd's `exists` too.
    let trailer_start =
        [Tok::Exists, Tok::Forall, Tok::Tilde, Tok::Locations, Tok::Filter, Tok::Ident("final"), Tok::LParen];
    let row = one_of(trailer_start)
        .not()
        .ignore_then(cell.separated_by(just(Tok::Bar)).at_least(1).collect::<Vec<_>>())
        .then_ignore(just(Tok::Semi))
        .map_with(|cells, e| (cells, sp(e.span())))
        .recover_with(via_parser(
            one_of(trailer_start)
                .not()
                .ignore_then(none_of([Tok::Semi]).and_is(one_of(trailer_start).not()).repeated().at_least(1))
                .then(just(Tok::Semi))
                .map_with(|_, e| (Vec::new(), sp(e.span()))),
        ));

    let locations = just(Tok::Locations).ignore_then(
        choice((
            thread_num().then_ignore(just(Tok::Colon)).then(ident()).map(|(t, r)| CLoc::Reg(t, r)),
            ident().delimited_by(just(Tok::LBracket), just(Tok::RBracket)).map(CLoc::Loc),
            ident().map(CLoc::Loc),
        ))
        .separated_by(just(Tok::Semi))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(Tok::LBracket), just(Tok::RBracket)),
    );
    let filter = just(Tok::Filter).ignore_then(cond());
    let quant = choice((
        just(Tok::Exists).to(Quantifier::Exists),
        just(Tok::Tilde).then(just(Tok::Exists)).to(Quantifier::NotExists),
        just(Tok::Forall).to(Quantifier::Forall),
        just(Tok::Ident("final")).to(Quantifier::Exists),
        empty().and_is(just(Tok::LParen).rewind()).to(Quantifier::Exists),
    ));
    let final_ = quant.then(cond()).map_with(|(quantifier, cond), e| HFinal { quantifier, cond, span: sp(e.span()) });

    init.then(header_row.then(row.repeated().collect::<Vec<_>>()).map_with(|x, e| (x, sp(e.span()))))
        .then(locations.or_not())
        .then(filter.or_not())
        .then(final_.or_not())
        .then_ignore(just(Tok::Semi).or_not())
        // herd's old `with tso: ~exists; cc: exists;`: the verdicts some
        // models were expected to give, read and set aside as herd7 does.
        .then_ignore(
            just(Tok::Ident("with"))
                .then(
                    ident()
                        .then(just(Tok::Colon))
                        .then(quant)
                        .separated_by(just(Tok::Semi))
                        .allow_trailing()
                        .at_least(1),
                )
                .or_not(),
        )
        .then_ignore(end())
        .validate(|((((init, ((threads, rows), table_span)), locations), filter), final_), _, emitter| {
            let mut code: Vec<Vec<Cell>> = vec![Vec::new(); threads.len()];
            for (cells, row_span) in rows {
                if cells.is_empty() {
                    continue; // a broken row, already reported
                }
                if cells.len() > threads.len() {
                    emitter.emit(Rich::custom(
                        SimpleSpan::from(row_span.start..row_span.end),
                        format!(
                            "this row has {} columns but the table has {} thread{}",
                            cells.len(),
                            threads.len(),
                            if threads.len() == 1 { "" } else { "s" }
                        ),
                    ));
                }
                for (t, c) in cells.into_iter().enumerate().take(threads.len()) {
                    code[t].push(c);
                }
            }
            HerdFile {
                arch: Arch::X86,
                arch_span: Span::default(),
                name: Ident { name: String::new(), span: Span::default() },
                doc: None,
                meta: Vec::new(),
                init,
                threads,
                code,
                c_threads: Vec::new(),
                locations: locations.unwrap_or_default(),
                filter,
                final_,
                table_span,
            }
        })
}

/// Parse a herd x86 test. `None` only when the preamble is unusable.
pub fn parse(src: &str) -> (Option<HerdFile>, Vec<Diagnostic>) {
    let (file, diags, _) = parse_with_comments(src);
    (file, diags)
}

/// `parse`, plus the comment spans (`(* *)`, in the preamble and after it).
pub fn parse_with_comments(src: &str) -> (Option<HerdFile>, Vec<Diagnostic>, Vec<Span>) {
    let mut diags = Vec::new();
    let Some(pre) = preamble(src, &mut diags) else {
        return (None, diags, Vec::new());
    };
    if src.len() > crate::packed::MAX_LEN {
        return (None, vec![crate::packed::too_long(src)], Vec::new());
    }
    if pre.arch == Arch::C {
        let (parsed, mut c_diags, body_comments) = super::c::parse(src, pre.body);
        diags.append(&mut c_diags);
        let mut comments = pre.comments;
        comments.extend(body_comments);
        let file = parsed.map(|p| HerdFile {
            arch: Arch::C,
            arch_span: pre.arch_span,
            name: pre.name,
            doc: pre.doc,
            meta: pre.meta,
            init: p.init,
            threads: p.threads.iter().map(|t| t.name.clone()).collect(),
            code: vec![Vec::new(); p.threads.len()],
            table_span: p.threads.first().map_or(Span::default(), |f| f.span.join(p.threads.last().expect("one").span)),
            c_threads: p.threads,
            locations: p.locations,
            filter: p.filter,
            final_: p.final_,
        });
        return (file, diags, comments);
    }
    let (tokens, lex_diags, body_comments) = super::lexer::lex_packed(src, pre.body);
    diags.extend(lex_diags);
    let mut comments = pre.comments;
    comments.extend(body_comments);
    let mut state = Nesting::new(Brackets::new(tokens.len(), |i| bracket(&tokens.get(src, i))));
    let (file, errs) = body().parse_with_state(tokens.input(src), &mut state).into_output_errors();
    let lexed: std::collections::HashSet<Span> = diags.iter().map(|d| d.span).collect();
    let prev = |at: usize| {
        let i = tokens.partition(at);
        (i > 0).then(|| sp(tokens.span(i - 1)))
    };
    diags.extend(errs.iter().map(|e| rich_to_diag(e, prev)).filter(|d| !lexed.contains(&d.span)));
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    let file = file.map(|mut f| {
        f.arch = pre.arch;
        f.arch_span = pre.arch_span;
        f.name = pre.name;
        f.doc = pre.doc;
        f.meta = pre.meta;
        f
    });
    (file, diags, comments)
}
