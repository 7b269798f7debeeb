//! Communities: asynchronous label propagation on the undirected view of a directed
//! graph, and the directed edges that run between the communities found.
//!
//! Owns the propagation rule, its deterministic tie-breaking and the canonical
//! numbering of communities, so that the same graph and seed always give the same
//! answer. Randomness comes only from [`SplitMix64`]. No I/O.

use std::collections::BTreeMap;

use super::csr::{Csr, CsrOptions};
use petgraph::graph::DiGraph;

use crate::graph::splitmix::SplitMix64;

/// The path that names a group of nodes by where they live: the deepest path prefix
/// (a directory, or a whole file) that holds at least half of `paths` (one entry per
/// node, root-relative, `/` separators); when no prefix holds half, the deepest of
/// those holding the most. Ties go to the prefix with more members, then the
/// lexicographically smaller. `""` for no paths.
///
/// Examples: nodes spread over `pkg/db/models/query.py` and `pkg/db/models/base.py`
/// give `pkg/db/models`; most of them in one file gives that file.
/// Cost: O(total path length) time and memory.
pub fn common_path<'a>(paths: impl IntoIterator<Item = &'a str>) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut n = 0usize;
    for p in paths {
        n += 1;
        for (i, b) in p.bytes().enumerate() {
            if b == b'/' {
                *counts.entry(&p[..i]).or_insert(0) += 1;
            }
        }
        *counts.entry(p).or_insert(0) += 1;
    }
    let depth = |p: &str| p.bytes().filter(|&b| b == b'/').count();
    let most = counts.values().copied().max().unwrap_or(0);
    let enough = |c: usize| 2 * c >= n || c == most;
    let half_reached = counts.values().any(|&c| 2 * c >= n);
    counts
        .into_iter()
        .filter(|&(_, c)| if half_reached { 2 * c >= n } else { enough(c) })
        .max_by(|a, b| {
            depth(a.0)
                .cmp(&depth(b.0))
                .then(a.1.cmp(&b.1))
                .then(b.0.cmp(a.0))
        })
        .map(|(p, _)| p.to_string())
        .unwrap_or_default()
}

