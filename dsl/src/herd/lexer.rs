//! Tokens of the herd x86 dialect after its free-form preamble (logos).

use crate::diagnostic::Diagnostic;
use crate::span::Span;
use logos::Logos;
use std::fmt;

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\x0C\u{FEFF}]+")]
pub enum Tok<'src> {
    #[token("exists")]
    Exists,
    #[token("forall")]
    Forall,
    #[token("locations")]
    Locations,
    #[token("filter")]
    Filter,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[regex(r"[A-Za-z_][A-Za-z0-9_.]*")]
    Ident(&'src str),
    #[regex(r"[0-9][0-9A-Za-z_]*")]
    Int(&'src str),
    #[regex(r#""([^"\\\r\n]|\\.)*""#)]
    Str(&'src str),
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
    #[token("|")]
    Bar,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("=")]
    Eq,
    #[token("==")]
    EqEq,
    /// `=>`: implication in a final condition.
    #[token("=>")]
    Implies,
    #[token("!=")]
    Ne,
    #[token("<>")]
    Ne2,
    #[token("$")]
    Dollar,
    /// AArch64's pre-index write-back: `[X0,#-16]!`.
    #[token("!")]
    Bang,
    #[token("%")]
    Percent,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/\\")]
    And,
    #[token("\\/")]
    Or,
    #[token("~")]
    Tilde,
    /// `(* ... *)`, nested as in OCaml; `false` when never closed.
    #[token("(*", block_comment)]
    Comment(bool),
    /// `<<`: herd's splitter ends the test there (what follows, a `show`
    /// or scope block, is for herd's tools): the rest is lexed as a comment.
    #[token("<<")]
    Trailer,
    /// `&x` in an initial state: x's address (herd's C-style `int *p = &x`).
    #[token("&")]
    Amp,
    /// `#`: an AArch64 immediate (`MOV W0,#1`).
    #[token("#")]
    Hash,
    Error,
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        use Tok::*;
        let s = match self {
            Exists => "`exists`",
            Forall => "`forall`",
            Locations => "`locations`",
            Filter => "`filter`",
            True => "`true`",
            False => "`false`",
            Ident(s) => return write!(f, "`{s}`"),
            Int(s) => return write!(f, "number `{s}`"),
            Str(_) => "string",
            LBrace => "`{`",
            RBrace => "`}`",
            LParen => "`(`",
            RParen => "`)`",
            LBracket => "`[`",
            RBracket => "`]`",
            Bar => "`|`",
            Semi => "`;`",
            Comma => "`,`",
            Colon => "`:`",
            Eq => "`=`",
            EqEq => "`==`",
            Implies => "`=>`",
            Ne => "`!=`",
            Ne2 => "`<>`",
            Dollar => "`$`",
            Bang => "`!`",
            Percent => "`%`",
            Plus => "`+`",
            Minus => "`-`",
            Star => "`*`",
            And => "`/\\`",
            Or => "`\\/`",
            Tilde => "`~`",
            Comment(_) => "comment",
            Trailer => "`<<`",
            Amp => "`&`",
            Hash => "`#`",
            Error => "invalid character",
        };
        f.write_str(s)
    }
}

