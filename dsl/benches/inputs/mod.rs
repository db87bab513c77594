//! Large inputs for the frontend: the bench (`benches/frontend.rs`) times
//! them, `tests/linear.rs` bounds their time so a regression to quadratic
//! fails.
#![allow(dead_code)]

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

/// `n` shared locations, all but one unused: `n - 1` warnings to render.
pub fn shared_decls(n: usize) -> String {
    let mut s = String::from("litmus DECLS\n");
    for i in 0..n {
        s.push_str(&format!("shared x{i} = 0;\n"));
    }
    s.push_str("thread P0 {\n  x0 = 1;\n}\nexists (x0 == 1);\n");
    s
}

/// Shared declarations up to `bytes` bytes (2 MB: about 105,000).
pub fn shared_decls_bytes(bytes: usize) -> String {
    let mut s = String::from("litmus DECLS\n");
    let mut i = 0;
    while s.len() < bytes {
        s.push_str(&format!("shared x{i} = 0;\n"));
        i += 1;
    }
    s.push_str("thread P0 {\n  x0 = 1;\n}\nexists (x0 == 1);\n");
    s
}

/// One thread whose body is `r = r + 1;` up to `bytes` bytes.
pub fn counter_body(bytes: usize) -> String {
    let mut s = String::from("litmus COUNTER\nshared x = 0;\nthread P0 {\n  let r = 0;\n");
    while s.len() < bytes {
        s.push_str("  r = r + 1;\n");
    }
    s.push_str("  x = r;\n}\nexists (x == 1);\n");
    s
}

/// `let r = ((…(x)…));` with `n` pairs of parentheses.
pub fn nested_parens(n: usize) -> String {
    format!(
        "litmus PARENS\nshared x = 0;\nthread P0 {{\n  let r = {}x{};\n  x = r;\n}}\nexists (x == 1);\n",
        "(".repeat(n),
        ")".repeat(n)
    )
}

/// `x = 1 + 1 + … ;` with `n` terms.
pub fn long_chain(n: usize) -> String {
    format!("litmus CHAIN\nshared x = 0;\nthread P0 {{\n  x = 1{};\n}}\nexists (x == 1);\n", " + 1".repeat(n - 1))
}

/// `n` stray `)` on one line: errors on a very long line.
pub fn stray_closers(n: usize) -> String {
    format!("litmus STRAY\nshared x = 0;\nthread P0 {{\n  x = 1;\n{}\n}}\n", ")".repeat(n))
}

/// A herd test whose final condition has `n` nested parentheses.
pub fn herd_parens(n: usize) -> String {
    format!("X86 PARENS\n{{ x=0; }}\n P0 ;\n MOV [x],$1 ;\nexists {}x=1{}\n", "(".repeat(n), ")".repeat(n))
}

/// The large inputs: name and text.
pub fn large() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for n in [5_000, 10_000, 20_000] {
        v.push((format!("{n} shared declarations"), shared_decls(n)));
    }
    v.push(("2 MB of shared declarations".into(), shared_decls_bytes(2_000_000)));
    v.push(("2 MB thread body of `r = r + 1;`".into(), counter_body(2_000_000)));
    v.push(("1,000,000 nested parentheses".into(), nested_parens(1_000_000)));
    v.push(("100,000-term `1 + 1 + …`".into(), long_chain(100_000)));
    v.push(("1,000,000 stray `)` on one line".into(), stray_closers(1_000_000)));
    v.push(("herd: 1,000,000 nested parentheses".into(), herd_parens(1_000_000)));
    v
}
