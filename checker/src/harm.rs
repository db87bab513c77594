//! Harm: a violation is harmful when *some execution of the model that
//! exhibits it* fails an assertion (or a run-time check) or reaches a final
//! state that changes the final condition's answer with respect to SC. It
//! is benign when the model's executions were all explored and none did —
//! an answer worth what that search (and SC's answer) was.
//!
//! An execution exhibits violation (s, a) when its trace has a store S of
//! statement s and an access A of statement a that lie on a common hb cycle
//! (one strongly connected component of po ∪ rf ∪ co ∪ fr), A touching S's
//! location before S takes effect (A is fr- or co-before S) — the monitors'
//! notion, read off the trace.
//!
//! Two searches decide it: a quick one continues the violation's own witness
//! (a bounded number of executions; it can only find harm), and the full one
//! rides along the model's outcome exploration and settles the rest.

use crate::certainty::{Answer, Coverage, Why};
use crate::dpor::{Control, ExecKind, Execution, Explorer, Limits};
use crate::machine::{Event, EventKind, Machine, Model, State, ThreadStatus, NONE};
use crate::options::Options;
use crate::outcome::{Final, Observation};
use crate::trace::{Edge, Trace};
use crate::violation::Harm;
use crate::violation::Violation;
use litmus_ir::{Program, StmtId};
use std::collections::HashMap;

/// Nothing can harm this program: no instruction can fail (see
/// [`cannot_fail`]) and no final state can change the condition's answer —
/// there is no condition, or SC already answers `sometimes` (which no
/// relaxed final state can change). Every violation is then benign
/// outright: no search needed.
pub fn harmless(prog: &Program, sc: Option<&Answer<Observation>>) -> bool {
    cannot_fail(prog) && (prog.condition.is_none() || matches!(sc, Some(Answer::Proved(Observation::Sometimes))))
}

/// No instruction of the program can fail: no assertion, no division by a
/// value that may be zero, no computed or indexed address.
pub fn cannot_fail(prog: &Program) -> bool {
    use litmus_ir::{Addr, BinOp, Instr, Operand};
    let checked = |a: &Addr| !matches!(a, Addr::Fixed(_));
    prog.threads.iter().flat_map(|t| &t.code).all(|i| match i {
        Instr::Assert { .. } => false,
        Instr::Bin { op: BinOp::Div | BinOp::Rem, b, .. } => matches!(b, Operand::Imm(v) if *v != 0),
        Instr::Load { addr, .. }
        | Instr::Store { addr, .. }
        | Instr::Rmw { addr, .. }
        | Instr::StoreCond { addr, .. } => !checked(addr),
        // Its second access may lie past every location.
        Instr::Pair { .. } => false,
        _ => true,
    })
}

/// Is this answer a harm found by an execution (as opposed to benign or unknown)?
pub fn harmful(a: &Answer<Harm>) -> bool {
    a.value().is_some_and(|h| h.is_harmful())
}

/// The statement pairs of `keys` that an execution of `model` exhibits
/// (PSLO's pairs are po pairs of the cycle: see [`crate::explicit`]).
pub fn exhibited(model: Model, log: &[Event], keys: &[(StmtId, StmtId)]) -> Vec<bool> {
    if model.has_histories() {
        return crate::explicit::exhibited(log, keys);
    }
    let trace = Trace::of(log);
    let comp = trace.components();
    // When each event takes effect: a buffered store at its commit.
    let mut effect: Vec<u32> = (0..log.len() as u32).collect();
    for (i, e) in log.iter().enumerate() {
        if e.kind == EventKind::Commit && e.store != NONE {
            effect[e.store as usize] = i as u32;
        }
    }
    let mut at: HashMap<StmtId, Vec<usize>> = HashMap::new();
    for (k, &i) in trace.events.iter().enumerate() {
        at.entry(log[i as usize].stmt).or_default().push(k);
    }
    let none = Vec::new();
    keys.iter()
        .map(|&(s, a)| {
            let stores = at.get(&s).unwrap_or(&none);
            let accesses = at.get(&a).unwrap_or(&none);
            stores.iter().any(|&ks| {
                let si = trace.events[ks];
                log[si as usize].kind == EventKind::Store
                    && accesses.iter().any(|&ka| {
                        let ai = trace.events[ka];
                        ka != ks && comp[ka] == comp[ks] && effect[ai as usize] < effect[si as usize]
                    })
            })
        })
        .collect()
}

