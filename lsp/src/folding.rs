//! Folding ranges: thread and function bodies, the blocks of `if`/`else`,
//! `while` and `for`, the final condition, herd's initial state and thread
//! table, block comments and runs of line comments. Spans here; which of
//! them span lines, and how a line-only client sees them, is `convert`'s.

use crate::syntax;
use litmus_dsl::Analysis;
use litmus_ir::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoldKind {
    Code,
    Comment,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    pub span: Span,
    pub kind: FoldKind,
}

/// Every candidate fold of `src`, by start; one-line ones are left to the
/// conversion to drop (it knows the lines).
pub fn folds(src: &str, a: &Analysis) -> Vec<Fold> {
    let code = |span: Span| Fold { span, kind: FoldKind::Code };
    let mut out: Vec<Fold> = Vec::new();
    if let Some(s) = syntax::shape(src, a.dialect) {
        out.extend(s.bodies.iter().chain(&s.blocks).copied().map(code));
        out.extend([s.condition, s.init, s.table].into_iter().flatten().map(code));
    }
    out.extend(comments(src, &a.comments).into_iter().map(|span| Fold { span, kind: FoldKind::Comment }));
    out.retain(|f| f.span.start < f.span.end && f.span.end <= src.len());
    out.sort_by_key(|f| (f.span.start, std::cmp::Reverse(f.span.end)));
    out.dedup_by_key(|f| f.span);
    out
}

/// Block comments as they are; `//` comments that each start their line,
/// one line after another, joined into one run.
fn comments(src: &str, spans: &[Span]) -> Vec<Span> {
    let alone =
        |s: Span| src.get(..s.start).is_some_and(|b| b.rsplit(['\n', '\r']).next().unwrap_or("").trim().is_empty());
    let is_line = |s: Span| s.text(src).starts_with("//");
    let mut out: Vec<Span> = Vec::new();
    let mut run: Option<Span> = None;
    for &s in spans {
        if !is_line(s) || !alone(s) {
            out.extend(run.take());
            if !is_line(s) {
                out.push(s);
            }
            continue;
        }
        run = match run {
            // Only a line break (and blanks) between: the run goes on.
            Some(r) if src.get(r.end..s.start).is_some_and(|g| g.trim().is_empty() && line_breaks(g) == 1) => {
                Some(r.join(s))
            }
            prev => {
                out.extend(prev);
                Some(s)
            }
        };
    }
    out.extend(run);
    out
}

fn line_breaks(s: &str) -> usize {
    s.matches('\n').count() + s.matches('\r').count() - s.matches("\r\n").count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_comment_runs_and_blocks() {
        let src = "// a\n// b\n\n// c\nlitmus T /* x\n y */\nshared x = 0; // t\n// u\n// v\nthread P0 {\n  if (x == 1) {\n    x = 2;\n  }\n}\n";
        let a = litmus_dsl::analyze(src);
        let f = folds(src, &a);
        let texts: Vec<(&str, FoldKind)> = f.iter().map(|f| (f.span.text(src), f.kind)).collect();
        assert_eq!(
            texts,
            [
                ("// a\n// b", FoldKind::Comment),
                ("// c", FoldKind::Comment),
                ("/* x\n y */", FoldKind::Comment),
                ("// u\n// v", FoldKind::Comment),
                ("{\n  if (x == 1) {\n    x = 2;\n  }\n}", FoldKind::Code),
                ("{\n    x = 2;\n  }", FoldKind::Code),
            ]
        );
    }
}
