//! Relation kernels on rows of words: a relation over `n` events is `n`
//! words, row `i` the set of `j` with `(i, j)`. Every kernel reads and
//! writes exactly `n` rows and allocates nothing. The word is a [`Word`]:
//! `u64` for executions of at most 64 events (the common case, and the
//! fast one), `u128` up to [`MAX_EVENTS`].

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Shl, Shr, Sub};

use crate::eval::{Set, MAX_EVENTS};

/// A row word: a set of at most `BITS` events, event `i` bit `i`.
pub(crate) trait Word:
    Copy
    + Eq
    + Default
    + std::fmt::Debug
    + BitAnd<Output = Self>
    + BitAndAssign
    + BitOr<Output = Self>
    + BitOrAssign
    + Not<Output = Self>
    + Shl<usize, Output = Self>
    + Shr<usize, Output = Self>
    + Sub<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const MAX: Self;
    /// The events a word holds.
    const BITS: usize;
    fn trailing_zeros(self) -> u32;
    fn count_ones(self) -> u32;
    /// The low `BITS` events of `s` (all of them when `s` fits).
    fn from_set(s: Set) -> Self;
    /// Whether event `i` is in the set.
    #[inline]
    fn has(self, i: usize) -> bool {
        self >> i & Self::ONE == Self::ONE
    }
    /// The set of event `i` alone.
    #[inline]
    fn bit(i: usize) -> Self {
        Self::ONE << i
    }
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const MAX: Self = <$t>::MAX;
            const BITS: usize = <$t>::BITS as usize;
            #[inline]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            #[inline]
            fn count_ones(self) -> u32 {
                <$t>::count_ones(self)
            }
            #[inline]
            fn from_set(s: Set) -> Self {
                s as $t
            }
        }
    };
}
word!(u64);
word!(u128);
const _: () = assert!(<Set as Word>::BITS == MAX_EVENTS);

/// The bits of `m`, lowest first.
#[inline]
pub(crate) fn bits<W: Word>(mut m: W) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == W::ZERO {
            None
        } else {
            let i = m.trailing_zeros() as usize;
            m &= m - W::ONE;
            Some(i)
        }
    })
}

/// The set of the first `n` events.
#[inline]
pub(crate) fn all<W: Word>(n: usize) -> W {
    if n >= W::BITS {
        W::MAX
    } else {
        W::bit(n) - W::ONE
    }
}

#[inline]
pub(crate) fn domain<W: Word>(r: &[W]) -> W {
    let mut d = W::ZERO;
    for (i, &row) in r.iter().enumerate() {
        if row != W::ZERO {
            d |= W::bit(i);
        }
    }
    d
}

#[inline]
pub(crate) fn range<W: Word>(r: &[W]) -> W {
    r.iter().fold(W::ZERO, |s, &row| s | row)
}

/// `out = a ; b`.
#[inline]
pub(crate) fn seq<W: Word>(out: &mut [W], a: &[W], b: &[W]) {
    for (o, &row) in out.iter_mut().zip(a) {
        let mut acc = W::ZERO;
        let mut x = row;
        while x != W::ZERO {
            acc |= b[x.trailing_zeros() as usize];
            x &= x - W::ONE;
        }
        *o = acc;
    }
}

/// `out = a^-1`.
#[inline]
pub(crate) fn inverse<W: Word>(out: &mut [W], a: &[W]) {
    out.fill(W::ZERO);
    for (i, &row) in a.iter().enumerate() {
        let mut x = row;
        while x != W::ZERO {
            out[x.trailing_zeros() as usize] |= W::bit(i);
            x &= x - W::ONE;
        }
    }
}

/// `r = r+` in place: Warshall on rows, over the events that can be in
/// the middle of a path (both in the domain and in the range).
#[inline]
pub(crate) fn close<W: Word>(r: &mut [W]) {
    let dom = domain(r);
    let mid = dom & range(r);
    for k in bits(mid) {
        let rk = r[k];
        for i in bits(dom) {
            if r[i].has(k) {
                r[i] |= rk;
            }
        }
    }
}

/// Whether `r` is transitive (then `r+ = r`).
#[inline]
pub(crate) fn is_transitive<W: Word>(r: &[W]) -> bool {
    r.iter().all(|&row| bits(row).all(|j| r[j] & !row == W::ZERO))
}

