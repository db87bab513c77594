//! Tokens of the native dialect (logos). Names are Rust's identifiers
//! (Unicode XID: `café`, `λ`); a character no token has is an `E0001` whose
//! help says what a name may be.

use crate::diagnostic::Diagnostic;
use crate::span::Span;
use logos::Logos;
use std::fmt;

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\x0C\u{FEFF}]+")]
pub enum Token<'src> {
    #[token("litmus")]
    Litmus,
    #[token("shared")]
    Shared,
    /// `atomic x = 0;`: a shared location whose accesses are atomic.
    #[token("atomic")]
    Atomic,
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
    #[token("bound")]
    Bound,
    #[token("for")]
    For,
    #[token("in")]
    In,
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

    /// Rust's identifiers: Unicode XID_Start or `_`, then XID_Continue
    /// (`café`, `données`, `λ`). Names are compared as written (no NFC).
    #[regex(r"[\p{XID_Start}_]\p{XID_Continue}*")]
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
    #[token("..")]
    DotDot,
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
    /// `x@acquire`: an access's memory order.
    #[token("@")]
    At,
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
            Atomic => "`atomic`",
            Thread => "`thread`",
            Fn => "`fn`",
            Let => "`let`",
            If => "`if`",
            Else => "`else`",
            While => "`while`",
            Bound => "`bound`",
            For => "`for`",
            In => "`in`",
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
            DotDot => "`..`",
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
            At => "`@`",
            Comment(_) | LineComment => "comment",
            Error => "invalid character",
        };
        f.write_str(s)
    }
}

