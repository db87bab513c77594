//! "Each value written to a location at most once, and never its initial
//! value": what lets a history name the write a read saw by its value. One
//! check for every place a history is made — parsed (`model`), from an
//! explorer execution (`execution`), recorded on the CPU
//! (`hardware::record`) — each wording its own error.

use std::collections::HashMap;

/// Why a write breaks the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clash<W> {
    /// It writes the location's initial value.
    Initial,
    /// `W` wrote the same value to the location before.
    Again(W),
}

/// The writes seen so far, each with who made it (`W`: whatever names it).
pub struct UniqueWrites<'i, W> {
    init: &'i [i64],
    seen: HashMap<(usize, i64), W>,
}

impl<'i, W: Copy> UniqueWrites<'i, W> {
    /// `init`: each location's initial value.
    pub fn new(init: &'i [i64]) -> Self {
        UniqueWrites { init, seen: HashMap::new() }
    }

    /// Does writing `value` to `loc` write its initial value?
    pub fn is_initial(&self, loc: usize, value: i64) -> bool {
        self.init.get(loc) == Some(&value)
    }

    /// Take a write of `value` to `loc` by `who`, or say why it breaks the rule.
    pub fn add(&mut self, loc: usize, value: i64, who: W) -> Result<(), Clash<W>> {
        if self.is_initial(loc, value) {
            return Err(Clash::Initial);
        }
        match self.seen.entry((loc, value)) {
            std::collections::hash_map::Entry::Occupied(first) => Err(Clash::Again(*first.get())),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(who);
                Ok(())
            }
        }
    }

    /// Who wrote `value` to `loc` (not the initial write).
    pub fn writer(&self, loc: usize, value: i64) -> Option<W> {
        self.seen.get(&(loc, value)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_then_again() {
        let init = [0, 5];
        let mut u = UniqueWrites::new(&init);
        assert_eq!(u.add(1, 5, 'a'), Err(Clash::Initial));
        assert_eq!(u.add(1, 0, 'a'), Ok(()));
        assert_eq!(u.add(0, 5, 'b'), Ok(()));
        assert_eq!(u.add(1, 0, 'c'), Err(Clash::Again('a')));
        assert_eq!((u.writer(1, 0), u.writer(0, 0)), (Some('a'), None));
    }
}
