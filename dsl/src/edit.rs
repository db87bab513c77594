//! Source edits that keep a file's layout: inserting fences after
//! statements (both dialects) and re-aligning a herd thread table.

use crate::herd::ast::HerdFile;
use crate::ir::{Program, StmtId};
use crate::{Dialect, FenceKind};

/// Replace `src[start..end]` with `text` (byte offsets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// A fence to insert right after a statement of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FenceInsertion {
    pub stmt: StmtId,
    pub kind: FenceKind,
}

/// Apply non-overlapping edits.
pub fn apply(src: &str, edits: &[TextEdit]) -> String {
    let mut edits: Vec<&TextEdit> = edits.iter().collect();
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(src.len() + 64);
    let mut at = 0;
    for e in edits {
        if e.start < at {
            continue;
        }
        out.push_str(&src[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(&src[at..]);
    out
}

/// The text of a fence statement in the native dialect.
pub fn native_fence(kind: FenceKind) -> String {
    match kind {
        FenceKind::Full => "fence;".into(),
        k => format!("fence {};", k.as_str()),
    }
}

/// The x86 instruction for a fence: MFENCE orders everything, SFENCE stores.
pub fn x86_fence(kind: FenceKind) -> &'static str {
    match kind {
        FenceKind::WW => "SFENCE",
        FenceKind::RR => "LFENCE",
        _ => "MFENCE",
    }
}

/// Edits inserting each fence after its statement.
pub fn fence_edits(src: &str, prog: &Program, fences: &[FenceInsertion]) -> Vec<TextEdit> {
    let mut fences: Vec<FenceInsertion> = fences.to_vec();
    fences.sort();
    fences.dedup_by_key(|f| f.stmt);
    match prog.dialect {
        Dialect::Native => fences.iter().map(|f| native_insertion(src, prog, *f)).collect(),
        Dialect::HerdX86 => herd_fence_edit(src, prog, &fences).into_iter().collect(),
    }
}

fn native_insertion(src: &str, prog: &Program, f: FenceInsertion) -> TextEdit {
    let s = &prog.stmts[f.stmt as usize];
    let end = s.span.end.min(src.len());
    let line_end = src[end..].find(['\n', '\r']).map(|i| end + i).unwrap_or(src.len());
    let rest = src[end..line_end].trim();
    let fence = native_fence(f.kind);
    if rest.is_empty() || rest.starts_with("//") {
        // On a line of its own, indented like the statement.
        let line_start = src[..s.span.start].rfind(['\n', '\r']).map(|i| i + 1).unwrap_or(0);
        let indent: String = src[line_start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        let newline = if src[line_end..].starts_with("\r\n") { "\r\n" } else { "\n" };
        TextEdit { start: line_end, end: line_end, text: format!("{newline}{indent}{fence}") }
    } else {
        TextEdit { start: end, end, text: format!(" {fence}") }
    }
}

/// One row of a herd thread table: its cells' text.
fn table_rows(src: &str, file: &HerdFile) -> Option<(usize, usize, Vec<Vec<String>>)> {
    let span = file.table_span;
    let start = src[..span.start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let end = src[span.end..].find('\n').map(|i| span.end + i).unwrap_or(src.len());
    let mut rows = Vec::new();
    for line in src[start..end].lines() {
        let l = line.trim_end();
        if l.trim().is_empty() {
            continue;
        }
        let body = l.trim_end().strip_suffix(';')?;
        rows.push(body.split('|').map(|c| c.trim().to_string()).collect());
    }
    Some((start, end, rows))
}

/// Render a table with every column padded to its widest cell, herd style.
pub fn render_table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let mut widths = vec![0; cols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for (n, r) in rows.iter().enumerate() {
        let cells: Vec<String> = (0..cols)
            .map(|i| {
                let c = r.get(i).map(|s| s.as_str()).unwrap_or("");
                format!(" {}{} ", c, " ".repeat(widths[i] - c.chars().count()))
            })
            .collect();
        out.push_str(&cells.join("|"));
        out.push(';');
        if n + 1 < rows.len() {
            out.push('\n');
        }
    }
    out
}

/// The herd table re-aligned, with an `MFENCE`/`SFENCE` row after each
/// fenced instruction's row. One edit replacing the table.
fn herd_fence_edit(src: &str, prog: &Program, fences: &[FenceInsertion]) -> Option<TextEdit> {
    let (file, _) = crate::herd::parser::parse(src);
    let file = file?;
    let (start, end, rows) = table_rows(src, &file)?;
    let threads = file.threads.len();
    // The row (0 = header) holding each fenced statement.
    let mut after: Vec<(usize, usize, FenceKind)> = Vec::new();
    for f in fences {
        let s = &prog.stmts[f.stmt as usize];
        let t = s.thread as usize;
        let row = file.code.get(t)?.iter().position(|c| c.span.start <= s.span.start && s.span.end <= c.span.end)?;
        after.push((row + 1, t, f.kind));
    }
    let mut out_rows: Vec<Vec<String>> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        out_rows.push(r.clone());
        let mut fence_row: Option<Vec<String>> = None;
        for &(row, t, kind) in &after {
            if row == i {
                let fr = fence_row.get_or_insert_with(|| vec![String::new(); threads]);
                // AT&T files write mnemonics in lower case.
                fr[t] = match file.arch {
                    crate::herd::ast::Arch::X86_64 => x86_fence(kind).to_ascii_lowercase(),
                    crate::herd::ast::Arch::X86 => x86_fence(kind).to_string(),
                };
            }
        }
        if let Some(fr) = fence_row {
            out_rows.push(fr);
        }
    }
    Some(TextEdit { start, end, text: render_table(&out_rows) })
}

/// Re-align a herd file's thread table (formatting). `None` if unchanged
/// or unparsable.
pub fn align_herd_table(src: &str) -> Option<TextEdit> {
    let (file, diags) = crate::herd::parser::parse(src);
    if diags.iter().any(|d| d.is_error()) {
        return None;
    }
    let file = file?;
    let (start, end, rows) = table_rows(src, &file)?;
    let text = render_table(&rows);
    (text != src[start..end]).then_some(TextEdit { start, end, text })
}
