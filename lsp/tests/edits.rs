//! Results stay through edits: an edit that leaves the program as it was
//! (a comment, spacing) is answered by the last check at the new positions,
//! with no new check; any other edit keeps the last check's findings (moved
//! with the edit) until the new ones arrive, also through a syntax error.

mod harness;

use harness::{apply_edits, example, uri, Client};
use serde_json::{json, Value};

fn lines_of(diags: &[Value], code: &str) -> Vec<u64> {
    let mut v: Vec<u64> =
        diags.iter().filter(|d| d["code"] == code).map(|d| d["range"]["start"]["line"].as_u64().unwrap()).collect();
    v.sort_unstable();
    v
}

/// The states `litmus/status` reported for `version`, in order.
fn states(c: &Client, u: &str, version: i64) -> Vec<String> {
    c.log
        .iter()
        .filter(|m| m["method"] == "litmus/status" && m["params"]["uri"] == u && m["params"]["version"] == version)
        .map(|m| m["params"]["state"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comment_edit_is_answered_by_the_last_check_without_checking_again() {
    let (mut c, _) = Client::start(json!({}), json!({"debounceMs": 0})).await;
    let u = uri("sb.litmus");
    let sb = example("sb.litmus");
    c.open(&u, &sb);
    let before = c.settled(&u, 1).await;
    let stores = lines_of(&before, "E0400");
    assert!(!stores.is_empty());
    // A comment line above everything, and spaces inside a statement.
    let edited = format!("// a note\n{}", sb.replacen("x = 1;", "x   =   1;", 1));
    c.replace_all(&u, 2, &edited);
    let after = c.settled(&u, 2).await;
    assert_eq!(states(&c, &u, 2), ["checked"], "no new check: {:#?}", states(&c, &u, 2));
    // The same findings, one line down.
    assert_eq!(lines_of(&after, "E0400"), stores.iter().map(|l| l + 1).collect::<Vec<_>>());
    assert_eq!(before.len(), after.len());
    // A real change is checked again.
    c.replace_all(&u, 3, &edited.replacen("x   =   1;", "x = 2;", 1));
    c.settled(&u, 3).await;
    assert!(states(&c, &u, 3).contains(&"checking".to_string()), "{:#?}", states(&c, &u, 3));
    // Undone (the text of version 1 again): its check answers, none runs.
    c.replace_all(&u, 4, &sb);
    let undone = c.settled(&u, 4).await;
    assert_eq!(states(&c, &u, 4), ["checked"], "an undo is not checked again: {:#?}", states(&c, &u, 4));
    assert_eq!(lines_of(&undone, "E0400"), stores);
    // Re-check is the way to ask for a new check of the same text.
    c.request("workspace/executeCommand", json!({"command": "litmus.server.recheck", "arguments": [u]})).await.unwrap();
    c.wait_for("a re-check", |m| m["method"] == "litmus/status" && m["params"]["state"] == "checking").await;
}

/// Format Document changes layout only: the formatter's text lowers to the
/// same program, so the last check answers it, its findings moved to the
/// new lines, and nothing is checked again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn formatting_keeps_the_results_without_checking_again() {
    let (mut c, _) = Client::start(json!({}), json!({"debounceMs": 0})).await;
    let u = uri("sb.litmus");
    // SB squeezed onto few lines: each thread on one.
    let messy = example("sb.litmus")
        .replace("thread P0 {\n  x = 1;\n  let r0 = y;\n}", "thread P0 { x=1; let r0=y; }")
        .replace("thread P1 {\n  y = 1;\n  let r1 = x;\n}", "thread P1 { y=1; let r1=x; }");
    assert!(messy.contains("thread P0 { x=1;"), "{messy}");
    c.open(&u, &messy);
    let before = c.settled(&u, 1).await;
    // The violations proper (errors and warnings), not their cycle members.
    let on_stores = |d: &[Value]| {
        let mut v: Vec<u64> = d
            .iter()
            .filter(|d| d["code"] == "E0400" && d["severity"].as_u64() <= Some(2))
            .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(on_stores(&before).len(), 2, "{before:#?}");
    let opts = json!({"textDocument": {"uri": u}, "options": {"tabSize": 2, "insertSpaces": true}});
    let edits = c.request("textDocument/formatting", opts).await.unwrap();
    let formatted = apply_edits(&messy, edits.as_array().unwrap());
    assert!(formatted.contains("thread P0 {\n  x = 1;\n  let r0 = y;\n}"), "{formatted}");
    c.replace_all(&u, 2, &formatted);
    let after = c.settled(&u, 2).await;
    assert_eq!(states(&c, &u, 2), ["checked"], "no new check: {:#?}", states(&c, &u, 2));
    // The same findings, each on its store's new line.
    let store_lines: Vec<u64> = formatted
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == "x = 1;" || l.trim() == "y = 1;")
        .map(|(i, _)| i as u64)
        .collect();
    assert_eq!(on_stores(&after), store_lines);
    assert_eq!(before.len(), after.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_findings_stay_until_new_ones_arrive_and_through_a_syntax_error() {
    // A long debounce: what is published before the new check is what the
    // user sees while it runs.
    let (mut c, _) = Client::start(json!({}), json!({"debounceMs": 300})).await;
    let u = uri("sb.litmus");
    let sb = example("sb.litmus");
    c.open(&u, &sb);
    let before = c.settled(&u, 1).await;
    let stores = lines_of(&before, "E0400");
    // A new statement at the end of P1 (the program changes): the first
    // publication for version 2 still has the violations, where they were.
    let lenses = |l: &Value| -> Vec<String> {
        l.as_array().unwrap().iter().map(|x| x["command"]["title"].as_str().unwrap().to_string()).collect()
    };
    let rows = lenses(&c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap());
    let changed = sb.replacen("  let r1 = x;", "  let r1 = x;\n  let r9 = y;", 1);
    c.replace_all(&u, 2, &changed);
    // While it is checked again, the lens rows stay (the file does not jump),
    // the header saying they are outdated.
    let during = lenses(&c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).await.unwrap());
    assert_eq!(during.len(), rows.len(), "{during:#?} vs {rows:#?}");
    assert_eq!(during[0], format!("{} (outdated: re-checking…)", rows[0]));
    assert_eq!(during[1..], rows[1..]);
    c.settled(&u, 2).await;
    let pubs = c.publications(&u);
    let first = pubs.iter().find(|p| p["version"] == 2).expect("published")["diagnostics"].as_array().unwrap().clone();
    assert_eq!(lines_of(&first, "E0400")[..2], stores[..2], "kept while checking: {first:#?}");
    // A syntax error: its diagnostic, and the violations still there.
    let broken = changed.replacen("let r9 = y;", "let r9 = ;", 1);
    c.replace_all(&u, 3, &broken);
    let d3 = c.settled(&u, 3).await;
    assert!(d3.iter().any(|d| d["severity"] == 1 && d["code"].as_str().unwrap().starts_with("E00")), "{d3:#?}");
    assert_eq!(lines_of(&d3, "E0400")[..2], stores[..2], "kept through the syntax error: {d3:#?}");
    // Fixed again: the new check's own findings.
    c.replace_all(&u, 4, &changed);
    let d4 = c.settled(&u, 4).await;
    assert!(!d4.iter().any(|d| d["code"].as_str().unwrap().starts_with("E00")), "{d4:#?}");
    assert_eq!(lines_of(&d4, "E0400")[..2], stores[..2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_name_with_a_close_one_gets_a_quick_fix() {
    // "unknown name `qy` — did you mean `y`?" as an edit, though the error
    // stops the check.
    let (mut c, _) = Client::start(json!({}), json!({"debounceMs": 0})).await;
    let u = uri("typo.litmus");
    let text = "litmus Typo\nshared y = 0;\nthread P0 {\n  let r = qy;\n}\n";
    c.open(&u, text);
    let diags = c.settled(&u, 1).await;
    let d =
        diags.iter().find(|d| d["message"].as_str().unwrap().contains("unknown name `qy`")).expect("the error").clone();
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": d["range"], "context": {"diagnostics": [d]}}),
        )
        .await
        .unwrap();
    let a = &actions.as_array().unwrap()[0];
    assert_eq!(a["title"], "Replace `qy` with `y`", "{actions:#}");
    assert_eq!(a["kind"], "quickfix");
    assert_eq!(a["isPreferred"], true);
    assert_eq!(a["diagnostics"][0]["message"], d["message"]);
    let fixed = harness::apply_edits(text, harness::edits_for(&a["edit"], &u));
    assert_eq!(fixed, text.replace("qy", "y"));
    c.replace_all(&u, 2, &fixed);
    assert!(c.settled(&u, 2).await.iter().all(|d| d["severity"] != 1));
}
