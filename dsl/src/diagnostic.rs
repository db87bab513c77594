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
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Render diagnostics the way rustc does, with the offending source lines.
pub fn render(diags: &[Diagnostic], file: &str, src: &str, color: bool) -> String {
    use ariadne::{Config, IndexType, Label as ALabel, Report, ReportKind, Source};
    let mut out = Vec::new();
    // One line index for every report: building it is linear in the source.
    let source = Source::from(src);
    let len = src.len();
    let clamp = |s: Span| s.start.min(len)..s.end.min(len).max(s.start.min(len));
    for d in diags {
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
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
    String::from_utf8_lossy(&out).into_owned()
}
