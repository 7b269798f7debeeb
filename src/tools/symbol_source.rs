//! `get_symbol_source`: the source of one symbol, read from the file on disk, with the
//! digest checked against the index so a file changed since indexing is said to be
//! so, never shown as if it still held the symbol. Optionally its callers and callees.

use rusqlite::Connection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::store::symbol_search::{self as rows, CallLink, InDegrees, ShownSymbol};

use super::search::{self, SearchArgs};
use super::symbol_names::{names_node, parse_name};
use super::symbol_summary::count_tokens;
use super::workspace::Workspace;
use super::ToolError;

/// Default `budget_tokens`.
pub const DEFAULT_BUDGET: usize = 3000;
/// Most callers and most callees listed.
pub const LINKS_CAP: usize = 20;

/// Arguments of `get_symbol_source`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceArgs {
    /// Node id, qualified name, `path::Name`, name or `path:line`.
    pub symbol: String,
    /// `callers`, `callees`.
    pub include: Option<Vec<String>>,
    /// Weaker edges are `possible` (default 0.97).
    pub min_confidence: Option<f64>,
    /// Default 3000.
    pub budget_tokens: Option<usize>,
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// A caller or callee.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Link {
    pub node_id: i64,
    pub key: String,
    pub kind: String,
    pub qualified_name: String,
    pub signature: Option<String>,
    /// `path:line` of the other symbol's definition.
    pub location: String,
    /// Line of the call, in the caller's file.
    pub call_line: Option<u32>,
    pub confidence: f64,
    /// The rule that resolved the call (`scope`, `import`, `self`, `scip`, ...).
    pub provenance: Option<String>,
    /// `trusted` (confidence ≥ min_confidence) or `possible`.
    pub status: String,
}

/// The answer of `get_symbol_source`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SymbolSource {
    pub node_id: i64,
    pub key: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub path: String,
    pub language: Option<String>,
    pub signature: Option<String>,
    /// The first line of the symbol's docstring or doc comment, when it has one.
    pub docstring: Option<String>,
    /// The symbol's lines as indexed (1-based, inclusive).
    pub start_line: u32,
    pub end_line: u32,
    /// The lines shown (`shown_end` < `end_line` when cut); 0 and 0 when none are.
    pub shown_start: u32,
    pub shown_end: u32,
    /// The lines, each `NUMBER | text`.
    pub source: String,
    /// True when the file on disk is not what was indexed (changed or deleted): the
    /// lines may no longer be the symbol's.
    pub file_changed: bool,
    /// True when lines (or callers/callees) were cut to fit `budget_tokens`.
    pub truncated: bool,
    /// What is wrong or cut, and how to get the rest.
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callers: Option<Vec<Link>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callees: Option<Vec<Link>>,
    /// Call edges into / out of the symbol in all (listed or not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callers_total: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callees_total: Option<usize>,
    /// Tokens of this answer (cl100k_base), approximately.
    pub tokens: usize,
}

/// `get_symbol_source` on a workspace.
///
/// Errors: `not_found` (with suggestions) when nothing matches; `invalid_argument` for
/// an ambiguous name (listing the candidates), a bad `include` or `min_confidence`;
/// `budget_too_small`; `database_error`.
pub fn get_symbol_source(ws: &Workspace, args: &SourceArgs) -> Result<SymbolSource, ToolError> {
    // In-degrees before the connection: never hold one pooled connection while taking
    // another (see `search_symbols`).
    let degrees = ws.in_degrees()?;
    let conn = ws.store().conn()?;
    symbol_source(&conn, &degrees, ws.root(), args)
}

