//! Generated programs in AArch64, RISC-V and C11 (1,000 per architecture,
//! seeded): each robustness answer (the named search's and the re-checks'
//! first-cycle search's) equals a brute-force oracle's (every
//! candidate: any rf, any co, judged by the model and for SC:
//! `candidates::oracle`); each violation's witness replays; each repair is
//! robust by the oracle, and on a share of them no cheaper choice of every
//! access's forms and every barrier between two accesses is.

mod common;

use litmus_checker::candidates::oracle;
use litmus_checker::certainty::Answer;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use litmus_checker::repair::{self, menu};

/// Programs per architecture.
const PROGRAMS: usize = 1000;
/// Every how many non-robust programs the repair's cost is held to the
/// brute force (the brute force tries every choice: seconds each).
const BRUTE_EVERY: usize = 4;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One access of a generated thread: a store of `1 + thread` or a load,
/// to location `loc`, with a form (its index in the architecture's list).
#[derive(Clone, Copy)]
struct Op {
    store: bool,
    loc: usize,
    form: usize,
    /// A barrier after it (its index + 1), or none (0).
    barrier: usize,
}

const LOCS: [&str; 3] = ["x", "y", "z"];

fn shape(r: &mut Rng, forms: (usize, usize), barriers: usize) -> Vec<Vec<Op>> {
    // Two threads of two accesses mostly (the shapes of most litmus
    // tests), three threads sometimes; each thread's accesses to distinct
    // locations; plain accesses mostly, so that cycles are common.
    let threads = if r.below(10) < 7 { 2 } else { 3 };
    (0..threads)
        .map(|_| {
            let n =
                if threads == 2 { 1 + (r.below(6) > 0) as usize + (r.below(6) == 0) as usize } else { 1 + r.below(2) };
            // Two threads share x and y; three, x, y and z.
            let first = r.below(threads);
            let step = 1 + r.below(threads - 1);
            (0..n)
                .map(|k| {
                    let store = r.below(2) == 0;
                    let all = if store { forms.0 } else { forms.1 };
                    let form = if r.below(10) < 6 { 0 } else { r.below(all) };
                    let barrier = if k + 1 < n && r.below(5) == 0 { 1 + r.below(barriers) } else { 0 };
                    Op { store, loc: (first + k * step) % threads, form, barrier }
                })
                .collect()
        })
        .collect()
}

fn herd_table(head: &str, init: Vec<String>, cols: Vec<Vec<String>>) -> String {
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = format!("{head}\n{{\n{}\n}}\n", init.join(" "));
    let names: Vec<String> = (0..cols.len()).map(|i| format!("P{i}")).collect();
    out += &format!(" {} ;\n", names.join(" | "));
    for k in 0..rows {
        let cells: Vec<String> = cols.iter().map(|c| c.get(k).cloned().unwrap_or_default()).collect();
        out += &format!(" {} ;\n", cells.join(" | "));
    }
    out + "exists (x=1)\n"
}

fn aarch64(th: &[Vec<Op>]) -> String {
    const LOADS: [&str; 3] = ["LDR", "LDAR", "LDAPR"];
    const STORES: [&str; 2] = ["STR", "STLR"];
    const DMB: [&str; 3] = ["DMB ISH", "DMB ISHLD", "DMB ISHST"];
    let mut init = Vec::new();
    let mut cols = Vec::new();
    for (t, ops) in th.iter().enumerate() {
        for (k, l) in LOCS.iter().enumerate() {
            init.push(format!("{t}:X{}={l};", 10 + k));
        }
        let mut c = vec![format!("MOV W0,#{}", t + 1)];
        for (i, o) in ops.iter().enumerate() {
            c.push(if o.store {
                format!("{} W0,[X{}]", STORES[o.form], 10 + o.loc)
            } else {
                format!("{} W{},[X{}]", LOADS[o.form], i + 1, 10 + o.loc)
            });
            if o.barrier > 0 {
                c.push(DMB[o.barrier - 1].into());
            }
        }
        cols.push(c);
    }
    herd_table("AArch64 G", init, cols)
}

fn riscv(th: &[Vec<Op>]) -> String {
    const FENCES: [&str; 4] = ["fence rw,rw", "fence r,r", "fence w,w", "fence.tso"];
    let mut init = Vec::new();
    let mut cols = Vec::new();
    for (t, ops) in th.iter().enumerate() {
        for (k, l) in LOCS.iter().enumerate() {
            init.push(format!("{t}:x{}={l};", 10 + k));
        }
        init.push(format!("{t}:x20={};", t + 1));
        let mut c = Vec::new();
        for (i, o) in ops.iter().enumerate() {
            c.push(if o.store {
                format!("sw x20,0(x{})", 10 + o.loc)
            } else {
                format!("lw x{},0(x{})", 5 + i, 10 + o.loc)
            });
            if o.barrier > 0 {
                c.push(FENCES[o.barrier - 1].into());
            }
        }
        cols.push(c);
    }
    herd_table("RISCV G", init, cols)
}

