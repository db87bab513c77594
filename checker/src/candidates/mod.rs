//! The candidate explorer: herd7's method, for models given as data that
//! the graph explorer cannot answer (those that allow a `po ∪ rf` cycle,
//! load buffering: ARM, RISC-V, Power and herd's weaker library models).
//!
//! 1. Each cell's domain: the values some run can write there (with its
//!    initial value), a least fixpoint over the threads' runs.
//! 2. Each thread run alone ([`thread`]), each read given every value of
//!    its cell's domain: its runs, each with its events, the dependencies
//!    of each event (`addr`, `data`, `ctrl`) and its final registers.
//! 3. For each choice of one run per thread, each read reads from a write
//!    of its cell with the value it took (rf), each cell's writes in each
//!    order (co): a candidate execution, judged by the model's axioms.
//!    Read values are fixed before rf is chosen, so only value-matching
//!    writes are tried — no symbolic solving, and nothing enumerated for a
//!    read whose value no write gives.
//!
//! Every allowed candidate is a final state with a witness: the
//! execution written as a log (each thread's events in program order,
//! then each write's commit, an atomic's too, in coherence order; a read
//! names the commit or atomic it read, which may come later in the log
//! when the model allows a `po ∪ rf` cycle). With robustness asked, each
//! one that is not SC is named as violations ([`named`]).
//!
//! Work is counted in interpreter steps and candidates; past the work
//! budget the search stops and says so, as the other explorers do.

mod build;
mod named;
pub mod oracle;
pub mod regs;
mod replay;
pub mod thread;

pub use replay::{replay, Replayed};

use crate::catalog::{self, Unjudged};
use crate::dpor::Stats;
use crate::machine::Model;
use crate::options::Options;
use crate::outcome::{CondSite, Keeper, ModelOutcome, Witness};
use crate::reads::Reads;
use build::{co_of, next_permutation, witness, Layout};
use litmus_cat::eval::{Execution, Rel, Set};
use litmus_cat::prepared::Prepared;
use litmus_ir::{Program, StmtId};

/// Racing pairs kept per check: enough to point at each in a small program.
const MAX_RACES: usize = 64;
use std::time::Instant;
use thread::{End, Over, Run};

/// Default work budget when the options give none: interpreter steps plus
/// candidates judged.
const WORK: u64 = 50_000_000;

/// The most values a cell's domain may hold.
const MAX_DOMAIN: usize = 256;

/// Explore `prog` under the model given as data `model`.
pub fn explore(prog: &Program, model: Model, opts: &Options) -> ModelOutcome {
    let key = memo_key(prog, model, opts);
    if let Some(o) = LAST.with(|l| l.borrow_mut().take().filter(|(k, _)| *k == key)) {
        return o.1;
    }
    search(prog, model, opts, Ask::Outcomes).0
}

thread_local! {
    /// The outcome of this thread's last robustness search, which judged
    /// every candidate an outcome search would judge again: taken by the
    /// next [`explore`] of the same program, model and bounds (a check
    /// asks robustness first), so a check searches the candidates once.
    static LAST: std::cell::RefCell<Option<(u64, ModelOutcome)>> = const { std::cell::RefCell::new(None) };
}

/// What an outcome search depends on: the program (all of it), the model,
/// the bounds.
fn memo_key(prog: &Program, model: Model, opts: &Options) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{prog:?}").hash(&mut h);
    (model.as_str(), opts.loop_bound, opts.budget.max_steps).hash(&mut h);
    h.finish()
}

/// Robustness against SC under `model`: is every candidate the model
/// allows SC-consistent (`po | rf | co | fr` acyclic over memory events,
/// herd7's robustness: the model plus `~acyclic po | rf | co | fr`)? Robust
/// is claimed only when none has a cycle and every candidate was judged.
/// Each one with a cycle names its violations ([`named`]): the answer is
/// then "not robust", each violation with a witness and its harm's evidence.
pub fn robustness(prog: &Program, model: Model, opts: &Options) -> crate::violation::Robustness {
    robustness_memo(prog, model, opts, true)
}

/// [`robustness`], leaving nothing for a later outcome search (a re-check
/// of a changed program: [`crate::repair`]).
pub fn robustness_unkept(prog: &Program, model: Model, opts: &Options) -> crate::violation::Robustness {
    robustness_memo(prog, model, opts, false)
}

/// Robustness alone, as a re-check wants it: the search stops at the first
/// allowed candidate that is not SC (not robust: nothing is named).
pub fn robust(prog: &Program, model: Model, opts: &Options) -> crate::certainty::Answer<bool> {
    robust_witness(prog, model, opts).0
}

/// [`robust`], with the allowed candidate that is not SC where there is one
/// (as a log, which [`replay`] runs again).
pub fn robust_witness(
    prog: &Program,
    model: Model,
    opts: &Options,
) -> (crate::certainty::Answer<bool>, Option<Witness>) {
    let (o, _, cyclic) = search(prog, model, opts, Ask::Decide);
    let found = BEYOND.with(|b| b.borrow_mut().take());
    if cyclic {
        return (crate::certainty::Answer::Proved(false), found);
    }
    (coverage_of(model, &o).answer(true), None)
}

