//! Range formatting: the whole file formatted as Format Document would
//! (`format`: the canonical layout, the re-indenter for a file with errors,
//! herd's table alignment), then compared with the text line by line, and
//! only the changes on the lines the range covers kept. A changed line is
//! rewritten without its line break; lines added or removed are kept only
//! when every line they replace is in the range: nothing outside is touched.

use litmus_dsl::edit::TextEdit;
use litmus_ir::{Dialect, Span};

/// A line: where it starts, where its text ends, where the next starts.
#[derive(Clone, Copy, Debug)]
struct Line {
    start: usize,
    end: usize,
    next: usize,
}

/// Lines as LSP counts them (`\n`, `\r\n`, a lone `\r`); a text ending in a
/// line break has no empty line after it here.
fn lines(text: &str) -> Vec<Line> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\n' || b[i] == b'\r' {
            let next = if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') { i + 2 } else { i + 1 };
            out.push(Line { start, end: i, next });
            start = next;
            i = next;
        } else {
            i += 1;
        }
    }
    if start < b.len() {
        out.push(Line { start, end: b.len(), next: b.len() });
    }
    out
}

/// The edits formatting makes on the lines `span` covers (a span ending at
/// a line's very start does not cover that line, as a selection of whole
/// lines does not).
pub fn format_range(src: &str, dialect: Dialect, span: Span) -> Vec<TextEdit> {
    let whole = crate::format::format(src, dialect);
    if whole.is_empty() {
        return Vec::new();
    }
    let formatted = litmus_dsl::edit::apply(src, &whole);
    let old = lines(src);
    let new = lines(&formatted);
    let line_of = |offset: usize| old.partition_point(|l| l.next <= offset);
    let first = line_of(span.start);
    let mut last = line_of(span.end);
    if span.end > span.start && last > first && old.get(last).is_some_and(|l| l.start == span.end) {
        last -= 1;
    }
    let nl = if src.contains("\r\n") { "\r\n" } else { "\n" };
    let old_text: Vec<&str> = old.iter().map(|l| &src[l.start..l.end]).collect();
    let new_text: Vec<&str> = new.iter().map(|l| &formatted[l.start..l.end]).collect();
    // Lines are paired by their text without blanks: formatting mostly
    // moves blanks, so a re-indented or re-spaced line pairs with itself.
    let key = |l: &&str| l.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let old_keys: Vec<String> = old_text.iter().map(key).collect();
    let new_keys: Vec<String> = new_text.iter().map(key).collect();
    let mut edits = Vec::new();
    let rewrite = |i: usize, j: usize, edits: &mut Vec<TextEdit>| {
        if (first..=last).contains(&i) && old_text[i] != new_text[j] {
            edits.push(TextEdit { start: old[i].start, end: old[i].end, text: new_text[j].to_string() });
        }
    };
    for op in diff(&old_keys, &new_keys) {
        let (a0, a1, b0, b1) = match op {
            Op::Same(i, j) => {
                rewrite(i, j, &mut edits);
                continue;
            }
            Op::Change(a0, a1, b0, b1) => (a0, a1, b0, b1),
        };
        if a1 - a0 == b1 - b0 {
            // Lines changed in place: each one in the range, its text only.
            for k in 0..a1 - a0 {
                rewrite(a0 + k, b0 + k, &mut edits);
            }
            continue;
        }
        // Lines added or removed: all within the range, or none.
        let inside = if a0 == a1 { (first..=last).contains(&a0) } else { a0 >= first && a1 <= last + 1 };
        if !inside {
            continue;
        }
        let start = old.get(a0).map_or(src.len(), |l| l.start);
        let end = if a1 > a0 { old[a1 - 1].next } else { start };
        let mut text: String = new_text[b0..b1].iter().flat_map(|l| [*l, nl]).collect();
        // The file's last line had no line break: neither has its replacement.
        if end == src.len() && end > start && !src.ends_with(['\n', '\r']) && text.ends_with(nl) {
            text.truncate(text.len() - nl.len());
        }
        edits.push(TextEdit { start, end, text });
    }
    edits
}

/// A step of a line diff: a line of each side paired, or a run of lines
/// (`old from, old to, new from, new to`) replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Same(usize, usize),
    Change(usize, usize, usize, usize),
}

