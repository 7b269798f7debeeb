//! The tools: one function per tool, shared by the CLI and the MCP server so both give
//! the same answer. Tools call `index`, `graph` and `store`; they know nothing of MCP.

pub mod audit;
pub mod docs;
pub mod drill;
pub mod export;
pub mod file_info;
pub mod folder_info;
pub mod git;
pub mod inspect;
pub mod paths;
pub mod query;
pub mod summarize;
pub mod summary;
pub mod tasks;
pub mod thinking;
pub mod window;
pub mod work;
pub mod workspace;
pub mod workspace_root;

use crate::index::IndexError;
use crate::store::StoreError;

/// A tool failure. Its text starts with a stable code (`invalid_argument: ...`) that
/// clients may match on; the rest says what went wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// An argument is malformed or out of range.
    #[error("invalid_argument: {0}")]
    InvalidArgument(String),
    /// A glob that does not compile, an unknown language or algorithm.
    #[error("invalid_filter: {0}")]
    InvalidFilter(String),
    /// `radius` above the documented maximum.
    #[error("radius_too_large: {0}")]
    RadiusTooLarge(String),
    /// No seeds where the call needs them, or a seed that names nothing.
    #[error("no_seeds: {0}")]
    NoSeeds(String),
    /// Even the smallest response does not fit `budget_tokens`.
    #[error("budget_too_small: {0}")]
    BudgetTooSmall(String),
    /// A path, node or id that does not exist.
    #[error("not_found: {0}")]
    NotFound(String),
    /// The index could not be built or read.
    #[error("index_failed: {0}")]
    Index(#[from] IndexError),
    /// The database could not be used.
    #[error("database_error: {0}")]
    Store(#[from] StoreError),
    /// A defect: a task panicked or was cancelled.
    #[error("internal: {0}")]
    Internal(String),
    /// No audit judge could answer (`judge_unavailable`, `judge_timeout`,
    /// `judge_invalid_output`, `judge_failed`).
    #[error("{0}")]
    Judge(#[from] audit::codex::JudgeError),
    /// A path argument that resolves outside the workspace root (`..`, an absolute
    /// path elsewhere, a symbolic link leading out).
    #[error("outside_workspace: {0}")]
    OutsideWorkspace(String),
    /// A file the index skips (binary, too large, unreadable, ignored) where a tool
    /// needs its source.
    #[error("unsupported_file: {0}")]
    UnsupportedFile(String),
    /// A statement given to `query_index` that would write.
    #[error("read_only: {0}")]
    ReadOnly(String),
    /// A query that ran past its time limit and was interrupted.
    #[error("query_timeout: {0}")]
    QueryTimeout(String),
    /// SQL that does not compile (syntax, unknown table or column, several statements).
    #[error("invalid_sql: {0}")]
    InvalidSql(String),
    /// A file could not be read or written.
    #[error("io_error: {0}")]
    Io(String),
}

impl ToolError {
    /// The stable code at the start of the message.
    pub fn code(&self) -> &'static str {
        match self {
            ToolError::InvalidArgument(_) => "invalid_argument",
            ToolError::NotFound(_) => "not_found",
            ToolError::InvalidFilter(_) => "invalid_filter",
            ToolError::RadiusTooLarge(_) => "radius_too_large",
            ToolError::NoSeeds(_) => "no_seeds",
            ToolError::BudgetTooSmall(_) => "budget_too_small",
            ToolError::Index(_) => "index_failed",
            ToolError::Store(_) => "database_error",
            ToolError::Internal(_) => "internal",
            ToolError::Judge(e) => e.code(),
            ToolError::OutsideWorkspace(_) => "outside_workspace",
            ToolError::UnsupportedFile(_) => "unsupported_file",
            ToolError::ReadOnly(_) => "read_only",
            ToolError::QueryTimeout(_) => "query_timeout",
            ToolError::InvalidSql(_) => "invalid_sql",
            ToolError::Io(_) => "io_error",
        }
    }
}

/// Checks a `min_confidence` argument: a number from 0 to 1; absent, the default
/// [`crate::graph::symbol_graph::DEFAULT_MIN_CONFIDENCE`] (0.97).
///
/// Errors: `invalid_argument` for a value outside 0-1 or not a number.
pub fn min_confidence(arg: Option<f64>) -> Result<f64, ToolError> {
    match arg {
        None => Ok(crate::graph::symbol_graph::DEFAULT_MIN_CONFIDENCE),
        Some(v) if (0.0..=1.0).contains(&v) => Ok(v),
        Some(v) => Err(ToolError::InvalidArgument(format!(
            "min_confidence {v} is outside 0-1; 0.97 (the default) keeps the edges of rules measured at 97% precision or better, 0 keeps every resolved edge"
        ))),
    }
}
