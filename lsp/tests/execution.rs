//! `litmus/executionGraph` and the "Show execution" lenses: the SVG of a
//! violation's witness over the protocol, the lens on each violation's
//! delayed store (UTF-16 positions after non-ASCII text), bad numbers
//! answered with an error.

mod harness;

use harness::{example, lsp_offset, uri, Client};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graph_of_each_violation_and_a_lens_on_its_store() {
    let mut c = Client::default().await;
    let u = uri("sb.litmus");
    // Non-ASCII before the store on its line: lens columns are UTF-16.
    let text = example("sb.litmus").replacen("  x = 1;", "  /* é🙂 */ x = 1;", 1);
    c.open(&u, &text);
    c.settled(&u, 1).await;
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    // A client that says nothing gets the server's command, which any client runs.
    let shows: Vec<_> =
        lens.as_array().unwrap().iter().filter(|l| l["command"]["command"] == "litmus.server.showExecution").collect();
    // Two cycles, each found under TSO and PSO: one lens each, naming both
    // models and what the store is delayed past (the issue: four lenses
    // "Show execution (TSO) | Show execution (TSO) | …" that said nothing apart).
    assert_eq!(shows.len(), 2, "SB: two cycles, each under TSO and PSO: {lens:#}");
    let titles: Vec<&str> = shows.iter().map(|l| l["command"]["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Show execution (TSO/PSO): past `let r0 = y`", "Show execution (TSO/PSO): past `let r1 = x`"]);
    let store = shows.iter().find(|l| l["command"]["arguments"][1] == 1).unwrap();
    assert_eq!(store["command"]["arguments"][0], u.as_str());
    let at = lsp_offset(&text, &store["range"]["start"]);
    assert!(text[at..].starts_with("x = 1;"), "lens at {:?}", &text[at..at + 10]);

    for n in 1..=4 {
        let t = std::time::Instant::now();
        let g = c.request("litmus/executionGraph", json!({"textDocument": {"uri": u}, "violation": n})).await.unwrap();
        let took = t.elapsed();
        let svg = g["svg"].as_str().unwrap();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert_eq!(svg.matches("<g class=\"event ").count(), 4, "{svg}");
        assert_eq!(svg.matches("data-cycle=\"").count(), 4);
        assert!(svg.contains("let r0 = y") && svg.contains(">x = 1</tspan></text>"), "{svg}");
        assert_eq!(g["violations"], 4);
        eprintln!("executionGraph {n}: {took:?}");
    }
    let bad = c.request("litmus/executionGraph", json!({"textDocument": {"uri": u}, "violation": 9})).await;
    assert!(bad.unwrap_err()["message"].as_str().unwrap().contains("there is no violation 9 (4 found)"));
    let bad = c.request("litmus/executionGraph", json!({"textDocument": {"uri": u}, "violation": 0})).await;
    assert!(bad.is_err());
}

/// `whole: true` draws the witness run to the end: Dekker's picture then
/// has the critical section, and says which assertion this execution fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_execution_on_request() {
    let mut c = Client::default().await;
    let u = uri("dekker.litmus");
    c.open(&u, &example("dekker.litmus"));
    c.settled(&u, 1).await;
    let req = |whole: bool| json!({"textDocument": {"uri": u}, "violation": 1, "whole": whole});
    let cut = c.request("litmus/executionGraph", req(false)).await.unwrap();
    let whole = c.request("litmus/executionGraph", req(true)).await.unwrap();
    assert_eq!((cut["whole"].as_bool(), whole["whole"].as_bool()), (Some(false), Some(true)));
    let events = |g: &serde_json::Value| g["svg"].as_str().unwrap().matches("<g class=\"event ").count();
    assert!(events(&whole) > events(&cut), "{} events whole, {} up to the cycle", events(&whole), events(&cut));
    let svg = whole["svg"].as_str().unwrap();
    assert!(svg.contains("fetch_add(in_cs, 1)") && svg.contains("This execution fails `assert (c == 0)`"), "{svg}");
    assert!(!cut["svg"].as_str().unwrap().contains("fetch_add"));
}

