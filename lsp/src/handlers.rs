//! The requests answered from one document's [`Snapshot`] (and what they
//! are given explicitly): plain functions from the snapshot and the
//! request's params to the LSP answer, rust-analyzer style. They neither
//! lock the store nor wait; `server` takes the snapshot and runs them under
//! `guarded`, so a bug answers that request with an error. (The test hook
//! `document_text` reads the store, locked by its caller, instead.)

use crate::convert;
use crate::documents::key;
use crate::execution::{GraphParams, GraphResult};
use crate::state::{request_failed, Shared, Snapshot};
use crate::{actions, completion, folding, format, format_range, highlight, hover, lens, navigation, tokens};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types as lsp;

pub fn hover(snap: &Snapshot, params: lsp::HoverParams) -> Option<lsp::Hover> {
    let p = params.text_document_position_params;
    let offset = snap.offset(p.position);
    let lines = hover::Lines(Some(snap.uri.as_str()));
    hover::hover(&snap.analyzed.text, &snap.analyzed.analysis, snap.report(), offset, lines).map(|(md, span)| {
        lsp::Hover { contents: lsp::HoverContents::Markup(convert::markdown(md)), range: Some(snap.range(span)) }
    })
}

pub fn goto_definition(snap: &Snapshot, params: lsp::GotoDefinitionParams) -> Option<lsp::GotoDefinitionResponse> {
    let p = params.text_document_position_params;
    navigation::definition(&snap.analyzed.analysis, snap.offset(p.position))
        .map(|s| lsp::GotoDefinitionResponse::Scalar(lsp::Location { uri: snap.uri.clone(), range: snap.range(s) }))
}

pub fn references(snap: &Snapshot, params: lsp::ReferenceParams) -> Option<Vec<lsp::Location>> {
    let p = params.text_document_position;
    let spans =
        navigation::references(&snap.analyzed.analysis, snap.offset(p.position), params.context.include_declaration);
    Some(spans.into_iter().map(|s| lsp::Location { uri: snap.uri.clone(), range: snap.range(s) }).collect())
}

pub fn prepare_rename(
    snap: &Snapshot,
    params: lsp::TextDocumentPositionParams,
) -> Result<Option<lsp::PrepareRenameResponse>> {
    navigation::prepare_rename(&snap.analyzed.analysis, snap.offset(params.position))
        .map(|(span, name)| {
            Some(lsp::PrepareRenameResponse::RangeWithPlaceholder { range: snap.range(span), placeholder: name })
        })
        .map_err(request_failed)
}

pub fn rename(snap: &Snapshot, params: lsp::RenameParams) -> Result<Option<lsp::WorkspaceEdit>> {
    let p = params.text_document_position;
    let edits = navigation::rename(&snap.analyzed.analysis, snap.offset(p.position), &params.new_name)
        .map_err(request_failed)?;
    let edits = edits.into_iter().map(|(s, t)| lsp::TextEdit { range: snap.range(s), new_text: t }).collect();
    Ok(Some(convert::workspace_edit(&snap.uri, edits)))
}

pub fn document_symbol(snap: &Snapshot, _params: lsp::DocumentSymbolParams) -> Option<lsp::DocumentSymbolResponse> {
    #[allow(deprecated)]
    fn convert_outline(snap: &Snapshot, o: &navigation::Outline) -> lsp::DocumentSymbol {
        lsp::DocumentSymbol {
            name: o.name.clone(),
            detail: Some(o.detail.clone()),
            kind: convert::outline_kind(o.kind),
            tags: None,
            deprecated: None,
            range: snap.range(o.full),
            selection_range: snap.range(o.selection),
            children: (!o.children.is_empty()).then(|| o.children.iter().map(|c| convert_outline(snap, c)).collect()),
        }
    }
    let outline = navigation::outline(&snap.analyzed.text, &snap.analyzed.analysis);
    Some(lsp::DocumentSymbolResponse::Nested(outline.iter().map(|o| convert_outline(snap, o)).collect()))
}

pub fn document_highlight(
    snap: &Snapshot,
    params: lsp::DocumentHighlightParams,
) -> Option<Vec<lsp::DocumentHighlight>> {
    let p = params.text_document_position_params;
    let found = highlight::highlights(&snap.analyzed.text, &snap.analyzed.analysis, snap.offset(p.position));
    let rope = &snap.analyzed.rope;
    (!found.is_empty()).then(|| found.into_iter().map(|(s, k)| convert::highlight(rope, s, k, snap.enc)).collect())
}

