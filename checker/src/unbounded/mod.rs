//! Answers for every iteration: a stateful search of the program's SC
//! states, with Trencher's attacks (Bouajjani, Derevenetc, Meyer, ESOP'13)
//! run in the same state space, decides SC's outcomes, assertions,
//! deadlocks and the final condition, and TSO/PSO robustness — without a
//! loop bound, whenever the state space is finite.
//!
//! - [`flow`]: per-thread tables (liveness, cells still reachable);
//! - [`system`]: the transition system (SC threads, one attacker, helpers);
//! - [`codec`]: a state's key for the visited set;
//! - [`search`]: breadth-first search with partial-order reduction;
//! - [`replay`]: paths to executions — SC witnesses, and each attack as a
//!   real TSO/PSO execution whose trace has the cycle.
//!
//! A search that cannot finish (a state cap, a value that keeps growing,
//! the deadline) proves nothing: its caller falls back to the bounded
//! engine and says why. Everything [`prove`] returns is proved: outcomes
//! and robustness hold for every iteration and every interleaving.

pub mod codec;
pub mod fences;
pub mod flow;
pub mod replay;
pub mod search;
pub mod system;

pub use search::Stop;

use crate::certainty::{Answer, Coverage, Iterations, Why};
use crate::dpor::{ExecKind, Stats};
use crate::machine::{Event, EventKind, FailureKind, Model, ThreadStatus};
use crate::model::Access;
use crate::monitor::MonitorKind;
use crate::options::Options;
use crate::options::StateLimits;
use crate::outcome::{CondError, CondSite, Failure, Final, FinalState, ModelOutcome, Witness};
use crate::reads::Reads;
use crate::violation::AttackId;
use crate::violation::{CycleStep, Robustness, Violation};
use litmus_ir::{Cell, Instr, Program, StmtId};
use search::Visitor;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use system::{Closing, Move, Node, Phase, System};

/// A run of an attack: the search's moves from the initial state to its
/// success.
pub type AttackRun = (AttackId, Vec<Move>);

/// What the unbounded procedure proved about a program.
#[derive(Clone, Debug)]
pub struct Proved {
    /// SC's outcome, complete.
    pub sc: ModelOutcome,
    /// Per relaxed model asked for that attacks decide (TSO, PSO), in order.
    pub robustness: Vec<Robustness>,
    /// The feasible attacks, per model: (model, attacker, pc of `w_A`, pc of
    /// the attack access) — what fences must stop.
    pub attacks: Vec<AttackId>,
    /// A shortest run of each attack (the search's moves to its success):
    /// the fence search reads which places it passes.
    pub runs: Vec<AttackRun>,
    /// States of the search, and the bytes they take (keys, parents, table).
    pub states: u64,
    pub bytes: u64,
    pub elapsed: Duration,
}

/// The models whose robustness attacks decide.
pub fn decides(model: Model) -> bool {
    system::tag_of(model).is_some()
}

/// Does the program loop (so a bounded search could only say "within bounds")?
pub fn loops(prog: &Program) -> bool {
    prog.threads.iter().flat_map(|t| &t.code).any(|i| matches!(i, Instr::LoopEnter { .. }))
}

/// For a loop-free program, a rough count of the SC states its stateful
/// search visits: the product over threads of one plus the fewest accesses
/// a run of the thread makes to cells that another thread also accesses,
/// one of the two writing (every combination of those positions is a state
/// of its own; values and registers only add more). An estimate, not a
/// bound (the reduction may merge some): it decides only whether a
/// stateful try is worth starting, and a loop-free program's bounded
/// answer is exact either way. Saturates at `u64::MAX`.
pub fn shared_positions(prog: &Program) -> u64 {
    use litmus_ir::Addr;
    let cell = |i: &Instr| match i {
        Instr::Load { addr, .. } | Instr::Store { addr, .. } | Instr::Rmw { addr, .. } => Some(match addr {
            Addr::Fixed(c) => Some(*c),
            _ => None,
        }),
        _ => None,
    };
    let writes = |i: &Instr| matches!(i, Instr::Store { .. } | Instr::Rmw { .. });
    // Per thread, the cells it reads and writes (`None`: a computed address).
    let touched: Vec<Vec<(Option<u32>, bool)>> =
        prog.threads.iter().map(|t| t.code.iter().filter_map(|i| cell(i).map(|c| (c, writes(i)))).collect()).collect();
    let shared = |t: usize, c: Option<u32>, w: bool| {
        touched
            .iter()
            .enumerate()
            .any(|(u, acc)| u != t && acc.iter().any(|&(d, dw)| (w || dw) && (c.is_none() || d.is_none() || c == d)))
    };
    let mut product: u64 = 1;
    for (t, th) in prog.threads.iter().enumerate() {
        // The fewest shared accesses from each instruction to the end (the
        // code only jumps forward).
        let n = th.code.len();
        let mut fewest = vec![0u64; n + 1];
        for i in (0..n).rev() {
            let here = match cell(&th.code[i]) {
                Some(c) if shared(t, c, writes(&th.code[i])) => 1,
                _ => 0,
            };
            let next = |k: u32| fewest.get(k as usize).copied().unwrap_or(0);
            fewest[i] = here
                + match th.code[i] {
                    Instr::Jump { target } => next(target),
                    Instr::Branch { target, .. } => next(target).min(fewest[i + 1]),
                    Instr::Halt => 0,
                    _ => fewest[i + 1],
                };
        }
        product = product.saturating_mul(1 + fewest[0]);
    }
    product
}

