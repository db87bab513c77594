//! Parse + analyse + lower a generated 5,000-line native file, the whole
//! herd corpus, and large inputs (analysis, then rendering every diagnostic
//! as the CLI prints them). Run with `cargo bench -p litmus-dsl --bench
//! frontend`; an argument keeps only the cases whose name contains it (to
//! measure one case's peak memory with `/usr/bin/time -v`).

use std::time::{Duration, Instant};

mod inputs;

fn time<F: FnMut()>(runs: usize, mut f: F) -> (Duration, Duration) {
    let mut v: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    v.sort();
    (v[0], v[v.len() / 2])
}

/// The minimum over enough further runs for a stable figure, within about
/// two seconds (a run of a second or more is not repeated).
fn again<F: FnMut()>(first: Duration, f: F) -> Duration {
    if first >= Duration::from_secs(1) {
        return first;
    }
    let runs = (2.0 / first.as_secs_f64().max(1e-6)).clamp(1.0, 30.0) as usize;
    time(runs, f).0.min(first)
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| filter.as_ref().is_none_or(|f| name.contains(f.as_str()));

    if wanted("5,000-line file") {
        let src = inputs::generate(5000);
        let a = litmus_dsl::analyze(&src);
        let errors: Vec<_> = a.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert!(errors.is_empty(), "generated program has errors: {:?}", &errors[..errors.len().min(5)]);
        let p = a.program.as_ref().unwrap();
        println!(
            "generated: {} lines, {} bytes, {} instructions, {} statements",
            src.lines().count(),
            src.len(),
            p.threads.iter().map(|t| t.code.len()).sum::<usize>(),
            p.stmts.len()
        );
        let (min, median) = time(30, || {
            let a = litmus_dsl::analyze(std::hint::black_box(&src));
            std::hint::black_box(a);
        });
        println!(
            "5,000-line file: parse+analyse+lower  min {:.2} ms  median {:.2} ms  (target < 20 ms)",
            ms(min),
            ms(median)
        );
    }

    if wanted("herd corpus") {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/herd-x86");
        let corpus: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        let (min, median) = time(30, || {
            for s in &corpus {
                std::hint::black_box(litmus_dsl::analyze(s));
            }
        });
        println!("herd corpus ({} files): min {:.2} ms  median {:.2} ms", corpus.len(), ms(min), ms(median));
    }

    for (name, src) in inputs::large() {
        if !wanted(&name) {
            continue;
        }
        let t = Instant::now();
        let a = litmus_dsl::analyze(&src);
        let first = t.elapsed();
        let analyse = again(first, || {
            std::hint::black_box(litmus_dsl::analyze(std::hint::black_box(&src)));
        });
        let t = Instant::now();
        let out = litmus_dsl::diagnostic::render(&a.diagnostics, "large.litmus", &src, false);
        let first = t.elapsed();
        let render = again(first, || {
            std::hint::black_box(litmus_dsl::diagnostic::render(&a.diagnostics, "large.litmus", &src, false));
        });
        println!(
            "{name}: {:.1} MB, {} diagnostics, {:.1} MB rendered: analyse {:.1} ms + render {:.1} ms = {:.1} ms (min)",
            src.len() as f64 / 1e6,
            a.diagnostics.len(),
            out.len() as f64 / 1e6,
            ms(analyse),
            ms(render),
            ms(analyse + render)
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
