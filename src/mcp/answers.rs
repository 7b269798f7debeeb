//! Tool answers as the server sends them: `structuredContent` with the JSON schema it
//! follows (`outputSchema` in `tools/list`), and the text content.
//!
//! The rule is the answer's JSON as `structuredContent` and the same JSON as text; the
//! answers whose text differs (what the original servers show) say so here, one impl
//! each, rather than in the tools or in copies of the call path.

use std::sync::Arc;

use rmcp::handler::server::common::schema_for_output;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde::Serialize;

use crate::docs::file_info::FileInfoResponse;
use crate::docs::folder_info::FolderInfoResponse;
use crate::docs::inspect::InspectResponse;
use crate::docs::window::OpenWindowResponse;
use crate::memory::tasks::TasksAnswer;
use crate::memory::thinking::ThinkingResponse;
use crate::memory::work::{RecentWorks, SaveWorkAnswer, WorkInfo};
use crate::tools::diff_impact::DiffImpactAnswer;
use crate::tools::file_graph_summary::SummaryResponse;
use crate::tools::impact::ImpactAnswer;
use crate::tools::query::QueryResponse;
use crate::tools::symbol_summary::{Rendered, SummarizeResponse};
use crate::tools::workspace_root::SetWorkspaceRootResponse;
use crate::tools::ToolError;

/// A tool's answer.
pub trait Answer: Send + 'static {
    /// The JSON schema of `structuredContent` (what serializing the answer writes);
    /// `None` when the shape is built at run time.
    fn output_schema() -> Option<Arc<JsonObject>>;

    /// The tool result.
    ///
    /// Errors: `internal` when the answer cannot be serialized.
    fn into_result(self) -> Result<CallToolResult, ToolError>;
}

/// `answer` as JSON.
fn to_json<T: Serialize>(answer: &T) -> Result<serde_json::Value, ToolError> {
    serde_json::to_value(answer).map_err(|e| ToolError::Internal(e.to_string()))
}

/// `answer` as `structuredContent`, with `text` as the only text content.
fn with_text<T: Serialize>(answer: &T, text: String) -> Result<CallToolResult, ToolError> {
    let mut result = CallToolResult::structured(to_json(answer)?);
    result.content = vec![ContentBlock::text(text)];
    Ok(result)
}

/// Implements [`Answer`] for typed answers sent by the rule: `structuredContent` plus
/// the same JSON (compact) as text, `outputSchema` from the type.
macro_rules! json_answers {
    ($($ty:ty),* $(,)?) => {$(
        impl Answer for $ty {
            fn output_schema() -> Option<Arc<JsonObject>> {
                Some(schema_for_output::<$ty>())
            }
            fn into_result(self) -> Result<CallToolResult, ToolError> {
                Ok(CallToolResult::structured(to_json(&self)?))
            }
        }
    )*};
}

json_answers! {
    SummaryResponse,
    FileInfoResponse,
    crate::docs::saved::SavedDoc,
    FolderInfoResponse,
    InspectResponse,
    SetWorkspaceRootResponse,
    OpenWindowResponse,
    QueryResponse,
    crate::tools::search::SearchAnswer,
    crate::tools::symbol_source::SymbolSource,
    SaveWorkAnswer,
    RecentWorks,
    WorkInfo,
    ImpactAnswer,
    DiffImpactAnswer,
    crate::tools::status::StatusAnswer,
}

/// The drill-down answers are built as JSON values (their fields depend on the
/// arguments), so they list no `outputSchema`.
impl Answer for serde_json::Value {
    fn output_schema() -> Option<Arc<JsonObject>> {
        None
    }
    fn into_result(self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::structured(self))
    }
}

/// `summarize_graph`: the text is the summary in the requested format (json, summary or
/// dot).
impl Answer for Rendered {
    fn output_schema() -> Option<Arc<JsonObject>> {
        Some(schema_for_output::<SummarizeResponse>())
    }
    fn into_result(self) -> Result<CallToolResult, ToolError> {
        with_text(&self.response, self.text)
    }
}

/// A checklist: the text is the message plus the text tree (what the original server
/// shows).
impl Answer for TasksAnswer {
    fn output_schema() -> Option<Arc<JsonObject>> {
        Some(schema_for_output::<TasksAnswer>())
    }
    fn into_result(self) -> Result<CallToolResult, ToolError> {
        let text = self.text();
        with_text(&self, text)
    }
}

/// A thought: the text is the JSON pretty-printed (two spaces) in the struct's field
/// order, as the reference sequential-thinking server answers.
impl Answer for ThinkingResponse {
    fn output_schema() -> Option<Arc<JsonObject>> {
        Some(schema_for_output::<ThinkingResponse>())
    }
    fn into_result(self) -> Result<CallToolResult, ToolError> {
        let text =
            serde_json::to_string_pretty(&self).map_err(|e| ToolError::Internal(e.to_string()))?;
        with_text(&self, text)
    }
}
