//! What happens after an edit, off the handlers: analyse (fast path, its
//! diagnostics published at once), wait a short debounce, then model-check
//! on a blocking worker with the generation's cancel flag. Each step checks
//! that its generation is still current before it stores or publishes.

use crate::documents::{Analyzed, Checked, Job, Shown};
use crate::pull::keep_for_pull;
use crate::state::Backend;
use crate::{convert, lens};
use litmus_checker::plan::{Mode, Plan, Step};
use litmus_checker::relaxer::Settings;
use litmus_present::findings::{analysis_findings, check_findings, About, Finding, Found};
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
    /// `analyzed` (errors stop the check), `checking`, `violations` (the
    /// violations are published; harm and fences, then relaxed outcomes,
    /// still running), `checked`, `failed`.
    pub state: String,
    pub message: String,
    /// `checked` with some answer unknown (a model timed out or was cut
    /// short): the check finished, but not every verdict is earned.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub incomplete: bool,
    /// The Error and Warning diagnostics published for this version (a
    /// status bar never shows ✓ beside an error).
    #[serde(default)]
    pub errors: usize,
    #[serde(default)]
    pub warnings: usize,
    /// A few words for a status bar: the worst finding first
    /// (`condition fails under SC`, `2 harmful violations`, `clean`).
    #[serde(default)]
    pub headline: String,
}

pub enum Status {}

/// How often a running check's `$/progress` is reported (when it changed).
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

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
        Err(e) => return internal_failure(&b, &job, format!("analysis failed: {e}")).await,
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
            s.workspace.wake.notify_one();
        }
        (current, debounce)
    };
    if !current {
        return;
    }
    let findings = analysis_findings(&analyzed.analysis);
    let key =
        analyzed.analysis.program.as_ref().and_then(|p| Some(format!("{}\n{}", settings_key(&b)?, p.semantic_key())));
    // The program did not change, only comments or layout: the last check
    // answers for it, at the new positions, without checking again.
    if let Some(key) = &key {
        // The last check, or a recent one of the same program (an undo).
        let last = b.lock().docs.get(&job.key).and_then(|d| {
            let same = |c: &&Arc<Checked>| !c.partial && c.key == *key;
            d.checked.iter().filter(same).chain(d.recent.iter().rev().filter(same)).next().cloned()
        });
        if let Some(last) = last {
            deliver(&b, &job, &analyzed, &findings, last.report.clone(), "checked", "", key).await;
            return;
        }
    }
    // Until the new check's findings arrive, the last ones stay (moved
    // with the edit), also through a syntax error.
    let carried = carried(&b, &job, &analyzed.text);
    publish(&b, &job, &analyzed, &[findings.clone(), carried].concat()).await;
    if analyzed.analysis.program.is_none() {
        let c = Counts::of(&findings);
        let message = format!("{} error{} — not checked", c.errors, if c.errors == 1 { "" } else { "s" });
        status_of(&b, &job, "analyzed", message.clone(), false, Counts { headline: message, ..c }).await;
        refresh_lenses(&b);
        return;
    }
    tokio::time::sleep(Duration::from_millis(debounce)).await;
    let key = key.expect("lowered");
    let prog = analyzed.analysis.program.as_ref().expect("lowered");
    let Some((models, monitor, mut opts, budget)) = current_settings(&b, &job, prog) else { return };
    opts.budget.cancel = Some(job.cancel.clone());
    let checking = format!("checking {}", models.iter().map(|m| m.upper()).collect::<Vec<_>>().join(", "));
    let c = Counts { headline: format!("{checking}…"), ..Counts::of(&findings) };
    status_of(&b, &job, "checking", checking, false, c).await;
    let progress = begin_progress(&b, &job, &mut opts);
    // The plan every front end runs; each step is published as soon as it is
    // known: the violations (SC exploration with the monitors: usually a
    // small fraction of the work), their harm and fences, the relaxed
    // models' outcomes, then active testing where those left a model unknown.
    let relaxed = models.iter().any(|m| m.buffered());
    let plan = Arc::new(Plan::new(models, monitor, opts, Mode::Auto, budget, Settings::default()));
    let mut report = Arc::new(plan.start());
    let steps = plan.steps();
    for (i, &step) in steps.iter().enumerate() {
        let (a, p, r) = (analyzed.clone(), plan.clone(), report.clone());
        let Some(next) = phase(&b, &job, move || {
            let mut r = Arc::unwrap_or_clone(r);
            p.run_step(step, a.analysis.program.as_ref().expect("lowered"), &mut r);
            r
        })
        .await
        else {
            return;
        };
        report = Arc::new(next);
        // SC alone has nothing more to find.
        let Some(&after) = steps.get(i + 1).filter(|_| relaxed) else { break };
        let worth_showing = match step {
            Step::Violations => report.robustness.iter().any(|rb| !rb.violations.is_empty()),
            Step::Outcomes => !plan.active_models(&report).is_empty(),
            _ => true,
        };
        if worth_showing
            && !deliver(&b, &job, &analyzed, &findings, report.clone(), "violations", after.doing(), &key).await
        {
            return;
        }
    }
    drop(progress);
    deliver(&b, &job, &analyzed, &findings, report, "checked", "", &key).await;
}