/// What makes one finished execution harmful, before asking which
/// violations it exhibits.
enum Damage {
    Fails(StmtId),
    Changes,
    /// A final state that would change SC's answer, were it known.
    MaybeChanges,
}

struct Judge<'a, 'p> {
    prog: &'p Program,
    machine: &'a Machine<'p>,
    /// SC's answer to the final condition (harm by condition is worth what it is).
    sc: Option<&'a Answer<Observation>>,
}

impl Judge<'_, '_> {
    fn damage(&self, e: &Execution<'_>) -> Option<Damage> {
        self.damage_of(e.kind, e.state)
    }

    /// The same, from how the execution ended and its final state.
    fn damage_of(&self, kind: ExecKind, state: &State) -> Option<Damage> {
        match kind {
            ExecKind::Failed => state.threads.iter().find_map(|t| match *t {
                ThreadStatus::Failed { stmt, .. } => Some(Damage::Fails(stmt)),
                _ => None,
            }),
            ExecKind::Complete => {
                let Final::State { satisfies: Some(holds), .. } = Final::of(self.prog, self.machine, state) else {
                    return None;
                };
                match self.sc? {
                    Answer::Unknown(_) => Some(Damage::MaybeChanges),
                    sc => sc.value().is_some_and(|o| o.changed_by(holds)).then_some(Damage::Changes),
                }
            }
            _ => None,
        }
    }

    /// The harm an exhibiting execution with this damage proves (`None`:
    /// it cannot be judged — SC's answer is unknown).
    fn harm(&self, d: &Damage, events: &[Event]) -> Option<Answer<Harm>> {
        match *d {
            Damage::Fails(stmt) => Some(Answer::Proved(Harm::Fails { stmt, events: events.to_vec() })),
            Damage::Changes => {
                let sc = self.sc.map(|a| a.coverage()).unwrap_or(Coverage::Complete);
                Some(sc.answer(Harm::ChangesCondition { events: events.to_vec() }))
            }
            Damage::MaybeChanges => None,
        }
    }

    /// What "benign" is worth after a search of this coverage: no more than
    /// SC's answer it was compared with, when there is a condition.
    fn benign(&self, search: Coverage) -> Answer<Harm> {
        let sc = match (&self.prog.condition, self.sc) {
            (Some(_), Some(a)) => a.coverage(),
            (Some(_), None) => Coverage::Stopped(Why::Pending),
            (None, _) => Coverage::Complete,
        };
        search.and(sc).answer(Harm::Benign)
    }
}

/// Harm settled from a model's whole outcome (its states explored for
/// every iteration, `crate::unbounded::relaxed`): when no execution of the
/// model fails and none reaches a final state that changes SC's answer,
/// no execution exhibiting a violation does — every undecided violation is
/// benign, worth what that search and SC's answer were. `false`: some
/// execution fails or may change the answer, and the executions exhibiting
/// each violation must be looked at (the bounded harm search).
pub fn benign_from_outcome(
    prog: &Program,
    outcome: &crate::outcome::ModelOutcome,
    sc: Option<&Answer<Observation>>,
    violations: &mut [Violation],
) -> bool {
    if !outcome.failures.is_empty() || !outcome.condition_errors.is_empty() {
        return false;
    }
    if prog.condition.is_some() {
        let Some(obs) = sc.and_then(|a| a.value()) else { return false };
        if outcome.states.iter().any(|s| s.satisfies.is_some_and(|holds| obs.changed_by(holds))) {
            return false;
        }
    }
    let sc_cov = match (&prog.condition, sc) {
        (Some(_), Some(a)) => a.coverage(),
        (Some(_), None) => Coverage::Stopped(Why::Pending),
        (None, _) => Coverage::Complete,
    };
    for v in violations.iter_mut().filter(|v| matches!(v.harm, Answer::Unknown(Why::Pending))) {
        v.harm = outcome.coverage.and(sc_cov).answer(Harm::Benign);
    }
    true
}

