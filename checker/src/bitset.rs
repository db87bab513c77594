//! A small growable bit set of process ids.

/// Processes 0–63 live in `lo`, the rest in `hi` (word k holds 64(k+1)
/// and up): the explorer asks its sets several times per step, and almost
/// every program has fewer than 64 processes, so those asks touch one word
/// and no heap.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitSet {
    lo: u64,
    hi: Vec<u64>,
}

impl BitSet {
    pub fn with_capacity(n: usize) -> Self {
        BitSet { lo: 0, hi: vec![0; n.div_ceil(64).saturating_sub(1)] }
    }
    #[inline]
    pub fn clear(&mut self) {
        self.lo = 0;
        self.hi.iter_mut().for_each(|w| *w = 0);
    }
    #[inline]
    pub fn insert(&mut self, i: usize) {
        if i < 64 {
            self.lo |= 1 << i;
            return;
        }
        let w = i / 64 - 1;
        if w >= self.hi.len() {
            self.hi.resize(w + 1, 0);
        }
        self.hi[w] |= 1 << (i % 64);
    }
    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        if i < 64 {
            return self.lo & (1 << i) != 0;
        }
        self.hi.get(i / 64 - 1).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.lo == 0 && self.hi.iter().all(|w| *w == 0)
    }
    #[inline]
    pub fn iter(&self) -> Ones<'_> {
        // `hi` follows `lo` as the next words of one sequence.
        Ones { word: self.lo, base: 0, rest: &self.hi }
    }
    pub fn copy_from(&mut self, other: &BitSet) {
        self.lo = other.lo;
        self.hi.clear();
        self.hi.extend_from_slice(&other.hi);
    }
}

/// Set bits in increasing order ([`BitSet::iter`], [`ones`]): those of the
/// word at hand (at `base`), then of the rest, 64 per word.
pub struct Ones<'a> {
    word: u64,
    base: usize,
    rest: &'a [u64],
}

impl Iterator for Ones<'_> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.word == 0 {
            let (&w, rest) = self.rest.split_first()?;
            self.word = w;
            self.rest = rest;
            self.base += 64;
        }
        let b = self.word.trailing_zeros() as usize;
        self.word &= self.word - 1;
        Some(self.base + b)
    }
}

/// The positions of the set bits of `words` (64 per word), in increasing order.
pub fn ones(words: &[u64]) -> Ones<'_> {
    match words.split_first() {
        Some((&word, rest)) => Ones { word, base: 0, rest },
        None => Ones { word: 0, base: 0, rest: &[] },
    }
}

#[cfg(test)]
mod tests {
    use super::BitSet;

    #[test]
    fn holds_processes_on_both_sides_of_64() {
        let mut s = BitSet::with_capacity(3);
        assert!(s.is_empty());
        for i in [0, 5, 63, 64, 130] {
            s.insert(i);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), [0, 5, 63, 64, 130]);
        assert!(s.contains(63) && s.contains(64) && s.contains(130) && !s.contains(65) && !s.contains(1000));
        let mut t = BitSet::with_capacity(200);
        t.copy_from(&s);
        assert_eq!(t.iter().collect::<Vec<_>>(), [0, 5, 63, 64, 130]);
        s.clear();
        assert!(s.is_empty() && !s.contains(0) && !s.contains(130));
        assert!(!t.is_empty());
    }
}
