//! Completing a partial store order by backtracking (the paper's
//! Algorithms 1 and 2): order one pair of writes the partial order leaves
//! open, both ways if need be, until every pair is ordered and the model's
//! acyclicity conditions hold.
//!
//! Pruning: after each choice, the transitive closure of each condition's
//! graph over the partial order (fixed edges, the order, its `rw`) must stay
//! acyclic — those edges are in every completion — and it forces pairs
//! without a choice: a write that reaches another, or reaches a read of
//! another, must precede it in every completion that is acyclic.

use super::model::{History, OpId};
use super::relation::Rel;
use super::verdict::{EdgeKind, Step};

/// No store order: a cycle, and (after a choice) the cycle met with the
/// first choice the other way round.
pub(super) type Refutation = (Vec<Step>, Option<Vec<Step>>);

/// How the search ended, and the choices it made.
pub(super) struct Search {
    pub result: Result<Vec<Vec<OpId>>, Refutation>,
    pub decisions: u64,
}

#[derive(Clone)]
struct State {
    /// The partial store order, transitive.
    p: Rel,
    /// Per condition: the transitive closure of its graph.
    reach: Vec<Rel>,
    /// A condition whose graph has a cycle.
    conflict: Option<usize>,
}

struct Ctx<'h> {
    h: &'h History,
    fixed: &'h [Vec<(OpId, OpId, EdgeKind)>],
    partial: &'h Rel,
    /// Every pair of distinct non-initial writes to one location.
    pairs: Vec<(OpId, OpId)>,
}

/// Extend `partial` (a transitive order on writes that already passed the
/// criterion's check) to a store order satisfying every condition whose
/// fixed edges are `fixed`.
pub(super) fn extend(h: &History, fixed: &[Vec<(OpId, OpId, EdgeKind)>], partial: &Rel) -> Search {
    let mut pairs = Vec::new();
    for ws in &h.writes_of {
        for (i, &a) in ws.iter().enumerate().skip(1) {
            pairs.extend(ws[i + 1..].iter().map(|&b| (a, b)));
        }
    }
    let cx = Ctx { h, fixed, partial, pairs };
    cx.search()
}

