//! herd's RISC-V corpus (`tests/corpus/herd-riscv/`, herd7's verdicts at
//! 5feffe4e): every test litmus reads gets herd7's observation and state
//! count under the project's own `riscv` model (`models/rvwmo.cat`), under
//! herd's stock `riscv.cat`, and under the built-in SC (herd's `sc.cat`
//! column; the 29 with `lr`/`sc` by SC's definition as data, as no
//! machine runs a store-conditional). The tests litmus refuses are named,
//! each with its reason.

mod common;

use litmus_checker::check::check;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;

use common::cat;

/// Refused by name: (file, the diagnostic code, why).
const REFUSED: &[(&str, &str, &str)] = &[(
    "litmus-tests-riscv__tests__mixed-size__HAND__LB-mixed2.litmus",
    "E0104",
    "mixed-size (half-word stores into a word), out of scope",
)];

#[test]
fn riscv_corpus_agrees_with_herd() {
    let own = Model::parse("riscv").or_else(|_| Model::parse_in("riscv", &[])).expect("the riscv model");
    assert_eq!(own.as_str(), "riscv");
    let stock = cat("riscv.cat");
    assert_eq!(stock.as_str(), "riscv.cat", "herd's file is named apart from the project's `riscv`");
    let opts = Options::default();
    let mut lrsc = 0;
    let (checked, named, bad) = common::herd_corpus("herd-riscv", REFUSED, |c, prog, bad| {
        assert_eq!(prog.dialect, litmus_ir::Dialect::HerdRiscv);
        assert_eq!(litmus_checker::catalog::defaults_for(prog.dialect), [Model::Sc, own], "a RISC-V test's models");
        lrsc += usize::from(prog.has_store_conditionals());
        for (m, obs_col, states_col) in [(own, 4, 5), (stock, 4, 5), (Model::Sc, 6, 7)] {
            let out = &check(&prog, &[m], &opts)[0];
            bad.extend(common::herd_difference(c, m, out, obs_col, states_col));
        }
        // Robustness against SC (herd's column: the model plus `~acyclic po | rf | co | fr`).
        for m in [own, stock] {
            bad.extend(common::herd_robust_difference(c, m, &prog, 8));
        }
    });
    eprintln!("{checked} RISC-V tests checked under riscv, riscv.cat and sc; {lrsc} of them with lr/sc");
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
    assert_eq!((checked + named, named), (200, REFUSED.len()));
    assert_eq!((checked, lrsc), (199, 29));
}

/// An AMO is one event, in `R` and `W` (herd's RISC-V semantics): so
/// `fence.tso` orders it, as a read, before a later load, and this shape
/// (from litmus-tests-riscv) is forbidden, as herd7 answers.
#[test]
fn an_amo_is_one_event() {
    let src = "RISCV RR+RR+rmw-fence.tsos\n{\n0:x5=x; 0:x7=1; 0:x9=y;\n1:x5=y; 1:x7=1; 1:x9=x;\n}\n \
               P0                   | P1                   ;\n amoswap.w x6,x7,(x5) | amoswap.w x6,x7,(x5) ;\n \
               fence.tso            | fence.tso            ;\n lw x8,0(x9)          | lw x8,0(x9)          ;\n\
               exists (0:x6=0 /\\ 0:x8=0 /\\ 1:x6=0 /\\ 1:x8=0)\n";
    let prog = litmus_dsl::analyze(src).program.expect("lowers");
    let stock = cat("riscv.cat");
    let own = Model::parse_in("riscv", &[]).unwrap();
    for m in [own, stock] {
        let out = &check(&prog, &[m], &Options::default())[0];
        assert_eq!(out.known_observation().map(|o| o.as_str()), Some("never"), "{}", m.as_str());
        assert_eq!(out.states.len(), 3, "{}", m.as_str());
    }
}
