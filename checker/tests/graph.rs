//! Exploration by execution graph: each consistent graph once (against a
//! brute-force enumeration of the machine's interleavings; SC, TSO, PSO;
//! generated programs with atomics, awaits, locks, spins; hand-counted
//! SB/MP/CO), the same outcomes as the interleaving explorer (states,
//! failures, deadlocks, observation, completeness — on every example, corpus
//! test and 1,000 generated programs, so herd agreement holds for it too),
//! witnesses that replay to their graph and end as claimed, and robustness
//! from graphs (some TSO/PSO-consistent graph is not SC-consistent) equal to
//! the BSS monitors' (examples, corpus, 300 generated programs).

mod common;

use common::Op;
use common::TraceKey as Key;
use litmus_checker::dpor::{Control, Execution};
use litmus_checker::explore::explore;
use litmus_checker::graph::{self, Every};
use litmus_checker::machine::{Machine, Model};
use litmus_checker::monitor::MonitorKind;
use litmus_checker::options::Options;
use litmus_checker::outcome::ModelOutcome;
use litmus_checker::robust::robustness_of;
use litmus_checker::Answer;
use litmus_checker::{reference, ExplorerKind};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// The graph explorer's graphs as keys (each linearized), and how many
/// graphs it counted.
fn graph_keys(prog: &litmus_ir::Program, model: Model) -> (Vec<Key>, u64) {
    let m = Machine::new(prog, model, 2, 64);
    let opts = Options { buffer_bound: 64, ..Options::default() };
    let mut keys = Vec::new();
    let o = graph::explore(
        prog,
        model,
        &opts,
        Some(&mut Every(|e: &Execution<'_>| {
            // The witness replays to the same log.
            let (_, events) = reference::replay(&m, e.schedule);
            assert_eq!(events, e.events, "linearized schedule does not replay");
            keys.push(common::trace_key(e.events, m.threads, m.cells, model));
        })),
    );
    (keys, o.stats.executions)
}

fn counts_equal(threads: &[Vec<Op>], model: Model) -> Result<(), TestCaseError> {
    let src = common::render(threads);
    let prog = common::compile(&src);
    let m = Machine::new(&prog, model, 2, 64);
    let Some(want) = common::brute_force_traces(&m, 400_000) else {
        return Ok(());
    };
    let (keys, n) = graph_keys(&prog, model);
    let got: BTreeSet<Key> = keys.iter().cloned().collect();
    prop_assert_eq!(keys.len() as u64, n, "\n{}", src);
    prop_assert_eq!(got.len(), keys.len(), "a graph visited twice ({:?})\n{}", model, src);
    prop_assert_eq!(&got, &want, "{:?}\n{}", model, src);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// The graphs explored are exactly the distinct rf/co of the machine's
    /// executions, each once (SC, TSO, PSO).
    #[test]
    fn graphs_equal_brute_force(threads in common::program(2..4, 1..4, true)) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            counts_equal(&threads, model)?;
        }
    }

    /// The same with awaits, locks and spin loops.
    #[test]
    fn graphs_equal_brute_force_blocking(threads in common::blocking_program(2..3, 1..4)) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            counts_equal(&threads, model)?;
        }
    }
}

/// What both explorers must agree on: final states, failures (thread,
/// statement, kind), deadlock or not, observation, completeness, no
/// condition error.
type Summary = (Vec<Vec<i64>>, Vec<(u16, u32, String)>, bool, Option<String>, bool, bool);

fn summary(o: &ModelOutcome) -> Summary {
    (
        o.states.iter().map(|s| s.values.clone()).collect(),
        o.failures.iter().map(|f| (f.thread, f.stmt, f.kind.as_str().to_string())).collect(),
        !o.deadlocks.is_empty(),
        o.known_observation().map(|x| x.as_str().to_string()),
        o.complete(),
        o.condition_errors.is_empty(),
    )
}