/// `line_folding_only`: the client's `foldingRange.lineFoldingOnly`.
pub fn folding_range(
    snap: &Snapshot,
    _params: lsp::FoldingRangeParams,
    line_folding_only: bool,
) -> Option<Vec<lsp::FoldingRange>> {
    let folds = folding::folds(&snap.analyzed.text, &snap.analyzed.analysis);
    let rope = &snap.analyzed.rope;
    Some(folds.iter().filter_map(|f| convert::folding_range(rope, f, snap.enc, line_folding_only)).collect())
}

/// `workspace/symbol`, from the open documents' newest analyses (`open`)
/// and the files of the workspace `folders` on disk that are not open;
/// parsed only, never checked (see `symbols_ws`).
pub fn workspace_symbol(
    open: &[(lsp::Uri, std::sync::Arc<crate::documents::Analyzed>)],
    folders: &[std::path::PathBuf],
    query: &str,
    enc: convert::Encoding,
) -> Option<lsp::WorkspaceSymbolResponse> {
    use crate::symbols_ws::{self, Indexed};
    use std::sync::Arc;
    // Without a test name, a file is named by the last part of its URI.
    let file_name = |u: &lsp::Uri| u.as_str().rsplit('/').next().unwrap_or("").to_string();
    let mut uris: Vec<lsp::Uri> = Vec::new();
    let mut files: Vec<(usize, Arc<Indexed>)> = Vec::new();
    for (u, a) in open {
        let entries = symbols_ws::entries(&a.analysis, &file_name(u));
        files.push((uris.len(), Arc::new(Indexed { rope: a.rope.clone(), entries })));
        uris.push(u.clone());
    }
    // An open document's own text wins over its file's.
    let is_open: std::collections::HashSet<String> = open.iter().map(|(u, _)| key(u)).collect();
    let mut paths = Vec::new();
    let mut by_path = std::collections::HashMap::new();
    for (u, p, _) in crate::workspace::walk(folders) {
        if !is_open.contains(&key(&u)) {
            by_path.insert(p.clone(), u);
            paths.push(p);
        }
    }
    for (p, ix) in symbols_ws::index_files(&paths) {
        if let Some(u) = by_path.remove(&p) {
            files.push((uris.len(), ix));
            uris.push(u);
        }
    }
    let out = symbols_ws::search(query, &files)
        .into_iter()
        .map(|(&i, ix, e)| convert::workspace_symbol(&uris[i], &ix.rope, e, enc))
        .collect();
    Some(lsp::WorkspaceSymbolResponse::Flat(out))
}

pub fn range_formatting(snap: &Snapshot, params: lsp::DocumentRangeFormattingParams) -> Option<Vec<lsp::TextEdit>> {
    let span = convert::span(&snap.analyzed.rope, params.range, snap.enc);
    let edits = format_range::format_range(&snap.analyzed.text, snap.analyzed.analysis.dialect, span);
    Some(convert::text_edits(&snap.analyzed.rope, &edits, snap.enc))
}

pub fn semantic_tokens_full(snap: &Snapshot, _params: lsp::SemanticTokensParams) -> Option<lsp::SemanticTokensResult> {
    let toks = tokens::tokens(&snap.analyzed.text, &snap.analyzed.analysis);
    let data = convert::semantic_tokens(&snap.analyzed.rope, &toks, snap.enc);
    Some(lsp::SemanticTokensResult::Tokens(lsp::SemanticTokens { result_id: None, data }))
}

pub fn formatting(snap: &Snapshot, _params: lsp::DocumentFormattingParams) -> Option<Vec<lsp::TextEdit>> {
    let edits = format::format(&snap.analyzed.text, snap.analyzed.analysis.dialect);
    Some(convert::text_edits(&snap.analyzed.rope, &edits, snap.enc))
}

