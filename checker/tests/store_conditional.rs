//! RISC-V `lr`/`sc`: a store-conditional may always fail (status 1, no
//! write), succeeds (status 0) only on the cell its thread reserved, and
//! the pair is atomic where the model says so (herd's `lxsx`). No machine
//! runs it: every model answers by its definition as data (SC's is
//! `sc-rmw.cat`), and a model without one (TSO) says it does not know.

mod common;

use common::cat;
use litmus_checker::certainty::{Answer, Coverage, Why};
use litmus_checker::check::check;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;

fn program(body: &str, cond: &str) -> litmus_ir::Program {
    let threads = body.lines().next().map_or(0, |l| l.matches('P').count());
    let regs: String = (0..threads).map(|t| format!("{t}:x6=x; {t}:x7=1;\n")).collect();
    let src = format!("RISCV T\n{{\nx=0;\n{regs}}}\n{body}\n{cond}\n");
    let a = litmus_dsl::analyze(&src);
    a.program.unwrap_or_else(|| panic!("{:?}", a.diagnostics))
}

fn models() -> Vec<Model> {
    vec![Model::Sc, Model::parse_in("riscv", &[]).expect("riscv"), cat("riscv.cat")]
}

/// The final states, as `(observables…)`, sorted.
fn states(prog: &litmus_ir::Program, m: Model) -> Vec<Vec<i64>> {
    let out = &check(prog, &[m], &Options::default())[0];
    assert!(out.complete(), "{}: {:?}", m.as_str(), out.coverage);
    let mut s: Vec<Vec<i64>> = out.states.iter().map(|s| s.values.clone()).collect();
    s.sort();
    s
}

#[test]
fn a_store_conditional_may_fail_and_succeeds_only_where_reserved() {
    // One thread: lr then sc succeeds (x=2, status 0) or fails (x=0, status 1).
    let p = program(" P0 ;\n lr.w x5,0(x6) ;\n addi x8,x5,2 ;\n sc.w x9,x8,0(x6) ;", "exists (0:x9=0 /\\ x=2)");
    for m in models() {
        assert_eq!(states(&p, m), [vec![0, 2], vec![1, 0]], "{}", m.as_str());
    }
    // Without an lr there is no reservation: it only fails.
    let p = program(" P0 ;\n sc.w x9,x7,0(x6) ;", "exists (0:x9=0)");
    for m in models() {
        assert_eq!(states(&p, m), [vec![1]], "{}", m.as_str());
    }
}

#[test]
fn two_increments_by_lr_sc_never_both_succeed_on_one_value() {
    // Both succeed only one after the other (x=2); never both on x=0 (x=1).
    let body = " P0               | P1               ;\n lr.w x5,0(x6)    | lr.w x5,0(x6)    ;\n \
                addi x8,x5,1     | addi x8,x5,1     ;\n sc.w x9,x8,0(x6) | sc.w x9,x8,0(x6) ;";
    let p = program(body, "exists (0:x9=0 /\\ 1:x9=0 /\\ x=1)");
    for m in models() {
        let out = &check(&p, &[m], &Options::default())[0];
        assert_eq!(out.known_observation().map(|o| o.as_str()), Some("never"), "{}", m.as_str());
        // (statuses, x): both fail (1,1,0); one succeeds (0,1,1), (1,0,1); both (0,0,2).
        let mut s: Vec<Vec<i64>> = out.states.iter().map(|s| s.values.clone()).collect();
        s.sort();
        assert_eq!(s, [vec![0, 0, 2], vec![0, 1, 1], vec![1, 0, 1], vec![1, 1, 0]], "{}", m.as_str());
    }
}

