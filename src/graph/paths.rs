//! The k shortest loopless paths between two nodes, by hop count.
//!
//! Owns Yen's algorithm over breadth-first spur searches and the total order in which
//! paths are returned (hops, then node indices lexicographically), so that answers are
//! reproducible. The caller chooses which edges may be followed. No I/O.

use std::collections::BTreeSet;

use petgraph::graph::{DiGraph, NodeIndex};

use super::csr::{Csr, CsrDirection, CsrOptions};

/// Up to `k` loopless directed paths from `src` to `dst`, each as its node sequence
/// `[src, .., dst]`.
///
/// Paths follow only edges for which `edge_ok` is true and have at most `max_hops`
/// edges. They are the first `k` in the order (number of edges, then node indices
/// lexicographically) among all such simple paths; parallel edges give one path.
/// `src == dst` gives `[[src]]` (when `k >= 1`); an index outside the graph gives no
/// path.
///
/// Yen 1971 ("Finding the k shortest loopless paths in a network", Management Science
/// 17(11)) with every spur path found by a breadth-first search backwards from `dst`
/// and read forwards choosing the smallest admissible next node, which makes each spur
/// path the lexicographically smallest among the shortest; so candidates, and the
/// output, follow the total order above. The same set of paths per length as networkx
/// `shortest_simple_paths(G, src, dst)` truncated at `max_hops`.
///
/// Cost: O(V + E) to copy the accepted edges into CSR form, then up to `k * L`
/// breadth-first searches of O(V + E) each, for paths of at most `L` nodes.
pub fn k_shortest_paths<N, E>(
    g: &DiGraph<N, E>,
    src: NodeIndex,
    dst: NodeIndex,
    k: usize,
    max_hops: usize,
    edge_ok: impl Fn(&E) -> bool,
) -> Vec<Vec<NodeIndex>> {
    let n = g.node_count();
    if k == 0 || src.index() >= n || dst.index() >= n {
        return Vec::new();
    }
    if src == dst {
        return vec![vec![src]];
    }
    let mut search = SpurSearch::new(g, edge_ok, dst.index() as u32);

    let Some(first) = search.spur_path(src.index() as u32, &[], &[], max_hops) else {
        return Vec::new();
    };
    let mut found: Vec<Vec<u32>> = vec![first];
    // Candidates ordered by (edges, nodes); the set also removes duplicates.
    let mut candidates: BTreeSet<(usize, Vec<u32>)> = BTreeSet::new();
    let mut removed: Vec<u32> = Vec::new();

    while found.len() < k {
        let Some(last) = found.last() else { break };
        for i in 0..last.len() - 1 {
            let root = &last[..=i];
            removed.clear();
            removed.extend(
                found
                    .iter()
                    .filter(|p| p.len() > i + 1 && p[..=i] == *root)
                    .map(|p| p[i + 1]),
            );
            if let Some(spur) = search.spur_path(last[i], &last[..i], &removed, max_hops - i) {
                let mut path = Vec::with_capacity(i + spur.len());
                path.extend_from_slice(&last[..i]);
                path.extend_from_slice(&spur);
                candidates.insert((path.len() - 1, path));
            }
        }
        let Some((_, next)) = candidates.pop_first() else {
            break;
        };
        found.push(next);
    }

    found
        .into_iter()
        .map(|p| p.into_iter().map(NodeIndex::from).collect())
        .collect()
}

/// Accepted edges in CSR form (successors and predecessors, sorted, without parallel
/// duplicates or self-loops) and scratch space for repeated searches.
struct SpurSearch {
    dst: u32,
    /// Successors and predecessors over the accepted edges.
    succ: Csr,
    pred: Csr,
    /// `dist[v]` (hops from `v` to `dst`) is valid when `seen[v] == stamp`.
    dist: Vec<u32>,
    seen: Vec<u32>,
    /// Nodes excluded from the current search when `blocked[v] == stamp`.
    blocked: Vec<u32>,
    /// Admissible first hops of the current spur node when `first_hop[v] == stamp`.
    first_hop: Vec<u32>,
    stamp: u32,
    layer: Vec<u32>,
    next_layer: Vec<u32>,
}

impl SpurSearch {
    fn new<N, E>(g: &DiGraph<N, E>, edge_ok: impl Fn(&E) -> bool, dst: u32) -> Self {
        let n = g.node_count();
        let build = |direction| Csr::build(g, CsrOptions::simple(direction), &edge_ok, |_, _| ());
        SpurSearch {
            dst,
            succ: build(CsrDirection::Outgoing),
            pred: build(CsrDirection::Incoming),
            dist: vec![0; n],
            seen: vec![0; n],
            blocked: vec![0; n],
            first_hop: vec![0; n],
            stamp: 0,
            layer: Vec::new(),
            next_layer: Vec::new(),
        }
    }

