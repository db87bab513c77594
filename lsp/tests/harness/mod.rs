//! An in-process LSP client: the real server over an in-memory byte pipe
//! (so framing, ordering and concurrency are the production ones), a
//! reader that answers the server's own requests, and helpers to wait for
//! the notifications a test cares about.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>;

/// What the client writes: a message it frames, or bytes as they are.
enum Outgoing {
    Json(Value),
    Raw(Vec<u8>),
    /// Written one piece at a time, nothing else in between.
    Pieces(Vec<Vec<u8>>),
}

pub struct Client {
    out: mpsc::UnboundedSender<Outgoing>,
    pending: Pending,
    next_id: i64,
    notes: mpsc::UnboundedReceiver<Value>,
    /// Responses that answer none of our pending requests (e.g. `id: null`).
    stray: mpsc::UnboundedReceiver<Value>,
    /// The server task: how `serve` ended.
    pub server: tokio::task::JoinHandle<std::io::Result<()>>,
    /// Every notification received so far, in order.
    pub log: Vec<Value>,
    /// Methods of the requests the server sent us.
    pub server_requests: Arc<Mutex<Vec<String>>>,
    /// The server's requests with their params, in order.
    pub server_request_params: Arc<Mutex<Vec<(String, Value)>>>,
}

pub const TIMEOUT: Duration = Duration::from_secs(60);

pub fn uri(name: &str) -> String {
    format!("file:///work/{name}")
}