/// Above this many cells the middle of a changed file is one hunk (the
/// diff stays quadratic only on small inputs).
const MAX_CELLS: usize = 4_000_000;

/// The lines of `a` and `b` paired: common lines at both ends set aside,
/// the middle by a longest common subsequence.
fn diff<T: PartialEq>(a: &[T], b: &[T]) -> Vec<Op> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..].iter().rev().zip(b[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (n, m) = (a.len() - pre - suf, b.len() - pre - suf);
    let mut out: Vec<Op> = (0..pre).map(|k| Op::Same(k, k)).collect();
    let (a_mid, b_mid) = (&a[pre..pre + n], &b[pre..pre + m]);
    if n.saturating_mul(m) > MAX_CELLS || n == 0 || m == 0 {
        if n > 0 || m > 0 {
            out.push(Op::Change(pre, pre + n, pre, pre + m));
        }
    } else {
        // lcs[i][j]: the longest common subsequence of a_mid[i..] and b_mid[j..].
        let w = m + 1;
        let mut lcs = vec![0u32; (n + 1) * w];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i * w + j] = if a_mid[i] == b_mid[j] {
                    lcs[(i + 1) * w + j + 1] + 1
                } else {
                    lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        let mut open: Option<(usize, usize)> = None;
        while i < n || j < m {
            if i < n && j < m && a_mid[i] == b_mid[j] {
                if let Some((oi, oj)) = open.take() {
                    out.push(Op::Change(pre + oi, pre + i, pre + oj, pre + j));
                }
                out.push(Op::Same(pre + i, pre + j));
                i += 1;
                j += 1;
                continue;
            }
            open.get_or_insert((i, j));
            if j < m && (i == n || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j]) {
                j += 1;
            } else {
                i += 1;
            }
        }
        if let Some((oi, oj)) = open {
            out.push(Op::Change(pre + oi, pre + n, pre + oj, pre + m));
        }
    }
    let (a_end, b_end) = (a.len() - suf, b.len() - suf);
    out.extend((0..suf).map(|k| Op::Same(a_end + k, b_end + k)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(src: &str, from: usize, to: usize) -> Span {
        let l = lines(src);
        Span::new(l[from].start, l[to].end)
    }

    #[test]
    fn only_the_lines_in_range_change() {
        let src = "litmus T\nshared x = 0;\nthread P0 {\nx=1;\n      let r = x;\n\n\n\nx = 2;\n}\n";
        let edits = format_range(src, Dialect::Native, lines_of(src, 3, 4));
        let out = litmus_dsl::edit::apply(src, &edits);
        assert_eq!(out, "litmus T\nshared x = 0;\nthread P0 {\n  x = 1;\n  let r = x;\n\n\n\nx = 2;\n}\n");
        // The blank lines go only when the range holds all of them.
        let edits = format_range(src, Dialect::Native, lines_of(src, 5, 8));
        let out = litmus_dsl::edit::apply(src, &edits);
        assert_eq!(out, "litmus T\nshared x = 0;\nthread P0 {\nx=1;\n      let r = x;\n\n  x = 2;\n}\n");
        let edits = format_range(src, Dialect::Native, lines_of(src, 6, 8));
        let out = litmus_dsl::edit::apply(src, &edits);
        assert_eq!(out, "litmus T\nshared x = 0;\nthread P0 {\nx=1;\n      let r = x;\n\n\n\n  x = 2;\n}\n");
    }

    #[test]
    fn the_diff_finds_inserted_and_removed_lines() {
        let changes = |a: &[&str], b: &[&str]| -> Vec<Op> {
            diff(a, b).into_iter().filter(|o| matches!(o, Op::Change(..))).collect()
        };
        assert_eq!(changes(&["a", "b", "c"], &["a", "x", "b", "c"]), [Op::Change(1, 1, 1, 2)]);
        assert_eq!(changes(&["a", "b", "c"], &["a", "c"]), [Op::Change(1, 2, 1, 1)]);
        assert_eq!(
            changes(&["a", "b", "c", "d"], &["a", "B", "c", "D"]),
            [Op::Change(1, 2, 1, 2), Op::Change(3, 4, 3, 4)]
        );
        assert_eq!(diff(&["a", "b"], &["a", "b"]), [Op::Same(0, 0), Op::Same(1, 1)]);
    }
}
