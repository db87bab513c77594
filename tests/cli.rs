//! End-to-end tests of the `litmus` binary: exit codes (0/1/2/3) and output
//! formats (human, JSON lines in input order, positions of bad input).
//! `check`: honest answers on cut-short runs (`--timeout`, the loop bound,
//! `--first`; one deadline for every phase), bounds reported, invalid
//! timeouts, non-UTF-8 input, division by zero in a condition, `reads` in
//! JSON, `--threads 1` and `--threads 4` printing the same; active testing;
//! PSLO; `fix` confirming nothing unearned; `explain` (steps, `--svg`,
//! `--dot`, `--history`); `history` (verdicts, methods, JSON, limits, the
//! example histories' expected verdicts); `run` and `--record`; and the real
//! `litmus lsp` giving a finding the same code as `litmus check`.

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
    let lines = reports(&out.stdout);
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
    let v: serde_json::Value = report(&out.stdout);
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
    let v: serde_json::Value = report(&out.stdout);
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
    let v: serde_json::Value = report(&out.stdout);
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

/// A `forall` SC itself breaks is the program's own bug: E0305 on the
/// condition with SC's interleaving, and `explain --condition` tells and
/// draws it (issue 44: the spinlock that releases before its last write).
#[test]
fn a_condition_sc_breaks_is_an_error_with_its_interleaving() {
    let f = root().join("examples/spinlock-early-release.litmus");
    let out = litmus().arg("check").arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("[E0305]") && text.contains("`forall (data == 2)` fails under SC"), "{text}");
    assert!(text.contains("witness under SC:") && text.contains("explain"), "{text}");
    let out = litmus().args(["explain", "--condition"]).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let told = String::from_utf8_lossy(&out.stdout);
    assert!(told.contains("witness under SC") && told.contains("final state: data = 1"), "{told}");
    let out = litmus().args(["explain", "--condition", "--svg"]).arg(&f).output().unwrap();
    let svg = String::from_utf8_lossy(&out.stdout);
    assert!(svg.starts_with("<svg") && svg.contains("data-model=\"SC\""), "{svg}");
    // An `exists` is a question: nothing breaks it.
    let out = litmus().args(["explain", "--condition"]).arg(root().join("examples/sb.litmus")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a question"));
}

#[test]
fn model_option_selects_models_and_rejects_unknown_ones() {
    let sb = root().join("examples/sb.litmus");
    let out = litmus().args(["check", "--format", "json", "--model", "tso"]).arg(&sb).output().unwrap();
    let v: serde_json::Value = report(&out.stdout);
    assert_eq!(v["models"].as_object().unwrap().len(), 1);
    let out = litmus().args(["check", "--model", "arm"]).arg(&sb).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown model"));
}

#[test]
fn a_herd_x86_test_is_checked_under_its_architectures_model_unless_asked() {
    // MP is forbidden on x86: by default SC and TSO, clean (no PSO error and
    // no MFENCE "fix" no x86 CPU needs); PSO when named. A native program
    // keeps SC, TSO and PSO.
    let mp = root().join("tests/corpus/herd-x86/catalogue__x86_64__tests__MP.litmus");
    let models = |args: &[&str], f: &std::path::Path| {
        let out = litmus().args(["check", "--format", "json"]).args(args).arg(f).output().unwrap();
        let v = report(&out.stdout);
        (out.status.code(), v["models"].as_object().unwrap().keys().cloned().collect::<Vec<_>>())
    };
    assert_eq!(models(&[], &mp), (Some(0), vec!["sc".to_string(), "tso".to_string()]));
    assert_eq!(models(&["--model", "sc,tso,pso"], &mp).0, Some(1), "MP is not robust under PSO");
    let sb = root().join("examples/sb.litmus");
    assert_eq!(models(&[], &sb).1, ["pso", "sc", "tso"]);
    // `fix` and `explain` number and fence over the same defaults.
    let out = litmus().args(["fix"]).arg(&mp).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("MFENCE"), "{}", String::from_utf8_lossy(&out.stderr));
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
    // The bounded engine alone (the unbounded procedure proves Dekker's SC
    // answers for every iteration: `the_unbounded_procedure_proves_what_bounds_cut`).
    let out = litmus()
        .args(["check", "--bounded", "--format", "json", "--loop-bound", "1"])
        .arg(root().join("examples/dekker.litmus"))
        .output()
        .unwrap();
    let v: serde_json::Value = report(&out.stdout);
    assert_eq!(v["models"]["sc"]["complete"], false);
    assert_eq!(v["models"]["sc"]["certainty"], "within-bounds");
    assert!(v["models"]["sc"]["bounds_hit"]["loop_bound"].as_u64().unwrap() > 0);
    // A witnessed violation is proved even when the exploration was cut.
    assert_eq!(v["models"]["tso"]["robust"], false);
    assert_eq!(v["models"]["tso"]["robust_certainty"], "proved");
    let out = litmus()
        .args(["check", "--bounded", "--color", "never", "--loop-bound", "1"])
        .arg(root().join("examples/dekker.litmus"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("note: SC's exploration is within bounds: the loop bound cut"), "{text}");
}

#[test]
fn the_unbounded_procedure_proves_what_bounds_cut() {
    // Dekker's wait loops can spin for ever: the bounded engine cuts them
    // at any bound, the stateful search closes them.
    let dekker = root().join("examples/dekker.litmus");
    let v = json_of(&litmus().args(["check", "--format", "json", "--loop-bound", "1"]).arg(&dekker).output().unwrap());
    let sc = &v["models"]["sc"];
    assert_eq!(
        (&sc["certainty"], &sc["complete"], &sc["iterations"]),
        (&"proved".into(), &true.into(), &"every".into())
    );
    assert!(sc["states_explored"].as_u64().unwrap() > 0);
    // A violation found by an attack is proved, its witness replayed.
    let tso = &v["models"]["tso"];
    assert_eq!((&tso["robust"], &tso["robust_certainty"]), (&false.into(), &"proved".into()));
    // The bug behind a loop that needs three iterations (see LATE): out of
    // reach of the default loop bound, found for every iteration.
    let late = temp_file("late-unbounded.litmus", LATE);
    let out = litmus().args(["check", "--format", "json"]).arg(&late).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    let tso = &v["models"]["tso"];
    assert_eq!((&tso["robust"], &tso["robust_certainty"]), (&false.into(), &"proved".into()));
    assert_eq!(v["models"]["sc"]["observation"], "never");
    assert_eq!(v["models"]["sc"]["observation_certainty"], "proved");
    let text = String::from_utf8(
        litmus().args(["check", "--color", "never", "--model", "sc"]).arg(&late).output().unwrap().stdout,
    )
    .unwrap();
    assert!(text.contains("proved for every iteration]"), "{text}");
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
    let got: Vec<String> = reports(&out.stdout).iter().map(|v| v["file"].as_str().unwrap().to_string()).collect();
    let want: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(got, want);
}

/// The JSON of a one-file run: `check`'s file object (before its summary
/// line), or the one object `history`, `run` and `explain` print.
fn json_of(out: &std::process::Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    if text.lines().last().is_some_and(|l| l.starts_with("{\"summary\"")) {
        return report(&out.stdout);
    }
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The file objects of a `check --format json` output, whose last line is the summary.
fn reports(stdout: &[u8]) -> Vec<serde_json::Value> {
    let text = String::from_utf8_lossy(stdout);
    let mut lines: Vec<serde_json::Value> =
        text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
    let summary = lines.pop().unwrap_or_else(|| panic!("no output"));
    assert!(summary.get("summary").is_some(), "the last line is the summary: {summary}");
    assert_eq!(summary["summary"]["files"], lines.len(), "the summary counts every file");
    lines
}

/// The one file object of a `check --format json` output.
fn report(stdout: &[u8]) -> serde_json::Value {
    let mut r = reports(stdout);
    assert_eq!(r.len(), 1, "one file");
    r.pop().unwrap()
}

#[test]
fn a_timed_out_check_is_unknown_never_robust_or_never() {
    let sb = root().join("examples/sb.litmus");
    let out = litmus().args(["check", "--timeout", "0.000001", "--format", "json"]).arg(&sb).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "nothing found, answer unknown");
    let v = json_of(&out);
    for (m, o) in v["models"].as_object().unwrap() {
        assert!(o.get("robust").is_none(), "{m}: {o}");
        assert!(o.get("observation").is_none(), "{m}: {o}");
        assert_eq!(o["observation_certainty"], "unknown", "{m}");
        assert_eq!(o["certainty"], "unknown", "{m}");
        assert_eq!(o["unknown_reason"], "timeout", "{m}");
        assert!(o.get("fences_confirmed").is_none(), "{m}: {o}");
    }
    let out = litmus().args(["check", "--timeout", "0.000001", "--color", "never"]).arg(&sb).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("robust (") && !text.contains("never ("), "{text}");
    assert!(!text.contains("satisfies the condition"), "{text}");
    assert!(text.contains("unknown (timed out)"), "{text}");
}

#[test]
fn fix_confirms_nothing_a_cut_short_check_did_not_earn() {
    let f = root().join("examples/lamport-fast.litmus");
    let out = litmus().args(["fix", "--timeout", "0.00001"]).arg(&f).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(out.stdout.is_empty(), "no unconfirmed fix is printed");
    assert!(!stderr.contains("re-checked: robust") && !stderr.contains("already robust"), "{stderr}");
    // Uncut, the same file gets its eight fences, confirmed.
    let out = litmus().arg("fix").arg(&f).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("8 fences — re-checked: robust (proved)"), "{stderr}");
}

/// SB behind a loop that needs three iterations: at the default loop bound
/// of 2 the violations are out of reach.
const LATE: &str = "litmus Late\nshared x = 0;\nshared y = 0;\n\
    thread P0 {\n  let i = 0;\n  while (i < 3) { i = i + 1; }\n  x = 1;\n  let r0 = y;\n}\n\
    thread P1 {\n  y = 1;\n  let r1 = x;\n}\nexists (P0:r0 == 0 && P1:r1 == 0);\n";