/// [`get_symbol_source`] on a connection (`degrees`: in-degrees for the suggestions,
/// read as needed).
pub fn symbol_source(
    conn: &Connection,
    degrees: &InDegrees,
    root: &std::path::Path,
    args: &SourceArgs,
) -> Result<SymbolSource, ToolError> {
    let min = super::min_confidence(args.min_confidence)?;
    let budget = args.budget_tokens.unwrap_or(DEFAULT_BUDGET);
    let include = args.include.clone().unwrap_or_default();
    for i in &include {
        if i != "callers" && i != "callees" {
            return Err(ToolError::InvalidArgument(format!(
                "include {i:?} is not known; use \"callers\" and/or \"callees\""
            )));
        }
    }
    let row = resolve_symbol(conn, degrees, &args.symbol)?;

    // The file as it is now, against the digest it was indexed with.
    // Read beneath the root through no symbolic link; a stored path always decodes.
    let read = crate::walk::read_stored(root, &row.path, crate::walk::MAX_TOOL_READ);
    let (text, file_changed, mut notes) = match read {
        Ok(bytes) => {
            let digest = blake3::hash(&bytes).to_hex().to_string();
            let changed = row.digest.as_deref() != Some(digest.as_str());
            let notes = if changed {
                vec![format!(
                    "{} changed since it was indexed: the lines shown are the file's lines {}-{} now, which may no longer hold this symbol; re-index (constellation index, or any graph tool) and ask again",
                    row.path, row.start_line, row.end_line
                )]
            } else {
                Vec::new()
            };
            (Some(String::from_utf8_lossy(&bytes).into_owned()), changed, notes)
        }
        Err(e) => (
            None,
            true,
            vec![format!(
                "{} cannot be read now ({e}); it changed or was deleted since it was indexed: re-index and ask again",
                row.path
            )],
        ),
    };
    let lines: Vec<&str> = text
        .as_deref()
        .map(|t| t.lines().collect())
        .unwrap_or_default();
    let docstring = docstring(&lines, &row);

    let links = |incoming: bool| -> Result<(Vec<Link>, usize), ToolError> {
        let (v, total) = rows::call_links(conn, row.id, incoming, LINKS_CAP)?;
        Ok((v.into_iter().map(|l| link(l, min)).collect(), total))
    };
    let (mut callers, mut callers_total, mut callees, mut callees_total) = (None, None, None, None);
    if include.iter().any(|i| i == "callers") {
        let (v, t) = links(true)?;
        callers = Some(v);
        callers_total = Some(t);
    }
    if include.iter().any(|i| i == "callees") {
        let (v, t) = links(false)?;
        callees = Some(v);
        callees_total = Some(t);
    }

    let first = row.start_line.max(1) as usize;
    let last = (row.end_line as usize).min(lines.len());
    let mut answer = SymbolSource {
        node_id: row.id,
        key: row.key.clone(),
        kind: row.kind.clone(),
        name: row.name.clone(),
        qualified_name: row.qualified_name.clone(),
        path: row.path.clone(),
        language: row.language.clone(),
        signature: row.signature.clone(),
        docstring,
        start_line: row.start_line,
        end_line: row.end_line,
        shown_start: 0,
        shown_end: 0,
        source: String::new(),
        file_changed,
        truncated: false,
        note: None,
        callers,
        callees,
        callers_total,
        callees_total,
        tokens: 0,
    };
    let link_cut = [&answer.callers, &answer.callees]
        .iter()
        .zip([answer.callers_total, answer.callees_total])
        .any(|(l, t)| l.as_ref().is_some_and(|l| l.len() < t.unwrap_or(0)));
    if link_cut {
        notes.push(format!(
            "callers/callees are cut at {LINKS_CAP} each (most confident first); get_node_details lists them all"
        ));
    }
    answer.truncated = link_cut;
    let cut_note = |shown_end: usize| {
        format!(
            "source cut to fit budget_tokens {budget}: lines {first}-{} of {}-{} shown; the rest with inspect_source path {} startLine {} endLine {}, or raise budget_tokens",
            shown_end.max(first.saturating_sub(1)),
            row.start_line,
            row.end_line,
            row.path,
            shown_end.max(first.saturating_sub(1)) + 1,
            row.end_line
        )
    };
    // Counted as if the lines were cut, so the note saying so always fits.
    answer.note = Some(
        notes
            .iter()
            .cloned()
            .chain([cut_note(last)])
            .collect::<Vec<_>>()
            .join("; "),
    );
    // What the answer costs without its lines (callers and callees halved until it
    // fits), then as many lines as fit.
    let mut base = count_tokens(&to_text(&answer)?) + 16;
    while base > budget {
        let shed = |l: &mut Option<Vec<Link>>| match l {
            Some(v) if !v.is_empty() => {
                v.truncate(v.len() / 2);
                true
            }
            _ => false,
        };
        if !(shed(&mut answer.callers) || shed(&mut answer.callees)) {
            return Err(ToolError::BudgetTooSmall(format!(
                "the answer without source lines takes {base} tokens (cl100k_base); raise budget_tokens to at least {}",
                base + 50
            )));
        }
        answer.truncated = true;
        base = count_tokens(&to_text(&answer)?) + 16;
    }
    let width = last.max(1).to_string().len();
    let mut used = base;
    let mut source = String::new();
    let mut shown_end = 0usize;
    if first <= last {
        for (i, line) in lines.iter().enumerate().take(last).skip(first - 1) {
            let numbered = format!("{:>width$} | {}\n", i + 1, line);
            // Counted as sent: inside a JSON string, where quotes, backslashes and
            // control characters are escaped (a line of quotes costs more tokens).
            let cost = count_tokens(&serde_json::to_string(&numbered).unwrap_or_default());
            if used + cost > budget {
                break;
            }
            used += cost;
            source.push_str(&numbered);
            shown_end = i + 1;
        }
    }
    if shown_end > 0 {
        answer.shown_start = first as u32;
        answer.shown_end = shown_end as u32;
    }
    answer.source = source;
    if first <= last && shown_end < last {
        answer.truncated = true;
        notes.push(cut_note(shown_end));
    }
    answer.note = (!notes.is_empty()).then(|| notes.join("; "));
    answer.tokens = count_tokens(&to_text(&answer)?) + 8;
    Ok(answer)
}