pub fn example(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

impl Client {
    /// Start a server and initialize it with these client capabilities and options.
    pub async fn start(capabilities: Value, options: Value) -> (Client, Value) {
        Client::start_with(capabilities, options, Value::Null).await
    }

    /// `start` with these `workspaceFolders`.
    pub async fn start_with(capabilities: Value, options: Value, folders: Value) -> (Client, Value) {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_r, server_w) = tokio::io::split(server_io);
        let server = tokio::spawn(litmus_lsp::serve(server_r, server_w));
        let (r, mut w) = tokio::io::split(client_io);
        let (out, mut out_rx) = mpsc::unbounded_channel::<Outgoing>();
        tokio::spawn(async move {
            while let Some(o) = out_rx.recv().await {
                let pieces = match o {
                    Outgoing::Json(v) => vec![frame(&serde_json::to_vec(&v).unwrap())],
                    Outgoing::Raw(b) => vec![b],
                    Outgoing::Pieces(p) => p,
                };
                for bytes in pieces {
                    if w.write_all(&bytes).await.is_err() {
                        return;
                    }
                    // Let the server read this piece before the next.
                    tokio::task::yield_now().await;
                }
            }
        });
        let pending: Pending = Arc::default();
        let server_requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let server_request_params: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
        let (notes_tx, notes) = mpsc::unbounded_channel();
        let (stray_tx, stray) = mpsc::unbounded_channel();
        {
            let (pending, out, server_requests) = (pending.clone(), out.clone(), server_requests.clone());
            let server_request_params = server_request_params.clone();
            tokio::spawn(async move {
                let mut r = BufReader::new(r);
                loop {
                    let mut len = 0usize;
                    loop {
                        let mut line = String::new();
                        if r.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        let line = line.trim_end();
                        if line.is_empty() {
                            break;
                        }
                        if let Some(v) = line.strip_prefix("Content-Length: ") {
                            len = v.parse().unwrap();
                        }
                    }
                    let mut body = vec![0; len];
                    r.read_exact(&mut body).await.unwrap();
                    let msg: Value = serde_json::from_slice(&body).unwrap();
                    match (msg.get("id"), msg.get("method")) {
                        (Some(id), Some(m)) => {
                            // A request from the server: accept it.
                            let m = m.as_str().unwrap().to_string();
                            // What a client that applies edits and opens documents answers.
                            let result = match m.as_str() {
                                "workspace/applyEdit" => json!({"applied": true}),
                                "window/showDocument" => json!({"success": true}),
                                _ => Value::Null,
                            };
                            let params = msg.get("params").cloned().unwrap_or(Value::Null);
                            server_requests.lock().unwrap().push(m.clone());
                            server_request_params.lock().unwrap().push((m, params));
                            let _ = out.send(Outgoing::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})));
                        }
                        (Some(id), None) => {
                            let waiting = id.as_i64().and_then(|id| pending.lock().unwrap().remove(&id));
                            match waiting {
                                Some(tx) => {
                                    let _ = tx.send(msg);
                                }
                                None => {
                                    let _ = stray_tx.send(msg);
                                }
                            }
                        }
                        _ => {
                            let _ = notes_tx.send(msg);
                        }
                    }
                }
            });
        }
        let mut c = Client {
            out,
            pending,
            next_id: 0,
            notes,
            stray,
            server,
            log: Vec::new(),
            server_requests,
            server_request_params,
        };
        let init = c
            .request(
                "initialize",
                json!({"processId": null, "rootUri": null, "capabilities": capabilities, "initializationOptions": options, "workspaceFolders": folders}),
            )
            .await
            .expect("initialize");
        c.notify("initialized", json!({}));
        (c, init)
    }

    /// The defaults most tests use: UTF-16, progress, test hooks, no debounce.
    pub async fn default() -> Client {
        let caps = json!({"window": {"workDoneProgress": true}, "workspace": {"codeLens": {"refreshSupport": true}}});
        Client::start(caps, json!({"testHooks": true, "debounceMs": 0})).await.0
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Send any JSON value as one message (framed).
    pub fn send(&self, msg: Value) {
        self.out.send(Outgoing::Json(msg)).unwrap();
    }

    /// Send these bytes as the body of one well-framed message.
    pub fn send_body(&self, body: &[u8]) {
        self.send_raw(&frame(body));
    }

    /// Send bytes exactly as given: no framing added. (The client answers
    /// the server's own requests on the same stream: bytes meant to arrive
    /// together must go in one call, or through `send_pieces`.)
    pub fn send_raw(&self, bytes: &[u8]) {
        self.out.send(Outgoing::Raw(bytes.to_vec())).unwrap();
    }

    /// Send these pieces one write each, with nothing of ours between them.
    pub fn send_pieces(&self, pieces: Vec<Vec<u8>>) {
        self.out.send(Outgoing::Pieces(pieces)).unwrap();
    }

    /// The next response that answers none of our requests (an error reply
    /// to a malformed message, with `id` null or the id we made up).
    pub async fn stray_response(&mut self) -> Value {
        tokio::time::timeout(TIMEOUT, self.stray.recv())
            .await
            .expect("a response in time")
            .expect("the server's output is open")
    }

    /// No response that answers none of our requests has arrived.
    pub fn no_stray_response(&mut self) -> bool {
        self.stray.try_recv().is_err()
    }

    /// Send a request; `Ok(result)` or `Err(error object)`.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let msg = tokio::time::timeout(TIMEOUT, rx).await.expect("response in time").unwrap();
        match msg.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(msg["result"].clone()),
        }
    }

    pub fn open(&self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "litmus", "version": 1, "text": text}}),
        );
    }

    pub fn change(&self, uri: &str, version: i32, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        );
    }

    pub fn replace_all(&self, uri: &str, version: i32, text: &str) {
        self.change(uri, version, json!([{ "text": text }]));
    }

    /// The next notification satisfying `pred` (others are logged and skipped).
    pub async fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.notes.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out waiting for {what}; got {:#?}", self.log))
                .expect("server alive");
            self.log.push(msg.clone());
            if pred(&msg) {
                return msg;
            }
        }
    }

    /// Log every notification that has arrived so far.
    pub fn drain(&mut self) {
        while let Ok(m) = self.notes.try_recv() {
            self.log.push(m);
        }
    }

    /// Wait until the check of `version` has finished (`checked`, or
    /// `analyzed` when errors stop it) and return the diagnostics published
    /// for that version last before it.
    pub async fn settled(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let status = self
            .wait_for(&format!("status of {uri} v{version}"), |m| {
                m["method"] == "litmus/status"
                    && m["params"]["uri"] == uri
                    && m["params"]["version"] == version
                    && ["checked", "analyzed", "failed"].contains(&m["params"]["state"].as_str().unwrap())
            })
            .await;
        assert_ne!(status["params"]["state"], "failed", "{status:#}");
        self.diagnostics(uri).unwrap_or_default()
    }

    /// The diagnostics most recently published for `uri`.
    pub fn diagnostics(&self, uri: &str) -> Option<Vec<Value>> {
        self.log
            .iter()
            .rev()
            .find(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
            .map(|m| m["params"]["diagnostics"].as_array().unwrap().clone())
    }

    /// Every publishDiagnostics for `uri`, in order.
    pub fn publications(&self, uri: &str) -> Vec<Value> {
        self.log
            .iter()
            .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
            .map(|m| m["params"].clone())
            .collect()
    }

    pub async fn text(&mut self, uri: &str) -> String {
        self.request("litmus/documentText", json!({"uri": uri})).await.unwrap().as_str().unwrap().to_string()
    }
}

