//! The table of stable error codes (a leaf file: every error type of the tool layer —
//! `ToolError`, the audit's `JudgeError` — takes its code from here).

/// Every stable error code a tool answer can start with: the one table the MCP results,
/// the CLI's error messages and the audit judges take their codes from.
///
/// Clients match on these strings (`isError: true` results read `CODE: what went wrong`),
/// so a published code never changes its spelling; a new failure gets a new variant here
/// and a row in ARCHITECTURE.md's error list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `invalid_argument`: an argument is malformed, of the wrong type or out of range.
    InvalidArgument,
    /// `invalid_filter`: a glob that does not compile, an unknown language or algorithm.
    InvalidFilter,
    /// `radius_too_large`: `radius` above the documented maximum.
    RadiusTooLarge,
    /// `no_seeds`: no seeds where the call needs them, or a seed that names nothing.
    NoSeeds,
    /// `budget_too_small`: even the smallest response does not fit `budget_tokens`.
    BudgetTooSmall,
    /// `not_found`: a path, node, task or id that does not exist.
    NotFound,
    /// `index_failed`: the index could not be built or read.
    IndexFailed,
    /// `database_error`: the database could not be used.
    DatabaseError,
    /// `internal`: a defect (a task panicked or was cancelled, a lock was poisoned).
    Internal,
    /// `outside_workspace`: a path that resolves outside the workspace root.
    OutsideWorkspace,
    /// `unsupported_file`: a file the index skips where a tool needs its source.
    UnsupportedFile,
    /// `read_only`: a statement given to `query_index` that would write.
    ReadOnly,
    /// `query_timeout`: a query that ran past its time limit and was interrupted.
    QueryTimeout,
    /// `invalid_sql`: SQL that does not compile.
    InvalidSql,
    /// `io_error`: a file could not be read or written.
    IoError,
    /// `judge_unavailable`: an audit judge's program cannot be found or started.
    JudgeUnavailable,
    /// `judge_timeout`: an audit judge did not answer in time (it was killed).
    JudgeTimeout,
    /// `judge_invalid_output`: an audit judge answered, but no review could be read.
    JudgeInvalidOutput,
    /// `judge_failed`: an audit judge exited with an error.
    JudgeFailed,
    /// `outside_allowed_roots`: a workspace root the server was not started with
    /// (`serve ROOT --allow-root DIR`, or the client's MCP roots).
    OutsideAllowedRoots,
}

impl ErrorCode {
    /// Every code, in the order of the table above.
    pub const ALL: [ErrorCode; 20] = [
        ErrorCode::InvalidArgument,
        ErrorCode::InvalidFilter,
        ErrorCode::RadiusTooLarge,
        ErrorCode::NoSeeds,
        ErrorCode::BudgetTooSmall,
        ErrorCode::NotFound,
        ErrorCode::IndexFailed,
        ErrorCode::DatabaseError,
        ErrorCode::Internal,
        ErrorCode::OutsideWorkspace,
        ErrorCode::UnsupportedFile,
        ErrorCode::ReadOnly,
        ErrorCode::QueryTimeout,
        ErrorCode::InvalidSql,
        ErrorCode::IoError,
        ErrorCode::JudgeUnavailable,
        ErrorCode::JudgeTimeout,
        ErrorCode::JudgeInvalidOutput,
        ErrorCode::JudgeFailed,
        ErrorCode::OutsideAllowedRoots,
    ];

    /// The code as clients see it (snake_case).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::InvalidFilter => "invalid_filter",
            ErrorCode::RadiusTooLarge => "radius_too_large",
            ErrorCode::NoSeeds => "no_seeds",
            ErrorCode::BudgetTooSmall => "budget_too_small",
            ErrorCode::NotFound => "not_found",
            ErrorCode::IndexFailed => "index_failed",
            ErrorCode::DatabaseError => "database_error",
            ErrorCode::Internal => "internal",
            ErrorCode::OutsideWorkspace => "outside_workspace",
            ErrorCode::UnsupportedFile => "unsupported_file",
            ErrorCode::ReadOnly => "read_only",
            ErrorCode::QueryTimeout => "query_timeout",
            ErrorCode::InvalidSql => "invalid_sql",
            ErrorCode::IoError => "io_error",
            ErrorCode::JudgeUnavailable => "judge_unavailable",
            ErrorCode::JudgeTimeout => "judge_timeout",
            ErrorCode::JudgeInvalidOutput => "judge_invalid_output",
            ErrorCode::JudgeFailed => "judge_failed",
            ErrorCode::OutsideAllowedRoots => "outside_allowed_roots",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
