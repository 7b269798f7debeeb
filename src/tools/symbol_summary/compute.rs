//! Everything a summary holds, at one radius and before any budgeting: centrality
//! (PageRank of the filtered graph, personalized by the seeds), the kept node set by
//! scope, statistics, communities and call-path samples. The budget ladder only cuts
//! lists from what this computes; the filtered view is memoized in the snapshot.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::graph::articulation::articulation_points;
use crate::graph::communities::{common_path, community_edges};
use crate::graph::cycles::{find_cycles, CycleLimits};
use crate::graph::pagerank::{personalized_pagerank, PageRankOptions};
use crate::graph::paths::k_shortest_paths;
use crate::graph::symbol_graph::{EdgeKind, SymbolEdge};
use crate::graph::SymbolGraph;

use super::args::Params;
use super::{CommunityEdgeOut, CommunityOut, GraphStats, Scope};

/// Neighbourhood of `start` within `radius` hops in either direction, through nodes
/// that pass `keep`.
fn neighbourhood(
    g: &SymbolGraph,
    start: &[NodeIndex],
    radius: usize,
    keep: &[bool],
) -> HashSet<NodeIndex> {
    let mut seen: HashSet<NodeIndex> = start
        .iter()
        .copied()
        .filter(|ix| keep[ix.index()])
        .collect();
    let mut queue: VecDeque<(NodeIndex, usize)> = seen.iter().map(|&ix| (ix, 0)).collect();
    while let Some((ix, d)) = queue.pop_front() {
        if d == radius {
            continue;
        }
        for dir in [Direction::Outgoing, Direction::Incoming] {
            for n in g.graph.neighbors_directed(ix, dir) {
                if keep[n.index()] && seen.insert(n) {
                    queue.push_back((n, d + 1));
                }
            }
        }
    }
    seen
}

/// Everything computed before budgeting; the ladder only cuts lists from it.
pub(super) struct Full {
    pub(super) stats: GraphStats,
    pub(super) seeds: Vec<String>,
    pub(super) top: Vec<(String, f64)>,
    pub(super) kept: usize,
    pub(super) communities: Vec<CommunityOut>,
    pub(super) community_edges: Vec<CommunityEdgeOut>,
    pub(super) paths: Vec<Vec<String>>,
    pub(super) dot_nodes: Vec<NodeIndex>,
}

/// The filtered graph and what does not depend on seeds or radius, memoized in the
/// snapshot per filter.
struct FilteredView {
    /// Nodes that pass the filters, in index order.
    filtered: Vec<NodeIndex>,
    node_count: usize,
    edge_count: usize,
    /// Strongly connected components of two or more nodes.
    cycles: usize,
    /// PageRank of the filtered graph, indexed by the snapshot's node index (0 outside).
    pagerank: Vec<f64>,
}

fn filtered_view(g: &SymbolGraph, keep: &[bool]) -> FilteredView {
    let started = std::time::Instant::now();
    let sub = g
        .graph
        .filter_map(|ix, _| keep[ix.index()].then_some(ix), |_, e| Some(*e));
    let cycles = find_cycles(
        &sub,
        CycleLimits {
            max_cycles: 0,
            max_len: 0,
        },
    );
    let pr_sub =
        crate::graph::pagerank::pagerank(&sub, SymbolEdge::weight, PageRankOptions::default())
            .scores;
    let mut pagerank = vec![0.0; g.graph.node_count()];
    for s in sub.node_indices() {
        pagerank[sub[s].index()] = pr_sub[s.index()];
    }
    tracing::debug!(
        "summary view: {} nodes, {} cyclic components in {} ms",
        sub.node_count(),
        cycles.components,
        started.elapsed().as_millis()
    );
    FilteredView {
        filtered: sub.node_indices().map(|s| sub[s]).collect(),
        node_count: sub.node_count(),
        edge_count: sub.edge_count(),
        cycles: cycles.components,
        pagerank,
    }
}

