//! The server over the protocol, in process (real framing and concurrency):
//! what an editor sends and what it gets back, snapshotted with insta.
//! Capabilities and encoding negotiation; the SB round trip (diagnostics,
//! related cycle, hover, quick fix, fix-all); syntax errors first, then the
//! empty list; navigation, rename, symbols, tokens, lenses, completion;
//! formatting both dialects; herd and PSLO quick fixes; UTF-16 vs UTF-8
//! columns on non-ASCII text; a panicking handler; settings (good, bad,
//! absurd); requests answered during a long check, which an edit
//! supersedes; 200 random incremental edits (text and diagnostics equal a
//! fresh open; published versions never go back).

mod harness;

use harness::{apply_edits, brief, edits_for, example, is_model_violation, lsp_position, uri, Client};
use serde_json::{json, Value};

fn briefs(diags: &[Value]) -> String {
    diags.iter().map(brief).collect::<Vec<_>>().join("\n")
}

fn pos(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}

fn at(u: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": u}, "position": pos(line, character)})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_announces_capabilities_and_negotiates_encoding() {
    let (_c, init) = Client::start(json!({}), json!({})).await;
    insta::assert_json_snapshot!("capabilities", init["capabilities"]);
    let (_c, init) = Client::start(json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}), json!({})).await;
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    let (_c, init) = Client::start(json!({"general": {"positionEncodings": ["utf-16"]}}), json!({})).await;
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn store_buffering_round_trip() {
    let mut c = Client::default().await;
    let u = uri("sb.litmus");
    let text = example("sb.litmus");
    c.open(&u, &text);
    let diags = c.settled(&u, 1).await;
    insta::assert_snapshot!("sb_diagnostics", briefs(&diags));
    let tso: Vec<&Value> = diags.iter().filter(|d| is_model_violation(d, "TSO")).collect();
    let lines: Vec<u64> = tso.iter().map(|d| d["range"]["start"]["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [7, 12], "a TSO violation on each thread's store");
    // The cycle's other statements come as related information.
    assert_eq!(tso[0]["relatedInformation"].as_array().unwrap().len(), 3);
    insta::assert_json_snapshot!("sb_related", tso[0]["relatedInformation"]);

    let hover = c.request("textDocument/hover", at(&u, 7, 3)).await.unwrap();
    insta::assert_snapshot!("sb_hover", hover["contents"]["value"].as_str().unwrap());

    // The quick fix for P0's violation inserts a fence after `x = 1;` only.
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": tso[0]["range"],
                   "context": {"diagnostics": [tso[0]], "only": ["quickfix"]}}),
        )
        .await
        .unwrap();
    let actions = actions.as_array().unwrap();
    assert_eq!(actions.len(), 1, "{actions:#?}");
    assert_eq!(actions[0]["title"], "Insert `fence wr` after line 8");
    assert_eq!(actions[0]["kind"], "quickfix");
    let fixed = apply_edits(&text, edits_for(&actions[0]["edit"], &u));
    insta::assert_snapshot!("sb_one_fence", fixed);
    c.replace_all(&u, 2, &fixed);
    let diags = c.settled(&u, 2).await;
    let tso: Vec<u64> = diags
        .iter()
        .filter(|d| is_model_violation(d, "TSO"))
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(tso, [13], "P0's violation is gone, P1's stays (the fence shifted it a line down)");

    // The source action inserts every fence of the minimal set.
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": {"start": pos(0, 0), "end": pos(0, 0)},
                   "context": {"diagnostics": [], "only": ["source.litmus.insertFences"]}}),
        )
        .await
        .unwrap();
    let actions = actions.as_array().unwrap();
    assert_eq!(actions.len(), 1, "{actions:#?}");
    assert_eq!(actions[0]["title"], "Insert all minimal fences (1 fence)");
    let fixed = apply_edits(&fixed, edits_for(&actions[0]["edit"], &u));
    c.replace_all(&u, 3, &fixed);
    let diags = c.settled(&u, 3).await;
    assert!(!diags.iter().any(|d| d["code"] == "E0400"), "{diags:#?}");
    assert!(diags.is_empty(), "a clean file gets the empty list: {diags:#?}");
    // The check reported progress through the client.
    assert!(c.server_requests.lock().unwrap().iter().any(|m| m == "window/workDoneProgress/create"));
    assert!(c.log.iter().any(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn syntax_errors_come_first_and_the_empty_list_when_fixed() {
    let mut c = Client::default().await;
    let u = uri("mp.litmus");
    let text = example("mp.litmus");
    c.open(&u, &text);
    c.settled(&u, 1).await;
    // Break two statements at once: both errors are reported, no check runs.
    let broken = text.replacen("x = 1;", "x = ;", 1).replacen("let r0 = y;", "let r0 = ;", 1);
    c.replace_all(&u, 2, &broken);
    let diags = c.settled(&u, 2).await;
    insta::assert_snapshot!("mp_broken", briefs(&diags));
    assert!(diags.iter().filter(|d| d["severity"] == 1).count() >= 2);
    // The lens keeps the last verdicts, says they are outdated and why.
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    let title = lens[0]["command"]["title"].as_str().unwrap();
    assert!(title.starts_with("SC ") && title.ends_with("(outdated: fix the errors to re-check)"), "{title}");
    // Without an earlier check, it says there are no verdicts.
    let (mut fresh, _) = Client::start(json!({}), json!({"debounceMs": 0})).await;
    let v = uri("fresh.litmus");
    fresh.open(&v, &broken);
    fresh.settled(&v, 1).await;
    let lens = fresh.request("textDocument/codeLens", json!({"textDocument": {"uri": v}})).await.unwrap();
    assert_eq!(lens[0]["command"]["title"], "litmus: not checked (fix the errors first)");
    c.replace_all(&u, 3, &text);
    let diags = c.settled(&u, 3).await;
    assert!(diags.iter().all(|d| d["code"] == "E0400" || d["code"] == "E0302"), "{diags:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clean_file_publishes_the_empty_list() {
    let mut c = Client::default().await;
    let u = uri("clean.litmus");
    c.open(&u, "litmus Clean\nshared x = 0;\nthread P0 {\n  x = ;\n}\n");
    let diags = c.settled(&u, 1).await;
    assert_eq!(diags.len(), 1, "{diags:#?}");
    c.replace_all(&u, 2, "litmus Clean\nshared x = 0;\nthread P0 {\n  x = 1;\n}\n");
    c.settled(&u, 2).await;
    let last = c.publications(&u).last().cloned().unwrap();
    assert_eq!(last["version"], 2);
    assert_eq!(last["diagnostics"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigation_rename_symbols_tokens_lens_completion() {
    let mut c = Client::default().await;
    let u = uri("mp.litmus");
    let text = example("mp.litmus");
    c.open(&u, &text);
    c.settled(&u, 1).await;
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() as u32;
    let col_of = |needle: &str, sub: &str| {
        let l = text.lines().nth(line_of(needle) as usize).unwrap();
        (l.find(needle).unwrap() + needle.find(sub).unwrap()) as u32
    };
    // Definition of `y` from its use in `let r0 = y;`.
    let use_line = line_of("let r0 = y");
    let def = c.request("textDocument/definition", at(&u, use_line, col_of("let r0 = y", "y"))).await.unwrap();
    assert_eq!(def["range"]["start"]["line"], line_of("shared y"));
    let refs = c
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": u}, "position": pos(use_line, col_of("let r0 = y", "y")),
                   "context": {"includeDeclaration": true}}),
        )
        .await
        .unwrap();
    insta::assert_json_snapshot!("mp_references_y", refs);

    let prep = c.request("textDocument/prepareRename", at(&u, use_line, col_of("let r0 = y", "y"))).await.unwrap();
    assert_eq!(prep["placeholder"], "y");
    let edit = c
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": u}, "position": pos(use_line, col_of("let r0 = y", "y")), "newName": "flag"}),
        )
        .await
        .unwrap();
    let renamed = apply_edits(&text, edits_for(&edit, &u));
    insta::assert_snapshot!("mp_renamed", renamed);
    assert!(litmus_dsl::analyze(&renamed).program.is_some(), "the renamed program still analyses cleanly");
    let clash = c
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": u}, "position": pos(use_line, col_of("let r0 = y", "y")), "newName": "x"}),
        )
        .await
        .unwrap_err();
    assert_eq!(clash["message"], "`x` is already used");
    // Names are Rust identifiers: a Unicode one is a valid new name, a
    // character no name has is not.
    let rename_to = |name: &str| json!({"textDocument": {"uri": u}, "position": pos(use_line, col_of("let r0 = y", "y")), "newName": name});
    let edit = c.request("textDocument/rename", rename_to("drapeau_é")).await.unwrap();
    let renamed = apply_edits(&text, edits_for(&edit, &u));
    assert!(renamed.contains("let r0 = drapeau_é;"), "{renamed}");
    assert!(litmus_dsl::analyze(&renamed).program.is_some(), "{renamed}");
    let bad = c.request("textDocument/rename", rename_to("a→b")).await.unwrap_err();
    assert_eq!(bad["message"], "`a→b` is not a valid name");

    let symbols = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": u}})).await.unwrap();
    insta::assert_json_snapshot!("mp_symbols", symbols);

    let toks = c.request("textDocument/semanticTokens/full", json!({"textDocument": {"uri": u}})).await.unwrap();
    insta::assert_snapshot!("mp_tokens", decode_tokens(&text, toks["data"].as_array().unwrap()));

    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    insta::assert_json_snapshot!("mp_lens", lens);

    // In P1's body: its registers and the shared names; in the final
    // condition: registers qualified by their thread.
    let labels = |items: Value| -> Vec<String> {
        items.as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap().to_string()).collect()
    };
    // After `let r1 = x;` (before it, `r1` is not declared yet).
    let in_p1 = labels(c.request("textDocument/completion", at(&u, line_of("let r1 = x"), 13)).await.unwrap());
    for want in ["r0", "r1", "x", "fence"] {
        assert!(in_p1.iter().any(|l| l == want), "{want} in {in_p1:?}");
    }
    assert!(!in_p1.iter().any(|l| l == "P1:r0"), "{in_p1:?}");
    let in_final = labels(c.request("textDocument/completion", at(&u, line_of("exists"), 8)).await.unwrap());
    assert!(in_final.iter().any(|l| l == "P1:r0") && !in_final.iter().any(|l| l == "r0"), "{in_final:?}");
}

