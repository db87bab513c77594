//! Directed graphs over nodes `0..n`: strongly connected components and a
//! breadth first shortest path, the searches behind every cycle the tools
//! show — recursion among functions (`native/sema.rs`), a trace's hb cycles
//! and an SC violation's display cycle (`litmus-checker`), a history's
//! explanation (`litmus-history`). Here, the lowest crate, so all can call
//! them.

use std::collections::VecDeque;

/// The strongly connected component of each node (Tarjan, iterative):
/// `head(e)` is where edge `e` goes. Components are numbered in the order
/// Tarjan completes them (a sink component first).
pub fn components<E>(succ: &[Vec<E>], head: impl Fn(&E) -> usize) -> Vec<usize> {
    let mut t = Tarjan::default();
    t.run(succ.len(), |v, i| succ[v].get(i).map(&head));
    t.comp
}

/// [`components`] with its scratch space kept for the next graph (a search
/// that asks once per execution graph allocates nothing once warm).
#[derive(Default)]
pub struct Tarjan {
    /// Per node, its component, after [`Tarjan::run`].
    pub comp: Vec<usize>,
    index: Vec<usize>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    call: Vec<(usize, usize)>,
}

impl Tarjan {
    /// The components of nodes `0..n`, `edge(v, i)` being `v`'s `i`-th
    /// successor (`None` past the last), into `comp`; how many there are.
    pub fn run(&mut self, n: usize, edge: impl Fn(usize, usize) -> Option<usize>) -> usize {
        const UNSEEN: usize = usize::MAX;
        let Tarjan { comp, index, low, on_stack, stack, call } = self;
        for (v, x) in [(&mut *index, UNSEEN), (&mut *low, 0), (&mut *comp, UNSEEN)] {
            v.clear();
            v.resize(n, x);
        }
        on_stack.clear();
        on_stack.resize(n, false);
        stack.clear();
        call.clear();
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
                if let Some(w) = edge(v, *i) {
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
        next_comp
    }
}

/// Breadth first from `start` (of `n` nodes) to the first edge `v →e w`
/// that `arrives(v, w, e)` accepts: the path to it as (node, edge leaving
/// it), `start` first and `v` last. `succ(v)` gives `v`'s edges in the
/// order they are tried; a node is entered once, by the first edge that
/// reaches it — so among shortest paths, the one whose edges come first.
/// With `arrives` accepting edges into `start`, a shortest cycle through it.
pub fn shortest_path<E: Copy, I: IntoIterator<Item = (usize, E)>>(
    n: usize,
    start: usize,
    mut succ: impl FnMut(usize) -> I,
    mut arrives: impl FnMut(usize, usize, E) -> bool,
) -> Option<Vec<(usize, E)>> {
    let mut parent: Vec<Option<(usize, E)>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut queue = VecDeque::from([start]);
    seen[start] = true;
    while let Some(v) = queue.pop_front() {
        for (w, e) in succ(v) {
            if arrives(v, w, e) {
                let mut path = vec![(v, e)];
                let mut cur = v;
                while let Some((p, e)) = parent[cur] {
                    path.push((p, e));
                    cur = p;
                }
                path.reverse();
                return Some(path);
            }
            if !seen[w] {
                seen[w] = true;
                parent[w] = Some((v, e));
                queue.push_back(w);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_join_nodes_on_a_common_cycle() {
        // 0 → 1 → 2 → 0, 2 → 3, 3 → 4 → 3, 5 alone.
        let succ: Vec<Vec<usize>> = vec![vec![1], vec![2], vec![0, 3], vec![4], vec![3], vec![]];
        let c = components(&succ, |&w| w);
        assert!(c[0] == c[1] && c[1] == c[2]);
        assert!(c[3] == c[4] && c[3] != c[0]);
        assert!(c[5] != c[0] && c[5] != c[3]);
        // Sinks complete first.
        assert!(c[3] < c[0]);
    }

    #[test]
    fn the_shortest_path_takes_the_first_edges_among_equals() {
        // 0 → 1 → 3, 0 → 2 → 3, 3 → 0 (edges labelled by their target).
        let succ: Vec<Vec<usize>> = vec![vec![1, 2], vec![3], vec![3], vec![0]];
        let through = |s: usize| shortest_path(4, s, |v| succ[v].iter().map(|&w| (w, w)), |_, w, _| w == s);
        assert_eq!(through(0), Some(vec![(0, 1), (1, 3), (3, 0)]));
        assert_eq!(through(2), Some(vec![(2, 3), (3, 0), (0, 2)]));
        let to = shortest_path(4, 1, |v| succ[v].iter().map(|&w| (w, w)), |_, w, _| w == 2);
        assert_eq!(to, Some(vec![(1, 3), (3, 0), (0, 2)]));
        assert_eq!(shortest_path(4, 1, |_| Vec::<(usize, usize)>::new(), |_, _, _| true), None);
    }
}