    fn successors(&self, u: u32) -> &[u32] {
        self.succ.neighbours(u as usize)
    }

    fn next_stamp(&mut self) {
        if self.stamp == u32::MAX {
            self.seen.fill(0);
            self.blocked.fill(0);
            self.first_hop.fill(0);
            self.stamp = 0;
        }
        self.stamp += 1;
    }

    /// The lexicographically smallest among the shortest paths `[spur, .., dst]` with
    /// at most `budget` edges that avoid the nodes in `blocked` and do not start with
    /// an edge `spur → r` for `r` in `removed`.
    fn spur_path(
        &mut self,
        spur: u32,
        blocked: &[u32],
        removed: &[u32],
        budget: usize,
    ) -> Option<Vec<u32>> {
        if budget == 0 {
            return None;
        }
        self.next_stamp();
        let stamp = self.stamp;
        for &b in blocked {
            self.blocked[b as usize] = stamp;
        }
        self.blocked[spur as usize] = stamp;
        let mut any_first_hop = false;
        for i in 0..self.succ.degree(spur as usize) {
            let v = self.succ.neighbours(spur as usize)[i];
            if self.blocked[v as usize] != stamp && !removed.contains(&v) {
                self.first_hop[v as usize] = stamp;
                any_first_hop = true;
            }
        }
        if !any_first_hop {
            return None;
        }

        // Backwards breadth-first search from dst, one layer at a time, until a layer
        // holds an admissible first hop (that layer's depth + 1 is the spur length).
        self.seen[self.dst as usize] = stamp;
        self.dist[self.dst as usize] = 0;
        self.layer.clear();
        self.layer.push(self.dst);
        let mut depth = 0_u32;
        loop {
            if self
                .layer
                .iter()
                .any(|&v| self.first_hop[v as usize] == stamp)
            {
                break;
            }
            if depth as usize + 1 >= budget || self.layer.is_empty() {
                return None;
            }
            self.next_layer.clear();
            for li in 0..self.layer.len() {
                let v = self.layer[li];
                for pi in 0..self.pred.degree(v as usize) {
                    let u = self.pred.neighbours(v as usize)[pi];
                    if self.seen[u as usize] != stamp && self.blocked[u as usize] != stamp {
                        self.seen[u as usize] = stamp;
                        self.dist[u as usize] = depth + 1;
                        self.next_layer.push(u);
                    }
                }
            }
            std::mem::swap(&mut self.layer, &mut self.next_layer);
            depth += 1;
        }

        // Forwards: the smallest admissible node one step closer each time.
        let mut path = Vec::with_capacity(depth as usize + 2);
        path.push(spur);
        let first = self.successors(spur).iter().copied().find(|&v| {
            self.first_hop[v as usize] == stamp
                && self.seen[v as usize] == stamp
                && self.dist[v as usize] == depth
        })?;
        path.push(first);
        let mut at = first;
        while at != self.dst {
            let want = self.dist[at as usize] - 1;
            at = self
                .successors(at)
                .iter()
                .copied()
                .find(|&w| self.seen[w as usize] == stamp && self.dist[w as usize] == want)?;
            path.push(at);
        }
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::splitmix::random_edges;

    /// 10 nodes, edges `(from, to, accepted)`: three routes 0→{1,2,3}→4 → {5,6} → 9, a
    /// 2-cycle 1⇄2, a long way round 3→7→8→9 reachable again through 6→3, the cycle
    /// edge 9→0, parallel edges 4→5, a self-loop on 4, and two rejected shortcuts
    /// 2→6 and 2→9.
    const FIXTURE: [(u32, u32, bool); 23] = [
        (0, 1, true),
        (0, 2, true),
        (0, 3, true),
        (1, 4, true),
        (2, 4, true),
        (3, 4, true),
        (1, 5, true),
        (4, 5, true),
        (4, 5, true),
        (5, 6, true),
        (4, 6, true),
        (2, 6, false),
        (6, 9, true),
        (5, 9, true),
        (3, 7, true),
        (7, 8, true),
        (8, 9, true),
        (9, 0, true),
        (1, 2, true),
        (2, 1, true),
        (4, 4, true),
        (6, 3, true),
        (2, 9, false),
    ];

    fn fixture() -> DiGraph<(), bool> {
        let mut g = DiGraph::new();
        for _ in 0..10 {
            g.add_node(());
        }
        for (u, v, ok) in FIXTURE {
            g.add_edge(u.into(), v.into(), ok);
        }
        g
    }

    fn run(g: &DiGraph<(), bool>, s: usize, t: usize, k: usize, hops: usize) -> Vec<Vec<usize>> {
        k_shortest_paths(g, NodeIndex::new(s), NodeIndex::new(t), k, hops, |ok| *ok)
            .into_iter()
            .map(|p| p.into_iter().map(|v| v.index()).collect())
            .collect()
    }

    // networkx 3.6.1 (all 30 simple paths 0→9; also equal to all_simple_paths):
    // E = [(0,1,1),(0,2,1),(0,3,1),(1,4,1),(2,4,1),(3,4,1),(1,5,1),(4,5,1),(4,5,1),
    //      (5,6,1),(4,6,1),(2,6,0),(6,9,1),(5,9,1),(3,7,1),(7,8,1),(8,9,1),(9,0,1),
    //      (1,2,1),(2,1,1),(4,4,1),(6,3,1),(2,9,0)]
    // G = nx.DiGraph(); G.add_nodes_from(range(10))
    // G.add_edges_from((u, v) for u, v, ok in E if ok)
    // print(sorted(nx.shortest_simple_paths(G, 0, 9), key=lambda p: (len(p), p)))
    // print(sorted(nx.shortest_simple_paths(G, 3, 2), key=lambda p: (len(p), p)))
    const ALL_0_TO_9: [&[usize]; 30] = [
        &[0, 1, 5, 9],
        &[0, 1, 4, 5, 9],
        &[0, 1, 4, 6, 9],
        &[0, 1, 5, 6, 9],
        &[0, 2, 1, 5, 9],
        &[0, 2, 4, 5, 9],
        &[0, 2, 4, 6, 9],
        &[0, 3, 4, 5, 9],
        &[0, 3, 4, 6, 9],
        &[0, 3, 7, 8, 9],
        &[0, 1, 2, 4, 5, 9],
        &[0, 1, 2, 4, 6, 9],
        &[0, 1, 4, 5, 6, 9],
        &[0, 2, 1, 4, 5, 9],
        &[0, 2, 1, 4, 6, 9],
        &[0, 2, 1, 5, 6, 9],
        &[0, 2, 4, 5, 6, 9],
        &[0, 3, 4, 5, 6, 9],
        &[0, 1, 2, 4, 5, 6, 9],
        &[0, 2, 1, 4, 5, 6, 9],
        &[0, 1, 4, 6, 3, 7, 8, 9],
        &[0, 1, 5, 6, 3, 7, 8, 9],
        &[0, 2, 4, 6, 3, 7, 8, 9],
        &[0, 1, 2, 4, 6, 3, 7, 8, 9],
        &[0, 1, 4, 5, 6, 3, 7, 8, 9],
        &[0, 2, 1, 4, 6, 3, 7, 8, 9],
        &[0, 2, 1, 5, 6, 3, 7, 8, 9],
        &[0, 2, 4, 5, 6, 3, 7, 8, 9],
        &[0, 1, 2, 4, 5, 6, 3, 7, 8, 9],
        &[0, 2, 1, 4, 5, 6, 3, 7, 8, 9],
    ];
    const ALL_3_TO_2: [&[usize]; 8] = [
        &[3, 4, 5, 9, 0, 2],
        &[3, 4, 6, 9, 0, 2],
        &[3, 7, 8, 9, 0, 2],
        &[3, 4, 5, 6, 9, 0, 2],
        &[3, 4, 5, 9, 0, 1, 2],
        &[3, 4, 6, 9, 0, 1, 2],
        &[3, 7, 8, 9, 0, 1, 2],
        &[3, 4, 5, 6, 9, 0, 1, 2],
    ];

    #[test]
    fn all_paths_match_networkx() {
        let g = fixture();
        assert_eq!(run(&g, 0, 9, 100, 100), ALL_0_TO_9);
        assert_eq!(run(&g, 3, 2, 100, 100), ALL_3_TO_2);
    }

    #[test]
    fn every_prefix_k_is_the_first_k() {
        let g = fixture();
        for k in 0..=30 {
            assert_eq!(run(&g, 0, 9, k, 100), ALL_0_TO_9[..k], "k = {k}");
        }
    }

    #[test]
    fn max_hops_truncates_by_length() {
        let g = fixture();
        for hops in 0..=9 {
            let want: Vec<&[usize]> = ALL_0_TO_9
                .iter()
                .copied()
                .filter(|p| p.len() - 1 <= hops)
                .collect();
            assert_eq!(run(&g, 0, 9, 100, hops), want, "max_hops = {hops}");
        }
        // Within the limit, k still cuts.
        assert_eq!(run(&g, 0, 9, 3, 4), ALL_0_TO_9[..3]);
    }

    #[test]
    fn rejected_edges_are_not_followed() {
        let g = fixture();
        // 2→9 would be the one-hop path; it is rejected.
        assert_eq!(run(&g, 2, 9, 1, 100), [vec![2, 1, 5, 9]]);
        // Accepting everything makes it the shortest.
        let all = k_shortest_paths(&g, NodeIndex::new(2), NodeIndex::new(9), 2, 100, |_| true);
        assert_eq!(all[0], [NodeIndex::new(2), NodeIndex::new(9)]);
        assert_eq!(all[1], [2, 6, 9].map(NodeIndex::new));
    }

    #[test]
    fn degenerate_requests() {
        let g = fixture();
        assert_eq!(run(&g, 4, 4, 5, 0), [vec![4]]);
        assert!(run(&g, 4, 4, 0, 5).is_empty());
        assert!(run(&g, 0, 9, 0, 5).is_empty());
        assert!(run(&g, 0, 9, 5, 2).is_empty());
        assert!(run(&g, 0, 99, 5, 5).is_empty());
        // Only b→a exists: no path a→b.
        let mut g2 = DiGraph::<(), bool>::new();
        let (a, b) = (g2.add_node(()), g2.add_node(()));
        g2.add_edge(b, a, true);
        assert!(k_shortest_paths(&g2, a, b, 3, 10, |ok| *ok).is_empty());
    }

    // `random_edges(2000, 6000, 42)`, only edges of weight below 4 accepted, paths
    // 10→20, networkx 3.6.1:
    // G = nx.DiGraph(); G.add_nodes_from(range(2000))
    // G.add_edges_from((u, v) for u, v, w in random_edges(2000, 6000, 42) if w != 4.0)
    // paths = []
    // for p in nx.shortest_simple_paths(G, 10, 20):
    //     if len(paths) >= 30 and len(p) > len(paths[29]): break
    //     paths.append(p)
    // paths = sorted(paths, key=lambda p: (len(p), p))[:30]
    // print([len(p) - 1 for p in paths]); print(paths[0], paths[-1], [sum(p) for p in paths])
    const RANDOM_HOPS: [usize; 30] = [
        4, 11, 11, 11, 11, 12, 12, 12, 12, 12, 13, 13, 13, 13, 13, 13, 13, 13, 13, 14, 14, 14, 14,
        14, 14, 14, 14, 14, 14, 14,
    ];
    const RANDOM_FIRST: [usize; 5] = [10, 843, 64, 1438, 20];
    const RANDOM_LAST: [usize; 15] = [
        10, 843, 55, 1908, 817, 1616, 1717, 228, 1229, 775, 1122, 1553, 64, 1438, 20,
    ];
    const RANDOM_SUMS: [usize; 30] = [
        2375, 10106, 10914, 9891, 9353, 8648, 10859, 10964, 12403, 11996, 11806, 12185, 12332,
        11060, 9069, 9962, 12668, 10537, 11997, 14682, 11963, 12734, 15197, 11510, 11959, 13474,
        11340, 11318, 14364, 13395,
    ];

    #[test]
    fn random_2000_matches_networkx() {
        let mut g: DiGraph<(), f64> = DiGraph::new();
        for _ in 0..2000 {
            g.add_node(());
        }
        for (u, v, w) in random_edges(2000, 6000, 42) {
            g.add_edge(u.into(), v.into(), w);
        }
        let paths: Vec<Vec<usize>> = k_shortest_paths(
            &g,
            NodeIndex::new(10),
            NodeIndex::new(20),
            30,
            usize::MAX,
            |w| *w != 4.0,
        )
        .into_iter()
        .map(|p| p.into_iter().map(|v| v.index()).collect())
        .collect();
        let hops: Vec<usize> = paths.iter().map(|p| p.len() - 1).collect();
        assert_eq!(hops, RANDOM_HOPS);
        assert_eq!(paths[0], RANDOM_FIRST);
        assert_eq!(paths[29], RANDOM_LAST);
        let sums: Vec<usize> = paths.iter().map(|p| p.iter().sum()).collect();
        assert_eq!(sums, RANDOM_SUMS);
        for p in &paths {
            let mut sorted = p.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), p.len(), "loopless");
        }
    }
}
