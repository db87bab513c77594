//! A generic LSP client against the real `litmus lsp` process: what Helix,
//! Zed, eglot or Sublime send, and no client-side code. No
//! `initializationOptions` at all (so no `clientCommands`), UTF-16
//! positions, no snippets, diagnostics pushed; the client frames JSON-RPC
//! itself, answers the server's requests as such a client does
//! (`workspace/applyEdit` applied, `window/showDocument` shown, progress
//! tokens and registrations accepted), and applies edits to its own copy of
//! each document, telling the server by incremental `didChange`.
//!
//! Every feature the server announces is exercised with a meaningful answer
//! on `examples/sb.litmus`, `examples/spinlock-early-release.litmus` and the
//! herd catalogue's x86 SB; every code lens is run through
//! `workspace/executeCommand` exactly as a generic client runs it. The test
//! keeps a list of the capabilities it exercised and fails when the
//! `initialize` result announces one it does not (a new capability needs its
//! request here), so it grows with the server.
//!
//! The binary belongs to the root package: it is found (and built, a no-op
//! when fresh) as in `process.rs`; `LITMUS_BIN` overrides that.

mod harness;

use harness::{apply_edits, frame, litmus_binary, lsp_offset, lsp_position};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// How long to wait for any one message: generous, for a loaded machine.
const WAIT: Duration = Duration::from_secs(60);

/// The server's requests a generic client answers, and its answer; any
/// other request gets "method not found" (and fails the test at the end).
fn answer(method: &str, params: &Value) -> Option<Value> {
    Some(match method {
        // No client-side settings for litmus: one null per item.
        "workspace/configuration" => Value::Array(vec![Value::Null; params["items"].as_array().map_or(0, Vec::len)]),
        "workspace/applyEdit" => json!({"applied": true}),
        "window/showDocument" => json!({"success": true}),
        "window/workDoneProgress/create"
        | "client/registerCapability"
        | "client/unregisterCapability"
        | "workspace/codeLens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/semanticTokens/refresh"
        | "workspace/diagnostic/refresh" => Value::Null,
        _ => return None,
    })
}

type Stdin = Arc<Mutex<Option<ChildStdin>>>;

fn write(stdin: &Stdin, msg: &Value) {
    let mut stdin = stdin.lock().unwrap();
    let stdin = stdin.as_mut().expect("stdin open");
    stdin.write_all(&frame(&serde_json::to_vec(msg).unwrap())).unwrap();
    stdin.flush().unwrap();
}

/// The client: the process, what it said, and the documents as we hold them.
struct Client {
    child: Child,
    stdin: Stdin,
    /// Responses and notifications, in arrival order (server requests are
    /// answered by the reader and only recorded).
    incoming: mpsc::Receiver<Value>,
    next_id: i64,
    /// Every notification so far, in order.
    notes: Vec<Value>,
    /// The server's requests (method, params), each already answered.
    server_requests: Arc<Mutex<Vec<(String, Value)>>>,
    /// uri → (version, text): this client's copy of each open document.
    docs: HashMap<String, (i64, String)>,
    /// The capabilities exercised (paths as `announced` spells them).
    covered: BTreeSet<String>,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(litmus_binary())
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start litmus lsp");
        let stdin: Stdin = Arc::new(Mutex::new(child.stdin.take()));
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, incoming) = mpsc::channel();
        let server_requests: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
        let (answer_to, record) = (stdin.clone(), server_requests.clone());
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
                if let Some((name, value)) = line.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        len = Some(value.trim().parse::<usize>().expect("a length"));
                    }
                }
            }
            let mut body = vec![0; len.expect("the server frames with Content-Length")];
            stdout.read_exact(&mut body).unwrap();
            let msg: Value = serde_json::from_slice(&body).expect("the server writes JSON");
            if let (Some(id), Some(method)) = (msg.get("id"), msg["method"].as_str()) {
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                let reply = match answer(method, &params) {
                    Some(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    None => {
                        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}})
                    }
                };
                // Recorded before the answer: whoever waits on what the
                // answer causes finds the request already here.
                record.lock().unwrap().push((method.to_string(), params));
                if answer_to.lock().unwrap().is_some() {
                    write(&answer_to, &reply);
                }
            } else if tx.send(msg).is_err() {
                return;
            }
        });
        Client {
            child,
            stdin,
            incoming,
            next_id: 0,
            notes: Vec::new(),
            server_requests,
            docs: HashMap::new(),
            covered: BTreeSet::new(),
        }
    }

    fn cover(&mut self, capability: &str) {
        self.covered.insert(capability.to_string());
    }

    fn notify(&self, method: &str, params: Value) {
        write(&self.stdin, &json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message from the server; notifications are logged.
    fn next(&mut self, what: &str) -> Value {
        let m = self.incoming.recv_timeout(WAIT).unwrap_or_else(|_| panic!("timed out waiting for {what}"));
        if m.get("method").is_some() {
            self.notes.push(m.clone());
        }
        m
    }

    /// `Ok(result)` or `Err(error)`.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        write(&self.stdin, &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.next(method);
            if m.get("method").is_some() {
                continue;
            }
            assert_eq!(m["id"], id, "a response to a request we did not send: {m:#}");
            return match m.get("error") {
                Some(e) => Err(e.clone()),
                None => Ok(m["result"].clone()),
            };
        }
    }

    /// A request that must succeed.
    fn ask(&mut self, method: &str, params: Value) -> Value {
        self.request(method, params).unwrap_or_else(|e| panic!("{method} failed: {e:#}"))
    }

    /// The first notification from `from` on that satisfies `pred`; its index.
    fn wait_from(&mut self, from: usize, what: &str, pred: impl Fn(&Value) -> bool) -> usize {
        let mut i = from;
        loop {
            while i < self.notes.len() {
                if pred(&self.notes[i]) {
                    return i;
                }
                i += 1;
            }
            self.next(what);
        }
    }

    fn text(&self, uri: &str) -> String {
        self.docs[uri].1.clone()
    }

    fn open(&mut self, uri: &str, text: &str) {
        self.docs.insert(uri.to_string(), (1, text.to_string()));
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "litmus", "version": 1, "text": text}}),
        );
    }

    /// Apply non-overlapping text edits to our copy and send them as
    /// incremental changes, last first (so each range is still valid when
    /// its change applies). The new version.
    fn edit(&mut self, uri: &str, edits: &[Value]) -> i64 {
        let (version, text) = self.docs.get_mut(uri).expect("an open document");
        *text = apply_edits(text, edits);
        *version += 1;
        let mut changes: Vec<&Value> = edits.iter().collect();
        changes.sort_by_key(|e| {
            std::cmp::Reverse((e["range"]["start"]["line"].as_u64(), e["range"]["start"]["character"].as_u64()))
        });
        let changes: Vec<Value> = changes.iter().map(|e| json!({"range": e["range"], "text": e["newText"]})).collect();
        let version = *version;
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        );
        version
    }

    /// Wait for the check of `version` to end (`checked`, or `analyzed` when
    /// errors stop it): that status and the diagnostics published for that
    /// version last before it.
    fn settled(&mut self, uri: &str, version: i64) -> (Value, Vec<Value>) {
        self.settled_from(0, uri, version)
    }

    fn settled_from(&mut self, from: usize, uri: &str, version: i64) -> (Value, Vec<Value>) {
        let at = self.wait_from(from, &format!("the check of {uri} v{version}"), |m| {
            m["method"] == "litmus/status"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
                && ["checked", "analyzed", "failed"].contains(&m["params"]["state"].as_str().unwrap_or(""))
        });
        let status = self.notes[at]["params"].clone();
        assert_ne!(status["state"], "failed", "{status:#}");
        let published = self.notes[..at]
            .iter()
            .rev()
            .find(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
            .unwrap_or_else(|| panic!("no diagnostics for {uri} before {status:#}"));
        assert_eq!(published["params"]["version"], version, "{published:#}");
        (status, published["params"]["diagnostics"].as_array().unwrap().clone())
    }

    /// The server's requests of this method so far (their params).
    fn server_requests(&self, method: &str) -> Vec<Value> {
        self.server_requests.lock().unwrap().iter().filter(|(m, _)| m == method).map(|(_, p)| p.clone()).collect()
    }
}

