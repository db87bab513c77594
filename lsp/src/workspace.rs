//! The workspace's `.litmus` files on disk, for `workspace/diagnostic`:
//! found by walking the workspace folders, checked in the background at the
//! lowest priority — one file at a time, only while no open document is
//! being checked, on one worker thread, each under its own deadline (a slow
//! file is reported unknown, never holds the queue) — and cancelled by any
//! edit to an open document (the file goes back in the queue). Open
//! documents are answered from their live state, not from here.

use crate::convert;
use crate::findings::{analysis_findings, check_findings, Finding, Severity};
use crate::server::Backend;
use litmus_checker::{codes, Answer, Coverage, Report, Why};
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
const MAX_FILE_BYTES: u64 = 4 << 20;
/// Without a file watcher, a pull rescans the folders at most this often.
const RESCAN_EVERY: Duration = Duration::from_secs(2);
/// Refreshes sent while background results arrive, at most this often.
const REFRESH_EVERY: Duration = Duration::from_secs(1);

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
    stamp: Option<Stamp>,
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
    scanned: Option<Instant>,
    /// A pull asked for a rescan (clients without a watcher).
    rescan: bool,
    /// Cancels the background check in flight; set by every edit.
    pub cancel: Arc<AtomicBool>,
    /// The file being checked, and how many checks were cancelled (tests, docs).
    pub running: Option<String>,
    pub cancelled: u64,
    /// The scheduling priority (nice) the last background check ran at.
    pub nice: Option<i32>,
    /// Wakes the worker: a check finished, files changed, a pull arrived.
    pub wake: Arc<Notify>,
    last_result: u64,
    last_refresh: Option<Instant>,
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
        if !is_litmus(&path) || !self.covers(&path) {
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
    fn covers(&self, path: &Path) -> bool {
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

    fn needs_scan(&self) -> bool {
        self.scanned.is_none() || self.rescan
    }

    /// Merge a walk's findings: new or changed files become stale, vanished
    /// ones are reported empty.
    fn merge(&mut self, found: Vec<Found>) {
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

fn is_litmus(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "litmus")
}

fn stamp(p: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// Every `.litmus` file under the folders (hidden directories, `target`
/// and `node_modules` skipped; symbolic links not followed).
fn walk(folders: &[PathBuf]) -> Vec<Found> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = folders.to_vec();
    let mut entries = 0;
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            entries += 1;
            if entries > MAX_ENTRIES {
                return out;
            }
            let Ok(t) = e.file_type() else { continue };
            let p = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            if t.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    dirs.push(p);
                }
            } else if t.is_file() && is_litmus(&p) {
                if let Some(uri) = lsp::Uri::from_file_path(&p) {
                    out.push((uri, p.clone(), stamp(&p)));
                }
            }
        }
    }
    out
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

/// A check stopped by its deadline: some answer is unknown.
fn timed_out(r: &Report) -> bool {
    r.outcomes.iter().any(|o| matches!(o.coverage, Coverage::Stopped(Why::Timeout)))
        || r.robustness.iter().any(|rb| matches!(rb.robust(), Answer::Unknown(Why::Timeout)))
}

/// Analyse and check one file's text as the background does: one worker
/// thread, the per-file deadline. None if cancelled.
fn check_text(text: &str, b: &Backend, cancel: Arc<AtomicBool>) -> Option<Vec<Finding>> {
    let analysis = litmus_dsl::analyze(text);
    let mut findings = analysis_findings(&analysis);
    let Some(prog) = analysis.program.as_ref() else { return Some(findings) };
    let (models, monitor, opts, members, limit) = {
        let s = b.lock();
        let c = &s.config;
        let mut o = c.options().with_timeout(Some(c.workspace_timeout));
        o.threads = 1;
        o.cancel = Some(cancel.clone());
        (c.models(), c.monitor(), o, c.cycle_members, c.workspace_timeout)
    };
    let report = litmus_checker::check_all(prog, &models, monitor, &opts);
    if report.cancelled || cancel.load(Ordering::Relaxed) {
        return None;
    }
    findings.extend(check_findings(prog, &report, members));
    if timed_out(&report) {
        findings.push(Finding {
            span: crate::lens::header_span(text),
            severity: Severity::Information,
            code: codes::INCOMPLETE.code,
            message: format!(
                "not fully checked in the background ({} s per file; open the file to check it with the full timeout): {}",
                limit.as_secs_f64(),
                crate::lens::verdicts(Some(&report), false)
            ),
            related: Vec::new(),
            data: None,
        });
    }
    Some(findings)
}

