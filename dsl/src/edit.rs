//! Source edits that keep a file's layout: inserting fences after
//! statements (both dialects) and re-aligning a herd thread table.

use crate::herd::ast::HerdFile;
pub use crate::ir::Place;
use crate::ir::{Program, StmtId};
use crate::{Dialect, FenceKind};

/// Replace `src[start..end]` with `text` (byte offsets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// A fence to insert at a place of a statement of a thread: after it (the
/// default), before it, or at a loop's head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FenceInsertion {
    pub stmt: StmtId,
    pub kind: FenceKind,
    pub place: Place,
}

impl FenceInsertion {
    /// A fence right after `stmt`.
    pub fn after(stmt: StmtId, kind: FenceKind) -> Self {
        FenceInsertion { stmt, kind, place: Place::After }
    }
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

/// The RISC-V instruction for a fence: `fence pred,succ` (an x86 kind as
/// the sets it orders), or `fence.tso`.
pub fn riscv_fence(kind: FenceKind) -> String {
    match kind {
        FenceKind::Tso => "fence.tso".into(),
        k => format!("fence {}", riscv_kind(k).as_str()),
    }
}

/// The AArch64 barrier for a fence: `DMB ST` orders stores, `DMB LD` a
/// load before anything, `DMB SY` everything.
pub fn arm_fence(kind: FenceKind) -> String {
    arm_kind(kind).as_str().replacen('.', " ", 1)
}

/// A fence kind as AArch64 writes it: the weakest `DMB` that orders what
/// it orders.
pub fn arm_kind(kind: FenceKind) -> FenceKind {
    let k = match kind {
        FenceKind::Arm(_) => return kind,
        FenceKind::WW => "DMB.ST",
        FenceKind::RR => "DMB.LD",
        FenceKind::Sets { pred: FenceKind::R, .. } => "DMB.LD",
        FenceKind::Sets { pred: FenceKind::W, succ: FenceKind::W } => "DMB.ST",
        _ => "DMB.SY",
    };
    FenceKind::arm(k).expect("a barrier")
}

/// A fence kind as RISC-V writes it: its access sets.
pub fn riscv_kind(kind: FenceKind) -> FenceKind {
    kind.sets()
}

/// A statement's access given the labels `to`, as its dialect writes it:
/// the word for what it becomes (`LDAR`, `amoswap.w.aq`, `acquire`) and
/// the statement's new text. `None` where the text does not show how.
pub fn relabel(dialect: Dialect, text: &str, to: crate::ir::Labels) -> Option<(String, String)> {
    use crate::ir::Labels;
    let text = text.trim();
    match dialect {
        Dialect::HerdAArch64 => {
            let (mnemonic, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
            let upper = mnemonic.to_ascii_uppercase();
            // LDR/LDAPR/STR with their size suffixes (B, H).
            let (stem, size) = ["LDAPR", "LDR", "STR"]
                .iter()
                .find_map(|s| upper.strip_prefix(s).filter(|z| matches!(*z, "" | "B" | "H")).map(|z| (*s, z)))?;
            let new = match (stem, to) {
                ("LDR" | "LDAPR", l) if l == Labels::A => "LDAR",
                ("LDR", l) if l == Labels::Q => "LDAPR",
                ("STR", l) if l == Labels::L => "STLR",
                _ => return None,
            };
            let word = format!("{new}{size}");
            Some((word.clone(), format!("{word} {}", rest.trim_start())))
        }
        Dialect::HerdRiscv => {
            let (mnemonic, rest) = text.split_once(char::is_whitespace)?;
            let suffix = if to.contains(Labels::ACQ_REL) {
                ".aqrl"
            } else if to.contains(Labels::ACQ) {
                ".aq"
            } else if to.contains(Labels::REL) {
                ".rl"
            } else {
                return None;
            };
            let word = format!("{mnemonic}{suffix}");
            Some((word.clone(), format!("{word} {}", rest.trim_start())))
        }
        Dialect::HerdC => {
            let order = to.memory_order()?;
            let at = text.find("memory_order_")?;
            let end =
                at + text[at..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len() - at);
            Some((order.to_string(), format!("{}memory_order_{order}{}", &text[..at], &text[end..])))
        }
        _ => None,
    }
}

/// A statement's access given the labels `to`, as the program's text
/// says it: [`relabel`], or in the native dialect the access's `@order`
/// (`flag = 1` → `flag@release = 1`), its location found in the IR.
pub fn relabel_stmt(prog: &Program, stmt: StmtId, text: &str, to: crate::ir::Labels) -> Option<(String, String)> {
    if prog.dialect != Dialect::Native {
        return relabel(prog.dialect, text, to);
    }
    let cell = prog.threads.iter().flat_map(|t| &t.code).find_map(|i| match *i {
        crate::ir::Instr::Load { addr, stmt: s, .. }
        | crate::ir::Instr::Store { addr, stmt: s, .. }
        | crate::ir::Instr::Rmw { addr, stmt: s, .. }
            if s == stmt =>
        {
            match addr {
                crate::ir::Addr::Fixed(c) => Some(c),
                crate::ir::Addr::Indexed { base, .. } => Some(base),
                _ => None,
            }
        }
        _ => None,
    })?;
    let loc = prog.locations.iter().find(|l| l.base <= cell && cell < l.base + l.len.max(1))?;
    relabel_native(text, &loc.name, to)
}

/// `text` with the one access of `loc` given the order of `to`: its
/// `@order` replaced, or one added after the location (and its index).
fn relabel_native(text: &str, loc: &str, to: crate::ir::Labels) -> Option<(String, String)> {
    use crate::native::lexer::Token;
    let order = to.memory_order()?;
    let (tokens, _) = crate::native::lexer::lex(text);
    let mut at = tokens.iter().enumerate().filter(|(_, (t, _))| *t == Token::Ident(loc)).map(|(i, _)| i);
    let i = at.next()?;
    if at.next().is_some() {
        return None;
    }
    let mut j = i + 1;
    if matches!(tokens.get(j), Some((Token::LBracket, _))) {
        let mut depth = 0;
        while let Some((t, _)) = tokens.get(j) {
            depth += match t {
                Token::LBracket => 1,
                Token::RBracket => -1,
                _ => 0,
            };
            j += 1;
            if depth == 0 {
                break;
            }
        }
    }
    let out = match (tokens.get(j), tokens.get(j + 1)) {
        (Some((Token::At, _)), Some((Token::Ident(_), old))) => {
            format!("{}{order}{}", &text[..old.start], &text[old.end..])
        }
        _ => {
            let end = tokens[j - 1].1.end;
            format!("{}@{order}{}", &text[..end], &text[end..])
        }
    };
    Some((order.to_string(), out.trim().to_string()))
}

/// A barrier as its dialect writes it (`DMB ISH`, `fence r,rw`,
/// `atomic_thread_fence(memory_order_release);`, `fence;`).
pub fn barrier_text(dialect: Dialect, kind: FenceKind) -> String {
    match (dialect, kind) {
        (Dialect::HerdC, FenceKind::Order(l)) => {
            format!("atomic_thread_fence(memory_order_{});", l.memory_order().unwrap_or("seq_cst"))
        }
        (Dialect::HerdC, _) => C_FENCE.into(),
        (Dialect::HerdAArch64, k) => arm_fence(k),
        (Dialect::HerdRiscv, k) => riscv_fence(k),
        (Dialect::HerdX86, k) => x86_fence(k).into(),
        (Dialect::Native, k) => native_fence(k),
    }
}

/// One change of a repair, as the source takes it: a barrier inserted, or
/// a statement's access given other labels ([`relabel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepairEdit {
    Fence(FenceInsertion),
    Relabel { stmt: StmtId, to: crate::ir::Labels },
}

/// Edits making each change of a repair: a herd table rewritten once
/// (cells relabelled, barrier rows inserted, columns re-aligned); in C and
/// the native dialect, each access's text replaced and each barrier
/// inserted on its own. A relabel whose text cannot say it is skipped.
pub fn repair_edits(src: &str, prog: &Program, changes: &[RepairEdit]) -> Vec<TextEdit> {
    let fences: Vec<FenceInsertion> =
        changes.iter().filter_map(|c| if let RepairEdit::Fence(f) = c { Some(*f) } else { None }).collect();
    let relabels: Vec<(StmtId, crate::ir::Labels)> = changes
        .iter()
        .filter_map(|c| if let RepairEdit::Relabel { stmt, to } = c { Some((*stmt, *to)) } else { None })
        .collect();
    match prog.dialect {
        Dialect::HerdX86 | Dialect::HerdRiscv | Dialect::HerdAArch64 => {
            let mut fences = fences;
            fences.sort_by_key(|f| (f.stmt, f.place, f.kind));
            fences.dedup_by_key(|f| (f.stmt, f.place));
            fences.retain(|f| f.place == Place::After);
            herd_table_edit(src, prog, &fences, &relabels).into_iter().collect()
        }
        Dialect::HerdC | Dialect::Native => {
            let mut edits = fence_edits(src, prog, &fences);
            for (stmt, to) in relabels {
                let Some(s) = prog.stmts.get(stmt as usize) else { continue };
                let (start, end) = (s.span.start.min(src.len()), s.span.end.min(src.len()));
                if let Some((_, text)) = relabel_stmt(prog, stmt, &src[start..end], to) {
                    edits.push(TextEdit { start, end, text });
                }
            }
            edits.sort_by_key(|e| (e.start, e.end));
            edits
        }
    }
}

/// Edits inserting each fence at its place (a place its statement cannot
/// take, [`Program::fence_place_ok`], is skipped: the IR insertion skips it too).
pub fn fence_edits(src: &str, prog: &Program, fences: &[FenceInsertion]) -> Vec<TextEdit> {
    let mut fences: Vec<FenceInsertion> = fences.to_vec();
    fences.sort_by_key(|f| (f.stmt, f.place, f.kind));
    fences.dedup_by_key(|f| (f.stmt, f.place));
    fences.retain(|f| f.place == Place::After || prog.fence_place_ok(f.stmt, f.place));
    match prog.dialect {
        Dialect::Native => {
            let mut edits = Vec::new();
            for f in &fences {
                match f.place {
                    Place::After => edits.push(native_insertion(src, prog, *f)),
                    Place::Before => edits.push(native_before(src, prog.stmts[f.stmt as usize].extent.start, f.kind)),
                    Place::LoopHead => edits.extend(native_loop_head(src, prog, *f)),
                }
            }
            // Two fences at one offset (after one statement, before the
            // next on the same line) both stay, in that order.
            edits.sort_by_key(|e| e.start);
            merge_at_same_offset(edits)
        }
        Dialect::HerdX86 | Dialect::HerdRiscv | Dialect::HerdAArch64 => {
            fences.retain(|f| f.place == Place::After);
            herd_fence_edit(src, prog, &fences).into_iter().collect()
        }
        Dialect::HerdC => {
            fences.retain(|f| f.place == Place::After);
            fences.iter().map(|f| line_insertion(src, prog, *f, &barrier_text(Dialect::HerdC, f.kind))).collect()
        }
    }
}

/// Edits that insert at one offset become one edit (their texts in order):
/// [`apply`] keeps only the first of overlapping edits.
fn merge_at_same_offset(edits: Vec<TextEdit>) -> Vec<TextEdit> {
    let mut out: Vec<TextEdit> = Vec::new();
    for e in edits {
        match out.last_mut() {
            Some(last) if last.start == e.start && last.end == e.end && e.start == e.end => last.text.push_str(&e.text),
            _ => out.push(e),
        }
    }
    out
}

/// The indentation of the line holding byte `at`, and whether only
/// blanks precede `at` on it.
fn line_indent(src: &str, at: usize) -> (String, bool, usize) {
    let line_start = src[..at].rfind(['\n', '\r']).map(|i| i + 1).unwrap_or(0);
    let indent: String = src[line_start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let first = src[line_start..at].trim().is_empty();
    (indent, first, line_start)
}

fn newline_of(src: &str) -> &'static str {
    if src.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// `fence;` right before the statement starting at `at`: on a line of its
/// own, indented like it, when it starts its line; else inline.
fn native_before(src: &str, at: usize, kind: FenceKind) -> TextEdit {
    let at = at.min(src.len());
    let (indent, first, line_start) = line_indent(src, at);
    let fence = native_fence(kind);
    if first {
        TextEdit { start: line_start, end: line_start, text: format!("{indent}{fence}{}", newline_of(src)) }
    } else {
        TextEdit { start: at, end: at, text: format!("{fence} ") }
    }
}

/// A loop-head fence: one before the loop and one last in its body, just
/// before the body's closing brace.
fn native_loop_head(src: &str, prog: &Program, f: FenceInsertion) -> Vec<TextEdit> {
    let s = &prog.stmts[f.stmt as usize];
    let mut out = vec![native_before(src, s.extent.start, f.kind)];
    let end = s.extent.end.min(src.len());
    let Some(close) = src[..end].rfind('}') else { return out };
    let (indent, first, line_start) = line_indent(src, close);
    let fence = native_fence(f.kind);
    out.push(if first {
        TextEdit { start: line_start, end: line_start, text: format!("{indent}  {fence}{}", newline_of(src)) }
    } else {
        let pad = if src[..close].ends_with(' ') { "" } else { " " };
        TextEdit { start: close, end: close, text: format!("{pad}{fence} ") }
    });
    out
}

fn native_insertion(src: &str, prog: &Program, f: FenceInsertion) -> TextEdit {
    line_insertion(src, prog, f, &native_fence(f.kind))
}

/// A C11 fence: the one that orders every pair (what `fence_ir` inserts).
pub const C_FENCE: &str = "atomic_thread_fence(memory_order_seq_cst);";

/// `fence` (a statement's text) right after statement `f.stmt`: on a line
/// of its own, indented like it, where nothing follows it on its line.
fn line_insertion(src: &str, prog: &Program, f: FenceInsertion, fence: &str) -> TextEdit {
    let s = &prog.stmts[f.stmt as usize];
    let end = s.extent.end.min(src.len());
    let line_end = src[end..].find(['\n', '\r']).map(|i| end + i).unwrap_or(src.len());
    let rest = src[end..line_end].trim();
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
    herd_table_edit(src, prog, fences, &[])
}

/// A herd table with `fences` inserted as rows and each of `relabels`'
/// statements rewritten in its cell.
fn herd_table_edit(
    src: &str,
    prog: &Program,
    fences: &[FenceInsertion],
    relabels: &[(StmtId, crate::ir::Labels)],
) -> Option<TextEdit> {
    let (file, _) = crate::herd::parser::parse(src);
    let file = file?;
    let (start, end, mut rows) = table_rows(src, &file)?;
    let threads = file.threads.len();
    for &(stmt, to) in relabels {
        let s = &prog.stmts[stmt as usize];
        let t = s.thread as usize;
        let row = file.code.get(t)?.iter().position(|c| c.span.start <= s.span.start && s.span.end <= c.span.end)?;
        let cell = rows.get_mut(row + 1)?.get_mut(t)?;
        if let Some((_, text)) = relabel(prog.dialect, cell, to) {
            *cell = text;
        }
    }
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
                    crate::herd::ast::Arch::RiscV => riscv_fence(kind),
                    crate::herd::ast::Arch::AArch64 => arm_fence(kind),
                    crate::herd::ast::Arch::C => C_FENCE.to_string(),
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
