//! Dense binary relations over a history's operations: one bit row per
//! operation. Every criterion is a handful of unions, compositions and
//! transitive closures, which bit rows do a word at a time; the memory is
//! quadratic, so a check asks [`Rel::bytes`] before it builds any.

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    /// The deadline of the check running on this thread: closures stop
    /// early once it passes (the check then answers "unknown", whatever
    /// the cut relations would say).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Run `f` with closures cut at `deadline`.
pub fn with_deadline<T>(deadline: Option<Instant>, f: impl FnOnce() -> T) -> T {
    let before = DEADLINE.with(|d| d.replace(deadline));
    let out = f();
    DEADLINE.with(|d| d.set(before));
    out
}

fn expired() -> bool {
    DEADLINE.with(|d| d.get()).is_some_and(|d| Instant::now() >= d)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rel {
    n: usize,
    words: usize,
    bits: Vec<u64>,
}

impl Rel {
    /// The empty relation over `n` operations.
    pub fn new(n: usize) -> Self {
        let words = n.div_ceil(64).max(1);
        Rel { n, words, bits: vec![0; n * words] }
    }

    pub fn len(&self) -> usize {
        self.n
    }

    /// The bytes a relation over `n` operations takes.
    pub fn bytes(n: usize) -> u64 {
        n as u64 * n.div_ceil(64).max(1) as u64 * 8
    }

    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|w| *w == 0)
    }

    #[inline]
    pub fn has(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.words + b / 64] & (1 << (b % 64)) != 0
    }

    /// Add the pair; true if it was new.
    #[inline]
    pub fn set(&mut self, a: usize, b: usize) -> bool {
        let w = &mut self.bits[a * self.words + b / 64];
        let bit = 1 << (b % 64);
        let new = *w & bit == 0;
        *w |= bit;
        new
    }

    pub fn row(&self, a: usize) -> &[u64] {
        &self.bits[a * self.words..(a + 1) * self.words]
    }

    /// The operations `a` is related to, in increasing order.
    pub fn succ(&self, a: usize) -> impl Iterator<Item = usize> + '_ {
        litmus_checker::bitset::ones(self.row(a))
    }

    /// Row `dst` |= `src` (a bit vector of this relation's width); true if
    /// anything changed.
    fn or_into(&mut self, dst: usize, src: &[u64]) -> bool {
        let row = &mut self.bits[dst * self.words..(dst + 1) * self.words];
        let mut changed = false;
        for (d, s) in row.iter_mut().zip(src) {
            let new = *d | s;
            changed |= new != *d;
            *d = new;
        }
        changed
    }

    /// `self ∪= other`.
    pub fn union_with(&mut self, other: &Rel) {
        debug_assert_eq!(self.n, other.n);
        for (d, s) in self.bits.iter_mut().zip(&other.bits) {
            *d |= s;
        }
    }

    /// Make the relation transitive (Warshall, a row at a time).
    pub fn close(&mut self) {
        let mut k_row = vec![0u64; self.words];
        for k in 0..self.n {
            if k % 64 == 0 && expired() {
                return;
            }
            k_row.copy_from_slice(self.row(k));
            for i in 0..self.n {
                if self.has(i, k) {
                    self.or_into(i, &k_row);
                }
            }
        }
    }

    /// Add `(a, b)` to a transitive relation and keep it transitive: everything
    /// that reaches `a` (and `a`) now reaches `b` and what `b` reaches. True
    /// if the pair was new. A cycle shows as a pair `(x, x)`.
    pub fn add_closed(&mut self, a: usize, b: usize) -> bool {
        // Past the deadline nothing is added: loops to a fixed point end.
        if self.has(a, b) || expired() {
            return false;
        }
        let mut add = self.row(b).to_vec();
        add[b / 64] |= 1 << (b % 64);
        for x in 0..self.n {
            if x == a || self.has(x, a) {
                self.or_into(x, &add);
            }
        }
        true
    }

    /// Some `x` with `(x, x)`: the relation, if transitive, is cyclic.
    pub fn reflexive_point(&self) -> Option<usize> {
        (0..self.n).find(|&x| self.has(x, x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_and_incremental_closure_agree() {
        // A chain 0 -> 1 -> 2 -> 3 and 5 -> 4 over 70 nodes (two words a row).
        let mut r = Rel::new(70);
        for (a, b) in [(0, 1), (1, 2), (2, 3), (5, 4), (69, 0)] {
            r.set(a, b);
        }
        let mut closed = r.clone();
        closed.close();
        let mut inc = Rel::new(70);
        for (a, b) in [(2, 3), (0, 1), (69, 0), (5, 4), (1, 2)] {
            inc.add_closed(a, b);
        }
        assert_eq!(closed, inc);
        assert!(closed.has(69, 3) && !closed.has(3, 69) && !closed.has(0, 4));
        assert_eq!(closed.succ(69).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!(closed.reflexive_point(), None);
        inc.add_closed(3, 69);
        assert_eq!(inc.reflexive_point(), Some(0));
    }
}