#[test]
fn a_bug_beyond_the_loop_bound_is_robust_within_bounds_only() {
    // The bounded engine alone (`--bounded`); the unbounded procedure finds it
    // (`the_unbounded_procedure_proves_what_bounds_cut`).
    let p = temp_file("late.litmus", LATE);
    let out = litmus().args(["fix", "--bounded"]).arg(&p).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("robust within bounds only: the loop bound cut"), "{stderr}");
    assert!(!stderr.contains("already robust"), "{stderr}");
    let v = json_of(&litmus().args(["check", "--bounded", "--format", "json"]).arg(&p).output().unwrap());
    let tso = &v["models"]["tso"];
    assert_eq!(tso["robust"], true);
    assert_eq!(tso["robust_certainty"], "within-bounds");
    assert!(tso["robust_note"].as_str().unwrap().contains("the loop bound cut"));
    // No run reaches the end: its own answer, not `never`.
    assert_eq!(v["models"]["sc"]["observation"], "no final states");
    assert_eq!(v["models"]["sc"]["observation_certainty"], "within-bounds");
    // One more iteration and the SB violations appear, and get fenced.
    let out = litmus().args(["fix", "--bounded", "--loop-bound", "3"]).arg(&p).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("2 fences — re-checked: robust (proved)"), "{stderr}");
}

#[test]
fn a_forall_whose_runs_are_all_cut_does_not_fail() {
    let p = temp_file(
        "allcut.litmus",
        "litmus AllCut\nshared x = 0;\nthread P0 {\n  let i = 0;\n  while (i < 5) { i = i + 1; }\n  x = 1;\n}\nforall (x == 1);\n",
    );
    let out = litmus().args(["check", "--bounded", "--format", "json"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "no witness, no finding");
    let v = json_of(&out);
    for (m, o) in v["models"].as_object().unwrap() {
        assert_eq!(o["observation"], "no final states", "{m}");
        assert_eq!(o["states"], 0, "{m}");
    }
    // Without the bound, every run ends: the condition always holds, proved.
    let v = json_of(&litmus().args(["check", "--format", "json"]).arg(&p).output().unwrap());
    for (m, o) in v["models"].as_object().unwrap() {
        assert_eq!((&o["observation"], &o["observation_certainty"]), (&"always".into(), &"proved".into()), "{m}");
        assert_eq!(o["iterations"], "every", "{m}");
    }
}

#[test]
fn one_deadline_for_every_phase() {
    let slow = root().join("tests/programs/long.litmus");
    let t = std::time::Instant::now();
    let out = litmus().args(["check", "--timeout", "2", "--format", "json"]).arg(&slow).output().unwrap();
    let took = t.elapsed();
    assert!(took < std::time::Duration::from_millis(2500), "--timeout 2 took {took:?}");
    let v = json_of(&out);
    // Violations found before the deadline are real (exit 1); what did not
    // finish is unknown.
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(v["models"]["pso"]["certainty"], "unknown");
    assert!(v["models"]["pso"].get("observation").is_none());
}

#[test]
fn invalid_timeouts_are_usage_errors() {
    let sb = root().join("examples/sb.litmus");
    for bad in ["-1", "NaN", "inf", "1e300", "soon"] {
        let out = litmus().args(["check", "--timeout", bad]).arg(&sb).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "--timeout {bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("timeout"), "--timeout {bad}");
    }
}

#[test]
fn bad_files_get_a_position_and_a_json_line_each() {
    let bad = temp_file("latin1.litmus", "");
    std::fs::write(&bad, b"litmus L\nshared x = 0;\n// caf\xe9\nthread P0 { x = 1; }\n").unwrap();
    let out = litmus().arg("check").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not valid UTF-8: line 3, byte 7"), "{stderr}");
    let sb = root().join("examples/sb.litmus");
    let out = litmus()
        .args(["check", "--format", "json"])
        .arg(&bad)
        .arg("/nonexistent/file.litmus")
        .arg(&sb)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let lines = reports(&out.stdout);
    assert_eq!(lines.len(), 3, "one object per input");
    assert!(lines[0]["error"].as_str().unwrap().contains("line 3"));
    assert!(lines[1]["error"].as_str().unwrap().contains("cannot read"));
    assert_eq!(lines[2]["test"], "SB");
}

#[test]
fn division_by_zero_in_the_condition_is_a_finding() {
    let p = temp_file(
        "div.litmus",
        "litmus D\nshared x = 0, y = 0;\nthread P0 { x = 1; let r0 = y; }\nthread P1 { y = 1; let r1 = x; }\nexists (10 / P0:r0 == 10);\n",
    );
    let out = litmus().args(["check", "--model", "sc", "--format", "json"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out)["models"]["sc"]["condition_errors"][0], "final condition");
    let out = litmus().args(["check", "--model", "sc", "--color", "never"]).arg(&p).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("division by zero in the final condition under SC"));
}

#[test]
fn relaxed_states_are_compared_with_sc_only_as_far_as_sc_went() {
    let sb = root().join("examples/sb.litmus");
    let out =
        litmus().args(["check", "--bounded", "--color", "never", "--preemption-bound", "0"]).arg(&sb).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("not reachable under SC"), "{text}");
    assert!(text.contains("not reached under SC within bounds"), "{text}");
    assert!(text.contains("the preemption bound skipped"), "{text}");
}

#[test]
fn the_deadline_holds_on_a_big_file_in_the_fence_phase() {
    // SB beside a thread of 3,000 stores: the fence search measures a fence
    // after each of them, and each witness replays thousands of buffered
    // stores; neither may outlast the deadline.
    let mut src = String::from(
        "litmus Big\nshared x = 0;\nshared y = 0;\nshared z = 0;\n\
         thread P0 {\n  x = 1;\n  let r0 = y;\n}\nthread P1 {\n  y = 1;\n  let r1 = x;\n}\nthread P2 {\n",
    );
    for k in 0..3000 {
        src.push_str(&format!("  z = {k};\n"));
    }
    src.push_str("}\nexists (P0:r0 == 0 && P1:r1 == 0);\n");
    let p = temp_file("bigz.litmus", &src);
    // (One worker too: the graph search of the outcome step then runs on the
    // file's own thread, whose stack a 3,000-event recursion overflowed.)
    for threads in ["2", "1"] {
        for secs in ["0.2", "1"] {
            let t = std::time::Instant::now();
            let out = litmus()
                .args(["check", "--format", "json", "--timeout", secs, "--threads", threads])
                .arg(&p)
                .output()
                .unwrap();
            let took = t.elapsed().as_secs_f64();
            let limit: f64 = secs.parse::<f64>().unwrap() + 0.5;
            assert!(took < limit, "--timeout {secs} took {took:.2} s");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.code() == Some(1) || out.status.code() == Some(3), "{:?} {err}", out.status);
        }
    }
}

/// Issue 26: in active mode, Phase I's pairs of a long thread were built
/// between polls of the deadline (a 300k-store file overran `--timeout 10`
/// by 6 s; this one overran 2 s by 1 s).
#[test]
fn the_deadline_holds_in_active_mode_on_a_long_thread() {
    let mut src = String::from("litmus Long\nshared x = 0;\nshared y = 0;\nthread P0 {\n");
    for k in 0..20_000 {
        src.push_str(&format!("  x = {}; y = {};\n", k % 100 + 1, k % 100 + 1));
    }
    src.push_str("}\nthread P1 { let r0 = y; let r1 = x; }\nexists (P1:r0 == 1 && P1:r1 == 0);\n");
    let p = temp_file("long-active.litmus", &src);
    let t = std::time::Instant::now();
    let out =
        litmus().args(["check", "--mode", "active", "--model", "tso", "--timeout", "2"]).arg(&p).output().unwrap();
    let took = t.elapsed().as_secs_f64();
    assert!(took < 2.6, "--timeout 2 took {took:.2} s");
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stdout));
}

/// The JSON line of one file, checked with these extra arguments.
fn check_json(args: &[&str], file: &str) -> (Option<i32>, serde_json::Value) {
    let out = litmus().args(["check", "--format", "json"]).args(args).arg(file).output().unwrap();
    (out.status.code(), report(&out.stdout))
}

/// Active testing's results without the timings (which vary run to run).
fn active_results(v: &serde_json::Value) -> Vec<serde_json::Value> {
    ["tso", "pso"]
        .iter()
        .map(|m| {
            let mut a = v["models"][m]["active"].clone();
            for k in ["phase1_ms", "phase2_ms"] {
                a.as_object_mut().unwrap().remove(k);
            }
            a
        })
        .collect()
}

#[test]
fn active_mode_confirms_sb_and_its_handle_replays_the_run() {
    let (code, v) = check_json(&["--mode", "active"], "examples/sb.litmus");
    assert_eq!(code, Some(1), "a confirmed cycle is a finding");
    for m in ["tso", "pso"] {
        let j = &v["models"][m];
        assert_eq!(j["mode"], "active");
        assert_eq!(j["robust"], false, "a confirmed cycle proves a violation");
        assert_eq!(j["states"], 0, "nothing was explored");
        let a = &j["active"];
        assert!(a["confirmed"].as_u64().unwrap() >= 1, "{a:#}");
        let c = a["cycles"].as_array().unwrap().iter().find(|c| c["confirmations"].as_u64() > Some(0)).unwrap();
        let edges: Vec<&str> = c["cycle"].as_array().unwrap().iter().map(|s| s["edge"].as_str().unwrap()).collect();
        assert_eq!(edges, ["po", "fr", "po", "fr"]);
        let handle = c["replay"].as_str().unwrap();
        let out = litmus().args(["explain", "examples/sb.litmus", "--replay", handle]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.contains("its trace has the cycle") && text.contains("commit"), "{text}");
    }
}

#[test]
fn active_results_depend_on_the_seed_only_not_on_the_worker_threads() {
    let run = |threads: &str, seed: &str| {
        let out = litmus()
            .env("RAYON_NUM_THREADS", threads)
            .args(["check", "--format", "json", "--mode", "active", "--seed", seed])
            .arg("examples/lamport-fast.litmus")
            .output()
            .unwrap();
        active_results(&report(&out.stdout))
    };
    let one = run("1", "7");
    assert_eq!(one, run("4", "7"));
    assert_ne!(one, run("1", "8"), "another seed, other runs");
}

