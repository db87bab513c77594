//! Formatting: a native file without errors gets the formatter's canonical
//! layout (`litmus_dsl::native::format`, the same as `litmus fmt`); one
//! with errors is only re-indented by brace depth (no trailing blanks, at
//! most one empty line in a row), so formatting still helps mid-edit. herd
//! files get their thread table's columns aligned.

use litmus_dsl::edit::TextEdit;
use litmus_ir::Dialect;

pub fn format(src: &str, dialect: Dialect) -> Vec<TextEdit> {
    match dialect {
        Dialect::HerdX86 | Dialect::HerdRiscv | Dialect::HerdAArch64 => {
            litmus_dsl::edit::align_herd_table(src).into_iter().collect()
        }
        // A C test has no table: laid out as written.
        Dialect::HerdC => Vec::new(),
        Dialect::Native => {
            let out = litmus_dsl::format(src).unwrap_or_else(|| format_native(src));
            if out == src {
                Vec::new()
            } else {
                vec![TextEdit { start: 0, end: src.len(), text: out }]
            }
        }
    }
}

/// Brace depth changes of a line, ignoring strings and comments; and
/// whether the line ends inside a block comment.
fn scan(line: &str, mut in_comment: bool) -> (i32, i32, bool) {
    let b = line.as_bytes();
    let (mut opens, mut leading_closes, mut seen_other) = (0i32, 0i32, false);
    let mut closes = 0i32;
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        if in_comment {
            if b[i..].starts_with(b"*/") {
                in_comment = false;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        match b[i] {
            b'"' => in_str = !in_str,
            _ if in_str => {}
            b'/' if b[i..].starts_with(b"//") => break,
            b'/' if b[i..].starts_with(b"/*") => {
                in_comment = true;
                i += 2;
                continue;
            }
            b'{' => {
                opens += 1;
                seen_other = true;
            }
            b'}' => {
                if !seen_other && opens == 0 {
                    leading_closes += 1;
                } else {
                    closes += 1;
                }
            }
            c if !c.is_ascii_whitespace() => seen_other = true,
            _ => {}
        }
        i += 1;
    }
    (opens - closes, leading_closes, in_comment)
}

/// The re-indenter for files with errors.
pub fn format_native(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut depth: i32 = 0;
    let mut in_comment = false;
    let mut blank_run = 0;
    let newline = if src.contains("\r\n") { "\r\n" } else { "\n" };
    for raw in src.lines() {
        let line = raw.trim();
        if line.is_empty() && !in_comment {
            blank_run += 1;
            if blank_run > 1 || out.is_empty() {
                continue;
            }
            out.push_str(newline);
            continue;
        }
        blank_run = 0;
        let was_in_comment = in_comment;
        let (delta, leading_closes, still_in_comment) = scan(line, in_comment);
        in_comment = still_in_comment;
        if was_in_comment {
            // Inside a block comment keep the author's text, trimmed at the end.
            out.push_str(raw.trim_end());
        } else {
            let indent = (depth - leading_closes).max(0) as usize;
            out.push_str(&"  ".repeat(indent));
            out.push_str(line);
        }
        out.push_str(newline);
        depth = (depth - leading_closes + delta).max(0);
    }
    while out.ends_with(&format!("{newline}{newline}")) {
        out.truncate(out.len() - newline.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reindents_by_brace_depth_and_keeps_comments() {
        let src = "litmus T\n\n\n\nshared x = 0;\nthread P0 {\nx = 1;   \n      if (x == 1) {\n  let r = x; // keep { this }\n}\n/* a\n   comment */\n}\n";
        let want = "litmus T\n\nshared x = 0;\nthread P0 {\n  x = 1;\n  if (x == 1) {\n    let r = x; // keep { this }\n  }\n  /* a\n   comment */\n}\n";
        assert_eq!(format_native(src), want);
        assert_eq!(format_native(want), want, "idempotent");
    }
}
