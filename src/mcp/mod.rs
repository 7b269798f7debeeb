//! The MCP server (rmcp, stdio): argument structs with their JSON schemas, routing to
//! `tools`, and error mapping. No logic of its own.
//!
//! Every tool takes its arguments as a JSON object and deserializes them itself, so a
//! wrong type becomes a tool result with `isError: true` and a text starting with
//! `invalid_argument:` (not a protocol error). Results are `structuredContent` plus the
//! same JSON as text. Blocking work (SQLite, parsing) runs on `spawn_blocking`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::index::IndexOptions;
use crate::memory::tasks::{self, MarkDoneArgs, SessionArgs, TasksAnswer, UpdateTasksArgs};
use crate::memory::thinking::{self, ThinkingResponse, ThoughtArgs};
use crate::memory::work::{self, GetWorkArgs, SaveWorkArgs};
use crate::tools::drill::{
    self, CommunityArgs, ExpandArgs, NodeDetailsArgs, PathsArgs, TopNodesArgs,
};
use crate::tools::file_info::{self, FileInfoArgs, ReportFileInfoArgs};
use crate::tools::folder_info::{self, FolderInfoArgs, ReportFolderInfoArgs};
use crate::tools::inspect::{self, InspectArgs};
use crate::tools::query::{self, QueryArgs};
use crate::tools::summarize::{self, SummarizeArgs, SummarizeResponse};
use crate::tools::summary::{self, SummaryResponse};
use crate::tools::window::{self, OpenWindowArgs};
use crate::tools::workspace::Workspace;
use crate::tools::workspace_root::{self, SetWorkspaceRootArgs};
use crate::tools::ToolError;

/// The seed-001 tools check the index against the disk at most this often;
/// `constellation_get_graph_summary` checks on every call.
pub const FRESHNESS_WINDOW: std::time::Duration = std::time::Duration::from_secs(1);

/// Arguments of `constellation_get_graph_summary`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphSummaryArgs {
    /// Rebuild the index from scratch instead of updating it incrementally.
    #[serde(default, rename = "forceRefresh")]
    pub force_refresh: bool,
    /// Summarize this directory instead of the server's workspace (its own index,
    /// `ROOT/.constellation/index.db`).
    #[serde(default, rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// Arguments of a tool that takes none.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// A checklist answer: its JSON as `structuredContent`, and the message plus the text
/// tree as content (what the original server shows).
fn tasks_result(answer: TasksAnswer) -> Result<CallToolResult, ToolError> {
    let value = serde_json::to_value(&answer).map_err(|e| ToolError::Internal(e.to_string()))?;
    let mut result = CallToolResult::structured(value);
    result.content = vec![ContentBlock::text(answer.text())];
    Ok(result)
}

/// The JSON schema of an argument struct, for `tools/list`.
fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_type::<T>()
}

/// Deserializes tool arguments, mapping failures to `invalid_argument`.
fn parse_args<T: DeserializeOwned>(args: JsonObject) -> Result<T, ToolError> {
    serde_json::from_value(serde_json::Value::Object(args))
        .map_err(|e| ToolError::InvalidArgument(e.to_string()))
}

/// The server: the default workspace plus any opened through `workspaceRoot`.
///
/// The default workspace can be switched at run time (`set_workspace_root`), so it
/// sits behind a lock shared by every clone of the server; a call takes its `Arc`
/// once at the start and keeps working on that workspace even if the default moves
/// meanwhile. Every workspace opened stays in `others` (keyed by canonical root), so
/// switching back reuses it, with the database it was opened with.
#[derive(Clone)]
pub struct Server {
    default: Arc<RwLock<Arc<Workspace>>>,
    options: IndexOptions,
    others: Arc<Mutex<HashMap<PathBuf, Arc<Workspace>>>>,
    /// How many saved work entries the LRU keeps (seed 002).
    work_capacity: usize,
    tool_router: ToolRouter<Self>,
}