fn coverage_of(model: Model, o: &ModelOutcome) -> crate::certainty::Coverage {
    if catalog::definition(model).is_none() {
        crate::certainty::Coverage::Stopped(undecided(model))
    } else {
        crate::certainty::Coverage::of_stats(&o.stats)
    }
}

fn robustness_memo(prog: &Program, model: Model, opts: &Options, memo: bool) -> crate::violation::Robustness {
    let (o, found, _) = search(prog, model, opts, Ask::Violations);
    let coverage = coverage_of(model, &o);
    if memo {
        LAST.with(|l| *l.borrow_mut() = Some((memo_key(prog, model, opts), o)));
    }
    let (named, unnamed) = found.unwrap_or_default();
    let violations = named
        .into_values()
        .map(|n| {
            let mut v = n.v;
            v.occurrences = n.occurrences;
            v.finals = Some(std::sync::Arc::new(crate::violation::Finals {
                fails: n.fails,
                holds: n.holds,
                fails_condition: n.fails_condition,
                axioms: n.axioms,
                coverage: if n.unjudged {
                    crate::certainty::Coverage::Stopped(crate::certainty::Why::Pending)
                } else {
                    coverage
                },
            }));
            v
        })
        .collect();
    let unconfirmed = unnamed.into_iter().collect();
    crate::violation::Robustness::found(model, crate::monitor::MonitorKind::Explicit, violations, unconfirmed, coverage)
}

/// Violations named so far, and statement pairs of cycles none names.
type Found = (
    std::collections::BTreeMap<(litmus_ir::StmtId, litmus_ir::StmtId), named::Named>,
    std::collections::BTreeSet<(litmus_ir::StmtId, litmus_ir::StmtId)>,
);

/// What a search is asked besides the outcome.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ask {
    Outcomes,
    /// The violations of the allowed candidates that are not SC.
    Violations,
    /// Only whether one is not SC: the search stops at the first.
    Decide,
    /// Only whether one is not allowed by the reference model given as
    /// data ([`against`]): the search stops at the first.
    Against(catalog::CatId),
}

/// Is every candidate `target` allows also allowed by `reference` (both
/// models given as data, or built-in ones by their definitions)? Robustness
/// of the program under `target` against `reference` instead of SC: the
/// question of porting code written for `reference` to `target`.
/// `Proved(false)` comes with the first such candidate, as a log (each
/// thread's events in program order, with rf and co); an answer cut short
/// by the work bound, or a model without a definition, is unknown.
pub fn against(
    prog: &Program,
    target: Model,
    reference: Model,
    opts: &Options,
) -> (crate::certainty::Answer<bool>, Option<Witness>, ModelOutcome) {
    let Some(rid) = catalog::definition(reference) else {
        let (o, _, _) = search(prog, target, opts, Ask::Outcomes);
        return (crate::certainty::Answer::Unknown(undecided(reference)), None, o);
    };
    let (o, _, _) = search(prog, target, opts, Ask::Against(rid));
    let beyond = BEYOND.with(|b| b.borrow_mut().take());
    if let Some(w) = beyond {
        return (crate::certainty::Answer::Proved(false), Some(w), o);
    }
    // A work bound, a timeout or either model's error: unknown, saying which.
    (coverage_of(target, &o).answer(true), None, o)
}

thread_local! {
    /// The candidate [`against`] found, handed from the search.
    static BEYOND: std::cell::RefCell<Option<Witness>> = const { std::cell::RefCell::new(None) };
}

