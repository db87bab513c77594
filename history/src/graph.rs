//! Graphs over a history's operations with labelled edges: an acyclicity
//! check that, on failure, gives a short cycle to explain the violation.

use super::model::OpId;
use super::verdict::{EdgeKind, Step};
use litmus_dsl::digraph;

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
        let (adj, c) = (&self.adj, comp[root]);
        let edges = move |v: OpId| adj[v].iter().copied().filter(move |&(w, _)| comp[w] == c);
        let path = digraph::shortest_path(adj.len(), root, edges, |_, w, _| w == root)?;
        Some(path.into_iter().map(|(op, edge)| Step { op, edge }).collect())
    }

    /// Strongly connected components.
    fn components(&self) -> Vec<usize> {
        digraph::components(&self.adj, |&(w, _)| w)
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
