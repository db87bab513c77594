//! The background check of the workspace's files that are not open (see
//! [`crate::workspace`] for what is kept): one file at a time, at the
//! lowest priority, only while no open document is being checked.

use crate::convert;
use crate::state::Backend;
use crate::workspace::{stamp, walk, DiskResult, MAX_FILE_BYTES, REFRESH_EVERY};
use litmus_checker::{Report, Why};
use litmus_present::codes;
use litmus_present::findings::{analysis_findings, check_findings, Finding, Found, Severity};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A check stopped by its deadline: some answer is unknown.
fn timed_out(r: &Report) -> bool {
    crate::lens::unknown(r, |w| *w == Why::Timeout)
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
        o.budget.cancel = Some(cancel.clone());
        (c.models_of(prog), c.monitor(), o, c.cycle_members, c.workspace_timeout)
    };
    let report = litmus_checker::check_all(prog, &models, monitor, &opts);
    if report.cancelled || cancel.load(Ordering::Relaxed) {
        return None;
    }
    findings.extend(check_findings(prog, Found::of(&report), members));
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
            help: None,
            about: None,
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
    let spawned = std::thread::Builder::new()
        .name("litmus-background".into())
        .stack_size(litmus_checker::options::CHECK_STACK)
        .spawn(move || {
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
