//! The candidate explorer (herd7's method: threads run alone with guessed
//! read values, then every value-matching rf and every co judged by the
//! model) against herd7's verdicts and against the graph explorer:
//!
//! - the 88 herd x86 corpus tests under `sc-rmw.cat`, `x86tso.cat`
//!   (`x86tso-mixed.cat` for X86_64) and `x86pso.cat`: herd7's observation
//!   and state count, and the graph explorer's final states;
//! - generated native programs (`LITMUS_CANDIDATE_PROGRAMS`, default 300):
//!   the same outcome as the graph explorer under `x86tso.cat`;
//! - models the graph explorer cannot answer (they allow load buffering):
//!   LB allowed without dependencies, forbidden by a model that orders
//!   each dependency kind (`addr`, `data`, `ctrl`) where the program has it.

mod common;

use litmus_checker::check::check;
use litmus_checker::machine::Model;
use litmus_checker::options::{ExplorerKind, Options};
use litmus_checker::outcome::ModelOutcome;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, TestRng, TestRunner};

use common::{cat, root};

fn candidates() -> Options {
    Options { explorer: ExplorerKind::Candidates, ..Options::default() }
}

/// Final states (values and condition), failures, deadlocks, observation.
fn summary(o: &ModelOutcome) -> String {
    let states: Vec<String> = o.states.iter().map(|s| format!("{:?}{:?}", s.values, s.satisfies)).collect();
    let failures: Vec<String> = o.failures.iter().map(|f| format!("{}:{:?}", f.stmt, f.kind)).collect();
    format!(
        "states {} failures {} deadlocks {} observation {:?} complete {}",
        states.join(" "),
        failures.join(" "),
        o.deadlocks.len().min(1),
        o.known_observation(),
        o.complete()
    )
}

