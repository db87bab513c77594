//! Completion: keywords, and the names in scope at the cursor (shared
//! locations, functions, the enclosing thread's or function's registers;
//! `THREAD:reg` in the final condition). Herd files: mnemonics and registers.

use litmus_dsl::{Analysis, Dialect, SymbolKind};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub label: String,
    pub kind: ItemKind,
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    Keyword,
    Variable,
    Function,
    Thread,
}

const X86: &[&str] = &[
    "MOV",
    "XCHG",
    "LOCK XADD",
    "LOCK CMPXCHG",
    "LOCK ADD",
    "LOCK INC",
    "LOCK DEC",
    "ADD",
    "SUB",
    "INC",
    "DEC",
    "AND",
    "OR",
    "XOR",
    "CMP",
    "TEST",
    "JMP",
    "JE",
    "JNE",
    "MFENCE",
    "SFENCE",
    "LFENCE",
    "NOP",
    "EAX",
    "EBX",
    "ECX",
    "EDX",
    "exists",
    "~exists",
    "forall",
    "locations",
    "filter",
];

/// What may go at `offset` of `text`, in the order to offer it: where an
/// expression goes (after `=`, `(`, an operator), the names in scope before
/// the keywords.
pub fn complete(a: &Analysis, text: &str, offset: usize) -> Vec<Item> {
    let mut out = candidates(a, offset);
    if in_expression(text, offset) {
        // A stable partition: names, then keywords, each in their order.
        out.sort_by_key(|i| i.kind == ItemKind::Keyword);
    }
    out
}

/// Is the word being typed at `offset` where an expression goes: the last
/// character before it (spaces skipped) an `=`, an operator or an opening
/// bracket or comma?
fn in_expression(text: &str, offset: usize) -> bool {
    let before = text.get(..offset.min(text.len())).unwrap_or("");
    let word = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
    let prev = word.trim_end().chars().last();
    matches!(prev, Some('=' | '(' | '[' | ',' | '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '<' | '>' | '!'))
}

fn candidates(a: &Analysis, offset: usize) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let kw = |k: &str| Item { label: k.to_string(), kind: ItemKind::Keyword, detail: "keyword".into() };
    if a.dialect == Dialect::HerdX86 {
        out.extend(X86.iter().map(|k| kw(k)));
        for s in &a.symbols.list {
            if s.kind == SymbolKind::Shared || s.kind == SymbolKind::Array {
                out.push(Item { label: s.name.clone(), kind: ItemKind::Variable, detail: s.detail.clone() });
            }
        }
        out.dedup_by(|a, b| a.label == b.label);
        return out;
    }
    // `litmus` only starts the file; `~exists` is two tokens but one word to a user.
    let words = litmus_dsl::native::lexer::KEYWORDS.iter().copied().filter(|k| *k != "litmus");
    out.extend(words.chain(["~exists"]).map(kw));
    // The thread or function the cursor is in.
    let enclosing = a
        .symbols
        .list
        .iter()
        .filter(|s| matches!(s.kind, SymbolKind::Thread | SymbolKind::Function))
        .find(|s| s.full.start <= offset && offset <= s.full.end)
        .map(|s| s.name.clone());
    for s in &a.symbols.list {
        match s.kind {
            SymbolKind::Shared | SymbolKind::Array => {
                out.push(Item { label: s.name.clone(), kind: ItemKind::Variable, detail: s.detail.clone() })
            }
            SymbolKind::Function => {
                out.push(Item { label: s.name.clone(), kind: ItemKind::Function, detail: s.detail.clone() })
            }
            SymbolKind::Register | SymbolKind::Param if enclosing.is_some() && s.scope == enclosing => {
                out.push(Item { label: s.name.clone(), kind: ItemKind::Variable, detail: s.detail.clone() })
            }
            SymbolKind::Register if enclosing.is_none() => {
                // Outside any thread (the final condition): `THREAD:reg`.
                if let Some(t) = &s.scope {
                    out.push(Item {
                        label: format!("{t}:{}", s.name),
                        kind: ItemKind::Variable,
                        detail: s.detail.clone(),
                    });
                }
            }
            SymbolKind::Thread if enclosing.is_none() => {
                out.push(Item { label: s.name.clone(), kind: ItemKind::Thread, detail: s.detail.clone() })
            }
            _ => {}
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|i| seen.insert(i.label.clone()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_an_equals_sign_the_names_in_scope_come_before_the_keywords() {
        let text = "litmus C\nshared x = 0;\nthread P0 {\n  let a = 1;\n  let r0 = \n}\n";
        let a = litmus_dsl::analyze(text);
        let at = text.find("let r0 = ").unwrap() + "let r0 = ".len();
        let items = complete(&a, text, at);
        let first_kw = items.iter().position(|i| i.kind == ItemKind::Keyword).unwrap();
        let names: Vec<&str> = items[..first_kw].iter().map(|i| i.label.as_str()).collect();
        assert!(names.contains(&"x") && names.contains(&"a"), "{names:?}");
        assert!(items[first_kw..].iter().all(|i| i.kind == ItemKind::Keyword));
        // At a statement's start, the keywords stay first.
        let at = text.find("  let a").unwrap() + 2;
        assert_eq!(complete(&a, text, at)[0].kind, ItemKind::Keyword);
    }
}
