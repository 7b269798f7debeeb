//! `folder_info` and `report_folder_info` (with the argument names of the
//! public LLMem server): a directory's files and their roles from the index, the
//! import and call edges that cross its boundary, an enrichment prompt, and saving the
//! README the host model reports back to `.artifacts/src/<folder>/README.md`.
//!
//! A folder's digest (for staleness) is blake3 over the lines `path NUL digest LF` of
//! its indexed files in path order: it changes when a file under the folder is added,
//! removed or edited.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::docs::saved::{self, code, ExistingDoc, SavedDoc};
use crate::docs::store::{self as store_docs, FolderFile};
use crate::tools::sandbox;
use crate::tools::workspace::Workspace;
use crate::tools::ToolError;

/// Files listed in the JSON structure (`filesTotal` has the count).
pub const MAX_FILES: usize = 500;
/// Edges listed per boundary list (`...Total` has the count).
pub const MAX_EDGES: usize = 200;
/// Files and edges listed per section in the prompt.
pub const MAX_PROMPT_ITEMS: usize = 100;
/// Default token budget (cl100k_base) of a `folder_info` answer.
pub const DEFAULT_BUDGET: usize = 8_000;
pub use crate::tools::MAX_BUDGET;

/// Arguments of `folder_info`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FolderInfoArgs {
    /// Path to the folder, relative to the workspace root (`.` for the root).
    pub path: String,
    /// Default 8000, at most 20000.
    #[serde(default)]
    pub budget_tokens: Option<usize>,
    /// Workspace root; the server's when absent.
    #[serde(default, rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// One key file of `report_folder_info`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyFile {
    /// A file under the folder: its name, its path relative to the folder, or its path
    /// relative to the workspace root.
    pub name: String,
    /// Brief summary of the file's goal.
    pub summary: String,
}

/// Arguments of `report_folder_info` (as the LLMem server has them).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportFolderInfoArgs {
    /// Folder path, relative to the workspace root.
    pub path: String,
    /// Folder overview summary.
    pub overview: String,
    /// What the folder takes as input (external dependencies).
    #[serde(default)]
    pub inputs: Option<String>,
    /// What the folder produces (public API).
    #[serde(default)]
    pub outputs: Option<String>,
    /// Key files in the folder.
    pub key_files: Vec<KeyFile>,
    /// Description of the internal architecture and relationships.
    pub architecture: String,
    /// Default 2000, at most 20000.
    #[serde(default, skip_serializing)]
    pub budget_tokens: Option<usize>,
    /// Workspace root; the server's when absent.
    #[serde(default, rename = "workspaceRoot", skip_serializing)]
    pub workspace_root: Option<String>,
}

/// The answer of `folder_info`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FolderInfoResponse {
    /// Always `prompt_ready`.
    pub status: String,
    /// The folder, relative to the workspace root (`.` for the root).
    pub path: String,
    /// The enrichment prompt.
    #[serde(rename = "promptForHostLLM")]
    pub prompt_for_host_llm: String,
    /// Always `report_folder_info`.
    pub callback_tool: String,
    pub structure: FolderStructure,
    /// The README saved earlier, if any, and whether it is stale.
    pub existing_doc: Option<ExistingDoc>,
    /// What was cut to fit `budget_tokens`; absent when nothing was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Tokens (cl100k_base) of the answer as JSON.
    pub tokens: usize,
}

/// A folder's structure from the index.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FolderStructure {
    /// Indexed files under the folder (recursively), in path order, at most [`MAX_FILES`].
    pub files: Vec<FolderFileInfo>,
    pub files_total: usize,
    /// The folder's digest now (see the module docs).
    pub digest: String,
    /// File imports from outside the folder into it: who depends on it.
    pub imports_in: Vec<Edge>,
    pub imports_in_total: usize,
    /// File imports from the folder to files outside it: what it depends on.
    pub imports_out: Vec<Edge>,
    pub imports_out_total: usize,
    /// File imports between files of the folder.
    pub internal_imports: Vec<Edge>,
    pub internal_imports_total: usize,
    /// Calls from outside into functions of the folder.
    pub calls_in: Vec<Edge>,
    pub calls_in_total: usize,
    /// Calls from the folder to functions outside it.
    pub calls_out: Vec<Edge>,
    pub calls_out_total: usize,
    /// Calls between functions of the folder.
    pub internal_calls_total: usize,
}

