//! `diff_impact`: the symbols a git change touches and what depends on them.
//!
//! 1. `git diff -U0 --no-renames` (working tree against `HEAD`, `--cached` for what is
//!    staged, or the working tree against a base revision), read by
//!    [`super::unified_diff`]; in working-tree mode untracked files (not ignored) count
//!    as added.
//! 2. New side, against the current index (the caller brings it up to date first):
//!    a symbol whose lines lie inside one added range is `added`; one that has a changed
//!    line (or a deletion point) not inside one of its own members is `modified` (so a
//!    changed method does not mark its whole class).
//! 3. Old side: the old file (`REV:./PATH`, every file through one `git cat-file
//!    --batch`) is parsed with the indexer's own
//!    extractor and its symbols that meet a removed range are compared with the
//!    current symbols of the file by qualified name; those that no longer exist are
//!    `removed`. Parsing rather than comparing names in the diff text gives the same
//!    qualified names the index would have given, so a symbol moved within its file is
//!    not removed and a renamed one is removed plus added.
//! 4. The impact of the added and modified symbols as `get_impact` computes it, and the
//!    tests to run (changed tests included, at depth 0). Removed symbols have no edges
//!    left in the index; their former callers are unresolved references now.
//!
//! Line numbers of the new side are matched against the index, which is built from the
//! working tree: with `staged` and unstaged edits in the same file on top, the staged
//! hunks' lines may be off by the unstaged ones.
//!
//! Git runs only through [`super::git`]; outside a repository the answer is one line,
//! `not a git repository: ROOT`.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use globset::Glob;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::impact::{depth_arg, fit_typed, impact, ImpactLists, OpenCalls, DEFAULT_BUDGET};
use super::members::by_path;
use super::unified_diff::{self, inside, overlaps, FileDiff};
use super::{min_confidence, ToolError};
use crate::graph::symbol_graph::EdgeKind;
use crate::graph::SymbolGraph;
use crate::lang::{self, Language};
use crate::walk::git::{self, GitError};

/// Arguments of `diff_impact`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffImpactArgs {
    /// Revision to compare with (default HEAD).
    pub base: Option<String>,
    /// Only the staged changes.
    pub staged: Option<bool>,
    /// Default 3, at most 10.
    pub depth: Option<usize>,
    /// Weaker edges go to `possible` (default 0.97).
    pub min_confidence: Option<f64>,
    /// Fail on more than N trusted dependents (`"N"`) or a changed file matching a glob.
    pub fail_on: Option<Vec<String>>,
    /// Default 4000.
    pub budget_tokens: Option<usize>,
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// A changed file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedFile {
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub status: String,
    /// Changed lines of the old and the new file (1-based, inclusive).
    pub old_lines: Vec<[u32; 2]>,
    pub new_lines: Vec<[u32; 2]>,
}

/// A symbol the change adds, modifies or removes.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedSymbol {
    /// The node id (for a removed symbol, the id it had).
    pub node_id: String,
    pub kind: String,
    pub file: String,
    /// Lines in the new file (the old one for a removed symbol).
    pub start_line: u32,
    pub end_line: u32,
    /// `added`, `modified` or `removed`.
    pub change: String,
}

/// The verdict of `fail_on`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FailVerdict {
    pub failed: bool,
    /// One line per condition that failed.
    pub reasons: Vec<String>,
}

/// The answer of `diff_impact`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiffImpactAnswer {
    /// The revision compared with.
    pub base: String,
    pub staged: bool,
    pub files_changed_total: usize,
    pub files_changed: Vec<ChangedFile>,
    pub changed_total: usize,
    pub added: usize,
    pub modified: usize,
    pub removed: usize,
    /// The changed symbols, in file and line order.
    pub changed: Vec<ChangedSymbol>,
    pub depth: usize,
    pub min_confidence: f64,
    #[serde(flatten)]
    pub lists: ImpactLists,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail: Option<FailVerdict>,
    pub tokens: usize,
}

/// What a `fail_on` item asks.
enum FailOn {
    MoreThan(usize),
    Path(String, globset::GlobMatcher),
}

