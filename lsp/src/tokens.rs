//! Semantic tokens: keywords, numbers, strings, comments, operators, and
//! names classified by what they denote (shared location, register,
//! function, thread, label), in both dialects.

use litmus_dsl::{Analysis, SymbolKind};
use litmus_ir::{Dialect, Span};
use std::collections::HashMap;

/// Token types, in the order of the legend sent to the client.
pub const TYPES: &[&str] =
    &["keyword", "number", "string", "comment", "operator", "variable", "parameter", "function", "namespace", "label"];
/// Modifiers: bit 0 declaration, bit 1 readonly.
pub const MODIFIERS: &[&str] = &["declaration", "readonly"];

const KEYWORD: u32 = 0;
const NUMBER: u32 = 1;
const STRING: u32 = 2;
const COMMENT: u32 = 3;
const OPERATOR: u32 = 4;
const VARIABLE: u32 = 5;
const PARAMETER: u32 = 6;
const FUNCTION: u32 = 7;
const NAMESPACE: u32 = 8;
const LABEL: u32 = 9;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub span: Span,
    pub kind: u32,
    pub modifiers: u32,
}

/// Every declaration and reference span with its token type and modifiers,
/// built once per request (a lookup per identifier stays O(1)).
fn classify_names(a: &Analysis) -> HashMap<Span, (u32, u32)> {
    let mut map = HashMap::new();
    for s in &a.symbols.list {
        let kind = match s.kind {
            SymbolKind::Shared | SymbolKind::Array => VARIABLE,
            SymbolKind::Register => VARIABLE,
            SymbolKind::Param => PARAMETER,
            SymbolKind::Function => FUNCTION,
            SymbolKind::Thread => NAMESPACE,
            SymbolKind::Label => LABEL,
        };
        let readonly = (s.kind == SymbolKind::Register) as u32 * 2;
        // The first symbol to claim a span wins, as a linear search would.
        map.entry(s.def).or_insert((kind, 1 | readonly));
        for &r in &s.refs {
            map.entry(r).or_insert((kind, readonly));
        }
    }
    map
}

