//! Fences under a model given as data (issue 45): the fence search reads
//! what the model's own search kept — its violating graphs, judged again
//! with each fence set inserted ([`litmus_checker::graph::fenced`]) —
//! instead of exploring every fenced program. That must answer exactly what
//! the explorations answer: the same fences, confirmation and minimality,
//! on the corpus and the examples; and under herd's `x86tso.cat` the same
//! as the built-in TSO's fence search.

mod common;

use litmus_checker::check::{find_violations, judge_and_fence, Report};
use litmus_checker::machine::Model;
use litmus_checker::monitor::MonitorKind;
use litmus_checker::options::Options;

use common::{cat, root, verify_maximal};

/// The fence answer of each model: fences (statement, place; kinds
/// optional), confirmation and minimality, and the violations each fence
/// was assigned.
fn fences(r: &Report, kinds: bool) -> Vec<String> {
    r.robustness
        .iter()
        .map(|rb| {
            let fs: Vec<String> = rb
                .fences
                .iter()
                .map(|f| {
                    if kinds {
                        format!("{}{:?}{:?}", f.stmt, f.place, f.kind)
                    } else {
                        format!("{}{:?}", f.stmt, f.place)
                    }
                })
                .collect();
            let per: Vec<String> = rb.violations.iter().map(|v| format!("{:?}{:?}", v.key(), v.fence.len())).collect();
            format!(
                "robust {:?}; fences {fs:?} confirmed {:?} minimal {}; per violation {per:?}",
                rb.robust(),
                rb.fences_confirmed,
                rb.fences_minimal
            )
        })
        .collect()
}

fn checked(prog: &litmus_ir::Program, models: &[Model], opts: &Options, kept: bool) -> Report {
    let mut r = find_violations(prog, models, MonitorKind::Bss, opts);
    if !kept {
        r.premeasured = None;
    }
    judge_and_fence(&mut r, prog, MonitorKind::Bss, opts);
    r
}

#[test]
fn kept_graphs_answer_as_the_rechecks_do() {
    verify_maximal();
    let (tso, pso) = (cat("x86tso.cat"), cat("x86pso.cat"));
    let opts = Options::default();
    let (mut bad, mut compared, mut with_fences) = (Vec::new(), 0, 0);
    for (name, src) in common::corpus_and_example_sources() {
        let prog = common::compile(&src);
        for m in [tso, pso] {
            let a = checked(&prog, &[m], &opts, true);
            if a.robustness.iter().any(|rb| !rb.coverage.finished()) {
                continue; // too big for the evaluator: nothing kept
            }
            let b = checked(&prog, &[m], &opts, false);
            compared += 1;
            with_fences += usize::from(a.robustness.iter().any(|rb| !rb.fences.is_empty()));
            let (fa, fb) = (fences(&a, true), fences(&b, true));
            if fa != fb {
                bad.push(format!("{name} {}:\n  kept     {fa:?}\n  rechecks {fb:?}", m.as_str()));
            }
        }
    }
    eprintln!("{compared} compared, {with_fences} with fences");
    assert!(with_fences >= 50, "too few programs needed fences: {with_fences}");
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn x86tso_cat_fences_as_the_builtin_tso() {
    verify_maximal();
    let (tso, mixed) = (cat("x86tso.cat"), cat("x86tso-mixed.cat"));
    let opts = Options::default();
    let (mut bad, mut compared) = (Vec::new(), 0);
    for (name, src) in common::corpus_and_example_sources() {
        let prog = common::compile(&src);
        let given = if name.contains("x86_64") { mixed } else { tso };
        let a = checked(&prog, &[given], &opts, true);
        if a.robustness.iter().any(|rb| !rb.coverage.finished()) {
            continue;
        }
        let b = checked(&prog, &[Model::Tso], &opts, true);
        compared += 1;
        // Kinds aside: the built-in TSO weakens by its monitors' cycles.
        let (fa, fb) = (fences(&a, false), fences(&b, false));
        if fa != fb {
            bad.push(format!("{name}:\n  {}  {fa:?}\n  tso     {fb:?}", given.as_str()));
        }
    }
    eprintln!("{compared} compared");
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn a_cut_short_check_under_a_cat_model_claims_no_fences_it_has_not_earned() {
    verify_maximal();
    // Cancelled at the n-th poll, for every n until the check runs to its
    // end: confirmed fences must make the program robust (re-checked
    // whole), and fences claimed the fewest must be as few as the whole
    // check's.
    let tso = cat("x86tso.cat");
    let (mut bad, mut cut) = (Vec::new(), 0);
    for name in ["sb", "mp", "dekker", "peterson", "2+2w"] {
        let src = std::fs::read_to_string(root().join(format!("examples/{name}.litmus"))).unwrap();
        let prog = common::compile(&src);
        let whole = checked(&prog, &[tso], &Options::default(), true);
        let fewest = whole.robustness[0].fences.len();
        for n in 0.. {
            let opts = Options::default().cancel_after_polls(n);
            let part = checked(&prog, &[tso], &opts, true);
            let rb = &part.robustness[0];
            if rb.fences_confirmed.is(&true) {
                let fenced =
                    litmus_dsl::fence_ir::insert_fences(&prog, &litmus_checker::violation::insertions(&rb.fences));
                let r = find_violations(&fenced, &[tso], MonitorKind::Bss, &Options::default());
                if !r.robustness[0].robust().is(&true) {
                    bad.push(format!("{name} cut at poll {n}: confirms fences {:?}", rb.fences));
                }
                if rb.fences_minimal && rb.fences.len() != fewest {
                    bad.push(format!(
                        "{name} cut at poll {n}: {} fences called the fewest, {fewest} are",
                        rb.fences.len()
                    ));
                }
            }
            if !part.cancelled {
                break;
            }
            cut += 1;
            assert!(n < 100_000, "{name}: the check polls without end");
        }
    }
    eprintln!("{cut} cut-short checks");
    assert!(cut > 20, "only {cut} cut-short checks: the test tests little");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
