//! Signature help: the call around the cursor (a function of the file, or a
//! builtin: `cas`, `xchg`, `fetch_add`, `lock`, `unlock`) and the argument
//! the cursor is in. Read from the tokens, so it works mid-typing.

use crate::completion::{builtin, call_at};
use litmus_ir::Dialect;
use std::ops::Range;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// `cas(loc, expected, new)`.
    pub label: String,
    /// Markdown.
    pub doc: Option<String>,
    /// Each parameter's byte range in `label`, and what it is.
    pub params: Vec<(Range<usize>, Option<String>)>,
    /// The argument the cursor is in, from 0 (maybe past the last one).
    pub active: usize,
}

pub fn signature_help(text: &str, dialect: Dialect, offset: usize) -> Option<Signature> {
    if dialect.is_herd() {
        return None;
    }
    let (name, commas, outline) = call_at(text, offset)?;
    let (params, doc): (Vec<(String, Option<String>)>, String) = match builtin(&name) {
        Some(b) => (b.params.iter().map(|(p, d)| (p.to_string(), Some(d.to_string()))).collect(), b.doc.into()),
        None => {
            let f = outline.fns.iter().find(|f| f.name == name)?;
            let doc = if f.value { "Returns a value; inlined at the call." } else { "Inlined at the call." };
            (f.params.iter().map(|p| (p.clone(), None)).collect(), doc.into())
        }
    };
    let mut label = format!("{name}(");
    let mut ranges = Vec::new();
    for (k, (p, d)) in params.into_iter().enumerate() {
        if k > 0 {
            label.push_str(", ");
        }
        let start = label.len();
        label.push_str(&p);
        ranges.push((start..label.len(), d));
    }
    label.push(')');
    Some(Signature { label, doc: Some(doc), params: ranges, active: commas })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(marked: &str) -> Option<Signature> {
        let offset = marked.find('|').unwrap();
        let text = format!("{}{}", &marked[..offset], &marked[offset + 1..]);
        signature_help(&text, litmus_dsl::detect_dialect(&text), offset)
    }

    #[test]
    fn builtins_and_functions_with_the_active_argument() {
        let head = "litmus T\nshared x = 0;\nfn add(a, b) {\n  return a + b;\n}\nthread P0 {\n";
        let s = at(&format!("{head}  let r = cas(x, |")).unwrap();
        assert_eq!((s.label.as_str(), s.active), ("cas(loc, expected, new)", 1));
        assert_eq!(&s.label[s.params[1].0.clone()], "expected");
        // Grouping parentheses and a nested call's arguments are looked through.
        let s = at(&format!("{head}  let r = add(1, (2 + fetch_add(x, 1)) * |")).unwrap();
        assert_eq!((s.label.as_str(), s.active), ("add(a, b)", 1));
        let s = at(&format!("{head}  let r = add(fetch_add(|x, 1), 2);\n}}\n")).unwrap();
        assert_eq!((s.label.as_str(), s.active), ("fetch_add(loc, delta)", 0));
        assert_eq!(at(&format!("{head}  let r = add(1, 2)|;\n}}\n")), None);
        assert_eq!(at(&format!("{head}  if (|")), None);
        assert_eq!(at(&format!("{head}  nope(|")), None);
        let s = at(&format!("{head}  lock(|")).unwrap();
        assert_eq!(s.label, "lock(m)");
    }
}