/// A file of the folder.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FolderFileInfo {
    /// Relative to the workspace root.
    pub path: String,
    pub language: Option<String>,
    /// `files.status`.
    pub index_status: String,
    pub functions: i64,
    pub classes: i64,
    /// Its role from the index: `public interface` (imported from outside the
    /// folder), `internal module` (imported only from inside), `entry point` (imports,
    /// imported by nothing), `isolated` (no import either way), `asset` (not parsed as
    /// code), or the skip status (`binary`, `too_large`, `unreadable`).
    pub role: String,
    /// Distinct files outside / inside the folder that import it.
    pub imported_from_outside: usize,
    pub imported_from_inside: usize,
    /// Distinct files it imports, outside / inside the folder.
    pub imports_outside: usize,
    pub imports_inside: usize,
    /// Its top-level symbols, in line order (at most 50).
    pub top_level: Vec<String>,
}

/// An edge across or inside the folder: file to file for imports; for calls, the
/// caller and callee as `PATH::qualified name`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub from: String,
    pub to: String,
}

/// The folder as the index stores it: `""` for the root, else the relative path.
fn prefix_of(rel: &str) -> &str {
    if rel == "." {
        ""
    } else {
        rel
    }
}

fn inside(prefix: &str, path: &str) -> bool {
    prefix.is_empty()
        || (path.len() > prefix.len()
            && path.starts_with(prefix)
            && path.as_bytes()[prefix.len()] == b'/')
}

/// The folder digest over its files (see the module docs).
pub fn folder_digest(files: &[FolderFile]) -> String {
    let mut h = blake3::Hasher::new();
    for f in files {
        h.update(f.path.as_bytes());
        h.update(b"\0");
        h.update(f.digest.as_deref().unwrap_or("").as_bytes());
        h.update(b"\n");
    }
    h.finalize().to_hex().to_string()
}

