//! Tokens of the cat language, as herd's `lib/modelLexer.mll` reads them:
//! names may hold `.`, `-` and a final `'`; comments are `(* … *)` (nested),
//! `//` and `#` to the end of the line; strings have no escapes.

use crate::ast::Span;

/// One token kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Var(String),
    Tag(String),
    Str(String),
    // Keywords.
    Let,
    Rec,
    And,
    When,
    Acyclic,
    Irreflexive,
    Show,
    Unshow,
    TestEmpty,
    Subset,
    As,
    Fun,
    In,
    Requires,
    Flag,
    Assert,
    Include,
    Variant,
    Begin,
    End,
    Procedure,
    Call,
    Enum,
    Debug,
    Match,
    With,
    Forall,
    From,
    Do,
    Try,
    If,
    Then,
    Else,
    Catdep,
    Instructions,
    Default,
    Not,
    // Punctuation and operators.
    LPar,
    RPar,
    LAcc,
    RAcc,
    LBrac,
    RBrac,
    Underscore,
    Zero,
    Union,
    Alt,
    Inter,
    LAnd,
    Star,
    Comp,
    Plus,
    PlusPlus,
    Hat,
    Inv,
    Diff,
    Opt,
    Equal,
    Semi,
    Comma,
    Arrow,
    Eof,
}

impl Tok {
    /// How the token reads in a message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Var(s) => format!("name `{s}`"),
            Tok::Tag(s) => format!("tag `'{s}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Eof => "end of file".to_string(),
            t => format!("`{}`", t.text()),
        }
    }

    fn text(&self) -> &'static str {
        use Tok::*;
        match self {
            Let => "let",
            Rec => "rec",
            And => "and",
            When => "when",
            Acyclic => "acyclic",
            Irreflexive => "irreflexive",
            Show => "show",
            Unshow => "unshow",
            TestEmpty => "empty",
            Subset => "subset",
            As => "as",
            Fun => "fun",
            In => "in",
            Requires => "undefined_unless",
            Flag => "flag",
            Assert => "assert",
            Include => "include",
            Variant => "variant",
            Begin => "begin",
            End => "end",
            Procedure => "procedure",
            Call => "call",
            Enum => "enum",
            Debug => "debug",
            Match => "match",
            With => "with",
            Forall => "forall",
            From => "from",
            Do => "do",
            Try => "try",
            If => "if",
            Then => "then",
            Else => "else",
            Catdep => "catdep",
            Instructions => "instructions",
            Default => "default",
            Not => "not",
            LPar => "(",
            RPar => ")",
            LAcc => "{",
            RAcc => "}",
            LBrac => "[",
            RBrac => "]",
            Underscore => "_",
            Zero => "0",
            Union => "|",
            Alt => "||",
            Inter => "&",
            LAnd => "&&",
            Star => "*",
            Comp => "~",
            Plus => "+",
            PlusPlus => "++",
            Hat => "^",
            Inv => "-1",
            Diff => "\\",
            Opt => "?",
            Equal => "=",
            Semi => ";",
            Comma => ",",
            Arrow => "->",
            Var(_) | Tag(_) | Str(_) | Eof => "",
        }
    }
}

fn keyword(s: &str) -> Option<Tok> {
    use Tok::*;
    Some(match s {
        "let" => Let,
        "rec" => Rec,
        "and" => And,
        "when" => When,
        "acyclic" => Acyclic,
        "irreflexive" => Irreflexive,
        "show" => Show,
        "unshow" => Unshow,
        "empty" => TestEmpty,
        "subset" => Subset,
        "as" => As,
        "fun" => Fun,
        "in" => In,
        "undefined_unless" => Requires,
        "flag" => Flag,
        "assert" => Assert,
        "include" => Include,
        "variant" => Variant,
        "begin" => Begin,
        "end" => End,
        "procedure" => Procedure,
        "call" => Call,
        "enum" => Enum,
        "debug" => Debug,
        "match" => Match,
        "with" => With,
        "forall" => Forall,
        "from" => From,
        "do" => Do,
        "try" => Try,
        "if" => If,
        "then" => Then,
        "else" => Else,
        "catdep" => Catdep,
        "instructions" => Instructions,
        "default" => Default,
        "not" => Not,
        _ => return None,
    })
}

