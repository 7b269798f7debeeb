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

/// Where the memory database of the index database `index_db` lives
/// ([`crate::store::database_file::memory_db_path`]): beside it,
/// `ROOT/.constellation/memory.db` for the default index, `ci.memory.db` for `--db
/// ci.db`.
pub fn db_path(index_db: &Path) -> PathBuf {
    crate::store::database_file::memory_db_path(index_db)
}

/// The memory database: a pool of WAL connections to one file.
#[derive(Clone)]
pub struct MemoryStore {
    pool: r2d2::Pool<SqliteConnectionManager>,
    path: PathBuf,
    /// Opened read-only (or empty in memory) because the file cannot be written here.
    read_only: bool,
}

impl MemoryStore {
    /// Opens (creating if needed, with its parent directory) the memory database at
    /// `path` and migrates it to [`MEMORY_SCHEMA_VERSION`]. It does not import anything
    /// from an index database: that is [`super::upgrade::import_from_index`].
    ///
    /// Errors: [`MemoryError::File`] with the store's error: `Corrupt` for a file that
    /// is not a usable SQLite database, `TooNew` for one from a newer build,
    /// `CreateDir`, or a failed migration.
    ///
    /// Where this process cannot write (a read-only mount, an unwritable directory), an
    /// existing file is opened read-only, and a missing one is replaced by an empty
    /// database in memory, read-only too: reads answer (from what was saved, or
    /// nothing), and writes fail with SQLite's read-only error, which
    /// [`MemoryError::Sqlite`] words as such. A warning says so in the log.
    pub fn open(path: &Path) -> Result<MemoryStore, MemoryError> {
        let read_only;
        let pool = match MEMORY_DB.open(path, Journal::Wal) {
            Ok(pool) => {
                // SQLite opens a file it may not write read-only without a word.
                read_only = pool.get()?.is_readonly(rusqlite::MAIN_DB)?;
                pool
            }
            Err(e) if e.is_unwritable() || e.is_disk_full() => {
                // A file a full disk left empty holds nothing to read.
                let saved = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0);
                let pool = if saved {
                    MEMORY_DB.open_read_only(path).map_err(MemoryError::File)?.0
                } else {
                    empty_read_only()?
                };
                tracing::warn!(
                    "{e}; agent memory is read-only here ({}): nothing can be saved",
                    if saved {
                        "the saved entries can be read"
                    } else {
                        "there is none to read"
                    }
                );
                read_only = true;
                pool
            }
            Err(e) => return Err(MemoryError::File(e)),
        };
        Ok(MemoryStore {
            pool,
            path: path.to_path_buf(),
            read_only,
        })
    }

    /// Whether it was opened read-only ([`MemoryStore::open`]): nothing can be saved.
    pub fn is_read_only(&self) -> bool {
        self.read_only
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

/// A pool of connections to one empty in-memory database with the current schema, each
/// with `query_only` set: agent memory where none can be created.
fn empty_read_only() -> Result<r2d2::Pool<SqliteConnectionManager>, MemoryError> {
    // r2d2_sqlite's in-memory database is shared by the pool's connections: the first
    // one creates the schema.
    let manager = SqliteConnectionManager::memory().with_init(|c| {
        let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version != MEMORY_SCHEMA_VERSION {
            let tx = c.transaction()?;
            for sql in MEMORY_DB.migrations {
                tx.execute_batch(sql)?;
            }
            tx.pragma_update(None, "user_version", MEMORY_SCHEMA_VERSION)?;
            tx.commit()?;
        }
        c.execute_batch("PRAGMA query_only = ON;")
    });
    Ok(r2d2::Pool::builder()
        .max_size(MEMORY_DB.pool_size)
        .min_idle(Some(1))
        .build(manager)?)
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
    fn memory_that_cannot_be_created_is_empty_and_read_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), "").unwrap();
        // Its directory cannot be created: a file is in the way.
        let store = MemoryStore::open(&dir.path().join("file/memory.db")).unwrap();
        assert!(store.is_read_only());
        for _ in 0..3 {
            let mut conn = store.conn().unwrap();
            let tx = conn.transaction().unwrap();
            let n: i64 = tx
                .query_row("SELECT count(*) FROM work_info", [], |r| r.get(0))
                .unwrap();
            assert_eq!(n, 0);
            tx.commit().unwrap();
        }
        let conn = store.conn().unwrap();
        let e = conn
            .execute("DELETE FROM work_info", [])
            .map_err(MemoryError::from)
            .unwrap_err()
            .to_string();
        assert!(e.contains("read-only here"), "{e}");
    }

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
