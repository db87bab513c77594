//! What happens after an edit, off the handlers: analyse (fast path, its
//! diagnostics published at once), wait a short debounce, then model-check
//! on a blocking worker with the generation's cancel flag. Each step checks
//! that its generation is still current before it stores or publishes.

use crate::documents::{Analyzed, Checked, Job};
use crate::findings::{analysis_findings, check_findings, Finding};
use crate::server::Backend;
use crate::{convert, lens};
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tower_lsp_server::ls_types as lsp;

/// `litmus/status`: where a document's check stands, for status bars and
/// for clients (and tests) that need to know when the checker has spoken.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusParams {
    pub uri: lsp::Uri,
    pub version: i32,
    /// `analyzed` (errors stop the check), `checking`, `violations`
    /// (robustness and fences known, relaxed outcomes still running),
    /// `checked`, `failed`.
    pub state: String,
    pub message: String,
}

pub enum Status {}

impl lsp::notification::Notification for Status {
    type Params = StatusParams;
    const METHOD: &'static str = "litmus/status";
}

pub async fn run(b: Backend, job: Job) {
    let rope = job.rope.clone();
    let (generation, version) = (job.generation, job.version);
    let analyzed = tokio::task::spawn_blocking(move || {
        let text = rope.to_string();
        let analysis = litmus_dsl::analyze(&text);
        Analyzed { generation, version, rope, text, analysis }
    })
    .await;
    let analyzed = match analyzed {
        Ok(a) => Arc::new(a),
        Err(e) => return b.internal_failure(&job, format!("analysis failed: {e}")).await,
    };
    let (current, debounce) = {
        let mut s = b.lock();
        let debounce = s.config.debounce_ms;
        let Some(doc) = s.docs.get_mut(&job.key) else { return };
        if doc.analyzed.as_ref().is_none_or(|a| a.generation < generation) {
            doc.analyzed = Some(analyzed.clone());
        }
        doc.ready.send_modify(|g| *g = (*g).max(generation));
        let current = doc.generation == generation;
        if current && analyzed.analysis.program.is_none() {
            doc.checking = false;
        }
        (current, debounce)
    };
    if !current {
        return;
    }
    let findings = analysis_findings(&analyzed.analysis);
    b.publish(&job, &analyzed, &findings).await;
    if analyzed.analysis.program.is_none() {
        let errors = findings.iter().filter(|f| f.severity == crate::findings::Severity::Error).count();
        b.status(&job, "analyzed", format!("{errors} error{} — not checked", if errors == 1 { "" } else { "s" })).await;
        b.refresh_lenses();
        return;
    }
    tokio::time::sleep(Duration::from_millis(debounce)).await;
    let Some((models, monitor, mut opts)) = b.current_settings(&job) else { return };
    opts.cancel = Some(job.cancel.clone());
    b.status(&job, "checking", format!("checking {}", models.iter().map(|m| m.upper()).collect::<Vec<_>>().join(", ")))
        .await;
    let progress = b.begin_progress(&job);
    // Robustness first (SC exploration with the monitors, fences): it is
    // what the diagnostics and quick fixes need, and usually fast. The
    // relaxed models' outcomes by explicit store buffers come second.
    let a = analyzed.clone();
    let (m, o) = (models.clone(), opts.clone());
    let report = tokio::task::spawn_blocking(move || {
        let prog = a.analysis.program.as_ref().expect("checked only when lowered");
        litmus_checker::check_robustness(prog, Some(&a.text), &m, monitor, &o)
    })
    .await;
    let report = match report {
        Ok(r) => r,
        Err(e) => return b.internal_failure(&job, format!("the check failed: {e}")).await,
    };
    if report.cancelled || job.cancel.load(Ordering::Relaxed) {
        return;
    }
    let pending = models.iter().any(|m| *m != litmus_checker::Model::Sc);
    let report = if pending {
        let report = Arc::new(report);
        if !b.deliver(&job, &analyzed, &findings, report.clone(), true).await {
            return;
        }
        let a = analyzed.clone();
        let report = tokio::task::spawn_blocking(move || {
            let prog = a.analysis.program.as_ref().expect("lowered");
            let mut report = Arc::unwrap_or_clone(report);
            litmus_checker::add_relaxed_outcomes(&mut report, prog, &models, &opts);
            report
        })
        .await;
        match report {
            Ok(r) => r,
            Err(e) => return b.internal_failure(&job, format!("the check failed: {e}")).await,
        }
    } else {
        report
    };
    drop(progress);
    if report.cancelled || job.cancel.load(Ordering::Relaxed) {
        return;
    }
    b.deliver(&job, &analyzed, &findings, Arc::new(report), false).await;
}

