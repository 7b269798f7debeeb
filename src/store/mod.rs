//! SQLite storage of the code index: the connection pool, migrations from `schema/`,
//! and typed reads and writes of the index.
//!
//! Owns every SQL statement over the index database except the ad-hoc ones a user
//! types; agent memory (tasks, work hand-offs, thoughts, saved documents) has its own
//! database and its SQL is in `memory`. Knows nothing of MCP or of graph algorithms;
//! hands plain rows to the layers above.

pub mod database_file;
mod error;
mod schema;

use database_file::Journal;
pub use error::StoreError;
pub use schema::{current_schema, render_schema, SCHEMA_VERSION};

use std::path::{Path, PathBuf};
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OptionalExtension};

/// Process-wide SQLite settings, applied once before the first connection opens
/// (SQLite accepts them only before it initializes; a later call changes nothing).
///
/// - Memory statistics off (`SQLITE_CONFIG_MEMSTATUS` = 0). With them on, every
///   allocation and free inside SQLite takes one process-wide mutex to keep the
///   counters; an index run allocates for each page fetched and each value bound, on
///   two threads at once (the run's writer and the search table's builder), so they
///   queued on that mutex. In a profile of a Linux kernel build's resolution phase,
///   mutex locking, unlocking and futex waits were about a tenth of all samples (both
///   threads; SQLite's bytecode interpreter itself 7.6%); without the statistics the
///   standard library's name resolution took 1.08 s instead of 1.23 s. Nothing here
///   reads the counters (`sqlite3_memory_used`, heap limits).
///
/// Returns whether SQLite took the settings (false when it had already initialized).
pub fn configure_sqlite() -> bool {
    static APPLIED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *APPLIED.get_or_init(|| {
        // SAFETY: sqlite3_config is called before any other SQLite function of this
        // process when this runs first (main calls it before opening anything); called
        // later it only returns SQLITE_MISUSE. The variadic argument is the int the
        // option takes.
        let rc = unsafe {
            rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS,
                0 as std::os::raw::c_int,
            )
        };
        rc == rusqlite::ffi::SQLITE_OK
    })
}

/// A pooled connection to the index database.
pub type PooledConn = r2d2::PooledConnection<SqliteConnectionManager>;

/// The index database: a pool of WAL connections to one file.
#[derive(Clone)]
pub struct Store {
    pool: r2d2::Pool<SqliteConnectionManager>,
    path: PathBuf,
    /// How the file was opened.
    access: Access,
}

/// How a [`Store`]'s file was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read-write, shared with other processes (write-ahead log).
    Shared,
    /// Read-write, private to this process until published ([`Store::open_private`]).
    Private,
    /// Read only, because this process cannot write the file or its directory;
    /// `immutable` when SQLite was told nothing changes it (no locks, no log).
    ReadOnly { immutable: bool },
}

