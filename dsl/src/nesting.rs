//! The nesting limit both parsers enforce, and the bracket-aware skipping
//! their error recovery shares.
//!
//! Every stage after parsing (semantic analysis, lowering, the checker's
//! condition evaluation, and `Drop`/`Clone`/`Debug` of the trees) recurses
//! once per level of nesting. The parsers therefore refuse trees deeper than
//! [`MAX_NESTING`] levels: the construct that crosses the limit becomes an
//! error node with diagnostic `E0010`, its tokens are skipped without
//! recursion, and parsing goes on after it. The parsers themselves grow their
//! stack on the heap when it runs low (chumsky's frames are large in debug
//! builds), so they never overflow below the limit either.
//!
//! What counts as one level: a block (`{ }` of a thread, function, `if`,
//! `else` or `while`), an `else if`, a parenthesised expression, the inside
//! of `[ ]` or of an argument list, a unary operator, and each binary
//! operator of a chain (`a + b + c` is `(a + b) + c`: `a` is two levels
//! below the top). Herd conditions count parentheses, `~`, `/\` and `\/`.
//! Semantic analysis adds the nesting of inlined calls (see `sema`).

use chumsky::error::{LabelError, Rich, RichPattern};
use chumsky::extra;
use chumsky::input::{Cursor, Input, InputRef, ValueInput};
use chumsky::inspector::Inspector;
use chumsky::span::SimpleSpan;
use chumsky::util::MaybeRef;

/// The deepest nesting the parsers accept. At 256 levels analysis,
/// lowering and rendering need at most about 0.86 MiB of stack in a debug
/// build (nested `if` blocks; deep expressions about 0.7 MiB, calls inlined
/// in a chain 0.8 MiB; measured), so a 2 MiB thread keeps room for its
/// caller. Real tests nest a handful of levels.
pub const MAX_NESTING: u32 = 256;

/// The diagnostic code of a nesting-limit error.
pub const NESTING_CODE: &str = "E0010";

pub(crate) fn nesting_message() -> String {
    format!("nesting deeper than {MAX_NESTING} levels")
}

/// The height of a subtree that crossed the limit: every tree containing it
/// is replaced by one error node, without a second report.
pub(crate) const OVER: u32 = u32::MAX / 2;

/// When less than this much stack is left, a nesting parser continues on a
/// fresh heap-allocated segment. One level of the native grammar takes up to
/// 61 KiB of stack in a debug build (measured), release about 6 KiB.
const RED_ZONE: usize = 256 * 1024;
const SEGMENT: usize = 4 * 1024 * 1024;

pub(crate) fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// A token's part in bracket structure: `Open(k)` / `Close(k)` for bracket
/// kind `k`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Bracket {
    Open(u8),
    Close(u8),
    None,
}

/// For every opening bracket, the closing one that matches it, computed once
/// in linear time so recovery never rescans (or recurses into) a nested
/// region. A group is well formed when every bracket inside it is matched by
/// one of the same kind, as chumsky's `nested_delimiters` requires.
#[derive(Debug, Default)]
pub(crate) struct Brackets {
    /// By token index: the index of the matching closer, or `UNMATCHED`.
    close: Vec<u32>,
}

const UNMATCHED: u32 = u32::MAX;

impl Brackets {
    /// Over `n` tokens of the given kinds.
    pub(crate) fn new(n: usize, kind: impl Fn(usize) -> Bracket) -> Self {
        let mut close = vec![UNMATCHED; n];
        let mut stack: Vec<(u8, u32)> = Vec::new();
        for i in 0..n {
            match kind(i) {
                Bracket::Open(k) => stack.push((k, i as u32)),
                Bracket::Close(k) => match stack.last() {
                    Some(&(top, open)) if top == k => {
                        close[open as usize] = i as u32;
                        stack.pop();
                    }
                    // A stray closer: no group still open around it is well formed.
                    _ => stack.clear(),
                },
                Bracket::None => {}
            }
        }
        Brackets { close }
    }

    /// The number of tokens of the well-formed group opened by token `i`,
    /// closer included.
    pub(crate) fn group_len(&self, i: usize) -> Option<usize> {
        let c = *self.close.get(i)?;
        (c != UNMATCHED).then(|| c as usize - i + 1)
    }
}