impl Backend {
    /// Store a (possibly partial) report for the job's generation and
    /// publish the analysis findings with the check's. False if the
    /// generation is no longer current.
    async fn deliver(
        &self,
        job: &Job,
        analyzed: &Analyzed,
        analysis: &[Finding],
        report: Arc<litmus_checker::Report>,
        partial: bool,
    ) -> bool {
        let prog = analyzed.analysis.program.as_ref().expect("lowered");
        let mut all = analysis.to_vec();
        let mut checked = check_findings(prog, &report);
        for f in &mut checked {
            if let Some(serde_json::Value::Object(m)) = &mut f.data {
                m.insert("generation".into(), job.generation.into());
            }
        }
        all.extend(checked);
        let summary = lens::verdicts(Some(&report), partial);
        {
            let mut s = self.lock();
            let Some(doc) = s.docs.get_mut(&job.key) else { return false };
            if doc.generation != job.generation {
                return false;
            }
            doc.checked = Some(Arc::new(Checked { generation: job.generation, report, partial }));
            doc.checking = partial;
        }
        self.publish(job, analyzed, &all).await;
        self.status(job, if partial { "violations" } else { "checked" }, summary).await;
        self.refresh_lenses();
        true
    }

    /// Publish `findings` for the job's generation, unless a newer one exists.
    pub async fn publish(&self, job: &Job, analyzed: &Analyzed, findings: &[Finding]) {
        let (lock, enc) = {
            let s = self.lock();
            let Some(doc) = s.docs.get(&job.key) else { return };
            (doc.publish.clone(), s.enc)
        };
        let _serial = lock.lock().await;
        if !self.is_current(job) {
            return;
        }
        let diags = findings.iter().map(|f| convert::diagnostic(&job.uri, &analyzed.rope, f, enc)).collect();
        self.client.publish_diagnostics(job.uri.clone(), diags, Some(job.version)).await;
    }

    pub fn is_current(&self, job: &Job) -> bool {
        self.lock().docs.get(&job.key).is_some_and(|d| d.generation == job.generation)
    }

    /// Under the publish lock, so statuses and diagnostics keep their order.
    async fn status(&self, job: &Job, state: &str, message: String) {
        let Some(lock) = self.lock().docs.get(&job.key).map(|d| d.publish.clone()) else { return };
        let _serial = lock.lock().await;
        if !self.is_current(job) {
            return;
        }
        let params = StatusParams { uri: job.uri.clone(), version: job.version, state: state.into(), message };
        self.client.send_notification::<Status>(params).await;
    }

    fn current_settings(
        &self,
        job: &Job,
    ) -> Option<(Vec<litmus_checker::Model>, litmus_checker::MonitorKind, litmus_checker::Options)> {
        let s = self.lock();
        let doc = s.docs.get(&job.key)?;
        (doc.generation == job.generation).then(|| (s.config.models(), s.config.monitor(), s.config.options()))
    }

    pub async fn internal_failure(&self, job: &Job, message: String) {
        {
            let mut s = self.lock();
            if let Some(doc) = s.docs.get_mut(&job.key) {
                if doc.generation == job.generation {
                    doc.checking = false;
                }
                // Requests waiting for this generation's analysis give up now.
                doc.ready.send_modify(|g| *g = (*g).max(job.generation));
            }
        }
        self.client.log_message(lsp::MessageType::ERROR, format!("litmus: {message}")).await;
        self.status(job, "failed", message).await;
    }

    /// `$/progress` for the check, driven by its own task so the check never
    /// waits on the client answering `window/workDoneProgress/create`.
    /// Dropping the returned guard ends it.
    fn begin_progress(&self, job: &Job) -> Option<tokio::sync::oneshot::Sender<()>> {
        if !self.lock().progress {
            return None;
        }
        let (done, finished) = tokio::sync::oneshot::channel::<()>();
        let client = self.client.clone();
        let token = lsp::ProgressToken::String(format!("litmus/check/{}/{}", job.key, job.generation));
        let title = format!("Checking {}", job.uri.as_str().rsplit('/').next().unwrap_or("document"));
        tokio::spawn(async move {
            if client.create_work_done_progress(token.clone()).await.is_err() {
                return;
            }
            let p = client.progress(token, title).with_message("exploring SC interleavings").begin().await;
            let _ = finished.await;
            p.finish().await;
        });
        Some(done)
    }

    /// Ask the client to re-request code lenses, without waiting for it.
    fn refresh_lenses(&self) {
        if self.lock().lens_refresh {
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = client.code_lens_refresh().await;
            });
        }
    }
}