fn fail_conditions(items: &[String]) -> Result<Vec<FailOn>, ToolError> {
    items
        .iter()
        .map(|s| match s.parse::<usize>() {
            Ok(n) => Ok(FailOn::MoreThan(n)),
            Err(_) => Glob::new(s)
                .map(|g| FailOn::Path(s.clone(), g.compile_matcher()))
                .map_err(|e| {
                    ToolError::InvalidFilter(format!("fail_on glob {s:?} is not valid: {e}"))
                }),
        })
        .collect()
}

/// Maps a git failure to the tool's error; "not a repository" is one line.
fn git_error(root: &Path, e: GitError) -> ToolError {
    match e {
        GitError::Failed { stderr, .. } if stderr.contains("not a git repository") => {
            ToolError::NotFound(format!("not a git repository: {}", root.display()))
        }
        GitError::Failed { args, stderr } => ToolError::InvalidArgument(format!(
            "base: git {args} failed: {}",
            stderr.lines().next().unwrap_or("")
        )),
        e => ToolError::Internal(e.to_string()),
    }
}

/// The diff of `args` under `root`, with untracked files as added in working-tree mode.
///
/// Errors: `not_found` outside a repository, `invalid_argument` for a base git does not
/// know, `internal` when git cannot run.
pub fn read_diff(root: &Path, base: &str, staged: bool) -> Result<Vec<FileDiff>, ToolError> {
    git::run(root, &["rev-parse", "--is-inside-work-tree"]).map_err(|e| git_error(root, e))?;
    let mut argv = vec![
        "diff",
        "-U0",
        "--no-color",
        "--no-ext-diff",
        "--no-renames",
        "--relative",
    ];
    if staged {
        argv.push("--cached");
    }
    argv.extend([base, "--"]);
    let text = git::run(root, &argv).map_err(|e| git_error(root, e))?;
    let mut files = unified_diff::parse(&text);
    if !staged {
        let untracked = git::run(root, &["ls-files", "--others", "--exclude-standard"])
            .map_err(|e| git_error(root, e))?;
        for path in untracked.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let lines = std::fs::read(root.join(path))
                .map(|b| b.iter().filter(|&&c| c == b'\n').count().max(1) as u32)
                .unwrap_or(1);
            files.push(FileDiff {
                old_path: None,
                new_path: Some(path.to_string()),
                new_ranges: vec![(1, lines)],
                ..FileDiff::default()
            });
        }
    }
    files.sort_by(|a, b| a.path().cmp(b.path()));
    Ok(files)
}

/// `func`, `class` or `mod`: the key prefix of a symbol kind (as the indexer names
/// nodes).
fn key_prefix(kind: &str) -> &'static str {
    match kind {
        "function" | "method" => "func",
        "module" => "mod",
        _ => "class",
    }
}

/// The symbols of `f` in the current index that the change adds or modifies.
fn new_side(
    g: &SymbolGraph,
    f: &FileDiff,
    nodes: &[NodeIndex],
    out: &mut Vec<(NodeIndex, ChangedSymbol)>,
) {
    let changed_line_outside_members = |ix: NodeIndex, s: u32, e: u32| -> bool {
        let children: Vec<(u32, u32)> = g
            .graph
            .edges_directed(ix, Direction::Outgoing)
            .filter(|x| x.weight().kind == EdgeKind::Contains)
            .map(|x| {
                let c = g.node(x.target());
                (c.start_line as u32, c.end_line as u32)
            })
            .collect();
        let in_child = |l: u32| children.iter().any(|&(a, b)| a <= l && l <= b);
        let lines = f
            .new_ranges
            .iter()
            .flat_map(|&(a, b)| a.max(s)..=b.min(e))
            .any(|l| !in_child(l));
        // A deletion after line p lies between p and p + 1: inside the symbol when both are.
        let gaps = f
            .deletion_points
            .iter()
            .any(|&p| s <= p && p < e && !(in_child(p) && in_child(p + 1)));
        lines || gaps
    };
    for &ix in nodes {
        let n = g.node(ix);
        if n.kind == "file" {
            continue;
        }
        let (s, e) = (n.start_line as u32, n.end_line as u32);
        let change = if f.old_path.is_none() || inside(&f.new_ranges, s, e) {
            "added"
        } else if (overlaps(&f.new_ranges, s, e)
            || f.deletion_points.iter().any(|&p| s <= p && p < e))
            && changed_line_outside_members(ix, s, e)
        {
            "modified"
        } else {
            continue;
        };
        out.push((
            ix,
            ChangedSymbol {
                node_id: n.key.clone(),
                kind: n.kind.clone(),
                file: n.path.clone(),
                start_line: s,
                end_line: e,
                change: change.into(),
            },
        ));
    }
}

