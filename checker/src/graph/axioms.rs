//! A model given as data judging graphs: each graph (or partial graph) the
//! explorer builds becomes a herd execution and the model's axioms decide.
//!
//! The events, as herd's x86 has them: one initial write (`IW`, `W`) per
//! cell the graph touches; a load an `R`; a store a `W`; an atomic two
//! events of one instruction, an `R` and a `W` (`same-instance`, not
//! po-ordered with each other), both in `X` (herd's locked accesses:
//! stdlib.cat's `amo`, hence `rmw`); an atomic that only read (a failed
//! `cas`, a taken `lock`) an `R` in `X`; each fence its thread ran before
//! an access an `F` with its tag (`MFENCE` for `fence` and `fence wr`,
//! `SFENCE` for `fence ww`, `LFENCE` for `fence rr`). `po` orders a thread's
//! instructions, `rf` and `co` are the graph's, `loc` and `int` as named.
//!
//! A partial graph is judged by the checks whose failure no extension can
//! undo (the model's own say: [`litmus_cat::eval`]'s monotone checks);
//! a complete graph by every check.

use super::graph::{Graph, Id};
use crate::catalog::{self, CatId};
use crate::machine::{Event, EventKind, ATOMIC_READ, NONE};
use litmus_cat::eval::{Execution, Options as CatOptions, MAX_EVENTS};
use litmus_cat::CatError;
use litmus_dsl::FenceKind;
use std::collections::{BTreeMap, BTreeSet};

/// Why a graph could not be judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JudgeError {
    /// More events than the evaluator takes.
    TooBig(usize),
    /// The model failed to evaluate (its diagnostic).
    Model(String),
}

/// One worker's judge: the model and the conversion's buffers.
pub struct Judge {
    pub id: CatId,
    model: std::rc::Rc<litmus_cat::Model>,
    opts: CatOptions,
    /// Per thread, per event: its cat events (read, write; equal if one).
    of: Vec<Vec<(u8, u8)>>,
}

impl Judge {
    pub fn new(id: CatId) -> Judge {
        Judge { id, model: catalog::with_model(id), opts: CatOptions::default(), of: Vec::new() }
    }

    /// Is `g` consistent under the model? `complete`: every check; else only
    /// those that no extension of `g` can pass once failed.
    pub fn consistent(&mut self, g: &Graph, complete: bool) -> Result<bool, JudgeError> {
        if !complete {
            // Without the model's word on which checks are monotone, a
            // partial graph is never pruned (sound, slower).
            return Ok(true);
        }
        let x = self.execution(g)?;
        litmus_cat::eval::evaluate(&self.model, &x, &self.opts).map(|v| v.allowed()).map_err(model_error)
    }

