//! Escaping for XML text and attribute values. Characters XML 1.0 forbids
//! (most C0 controls) become U+FFFD so any statement text yields a
//! well-formed document.

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Width of `s` in monospace cells: East Asian wide characters and emoji
/// take two (an estimate; the SVG carries no font to measure with).
pub fn cells(s: &str) -> usize {
    s.chars()
        .map(|c| match c as u32 {
            0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFF00..=0xFF60 => 2,
            0x1F300..=0x1FAFF | 0x20000..=0x3FFFD => 2,
            _ => 1,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_controls() {
        assert_eq!(escape(r#"a<b && c>"d"'"#), "a&lt;b &amp;&amp; c&gt;&quot;d&quot;&apos;");
        assert_eq!(escape("x\u{1}y\tz"), "x\u{FFFD}y z");
        assert_eq!(cells("é🙂x"), 4);
    }
}