/// A client that shows executions itself (VS Code's and Neovim's webview)
/// says so and gets its own command in the lenses.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_its_own_command_gets_it_in_the_lenses() {
    let opts = json!({"debounceMs": 0, "clientCommands": ["litmus.showExecution"]});
    let (mut c, _) = Client::start(json!({}), opts).await;
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    c.settled(&u, 1).await;
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    let ids: Vec<&str> =
        lens.as_array().unwrap()[1..].iter().map(|l| l["command"]["command"].as_str().unwrap()).collect();
    assert_eq!(ids, ["litmus.showExecution", "litmus.showExecution"]);
    // `clientCommands` is no setting: nothing is reported about it.
    assert!(c.shown_messages().is_empty(), "{:?}", c.shown_messages());
}

/// The spinlock: a `forall` SC breaks is an error on the condition
/// (E0305) with the SC interleaving as its witness, a lens that draws it,
/// a hover that tells it, a status that leads with it; and every lens and
/// command works through `workspace/executeCommand` with no client code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_condition_sc_breaks_is_the_programs_own_bug() {
    let caps = json!({"window": {"showDocument": {"support": true}}, "workspace": {"applyEdit": true}});
    let (mut c, _) = Client::start(caps, json!({"debounceMs": 0})).await;
    let u = uri("spinlock-early-release.litmus");
    let text = example("spinlock-early-release.litmus");
    c.open(&u, &text);
    let diags = c.settled(&u, 1).await;
    let cond = diags.iter().find(|d| d["code"] == "E0305").unwrap_or_else(|| panic!("no E0305 in {diags:#?}"));
    assert_eq!(cond["severity"], 1, "an error");
    let at = lsp_offset(&text, &cond["range"]["start"]);
    assert!(text[at..].starts_with("forall (data == 2);"), "{:?}", &text[at..at + 12]);
    let message = cond["message"].as_str().unwrap();
    assert!(message.contains("fails under SC") && message.contains("data = 1"), "{message}");
    assert_eq!(cond["data"]["execution"], "condition");
    // The interleaving, statement by statement, as related information.
    assert!(cond["relatedInformation"].as_array().unwrap().len() >= 6, "{cond:#}");

    let status = c.log.iter().rev().find(|n| n["method"] == "litmus/status").unwrap().clone();
    assert_eq!(status["params"]["headline"], "condition fails under SC", "{status:#}");
    assert!(status["params"]["errors"].as_u64().unwrap() >= 1);

    let hover = c
        .request("textDocument/hover", json!({"textDocument": {"uri": u}, "position": cond["range"]["start"]}))
        .await
        .unwrap();
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(md.contains("program's own bug") && md.contains("Witness under SC"), "{md}");
    // Lines are links into the document.
    assert!(md.contains(&format!("]({u}#L")), "{md}");

    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    let on_cond = lens
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["command"]["arguments"][1] == "condition")
        .unwrap_or_else(|| panic!("no lens on the condition: {lens:#}"));
    assert_eq!(on_cond["command"]["title"], "Show execution (SC): the condition fails");
    let cmd = &on_cond["command"];
    let shown = c
        .request("workspace/executeCommand", json!({"command": cmd["command"], "arguments": cmd["arguments"]}))
        .await
        .unwrap();
    let svg = shown["svg"].as_str().unwrap();
    assert!(svg.contains("data-model=\"SC\"") && svg.contains("data = d + 1"), "{svg}");
    let path = shown["path"].as_str().unwrap();
    assert_eq!(std::fs::read_to_string(path).unwrap(), svg);
    let opened = c.server_request_params.lock().unwrap().clone();
    let (_, show) = opened.iter().find(|(m, _)| m == "window/showDocument").expect("the SVG shown");
    assert!(show["uri"].as_str().unwrap().ends_with(".svg") && show["external"] == true, "{show}");

    // Explain, with no choice: the program's own bug first.
    let explained = c
        .request("workspace/executeCommand", json!({"command": "litmus.server.explain", "arguments": [u]}))
        .await
        .unwrap();
    let md = explained["markdown"].as_str().unwrap();
    assert!(md.starts_with("# SpinlockEarlyRelease") && md.contains("program's own bug"), "{md}");
    // Nothing to fence in a robust program.
    let fenced = c
        .request("workspace/executeCommand", json!({"command": "litmus.server.insertAllFences", "arguments": [u]}))
        .await
        .unwrap();
    assert_eq!(fenced["applied"], false, "{fenced}");
    let bad =
        c.request("workspace/executeCommand", json!({"command": "litmus.server.nothing", "arguments": [u]})).await;
    assert!(bad.unwrap_err()["message"].as_str().unwrap().contains("no command"));
}