/// Run the pipeline for a generation; a panic in it is reported (log,
/// `failed` status) instead of vanishing with the task.
pub fn spawn(b: &Backend, job: Job) {
    let (b, key, uri, generation, version) = (b.clone(), job.key.clone(), job.uri.clone(), job.generation, job.version);
    let task = tokio::spawn(run(b.clone(), job));
    tokio::spawn(async move {
        if let Err(e) = task.await {
            if e.is_panic() {
                let cancel = Default::default();
                let job = Job { key, uri, generation, version, rope: Default::default(), cancel };
                internal_failure(&b, &job, format!("internal error while checking: {e}")).await;
            }
        }
    });
}

/// Store a (possibly partial) report for the job's generation and
/// publish the analysis findings with the check's. False if the
/// generation is no longer current.
/// Run one phase of the check on a blocking thread. `None` if it was
/// cancelled (a newer text) or failed (reported).
async fn phase<F>(b: &Backend, job: &Job, f: F) -> Option<litmus_checker::Report>
where
    F: FnOnce() -> litmus_checker::Report + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(r) if !r.cancelled && !job.cancel.load(Ordering::Relaxed) => Some(r),
        Ok(_) => None,
        Err(e) => {
            internal_failure(b, job, format!("the check failed: {e}")).await;
            None
        }
    }
}

/// Store a report for the job's generation and publish the analysis
/// findings with the check's, with status `state` (`violations` while
/// phases remain). False if the generation is no longer current.
#[allow(clippy::too_many_arguments)]
async fn deliver(
    b: &Backend,
    job: &Job,
    analyzed: &Analyzed,
    analysis: &[Finding],
    report: Arc<litmus_checker::Report>,
    state: &str,
    next: &str,
    key: &str,
) -> bool {
    let partial = state != "checked";
    let prog = analyzed.analysis.program.as_ref().expect("lowered");
    let mut all = analysis.to_vec();
    let members = b.lock().config.cycle_members;
    let mut checked = check_findings(prog, Found::of(&report), members);
    for f in &mut checked {
        if let Some(About::Violation { generation, .. }) = &mut f.about {
            *generation = Some(job.generation);
        }
    }
    let header = lens::verdicts(Some(&report), false);
    let mut summary = if partial { lens::verdicts(Some(&report), true) } else { header.clone() };
    let shown = Shown {
        text: analyzed.text.clone(),
        findings: checked.clone(),
        header,
        lenses: crate::execution::lenses(prog, &report),
    };
    all.extend(checked);
    let unknown = lens::unknown(&report, |_| true);
    if !next.is_empty() {
        summary = format!("{summary} ({next})");
    }
    {
        let mut s = b.lock();
        let Some(doc) = s.docs.get_mut(&job.key) else { return false };
        if doc.generation != job.generation {
            return false;
        }
        let checked = Arc::new(Checked { generation: job.generation, report, partial, key: key.to_string() });
        if !partial {
            doc.recent.retain(|c| c.key != checked.key);
            doc.recent.push(checked.clone());
            if doc.recent.len() > crate::documents::RECENT {
                doc.recent.remove(0);
            }
        }
        doc.checked = Some(checked);
        doc.shown = Some(Arc::new(shown));
        doc.checking = partial;
        if !partial {
            // The background workspace check may go on (workspace.rs).
            s.workspace.wake.notify_one();
        }
    }
    publish(b, job, analyzed, &all).await;
    let mut counts = Counts::of(&all);
    if partial {
        counts.headline = format!("{} (checking…)", counts.headline);
    } else if unknown && counts.errors + counts.warnings == 0 {
        counts.headline = "some answers unknown".into();
    }
    status_of(b, job, state, summary, state == "checked" && unknown, counts).await;
    refresh_lenses(b);
    true
}