    /// `g` as a herd execution (see the module doc).
    pub fn execution(&mut self, g: &Graph) -> Result<Execution, JudgeError> {
        let cells = g.co.len();
        // Cells the graph touches, each with its initial write first.
        let mut touched = vec![false; cells];
        for e in g.threads.iter().flatten() {
            touched[e.cell as usize] = true;
        }
        let mut n = 0usize;
        let mut iw = vec![u8::MAX; cells];
        let mut cell_of: Vec<Option<u32>> = Vec::new();
        let mut thread_of: Vec<Option<u16>> = Vec::new();
        for c in (0..cells).filter(|&c| touched[c]) {
            iw[c] = n as u8;
            cell_of.push(Some(c as u32));
            thread_of.push(None);
            n += 1;
        }
        let total = n + g
            .threads
            .iter()
            .flatten()
            .map(|e| 1 + usize::from(e.reads && e.writes) + e.fences.count_ones() as usize)
            .sum::<usize>();
        if total > MAX_EVENTS {
            return Err(JudgeError::TooBig(total));
        }
        let (mut reads, mut writes, mut atomic, mut fences) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut mfence, mut sfence, mut lfence) = (Vec::new(), Vec::new(), Vec::new());
        let mut same_instance: Vec<(usize, usize)> = Vec::new();
        let mut po = Vec::new();
        self.of.resize_with(g.threads.len(), Vec::new);
        for (t, evs) in g.threads.iter().enumerate() {
            let of = &mut self.of[t];
            of.clear();
            // The thread's instructions so far (each one or two events).
            let mut instrs: Vec<(usize, usize)> = Vec::new();
            let mut new = |cell: Option<u32>, n: &mut usize| {
                cell_of.push(cell);
                thread_of.push(Some(t as u16));
                *n += 1;
                *n - 1
            };
            for e in evs {
                for (bit, tag) in [(1u8, 0), (2, 1), (4, 0), (8, 2)] {
                    if e.fences & bit != 0 {
                        let f = new(None, &mut n);
                        fences.push(f);
                        [&mut mfence, &mut sfence, &mut lfence][tag].push(f);
                        instrs.push((f, f));
                    }
                }
                let (r, w) = match (e.reads, e.writes) {
                    (true, true) => {
                        let r = new(Some(e.cell), &mut n);
                        let w = new(Some(e.cell), &mut n);
                        reads.push(r);
                        writes.push(w);
                        atomic.extend([r, w]);
                        same_instance.extend([(r, w), (w, r)]);
                        (r, w)
                    }
                    (true, false) => {
                        let r = new(Some(e.cell), &mut n);
                        reads.push(r);
                        if e.atomic {
                            atomic.push(r);
                        }
                        (r, r)
                    }
                    _ => {
                        let w = new(Some(e.cell), &mut n);
                        writes.push(w);
                        (w, w)
                    }
                };
                of.push((r as u8, w as u8));
                instrs.push((r, w));
            }
            for (a, &(x0, x1)) in instrs.iter().enumerate() {
                for &(y0, y1) in &instrs[a + 1..] {
                    for p in [x0, x1] {
                        for q in [y0, y1] {
                            po.push((p, q));
                        }
                    }
                }
            }
        }
        let write_of = |id: Id, of: &[Vec<(u8, u8)>]| -> usize {
            if id.is_init() {
                iw[id.index as usize] as usize
            } else {
                of[id.thread as usize][id.index as usize].1 as usize
            }
        };
        let mut rf = Vec::new();
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, e) in evs.iter().enumerate() {
                if e.reads {
                    rf.push((write_of(e.rf, &self.of), self.of[t][i].0 as usize));
                }
            }
        }
        let mut co = Vec::new();
        for (c, list) in g.co.iter().enumerate().filter(|&(c, _)| touched[c]) {
            let ws: Vec<usize> =
                std::iter::once(iw[c] as usize).chain(list.iter().map(|&w| write_of(w, &self.of))).collect();
            for (a, &x) in ws.iter().enumerate() {
                for &y in &ws[a + 1..] {
                    co.push((x, y));
                }
            }
        }
        let (mut loc, mut int) = (Vec::new(), Vec::new());
        for a in 0..n {
            for b in 0..n {
                if cell_of[a].is_some() && cell_of[a] == cell_of[b] {
                    loc.push((a, b));
                }
                if a == b || (thread_of[a].is_some() && thread_of[a] == thread_of[b]) {
                    int.push((a, b));
                }
            }
        }
        same_instance.extend((0..n).map(|a| (a, a)));
        let iws: Vec<usize> = iw.iter().filter(|&&e| e != u8::MAX).map(|&e| e as usize).collect();
        writes.extend(&iws);
        Ok(Execution::new(n)
            .set("IW", &iws)
            .set("W", &writes)
            .set("R", &reads)
            .set("F", &fences)
            .set("X", &atomic)
            .set("MFENCE", &mfence)
            .set("SFENCE", &sfence)
            .set("LFENCE", &lfence)
            .rel("po", &po)
            .rel("rf", &rf)
            .rel("co", &co)
            .rel("loc", &loc)
            .rel("int", &int)
            .rel("same-instance", &same_instance))
    }
}

