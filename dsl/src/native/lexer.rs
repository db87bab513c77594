//! Tokens of the native dialect (logos).

use crate::diagnostic::Diagnostic;
use crate::span::Span;
use logos::Logos;
use std::fmt;

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\x0C]+")]
pub enum Token<'src> {
    #[token("litmus")]
    Litmus,
    #[token("shared")]
    Shared,
    #[token("thread")]
    Thread,
    #[token("fn")]
    Fn,
    #[token("let")]
    Let,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("while")]
    While,
    #[token("await")]
    Await,
    #[token("assert")]
    Assert,
    #[token("assume")]
    Assume,
    #[token("fence")]
    Fence,
    #[token("lock")]
    Lock,
    #[token("unlock")]
    Unlock,
    #[token("return")]
    Return,
    #[token("cas")]
    Cas,
    #[token("xchg")]
    Xchg,
    #[token("fetch_add")]
    FetchAdd,
    #[token("exists")]
    Exists,
    #[token("forall")]
    Forall,
    #[token("true")]
    True,
    #[token("false")]
    False,

    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'src str),
    #[regex(r"[0-9][0-9A-Za-z_]*")]
    Int(&'src str),
    #[regex(r#""([^"\\\r\n]|\\.)*""#)]
    Str(&'src str),
    /// The test name after `litmus`: produced by the driver, never by logos.
    Name(&'src str),

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
    NotEq,
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
    #[token("!")]
    Bang,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("~")]
    Tilde,
    /// `/* ... */`; `false` when never closed.
    #[token("/*", block_comment)]
    Comment(bool),
    /// `// ...` to the end of the line.
    #[regex(r"//[^\r\n]*")]
    LineComment,
    /// Anything logos could not lex; reported once per run.
    Error,
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        use Token::*;
        let s = match self {
            Litmus => "`litmus`",
            Shared => "`shared`",
            Thread => "`thread`",
            Fn => "`fn`",
            Let => "`let`",
            If => "`if`",
            Else => "`else`",
            While => "`while`",
            Await => "`await`",
            Assert => "`assert`",
            Assume => "`assume`",
            Fence => "`fence`",
            Lock => "`lock`",
            Unlock => "`unlock`",
            Return => "`return`",
            Cas => "`cas`",
            Xchg => "`xchg`",
            FetchAdd => "`fetch_add`",
            Exists => "`exists`",
            Forall => "`forall`",
            True => "`true`",
            False => "`false`",
            Ident(s) => return write!(f, "identifier `{s}`"),
            Int(s) => return write!(f, "number `{s}`"),
            Str(_) => "string",
            Name(s) => return write!(f, "name `{s}`"),
            LBrace => "`{`",
            RBrace => "`}`",
            LParen => "`(`",
            RParen => "`)`",
            LBracket => "`[`",
            RBracket => "`]`",
            Semi => "`;`",
            Comma => "`,`",
            Colon => "`:`",
            Assign => "`=`",
            EqEq => "`==`",
            NotEq => "`!=`",
            Lt => "`<`",
            Le => "`<=`",
            Gt => "`>`",
            Ge => "`>=`",
            Plus => "`+`",
            Minus => "`-`",
            Star => "`*`",
            Slash => "`/`",
            Percent => "`%`",
            Bang => "`!`",
            AndAnd => "`&&`",
            OrOr => "`||`",
            Tilde => "`~`",
            Comment(_) | LineComment => "comment",
            Error => "invalid character",
        };
        f.write_str(s)
    }
}

fn block_comment<'s>(lex: &mut logos::Lexer<'s, Token<'s>>) -> bool {
    match lex.remainder().find("*/") {
        Some(i) => {
            lex.bump(i + 2);
            true
        }
        None => false,
    }
}

/// The reserved words, as the lexer knows them (a test keeps them in step):
/// what completion offers and what a rename must not produce.
pub const KEYWORDS: &[&str] = &[
    "litmus",
    "shared",
    "thread",
    "fn",
    "let",
    "if",
    "else",
    "while",
    "await",
    "assert",
    "assume",
    "fence",
    "lock",
    "unlock",
    "return",
    "cas",
    "xchg",
    "fetch_add",
    "exists",
    "forall",
    "true",
    "false",
];

