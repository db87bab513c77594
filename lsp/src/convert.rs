//! Every conversion between litmus's world (byte offsets into the text,
//! findings, edits) and LSP types lives here. Positions are UTF-16 code
//! units unless the client negotiated UTF-8; lines break at `\n`, `\r\n`
//! and `\r` only (ropey's `cr_lines`, as LSP counts them).

use litmus_ir::Span;
use litmus_present::findings::{About, Finding, Severity};
use ropey::Rope;
use tower_lsp_server::ls_types as lsp;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    /// UTF-8 if the client offers it: LSP 3.17 `general.positionEncodings`,
    /// or clangd's `offsetEncoding` extension (what Neovim before 0.10 sends).
    pub fn negotiate(caps: &lsp::ClientCapabilities) -> Encoding {
        let offered = caps.general.as_ref().and_then(|g| g.position_encodings.as_ref());
        match offered {
            Some(v) if v.contains(&lsp::PositionEncodingKind::UTF8) => Encoding::Utf8,
            Some(_) => Encoding::Utf16,
            None if caps.offset_encoding.as_ref().is_some_and(|v| v.iter().any(|e| e == "utf-8")) => Encoding::Utf8,
            None => Encoding::Utf16,
        }
    }

    pub fn kind(self) -> lsp::PositionEncodingKind {
        match self {
            Encoding::Utf8 => lsp::PositionEncodingKind::UTF8,
            Encoding::Utf16 => lsp::PositionEncodingKind::UTF16,
        }
    }
}

/// The char index just past the last non-line-break char of a line.
fn line_end_char(rope: &Rope, line: usize) -> usize {
    let start = rope.line_to_char(line);
    let slice = rope.line(line);
    let mut n = slice.len_chars();
    while n > 0 {
        let c = slice.char(n - 1);
        if c == '\n' || c == '\r' {
            n -= 1;
        } else {
            break;
        }
    }
    start + n
}

pub fn position(rope: &Rope, offset: usize, enc: Encoding) -> lsp::Position {
    let offset = offset.min(rope.len_bytes());
    let line = rope.byte_to_line(offset);
    let character = match enc {
        Encoding::Utf8 => offset - rope.line_to_byte(line),
        Encoding::Utf16 => {
            let c = rope.byte_to_char(offset);
            rope.char_to_utf16_cu(c) - rope.char_to_utf16_cu(rope.line_to_char(line))
        }
    };
    lsp::Position { line: line as u32, character: character as u32 }
}

pub fn offset(rope: &Rope, pos: lsp::Position, enc: Encoding) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let start_char = rope.line_to_char(line);
    let end_char = line_end_char(rope, line);
    let ch = match enc {
        Encoding::Utf8 => {
            let start_byte = rope.char_to_byte(start_char);
            let end_byte = rope.char_to_byte(end_char);
            let b = (start_byte + pos.character as usize).min(end_byte);
            rope.byte_to_char(b)
        }
        Encoding::Utf16 => {
            let base = rope.char_to_utf16_cu(start_char);
            let end = rope.char_to_utf16_cu(end_char);
            let cu = (base + pos.character as usize).min(end);
            rope.utf16_cu_to_char(cu)
        }
    };
    rope.char_to_byte(ch)
}

pub fn range(rope: &Rope, span: Span, enc: Encoding) -> lsp::Range {
    lsp::Range { start: position(rope, span.start, enc), end: position(rope, span.end, enc) }
}

pub fn span(rope: &Rope, range: lsp::Range, enc: Encoding) -> Span {
    let a = offset(rope, range.start, enc);
    let b = offset(rope, range.end, enc);
    Span::new(a.min(b), a.max(b))
}

pub fn location(uri: &lsp::Uri, rope: &Rope, span: Span, enc: Encoding) -> lsp::Location {
    lsp::Location { uri: uri.clone(), range: range(rope, span, enc) }
}

/// The link to a code's section of `docs/codes.md`, under `base` (the
/// document's URI, without the anchor).
fn code_description(base: &str, code: &str) -> Option<lsp::CodeDescription> {
    let anchor = litmus_present::codes::anchor(code)?;
    let href = format!("{base}#{anchor}").parse().ok()?;
    Some(lsp::CodeDescription { href })
}