impl Store {
    /// Opens (creating if needed, with its parent directory) the database at `path` and
    /// migrates it to [`SCHEMA_VERSION`].
    ///
    /// Errors: [`StoreError::Corrupt`] for a file that is not a usable SQLite database,
    /// [`StoreError::TooNew`] for one from a newer build.
    ///
    /// An existing file this process cannot write (a read-only mount, a CI artifact
    /// without write permission, a full disk) is opened read-only instead
    /// ([`database_file::DatabaseFile::open_read_only`]), with a warning in the log:
    /// it answers queries, and index runs on it fail with [`StoreError::ReadOnlyIndex`].
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        match Store::open_with(path, Journal::Wal) {
            // SQLite opens a file it may not write read-only without a word.
            Ok(store) if store.conn()?.is_readonly(rusqlite::MAIN_DB)? => {
                tracing::warn!(
                    "{} cannot be written by this process; opened read-only: answers come \
                     from the index as it is, and it is not refreshed",
                    path.display()
                );
                Ok(Store {
                    access: Access::ReadOnly { immutable: false },
                    ..store
                })
            }
            Err(e) if (e.is_unwritable() || e.is_disk_full()) && path.is_file() => {
                let (pool, immutable) = schema::INDEX_DB.open_read_only(path)?;
                tracing::warn!(
                    "{e}; opened {} read-only{}: answers come from the index as it is, \
                     and it is not refreshed",
                    path.display(),
                    if immutable { " (immutable)" } else { "" }
                );
                Ok(Store {
                    pool,
                    path: path.to_path_buf(),
                    access: Access::ReadOnly { immutable },
                })
            }
            opened => opened,
        }
    }

    /// Opens a new database file that only this process uses until
    /// [`Store::publish`]: a build from nothing into `DB.partial-PID`. Its pages are
    /// written once, to the file itself: no write-ahead log to write and copy back, no
    /// fsync per commit. Errors: as [`Store::open`].
    pub fn open_private(path: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, Journal::Private)
    }

    fn open_with(path: &Path, journal: Journal) -> Result<Store, StoreError> {
        Ok(Store {
            pool: schema::INDEX_DB.open(path, journal)?,
            path: path.to_path_buf(),
            access: match journal {
                Journal::Wal => Access::Shared,
                Journal::Private => Access::Private,
            },
        })
    }

    /// How the file was opened.
    pub fn access(&self) -> Access {
        self.access
    }

    /// Whether this is a private build file ([`Store::open_private`]) that no other
    /// process opens.
    pub fn is_private(&self) -> bool {
        self.access == Access::Private
    }

    /// The error of a write to a read-only store: `Some` when the file was opened
    /// read-only ([`Store::open`]).
    pub fn read_only_error(&self) -> Option<StoreError> {
        matches!(self.access, Access::ReadOnly { .. })
            .then(|| StoreError::ReadOnlyIndex(self.path.clone()))
    }

    /// Copies what the write-ahead log holds into the database file, as far as no
    /// reader of an older snapshot needs it (`PRAGMA wal_checkpoint(PASSIVE)`: waits for
    /// nobody). Index runs leave this to later (see `index::RunSettings`); a
    /// watching server calls it when the tree has gone quiet. Returns the log's frames
    /// and how many of them are now in the database file.
    ///
    /// Errors: SQLite's (a busy database is not one: PASSIVE copies what it can).
    pub fn checkpoint(&self) -> Result<(i64, i64), StoreError> {
        let conn = self.conn()?;
        Ok(conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
            Ok((r.get(1)?, r.get(2)?))
        })?)
    }

    /// Checkpoints the write-ahead log into the database file and closes every
    /// connection, so the file alone holds the whole index (it can be copied or renamed).
    pub fn close(self) -> Result<(), StoreError> {
        {
            let conn = self.conn()?;
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        // The last connection to close removes the (now empty) -wal and -shm files.
        drop(self.pool);
        Ok(())
    }

    /// Ends the private phase of a file opened with [`Store::open_private`]: switches
    /// it to WAL (what every later opener expects), flushes it to disk and closes every
    /// connection, so the file can be renamed into place.
    pub fn publish(self) -> Result<(), StoreError> {
        {
            let conn = self.conn()?;
            conn.execute_batch("PRAGMA synchronous = FULL;")?;
            conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        drop(self.pool);
        std::fs::File::open(&self.path)
            .and_then(|f| f.sync_all())
            .map_err(|e| StoreError::Publish {
                path: self.path.clone(),
                message: format!("flushing to disk: {e}"),
            })?;
        Ok(())
    }

    /// Rebuilds the database file in place without free pages (`VACUUM`); returns its
    /// size in bytes afterwards.
    pub fn vacuum(&self) -> Result<u64, StoreError> {
        let conn = self.conn()?;
        conn.execute_batch("VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")?;
        Ok(std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0))
    }

    /// Writes a compacted copy of the database to `out` (`VACUUM INTO`), which must not
    /// exist; returns its size in bytes.
    pub fn vacuum_into(&self, out: &Path) -> Result<u64, StoreError> {
        let conn = self.conn()?;
        conn.execute("VACUUM INTO ?1", [out.to_string_lossy()])?;
        Ok(std::fs::metadata(out).map(|m| m.len()).unwrap_or(0))
    }

    /// Where the database lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A connection from the pool (read-write).
    pub fn conn(&self) -> Result<PooledConn, StoreError> {
        Ok(self.pool.get()?)
    }

    /// Drops the agent-memory tables an older build kept here (renamed `legacy_*` by
    /// migration 009) and their counter in `meta`, once `memory::upgrade` has copied
    /// their rows. Does not wait for the write lock: an index run elsewhere makes it
    /// fail with `database is locked`, and it is tried again at the next open.
    pub fn drop_legacy_memory(&self) -> Result<(), StoreError> {
        let mut conn = self.conn()?;
        // No wait at all: a tool call must not wait for an index run here.
        conn.busy_timeout(Duration::ZERO)?;
        let dropped = (|| {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            tx.execute_batch(
                "DROP TABLE IF EXISTS legacy_tasks;
                 DROP TABLE IF EXISTS legacy_task_sessions;
                 DROP TABLE IF EXISTS legacy_work_info;
                 DROP TABLE IF EXISTS legacy_audit_history;
                 DROP TABLE IF EXISTS legacy_audit_sessions;
                 DROP TABLE IF EXISTS legacy_thoughts;
                 DROP TABLE IF EXISTS legacy_file_docs;
                 DELETE FROM meta WHERE key = 'work_access_seq';",
            )?;
            tx.commit()
        })();
        conn.busy_timeout(Duration::from_secs(10))?;
        Ok(dropped?)
    }

    /// The generation counter: bumped by every index run that changed the index.
    pub fn generation(&self) -> Result<i64, StoreError> {
        Ok(read_generation(&*self.conn()?)?)
    }

    /// The languages of the files the index holds (`files.language`, distinct, sorted).
    ///
    /// Errors: the database cannot be read.
    pub fn languages(&self) -> Result<Vec<String>, StoreError> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare(
            "SELECT DISTINCT language FROM files WHERE language IS NOT NULL ORDER BY language",
        )?;
        let rows = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(rows)
    }

    /// The index as it stands, read in one transaction: its generation and how many
    /// files, nodes and edges it holds. The totals come from `meta` (key `totals`) when
    /// they were kept for this generation, else they are counted (writing nothing). A
    /// one-shot command beside a server reads them so: counting the 78k `files` rows of
    /// the Linux kernel took 10 ms of its 20 ms from a cold cache.
    pub fn stored_totals(&self) -> Result<StoredTotals, StoreError> {
        Ok(self.totals_read()?.0)
    }

    /// [`Store::stored_totals`], and whether any total had to be counted.
    fn totals_read(&self) -> Result<(StoredTotals, bool), StoreError> {
        let mut conn = self.conn()?;
        let tx = conn.transaction()?;
        let generation = read_generation(&tx)?;
        let kept = read_kept_totals(&tx, generation)?;
        let files = match kept.and_then(|k| k.files) {
            Some(files) => files,
            None => tx.query_row("SELECT count(*) FROM files", [], |r| r.get(0))?,
        };
        let (nodes, edges) = match kept {
            Some(k) => (k.nodes, k.edges),
            None => tx.query_row(
                "SELECT (SELECT count(*) FROM nodes), (SELECT count(*) FROM edges)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?,
        };
        let counted = kept.is_none_or(|k| k.files.is_none());
        let totals = StoredTotals {
            generation,
            files,
            nodes,
            edges,
        };
        Ok((totals, counted))
    }

    /// [`Store::stored_totals`], then, when any had to be counted, keeps the node, edge
    /// and file totals in `meta` for that generation (unless a run has moved it since),
    /// so that the next reader need not count. The count is a read (deferred)
    /// transaction; the write lock is held only for the one-row write.
    ///
    /// Errors: the database cannot be read or written.
    pub fn keep_totals(&self) -> Result<StoredTotals, StoreError> {
        let (t, counted) = self.totals_read()?;
        if !counted {
            return Ok(t);
        }
        self.conn()?.execute(
            "INSERT INTO meta (key, value)
             SELECT 'totals', ?1
             WHERE (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation') = ?2
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            rusqlite::params![
                format_totals(t.generation, t.nodes, t.edges, t.files),
                t.generation
            ],
        )?;
        Ok(t)
    }
}

/// What [`Store::stored_totals`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredTotals {
    /// `meta.generation`.
    pub generation: i64,
    /// Rows of `files`.
    pub files: i64,
    /// Rows of `nodes`.
    pub nodes: i64,
    /// Rows of `edges`.
    pub edges: i64,
}

