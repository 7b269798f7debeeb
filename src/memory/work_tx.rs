//! Typed access to the checklist and work hand-off tables of the memory database
//! (`schema/memory/001_work.sql`).
//!
//! A [`WorkTx`] is one transaction: tool calls that write begin it IMMEDIATE (the
//! write lock of the memory database is taken at `BEGIN`, so two processes never
//! interleave a read-then-write), reads begin it DEFERRED for a consistent snapshot.
//! Only other memory writes, each a few milliseconds, can hold that lock: index runs
//! write another file. Owns the SQL; knows nothing of validation or of the tree shape.

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::MemoryError;

/// One stored task (a row of `tasks`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRow {
    /// `/a/b`: the task ids from the root down to this task.
    pub path: String,
    /// The parent's path; empty for a top-level task.
    pub parent_path: String,
    /// 0-based order among its siblings.
    pub position: i64,
    /// The caller's taskId.
    pub task_id: String,
    /// What the task is.
    pub description: String,
    /// `TODO` or `DONE`.
    pub status: String,
}

/// One saved work hand-off (a row of `work_info`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkRow {
    /// The 8-digit workId (10000000–99999999).
    pub work_id: i64,
    /// The sessionId it was saved with, if any.
    pub session_id: Option<String>,
    /// ISO-8601 UTC time of the save.
    pub work_timestamp: String,
    /// Short description (≤ 200 chars).
    pub work_description: String,
    /// The summary (≤ 5000 chars).
    pub work_summarize: String,
    /// JSON text of the task snapshot taken at save time.
    pub work_tasks: Option<String>,
    /// Recency: larger is more recently used.
    pub access_seq: i64,
}

/// One transaction over the work tables. Dropped without [`WorkTx::commit`], it rolls
/// back.
pub struct WorkTx<'c> {
    tx: rusqlite::Transaction<'c>,
}

const WORK_COLUMNS: &str = "work_id, session_id, work_timestamp, work_description, \
                            work_summarize, work_tasks, access_seq";

fn work_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<WorkRow> {
    Ok(WorkRow {
        work_id: r.get(0)?,
        session_id: r.get(1)?,
        work_timestamp: r.get(2)?,
        work_description: r.get(3)?,
        work_summarize: r.get(4)?,
        work_tasks: r.get(5)?,
        access_seq: r.get(6)?,
    })
}

