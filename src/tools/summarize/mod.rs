//! `summarize_graph` (seed 001): a budgeted summary of the symbol graph — statistics,
//! the most central nodes by PageRank, communities, call-path samples — that fits a
//! token budget counted with a real BPE tokenizer (cl100k_base), degrading step by step
//! when it does not.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::{Arc, OnceLock};

use globset::{Glob, GlobSet, GlobSetBuilder};
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::graph::articulation::articulation_points;
use crate::graph::communities::community_edges;
use crate::graph::cycles::{find_cycles, CycleLimits};
use crate::graph::pagerank::{personalized_pagerank, PageRankOptions};
use crate::graph::paths::k_shortest_paths;
use crate::graph::symbol_graph::{EdgeKind, SymbolEdge};
use crate::graph::SymbolGraph;
use crate::lang::Language;

use super::ToolError;

/// Largest accepted `radius`.
pub const MAX_RADIUS: usize = 3;
/// Default `exclude_filters` (seed 001).
pub const DEFAULT_EXCLUDES: &[&str] = &[
    "**/tests/**",
    "**/test/**",
    "**/fixtures/**",
    "vendor/**",
    "generated/**",
    "examples/**",
];

/// How much of the graph the summary covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Default)]
pub enum Scope {
    /// The seeds and their neighbourhood within `radius`.
    SeedOnly,
    /// The files of the seeds (every symbol in them) and their neighbourhood.
    Module,
    /// The communities (label propagation) that contain the seeds, or the most central
    /// nodes when there are no seeds.
    #[default]
    Community,
    /// The whole filtered graph.
    Full,
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Json,
    /// Prose plus short lists (`text` is accepted as an alias).
    #[serde(alias = "text")]
    Summary,
    /// Graphviz DOT of the kept induced subgraph (strictly limited).
    Dot,
}

/// Arguments of `summarize_graph`: both parameter lists of seed 001.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SummarizeArgs {
    /// Workspace to summarize (seed: `path`); the server's workspace when absent.
    pub path: Option<String>,
    /// Same as `path`.
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
    /// Neighbourhood radius in hops around the seeds (default 1, at most 3).
    pub radius: Option<usize>,
    /// How many nodes `top_nodes` lists (default 200).
    pub top_k: Option<usize>,
    /// Seed nodes: node ids (`func:src/a.rs::f`), labels (`fn f()`), bare names or file paths.
    pub seeds: Option<Vec<String>>,
    /// Use the files changed against git HEAD (staged or not) as seeds.
    pub seeds_from_diff: Option<bool>,
    /// Only files matching one of these globs.
    pub include_filters: Option<Vec<String>>,
    /// Leave out files matching these globs (default `**/tests/**, **/test/**, **/fixtures/**, vendor/**, generated/**, examples/**`).
    pub exclude_filters: Option<Vec<String>>,
    /// Only these languages (`rust`, `python`, `javascript`, `typescript`, `tsx`, `go`,
    /// `java`, `c`, `cpp`).
    pub language_filters: Option<Vec<String>>,
    /// `SeedOnly` | `Module` | `Community` (default) | `Full`.
    pub scope: Option<Scope>,
    /// Include communities (default true).
    pub with_communities: Option<bool>,
    /// Same as `with_communities`.
    pub community: Option<bool>,
    /// Community algorithm; only `labelprop`.
    pub comm_alg: Option<String>,
    /// Most communities listed (default 50).
    pub max_communities: Option<usize>,
    /// Sample labels per community (default 10).
    pub max_nodes_per_community: Option<usize>,
    /// Include call-path samples (default true).
    pub with_paths: Option<bool>,
    /// Most call paths listed (default 5).
    pub path_samples: Option<usize>,
    /// Longest call path in edges (default 5).
    pub path_max_hops: Option<usize>,
    /// Token budget of the rendered response, cl100k_base (default 3000).
    pub budget_tokens: Option<usize>,
    /// `json` (default) | `summary` (alias `text`) | `dot`.
    pub format: Option<Format>,
    /// Use only edges at least this confident (0-1, default 0.97): call and base edges
    /// carry the measured precision of the rule that resolved them.
    pub min_confidence: Option<f64>,
}

