//! The IR the checker runs: per thread a flat instruction sequence over
//! registers and memory cells. Both dialects lower to it (`litmus-dsl`);
//! the engines run it (`litmus-checker`). It knows no syntax tree: what it
//! borrows from the source is spans and statement texts.
//!
//! Invariants (established by lowering, relied on by the checker):
//! - every jump target is `<= code.len()`; reaching `code.len()` ends the thread;
//! - every register index is `< regs.len()`, every fixed cell `< mem_size()`;
//! - every memory event (load, store, rmw, fence) names the statement it
//!   comes from, so findings map back to source spans;
//! - `await` is `AwaitStart`, the condition's code, then `AwaitCheck`:
//!   the code in between has no stores.

mod labels;
mod span;

pub use labels::Labels;
pub use span::Span;

pub type Reg = u16;
pub type Cell = u32;
pub type StmtId = u32;
pub type LoopId = u16;

/// The largest iteration count a loop may carry (`bound N`, a `for` range)
/// and the largest `--loop-bound`: every iteration is explored.
pub const MAX_LOOP_BOUND: u32 = 1_000;

/// Pointers (herd `0:rax=t`) are byte addresses from here ([`Layout`]),
/// far from any value a test writes.
pub const ADDR_BASE: i64 = 1 << 48;

/// Where each cell lives in bytes. A location's first cell is at
/// `ADDR_BASE + 8 * base`, its element `i` `i * elem_bytes` further: with
/// 8-byte elements every cell `c` is at `ADDR_BASE + 8 * c`; narrower
/// elements (herd's `int x[2]`, 4 bytes each) pack inside the location's
/// own 8-byte slots, so no location moves when another's elements narrow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Per cell: its location's first cell and element size in bytes.
    cells: Vec<(Cell, u8)>,
}

impl Layout {
    /// `cells` cells of 8 bytes each.
    pub fn uniform(cells: usize) -> Layout {
        Layout { cells: (0..cells as Cell).map(|c| (c, 8)).collect() }
    }

    pub fn of(locations: &[Location], cells: usize) -> Layout {
        let mut l = Layout::uniform(cells);
        for loc in locations {
            for c in loc.base..(loc.base + loc.len).min(cells as Cell) {
                l.cells[c as usize] = (loc.base, loc.elem_bytes);
            }
        }
        l
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn address(&self, cell: Cell) -> i64 {
        let (base, size) = self.cells.get(cell as usize).copied().unwrap_or((cell, 8));
        ADDR_BASE + 8 * base as i64 + (cell - base) as i64 * size as i64
    }

    /// The cell at a byte address, if one starts there.
    pub fn cell(&self, addr: i64) -> Option<Cell> {
        let off = addr.checked_sub(ADDR_BASE)?;
        if off < 0 {
            return None;
        }
        let &(base, size) = self.cells.get((off / 8) as usize)?;
        let rel = off - 8 * base as i64;
        if rel % size as i64 != 0 {
            return None;
        }
        let c = base as i64 + rel / size as i64;
        (self.cells.get(c as usize)?.0 == base).then_some(c as Cell)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    Native,
    HerdX86,
    HerdRiscv,
    /// herd's C format (C11 atomics), read as herd7 reads it with `-c11`.
    HerdC,
    HerdAArch64,
}

impl Dialect {
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Native => "native",
            Dialect::HerdX86 => "herd-x86",
            Dialect::HerdRiscv => "herd-riscv",
            Dialect::HerdC => "herd-c",
            Dialect::HerdAArch64 => "herd-aarch64",
        }
    }

    /// A herd litmus test (its thread table, `P0:` registers).
    pub fn is_herd(self) -> bool {
        self != Dialect::Native
    }

    /// Is an atomic read-modify-write one event, in both `R` and `W`, as
    /// herd's RISC-V semantics makes an AMO and its C semantics an RMW
    /// (rather than a read and a write of one instruction, as herd's x86
    /// makes a locked instruction)?
    pub fn rmw_is_one_event(self) -> bool {
        matches!(self, Dialect::HerdRiscv | Dialect::HerdC)
    }

    /// Does a value carry its dependencies through memory: does a load
    /// depend on what the last earlier store of its thread to that
    /// location depended on, whatever it reads from (herd's AArch64
    /// `dtrm`, through `lmrs`)?
    pub fn deps_through_memory(self) -> bool {
        self == Dialect::HerdAArch64
    }

    /// Does a store-conditional's status register depend on its address
    /// and its write (herd's `SwitchDepScResult`/`SwitchDepScWrite`: on for
    /// RISC-V, off for AArch64)?
    pub fn status_carries_deps(self) -> bool {
        self != Dialect::HerdAArch64
    }

    /// Does a compare-and-swap run as herd's AArch64 `CAS` does: a failing
    /// one may write back the value it read (or not write), and the
    /// register taking the old value of a succeeding one may depend on the
    /// expected value's register instead of on the read?
    pub fn cas_as_arm(self) -> bool {
        self == Dialect::HerdAArch64
    }

