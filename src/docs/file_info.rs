//! `file_info` and `report_file_info`: a source file's structure from the
//! index, an enrichment prompt for the host model, and saving the documentation the
//! model reports back.
//!
//! The structure comes from the index, not from a re-parse: functions and methods with
//! signatures and line spans (`nodes`), classes with their methods (`parent_id`),
//! imports with the files they resolved to (`refs` + `edges`), and for every function
//! the callers from the reverse call index (`edges` of kind `calls` into it). Before
//! reading, the file's blake3 digest is compared with the index; a file the index does
//! not have yet, or has at another digest, is indexed first (an incremental run).
//!
//! The source goes into the prompt up to [`MAX_SOURCE_BYTES`], cut at a line boundary
//! with a note saying where and how to read the rest (`inspect_source`).

use crate::graph::symbol_graph::DEFAULT_MIN_CONFIDENCE;
use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::docs::saved::{self, code, ExistingDoc, SavedDoc};
use crate::docs::store::{self as store_docs, CallerEntry, FileEntry, SymbolDef};
use crate::tools::sandbox::{self, WorkspacePath};
use crate::tools::workspace::Workspace;
use crate::tools::ToolError;

/// The most source, in bytes, put into the prompt (64 KiB, about 16k tokens of code);
/// a larger file is cut at a line boundary and the prompt says where.
pub const MAX_SOURCE_BYTES: usize = 64 * 1024;
/// Callers listed per function in the JSON structure (`callersTotal` has the count).
pub const MAX_CALLERS_JSON: usize = 50;
/// Callers listed per function in the markdown (prompt and saved doc).
pub const MAX_CALLERS_MARKDOWN: usize = 10;
/// Default token budget (cl100k_base) of a `file_info` answer.
pub const DEFAULT_BUDGET: usize = 8_000;
pub use crate::tools::MAX_BUDGET;

/// Arguments of `file_info`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileInfoArgs {
    /// Path to the file, relative to the workspace root.
    pub path: String,
    /// Default 8000, at most 20000.
    #[serde(default)]
    pub budget_tokens: Option<usize>,
    /// Workspace root; the server's when absent.
    #[serde(default, rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// One function of `report_file_info`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportedFunction {
    /// A function, method or class of `file_info`: bare (`load`) or qualified
    /// (`Npm::load`, `Npm.load`).
    pub name: String,
    /// One sentence: what it does.
    pub purpose: String,
    /// Implementation summary: 3-5 bullet points, enough to reimplement it.
    pub implementation: String,
}

/// Arguments of `report_file_info` (`ReportFileInfoSchema`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportFileInfoArgs {
    /// File path, relative to the workspace root.
    pub path: String,
    /// File overview summary.
    pub overview: String,
    /// What the file takes as input.
    #[serde(default)]
    pub inputs: Option<String>,
    /// What the file produces.
    #[serde(default)]
    pub outputs: Option<String>,
    /// One entry per documented function, method or class.
    pub functions: Vec<ReportedFunction>,
    /// Default 2000, at most 20000.
    #[serde(default, skip_serializing)]
    pub budget_tokens: Option<usize>,
    /// Workspace root; the server's when absent.
    #[serde(default, rename = "workspaceRoot")]
    #[serde(skip_serializing)]
    pub workspace_root: Option<String>,
}

/// The answer of `file_info`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FileInfoResponse {
    /// Always `prompt_ready`.
    pub status: String,
    /// The file, relative to the workspace root.
    pub path: String,
    /// The enrichment prompt: structure, source and task (the published template).
    #[serde(rename = "promptForHostLLM")]
    pub prompt_for_host_llm: String,
    /// Always `report_file_info`: the tool to call with the result.
    pub callback_tool: String,
    /// The structure from the index, as data.
    pub structure: FileStructure,
    /// True when the source in the prompt was cut (to [`MAX_SOURCE_BYTES`] or to the
    /// token budget).
    pub source_truncated: bool,
    /// The doc saved earlier for this file, if any, and whether it is stale.
    pub existing_doc: Option<ExistingDoc>,
    /// What was cut to fit `budget_tokens` and how to read the rest; absent when
    /// nothing was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Tokens (cl100k_base) of the answer as JSON.
    pub tokens: usize,
}

