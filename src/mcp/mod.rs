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
//! is in [`server`] and names no tool; [`stdio`] is the front door between stdin/stdout
//! and rmcp, which answers every line rmcp would drop. A new tool is a row here (plus an `Args` or
//! `Answer` line for a new type); a special case is a small closure in its row, never a
//! copy of the call path.

mod answers;
mod arguments;
pub mod http;
mod route;
mod server;
mod stdio;

use std::sync::Arc;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};

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

/// [`Workspace::impact_inputs`] after bringing the index up to date, as
/// [`fresh_graph`].
fn fresh_impact_inputs(
    ws: &Workspace,
) -> Result<
    (
        Arc<SymbolGraph>,
        Option<Arc<crate::tools::impact::OpenCalls>>,
    ),
    ToolError,
> {
    ws.refresh_within(FRESHNESS_WINDOW)?;
    ws.impact_inputs()
}

/// A group of tools a server can offer alone (`serve --tools graph,memory`), so that a
/// client loads only the tool descriptions it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum ToolGroup {
    /// The code graph: summaries, drill-down, impact, symbol search and source.
    Graph,
    /// Agent memory: task lists and work hand-offs.
    Memory,
    /// File and folder documentation, line ranges, the HTML graph view.
    Docs,
    /// Sequential thinking with code audits.
    Audit,
    /// The server's roots: status, switching the root, read-only SQL.
    Workspace,
}

impl ToolGroup {
    /// Every group, in listing order.
    pub const ALL: [ToolGroup; 5] = [
        ToolGroup::Graph,
        ToolGroup::Memory,
        ToolGroup::Docs,
        ToolGroup::Audit,
        ToolGroup::Workspace,
    ];

    /// The group's name as `--tools` takes it.
    pub fn name(self) -> &'static str {
        match self {
            ToolGroup::Graph => "graph",
            ToolGroup::Memory => "memory",
            ToolGroup::Docs => "docs",
            ToolGroup::Audit => "audit",
            ToolGroup::Workspace => "workspace",
        }
    }
}

/// The tools of `groups`, as `tools/list` gives them (sorted by name), each with its
/// group.
pub fn tool_list(groups: &[ToolGroup]) -> Vec<(ToolGroup, rmcp::model::Tool)> {
    let mut tools: Vec<(ToolGroup, rmcp::model::Tool)> = rows()
        .into_iter()
        .filter(|(group, _)| groups.contains(group))
        .map(|(group, route)| (group, route.attr))
        .collect();
    tools.sort_by(|a, b| a.1.name.cmp(&b.1.name));
    tools
}

/// What the tool list costs a client's context, in cl100k_base tokens of each tool's
/// JSON as `tools/list` sends it (name, title, description, schemas, annotations).
#[derive(Debug, serde::Serialize)]
pub struct ToolListCost {
    /// Every tool of the groups asked for, sorted by name.
    pub tools: Vec<ToolCost>,
    /// Tokens per group asked for.
    pub groups: std::collections::BTreeMap<&'static str, usize>,
    /// Tokens of the whole list.
    pub total: usize,
}

/// One tool's line of [`ToolListCost`].
#[derive(Debug, serde::Serialize)]
pub struct ToolCost {
    pub name: String,
    pub group: &'static str,
    /// Tokens of the whole tool entry.
    pub tokens: usize,
    /// Tokens of its description alone.
    pub description_tokens: usize,
}

impl ToolListCost {
    /// One line per tool, then the total per group and in all.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        for t in &self.tools {
            out.push_str(&format!(
                "{:<34} {:<9} {:>5} tokens ({} in the description)\n",
                t.name, t.group, t.tokens, t.description_tokens
            ));
        }
        for (group, tokens) in &self.groups {
            out.push_str(&format!("group {group:<9} {tokens:>6} tokens\n"));
        }
        out.push_str(&format!("total {:>16} tokens\n", self.total));
        out
    }
}

/// The token cost of the tool list of `groups` (see [`ToolListCost`]).
///
/// Errors: a tool that does not serialise (a defect).
pub fn tool_list_cost(groups: &[ToolGroup]) -> Result<ToolListCost, serde_json::Error> {
    use crate::tools::symbol_summary::count_tokens;
    let mut cost = ToolListCost {
        tools: Vec::new(),
        groups: groups.iter().map(|g| (g.name(), 0)).collect(),
        total: 0,
    };
    for (group, tool) in tool_list(groups) {
        let tokens = count_tokens(&serde_json::to_string(&tool)?);
        let description_tokens = count_tokens(tool.description.as_deref().unwrap_or(""));
        *cost.groups.entry(group.name()).or_default() += tokens;
        cost.total += tokens;
        cost.tools.push(ToolCost {
            name: tool.name.to_string(),
            group: group.name(),
            tokens,
            description_tokens,
        });
    }
    Ok(cost)
}

