//! What the checker says about a program's robustness, as data: a
//! violation (its cycle, witness, harm and fence candidates), a model's
//! robustness, the fences chosen. The searches that fill them in live above
//! ([`crate::robust`], [`crate::explicit`], [`crate::unbounded`],
//! [`crate::harm`], [`crate::fences`]); this module imports none of them.

use crate::certainty::{Answer, Coverage, Why};
use crate::machine::{Event, Model};
use crate::monitor::MonitorKind;
use crate::trace::Edge;
use crate::witness::RelaxedWitness;
use litmus_dsl::edit::FenceInsertion;
use litmus_ir::{FenceKind, StmtId};

/// One statement of a cycle and the edge leaving it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CycleStep {
    pub thread: u16,
    pub stmt: StmtId,
    pub edge: Edge,
}

/// A fence to insert at a place of a statement of a thread (after it,
/// before it, at a loop's head).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FencePoint {
    pub thread: u16,
    pub stmt: StmtId,
    pub kind: FenceKind,
    pub place: litmus_ir::Place,
}

/// Where a fence can go: a place of a statement. Mostly right after one;
/// right before the access when what precedes it in its thread is a reduced
/// spin, which no fence can follow from inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Spot {
    pub stmt: StmtId,
    pub place: litmus_ir::Place,
}

impl Spot {
    pub fn after(stmt: StmtId) -> Spot {
        Spot { stmt, place: litmus_ir::Place::After }
    }

    pub fn before(stmt: StmtId) -> Spot {
        Spot { stmt, place: litmus_ir::Place::Before }
    }
}

/// The fence insertions for the source editor (and the IR).
pub fn insertions(fences: &[FencePoint]) -> Vec<FenceInsertion> {
    fences.iter().map(|f| FenceInsertion { stmt: f.stmt, kind: f.kind, place: f.place }).collect()
}

impl FencePoint {
    pub fn spot(&self) -> Spot {
        Spot { stmt: self.stmt, place: self.place }
    }
}

/// Where a fence orders `thread`'s events of `log[from..to]` before
/// `log[to]`: after each statement of the stretch that falls through and,
/// when part of it is a reduced spin (one attempt: no fence goes inside
/// it), right before `log[to]`. Never empty: after `log[from]` at worst.
pub(crate) fn fence_spots(
    prog: &litmus_ir::Program,
    log: &[crate::machine::Event],
    thread: u16,
    from: u32,
    to: u32,
    kind: FenceKind,
) -> Vec<(Spot, FenceKind)> {
    use crate::machine::EventKind;
    let mut out: Vec<(Spot, FenceKind)> = Vec::new();
    let mut in_spin = false;
    for f in &log[from as usize..to as usize] {
        if f.thread != thread || matches!(f.kind, EventKind::Commit | EventKind::Fence(_)) {
            continue;
        }
        if !prog.fenceable(f.stmt) {
            in_spin = true;
        } else if !out.iter().any(|c| c.0.stmt == f.stmt) {
            out.push((Spot::after(f.stmt), kind));
        }
    }
    let last = log.get(to as usize).filter(|e| e.thread == thread);
    if let Some(e) = last.filter(|e| in_spin && prog.fence_place_ok(e.stmt, litmus_ir::Place::Before)) {
        out.push((Spot::before(e.stmt), kind));
    }
    if out.is_empty() {
        out.push((Spot::after(log[from as usize].stmt), kind));
    }
    out
}

#[derive(Clone, Debug)]
pub struct Violation {
    pub model: Model,
    /// The delayed store and the access that overtakes it.
    pub store_stmt: StmtId,
    pub access_stmt: StmtId,
    pub cycle: Vec<CycleStep>,
    pub witness: RelaxedWitness,
    /// The SC execution the monitor flagged, up to the access (PSLO, found
    /// by explicit exploration: the witness up to the later access).
    pub sc_events: Vec<Event>,
    /// Whether some execution of the model exhibiting this violation fails
    /// an assertion or changes the final condition's answer.
    pub harm: Answer<Harm>,
    /// Times the monitor signalled this pair (once per distinct SC prefix).
    pub occurrences: u64,
    /// Fence positions that each remove this violation, and the weakest
    /// kind that does there (`ww`: a store overtaken by a store under
    /// PSO/PSLO; `rr`: a load by a load under PSLO; else `wr`).
    pub candidates: Vec<(Spot, FenceKind)>,
    /// The fence, of the minimal set, that removes this violation.
    pub fence: Vec<FencePoint>,
    /// The attack behind it, when the unbounded procedure found it.
    pub attack: Option<AttackId>,
    /// Named from whole candidate executions ([`crate::candidates`]): what
    /// the violating candidates came to, from which its harm is judged (no
    /// machine continues its witness).
    pub finals: Option<std::sync::Arc<Finals>>,
}

