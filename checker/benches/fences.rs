//! Fence synthesis (run: `cargo bench -p litmus-checker --bench fences`):
//! per program, the SC exploration with the monitors (`find_violations`),
//! then harm and fences (`judge_and_fence`: the fence re-checks), and the
//! re-checks that ran an exploration. The rows of issue 11: the fenced
//! Dekker harness (2 threads × K entries, as `../shared/bench/harnesses/
//! dekker_f_kK.litmus`, loop bound K) under TSO, `litmus fix --model tso`
//! on tests/programs/slow.litmus (goal < 1 s; SC+BSS alone 0.16 s), and
//! examples/dekker.litmus under the default models.

use litmus_checker::fences::{fence_positions, Rechecks};
use litmus_checker::machine::Model;
use litmus_checker::monitor::MonitorKind;
use litmus_checker::options::Options;
use litmus_checker::robust::measured_robustness;
use litmus_checker::violation::{all_robust, Violation};
use std::path::Path;
use std::time::Instant;

/// The fenced Dekker harness: each thread enters the critical section `k`
/// times (waiting by `await`).
fn dekker_f(k: u32) -> String {
    let thread = |me: u32, other: u32| {
        format!(
            "thread P{me} {{\n  let k = 0;\n  while (k < {k}) {{\n    flag{me} = 1;\n    fence;\n    \
             if (flag{other} == 1) {{\n      if (turn != {me}) {{\n        flag{me} = 0;\n        \
             await (turn == {me});\n        flag{me} = 1;\n        fence;\n      }}\n      \
             await (flag{other} == 0);\n    }}\n    let c = fetch_add(in_cs, 1);\n    assert (c == 0);\n    \
             fetch_add(in_cs, -1);\n    turn = {other};\n    fence;\n    flag{me} = 0;\n    k = k + 1;\n  }}\n}}\n"
        )
    };
    format!(
        "litmus dekker_f_k{k}\nshared flag0 = 0;\nshared flag1 = 0;\nshared turn = 0;\nshared in_cs = 0;\n{}{}",
        thread(0, 1),
        thread(1, 0)
    )
}

fn row(name: &str, src: &str, models: &[Model], opts: &Options) {
    let prog = litmus_dsl::analyze(src).program.unwrap();
    let t = Instant::now();
    let mut report = litmus_checker::find_violations(&prog, models, MonitorKind::Bss, opts);
    let found = t.elapsed();
    let violations: usize = report.robustness.iter().map(|rb| rb.violations.len()).sum();
    // Harm alone (what `judge_and_fence` does before the fences).
    let t = Instant::now();
    for v in report.robustness.iter().flat_map(|rb| rb.violations.iter()) {
        litmus_checker::harm::quick_harm(&prog, v, report.sc_observation.as_ref(), opts);
    }
    let harm = t.elapsed();
    let t = Instant::now();
    litmus_checker::judge_and_fence(&mut report, &prog, MonitorKind::Bss, opts);
    let judged = t.elapsed();
    println!(
        "  {name:34} SC+monitors {:8.1} ms, harm {:8.1} ms, harm+fences {:9.1} ms ({violations} violations, {} fences, confirmed: {:?})",
        found.as_secs_f64() * 1e3,
        harm.as_secs_f64() * 1e3,
        judged.as_secs_f64() * 1e3,
        report.joint.fences.len(),
        report.joint.confirmed,
    );
}

/// `litmus fix`'s work: the joint search alone, and its re-checks.
fn fix_row(name: &str, src: &str, models: &[Model], opts: &Options) {
    let prog = litmus_dsl::analyze(src).program.unwrap();
    let t = Instant::now();
    let before = measured_robustness(&prog, models, MonitorKind::Bss, opts);
    let found = t.elapsed();
    let mut all: Vec<Violation> = before.robustness.iter().flat_map(|r| r.violations.iter().cloned()).collect();
    let t = Instant::now();
    let rechecks = Rechecks::new(&prog, MonitorKind::Bss, opts).premeasured(before.premeasured);
    let fix = litmus_checker::fences::minimal_fences(&rechecks, models, &mut all, all_robust(&before.robustness));
    println!(
        "  {name:34} SC+monitors {:8.1} ms, fences      {:9.1} ms ({} positions, {} re-checks explored, {} fences, confirmed: {:?})",
        found.as_secs_f64() * 1e3,
        t.elapsed().as_secs_f64() * 1e3,
        fence_positions(&prog, models).len(),
        rechecks.explorations(),
        fix.fences.len(),
        fix.confirmed,
    );
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let with_bound = |k: u32| Options { loop_bound: k, ..Options::default() };
    println!("fence synthesis ({} rayon threads)", rayon::current_num_threads());
    for k in [3, 4] {
        row(&format!("dekker_f_k{k} TSO, loop bound {k}"), &dekker_f(k), &[Model::Tso], &with_bound(k));
    }
    fix_row("slow.litmus fix --model tso", &read("tests/programs/slow.litmus"), &[Model::Tso], &Options::default());
    fix_row("dekker_f_k3 tso", &dekker_f(3), &[Model::Tso], &with_bound(3));
    fix_row("sb12 tso", &read("checker/benches/harnesses/sb12.litmus"), &[Model::Tso], &with_bound(2));
    fix_row("sb12 pso", &read("checker/benches/harnesses/sb12.litmus"), &[Model::Pso], &with_bound(2));
    row(
        "examples/dekker.litmus SC,TSO,PSO",
        &read("examples/dekker.litmus"),
        &[Model::Sc, Model::Tso, Model::Pso],
        &Options::default(),
    );
}