/// The symbols of the old version of `f` (its text `old`) that meet its removed lines
/// and no longer exist in the file.
fn removed_symbols(
    g: &SymbolGraph,
    f: &FileDiff,
    old: &[u8],
    now: &[NodeIndex],
) -> Vec<ChangedSymbol> {
    let Some(path) = f.old_path.as_deref() else {
        return Vec::new();
    };
    let Some(language) = Language::detect(path, old) else {
        return Vec::new();
    };
    let Ok(facts) = lang::extract(language, old) else {
        return Vec::new();
    };
    let present: HashSet<&str> = now
        .iter()
        .map(|&ix| g.node(ix).qualified_name.as_str())
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    facts
        .symbols
        .iter()
        .filter(|s| overlaps(&f.old_ranges, s.start_line, s.end_line))
        .filter(|s| !present.contains(s.qualified_name.as_str()))
        .filter(|s| seen.insert(s.qualified_name.clone()))
        .map(|s| ChangedSymbol {
            node_id: format!("{}:{path}::{}", key_prefix(s.kind.name()), s.qualified_name),
            kind: s.kind.name().to_string(),
            file: path.to_string(),
            start_line: s.start_line,
            end_line: s.end_line,
            change: "removed".into(),
        })
        .collect()
}

/// `diff_impact`: the changed files and symbols of a git diff, their impact (as
/// `get_impact`) and the tests to run, and the `fail_on` verdict. The index must be
/// up to date with the working tree (the callers refresh it first).
///
/// Errors: `not_found` outside a git repository (one line), `invalid_argument` for a
/// base git does not know, `depth` or `min_confidence`, `invalid_filter` for a
/// `fail_on` glob, `budget_too_small`.
pub fn diff_impact(
    whole: &Arc<SymbolGraph>,
    open: Option<&OpenCalls>,
    root: &Path,
    args: &DiffImpactArgs,
) -> Result<DiffImpactAnswer, ToolError> {
    let min = min_confidence(args.min_confidence)?;
    let depth = depth_arg(args.depth)?;
    let conditions = fail_conditions(args.fail_on.as_deref().unwrap_or(&[]))?;
    let staged = args.staged.unwrap_or(false);
    let base = args.base.clone().unwrap_or_else(|| "HEAD".to_string());
    let files = read_diff(root, &base, staged)?;
    let g = &**whole;
    let by_path = by_path(g);
    // The old versions of the code files that lost lines, read in one git process.
    let with_old: Vec<&FileDiff> = files
        .iter()
        .filter(|f| {
            !f.old_ranges.is_empty()
                && f.old_path
                    .as_deref()
                    .and_then(Language::from_path)
                    .is_some()
        })
        .collect();
    let specs: Vec<String> = with_old
        .iter()
        .map(|f| format!("{base}:./{}", f.old_path.as_deref().unwrap_or_default()))
        .collect();
    let olds = git::show_many(root, &specs).map_err(|e| git_error(root, e))?;
    let mut changed: Vec<(NodeIndex, ChangedSymbol)> = Vec::new();
    let mut removed: Vec<ChangedSymbol> = Vec::new();
    // The nodes the index has now for a changed file's new path.
    let nodes_now = |f: &FileDiff| -> &[NodeIndex] {
        f.new_path
            .as_deref()
            .and_then(|p| by_path.get(p))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    };
    for (f, old) in with_old.iter().zip(&olds) {
        if let Some(old) = old {
            removed.extend(removed_symbols(g, f, old, nodes_now(f)));
        }
    }
    for f in &files {
        if f.new_path.is_some() {
            new_side(g, f, nodes_now(f), &mut changed);
        }
    }
    let seeds: Vec<NodeIndex> = changed.iter().map(|(ix, _)| *ix).collect();
    let found = impact(g, Some(root), &seeds, depth, min, open);
    let mut symbols: Vec<ChangedSymbol> =
        changed.into_iter().map(|(_, c)| c).chain(removed).collect();
    symbols.sort_by(|a, b| {
        a.file
            .cmp(&b.file)
            .then(a.start_line.cmp(&b.start_line))
            .then(a.node_id.cmp(&b.node_id))
    });
    let count = |c: &str| symbols.iter().filter(|s| s.change == c).count();
    let (added, modified, removed_n) = (count("added"), count("modified"), count("removed"));
    let changed_files: Vec<ChangedFile> = files
        .iter()
        .map(|f| ChangedFile {
            path: f.path().to_string(),
            status: match (&f.old_path, &f.new_path) {
                (None, _) => "added",
                (_, None) => "deleted",
                _ => "modified",
            }
            .into(),
            old_lines: f.old_ranges.iter().map(|&(a, b)| [a, b]).collect(),
            new_lines: f.new_ranges.iter().map(|&(a, b)| [a, b]).collect(),
        })
        .collect();
    let fail = (!conditions.is_empty()).then(|| {
        let mut reasons = Vec::new();
        for c in &conditions {
            match c {
                FailOn::MoreThan(n) if found.trusted.len() > *n => {
                    reasons.push(format!("{} dependents, more than {n}", found.trusted.len()))
                }
                FailOn::Path(glob, m) => {
                    for f in &files {
                        let hit = [f.old_path.as_deref(), f.new_path.as_deref()]
                            .into_iter()
                            .flatten()
                            .any(|p| m.is_match(p));
                        if hit {
                            reasons.push(format!("{} matches {glob}", f.path()));
                        }
                    }
                }
                FailOn::MoreThan(_) => {}
            }
        }
        FailVerdict {
            failed: !reasons.is_empty(),
            reasons,
        }
    });
    let hint = format!(
        "raise budget_tokens, lower depth (now {depth}), or diff fewer files (get_impact on one changed symbol)"
    );
    let max = found.longest().max(symbols.len()).max(changed_files.len());
    let (mut answer, tokens) =
        fit_typed(args.budget_tokens.unwrap_or(DEFAULT_BUDGET), max, |limit| {
            let mut lists = found.lists(limit, &hint);
            let cut =
                symbols.len().saturating_sub(limit) + changed_files.len().saturating_sub(limit);
            if cut > 0 {
                lists.truncated = true;
                lists.left_out += cut;
                lists.hint = Some(hint.clone());
            }
            DiffImpactAnswer {
                base: base.clone(),
                staged,
                files_changed_total: changed_files.len(),
                files_changed: changed_files.iter().take(limit).cloned().collect(),
                changed_total: symbols.len(),
                added,
                modified,
                removed: removed_n,
                changed: symbols.iter().take(limit).cloned().collect(),
                depth,
                min_confidence: min,
                lists,
                fail: fail.clone(),
                tokens: 0,
            }
        })?;
    answer.tokens = tokens;
    Ok(answer)
}

/// The answer as text for people: changed files and symbols, then the impact.
pub fn render_text(a: &DiffImpactAnswer) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} file(s) changed against {}{}; symbols: {} added, {} modified, {} removed",
        a.files_changed_total,
        a.base,
        if a.staged { " (staged)" } else { "" },
        a.added,
        a.modified,
        a.removed
    );
    for c in &a.changed {
        let _ = writeln!(
            out,
            "  {:<8} {} ({}:{}-{})",
            c.change, c.node_id, c.file, c.start_line, c.end_line
        );
    }
    out.push_str(&super::impact::render_text(&a.lists));
    if let Some(f) = &a.fail {
        for r in &f.reasons {
            let _ = writeln!(out, "fail: {r}");
        }
    }
    out
}