impl Ctx<'_> {
    fn unordered(&self, s: &State, a: OpId, b: OpId) -> bool {
        !s.p.has(a, b) && !s.p.has(b, a)
    }

    fn root(&self) -> State {
        let h = self.h;
        let n = h.len();
        let mut reach = Vec::new();
        for fixed in self.fixed {
            let mut r = Rel::new(n);
            for &(a, b, _) in fixed {
                r.set(a, b);
            }
            for a in h.thread_ops().chain(0..h.locs.len()) {
                if h.ops[a].kind.writes() || h.is_init(a) {
                    for b in self.partial.succ(a) {
                        r.set(a, b);
                    }
                }
            }
            for rd in h.thread_ops().filter(|&r| h.ops[r].kind.reads()) {
                for w in self.partial.succ(h.source[rd]).filter(|&w| w != rd) {
                    r.set(rd, w);
                }
            }
            r.close();
            reach.push(r);
        }
        let conflict = reach.iter().position(|r| r.reflexive_point().is_some());
        State { p: self.partial.clone(), reach, conflict }
    }

    fn add_edge(s: &mut State, g: usize, u: OpId, v: OpId) {
        if u == v || s.reach[g].has(v, u) {
            s.conflict.get_or_insert(g);
        }
        s.reach[g].add_closed(u, v);
    }

    /// Put `x` before `y`, with everything that follows by transitivity.
    fn force(&self, s: &mut State, x: OpId, y: OpId) {
        let h = self.h;
        let l = h.ops[x].kind.loc().expect("writes have a location");
        let preds: Vec<OpId> = h.writes_of[l].iter().copied().filter(|&a| a == x || s.p.has(a, x)).collect();
        let succs: Vec<OpId> = std::iter::once(y).chain(s.p.succ(y)).collect();
        let mut new = Vec::new();
        for &a in &preds {
            for &b in &succs {
                if s.p.set(a, b) {
                    new.push((a, b));
                }
            }
        }
        for g in 0..s.reach.len() {
            for &(a, b) in &new {
                Self::add_edge(s, g, a, b);
                for &r in &h.readers_of[a] {
                    if r != b {
                        Self::add_edge(s, g, r, b);
                    }
                }
            }
        }
    }

    /// Must `a` precede `b` in every acyclic completion of `s`?
    fn implied(&self, s: &State, a: OpId, b: OpId) -> bool {
        s.reach.iter().any(|r| r.has(a, b) || self.h.readers_of[b].iter().any(|&rd| rd != a && r.has(a, rd)))
    }

    /// Apply every implied order until none is left; false on a conflict.
    fn propagate(&self, s: &mut State) -> bool {
        loop {
            if s.conflict.is_some() {
                return false;
            }
            let mut forced = Vec::new();
            for &(a, b) in &self.pairs {
                if !self.unordered(s, a, b) {
                    continue;
                }
                if self.implied(s, a, b) {
                    forced.push((a, b));
                } else if self.implied(s, b, a) {
                    forced.push((b, a));
                }
            }
            if forced.is_empty() {
                return true;
            }
            for (x, y) in forced {
                if s.p.has(y, x) {
                    // An earlier forced pair ordered them the other way: both
                    // are implied, so the graph is cyclic.
                    s.conflict.get_or_insert(0);
                    return false;
                }
                self.force(s, x, y);
                if s.conflict.is_some() {
                    return false;
                }
            }
        }
    }

    /// A cycle of a conflicting state: in the condition that noticed it,
    /// else in any.
    fn cycle(&self, s: &State) -> Vec<Step> {
        let first = s.conflict.unwrap_or(0);
        std::iter::once(first)
            .chain((0..self.fixed.len()).filter(|&g| g != first))
            .find_map(|g| self.cycle_in(s, g))
            .unwrap_or_default()
    }

    fn cycle_in(&self, s: &State, g: usize) -> Option<Vec<Step>> {
        let h = self.h;
        let mut graph = super::graph::Graph::new(h.len());
        for &(a, b, k) in &self.fixed[g] {
            graph.add(a, b, k);
        }
        for ws in &h.writes_of {
            for &a in ws {
                for b in s.p.succ(a) {
                    graph.add(a, b, if self.partial.has(a, b) { EdgeKind::Pww } else { EdgeKind::Ww });
                }
            }
        }
        super::ccm::add_rw(h, &mut graph, &s.p);
        graph.cycle()
    }

    fn order(&self, s: &State) -> Vec<Vec<OpId>> {
        self.h
            .writes_of
            .iter()
            .map(|ws| {
                let mut ws = ws.clone();
                ws.sort_by_key(|&w| ws_before(s, w));
                ws
            })
            .collect()
    }

    fn search(&self) -> Search {
        let mut decisions = 0;
        let mut current = self.root();
        if !self.propagate(&mut current) {
            return Search { result: Err((self.cycle(&current), None)), decisions };
        }
        // Each frame: the state before a choice, the pair, the ways tried.
        let mut stack: Vec<(State, (OpId, OpId), u8)> = Vec::new();
        // The first cycle met under each way of the first choice.
        let mut first: [Option<Vec<Step>>; 2] = [None, None];
        loop {
            let Some(&pair) = self.pairs.iter().find(|&&(a, b)| self.unordered(&current, a, b)) else {
                return Search { result: Ok(self.order(&current)), decisions };
            };
            stack.push((current, pair, 0));
            current = loop {
                let Some((base, (a, b), tried)) = stack.last_mut() else {
                    let [one, other] = first;
                    return Search { result: Err((one.unwrap_or_default(), other)), decisions };
                };
                if *tried == 2 {
                    stack.pop();
                    continue;
                }
                let (x, y) = if *tried == 0 { (*a, *b) } else { (*b, *a) };
                *tried += 1;
                decisions += 1;
                let mut s = base.clone();
                self.force(&mut s, x, y);
                if s.conflict.is_none() && self.propagate(&mut s) {
                    break s;
                }
                let way = stack[0].2 as usize - 1;
                if first[way].is_none() {
                    first[way] = Some(self.cycle(&s));
                }
            };
        }
    }
}

/// How many writes precede `w` in a total order (its place).
fn ws_before(s: &State, w: OpId) -> usize {
    (0..s.p.len()).filter(|&a| s.p.has(a, w)).count()
}