/// Search the program's SC states, and attacks under each relaxed model
/// of `models` that attacks decide (TSO, PSO).
pub fn prove(prog: &Program, models: &[Model], opts: &Options, limits: &StateLimits) -> Result<Proved, Stop> {
    let start = Instant::now();
    let relaxed: Vec<Model> = models.iter().copied().filter(|&m| decides(m)).collect();
    // Helper sets are one bit per thread.
    if prog.threads.len() > 64 && !relaxed.is_empty() {
        return Err(Stop::Unsupported("more than 64 threads"));
    }
    let sys = System::new(prog, &relaxed);
    let mut c = Collect::new(&sys);
    crate::progress::enter(&opts.budget.progress, crate::progress::Phase::Proving, Some(Model::Sc));
    let (space, result) = search::explore(&sys, limits, opts, &mut c);
    result?;
    let states = space.states() as u64;
    let mut sc = c.outcome(&space, Model::Sc, start);
    let every = Iterations::Every { states, loops: loops(prog) };
    sc.iterations = every.clone();
    let mut robustness = Vec::new();
    let mut attacks = Vec::new();
    for &model in &relaxed {
        let tag = system::tag_of(model).expect("decided");
        let mut violations = Vec::new();
        let mut unconfirmed = Vec::new();
        for (key, f) in c.found.iter().filter(|(k, _)| k.0 == tag) {
            let mut path = space.path(f.from);
            path.push(f.mv);
            match violation(&sys, model, &path, f) {
                Some(v) => violations.push(v),
                None => unconfirmed.push((key.1, key.2)),
            }
        }
        violations.sort_by_key(|v: &Violation| v.key());
        let mut rb = Robustness::found(model, MonitorKind::Attack, violations, unconfirmed, Coverage::Complete);
        rb.iterations = every.clone();
        robustness.push(rb);
        let mut ids: Vec<AttackId> = c.ids.iter().filter(|a| a.model == model).copied().collect();
        ids.sort();
        attacks.extend(ids);
    }
    let runs = c
        .first_runs
        .iter()
        .filter(|(a, _)| relaxed.contains(&a.model))
        .map(|(a, &(from, mv))| {
            let mut path = space.path(from);
            path.push(mv);
            (*a, path)
        })
        .collect();
    Ok(Proved { sc, robustness, attacks, runs, states, bytes: space.bytes() as u64, elapsed: start.elapsed() })
}

/// Only attacks: which ones are feasible (fence searches re-check a fenced
/// program this way). `only`: the one thread allowed to attack.
pub fn feasible_attacks(
    prog: &Program,
    models: &[Model],
    only: Option<u16>,
    opts: &Options,
    limits: &StateLimits,
) -> Result<Vec<AttackId>, Stop> {
    feasible_attacks_from(prog, models, only, None, opts, limits)
}

/// [`feasible_attacks`], starting attacks only at the stores of `stores`
/// ((model tag, statement), sorted): what a fenced program's re-check needs
/// (its attacks are among the unfenced program's).
pub fn feasible_attacks_from(
    prog: &Program,
    models: &[Model],
    only: Option<u16>,
    stores: Option<Vec<(u8, StmtId)>>,
    opts: &Options,
    limits: &StateLimits,
) -> Result<Vec<AttackId>, Stop> {
    let relaxed: Vec<Model> = models.iter().copied().filter(|&m| decides(m)).collect();
    let mut sys = System::new(prog, &relaxed);
    sys.only_attacker = only;
    sys.attack_stores = stores;
    let mut c = Collect::new(&sys);
    c.outcomes = false;
    let (_, result) = search::explore(&sys, limits, opts, &mut c);
    result?;
    let mut ids: Vec<AttackId> = c.ids.into_iter().collect();
    ids.sort();
    Ok(ids)
}

