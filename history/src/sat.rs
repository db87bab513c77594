//! The direct SAT encoding of the axioms (the paper's X-SAT baseline), on
//! CaDiCaL: a variable per pair of writes to one location says which comes
//! first, and each acyclicity condition is a ranking of the operations (a
//! bit vector per operation) that every edge of the condition's graph must
//! increase. `ww` edges are guarded by their pair's variable, `rw` edges by
//! the order of the read's source and the overwriting write. A ranking
//! exists iff the graph is acyclic, so the store order need not be
//! constrained to be transitive: an acyclic tournament is a total order.
//!
//! `ccm-sat` completes CCM's `pww` (wCCM's `wpww`) lazily instead: variables
//! only for the pairs it leaves unordered, with transitivity clauses; each
//! model's store order is judged by the axioms, and a cycle found adds the
//! clause that forbids its chosen pairs, until an order passes or none is
//! left. Ranking every operation again would cost what the criteria saved.

use super::base;
use super::model::{History, OpId};
use super::relation::Rel;
use super::verdict::{EdgeKind, Model, Undecided};
use super::Limits;
use std::collections::HashMap;
use std::time::Instant;

/// What a clause and a variable cost the solver, about (measured on
/// CaDiCaL with our 3-literal clauses: the clause, its watches; a
/// variable's dozen per-variable arrays): encodings stop once they would
/// pass the memory limit.
const CLAUSE_BYTES: u64 = 112;
const VAR_BYTES: u64 = 224;

/// The solver stops once the deadline passes (it polls `terminate`).
struct Deadline(Option<Instant>);

impl cadical::Callbacks for Deadline {
    fn terminate(&mut self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }
}

pub(super) struct SatResult {
    /// A store order, none (the instance is unsatisfiable), or stopped.
    pub order: Result<Option<Vec<Vec<OpId>>>, Undecided>,
    pub vars: usize,
    pub clauses: usize,
    /// Models the solver produced (the lazy completion; 1 for the direct encoding).
    pub rounds: usize,
}

#[derive(Clone, Copy)]
enum Lit {
    True,
    False,
    Var(i32),
}

struct Encoder<'h> {
    h: &'h History,
    partial: &'h Rel,
    solver: cadical::Solver<Deadline>,
    vars: i32,
    clauses: usize,
    /// The variable "the smaller write id comes first", per pair.
    pair_vars: HashMap<(OpId, OpId), i32>,
    limits: &'h Limits,
    /// Why encoding stopped (the deadline passed, or memory ran out):
    /// clauses are then dropped, and the answer is unknown.
    halted: Option<Undecided>,
}

impl<'h> Encoder<'h> {
    fn new(h: &'h History, partial: &'h Rel, limits: &'h Limits) -> Self {
        let mut solver = cadical::Solver::new();
        solver.set_callbacks(Some(Deadline(limits.deadline)));
        Encoder { h, partial, solver, vars: 0, clauses: 0, pair_vars: HashMap::new(), limits, halted: None }
    }

    fn var(&mut self) -> i32 {
        self.vars += 1;
        self.vars
    }

    fn clause(&mut self, lits: &[i32]) {
        if self.halted.is_some() {
            return;
        }
        self.clauses += 1;
        if self.clauses.is_multiple_of(4096) {
            // The criteria's relations are alive beside the solver.
            let needed = self.clauses as u64 * CLAUSE_BYTES
                + self.vars as u64 * VAR_BYTES
                + super::LIVE_RELATIONS * Rel::bytes(self.h.len());
            if needed > self.limits.max_bytes {
                let limit = self.limits.max_bytes;
                self.halted = Some(Undecided::Memory { needed, limit, what: "its SAT encoding and relations" });
            } else if self.limits.expired() {
                self.halted = Some(Undecided::Timeout);
            }
        }
        self.solver.add_clause(lits.iter().copied());
    }

    /// "`a` precedes `b` in the store order" (writes to one location).
    fn before(&mut self, a: OpId, b: OpId) -> Lit {
        if self.h.is_init(a) || self.partial.has(a, b) {
            return Lit::True;
        }
        if self.h.is_init(b) || self.partial.has(b, a) {
            return Lit::False;
        }
        let key = (a.min(b), a.max(b));
        let v = match self.pair_vars.get(&key) {
            Some(&v) => v,
            None => {
                let v = self.var();
                self.pair_vars.insert(key, v);
                v
            }
        };
        Lit::Var(if a < b { v } else { -v })
    }

    /// `guard → rank(a) < rank(b)`: `l_i` says "a < b on bits i.. given
    /// equality above", from the most significant bit down.
    fn less(&mut self, guard: Lit, a: &[i32], b: &[i32]) {
        let g = match guard {
            Lit::False => return,
            Lit::True => None,
            Lit::Var(v) => Some(v),
        };
        let ls: Vec<i32> = (0..a.len()).map(|_| self.var()).collect();
        match g {
            None => self.clause(&[ls[0]]),
            Some(g) => self.clause(&[-g, ls[0]]),
        }
        for i in 0..a.len() {
            let (x, y, l) = (a[i], b[i], ls[i]);
            self.clause(&[-l, -x, y]);
            match ls.get(i + 1) {
                Some(&next) => {
                    self.clause(&[-l, -x, next]);
                    self.clause(&[-l, y, next]);
                }
                None => {
                    self.clause(&[-l, -x]);
                    self.clause(&[-l, y]);
                }
            }
        }
    }
}

