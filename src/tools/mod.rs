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
pub mod hierarchy;
pub mod impact;
pub mod members;
pub mod python_tests;
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
pub mod watch_sync;
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

/// Reads a tool's arguments from JSON (the MCP call's `arguments`, or the CLI's flags
/// gathered into JSON), so both give the same error for the same mistake.
///
/// Errors: `invalid_argument` starting with the path of the field at fault
/// (`budget_tokens: invalid type: string "x", expected a non-negative integer (usize)`,
/// `tasks[0].status: unknown variant ...`); serde's own `missing field` and `unknown
/// field` messages, which name the field and list the accepted ones, are kept as they are.
pub fn parse_arguments<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let segments: Vec<_> = e.path().iter().cloned().collect();
        let detail = plain_expectation(&e.into_inner().to_string());
        // For an unknown field the path ends with it, and the message names it already.
        let upto = if detail.starts_with("unknown field `") {
            segments.len().saturating_sub(1)
        } else {
            segments.len()
        };
        let path = path_text(&segments[..upto]);
        ToolError::InvalidArgument(if path.is_empty() {
            detail
        } else {
            format!("{path}: {detail}")
        })
    })
}

/// A field's path as serde_path_to_error writes it (`tasks[0].taskId`); empty for the
/// arguments object itself.
fn path_text(segments: &[serde_path_to_error::Segment]) -> String {
    let mut text = String::new();
    for segment in segments {
        if !text.is_empty() && !matches!(segment, serde_path_to_error::Segment::Seq { .. }) {
            text.push('.');
        }
        text.push_str(&segment.to_string());
    }
    text
}

/// serde's `expected usize` as `expected a non-negative integer (usize)`, and its map and
/// sequence as JSON's object and array: the Rust terms say little to a client writing
/// JSON.
fn plain_expectation(message: &str) -> String {
    let message = message
        .replacen("invalid type: map,", "invalid type: object,", 1)
        .replacen("invalid type: sequence,", "invalid type: array,", 1);
    if let Some(head) = message.strip_suffix("expected a sequence") {
        return format!("{head}expected an array");
    }
    if let Some(head) = message.strip_suffix("expected a map") {
        return format!("{head}expected an object");
    }
    if let Some(at) = message.rfind("expected struct ") {
        return format!("{}expected an object", &message[..at]);
    }
    const PLAIN: [(&str, &str); 10] = [
        ("usize", "a non-negative integer"),
        ("u64", "a non-negative integer"),
        ("u32", "an integer from 0 to 4294967295"),
        ("u16", "an integer from 0 to 65535"),
        ("u8", "an integer from 0 to 255"),
        ("i64", "an integer"),
        ("i32", "an integer from -2147483648 to 2147483647"),
        ("isize", "an integer"),
        ("f64", "a number"),
        ("f32", "a number"),
    ];
    for (ty, plain) in PLAIN {
        if let Some(head) = message.strip_suffix(&format!("expected {ty}")) {
            return format!("{head}expected {plain} ({ty})");
        }
    }
    message
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
    fn argument_errors_start_with_the_field() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Outer {
            n: Option<usize>,
            list: Option<Vec<Inner>>,
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Inner {
            x: f64,
        }
        let err = |v| parse_arguments::<Outer>(v).unwrap_err().to_string();
        assert_eq!(
            err(serde_json::json!({"n": "x"})),
            "invalid_argument: n: invalid type: string \"x\", expected a non-negative integer (usize)"
        );
        assert_eq!(
            err(serde_json::json!({"list": [{"x": 1.0}, {"x": "y"}]})),
            "invalid_argument: list[1].x: invalid type: string \"y\", expected a number (f64)"
        );
        assert_eq!(
            err(serde_json::json!({"list": {"x": 1}})),
            "invalid_argument: list: invalid type: object, expected an array"
        );
        assert_eq!(
            err(serde_json::json!({"list": [{"x": 1.0, "z": 2}]})),
            "invalid_argument: list[0]: unknown field `z`, expected `x`"
        );
        assert_eq!(
            err(serde_json::json!({"list": [{}]})),
            "invalid_argument: list[0]: missing field `x`"
        );
        assert_eq!(
            err(serde_json::json!({"m": 1})),
            "invalid_argument: unknown field `m`, expected `n` or `list`"
        );
    }

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
