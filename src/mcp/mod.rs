//! The MCP server (rmcp, stdio): argument structs with their JSON schemas, routing to
//! `tools`, and error mapping. No logic of its own.
//!
//! Every tool takes its arguments as a JSON object and deserializes them itself, so a
//! wrong type becomes a tool result with `isError: true` and a text starting with
//! `invalid_argument:` (not a protocol error). Results are `structuredContent` plus the
//! same JSON as text. Blocking work (SQLite, parsing) runs on `spawn_blocking`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{Implementation, JsonObject, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::index::IndexOptions;
use crate::tools::summary::{self, SummaryResponse};
use crate::tools::workspace::Workspace;
use crate::tools::ToolError;

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
#[derive(Clone)]
pub struct Server {
    default: Arc<Workspace>,
    options: IndexOptions,
    others: Arc<Mutex<HashMap<PathBuf, Arc<Workspace>>>>,
    tool_router: ToolRouter<Self>,
}

impl Server {
    /// A server over `ws`; `options` are used for workspaces opened later.
    pub fn new(ws: Arc<Workspace>, options: IndexOptions) -> Server {
        Server {
            default: ws,
            options,
            others: Arc::new(Mutex::new(HashMap::new())),
            tool_router: Self::tool_router(),
        }
    }

    /// The workspace a call addresses: the default one, or `root` (opened once).
    fn workspace(&self, root: Option<&str>) -> Result<Arc<Workspace>, ToolError> {
        let Some(root) = root else {
            return Ok(Arc::clone(&self.default));
        };
        let canonical = Path::new(root)
            .canonicalize()
            .map_err(|e| ToolError::NotFound(format!("workspaceRoot {root}: {e}")))?;
        if canonical == self.default.root() {
            return Ok(Arc::clone(&self.default));
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
    let warm = Arc::clone(&server.default);
    tokio::task::spawn_blocking(move || {
        if let Err(e) = warm.refresh(false, &|_| {}) {
            tracing::warn!("background index failed: {e}");
        }
    });
    let service = server.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