/// Look for a store order that contains `partial` and satisfies every
/// condition whose fixed edges are `fixed`.
pub(super) fn solve(h: &History, fixed: &[Vec<(OpId, OpId, EdgeKind)>], partial: &Rel, limits: &Limits) -> SatResult {
    let mut e = Encoder::new(h, partial, limits);
    // Initial writes come first in every order and have no incoming edge:
    // they need no rank.
    let ranked: Vec<OpId> = h.thread_ops().collect();
    let bits = (usize::BITS - ranked.len().max(2).saturating_sub(1).leading_zeros()) as usize;
    for edges in fixed {
        let rank: HashMap<OpId, Vec<i32>> = ranked.iter().map(|&o| (o, (0..bits).map(|_| e.var()).collect())).collect();
        for &(a, b, _) in edges {
            if !h.is_init(a) {
                e.less(Lit::True, &rank[&a], &rank[&b]);
            }
        }
        for ws in &h.writes_of {
            for (i, &a) in ws.iter().enumerate().skip(1) {
                if e.halted.is_some() {
                    break;
                }
                for &b in &ws[i + 1..] {
                    let ab = e.before(a, b);
                    let ba = e.before(b, a);
                    e.less(ab, &rank[&a], &rank[&b]);
                    e.less(ba, &rank[&b], &rank[&a]);
                }
            }
        }
        for r in h.thread_ops().filter(|&r| h.ops[r].kind.reads()) {
            if e.halted.is_some() {
                break;
            }
            let s = h.source[r];
            let l = h.ops[r].kind.loc().expect("reads have a location");
            for &w in h.writes_of[l].iter().skip(1) {
                if w != s && w != r {
                    let guard = e.before(s, w);
                    e.less(guard, &rank[&r], &rank[&w]);
                }
            }
        }
    }
    let (vars, clauses) = (e.vars as usize, e.clauses);
    if let Some(why) = e.halted {
        return SatResult { order: Err(why), vars, clauses, rounds: 0 };
    }
    let order = match e.solver.solve() {
        Some(true) => Ok(Some(e.order())),
        Some(false) => Ok(None),
        None => Err(Undecided::Timeout),
    };
    SatResult { order, vars, clauses, rounds: 1 }
}

/// Complete `partial` lazily: see the module's doc.
pub(super) fn complete(h: &History, model: Model, partial: &Rel, limits: &Limits) -> SatResult {
    let mut e = Encoder::new(h, partial, limits);
    // Transitivity among each location's writes, wherever a pair is open.
    for ws in &h.writes_of {
        let ws = &ws[1..];
        for &a in ws {
            for &b in ws.iter().filter(|&&b| b != a) {
                // Most triples are closed by the partial order and add no
                // clause: poll here too.
                if e.limits.expired() {
                    e.halted.get_or_insert(Undecided::Timeout);
                }
                if e.halted.is_some() {
                    break;
                }
                for &c in ws.iter().filter(|&&c| c != a && c != b) {
                    let lits = [e.before(a, b), e.before(b, c), e.before(a, c)];
                    let mut clause = Vec::new();
                    let mut satisfied = false;
                    for (i, l) in lits.into_iter().enumerate() {
                        // ¬ab ∨ ¬bc ∨ ac
                        match (l, i == 2) {
                            (Lit::Var(v), true) => clause.push(v),
                            (Lit::Var(v), false) => clause.push(-v),
                            (Lit::True, true) | (Lit::False, false) => satisfied = true,
                            (Lit::True, false) | (Lit::False, true) => {}
                        }
                    }
                    if !satisfied && !clause.is_empty() {
                        e.clause(&clause);
                    }
                }
            }
        }
    }
    if let Some(why) = e.halted {
        return SatResult { order: Err(why), vars: e.vars as usize, clauses: e.clauses, rounds: 0 };
    }
    let mut rounds = 0;
    loop {
        rounds += 1;
        let (vars, clauses) = (e.vars as usize, e.clauses);
        match e.solver.solve() {
            Some(true) => {}
            Some(false) => return SatResult { order: Ok(None), vars, clauses, rounds },
            None => return SatResult { order: Err(Undecided::Timeout), vars, clauses, rounds },
        }
        let order = e.order();
        let Some(cycle) = base::violated_by(h, model, &order) else {
            return SatResult { order: Ok(Some(order)), vars, clauses, rounds };
        };
        // The open pairs the cycle's ww and rw edges rely on, all true now.
        let mut block = Vec::new();
        for (i, st) in cycle.iter().enumerate() {
            let next = cycle[(i + 1) % cycle.len()].op;
            let lit = match st.edge {
                EdgeKind::Ww => e.before(st.op, next),
                EdgeKind::Rw => e.before(h.source[st.op], next),
                _ => Lit::True,
            };
            if let Lit::Var(v) = lit {
                block.push(-v);
            }
        }
        if block.is_empty() {
            // The cycle needs no open pair: no completion avoids it.
            return SatResult { order: Ok(None), vars, clauses, rounds };
        }
        e.clause(&block);
    }
}

impl Encoder<'_> {
    /// The store order of the solver's model: each location's writes by how
    /// many precede them.
    fn order(&mut self) -> Vec<Vec<OpId>> {
        let h = self.h;
        let mut order = Vec::new();
        for ws in &h.writes_of {
            let mut place: Vec<(usize, OpId)> = Vec::new();
            for &w in ws {
                let mut earlier = 0;
                for &v in ws.iter().filter(|&&v| v != w) {
                    let first = match self.before(v, w) {
                        Lit::True => true,
                        Lit::False => false,
                        Lit::Var(x) => self.solver.value(x).unwrap_or(false),
                    };
                    earlier += first as usize;
                }
                place.push((earlier, w));
            }
            place.sort_unstable();
            order.push(place.into_iter().map(|(_, w)| w).collect());
        }
        order
    }
}