/// [`explore`], with the violations ([`robustness`]) where asked, and
/// whether an allowed candidate was not SC ([`Ask::Decide`]).
fn search(prog: &Program, model: Model, opts: &Options, ask: Ask) -> (ModelOutcome, Option<Found>, bool) {
    let cycles = ask == Ask::Violations;
    let start = Instant::now();
    let max = opts.budget.max_steps.unwrap_or(WORK);
    let mut stats = Stats::default();
    let mut keeper = Keeper::default();
    let mut reads = Reads::default();
    // A built-in model by its definition; one without (TSO's machine) is
    // not judged here.
    let Some(id) = catalog::definition(model) else {
        stats.unjudged = Some(Unjudged::NoDefinition);
        return (keeper.finish(prog, model, reads, stats, start), None, false);
    };
    let mut prepared = match catalog::prepared(id) {
        Ok(p) => p,
        Err(e) => {
            catalog::note_error(id, &e.to_string());
            stats.unjudged = Some(Unjudged::ModelError(id));
            return (keeper.finish(prog, model, reads, stats, start), None, false);
        }
    };
    let mut steps = 0u64;
    // The reference model of [`against`], judged on the same candidates
    // (with register events where either model computes dependencies).
    let mut reference = match ask {
        Ask::Against(rid) => match catalog::prepared(rid) {
            Ok(p) => Some((rid, p)),
            Err(e) => {
                catalog::note_error(rid, &e.to_string());
                stats.unjudged = Some(Unjudged::ModelError(rid));
                catalog::give_back_prepared(id, prepared);
                return (keeper.finish(prog, model, reads, stats, start), None, false);
            }
        },
        _ => None,
    };
    let catdep = catalog::get(id).catdep || reference.as_ref().is_some_and(|(r, _)| catalog::get(*r).catdep);
    let runs = match all_runs(prog, opts, catdep, &mut steps, max) {
        Ok(r) => r,
        Err(over) => {
            stats.transitions = steps;
            catalog::give_back_prepared(id, prepared);
            if let Some((rid, p)) = reference.take() {
                catalog::give_back_prepared(rid, p);
            }
            match over {
                Over::Work => stats.work_cut = Some(max),
                Over::Events => stats.unjudged = Some(Unjudged::TooManyEvents(thread::MAX_THREAD_EVENTS as u32 + 1)),
            }
            return (keeper.finish(prog, model, reads, stats, start), None, false);
        }
    };
    // Each run's register events, made once (a run is in many candidates).
    let micros: Vec<Vec<std::rc::Rc<regs::Micro>>> = match catdep {
        true => runs
            .iter()
            .enumerate()
            .map(|(t, rs)| rs.iter().map(|r| std::rc::Rc::new(regs::micro(prog, t, r))).collect())
            .collect(),
        false => Vec::new(),
    };
    let mut c = Combine {
        prog,
        prepared: &mut prepared,
        keeper: &mut keeper,
        reads: &mut reads,
        stats: &mut stats,
        steps,
        max,
        id,
        opts,
        flags: Default::default(),
        races: Default::default(),
        flagging: None,
        catdep,
        micros,
        violations: cycles.then(Default::default),
        model,
        decide: ask == Ask::Decide,
        cyclic: false,
        reference: reference.as_mut().map(|(rid, p)| (*rid, p)),
        beyond: None,
        forbidden: None,
        explain_forbidden: matches!(ask, Ask::Outcomes | Ask::Violations) && prog.condition.is_some(),
    };
    c.all(&runs);
    if let Some(w) = c.beyond.take() {
        BEYOND.with(|b| *b.borrow_mut() = Some(w));
    }
    let flags = std::mem::take(&mut c.flags);
    let races = std::mem::take(&mut c.races);
    let forbidden = c.forbidden.take();
    let cycles = c.violations.take();
    let cyclic = c.cyclic;
    catalog::give_back_prepared(id, prepared);
    if let Some((rid, p)) = reference {
        catalog::give_back_prepared(rid, p);
    }
    stats.transitions = stats.transitions.max(steps);
    let mut o = keeper.finish(prog, model, reads, stats, start);
    o.flags = flags.into_iter().collect();
    o.races =
        races.into_iter().map(|((flag, accesses), witness)| crate::outcome::Race { flag, accesses, witness }).collect();
    // Said only of an outcome the finished search never reached.
    let finished = !matches!(o.coverage, crate::certainty::Coverage::Stopped(_));
    o.forbidden = forbidden.filter(|_| finished && o.reaches_outcome(prog) == Some(false));
    (o, cycles, cyclic)
}

/// Why robustness under `model` is not decided where the candidate
/// explorer answers it: the candidates are not judged for SC yet, or there
/// are none (a built-in model without a definition, for a program with a
/// store-conditional).
pub fn undecided(model: Model) -> crate::certainty::Why {
    match catalog::definition(model) {
        Some(_) => crate::certainty::Why::Undecided,
        None => crate::certainty::Why::StoreConditional,
    }
}

/// Every thread's runs under the domains' fixpoint. It starts from each
/// cell's initial value and the program's constants (a write that only a
/// cycle of reads justifies, `if (r == 1) x = 1;` in load buffering, needs
/// its value before any run writes it, as herd7's solver has it).
fn all_runs(prog: &Program, opts: &Options, trace: bool, steps: &mut u64, max: u64) -> Result<Vec<Vec<Run>>, Over> {
    let constants = constants(prog);
    let mut domain: Vec<Vec<i64>> = prog
        .init
        .iter()
        .map(|&v| {
            let mut d = constants.clone();
            if let Err(at) = d.binary_search(&v) {
                d.insert(at, v);
            }
            d
        })
        .collect();
    // A value some execution reads was written there from values read
    // before, down a chain of distinct writes (a cycle of them justifies
    // only constants, seeded above): no longer than the execution's
    // writes. Rounds past that only add values no execution reads.
    let mut round = 0usize;
    loop {
        let mut runs = Vec::with_capacity(prog.threads.len());
        for (t, th) in prog.threads.iter().enumerate() {
            runs.push(thread::runs(prog, t, &th.init_regs, &domain, opts.loop_bound, trace, steps, max)?);
        }
        let writes: usize = runs
            .iter()
            .map(|rs| rs.iter().map(|r| r.events.iter().filter(|e| e.writes()).count()).max().unwrap_or(0))
            .sum();
        round += 1;
        if round > writes {
            return Ok(runs);
        }
        let mut grew = false;
        for e in runs.iter().flatten().flat_map(|r| &r.events).filter(|e| e.writes()) {
            let d = &mut domain[e.cell as usize];
            if let Err(at) = d.binary_search(&e.value) {
                if d.len() >= MAX_DOMAIN {
                    return Err(Over::Work);
                }
                d.insert(at, e.value);
                grew = true;
            }
        }
        if !grew {
            return Ok(runs);
        }
    }
}

