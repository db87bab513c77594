//! The paper's measurements in kind (run: `cargo bench -p litmus-history
//! --bench history`): mean time of each method on valid histories of random
//! SC runs — 100 to 500 operations over 4 threads, then 2 to 6 threads with
//! 50 operations each — under SC and TSO; the share of pairs of writes that
//! CCM's `pww` (and CCv's order, for comparison) leave unordered; and
//! invalid histories (one read changed). `HISTORY_BENCH_N` histories per
//! point (default 10; the paper used 200). Writes the table as CSV and a
//! plot as SVG to `target/history-bench.{csv,svg}`.

use litmus_history::generate::{self, Shape};
use litmus_history::{ccv_order, check, partial_order, unordered_pairs, History, Method, Model};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// Mean milliseconds per history of each method, and how many it found consistent.
fn time(hs: &[History], model: Model) -> Vec<(f64, usize)> {
    Method::ALL
        .iter()
        .map(|&m| {
            let start = Instant::now();
            let ok = hs.iter().filter(|h| check(h, model, m).verdict.consistent()).count();
            (start.elapsed().as_secs_f64() * 1e3 / hs.len().max(1) as f64, ok)
        })
        .collect()
}

/// Locations grow with the history, so writes per location stay moderate
/// (the paper's Gem5 clients do not say; this keeps ~12 writes per location).
fn shape(threads: usize, ops: usize) -> Shape {
    Shape { threads, ops, locs: (ops / 25).max(2), ..Shape::default() }
}

fn histories(threads: usize, ops: usize, n: usize, seed: u64) -> Vec<History> {
    (0..n as u64).map(|i| generate::run(&shape(threads, ops), Model::Sc, seed * 1_000_003 + i)).collect()
}

struct Row {
    series: &'static str,
    x: usize,
    model: Model,
    ms: Vec<(f64, usize)>,
    n: usize,
}

