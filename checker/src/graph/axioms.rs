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
use litmus_cat::eval::{Execution, Options as CatOptions, Rel, Set, MAX_EVENTS};
use litmus_cat::prepared::Prepared;
use litmus_cat::CatError;
use litmus_ir::FenceKind;
use std::collections::{BTreeMap, BTreeSet};

/// Why a graph could not be judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JudgeError {
    /// More events than the evaluator takes.
    TooBig(usize),
    /// The model failed to evaluate (its diagnostic).
    Model(String),
}

/// One worker's judge: the prepared model and the conversion's buffers.
pub struct Judge {
    pub id: CatId,
    prepared: Option<Prepared>,
    /// Per thread, per event: its cat events (read, write; equal if one).
    of: Vec<Vec<(u8, u8)>>,
    /// The execution written for each graph (names kept, rows rewritten).
    x: Option<Execution>,
    touched: Vec<bool>,
    iw: Vec<u8>,
    cell_mask: Vec<Set>,
    groups: Vec<(usize, usize)>,
    monotone: Option<bool>,
    /// Per kind of new event (an access: reads, writes, atomic as bits 0,
    /// 1, 2; a fence: 8 + its bit's place): does a maximal extension by it
    /// keep the monotone checks?
    extension: [Option<bool>; 12],
}

impl Judge {
    pub fn new(id: CatId) -> Judge {
        let prepared = catalog::lend_prepared(id);
        Judge {
            id,
            prepared,
            of: Vec::new(),
            x: None,
            touched: Vec::new(),
            iw: Vec::new(),
            cell_mask: Vec::new(),
            groups: Vec::new(),
            monotone: None,
            extension: [None; 12],
        }
    }

    fn prepared(&mut self) -> Result<&mut Prepared, JudgeError> {
        if self.prepared.is_none() {
            let model = &catalog::get(self.id).model;
            self.prepared = Some(model.prepare(&CatOptions::default()).map_err(model_error)?);
        }
        Ok(self.prepared.as_mut().expect("just made"))
    }

    /// Is `g` consistent under the model? `complete`: every check; else only
    /// those that no extension of `g` can pass once failed (the model's
    /// monotone checks, [`litmus_cat::prepared`]).
    pub fn consistent(&mut self, g: &Graph, complete: bool) -> Result<bool, JudgeError> {
        self.prepared()?;
        self.execution(g)?;
        let (Some(p), Some(x)) = (self.prepared.as_mut(), self.x.as_ref()) else { unreachable!("made above") };
        if complete { p.allowed(x) } else { p.allowed_partial(x) }.map_err(model_error)
    }

    /// Does TruSt's maximal extension of `g` by its event `id` keep every
    /// check prefixes are asked ([`litmus_cat::prepared::Prepared::extension_kept`])?
    /// The caller vouches that `id` is one access (not an atomic), last in
    /// its thread, of a cell other events access, co-last if a write,
    /// reading the co-last write if a read, and read by nothing. The fences
    /// before it come first, one at a time (each last in its thread).
    pub fn extension_kept(&mut self, g: &Graph, id: Id) -> Result<bool, JudgeError> {
        let e = g.ev(id);
        for (k, tag) in FENCE_TAGS.iter().enumerate() {
            if e.fences & (1 << k) != 0 && !self.kept(g, 8 + k, |set| set == "F" || set == *tag, false)? {
                return Ok(false);
            }
        }
        let kind = usize::from(e.reads) | usize::from(e.writes) << 1 | usize::from(e.atomic) << 2;
        self.kept(
            g,
            kind,
            |set| match set {
                "R" => e.reads,
                "W" => e.writes,
                "X" => e.atomic,
                _ => false,
            },
            true,
        )
    }

    /// [`Judge::extension_kept`] for one kind of event (`slot`: its cache).
    fn kept(
        &mut self,
        g: &Graph,
        slot: usize,
        member: impl Fn(&str) -> bool,
        access: bool,
    ) -> Result<bool, JudgeError> {
        if let Some(k) = self.extension[slot] {
            return Ok(k);
        }
        self.prepared()?;
        self.execution(g)?;
        let (Some(p), Some(x)) = (self.prepared.as_mut(), self.x.as_ref()) else { unreachable!("made above") };
        let k = p.extension_kept(x, member, access);
        self.extension[slot] = Some(k);
        Ok(k)
    }

    /// [`Judge::checks_monotone`], asked once (every graph of a search has
    /// the same shape: the same sets and relations).
    pub fn all_monotone(&mut self, g: &Graph) -> Result<bool, JudgeError> {
        if let Some(m) = self.monotone {
            return Ok(m);
        }
        let m = self.checks_monotone(g)?;
        self.monotone = Some(m);
        Ok(m)
    }