/// Run `f` on a thread of its own at the lowest scheduling priority (nice
/// 19 on Linux, where a thread's nice value is its own): the files nobody is
/// looking at yield the CPU to the editor, the open documents' checks and
/// everything else on the machine. Not the shared blocking pool: a thread
/// cannot raise its priority back, and the pool also runs the open
/// documents' checks.
async fn background_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, ()> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("litmus-background".into()).spawn(move || {
        lowest_priority();
        let _ = tx.send(f());
    });
    if spawned.is_err() {
        return Err(());
    }
    rx.await.map_err(|_| ())
}

#[cfg(target_os = "linux")]
fn lowest_priority() {
    // SAFETY: plain syscalls on this thread's own id; a failure leaves the
    // priority as it was.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 19);
    }
}

#[cfg(not(target_os = "linux"))]
fn lowest_priority() {}

/// This thread's nice value (tests: the background check runs at 19).
#[cfg(target_os = "linux")]
fn current_nice() -> Option<i32> {
    // SAFETY: as above; getpriority returns the nice value (-1 is ambiguous
    // with an error, but a nice of -1 is not what any test looks for).
    Some(unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::syscall(libc::SYS_gettid) as libc::id_t) })
}

#[cfg(not(target_os = "linux"))]
fn current_nice() -> Option<i32> {
    None
}

/// The background worker: runs for the whole session.
pub async fn run(b: Backend) {
    let wake = b.lock().workspace.wake.clone();
    loop {
        // A fallback tick: a wake-up lost to a race costs at most this.
        let _ = tokio::time::timeout(Duration::from_millis(500), wake.notified()).await;
        loop {
            let (scan, folders) = {
                let s = b.lock();
                let busy = s.docs.values().any(|d| d.checking);
                if !s.workspace.enabled || busy {
                    break;
                }
                (s.workspace.needs_scan(), s.workspace.folders.clone())
            };
            if scan {
                let Ok(found) = tokio::task::spawn_blocking(move || walk(&folders)).await else { break };
                b.lock().workspace.merge(found);
                continue;
            }
            if !check_next(&b).await {
                break;
            }
        }
    }
}

/// Check the next stale file that is not open. False when there is none
/// (or an edit stopped it: the loop then waits for the editor to be idle).
async fn check_next(b: &Backend) -> bool {
    let (key, uri, path, cancel, enc, docs) = {
        let mut s = b.lock();
        let open: std::collections::HashSet<String> = s.docs.keys().cloned().collect();
        let Some((key, f)) = s.workspace.files.iter().find(|(k, f)| f.stale && !open.contains(*k)) else {
            return false;
        };
        let (key, uri, path) = (key.clone(), f.uri.clone(), f.path.clone());
        let cancel = Arc::new(AtomicBool::new(false));
        s.workspace.cancel = cancel.clone();
        s.workspace.running = Some(key.clone());
        (key, uri, path, cancel, s.enc, s.config.codes_url.clone())
    };
    let (b2, c2, path2) = (b.clone(), cancel.clone(), path.clone());
    let done = background_thread(move || {
        let before = stamp(&path);
        let bytes = match before {
            Some((_, len)) if len <= MAX_FILE_BYTES => std::fs::read(&path).ok(),
            _ => None,
        };
        // Unreadable or too big: reported as having nothing to say yet; a
        // change on disk queues it again.
        let text = bytes.map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
        let findings = check_text(&text, &b2, c2);
        (before, text, findings, current_nice())
    })
    .await;
    let mut s = b.lock();
    s.workspace.running = None;
    let Ok((before, text, findings, nice)) = done else { return false };
    s.workspace.nice = nice;
    let Some(findings) = findings else {
        s.workspace.cancelled += 1;
        return false;
    };
    if s.docs.contains_key(&key) {
        return true;
    }
    let rope = ropey::Rope::from_str(&text);
    let items = findings.iter().map(|f| convert::diagnostic(&uri, &rope, f, enc, docs.as_deref())).collect();
    let ws = &mut s.workspace;
    ws.last_result += 1;
    let result_id = format!("w{}", ws.last_result);
    // Its folder was removed while it was being checked: nothing to report.
    let covered = ws.covers(&path2);
    if let Some(f) = ws.files.get_mut(&key).filter(|_| covered) {
        // Changed while being read: stays stale, checked again.
        f.stale = stamp(&f.path) != before;
        f.stamp = before;
        f.result = Some(Arc::new(DiskResult { result_id, items }));
    }
    let queue_empty = !ws.files.values().any(|f| f.stale);
    let due = ws.last_refresh.is_none_or(|t| t.elapsed() >= REFRESH_EVERY);
    let refresh = s.diagnostic_refresh && (queue_empty || due);
    if refresh {
        s.workspace.last_refresh = Some(Instant::now());
    }
    drop(s);
    if refresh {
        let client = b.client.clone();
        tokio::spawn(async move {
            let _ = client.workspace_diagnostic_refresh().await;
        });
    }
    true
}
