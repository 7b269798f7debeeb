//! The drill-down tools: `get_node_details`, `get_paths`, `get_community`,
//! `expand`, `list_top_nodes`. Each answers from the symbol-graph snapshot, takes
//! `budget_tokens`, and cuts its lists (saying `truncated: true`) to fit it.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::Arc;

use rusqlite::Connection;

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::graph::communities::common_path;
use crate::graph::paths::k_shortest_paths;
use crate::graph::symbol_graph::EdgeKind;
use crate::graph::SymbolGraph;

use super::symbol_arg::symbol_arg;
use super::symbol_summary::count_tokens;
use super::{min_confidence, ToolError};
use crate::store::graph::{unresolved_calls, PossibleCall};

/// Default `budget_tokens` of the drill-down tools.
pub const DEFAULT_BUDGET: usize = 3000;
/// Most nodes `expand` returns before cutting.
pub const EXPAND_CAP: usize = 200;
/// Seed of sampled betweenness.
pub use crate::graph::symbol_graph::BETWEENNESS_SEED;

/// The drill-down tools take a larger `budget_tokens` as this.
pub use super::MAX_BUDGET;

/// Renders `build(limit)` with the largest `limit ≤ max` whose JSON fits `budget`
/// tokens (at most [`MAX_BUDGET`]), halving from `max`; adds `truncated`, `tokens`
/// and, when cut, a `note` saying so.
fn fit(budget: usize, max: usize, build: impl Fn(usize) -> Value) -> Result<Value, ToolError> {
    let budget = budget.min(MAX_BUDGET);
    let mut limit = max;
    loop {
        let mut v = build(limit);
        let truncated = limit < max;
        v["truncated"] = json!(truncated);
        if truncated {
            v["note"] = json!(format!(
                "cut to fit budget_tokens {budget}: the lists hold at most {limit} entries \
                 (of up to {max}); the *_total fields have the counts; a larger budget_tokens \
                 (at most {MAX_BUDGET}) or narrower arguments give more"
            ));
        }
        let tokens = count_tokens(&v.to_string()) + 8;
        v["tokens"] = json!(tokens);
        if tokens <= budget {
            return Ok(v);
        }
        if limit == 0 {
            return Err(ToolError::BudgetTooSmall(format!(
                "the smallest answer takes {tokens} tokens (cl100k_base); raise budget_tokens to at least {tokens}"
            )));
        }
        limit /= 2;
    }
}

fn brief(g: &SymbolGraph, ix: NodeIndex) -> Value {
    let n = g.node(ix);
    json!({"node_id": n.key, "label": n.label(), "file": n.path, "line": n.start_line})
}