fn to_text(a: &SymbolSource) -> Result<String, ToolError> {
    serde_json::to_string(a).map_err(|e| ToolError::Internal(e.to_string()))
}

fn link(l: CallLink, min: f64) -> Link {
    Link {
        node_id: l.other.id,
        location: format!("{}:{}", l.other.path, l.other.start_line),
        key: l.other.key,
        kind: l.other.kind,
        qualified_name: l.other.qualified_name,
        signature: l.other.signature,
        call_line: l.line,
        confidence: (l.confidence * 1000.0).round() / 1000.0,
        provenance: l.provenance,
        status: if l.confidence >= min {
            "trusted"
        } else {
            "possible"
        }
        .into(),
    }
}

/// The first line of the symbol's docstring: a Python string literal opening its body,
/// else the doc comment right above its first line (`///`, `//!`, `/** */`, `//`, `#`).
fn docstring(lines: &[&str], row: &ShownSymbol) -> Option<String> {
    let start = row.start_line as usize;
    if start == 0 || start > lines.len() || row.kind == "file" {
        return None;
    }
    if row.language.as_deref() == Some("python") {
        // The body's first statement, after the (possibly multi-line) signature.
        let end = (row.end_line as usize).min(lines.len());
        let mut i = start - 1;
        while i < end && !lines[i].trim_end().ends_with(':') {
            i += 1;
        }
        let body = lines
            .get(i + 1..end)?
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())?;
        for q in ["\"\"\"", "'''", "r\"\"\"", "\"", "'"] {
            if let Some(rest) = body.strip_prefix(q) {
                let quote = q.trim_start_matches('r');
                let text = rest.split(quote).next().unwrap_or(rest).trim();
                let text = if text.is_empty() {
                    lines
                        .get(i + 2..end)?
                        .iter()
                        .map(|l| l.trim())
                        .find(|l| !l.is_empty())?
                } else {
                    text
                };
                return Some(text.trim_end_matches(quote).trim().to_string());
            }
        }
        return None;
    }
    // Comment lines right above the symbol (attributes and decorators skipped).
    let mut i = start - 1;
    let mut block: Vec<&str> = Vec::new();
    while i > 0 {
        let l = lines[i - 1].trim();
        if l.starts_with("#[") || l.starts_with('@') {
            i -= 1;
            continue;
        }
        if l.starts_with("//") || l.starts_with("/*") || l.starts_with('*') || l.starts_with('#') {
            block.push(l);
            i -= 1;
            continue;
        }
        break;
    }
    block.reverse();
    block
        .into_iter()
        .map(|l| {
            l.trim_start_matches('/')
                .trim_start_matches('!')
                .trim_start_matches('*')
                .trim_start_matches('#')
                .trim_end_matches("*/")
                .trim()
        })
        .find(|l| !l.is_empty())
        .map(String::from)
}

