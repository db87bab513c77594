//! The transport in process: malformed messages are answered with JSON-RPC
//! errors and the session goes on; only an unparseable frame header (or an
//! absurd length) ends it, with the reason; nothing is buffered unboundedly.

mod harness;

use harness::{example, frame, malformed_bodies, uri, Client};
use litmus_lsp::transport::{MAX_BODY_BYTES, MAX_SKIP_BYTES};
use serde_json::{json, Value};
use std::time::Duration;

/// On `x` in `shared x = 0;` of sb.litmus.
fn hover_params(u: &str) -> Value {
    let line = example("sb.litmus").lines().position(|l| l.starts_with("shared x = 0")).unwrap();
    json!({"textDocument": {"uri": u}, "position": {"line": line, "character": 7}})
}

/// A hover on `shared x` of sb.litmus: the session still answers requests.
async fn still_serving(c: &mut Client, u: &str) {
    let h = c.request("textDocument/hover", hover_params(u)).await.expect("hover answered");
    assert!(h["contents"]["value"].as_str().unwrap().contains("shared x = 0"), "{h:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_malformed_message_gets_an_error_and_the_session_goes_on() {
    let mut c = Client::default().await;
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    c.settled(&u, 1).await;
    for (what, body, code, id) in malformed_bodies() {
        c.send_body(&body);
        let reply = c.stray_response().await;
        assert_eq!(reply["jsonrpc"], "2.0", "{what}: {reply:#}");
        assert_eq!(reply["error"]["code"], code, "{what}: {reply:#}");
        assert_eq!(reply["id"], id, "{what}: {reply:#}");
        still_serving(&mut c, &u).await;
        assert!(reply["error"]["message"].as_str().unwrap().len() > 12, "{what}: says why: {reply:#}");
    }
    // None of them (several said `shutdown`) shut the server down.
    assert!(!c.server.is_finished());
    assert_eq!(c.request("shutdown", Value::Null).await, Ok(Value::Null));
    c.notify("exit", Value::Null);
    let ended = tokio::time::timeout(Duration::from_secs(10), &mut c.server).await.expect("exit ends the session");
    ended.unwrap().expect("a clean end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_the_server_did_not_ask_for_are_dropped_quietly() {
    let mut c = Client::default().await;
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    c.settled(&u, 1).await;
    c.send(json!({"jsonrpc": "2.0", "id": 4242, "result": null}));
    c.send(json!({"jsonrpc": "2.0", "id": "nope", "error": {"code": -32601, "message": "no"}}));
    still_serving(&mut c, &u).await;
    assert!(c.no_stray_response(), "a response is never answered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_sent_a_byte_at_a_time_or_glued_to_the_next_is_read() {
    let mut c = Client::default().await;
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    c.settled(&u, 1).await;
    let hover = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 900, "method": "textDocument/hover",
                                           "params": hover_params(&u)}))
    .unwrap();
    c.send_pieces(frame(&hover).into_iter().map(|b| vec![b]).collect());
    let reply = c.stray_response().await;
    assert_eq!(reply["id"], 900);
    assert!(reply["result"]["contents"]["value"].as_str().unwrap().contains("shared x"));
    // A bad body and a good one in one write, lower-case header name, a Content-Type.
    let mut two = frame(b"{oops");
    two.extend(b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[]");
    c.send_raw(&two);
    assert_eq!(c.stray_response().await["error"]["code"], -32700);
    assert_eq!(c.stray_response().await["error"]["code"], -32600);
    still_serving(&mut c, &u).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_message_is_answered_and_skipped_without_being_stored() {
    let mut c = Client::default().await;
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    c.settled(&u, 1).await;
    let len = MAX_BODY_BYTES + 1;
    // Header and body in one piece: the harness answers the server's own
    // requests (a lens refresh may come at any time) on the same stream, and
    // an answer sent between the two would land inside the body.
    let mut frame = format!("Content-Length: {len}\r\n\r\n").into_bytes();
    frame.resize(frame.len() + len as usize, b'x');
    c.send_raw(&frame);
    drop(frame);
    // Answered as soon as the header is read, before the body arrives.
    let reply = c.stray_response().await;
    assert_eq!((reply["error"]["code"].as_i64(), &reply["id"]), (Some(-32600), &Value::Null), "{reply:#}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(&len.to_string()) && message.contains("skipped"), "{message}");
    still_serving(&mut c, &u).await;
    assert!(c.no_stray_response());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_absurd_length_is_answered_and_ends_the_connection() {
    let mut c = Client::default().await;
    c.send_raw(format!("Content-Length: {}\r\n\r\n{{}}", MAX_SKIP_BYTES + 1).as_bytes());
    let reply = c.stray_response().await;
    assert_eq!(reply["error"]["code"], -32600, "{reply:#}");
    let ended = tokio::time::timeout(Duration::from_secs(10), &mut c.server).await.expect("the session ends");
    let err = ended.unwrap().expect_err("with the reason");
    assert!(err.to_string().contains("longer than the limit"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unparseable_header_ends_the_connection_with_the_reason() {
    for (header, why) in [
        ("Content-Length: abc\r\n\r\n{}", "Content-Length `abc` is not a number"),
        ("Content-Length: 99999999999999999999999\r\n\r\n{}", "is not a number of bytes"),
        ("Content-Type: application/vscode-jsonrpc\r\n\r\n{}", "no Content-Length"),
        ("{\"jsonrpc\":\"2.0\"}\r\n\r\n", "no Content-Length"),
        ("hello\r\n\r\n", "`hello` is not a `Name: value` header line"),
    ] {
        let mut c = Client::default().await;
        c.send_raw(header.as_bytes());
        let ended = tokio::time::timeout(Duration::from_secs(10), &mut c.server).await.expect("the session ends");
        let err = ended.unwrap().expect_err("with the reason");
        assert!(err.to_string().contains(why) && err.to_string().contains("closing the connection"), "{err}");
    }
}
