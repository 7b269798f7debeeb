//! The context pack: what the judges get to see besides the candidate, by scope —
//! `diff`: a git header (branch, HEAD, dirty files) and `git diff HEAD`; `paths`: the
//! listed files; `workspace`: a depth-limited tree of the indexed files and the most
//! central files by PageRank. Always within a token budget (cl100k_base, the
//! tokenizer of `summarize_graph`).
//!
//! Git runs as a subprocess with an argument vector (no shell). A workspace that is
//! not a git repository (or a machine without git) gets the workspace context with a
//! note instead of the diff. Nothing outside the workspace root is read.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::tools::symbol_summary::count_tokens;
use crate::tools::workspace::Workspace;
use crate::walk::git::{self, GitError};

use super::candidates::{parse_unified_diff, Candidate, Unit};
use super::config::{Scope, SessionConfig};

/// Token budget of a context pack (cl100k_base).
pub const DEFAULT_CONTEXT_TOKENS: usize = 6000;
/// Depth of the workspace tree (directory levels shown before they are summarized).
pub const TREE_DEPTH: usize = 3;
/// Central files shown in the workspace context.
pub const CENTRAL_FILES: usize = 5;
/// Lines of each central file shown.
pub const SNIPPET_LINES: usize = 60;
/// Untracked files larger than this are not read into the diff context (bytes).
const MAX_UNTRACKED_BYTES: u64 = 512 * 1024;

/// The state of the workspace's git repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitState {
    /// Current branch (`HEAD` when detached; `(no commits yet)`).
    pub branch: String,
    /// `SHORT_SHA subject` of HEAD, empty without commits.
    pub head: String,
    /// `git status --porcelain` lines (paths from the repository's top).
    pub dirty: Vec<String>,
    /// `git diff HEAD --relative` (paths relative to the workspace root).
    pub diff: String,
    /// Untracked files (not ignored), relative to the workspace root.
    pub untracked: Vec<String>,
}

impl GitState {
    /// Workspace-relative paths the working tree changes (diff and untracked).
    pub fn changed_paths(&self) -> Vec<String> {
        let mut p: Vec<String> = parse_unified_diff(&self.diff)
            .into_iter()
            .map(|f| f.path)
            .chain(self.untracked.iter().cloned())
            .collect();
        p.sort();
        p.dedup();
        p
    }
}

/// A built context pack.
#[derive(Debug, Clone, Default)]
pub struct ContextPack {
    /// The scope actually used (after fallbacks).
    pub scope: Option<Scope>,
    /// The pack, as shown to a judge.
    pub text: String,
    /// Its size in cl100k_base tokens (at most the budget).
    pub tokens: usize,
    /// Fallbacks and cuts, for the review's notes.
    pub notes: Vec<String>,
    /// The git state, when the workspace is in a repository.
    pub git: Option<GitState>,
    /// Workspace-relative files the pack shows (paths scope: the listed files;
    /// workspace scope: the central files).
    pub files: Vec<String>,
}

impl ContextPack {
    /// When the thought carries no code, what the scope names becomes the candidate:
    /// the working tree's changes (diff), the listed files (paths), the central files
    /// (workspace).
    pub fn scope_candidate(&self, root: &Path) -> Option<Candidate> {
        match self.scope? {
            Scope::Diff => {
                let git = self.git.as_ref()?;
                let mut units = super::candidates::units_from_diff(&git.diff, root);
                for p in &git.untracked {
                    if let Some(text) = super::read_inside(root, p) {
                        units.push(Unit {
                            path: p.clone(),
                            language: crate::lang::Language::from_path(p),
                            text,
                            first_line: 1,
                            changed: None,
                            fragment: false,
                        });
                    }
                }
                (!units.is_empty()).then(|| Candidate {
                    label: "workspace diff".into(),
                    units,
                })
            }
            Scope::Paths => super::candidates::from_files("paths", root, &self.files),
            Scope::Workspace => super::candidates::from_files("central files", root, &self.files),
        }
    }
}

