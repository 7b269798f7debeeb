//! Agent memory: what agents write and read back across sessions, kept in its own
//! SQLite database beside the index (`memory.db`, see [`db_path`]).
//!
//! - checklists (`update_tasks`, `get_all_tasks`, `mark_task_as_done`: [`tasks`]) and
//!   work hand-offs (`save_current_work_info`, `get_recent_works_info`,
//!   `get_work_by_id`: [`work`]), over [`work_tx`];
//! - sequential thinking with its audit sessions (`sequentialthinking`: [`thinking`],
//!   which calls the auditor in `tools::audit`), over [`thought_rows`];
//! - the documents agents save for files and folders (`file_docs`, written by
//!   `report_file_info` / `report_folder_info` through `tools::docs`), over [`doc_rows`].
//!
//! Why a database of its own: an index run is one write transaction over the index
//! database for the whole run (seconds to minutes on a large tree), and a write to the
//! same file waits for it. Memory writes go to another file, so they wait only for each
//! other (milliseconds). [`db`] opens that file and applies `schema/memory/*.sql`;
//! [`upgrade`] copies the rows an older build kept in the index database, once.
//!
//! This module never writes to the index database: it reads the old tables there once,
//! and asks `store` to drop them ([`crate::store::Store::drop_legacy_memory`]). It knows
//! nothing of MCP; the answers it builds are the tools' (shared by CLI and server).

pub mod db;
pub mod doc_rows;
pub mod tasks;
pub mod thinking;
pub mod thought_rows;
pub mod upgrade;
pub mod work;
pub mod work_tx;

pub use db::{current_schema, db_path, MemoryStore, MEMORY_SCHEMA_VERSION};

/// Errors of the memory database.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// The memory database file could not be opened or migrated (corrupt, from a newer
    /// build, its directory not creatable): the storage layer's error for that file.
    #[error("memory database: {0}")]
    File(crate::store::StoreError),
    /// A statement failed (`database is locked` after the 10 s busy timeout included; a
    /// write to a memory database opened read-only is worded as such).
    #[error("memory database: {}", sqlite_text(.0))]
    Sqlite(#[from] rusqlite::Error),
    /// No connection could be taken from the pool.
    #[error("memory database connection pool: {0}")]
    Pool(#[from] r2d2::Error),
    /// The index database could not be read for the one-time import of older rows.
    #[error("reading the agent memory an older build kept in the index database: {0}")]
    Index(#[from] crate::store::StoreError),
}

/// The text of a statement's error; a write refused because the memory database is
/// read-only here says what to do.
fn sqlite_text(e: &rusqlite::Error) -> String {
    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly) {
        return "it is read-only here (its file or directory cannot be written), so \
                nothing can be saved; pass --db FILE (or set CONSTELLATION_DB) to keep the \
                index and agent memory in a writable place"
            .to_string();
    }
    e.to_string()
}

impl MemoryError {
    /// True when the memory file itself is unusable (corrupt, or not SQLite), so a
    /// caller may move it aside and start a fresh one.
    pub fn is_corrupt(&self) -> bool {
        matches!(self, MemoryError::File(e) if e.is_corrupt())
    }
}