/// `graph_stats` of the response.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct GraphStats {
    /// Nodes of the filtered graph.
    pub node_count: usize,
    /// Edges between them.
    pub edge_count: usize,
    /// 2 × edges / nodes.
    pub avg_degree: f64,
    /// Strongly connected components of two or more nodes.
    pub cycles_count: usize,
    /// Articulation points of the undirected kept graph.
    pub critical_nodes_count: usize,
    /// The confidence every edge used reaches (`min_confidence`, default 0.97).
    pub min_confidence: f64,
    /// Call and base edges of the index left out for a confidence below it.
    pub edges_below_min_confidence: usize,
}

/// One community of the kept graph.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CommunityOut {
    /// The file node most of its members belong to (`file:PATH`).
    pub id: String,
    pub size: usize,
    /// Labels of its most central members.
    pub samples: Vec<String>,
}

/// Edges between two communities.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CommunityEdgeOut {
    pub src: String,
    pub dst: String,
    pub edges: usize,
    pub weight_sum: f64,
}

/// What was cut to fit the budget, and the totals before cutting.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq, Default)]
pub struct Truncation {
    /// The degradation steps applied, in order (`radius 2 -> 1`, `top_k 200 -> 150`, ...).
    pub steps: Vec<String>,
    pub top_nodes_total: usize,
    pub communities_total: usize,
    pub path_examples_total: usize,
    pub seeds_total: usize,
}

/// The response (seed 001 field names).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SummarizeResponse {
    pub graph_stats: GraphStats,
    pub seeds_preview: Vec<String>,
    /// `[[node_id, pr_score]]`, most central first.
    pub top_nodes: Vec<(String, f64)>,
    pub kept_nodes: usize,
    pub radius: usize,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub communities: Option<Vec<CommunityOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub community_edges: Option<Vec<CommunityEdgeOut>>,
    /// Call paths as label sequences (calls edges only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_examples: Option<Vec<Vec<String>>>,
    /// Present when `truncated`: what was dropped and the totals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncation: Option<Truncation>,
    /// Tokens of the rendered response (cl100k_base).
    pub tokens: usize,
}

/// The rendered answer: the structure plus its text in the requested format.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub response: SummarizeResponse,
    pub format: Format,
    pub text: String,
}

/// The cl100k_base tokenizer, loaded once (its ranks ship inside tiktoken-rs).
pub fn count_tokens(text: &str) -> usize {
    static BPE: OnceLock<Option<tiktoken_rs::CoreBPE>> = OnceLock::new();
    match BPE.get_or_init(|| tiktoken_rs::cl100k_base().ok()) {
        Some(bpe) => bpe.encode_ordinary(text).len(),
        // Never expected (the ranks are compiled in); a conservative estimate.
        None => text.len().div_ceil(3),
    }
}

/// Validated parameters with defaults applied.
#[derive(Debug, Clone)]
struct Params {
    radius: usize,
    top_k: usize,
    scope: Scope,
    with_communities: bool,
    max_communities: usize,
    max_nodes_per_community: usize,
    with_paths: bool,
    path_samples: usize,
    path_max_hops: usize,
    budget: usize,
    format: Format,
}

fn globs(list: &[String]) -> Result<GlobSet, ToolError> {
    let mut b = GlobSetBuilder::new();
    for g in list {
        let glob = Glob::new(g)
            .map_err(|e| ToolError::InvalidFilter(format!("glob {g:?} is not valid: {e}")))?;
        b.add(glob);
    }
    b.build()
        .map_err(|e| ToolError::InvalidFilter(format!("globs {list:?}: {e}")))
}

