//! Repairs under the models whole candidates decide: the classic shapes
//! (`tests/shapes/<arch>/`) in AArch64, RISC-V and C11, each repaired to
//! robustness with the known cheapest changes, and the cost of each beside
//! the brute-force minimum: every choice, at every access of every thread,
//! of its stronger forms, and at every place between two accesses, of the
//! dialect's barriers, re-checked.

mod common;

use litmus_checker::certainty::Answer;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_checker::repair;
use litmus_checker::violation::{Change, Repair};
use litmus_ir::Program;

fn load(arch: &str, shape: &str) -> Program {
    let path = common::root().join("tests/shapes").join(arch).join(format!("{shape}.litmus"));
    let src = std::fs::read_to_string(&path).unwrap();
    let a = litmus_dsl::analyze(&src);
    a.program.unwrap_or_else(|| panic!("{}: {:?}", path.display(), a.diagnostics))
}

/// `native`: the C11 shapes written in the native dialect with `@relaxed`.
fn model(arch: &str) -> Model {
    Model::parse_in(if matches!(arch, "c11" | "native") { "rc11" } else { arch }, &[]).unwrap()
}

fn robust(prog: &Program, m: Model) -> Answer<bool> {
    litmus_checker::candidates::robust(prog, m, &Options::default())
}

/// A repair as the table shows it: `P1 LDR→LDAPR`, `P0 DMB.ISH`.
fn show(prog: &Program, r: &Repair) -> String {
    let t = &prog.threads[r.thread as usize].name;
    match r.change {
        Change::Fence { kind, .. } => {
            format!("{t} {}", litmus_dsl::edit::barrier_text(prog.dialect, kind).trim_end_matches(';'))
        }
        Change::Labels { to, .. } => {
            let s = &prog.stmts[r.stmt as usize];
            let word = litmus_dsl::edit::relabel_stmt(prog, r.stmt, &s.text, to).map(|w| w.0).unwrap_or_default();
            format!("{t} {word}")
        }
    }
}

const SHAPES: [&str; 7] = ["MP", "SB", "LB", "IRIW", "WRC", "ISA2", "2+2W"];

/// One row: the repair found (with its cost), whether it is proved the
/// cheapest, and the repaired program's robustness re-checked here.
fn row(arch: &str, shape: &str) -> (Program, Option<repair::RepairFix>) {
    let prog = load(arch, shape);
    let m = model(arch);
    let rb = litmus_checker::robust::own_executions(&prog, m, &Options::default());
    if rb.robust().is(&true) {
        return (prog, None);
    }
    assert_eq!(rb.robust(), Answer::Proved(false), "{arch} {shape}");
    common::replayed_violations(&prog, &rb).unwrap();
    let fix = repair::repair(&prog, m, &rb.violations, &Options::default());
    assert_eq!(fix.confirmed, Answer::Proved(true), "{arch} {shape}: {fix:?}");
    assert!(fix.minimal, "{arch} {shape}");
    assert_eq!(robust(&repair::apply(&prog, &fix.repairs), m), Answer::Proved(true), "{arch} {shape}");
    (prog, Some(fix))
}

