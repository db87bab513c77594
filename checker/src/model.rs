//! The memory models, each answering questions about itself: its names,
//! how its stores travel (a buffer per thread or per cell), whether loads
//! may read older values (histories), what each fence and atomic drains or
//! resets (which atomics are full fences: the IR labels accesses, the model
//! says what a label means), which pairs of accesses it lets reorder and
//! the weakest fence that orders them, and which engines decide it (the
//! monitors, the graph explorer, the attacks of the unbounded procedure).
//! Code elsewhere asks these questions instead of testing which model it
//! is: a model is one row of [`SPECS`], and everything else follows from it.
//!
//! With the `extra-model` feature (tests only) a fifth model exists, XTSO:
//! TSO's semantics with none of the engines' shortcuts (no monitor, no
//! graphs, no attacks: its own executions are explored). It is declared in
//! this file alone, flows through check, fix, the JSON reports and the
//! server's settings, and must give TSO's answers
//! (`checker/tests/extra_model.rs`, `scripts/extra-model.sh`).

use litmus_ir::{FenceKind, Labels};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Model {
    Sc,
    Tso,
    Pso,
    /// PSO plus per-thread store histories: loads may be satisfied early
    /// (RELAXER's Partial Store Load Order).
    Pslo,
    /// Tests: TSO decided by exploring its own executions only.
    #[cfg(feature = "extra-model")]
    Xtso,
    /// A model given as data: a herd `.cat` file, loaded into the
    /// registry ([`crate::catalog`]). The graph explorer answers it, or the
    /// candidate explorer when it allows a `po ∪ rf` cycle.
    Cat(CatId),
}

/// A model given as data's number ([`crate::catalog`] loads the files; this
/// module keeps their rows, as it keeps the built-in ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CatId(pub u16);

/// The rows of the models given as data, by [`CatId`] (never removed: a
/// `&'static` row is handed out).
static CAT_ROWS: std::sync::RwLock<Vec<&'static Spec>> = std::sync::RwLock::new(Vec::new());

fn cat_rows() -> std::sync::RwLockReadGuard<'static, Vec<&'static Spec>> {
    CAT_ROWS.read().unwrap_or_else(|e| e.into_inner())
}

/// Add the row of a model given as data, named `name` (unique: the
/// caller checks), that no machine runs; `None` when 127 are loaded.
pub(crate) fn add_cat_row(name: &'static str, graphs: bool) -> Option<Model> {
    let mut rows = CAT_ROWS.write().unwrap_or_else(|e| e.into_inner());
    let id = CatId(u16::try_from(rows.len()).ok().filter(|&n| n < 127)?);
    let spec = Spec {
        model: Model::Cat(id),
        name,
        upper: name,
        buffers: Buffers::Axiomatic,
        histories: false,
        monitored: false,
        sober: false,
        graphs,
        attacks: false,
        default: false,
        cpu: None,
        definition: None,
    };
    rows.push(Box::leak(Box::new(spec)));
    Some(Model::Cat(id))
}

/// How a model's stores travel to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffers {
    /// Straight to memory (SC).
    None,
    /// Through one FIFO buffer per thread, across cells (TSO).
    PerThread,
    /// Through one buffer per (thread, cell) (PSO).
    PerCell,
    /// No machine: an axiomatic model (a `.cat` file) judges whole graphs.
    /// In a witness a write still has an event for its execution and one
    /// for its place in coherence (its commit).
    Axiomatic,
}

/// An access, as a model's reordering rule sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    /// An atomic read-modify-write.
    Update,
}