/// Semantic tokens decoded back into `line:col kind 'text'` lines.
fn decode_tokens(text: &str, data: &[Value]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let (mut line, mut col) = (0usize, 0usize);
    let mut out = Vec::new();
    for t in data.chunks(5) {
        let dl = t[0].as_u64().unwrap() as usize;
        line += dl;
        col = if dl == 0 { col + t[1].as_u64().unwrap() as usize } else { t[1].as_u64().unwrap() as usize };
        let len = t[2].as_u64().unwrap() as usize;
        let units: Vec<u16> = lines[line].encode_utf16().collect();
        let word = String::from_utf16(&units[col..col + len]).unwrap();
        let kind = litmus_lsp::tokens::TYPES[t[3].as_u64().unwrap() as usize];
        out.push(format!(
            "{}:{} {kind}{} {word:?}",
            line + 1,
            col + 1,
            if t[4] != 0 { format!("+{}", t[4]) } else { String::new() }
        ));
    }
    out.join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn formatting_both_dialects() {
    let mut c = Client::default().await;
    let u = uri("messy.litmus");
    let messy = "litmus Messy\nshared x = 0;\n\n\n\nthread P0 {\nx=1;   \n      if (x==1) {\nlet r0 = x; // kept\n}\n}\nthread P1 { let r1=-x; }\nexists(P0:r0==1);\n";
    c.open(&u, messy);
    c.settled(&u, 1).await;
    let edits = c
        .request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": u}, "options": {"tabSize": 2, "insertSpaces": true}}),
        )
        .await
        .unwrap();
    let formatted = apply_edits(messy, edits.as_array().unwrap());
    insta::assert_snapshot!("format_native", formatted);
    c.replace_all(&u, 2, &formatted);
    c.settled(&u, 2).await;
    let again = c
        .request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": u}, "options": {"tabSize": 2, "insertSpaces": true}}),
        )
        .await
        .unwrap();
    assert_eq!(again, json!([]), "formatting is idempotent");

    let h = uri("sb.herd.litmus");
    let herd = "X86 SB\n{ x=0; y=0; }\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1 ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";
    c.open(&h, herd);
    c.settled(&h, 1).await;
    let edits = c
        .request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": h}, "options": {"tabSize": 2, "insertSpaces": true}}),
        )
        .await
        .unwrap();
    insta::assert_snapshot!("format_herd", apply_edits(herd, edits.as_array().unwrap()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn herd_file_gets_x86_fence_quick_fix() {
    let mut c = Client::default().await;
    let u = uri("sb.herd.litmus");
    let herd = "X86 SB\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";
    c.open(&u, herd);
    let diags = c.settled(&u, 1).await;
    let tso: Vec<&Value> = diags.iter().filter(|d| is_model_violation(d, "TSO")).collect();
    assert_eq!(tso.len(), 2, "{diags:#?}");
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": tso[0]["range"], "context": {"diagnostics": [tso[0]]}}),
        )
        .await
        .unwrap();
    let titles: Vec<&str> = actions.as_array().unwrap().iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Insert `MFENCE` after line 4", "Insert all minimal fences (2 fences)"]);
    let fixed = apply_edits(herd, edits_for(&actions.as_array().unwrap()[1]["edit"], &u));
    insta::assert_snapshot!("herd_all_fences", fixed);
    c.replace_all(&u, 2, &fixed);
    let diags = c.settled(&u, 2).await;
    assert!(diags.is_empty(), "{diags:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_herd_x86_test_is_checked_under_sc_and_tso_unless_pso_is_asked() {
    // The catalogue's MP, forbidden on x86: clean by default; PSO (and its
    // violation) only when the settings name it.
    let mp = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/herd-x86/catalogue__x86_64__tests__MP.litmus"
    ))
    .unwrap();
    let u = uri("MP.litmus");
    let mut c = Client::default().await;
    c.open(&u, &mp);
    let diags = c.settled(&u, 1).await;
    assert!(diags.is_empty(), "{diags:#?}");
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    let header = lens[0]["command"]["title"].as_str().unwrap();
    assert!(header.contains("TSO") && !header.contains("PSO"), "{header}");
    let (mut c, _) = Client::start(json!({}), json!({"models": ["sc", "tso", "pso"], "debounceMs": 0})).await;
    c.open(&u, &mp);
    let diags = c.settled(&u, 1).await;
    assert!(diags.iter().any(|d| is_model_violation(d, "PSO")), "{diags:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_herd_riscv_test_gets_its_diagnostics_and_the_riscv_model() {
    // An AMO litmus does not model is refused by name, at the mnemonic,
    // in UTF-16 columns past a comment with non-ASCII text.
    let bad = "RISCV T\n{\n0:x6=x;\n}\n P0 ;\n (* é 🙂 *) amomax.w x5,x7,(x6) ;\nexists (0:x5=0)\n";
    let u = uri("amomax.litmus");
    let mut c = Client::default().await;
    c.open(&u, bad);
    let diags = c.settled(&u, 1).await;
    let d = diags.iter().find(|d| d["code"] == "E0120").unwrap_or_else(|| panic!("{diags:#?}"));
    let line = bad.lines().nth(5).unwrap();
    let col = line[..line.find("amomax.w").unwrap()].encode_utf16().count() as u32;
    assert_eq!(d["range"]["start"], pos(5, col));
    // The catalogue's MP with fences: clean under sc and riscv, both named.
    let mp = "RISCV MP+fences\n{\n0:x5=x; 0:x6=y; 1:x5=y; 1:x6=x;\n}\n P0          | P1          ;\n \
              ori x7,x0,1 | lw x7,0(x5) ;\n sw x7,0(x5) | fence r,r   ;\n fence w,w   | lw x8,0(x6) ;\n \
              sw x7,0(x6) |             ;\nexists (1:x7=1 /\\ 1:x8=0)\n";
    let m = uri("mp-riscv.litmus");
    c.open(&m, mp);
    let diags = c.settled(&m, 1).await;
    assert!(diags.is_empty(), "{diags:#?}");
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": m}})).await.unwrap();
    let header = lens[0]["command"]["title"].as_str().unwrap();
    assert!(header.contains("riscv") && header.contains("SC"), "{header}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_ascii_text_gets_utf16_columns_and_utf8_when_negotiated() {
    // é is 1 UTF-16 unit (2 bytes), 🙂 is 2 units (4 bytes).
    let text = "litmus Unicode \"é 🙂\"\nshared x = 0;\nthread P0 {\n  /* é 🙂 */ x = 1; /* 🙂 */ let r = zz;\n}\n";
    let u = uri("unicode.litmus");
    let mut c = Client::default().await;
    c.open(&u, text);
    let diags = c.settled(&u, 1).await;
    let unknown = diags.iter().find(|d| d["message"].as_str().unwrap().contains("zz")).expect("unknown name");
    let line = text.lines().nth(3).unwrap();
    let utf16_col = line[..line.find("zz").unwrap()].encode_utf16().count();
    assert_eq!(unknown["range"]["start"], pos(3, utf16_col as u32));
    assert_eq!(utf16_col, 37);
    // Hover on `x` after the emoji comment resolves the right name.
    let x_col = line[..line.find("x = 1").unwrap()].encode_utf16().count() as u32;
    let hover = c.request("textDocument/hover", at(&u, 3, x_col)).await.unwrap();
    assert!(hover["contents"]["value"].as_str().unwrap().contains("shared x = 0"), "{hover:#}");

    let caps = json!({"general": {"positionEncodings": ["utf-8"]}});
    let (mut c8, _) = Client::start(caps, json!({"debounceMs": 0})).await;
    c8.open(&u, text);
    let diags = c8.settled(&u, 1).await;
    let unknown = diags.iter().find(|d| d["message"].as_str().unwrap().contains("zz")).unwrap();
    assert_eq!(unknown["range"]["start"], pos(3, line.find("zz").unwrap() as u32));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_answers_an_error_and_the_server_goes_on() {
    let mut c = Client::default().await;
    let err = c.request("litmus/crash", json!(null)).await.unwrap_err();
    assert_eq!(err["code"], -32603);
    assert!(err["message"].as_str().unwrap().contains("deliberate panic"), "{err:#}");
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    let diags = c.settled(&u, 1).await;
    assert!(diags.iter().any(|d| is_model_violation(d, "TSO")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_choose_the_models() {
    let caps = json!({});
    let (mut c, _) = Client::start(caps, json!({"litmus": {"models": ["sc", "pso"], "debounceMs": 0}})).await;
    let u = uri("mp.litmus");
    c.open(&u, &example("mp.litmus"));
    let diags = c.settled(&u, 1).await;
    assert!(diags.iter().any(|d| is_model_violation(d, "PSO")), "MP is not robust under PSO: {diags:#?}");
    assert!(!diags.iter().any(|d| is_model_violation(d, "TSO")), "TSO was not asked for");
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"litmus": {"models": ["tso"], "debounceMs": 0}}}));
    // The re-check keeps the version; wait for a check with no PSO finding.
    c.wait_for("a re-check under TSO only", |m| m["method"] == "litmus/status" && m["params"]["state"] == "checked")
        .await;
    let diags = c.diagnostics(&u).unwrap();
    assert!(!diags.iter().any(|d| d["code"] == "E0400"), "MP is robust under TSO: {diags:#?}");
    assert_eq!(c.shown_messages(), Vec::<String>::new(), "good settings raise no warning");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pslo_violations_get_an_rr_fence_quick_fix() {
    // MP with `fence ww;` in the writer: robust under PSO; under PSLO the
    // reader's second load may be satisfied early — a load→load violation,
    // fixed by `fence rr;` between the loads.
    let caps = json!({});
    let (mut c, _) = Client::start(caps, json!({"litmus": {"models": ["pso", "pslo"], "debounceMs": 0}})).await;
    let u = uri("mp-fence-ww.litmus");
    let text = example("mp-fence-ww.litmus");
    c.open(&u, &text);
    let diags = c.settled(&u, 1).await;
    assert!(!diags.iter().any(|d| is_model_violation(d, "PSO")), "{diags:#?}");
    let pslo: Vec<&Value> = diags.iter().filter(|d| is_model_violation(d, "PSLO")).collect();
    assert_eq!(pslo.len(), 1, "{diags:#?}");
    let line = text.lines().position(|l| l.contains("let r0 = y;")).unwrap() as u64;
    assert_eq!(pslo[0]["range"]["start"]["line"], line);
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": pslo[0]["range"], "context": {"diagnostics": [pslo[0]]}}),
        )
        .await
        .unwrap();
    let titles: Vec<&str> = actions.as_array().unwrap().iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(titles[0], format!("Insert `fence rr` after line {}", line + 1));
    let fixed = apply_edits(&text, edits_for(&actions.as_array().unwrap()[0]["edit"], &u));
    assert!(fixed.contains("let r0 = y;\n  fence rr;\n  let r1 = x;"), "{fixed}");
    c.replace_all(&u, 2, &fixed);
    let diags = c.settled(&u, 2).await;
    assert!(!diags.iter().any(|d| d["code"] == "E0400"), "{diags:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editors_settings_raise_no_warning() {
    // What the VS Code extension sends by default, and Neovim's empty table.
    let vscode = json!({"models": ["sc", "tso", "pso"], "loopBound": 2, "preemptionBound": null, "bufferBound": 16,
                        "monitor": "bss", "timeout": 20, "debounceMs": 0});
    let (mut c, _) = Client::start(json!({}), vscode.clone()).await;
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"litmus": []}}));
    c.notify("workspace/didChangeConfiguration", json!({"settings": vscode}));
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    c.settled(&u, 1).await;
    c.drain();
    assert_eq!(c.shown_messages(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_setting_is_reported_and_the_good_ones_apply() {
    let opts = json!({"litmus": {"models": ["sc", "pso"], "loopBound": "two", "monitor": "sober", "debounceMs": 0}});
    let (mut c, _) = Client::start(json!({}), opts).await;
    let warning = c.next_warning().await;
    assert!(warning.contains("`loopBound` = \"two\": expected a whole number from 0 to 1000; keeping 2"), "{warning}");
    assert!(c.logged("`loopBound`"));
    // The good fields took effect: only SC and PSO are checked.
    let u = uri("mp.litmus");
    c.open(&u, &example("mp.litmus"));
    let diags = c.settled(&u, 1).await;
    assert!(diags.iter().any(|d| is_model_violation(d, "PSO")), "MP is not robust under PSO: {diags:#?}");
    assert!(!diags.iter().any(|d| is_model_violation(d, "TSO")), "TSO was not asked for: {diags:#?}");
    assert_eq!(c.shown_messages().len(), 1, "one warning");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_field_in_a_change_keeps_its_previous_value_and_the_rest_applies() {
    let (mut c, _) = Client::start(json!({}), json!({"models": ["sc", "pso"], "debounceMs": 0})).await;
    let u = uri("mp.litmus");
    c.open(&u, &example("mp.litmus"));
    let diags = c.settled(&u, 1).await;
    assert!(diags.iter().any(|d| is_model_violation(d, "PSO")));
    // Unknown model, unknown monitor, a bad timeout, an unknown field; and
    // one good field (loopBound), which changes the settings: a re-check.
    let change = json!({"models": ["tso", "x86"], "monitor": "herd", "timeout": -1, "modles": ["tso"], "loopBound": 3});
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"litmus": change}}));
    let warning = c.next_warning().await;
    for part in [
        "4 settings not applied",
        "`models` = [\"tso\",\"x86\"]: unknown model `x86` (expected sc, tso, pso, pslo or a model file, FILE.cat); keeping [\"sc\", \"pso\"]",
        "`monitor` = \"herd\": unknown monitor `herd` (expected bss, sober, bss-interleaving or graph); keeping \"bss\"",
        "`timeout` = -1: timeout must be a number of seconds ≥ 0",
        "keeping 20",
        "`modles` = [\"tso\"]: unknown setting",
    ] {
        assert!(warning.contains(part), "{part:?} in {warning}");
    }
    for field in ["`models`", "`monitor`", "`timeout`", "`modles`"] {
        assert!(c.logged(field), "{field} logged");
    }
    c.wait_for("the re-check", |m| m["method"] == "litmus/status" && m["params"]["state"] == "checked").await;
    let diags = c.diagnostics(&u).unwrap();
    assert!(diags.iter().any(|d| is_model_violation(d, "PSO")), "models stay sc, pso: {diags:#?}");
    assert!(!diags.iter().any(|d| is_model_violation(d, "TSO")), "models stay sc, pso: {diags:#?}");
    // A bad field alone changes nothing.
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"models": "tso"}}));
    let warning = c.next_warning().await;
    assert!(warning.contains("`models` = \"tso\": expected an array of model names"), "{warning}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_timeouts_are_reported() {
    let (mut c, _) = Client::start(json!({}), json!({"debounceMs": 0})).await;
    for (value, shown) in [
        (json!(-1), "-1"),
        (json!(-0.5), "-0.5"),
        (json!(1e20), "1e+20"),
        (json!(31_536_001), "31536001"),
        (json!("soon"), "\"soon\""),
        (json!(null), "null"),
        (json!(true), "true"),
    ] {
        c.notify("workspace/didChangeConfiguration", json!({"settings": {"timeout": value}}));
        let warning = c.next_warning().await;
        let expected = format!("`timeout` = {shown}: timeout must be a number of seconds ≥ 0 and ≤ 31536000");
        assert!(warning.contains(&expected) && warning.contains("keeping 20"), "{expected:?} in {warning}");
    }
}

