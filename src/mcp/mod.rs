//! The MCP server (rmcp; stdio, or streamable HTTP in [`http`]): the list of tools, and nothing else of substance.
//!
//! Why it is shaped this way: each tool is one row of [`routes`]: its name, behaviour
//! hints, description, and the tool function it calls, which is the function the CLI
//! calls too (so both give the same answer). Everything else is derived from types
//! instead of being written out per tool:
//! - `inputSchema` from the argument type and the workspace a call works on from its
//!   `workspaceRoot` ([`arguments`]);
//! - `outputSchema` from the answer type, and how the answer becomes `structuredContent`
//!   and text ([`answers`]; the few answers whose text is not their JSON say so there);
//! - the call path, the same for every tool ([`route`]): arguments parsed by the server
//!   so a wrong type is a tool result with `isError: true` and a text starting with
//!   `invalid_argument:` (not a protocol error), blocking work on `spawn_blocking`, and
//!   every failure an `isError` result whose text starts with a code from
//!   [`crate::tools::ErrorCode`].
//!
//! The server state (the workspaces a call may address, the rmcp handler, the stdio loop)
//! is in [`server`] and names no tool. A new tool is a row here (plus an `Args` or
//! `Answer` line for a new type); a special case is a small closure in its row, never a
//! copy of the call path.

mod answers;
mod arguments;
pub mod http;
mod route;
mod server;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;

use crate::docs::file_info::{self, FileInfoArgs, ReportFileInfoArgs};
use crate::docs::folder_info::{self, FolderInfoArgs, ReportFolderInfoArgs};
use crate::docs::inspect::{self, InspectArgs};
use crate::docs::window::{self, OpenWindowArgs};
use crate::graph::SymbolGraph;
use crate::memory::tasks::{self, MarkDoneArgs, SessionArgs, UpdateTasksArgs};
use crate::memory::thinking::{self, ThoughtInput};
use crate::memory::work::{self, GetWorkArgs, SaveWorkArgs};
use crate::tools::diff_impact::{self, DiffImpactArgs};
use crate::tools::drill::{
    self, CommunityArgs, ExpandArgs, NodeDetailsArgs, PathsArgs, TopNodesArgs,
};
use crate::tools::file_graph_summary;
use crate::tools::impact::{self, ImpactArgs};
use crate::tools::query::{self, QueryArgs};
use crate::tools::search::{self, SearchArgs};
use crate::tools::status;
use crate::tools::symbol_source::{self, SourceArgs};
use crate::tools::symbol_summary::{self, SummarizeArgs};
use crate::tools::workspace::Workspace;
use crate::tools::workspace_root::{self, SetWorkspaceRootArgs};
use crate::tools::ToolError;

pub use arguments::{GraphSummaryArgs, NoArgs};
use route::{titled, tool, Hints, READ_ONLY, REPLACES, WRITES};
pub use server::{serve_stdio, Server};

/// The graph tools check the index against the disk at most this often;
/// `constellation_get_graph_summary` checks on every call.
pub const FRESHNESS_WINDOW: std::time::Duration = std::time::Duration::from_secs(1);

/// The symbol graph of `ws` after bringing its index up to date (checked against the
/// disk at most once per [`FRESHNESS_WINDOW`]).
fn fresh_graph(ws: &Workspace) -> Result<Arc<SymbolGraph>, ToolError> {
    ws.refresh_within(FRESHNESS_WINDOW)?;
    ws.symbol_graph()
}

