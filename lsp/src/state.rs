//! The server's state: the document store, the workspace's files, the
//! client's capabilities and settings, behind one lock ([`Backend`]); and
//! what a request works on ([`Snapshot`]). Handlers live above it
//! (`server`, `handlers`, `notifications`, `pipeline`, `pull`,
//! `background`) and import it; it imports none of them. `impl Backend`
//! is here only: the other modules are functions of it.

use crate::config::Config;
use crate::convert::{self, Encoding};
use crate::documents::{key, Analyzed, Checked, Doc, Job};
use crate::workspace::Workspace;
use litmus_ir::Span;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types as lsp;
use tower_lsp_server::Client;

/// Everything the handlers share.
pub struct Shared {
    pub docs: HashMap<String, Doc>,
    pub enc: Encoding,
    pub config: Config,
    /// The client can show `$/progress` (window.workDoneProgress).
    pub progress: bool,
    pub lens_refresh: bool,
    /// The client takes `workspace/inlayHint/refresh`.
    pub inlay_refresh: bool,
    /// `initializationOptions.testHooks`: enables `litmus/crash`.
    pub test_hooks: bool,
    /// The client pulls diagnostics (LSP 3.17): they are kept, not pushed.
    pub pull: bool,
    /// The client takes `workspace/diagnostic/refresh`.
    pub diagnostic_refresh: bool,
    /// The workspace's files on disk and their background checks.
    pub workspace: Workspace,
    /// The client takes snippets in completions (`snippetSupport`).
    pub snippets: bool,
    /// The client folds whole lines only (`foldingRange.lineFoldingOnly`).
    pub line_folding_only: bool,
    /// `initializationOptions.clientCommands`: the client runs these
    /// commands itself (`litmus.showExecution` in a webview).
    pub client_commands: Vec<String>,
    /// The client opens documents and URLs for the server
    /// (`window/showDocument`).
    pub show_document: bool,
    /// The client applies edits the server sends (`workspace/applyEdit`).
    pub apply_edit: bool,
    /// The last generation handed out, over all documents.
    last_generation: u64,
    /// One publish lock per URI, kept across close and reopen.
    publish_locks: HashMap<String, Arc<tokio::sync::Mutex<()>>>,
}

impl Shared {
    /// A new generation of the document at `key`, if it is open.
    pub fn bump(&mut self, key: &str) -> Option<Job> {
        self.last_generation += 1;
        let g = self.last_generation;
        self.docs.get_mut(key).map(|d| d.bump(key, g))
    }

    pub fn publish_lock(&mut self, key: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.publish_locks.entry(key.to_string()).or_default().clone()
    }
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            docs: HashMap::new(),
            enc: Encoding::Utf16,
            config: Config::default(),
            progress: false,
            lens_refresh: false,
            inlay_refresh: false,
            test_hooks: false,
            pull: false,
            diagnostic_refresh: false,
            workspace: Default::default(),
            snippets: false,
            line_folding_only: false,
            client_commands: Vec::new(),
            show_document: false,
            apply_edit: false,
            last_generation: 0,
            publish_locks: HashMap::new(),
        }
    }
}

#[derive(Clone)]
pub struct Backend {
    pub client: Client,
    shared: Arc<Mutex<Shared>>,
}

/// What a request works on: one generation's analysis and, if that same
/// generation has been checked, its report.
pub struct Snapshot {
    pub uri: lsp::Uri,
    pub enc: Encoding,
    pub analyzed: Arc<Analyzed>,
    pub checked: Option<Arc<Checked>>,
    pub checking: bool,
    /// What the editor was last shown of a check (maybe of an older text).
    pub shown: Option<Arc<crate::documents::Shown>>,
    /// The client shows executions itself (`litmus.showExecution`).
    pub client_show: bool,
}

impl Snapshot {
    pub fn offset(&self, p: lsp::Position) -> usize {
        convert::offset(&self.analyzed.rope, p, self.enc)
    }
    pub fn range(&self, s: Span) -> lsp::Range {
        convert::range(&self.analyzed.rope, s, self.enc)
    }
    pub fn report(&self) -> Option<&litmus_checker::Report> {
        self.checked.as_ref().map(|c| &*c.report)
    }
}

/// How long a request waits for the analysis of the text it refers to
/// (analysis takes milliseconds; this is a safety net, not a budget).
const ANALYSIS_WAIT: Duration = Duration::from_secs(5);

/// Run request work, turning a panic into an internal error.
pub fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        let msg = e
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Error { code: ErrorCode::InternalError, message: format!("litmus: {what} failed: {msg}").into(), data: None }
    })
}

pub fn request_failed(msg: impl Into<String>) -> Error {
    Error { code: ErrorCode::ServerError(-32803), message: msg.into().into(), data: None }
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        Backend { client, shared: Arc::new(Mutex::new(Shared::default())) }
    }

    /// A panicking handler must not take the store down with it.
    pub fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The newest analysis at least as new as the document's current
    /// generation, waiting for it if the pipeline has not produced it yet.
    pub async fn snapshot(&self, uri: &lsp::Uri) -> Result<Snapshot> {
        let k = key(uri);
        let (target, mut rx) = {
            let s = self.lock();
            let doc = s.docs.get(&k).ok_or_else(|| Error::invalid_params(format!("{} is not open", uri.as_str())))?;
            (doc.generation, doc.ready.subscribe())
        };
        if tokio::time::timeout(ANALYSIS_WAIT, rx.wait_for(|g| *g >= target)).await.is_err() {
            return Err(Error::new(ErrorCode::ContentModified));
        }
        let s = self.lock();
        let doc = s.docs.get(&k).ok_or_else(|| Error::invalid_params("the document was closed"))?;
        // Only the text the request refers to will do: a newer one (edited
        // while we waited) or an older one (its analysis failed) would put
        // the answer at the wrong positions.
        let analyzed = doc
            .analyzed
            .clone()
            .filter(|a| a.generation == target)
            .ok_or_else(|| Error::new(ErrorCode::ContentModified))?;
        let checked = doc.checked.clone().filter(|c| c.generation == analyzed.generation);
        let checking = doc.checking && analyzed.generation == doc.generation;
        let shown = doc.shown.clone();
        let client_show = s.client_commands.iter().any(|c| c == crate::execution::COMMAND);
        Ok(Snapshot { uri: uri.clone(), enc: s.enc, analyzed, checked, checking, shown, client_show })
    }

    /// A request's work on the snapshot of `uri` (see [`snapshot`](Self::snapshot)),
    /// [`guarded`] under the request's `name`.
    pub async fn on_snapshot<R>(
        &self,
        name: &'static str,
        uri: &lsp::Uri,
        f: impl FnOnce(&Snapshot) -> R,
    ) -> Result<R> {
        let snap = self.snapshot(uri).await?;
        guarded(name, || f(&snap))
    }
}