#[test]
fn a_whole_check_routes_store_conditionals_past_the_machines() {
    let body =
        " P0               | P1          ;\n lr.w x5,0(x6)    | sw x7,0(x6) ;\n sc.w x9,x7,0(x6) |             ;";
    let p = program(body, "exists (0:x9=0 /\\ 0:x5=0 /\\ x=1)");
    let riscv = Model::parse_in("riscv", &[]).unwrap();
    let report = litmus_checker::plan::check_all(
        &p,
        &[Model::Sc, Model::Tso, riscv],
        litmus_checker::monitor::MonitorKind::Bss,
        &Options::default(),
    );
    let sc = report.outcomes.iter().find(|o| o.model == Model::Sc).expect("SC's outcome");
    assert!(sc.complete());
    // The sc may succeed after P1's write came before the lr (x=1 then),
    // or fail: the lr read 0 and P1's write came between: never with x=1
    // from the sc, but x=1 from P1 with the sc failed.
    assert_eq!(sc.known_observation().map(|o| o.as_str()), Some("sometimes"));
    assert!(sc.failures.is_empty(), "no machine ran it: {:?}", sc.failures);
    let tso = report.outcomes.iter().find(|o| o.model == Model::Tso).expect("TSO's outcome");
    assert_eq!(tso.coverage, Coverage::Stopped(Why::StoreConditional));
    assert!(tso.states.is_empty());
    let rb = report.robustness.iter().find(|r| r.model == Model::Tso).expect("TSO's robustness");
    assert_eq!(rb.robust(), Answer::Unknown(Why::StoreConditional));
    // riscv's own candidates, each judged for SC too: none has a cycle
    // (the sc that succeeds after P1's write read from it: its lr did).
    let rb = report.robustness.iter().find(|r| r.model == riscv).expect("riscv's robustness");
    assert_eq!(rb.robust(), Answer::Proved(true));
    // Store buffering with an lr as one load (so the candidates answer):
    // riscv allows both loads to read 0, a `po | rf | co | fr` cycle:
    // each thread's store overtaken by its load, two violations, each
    // harmful (SC never reaches the condition) and each replayed.
    let src = "RISCV SB\n{\n0:x6=x; 0:x8=y; 0:x7=1; 1:x6=y; 1:x8=x; 1:x7=1;\n}\n \
               P0            | P1          ;\n sw x7,0(x6)   | sw x7,0(x6) ;\n lr.w x5,0(x8) | lw x5,0(x8) ;\n\
               exists (0:x5=0 /\\ 1:x5=0)\n";
    let sb = litmus_dsl::analyze(src).program.expect("lowers");
    assert!(sb.candidates_only() || sb.has_labels());
    let rb = litmus_checker::robust::own_executions(&sb, riscv, &Options::default());
    assert_eq!(rb.robust(), Answer::Proved(false));
    let keys: Vec<_> = rb.violations.iter().map(|v| v.key()).collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    common::replayed_violations(&sb, &rb).unwrap();
    let sc = litmus_checker::explore::explore(&sb, Model::Sc, &Options::default());
    for v in &rb.violations {
        let f = v.finals.as_ref().expect("named from candidates");
        let harm = f.harm(true, sc.observation.as_ref());
        assert!(matches!(harm, Answer::Proved(litmus_checker::violation::Harm::ChangesCondition { .. })), "{harm:?}");
    }
}

/// "Robust" is a claim: a candidate search cut short by its work budget
/// never makes it (the same program is proved robust with the budget).
#[test]
fn a_cut_short_search_claims_no_robustness() {
    let body =
        " P0               | P1          ;\n lr.w x5,0(x6)    | sw x7,0(x6) ;\n sc.w x9,x7,0(x6) |             ;";
    let p = program(body, "exists (0:x9=0 /\\ 0:x5=0 /\\ x=1)");
    let riscv = Model::parse_in("riscv", &[]).unwrap();
    let full = litmus_checker::robust::own_executions(&p, riscv, &Options::default());
    assert_eq!(full.robust(), Answer::Proved(true));
    for max in [1, 5, 20] {
        let mut opts = Options::default();
        opts.budget.max_steps = Some(max);
        let cut = litmus_checker::robust::own_executions(&p, riscv, &opts);
        assert!(matches!(cut.robust(), Answer::Unknown(Why::Work(_))), "budget {max}: {:?}", cut.robust());
    }
}