/// Arguments of `get_node_details`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeDetailsArgs {
    /// Node id, qualified name, name or `path:line`.
    pub node_id: String,
    /// List name-only matches too.
    pub include_possible: Option<bool>,
    /// Default 3000.
    pub budget_tokens: Option<usize>,
    /// Minimum edge confidence (default 0.97).
    pub min_confidence: Option<f64>,
    /// Hierarchy levels listed (default 1, at most 10).
    pub hierarchy_depth: Option<usize>,
    /// List the whole hierarchy.
    pub transitive: Option<bool>,
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// `get_node_details`: kind, label, file, lines, signature, in/out degree, community,
/// callers and callees with the lines of the calls (edges at least `min_confidence`
/// confident, each with its provenance and confidence), and, read from `conn`, what no
/// rule resolved: the node's own unresolved, ambiguous and external call sites, and its
/// possible callers and callees (name match only, listed with `include_possible`). A
/// node without resolved callers but with possible ones says so in `note`: "no callers"
/// is only said when no call site anywhere names it.
///
/// For a class-like node (class, struct, interface, trait, enum) `callers` are the
/// callers of the class itself (its constructor: `member` "constructor") and of each
/// of its members (`member` the member's name), and the answer adds the hierarchy
/// ([`super::hierarchy::hierarchy`]: members, bases, subclasses, implementations,
/// overrides).
///
/// Errors: `not_found` / `invalid_argument` for the node, `invalid_argument` for
/// `min_confidence`, `budget_too_small`, `database_error`.
pub fn get_node_details(
    whole: &Arc<SymbolGraph>,
    conn: Option<&Connection>,
    args: &NodeDetailsArgs,
) -> Result<Value, ToolError> {
    let min = min_confidence(args.min_confidence)?;
    let g = &*whole.trusted(min);
    let ix = symbol_arg(g, "node_id", &args.node_id)?;
    let n = g.node(ix);
    let comms = g.communities();
    let pr = g.pagerank();
    let linked = |dir: Direction| -> Vec<Value> {
        let mut v: Vec<(NodeIndex, u32, &'static str, f32)> = g
            .graph
            .edges_directed(ix, dir)
            .filter(|e| e.weight().kind == EdgeKind::Calls)
            .map(|e| {
                let other = if dir == Direction::Incoming {
                    e.source()
                } else {
                    e.target()
                };
                let w = e.weight();
                (other, w.line, w.provenance, w.confidence)
            })
            .collect();
        v.sort_by(|a, b| {
            pr[b.0.index()]
                .total_cmp(&pr[a.0.index()])
                .then(a.0.cmp(&b.0))
                .then(a.1.cmp(&b.1))
        });
        v.into_iter()
            .map(|(o, line, provenance, confidence)| {
                let mut b = brief(g, o);
                b["call_line"] = json!(line);
                b["provenance"] = json!(provenance);
                b["confidence"] = json!((f64::from(confidence) * 1000.0).round() / 1000.0);
                b
            })
            .collect()
    };
    let (mut callers, callees) = (linked(Direction::Incoming), linked(Direction::Outgoing));
    // The nodes that use it as a value (`references` edges, beside the graph).
    let value_users: Vec<Value> = g
        .value_users(ix)
        .iter()
        .map(|(o, e)| {
            let mut b = brief(g, *o);
            b["use_line"] = json!(e.line);
            b["provenance"] = json!(e.provenance);
            b["confidence"] = json!((f64::from(e.confidence) * 1000.0).round() / 1000.0);
            b
        })
        .collect();
    let is_type = super::members::is_type_kind(&n.kind);
    let hierarchy_depth = match (args.transitive, args.hierarchy_depth) {
        (_, Some(d)) if d == 0 || d > super::hierarchy::MAX_HIERARCHY_DEPTH => {
            return Err(ToolError::InvalidArgument(format!(
                "hierarchy_depth {d} is outside 1-{}",
                super::hierarchy::MAX_HIERARCHY_DEPTH
            )))
        }
        (_, Some(d)) => d,
        (Some(true), None) => super::hierarchy::MAX_HIERARCHY_DEPTH,
        _ => 1,
    };
    if is_type {
        for c in callers.iter_mut() {
            c["member"] = json!("constructor");
        }
        for m in super::members::members(g, ix) {
            let name = g.node(m).name.clone();
            let mut list: Vec<(NodeIndex, u32, &'static str, f32)> = g
                .graph
                .edges_directed(m, Direction::Incoming)
                .filter(|e| e.weight().kind == EdgeKind::Calls)
                .map(|e| {
                    (
                        e.source(),
                        e.weight().line,
                        e.weight().provenance,
                        e.weight().confidence,
                    )
                })
                .collect();
            list.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
            for (o, line, provenance, confidence) in list {
                let mut b = brief(g, o);
                b["call_line"] = json!(line);
                b["provenance"] = json!(provenance);
                b["confidence"] = json!((f64::from(confidence) * 1000.0).round() / 1000.0);
                b["member"] = json!(name);
                b["member_id"] = json!(g.node(m).key);
                callers.push(b);
            }
        }
    }
    let weaker = |dir: Direction| {
        let all = whole
            .graph
            .edges_directed(ix, dir)
            .filter(|e| e.weight().kind == EdgeKind::Calls)
            .count();
        let kept = g
            .graph
            .edges_directed(ix, dir)
            .filter(|e| e.weight().kind == EdgeKind::Calls)
            .count();
        all - kept
    };
    let (weaker_in, weaker_out) = (weaker(Direction::Incoming), weaker(Direction::Outgoing));
    let include_possible = args.include_possible.unwrap_or(false);
    let unresolved = match conn {
        Some(c) => Some(unresolved_calls(
            c,
            n.id,
            if include_possible { POSSIBLE_CAP } else { 0 },
        )?),
        None => None,
    };
    let possible = |list: &[PossibleCall]| -> Vec<Value> {
        list.iter()
            .filter_map(|p| {
                let o = g.by_id(p.node_id)?;
                let mut b = brief(g, o);
                b["call_line"] = json!(p.line);
                b["status"] = json!(p.status);
                Some(b)
            })
            .collect()
    };
    let note = match &unresolved {
        Some(u) if callers.is_empty() && u.possible_callers_total > 0 => Some(format!(
            "no resolved callers{}; {} call site(s) elsewhere are unresolved or ambiguous and call a name this node has (name match only){}",
            if weaker_in > 0 { format!(" at min_confidence {min} ({weaker_in} weaker)") } else { String::new() },
            u.possible_callers_total,
            if include_possible { "" } else { "; include_possible: true lists them" }
        )),
        Some(_) if callers.is_empty() && weaker_in > 0 => Some(format!(
            "no callers at min_confidence {min}; {weaker_in} weaker call edge(s) reach it (lower min_confidence to see them)"
        )),
        Some(_) if callers.is_empty() => Some(
            "no callers: no call site in the index resolves to it or calls its name".to_string(),
        ),
        None => None,
        Some(_) => None,
    }
    .map(|note| match value_users.len() {
        0 => note,
        k => format!("{note}; used as a value by {k} node(s) (value_users), which may call it"),
    });
    let (possible_callers, possible_callees) = match &unresolved {
        Some(u) if include_possible => {
            (possible(&u.possible_callers), possible(&u.possible_callees))
        }
        _ => (Vec::new(), Vec::new()),
    };
    let hierarchy_max = if is_type {
        let full = super::hierarchy::hierarchy(whole, ix, hierarchy_depth, min, usize::MAX);
        [
            "members",
            "bases",
            "subclasses",
            "implementations",
            "overrides",
        ]
        .iter()
        .map(|k| full[k].as_array().map_or(0, Vec::len))
        .max()
        .unwrap_or(0)
    } else {
        0
    };
    let max = callers
        .len()
        .max(callees.len())
        .max(possible_callers.len())
        .max(possible_callees.len())
        .max(value_users.len())
        .max(hierarchy_max);
    fit(args.budget_tokens.unwrap_or(DEFAULT_BUDGET), max, |limit| {
        let mut v = json!({
            "node_id": n.key,
            "kind": n.kind,
            "label": n.label(),
            "file": n.path,
            "start_line": n.start_line,
            "end_line": n.end_line,
            "signature": n.signature,
            "in_degree": g.graph.edges_directed(ix, Direction::Incoming).count(),
            "out_degree": g.graph.edges_directed(ix, Direction::Outgoing).count(),
            "pagerank": pr[ix.index()],
            "community": comms.ids[comms.labels[ix.index()]],
            "min_confidence": min,
            "callers_total": callers.len(),
            "callees_total": callees.len(),
            "callers_below_min_confidence": weaker_in,
            "callees_below_min_confidence": weaker_out,
            "callers": callers.iter().take(limit).collect::<Vec<_>>(),
            "callees": callees.iter().take(limit).collect::<Vec<_>>(),
        });
        if let Some(u) = &unresolved {
            v["possible_callers_total"] = json!(u.possible_callers_total);
            v["possible_callees_total"] = json!(u.possible_callees_total);
            v["calls_unresolved"] = json!(u.unresolved);
            v["calls_ambiguous"] = json!(u.ambiguous);
            v["calls_external"] = json!(u.external);
            if include_possible {
                v["possible_callers"] =
                    json!(possible_callers.iter().take(limit).collect::<Vec<_>>());
                v["possible_callees"] =
                    json!(possible_callees.iter().take(limit).collect::<Vec<_>>());
            }
        }
        if !value_users.is_empty() {
            v["value_users_total"] = json!(value_users.len());
            v["value_users"] = json!(value_users.iter().take(limit).collect::<Vec<_>>());
        }
        if let Some(note) = &note {
            v["note"] = json!(note);
        }
        if is_type {
            if let (Some(o), Value::Object(h)) = (
                v.as_object_mut(),
                super::hierarchy::hierarchy(whole, ix, hierarchy_depth, min, limit),
            ) {
                o.extend(h);
            }
        }
        v
    })
}

/// Most possible callers and callees `get_node_details` lists (before the budget cut).
pub const POSSIBLE_CAP: usize = 200;

/// Arguments of `get_paths`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathsArgs {
    pub src: String,
    pub dst: String,
    /// Default 5.
    pub limit: Option<usize>,
    /// Default 5.
    pub max_hops: Option<usize>,
    /// Default 3000.
    pub budget_tokens: Option<usize>,
    /// Minimum edge confidence (default 0.97).
    pub min_confidence: Option<f64>,
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// `get_paths`: up to `limit` shortest simple paths from `src` to `dst` within
/// `max_hops`, along calls, imports, inherits and implements edges (not containment).
pub fn get_paths(whole: &Arc<SymbolGraph>, args: &PathsArgs) -> Result<Value, ToolError> {
    let g = &*whole.trusted(min_confidence(args.min_confidence)?);
    let (a, b) = (
        symbol_arg(g, "src", &args.src)?,
        symbol_arg(g, "dst", &args.dst)?,
    );
    let limit = args.limit.unwrap_or(5);
    let hops = args.max_hops.unwrap_or(5);
    if limit == 0 || limit > 100 {
        return Err(ToolError::InvalidArgument(format!(
            "limit must be between 1 and 100, got {limit}"
        )));
    }
    if hops == 0 || hops > 20 {
        return Err(ToolError::InvalidArgument(format!(
            "max_hops must be between 1 and 20, got {hops}"
        )));
    }
    let paths = k_shortest_paths(&g.graph, a, b, limit, hops, |e| {
        e.kind != EdgeKind::Contains
    });
    let rendered: Vec<Vec<String>> = paths
        .iter()
        .map(|p| p.iter().map(|&n| g.node(n).key.clone()).collect())
        .collect();
    fit(
        args.budget_tokens.unwrap_or(DEFAULT_BUDGET),
        rendered.len(),
        |k| {
            json!({
                "src": g.node(a).key,
                "dst": g.node(b).key,
                "paths_total": rendered.len(),
                "paths": rendered.iter().take(k).collect::<Vec<_>>(),
            })
        },
    )
}

/// Arguments of `get_community`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommunityArgs {
    /// Id as summarize_graph lists it.
    pub community_id: String,
    /// Default 3000.
    pub budget_tokens: Option<usize>,
    /// Minimum edge confidence (default 0.97).
    pub min_confidence: Option<f64>,
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// `get_community`: size, top nodes by PageRank, files, and edges to other communities.
pub fn get_community(whole: &Arc<SymbolGraph>, args: &CommunityArgs) -> Result<Value, ToolError> {
    let g = &*whole.trusted(min_confidence(args.min_confidence)?);
    let c = g.community_by_id(&args.community_id).ok_or_else(|| {
        ToolError::NotFound(format!(
            "community {:?} does not exist in this index generation; take ids from summarize_graph",
            args.community_id
        ))
    })?;
    let comms = g.communities();
    let pr = g.pagerank();
    let mut members: Vec<NodeIndex> = g
        .graph
        .node_indices()
        .filter(|ix| comms.labels[ix.index()] == c)
        .collect();
    members.sort_by(|a, b| pr[b.index()].total_cmp(&pr[a.index()]).then(a.cmp(b)));
    let mut files: BTreeMap<&str, usize> = BTreeMap::new();
    for &m in &members {
        *files.entry(g.node(m).path.as_str()).or_insert(0) += 1;
    }
    let mut files: Vec<(&str, usize)> = files.into_iter().collect();
    files.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut out_edges: BTreeMap<usize, (usize, f64)> = BTreeMap::new();
    for &m in &members {
        for e in g.graph.edges_directed(m, Direction::Outgoing) {
            let other = comms.labels[e.target().index()];
            if other != c {
                let entry = out_edges.entry(other).or_insert((0, 0.0));
                entry.0 += 1;
                entry.1 += e.weight().weight();
            }
        }
    }
    let mut out_edges: Vec<Value> = out_edges
        .into_iter()
        .map(|(o, (n, w))| json!({"dst": comms.ids[o], "edges": n, "weight_sum": (w * 100.0).round() / 100.0}))
        .collect();
    out_edges.sort_by(|a, b| b["edges"].as_u64().cmp(&a["edges"].as_u64()));
    let label = common_path(members.iter().map(|&m| g.node(m).path.as_str()));
    let max = members.len().max(files.len()).max(out_edges.len()).min(100);
    fit(args.budget_tokens.unwrap_or(DEFAULT_BUDGET), max, |k| {
        json!({
            "community_id": args.community_id,
            "label": label,
            "size": members.len(),
            "top_nodes": members.iter().take(k.min(20)).map(|&m| json!([g.node(m).key, pr[m.index()]])).collect::<Vec<_>>(),
            "files_total": files.len(),
            "files": files.iter().take(k).map(|(f, n)| json!({"path": f, "nodes": n})).collect::<Vec<_>>(),
            "edges_to_other_communities": out_edges.iter().take(k).collect::<Vec<_>>(),
        })
    })
}

/// Arguments of `expand`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpandArgs {
    pub node_id: String,
    /// Hops (default 1, at most 3).
    pub radius: Option<usize>,
    /// Default 3000.
    pub budget_tokens: Option<usize>,
    /// Minimum edge confidence (default 0.97).
    pub min_confidence: Option<f64>,
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// `expand`: the induced subgraph of the nodes within `radius` hops of `node_id`
/// (nearest first, at most 200 nodes), with its edges.
pub fn expand(whole: &Arc<SymbolGraph>, args: &ExpandArgs) -> Result<Value, ToolError> {
    let g = &*whole.trusted(min_confidence(args.min_confidence)?);
    let start = symbol_arg(g, "node_id", &args.node_id)?;
    let radius = args.radius.unwrap_or(1);
    if radius > super::symbol_summary::MAX_RADIUS {
        return Err(ToolError::RadiusTooLarge(format!(
            "radius {radius} is above the maximum of {}",
            super::symbol_summary::MAX_RADIUS
        )));
    }
    let mut order = vec![start];
    let mut seen: HashSet<NodeIndex> = HashSet::from([start]);
    let mut queue = VecDeque::from([(start, 0usize)]);
    while let Some((n, d)) = queue.pop_front() {
        if d == radius {
            continue;
        }
        let mut next: Vec<NodeIndex> = g.graph.neighbors_undirected(n).collect();
        next.sort();
        for m in next {
            if seen.insert(m) {
                order.push(m);
                queue.push_back((m, d + 1));
            }
        }
    }
    let total = order.len();
    fit(args.budget_tokens.unwrap_or(DEFAULT_BUDGET), total.min(EXPAND_CAP), |k| {
        let kept: HashSet<NodeIndex> = order.iter().take(k.max(1)).copied().collect();
        let mut edges = Vec::new();
        for &n in order.iter().take(k.max(1)) {
            for e in g.graph.edges_directed(n, Direction::Outgoing) {
                if kept.contains(&e.target()) {
                    edges.push(json!([g.node(n).key, g.node(e.target()).key, e.weight().kind.name()]));
                }
            }
        }
        json!({
            "node_id": g.node(start).key,
            "radius": radius,
            "nodes_total": total,
            "nodes": order.iter().take(k.max(1)).map(|&n| json!({"node_id": g.node(n).key, "label": g.node(n).label(), "kind": g.node(n).kind})).collect::<Vec<_>>(),
            "edges": edges,
        })
    })
    .map(|mut v| {
        if total > EXPAND_CAP && v.get("note").is_none() {
            v["truncated"] = json!(true);
            v["note"] = json!(format!(
                "the {EXPAND_CAP} nearest of {total} nodes within radius {radius} (nodes_total); \
                 a smaller radius gives the whole neighbourhood"
            ));
        }
        v
    })
}

/// Metric of `list_top_nodes`.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    #[default]
    Pr,
    Degree,
    Betweenness,
}

/// Arguments of `list_top_nodes`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopNodesArgs {
    /// `pr` (default), `degree` or `betweenness`.
    pub metric: Option<Metric>,
    /// Default 20, at most 1000.
    pub k: Option<usize>,
    /// Default 3000.
    pub budget_tokens: Option<usize>,
    /// Minimum edge confidence (default 0.97).
    pub min_confidence: Option<f64>,
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// `list_top_nodes`: the `k` nodes with the highest PageRank, degree (in + out) or
/// betweenness (exact below 5,000 nodes, sampled above: `exact` says which).
pub fn list_top_nodes(whole: &Arc<SymbolGraph>, args: &TopNodesArgs) -> Result<Value, ToolError> {
    let g = &*whole.trusted(min_confidence(args.min_confidence)?);
    let metric = args.metric.unwrap_or_default();
    let k = args.k.unwrap_or(20);
    if k == 0 || k > 1000 {
        return Err(ToolError::InvalidArgument(format!(
            "k must be between 1 and 1000, got {k}"
        )));
    }
    let mut extra = json!({});
    let scores: Vec<f64> = match metric {
        Metric::Pr => g.pagerank().to_vec(),
        Metric::Degree => g
            .graph
            .node_indices()
            .map(|ix| g.graph.neighbors_undirected(ix).count() as f64)
            .collect(),
        Metric::Betweenness => {
            let b = g.betweenness();
            extra = json!({"exact": b.exact, "pivots": b.pivots});
            b.scores.clone()
        }
    };
    let mut order: Vec<NodeIndex> = g.graph.node_indices().collect();
    let by_score = |a: &NodeIndex, b: &NodeIndex| {
        scores[b.index()]
            .total_cmp(&scores[a.index()])
            .then(a.cmp(b))
    };
    let k = k.min(order.len());
    if k < order.len() {
        order.select_nth_unstable_by(k, by_score);
        order.truncate(k);
    }
    order.sort_by(by_score);
    fit(args.budget_tokens.unwrap_or(DEFAULT_BUDGET), k, |limit| {
        let mut v = json!({
            "metric": metric,
            "nodes": order.iter().take(limit).map(|&n| json!([g.node(n).key, scores[n.index()]])).collect::<Vec<_>>(),
        });
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        v
    })
}
