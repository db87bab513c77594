//! LSP 3.17 pull diagnostics: a client that pulls gets an open document's
//! diagnostics by `textDocument/diagnostic` (and no push), `unchanged` on a
//! repeat, new ones after an edit, a refresh request after each check;
//! `workspace/diagnostic` reports the files of a workspace folder on disk,
//! checked in the background (a violation, a parse error, a non-ASCII name
//! and text with UTF-16 columns, `target/` skipped, a file changed or
//! deleted on disk, an open file from its live state, a slow file reported
//! unknown with `W0304`, folders added and removed later), and an edit
//! cancels the background check in flight. A client without pull support
//! (or without refresh support) is pushed to and offered no
//! `diagnosticProvider`.

mod harness;

use harness::{example, lsp_position, uri, Client};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn pull_caps() -> Value {
    json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false, "relatedDocumentSupport": false}},
        "workspace": {"diagnostics": {"refreshSupport": true}, "didChangeWatchedFiles": {"dynamicRegistration": true}},
    })
}

/// A fresh folder under the system's temporary directory.
fn temp_folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("litmus-pull-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn folder_uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

async fn start_in(folder: &Path, options: Value) -> (Client, Value) {
    let (c, init) = Client::start_with(pull_caps(), options, json!([{"uri": folder_uri(folder), "name": "ws"}])).await;
    (c, init)
}

async fn pull(c: &mut Client, u: &str, previous: Option<&str>) -> Value {
    c.request("textDocument/diagnostic", json!({"textDocument": {"uri": u}, "previousResultId": previous}))
        .await
        .unwrap()
}

async fn pull_workspace(c: &mut Client, previous: &[(String, String)]) -> Vec<Value> {
    let prev: Vec<Value> = previous.iter().map(|(u, v)| json!({"uri": u, "value": v})).collect();
    let r = c.request("workspace/diagnostic", json!({"previousResultIds": prev})).await.unwrap();
    r["items"].as_array().unwrap().clone()
}

fn codes(items: &Value) -> Vec<String> {
    items.as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap_or("").to_string()).collect()
}