/// The registration table: every tool the server offers (`tools/list` sorts them by
/// name). Each row: name, hints, description, and the tool function with the
/// arguments and answer types that give its schemas.
fn routes() -> ToolRouter<Server> {
    let rows = [
        // ---- the file-level summary ----
        tool(
            "constellation_get_graph_summary",
            READ_ONLY,
            "Get an intelligent summary of the codebase's file-level dependency graph: file count, dependency count, file types, the most connected files (hubs), circular dependencies (one closed cycle per strongly connected component) and orphan files. Checks the index against the disk first and re-indexes incrementally when anything changed (metadata.cacheUsed says which).",
            |c, a: GraphSummaryArgs| file_graph_summary::get_graph_summary(&c.ws, a.force_refresh, &|_| {}),
        ),
        // ---- the budgeted summary and the drill-down ----
        tool(
            "summarize_graph",
            READ_ONLY,
            "Budgeted summary of the symbol graph (functions, classes, files and their calls/imports/contains/inherits edges): graph_stats, the most central nodes by PageRank (top_nodes), communities (label propagation) with the edges between them, call-path samples, for the whole workspace or around seeds. Only edges at least min_confidence confident are used (default 0.97: call and base edges carry the measured precision of the rule that resolved them; graph_stats says how many weaker ones were left out). The rendered answer fits budget_tokens (cl100k_base): when it would not, lists are cut step by step and `truncated` is true with `truncation` saying what was dropped. format json (default), summary (or text) or dot.",
            |c, a: SummarizeArgs| symbol_summary::summarize_graph(&fresh_graph(&c.ws)?, c.ws.root(), &a),
        ),
        tool(
            "get_node_details",
            READ_ONLY,
            "Details of one node of the symbol graph: kind, label, file, lines, signature, in/out degree, PageRank, community, and the callers and callees with the lines, provenance and confidence of the calls (edges at least min_confidence confident, default 0.97). value_users (with value_users_total) lists the nodes that use it as a value without calling it there (a callback, map(f, ...), a function stored in a variable or literal), when there are any. Also what no rule resolved: possible callers/callees (name match only) as counts, listed with include_possible: true, and the node's own unresolved, ambiguous and external calls. \"no callers\" is said only when no call site names the node. Cut to budget_tokens; truncated says so.",
            |c, a: NodeDetailsArgs| {
                let g = fresh_graph(&c.ws)?;
                let conn = c.ws.store().conn()?;
                drill::get_node_details(&g, Some(&conn), &a)
            },
        ),
        tool(
            "get_paths",
            READ_ONLY,
            "Up to `limit` shortest simple paths (by hops, at most max_hops) from src to dst along calls, imports, inherits and implements edges. Nodes are given as node ids (func:PATH::name) or a label/name naming one node. Uses only edges at least min_confidence confident (default 0.97).",
            |c, a: PathsArgs| drill::get_paths(&fresh_graph(&c.ws)?, &a),
        ),
        tool(
            "get_community",
            READ_ONLY,
            "One community (label propagation over the symbol graph; ids as summarize_graph lists them): size, most central nodes by PageRank, files, and edges to other communities. Uses only edges at least min_confidence confident (default 0.97).",
            |c, a: CommunityArgs| drill::get_community(&fresh_graph(&c.ws)?, &a),
        ),
        tool(
            "expand",
            READ_ONLY,
            "The induced subgraph around one node: every node within `radius` hops (either direction; nearest first, capped) and the edges between them. Uses only edges at least min_confidence confident (default 0.97).",
            |c, a: ExpandArgs| drill::expand(&fresh_graph(&c.ws)?, &a),
        ),
        tool(
            "list_top_nodes",
            READ_ONLY,
            "The k most important nodes of the symbol graph by metric: pr (PageRank), degree (in + out) or betweenness (Brandes; exact below 5,000 nodes, sampled above, and the answer says which). Uses only edges at least min_confidence confident (default 0.97).",
            |c, a: TopNodesArgs| drill::list_top_nodes(&fresh_graph(&c.ws)?, &a),
        ),
        // ---- impact of a symbol, a file or a change ----
        tool(
            "get_impact",
            READ_ONLY,
            "Everything that depends on a symbol or a file, transitively to depth edges (default 3, at most 10): callers (calls), users of it as a value (references: a callback, map(f, ...), a function stored in a variable or literal; Python and JS/TS), importers (imports), subclasses (inherits) and implementations (implements); a class stands for its methods and constructor (callers of a member count, labelled with the member), a file for every symbol it defines plus its importers. Grouped by file, each dependent with its depth and the chain of nodes (with files) that reaches it. Chains whose every edge is at least min_confidence confident (default 0.97) are `files`; those through a weaker rule's edge are listed apart as `possible`. `tests` lists the test functions (or test files) that reach the target, most direct first, by each language's convention (pytest/unittest, #[test], Jest/Vitest/Mocha files, Go Test*, JUnit). target: node id, numeric node id, file path, qualified name or a name naming one node. Cut to budget_tokens: truncated, left_out and hint say what is missing and how to get it.",
            |c, a: ImpactArgs| impact::get_impact(&fresh_graph(&c.ws)?, Some(c.ws.root()), &a),
        ),
        tool(
            "diff_impact",
            READ_ONLY,
            "The impact of a git change: runs git diff -U0 (working tree against HEAD by default and untracked files as added; staged: true for the staged changes; base: a revision to compare the working tree with), maps the changed lines to symbols of the index (brought up to date first): added (all its lines added), modified (a changed line outside its members), removed (in the old version, parsed with the indexer's extractor, and gone now); then everything that depends on the added and modified symbols as get_impact (files, possible, tests to run, depth default 3). fail_on: numbers fail when more than N trusted dependents are found, globs when a changed file matches; fail.failed says so. Outside a git repository the error is one line: not a git repository: ROOT. Cut to budget_tokens.",
            |c, a: DiffImpactArgs| {
                let g = fresh_graph(&c.ws)?;
                diff_impact::diff_impact(&g, c.ws.root(), &a)
            },
        ),
        // ---- finding symbols and reading their source ----
        tool(
            "search_symbols",
            READ_ONLY,
            "Find symbols by name: full-text search over symbol names (split at snake_case, camelCase and acronym boundaries: `response parse` finds parseHTTPResponse), qualified names (`Shape::area`, `pkg.mod.Class.method`), file paths and signatures. The last word also matches as a prefix (`pars*` makes any word one). Exact name matches (case-insensitive) come first, exact qualified names before them, then names starting with the query, then word matches (ranked by how much of the name they cover and BM25); ties go to the more referenced symbol (in-degree). When nothing matches, names within edit distance 1-2 are returned with match \"fuzzy\" and did_you_mean. Filters: kind, language, path (glob). Each hit: node_id, key, kind, name, qualified_name, path, start_line, end_line, signature, score, match. Cut to limit (default 20) and budget_tokens (default 3000): truncated, more and note say what was left out and how to get it.",
            |c, a: SearchArgs| {
                c.ws.refresh_within(FRESHNESS_WINDOW)?;
                search::search_symbols(&c.ws, &a)
            },
        ),
        tool(
            "get_symbol_source",
            READ_ONLY,
            "The source of one symbol, read from the file on disk: path, kind, signature, first docstring line, and its lines numbered `N | text`. The symbol is a node id, a node key (func:PATH::Q), a qualified name (Shape::area, crate::geo::area, pkg.mod.Class.method), path::Qualified.name (src/shapes.ts::Shape.area), a bare name naming one symbol, or path:line (the innermost symbol holding that line). The file's blake3 digest is checked against the index: file_changed true (with a note) when the file changed since indexing. include [\"callers\", \"callees\"] adds their signatures with path:line, edges at least min_confidence confident (default 0.97) first as trusted, weaker ones as possible. Lines are cut to budget_tokens (default 3000; truncated and note give the lines shown and how to read the rest). An ambiguous name is an invalid_argument error listing the candidates; an unknown one not_found with suggestions.",
            |c, a: SourceArgs| {
                c.ws.refresh_within(FRESHNESS_WINDOW)?;
                symbol_source::get_symbol_source(&c.ws, &a)
            },
        ),
        // ---- checklists and work hand-offs, in the default workspace ----
        tool(
            "update_tasks",
            REPLACES,
            "Create or replace the hierarchical task list of a session (sessionId). path \"/\" (default) replaces the whole list; \"/a/b\" replaces the children of task b under top-level task a. Each task: taskId (1-20 chars, none of / \\ : * ? \" < > |, unique among siblings), description (1-1000 chars), status TODO (default) or DONE, children. Stored in the agent-memory database beside the index: survives restarts, is shared with other processes, and never waits for an index run. Returns the whole tree (text: \u{2713} DONE, \u{25cb} TODO).",
            |c, a: UpdateTasksArgs| tasks::update_tasks(&c.ws.memory()?, &a),
        ),
        tool(
            "get_all_tasks",
            READ_ONLY,
            "The whole hierarchical task list of a session: as an indented text tree (\u{2713} DONE, \u{25cb} TODO) and as JSON (tasks, taskCount, doneCount). A session without tasks answers an empty list.",
            |c, a: SessionArgs| tasks::get_all_tasks(&c.ws.memory()?, &a),
        ),
        tool(
            "mark_task_as_done",
            WRITES,
            "Mark one task of a session DONE (the first with that taskId, depth first); its children are not changed. Returns the whole tree. Unknown ids give not_found naming the id.",
            |c, a: MarkDoneArgs| tasks::mark_task_as_done(&c.ws.memory()?, &a),
        ),
        tool(
            "save_current_work_info",
            EVICTS,
            "Save a work hand-off for another agent or a later session: work_summarize (1-5000 chars), work_description (1-200 chars), optional sessionId whose task tree is snapshotted with it (saving again with the same sessionId replaces that entry). Returns workId (8 digits), message and ISO timestamp. Kept in an LRU of the most recently used entries (10 by default, --work-capacity) in the agent-memory database beside the index.",
            |c, a: SaveWorkArgs| work::save_current_work_info(&c.ws.memory()?, c.work_capacity, &a),
        ),
        tool(
            "get_recent_works_info",
            READ_ONLY,
            "The saved work hand-offs, most recently used first: workId, work_timestamp, work_description each. Does not change the order.",
            |c, _: NoArgs| work::get_recent_works_info(&c.ws.memory()?),
        ),
        // Reading an entry makes it the most recently used: a write.
        tool(
            "get_work_by_id",
            WRITES,
            "One saved work hand-off by its 8-digit workId: work_timestamp, work_description, work_summarize, and work_tasks (the task tree as it was when saved, if saved with a session). Makes it the most recently used.",
            |c, a: GetWorkArgs| work::get_work_by_id(&c.ws.memory()?, &a),
        ),
        // ---- sequential thinking with code audits ----
        titled(
            tool(
                "sequentialthinking",
                THINKS,
                "A detailed tool for dynamic and reflective problem-solving through thoughts, compatible with the reference sequential-thinking server: send one thought at a time (thoughtNumber, totalThoughts, nextThoughtNeeded; isRevision/revisesThought to revise, branchFromThought/branchId to branch, needsMoreThoughts). The answer has thoughtNumber, totalThoughts (raised to thoughtNumber when exceeded), nextThoughtNeeded, branches, thoughtHistoryLength and sessionId. History is kept per session in the agent-memory database beside the index and survives restarts: a plain thought 1 starts a session, later thoughts continue the latest one (or the one named by loopId). A thought containing a fenced code block, a unified diff or a ```gan-config JSON block (task, scope diff|paths|workspace, paths, threshold 0-100 default 85, maxCycles 1-10, candidates 1-5, judges [\"internal\", \"codex\"], applyFixes) is audited: the answer's gan holds overall 0-100, dimensions (correctness, completeness, maintainability, safety, tests), verdict pass|revise|reject, review {summary, inline [{path, line, comment}], citations [repo://path:start-end]}, iterations, judge_cards; revise/reject set nextThoughtNeeded to true. The audit session is branchId when given.",
                |c, a: ThoughtInput| thinking::sequential_thinking(&c.ws, a, FRESHNESS_WINDOW),
            ),
            "Sequential Thinking",
        ),
        // ---- file documentation, workspace tools; query_index ----
        tool(
            "file_info",
            READ_ONLY,
            "Get semantic documentation for a source file. Returns status prompt_ready with promptForHostLLM: the file's structure from the index (every function and method with signature and lines, classes with their methods, imports with the files they resolve to, the callers of each function from the reverse call index), its source (cut at 64 KiB with a note) and the task. Read it, then call report_file_info (callbackTool) with the enriched documentation. When a doc was saved before, existingDoc shows it and says whether it is stale (the file changed since). A file the index does not have yet is indexed first.",
            |c, a: FileInfoArgs| file_info::file_info(&c.ws, &a.path),
        ),
        tool(
            "report_file_info",
            WRITES,
            "Store the host model's documentation of a file (the callback of file_info). Every functions[].name must be a function, method or class of the file (bare or qualified name); unknown names are an invalid_argument error listing them, and nothing is saved. Renders the markdown (overview, inputs, outputs, connections, functions with purpose, implementation summary and callers, classes with methods), writes it atomically to .artifacts/src/<dir>/<file_name>.md and records it with the file's blake3 digest, so file_info can tell when it goes stale.",
            |c, a: ReportFileInfoArgs| file_info::report_file_info(&c.ws, &a),
        ),
        tool(
            "folder_info",
            READ_ONLY,
            "Get semantic documentation for a folder (path relative to the workspace root, \".\" for the root). Returns status prompt_ready with promptForHostLLM: the folder's files with their role from the index (public interface, internal module, entry point, isolated, asset), symbol counts, and the imports and calls that cross the folder's boundary. Then call report_folder_info (callbackTool). existingDoc shows a README saved before and whether it is stale.",
            |c, a: FolderInfoArgs| folder_info::folder_info(&c.ws, &a.path),
        ),
        tool(
            "report_folder_info",
            WRITES,
            "Store the host model's documentation of a folder (the callback of folder_info): overview, inputs, outputs, key_files [{name, summary}] and architecture. Key file names must be files of the folder (unknown ones are an invalid_argument error; nothing is saved). Writes the README atomically to .artifacts/src/<folder>/README.md and records it with the folder's digest.",
            |c, a: ReportFolderInfoArgs| folder_info::report_folder_info(&c.ws, &a),
        ),
        tool(
            "inspect_source",
            READ_ONLY,
            "Read a range of lines of a file in the workspace: startLine and endLine are 1-indexed and inclusive (start_line / end_line also accepted); answers the lines numbered `N | text`, at most 500 per call (truncated says when the range was cut).",
            |c, a: InspectArgs| inspect::inspect_source(c.ws.root(), &a),
        ),
        // The call's workspace is the new root: index it, then switch, so no call sees
        // it half-built.
        tool(
            "set_workspace_root",
            WRITES,
            "Switch the server to another workspace root (absolute, or relative to the current root): later calls without workspaceRoot use it and its own index, ROOT/.constellation/index.db, which is built or brought up to date now. Answers the new root, its database and index counts.",
            |c, _: SetWorkspaceRootArgs| {
                let answer = workspace_root::activate(&c.ws, &c.default)?;
                c.make_default()?;
                Ok(answer)
            },
        ),
        tool(
            "open_window",
            WRITES,
            "Write a self-contained HTML view of the file-level dependency graph (everything inlined, no network needed) to .artifacts/graph.html in the workspace and return its path and file:// URL. Nodes are sized by PageRank, files and imports on dependency cycles are red and the cycles are listed, a search box highlights matching files; click a node for its imports and importers, wheel to zoom, drag to pan. At most maxNodes files (default 300) of highest PageRank are drawn.",
            |c, a: OpenWindowArgs| {
                c.ws.refresh_within(FRESHNESS_WINDOW)?;
                window::open_window(&c.ws, &a)
            },
        ),
        tool(
            "get_status",
            READ_ONLY,
            "The server's workspace roots: for each, the index generation and when it was built, file, node and edge counts, whether file changes wait to be indexed, and the file watch's health (events, background runs, tool calls that had to walk the tree); plus the clients connected. Every tool result carries the freshness of its root in `_meta[\"constellation/freshness\"]` (generation, indexedAt, pendingChanges, watched).",
            |c, _a: NoArgs| {
                let open = c.open_workspaces()?;
                status::server_status(&c.default, &open, c.transport(), c.clients())
            },
        ),
        tool(
            "query_index",
            READ_ONLY,
            "Run one read-only SQL statement over the index and get columns and rows. Tables: files, nodes, edges, refs, index_runs, meta; views: file_imports, call_edges, symbols, file_symbol_counts, hubs, unresolved_refs. Agent memory is attached read-only as `memory`: tables task_sessions, tasks, work_info, thoughts, audit_sessions, audit_history, file_docs; views open_tasks, recent_works (every column is documented in schema/*.sql and schema/memory/*.sql). At most `limit` rows (default 1000, max 10000; truncated says when more existed), 5 s per query. Writes (INSERT, UPDATE, DELETE, DDL, ATTACH, writing PRAGMAs) are refused with read_only, a runaway query with query_timeout, bad SQL with invalid_sql.",
            |c, a: QueryArgs| {
                c.ws.refresh_within(FRESHNESS_WINDOW)?;
                // Opened (and an older build's memory moved into it) so that it is attached.
                c.ws.memory()?;
                query::query_index(c.ws.store().path(), &a)
            },
        ),
    ];
    let count = rows.len();
    let mut router = ToolRouter::new();
    for row in rows {
        router.add_route(row);
    }
    debug_assert_eq!(router.list_all().len(), count, "two rows share a tool name");
    router
}

/// `save_current_work_info`: a save may evict the least recently used entry.
const EVICTS: Hints = Hints {
    idempotent: false,
    ..REPLACES
};

/// `sequentialthinking`: every thought is appended; an audit may ask another program
/// (the codex judge).
const THINKS: Hints = Hints {
    read_only: false,
    destructive: Some(false),
    idempotent: false,
    open_world: true,
};
