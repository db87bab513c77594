//! Misspelt keywords (`thred P1 {`, `lett r0 = y;`, `whiel (c) {`): a word
//! close to a keyword where only that keyword fits gets one error (`E0004`,
//! "did you mean `thread`?") and is parsed as the keyword, so nothing after
//! it cascades (the thread `P1` and the register `r0` still exist).
//!
//! Decided on the token stream before parsing, from the tokens around the
//! word. At the start of an item any word is wrong; at the start of a
//! statement a word is taken for a keyword when the statement could not go
//! on with a name (`lett r0`, `whiel (c) {`), or when the statement would be
//! a call or a bare name (`retrun;`, `asert (c);`) and the word occurs
//! nowhere else in the file, so it names nothing. A line that starts with a
//! word after an expression starts a statement or item too (a statement's
//! `;` is missing there: the parser says so).

use super::lexer::Token;
use super::sema::edit_distance;
use crate::diagnostic::Diagnostic;
use crate::nesting::Brackets;
use crate::packed::{Packable, Tokens};
use crate::span::Span;
use std::collections::HashMap;

/// The diagnostic code of a misspelt keyword.
pub const CODE: &str = "E0004";

/// Keywords that start an item, and those that start a statement.
const ITEM: &[&str] = &["thread", "shared", "atomic", "fn", "exists", "forall"];
const STMT: &[&str] =
    &["let", "if", "else", "while", "for", "await", "assert", "assume", "fence", "lock", "unlock", "return"];

/// Longer words are no keyword's misspelling (the longest keyword here has
/// six letters, and two edits are allowed), and cost nothing to look at.
const MAX_WORD: usize = 8;

fn keyword(word: &str) -> Token<'static> {
    match word {
        "thread" => Token::Thread,
        "shared" => Token::Shared,
        "atomic" => Token::Atomic,
        "fn" => Token::Fn,
        "exists" => Token::Exists,
        "forall" => Token::Forall,
        "let" => Token::Let,
        "if" => Token::If,
        "else" => Token::Else,
        "while" => Token::While,
        "for" => Token::For,
        "await" => Token::Await,
        "assert" => Token::Assert,
        "assume" => Token::Assume,
        "fence" => Token::Fence,
        "lock" => Token::Lock,
        "unlock" => Token::Unlock,
        _ => Token::Return,
    }
}

