//! `constellation_get_graph_summary`: the file-level dependency graph
//! digested into metrics, hubs, cycles and orphans, after making sure the index
//! matches the disk.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::graph::FileGraph;
use crate::index::Progress;
use crate::lang::Language;

use super::test_files::is_test_file;
use super::workspace::Workspace;
use super::ToolError;

/// Hubs listed in `insights.topHubs`.
pub const TOP_HUBS: usize = 10;
/// Orphans listed in `insights.orphanFiles` (the summary text gives the total).
pub const MAX_ORPHANS: usize = 200;

/// The response, field for field (`ISummaryResponse`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SummaryResponse {
    /// A few sentences for people and agents.
    pub summary: String,
    pub metrics: Metrics,
    pub insights: Insights,
    pub metadata: Metadata,
    /// What [`fit`] cut from the insights' lists to fit `budget_tokens`; absent when
    /// nothing was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Default `budget_tokens` of the MCP tool (the CLI prints the whole answer).
pub const DEFAULT_BUDGET: usize = 4_000;
/// The smallest `budget_tokens` it accepts: the summary, metrics and hubs.
pub const MIN_BUDGET: usize = 1_000;

/// `r` cut to at most `budget` tokens (cl100k_base, of its JSON): the lists of
/// `loadedByName`, then `orphanFiles`, then `circularDependencies` are halved in turn
/// (down to none) until it fits; the summary text keeps the totals and `note` says how
/// many of each are listed. The hubs are never cut.
pub fn fit(r: SummaryResponse, budget: usize) -> SummaryResponse {
    let tokens = |r: &SummaryResponse| {
        super::symbol_summary::count_tokens(&serde_json::to_string(r).unwrap_or_default())
    };
    if tokens(&r) <= budget {
        return r;
    }
    let totals = (
        r.insights.loaded_by_name.len(),
        r.insights.orphan_files.len(),
        r.insights.circular_dependencies.len(),
    );
    let mut keep = totals;
    loop {
        if keep.0 > 0 {
            keep.0 /= 2;
        } else if keep.1 > 0 {
            keep.1 /= 2;
        } else if keep.2 > 0 {
            keep.2 /= 2;
        }
        let mut cut = r.clone();
        cut.insights.loaded_by_name.truncate(keep.0);
        cut.insights.orphan_files.truncate(keep.1);
        cut.insights.circular_dependencies.truncate(keep.2);
        cut.note = Some(format!(
            "cut to fit budget_tokens {budget}: listed {} of {} loadedByName, {} of {} \
             orphanFiles, {} of {} circularDependencies (the summary gives the totals); a \
             larger budget_tokens (at most {}) lists more, and query_index reads every file",
            keep.0,
            totals.0,
            keep.1,
            totals.1,
            keep.2,
            totals.2,
            super::MAX_BUDGET
        ));
        if tokens(&cut) <= budget || keep == (0, 0, 0) {
            return cut;
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    /// Files in the dependency graph: code files, assets, and anything imported.
    pub file_count: usize,
    /// Distinct (importer, imported) file pairs.
    pub dependency_count: usize,
    /// Files per extension, without the dot.
    pub file_type_breakdown: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Insights {
    /// Most connected files (in-degree + out-degree), at most 10.
    pub top_hubs: Vec<Hub>,
    /// One closed cycle `[a, b, a]` per strongly connected component of files, at most 50.
    pub circular_dependencies: Vec<Vec<String>>,
    /// Files with no import in or out, in path order, at most 200, except those in
    /// `loadedByName`.
    pub orphan_files: Vec<String>,
    /// Code files with no import in or out that a runner or framework most likely loads
    /// by their name or place (as [`loaded_by_name`]), in path order, at most 200.
    pub loaded_by_name: Vec<String>,
}

/// How many directories must hold an orphan code file of the same name for that name
/// to count as a convention (`locale/*/formats.py`, `plugins/*/plugin.py`).
pub const REPEATED_NAME_DIRS: usize = 3;

/// Whether the orphan file `path` is most likely loaded by name or place rather than
/// imported: a test file by its language's convention (a runner collects it); an
/// entry point or tool configuration (`__main__.py`, `setup.py`, `manage.py`,
/// `build.rs`, `*.config.js` and the like); a Python migration (under `migrations/`);
/// or a code file whose name `repeated` counts in at least [`REPEATED_NAME_DIRS`]
/// directories among the orphans. Only code files qualify.
pub fn loaded_by_name(path: &str, repeated: &HashMap<&str, usize>) -> bool {
    let Some(lang) = Language::from_path(path) else {
        return false;
    };
    let name = path.rsplit('/').next().unwrap_or(path);
    let config = {
        let parts: Vec<&str> = name.split('.').collect();
        parts.len() > 2 && parts[parts.len() - 2] == "config"
    };
    is_test_file(path)
        || config
        || matches!(
            name,
            "__main__.py" | "setup.py" | "manage.py" | "build.rs" | "gulpfile.js" | "Gruntfile.js"
        )
        || (lang == Language::Python && path.contains("migrations/"))
        || repeated.get(name).copied().unwrap_or(0) >= REPEATED_NAME_DIRS
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Hub {
    /// Root-relative path.
    pub id: String,
    pub connection_count: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    /// Milliseconds spent checking (and if needed updating) the index and summarizing.
    pub scan_duration_ms: u64,
    /// True when the index already matched the disk and nothing was re-parsed.
    pub cache_used: bool,
}

/// Runs the tool: refreshes the index (from scratch when `force_refresh`), then
/// summarizes the file graph of the resulting generation.
pub fn get_graph_summary(
    ws: &Workspace,
    force_refresh: bool,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<SummaryResponse, ToolError> {
    let started = Instant::now();
    // A failed run with an index to answer from: the answer is that index, stamped stale.
    let report = ws.refresh_or_stale(force_refresh, progress)?;
    let graph = ws.file_graph()?;
    let cache_used = report.is_none_or(|r| !force_refresh && !r.changed);
    Ok(summarize(
        &graph,
        started.elapsed().as_millis() as u64,
        cache_used,
    ))
}

/// The response for a loaded graph (pure: no I/O).
pub fn summarize(g: &FileGraph, scan_duration_ms: u64, cache_used: bool) -> SummaryResponse {
    let hubs: Vec<Hub> = g
        .hubs(TOP_HUBS)
        .into_iter()
        .map(|(ix, d)| Hub {
            id: g.path(ix).to_string(),
            connection_count: d,
        })
        .collect();
    let cycles = g.cycles();
    let circular: Vec<Vec<String>> = cycles
        .cycles
        .iter()
        .map(|c| c.iter().map(|&ix| g.path(ix).to_string()).collect())
        .collect();
    let orphans: Vec<&str> = g.orphans().into_iter().map(|ix| g.path(ix)).collect();
    let mut repeated: HashMap<&str, usize> = HashMap::new();
    for p in &orphans {
        if Language::from_path(p).is_some() {
            *repeated
                .entry(p.rsplit('/').next().unwrap_or(p))
                .or_insert(0) += 1;
        }
    }
    let (by_name, orphans): (Vec<&str>, Vec<&str>) = orphans
        .into_iter()
        .partition(|p| loaded_by_name(p, &repeated));
    let orphan_total = orphans.len();
    let by_name_total = by_name.len();
    let orphan_files: Vec<String> = orphans
        .into_iter()
        .take(MAX_ORPHANS)
        .map(str::to_string)
        .collect();
    let loaded_by_name: Vec<String> = by_name
        .into_iter()
        .take(MAX_ORPHANS)
        .map(str::to_string)
        .collect();
    let files = g.graph.node_count();
    let deps = g.graph.edge_count();

    let mut text = format!(
        "Analyzed {files} files and {deps} import dependencies in {:.1}s{}.",
        scan_duration_ms as f64 / 1000.0,
        if cache_used {
            " (index up to date)"
        } else {
            ""
        }
    );
    if files > 0 {
        let avg = 2.0 * deps as f64 / files as f64;
        let shape = match avg {
            a if a < 1.5 => "loosely coupled",
            a if a < 4.0 => "moderately coupled",
            _ => "tightly coupled",
        };
        text.push_str(&format!(
            " The project appears {shape} ({avg:.1} connections per file on average)."
        ));
    }
    if let Some(top) = hubs.first() {
        text.push_str(&format!(
            " '{}' is the central hub with {} connections.",
            top.id, top.connection_count
        ));
    }
    match cycles.components {
        0 => text.push_str(" No circular dependencies were found."),
        n => text.push_str(&format!(
            " {n} group{} of files import each other in a cycle ({} files in all){}, which may indicate a structural issue.",
            if n == 1 { "" } else { "s" },
            cycles.nodes_on_cycles,
            if cycles.truncated { "; not every cycle is listed" } else { "" }
        )),
    }
    if orphan_total > 0 {
        text.push_str(&format!(
            " {orphan_total} file{} no import in or out{}.",
            if orphan_total == 1 { " has" } else { "s have" },
            if orphan_total > MAX_ORPHANS {
                format!(" (the first {MAX_ORPHANS} are listed)")
            } else {
                String::new()
            }
        ));
    }
    if by_name_total > 0 {
        text.push_str(&format!(
            " {by_name_total} more code file{} none either but {} most likely loaded by name \
             (tests, entry points, migrations, a name repeated in {REPEATED_NAME_DIRS}+ directories){}.",
            if by_name_total == 1 { " has" } else { "s have" },
            if by_name_total == 1 { "is" } else { "are" },
            if by_name_total > MAX_ORPHANS {
                format!("; the first {MAX_ORPHANS} are listed")
            } else {
                String::new()
            }
        ));
    }
    SummaryResponse {
        summary: text,
        metrics: Metrics {
            file_count: files,
            dependency_count: deps,
            file_type_breakdown: g.type_breakdown(),
        },
        insights: Insights {
            top_hubs: hubs,
            circular_dependencies: circular,
            orphan_files,
            loaded_by_name,
        },
        metadata: Metadata {
            scan_duration_ms,
            cache_used,
        },
        note: None,
    }
}

/// The response as text for people (the CLI's default output).
pub fn render_text(r: &SummaryResponse) -> String {
    let mut out = String::new();
    out.push_str(&r.summary);
    out.push_str("\n\nFile types:");
    let mut types: Vec<(&String, &usize)> = r.metrics.file_type_breakdown.iter().collect();
    types.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (ext, n) in types {
        let ext = if ext.is_empty() {
            "(none)"
        } else {
            ext.as_str()
        };
        out.push_str(&format!(" {ext} {n},"));
    }
    out.pop();
    out.push_str("\n\nTop hubs (imports in + out):\n");
    for h in &r.insights.top_hubs {
        out.push_str(&format!("  {:>5}  {}\n", h.connection_count, h.id));
    }
    out.push_str(&format!(
        "\nCircular dependencies ({}):\n",
        r.insights.circular_dependencies.len()
    ));
    for c in &r.insights.circular_dependencies {
        out.push_str(&format!("  {}\n", c.join(" -> ")));
    }
    out.push_str(&format!(
        "\nOrphan files ({} listed):\n",
        r.insights.orphan_files.len()
    ));
    for o in r.insights.orphan_files.iter().take(30) {
        out.push_str(&format!("  {o}\n"));
    }
    if r.insights.orphan_files.len() > 30 {
        out.push_str(&format!(
            "  ... and {} more (see --json)\n",
            r.insights.orphan_files.len() - 30
        ));
    }
    if !r.insights.loaded_by_name.is_empty() {
        out.push_str(&format!(
            "\nNo imports, loaded by name ({} listed): {}\n",
            r.insights.loaded_by_name.len(),
            r.insights
                .loaded_by_name
                .iter()
                .take(10)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_halves_the_long_lists_and_says_so() {
        let paths = |prefix: &str| -> Vec<String> {
            (0..200)
                .map(|i| format!("{prefix}/some/deep/package/module_number_{i}.py"))
                .collect()
        };
        let r = SummaryResponse {
            summary: "s".into(),
            metrics: Metrics {
                file_count: 400,
                dependency_count: 0,
                file_type_breakdown: BTreeMap::new(),
            },
            insights: Insights {
                top_hubs: vec![],
                circular_dependencies: vec![vec!["a.py".into(), "b.py".into(), "a.py".into()]],
                orphan_files: paths("orphans"),
                loaded_by_name: paths("tests"),
            },
            metadata: Metadata {
                scan_duration_ms: 1,
                cache_used: true,
            },
            note: None,
        };
        let small = fit(r.clone(), 2000);
        let json = serde_json::to_string(&small).unwrap();
        assert!(super::super::symbol_summary::count_tokens(&json) <= 2000);
        assert!(small.insights.loaded_by_name.is_empty());
        assert!(!small.insights.orphan_files.is_empty());
        assert_eq!(small.insights.circular_dependencies.len(), 1);
        let note = small.note.unwrap();
        assert!(note.contains("0 of 200 loadedByName"), "{note}");
        assert!(note.contains(&format!(
            "{} of 200 orphanFiles",
            small.insights.orphan_files.len()
        )));
        // Within budget: untouched.
        assert_eq!(fit(r.clone(), 20_000), r);
    }

    #[test]
    fn conventions_and_repeated_names_are_loaded_by_name() {
        let repeated: HashMap<&str, usize> = [("formats.py", 3), ("helpers.py", 2)].into();
        for path in [
            "pkg/conf/locale/de/formats.py",
            "tests/test_api.py",
            "pkg/__main__.py",
            "setup.py",
            "pkg/migrations/0001_initial.py",
            "web/jest.config.js",
            "build.rs",
            "cart/cart_test.go",
        ] {
            assert!(loaded_by_name(path, &repeated), "{path}");
        }
        for path in [
            "pkg/helpers.py",
            "pkg/unused.py",
            "docs/logo.svg",
            "pkg/conf/locale/de/LC_MESSAGES/django.po",
        ] {
            assert!(!loaded_by_name(path, &repeated), "{path}");
        }
    }
}
