//! Relation kernels on rows of `u64`: a relation over `n ≤ 64` events is
//! `n` words, row `i` the set of `j` with `(i, j)`. Every kernel reads
//! and writes exactly `n` rows and allocates nothing.

/// The bits of `m`, lowest first.
#[inline]
pub(crate) fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(i)
        }
    })
}

/// The set of the first `n` events.
#[inline]
pub(crate) fn all(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[inline]
pub(crate) fn domain(r: &[u64]) -> u64 {
    let mut d = 0;
    for (i, &row) in r.iter().enumerate() {
        d |= ((row != 0) as u64) << i;
    }
    d
}

#[inline]
pub(crate) fn range(r: &[u64]) -> u64 {
    r.iter().fold(0, |s, &row| s | row)
}

/// `out = a ; b`.
#[inline]
pub(crate) fn seq(out: &mut [u64], a: &[u64], b: &[u64]) {
    for (o, &row) in out.iter_mut().zip(a) {
        let mut acc = 0;
        let mut x = row;
        while x != 0 {
            acc |= b[x.trailing_zeros() as usize];
            x &= x - 1;
        }
        *o = acc;
    }
}

/// `out = a^-1`.
#[inline]
pub(crate) fn inverse(out: &mut [u64], a: &[u64]) {
    out.fill(0);
    for (i, &row) in a.iter().enumerate() {
        let mut x = row;
        while x != 0 {
            out[x.trailing_zeros() as usize] |= 1 << i;
            x &= x - 1;
        }
    }
}

/// `r = r+` in place: Warshall on rows, over the events that can be in
/// the middle of a path (both in the domain and in the range).
#[inline]
pub(crate) fn close(r: &mut [u64]) {
    let dom = domain(r);
    let mid = dom & range(r);
    for k in bits(mid) {
        let rk = r[k];
        for i in bits(dom) {
            if r[i] >> k & 1 == 1 {
                r[i] |= rk;
            }
        }
    }
}

/// Whether `r` is transitive (then `r+ = r`).
#[inline]
pub(crate) fn is_transitive(r: &[u64]) -> bool {
    r.iter().all(|&row| bits(row).all(|j| r[j] & !row == 0))
}

#[inline]
pub(crate) fn is_irreflexive(r: &[u64]) -> bool {
    r.iter().enumerate().all(|(i, &row)| row >> i & 1 == 0)
}

#[inline]
pub(crate) fn is_empty(r: &[u64]) -> bool {
    r.iter().all(|&row| row == 0)
}

/// Acyclicity by a depth-first search on masks: an event is done when
/// all its successors are; a successor still on the path is a cycle. Each
/// step pushes or pops an event, so at most `2n` steps, whatever the
/// number of pairs (done successors are skipped a word at a time).
#[inline]
pub(crate) fn is_acyclic(r: &[u64]) -> bool {
    // Events outside the domain or the range are on no cycle.
    let mut done = !(domain(r) & range(r));
    let mut path = 0u64;
    let mut stack = [0u8; 64];
    while done != u64::MAX {
        let root = (!done).trailing_zeros() as usize;
        let mut depth = 1;
        stack[0] = root as u8;
        path |= 1 << root;
        while depth > 0 {
            let v = stack[depth - 1] as usize;
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

    fn naive_close(r: &[u64]) -> Vec<u64> {
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
        for n in [1usize, 2, 5, 13, 31, 64] {
            for density in [1u32, 3, 6] {
                for _ in 0..50 {
                    let mask = all(n);
                    let r: Vec<u64> =
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
                }
            }
        }
    }
}
