//! The LSP handlers. Notifications change the document store synchronously
//! (before their first `.await`) and hand the rest to the pipeline;
//! requests read the newest analysis of the text they refer to and never
//! wait on the model checker. Work inside a request runs under
//! `catch_unwind`: a bug answers that request with an error, the server goes on.

use crate::config::Problem;
use crate::convert::{self, Encoding};
use crate::documents::{key, Doc, Job};
use crate::state::{guarded, request_failed, Backend, Snapshot};
use crate::{actions, completion, format, hover, lens, navigation, tokens};
use std::panic::{catch_unwind, AssertUnwindSafe};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types as lsp;
use tower_lsp_server::LanguageServer;

impl Backend {
    /// Tell the user which settings were not applied: one warning to show,
    /// and each in the log.
    async fn report_settings(&self, problems: &[Problem]) {
        if problems.is_empty() {
            return;
        }
        for p in problems {
            self.client.log_message(lsp::MessageType::WARNING, format!("litmus: setting not applied: {p}")).await;
        }
        let shown = match problems {
            [p] => format!("litmus: setting not applied: {p}"),
            _ => format!(
                "litmus: {} settings not applied: {}",
                problems.len(),
                problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; ")
            ),
        };
        self.client.show_message(lsp::MessageType::WARNING, shown).await;
    }

    pub async fn crash(&self) -> Result<()> {
        let hooks = self.lock().test_hooks;
        guarded("litmus/crash", || {
            if hooks {
                panic!("deliberate panic (testHooks)");
            }
        })
    }
}

impl Backend {
    /// `litmus/documentText` (testHooks only): the server's copy of a
    /// document, so clients can check no edit was lost or misplaced.
    pub async fn document_text(&self, params: lsp::TextDocumentIdentifier) -> Result<String> {
        let s = self.lock();
        if !s.test_hooks {
            return Err(Error::method_not_found());
        }
        s.docs.get(&key(&params.uri)).map(|d| d.rope.to_string()).ok_or_else(|| Error::invalid_params("not open"))
    }
}

impl Backend {
    /// `litmus/executionGraph`: the SVG of a violation's witness (see
    /// `execution.rs`); needs the check of the current text.
    pub async fn execution_graph(
        &self,
        params: crate::execution::GraphParams,
    ) -> Result<crate::execution::GraphResult> {
        let snap = self.snapshot(&params.text_document.uri).await?;
        let (Some(p), Some(r)) = (snap.analyzed.analysis.program.as_ref(), snap.report()) else {
            return Err(request_failed("litmus: not checked yet (or the file has errors)"));
        };
        guarded(crate::execution::METHOD, || crate::execution::graph(p, r, params.violation))?
            .map_err(|e| Error::invalid_params(format!("litmus: {e}")))
    }
}