/// One model, as data: its semantics (buffers, histories) and which
/// engines decide it.
struct Spec {
    model: Model,
    name: &'static str,
    upper: &'static str,
    buffers: Buffers,
    /// Per-thread store histories, from which loads may read older values.
    histories: bool,
    /// The online monitors (BSS) decide its robustness from SC executions;
    /// otherwise its own executions are explored ([`crate::explicit`]).
    monitored: bool,
    /// Sober's monitor applies to it (else Sober falls back to BSS).
    sober: bool,
    /// The execution-graph explorer explores it.
    graphs: bool,
    /// The attacks of the unbounded procedure decide its robustness.
    attacks: bool,
    /// Checked when no model is named (SC and the hardware models).
    default: bool,
    /// The architecture whose CPUs implement it, as `litmus run` names it.
    cpu: Option<&'static str>,
    /// Its definition as data (an embedded `.cat` file,
    /// `litmus_cat::stock`), where it has one: what answers a program no
    /// machine runs (one with a store-conditional).
    definition: Option<&'static str>,
}

// Row i is the model whose discriminant is i ([`Model::spec`] indexes it).
const _: () = {
    let mut i = 0;
    while i < SPECS.len() {
        assert!(SPECS[i].model.code() as usize == i, "SPECS must list the models in declaration order");
        i += 1;
    }
};

#[rustfmt::skip]
const SPECS: &[Spec] = &[
    Spec { model: Model::Sc, name: "sc", upper: "SC", buffers: Buffers::None, histories: false, monitored: false, sober: false, graphs: true, attacks: false, default: true, cpu: None, definition: Some("sc-rmw.cat") },
    Spec { model: Model::Tso, name: "tso", upper: "TSO", buffers: Buffers::PerThread, histories: false, monitored: true, sober: true, graphs: true, attacks: true, default: true, cpu: Some("x86-64"), definition: None },
    Spec { model: Model::Pso, name: "pso", upper: "PSO", buffers: Buffers::PerCell, histories: false, monitored: true, sober: false, graphs: true, attacks: true, default: true, cpu: None, definition: None },
    Spec { model: Model::Pslo, name: "pslo", upper: "PSLO", buffers: Buffers::PerCell, histories: true, monitored: false, sober: false, graphs: false, attacks: false, default: false, cpu: None, definition: None },
    #[cfg(feature = "extra-model")]
    Spec { model: Model::Xtso, name: "xtso", upper: "XTSO", buffers: Buffers::PerThread, histories: false, monitored: false, sober: false, graphs: false, attacks: false, default: false, cpu: None, definition: None },
];

impl Model {
    /// Every model, in the order reports list them.
    pub const ALL: [Model; SPECS.len()] = {
        let mut all = [Model::Sc; SPECS.len()];
        let mut i = 0;
        while i < SPECS.len() {
            all[i] = SPECS[i].model;
            i += 1;
        }
        all
    };

    /// The models checked when none are named, in order.
    pub fn defaults() -> Vec<Model> {
        SPECS.iter().filter(|s| s.default).map(|s| s.model).collect()
    }

    /// The model of an architecture's CPUs (`x86-64`: TSO), if it has one.
    pub fn of_cpu(arch: &str) -> Option<Model> {
        SPECS.iter().find(|s| s.cpu == Some(arch)).map(|s| s.model)
    }