/// Finds the one node `text` names (see [`SourceArgs::symbol`]).
///
/// Errors: `not_found` with suggestions; `invalid_argument` listing the candidates of an
/// ambiguous name.
pub fn resolve_symbol(
    conn: &Connection,
    degrees: &InDegrees,
    text: &str,
) -> Result<ShownSymbol, ToolError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ToolError::InvalidArgument(
            "symbol is empty; give a node id, a node key, a qualified name or path:line".into(),
        ));
    }
    if let Ok(id) = text.parse::<i64>() {
        return rows::symbol_by_id(conn, id)?
            .ok_or_else(|| ToolError::NotFound(format!("no node has id {id} (ids change when files are re-indexed; search_symbols finds the current one)")));
    }
    if let Some(r) = rows::symbol_by_key(conn, text)? {
        return Ok(r);
    }
    // path:line
    if let Some((path, line)) = text.rsplit_once(':') {
        if let (Ok(line), false) = (line.parse::<u32>(), path.ends_with(':')) {
            let paths = rows::paths_ending_with(conn, path)?;
            let path = match paths.as_slice() {
                [] => {
                    return Err(ToolError::NotFound(format!(
                        "no indexed file is {path:?} or ends with it"
                    )))
                }
                [one] => one.clone(),
                many if many.iter().any(|p| p == path) => path.to_string(),
                many => return Err(ambiguous_paths(text, many)),
            };
            return rows::innermost_at(conn, &path, line)?.ok_or_else(|| {
                ToolError::NotFound(format!("{path} has no line {line} in the index"))
            });
        }
    }
    let q = parse_name(text);
    let candidates: Vec<ShownSymbol> = match (&q.path, q.segments.last()) {
        (Some(p), None) => {
            let mut v = Vec::new();
            for path in rows::paths_ending_with(conn, p)? {
                v.extend(rows::file_node(conn, &path)?);
            }
            v
        }
        (_, Some(name)) => {
            let exact: Vec<ShownSymbol> = rows::symbols_named(conn, name)?
                .into_iter()
                .filter(|r| names_node(&q, &r.path, &r.qualified_name, &r.kind, false))
                .collect();
            if exact.is_empty() {
                // The same name in another case.
                let search = search::search(
                    conn,
                    degrees,
                    &SearchArgs {
                        query: text.to_string(),
                        limit: Some(search::MAX_LIMIT),
                        budget_tokens: Some(usize::MAX / 4),
                        ..SearchArgs::default()
                    },
                );
                let mut v = Vec::new();
                if let Ok(s) = search {
                    for h in s.hits.iter().filter(|h| h.match_kind == "exact") {
                        if names_node(&q, &h.path, &h.qualified_name, &h.kind, true) {
                            v.extend(rows::symbol_by_id(conn, h.node_id)?);
                        }
                    }
                }
                v
            } else {
                exact
            }
        }
        (None, None) => Vec::new(),
    };
    let n = candidates.len();
    let mut it = candidates.iter();
    match (it.next(), it.next()) {
        (Some(one), None) => Ok(one.clone()),
        (None, _) => Err(not_found(conn, degrees, text)),
        _ => Err(ToolError::InvalidArgument(format!(
            "symbol {text:?} names {n} symbols; did you mean {}{}? Pass a node key or id, or qualify the name (Class::method, path::name)",
            candidates
                .iter()
                .take(10)
                .map(|r| format!("{} ({}:{})", r.key, r.path, r.start_line))
                .collect::<Vec<_>>()
                .join(", "),
            if n > 10 { format!(" and {} more", n - 10) } else { String::new() }
        ))),
    }
}

fn ambiguous_paths(text: &str, paths: &[String]) -> ToolError {
    ToolError::InvalidArgument(format!(
        "symbol {text:?}: {} indexed files end with that path ({}); give more of the path",
        paths.len(),
        paths
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// `not_found` for `text`, suggesting what a search for it finds.
fn not_found(conn: &Connection, degrees: &InDegrees, text: &str) -> ToolError {
    let query = parse_name(text)
        .segments
        .last()
        .cloned()
        .unwrap_or_else(|| text.to_string());
    let suggestions: Vec<String> = search::search(
        conn,
        degrees,
        &SearchArgs {
            query,
            limit: Some(5),
            ..SearchArgs::default()
        },
    )
    .map(|s| s.hits.into_iter().map(|h| h.key).collect())
    .unwrap_or_default();
    if suggestions.is_empty() {
        ToolError::NotFound(format!(
            "no symbol is named {text:?}; search_symbols finds symbols by words of their names"
        ))
    } else {
        ToolError::NotFound(format!(
            "no symbol is named {text:?}; did you mean {}?",
            suggestions.join(", ")
        ))
    }
}