pub fn code_lens(snap: &Snapshot, _params: lsp::CodeLensParams) -> Option<Vec<lsp::CodeLens>> {
    let span = lens::header_span(&snap.analyzed.text);
    // No check of this text yet: the last one's lenses stay where they were
    // (moved with the edit), said to be outdated, so the rows do not jump.
    let last = snap.shown.as_ref().filter(|_| snap.report().is_none());
    let title = match (snap.analyzed.analysis.program.is_some(), last) {
        (true, Some(l)) => format!("{} (outdated: re-checking…)", l.header),
        (false, Some(l)) => format!("{} (outdated: fix the errors to re-check)", l.header),
        (false, None) => lens::verdicts(None, false),
        (true, None) => lens::verdicts(snap.report(), snap.checking),
    };
    // The server's explain (the worst finding, else the verdicts), which
    // any client runs: an empty command id, a label in VS Code, is a link
    // elsewhere (Sublime, Neovim's codelens.run) that fails when followed.
    let arguments = Some(vec![serde_json::json!(snap.uri.as_str())]);
    let command = lsp::Command { title, command: crate::commands::EXPLAIN.into(), arguments };
    let mut out = vec![lsp::CodeLens { range: snap.range(span), command: Some(command), data: None }];
    let rows = match (snap.analyzed.analysis.program.as_ref(), snap.report(), last) {
        (Some(p), Some(r), _) => crate::execution::lenses(p, r),
        (_, None, Some(l)) => {
            let map = crate::pipeline::span_map(&l.text, &snap.analyzed.text);
            l.lenses.iter().filter_map(|(s, t, n)| Some((map(*s)?, t.clone(), *n))).collect()
        }
        _ => Vec::new(),
    };
    // The client's own command where it has one (a webview), else the
    // server's, which any client can run.
    let id = if snap.client_show { crate::execution::COMMAND } else { crate::execution::SERVER_COMMAND };
    for (span, title, which) in rows {
        let arguments = Some(vec![serde_json::json!(snap.uri.as_str()), which.to_json()]);
        let command = lsp::Command { title, command: id.into(), arguments };
        out.push(lsp::CodeLens { range: snap.range(span), command: Some(command), data: None });
    }
    Some(out)
}

pub fn inlay_hint(snap: &Snapshot, params: lsp::InlayHintParams) -> Option<Vec<lsp::InlayHint>> {
    let (Some(prog), Some(report)) = (&snap.analyzed.analysis.program, snap.report()) else {
        return None;
    };
    let span = convert::span(&snap.analyzed.rope, params.range, snap.enc);
    let hints = crate::inlay::hints(&snap.analyzed.text, prog, report, span.start, span.end);
    Some(hints.iter().map(|h| convert::inlay_hint(&snap.analyzed.rope, h, snap.enc)).collect())
}

/// `snippets`: the client takes snippets (`completionItem.snippetSupport`).
pub fn completion(snap: &Snapshot, params: lsp::CompletionParams, snippets: bool) -> Option<lsp::CompletionResponse> {
    let p = params.text_document_position;
    let c = completion::complete(&snap.analyzed.analysis, &snap.analyzed.text, snap.offset(p.position));
    Some(convert::completion(&snap.analyzed.rope, &c, snap.enc, snippets))
}

pub fn signature_help(snap: &Snapshot, params: lsp::SignatureHelpParams) -> Option<lsp::SignatureHelp> {
    let p = params.text_document_position_params;
    let (text, dialect) = (&snap.analyzed.text, snap.analyzed.analysis.dialect);
    crate::signature::signature_help(text, dialect, snap.offset(p.position)).map(|s| convert::signature_help(&s))
}

pub fn code_action(snap: &Snapshot, params: lsp::CodeActionParams) -> Option<lsp::CodeActionResponse> {
    let only = &params.context.only;
    let mut out = Vec::new();
    // "did you mean `y`?" as an edit: the analysis's own suggestions in the
    // range, with or without a check (an unknown name stops the check).
    if code_action_kind_allowed(only, &lsp::CodeActionKind::QUICKFIX) {
        out.extend(suggestions(snap, &params));
    }
    let (Some(checked), Some(prog)) = (&snap.checked, &snap.analyzed.analysis.program) else {
        return Some(out);
    };
    let text = &snap.analyzed.text;
    let report = &checked.report;
    let to_action = |a: actions::Action, diags: Option<Vec<lsp::Diagnostic>>| {
        let kind = if a.quick_fix { lsp::CodeActionKind::QUICKFIX } else { crate::actions::INSERT_FENCES };
        let edits = convert::text_edits(&snap.analyzed.rope, &a.edits, snap.enc);
        lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
            title: a.title,
            kind: Some(kind),
            diagnostics: diags,
            edit: Some(convert::workspace_edit(&snap.uri, edits)),
            is_preferred: Some(a.quick_fix),
            ..Default::default()
        })
    };
    if code_action_kind_allowed(only, &lsp::CodeActionKind::QUICKFIX) {
        // Violations named by the diagnostics the client sent (if they
        // are of this check), else those whose store is in the range.
        let mut wanted: Vec<((usize, usize), Option<lsp::Diagnostic>)> = Vec::new();
        for d in &params.context.diagnostics {
            let Some(data) = &d.data else { continue };
            let same_gen = data.get("generation").and_then(|g| g.as_u64()) == Some(checked.generation);
            // Every violation the diagnostic stands for (one per model).
            let listed = data.get("violations").and_then(|v| v.as_array()).cloned();
            let one = data.get("violation").cloned().map(|v| vec![v]);
            for v in listed.or(one).unwrap_or_default().iter().filter(|_| same_gen) {
                if let Some([mi, vi]) = v.as_array().map(|v| v.as_slice()) {
                    if let (Some(mi), Some(vi)) = (mi.as_u64(), vi.as_u64()) {
                        wanted.push(((mi as usize, vi as usize), Some(d.clone())));
                    }
                }
            }
        }
        if wanted.is_empty() {
            let r = convert::span(&snap.analyzed.rope, params.range, snap.enc);
            for (mi, rb) in report.robustness.iter().enumerate() {
                for (vi, v) in rb.violations.iter().enumerate() {
                    let s = prog.stmts[v.store_stmt as usize].span;
                    if s.start <= r.end && r.start <= s.end {
                        wanted.push(((mi, vi), None));
                    }
                }
            }
        }
        let mut titles = std::collections::HashSet::new();
        for ((mi, vi), d) in wanted {
            if let Some(a) = actions::quick_fix(text, prog, report, mi, vi) {
                if titles.insert(a.title.clone()) {
                    out.push(to_action(a, d.map(|d| vec![d])));
                }
            }
        }
    }
    if code_action_kind_allowed(only, &crate::actions::INSERT_FENCES) {
        if let Some(a) = actions::all_fences(text, prog, report) {
            out.push(to_action(a, None));
        }
    }
    Some(out)
}

