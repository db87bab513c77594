//! herd's AArch64 corpus (`tests/corpus/herd-aarch64/`, herd7's verdicts
//! at 5feffe4e under its stock `aarch64.cat` and `sc.cat`): every test
//! litmus reads gets herd7's observation and state count under the
//! project's own `aarch64` model (`models/armv8.cat`), under herd's
//! `aarch64.cat` read unchanged (it computes its dependencies from
//! register events) and under herd's `sc.cat`. herd's `sc.cat` does not keep an AArch64 atomic's read and
//! write together (they are two events, which its `po` does not order, and
//! it has no atomicity axiom): the built-in SC does, as `sc-rmw.cat` says,
//! and is held equal to that. The tests litmus refuses are named, each
//! with its reason.

mod common;

use litmus_checker::check::check;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;

use common::cat;

/// Refused by name: (file, the diagnostic code, why).
const REFUSED: &[(&str, &str, &str)] = &[
    (
        "herdtools7__herd__tests__instructions__AArch64__A248.litmus",
        "E0146",
        "code as data (instruction fetch, branches to a register): out of scope",
    ),
    (
        "herdtools7__herd__tests__instructions__AArch64__A251.litmus",
        "E0146",
        "code as data (instruction fetch, branches to a register): out of scope",
    ),
    (
        "herdtools7__herd__tests__instructions__AArch64__AK001.litmus",
        "E0146",
        "code as data (instruction fetch, branches to a register): out of scope",
    ),
    (
        "herdtools7__herd__tests__instructions__AArch64__AK002.litmus",
        "E0146",
        "code as data (instruction fetch, branches to a register): out of scope",
    ),
    (
        "herdtools7__herd__tests__instructions__AArch64__AK003.litmus",
        "E0146",
        "code as data (instruction fetch, branches to a register): out of scope",
    ),
    (
        "herdtools7__herd__tests__instructions__AArch64__L024.litmus",
        "E0146",
        "code as data (instruction fetch, branches to a register): out of scope",
    ),
    (
        "herdtools7__herd__tests__instructions__AArch64__L062.litmus",
        "E0146",
        "code as data (instruction fetch, branches to a register): out of scope",
    ),
    (
        "herdtools7__herd__tests__instructions__AArch64__L105.litmus",
        "E0146",
        "code as data (instruction fetch, branches to a register): out of scope",
    ),
];

#[test]
fn aarch64_corpus_agrees_with_herd() {
    let own = Model::parse_in("aarch64", &[]).expect("the aarch64 model");
    assert_eq!(own.as_str(), "aarch64");
    let (sc_cat, sc_rmw, stock) = (cat("sc.cat"), cat("sc-rmw.cat"), cat("aarch64.cat"));
    let opts = Options::default();
    let (checked, named, bad) = common::herd_corpus("herd-aarch64", REFUSED, |c, prog, bad| {
        assert_eq!(prog.dialect, litmus_ir::Dialect::HerdAArch64);
        assert_eq!(litmus_checker::catalog::defaults_for(prog.dialect), [Model::Sc, own], "an AArch64 test's models");
        for (m, obs_col, states_col) in [(own, 4, 5), (stock, 4, 5), (sc_cat, 6, 7)] {
            let out = &check(&prog, &[m], &opts)[0];
            bad.extend(common::herd_difference(c, m, out, obs_col, states_col));
        }
        // Robustness against SC (herd's column: the model plus `~acyclic po | rf | co | fr`).
        for m in [own, stock] {
            bad.extend(common::herd_robust_difference(c, m, &prog, 8));
        }
        let (sc, atomic) = (&check(&prog, &[Model::Sc], &opts)[0], &check(&prog, &[sc_rmw], &opts)[0]);
        let answer = |o: &litmus_checker::outcome::ModelOutcome| (o.known_observation(), o.states.len());
        if answer(sc) != answer(atomic) {
            bad.push(format!("{}: sc {:?}, sc-rmw.cat {:?}", c[0], answer(sc), answer(atomic)));
        }
    });
    eprintln!("{checked} AArch64 tests checked under aarch64, sc.cat, sc and sc-rmw.cat");
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
    assert_eq!((checked + named, named), (296, REFUSED.len()));
    assert_eq!(checked, 288);
}

/// herd's stock `aarch64.cat` derives its dependencies from register
/// events (`catdep`): it is read unchanged and answered by the candidate
/// explorer, whose executions then have them (`candidates::regs`).
#[test]
fn herd_aarch64_cat_is_read_with_register_events() {
    let Model::Cat(id) = cat("aarch64.cat") else { panic!("a model given as data") };
    let m = litmus_checker::catalog::get(id);
    assert!(m.catdep && m.weak.is_some_and(|w| w.contains("register events")), "{:?}", m.weak);
}
