//! Sets of changes holding one change at every violation's edge (hitting
//! sets of the violations' groups), generated lazily in the order the
//! repair search tries them: by total cost, then size, then the sets
//! themselves. A search that stops at its first robust set generates few:
//! listing them all first (tens of thousands on a RISC-V test with many
//! violations) cost more than the re-checks.

use crate::violation::Repair;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet, VecDeque};

/// Partial sets expanded at most: a bound on the work, not on the answer
/// (the search after this one tries every cheaper set regardless).
pub const MAX_EXPANDED: usize = 100_000;

/// The hitting sets of `groups` (indices into `pool`, sorted, no two
/// clashing), each once, in order of (cost, size, set).
pub struct HittingSets<'a> {
    pool: &'a [Repair],
    groups: &'a [Vec<usize>],
    clash: fn(&Repair, &Repair) -> bool,
    /// Partial and complete sets to expand, smallest (cost, size, set) first.
    heap: BinaryHeap<Reverse<(u32, usize, Vec<usize>)>>,
    pushed: HashSet<Vec<usize>>,
    /// Complete sets of the (cost, size) class being gathered: no set of a
    /// smaller class can appear once the heap's least is past it (adding
    /// a change adds to both), so the class is then given out in order.
    class: Option<(u32, usize)>,
    gathered: Vec<Vec<usize>>,
    ready: VecDeque<Vec<usize>>,
    expanded: usize,
}

impl<'a> HittingSets<'a> {
    pub fn new(pool: &'a [Repair], groups: &'a [Vec<usize>], clash: fn(&Repair, &Repair) -> bool) -> Self {
        let mut heap = BinaryHeap::new();
        heap.push(Reverse((0, 0, Vec::new())));
        HittingSets {
            pool,
            groups,
            clash,
            heap,
            pushed: HashSet::new(),
            class: None,
            gathered: Vec::new(),
            ready: VecDeque::new(),
            expanded: 0,
        }
    }

    fn flush(&mut self) {
        self.gathered.sort_unstable();
        self.ready.extend(self.gathered.drain(..));
        self.class = None;
    }
}

impl Iterator for HittingSets<'_> {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        loop {
            if let Some(s) = self.ready.pop_front() {
                return Some(s);
            }
            let least = self.heap.peek().map(|Reverse((c, n, _))| (*c, *n));
            let spent = self.expanded >= MAX_EXPANDED;
            if let Some(class) = self.class {
                if spent || least.is_none_or(|l| l > class) {
                    self.flush();
                    continue;
                }
            }
            if spent {
                return None;
            }
            let Reverse((cost, size, set)) = self.heap.pop()?;
            self.expanded += 1;
            let Some(g) = self.groups.iter().find(|g| !g.iter().any(|j| set.contains(j))) else {
                self.class = Some((cost, size));
                self.gathered.push(set);
                continue;
            };
            for &j in g {
                if set.iter().any(|&i| (self.clash)(&self.pool[i], &self.pool[j])) {
                    continue;
                }
                let mut next = set.clone();
                let at = next.partition_point(|&i| i < j);
                next.insert(at, j);
                if self.pushed.insert(next.clone()) {
                    self.heap.push(Reverse((cost + self.pool[j].cost, size + 1, next)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::violation::Change;
    use litmus_ir::{FenceKind, Labels, Place};
    use proptest::prelude::*;

    fn clash(a: &Repair, b: &Repair) -> bool {
        a.stmt == b.stmt && std::mem::discriminant(&a.change) == std::mem::discriminant(&b.change)
    }

    fn change(k: u8) -> Change {
        match k % 2 {
            0 => Change::Fence { place: Place::After, kind: FenceKind::Full },
            _ => Change::Labels { from: Labels::default(), to: Labels::default() },
        }
    }

    /// The sets the search by groups reaches (a change of the first group
    /// not yet hit, in turn), all of them, sorted by (cost, size, set): what
    /// the repair search listed and sorted before the sets were lazy.
    fn eager(pool: &[Repair], groups: &[Vec<usize>]) -> Vec<Vec<usize>> {
        fn go(pool: &[Repair], groups: &[Vec<usize>], chosen: &mut Vec<usize>, out: &mut HashSet<Vec<usize>>) {
            let Some(g) = groups.iter().find(|g| !g.iter().any(|j| chosen.contains(j))) else {
                let mut s = chosen.clone();
                s.sort_unstable();
                out.insert(s);
                return;
            };
            for &j in g {
                if !chosen.iter().any(|&i| clash(&pool[i], &pool[j])) {
                    chosen.push(j);
                    go(pool, groups, chosen, out);
                    chosen.pop();
                }
            }
        }
        let mut out = HashSet::new();
        go(pool, groups, &mut Vec::new(), &mut out);
        let mut v: Vec<Vec<usize>> = out.into_iter().collect();
        v.sort_by_cached_key(|s| (s.iter().map(|&i| pool[i].cost).sum::<u32>(), s.len(), s.clone()));
        v
    }

    proptest! {
        /// The lazy order is the eager one, set for set.
        #[test]
        fn lazily_the_sorted_hitting_sets(
            pool in proptest::collection::vec((0u32..4, 0u8..4, 0u32..3), 1..9),
            groups in proptest::collection::vec(proptest::collection::vec(0usize..9, 1..4), 0..4),
        ) {
            let pool: Vec<Repair> =
                pool.into_iter().map(|(stmt, k, cost)| Repair { thread: 0, stmt, change: change(k), cost }).collect();
            let n = pool.len();
            let groups: Vec<Vec<usize>> =
                groups.into_iter().map(|g| { let mut g: Vec<usize> = g.into_iter().filter(|&j| j < n).collect(); g.sort_unstable(); g.dedup(); g }).filter(|g| !g.is_empty()).collect();
            let got: Vec<Vec<usize>> = HittingSets::new(&pool, &groups, clash).collect();
            prop_assert_eq!(got, eager(&pool, &groups));
        }
    }
}
