//! `workspace/executeCommand`: what the lenses and editor commands do, run
//! by the server so that every LSP client gets them with no code of its
//! own. A picture or an explanation is written to a file the client is
//! asked to open (`window/showDocument`, where it can); fences are applied
//! by `workspace/applyEdit`. VS Code and Neovim keep their own webview for
//! executions (`initializationOptions.clientCommands`).

use crate::execution::{Which, SERVER_COMMAND};
use crate::state::{request_failed, Backend};
use crate::{actions, convert, hover};
use serde_json::{json, Value};
use std::str::FromStr;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types as lsp;

pub const SHOW_EXECUTION: &str = SERVER_COMMAND;
pub const EXPLAIN: &str = "litmus.server.explain";
pub const INSERT_ALL_FENCES: &str = "litmus.server.insertAllFences";
pub const RECHECK: &str = "litmus.server.recheck";
pub const PORT: &str = "litmus.server.port";
/// Every command, as `executeCommandProvider` announces them.
pub const ALL: [&str; 5] = [SHOW_EXECUTION, EXPLAIN, INSERT_ALL_FENCES, RECHECK, PORT];

pub async fn execute(b: &Backend, params: lsp::ExecuteCommandParams) -> Result<Option<Value>> {
    let args = &params.arguments;
    let uri = args.first().and_then(|v| v.as_str()).and_then(|s| lsp::Uri::from_str(s).ok()).ok_or_else(|| {
        Error::invalid_params(format!("{}: the first argument is the document's URI", params.command))
    })?;
    let which = |i: usize| args.get(i).filter(|v| !v.is_null()).map(Which::from_json).transpose();
    match params.command.as_str() {
        SHOW_EXECUTION => {
            let which = which(1).map_err(Error::invalid_params)?.unwrap_or(Which::Violation(1));
            let whole = args.get(2).and_then(|v| v.as_bool()).unwrap_or(false);
            show_execution(b, uri, which, whole).await
        }
        EXPLAIN => {
            let which = which(1).map_err(Error::invalid_params)?;
            explain(b, uri, which).await
        }
        INSERT_ALL_FENCES => insert_all_fences(b, uri).await,
        RECHECK => {
            crate::notifications::recheck(b, &uri);
            Ok(Some(json!({ "rechecking": true })))
        }
        PORT => {
            let model = |i: usize| {
                let name = args.get(i).and_then(|v| v.as_str()).ok_or_else(|| {
                    Error::invalid_params(format!(
                        "{PORT}: arguments are the URI, the model it was written for, the model it moves to"
                    ))
                })?;
                litmus_checker::Model::parse_in(name, &[]).map_err(|e| Error::invalid_params(format!("litmus: {e}")))
            };
            port(b, uri, model(1)?, model(2)?).await
        }
        other => Err(Error::invalid_params(format!("litmus: no command `{other}` (the server's: {})", ALL.join(", ")))),
    }
}

async fn show_execution(b: &Backend, uri: lsp::Uri, which: Which, whole: bool) -> Result<Option<Value>> {
    let opts = b.lock().config.options();
    let g = b
        .on_snapshot(SHOW_EXECUTION, &uri, move |snap| {
            let (Some(p), Some(r)) = (snap.analyzed.analysis.program.as_ref(), snap.report()) else {
                return Err(request_failed("litmus: not checked yet (or the file has errors)"));
            };
            crate::execution::graph(p, r, which, whole, &opts)
                .map_err(|e| Error::invalid_params(format!("litmus: {e}")))
        })
        .await??;
    let path = write_out(&uri, &format!("{}.svg", slug(which)), &g.svg)?;
    // A browser draws the SVG: `external` (an editor would show its XML).
    open(b, &path, true).await;
    Ok(Some(json!({ "svg": g.svg, "title": g.title, "model": g.model, "path": path.display().to_string() })))
}

async fn explain(b: &Backend, uri: lsp::Uri, which: Option<Which>) -> Result<Option<Value>> {
    let markdown = b
        .on_snapshot(EXPLAIN, &uri, move |snap| {
            let (Some(p), Some(r)) = (snap.analyzed.analysis.program.as_ref(), snap.report()) else {
                return Err(request_failed("litmus: not checked yet (or the file has errors)"));
            };
            // Without a choice: the program's own bug first, then the first
            // violation; with none, the verdicts (the header's lens runs this).
            let which = which
                .or_else(|| crate::execution::condition_witness(p, r).map(|_| Which::Condition))
                .or_else(|| r.outcomes.iter().flat_map(|o| &o.failures).next().map(|f| Which::Failure(f.stmt)))
                .or_else(|| r.robustness.iter().any(|rb| !rb.violations.is_empty()).then_some(Which::Violation(1)));
            let all: Vec<_> = r.robustness.iter().flat_map(|rb| &rb.violations).collect();
            let at = match which {
                Some(Which::Violation(n)) => {
                    n.checked_sub(1).and_then(|i| all.get(i)).map(|v| p.stmts[v.store_stmt as usize].span)
                }
                Some(Which::Condition) => p.condition.as_ref().map(|c| c.span),
                Some(Which::Failure(s)) => p.stmts.get(s as usize).map(|s| s.span),
                None => Some(crate::lens::header_span(&snap.analyzed.text)),
            };
            let at = at.ok_or_else(|| {
                Error::invalid_params(format!(
                    "litmus: no such finding ({})",
                    which.map_or(Value::Null, Which::to_json)
                ))
            })?;
            // Plain line numbers: a Markdown preview refuses `file:` links.
            let lines = hover::Lines(None);
            let (md, _) = hover::hover(&snap.analyzed.text, &snap.analyzed.analysis, Some(r), at.start, lines)
                .ok_or_else(|| request_failed("litmus: that finding is gone (the text changed)"))?;
            Ok(format!("# {}\n\n{md}\n", p.name))
        })
        .await??;
    let path = write_out(&uri, "explain.md", &markdown)?;
    open(b, &path, false).await;
    Ok(Some(json!({ "markdown": markdown, "path": path.display().to_string() })))
}