/// Resolves the folder, refreshes the index and reads the folder's structure.
fn load(ws: &Workspace, path: &str) -> Result<(String, FolderStructure), ToolError> {
    let p = sandbox::resolve(ws.root(), path)?;
    if !p.is_dir {
        return Err(ToolError::InvalidArgument(format!(
            "path: {} is a file; use file_info for files",
            p.rel
        )));
    }
    ws.refresh_within(std::time::Duration::ZERO)?;
    let prefix = prefix_of(&p.rel).to_string();
    let conn = ws.store().conn()?;
    let files = store_docs::folder_files(&conn, &prefix)?;
    let imports = store_docs::folder_import_edges(&conn, &prefix)?;
    let calls = store_docs::folder_call_edges(&conn, &prefix)?;
    drop(conn);
    if files.is_empty() {
        return Err(ToolError::NotFound(format!(
            "no indexed file under {}: the folder is empty, or everything in it is ignored \
             (ignore rules, hidden, node_modules, default excludes, --exclude)",
            p.rel
        )));
    }

    // Distinct file pairs, split by side.
    let pairs: BTreeSet<(String, String)> = imports.into_iter().map(|e| (e.src, e.dst)).collect();
    let (mut imports_in, mut imports_out, mut internal) = (vec![], vec![], vec![]);
    let mut deg: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for (s, d) in &pairs {
        let (si, di) = (inside(&prefix, s), inside(&prefix, d));
        let e = Edge {
            from: s.clone(),
            to: d.clone(),
        };
        match (si, di) {
            (true, true) => {
                deg.entry(d).or_default()[1] += 1;
                deg.entry(s).or_default()[3] += 1;
                internal.push(e);
            }
            (false, true) => {
                deg.entry(d).or_default()[0] += 1;
                imports_in.push(e);
            }
            (true, false) => {
                deg.entry(s).or_default()[2] += 1;
                imports_out.push(e);
            }
            (false, false) => {}
        }
    }
    let (mut calls_in, mut calls_out) = (BTreeSet::new(), BTreeSet::new());
    let mut internal_calls = 0usize;
    for c in &calls {
        let e = Edge {
            from: format!("{}::{}", c.caller_path, c.caller),
            to: format!("{}::{}", c.callee_path, c.callee),
        };
        match (
            inside(&prefix, &c.caller_path),
            inside(&prefix, &c.callee_path),
        ) {
            (true, true) => internal_calls += 1,
            (false, true) => {
                calls_in.insert(e);
            }
            (true, false) => {
                calls_out.insert(e);
            }
            (false, false) => {}
        }
    }
    let infos: Vec<FolderFileInfo> = files
        .iter()
        .map(|f| {
            let [out_in, in_in, out_out, in_out] =
                deg.get(f.path.as_str()).copied().unwrap_or_default();
            let role = match f.status.as_str() {
                "binary" | "too_large" | "unreadable" => f.status.clone(),
                _ if f.language.is_none() && out_in + in_in == 0 => "asset".into(),
                _ if out_in > 0 => "public interface".into(),
                _ if in_in > 0 => "internal module".into(),
                _ if out_out + in_out > 0 => "entry point".into(),
                _ => "isolated".into(),
            };
            FolderFileInfo {
                path: f.path.clone(),
                language: f.language.clone(),
                index_status: f.status.clone(),
                functions: f.functions,
                classes: f.classes,
                role,
                imported_from_outside: out_in,
                imported_from_inside: in_in,
                imports_outside: out_out,
                imports_inside: in_out,
                top_level: f.top_level.clone(),
            }
        })
        .collect();
    let cap = |v: Vec<Edge>| -> (usize, Vec<Edge>) {
        let n = v.len();
        (n, v.into_iter().take(MAX_EDGES).collect())
    };
    let (imports_in_total, imports_in) = cap(imports_in);
    let (imports_out_total, imports_out) = cap(imports_out);
    let (internal_imports_total, internal_imports) = cap(internal);
    let (calls_in_total, calls_in) = cap(calls_in.into_iter().collect());
    let (calls_out_total, calls_out) = cap(calls_out.into_iter().collect());
    let files_total = infos.len();
    Ok((
        p.rel,
        FolderStructure {
            files: infos.into_iter().take(MAX_FILES).collect(),
            files_total,
            digest: folder_digest(&files),
            imports_in,
            imports_in_total,
            imports_out,
            imports_out_total,
            internal_imports,
            internal_imports_total,
            calls_in,
            calls_in_total,
            calls_out,
            calls_out_total,
            internal_calls_total: internal_calls,
        },
    ))
}

/// The structural part of the folder prompt, in markdown.
pub fn structure_markdown(s: &FolderStructure) -> String {
    let mut md = String::new();
    let functions: i64 = s.files.iter().map(|f| f.functions).sum();
    let classes: i64 = s.files.iter().map(|f| f.classes).sum();
    md.push_str(&format!(
        "- {} files, {functions} functions and methods, {classes} classes (listed files only)\n",
        s.files_total
    ));
    md.push_str("\n### Files (role from the index)\n");
    let shown = s.files.len().min(MAX_PROMPT_ITEMS);
    for f in s.files.iter().take(shown) {
        let top = if f.top_level.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = f.top_level.iter().map(|n| code(n)).collect();
            format!(" — defines {}", saved::join_capped(&names, 12))
        };
        md.push_str(&format!(
            "- {} ({}; {} functions, {} classes) — {}{top}\n",
            code(&f.path),
            f.language.as_deref().unwrap_or("not parsed"),
            f.functions,
            f.classes,
            f.role
        ));
    }
    if s.files_total > shown {
        md.push_str(&format!("- ... and {} more files\n", s.files_total - shown));
    }
    let section = |md: &mut String, title: &str, edges: &[Edge], total: usize| {
        md.push_str(&format!("\n### {title} ({total})\n"));
        if total == 0 {
            md.push_str("(none)\n");
        }
        for e in edges.iter().take(MAX_PROMPT_ITEMS) {
            md.push_str(&format!("- {} → {}\n", code(&e.from), code(&e.to)));
        }
        if total > MAX_PROMPT_ITEMS.min(edges.len()) {
            md.push_str(&format!(
                "- ... and {} more\n",
                total - MAX_PROMPT_ITEMS.min(edges.len())
            ));
        }
    };
    section(
        &mut md,
        "Imports into the folder (who depends on it)",
        &s.imports_in,
        s.imports_in_total,
    );
    section(
        &mut md,
        "Imports out of the folder (what it depends on)",
        &s.imports_out,
        s.imports_out_total,
    );
    section(
        &mut md,
        "Imports inside the folder",
        &s.internal_imports,
        s.internal_imports_total,
    );
    section(
        &mut md,
        "Calls into the folder",
        &s.calls_in,
        s.calls_in_total,
    );
    section(
        &mut md,
        "Calls out of the folder",
        &s.calls_out,
        s.calls_out_total,
    );
    md.push_str(&format!(
        "\nCalls between functions of the folder: {}\n",
        s.internal_calls_total
    ));
    md
}