    /// The event sets herd7 binds for this architecture's tests that no
    /// event of litmus's belongs to (system features: TLB and cache
    /// maintenance, tags, faults, exceptions): a model that names them
    /// reads them empty.
    pub fn system_sets(self) -> &'static [&'static str] {
        match self {
            Dialect::HerdAArch64 => &[
                "TLBI",
                "TLBIIS",
                "TLBInXS",
                "DC.CVAU",
                "DC.CIVAC",
                "DC.CVAC",
                "DC.IVAC",
                "DC.ZVA",
                "IC.IALLU",
                "IC.IALLUIS",
                "IC.IVAU",
                "T",
                "GCS",
                "AF",
                "DB",
                "FAULT",
                "FAULT-RD",
                "FAULT-WR",
                "EXC-ENTRY",
                "EXC-RET",
                "Translation",
                "AccessFlag",
                "Permission",
                "Exclusive",
                "TagCheck",
                "PacCheck",
                "UndefinedInstruction",
                "SVC",
                "GCSCheck",
                "CutOff",
            ],
            _ => &[],
        }
    }
}

/// What a fence orders: everything (`full`), or stores before stores
/// (`ww`), stores before loads (`wr`), loads before loads (`rr`); a RISC-V
/// `fence pred,succ` (accesses of `pred` before those of `succ`, each a set
/// of [`FenceKind::R`] and [`FenceKind::W`]) or `fence.tso`. What a kind
/// orders under a model is the model's to say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FenceKind {
    Full,
    WW,
    WR,
    RR,
    Sets {
        pred: u8,
        succ: u8,
    },
    Tso,
    /// A C11 `atomic_thread_fence`: its memory order's label
    /// ([`Labels::memory_order`]).
    Order(Labels),
    /// An AArch64 barrier, by its index in [`FenceKind::ARM`]
    /// (`DMB.ISH`, `DSB.ST`, `ISB`, …).
    Arm(u8),
}

impl FenceKind {
    /// Reads, in a [`FenceKind::Sets`] side.
    pub const R: u8 = 1;
    /// Writes, in a [`FenceKind::Sets`] side.
    pub const W: u8 = 2;

