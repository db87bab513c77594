//! The cat evaluator (`litmus-cat`) against the machines, as a test oracle
//! (issue 45): every complete execution the explorers visit under SC and
//! TSO (`explore_with`: DPOR's runs, or the graph explorer's graphs
//! linearized), and every final state's witness, turned into a cat
//! execution, is judged by herd's own models.
//!
//! - every SC execution is allowed by `sc-rmw.cat` (the corpus's `sc.cat`
//!   with the `rmw` edge, see `tests/corpus/README.md`) and `x86tso.cat`;
//! - every TSO execution is allowed by `x86tso.cat` (and, for X86_64 corpus
//!   files, by `x86tso-mixed.cat`, herd's model for them);
//! - every TSO witness whose final state SC does not reach is forbidden by
//!   `sc-rmw.cat`, by its `sc` cycle.
//!
//! Time: nearly all of it is `cos.cat` enumerating every coherence order
//! (`generate_cos`, the product of each location's linearisations) before
//! the evaluator keeps the execution's own: Lamport's fast mutex, with several
//! writes to each of its cells, takes most of the run (about 12 s of 13).
//!
//! Programs: the 88 herd x86 corpus tests and the native examples
//! (`examples/*.litmus`). A program whose witnesses the conversion cannot
//! represent is skipped with a counted reason, never silently.
//!
//! The conversion, as herd's x86 has its events: one initial write (`IW`,
//! `W`) per cell the execution touches; a `Load` is an `R`; a `Store` a
//! `W` (under TSO its `Commit` is not an event: its place in the log is the
//! write's place in `co`); an `Rmw` two events, an `R` and a `W` of one
//! instruction (`same-instance`, not `po`-ordered with each other), both in
//! `X` (herd's locked accesses: stdlib.cat's `amo`, hence `rmw`, and
//! x86tso.cat's implied fences read `X`); a failed `cas` (a load marked
//! `ATOMIC_READ`) an `R` in `X`; a fence an `F` with its tag set
//! (`MFENCE` for a full fence — and for `fence wr`, which drains the buffer
//! as MFENCE does —, `SFENCE` for `fence ww`, `LFENCE` for `fence rr`).

use litmus_cat::eval::{evaluate, Execution, Options as CatOptions, Rel, Verdict};
use litmus_cat::Model as CatModel;
use litmus_checker::dpor::ExecKind;
use litmus_checker::explore::explore_with;
use litmus_checker::graph::axioms::log_execution;
use litmus_checker::machine::{Event, EventKind, Model, NONE};
use litmus_checker::options::Options;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cat(rel: &str) -> CatModel {
    let models = root().join("tests/corpus/models");
    let p = models.join(rel);
    // The corpus's own models include herd's library (and its stdlib.cat).
    CatModel::load(&p, &[models.join("herd")]).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

struct Program {
    name: String,
    prog: litmus_ir::Program,
    /// An X86_64 corpus file: herd's TSO model for it is x86tso-mixed.cat.
    x86_64: bool,
}

fn programs() -> Vec<Program> {
    let dir = root().join("tests/corpus/herd-x86");
    let tsv = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let mut out = Vec::new();
    for line in tsv.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let src = std::fs::read_to_string(dir.join(c[0])).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap_or_else(|| panic!("{} does not lower", c[0]));
        out.push(Program { name: c[0].to_string(), prog, x86_64: c[2] == "X86_64" });
    }
    assert_eq!(out.len(), 88, "the corpus has 88 tests");
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    examples.sort();
    for p in examples {
        let src = std::fs::read_to_string(&p).unwrap();
        let name = format!("examples/{}", p.file_name().unwrap().to_string_lossy());
        let prog = litmus_dsl::analyze(&src).program.unwrap_or_else(|| panic!("{name} does not lower"));
        out.push(Program { name, prog, x86_64: false });
    }
    out
}

/// An execution's sets and relations: what a verdict depends on.
type Key = (BTreeMap<String, litmus_cat::eval::Set>, BTreeMap<String, Rel>);