/// A tiny deterministic generator, so a failure replays.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// A random edit as a byte range at char boundaries (never inside a
/// `\r\n`, where no editor puts a cursor) and the text to put there.
fn random_edit(rng: &mut Rng, text: &str) -> (usize, usize, String) {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .filter(|&i| !(i > 0 && text.as_bytes()[i - 1] == b'\r' && text.as_bytes().get(i) == Some(&b'\n')))
        .collect();
    let a = rng.below(bounds.len());
    let b = (a + rng.below(4)).min(bounds.len() - 1);
    let pieces = ["x", " ", ";", "\n", "é", "🙂", "1", "let r9 = y;", "}", "\r\n", "\r", ""];
    (bounds[a], bounds[b], pieces[rng.below(pieces.len())].to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rapid_incremental_edits_lose_nothing_and_publish_nothing_stale() {
    let mut c = Client::default().await;
    let u = uri("edit.litmus");
    let mut text = example("sb.litmus");
    c.open(&u, &text);
    let mut rng = Rng(0x5eed);
    for version in 2..=201 {
        let (a, b, ins) = random_edit(&mut rng, &text);
        let range = json!({"start": lsp_position(&text, a), "end": lsp_position(&text, b)});
        c.change(&u, version, json!([{ "range": range, "text": ins }]));
        text.replace_range(a..b, &ins);
    }
    let diags = c.settled(&u, 201).await;
    assert_eq!(c.text(&u).await, text, "the server's text is the client's");
    // Published versions never go backwards: nothing stale arrives late.
    let versions: Vec<i64> = c.publications(&u).iter().map(|p| p["version"].as_i64().unwrap()).collect();
    assert!(versions.windows(2).all(|w| w[0] <= w[1]), "{versions:?}");
    // Same diagnostics as a fresh open of the final text.
    let fresh = uri("fresh.litmus");
    c.open(&fresh, &text);
    let fresh_diags = c.settled(&fresh, 1).await;
    let strip = |d: &[Value]| serde_json::to_string(d).unwrap().replace(&fresh, &u);
    assert_eq!(strip(&diags), strip(&fresh_diags));
}

/// Minutes of exploration under PSO (tests/programs/long.litmus).
fn slow_program() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/programs/long.litmus")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_never_wait_on_a_long_check_and_an_edit_supersedes_it() {
    let mut c = Client::default().await;
    let u = uri("slow.litmus");
    let slow = slow_program();
    let line = slow.lines().position(|l| l == "shared a = 0;").unwrap() as u32;
    c.open(&u, &slow);
    c.wait_for("the check to start", |m| m["method"] == "litmus/status" && m["params"]["state"] == "checking").await;
    // Hovers answer at once from the analysis while the checker runs.
    for _ in 0..20 {
        let t = std::time::Instant::now();
        let h = c.request("textDocument/hover", at(&u, line, 7)).await.unwrap();
        assert!(h["contents"]["value"].as_str().unwrap().contains("shared a = 0"));
        assert!(t.elapsed() < std::time::Duration::from_millis(500), "hover took {:?}", t.elapsed());
    }
    let lens = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap();
    assert!(lens[0]["command"]["title"].as_str().unwrap().contains('…'), "{lens:#}");
    // The violations come first (harm not yet judged: warnings), long before
    // the relaxed models' explicit exploration ends.
    c.wait_for("the violations", |m| m["method"] == "litmus/status" && m["params"]["state"] == "violations").await;
    let diags = c.diagnostics(&u).unwrap();
    let tso: Vec<&Value> = diags.iter().filter(|d| is_model_violation(d, "TSO")).collect();
    assert!(!tso.is_empty() && tso.iter().all(|d| d["severity"] == 2), "{diags:#?}");
    // Replacing the text cancels the long check; only the new text's results arrive.
    c.replace_all(&u, 2, &example("sb.litmus"));
    let diags = c.settled(&u, 2).await;
    assert!(diags.iter().any(|d| is_model_violation(d, "TSO")));
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    c.drain();
    let last = c.publications(&u).last().cloned().unwrap();
    assert_eq!(last["version"], 2, "nothing from the cancelled check arrives after");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_and_reopen_never_mixes_the_two_texts() {
    let mut c = Client::default().await;
    let u = uri("reopened.litmus");
    // A big second text makes its analysis slower than the first's.
    let mut big = String::from("litmus Big\n");
    for i in 0..3000 {
        big.push_str(&format!("shared v{i} = {i};\n"));
    }
    big.push_str("thread P0 {\n  v0 = 1;\n}\n");
    for round in 0..10 {
        c.open(&u, "litmus Tiny\nshared aaa = 0;\nthread P0 {\n  aaa = 1;\n}\n");
        c.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": "litmus", "version": 7, "text": big}}),
        );
        let symbols = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": u}})).await.unwrap();
        let names: Vec<&str> = symbols.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
        assert!(
            !names.contains(&"aaa") && names.contains(&"v2999"),
            "round {round}: {:?}",
            &names[..3.min(names.len())]
        );
        c.settled(&u, 7).await;
        c.drain();
        let last = c.publications(&u).last().cloned().unwrap();
        assert_eq!(last["version"], 7, "round {round}: the closed text's results come last");
        c.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn absurd_settings_do_not_stall_the_checker() {
    let (mut c, _) = Client::start(json!({}), json!({"timeout": 1e20, "debounceMs": 0})).await;
    assert!(c.next_warning().await.contains("`timeout` = 1e+20"));
    let u = uri("sb.litmus");
    c.open(&u, &example("sb.litmus"));
    let diags = c.settled(&u, 1).await;
    assert!(diags.iter().any(|d| is_model_violation(d, "TSO")));
}
