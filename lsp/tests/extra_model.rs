//! The checker's test-only fifth model (XTSO), declared in
//! `checker/src/model.rs` alone, is a setting the server accepts and
//! checks: no "setting not applied" warning, and its violations named.
//! Built only with `--features extra-model` (scripts/extra-model.sh).
#![cfg(feature = "extra-model")]

mod harness;

use harness::{example, uri, Client};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_takes_it_as_a_setting() {
    let (mut c, _) = Client::start(json!({}), json!({"models": ["xtso"], "debounceMs": 0})).await;
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    let diags = c.settled(&u, 1).await;
    assert!(c.shown_messages().is_empty(), "{:?}", c.shown_messages());
    assert!(diags.iter().any(|d| d["message"].as_str().unwrap().contains("XTSO")), "{diags:#?}");
}
