//! A brute-force oracle for the tests: robustness of a straight-line
//! program (no branch, no atomic) from every candidate there is: each
//! thread's one run, each read reading any write of its cell (or the
//! initial one), each cell's writes in every order, judged by the model
//! and for SC. None of the explorer's value domains, feasibility pruning or
//! coherence bases: only the candidate's construction ([`super::build`]) is
//! shared, and its SC relations ([`super::named::Sc`]).

use super::build;
use super::named::Sc;
use super::thread::{self, End, Kind, Run};
use crate::catalog;
use crate::machine::Model;
use litmus_cat::eval::Rel;
use litmus_ir::Program;

/// Candidates the oracle tries at most.
const MAX_CANDIDATES: u64 = 2_000_000;

/// Is `prog` robust under `model`: does no candidate the model allows have
/// a `po | rf | co | fr` cycle? `None` for a program it does not take (a
/// branch, an atomic, too many candidates) or a model with no definition.
pub fn robust(prog: &Program, model: Model) -> Option<bool> {
    let id = catalog::definition(model)?;
    let catdep = catalog::get(id).catdep;
    // Each thread's events do not depend on the values read: one run each,
    // its reads given the initial values.
    let domain: Vec<Vec<i64>> = prog.init.iter().map(|&v| vec![v]).collect();
    let branches = prog.threads.iter().flat_map(|t| &t.code).any(|i| {
        matches!(i, litmus_ir::Instr::Branch { .. } | litmus_ir::Instr::Jump { .. } | litmus_ir::Instr::LoopIter { .. })
    });
    if branches {
        return None;
    }
    let mut runs: Vec<Run> = Vec::new();
    let mut steps = 0u64;
    for (t, th) in prog.threads.iter().enumerate() {
        let mut all = thread::runs(prog, t, &th.init_regs, &domain, 1, catdep, &mut steps, u64::MAX).ok()?;
        if all.len() != 1 || all[0].end != End::Done {
            return None;
        }
        let run = all.pop()?;
        if run.events.iter().any(|e| matches!(e.kind, Kind::Update | Kind::AtomicRead)) {
            return None;
        }
        runs.push(run);
    }
    let refs: Vec<&Run> = runs.iter().collect();
    let micro = match catdep {
        true => runs.iter().enumerate().map(|(t, r)| std::rc::Rc::new(super::regs::micro(prog, t, r))).collect(),
        false => Vec::new(),
    };
    let lay = build::layout(prog, &refs, micro).ok()?;
    let mut x = build::skeleton(prog, catdep, &refs, &lay);
    // Per read, every write of its cell; per cell, its writes.
    let cells = prog.init.len();
    let mut writes: Vec<Vec<usize>> = vec![Vec::new(); cells];
    for (t, r) in refs.iter().enumerate() {
        for (i, e) in r.events.iter().enumerate().filter(|(_, e)| e.writes()) {
            writes[e.cell as usize].push(lay.of[t][i].1);
        }
    }
    let mut readers: Vec<(usize, Vec<usize>)> = Vec::new();
    for (t, r) in refs.iter().enumerate() {
        for (i, e) in r.events.iter().enumerate().filter(|(_, e)| e.reads()) {
            let mut from = vec![lay.iw[e.cell as usize]?];
            from.extend(&writes[e.cell as usize]);
            readers.push((lay.of[t][i].0, from));
        }
    }
    let used: Vec<usize> = (0..cells).filter(|&c| lay.iw[c].is_some()).collect();
    let mut count: u64 = readers.iter().map(|r| r.1.len() as u64).product();
    for &c in &used {
        count = count.saturating_mul((1..=writes[c].len() as u64).product());
    }
    if count > MAX_CANDIDATES {
        return None;
    }
    let mut prepared = catalog::prepared(id).ok()?;
    let mut answer = Some(true);
    let mut pick = vec![0usize; readers.len()];
    'rf: loop {
        let mut rf = Rel::empty(lay.n);
        for (k, (r, from)) in readers.iter().enumerate() {
            rf.0[from[pick[k]]] |= 1 << r;
        }
        x.rels.insert("rf".into(), rf);
        let mut perms: Vec<Vec<usize>> = used.iter().map(|&c| writes[c].clone()).collect();
        for p in perms.iter_mut() {
            p.sort_unstable();
        }
        'co: loop {
            x.rels.insert("co".into(), build::co_of(&lay, &used, &perms));
            match prepared.allowed(&x) {
                Ok(true) if Sc::of(lay.n, &x).cyclic() => {
                    answer = Some(false);
                    break 'rf;
                }
                Ok(_) | Err(litmus_cat::CatError::NotACandidate(_)) => {}
                Err(_) => {
                    answer = None;
                    break 'rf;
                }
            }
            for p in perms.iter_mut() {
                if build::next_permutation(p) {
                    continue 'co;
                }
            }
            break;
        }
        if !build::next_pick(&mut pick, |k| readers[k].1.len()) {
            break;
        }
    }
    catalog::give_back_prepared(id, prepared);
    answer
}
