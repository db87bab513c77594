//! Repairs in the editor under the models decided on whole candidates: an
//! AArch64 test and a C11 test (non-ASCII text before the changed
//! statements, so the edits' UTF-16 columns matter) get their violations as
//! diagnostics, a hover with the cycle and the cheapest repair, a quick fix
//! per violation and a source action applying the whole repair; applied,
//! the file is checked again and is clean.

mod harness;

use harness::{apply_edits, edits_for, is_model_violation, uri, Client};
use serde_json::{json, Value};

fn hover_text(h: &Value) -> String {
    h["contents"]["value"].as_str().unwrap_or_default().to_string()
}

/// Open `text`, check its violations under `model`, the hover on the first
/// one, its quick fix's title, and the whole repair's edit; returns the
/// repaired text after checking it clean.
async fn repair(name: &str, model: &str, text: &str, quick: &str, all: &str) -> String {
    let mut c = Client::default().await;
    let u = uri(name);
    c.open(&u, text);
    let diags = c.settled(&u, 1).await;
    let v: Vec<&Value> = diags.iter().filter(|d| is_model_violation(d, model)).collect();
    assert!(!v.is_empty(), "{diags:#?}");
    let h = c
        .request("textDocument/hover", json!({"textDocument": {"uri": u}, "position": v[0]["range"]["start"]}))
        .await
        .unwrap();
    let md = hover_text(&h);
    assert!(md.contains("cycle") && md.contains("cheapest repair") && md.contains("Witness under"), "{md}");
    let mut titles = Vec::new();
    let mut whole = None;
    for d in &v {
        let actions = c
            .request(
                "textDocument/codeAction",
                json!({"textDocument": {"uri": u}, "range": d["range"], "context": {"diagnostics": [d]}}),
            )
            .await
            .unwrap();
        for a in actions.as_array().unwrap() {
            titles.push(a["title"].as_str().unwrap().to_string());
            if a["title"].as_str().unwrap().starts_with("Apply the cheapest repair") {
                whole = Some(a.clone());
            }
        }
    }
    assert!(titles.iter().any(|t| t.starts_with(quick)), "{titles:#?}");
    assert!(titles.iter().any(|t| t == all), "{titles:#?}");
    let whole = whole.unwrap();
    let fixed = apply_edits(text, edits_for(&whole["edit"], &u));
    c.replace_all(&u, 2, &fixed);
    let diags = c.settled(&u, 2).await;
    assert!(!diags.iter().any(|d| is_model_violation(d, model)), "{diags:#?}");
    fixed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aarch64_test_is_repaired_with_stlr_and_ldapr() {
    let mp = "AArch64 MP\n\"message passing — drapeau ≠ données\"\n{\n0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x;\n}\n P0          | P1          ;\n MOV W0,#1   | LDR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3] ;\n MOV W2,#1   |             ;\n STR W2,[X3] |             ;\nexists (1:X0=1 /\\ 1:X2=0)\n";
    let (mut c, u) = (Client::default().await, uri("axiom.aarch64.litmus"));
    c.open(&u, mp);
    let diags = c.settled(&u, 1).await;
    let store = diags.iter().find(|d| d["message"].as_str().unwrap().starts_with("aarch64: `STR W0,[X1]`")).unwrap();
    let h = c
        .request("textDocument/hover", json!({"textDocument": {"uri": u}, "position": store["range"]["start"]}))
        .await
        .unwrap();
    let md = hover_text(&h);
    assert!(md.contains("**Axiom** `external` keeps"), "the hover names the model's axiom: {md}");
    let fixed = repair(
        "mp.aarch64.litmus",
        "aarch64",
        mp,
        "Change `",
        "Apply the cheapest repair under aarch64 (2 changes, cost 3)",
    )
    .await;
    assert!(fixed.contains("STLR W2,[X3]") && fixed.contains("LDAPR W0,[X1]"), "{fixed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_c11_test_is_repaired_with_release_and_acquire() {
    let mp = "C MP\n{ [x] = 0; [y] = 0; }\n\nP0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  /* données ≠ drapeau */ atomic_store_explicit(y, 1, memory_order_relaxed);\n}\n\nP1 (atomic_int* x, atomic_int* y) {\n  /* drapeau → données */ int r0 = atomic_load_explicit(y, memory_order_relaxed);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\nexists (1:r0=1 /\\ 1:r1=0)\n";
    let fixed =
        repair("mp.c11.litmus", "rc11", mp, "Change `", "Apply the cheapest repair under rc11 (2 changes, cost 2)")
            .await;
    assert!(
        fixed.contains("/* données ≠ drapeau */ atomic_store_explicit(y, 1, memory_order_release);")
            && fixed.contains("/* drapeau → données */ int r0 = atomic_load_explicit(y, memory_order_acquire);"),
        "{fixed}"
    );
}

/// The native dialect with memory orders: checked under RC11 by default,
/// its race on the plain location a diagnostic on both statements, the
/// repair written as `@order`s (the UTF-16 columns after `é`, `→`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_program_with_orders_is_repaired_and_its_race_shown() {
    let mp = "litmus MP \"drapeau → données\"\n\nshared données = 0;\natomic drapeau = 0;\n\nthread P0 {\n  données = 1; /* é */ drapeau@relaxed = 1;\n}\n\nthread P1 {\n  let r0 = drapeau@relaxed; /* → */ let r1 = données;\n}\n\nexists (P1:r0 == 1 && P1:r1 == 0);\n";
    let (mut c, u) = (Client::default().await, uri("race.litmus"));
    c.open(&u, mp);
    let diags = c.settled(&u, 1).await;
    let race = diags.iter().find(|d| d["code"] == "E0306").unwrap_or_else(|| panic!("{diags:#?}"));
    assert!(race["message"]
        .as_str()
        .unwrap()
        .starts_with("rc11: `données = 1` (P0) races with `let r1 = données` (P1)"));
    // On the store, and the load as related, at its UTF-16 column (after `→`).
    assert_eq!(race["range"]["start"], json!({"line": 6, "character": 2}));
    let other = &race["relatedInformation"][0]["location"]["range"]["start"];
    assert_eq!(*other, json!({"line": 10, "character": 36}), "{race:#?}");
    let fixed =
        repair("mp.native.litmus", "rc11", mp, "Change `", "Apply the cheapest repair under rc11 (2 changes, cost 2)")
            .await;
    assert!(
        fixed.contains("/* é */ drapeau@release = 1;") && fixed.contains("let r0 = drapeau@acquire; /* → */"),
        "{fixed}"
    );
}

/// herd7's "Forbidden", said why, on the final condition: the axiom a
/// candidate reaching it fails, with its cycle in the model's relations.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forbidden_condition_names_its_axiom_in_the_hover() {
    let mp = "AArch64 MP+dmb.st+ldar\n\"données ≠ drapeau\"\n{\n0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x;\n}\n P0          | P1           ;\n MOV W0,#1   | LDAR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3]  ;\n DMB ISHST   |              ;\n MOV W2,#1   |              ;\n STR W2,[X3] |              ;\nexists (1:X0=1 /\\ 1:X2=0)\n";
    let (mut c, u) = (Client::default().await, uri("forbidden.aarch64.litmus"));
    c.open(&u, mp);
    c.settled(&u, 1).await;
    let line = mp.lines().position(|l| l.starts_with("exists")).unwrap();
    let h = c
        .request("textDocument/hover", json!({"textDocument": {"uri": u}, "position": {"line": line, "character": 3}}))
        .await
        .unwrap();
    let md = hover_text(&h);
    assert!(md.contains("**Forbidden under aarch64**"), "{md}");
    assert!(
        md.contains("**Axiom** `external` (irreflexive ob): ① P0 `STR W0,[X1]` —bob→ ② P0 `STR W2,[X3]` —rf→"),
        "{md}"
    );
}