    /// Its row: asked on the interpreter's hot path, so an index, not a
    /// search (`SPECS` lists the models in declaration order, checked below).
    fn spec(self) -> &'static Spec {
        match self {
            Model::Cat(id) => cat_rows()[id.0 as usize],
            _ => &SPECS[self.code() as usize],
        }
    }

    /// A small number naming the model within this process (progress
    /// reports pack it in a byte): a built-in model's row, or 128 + a
    /// `.cat` model's registry number.
    pub const fn code(self) -> u32 {
        match self {
            Model::Sc => 0,
            Model::Tso => 1,
            Model::Pso => 2,
            Model::Pslo => 3,
            #[cfg(feature = "extra-model")]
            Model::Xtso => 4,
            Model::Cat(id) => 128 + id.0 as u32,
        }
    }

    /// The model of a [`Model::code`].
    pub fn from_code(code: u32) -> Option<Model> {
        match code {
            0..128 => Model::ALL.get(code as usize).copied(),
            _ => (code - 128 < cat_rows().len() as u32).then_some(Model::Cat(CatId((code - 128) as u16))),
        }
    }

    /// A model given as data (a `.cat` file): judged by its axioms on whole
    /// graphs, with no machine to run.
    pub fn is_axiomatic(self) -> bool {
        self.buffers() == Buffers::Axiomatic
    }

    /// The machine whose steps interpret its threads in witnesses: its
    /// own, or SC's for a model with none (its graphs' threads run on SC's
    /// interpreter; the axioms decide which graphs exist).
    pub fn interpreter(self) -> Model {
        if self.is_axiomatic() {
            Model::Sc
        } else {
            self
        }
    }

    /// Which engines answer it beyond outcomes and robustness: the fence
    /// search, harm by the model's own executions, active testing (all run
    /// the model's machine).
    pub fn has_machine(self) -> bool {
        !self.is_axiomatic()
    }

    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    pub fn upper(self) -> &'static str {
        self.spec().upper
    }

    /// How its stores travel.
    pub fn buffers(self) -> Buffers {
        self.spec().buffers
    }

    /// Do stores go through a buffer (a commit of their own), or straight
    /// to memory (SC)?
    pub fn buffered(self) -> bool {
        self.buffers() != Buffers::None
    }

    /// The reference model, against which the others are judged (SC).
    pub fn is_reference(self) -> bool {
        !self.buffered()
    }

    /// One buffer per (thread, cell): PSO and PSLO.
    pub fn per_cell_buffers(self) -> bool {
        self.buffers() == Buffers::PerCell
    }

    /// One FIFO buffer per thread, across cells: TSO.
    pub fn one_buffer_per_thread(self) -> bool {
        self.buffers() == Buffers::PerThread
    }

    /// Per-thread store histories, from which loads may read older values.
    pub fn has_histories(self) -> bool {
        self.spec().histories
    }

    /// The online monitors decide its robustness from SC executions.
    pub fn monitored(self) -> bool {
        self.spec().monitored
    }

    /// Sober's monitor applies to it (TSO).
    pub fn sober(self) -> bool {
        self.spec().sober
    }

    /// The embedded `.cat` file that defines a built-in model, if one
    /// does (SC's is herd's `sc.cat` with atomics indivisible).
    pub fn definition(self) -> Option<&'static str> {
        self.spec().definition
    }

    /// The execution-graph explorer explores it.
    pub fn by_graphs(self) -> bool {
        self.spec().graphs
    }

    /// The unbounded procedure's attacks decide its robustness.
    pub fn decided_by_attacks(self) -> bool {
        self.spec().attacks
    }

    /// Does a fence of this kind drain the thread's buffers? A FIFO buffer
    /// holds stores to every cell: only a fence that orders stores before
    /// loads drains it; per-cell buffers are drained by every fence that
    /// orders stores.
    pub fn drains(self, kind: FenceKind) -> bool {
        match self.buffers() {
            Buffers::None | Buffers::Axiomatic => false,
            Buffers::PerThread => kind.orders(true, false),
            Buffers::PerCell => kind.orders(true, false) || kind.orders(true, true),
        }
    }

    /// Does a fence of this kind reset the thread's load histories (`rr`,
    /// `wr` and `full`)?
    pub fn resets(self, kind: FenceKind) -> bool {
        self.has_histories() && kind != FenceKind::WW
    }

    /// Is an atomic with these labels a full fence: does it wait for every
    /// buffer of its thread to drain and for every history to hold one
    /// value (and not only its own cell's)? herd's locked x86 instructions
    /// (`X`) are, under every model; other atomics order their own cell.
    pub fn rmw_is_full_fence(self, labels: Labels) -> bool {
        labels.contains(Labels::X)
    }

    /// Does an atomic with these labels drain every buffer of its thread
    /// (not only its own cell's)? With one buffer per thread, every atomic;
    /// with per-cell buffers a full fence only ([`Model::rmw_is_full_fence`];
    /// a native atomic drains its own cell's).
    pub fn atomic_drains_all(self, labels: Labels) -> bool {
        self.buffered() && (self.one_buffer_per_thread() || self.rmw_is_full_fence(labels))
    }

    /// May `later` take effect before `earlier`, an access of the same
    /// thread on another cell? A buffered store may be overtaken by a load
    /// (and, in per-cell buffers, by a store or a native atomic); with
    /// histories a load may also read an older value than an earlier load
    /// or atomic saw. A store never overtakes a load.
    pub fn reorders(self, earlier: Access, later: Access) -> bool {
        let buffer = match self.buffers() {
            Buffers::None => false,
            // Without asking its axioms: any pair may be.
            Buffers::Axiomatic => true,
            Buffers::PerThread => earlier == Access::Write && later == Access::Read,
            Buffers::PerCell => earlier == Access::Write,
        };
        buffer || (self.has_histories() && later == Access::Read)
    }

    /// The weakest fence that keeps `later` after `earlier` (a pair this
    /// model reorders): `ww` between two stores, `rr` between two loads
    /// where `rr` drains or resets what reorders them, else `wr`.
    pub fn weakest_fence(self, earlier: Access, later: Access) -> FenceKind {
        match (earlier, later) {
            (Access::Write, Access::Write | Access::Update) if self.drains(FenceKind::WW) => FenceKind::WW,
            (Access::Read | Access::Update, Access::Read) if self.resets(FenceKind::RR) => FenceKind::RR,
            _ if self.is_axiomatic() => FenceKind::Full,
            _ => FenceKind::WR,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queries agree with each other on every model and fence kind.
    #[test]
    fn queries_are_consistent() {
        for m in Model::ALL {
            assert_eq!(m.buffered(), m.per_cell_buffers() || m.one_buffer_per_thread());
            assert_eq!(Model::ALL.iter().filter(|o| o.as_str() == m.as_str()).count(), 1, "names are unique");
            for k in [FenceKind::Full, FenceKind::WW, FenceKind::WR, FenceKind::RR] {
                // Nothing to drain or reset without buffers.
                assert!(m.buffered() || !(m.drains(k) || m.resets(k)));
                // A full fence does everything a weaker one does.
                assert!(m.drains(FenceKind::Full) || !m.drains(k));
                assert!(m.resets(FenceKind::Full) || !m.resets(k));
            }
            assert_eq!(m.reorders(Access::Write, Access::Read), m.buffered());
            // A locked x86 atomic drains every buffer; an unlabelled one
            // every buffer only where there is one per thread.
            assert!(m.rmw_is_full_fence(Labels::X) && !m.rmw_is_full_fence(Labels::NONE));
            assert_eq!(m.atomic_drains_all(Labels::X), m.buffered());
            assert_eq!(m.atomic_drains_all(Labels::NONE), m.one_buffer_per_thread());
            // A monitored model is one whose buffers the monitors simulate.
            assert!(!m.monitored() || (m.buffered() && !m.has_histories()));
        }
        // A herd x86 test's defaults: SC and the x86 CPUs' model.
        use litmus_ir::Dialect;
        assert_eq!(crate::catalog::defaults_for(Dialect::HerdX86), [Model::Sc, Model::Tso]);
        assert_eq!(crate::catalog::defaults_for(Dialect::Native), Model::defaults());
    }

    /// The weakest fence between a reordered pair is one that orders it.
    #[test]
    fn the_weakest_fence_drains_or_resets_what_reorders() {
        use Access::*;
        for m in Model::ALL {
            for (a, b) in [(Write, Read), (Write, Write), (Write, Update), (Read, Read), (Update, Read)] {
                if !m.reorders(a, b) {
                    continue;
                }
                let k = m.weakest_fence(a, b);
                assert!(m.drains(k) || m.resets(k), "{m:?}: {k:?} between {a:?} and {b:?}");
            }
        }
    }
}
