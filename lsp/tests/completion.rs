//! Completion and signature help over the protocol, as an editor uses them:
//! each accepted item's textEdit is applied to the document and the text
//! checked. The final condition (`P1:r`, the `:` trigger), a thread body
//! (statements, no items), snippets (and plain text for a client without
//! them), non-ASCII text before the cursor (UTF-16 columns), herd cells,
//! and the active parameter of `cas(` and of a function of the file.

mod harness;

use harness::{apply_edits, lsp_position, uri, Client};
use serde_json::{json, Value};

const MP: &str = "litmus MP\nshared x = 0;\nshared y = 0;\n\nthread P0 {\n  x = 1;\n  y = 1;\n}\n\nthread P1 {\n  let r0 = y;\n  let r1 = x;\n}\n\n";

async fn client(snippets: bool) -> Client {
    let caps = json!({"textDocument": {"completion": {"completionItem": {"snippetSupport": snippets}}}});
    // A short timeout: these tests never wait for the checker.
    Client::start(caps, json!({"testHooks": true, "debounceMs": 0, "timeout": 2})).await.0
}

/// The items at `offset` (a byte offset into `text`), in the order a client
/// shows them: by sortText, else by label.
async fn complete(c: &mut Client, u: &str, text: &str, offset: usize, trigger: Option<&str>) -> Vec<Value> {
    let context = match trigger {
        Some(t) => json!({"triggerKind": 2, "triggerCharacter": t}),
        None => json!({"triggerKind": 1}),
    };
    let params = json!({"textDocument": {"uri": u}, "position": lsp_position(text, offset), "context": context});
    let r = c.request("textDocument/completion", params).await.expect("completion");
    let mut items = if r.is_array() { r } else { r["items"].clone() }.as_array().cloned().unwrap_or_default();
    let key = |i: &Value| i["sortText"].as_str().or(i["label"].as_str()).unwrap_or_default().to_string();
    items.sort_by_key(key);
    items
}

fn labels(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["label"].as_str().unwrap()).collect()
}

fn find<'a>(items: &'a [Value], label: &str) -> &'a Value {
    items.iter().find(|i| i["label"] == label).unwrap_or_else(|| panic!("no {label} in {:?}", labels(items)))
}

/// The text after accepting `item` with the cursor at `offset`: its textEdit,
/// or, without one, what a client does (the word before the cursor replaced
/// by the insertText or label; `:` is no part of a word).
fn accept(text: &str, offset: usize, item: &Value) -> String {
    if item["textEdit"].is_object() {
        return apply_edits(text, &[item["textEdit"].clone()]);
    }
    let start = text[..offset].trim_end_matches(|c: char| c.is_alphanumeric() || c == '_').len();
    let new = item["insertText"].as_str().or(item["label"].as_str()).unwrap();
    format!("{}{new}{}", &text[..start], &text[offset..])
}

