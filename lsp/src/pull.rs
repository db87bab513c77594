//! LSP 3.17 pull diagnostics. For a client that pulls, the pipeline keeps
//! what it would have pushed (`Pulled`, one per delivery: the analysis,
//! then each check phase) and asks the client to re-pull; requests answer
//! from it, `unchanged` when the client already has that delivery. The
//! files of the workspace that are not open come from `workspace.rs`.

use std::collections::HashMap;
use tower_lsp_server::jsonrpc::{Error, ErrorCode};
use tower_lsp_server::ls_types as lsp;

/// Pull only for a client that declares `textDocument.diagnostic` and takes
/// `workspace/diagnostic/refresh`: the check delivers progressively, and a
/// client that cannot be told to re-pull would see only the first phase, so
/// such a client is pushed to instead.
pub fn client_pulls(caps: &lsp::ClientCapabilities) -> bool {
    let declared = caps.text_document.as_ref().is_some_and(|t| t.diagnostic.is_some());
    declared && refresh_support(caps)
}

pub fn refresh_support(caps: &lsp::ClientCapabilities) -> bool {
    caps.workspace.as_ref().and_then(|w| w.diagnostics.as_ref()).and_then(|d| d.refresh_support).unwrap_or(false)
}

/// The client can watch files for us (`workspace/didChangeWatchedFiles`
/// registered dynamically).
pub fn client_watches(caps: &lsp::ClientCapabilities) -> bool {
    caps.workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|d| d.dynamic_registration)
        .unwrap_or(false)
}

pub fn capability() -> lsp::DiagnosticServerCapabilities {
    lsp::DiagnosticServerCapabilities::Options(lsp::DiagnosticOptions {
        identifier: Some("litmus".into()),
        // A file's findings depend on its text alone.
        inter_file_dependencies: false,
        workspace_diagnostics: true,
        work_done_progress_options: Default::default(),
    })
}

/// A document report: `unchanged` when the client holds `result_id` already.
pub fn document_report(
    result_id: String,
    items: &[lsp::Diagnostic],
    previous: Option<&str>,
) -> lsp::DocumentDiagnosticReportResult {
    let report = if previous == Some(result_id.as_str()) {
        lsp::DocumentDiagnosticReport::Unchanged(lsp::RelatedUnchangedDocumentDiagnosticReport {
            related_documents: None,
            unchanged_document_diagnostic_report: lsp::UnchangedDocumentDiagnosticReport { result_id },
        })
    } else {
        lsp::DocumentDiagnosticReport::Full(lsp::RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: lsp::FullDocumentDiagnosticReport {
                result_id: Some(result_id),
                items: items.to_vec(),
            },
        })
    };
    lsp::DocumentDiagnosticReportResult::Report(report)
}

/// One file's entry of a workspace report.
pub fn workspace_item(
    uri: lsp::Uri,
    version: Option<i64>,
    result_id: String,
    items: &[lsp::Diagnostic],
    previous: &HashMap<String, String>,
) -> lsp::WorkspaceDocumentDiagnosticReport {
    if previous.get(uri.as_str()) == Some(&result_id) {
        lsp::WorkspaceDocumentDiagnosticReport::Unchanged(lsp::WorkspaceUnchangedDocumentDiagnosticReport {
            uri,
            version,
            unchanged_document_diagnostic_report: lsp::UnchangedDocumentDiagnosticReport { result_id },
        })
    } else {
        lsp::WorkspaceDocumentDiagnosticReport::Full(lsp::WorkspaceFullDocumentDiagnosticReport {
            uri,
            version,
            full_document_diagnostic_report: lsp::FullDocumentDiagnosticReport {
                result_id: Some(result_id),
                items: items.to_vec(),
            },
        })
    }
}

/// LSP's `ServerCancelled` for a diagnostic request: `retrigger` asks the
/// client to pull again (the text changed while we waited).
pub fn cancelled(retrigger: bool) -> Error {
    Error {
        code: ErrorCode::ServerError(-32802),
        message: "litmus: the document changed; pull again".into(),
        data: serde_json::to_value(lsp::DiagnosticServerCancellationData { retrigger_request: retrigger }).ok(),
    }
}

use crate::documents::{key, Job, Pulled};
use crate::state::Backend;
use std::sync::Arc;
use std::time::Duration;

/// How long a pull waits for the diagnostics of the text it refers to
/// (the analysis takes milliseconds; a safety net, not a budget).
const WAIT: Duration = Duration::from_secs(5);