/// A token and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// A lexical error: the message and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    pub span: Span,
    pub message: String,
}

fn is_alpha(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

/// Length of herd's `name` at `i`: `'_'? alpha (alpha|digit|'_'|'.'|'-')* '\''?`.
fn name_len(b: &[u8], i: usize) -> usize {
    let mut j = i;
    if j < b.len() && b[j] == b'_' {
        j += 1;
    }
    if j >= b.len() || !is_alpha(b[j]) {
        return 0;
    }
    j += 1;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'_' | b'.' | b'-')) {
        j += 1;
    }
    if j < b.len() && b[j] == b'\'' {
        j += 1;
    }
    j - i
}

/// The tokens of `src`, ending with `Eof`.
pub fn lex(src: &str) -> Result<Vec<Token>, LexError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let sp = |s: usize, e: usize| Span::new(s, e);
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' || (c == b'/' && b.get(i + 1) == Some(&b'/')) {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'(' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 1;
            i += 2;
            while depth > 0 {
                if i + 1 >= b.len() {
                    return Err(LexError { span: sp(start, start + 2), message: "unterminated comment".into() });
                }
                if b[i] == b'(' && b[i + 1] == b'*' {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b[i + 1] == b')' {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
            }
            continue;
        }
        let two = b.get(i + 1).copied();
        let (tok, len) = match c {
            b'(' => (Tok::LPar, 1),
            b')' => (Tok::RPar, 1),
            b'{' => (Tok::LAcc, 1),
            b'}' => (Tok::RAcc, 1),
            b'[' => (Tok::LBrac, 1),
            b']' => (Tok::RBrac, 1),
            b'0' => (Tok::Zero, 1),
            b'|' if two == Some(b'|') => (Tok::Alt, 2),
            b'|' => (Tok::Union, 1),
            b'&' if two == Some(b'&') => (Tok::LAnd, 2),
            b'&' => (Tok::Inter, 1),
            b'*' => (Tok::Star, 1),
            b'~' => (Tok::Comp, 1),
            b'+' if two == Some(b'+') => (Tok::PlusPlus, 2),
            b'+' => (Tok::Plus, 1),
            b'^' => (Tok::Hat, 1),
            b'-' if two == Some(b'1') => (Tok::Inv, 2),
            b'-' if two == Some(b'>') => (Tok::Arrow, 2),
            b'\\' => (Tok::Diff, 1),
            b'?' => (Tok::Opt, 1),
            b'=' => (Tok::Equal, 1),
            b';' => (Tok::Semi, 1),
            b',' => (Tok::Comma, 1),
            b'"' => match src[i + 1..].find('"') {
                Some(k) => (Tok::Str(src[i + 1..i + 1 + k].to_string()), k + 2),
                None => return Err(LexError { span: sp(start, start + 1), message: "unterminated string".into() }),
            },
            b'\'' => {
                let n = name_len(b, i + 1);
                if n == 0 {
                    return Err(LexError {
                        span: sp(start, start + 1),
                        message: "a tag is a quote followed by a name".into(),
                    });
                }
                (Tok::Tag(src[i + 1..i + 1 + n].to_string()), n + 1)
            }
            _ => {
                let n = name_len(b, i);
                if n > 0 {
                    let s = &src[i..i + n];
                    (keyword(s).unwrap_or_else(|| Tok::Var(s.to_string())), n)
                } else if c == b'_' {
                    (Tok::Underscore, 1)
                } else {
                    let ch = src[i..].chars().next().unwrap_or('?');
                    return Err(LexError {
                        span: sp(start, start + ch.len_utf8()),
                        message: format!("unexpected character `{ch}`"),
                    });
                }
            }
        };
        i += len;
        out.push(Token { tok, span: sp(start, i) });
    }
    out.push(Token { tok: Tok::Eof, span: sp(b.len(), b.len()) });
    Ok(out)
}