/// Which nodes pass the filters: a file passes include/exclude globs and the language
/// filter; a node passes with its file.
fn node_filter(g: &SymbolGraph, args: &SummarizeArgs) -> Result<Vec<bool>, ToolError> {
    let include = match &args.include_filters {
        Some(list) if !list.is_empty() => Some(globs(list)?),
        _ => None,
    };
    let default_excludes: Vec<String> = DEFAULT_EXCLUDES.iter().map(|s| s.to_string()).collect();
    let exclude = globs(args.exclude_filters.as_ref().unwrap_or(&default_excludes))?;
    let languages: Option<HashSet<&'static str>> = match &args.language_filters {
        Some(list) if !list.is_empty() => Some(
            list.iter()
                .map(|l| {
                    Language::from_name(&l.to_ascii_lowercase())
                        .map(Language::name)
                        .ok_or_else(|| {
                            let known: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
                            ToolError::InvalidFilter(format!(
                                "unknown language {l:?}; known: {}",
                                known.join(", ")
                            ))
                        })
                })
                .collect::<Result<_, _>>()?,
        ),
        _ => None,
    };
    let mut by_path: HashMap<&str, bool> = HashMap::new();
    Ok(g.graph
        .node_indices()
        .map(|ix| {
            let n = g.node(ix);
            *by_path.entry(n.path.as_str()).or_insert_with(|| {
                include.as_ref().is_none_or(|i| i.is_match(&n.path))
                    && !exclude.is_match(&n.path)
                    && languages
                        .as_ref()
                        .is_none_or(|l| n.language.as_deref().is_some_and(|x| l.contains(x)))
            })
        })
        .collect())
}

/// Finds the nodes a seed string names: a node key, a label (`fn f()`), a file path
/// (its file node), or a bare / qualified name (every definition with it).
pub fn resolve_seed(g: &SymbolGraph, seed: &str) -> Vec<NodeIndex> {
    if let Some(ix) = g.by_key(seed) {
        return vec![ix];
    }
    if let Some(ix) = g.by_key(&format!("file:{}", seed.trim_start_matches("./"))) {
        return vec![ix];
    }
    g.graph
        .node_indices()
        .filter(|&ix| {
            let n = g.node(ix);
            n.kind != "file" && (n.name == seed || n.qualified_name == seed || n.label() == seed)
        })
        .collect()
}