fn prompt(rel: &str, s: &FolderStructure, existing: Option<&ExistingDoc>) -> String {
    let mut p = String::new();
    p.push_str("You are a Code Documentation Assistant.\n\n");
    p.push_str(&format!(
        "I have extracted the following structure for folder: \"{rel}\"\n\n"
    ));
    p.push_str("## Structural Info:\n");
    p.push_str(&structure_markdown(s));
    if let Some(doc) = existing {
        p.push_str(&format!(
            "\n## Existing Documentation ({}, saved at {}):\n\n",
            if doc.stale {
                "STALE: files under the folder changed since; update it"
            } else {
                "up to date"
            },
            doc.saved_at
        ));
        let f = saved::fence_for(&doc.markdown);
        p.push_str(&format!("{f}markdown\n{}\n{f}\n", doc.markdown.trim_end()));
    }
    p.push_str(
        "\n## Task:\n\
         1. Write an **Overview** of this folder (2-3 paragraphs): its purpose and its role in the codebase.\n\
         2. **Inputs**: what it depends on (packages, other folders). **Outputs**: its public API, what other folders use.\n\
         3. **Key files**: for each important file, a 2-3 sentence summary naming its key functions or classes. \
         Use `file_info` or `inspect_source` to read a file when the structure is not enough.\n\
         4. **Architecture**: the internal structure, how data flows through the folder, the central files.\n\
         5. Call `report_folder_info` with your documentation.\n",
    );
    p.push_str(&format!(
        "\n`report_folder_info` arguments: {{\"path\": \"{rel}\", \"overview\": \"...\", \"inputs\": \"...\", \
         \"outputs\": \"...\", \"key_files\": [{{\"name\": \"...\", \"summary\": \"...\"}}], \"architecture\": \"...\"}}. \
         Each key file `name` must be a file listed above (its name, or its path).\n"
    ));
    p
}

/// `folder_info`: the folder's files, roles and boundary edges from the index, the
/// prompt, and the state of a saved README.
///
/// Errors: `outside_workspace`, `not_found` (also for a folder with no indexed file);
/// `invalid_argument` for a file or a budget outside 500-[`MAX_BUDGET`];
/// `budget_too_small` when the answer does not fit even with every list empty;
/// `index_failed`, `database_error`.
pub fn folder_info(
    ws: &Workspace,
    path: &str,
    budget_tokens: Option<usize>,
) -> Result<FolderInfoResponse, ToolError> {
    let budget = crate::tools::budget_tokens(budget_tokens, DEFAULT_BUDGET, 500)?;
    let (rel, full) = load(ws, path)?;
    let existing = saved::existing(ws, "folder", &rel, &full.digest)?;
    let answer = |s: FolderStructure| {
        let mut r = FolderInfoResponse {
            status: "prompt_ready".into(),
            prompt_for_host_llm: prompt(&rel, &s, existing.as_ref()),
            path: rel.clone(),
            callback_tool: "report_folder_info".into(),
            structure: s,
            existing_doc: existing.clone(),
            note: None,
            tokens: 0,
        };
        r.tokens = answer_tokens(&r);
        r
    };
    // Room kept for the note that says what was cut.
    let fit = budget - 120;
    // Halve the lists (files, each edge list, the names per file) until it fits; the
    // `..._total` fields keep the full counts.
    let (mut files, mut edges, mut names) = (full.files.len(), MAX_EDGES, 50);
    loop {
        let mut r = answer(shrink(&full, files, edges, names));
        let cut = files < full.files.len() || edges < MAX_EDGES || names < 50;
        if r.tokens <= fit || (!cut && r.tokens <= budget) {
            if cut {
                r.note = Some(format!(
                    "to fit budget_tokens {budget}: {} of {} files listed, at most {edges} edges per \
                     list and {names} top-level names per file (the ..._total fields have the \
                     counts); ask for a subfolder, or a larger budget_tokens (at most \
                     {MAX_BUDGET})",
                    r.structure.files.len(),
                    full.files_total
                ));
                r.tokens = answer_tokens(&r);
            }
            return Ok(r);
        }
        if files == 0 && edges == 0 && names == 0 {
            return Err(ToolError::BudgetTooSmall(format!(
                "the answer for {rel} needs about {} tokens even with no file or edge listed; \
                 give budget_tokens {} or more",
                r.tokens,
                (r.tokens + 200).min(MAX_BUDGET)
            )));
        }
        files /= 2;
        edges /= 2;
        names /= 2;
    }
}

