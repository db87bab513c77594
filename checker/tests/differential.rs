//! The DPOR explorer agrees with the explicit-state reference (state
//! hashing, no reduction) on every example and corpus test, under every
//! model (`Model::ALL`: with the `extra-model` feature, TSLO too): same final states, observation, failing assertions, deadlocks
//! (PSLO: where the reference finishes within 25,000 states; not the
//! four big examples).

use litmus_checker::explore::explore;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_checker::reference;
use std::path::{Path, PathBuf};

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut v = Vec::new();
    for dir in ["examples", "tests/corpus/herd-x86"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "litmus") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

pub fn compare(name: &str, prog: &litmus_ir::Program, opts: &Options) -> Vec<String> {
    let mut bad = Vec::new();
    for model in Model::ALL {
        // PSLO's states (store histories) are many: the reference, which
        // hashes them, is only asked where it finishes quickly.
        let big = ["bakery", "lamport-fast", "ms2-queue", "treiber-stack"];
        if model.has_histories() && big.iter().any(|b| name.contains(b)) {
            continue;
        }
        let cap = if model.has_histories() { 25_000 } else { 2_000_000 };
        let r = reference::explore(prog, model, opts, cap);
        if model.has_histories() && r.visited >= cap {
            continue;
        }
        let d = explore(prog, model, opts);
        let ds: Vec<_> = d.states.iter().map(|s| s.values.clone()).collect();
        let rs: Vec<_> = r.states.iter().map(|s| s.values.clone()).collect();
        let df: Vec<_> = d.failures.iter().map(|f| (f.thread, f.stmt, f.kind)).collect();
        if ds != rs
            || d.known_observation() != r.observation
            || df != r.failures
            || d.complete() != r.complete
            || d.deadlocks.is_empty() == r.deadlock
        {
            bad.push(format!(
                "{name} {:?}: dpor {} states {:?} fails {:?} complete {} deadlock {} | reference {} states {:?} fails {:?} complete {} deadlock {}",
                model,
                ds.len(),
                d.observation,
                df,
                d.complete(),
                !d.deadlocks.is_empty(),
                rs.len(),
                r.observation,
                r.failures,
                r.complete,
                r.deadlock
            ));
        }
    }
    bad
}

#[test]
fn dpor_equals_reference_on_examples_and_corpus() {
    let mut bad = Vec::new();
    for f in files() {
        let src = std::fs::read_to_string(&f).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        for lb in [1, 2] {
            let opts = Options { loop_bound: lb, ..Options::default() };
            bad.extend(compare(&format!("{} (loop bound {lb})", f.display()), &prog, &opts));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