/// What the `initialize` result announces: each top-level capability, every
/// leaf under it that is not `false`/null (`renameProvider.prepareProvider`,
/// `textDocumentSync.change`), and each element of a list
/// (`executeCommandProvider.commands[litmus.server.explain]`,
/// `completionProvider.triggerCharacters[:]`). A semantic-token legend is
/// one item: it describes the data rather than offering a request.
fn announced(caps: &Value) -> BTreeSet<String> {
    fn walk(path: String, v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Null | Value::Bool(false) => {}
            Value::Object(_) if path.ends_with(".legend") => {
                out.insert(path);
            }
            Value::Object(m) => {
                for (k, v) in m {
                    walk(format!("{path}.{k}"), v, out);
                }
            }
            Value::Array(a) => {
                for x in a {
                    out.insert(format!("{path}[{}]", x.as_str().map_or_else(|| x.to_string(), String::from)));
                }
            }
            _ => {
                out.insert(path);
            }
        }
    }
    let mut out = BTreeSet::new();
    for (k, v) in caps.as_object().expect("capabilities") {
        if matches!(v, Value::Null | Value::Bool(false)) {
            continue;
        }
        out.insert(k.clone());
        if v.is_object() || v.is_array() {
            walk(k.clone(), v, &mut out);
        }
    }
    out
}

fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The position `delta` bytes into the first `needle` of `text`.
fn pos(text: &str, needle: &str, delta: usize) -> Value {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} in {text}"));
    lsp_position(text, at + delta)
}

fn at(uri: &str, position: Value) -> Value {
    json!({"textDocument": {"uri": uri}, "position": position})
}

/// The text a range covers.
fn covered_text<'a>(text: &'a str, range: &Value) -> &'a str {
    &text[lsp_offset(text, &range["start"])..lsp_offset(text, &range["end"])]
}

/// The text from a range's start to the end of its line.
fn from_start(text: &str, range: &Value) -> String {
    text[lsp_offset(text, &range["start"])..].lines().next().unwrap_or("").to_string()
}

fn labels(items: &Value) -> Vec<String> {
    let items = items.get("items").unwrap_or(items);
    items.as_array().expect("completion items").iter().map(|i| i["label"].as_str().unwrap().to_string()).collect()
}

fn hover_text(hover: &Value) -> String {
    hover["contents"]["value"].as_str().unwrap_or_else(|| panic!("a markdown hover: {hover:#}")).to_string()
}

fn with_code<'a>(diags: &'a [Value], code: &str) -> Vec<&'a Value> {
    diags.iter().filter(|d| d["code"] == code).collect()
}

/// Semantic tokens decoded: (line, start, length, type, modifiers).
fn decode_tokens(data: &Value, legend: &Value) -> Vec<(u64, u64, u64, String, Vec<String>)> {
    let data: Vec<u64> = data["data"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(data.len() % 5, 0);
    let types = legend["tokenTypes"].as_array().unwrap();
    let mods = legend["tokenModifiers"].as_array().unwrap();
    let (mut line, mut start) = (0, 0);
    let mut out = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            line += t[0];
            start = t[1];
        } else {
            start += t[1];
        }
        let ty = types[t[3] as usize].as_str().unwrap().to_string();
        let m = (0..mods.len()).filter(|i| t[4] & (1 << i) != 0).map(|i| mods[i].as_str().unwrap().to_string());
        out.push((line, start, t[2], ty, m.collect()));
    }
    out
}