/// The program's constants, sorted: immediates, initial values, initial
/// registers.
fn constants(prog: &Program) -> Vec<i64> {
    use litmus_ir::{Addr, Instr, Operand, PairOp, RmwOp};
    let mut k: Vec<i64> = prog.init.clone();
    let op = |o: Operand, k: &mut Vec<i64>| {
        if let Operand::Imm(v) = o {
            k.push(v);
        }
    };
    for t in &prog.threads {
        // A register's initial value only where it may flow into a value
        // (not an address base's: `0:a0=x` would put every cell's address
        // in every domain, and each read would fork on each of them).
        let valued = valued_regs(&t.code, t.init_regs.len());
        k.extend(t.init_regs.iter().zip(&valued).filter(|(_, &v)| v).map(|(&r, _)| r));
        for ins in &t.code {
            let addr = |a: Addr| match a {
                Addr::Indexed { index, .. } => Some(index),
                _ => None,
            };
            match *ins {
                Instr::Mov { src, .. } => op(src, &mut k),
                Instr::Un { a, .. } => op(a, &mut k),
                Instr::Bin { a, b, .. } => {
                    op(a, &mut k);
                    op(b, &mut k);
                }
                Instr::Select { cond, a, b, .. } => {
                    op(cond, &mut k);
                    op(a, &mut k);
                    op(b, &mut k);
                }
                Instr::Store { val, addr: a, .. } | Instr::StoreCond { val, addr: a, .. } => {
                    op(val, &mut k);
                    if let Some(i) = addr(a) {
                        op(i, &mut k);
                    }
                }
                Instr::Pair { op: p, .. } => match p {
                    PairOp::Store { val } | PairOp::StoreCond { val, .. } | PairOp::Cas { new: val, .. } => {
                        val.into_iter().for_each(|o| op(o, &mut k))
                    }
                    PairOp::Load { .. } => {}
                },
                Instr::Rmw { op: r, .. } => match r {
                    RmwOp::Xchg(o) | RmwOp::Fetch(_, o) => op(o, &mut k),
                    RmwOp::Cas { expected, new, .. } => {
                        op(expected, &mut k);
                        op(new, &mut k);
                    }
                    RmwOp::Lock => k.extend([0, 1]),
                },
                Instr::Branch { cond, .. } | Instr::Assert { cond, .. } | Instr::Assume { cond, .. } => {
                    op(cond, &mut k)
                }
                Instr::AwaitCheck { cond, .. } => op(cond, &mut k),
                _ => {}
            }
        }
    }
    k.sort_unstable();
    k.dedup();
    k
}

/// Per register of a thread: may its value flow into a value a write
/// writes, or a branch, assertion or `assume` tests (rather than only into
/// addresses)? A read returns what some write wrote: only such values (and
/// what the tests compare with, which a cycle of reads may take) can be
/// read. What a register is computed or copied from is, where it is.
fn valued_regs(code: &[litmus_ir::Instr], n: usize) -> Vec<bool> {
    use litmus_ir::{Instr, Operand, PairOp, RmwOp};
    let mut value_read = vec![false; n];
    let mark = |o: Operand, v: &mut Vec<bool>| {
        if let Operand::Reg(r) = o {
            v[r as usize] = true;
        }
    };
    // Defined by a computation: dst <- operands (closed backwards below).
    let mut flows: Vec<(usize, Vec<Operand>)> = Vec::new();
    for ins in code {
        match *ins {
            Instr::Mov { dst, src } | Instr::Un { dst, a: src, .. } => flows.push((dst as usize, vec![src])),
            Instr::Bin { dst, a, b, .. } => flows.push((dst as usize, vec![a, b])),
            Instr::Select { dst, a, b, .. } => flows.push((dst as usize, vec![a, b])),
            Instr::Store { val, .. } | Instr::StoreCond { val, .. } => mark(val, &mut value_read),
            Instr::Pair { op, .. } => match op {
                PairOp::Store { val } | PairOp::StoreCond { val, .. } => {
                    val.into_iter().for_each(|o| mark(o, &mut value_read))
                }
                PairOp::Cas { old, new, .. } => {
                    old.into_iter().for_each(|r| mark(Operand::Reg(r), &mut value_read));
                    new.into_iter().for_each(|o| mark(o, &mut value_read));
                }
                PairOp::Load { .. } => {}
            },
            Instr::Rmw { op, .. } => match op {
                RmwOp::Xchg(o) | RmwOp::Fetch(_, o) => mark(o, &mut value_read),
                RmwOp::Cas { expected, new, .. } => {
                    mark(expected, &mut value_read);
                    mark(new, &mut value_read);
                }
                RmwOp::Lock => {}
            },
            Instr::Branch { cond, .. }
            | Instr::Assert { cond, .. }
            | Instr::Assume { cond, .. }
            | Instr::AwaitCheck { cond, .. } => mark(cond, &mut value_read),
            _ => {}
        }
    }
    loop {
        let mut grew = false;
        for (d, ops) in &flows {
            if value_read[*d] {
                for &o in ops {
                    if let Operand::Reg(r) = o {
                        if !value_read[r as usize] {
                            value_read[r as usize] = true;
                            grew = true;
                        }
                    }
                }
            }
        }
        if !grew {
            return value_read;
        }
    }
}