/// A file's structure from the index.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FileStructure {
    /// `files.language` (`python`, `javascript`, ...); `null` for files not parsed.
    pub language: Option<String>,
    /// `files.status` (`parsed`, `parse_errors`, `asset`).
    pub index_status: String,
    /// Lines and bytes of the file now.
    pub lines: usize,
    pub bytes: usize,
    /// blake3 of the file now.
    pub digest: String,
    /// Every function and method, in line order.
    pub functions: Vec<FunctionInfo>,
    /// Classes, structs, enums, traits and interfaces, in line order.
    pub classes: Vec<ClassInfo>,
    /// Import statements, in line order.
    pub imports: Vec<ImportInfo>,
    /// Other files that import this one.
    pub imported_by: Vec<String>,
}

/// A function or method.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FunctionInfo {
    pub name: String,
    /// Enclosing names joined by `::` (`Npm::load`).
    pub qualified_name: String,
    /// `function` or `method`.
    pub kind: String,
    /// Declaration up to the body; `null` when the index has none.
    pub signature: Option<String>,
    /// 1-based, inclusive.
    pub start_line: i64,
    pub end_line: i64,
    /// Qualified name of the class (struct, trait, ...) it is a method of.
    pub class: Option<String>,
    /// Calls into it, by caller path and line (at most [`MAX_CALLERS_JSON`]): resolved
    /// call edges at least 0.97 confident (the graph tools' default `min_confidence`).
    pub callers: Vec<CallerInfo>,
    /// All such calls into it found in the index.
    pub callers_total: usize,
    /// Resolved calls into it whose rule is less precise than that, not listed.
    pub callers_below_min_confidence: usize,
}

/// One call into a function.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CallerInfo {
    /// Qualified name of the calling function; the file path for module-level code.
    pub caller: String,
    /// File of the call.
    pub path: String,
    /// Line of the call.
    pub line: Option<i64>,
    /// Confidence of the resolved call edge (see ARCHITECTURE.md).
    pub confidence: f64,
    /// The rule that resolved it (`scope`, `import`, `self`, `typed`, ..., `scip`).
    pub provenance: String,
}

/// A class-like symbol.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClassInfo {
    pub name: String,
    pub qualified_name: String,
    /// `class`, `struct`, `enum`, `trait` or `interface`.
    pub kind: String,
    pub signature: Option<String>,
    pub start_line: i64,
    pub end_line: i64,
    /// Bare names of its methods, in line order.
    pub methods: Vec<String>,
}

/// One import statement.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ImportInfo {
    /// As written.
    pub specifier: String,
    pub line: i64,
    /// `resolved`, `unresolved`, `ambiguous` or `external` (a package outside the workspace).
    pub status: String,
    /// The workspace file it resolved to.
    pub resolved_path: Option<String>,
}

/// True for symbol kinds that own methods.
fn is_class_like(kind: &str) -> bool {
    matches!(kind, "class" | "struct" | "enum" | "trait" | "interface")
}

/// True for functions and methods.
fn is_callable(kind: &str) -> bool {
    matches!(kind, "function" | "method")
}

/// A file read from disk and matched with its index row.
struct Loaded {
    path: WorkspacePath,
    source: String,
    digest: String,
    entry: FileEntry,
}

/// Resolves `path`, reads it, and makes sure the index has it at the digest just read
/// (indexing first when it does not).
fn load(ws: &Workspace, path: &str) -> Result<Loaded, ToolError> {
    let p = sandbox::resolve(ws.root(), path)?;
    if p.is_dir {
        return Err(ToolError::InvalidArgument(format!(
            "path: {} is a directory; use folder_info for directories",
            p.rel
        )));
    }
    let bytes = sandbox::read_file(ws.root(), &p, crate::walk::MAX_TOOL_READ)?;
    let digest = crate::walk::digest(&bytes);
    let lookup = || -> Result<Option<FileEntry>, ToolError> {
        let conn = ws.store().conn()?;
        Ok(store_docs::file_by_path(&conn, &p.rel)?)
    };
    let mut entry = lookup()?;
    if entry.as_ref().and_then(|e| e.digest.as_deref()) != Some(digest.as_str()) {
        ws.refresh_or_stale(false, &|_| {})?;
        entry = lookup()?;
    }
    let Some(entry) = entry else {
        return Err(ToolError::UnsupportedFile(format!(
            "{} is not in the index: the walk skips it (an ignore rule or, in a git \
             work tree, untracked and ignored; a hidden directory, node_modules, a default \
             exclude or --exclude); document a file the index covers",
            p.rel
        )));
    };
    match entry.status.as_str() {
        "binary" | "too_large" | "unreadable" => {
            return Err(ToolError::UnsupportedFile(format!(
                "{} was skipped by the indexer ({}{}); only text source files can be documented",
                p.rel,
                entry.status,
                entry
                    .detail
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            )))
        }
        _ => {}
    }
    Ok(Loaded {
        path: p,
        source: String::from_utf8_lossy(&bytes).into_owned(),
        digest,
        entry,
    })
}