/// Compare the explorers on one program; `false` if the interleaving one
/// was cut by the buffer bound (not comparable).
fn same_outcomes(prog: &litmus_ir::Program, model: Model, name: &str) -> bool {
    let by_graph = Options { explorer: ExplorerKind::Graph, ..Options::default() };
    let by_steps = Options { explorer: ExplorerKind::Interleaving, ..Options::default() };
    let i = explore(prog, model, &by_steps);
    if i.stats.buffer_bounded {
        return false;
    }
    let g = explore(prog, model, &by_graph);
    // The interleaving explorer leaves no execution blocked at a failing
    // await or lock (`Limits::waits_block`): compare complete ones (where
    // no await loads twice: a waiting one reads its cell once it would pass).
    assert!(
        common::two_loads(prog) || g.stats.complete <= i.stats.complete,
        "{name} {model:?}: more complete graphs than interleavings"
    );
    assert_eq!(summary(&g), summary(&i), "{name} under {model:?}");
    check_witnesses(prog, &g, name);
    true
}

/// Every witness replays on the machine to its events, and ends as claimed.
fn check_witnesses(prog: &litmus_ir::Program, o: &ModelOutcome, name: &str) {
    let opts = Options::default();
    let m = Machine::new(prog, o.model, opts.loop_bound, opts.buffer_bound);
    let replays = |w: &litmus_checker::outcome::Witness| {
        let (_, events) = reference::replay(&m, &w.schedule);
        assert_eq!(events, w.events, "{name} {:?}: witness does not replay", o.model);
    };
    for s in &o.states {
        replays(&s.witness);
        let (st, _) = reference::replay(&m, &s.witness.schedule);
        assert_eq!(m.observe(&st), s.values, "{name}: final state witness ends elsewhere");
    }
    for f in &o.failures {
        let (st, _) = reference::replay(&m, &f.witness.schedule);
        assert!(
            matches!(st.threads[f.thread as usize], litmus_checker::machine::ThreadStatus::Failed { stmt, .. } if stmt == f.stmt),
            "{name}: failure witness does not fail"
        );
    }
    for d in &o.deadlocks {
        replays(d);
        let (st, _) = reference::replay(&m, &d.schedule);
        assert!(m.deadlocked(&st), "{name}: deadlock witness does not deadlock");
    }
}

#[test]
fn examples_and_corpus_agree() {
    let (mut compared, mut skipped) = (0, 0);
    for (name, src) in common::corpus_and_example_sources() {
        let prog = litmus_dsl::analyze(&src).program.unwrap_or_else(|| panic!("{name} does not analyse"));
        for model in [Model::Tso, Model::Pso] {
            if same_outcomes(&prog, model, &name) {
                compared += 1;
            } else {
                skipped += 1;
            }
        }
    }
    eprintln!("compared {compared}; skipped (interleaving explorer cut by the buffer bound): {skipped}");
    assert!(compared >= 2 * 110, "only {compared} comparisons");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Generated programs: the same outcomes as the interleaving explorer.
    #[test]
    fn generated_agree(threads in common::program(2..5, 1..5, true)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        for model in [Model::Tso, Model::Pso] {
            same_outcomes(&prog, model, &src);
        }
    }

    /// With awaits, locks and spin loops (deadlocks, loop-bound cuts).
    #[test]
    fn generated_blocking_agree(threads in common::blocking_program(2..4, 1..4)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        for model in [Model::Tso, Model::Pso] {
            same_outcomes(&prog, model, &src);
        }
    }
}

