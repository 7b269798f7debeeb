//! The memory database file: where it lives and its migrations
//! (`schema/memory/NNN_*.sql`, version in `PRAGMA user_version`); it is opened and
//! migrated like the index database ([`crate::store::database_file`]).

use std::path::{Path, PathBuf};

use r2d2_sqlite::SqliteConnectionManager;

use super::MemoryError;
use crate::store::database_file::{DatabaseFile, Journal};

/// The memory database: its migrations, in order (append only), and a pool of at most
/// 4 connections (its writes take milliseconds).
const MEMORY_DB: DatabaseFile = DatabaseFile {
    migrations: &[
        include_str!("../../schema/memory/001_work.sql"),
        include_str!("../../schema/memory/002_thinking.sql"),
        include_str!("../../schema/memory/003_file_docs.sql"),
    ],
    pool_size: 4,
};

/// The schema version of the memory database this build writes.
pub const MEMORY_SCHEMA_VERSION: i64 = MEMORY_DB.version();

/// A pooled connection to the memory database.
pub type MemoryConn = r2d2::PooledConnection<SqliteConnectionManager>;

/// Where the memory database of the index database `index_db` lives: beside it, in the
/// same directory. The default index `ROOT/.constellation/index.db` has
/// `ROOT/.constellation/memory.db`; any other name gets `.memory` before its extension
/// (`--db ci.db` → `ci.memory.db`, `--db idx` → `idx.memory`), so two index files in one
/// directory never share their memory.
pub fn db_path(index_db: &Path) -> PathBuf {
    let name = index_db
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = if name == "index.db" {
        "memory.db".to_string()
    } else {
        match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => format!("{stem}.memory.{ext}"),
            _ => format!("{name}.memory"),
        }
    };
    index_db.with_file_name(file)
}

/// The memory database: a pool of WAL connections to one file.
#[derive(Clone)]
pub struct MemoryStore {
    pool: r2d2::Pool<SqliteConnectionManager>,
    path: PathBuf,
}

impl MemoryStore {
    /// Opens (creating if needed, with its parent directory) the memory database at
    /// `path` and migrates it to [`MEMORY_SCHEMA_VERSION`]. It does not import anything
    /// from an index database: that is [`super::upgrade::import_from_index`].
    ///
    /// Errors: [`MemoryError::File`] with the store's error: `Corrupt` for a file that
    /// is not a usable SQLite database, `TooNew` for one from a newer build,
    /// `CreateDir`, or a failed migration.
    pub fn open(path: &Path) -> Result<MemoryStore, MemoryError> {
        Ok(MemoryStore {
            pool: MEMORY_DB
                .open(path, Journal::Wal)
                .map_err(MemoryError::File)?,
            path: path.to_path_buf(),
        })
    }

    /// Where the memory database lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A connection from the pool (read-write).
    pub fn conn(&self) -> Result<MemoryConn, MemoryError> {
        Ok(self.pool.get()?)
    }
}

/// The current schema of the agent-memory database as one SQL text, rendered like the
/// index's ([`crate::store::render_schema`]) after all memory migrations ran on an
/// empty database.
///
/// Errors: [`MemoryError`] if the migrations fail in memory (a defect of this build).
pub fn current_schema() -> Result<String, MemoryError> {
    let title = format!(
        "The agent-memory database (memory.db), schema version {MEMORY_SCHEMA_VERSION}: \
         schema/memory/001..{MEMORY_SCHEMA_VERSION:03}."
    );
    MEMORY_DB.current_schema(&title).map_err(MemoryError::File)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    #[test]
    fn memory_sits_beside_the_index() {
        let p = |s: &str| db_path(Path::new(s));
        assert_eq!(
            p("/w/.constellation/index.db"),
            Path::new("/w/.constellation/memory.db")
        );
        assert_eq!(p("/tmp/t.db"), Path::new("/tmp/t.memory.db"));
        assert_eq!(p("ci.index.sqlite"), Path::new("ci.index.memory.sqlite"));
        assert_eq!(p("idx"), Path::new("idx.memory"));
        assert_eq!(p(".hidden"), Path::new(".hidden.memory"));
    }

    #[test]
    fn a_newer_memory_database_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.db");
        MemoryStore::open(&path).unwrap();
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA user_version = 99")
            .unwrap();
        match MemoryStore::open(&path) {
            Err(MemoryError::File(crate::store::StoreError::TooNew { found: 99, .. })) => {}
            Err(e) => panic!("unexpected error {e}"),
            Ok(_) => panic!("a newer memory database was opened"),
        }
    }
}