/// Two models decided on whole candidates: the source action applies one
/// repair for both (each model's own might leave the other's violations),
/// and the repaired file is clean under both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_candidate_models_get_one_repair_for_both() {
    let sb = "litmus SB \"é → ü\"\n\natomic x, y;\n\nthread P0 {\n  x@relaxed = 1; /* é */ let r0 = y@relaxed;\n}\n\nthread P1 {\n  y@relaxed = 1; /* ü */ let r1 = x@relaxed;\n}\n\nexists (P0:r0 == 0 && P1:r1 == 0);\n";
    let (mut c, _) = Client::start(json!({}), json!({"models": ["rc11", "rc11.cat"], "debounceMs": 0})).await;
    let u = uri("joint.litmus");
    c.open(&u, sb);
    let diags = c.settled(&u, 1).await;
    let v: Vec<&Value> = diags.iter().filter(|d| is_model_violation(d, "rc11")).collect();
    assert!(!v.is_empty(), "{diags:#?}");
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": v[0]["range"], "context": {"diagnostics": [v[0]]}}),
        )
        .await
        .unwrap();
    let titles: Vec<&str> = actions.as_array().unwrap().iter().map(|a| a["title"].as_str().unwrap()).collect();
    let whole = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Apply the cheapest repair under rc11, rc11.cat (2 changes, cost 8)")
        .unwrap_or_else(|| panic!("{titles:#?}"));
    let fixed = apply_edits(sb, edits_for(&whole["edit"], &u));
    c.replace_all(&u, 2, &fixed);
    let diags = c.settled(&u, 2).await;
    assert!(
        !diags.iter().any(|d| is_model_violation(d, "rc11") || is_model_violation(d, "rc11.cat")),
        "{fixed}\n{diags:#?}"
    );
}
