//! Inlay hints: after each load the values it may read per model, after the
//! final condition its answer per model (SB and MP; a PSO-only value);
//! positions in UTF-16 (non-ASCII before them on the line);
//! `workspace/inlayHint/refresh` once a check completes; sets from a cut
//! search marked `≥` (and what the unbounded procedure closes unmarked);
//! `inlayHints.enable` turns them off.

mod harness;

use harness::{example, uri, Client};
use serde_json::{json, Value};

fn caps() -> Value {
    json!({"workspace": {"inlayHint": {"refreshSupport": true}, "codeLens": {"refreshSupport": true}}})
}

async fn hints(c: &mut Client, u: &str) -> Vec<(u64, u64, String, String)> {
    let r = c
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 200, "character": 0}}}),
        )
        .await
        .unwrap();
    r.as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["position"]["line"].as_u64().unwrap(),
                h["position"]["character"].as_u64().unwrap(),
                h["label"].as_str().unwrap().to_string(),
                h["tooltip"]["value"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn line_of(text: &str, needle: &str) -> u64 {
    text.lines().position(|l| l.contains(needle)).unwrap() as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sb_and_mp_hints_and_refresh() {
    let (mut c, init) = Client::start(caps(), json!({"debounceMs": 0})).await;
    assert_eq!(init["capabilities"]["inlayHintProvider"], true);
    let sb = example("sb.litmus");
    let u = uri("sb.litmus");
    c.open(&u, &sb);
    c.settled(&u, 1).await;
    let h = hints(&mut c, &u).await;
    let l0 = line_of(&sb, "let r0 = y;");
    let l1 = line_of(&sb, "let r1 = x;");
    let lc = line_of(&sb, "exists");
    assert_eq!(h[0], (l0, 13, "r0 ∈ {0,1}".into(), h[0].3.clone()), "{h:#?}");
    assert_eq!((h[1].0, h[1].1, h[1].2.as_str()), (l1, 13, "r1 ∈ {0,1}"), "{h:#?}");
    assert!(h[0].3.contains("- SC: {0,1} (proved)") && h[0].3.contains("- TSO: {0,1} (proved)"), "{}", h[0].3);
    let cond = sb.lines().nth(lc as usize).unwrap();
    assert_eq!((h[2].0, h[2].1, h[2].2.as_str()), (lc, cond.len() as u64, "SC never · TSO/PSO sometimes"), "{h:#?}");
    assert!(h[2].3.contains("SC: never (proved)"), "{}", h[2].3);
    assert_eq!(h.len(), 3);

    let mp = example("mp.litmus");
    let u = uri("mp.litmus");
    c.open(&u, &mp);
    c.settled(&u, 1).await;
    let h = hints(&mut c, &u).await;
    let labels: Vec<&str> = h.iter().map(|x| x.2.as_str()).collect();
    assert_eq!(labels, ["r0 ∈ {0,1}", "r1 ∈ {0,1}", "SC/TSO never · PSO sometimes"], "{h:#?}");
    // Refreshes were asked for: the client supports them.
    assert!(c.server_requests.lock().unwrap().iter().any(|m| m == "workspace/inlayHint/refresh"));
}

/// A load that reads a value only under PSO: its hint names PSO apart; the
/// column counts UTF-16 units past `é🙂` (1 + 2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_differ_and_columns_are_utf16() {
    let (mut c, _) = Client::start(caps(), json!({"debounceMs": 0})).await;
    let src = "litmus MPIF\nshared x = 0;\nshared y = 0;\nthread P0 {\n  x = 1;\n  y = 1;\n}\nthread P1 {\n  let r0 = y;\n  if (r0 == 1) {\n    /*é🙂*/ let r1 = x;\n  }\n}\nexists (P1:r0 == 1);\n";
    let u = uri("mpif.litmus");
    c.open(&u, src);
    c.settled(&u, 1).await;
    let h = hints(&mut c, &u).await;
    let line = "    /*é🙂*/ let r1 = x;";
    let utf16 = line.encode_utf16().count() as u64;
    let r1 = h.iter().find(|x| x.2.starts_with("r1")).unwrap_or_else(|| panic!("{h:#?}"));
    assert_eq!((r1.0, r1.1, r1.2.as_str()), (10, utf16, "r1 ∈ {1} · PSO {0,1}"), "{h:#?}");
    assert_eq!(utf16, line.chars().count() as u64 + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bounded_sets_are_marked_and_the_setting_turns_hints_off() {
    // The loop bound cuts the loop (a store in it: no spin reduction): the
    // sets are at least what was seen.
    // The bounded engine (the unbounded procedure closes the loop: see below).
    let (mut c, _) = Client::start(caps(), json!({"debounceMs": 0, "loopBound": 1, "unbounded": false})).await;
    let src = "litmus SPIN\nshared x = 0;\nthread P0 {\n  x = 1;\n}\nthread P1 {\n  let r = 0;\n  while (r == 0) bound 1 {\n    r = x;\n    x = 2;\n  }\n}\n";
    let u = uri("spin.litmus");
    c.open(&u, src);
    c.settled(&u, 1).await;
    let h = hints(&mut c, &u).await;
    assert!(h.iter().any(|x| x.2.starts_with("r ∈ ≥{")), "{h:#?}");
    assert!(h.iter().all(|x| x.2.contains('≥') && x.3.contains("at least")), "{h:#?}");
    c.drain();
    let statuses = c.log.iter().filter(|m| m["method"] == "litmus/status" && m["params"]["uri"] == u).count();
    let refreshes = || c_refreshes(&c);
    let before = refreshes();
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"litmus": {"inlayHints": {"enable": false}}}}));
    // The client is asked to redraw (else it keeps the old hints on screen)…
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while refreshes() == before {
        assert!(std::time::Instant::now() < deadline, "no workspace/inlayHint/refresh after turning hints off");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    // …and nothing is checked again: no new status for the document.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let r = c
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}}}),
        )
        .await
        .unwrap();
    assert!(r.is_null() || r.as_array().is_some_and(|a| a.is_empty()), "{r}");
    c.drain();
    let after = c.log.iter().filter(|m| m["method"] == "litmus/status" && m["params"]["uri"] == u).count();
    assert_eq!(statuses, after, "toggling hints re-checked the document");
    // A setting the check depends on does check again.
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"litmus": {"loopBound": 2}}}));
    c.wait_for("a new check", |m| m["method"] == "litmus/status" && m["params"]["uri"] == u).await;
}

fn c_refreshes(c: &Client) -> usize {
    c.server_requests.lock().unwrap().iter().filter(|m| *m == "workspace/inlayHint/refresh").count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_unbounded_procedure_closes_the_loop_the_bound_cut() {
    // The program of the test above, with the default settings: the
    // stateful search visits every iteration, so its sets are complete.
    let (mut c, _) = Client::start(caps(), json!({"debounceMs": 0, "loopBound": 1})).await;
    let src = "litmus SPIN\nshared x = 0;\nthread P0 {\n  x = 1;\n}\nthread P1 {\n  let r = 0;\n  while (r == 0) bound 1 {\n    r = x;\n    x = 2;\n  }\n}\n";
    let u = uri("spin-unbounded.litmus");
    c.open(&u, src);
    c.settled(&u, 1).await;
    let h = hints(&mut c, &u).await;
    let r = h.iter().find(|x| x.2.starts_with("r ∈ ")).unwrap_or_else(|| panic!("{h:#?}"));
    assert_eq!(r.2, "r ∈ {0,1,2}", "{h:#?}");
    assert!(h.iter().all(|x| !x.2.contains('≥')), "{h:#?}");
}