/// The git state of `root`, or why there is none.
pub fn git_state(root: &Path) -> Result<GitState, String> {
    match git::run(root, &["rev-parse", "--is-inside-work-tree"]) {
        Ok(s) if s.trim() == "true" => {}
        Ok(_) | Err(GitError::Failed { .. }) => {
            return Err("the workspace is not a git repository".into())
        }
        Err(e) => return Err(e.to_string()),
    }
    let has_head = git::run(root, &["rev-parse", "--verify", "-q", "HEAD"]).is_ok();
    let branch = if has_head {
        git::run(root, &["rev-parse", "--abbrev-ref", "HEAD"])
            .map(|s| s.trim().to_string())
            .map_err(|e| e.to_string())?
    } else {
        "(no commits yet)".to_string()
    };
    let head = if has_head {
        git::run(root, &["log", "-1", "--format=%h %s"])
            .map(|s| s.trim().to_string())
            .map_err(|e| e.to_string())?
    } else {
        String::new()
    };
    let dirty = git::run(
        root,
        &[
            "status",
            "--porcelain=v1",
            "--untracked-files=all",
            "--",
            ".",
        ],
    )
    .map(|s| s.lines().map(str::to_string).collect())
    .map_err(|e| e.to_string())?;
    let diff_args: &[&str] = if has_head {
        &["diff", "HEAD", "--relative", "--no-color", "--no-ext-diff"]
    } else {
        &["diff", "--relative", "--no-color", "--no-ext-diff"]
    };
    let diff = git::run(root, diff_args).map_err(|e| e.to_string())?;
    let untracked = git::run(root, &["ls-files", "--others", "--exclude-standard"])
        .map(|s| {
            s.lines()
                .filter(|p| !p.starts_with(".constellation/"))
                .filter(|p| {
                    std::fs::metadata(root.join(p))
                        .map(|m| m.is_file() && m.len() <= MAX_UNTRACKED_BYTES)
                        .unwrap_or(false)
                })
                .map(str::to_string)
                .collect()
        })
        .map_err(|e| e.to_string())?;
    Ok(GitState {
        branch,
        head,
        dirty,
        diff,
        untracked,
    })
}

/// Builds the pack for `config` within `budget` tokens.
pub fn build(ws: &Workspace, config: &SessionConfig, budget: usize) -> ContextPack {
    let root = ws.root();
    let mut pack = ContextPack::default();
    let mut packer = Packer::new(budget);
    let mut scope = config.scope;

    if scope == Scope::Paths {
        let mut files = Vec::new();
        for p in &config.paths {
            match super::resolve_inside(root, p) {
                Ok(rel) => files.push(rel),
                Err(why) => pack.notes.push(format!("path {p:?} skipped: {why}")),
            }
        }
        if files.is_empty() {
            pack.notes.push(
                "scope paths without a usable path: using the workspace context instead".into(),
            );
            scope = Scope::Workspace;
        } else {
            for f in &files {
                let text = super::read_inside(root, f).unwrap_or_default();
                packer.section(&format!("## file {f}"), &text);
            }
            pack.files = files;
        }
    }

    if scope == Scope::Diff {
        match git_state(root) {
            Ok(g) => {
                let header = format!(
                    "branch: {}\nHEAD: {}\ndirty files ({}):\n{}",
                    g.branch,
                    if g.head.is_empty() { "-" } else { &g.head },
                    g.dirty.len(),
                    g.dirty.join("\n")
                );
                packer.section("## git", &header);
                if g.diff.trim().is_empty() {
                    packer.section("## git diff HEAD", "(no changes to tracked files)");
                } else {
                    packer.section("## git diff HEAD", &g.diff);
                }
                for p in &g.untracked {
                    if let Some(text) = super::read_inside(root, p) {
                        packer.section(&format!("## untracked file {p}"), &text);
                    }
                }
                pack.git = Some(g);
            }
            Err(why) => {
                pack.notes.push(format!(
                    "{why}: no diff context; using the workspace context instead"
                ));
                scope = Scope::Workspace;
            }
        }
    }

    if scope == Scope::Workspace {
        let (tree, central) = workspace_view(ws, &mut pack.notes);
        packer.section(&format!("## tree (depth {TREE_DEPTH})"), &tree);
        for (rank, path) in central.iter().enumerate() {
            let text = super::read_inside(root, path).unwrap_or_default();
            let snippet: Vec<&str> = text.lines().take(SNIPPET_LINES).collect();
            let more = text.lines().count().saturating_sub(SNIPPET_LINES);
            let mut body = snippet.join("\n");
            if more > 0 {
                body.push_str(&format!("\n… ({more} more lines)"));
            }
            packer.section(
                &format!("## central file {} (PageRank rank {})", path, rank + 1),
                &body,
            );
        }
        pack.files = central;
    }

    pack.scope = Some(scope);
    if packer.cut > 0 {
        pack.notes.push(format!(
            "context pack cut to its budget of {budget} tokens ({} lines left out)",
            packer.cut
        ));
    }
    pack.text = packer.out;
    pack.tokens = count_tokens(&pack.text);
    pack.notes.push(format!(
        "context pack: scope {}, {} tokens (cl100k_base)",
        scope.name(),
        pack.tokens
    ));
    pack
}

