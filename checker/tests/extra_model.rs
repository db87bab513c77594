//! A memory model is one module: XTSO (TSO's semantics, decided by
//! exploring its own executions: no monitor, no graphs, no attacks),
//! declared only in `model.rs` behind the `extra-model` feature, is parsed,
//! explored, judged and fenced like any other model, and gives TSO's
//! answers. Run with
//! `cargo test --release -p litmus-checker --features extra-model --test extra_model`
//! (scripts/test.sh does); without the feature this file is empty.
#![cfg(feature = "extra-model")]

use litmus_checker::model::Model;
use litmus_checker::violation::Robustness;
use litmus_checker::{check_all, Answer, MonitorKind, Options};

fn sources() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut v: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn the_model_is_known_by_name_and_not_checked_by_default() {
    assert_eq!(Model::parse("XTSO"), Ok(Model::Xtso));
    assert!(Model::ALL.contains(&Model::Xtso));
    assert!(!Model::defaults().contains(&Model::Xtso));
    assert!(Model::Xtso.buffered() && !Model::Xtso.monitored() && !Model::Xtso.by_graphs());
}

/// Every example: the same final states, observation and robustness as
/// TSO, and fences that fix it. (Which statement pairs name the violations
/// may differ: the monitors name them per SC execution, the exploration of
/// the model's own executions per cycle.)
#[test]
fn it_gives_tsos_answers_on_every_example() {
    let opts = Options::default().with_timeout(Some(std::time::Duration::from_secs(20)));
    let mut robust = 0;
    let mut not_robust = 0;
    for (name, src) in sources() {
        let Some(p) = litmus_dsl::analyze(&src).program else { continue };
        let r = check_all(&p, &[Model::Sc, Model::Tso, Model::Xtso], MonitorKind::Bss, &opts);
        let out = |m: Model| r.outcomes.iter().find(|o| o.model == m).unwrap();
        let rob = |m: Model| -> &Robustness { r.robustness.iter().find(|rb| rb.model == m).unwrap() };
        let (tso, xtso) = (out(Model::Tso), out(Model::Xtso));
        if !(tso.complete() && xtso.complete()) {
            continue;
        }
        let values = |o: &litmus_checker::ModelOutcome| o.states.iter().map(|s| s.values.clone()).collect::<Vec<_>>();
        assert_eq!(values(tso), values(xtso), "{name}: final states");
        assert_eq!(tso.known_observation(), xtso.known_observation(), "{name}: observation");
        let (a, b) = (rob(Model::Tso), rob(Model::Xtso));
        assert_eq!(b.monitor, MonitorKind::Explicit, "{name}: no monitor, its own executions");
        assert_eq!(a.robust(), b.robust(), "{name}: robustness");
        if b.robust() == Answer::Proved(false) {
            not_robust += 1;
            assert!(b.violations.iter().all(|v| v.model == Model::Xtso && !v.cycle.is_empty()));
            assert!(!b.fences.is_empty(), "{name}: no fences");
            assert!(b.fences_confirmed.is(&true), "{name}: fences not confirmed: {:?}", b.fences_confirmed);
        } else if b.robust() == Answer::Proved(true) {
            robust += 1;
        }
    }
    assert!(robust >= 3 && not_robust >= 5, "{robust} robust, {not_robust} not: too few examples compared");
}