/// A model and the verdicts it gave, by execution (a final state's
/// witness is usually one of the graphs visited: judged once).
struct Judge {
    name: &'static str,
    model: CatModel,
    seen: HashMap<Key, Verdict>,
}

impl Judge {
    fn new(name: &'static str, rel: &str) -> Judge {
        Judge { name, model: cat(rel), seen: HashMap::new() }
    }
}

/// One judgement: `want` allowed or forbidden.
fn judge(j: &mut Judge, x: &Execution, want_allowed: bool, what: &str, bad: &mut Vec<String>) -> Verdict {
    let mname = j.name;
    let key = (x.sets.clone(), x.rels.clone());
    let v = match j.seen.get(&key) {
        Some(v) => v.clone(),
        None => {
            let v =
                evaluate(&j.model, x, &CatOptions::default()).unwrap_or_else(|e| panic!("{what} under {mname}: {e}"));
            j.seen.insert(key, v.clone());
            v
        }
    };
    if v.allowed() != want_allowed {
        let fails = v.failed().join(", ");
        bad.push(if want_allowed {
            format!("{what}: {mname} forbids it (failing: {fails})")
        } else {
            format!("{what}: {mname} allows it (no check fails)")
        });
    }
    v
}

#[test]
fn herd_models_agree_with_the_machines() {
    let mut sc_rmw = Judge::new("sc-rmw.cat", "sc-rmw.cat");
    let mut tso = Judge::new("x86tso.cat", "herd/x86tso.cat");
    let mut mixed = Judge::new("x86tso-mixed.cat", "herd/x86tso-mixed.cat");
    let mut bad = Vec::new();
    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut features: BTreeMap<&str, usize> = BTreeMap::new();
    let mut checked = 0;
    let opts = Options::default();
    'programs: for p in programs() {
        // Every complete execution each explorer visits (DPOR's, or the
        // graph explorer's graphs linearized), and the outcome with one
        // witness per final state.
        let visited = |model| {
            let mut graphs: Vec<Vec<Event>> = Vec::new();
            let out = explore_with(&p.prog, model, &opts, |e| {
                if e.kind == ExecKind::Complete {
                    graphs.push(e.events.to_vec());
                }
            });
            (out, graphs)
        };
        let (sc, sc_runs) = visited(Model::Sc);
        let (tsos, tso_runs) = visited(Model::Tso);
        // Convert everything first: a program is checked whole or skipped.
        let convert = |out: &litmus_checker::ModelOutcome, runs: &[Vec<Event>], is_sc: bool| {
            let mut states = Vec::new();
            for s in &out.states {
                states.push((s.values.clone(), log_execution(&s.witness.events, is_sc)?));
            }
            // The same graph reached by many interleavings is judged once.
            let mut seen: HashSet<Key> = HashSet::new();
            let mut graphs = Vec::new();
            for r in runs {
                let x = log_execution(r, is_sc)?;
                if seen.insert((x.sets.clone(), x.rels.clone())) {
                    graphs.push(x);
                }
            }
            Ok::<_, String>((states, graphs, runs.len()))
        };
        let ((sc_x, sc_graphs, sc_n), (tso_x, tso_graphs, tso_n)) =
            match (convert(&sc, &sc_runs, true), convert(&tsos, &tso_runs, false)) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(why), _) | (_, Err(why)) => {
                    skipped.entry(why).or_default().push(p.name.clone());
                    continue 'programs;
                }
            };
        for (out, m) in [(&sc, "SC"), (&tsos, "TSO")] {
            if !out.complete() {
                *counts
                    .entry(if m == "SC" {
                        "SC explorations within bounds only"
                    } else {
                        "TSO explorations within bounds only"
                    })
                    .or_default() += 1;
            }
        }
        // What the TSO graphs exercise of the conversion.
        for r in &tso_runs {
            let has = |f: &dyn Fn(&Event) -> bool| r.iter().any(f);
            for (k, yes) in [
                ("TSO graphs with an atomic (X)", has(&|e| e.is_atomic())),
                ("TSO graphs with a fence", has(&|e| matches!(e.kind, EventKind::Fence(_)))),
                (
                    "TSO graphs with a forwarded read",
                    has(&|e| e.kind == EventKind::Load && e.rf != NONE && r[e.rf as usize].kind == EventKind::Store),
                ),
            ] {
                *features.entry(k).or_default() += yes as usize;
            }
        }
        *counts.entry("SC executions visited (complete)").or_default() += sc_n;
        *counts.entry("TSO executions visited (complete)").or_default() += tso_n;
        for x in &sc_graphs {
            let what = format!("{} an SC execution", p.name);
            judge(&mut sc_rmw, x, true, &what, &mut bad);
            judge(&mut tso, x, true, &what, &mut bad);
            *counts.entry("SC execution graph: sc-rmw.cat, x86tso.cat allow").or_default() += 1;
        }
        for x in &tso_graphs {
            let what = format!("{} a TSO execution", p.name);
            judge(&mut tso, x, true, &what, &mut bad);
            *counts.entry("TSO execution graph: x86tso.cat allows").or_default() += 1;
            if p.x86_64 {
                judge(&mut mixed, x, true, &what, &mut bad);
                *counts.entry("TSO execution graph (X86_64): x86tso-mixed.cat allows").or_default() += 1;
            }
        }
        checked += 1;
        let sc_states: BTreeSet<&Vec<i64>> = sc_x.iter().map(|(v, _)| v).collect();
        for (values, x) in &sc_x {
            let what = format!("{} SC state {values:?}", p.name);
            judge(&mut sc_rmw, x, true, &what, &mut bad);
            judge(&mut tso, x, true, &what, &mut bad);
            *counts.entry("SC witness: sc-rmw.cat, x86tso.cat allow").or_default() += 1;
        }
        for (values, x) in &tso_x {
            let what = format!("{} TSO state {values:?}", p.name);
            judge(&mut tso, x, true, &what, &mut bad);
            *counts.entry("TSO witness: x86tso.cat allows").or_default() += 1;
            if p.x86_64 {
                judge(&mut mixed, x, true, &what, &mut bad);
                *counts.entry("TSO witness (X86_64): x86tso-mixed.cat allows").or_default() += 1;
            }
            if !sc_states.contains(values) {
                if sc.complete() {
                    // Forbidden by its cycle, not by atomicity.
                    let v = judge(&mut sc_rmw, x, false, &what, &mut bad);
                    if !v.allowed() && v.failed() != ["sc"] {
                        bad.push(format!("{what}: sc-rmw.cat forbids it by {:?}, not by the sc cycle", v.failed()));
                    }
                    *counts.entry("TSO-only witness: sc-rmw.cat forbids").or_default() += 1;
                } else {
                    *counts.entry("TSO-only witness, SC incomplete: not judged by sc-rmw.cat").or_default() += 1;
                }
            }
        }
    }
    eprintln!("cat oracle: {checked} programs checked");
    for (k, n) in &counts {
        eprintln!("  {n:5} {k}");
    }
    for (k, n) in &features {
        eprintln!("  {n:5} {k}");
    }
    let nskipped: usize = skipped.values().map(Vec::len).sum();
    eprintln!("  skipped {nskipped} programs:");
    for (why, names) in &skipped {
        eprintln!("    {why}: {}", names.join(", "));
    }
    assert!(bad.is_empty(), "{} disagreements:\n{}", bad.len(), bad.join("\n"));
    // The oracle must have judged the corpus, not skipped it.
    assert!(checked >= 88, "only {checked} programs checked");
    // And has teeth: relaxed outcomes forbidden, atomics, fences and
    // forwarding exercised.
    assert!(counts.get("TSO-only witness: sc-rmw.cat forbids").is_some_and(|&n| n > 0), "{counts:?}");
    assert!(features.values().all(|&n| n > 0) && features.len() == 3, "{features:?}");
}