/// Executions of the quick search per violation: enough for the common case
/// (the witness's own continuations), small enough to keep the editor fast.
const QUICK_EXECUTIONS: u64 = 2_000;

/// The quick search: continue the violation's witness. Returns a harm it
/// finds (every continuation exhibits the violation: the store is still
/// pending after the access — and it is checked on the trace anyway).
pub fn quick_harm(
    prog: &Program,
    v: &Violation,
    sc: Option<&Answer<Observation>>,
    opts: &Options,
) -> Option<Answer<Harm>> {
    let mut found = None;
    continue_witness(prog, v, sc, opts, |judge, e| {
        if let Some(h) = judge.damage(e).and_then(|d| judge.harm(&d, e.events)) {
            if exhibited(v.model, e.events, &[v.key()])[0] {
                found = Some(h);
                return Control::Stop;
            }
        }
        Control::Continue
    });
    found
}

/// Run `visit` on the first [`QUICK_EXECUTIONS`] continuations of `v`'s
/// witness (its events up to the access, then every way on under its
/// model), with a judge of their harm.
fn continue_witness(
    prog: &Program,
    v: &Violation,
    sc: Option<&Answer<Observation>>,
    opts: &Options,
    mut visit: impl FnMut(&Judge<'_, '_>, &Execution<'_>) -> Control,
) {
    // A whole candidate: no state to continue from (its harm is its
    // candidates', [`crate::violation::Finals`]).
    let Some(state) = &v.witness.state_after_access else { return };
    if v.model.is_axiomatic() {
        // No machine to continue it on: its witness is a whole graph
        // already, judged as such (and by the full search).
        let m = Machine::new(prog, Model::Sc, opts.loop_bound, opts.buffer_bound);
        let judge = Judge { prog, machine: &m, sc };
        let w = &v.witness;
        let kind = ExecKind::of(&m, state);
        visit(&judge, &Execution { kind, events: &w.events, state, schedule: &w.schedule, fresh: 0 });
        return;
    }
    let m = Machine::new(prog, v.model, opts.loop_bound, opts.buffer_bound);
    let judge = Judge { prog, machine: &m, sc };
    let mut ex = Explorer::new(&m);
    let prefix = v.witness.events[..v.witness.before_drain].to_vec();
    let mut seen = 0u64;
    // With `--first` the search still judges the one finding.
    let limits = Limits { budget: opts.budget.without_first(), preemption_bound: None, waits_block: false };
    ex.run_from(state.clone(), prefix, limits, |e| {
        seen += 1;
        match visit(&judge, e) {
            Control::Continue if seen < QUICK_EXECUTIONS => Control::Continue,
            _ => Control::Stop,
        }
    });
}

/// A violation's witness run to the end, for a picture of the whole
/// execution (`litmus explain --whole`, the editor's graph): the witness's
/// events up to the access, then a continuation in which every thread
/// finishes, with the witness's cycle found again in it.
#[derive(Clone, Debug)]
pub struct WholeExecution {
    pub events: Vec<Event>,
    /// The violation's cycle, as indices of `events` (each edge checked on
    /// this execution's trace).
    pub cycle: Vec<(u32, Edge)>,
    /// What this execution does wrong, when it is one that harms: the
    /// continuations searched prefer one that does.
    pub harm: Option<Harm>,
}

/// The whole execution of `v`: among the witness's first continuations
/// (those of the quick harm search), the first that harms, else the first;
/// each must keep the violation and its cycle. `None` when none does
/// (the picture then shows the witness alone).
pub fn whole_execution(
    prog: &Program,
    v: &Violation,
    sc: Option<&Answer<Observation>>,
    opts: &Options,
) -> Option<WholeExecution> {
    let mut found: Option<WholeExecution> = None;
    continue_witness(prog, v, sc, opts, |judge, e| {
        let kept = exhibited(v.model, e.events, &[v.key()])[0];
        if let Some(cycle) = kept.then(|| cycle_in(&v.witness, e.events)).flatten() {
            let harm = judge.damage(e).and_then(|d| judge.harm(&d, e.events)).and_then(|h| match h {
                Answer::Proved(h) | Answer::WithinBounds(h, _) => Some(h),
                Answer::Unknown(_) => None,
            });
            let harms = harm.is_some();
            if harms || found.is_none() {
                found = Some(WholeExecution { events: e.events.to_vec(), cycle, harm });
            }
            if harms {
                return Control::Stop;
            }
        }
        Control::Continue
    });
    found
}

/// The witness's cycle in a continuation of its prefix: the continuation
/// shares the witness's events before the drain, and the cycle's events (of
/// the trace: loads, stores, atomics, never commits) keep their index when
/// they lie there. `None` unless every one does and every edge is one of
/// the continuation's trace (po: a later event of the thread).
fn cycle_in(w: &crate::witness::RelaxedWitness, events: &[Event]) -> Option<Vec<(u32, Edge)>> {
    let shared = w.before_drain as u32;
    let cycle: Vec<(u32, Edge)> =
        w.cycle.iter().map(|&(i, e)| (i < shared).then_some((i, e))).collect::<Option<_>>()?;
    let trace = Trace::of(events);
    let pos = |i: u32| trace.events.iter().position(|&x| x == i);
    for (k, &(a, edge)) in cycle.iter().enumerate() {
        let b = cycle[(k + 1) % cycle.len()].0;
        let (pa, pb) = (pos(a)?, pos(b)?);
        let ok = match edge {
            Edge::Po => events[a as usize].thread == events[b as usize].thread && pa < pb,
            _ => trace.succ[pa].contains(&(pb as u32, edge)),
        };
        if !ok {
            return None;
        }
    }
    Some(cycle)
}

/// Per violation, what the full search has seen.
#[derive(Clone)]
enum Seen {
    Nothing,
    Harm(Answer<Harm>),
    /// An exhibiting execution whose harm depends on SC's unknown answer.
    Undecidable,
}

/// The harm of the violations still pending after a search over executions
/// that left failing attempts waiting ([`HarmSearch::finish`]): judged over
/// every execution of `model`, failed attempts included.
fn judge_every_attempt(
    prog: &Program,
    model: Model,
    opts: &Options,
    sc: Option<&Answer<Observation>>,
    violations: &mut [Violation],
) {
    let machine = Machine::new(prog, model, opts.loop_bound, opts.buffer_bound);
    let mut search = HarmSearch::new(prog, &machine, sc, violations);
    let o = crate::explore::explore_listened(prog, model, opts, &mut crate::dpor::NoListener, |e| search.observe(e));
    search.finish(o.coverage, opts, violations);
}

/// The full search, riding along the model's outcome exploration: every
/// failing or condition-changing execution is asked which of the still
/// undecided violations it exhibits.
pub struct HarmSearch<'a, 'p> {
    judge: Judge<'a, 'p>,
    keys: Vec<(StmtId, StmtId)>,
    seen: Vec<Seen>,
    /// The executions come from a run that left failing `await`/`lock`
    /// attempts waiting ([`crate::dpor::Limits::waits_block`]): none of
    /// them has a failed attempt, which a cycle may go through.
    waited: bool,
    /// Some execution observed did damage.
    damaged: bool,
}

impl<'a, 'p> HarmSearch<'a, 'p> {
    /// Judge `violations` (of the machine's model); harms already proved stay.
    pub fn new(
        prog: &'p Program,
        machine: &'a Machine<'p>,
        sc: Option<&'a Answer<Observation>>,
        violations: &[Violation],
    ) -> Self {
        let keys = violations.iter().map(|v| v.key()).collect();
        let seen = violations
            .iter()
            .map(|v| match &v.harm {
                // Judged on its own candidates: no execution here shows it.
                h if v.finals.is_some() => Seen::Harm(h.clone()),
                // Proved answers (harmful, or benign outright) are settled.
                h if harmful(h) || matches!(h, Answer::Proved(_)) => Seen::Harm(h.clone()),
                _ => Seen::Nothing,
            })
            .collect();
        HarmSearch { judge: Judge { prog, machine, sc }, keys, seen, waited: false, damaged: false }
    }

    /// The executions will come from a run that left failing attempts
    /// waiting (`waited`), or from one that ran every attempt.
    pub fn waited(mut self, waited: bool) -> Self {
        self.waited = waited;
        self
    }

    fn settled(s: &Seen) -> bool {
        matches!(s, Seen::Harm(Answer::Proved(_)))
    }

    /// Is every violation settled (nothing left to observe)?
    pub fn done(&self) -> bool {
        self.seen.iter().all(Self::settled)
    }

    pub fn observe(&mut self, e: &Execution<'_>) {
        if self.done() {
            return;
        }
        let Some(d) = self.judge.damage(e) else { return };
        self.damaged = true;
        let open: Vec<usize> = (0..self.keys.len()).filter(|&i| !Self::settled(&self.seen[i])).collect();
        let keys: Vec<_> = open.iter().map(|&i| self.keys[i]).collect();
        for (&i, hit) in open.iter().zip(exhibited(self.judge.machine.model, e.events, &keys)) {
            if !hit {
                continue;
            }
            match self.judge.harm(&d, e.events) {
                // A proved harm beats one worth only SC's bounded answer.
                Some(h)
                    if matches!(self.seen[i], Seen::Nothing | Seen::Undecidable) || matches!(h, Answer::Proved(_)) =>
                {
                    self.seen[i] = Seen::Harm(h)
                }
                Some(_) => {}
                None if matches!(self.seen[i], Seen::Nothing) => self.seen[i] = Seen::Undecidable,
                None => {}
            }
        }
    }

    /// Would an execution ending this way (`kind`, final `state`) be worth
    /// observing: some violation is unsettled and it does damage?
    pub fn wants(&self, kind: ExecKind, state: &State) -> bool {
        !self.seen.iter().all(Self::settled) && self.judge.damage_of(kind, state).is_some()
    }

    /// Settle every violation: harmful where an execution showed it, else
    /// benign as far as the search (of this coverage) went. Where executions
    /// that left failing attempts waiting did damage but showed a violation
    /// in none, it is judged again over every attempt (`opts`'s bounds:
    /// [`judge_every_attempt`]). (Where none did damage, none with failed
    /// attempts does either: the two runs reach the same failures and final
    /// states.)
    pub fn finish(self, search: Coverage, opts: &Options, violations: &mut [Violation]) {
        let mut left = false;
        for (v, s) in violations.iter_mut().zip(self.seen) {
            v.harm = match s {
                Seen::Harm(h) => h,
                Seen::Undecidable => Answer::Unknown(match self.judge.sc {
                    Some(Answer::Unknown(w)) => *w,
                    _ => Why::Pending,
                }),
                Seen::Nothing if self.waited && self.damaged => {
                    left = true;
                    Answer::Unknown(Why::Pending)
                }
                Seen::Nothing => self.judge.benign(search),
            };
        }
        if left {
            judge_every_attempt(self.judge.prog, self.judge.machine.model, opts, self.judge.sc, violations);
        }
    }
}

impl crate::graph::Observer for HarmSearch<'_, '_> {
    fn wants(&self, kind: ExecKind, state: &State) -> bool {
        HarmSearch::wants(self, kind, state)
    }
    fn observe(&mut self, e: &Execution<'_>) {
        HarmSearch::observe(self, e)
    }
}