/// What the candidates exhibiting one violation came to: the first that
/// failed (its statement), the first whose final state satisfies the
/// condition, the first that does not (each with its witness log), and
/// how far the search for them went.
#[derive(Clone, Debug)]
pub struct Finals {
    pub fails: Option<(StmtId, Vec<Event>)>,
    pub holds: Option<Vec<Event>>,
    pub fails_condition: Option<Vec<Event>>,
    /// The model's own orders on the witness's cycle, by the name of the
    /// axiom that tests each (`external`: ARM's `ob`): per step of
    /// `witness.cycle`, whether that order keeps the edge leaving it. An
    /// order keeping every edge but some would forbid the execution once
    /// those are ordered too: what a repair adds.
    pub axioms: Vec<CycleOrder>,
    pub coverage: Coverage,
}

/// One of the model's orders on a violation's cycle: the axiom testing it
/// (`external`), whether a cycle of its steps fails that axiom (an
/// `acyclic` check, or an `irreflexive` one of a transitive relation:
/// [`litmus_cat::eval::Order::closed`]), and, per step, whether the order
/// keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleOrder {
    pub name: String,
    pub closed: bool,
    pub kept: Vec<bool>,
}

impl CycleOrder {
    /// Whether ordering the steps it misses would forbid the execution:
    /// a cycle of its order fails its check ([`Self::closed`]) and each
    /// step it misses is a po step, the kind a barrier or a stronger
    /// access can order (a missing co or fr says nothing of the sort).
    pub fn forbids_once_ordered(&self, cycle: &[(u32, Edge)]) -> bool {
        self.closed && self.kept.iter().zip(cycle).all(|(&kept, step)| kept || step.1 == Edge::Po)
    }
}

impl Finals {
    /// The harm, given SC's answer to the condition: a failure is harm; a
    /// final state is harm when it changes SC's answer (SC never / always
    /// satisfies the condition); benign when no candidate did either and
    /// every candidate was judged (worth that search and SC's answer).
    pub fn harm(&self, has_condition: bool, sc: Option<&Answer<crate::outcome::Observation>>) -> Answer<Harm> {
        if let Some((stmt, events)) = &self.fails {
            return Answer::Proved(Harm::Fails { stmt: *stmt, events: events.clone() });
        }
        if !has_condition {
            return self.coverage.answer(Harm::Benign);
        }
        let Some(sc) = sc else { return Answer::Unknown(Why::Pending) };
        let Some(obs) = sc.value() else { return Answer::Unknown(Why::Pending) };
        for (holds, w) in [(true, &self.holds), (false, &self.fails_condition)] {
            if let Some(events) = w.as_ref().filter(|_| obs.changed_by(holds)) {
                // Worth SC's answer: proved if SC's was, within its bounds if not.
                return sc.coverage().answer(Harm::ChangesCondition { events: events.clone() });
            }
        }
        self.coverage.and(sc.coverage()).answer(Harm::Benign)
    }
}

impl Violation {
    /// The statement pair that names it.
    pub fn key(&self) -> (StmtId, StmtId) {
        (self.store_stmt, self.access_stmt)
    }

    /// The statement the store is delayed past: the next step of the cycle
    /// in its thread.
    pub fn delayed_past(&self) -> StmtId {
        self.cycle.get(1).filter(|s| s.thread == self.cycle[0].thread).map(|s| s.stmt).unwrap_or(self.access_stmt)
    }

    /// The model's orders worth telling on the witness's cycle: those that
    /// keep some of its steps but not all, where what they miss can be
    /// added (a po step: a barrier or a stronger access; an rf: made
    /// synchronizing). Each is the axiom's name and, per step, whether its
    /// order keeps it ([`Finals::axioms`]).
    pub fn telling_axioms(&self) -> impl Iterator<Item = &CycleOrder> {
        let cycle = &self.witness.cycle;
        let k = cycle.len();
        let addable = move |j: usize| matches!(cycle[j].1, Edge::Po | Edge::Rf);
        self.finals
            .iter()
            .flat_map(|f| f.axioms.iter())
            .filter(move |o| o.kept.len() == k && (0..k).any(|j| !o.kept[j] && addable(j)))
    }
}