fn c11(th: &[Vec<Op>]) -> String {
    const LOADS: [&str; 3] = ["relaxed", "acquire", "seq_cst"];
    const STORES: [&str; 3] = ["relaxed", "release", "seq_cst"];
    const FENCES: [&str; 3] = ["seq_cst", "acquire", "release"];
    let mut out = String::from("C G\n{ [x] = 0; [y] = 0; [z] = 0; }\n\n");
    for (t, ops) in th.iter().enumerate() {
        out += &format!("P{t} (atomic_int* x, atomic_int* y, atomic_int* z) {{\n");
        for (i, o) in ops.iter().enumerate() {
            out += &if o.store {
                format!("  atomic_store_explicit({}, {}, memory_order_{});\n", LOCS[o.loc], t + 1, STORES[o.form])
            } else {
                format!("  int r{i} = atomic_load_explicit({}, memory_order_{});\n", LOCS[o.loc], LOADS[o.form])
            };
            if o.barrier > 0 {
                out += &format!("  atomic_thread_fence(memory_order_{});\n", FENCES[o.barrier - 1]);
            }
        }
        out += "}\n\n";
    }
    out + "exists (x=1)\n"
}

/// (robust, not robust, repairs held to the brute force)
fn run(arch: &str, model: &str, seed: u64, write: fn(&[Vec<Op>]) -> String, forms: (usize, usize), barriers: usize) {
    let m = Model::parse_in(model, &[]).unwrap();
    let mut r = Rng(seed);
    let (mut robust, mut not, mut brute, mut cheapest) = (0, 0, 0, 0);
    let opts = Options::default();
    for k in 0..PROGRAMS {
        let th = shape(&mut r, forms, barriers);
        let src = write(&th);
        let a = litmus_dsl::analyze(&src);
        let prog = a.program.unwrap_or_else(|| panic!("{arch} {k}: {:?}\n{src}", a.diagnostics));
        let rb = litmus_checker::robust::own_executions(&prog, m, &opts);
        let truth = oracle::robust(&prog, m).unwrap_or_else(|| panic!("{arch} {k}: no oracle\n{src}"));
        assert_eq!(rb.robust(), Answer::Proved(truth), "{arch} {k}:\n{src}");
        // The re-checks' search, which stops at the first cycle, says the same.
        assert_eq!(litmus_checker::candidates::robust(&prog, m, &opts), Answer::Proved(truth), "{arch} {k}:\n{src}");
        if truth {
            robust += 1;
            continue;
        }
        not += 1;
        common::replayed_violations(&prog, &rb).unwrap_or_else(|e| panic!("{arch} {k}: {e}\n{src}"));
        let fix = repair::repair(&prog, m, &rb.violations, &opts);
        assert_eq!(fix.confirmed, Answer::Proved(true), "{arch} {k}: {fix:?}\n{src}");
        let fixed = repair::apply(&prog, &fix.repairs);
        assert_eq!(oracle::robust(&fixed, m), Some(true), "{arch} {k}: the repair is not robust\n{src}");
        cheapest += fix.minimal as usize;
        if fix.minimal && not % BRUTE_EVERY == 1 && menu::accesses(&prog, 0).len() + menu::accesses(&prog, 1).len() <= 5
        {
            let cost: u32 = fix.repairs.iter().map(|r| r.cost).sum();
            assert_eq!(
                Some(cost),
                common::brute_force_repair(&prog, |p| oracle::robust(p, m) == Some(true)),
                "{arch} {k}: {fix:?}\n{src}"
            );
            brute += 1;
        }
    }
    println!(
        "{arch}: {PROGRAMS} programs, {robust} robust, {not} not robust, {cheapest} repairs proved the cheapest, {brute} held to the brute force"
    );
    assert!(robust > PROGRAMS / 10 && not > PROGRAMS / 10, "{arch}: {robust} robust, {not} not");
}

#[test]
fn aarch64_programs_agree_with_the_oracle() {
    run("aarch64", "aarch64", 0x9e3779b97f4a7c15, aarch64, (2, 3), 3);
}

#[test]
fn riscv_programs_agree_with_the_oracle() {
    run("riscv", "riscv", 0xd1b54a32d192ed03, riscv, (1, 1), 4);
}

#[test]
fn c11_programs_agree_with_the_oracle() {
    run("c11", "rc11", 0x8cb92ba72f3d8dd7, c11, (3, 3), 3);
}