/// A relaxed model's outcome from a stateful search of its own states
/// (store buffers of at most `buffer_bound` stores): proved for every
/// iteration when no store ever waited for room, else within that bound.
pub fn relaxed(
    prog: &Program,
    model: Model,
    buffer_bound: u32,
    opts: &Options,
    limits: &StateLimits,
) -> Result<ModelOutcome, Stop> {
    let start = Instant::now();
    let sys = System::relaxed(prog, model, buffer_bound);
    // The search would stop at the first full buffer: look for one first.
    if limits.stop_at_full_buffer && search::fills_a_buffer(&sys, 2_000) {
        return Err(Stop::BufferBound(buffer_bound));
    }
    let mut c = Collect::new(&sys);
    crate::progress::enter(&opts.budget.progress, crate::progress::Phase::Proving, Some(model));
    let (space, result) = search::explore(&sys, limits, opts, &mut c);
    result?;
    let states = space.states() as u64;
    let mut o = c.outcome(&space, model, start);
    o.iterations = match o.coverage {
        Coverage::Complete => Iterations::Every { states, loops: loops(prog) },
        _ => Iterations::Fallback(format!(
            "{}'s own states explored for every iteration ({} states), with at most {buffer_bound} pending stores per buffer",
            model.upper(),
            crate::progress::thousands(states)
        )),
    };
    Ok(o)
}

/// The outcome of a model the program is robust under, from SC's: the
/// same final states, failures and deadlocks (a robust program's executions
/// all have SC traces), each witness replayed on the model's machine.
/// `None` if a witness does not replay (it always should).
pub fn relaxed_outcome(prog: &Program, sc: &ModelOutcome, model: Model, every: Iterations) -> Option<ModelOutcome> {
    let start = Instant::now();
    let relax = |w: &Witness| replay::relaxed_of_sc(prog, model, &w.schedule);
    let finals = sc
        .states
        .iter()
        .map(|s| Some(FinalState { values: s.values.clone(), satisfies: s.satisfies, witness: relax(&s.witness)?.0 }))
        .collect::<Option<Vec<_>>>()?;
    let failures = sc
        .failures
        .iter()
        .map(|f| {
            let (w, st) = relax(&f.witness)?;
            let at = match st.threads[f.thread as usize] {
                ThreadStatus::Failed { at, .. } => at as usize,
                _ => return None,
            };
            let events = w.events[..at.min(w.events.len())].to_vec();
            let schedule = crate::outcome::failure_prefix(&w.schedule, &events, f.thread);
            Some(Failure { thread: f.thread, stmt: f.stmt, kind: f.kind, witness: Witness { events, schedule } })
        })
        .collect::<Option<Vec<_>>>()?;
    let deadlocks = sc.deadlocks.iter().map(|w| relax(w).map(|r| r.0)).collect::<Option<Vec<_>>>()?;
    let condition_errors = sc
        .condition_errors
        .iter()
        .map(|c| Some(CondError { site: c.site, witness: relax(&c.witness)?.0 }))
        .collect::<Option<Vec<_>>>()?;
    let mut o = ModelOutcome::of(
        prog,
        model,
        finals,
        failures,
        deadlocks,
        condition_errors,
        sc.reads.clone(),
        sc.stats.clone(),
        start,
    );
    o.iterations = every;
    Some(o)
}

/// Robustness under `model` alone, as Trencher's `-r` decides it: the
/// search stops at the first attack that succeeds (no witness, no
/// outcomes) — `false` is then proved by that attack, `true` by the whole
/// search. (`check` finds every attack: its report needs them all.)
pub fn robust(prog: &Program, model: Model, opts: &Options, limits: &StateLimits) -> Result<bool, Stop> {
    let sys = System::new(prog, &[model]);
    let mut c = Collect::new(&sys);
    c.outcomes = false;
    c.first = true;
    let (_, result) = search::explore(&sys, limits, opts, &mut c);
    result?;
    Ok(c.ids.is_empty())
}