/// Builds the structure of a loaded file from the index.
fn structure(ws: &Workspace, l: &Loaded) -> Result<FileStructure, ToolError> {
    let conn = ws.store().conn()?;
    let symbols = store_docs::file_symbols(&conn, l.entry.id)?;
    let callers = store_docs::callers_into_file(&conn, l.entry.id)?;
    let imports = store_docs::file_imports(&conn, l.entry.id)?;
    let imported_by = store_docs::importers_of_file(&conn, l.entry.id)?;
    drop(conn);

    let by_id: HashMap<i64, &SymbolDef> = symbols.iter().map(|s| (s.id, s)).collect();
    let mut callers_of: HashMap<i64, Vec<&CallerEntry>> = HashMap::new();
    for c in &callers {
        callers_of.entry(c.callee_id).or_default().push(c);
    }
    let class_of = |s: &SymbolDef| -> Option<String> {
        s.parent_id
            .and_then(|p| by_id.get(&p))
            .filter(|p| is_class_like(&p.kind))
            .map(|p| p.qualified_name.clone())
    };
    let functions = symbols
        .iter()
        .filter(|s| is_callable(&s.kind))
        .map(|s| {
            let all = callers_of.get(&s.id).map(Vec::as_slice).unwrap_or(&[]);
            let trusted: Vec<_> = all
                .iter()
                .filter(|c| c.confidence as f32 >= DEFAULT_MIN_CONFIDENCE as f32)
                .collect();
            FunctionInfo {
                name: s.name.clone(),
                qualified_name: s.qualified_name.clone(),
                kind: s.kind.clone(),
                signature: s.signature.clone(),
                start_line: s.start_line,
                end_line: s.end_line,
                class: class_of(s),
                callers: trusted
                    .iter()
                    .take(MAX_CALLERS_JSON)
                    .map(|c| CallerInfo {
                        caller: c.caller.clone(),
                        path: c.path.clone(),
                        line: c.line,
                        confidence: c.confidence,
                        provenance: c.provenance.clone(),
                    })
                    .collect(),
                callers_total: trusted.len(),
                callers_below_min_confidence: all.len() - trusted.len(),
            }
        })
        .collect();
    let classes = symbols
        .iter()
        .filter(|s| is_class_like(&s.kind))
        .map(|s| ClassInfo {
            name: s.name.clone(),
            qualified_name: s.qualified_name.clone(),
            kind: s.kind.clone(),
            signature: s.signature.clone(),
            start_line: s.start_line,
            end_line: s.end_line,
            methods: symbols
                .iter()
                .filter(|m| is_callable(&m.kind) && m.parent_id == Some(s.id))
                .map(|m| m.name.clone())
                .collect(),
        })
        .collect();
    Ok(FileStructure {
        language: l.entry.language.clone(),
        index_status: l.entry.status.clone(),
        lines: l.source.lines().count(),
        bytes: l.source.len(),
        digest: l.digest.clone(),
        functions,
        classes,
        imports: imports
            .into_iter()
            .map(|i| ImportInfo {
                specifier: i.specifier,
                line: i.line,
                status: i.status,
                resolved_path: i.target,
            })
            .collect(),
        imported_by,
    })
}

/// How a function is headed in markdown: its signature, or `name()`.
fn heading_of(f: &FunctionInfo) -> String {
    f.signature
        .clone()
        .unwrap_or_else(|| format!("{}()", f.name))
}

/// `caller` in `path` (line N) lines for a function, capped.
fn caller_lines(f: &FunctionInfo, with_lines: bool) -> Vec<String> {
    let mut out: Vec<String> = f
        .callers
        .iter()
        .take(MAX_CALLERS_MARKDOWN)
        .map(|c| {
            let at = match (with_lines, c.line) {
                (true, Some(l)) => format!(" (line {l})"),
                _ => String::new(),
            };
            format!("- {} in {}{at}", code(&c.caller), code(&c.path))
        })
        .collect();
    if f.callers_total > MAX_CALLERS_MARKDOWN {
        out.push(format!(
            "- ... and {} more",
            f.callers_total - MAX_CALLERS_MARKDOWN
        ));
    }
    out
}