/// Insert all fences as a server command: the edit comes by
/// `workspace/applyEdit` and is the source action's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_all_fences_is_a_server_command() {
    let caps = json!({"workspace": {"applyEdit": true}});
    let (mut c, init) = Client::start(caps, json!({"debounceMs": 0})).await;
    let commands = init["capabilities"]["executeCommandProvider"]["commands"].as_array().unwrap();
    for id in [
        "litmus.server.showExecution",
        "litmus.server.explain",
        "litmus.server.insertAllFences",
        "litmus.server.recheck",
        "litmus.server.port",
    ] {
        assert!(commands.iter().any(|c| c == id), "{id} not announced: {commands:?}");
    }
    let u = uri("sb.litmus");
    let text = example("sb.litmus");
    c.open(&u, &text);
    c.settled(&u, 1).await;
    let r = c
        .request("workspace/executeCommand", json!({"command": "litmus.server.insertAllFences", "arguments": [u]}))
        .await
        .unwrap();
    assert_eq!((r["applied"].as_bool(), r["fences"].as_u64()), (Some(true), Some(2)), "{r}");
    let sent = c.server_request_params.lock().unwrap().clone();
    let (_, edit) = sent.iter().find(|(m, _)| m == "workspace/applyEdit").expect("an applyEdit");
    let fenced = harness::apply_edits(&text, harness::edits_for(&edit["edit"], &u));
    assert_eq!(fenced.matches("fence wr;").count(), 2, "{fenced}");
    // Re-check answers at once and checks again.
    let r = c
        .request("workspace/executeCommand", json!({"command": "litmus.server.recheck", "arguments": [u]}))
        .await
        .unwrap();
    assert_eq!(r["rechecking"], true);
    c.wait_for("a new check", |n| n["method"] == "litmus/status" && n["params"]["state"] == "checking").await;
}

/// A condition a model given as data never lets hold: a lens on it, and
/// its picture is the candidate reaching it with the axiom's cycle drawn in
/// the model's own relations.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forbidden_condition_is_drawn_with_its_axiom() {
    let mut c = Client::default().await;
    let u = uri("mp-c11.litmus");
    c.open(&u, &example("mp-c11.litmus"));
    c.settled(&u, 1).await;
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    let titles: Vec<&str> = lens.as_array().unwrap().iter().filter_map(|l| l["command"]["title"].as_str()).collect();
    assert!(titles.contains(&"Show why it is forbidden (rc11)"), "{titles:?}");
    let g = c
        .request("litmus/executionGraph", json!({"textDocument": {"uri": u}, "violation": "condition"}))
        .await
        .unwrap();
    let svg = g["svg"].as_str().unwrap();
    assert!(svg.contains("forbidden by `coherence` (irreflexive hb; eco?)"), "{svg}");
    // Its two steps: `data = 1` —hb→ `r1 = data` —fre→ back.
    assert_eq!(svg.matches("data-cycle=\"").count(), 2, "{svg}");
    assert!(svg.contains(">hb<") && svg.contains(">fre<"), "{svg}");
}
