//! Articulation points (cut vertices) of the undirected view of a directed graph.
//!
//! Owns the iterative depth-first search of Hopcroft & Tarjan (1973): no recursion, so
//! it runs on graphs with hundreds of thousands of nodes and long chains without
//! overflowing the stack. Direction is ignored, self-loops are dropped and parallel
//! edges (including `a→b` next to `b→a`) are harmless. No I/O.

use super::csr::{Csr, CsrOptions};
use petgraph::graph::{DiGraph, NodeIndex};

/// Nodes whose removal increases the number of connected components of the undirected
/// view of `g`, sorted by index.
///
/// Same set as networkx `nx.articulation_points(G.to_undirected())`. A node is an
/// articulation point when it is a depth-first root with two or more children, or a
/// non-root node `u` with a child `v` such that `low(v) >= disc(u)` (Hopcroft & Tarjan
/// 1973, "Efficient algorithms for graph manipulation", CACM 16(6)).
///
/// Cost: O(V + E) time and memory (an undirected adjacency in CSR form plus an explicit
/// stack).
pub fn articulation_points<N, E>(g: &DiGraph<N, E>) -> Vec<NodeIndex> {
    let n = g.node_count();
    // The undirected view; each entry carries the id of its edge.
    let adj = Csr::build(g, CsrOptions::undirected_view(), |_| true, |id, _| id);
    let (offsets, targets, edge_ids) = (adj.offsets(), adj.targets(), adj.payloads());

    const UNSEEN: u32 = u32::MAX;
    let mut disc = vec![UNSEEN; n];
    let mut low = vec![0_u32; n];
    let mut is_cut = vec![false; n];
    let mut time = 0_u32;

    /// One frame of the explicit DFS stack.
    struct Frame {
        node: usize,
        /// Edge id used to enter `node` (`usize::MAX` for a root); skipping only that
        /// edge, not every edge to the parent, keeps parallel edges correct.
        via: usize,
        /// Next position in `node`'s adjacency range.
        next: usize,
    }
    let mut stack: Vec<Frame> = Vec::new();

    for root in 0..n {
        if disc[root] != UNSEEN {
            continue;
        }
        disc[root] = time;
        low[root] = time;
        time += 1;
        let mut root_children = 0_usize;
        stack.push(Frame {
            node: root,
            via: usize::MAX,
            next: offsets[root],
        });

        while let Some(top) = stack.last_mut() {
            let u = top.node;
            if top.next < offsets[u + 1] {
                let (v, edge) = (targets[top.next], edge_ids[top.next]);
                top.next += 1;
                if edge == top.via {
                    continue;
                }
                let v = v as usize;
                if disc[v] == UNSEEN {
                    disc[v] = time;
                    low[v] = time;
                    time += 1;
                    stack.push(Frame {
                        node: v,
                        via: edge,
                        next: offsets[v],
                    });
                } else {
                    low[u] = low[u].min(disc[v]);
                }
            } else {
                stack.pop();
                if let Some(parent) = stack.last() {
                    let p = parent.node;
                    low[p] = low[p].min(low[u]);
                    if p == root {
                        root_children += 1;
                    } else if low[u] >= disc[p] {
                        is_cut[p] = true;
                    }
                }
            }
        }
        if root_children > 1 {
            is_cut[root] = true;
        }
    }

    (0..n).filter(|&i| is_cut[i]).map(NodeIndex::new).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::splitmix::digraph as graph;
    use crate::graph::splitmix::random_digraph;

    fn indices(points: &[NodeIndex]) -> Vec<usize> {
        points.iter().map(|p| p.index()).collect()
    }

    /// 12 nodes: triangle 0-1-2 hanging on 2 from a chain 2-3-4, a 4-cycle 4-5-6-7
    /// (with 5→4 parallel to 4→5), a pendant 8 on 6, a self-loop on 8, the edge 9→10
    /// with its reverse 10→9 and a self-loop on 10, and the isolated node 11.
    const FIXTURE: [(u32, u32); 14] = [
        (0, 1),
        (1, 2),
        (2, 0),
        (2, 3),
        (3, 4),
        (4, 5),
        (5, 4),
        (5, 6),
        (6, 7),
        (7, 4),
        (6, 8),
        (8, 8),
        (9, 10),
        (10, 9),
    ];

    // networkx 3.6.1:
    // import networkx as nx
    // E = [(0,1),(1,2),(2,0),(2,3),(3,4),(4,5),(5,4),(5,6),(6,7),(7,4),(6,8),(8,8),
    //      (9,10),(10,9),(10,10)]
    // G = nx.MultiDiGraph(); G.add_nodes_from(range(12)); G.add_edges_from(E)
    // print(sorted(nx.articulation_points(G.to_undirected())))
    const FIXTURE_POINTS: [usize; 4] = [2, 3, 4, 6];

    #[test]
    fn fixture_matches_networkx() {
        let mut g = graph(12, &FIXTURE);
        g.add_edge(10.into(), 10.into(), ());
        assert_eq!(indices(&articulation_points(&g)), FIXTURE_POINTS);
    }

    #[test]
    fn small_cases() {
        assert!(articulation_points(&graph(0, &[])).is_empty());
        assert!(articulation_points(&graph(1, &[(0, 0)])).is_empty());
        assert!(articulation_points(&graph(2, &[(0, 1), (1, 0), (0, 1)])).is_empty());
        // A path a-b-c in any direction: b.
        assert_eq!(
            indices(&articulation_points(&graph(3, &[(1, 0), (1, 2)]))),
            [1]
        );
        // A star centred on 0.
        assert_eq!(
            indices(&articulation_points(&graph(4, &[(1, 0), (2, 0), (0, 3)]))),
            [0]
        );
    }

    #[test]
    fn long_chain_does_not_recurse() {
        let n = 200_000_u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let points = articulation_points(&graph(n as usize, &edges));
        assert_eq!(points.len(), n as usize - 2);
        assert_eq!(points[0].index(), 1);
        assert_eq!(points[points.len() - 1].index(), n as usize - 2);
    }

    // `random_edges(2000, 2600, 9)` (generator quoted on `splitmix::random_edges`),
    // networkx 3.6.1:
    // G = nx.Graph(); G.add_nodes_from(range(2000))
    // G.add_edges_from((u, v) for u, v, _ in random_edges(2000, 2600, 9) if u != v)
    // ap = sorted(nx.articulation_points(G)); print(len(ap), sum(ap), ap[:10])
    const RANDOM_COUNT: usize = 401;
    const RANDOM_SUM: usize = 396_076;
    const RANDOM_FIRST10: [usize; 10] = [2, 14, 22, 25, 31, 35, 36, 38, 43, 44];

    #[test]
    fn random_2000_matches_networkx() {
        let g = random_digraph(2000, 2600, 9);
        let points = indices(&articulation_points(&g));
        assert_eq!(points.len(), RANDOM_COUNT);
        assert_eq!(points.iter().sum::<usize>(), RANDOM_SUM);
        assert_eq!(points[..10], RANDOM_FIRST10);
    }
}