/// Quick fixes from the analysis: each diagnostic in the range that knows
/// its replacement ("unknown name `qy`" → `y`).
fn suggestions(snap: &Snapshot, params: &lsp::CodeActionParams) -> Vec<lsp::CodeActionOrCommand> {
    let r = convert::span(&snap.analyzed.rope, params.range, snap.enc);
    let diags = &snap.analyzed.analysis.diagnostics;
    diags
        .iter()
        .filter_map(|d| {
            let (span, text) = d.suggestion.as_ref()?;
            (span.start <= r.end && r.start <= span.end).then_some(())?;
            let old = snap.analyzed.text.get(span.start..span.end)?;
            let edit = litmus_dsl::edit::TextEdit { start: span.start, end: span.end, text: text.clone() };
            let edits = convert::text_edits(&snap.analyzed.rope, &[edit], snap.enc);
            // The client's diagnostic it fixes, when it sent it.
            let range = snap.range(d.span);
            let fixes: Vec<lsp::Diagnostic> = params
                .context
                .diagnostics
                .iter()
                .filter(|c| c.range == range && c.code == Some(lsp::NumberOrString::String(d.code.to_string())))
                .cloned()
                .collect();
            Some(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
                title: format!("Replace `{old}` with `{text}`"),
                kind: Some(lsp::CodeActionKind::QUICKFIX),
                diagnostics: (!fixes.is_empty()).then_some(fixes),
                edit: Some(convert::workspace_edit(&snap.uri, edits)),
                is_preferred: Some(true),
                ..Default::default()
            }))
        })
        .collect()
}

fn code_action_kind_allowed(only: &Option<Vec<lsp::CodeActionKind>>, kind: &lsp::CodeActionKind) -> bool {
    match only {
        None => true,
        Some(v) => {
            v.iter().any(|o| kind.as_str() == o.as_str() || kind.as_str().starts_with(&format!("{}.", o.as_str())))
        }
    }
}

/// `litmus/executionGraph`: the SVG of a violation's witness (see
/// `execution.rs`); needs the check of the current text.
pub fn execution_graph(snap: &Snapshot, params: GraphParams, opts: &litmus_checker::Options) -> Result<GraphResult> {
    let (Some(p), Some(r)) = (snap.analyzed.analysis.program.as_ref(), snap.report()) else {
        return Err(request_failed("litmus: not checked yet (or the file has errors)"));
    };
    crate::execution::graph(p, r, params.violation, params.whole, opts)
        .map_err(|e| Error::invalid_params(format!("litmus: {e}")))
}

/// `litmus/documentText` (testHooks only): the server's copy of a
/// document, so clients can check no edit was lost or misplaced.
pub fn document_text(s: &Shared, params: lsp::TextDocumentIdentifier) -> Result<String> {
    if !s.test_hooks {
        return Err(Error::method_not_found());
    }
    s.docs.get(&key(&params.uri)).map(|d| d.rope.to_string()).ok_or_else(|| Error::invalid_params("not open"))
}
