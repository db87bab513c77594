//! The register events a model that computes its own dependencies reads
//! (herd's `catdep` `aarch64.cat`), made from a run's instructions as
//! herd7's AArch64 semantics makes them: each run of a small AArch64
//! thread written out, event by event, with its `iico` edges.

mod common;

use litmus_checker::candidates::regs::{micro, Node, RegKind, RES_ADDR};
use litmus_checker::candidates::thread::runs;

/// Every run of thread 0 of `src`, its events and edges as text.
fn events(src: &str) -> String {
    let prog = common::compile(src);
    let th = &prog.threads[0];
    let names = |r: u32| {
        if r == RES_ADDR {
            "ResAddr".to_string()
        } else {
            th.regs.get(r as usize).map_or_else(|| format!("r{r}"), |i| i.name.clone())
        }
    };
    let domain: Vec<Vec<i64>> = prog.init.iter().map(|&v| vec![v, 1]).collect();
    let mut steps = 0;
    let rs = runs(&prog, 0, &th.init_regs, &domain, 2, true, &mut steps, u64::MAX).expect("runs");
    let mut out = String::new();
    for (k, run) in rs.iter().enumerate() {
        let m = micro(&prog, 0, run);
        out += &format!("run {k} ({} memory events)\n", run.events.len());
        let node = |n: Node| match n {
            Node::Mem { event, write } => {
                let e = &run.events[event as usize];
                format!("{}{}@{}", if write { "W" } else { "R" }, e.cell, m.mem_step[event as usize])
            }
            Node::Reg(i) => {
                let e = &m.evs[i as usize];
                let what = match e.kind {
                    RegKind::Read(r) => format!("Rreg {}", names(r)),
                    RegKind::Write(r) => format!("Wreg {}", names(r)),
                    RegKind::Commit { branch: true } => "BCC".into(),
                    RegKind::Commit { branch: false } => "PRED".into(),
                    RegKind::Nothing => "nothing".into(),
                };
                let tag = if e.addr {
                    "^A"
                } else if e.data {
                    "^D"
                } else {
                    ""
                };
                format!("{what}{tag}@{}", e.step)
            }
        };
        for (name, edges) in [("data", &m.iico_data), ("ctrl", &m.iico_ctrl), ("order", &m.iico_order)] {
            for &(a, b) in edges {
                out += &format!("  {} -{name}-> {}\n", node(a), node(b));
            }
        }
        let lone: Vec<String> = (0..m.evs.len() as u32)
            .map(Node::Reg)
            .filter(|&n| {
                ![&m.iico_data, &m.iico_ctrl, &m.iico_order].iter().any(|es| es.iter().any(|&(a, b)| a == n || b == n))
            })
            .map(node)
            .collect();
        if !lone.is_empty() {
            out += &format!("  alone: {}\n", lone.join(", "));
        }
    }
    out
}

#[test]
fn loads_stores_and_a_select() {
    // An address dependency through EOR (one read of W0), a CSEL picking
    // by the flags a CMP wrote, a store of what it picked.
    insta::assert_snapshot!(events(
        "AArch64 T\n{ 0:X1=x; 0:X4=y; }\n P0 ;\n LDR W0,[X1] ;\n EOR W2,W0,W0 ;\n LDR W3,[X4,W2,SXTW] ;\n CMP W3,#1 ;\n CSEL W5,W0,W3,EQ ;\n STR W5,[X4] ;\nexists (0:X0=0)\n"
    ));
}

#[test]
fn exclusives_and_atomics() {
    // LDXR/STXR through the reservation register, the status with no edge
    // in; SWP's read ordered before its write, LDADD's flowing into it;
    // a CAS's four ways.
    insta::assert_snapshot!(events(
        "AArch64 T\n{ 0:X1=x; 0:X2=y; }\n P0 ;\n LDXR W0,[X1] ;\n STXR W3,W0,[X1] ;\n SWP W3,W4,[X2] ;\n LDADD W4,W5,[X2] ;\n CAS W5,W0,[X2] ;\nexists (0:X0=0)\n"
    ));
}

#[test]
fn pair_instructions() {
    // LDXP's address feeds both reads and the reservation; STXP reads its
    // values only where it succeeds (no `DATA`); STP's values each feed
    // their own write (`DATA`). The order inside LDIAPP/STILP is the
    // candidate's (`iico_order` between memory events), not a register's.
    insta::assert_snapshot!(events(
        "AArch64 T\n{ int x[2]; int y[2]; 0:X1=x; 0:X2=y; }\n P0 ;\n LDXP W3,W4,[X1] ;\n STXP W5,W3,W4,[X1] ;\n STP W3,W6,[X2] ;\nexists (0:X3=0)\n"
    ));
}

#[test]
fn compare_and_swap_pair() {
    // herd's CASP: the four ways of CAS, every edge between two pieces
    // cartesian (each old-value register from both reads, each write
    // from both new values).
    insta::assert_snapshot!(events(
        "AArch64 T\n{ int x[2]; 0:X1=x; 0:X2=1; }\n P0 ;\n CASP W2,W3,W4,W5,[X1] ;\nexists (0:X2=0)\n"
    ));
}