#[test]
fn active_testing_that_finds_nothing_claims_nothing() {
    let (code, v) = check_json(&["--mode", "active"], "examples/sb-fences.litmus");
    assert_eq!(code, Some(3), "nothing found, nothing proved: unknown");
    for m in ["tso", "pso"] {
        let j = &v["models"][m];
        assert!(j.get("robust").is_none(), "{j:#}");
        assert_eq!(j["robust_certainty"], "unknown");
        assert!(j["robust_note"].as_str().unwrap().contains("no violation found in 30 active runs"), "{j:#}");
    }
    let out = litmus().args(["check", "--mode", "active", "examples/sb-fences.litmus"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("this proves nothing") && !text.contains("robust"), "{text}");
}

#[test]
fn auto_mode_tests_actively_what_the_exhaustive_budget_did_not_finish() {
    // A budget of zero: exhaustive checking stops at once, active testing answers.
    let (code, v) = check_json(&["--mode", "auto", "--budget", "0"], "examples/sb.litmus");
    assert_eq!(code, Some(1));
    assert_eq!(v["models"]["tso"]["mode"], "active");
    assert_eq!(v["models"]["sc"]["mode"], "exhaustive");
    assert_eq!(v["models"]["sc"]["certainty"], "unknown");
    // The default budget finishes sb: no active testing.
    let (_, v) = check_json(&[], "examples/sb.litmus");
    assert_eq!(v["models"]["tso"]["mode"], "exhaustive");
    assert!(v["models"]["tso"].get("active").is_none());
}

#[test]
fn active_testing_under_pslo_finds_the_stale_load_and_judges_exists_conditions() {
    // publish-pslo: only PSLO lets the reader take data's old value after
    // the flag; its assertion then fails. Active testing confirms the
    // cycle under PSLO only, calls it a bug, and the handle replays it.
    let (code, v) = check_json(&["--mode", "active", "--model", "pso,pslo"], "examples/publish-pslo.litmus");
    assert_eq!(code, Some(1));
    assert_eq!(v["models"]["pso"]["active"]["confirmed"], 0, "{v:#}");
    let a = &v["models"]["pslo"]["active"];
    assert!(a["confirmed"].as_u64() >= Some(1) && a["bugs"].as_u64() >= Some(1), "{a:#}");
    let c = a["cycles"].as_array().unwrap().iter().find(|c| c["confirmations"].as_u64() > Some(0)).unwrap();
    let edges: Vec<&str> = c["cycle"].as_array().unwrap().iter().map(|s| s["edge"].as_str().unwrap()).collect();
    assert_eq!(edges, ["po", "rf", "po", "fr"]);
    let out = litmus()
        .args(["explain", "examples/publish-pslo.litmus", "--replay", c["replay"].as_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    // The rr fence in the reader: nothing confirmed, nothing claimed.
    let (code, v) = check_json(&["--mode", "active", "--model", "pslo"], "examples/publish-pslo-rr.litmus");
    assert_eq!(code, Some(3));
    assert_eq!(v["models"]["pslo"]["active"]["confirmed"], 0);
    assert_eq!(v["models"]["pslo"]["robust_certainty"], "unknown");
    // mp-fence-ww's `exists` holds only under PSLO: in active mode the SC
    // exploration says SC never meets it, so the confirmed run is a bug.
    let (_, v) = check_json(&["--mode", "active", "--model", "pslo"], "examples/mp-fence-ww.litmus");
    assert!(v["models"]["pslo"]["active"]["bugs"].as_u64() >= Some(1), "{v:#}");
}

#[test]
fn active_testing_rejects_bad_knobs() {
    for args in [["--probability", "2"], ["--cycle-length", "5"], ["--cycle-length", "18"], ["--budget", "-1"]] {
        let out = litmus().args(["check", "--mode", "active"]).args(args).arg("examples/sb.litmus").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let out = litmus()
        .args(["explain", "examples/sb.litmus", "--replay", "tso/9.99w-9.98r/p0.5/d8.16/l2/00"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not have"));
}

#[test]
fn pslo_is_a_model_like_the_others() {
    // MP with `fence ww;` in the writer: robust under PSO, not under PSLO,
    // where the reader's second load is satisfied early (a load→load pair).
    let mp = root().join("examples/mp-fence-ww.litmus");
    let out = litmus().args(["check", "--format", "json", "--model", "pso,pslo"]).arg(&mp).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a PSLO violation is a finding");
    let v = json_of(&out);
    assert_eq!(v["models"]["pso"]["robust"], true);
    assert_eq!(v["models"]["pso"]["observation"], "never");
    let pslo = &v["models"]["pslo"];
    assert_eq!(pslo["robust"], false);
    assert_eq!(pslo["robust_certainty"], "proved");
    assert_eq!(pslo["observation"], "sometimes");
    let cycle = pslo["violations"][0]["cycle"].as_array().unwrap();
    let texts: Vec<&str> = cycle.iter().map(|c| c["statement"].as_str().unwrap()).collect();
    assert_eq!(texts[..2], ["let r0 = y", "let r1 = x"], "{cycle:?}");
    assert_eq!(cycle[0]["edge"], "po");
    assert_eq!(pslo["fences"][0]["kind"], "rr");
    assert_eq!(pslo["fences_confirmed"], true);
    // With `fence rr;` in the reader it is robust under PSLO too: exit 0.
    let rr = root().join("examples/mp-fence-ww-rr.litmus");
    let out = litmus().args(["check", "--format", "json", "--model", "sc,tso,pso,pslo"]).arg(&rr).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let v = json_of(&out);
    for m in ["tso", "pso", "pslo"] {
        assert_eq!(v["models"][m]["robust"], true, "{m}");
        assert_eq!(v["models"][m]["observation"], "never", "{m}");
    }
    // The default models stay SC, TSO and PSO.
    let out = litmus().args(["check", "--format", "json"]).arg(&rr).output().unwrap();
    let v = json_of(&out);
    let mut names: Vec<&str> = v["models"].as_object().unwrap().keys().map(|k| k.as_str()).collect();
    names.sort();
    assert_eq!(names, ["pso", "sc", "tso"]);
    // An unknown model's message names all four.
    let out = litmus().args(["check", "--model", "rmo"]).arg(&rr).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sc, tso, pso, pslo"));
}

#[test]
fn pslo_fix_inserts_an_rr_fence_and_explain_tells_the_stale_load() {
    let mp = root().join("examples/mp-fence-ww.litmus");
    let out = litmus().args(["fix", "--model", "pslo"]).arg(&mp).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let fixed = String::from_utf8(out.stdout).unwrap();
    assert!(fixed.contains("  let r0 = y;\n  fence rr;\n  let r1 = x;"), "{fixed}");
    assert!(stderr.contains("re-checked: robust (proved) under PSLO"), "{stderr}");
    // The herd dialect gets an LFENCE.
    let x86 = temp_file(
        "mp-sfence.litmus",
        "X86 MP+sfence\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV EAX,[y] ;\n SFENCE      | MOV EBX,[x] ;\n MOV [y],$1  |             ;\nexists (1:EAX=1 /\\ 1:EBX=0)\n",
    );
    let out = litmus().args(["fix", "--model", "pslo"]).arg(&x86).output().unwrap();
    let fixed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(fixed.contains("LFENCE"), "{fixed}");
    // explain: the later load takes effect first, reading from its history.
    let out = litmus().args(["explain", "--model", "pslo", "--violation", "1"]).arg(&mp).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(text.contains("`let r1 = x` (P1 line"), "{text}");
    assert!(text.contains("an older value, still in its history"), "{text}");
}

#[test]
fn a_timed_out_pslo_check_is_unknown() {
    let mp = root().join("examples/mp-fence-ww.litmus");
    let out = litmus()
        .args(["check", "--model", "pslo", "--timeout", "0.000001", "--format", "json"])
        .arg(&mp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let v = json_of(&out);
    let o = &v["models"]["pslo"];
    assert!(o.get("robust").is_none() && o.get("observation").is_none(), "{o}");
    assert_eq!(o["robust_certainty"], "unknown");
}

#[test]
fn history_verdicts_exit_codes_and_methods() {
    let sb = temp_file("sb-history.txt", "# store buffering\nP0: W(x,1) R(y,0)\nP1: W(y,1) R(x,0)\n");
    let ok = temp_file("ok-history.txt", "P0: W(x,1) W(x,2)\nP1: R(x,2) W(x,3)\n");
    for method in ["ccm-enum", "ccm-sat", "sat"] {
        let out =
            litmus().args(["history", "--color", "never", "--method", method]).arg(&sb).arg(&ok).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{method}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("sb-history.txt: not SC: CC fails"), "{method}: {stdout}");
        assert!(stdout.contains("P0:W(x,1) -po-> P0:R(y,0) -rw-> P1:W(y,1)"), "{stdout}");
        // The cycle is drawn over the file: line 2 holds P0's operations.
        assert!(stdout.contains("sb-history.txt:2:5"), "{stdout}");
        assert!(stdout.contains("ok-history.txt: SC consistent"), "{stdout}");
        assert!(stdout.contains("store order: x: 0 1 2 3"), "{stdout}");
        assert!(stdout.find("sb-history").unwrap() < stdout.find("ok-history").unwrap(), "input order");
        let out = litmus().args(["history", "--model", "tso", "--method", method]).arg(&sb).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{method}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("TSO consistent"));
    }
}

/// Independent choices are not enumerated (the issue's k=30 file took
/// hours), and limits give an honest "unknown", exit 3, on time.
#[test]
fn history_answers_fast_or_says_unknown_within_its_limits() {
    let mut pairs = String::new();
    for i in 0..30 {
        pairs.push_str(&format!("F{i}: W(z{i},1)\nG{i}: W(z{i},2)\n"));
    }
    let gadget = std::fs::read_to_string(root().join("examples/histories/two-choices.txt")).unwrap();
    let k30 = temp_file("k30-history.txt", &format!("{pairs}{gadget}"));
    for method in ["ccm-enum", "ccm-sat", "sat"] {
        let start = std::time::Instant::now();
        let out = litmus().args(["history", "--timeout", "60", "--method", method]).arg(&k30).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{method}: {}", String::from_utf8_lossy(&out.stdout));
        assert!(start.elapsed().as_secs() < 10, "{method}: {:?}", start.elapsed());
    }
    // A valid SC run of 4 threads × 3000 operations over 4 locations.
    let (mut mem, mut next, mut lines) = ([0u64; 4], 1u64, vec![String::new(); 4]);
    for step in 0..3000u64 {
        for (t, line) in lines.iter_mut().enumerate() {
            let l = ((step * 7 + t as u64 * 3) % 4) as usize;
            if (step + t as u64).is_multiple_of(3) {
                mem[l] = next;
                line.push_str(&format!(" W(x{l},{next})"));
                next += 1;
            } else {
                line.push_str(&format!(" R(x{l},{})", mem[l]));
            }
        }
    }
    let text: String = lines.iter().enumerate().map(|(t, l)| format!("P{t}:{l}\n")).collect();
    let big = temp_file("big-history.txt", &text);
    for method in ["ccm-enum", "ccm-sat", "sat"] {
        let start = std::time::Instant::now();
        let out = litmus()
            .args(["history", "--format", "json", "--timeout", "0.01", "--method", method])
            .arg(&big)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{method}");
        let v = json_of(&out);
        assert_eq!((v["verdict"].as_str(), v["unknown_reason"].as_str()), (Some("unknown"), Some("timeout")), "{v}");
        assert!(start.elapsed().as_secs() < 5, "{method} overran: {:?}", start.elapsed());
        let out = litmus().args(["history", "--max-memory", "0.01", "--method", method]).arg(&big).output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{method}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("SC unknown:") && stdout.contains("more than the limit of"), "{stdout}");
    }
}

#[test]
fn history_json_lines_and_input_errors_with_positions() {
    let sb = temp_file(
        "sb-history.json",
        r#"{"threads": [[{"op":"W","loc":"x","value":1},{"op":"R","loc":"y","value":0}],
 [{"op":"W","loc":"y","value":1},{"op":"F"},{"op":"R","loc":"x","value":0}]]}"#,
    );
    let bad = temp_file("bad-history.txt", "P0: W(x,1)\nP1: R(x,2)\n");
    let out = litmus().args(["history", "--format", "json", "--model", "tso"]).arg(&sb).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "bad input wins");
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    // One fence is not enough under TSO: P0's write can still pass its read.
    assert_eq!(lines[0]["verdict"], "consistent");
    assert_eq!(lines[0]["model"], "tso");
    assert_eq!(lines[0]["store_order"]["x"], serde_json::json!([0, 1]));
    assert_eq!(lines[1]["verdict"], "error");
    assert_eq!(lines[1]["error"]["code"], "E0602");
    assert_eq!((lines[1]["error"]["line"].as_u64(), lines[1]["error"]["column"].as_u64()), (Some(2), Some(5)));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad-history.txt:2:5") && stderr.contains("no operation writes 2 to x"), "{stderr}");
    let fenced = temp_file("sb-fenced.txt", "P0: W(x,1) F R(y,0)\nP1: W(y,1) F R(x,0)\n");
    let out = litmus().args(["history", "--format", "json", "--model", "tso"]).arg(&fenced).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!((v["verdict"].as_str(), v["criterion"].as_str()), (Some("violation"), Some("wCCM")));
    let cycle = v["cycle"].as_array().unwrap();
    assert!(cycle.iter().all(|s| s["line"].is_u64() && s["column"].is_u64() && s["edge"].is_string()), "{v}");
    assert!(cycle.iter().any(|s| s["edge"] == "rw"), "{v}");
}

#[test]
fn explain_prints_a_witness_history_that_history_judges() {
    let out = litmus()
        .args(["explain", "--violation", "1"])
        .arg(root().join("examples/sb.litmus"))
        .arg("--history")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, "P0: W(x,1) R(y,0)\nP1: W(y,1) R(x,0)\n");
    let p = temp_file("sb-witness.txt", &text);
    assert_eq!(litmus().args(["history", "--model", "tso"]).arg(&p).output().unwrap().status.code(), Some(0));
    assert_eq!(litmus().args(["history", "--model", "sc"]).arg(&p).output().unwrap().status.code(), Some(1));
}