/// Parser state: the current nesting depth, whether the limit was already
/// reported in the current item, and the bracket table.
#[derive(Debug, Default)]
pub(crate) struct Nesting {
    pub(crate) depth: u32,
    reported: bool,
    brackets: Brackets,
}

impl Nesting {
    pub(crate) fn new(brackets: Brackets) -> Self {
        Nesting { depth: 0, reported: false, brackets }
    }
}

// Depth changes are always undone by the parser that made them, on success
// and on failure alike; `reported` goes back with the errors a rewind drops.
impl<'src, I: Input<'src>> Inspector<'src, I> for Nesting {
    type Checkpoint = bool;
    fn on_token(&mut self, _: &I::Token) {}
    fn on_save<'parse>(&self, _: &Cursor<'src, 'parse, I>) -> Self::Checkpoint {
        self.reported
    }
    fn on_rewind<'parse>(&mut self, cp: &chumsky::input::Checkpoint<'src, 'parse, I, Self::Checkpoint>) {
        self.reported = *cp.inspector();
    }
}

/// Parses nothing; the next crossing of the limit is reported again. Each
/// item (thread, function, condition) reports at most one: the first place
/// its nesting crosses the limit; what is deeper is skipped anyway.
pub(crate) fn new_item<'t, I, T>() -> impl chumsky::Parser<'t, I, (), Extra<'t, T>> + Clone
where
    I: ValueInput<'t, Token = T, Span = SimpleSpan, Cursor = usize>,
    T: Clone + PartialEq + 't,
{
    chumsky::primitive::custom(|inp: &mut Inp<'t, '_, I, T>| {
        inp.state().reported = false;
        Ok(())
    })
}

pub(crate) type Extra<'t, T> = extra::Full<Rich<'t, T, SimpleSpan>, Nesting, ()>;
pub(crate) type Inp<'t, 'p, I, T> = InputRef<'t, 'p, I, Extra<'t, T>>;

/// The next token and its span, without consuming it.
pub(crate) fn peek<'t, 'p, I, T>(inp: &mut Inp<'t, 'p, I, T>) -> Option<(T, SimpleSpan)>
where
    I: ValueInput<'t, Token = T, Span = SimpleSpan, Cursor = usize>,
    T: Clone + PartialEq + 't,
{
    let save = inp.save();
    let before = inp.cursor();
    let t = inp.next();
    let span = inp.span_since(&before);
    inp.rewind(save);
    t.map(|t| (t, span))
}

/// Consume the next token; its span.
pub(crate) fn bump<'t, 'p, I, T>(inp: &mut Inp<'t, 'p, I, T>) -> SimpleSpan
where
    I: ValueInput<'t, Token = T, Span = SimpleSpan, Cursor = usize>,
    T: Clone + PartialEq + 't,
{
    let before = inp.cursor();
    inp.skip();
    inp.span_since(&before)
}

/// If the next token opens a well-formed group, consume the whole group and
/// return its span.
pub(crate) fn skip_group<'t, 'p, I, T>(inp: &mut Inp<'t, 'p, I, T>) -> Option<SimpleSpan>
where
    I: ValueInput<'t, Token = T, Span = SimpleSpan, Cursor = usize>,
    T: Clone + PartialEq + 't,
{
    let before = inp.cursor();
    let n = inp.state().brackets.group_len(*before.inner())?;
    for _ in 0..n {
        inp.skip();
    }
    Some(inp.span_since(&before))
}

/// A failure at the next token that expects nothing in particular, so it
/// merges into other errors at the same place without changing them.
pub(crate) fn mismatch<'t, 'p, I, T>(inp: &mut Inp<'t, 'p, I, T>) -> Rich<'t, T, SimpleSpan>
where
    I: ValueInput<'t, Token = T, Span = SimpleSpan, Cursor = usize>,
    T: Clone + PartialEq + 't,
{
    let (found, span) = match peek(inp) {
        Some((t, s)) => (Some(MaybeRef::Val(t)), s),
        None => {
            let here = inp.cursor();
            (None, inp.span_since(&here))
        }
    };
    <Rich<'t, T, SimpleSpan> as LabelError<'t, I, RichPattern<'t, T>>>::expected_found(std::iter::empty(), found, span)
}