fn code_action_kind_allowed(only: &Option<Vec<lsp::CodeActionKind>>, kind: &lsp::CodeActionKind) -> bool {
    match only {
        None => true,
        Some(v) => {
            v.iter().any(|o| kind.as_str() == o.as_str() || kind.as_str().starts_with(&format!("{}.", o.as_str())))
        }
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: lsp::InitializeParams) -> Result<lsp::InitializeResult> {
        let enc = Encoding::negotiate(&params.capabilities);
        let problems = {
            let mut s = self.lock();
            s.enc = enc;
            let mut problems = Vec::new();
            if let Some(opts) = &params.initialization_options {
                problems = s.config.apply(opts);
                s.test_hooks = opts.get("testHooks").and_then(|v| v.as_bool()).unwrap_or(false);
            }
            s.progress = params.capabilities.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false);
            s.lens_refresh = params
                .capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.code_lens.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false);
            // Pull diagnostics (pull.rs, workspace.rs).
            s.pull = crate::pull::client_pulls(&params.capabilities);
            s.diagnostic_refresh = crate::pull::refresh_support(&params.capabilities);
            s.workspace.folders = crate::workspace::folders(&params);
            s.workspace.watching = s.pull && crate::pull::client_watches(&params.capabilities);
            s.workspace.enabled = s.pull && s.config.workspace_diagnostics;
            s.inlay_refresh = params
                .capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.inlay_hint.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false);
            problems
        };
        // Allowed before the initialize result (LSP 3.17: showMessage and
        // logMessage may be sent during the initialize request).
        self.report_settings(&problems).await;
        let pull = self.lock().pull;
        let legend = lsp::SemanticTokensLegend {
            token_types: tokens::TYPES.iter().map(|t| lsp::SemanticTokenType::new(t)).collect(),
            token_modifiers: tokens::MODIFIERS.iter().map(|t| lsp::SemanticTokenModifier::new(t)).collect(),
        };
        let capabilities = lsp::ServerCapabilities {
            position_encoding: Some(enc.kind()),
            text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(lsp::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(lsp::TextDocumentSyncKind::INCREMENTAL),
                ..Default::default()
            })),
            hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
            definition_provider: Some(lsp::OneOf::Left(true)),
            references_provider: Some(lsp::OneOf::Left(true)),
            rename_provider: Some(lsp::OneOf::Right(lsp::RenameOptions {
                prepare_provider: Some(true),
                work_done_progress_options: Default::default(),
            })),
            document_symbol_provider: Some(lsp::OneOf::Left(true)),
            document_formatting_provider: Some(lsp::OneOf::Left(true)),
            semantic_tokens_provider: Some(lsp::SemanticTokensServerCapabilities::SemanticTokensOptions(
                lsp::SemanticTokensOptions {
                    legend,
                    full: Some(lsp::SemanticTokensFullOptions::Bool(true)),
                    range: None,
                    work_done_progress_options: Default::default(),
                },
            )),
            code_lens_provider: Some(lsp::CodeLensOptions { resolve_provider: Some(false) }),
            inlay_hint_provider: Some(lsp::OneOf::Left(true)),
            completion_provider: Some(lsp::CompletionOptions {
                trigger_characters: Some(vec![":".into()]),
                ..Default::default()
            }),
            code_action_provider: Some(lsp::CodeActionProviderCapability::Options(lsp::CodeActionOptions {
                code_action_kinds: Some(vec![lsp::CodeActionKind::QUICKFIX, crate::actions::INSERT_FENCES]),
                ..Default::default()
            })),
            diagnostic_provider: pull.then(crate::pull::capability),
            // Folders added or removed later change what the background
            // workspace check walks.
            workspace: Some(lsp::WorkspaceServerCapabilities {
                workspace_folders: Some(lsp::WorkspaceFoldersServerCapabilities {
                    supported: Some(true),
                    change_notifications: Some(lsp::OneOf::Left(true)),
                }),
                file_operations: None,
            }),
            ..Default::default()
        };
        Ok(lsp::InitializeResult {
            capabilities,
            server_info: Some(lsp::ServerInfo {
                name: "litmus".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: Some(enc.kind().as_str().to_string()),
        })
    }

    async fn initialized(&self, _: lsp::InitializedParams) {
        let (pull, watching) = {
            let s = self.lock();
            (s.pull, s.workspace.watching)
        };
        if watching {
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = client.register_capability(vec![crate::workspace::watcher_registration()]).await;
            });
        }
        if pull {
            tokio::spawn(crate::background::run(self.clone()));
        }
    }

    async fn did_change_workspace_folders(&self, params: lsp::DidChangeWorkspaceFoldersParams) {
        let path = |f: &lsp::WorkspaceFolder| f.uri.to_file_path().map(|p| p.into_owned());
        let added: Vec<_> = params.event.added.iter().filter_map(path).collect();
        let removed: Vec<_> = params.event.removed.iter().filter_map(path).collect();
        self.lock().workspace.change_folders(added, removed);
    }

    async fn did_change_watched_files(&self, params: lsp::DidChangeWatchedFilesParams) {
        let mut s = self.lock();
        for c in params.changes {
            s.workspace.file_event(&c.uri, c.typ == lsp::FileChangeType::DELETED);
        }
    }

    async fn diagnostic(&self, params: lsp::DocumentDiagnosticParams) -> Result<lsp::DocumentDiagnosticReportResult> {
        self.pull_document(params).await
    }

    async fn workspace_diagnostic(
        &self,
        params: lsp::WorkspaceDiagnosticParams,
    ) -> Result<lsp::WorkspaceDiagnosticReportResult> {
        self.pull_workspace(params).await
    }

    async fn shutdown(&self) -> Result<()> {
        for doc in self.lock().docs.values() {
            doc.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }

    async fn did_open(&self, params: lsp::DidOpenTextDocumentParams) {
        let td = params.text_document;
        let k = key(&td.uri);
        let job = {
            let mut s = self.lock();
            if let Some(old) = s.docs.get(&k) {
                old.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            let lock = s.publish_lock(&k);
            s.docs.insert(k.clone(), Doc::new(td.uri, &td.text, td.version, lock));
            // Open documents come first: the background check yields.
            s.workspace.interrupt();
            s.bump(&k)
        };
        if let Some(job) = job {
            self.spawn(job);
        }
    }

    async fn did_change(&self, params: lsp::DidChangeTextDocumentParams) {
        let k = key(&params.text_document.uri);
        let job = {
            let mut s = self.lock();
            let enc = s.enc;
            let Some(doc) = s.docs.get_mut(&k) else { return };
            let changes = params.content_changes;
            if catch_unwind(AssertUnwindSafe(|| doc.apply(changes, enc))).is_err() {
                return;
            }
            doc.version = params.text_document.version;
            s.workspace.interrupt();
            s.bump(&k)
        };
        if let Some(job) = job {
            self.spawn(job);
        }
    }

    async fn did_close(&self, params: lsp::DidCloseTextDocumentParams) {
        let k = key(&params.text_document.uri);
        let (lock, pull) = {
            let mut s = self.lock();
            let Some(doc) = s.docs.remove(&k) else { return };
            doc.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            // What is on disk may not be what was open: check it again.
            s.workspace.mark_stale(&k);
            (doc.publish, s.pull)
        };
        if pull {
            return;
        }
        let _serial = lock.lock().await;
        // Reopened meanwhile: its own diagnostics supersede; do not wipe them.
        if !self.lock().docs.contains_key(&k) {
            self.client.publish_diagnostics(params.text_document.uri, Vec::new(), None).await;
        }
    }

    async fn did_change_configuration(&self, params: lsp::DidChangeConfigurationParams) {
        let (jobs, problems, redraw) = {
            let mut s = self.lock();
            // Field by field: a bad field keeps its value, the others apply.
            let mut config = s.config.clone();
            let problems = config.apply(&params.settings);
            let mut jobs: Vec<Job> = Vec::new();
            // Hints switched on or off: the client asks again (and gets
            // none), no check runs again.
            let redraw = config.inlay_hints != s.config.inlay_hints && s.inlay_refresh;
            if config != s.config {
                let (recheck, restart) = (!config.same_check(&s.config), !config.same_workspace_check(&s.config));
                s.config = config;
                s.workspace.enabled = s.pull && s.config.workspace_diagnostics;
                if restart {
                    s.workspace.all_stale();
                }
                if recheck {
                    let keys: Vec<String> = s.docs.keys().cloned().collect();
                    jobs = keys.iter().filter_map(|k| s.bump(k)).collect();
                }
            }
            (jobs, problems, redraw)
        };
        for job in jobs {
            self.spawn(job);
        }
        if redraw {
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = client.inlay_hint_refresh().await;
            });
        }
        self.report_settings(&problems).await;
    }

    async fn hover(&self, params: lsp::HoverParams) -> Result<Option<lsp::Hover>> {
        let p = params.text_document_position_params;
        let snap = self.snapshot(&p.text_document.uri).await?;
        guarded("hover", || {
            let offset = snap.offset(p.position);
            hover::hover(&snap.analyzed.text, &snap.analyzed.analysis, snap.report(), offset).map(|(md, span)| {
                lsp::Hover {
                    contents: lsp::HoverContents::Markup(convert::markdown(md)),
                    range: Some(snap.range(span)),
                }
            })
        })
    }

    async fn goto_definition(&self, params: lsp::GotoDefinitionParams) -> Result<Option<lsp::GotoDefinitionResponse>> {
        let p = params.text_document_position_params;
        let snap = self.snapshot(&p.text_document.uri).await?;
        guarded("definition", || {
            navigation::definition(&snap.analyzed.analysis, snap.offset(p.position)).map(|s| {
                lsp::GotoDefinitionResponse::Scalar(lsp::Location { uri: snap.uri.clone(), range: snap.range(s) })
            })
        })
    }

    async fn references(&self, params: lsp::ReferenceParams) -> Result<Option<Vec<lsp::Location>>> {
        let p = params.text_document_position;
        let snap = self.snapshot(&p.text_document.uri).await?;
        guarded("references", || {
            let spans = navigation::references(
                &snap.analyzed.analysis,
                snap.offset(p.position),
                params.context.include_declaration,
            );
            Some(spans.into_iter().map(|s| lsp::Location { uri: snap.uri.clone(), range: snap.range(s) }).collect())
        })
    }

    async fn prepare_rename(
        &self,
        params: lsp::TextDocumentPositionParams,
    ) -> Result<Option<lsp::PrepareRenameResponse>> {
        let snap = self.snapshot(&params.text_document.uri).await?;
        guarded("prepareRename", || navigation::prepare_rename(&snap.analyzed.analysis, snap.offset(params.position)))?
            .map(|(span, name)| {
                Some(lsp::PrepareRenameResponse::RangeWithPlaceholder { range: snap.range(span), placeholder: name })
            })
            .map_err(request_failed)
    }

    async fn rename(&self, params: lsp::RenameParams) -> Result<Option<lsp::WorkspaceEdit>> {
        let p = params.text_document_position;
        let snap = self.snapshot(&p.text_document.uri).await?;
        let edits = guarded("rename", || {
            navigation::rename(&snap.analyzed.analysis, snap.offset(p.position), &params.new_name)
        })?
        .map_err(request_failed)?;
        let edits = edits.into_iter().map(|(s, t)| lsp::TextEdit { range: snap.range(s), new_text: t }).collect();
        Ok(Some(convert::workspace_edit(&snap.uri, edits)))
    }

    async fn document_symbol(&self, params: lsp::DocumentSymbolParams) -> Result<Option<lsp::DocumentSymbolResponse>> {
        let snap = self.snapshot(&params.text_document.uri).await?;
        guarded("documentSymbol", || {
            #[allow(deprecated)]
            fn convert_outline(snap: &Snapshot, o: &navigation::Outline) -> lsp::DocumentSymbol {
                lsp::DocumentSymbol {
                    name: o.name.clone(),
                    detail: Some(o.detail.clone()),
                    kind: convert::symbol_kind(o.kind),
                    tags: None,
                    deprecated: None,
                    range: snap.range(o.full),
                    selection_range: snap.range(o.selection),
                    children: (!o.children.is_empty())
                        .then(|| o.children.iter().map(|c| convert_outline(snap, c)).collect()),
                }
            }
            let outline = navigation::outline(&snap.analyzed.analysis);
            Some(lsp::DocumentSymbolResponse::Nested(outline.iter().map(|o| convert_outline(&snap, o)).collect()))
        })
    }

    async fn semantic_tokens_full(
        &self,
        params: lsp::SemanticTokensParams,
    ) -> Result<Option<lsp::SemanticTokensResult>> {
        let snap = self.snapshot(&params.text_document.uri).await?;
        guarded("semanticTokens", || {
            let toks = tokens::tokens(&snap.analyzed.text, &snap.analyzed.analysis);
            let data = convert::semantic_tokens(&snap.analyzed.rope, &toks, snap.enc);
            Some(lsp::SemanticTokensResult::Tokens(lsp::SemanticTokens { result_id: None, data }))
        })
    }

    async fn formatting(&self, params: lsp::DocumentFormattingParams) -> Result<Option<Vec<lsp::TextEdit>>> {
        let snap = self.snapshot(&params.text_document.uri).await?;
        guarded("formatting", || {
            let edits = format::format(&snap.analyzed.text, snap.analyzed.analysis.dialect);
            Some(convert::text_edits(&snap.analyzed.rope, &edits, snap.enc))
        })
    }

    async fn code_lens(&self, params: lsp::CodeLensParams) -> Result<Option<Vec<lsp::CodeLens>>> {
        let snap = self.snapshot(&params.text_document.uri).await?;
        guarded("codeLens", || {
            let span = lens::header_span(&snap.analyzed.text);
            let title = if snap.analyzed.analysis.program.is_none() {
                lens::verdicts(None, false)
            } else {
                lens::verdicts(snap.report(), snap.checking)
            };
            // An empty command id: the lens is a label, not a button.
            let command = lsp::Command { title, command: String::new(), arguments: None };
            let mut out = vec![lsp::CodeLens { range: snap.range(span), command: Some(command), data: None }];
            if let (Some(p), Some(r)) = (snap.analyzed.analysis.program.as_ref(), snap.report()) {
                for (span, title, n) in crate::execution::lenses(p, r) {
                    let arguments = Some(vec![serde_json::json!(snap.uri.as_str()), serde_json::json!(n)]);
                    let command = lsp::Command { title, command: crate::execution::COMMAND.into(), arguments };
                    out.push(lsp::CodeLens { range: snap.range(span), command: Some(command), data: None });
                }
            }
            Some(out)
        })
    }

    async fn inlay_hint(&self, params: lsp::InlayHintParams) -> Result<Option<Vec<lsp::InlayHint>>> {
        if !self.lock().config.inlay_hints {
            return Ok(None);
        }
        let snap = self.snapshot(&params.text_document.uri).await?;
        guarded("inlayHint", || {
            let (Some(prog), Some(report)) = (&snap.analyzed.analysis.program, snap.report()) else {
                return None;
            };
            let span = convert::span(&snap.analyzed.rope, params.range, snap.enc);
            let hints = crate::inlay::hints(&snap.analyzed.text, prog, report, span.start, span.end);
            Some(hints.iter().map(|h| convert::inlay_hint(&snap.analyzed.rope, h, snap.enc)).collect())
        })
    }

    async fn completion(&self, params: lsp::CompletionParams) -> Result<Option<lsp::CompletionResponse>> {
        let p = params.text_document_position;
        let snap = self.snapshot(&p.text_document.uri).await?;
        guarded("completion", || {
            let items = completion::complete(&snap.analyzed.analysis, snap.offset(p.position));
            let items = items
                .into_iter()
                .map(|i| lsp::CompletionItem {
                    label: i.label,
                    kind: Some(match i.kind {
                        completion::ItemKind::Keyword => lsp::CompletionItemKind::KEYWORD,
                        completion::ItemKind::Variable => lsp::CompletionItemKind::VARIABLE,
                        completion::ItemKind::Function => lsp::CompletionItemKind::FUNCTION,
                        completion::ItemKind::Thread => lsp::CompletionItemKind::MODULE,
                    }),
                    detail: Some(i.detail),
                    ..Default::default()
                })
                .collect();
            Some(lsp::CompletionResponse::Array(items))
        })
    }

    async fn code_action(&self, params: lsp::CodeActionParams) -> Result<Option<lsp::CodeActionResponse>> {
        let snap = self.snapshot(&params.text_document.uri).await?;
        guarded("codeAction", || {
            let (Some(checked), Some(prog)) = (&snap.checked, &snap.analyzed.analysis.program) else {
                return Some(Vec::new());
            };
            let text = &snap.analyzed.text;
            let report = &checked.report;
            let only = &params.context.only;
            let mut out = Vec::new();
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
                    let v = data.get("violation").and_then(|v| v.as_array());
                    if let (true, Some([mi, vi])) = (same_gen, v.map(|v| v.as_slice())) {
                        if let (Some(mi), Some(vi)) = (mi.as_u64(), vi.as_u64()) {
                            wanted.push(((mi as usize, vi as usize), Some(d.clone())));
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
        })
    }
}
