//! The arguments of `summarize_graph`: defaults and limits ([`Params`]), the file
//! filters (include/exclude globs, languages) as a node mask, and the seeds (named
//! nodes, or files changed against git HEAD). Everything that can reject a request
//! for its arguments is here, before any graph work.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use petgraph::graph::NodeIndex;

use crate::graph::SymbolGraph;
use crate::lang::Language;
use crate::tools::ToolError;

use super::{changed_files, Format, Scope, SummarizeArgs, DEFAULT_EXCLUDES, MAX_RADIUS};

/// Validated parameters with defaults applied.
#[derive(Debug, Clone)]
pub(super) struct Params {
    pub(super) radius: usize,
    pub(super) top_k: usize,
    pub(super) scope: Scope,
    pub(super) with_communities: bool,
    pub(super) max_communities: usize,
    pub(super) max_nodes_per_community: usize,
    pub(super) with_paths: bool,
    pub(super) path_samples: usize,
    pub(super) path_max_hops: usize,
    pub(super) budget: usize,
    pub(super) format: Format,
}

impl Params {
    /// Applies the documented defaults and checks `radius` and `comm_alg`.
    ///
    /// Errors: `radius_too_large`, `invalid_filter` (a `comm_alg` other than
    /// `labelprop`).
    pub(super) fn from_args(args: &SummarizeArgs) -> Result<Params, ToolError> {
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
        Ok(p)
    }
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
pub(super) fn node_filter(g: &SymbolGraph, args: &SummarizeArgs) -> Result<Vec<bool>, ToolError> {
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

/// The seed nodes: each named seed (every node it names) and, with `seeds_from_diff`,
/// the file nodes of the files changed against git HEAD; those that pass `keep`,
/// sorted and unique.
///
/// Errors: `no_seeds` (a seed that names nothing; SeedOnly without seeds),
/// `invalid_argument` (git for `seeds_from_diff`).
pub(super) fn seeds(
    g: &SymbolGraph,
    root: &Path,
    args: &SummarizeArgs,
    p: &Params,
    keep: &[bool],
) -> Result<Vec<NodeIndex>, ToolError> {
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
    Ok(seeds)
}