/// The `meta` row `totals` taken apart ([`format_totals`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeptTotals {
    /// The generation they were counted at.
    pub generation: i64,
    /// Rows of `nodes`.
    pub nodes: i64,
    /// Rows of `edges`.
    pub edges: i64,
    /// Rows of `files`; `None` in a row kept by an older build (three integers).
    pub files: Option<i64>,
}

/// The `meta` row `totals`: `GENERATION NODES EDGES FILES`.
pub(crate) fn format_totals(generation: i64, nodes: i64, edges: i64, files: i64) -> String {
    format!("{generation} {nodes} {edges} {files}")
}

/// The `meta` row `totals` taken apart: four integers ([`format_totals`]), or three
/// (`GENERATION NODES EDGES`, as older builds kept it); `None` for anything else.
pub(crate) fn parse_totals(value: &str) -> Option<KeptTotals> {
    let parts: Vec<i64> = value
        .split(' ')
        .map(str::parse::<i64>)
        .collect::<Result<_, _>>()
        .ok()?;
    match parts[..] {
        [generation, nodes, edges] => Some(KeptTotals {
            generation,
            nodes,
            edges,
            files: None,
        }),
        [generation, nodes, edges, files] => Some(KeptTotals {
            generation,
            nodes,
            edges,
            files: Some(files),
        }),
        _ => None,
    }
}