    pub fn as_str(self) -> &'static str {
        match self {
            FenceKind::Full => "full",
            FenceKind::WW => "ww",
            FenceKind::WR => "wr",
            FenceKind::RR => "rr",
            FenceKind::Tso => "tso",
            FenceKind::Order(l) => l.memory_order().unwrap_or("relaxed"),
            FenceKind::Arm(i) => FenceKind::ARM[i as usize],
            FenceKind::Sets { pred, succ } => match (pred, succ) {
                (1, 1) => "r,r",
                (1, 2) => "r,w",
                (1, _) => "r,rw",
                (2, 1) => "w,r",
                (2, 2) => "w,w",
                (2, _) => "w,rw",
                (_, 1) => "rw,r",
                (_, 2) => "rw,w",
                _ => "rw,rw",
            },
        }
    }

    /// herd's name for the set of fences of this kind (x86 `MFENCE`,
    /// `SFENCE`, `LFENCE`; RISC-V `Fence.r.rw`, `Fence.tso`, …).
    pub fn tag(self) -> &'static str {
        match self {
            FenceKind::Full | FenceKind::WR => "MFENCE",
            FenceKind::WW => "SFENCE",
            FenceKind::RR => "LFENCE",
            FenceKind::Tso => "Fence.tso",
            FenceKind::Order(_) => "Fence.c11",
            FenceKind::Arm(i) => FenceKind::ARM[i as usize],
            FenceKind::Sets { pred, succ } => {
                let side = |s: u8| match s {
                    FenceKind::R => 0,
                    FenceKind::W => 1,
                    _ => 2,
                };
                FenceKind::TAGS[3 + 3 * side(pred) + side(succ)]
            }
        }
    }

    /// The kind as access sets (`full` is `rw,rw`, `ww` is `w,w`, …):
    /// what a RISC-V model reads of a fence written for another machine.
    pub fn sets(self) -> FenceKind {
        let (r, w) = (FenceKind::R, FenceKind::W);
        match self {
            FenceKind::Full => FenceKind::Sets { pred: r | w, succ: r | w },
            FenceKind::WW => FenceKind::Sets { pred: w, succ: w },
            FenceKind::WR => FenceKind::Sets { pred: w, succ: r },
            FenceKind::RR => FenceKind::Sets { pred: r, succ: r },
            // A barrier as what it orders (ISB orders no access: itself).
            FenceKind::Arm(_) => match self.arm_orders() {
                (0, _) => self,
                (pred, succ) => FenceKind::Sets { pred, succ },
            },
            k => k,
        }
    }

    /// The labels a fence's event carries (a C11 fence's order).
    pub fn labels(self) -> Labels {
        match self {
            FenceKind::Order(l) => l,
            _ => Labels::NONE,
        }
    }

    /// herd's AArch64 barriers: `DMB`/`DSB` with each domain and kind
    /// (full, `LD`, `ST`), then `ISB`.
    pub const ARM: [&'static str; 25] = [
        "DMB.SY",
        "DMB.ISH",
        "DMB.OSH",
        "DMB.NSH",
        "DMB.LD",
        "DMB.ISHLD",
        "DMB.OSHLD",
        "DMB.NSHLD",
        "DMB.ST",
        "DMB.ISHST",
        "DMB.OSHST",
        "DMB.NSHST",
        "DSB.SY",
        "DSB.ISH",
        "DSB.OSH",
        "DSB.NSH",
        "DSB.LD",
        "DSB.ISHLD",
        "DSB.OSHLD",
        "DSB.NSHLD",
        "DSB.ST",
        "DSB.ISHST",
        "DSB.OSHST",
        "DSB.NSHST",
        "ISB",
    ];

    /// The AArch64 barrier named `name` (`DMB.ISH`, `ISB`), if it is one.
    pub fn arm(name: &str) -> Option<FenceKind> {
        FenceKind::ARM.iter().position(|n| n.eq_ignore_ascii_case(name)).map(|i| FenceKind::Arm(i as u8))
    }

    /// What an AArch64 barrier orders, as access sets (pred, succ): a
    /// full one everything, an `LD` one reads before anything, an `ST`
    /// one writes before writes; `ISB` no access by itself (0, 0).
    fn arm_orders(self) -> (u8, u8) {
        let (r, w) = (FenceKind::R, FenceKind::W);
        match self {
            FenceKind::Arm(24) => (0, 0),
            FenceKind::Arm(i) => match (i % 12) / 4 {
                0 => (r | w, r | w),
                1 => (r, r | w),
                _ => (w, w),
            },
            _ => (0, 0),
        }
    }

    /// Every tag, [`FenceKind::TAGS`] then [`FenceKind::ARM`]'s.
    pub fn all_tags() -> impl Iterator<Item = &'static str> {
        FenceKind::TAGS.into_iter().chain(FenceKind::ARM)
    }

    /// Every fence tag herd's x86 and RISC-V models name (and the C11
    /// fences', which herd's C models read by their orders' sets).
    pub const TAGS: [&'static str; 14] = [
        "MFENCE",
        "SFENCE",
        "LFENCE",
        "Fence.r.r",
        "Fence.r.w",
        "Fence.r.rw",
        "Fence.w.r",
        "Fence.w.w",
        "Fence.w.rw",
        "Fence.rw.r",
        "Fence.rw.w",
        "Fence.rw.rw",
        "Fence.tso",
        "Fence.c11",
    ];

    /// Does it order an earlier access of this kind (`write`) before a
    /// later one? (A set fence as its sets say; the x86 kinds as named;
    /// `fence.tso`: every pair but a write before a read.)
    pub fn orders(self, earlier_write: bool, later_write: bool) -> bool {
        let bit = |w: bool| if w { FenceKind::W } else { FenceKind::R };
        match self {
            FenceKind::Full => true,
            FenceKind::WW => earlier_write && later_write,
            FenceKind::WR => earlier_write && !later_write,
            FenceKind::RR => !earlier_write && !later_write,
            FenceKind::Tso => !earlier_write || later_write,
            // What a machine without C11's orders keeps of a C fence: a
            // seq_cst one orders everything, acq_rel all but a store
            // before a load, acquire a load before anything, release
            // anything before a store.
            FenceKind::Order(l) => {
                if l.contains(Labels::MO_SC) {
                    true
                } else if l.contains(Labels::MO_ACQ_REL) {
                    !earlier_write || later_write
                } else if l.contains(Labels::MO_ACQ) {
                    !earlier_write
                } else if l.contains(Labels::MO_REL) {
                    later_write
                } else {
                    false
                }
            }
            FenceKind::Sets { pred, succ } => pred & bit(earlier_write) != 0 && succ & bit(later_write) != 0,
            FenceKind::Arm(_) => {
                let (pred, succ) = self.arm_orders();
                pred & bit(earlier_write) != 0 && succ & bit(later_write) != 0
            }
        }
    }
}

/// How a final condition quantifies over the final states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