/// What moving the document's program from `from` to `to` changes
/// ([`litmus_checker::port`]), as Markdown the client is asked to open. The
/// two explorations and the comparison run off the server's event loop,
/// under the check's bounds and time limit.
async fn port(
    b: &Backend,
    uri: lsp::Uri,
    from: litmus_checker::Model,
    to: litmus_checker::Model,
) -> Result<Option<Value>> {
    let prog = b
        .on_snapshot(PORT, &uri, |snap| {
            snap.analyzed.analysis.program.clone().ok_or_else(|| request_failed("litmus: the file has errors"))
        })
        .await??;
    let opts = b.lock().config.options();
    let (markdown, word, how) = tokio::task::spawn_blocking(move || {
        crate::state::guarded(PORT, || {
            let p = litmus_checker::port::port(&prog, from, to, &opts);
            let (word, how) = litmus_present::porting::verdict(&p);
            (litmus_present::porting::markdown(&prog, &p), word, how)
        })
    })
    .await
    .map_err(|e| request_failed(format!("litmus: {PORT} failed: {e}")))??;
    let path =
        write_out(&uri, &format!("port-{}-{}.md", from.as_str(), to.as_str()).replace(['/', '\\'], "_"), &markdown)?;
    open(b, &path, false).await;
    Ok(Some(json!({ "markdown": markdown, "path": path.display().to_string(), "robust": word, "certainty": how })))
}

async fn insert_all_fences(b: &Backend, uri: lsp::Uri) -> Result<Option<Value>> {
    let edit = b
        .on_snapshot(INSERT_ALL_FENCES, &uri, |snap| {
            let (Some(p), Some(r)) = (snap.analyzed.analysis.program.as_ref(), snap.report()) else {
                return Err(request_failed("litmus: not checked yet (or the file has errors)"));
            };
            let Some(a) = actions::all_fences(&snap.analyzed.text, p, r) else {
                return Ok(None);
            };
            // A repair (barriers, stronger accesses) counts its changes.
            let repair = r.joint.fences.is_empty();
            let fences = if repair { a.changes } else { r.joint.fences.len() };
            let edits = convert::text_edits(&snap.analyzed.rope, &a.edits, snap.enc);
            Ok(Some((convert::workspace_edit(&snap.uri, edits), fences, repair)))
        })
        .await??;
    let Some((edit, fences, repair)) = edit else {
        return Ok(Some(json!({ "applied": false, "fences": 0, "why": "no confirmed fences to insert" })));
    };
    // `repair` only where it is one: the fence answer keeps its shape.
    let answer = |mut v: Value| {
        if repair {
            v["repair"] = json!(true);
        }
        Ok(Some(v))
    };
    if !b.lock().apply_edit {
        return answer(json!({ "applied": false, "fences": fences, "why": "the client applies no edits" }));
    }
    let applied = b.client.apply_edit(edit).await.map(|r| r.applied).unwrap_or(false);
    answer(json!({ "applied": applied, "fences": fences }))
}

/// A file name for a picture of `which`.
fn slug(which: Which) -> String {
    match which {
        Which::Violation(n) => format!("violation-{n}"),
        Which::Condition => "condition".into(),
        Which::Failure(s) => format!("failure-{s}"),
    }
}

/// `name` in this server's directory for `uri` under the system's temp dir.
fn write_out(uri: &lsp::Uri, name: &str, text: &str) -> Result<std::path::PathBuf> {
    let doc = uri.as_str().rsplit('/').next().unwrap_or("document");
    let doc: String = doc.chars().map(|c| if c.is_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect();
    let dir = std::env::temp_dir().join(format!("litmus-lsp-{}", std::process::id()));
    let path = dir.join(format!("{doc}.{name}"));
    std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(&path, text))
        .map_err(|e| request_failed(format!("litmus: cannot write {}: {e}", path.display())))?;
    Ok(path)
}

/// Ask the client to open `path`, if it can (no answer is awaited for long:
/// a client that never answers must not hold the command).
async fn open(b: &Backend, path: &std::path::Path, external: bool) {
    if !b.lock().show_document {
        return;
    }
    let Some(uri) = crate::config::file_uri(path).and_then(|s| lsp::Uri::from_str(&s).ok()) else { return };
    let params = lsp::ShowDocumentParams { uri, external: Some(external), take_focus: Some(true), selection: None };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), b.client.show_document(params)).await;
}
