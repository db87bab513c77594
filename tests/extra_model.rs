//! The checker's test-only fifth model (XTSO: TSO decided by its own
//! executions), declared in `checker/src/model.rs` alone, flows through the
//! CLI: `--help` lists it, `check` reports it in human and JSON output,
//! `fix` fences for it. Built only with `--features extra-model`
//! (scripts/extra-model.sh); without it this file is empty.
#![cfg(feature = "extra-model")]

use std::process::Command;

fn litmus(args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_litmus"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR")))
        .output()
        .expect("runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn help_lists_it_and_check_reports_it() {
    let (help, _) = litmus(&["check", "--help"]);
    assert!(help.contains("sc, tso, pso, pslo, xtso"), "{help}");
    let (human, _) = litmus(&["check", "--model", "sc,xtso", "examples/sb.litmus"]);
    assert!(human.contains("XTSO"), "{human}");
    let (json, _) = litmus(&["check", "--model", "sc,xtso", "--format", "json", "examples/sb.litmus"]);
    let report: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    let xtso = &report["models"]["xtso"];
    assert_eq!(xtso["robust"], false, "{json}");
    assert!(!xtso["violations"].as_array().unwrap().is_empty(), "{json}");
    assert!(!xtso["fences"].as_array().unwrap().is_empty(), "{json}");
}

#[test]
fn fix_fences_for_it() {
    let (out, code) = litmus(&["fix", "--model", "xtso", "examples/sb.litmus"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("fence"), "{out}");
}
