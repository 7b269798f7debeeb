//! The storage layer's error type, and how a SQLite error met while opening a file is
//! classified (a leaf file: the migrations and every store module use it).

use std::path::{Path, PathBuf};

/// Errors of the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file exists but is not a SQLite database, or SQLite reports it corrupt.
    #[error("the database {path} is corrupt or not a SQLite database: {message}")]
    Corrupt { path: PathBuf, message: String },
    /// The database was written by a newer Constellation.
    #[error(
        "the database {path} has schema version {found}, newer than this build supports \
         ({supported}); upgrade constellation or pass --db with another file"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// A database that can only be read is at an older schema version than this build's,
    /// and migrating it would need a write.
    #[error(
        "the database {path} has schema version {found}, older than this build's \
         ({supported}), and cannot be migrated because it is read-only; open it once \
         where it can be written, or rebuild it with this version"
    )]
    ReadOnlyOutdated {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// A write (an index run) to a database opened read-only because this process
    /// cannot write it.
    #[error(
        "the database {0} is read-only here (its file or directory cannot be written, or \
         the disk is full), so the index is not refreshed and answers come from it as it \
         is; {WHAT_TO_DO}"
    )]
    ReadOnlyIndex(PathBuf),
    /// A read-only open of a database that does not exist.
    #[error("no index database at {0}; run `constellation index` first")]
    Missing(PathBuf),
    /// The directory of the database file could not be created (a read-only tree, a
    /// path through a file). `path` is the database file the user asked for.
    #[error(
        "cannot create the directory {} for the database {path} ({error}); {WHAT_TO_DO}",
        dir_of(path).display()
    )]
    CreateDir {
        path: PathBuf,
        error: std::io::Error,
    },
    /// SQLite could not create or write the database file: its directory (for a new
    /// file, or its `-wal` and `-shm` files) or the file itself is not writable. `path`
    /// is the database file the user asked for.
    #[error(
        "cannot open the database {path} for writing ({message}): {} and the file must be \
         writable; {WHAT_TO_DO}",
        dir_of(path).display()
    )]
    Unwritable { path: PathBuf, message: String },
    /// A newly built database could not be moved into place.
    #[error("cannot put the new database at {path}: {message}")]
    Publish { path: PathBuf, message: String },
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("connection pool: {0}")]
    Pool(#[from] r2d2::Error),
    #[error("migration failed: {0}")]
    Migration(String),
    /// The thread that builds the search table of a build from nothing failed
    /// (`store::search_build`).
    #[error("building the symbol search table: {0}")]
    SearchBuild(String),
}

/// What a user does about a database that cannot be written where it is.
const WHAT_TO_DO: &str =
    "pass --db FILE (or set CONSTELLATION_DB) to keep the index in a writable place";

/// The directory holding `path` (`.` for a bare file name).
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

impl StoreError {
    /// The same error, naming `path` instead of the file it was met on: a build from
    /// nothing writes a temporary `DB.partial-PID` file, and its errors must name `DB`,
    /// the file the user gave.
    pub fn naming(self, path: &Path) -> StoreError {
        let path = path.to_path_buf();
        match self {
            StoreError::CreateDir { error, .. } => StoreError::CreateDir { path, error },
            StoreError::Unwritable { message, .. } => StoreError::Unwritable { path, message },
            StoreError::Corrupt { message, .. } => StoreError::Corrupt { path, message },
            other => other,
        }
    }

    /// True when the database file itself is unusable (corrupt, or not SQLite), so a
    /// caller may move it aside and start a fresh one.
    pub fn is_corrupt(&self) -> bool {
        matches!(self, StoreError::Corrupt { .. })
    }

    /// True for SQLite's "database or disk is full", and for the I/O error it reports
    /// when a full disk leaves no room for the write-ahead log's shared memory.
    pub fn is_disk_full(&self) -> bool {
        match self {
            StoreError::Sqlite(e) => matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::SystemIoFailure)
            ),
            _ => false,
        }
    }

    /// True when the file or its directory cannot be written (SQLite cannot open it
    /// for writing, or its directory cannot be created).
    pub fn is_unwritable(&self) -> bool {
        matches!(
            self,
            StoreError::Unwritable { .. } | StoreError::CreateDir { .. }
        )
    }
}

/// Classifies a rusqlite error met while opening `path`.
pub(super) fn classify(path: &Path, err: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode;
    match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => StoreError::Corrupt {
            path: path.to_path_buf(),
            message: err.to_string(),
        },
        Some(ErrorCode::CannotOpen) | Some(ErrorCode::ReadOnly) => StoreError::Unwritable {
            path: path.to_path_buf(),
            message: match &err {
                // The bare SQLite message, without the path rusqlite adds.
                rusqlite::Error::SqliteFailure(e, _) => {
                    rusqlite::ffi::code_to_str(e.extended_code).to_string()
                }
                other => other.to_string(),
            },
        },
        _ => StoreError::Sqlite(err),
    }
}