/// The structural part of the prompt, in markdown.
pub fn structure_markdown(s: &FileStructure) -> String {
    let mut md = String::new();
    md.push_str(&format!(
        "- Language: {} · {} lines · index status: {}\n",
        s.language.as_deref().unwrap_or("not parsed"),
        s.lines,
        s.index_status
    ));
    md.push_str("\n### Imports\n");
    if s.imports.is_empty() {
        md.push_str("(none)\n");
    }
    for i in &s.imports {
        let to = match (&i.resolved_path, i.status.as_str()) {
            (Some(p), _) => code(p),
            (None, "external") => "an external package".into(),
            (None, status) => status.to_string(),
        };
        md.push_str(&format!(
            "- {} (line {}) → {to}\n",
            code(&i.specifier),
            i.line
        ));
    }
    md.push_str("\n### Imported by\n");
    if s.imported_by.is_empty() {
        md.push_str("(no file in the workspace)\n");
    }
    for p in &s.imported_by {
        md.push_str(&format!("- {}\n", code(p)));
    }
    if !s.classes.is_empty() {
        md.push_str("\n### Classes\n");
        for c in &s.classes {
            md.push_str(&format!(
                "- {} {} (lines {}–{})\n",
                c.kind,
                code(&c.qualified_name),
                c.start_line,
                c.end_line
            ));
            if !c.methods.is_empty() {
                let names: Vec<String> = c.methods.iter().map(|m| code(m)).collect();
                md.push_str(&format!("  - methods: {}\n", names.join(", ")));
            }
        }
    }
    md.push_str("\n### Functions\n");
    if s.functions.is_empty() {
        md.push_str("(none)\n");
    }
    for f in &s.functions {
        let of = f
            .class
            .as_deref()
            .map(|c| format!(", method of {}", code(c)))
            .unwrap_or_default();
        md.push_str(&format!(
            "- {} — {}{of}, lines {}–{}\n",
            code(&f.qualified_name),
            code(&heading_of(f)),
            f.start_line,
            f.end_line
        ));
        if f.callers_total == 0 {
            md.push_str("  - called by: no caller found in the index\n");
        } else {
            md.push_str("  - called by:\n");
            for line in caller_lines(f, true) {
                md.push_str(&format!("    {line}\n"));
            }
        }
    }
    md
}

/// The enrichment prompt (the published template, plus the source-cut note and the
/// existing doc when there is one).
fn prompt(
    rel: &str,
    s: &FileStructure,
    source: &str,
    max_source: usize,
    existing: Option<&ExistingDoc>,
) -> (String, bool) {
    let (kept, cut) = saved::cut_at_line(source, max_source.min(MAX_SOURCE_BYTES));
    let fence = saved::fence_for(kept);
    let lang = s.language.as_deref().unwrap_or("");
    let mut p = String::new();
    p.push_str("You are a Code Documentation Assistant.\n\n");
    p.push_str(&format!(
        "I have extracted the following structure for file: \"{rel}\"\n\n"
    ));
    p.push_str("## Structural Info:\n");
    p.push_str(&structure_markdown(s));
    p.push_str("\n## Source Code:\n");
    p.push_str(&format!("{fence}{lang}\n{kept}"));
    if !kept.ends_with('\n') && !kept.is_empty() {
        p.push('\n');
    }
    p.push_str(&format!("{fence}\n"));
    if let Some(lines) = cut {
        p.push_str(&format!(
            "\n(Source cut after line {lines} of {}: the prompt carries at most {} KiB of source, \
             and less when budget_tokens is small. Read the rest with `inspect_source` \
             {{\"path\": \"{rel}\", \"startLine\": {}, \"endLine\": {}}}.)\n",
            s.lines,
            MAX_SOURCE_BYTES / 1024,
            lines + 1,
            s.lines
        ));
    }
    if let Some(doc) = existing {
        if doc.stale {
            p.push_str(&format!(
                "\n## Existing Documentation (STALE: the file changed since it was saved at {}):\n\
                 Update it to match the source above.\n\n",
                doc.saved_at
            ));
        } else {
            p.push_str(&format!(
                "\n## Existing Documentation (up to date, saved at {}):\n\n",
                doc.saved_at
            ));
        }
        let f = saved::fence_for(&doc.markdown);
        p.push_str(&format!("{f}markdown\n{}\n{f}\n", doc.markdown.trim_end()));
    }
    p.push_str(
        "\n## Task:\n\
         1. Write a brief **Overview** of this file (2-3 sentences):\n   \
         - What is its purpose?\n   \
         - What are its main inputs/outputs?\n   \
         - What files depend on it or does it depend on?\n\n\
         2. For EACH function/method listed:\n   \
         - Write a **Purpose** (1 sentence describing what it does)\n   \
         - Write an **Implementation Summary** (3-5 bullet points, enough detail that someone could reimplement it)\n\n\
         3. Call `report_file_info` with your enriched documentation.\n",
    );
    p.push_str(&format!(
        "\n`report_file_info` arguments: {{\"path\": \"{rel}\", \"overview\": \"...\", \"inputs\": \"...\", \
         \"outputs\": \"...\", \"functions\": [{{\"name\": \"...\", \"purpose\": \"...\", \"implementation\": \"...\"}}]}}. \
         Each `name` must be a function, method or class listed above: its bare name, or its \
         qualified name (`Class::method`, also `Class.method`) when the bare name is ambiguous; \
         a class's entry becomes its Purpose.\n"
    ));
    (p, cut.is_some())
}

