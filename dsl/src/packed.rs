//! Compact token storage for the parsers: 12 bytes a token (kind and byte
//! range) instead of 40 for a `(Token, span)` pair, the token itself rebuilt
//! from its kind and text when the parser reads it. A 2 MB file of brackets
//! is 2 million tokens, so this is most of the parser's memory.

use chumsky::input::{ExactSizeInput, Input, ValueInput};
use chumsky::span::SimpleSpan;
use std::marker::PhantomData;
use std::ops::{Range, RangeFrom};

/// A token type whose payload, if any, is its own source text.
pub(crate) trait Packable<'s>: Sized {
    fn kind(&self) -> u8;
    fn unpack(kind: u8, text: &'s str) -> Self;
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Packed {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) kind: u8,
}

/// The largest text whose offsets fit the packed form.
pub(crate) const MAX_LEN: usize = u32::MAX as usize;

/// The one diagnostic for a text too long to parse.
pub(crate) fn too_long(src: &str) -> crate::Diagnostic {
    crate::Diagnostic::error("E0001", crate::Span::new(0, 0), format!("the text is too long ({} bytes)", src.len()))
        .with_help(format!("litmus reads files of at most {MAX_LEN} bytes"))
}

/// Tokens in packed form over their source text.
#[derive(Debug, Default)]
pub(crate) struct Tokens {
    pub(crate) list: Vec<Packed>,
}

impl Tokens {
    /// Append a token; `span` must lie in a text of at most `MAX_LEN` bytes.
    pub(crate) fn push<'s, T: Packable<'s>>(&mut self, t: &T, span: Range<usize>) {
        self.list.push(Packed { start: span.start as u32, end: span.end as u32, kind: t.kind() });
    }

    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    pub(crate) fn span(&self, i: usize) -> SimpleSpan {
        let p = self.list[i];
        SimpleSpan::from(p.start as usize..p.end as usize)
    }

    pub(crate) fn get<'s, T: Packable<'s>>(&self, src: &'s str, i: usize) -> T {
        let p = self.list[i];
        T::unpack(p.kind, &src[p.start as usize..p.end as usize])
    }

    /// The index of the first token that ends after `offset`.
    pub(crate) fn partition(&self, offset: usize) -> usize {
        self.list.partition_point(|p| (p.end as usize) <= offset)
    }

    pub(crate) fn input<'a, 's, T>(&'a self, src: &'s str) -> PackedInput<'a, 's, T> {
        PackedInput { src, toks: &self.list, _t: PhantomData }
    }
}

/// A chumsky input over packed tokens, with the spans a `(token, span)`
/// slice mapped with `Input::map` would give (the parsers' behaviour does
/// not depend on the storage).
pub(crate) struct PackedInput<'a, 's, T> {
    src: &'s str,
    toks: &'a [Packed],
    _t: PhantomData<fn() -> T>,
}

impl<'a, 's: 'a, T: Packable<'s> + 'a> Input<'a> for PackedInput<'a, 's, T> {
    type Span = SimpleSpan;
    type Token = T;
    type MaybeToken = T;
    type Cursor = usize;
    type Cache = Self;

    fn begin(self) -> (usize, Self) {
        (0, self)
    }

    fn cursor_location(cursor: &usize) -> usize {
        *cursor
    }

    unsafe fn next_maybe(cache: &mut Self, cursor: &mut usize) -> Option<T> {
        Self::next(cache, cursor)
    }

    unsafe fn span(cache: &mut Self, range: Range<&usize>) -> SimpleSpan {
        let eoi = cache.src.len();
        match cache.toks.get(*range.start) {
            Some(first) => {
                let end = match *range.end {
                    0 => eoi,
                    e => cache.toks[e - 1].end as usize,
                };
                SimpleSpan::from(first.start as usize..end)
            }
            None => SimpleSpan::from(eoi..eoi),
        }
    }
}

impl<'a, 's: 'a, T: Packable<'s> + 'a> ValueInput<'a> for PackedInput<'a, 's, T> {
    unsafe fn next(cache: &mut Self, cursor: &mut usize) -> Option<T> {
        let p = *cache.toks.get(*cursor)?;
        *cursor += 1;
        Some(T::unpack(p.kind, &cache.src[p.start as usize..p.end as usize]))
    }
}

impl<'a, 's: 'a, T: Packable<'s> + 'a> ExactSizeInput<'a> for PackedInput<'a, 's, T> {
    unsafe fn span_from(cache: &mut Self, range: RangeFrom<&usize>) -> SimpleSpan {
        let eoi = cache.src.len();
        let start = cache.toks.get(*range.start).map_or(eoi, |p| p.start as usize);
        SimpleSpan::from(start..eoi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::herd::lexer::Tok;
    use crate::native::lexer::Token;

    /// Packing rebuilds exactly the tokens the lexer produced, every kind.
    #[test]
    fn packed_tokens_are_the_lexed_ones() {
        let native = "litmus SB+x \"doc\" shared thread fn let if else while await assert assume fence lock unlock \
                      return cas xchg fetch_add exists forall true false name 0x1F 12 { } ( ) [ ] ; , : = == != < <= \
                      > >= + - * / % ! && || ~ @@ é";
        let (plain, _) = crate::native::lexer::lex(native);
        let (packed, _, _) = crate::native::lexer::lex_packed(native);
        assert_eq!(plain.len(), packed.len());
        for (i, (t, s)) in plain.iter().enumerate() {
            assert_eq!((packed.get::<Token>(native, i), packed.span(i)), (*t, SimpleSpan::from(s.range())));
        }
        let herd =
            "X86 T\n{ x=0; } P0 | exists forall locations filter true false EAX 1 \"s\" ( ) [ ] ; , : = == != <> \
                    $ % + - * /\\ \\/ ~ @";
        let (plain, _) = crate::herd::lexer::lex(herd, 6);
        let (packed, _, _) = crate::herd::lexer::lex_packed(herd, 6);
        assert_eq!(plain.len(), packed.len());
        for (i, (t, s)) in plain.iter().enumerate() {
            assert_eq!((packed.get::<Tok>(herd, i), packed.span(i)), (*t, SimpleSpan::from(s.range())));
        }
    }

    #[test]
    fn every_kind_round_trips() {
        for k in 0..=u8::MAX {
            let t = Token::unpack(k, "x");
            assert!(t.kind() == k || t == Token::Error, "{k}");
            let t = Tok::unpack(k, "x");
            assert!(t.kind() == k || t == Tok::Error, "{k}");
        }
    }
}