/// Each example history says what each model answers: `# Expected: SC
/// violation (CC); TSO consistent`. Every method must give the verdict,
/// and the default method the criterion.
#[test]
fn example_histories_have_their_expected_verdicts() {
    let dir = root().join("examples/histories");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 5);
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let expected = src.lines().find_map(|l| l.strip_prefix("# Expected: ")).expect("an Expected line");
        for part in expected.split("; ") {
            let (model, answer) = part.split_once(' ').unwrap();
            let (verdict, criterion) = match answer.split_once(" (") {
                Some((v, c)) => (v, Some(c.trim_end_matches(')'))),
                None => (answer, None),
            };
            for method in ["ccm-enum", "ccm-sat", "sat"] {
                let out = litmus()
                    .args(["history", "--format", "json", "--model", &model.to_lowercase(), "--method", method])
                    .arg(&f)
                    .output()
                    .unwrap();
                let v = json_of(&out);
                assert_eq!(v["verdict"], verdict, "{} {model} {method}: {v}", f.display());
                assert_eq!(out.status.code(), Some(if verdict == "consistent" { 0 } else { 1 }));
                if let (Some(c), "ccm-enum") = (criterion, method) {
                    assert_eq!(v["criterion"], c, "{} {model}: {v}", f.display());
                }
            }
        }
    }
}

// `litmus run`: the program on this CPU. Only what cannot flake: no state
// TSO forbids, the exit codes, the time limit, the recorded histories.

/// `litmus run` processes one at a time: each wants both cores.
static CPU: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn run_litmus(args: &[&str], file: &std::path::Path) -> std::process::Output {
    let _cpu = CPU.lock().unwrap_or_else(|e| e.into_inner());
    litmus().arg("run").args(args).arg(file).output().unwrap()
}

#[test]
fn run_sb_shows_only_states_tso_allows() {
    let out = run_litmus(&["--iterations", "3000", "--format", "json"], &root().join("examples/sb.litmus"));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_of(&out);
    assert_eq!(
        (v["test"].as_str(), v["runs"].as_u64(), v["iterations"].as_u64()),
        (Some("SB"), Some(3000), Some(3000))
    );
    assert_eq!(v["observables"], serde_json::json!(["P0:r0", "P1:r1"]));
    assert_eq!(v["tso_forbidden_runs"], 0);
    assert_eq!(v["models"]["tso"]["states"], 4);
    assert_eq!(v["models"]["sc"]["certainty"], "proved");
    let states = v["states"].as_array().unwrap();
    // Every state some model allows is listed, observed or not.
    assert_eq!(states.len(), 4);
    let mut total = 0;
    for s in states {
        total += s["runs"].as_u64().unwrap();
        assert_eq!(s["allowed"]["tso"], true, "{s}");
        assert_eq!(s["allowed"]["pso"], true, "{s}");
        assert_eq!(s["allowed"]["sc"], s["state"] != "P0:r0=0 P1:r1=0", "{s}");
        assert_eq!(s["condition"], s["state"] == "P0:r0=0 P1:r1=0", "{s}");
    }
    assert_eq!(total, 3000);
    assert_eq!(v["ends"]["complete"], 3000);
    let yes = v["condition_runs"].as_u64().unwrap();
    let word = if yes == 0 { "never" } else { "sometimes" };
    assert_eq!(v["observation"], word);
}

#[test]
fn run_prints_the_histogram_beside_the_models() {
    let f = root().join("tests/corpus/herd-x86/catalogue__x86__tests__MP.litmus");
    let out = run_litmus(&["--iterations", "2000"], &f);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("2000 runs in 2 batches of up to 1000"), "{text}");
    assert!(
        text.contains("models (explored): SC 3 states (proved), TSO 3 states (proved), PSO 4 states (proved)"),
        "{text}"
    );
    // MP's relaxed outcome: PSO only, never seen on x86.
    assert!(text.contains("    * 1:EAX=1 1:EBX=0            0    -   -  PSO\n"), "{text}");
    assert!(text.contains("every observed final state is allowed by x86-TSO"), "{text}");
}

#[test]
fn run_stops_a_spinning_program_at_its_time_limit() {
    let p = temp_file(
        "spin.litmus",
        "litmus Spin\nshared x = 0;\nshared y = 0;\nthread P0 {\n  await (x == 1);\n  y = 1;\n}\nthread P1 {\n  let r = y;\n}\nexists (P1:r == 1);\n",
    );
    let t0 = std::time::Instant::now();
    // The clock starts with the first run (not when the threads are
    // spawned, which on a loaded machine can take seconds), so the message
    // names the spin, not the start barrier. The spin limit is out of
    // reach: with the default one P0 gives up every 100,000 tries and
    // starts the next run, and the stop could find both threads between
    // runs (seen on a loaded machine).
    let out = run_litmus(&["--time-limit", "3", "--spin-limit", "1000000000000"], &p);
    assert!(t0.elapsed() < std::time::Duration::from_secs(20), "{:?}", t0.elapsed());
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "batch 1 did not finish within its time limit of 3 s: P0 was spinning at P0 line 5 (`await (x == 1)`)"
        ),
        "{stderr}"
    );
    // With a spin limit the await gives up instead: stuck runs, no stop.
    let out = run_litmus(&["--spin-limit", "20", "--iterations", "100", "--format", "json"], &p);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_of(&out);
    assert_eq!((v["ends"]["stuck"].as_u64(), v["ends"]["complete"].as_u64()), (Some(100), Some(0)));
    assert!(v.get("stopped").is_none());
}

