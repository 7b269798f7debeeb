//! Circular dependencies: strongly connected components (Kosaraju–Sharir, via
//! petgraph's `kosaraju_scc`, which is iterative: petgraph's `tarjan_scc` recurses once
//! per node on the search path and overflows a thread stack on graphs of 100k nodes)
//! and one shortest cycle per component.

use std::collections::VecDeque;

use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

/// Limits on the cycles listed.
#[derive(Debug, Clone, Copy)]
pub struct CycleLimits {
    /// At most this many cycles.
    pub max_cycles: usize,
    /// Cycles longer than this many files are not listed (the component is still
    /// counted by [`CycleReport::components`]).
    pub max_len: usize,
}

impl Default for CycleLimits {
    fn default() -> Self {
        CycleLimits {
            max_cycles: 50,
            max_len: 25,
        }
    }
}

/// Cycles found in a graph.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CycleReport {
    /// Closed cycles `[a, b, a]`, one per component, components ordered by their
    /// smallest node index.
    pub cycles: Vec<Vec<NodeIndex>>,
    /// Strongly connected components with at least two nodes.
    pub components: usize,
    /// Nodes that lie in such components.
    pub nodes_on_cycles: usize,
    /// True when limits left cycles out.
    pub truncated: bool,
}

/// Finds the non-trivial strongly connected components of `g` and, for each, the
/// shortest cycle through its smallest node (breadth-first inside the component,
/// neighbours in index order). Self-loops are ignored.
///
/// Deterministic for a given graph. Cost: O(V + E) for the components plus one BFS
/// per listed component.
pub fn find_cycles<N, E>(g: &DiGraph<N, E>, limits: CycleLimits) -> CycleReport {
    cycles_of(g, &strong_components(g), limits)
}

/// The strongly connected components of `g` with at least two nodes (Kosaraju–Sharir,
/// iterative), each sorted by node index, ordered by their smallest node. A node with
/// only a self-loop is not among them.
///
/// Cost: O(V + E).
pub fn strong_components<N, E>(g: &DiGraph<N, E>) -> Vec<Vec<NodeIndex>> {
    let mut comps: Vec<Vec<NodeIndex>> = kosaraju_scc(g)
        .into_iter()
        .filter(|c| c.len() > 1)
        .collect();
    for c in &mut comps {
        c.sort_unstable();
    }
    comps.sort_unstable_by_key(|c| c[0]);
    comps
}

/// [`find_cycles`] given the components of `g` as [`strong_components`] returns them
/// (for a caller that keeps the components of a snapshot).
///
/// Cost: one BFS per listed component, O(V + E) each at most.
pub fn cycles_of<N, E>(
    g: &DiGraph<N, E>,
    comps: &[Vec<NodeIndex>],
    limits: CycleLimits,
) -> CycleReport {
    let mut report = CycleReport {
        components: comps.len(),
        nodes_on_cycles: comps.iter().map(Vec::len).sum(),
        ..CycleReport::default()
    };
    let mut in_comp = vec![usize::MAX; g.node_count()];
    for (ci, c) in comps.iter().enumerate() {
        for &n in c {
            in_comp[n.index()] = ci;
        }
    }
    for (ci, c) in comps.iter().enumerate() {
        if report.cycles.len() >= limits.max_cycles {
            report.truncated = true;
            break;
        }
        match shortest_cycle(g, c[0], |n| in_comp[n.index()] == ci) {
            Some(cycle) if cycle.len() <= limits.max_len + 1 => report.cycles.push(cycle),
            _ => report.truncated = true,
        }
    }
    report
}

/// The shortest cycle from `start` back to itself through nodes accepted by `inside`,
/// closed (`[start, .., start]`).
fn shortest_cycle<N, E>(
    g: &DiGraph<N, E>,
    start: NodeIndex,
    inside: impl Fn(NodeIndex) -> bool,
) -> Option<Vec<NodeIndex>> {
    let mut prev: Vec<Option<NodeIndex>> = vec![None; g.node_count()];
    let mut seen = vec![false; g.node_count()];
    let mut queue = VecDeque::from([start]);
    seen[start.index()] = true;
    while let Some(n) = queue.pop_front() {
        let mut next: Vec<NodeIndex> = g
            .edges(n)
            .map(|e| e.target())
            .filter(|&t| inside(t))
            .collect();
        next.sort_unstable();
        next.dedup();
        for t in next {
            if t == start && n != start {
                let mut path = vec![start];
                let mut cur = n;
                let mut back = vec![];
                while cur != start {
                    back.push(cur);
                    cur = prev[cur.index()]?;
                }
                path.extend(back.into_iter().rev());
                path.push(start);
                return Some(path);
            }
            if !seen[t.index()] {
                seen[t.index()] = true;
                prev[t.index()] = Some(n);
                queue.push_back(t);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::splitmix::digraph as graph;

    fn ids(c: &[NodeIndex]) -> Vec<usize> {
        c.iter().map(|n| n.index()).collect()
    }

    #[test]
    fn one_shortest_cycle_per_component() {
        // 0→1→2→0 plus chord 0→2 (so shortest through 0 is 0→2→0? no: 2→0 and 0→2 gives [0,2,0]).
        let g = graph(6, &[(0, 1), (1, 2), (2, 0), (3, 4), (4, 3), (4, 5), (5, 5)]);
        let r = find_cycles(&g, CycleLimits::default());
        assert_eq!(r.components, 2);
        assert_eq!(r.nodes_on_cycles, 5);
        assert_eq!(ids(&r.cycles[0]), vec![0, 1, 2, 0]);
        assert_eq!(ids(&r.cycles[1]), vec![3, 4, 3]);
        assert!(!r.truncated);
    }

    #[test]
    fn shortest_is_chosen_and_limits_apply() {
        let g = graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (2, 0)]);
        let r = find_cycles(&g, CycleLimits::default());
        assert_eq!(ids(&r.cycles[0]), vec![0, 2, 0]);
        let r = find_cycles(
            &graph(3, &[(0, 1), (1, 2), (2, 0)]),
            CycleLimits {
                max_cycles: 5,
                max_len: 2,
            },
        );
        assert!(r.cycles.is_empty());
        assert!(r.truncated);
        assert_eq!(r.components, 1);
    }
}