/// How far a word may be from a keyword: one edit for the short ones (`fn`,
/// `if`, `let`, `for`), where two would reach most short names, else two.
fn limit(keyword: &str) -> usize {
    if keyword.len() <= 3 {
        1
    } else {
        2
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Block,
    /// An array's initial values: `= {0, 1}`.
    List,
    Paren,
}

/// Report every misspelt keyword and turn its token into the keyword.
/// `brackets` is the table of the same tokens (respelling keeps it valid:
/// no bracket changes).
pub(crate) fn respell(src: &str, tokens: &mut Tokens, brackets: &Brackets) -> Vec<Diagnostic> {
    let n = tokens.len();
    // Tokens are read from the packed list as needed: a copy would double
    // the parser's memory on a long file.
    let at = |i: usize| (i < n).then(|| tokens.get::<Token>(src, i));
    // How often each word short enough to be a misspelling occurs.
    let mut uses: HashMap<&str, u32> = HashMap::new();
    for i in 0..n {
        if let Some(Token::Ident(w)) = at(i) {
            if w.len() <= MAX_WORD * 4 && w.chars().count() <= MAX_WORD {
                *uses.entry(w).or_default() += 1;
            }
        }
    }
    // The token after the well-formed group that token `i` opens.
    let after_group = |i: usize| brackets.group_len(i).and_then(|len| at(i + len));
    let starts_expr = |t: Option<Token>| {
        use Token::*;
        matches!(t, Some(LParen | Ident(_) | Int(_) | True | False | Bang | Minus | Cas | Xchg | FetchAdd))
    };
    // Does keyword `k` fit at token `i`, given the tokens after it? `once`:
    // the word occurs nowhere else, so it cannot be a name.
    let fits = |k: &str, i: usize, once: bool| {
        use Token::*;
        let (n1, n2) = (at(i + 1), at(i + 2));
        let ident = |t: Option<Token>| matches!(t, Some(Ident(_)));
        match k {
            "thread" | "shared" => ident(n1),
            "fn" => ident(n1) && n2 == Some(LParen),
            "exists" | "forall" => starts_expr(n1),
            "let" => ident(n1) && n2 == Some(Assign),
            "for" => ident(n1) && n2 == Some(In),
            "if" => n1 == Some(LParen) && after_group(i + 1) == Some(LBrace),
            "while" => n1 == Some(LParen) && matches!(after_group(i + 1), Some(LBrace | Bound)),
            "else" => matches!(n1, Some(LBrace | If)),
            // A name then a value is no statement; a name alone, or called,
            // is one, unless the name is nowhere declared.
            "return" => {
                (starts_expr(n1) && !matches!(n1, Some(LParen | Minus)))
                    || (once && matches!(n1, Some(Semi | LParen | Minus)))
            }
            "fence" => (ident(n1) && n2 == Some(Semi)) || (once && n1 == Some(Semi)),
            "await" | "assert" | "assume" => once && n1 == Some(LParen) && after_group(i + 1) == Some(Semi),
            "lock" | "unlock" => {
                once && n1 == Some(LParen) && ident(n2) && at(i + 3) == Some(RParen) && at(i + 4) == Some(Semi)
            }
            _ => false,
        }
    };

    let mut diags = Vec::new();
    let mut fixed: Vec<(usize, u8)> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut prev: Option<Token> = None;
    // The previous token was a `}` that closed a block.
    let mut closed_block = false;
    // The previous token was a `~` where an item starts (`~exists`).
    let mut item_tilde = false;
    for i in 0..n {
        let Some(mut t) = at(i) else { break };
        // A line that starts with a word after an expression (`x = 1⏎ lett
        // r0 = y;`, a final condition without `;`⏎ `thred P1 {`) starts a
        // statement or item: nothing goes on with a name there.
        let after_expr = matches!(
            prev,
            Some(Token::Ident(_) | Token::Int(_) | Token::True | Token::False | Token::RParen | Token::RBracket)
        ) && i > 0
            && src.get(tokens.span(i - 1).end..tokens.span(i).start).is_some_and(|gap| gap.contains('\n'));
        let at_item = stack.is_empty()
            && match prev {
                None | Some(Token::Semi | Token::Name(_) | Token::Str(_)) => true,
                Some(Token::RBrace) => closed_block,
                _ => after_expr,
            };
        let at_stmt = stack.last() == Some(&Open::Block)
            && match prev {
                Some(Token::LBrace | Token::Semi) => true,
                Some(Token::RBrace) => closed_block,
                _ => after_expr,
            };
        if let Token::Ident(w) = t {
            let candidates: &[&str] = if item_tilde {
                &["exists"]
            } else if at_item {
                ITEM
            } else if at_stmt {
                STMT
            } else {
                &[]
            };
            let once = uses.get(w) == Some(&1);
            let best = candidates
                .iter()
                .filter(|_| uses.contains_key(w))
                // `else` only after a block (which may be an `if`'s).
                .filter(|&&k| k != "else" || closed_block)
                .filter_map(|&k| Some((edit_distance(w, k), k)).filter(|&(d, k)| d <= limit(k)))
                .filter(|&(_, k)| fits(k, i, once))
                .min_by_key(|&(d, _)| d);
            if let Some((_, k)) = best {
                let span = tokens.span(i);
                let span = Span::new(span.start, span.end);
                diags.push(
                    Diagnostic::error(CODE, span, format!("unknown keyword `{w}`"))
                        .with_label(format!("read as `{k}`"))
                        .with_help(format!("did you mean `{k}`?"))
                        .with_suggestion(span, k),
                );
                t = keyword(k);
                fixed.push((i, t.kind()));
            }
        }
        item_tilde = at_item && t == Token::Tilde;
        closed_block = false;
        match t {
            Token::LBrace => stack.push(if prev == Some(Token::Assign) { Open::List } else { Open::Block }),
            Token::LParen | Token::LBracket => stack.push(Open::Paren),
            Token::RParen | Token::RBracket if stack.last() == Some(&Open::Paren) => {
                stack.pop();
            }
            Token::RBrace => {
                // An unclosed `(` inside the block closes with it.
                while let Some(o) = stack.pop() {
                    if o != Open::Paren {
                        closed_block = o == Open::Block;
                        break;
                    }
                }
            }
            _ => {}
        }
        prev = Some(t);
    }
    for (i, kind) in fixed {
        tokens.list[i].kind = kind;
    }
    diags
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::lexer::KEYWORDS;

    #[test]
    fn every_candidate_is_its_own_keyword() {
        for &k in ITEM.iter().chain(STMT) {
            assert!(KEYWORDS.contains(&k), "{k}");
            assert_eq!(keyword(k).to_string(), format!("`{k}`"));
            assert!(k.chars().count() + 2 <= MAX_WORD);
        }
    }
}