struct Combine<'a> {
    prog: &'a Program,
    prepared: &'a mut Prepared,
    keeper: &'a mut Keeper,
    reads: &'a mut Reads,
    stats: &'a mut Stats,
    steps: u64,
    max: u64,
    id: catalog::CatId,
    opts: &'a Options,
    /// The model's flags raised by the allowed candidates so far.
    flags: std::collections::BTreeSet<String>,
    /// The accesses of each failing `undefined_unless` (a data race),
    /// by its name and the pair, with the first execution that has them.
    races: std::collections::BTreeMap<(String, [(u16, StmtId); 2]), Witness>,
    /// Has the model a check that can flag (`undefined_unless`, `flag`)?
    flagging: Option<bool>,
    /// Does the model compute its dependencies from register events?
    catdep: bool,
    /// Per thread, per run: its register events, if `catdep`.
    micros: Vec<Vec<std::rc::Rc<regs::Micro>>>,
    /// When robustness is asked: the violations of the allowed candidates
    /// that are not SC ([`robustness`]).
    violations: Option<Found>,
    model: Model,
    /// Stop at the first allowed candidate that is not SC ([`Ask::Decide`]),
    /// and whether one was found.
    decide: bool,
    cyclic: bool,
    /// [`against`]'s reference model, and the first candidate it forbids.
    reference: Option<(catalog::CatId, &'a mut Prepared)>,
    beyond: Option<Witness>,
    /// The first candidate the model forbids that reaches the final
    /// condition's outcome, explained (outcome searches only).
    forbidden: Option<crate::outcome::Forbidden>,
    explain_forbidden: bool,
}