/// Keep a delivery for pull requests (instead of pushing it); after a
/// check phase, ask the client to pull again.
pub(crate) fn keep_for_pull(b: &Backend, job: &Job, items: Vec<lsp::Diagnostic>) {
    let refresh = {
        let mut s = b.lock();
        let refresh = s.diagnostic_refresh;
        let Some(doc) = s.docs.get_mut(&job.key) else { return };
        if doc.generation != job.generation {
            return;
        }
        let phase = match &doc.pulled {
            Some(p) if p.generation == job.generation => p.phase + 1,
            _ => 0,
        };
        doc.pulled = Some(Arc::new(Pulled { generation: job.generation, phase, version: job.version, items }));
        doc.pulled_generation.send_modify(|g| *g = (*g).max(job.generation));
        // The analysis is what the client's own pull after its edit waits for.
        refresh && phase > 0
    };
    if refresh {
        let client = b.client.clone();
        tokio::spawn(async move {
            let _ = client.workspace_diagnostic_refresh().await;
        });
    }
}

/// `textDocument/diagnostic`: the newest delivery for the text the
/// request refers to (waiting for its analysis if need be).
pub(crate) async fn pull_document(
    b: &Backend,
    params: lsp::DocumentDiagnosticParams,
) -> tower_lsp_server::jsonrpc::Result<lsp::DocumentDiagnosticReportResult> {
    let k = key(&params.text_document.uri);
    let (target, mut rx) = {
        let s = b.lock();
        let Some(doc) = s.docs.get(&k) else {
            // Not open (a client may pull a file it shows without
            // opening it): what the background found, if anything.
            let found = s.workspace.files.get(&k).and_then(|f| f.result.clone());
            let (id, items) = found.map_or(("none".into(), Vec::new()), |r| (r.result_id.clone(), r.items.clone()));
            return Ok(document_report(id, &items, params.previous_result_id.as_deref()));
        };
        (doc.generation, doc.pulled_generation.subscribe())
    };
    let arrived = tokio::time::timeout(WAIT, rx.wait_for(|g| *g >= target)).await.is_ok();
    let s = b.lock();
    let doc = s.docs.get(&k).ok_or_else(|| cancelled(false))?;
    match &doc.pulled {
        Some(p) if arrived && p.generation == target => {
            Ok(document_report(p.result_id(), &p.items, params.previous_result_id.as_deref()))
        }
        // Edited meanwhile: the client pulls again; or the pipeline
        // failed (reported): keep what the client shows.
        _ => Err(cancelled(doc.generation != target)),
    }
}

/// `workspace/diagnostic`: every open document from its live state, and
/// every other `.litmus` file of the workspace the background has
/// checked (the others are reported once checked, with a refresh).
pub(crate) async fn pull_workspace(
    b: &Backend,
    params: lsp::WorkspaceDiagnosticParams,
) -> tower_lsp_server::jsonrpc::Result<lsp::WorkspaceDiagnosticReportResult> {
    let previous: HashMap<String, String> =
        params.previous_result_ids.into_iter().map(|p| (p.uri.as_str().to_string(), p.value)).collect();
    let mut s = b.lock();
    s.workspace.pulled();
    let mut items = Vec::new();
    for doc in s.docs.values() {
        if let Some(p) = doc.pulled.as_ref().filter(|p| p.generation == doc.generation) {
            items.push(workspace_item(doc.uri.clone(), Some(p.version.into()), p.result_id(), &p.items, &previous));
        }
    }
    for (k, f) in &s.workspace.files {
        if let (false, Some(r)) = (s.docs.contains_key(k), &f.result) {
            items.push(workspace_item(f.uri.clone(), None, r.result_id.clone(), &r.items, &previous));
        }
    }
    Ok(lsp::WorkspaceDiagnosticReportResult::Report(lsp::WorkspaceDiagnosticReport { items }))
}

/// `litmus/workspaceState` (testHooks only): the background check's
/// state, so tests can see it run, yield to edits and finish.
pub async fn workspace_state(
    b: &Backend,
    _: serde_json::Value,
) -> tower_lsp_server::jsonrpc::Result<serde_json::Value> {
    let s = b.lock();
    if !s.test_hooks {
        return Err(tower_lsp_server::jsonrpc::Error::method_not_found());
    }
    let w = &s.workspace;
    Ok(serde_json::json!({
        "enabled": w.enabled,
        "watching": w.watching,
        "running": w.running,
        "cancelled": w.cancelled,
        "files": w.files.len(),
        "queued": w.files.values().filter(|f| f.stale).count(),
        "nice": w.nice,
    }))
}