/// `file_info`: the structure of `path` from the index, the prompt, and the state of
/// any saved doc.
///
/// Errors: `outside_workspace`, `not_found` (see [`sandbox::resolve`]); `invalid_argument`
/// for a directory; `unsupported_file` for a file the index skips (binary, too large,
/// ignored); `index_failed`, `database_error`, `io_error`; `invalid_argument` for a
/// budget outside 500-[`MAX_BUDGET`]; `budget_too_small` when even the smallest
/// structure (the ladder's last step, without source) does not fit.
pub fn file_info(
    ws: &Workspace,
    path: &str,
    budget_tokens: Option<usize>,
) -> Result<FileInfoResponse, ToolError> {
    let budget = crate::tools::budget_tokens(budget_tokens, DEFAULT_BUDGET, 500)?;
    let l = load(ws, path)?;
    let full = structure(ws, &l)?;
    let existing = saved::existing(ws, "file", &l.path.rel, &l.digest)?;
    let answer = |s: &FileStructure, max_source: usize| {
        let (prompt, truncated) = prompt(&l.path.rel, s, &l.source, max_source, existing.as_ref());
        let mut r = FileInfoResponse {
            status: "prompt_ready".into(),
            path: l.path.rel.clone(),
            prompt_for_host_llm: prompt,
            callback_tool: "report_file_info".into(),
            structure: s.clone(),
            source_truncated: truncated,
            existing_doc: existing.clone(),
            note: None,
            tokens: 0,
        };
        r.tokens = answer_tokens(&r);
        r
    };
    // The ladder: the whole structure, then fewer callers listed, then none (the
    // totals stay), then the first functions and classes only; at each step the
    // source gets what is left of the budget.
    let mut smallest = usize::MAX;
    // Room kept for the note that says what was cut.
    let fit = budget - 150;
    for (step, s) in ladder(&full).into_iter().enumerate() {
        let mut max_source = MAX_SOURCE_BYTES.min(l.source.len());
        let mut r = answer(&s, max_source);
        let bare = answer(&s, 0);
        smallest = smallest.min(bare.tokens);
        // Less room than this for source: try a smaller structure first.
        if r.tokens > fit && bare.tokens + 300 > fit && step + 1 < LADDER_STEPS {
            continue;
        }
        if bare.tokens > fit {
            break;
        }
        // Code is 3-4 bytes per token: shrink toward the room left, a few times.
        for _ in 0..6 {
            if r.tokens <= fit {
                break;
            }
            let room = fit.saturating_sub(bare.tokens);
            let used = r.tokens.saturating_sub(bare.tokens).max(1);
            max_source = (max_source as u128 * room as u128 * 9 / 10 / used as u128) as usize;
            r = answer(&s, max_source);
        }
        if r.tokens > fit {
            r = bare;
        }
        let mut cut = Vec::new();
        if step > 0 {
            cut.push(ladder_note(step));
        }
        if r.source_truncated {
            cut.push(
                "the source in the prompt is cut at a line (the prompt says where; \
                 inspect_source reads the rest)"
                    .to_string(),
            );
        }
        if !cut.is_empty() {
            r.note = Some(format!(
                "to fit budget_tokens {budget}: {}; a larger budget_tokens (at most {MAX_BUDGET}) gives more",
                cut.join("; ")
            ));
            r.tokens = answer_tokens(&r);
        }
        return Ok(r);
    }
    Err(ToolError::BudgetTooSmall(format!(
        "the structure of {} alone needs about {smallest} tokens; give budget_tokens {} or more",
        l.path.rel,
        (smallest + 200).min(MAX_BUDGET)
    )))
}