const KEYWORD: i64 = 14;
const SNIPPET: i64 = 15;
const VARIABLE: i64 = 6;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn final_condition_register_replaces_what_was_typed() {
    let mut c = client(true).await;
    let u = uri("cond.litmus");
    let text = format!("{MP}exists (P1:r0 == 1 && P1:r);\n");
    let at = text.len() - 3;
    c.open(&u, &text);
    let items = complete(&mut c, &u, &text, at, None).await;
    // Accepting r1 (whether labelled `r1` or `P1:r1`) gives `P1:r1`.
    let r1 = items.iter().find(|i| i["label"].as_str().unwrap().ends_with("r1")).expect("r1 offered");
    let done = accept(&text, at, r1);
    assert!(!done.contains("P1:P1:"), "{done}");
    assert!(done.ends_with("&& P1:r1);\n"), "{done}");
    // Only P1's registers; none preselected, no keyword (`return` was chosen).
    assert_eq!(labels(&items), ["r0", "r1"]);
    assert!(items.iter().all(|i| i["kind"] == VARIABLE && i["preselect"] != true), "{items:#?}");
    assert_eq!(find(&items, "r1")["detail"], "register of P1");
    // The same mid-typing, the condition unfinished.
    let text = format!("{MP}exists (P1:r0 == 1 && P1:r");
    c.replace_all(&u, 2, &text);
    let items = complete(&mut c, &u, &text, text.len(), None).await;
    assert_eq!(labels(&items), ["r0", "r1"]);
    assert!(accept(&text, text.len(), find(&items, "r1")).ends_with("&& P1:r1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_colon_trigger_gives_only_that_thread_s_registers() {
    let mut c = client(true).await;
    let u = uri("colon.litmus");
    let text = format!("{MP}exists (P1:");
    c.open(&u, &text);
    let items = complete(&mut c, &u, &text, text.len(), Some(":")).await;
    assert_eq!(labels(&items), ["r0", "r1"]);
    assert!(accept(&text, text.len(), &items[0]).ends_with("(P1:r0"));
    // By index too, as herd writes it; an unknown thread has none.
    let text = format!("{MP}exists (0:");
    c.replace_all(&u, 2, &text);
    assert!(complete(&mut c, &u, &text, text.len(), Some(":")).await.is_empty());
    let text = format!("{MP}exists (1:");
    c.replace_all(&u, 3, &text);
    assert_eq!(labels(&complete(&mut c, &u, &text, text.len(), Some(":")).await), ["r0", "r1"]);
    let text = format!("{MP}exists (P7:");
    c.replace_all(&u, 4, &text);
    assert!(complete(&mut c, &u, &text, text.len(), Some(":")).await.is_empty());
    // Before the colon: `THREAD:reg` for every thread, shared names, no keyword.
    let text = format!("{MP}exists (");
    c.replace_all(&u, 5, &text);
    let items = complete(&mut c, &u, &text, text.len(), None).await;
    let l = labels(&items);
    assert_eq!(&l[..2], ["P1:r0", "P1:r1"], "{l:?}");
    assert!(l.contains(&"x") && l.contains(&"y") && !l.contains(&"shared") && !l.contains(&"return"), "{l:?}");
    assert_eq!(find(&items, "P1")["kind"], 7, "a thread is a class");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thread_body_offers_statements_not_items() {
    let mut c = client(true).await;
    let u = uri("body.litmus");
    let text = format!("{MP}exists (P1:r0 == 1);\n");
    let at = text.find("  let r1").unwrap() + 2;
    // Mid-typing: the statement started is not finished.
    let text = format!("{}wh\n  {}", &text[..at], &text[at..]);
    let at = at + 2;
    c.open(&u, &text);
    let items = complete(&mut c, &u, &text, at, None).await;
    let l = labels(&items);
    for not in ["shared", "thread", "fn", "exists", "forall", "litmus", "P1:r0"] {
        assert!(!l.contains(&not), "{not} in {l:?}");
    }
    assert_eq!(l[0], "while", "the typed prefix first: {l:?}");
    for want in ["r0", "x", "y", "let", "if", "await", "fence", "fence wr", "cas", "assert"] {
        assert!(l.contains(&want), "{want} in {l:?}");
    }
    let w = find(&items, "while");
    assert_eq!((w["kind"].as_i64(), w["insertTextFormat"].as_i64()), (Some(SNIPPET), Some(2)));
    let done = accept(&text, at, w);
    assert!(done.contains("\n  while ($1) {\n\t$0\n}\n  let r1 = x;"), "{done}");
    assert_eq!(find(&items, "x")["detail"], "shared x = 0");
    assert_eq!(find(&items, "let")["kind"], KEYWORD);
    // In an expression: names, and no statement keyword.
    let text = MP.replace("let r1 = x;", "let r1 = ");
    c.replace_all(&u, 2, &text);
    let at = text.find("let r1 = ").unwrap() + "let r1 = ".len();
    let items = complete(&mut c, &u, &text, at, None).await;
    let l = labels(&items);
    assert_eq!(l[0], "r0", "{l:?}");
    for not in ["let", "while", "fence", "return", "r1"] {
        assert!(!l.contains(&not), "{not} in {l:?}");
    }
    let cas = find(&items, "fetch_add");
    assert_eq!(cas["textEdit"]["newText"], "fetch_add(${1:loc}, ${2:delta})$0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn top_level_snippets_and_plain_text_without_snippet_support() {
    let mut c = client(true).await;
    let u = uri("top.litmus");
    c.open(&u, MP);
    let items = complete(&mut c, &u, MP, MP.len(), None).await;
    let t = find(&items, "thread");
    assert_eq!((t["kind"].as_i64(), t["insertTextFormat"].as_i64()), (Some(SNIPPET), Some(2)));
    assert_eq!(t["textEdit"]["newText"], "thread ${1:P2} {\n\t$0\n}");
    assert_eq!(find(&items, "exists")["textEdit"]["newText"], "exists ($0);");
    assert_eq!(find(&items, "fn")["kind"], SNIPPET);
    assert!(!labels(&items).contains(&"let"), "{:?}", labels(&items));

    let mut plain = client(false).await;
    plain.open(&u, MP);
    let items = complete(&mut plain, &u, MP, MP.len(), None).await;
    let t = find(&items, "thread");
    assert_eq!((t["insertTextFormat"].as_i64(), t["textEdit"]["newText"].as_str()), (Some(1), Some("thread ")));
    assert!(items.iter().all(|i| !i["textEdit"]["newText"].as_str().unwrap().contains('$')), "{items:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_ascii_before_the_cursor_counts_utf16_columns() {
    let mut c = client(true).await;
    let u = uri("utf16.litmus");
    let text = MP.replace("  let r1 = x;\n", "  let r1 = x;\n  /* café 🙂 */ let r2 = r\n");
    let at = text.find("let r2 = r").unwrap() + "let r2 = r".len();
    c.open(&u, &text);
    let items = complete(&mut c, &u, &text, at, None).await;
    assert_eq!(&labels(&items)[..2], ["r0", "r1"], "{:?}", labels(&items));
    let edit = &find(&items, "r1")["textEdit"];
    // `  /* café 🙂 */ let r2 = ` is 25 UTF-16 units (é one, 🙂 two), 28 bytes.
    assert_eq!(edit["range"]["start"]["character"], 25, "{edit}");
    assert_eq!(edit["range"]["end"]["character"], 26, "{edit}");
    assert!(accept(&text, at, find(&items, "r1")).contains("🙂 */ let r2 = r1\n}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn herd_cells_and_condition() {
    let mut c = client(true).await;
    let u = uri("sb-herd.litmus");
    let text = "X86 SB\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EBX,[x] ;\nexists (0:EAX=0 /\\ 1:EBX=0)\n";
    c.open(&u, text);
    let row = text.find(" MOV EAX").unwrap() + 1;
    let items = complete(&mut c, &u, text, row, None).await;
    assert!(find(&items, "MFENCE")["detail"].as_str().unwrap().contains("fence"));
    let at = text.find("1:EBX").unwrap() + 2;
    let items = complete(&mut c, &u, text, at, Some(":")).await;
    assert_eq!(labels(&items), ["EBX"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_help_names_the_active_parameter() {
    let (mut c, init) = Client::start(json!({}), json!({"testHooks": true, "debounceMs": 0, "timeout": 2})).await;
    assert_eq!(init["capabilities"]["signatureHelpProvider"]["triggerCharacters"], json!(["(", ","]));
    let u = uri("sig.litmus");
    let text = "litmus T\nshared x = 0;\nfn add(a, b) {\n  return a + b;\n}\nthread P0 {\n  let r = cas(x, 0, add(1, ";
    c.open(&u, text);
    let at = |offset: usize| json!({"textDocument": {"uri": u}, "position": lsp_position(text, offset)});
    let s = c.request("textDocument/signatureHelp", at(text.len())).await.unwrap();
    let sig = &s["signatures"][0];
    assert_eq!((sig["label"].as_str(), s["activeParameter"].as_i64()), (Some("add(a, b)"), Some(1)));
    assert_eq!(sig["parameters"][1]["label"], json!([7, 8]));
    let inside_cas = text.find("0, add").unwrap() + 1;
    let s = c.request("textDocument/signatureHelp", at(inside_cas)).await.unwrap();
    let sig = &s["signatures"][0];
    assert_eq!((sig["label"].as_str(), s["activeParameter"].as_i64()), (Some("cas(loc, expected, new)"), Some(1)));
    let [a, b] = [0, 1].map(|k| sig["parameters"][1]["label"][k].as_u64().unwrap() as usize);
    assert_eq!(&sig["label"].as_str().unwrap()[a..b], "expected");
    assert!(sig["documentation"]["value"].as_str().unwrap().contains("old value"));
    // Outside any call: nothing.
    let s = c.request("textDocument/signatureHelp", at(text.find("shared").unwrap())).await.unwrap();
    assert!(s.is_null(), "{s}");
}
