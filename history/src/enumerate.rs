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
//!
//! Learning from conflicts (conflict-directed backjumping, Prosser 1993):
//! each dead end is traced to the choices it needs — those whose orders the
//! conflict's cycle uses, confirmed by replaying them alone from the root —
//! and a choice no dead end below it needed is not tried the other way
//! round: the search jumps back past it. Choices about writes that have
//! nothing to do with a conflict (k unrelated pairs before a small
//! refutable part) then cost k decisions, not 2^k.

use super::model::{History, OpId};
use super::relation::Rel;
use super::verdict::{EdgeKind, Step, Undecided};
use super::Limits;
use std::collections::BTreeSet;

/// No store order: a cycle, and (after a choice) the cycle met with the
/// first choice the other way round.
pub(super) type Refutation = (Vec<Step>, Option<Vec<Step>>);

/// Why the search found no store order.
pub(super) enum Stopped {
    /// There is none.
    Refuted(Refutation),
    /// A limit stopped it first.
    Limit(Undecided),
}

/// How the search ended, and the choices it made.
pub(super) struct Search {
    pub result: Result<Vec<Vec<OpId>>, Stopped>,
    pub decisions: u64,
    /// Ways that failed below an earlier choice that held (a dead end
    /// after a choice), and times the search went back to an earlier choice
    /// after both ways of a later one failed (backtracking).
    pub dead_ends: u64,
    pub backjumps: u64,
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
pub(super) fn extend(h: &History, fixed: &[Vec<(OpId, OpId, EdgeKind)>], partial: &Rel, limits: &Limits) -> Search {
    Ctx::new(h, fixed, partial).search(limits)
}

/// Why no store order extends `partial`, for a history already refuted
/// (by SAT): the cycle met at the root, else the first cycle met under each
/// way of the first choice, descending without backtracking — linear, where
/// repeating the refutation by search could take exponential time.
pub(super) fn explain(h: &History, fixed: &[Vec<(OpId, OpId, EdgeKind)>], partial: &Rel) -> Refutation {
    let cx = Ctx::new(h, fixed, partial);
    let mut root = cx.root();
    if !cx.propagate(&mut root) {
        return (cx.cycle(&root), None);
    }
    let Some(&(a, b)) = cx.pairs.iter().find(|&&(a, b)| cx.unordered(&root, a, b)) else {
        debug_assert!(false, "a refuted history has no store order");
        return (Vec::new(), None);
    };
    let descend = |x: OpId, y: OpId| -> Vec<Step> {
        let mut s = root.clone();
        cx.force(&mut s, x, y);
        while s.conflict.is_none() && cx.propagate(&mut s) {
            let Some(&(c, d)) = cx.pairs.iter().find(|&&(c, d)| cx.unordered(&s, c, d)) else {
                debug_assert!(false, "a refuted history has no store order");
                return Vec::new();
            };
            cx.force(&mut s, c, d);
        }
        cx.cycle(&s)
    };
    (descend(a, b), Some(descend(b, a)))
}

/// One choice of the search: the state before it, the pair, how many
/// ways were tried, and the earlier choices (levels, from 1) that the dead
/// ends below it needed.
struct Frame {
    base: State,
    pair: (OpId, OpId),
    tried: u8,
    needs: BTreeSet<usize>,
}

impl<'h> Ctx<'h> {
    fn new(h: &'h History, fixed: &'h [Vec<(OpId, OpId, EdgeKind)>], partial: &'h Rel) -> Self {
        let mut pairs = Vec::new();
        for ws in &h.writes_of {
            for (i, &a) in ws.iter().enumerate().skip(1) {
                pairs.extend(ws[i + 1..].iter().map(|&b| (a, b)));
            }
        }
        Ctx { h, fixed, partial, pairs }
    }

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

