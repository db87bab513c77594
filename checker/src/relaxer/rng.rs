//! A small seeded generator (SplitMix64): every random choice of active
//! testing comes from a seed, so any run can be replayed exactly, on any
//! machine and whatever the number of worker threads.

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 11) as u128 * n as u128) >> 53) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// The SplitMix64 finaliser: a good hash of one word.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of one run, derived from the user's seed and the run's place
/// (phase, model, cycle, trial): independent of scheduling order.
pub fn derive(seed: u64, parts: &[u64]) -> u64 {
    parts.iter().fold(mix(seed ^ 0x6C69_746D_7573), |h, &p| mix(h ^ mix(p.wrapping_add(0x1234_5678))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_and_chance_stay_in_range_and_vary() {
        let mut r = Rng::new(7);
        let xs: Vec<usize> = (0..1000).map(|_| r.below(3)).collect();
        assert!(xs.iter().all(|&x| x < 3));
        for k in 0..3 {
            let n = xs.iter().filter(|&&x| x == k).count();
            assert!((250..420).contains(&n), "{k}: {n}");
        }
        let heads = (0..1000).filter(|_| r.chance(0.5)).count();
        assert!((430..570).contains(&heads), "{heads}");
        assert_eq!((0..100).filter(|_| r.chance(0.0)).count(), 0);
        assert_eq!((0..100).filter(|_| r.chance(1.0)).count(), 100);
    }

    #[test]
    fn derived_seeds_differ_by_place() {
        assert_ne!(derive(1, &[0, 1]), derive(1, &[1, 0]));
        assert_ne!(derive(1, &[0]), derive(2, &[0]));
        assert_eq!(derive(5, &[3, 4]), derive(5, &[3, 4]));
    }
}
