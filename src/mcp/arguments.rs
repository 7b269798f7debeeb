//! Tool arguments as the server sees them: how each argument type is read from a call's
//! JSON object, which type gives its `inputSchema`, and which workspace it addresses.
//!
//! Arguments are taken as a plain JSON object and parsed here rather than by rmcp, so a
//! wrong type is a tool result starting `invalid_argument:`, not a protocol error.

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::docs::file_info::{FileInfoArgs, ReportFileInfoArgs};
use crate::docs::folder_info::{FolderInfoArgs, ReportFolderInfoArgs};
use crate::docs::inspect::InspectArgs;
use crate::memory::tasks::{MarkDoneArgs, SessionArgs, UpdateTasksArgs};
use crate::memory::thinking::{self, ThoughtArgs, ThoughtInput};
use crate::memory::work::{GetWorkArgs, SaveWorkArgs};
use crate::tools::diff_impact::DiffImpactArgs;
use crate::tools::drill::{CommunityArgs, ExpandArgs, NodeDetailsArgs, PathsArgs, TopNodesArgs};
use crate::tools::impact::ImpactArgs;
use crate::tools::query::QueryArgs;
use crate::tools::symbol_summary::SummarizeArgs;
use crate::tools::workspace_root::SetWorkspaceRootArgs;
use crate::tools::ToolError;

/// Arguments of `constellation_get_graph_summary`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphSummaryArgs {
    /// Rebuild the index from scratch.
    #[serde(default, rename = "forceRefresh")]
    pub force_refresh: bool,
    /// Default 4000.
    #[serde(default)]
    pub budget_tokens: Option<usize>,
    // Workspace root; the server's when absent (not described in the tool list:
    // every tool takes it).
    #[serde(default, rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// Arguments of a tool that takes none.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// A tool's arguments.
pub trait Args: Sized + Send + 'static {
    /// The type whose JSON schema is the tool's `inputSchema`.
    type Schema: JsonSchema + 'static;

    /// Reads the call's arguments.
    ///
    /// Errors: `invalid_argument` when they do not fit the schema.
    fn parse(args: JsonObject) -> Result<Self, ToolError>;

    /// The workspace root the call names (absolute, or relative to the default
    /// workspace's root); `None` for the default workspace.
    fn root(&self) -> Option<&str> {
        None
    }
}

/// Deserializes tool arguments, mapping failures to `invalid_argument`.
fn parse_json<T: DeserializeOwned>(args: JsonObject) -> Result<T, ToolError> {
    crate::tools::parse_arguments(serde_json::Value::Object(args))
}

/// Implements [`Args`] for serde argument types, which are their own schema: `Type`
/// works on the default workspace, `Type => |a| expr` on the root `expr` names.
macro_rules! serde_args {
    ($($ty:ty $(=> |$a:ident| $root:expr)?),* $(,)?) => {$(
        impl Args for $ty {
            type Schema = $ty;
            fn parse(args: JsonObject) -> Result<Self, ToolError> {
                parse_json(args)
            }
            $(fn root(&self) -> Option<&str> {
                let $a = self;
                $root
            })?
        }
    )*};
}

serde_args! {
    GraphSummaryArgs => |a| a.workspace_root.as_deref(),
    // the first version took the workspace as `path`; `workspaceRoot` is the later spelling.
    SummarizeArgs => |a| a.path.as_deref().or(a.workspace_root.as_deref()),
    NodeDetailsArgs => |a| a.workspace_root.as_deref(),
    PathsArgs => |a| a.workspace_root.as_deref(),
    CommunityArgs => |a| a.workspace_root.as_deref(),
    ExpandArgs => |a| a.workspace_root.as_deref(),
    TopNodesArgs => |a| a.workspace_root.as_deref(),
    ImpactArgs => |a| a.workspace_root.as_deref(),
    DiffImpactArgs => |a| a.workspace_root.as_deref(),
    FileInfoArgs => |a| a.workspace_root.as_deref(),
    ReportFileInfoArgs => |a| a.workspace_root.as_deref(),
    FolderInfoArgs => |a| a.workspace_root.as_deref(),
    ReportFolderInfoArgs => |a| a.workspace_root.as_deref(),
    InspectArgs => |a| a.workspace_root.as_deref(),
    crate::docs::window::OpenWindowArgs => |a| a.workspace_root.as_deref(),
    QueryArgs => |a| a.workspace_root.as_deref(),
    crate::tools::search::SearchArgs => |a| a.workspace_root.as_deref(),
    crate::tools::symbol_source::SourceArgs => |a| a.workspace_root.as_deref(),
    // The root to switch to is the workspace the call works on.
    SetWorkspaceRootArgs => |a| Some(a.path.as_str()),
    // Agent memory lives in the default workspace's database.
    UpdateTasksArgs,
    SessionArgs,
    MarkDoneArgs,
    SaveWorkArgs,
    GetWorkArgs,
    NoArgs,
}

/// `sequentialthinking` checks its arguments by hand (the reference server's messages
/// and its lenient booleans), so its schema type is not the parsed type.
impl Args for ThoughtInput {
    type Schema = ThoughtArgs;
    fn parse(args: JsonObject) -> Result<Self, ToolError> {
        thinking::parse_input(&args)
    }
}
