//! Observation and state count under SC, TSO and PSO equal herd7's on all 88
//! tests of the corpus (`verdicts.tsv`; PSO from the project's x86pso.cat).
//! PSLO has no reference verdicts; its final states include PSO's on every
//! test (MFENCE is `fence`, LFENCE `fence rr`, SFENCE `fence ww`, LOCK'd
//! instructions full fences).

use litmus_checker::explore::explore;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn verdicts_match_herd() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/herd-x86");
    let tsv = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let mut mismatches = Vec::new();
    let mut rows = 0;
    for line in tsv.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let src = std::fs::read_to_string(dir.join(c[0])).unwrap();
        let a = litmus_dsl::analyze(&src);
        let prog = a.program.unwrap_or_else(|| panic!("{} does not lower", c[0]));
        let pso: BTreeSet<Vec<i64>> =
            explore(&prog, Model::Pso, &Options::default()).states.into_iter().map(|s| s.values).collect();
        let pslo = explore(&prog, Model::Pslo, &Options::default());
        assert!(pslo.complete(), "{} PSLO incomplete", c[0]);
        let pslo: BTreeSet<Vec<i64>> = pslo.states.into_iter().map(|s| s.values).collect();
        if !pso.is_subset(&pslo) {
            mismatches.push(format!(
                "{} PSLO: misses PSO's states {:?}",
                c[0],
                pso.difference(&pslo).collect::<Vec<_>>()
            ));
        }
        for (model, obs_col, states_col) in [(Model::Sc, 4, 5), (Model::Tso, 6, 7), (Model::Pso, 8, 9)] {
            let out = explore(&prog, model, &Options::default());
            let obs = out.known_observation().map(|o| o.as_str()).unwrap_or("-");
            let n = out.states.len().to_string();
            assert!(out.complete(), "{} {:?} incomplete", c[0], model);
            if obs != c[obs_col] || n != c[states_col] {
                mismatches.push(format!(
                    "{} {}: got {} {}, herd {} {}",
                    c[0],
                    model.upper(),
                    obs,
                    n,
                    c[obs_col],
                    c[states_col]
                ));
            }
        }
        rows += 1;
    }
    assert_eq!(rows, 88);
    assert!(mismatches.is_empty(), "{} mismatches:\n{}", mismatches.len(), mismatches.join("\n"));
}
