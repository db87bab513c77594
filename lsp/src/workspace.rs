//! The workspace's `.litmus` files on disk, for `workspace/diagnostic`:
//! found by walking the workspace folders, checked in the background at the
//! lowest priority — one file at a time, only while no open document is
//! being checked, on one worker thread, each under its own deadline (a slow
//! file is reported unknown, never holds the queue) — and cancelled by any
//! edit to an open document (the file goes back in the queue). Open
//! documents are answered from their live state, not from here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::Notify;
use tower_lsp_server::ls_types as lsp;

/// A walk stops after this many files or directories: a workspace folder
/// that is a home directory must not stall the server.
const MAX_ENTRIES: usize = 20_000;
/// Files larger than this are not read in the background.
pub(crate) const MAX_FILE_BYTES: u64 = 4 << 20;
/// Without a file watcher, a pull rescans the folders at most this often.
const RESCAN_EVERY: Duration = Duration::from_secs(2);
/// Refreshes sent while background results arrive, at most this often.
pub(crate) const REFRESH_EVERY: Duration = Duration::from_secs(1);

/// Modification time and length: a file whose stamp changed is re-checked.
type Stamp = (SystemTime, u64);
/// A file a walk found.
type Found = (lsp::Uri, PathBuf, Option<Stamp>);

/// What a background check found in one file.
pub struct DiskResult {
    pub result_id: String,
    pub items: Vec<lsp::Diagnostic>,
}

pub struct DiskFile {
    pub uri: lsp::Uri,
    pub path: PathBuf,
    /// Modification time and length when last seen: a change makes it stale.
    pub(crate) stamp: Option<Stamp>,
    /// Needs a (re-)check.
    pub stale: bool,
    pub result: Option<Arc<DiskResult>>,
}

pub struct Workspace {
    /// Background checking is on: the client pulls, the setting allows it.
    pub enabled: bool,
    pub folders: Vec<PathBuf>,
    /// By URI (`documents::key`).
    pub files: BTreeMap<String, DiskFile>,
    /// The client sends `workspace/didChangeWatchedFiles` for `**/*.litmus`.
    pub watching: bool,
    /// When the folders were last walked (None: never).
    pub(crate) scanned: Option<Instant>,
    /// A pull asked for a rescan (clients without a watcher).
    pub(crate) rescan: bool,
    /// Cancels the background check in flight; set by every edit.
    pub cancel: Arc<AtomicBool>,
    /// The file being checked, and how many checks were cancelled (tests, docs).
    pub running: Option<String>,
    pub cancelled: u64,
    /// The scheduling priority (nice) the last background check ran at.
    pub nice: Option<i32>,
    /// Wakes the worker: a check finished, files changed, a pull arrived.
    pub wake: Arc<Notify>,
    pub(crate) last_result: u64,
    pub(crate) last_refresh: Option<Instant>,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            enabled: false,
            folders: Vec::new(),
            files: BTreeMap::new(),
            watching: false,
            scanned: None,
            rescan: false,
            cancel: Arc::new(AtomicBool::new(false)),
            running: None,
            cancelled: 0,
            nice: None,
            wake: Arc::new(Notify::new()),
            last_result: 0,
            last_refresh: None,
        }
    }
}