/// Files changed against git HEAD (staged or not) in `root`, root-relative.
pub fn changed_files(root: &Path) -> Result<Vec<String>, ToolError> {
    let out = std::process::Command::new("git")
        .args(["diff", "--name-only", "HEAD", "--relative"])
        .current_dir(root)
        .output()
        .map_err(|e| ToolError::InvalidArgument(format!("seeds_from_diff needs git: {e}")))?;
    if !out.status.success() {
        return Err(ToolError::InvalidArgument(format!(
            "seeds_from_diff: git diff failed ({}); is {} a git repository with a HEAD?",
            String::from_utf8_lossy(&out.stderr).trim(),
            root.display()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect())
}

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
struct Full {
    stats: GraphStats,
    seeds: Vec<String>,
    top: Vec<(String, f64)>,
    kept: usize,
    communities: Vec<CommunityOut>,
    community_edges: Vec<CommunityEdgeOut>,
    paths: Vec<Vec<String>>,
    dot_nodes: Vec<NodeIndex>,
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
    FilteredView {
        filtered: sub.node_indices().map(|s| sub[s]).collect(),
        node_count: sub.node_count(),
        edge_count: sub.edge_count(),
        cycles: cycles.components,
        pagerank,
    }
}

/// Computes the summary at one radius.
fn compute(
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

fn round2(x: f64) -> f64 {
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

/// The response with lists cut to the given sizes, rendered and counted.
fn render(
    g: &SymbolGraph,
    full: &Full,
    p: &Params,
    cut: &Cut,
    radius: usize,
    steps: &[String],
) -> Rendered {
    let truncated = !steps.is_empty();
    let mut response = SummarizeResponse {
        graph_stats: full.stats.clone(),
        seeds_preview: full.seeds.iter().take(cut.seeds).cloned().collect(),
        top_nodes: full.top.iter().take(cut.top_k).cloned().collect(),
        kept_nodes: full.kept,
        radius,
        truncated,
        communities: p.with_communities.then(|| {
            full.communities
                .iter()
                .take(cut.communities)
                .map(|c| CommunityOut {
                    samples: c.samples.iter().take(cut.samples).cloned().collect(),
                    ..c.clone()
                })
                .collect()
        }),
        community_edges: p.with_communities.then(|| {
            let listed: HashSet<&str> = full
                .communities
                .iter()
                .take(cut.communities)
                .map(|c| c.id.as_str())
                .collect();
            full.community_edges
                .iter()
                .filter(|e| listed.contains(e.src.as_str()) && listed.contains(e.dst.as_str()))
                .take(cut.communities * 2)
                .cloned()
                .collect()
        }),
        path_examples: p
            .with_paths
            .then(|| full.paths.iter().take(cut.paths).cloned().collect()),
        truncation: truncated.then(|| Truncation {
            steps: steps.to_vec(),
            top_nodes_total: full.top.len(),
            communities_total: full.communities.len(),
            path_examples_total: full.paths.len(),
            seeds_total: full.seeds.len(),
        }),
        tokens: 0,
    };
    let text = match p.format {
        Format::Json => serde_json::to_string(&response).unwrap_or_default(),
        Format::Summary => render_summary(&response),
        Format::Dot => render_dot(g, full, cut.top_k),
    };
    // The count includes the count field itself; a few digits of slack.
    response.tokens = count_tokens(&text) + 4;
    let text = match p.format {
        Format::Json => serde_json::to_string(&response).unwrap_or_default(),
        _ => text,
    };
    Rendered {
        response,
        format: p.format,
        text,
    }
}

/// One degradation step: cuts a list and says what it did, or `None` when it has
/// nothing left to cut.
type LadderStep = dyn Fn(&mut Cut) -> Option<String>;

/// List sizes during degradation.
#[derive(Debug, Clone, Copy)]
struct Cut {
    top_k: usize,
    communities: usize,
    /// Sample labels per community.
    samples: usize,
    paths: usize,
    seeds: usize,
}

/// Prose plus short lists, in the spirit of aider's repo map.
fn render_summary(r: &SummarizeResponse) -> String {
    let s = &r.graph_stats;
    let mut out = format!(
        "{} nodes, {} edges (average degree {}), {} strongly connected groups, {} critical nodes in the kept graph of {} nodes (radius {}).\n",
        s.node_count, s.edge_count, s.avg_degree, s.cycles_count, s.critical_nodes_count, r.kept_nodes, r.radius
    );
    if s.edges_below_min_confidence > 0 {
        out.push_str(&format!(
            "Edges used have confidence >= {}; {} weaker call or base edges left out (min_confidence lowers the bar).\n",
            s.min_confidence, s.edges_below_min_confidence
        ));
    }
    if !r.seeds_preview.is_empty() {
        out.push_str(&format!("Seeds: {}\n", r.seeds_preview.join(", ")));
    }
    out.push_str("Most central (PageRank):\n");
    for (id, score) in &r.top_nodes {
        out.push_str(&format!("  {id} {score}\n"));
    }
    if let Some(cs) = &r.communities {
        out.push_str("Communities:\n");
        for c in cs {
            out.push_str(&format!(
                "  {} ({} nodes): {}\n",
                c.id,
                c.size,
                c.samples.join(", ")
            ));
        }
    }
    if let Some(ps) = &r.path_examples {
        out.push_str("Call paths:\n");
        for p in ps {
            out.push_str(&format!("  {}\n", p.join(" -> ")));
        }
    }
    if let Some(t) = &r.truncation {
        out.push_str(&format!(
            "Truncated to fit the budget: {}.\n",
            t.steps.join("; ")
        ));
    }
    out
}

/// DOT of the induced subgraph of the `limit` most central kept nodes.
fn render_dot(g: &SymbolGraph, full: &Full, limit: usize) -> String {
    let nodes: Vec<NodeIndex> = full.dot_nodes.iter().take(limit).copied().collect();
    let set: HashMap<NodeIndex, usize> = nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let mut out = String::from("digraph summary {\n  node [shape=box, fontsize=10];\n");
    for (i, &n) in nodes.iter().enumerate() {
        out.push_str(&format!("  n{i} [label={}];\n", quote(&g.node(n).label())));
    }
    for &n in &nodes {
        for e in g.graph.edges_directed(n, Direction::Outgoing) {
            if let Some(&j) = set.get(&e.target()) {
                out.push_str(&format!(
                    "  n{} -> n{j} [label={}];\n",
                    set[&n],
                    quote(e.weight().kind.name())
                ));
            }
        }
    }
    out.push_str("}\n");
    out
}

/// Runs `summarize_graph` over a snapshot. `root` is the workspace root (for
/// `seeds_from_diff`).
///
/// Errors: `invalid_filter` (bad glob, unknown language, unknown `comm_alg`),
/// `radius_too_large` (above [`MAX_RADIUS`]), `no_seeds` (SeedOnly without seeds, or a
/// seed that names nothing), `budget_too_small` (with the smallest budget that fits).
pub fn summarize_graph(
    whole: &Arc<SymbolGraph>,
    root: &Path,
    args: &SummarizeArgs,
) -> Result<Rendered, ToolError> {
    let g = &*whole.trusted(super::min_confidence(args.min_confidence)?);
    let p = Params {
        radius: args.radius.unwrap_or(1),
        top_k: args.top_k.unwrap_or(200),
        scope: args.scope.unwrap_or_default(),
        with_communities: args.with_communities.or(args.community).unwrap_or(true),
        max_communities: args.max_communities.unwrap_or(50),
        max_nodes_per_community: args.max_nodes_per_community.unwrap_or(10),
        with_paths: args.with_paths.unwrap_or(true),
        path_samples: args.path_samples.unwrap_or(5),
        path_max_hops: args.path_max_hops.unwrap_or(5).max(1),
        budget: args.budget_tokens.unwrap_or(3000),
        format: args.format.unwrap_or_default(),
    };
    if p.radius > MAX_RADIUS {
        return Err(ToolError::RadiusTooLarge(format!(
            "radius {} is above the maximum of {MAX_RADIUS}; use radius 1-{MAX_RADIUS} and drill down with expand",
            p.radius
        )));
    }
    if let Some(alg) = &args.comm_alg {
        if alg != "labelprop" {
            return Err(ToolError::InvalidFilter(format!(
                "comm_alg {alg:?} is not supported; use \"labelprop\""
            )));
        }
    }
    let keep = node_filter(g, args)?;
    let filter_key = format!(
        "{:?}|{:?}|{:?}",
        args.include_filters, args.exclude_filters, args.language_filters
    );

    let mut seeds: Vec<NodeIndex> = Vec::new();
    for s in args.seeds.iter().flatten() {
        let found = resolve_seed(g, s);
        if found.is_empty() {
            return Err(ToolError::NoSeeds(format!(
                "seed {s:?} matches no node; give a node id (func:PATH::name), a label (fn name()), a name or a file path"
            )));
        }
        seeds.extend(found);
    }
    if args.seeds_from_diff.unwrap_or(false) {
        for f in changed_files(root)? {
            if let Some(ix) = g.by_key(&format!("file:{f}")) {
                seeds.push(ix);
            }
        }
    }
    seeds.retain(|s| keep[s.index()]);
    seeds.sort();
    seeds.dedup();
    if p.scope == Scope::SeedOnly && seeds.is_empty() {
        return Err(ToolError::NoSeeds(
            "scope SeedOnly needs seeds (seeds, or seeds_from_diff with changed files that pass the filters)".into(),
        ));
    }

    // The degradation ladder of seed 001, then further halving of the lists.
    let mut radius = p.radius;
    let mut full = compute(g, &p, radius, &keep, &seeds, &filter_key);
    // Cut sizes start at what the lists hold, so a step that would drop nothing is skipped.
    let initial = |full: &Full| Cut {
        top_k: p.top_k.min(full.top.len()),
        communities: p.max_communities.min(full.communities.len()),
        samples: p.max_nodes_per_community,
        paths: p.path_samples.min(full.paths.len()),
        seeds: full.seeds.len(),
    };
    let mut cut = initial(&full);
    let mut steps: Vec<String> = Vec::new();
    let mut out = render(g, &full, &p, &cut, radius, &steps);
    let fits = |r: &Rendered| r.response.tokens <= p.budget;
    if fits(&out) {
        return Ok(out);
    }
    if radius >= 2 {
        steps.push(format!("radius {radius} -> 1"));
        radius = 1;
        full = compute(g, &p, radius, &keep, &seeds, &filter_key);
        cut = initial(&full);
        out = render(g, &full, &p, &cut, radius, &steps);
        if fits(&out) {
            return Ok(out);
        }
    }
    let mut ladder: Vec<Box<LadderStep>> = Vec::new();
    for step in [300usize, 200, 150] {
        ladder.push(Box::new(move |c: &mut Cut| {
            (c.top_k > step).then(|| {
                let s = format!("top_k {} -> {step}", c.top_k);
                c.top_k = step;
                s
            })
        }));
    }
    for step in [10usize, 5] {
        ladder.push(Box::new(move |c: &mut Cut| {
            (c.communities > step).then(|| {
                let s = format!("communities top-{} -> top-{step}", c.communities.min(99));
                c.communities = step;
                s
            })
        }));
    }
    ladder.push(Box::new(|c: &mut Cut| {
        (c.paths > 2).then(|| {
            let s = format!("path_samples {} -> 2", c.paths);
            c.paths = 2;
            s
        })
    }));
    ladder.push(Box::new(|c: &mut Cut| {
        (c.seeds > 5).then(|| {
            c.seeds = 5;
            "seeds_preview cut to 5 (count kept)".to_string()
        })
    }));
    // Beyond the seed's ladder: fewer samples per community, then halve the lists in
    // turn (top nodes keep at least 10 until communities and paths are gone), then empty
    // them.
    ladder.push(Box::new(|c: &mut Cut| {
        (c.samples > 3).then(|| {
            let s = format!("community samples {} -> 3", c.samples);
            c.samples = 3;
            s
        })
    }));
    for _ in 0..24 {
        ladder.push(Box::new(|c: &mut Cut| {
            if c.communities > 1 || c.top_k > 10 {
                if c.top_k > 10 && (c.top_k >= c.communities * 4 || c.communities <= 1) {
                    let n = (c.top_k / 2).max(10);
                    let s = format!("top_k {} -> {n}", c.top_k);
                    c.top_k = n;
                    Some(s)
                } else {
                    let n = c.communities / 2;
                    let s = format!("communities top-{} -> top-{n}", c.communities);
                    c.communities = n;
                    Some(s)
                }
            } else if c.paths > 0 {
                c.paths = 0;
                Some("path_samples -> 0".into())
            } else if c.communities > 0 {
                c.communities = 0;
                Some("communities -> 0".into())
            } else if c.seeds > 0 {
                c.seeds = 0;
                Some("seeds_preview -> 0 (count kept)".into())
            } else if c.top_k > 0 {
                let n = c.top_k / 2;
                let s = format!("top_k {} -> {n}", c.top_k);
                c.top_k = n;
                Some(s)
            } else {
                None
            }
        }));
    }
    for step in &ladder {
        if let Some(s) = step(&mut cut) {
            steps.push(s);
            out = render(g, &full, &p, &cut, radius, &steps);
            if fits(&out) {
                return Ok(out);
            }
        }
    }
    Err(ToolError::BudgetTooSmall(format!(
        "the smallest summary takes {} tokens (cl100k_base) and budget_tokens is {}; raise budget_tokens to at least {}",
        out.response.tokens, p.budget, out.response.tokens
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::graph::{SymbolEdgeRow, SymbolGraphRows, SymbolRow};

    /// 40 files `c00.py`..`c39.py`, each with a call chain `f0 -> f1 -> ... -> f9`: 440
    /// nodes, 40 communities (one per file), 40 entry points with 9-hop call chains.
    fn clusters() -> Arc<SymbolGraph> {
        let mut rows = SymbolGraphRows::default();
        let mut id = 0;
        for c in 0..40 {
            let path = format!("c{c:02}.py");
            id += 1;
            let file_id = id;
            rows.nodes.push(SymbolRow {
                id,
                key: format!("file:{path}"),
                kind: "file".into(),
                name: path.clone(),
                qualified_name: path.clone(),
                path: path.clone(),
                language: Some("python".into()),
                start_line: 1,
                end_line: 100,
                signature: None,
            });
            for f in 0..10 {
                id += 1;
                rows.nodes.push(SymbolRow {
                    id,
                    key: format!("func:{path}::f{f}"),
                    kind: "function".into(),
                    name: format!("f{f}"),
                    qualified_name: format!("f{f}"),
                    path: path.clone(),
                    language: Some("python".into()),
                    start_line: 1 + f * 10,
                    end_line: 9 + f * 10,
                    signature: None,
                });
                let edge = |src, dst, kind: &str| SymbolEdgeRow {
                    src,
                    dst,
                    kind: kind.into(),
                    confidence: if kind == "calls" { 0.98 } else { 1.0 },
                    provenance: if kind == "calls" { "import" } else { "syntax" }.into(),
                    line: Some(1),
                };
                rows.edges.push(edge(file_id, id, "contains"));
                if f > 0 {
                    rows.edges.push(edge(id - 1, id, "calls"));
                }
            }
        }
        Arc::new(SymbolGraph::from_rows(rows))
    }

    fn args(budget: usize) -> SummarizeArgs {
        SummarizeArgs {
            radius: Some(2),
            top_k: Some(300),
            scope: Some(Scope::Full),
            budget_tokens: Some(budget),
            ..SummarizeArgs::default()
        }
    }

    #[test]
    fn a_large_budget_cuts_nothing() {
        let g = clusters();
        let r = summarize_graph(&g, Path::new("."), &args(100_000))
            .unwrap()
            .response;
        assert!(!r.truncated);
        assert!(r.truncation.is_none());
        assert_eq!(r.radius, 2);
        assert_eq!(r.kept_nodes, 440);
        assert_eq!(r.top_nodes.len(), 300);
        assert_eq!(r.communities.as_ref().map(Vec::len), Some(40));
        assert_eq!(r.path_examples.as_ref().map(Vec::len), Some(5));
        // Chains of 10 nodes: the sampled call paths stop at the 5-hop limit.
        assert!(r.path_examples.unwrap().iter().all(|p| p.len() == 6));
        assert_eq!(r.graph_stats.node_count, 440);
        assert_eq!(r.graph_stats.edge_count, 40 * 10 + 40 * 9);
        assert_eq!(r.graph_stats.cycles_count, 0);
    }

    #[test]
    fn the_ladder_runs_in_the_seed_order() {
        let g = clusters();
        let r = summarize_graph(&g, Path::new("."), &args(600))
            .unwrap()
            .response;
        assert!(r.truncated);
        assert!(r.tokens <= 600, "{}", r.tokens);
        let steps = r.truncation.as_ref().unwrap().steps.clone();
        assert_eq!(
            steps[..7],
            [
                "radius 2 -> 1",
                "top_k 300 -> 200",
                "top_k 200 -> 150",
                "communities top-40 -> top-10",
                "communities top-10 -> top-5",
                "path_samples 5 -> 2",
                "community samples 10 -> 3",
            ]
        );
        let t = r.truncation.unwrap();
        assert_eq!(
            (
                t.top_nodes_total,
                t.communities_total,
                t.path_examples_total
            ),
            (300, 40, 5)
        );
        // Each budget between the two gets the steps up to where it fits, no more.
        let mut previous = 0;
        for budget in [600, 900, 1500, 3000, 6000] {
            let r = summarize_graph(&g, Path::new("."), &args(budget))
                .unwrap()
                .response;
            assert!(r.tokens <= budget);
            let n = r.truncation.map_or(0, |t| t.steps.len());
            assert!(
                previous == 0 || n <= previous,
                "{budget}: {n} steps after {previous}"
            );
            previous = n;
        }
    }

    #[test]
    fn too_small_says_the_minimum() {
        let g = clusters();
        let err = summarize_graph(&g, Path::new("."), &args(20)).unwrap_err();
        assert_eq!(err.code(), "budget_too_small");
        assert!(err.to_string().contains("raise budget_tokens to at least"));
    }

    #[test]
    fn tokens_are_cl100k() {
        // "hello world" is two tokens in cl100k_base.
        assert_eq!(count_tokens("hello world"), 2);
    }
}