/// Graph counts known by hand.
#[test]
fn known_counts() {
    let sb = "litmus SB\nshared x = 0, y = 0;\nthread P0 { x = 1; let a = y; }\nthread P1 { y = 1; let b = x; }\nexists (P0:a == 0 && P1:b == 0);\n";
    let sbf = "litmus SBF\nshared x = 0, y = 0;\nthread P0 { x = 1; fence; let a = y; }\nthread P1 { y = 1; fence; let b = x; }\nexists (P0:a == 0 && P1:b == 0);\n";
    // Two writes of x in either order, each read after: 2 (co) x reads.
    let co2 = "litmus CO\nshared x = 0;\nthread P0 { x = 1; let a = x; }\nthread P1 { x = 2; let b = x; }\nexists (P0:a == 2 && P1:b == 1);\n";
    let mp_ww = "litmus MP\nshared x = 0, y = 0;\nthread P0 { x = 1; fence ww; y = 1; }\nthread P1 { let a = y; let b = x; }\nexists (P1:a == 1 && P1:b == 0);\n";
    let mp = "litmus MP\nshared x = 0, y = 0;\nthread P0 { x = 1; y = 1; }\nthread P1 { let a = y; let b = x; }\nexists (P1:a == 1 && P1:b == 0);\n";
    for (src, sc, tso, pso) in [(sb, 3, 4, 4), (sbf, 3, 3, 3), (mp_ww, 3, 3, 3), (mp, 3, 3, 4), (co2, 0, 0, 0)] {
        let prog = common::compile(src);
        for (model, want) in [(Model::Sc, sc), (Model::Tso, tso), (Model::Pso, pso)] {
            let m = Machine::new(&prog, model, 2, 64);
            let bf = common::brute_force_traces(&m, 400_000).unwrap().len() as u64;
            let (_, n) = graph_keys(&prog, model);
            eprintln!("{} {model:?}: graphs {n}, brute force {bf}", prog.name);
            assert_eq!(n, bf, "{} {model:?}", prog.name);
            if want > 0 {
                assert_eq!(n, want, "{} {model:?}", prog.name);
            }
        }
    }
}

/// Under `model`, is some consistent graph not SC-consistent (a cycle in
/// po ∪ rf ∪ co ∪ fr)? Every graph, whatever its ending, as explicit
/// exploration counts every maximal execution.
fn graph_not_robust(prog: &litmus_ir::Program, model: Model, opts: &Options) -> bool {
    let sc = Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound);
    let mut found = false;
    let mut search = graph::explore::Search::new(&sc, model, opts, |g, _, checker, _| {
        if !checker.consistent(g, Model::Sc) {
            found = true;
            return Control::Stop;
        }
        Control::Continue
    });
    search.run();
    found
}

/// Robustness from graphs equals the BSS monitors' answer (which the
/// robustness tests check against explicit TSO/PSO exploration).
/// Ok: how many of TSO, PSO the program is not robust under.
fn robustness_agrees(prog: &litmus_ir::Program, name: &str) -> Result<usize, String> {
    let opts = Options::default();
    let mut violated = 0;
    for model in [Model::Tso, Model::Pso] {
        let rb = robustness_of(prog, model, MonitorKind::Bss, &opts);
        let by_graphs = !graph_not_robust(prog, model, &opts);
        violated += usize::from(!by_graphs);
        match rb.robust() {
            Answer::Proved(r) | Answer::WithinBounds(r, _) if r != by_graphs => {
                return Err(format!("{name} {model:?}: BSS robust={r}, graphs robust={by_graphs}"))
            }
            Answer::Proved(_) | Answer::WithinBounds(..) => {}
            Answer::Unknown(w) => return Err(format!("{name} {model:?}: BSS unknown ({w:?})")),
        }
    }
    Ok(violated)
}

#[test]
fn robustness_from_graphs_equals_bss_on_examples_and_corpus() {
    let (mut bad, mut violated, mut total) = (Vec::new(), 0, 0);
    for (name, src) in common::corpus_and_example_sources() {
        let prog = litmus_dsl::analyze(&src).program.unwrap_or_else(|| panic!("{name} does not analyse"));
        total += 2;
        match robustness_agrees(&prog, &name) {
            Ok(v) => violated += v,
            Err(e) => bad.push(e),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    eprintln!("{violated} of {total} (program, model) pairs not robust");
    // Both answers occur: the comparison is not vacuous.
    assert!(violated >= 20 && total - violated >= 20, "{violated} of {total} not robust");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Generated programs without blocking (where BSS signals are all real).
    #[test]
    fn robustness_from_graphs_equals_bss_on_generated_programs(threads in common::program(2..5, 1..5, true)) {
        let src = common::render(&threads);
        let prog = common::compile(&src);
        let r = robustness_agrees(&prog, "generated");
        prop_assert!(r.is_ok(), "{}\n{}", r.unwrap_err(), src);
    }
}
