//! The one-time move of agent memory out of an index database written by an older
//! build (index schema version 8 or below kept tasks, work hand-offs, thoughts, audits
//! and file documents beside the index).
//!
//! Migration `schema/009_memory_moved.sql` renames those tables `legacy_*`;
//! [`import_from_index`] copies their rows into the memory database in one memory
//! transaction that also sets the marker `meta.legacy_import`, then asks the index
//! store to drop them. The steps can be interrupted anywhere without losing a row:
//! - killed before the memory commit: nothing was copied; the next open copies again;
//! - killed after it, or the drop refused (another process holds the index write lock,
//!   an index run): the marker says the rows are here, so the next open only drops.
//!
//! A row whose key the memory database already holds is kept as it is there
//! (`INSERT OR IGNORE`): the memory database wins. The recency counter of saved work
//! continues above both databases' values, so `access_seq` stays unique.

use rusqlite::types::Value;
use rusqlite::{OptionalExtension, TransactionBehavior};

use crate::store::Store;

use super::{MemoryError, MemoryStore};

/// The old tables (as migration 009 renamed them) and where their rows go, parents
/// before children.
pub const LEGACY_TABLES: &[(&str, &str)] = &[
    ("legacy_task_sessions", "task_sessions"),
    ("legacy_tasks", "tasks"),
    ("legacy_work_info", "work_info"),
    ("legacy_thoughts", "thoughts"),
    ("legacy_audit_sessions", "audit_sessions"),
    ("legacy_audit_history", "audit_history"),
    ("legacy_file_docs", "file_docs"),
];

/// What [`import_from_index`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Rows copied into the memory database (0 when the marker was already set).
    pub rows_copied: usize,
    /// Whether the old tables were found in the index database.
    pub found_legacy: bool,
    /// Whether they were dropped from it (false when none were found, or the drop has
    /// to wait for a later open because another writer held the index).
    pub dropped: bool,
}

/// Copies the agent memory kept in `index`'s `legacy_*` tables into `memory` (once per
/// memory database), then drops those tables from `index`. Cheap when there are none:
/// one look at `sqlite_master`.
///
/// A drop refused because another process holds the index write lock is logged as a
/// warning and tried again at the next open; the rows are already safe in `memory`.
///
/// Errors: [`MemoryError::Index`] when the index database cannot be read,
/// [`MemoryError::Sqlite`] when the memory database cannot be written (nothing is then
/// copied, and the index keeps its tables).
pub fn import_from_index(memory: &MemoryStore, index: &Store) -> Result<ImportReport, MemoryError> {
    if memory.is_read_only() {
        // Nothing can be copied where nothing can be written; a later writable open does it.
        return Ok(ImportReport::default());
    }
    let idx = index.conn()?;
    let mut present = Vec::new();
    for &(legacy, table) in LEGACY_TABLES {
        let exists = idx
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [legacy],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        if exists {
            present.push((legacy, table));
        }
    }
    if present.is_empty() {
        return Ok(ImportReport::default());
    }
    let mut report = ImportReport {
        found_legacy: true,
        ..ImportReport::default()
    };

    let mut conn = memory.conn()?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let done = tx
        .query_row("SELECT 1 FROM meta WHERE key = 'legacy_import'", [], |_| {
            Ok(())
        })
        .optional()?
        .is_some();
    if !done {
        for &(legacy, table) in &present {
            report.rows_copied += copy_rows(&idx, &tx, legacy, table)?;
        }
        let old_seq: i64 = idx
            .query_row(
                "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'work_access_seq'",
                [],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0);
        tx.execute(
            "UPDATE meta SET value = CAST(MAX(CAST(value AS INTEGER), ?1,
                 (SELECT COALESCE(MAX(access_seq), 0) FROM work_info)) AS TEXT)
             WHERE key = 'work_access_seq'",
            [old_seq],
        )?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('legacy_import', ?1)",
            [index.path().to_string_lossy()],
        )?;
        tracing::info!(
            rows = report.rows_copied,
            "copied agent memory from {} to {}",
            index.path().display(),
            memory.path().display()
        );
    }
    tx.commit()?;
    drop(idx);

    match index.drop_legacy_memory() {
        Ok(()) => report.dropped = true,
        // Another process writes the index now (an index run): expected, and tried
        // again at the next open, so not worth a warning.
        Err(crate::store::StoreError::Sqlite(e))
            if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) =>
        {
            tracing::debug!(
                "the old agent-memory tables of {} stay until a later open: the index is \
                 being written by another process",
                index.path().display()
            )
        }
        Err(e) => tracing::warn!(
            "the old agent-memory tables of {} stay until a later open ({e}); their rows are in {}",
            index.path().display(),
            memory.path().display()
        ),
    }
    Ok(report)
}

