//! `$/progress` during a long check (`tests/programs/slow.litmus`) carries
//! what the checker reports — "TSO: outcomes · 12,345 executions", the
//! words of the CLI's bar — with a growing count, no percentage; when an
//! edit cancels the first check, both checks' progress ends.

mod harness;

use harness::{example, uri, Client};
use serde_json::{json, Value};

/// "SC: executions and monitors · 1,234 executions" → ("SC: executions and monitors", 1234).
fn parse(message: &str) -> Option<(String, u64)> {
    let (phase, count) = message.rsplit_once(" · ")?;
    let n = count.strip_suffix(" executions").or_else(|| count.strip_suffix(" execution"))?;
    Some((phase.to_string(), n.replace(',', "").parse().ok()?))
}

fn progress_values(log: &[Value]) -> Vec<Value> {
    log.iter().filter(|m| m["method"] == "$/progress").map(|m| m["params"]["value"].clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reports_carry_phase_and_executions() {
    // The bounded engine's minutes of PSO exploration (the unbounded
    // procedure decides slow.litmus in milliseconds).
    let caps = json!({"window": {"workDoneProgress": true}, "workspace": {"codeLens": {"refreshSupport": true}}});
    let (mut c, _) = Client::start(caps, json!({"testHooks": true, "debounceMs": 0, "unbounded": false})).await;
    let u = uri("slow.litmus");
    let slow = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/programs/slow.litmus")).unwrap();
    c.open(&u, &slow);
    // Minutes of PSO exploration: wait for two reports with executions.
    let reported = |m: &Value| {
        m["method"] == "$/progress"
            && m["params"]["value"]["kind"] == "report"
            && m["params"]["value"]["message"].as_str().and_then(parse).is_some_and(|(_, n)| n > 0)
    };
    c.wait_for("a progress report", reported).await;
    c.wait_for("another progress report", reported).await;
    let values = progress_values(&c.log);
    let begin = values.iter().find(|v| v["kind"] == "begin").expect("begun");
    assert!(begin["title"].as_str().unwrap().contains("slow.litmus"), "{begin:#}");
    assert!(parse(begin["message"].as_str().unwrap()).is_some(), "{begin:#}");
    let reports: Vec<(String, u64)> = values
        .iter()
        .filter(|v| v["kind"] == "report")
        .map(|v| {
            assert!(v.get("percentage").is_none_or(Value::is_null), "no percentage: {v:#}");
            parse(v["message"].as_str().unwrap()).unwrap_or_else(|| panic!("{v:#}"))
        })
        .collect();
    assert!(reports.windows(2).all(|w| w[0].1 <= w[1].1), "the count only grows: {reports:?}");
    // "MODEL: phase" or a phase over several models ("fences": the joint ones).
    let phases = ["executions and monitors", "harm", "fences", "outcomes", "active testing"];
    let known = |p: &str| match p.split_once(": ") {
        Some((model, phase)) => ["SC", "TSO", "PSO", "PSLO"].contains(&model) && phases.contains(&phase),
        None => phases.contains(&p),
    };
    assert!(reports.iter().all(|(p, _)| known(p)), "{reports:?}");
    // An edit cancels the check: its progress ends (as does the new text's).
    c.replace_all(&u, 2, &example("sb.litmus"));
    c.settled(&u, 2).await;
    let ended = |log: &[Value]| {
        let of = |kind: &str| -> Vec<Value> {
            log.iter()
                .filter(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == kind)
                .map(|m| m["params"]["token"].clone())
                .collect()
        };
        let begun = of("begin");
        begun.len() == 2 && begun.iter().all(|t| of("end").contains(t))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !ended(&c.log) && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        c.drain();
    }
    assert!(ended(&c.log), "{:#?}", progress_values(&c.log));
}