pub fn tokens(src: &str, a: &Analysis) -> Vec<Token> {
    let names = classify_names(a);
    let mut out: Vec<Token> = a.comments.iter().map(|&span| Token { span, kind: COMMENT, modifiers: 0 }).collect();
    match a.dialect {
        Dialect::Native => {
            use litmus_dsl::native::lexer::Token as T;
            let (toks, _) = litmus_dsl::native::lexer::lex(src);
            for (t, span) in toks {
                let kind = match t {
                    T::Ident(name) => match names.get(&span).copied() {
                        Some((k, m)) => {
                            out.push(Token { span, kind: k, modifiers: m });
                            continue;
                        }
                        None if matches!(name, "ww" | "wr" | "rr" | "full") => KEYWORD,
                        // A memory order (`x@acquire`, `fence seq_cst;`).
                        None if litmus_dsl::native::ast::MemOrder::by_name(name).is_some() => KEYWORD,
                        None => VARIABLE,
                    },
                    T::Int(_) => NUMBER,
                    T::Str(_) => STRING,
                    T::Name(_) => NAMESPACE,
                    T::LBrace | T::RBrace | T::LParen | T::RParen | T::LBracket | T::RBracket | T::Semi | T::Comma => {
                        continue
                    }
                    T::Comment(_) | T::Error => continue,
                    T::Colon
                    | T::Assign
                    | T::EqEq
                    | T::NotEq
                    | T::Lt
                    | T::Le
                    | T::Gt
                    | T::Ge
                    | T::Plus
                    | T::Minus
                    | T::Star
                    | T::Slash
                    | T::Percent
                    | T::Bang
                    | T::AndAnd
                    | T::OrOr
                    | T::Tilde
                    | T::At
                    | T::DotDot => OPERATOR,
                    _ => KEYWORD,
                };
                out.push(Token { span, kind, modifiers: 0 });
            }
        }
        Dialect::HerdC => {
            use litmus_dsl::herd::c::Class;
            let first_line = src.find('\n').unwrap_or(src.len());
            let arch_start = src.len() - src.trim_start().len();
            let arch_end = src[..first_line].find(char::is_whitespace).unwrap_or(first_line);
            if arch_start < arch_end {
                out.push(Token { span: Span::new(arch_start, arch_end), kind: KEYWORD, modifiers: 0 });
            }
            let body = src.find('{').unwrap_or(src.len());
            for (class, span) in litmus_dsl::herd::c::classify(src, body) {
                let kind = match class {
                    Class::Word(w) => match names.get(&span).copied() {
                        Some((k, m)) => {
                            out.push(Token { span, kind: k, modifiers: m });
                            continue;
                        }
                        None if litmus_dsl::herd::c::is_keyword(w) => KEYWORD,
                        None => VARIABLE,
                    },
                    Class::Number => NUMBER,
                    Class::Operator => OPERATOR,
                    Class::Punctuation => continue,
                };
                out.push(Token { span, kind, modifiers: 0 });
            }
        }
        Dialect::HerdX86 | Dialect::HerdRiscv | Dialect::HerdAArch64 => {
            use litmus_dsl::herd::lexer::Tok as T;
            // The preamble: architecture and name.
            let first_line = src.find('\n').unwrap_or(src.len());
            let arch_end = src[..first_line].find(char::is_whitespace).unwrap_or(first_line);
            let arch_start = src.len() - src.trim_start().len();
            if arch_start < arch_end {
                out.push(Token { span: Span::new(arch_start, arch_end), kind: KEYWORD, modifiers: 0 });
            }
            let body = src.find('{').unwrap_or(src.len());
            let register = |name: &str| match a.dialect {
                Dialect::HerdRiscv => litmus_dsl::herd::riscv::register(name).is_some(),
                Dialect::HerdAArch64 => litmus_dsl::herd::aarch64::register(name).is_some(),
                _ => litmus_dsl::herd::lower::register_family(name).is_some(),
            };
            let (toks, _) = litmus_dsl::herd::lexer::lex(src, body);
            for (t, span) in toks {
                let kind = match t {
                    T::Ident(name) => match names.get(&span).copied() {
                        Some((k, m)) => {
                            out.push(Token { span, kind: k, modifiers: m });
                            continue;
                        }
                        None if register(name) => PARAMETER,
                        None => KEYWORD,
                    },
                    T::Int(_) => NUMBER,
                    T::Str(_) => STRING,
                    T::Exists | T::Forall | T::Locations | T::Filter | T::True | T::False => KEYWORD,
                    T::And
                    | T::Or
                    | T::Implies
                    | T::Tilde
                    | T::Eq
                    | T::EqEq
                    | T::Ne
                    | T::Ne2
                    | T::Dollar
                    | T::Bang
                    | T::Percent
                    | T::Hash => OPERATOR,
                    _ => continue,
                };
                out.push(Token { span, kind, modifiers: 0 });
            }
        }
    }
    out.sort_by_key(|t| (t.span.start, t.span.end));
    // LSP tokens may not overlap: keep the first of any that do.
    let mut end = 0;
    out.retain(|t| {
        let keep = t.span.start >= end && t.span.end > t.span.start;
        if keep {
            end = t.span.end;
        }
        keep
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(String, &'static str)> {
        let a = litmus_dsl::analyze(src);
        let toks = tokens(src, &a);
        for w in toks.windows(2) {
            assert!(w[0].span.end <= w[1].span.start, "overlap in {src:?}: {w:?}");
        }
        toks.iter().map(|t| (t.span.text(src).to_string(), TYPES[t.kind as usize])).collect()
    }

    #[test]
    fn comments_are_the_lexers_not_a_guess() {
        // `/*` inside the test name and inside a string are not comments.
        let k = kinds("litmus S/*B \"a \\\" /* b\"\nshared x = 0; // c\nthread P0 { x = 1; }\n");
        assert!(k.contains(&("S/*B".into(), "namespace")), "{k:?}");
        assert!(k.contains(&("// c".into(), "comment")), "{k:?}");
        assert_eq!(k.iter().filter(|t| t.1 == "comment").count(), 1, "{k:?}");
        // Herd comments nest, in the preamble and in the body.
        let k = kinds("X86 T\n(* a (* b *) c *)\n{ x=0; }\n P0 (* p *) ;\n MOV [x],$1 ;\nexists (x=1)\n");
        let comments: Vec<&str> = k.iter().filter(|t| t.1 == "comment").map(|t| t.0.as_str()).collect();
        assert_eq!(comments, ["(* a (* b *) c *)", "(* p *)"], "{k:?}");
        // An unterminated block comment runs to the end.
        let k = kinds("litmus T\nshared x = 0; /* open\nthread");
        assert_eq!(k.last().unwrap(), &("/* open\nthread".to_string(), "comment"));
    }
}
