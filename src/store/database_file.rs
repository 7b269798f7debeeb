//! Opening a SQLite file this build owns: create its directory, set the connection
//! pragmas, bring it to the current schema version, pool its connections. The index
//! database (this layer) and the agent-memory database (`memory`) open the same way and
//! differ only in their migrations and pool size.
//!
//! Migrations are applied here rather than by a migration library because two
//! processes may create the same file at once (two MCP servers started together, a
//! server and the CLI): the version must be read inside the write transaction that
//! applies the migrations, or the second process re-applies them to a schema the first
//! one has just written ("table meta already exists").

use std::path::{Path, PathBuf};
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, TransactionBehavior};

use super::error::{classify, StoreError};

/// How long a connection waits for another one's lock before `database is locked`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How a file's connections are set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Journal {
    /// Shared with other connections and processes: a write-ahead log, fsync at
    /// checkpoints.
    Wal,
    /// A file only this process uses until it is published (a build from nothing): the
    /// rollback journal in memory and no fsync, because a failed or killed build throws
    /// the file away.
    Private,
}

impl Journal {
    /// The per-connection pragmas: the journal, a 10 s busy timeout, foreign keys on,
    /// temporary tables in memory, a page cache of at most 64 MiB.
    pub fn configure(self, conn: &mut Connection) -> rusqlite::Result<()> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.execute_batch(match self {
            Journal::Wal => "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;",
            Journal::Private => "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;",
        })?;
        conn.execute_batch(
            "PRAGMA foreign_keys = ON;
             PRAGMA temp_store = MEMORY;
             PRAGMA cache_size = -65536;",
        )
    }
}

/// One kind of database file: its migrations (`schema/NNN_*.sql`, in order, append
/// only; the version is their count, kept in `PRAGMA user_version`) and how many
/// connections its pool keeps at most.
#[derive(Debug, Clone, Copy)]
pub struct DatabaseFile {
    /// The migrations' SQL, in order.
    pub migrations: &'static [&'static str],
    /// The pool's maximum number of connections.
    pub pool_size: u32,
}

impl DatabaseFile {
    /// The schema version this build writes: the number of migrations.
    pub const fn version(&self) -> i64 {
        self.migrations.len() as i64
    }