/// The token that starts at `position`.
fn token_at<'a>(
    tokens: &'a [(u64, u64, u64, String, Vec<String>)],
    position: &Value,
) -> &'a (u64, u64, u64, String, Vec<String>) {
    let (l, c) = (position["line"].as_u64().unwrap(), position["character"].as_u64().unwrap());
    tokens.iter().find(|t| t.0 == l && t.1 == c).unwrap_or_else(|| panic!("no token at {l}:{c} in {tokens:?}"))
}

fn format_options() -> Value {
    json!({"tabSize": 2, "insertSpaces": true})
}

#[test]
fn a_generic_lsp_client_gets_every_announced_feature_with_no_client_code() {
    // The workspace: the three files, and one never opened (found by
    // workspace symbols on disk); a second folder added later.
    let root = std::env::temp_dir().join(format!("litmus-generic-client-{}", std::process::id()));
    let (ws, later) = (root.join("ws"), root.join("later"));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&later).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (from, to) in [
        ("examples/sb.litmus", "sb.litmus"),
        ("examples/spinlock-early-release.litmus", "spinlock-early-release.litmus"),
        ("tests/corpus/herd-x86/catalogue__x86__tests__SB.litmus", "x86-SB.litmus"),
        ("examples/mp.litmus", "mp.litmus"),
    ] {
        std::fs::copy(repo.join(from), ws.join(to)).unwrap();
    }
    std::fs::write(later.join("zoo.litmus"), "litmus Zoo\nshared zebra = 0;\nthread P0 {\n  zebra = 1;\n}\n").unwrap();
    let (sb, spin, herd) = (
        file_uri(&ws.join("sb.litmus")),
        file_uri(&ws.join("spinlock-early-release.litmus")),
        file_uri(&ws.join("x86-SB.litmus")),
    );
    let read = |name: &str| std::fs::read_to_string(ws.join(name)).unwrap();
    let (sb_text, spin_text, herd_text) =
        (read("sb.litmus"), read("spinlock-early-release.litmus"), read("x86-SB.litmus"));
    assert!(herd_text.starts_with("X86 "), "a herd x86 test");

    let mut c = Client::start();

    // ---- initialize: generic capabilities, as Helix or eglot send them.
    let capabilities = json!({
        "general": {"positionEncodings": ["utf-16"]},
        "window": {"workDoneProgress": true, "showDocument": {"support": true}, "showMessage": {}},
        "workspace": {
            "applyEdit": true,
            "workspaceEdit": {"documentChanges": false},
            "configuration": true,
            "workspaceFolders": true,
            "didChangeConfiguration": {"dynamicRegistration": false},
            "didChangeWatchedFiles": {"dynamicRegistration": true},
            "symbol": {"dynamicRegistration": false},
            "executeCommand": {"dynamicRegistration": false},
            "inlayHint": {"refreshSupport": false},
            "semanticTokens": {"refreshSupport": false},
            "codeLens": {"refreshSupport": false}
        },
        "textDocument": {
            "synchronization": {"didSave": false, "willSave": false, "willSaveWaitUntil": false},
            "completion": {
                "completionItem": {"snippetSupport": false, "documentationFormat": ["markdown", "plaintext"]},
                "contextSupport": true
            },
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "signatureHelp": {"signatureInformation": {
                "documentationFormat": ["markdown", "plaintext"],
                "parameterInformation": {"labelOffsetSupport": true},
                "activeParameterSupport": true
            }},
            "definition": {"linkSupport": false},
            "references": {},
            "documentHighlight": {},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
            "codeAction": {
                "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "refactor", "source"]}},
                "isPreferredSupport": true
            },
            "codeLens": {},
            "formatting": {},
            "rangeFormatting": {},
            "rename": {"prepareSupport": true},
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true, "codeDescriptionSupport": true},
            "foldingRange": {},
            "semanticTokens": {
                "requests": {"full": true},
                "tokenTypes": ["keyword", "number", "string", "comment", "operator", "variable", "parameter", "function", "namespace", "label"],
                "tokenModifiers": ["declaration", "readonly"],
                "formats": ["relative"]
            },
            "inlayHint": {}
        }
    });
    let init = c.ask(
        "initialize",
        json!({
            "processId": std::process::id(),
            "clientInfo": {"name": "generic-client-test"},
            "rootUri": file_uri(&ws),
            "workspaceFolders": [{"uri": file_uri(&ws), "name": "ws"}],
            "capabilities": capabilities
        }),
    );
    assert_eq!(init["serverInfo"]["name"], "litmus", "{init:#}");
    let caps = init["capabilities"].clone();
    let announced = announced(&caps);
    assert_eq!(caps["positionEncoding"], "utf-16", "offered only UTF-16: {caps:#}");
    c.cover("positionEncoding");
    // A client that does not pull is pushed to (and offered no pull).
    assert!(caps.get("diagnosticProvider").is_none(), "{caps:#}");
    let commands: Vec<String> = caps["executeCommandProvider"]["commands"]
        .as_array()
        .expect("executeCommandProvider.commands")
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    c.notify("initialized", json!({}));

    // ---- textDocumentSync: open; pushed diagnostics and litmus/status.
    c.open(&sb, &sb_text);
    c.open(&spin, &spin_text);
    c.open(&herd, &herd_text);
    c.cover("textDocumentSync");
    c.cover("textDocumentSync.openClose");

    let (status, diags) = c.settled(&sb, 1);
    let stores = with_code(&diags, "E0400");
    let harmful: Vec<String> =
        stores.iter().filter(|d| d["severity"] == 1).map(|d| from_start(&sb_text, &d["range"])).collect();
    assert_eq!(harmful, ["x = 1;", "y = 1;"], "E0400 errors on SB's two stores: {diags:#?}");
    for d in stores.iter().filter(|d| d["severity"] == 1) {
        assert!(d["message"].as_str().unwrap().contains("may be delayed past"), "{d:#}");
        assert!(d["relatedInformation"].as_array().is_some_and(|r| r.len() >= 3), "the cycle as related info: {d:#}");
    }
    let counts = |diags: &[Value], sev: u64| diags.iter().filter(|d| d["severity"] == sev).count() as u64;
    assert_eq!(status["state"], "checked", "{status:#}");
    assert_eq!(status["headline"], "2 harmful violations", "{status:#}");
    assert_eq!(
        (status["errors"].as_u64(), status["warnings"].as_u64()),
        (Some(counts(&diags, 1)), Some(counts(&diags, 2)))
    );

    let (status, diags) = c.settled(&spin, 1);
    let cond = with_code(&diags, "E0305");
    assert_eq!(cond.len(), 1, "E0305 on the spinlock's condition: {diags:#?}");
    let cond = cond[0].clone();
    assert_eq!(cond["severity"], 1, "{cond:#}");
    assert_eq!(covered_text(&spin_text, &cond["range"]), "forall (data == 2);");
    assert!(cond["message"].as_str().unwrap().contains("the program's own bug"), "{cond:#}");
    assert_eq!(status["headline"], "condition fails under SC", "{status:#}");
    assert!(status["errors"].as_u64() >= Some(1), "{status:#}");

    let (status, herd_diags) = c.settled(&herd, 1);
    let herd_stores: Vec<String> = with_code(&herd_diags, "E0400")
        .iter()
        .filter(|d| d["severity"] == 1)
        .map(|d| covered_text(&herd_text, &d["range"]).to_string())
        .collect();
    assert_eq!(herd_stores, ["MOV [x],$1", "MOV [y],$1"], "{herd_diags:#?}");
    assert!(herd_diags.iter().all(|d| !d["message"].as_str().unwrap().contains("fence wr")), "{herd_diags:#?}");
    assert_eq!(status["headline"], "2 harmful violations", "{status:#}");
    // The status went through the check's states; progress was reported on
    // tokens the client accepted.
    let states: BTreeSet<&str> = c
        .notes
        .iter()
        .filter(|m| m["method"] == "litmus/status" && m["params"]["uri"] == sb)
        .map(|m| m["params"]["state"].as_str().unwrap())
        .collect();
    assert!(states.contains("checking") && states.contains("checked"), "{states:?}");
    assert!(!c.server_requests("window/workDoneProgress/create").is_empty());
    c.wait_from(0, "a work-done progress end", |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end"
    });

    // ---- hover
    let store = stores.iter().find(|d| d["severity"] == 1).unwrap()["range"]["start"].clone();
    let md = hover_text(&c.ask("textDocument/hover", at(&sb, store)));
    assert!(md.contains("cycle") && md.contains("insert `fence wr;`") && md.contains("Witness under"), "{md}");
    assert!(md.contains(&format!("]({sb}#L")), "statement lines link into the document: {md}");
    let md = hover_text(&c.ask("textDocument/hover", at(&sb, pos(&sb_text, "litmus SB", 0))));
    assert!(md.contains("**SC** condition never") && md.contains("**TSO** condition sometimes"), "{md}");
    let md = hover_text(&c.ask("textDocument/hover", at(&sb, pos(&sb_text, "let r0 = y", 9))));
    assert!(md.contains("shared y = 0"), "{md}");
    let md = hover_text(&c.ask("textDocument/hover", at(&spin, cond["range"]["start"].clone())));
    assert!(md.contains("program's own bug") && md.contains("Witness under SC"), "{md}");
    for d in with_code(&herd_diags, "E0400").iter().filter(|d| d["severity"] == 1) {
        let md = hover_text(&c.ask("textDocument/hover", at(&herd, d["range"]["start"].clone())));
        assert!(md.contains("`MFENCE`") && !md.contains("fence wr"), "herd x86: the fix is MFENCE: {md}");
    }
    c.cover("hoverProvider");

    // ---- completion: by context, plain text (no snippetSupport).
    let plain = |items: &Value| {
        for i in items.as_array().unwrap() {
            assert_ne!(i["insertTextFormat"], 2, "a snippet to a client without snippetSupport: {i:#}");
            let new = i["textEdit"]["newText"].as_str().unwrap_or_else(|| panic!("a textEdit: {i:#}"));
            assert!(!new.contains("${") && !new.contains("$0"), "{i:#}");
        }
    };
    let body = c.ask("textDocument/completion", at(&sb, pos(&sb_text, "let r0 = y", 0)));
    let got = labels(&body);
    for want in ["let", "fence wr", "while", "x", "y", "xchg"] {
        assert!(got.contains(&want.to_string()), "{want} in a thread body: {got:?}");
    }
    for not in ["thread", "shared", "fn", "exists"] {
        assert!(!got.contains(&not.to_string()), "no top-level {not} in a thread body: {got:?}");
    }
    plain(&body);
    let cond_items = c.ask("textDocument/completion", at(&sb, pos(&sb_text, "exists (", 8)));
    let got = labels(&cond_items);
    assert!(got.contains(&"P0:r0".to_string()) && got.contains(&"P1:r1".to_string()), "{got:?}");
    assert!(!got.iter().any(|l| ["let", "return", "thread"].contains(&l.as_str())), "{got:?}");
    plain(&cond_items);
    // The trigger character: after `P0:` only P0's registers, and accepting
    // one keeps the prefix (no `P0:P0:r0`).
    let after = pos(&sb_text, "(P0:", 4);
    let mut params = at(&sb, after.clone());
    params["context"] = json!({"triggerKind": 2, "triggerCharacter": ":"});
    let items = c.ask("textDocument/completion", params);
    assert_eq!(labels(&items), ["r0"], "{items:#}");
    assert_eq!(items[0]["textEdit"], json!({"range": {"start": after, "end": after}, "newText": "r0"}));
    c.cover("completionProvider.triggerCharacters[:]");
    // Typed `P1:r`: the item replaces the `r` (the text as typed so far).
    let typed = sb_text.find("P1:r1").unwrap() + 4;
    let items = c.ask("textDocument/completion", at(&sb, lsp_position(&sb_text, typed)));
    let r1 = items.as_array().unwrap().iter().find(|i| i["label"] == "r1").unwrap_or_else(|| panic!("{items:#}"));
    let accepted = apply_edits(&sb_text[..typed], &[r1["textEdit"].clone()]);
    assert!(accepted.ends_with("&& P1:r1"), "{accepted}");
    // herd: after a mnemonic, the column's registers and the locations.
    let items = c.ask("textDocument/completion", at(&herd, pos(&herd_text, "MOV EAX,[y]", 4)));
    let got = labels(&items);
    assert!(got.contains(&"EAX".to_string()) && got.contains(&"x".to_string()), "{got:?}");
    c.cover("completionProvider");

    // ---- signature help, on both trigger characters.
    let mut params = at(&spin, pos(&spin_text, "xchg(held", 5));
    params["context"] = json!({"triggerKind": 2, "triggerCharacter": "(", "isRetrigger": false});
    let help = c.ask("textDocument/signatureHelp", params);
    assert_eq!(help["signatures"][0]["label"], "xchg(loc, value)", "{help:#}");
    assert_eq!(help["activeParameter"], 0, "{help:#}");
    c.cover("signatureHelpProvider.triggerCharacters[(]");
    let mut params = at(&spin, pos(&spin_text, "xchg(held,", 10));
    params["context"] =
        json!({"triggerKind": 2, "triggerCharacter": ",", "isRetrigger": true, "activeSignatureHelp": help});
    let help = c.ask("textDocument/signatureHelp", params);
    assert_eq!(help["activeParameter"], 1, "{help:#}");
    c.cover("signatureHelpProvider.triggerCharacters[,]");
    c.cover("signatureHelpProvider");

    // ---- navigation on `y` (its load in P0).
    let y_use = pos(&sb_text, "let r0 = y", 9);
    let def = c.ask("textDocument/definition", at(&sb, y_use.clone()));
    let def = if def.is_array() { def[0].clone() } else { def };
    assert_eq!(def["uri"], sb.as_str());
    assert_eq!(def["range"]["start"], pos(&sb_text, "shared y", 7), "{def:#}");
    c.cover("definitionProvider");

    let mut params = at(&sb, y_use.clone());
    params["context"] = json!({"includeDeclaration": true});
    let refs = c.ask("textDocument/references", params);
    let mut lines: Vec<String> = refs.as_array().unwrap().iter().map(|l| from_start(&sb_text, &l["range"])).collect();
    lines.sort();
    assert_eq!(lines, ["y = 0;", "y = 1;", "y;"], "{refs:#}");
    c.cover("referencesProvider");

    let hl = c.ask("textDocument/documentHighlight", at(&sb, y_use.clone()));
    let mut kinds: Vec<(String, u64)> = hl
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (from_start(&sb_text, &h["range"]), h["kind"].as_u64().unwrap_or(1)))
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [("y = 0;".into(), 3), ("y = 1;".into(), 3), ("y;".into(), 2)],
        "Write where declared or stored, Read where loaded: {hl:#}"
    );
    c.cover("documentHighlightProvider");

    let prep = c.ask("textDocument/prepareRename", at(&sb, y_use.clone()));
    assert_eq!(prep["placeholder"], "y", "{prep:#}");
    assert_eq!(covered_text(&sb_text, &prep["range"]), "y");
    // A keyword is not renamed.
    let refused = c.request("textDocument/prepareRename", at(&sb, pos(&sb_text, "thread P0", 0)));
    assert!(refused.as_ref().map_or(true, Value::is_null), "{refused:?}");
    c.cover("renameProvider.prepareProvider");
    let mut params = at(&sb, y_use.clone());
    params["newName"] = json!("flag");
    let edit = c.ask("textDocument/rename", params);
    let renamed = apply_edits(&sb_text, edit["changes"][&sb].as_array().expect("edits for sb"));
    for want in ["shared flag = 0;", "let r0 = flag;", "  flag = 1;", "shared x = 0;"] {
        assert!(renamed.contains(want), "{want} after the rename:\n{renamed}");
    }
    assert!(!renamed.contains("shared y"), "{renamed}");
    c.cover("renameProvider");

    // ---- document symbols: threads as classes holding their registers.
    let syms = c.ask("textDocument/documentSymbol", json!({"textDocument": {"uri": sb}}));
    let by_name = |syms: &Value, name: &str| syms.as_array().unwrap().iter().find(|s| s["name"] == name).cloned();
    let p0 = by_name(&syms, "P0").unwrap_or_else(|| panic!("P0 in {syms:#}"));
    assert_eq!(p0["kind"], 5, "a thread is a Class: {p0:#}");
    assert_eq!(p0["children"][0]["name"], "r0", "{p0:#}");
    assert!(by_name(&syms, "x").is_some() && by_name(&syms, "P1").is_some(), "{syms:#}");
    assert!(syms.as_array().unwrap().iter().any(|s| s["name"].as_str().unwrap().starts_with("exists (")), "{syms:#}");
    let syms = c.ask("textDocument/documentSymbol", json!({"textDocument": {"uri": herd}}));
    let p1 = by_name(&syms, "P1").unwrap_or_else(|| panic!("P1 in {syms:#}"));
    assert_eq!((&p1["kind"], &p1["children"][0]["name"]), (&json!(5), &json!("EAX")), "{p1:#}");
    c.cover("documentSymbolProvider");

    // ---- workspace symbols: open documents and files on disk.
    let found = c.ask("workspace/symbol", json!({"query": "P1"}));
    let containers: BTreeSet<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == "P1")
        .map(|s| s["containerName"].as_str().unwrap())
        .collect();
    for want in ["SB", "SpinlockEarlyRelease", "MP"] {
        assert!(containers.contains(want), "{want}'s P1 (MP only on disk): {found:#}");
    }
    let mp = found.as_array().unwrap().iter().find(|s| s["containerName"] == "MP").unwrap();
    assert_eq!(mp["location"]["uri"], file_uri(&ws.join("mp.litmus")));
    c.cover("workspaceSymbolProvider");
    c.cover("workspace");
    c.cover("workspace.workspaceFolders.supported");
    // A folder added later is searched too.
    let zebra = c.ask("workspace/symbol", json!({"query": "zebra"}));
    assert_eq!(zebra, json!([]), "{zebra:#}");
    c.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": [{"uri": file_uri(&later), "name": "later"}], "removed": []}}),
    );
    let zebra = c.ask("workspace/symbol", json!({"query": "zebra"}));
    assert_eq!(zebra[0]["location"]["uri"], file_uri(&later.join("zoo.litmus")), "{zebra:#}");
    c.cover("workspace.workspaceFolders.changeNotifications");

    // ---- semantic tokens, decoded with the announced legend.
    let legend = caps["semanticTokensProvider"]["legend"].clone();
    let tokens =
        decode_tokens(&c.ask("textDocument/semanticTokens/full", json!({"textDocument": {"uri": sb}})), &legend);
    let kind = |p: Value| token_at(&tokens, &p).3.clone();
    assert_eq!(kind(pos(&sb_text, "thread P0", 0)), "keyword");
    assert_eq!(kind(pos(&sb_text, "thread P0", 7)), "namespace");
    assert_eq!(kind(pos(&sb_text, "\"store buffering\"", 0)), "string");
    assert_eq!(kind(pos(&sb_text, "// Store buffering", 0)), "comment");
    assert_eq!(kind(pos(&sb_text, "x = 0;", 4)), "number");
    let x = token_at(&tokens, &pos(&sb_text, "shared x", 7));
    assert_eq!((x.3.as_str(), x.4.clone()), ("variable", vec!["declaration".to_string()]), "{x:?}");
    let tokens =
        decode_tokens(&c.ask("textDocument/semanticTokens/full", json!({"textDocument": {"uri": herd}})), &legend);
    // A thread's register is a read-only variable, as a native register is.
    let eax = token_at(&tokens, &pos(&herd_text, "MOV EAX", 4));
    assert_eq!(eax.3, "variable", "{eax:?}");
    assert!(eax.4.contains(&"readonly".to_string()), "{eax:?}");
    assert_eq!(token_at(&tokens, &pos(&herd_text, "MOV EAX", 0)).3, "keyword");
    c.cover("semanticTokensProvider");
    c.cover("semanticTokensProvider.full");
    c.cover("semanticTokensProvider.legend");

    // ---- formatting and range formatting, with incremental changes: spoil
    // the layout of two lines, fix one by range, then the whole document.
    let x_line = pos(&sb_text, "  x = 1;", 0);
    let r0_line = pos(&sb_text, "  let r0 = y;", 0);
    let spoil = [
        json!({"range": {"start": x_line, "end": pos(&sb_text, "  x = 1;", 2)}, "newText": ""}),
        json!({"range": {"start": r0_line, "end": r0_line}, "newText": "      "}),
    ];
    let v = c.edit(&sb, &spoil);
    c.cover("textDocumentSync.change");
    let messy = c.text(&sb);
    assert!(messy.contains("\nx = 1;\n        let r0 = y;\n"), "{messy}");
    c.settled(&sb, v);
    let line = x_line["line"].as_u64().unwrap();
    let range = json!({"start": {"line": line, "character": 0}, "end": {"line": line + 1, "character": 0}});
    let edits = c.ask(
        "textDocument/rangeFormatting",
        json!({"textDocument": {"uri": sb}, "range": range, "options": format_options()}),
    );
    let v = c.edit(&sb, edits.as_array().unwrap());
    assert!(c.text(&sb).contains("\n  x = 1;\n        let r0 = y;\n"), "only the range's line: {}", c.text(&sb));
    c.cover("documentRangeFormattingProvider");
    c.settled(&sb, v);
    let edits = c.ask("textDocument/formatting", json!({"textDocument": {"uri": sb}, "options": format_options()}));
    let v = c.edit(&sb, edits.as_array().unwrap());
    assert_eq!(c.text(&sb), sb_text, "formatting restores the layout");
    let (_, diags) = c.settled(&sb, v);
    assert_eq!(counts(&diags, 1), 2, "the same two errors again: {diags:#?}");
    // The herd file is in its layout already: nothing to do.
    let edits = c.ask("textDocument/formatting", json!({"textDocument": {"uri": herd}, "options": format_options()}));
    assert_eq!(apply_edits(&herd_text, edits.as_array().unwrap()), herd_text);
    c.cover("documentFormattingProvider");

    // ---- folding ranges: the header comment, thread bodies, loops.
    let folds = c.ask("textDocument/foldingRange", json!({"textDocument": {"uri": spin}}));
    let folds = folds.as_array().unwrap();
    let starts_at = |needle: &str| pos(&spin_text, needle, 0)["line"].as_u64().unwrap();
    assert!(folds.iter().any(|f| f["startLine"] == 0 && f["kind"] == "comment"), "{folds:#?}");
    for needle in ["thread P0 {", "thread P1 {", "while (t == 1) {"] {
        assert!(folds.iter().any(|f| f["startLine"] == starts_at(needle)), "a fold at {needle}: {folds:#?}");
    }
    assert!(folds.len() >= 5, "{folds:#?}");
    c.cover("foldingRangeProvider");

    // ---- inlay hints: the values a load may read, the condition per model.
    let whole = |text: &str| json!({"start": {"line": 0, "character": 0}, "end": lsp_position(text, text.len())});
    let hints = c.ask("textDocument/inlayHint", json!({"textDocument": {"uri": sb}, "range": whole(&sb_text)}));
    let got: Vec<&str> = hints.as_array().unwrap().iter().map(|h| h["label"].as_str().unwrap()).collect();
    assert!(got.iter().any(|l| l.starts_with("r0 ∈ {")), "{got:?}");
    assert!(got.contains(&"SC never · TSO/PSO sometimes"), "{got:?}");
    let hints = c.ask("textDocument/inlayHint", json!({"textDocument": {"uri": herd}, "range": whole(&herd_text)}));
    let got: Vec<&str> = hints.as_array().unwrap().iter().map(|h| h["label"].as_str().unwrap()).collect();
    assert!(got.iter().any(|l| l.starts_with("0:EAX ∈ {")) && got.contains(&"SC never · TSO sometimes"), "{got:?}");
    c.cover("inlayHintProvider");

    // ---- code actions: a quick fix per violation, the source action.
    let (_, diags) = c.settled(&sb, v);
    let first = diags.iter().find(|d| d["code"] == "E0400" && d["severity"] == 1).unwrap().clone();
    let actions = c.ask(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": sb}, "range": first["range"], "context": {"diagnostics": [first]}}),
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "quickfix")
        .unwrap_or_else(|| panic!("a quick fix: {actions:#}"));
    assert!(fix["title"].as_str().unwrap().starts_with("Insert `fence wr` after line"), "{fix:#}");
    let fixed = apply_edits(&sb_text, fix["edit"]["changes"][&sb].as_array().unwrap());
    assert!(fixed.contains("  x = 1;\n  fence wr;\n"), "{fixed}");
    c.cover("codeActionProvider.codeActionKinds[quickfix]");
    let only = json!({"diagnostics": [], "only": ["source.litmus.insertFences"]});
    let actions = c
        .ask("textDocument/codeAction", json!({"textDocument": {"uri": sb}, "range": first["range"], "context": only}));
    let all = actions.as_array().unwrap();
    assert_eq!(all.len(), 1, "{actions:#}");
    assert_eq!(all[0]["kind"], "source.litmus.insertFences");
    assert_eq!(all[0]["title"], "Insert all minimal fences (2 fences)");
    let fixed = apply_edits(&sb_text, all[0]["edit"]["changes"][&sb].as_array().unwrap());
    assert_eq!(fixed.matches("fence wr;").count(), 2, "{fixed}");
    // A client asking for `source` actions (a parent kind) gets it too.
    let only = json!({"diagnostics": [], "only": ["source"]});
    let actions = c
        .ask("textDocument/codeAction", json!({"textDocument": {"uri": sb}, "range": first["range"], "context": only}));
    assert!(actions.as_array().unwrap().iter().any(|a| a["kind"] == "source.litmus.insertFences"), "{actions:#}");
    c.cover("codeActionProvider.codeActionKinds[source.litmus.insertFences]");
    let herd_first = with_code(&herd_diags, "E0400").into_iter().find(|d| d["severity"] == 1).unwrap().clone();
    let actions = c.ask(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": herd}, "range": herd_first["range"], "context": {"diagnostics": [herd_first]}}),
    );
    let fix = actions.as_array().unwrap().iter().find(|a| a["kind"] == "quickfix").unwrap();
    assert!(fix["title"].as_str().unwrap().starts_with("Insert `MFENCE` after line"), "{fix:#}");
    let fixed = apply_edits(&herd_text, fix["edit"]["changes"][&herd].as_array().unwrap());
    assert!(fixed.contains(" MFENCE ") && !fixed.contains("fence wr"), "{fixed}");
    c.cover("codeActionProvider");

    // ---- code lenses, each run as a generic client runs it: its command
    // through workspace/executeCommand, with its arguments as given.
    let mut ran = BTreeSet::new();
    for (uri, expect) in [
        (&sb, vec!["Show execution (TSO/PSO): past `let r0 = y`", "Show execution (TSO/PSO): past `let r1 = x`"]),
        (&spin, vec!["Show execution (SC): the condition fails"]),
        (&herd, vec!["P0: Show execution (TSO): past `MOV EAX,[y]`", "P1: Show execution (TSO): past `MOV EAX,[x]`"]),
    ] {
        let lenses = c.ask("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
        let lenses = lenses.as_array().unwrap().clone();
        let titles: Vec<&str> = lenses.iter().map(|l| l["command"]["title"].as_str().unwrap()).collect();
        assert!(titles[0].starts_with("SC "), "the header's verdicts first: {titles:?}");
        assert_eq!(titles[1..], expect, "{lenses:#?}");
        for lens in &lenses {
            let command = &lens["command"];
            let id = command["command"].as_str().unwrap();
            assert!(
                commands.iter().any(|c| c == id),
                "the lens {:?} runs `{id}`, which is not among the server's commands {commands:?}: \
                 a generic client cannot run it",
                command["title"]
            );
            let args = command.get("arguments").cloned().unwrap_or(json!([]));
            let before = c.server_requests("window/showDocument").len();
            let result = c
                .request("workspace/executeCommand", json!({"command": id, "arguments": args}))
                .unwrap_or_else(|e| panic!("running the lens {command:#} failed: {e:#}"));
            let path = PathBuf::from(result["path"].as_str().unwrap_or_else(|| panic!("a path: {result:#}")));
            assert!(path.exists(), "{} was written", path.display());
            let shown = c.server_requests("window/showDocument");
            assert_eq!(shown.len(), before + 1, "the server asked the client to show it");
            assert_eq!(shown[before]["uri"], file_uri(&path), "{shown:#?}");
            match id {
                "litmus.server.showExecution" => {
                    let svg = result["svg"].as_str().unwrap();
                    assert!(svg.starts_with("<svg"), "{result:#}");
                    assert_eq!(std::fs::read_to_string(&path).unwrap(), svg);
                    assert_eq!(shown[before]["external"], true, "an SVG opens in a browser");
                }
                "litmus.server.explain" => {
                    let md = result["markdown"].as_str().unwrap().to_string();
                    assert_eq!(std::fs::read_to_string(&path).unwrap(), md);
                    if uri == &herd {
                        assert!(md.contains("`MFENCE`") && !md.contains("fence wr"), "{md}");
                    } else if uri == &spin {
                        assert!(md.contains("program's own bug"), "{md}");
                    } else {
                        assert!(md.contains("cycle") && md.contains("insert `fence wr;`"), "{md}");
                    }
                }
                other => panic!("a lens runs {other}: what should it return? {result:#}"),
            }
            ran.insert(id.to_string());
            c.cover(&format!("executeCommandProvider.commands[{id}]"));
        }
    }
    assert!(ran.contains("litmus.server.showExecution"), "{ran:?}");
    c.cover("codeLensProvider");

    // ---- the commands no lens runs: explain with a choice, insert all
    // fences (the server's workspace/applyEdit), re-check.
    let explained =
        c.ask("workspace/executeCommand", json!({"command": "litmus.server.explain", "arguments": [herd, 2]}));
    let md = explained["markdown"].as_str().unwrap();
    assert!(md.contains("MOV [y],$1") && md.contains("`MFENCE`") && !md.contains("fence wr"), "{md}");
    c.cover("executeCommandProvider.commands[litmus.server.explain]");

    // Porting SB from SC to x86-TSO (as data): not robust, with the
    // execution that shows it and the state TSO gains, as Markdown.
    let ported = c.ask(
        "workspace/executeCommand",
        json!({"command": "litmus.server.port", "arguments": [sb, "sc", "x86tso.cat"]}),
    );
    let md = ported["markdown"].as_str().unwrap();
    assert_eq!(ported["robust"], "not robust", "{ported:#}");
    assert!(md.starts_with("# SB — from SC to x86tso"), "{md}");
    assert!(md.contains("executions: not robust against SC under x86tso (proved)"), "{md}");
    assert!(md.contains("final states under x86tso, not under SC"), "{md}");
    assert_eq!(std::fs::read_to_string(ported["path"].as_str().unwrap()).unwrap(), md);
    c.cover("executeCommandProvider.commands[litmus.server.port]");

    let before = c.server_requests("workspace/applyEdit").len();
    let result =
        c.ask("workspace/executeCommand", json!({"command": "litmus.server.insertAllFences", "arguments": [sb]}));
    assert_eq!(result, json!({"applied": true, "fences": 2}), "{result:#}");
    let applied = c.server_requests("workspace/applyEdit");
    assert_eq!(applied.len(), before + 1, "the edit came by workspace/applyEdit");
    let edits = applied[before]["edit"]["changes"][&sb].as_array().expect("edits for sb").clone();
    let v = c.edit(&sb, &edits);
    let fenced = c.text(&sb);
    assert!(fenced.contains("  x = 1;\n  fence wr;\n") && fenced.contains("  y = 1;\n  fence wr;\n"), "{fenced}");
    let (status, diags) = c.settled(&sb, v);
    assert!(with_code(&diags, "E0400").is_empty() && counts(&diags, 1) == 0, "fenced SB is robust: {diags:#?}");
    assert_eq!(status["errors"], 0, "{status:#}");
    c.cover("executeCommandProvider.commands[litmus.server.insertAllFences]");
    // Nothing left to explain: the header's lens explains the verdicts.
    let lenses = c.ask("textDocument/codeLens", json!({"textDocument": {"uri": sb}}));
    assert_eq!(lenses.as_array().unwrap().len(), 1, "only the header's: {lenses:#}");
    let header = &lenses[0]["command"];
    let result =
        c.ask("workspace/executeCommand", json!({"command": header["command"], "arguments": header["arguments"]}));
    let md = result["markdown"].as_str().unwrap();
    assert!(md.contains("**SC** condition never") && md.contains("**TSO** condition never"), "{md}");

    let mark = c.notes.len();
    let result = c.ask("workspace/executeCommand", json!({"command": "litmus.server.recheck", "arguments": [spin]}));
    assert_eq!(result["rechecking"], true, "{result:#}");
    let (status, diags) = c.settled_from(mark, &spin, 1);
    assert_eq!(status["headline"], "condition fails under SC", "checked again: {status:#}");
    assert_eq!(with_code(&diags, "E0305").len(), 1, "{diags:#?}");
    c.cover("executeCommandProvider.commands[litmus.server.recheck]");
    c.cover("executeCommandProvider");

    // ---- close: the document's diagnostics are cleared.
    let mark = c.notes.len();
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": herd}}));
    c.wait_from(mark, "the herd file's diagnostics cleared", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == herd
            && m["params"]["diagnostics"] == json!([])
    });

    // ---- every capability the server announces was exercised above.
    let missed: Vec<&String> = announced.iter().filter(|a| !c.covered.contains(*a)).collect();
    assert!(
        missed.is_empty(),
        "the server announces capabilities this test does not exercise: {missed:?}; add a request for each \
         (announced: {announced:?})"
    );
    // And the server asked nothing a generic client does not answer.
    let asked: BTreeSet<String> = c.server_requests.lock().unwrap().iter().map(|(m, _)| m.clone()).collect();
    assert!(asked.iter().all(|m| answer(m, &Value::Null).is_some()), "unanswerable server requests: {asked:?}");

    // ---- shutdown and exit.
    let out_dir = c.server_requests("window/showDocument")[0]["uri"]
        .as_str()
        .map(|u| PathBuf::from(u.strip_prefix("file://").unwrap()).parent().unwrap().to_path_buf());
    assert_eq!(c.ask("shutdown", Value::Null), Value::Null);
    c.notify("exit", Value::Null);
    drop(c.stdin.lock().unwrap().take());
    let (tx, rx) = mpsc::channel();
    let mut child = c.child;
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = rx.recv_timeout(WAIT).expect("the server exits").unwrap();
    assert_eq!(status.code(), Some(0));
    if let Some(dir) = out_dir.filter(|d| d.starts_with(std::env::temp_dir())) {
        let _ = std::fs::remove_dir_all(dir);
    }
    let _ = std::fs::remove_dir_all(&root);
}