impl<'c> WorkTx<'c> {
    /// Begins a write transaction: takes the memory database's write lock now
    /// (IMMEDIATE). Only another memory write can hold it, for milliseconds; past the
    /// connection's busy timeout (10 s) the error is `database is locked`.
    pub fn write(conn: &'c mut Connection) -> Result<WorkTx<'c>, MemoryError> {
        Ok(WorkTx {
            tx: conn.transaction_with_behavior(TransactionBehavior::Immediate)?,
        })
    }

    /// Begins a read transaction (DEFERRED): every read sees one snapshot.
    pub fn read(conn: &'c mut Connection) -> Result<WorkTx<'c>, MemoryError> {
        Ok(WorkTx {
            tx: conn.transaction_with_behavior(TransactionBehavior::Deferred)?,
        })
    }

    /// Commits everything done in this transaction.
    pub fn commit(self) -> Result<(), MemoryError> {
        Ok(self.tx.commit()?)
    }

    // ---- checklist sessions and tasks ----

    /// Whether `sql` (a `SELECT 1 ...`) finds a row.
    fn exists(&self, sql: &str, params: impl rusqlite::Params) -> Result<bool, MemoryError> {
        Ok(self
            .tx
            .query_row(sql, params, |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// Whether `session_id` has a `task_sessions` row.
    pub fn session_exists(&self, session_id: &str) -> Result<bool, MemoryError> {
        self.exists(
            "SELECT 1 FROM task_sessions WHERE session_id = ?1",
            [session_id],
        )
    }

    /// Creates the session if needed and records `now` as its last change.
    pub fn touch_session(&self, session_id: &str, now: &str) -> Result<(), MemoryError> {
        self.tx.execute(
            "INSERT INTO task_sessions (session_id, created_at, updated_at) VALUES (?1, ?2, ?2)
             ON CONFLICT (session_id) DO UPDATE SET updated_at = excluded.updated_at",
            params![session_id, now],
        )?;
        Ok(())
    }

    /// Every task of the session, parents before children, siblings in order.
    pub fn session_tasks(&self, session_id: &str) -> Result<Vec<TaskRow>, MemoryError> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT path, parent_path, position, task_id, description, status FROM tasks
             WHERE session_id = ?1 ORDER BY length(parent_path), parent_path, position",
        )?;
        let rows = stmt.query_map([session_id], |r| {
            Ok(TaskRow {
                path: r.get(0)?,
                parent_path: r.get(1)?,
                position: r.get(2)?,
                task_id: r.get(3)?,
                description: r.get(4)?,
                status: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether the session has a task at `path`.
    pub fn task_exists(&self, session_id: &str, path: &str) -> Result<bool, MemoryError> {
        self.exists(
            "SELECT 1 FROM tasks WHERE session_id = ?1 AND path = ?2",
            params![session_id, path],
        )
    }

    /// Deletes the descendants of the task at `path` (every task when `path` is
    /// empty); the task itself stays. Returns how many rows went.
    pub fn delete_below(&self, session_id: &str, path: &str) -> Result<usize, MemoryError> {
        // A prefix test on text, not LIKE: task ids may contain '%' and '_'.
        let prefix = format!("{path}/");
        Ok(self.tx.execute(
            "DELETE FROM tasks WHERE session_id = ?1
             AND substr(path, 1, length(?2)) = ?2",
            params![session_id, prefix],
        )?)
    }

    /// Inserts one task.
    pub fn insert_task(&self, session_id: &str, t: &TaskRow) -> Result<(), MemoryError> {
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO tasks (session_id, path, parent_path, position, task_id, description, status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        stmt.execute(params![
            session_id,
            t.path,
            t.parent_path,
            t.position,
            t.task_id,
            t.description,
            t.status
        ])?;
        Ok(())
    }

    /// Sets the status of the task at `path`.
    pub fn set_task_status(
        &self,
        session_id: &str,
        path: &str,
        status: &str,
    ) -> Result<(), MemoryError> {
        self.tx.execute(
            "UPDATE tasks SET status = ?3 WHERE session_id = ?1 AND path = ?2",
            params![session_id, path, status],
        )?;
        Ok(())
    }

    // ---- saved work ----

    /// Increments and returns the `work_access_seq` counter.
    pub fn next_access_seq(&self) -> Result<i64, MemoryError> {
        Ok(self.tx.query_row(
            "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
             WHERE key = 'work_access_seq' RETURNING CAST(value AS INTEGER)",
            [],
            |r| r.get(0),
        )?)
    }

    /// The workId saved with `session_id`, if one is stored.
    pub fn work_of_session(&self, session_id: &str) -> Result<Option<i64>, MemoryError> {
        Ok(self
            .tx
            .query_row(
                "SELECT work_id FROM work_info WHERE session_id = ?1",
                [session_id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Whether `work_id` is stored.
    pub fn work_exists(&self, work_id: i64) -> Result<bool, MemoryError> {
        self.exists("SELECT 1 FROM work_info WHERE work_id = ?1", [work_id])
    }

    /// Stores `w`, replacing the row with the same work_id if there is one.
    pub fn put_work(&self, w: &WorkRow) -> Result<(), MemoryError> {
        self.tx.execute(
            "INSERT INTO work_info (work_id, session_id, work_timestamp, work_description,
                                    work_summarize, work_tasks, access_seq)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (work_id) DO UPDATE SET
                session_id = excluded.session_id,
                work_timestamp = excluded.work_timestamp,
                work_description = excluded.work_description,
                work_summarize = excluded.work_summarize,
                work_tasks = excluded.work_tasks,
                access_seq = excluded.access_seq",
            params![
                w.work_id,
                w.session_id,
                w.work_timestamp,
                w.work_description,
                w.work_summarize,
                w.work_tasks,
                w.access_seq
            ],
        )?;
        Ok(())
    }

    /// Deletes all but the `capacity` most recently used entries; returns the workIds
    /// deleted, least recent first.
    pub fn evict_beyond(&self, capacity: usize) -> Result<Vec<i64>, MemoryError> {
        let mut stmt = self.tx.prepare_cached(
            "DELETE FROM work_info WHERE work_id IN
               (SELECT work_id FROM work_info ORDER BY access_seq DESC LIMIT -1 OFFSET ?1)
             RETURNING work_id, access_seq",
        )?;
        let mut gone: Vec<(i64, i64)> = stmt
            .query_map([capacity as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        gone.sort_by_key(|&(_, seq)| seq);
        Ok(gone.into_iter().map(|(id, _)| id).collect())
    }

    /// The entry `work_id`, if stored.
    pub fn work(&self, work_id: i64) -> Result<Option<WorkRow>, MemoryError> {
        Ok(self
            .tx
            .query_row(
                &format!("SELECT {WORK_COLUMNS} FROM work_info WHERE work_id = ?1"),
                [work_id],
                work_row,
            )
            .optional()?)
    }

    /// Marks `work_id` used now: sets its access_seq.
    pub fn set_access_seq(&self, work_id: i64, seq: i64) -> Result<(), MemoryError> {
        self.tx.execute(
            "UPDATE work_info SET access_seq = ?2 WHERE work_id = ?1",
            params![work_id, seq],
        )?;
        Ok(())
    }

    /// The `limit` most recently used entries, most recent first, and how many are
    /// stored in all.
    pub fn recent_works(&self, limit: usize) -> Result<(Vec<WorkRow>, usize), MemoryError> {
        let mut stmt = self.tx.prepare_cached(&format!(
            "SELECT {WORK_COLUMNS} FROM work_info ORDER BY access_seq DESC LIMIT ?1"
        ))?;
        let rows = stmt
            .query_map([limit as i64], work_row)?
            .collect::<Result<_, _>>()?;
        let total: i64 = self
            .tx
            .query_row("SELECT count(*) FROM work_info", [], |r| r.get(0))?;
        Ok((rows, total as usize))
    }
}
