//! Rows of `sequentialthinking` in the memory database (`schema/memory/002_thinking.sql`):
//! thoughts per thinking session, audit sessions and their review history.
//!
//! Plain rows in, plain rows out: the JSON columns are stored and returned as text, and
//! decoding them (and deciding what a corrupt one means) is the caller's business. The
//! index lookups the auditor makes are `store::audit`'s.

use rusqlite::{params, Connection, OptionalExtension};

use super::MemoryError;

/// A thought to record (the `thoughts` columns but `id`).
#[derive(Debug, Clone)]
pub struct ThoughtRecord<'a> {
    pub session_id: &'a str,
    pub thought: &'a str,
    pub thought_number: i64,
    pub total_thoughts: i64,
    pub next_thought_needed: bool,
    pub is_revision: Option<bool>,
    pub revises_thought: Option<i64>,
    pub branch_from_thought: Option<i64>,
    pub branch_id: Option<&'a str>,
    pub needs_more_thoughts: Option<bool>,
    pub audit_session_id: Option<&'a str>,
    pub audit_iteration: Option<i64>,
    pub created_at: &'a str,
}

/// What a thinking session looks like after a thought was added: the reference
/// server's `thoughtHistoryLength` and `branches`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionState {
    /// Thoughts recorded in the session.
    pub history_length: i64,
    /// Branch ids (thoughts with both `branchFromThought` and a non-empty `branchId`),
    /// in order of first appearance.
    pub branches: Vec<String>,
}

/// An `audit_sessions` row, JSON columns undecoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditSessionRow {
    pub id: String,
    pub config: String,
    pub last_review: Option<String>,
    pub iterations: i64,
}

/// One `audit_history` row, as the audit reads it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditHistoryRow {
    pub iteration: i64,
    pub thought_number: i64,
    pub candidate: String,
    pub overall: i64,
    pub verdict: String,
}

/// A review to append to a session.
#[derive(Debug, Clone)]
pub struct ReviewRecord<'a> {
    pub session_id: &'a str,
    pub iteration: i64,
    pub thought_number: i64,
    pub candidate: &'a str,
    pub overall: i64,
    pub verdict: &'a str,
    pub review: &'a str,
    pub config: &'a str,
    pub created_at: &'a str,
}

