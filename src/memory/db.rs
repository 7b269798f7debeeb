//! The memory database file: where it lives, its connection pool, its migrations
//! (`schema/memory/NNN_*.sql`, version in `PRAGMA user_version`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::Connection;
use rusqlite_migration::{Migrations, M};

use super::MemoryError;

/// The migrations of the memory database, in order. Append only.
const MIGRATIONS: &[&str] = &[
    include_str!("../../schema/memory/001_work.sql"),
    include_str!("../../schema/memory/002_thinking.sql"),
    include_str!("../../schema/memory/003_file_docs.sql"),
];

/// The schema version of the memory database this build writes.
pub const MEMORY_SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

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

/// Per-connection pragmas: WAL, a 10 s busy timeout (only other memory writes, each a
/// few milliseconds, can hold the lock), foreign keys on.
fn configure(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         PRAGMA synchronous = NORMAL;
         PRAGMA foreign_keys = ON;
         PRAGMA temp_store = MEMORY;",
    )
}

/// Classifies a rusqlite error met while opening `path`.
fn classify(path: &Path, err: rusqlite::Error) -> MemoryError {
    use rusqlite::ErrorCode;
    match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => MemoryError::Corrupt {
            path: path.to_path_buf(),
            message: err.to_string(),
        },
        _ => MemoryError::Sqlite(err),
    }
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
    /// Errors: [`MemoryError::Corrupt`] for a file that is not a usable SQLite database,
    /// [`MemoryError::TooNew`] for one from a newer build, [`MemoryError::CreateDir`].
    pub fn open(path: &Path) -> Result<MemoryStore, MemoryError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| MemoryError::CreateDir {
                path: path.to_path_buf(),
                source,
            })?;
        }
        {
            let mut conn = Connection::open(path).map_err(|e| classify(path, e))?;
            configure(&mut conn).map_err(|e| classify(path, e))?;
            migrate(&mut conn, path)?;
        }
        let manager = SqliteConnectionManager::file(path).with_init(configure);
        let pool = r2d2::Pool::builder()
            .max_size(4)
            .min_idle(Some(1))
            .build(manager)?;
        Ok(MemoryStore {
            pool,
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

/// Brings `conn` to [`MEMORY_SCHEMA_VERSION`]; refuses a database from a newer build.
fn migrate(conn: &mut Connection, path: &Path) -> Result<(), MemoryError> {
    let found: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| classify(path, e))?;
    if found > MEMORY_SCHEMA_VERSION {
        return Err(MemoryError::TooNew {
            path: path.to_path_buf(),
            found,
            supported: MEMORY_SCHEMA_VERSION,
        });
    }
    let migrations = Migrations::new(MIGRATIONS.iter().map(|sql| M::up(sql)).collect());
    migrations.to_latest(conn).map_err(|e| match e {
        rusqlite_migration::Error::RusqliteError { err, .. } => classify(path, err),
        other => MemoryError::Migration(other.to_string()),
    })
}

/// The current schema of the agent-memory database as one SQL text, rendered like the
/// index's ([`crate::store::render_schema`]) after all memory migrations ran on an
/// empty database.
///
/// Errors: [`MemoryError`] if the migrations fail in memory (a defect of this build).
pub fn current_schema() -> Result<String, MemoryError> {
    let mut conn = Connection::open_in_memory().map_err(|e| classify(Path::new(":memory:"), e))?;
    migrate(&mut conn, Path::new(":memory:"))?;
    let title = format!(
        "The agent-memory database (memory.db), schema version {MEMORY_SCHEMA_VERSION}: \
         schema/memory/001..{MEMORY_SCHEMA_VERSION:03}."
    );
    crate::store::render_schema(&conn, &title).map_err(|e| classify(Path::new(":memory:"), e))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            Err(MemoryError::TooNew { found: 99, .. }) => {}
            Err(e) => panic!("unexpected error {e}"),
            Ok(_) => panic!("a newer memory database was opened"),
        }
    }
}