/// The steps of the [`file_info`] ladder: callers listed per function, then functions,
/// classes, imports and importers listed (`usize::MAX`: all). The last step lists
/// none, so every file fits a budget of a few thousand tokens.
const LADDER: [(usize, usize); 6] = [
    (usize::MAX, usize::MAX),
    (5, usize::MAX),
    (0, usize::MAX),
    (0, 40),
    (0, 10),
    (0, 0),
];

/// Steps of the ladder.
const LADDER_STEPS: usize = LADDER.len();

/// What step `step` of the ladder leaves out.
fn ladder_note(step: usize) -> String {
    match LADDER[step] {
        (usize::MAX, _) => String::new(),
        (callers, usize::MAX) if callers > 0 => {
            format!("at most {callers} callers listed per function (callersTotal has the count)")
        }
        (_, usize::MAX) => "no callers listed (callersTotal has the count)".into(),
        (_, 0) => "no function, class, import or importer listed (search_symbols, \
                   get_node_details and query_index have them)"
            .into(),
        (_, n) => format!(
            "only the first {n} functions, classes, imports and importers listed (the rest \
             with search_symbols, get_node_details or query_index)"
        ),
    }
}

/// The structure at each step of the ladder.
fn ladder(full: &FileStructure) -> Vec<FileStructure> {
    LADDER
        .iter()
        .map(|&(callers, items)| {
            let mut s = full.clone();
            for f in &mut s.functions {
                f.callers.truncate(callers);
            }
            s.functions.truncate(items);
            s.classes.truncate(items);
            s.imports.truncate(items);
            s.imported_by.truncate(items);
            s
        })
        .collect()
}

/// Tokens of an answer as the JSON it is sent as.
fn answer_tokens(r: &FileInfoResponse) -> usize {
    crate::tools::symbol_summary::count_tokens(&serde_json::to_string(r).unwrap_or_default())
}

/// Normalizes a reported name for matching: trailing `()` dropped, `.` and `#`
/// read as `::`.
fn normalize_name(name: &str) -> String {
    name.trim().trim_end_matches("()").replace(['.', '#'], "::")
}

/// Which reported entry documents each symbol: a qualified-name match wins over a
/// bare-name match. Returns the entry index per symbol key, and the reported names
/// that match nothing.
fn match_reports(
    s: &FileStructure,
    reported: &[ReportedFunction],
) -> (HashMap<String, usize>, Vec<String>) {
    // (qualified name, bare name) of every documentable symbol.
    let targets: Vec<(&str, &str)> = s
        .functions
        .iter()
        .map(|f| (f.qualified_name.as_str(), f.name.as_str()))
        .chain(
            s.classes
                .iter()
                .map(|c| (c.qualified_name.as_str(), c.name.as_str())),
        )
        .collect();
    let mut by_qualified: HashMap<String, usize> = HashMap::new();
    let mut by_bare: HashMap<String, usize> = HashMap::new();
    let mut unknown = Vec::new();
    for (i, r) in reported.iter().enumerate() {
        let n = normalize_name(&r.name);
        let mut hit = false;
        for (q, b) in &targets {
            if n == *q && n.contains("::") {
                by_qualified.insert(q.to_string(), i);
                hit = true;
            } else if n == *b || n == *q {
                by_bare.insert(q.to_string(), i);
                hit = true;
            }
        }
        if !hit {
            unknown.push(r.name.clone());
        }
    }
    for (q, i) in by_qualified {
        by_bare.insert(q, i);
    }
    (by_bare, unknown)
}