/// Computes the summary at one radius.
pub(super) fn compute(
    g: &SymbolGraph,
    p: &Params,
    radius: usize,
    keep: &[bool],
    seeds: &[NodeIndex],
    filter_key: &str,
) -> Full {
    let view = g.memo(&format!("summarize-filter {filter_key}"), || {
        filtered_view(g, keep)
    });
    let filtered = &view.filtered;
    let (node_count, edge_count) = (view.node_count, view.edge_count);
    // Centrality: PageRank of the filtered graph, personalized by the seeds if any.
    let pr: Vec<f64> = if seeds.is_empty() {
        view.pagerank.clone()
    } else {
        let sub = g
            .graph
            .filter_map(|ix, _| keep[ix.index()].then_some(ix), |_, e| Some(*e));
        let index: HashMap<NodeIndex, NodeIndex> =
            sub.node_indices().map(|s| (sub[s], s)).collect();
        let local: Vec<NodeIndex> = seeds.iter().filter_map(|s| index.get(s).copied()).collect();
        let scores =
            personalized_pagerank(&sub, SymbolEdge::weight, &local, PageRankOptions::default())
                .scores;
        let mut pr = vec![0.0; g.graph.node_count()];
        for s in sub.node_indices() {
            pr[sub[s].index()] = scores[s.index()];
        }
        pr
    };
    let by_pr =
        |a: &NodeIndex, b: &NodeIndex| pr[b.index()].total_cmp(&pr[a.index()]).then(a.cmp(b));

    // The kept set, by scope.
    let anchors: Vec<NodeIndex> = if seeds.is_empty() {
        let mut ranked = filtered.clone();
        let k = ranked.len().min(10);
        if k < ranked.len() {
            ranked.select_nth_unstable_by(k, by_pr);
            ranked.truncate(k);
        }
        ranked.sort_by(by_pr);
        ranked
    } else {
        seeds.to_vec()
    };
    let kept: HashSet<NodeIndex> = match p.scope {
        Scope::Full => filtered.iter().copied().collect(),
        Scope::SeedOnly => neighbourhood(g, &anchors, radius, keep),
        Scope::Module => {
            let files: HashSet<&str> = anchors.iter().map(|&a| g.node(a).path.as_str()).collect();
            let members: Vec<NodeIndex> = filtered
                .iter()
                .copied()
                .filter(|&ix| files.contains(g.node(ix).path.as_str()))
                .collect();
            neighbourhood(g, &members, radius, keep)
        }
        Scope::Community => {
            let labels = &g.communities().labels;
            let wanted: HashSet<usize> = anchors.iter().map(|a| labels[a.index()]).collect();
            let members: Vec<NodeIndex> = filtered
                .iter()
                .copied()
                .filter(|ix| wanted.contains(&labels[ix.index()]))
                .collect();
            neighbourhood(g, &members, radius, keep)
        }
    };
    let mut kept_sorted: Vec<NodeIndex> = kept.iter().copied().collect();
    kept_sorted.sort_by(by_pr);

    // The kept induced subgraph: articulation points, communities, paths.
    let kept_graph = g
        .graph
        .filter_map(|ix, _| kept.contains(&ix).then_some(ix), |_, e| Some(*e));
    let critical = articulation_points(&kept_graph).len();
    let top: Vec<(String, f64)> = kept_sorted
        .iter()
        .take(p.top_k)
        .map(|&ix| (g.node(ix).key.clone(), round(pr[ix.index()])))
        .collect();

    let (communities, community_edges_out) = if p.with_communities {
        communities_of(g, &kept_graph, &pr, p)
    } else {
        (Vec::new(), Vec::new())
    };
    let paths = if p.with_paths {
        call_paths(g, &kept_graph, &pr, p)
    } else {
        Vec::new()
    };
    Full {
        stats: GraphStats {
            node_count,
            edge_count,
            avg_degree: if node_count == 0 {
                0.0
            } else {
                round2(2.0 * edge_count as f64 / node_count as f64)
            },
            cycles_count: view.cycles,
            critical_nodes_count: critical,
            min_confidence: g.min_confidence(),
            edges_below_min_confidence: g.left_out(),
        },
        seeds: seeds.iter().map(|&s| g.node(s).label()).collect(),
        top,
        kept: kept.len(),
        communities,
        community_edges: community_edges_out,
        paths,
        dot_nodes: kept_sorted,
    }
}

fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