/// Lex a whole file. Lexical errors become diagnostics and `Token::Error`
/// tokens, so the parser still sees every statement after them.
pub fn lex(src: &str) -> (Vec<(Token<'_>, Span)>, Vec<Diagnostic>) {
    let (tokens, diags, _) = lex_with_comments(src);
    (tokens, diags)
}

/// `lex`, plus the comment spans (an unterminated block comment runs to the
/// end): for highlighting.
pub(crate) fn lex_with_comments(src: &str) -> (Vec<(Token<'_>, Span)>, Vec<Diagnostic>, Vec<Span>) {
    let mut lexer = Token::lexer(src);
    let mut tokens = Vec::with_capacity(src.len() / 3);
    let mut diags = Vec::new();
    let mut comments = Vec::new();
    while let Some(tok) = lexer.next() {
        let span = Span::from(lexer.span());
        match tok {
            Ok(Token::Litmus) => {
                tokens.push((Token::Litmus, span));
                // The test name is a non-blank run (`SB+fences`, `2+2W`), not a token.
                let rest = lexer.remainder();
                let ws = rest.len() - rest.trim_start_matches([' ', '\t']).len();
                let run = rest[ws..].find(|c: char| c.is_whitespace()).unwrap_or(rest.len() - ws);
                let name = &rest[ws..ws + run];
                if !name.is_empty() && !name.starts_with('"') && !name.starts_with("//") {
                    let start = span.end + ws;
                    tokens.push((Token::Name(name), Span::new(start, start + run)));
                    lexer.bump(ws + run);
                }
            }
            Ok(Token::Comment(true) | Token::LineComment) => comments.push(span),
            Ok(Token::Comment(false)) => {
                comments.push(Span::new(span.start, src.len()));
                diags.push(
                    Diagnostic::error("E0001", span, "unterminated block comment")
                        .with_label("this comment is never closed")
                        .with_help("close it with `*/`"),
                );
                break;
            }
            Ok(t) => tokens.push((t, span)),
            Err(()) => {
                let text = span.text(src);
                diags.push(
                    Diagnostic::error("E0001", span, format!("unexpected character `{}`", text.escape_debug()))
                        .with_label("not part of the language"),
                );
                tokens.push((Token::Error, span));
            }
        }
    }
    (tokens, diags, comments)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_exactly_the_reserved_tokens() {
        for k in KEYWORDS {
            let mut lx = Token::lexer(k);
            let t = lx.next().unwrap().unwrap();
            assert!(!matches!(t, Token::Ident(_)) && lx.next().is_none(), "{k} is not one keyword token");
        }
        // Every `#[token("word")]` of the lexer is in the list.
        let src = include_str!("lexer.rs");
        for line in src.lines().map(str::trim).filter(|l| l.starts_with("#[token(\"")) {
            let word = line.trim_start_matches("#[token(\"").split('"').next().unwrap();
            if word.chars().all(|c| c.is_ascii_alphabetic() || c == '_') {
                assert!(KEYWORDS.contains(&word), "{word} missing from KEYWORDS");
            }
        }
    }

    #[test]
    fn header_name_is_a_blank_delimited_run() {
        let (toks, d) = lex("litmus SB+fences \"doc\"\nlitmus 2+2W\n");
        assert!(d.is_empty());
        let kinds: Vec<_> = toks.iter().map(|t| t.0).collect();
        assert_eq!(
            kinds,
            vec![Token::Litmus, Token::Name("SB+fences"), Token::Str("\"doc\""), Token::Litmus, Token::Name("2+2W")]
        );
    }

    #[test]
    fn comments_are_skipped_and_unterminated_reported() {
        let (toks, d) = lex("x /* a * b */ = // c\n 1; /* oops");
        assert_eq!(toks.len(), 4);
        assert_eq!(d.len(), 1);
        assert!(d[0].message.contains("unterminated"));
    }
}
