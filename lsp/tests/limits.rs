//! Input that would overflow a worker thread's stack gets a diagnostic at
//! its span, and the server goes on: the parser's nesting limit holds on
//! every thread that analyses, not only on the CLI's main thread (5,000
//! nested `!` and `if`, 200,000 nested `!`: E0010). Semantic tokens stay
//! linear in the file (40,000 names).

mod harness;

use harness::{uri, Client};
use serde_json::json;

fn nested_not(n: usize) -> String {
    format!("litmus Deep\nshared x = 0;\nthread P0 {{\n  let r = {}x;\n}}\n", "!".repeat(n))
}

fn nested_if(n: usize) -> String {
    let mut s = String::from("litmus Deep\nshared x = 0;\nthread P0 {\n  let r = x;\n");
    s.push_str(&"if (r == 0) { ".repeat(n));
    s.push_str("x = 1; ");
    s.push_str(&"} ".repeat(n));
    s.push_str("\n}\n");
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_nesting_is_a_diagnostic_on_the_server_s_threads() {
    let mut c = Client::default().await;
    for (name, text) in
        [("not.litmus", nested_not(5_000)), ("if.litmus", nested_if(5_000)), ("big.litmus", nested_not(200_000))]
    {
        let u = uri(name);
        c.open(&u, &text);
        let diags = c.settled(&u, 1).await;
        assert!(diags.iter().any(|d| d["code"] == "E0010"), "{name}: {diags:?}");
        // Still serving.
        let symbols = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": u}})).await;
        assert!(symbols.is_ok(), "{name}: {symbols:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn semantic_tokens_are_linear_in_the_file() {
    // 40,000 declarations, each used once: a lookup per identifier that
    // searched every symbol's references took seconds.
    let mut text = String::from("litmus Many\n");
    for i in 0..40_000 {
        text.push_str(&format!("shared v{i} = 0;\n"));
    }
    // Behind a branch never taken, so the check itself is one short run.
    text.push_str("thread P0 {\n  let go = 0;\n  if (go == 1) {\n");
    for i in 0..40_000 {
        text.push_str(&format!("    v{i} = 1;\n"));
    }
    text.push_str("  }\n}\n");
    let mut c = Client::default().await;
    let u = uri("many.litmus");
    c.open(&u, &text);
    let t = std::time::Instant::now();
    let toks = c.request("textDocument/semanticTokens/full", json!({"textDocument": {"uri": u}})).await.unwrap();
    let took = t.elapsed();
    assert!(toks["data"].as_array().unwrap().len() >= 5 * 160_000, "every name classified");
    eprintln!("semantic tokens: {took:?}");
    // Quadratic took minutes; an unoptimised build is ~10× slower than release.
    let limit = std::time::Duration::from_secs(if cfg!(debug_assertions) { 30 } else { 3 });
    assert!(took < limit, "{took:?}");
}