#[test]
fn run_records_one_history_per_run() {
    let dir = std::env::temp_dir().join(format!("litmus-cli-{}-record", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let out = run_litmus(&["--iterations", "40", "--record", d], &root().join("examples/sb.litmus"));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names.len(), 40);
    assert_eq!((names[0].as_str(), names[39].as_str()), ("run-00.txt", "run-39.txt"));
    for n in &names {
        let text = std::fs::read_to_string(dir.join(n)).unwrap();
        let ops: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(ops.len(), 2, "{text}");
        let r0 = ops[0].strip_prefix("P0: W(x,1) R(y,").and_then(|r| r.strip_suffix(')')).expect(&text);
        let r1 = ops[1].strip_prefix("P1: W(y,1) R(x,").and_then(|r| r.strip_suffix(')')).expect(&text);
        assert!(["0", "1"].contains(&r0) && ["0", "1"].contains(&r1), "{text}");
        assert!(text.contains(&format!("final state P0:r0={r0} P1:r1={r1}")), "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The two halves of the issue meet: histories recorded on this CPU are
/// x86 executions, so every one is TSO-consistent (whatever the timing);
/// the SC verdicts must agree with the final states the run reported.
#[test]
fn histories_recorded_on_this_cpu_are_tso_and_sc_exactly_when_their_state_is() {
    for name in ["sb", "mp", "iriw"] {
        let dir = std::env::temp_dir().join(format!("litmus-cli-{}-cpu-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = run_litmus(
            &["--iterations", "2000", "--record", dir.to_str().unwrap()],
            &root().join(format!("examples/{name}.litmus")),
        );
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        assert_eq!(files.len(), 2000);
        let tso = litmus().args(["history", "--model", "tso", "--format", "json"]).args(&files).output().unwrap();
        assert_eq!(tso.status.code(), Some(0), "{name}: a recorded history is not TSO");
        let sc = litmus().args(["history", "--model", "sc", "--format", "json"]).args(&files).output().unwrap();
        for line in String::from_utf8_lossy(&sc.stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = std::fs::read_to_string(v["file"].as_str().unwrap()).unwrap();
            // sb and iriw: the condition's state is exactly the non-SC one;
            // mp's condition state cannot happen on x86 at all.
            let relaxed = name != "mp" && text.contains("(the condition holds)");
            assert_eq!(v["verdict"] == "consistent", !relaxed, "{name}: {text}\n{v}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn run_refuses_to_record_a_program_that_writes_a_value_twice() {
    let dir = std::env::temp_dir().join(format!("litmus-cli-{}-refused", std::process::id()));
    let out = run_litmus(&["--record", dir.to_str().unwrap()], &root().join("examples/spinlock.litmus"));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot record histories: `m` is written 0, its initial value, by P0 line"), "{stderr}");
    assert!(!dir.exists(), "nothing is written");
}

#[test]
fn run_rejects_bad_usage_and_bad_files() {
    let sb = root().join("examples/sb.litmus");
    for args in [&["--batch", "0"][..], &["--time-limit", "-1"], &["--iterations", "x"]] {
        let out = run_litmus(args, &sb);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let bad = temp_file("run-bad.litmus", "litmus B\nshared x = 0;\nthread P0 { x = ; }\n");
    let out = run_litmus(&[], &bad);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Error"));
}

#[test]
fn first_stops_at_the_first_finding_and_claims_nothing_else() {
    // Peterson under TSO: its first finding is a violation with a replayable
    // witness; the searches stop there and say so (unknown: "first").
    let p = root().join("examples/peterson.litmus");
    let full = litmus().args(["check", "--format", "json", "--model", "tso"]).arg(&p).output().unwrap();
    let full: serde_json::Value = report(&full.stdout);
    let out = litmus().args(["check", "--first", "--format", "json", "--model", "tso"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = report(&out.stdout);
    let tso = &v["models"]["tso"];
    assert_eq!(tso["violations"].as_array().unwrap().len(), 1, "{tso}");
    assert_eq!(tso["robust"], false);
    assert_eq!(tso["robust_certainty"], "proved");
    assert_eq!(tso["certainty"], "unknown");
    assert_eq!(tso["unknown_reason"], "first");
    assert_eq!(tso["complete"], false);
    assert!(tso.get("observation").is_none() || tso["observation_certainty"] == "unknown");
    assert_ne!(tso["fences_certainty"], "proved", "fences are not confirmed by a stopped check");
    // The one violation is one of those the whole check finds.
    let found = &tso["violations"][0]["cycle"];
    assert!(full["models"]["tso"]["violations"].as_array().unwrap().iter().any(|w| &w["cycle"] == found));
}

#[test]
fn first_without_a_finding_answers_as_the_whole_check() {
    // Nothing to find: --first changes nothing, every answer is earned.
    // (`--first` runs the bounded engine, which stops at a first finding.)
    let p = root().join("examples/sb-fences.litmus");
    let run = |first: bool| {
        let mut c = litmus();
        c.args(["check", "--format", "json"]);
        c.arg(if first { "--first" } else { "--bounded" });
        let out = c.arg(&p).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let mut v: serde_json::Value = report(&out.stdout);
        v.as_object_mut().unwrap().remove("time_ms");
        for m in ["sc", "tso", "pso"] {
            v["models"][m].as_object_mut().unwrap().remove("elapsed_ms");
        }
        v
    };
    let (a, b) = (run(false), run(true));
    assert_eq!(a, b);
    assert_eq!(b["models"]["tso"]["certainty"], "proved");
}

#[test]
fn first_with_the_graph_explorer_stops_as_with_interleaving() {
    // Peterson under TSO with the graph explorer: the first finding (the
    // SC phase's witnessed violation) stops the relaxed search too.
    let p = root().join("examples/peterson.litmus");
    let out = litmus()
        .args(["check", "--first", "--explorer", "graph", "--format", "json", "--model", "tso", "--mode", "exhaustive"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = report(&out.stdout);
    let tso = &v["models"]["tso"];
    assert_eq!(tso["certainty"], "unknown", "{tso}");
    assert_eq!(tso["unknown_reason"], "first", "{tso}");
}

/// `--threads` changes how long a check takes, never what it prints: the
/// JSON and the human output (witnesses included, times left out) are the
/// same on one worker and on four, for examples, SB-12 and a program with
/// failing assertions and thousands of graphs (fenced: robust, so no harm
/// search rides along and the relaxed explorations run on all workers).
/// TSO and PSO only, so the witnesses shown are the graph explorer's.
#[test]
fn thread_count_does_not_change_the_output() {
    let mut medium = String::from("litmus Medium\nshared a = 0, b = 0, c = 0;\n");
    for (t, (w, r)) in [("a", "b"), ("b", "c"), ("c", "a")].iter().enumerate() {
        medium.push_str(&format!(
            "thread P{t} {{\n  {w} = 1;\n  fence;\n  let r0 = {r};\n  {r} = 2;\n  fence;\n  let r1 = {w};\n  {w} = 3;\n  fence;\n  let r2 = {r};\n  assert (r0 != {t});\n}}\n"
        ));
    }
    medium.push_str("exists (P0:r1 == 1 && P1:r2 == 2);\n");
    let mut files = vec![temp_file("medium.litmus", &medium), root().join("checker/benches/harnesses/sb12.litmus")];
    for name in ["sb", "iriw", "dekker", "mp-xchg", "2+2w", "wrc"] {
        files.push(root().join(format!("examples/{name}.litmus")));
    }
    // Times vary: `[36 executions, 2.9 ms, within bounds]` (or `[28 states,
    // 0.1 ms, proved]`) loses its time.
    let timeless = |out: &[u8]| -> String {
        String::from_utf8_lossy(out)
            .lines()
            .map(|l| match l.find(" executions, ").or_else(|| l.find(" states, ")) {
                Some(i) => {
                    let rest = &l[i..];
                    let rest = &rest[rest.find(", ").unwrap() + 2..];
                    let end = rest.find([',', ']']).unwrap_or(rest.len());
                    format!("{}{}", &l[..i], &rest[end..])
                }
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    for format in ["json", "human"] {
        let run = |threads: &str| {
            let out = litmus()
                .args(["check", "--color", "never", "--explorer", "graph", "--model", "tso,pso", "--format", format])
                .args(["--threads", threads, "--no-timing"])
                .args(&files)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
            (timeless(&out.stdout), timeless(&out.stderr))
        };
        let one = run("1");
        assert!(one.0.contains("Medium"), "{}", one.0);
        assert_eq!(one, run("4"), "{format}");
    }
    let out = litmus().args(["check", "--threads", "0"]).arg(&files[0]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Active testing too: seeds are per cycle and trial, so one thread or
    // several give the same report — byte for byte with --no-timing, which
    // also drops its phase times.
    let active = |threads: &str| {
        let out = litmus()
            .args(["check", "--mode", "active", "--format", "json", "--no-timing", "--threads", threads])
            .args(&files[2..])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let one = active("1");
    assert!(one.contains("\"active\"") && !one.contains("_ms\""), "{one}");
    assert_eq!(one, active("3"));
}

/// The diagnostics `litmus lsp` publishes for `path` once its check is done
/// (the real server over stdio, settings `options`).
fn server_diagnostics(path: &std::path::Path, options: serde_json::Value) -> Vec<serde_json::Value> {
    use serde_json::{json, Value};
    use std::io::{BufRead, BufReader, Read, Write};
    let mut child =
        litmus().arg("lsp").stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let uri = format!("file://{}", path.display());
    let text = std::fs::read_to_string(path).unwrap();
    // Read frames until the check is done; the last publication is its.
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        loop {
            let mut len = 0;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = n.trim().parse().unwrap();
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; len];
            r.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice::<Value>(&body).unwrap()).is_err() {
                return;
            }
        }
    });
    let mut send = |m: Value| {
        let body = m.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    };
    let recv = || rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the server answers");
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"capabilities": {}, "initializationOptions": options}}));
    // A client sends nothing else before the answer to `initialize`.
    while recv()["id"] != 1 {}
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "litmus", "version": 1, "text": text}}}));
    let mut diags = Vec::new();
    loop {
        let m = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the server's check ends");
        match m["method"].as_str() {
            Some("textDocument/publishDiagnostics") => diags = m["params"]["diagnostics"].as_array().unwrap().clone(),
            Some("litmus/status") if ["checked", "failed"].contains(&m["params"]["state"].as_str().unwrap()) => break,
            _ => {}
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    diags
}

#[test]
fn the_terminal_and_the_editor_give_a_finding_the_same_code() {
    // SB (a harmful violation, a condition that differs), its benign twin
    // without a condition, and a failing assertion.
    let benign = temp_file(
        "sb-benign.litmus",
        &std::fs::read_to_string(root().join("examples/sb.litmus"))
            .unwrap()
            .replace("exists (P0:r0 == 0 && P1:r1 == 0);", ""),
    );
    let assert = temp_file(
        "assert.litmus",
        "litmus A\nshared x = 0;\nthread P0 {\n  x = 1;\n}\nthread P1 {\n  let r = x;\n  assert (r == 0);\n}\n",
    );
    let mut codes = Vec::new();
    for path in [root().join("examples/sb.litmus"), benign, assert] {
        let out = litmus().args(["check", "--color", "never", "--model", "sc,tso"]).arg(&path).output().unwrap();
        // Analysis warnings (stderr) and what the check found (stdout).
        let term = format!("{}{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
        let diags = server_diagnostics(&path, serde_json::json!({"models": ["tso"], "debounceMs": 0}));
        // Each finding the terminal draws over a line, by (code, line):
        // `[E0400] Error: …` then `╭─[ file:8:3 ]`.
        let mut terminal: Vec<(String, u64)> = Vec::new();
        let lines: Vec<&str> = term.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if let Some(code) = l.strip_prefix('[').and_then(|l| l.split(']').next()) {
                let at = lines[i + 1].rsplit(':').nth(1).unwrap().parse::<u64>().unwrap();
                terminal.push((code.to_string(), at));
            }
        }
        assert!(!terminal.is_empty(), "{term}");
        codes.extend(terminal.iter().map(|t| t.0.clone()));
        for (code, line) in &terminal {
            // The editor's diagnostic on that line that is not a cycle member.
            let same = diags.iter().any(|d| {
                d["range"]["start"]["line"].as_u64() == Some(line - 1)
                    && d["code"] == code.as_str()
                    && !d["message"].as_str().unwrap().contains("part of the")
            });
            assert!(same, "{code} at line {line} in the terminal, not in the editor: {diags:#?}\n{term}");
        }
        // And every editor finding (not a cycle member, which only the
        // editor shows) is in the terminal, on the same line with its code:
        // both render the one findings layer.
        for d in diags.iter().filter(|d| !d["message"].as_str().unwrap().contains("part of")) {
            let line = d["range"]["start"]["line"].as_u64().unwrap() + 1;
            let code = d["code"].as_str().unwrap().to_string();
            assert!(terminal.contains(&(code, line)), "{d:#}\n{term}");
        }
    }
    codes.sort();
    codes.dedup();
    assert_eq!(codes, ["E0300", "E0302", "E0400", "W0203"]);
}

#[test]
fn explain_svg_draws_the_witness_and_dot_stays() {
    let out = litmus().args(["explain", "examples/sb.litmus", "--violation", "1", "--svg"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
    assert_eq!(svg.matches("<g class=\"event ").count(), 4);
    assert_eq!(svg.matches("class=\"edge ").count(), svg.matches("class=\"edge-label-group\"").count());
    assert!(svg.contains("SB — violation 1 under TSO") && svg.trim_end().ends_with("</svg>"));
    let dot = litmus().args(["explain", "examples/sb.litmus", "--violation", "1", "--dot"]).output().unwrap();
    let dot = String::from_utf8(dot.stdout).unwrap();
    assert!(dot.starts_with("digraph witness {") && dot.contains(" (1)\", color="), "{dot}");
    let both = litmus().args(["explain", "examples/sb.litmus", "--violation", "1", "--svg", "--dot"]).output().unwrap();
    assert_eq!(both.status.code(), Some(2), "--svg and --dot conflict");
    let none = litmus().args(["explain", "examples/sb.litmus", "--violation", "9", "--svg"]).output().unwrap();
    assert_eq!(none.status.code(), Some(2));
}

/// `reads` of one model: (statement, values, complete) per entry.
fn reads_of(v: &serde_json::Value, model: &str) -> Vec<(String, Vec<i64>, bool)> {
    v["models"][model]["reads"]
        .as_array()
        .unwrap_or_else(|| panic!("{model}: no reads in {v}"))
        .iter()
        .map(|r| {
            let values = r["values"].as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect();
            (r["statement"].as_str().unwrap().to_string(), values, r["complete"].as_bool().unwrap())
        })
        .collect()
}

#[test]
fn json_lists_the_values_each_load_may_read() {
    // SB: either load may read either value under SC already (whichever
    // thread runs first reads 0); the entry is placed and named.
    let sb = root().join("examples/sb.litmus");
    let v = json_of(&litmus().args(["check", "--format", "json", "--model", "sc,tso"]).arg(&sb).output().unwrap());
    let first = &v["models"]["sc"]["reads"][0];
    assert_eq!(
        (&first["thread"], &first["line"], &first["column"], &first["register"], &first["location"]),
        (
            &serde_json::json!("P0"),
            &serde_json::json!(9),
            &serde_json::json!(3),
            &serde_json::json!("r0"),
            &serde_json::json!("y")
        ),
        "{first}"
    );
    for m in ["sc", "tso"] {
        let want = vec![("let r0 = y".to_string(), vec![0, 1], true), ("let r1 = x".to_string(), vec![0, 1], true)];
        assert_eq!(reads_of(&v, m), want, "{m}");
    }

    // MP with a dependent load: `x` reads only 1 under SC and TSO (stores
    // leave in order), 0 too under PSO.
    let mpif = temp_file(
        "reads-mpif.litmus",
        "litmus MPIF\nshared x = 0;\nshared y = 0;\nthread P0 {\n  x = 1;\n  y = 1;\n}\nthread P1 {\n  let r0 = y;\n  if (r0 == 1) {\n    let r1 = x;\n  }\n}\nexists (P1:r0 == 1);\n",
    );
    let v = json_of(&litmus().args(["check", "--format", "json"]).arg(&mpif).output().unwrap());
    for (m, want) in [("sc", vec![1]), ("tso", vec![1]), ("pso", vec![0, 1])] {
        let r = reads_of(&v, m);
        assert_eq!(r[1], ("let r1 = x".to_string(), want, true), "{m}: {r:?}");
    }
    assert_eq!(v["models"]["sc"]["reads"][1]["register"], "r1");

    // A run the loop bound cut: its sets may miss values.
    let spin = temp_file(
        "reads-spin.litmus",
        "litmus SPIN\nshared x = 0;\nthread P0 {\n  x = 1;\n}\nthread P1 {\n  let r = 0;\n  while (r == 0) bound 1 {\n    r = x;\n    x = 2;\n  }\n}\n",
    );
    let v = json_of(
        &litmus().args(["check", "--bounded", "--format", "json", "--model", "sc"]).arg(&spin).output().unwrap(),
    );
    assert_eq!(v["models"]["sc"]["certainty"], "within-bounds", "{v}");
    let r = reads_of(&v, "sc");
    assert!(!r.is_empty() && r.iter().all(|(_, _, complete)| !complete), "{r:?}");
    assert_eq!(v["models"]["sc"]["reads"][0]["register"], "r", "`r = x` reads into r");

    // More values than a set keeps (8): listed smallest first, incomplete.
    let stores: String = (1..=10).map(|i| format!("  x = {i};\n")).collect();
    let many = temp_file(
        "reads-many.litmus",
        &format!("litmus MANY\nshared x = 0;\nthread P0 {{\n{stores}}}\nthread P1 {{\n  let r = x;\n}}\n"),
    );
    let v = json_of(&litmus().args(["check", "--format", "json", "--model", "sc"]).arg(&many).output().unwrap());
    assert_eq!(v["models"]["sc"]["certainty"], "proved", "{v}");
    assert_eq!(reads_of(&v, "sc"), vec![("let r = x".to_string(), (0..8).collect(), false)]);

    // A timed-out run: unknown, so no set is complete.
    let v = json_of(&litmus().args(["check", "--format", "json", "--timeout", "0.000001"]).arg(&sb).output().unwrap());
    for (m, o) in v["models"].as_object().unwrap() {
        let reads = o.get("reads").and_then(|r| r.as_array()).cloned().unwrap_or_default();
        assert!(reads.iter().all(|r| r["complete"] == false), "{m}: {o}");
    }
}

/// A monitor that can miss violations never proves robustness alone: the
/// paper's BSS on SB with a fence after each load, and Sober on a cycle
/// through a forwarded load, said "robust (proved)" and exit 0 (issue 26).
#[test]
fn monitors_that_can_miss_violations_are_cross_checked() {
    let sbf = temp_file(
        "sbf.litmus",
        "litmus SBF\nshared x = 0, y = 0;\n\
         thread P0 { x = 1; let r0 = y; fence; }\n\
         thread P1 { y = 1; let r1 = x; fence; }\n\
         exists (P0:r0 == 0 && P1:r1 == 0);\n",
    );
    let fwd = temp_file(
        "fwd.litmus",
        "litmus FWD\nshared x = 0, y = 0;\n\
         thread P0 { x = 1; let _r0 = x; let r1 = y; }\n\
         thread P1 { y = 2; x = 3; }\n\
         exists (P0:r1 == 0 && x == 1);\n",
    );
    for (file, monitor, model) in [(&sbf, "bss-interleaving", "tso,pso"), (&fwd, "sober", "tso")] {
        let out = litmus()
            .args(["check", "--bounded", "--color", "never", "--monitor", monitor, "--model", model])
            .arg(file)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{monitor}: {text}");
        assert!(!text.contains("robust (proved)  ["), "{monitor}: {text}");
        assert!(text.contains(&format!("note: the {monitor} monitor missed")), "{monitor}: {text}");
        let json = litmus()
            .args(["check", "--bounded", "--format", "json", "--monitor", monitor, "--model", model])
            .arg(file)
            .output()
            .unwrap();
        let v = report(&json.stdout);
        assert_eq!(v["models"]["tso"]["robust"], false, "{monitor}");
        assert_eq!(v["models"]["tso"]["violations"][0]["missed_by_monitor"], true, "{monitor}");
        // `fix` inserts fences, never "already robust".
        let fix =
            litmus().args(["fix", "--bounded", "--monitor", monitor, "--model", model]).arg(file).output().unwrap();
        let fixed = String::from_utf8_lossy(&fix.stdout);
        assert!(fixed.contains("fence wr;"), "{monitor}: {fixed}{}", String::from_utf8_lossy(&fix.stderr));
    }
}

/// `--monitor graph` decides on the models' execution graphs: the same
/// violations (statement pairs, cycles), harm, fences and exit status as
/// BSS on loop-free examples and corpus tests, under TSO and PSO.
#[test]
fn the_graph_decision_reports_what_bss_reports() {
    let files = [
        root().join("examples/sb.litmus"),
        root().join("examples/mp.litmus"),
        root().join("tests/corpus/herd-x86/catalogue__x86__tests__R.litmus"),
        root().join("tests/corpus/herd-x86/catalogue__x86_64__tests__SB+mfence+rfi-po.litmus"),
    ];
    for file in &files {
        assert!(file.exists(), "{}", file.display());
        let run = |monitor: &str| {
            let out = litmus()
                .args(["check", "--bounded", "--format", "json", "--no-timing", "--monitor", monitor])
                .args(["--model", "sc,tso,pso"])
                .arg(file)
                .output()
                .unwrap();
            (out.status.code(), report(&out.stdout))
        };
        let ((bss_code, bss), (graph_code, graph)) = (run("bss"), run("graph"));
        assert_eq!(bss_code, graph_code, "{}", file.display());
        for model in ["tso", "pso"] {
            let (b, g) = (&bss["models"][model], &graph["models"][model]);
            assert_eq!(b["robust"], g["robust"], "{} {model}", file.display());
            assert_eq!(b["robust_certainty"], g["robust_certainty"], "{} {model}", file.display());
            assert_eq!(b["fences"], g["fences"], "{} {model}", file.display());
            let pairs = |v: &serde_json::Value| -> Vec<(serde_json::Value, serde_json::Value)> {
                v["violations"]
                    .as_array()
                    .map(|vs| vs.iter().map(|x| (x["cycle"].clone(), x["harmful"].clone())).collect())
                    .unwrap_or_default()
            };
            assert_eq!(pairs(b), pairs(g), "{} {model}", file.display());
        }
    }
}

/// Issue 26: a FIFO named on the command line waited for a writer past
/// every timeout. It is refused, as folder walks refuse it.
#[test]
fn a_fifo_named_on_the_command_line_is_refused_not_waited_on() {
    let fifo = temp_file("pipe.litmus", "");
    std::fs::remove_file(&fifo).unwrap();
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let start = std::time::Instant::now();
    for args in
        [&["check", "--timeout", "1"][..], &["history", "--timeout", "1"], &["fix"], &["explain", "--violation", "1"]]
    {
        let out = litmus().args(args).arg(&fifo).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("is not a regular file"), "{args:?}: {err}");
    }
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
    // Issue 43: `fmt` waited on it for good. (Killed after 10 s, not hung.)
    for args in [&["fmt"][..], &["fmt", "--check"]] {
        let mut child = litmus()
            .args(args)
            .arg(&fifo)
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let t = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if t.elapsed().as_secs() >= 10 {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert_eq!(status.and_then(|s| s.code()), Some(2), "{args:?} waited on the FIFO: {err}");
        assert!(err.contains("is not a regular file"), "{args:?}: {err}");
    }
    let expect =
        litmus().args(["check", "--expect"]).arg(&fifo).arg(root().join("examples/sb.litmus")).output().unwrap();
    assert_eq!(expect.status.code(), Some(2));
    let merge = litmus().arg("merge").arg(&fifo).output().unwrap();
    assert_eq!(merge.status.code(), Some(2));
    let _ = std::fs::remove_file(&fifo);
}

#[test]
fn fmt_rewrites_in_place_checks_and_leaves_broken_files_alone() {
    let messy = "litmus M\nshared x=0;\nthread P0 {x=1; let r=x;}\nexists(P0:r==1);\n";
    let tidy = "litmus M\n\nshared x = 0;\n\nthread P0 {\n  x = 1;\n  let r = x;\n}\n\nexists (P0:r == 1);\n";
    let p = temp_file("fmt-messy.litmus", messy);
    let out = litmus().args(["fmt", "--check"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "--check reports a file that would change");
    assert!(String::from_utf8_lossy(&out.stdout).contains("fmt-messy.litmus"));
    assert_eq!(std::fs::read_to_string(&p).unwrap(), messy, "--check changes nothing");
    let out = litmus().arg("fmt").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&p).unwrap(), tidy);
    let out = litmus().args(["fmt", "--check"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "formatted once, nothing left to change");

    let broken = "litmus B\nshared x = ;\n";
    let b = temp_file("fmt-broken.litmus", broken);
    let out = litmus().arg("fmt").arg(&b).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("E0002") && stderr.contains("not formatted (it has errors)"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), broken, "a file with errors is left as it is");

    let mut child = litmus()
        .args(["fmt", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(messy.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), tidy, "`-` filters standard input");
}

/// Three threads make a cycle of six events: active testing grows its
/// cycle length by itself (4, then 6 = 2 × threads) and says so; asked for
/// 4 only, it predicts nothing and proves nothing.
#[test]
fn active_testing_finds_three_thread_cycles_by_growing_the_length() {
    let (code, v) = check_json(&["--mode", "active", "--runs", "30", "--seed", "1"], "examples/sb-3.litmus");
    assert_eq!(code, Some(1), "a confirmed cycle is a finding");
    for m in ["tso", "pso"] {
        let a = &v["models"][m]["active"];
        assert_eq!(a["lengths_searched"], serde_json::json!([4, 6]), "{a:#}");
        assert_eq!(a["cycle_length"], 6);
        assert!(a["confirmed"].as_u64().unwrap() >= 1, "{m}: {a:#}");
        let c = a["cycles"].as_array().unwrap().iter().find(|c| c["confirmations"].as_u64() > Some(0)).unwrap();
        assert_eq!(c["cycle"].as_array().unwrap().len(), 6, "{c:#}");
    }
    let out = litmus()
        .args(["check", "--mode", "active", "--runs", "30", "--seed", "1"])
        .arg("examples/sb-3.litmus")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("lengths 4, 6 searched"), "{text}");
    let (code, v) = check_json(&["--mode", "active", "--cycle-length", "4"], "examples/sb-3.litmus");
    assert_eq!(code, Some(3), "nothing confirmed: unknown");
    assert_eq!(v["models"]["tso"]["active"]["lengths_searched"], serde_json::json!([4]));
    assert_eq!(v["models"]["tso"]["active"]["confirmed"], 0);
}

/// Issue 43: answers are a function of the input and the options, never of
/// the clock. An exploration cut by its work budget (`--work`) stops at the
/// same step on one worker or two, on an idle machine or a busy one, and
/// says why.
#[test]
fn a_work_budget_cut_is_the_same_with_any_workers_under_any_load() {
    let file = root().join("tests/programs/slow.litmus");
    let run = |threads: &str, explorer: &str| {
        let out = litmus()
            .args(["check", "--format", "json", "--no-timing", "--bounded", "--mode", "exhaustive", "--work", "300k"])
            .args(["--threads", threads, "--explorer", explorer])
            .arg(&file)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    for explorer in ["graph", "interleaving"] {
        let one = run("1", explorer);
        assert!(one.contains("\"unknown_reason\":\"work\""), "{one}");
        assert_eq!(one, run("2", explorer), "{explorer}: two workers");
        // The same while every core is kept busy beside it.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let hogs: Vec<_> = (0..2)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
                    }
                })
            })
            .collect();
        let busy = run("2", explorer);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        hogs.into_iter().for_each(|h| h.join().unwrap());
        assert_eq!(one, busy, "{explorer}: under load");
    }
}

/// Without `--timeout`, the default check's exhaustive steps end by work,
/// not after ten seconds: a file whose exploration outlasts its work says
/// "work", and a plain `check` of it prints the same twice.
#[test]
fn the_default_check_ends_by_work_not_by_the_clock() {
    let file = root().join("tests/programs/slow.litmus");
    let run = || {
        let out = litmus()
            .args(["check", "--format", "json", "--no-timing", "--bounded", "--work", "200k"])
            .arg(&file)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let first = run();
    assert!(first.contains("\"unknown_reason\":\"work\""), "{first}");
    assert_eq!(first, run());
    // A bad budget is a usage error.
    for bad in ["0", "-3", "lots", "99999999999G"] {
        let out = litmus().args(["check", "--work", bad]).arg(&file).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "--work {bad}");
    }
}

/// Issue 43: a file that starts with a UTF-8 byte-order mark (as Windows
/// editors write) was refused as "missing `litmus NAME` header". It is
/// checked as without it, and `fmt` keeps the mark.
#[test]
fn a_byte_order_mark_is_no_error_and_fmt_keeps_it() {
    for name in ["examples/sb.litmus", "tests/corpus/herd-x86/catalogue__x86_64__tests__SB+mfence+po.litmus"] {
        let src = std::fs::read_to_string(root().join(name)).unwrap();
        let p = temp_file(&format!("bom-{}", name.replace('/', "-")), &format!("\u{FEFF}{src}"));
        let with = litmus().args(["check", "--format", "json", "--no-timing"]).arg(&p).output().unwrap();
        let plain =
            litmus().args(["check", "--format", "json", "--no-timing"]).arg(root().join(name)).output().unwrap();
        assert_eq!(with.status.code(), plain.status.code(), "{name}: {}", String::from_utf8_lossy(&with.stderr));
        let strip = |o: &std::process::Output| {
            let mut v = report(&o.stdout);
            v.as_object_mut().unwrap().remove("file");
            v
        };
        assert_eq!(strip(&with), strip(&plain), "{name}");
    }
    let src = std::fs::read_to_string(root().join("examples/sb.litmus")).unwrap();
    let p = temp_file("bom-fmt.litmus", &format!("\u{FEFF}{}", src.replace("  x = 1;", "x=1;")));
    let out = litmus().arg("fmt").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let after = std::fs::read_to_string(&p).unwrap();
    assert_eq!(after, format!("\u{FEFF}{src}"));
}

/// `--model FILE.cat`: herd's own file (built in, by name, or from a path
/// with `--cat-include`) answers as the built-in TSO, named by its stem; a
/// broken model is refused at its line and column; one that allows load
/// buffering is refused by name; active testing (which needs a machine)
/// leaves it out instead of failing.
#[test]
fn a_model_from_a_cat_file() {
    let sb = root().join("tests/corpus/herd-x86/catalogue__x86_64__tests__SB.litmus");
    let models = root().join("tests/corpus/models");
    let out = litmus().args(["check", "--format", "json", "--model", "tso,x86tso.cat"]).arg(&sb).output().unwrap();
    let v = json_of(&out);
    assert_eq!(v["models"]["x86tso"]["observation"], v["models"]["tso"]["observation"]);
    assert_eq!(v["models"]["x86tso"]["states"], v["models"]["tso"]["states"]);
    assert_eq!(v["models"]["x86tso"]["robust"], false);
    assert_eq!(v["models"]["x86tso"]["violations"].as_array().unwrap().len(), 2);
    // From a path, its includes found with --cat-include.
    let pso = models.join("x86pso.cat");
    let out = litmus()
        .args(["check", "--format", "json", "--cat-include"])
        .arg(models.join("herd"))
        .arg("--model")
        .arg(&pso)
        .arg(&sb)
        .output()
        .unwrap();
    assert_eq!(json_of(&out)["models"]["x86pso"]["states"], 4);
    let dir = std::env::temp_dir().join(format!("litmus-cli-{}-cat", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.cat");
    std::fs::write(&bad, "\"bad\"\nlet x = po |\n").unwrap();
    let out = litmus().args(["check", "--model"]).arg(&bad).arg(&sb).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.cat:3:1") || err.contains("bad.cat:2:"), "{err}");
    let lb = dir.join("anything.cat");
    std::fs::write(&lb, "\"anything goes\"\nlet x = po\n").unwrap();
    // A model that allows load buffering is answered by its candidate
    // executions, as herd7 does: SB's four states; not robust, each
    // thread's store overtaken by its load, and no repair for x86 here.
    let out = litmus().args(["check", "--format", "json", "--model"]).arg(&lb).arg(&sb).output().unwrap();
    let j = json_of(&out);
    assert_eq!(j["models"]["anything"]["states"], 4, "{j}");
    assert_eq!(j["models"]["anything"]["observation_certainty"], "proved", "{j}");
    assert_eq!(j["models"]["anything"]["robust"], false, "{j}");
    assert_eq!(j["models"]["anything"]["robust_certainty"], "proved", "{j}");
    assert_eq!(j["models"]["anything"]["violations"].as_array().map(Vec::len), Some(2), "{j}");
    assert_eq!(j["models"]["anything"]["fences_certainty"], "unknown", "{j}");
    let out = litmus()
        .args(["check", "--mode", "active", "--format", "json", "--model", "x86tso.cat"])
        .arg(&sb)
        .output()
        .unwrap();
    // Nothing answers it in active mode: unknown (exit 3), said, no panic.
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json_of(&out)["models"]["x86tso"]["observation_certainty"], "unknown");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_history_under_a_model_from_a_cat_file() {
    let sb = root().join("examples/histories/sb.txt");
    let models = root().join("tests/corpus/models");
    // TSO allows store buffering; herd's x86tso.cat, built in, agrees.
    let out = litmus().args(["history", "--format", "json", "--model", "x86tso.cat"]).arg(&sb).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_of(&out);
    assert_eq!(v["model"], "x86tso");
    assert_eq!(v["verdict"], "consistent");
    assert_eq!(v["method"], "cat");
    // SC forbids it: sc-rmw.cat from a path, its includes found.
    let out = litmus()
        .args(["history", "--cat-include"])
        .arg(models.join("herd"))
        .arg("--model")
        .arg(models.join("sc-rmw.cat"))
        .arg(&sb)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not sc-rmw: the model allows no store order"), "{text}");
    // A built-in model histories have no criterion for.
    let out = litmus().args(["history", "--model", "pso"]).arg(&sb).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sc, tso or a model given as data"));
}

/// Under ARM, RISC-V and C11 a non-robust test's `fences` is its repair
/// (each entry saying what it is), and `fix` writes it: the fixed text,
/// checked again, is robust under the model.
#[test]
fn repairs_are_reported_and_fixed_text_is_robust() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("litmus-cli-{}-repairs", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (arch, model, what) in
        [("aarch64", "aarch64", "instruction"), ("riscv", "riscv", "barrier"), ("c11", "rc11", "order")]
    {
        for shape in ["MP", "SB", "ISA2"] {
            let file = root.join("tests/shapes").join(arch).join(format!("{shape}.litmus"));
            let out = litmus().args(["check", "--format", "json", "--model", model]).arg(&file).output().unwrap();
            let j = json_of(&out);
            let m = &j["models"][model];
            assert_eq!(m["robust"], false, "{arch} {shape}: {j}");
            assert_eq!(m["robust_certainty"], "proved", "{arch} {shape}: {j}");
            assert_eq!(m["fences_confirmed"], true, "{arch} {shape}: {j}");
            let fences = m["fences"].as_array().unwrap();
            assert!(!fences.is_empty() && fences.iter().all(|f| f["cost"].as_u64().is_some_and(|c| c > 0)), "{j}");
            if shape == "MP" {
                assert!(fences.iter().all(|f| f["what"] == what), "{arch} {shape}: {j}");
            }
            let out = litmus().args(["fix", "--model", model]).arg(&file).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            let fixed = dir.join(format!("{arch}-{shape}.litmus"));
            std::fs::write(&fixed, &out.stdout).unwrap();
            let out = litmus().args(["check", "--format", "json", "--model", model]).arg(&fixed).output().unwrap();
            let j = json_of(&out);
            assert_eq!(j["models"][model]["robust"], true, "{arch} {shape} fixed: {j}");
            assert_eq!(j["models"][model]["robust_certainty"], "proved", "{arch} {shape} fixed: {j}");
        }
    }
}

/// `litmus port`: message passing moved from x86 to ARM is not robust
/// against TSO (exit 1, the state only ARM reaches), store buffering is
/// (exit 0); a machine with no definition as data leaves the executions
/// unknown (exit 3) and says which file answers.
#[test]
fn port_compares_a_program_under_two_models() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shape = |s: &str| root.join("tests/shapes/aarch64").join(format!("{s}.litmus"));
    let port = |file: &std::path::Path, from: &str| {
        litmus().args(["port", "--format", "json", "--from", from, "--to", "aarch64"]).arg(file).output().unwrap()
    };
    let out = port(&shape("MP"), "x86tso.cat");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let j = json_of(&out);
    assert_eq!(
        (j["robust"].clone(), j["robust_certainty"].clone()),
        (serde_json::json!(false), serde_json::json!("proved")),
        "{j}"
    );
    assert_eq!(j["gained"][0]["state"], "1:X1 = 1, 1:X3 = 0", "{j}");
    assert!(j["witness"].as_array().is_some_and(|w| w.len() == 4), "{j}");
    let out = port(&shape("SB"), "x86tso.cat");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_of(&out)["robust"], true);
    let out = port(&shape("SB"), "tso");
    assert_eq!(out.status.code(), Some(3));
    let j = json_of(&out);
    assert!(j["robust_note"].as_str().unwrap().contains("x86tso.cat"), "{j}");
    // Both outcome sets are known: nothing gained, nothing lost.
    assert_eq!(
        (j["gained"].clone(), j["lost"].clone(), j["outcomes_complete"].clone()),
        (serde_json::json!([]), serde_json::json!([]), serde_json::json!(true))
    );
    let human = litmus().args(["port", "--from", "x86tso.cat", "--to", "aarch64"]).arg(shape("MP")).output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("executions: not robust against x86tso under aarch64 (proved)"), "{text}");
    assert!(text.contains("final states under aarch64, not under x86tso:\n    * 1:X1 = 1, 1:X3 = 0"), "{text}");
}

/// `fix --goal condition`: only the final condition's outcome must go.
/// Message passing beside an unrelated store buffering: robustness needs
/// the store buffering repaired too, the outcome only message passing's
/// two changes (cost 3), proved the cheapest; the fixed text never reaches
/// it.
#[test]
fn a_repair_for_the_condition_alone_is_cheaper() {
    let dir = std::env::temp_dir().join(format!("litmus-cli-{}-goal", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mpsb.litmus");
    std::fs::write(
        &file,
        "AArch64 MP+SB\n{\n0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; 2:X1=a; 2:X3=b; 3:X1=b; 3:X3=a;\n}\n \
         P0          | P1          | P2          | P3          ;\n \
         MOV W0,#1   | LDR W0,[X1] | MOV W0,#1   | MOV W0,#1   ;\n \
         STR W0,[X1] | LDR W2,[X3] | STR W0,[X1] | STR W0,[X1] ;\n \
         MOV W2,#1   |             | LDR W2,[X3] | LDR W2,[X3] ;\n \
         STR W2,[X3] |             |             |             ;\nexists (1:X0=1 /\\ 1:X2=0)\n",
    )
    .unwrap();
    let out = litmus().args(["fix", "--goal", "condition", "--model", "aarch64"]).arg(&file).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(
            "2 changes of cost 3 — re-checked: the outcome never reached (proved) under aarch64 (the cheapest"
        ),
        "{err}"
    );
    let fixed = dir.join("fixed.litmus");
    std::fs::write(&fixed, &out.stdout).unwrap();
    let j = json_of(&litmus().args(["check", "--format", "json", "--model", "aarch64"]).arg(&fixed).output().unwrap());
    assert_eq!(j["models"]["aarch64"]["observation"], "never", "{j}");
    // Robustness still fails: the store buffering was left alone.
    assert_eq!(j["models"]["aarch64"]["robust"], false, "{j}");
    let whole = litmus().args(["fix", "--model", "aarch64"]).arg(&file).output().unwrap();
    let err = String::from_utf8_lossy(&whole.stderr);
    let cost = |e: &str| e.split("of cost ").nth(1).and_then(|r| r.split(' ').next()?.parse::<u32>().ok());
    assert!(cost(&err).is_some_and(|c| c > 3), "{err}");
}

/// Several models decided on whole candidates: `check` also gives one
/// repair for all of them at once (`joint_repair` in JSON, a line in the
/// human report), re-checked under each; `fix` under the same models
/// makes those changes, and the result is robust under both. One model
/// alone has no joint repair.
#[test]
fn a_joint_repair_for_several_candidate_models() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = root.join("tests/shapes/native/SB.litmus");
    let out = litmus().args(["check", "--format", "json", "--model", "rc11,rc11.cat"]).arg(&file).output().unwrap();
    let j = json_of(&out);
    let joint = &j["joint_repair"];
    assert_eq!(joint["models"], serde_json::json!(["rc11", "rc11.cat"]), "{j}");
    assert_eq!(joint["fences_confirmed"], true, "{j}");
    assert_eq!(joint["fences_certainty"], "proved", "{j}");
    assert_eq!(joint["cheapest"], true, "{j}");
    // Two seq_cst fences, or seq_cst on the four accesses: 8 either way.
    assert_eq!(joint["cost"], 8, "{j}");
    let costs: u64 = joint["fences"].as_array().unwrap().iter().map(|f| f["cost"].as_u64().unwrap()).sum();
    assert_eq!(costs, 8, "{j}");
    let out = litmus().args(["check", "--model", "rc11,rc11.cat"]).arg(&file).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("for all of them at once, 2 changes make it robust under rc11, rc11.cat (cost 8"), "{text}");
    let out = litmus().args(["fix", "--model", "rc11,rc11.cat"]).arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = std::env::temp_dir().join(format!("litmus-cli-{}-joint", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fixed = dir.join("SB.litmus");
    std::fs::write(&fixed, &out.stdout).unwrap();
    let out = litmus().args(["check", "--format", "json", "--model", "rc11,rc11.cat"]).arg(&fixed).output().unwrap();
    let j = json_of(&out);
    for m in ["rc11", "rc11.cat"] {
        assert_eq!(j["models"][m]["robust"], true, "{m}: {j}");
    }
    assert!(j.get("joint_repair").is_none(), "robust: nothing to repair jointly: {j}");
    let out = litmus().args(["check", "--format", "json", "--model", "rc11"]).arg(&file).output().unwrap();
    assert!(json_of(&out).get("joint_repair").is_none());
}
