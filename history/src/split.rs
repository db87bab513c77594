//! Independent parts of a history. Threads that share no location, even
//! through a chain of other threads, constrain each other in no way: every
//! edge of the axioms' graphs joins two operations of one thread or of one
//! location, and the initial writes, the only operations shared, have no
//! incoming edge, so no cycle passes through them. A store order of each
//! part, side by side, is one of the whole; a cycle of a part is one of the
//! whole. So each part is checked on its own: k unrelated pairs of writes
//! cost k small checks, not 2^k choices of one search.

use super::model::{History, Loc, OpId, OpKind, ThreadSpec};
use super::verdict::Step;

/// One part: a history of its own, and where its pieces are in the whole.
pub struct Part {
    pub history: History,
    /// Per operation of the part, its id in the whole.
    pub ops: Vec<OpId>,
    /// Per location of the part, its index in the whole.
    pub locs: Vec<Loc>,
}

/// The parts of `h`, by the union of threads that access a common location
/// (threads that access none, only fences, join the first part). `None`
/// when there is only one: check the whole.
pub fn parts(h: &History) -> Option<Vec<Part>> {
    let nt = h.threads.len();
    let mut parent: Vec<usize> = (0..nt).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    // The first thread to touch each location; every later one joins it.
    let mut owner: Vec<Option<usize>> = vec![None; h.locs.len()];
    let mut touches = vec![false; nt];
    for (t, th) in h.threads.iter().enumerate() {
        for o in th.ops.clone() {
            let Some(l) = h.ops[o].kind.loc() else { continue };
            touches[t] = true;
            match owner[l] {
                None => owner[l] = Some(t),
                Some(u) => {
                    let (a, b) = (find(&mut parent, u), find(&mut parent, t));
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
    }
    // Parts in order of their first thread; fence-only threads join part 0.
    let mut part_of_root: Vec<Option<usize>> = vec![None; nt];
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (t, _) in touches.iter().enumerate().filter(|(_, &touched)| touched) {
        let r = find(&mut parent, t);
        let p = *part_of_root[r].get_or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        members[p].push(t);
    }
    if members.len() <= 1 {
        return None;
    }
    for t in (0..nt).filter(|&t| !touches[t]) {
        members[0].push(t);
    }
    for m in members.iter_mut() {
        m.sort_unstable();
    }
    Some(members.iter().map(|threads| part(h, threads)).collect())
}

fn part(h: &History, threads: &[usize]) -> Part {
    // Its locations, in the whole's order.
    let mut local: Vec<Option<Loc>> = vec![None; h.locs.len()];
    let mut locs: Vec<Loc> = Vec::new();
    for &t in threads {
        for o in h.threads[t].ops.clone() {
            if let Some(l) = h.ops[o].kind.loc() {
                local[l].get_or_insert_with(|| {
                    locs.push(l);
                    0
                });
            }
        }
    }
    locs.sort_unstable();
    for (i, &l) in locs.iter().enumerate() {
        local[l] = Some(i);
    }
    let relocate = |k: OpKind| match k {
        OpKind::Read { loc, value } => OpKind::Read { loc: local[loc].expect("its own"), value },
        OpKind::Write { loc, value } => OpKind::Write { loc: local[loc].expect("its own"), value },
        OpKind::Rmw { loc, read, write } => OpKind::Rmw { loc: local[loc].expect("its own"), read, write },
        OpKind::Fence => OpKind::Fence,
    };
    let specs: Vec<ThreadSpec> = threads
        .iter()
        .map(|&t| ThreadSpec {
            name: h.threads[t].name.clone(),
            span: Default::default(),
            ops: h.threads[t].ops.clone().map(|o| (relocate(h.ops[o].kind), h.ops[o].span)).collect(),
        })
        .collect();
    let names = locs.iter().map(|&l| h.locs[l].clone()).collect();
    let init = locs.iter().map(|&l| h.init[l]).collect();
    let history = History::new(names, init, specs).expect("a part of a well-formed history is one");
    // Initial writes first (operation `l` writes location `l`), then the
    // threads' operations in the same order as in the whole.
    let mut ops: Vec<OpId> = locs.clone();
    for &t in threads {
        ops.extend(h.threads[t].ops.clone());
    }
    Part { history, ops, locs }
}

impl Part {
    /// The part's store order (of its own locations and operations) into
    /// the whole's, at its locations.
    pub fn place(&self, store_order: Vec<Vec<OpId>>, whole: &mut [Vec<OpId>]) {
        for (i, ws) in store_order.into_iter().enumerate() {
            whole[self.locs[i]] = ws.into_iter().map(|w| self.ops[w]).collect();
        }
    }

    /// A cycle of the part in the whole's operation ids.
    pub fn lift(&self, cycle: Vec<Step>) -> Vec<Step> {
        cycle.into_iter().map(|s| Step { op: self.ops[s.op], edge: s.edge }).collect()
    }
}