/// What a check's answers depend on besides the program: the settings
/// (`None` if the document is gone).
fn settings_key(b: &Backend) -> Option<String> {
    Some(format!("{:?}", b.lock().config))
}

/// The checker's findings last shown, moved to `text`'s positions: the
/// edit is what lies between the texts' common prefix and suffix; a finding
/// after it moves by its length, one it touches is dropped.
fn carried(b: &Backend, job: &Job, text: &str) -> Vec<Finding> {
    let Some(shown) = b.lock().docs.get(&job.key).and_then(|d| d.shown.clone()) else { return Vec::new() };
    moved(&shown.text, text, &shown.findings)
}

pub(crate) fn moved(old: &str, new: &str, findings: &[Finding]) -> Vec<Finding> {
    let map = span_map(old, new);
    findings
        .iter()
        .filter_map(|f| {
            let span = map(f.span)?;
            let related = f.related.iter().filter_map(|(s, m)| Some((map(*s)?, m.clone()))).collect();
            Some(Finding { span, related, ..f.clone() })
        })
        .collect()
}

/// Where a span of `old` is in `new`, the edit between them being what lies
/// between their common prefix and suffix: before it, in place; after it,
/// moved by its length; touching it, gone.
pub(crate) fn span_map<'t>(old: &'t str, new: &'t str) -> impl Fn(litmus_ir::Span) -> Option<litmus_ir::Span> + 't {
    let mut pre = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(pre) || !new.is_char_boundary(pre) {
        pre -= 1;
    }
    let room = old.len().min(new.len()) - pre;
    let mut suf = old.bytes().rev().zip(new.bytes().rev()).take(room).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(old.len() - suf) || !new.is_char_boundary(new.len() - suf) {
        suf -= 1;
    }
    let (old_end, new_end) = (old.len() - suf, new.len() - suf);
    move |s: litmus_ir::Span| -> Option<litmus_ir::Span> {
        if s.end <= pre {
            Some(s)
        } else if s.start >= old_end {
            Some(litmus_ir::Span::new(s.start - old_end + new_end, s.end - old_end + new_end))
        } else {
            None
        }
    }
}

/// Publish `findings` for the job's generation, unless a newer one exists.
pub async fn publish(b: &Backend, job: &Job, analyzed: &Analyzed, findings: &[Finding]) {
    let (lock, enc, docs, pull) = {
        let s = b.lock();
        let Some(doc) = s.docs.get(&job.key) else { return };
        (doc.publish.clone(), s.enc, s.config.codes_url.clone(), s.pull)
    };
    let _serial = lock.lock().await;
    if !is_current(b, job) {
        return;
    }
    let diags =
        findings.iter().map(|f| convert::diagnostic(&job.uri, &analyzed.rope, f, enc, docs.as_deref())).collect();
    // A pull client gets them by pull only (pull.rs), never twice.
    if pull {
        return keep_for_pull(b, job, diags);
    }
    b.client.publish_diagnostics(job.uri.clone(), diags, Some(job.version)).await;
}

pub fn is_current(b: &Backend, job: &Job) -> bool {
    b.lock().docs.get(&job.key).is_some_and(|d| d.generation == job.generation)
}

/// What a status bar shows of the published findings.
#[derive(Default)]
struct Counts {
    errors: usize,
    warnings: usize,
    headline: String,
}

impl Counts {
    fn of(findings: &[Finding]) -> Counts {
        use litmus_present::findings::Severity;
        let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
        let warnings = findings.iter().filter(|f| f.severity == Severity::Warning).count();
        Counts { errors, warnings, headline: crate::lens::headline(findings) }
    }
}