fn main() {
    let n: usize = std::env::var("HISTORY_BENCH_N").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let mut rows = Vec::new();
    println!("valid histories (random SC runs), {n} per point: mean ms per history");
    println!("{:<10} {:>5} {:<5} {:>10} {:>10} {:>10}", "series", "x", "model", "ccm-enum", "ccm-sat", "sat");
    let points: Vec<(&'static str, usize, usize)> =
        (1..=5).map(|k| ("ops", 100 * k, 4)).chain((2..=6).map(|t| ("threads", t, t))).collect();
    for (series, x, threads) in points {
        let ops = if series == "ops" { x } else { 50 * threads };
        let hs = histories(threads, ops, n, x as u64);
        for model in [Model::Sc, Model::Tso] {
            let ms = time(&hs, model);
            assert!(ms.iter().all(|&(_, ok)| ok == hs.len()), "a valid history was rejected");
            println!(
                "{:<10} {:>5} {:<5} {:>10.2} {:>10.2} {:>10.2}",
                series,
                x,
                model.upper(),
                ms[0].0,
                ms[1].0,
                ms[2].0
            );
            rows.push(Row { series, x, model, ms, n: hs.len() });
        }
    }

    // The paper: 200 histories of 200 operations; pww leaves 6.6% of the
    // pairs of writes unordered, CCv's order 57.75%. Also with fewer reads
    // (fewer causal links between threads).
    for writes in [0.45, 0.7] {
        let shape = Shape { writes, ..shape(4, 200) };
        let hs: Vec<History> = (0..200).map(|i| generate::run(&shape, Model::Sc, 7_000 + i)).collect();
        let (mut pairs, mut by_pww, mut by_wpww, mut by_ccv) = (0, 0, 0, 0);
        for h in &hs {
            pairs += h.write_pairs();
            by_pww += unordered_pairs(h, &partial_order(h, Model::Sc).expect("valid"));
            by_wpww += unordered_pairs(h, &partial_order(h, Model::Tso).expect("valid"));
            by_ccv += unordered_pairs(h, &ccv_order(h));
        }
        let pct = |k: usize| 100.0 * k as f64 / pairs.max(1) as f64;
        println!(
            "\nunordered pairs of writes, 200 histories of 200 operations, {:.0}% writes ({pairs} pairs): \
             pww {:.2}%, wpww {:.2}%, CCv's order {:.2}%  (paper: pww 6.6%, CCv 57.75%)",
            100.0 * writes,
            pct(by_pww),
            pct(by_wpww),
            pct(by_ccv)
        );
    }

    // Invalid histories: one read of a valid one changed.
    let mut invalid: Vec<History> = Vec::new();
    for (i, h) in histories(4, 200, 4 * n, 11).iter().enumerate() {
        invalid.extend(generate::mutate(h, i as u64));
    }
    for model in [Model::Sc, Model::Tso] {
        let ms = time(&invalid, model);
        println!(
            "invalid (200 ops, {} mutated, {} {}-consistent): ccm-enum {:.2} ms, ccm-sat {:.2} ms, sat {:.2} ms",
            invalid.len(),
            ms[0].1,
            model.upper(),
            ms[0].0,
            ms[1].0,
            ms[2].0
        );
    }

    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    let _ = std::fs::create_dir_all(&target);
    let mut csv = String::from("series,x,model,histories,ccm_enum_ms,ccm_sat_ms,sat_ms\n");
    for r in &rows {
        let _ = writeln!(
            csv,
            "{},{},{},{},{:.4},{:.4},{:.4}",
            r.series,
            r.x,
            r.model.as_str(),
            r.n,
            r.ms[0].0,
            r.ms[1].0,
            r.ms[2].0
        );
    }
    let _ = std::fs::write(target.join("history-bench.csv"), csv);
    let _ = std::fs::write(target.join("history-bench.svg"), svg(&rows));
    println!("\nwrote target/history-bench.csv and target/history-bench.svg");
}

/// Four panels (operations / threads × SC / TSO), a line per method, log scale.
fn svg(rows: &[Row]) -> String {
    let (pw, ph, m) = (360.0, 240.0, 45.0);
    let colours = ["#1b9e77", "#d95f02", "#7570b3"];
    let mut out = format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='sans-serif' font-size='11'>\n",
        2.0 * (pw + m) + m,
        2.0 * (ph + m) + m
    );
    let max = rows.iter().flat_map(|r| r.ms.iter().map(|x| x.0)).fold(0.01f64, f64::max).log10().ceil();
    let min = rows.iter().flat_map(|r| r.ms.iter().map(|x| x.0)).fold(f64::MAX, f64::min).max(1e-3).log10().floor();
    for (pi, (series, model)) in
        [("ops", Model::Sc), ("threads", Model::Sc), ("ops", Model::Tso), ("threads", Model::Tso)].iter().enumerate()
    {
        let (ox, oy) = (m + (pi % 2) as f64 * (pw + m), m + (pi / 2) as f64 * (ph + m));
        let pts: Vec<&Row> = rows.iter().filter(|r| r.series == *series && r.model == *model).collect();
        let (x0, x1) = (pts.first().map_or(0, |r| r.x) as f64, pts.last().map_or(1, |r| r.x) as f64);
        let sx = |x: usize| ox + (x as f64 - x0) / (x1 - x0).max(1.0) * pw;
        let sy = |v: f64| oy + ph - (v.max(1e-3).log10() - min) / (max - min).max(1.0) * ph;
        let _ = writeln!(
            out,
            "<rect x='{ox}' y='{oy}' width='{pw}' height='{ph}' fill='none' stroke='#999'/>\
             <text x='{}' y='{}'>{} — mean ms per history (log) by {}</text>",
            ox,
            oy - 8.0,
            model.upper(),
            series
        );
        for e in (min as i32)..=(max as i32) {
            let y = sy(10f64.powi(e));
            let _ = writeln!(out, "<text x='{}' y='{}' text-anchor='end'>1e{e}</text>", ox - 4.0, y + 4.0);
        }
        for r in &pts {
            let _ = writeln!(out, "<text x='{}' y='{}' text-anchor='middle'>{}</text>", sx(r.x), oy + ph + 14.0, r.x);
        }
        for (mi, method) in Method::ALL.iter().enumerate() {
            let path: Vec<String> = pts.iter().map(|r| format!("{:.1},{:.1}", sx(r.x), sy(r.ms[mi].0))).collect();
            let _ = writeln!(
                out,
                "<polyline points='{}' fill='none' stroke='{}' stroke-width='2'/>\
                 <text x='{}' y='{}' fill='{}'>{}</text>",
                path.join(" "),
                colours[mi],
                ox + 8.0,
                oy + 14.0 + 13.0 * mi as f64,
                colours[mi],
                method.as_str()
            );
        }
    }
    out.push_str("</svg>\n");
    out
}