    /// Opens (creating it and its parent directory if needed) the file at `path`,
    /// migrates it to [`DatabaseFile::version`] and returns a pool of connections set
    /// up for `journal`.
    ///
    /// A directory this creates holds a `.gitignore` of `*` (see [`create_dir`]).
    ///
    /// Errors: [`StoreError::CreateDir`]; [`StoreError::Unwritable`] when SQLite cannot
    /// create or write the file there; [`StoreError::Corrupt`] for a file that is not
    /// a usable SQLite database; [`StoreError::TooNew`] for one from a newer build;
    /// [`StoreError::Sqlite`] (`database is locked` when another process holds the write
    /// lock for more than 10 s while this one must migrate); [`StoreError::Pool`].
    pub fn open(
        &self,
        path: &Path,
        journal: Journal,
    ) -> Result<r2d2::Pool<SqliteConnectionManager>, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_dir(dir).map_err(|error| StoreError::CreateDir {
                path: path.to_path_buf(),
                error,
            })?;
        }
        // Switching a new file to WAL needs a lock SQLite does not wait for (no busy
        // handler): when another process is creating the same file at that moment,
        // this one tries again, for as long as the busy timeout would have waited.
        let started = std::time::Instant::now();
        loop {
            match self.set_up(path, journal) {
                Err(StoreError::Sqlite(e))
                    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                        && started.elapsed() < BUSY_TIMEOUT =>
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                done => break done?,
            }
        }
        let manager = SqliteConnectionManager::file(path).with_init(move |c| journal.configure(c));
        // A private file gets no connection opened in the background: one opening while
        // `Store::publish` switches the file to WAL fails ("database is locked", "disk
        // I/O error", logged as errors) or sets the journal back.
        let min_idle = match journal {
            Journal::Wal => 1,
            Journal::Private => 0,
        };
        Ok(r2d2::Pool::builder()
            .max_size(self.pool_size)
            .min_idle(Some(min_idle))
            .build(manager)?)
    }

    /// Opens the existing file at `path` for reading only, for a database this process
    /// cannot write (a read-only mount, a directory or file without write permission,
    /// such as a CI artifact): first as a shared read-only connection (`mode=ro`, which
    /// sees other processes' commits), else, when SQLite cannot set up the write-ahead
    /// log's shared memory there, as an immutable file (`immutable=1`: no locks, no log;
    /// right for a file nothing writes). Every connection also sets `query_only`.
    /// Returns the pool and whether the file was opened immutable.
    ///
    /// Errors: [`StoreError::Missing`]; [`StoreError::Corrupt`]; [`StoreError::TooNew`];
    /// [`StoreError::ReadOnlyOutdated`] for a file at an older schema version (it cannot
    /// be migrated without writing); [`StoreError::Unwritable`] when neither way opens.
    pub fn open_read_only(
        &self,
        path: &Path,
    ) -> Result<(r2d2::Pool<SqliteConnectionManager>, bool), StoreError> {
        let (_, immutable) = self.connect_read_only(path, false)?;
        let manager = SqliteConnectionManager::file(read_only_uri(path, immutable))
            .with_flags(READ_ONLY_FLAGS)
            .with_init(|c| configure_read_only(c));
        let pool = r2d2::Pool::builder()
            .max_size(self.pool_size)
            .min_idle(Some(1))
            .build(manager)?;
        Ok((pool, immutable))
    }

    /// One read-only connection to the existing file at `path`, opened as
    /// [`DatabaseFile::open_read_only`] says, and whether it was opened immutable. A file at an older schema version is accepted when
    /// `allow_older` (for SQL a user types, which may know the older tables).
    ///
    /// Errors: as [`DatabaseFile::open_read_only`].
    pub fn connect_read_only(
        &self,
        path: &Path,
        allow_older: bool,
    ) -> Result<(Connection, bool), StoreError> {
        if !path.is_file() {
            return Err(StoreError::Missing(path.to_path_buf()));
        }
        let mut last = None;
        for immutable in [false, true] {
            let uri = read_only_uri(path, immutable);
            let opened = Connection::open_with_flags(&uri, READ_ONLY_FLAGS)
                .and_then(|c| {
                    configure_read_only(&c)?;
                    let found = c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))?;
                    Ok((c, found))
                })
                .map_err(|e| classify(path, e));
            let (conn, found) = match opened {
                Ok(opened) => opened,
                Err(e @ StoreError::Corrupt { .. }) => return Err(e),
                Err(e) => {
                    last = Some(e);
                    continue;
                }
            };
            if found > self.version() {
                return Err(StoreError::TooNew {
                    path: path.to_path_buf(),
                    found,
                    supported: self.version(),
                });
            }
            if found < self.version() && !allow_older {
                return Err(StoreError::ReadOnlyOutdated {
                    path: path.to_path_buf(),
                    found,
                    supported: self.version(),
                });
            }
            return Ok((conn, immutable));
        }
        Err(last.unwrap_or_else(|| StoreError::Missing(path.to_path_buf())))
    }

    /// Opens one connection to `path`, sets it up for `journal` and migrates the file.
    fn set_up(&self, path: &Path, journal: Journal) -> Result<(), StoreError> {
        let mut conn = Connection::open(path).map_err(|e| classify(path, e))?;
        journal
            .configure(&mut conn)
            .map_err(|e| classify(path, e))?;
        self.migrate(&mut conn, path)
    }

    /// Brings `conn` (the file at `path`) to [`DatabaseFile::version`]: nothing to do
    /// and no lock taken when it is there; otherwise the missing migrations and the new
    /// version in one `IMMEDIATE` transaction, the version read again under its lock.
    ///
    /// Errors: [`StoreError::TooNew`], [`StoreError::Corrupt`], [`StoreError::Migration`]
    /// (a migration's SQL failed; nothing of it is kept).
    pub fn migrate(&self, conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
        let latest = self.version();
        let version = |c: &Connection| -> Result<i64, StoreError> {
            let found: i64 = c
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(|e| classify(path, e))?;
            if found > latest {
                return Err(StoreError::TooNew {
                    path: path.to_path_buf(),
                    found,
                    supported: latest,
                });
            }
            Ok(found)
        };
        if version(conn)? == latest {
            return Ok(());
        }
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| classify(path, e))?;
        let found = version(&tx)?;
        for (i, sql) in self.migrations.iter().enumerate().skip(found as usize) {
            tx.execute_batch(sql)
                .map_err(|e| StoreError::Migration(format!("migration {}: {e}", i + 1)))?;
        }
        tx.pragma_update(None, "user_version", latest)?;
        tx.commit().map_err(|e| classify(path, e))
    }

    /// The current schema as one SQL text ([`super::render_schema`] under `title`),
    /// as SQLite holds it after every migration ran on an empty in-memory database.
    ///
    /// Errors: a migration that fails (a defect of this build).
    pub fn current_schema(&self, title: &str) -> Result<String, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        self.migrate(&mut conn, Path::new(":memory:"))?;
        Ok(super::render_schema(&conn, title)?)
    }
}