impl Workspace {
    /// An edit: stop the background check in flight (it is re-queued).
    pub fn interrupt(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// The file at `key` may differ on disk from what was checked (closed
    /// after editing, or a watcher said so).
    pub fn mark_stale(&mut self, key: &str) {
        if let Some(f) = self.files.get_mut(key) {
            f.stale = true;
        }
        self.wake.notify_one();
    }

    /// A watcher event for `uri`: created/changed files are (re)queued, a
    /// deleted one is reported once more, with no diagnostics.
    pub fn file_event(&mut self, uri: &lsp::Uri, deleted: bool) {
        let Some(path) = uri.to_file_path().map(|p| p.into_owned()) else { return };
        if !litmus_dsl::files::is_litmus(&path) || !self.covers(&path) {
            return;
        }
        let key = crate::documents::key(uri);
        if deleted {
            self.forget(&key);
        } else {
            self.files.entry(key).or_insert_with(|| DiskFile::new(uri.clone(), path)).stale = true;
        }
        self.wake.notify_one();
    }

    /// Workspace folders added or removed: the next walk covers the new
    /// set, and the files of a removed folder are reported once more, empty.
    pub fn change_folders(&mut self, added: Vec<PathBuf>, removed: Vec<PathBuf>) {
        self.folders.retain(|f| !removed.contains(f));
        for f in added {
            if !self.folders.contains(&f) {
                self.folders.push(f);
            }
        }
        // Files no folder holds any more: the one being checked is stopped;
        // one already reported is reported once more, empty; one still in
        // the queue was never shown and just goes.
        let outside: Vec<String> =
            self.files.iter().filter(|(_, f)| !self.covers(&f.path)).map(|(k, _)| k.clone()).collect();
        for k in outside {
            if self.running.as_deref() == Some(k.as_str()) {
                self.interrupt();
            }
            if self.files[&k].result.is_some() {
                self.forget(&k);
            } else {
                self.files.remove(&k);
            }
        }
        self.rescan = true;
        self.wake.notify_one();
    }

    /// Some workspace folder holds `path`.
    pub(crate) fn covers(&self, path: &Path) -> bool {
        self.folders.iter().any(|f| path.starts_with(f))
    }

    /// A setting the checks depend on changed: every file is checked again.
    pub fn all_stale(&mut self) {
        for f in self.files.values_mut() {
            f.stale = true;
        }
        self.wake.notify_one();
    }

    /// A pull arrived: without a watcher, look for changes on disk again.
    pub fn pulled(&mut self) {
        if !self.watching && self.scanned.is_some_and(|t| t.elapsed() >= RESCAN_EVERY) {
            self.rescan = true;
            self.wake.notify_one();
        }
    }

    fn forget(&mut self, key: &str) {
        if let Some(f) = self.files.get_mut(key) {
            // Kept with an empty report, so the client clears what it shows.
            f.stale = false;
            f.stamp = None;
            self.last_result += 1;
            f.result = Some(Arc::new(DiskResult { result_id: format!("w{}", self.last_result), items: Vec::new() }));
        }
    }

    pub(crate) fn needs_scan(&self) -> bool {
        self.scanned.is_none() || self.rescan
    }

    /// Merge a walk's findings: new or changed files become stale, vanished
    /// ones are reported empty.
    pub(crate) fn merge(&mut self, found: Vec<Found>) {
        let mut seen = std::collections::HashSet::new();
        for (uri, path, stamp) in found {
            let key = crate::documents::key(&uri);
            seen.insert(key.clone());
            let f = self.files.entry(key).or_insert_with(|| DiskFile::new(uri, path));
            if f.stamp != stamp || f.result.is_none() {
                f.stale = true;
            }
        }
        let gone: Vec<String> = self
            .files
            .iter()
            .filter(|(k, f)| !seen.contains(*k) && f.stamp.is_some())
            .map(|(k, _)| k.clone())
            .collect();
        for k in gone {
            self.forget(&k);
        }
        self.scanned = Some(Instant::now());
        self.rescan = false;
    }
}

impl DiskFile {
    fn new(uri: lsp::Uri, path: PathBuf) -> DiskFile {
        DiskFile { uri, path, stamp: None, stale: true, result: None }
    }
}

pub(crate) fn stamp(p: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// Every `.litmus` file under the folders, folder by folder in name order
/// (hidden directories, `target` and `node_modules` skipped; symbolic links
/// not followed; no more than [`MAX_ENTRIES`] entries read in all).
pub(crate) fn walk(folders: &[PathBuf]) -> Vec<Found> {
    struct Sources(Vec<Found>);
    impl litmus_dsl::files::Visit for Sources {
        fn file(&mut self, p: &Path, kind: Option<std::fs::FileType>) {
            // Regular files only: a link is not followed.
            if kind.is_some_and(|t| t.is_file()) {
                if let Some(uri) = lsp::Uri::from_file_path(p) {
                    self.0.push((uri, p.to_path_buf(), stamp(p)));
                }
            }
        }
    }
    fn skipped(name: &std::ffi::OsStr) -> bool {
        let name = name.to_string_lossy();
        name.starts_with('.') || name == "target" || name == "node_modules"
    }
    let mut walk = litmus_dsl::files::Walk::new(false, skipped).max_entries(MAX_ENTRIES);
    let mut found = Sources(Vec::new());
    for f in folders {
        walk.walk(f, &mut found);
    }
    found.0
}

/// The folders of `initialize` (`workspaceFolders`, else `rootUri`).
#[allow(deprecated)]
pub fn folders(params: &lsp::InitializeParams) -> Vec<PathBuf> {
    let uris: Vec<lsp::Uri> = match &params.workspace_folders {
        Some(f) if !f.is_empty() => f.iter().map(|f| f.uri.clone()).collect(),
        _ => params.root_uri.iter().cloned().collect(),
    };
    uris.iter().filter_map(|u| u.to_file_path().map(|p| p.into_owned())).collect()
}

/// The registration that makes the client watch `.litmus` files for us.
pub fn watcher_registration() -> lsp::Registration {
    let options = lsp::DidChangeWatchedFilesRegistrationOptions {
        watchers: vec![lsp::FileSystemWatcher {
            glob_pattern: lsp::GlobPattern::String("**/*.litmus".into()),
            kind: None,
        }],
    };
    lsp::Registration {
        id: "litmus/watch".into(),
        method: "workspace/didChangeWatchedFiles".into(),
        register_options: serde_json::to_value(options).ok(),
    }
}
