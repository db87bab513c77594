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
    let shows: Vec<_> =
        lens.as_array().unwrap().iter().filter(|l| l["command"]["command"] == "litmus.showExecution").collect();
    assert_eq!(shows.len(), 4, "SB: two violations under TSO and two under PSO: {lens:#}");
    let store = shows.iter().find(|l| l["command"]["arguments"][1] == 1).unwrap();
    assert_eq!(store["command"]["arguments"][0], u.as_str());
    assert!(store["command"]["title"].as_str().unwrap().starts_with("Show execution (TSO"));
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
