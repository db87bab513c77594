//! Labels on accesses: the event sets a memory model names them by, as
//! herd's architectures publish theirs (x86: `X`, the events of locked
//! instructions; AArch64: `A`, `L`, `Q`, `NoRet`, …). The IR only says which
//! sets an access belongs to; what that means (is it a fence? which
//! buffers does it drain?) is each model's to answer (the checker's
//! `Model`), never the IR's.

use std::fmt;
use std::ops::{BitOr, BitOrAssign};

/// A set of labels: a bitset with one named constant per label.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Labels(u32);

impl Labels {
    /// No label (an atomic of the native dialect).
    pub const NONE: Labels = Labels(0);
    /// herd's x86 `X`: an event of a locked instruction (a `LOCK`'d one, or
    /// `XCHG` with memory).
    pub const X: Labels = Labels(1 << 0);
    /// RISC-V `.aq`: herd's `Acq`.
    pub const ACQ: Labels = Labels(1 << 1);
    /// RISC-V `.rl`: herd's `Rel`.
    pub const REL: Labels = Labels(1 << 2);
    /// RISC-V `.aqrl`: herd's `AcqRel`.
    pub const ACQ_REL: Labels = Labels(1 << 3);
    /// A load-reserved or store-conditional: herd's `EX`.
    pub const EX: Labels = Labels(1 << 4);
    /// herd's RISC-V `Sc` (its older name for an `.aqrl` AMO's events).
    pub const SC: Labels = Labels(1 << 5);
    /// C11 `memory_order_relaxed`: herd's C `RLX`.
    pub const RLX: Labels = Labels(1 << 6);
    /// C11 `memory_order_acquire`: herd's C `ACQ`.
    pub const MO_ACQ: Labels = Labels(1 << 7);
    /// C11 `memory_order_release`: herd's C `REL`.
    pub const MO_REL: Labels = Labels(1 << 8);
    /// C11 `memory_order_acq_rel`: herd's C `ACQ_REL`.
    pub const MO_ACQ_REL: Labels = Labels(1 << 9);
    /// C11 `memory_order_seq_cst`: herd's C `SC`.
    pub const MO_SC: Labels = Labels(1 << 10);
    /// A C11 atomic access: herd's C `A`.
    pub const A: Labels = Labels(1 << 11);
    /// A C plain (non-atomic) access: herd's C `NA`.
    pub const NA: Labels = Labels(1 << 12);
    /// A C11 read-modify-write: herd's C `RMW`.
    pub const RMW: Labels = Labels(1 << 13);
    /// AArch64 release (`STLR`, `SWPL`, …): herd's `L`. (An acquire
    /// `LDAR` is herd's AArch64 `A`, the set C calls its atomics.)
    pub const L: Labels = Labels(1 << 14);
    /// AArch64 acquire-PC (`LDAPR`): herd's `Q`.
    pub const Q: Labels = Labels(1 << 15);
    /// An AArch64 atomic whose old value is not kept (`STADD`, or `LDADD`
    /// into `XZR`): herd's `NoRet`.
    pub const NORET: Labels = Labels(1 << 16);
    /// An AArch64 non-temporal pair access (`LDNP`, `STNP`): herd's `NT`,
    /// a hint no stock model orders by.
    pub const NT: Labels = Labels(1 << 17);

    /// Every label and herd's name for its set, in bit order. A new label
    /// (an acquire `A`, a release `L`, …) is one constant and one row here.
    const NAMED: [(Labels, &'static str); 18] = [
        (Labels::X, "X"),
        (Labels::ACQ, "Acq"),
        (Labels::REL, "Rel"),
        (Labels::ACQ_REL, "AcqRel"),
        (Labels::EX, "EX"),
        (Labels::SC, "Sc"),
        (Labels::RLX, "RLX"),
        (Labels::MO_ACQ, "ACQ"),
        (Labels::MO_REL, "REL"),
        (Labels::MO_ACQ_REL, "ACQ_REL"),
        (Labels::MO_SC, "SC"),
        (Labels::A, "A"),
        (Labels::NA, "NA"),
        (Labels::RMW, "RMW"),
        (Labels::L, "L"),
        (Labels::Q, "Q"),
        (Labels::NORET, "NoRet"),
        (Labels::NT, "NT"),
    ];

    /// The C11 memory order among them, by its C name (`relaxed`, …).
    pub fn memory_order(self) -> Option<&'static str> {
        [
            (Labels::RLX, "relaxed"),
            (Labels::MO_ACQ, "acquire"),
            (Labels::MO_REL, "release"),
            (Labels::MO_ACQ_REL, "acq_rel"),
            (Labels::MO_SC, "seq_cst"),
        ]
        .into_iter()
        .find(|&(l, _)| self.contains(l))
        .map(|(_, n)| n)
    }

    /// herd's names of every label's set, in bit order: a model reads them
    /// whether or not an execution has such events.
    pub fn all_names() -> impl Iterator<Item = &'static str> {
        Self::NAMED.into_iter().map(|(_, name)| name)
    }

    /// Is every label of `other` in this set?
    pub const fn contains(self, other: Labels) -> bool {
        self.0 & other.0 == other.0
    }

    /// Has it a label of `other`?
    pub const fn intersects(self, other: Labels) -> bool {
        self.0 & other.0 != 0
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub const fn union(self, other: Labels) -> Labels {
        Labels(self.0 | other.0)
    }

    /// Its labels but those of `other`.
    pub const fn without(self, other: Labels) -> Labels {
        Labels(self.0 & !other.0)
    }

    /// C11's memory orders (one of them at most on an access or fence).
    pub const ORDERS: Labels =
        Labels::RLX.union(Labels::MO_ACQ).union(Labels::MO_REL).union(Labels::MO_ACQ_REL).union(Labels::MO_SC);

    /// herd's names of its sets, in bit order (`X`).
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMED.into_iter().filter(move |&(l, _)| self.contains(l)).map(|(_, name)| name)
    }
}

impl BitOr for Labels {
    type Output = Labels;
    fn bitor(self, other: Labels) -> Labels {
        self.union(other)
    }
}

impl BitOrAssign for Labels {
    fn bitor_assign(&mut self, other: Labels) {
        *self = self.union(other);
    }
}

/// `Labels(X)`, `Labels()`: by name.
impl fmt::Debug for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Labels({})", self.names().collect::<Vec<_>>().join(" | "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_and_names() {
        assert!(Labels::NONE.is_empty() && Labels::NONE.names().next().is_none());
        assert!(Labels::X.contains(Labels::X) && Labels::X.contains(Labels::NONE));
        assert!(!Labels::NONE.contains(Labels::X) && !Labels::NONE.intersects(Labels::X));
        assert_eq!(Labels::NONE | Labels::X, Labels::X);
        assert_eq!(Labels::X.names().collect::<Vec<_>>(), ["X"]);
        assert_eq!(format!("{:?}", Labels::X), "Labels(X)");
        // Every named label is one bit of its own.
        for (i, (l, _)) in Labels::NAMED.into_iter().enumerate() {
            assert_eq!(l.0.count_ones(), 1);
            assert!(Labels::NAMED[..i].iter().all(|&(k, _)| !k.intersects(l)));
        }
    }
}