/// `docs`: where the codes are documented (`codeDescription`), if anywhere.
pub fn diagnostic(uri: &lsp::Uri, rope: &Rope, f: &Finding, enc: Encoding, docs: Option<&str>) -> lsp::Diagnostic {
    let related: Vec<lsp::DiagnosticRelatedInformation> = f
        .related
        .iter()
        .map(|(s, m)| lsp::DiagnosticRelatedInformation { location: location(uri, rope, *s, enc), message: m.clone() })
        .collect();
    lsp::Diagnostic {
        range: range(rope, f.span, enc),
        severity: Some(match f.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
            Severity::Information => lsp::DiagnosticSeverity::INFORMATION,
            Severity::Hint => lsp::DiagnosticSeverity::HINT,
        }),
        code: Some(lsp::NumberOrString::String(f.code.to_string())),
        code_description: docs.and_then(|base| code_description(base, f.code)),
        source: Some("litmus".into()),
        message: f.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        data: f.about.as_ref().and_then(about),
        ..Default::default()
    }
}

pub fn text_edits(rope: &Rope, edits: &[litmus_dsl::edit::TextEdit], enc: Encoding) -> Vec<lsp::TextEdit> {
    edits
        .iter()
        .map(|e| lsp::TextEdit { range: range(rope, Span::new(e.start, e.end), enc), new_text: e.text.clone() })
        .collect()
}

pub fn workspace_edit(uri: &lsp::Uri, edits: Vec<lsp::TextEdit>) -> lsp::WorkspaceEdit {
    let mut changes = std::collections::HashMap::new();
    changes.insert(uri.clone(), edits);
    lsp::WorkspaceEdit { changes: Some(changes), ..Default::default() }
}

pub fn markdown(text: String) -> lsp::MarkupContent {
    lsp::MarkupContent { kind: lsp::MarkupKind::Markdown, value: text }
}

/// Semantic tokens in LSP's relative encoding. Tokens spanning lines (block
/// comments) are split per line: not every client supports multiline tokens.
pub fn semantic_tokens(rope: &Rope, tokens: &[crate::tokens::Token], enc: Encoding) -> Vec<lsp::SemanticToken> {
    let mut out = Vec::new();
    let (mut prev_line, mut prev_start) = (0u32, 0u32);
    for t in tokens {
        let (first, last) = (
            rope.byte_to_line(t.span.start.min(rope.len_bytes())),
            rope.byte_to_line(t.span.end.min(rope.len_bytes())),
        );
        for line in first..=last {
            let start = if line == first { t.span.start } else { rope.line_to_byte(line) };
            let end = if line == last { t.span.end } else { rope.char_to_byte(line_end_char(rope, line)) };
            if end <= start {
                continue;
            }
            let (a, b) = (position(rope, start, enc), position(rope, end, enc));
            // Tokens arrive sorted and disjoint; never emit a wrapped-around delta if not.
            let Some(delta_line) = a.line.checked_sub(prev_line) else { continue };
            let delta_start = if delta_line == 0 {
                let Some(d) = a.character.checked_sub(prev_start) else { continue };
                d
            } else {
                a.character
            };
            out.push(lsp::SemanticToken {
                delta_line,
                delta_start,
                length: b.character - a.character,
                token_type: t.kind,
                token_modifiers_bitset: t.modifiers,
            });
            (prev_line, prev_start) = (a.line, a.character);
        }
    }
    out
}