/// The session of the most recently recorded thought, if any.
pub fn latest_session(conn: &Connection) -> Result<Option<String>, MemoryError> {
    Ok(conn
        .query_row(
            "SELECT session_id FROM thoughts ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .optional()?)
}

/// Appends a thought; returns its id.
pub fn insert_thought(conn: &Connection, t: &ThoughtRecord<'_>) -> Result<i64, MemoryError> {
    conn.execute(
        "INSERT INTO thoughts (session_id, thought, thought_number, total_thoughts,
             next_thought_needed, is_revision, revises_thought, branch_from_thought, branch_id,
             needs_more_thoughts, audit_session_id, audit_iteration, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            t.session_id,
            t.thought,
            t.thought_number,
            t.total_thoughts,
            t.next_thought_needed,
            t.is_revision,
            t.revises_thought,
            t.branch_from_thought,
            t.branch_id,
            t.needs_more_thoughts,
            t.audit_session_id,
            t.audit_iteration,
            t.created_at,
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// History length and branches of a thinking session.
pub fn session_state(conn: &Connection, session_id: &str) -> Result<SessionState, MemoryError> {
    let history_length: i64 = conn.query_row(
        "SELECT COUNT(*) FROM thoughts WHERE session_id = ?1",
        [session_id],
        |r| r.get(0),
    )?;
    let mut stmt = conn.prepare(
        "SELECT branch_id FROM thoughts
         WHERE session_id = ?1 AND branch_from_thought IS NOT NULL
           AND branch_id IS NOT NULL AND branch_id <> ''
         GROUP BY branch_id ORDER BY MIN(id)",
    )?;
    let branches = stmt
        .query_map([session_id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(SessionState {
        history_length,
        branches,
    })
}

/// The audit session `id`, if it exists.
pub fn audit_session(conn: &Connection, id: &str) -> Result<Option<AuditSessionRow>, MemoryError> {
    Ok(conn
        .query_row(
            "SELECT id, config, last_review, iterations FROM audit_sessions WHERE id = ?1",
            [id],
            |r| {
                Ok(AuditSessionRow {
                    id: r.get(0)?,
                    config: r.get(1)?,
                    last_review: r.get(2)?,
                    iterations: r.get(3)?,
                })
            },
        )
        .optional()?)
}

/// Every review of the audit session, by iteration.
pub fn audit_history(conn: &Connection, id: &str) -> Result<Vec<AuditHistoryRow>, MemoryError> {
    let mut stmt = conn.prepare(
        "SELECT iteration, thought_number, candidate, overall, verdict FROM audit_history
         WHERE session_id = ?1 ORDER BY iteration",
    )?;
    let rows = stmt
        .query_map([id], |r| {
            Ok(AuditHistoryRow {
                iteration: r.get(0)?,
                thought_number: r.get(1)?,
                candidate: r.get(2)?,
                overall: r.get(3)?,
                verdict: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Renames an audit session (its history follows through `ON UPDATE CASCADE`); used
/// to keep an unreadable session for inspection while a new one takes its id.
pub fn rename_audit_session(conn: &Connection, from: &str, to: &str) -> Result<(), MemoryError> {
    conn.execute(
        "UPDATE audit_sessions SET id = ?2 WHERE id = ?1",
        params![from, to],
    )?;
    Ok(())
}

/// The highest iteration recorded for the audit session (0 when none).
pub fn last_iteration(conn: &Connection, id: &str) -> Result<i64, MemoryError> {
    Ok(conn.query_row(
        "SELECT COALESCE(MAX(iteration), 0) FROM audit_history WHERE session_id = ?1",
        [id],
        |r| r.get(0),
    )?)
}

/// Appends a review to its session, creating the session row when needed, and makes
/// it the session's last review with `config` as the configuration in force.
pub fn record_review(conn: &Connection, r: &ReviewRecord<'_>) -> Result<(), MemoryError> {
    conn.execute(
        "INSERT INTO audit_sessions (id, config, last_review, iterations, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)
         ON CONFLICT (id) DO UPDATE SET config = excluded.config,
             last_review = excluded.last_review, iterations = excluded.iterations,
             updated_at = excluded.updated_at",
        params![r.session_id, r.config, r.review, r.iteration, r.created_at],
    )?;
    conn.execute(
        "INSERT INTO audit_history (session_id, iteration, thought_number, candidate, overall,
             verdict, review, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            r.session_id,
            r.iteration,
            r.thought_number,
            r.candidate,
            r.overall,
            r.verdict,
            r.review,
            r.created_at
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryStore;

    fn thought<'a>(session: &'a str, n: i64, branch: Option<(i64, &'a str)>) -> ThoughtRecord<'a> {
        ThoughtRecord {
            session_id: session,
            thought: "t",
            thought_number: n,
            total_thoughts: n,
            next_thought_needed: true,
            is_revision: None,
            revises_thought: None,
            branch_from_thought: branch.map(|b| b.0),
            branch_id: branch.map(|b| b.1),
            needs_more_thoughts: None,
            audit_session_id: None,
            audit_iteration: None,
            created_at: "2026-01-01T00:00:00.000Z",
        }
    }

    #[test]
    fn branches_in_first_seen_order_and_only_with_a_branch_point() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::open(&dir.path().join("m.db")).unwrap();
        let conn = store.conn().unwrap();
        insert_thought(&conn, &thought("s", 1, None)).unwrap();
        insert_thought(&conn, &thought("s", 2, Some((1, "b")))).unwrap();
        insert_thought(&conn, &thought("s", 3, Some((1, "a")))).unwrap();
        insert_thought(&conn, &thought("s", 4, Some((2, "b")))).unwrap();
        insert_thought(&conn, &thought("s", 5, Some((2, "")))).unwrap();
        let mut no_point = thought("s", 6, None);
        no_point.branch_id = Some("c");
        insert_thought(&conn, &no_point).unwrap();
        insert_thought(&conn, &thought("other", 1, Some((1, "z")))).unwrap();
        let s = session_state(&conn, "s").unwrap();
        assert_eq!(s.history_length, 6);
        assert_eq!(s.branches, vec!["b".to_string(), "a".to_string()]);
        assert_eq!(latest_session(&conn).unwrap().as_deref(), Some("other"));
    }

    #[test]
    fn renaming_a_session_keeps_its_history() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::open(&dir.path().join("m.db")).unwrap();
        let conn = store.conn().unwrap();
        let r = ReviewRecord {
            session_id: "s",
            iteration: 1,
            thought_number: 2,
            candidate: "fn f() {}",
            overall: 70,
            verdict: "revise",
            review: "{}",
            config: "{}",
            created_at: "2026-01-01T00:00:00.000Z",
        };
        record_review(&conn, &r).unwrap();
        rename_audit_session(&conn, "s", "s#corrupt-1").unwrap();
        assert!(audit_session(&conn, "s").unwrap().is_none());
        assert_eq!(audit_history(&conn, "s#corrupt-1").unwrap().len(), 1);
        assert_eq!(last_iteration(&conn, "s").unwrap(), 0);
    }
}