/// The depth-limited tree of indexed files and the most central files (PageRank of
/// their symbols summed per file; ties by path).
fn workspace_view(ws: &Workspace, notes: &mut Vec<String>) -> (String, Vec<String>) {
    let paths = match ws
        .store()
        .conn()
        .map_err(|e| e.to_string())
        .and_then(|c| crate::store::defined_names::indexed_paths(&c).map_err(|e| e.to_string()))
    {
        Ok(p) => p,
        Err(e) => {
            notes.push(format!("the index could not be read ({e}): no tree"));
            Vec::new()
        }
    };
    let tree = render_tree(&paths, TREE_DEPTH);
    // Centrality over trusted edges only, as every graph tool by default.
    let central = match ws
        .symbol_graph()
        .map(|g| g.trusted(crate::graph::symbol_graph::DEFAULT_MIN_CONFIDENCE))
    {
        Ok(g) => {
            let pr = g.pagerank();
            let mut per_file: HashMap<&str, f64> = HashMap::new();
            for ix in g.graph.node_indices() {
                *per_file.entry(g.graph[ix].path.as_str()).or_insert(0.0) += pr[ix.index()];
            }
            let mut files: Vec<(&str, f64)> = per_file
                .into_iter()
                .filter(|(p, _)| crate::lang::Language::from_path(p).is_some())
                .collect();
            files.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
            files
                .into_iter()
                .take(CENTRAL_FILES)
                .map(|(p, _)| p.to_string())
                .collect()
        }
        Err(e) => {
            notes.push(format!(
                "the symbol graph could not be loaded ({e}): no central files"
            ));
            Vec::new()
        }
    };
    (tree, central)
}

/// A tree of `paths` down to `depth` directory levels; deeper directories show their
/// file count.
pub fn render_tree(paths: &[String], depth: usize) -> String {
    #[derive(Default)]
    struct Dir {
        dirs: BTreeMap<String, Dir>,
        files: Vec<String>,
        total: usize,
    }
    let mut top = Dir::default();
    for p in paths {
        let parts: Vec<&str> = p.split('/').collect();
        let mut d = &mut top;
        d.total += 1;
        for part in &parts[..parts.len() - 1] {
            d = d.dirs.entry(part.to_string()).or_default();
            d.total += 1;
        }
        d.files.push(parts[parts.len() - 1].to_string());
    }
    let mut out = String::new();
    let mut stack: Vec<(&Dir, usize, Option<&str>)> = vec![(&top, 0, None)];
    // Iterative, in order: a directory's line, then its files, then its subdirectories.
    while let Some((d, level, name)) = stack.pop() {
        let indent = "  ".repeat(level.saturating_sub(1));
        if let Some(name) = name {
            out.push_str(&format!("{indent}{name}/ ({} files)\n", d.total));
            if level >= depth {
                continue;
            }
        }
        let inner = "  ".repeat(level);
        for f in &d.files {
            out.push_str(&format!("{inner}{f}\n"));
        }
        for (n, sub) in d.dirs.iter().rev() {
            stack.push((sub, level + 1, Some(n)));
        }
    }
    out
}

/// Appends sections while they fit the budget, cutting the first that does not line
/// by line (and every later one entirely).
struct Packer {
    budget: usize,
    used: usize,
    out: String,
    /// Lines left out.
    cut: usize,
}

impl Packer {
    /// Tokens kept free for the cut marker.
    const RESERVE: usize = 16;

    fn new(budget: usize) -> Packer {
        Packer {
            budget,
            used: 0,
            out: String::new(),
            cut: 0,
        }
    }

    fn push(&mut self, text: &str) -> bool {
        let t = count_tokens(text);
        if self.used + t + Self::RESERVE > self.budget {
            return false;
        }
        self.used += t;
        self.out.push_str(text);
        true
    }

    fn section(&mut self, title: &str, body: &str) {
        let whole = format!("{title}\n{body}\n\n");
        if self.push(&whole) {
            return;
        }
        let lines: Vec<&str> = body.lines().collect();
        if !self.push(&format!("{title}\n")) {
            self.cut += lines.len();
            return;
        }
        for (i, l) in lines.iter().enumerate() {
            if !self.push(&format!("{l}\n")) {
                let left = lines.len() - i;
                self.cut += left;
                let marker = format!("… ({left} lines cut to fit the token budget)\n\n");
                self.used += count_tokens(&marker);
                self.out.push_str(&marker);
                return;
            }
        }
        self.out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_is_depth_limited() {
        let paths: Vec<String> = ["a.rs", "src/b.rs", "src/x/y/z/deep.rs", "src/x/c.rs"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            render_tree(&paths, 2),
            "a.rs\nsrc/ (3 files)\n  b.rs\n  x/ (2 files)\n"
        );
    }

    #[test]
    fn packer_stays_within_budget() {
        let mut p = Packer::new(60);
        let body: String = (0..100).map(|i| format!("line number {i}\n")).collect();
        p.section("## big", &body);
        p.section("## later", "x");
        assert!(count_tokens(&p.out) <= 60, "{}", p.out);
        assert!(p.cut > 90);
        assert!(p.out.contains("lines cut to fit the token budget"));
    }

    #[test]
    fn not_a_repository_is_said() {
        let dir = tempfile::tempdir().unwrap();
        match git_state(dir.path()) {
            Err(why) => assert!(
                why.contains("not a git repository") || why.contains("git is not installed"),
                "{why}"
            ),
            Ok(g) => panic!("a temp dir is no repository: {g:?}"),
        }
    }
}