/// The repairs the literature gives for message passing, and store
/// buffering's cheapest; every shape repaired, proved the cheapest among
/// the changes at its violations.
#[test]
fn the_classic_shapes_are_repaired_with_the_known_cheapest_changes() {
    let mut table = Vec::new();
    let mut costs = std::collections::BTreeMap::new();
    for arch in ["aarch64", "riscv", "c11", "native"] {
        for shape in SHAPES {
            let (prog, fix) = row(arch, shape);
            costs.insert((arch, shape), fix.as_ref().map(|f| f.repairs.iter().map(|r| r.cost).sum::<u32>()));
            let words = match &fix {
                None => "robust already".to_string(),
                Some(f) => {
                    let cost: u32 = f.repairs.iter().map(|r| r.cost).sum();
                    let mut w: Vec<String> = f.repairs.iter().map(|r| show(&prog, r)).collect();
                    w.sort();
                    format!("{} (cost {cost})", w.join(" + "))
                }
            };
            table.push(format!("{arch:8} {shape:5} {words}"));
        }
    }
    let text = table.join("\n");
    println!("{text}");
    for expected in [
        "aarch64  MP    P0 STLR + P1 LDAPR (cost 3)",
        "aarch64  SB    P0 LDAR + P0 STLR + P1 LDAR + P1 STLR (cost 8)",
        "aarch64  LB    P0 LDAPR + P1 LDAPR (cost 2)",
        "riscv    MP    P0 fence w,w + P1 fence r,r (cost 4)",
        "riscv    SB    P0 fence rw,rw + P1 fence rw,rw (cost 8)",
        "c11      MP    P0 release + P1 acquire (cost 2)",
        "c11      SB    P0 atomic_thread_fence(memory_order_seq_cst) + P1 atomic_thread_fence(memory_order_seq_cst) (cost 8)",
        "c11      LB    robust already",
        "native   MP    P0 release + P1 acquire (cost 2)",
        "native   SB    P0 fence seq_cst + P1 fence seq_cst (cost 8)",
        "native   LB    robust already",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
    // The same program in either language costs the same to repair.
    for shape in SHAPES {
        assert_eq!(costs[&("native", shape)], costs[&("c11", shape)], "{shape}");
    }
}

/// Each shape's repair costs what the cheapest of every choice costs.
#[test]
fn repairs_cost_the_brute_force_minimum() {
    for arch in ["aarch64", "riscv", "c11", "native"] {
        for shape in ["MP", "SB", "LB", "2+2W"] {
            let (prog, fix) = row(arch, shape);
            let Some(fix) = fix else { continue };
            let cost: u32 = fix.repairs.iter().map(|r| r.cost).sum();
            assert_eq!(
                Some(cost),
                common::brute_force_repair(&prog, |p| robust(p, model(arch)).is(&true)),
                "{arch} {shape}"
            );
        }
    }
}

/// The three- and four-thread shapes against the brute force: minutes,
/// not for every run (`cargo test --release -- --ignored`).
#[test]
#[ignore]
fn larger_shapes_cost_the_brute_force_minimum() {
    for arch in ["aarch64", "riscv", "c11", "native"] {
        for shape in ["IRIW", "WRC", "ISA2"] {
            let (prog, fix) = row(arch, shape);
            let Some(fix) = fix else { continue };
            let cost: u32 = fix.repairs.iter().map(|r| r.cost).sum();
            let brute = common::brute_force_repair(&prog, |p| robust(p, model(arch)).is(&true));
            println!("{arch} {shape}: {cost} (brute force {brute:?})");
            assert_eq!(Some(cost), brute, "{arch} {shape}");
        }
    }
}

/// A po edge the model keeps in order names no violation, though it lies
/// on the cycle: MP with an acquire-PC load in the reader is still not
/// robust, by the writer's stores alone.
#[test]
fn an_edge_the_model_orders_names_no_violation() {
    let src = "AArch64 MP+po+ldapr\n{\n0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x;\n}\n \
               P0          | P1            ;\n MOV W0,#1   | LDAPR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3]   ;\n \
               MOV W2,#1   |               ;\n STR W2,[X3] |               ;\nexists (1:X0=1 /\\ 1:X2=0)\n";
    let prog = litmus_dsl::analyze(src).program.expect("lowers");
    let m = model("aarch64");
    let rb = litmus_checker::robust::own_executions(&prog, m, &Options::default());
    assert_eq!(rb.robust(), Answer::Proved(false));
    let named: Vec<(String, String)> = rb
        .violations
        .iter()
        .map(|v| (prog.stmts[v.store_stmt as usize].text.clone(), prog.stmts[v.access_stmt as usize].text.clone()))
        .collect();
    assert_eq!(named, [("STR W0,[X1]".to_string(), "STR W2,[X3]".to_string())]);
    common::replayed_violations(&prog, &rb).unwrap();
    // The model's own axiom: its order (`ob`) keeps every edge of the cycle
    // but the stores' po edge, where the repair goes.
    let f = rb.violations[0].finals.as_ref().expect("named from candidates");
    let external = litmus_checker::violation::CycleOrder {
        name: "external".into(),
        closed: true,
        kept: vec![false, true, true, true],
    };
    assert!(f.axioms.contains(&external), "{:?}", f.axioms);
    // ARM's `ob` is transitive: ordering the stores closes its cycle.
    assert!(external.forbids_once_ordered(&rb.violations[0].witness.cycle));
}

/// A violation's candidate replays on the program a repair changed, fences
/// inserted included (each the run's own event, judged with it): the
/// repair search's shortcut to "still not robust". MP's witness survives a
/// barrier in the reader alone, and not barriers in both threads.
#[test]
fn a_witness_replays_across_inserted_barriers() {
    let prog = load("aarch64", "MP");
    let m = model("aarch64");
    let rb = litmus_checker::robust::own_executions(&prog, m, &Options::default());
    let w = &rb.violations[0].witness.events;
    let barrier = |t: u16, name: &str| {
        let stmts = repair::menu::accesses(&prog, t);
        repair::menu::barriers_between(&prog, t, stmts[0], stmts[1], &Default::default())
            .into_iter()
            .find(
                |r| matches!(r.change, Change::Fence { kind, .. } if kind == litmus_ir::FenceKind::arm(name).unwrap()),
            )
            .unwrap()
    };
    let reader = repair::apply(&prog, &[barrier(1, "DMB.ISHLD")]);
    let r = litmus_checker::candidates::replay(&reader, m, &Options::default(), w).unwrap();
    assert!(r.allowed && r.cyclic(), "a reader's barrier alone keeps MP's relaxed candidate");
    let both = repair::apply(&prog, &[barrier(0, "DMB.ISHST"), barrier(1, "DMB.ISHLD")]);
    let r = litmus_checker::candidates::replay(&both, m, &Options::default(), w).unwrap();
    assert!(!r.allowed, "with both barriers the model forbids it");
    assert_eq!(robust(&both, m), Answer::Proved(true));
}

/// Costs over the default table (setting `repairCosts`, `--repair-cost`):
/// with acquire loads dear, MP on AArch64 takes a load barrier instead,
/// still proved the cheapest; the table's names match without case.
#[test]
fn the_users_costs_choose_another_repair() {
    let prog = load("aarch64", "MP");
    let m = model("aarch64");
    let costs = litmus_checker::options::RepairCosts(vec![("ldapr".into(), 5), ("LDAR".into(), 5)]);
    let opts = Options { repair_costs: costs, ..Options::default() };
    let rb = litmus_checker::robust::own_executions(&prog, m, &opts);
    let fix = repair::repair(&prog, m, &rb.violations, &opts);
    let mut words: Vec<String> = fix.repairs.iter().map(|r| show(&prog, r)).collect();
    words.sort();
    assert_eq!(words, ["P0 STLR", "P1 DMB ISHLD"], "{fix:?}");
    assert_eq!(fix.repairs.iter().map(|r| r.cost).sum::<u32>(), 5);
    assert!(fix.minimal && fix.confirmed == Answer::Proved(true));
}

/// A repair search whose re-checks never finish claims nothing, and says
/// why as the re-checks did (not as a spent budget of sets).
#[test]
fn unfinished_rechecks_leave_the_repair_unknown_for_their_reason() {
    use litmus_checker::certainty::Why;
    let prog = load("aarch64", "MP");
    let m = model("aarch64");
    let opts = Options::default();
    let rb = litmus_checker::robust::own_executions(&prog, m, &opts);
    let pool = repair::pool(&prog, &rb.violations, &opts.repair_costs);
    assert!(!pool.is_empty());
    let fix = repair::cheapest(&prog, &pool, &[], &opts, |_| Answer::Unknown(Why::Timeout));
    assert!(fix.repairs.is_empty(), "{:?}", fix.repairs);
    assert_eq!(fix.confirmed, Answer::Unknown(Why::Timeout));
    assert!(!fix.minimal);
    assert!(fix.tried > 0);
}