impl Quantifier {
    /// The predicate's value in the outcome the condition is about: it
    /// holds (`exists`, `~exists`), or it fails (`forall`).
    pub fn outcome(self) -> bool {
        self != Quantifier::Forall
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Reg(Reg),
    Imm(i64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Addr {
    Fixed(Cell),
    /// `base[index]`, bounds-checked against `len` at run time.
    Indexed {
        base: Cell,
        len: u32,
        index: Operand,
    },
    /// A byte address `base + index * scale + disp` (herd x86 pointers).
    Computed {
        base: Option<Reg>,
        index: Option<(Reg, i64)>,
        disp: i64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Not,
    Neg,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LtU,
    LeU,
    GtU,
    GeU,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Sar,
    /// Logical, on 0/non-0 (no short circuit: used in final conditions).
    And,
    Or,
}

impl BinOp {
    /// Evaluate; `None` on division by zero.
    pub fn eval(self, a: i64, b: i64) -> Option<i64> {
        use BinOp::*;
        Some(match self {
            Add => a.wrapping_add(b),
            Sub => a.wrapping_sub(b),
            Mul => a.wrapping_mul(b),
            Div => {
                if b == 0 {
                    return None;
                }
                a.wrapping_div(b)
            }
            Rem => {
                if b == 0 {
                    return None;
                }
                a.wrapping_rem(b)
            }
            Eq => (a == b) as i64,
            Ne => (a != b) as i64,
            Lt => (a < b) as i64,
            Le => (a <= b) as i64,
            Gt => (a > b) as i64,
            Ge => (a >= b) as i64,
            LtU => ((a as u64) < (b as u64)) as i64,
            LeU => ((a as u64) <= (b as u64)) as i64,
            GtU => ((a as u64) > (b as u64)) as i64,
            GeU => ((a as u64) >= (b as u64)) as i64,
            BitAnd => a & b,
            BitOr => a | b,
            BitXor => a ^ b,
            Shl => a.wrapping_shl(b as u32 & 63),
            Shr => ((a as u64) >> (b as u32 & 63)) as i64,
            Sar => a >> (b as u32 & 63),
            And => (a != 0 && b != 0) as i64,
            Or => (a != 0 || b != 0) as i64,
        })
    }
}

impl UnOp {
    pub fn eval(self, a: i64) -> i64 {
        match self {
            UnOp::Not => (a == 0) as i64,
            UnOp::Neg => a.wrapping_neg(),
            UnOp::BitNot => !a,
        }
    }
}

/// What an atomic read-modify-write writes, given the value it read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwOp {
    Xchg(Operand),
    /// `old op v` (fetch_add, LOCK ADD/INC/DEC/AND/OR/XOR/XADD).
    Fetch(BinOp, Operand),
    /// Writes `new` when the old value equals `expected` (else writes it back).
    /// `fail`: the labels of a failing one's read, where they differ from
    /// the update's (a C11 failure order).
    Cas {
        expected: Operand,
        new: Operand,
        fail: Option<Labels>,
    },
    /// `lock(m)`: enabled only while `m == 0`; writes 1.
    Lock,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    /// `labels`: the access's annotations (a RISC-V `.aq` load is in
    /// herd's `Acq`); none for x86 and the native dialect. A load in
    /// [`Labels::EX`] (RISC-V `lr`) also reserves its cell for the
    /// thread's next [`Instr::StoreCond`].
    Load {
        dst: Reg,
        addr: Addr,
        labels: Labels,
        stmt: StmtId,
    },
    Store {
        addr: Addr,
        val: Operand,
        labels: Labels,
        stmt: StmtId,
    },
    /// One atomic event; `dst` gets the old value. `labels`: the event sets
    /// it belongs to (herd's `X` for an x86 locked instruction, none for a
    /// native atomic); what they make it do is each model's to say (the
    /// checker's `Model::rmw_is_full_fence`).
    Rmw {
        dst: Reg,
        addr: Addr,
        op: RmwOp,
        labels: Labels,
        stmt: StmtId,
    },
    /// A store-conditional (RISC-V `sc`): either it writes `val` to `addr`
    /// and sets `status` to 0, only where the thread's reservation is that
    /// cell, or — always possible — it writes nothing and sets `status` to
    /// 1; both drop the reservation. Whether a write by another thread
    /// between the `lr` and the `sc` makes it fail is the model's to say
    /// (herd's atomicity axiom over `lxsx`), as herd7 leaves it: only the
    /// candidate explorer runs it ([`Program::has_store_conditionals`]).
    StoreCond {
        status: Reg,
        addr: Addr,
        val: Operand,
        labels: Labels,
        stmt: StmtId,
    },
    /// Two accesses of one instruction (AArch64's `LDP`, `STP`, `LDXP`,
    /// `STXP`, `CASP`, `LDIAPP`, `STILP`): at `addr` and `second` bytes
    /// further, two events of one instance that `po` does not order (only
    /// `order` does, herd's `iico_order`). Only the candidate explorer
    /// runs it ([`Program::candidates_only`]).
    Pair {
        op: PairOp,
        addr: Addr,
        second: i64,
        labels: Labels,
        order: PairOrder,
        stmt: StmtId,
    },
    Fence {
        kind: FenceKind,
        stmt: StmtId,
    },
    Mov {
        dst: Reg,
        src: Operand,
    },
    Un {
        dst: Reg,
        op: UnOp,
        a: Operand,
    },
    Bin {
        dst: Reg,
        op: BinOp,
        a: Operand,
        b: Operand,
        stmt: StmtId,
    },
    /// `dst = if cond != 0 { a } else { b }` without a branch (AArch64
    /// `CSEL`): `dst` depends on the operand chosen, and on `cond` only as
    /// herd's "pick" dependencies do (not an address, data or control
    /// dependency of its own).
    Select {
        dst: Reg,
        cond: Operand,
        a: Operand,
        b: Operand,
    },
    Jump {
        target: u32,
    },
    /// Jump when `cond != 0` (`if_nonzero`) or `cond == 0`.
    Branch {
        cond: Operand,
        if_nonzero: bool,
        target: u32,
    },
    /// Entering a loop: reset its iteration counter.
    LoopEnter {
        id: LoopId,
    },
    /// One more iteration of a loop; cuts the execution past the loop's
    /// bound: its own (`bound N`, a `for` count), else the checker's
    /// `--loop-bound` (`None`).
    LoopIter {
        id: LoopId,
        stmt: StmtId,
        bound: Option<u32>,
    },
    Assert {
        cond: Operand,
        stmt: StmtId,
    },
    Assume {
        cond: Operand,
        stmt: StmtId,
    },
    /// Start of an `await`; its check is at `check`.
    AwaitStart {
        check: u32,
        stmt: StmtId,
    },
    /// The thread may pass only when `cond != 0`.
    AwaitCheck {
        cond: Operand,
        start: u32,
        stmt: StmtId,
    },
    /// End the thread (`return` in a thread body, x86 `RET`).
    Halt,
}

/// What a [`Instr::Pair`] does with its two halves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PairOp {
    /// `LDP`, `LDIAPP`; `LDXP` in [`Labels::EX`]: it reserves `addr`, and
    /// its two reads are one single-copy-atomic access (herd's `sm`).
    Load { dst: [Reg; 2] },
    /// `STP`, `STILP`.
    Store { val: [Operand; 2] },
    /// `STXP`: both writes (one single-copy-atomic access, status 0) where
    /// the reservation is `addr`, or none (status 1).
    StoreCond { status: Reg, val: [Operand; 2] },
    /// `CASP`: `old` holds the expected values and takes the values read;
    /// both halves are written with `new` when both equal what was expected.
    /// `fail`: the labels of a failed comparison's reads.
    Cas { old: [Reg; 2], new: [Operand; 2], fail: Labels },
}

/// The order inside one pair instruction (herd's `iico_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PairOrder {
    Unordered,
    /// The lower address's access first (`LDIAPP`, `STILP [Xn]`).
    LowFirst,
    /// The higher address's first (a pre-indexed `STILP`).
    HighFirst,
}

impl Instr {
    /// The registers it writes (a store-conditional: its status).
    pub fn written_regs(&self) -> impl Iterator<Item = Reg> {
        let (a, b) = match *self {
            Instr::Load { dst, .. }
            | Instr::Rmw { dst, .. }
            | Instr::Mov { dst, .. }
            | Instr::Un { dst, .. }
            | Instr::Bin { dst, .. }
            | Instr::Select { dst, .. } => (Some(dst), None),
            Instr::StoreCond { status, .. } => (Some(status), None),
            Instr::Pair { op: PairOp::Load { dst: [a, b] } | PairOp::Cas { old: [a, b], .. }, .. } => {
                (Some(a), Some(b))
            }
            Instr::Pair { op: PairOp::StoreCond { status, .. }, .. } => (Some(status), None),
            _ => (None, None),
        };
        a.into_iter().chain(b)
    }