/// Renders the enriched markdown format.
pub fn render_markdown(rel: &str, s: &FileStructure, args: &ReportFileInfoArgs) -> String {
    let (doc_of, _) = match_reports(s, &args.functions);
    let entry = |q: &str| doc_of.get(q).map(|&i| &args.functions[i]);
    let mut md = format!("# {rel}\n\n## Overview\n\n{}\n\n", args.overview.trim());
    if let Some(i) = args.inputs.as_deref().filter(|t| !t.trim().is_empty()) {
        md.push_str(&format!("**Inputs**: {}\n", i.trim()));
    }
    if let Some(o) = args.outputs.as_deref().filter(|t| !t.trim().is_empty()) {
        md.push_str(&format!("**Outputs**: {}\n", o.trim()));
    }
    md.push_str(&format!("**Connections**: {}\n", connections(rel, s)));
    md.push_str("\n---\n");

    // Functions get a **Purpose** line; methods, as in the published format's Classes section, a
    // plain line under their heading.
    let function_block = |f: &FunctionInfo, level: &str| -> String {
        let method = level == "#####";
        let mut b = format!("\n{level} {}\n\n", code(&heading_of(f)));
        match entry(&f.qualified_name) {
            Some(r) => {
                if method {
                    b.push_str(&format!("{}\n\n", r.purpose.trim()));
                } else {
                    b.push_str(&format!("**Purpose**: {}\n\n", r.purpose.trim()));
                }
                b.push_str(&format!(
                    "**Implementation Summary**:\n{}\n",
                    r.implementation.trim()
                ));
            }
            None if method => b.push_str("(not documented in the last report)\n"),
            None => b.push_str("**Purpose**: (not documented in the last report)\n"),
        }
        let callers = caller_lines(f, false);
        if !callers.is_empty() {
            b.push_str("\n**Called by:**\n");
            for c in callers {
                b.push_str(&c);
                b.push('\n');
            }
        }
        b
    };

    let free: Vec<&FunctionInfo> = s.functions.iter().filter(|f| f.class.is_none()).collect();
    if !free.is_empty() {
        md.push_str("\n## Functions\n");
        for f in free {
            md.push_str(&function_block(f, "###"));
            md.push_str("\n---\n");
        }
    }
    if !s.classes.is_empty() {
        md.push_str("\n## Classes\n");
        for c in &s.classes {
            md.push_str(&format!("\n### {}\n\n", code(&c.qualified_name)));
            match entry(&c.qualified_name) {
                Some(r) => {
                    md.push_str(&format!("**Purpose**: {}\n", r.purpose.trim()));
                    if !r.implementation.trim().is_empty() {
                        md.push_str(&format!(
                            "\n**Implementation Summary**:\n{}\n",
                            r.implementation.trim()
                        ));
                    }
                }
                None => md.push_str(&format!(
                    "**Purpose**: (not documented in the last report; {})\n",
                    c.kind
                )),
            }
            let methods: Vec<&FunctionInfo> = s
                .functions
                .iter()
                .filter(|f| f.class.as_deref() == Some(c.qualified_name.as_str()))
                .collect();
            if !methods.is_empty() {
                md.push_str("\n#### Methods\n");
                for m in methods {
                    md.push_str(&function_block(m, "#####"));
                }
            }
            md.push_str("\n---\n");
        }
    }
    md
}

/// The Connections line: callers from other files, importers, imports, from the index.
fn connections(rel: &str, s: &FileStructure) -> String {
    let mut called_by: Vec<String> = Vec::new();
    for f in &s.functions {
        for c in &f.callers {
            if c.path != rel {
                let item = code(&format!("{}::{}", c.path, c.caller));
                if !called_by.contains(&item) {
                    called_by.push(item);
                }
            }
        }
    }
    let importers: Vec<String> = s.imported_by.iter().map(|p| code(p)).collect();
    let mut imports: Vec<String> = Vec::new();
    for i in &s.imports {
        if let Some(p) = &i.resolved_path {
            let item = code(p);
            if !imports.contains(&item) {
                imports.push(item);
            }
        }
    }
    let mut parts = Vec::new();
    if !called_by.is_empty() {
        parts.push(format!("Called by {}", saved::join_capped(&called_by, 10)));
    }
    if !importers.is_empty() {
        parts.push(format!(
            "imported by {}",
            saved::join_capped(&importers, 10)
        ));
    }
    if !imports.is_empty() {
        parts.push(format!("imports {}", saved::join_capped(&imports, 10)));
    }
    if parts.is_empty() {
        "none found in the index".into()
    } else {
        parts.join("; ")
    }
}

