//! herd7's "Forbidden", said why: on the AArch64, RISC-V and C11 corpora,
//! every test whose final condition its architecture's model never lets
//! hold gets the axioms a candidate reaching it fails, each with a cycle
//! over the test's own statements; that candidate replays, and the model
//! forbids it. A condition that holds somewhere gets none.

mod common;

use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_checker::outcome::Who;

#[test]
fn forbidden_outcomes_name_the_axiom_that_forbids_them() {
    let opts = Options::default();
    let (mut forbidden, mut allowed) = (0, 0);
    let mut axioms = std::collections::BTreeMap::<String, usize>::new();
    for (dir, name) in [("herd-aarch64", "aarch64"), ("herd-riscv", "riscv"), ("herd-c11", "rc11")] {
        let m = Model::parse_in(name, &[]).unwrap();
        for path in common::litmus_files(&format!("tests/corpus/{dir}")) {
            let Some(prog) = litmus_dsl::analyze(&std::fs::read_to_string(&path).unwrap()).program else { continue };
            if prog.condition.is_none() {
                continue;
            }
            let o = litmus_checker::explore::explore(&prog, m, &opts);
            if !matches!(o.coverage, litmus_checker::Coverage::Complete) {
                continue;
            }
            let reached = o.reaches_outcome(&prog) == Some(true);
            let p = path.display();
            match (&o.forbidden, reached) {
                (Some(_), true) => panic!("{p}: forbidden, yet reached"),
                (None, true) => allowed += 1,
                // No candidate reaches it at all (values no thread writes).
                (None, false) => {}
                (Some(f), false) => {
                    forbidden += 1;
                    assert!(!f.axioms.is_empty(), "{p}");
                    for a in &f.axioms {
                        *axioms.entry(format!("{name} {}", a.name)).or_default() += 1;
                        assert!(!a.steps.is_empty(), "{p}: {}", a.name);
                        for (w, _) in &a.steps {
                            if let Who::Access { thread, stmt } = *w {
                                assert_eq!(prog.stmts[stmt as usize].thread, thread, "{p}");
                            }
                        }
                    }
                    let r = litmus_checker::candidates::replay(&prog, m, &opts, &f.witness.events)
                        .unwrap_or_else(|e| panic!("{p}: {e}"));
                    assert!(!r.allowed, "{p}: the explained candidate is allowed");
                }
            }
        }
    }
    eprintln!("{forbidden} forbidden, {allowed} allowed; axioms: {axioms:?}");
    assert!(forbidden > 100 && allowed > 100, "{forbidden} forbidden, {allowed} allowed");
}