#[derive(Clone, Debug)]
pub struct Robustness {
    pub model: Model,
    pub monitor: MonitorKind,
    pub violations: Vec<Violation>,
    /// Statement pairs the monitor signalled but for which no witness
    /// replayed to a cyclic trace (never shown as violations; while any
    /// remain, robustness is unknown).
    pub unconfirmed: Vec<(StmtId, StmtId)>,
    /// A minimal set of fences making the program robust (empty if robust).
    pub fences: Vec<FencePoint>,
    /// Under a model its whole candidates decide: a cheapest set of
    /// changes making it robust ([`crate::repair`]); `fences_confirmed` and
    /// `fences_minimal` say what its re-check and search earned.
    pub repairs: Vec<Repair>,
    /// Whether the fenced program was re-checked robust (`Pending` until
    /// the fences are chosen).
    pub fences_confirmed: Answer<bool>,
    /// The fences are a minimum set (false: the hitting-set search ran out
    /// of budget and a greedy set was taken).
    pub fences_minimal: bool,
    /// Violations the monitor did not signal, found by exploring the
    /// model's own executions where the monitor is not complete for it
    /// ([`MonitorKind::complete_for`]); they are among `violations`.
    pub missed_by_monitor: Vec<(StmtId, StmtId)>,
    /// How far the SC exploration the monitors rode on went (and the
    /// model's own, where it was explored too).
    pub coverage: Coverage,
    /// Whether the answer holds for every iteration (attacks decided it)
    /// or why the unbounded procedure could not decide it.
    pub iterations: crate::certainty::Iterations,
}

impl Robustness {
    /// What a search found (fences not chosen yet, nothing missed, the
    /// iterations the bounds allow).
    pub fn found(
        model: Model,
        monitor: MonitorKind,
        violations: Vec<Violation>,
        unconfirmed: Vec<(StmtId, StmtId)>,
        coverage: Coverage,
    ) -> Robustness {
        Robustness {
            model,
            monitor,
            violations,
            unconfirmed,
            fences: Vec::new(),
            repairs: Vec::new(),
            fences_confirmed: Answer::Unknown(Why::Pending),
            fences_minimal: true,
            missed_by_monitor: Vec::new(),
            coverage,
            iterations: Default::default(),
        }
    }

    /// No execution of the model has a trace with an hb cycle. A witnessed
    /// violation proves "no"; "yes" needs every signal accounted for and is
    /// worth what the SC exploration was.
    pub fn robust(&self) -> Answer<bool> {
        if !self.violations.is_empty() {
            Answer::Proved(false)
        } else if !self.unconfirmed.is_empty() {
            Answer::Unknown(Why::Unconfirmed(self.unconfirmed.len() as u64))
        } else {
            self.coverage.answer(true)
        }
    }
}

/// Robust under every model at once: a witnessed violation anywhere says no;
/// otherwise any unknown answer makes the whole unknown; else the weakest.
pub fn all_robust(rbs: &[Robustness]) -> Answer<bool> {
    all_robust_answers(rbs.iter().map(|r| r.robust()).collect())
}

/// [`all_robust`], from each model's answer.
pub fn all_robust_answers(answers: Vec<Answer<bool>>) -> Answer<bool> {
    if answers.iter().any(|a| a.is(&false)) {
        return Answer::Proved(false);
    }
    answers.iter().fold(Coverage::Complete, |c, a| c.and(a.coverage())).answer(true)
}

#[derive(Clone, Debug)]
pub enum Harm {
    /// An execution exhibiting the violation fails this statement (an
    /// assertion or run-time error); `events` is that execution.
    Fails { stmt: StmtId, events: Vec<Event> },
    /// An execution exhibiting the violation reaches a final state that
    /// changes the final condition's answer with respect to SC.
    ChangesCondition { events: Vec<Event> },
    /// No execution exhibiting it does either.
    Benign,
}

impl Harm {
    pub fn is_harmful(&self) -> bool {
        matches!(self, Harm::Fails { .. } | Harm::ChangesCondition { .. })
    }
}

/// One change of a repair: a barrier at a place of a statement, or the
/// statement's access given other labels (LDR → LDAR, relaxed → acquire).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Change {
    Fence { place: litmus_ir::Place, kind: FenceKind },
    Labels { from: litmus_ir::Labels, to: litmus_ir::Labels },
}

/// A change at a statement of a thread, with its cost
/// ([`crate::repair::menu`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Repair {
    pub thread: u16,
    pub stmt: StmtId,
    pub change: Change,
    pub cost: u32,
}

/// Fences chosen for a program, and what their re-check earned.
#[derive(Clone, Debug)]
pub struct FenceFix {
    pub fences: Vec<FencePoint>,
    /// The fenced program is robust under every model: `true` proved or
    /// within bounds; `false` when a (witnessed) violation remains;
    /// unknown when the re-check did not finish.
    pub confirmed: Answer<bool>,
    /// The set is a minimum one (the hitting-set search was exhaustive).
    pub minimal: bool,
}

/// One feasible attack: the attacker delays its store at `w_pc` past its
/// access at `r_pc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttackId {
    pub model: Model,
    pub attacker: u16,
    pub w_pc: u32,
    pub r_pc: u32,
}