/// `full` with at most `files` files, `edges` edges per list and `names` top-level
/// names per file.
fn shrink(full: &FolderStructure, files: usize, edges: usize, names: usize) -> FolderStructure {
    let mut s = full.clone();
    s.files.truncate(files);
    for f in &mut s.files {
        f.top_level.truncate(names);
    }
    for list in [
        &mut s.imports_in,
        &mut s.imports_out,
        &mut s.internal_imports,
        &mut s.calls_in,
        &mut s.calls_out,
    ] {
        list.truncate(edges);
    }
    s
}

/// Tokens of an answer as the JSON it is sent as.
fn answer_tokens(r: &FolderInfoResponse) -> usize {
    crate::tools::symbol_summary::count_tokens(&serde_json::to_string(r).unwrap_or_default())
}

/// The files a key-file name can mean: exact path, path under the folder, or name.
fn matches_key(prefix: &str, f: &FolderFileInfo, name: &str) -> bool {
    let name = name.trim().trim_start_matches("./");
    let under = if prefix.is_empty() {
        f.path.as_str()
    } else {
        f.path.get(prefix.len() + 1..).unwrap_or("")
    };
    f.path == name || under == name || f.path.rsplit('/').next() == Some(name)
}

/// Renders the folder README.
pub fn render_markdown(rel: &str, s: &FolderStructure, args: &ReportFolderInfoArgs) -> String {
    let mut md = format!(
        "# FOLDER: {rel}\n\n## Overview\n\n{}\n\n",
        args.overview.trim()
    );
    if let Some(i) = args.inputs.as_deref().filter(|t| !t.trim().is_empty()) {
        md.push_str(&format!("**Inputs**: {}\n", i.trim()));
    }
    if let Some(o) = args.outputs.as_deref().filter(|t| !t.trim().is_empty()) {
        md.push_str(&format!("**Outputs**: {}\n", o.trim()));
    }
    md.push_str(&format!(
        "**Connections**: imported by {} files outside, imports {} outside; {} calls in, {} calls out (from the index)\n",
        s.imports_in
            .iter()
            .map(|e| &e.from)
            .collect::<BTreeSet<_>>()
            .len(),
        s.imports_out.iter().map(|e| &e.to).collect::<BTreeSet<_>>().len(),
        s.calls_in_total,
        s.calls_out_total
    ));
    md.push_str(&format!(
        "\n---\n\n## Architecture\n\n{}\n\n---\n\n## Key Files\n\n",
        args.architecture.trim()
    ));
    for k in &args.key_files {
        md.push_str(&format!("- **{}**: {}\n", k.name.trim(), k.summary.trim()));
    }
    md.push_str(
        "\n---\n\n## Files\n\n| file | role | functions | classes |\n| --- | --- | --- | --- |\n",
    );
    for f in &s.files {
        md.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            code(&f.path),
            f.role,
            f.functions,
            f.classes
        ));
    }
    if s.files_total > s.files.len() {
        md.push_str(&format!(
            "\n... and {} more files\n",
            s.files_total - s.files.len()
        ));
    }
    md
}