    /// Every register operand it reads (addresses' registers too), in
    /// operand order; immediates are left out.
    pub fn read_regs(&self, out: &mut impl FnMut(Reg)) {
        let mut op = |o: Operand| {
            if let Operand::Reg(r) = o {
                out(r)
            }
        };
        let addr = |a: Addr, op: &mut dyn FnMut(Operand)| match a {
            Addr::Fixed(_) => {}
            Addr::Indexed { index, .. } => op(index),
            Addr::Computed { base, index, .. } => {
                if let Some(b) = base {
                    op(Operand::Reg(b));
                }
                if let Some((r, _)) = index {
                    op(Operand::Reg(r));
                }
            }
        };
        match *self {
            Instr::Load { addr: a, .. } => addr(a, &mut op),
            Instr::Store { addr: a, val, .. } | Instr::StoreCond { addr: a, val, .. } => {
                addr(a, &mut op);
                op(val);
            }
            Instr::Rmw { addr: a, op: rmw, .. } => {
                addr(a, &mut op);
                match rmw {
                    RmwOp::Xchg(v) | RmwOp::Fetch(_, v) => op(v),
                    RmwOp::Cas { expected, new, .. } => {
                        op(expected);
                        op(new);
                    }
                    RmwOp::Lock => {}
                }
            }
            Instr::Pair { addr: a, op: p, .. } => {
                addr(a, &mut op);
                match p {
                    PairOp::Load { .. } => {}
                    PairOp::Store { val } | PairOp::StoreCond { val, .. } => val.into_iter().for_each(op),
                    PairOp::Cas { old, new, .. } => {
                        old.into_iter().for_each(|r| op(Operand::Reg(r)));
                        new.into_iter().for_each(op);
                    }
                }
            }
            Instr::Mov { src: a, .. } | Instr::Un { a, .. } => op(a),
            Instr::Bin { a, b, .. } => {
                op(a);
                op(b);
            }
            Instr::Select { cond, a, b, .. } => {
                op(cond);
                op(a);
                op(b);
            }
            Instr::Branch { cond, .. }
            | Instr::Assert { cond, .. }
            | Instr::Assume { cond, .. }
            | Instr::AwaitCheck { cond, .. } => op(cond),
            Instr::Fence { .. }
            | Instr::Jump { .. }
            | Instr::LoopEnter { .. }
            | Instr::LoopIter { .. }
            | Instr::AwaitStart { .. }
            | Instr::Halt => {}
        }
    }

    /// Where control may go after this instruction at `pc` (`pc + 1` may be
    /// the thread's end): a failed `await` retries from its start.
    pub fn successors(&self, pc: usize) -> impl Iterator<Item = usize> {
        let (a, b) = match *self {
            Instr::Jump { target } => (Some(target as usize), None),
            Instr::Branch { target, .. } => (Some(pc + 1), Some(target as usize)),
            Instr::AwaitCheck { start, .. } => (Some(pc + 1), Some(start as usize)),
            Instr::Halt => (None, None),
            _ => (Some(pc + 1), None),
        };
        a.into_iter().chain(b)
    }