impl<'s> crate::packed::Packable<'s> for Tok<'s> {
    fn kind(&self) -> u8 {
        use Tok::*;
        match self {
            Exists => 0,
            Forall => 1,
            Locations => 2,
            Filter => 3,
            True => 4,
            False => 5,
            LBrace => 6,
            RBrace => 7,
            LParen => 8,
            RParen => 9,
            LBracket => 10,
            RBracket => 11,
            Bar => 12,
            Semi => 13,
            Comma => 14,
            Colon => 15,
            Eq => 16,
            EqEq => 17,
            Ne => 18,
            Ne2 => 19,
            Dollar => 20,
            Percent => 21,
            Plus => 22,
            Minus => 23,
            Star => 24,
            And => 25,
            Or => 26,
            Tilde => 27,
            Error => 28,
            Ident(_) => 29,
            Int(_) => 30,
            Str(_) => 31,
            Comment(false) => 32,
            Comment(true) => 33,
            Trailer => 34,
            Amp => 35,
            Hash => 36,
            Implies => 37,
            Bang => 38,
        }
    }

    fn unpack(kind: u8, text: &'s str) -> Self {
        use Tok::*;
        match kind {
            0 => Exists,
            1 => Forall,
            2 => Locations,
            3 => Filter,
            4 => True,
            5 => False,
            6 => LBrace,
            7 => RBrace,
            8 => LParen,
            9 => RParen,
            10 => LBracket,
            11 => RBracket,
            12 => Bar,
            13 => Semi,
            14 => Comma,
            15 => Colon,
            16 => Eq,
            17 => EqEq,
            18 => Ne,
            19 => Ne2,
            20 => Dollar,
            21 => Percent,
            22 => Plus,
            23 => Minus,
            24 => Star,
            25 => And,
            26 => Or,
            27 => Tilde,
            28 => Error,
            29 => Ident(text),
            30 => Int(text),
            31 => Str(text),
            32 => Comment(false),
            33 => Comment(true),
            34 => Trailer,
            35 => Amp,
            36 => Hash,
            37 => Implies,
            38 => Bang,
            _ => Error,
        }
    }
}

fn block_comment<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> bool {
    match nested_comment_rest(lex.remainder().as_bytes()) {
        Some(n) => {
            lex.bump(n);
            true
        }
        None => false,
    }
}

/// After an opening `(*`: the length of the rest of the comment, through its
/// closing `*)`. Comments nest, as in herd's (OCaml) lexer. `None`: never closed.
pub(crate) fn nested_comment_rest(rest: &[u8]) -> Option<usize> {
    let mut depth = 1;
    let mut i = 0;
    while i + 1 < rest.len() {
        match (rest[i], rest[i + 1]) {
            (b'(', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b')') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Lex `src[from..]`; spans are absolute offsets into `src`. A run of
/// adjacent bad characters is one diagnostic and one `Error` token.
pub fn lex(src: &str, from: usize) -> (Vec<(Tok<'_>, Span)>, Vec<Diagnostic>) {
    let mut tokens = Vec::new();
    let (diags, _) = lex_each(src, from, |t, span| tokens.push((t, span)));
    (tokens, diags)
}

/// `lex` in the parser's packed form, plus the comment spans from `from` on
/// (an unterminated one runs to the end).
pub(crate) fn lex_packed(src: &str, from: usize) -> (crate::packed::Tokens, Vec<Diagnostic>, Vec<Span>) {
    let mut tokens = crate::packed::Tokens::default();
    let (diags, comments) = lex_each(src, from, |t, span| tokens.push(&t, span.range()));
    (tokens, diags, comments)
}

fn lex_each<'s>(src: &'s str, from: usize, mut push: impl FnMut(Tok<'s>, Span)) -> (Vec<Diagnostic>, Vec<Span>) {
    let mut lexer = Tok::lexer(&src[from..]);
    let mut diags = Vec::new();
    let mut comments = Vec::new();
    let mut bad = crate::native::lexer::BadRun::default();
    let flush = |run: Option<Span>, diags: &mut Vec<Diagnostic>, push: &mut dyn FnMut(Tok<'s>, Span)| {
        if let Some(span) = run {
            diags.push(crate::native::lexer::bad_characters(src, span, "not part of herd's x86 syntax"));
            push(Tok::Error, span);
        }
    };
    while let Some(tok) = lexer.next() {
        let r = lexer.span();
        let span = Span::new(r.start + from, r.end + from);
        if tok.is_err() {
            flush(bad.add(span), &mut diags, &mut push);
            continue;
        }
        flush(bad.take(), &mut diags, &mut push);
        match tok {
            Ok(Tok::Comment(true)) => comments.push(span),
            Ok(Tok::Trailer) => {
                comments.push(Span::new(span.start, src.len()));
                break;
            }
            Ok(Tok::Comment(false)) => {
                comments.push(Span::new(span.start, src.len()));
                diags.push(
                    Diagnostic::error("E0001", span, "unterminated comment")
                        .with_label("this comment is never closed")
                        .with_help("close it with `*)`"),
                );
                break;
            }
            Ok(t) => push(t, span),
            Err(()) => {}
        }
    }
    flush(bad.take(), &mut diags, &mut push);
    (diags, comments)
}