impl Server {
    /// A server over `ws`; `options` are used for workspaces opened later.
    pub fn new(ws: Arc<Workspace>, options: IndexOptions) -> Server {
        let mut others = HashMap::new();
        others.insert(ws.root().to_path_buf(), Arc::clone(&ws));
        Server {
            default: Arc::new(RwLock::new(ws)),
            options,
            others: Arc::new(Mutex::new(others)),
            work_capacity: work::DEFAULT_CAPACITY,
            tool_router: Self::tool_router(),
        }
    }

    /// Sets how many saved work entries the LRU keeps (at least 1).
    pub fn with_work_capacity(mut self, capacity: usize) -> Server {
        self.work_capacity = capacity.max(1);
        self
    }

    /// The current default workspace.
    fn default_workspace(&self) -> Result<Arc<Workspace>, ToolError> {
        self.default
            .read()
            .map(|ws| Arc::clone(&ws))
            .map_err(|_| ToolError::Internal("default workspace lock poisoned".into()))
    }

    /// The workspace a call addresses: the default one, or `root` (opened once).
    fn workspace(&self, root: Option<&str>) -> Result<Arc<Workspace>, ToolError> {
        let default = self.default_workspace()?;
        let Some(root) = root else {
            return Ok(default);
        };
        // A relative root (seed 001's `path: "."`) is taken from the server's workspace.
        let canonical = default
            .root()
            .join(root)
            .canonicalize()
            .map_err(|e| ToolError::NotFound(format!("workspace root {root}: {e}")))?;
        if canonical == default.root() {
            return Ok(default);
        }
        let mut others = self
            .others
            .lock()
            .map_err(|_| ToolError::Internal("workspace table poisoned".into()))?;
        if let Some(ws) = others.get(&canonical) {
            return Ok(Arc::clone(ws));
        }
        // Another root never shares the server's --db file: it gets its own.
        let ws = Arc::new(Workspace::open(&canonical, None, self.options.clone())?);
        others.insert(canonical, Arc::clone(&ws));
        Ok(ws)
    }
}

/// Runs blocking tool work off the async runtime.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, String> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(e) => Err(ToolError::Internal(format!("tool task failed: {e}")).to_string()),
    }
}