pub(super) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The communities of the whole graph (cached in the snapshot, so ids agree with
/// `get_community`) restricted to the kept nodes, largest first, with the edges between
/// them inside the kept graph.
fn communities_of(
    g: &SymbolGraph,
    kept: &petgraph::Graph<NodeIndex, SymbolEdge>,
    pr: &[f64],
    p: &Params,
) -> (Vec<CommunityOut>, Vec<CommunityEdgeOut>) {
    let global = g.communities();
    let labels: Vec<usize> = kept
        .node_indices()
        .map(|s| global.labels[kept[s].index()])
        .collect();
    let mut members: BTreeMap<usize, Vec<NodeIndex>> = BTreeMap::new();
    for s in kept.node_indices() {
        members.entry(labels[s.index()]).or_default().push(kept[s]);
    }
    let mut list: Vec<(usize, CommunityOut)> = members
        .into_iter()
        .map(|(label, mut nodes)| {
            nodes.sort_by(|a, b| pr[b.index()].total_cmp(&pr[a.index()]).then(a.cmp(b)));
            let out = CommunityOut {
                id: global.ids[label].clone(),
                label: common_path(nodes.iter().map(|&n| g.node(n).path.as_str())),
                size: nodes.len(),
                samples: nodes
                    .iter()
                    .take(p.max_nodes_per_community)
                    .map(|&n| g.node(n).label())
                    .collect(),
            };
            (label, out)
        })
        .collect();
    list.sort_by(|a, b| b.1.size.cmp(&a.1.size).then(a.1.id.cmp(&b.1.id)));
    let listed: HashSet<usize> = list
        .iter()
        .take(p.max_communities)
        .map(|(l, _)| *l)
        .collect();
    let edges = community_edges(kept, &labels, SymbolEdge::weight)
        .into_iter()
        .filter(|e| listed.contains(&e.from) && listed.contains(&e.to))
        .map(|e| CommunityEdgeOut {
            src: global.ids[e.from].clone(),
            dst: global.ids[e.to].clone(),
            edges: e.count,
            weight_sum: round2(e.weight),
        })
        .collect();
    let communities = list
        .into_iter()
        .take(p.max_communities)
        .map(|(_, c)| c)
        .collect();
    (communities, edges)
}

/// Call-path samples: from entry points (callables that call but are not called inside
/// the kept graph), the longest shortest call path within `path_max_hops`, preferring
/// central entry points. Calls edges only.
fn call_paths(
    g: &SymbolGraph,
    kept: &petgraph::Graph<NodeIndex, SymbolEdge>,
    pr: &[f64],
    p: &Params,
) -> Vec<Vec<String>> {
    let calls = |e: &SymbolEdge| e.kind == EdgeKind::Calls;
    let mut entries: Vec<NodeIndex> = kept
        .node_indices()
        .filter(|&s| {
            kept.edges_directed(s, Direction::Outgoing)
                .any(|e| calls(e.weight()))
                && !kept
                    .edges_directed(s, Direction::Incoming)
                    .any(|e| calls(e.weight()))
        })
        .collect();
    // Entry points that reach far and are central first.
    entries.sort_by(|a, b| {
        pr[kept[*b].index()]
            .total_cmp(&pr[kept[*a].index()])
            .then(a.cmp(b))
    });
    let mut out = Vec::new();
    for src in entries.into_iter().take(p.path_samples * 4) {
        if out.len() >= p.path_samples {
            break;
        }
        // The farthest node reachable by calls within the hop limit (BFS order).
        let mut depth: HashMap<NodeIndex, usize> = HashMap::from([(src, 0)]);
        let mut queue = VecDeque::from([src]);
        let mut far = src;
        while let Some(n) = queue.pop_front() {
            let d = depth[&n];
            if d > depth[&far] {
                far = n;
            }
            if d == p.path_max_hops {
                continue;
            }
            let mut next: Vec<NodeIndex> = kept
                .edges_directed(n, Direction::Outgoing)
                .filter(|e| calls(e.weight()))
                .map(|e| e.target())
                .collect();
            next.sort();
            for t in next {
                if let std::collections::hash_map::Entry::Vacant(v) = depth.entry(t) {
                    v.insert(d + 1);
                    queue.push_back(t);
                }
            }
        }
        if far == src {
            continue;
        }
        if let Some(path) = k_shortest_paths(kept, src, far, 1, p.path_max_hops, calls)
            .into_iter()
            .next()
        {
            out.push(path.into_iter().map(|s| g.node(kept[s]).label()).collect());
        }
    }
    out
}