impl<'s> crate::packed::Packable<'s> for Token<'s> {
    fn kind(&self) -> u8 {
        use Token::*;
        match self {
            Litmus => 0,
            Shared => 1,
            Thread => 2,
            Fn => 3,
            Let => 4,
            If => 5,
            Else => 6,
            While => 7,
            Await => 8,
            Assert => 9,
            Assume => 10,
            Fence => 11,
            Lock => 12,
            Unlock => 13,
            Return => 14,
            Cas => 15,
            Xchg => 16,
            FetchAdd => 17,
            Exists => 18,
            Forall => 19,
            True => 20,
            False => 21,
            LBrace => 22,
            RBrace => 23,
            LParen => 24,
            RParen => 25,
            LBracket => 26,
            RBracket => 27,
            Semi => 28,
            Comma => 29,
            Colon => 30,
            Assign => 31,
            EqEq => 32,
            NotEq => 33,
            Lt => 34,
            Le => 35,
            Gt => 36,
            Ge => 37,
            Plus => 38,
            Minus => 39,
            Star => 40,
            Slash => 41,
            Percent => 42,
            Bang => 43,
            AndAnd => 44,
            OrOr => 45,
            Tilde => 46,
            LineComment => 47,
            Error => 48,
            Ident(_) => 49,
            Int(_) => 50,
            Str(_) => 51,
            Name(_) => 52,
            Comment(false) => 53,
            Comment(true) => 54,
            Bound => 55,
            For => 56,
            In => 57,
            DotDot => 58,
            Atomic => 59,
            At => 60,
        }
    }

    fn unpack(kind: u8, text: &'s str) -> Self {
        use Token::*;
        match kind {
            0 => Litmus,
            1 => Shared,
            2 => Thread,
            3 => Fn,
            4 => Let,
            5 => If,
            6 => Else,
            7 => While,
            8 => Await,
            9 => Assert,
            10 => Assume,
            11 => Fence,
            12 => Lock,
            13 => Unlock,
            14 => Return,
            15 => Cas,
            16 => Xchg,
            17 => FetchAdd,
            18 => Exists,
            19 => Forall,
            20 => True,
            21 => False,
            22 => LBrace,
            23 => RBrace,
            24 => LParen,
            25 => RParen,
            26 => LBracket,
            27 => RBracket,
            28 => Semi,
            29 => Comma,
            30 => Colon,
            31 => Assign,
            32 => EqEq,
            33 => NotEq,
            34 => Lt,
            35 => Le,
            36 => Gt,
            37 => Ge,
            38 => Plus,
            39 => Minus,
            40 => Star,
            41 => Slash,
            42 => Percent,
            43 => Bang,
            44 => AndAnd,
            45 => OrOr,
            46 => Tilde,
            47 => LineComment,
            48 => Error,
            49 => Ident(text),
            50 => Int(text),
            51 => Str(text),
            52 => Name(text),
            53 => Comment(false),
            54 => Comment(true),
            55 => Bound,
            56 => For,
            57 => In,
            58 => DotDot,
            59 => Atomic,
            60 => At,
            _ => Error,
        }
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
    "atomic",
    "thread",
    "fn",
    "let",
    "if",
    "else",
    "while",
    "bound",
    "for",
    "in",
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

/// What a name may be, for the error at a character that is not part of
/// one: a user who typed `café → x` should learn that `café` was fine.
pub(crate) const IDENT_HELP: &str =
    "names are identifiers as in Rust: a Unicode letter or `_`, then letters, digits or `_` (`x`, `r_1`, `café`, `λ`)";

/// Is `name` a name the native dialect accepts (one identifier, not a
/// keyword)? What a rename may produce.
pub fn is_identifier(name: &str) -> bool {
    let mut lexer = Token::lexer(name);
    matches!(lexer.next(), Some(Ok(Token::Ident(s))) if s.len() == name.len()) && lexer.next().is_none()
}

/// Lex a whole file. Lexical errors become diagnostics and `Token::Error`
/// tokens (one per run of adjacent bad characters), so the parser still sees
/// every statement after them.
pub fn lex(src: &str) -> (Vec<(Token<'_>, Span)>, Vec<Diagnostic>) {
    let mut tokens = Vec::new();
    let (diags, _) = lex_each(src, |t, span| tokens.push((t, span)));
    (tokens, diags)
}

/// `lex`, plus the comment spans in order (an unterminated block comment
/// runs to the end): for the formatter, which must keep every comment.
pub fn lex_with_comments(src: &str) -> (Vec<(Token<'_>, Span)>, Vec<Span>) {
    let mut tokens = Vec::new();
    let (_, comments) = lex_each(src, |t, span| tokens.push((t, span)));
    (tokens, comments)
}

/// `lex` in the parser's packed form, plus the comment spans (an
/// unterminated block comment runs to the end): for highlighting.
pub(crate) fn lex_packed(src: &str) -> (crate::packed::Tokens, Vec<Diagnostic>, Vec<Span>) {
    let mut tokens = crate::packed::Tokens::default();
    let (diags, comments) = lex_each(src, |t, span| tokens.push(&t, span.range()));
    (tokens, diags, comments)
}

/// A run of adjacent characters that are not part of the language: one
/// diagnostic and one `Error` token.
pub(crate) fn bad_characters(src: &str, span: Span, label: &'static str) -> Diagnostic {
    let text = span.text(src);
    let message = if text.chars().nth(1).is_none() {
        format!("unexpected character `{}`", text.escape_debug())
    } else {
        let shown: String = text.chars().take(16).collect();
        let more = if text.chars().nth(16).is_some() { "…" } else { "" };
        format!("unexpected characters `{}{more}`", shown.escape_debug())
    };
    Diagnostic::error("E0001", span, message).with_label(label)
}

/// Adjacent bad characters gathered into one run: one token, one diagnostic.
#[derive(Default)]
pub(crate) struct BadRun(Option<Span>);

impl BadRun {
    /// Add a bad span; the previous run, finished, if this one does not
    /// continue it.
    pub(crate) fn add(&mut self, span: Span) -> Option<Span> {
        match &mut self.0 {
            Some(run) if run.end == span.start => {
                run.end = span.end;
                None
            }
            _ => self.0.replace(span),
        }
    }

    /// The run so far, finished.
    pub(crate) fn take(&mut self) -> Option<Span> {
        self.0.take()
    }
}

fn lex_each<'s>(src: &'s str, mut push: impl FnMut(Token<'s>, Span)) -> (Vec<Diagnostic>, Vec<Span>) {
    let mut lexer = Token::lexer(src);
    let mut diags = Vec::new();
    let mut comments = Vec::new();
    let mut bad = BadRun::default();
    let flush = |run: Option<Span>, diags: &mut Vec<Diagnostic>, push: &mut dyn FnMut(Token<'s>, Span)| {
        if let Some(span) = run {
            diags.push(bad_characters(src, span, "not part of the language").with_help(IDENT_HELP));
            push(Token::Error, span);
        }
    };
    while let Some(tok) = lexer.next() {
        let span = Span::from(lexer.span());
        if tok.is_err() {
            flush(bad.add(span), &mut diags, &mut push);
            continue;
        }
        flush(bad.take(), &mut diags, &mut push);
        match tok {
            Ok(Token::Litmus) => {
                push(Token::Litmus, span);
                // The test name is a non-blank run (`SB+fences`, `2+2W`), not a token.
                let rest = lexer.remainder();
                let ws = rest.len() - rest.trim_start_matches([' ', '\t']).len();
                let run = rest[ws..].find(|c: char| c.is_whitespace()).unwrap_or(rest.len() - ws);
                let name = &rest[ws..ws + run];
                if !name.is_empty() && !name.starts_with('"') && !name.starts_with("//") {
                    let start = span.end + ws;
                    push(Token::Name(name), Span::new(start, start + run));
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
            Ok(t) => push(t, span),
            Err(()) => {}
        }
    }
    flush(bad.take(), &mut diags, &mut push);
    (diags, comments)
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
