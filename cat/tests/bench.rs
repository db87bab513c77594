//! Nanoseconds per check: `evaluate` against `Prepared::allowed` (and a
//! hand-written x86-TSO check, the yardstick), on random executions of
//! about 8, 16 and 32 events. Run with
//! `cargo test -p litmus-cat --release --test bench -- --ignored --nocapture`.

// The hand-written check indexes rows as a consistency check would.
#![allow(clippy::needless_range_loop)]

mod common;

use std::hint::black_box;
use std::time::Instant;

use common::{Graph, Rng, Style};
use litmus_cat::eval::{evaluate, Execution, Options};
use litmus_cat::stock;

/// Random executions with about `size` events each (the explorer's
/// shape): any rf and co (`sc`: those of a sequentially consistent run,
/// which every model allows, so that every check runs).
fn executions(size: usize, count: usize, seed: u64, sc: bool) -> Vec<Execution> {
    let mut rng = Rng::new(seed);
    let (threads, locs) = match size {
        0..=10 => (2, 2),
        11..=20 => (3, 3),
        _ => (4, 4),
    };
    (0..count)
        .map(|_| {
            let mut g = Graph::initial(locs);
            while g.events.len() < size {
                let t = rng.below(threads);
                if sc {
                    g.step_sc(&mut rng, t);
                } else {
                    g.step(&mut rng, t, false);
                }
            }
            g.to_execution(Style::EXPLORER)
        })
        .collect()
}

/// Nanoseconds per call of `f` on `execs`: the best of five runs of at
/// least 100 ms (the machine is shared).
fn time_per(execs: &[Execution], mut f: impl FnMut(&Execution) -> bool) -> f64 {
    // Warm up (and compile the shape).
    for x in execs {
        black_box(f(x));
    }
    let mut best = f64::MAX;
    for _ in 0..5 {
        let mut iters = 0usize;
        let start = Instant::now();
        while start.elapsed().as_millis() < 100 {
            for x in execs {
                black_box(f(black_box(x)));
            }
            iters += 1;
        }
        best = best.min(start.elapsed().as_nanos() as f64 / (iters * execs.len()) as f64);
    }
    best
}

/// The rows of `k`, as 64-bit words (the hand-written check is for
/// executions of at most 64 events, as the prepared model's narrow path).
fn row(x: &Execution, k: &str) -> [u64; 64] {
    let mut r = [0u64; 64];
    if let Some(v) = x.rels.get(k) {
        for (d, &s) in r.iter_mut().zip(&v.0) {
            *d = s as u64;
        }
    }
    r
}

fn seq(n: usize, a: &[u64; 64], b: &[u64; 64]) -> [u64; 64] {
    let mut out = [0u64; 64];
    for i in 0..n {
        let mut m = a[i];
        while m != 0 {
            out[i] |= b[m.trailing_zeros() as usize];
            m &= m - 1;
        }
    }
    out
}

/// Depth-first search on masks, as the prepared model does it.
fn acyclic(n: usize, r: &[u64; 64]) -> bool {
    let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut done = !all;
    let mut path = 0u64;
    let mut stack = [0usize; 64];
    while done != u64::MAX {
        let root = (!done).trailing_zeros() as usize;
        let mut depth = 1;
        stack[0] = root;
        path |= 1 << root;
        while depth > 0 {
            let v = stack[depth - 1];
            let next = r[v] & !done;
            if next & path != 0 {
                return false;
            }
            if next == 0 {
                done |= 1 << v;
                path &= !(1 << v);
                depth -= 1;
            } else {
                let s = next.trailing_zeros() as usize;
                path |= 1 << s;
                stack[depth] = s;
                depth += 1;
            }
        }
    }
    true
}

