//! The real `litmus lsp` process over its stdin/stdout: every kind of
//! malformed message is answered and the session ends with `shutdown`/`exit`
//! and exit code 0; an unparseable header ends it with the reason on stderr.
//!
//! The binary belongs to the root package, so `CARGO_BIN_EXE_litmus` is not
//! set for this crate's tests. The binary is built (a no-op when fresh) into
//! the target directory and profile this test was built with, so the test
//! never runs a stale binary; `LITMUS_BIN` overrides that.

mod harness;

use harness::{frame, litmus_binary, malformed_bodies};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: mpsc::Receiver<Value>,
}

impl Process {
    fn start() -> Process {
        let mut child = Command::new(litmus_binary())
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start litmus lsp");
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || loop {
            let mut len = None;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length: ") {
                    len = Some(v.parse::<usize>().unwrap());
                }
            }
            let mut body = vec![0; len.expect("the server frames with Content-Length")];
            stdout.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).expect("the server writes JSON")).is_err() {
                return;
            }
        });
        Process { child, stdin, messages }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, msg: Value) {
        self.send_raw(&frame(&serde_json::to_vec(&msg).unwrap()));
    }

    /// The next response (server notifications and requests are skipped).
    fn response(&self) -> Value {
        loop {
            let m = self.messages.recv_timeout(WAIT).expect("a response in time");
            if m.get("method").is_none() {
                return m;
            }
        }
    }

    /// Close stdin, wait for the end: exit code and stderr.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(self.child.wait_with_output());
        });
        let out = rx.recv_timeout(WAIT).expect("the process ends").unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn initialize(p: &mut Process) {
    p.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}));
    let init = p.response();
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "litmus", "{init:#}");
    p.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
}

#[test]
fn the_real_process_answers_every_malformed_message_and_exits_cleanly() {
    let mut p = Process::start();
    initialize(&mut p);
    let mut next_id = 100;
    for (what, body, code, id) in malformed_bodies() {
        p.send_raw(&frame(&body));
        let reply = p.response();
        assert_eq!((&reply["error"]["code"], &reply["id"]), (&json!(code), &id), "{what}: {reply:#}");
        // And a well-formed request right after is still answered.
        next_id += 1;
        p.send(json!({"jsonrpc": "2.0", "id": next_id, "method": "workspace/symbol", "params": {"query": ""}}));
        let reply = p.response();
        assert_eq!(reply["id"], next_id, "after {what}: {reply:#}");
    }
    p.send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    let reply = p.response();
    assert_eq!((&reply["id"], &reply["result"]), (&json!(2), &Value::Null), "{reply:#}");
    p.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    let (code, stderr) = p.finish();
    assert_eq!(code, Some(0), "stderr:\n{stderr}");
    // Each bad message left a line on stderr.
    assert_eq!(stderr.lines().filter(|l| l.starts_with("litmus lsp: answered -32")).count(), malformed_bodies().len());
}

#[test]
fn the_real_process_ends_on_an_unparseable_header_and_says_why() {
    let mut p = Process::start();
    initialize(&mut p);
    p.send_raw(b"Content-Length: twelve\r\n\r\n{}");
    let (code, stderr) = p.finish();
    assert_eq!(code, Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.contains("litmus lsp: Content-Length `twelve` is not a number of bytes; closing the connection"),
        "{stderr}"
    );
}
