//! `query_index` and the `constellation sql` command: read-only SQL typed
//! by a person or an agent, run against the index with guards.
//!
//! The agent-memory database (tasks, work hand-offs, thoughts, audits, saved documents;
//! [`crate::memory::db_path`]) is attached read-only as schema [`MEMORY_SCHEMA`] when it
//! exists, so `memory.tasks` names its table and an unqualified `tasks` finds it too
//! (SQLite looks in `main` first, then in attached databases; the index has no table of
//! those names).
//!
//! The guards, from the outside in:
//! - the connection is opened read-only (`SQLITE_OPEN_READ_ONLY`, which the attached
//!   memory database inherits) with `PRAGMA query_only = ON`, and may attach no other
//!   database (`SQLITE_LIMIT_ATTACHED` = 0 once the memory database is attached);
//! - an authorizer allows only reads and the pragmas of [`TABLE_PRAGMAS`] and
//!   [`FACT_PRAGMAS`] (some pragmas SQLite calls read-only act on the whole process,
//!   such as `hard_heap_limit`), and a statement SQLite does not call read-only
//!   (`sqlite3_stmt_readonly`) is refused before it runs, with `read_only`; only one
//!   statement per call;
//! - a time limit, enforced by SQLite's progress handler (checked every
//!   [`PROGRESS_OPS`] virtual-machine instructions), interrupts a runaway query with
//!   `query_timeout`;
//! - a row cap: rows past it are not fetched and the answer says `truncated`; in
//!   `query_index` also a byte cap ([`MAX_ANSWER_BYTES`]) on the rows fetched, and a
//!   text cell longer than [`MAX_CELL_BYTES`] is cut, so a query of huge rows cannot
//!   exhaust the server's memory.
//!
//! This is the one place the crate runs SQL it did not write.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::types::ValueRef;
use rusqlite::Connection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ToolError;

/// Rows returned when the caller gives no `limit`.
pub const DEFAULT_ROW_LIMIT: usize = 1_000;
/// The largest `limit` accepted.
pub const MAX_ROW_LIMIT: usize = 10_000;
/// The time limit of a `query_index` call.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(5);
/// Virtual-machine instructions between two checks of the clock.
pub const PROGRESS_OPS: i32 = 10_000;
/// The schema name under which the agent-memory database is attached.
pub const MEMORY_SCHEMA: &str = "memory";
/// Default token budget (cl100k_base) of a `query_index` answer.
pub const DEFAULT_BUDGET: usize = 4_000;
pub use crate::tools::MAX_BUDGET;

/// Arguments of `query_index`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryArgs {
    /// One read-only SQL statement (SELECT, WITH, EXPLAIN, read-only PRAGMA) over the
    /// index: tables files, nodes, edges, refs, index_runs; views file_imports,
    /// call_edges, symbols, file_symbol_counts, hubs, unresolved_refs. Agent memory is
    /// attached as `memory`: tables task_sessions, tasks, work_info, thoughts,
    /// audit_sessions, audit_history, file_docs; views open_tasks, recent_works.
    pub sql: String,
    /// At most this many rows (default 1000, at most 10000).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Default 4000, at most 20000.
    #[serde(default)]
    pub budget_tokens: Option<usize>,
    /// Workspace root; the server's when absent.
    #[serde(default, rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// The answer of `query_index`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct QueryResponse {
    /// Column names, in order.
    pub columns: Vec<String>,
    /// Rows as arrays of JSON values (integers, reals, text, null; a blob becomes
    /// `"<N bytes>"`).
    pub rows: Vec<Vec<serde_json::Value>>,
    /// Rows returned.
    pub row_count: usize,
    /// True when the statement had more rows than were returned (the row limit or the
    /// token budget cut them).
    pub truncated: bool,
    /// What was cut and how to get the rest, when `truncated`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Tokens (cl100k_base) of the columns and rows returned.
    pub tokens: usize,
    /// The row limit applied.
    pub limit: usize,
    /// Wall time of the query in milliseconds.
    pub elapsed_ms: u64,
}