/// The `meta` row `totals` on `conn` when it was kept for `generation` (`None`: no
/// row, a row of another generation, or one that does not parse).
pub(crate) fn read_kept_totals(
    conn: &Connection,
    generation: i64,
) -> rusqlite::Result<Option<KeptTotals>> {
    let kept: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'totals'", [], |r| {
            r.get(0)
        })
        .optional()?;
    Ok(kept
        .as_deref()
        .and_then(parse_totals)
        .filter(|k| k.generation == generation))
}

/// Reads `meta.generation` on `conn`.
pub fn read_generation(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'",
        [],
        |r| r.get(0),
    )
}

/// Opens `path` read-only with `query_only` set, for user SQL. The file must exist and
/// be at a schema version this build reads (older ones too). A file on a read-only
/// mount is opened immutable ([`database_file::DatabaseFile::open_read_only`]).
///
/// Errors: [`StoreError::Missing`], [`StoreError::Corrupt`], [`StoreError::TooNew`],
/// [`StoreError::Unwritable`] when SQLite cannot open it at all.
pub fn open_read_only(path: &Path) -> Result<Connection, StoreError> {
    Ok(schema::INDEX_DB.connect_read_only(path, true)?.0)
}

pub mod defined_names;
pub mod export_reads;
pub mod files;
pub mod graph;
pub mod parse_cache;
pub mod scip_files;
pub mod search_build;
pub mod shard;
pub mod symbol_search;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_totals_have_four_integers_and_older_rows_three() {
        let four = parse_totals("7 10 20 3").unwrap();
        assert_eq!((four.generation, four.nodes, four.edges), (7, 10, 20));
        assert_eq!(four.files, Some(3));
        assert_eq!(parse_totals(&format_totals(7, 10, 20, 3)), Some(four));
        assert_eq!(parse_totals("7 10 20").unwrap().files, None);
        for bad in ["", "7", "7 10", "7 10 20 3 4", "7 x 20", "7  10 20"] {
            assert_eq!(parse_totals(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn stored_totals_read_the_kept_files_count_and_count_it_for_an_older_row() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.py"), "def a():\n    return 1\n").unwrap();
        std::fs::write(root.join("b.py"), "def b():\n    return 2\n").unwrap();
        let store = Store::open(&dir.path().join("index.db")).unwrap();
        let report = crate::index::index(
            &store,
            &root,
            &crate::index::IndexOptions::default(),
            &|_| {},
        )
        .unwrap();
        let g = report.generation;
        let plant = |value: String| {
            store
                .conn()
                .unwrap()
                .execute("UPDATE meta SET value = ?1 WHERE key = 'totals'", [value])
                .unwrap();
        };
        let kept = || -> String {
            store
                .conn()
                .unwrap()
                .query_row("SELECT value FROM meta WHERE key = 'totals'", [], |r| {
                    r.get(0)
                })
                .unwrap()
        };
        // The run kept all four totals.
        assert_eq!(
            kept(),
            format_totals(g, report.nodes, report.edges, 2),
            "the run's totals"
        );
        // A kept row is read as it is (a planted one shows through): nothing is counted.
        plant(format_totals(g, 1, 2, 3));
        let t = store.stored_totals().unwrap();
        assert_eq!((t.generation, t.nodes, t.edges, t.files), (g, 1, 2, 3));
        // An older build's row has no files count: that one is counted, and keeping
        // the totals writes the four.
        plant(format!("{g} 1 2"));
        let t = store.keep_totals().unwrap();
        assert_eq!((t.nodes, t.edges, t.files), (1, 2, 2));
        assert_eq!(kept(), format_totals(g, 1, 2, 2));
        // A row of another generation is not used: everything is counted.
        plant(format_totals(g - 1, 1, 2, 3));
        let t = store.stored_totals().unwrap();
        assert_eq!((t.nodes, t.edges, t.files), (report.nodes, report.edges, 2));
    }
}
