//! Random histories for tests and benchmarks: runs of random programs on a
//! small simulated SC or TSO machine (valid by construction), and
//! mutations of them that make a read return another value written to its
//! location (mostly invalid).

use super::model::{History, OpKind, ThreadSpec};
use super::verdict::Model;
use litmus_checker::relaxer::rng::Rng;
use litmus_ir::Span;
use std::collections::VecDeque;

/// The size and mix of a random run.
#[derive(Clone, Debug)]
pub struct Shape {
    pub threads: usize,
    /// Operations in all, spread evenly over the threads.
    pub ops: usize,
    pub locs: usize,
    /// Of the operations: the share of fences, of atomics and of plain
    /// writes (the rest are reads).
    pub fences: f64,
    pub rmws: f64,
    pub writes: f64,
    /// TSO: at each step, the chance that a buffer commits rather than a
    /// thread moving on (lower: stores stay buffered longer).
    pub commit: f64,
}

impl Default for Shape {
    fn default() -> Self {
        Shape { threads: 4, ops: 100, locs: 4, fences: 0.03, rmws: 0.05, writes: 0.45, commit: 0.3 }
    }
}

impl Shape {
    /// A small shape drawn from `seed`: 2–4 threads, 3–14 operations, 1–3
    /// locations, every mix of fences, atomics and writes (small enough for
    /// brute force over store orders to judge most runs).
    pub fn small(seed: u64) -> Shape {
        let r = |k: u64, n: u64| ((seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (k * 5)) % n) as usize;
        Shape {
            threads: 2 + r(1, 3),
            ops: 3 + r(2, 12),
            locs: 1 + r(3, 3),
            fences: [0.0, 0.05, 0.15][r(4, 3)],
            rmws: [0.0, 0.1, 0.25][r(5, 3)],
            writes: [0.3, 0.5][r(6, 2)],
            commit: [0.1, 0.4][r(7, 2)],
        }
    }
}

/// One random run under `model`, as a history.
pub fn run(shape: &Shape, model: Model, seed: u64) -> History {
    let mut rng = Rng::new(seed);
    let nt = shape.threads.max(1);
    let mut quota: Vec<usize> = (0..nt).map(|t| shape.ops / nt + usize::from(t < shape.ops % nt)).collect();
    let mut mem = vec![0i64; shape.locs.max(1)];
    let mut next = vec![1i64; mem.len()];
    let mut bufs: Vec<VecDeque<(usize, i64)>> = vec![VecDeque::new(); nt];
    let mut ops: Vec<Vec<(OpKind, Span)>> = vec![Vec::new(); nt];
    loop {
        let waiting: Vec<usize> = (0..nt).filter(|&t| !bufs[t].is_empty()).collect();
        let ready: Vec<usize> = (0..nt).filter(|&t| quota[t] > 0).collect();
        if ready.is_empty() && waiting.is_empty() {
            break;
        }
        if !waiting.is_empty() && (ready.is_empty() || rng.chance(shape.commit)) {
            let t = waiting[rng.below(waiting.len())];
            let (l, v) = bufs[t].pop_front().expect("a waiting buffer holds a store");
            mem[l] = v;
            continue;
        }
        let t = ready[rng.below(ready.len())];
        let l = rng.below(mem.len());
        let x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let draining = x < shape.fences + shape.rmws;
        if draining && !bufs[t].is_empty() {
            // A fence or atomic waits for the thread's buffer: commit first.
            let (bl, v) = bufs[t].pop_front().expect("non-empty");
            mem[bl] = v;
            continue;
        }
        let kind = if x < shape.fences {
            OpKind::Fence
        } else if x < shape.fences + shape.rmws {
            let (read, write) = (mem[l], next[l]);
            next[l] += 1;
            mem[l] = write;
            OpKind::Rmw { loc: l, read, write }
        } else if x < shape.fences + shape.rmws + shape.writes {
            let value = next[l];
            next[l] += 1;
            match model {
                Model::Sc => mem[l] = value,
                Model::Tso => bufs[t].push_back((l, value)),
            }
            OpKind::Write { loc: l, value }
        } else {
            let own = bufs[t].iter().rev().find(|&&(bl, _)| bl == l);
            OpKind::Read { loc: l, value: own.map_or(mem[l], |&(_, v)| v) }
        };
        ops[t].push((kind, Span::default()));
        quota[t] -= 1;
    }
    let locs = (0..mem.len()).map(|l| format!("x{l}")).collect();
    let threads = ops
        .into_iter()
        .enumerate()
        .map(|(t, ops)| ThreadSpec { name: format!("P{t}"), span: Span::default(), ops })
        .collect();
    History::new(locs, vec![0; mem.len()], threads).expect("a run writes each value once and reads written values")
}

/// Make one read (or atomic) return another value written to its location
/// (or the initial one); `None` if no read has another value to take.
pub fn mutate(h: &History, seed: u64) -> Option<History> {
    let mut rng = Rng::new(seed);
    let reads: Vec<usize> = h
        .thread_ops()
        .filter(|&r| h.ops[r].kind.loc().is_some_and(|l| h.ops[r].kind.reads() && h.writes_of[l].len() > 1))
        .collect();
    if reads.is_empty() {
        return None;
    }
    let r = reads[rng.below(reads.len())];
    let l = h.ops[r].kind.loc()?;
    let others: Vec<i64> = h.writes_of[l]
        .iter()
        .filter(|&&w| w != h.source[r] && w != r)
        .filter_map(|&w| h.ops[w].kind.written_value())
        .collect();
    if others.is_empty() {
        return None;
    }
    let v = others[rng.below(others.len())];
    let threads = h
        .threads
        .iter()
        .map(|t| ThreadSpec {
            name: t.name.clone(),
            span: Span::default(),
            ops: t
                .ops
                .clone()
                .map(|o| {
                    let k = match h.ops[o].kind {
                        OpKind::Read { loc, .. } if o == r => OpKind::Read { loc, value: v },
                        OpKind::Rmw { loc, write, .. } if o == r => OpKind::Rmw { loc, read: v, write },
                        k => k,
                    };
                    (k, h.ops[o].span)
                })
                .collect(),
        })
        .collect();
    History::new(h.locs.clone(), h.init.clone(), threads).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_have_the_shape_asked_for() {
        let shape = Shape { threads: 3, ops: 50, locs: 2, ..Shape::default() };
        for model in [Model::Sc, Model::Tso] {
            let h = run(&shape, model, 9);
            assert_eq!(h.threads.len(), 3);
            assert_eq!(h.thread_ops().len(), 50);
            assert_eq!(h.locs.len(), 2);
            let m = mutate(&h, 1).expect("50 operations have a read to change");
            assert_eq!(m.thread_ops().len(), 50);
            assert_ne!(m, h);
        }
    }
}