/// Copies every row of `legacy` (index) into `table` (memory), column by column as
/// named in the index; returns the rows inserted.
fn copy_rows(
    idx: &rusqlite::Connection,
    tx: &rusqlite::Transaction<'_>,
    legacy: &str,
    table: &str,
) -> Result<usize, MemoryError> {
    let mut select = idx.prepare(&format!("SELECT * FROM \"{legacy}\""))?;
    let columns: Vec<String> = select
        .column_names()
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect();
    let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    let mut insert = tx.prepare(&format!(
        "INSERT OR IGNORE INTO \"{table}\" ({}) VALUES ({})",
        columns.join(", "),
        placeholders.join(", ")
    ))?;
    let mut rows = select.query([])?;
    let mut copied = 0;
    while let Some(row) = rows.next()? {
        let values = (0..columns.len())
            .map(|i| row.get::<_, Value>(i))
            .collect::<rusqlite::Result<Vec<Value>>>()?;
        copied += insert.execute(rusqlite::params_from_iter(values))?;
    }
    Ok(copied)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task_count(memory: &MemoryStore) -> i64 {
        memory
            .conn()
            .unwrap()
            .query_row("SELECT count(*) FROM tasks", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn a_refused_drop_is_finished_later_without_copying_twice() {
        let dir = tempfile::tempdir().unwrap();
        let index = Store::open(&dir.path().join("i.db")).unwrap();
        // A database built by this version has the renamed tables, empty.
        index
            .conn()
            .unwrap()
            .execute_batch(
                "INSERT INTO legacy_task_sessions VALUES ('s', 't', 't');
                 INSERT INTO legacy_tasks VALUES ('s', '/a', '', 0, 'a', 'one', 'TODO');
                 INSERT INTO legacy_tasks VALUES ('s', '/b', '', 1, 'b', 'two', 'TODO');",
            )
            .unwrap();
        let memory = MemoryStore::open(&crate::memory::db_path(index.path())).unwrap();

        // Another process holds the index write lock (an index run): the rows are
        // copied, the tables stay.
        let locker = rusqlite::Connection::open(index.path()).unwrap();
        locker.execute_batch("BEGIN IMMEDIATE").unwrap();
        let first = import_from_index(&memory, &index).unwrap();
        assert_eq!(
            first,
            ImportReport {
                rows_copied: 3,
                found_legacy: true,
                dropped: false
            }
        );
        assert_eq!(task_count(&memory), 2);
        locker.execute_batch("COMMIT").unwrap();

        // A task deleted meanwhile is not brought back by the next open, which only drops.
        memory
            .conn()
            .unwrap()
            .execute("DELETE FROM tasks WHERE path = '/b'", [])
            .unwrap();
        let second = import_from_index(&memory, &index).unwrap();
        assert_eq!(
            second,
            ImportReport {
                rows_copied: 0,
                found_legacy: true,
                dropped: true
            }
        );
        assert_eq!(task_count(&memory), 1);
        let left: i64 = index
            .conn()
            .unwrap()
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name LIKE 'legacy_%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(left, 0);
        assert_eq!(
            import_from_index(&memory, &index).unwrap(),
            ImportReport::default()
        );
    }
}
