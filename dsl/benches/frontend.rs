//! Parse + analyse + lower a generated 5,000-line native file, and the
//! whole herd corpus. Run with `cargo bench -p litmus-dsl --bench frontend`.

use std::time::{Duration, Instant};

/// A program of about `lines` lines mixing every statement form.
pub fn generate(lines: usize) -> String {
    let mut s = String::from("litmus BIG \"generated\"\n");
    for i in 0..40 {
        s.push_str(&format!("shared x{i} = {i};\n"));
    }
    s.push_str("shared arr[16] = {0, 1, 2, 3};\nshared m = 0;\n");
    s.push_str("fn bump(v) {\n  let t = fetch_add(arr[v % 16], 1);\n  return t + v;\n}\n");
    let threads = 4;
    let per_thread = lines.saturating_sub(50) / threads;
    for t in 0..threads {
        s.push_str(&format!("thread P{t} {{\n"));
        let mut n = 0;
        let mut k = 0;
        while n < per_thread {
            let a = (k * 7 + t) % 40;
            let b = (k * 13 + 3 * t) % 40;
            match k % 8 {
                0 => {
                    s.push_str(&format!("  x{a} = {k};\n  let r{k} = x{b};\n"));
                    n += 2;
                }
                1 => {
                    s.push_str(&format!(
                        "  if (r{} == 1 && x{a} != 2) {{\n    x{b} = r{} + 1;\n  }} else {{\n    fence wr;\n  }}\n",
                        k - 1,
                        k - 1
                    ));
                    n += 5;
                }
                2 => {
                    s.push_str(&format!("  let c{k} = cas(x{a}, 0, {k});\n  assert (c{k} >= 0);\n"));
                    n += 2;
                }
                3 => {
                    s.push_str(&format!(
                        "  let q{k} = 0;\n  while (q{k} < 2) {{\n    q{k} = q{k} + 1;\n    arr[q{k}] = x{a};\n  }}\n"
                    ));
                    n += 5;
                }
                4 => {
                    s.push_str(&format!("  let b{k} = bump(c{});\n  x{a} = b{k} * 2 - x{b};\n", k - 2));
                    n += 2;
                }
                5 => {
                    s.push_str(&format!(
                        "  lock(m);\n  x{a} = x{a} + 1;\n  unlock(m);\n  await (x{b} >= 0 || m == 0);\n"
                    ));
                    n += 4;
                }
                6 => {
                    s.push_str(&format!(
                        "  // comment {k}\n  let z{k} = xchg(x{a}, q{}) + b{};\n  assume (z{k} > -100);\n",
                        k - 3,
                        k - 2
                    ));
                    n += 3;
                }
                _ => {
                    s.push_str(&format!("  x{a} = z{} % 5 + r{};\n", k - 1, k - 7));
                    n += 1;
                }
            }
            k += 1;
        }
        s.push_str("}\n");
    }
    s.push_str("exists (P0:r0 == 0 && x1 == 1);\n");
    s
}

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

fn main() {
    let src = generate(5000);
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

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