/// How a read-only connection is opened: read only, its name a `file:` URI.
const READ_ONLY_FLAGS: rusqlite::OpenFlags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
    .union(rusqlite::OpenFlags::SQLITE_OPEN_URI)
    .union(rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX);

/// The per-connection pragmas of a read-only connection: the busy timeout, `query_only`,
/// temporary tables in memory, a page cache of at most 64 MiB.
fn configure_read_only(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.execute_batch(
        "PRAGMA query_only = ON;
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -65536;",
    )
}

/// The `file:` URI that opens `path` read-only (`mode=ro`, plus `immutable=1` when
/// asked), with the characters a URI path cannot hold as such percent-encoded.
pub fn read_only_uri(path: &Path, immutable: bool) -> String {
    let mut uri = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'%' | b'?' | b'#' => uri.push_str(&format!("%{b:02X}")),
            _ if b.is_ascii() && !b.is_ascii_control() => uri.push(*b as char),
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri.push_str(if immutable {
        "?mode=ro&immutable=1"
    } else {
        "?mode=ro"
    });
    uri
}

/// Creates `dir` (and its parents) for a database file. The directory itself, when
/// this creates it, gets a `.gitignore` of `*`: it holds only what this build writes
/// (databases, their logs), which `git status` must not list (the default,
/// `ROOT/.constellation/`, is inside the indexed tree). A directory that already exists
/// is left as it is, so a user who removes the file (to commit an index) keeps it so.
pub(crate) fn create_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    if let Err(e) = std::fs::write(dir.join(".gitignore"), "*\n") {
        tracing::warn!("cannot write {}/.gitignore: {e}", dir.display());
    }
    Ok(())
}

/// Where the memory database of the index database `index_db` lives: beside it, in the
/// same directory. The default index `ROOT/.constellation/index.db` has
/// `ROOT/.constellation/memory.db`; any other name gets `.memory` before its extension
/// (`--db ci.db` → `ci.memory.db`, `--db idx` → `idx.memory`), so two index files in one
/// directory never share their memory.
pub fn memory_db_path(index_db: &Path) -> PathBuf {
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

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: DatabaseFile = DatabaseFile {
        migrations: &[
            "CREATE TABLE a (x INTEGER) STRICT;",
            "CREATE TABLE b (y INTEGER) STRICT;",
        ],
        pool_size: 2,
    };

    #[test]
    fn a_file_is_migrated_once_and_reopened_without_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/t.db");
        let pool = TWO.open(&path, Journal::Wal).unwrap();
        let conn = pool.get().unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 2);
        drop(conn);
        drop(pool);
        TWO.open(&path, Journal::Wal).unwrap();
    }

    #[test]
    fn concurrent_creators_apply_each_migration_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let openers: Vec<_> = (0..8)
            .map(|_| {
                let path = path.clone();
                std::thread::spawn(move || TWO.open(&path, Journal::Wal).map(|_| ()))
            })
            .collect();
        for t in openers {
            t.join().unwrap().unwrap();
        }
    }

    #[test]
    fn a_newer_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA user_version = 3")
            .unwrap();
        match TWO.open(&path, Journal::Wal) {
            Err(StoreError::TooNew {
                found: 3,
                supported: 2,
                ..
            }) => {}
            other => panic!("expected TooNew, got {:?}", other.map(|_| ())),
        }
    }

    #[test]
    fn a_failing_migration_keeps_nothing() {
        const BAD: DatabaseFile = DatabaseFile {
            migrations: &["CREATE TABLE a (x INTEGER);", "CREATE TABLE a (y INTEGER);"],
            pool_size: 1,
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        assert!(matches!(
            BAD.open(&path, Journal::Wal),
            Err(StoreError::Migration(_))
        ));
        let conn = Connection::open(&path).unwrap();
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .unwrap();
        assert_eq!(tables, 0);
    }
}
