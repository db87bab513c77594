//! Tokens of the herd x86 dialect after its free-form preamble (logos).

use crate::diagnostic::Diagnostic;
use crate::span::Span;
use logos::Logos;
use std::fmt;

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\x0C]+")]
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
    #[token("!=")]
    Ne,
    #[token("<>")]
    Ne2,
    #[token("$")]
    Dollar,
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
            Ne => "`!=`",
            Ne2 => "`<>`",
            Dollar => "`$`",
            Percent => "`%`",
            Plus => "`+`",
            Minus => "`-`",
            Star => "`*`",
            And => "`/\\`",
            Or => "`\\/`",
            Tilde => "`~`",
            Comment(_) => "comment",
            Error => "invalid character",
        };
        f.write_str(s)
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

/// Lex `src[from..]`; spans are absolute offsets into `src`.
pub fn lex(src: &str, from: usize) -> (Vec<(Tok<'_>, Span)>, Vec<Diagnostic>) {
    let (tokens, diags, _) = lex_with_comments(src, from);
    (tokens, diags)
}

/// `lex`, plus the comment spans from `from` on (an unterminated one runs to
/// the end).
pub(crate) fn lex_with_comments(src: &str, from: usize) -> (Vec<(Tok<'_>, Span)>, Vec<Diagnostic>, Vec<Span>) {
    let mut lexer = Tok::lexer(&src[from..]);
    let mut tokens = Vec::new();
    let mut diags = Vec::new();
    let mut comments = Vec::new();
    while let Some(tok) = lexer.next() {
        let r = lexer.span();
        let span = Span::new(r.start + from, r.end + from);
        match tok {
            Ok(Tok::Comment(true)) => comments.push(span),
            Ok(Tok::Comment(false)) => {
                comments.push(Span::new(span.start, src.len()));
                diags.push(
                    Diagnostic::error("E0001", span, "unterminated comment")
                        .with_label("this comment is never closed")
                        .with_help("close it with `*)`"),
                );
                break;
            }
            Ok(t) => tokens.push((t, span)),
            Err(()) => {
                diags.push(
                    Diagnostic::error(
                        "E0001",
                        span,
                        format!("unexpected character `{}`", span.text(src).escape_debug()),
                    )
                    .with_label("not part of herd's x86 syntax"),
                );
                tokens.push((Tok::Error, span));
            }
        }
    }
    (tokens, diags, comments)
}