/// Pull the workspace until `done` holds for the reports by URI.
async fn workspace_until(
    c: &mut Client,
    what: &str,
    done: impl Fn(&std::collections::HashMap<String, Value>) -> bool,
) -> std::collections::HashMap<String, Value> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let items = pull_workspace(c, &[]).await;
        let by_uri = items.into_iter().map(|i| (i["uri"].as_str().unwrap().to_string(), i)).collect();
        if done(&by_uri) {
            return by_uri;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}: {by_uri:#?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn state(c: &mut Client) -> Value {
    c.request("litmus/workspaceState", json!({})).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_document_by_pull_unchanged_on_repeat_new_after_an_edit() {
    let folder = temp_folder("doc");
    let (mut c, init) = start_in(&folder, json!({"debounceMs": 0, "testHooks": true})).await;
    let provider = &init["capabilities"]["diagnosticProvider"];
    assert_eq!(provider["workspaceDiagnostics"], true, "{init:#}");
    assert_eq!(provider["interFileDependencies"], false);
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    c.settled(&u, 1).await;
    let r = pull(&mut c, &u, None).await;
    assert_eq!(r["kind"], "full", "{r:#}");
    let found = codes(&r["items"]);
    assert_eq!(
        found.iter().filter(|c| *c == "E0400").count(),
        2 + 3,
        "two stores (TSO and PSO in one), three members: {r:#}"
    );
    let id = r["resultId"].as_str().unwrap().to_string();
    // Nothing changed: `unchanged`, same id.
    let again = pull(&mut c, &u, Some(&id)).await;
    assert_eq!(again, json!({"kind": "unchanged", "resultId": id}));
    // The check delivered by phases and asked the client to pull again; it never pushed.
    c.drain();
    assert!(c.publications(&u).is_empty(), "pushed to a pull client: {:#?}", c.publications(&u));
    assert!(c.server_requests.lock().unwrap().iter().any(|m| m == "workspace/diagnostic/refresh"));
    // An edit: a syntax error, pulled at once (the pull waits for the analysis).
    c.replace_all(&u, 2, "litmus broken\nthread P0 { x = ; }\n");
    let r = pull(&mut c, &u, Some(&id)).await;
    assert_eq!(r["kind"], "full", "{r:#}");
    assert_ne!(r["resultId"].as_str().unwrap(), id);
    assert!(codes(&r["items"]).iter().all(|c| c.starts_with("E0")) && !r["items"].as_array().unwrap().is_empty());
    assert!(!codes(&r["items"]).contains(&"E0400".to_string()), "{r:#}");
    // Closing it: no empty push either (the client clears what it pulled).
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
    let _ = state(&mut c).await;
    c.drain();
    assert!(c.publications(&u).is_empty());
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workspace_files_on_disk_are_checked_in_the_background() {
    let folder = temp_folder("ws");
    let sb = example("sb.litmus");
    std::fs::write(folder.join("sb.litmus"), &sb).unwrap();
    std::fs::write(folder.join("broken.litmus"), "litmus broken\nthread P0 { x = ; }\n").unwrap();
    let accented = sb.replace("  x = 1;", "  /* é🙂 */ x = 1;");
    std::fs::write(folder.join("é-sb.litmus"), &accented).unwrap();
    std::fs::create_dir_all(folder.join("target")).unwrap();
    std::fs::write(folder.join("target/skipped.litmus"), &sb).unwrap();
    std::fs::write(folder.join("notes.txt"), "not a test").unwrap();
    let (mut c, _) = start_in(&folder, json!({"testHooks": true})).await;
    let base = folder_uri(&folder);
    let (u_sb, u_broken, u_accent) =
        (format!("{base}/sb.litmus"), format!("{base}/broken.litmus"), format!("{base}/%C3%A9-sb.litmus"));
    let all = workspace_until(&mut c, "three files", |m| m.len() == 3).await;
    assert!(all.keys().all(|k| [&u_sb, &u_broken, &u_accent].contains(&k)), "{:#?}", all.keys());
    assert!(all.values().all(|r| r["kind"] == "full" && r["version"].is_null()));
    assert_eq!(codes(&all[&u_sb]["items"]).iter().filter(|c| *c == "E0400").count(), 5, "{:#}", all[&u_sb]);
    let broken = codes(&all[&u_broken]["items"]);
    assert!(!broken.is_empty() && broken.iter().all(|c| c.starts_with("E00")), "{broken:?}");
    // The store after `/* é🙂 */`: UTF-16 columns (é one unit, 🙂 two).
    let store = all[&u_accent]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["severity"] == 1 && d["message"].as_str().unwrap().starts_with("TSO, PSO: `x = 1`"))
        .unwrap_or_else(|| panic!("{:#}", all[&u_accent]))
        .clone();
    let at = accented.find("x = 1;").unwrap();
    assert_eq!(store["range"]["start"], lsp_position(&accented, at));
    assert_eq!(store["range"]["end"], lsp_position(&accented, at + "x = 1;".len()));
    assert_eq!(store["range"]["start"]["character"], 2 + 3 + 1 + 2 + 4, "{store:#}");
    // Asked again with the ids the client holds: all `unchanged`.
    let held: Vec<(String, String)> =
        all.iter().map(|(u, r)| (u.clone(), r["resultId"].as_str().unwrap().to_string())).collect();
    let again = pull_workspace(&mut c, &held).await;
    assert_eq!(again.len(), 3);
    assert!(again.iter().all(|r| r["kind"] == "unchanged"), "{again:#?}");
    // The client watches `.litmus` files for us; a change on disk is re-checked.
    assert!(c.server_requests.lock().unwrap().iter().any(|m| m == "client/registerCapability"));
    std::fs::write(folder.join("broken.litmus"), &sb).unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": u_broken, "type": 2}]}));
    let fixed = workspace_until(&mut c, "broken.litmus re-checked", |m| {
        m.get(&u_broken).is_some_and(|r| codes(&r["items"]).contains(&"E0400".to_string()))
    })
    .await;
    assert_ne!(fixed[&u_broken]["resultId"], all[&u_broken]["resultId"]);
    // Deleted: reported once more, empty, so the client clears it.
    std::fs::remove_file(folder.join("sb.litmus")).unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": u_sb, "type": 3}]}));
    workspace_until(&mut c, "sb.litmus cleared", |m| m[&u_sb]["items"].as_array().is_some_and(|i| i.is_empty())).await;
    // An open document is reported from its live state, with its version.
    c.open(&u_accent, &sb);
    // (its text here is plain SB: the store moves back to column 2).
    let live = workspace_until(&mut c, "the open document, checked", |m| {
        m.get(&u_accent)
            .is_some_and(|r| r["version"] == 1 && codes(&r["items"]).iter().filter(|c| *c == "E0400").count() == 5)
    })
    .await;
    // (Harm may not be judged yet: found by its message, not its severity.)
    let moved = live[&u_accent]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"].as_str().unwrap().starts_with("TSO, PSO: `x = 1`"))
        .unwrap_or_else(|| panic!("{:#}", live[&u_accent]))
        .clone();
    assert_eq!(moved["range"]["start"]["character"], 2, "{moved:#}");
    assert!(c.server_requests.lock().unwrap().iter().any(|m| m == "workspace/diagnostic/refresh"));
    // The background checks ran at the lowest scheduling priority.
    if cfg!(target_os = "linux") {
        assert_eq!(state(&mut c).await["nice"], 19);
    }
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_cancels_the_background_check_and_a_slow_file_is_reported_unknown() {
    let folder = temp_folder("slow");
    let slow =
        std::fs::read_to_string(format!("{}/../tests/programs/slow.litmus", env!("CARGO_MANIFEST_DIR"))).unwrap();
    std::fs::write(folder.join("slow.litmus"), &slow).unwrap();
    // The bounded engine (the unbounded procedure decides slow.litmus at once).
    let options =
        json!({"testHooks": true, "debounceMs": 0, "workspaceDiagnostics": {"timeout": 3}, "unbounded": false});
    let (mut c, _) = start_in(&folder, options).await;
    let u_slow = format!("{}/slow.litmus", folder_uri(&folder));
    let deadline = Instant::now() + Duration::from_secs(30);
    while state(&mut c).await["running"] != u_slow.as_str() {
        assert!(Instant::now() < deadline, "the background check never started: {}", state(&mut c).await);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // An edit to an open document stops it at once.
    let u = uri("sb.litmus");
    let t = Instant::now();
    c.open(&u, &example("sb.litmus"));
    c.replace_all(&u, 2, &example("sb.litmus"));
    loop {
        let s = state(&mut c).await;
        if s["cancelled"].as_u64().unwrap() >= 1 {
            assert!(s["running"].is_null() || s["running"] == u_slow.as_str(), "{s}");
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(2), "not cancelled: {s}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Then, the editor idle again, it is checked to its deadline and reported unknown.
    c.settled(&u, 2).await;
    let r = workspace_until(&mut c, "slow.litmus reported", |m| m.contains_key(&u_slow)).await;
    let items = r[&u_slow]["items"].as_array().unwrap();
    let incomplete = items.iter().find(|d| d["code"] == "W0304").unwrap_or_else(|| panic!("{items:#?}"));
    assert_eq!(incomplete["severity"], 3);
    let message = incomplete["message"].as_str().unwrap();
    assert!(
        message.contains("not fully checked in the background (3 s per file") && message.contains("unknown"),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_pull_support_is_pushed_to() {
    // No pull at all; and pull declared without refresh support (it could
    // not be told to re-pull as the check's phases deliver).
    let no_refresh = json!({"textDocument": {"diagnostic": {}}});
    for caps in [json!({}), no_refresh] {
        let (mut c, init) = Client::start(caps.clone(), json!({"debounceMs": 0})).await;
        assert!(init["capabilities"].get("diagnosticProvider").is_none(), "{caps}: {init:#}");
        let u = uri("sb.litmus");
        c.open(&u, &example("sb.litmus"));
        let diags = c.settled(&u, 1).await;
        assert_eq!(diags.iter().filter(|d| d["code"] == "E0400").count(), 5, "{caps}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_folders_added_and_removed_later_are_followed() {
    let (a, b) = (temp_folder("fold-a"), temp_folder("fold-b"));
    let sb = example("sb.litmus");
    std::fs::write(a.join("a.litmus"), &sb).unwrap();
    // Enough that most are still queued when their folder goes.
    let dekker = example("dekker.litmus");
    for i in 0..30 {
        std::fs::write(a.join(format!("d{i:02}.litmus")), &dekker).unwrap();
    }
    std::fs::write(b.join("b.litmus"), &sb).unwrap();
    let (mut c, init) = start_in(&a, json!({"testHooks": true})).await;
    let ws = &init["capabilities"]["workspace"]["workspaceFolders"];
    assert_eq!((ws["supported"].as_bool(), ws["changeNotifications"].as_bool()), (Some(true), Some(true)), "{init:#}");
    let (ua, ub) = (format!("{}/a.litmus", folder_uri(&a)), format!("{}/b.litmus", folder_uri(&b)));
    workspace_until(&mut c, "a.litmus", |m| m.get(&ua).is_some_and(|r| !codes(&r["items"]).is_empty())).await;
    let queued = state(&mut c).await["queued"].as_u64().unwrap();
    let event = json!({"event": {"added": [{"uri": folder_uri(&b), "name": "b"}], "removed": [{"uri": folder_uri(&a), "name": "ws"}]}});
    c.notify("workspace/didChangeWorkspaceFolders", event);
    let all = workspace_until(&mut c, "b.litmus checked, a.litmus cleared", |m| {
        m.get(&ub).is_some_and(|r| codes(&r["items"]).contains(&"E0400".to_string()))
            && m.get(&ua).is_some_and(|r| r["items"].as_array().is_some_and(|i| i.is_empty()))
    })
    .await;
    // Nothing of the removed folder is checked any more, nor reported with findings.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let st = state(&mut c).await;
        if st["queued"] == 0 && st["running"].is_null() {
            break;
        }
        assert!(Instant::now() < deadline, "still checking: {st}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let after = pull_workspace(&mut c, &[]).await;
    let from_a: Vec<&Value> =
        after.iter().filter(|r| r["uri"].as_str().unwrap().starts_with(&folder_uri(&a))).collect();
    assert!(from_a.iter().all(|r| r["items"].as_array().unwrap().is_empty()), "{from_a:#?}");
    assert!(queued >= 10, "the test needs files still queued when the folder goes: {queued}");
    assert!(all.len() < 32, "{}", all.len());
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}
