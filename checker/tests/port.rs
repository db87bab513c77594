//! Porting between models (`litmus port`): the classic AArch64 shapes moved
//! from x86's TSO (herd's `x86tso.cat`) to AArch64, each answer with a
//! witness that replays as allowed by the new model and forbidden by the
//! old; and, against SC, the same answer as robustness itself on the whole
//! AArch64 and C11 corpora.

mod common;

use litmus_checker::certainty::Answer;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_ir::Program;

fn load(path: &std::path::Path) -> Program {
    let src = std::fs::read_to_string(path).unwrap();
    let a = litmus_dsl::analyze(&src);
    a.program.unwrap_or_else(|| panic!("{}: {:?}", path.display(), a.diagnostics))
}

fn model(name: &str) -> Model {
    Model::parse_in(name, &[]).unwrap()
}

/// The witness of a "not robust" is an execution `to` allows and `from`
/// forbids, replayed under each.
fn check_witness(prog: &Program, p: &litmus_checker::port::Port) -> Result<(), String> {
    let Some(w) = &p.witness else {
        return if p.executions.is(&false) { Err("not robust without a witness".into()) } else { Ok(()) };
    };
    let opts = Options::default();
    let to = litmus_checker::candidates::replay(prog, p.to, &opts, &w.events)?;
    let from = litmus_checker::candidates::replay(prog, p.from, &opts, &w.events)?;
    if !to.allowed || from.allowed {
        return Err(format!(
            "witness allowed by {}: {}, by {}: {}",
            p.to.as_str(),
            to.allowed,
            p.from.as_str(),
            from.allowed
        ));
    }
    Ok(())
}

/// x86 code moved to ARM keeps its behaviour only where TSO's own
/// relaxation is all there is: store buffering, and nothing else.
#[test]
fn the_shapes_moved_from_tso_to_aarch64() {
    let (tso, arm) = (model("x86tso.cat"), model("aarch64"));
    let mut table = Vec::new();
    for shape in ["MP", "SB", "LB", "IRIW", "WRC", "ISA2", "2+2W"] {
        let prog = load(&common::root().join("tests/shapes/aarch64").join(format!("{shape}.litmus")));
        let p = litmus_checker::port::port(&prog, tso, arm, &Options::default());
        check_witness(&prog, &p).unwrap_or_else(|e| panic!("{shape}: {e}"));
        // The way back loses nothing: every TSO execution is an ARM one.
        let back = litmus_checker::port::port(&prog, arm, tso, &Options::default());
        assert_eq!(back.executions, Answer::Proved(true), "{shape}: back");
        assert!(back.gained.is_empty(), "{shape}: back");
        // A final state only ARM reaches is a reason the executions differ.
        assert!(p.gained.is_empty() || p.executions.is(&false), "{shape}");
        table.push(format!("{shape} {:?} gained {}", p.executions, p.gained.len()));
    }
    assert_eq!(
        table,
        [
            "MP Proved(false) gained 1",
            "SB Proved(true) gained 0",
            "LB Proved(false) gained 1",
            "IRIW Proved(false) gained 1",
            "WRC Proved(false) gained 1",
            "ISA2 Proved(false) gained 1",
            "2+2W Proved(false) gained 1",
        ]
    );
}

/// Against SC, porting is robustness itself: the same answer on every
/// test of the AArch64 and C11 corpora, and every witness replays.
#[test]
fn against_sc_it_is_robustness() {
    let sc = Model::Sc;
    let mut compared = 0;
    for (dir, m) in [("herd-aarch64", "aarch64"), ("herd-c11", "rc11")] {
        let to = model(m);
        for path in common::litmus_files(&format!("tests/corpus/{dir}")) {
            // The few tests litmus refuses (named in herd_*.rs) are skipped here.
            let Some(prog) = litmus_dsl::analyze(&std::fs::read_to_string(&path).unwrap()).program else {
                continue;
            };
            let robust = litmus_checker::candidates::robust(&prog, to, &Options::default());
            let (answer, witness, _) = litmus_checker::candidates::against(&prog, to, sc, &Options::default());
            assert_eq!(answer, robust, "{}", path.display());
            if let Some(w) = witness {
                let r = litmus_checker::candidates::replay(&prog, to, &Options::default(), &w.events).unwrap();
                assert!(r.allowed && r.cyclic(), "{}", path.display());
            }
            compared += 1;
        }
    }
    assert!(compared > 300, "{compared}");
}
