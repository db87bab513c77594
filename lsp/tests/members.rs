//! Every statement of a violation's cycle carries a diagnostic: the delayed
//! store its finding (error when harmful, warning otherwise), the others
//! their role in the cycle (setting `cycleMembers`: information, hint or
//! off; a bad value reported), all with the code of the registry and a
//! `codeDescription` link into `docs/codes.md`. SB under TSO marks all four
//! statements; a fence on a po edge of the cycle is no member; ranges count
//! UTF-16 code units after non-ASCII text.

mod harness;

use harness::{example, is_model_violation, uri, Client};
use serde_json::{json, Value};

/// The diagnostics of the cycle members (not the delayed stores' findings).
fn members(diags: &[Value]) -> Vec<&Value> {
    diags.iter().filter(|d| d["code"] == "E0400" && d["message"].as_str().unwrap().contains("part of the")).collect()
}

fn start_line(d: &Value) -> u64 {
    d["range"]["start"]["line"].as_u64().unwrap()
}

/// SB under TSO alone, with `settings` besides.
async fn sb(text: &str, settings: Value) -> (Client, Vec<Value>) {
    let mut opts = json!({"models": ["tso"], "debounceMs": 0});
    opts.as_object_mut().unwrap().extend(settings.as_object().unwrap().clone());
    let (mut c, _) = Client::start(json!({}), opts).await;
    let u = uri("sb.litmus");
    c.open(&u, text);
    let diags = c.settled(&u, 1).await;
    (c, diags)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_four_statements_of_the_sb_cycle_carry_a_diagnostic() {
    let (_c, diags) = sb(&example("sb.litmus"), json!({})).await;
    let stores: Vec<&Value> = diags.iter().filter(|d| is_model_violation(d, "TSO")).collect();
    assert_eq!(stores.iter().map(|d| start_line(d)).collect::<Vec<_>>(), [7, 12], "{diags:#?}");
    // The condition makes them harmful: errors.
    assert!(stores.iter().all(|d| d["severity"] == 1 && d["code"] == "E0400"), "{stores:#?}");
    // Both violations have the same cycle: it is shown once, from line 8
    // (the first violation's store), on its three other statements.
    let m = members(&diags);
    assert_eq!(m.iter().map(|d| start_line(d)).collect::<Vec<_>>(), [8, 12, 13], "{m:#?}");
    let messages: Vec<&str> = m.iter().map(|d| d["message"].as_str().unwrap()).collect();
    assert_eq!(
        messages,
        [
            "reads y before P1's `y = 1` overwrites it — part of the TSO cycle of line 8",
            "writes y after P0's `let r0 = y` read the old value — part of the TSO cycle of line 8",
            "reads x before P0's `x = 1` overwrites it — part of the TSO cycle of line 8",
        ]
    );
    for d in &m {
        // Hints by default: the Problems panel lists each cycle once, on
        // its store (71 problems for 9 small files before).
        assert_eq!(d["severity"], 4, "hint by default: {d:#}");
        // The whole cycle as related information, from the delayed store.
        let related: Vec<u64> = d["relatedInformation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["location"]["range"]["start"]["line"].as_u64().unwrap())
            .collect();
        assert_eq!(related, [7, 8, 12, 13], "{d:#}");
        assert!(d["relatedInformation"][1]["message"].as_str().unwrap().contains("`let r0 = y` —fr→ `y = 1`"));
    }
    // Each code links to its section of docs/codes.md, which exists.
    for d in &diags {
        let href = d["codeDescription"]["href"].as_str().unwrap_or_else(|| panic!("no link: {d:#}"));
        let anchor = d["code"].as_str().unwrap().to_ascii_lowercase();
        assert!(href.starts_with("file:///") && href.ends_with(&format!("codes.md#{anchor}")), "{href}");
        let path = href.trim_start_matches("file://").split('#').next().unwrap();
        let doc = std::fs::read_to_string(path).unwrap();
        assert!(doc.contains(&format!("<a id=\"{anchor}\"></a>")), "{anchor} in {path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_benign_violation_is_a_warning_and_its_members_still_shown() {
    // No condition and nothing that can fail: every violation is benign.
    let text = example("sb.litmus").replace("exists (P0:r0 == 0 && P1:r1 == 0);", "");
    let (_c, diags) = sb(&text, json!({})).await;
    let stores: Vec<&Value> = diags.iter().filter(|d| is_model_violation(d, "TSO")).collect();
    assert_eq!(stores.len(), 2, "{diags:#?}");
    assert!(stores.iter().all(|d| d["severity"] == 2 && d["message"].as_str().unwrap().contains("benign")));
    assert_eq!(members(&diags).len(), 3, "{diags:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_setting_chooses_information_hint_or_off() {
    let (mut c, diags) = sb(&example("sb.litmus"), json!({"cycleMembers": "information"})).await;
    let m = members(&diags);
    assert_eq!(m.len(), 3, "{diags:#?}");
    assert!(m.iter().all(|d| d["severity"] == 3), "{m:#?}");
    // Switched off by a settings change: a re-check without them.
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"litmus": {"cycleMembers": "off"}}}));
    c.wait_for("a re-check", |m| m["method"] == "litmus/status" && m["params"]["state"] == "checked").await;
    let diags = c.diagnostics(&uri("sb.litmus")).unwrap();
    assert!(members(&diags).is_empty(), "{diags:#?}");
    assert_eq!(diags.iter().filter(|d| d["code"] == "E0400").count(), 2, "the stores' findings stay: {diags:#?}");
    // A bad value is reported and keeps "off".
    c.notify("workspace/didChangeConfiguration", json!({"settings": {"litmus": {"cycleMembers": "loud"}}}));
    let warning = c.next_warning().await;
    assert!(
        warning.contains("`cycleMembers` = \"loud\": expected \"hint\", \"information\" or \"off\"; keeping \"off\""),
        "{warning}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn member_ranges_count_utf16_code_units_after_non_ascii_text() {
    let prefix = "/* é🙂 */ ";
    let text = example("sb.litmus").replace("  let r1 = x;", &format!("  {prefix}let r1 = x;"));
    let (_c, diags) = sb(&text, json!({})).await;
    let m = members(&diags);
    let r1 = m.iter().find(|d| start_line(d) == 13).unwrap_or_else(|| panic!("{m:#?}"));
    let start = 2 + prefix.encode_utf16().count() as u64;
    let len = "let r1 = x;".len() as u64;
    assert_eq!(r1["range"]["start"]["character"], start, "{r1:#}");
    assert_eq!(r1["range"]["end"]["character"], start + len, "{r1:#}");
    // Its related location for the same statement agrees.
    let rel = &r1["relatedInformation"][3]["location"]["range"];
    assert_eq!(rel["start"]["character"], start, "{r1:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fence_on_a_po_edge_of_the_cycle_is_not_a_member() {
    // SB after the quick fix on P0's store: P1's violation remains and its
    // cycle runs through P0's `x = 1` and `let r0 = y`, past the fence that
    // orders them. The fence takes no part in it: no diagnostic there, and
    // it is not a step of the cycle (related information).
    let text = example("sb.litmus").replacen("  x = 1;\n", "  x = 1;\n  fence wr;\n", 1);
    let fence_line = text.lines().position(|l| l.trim() == "fence wr;").unwrap() as u64;
    let (_c, diags) = sb(&text, json!({})).await;
    assert!(diags.iter().all(|d| start_line(d) != fence_line), "{diags:#?}");
    let m = members(&diags);
    // In cycle order from P1's delayed store (line 14, 0-based 13).
    assert_eq!(m.iter().map(|d| start_line(d)).collect::<Vec<_>>(), [14, 7, 9], "{m:#?}");
    assert_eq!(
        m[1]["message"],
        "writes x after P1's `let r1 = x` read the old value — part of the TSO cycle of line 14"
    );
    for d in &m {
        let related = d["relatedInformation"].as_array().unwrap();
        assert!(related.iter().all(|r| r["location"]["range"]["start"]["line"] != fence_line), "{d:#}");
        // P0's po edge now goes straight from the store to the load.
        assert!(related.iter().any(|r| r["message"].as_str().unwrap().contains("`x = 1` —po→ `let r0 = y`")), "{d:#}");
    }
}

/// Under TSO and PSO together, every statement carries one diagnostic per
/// finding: a violation found under both models is one diagnostic naming
/// both, and a statement in many cycles is one member naming them all
/// (slow.litmus: 23 violations per model, cycles through every line; it
/// showed 58 warnings and 84 infos, now 29 and 23).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_diagnostic_per_statement_and_finding_under_both_models() {
    let slow = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/programs/slow.litmus")).unwrap();
    for (name, text) in [("sb.litmus", example("sb.litmus")), ("slow.litmus", slow)] {
        let (mut c, _) = Client::start(json!({}), json!({"models": ["sc", "tso", "pso"], "debounceMs": 0})).await;
        let u = uri(name);
        c.open(&u, &text);
        let diags = c.settled(&u, 1).await;
        let mut seen = std::collections::BTreeSet::new();
        for d in &diags {
            // The finding: its statement, code and what it says past the
            // models it names ("TSO: …" and "PSO: …" are one finding).
            let m = d["message"].as_str().unwrap();
            let said =
                m.split_once(": ").filter(|(ms, _)| ms.split(", ").all(|x| x.len() <= 4 && x == x.to_uppercase()));
            let key = (
                start_line(d),
                d["range"]["start"]["character"].as_u64(),
                d["code"].to_string(),
                said.map_or(m, |(_, rest)| rest).to_string(),
            );
            assert!(seen.insert(key), "{name}: two diagnostics for one statement and finding: {d:#}\n{diags:#?}");
        }
        // A statement in many cycles is one member diagnostic.
        let mut at = std::collections::BTreeSet::new();
        for d in members(&diags) {
            assert!(at.insert(start_line(d)), "{name}: a second member diagnostic on a statement: {d:#}");
        }
        let stores: Vec<&Value> =
            diags.iter().filter(|d| d["code"] == "E0400" && members(std::slice::from_ref(*d)).is_empty()).collect();
        assert!(!stores.is_empty(), "{name}: {diags:#?}");
        for d in &stores {
            let m = d["message"].as_str().unwrap();
            assert!(m.starts_with("TSO, PSO: "), "{name}: both models named: {m}");
            // A violation of each model stands behind it, for the quick fix.
            let models: std::collections::BTreeSet<u64> =
                d["data"]["violations"].as_array().unwrap().iter().map(|v| v[0].as_u64().unwrap()).collect();
            assert_eq!(models.len(), 2, "{name}: {d:#}");
        }
    }
}