#[inline]
pub(crate) fn is_irreflexive<W: Word>(r: &[W]) -> bool {
    r.iter().enumerate().all(|(i, &row)| !row.has(i))
}

#[inline]
pub(crate) fn is_empty<W: Word>(r: &[W]) -> bool {
    r.iter().all(|&row| row == W::ZERO)
}

/// Acyclicity by a depth-first search on masks: an event is done when
/// all its successors are; a successor still on the path is a cycle. Each
/// step pushes or pops an event, so at most `2n` steps, whatever the
/// number of pairs (done successors are skipped a word at a time).
#[inline]
pub(crate) fn is_acyclic<W: Word>(r: &[W]) -> bool {
    // Events outside the domain or the range are on no cycle.
    let mut done = !(domain(r) & range(r));
    let mut path = W::ZERO;
    let mut stack = [0u8; MAX_EVENTS];
    while done != W::MAX {
        let root = (!done).trailing_zeros() as usize;
        let mut depth = 1;
        stack[0] = root as u8;
        path |= W::bit(root);
        while depth > 0 {
            let v = stack[depth - 1] as usize;
            let next = r[v] & !done;
            if next & path != W::ZERO {
                return false;
            }
            if next == W::ZERO {
                done |= W::bit(v);
                path &= !W::bit(v);
                depth -= 1;
            } else {
                let s = next.trailing_zeros() as usize;
                path |= W::bit(s);
                stack[depth] = s as u8;
                depth += 1;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_close(r: &[Set]) -> Vec<Set> {
        let n = r.len();
        let mut c = r.to_vec();
        for k in 0..n {
            for i in 0..n {
                if c[i] >> k & 1 == 1 {
                    c[i] |= c[k];
                }
            }
        }
        c
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn kernels_agree_with_the_naive_ones() {
        let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut rnd = || (rnd() as Set) << 64 | rnd() as Set;
        for n in [1usize, 2, 5, 13, 31, 64, 65, 100, 128] {
            for density in [1u32, 3, 6] {
                for _ in 0..50 {
                    let mask: Set = all(n);
                    let r: Vec<Set> =
                        (0..n).map(|_| (0..density).fold(mask, |m, _| m & rnd()) & rnd() & mask).collect();
                    let c = naive_close(&r);
                    let mut c2 = r.clone();
                    close(&mut c2);
                    assert_eq!(c, c2);
                    assert_eq!(is_acyclic(&r), is_irreflexive(&c));
                    assert_eq!(is_transitive(&r), c == r);
                    let mut inv = vec![0; n];
                    inverse(&mut inv, &r);
                    for i in 0..n {
                        for j in 0..n {
                            assert_eq!(r[i] >> j & 1, inv[j] >> i & 1);
                        }
                    }
                    let mut sq = vec![0; n];
                    seq(&mut sq, &r, &inv);
                    for i in 0..n {
                        let naive = (0..n).filter(|&k| r[i] >> k & 1 == 1).fold(0, |m, k| m | inv[k]);
                        assert_eq!(sq[i], naive);
                    }
                    // The narrow word answers as the wide one.
                    if n <= 64 {
                        let narrow: Vec<u64> = r.iter().map(|&x| u64::from_set(x)).collect();
                        let wide = |v: &[u64]| v.iter().map(|&x| x as Set).collect::<Vec<_>>();
                        let mut c3 = narrow.clone();
                        close(&mut c3);
                        assert_eq!(wide(&c3), c);
                        assert_eq!(is_acyclic(&narrow), is_acyclic(&r));
                        assert_eq!(is_transitive(&narrow), is_transitive(&r));
                        assert_eq!(is_irreflexive(&narrow), is_irreflexive(&r));
                        assert_eq!(domain(&narrow) as Set, domain(&r));
                        assert_eq!(range(&narrow) as Set, range(&r));
                        assert_eq!(all::<u64>(n) as Set, all::<Set>(n));
                        let mut inv3 = vec![0; n];
                        inverse(&mut inv3, &narrow);
                        assert_eq!(wide(&inv3), inv);
                        let mut sq3 = vec![0; n];
                        seq(&mut sq3, &narrow, &inv3);
                        assert_eq!(wide(&sq3), sq);
                    }
                }
            }
        }
    }
}
