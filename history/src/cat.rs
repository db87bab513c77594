//! A history judged by a model given as data (`--model FILE.cat`): the
//! history as a herd execution — what each read read from (`rf`) is known
//! by its value — with each store order of its writes in turn, asked of
//! the model until one is allowed. The evaluator and the execution's
//! vocabulary are those the checker's graph explorer asks
//! (`litmus_checker::graph::axioms`): an initial write `IW`, `W` per
//! location; a read `R`; a write `W`; an atomic an `R` and a `W` of one
//! instruction (`same-instance`), both in `X`; a fence `F`, `MFENCE`. The
//! built-in SC and TSO keep their own polynomial criteria (CCM, wCCM).

use crate::model::{History, OpId, OpKind};
use litmus_cat::eval::{Execution, Options as CatOptions, Rel, Set, MAX_EVENTS};
use litmus_checker::catalog::{self, CatId};
use litmus_checker::graph::axioms::{fence_tag, RELS, SETS};
use litmus_ir::FenceKind;
use std::time::Instant;

/// What the model says of a history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CatVerdict {
    /// A store order it allows (per location, the initial write first).
    Allowed {
        store_order: Vec<Vec<OpId>>,
    },
    /// It allows none of them (all tried).
    Forbidden,
    Unknown(CatUnknown),
}

/// Why a history was not decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CatUnknown {
    /// More events than the evaluator takes.
    TooManyEvents(usize),
    /// More store orders than the limit, none allowed among those tried.
    TooManyOrders(u64),
    /// The model failed to evaluate (its message).
    Model(String),
    Timeout,
}

