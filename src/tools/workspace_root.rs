//! `set_workspace_root`: the answer the server gives after switching its
//! default workspace. The switch itself is server state and lives in `mcp`; this module
//! only brings the new workspace's index up to date and describes it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tools::workspace::Workspace;
use crate::tools::ToolError;

/// Arguments of `set_workspace_root`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetWorkspaceRootArgs {
    /// The new workspace root: absolute, or relative to the current one. Its index is
    /// `ROOT/.constellation/index.db` (created and built if missing).
    pub path: String,
}

/// The answer of `set_workspace_root`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SetWorkspaceRootResponse {
    /// The canonical root now in use.
    pub workspace_root: String,
    /// Its index database.
    pub database: String,
    /// The root in use before the call.
    pub previous_workspace_root: String,
    /// Files in the index after bringing it up to date.
    pub files_seen: usize,
    /// Files parsed by that run (0 when the index already matched the disk).
    pub files_parsed: usize,
    /// Nodes and edges in the index.
    pub nodes: i64,
    pub edges: i64,
    /// Milliseconds spent indexing.
    pub index_ms: u64,
}

/// Brings `ws`'s index up to date (incrementally; a new database is built from
/// scratch) and describes it.
///
/// Errors: `index_failed`, `database_error`.
pub fn activate(
    ws: &Workspace,
    previous: &Workspace,
) -> Result<SetWorkspaceRootResponse, ToolError> {
    let report = ws.refresh(false, &|_| {})?;
    Ok(SetWorkspaceRootResponse {
        workspace_root: ws.root().display().to_string(),
        database: ws.store().path().display().to_string(),
        previous_workspace_root: previous.root().display().to_string(),
        files_seen: report.files_seen,
        files_parsed: report.files_parsed,
        nodes: report.nodes,
        edges: report.edges,
        index_ms: report.duration_ms,
    })
}
