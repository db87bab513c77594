//! Exploration benchmarks (run: `cargo bench -p litmus-checker --bench explore`):
//! the herd corpus under three models in one process; SB-n under TSO;
//! SC executions per second on the mutual-exclusion examples.

use litmus_checker::explore::explore;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;
use std::path::Path;
use std::time::{Duration, Instant};

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        out = Some(r);
    }
    (best, out.unwrap())
}

/// SB-n: thread i stores x_i then loads x_{i+1 mod n}.
pub fn sb_n(n: usize) -> String {
    let mut s = format!("litmus SB{n}\n");
    for i in 0..n {
        s.push_str(&format!("shared x{i} = 0;\n"));
    }
    for i in 0..n {
        s.push_str(&format!("thread P{i} {{\n  x{i} = 1;\n  let r = x{};\n}}\n", (i + 1) % n));
    }
    let conj: Vec<String> = (0..n).map(|i| format!("P{i}:r == 0")).collect();
    s.push_str(&format!("exists ({});\n", conj.join(" && ")));
    s
}

/// Relaxed outcomes by execution graph vs by interleaving (`EXPLORE_BENCH=graph`
/// runs only this): slow.litmus, the shared Dekker harnesses (loop bound K)
/// and SB-12, TSO and PSO. `EXPLORE_BENCH_SKIP_SLOW=1` skips the
/// interleaving runs that take tens of seconds; `EXPLORE_BENCH_ONLY=a,b`
/// runs only those programs.
fn graphs_vs_interleavings(root: &Path) {
    use litmus_checker::ExplorerKind;
    println!("Relaxed outcomes: graph explorer vs interleaving explorer (release, one process)");
    let skip_slow = std::env::var("EXPLORE_BENCH_SKIP_SLOW").is_ok();
    let shared = root.join("../shared/bench/harnesses");
    let mut files: Vec<(String, std::path::PathBuf, u32)> =
        vec![("slow".into(), root.join("tests/programs/slow.litmus"), 2)];
    for (name, k) in [("dekker_f_k3", 3), ("dekker_f_k4", 4), ("sb12", 2)] {
        let p = shared.join(format!("{name}.litmus"));
        if p.exists() {
            files.push((name.into(), p, k));
        }
    }
    let only = std::env::var("EXPLORE_BENCH_ONLY").ok();
    for (name, path, k) in files {
        if only.as_ref().is_some_and(|o| !o.split(',').any(|x| x == name)) {
            continue;
        }
        let prog = litmus_dsl::analyze(&std::fs::read_to_string(&path).unwrap()).program.unwrap();
        for model in [Model::Tso, Model::Pso] {
            let g = Options { loop_bound: k, explorer: ExplorerKind::Graph, ..Options::default() };
            let (tg, og) = best_of(3, || explore(&prog, model, &g));
            let slow = skip_slow && (name == "slow" || name == "dekker_f_k4");
            let inter = if slow {
                "interleaving: skipped".to_string()
            } else {
                let i = Options { loop_bound: k, explorer: ExplorerKind::Interleaving, ..Options::default() };
                let (ti, oi) = best_of(1, || explore(&prog, model, &i));
                assert_eq!(
                    og.states.iter().map(|s| &s.values).collect::<Vec<_>>(),
                    oi.states.iter().map(|s| &s.values).collect::<Vec<_>>()
                );
                format!(
                    "interleaving {:9.1} ms {:9} executions ({:.0}x)",
                    ti.as_secs_f64() * 1e3,
                    oi.stats.executions,
                    ti.as_secs_f64() / tg.as_secs_f64()
                )
            };
            println!(
                "  {name:12} {:3} K={k}: graph {:8.1} ms {:8} graphs {:3} states | {inter}",
                model.upper(),
                tg.as_secs_f64() * 1e3,
                og.stats.executions,
                og.states.len()
            );
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // `cargo bench --bench explore -- monitors`: that table alone.
    if std::env::args().any(|a| a == "monitors") {
        monitor_overhead(&root);
        return;
    }
    // `cargo bench --bench explore -- graph-robustness`: that table alone.
    if std::env::args().any(|a| a == "graph-robustness") {
        graph_robustness(&root);
        return;
    }
    graphs_vs_interleavings(&root);
    if std::env::var("EXPLORE_BENCH").is_ok_and(|v| v == "graph") {
        return;
    }
    let dir = root.join("tests/corpus/herd-x86");
    let progs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .map(|p| litmus_dsl::analyze(&std::fs::read_to_string(p).unwrap()).program.unwrap())
        .collect();
    let opts = Options::default();
    let (t, states) = best_of(10, || {
        let mut n = 0;
        for p in &progs {
            for m in [Model::Sc, Model::Tso, Model::Pso] {
                n += explore(p, m, &opts).states.len();
            }
        }
        n
    });
    println!(
        "herd corpus, {} tests x SC/TSO/PSO: {:.1} ms ({} final states; herd7 ~1 s batched; target < 200 ms)",
        progs.len(),
        t.as_secs_f64() * 1e3,
        states
    );

    println!("SB-n under TSO (herd7: n=10 1.15 s, n=12 7.1 s; target n=12 < 0.5 s)");
    for n in 2..=12 {
        let prog = litmus_dsl::analyze(&sb_n(n)).program.unwrap();
        let runs = if n <= 9 { 5 } else { 1 };
        let (t, out) = best_of(runs, || explore(&prog, Model::Tso, &opts));
        let reference = if n <= 7 {
            let (rt, r) = best_of(1, || litmus_checker::reference::explore(&prog, Model::Tso, &opts, 50_000_000));
            assert_eq!(r.states.len(), out.states.len());
            format!("   explicit-state reference: {:9.2} ms, {} states visited", rt.as_secs_f64() * 1e3, r.visited)
        } else {
            String::new()
        };
        println!(
            "  n={n:2}: {:8.2} ms  {:5} states  {:7} executions  {:8} transitions  observation {}{reference}",
            t.as_secs_f64() * 1e3,
            out.states.len(),
            out.stats.executions,
            out.stats.transitions,
            out.observation.as_ref().and_then(|a| a.value()).map_or("unknown", |o| o.as_str())
        );
    }

    monitor_overhead(&root);
    graph_robustness(&root);

    println!("Distinct violations (statement pairs) with preemption bounds, as in BSS Tables 1-2 (loop bound 2)");
    for name in ["dekker", "bakery", "peterson", "lamport-fast", "ms2-queue", "treiber-stack", "spinlock"] {
        let src = std::fs::read_to_string(root.join(format!("examples/{name}.litmus"))).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        let mut cells = Vec::new();
        for pb in [Some(1), Some(2), None] {
            let o = Options { preemption_bound: pb, ..Options::default() };
            let t = Instant::now();
            let mut c = litmus_checker::robust::Collector::new(
                &prog,
                &[Model::Tso, Model::Pso],
                litmus_checker::MonitorKind::Bss,
                &o,
            );
            let out = c.run(&o);
            let v = c.finish(out.coverage);
            cells.push(format!(
                "pb {}: {:5} interleavings {:7.2} ms TSO {:2} PSO {:2}",
                pb.map(|b| b.to_string()).unwrap_or("-".into()),
                out.stats.executions,
                t.elapsed().as_secs_f64() * 1e3,
                v[0].violations.len(),
                v[1].violations.len()
            ));
        }
        println!("  {name:13} {}", cells.join(" | "));
    }

    println!("SC exploration rate");
    for name in ["dekker", "peterson", "bakery", "lamport-fast"] {
        let src = std::fs::read_to_string(root.join(format!("examples/{name}.litmus"))).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        for pb in [None, Some(2)] {
            let o = Options { preemption_bound: pb, loop_bound: 3, ..Options::default() };
            let (t, out) = best_of(5, || explore(&prog, Model::Sc, &o));
            println!(
                "  {name:13} loop-bound 3 preemption-bound {:4}: {:7} executions in {:8.2} ms = {:9.0} executions/s, {:10.0} transitions/s",
                pb.map(|b| b.to_string()).unwrap_or("none".into()),
                out.stats.executions,
                t.as_secs_f64() * 1e3,
                out.stats.executions as f64 / t.as_secs_f64(),
                out.stats.transitions as f64 / t.as_secs_f64()
            );
        }
    }
}

/// Same process, same options: the SC exploration alone (running every
/// attempt, as the monitored one does; it also collects the final states)
/// against the same exploration with the
/// monitors riding along (BSS for TSO and PSO; Sober for TSO), witnesses
/// included. Best of several runs each.
///
/// Wall time moves with the load of a shared machine; instruction counts do
/// not. Counted with callgrind (`valgrind --tool=callgrind
/// --toggle-collect=<driver>` around one `explore` or `Collector::run`), in
/// millions, bare → BSS / Sober, before (hb clocks per event, one BSS per
/// model) and after (the explorer's clocks, BSS for both models in one
/// pass, Sober's store components):
///
/// | program, bounds      | bare   | BSS before → after | Sober before → after |
/// |----------------------|--------|--------------------|----------------------|
/// | dekker lb 20 pb 4    | 150.5  | +48.9 % → +19.9 %  | +49.8 % → +22.8 %    |
/// | bakery lb 20 pb 4    |  15.3  | +61.2 % → +32.1 %  | +58.2 % → +29.9 %    |
/// | lamport lb 20 pb 4   |  19.0  | +62.9 % → +30.7 %  | +59.1 % → +28.7 %    |
/// | ms2-queue lb 20 pb 4 | 105.8  | +54.1 % → +19.6 %  | +54.7 % → +25.2 %    |
/// | slow.litmus          | 1088   | +67.3 % → +45.8 %  | +57.1 % → +29.7 %    |
///
/// Again on 2026-11-27 (`--toggle-collect` around `explore::explore` and
/// `Collector::run` of a small driver, one run each), before and after one
/// row per store of where each thread first forced it (the check compares
/// that row with the access's clock instead of searching every forcer's
/// step list) and a per-cell table of writers:
///
/// | program, bounds      | bare   | BSS before → after |
/// |----------------------|--------|--------------------|
/// | dekker lb 20 pb 4    | 168.7  | +22.2 % → +20.5 %  |
/// | bakery lb 20 pb 4    |  16.4  | +34.7 % → +33.0 %  |
/// | lamport lb 20 pb 4   |  20.1  | +34.9 % → +33.3 %  |
/// | ms2-queue lb 20 pb 4 | 114.3  | +24.4 % → +24.0 %  |
/// | slow.litmus          | 1201.8 | +47.9 % → +41.5 %  |
///
/// The check was not where the time goes: on slow.litmus the monitor
/// spends about 800 instructions per event, spread over the per-writer
/// bookkeeping (clock rows, the writer's store lists, forcing) of both
/// models, and PSO signals on 45 % of the accesses (236,700 signals,
/// each a hashed group lookup).
///
/// Since 20f8a40 the Sober column also explores TSO's own executions
/// (Sober can miss violations, so it never proves robustness alone): it is
/// no longer the monitor's overhead. Since 19ecccf SC alone lets failing
/// attempts wait; the bare column runs every attempt, as the monitored
/// exploration must. Wall time on 2026-11-27, BSS (TSO and PSO together),
/// at a1da469 → at 9faa2aa (a cheaper explorer step, the monitor nearly
/// unchanged: the same absolute cost is a larger share): dekker lb 20 pb 4
/// +23 % → +28 %, ms2-queue +30 % → +33 %, slow.litmus +53 % → +55 %,
/// dekker_f_k3 +32 % → +37 % (callgrind, BSS for TSO alone: +22 % → +28 %).
///
/// On 2026-11-28 at 0d4d0a5 (the monitors hear a batch of events per
/// execution instead of one call per transition, and skip a writer whose
/// stores the accessing thread forced already), wall time: dekker lb 20 pb 4
/// +16.3 %, ms2-queue +17.6 %, treiber-stack +24.8 %, bakery +36.0 %,
/// slow.litmus +41.4 %, dekker_f_k3 +26.8 %; callgrind (BSS, TSO and PSO,
/// no measuring): dekker lb 20 pb 4 146.6M → 170.4M (+16.2 %), ms2-queue
/// 106.8M → 126.7M (+18.7 %), dekker_f_k3 305.0M → 381.0M (+24.9 %),
/// slow.litmus 1029M → 1426M (+38.6 %; its PSO monitor signals on 45 % of
/// the accesses, and every cell has two other writers to check and force).
///
/// At 193cb6d (2026-11-28, later; the monitored exploration's instructions
/// the same as at 0d4d0a5: dekker_f_k3 TSO `check --bounded --threads 1`
/// 708.8M → 708.4M in all), wall in a slower window: dekker lb 20 pb 4
/// +17.7 / +19.5 %, ms2-queue +21.0 / +22.3 %, treiber-stack +16.8 /
/// +27.7 %, bakery +49 %, slow.litmus +62.1 / +48.5 %, dekker_f_k3 +27.1 /
/// +29.7 % (two runs). The graph decision, the other way, is not
/// cheaper either (`graph_robustness` below).
///
/// On 2026-11-28 at 4e75075 (BSS watches only the stores a later access may
/// overtake, `monitor/delays.rs`, and skips the steps where nothing
/// changes), callgrind, BSS for TSO and PSO, bare → monitored (before this
/// change): dekker_f_k3 303.5M → 350.2M, +15.4 % (+25.5 %; TSO alone
/// +13.4 %); dekker lb 20 pb 4 148.2M → 169.6M, +14.4 % (+16.2 %);
/// treiber-stack +15.1 % (+15.3 %); ms2-queue +18.4 % (+18.7 %); lamport
/// +24.8 % (+25.5 %); bakery +25.5 % (+27.5 %); peterson +27.2 %;
/// slow.litmus 1016M → 1414M, +39.2 % (+39.6 %: every store there may be
/// overtaken and signals dense).
///
/// The smaller rows (lb 2, lb 3) are dominated by building and replaying
/// each violation's witness (a fixed cost per statement pair: on bakery lb
/// 2, 55 % of the run), not by the monitors.
///
/// At f83d08d (2026-11-28, witnesses replay on one machine per model;
/// `Machine::new` was a quarter of each witness), callgrind, bare → BSS for
/// TSO and PSO (TSO alone):
///
/// | program        | lb 2             | lb 3 pb 2        | lb 20 pb 4       |
/// |----------------|------------------|------------------|------------------|
/// | dekker         | +23.4 % (+9.0)   | +22.5 % (+10.1)  | +14.5 % (+11.3)  |
/// | peterson       | +30.1 % (+12.0)  | +28.2 % (+12.8)  | +24.9 % (+13.4)  |
/// | bakery         | +51.3 % (+22.8)  | +36.5 % (+19.3)  | +24.5 % (+16.1)  |
/// | lamport-fast   | +46.4 % (+13.9)  | +28.3 % (+14.5)  | +23.7 % (+15.2)  |
/// | ms2-queue      | +23.2 % (+2.0)   | +19.2 % (+0.1)   | +18.2 % (−0.3)   |
/// | treiber-stack  | +11.5 % (+2.3)   | +12.5 % (+4.1)   | +14.8 % (+7.1)   |
///
/// slow.litmus 1016.1M → 1413.9M, +39.1 % (TSO alone +24.2 %); dekker_f_k3
/// lb 3 303.5M → 350.8M, +15.6 % (+13.6 %). PSO is most of the rest: its
/// native atomics drain one cell, so a lock leaves every earlier store
/// watched (ms2-queue: TSO's monitor is inert, PSO's signals 7,049 times).
///
/// Tried and dropped the same day: BSS computed from each event's causal
/// past (everything causal forcing decides at an access is a function of
/// it), each past named by hash-consing (statement, latest transition of
/// each thread) and its signals remembered. The search does repeat pasts —
/// distinct/all events: ms2-queue lb 20 pb 4 61/55,179, bakery 200/7,774,
/// dekker 3,570/70,627, but slow.litmus 380,107/525,178 and dekker_f_k3
/// 129,095/157,198 — yet naming an event (key, hash, probe) and keeping
/// the per-(thread, cell) access lists a miss needs cost as much per event
/// as this monitor does: dekker lb 20 pb 4 +19.2 %, ms2-queue +20.4 %,
/// bakery +26.2 %, slow.litmus +55 %. It signalled exactly what this one
/// does on 6,000 generated programs per kind (a differential test, dropped
/// with it). What is left per event (about 300 instructions against the
/// explorer's 2,000) is spread over marks, the writer loop, forcing and
/// undo; no one part is more than a tenth of it.
fn monitor_overhead(root: &Path) {
    use litmus_checker::MonitorKind;
    println!("Monitor overhead: SC exploration alone vs with the monitors riding along (BSS: TSO and PSO; Sober: TSO), witnesses included");
    let time = |prog: &litmus_ir::Program, o: &Options, runs: usize| {
        // The same exploration the monitors ride: every await and lock
        // attempt runs (a failed one may be a cycle's bridge), where SC
        // alone lets failing attempts wait and explores fewer executions.
        let (bare, out) = best_of(runs, || {
            litmus_checker::explore::explore_listened(prog, Model::Sc, o, &mut litmus_checker::dpor::NoListener, |_| {})
        });
        let with = |models: &[Model], kind: MonitorKind| {
            best_of(runs, || {
                let mut c = litmus_checker::robust::Collector::new(prog, models, kind, o);
                let sc = c.run(o);
                c.finish(sc.coverage).iter().map(|x| x.violations.len()).collect::<Vec<_>>()
            })
        };
        let (bss, vb) = with(&[Model::Tso, Model::Pso], MonitorKind::Bss);
        let (sober, vs) = with(&[Model::Tso], MonitorKind::Sober);
        let pct = |d: Duration| (d.as_secs_f64() / bare.as_secs_f64() - 1.0) * 100.0;
        format!(
            "{:7} executions  bare {:8.3} ms  BSS {:8.3} ms ({:+5.1}%) TSO/PSO violations {:?}  Sober {:8.3} ms ({:+5.1}%) TSO violations {:?}",
            out.stats.executions,
            bare.as_secs_f64() * 1e3,
            bss.as_secs_f64() * 1e3,
            pct(bss),
            vb,
            sober.as_secs_f64() * 1e3,
            pct(sober),
            vs
        )
    };
    for name in ["dekker", "peterson", "bakery", "lamport-fast", "ms2-queue", "treiber-stack"] {
        let src = std::fs::read_to_string(root.join(format!("examples/{name}.litmus"))).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        for (lb, pb) in [(2, None), (3, Some(2)), (20, Some(4))] {
            let o = Options { preemption_bound: pb, loop_bound: lb, ..Options::default() };
            let pb = pb.map(|b| b.to_string()).unwrap_or("none".into());
            println!("  {name:13} lb {lb:2} pb {pb:4}: {}", time(&prog, &o, 10));
        }
    }
    let src = std::fs::read_to_string(root.join("tests/programs/slow.litmus")).unwrap();
    let prog = litmus_dsl::analyze(&src).program.unwrap();
    println!("  {:29}: {}", "tests/programs/slow.litmus", time(&prog, &Options::default(), 3));
    // The peers' fenced Dekker (issue 23's row), at its loop bound.
    let path = root.join("checker/benches/harnesses/dekker_f_k3.litmus");
    if let Ok(src) = std::fs::read_to_string(&path) {
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        let o = Options { loop_bound: 3, ..Options::default() };
        println!("  {:29}: {}", "dekker_f_k3 lb 3", time(&prog, &o, 5));
    }
}

/// Robustness decided on the model's execution graphs (`graph::robust`)
/// against the model's bare graph search (what its outcomes cost anyway)
/// and against the BSS monitor riding the SC exploration, with that
/// exploration bare beside it; one model at a time, one thread, same
/// process, best of several runs.
///
/// On 2026-11-28 (wall, best of 5; graphs bare → deciding | SC bare → BSS):
///
/// | program, model    | graphs    | graph decision       | SC bare | BSS                |
/// |-------------------|-----------|----------------------|---------|--------------------|
/// | sb12 TSO          | 4,096     | 3.55 → 5.52 ms (+55 %) | 3.45 ms | 3.94 ms (+14 %)  |
/// | sb10 TSO          | 1,024     | 0.84 → 1.38 ms (+63 %) | 0.83 ms | 1.04 ms (+26 %)  |
/// | slow.litmus TSO   | 1,095,292 | 0.83 → 10.0 s        | 54 ms   | 70 ms (+29 %)      |
/// | dekker_f_k3 TSO   | 18,893    | 84 → 107 ms (+28 %)  | 16.1 ms | 19.9 ms (+24 %)    |
/// | dekker_nf_k2 TSO  | 1,979     | 5.2 → 12.1 ms        | 0.54 ms | 0.76 ms (+41 %)    |
///
/// So the graph decision is not the cheaper one: its per-graph test (the
/// components of `po ∪ rf ∪ co ∪ fr`) costs more than the monitor's
/// per-event work, and where the model has far more graphs than SC has
/// executions (slow.litmus: 1.1 M against 78 k) every non-SC graph is
/// named. It is exact where BSS is not (a signal BSS cannot witness), which
/// is what the check uses it for.
fn graph_robustness(root: &Path) {
    use litmus_checker::MonitorKind;
    println!("Robustness on graphs: the model's graph search bare / deciding robustness, vs the SC exploration bare / with the BSS monitor (one model, one thread)");
    let mut files: Vec<(String, std::path::PathBuf, u32)> = vec![
        ("sb12".into(), root.join("checker/benches/harnesses/sb12.litmus"), 1),
        ("sb10".into(), root.join("checker/benches/harnesses/sb10.litmus"), 1),
        ("slow.litmus".into(), root.join("tests/programs/slow.litmus"), 2),
        ("dekker_f_k3 lb 3".into(), root.join("checker/benches/harnesses/dekker_f_k3.litmus"), 3),
        ("dekker_nf_k2 lb 2".into(), root.join("checker/benches/harnesses/dekker_nf_k2.litmus"), 2),
    ];
    files.retain(|(_, p, _)| p.exists());
    for (name, path, lb) in files {
        let prog = litmus_dsl::analyze(&std::fs::read_to_string(&path).unwrap()).program.unwrap();
        let o = Options { loop_bound: lb, threads: 1, waits: false, ..Options::default() };
        for model in [Model::Tso, Model::Pso] {
            let runs = 5;
            let (bare_g, out) = best_of(runs, || litmus_checker::graph::explore(&prog, model, &o, None));
            let (robust_g, rg) = best_of(runs, || litmus_checker::graph::robust::robustness(&prog, model, &o));
            let (bare_sc, _) = best_of(runs, || {
                litmus_checker::explore::explore_listened(
                    &prog,
                    Model::Sc,
                    &o,
                    &mut litmus_checker::dpor::NoListener,
                    |_| {},
                )
            });
            let (bss, rb) = best_of(runs, || litmus_checker::robust::robustness_of(&prog, model, MonitorKind::Bss, &o));
            assert_eq!(rg.robust(), rb.robust(), "{name} {model:?}");
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            println!(
                "  {name:18} {:3}: graphs {:6} bare {:8.3} ms, robustness {:8.3} ms ({:+5.1} %) | SC bare {:8.3} ms, BSS {:8.3} ms ({:+5.1} %) | graphs/BSS {:.2}x, {} violations",
                model.upper(),
                out.stats.executions,
                ms(bare_g),
                ms(robust_g),
                (ms(robust_g) / ms(bare_g) - 1.0) * 100.0,
                ms(bare_sc),
                ms(bss),
                (ms(bss) / ms(bare_sc) - 1.0) * 100.0,
                ms(bss) / ms(robust_g),
                rg.violations.len()
            );
        }
    }
}