/// Guards for one query.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryLimits {
    /// Stop after this many rows (and report truncation); `None` for all.
    pub max_rows: Option<usize>,
    /// Interrupt the query after this long; `None` for no limit.
    pub timeout: Option<Duration>,
    /// Cut a text cell to this many bytes (at a character boundary) with `… (cut: N
    /// bytes)` after it; `None` for whole cells.
    pub max_cell_bytes: Option<usize>,
}

/// What a run produced besides its rows.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryOutcome {
    pub columns: Vec<String>,
    pub rows: usize,
    pub truncated: bool,
}

/// Opens the database at `db` for user SQL: read-only, `query_only`, with its
/// agent-memory database attached read-only as `memory` when that file exists, and no
/// further ATTACH.
///
/// Errors: `database_error` when the index file is missing, corrupt or too new, or the
/// memory file cannot be attached.
pub fn open(db: &Path) -> Result<Connection, ToolError> {
    let conn = crate::store::open_read_only(db)?;
    let memory = crate::memory::db_path(db);
    if memory.exists() {
        use crate::store::database_file::read_only_uri;
        let attach = |immutable: bool| {
            // A `file:` URI (the connection takes URIs): read-only, and immutable where
            // the write-ahead log's shared memory cannot be set up (a read-only mount).
            conn.execute(
                &format!("ATTACH DATABASE ?1 AS {MEMORY_SCHEMA}"),
                [read_only_uri(&memory, immutable)],
            )
            .and_then(|_| {
                conn.query_row(
                    &format!("SELECT count(*) FROM {MEMORY_SCHEMA}.sqlite_master"),
                    [],
                    |_| Ok(()),
                )
            })
        };
        if let Err(first) = attach(false) {
            let _ = conn.execute(&format!("DETACH DATABASE {MEMORY_SCHEMA}"), []);
            attach(true).map_err(|_| ToolError::Memory(first.into()))?;
        }
    }
    conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_ATTACHED, 0)
        .map_err(|e| ToolError::Store(e.into()))?;
    conn.authorizer(Some(authorize))
        .map_err(|e| ToolError::Store(e.into()))?;
    Ok(conn)
}

/// Pragmas user SQL may run with or without an argument (a table, an index or a
/// schema name): the schema's introspection and the checks that only read.
pub const TABLE_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "integrity_check",
    "quick_check",
];

/// Pragmas user SQL may run without a value: the database's read-only facts. With a
/// value (`PRAGMA user_version = 7`) they would set something, and are refused.
/// Pragmas in neither list are refused whatever their form: some that SQLite calls
/// read-only act on the whole process (`hard_heap_limit`, `soft_heap_limit`,
/// `temp_store_directory`, `threads`), so `sqlite3_stmt_readonly` lets them through.
pub const FACT_PRAGMAS: &[&str] = &[
    "database_list",
    "collation_list",
    "function_list",
    "module_list",
    "pragma_list",
    "compile_options",
    "user_version",
    "schema_version",
    "application_id",
    "data_version",
    "encoding",
    "page_count",
    "page_size",
    "freelist_count",
    "journal_mode",
];