impl Combine<'_> {
    fn over(&mut self) -> bool {
        if self.cyclic {
            return true;
        }
        if self.stats.work_cut.is_some() || self.stats.unjudged.is_some() || self.stats.timed_out {
            return true;
        }
        if self.steps > self.max {
            self.stats.work_cut = Some(self.max);
            return true;
        }
        if self.opts.budget.stopped() {
            self.stats.timed_out = !self.opts.budget.cancelled();
            self.stats.cancelled = self.opts.budget.cancelled();
            return true;
        }
        false
    }

    /// Every choice of one run per thread whose reads some write can give.
    fn all(&mut self, runs: &[Vec<Run>]) {
        if runs.iter().any(|r| r.is_empty()) {
            return;
        }
        // Per thread: the (cell, value) pairs some run of it writes.
        let provides: Vec<std::collections::HashSet<(litmus_ir::Cell, i64)>> = runs
            .iter()
            .map(|rs| rs.iter().flat_map(|r| &r.events).filter(|e| e.writes()).map(|e| (e.cell, e.value)).collect())
            .collect();
        let mut chosen: Vec<&Run> = Vec::with_capacity(runs.len());
        let mut picked: Vec<usize> = Vec::with_capacity(runs.len());
        self.choose(runs, &provides, &mut chosen, &mut picked);
    }

    fn choose<'r>(
        &mut self,
        runs: &'r [Vec<Run>],
        provides: &[std::collections::HashSet<(litmus_ir::Cell, i64)>],
        chosen: &mut Vec<&'r Run>,
        picked: &mut Vec<usize>,
    ) {
        let t = chosen.len();
        if t == runs.len() {
            self.runs(chosen, picked);
            return;
        }
        for (i, r) in runs[t].iter().enumerate() {
            if r.end == End::Pruned {
                continue;
            }
            chosen.push(r);
            picked.push(i);
            if self.feasible(chosen, provides) {
                self.choose(runs, provides, chosen, picked);
            }
            chosen.pop();
            picked.pop();
            if self.over() {
                return;
            }
        }
    }

    /// Can every read of the runs chosen so far read its value: from an
    /// initial value, a write of a chosen run (not its own instruction's),
    /// or one a thread still to choose may write?
    fn feasible(&self, chosen: &[&Run], provides: &[std::collections::HashSet<(litmus_ir::Cell, i64)>]) -> bool {
        let later = &provides[chosen.len()..];
        chosen.iter().enumerate().all(|(t, r)| {
            r.events.iter().enumerate().filter(|(_, e)| e.reads()).all(|(i, e)| {
                let key = (e.cell, e.old);
                self.prog.init[e.cell as usize] == e.old
                    || later.iter().any(|p| p.contains(&key))
                    || chosen.iter().enumerate().any(|(u, ru)| {
                        ru.events
                            .iter()
                            .enumerate()
                            .any(|(j, w)| w.writes() && w.cell == e.cell && w.value == e.old && !(u == t && j == i))
                    })
            })
        })
    }

    /// Keep what the model flags of the allowed candidate `x` (a data
    /// race under a C model: herd7's `undefined_unless`; its `flag`s), and
    /// the accesses a failing `undefined_unless` names, with `x` as a log.
    fn flag(&mut self, x: &Execution, runs: &[&Run], lay: &Layout, log: impl Fn() -> Witness) {
        // Evaluated again in full only for a model that has such checks
        // (asked once): the others (riscv, sc) pay nothing per candidate.
        use litmus_cat::ast::TestType;
        let flagging = *self.flagging.get_or_insert_with(|| {
            self.prepared.checks(x).iter().any(|c| matches!(c.ty, TestType::UndefinedUnless | TestType::Flag))
        });
        if !flagging {
            return;
        }
        let Ok(v) = self.prepared.check(x) else { return };
        for c in &v.checks {
            if c.ty == TestType::UndefinedUnless && !c.holds {
                self.flags.insert(c.name.clone());
            }
        }
        self.flags.extend(v.flags);
        for (name, pairs) in &v.undefined_by {
            for &(a, b) in pairs {
                let (Some(a), Some(b)) = (lay.access(runs, a), lay.access(runs, b)) else { continue };
                let key = (name.clone(), if a <= b { [a, b] } else { [b, a] });
                // A few per program are plenty to point at; the log is built once each.
                if self.races.len() < MAX_RACES && !self.races.contains_key(&key) {
                    self.races.insert(key, log());
                }
            }
        }
    }

    /// [`build::layout`] of one choice of runs (`picked`: each one's index
    /// among its thread's); `None` (and the search stopped) past the events
    /// a model is evaluated on.
    fn layout(&mut self, runs: &[&Run], picked: &[usize]) -> Option<Layout> {
        let micro =
            picked.iter().enumerate().filter(|_| self.catdep).map(|(t, &i)| self.micros[t][i].clone()).collect();
        match build::layout(self.prog, runs, micro) {
            Ok(lay) => Some(lay),
            Err(n) => {
                self.stats.unjudged = Some(Unjudged::TooManyEvents(n as u32));
                None
            }
        }
    }

    /// Every rf and co of one choice of runs (`picked`: each one's index
    /// among its thread's).
    fn runs(&mut self, runs: &[&Run], picked: &[usize]) {
        let cells = self.prog.init.len();
        let Some(lay) = self.layout(runs, picked) else { return };
        let mut x = build::skeleton(self.prog, self.catdep, runs, &lay);
        // Per read (thread, event): the writes it may read from (cat events).
        let mut readers: Vec<(usize, usize, Vec<usize>)> = Vec::new();
        for (t, r) in runs.iter().enumerate() {
            for (i, e) in r.events.iter().enumerate().filter(|(_, e)| e.reads()) {
                let mut from = Vec::new();
                if self.prog.init[e.cell as usize] == e.old {
                    from.push(lay.iw[e.cell as usize].expect("an accessed cell"));
                }
                for (u, ru) in runs.iter().enumerate() {
                    for (j, w) in ru.events.iter().enumerate() {
                        if w.writes() && w.cell == e.cell && w.value == e.old && !(u == t && j == i) {
                            from.push(lay.of[u][j].1);
                        }
                    }
                }
                if from.is_empty() {
                    return; // no write gives the value it took
                }
                readers.push((t, i, from));
            }
        }
        // Per cell: its writes (cat events), the initial one first.
        let mut writes: Vec<Vec<usize>> = vec![Vec::new(); cells];
        for (t, r) in runs.iter().enumerate() {
            for (i, e) in r.events.iter().enumerate().filter(|(_, e)| e.writes()) {
                writes[e.cell as usize].push(lay.of[t][i].1);
            }
        }
        let mut rf_pick = vec![0usize; readers.len()];
        loop {
            let mut rf = Rel::empty(lay.n);
            for (k, (t, i, from)) in readers.iter().enumerate() {
                rf.0[from[rf_pick[k]]] |= 1 << lay.of[*t][*i].0;
            }
            x.rels.insert("rf".into(), rf);
            self.orders(runs, &lay, &mut x, &writes, &readers, &rf_pick);
            if self.over() || !build::next_pick(&mut rf_pick, |k| readers[k].2.len()) {
                return;
            }
        }
    }

    /// Every co (each cell's writes in each order) of one rf.
    fn orders(
        &mut self,
        runs: &[&Run],
        lay: &Layout,
        x: &mut Execution,
        writes: &[Vec<usize>],
        readers: &[(usize, usize, Vec<usize>)],
        rf_pick: &[usize],
    ) {
        let cells: Vec<usize> = (0..writes.len()).filter(|&c| lay.iw[c].is_some()).collect();
        // herd7 builds only the co's that extend the model's own base
        // (`with co from generate_cos(b)`, for this rf): any other is no
        // candidate, so only those are judged.
        let base = self.prepared.co_base(x);
        let mut perms: Vec<Vec<usize>> = cells.iter().map(|&c| writes[c].clone()).collect();
        for (k, p) in perms.iter_mut().enumerate() {
            if !first_order(p, base.as_ref(), lay.iw[cells[k]]) {
                return;
            }
        }
        loop {
            x.rels.insert("co".into(), co_of(lay, &cells, &perms));
            self.steps += 1;
            self.stats.transitions += 1;
            match self.prepared.allowed(x) {
                Ok(true) => {
                    if let Some((rid, reference)) = self.reference.as_mut() {
                        // herd7's `with co from …` builds only its own co's: a co
                        // outside them is no execution of the reference either.
                        let forbidden = match reference.allowed(x) {
                            Ok(allowed) => !allowed,
                            Err(litmus_cat::CatError::NotACandidate(_)) => true,
                            Err(e) => {
                                catalog::note_error(*rid, &e.to_string());
                                self.stats.unjudged = Some(Unjudged::ModelError(*rid));
                                return;
                            }
                        };
                        if forbidden {
                            self.beyond = Some(witness(runs, lay, &cells, &perms, readers, rf_pick));
                            self.cyclic = true;
                            return;
                        }
                    }
                    self.flag(x, runs, lay, || witness(runs, lay, &cells, &perms, readers, rf_pick));
                    if self.decide && named::Sc::of(lay.n, x).cyclic() {
                        self.beyond = Some(witness(runs, lay, &cells, &perms, readers, rf_pick));
                        self.cyclic = true;
                        return;
                    }
                    let fate = self.found(runs, lay, &cells, &perms, readers, rf_pick);
                    if let Some((named, unnamed)) = self.violations.as_mut() {
                        let sc = named::Sc::of(lay.n, x);
                        if sc.cyclic() {
                            // The model's own orders on it: the edges they keep name nothing.
                            let orders = self.prepared.acyclic_relations(x).unwrap_or_default();
                            let w = || witness(runs, lay, &cells, &perms, readers, rf_pick);
                            named::record(named, unnamed, self.model, runs, lay, &sc, &orders, fate, w);
                        }
                    }
                }
                Ok(false) => self.note_forbidden(x, runs, lay, &cells, &perms, readers, rf_pick),
                // Every co is tried here; herd7 builds only the model's own
                // candidates (`with co from …`): one outside them is no execution.
                Err(litmus_cat::CatError::NotACandidate(_)) => {}
                Err(e) => {
                    catalog::note_error(self.id, &e.to_string());
                    self.stats.unjudged = Some(Unjudged::ModelError(self.id));
                }
            }
            if self.over() {
                return;
            }
            // Next co: the next order of the first cell that has one.
            let mut k = 0;
            loop {
                if k == perms.len() {
                    return;
                }
                let iw = lay.iw[cells[k]];
                if next_order(&mut perms[k], base.as_ref(), iw) {
                    break;
                }
                first_order(&mut perms[k], base.as_ref(), iw); // wrapped: its first again
                k += 1;
            }
        }
    }

    /// Keep the first forbidden candidate `x` that reaches the final
    /// condition's outcome, with the model's reasons ([`Prepared::explain`]).
    #[allow(clippy::too_many_arguments)]
    fn note_forbidden(
        &mut self,
        x: &Execution,
        runs: &[&Run],
        lay: &Layout,
        cells: &[usize],
        perms: &[Vec<usize>],
        readers: &[(usize, usize, Vec<usize>)],
        rf_pick: &[usize],
    ) {
        use crate::outcome::{Forbidden, ForbiddenAxiom, Who};
        if self.forbidden.is_some() || !self.explain_forbidden || runs.iter().any(|r| r.end != End::Done) {
            return;
        }
        let Some(c) = &self.prog.condition else { return };
        let mem = final_memory(self.prog, runs, lay, cells, perms);
        let reg = |t: u16, r: litmus_ir::Reg| runs[t as usize].regs[r as usize];
        let memf = |c: litmus_ir::Cell| mem[c as usize];
        if self.prog.filter.as_ref().is_some_and(|f| f.eval(&reg, &memf).unwrap_or(0) == 0) {
            return;
        }
        let Some(v) = c.expr.eval(&reg, &memf) else { return };
        if (v != 0) != c.quantifier.outcome() {
            return;
        }
        let Ok(failed) = self.prepared.explain(x) else { return };
        if failed.is_empty() {
            return;
        }
        let who = |e: usize| -> Who {
            if let Some(c) = lay.iw.iter().position(|&w| w == Some(e)) {
                return Who::Init(c as litmus_ir::Cell);
            }
            match lay.access(runs, e) {
                Some((thread, stmt)) => Who::Access { thread, stmt },
                None => Who::Register(lay.reg_base.iter().rposition(|&b| b <= e).unwrap_or(0) as u16),
            }
        };
        let axioms = failed
            .into_iter()
            .map(|f| ForbiddenAxiom {
                name: f.name,
                kind: f.kind,
                expr: f.expr,
                steps: f.steps.into_iter().map(|(e, l)| (who(e), l)).collect(),
            })
            .collect();
        self.forbidden = Some(Forbidden { witness: witness(runs, lay, cells, perms, readers, rf_pick), axioms });
    }

    /// An allowed candidate: its final state, failures, reads.
    fn found(
        &mut self,
        runs: &[&Run],
        lay: &Layout,
        cells: &[usize],
        perms: &[Vec<usize>],
        readers: &[(usize, usize, Vec<usize>)],
        rf_pick: &[usize],
    ) -> named::Fate {
        self.stats.executions += 1;
        let prog = self.prog;
        let mem = final_memory(prog, runs, lay, cells, perms);
        for r in runs {
            for e in r.events.iter().filter(|e| e.reads()) {
                self.reads.add(e.stmt, e.cell, e.old);
            }
        }
        let witness = || witness(runs, lay, cells, perms, readers, rf_pick);
        let failed: Vec<(u16, litmus_ir::StmtId, crate::machine::FailureKind)> = runs
            .iter()
            .enumerate()
            .filter_map(|(t, r)| match r.end {
                End::Failed(s, k) => Some((t as u16, s, k)),
                _ => None,
            })
            .collect();
        if !failed.is_empty() {
            self.stats.failed += 1;
            let w = witness();
            self.keeper.failures(&failed, Some(failed.iter().map(|_| w.clone()).collect()));
            return named::Fate::Failed(failed[0].1);
        }
        if runs.iter().any(|r| r.end == End::Cut) {
            self.stats.cut += 1;
            return named::Fate::Other;
        }
        if runs.iter().any(|r| r.end == End::Stuck) {
            self.stats.deadlocks += 1;
            if self.keeper.wants_deadlock() {
                self.keeper.deadlock(Some(witness()));
            }
            return named::Fate::Other;
        }
        self.stats.complete += 1;
        let reg = |t: u16, r: litmus_ir::Reg| runs[t as usize].regs[r as usize];
        let memf = |c: litmus_ir::Cell| mem[c as usize];
        if let Some(f) = &prog.filter {
            match f.eval(&reg, &memf) {
                None => {
                    if self.keeper.wants_site(CondSite::Filter) {
                        self.keeper.condition_error(CondSite::Filter, Some(witness()));
                    }
                    return named::Fate::Unjudged;
                }
                Some(0) => return named::Fate::Other,
                Some(_) => {}
            }
        }
        let satisfies = match &prog.condition {
            None => None,
            Some(c) => match c.expr.eval(&reg, &memf) {
                None => {
                    if self.keeper.wants_site(CondSite::Condition) {
                        self.keeper.condition_error(CondSite::Condition, Some(witness()));
                    }
                    return named::Fate::Unjudged;
                }
                Some(v) => Some(v != 0),
            },
        };
        let values: Vec<i64> = prog
            .observables
            .iter()
            .map(|o| match o.kind {
                litmus_ir::ObservableKind::Reg { thread, reg: r } => reg(thread, r),
                litmus_ir::ObservableKind::Mem(c) => memf(c),
            })
            .collect();
        if !self.keeper.has_state(&values) {
            self.keeper.state(values, satisfies, Some(witness()));
        }
        named::Fate::Final(satisfies)
    }
}

