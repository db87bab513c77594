//! Names and where they are declared and used: what editors navigate.

use crate::span::Span;
use std::collections::HashSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    Shared,
    Array,
    Register,
    Function,
    Param,
    Thread,
    Label,
}

#[derive(Clone, Debug)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// The declaring occurrence (herd: the first occurrence).
    pub def: Span,
    /// Every other occurrence.
    pub refs: Vec<Span>,
    /// One line for hovers: `shared x = 0`, `let r0 = y (in P0)`.
    pub detail: String,
    /// The thread or function the name is local to.
    pub scope: Option<String>,
    /// The span of the whole declaring item (for document outlines).
    pub full: Span,
}

#[derive(Clone, Default)]
pub struct Symbols {
    pub list: Vec<Symbol>,
    /// Every (symbol, reference) recorded, so a repeated one is found in O(1).
    seen: HashSet<(usize, Span)>,
}

impl std::fmt::Debug for Symbols {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Symbols").field("list", &self.list).finish()
    }
}

impl Symbols {
    pub fn add(
        &mut self,
        name: &str,
        kind: SymbolKind,
        def: Span,
        detail: String,
        scope: Option<String>,
        full: Span,
    ) -> usize {
        self.list.push(Symbol { name: name.to_string(), kind, def, refs: Vec::new(), detail, scope, full });
        self.list.len() - 1
    }
    pub fn reference(&mut self, id: usize, span: Span) {
        if let Some(s) = self.list.get_mut(id) {
            if s.def != span && self.seen.insert((id, span)) {
                s.refs.push(span);
            }
        }
    }
    /// The symbol whose declaration or a use covers `offset`.
    pub fn at(&self, offset: usize) -> Option<&Symbol> {
        self.list.iter().find(|s| covers(s.def, offset) || s.refs.iter().any(|r| covers(*r, offset)))
    }
}

fn covers(s: Span, offset: usize) -> bool {
    s.start <= offset && offset <= s.end
}
