//! Migrations: the `schema/NNN_name.sql` files, applied in order, the version kept in
//! `PRAGMA user_version` (by `rusqlite_migration`).

use std::path::Path;

use rusqlite::Connection;
use rusqlite_migration::{Migrations, M};

use super::StoreError;

/// The migrations, in order. Append only: never edit one that has shipped.
const MIGRATIONS: &[&str] = &[
    include_str!("../../schema/001_index.sql"),
    include_str!("../../schema/002_work.sql"),
    include_str!("../../schema/003_thinking.sql"),
    include_str!("../../schema/004_import_flags.sql"),
    include_str!("../../schema/005_file_docs.sql"),
    include_str!("../../schema/006_call_resolution.sql"),
    include_str!("../../schema/007_native_calls.sql"),
    include_str!("../../schema/008_scip.sql"),
    include_str!("../../schema/009_memory_moved.sql"),
];

/// The schema version this build writes (the number of migrations).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings `conn` to [`SCHEMA_VERSION`]; refuses a database from a newer build.
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let found: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| super::classify(path, e))?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    let migrations = Migrations::new(MIGRATIONS.iter().map(|sql| M::up(sql)).collect());
    migrations.to_latest(conn).map_err(|e| match e {
        rusqlite_migration::Error::RusqliteError { err, .. } => super::classify(path, err),
        other => StoreError::Migration(other.to_string()),
    })
}