/// An attack found, per violation key (model, `w_A`'s statement, the
/// closing access's statement): its first (shortest) path and how often.
struct Found {
    from: u32,
    mv: Move,
    closing: Closing,
    attack: AttackId,
    count: u64,
}

struct Collect<'s, 'p> {
    sys: &'s System<'p>,
    /// SC outcomes are gathered (not only attacks).
    outcomes: bool,
    /// Stop at the first attack that succeeds.
    first: bool,
    finals: BTreeMap<Vec<i64>, (Option<bool>, u32)>,
    cond_errors: Vec<(CondSite, u32)>,
    failures: Vec<(u16, StmtId, FailureKind, u32, Move)>,
    deadlocks: Vec<u32>,
    terminals: u64,
    /// SC edges and the loads on them, for the values read.
    edges: Vec<(u32, u32)>,
    loads: Vec<(u32, StmtId, Cell, i64)>,
    /// Terminal SC states, and whether their execution counts (not pruned).
    ends: Vec<(u32, bool)>,
    found: BTreeMap<(u8, StmtId, StmtId), Found>,
    ids: std::collections::HashSet<AttackId>,
    /// Each attack's first success: its parent state and closing move.
    first_runs: BTreeMap<AttackId, (u32, Move)>,
    values: Vec<i64>,
}

impl<'s, 'p> Collect<'s, 'p> {
    fn new(sys: &'s System<'p>) -> Self {
        Collect {
            sys,
            outcomes: true,
            first: false,
            finals: BTreeMap::new(),
            cond_errors: Vec::new(),
            failures: Vec::new(),
            deadlocks: Vec::new(),
            terminals: 0,
            edges: Vec::new(),
            loads: Vec::new(),
            ends: Vec::new(),
            found: BTreeMap::new(),
            ids: Default::default(),
            first_runs: BTreeMap::new(),
            values: Vec::new(),
        }
    }
}

impl Visitor for Collect<'_, '_> {
    fn edge(&mut self, from: u32, to: u32, _new: bool, mv: Move, a: &system::Applied, before: &Node, after: &Node) {
        if !self.outcomes || before.atk.phase != Phase::Sc || after.atk.phase != Phase::Sc {
            return;
        }
        self.edges.push((from, to));
        if let Some(e) = a.event.filter(|e| e.kind == EventKind::Load) {
            self.loads.push((to, e.stmt, e.cell, e.value));
        }
        if let Some((stmt, kind)) = a.failed {
            if !self.failures.iter().any(|f| f.1 == stmt && f.2 == kind) {
                self.failures.push((mv.thread, stmt, kind, from, mv));
            }
        }
    }

    fn terminal(&mut self, at: u32, n: &Node) {
        if !self.outcomes || n.atk.phase != Phase::Sc {
            return;
        }
        self.terminals += 1;
        let (prog, m) = (self.sys.prog, &self.sys.m);
        let kind = ExecKind::of(m, &n.st);
        self.ends.push((at, kind != ExecKind::Pruned));
        match kind {
            ExecKind::Complete => match Final::judge(prog, m, &n.st) {
                Final::Filtered => {}
                Final::State { satisfies, .. } => {
                    m.observe_into(&n.st, &mut self.values);
                    if !self.finals.contains_key(&self.values[..]) {
                        self.finals.insert(self.values.clone(), (satisfies, at));
                    }
                }
                Final::Undefined(site) => {
                    if self.cond_errors.len() < 4 && !self.cond_errors.iter().any(|c| c.0 == site) {
                        self.cond_errors.push((site, at));
                    }
                }
            },
            ExecKind::Deadlock if self.deadlocks.len() < 4 => self.deadlocks.push(at),
            _ => {}
        }
    }

    fn success(&mut self, from: u32, mv: Move, c: Closing, before: &Node) {
        let a = &before.atk;
        let model = system::model_of(a.model);
        let t = a.attacker as usize;
        let w_stmt = self.sys.prog.threads[t].code[a.w_pc as usize].event_stmt().unwrap_or(0);
        let attack = AttackId { model, attacker: a.attacker, w_pc: a.w_pc, r_pc: a.r_pc };
        self.ids.insert(attack);
        self.first_runs.entry(attack).or_insert((from, mv));
        self.found.entry((a.model, w_stmt, c.stmt)).and_modify(|f| f.count += 1).or_insert(Found {
            from,
            mv,
            closing: c,
            attack,
            count: 1,
        });
    }