/// `report_folder_info`: validates the key files against the folder, renders the
/// README, writes it to `.artifacts/src/<folder>/README.md` atomically and stores it in
/// `file_docs` with the folder's digest now.
///
/// The answer is cut to `budget_tokens` by [`saved::fit_saved`] (the saved document
/// never is).
///
/// Errors: those of [`folder_info`]; `invalid_argument` for a `budget_tokens` outside
/// 300-20,000, an empty overview or architecture, or key files that name no file of the folder (all listed; nothing is
/// written).
pub fn report_folder_info(
    ws: &Workspace,
    args: &ReportFolderInfoArgs,
) -> Result<SavedDoc, ToolError> {
    let budget = crate::tools::budget_tokens(
        args.budget_tokens,
        saved::REPORT_BUDGET,
        saved::REPORT_MIN_BUDGET,
    )?;
    if args.overview.trim().is_empty() {
        return Err(ToolError::InvalidArgument("overview is empty".into()));
    }
    if args.architecture.trim().is_empty() {
        return Err(ToolError::InvalidArgument("architecture is empty".into()));
    }
    let (rel, s) = load(ws, &args.path)?;
    let prefix = prefix_of(&rel).to_string();
    // Every file (not only the listed ones) can be a key file.
    let all: Vec<FolderFileInfo> = if s.files_total > s.files.len() {
        let conn = ws.store().conn()?;
        store_docs::folder_files(&conn, &prefix)?
            .into_iter()
            .map(|f| FolderFileInfo {
                path: f.path,
                language: f.language,
                index_status: f.status,
                functions: f.functions,
                classes: f.classes,
                role: String::new(),
                imported_from_outside: 0,
                imported_from_inside: 0,
                imports_outside: 0,
                imports_inside: 0,
                top_level: vec![],
            })
            .collect()
    } else {
        s.files.clone()
    };
    let unknown: Vec<String> = args
        .key_files
        .iter()
        .filter(|k| !all.iter().any(|f| matches_key(&prefix, f, &k.name)))
        .map(|k| k.name.clone())
        .collect();
    if !unknown.is_empty() {
        let names: Vec<String> = all.iter().map(|f| f.path.clone()).collect();
        return Err(ToolError::InvalidArgument(format!(
            "key_files name files that are not in {rel} (unknown: {}); files there: {}. \
             Nothing was saved: fix the names and call report_folder_info again",
            unknown.join(", "),
            saved::join_capped(&names, 60)
        )));
    }
    let undocumented: Vec<String> = s
        .files
        .iter()
        .filter(|f| {
            !args
                .key_files
                .iter()
                .any(|k| matches_key(&prefix, f, &k.name))
        })
        .map(|f| f.path.clone())
        .collect();
    let markdown = render_markdown(&rel, &s, args);
    let report = serde_json::to_value(args).map_err(|e| ToolError::Internal(e.to_string()))?;
    let doc = saved::save(
        ws,
        "folder",
        &rel,
        saved::folder_doc_location(&rel),
        &s.digest,
        markdown,
        &report,
        undocumented,
    )?;
    Ok(saved::fit_saved(doc, budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_is_by_path_component() {
        assert!(inside("", "a.py"));
        assert!(inside("src", "src/a.py"));
        assert!(!inside("src", "src2/a.py"));
        assert!(!inside("src", "src"));
    }

    #[test]
    fn digest_changes_with_any_file() {
        let f = |p: &str, d: &str| FolderFile {
            path: p.into(),
            language: None,
            status: "parsed".into(),
            digest: Some(d.into()),
            functions: 0,
            classes: 0,
            top_level: vec![],
        };
        let a = folder_digest(&[f("x/a", "1"), f("x/b", "2")]);
        assert_ne!(a, folder_digest(&[f("x/a", "1"), f("x/b", "3")]));
        assert_ne!(a, folder_digest(&[f("x/a", "1")]));
        assert_eq!(a, folder_digest(&[f("x/a", "1"), f("x/b", "2")]));
    }
}
