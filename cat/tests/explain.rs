//! `eval::explain`, why a model forbids an execution: on random executions
//! under herd's `sc.cat`, `x86tso.cat` and the project's ARMv8, RISC-V and
//! RC11 models, every check that fails is explained, none that holds is,
//! and each explanation is sound: every edge of its cycle lies in the
//! check's relation (an `irreflexive` one starts at an event the relation
//! relates to itself; a composition's path is told factor by factor).

mod common;

use common::{Graph, Rng, Style};
use litmus_cat::eval::{acyclic_relations, evaluate, explain, Options};
use litmus_cat::Model;
use std::path::Path;

const HERD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/models/herd");

#[test]
fn every_failed_check_is_explained_by_a_cycle_of_its_relation() {
    let models: Vec<Model> = ["sc.cat", "x86tso.cat"]
        .iter()
        .map(|n| Model::load(Path::new(HERD).join(n), &[]).unwrap())
        .chain(["armv8.cat", "rvwmo.cat", "rc11-lahav.cat"].iter().map(|n| litmus_cat::stock::load(n).unwrap()))
        .collect();
    let opts = Options::default();
    let mut rng = Rng::new(47);
    let (mut explained, mut cycles) = (0, 0);
    for _ in 0..400 {
        let threads = 2 + rng.below(2);
        let x = Graph::random(&mut rng, threads, 3, 2, false).to_execution(Style::random(&mut rng));
        for m in &models {
            let (Ok(v), Ok(failed)) = (evaluate(m, &x, &opts), explain(m, &x, &opts)) else { continue };
            let mut want: Vec<&str> = v.failed();
            let mut got: Vec<&str> = failed.iter().map(|f| f.name.as_str()).collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "the failed checks, explained");
            let orders = acyclic_relations(m, &x, &opts).unwrap();
            for f in &failed {
                explained += 1;
                let Some((_, r)) = orders.iter().find(|(n, _)| *n == f.name) else { continue };
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