    /// The choices (levels, from 1) a dead end `s` below `stack` needs: the
    /// levels at which the orders its cycle uses came about, if replaying
    /// those choices alone from the root meets a conflict; else all.
    fn needs(&self, stack: &[Frame], s: &State) -> BTreeSet<usize> {
        let all: BTreeSet<usize> = (1..=stack.len()).collect();
        let h = self.h;
        // The level at which the pair (x, y) was first ordered: the first
        // frame whose state after it has the pair (frame i's base is the
        // state after i choices).
        let level = |x: OpId, y: OpId| -> usize {
            if self.partial.has(x, y) {
                return 0;
            }
            let after = |i: usize| if i < stack.len() { stack[i].base.p.has(x, y) } else { true };
            // Monotone in i: the least i with `after(i)` (0: before any).
            let (mut lo, mut hi) = (0, stack.len());
            while lo < hi {
                let mid = (lo + hi) / 2;
                if after(mid) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        };
        let cycle = self.cycle(s);
        let mut used = BTreeSet::new();
        for (i, st) in cycle.iter().enumerate() {
            let next = cycle[(i + 1) % cycle.len()].op;
            let pair = match st.edge {
                EdgeKind::Ww => Some((st.op, next)),
                EdgeKind::Rw => Some((h.source[st.op], next)),
                _ => None,
            };
            if let Some((x, y)) = pair.filter(|&(x, y)| !h.is_init(x) && x != y) {
                let l = level(x, y);
                if l > 0 {
                    used.insert(l);
                }
            }
        }
        if cycle.is_empty() || used.len() == stack.len() {
            return all;
        }
        // Replay those choices alone (each the way it is taken now), from
        // the state before any.
        let mut r = stack[0].base.clone();
        for &l in &used {
            let (a, b) = stack[l - 1].pair;
            let (x, y) = if stack[l - 1].tried == 1 { (a, b) } else { (b, a) };
            if r.p.has(y, x) {
                r.conflict.get_or_insert(0);
                break;
            }
            self.force(&mut r, x, y);
            if r.conflict.is_some() {
                break;
            }
        }
        if r.conflict.is_some() || !self.propagate(&mut r) {
            used
        } else {
            all
        }
    }

    fn search(&self, limits: &Limits) -> Search {
        let (mut decisions, mut dead_ends, mut backjumps) = (0, 0, 0);
        let mut current = self.root();
        if !self.propagate(&mut current) {
            return Search {
                result: Err(Stopped::Refuted((self.cycle(&current), None))),
                decisions,
                dead_ends,
                backjumps,
            };
        }
        // The states the stack holds, at most, within the memory limit.
        let state_bytes = (1 + self.fixed.len() as u64) * Rel::bytes(self.h.len());
        let mut stack: Vec<Frame> = Vec::new();
        // The first cycle met under each way of the first choice.
        let mut first: [Option<Vec<Step>>; 2] = [None, None];
        let stop = |why: Undecided, decisions: u64, dead_ends: u64, backjumps: u64| Search {
            result: Err(Stopped::Limit(why)),
            decisions,
            dead_ends,
            backjumps,
        };
        loop {
            let Some(&pair) = self.pairs.iter().find(|&&(a, b)| self.unordered(&current, a, b)) else {
                return Search { result: Ok(self.order(&current)), decisions, dead_ends, backjumps };
            };
            let needed = (stack.len() as u64 + 3) * state_bytes;
            if needed > limits.max_bytes {
                return stop(
                    Undecided::Memory { needed, limit: limits.max_bytes, what: "the search's states" },
                    decisions,
                    dead_ends,
                    backjumps,
                );
            }
            stack.push(Frame { base: current, pair, tried: 0, needs: BTreeSet::new() });
            current = loop {
                if limits.expired() {
                    return stop(Undecided::Timeout, decisions, dead_ends, backjumps);
                }
                let Some(top) = stack.last_mut() else {
                    let [one, other] = first;
                    return Search {
                        result: Err(Stopped::Refuted((one.unwrap_or_default(), other))),
                        decisions,
                        dead_ends,
                        backjumps,
                    };
                };
                if top.tried == 2 {
                    // Both ways failed: the choices its dead ends needed,
                    // but for its own, are a dead end. Jump back to the
                    // latest of them (none: no store order at all).
                    let needs = stack.pop().expect("top").needs;
                    let back = needs.last().copied().unwrap_or(0);
                    stack.truncate(back);
                    if !stack.is_empty() {
                        backjumps += 1;
                    }
                    if let Some(f) = stack.last_mut() {
                        f.needs.extend(needs.into_iter().filter(|&l| l != back));
                    }
                    continue;
                }
                let (a, b) = top.pair;
                let (x, y) = if top.tried == 0 { (a, b) } else { (b, a) };
                top.tried += 1;
                decisions += 1;
                let mut s = top.base.clone();
                self.force(&mut s, x, y);
                if s.conflict.is_none() && self.propagate(&mut s) {
                    break s;
                }
                if stack.len() > 1 {
                    dead_ends += 1;
                }
                let way = stack[0].tried as usize - 1;
                if first[way].is_none() {
                    first[way] = Some(self.cycle(&s));
                }
                let level = stack.len();
                let needs = self.needs(&stack, &s);
                let top = stack.last_mut().expect("top");
                if !needs.contains(&level) {
                    // The dead end does not need this choice: the other
                    // way meets it too.
                    top.tried = 2;
                }
                top.needs.extend(needs.into_iter().filter(|&l| l != level));
            };
        }
    }
}

/// How many writes precede `w` in a total order (its place).
fn ws_before(s: &State, w: OpId) -> usize {
    (0..s.p.len()).filter(|&a| s.p.has(a, w)).count()
}