/// A completion list: every item replaces the word being typed, as a
/// snippet when the client takes them (else as plain text).
pub fn completion(
    rope: &Rope,
    c: &crate::completion::Completion,
    enc: Encoding,
    snippets: bool,
) -> lsp::CompletionResponse {
    use crate::completion::ItemKind as K;
    let replace = range(rope, c.replace, enc);
    let items = c
        .items
        .iter()
        .map(|i| {
            let snippet = i.snippet.as_ref().filter(|_| snippets);
            lsp::CompletionItem {
                label: i.label.clone(),
                kind: Some(match i.kind {
                    K::Keyword => lsp::CompletionItemKind::KEYWORD,
                    K::Snippet => lsp::CompletionItemKind::SNIPPET,
                    K::Register | K::Param | K::Shared => lsp::CompletionItemKind::VARIABLE,
                    K::Function | K::Builtin => lsp::CompletionItemKind::FUNCTION,
                    K::Thread => lsp::CompletionItemKind::CLASS,
                    K::Constant => lsp::CompletionItemKind::CONSTANT,
                }),
                detail: Some(i.detail.clone()),
                documentation: i.doc.clone().map(|d| lsp::Documentation::MarkupContent(markdown(d))),
                sort_text: Some(i.sort.clone()),
                filter_text: Some(i.label.clone()),
                insert_text_format: Some(match snippet {
                    Some(_) => lsp::InsertTextFormat::SNIPPET,
                    None => lsp::InsertTextFormat::PLAIN_TEXT,
                }),
                // A block snippet's lines take the cursor line's indentation.
                insert_text_mode: snippet.filter(|s| s.contains('\n')).map(|_| lsp::InsertTextMode::ADJUST_INDENTATION),
                text_edit: Some(lsp::CompletionTextEdit::Edit(lsp::TextEdit {
                    range: replace,
                    new_text: snippet.unwrap_or(&i.insert).clone(),
                })),
                ..Default::default()
            }
        })
        .collect();
    lsp::CompletionResponse::Array(items)
}

/// One signature. Parameter label offsets count UTF-16 code units, as the
/// spec says and rust-analyzer does, whatever the position encoding.
pub fn signature_help(s: &crate::signature::Signature) -> lsp::SignatureHelp {
    let utf16 = |b: usize| s.label.get(..b).map_or(0, |p| p.encode_utf16().count()) as u32;
    let parameters = s
        .params
        .iter()
        .map(|(r, doc)| lsp::ParameterInformation {
            label: lsp::ParameterLabel::LabelOffsets([utf16(r.start), utf16(r.end)]),
            documentation: doc.clone().map(|d| lsp::Documentation::MarkupContent(markdown(d))),
        })
        .collect();
    let active = s.active as u32;
    lsp::SignatureHelp {
        signatures: vec![lsp::SignatureInformation {
            label: s.label.clone(),
            documentation: s.doc.clone().map(|d| lsp::Documentation::MarkupContent(markdown(d))),
            parameters: Some(parameters),
            active_parameter: Some(active),
        }],
        active_signature: Some(0),
        active_parameter: Some(active),
    }
}

pub fn symbol_kind(k: litmus_dsl::SymbolKind) -> lsp::SymbolKind {
    use litmus_dsl::SymbolKind as K;
    match k {
        K::Shared => lsp::SymbolKind::VARIABLE,
        K::Array => lsp::SymbolKind::ARRAY,
        K::Register => lsp::SymbolKind::VARIABLE,
        K::Function => lsp::SymbolKind::FUNCTION,
        K::Param => lsp::SymbolKind::VARIABLE,
        K::Thread => lsp::SymbolKind::CLASS,
        K::Label => lsp::SymbolKind::KEY,
    }
}

/// An outline entry's kind: threads are classes (they hold registers as
/// a class holds fields), the final condition a boolean.
pub fn outline_kind(k: crate::navigation::OutlineKind) -> lsp::SymbolKind {
    match k {
        crate::navigation::OutlineKind::Symbol(k) => symbol_kind(k),
        crate::navigation::OutlineKind::Condition => lsp::SymbolKind::BOOLEAN,
    }
}

pub fn highlight(rope: &Rope, span: Span, access: crate::highlight::Access, enc: Encoding) -> lsp::DocumentHighlight {
    use crate::highlight::Access;
    let kind = match access {
        Access::Read => lsp::DocumentHighlightKind::READ,
        Access::Write => lsp::DocumentHighlightKind::WRITE,
        Access::Text => lsp::DocumentHighlightKind::TEXT,
    };
    lsp::DocumentHighlight { range: range(rope, span, enc), kind: Some(kind) }
}