/// The router of the tools of `groups`.
fn routes(groups: &[ToolGroup]) -> ToolRouter<Server> {
    let mut router = ToolRouter::new();
    for (group, route) in rows() {
        if groups.contains(&group) {
            router.add_route(route);
        }
    }
    router
}

/// The registration table: every tool the server offers (`tools/list` sorts them by
/// name). Each row: the tool's group, then name, hints, description, and the tool
/// function with the arguments and answer types that give its schemas.
fn rows() -> Vec<(ToolGroup, ToolRoute<Server>)> {
    let rows = [
        // ---- the file-level summary ----
        (
            ToolGroup::Graph,
            tool(
                "constellation_get_graph_summary",
                READ_ONLY,
                "File-level dependency graph summary: counts, file types, hub files, cycles and orphan files. Re-indexes changed files first.",
                |c, a: GraphSummaryArgs| {
                    let budget = crate::tools::budget_tokens(
                        a.budget_tokens,
                        file_graph_summary::DEFAULT_BUDGET,
                        file_graph_summary::MIN_BUDGET,
                    )?;
                    file_graph_summary::get_graph_summary(&c.ws, a.force_refresh, &|_| {})
                        .map(|r| file_graph_summary::fit(r, budget))
                },
            ),
        ),
        // ---- the budgeted summary and the drill-down ----
        (
            ToolGroup::Graph,
            tool(
                "summarize_graph",
                READ_ONLY,
                "Budgeted summary of the symbol graph: stats, central nodes (PageRank), communities, call paths, whole or around seeds; `truncation` says what was cut.",
                |c, a: SummarizeArgs| symbol_summary::summarize_graph(&fresh_graph(&c.ws)?, c.ws.root(), &a),
            ),
        ),
        (
            ToolGroup::Graph,
            tool(
                "get_node_details",
                READ_ONLY,
                "One node of the symbol graph: file, lines, signature, degrees, PageRank, callers and callees with confidence, value users, unresolved calls.",
                |c, a: NodeDetailsArgs| {
                    let g = fresh_graph(&c.ws)?;
                    let conn = c.ws.store().conn()?;
                    drill::get_node_details(&g, Some(&conn), &a)
                },
            ),
        ),
        (
            ToolGroup::Graph,
            tool(
                "get_paths",
                READ_ONLY,
                "Shortest paths (fewest hops) from src to dst along call, import and base-class edges.",
                |c, a: PathsArgs| drill::get_paths(&fresh_graph(&c.ws)?, &a),
            ),
        ),
        (
            ToolGroup::Graph,
            tool(
                "get_community",
                READ_ONLY,
                "One community of the symbol graph: size, central nodes, files and edges to other communities.",
                |c, a: CommunityArgs| drill::get_community(&fresh_graph(&c.ws)?, &a),
            ),
        ),
        (
            ToolGroup::Graph,
            tool(
                "expand",
                READ_ONLY,
                "The subgraph within `radius` hops of one node, nearest first, with the edges between its nodes.",
                |c, a: ExpandArgs| drill::expand(&fresh_graph(&c.ws)?, &a),
            ),
        ),
        (
            ToolGroup::Graph,
            tool(
                "list_top_nodes",
                READ_ONLY,
                "The k most important nodes by PageRank, degree or betweenness.",
                |c, a: TopNodesArgs| drill::list_top_nodes(&fresh_graph(&c.ws)?, &a),
            ),
        ),
        // ---- impact of a symbol, a file or a change ----
        (
            ToolGroup::Graph,
            tool(
                "get_impact",
                READ_ONLY,
                "What depends on a symbol or file, transitively (callers, value users, importers, subclasses), by file with chains; weak/name-only links as `possible`; tests within 10 edges.",
                |c, a: ImpactArgs| {
                    let (g, open) = fresh_impact_inputs(&c.ws)?;
                    impact::get_impact(&g, open.as_deref(), Some(c.ws.root()), &a)
                },
            ),
        ),
        (
            ToolGroup::Graph,
            tool(
                "diff_impact",
                READ_ONLY,
                "Impact of a git change: symbols added, modified, removed, their dependents, tests to run; fail_on makes it a CI check.",
                |c, a: DiffImpactArgs| {
                    let (g, open) = fresh_impact_inputs(&c.ws)?;
                    diff_impact::diff_impact(&g, open.as_deref(), c.ws.root(), &a)
                },
            ),
        ),
        // ---- finding symbols and reading their source ----
        (
            ToolGroup::Graph,
            tool(
                "search_symbols",
                READ_ONLY,
                "Find symbols by name, part of a name (`response parse` finds parseHTTPResponse), qualified name, path or signature; exact names first; typos get did_you_mean.",
                |c, a: SearchArgs| {
                    c.ws.refresh_within(FRESHNESS_WINDOW)?;
                    search::search_symbols(&c.ws, &a)
                },
            ),
        ),
        (
            ToolGroup::Graph,
            tool(
                "get_symbol_source",
                READ_ONLY,
                "One symbol's source from disk, lines numbered; optionally its callers' and callees' signatures. Says when the file changed since indexing.",
                |c, a: SourceArgs| {
                    c.ws.refresh_within(FRESHNESS_WINDOW)?;
                    symbol_source::get_symbol_source(&c.ws, &a)
                },
            ),
        ),
        // ---- checklists and work hand-offs, in the default workspace ----
        (
            ToolGroup::Memory,
            tool(
                "update_tasks",
                REPLACES,
                "Create or replace the task tree of a session (sessionId), whole (path \"/\") or under one task. Persistent; returns the tree.",
                |c, a: UpdateTasksArgs| tasks::update_tasks(&c.ws.memory()?, &a),
            ),
        ),
        (
            ToolGroup::Memory,
            tool(
                "get_all_tasks",
                READ_ONLY,
                "The task tree of a session, as text and JSON.",
                |c, a: SessionArgs| tasks::get_all_tasks(&c.ws.memory()?, &a),
            ),
        ),
        (
            ToolGroup::Memory,
            tool(
                "mark_task_as_done",
                WRITES,
                "Mark one task of a session DONE; returns the tree.",
                |c, a: MarkDoneArgs| tasks::mark_task_as_done(&c.ws.memory()?, &a),
            ),
        ),
        (
            ToolGroup::Memory,
            tool(
                "save_current_work_info",
                EVICTS,
                "Save a work hand-off (summary, description, optionally a session's task tree) for another agent or session; returns its workId.",
                |c, a: SaveWorkArgs| work::save_current_work_info(&c.ws.memory()?, c.work_capacity, &a),
            ),
        ),
        (
            ToolGroup::Memory,
            tool(
                "get_recent_works_info",
                READ_ONLY,
                "The saved work hand-offs, most recently used first.",
                |c, _: NoArgs| work::get_recent_works_info(&c.ws.memory()?),
            ),
        ),
        // Reading an entry makes it the most recently used: a write.
        (
            ToolGroup::Memory,
            tool(
                "get_work_by_id",
                WRITES,
                "One saved work hand-off by workId, with its task tree.",
                |c, a: GetWorkArgs| work::get_work_by_id(&c.ws.memory()?, &a),
            ),
        ),
        // ---- sequential thinking with code audits ----
        (
            ToolGroup::Audit,
            titled(
                tool(
                    "sequentialthinking",
                    THINKS,
                    "Step-by-step problem solving, one thought per call, compatible with the reference sequential-thinking server (revisions, branches), with history kept per session. A thought holding a code block, a diff or a ```gan-config block is audited: `gan` gives a 0-100 score per dimension, a verdict and review comments.",
                    |c, a: ThoughtInput| thinking::sequential_thinking(&c.ws, a, FRESHNESS_WINDOW),
                ),
                "Sequential Thinking",
            ),
        ),
        // ---- file documentation, workspace tools; query_index ----
        (
            ToolGroup::Docs,
            tool(
                "file_info",
                READ_ONLY,
                "Documentation prompt for a source file: its structure from the index and its source; then call report_file_info.",
                |c, a: FileInfoArgs| file_info::file_info(&c.ws, &a.path, a.budget_tokens),
            ),
        ),
        (
            ToolGroup::Docs,
            tool(
                "report_file_info",
                WRITES,
                "Save the documentation of a file (the callback of file_info) as markdown under .artifacts/, with the file's digest to tell when it goes stale.",
                |c, a: ReportFileInfoArgs| file_info::report_file_info(&c.ws, &a),
            ),
        ),
        (
            ToolGroup::Docs,
            tool(
                "folder_info",
                READ_ONLY,
                "Documentation prompt for a folder: its files' roles and the imports and calls crossing it; then call report_folder_info.",
                |c, a: FolderInfoArgs| folder_info::folder_info(&c.ws, &a.path, a.budget_tokens),
            ),
        ),
        (
            ToolGroup::Docs,
            tool(
                "report_folder_info",
                WRITES,
                "Save the documentation of a folder (the callback of folder_info) as .artifacts/<folder>/README.md.",
                |c, a: ReportFolderInfoArgs| folder_info::report_folder_info(&c.ws, &a),
            ),
        ),
        (
            ToolGroup::Docs,
            tool(
                "inspect_source",
                READ_ONLY,
                "Lines startLine-endLine (1-based, inclusive) of a workspace file, numbered; at most 500.",
                |c, a: InspectArgs| inspect::inspect_source(c.ws.root(), &a),
            ),
        ),
        // The call's workspace is the new root: index it, then switch, so no call sees
        // it half-built.
        (
            ToolGroup::Workspace,
            tool(
                "set_workspace_root",
                WRITES,
                "Switch the server to another workspace root, indexing it first; later calls use it.",
                |c, _: SetWorkspaceRootArgs| {
                    let answer = workspace_root::activate(&c.ws, &c.default)?;
                    c.make_default()?;
                    Ok(answer)
                },
            ),
        ),
        (
            ToolGroup::Docs,
            tool(
                "open_window",
                WRITES,
                "Write an interactive HTML view of the file dependency graph (cycles in red) to .artifacts/graph.html.",
                |c, a: OpenWindowArgs| {
                    c.ws.refresh_within(FRESHNESS_WINDOW)?;
                    window::open_window(&c.ws, &a)
                },
            ),
        ),
        (
            ToolGroup::Workspace,
            tool(
                "get_status",
                READ_ONLY,
                "Each workspace root's index: generation, build time, counts, pending file changes and file-watch health; the clients connected.",
                |c, _a: NoArgs| {
                    let open = c.open_workspaces()?;
                    status::server_status(&c.default, &open, c.transport(), c.clients())
                },
            ),
        ),
        (
            ToolGroup::Workspace,
            tool(
                "query_index",
                READ_ONLY,
                "One read-only SQL statement over the index and agent memory; cut to `limit` rows, budget_tokens and 5 s.",
                |c, a: QueryArgs| {
                    c.ws.refresh_within(FRESHNESS_WINDOW)?;
                    // Opened (and an older build's memory moved into it) so that it is attached.
                    c.ws.memory()?;
                    query::query_index(c.ws.store().path(), &a)
                },
            ),
        ),
    ];
    debug_assert_eq!(
        rows.iter()
            .map(|(_, route)| &route.attr.name)
            .collect::<std::collections::HashSet<_>>()
            .len(),
        rows.len(),
        "two rows share a tool name"
    );
    rows.into()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every client pays the tool list in context tokens on every session: the whole
    /// list stays within 6,000 tokens and the graph group within 2,500
    /// (`bench/tool_list.py` prints the figures).
    #[test]
    fn the_tool_list_fits_its_token_targets() {
        let cost = tool_list_cost(&ToolGroup::ALL).unwrap();
        assert!(cost.total <= 6000, "tool list: {} tokens", cost.total);
        assert!(
            cost.groups["graph"] <= 2500,
            "graph: {} tokens",
            cost.groups["graph"]
        );
        assert_eq!(cost.tools.len(), 27);
        assert_eq!(
            cost.groups.values().sum::<usize>(),
            cost.total,
            "every tool is in one group"
        );
    }

    #[test]
    fn a_group_lists_only_its_tools() {
        let memory = tool_list(&[ToolGroup::Memory]);
        assert!(memory.iter().all(|(g, _)| *g == ToolGroup::Memory));
        assert_eq!(memory.len(), 6);
        let all = tool_list(&ToolGroup::ALL);
        let mut names: Vec<&str> = all.iter().map(|(_, t)| t.name.as_ref()).collect();
        names.dedup();
        assert_eq!(names.len(), all.len(), "two rows share a tool name");
    }
}
