//! The LSP notifications, as functions of the server's state. Each changes
//! the document store synchronously (before its first `.await`, so edits
//! apply in the order the client sent them) and hands the rest to the
//! pipeline.

use crate::config::Problem;
use crate::documents::{key, Doc, Job};
use crate::pipeline;
use crate::state::Backend;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tower_lsp_server::ls_types as lsp;

/// Tell the user which settings were not applied: one warning to show,
/// and each in the log.
pub async fn report_settings(b: &Backend, problems: &[Problem]) {
    if problems.is_empty() {
        return;
    }
    for p in problems {
        b.client.log_message(lsp::MessageType::WARNING, format!("litmus: setting not applied: {p}")).await;
    }
    let shown = match problems {
        [p] => format!("litmus: setting not applied: {p}"),
        _ => format!(
            "litmus: {} settings not applied: {}",
            problems.len(),
            problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; ")
        ),
    };
    b.client.show_message(lsp::MessageType::WARNING, shown).await;
}

pub fn did_open(b: &Backend, params: lsp::DidOpenTextDocumentParams) {
    let td = params.text_document;
    let k = key(&td.uri);
    let job = {
        let mut s = b.lock();
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
        pipeline::spawn(b, job);
    }
}

pub fn did_change(b: &Backend, params: lsp::DidChangeTextDocumentParams) {
    let k = key(&params.text_document.uri);
    let job = {
        let mut s = b.lock();
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
        pipeline::spawn(b, job);
    }
}

/// Check the document again from scratch (`litmus.server.recheck`): the
/// last check is dropped so that its key cannot answer for the text.
pub fn recheck(b: &Backend, uri: &lsp::Uri) {
    let k = key(uri);
    let job = {
        let mut s = b.lock();
        let Some(doc) = s.docs.get_mut(&k) else { return };
        doc.checked = None;
        doc.recent.clear();
        s.bump(&k)
    };
    if let Some(job) = job {
        pipeline::spawn(b, job);
    }
}

pub async fn did_close(b: &Backend, params: lsp::DidCloseTextDocumentParams) {
    let k = key(&params.text_document.uri);
    let (lock, pull) = {
        let mut s = b.lock();
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
    if !b.lock().docs.contains_key(&k) {
        b.client.publish_diagnostics(params.text_document.uri, Vec::new(), None).await;
    }
}

pub async fn did_change_configuration(b: &Backend, params: lsp::DidChangeConfigurationParams) {
    let (jobs, problems, redraw) = {
        let mut s = b.lock();
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
        pipeline::spawn(b, job);
    }
    if redraw {
        let client = b.client.clone();
        tokio::spawn(async move {
            let _ = client.inlay_hint_refresh().await;
        });
    }
    report_settings(b, &problems).await;
}

pub fn did_change_workspace_folders(b: &Backend, params: lsp::DidChangeWorkspaceFoldersParams) {
    let path = |f: &lsp::WorkspaceFolder| f.uri.to_file_path().map(|p| p.into_owned());
    let added: Vec<_> = params.event.added.iter().filter_map(path).collect();
    let removed: Vec<_> = params.event.removed.iter().filter_map(path).collect();
    b.lock().workspace.change_folders(added, removed);
}

pub fn did_change_watched_files(b: &Backend, params: lsp::DidChangeWatchedFilesParams) {
    let mut s = b.lock();
    for c in params.changes {
        s.workspace.file_event(&c.uri, c.typ == lsp::FileChangeType::DELETED);
    }
}
