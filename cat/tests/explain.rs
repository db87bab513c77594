//! `eval::explain`, why a model forbids an execution: on random executions
//! under herd's `sc.cat`, `x86tso.cat` and the project's ARMv8, RISC-V and
//! RC11 models, every check that fails is explained, none that holds is,
//! and each explanation is sound: every edge of its cycle lies in the
//! check's relation (an `irreflexive` one starts at an event the relation
//! relates to itself; a composition's path is told factor by factor).

mod common;

use common::{with_arch_names, Graph, Rng, Style};
use litmus_cat::eval::{acyclic_relations, evaluate, explain, Options};
use litmus_cat::Model;
use std::path::Path;

const HERD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/models/herd");

/// herd's `herd` files, then the project's ARMv8, RISC-V and RC11 models
/// (evaluated on executions with the architectures' names bound:
/// [`with_arch_names`]).
fn models(herd: &[&str]) -> Vec<Model> {
    herd.iter()
        .map(|n| Model::load(Path::new(HERD).join(n), &[]).unwrap())
        .chain(["armv8.cat", "rvwmo.cat", "rc11-lahav.cat"].iter().map(|n| litmus_cat::stock::load(n).unwrap()))
        .collect()
}

#[test]
fn every_failed_check_is_explained_by_a_cycle_of_its_relation() {
    let models = models(&["sc.cat", "x86tso.cat"]);
    let opts = Options::default();
    let mut rng = Rng::new(47);
    let (mut explained, mut cycles) = (0, 0);
    for _ in 0..400 {
        let threads = 2 + rng.below(2);
        let x = with_arch_names(Graph::random(&mut rng, threads, 3, 2, false).to_execution(Style::random(&mut rng)));
        for m in &models {
            let (v, failed) = (evaluate(m, &x, &opts).unwrap(), explain(m, &x, &opts).unwrap());
            let mut want: Vec<&str> = v.failed();
            let mut got: Vec<&str> = failed.iter().map(|f| f.name.as_str()).collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "the failed checks, explained");
            let orders = acyclic_relations(m, &x, &opts).unwrap();
            for f in &failed {
                explained += 1;
                let Some(r) = orders.iter().find(|o| o.name == f.name).map(|o| &o.rel) else { continue };
                let k = f.steps.len();
                assert!(k > 0, "{}: no step", f.name);
                if f.kind == "irreflexive" {
                    // It starts at an event the relation relates to itself.
                    assert!(r.contains(f.steps[0].0, f.steps[0].0), "{}", f.name);
                    // A composition's path is told by its factors, not the whole.
                    let rr = r.seq(r);
                    if k == 1 || !(0..x.n).all(|a| rr.0[a] & !r.0[a] == 0) {
                        continue;
                    }
                }
                cycles += 1;
                for j in 0..k {
                    let (a, b) = (f.steps[j].0, f.steps[(j + 1) % k].0);
                    assert!(r.contains(a, b), "{}: {a}→{b} ({:?}) is not in its relation", f.name, f.steps[j].1);
                    assert!(f.steps[j].1.is_some(), "{}: an edge without a name", f.name);
                }
            }
        }
    }
    assert!(explained > 100 && cycles > 50, "{explained} explained, {cycles} cycles");
}

/// `Order::closed` is what the explanations of allowed violations claim
/// on: a cycle of a closed order's steps fails its check. On random
/// executions, wherever a closed order has a cycle, its check failed; and
/// ARM's `irreflexive ob` (transitive, built with `+`) is found closed.
#[test]
fn a_cycle_of_a_closed_order_fails_its_check() {
    let models = models(&["x86tso.cat"]);
    let opts = Options::default();
    let mut rng = Rng::new(4711);
    let (mut cyclic, mut irreflexive_closed) = (0, 0);
    for _ in 0..400 {
        let threads = 2 + rng.below(2);
        let x = with_arch_names(Graph::random(&mut rng, threads, 3, 2, false).to_execution(Style::random(&mut rng)));
        for m in &models {
            let (v, orders) = (evaluate(m, &x, &opts).unwrap(), acyclic_relations(m, &x, &opts).unwrap());
            let failed = v.failed();
            for o in orders.iter().filter(|o| o.closed) {
                let c = o.rel.closure();
                if o.name == "external" && !o.rel.0.iter().zip(&c.0).all(|(a, b)| a == b) {
                    panic!("external's relation is not transitive, yet closed");
                }
                if o.name == "external" && m.files.iter().any(|f| f.text.contains("irreflexive ob as external")) {
                    irreflexive_closed += 1;
                }
                if (0..x.n).any(|e| c.contains(e, e)) {
                    cyclic += 1;
                    assert!(failed.contains(&o.name.as_str()), "{}: a cycle of its order, yet it holds", o.name);
                }
            }
        }
    }
    assert!(cyclic > 50 && irreflexive_closed > 50, "{cyclic} cyclic, {irreflexive_closed} irreflexive closed");
}