/// A recovery parser: a well-formed group opened by `open`, skipped whole
/// without recursion.
pub(crate) fn balanced<'t, I, T, O, F>(open: T, fallback: F) -> impl chumsky::Parser<'t, I, O, Extra<'t, T>> + Clone
where
    I: ValueInput<'t, Token = T, Span = SimpleSpan, Cursor = usize>,
    T: Clone + PartialEq + 't,
    F: Fn(SimpleSpan) -> O + Clone,
{
    chumsky::primitive::custom(move |inp: &mut Inp<'t, '_, I, T>| {
        if peek(inp).is_some_and(|(t, _)| t == open) {
            if let Some(span) = skip_group(inp) {
                return Ok(fallback(span));
            }
        }
        Err(mismatch(inp))
    })
}

/// Report the nesting limit crossed at `span`, unless the item already did.
pub(crate) fn report<'t, 'p, I, T>(inp: &mut Inp<'t, 'p, I, T>, span: SimpleSpan)
where
    I: ValueInput<'t, Token = T, Span = SimpleSpan, Cursor = usize>,
    T: Clone + PartialEq + 't,
{
    if !inp.state().reported {
        inp.state().reported = true;
        inp.emit(Rich::custom(span, nesting_message()));
    }
}

/// Consume the rest of an expression at the current level, without
/// recursion: every token up to (not including) one for which `ends` holds,
/// skipping well-formed bracket groups whole (an unmatched opener is one
/// token). The span consumed, if any.
pub(crate) fn skip_expression<'t, 'p, I, T>(
    inp: &mut Inp<'t, 'p, I, T>,
    ends: impl Fn(&T) -> bool,
) -> Option<SimpleSpan>
where
    I: ValueInput<'t, Token = T, Span = SimpleSpan, Cursor = usize>,
    T: Clone + PartialEq + 't,
{
    let before = inp.cursor();
    let mut any = false;
    while let Some((t, _)) = peek(inp) {
        if ends(&t) {
            break;
        }
        if skip_group(inp).is_none() {
            inp.skip();
        }
        any = true;
    }
    any.then(|| inp.span_since(&before))
}

/// A parser one nesting level deeper than its context. At the limit, if
/// `overflow` can skip what follows (it reports the crossing, consumes the
/// construct without recursion and returns a stand-in), its result is used;
/// otherwise `p` runs, on a grown stack if needed.
pub(crate) fn deeper<'t, I, T, O, P, F>(p: P, overflow: F) -> impl chumsky::Parser<'t, I, O, Extra<'t, T>> + Clone
where
    I: ValueInput<'t, Token = T, Span = SimpleSpan, Cursor = usize>,
    T: Clone + PartialEq + 't,
    P: chumsky::Parser<'t, I, O, Extra<'t, T>> + Clone,
    F: Fn(&mut Inp<'t, '_, I, T>) -> Option<O> + Clone,
{
    chumsky::primitive::custom(move |inp: &mut Inp<'t, '_, I, T>| {
        if inp.state().depth >= MAX_NESTING {
            if let Some(out) = overflow(inp) {
                return Ok(out);
            }
        }
        inp.state().depth += 1;
        let r = grow(|| inp.parse(&p));
        inp.state().depth -= 1;
        r
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(c: &char) -> Bracket {
        match c {
            '(' => Bracket::Open(0),
            ')' => Bracket::Close(0),
            '[' => Bracket::Open(1),
            ']' => Bracket::Close(1),
            _ => Bracket::None,
        }
    }

    fn table(s: &str) -> Brackets {
        let toks: Vec<char> = s.chars().collect();
        Brackets::new(toks.len(), |i| kind(&toks[i]))
    }

    #[test]
    fn groups_match_like_nested_delimiters() {
        let b = table("(a[b]c)(");
        assert_eq!(b.group_len(0), Some(7));
        assert_eq!(b.group_len(2), Some(3));
        assert_eq!(b.group_len(7), None);
        // A stray closer spoils every group open around it.
        let b = table("((]))");
        assert_eq!(b.group_len(0), None);
        assert_eq!(b.group_len(1), None);
        let b = table("([)]");
        assert_eq!(b.group_len(0), None);
        assert_eq!(b.group_len(1), None);
    }
}
