//! Histories judged by a model given as data (issue 45): herd's own
//! `sc.cat` family (`sc-rmw.cat`) and `x86tso.cat`, asked of each store
//! order through the cat evaluator, agree with the built-in SC and TSO
//! criteria (CCM, wCCM) on the example histories and on thousands of
//! random runs and their mutations; a history too big for the evaluator,
//! or with more store orders than asked, is unknown, saying why.

use litmus_checker::machine::Model as M;
use litmus_history::cat::{check_cat, CatUnknown, CatVerdict, MAX_ORDERS};
use litmus_history::{check, generate, parse_any, to_text, History, Method, Model};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cat(name: &str) -> litmus_checker::catalog::CatId {
    let models = root().join("tests/corpus/models");
    let p = [models.join(name), models.join("herd").join(name)].into_iter().find(|p| p.exists()).unwrap();
    match M::parse_in(p.to_str().unwrap(), &[models.join("herd")]).unwrap() {
        M::Cat(id) => id,
        m => panic!("{name} is {m:?}"),
    }
}

/// The built-in verdict, and the model's (`None`: unknown).
fn both(h: &History, model: Model, id: litmus_checker::catalog::CatId) -> (bool, Option<bool>) {
    let builtin = check(h, model, Method::CcmEnum).verdict.consistent();
    let o = check_cat(h, id, MAX_ORDERS, None);
    let given = match o.verdict {
        CatVerdict::Allowed { store_order } => {
            // Each location's writes, the initial one first.
            for (ws, o) in h.writes_of.iter().zip(&store_order) {
                let (mut a, mut b) = (ws.clone(), o.clone());
                assert_eq!(o[0], ws[0]);
                a.sort();
                b.sort();
                assert_eq!(a, b);
            }
            Some(true)
        }
        CatVerdict::Forbidden => Some(false),
        CatVerdict::Unknown(_) => None,
    };
    (builtin, given)
}

#[test]
fn example_histories_agree() {
    let (sc, tso) = (cat("sc-rmw.cat"), cat("x86tso.cat"));
    let mut n = 0;
    for e in std::fs::read_dir(root().join("examples/histories")).unwrap() {
        let path = e.unwrap().path();
        let h = parse_any(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for (model, id) in [(Model::Sc, sc), (Model::Tso, tso)] {
            let (b, g) = both(&h, model, id);
            assert_eq!(Some(b), g, "{} under {}", path.display(), model.upper());
            n += 1;
        }
    }
    assert!(n >= 14, "{n}");
}

fn few_orders(h: &History) -> bool {
    h.store_orders() <= 5_040
}

#[test]
fn random_histories_agree_with_the_criteria() {
    let (sc, tso) = (cat("sc-rmw.cat"), cat("x86tso.cat"));
    const RUNS: u64 = 2_000;
    let tally: Vec<[usize; 4]> = (0..RUNS)
        .into_par_iter()
        .map(|seed| {
            let run = if seed % 2 == 0 { Model::Sc } else { Model::Tso };
            let h = generate::run(&generate::Shape::small(seed), run, seed);
            let mut t = [0; 4];
            // The model is asked store order by store order: histories with
            // few enough of them.
            for h in std::iter::once(h.clone()).chain(generate::mutate(&h, seed ^ 0xABCD)).filter(few_orders) {
                for (i, (model, id)) in [(Model::Sc, sc), (Model::Tso, tso)].into_iter().enumerate() {
                    let (b, g) = both(&h, model, id);
                    let g = g.unwrap_or_else(|| panic!("unknown under {}\n{}", model.upper(), to_text(&h)));
                    assert_eq!(b, g, "{} disagrees\n{}", model.upper(), to_text(&h));
                    t[i] += 1;
                    t[2 + i] += usize::from(!b);
                }
            }
            t
        })
        .collect();
    let sum = |i: usize| tally.iter().map(|t| t[i]).sum::<usize>();
    eprintln!("{} SC and {} TSO verdicts agree ({} not SC, {} not TSO)", sum(0), sum(1), sum(2), sum(3));
    assert!(sum(0) >= 3_000 && sum(2) >= 500 && sum(3) >= 300, "too few or too one-sided");
}

#[test]
fn a_history_too_big_for_the_evaluator_is_unknown() {
    let h = generate::run(&generate::Shape { ops: 200, ..generate::Shape::default() }, Model::Sc, 7);
    let o = check_cat(&h, cat("x86tso.cat"), MAX_ORDERS, None);
    assert!(matches!(o.verdict, CatVerdict::Unknown(CatUnknown::TooManyEvents(n)) if n > 128), "{:?}", o.verdict);
}

#[test]
fn too_many_store_orders_is_unknown_never_a_verdict() {
    // Forbidden under SC, with 7! orders of x's writes to try first.
    let mut src = String::from("P0: W(y,1) R(x,0)\nP1: W(x,1) R(y,0)\n");
    for v in 2..8 {
        src.push_str(&format!("P{v}: W(x,{v})\n"));
    }
    let h = parse_any(&src).unwrap();
    let o = check_cat(&h, cat("sc-rmw.cat"), 100, None);
    assert_eq!(o.verdict, CatVerdict::Unknown(CatUnknown::TooManyOrders(100)));
    let all = check_cat(&h, cat("sc-rmw.cat"), MAX_ORDERS, None);
    assert_eq!(all.verdict, CatVerdict::Forbidden);
    assert_eq!(all.orders, 5_040);
}