/// Under the publish lock, so statuses and diagnostics keep their order.
async fn status(b: &Backend, job: &Job, state: &str, message: String) {
    let headline = message.clone();
    status_of(b, job, state, message, false, Counts { headline, ..Counts::default() }).await
}

async fn status_of(b: &Backend, job: &Job, state: &str, message: String, incomplete: bool, c: Counts) {
    let Some(lock) = b.lock().docs.get(&job.key).map(|d| d.publish.clone()) else { return };
    let _serial = lock.lock().await;
    if !is_current(b, job) {
        return;
    }
    let params = StatusParams {
        uri: job.uri.clone(),
        version: job.version,
        state: state.into(),
        message,
        incomplete,
        errors: c.errors,
        warnings: c.warnings,
        headline: c.headline,
    };
    b.client.send_notification::<Status>(params).await;
}

fn current_settings(
    b: &Backend,
    job: &Job,
    prog: &litmus_ir::Program,
) -> Option<(Vec<litmus_checker::Model>, litmus_checker::MonitorKind, litmus_checker::Options, Option<Duration>)> {
    let s = b.lock();
    let doc = s.docs.get(&job.key)?;
    let c = &s.config;
    (doc.generation == job.generation).then(|| (c.models_of(prog), c.monitor(), c.options(), c.budget))
}

pub async fn internal_failure(b: &Backend, job: &Job, message: String) {
    {
        let mut s = b.lock();
        if let Some(doc) = s.docs.get_mut(&job.key) {
            if doc.generation == job.generation {
                doc.checking = false;
            }
            // Requests waiting for this generation's analysis give up now.
            doc.ready.send_modify(|g| *g = (*g).max(job.generation));
            doc.pulled_generation.send_modify(|g| *g = (*g).max(job.generation));
        }
        s.workspace.wake.notify_one();
    }
    b.client.log_message(lsp::MessageType::ERROR, format!("litmus: {message}")).await;
    status(b, job, "failed", message).await;
}

/// `$/progress` for the check, driven by its own task so the check never
/// waits on the client answering `window/workDoneProgress/create`: the
/// checker's own [`Progress`](litmus_checker::Progress) (added to `opts`)
/// read every [`PROGRESS_EVERY`] and reported in the words the CLI's bar
/// uses ("TSO: outcomes · 12,345 executions"), without a percentage
/// (nobody knows the total). Dropping the returned guard ends it.
fn begin_progress(
    b: &Backend,
    job: &Job,
    opts: &mut litmus_checker::Options,
) -> Option<tokio::sync::oneshot::Sender<()>> {
    if !b.lock().progress {
        return None;
    }
    let shown = litmus_checker::Progress::new();
    opts.budget.progress = Some(shown.clone());
    let (done, mut finished) = tokio::sync::oneshot::channel::<()>();
    let client = b.client.clone();
    let token = lsp::ProgressToken::String(format!("litmus/check/{}/{}", job.key, job.generation));
    let title = format!("Checking {}", job.uri.as_str().rsplit('/').next().unwrap_or("document"));
    tokio::spawn(async move {
        if client.create_work_done_progress(token.clone()).await.is_err() {
            return;
        }
        let mut said = shown.snapshot().message();
        let p = client.progress(token, title).with_message(said.clone()).begin().await;
        loop {
            tokio::select! {
                _ = &mut finished => break,
                _ = tokio::time::sleep(PROGRESS_EVERY) => {
                    let now = shown.snapshot().message();
                    if now != said {
                        p.report(now.clone()).await;
                        said = now;
                    }
                }
            }
        }
        p.finish().await;
    });
    Some(done)
}

/// Ask the client to re-request code lenses and inlay hints (the
/// check's answers), without waiting for it.
fn refresh_lenses(b: &Backend) {
    let (lens, inlay) = {
        let s = b.lock();
        (s.lens_refresh, s.inlay_refresh && s.config.inlay_hints)
    };
    if lens {
        let client = b.client.clone();
        tokio::spawn(async move {
            let _ = client.code_lens_refresh().await;
        });
    }
    if inlay {
        let client = b.client.clone();
        tokio::spawn(async move {
            let _ = client.inlay_hint_refresh().await;
        });
    }
}