#[test]
fn corpus_candidates_agree_with_herd_and_graphs() {
    let dir = root().join("tests/corpus/herd-x86");
    let tsv = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let (sc, tso, mixed, pso) = (cat("sc-rmw.cat"), cat("x86tso.cat"), cat("x86tso-mixed.cat"), cat("x86pso.cat"));
    let (by_candidates, by_graphs) = (candidates(), Options::default());
    let mut bad = Vec::new();
    let mut rows = 0;
    for line in tsv.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let src = std::fs::read_to_string(dir.join(c[0])).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap_or_else(|| panic!("{} does not lower", c[0]));
        let tso_cat = if c[2] == "X86_64" { mixed } else { tso };
        for (given, obs_col, states_col) in [(sc, 4, 5), (tso_cat, 6, 7), (pso, 8, 9)] {
            let out = &check(&prog, &[given], &by_candidates)[0];
            bad.extend(common::herd_difference(&c, given, out, obs_col, states_col));
            let graphs = &check(&prog, &[given], &by_graphs)[0];
            if summary(out) != summary(graphs) {
                bad.push(format!(
                    "{} {}:\n  candidates {}\n  graphs     {}",
                    c[0],
                    given.as_str(),
                    summary(out),
                    summary(graphs)
                ));
            }
        }
        rows += 1;
    }
    assert_eq!(rows, 88);
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn generated_programs_candidates_agree_with_graphs() {
    let n = std::env::var("LITMUS_CANDIDATE_PROGRAMS").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &[47; 32]),
    );
    let strat = common::program(2..4, 1..5, true);
    let (sc, tso) = (cat("sc-rmw.cat"), cat("x86tso.cat"));
    // Candidates multiply (values × rf × co): a program with many writes
    // to one cell goes past a small work budget, and says so.
    let mut by_candidates = candidates();
    by_candidates.budget.max_steps = Some(20_000);
    let by_graphs = Options::default();
    let mut bad = Vec::new();
    let (mut compared, mut finished) = (0usize, 0usize);
    for i in 0..n {
        let src = common::render(&strat.new_tree(&mut runner).unwrap().current());
        let prog = common::compile(&src);
        for given in [sc, tso] {
            let a = &check(&prog, &[given], &by_candidates)[0];
            let b = &check(&prog, &[given], &by_graphs)[0];
            compared += 1;
            finished += usize::from(a.complete());
            // A search cut short answers for what it reached: compared
            // only where both finished.
            if a.complete() && b.complete() && summary(a) != summary(b) {
                bad.push(format!(
                    "program {i} {}:\n  candidates {}\n  graphs     {}\n{src}",
                    given.as_str(),
                    summary(a),
                    summary(b)
                ));
            }
        }
    }
    eprintln!("{n} programs, {compared} checks, {finished} finished within the budget, {} differences", bad.len());
    assert!(finished * 10 >= compared * 7, "only {finished} of {compared} checks finished");
    assert!(
        bad.is_empty(),
        "{} differences:\n{}",
        bad.len(),
        bad.iter().take(3).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// A model file written to a temporary directory, loaded.
fn model(name: &str, text: &str) -> Model {
    let dir = std::env::temp_dir().join(format!("litmus-candidates-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{name}.cat"));
    std::fs::write(&p, text).unwrap();
    Model::parse_in(p.to_str().unwrap(), &[root().join("tests/corpus/models/herd")]).unwrap_or_else(|e| panic!("{e}"))
}

/// LB with `p0` and `p1` as the threads' bodies (each reads one cell into
/// `r0`/`r1`, then writes the other's).
fn lb(p0: &str, p1: &str) -> String {
    format!(
        "litmus LB\nshared x = 0;\nshared y = 0;\nshared a[2] = {{0, 0}};\n\
         thread P0 {{\n{p0}\n}}\nthread P1 {{\n{p1}\n}}\n\
         exists (P0:r0 == 1 && P1:r1 == 1);\n"
    )
}

#[test]
fn load_buffering_and_dependencies() {
    // Coherence only: LB is allowed whatever the dependencies.
    let weak = model("coherent", "\"coherent\"\nacyclic po-loc | rf | co | fr as sc-per-location\n");
    // Coherence, and no cycle of dependencies and external reads-from.
    let deps = model(
        "deps",
        "\"deps\"\nacyclic po-loc | rf | co | fr as sc-per-location\nacyclic addr | data | ctrl | rfe as no-thin-air\n",
    );
    let observed = |m: Model, src: &str| {
        let prog = litmus_dsl::analyze(src).program.unwrap_or_else(|| panic!("does not lower:\n{src}"));
        let out = &check(&prog, &[m], &Options::default())[0];
        assert!(out.complete(), "{src}");
        out.known_observation().map(|o| o.as_str()).unwrap_or("-").to_string()
    };
    let (r0, r1) = ("  let r0 = x;\n", "  let r1 = y;\n");
    let plain = lb(&format!("{r0}  y = 1;"), &format!("{r1}  x = 1;"));
    let ctrl = lb(&format!("{r0}  if (r0 == 1) {{ y = 1; }}"), &format!("{r1}  if (r1 == 1) {{ x = 1; }}"));
    let ctrl_one = lb(&format!("{r0}  if (r0 == 1) {{ y = 1; }}"), &format!("{r1}  x = 1;"));
    let data_ctrl = lb(&format!("{r0}  y = r0;"), &format!("{r1}  if (r1 == 1) {{ x = 1; }}"));
    // P0 writes y at an address computed from r0 (a[r0 - r0] is a[0]);
    // P1 reads a[0] for y.
    let addr = lb(&format!("{r0}  a[r0 - r0] = 1;"), "  let r1 = a[0];\n  if (r1 == 1) { x = 1; }");
    assert_eq!(observed(weak, &plain), "sometimes", "a coherence-only model allows LB");
    assert_eq!(observed(deps, &plain), "sometimes", "no dependency, no order");
    assert_eq!(observed(weak, &ctrl), "sometimes", "without an axiom on ctrl, the writes justify each other");
    assert_eq!(observed(deps, &ctrl), "never", "ctrl; rfe; ctrl; rfe is a cycle");
    assert_eq!(observed(deps, &ctrl_one), "sometimes", "one thread's dependency makes no cycle");
    assert_eq!(observed(weak, &data_ctrl), "sometimes");
    assert_eq!(observed(deps, &data_ctrl), "never", "data; rfe; ctrl; rfe is a cycle");
    assert_eq!(observed(weak, &addr), "sometimes");
    assert_eq!(observed(deps, &addr), "never", "addr; rfe; ctrl; rfe is a cycle");
}

/// A native program under a RISC-V model: its fences are read as the
/// access sets they order (`fence ww` is `Fence.w.w`), so message passing
/// is allowed bare and forbidden with `fence ww` and `fence rr`, and plain
/// load buffering is allowed (RVWMO has no order from a load to a later
/// independent store).
#[test]
fn native_programs_under_riscv() {
    let riscv = Model::parse_in("riscv", &[]).expect("the riscv model");
    let observed = |name: &str| {
        let src = std::fs::read_to_string(root().join("examples").join(name)).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        let out = &check(&prog, &[riscv], &Options::default())[0];
        assert!(out.complete(), "{name}");
        out.known_observation().map(|o| o.as_str()).unwrap_or("-").to_string()
    };
    assert_eq!(observed("mp.litmus"), "sometimes");
    assert_eq!(observed("mp-fence-ww-rr.litmus"), "never");
    assert_eq!(observed("sb-fences.litmus"), "never");
    assert_eq!(observed("sb.litmus"), "sometimes");
    assert_eq!(observed("lb.litmus"), "sometimes");
}
