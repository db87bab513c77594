//! End-to-end tests of the `litmus` binary: exit codes and output formats.

use std::path::PathBuf;
use std::process::Command;

fn litmus() -> Command {
    Command::new(env!("CARGO_BIN_EXE_litmus"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("litmus-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn three_mistakes_exit_2_with_three_errors() {
    let p = temp_file(
        "three.litmus",
        "litmus THREE\nshared x = 0;\nshared y = 0;\nthread P0 {\n  x = = 1;\n  let r0 = y;\n}\nthread P1 {\n  y = 1;\n  let r1 = z;\n  fence sideways;\n}\nexists (P0:r0 == 0 && P1:r1 == 0);\n",
    );
    let out = litmus().args(["check", "--color", "never"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("] Error:").count(), 3, "{stderr}");
    assert!(stderr.contains(":5:7"), "{stderr}");
    assert!(stderr.contains(":10:12"), "{stderr}");
    assert!(stderr.contains(":11:9"), "{stderr}");
}

#[test]
fn json_has_one_line_per_file_in_order() {
    let files = [root().join("examples/sb.litmus"), root().join("tests/corpus/herd-x86/doc__iriw.litmus")];
    let out = litmus().args(["check", "--format", "json"]).args(&files).output().unwrap();
    // SB has SC violations under TSO: exit 1.
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["test"], "SB");
    assert_eq!(lines[0]["dialect"], "native");
    assert_eq!(lines[0]["condition"]["quantifier"], "exists");
    assert_eq!(lines[0]["condition"]["text"], "P0:r0 == 0 && P1:r1 == 0");
    assert_eq!(lines[1]["test"], "iriw");
    assert_eq!(lines[1]["dialect"], "herd-x86");
    assert_eq!(lines[1]["condition"]["text"], "0:EAX=1 /\\ 0:EBX=0 /\\ 2:EAX=1 /\\ 2:EBX=0");
}

#[test]
fn json_reports_errors_with_positions() {
    let p = temp_file("bad.litmus", "litmus B\nshared x = 0;\nthread P0 { x = ; }\n");
    let out = litmus().args(["check", "--format", "json"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["line"], 3);
    assert_eq!(d["column"], 17);
}

#[test]
fn unreadable_file_is_a_usage_error() {
    let out = litmus().args(["check", "/nonexistent/file.litmus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn check_answers_per_model_and_exit_status() {
    // SB under SC alone: `exists` never holds, nothing fails: exit 0.
    let sb = root().join("examples/sb.litmus");
    let out = litmus().args(["check", "--model", "sc"]).arg(&sb).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    // Under TSO it has SC violations: exit 1.
    let out = litmus().args(["check", "--format", "json"]).arg(&sb).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["models"]["sc"]["observation"], "never");
    assert_eq!(v["models"]["sc"]["states"], 3);
    assert_eq!(v["models"]["tso"]["observation"], "sometimes");
    assert_eq!(v["models"]["tso"]["states"], 4);
    assert_eq!(v["models"]["pso"]["states"], 4);
    assert_eq!(v["models"]["tso"]["complete"], true);
    let keys: Vec<&str> = v["models"].as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(keys.len(), 3);

    // Peterson: the assertion fails under TSO/PSO only: exit 1.
    let out =
        litmus().args(["check", "--format", "json"]).arg(root().join("examples/peterson.litmus")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["models"]["sc"]["assertion_failures"].as_array().unwrap().len(), 0);
    let f = &v["models"]["tso"]["assertion_failures"];
    assert_eq!(f.as_array().unwrap().len(), 2);
    assert_eq!(f[0]["line"], 19);
    assert_eq!(f[0]["thread"], "P0");
}

#[test]
fn forall_that_fails_under_a_model_exits_1() {
    let spin = root().join("examples/spinlock.litmus");
    let out = litmus().args(["check", "--model", "sc,tso"]).arg(&spin).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let out = litmus().args(["check", "--model", "pso"]).arg(&spin).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn model_option_selects_models_and_rejects_unknown_ones() {
    let sb = root().join("examples/sb.litmus");
    let out = litmus().args(["check", "--format", "json", "--model", "tso"]).arg(&sb).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["models"].as_object().unwrap().len(), 1);
    let out = litmus().args(["check", "--model", "arm"]).arg(&sb).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown model"));
}

#[test]
fn human_output_shows_states_and_a_witness() {
    let out = litmus().args(["check", "--color", "never"]).arg(root().join("examples/sb.litmus")).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("TSO  sometimes (proved)             4 states"), "{text}");
    assert!(text.contains("SC   never (proved)                 3 states"), "{text}");
    assert!(text.contains("* P0:r0=0 P1:r1=0    -  TSO PSO"), "{text}");
    assert!(text.contains("store x = 1 into P0's buffer"), "{text}");
    assert!(text.contains("load y = 0 (initial value)"), "{text}");
}

#[test]
fn bounds_are_reported_never_silently() {
    let out = litmus()
        .args(["check", "--format", "json", "--loop-bound", "1"])
        .arg(root().join("examples/dekker.litmus"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["models"]["sc"]["complete"], false);
    assert_eq!(v["models"]["sc"]["certainty"], "within-bounds");
    assert!(v["models"]["sc"]["bounds_hit"]["loop_bound"].as_u64().unwrap() > 0);
    // A witnessed violation is proved even when the exploration was cut.
    assert_eq!(v["models"]["tso"]["robust"], false);
    assert_eq!(v["models"]["tso"]["robust_certainty"], "proved");
    let out = litmus()
        .args(["check", "--color", "never", "--loop-bound", "1"])
        .arg(root().join("examples/dekker.litmus"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("note: SC's exploration is within bounds: the loop bound cut"), "{text}");
}

#[test]
fn many_files_in_parallel_keep_input_order() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/corpus/herd-x86"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    files.reverse();
    let out = litmus().args(["check", "--format", "json"]).args(&files).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let got: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].as_str().unwrap().to_string())
        .collect();
    let want: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(got, want);
}