/// Asynchronous label propagation (Raghavan, Albert & Kumara 2007, "Near linear time
/// algorithm to detect community structures in large-scale networks", Phys. Rev. E 76).
///
/// Runs on the undirected, weighted view of `g`: an edge `u→v` of weight `w` gives `v`
/// a vote of `w` for `u`'s label and `u` a vote of `w` for `v`'s label; parallel edges
/// (and `u→v` next to `v→u`) add their votes; self-loops are ignored. Weights should
/// be finite and non-negative.
///
/// Every node starts with its own label. Each sweep visits the nodes that have
/// neighbours in an order shuffled by `SplitMix64::new(seed)` (one shuffle per sweep, continuing the same
/// stream); a node with neighbours takes the label with the largest total vote among
/// its neighbours, keeping its current label when that label is among the largest (as
/// Raghavan et al. and networkx `asyn_lpa_communities`), otherwise taking the smallest
/// of the tied labels (networkx picks one at random). It stops after a sweep that
/// changes no label, or after `max_iterations` sweeps.
///
/// A sweep visits only the nodes with a neighbour whose label changed since their own
/// last visit (every node in the first sweep): any other node would keep its label, so
/// skipping it changes nothing but the time. This is the active-node refinement of
/// parallel label propagation (Staudt & Meyerhenke 2016, "Engineering Parallel
/// Algorithms for Community Detection in Massive Networks", IEEE TPDS 27(1); networkit's
/// `PLP`), here kept sequential so the answer is the one of visiting every node.
///
/// Returns one community id per node, indexed by `NodeIndex::index()`, numbered
/// `0..k` in order of first appearance by node index (node 0 is in community 0).
/// Isolated nodes are communities of their own. Deterministic for a given graph, seed
/// and `max_iterations`.
///
/// Label propagation has no guarantee of quality: on a given graph some visiting
/// orders merge communities that others keep apart, and a different seed may give a
/// different partition.
///
/// Cost: O(V + E) memory; O(V) plus the degrees of the visited nodes per sweep.
pub fn label_propagation<N, E>(
    g: &DiGraph<N, E>,
    weight: impl Fn(&E) -> f64,
    seed: u64,
    max_iterations: usize,
) -> Vec<usize> {
    let n = g.node_count();
    let adj = Csr::build(g, CsrOptions::undirected_view(), |_| true, |_, e| weight(e));
    let mut labels: Vec<usize> = (0..n).collect();
    let mut order: Vec<usize> = (0..n).filter(|&u| adj.degree(u) > 0).collect();
    let mut rng = SplitMix64::new(seed);

    // Votes per label for the node being visited; `touched` lists the labels whose
    // vote is non-zero so that resetting costs O(degree).
    let mut votes = vec![0.0_f64; n];
    let mut voted = vec![false; n];
    let mut touched: Vec<usize> = Vec::new();
    // A node whose neighbours kept their labels since it was last visited would keep
    // its own (same votes, and its label is among the largest): only nodes with a
    // neighbour that changed are visited again. The shuffle still covers every node, so
    // the visiting order, and so the answer, is that of visiting them all.
    let mut stale = vec![true; n];

    for sweep in 0..max_iterations {
        rng.shuffle(&mut order);
        let mut changed = 0usize;
        let mut visited = 0usize;
        for &u in &order {
            if !stale[u] {
                continue;
            }
            stale[u] = false;
            visited += 1;
            for (&v, &w) in adj.neighbours(u).iter().zip(adj.payloads_of(u)) {
                let label = labels[v as usize];
                if !voted[label] {
                    voted[label] = true;
                    touched.push(label);
                }
                votes[label] += w;
            }
            let best = touched
                .iter()
                .map(|&l| votes[l])
                .fold(f64::NEG_INFINITY, f64::max);
            let current = labels[u];
            let keep = voted[current] && votes[current] == best;
            if !keep {
                let smallest = touched.iter().copied().filter(|&l| votes[l] == best).min();
                if let Some(label) = smallest {
                    if label != current {
                        labels[u] = label;
                        changed += 1;
                        for &v in adj.neighbours(u) {
                            stale[v as usize] = true;
                        }
                    }
                }
            }
            for &l in &touched {
                votes[l] = 0.0;
                voted[l] = false;
            }
            touched.clear();
        }
        tracing::debug!(
            "label propagation: sweep {sweep}: {changed} of {visited} visited labels changed ({n} nodes)"
        );
        if changed == 0 {
            break;
        }
    }

    canonical(&labels)
}

/// Renumbers labels `0..k` in order of first appearance by node index.
fn canonical(labels: &[usize]) -> Vec<usize> {
    let mut ids: Vec<usize> = vec![usize::MAX; labels.len()];
    let mut next = 0;
    labels
        .iter()
        .map(|&l| {
            if ids[l] == usize::MAX {
                ids[l] = next;
                next += 1;
            }
            ids[l]
        })
        .collect()
}

/// The directed edges from one community to another, aggregated.
#[derive(Debug, Clone, PartialEq)]
pub struct CommunityEdge {
    /// Community of the edges' sources.
    pub from: usize,
    /// Community of the edges' targets (never equal to `from`).
    pub to: usize,
    /// Number of edges of `g` from `from` to `to` (parallel edges each count).
    pub count: usize,
    /// Sum of their weights.
    pub weight: f64,
}

