//! `summarize_graph`: a budgeted summary of the symbol graph — statistics,
//! the most central nodes by PageRank, communities, call-path samples — that fits a
//! token budget counted with a real BPE tokenizer (cl100k_base), degrading step by step
//! when it does not.
//!
//! # Layout
//! [`args`] validates the arguments and turns filters and seeds into nodes;
//! [`compute`] computes everything at one radius (centrality, the kept set,
//! communities, call paths); [`budget`] runs the degradation ladder, cutting lists
//! until the rendering fits; [`render`] writes JSON, prose or DOT and counts its
//! tokens. Git (for `seeds_from_diff`) is asked through [`crate::walk::git`].

mod args;
mod budget;
mod compute;
mod render;

use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::graph::SymbolGraph;

use super::ToolError;

pub use args::resolve_seed;
pub use render::count_tokens;

/// Largest accepted `radius`.
pub const MAX_RADIUS: usize = 3;
/// Default `exclude_filters`.
pub const DEFAULT_EXCLUDES: &[&str] = &[
    "**/tests/**",
    "**/test/**",
    "**/fixtures/**",
    "**/vendor/**",
    "**/generated/**",
    "**/examples/**",
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

/// Arguments of `summarize_graph`: both spellings of its parameters.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SummarizeArgs {
    /// Same as workspaceRoot.
    pub path: Option<String>,
    // Workspace root; the server's when absent (not described in the tool list:
    // every tool takes it).
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
    /// Hops around the seeds (default 1, at most 3).
    pub radius: Option<usize>,
    /// Default 200.
    pub top_k: Option<usize>,
    /// Node ids, names or file paths.
    pub seeds: Option<Vec<String>>,
    /// Seed with the files changed against HEAD.
    pub seeds_from_diff: Option<bool>,
    /// Globs to keep.
    pub include_filters: Option<Vec<String>>,
    /// Globs to leave out (default: tests, fixtures, vendor, generated, examples).
    pub exclude_filters: Option<Vec<String>>,
    /// Languages to keep.
    pub language_filters: Option<Vec<String>>,
    /// Default Community.
    pub scope: Option<Scope>,
    /// Default true.
    pub with_communities: Option<bool>,
    /// Same as `with_communities` (an older spelling, accepted but not listed).
    #[schemars(skip)]
    pub community: Option<bool>,
    /// Community algorithm; only `labelprop` (accepted but not listed: no choice).
    #[schemars(skip)]
    pub comm_alg: Option<String>,
    /// Default 50.
    pub max_communities: Option<usize>,
    /// Labels per community (default 10).
    pub max_nodes_per_community: Option<usize>,
    /// Default true.
    pub with_paths: Option<bool>,
    /// Default 5.
    pub path_samples: Option<usize>,
    /// Default 5.
    pub path_max_hops: Option<usize>,
    /// Default 3000.
    pub budget_tokens: Option<usize>,
    /// Default json (`text` is summary).
    pub format: Option<Format>,
    /// Minimum edge confidence (default 0.97).
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
    /// The file node most of its members belong to (`file:PATH`, `#2` and so on when
    /// that file leads several); pass it to `get_community`.
    pub id: String,
    /// Where its listed members live: the deepest directory or file holding at least
    /// half of them (as `graph::communities::common_path`).
    pub label: String,
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

/// The response (published field names).
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

/// Files changed against git HEAD (staged or not) in `root`, root-relative.
///
/// Errors: `invalid_argument` when git cannot run, or fails (not a work tree, no
/// HEAD).
pub fn changed_files(root: &Path) -> Result<Vec<String>, ToolError> {
    use crate::walk::git::{self, GitError};
    git::changed_files(root).map_err(|e| match e {
        GitError::Spawn(e) => ToolError::InvalidArgument(format!("seeds_from_diff needs git: {e}")),
        e @ GitError::NotAWorkTree { .. } => ToolError::InvalidArgument(format!(
            "seeds_from_diff: {e}; it reads the files changed against git HEAD: run it in a git \
             checkout, or name the seeds instead"
        )),
        GitError::Failed { stderr, .. } => ToolError::InvalidArgument(format!(
            "seeds_from_diff: git diff failed ({stderr}); is {} a git repository with a HEAD?",
            root.display()
        )),
    })
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
    let p = args::Params::from_args(args)?;
    let keep = args::node_filter(g, args)?;
    let filter_key = format!(
        "{:?}|{:?}|{:?}",
        args.include_filters, args.exclude_filters, args.language_filters
    );
    let seeds = args::seeds(g, root, args, &p, &keep)?;
    // Every summary shows communities, which depend on the snapshot alone and are the
    // longest step on a cold one (1.2 s of label propagation on the Linux kernel): a
    // second thread computes them while this one builds the filtered view and its
    // PageRank. A summary that finds them computed costs a thread start.
    std::thread::scope(|s| {
        s.spawn(|| g.communities());
        budget::fit(g, &p, &keep, &seeds, &filter_key)
    })
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