/// Whether `sql` holds several statements, told when the authorizer refused one of
/// them (it meets the second before the check for several): compiled again under an
/// authorizer that denies only pragmas, then the strict one is put back. Compiling runs
/// no statement, but SQLite carries out many pragmas while compiling them
/// (`hard_heap_limit` among them), so pragmas stay denied here too.
fn several_statements(conn: &Connection, sql: &str) -> bool {
    type Hook = fn(rusqlite::hooks::AuthContext<'_>) -> rusqlite::hooks::Authorization;
    fn no_pragma(ctx: rusqlite::hooks::AuthContext<'_>) -> rusqlite::hooks::Authorization {
        match ctx.action {
            rusqlite::hooks::AuthAction::Pragma { .. } => rusqlite::hooks::Authorization::Deny,
            _ => rusqlite::hooks::Authorization::Allow,
        }
    }
    if conn.authorizer(Some(no_pragma as Hook)).is_err() {
        return false;
    }
    let several = matches!(conn.prepare(sql), Err(rusqlite::Error::MultipleStatement));
    // A connection of `open` serves one call, which fails here if this fails.
    if conn.authorizer(Some(authorize as Hook)).is_err() {
        return false;
    }
    several
}

/// The authorizer of user SQL (SQLite's `sqlite3_set_authorizer`, checked while a
/// statement is prepared, which is also when SQLite carries out most pragmas): reads, selects, functions, recursive CTEs and the
/// [`TABLE_PRAGMAS`] and [`FACT_PRAGMAS`]; everything else is denied, so a statement that would write,
/// attach, start a transaction or set a pragma fails to compile with "not authorized".
fn authorize(ctx: rusqlite::hooks::AuthContext<'_>) -> rusqlite::hooks::Authorization {
    use rusqlite::hooks::{AuthAction, Authorization};
    match ctx.action {
        AuthAction::Read { .. }
        | AuthAction::Select
        | AuthAction::Function { .. }
        | AuthAction::Recursive => Authorization::Allow,
        AuthAction::Pragma {
            pragma_name,
            pragma_value,
        } => {
            let name = pragma_name.to_ascii_lowercase();
            let allowed = TABLE_PRAGMAS.contains(&name.as_str())
                || (pragma_value.is_none() && FACT_PRAGMAS.contains(&name.as_str()));
            if allowed {
                Authorization::Allow
            } else {
                Authorization::Deny
            }
        }
        _ => Authorization::Deny,
    }
}

/// Runs one statement on `conn` (opened by [`open`]), handing each row to `on_row` as
/// JSON values, within `limits`; `on_row` answers whether to go on (`false` stops the
/// rows there, and the outcome says `truncated`).
///
/// Errors: `invalid_argument` for empty SQL; `invalid_sql` when it does not compile or
/// holds several statements; `read_only` for a statement that would write;
/// `query_timeout` when interrupted by the time limit; whatever `on_row` returns.
pub fn run(
    conn: &Connection,
    sql: &str,
    limits: QueryLimits,
    on_row: &mut dyn FnMut(Vec<serde_json::Value>) -> Result<bool, ToolError>,
) -> Result<QueryOutcome, ToolError> {
    if sql.trim().trim_end_matches(';').trim().is_empty() {
        return Err(ToolError::InvalidArgument("sql is empty".into()));
    }
    let mut stmt = conn.prepare(sql).map_err(|e| {
        if e.sqlite_error_code() == Some(rusqlite::ErrorCode::AuthorizationForStatementDenied)
            && several_statements(conn, sql)
        {
            return sql_error(rusqlite::Error::MultipleStatement, limits);
        }
        sql_error(e, limits)
    })?;
    if !stmt.readonly() {
        return Err(ToolError::ReadOnly(
            "only read-only statements are allowed (SELECT, WITH, EXPLAIN, read-only PRAGMA); \
             the index is written by `constellation index` alone"
                .into(),
        ));
    }
    let columns: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let started = Instant::now();
    if let Some(limit) = limits.timeout {
        conn.progress_handler(PROGRESS_OPS, Some(move || started.elapsed() > limit))
            .map_err(|e| ToolError::Store(e.into()))?;
    }
    let result: Result<(usize, bool), ToolError> = (|| {
        let mut rows = stmt.query([]).map_err(|e| sql_error(e, limits))?;
        let mut count = 0usize;
        let mut truncated = false;
        while let Some(row) = rows.next().map_err(|e| sql_error(e, limits))? {
            if limits.max_rows.is_some_and(|m| count >= m) {
                truncated = true;
                break;
            }
            let mut cells = Vec::with_capacity(columns.len());
            for i in 0..columns.len() {
                let v = row.get_ref(i).map_err(|e| sql_error(e, limits))?;
                cells.push(json_value(v, limits.max_cell_bytes));
            }
            let go_on = on_row(cells)?;
            count += 1;
            if !go_on {
                truncated = true;
                break;
            }
        }
        Ok((count, truncated))
    })();
    if limits.timeout.is_some() {
        let _ = conn.progress_handler(0, None::<fn() -> bool>);
    }
    let (rows, truncated) = result?;
    Ok(QueryOutcome {
        columns,
        rows,
        truncated,
    })
}

/// `query_index` on the database at `db`: the default limits of the tool, rows
/// collected.
///
/// Errors: those of [`open`] and [`run`]; `invalid_argument` for a limit of 0 or
/// above [`MAX_ROW_LIMIT`].
pub fn query_index(db: &Path, args: &QueryArgs) -> Result<QueryResponse, ToolError> {
    let limit = args.limit.unwrap_or(DEFAULT_ROW_LIMIT);
    if limit == 0 || limit > MAX_ROW_LIMIT {
        return Err(ToolError::InvalidArgument(format!(
            "limit must be between 1 and {MAX_ROW_LIMIT}, got {limit}"
        )));
    }
    let budget = crate::tools::budget_tokens(args.budget_tokens, DEFAULT_BUDGET, 100)?;
    let conn = open(db)?;
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut bytes = 0usize;
    let mut cells_cut = 0usize;
    let mut over_bytes = false;
    let outcome = run(
        &conn,
        &args.sql,
        QueryLimits {
            max_rows: Some(limit),
            timeout: Some(DEFAULT_TIME_LIMIT),
            max_cell_bytes: Some(MAX_CELL_BYTES),
        },
        &mut |r| {
            for cell in &r {
                if let serde_json::Value::String(t) = cell {
                    // Only a cut cell is longer than the cap (by its suffix).
                    if t.len() > MAX_CELL_BYTES {
                        cells_cut += 1;
                    }
                    bytes += t.len();
                } else {
                    bytes += 8;
                }
            }
            rows.push(r);
            over_bytes = bytes > MAX_ANSWER_BYTES;
            Ok(!over_bytes)
        },
    )?;
    let (kept, tokens) = fit_rows(&outcome.columns, &rows, budget);
    let cut = kept < rows.len();
    rows.truncate(kept);
    let note = if cut && kept == 0 {
        Some(format!(
            "the first row alone is over budget_tokens {budget}: select fewer or shorter \
             columns (substr(column, 1, 2000)), or a larger budget_tokens (up to {MAX_BUDGET})"
        ))
    } else if cut {
        Some(format!(
            "cut to budget_tokens {budget} after {kept} rows: select fewer columns, narrow the \
             WHERE, or page with LIMIT {kept} OFFSET {kept} (a larger budget_tokens, up to \
             {MAX_BUDGET}, returns more)"
        ))
    } else if over_bytes {
        Some(format!(
            "cut after {} rows: the rows fetched passed {MAX_ANSWER_BYTES} bytes; select \
             fewer or shorter columns (substr), or page with LIMIT/OFFSET",
            rows.len()
        ))
    } else if outcome.truncated {
        Some(format!(
            "cut to limit {limit} rows: narrow the query or page with LIMIT/OFFSET"
        ))
    } else {
        None
    };
    let note = match (note, cells_cut) {
        (note, 0) => note,
        (Some(n), k) => Some(format!(
            "{n}; {k} text cells over {MAX_CELL_BYTES} bytes were cut (substr reads the rest)"
        )),
        (None, k) => Some(format!(
            "{k} text cells over {MAX_CELL_BYTES} bytes were cut (substr reads the rest)"
        )),
    };
    Ok(QueryResponse {
        columns: outcome.columns,
        row_count: rows.len(),
        rows,
        truncated: outcome.truncated || cut,
        note,
        tokens,
        limit,
        elapsed_ms: started.elapsed().as_millis() as u64,
    })
}

/// Bytes of rows `query_index` fetches at most (the text of cells, 8 per other value):
/// far above what the largest budget returns, far below what hurts the server.
pub const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;
/// A text cell longer than this many bytes is cut in a `query_index` answer.
pub const MAX_CELL_BYTES: usize = 64 * 1024;
/// How many of `rows` fit `budget` tokens with the column names, and their tokens:
/// each row is counted as the JSON it is sent as.
fn fit_rows(columns: &[String], rows: &[Vec<serde_json::Value>], budget: usize) -> (usize, usize) {
    use super::symbol_summary::count_tokens;
    // The fixed fields (counts, flags, a note) take about this many.
    const FRAME: usize = 60;
    let mut tokens = FRAME + count_tokens(&serde_json::to_string(columns).unwrap_or_default());
    for (i, row) in rows.iter().enumerate() {
        let t = count_tokens(&serde_json::to_string(row).unwrap_or_default()) + 1;
        if tokens + t > budget {
            return (i, tokens);
        }
        tokens += t;
    }
    (rows.len(), tokens)
}

/// A cell as JSON; a text longer than `max_bytes` is cut (never copied whole).
fn json_value(v: ValueRef<'_>, max_bytes: Option<usize>) -> serde_json::Value {
    match v {
        ValueRef::Null => serde_json::Value::Null,
        ValueRef::Integer(n) => n.into(),
        ValueRef::Real(f) => f.into(),
        ValueRef::Text(t) => match max_bytes {
            Some(max) if t.len() > max => {
                // Back to the start of a UTF-8 sequence, so none is cut in the middle.
                let mut end = max;
                while end > 0 && t[end] & 0xC0 == 0x80 {
                    end -= 1;
                }
                let mut text = String::from_utf8_lossy(&t[..end]).into_owned();
                text.push_str(&format!("… (cut: {} bytes)", t.len()));
                text.into()
            }
            _ => String::from_utf8_lossy(t).into_owned().into(),
        },
        ValueRef::Blob(b) => format!("<{} bytes>", b.len()).into(),
    }
}

/// Maps a SQLite error met while preparing or stepping to a tool error.
fn sql_error(e: rusqlite::Error, limits: QueryLimits) -> ToolError {
    use rusqlite::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::OperationInterrupted) => ToolError::QueryTimeout(format!(
            "the query ran longer than {:.1} s and was interrupted; narrow it (WHERE, LIMIT) or \
             use `constellation sql` on the command line, which has no time limit",
            limits.timeout.unwrap_or_default().as_secs_f64()
        )),
        Some(ErrorCode::ReadOnly) => ToolError::ReadOnly(format!("{e}")),
        Some(ErrorCode::AuthorizationForStatementDenied) => ToolError::ReadOnly(format!(
            "{e}: only reads are allowed (SELECT, WITH, EXPLAIN) and the pragmas that read \
             the schema or the database's facts without setting anything: {}, and without a \
             value {}",
            TABLE_PRAGMAS.join(", "),
            FACT_PRAGMAS.join(", ")
        )),
        _ => match e {
            rusqlite::Error::MultipleStatement => ToolError::InvalidSql(
                "several statements given; send one statement per call".into(),
            ),
            rusqlite::Error::SqliteFailure(_, Some(msg))
                if msg.contains("too many attached databases") =>
            {
                ToolError::ReadOnly(
                    "ATTACH is not allowed: only the index and its agent memory (attached as `memory`) can be queried"
                        .into(),
                )
            }
            other => ToolError::InvalidSql(other.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("i.db");
        crate::store::Store::open(&path).unwrap();
        (dir, path)
    }

    fn q(db: &Path, sql: &str) -> Result<QueryResponse, ToolError> {
        query_index(
            db,
            &QueryArgs {
                budget_tokens: None,
                sql: sql.into(),
                limit: None,
                workspace_root: None,
            },
        )
    }

    #[test]
    fn selects_answer_columns_and_rows() {
        let (_d, path) = db();
        let r = q(
            &path,
            "SELECT key, CAST(value AS INTEGER) AS g, NULL AS n, 1.5 AS x FROM meta WHERE key = 'generation'",
        )
        .unwrap();
        assert_eq!(r.columns, vec!["key", "g", "n", "x"]);
        assert_eq!(
            r.rows,
            vec![vec![
                serde_json::json!("generation"),
                serde_json::json!(0),
                serde_json::Value::Null,
                serde_json::json!(1.5)
            ]]
        );
        assert!(!r.truncated);
    }

    #[test]
    fn row_cap_truncates() {
        let (_d, path) = db();
        let r = query_index(
            &path,
            &QueryArgs {
                budget_tokens: None,
                sql: "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50) SELECT i FROM c".into(),
                limit: Some(7),
                workspace_root: None,
            },
        )
        .unwrap();
        assert_eq!(r.row_count, 7);
        assert!(r.truncated);
    }

    /// 200 rows of 40 words each are about 10,000 tokens: the default budget of 4,000
    /// keeps the rows that fit, says so and how to page on; a bad budget is refused.
    #[test]
    fn rows_are_cut_to_the_token_budget() {
        let (_d, path) = db();
        let sql = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200) \
                   SELECT i, printf('%.*c', 200, 'a') || ' ' || replace(hex(zeroblob(40)), '00', 'word ') AS t FROM c";
        let args = |budget: Option<usize>| QueryArgs {
            budget_tokens: budget,
            sql: sql.into(),
            limit: None,
            workspace_root: None,
        };
        let r = query_index(&path, &args(None)).unwrap();
        assert!(r.truncated);
        assert!(r.row_count > 5 && r.row_count < 200, "{}", r.row_count);
        assert!(r.tokens <= DEFAULT_BUDGET, "{}", r.tokens);
        let rendered = serde_json::to_string(&r).unwrap();
        assert!(
            crate::tools::symbol_summary::count_tokens(&rendered) <= DEFAULT_BUDGET,
            "the whole answer fits"
        );
        let note = r.note.unwrap();
        assert!(note.contains(&format!("OFFSET {}", r.row_count)), "{note}");
        let all = query_index(&path, &args(Some(MAX_BUDGET))).unwrap();
        assert!(!all.truncated && all.row_count == 200 && all.note.is_none());
        for bad in [0, 99, MAX_BUDGET + 1] {
            let e = query_index(&path, &args(Some(bad))).unwrap_err();
            assert_eq!(e.code(), "invalid_argument", "{bad}");
        }
    }

    #[test]
    fn writes_and_escapes_are_refused() {
        let (dir, path) = db();
        for sql in [
            "DELETE FROM files",
            "INSERT INTO meta (key, value) VALUES ('x', 'y')",
            "DROP TABLE files",
            "CREATE TABLE t (x)",
            "UPDATE meta SET value = '9'",
            "PRAGMA user_version = 7",
            "VACUUM",
        ] {
            let e = q(&path, sql).unwrap_err();
            assert_eq!(e.code(), "read_only", "{sql}: {e}");
        }
        let other = dir.path().join("other.db");
        let e = q(
            &path,
            &format!("ATTACH DATABASE '{}' AS o", other.display()),
        )
        .unwrap_err();
        assert_eq!(e.code(), "read_only", "{e}");
        assert!(!other.exists());
        let e = q(&path, "SELECT 1; DELETE FROM files").unwrap_err();
        assert_eq!(e.code(), "invalid_sql", "{e}");
        let e = q(&path, "SELECT 1; SELECT 2").unwrap_err();
        assert_eq!(e.code(), "invalid_sql", "{e}");
        assert_eq!(q(&path, "SELEC 1").unwrap_err().code(), "invalid_sql");
        assert_eq!(q(&path, "  ").unwrap_err().code(), "invalid_argument");
        let g = q(&path, "SELECT value FROM meta").unwrap();
        assert_eq!(g.rows[0][0], serde_json::json!("0"));
    }

    #[test]
    fn runaway_query_is_interrupted() {
        let (_d, path) = db();
        let conn = open(&path).unwrap();
        let e = run(
            &conn,
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(*) FROM c",
            QueryLimits {
                max_rows: Some(10),
                timeout: Some(Duration::from_millis(200)),
                max_cell_bytes: None,
            },
            &mut |_| Ok(true),
        )
        .unwrap_err();
        assert_eq!(e.code(), "query_timeout", "{e}");
        // The handler is removed afterwards: the connection works again.
        let out = run(&conn, "SELECT 1", QueryLimits::default(), &mut |_| Ok(true)).unwrap();
        assert_eq!(out.rows, 1);
    }

    #[test]
    fn pragmas_that_set_or_touch_the_process_are_refused_and_reads_allowed() {
        let (_d, path) = db();
        for sql in [
            "PRAGMA hard_heap_limit = 1000",
            "PRAGMA soft_heap_limit = 1000",
            "PRAGMA temp_store_directory = '/tmp'",
            "PRAGMA threads = 4",
            "PRAGMA mmap_size = 1",
            "PRAGMA cache_size = 1",
            "PRAGMA query_only = 0",
            "PRAGMA writable_schema = 1",
            "PRAGMA journal_mode = DELETE",
            "PRAGMA user_version = 7",
            "PRAGMA hard_heap_limit",
            "SELECT * FROM pragma_hard_heap_limit",
            "BEGIN",
            "SAVEPOINT a",
            "ANALYZE",
            "REINDEX",
        ] {
            let e = q(&path, sql).unwrap_err();
            assert_eq!(e.code(), "read_only", "{sql}: {e}");
        }
        // SQLite still works for everyone afterwards (no heap limit was set: SQLite
        // carries out such pragmas while compiling them, so they must be refused then).
        for sql in [
            "SELECT length(printf('%.*c', 1000000, 'a'))",
            "PRAGMA table_info(files)",
            "PRAGMA index_list(files)",
            "SELECT name FROM pragma_table_info('nodes')",
            "PRAGMA user_version",
            "PRAGMA quick_check",
            "PRAGMA page_count",
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5) SELECT i FROM c",
        ] {
            let r = q(&path, sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
            assert!(r.row_count > 0, "{sql}");
        }
    }

    #[test]
    fn huge_rows_are_cut_by_bytes_and_the_answer_says_so() {
        let (_d, path) = db();
        let sql =
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000) \
                   SELECT printf('%.*c', 1000000, 'a') AS big FROM c";
        let r = query_index(
            &path,
            &QueryArgs {
                sql: sql.into(),
                limit: Some(10_000),
                budget_tokens: Some(MAX_BUDGET),
                workspace_root: None,
            },
        )
        .unwrap();
        assert!(r.truncated);
        assert!(r.tokens <= MAX_BUDGET);
        let note = r.note.unwrap();
        assert!(
            note.contains("text cells over 65536 bytes were cut"),
            "{note}"
        );
    }

    #[test]
    fn a_long_cell_is_cut_at_a_character_boundary_and_says_how_long_it_was() {
        let (_d, path) = db();
        let conn = open(&path).unwrap();
        let mut cells = Vec::new();
        let limits = QueryLimits {
            max_cell_bytes: Some(5),
            ..QueryLimits::default()
        };
        // "héllo" is 6 bytes: the cut at 5 falls inside no character; "wörld" has its
        // two-byte ö at bytes 1-2, so a cut at 2 goes back to 1.
        for (sql, max, want) in [
            ("SELECT 'héllo wörld'", 5, "héll… (cut: 13 bytes)"),
            ("SELECT 'wörld'", 2, "w… (cut: 6 bytes)"),
            ("SELECT 'short'", 5, "short"),
        ] {
            cells.clear();
            let limits = QueryLimits {
                max_cell_bytes: Some(max),
                ..limits
            };
            run(&conn, sql, limits, &mut |r| {
                cells.extend(r);
                Ok(true)
            })
            .unwrap();
            assert_eq!(cells, vec![serde_json::json!(want)], "{sql}");
        }
    }
}