    /// The statement of a memory event.
    pub fn event_stmt(&self) -> Option<StmtId> {
        match *self {
            Instr::Load { stmt, .. }
            | Instr::Store { stmt, .. }
            | Instr::Rmw { stmt, .. }
            | Instr::StoreCond { stmt, .. }
            | Instr::Pair { stmt, .. }
            | Instr::Fence { stmt, .. } => Some(stmt),
            _ => None,
        }
    }
    pub fn is_memory_access(&self) -> bool {
        matches!(
            self,
            Instr::Load { .. } | Instr::Store { .. } | Instr::Rmw { .. } | Instr::StoreCond { .. } | Instr::Pair { .. }
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegKind {
    /// Declared by the user (`let`, or an x86 register); observable.
    User,
    /// A temporary of expression evaluation or an inlined function.
    Temp,
}

#[derive(Clone, Debug)]
pub struct RegInfo {
    pub name: String,
    pub kind: RegKind,
}

#[derive(Clone, Debug)]
pub struct Thread {
    pub name: String,
    pub name_span: Span,
    pub regs: Vec<RegInfo>,
    /// Initial register values (herd `0:rax=1`), indexed like `regs`.
    pub init_regs: Vec<i64>,
    pub code: Vec<Instr>,
    pub loops: u16,
    /// Where each simple statement's code lies (`code[start..end]`, never
    /// empty: a statement without code has none), once per copy (a
    /// function's statements once per inlined call), ordered by start (an
    /// enclosing statement first): where a fence after it goes
    /// (`litmus_dsl::fence_ir`). Ranges are nested or disjoint.
    pub stmt_ranges: Vec<StmtRange>,
    /// The same for control statements (`if`, `while`, `for`: the whole
    /// statement, body and `else` included; native dialect only): where a
    /// fence before or after one goes. A reduced spin keeps its range only
    /// when its block starts at its `while`.
    pub control_ranges: Vec<StmtRange>,
    /// Each loop's head (not reduced spins): where its condition is
    /// evaluated on every iteration.
    pub loop_heads: Vec<LoopHead>,
}

/// A `while` or `for` loop's places in its thread's code: its condition
/// starts at `head` (entered from the code before the loop and from the
/// end of its body, `back`: the jump back, or a `for`'s increment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LoopHead {
    pub stmt: StmtId,
    pub head: u32,
    pub back: u32,
}

/// Where fences may go, for every statement of a program at once
/// ([`Program::fence_places`]).
#[derive(Clone, Debug)]
pub struct FencePlaces {
    flags: Vec<u8>,
}

impl FencePlaces {
    const CODE: u8 = 1;
    const CONTROL: u8 = 2;
    const LOOP: u8 = 4;
    const AFTER: u8 = 8;
    const BEFORE: u8 = 16;
    const HEAD: u8 = 32;
    const FENCEABLE: u8 = 64;

    /// [`Program::fence_place_ok`].
    pub fn ok(&self, s: StmtId, place: Place) -> bool {
        let bit = match place {
            Place::After => Self::AFTER,
            Place::Before => Self::BEFORE,
            Place::LoopHead => Self::HEAD,
        };
        self.flags.get(s as usize).is_some_and(|f| f & bit != 0)
    }

    /// [`Program::fenceable`].
    pub fn fenceable(&self, s: StmtId) -> bool {
        self.flags.get(s as usize).is_some_and(|f| f & Self::FENCEABLE != 0)
    }
}

/// Where a fence goes relative to a statement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// Right after it (`s; fence;`): its own code falls into the fence; a
    /// jump from elsewhere to where it ends goes past.
    #[default]
    After,
    /// Right before it (`fence; s;`): whatever comes to it passes the fence.
    Before,
    /// At a loop's head (its `while`/`for`): before the loop and at the end
    /// of its body, so every evaluation of the condition follows a fence.
    LoopHead,
}

impl Place {
    /// `after`, `before`, `loop-head` (JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Place::After => "after",
            Place::Before => "before",
            Place::LoopHead => "loop-head",
        }
    }
}

/// The code of one copy of a simple statement in its thread: it runs from
/// `start` and falls through to `end` (a jump from inside it to `end` ends
/// the statement; a jump from outside to `end` goes to what follows it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StmtRange {
    pub stmt: StmtId,
    pub start: u32,
    pub end: u32,
}

impl Thread {
    pub fn reg_by_name(&self, name: &str) -> Option<Reg> {
        self.regs.iter().position(|r| r.kind == RegKind::User && r.name == name).map(|i| i as Reg)
    }
}

#[derive(Clone, Debug)]
pub struct Location {
    pub name: String,
    pub span: Option<Span>,
    pub base: Cell,
    pub len: u32,
    pub is_array: bool,
    /// The size of each element in bytes (8 but in herd's AArch64 arrays
    /// of narrower types): what address arithmetic steps by ([`Layout`]).
    pub elem_bytes: u8,
}