/// A body with its `Content-Length` header.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    f.extend_from_slice(body);
    f
}

/// Byte offsets where each line starts, breaking lines as LSP does: at
/// `\n`, `\r\n` and a lone `\r`.
fn line_starts(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut starts = vec![0];
    for i in 0..b.len() {
        if b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) != Some(&b'\n')) {
            starts.push(i + 1);
        }
    }
    starts
}

/// The UTF-16 LSP position of a byte offset.
pub fn lsp_position(text: &str, offset: usize) -> Value {
    let starts = line_starts(text);
    let line = starts.partition_point(|&s| s <= offset) - 1;
    let col = text[starts[line]..offset].encode_utf16().count();
    json!({"line": line, "character": col})
}

/// The byte offset of a UTF-16 LSP position (clamped to its line's end).
pub fn lsp_offset(text: &str, p: &Value) -> usize {
    let starts = line_starts(text);
    let (line, ch) = (p["line"].as_u64().unwrap() as usize, p["character"].as_u64().unwrap() as usize);
    if line >= starts.len() {
        return text.len();
    }
    let start = starts[line];
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= ch || c == '\n' || c == '\r' {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// Apply LSP text edits (UTF-16 positions) to a text, as an editor would.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let (a, b) = (lsp_offset(text, &e["range"]["start"]), lsp_offset(text, &e["range"]["end"]));
            (a, b, e["newText"].as_str().unwrap().to_string())
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse((s.0, s.1)));
    let mut out = text.to_string();
    for (a, b, t) in spans {
        out.replace_range(a..b, &t);
    }
    out
}

/// The edits of a WorkspaceEdit for one document.
pub fn edits_for<'a>(edit: &'a Value, uri: &str) -> &'a Vec<Value> {
    edit["changes"][uri].as_array().expect("edits for the document")
}

/// A diagnostic as a line for snapshots: `L:C-L:C severity code message`.
pub fn brief(d: &Value) -> String {
    let r = &d["range"];
    format!(
        "{}:{}-{}:{} {} {} {}",
        r["start"]["line"],
        r["start"]["character"],
        r["end"]["line"],
        r["end"]["character"],
        match d["severity"].as_i64() {
            Some(1) => "error",
            Some(2) => "warning",
            Some(3) => "info",
            _ => "hint",
        },
        d["code"].as_str().unwrap_or(""),
        d["message"].as_str().unwrap_or("").lines().next().unwrap_or("")
    )
}