/// Aggregates the edges of `g` whose endpoints lie in different communities into one
/// [`CommunityEdge`] per ordered pair `(from, to)`, sorted by weight descending, then
/// by `(from, to)`.
///
/// `labels` gives the community of each node by `NodeIndex::index()` (for example the
/// output of [`label_propagation`]); edges with an endpoint outside `labels` are
/// skipped.
///
/// Cost: O(E log C) for C community pairs.
pub fn community_edges<N, E>(
    g: &DiGraph<N, E>,
    labels: &[usize],
    weight: impl Fn(&E) -> f64,
) -> Vec<CommunityEdge> {
    let mut pairs: BTreeMap<(usize, usize), (usize, f64)> = BTreeMap::new();
    for e in g.raw_edges() {
        let (Some(&from), Some(&to)) = (
            labels.get(e.source().index()),
            labels.get(e.target().index()),
        ) else {
            continue;
        };
        if from != to {
            let entry = pairs.entry((from, to)).or_insert((0, 0.0));
            entry.0 += 1;
            entry.1 += weight(&e.weight);
        }
    }
    let mut out: Vec<CommunityEdge> = pairs
        .into_iter()
        .map(|((from, to), (count, weight))| CommunityEdge {
            from,
            to,
            count,
            weight,
        })
        .collect();
    out.sort_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then((a.from, a.to).cmp(&(b.from, b.to)))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two 5-cliques {0..4} and {5..9} (one directed edge per pair), joined by the
    /// edge 4→5, plus the isolated nodes 10 and 11.
    fn two_cliques() -> DiGraph<(), f64> {
        let mut g = DiGraph::new();
        for _ in 0..12 {
            g.add_node(());
        }
        for base in [0_u32, 5] {
            for a in 0..5 {
                for b in a + 1..5 {
                    g.add_edge((base + a).into(), (base + b).into(), 1.0);
                }
            }
        }
        g.add_edge(4.into(), 5.into(), 1.0);
        g
    }

    const TWO_CLIQUES: [usize; 12] = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 3];

    /// Seeds 0..20 all split the cliques. Not every seed does: over seeds 0..10,000,
    /// 309 (3.1%; the first is 29) merge both cliques into one community, when node 5
    /// is visited before its clique has agreed and takes the smaller label of node 4.
    /// That is label propagation's known instability, not a defect of this
    /// implementation (a Python model of the same rule, and networkx's random
    /// tie-breaking at 0.5%, show the same).
    #[test]
    fn two_cliques_split_for_many_seeds() {
        let g = two_cliques();
        for seed in 0..20 {
            let labels = label_propagation(&g, |w| *w, seed, 100);
            assert_eq!(labels, TWO_CLIQUES, "seed {seed}");
        }
    }

    #[test]
    fn deterministic_for_a_seed() {
        let g = crate::graph::splitmix::random_digraph(500, 1500, 3);
        let a = label_propagation(&g, |w| *w, 11, 100);
        let b = label_propagation(&g, |w| *w, 11, 100);
        assert_eq!(a, b);
        // Canonical numbering: ids appear in increasing order by node index.
        let mut seen = 0;
        for &l in &a {
            assert!(l <= seen);
            if l == seen {
                seen += 1;
            }
        }
    }

    /// The rule of [`label_propagation`] visiting every node at every sweep: the
    /// oracle for its skipping of nodes whose neighbours kept their labels.
    fn visit_every_node(g: &DiGraph<(), f64>, seed: u64, max_iterations: usize) -> Vec<usize> {
        let n = g.node_count();
        let adj = Csr::build(g, CsrOptions::undirected_view(), |_| true, |_, e| *e);
        let mut labels: Vec<usize> = (0..n).collect();
        let mut order: Vec<usize> = (0..n).filter(|&u| adj.degree(u) > 0).collect();
        let mut rng = SplitMix64::new(seed);
        for _ in 0..max_iterations {
            rng.shuffle(&mut order);
            let mut changed = 0;
            for &u in &order {
                let mut votes: BTreeMap<usize, f64> = BTreeMap::new();
                for (&v, &w) in adj.neighbours(u).iter().zip(adj.payloads_of(u)) {
                    *votes.entry(labels[v as usize]).or_insert(0.0) += w;
                }
                let best = votes.values().copied().fold(f64::NEG_INFINITY, f64::max);
                if votes.get(&labels[u]) == Some(&best) {
                    continue;
                }
                let label = votes.iter().find(|(_, &w)| w == best).map(|(&l, _)| l);
                if let Some(label) = label {
                    labels[u] = label;
                    changed += 1;
                }
            }
            if changed == 0 {
                break;
            }
        }
        canonical(&labels)
    }

    #[test]
    fn skipping_settled_nodes_gives_the_answer_of_visiting_every_node() {
        for (nodes, edges) in [(60, 90), (300, 500), (2000, 2600), (2000, 9000)] {
            for graph_seed in 0..4 {
                let mut g = crate::graph::splitmix::random_digraph(nodes, edges, graph_seed);
                // Integer weights of 1 to 3, so that ties happen and are broken alike.
                for (i, w) in g.edge_weights_mut().enumerate() {
                    *w = (1 + i % 3) as f64;
                }
                for seed in 0..5 {
                    for max in [1, 3, 100] {
                        assert_eq!(
                            label_propagation(&g, |w| *w, seed, max),
                            visit_every_node(&g, seed, max),
                            "{nodes} nodes, {edges} edges, graph {graph_seed}, seed {seed}, {max} sweeps"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn zero_sweeps_leaves_singletons() {
        let g = two_cliques();
        assert_eq!(
            label_propagation(&g, |w| *w, 0, 0),
            (0..12).collect::<Vec<_>>()
        );
    }

    #[test]
    fn weights_decide() {
        // Path 0 - 1 - 2: node 1 is pulled to the heavier side whatever the order.
        let mut g: DiGraph<(), f64> = DiGraph::new();
        let (a, b, c) = (g.add_node(()), g.add_node(()), g.add_node(()));
        g.add_edge(a, b, 1.0);
        g.add_edge(c, b, 5.0);
        for seed in 0..10 {
            let labels = label_propagation(&g, |w| *w, seed, 100);
            assert_eq!(labels[1], labels[2], "seed {seed}");
        }
    }

    #[test]
    fn edges_between_communities() {
        let mut g = two_cliques();
        g.add_edge(6.into(), 0.into(), 2.0);
        g.add_edge(7.into(), 1.into(), 0.5);
        g.add_edge(10.into(), 11.into(), 3.0);
        g.add_edge(11.into(), 11.into(), 9.0);
        let labels = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 3];
        let edges = community_edges(&g, &labels, |w| *w);
        assert_eq!(
            edges,
            [
                CommunityEdge {
                    from: 2,
                    to: 3,
                    count: 1,
                    weight: 3.0
                },
                CommunityEdge {
                    from: 1,
                    to: 0,
                    count: 2,
                    weight: 2.5
                },
                CommunityEdge {
                    from: 0,
                    to: 1,
                    count: 1,
                    weight: 1.0
                },
            ]
        );
    }

    #[test]
    fn common_path_is_the_deepest_prefix_holding_half() {
        assert_eq!(common_path([]), "");
        assert_eq!(
            common_path([
                "pkg/db/models/query.py",
                "pkg/db/models/base.py",
                "pkg/db/models/fields.py",
                "pkg/http/request.py",
            ]),
            "pkg/db/models"
        );
        // Most nodes in one file: that file.
        assert_eq!(
            common_path(["rich/console.py", "rich/console.py", "rich/text.py"]),
            "rich/console.py"
        );
        // Spread over top-level directories with none holding half: the deepest of the
        // most common.
        assert_eq!(
            common_path(["a/x.py", "a/y.py", "b/z.py", "c/w.py", "d/v.py"]),
            "a"
        );
        assert_eq!(common_path(["setup.py"]), "setup.py");
    }
}
