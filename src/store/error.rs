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
    /// A read-only open of a database that does not exist.
    #[error("no index database at {0}; run `constellation index` first")]
    Missing(PathBuf),
    #[error("cannot create the directory for {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A newly built database could not be moved into place.
    #[error("cannot put the new database at {path}: {message}")]
    Publish { path: PathBuf, message: String },
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("connection pool: {0}")]
    Pool(#[from] r2d2::Error),
    #[error("migration failed: {0}")]
    Migration(String),
}

impl StoreError {
    /// True when the database file itself is unusable (corrupt, or not SQLite), so a
    /// caller may move it aside and start a fresh one.
    pub fn is_corrupt(&self) -> bool {
        matches!(self, StoreError::Corrupt { .. })
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
        _ => StoreError::Sqlite(err),
    }
}