/// A fold, or `None` when it spans one line. A client that folds whole lines
/// only hides the end line entirely, so one whose fold ends mid-line
/// (`} else {`) ends on the line before (as rust-analyzer does).
pub fn folding_range(
    rope: &Rope,
    fold: &crate::folding::Fold,
    enc: Encoding,
    line_folding_only: bool,
) -> Option<lsp::FoldingRange> {
    let r = range(rope, fold.span, enc);
    let kind = match fold.kind {
        crate::folding::FoldKind::Comment => Some(lsp::FoldingRangeKind::Comment),
        crate::folding::FoldKind::Code => None,
    };
    let (start_character, end_character, end_line) = if line_folding_only {
        let end = fold.span.end.min(rope.len_bytes());
        let stop = rope.char_to_byte(line_end_char(rope, r.end.line as usize));
        let more = end < stop && rope.byte_slice(end..stop).chars().any(|c| !c.is_whitespace());
        (None, None, if more { r.end.line.saturating_sub(1) } else { r.end.line })
    } else {
        (Some(r.start.character), Some(r.end.character), r.end.line)
    };
    (end_line > r.start.line).then_some(lsp::FoldingRange {
        start_line: r.start.line,
        start_character,
        end_line,
        end_character,
        kind,
        collapsed_text: None,
    })
}

/// A workspace symbol, at its declaration in `rope` (its file's text).
#[allow(deprecated)]
pub fn workspace_symbol(
    uri: &lsp::Uri,
    rope: &Rope,
    e: &crate::symbols_ws::Entry,
    enc: Encoding,
) -> lsp::SymbolInformation {
    lsp::SymbolInformation {
        name: e.name.clone(),
        kind: symbol_kind(e.kind),
        tags: None,
        deprecated: None,
        location: location(uri, rope, e.span, enc),
        container_name: Some(e.container.clone()),
    }
}

/// An inlay hint after its byte offset, its tooltip as Markdown.
pub fn inlay_hint(rope: &Rope, h: &crate::inlay::Hint, enc: Encoding) -> lsp::InlayHint {
    lsp::InlayHint {
        position: position(rope, h.at, enc),
        label: lsp::InlayHintLabel::String(h.label.clone()),
        kind: None,
        text_edits: None,
        tooltip: Some(lsp::InlayHintTooltip::MarkupContent(markdown(h.tooltip.clone()))),
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}

/// A finding's `data`: what actions on it need (which violation of which
/// check, or which run to replay); nothing for the others.
fn about(a: &About) -> Option<serde_json::Value> {
    Some(match a {
        // `violation`: the first; `violations`: every one the finding stands for.
        About::Violation { at, generation: Some(g) } => {
            serde_json::json!({ "violation": [at[0].0, at[0].1], "violations": at, "generation": g })
        }
        About::Violation { at, generation: None } => {
            serde_json::json!({ "violation": [at[0].0, at[0].1], "violations": at })
        }
        About::Replay(handle) => serde_json::json!({ "replay": handle }),
        // What `litmus.server.showExecution` takes to draw its witness.
        About::ConditionFails { .. } => serde_json::json!({ "execution": "condition" }),
        About::Failure { stmt } => serde_json::json!({ "execution": format!("failure:{stmt}") }),
        About::ConditionDiffers { .. } | About::ConditionUndefined | About::Deadlock { .. } | About::Race { .. } => {
            return None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_count_surrogate_pairs() {
        let text = "a é 🙂 b\r\nsecond\rthird\n";
        let rope = Rope::from_str(text);
        let b = text.find('b').unwrap();
        // a, space, é, space, 🙂 (2 code units), space
        assert_eq!(position(&rope, b, Encoding::Utf16), lsp::Position { line: 0, character: 7 });
        assert_eq!(position(&rope, b, Encoding::Utf8), lsp::Position { line: 0, character: 10 });
        assert_eq!(offset(&rope, lsp::Position { line: 0, character: 7 }, Encoding::Utf16), b);
        let third = text.find("third").unwrap();
        assert_eq!(position(&rope, third, Encoding::Utf16), lsp::Position { line: 2, character: 0 });
        // Past the end of a line clamps to the line's end, before its break.
        assert_eq!(
            offset(&rope, lsp::Position { line: 1, character: 99 }, Encoding::Utf16),
            text.find("\rthird").unwrap()
        );
    }
}