    fn done(&self) -> bool {
        self.first && !self.ids.is_empty()
    }
}

impl Collect<'_, '_> {
    /// SC's outcome from what the search saw.
    fn outcome(&self, space: &search::Space, model: Model, start: Instant) -> ModelOutcome {
        let sys = self.sys;
        let prog = sys.prog;
        let witness = |i: u32, last: Option<Move>| {
            let mut path = space.path(i);
            path.extend(last);
            replay::sc(sys, &path)
        };
        let states: Vec<FinalState> = self
            .finals
            .iter()
            .map(|(values, &(satisfies, at))| FinalState {
                values: values.clone(),
                satisfies,
                witness: witness(at, None).0,
            })
            .collect();
        let mut failures: Vec<Failure> = self
            .failures
            .iter()
            .map(|&(thread, stmt, kind, from, mv)| {
                let (w, st) = witness(from, Some(mv));
                // The witness stops at the failure.
                let at = match st.threads[thread as usize] {
                    ThreadStatus::Failed { at, .. } => at as usize,
                    _ => w.events.len(),
                };
                let events = w.events[..at.min(w.events.len())].to_vec();
                let schedule = crate::outcome::failure_prefix(&w.schedule, &events, thread);
                Failure { thread, stmt, kind, witness: Witness { events, schedule } }
            })
            .collect();
        failures.sort_by_key(|f| (f.stmt, f.thread));
        let deadlocks = self.deadlocks.iter().map(|&d| witness(d, None).0).collect();
        let condition_errors =
            self.cond_errors.iter().map(|&(site, at)| CondError { site, witness: witness(at, None).0 }).collect();
        let stats = Stats {
            executions: self.terminals,
            transitions: space.transitions,
            states: space.states() as u64,
            buffer_bounded: space.buffer_waits > 0,
            buffer_waits: space.buffer_waits,
            ..Stats::default()
        };
        ModelOutcome::of(prog, model, states, failures, deadlocks, condition_errors, self.reads(space), stats, start)
    }

    /// The values each load read in some execution that is not pruned:
    /// a load counts unless every way on from it ends pruned (an `assume`
    /// that failed, a stuck attempt that was not for good).
    fn reads(&self, space: &search::Space) -> Reads {
        let n = space.states();
        let mut out_deg = vec![0u32; n];
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(f, t) in &self.edges {
            out_deg[f as usize] += 1;
            preds[t as usize].push(f);
        }
        let mut bad = vec![false; n];
        let mut queue: Vec<u32> = self.ends.iter().filter(|e| !e.1).map(|e| e.0).collect();
        for &q in &queue {
            bad[q as usize] = true;
        }
        while let Some(s) = queue.pop() {
            for &p in &preds[s as usize] {
                let d = &mut out_deg[p as usize];
                *d -= 1;
                if *d == 0 && !bad[p as usize] {
                    bad[p as usize] = true;
                    queue.push(p);
                }
            }
        }
        let mut reads = Reads::default();
        for &(to, stmt, cell, value) in &self.loads {
            if !bad[to as usize] {
                reads.add(stmt, cell, value);
            }
        }
        reads
    }
}

/// A found attack as a violation: replayed on the relaxed machine, its
/// cycle through the delayed store, the statements a fence could follow.
fn violation(sys: &System<'_>, model: Model, path: &[Move], f: &Found) -> Option<Violation> {
    let prog = sys.prog;
    let r = replay::attack(sys, model, path)?;
    let log = &r.witness.events;
    let cycle: Vec<CycleStep> = r
        .witness
        .cycle
        .iter()
        .map(|&(ev, edge)| CycleStep { thread: log[ev as usize].thread, stmt: log[ev as usize].stmt, edge })
        .collect();
    let s = &log[r.store as usize];
    let access = &log[r.access as usize];
    let later = if access.kind == EventKind::Store { Access::Write } else { Access::Read };
    let kind = model.weakest_fence(Access::Write, later);
    let candidates = crate::violation::fence_spots(prog, log, s.thread, r.store, r.access, kind);
    let sc_events: Vec<Event> = log[..=r.closing as usize].to_vec();
    Some(Violation {
        model,
        store_stmt: s.stmt,
        access_stmt: f.closing.stmt,
        cycle,
        witness: r.witness,
        sc_events,
        harm: Answer::Unknown(Why::Pending),
        occurrences: f.count,
        candidates,
        fence: Vec::new(),
        attack: Some(f.attack),
        finals: None,
    })
}