/// What kind of statement a [`StmtInfo`] is, as far as the checker cares:
/// where a fence may follow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StmtForm {
    /// Runs and falls through to the next statement: a fence may follow it.
    Simple,
    /// Decides where control goes: an `if`/`while` header, an x86 jump.
    /// A fence "after" it would land inside a branch, not after it.
    Control,
    /// Leaves the thread or function: nothing after it runs.
    Return,
}

/// A source statement: what findings point at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StmtInfo {
    pub thread: u16,
    pub form: StmtForm,
    /// What findings point at: the statement, or a control statement's
    /// header (`if (c)`, `while (c)`).
    pub span: Span,
    /// The whole statement (a control statement's body and `else` too).
    pub extent: Span,
    /// The statement's text without a trailing `;`, on one line.
    pub text: String,
    /// 1-based line and column of the start, and just past the end.
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CondExpr {
    Const(i64),
    Reg { thread: u16, reg: Reg },
    Mem(Cell),
    Un(UnOp, Box<CondExpr>),
    Bin(BinOp, Box<CondExpr>, Box<CondExpr>),
}

impl CondExpr {
    /// The value, or `None` on division by zero (the condition is then
    /// undefined in that state — an error, never a silent 0).
    pub fn eval(&self, reg: &impl Fn(u16, Reg) -> i64, mem: &impl Fn(Cell) -> i64) -> Option<i64> {
        Some(match self {
            CondExpr::Const(v) => *v,
            CondExpr::Reg { thread, reg: r } => reg(*thread, *r),
            CondExpr::Mem(c) => mem(*c),
            CondExpr::Un(op, a) => op.eval(a.eval(reg, mem)?),
            CondExpr::Bin(op, a, b) => op.eval(a.eval(reg, mem)?, b.eval(reg, mem)?)?,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Condition {
    pub quantifier: Quantifier,
    pub expr: CondExpr,
    /// The predicate's source text, on one line, without enclosing parentheses.
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ObservableKind {
    Reg { thread: u16, reg: Reg },
    Mem(Cell),
}

/// Something a final state is projected on (herd's `States`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Observable {
    pub name: String,
    pub kind: ObservableKind,
}

/// Observables in first-seen order, each kind once (constant time per
/// addition): what lowering collects a program's observables in.
#[derive(Default)]
pub struct ObservableSet {
    pub list: Vec<Observable>,
    seen: std::collections::HashSet<ObservableKind>,
}

impl ObservableSet {
    pub fn add(&mut self, kind: ObservableKind, name: impl FnOnce() -> String) {
        if self.seen.insert(kind.clone()) {
            self.list.push(Observable { name: name(), kind });
        }
    }
}

#[derive(Clone, Debug)]
pub struct Program {
    pub name: String,
    pub doc: Option<String>,
    pub dialect: Dialect,
    pub locations: Vec<Location>,
    /// Initial value of every cell.
    pub init: Vec<i64>,
    pub threads: Vec<Thread>,
    pub stmts: Vec<StmtInfo>,
    pub condition: Option<Condition>,
    pub filter: Option<CondExpr>,
    pub observables: Vec<Observable>,
    /// The `while` headers whose loops were reduced to their final
    /// iteration (spin loops, `spin.rs` in `litmus-dsl`), in statement order.
    pub spins: Vec<StmtId>,
}

impl Program {
    /// Do accesses or fences carry labels beyond x86's `X` (RISC-V's
    /// `.aq`, C11's memory orders)? The graph explorer's executions bind
    /// only x86's sets: a model given as data is then answered by the
    /// candidate explorer, whose executions bind every label.
    pub fn has_labels(&self) -> bool {
        let beyond = |l: Labels| !(l.is_empty() || l == Labels::X);
        self.threads.iter().flat_map(|t| &t.code).any(|i| match *i {
            Instr::Load { labels, .. }
            | Instr::Store { labels, .. }
            | Instr::Rmw { labels, .. }
            | Instr::StoreCond { labels, .. }
            | Instr::Pair { labels, .. } => beyond(labels),
            Instr::Fence { kind, .. } => !kind.labels().is_empty(),
            _ => false,
        })
    }

    /// Is it written with C11's memory model: an access atomic or not
    /// (herd's `A`, `NA`), or a fence with a memory order? (herd's C
    /// tests; native programs that write orders.)
    pub fn is_c11(&self) -> bool {
        let c11 = Labels::ORDERS.union(Labels::A).union(Labels::NA);
        self.threads.iter().flat_map(|t| &t.code).any(|i| match *i {
            Instr::Load { labels, .. } | Instr::Store { labels, .. } | Instr::Rmw { labels, .. } => {
                labels.intersects(c11)
            }
            Instr::Fence { kind: FenceKind::Order(_), .. } => true,
            _ => false,
        })
    }

    /// Does a thread hold a store-conditional? The machines (interleavings,
    /// buffers, the unbounded search) do not run one: its failure is a
    /// choice no interleaving makes, so the candidate explorer answers.
    pub fn has_store_conditionals(&self) -> bool {
        self.threads.iter().any(|t| t.code.iter().any(|i| matches!(i, Instr::StoreCond { .. })))
    }

    /// Is it only the candidate explorer's to run: a store-conditional
    /// (above), or an instruction of two accesses that no machine steps
    /// through as one ([`Instr::Pair`])?
    pub fn candidates_only(&self) -> bool {
        self.threads.iter().any(|t| t.code.iter().any(|i| matches!(i, Instr::StoreCond { .. } | Instr::Pair { .. })))
    }

    /// What a check's answers depend on, as a string: the program with its
    /// positions, statement texts and description left out. Two texts that
    /// differ only in comments, layout or spacing have the same key, and a
    /// check of one answers for the other (its findings rendered at the
    /// other's positions: statement ids are the same).
    pub fn semantic_key(&self) -> String {
        let mut p = self.clone();
        p.doc = None;
        for l in &mut p.locations {
            l.span = None;
        }
        for t in &mut p.threads {
            t.name_span = Span::default();
        }
        for s in &mut p.stmts {
            (s.span, s.extent) = (Span::default(), Span::default());
            (s.line, s.col, s.end_line, s.end_col) = (0, 0, 0, 0);
            s.text.clear();
        }
        if let Some(c) = &mut p.condition {
            c.span = Span::default();
            c.text.clear();
        }
        format!("{p:?}")
    }

    /// Can a fence go right after statement `s` (in the IR, as in the
    /// text)? A simple statement with its own code: not one inside a spin
    /// loop reduced to one attempt (see `litmus-dsl`'s `spin.rs`), nor one
    /// lowered away. (Only its own thread's ranges are looked at; for every
    /// statement at once, [`Program::fence_places`].)
    pub fn fenceable(&self, s: StmtId) -> bool {
        self.stmts.get(s as usize).is_some_and(|info| {
            info.form == StmtForm::Simple
                && self.threads.get(info.thread as usize).is_some_and(|t| t.stmt_ranges.iter().any(|r| r.stmt == s))
        })
    }

    /// Can a fence go at `place` of statement `s`? After: a simple
    /// statement ([`Program::fenceable`]) or a control statement; before: any
    /// statement with code; at a loop head: a loop that is no reduced spin.
    /// Control statements and places other than after are the native
    /// dialect's (a herd fence is a row after an instruction).
    pub fn fence_place_ok(&self, s: StmtId, place: Place) -> bool {
        let Some(t) = self.stmts.get(s as usize).and_then(|i| self.threads.get(i.thread as usize)) else {
            return false;
        };
        let native = self.dialect == Dialect::Native;
        let control = || t.control_ranges.iter().any(|r| r.stmt == s);
        match place {
            Place::After => self.fenceable(s) || (native && control()),
            Place::Before => native && (self.fenceable(s) || control()),
            Place::LoopHead => native && t.loop_heads.iter().any(|h| h.stmt == s),
        }
    }

    /// [`Program::fence_place_ok`] for every statement, from one pass over
    /// the threads' ranges (asking statement by statement is quadratic in a
    /// long thread).
    pub fn fence_places(&self) -> FencePlaces {
        let mut flags = vec![0u8; self.stmts.len()];
        let mut mark = |s: StmtId, bit: u8| {
            if let Some(f) = flags.get_mut(s as usize) {
                *f |= bit;
            }
        };
        for t in &self.threads {
            t.stmt_ranges.iter().for_each(|r| mark(r.stmt, FencePlaces::CODE));
            t.control_ranges.iter().for_each(|r| mark(r.stmt, FencePlaces::CONTROL));
            t.loop_heads.iter().for_each(|h| mark(h.stmt, FencePlaces::LOOP));
        }
        let native = self.dialect == Dialect::Native;
        for (f, info) in flags.iter_mut().zip(&self.stmts) {
            let fenceable = info.form == StmtForm::Simple && *f & FencePlaces::CODE != 0;
            let control = native && *f & FencePlaces::CONTROL != 0;
            let mut ok = 0;
            if fenceable || control {
                ok |= FencePlaces::AFTER;
            }
            if native && (fenceable || control) {
                ok |= FencePlaces::BEFORE;
            }
            if native && *f & FencePlaces::LOOP != 0 {
                ok |= FencePlaces::HEAD;
            }
            if fenceable {
                ok |= FencePlaces::FENCEABLE;
            }
            *f = ok;
        }
        FencePlaces { flags }
    }

    pub fn mem_size(&self) -> usize {
        self.init.len()
    }

    /// Where each cell is in bytes (pointers are addresses).
    pub fn layout(&self) -> Layout {
        Layout::of(&self.locations, self.mem_size())
    }

    /// Display name of a cell: `x` or `a[2]`.
    pub fn cell_name(&self, cell: Cell) -> String {
        for l in &self.locations {
            if cell >= l.base && cell < l.base + l.len {
                return if l.is_array { format!("{}[{}]", l.name, cell - l.base) } else { l.name.clone() };
            }
        }
        format!("#{cell}")
    }

    pub fn location(&self, name: &str) -> Option<&Location> {
        self.locations.iter().find(|l| l.name == name)
    }

    /// Number of memory events (loads, stores, atomics, fences) in the code.
    pub fn event_count(&self) -> usize {
        self.threads.iter().flat_map(|t| &t.code).filter(|i| i.event_stmt().is_some()).count()
    }

    /// Render a value: pointers as the location they point to.
    pub fn show_value(&self, v: i64) -> String {
        match self.layout().cell(v) {
            Some(c) => self.cell_name(c),
            None => v.to_string(),
        }
    }
}