/// A machine execution as a cat execution (see the module's doc). `sc`:
/// the log is SC's (a `Store` is the write to memory; there are no commits).
pub fn log_execution(events: &[Event], sc: bool) -> Result<Execution, String> {
    // Cells touched, each with its initial write first.
    let cells: BTreeSet<u32> =
        events.iter().filter(|e| !matches!(e.kind, EventKind::Fence(_))).map(|e| e.cell).collect();
    let mut n = 0usize;
    let mut cell_of: Vec<Option<u32>> = Vec::new();
    let mut thread_of: Vec<Option<u16>> = Vec::new();
    let mut new_event = |cell: Option<u32>, thread: Option<u16>, cell_of: &mut Vec<Option<u32>>| {
        cell_of.push(cell);
        thread_of.push(thread);
        n += 1;
        n - 1
    };
    let mut iw: BTreeMap<u32, usize> = BTreeMap::new();
    for &c in &cells {
        iw.insert(c, new_event(Some(c), None, &mut cell_of));
    }
    let (mut reads, mut writes, mut atomic, mut fences) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // herd's x86 binds its fence sets in every execution, empty or not.
    let mut tags: BTreeMap<&str, Vec<usize>> = ["MFENCE", "SFENCE", "LFENCE"].map(|t| (t, Vec::new())).into();
    // Per log index: the cat events it is (an Rmw: read, write).
    let mut of: Vec<Option<(usize, usize)>> = vec![None; events.len()];
    // Per thread: its instructions in program order, each one or two events.
    let mut instrs: BTreeMap<u16, Vec<Vec<usize>>> = BTreeMap::new();
    let mut same_instance = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let t = Some(e.thread);
        match e.kind {
            EventKind::Load => {
                let r = new_event(Some(e.cell), t, &mut cell_of);
                reads.push(r);
                if e.store == ATOMIC_READ {
                    atomic.push(r);
                }
                of[i] = Some((r, r));
                instrs.entry(e.thread).or_default().push(vec![r]);
            }
            EventKind::Store => {
                let w = new_event(Some(e.cell), t, &mut cell_of);
                writes.push(w);
                of[i] = Some((w, w));
                instrs.entry(e.thread).or_default().push(vec![w]);
            }
            EventKind::Commit => {}
            EventKind::Rmw => {
                let r = new_event(Some(e.cell), t, &mut cell_of);
                let w = new_event(Some(e.cell), t, &mut cell_of);
                reads.push(r);
                writes.push(w);
                atomic.extend([r, w]);
                same_instance.extend([(r, w), (w, r)]);
                of[i] = Some((r, w));
                instrs.entry(e.thread).or_default().push(vec![r, w]);
            }
            EventKind::Fence(k) => {
                let f = new_event(None, t, &mut cell_of);
                fences.push(f);
                let tag = match k {
                    FenceKind::Full | FenceKind::WR => "MFENCE",
                    FenceKind::WW => "SFENCE",
                    FenceKind::RR => "LFENCE",
                };
                tags.entry(tag).or_default().push(f);
                of[i] = Some((f, f));
                instrs.entry(e.thread).or_default().push(vec![f]);
            }
        }
    }
    if n > MAX_EVENTS {
        return Err(format!("more than {MAX_EVENTS} events"));
    }
    // co: per cell, the initial write, then the writes in the order they
    // reach memory.
    let mut co_order: BTreeMap<u32, Vec<usize>> = cells.iter().map(|&c| (c, vec![iw[&c]])).collect();
    let mut committed = vec![false; events.len()];
    for (i, e) in events.iter().enumerate() {
        let w = match e.kind {
            EventKind::Store if sc => of[i].unwrap().1,
            EventKind::Commit => {
                let s = e.store as usize;
                if events.get(s).map(|s| s.kind) != Some(EventKind::Store) || committed[s] {
                    return Err(format!("commit {i} of event {s}, not a store committed once"));
                }
                committed[s] = true;
                of[s].unwrap().1
            }
            EventKind::Rmw => of[i].unwrap().1,
            _ => continue,
        };
        co_order.get_mut(&e.cell).unwrap().push(w);
    }
    if !sc {
        if let Some(i) = events.iter().enumerate().position(|(i, e)| e.kind == EventKind::Store && !committed[i]) {
            return Err(format!("store {i} never committed"));
        }
    }
    let mut co = Vec::new();
    for ws in co_order.values() {
        for (a, &x) in ws.iter().enumerate() {
            for &y in &ws[a + 1..] {
                co.push((x, y));
            }
        }
    }
    // rf: a Commit read stands for its Store; an Rmw read for its write.
    let mut rf = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if !matches!(e.kind, EventKind::Load | EventKind::Rmw) {
            continue;
        }
        let r = of[i].unwrap().0;
        let w = if e.rf == NONE {
            iw[&e.cell]
        } else {
            let s = e.rf as usize;
            match events.get(s).map(|x| x.kind) {
                Some(EventKind::Store | EventKind::Rmw) => of[s].unwrap().1,
                Some(EventKind::Commit) => of[events[s].store as usize].unwrap().1,
                k => return Err(format!("event {i} reads from {s} ({k:?})")),
            }
        };
        if cell_of[w] != Some(e.cell) {
            return Err(format!("event {i} reads another cell's write"));
        }
        rf.push((w, r));
    }
    let mut po = Vec::new();
    for list in instrs.values() {
        for (a, x) in list.iter().enumerate() {
            for y in &list[a + 1..] {
                for &p in x {
                    for &q in y {
                        po.push((p, q));
                    }
                }
            }
        }
    }
    let (mut loc, mut int) = (Vec::new(), Vec::new());
    for a in 0..n {
        for b in 0..n {
            if cell_of[a].is_some() && cell_of[a] == cell_of[b] {
                loc.push((a, b));
            }
            if a == b || (thread_of[a].is_some() && thread_of[a] == thread_of[b]) {
                int.push((a, b));
            }
        }
    }
    same_instance.extend((0..n).map(|a| (a, a)));
    let iws: Vec<usize> = iw.values().copied().collect();
    writes.extend(&iws);
    let mut x = Execution::new(n)
        .set("IW", &iws)
        .set("W", &writes)
        .set("R", &reads)
        .set("F", &fences)
        .set("X", &atomic)
        .rel("po", &po)
        .rel("rf", &rf)
        .rel("co", &co)
        .rel("loc", &loc)
        .rel("int", &int)
        .rel("same-instance", &same_instance);
    for (tag, evs) in &tags {
        x = x.set(tag, evs);
    }
    Ok(x)
}

/// Does the model allow the execution `events` (a witness log: an SC run
/// when `sc`, else with commits)? The replay of a witness under a model
/// given as data.
pub fn allows(id: CatId, events: &[Event], sc: bool) -> Result<bool, String> {
    let x = log_execution(events, sc)?;
    let model = catalog::with_model(id);
    litmus_cat::eval::evaluate(&model, &x, &CatOptions::default()).map(|v| v.allowed()).map_err(|e| e.to_string())
}

fn model_error(e: CatError) -> JudgeError {
    JudgeError::Model(e.to_string())
}
