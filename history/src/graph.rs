//! Graphs over a history's operations with labelled edges: an acyclicity
//! check that, on failure, gives a short cycle to explain the violation.

use super::model::OpId;
use super::verdict::{EdgeKind, Step};
use std::collections::VecDeque;

pub struct Graph {
    adj: Vec<Vec<(OpId, EdgeKind)>>,
}

/// BFS roots tried for the shortest cycle: enough to find a short one in
/// practice, bounded so explaining a huge component stays linear.
const ROOTS: usize = 64;

impl Graph {
    pub fn new(n: usize) -> Self {
        Graph { adj: vec![Vec::new(); n] }
    }

    /// Add an edge. Where several kinds join the same pair, the first one
    /// added is the one a cycle shows, so add the plainest kinds first.
    pub fn add(&mut self, a: OpId, b: OpId, kind: EdgeKind) {
        self.adj[a].push((b, kind));
    }

    /// A short cycle, if the graph has any.
    pub fn cycle(&self) -> Option<Vec<Step>> {
        let comp = self.components();
        let n = self.adj.len();
        // Members of the first cyclic component: more than one node, or a self-loop.
        let mut size = vec![0usize; n];
        for &c in &comp {
            size[c] += 1;
        }
        let cyclic = (0..n).find(|&v| size[comp[v]] > 1 || self.adj[v].iter().any(|&(w, _)| w == v))?;
        let c = comp[cyclic];
        let members: Vec<OpId> = (0..n).filter(|&v| comp[v] == c).collect();
        let mut best: Option<Vec<Step>> = None;
        for &root in members.iter().take(ROOTS) {
            if let Some(cyc) = self.shortest_through(root, &comp) {
                if best.as_ref().is_none_or(|b| cyc.len() < b.len()) {
                    best = Some(cyc);
                }
            }
        }
        best
    }

    /// The shortest cycle through `root` within its component (BFS).
    fn shortest_through(&self, root: OpId, comp: &[usize]) -> Option<Vec<Step>> {
        let n = self.adj.len();
        let mut parent: Vec<Option<(OpId, EdgeKind)>> = vec![None; n];
        let mut queue = VecDeque::from([root]);
        let mut seen = vec![false; n];
        seen[root] = true;
        while let Some(v) = queue.pop_front() {
            for &(w, kind) in &self.adj[v] {
                if comp[w] != comp[root] {
                    continue;
                }
                if w == root {
                    // Back at the root: unwind the path root .. v, then v -> root.
                    let mut steps = vec![Step { op: v, edge: kind }];
                    let mut cur = v;
                    while cur != root {
                        let (p, k) = parent[cur].expect("BFS parent");
                        steps.push(Step { op: p, edge: k });
                        cur = p;
                    }
                    steps.reverse();
                    return Some(steps);
                }
                if !seen[w] {
                    seen[w] = true;
                    parent[w] = Some((v, kind));
                    queue.push_back(w);
                }
            }
        }
        None
    }

    /// Strongly connected components (Tarjan, iterative).
    fn components(&self) -> Vec<usize> {
        let n = self.adj.len();
        const UNSEEN: usize = usize::MAX;
        let mut index = vec![UNSEEN; n];
        let mut low = vec![0; n];
        let mut on_stack = vec![false; n];
        let mut comp = vec![UNSEEN; n];
        let mut stack = Vec::new();
        let mut call: Vec<(usize, usize)> = Vec::new();
        let (mut next_index, mut next_comp) = (0, 0);
        for root in 0..n {
            if index[root] != UNSEEN {
                continue;
            }
            call.push((root, 0));
            while let Some(&mut (v, ref mut i)) = call.last_mut() {
                if *i == 0 && index[v] == UNSEEN {
                    index[v] = next_index;
                    low[v] = next_index;
                    next_index += 1;
                    stack.push(v);
                    on_stack[v] = true;
                }
                if let Some(&(w, _)) = self.adj[v].get(*i) {
                    *i += 1;
                    if index[w] == UNSEEN {
                        call.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                    continue;
                }
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
        comp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_shortest_cycle_or_none() {
        let mut g = Graph::new(6);
        // 0 -> 1 -> 2 -> 3 -> 0 and the chord 2 -> 0; 4 -> 5 acyclic.
        for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5)] {
            g.add(a, b, EdgeKind::Po);
        }
        g.add(2, 0, EdgeKind::Rw);
        let c = g.cycle().unwrap();
        assert_eq!(c.len(), 3);
        let ops: Vec<_> = c.iter().map(|s| s.op).collect();
        assert!(ops.contains(&0) && ops.contains(&1) && ops.contains(&2));
        assert!(c.iter().any(|s| s.op == 2 && s.edge == EdgeKind::Rw));
        let mut g = Graph::new(3);
        g.add(0, 1, EdgeKind::Po);
        g.add(1, 2, EdgeKind::Po);
        assert!(g.cycle().is_none());
        g.add(2, 2, EdgeKind::Rw);
        assert_eq!(g.cycle().unwrap(), vec![Step { op: 2, edge: EdgeKind::Rw }]);
    }
}
