//! Document highlight: every occurrence of the name under the cursor, each
//! said to write it (a declaration, an assignment, an atomic's location,
//! an instruction's destination) or to read it, as far as the parse tells.

use crate::{navigation, syntax};
use litmus_dsl::Analysis;
use litmus_ir::{Dialect, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    /// The parse made no tree to tell by.
    Text,
}

/// The occurrences of the symbol at `offset`, in order; empty off a name.
pub fn highlights(src: &str, a: &Analysis, offset: usize) -> Vec<(Span, Access)> {
    let Some(sym) = navigation::symbol_at(a, offset) else { return Vec::new() };
    let shape = syntax::shape(src, a.dialect);
    let mut spans: Vec<Span> = std::iter::once(sym.def).chain(sym.refs.iter().copied()).collect();
    spans.sort();
    spans.dedup();
    spans
        .into_iter()
        .map(|s| {
            let access = match &shape {
                None => Access::Text,
                // A native symbol's definition is its declaration; a herd
                // one's is only where it first appears.
                Some(_) if s == sym.def && a.dialect == Dialect::Native => Access::Write,
                Some(shape) if shape.writes.contains(&s) => Access::Write,
                Some(_) => Access::Read,
            };
            (s, access)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(src: &str, a: &Analysis, needle: &str) -> Vec<(String, Access)> {
        highlights(src, a, src.find(needle).unwrap())
            .into_iter()
            .map(|(s, k)| (format!("{}@{}", s.text(src), s.start), k))
            .collect()
    }

    #[test]
    fn native_reads_and_writes() {
        let src = "litmus T\nshared x = 0;\nthread P0 {\n  let r = x;\n  x = r + 1;\n  let c = cas(x, 1, 2);\n}\nexists (x == 2 && P0:r == 0);\n";
        let a = litmus_dsl::analyze(src);
        let kinds: Vec<Access> = at(src, &a, "x = 0").into_iter().map(|h| h.1).collect();
        use Access::*;
        assert_eq!(kinds, [Write, Read, Write, Write, Read]);
        let kinds: Vec<Access> = at(src, &a, "r = x").into_iter().map(|h| h.1).collect();
        assert_eq!(kinds, [Write, Read, Read]);
        assert!(highlights(src, &a, src.find("shared").unwrap()).is_empty());
    }

    #[test]
    fn herd_registers_and_locations() {
        let src = "X86 T\n{ x=0; }\n P0 | P1 ;\n MOV [x],$1 | MOV EAX,[x] ;\nexists (1:EAX=1)\n";
        let a = litmus_dsl::analyze(src);
        use Access::*;
        let kinds: Vec<Access> = at(src, &a, "x=0").into_iter().map(|h| h.1).collect();
        assert_eq!(kinds, [Write, Write, Read]);
        let kinds: Vec<Access> = at(src, &a, "EAX,").into_iter().map(|h| h.1).collect();
        assert_eq!(kinds.first(), Some(&Write));
        assert!(kinds[1..].iter().all(|k| *k == Read), "{kinds:?}");
    }
}