impl CatUnknown {
    pub fn as_str(&self) -> &'static str {
        match self {
            CatUnknown::TooManyEvents(_) => "too-many-events",
            CatUnknown::TooManyOrders(_) => "too-many-orders",
            CatUnknown::Model(_) => "model-error",
            CatUnknown::Timeout => "timeout",
        }
    }

    pub fn describe(&self) -> String {
        match self {
            CatUnknown::TooManyEvents(n) => {
                format!("{n} events, more than the {MAX_EVENTS} a model given as data is evaluated on")
            }
            CatUnknown::TooManyOrders(n) => {
                format!("none of the first {n} store orders is allowed, and there are more")
            }
            CatUnknown::Model(m) => format!("the model failed: {m}"),
            CatUnknown::Timeout => "timed out".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatOutcome {
    pub verdict: CatVerdict,
    /// Store orders asked of the model.
    pub orders: u64,
}

/// Store orders asked at most, unless told otherwise.
pub const MAX_ORDERS: u64 = 1_000_000;

/// Is `h` allowed by model `id`? At most `max_orders` store orders are
/// asked; `deadline`, checked between them, stops the search.
pub fn check_cat(h: &History, id: CatId, max_orders: u64, deadline: Option<Instant>) -> CatOutcome {
    let unknown = |why, orders| CatOutcome { verdict: CatVerdict::Unknown(why), orders };
    let (mut x, write_event) = match execution(h) {
        Ok(x) => x,
        Err(n) => return unknown(CatUnknown::TooManyEvents(n), 0),
    };
    let mut prepared = match catalog::get(id).model.prepare(&CatOptions::default()) {
        Ok(p) => p,
        Err(e) => return unknown(CatUnknown::Model(e.to_string()), 0),
    };
    // Per location its non-initial writes, permuted in place (every order,
    // location after location, as an odometer of permutations).
    let mut orders: Vec<Vec<OpId>> = h.writes_of.iter().map(|ws| ws[1..].to_vec()).collect();
    let mut asked = 0u64;
    loop {
        if asked >= max_orders {
            return unknown(CatUnknown::TooManyOrders(asked), asked);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return unknown(CatUnknown::Timeout, asked);
        }
        asked += 1;
        set_co(&mut x, h, &orders, &write_event);
        match prepared.allowed(&x) {
            Ok(true) => {
                let store_order = h
                    .writes_of
                    .iter()
                    .zip(&orders)
                    .map(|(ws, o)| std::iter::once(ws[0]).chain(o.iter().copied()).collect())
                    .collect();
                return CatOutcome { verdict: CatVerdict::Allowed { store_order }, orders: asked };
            }
            Ok(false) => {}
            Err(e) => return unknown(CatUnknown::Model(e.to_string()), asked),
        }
        // The next store order: the first location whose order can advance
        // does, those before it start over.
        let mut advanced = false;
        for o in orders.iter_mut() {
            if next_permutation(o) {
                advanced = true;
                break;
            }
        }
        if !advanced {
            return CatOutcome { verdict: CatVerdict::Forbidden, orders: asked };
        }
    }
}

/// Lexicographically next permutation of `v` (by operation number); false,
/// with `v` back to the first one, after the last.
fn next_permutation(v: &mut [OpId]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        v.sort_unstable();
        return false;
    };
    let j = (i..v.len()).rev().find(|&j| v[j] > v[i - 1]).expect("v[i] is one");
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

/// `h` as an execution without `co`, and per operation the event that is
/// its write (`usize::MAX` if it writes nothing). `Err`: its event count,
/// past [`MAX_EVENTS`].
fn execution(h: &History) -> Result<(Execution, Vec<usize>), usize> {
    // Per operation: its events (read, write; one event twice if one).
    let mut of = vec![(usize::MAX, usize::MAX); h.ops.len()];
    let mut n = 0;
    for (i, op) in h.ops.iter().enumerate() {
        of[i] = match op.kind {
            _ if op.thread.is_none() => (n, n),
            OpKind::Rmw { .. } => (n, n + 1),
            _ => (n, n),
        };
        n += if matches!(op.kind, OpKind::Rmw { .. }) && op.thread.is_some() { 2 } else { 1 };
    }
    if n > MAX_EVENTS {
        return Err(n);
    }
    let bit = |e: usize| (1 as Set) << e;
    let mut sets = [0 as Set; SETS.len()];
    let mut rows: [Vec<Set>; RELS.len()] = std::array::from_fn(|_| vec![0; n]);
    let set = |k: &str| SETS.iter().position(|&n| n == k).expect("one of the sets");
    let rel = |k: &str| RELS.iter().position(|&n| n == k).expect("one of the relations");
    // A history's fence is a full one (x86 `mfence`).
    let (f, iw, mfence, r, w, x) = (set("F"), set("IW"), set(fence_tag(FenceKind::Full)), set("R"), set("W"), set("X"));
    let (int, loc, po, rf, si) = (rel("int"), rel("loc"), rel("po"), rel("rf"), rel("same-instance"));
    let mut write_event = vec![usize::MAX; h.ops.len()];
    let mut cell: Vec<Set> = vec![0; h.locs.len()];
    for (i, op) in h.ops.iter().enumerate() {
        let (a, b) = of[i];
        if op.thread.is_none() {
            sets[iw] |= bit(a);
            sets[w] |= bit(a);
            write_event[i] = a;
        }
        match op.kind {
            _ if op.thread.is_none() => {}
            OpKind::Read { .. } => sets[r] |= bit(a),
            OpKind::Write { .. } => {
                sets[w] |= bit(a);
                write_event[i] = a;
            }
            OpKind::Rmw { .. } => {
                sets[r] |= bit(a);
                sets[w] |= bit(b);
                sets[x] |= bit(a) | bit(b);
                rows[si][a] |= bit(b);
                rows[si][b] |= bit(a);
                write_event[i] = b;
            }
            OpKind::Fence => {
                sets[f] |= bit(a);
                sets[mfence] |= bit(a);
            }
        }
        if let Some(l) = op.kind.loc() {
            cell[l] |= bit(a) | bit(b);
        }
    }
    for t in &h.threads {
        let mut all: Set = 0;
        for i in t.ops.clone() {
            let (a, b) = of[i];
            let mine = bit(a) | bit(b);
            // Every earlier instruction of the thread is po-before it.
            for &(c, d) in &of[t.ops.start..i] {
                rows[po][c] |= mine;
                rows[po][d] |= mine;
            }
            all |= mine;
        }
        for i in t.ops.clone() {
            let (a, b) = of[i];
            rows[int][a] |= all;
            rows[int][b] |= all;
        }
    }
    for m in &cell {
        for (e, row) in rows[loc].iter_mut().enumerate() {
            if m & bit(e) != 0 {
                *row |= m;
            }
        }
    }
    for (i, &src) in h.source.iter().enumerate() {
        if src != crate::model::NO_OP {
            rows[rf][write_event[src]] |= bit(of[i].0);
        }
    }
    for (e, row) in rows[si].iter_mut().enumerate() {
        *row |= bit(e);
    }
    // Initial writes are each in a thread of their own.
    for (e, row) in rows[int].iter_mut().enumerate() {
        if sets[iw] & bit(e) != 0 {
            *row |= bit(e);
        }
    }
    let mut ex = Execution::new(n);
    for (k, v) in SETS.iter().zip(sets) {
        ex.sets.insert(k.to_string(), v);
    }
    for (k, v) in RELS.iter().zip(rows) {
        ex.rels.insert(k.to_string(), Rel(v));
    }
    Ok((ex, write_event))
}

/// Write `co` for the store order `orders` (per location, its non-initial
/// writes; the initial write first).
fn set_co(x: &mut Execution, h: &History, orders: &[Vec<OpId>], write_event: &[usize]) {
    let co = &mut x.rels.get_mut("co").expect("made with the execution").0;
    co.iter_mut().for_each(|r| *r = 0);
    for (ws, o) in h.writes_of.iter().zip(orders) {
        let mut later: Set = 0;
        for &op in o.iter().rev() {
            let e = write_event[op];
            co[e] |= later;
            later |= (1 as Set) << e;
        }
        co[write_event[ws[0]]] |= later;
    }
}
