//! The editor features rust-analyzer users expect, over the protocol (issue
//! 44, item 10): document highlight (read/write), folding ranges (with and
//! without `lineFoldingOnly`), workspace symbols (open documents and files
//! on disk, bounded), range formatting (nothing outside the range touched)
//! and the outline (threads as classes holding their registers, the final
//! condition). Each on an example and a herd x86 test, with non-ASCII text
//! before a name (UTF-16 columns). No check runs: requests answer from the
//! analysis alone (a long debounce keeps the checker idle).

mod harness;

use harness::{apply_edits, example, lsp_position, uri, Client};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A client whose server never starts a check (the debounce outlasts the test).
async fn client(capabilities: Value) -> Client {
    Client::start(capabilities, json!({"debounceMs": 60000})).await.0
}

fn corpus(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../tests/corpus/herd-x86/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The position of the `nth` (from 0) occurrence of `needle` in `text`.
fn at_nth(text: &str, needle: &str, nth: usize) -> Value {
    let offset = text.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("{needle} #{nth}")).0;
    lsp_position(text, offset)
}

fn doc_at(u: &str, position: Value) -> Value {
    json!({"textDocument": {"uri": u}, "position": position})
}

/// Highlights as `(line, character, kind)`.
async fn highlights(c: &mut Client, u: &str, position: Value) -> Vec<(u64, u64, u64)> {
    let r = c.request("textDocument/documentHighlight", doc_at(u, position)).await.unwrap();
    r.as_array()
        .map(|v| {
            v.iter()
                .map(|h| {
                    let s = &h["range"]["start"];
                    (s["line"].as_u64().unwrap(), s["character"].as_u64().unwrap(), h["kind"].as_u64().unwrap())
                })
                .collect()
        })
        .unwrap_or_default()
}

const READ: u64 = 2;
const WRITE: u64 = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn highlight_tells_writes_from_reads() {
    let mut c = client(json!({})).await;
    let u = uri("mp.litmus");
    // Non-ASCII text before the store on its line: columns count UTF-16 units.
    let text = example("mp.litmus").replace("  x = 1;", "  /* é🙂 */ x = 1;");
    c.open(&u, &text);
    let store = text.find("x = 1;").unwrap();
    let got = highlights(&mut c, &u, lsp_position(&text, store + 1)).await;
    let want: Vec<(u64, u64, u64)> =
        [(text.find("x = 0").unwrap(), WRITE), (store, WRITE), (text.find("= x;").unwrap() + 2, READ)]
            .iter()
            .map(|&(o, k)| {
                let p = lsp_position(&text, o);
                (p["line"].as_u64().unwrap(), p["character"].as_u64().unwrap(), k)
            })
            .collect();
    assert_eq!(got, want);
    // `/* é🙂 */ ` is 10 UTF-16 units after the indent (🙂 is two), 14 bytes.
    assert_eq!(got[1].1, 2 + 10);
    // A register: declared (write), then read in the final condition.
    let got = highlights(&mut c, &u, lsp_position(&text, text.find("let r0").unwrap() + 4)).await;
    assert_eq!(got.iter().map(|h| h.2).collect::<Vec<_>>(), [WRITE, READ]);
    // Off any name: nothing.
    let got = c.request("textDocument/documentHighlight", doc_at(&u, json!({"line": 5, "character": 0}))).await;
    assert_eq!(got, Ok(Value::Null));

    // herd: an initial value and a store write `x`, a load reads it; a
    // register is written by its load and read by the condition.
    let h = uri("mp-x86.litmus");
    let herd = corpus("catalogue__demo__tests__mp-x86.litmus");
    c.open(&h, &herd);
    let got = highlights(&mut c, &h, at_nth(&herd, "x=0", 0)).await;
    assert_eq!(got.iter().map(|h| h.2).collect::<Vec<_>>(), [WRITE, WRITE, READ]);
    let got = highlights(&mut c, &h, at_nth(&herd, "EAX", 0)).await;
    assert_eq!(got.iter().map(|h| (h.0, h.2)).collect::<Vec<_>>(), [(3, WRITE), (5, READ)]);
}

/// Folds as `(start line, end line, kind)`.
async fn folds(c: &mut Client, u: &str) -> Vec<Value> {
    let r = c.request("textDocument/foldingRange", json!({"textDocument": {"uri": u}})).await.unwrap();
    r.as_array().unwrap().clone()
}