#[tool_router]
impl Server {
    /// Seed 000's summary tool.
    #[tool(
        name = "constellation_get_graph_summary",
        description = "Get an intelligent summary of the codebase's file-level dependency graph: file count, dependency count, file types, the most connected files (hubs), circular dependencies (one closed cycle per strongly connected component) and orphan files. Checks the index against the disk first and re-indexes incrementally when anything changed (metadata.cacheUsed says which).",
        input_schema = input_schema::<GraphSummaryArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn constellation_get_graph_summary(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<Json<SummaryResponse>, String> {
        let args: GraphSummaryArgs = parse_args(args).map_err(|e| e.to_string())?;
        let ws = self
            .workspace(args.workspace_root.as_deref())
            .map_err(|e| e.to_string())?;
        blocking(move || summary::get_graph_summary(&ws, args.force_refresh, &|_| {}))
            .await
            .map(Json)
    }

    /// Seed 001's budgeted summary.
    #[tool(
        name = "summarize_graph",
        description = "Budgeted summary of the symbol graph (functions, classes, files and their calls/imports/contains/inherits edges): graph_stats, the most central nodes by PageRank (top_nodes), communities (label propagation) with the edges between them, call-path samples, for the whole workspace or around seeds. Only edges at least min_confidence confident are used (default 0.97: call and base edges carry the measured precision of the rule that resolved them; graph_stats says how many weaker ones were left out). The rendered answer fits budget_tokens (cl100k_base): when it would not, lists are cut step by step and `truncated` is true with `truncation` saying what was dropped. format json (default), summary (or text) or dot.",
        input_schema = input_schema::<SummarizeArgs>(),
        output_schema = rmcp::handler::server::common::schema_for_output::<SummarizeResponse>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn summarize_graph(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        let args: SummarizeArgs = parse_args(args).map_err(|e| e.to_string())?;
        let root = args.path.as_deref().or(args.workspace_root.as_deref());
        let ws = self.workspace(root).map_err(|e| e.to_string())?;
        blocking(move || Self::summarize(&ws, &args)).await
    }

    /// Seed 001 drill-down: one node.
    #[tool(
        name = "get_node_details",
        description = "Details of one node of the symbol graph: kind, label, file, lines, signature, in/out degree, PageRank, community, and the callers and callees with the lines, provenance and confidence of the calls (edges at least min_confidence confident, default 0.97). Also what no rule resolved: possible callers/callees (name match only) as counts, listed with include_possible: true, and the node's own unresolved, ambiguous and external calls. \"no callers\" is said only when no call site names the node. Cut to budget_tokens; truncated says so.",
        input_schema = input_schema::<NodeDetailsArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_node_details(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.drill(
            args,
            |a: &NodeDetailsArgs| a.workspace_root.as_deref(),
            |ws, g, a| {
                let conn = ws.store().conn()?;
                drill::get_node_details(g, Some(&conn), a)
            },
        )
        .await
    }

    /// Seed 001 drill-down: paths.
    #[tool(
        name = "get_paths",
        description = "Up to `limit` shortest simple paths (by hops, at most max_hops) from src to dst along calls, imports, inherits and implements edges. Nodes are given as node ids (func:PATH::name) or a label/name naming one node. Uses only edges at least min_confidence confident (default 0.97).",
        input_schema = input_schema::<PathsArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_paths(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.drill(
            args,
            |a: &PathsArgs| a.workspace_root.as_deref(),
            |_, g, a| drill::get_paths(g, a),
        )
        .await
    }

    /// Seed 001 drill-down: a community.
    #[tool(
        name = "get_community",
        description = "One community (label propagation over the symbol graph; ids as summarize_graph lists them): size, most central nodes by PageRank, files, and edges to other communities. Uses only edges at least min_confidence confident (default 0.97).",
        input_schema = input_schema::<CommunityArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_community(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.drill(
            args,
            |a: &CommunityArgs| a.workspace_root.as_deref(),
            |_, g, a| drill::get_community(g, a),
        )
        .await
    }

    /// Seed 001 drill-down: neighbourhood.
    #[tool(
        name = "expand",
        description = "The induced subgraph around one node: every node within `radius` hops (either direction; nearest first, capped) and the edges between them. Uses only edges at least min_confidence confident (default 0.97).",
        input_schema = input_schema::<ExpandArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn expand(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.drill(
            args,
            |a: &ExpandArgs| a.workspace_root.as_deref(),
            |_, g, a| drill::expand(g, a),
        )
        .await
    }

    /// Seed 001 drill-down: rankings.
    #[tool(
        name = "list_top_nodes",
        description = "The k most important nodes of the symbol graph by metric: pr (PageRank), degree (in + out) or betweenness (Brandes; exact below 5,000 nodes, sampled above, and the answer says which). Uses only edges at least min_confidence confident (default 0.97).",
        input_schema = input_schema::<TopNodesArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_top_nodes(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.drill(
            args,
            |a: &TopNodesArgs| a.workspace_root.as_deref(),
            |_, g, a| drill::list_top_nodes(g, a),
        )
        .await
    }

    /// Seed 002: replace a checklist (sub)tree.
    #[tool(
        name = "update_tasks",
        description = "Create or replace the hierarchical task list of a session (sessionId). path \"/\" (default) replaces the whole list; \"/a/b\" replaces the children of task b under top-level task a. Each task: taskId (1-20 chars, none of / \\ : * ? \" < > |, unique among siblings), description (1-1000 chars), status TODO (default) or DONE, children. Stored in the agent-memory database beside the index: survives restarts, is shared with other processes, and never waits for an index run. Returns the whole tree (text: \u{2713} DONE, \u{25cb} TODO).",
        input_schema = input_schema::<UpdateTasksArgs>(),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn update_tasks(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.on_memory(args, |store, a: UpdateTasksArgs| {
            tasks_result(tasks::update_tasks(store, &a)?)
        })
        .await
    }

    /// Seed 002: read a checklist.
    #[tool(
        name = "get_all_tasks",
        description = "The whole hierarchical task list of a session: as an indented text tree (\u{2713} DONE, \u{25cb} TODO) and as JSON (tasks, taskCount, doneCount). A session without tasks answers an empty list.",
        input_schema = input_schema::<SessionArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_all_tasks(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.on_memory(args, |store, a: SessionArgs| {
            tasks_result(tasks::get_all_tasks(store, &a)?)
        })
        .await
    }

    /// Seed 002: tick a task.
    #[tool(
        name = "mark_task_as_done",
        description = "Mark one task of a session DONE (the first with that taskId, depth first); its children are not changed. Returns the whole tree. Unknown ids give not_found naming the id.",
        input_schema = input_schema::<MarkDoneArgs>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn mark_task_as_done(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.on_memory(args, |store, a: MarkDoneArgs| {
            tasks_result(tasks::mark_task_as_done(store, &a)?)
        })
        .await
    }

    /// Seed 002: save a hand-off.
    #[tool(
        name = "save_current_work_info",
        description = "Save a work hand-off for another agent or a later session: work_summarize (1-5000 chars), work_description (1-200 chars), optional sessionId whose task tree is snapshotted with it (saving again with the same sessionId replaces that entry). Returns workId (8 digits), message and ISO timestamp. Kept in an LRU of the most recently used entries (10 by default, --work-capacity) in the agent-memory database beside the index.",
        input_schema = input_schema::<SaveWorkArgs>(),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn save_current_work_info(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<Json<work::SaveWorkAnswer>, String> {
        let capacity = self.work_capacity;
        self.on_memory(args, move |store, a: SaveWorkArgs| {
            work::save_current_work_info(store, capacity, &a)
        })
        .await
        .map(Json)
    }

    /// Seed 002: list hand-offs.
    #[tool(
        name = "get_recent_works_info",
        description = "The saved work hand-offs, most recently used first: workId, work_timestamp, work_description each. Does not change the order.",
        input_schema = input_schema::<NoArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_recent_works_info(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<Json<work::RecentWorks>, String> {
        self.on_memory(args, |store, _: NoArgs| work::get_recent_works_info(store))
            .await
            .map(Json)
    }

    /// Seed 002: read a hand-off.
    #[tool(
        name = "get_work_by_id",
        description = "One saved work hand-off by its 8-digit workId: work_timestamp, work_description, work_summarize, and work_tasks (the task tree as it was when saved, if saved with a session). Makes it the most recently used.",
        input_schema = input_schema::<GetWorkArgs>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_work_by_id(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<Json<work::WorkInfo>, String> {
        self.on_memory(args, |store, a: GetWorkArgs| {
            work::get_work_by_id(store, &a)
        })
        .await
        .map(Json)
    }
    /// Seed 003: sequential thinking with code audits, persisted.
    #[tool(
        name = "sequentialthinking",
        title = "Sequential Thinking",
        description = "A detailed tool for dynamic and reflective problem-solving through thoughts, compatible with the reference sequential-thinking server: send one thought at a time (thoughtNumber, totalThoughts, nextThoughtNeeded; isRevision/revisesThought to revise, branchFromThought/branchId to branch, needsMoreThoughts). The answer has thoughtNumber, totalThoughts (raised to thoughtNumber when exceeded), nextThoughtNeeded, branches, thoughtHistoryLength and sessionId. History is kept per session in the agent-memory database beside the index and survives restarts: a plain thought 1 starts a session, later thoughts continue the latest one (or the one named by loopId). A thought containing a fenced code block, a unified diff or a ```gan-config JSON block (task, scope diff|paths|workspace, paths, threshold 0-100 default 85, maxCycles 1-10, candidates 1-5, judges [\"internal\", \"codex\"], applyFixes) is audited: the answer's gan holds overall 0-100, dimensions (correctness, completeness, maintainability, safety, tests), verdict pass|revise|reject, review {summary, inline [{path, line, comment}], citations [repo://path:start-end]}, iterations, judge_cards; revise/reject set nextThoughtNeeded to true. The audit session is branchId when given.",
        input_schema = input_schema::<ThoughtArgs>(),
        output_schema = rmcp::handler::server::common::schema_for_output::<ThinkingResponse>(),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn sequentialthinking(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        let input = thinking::parse_input(&args).map_err(|e| e.to_string())?;
        let ws = self.default_workspace().map_err(|e| e.to_string())?;
        blocking(move || {
            let response = thinking::sequential_thinking(&ws, input, FRESHNESS_WINDOW)?;
            let value =
                serde_json::to_value(&response).map_err(|e| ToolError::Internal(e.to_string()))?;
            // The struct, not the map: the reference's field order.
            let text = serde_json::to_string_pretty(&response)
                .map_err(|e| ToolError::Internal(e.to_string()))?;
            let mut result = CallToolResult::structured(value);
            // The reference answers with the JSON pretty-printed (two spaces).
            result.content = vec![ContentBlock::text(text)];
            Ok(result)
        })
        .await
    }

    // ---- Seed 004: file documentation, workspace tools; SPEC 5.6: query_index ----

    /// Seed 004: a file's structure and the enrichment prompt.
    #[tool(
        name = "file_info",
        description = "Get semantic documentation for a source file. Returns status prompt_ready with promptForHostLLM: the file's structure from the index (every function and method with signature and lines, classes with their methods, imports with the files they resolve to, the callers of each function from the reverse call index), its source (cut at 64 KiB with a note) and the task. Read it, then call report_file_info (callbackTool) with the enriched documentation. When a doc was saved before, existingDoc shows it and says whether it is stale (the file changed since). A file the index does not have yet is indexed first.",
        input_schema = input_schema::<FileInfoArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn file_info(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.on_workspace(
            args,
            |a: &FileInfoArgs| a.workspace_root.as_deref(),
            |ws, a| file_info::file_info(ws, &a.path),
        )
        .await
    }

    /// Seed 004: save a file's documentation.
    #[tool(
        name = "report_file_info",
        description = "Store the host model's documentation of a file (the callback of file_info). Every functions[].name must be a function, method or class of the file (bare or qualified name); unknown names are an invalid_argument error listing them, and nothing is saved. Renders the markdown (overview, inputs, outputs, connections, functions with purpose, implementation summary and callers, classes with methods), writes it atomically to .artifacts/src/<dir>/<file_name>.md and records it with the file's blake3 digest, so file_info can tell when it goes stale.",
        input_schema = input_schema::<ReportFileInfoArgs>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn report_file_info(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.on_workspace(
            args,
            |a: &ReportFileInfoArgs| a.workspace_root.as_deref(),
            file_info::report_file_info,
        )
        .await
    }

    /// Seed 004: a folder's structure and the enrichment prompt.
    #[tool(
        name = "folder_info",
        description = "Get semantic documentation for a folder (path relative to the workspace root, \".\" for the root). Returns status prompt_ready with promptForHostLLM: the folder's files with their role from the index (public interface, internal module, entry point, isolated, asset), symbol counts, and the imports and calls that cross the folder's boundary. Then call report_folder_info (callbackTool). existingDoc shows a README saved before and whether it is stale.",
        input_schema = input_schema::<FolderInfoArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn folder_info(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.on_workspace(
            args,
            |a: &FolderInfoArgs| a.workspace_root.as_deref(),
            |ws, a| folder_info::folder_info(ws, &a.path),
        )
        .await
    }

    /// Seed 004: save a folder's documentation.
    #[tool(
        name = "report_folder_info",
        description = "Store the host model's documentation of a folder (the callback of folder_info): overview, inputs, outputs, key_files [{name, summary}] and architecture. Key file names must be files of the folder (unknown ones are an invalid_argument error; nothing is saved). Writes the README atomically to .artifacts/src/<folder>/README.md and records it with the folder's digest.",
        input_schema = input_schema::<ReportFolderInfoArgs>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn report_folder_info(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.on_workspace(
            args,
            |a: &ReportFolderInfoArgs| a.workspace_root.as_deref(),
            folder_info::report_folder_info,
        )
        .await
    }

    /// Seed 004: read lines of a file.
    #[tool(
        name = "inspect_source",
        description = "Read a range of lines of a file in the workspace: startLine and endLine are 1-indexed and inclusive (start_line / end_line also accepted); answers the lines numbered `N | text`, at most 500 per call (truncated says when the range was cut).",
        input_schema = input_schema::<InspectArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn inspect_source(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.on_workspace(
            args,
            |a: &InspectArgs| a.workspace_root.as_deref(),
            |ws, a| inspect::inspect_source(ws.root(), a),
        )
        .await
    }

    /// Seed 004: switch the default workspace.
    #[tool(
        name = "set_workspace_root",
        description = "Switch the server to another workspace root (absolute, or relative to the current root): later calls without workspaceRoot use it and its own index, ROOT/.constellation/index.db, which is built or brought up to date now. Answers the new root, its database and index counts.",
        input_schema = input_schema::<SetWorkspaceRootArgs>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn set_workspace_root(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        let args: SetWorkspaceRootArgs = parse_args(args).map_err(|e| e.to_string())?;
        let previous = self.default_workspace().map_err(|e| e.to_string())?;
        let ws = self
            .workspace(Some(&args.path))
            .map_err(|e| e.to_string())?;
        let answer = {
            let (ws, previous) = (Arc::clone(&ws), Arc::clone(&previous));
            blocking(move || workspace_root::activate(&ws, &previous)).await?
        };
        // Switch only once the new workspace is indexed, so no call sees it half-built.
        match self.default.write() {
            Ok(mut d) => *d = ws,
            Err(_) => {
                return Err(
                    ToolError::Internal("default workspace lock poisoned".into()).to_string(),
                )
            }
        }
        to_result(&answer).map_err(|e| e.to_string())
    }

    /// Seed 004: the graph as a self-contained HTML page.
    #[tool(
        name = "open_window",
        description = "Write a self-contained HTML view of the file-level dependency graph (everything inlined, no network needed) to .artifacts/graph.html in the workspace and return its path and file:// URL. Nodes are sized by PageRank, files and imports on dependency cycles are red and the cycles are listed, a search box highlights matching files; click a node for its imports and importers, wheel to zoom, drag to pan. At most maxNodes files (default 300) of highest PageRank are drawn.",
        input_schema = input_schema::<OpenWindowArgs>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn open_window(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.on_workspace(
            args,
            |a: &OpenWindowArgs| a.workspace_root.as_deref(),
            |ws, a| {
                ws.refresh_within(FRESHNESS_WINDOW)?;
                window::open_window(ws, a)
            },
        )
        .await
    }

    /// SPEC 5.6: read-only SQL over the index.
    #[tool(
        name = "query_index",
        description = "Run one read-only SQL statement over the index and get columns and rows. Tables: files, nodes, edges, refs, index_runs, meta; views: file_imports, call_edges, symbols, file_symbol_counts, hubs, unresolved_refs. Agent memory is attached read-only as `memory`: tables task_sessions, tasks, work_info, thoughts, audit_sessions, audit_history, file_docs; views open_tasks, recent_works (every column is documented in schema/*.sql and schema/memory/*.sql). At most `limit` rows (default 1000, max 10000; truncated says when more existed), 5 s per query. Writes (INSERT, UPDATE, DELETE, DDL, ATTACH, writing PRAGMAs) are refused with read_only, a runaway query with query_timeout, bad SQL with invalid_sql.",
        input_schema = input_schema::<QueryArgs>(),
        annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn query_index(
        &self,
        Parameters(args): Parameters<JsonObject>,
    ) -> Result<CallToolResult, String> {
        self.on_workspace(
            args,
            |a: &QueryArgs| a.workspace_root.as_deref(),
            |ws, a| {
                ws.refresh_within(FRESHNESS_WINDOW)?;
                query::query_index(ws.store().path(), a)
            },
        )
        .await
    }
}

/// A serializable answer as a tool result (`structuredContent` plus the same JSON as text).
fn to_result<T: serde::Serialize>(answer: &T) -> Result<CallToolResult, ToolError> {
    serde_json::to_value(answer)
        .map(CallToolResult::structured)
        .map_err(|e| ToolError::Internal(e.to_string()))
}

impl Server {
    /// Runs a tool on the workspace its arguments address: parse the arguments, pick
    /// the workspace (`root_of`), run `run` off the async runtime.
    async fn on_workspace<A, R, F>(
        &self,
        args: JsonObject,
        root_of: fn(&A) -> Option<&str>,
        run: F,
    ) -> Result<CallToolResult, String>
    where
        A: DeserializeOwned + Send + 'static,
        R: serde::Serialize,
        F: FnOnce(&Workspace, &A) -> Result<R, ToolError> + Send + 'static,
    {
        let args: A = parse_args(args).map_err(|e| e.to_string())?;
        let ws = self.workspace(root_of(&args)).map_err(|e| e.to_string())?;
        blocking(move || to_result(&run(&ws, &args)?)).await
    }

    /// Runs a tool that works on the default workspace's agent-memory database (seed
    /// 002): parse the arguments, then `run` off the async runtime.
    async fn on_memory<A, T, F>(&self, args: JsonObject, run: F) -> Result<T, String>
    where
        A: DeserializeOwned + Send + 'static,
        T: Send + 'static,
        F: FnOnce(&crate::memory::MemoryStore, A) -> Result<T, ToolError> + Send + 'static,
    {
        let args: A = parse_args(args).map_err(|e| e.to_string())?;
        let ws = self.workspace(None).map_err(|e| e.to_string())?;
        blocking(move || run(ws.memory(), args)).await
    }

    /// Runs a drill-down tool: parse arguments, refresh the index, take the snapshot.
    async fn drill<A, F>(
        &self,
        args: JsonObject,
        root_of: fn(&A) -> Option<&str>,
        run: F,
    ) -> Result<CallToolResult, String>
    where
        A: DeserializeOwned + Send + 'static,
        F: FnOnce(
                &Workspace,
                &std::sync::Arc<crate::graph::SymbolGraph>,
                &A,
            ) -> Result<serde_json::Value, ToolError>
            + Send
            + 'static,
    {
        let args: A = parse_args(args).map_err(|e| e.to_string())?;
        let ws = self.workspace(root_of(&args)).map_err(|e| e.to_string())?;
        blocking(move || {
            ws.refresh_within(FRESHNESS_WINDOW)?;
            let g = ws.symbol_graph()?;
            Ok(CallToolResult::structured(run(&ws, &g, &args)?))
        })
        .await
    }

    /// `summarize_graph` on a workspace: refresh the index, take the snapshot, summarize.
    fn summarize(ws: &Workspace, args: &SummarizeArgs) -> Result<CallToolResult, ToolError> {
        ws.refresh_within(FRESHNESS_WINDOW)?;
        let g = ws.symbol_graph()?;
        let rendered = summarize::summarize_graph(&g, ws.root(), args)?;
        let value = serde_json::to_value(&rendered.response)
            .map_err(|e| ToolError::Internal(e.to_string()))?;
        let mut result = CallToolResult::structured(value);
        result.content = vec![ContentBlock::text(rendered.text)];
        Ok(result)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "constellation",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "Constellation indexes this workspace into SQLite. Call \
                 constellation_get_graph_summary first for the shape of the codebase.",
            )
    }
}

/// Serves MCP on stdin/stdout until the client closes the stream. The handshake is
/// answered at once; a background task brings the index up to date meanwhile (tool
/// calls wait for it through the workspace's index lock).
pub async fn serve_stdio(server: Server) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let warm = server.default_workspace()?;
    tokio::task::spawn_blocking(move || {
        if let Err(e) = warm.refresh(false, &|_| {}) {
            tracing::warn!("background index failed: {e}");
        }
    });
    let service = server.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
