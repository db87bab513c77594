//! Every example states its expected outcome per model in a line
//! `// Expected: SC never; TSO sometimes; PSO sometimes; PSLO sometimes` (observation of the
//! final condition) or `SC asserts hold; TSO assert fails (P0 line 19, ...)`.
//! The checker must agree, and the exploration must be complete — unless the
//! expectation ends in `(within bounds)` (a loop that can spin forever is cut
//! at any bound), and then it must be exactly that.

use litmus_checker::explore::explore;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_checker::Coverage;
use std::collections::BTreeSet;
use std::path::Path;

#[derive(Debug, PartialEq)]
enum Expect {
    Observation(String),
    Asserts(BTreeSet<(String, u32)>),
}

fn parse(line: &str) -> Vec<(Model, Expect, bool)> {
    let body = line.split_once("Expected:").unwrap().1;
    body.split(';')
        .map(|part| {
            let part = part.trim();
            let (model, rest) = part.split_once(' ').unwrap();
            let model = match model {
                "SC" => Model::Sc,
                "TSO" => Model::Tso,
                "PSO" => Model::Pso,
                "PSLO" => Model::Pslo,
                m => Model::parse_in(&m.to_ascii_lowercase(), &[])
                    .unwrap_or_else(|e| panic!("unknown model {m} in {line}: {e}")),
            };
            let rest = rest.trim();
            let (rest, bounded) = match rest.strip_suffix("(within bounds)") {
                Some(r) => (r.trim(), true),
                None => (rest, false),
            };
            let e = if rest.starts_with("asserts hold") {
                Expect::Asserts(BTreeSet::new())
            } else if let Some(list) = rest.strip_prefix("assert fails (") {
                let list = list.trim_end_matches(')');
                Expect::Asserts(
                    list.split(',')
                        .map(|x| {
                            let mut w = x.split_whitespace();
                            let t = w.next().unwrap().to_string();
                            assert_eq!(w.next(), Some("line"));
                            (t, w.next().unwrap().parse().unwrap())
                        })
                        .collect(),
                )
            } else {
                Expect::Observation(rest.to_string())
            };
            (model, e, bounded)
        })
        .collect()
}

#[test]
fn examples_have_their_expected_outcomes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut checked = 0;
    let mut bad = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for path in names.iter().filter(|p| p.extension().is_some_and(|x| x == "litmus")) {
        let src = std::fs::read_to_string(path).unwrap();
        let line = src
            .lines()
            .find(|l| l.contains("// Expected:"))
            .unwrap_or_else(|| panic!("{} has no `// Expected:` line", path.display()));
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        for (model, expect, bounded) in parse(line) {
            let out = explore(&prog, model, &Options::default());
            let got = match &expect {
                Expect::Observation(_) => {
                    Expect::Observation(out.known_observation().map(|o| o.as_str()).unwrap_or("-").into())
                }
                Expect::Asserts(_) => Expect::Asserts(
                    out.failures
                        .iter()
                        .map(|f| (prog.threads[f.thread as usize].name.clone(), prog.stmts[f.stmt as usize].line))
                        .collect(),
                ),
            };
            if got != expect {
                bad.push(format!("{} {:?}: expected {:?}, got {:?}", path.display(), model, expect, got));
            }
            match (out.coverage, bounded) {
                (Coverage::Complete, false) => {}
                (Coverage::Bounded(c), true) if c.preemption_bound == 0 && c.buffer_bound == 0 => {}
                (c, _) => bad.push(format!(
                    "{} {:?}: exploration is {} but the example expects {}",
                    path.display(),
                    model,
                    c.qualifier(),
                    if bounded { "it within the loop bound" } else { "it complete" }
                )),
            }
            if !out.deadlocks.is_empty() {
                bad.push(format!("{} {:?}: unexpected deadlock", path.display(), model));
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} expectations");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