/// x86-TSO by hand, as `x86tso.cat` says it (uniproc, atomicity, ghb),
/// reading the same `Execution`.
fn tso_by_hand(x: &Execution) -> bool {
    let n = x.n;
    assert!(n <= 64);
    let set = |k: &str| x.sets.get(k).copied().unwrap_or(0) as u64;
    let (r, w, xs, mf) = (set("R"), set("W"), set("X"), set("MFENCE"));
    let m = r | w;
    let (po, rf, co, loc, int, si) =
        (row(x, "po"), row(x, "rf"), row(x, "co"), row(x, "loc"), row(x, "int"), row(x, "same-instance"));
    let mut rfinv = [0u64; 64];
    for i in 0..n {
        let mut b = rf[i];
        while b != 0 {
            rfinv[b.trailing_zeros() as usize] |= 1 << i;
            b &= b - 1;
        }
    }
    let mut fr = seq(n, &rfinv, &co);
    let mut uni = [0u64; 64];
    let mut amo = [0u64; 64];
    for i in 0..n {
        fr[i] &= !(1 << i);
        if (r & xs) >> i & 1 == 1 {
            amo[i] = si[i] & !(1 << i) & loc[i] & w & xs;
        }
        uni[i] = (po[i] & loc[i]) | amo[i] | rf[i] | fr[i] | co[i];
    }
    if !acyclic(n, &uni) {
        return false;
    }
    let mut fre = [0u64; 64];
    let mut coe = [0u64; 64];
    for i in 0..n {
        fre[i] = fr[i] & !int[i];
        coe[i] = co[i] & !int[i];
    }
    let frecoe = seq(n, &fre, &coe);
    if (0..n).any(|i| amo[i] & frecoe[i] != 0) {
        return false;
    }
    let mut ghb = [0u64; 64];
    for i in 0..n {
        let bit = |s: u64| s >> i & 1 == 1;
        let mut g = rf[i] & !int[i] | fr[i] | co[i];
        if bit(w) {
            g |= po[i] & w;
        }
        if bit(r) {
            g |= po[i] & m;
        }
        // mfence = (po & (_ * MFENCE)); po
        let mut f = po[i] & mf;
        while f != 0 {
            g |= po[f.trailing_zeros() as usize];
            f &= f - 1;
        }
        // implied: WR(po) with a locked end
        if bit(w) {
            let wr = po[i] & r;
            g |= if bit(xs) { wr } else { wr & xs };
        }
        ghb[i] = g;
    }
    acyclic(n, &ghb)
}

#[test]
#[ignore]
fn ns_per_check() {
    for sc in [false, true] {
        if sc {
            eprintln!("\nexecutions of sequentially consistent runs (every check runs):");
        } else {
            eprintln!("random executions (allowed stops at the first failing check):");
        }
        bench(sc);
    }
}

fn bench(sc: bool) {
    let opts = Options::default();
    eprintln!("model        events  evaluate(ns)  allowed(ns)  speedup  allowed%");
    for name in ["x86tso", "sc-rmw", "x86pso"] {
        let model = stock::load(name).unwrap();
        let mut p = model.prepare(&opts).unwrap();
        for size in [8, 16, 32] {
            let execs = executions(size, 40, size as u64, sc);
            let n_avg = execs.iter().map(|x| x.n).sum::<usize>() as f64 / execs.len() as f64;
            for x in &execs {
                assert_eq!(p.allowed(x).unwrap(), evaluate(&model, x, &opts).unwrap().allowed());
                if name == "x86tso" {
                    assert_eq!(tso_by_hand(x), p.allowed(x).unwrap(), "{x:?}");
                }
            }
            let ok = execs.iter().filter(|x| p.allowed(x).unwrap()).count() * 100 / execs.len();
            let before = time_per(&execs, |x| evaluate(&model, x, &opts).unwrap().allowed());
            let after = time_per(&execs, |x| p.allowed(x).unwrap());
            eprintln!("{name:<12} {n_avg:>6.1}  {before:>12.0}  {after:>11.0}  {:>6.0}x  {ok:>7}", before / after);
            if name == "x86tso" {
                let hand = time_per(&execs, tso_by_hand);
                eprintln!(
                    "{:<12} {n_avg:>6.1}  {:>12}  {hand:>11.0}  (hand-written; allowed/hand = {:.2})",
                    "  by hand",
                    "",
                    after / hand
                );
            }
        }
    }
}

/// A loop to profile (`perf record`): x86tso.cat on 32-event executions of
/// sequentially consistent runs, for about three seconds.
#[test]
#[ignore]
fn profile_x86tso_32() {
    let mut p = stock::load("x86tso").unwrap().prepare(&Options::default()).unwrap();
    let execs = executions(32, 40, 32, true);
    let start = Instant::now();
    let mut k = 0usize;
    while start.elapsed().as_secs() < 3 {
        for x in &execs {
            k += p.allowed(black_box(x)).unwrap() as usize;
        }
    }
    black_box(k);
}
