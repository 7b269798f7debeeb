//! Writing a summary: the response with its lists cut to a [`Cut`], then as JSON,
//! prose (in the spirit of aider's repo map) or Graphviz DOT, with its token count
//! (cl100k_base, the tokenizer the budget is stated in).

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::graph::SymbolGraph;

use super::args::Params;
use super::compute::Full;
use super::{CommunityOut, Format, Rendered, SummarizeResponse, Truncation};

/// The list sizes a rendering keeps (the budget ladder in `budget.rs` lowers them step
/// by step).
#[derive(Debug, Clone, Copy)]
pub(super) struct Cut {
    pub(super) top_k: usize,
    pub(super) communities: usize,
    /// Sample labels per community.
    pub(super) samples: usize,
    pub(super) paths: usize,
    pub(super) seeds: usize,
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

/// The response with lists cut to the given sizes, rendered and counted.
pub(super) fn render(
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
                "  {} ({} nodes, id {}): {}\n",
                c.label,
                c.size,
                c.id,
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