/// `report_file_info`: validates the report against the file's structure, renders
/// the markdown, writes it to `.artifacts/src/<dir>/<file_name>.md` atomically and
/// stores it in `file_docs` with the file's digest now.
///
/// The answer is cut to `budget_tokens` by [`saved::fit_saved`] (the saved document
/// never is).
///
/// Errors: those of [`file_info`]; `invalid_argument` for a `budget_tokens` outside
/// 300-[`MAX_BUDGET`], an empty overview or purpose, or names that match no function, method or class of the file (all of them
/// are listed, with the names that would match; nothing is written).
pub fn report_file_info(ws: &Workspace, args: &ReportFileInfoArgs) -> Result<SavedDoc, ToolError> {
    let budget = crate::tools::budget_tokens(
        args.budget_tokens,
        saved::REPORT_BUDGET,
        saved::REPORT_MIN_BUDGET,
    )?;
    if args.overview.trim().is_empty() {
        return Err(ToolError::InvalidArgument("overview is empty".into()));
    }
    if let Some(f) = args
        .functions
        .iter()
        .find(|f| f.name.trim().is_empty() || f.purpose.trim().is_empty())
    {
        return Err(ToolError::InvalidArgument(format!(
            "functions: every function needs a name and a purpose (entry {:?} has an empty one)",
            f.name
        )));
    }
    let l = load(ws, &args.path)?;
    let s = structure(ws, &l)?;
    let (doc_of, unknown) = match_reports(&s, &args.functions);
    if !unknown.is_empty() {
        let known: Vec<String> = s
            .functions
            .iter()
            .map(|f| f.qualified_name.clone())
            .chain(s.classes.iter().map(|c| c.qualified_name.clone()))
            .collect();
        return Err(ToolError::InvalidArgument(format!(
            "functions: {} is not a function, method or class of {} (unknown: {}); names in the file: {}. \
             Nothing was saved: fix the names and call report_file_info again",
            if unknown.len() == 1 {
                "a reported name"
            } else {
                "reported names"
            },
            l.path.rel,
            unknown.join(", "),
            saved::join_capped(&known, 60)
        )));
    }
    let undocumented: Vec<String> = s
        .functions
        .iter()
        .map(|f| f.qualified_name.clone())
        .chain(s.classes.iter().map(|c| c.qualified_name.clone()))
        .filter(|q| !doc_of.contains_key(q))
        .collect();
    let markdown = render_markdown(&l.path.rel, &s, args);
    let report = serde_json::to_value(args).map_err(|e| ToolError::Internal(e.to_string()))?;
    let doc = saved::save(
        ws,
        "file",
        &l.path.rel,
        saved::file_doc_location(&l.path.rel),
        &l.digest,
        markdown,
        &report,
        undocumented,
    )?;
    Ok(saved::fit_saved(doc, budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, q: &str, class: Option<&str>) -> FunctionInfo {
        FunctionInfo {
            name: name.into(),
            qualified_name: q.into(),
            kind: if class.is_some() {
                "method"
            } else {
                "function"
            }
            .into(),
            signature: None,
            start_line: 1,
            end_line: 2,
            class: class.map(Into::into),
            callers: vec![],
            callers_total: 0,
            callers_below_min_confidence: 0,
        }
    }

    fn rep(name: &str) -> ReportedFunction {
        ReportedFunction {
            name: name.into(),
            purpose: "p".into(),
            implementation: "i".into(),
        }
    }

    #[test]
    fn names_match_bare_qualified_and_dotted() {
        let s = FileStructure {
            language: None,
            index_status: "parsed".into(),
            lines: 0,
            bytes: 0,
            digest: String::new(),
            functions: vec![
                f("load", "A::load", Some("A")),
                f("load", "B::load", Some("B")),
                f("main", "main", None),
            ],
            classes: vec![],
            imports: vec![],
            imported_by: vec![],
        };
        let (m, unknown) = match_reports(
            &s,
            &[rep("load"), rep("B.load"), rep("main()"), rep("nope")],
        );
        assert_eq!(unknown, vec!["nope".to_string()]);
        assert_eq!(m.get("A::load"), Some(&0));
        assert_eq!(m.get("B::load"), Some(&1), "the qualified entry wins");
        assert_eq!(m.get("main"), Some(&2));
    }
}
