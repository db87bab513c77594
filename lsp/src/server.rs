//! The protocol's entry points: the `LanguageServer` impl and the `litmus/*`
//! custom requests (registered in `lib.rs`). Thin: the lifecycle
//! (`initialize`, `initialized`, `shutdown`) is here; a notification calls
//! its function in `notifications`, a request takes the snapshot of its
//! document and calls its function in `handlers` under `catch_unwind` (via
//! [`Backend::on_snapshot`]): a bug answers that request with an error, the
//! server goes on. Requests never wait on the model checker.

use crate::convert::Encoding;
use crate::execution::{GraphParams, GraphResult};
use crate::state::{guarded, Backend};
use crate::{handlers, notifications, pull, tokens};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;
use tower_lsp_server::LanguageServer;

/// `litmus/crash` (testHooks only): a handler that panics, to test that a
/// panic answers the request with an error and the server goes on.
pub async fn crash(b: &Backend) -> Result<()> {
    let hooks = b.lock().test_hooks;
    guarded("litmus/crash", || {
        if hooks {
            panic!("deliberate panic (testHooks)");
        }
    })
}

pub async fn document_text(b: &Backend, params: lsp::TextDocumentIdentifier) -> Result<String> {
    handlers::document_text(&b.lock(), params)
}

pub async fn execution_graph(b: &Backend, params: GraphParams) -> Result<GraphResult> {
    let uri = params.text_document.uri.clone();
    let opts = b.lock().config.options();
    b.on_snapshot(crate::execution::METHOD, &uri, move |snap| handlers::execution_graph(snap, params, &opts)).await?
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
                s.client_commands = opts
                    .get("clientCommands")
                    .and_then(|v| v.as_array())
                    .map(|a| a.iter().filter_map(|c| c.as_str().map(String::from)).collect())
                    .unwrap_or_default();
            }
            s.progress = params.capabilities.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false);
            s.snippets = params
                .capabilities
                .text_document
                .as_ref()
                .and_then(|t| t.completion.as_ref())
                .and_then(|c| c.completion_item.as_ref())
                .and_then(|i| i.snippet_support)
                .unwrap_or(false);
            s.show_document =
                params.capabilities.window.as_ref().and_then(|w| w.show_document.as_ref()).is_some_and(|d| d.support);
            s.apply_edit = params.capabilities.workspace.as_ref().and_then(|w| w.apply_edit).unwrap_or(false);
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
            s.line_folding_only = params
                .capabilities
                .text_document
                .as_ref()
                .and_then(|t| t.folding_range.as_ref())
                .and_then(|f| f.line_folding_only)
                .unwrap_or(false);
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
        notifications::report_settings(self, &problems).await;
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
            document_range_formatting_provider: Some(lsp::OneOf::Left(true)),
            document_highlight_provider: Some(lsp::OneOf::Left(true)),
            folding_range_provider: Some(lsp::FoldingRangeProviderCapability::Simple(true)),
            workspace_symbol_provider: Some(lsp::OneOf::Left(true)),
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
            // `:` after a thread's name in the final condition: its registers.
            completion_provider: Some(lsp::CompletionOptions {
                trigger_characters: Some(vec![":".into()]),
                ..Default::default()
            }),
            signature_help_provider: Some(lsp::SignatureHelpOptions {
                trigger_characters: Some(vec!["(".into(), ",".into()]),
                retrigger_characters: None,
                work_done_progress_options: Default::default(),
            }),
            code_action_provider: Some(lsp::CodeActionProviderCapability::Options(lsp::CodeActionOptions {
                code_action_kinds: Some(vec![lsp::CodeActionKind::QUICKFIX, crate::actions::INSERT_FENCES]),
                ..Default::default()
            })),
            diagnostic_provider: pull.then(crate::pull::capability),
            execute_command_provider: Some(lsp::ExecuteCommandOptions {
                commands: crate::commands::ALL.iter().map(|c| c.to_string()).collect(),
                work_done_progress_options: Default::default(),
            }),
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
        notifications::did_change_workspace_folders(self, params)
    }

    async fn did_change_watched_files(&self, params: lsp::DidChangeWatchedFilesParams) {
        notifications::did_change_watched_files(self, params)
    }

    async fn diagnostic(&self, params: lsp::DocumentDiagnosticParams) -> Result<lsp::DocumentDiagnosticReportResult> {
        pull::pull_document(self, params).await
    }

    async fn workspace_diagnostic(
        &self,
        params: lsp::WorkspaceDiagnosticParams,
    ) -> Result<lsp::WorkspaceDiagnosticReportResult> {
        pull::pull_workspace(self, params).await
    }

    async fn shutdown(&self) -> Result<()> {
        for doc in self.lock().docs.values() {
            doc.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }

    async fn did_open(&self, params: lsp::DidOpenTextDocumentParams) {
        notifications::did_open(self, params)
    }

    async fn did_change(&self, params: lsp::DidChangeTextDocumentParams) {
        notifications::did_change(self, params)
    }

    async fn did_close(&self, params: lsp::DidCloseTextDocumentParams) {
        notifications::did_close(self, params).await
    }

    async fn did_change_configuration(&self, params: lsp::DidChangeConfigurationParams) {
        notifications::did_change_configuration(self, params).await
    }

    async fn hover(&self, params: lsp::HoverParams) -> Result<Option<lsp::Hover>> {
        let uri = params.text_document_position_params.text_document.uri.clone();
        self.on_snapshot("hover", &uri, |snap| handlers::hover(snap, params)).await
    }

    async fn goto_definition(&self, params: lsp::GotoDefinitionParams) -> Result<Option<lsp::GotoDefinitionResponse>> {
        let uri = params.text_document_position_params.text_document.uri.clone();
        self.on_snapshot("definition", &uri, |snap| handlers::goto_definition(snap, params)).await
    }

    async fn references(&self, params: lsp::ReferenceParams) -> Result<Option<Vec<lsp::Location>>> {
        let uri = params.text_document_position.text_document.uri.clone();
        self.on_snapshot("references", &uri, |snap| handlers::references(snap, params)).await
    }

    async fn prepare_rename(
        &self,
        params: lsp::TextDocumentPositionParams,
    ) -> Result<Option<lsp::PrepareRenameResponse>> {
        let uri = params.text_document.uri.clone();
        self.on_snapshot("prepareRename", &uri, |snap| handlers::prepare_rename(snap, params)).await?
    }

    async fn rename(&self, params: lsp::RenameParams) -> Result<Option<lsp::WorkspaceEdit>> {
        let uri = params.text_document_position.text_document.uri.clone();
        self.on_snapshot("rename", &uri, |snap| handlers::rename(snap, params)).await?
    }

    async fn document_symbol(&self, params: lsp::DocumentSymbolParams) -> Result<Option<lsp::DocumentSymbolResponse>> {
        let uri = params.text_document.uri.clone();
        self.on_snapshot("documentSymbol", &uri, |snap| handlers::document_symbol(snap, params)).await
    }

    async fn semantic_tokens_full(
        &self,
        params: lsp::SemanticTokensParams,
    ) -> Result<Option<lsp::SemanticTokensResult>> {
        let uri = params.text_document.uri.clone();
        self.on_snapshot("semanticTokens", &uri, |snap| handlers::semantic_tokens_full(snap, params)).await
    }

    async fn formatting(&self, params: lsp::DocumentFormattingParams) -> Result<Option<Vec<lsp::TextEdit>>> {
        let uri = params.text_document.uri.clone();
        self.on_snapshot("formatting", &uri, |snap| handlers::formatting(snap, params)).await
    }

    async fn range_formatting(&self, params: lsp::DocumentRangeFormattingParams) -> Result<Option<Vec<lsp::TextEdit>>> {
        let uri = params.text_document.uri.clone();
        self.on_snapshot("rangeFormatting", &uri, |snap| handlers::range_formatting(snap, params)).await
    }

    async fn document_highlight(
        &self,
        params: lsp::DocumentHighlightParams,
    ) -> Result<Option<Vec<lsp::DocumentHighlight>>> {
        let uri = params.text_document_position_params.text_document.uri.clone();
        self.on_snapshot("documentHighlight", &uri, |snap| handlers::document_highlight(snap, params)).await
    }

    async fn folding_range(&self, params: lsp::FoldingRangeParams) -> Result<Option<Vec<lsp::FoldingRange>>> {
        let line_only = self.lock().line_folding_only;
        let uri = params.text_document.uri.clone();
        self.on_snapshot("foldingRange", &uri, |snap| handlers::folding_range(snap, params, line_only)).await
    }

    /// Open documents from their newest analysis, whatever its generation
    /// (no waiting); files on disk walked and parsed on a blocking thread.
    async fn symbol(&self, params: lsp::WorkspaceSymbolParams) -> Result<Option<lsp::WorkspaceSymbolResponse>> {
        let (open, folders, enc) = {
            let s = self.lock();
            let open: Vec<_> = s.docs.values().filter_map(|d| Some((d.uri.clone(), d.analyzed.clone()?))).collect();
            (open, s.workspace.folders.clone(), s.enc)
        };
        let work =
            move || guarded("workspace/symbol", || handlers::workspace_symbol(&open, &folders, &params.query, enc));
        tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| Err(crate::state::request_failed(e.to_string())))
    }

    async fn code_lens(&self, params: lsp::CodeLensParams) -> Result<Option<Vec<lsp::CodeLens>>> {
        let uri = params.text_document.uri.clone();
        self.on_snapshot("codeLens", &uri, |snap| handlers::code_lens(snap, params)).await
    }

    async fn inlay_hint(&self, params: lsp::InlayHintParams) -> Result<Option<Vec<lsp::InlayHint>>> {
        if !self.lock().config.inlay_hints {
            return Ok(None);
        }
        let uri = params.text_document.uri.clone();
        self.on_snapshot("inlayHint", &uri, |snap| handlers::inlay_hint(snap, params)).await
    }

    async fn completion(&self, params: lsp::CompletionParams) -> Result<Option<lsp::CompletionResponse>> {
        let uri = params.text_document_position.text_document.uri.clone();
        let snippets = self.lock().snippets;
        self.on_snapshot("completion", &uri, |snap| handlers::completion(snap, params, snippets)).await
    }

    async fn signature_help(&self, params: lsp::SignatureHelpParams) -> Result<Option<lsp::SignatureHelp>> {
        let uri = params.text_document_position_params.text_document.uri.clone();
        self.on_snapshot("signatureHelp", &uri, |snap| handlers::signature_help(snap, params)).await
    }

    async fn execute_command(&self, params: lsp::ExecuteCommandParams) -> Result<Option<serde_json::Value>> {
        crate::commands::execute(self, params).await
    }

    async fn code_action(&self, params: lsp::CodeActionParams) -> Result<Option<lsp::CodeActionResponse>> {
        let uri = params.text_document.uri.clone();
        self.on_snapshot("codeAction", &uri, |snap| handlers::code_action(snap, params)).await
    }
}
