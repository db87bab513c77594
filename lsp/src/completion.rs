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

pub fn complete(a: &Analysis, offset: usize) -> Vec<Item> {
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
