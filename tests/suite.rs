//! Whole suites end to end: folders and `@all`, shards, JSON Lines, merge,
//! diff and expected verdicts, on the herd corpus and generated suites.
//! Shards are a partition (N = 1…16, `--shard auto` per scheduler,
//! `--shard 3/2^64-1` instant); merged shards are byte-equal to the
//! unsharded run (of an out-of-order `@all` too) and incomplete merges are
//! refused; the corpus with `--expect verdicts.tsv` has no disagreement, a
//! disagreement is named and exits 1, expectations matching nothing exit 3,
//! `--expect auto` reads herd's `.expected` files; `jsonl` and `--jobs`
//! change nothing but order; `diff` names changed verdicts, slower and added
//! files; the docs/suites/ scheduler examples run as their schedulers would;
//! diy-style cycles (`tests/diy/`) get the verdicts the theory of critical
//! cycles gives (SC never; TSO iff an unfenced W→R; PSO iff W→R or W→W).

mod diy;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn litmus() -> Command {
    Command::new(env!("CARGO_BIN_EXE_litmus"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh folder for one test.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("litmus-suite-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The lines of a JSON report: file objects, then the summary.
fn lines(out: &Output) -> (Vec<Value>, Value) {
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v: Vec<Value> =
        text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
    let summary = v.pop().expect("a summary line");
    (v, summary["summary"].clone())
}

/// `n` diy-style tests in `dir` (2–4 threads), in four subfolders.
fn generated_suite(dir: &Path, n: usize) -> Vec<PathBuf> {
    let mut rng = diy::Rng(0x2545_f491_4f6c_dd1d);
    (0..n)
        .map(|i| {
            let p = dir.join(format!("sub{}/t{i:03}.litmus", i % 4));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, diy::random(&mut rng, 4)).unwrap();
            p
        })
        .collect()
}

#[test]
fn generated_cycles_get_the_verdicts_the_theory_of_critical_cycles_gives() {
    // A critical cycle is never SC; x86-TSO shows it iff some thread's
    // write→read pair is unfenced, PSO iff some write→read or write→write is.
    let dir = temp_dir("diy");
    generated_suite(&dir, 60);
    let out = litmus().args(["check", "--format", "jsonl", "--no-timing"]).arg(&dir).output().unwrap();
    let (files, summary) = lines(&out);
    assert_eq!(summary["files"], 60);
    for f in &files {
        let name = f["test"].as_str().unwrap();
        let want = |relaxed: bool| if relaxed { "sometimes" } else { "never" };
        assert_eq!(f["models"]["sc"]["observation"], "never", "{name}");
        assert_eq!(f["models"]["tso"]["observation"], want(name.contains("PodWR")), "{name}");
        let pso = name.contains("PodWR") || name.contains("PodWW");
        assert_eq!(f["models"]["pso"]["observation"], want(pso), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_are_a_partition_for_1_to_16_shards() {
    let dir = temp_dir("partition");
    let mut all: Vec<String> = generated_suite(&dir, 37).iter().map(|p| p.to_string_lossy().into_owned()).collect();
    all.sort();
    for n in 1..=16 {
        let mut seen = Vec::new();
        for k in 1..=n {
            let out = litmus()
                .args(["check", "--format", "jsonl", "--model", "sc", "--no-timing", "--shard", &format!("{k}/{n}")])
                .arg(&dir)
                .output()
                .unwrap();
            assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
            let (files, summary) = lines(&out);
            assert_eq!(summary["files"], files.len());
            seen.extend(files.iter().map(|f| f["file"].as_str().unwrap().to_string()));
        }
        seen.sort();
        assert_eq!(seen, all, "{n} shards: every file exactly once");
    }
    let out = litmus().args(["check", "--shard", "5/4"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("K/N"));
    let out = litmus().args(["check", "--shard", "auto"]).arg(&dir).env("SLURM_ARRAY_TASK_ID", "3").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a task id without a count is no shard");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shard_auto_reads_the_schedulers_variables() {
    let dir = temp_dir("auto");
    generated_suite(&dir, 10);
    let files = |envs: &[(&str, &str)]| {
        let mut c = litmus();
        c.args(["check", "--format", "json", "--model", "sc", "--no-timing", "--shard", "auto"]).arg(&dir);
        for var in ["LITMUS_SHARD", "CI_NODE_INDEX", "CI_NODE_TOTAL", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"] {
            c.env_remove(var);
        }
        c.envs(envs.iter().copied());
        let (f, _) = lines(&c.output().unwrap());
        f.iter().map(|f| f["file"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    let explicit = |k: &str| {
        let out = litmus()
            .args(["check", "--format", "json", "--model", "sc", "--no-timing", "--shard", k])
            .arg(&dir)
            .output()
            .unwrap();
        lines(&out).0.iter().map(|f| f["file"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(files(&[("LITMUS_SHARD", "2/3")]), explicit("2/3"));
    assert_eq!(files(&[("CI_NODE_INDEX", "3"), ("CI_NODE_TOTAL", "3")]), explicit("3/3"));
    let slurm = [("SLURM_ARRAY_TASK_ID", "1"), ("SLURM_ARRAY_TASK_MIN", "0"), ("SLURM_ARRAY_TASK_COUNT", "3")];
    assert_eq!(files(&slurm), explicit("2/3"));
    assert_eq!(files(&[("JOB_COMPLETION_INDEX", "0"), ("LITMUS_SHARD_COUNT", "3")]), explicit("1/3"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merged_shards_equal_the_unsharded_run_and_the_corpus_agrees_with_herd() {
    let corpus = root().join("tests/corpus/herd-x86");
    let verdicts = corpus.join("verdicts.tsv");
    let run = |extra: &[&str]| {
        litmus().args(["check", "--no-timing", "--expect"]).arg(&verdicts).args(extra).arg(&corpus).output().unwrap()
    };
    let whole = run(&["--format", "json"]);
    // Every verdict agrees with herd7's (and the project's PSO model): exit 0.
    assert_eq!(whole.status.code(), Some(0), "{}", String::from_utf8_lossy(&whole.stdout));
    let (files, summary) = lines(&whole);
    assert_eq!(files.len(), 88);
    assert_eq!(summary["expect"]["agree"], 88, "{summary}");
    assert_eq!(summary["expect"]["disagree"], 0, "{summary}");
    assert!(files.iter().all(|f| f["expect"]["verdict"] == "agree"));
    let dir = temp_dir("merge");
    let mut shards = Vec::new();
    for k in 1..=3 {
        let out = run(&["--format", "jsonl", "--shard", &format!("{k}/3"), "--jobs", "2"]);
        let p = dir.join(format!("shard{k}.jsonl"));
        std::fs::write(&p, &out.stdout).unwrap();
        shards.push(p);
    }
    let merged = litmus().arg("merge").args(&shards).output().unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", String::from_utf8_lossy(&merged.stderr));
    assert!(merged.stdout == whole.stdout, "merged shards differ from the unsharded run");
    // A shard given twice is refused.
    let twice = litmus().arg("merge").args([&shards[0], &shards[0]]).output().unwrap();
    assert_eq!(twice.status.code(), Some(2));
    // Issue 26: shard 1's first line replaced by shard 2's first line — one
    // file twice, one missing — was merged with exit 1.
    let first_line = |p: &std::path::Path| std::fs::read_to_string(p).unwrap().lines().next().unwrap().to_string();
    let one = std::fs::read_to_string(&shards[0]).unwrap();
    let edited = one.replacen(&first_line(&shards[0]), &first_line(&shards[1]), 1);
    let mixed = dir.join("mixed1.jsonl");
    std::fs::write(&mixed, edited).unwrap();
    let out = litmus().arg("merge").args([&mixed, &shards[1], &shards[2]]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is reported by more than one shard"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_disagreement_with_the_expectation_is_named_and_exits_1() {
    let dir = temp_dir("expect");
    let sb = root().join("examples/sb.litmus");
    std::fs::copy(&sb, dir.join("sb.litmus")).unwrap();
    // herd7's output for SB, but claiming TSO never shows the outcome.
    let log = "Test SB Allowed\nStates 4\nOk\nObservation SB Never 0 4\n";
    std::fs::write(dir.join("sb.expected"), log).unwrap();
    let out = litmus()
        .args(["check", "--format", "json", "--expect"])
        .arg(dir.join("sb.expected"))
        .arg(dir.join("sb.litmus"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let (files, summary) = lines(&out);
    let d = &files[0]["expect"]["disagreements"][0];
    assert_eq!((d["model"].as_str(), d["what"].as_str()), (Some("tso"), Some("observation")));
    assert_eq!((d["expected"].as_str(), d["got"].as_str()), (Some("never"), Some("sometimes")));
    assert_eq!(summary["expect"]["disagree"], 1);
    let human =
        litmus().args(["check", "--brief", "--expect"]).arg(dir.join("sb.expected")).arg(&dir).output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("disagrees with the expectation: TSO observation \"sometimes\", expected \"never\""),
        "{text}"
    );
    assert!(text.contains("expected verdicts: 0 agree, 1 disagree"), "{text}");
    let bad = litmus().args(["check", "--expect", "/nonexistent.tsv"]).arg(&sb).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn folders_and_indexes_report_each_file_and_what_cannot_be_read() {
    let dir = temp_dir("walk");
    generated_suite(&dir, 3);
    std::fs::write(dir.join("sub0/bad.litmus"), "litmus Bad\nthread P0 { x = ; }\n").unwrap();
    std::fs::write(dir.join("sub1/@all"), "t001.litmus\nmissing.litmus  # listed, not there\n").unwrap();
    std::fs::write(dir.join("sub1/unlisted.litmus"), "not even a test").unwrap();
    let out = litmus().args(["check", "--format", "json", "--model", "sc,tso"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a parse error and an unreadable file");
    let (files, summary) = lines(&out);
    let names: Vec<&str> =
        files.iter().map(|f| f["file"].as_str().unwrap().rsplit_once("litmus-suite").unwrap().1).collect();
    // sub1 follows its index (unlisted.litmus is not checked); the rest is sorted.
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(names[0].ends_with("sub0/bad.litmus") && names[1].ends_with("sub0/t000.litmus"), "{names:?}");
    assert!(names[2].ends_with("sub1/t001.litmus") && names[3].ends_with("sub1/missing.litmus"), "{names:?}");
    assert!(names[4].ends_with("sub2/t002.litmus"), "{names:?}");
    assert_eq!(files[0]["status"], "error");
    assert!(files[3]["error"].as_str().unwrap().contains("cannot read"));
    assert_eq!((summary["files"].as_u64(), summary["error"].as_u64()), (Some(5), Some(2)));
    assert!(summary["time_ms"].as_f64().is_some());
    // Human: the summary table after the files.
    let out = litmus().args(["check", "--brief", "--color", "never", "--model", "sc,tso"]).arg(&dir).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let clean = files.iter().filter(|f| f["status"] == "clean").count();
    let findings = files.iter().filter(|f| f["status"] == "finding").count();
    let line = format!("summary: 5 files — {clean} clean, {findings} with findings, 0 unknown, 2 errors");
    assert!(text.contains(&line), "{line}\n{text}");
    assert!(text.contains("  TSO  "), "{text}");
    // --brief names the parse error and where it is, not only how many.
    let bad = text.lines().find(|l| l.contains("sub0/bad.litmus")).unwrap_or_else(|| panic!("{text}"));
    assert!(bad.contains("  error  Bad  1 error: 2:17: expected expression") && bad.contains("[E0"), "{bad}");
    let empty = temp_dir("empty");
    let out = litmus().arg("check").arg(&empty).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `.litmus` files"));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn jsonl_streams_every_file_once_and_jobs_do_not_change_the_report() {
    let dir = temp_dir("jobs");
    generated_suite(&dir, 24);
    let run = |format: &str, jobs: &str| {
        litmus().args(["check", "--no-timing", "--format", format, "--jobs", jobs]).arg(&dir).output().unwrap()
    };
    let one = run("json", "1");
    assert_eq!(one.stdout, run("json", "4").stdout, "--jobs changes nothing in list order");
    let stream = run("jsonl", "4");
    let (streamed, mut summary) = lines(&stream);
    let (ordered, summary1) = lines(&one);
    // A stream's summary also says where its files stand in the list.
    let shard = summary.as_object_mut().unwrap().remove("shard").expect("a stream places its files");
    assert_eq!(
        (shard["index"].as_u64(), shard["count"].as_u64(), shard["list_files"].as_u64()),
        (Some(1), Some(1), Some(24))
    );
    assert_eq!(summary, summary1);
    // …so merging the stream gives the ordered report, byte for byte.
    let p = dir.join("stream.jsonl");
    std::fs::write(&p, &stream.stdout).unwrap();
    let merged = litmus().arg("merge").arg(&p).output().unwrap();
    assert!(merged.stdout == one.stdout, "a merged stream is the ordered report");
    let key = |v: &Vec<Value>| {
        let mut s: Vec<String> = v.iter().map(|f| f.to_string()).collect();
        s.sort();
        s
    };
    assert_eq!(key(&streamed), key(&ordered), "the same objects, in any order");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn diff_names_changed_verdicts_slower_files_and_added_ones() {
    let dir = temp_dir("diff");
    let tests = dir.join("tests");
    std::fs::create_dir_all(&tests).unwrap();
    let sb = std::fs::read_to_string(root().join("examples/sb.litmus")).unwrap();
    let mp = std::fs::read_to_string(root().join("examples/mp.litmus")).unwrap();
    std::fs::write(tests.join("a.litmus"), &sb).unwrap();
    std::fs::write(tests.join("b.litmus"), &mp).unwrap();
    let report = |name: &str| {
        let out = litmus().args(["check", "--format", "json"]).arg(&tests).output().unwrap();
        let p = dir.join(name);
        std::fs::write(&p, &out.stdout).unwrap();
        p
    };
    let old = report("old.json");
    let same = litmus().arg("diff").args([&old, &old]).output().unwrap();
    assert_eq!(same.status.code(), Some(0), "{}", String::from_utf8_lossy(&same.stdout));
    // The regression: a.litmus gets its fences (TSO no longer shows the
    // outcome); c.litmus appears.
    let fenced = std::fs::read_to_string(root().join("examples/sb-fences.litmus")).unwrap();
    std::fs::write(tests.join("a.litmus"), fenced).unwrap();
    std::fs::write(tests.join("c.litmus"), &mp).unwrap();
    let new = report("new.json");
    let out = litmus().args(["diff", "--format", "json"]).args([&old, &new]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    let changed = d["changed"].as_array().unwrap();
    assert!(
        changed.iter().any(|c| c["file"].as_str().unwrap().ends_with("a.litmus")
            && c["model"] == "tso"
            && c["what"] == "observation"
            && c["old"] == "sometimes"
            && c["new"] == "never"),
        "{d}"
    );
    assert!(changed.iter().all(|c| c["file"].as_str().unwrap().ends_with("a.litmus")), "b is unchanged: {d}");
    assert!(d["added"][0].as_str().unwrap().ends_with("c.litmus"));
    // Slower: b's time grown tenfold and by more than the minimum.
    let text = std::fs::read_to_string(&old).unwrap();
    let slow: String = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["file"].as_str().is_some_and(|f| f.ends_with("b.litmus")) {
                v["time_ms"] = serde_json::json!(v["time_ms"].as_f64().unwrap() * 10.0 + 500.0);
            }
            v.to_string() + "\n"
        })
        .collect();
    std::fs::write(dir.join("slow.json"), slow).unwrap();
    let out = litmus().arg("diff").arg(&old).arg(dir.join("slow.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("b.litmus: ") && text.contains("slower"), "{text}");
    assert!(text.contains("2 files: 0 changed, 1 slower, 0 added, 0 removed"), "{text}");
    let out = litmus().args(["diff", "--min-ms", "1e9"]).arg(&old).arg(dir.join("slow.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "below the minimum, not slower");
    let out = litmus().arg("diff").arg(&old).arg("/nonexistent.json").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Whole runs of two folders, json or jsonl, merge by path.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("z.litmus"), &sb).unwrap();
    let whole = |d: &Path, format: &str, name: &str| {
        let out = litmus().args(["check", "--no-timing", "--format", format]).arg(d).output().unwrap();
        std::fs::write(dir.join(name), &out.stdout).unwrap();
        dir.join(name)
    };
    let (t, o) = (whole(&tests, "jsonl", "t.jsonl"), whole(&other, "jsonl", "o.jsonl"));
    let oj = whole(&other, "json", "o.json");
    for pair in [[&t, &o], [&o, &t], [&t, &oj]] {
        let m = litmus().arg("merge").args(pair).output().unwrap();
        assert_eq!(m.status.code(), Some(1), "{}", String::from_utf8_lossy(&m.stderr));
        let (files, summary) = lines(&m);
        assert_eq!(summary["files"], files.len());
        let names: Vec<&str> = files.iter().map(|f| f["file"].as_str().unwrap()).collect();
        let mut sorted = names.clone();
        sorted.sort_by(|a, b| Path::new(a).cmp(Path::new(b)));
        assert_eq!(names, sorted);
        assert_eq!(names.iter().filter(|n| n.ends_with("z.litmus")).count(), 1, "{names:?}");
    }
    // A report naming one file twice is no report of one run.
    let text = std::fs::read_to_string(&old).unwrap();
    let first = text.lines().next().unwrap();
    std::fs::write(dir.join("twice.json"), format!("{first}\n{text}")).unwrap();
    let out = litmus().arg("diff").arg(&old).arg(dir.join("twice.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("twice"));
    // Output closed early (`| head -1`): no panic, the status still says "changed".
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' diff '{}' '{}' | head -c 1 >/dev/null; echo \"${{PIPESTATUS[0]}}\"",
            env!("CARGO_BIN_EXE_litmus"),
            old.display(),
            dir.join("slow.json").display()
        ))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1", "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run `script` with bash in `dir`, the `litmus` of `bin` first on the PATH,
/// no scheduler's variables but `envs`.
fn shell(dir: &Path, script: &str, envs: &[(&str, String)], bin: &Path) -> Output {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut c = Command::new("bash");
    c.arg("-c").arg(script).current_dir(dir).env("PATH", path);
    for var in ["LITMUS_SHARD", "CI_NODE_INDEX", "CI_NODE_TOTAL", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"] {
        c.env_remove(var);
    }
    c.envs(envs.iter().map(|(k, v)| (*k, v.as_str())));
    c.output().unwrap()
}

/// [`shell`] with this build's `litmus`, for a step that must run (not exit 2); its status.
fn sh(dir: &Path, script: &str, envs: &[(&str, String)]) -> Option<i32> {
    let out = shell(dir, script, envs, &bin_dir());
    assert!(out.status.code().is_some_and(|c| c != 2), "{script}: {}", String::from_utf8_lossy(&out.stderr));
    out.status.code()
}

fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_litmus")).parent().unwrap().to_path_buf()
}

/// The file objects of a report, without their times and expectations, by file.
fn timeless(report: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(report).unwrap_or_else(|e| panic!("{}: {e}", report.display()));
    let files: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("file").is_some())
        .map(|mut v| {
            v.as_object_mut().unwrap().remove("time_ms");
            v.as_object_mut().unwrap().remove("expect");
            v
        })
        .collect();
    // In list order: merge restores it.
    files
}

/// The lines of an example that run `litmus` (not `cargo install`), YAML list
/// markers and keys taken off.
fn litmus_lines(example: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join("docs/suites").join(example)).unwrap();
    text.lines()
        .map(|l| l.trim().trim_start_matches("- ").trim_start_matches("run: ").trim())
        .filter(|l| l.starts_with("litmus "))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_scheduler_examples_in_docs_run_as_their_schedulers_would() {
    let work = temp_dir("schedulers");
    let suite = work.join("tests/litmus");
    generated_suite(&suite, 20);
    // The expected verdicts: what an unsharded run answers.
    let out = litmus().args(["check", "--format", "json"]).arg(&suite).output().unwrap();
    let mut tsv = String::from("file\ttso_observation\n");
    for f in lines(&out).0 {
        let rel = Path::new(f["file"].as_str().unwrap()).strip_prefix(&suite).unwrap().display().to_string();
        tsv += &format!("{rel}\t{}\n", f["models"]["tso"]["observation"].as_str().unwrap());
    }
    std::fs::write(suite.join("verdicts.tsv"), tsv).unwrap();
    let whole = work.join("whole.json");
    sh(&work, "litmus check --format json --expect tests/litmus/verdicts.tsv tests/litmus > whole.json", &[]);
    let want = timeless(&whole);
    assert_eq!(want.len(), 20);

    // GitHub Actions: one job per matrix value, then the merge job.
    let gh = litmus_lines("github-actions.yml");
    assert_eq!(gh.len(), 2, "{gh:?}");
    for k in 1..=4 {
        sh(&work, &gh[0].replace("${{ matrix.shard }}", &k.to_string()), &[]);
    }
    assert_eq!(sh(&work, &gh[1], &[]), Some(0), "every verdict as expected");
    assert!(
        timeless(&work.join("report.json")) == want,
        "GitHub Actions: the merged report differs from the unsharded run"
    );
    // A shard that crashed fails its step, and the merge refuses what is left.
    let crash = work.join("crash");
    std::fs::create_dir_all(&crash).unwrap();
    std::fs::write(crash.join("litmus"), "#!/bin/sh\necho '{\"file\":\"half a line'\nexit 101\n").unwrap();
    std::fs::set_permissions(crash.join("litmus"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let step = gh[0].replace("${{ matrix.shard }}", "3");
    let crashed = shell(&work, &step, &[], &crash);
    assert!(!crashed.status.success(), "a crashed shard fails its step");
    let refused = shell(&work, &gh[1], &[], &bin_dir());
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    std::fs::remove_file(work.join("shard-3.jsonl")).unwrap();
    let refused = shell(&work, &gh[1], &[], &bin_dir());
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("shard 3/4 missing"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    // GitLab `parallel: 4`.
    let _ = std::fs::remove_file(work.join("report.json"));
    for f in std::fs::read_dir(&work).unwrap().map(|e| e.unwrap().path()) {
        if f.extension().is_some_and(|e| e == "jsonl") {
            std::fs::remove_file(f).unwrap();
        }
    }
    let gl = litmus_lines("gitlab-ci.yml");
    for k in 1..=4 {
        sh(&work, &gl[0], &[("CI_NODE_INDEX", k.to_string()), ("CI_NODE_TOTAL", "4".into())]);
    }
    assert_eq!(sh(&work, &gl[1], &[]), Some(0), "every verdict as expected");
    assert!(timeless(&work.join("report.json")) == want, "GitLab: the merged report differs from the unsharded run");
    // A setup error (no shard in the environment) writes no report: the job fails.
    let setup = shell(&work, &gl[0], &[], &bin_dir());
    assert!(!setup.status.success(), "a shard job without its shard fails");

    // Slurm: the sbatch script itself, once per array task (--array=0-7).
    let sbatch = root().join("docs/suites/slurm.sbatch");
    for id in 0..8 {
        let envs = [
            ("SLURM_ARRAY_TASK_ID", id.to_string()),
            ("SLURM_ARRAY_TASK_MIN", "0".into()),
            ("SLURM_ARRAY_TASK_COUNT", "8".into()),
            ("SLURM_CPUS_PER_TASK", "1".into()),
        ];
        assert_eq!(sh(&work, &format!("bash {} tests/litmus", sbatch.display()), &envs), Some(0));
    }
    sh(&work, "litmus merge results/shard-*.jsonl -o results/report.json", &[]);
    assert!(
        timeless(&work.join("results/report.json")) == want,
        "Slurm: the merged report differs from the unsharded run"
    );

    // A Kubernetes Indexed Job: the container's command, per completion index.
    let k8s = litmus_lines("k8s-job.yaml");
    let manifest = std::fs::read_to_string(root().join("docs/suites/k8s-job.yaml")).unwrap();
    assert!(manifest.contains("completions: 6") && manifest.contains("value: \"6\""));
    let results = work.join("k8s");
    std::fs::create_dir_all(&results).unwrap();
    // The image's /suite is the work folder's tests/litmus; /results, k8s/.
    let cmd = k8s[0].replace("/suite", "tests/litmus").replace("/results", "k8s");
    for i in 0..6 {
        sh(&work, &cmd, &[("JOB_COMPLETION_INDEX", i.to_string()), ("LITMUS_SHARD_COUNT", "6".into())]);
    }
    sh(&work, "litmus merge k8s/shard-*.jsonl -o k8s/report.json", &[]);
    assert!(
        timeless(&work.join("k8s/report.json")) == want,
        "Kubernetes: the merged report differs from the unsharded run"
    );
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn shards_of_an_index_merge_back_to_its_order_and_an_incomplete_merge_is_refused() {
    // herd's @all lists tests in its own order, not by path.
    let dir = temp_dir("order");
    let names = ["zz", "aa", "mm", "kk", "bb", "qq", "cc"];
    let mut rng = diy::Rng(0x1234_5678_9abc_def1);
    for n in names {
        std::fs::write(dir.join(format!("{n}.litmus")), diy::random(&mut rng, 3)).unwrap();
    }
    let index: String = names.iter().map(|n| format!("{n}.litmus\n")).collect();
    std::fs::write(dir.join("@all"), index).unwrap();
    let check = |extra: &[&str]| {
        litmus().args(["check", "--no-timing", "--model", "sc,tso"]).args(extra).arg(&dir).output().unwrap()
    };
    let whole = check(&["--format", "json"]);
    let order: Vec<String> = lines(&whole).0.iter().map(|f| f["file"].as_str().unwrap().to_string()).collect();
    assert!(order[0].ends_with("zz.litmus") && order[6].ends_with("cc.litmus"), "{order:?}");
    let out = temp_dir("order-out");
    for n in 1..=5 {
        for format in ["json", "jsonl"] {
            let shards: Vec<PathBuf> = (1..=n)
                .map(|k| {
                    let p = out.join(format!("{n}-{k}.{format}"));
                    std::fs::write(&p, check(&["--format", format, "--shard", &format!("{k}/{n}")]).stdout).unwrap();
                    p
                })
                .collect();
            let merged = litmus().arg("merge").args(shards.iter().rev()).output().unwrap();
            assert!(merged.stdout == whole.stdout, "{n} {format} shards merged differ from the unsharded run");
            if n >= 2 {
                // One shard missing: refused, named; --partial merges the rest and warns.
                let some = litmus().arg("merge").args(&shards[1..]).output().unwrap();
                assert_eq!(some.status.code(), Some(2));
                let err = String::from_utf8_lossy(&some.stderr);
                assert!(err.contains(&format!("shard 1/{n} missing")), "{err}");
                let partial = litmus().args(["merge", "--partial"]).args(&shards[1..]).output().unwrap();
                assert_ne!(partial.status.code(), Some(0), "a partial merge is not a clean run");
                assert!(String::from_utf8_lossy(&partial.stderr).contains("warning: shard 1/"));
                let (files, summary) = lines(&partial);
                assert_eq!(summary["files"].as_u64(), Some(files.len() as u64));
                assert!(files.len() < 7);
            }
        }
    }
    // A shard cut short (no summary) and an empty report are refused.
    let full = std::fs::read_to_string(out.join("3-1.jsonl")).unwrap();
    std::fs::write(out.join("cut.jsonl"), full.lines().next().unwrap().to_string() + "\n").unwrap();
    std::fs::write(out.join("empty.jsonl"), "").unwrap();
    for bad in ["cut.jsonl", "empty.jsonl"] {
        let r = litmus()
            .arg("merge")
            .arg(out.join(bad))
            .arg(out.join("3-2.jsonl"))
            .arg(out.join("3-3.jsonl"))
            .output()
            .unwrap();
        assert_eq!(r.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&r.stderr).contains("has no summary"),
            "{bad}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
    }
    // Killed mid-line (the last line half written): refused, or with
    // --partial merged without it, each named.
    let mid = &full[..full.len() / 2];
    assert!(!mid.contains("summary"));
    std::fs::write(out.join("mid.jsonl"), mid).unwrap();
    let rest = [out.join("3-2.jsonl"), out.join("3-3.jsonl")];
    let r = litmus().arg("merge").arg(out.join("mid.jsonl")).args(&rest).output().unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("ends mid-line"), "{}", String::from_utf8_lossy(&r.stderr));
    let r = litmus().args(["merge", "--partial"]).arg(out.join("mid.jsonl")).args(&rest).output().unwrap();
    assert_ne!(r.status.code(), Some(2), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(String::from_utf8_lossy(&r.stderr).contains("warning: shard 1/3 missing"));
    // A line in the middle that is not JSON is a broken report, not a cut one.
    std::fs::write(out.join("broken.jsonl"), format!("{{oops\n{full}")).unwrap();
    let r = litmus().args(["merge", "--partial"]).arg(out.join("broken.jsonl")).args(&rest).output().unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("line 1: not JSON"));
    // Shards of different splits are not one run.
    let r = litmus().arg("merge").arg(out.join("2-1.json")).arg(out.join("3-2.json")).output().unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("not one run"));
    // Far more shards than files: cheap, and the shards past the files are empty.
    let t0 = std::time::Instant::now();
    let huge = check(&["--format", "json", "--shard", "3/18446744073709551615"]);
    assert_eq!(huge.status.code().map(|c| c <= 1), Some(true), "{}", String::from_utf8_lossy(&huge.stderr));
    assert_eq!(lines(&huge).0.len(), 1);
    let none = check(&["--format", "json", "--shard", "4000000000/18446744073709551615"]);
    assert_eq!((none.status.code(), lines(&none).0.len()), (Some(0), 0));
    assert!(t0.elapsed() < std::time::Duration::from_secs(5), "{:?}", t0.elapsed());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&out);
}

/// Issue 26: `--model pslo` against a TSV with only SC/TSO columns (one
/// of them wrong) said "2 agree": nothing was compared.
#[test]
fn expectations_for_other_models_are_no_expectation() {
    let dir = temp_dir("other-model-tsv");
    let corpus = root().join("tests/corpus/herd-x86");
    for f in ["catalogue__demo__tests__mp-x86.litmus", "catalogue__x86_64__tests__LB.litmus"] {
        std::fs::copy(corpus.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("verdicts.tsv"),
        "file\tsc_observation\ttso_observation\n\
         catalogue__demo__tests__mp-x86.litmus\tnever\tsometimes\n\
         catalogue__x86_64__tests__LB.litmus\tnever\tnever\n",
    )
    .unwrap();
    let out = litmus()
        .args(["check", "--format", "json", "--model", "pslo", "--expect"])
        .arg(dir.join("verdicts.tsv"))
        .arg(&dir)
        .output()
        .unwrap();
    let (files, summary) = lines(&out);
    assert_eq!(files.len(), 2);
    assert!(files.iter().all(|f| f.get("expect").is_none()), "{files:?}");
    assert_eq!(summary["expect"]["agree"], 0, "{summary}");
    assert_eq!(summary["expect"]["no_expectation"], 2, "{summary}");
    assert_eq!(out.status.code(), Some(3), "nothing compared is not a clean run");
    // The TSO column is compared, and its wrong row named.
    let out = litmus()
        .args(["check", "--format", "json", "--expect"])
        .arg(dir.join("verdicts.tsv"))
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(lines(&out).1["expect"]["disagree"], 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn expectations_that_match_nothing_are_not_a_clean_run() {
    let dir = temp_dir("stale-tsv");
    generated_suite(&dir, 2);
    std::fs::write(dir.join("wrong.tsv"), "file\ttso_observation\nghost.litmus\tnever\n").unwrap();
    let out = litmus().args(["check", "--brief", "--expect"]).arg(dir.join("wrong.tsv")).arg(&dir).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("ghost.litmus") && err.contains("does not exist"), "{err}");
    assert!(err.contains("no file of this run has an expectation"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn expect_auto_reads_herds_expected_files_and_folder_tsvs_beside_the_tests() {
    // herd's own layout: `A006.litmus` beside `A006.litmus.expected`
    // (herd7's output for it), and a folder with a verdicts.tsv.
    let dir = temp_dir("auto-expect");
    let corpus = root().join("tests/corpus/herd-x86");
    std::fs::create_dir_all(dir.join("X86_64")).unwrap();
    std::fs::create_dir_all(dir.join("cat")).unwrap();
    let herd_log = |name: &str, obs: &str, states: u32| {
        format!("Test {name} Allowed\nStates {states}\nOk\nObservation {name} {obs} 0 {states}\nTime {name} 0.01\n")
    };
    for (test, obs, states) in [("A006", "Never", 2), ("A007", "Always", 1)] {
        std::fs::copy(
            corpus.join(format!("herd__tests__instructions__X86_64__{test}.litmus")),
            dir.join(format!("X86_64/{test}.litmus")),
        )
        .unwrap();
        std::fs::write(dir.join(format!("X86_64/{test}.litmus.expected")), herd_log(test, obs, states)).unwrap();
    }
    std::fs::copy(corpus.join("catalogue__x86_64__tests__SB.litmus"), dir.join("cat/SB.litmus")).unwrap();
    std::fs::write(dir.join("cat/verdicts.tsv"), "file\ttso_observation\nSB.litmus\tsometimes\n").unwrap();
    let run = || {
        let out =
            litmus().args(["check", "--format", "json", "--no-timing", "--expect", "auto"]).arg(&dir).output().unwrap();
        let (files, summary) = lines(&out);
        (out.status.code(), files, summary)
    };
    let (code, files, summary) = run();
    assert_eq!(files.len(), 3);
    assert_eq!(summary["expect"]["agree"], 3, "{summary}");
    assert_eq!(code, Some(0));
    // Were herd to say A007 is Sometimes, the run would name the disagreement.
    std::fs::write(dir.join("X86_64/A007.litmus.expected"), herd_log("A007", "Sometimes", 1)).unwrap();
    let (code, files, summary) = run();
    assert_eq!(code, Some(1));
    assert_eq!(summary["expect"]["disagree"], 1, "{summary}");
    let a007 = files.iter().find(|f| f["file"].as_str().unwrap().ends_with("A007.litmus")).unwrap();
    assert_eq!(a007["expect"]["disagreements"][0]["expected"], "sometimes", "{a007}");
    // A test's own .expected wins over a folder TSV, whichever is read first.
    std::fs::write(dir.join("X86_64/A007.litmus.expected"), herd_log("A007", "Always", 1)).unwrap();
    std::fs::copy(corpus.join("herd__tests__instructions__X86_64__A008.litmus"), dir.join("X86_64/A008.litmus"))
        .unwrap();
    std::fs::write(
        dir.join("X86_64/verdicts.tsv"),
        "file\ttso_observation\nA006.litmus\tsometimes\nA007.litmus\tnever\nA008.litmus\talways\n",
    )
    .unwrap();
    let (code, files, summary) = run();
    assert_eq!((code, summary["expect"]["agree"].as_u64()), (Some(0), Some(4)), "{files:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}
