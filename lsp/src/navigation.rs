//! Go to definition, references, rename and the document outline, from the
//! symbol table analysis builds.

use litmus_dsl::{Analysis, Symbol, SymbolKind};
use litmus_ir::{Dialect, Span};

fn covers(s: Span, offset: usize) -> bool {
    s.start <= offset && offset <= s.end
}

pub fn symbol_at(a: &Analysis, offset: usize) -> Option<&Symbol> {
    a.symbols.list.iter().find(|s| covers(s.def, offset) || s.refs.iter().any(|r| covers(*r, offset)))
}

pub fn definition(a: &Analysis, offset: usize) -> Option<Span> {
    symbol_at(a, offset).map(|s| s.def)
}

pub fn references(a: &Analysis, offset: usize, include_declaration: bool) -> Vec<Span> {
    let Some(s) = symbol_at(a, offset) else { return Vec::new() };
    let mut v: Vec<Span> = Vec::new();
    if include_declaration {
        v.push(s.def);
    }
    v.extend(s.refs.iter().copied());
    v.sort();
    v.dedup();
    v
}

use litmus_dsl::native::lexer::KEYWORDS;

/// The span and text a rename would start from.
pub fn prepare_rename(a: &Analysis, offset: usize) -> Result<(Span, String), String> {
    let s = symbol_at(a, offset).ok_or("nothing to rename here")?;
    if a.dialect.is_herd() && matches!(s.kind, SymbolKind::Register | SymbolKind::Thread) {
        return Err("x86 registers and thread names are fixed".into());
    }
    let span = std::iter::once(s.def).chain(s.refs.iter().copied()).find(|r| covers(*r, offset)).unwrap_or(s.def);
    Ok((span, s.name.clone()))
}

/// Every occurrence of the symbol at `offset`, to be replaced by `new_name`.
pub fn rename(a: &Analysis, offset: usize, new_name: &str) -> Result<Vec<(Span, String)>, String> {
    prepare_rename(a, offset)?;
    let s = symbol_at(a, offset).ok_or("nothing to rename here")?;
    // Native names are Rust identifiers (`café`); herd names stay ASCII.
    let ok = match a.dialect {
        Dialect::Native => litmus_dsl::native::lexer::is_identifier(new_name),
        _ => {
            new_name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && new_name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
    };
    if !ok {
        return Err(format!("`{new_name}` is not a valid name"));
    }
    if a.dialect == Dialect::Native && KEYWORDS.contains(&new_name) {
        return Err(format!("`{new_name}` is a keyword"));
    }
    // A new name that another symbol visible in the same scope already uses
    // would change the program's meaning.
    let clash = a.symbols.list.iter().any(|o| {
        o.name == new_name && !std::ptr::eq(o, s) && (o.scope.is_none() || s.scope.is_none() || o.scope == s.scope)
    });
    if clash {
        return Err(format!("`{new_name}` is already used"));
    }
    let mut spans: Vec<Span> = std::iter::once(s.def).chain(s.refs.iter().copied()).collect();
    spans.sort();
    spans.dedup();
    Ok(spans.into_iter().map(|sp| (sp, new_name.to_string())).collect())
}

/// What an outline entry is: a name of the symbol table, or the final
/// condition (no name, but where a reader looks for the test's question).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutlineKind {
    Symbol(SymbolKind),
    Condition,
}

/// One entry of the document outline.
pub struct Outline {
    pub name: String,
    pub detail: String,
    pub kind: OutlineKind,
    pub full: Span,
    pub selection: Span,
    pub children: Vec<Outline>,
}

/// Shared locations; threads and functions with their registers,
/// parameters and labels; the final condition. A herd thread spans the
/// thread table (its column is no one span) and its registers, so editors
/// nest and follow them.
pub fn outline(src: &str, a: &Analysis) -> Vec<Outline> {
    let leaf = |s: &Symbol| Outline {
        name: s.name.clone(),
        detail: s.detail.clone(),
        kind: OutlineKind::Symbol(s.kind),
        full: s.full.join(s.def),
        selection: s.def,
        children: Vec::new(),
    };
    let shape = crate::syntax::shape(src, a.dialect);
    let mut out: Vec<Outline> = Vec::new();
    for s in &a.symbols.list {
        match s.kind {
            SymbolKind::Shared | SymbolKind::Array if s.scope.is_none() => out.push(leaf(s)),
            SymbolKind::Thread | SymbolKind::Function => {
                let mut o = leaf(s);
                o.children = a
                    .symbols
                    .list
                    .iter()
                    .filter(|c| {
                        c.scope.as_deref() == Some(s.name.as_str())
                            && matches!(c.kind, SymbolKind::Register | SymbolKind::Param | SymbolKind::Label)
                    })
                    .map(leaf)
                    .collect();
                if a.dialect.is_herd() {
                    let table = shape.as_ref().and_then(|sh| sh.table);
                    o.full = o.children.iter().map(|c| c.full).chain(table).fold(o.full, Span::join);
                }
                out.push(o);
            }
            _ => {}
        }
    }
    if let (Some(c), Some(full)) = (&a.condition, shape.as_ref().and_then(|sh| sh.condition)) {
        let text = format!("{} ({})", c.quantifier.as_str(), c.text);
        // A long condition is for the hover; the outline shows its start.
        let name = match text.char_indices().nth(80) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text,
        };
        // The quantifier's word, where editors put the cursor.
        let word = src.get(full.start..full.end).map_or(0, |t| t.find([' ', '(']).unwrap_or(t.len()));
        out.push(Outline {
            name,
            detail: "final condition".into(),
            kind: OutlineKind::Condition,
            full,
            selection: Span::new(full.start, full.start + word),
            children: Vec::new(),
        });
    }
    out.sort_by_key(|o| o.full.start);
    out
}
