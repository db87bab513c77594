//! Diagnostics produced by parsing and analysis, and their rustc-style rendering.

use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

/// A secondary location explaining a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable short code (`E0001`-style) so tests and editors can match on it.
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    /// The text under the primary caret; defaults to the message.
    pub label: Option<String>,
    pub related: Vec<Label>,
    pub help: Option<String>,
    /// A replacement that fixes it (span, text): "did you mean `y`?" as an
    /// edit an editor offers as a quick fix.
    pub suggestion: Option<(Span, String)>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: None,
            related: Vec::new(),
            help: None,
            suggestion: None,
        }
    }
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, span, message) }
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Label { span, message: message.into() });
        self
    }
    /// Replacing `span` with `text` fixes it.
    pub fn with_suggestion(mut self, span: Span, text: impl Into<String>) -> Self {
        self.suggestion = Some((span, text.into()));
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Render diagnostics the way rustc does, with the offending source lines.
///
/// The source lines shown add up to at most twice the text (at least 1 MiB):
/// past that, a diagnostic is one line with its position, so the output stays
/// linear in the input even with many diagnostics on one very long line.
pub fn render(diags: &[Diagnostic], file: &str, src: &str, color: bool) -> String {
    use ariadne::{Config, IndexType, Label as ALabel, Report, ReportKind, Source};
    let mut out = Vec::new();
    // One line index for every report: building it is linear in the source.
    let source = Source::from(src);
    let lines = crate::span::LineIndex::new(src);
    let mut budget = (2 * src.len()).max(1 << 20);
    let len = src.len();
    let clamp = |s: Span| s.start.min(len)..s.end.min(len).max(s.start.min(len));
    for d in diags {
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let cost: usize =
            std::iter::once(d.span).chain(d.related.iter().map(|r| r.span)).map(|s| excerpt_len(&lines, len, s)).sum();
        if cost > budget {
            let (line, col) = lines.line_col(src, d.span.start.min(len));
            let sev = if d.is_error() { "Error" } else { "Warning" };
            out.extend_from_slice(format!("[{}] {sev}: {} ({file}:{line}:{col})\n", d.code, d.message).as_bytes());
            continue;
        }
        budget -= cost;
        let mut report = Report::build(kind, (file, clamp(d.span)))
            .with_config(Config::default().with_color(color).with_index_type(IndexType::Byte))
            .with_code(d.code)
            .with_message(&d.message)
            .with_label(
                ALabel::new((file, clamp(d.span))).with_message(d.label.as_deref().unwrap_or(&d.message)).with_order(0),
            );
        for (i, r) in d.related.iter().enumerate() {
            report =
                report.with_label(ALabel::new((file, clamp(r.span))).with_message(&r.message).with_order(i as i32 + 1));
        }
        if let Some(h) = &d.help {
            report = report.with_help(h);
        }
        let _ = report.finish().write((file, &source), &mut out);
    }
    // ariadne writes what it is given: UTF-8 (checked without a copy).
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The bytes of the lines a span touches.
fn excerpt_len(lines: &crate::span::LineIndex, len: usize, s: Span) -> usize {
    let first = lines.line_of(s.start.min(len));
    let last = lines.line_of(s.end.min(len));
    let end = if last + 1 < lines.line_count() { lines.line_start(last + 1) } else { len };
    end - lines.line_start(first)
}
