//! The tools: one function per tool, shared by the CLI and the MCP server so both give
//! the same answer. Tools call `index`, `graph`, `store` and `memory`; they know nothing
//! of MCP. The agent-memory tools (tasks, work hand-offs, sequential thinking) live in
//! `memory`, beside their database.

pub mod closest_names;
pub mod diff_impact;
pub mod drill;
pub mod error_code;
pub mod export;
pub mod file_graph_summary;
pub mod git;
pub mod hierarchy;
pub mod impact;
pub mod query;
pub mod sandbox;
pub mod search;
pub mod status;
pub mod symbol_arg;
pub mod symbol_names;
pub mod symbol_source;
pub mod symbol_summary;
pub mod test_files;
pub mod unified_diff;
pub mod watcher;
pub mod workspace;
pub mod workspace_root;

pub use error_code::ErrorCode;

use crate::index::IndexError;
use crate::store::StoreError;

/// The largest `budget_tokens` a tool honours (cl100k_base tokens): an answer stays
/// well under the 25,000 tokens clients accept from one tool result.
pub const MAX_BUDGET: usize = 20_000;

/// The `budget_tokens` of a call: `given`, else `default`.
///
/// Errors: `invalid_argument` when it is below `min` (the tool's smallest useful
/// answer) or above [`MAX_BUDGET`].
pub fn budget_tokens(given: Option<usize>, default: usize, min: usize) -> Result<usize, ToolError> {
    let budget = given.unwrap_or(default);
    if (min..=MAX_BUDGET).contains(&budget) {
        Ok(budget)
    } else {
        Err(ToolError::InvalidArgument(format!(
            "budget_tokens must be between {min} and {MAX_BUDGET}, got {budget}"
        )))
    }
}

/// A tool failure. Its text is `CODE: detail`, the code from [`ErrorCode`] (clients may
/// match on it); the detail says what went wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// An argument is malformed or out of range.
    #[error("{}: {}", ErrorCode::InvalidArgument, .0)]
    InvalidArgument(String),
    /// A glob that does not compile, an unknown language or algorithm.
    #[error("{}: {}", ErrorCode::InvalidFilter, .0)]
    InvalidFilter(String),
    /// `radius` above the documented maximum.
    #[error("{}: {}", ErrorCode::RadiusTooLarge, .0)]
    RadiusTooLarge(String),
    /// No seeds where the call needs them, or a seed that names nothing.
    #[error("{}: {}", ErrorCode::NoSeeds, .0)]
    NoSeeds(String),
    /// Even the smallest response does not fit `budget_tokens`.
    #[error("{}: {}", ErrorCode::BudgetTooSmall, .0)]
    BudgetTooSmall(String),
    /// A path, node or id that does not exist.
    #[error("{}: {}", ErrorCode::NotFound, .0)]
    NotFound(String),
    /// The index could not be built or read.
    #[error("{}: {}", ErrorCode::IndexFailed, .0)]
    Index(#[from] IndexError),
    /// The database could not be used.
    #[error("{}: {}", ErrorCode::DatabaseError, .0)]
    Store(#[from] StoreError),
    /// The agent-memory database could not be used (same code as the index's).
    #[error("{}: {}", ErrorCode::DatabaseError, .0)]
    Memory(#[from] crate::memory::MemoryError),
    /// A defect: a task panicked or was cancelled.
    #[error("{}: {}", ErrorCode::Internal, .0)]
    Internal(String),
    /// No audit judge could answer; its own text starts with its code (`judge_unavailable`,
    /// `judge_timeout`, `judge_invalid_output`, `judge_failed`).
    #[error("{0}")]
    Judge(#[from] crate::audit::codex::JudgeError),
    /// A path argument that resolves outside the workspace root (`..`, an absolute
    /// path elsewhere, a symbolic link leading out).
    #[error("{}: {}", ErrorCode::OutsideWorkspace, .0)]
    OutsideWorkspace(String),
    /// A file the index skips (binary, too large, unreadable, ignored) where a tool
    /// needs its source.
    #[error("{}: {}", ErrorCode::UnsupportedFile, .0)]
    UnsupportedFile(String),
    /// A statement given to `query_index` that would write.
    #[error("{}: {}", ErrorCode::ReadOnly, .0)]
    ReadOnly(String),
    /// A query that ran past its time limit and was interrupted.
    #[error("{}: {}", ErrorCode::QueryTimeout, .0)]
    QueryTimeout(String),
    /// SQL that does not compile (syntax, unknown table or column, several statements).
    #[error("{}: {}", ErrorCode::InvalidSql, .0)]
    InvalidSql(String),
    /// A file could not be read or written.
    #[error("{}: {}", ErrorCode::IoError, .0)]
    Io(String),
    /// A workspace root outside every root the server allows.
    #[error("{}: {}", ErrorCode::OutsideAllowedRoots, .0)]
    OutsideAllowedRoots(String),
}

impl ToolError {
    /// The error's code in the [`ErrorCode`] table.
    pub fn kind(&self) -> ErrorCode {
        match self {
            ToolError::InvalidArgument(_) => ErrorCode::InvalidArgument,
            ToolError::NotFound(_) => ErrorCode::NotFound,
            ToolError::InvalidFilter(_) => ErrorCode::InvalidFilter,
            ToolError::RadiusTooLarge(_) => ErrorCode::RadiusTooLarge,
            ToolError::NoSeeds(_) => ErrorCode::NoSeeds,
            ToolError::BudgetTooSmall(_) => ErrorCode::BudgetTooSmall,
            ToolError::Index(_) => ErrorCode::IndexFailed,
            ToolError::Store(_) | ToolError::Memory(_) => ErrorCode::DatabaseError,
            ToolError::Internal(_) => ErrorCode::Internal,
            ToolError::Judge(e) => e.kind(),
            ToolError::OutsideWorkspace(_) => ErrorCode::OutsideWorkspace,
            ToolError::UnsupportedFile(_) => ErrorCode::UnsupportedFile,
            ToolError::ReadOnly(_) => ErrorCode::ReadOnly,
            ToolError::QueryTimeout(_) => ErrorCode::QueryTimeout,
            ToolError::InvalidSql(_) => ErrorCode::InvalidSql,
            ToolError::Io(_) => ErrorCode::IoError,
            ToolError::OutsideAllowedRoots(_) => ErrorCode::OutsideAllowedRoots,
        }
    }

    /// The stable code at the start of the message, as text.
    pub fn code(&self) -> &'static str {
        self.kind().as_str()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_snake_case_and_start_the_message() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "{s} twice");
            assert!(s.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{s}");
        }
        let e = ToolError::InvalidArgument("x must be a number".into());
        assert_eq!(e.to_string(), "invalid_argument: x must be a number");
        assert_eq!(e.kind(), ErrorCode::InvalidArgument);
        let judge = ToolError::from(crate::audit::codex::JudgeError::Timeout("after 5 s".into()));
        assert_eq!(judge.to_string(), "judge_timeout: after 5 s");
        assert_eq!(judge.code(), "judge_timeout");
    }
}
