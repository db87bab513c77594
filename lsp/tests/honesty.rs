//! The editor shows no verdict, fix or severity that an unfinished check
//! did not earn: a check cut short by its timeout says "unknown" in the lens
//! and offers no fence; the lens and hover carry each answer's qualifier
//! (and say what holds for every iteration); past the exhaustive budget,
//! active testing shows only the cycles it confirmed, with their members.

mod harness;

use harness::{example, uri, Client};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_that_ran_out_of_time_claims_nothing() {
    let (mut c, _) = Client::start(json!({}), json!({"timeout": 0, "debounceMs": 0})).await;
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    let diags = c.settled(&u, 1).await;
    assert!(diags.iter().all(|d| d["code"] != "E0400" && d["code"] != "E0302"), "{diags:?}");
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    let title = lens[0]["command"]["title"].as_str().unwrap().to_string();
    assert!(title.contains("TSO unknown (timed out), robustness unknown (timed out)"), "{title}");
    assert!(!title.contains("robust (") && !title.contains("never ("), "{title}");
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}},
                   "context": {"diagnostics": []}}),
        )
        .await
        .unwrap();
    assert!(actions.as_array().is_none_or(|a| a.is_empty()), "no fence is offered: {actions}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lens_and_hover_carry_each_answer_s_qualifier() {
    // The bounded engine alone: Dekker's wait loops spin, so every answer
    // holds within the loop bound.
    let (mut c, _) = Client::start(json!({}), json!({"unbounded": false})).await;
    let u = uri("dekker.litmus");
    c.open(&u, &example("dekker.litmus"));
    c.settled(&u, 1).await;
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    let title = lens[0]["command"]["title"].as_str().unwrap().to_string();
    // Said once for every model when each was cut alike.
    assert!(title.contains("each within bounds: the loop bound cut"), "{title}");
    // Line 15 (0-based 14): `flag0 = 1`, delayed past `let f = flag1`.
    let hover = c
        .request("textDocument/hover", json!({"textDocument": {"uri": u}, "position": {"line": 14, "character": 3}}))
        .await
        .unwrap();
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.contains("harmful (proved): `assert (c == 0)` can then fail"), "{md}");
    assert!(md.contains("re-checked: robust within bounds"), "{md}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lens_and_hover_say_what_holds_for_every_iteration() {
    // The default: the unbounded procedure closes Dekker's loops.
    let mut c = Client::default().await;
    let u = uri("dekker.litmus");
    c.open(&u, &example("dekker.litmus"));
    c.settled(&u, 1).await;
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    let title = lens[0]["command"]["title"].as_str().unwrap().to_string();
    assert!(title.contains("SC (proved for every iteration ("), "{title}");
    // Not robust: TSO's own outcomes come from the bounded exploration.
    let sc_part = title.split(" · ").next().unwrap();
    assert!(!sc_part.contains("within bounds"), "{title}");
    let hover = c
        .request("textDocument/hover", json!({"textDocument": {"uri": u}, "position": {"line": 14, "character": 3}}))
        .await
        .unwrap();
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.contains("re-checked: robust (proved)"), "{md}");
    // The header's hover: each model and how far its answers reach.
    let header = c
        .request("textDocument/hover", json!({"textDocument": {"uri": u}, "position": {"line": 6, "character": 2}}))
        .await
        .unwrap();
    let md = header["contents"]["value"].as_str().unwrap_or_default();
    assert!(md.contains("**SC**") && md.contains("proved for every iteration"), "{md}");
    // A robust program with loops: the lens says it is robust for every iteration.
    let u = uri("spin-fenced.litmus");
    c.open(
        &u,
        "litmus SF\nshared x = 0, y = 0;\nthread P0 {\n  while (true) {\n    x = 1;\n    fence;\n    let r = y;\n  }\n}\nthread P1 {\n  while (true) {\n    y = 1;\n    fence;\n    let s = x;\n  }\n}\n",
    );
    c.settled(&u, 1).await;
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    let title = lens[0]["command"]["title"].as_str().unwrap().to_string();
    assert!(title.contains("TSO, robust for every iteration (proved: "), "{title}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_exhaustive_budget_active_testing_shows_what_it_confirmed() {
    // An exhaustive budget of zero: exhaustive checking stops at once;
    // active testing (the rest of the timeout) confirms SB's cycle, shown as
    // found by active testing.
    let (mut c, _) = Client::start(json!({}), json!({"timeout": 20, "budget": 0, "debounceMs": 0})).await;
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    let diags = c.settled(&u, 1).await;
    let (active, members): (Vec<_>, Vec<_>) = diags
        .iter()
        .filter(|d| d["code"] == "E0401")
        .partition(|d| d["message"].as_str().unwrap().contains("found by active testing"));
    assert!(!active.is_empty(), "{diags:?}");
    // The cycle's other statements carry its code too, as hints (kept out
    // of the Problems panel) naming their role (each statement once,
    // whatever the model).
    let mut lines: Vec<u64> = members.iter().map(|d| d["range"]["start"]["line"].as_u64().unwrap()).collect();
    lines.sort();
    lines.dedup();
    assert_eq!(lines.len(), members.len(), "{members:#?}");
    assert!(lines.len() >= 3, "{members:#?}");
    for d in &members {
        let msg = d["message"].as_str().unwrap();
        assert!(msg.contains(" cycle of line ") && (msg.starts_with("reads") || msg.starts_with("writes")), "{msg}");
        assert_eq!((d["severity"].as_u64(), d["relatedInformation"].as_array().unwrap().len()), (Some(4), 4), "{d}");
    }
    for d in active {
        let msg = d["message"].as_str().unwrap();
        assert!(msg.contains("found by active testing") && msg.contains("runs"), "{msg}");
        assert_eq!(d["relatedInformation"].as_array().unwrap().len(), 3, "the cycle's other statements: {d}");
        assert!(d["data"]["replay"].as_str().unwrap().contains("0.0w"), "{d}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_check_with_an_unknown_answer_says_so_in_its_status() {
    // PSO's outcomes of the long program take minutes: at a 2 s timeout the
    // check finishes with PSO unknown — no check mark for that.
    let long = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/programs/long.litmus")).unwrap();
    let (mut c, _) = Client::start(json!({}), json!({"debounceMs": 0, "timeout": 2})).await;
    let (u, v) = (uri("long.litmus"), uri("sb.litmus"));
    c.open(&u, &long);
    c.open(&v, &example("sb.litmus"));
    let checked = |who: String| {
        move |m: &serde_json::Value| {
            m["method"] == "litmus/status" && m["params"]["uri"] == who && m["params"]["state"] == "checked"
        }
    };
    let sb = c.wait_for("sb checked", checked(v.clone())).await;
    assert!(sb["params"].get("incomplete").is_none(), "{sb:#}");
    let m = c.wait_for("long.litmus checked", checked(u.clone())).await;
    assert_eq!(m["params"]["incomplete"], true, "{m:#}");
}