    /// Is every check deciding the model monotone on graphs such as `g`
    /// ([`litmus_cat::prepared::Prepared::checks_monotone`])?
    pub fn checks_monotone(&mut self, g: &Graph) -> Result<bool, JudgeError> {
        self.prepared()?;
        self.execution(g)?;
        let (Some(p), Some(x)) = (self.prepared.as_mut(), self.x.as_ref()) else { unreachable!("made above") };
        Ok(p.checks_monotone(x))
    }

    /// `g` as a herd execution (see the module doc), written into the
    /// judge's own execution: its names stay, its rows are rewritten.
    pub fn execution(&mut self, g: &Graph) -> Result<&Execution, JudgeError> {
        let cells = g.co.len();
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        touched.resize(cells, false);
        for e in g.threads.iter().flatten() {
            touched[e.cell as usize] = true;
        }
        let iws = touched.iter().filter(|&&t| t).count();
        let n = iws
            + g.threads
                .iter()
                .flatten()
                .map(|e| 1 + usize::from(e.reads && e.writes) + e.fences.count_ones() as usize)
                .sum::<usize>();
        if n > MAX_EVENTS {
            self.touched = touched;
            return Err(JudgeError::TooBig(n));
        }
        let x = self.x.get_or_insert_with(|| {
            let mut x = Execution::new(0);
            for k in SETS {
                x.sets.insert(k.to_string(), 0);
            }
            for k in RELS {
                x.rels.insert(k.to_string(), Rel(Vec::new()));
            }
            x
        });
        x.n = n;
        x.bad_event = None;
        // Sets, by the order of SETS.
        let mut sets = [0 as Set; SETS.len()];
        const IW: usize = 1;
        const R: usize = 4;
        const W: usize = 6;
        const X: usize = 7;
        const F: usize = 0;
        // Per fence bit: its tag's place in SETS.
        let fence_set = FENCE_TAGS.map(|t| SETS.iter().position(|&k| k == t).expect("a tag among the sets"));
        // The execution's own rows, rewritten in place (no allocation once
        // the judge has seen a graph this big).
        let mut rows: [Vec<Set>; RELS.len()] =
            RELS.map(|k| std::mem::take(&mut x.rels.get_mut(k).expect("names made once").0));
        for r in rows.iter_mut() {
            r.clear();
            r.resize(n, 0);
        }
        const CO: usize = 0;
        const INT: usize = 1;
        const LOC: usize = 2;
        const PO: usize = 3;
        const RF: usize = 4;
        const SI: usize = 5;
        let mut iw = std::mem::take(&mut self.iw);
        iw.clear();
        iw.resize(cells, u8::MAX);
        let mut cell_mask = std::mem::take(&mut self.cell_mask);
        cell_mask.clear();
        cell_mask.resize(cells, 0);
        let mut next = 0usize;
        for c in (0..cells).filter(|&c| touched[c]) {
            iw[c] = next as u8;
            cell_mask[c] |= 1 << next;
            sets[IW] |= 1 << next;
            sets[W] |= 1 << next;
            next += 1;
        }
        self.of.resize_with(g.threads.len(), Vec::new);
        let mut groups = std::mem::take(&mut self.groups);
        for (t, evs) in g.threads.iter().enumerate() {
            let of = &mut self.of[t];
            of.clear();
            let first = next;
            // The thread's events so far (a mask), for int.
            let mut before: Set = 0;
            // Its instructions' events, numbered in program order: each
            // range po-before every later one.
            groups.clear();
            for e in evs {
                for (k, &tag) in fence_set.iter().enumerate() {
                    if e.fences & (1 << k) != 0 {
                        let f = next;
                        next += 1;
                        sets[F] |= 1 << f;
                        sets[tag] |= 1 << f;
                        groups.push((f, f + 1));
                        before |= 1 << f;
                    }
                }
                let bit_c = |cell: u32, e: usize, cm: &mut Vec<Set>| cm[cell as usize] |= 1 << e;
                let (r, w) = match (e.reads, e.writes) {
                    (true, true) => {
                        let (r, w) = (next, next + 1);
                        next += 2;
                        sets[R] |= 1 << r;
                        sets[W] |= 1 << w;
                        sets[X] |= (1 << r) | (1 << w);
                        rows[SI][r] |= 1 << w;
                        rows[SI][w] |= 1 << r;
                        bit_c(e.cell, r, &mut cell_mask);
                        bit_c(e.cell, w, &mut cell_mask);
                        (r, w)
                    }
                    (true, false) => {
                        let r = next;
                        next += 1;
                        sets[R] |= 1 << r;
                        if e.atomic {
                            sets[X] |= 1 << r;
                        }
                        bit_c(e.cell, r, &mut cell_mask);
                        (r, r)
                    }
                    _ => {
                        let w = next;
                        next += 1;
                        sets[W] |= 1 << w;
                        bit_c(e.cell, w, &mut cell_mask);
                        (w, w)
                    }
                };
                before |= ((1 as Set) << r) | ((1 as Set) << w);
                groups.push((r, w + 1));
                of.push((r as u8, w as u8));
            }
            for &(a, b) in groups.iter() {
                let later = range(b, next);
                for row in &mut rows[PO][a..b] {
                    *row = later;
                }
            }
            // int: the thread's events with each other.
            for_each(before, |p| rows[INT][p] |= before);
            debug_assert_eq!(before.count_ones() as usize, next - first);
        }
        debug_assert_eq!(next, n);
        let write_of = |id: Id, of: &[Vec<(u8, u8)>]| -> usize {
            if id.is_init() {
                iw[id.index as usize] as usize
            } else {
                of[id.thread as usize][id.index as usize].1 as usize
            }
        };
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, e) in evs.iter().enumerate() {
                if e.reads {
                    rows[RF][write_of(e.rf, &self.of)] |= 1 << self.of[t][i].0;
                }
            }
        }
        for (c, list) in g.co.iter().enumerate().filter(|&(c, _)| touched[c]) {
            // Each write before every later one (co is transitive).
            let mut later: Set = 0;
            for &w in list.iter().rev() {
                let w = write_of(w, &self.of);
                rows[CO][w] |= later;
                later |= 1 << w;
            }
            rows[CO][iw[c] as usize] |= later;
        }
        for &m in &cell_mask {
            for_each(m, |e| rows[LOC][e] |= m);
        }
        // Each event is its own instance and in its own thread (initial
        // writes only that).
        for k in [SI, INT] {
            for (e, row) in rows[k].iter_mut().enumerate() {
                *row |= 1 << e;
            }
        }
        for (k, v) in SETS.iter().zip(sets) {
            *x.sets.get_mut(*k).expect("names made once") = v;
        }
        for (k, r) in RELS.iter().zip(rows) {
            x.rels.get_mut(*k).expect("names made once").0 = r;
        }
        self.iw = iw;
        self.groups = groups;
        self.cell_mask = cell_mask;
        self.touched = touched;
        Ok(self.x.as_ref().expect("made above"))
    }
}