/// A candidate's final memory: each cell's co-last write.
fn final_memory(prog: &Program, runs: &[&Run], lay: &Layout, cells: &[usize], perms: &[Vec<usize>]) -> Vec<i64> {
    let mut mem = prog.init.clone();
    let mut value_of = std::collections::HashMap::new();
    for (t, r) in runs.iter().enumerate() {
        for (i, e) in r.events.iter().enumerate().filter(|(_, e)| e.writes()) {
            value_of.insert(lay.of[t][i].1, e.value);
        }
    }
    for (k, &c) in cells.iter().enumerate() {
        if let Some(last) = perms[k].last() {
            mem[c] = value_of[last];
        }
    }
    mem
}

/// Puts a cell's writes `p` in their first order after the initial write
/// `iw` that extends `base` (every order without one); false if none does.
fn first_order(p: &mut [usize], base: Option<&Rel>, iw: Option<usize>) -> bool {
    p.sort_unstable();
    extends(p, base, iw) || next_order(p, base, iw)
}

/// The next such order of `p`; false (and `p` sorted) past the last.
fn next_order(p: &mut [usize], base: Option<&Rel>, iw: Option<usize>) -> bool {
    while next_permutation(p) {
        if extends(p, base, iw) {
            return true;
        }
    }
    false
}

/// Does `iw` then `p` extend `base` (no edge from a write back to one
/// before it)?
fn extends(p: &[usize], base: Option<&Rel>, iw: Option<usize>) -> bool {
    let Some(base) = base else { return true };
    let mut before: Set = iw.map_or(0, |w| 1 << w);
    for &w in p {
        if base.0[w] & before != 0 {
            return false;
        }
        before |= 1 << w;
    }
    true
}