/// Well-framed bodies that are not valid messages: a name, the body, the
/// error code of the reply and the id it must carry.
pub fn malformed_bodies() -> Vec<(&'static str, Vec<u8>, i64, Value)> {
    let b = |s: &str| s.as_bytes().to_vec();
    vec![
        ("not JSON", b(r#"{"jsonrpc":"2.0","method":"#), -32700, Value::Null),
        ("an empty body", b(""), -32700, Value::Null),
        ("not UTF-8", b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}".to_vec(), -32700, Value::Null),
        ("nested too deep", "[".repeat(100_000).into_bytes(), -32700, Value::Null),
        ("an array", b("[1,2,3]"), -32600, Value::Null),
        ("a string", b(r#""hello""#), -32600, Value::Null),
        ("a number", b("42"), -32600, Value::Null),
        ("null", b("null"), -32600, Value::Null),
        ("an empty object", b("{}"), -32600, Value::Null),
        ("no jsonrpc", b(r#"{"id":5,"method":"shutdown"}"#), -32600, json!(5)),
        ("jsonrpc 1.0", b(r#"{"jsonrpc":"1.0","id":"s1","method":"shutdown"}"#), -32600, json!("s1")),
        ("a method that is not a string", b(r#"{"jsonrpc":"2.0","id":6,"method":42}"#), -32600, json!(6)),
        ("no method", b(r#"{"jsonrpc":"2.0","id":7}"#), -32600, json!(7)),
        (
            "params that are not structured",
            b(r#"{"jsonrpc":"2.0","id":8,"method":"textDocument/hover","params":"x"}"#),
            -32600,
            json!(8),
        ),
        ("an id that is not an integer", b(r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#), -32600, Value::Null),
        ("an id that is an object", b(r#"{"jsonrpc":"2.0","id":{},"method":"shutdown"}"#), -32600, Value::Null),
        (
            "a response with result and error",
            b(r#"{"jsonrpc":"2.0","id":9,"result":1,"error":{"code":1,"message":"m"}}"#),
            -32600,
            Value::Null,
        ),
    ]
}

impl Client {
    /// The next `window/showMessage` warning; the same problems must have
    /// gone to `window/logMessage` (one line each) before it.
    pub async fn next_warning(&mut self) -> String {
        let shown =
            self.wait_for("a warning", |m| m["method"] == "window/showMessage" && m["params"]["type"] == 2).await;
        shown["params"]["message"].as_str().unwrap().to_string()
    }

    /// A `window/logMessage` warning containing `text` has arrived.
    pub fn logged(&self, text: &str) -> bool {
        self.log.iter().any(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["type"] == 2
                && m["params"]["message"].as_str().unwrap().contains(text)
        })
    }

    /// Every `window/showMessage` received so far.
    pub fn shown_messages(&self) -> Vec<String> {
        self.log
            .iter()
            .filter(|m| m["method"] == "window/showMessage")
            .map(|m| m["params"]["message"].as_str().unwrap().to_string())
            .collect()
    }
}

/// A violation found under `model`: its message starts with the models
/// it was found under ("TSO, PSO: `x = 1` may be delayed past …").
pub fn is_model_violation(d: &Value, model: &str) -> bool {
    d["code"] == "E0400"
        && d["message"]
            .as_str()
            .unwrap()
            .split_once(": ")
            .is_some_and(|(models, _)| models.split(", ").any(|m| m == model))
}

/// `target/<profile>/litmus` (or `LITMUS_BIN`), built by cargo if needed:
/// for the tests that run the server as a process.
pub fn litmus_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("LITMUS_BIN") {
        return p.into();
    }
    // A test runs as target/[<triple>/]<profile>/deps/<test>-<hash>.
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>/deps/<test>");
    let profile = profile_dir.file_name().unwrap().to_str().unwrap().to_string();
    let above = profile_dir.parent().unwrap();
    // The target directory holds CACHEDIR.TAG; a per-target one does not.
    let (target_dir, triple) = if above.join("CACHEDIR.TAG").exists() {
        (above.to_path_buf(), None)
    } else {
        (above.parent().unwrap().to_path_buf(), Some(above.file_name().unwrap().to_owned()))
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let mut build = Command::new(cargo);
    build.args(["build", "--quiet", "--bin", "litmus", "--manifest-path"]).arg(&manifest);
    build.arg("--target-dir").arg(&target_dir);
    build.args(["--profile", if profile == "debug" { "dev" } else { &profile }]);
    if let Some(t) = &triple {
        build.arg("--target").arg(t);
    }
    let out = build.output().expect("run cargo build");
    assert!(out.status.success(), "cargo build --bin litmus failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let bin = profile_dir.join(format!("litmus{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.exists(), "{} was not built", bin.display());
    bin
}