/// The names of a graph's execution, sorted (as the execution keeps them):
/// every builder of herd executions writes these (the graph's, a log's, a
/// history's).
pub const SETS: [&str; 8] = ["F", "IW", "LFENCE", "MFENCE", "R", "SFENCE", "W", "X"];
pub const RELS: [&str; 6] = ["co", "int", "loc", "po", "rf", "same-instance"];

/// A fence's tag among [`SETS`], by its bit's place ([`super::graph::fence_bit`]:
/// full, ww, wr, rr): herd's x86 names.
pub const FENCE_TAGS: [&str; 4] = ["MFENCE", "SFENCE", "MFENCE", "LFENCE"];

/// The tag of a fence of kind `k` ([`FENCE_TAGS`]).
pub fn fence_tag(k: FenceKind) -> &'static str {
    FENCE_TAGS[super::graph::fence_bit(k).trailing_zeros() as usize]
}

/// The events `a..b` as a set.
fn range(a: usize, b: usize) -> Set {
    let width = b - a;
    if width == 0 {
        0
    } else if width >= Set::BITS as usize {
        Set::MAX
    } else {
        (((1 as Set) << width) - 1) << a
    }
}

/// Call `f` on each set bit of `m`.
fn for_each(mut m: Set, mut f: impl FnMut(usize)) {
    while m != 0 {
        let b = m.trailing_zeros() as usize;
        f(b);
        m &= m - 1;
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
                let tag = fence_tag(k);
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
        // A witness cut short (at a failure) holds stores still buffered:
        // they reach memory after everything else, as a drain would.
        for (i, e) in events.iter().enumerate() {
            if e.kind == EventKind::Store && !committed[i] {
                co_order.get_mut(&e.cell).ok_or("a store of an unknown cell")?.push(of[i].unwrap().1);
            }
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
    let mut judge = Judge::new(id);
    let p = judge.prepared().map_err(|e| format!("{e:?}"))?;
    p.allowed(&x).map_err(|e| e.to_string())
}

impl Drop for Judge {
    fn drop(&mut self) {
        if let Some(p) = self.prepared.take() {
            catalog::give_back_prepared(self.id, p);
        }
    }
}

fn model_error(e: CatError) -> JudgeError {
    JudgeError::Model(e.to_string())
}