fn lines_of(folds: &[Value]) -> Vec<(u64, u64, &str)> {
    folds
        .iter()
        .map(|f| (f["startLine"].as_u64().unwrap(), f["endLine"].as_u64().unwrap(), f["kind"].as_str().unwrap_or("")))
        .collect()
}

/// The 0-based line of the `nth` line of `text` containing `needle`.
fn line_of(text: &str, needle: &str, nth: usize) -> u64 {
    text.lines().enumerate().filter(|(_, l)| l.contains(needle)).nth(nth).unwrap().0 as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn folding_ranges_for_bodies_blocks_comments_and_tables() {
    let line_only = json!({"textDocument": {"foldingRange": {"lineFoldingOnly": true}}});
    let mut c = client(line_only).await;
    let u = uri("treiber-stack.litmus");
    let text = example("treiber-stack.litmus");
    c.open(&u, &text);
    let got = folds(&mut c, &u).await;
    assert!(got.iter().all(|f| f.get("startCharacter").is_none()), "{got:#?}");
    let got = lines_of(&got);
    let has = |f: (u64, u64, &str)| assert!(got.contains(&f), "{f:?} in {got:?}");
    // The leading comment, then a function's body to its closing brace.
    has((0, 5, "comment"));
    has((line_of(&text, "fn push", 0), line_of(&text, "assume (ok == 1)", 0) + 1, ""));
    has((line_of(&text, "while (ok == 0)", 0), line_of(&text, "assume (ok == 1)", 0) - 1, ""));
    // `} else {`: a line-only client would hide the else too; the fold
    // ends on the line before.
    has((line_of(&text, "if (t == 0)", 0), line_of(&text, "} else {", 0) - 1, ""));
    has((line_of(&text, "} else {", 0), line_of(&text, "        done = 1;", 0) + 2, ""));
    has((line_of(&text, "thread P1", 0), line_of(&text, "let r1 = pop()", 0) + 1, ""));
    // One-line items (the condition here) are no folds.
    assert!(!got.iter().any(|f| f.0 == line_of(&text, "exists", 0)), "{got:?}");

    // herd: the initial state, the thread table and a condition over lines.
    let h = uri("sb.litmus");
    let herd = "X86 SB\n(* the\n   SB shape *)\n{\n x=0;\n y=0;\n}\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\\n        1:EAX=0)\n";
    c.open(&h, herd);
    let herd_folds = folds(&mut c, &h).await;
    let got = lines_of(&herd_folds);
    assert_eq!(got, [(1, 2, "comment"), (3, 6, ""), (7, 9, ""), (10, 11, "")]);

    // A client that folds within lines gets the characters.
    let mut c = client(json!({})).await;
    c.open(&u, &text);
    let got = folds(&mut c, &u).await;
    let else_line = line_of(&text, "} else {", 0);
    let then_block = got.iter().find(|f| f["endLine"] == else_line).expect("the then block ends at `} else {`");
    assert_eq!(then_block["endCharacter"], 5, "{then_block}");
    assert!(got.iter().all(|f| f.get("startCharacter").is_some()));
}

/// A fresh folder under the system's temporary directory.
fn temp_folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("litmus-features-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn file_uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

async fn symbols(c: &mut Client, query: &str) -> Vec<Value> {
    let r = c.request("workspace/symbol", json!({"query": query})).await.unwrap();
    r.as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_symbols_from_open_documents_and_the_disk() {
    let dir = temp_folder("symbols");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("treiber.litmus"), example("treiber-stack.litmus")).unwrap();
    std::fs::write(dir.join("sub/mp.litmus"), corpus("catalogue__demo__tests__mp-x86.litmus")).unwrap();
    std::fs::write(dir.join("notes.txt"), "shared nottaken = 0;").unwrap();
    // Too large to be a hand-written test: not read.
    let big =
        format!("litmus Big\nshared hugeflag = 0;\n{}thread P0 {{ hugeflag = 1; }}\n", "// padding\n".repeat(100_000));
    std::fs::write(dir.join("big.litmus"), big).unwrap();
    // On disk with `flag0`; open with `flagé` renamed and non-ASCII before it.
    let peterson = example("peterson.litmus");
    std::fs::write(dir.join("peterson.litmus"), &peterson).unwrap();
    let folder = json!([{"uri": file_uri(&dir), "name": "ws"}]);
    let (mut c, _) = Client::start_with(json!({}), json!({"debounceMs": 60000}), folder).await;
    let open_text = peterson.replace("shared flag0 = 0;", "/* é🙂 */ shared flag9 = 0;");
    let pu = file_uri(&dir.join("peterson.litmus"));
    c.open(&pu, &open_text);

    let got = symbols(&mut c, "push").await;
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0]["name"], "push");
    assert_eq!(got[0]["kind"], 12);
    assert_eq!(got[0]["containerName"], "Treiber-stack");
    assert_eq!(got[0]["location"]["uri"], file_uri(&dir.join("treiber.litmus")));
    let treiber = example("treiber-stack.litmus");
    assert_eq!(got[0]["location"]["range"]["start"], lsp_position(&treiber, treiber.find("fn push").unwrap() + 3));

    // The open text, not the file: `flag9` at its UTF-16 column; no `flag0`.
    let got = symbols(&mut c, "flag").await;
    let names: Vec<&str> = got.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["flag1", "flag9"], "{got:#?}");
    assert_eq!(got[1]["location"]["uri"], pu);
    assert_eq!(got[1]["location"]["range"]["start"], at_nth(&open_text, "flag9", 0));
    assert_eq!(got[1]["kind"], 13);
    assert_eq!(got[1]["containerName"], "Peterson");

    // Substring before in-order matches; herd files' threads are classes.
    let got = symbols(&mut c, "op").await;
    let names: Vec<&str> = got.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["pop", "top"], "{got:#?}");
    let got = symbols(&mut c, "tp").await;
    assert_eq!(got.iter().map(|s| s["name"].as_str().unwrap()).collect::<Vec<_>>(), ["top"]);
    let got = symbols(&mut c, "P1").await;
    let herd_p1 = got.iter().find(|s| s["containerName"] == "MP").expect("the herd test's P1");
    assert_eq!(herd_p1["kind"], 5);
    assert_eq!(herd_p1["location"]["uri"], file_uri(&dir.join("sub/mp.litmus")));
    // Neither the large file nor other extensions.
    assert!(symbols(&mut c, "hugeflag").await.is_empty());
    assert!(symbols(&mut c, "nottaken").await.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

async fn format_range(c: &mut Client, u: &str, start: Value, end: Value) -> Vec<Value> {
    let r = c
        .request(
            "textDocument/rangeFormatting",
            json!({"textDocument": {"uri": u}, "range": {"start": start, "end": end},
                   "options": {"tabSize": 2, "insertSpaces": true}}),
        )
        .await
        .unwrap();
    r.as_array().unwrap().clone()
}

/// `text`'s lines `from..=to` (with their line breaks), and what is before
/// and after them.
fn split_lines(text: &str, from: usize, to: usize) -> (&str, &str, &str) {
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let (a, b) = (starts[from], starts.get(to + 1).copied().unwrap_or(text.len()));
    (&text[..a], &text[a..b], &text[b..])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn range_formatting_touches_only_the_range() {
    let mut c = client(json!({})).await;
    let u = uri("messy.litmus");
    let messy = "litmus Messy\nshared x = 0;\n\n\n\nthread P0 {\nx=1;   \n      if (x==1) {\nlet r0 = x; // é🙂 kept\n}\n}\nthread P1 {\n     let r1=x;\n      x   =  2;\n}\nexists(P0:r0==1);\n";
    c.open(&u, messy);
    // P1's two statements, the range starting and ending mid-line (UTF-16).
    let (l1, l2) = (12, 13);
    let edits =
        format_range(&mut c, &u, json!({"line": l1, "character": 3}), json!({"line": l2, "character": 4})).await;
    let out = apply_edits(messy, &edits);
    let (before, _, after) = split_lines(messy, l1, l2);
    let (b2, inside, a2) = split_lines(&out, l1, l2);
    assert_eq!((b2, a2), (before, after), "outside the range byte-identical");
    assert_eq!(inside, "  let r1 = x;\n  x = 2;\n");

    // A range on the line with non-ASCII text: its columns are UTF-16.
    let line = 8;
    let l = messy.lines().nth(line).unwrap();
    let end = json!({"line": line, "character": l.encode_utf16().count()});
    let edits = format_range(&mut c, &u, json!({"line": line, "character": 0}), end).await;
    assert!(!edits.is_empty());
    let out = apply_edits(messy, &edits);
    let (before, _, after) = split_lines(messy, line, line);
    let (b2, inside, a2) = split_lines(&out, line, line);
    assert_eq!((b2, a2), (before, after));
    assert_eq!(inside, "    let r0 = x; // é🙂 kept\n");

    // Blank lines are removed only when the range holds them all.
    let edits = format_range(&mut c, &u, json!({"line": 3, "character": 0}), json!({"line": 4, "character": 0})).await;
    assert_eq!(apply_edits(messy, &edits), messy, "{edits:#?}");
    let edits = format_range(&mut c, &u, json!({"line": 2, "character": 0}), json!({"line": 5, "character": 0})).await;
    let out = apply_edits(messy, &edits);
    assert!(out.starts_with("litmus Messy\nshared x = 0;\n\nthread P0 {\nx=1;   \n"), "{out}");

    // herd: only the rows in range are aligned.
    let h = uri("sb.herd.litmus");
    let herd = "X86 SB\n{ x=0; y=0; }\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1 ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";
    c.open(&h, herd);
    let edits = format_range(&mut c, &h, json!({"line": 3, "character": 0}), json!({"line": 3, "character": 5})).await;
    let out = apply_edits(herd, &edits);
    let (before, _, after) = split_lines(herd, 3, 3);
    let (b2, inside, a2) = split_lines(&out, 3, 3);
    assert_eq!((b2, a2), (before, after));
    assert_ne!(inside, " MOV [x],$1 | MOV [y],$1 ;\n");
    assert!(inside.starts_with(" MOV [x],$1  | MOV [y],$1"), "{inside:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outline_nests_registers_in_threads_and_shows_the_condition() {
    let mut c = client(json!({})).await;
    let u = uri("treiber-stack.litmus");
    let text = example("treiber-stack.litmus");
    c.open(&u, &text);
    let got = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": u}})).await.unwrap();
    let got = got.as_array().unwrap();
    let row = |s: &Value| (s["name"].as_str().unwrap().to_string(), s["kind"].as_u64().unwrap());
    let top: Vec<(String, u64)> = got.iter().map(row).collect();
    let want: Vec<(String, u64)> = [
        ("top", 13),
        ("next", 18),
        ("val", 18),
        ("push", 12),
        ("pop", 12),
        ("P0", 5),
        ("P1", 5),
        ("exists (P1:r0 == 0 || P1:r1 == 0 || (P1:r0 == 2 && P1:r1 == -1))", 17),
    ]
    .iter()
    .map(|(n, k)| (n.to_string(), *k))
    .collect();
    assert_eq!(top, want);
    let p1 = &got[6];
    let regs: Vec<(String, u64)> = p1["children"].as_array().unwrap().iter().map(row).collect();
    assert_eq!(regs, [("r0".to_string(), 13), ("r1".to_string(), 13)]);
    let cond = &got[7];
    assert_eq!(cond["detail"], "final condition");
    assert_eq!(cond["selectionRange"]["start"], at_nth(&text, "exists (P1", 0));

    // herd: each thread spans the table, its registers inside.
    let h = uri("mp-x86.litmus");
    let herd = corpus("catalogue__demo__tests__mp-x86.litmus");
    c.open(&h, &herd);
    let got = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": h}})).await.unwrap();
    let got = got.as_array().unwrap();
    let p1 = got.iter().find(|s| s["name"] == "P1").unwrap();
    assert_eq!(p1["kind"], 5);
    let regs: Vec<&str> = p1["children"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(regs, ["EAX", "EBX"]);
    let line = |p: &Value| p["line"].as_u64().unwrap();
    for r in p1["children"].as_array().unwrap() {
        assert!(line(&p1["range"]["start"]) <= line(&r["range"]["start"]));
        assert!(line(&r["range"]["end"]) <= line(&p1["range"]["end"]));
    }
    assert_eq!(got.last().unwrap()["name"], "exists (1:EAX=1 /\\ 1:EBX=0)");
}
