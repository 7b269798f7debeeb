//! The work hand-off tools: `save_current_work_info`,
//! `get_recent_works_info`, `get_work_by_id`. Saved work is a least-recently-used list
//! of bounded capacity (10 by default) stored in the memory database, so a restarted
//! agent, or another process on the same database, finds it. Recency is a counter in
//! the database, bumped by every save and every `get_work_by_id`; eviction happens in
//! the transaction of the save that overflows the capacity.
//!
//! workIds are 8-digit numbers (10000000–99999999) drawn at random and checked against
//! the stored ones inside the write transaction, so two processes cannot hand out the
//! same id. As in the original server, saving again with a sessionId that already has
//! an entry replaces that entry (same workId, new content, most recent).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tools::ToolError;

use super::tasks::{now_iso, snapshot, validate_session_id};
use super::work_tx::{WorkRow, WorkTx};
use super::MemoryStore;

/// Default number of saved work entries kept.
pub const DEFAULT_CAPACITY: usize = 10;
/// Longest `work_summarize`, in characters.
pub const MAX_SUMMARIZE: usize = 5000;
/// Longest `work_description`, in characters.
pub const MAX_DESCRIPTION: usize = 200;
/// Smallest and largest workId.
pub const WORK_ID_RANGE: std::ops::RangeInclusive<i64> = 10_000_000..=99_999_999;

/// Arguments of `save_current_work_info`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveWorkArgs {
    /// The hand-off: what was done, what is left, where things are (1–5000 characters).
    pub work_summarize: String,
    /// A short description to recognise the entry by (1–200 characters).
    pub work_description: String,
    /// A checklist session whose tasks are snapshotted with the entry. Saving again
    /// with the same sessionId replaces that session's entry.
    #[serde(default, rename = "sessionId")]
    pub session_id: Option<String>,
}

/// Answer of `save_current_work_info`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SaveWorkAnswer {
    /// The entry's 8-digit id.
    #[serde(rename = "workId")]
    pub work_id: String,
    /// What happened, including a warning when `sessionId` names no task session and
    /// the workIds evicted to stay within capacity.
    pub message: String,
    /// ISO-8601 UTC time of the save (the entry's `work_timestamp`).
    pub timestamp: String,
}

/// One line of `get_recent_works_info`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WorkListItem {
    /// The entry's 8-digit id.
    #[serde(rename = "workId")]
    pub work_id: String,
    /// ISO-8601 UTC time of the save.
    pub work_timestamp: String,
    /// Its short description.
    pub work_description: String,
}

/// Answer of `get_recent_works_info`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RecentWorks {
    /// Saved entries, most recently used first, at most [`MAX_LISTED_WORKS`].
    pub works: Vec<WorkListItem>,
    /// Present when more entries are saved than listed: how many, and how to read them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Entries `get_recent_works_info` lists at most (about 6,000 tokens), whatever the
/// capacity (`--work-capacity` allows up to 100,000).
pub const MAX_LISTED_WORKS: usize = 100;

/// Arguments of `get_work_by_id`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetWorkArgs {
    /// An 8-digit workId as returned by save_current_work_info.
    #[serde(rename = "workId")]
    pub work_id: String,
}

/// Answer of `get_work_by_id`: the whole entry.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct WorkInfo {
    /// The entry's 8-digit id.
    #[serde(rename = "workId")]
    pub work_id: String,
    /// ISO-8601 UTC time of the save.
    pub work_timestamp: String,
    /// Its short description.
    pub work_description: String,
    /// The hand-off text.
    pub work_summarize: String,
    /// The sessionId it was saved with, if any.
    #[serde(rename = "sessionId", skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The session's task tree as it was when saved (absent when saved without a
    /// known session).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_tasks: Option<Value>,
}

fn check_text(field: &str, value: &str, max: usize) -> Result<(), ToolError> {
    if value.trim().is_empty() {
        return Err(ToolError::InvalidArgument(format!(
            "{field} cannot be empty"
        )));
    }
    let n = value.chars().count();
    if n > max {
        return Err(ToolError::InvalidArgument(format!(
            "{field} cannot exceed {max} characters (got {n})"
        )));
    }
    Ok(())
}

/// Parses a workId: exactly 8 ASCII digits, 10000000–99999999.
pub fn parse_work_id(s: &str) -> Result<i64, ToolError> {
    let bad = || {
        ToolError::InvalidArgument(format!(
            "workId {s:?} must be an 8-digit numeric string (10000000-99999999)"
        ))
    };
    if s.len() != 8 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let id: i64 = s.parse().map_err(|_| bad())?;
    if WORK_ID_RANGE.contains(&id) {
        Ok(id)
    } else {
        Err(bad())
    }
}

/// Draws workIds until one is free, inside the write transaction `tx`.
fn fresh_work_id(tx: &WorkTx<'_>) -> Result<i64, ToolError> {
    // With at most a few thousand entries stored, a collision is a one-in-ten-thousand
    // event; 64 draws failing means something else is wrong.
    for _ in 0..64 {
        let id = fastrand::i64(WORK_ID_RANGE);
        if !tx.work_exists(id)? {
            return Ok(id);
        }
    }
    Err(ToolError::Internal(
        "could not draw a free workId in 64 attempts".into(),
    ))
}

/// `save_current_work_info`: stores the entry (with a snapshot of the session's tasks
/// when `sessionId` names a task session), makes it the most recent, and evicts the
/// least recently used entries beyond `capacity`, all in one transaction.
///
/// Errors: `invalid_argument` for an empty or too long text, or a malformed sessionId.
pub fn save_current_work_info(
    store: &MemoryStore,
    capacity: usize,
    args: &SaveWorkArgs,
) -> Result<SaveWorkAnswer, ToolError> {
    check_text("work_summarize", &args.work_summarize, MAX_SUMMARIZE)?;
    check_text("work_description", &args.work_description, MAX_DESCRIPTION)?;
    if let Some(sid) = &args.session_id {
        validate_session_id(sid)?;
    }
    let capacity = capacity.max(1);
    let timestamp = now_iso();

    let mut conn = store.conn()?;
    let tx = WorkTx::write(&mut conn)?;
    let (existing, tasks) = match &args.session_id {
        Some(sid) => (tx.work_of_session(sid)?, snapshot(&tx, sid)?),
        None => (None, None),
    };
    let work_id = match existing {
        Some(id) => id,
        None => fresh_work_id(&tx)?,
    };
    let seq = tx.next_access_seq()?;
    tx.put_work(&WorkRow {
        work_id,
        session_id: args.session_id.clone(),
        work_timestamp: timestamp.clone(),
        work_description: args.work_description.clone(),
        work_summarize: args.work_summarize.clone(),
        work_tasks: tasks.as_ref().map(Value::to_string),
        access_seq: seq,
    })?;
    let evicted = tx.evict_beyond(capacity)?;
    tx.commit()?;

    let mut message = format!("Successfully saved work information with workId: {work_id}");
    if existing.is_some() {
        message.push_str(" (replacing this session's earlier entry)");
    }
    message.push('.');
    if let Some(sid) = &args.session_id {
        if tasks.is_some() {
            message.push_str(&format!(
                " Associated with session {sid} and saved a snapshot of its tasks."
            ));
        } else {
            message.push_str(&format!(
                " Warning: Session with ID '{sid}' not found. No tasks were associated."
            ));
        }
    }
    if !evicted.is_empty() {
        let ids: Vec<String> = evicted.iter().map(i64::to_string).collect();
        tracing::info!(evicted = ?ids, "work_info over capacity {capacity}");
        message.push_str(&format!(
            " Evicted the least recently used ({}) to keep {capacity} entries.",
            ids.join(", ")
        ));
    }
    Ok(SaveWorkAnswer {
        work_id: work_id.to_string(),
        message,
        timestamp,
    })
}

/// `get_recent_works_info`: every saved entry, most recently used first. Does not
/// change recency.
pub fn get_recent_works_info(store: &MemoryStore) -> Result<RecentWorks, ToolError> {
    let mut conn = store.conn()?;
    let tx = WorkTx::read(&mut conn)?;
    let (rows, total) = tx.recent_works(MAX_LISTED_WORKS)?;
    tx.commit()?;
    let note = (total > MAX_LISTED_WORKS).then(|| {
        format!(
            "the {MAX_LISTED_WORKS} most recently used of {total} saved entries are listed; \
             get_work_by_id reads any entry, and query_index lists the rest: SELECT work_id, \
             work_description FROM memory.work_info ORDER BY access_seq DESC LIMIT 100 OFFSET 100"
        )
    });
    Ok(RecentWorks {
        note,
        works: rows
            .into_iter()
            .map(|w| WorkListItem {
                work_id: w.work_id.to_string(),
                work_timestamp: w.work_timestamp,
                work_description: w.work_description,
            })
            .collect(),
    })
}

/// `get_work_by_id`: the whole entry, which becomes the most recently used.
///
/// Errors: `invalid_argument` for a malformed workId; `not_found` for one not stored
/// (never saved, or evicted).
pub fn get_work_by_id(store: &MemoryStore, args: &GetWorkArgs) -> Result<WorkInfo, ToolError> {
    let id = parse_work_id(&args.work_id)?;
    let mut conn = store.conn()?;
    let tx = WorkTx::write(&mut conn)?;
    let Some(row) = tx.work(id)? else {
        return Err(ToolError::NotFound(format!(
            "work not found for workId '{id}' (never saved, or evicted as least recently used); \
             get_recent_works_info lists what is stored"
        )));
    };
    let seq = tx.next_access_seq()?;
    tx.set_access_seq(id, seq)?;
    tx.commit()?;
    let work_tasks = match row.work_tasks {
        Some(text) => Some(serde_json::from_str(&text).map_err(|e| {
            ToolError::Internal(format!("stored task snapshot of {id} is not JSON: {e}"))
        })?),
        None => None,
    };
    Ok(WorkInfo {
        work_id: row.work_id.to_string(),
        work_timestamp: row.work_timestamp,
        work_description: row.work_description,
        work_summarize: row.work_summarize,
        session_id: row.session_id,
        work_tasks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_ids_are_eight_digits_in_range() {
        assert_eq!(parse_work_id("10000000").unwrap(), 10_000_000);
        assert_eq!(parse_work_id("99999999").unwrap(), 99_999_999);
        for bad in [
            "0999999",
            "09999999",
            "1234567",
            "123456789",
            "1234567a",
            "+1234567",
            "",
        ] {
            let e = parse_work_id(bad).unwrap_err().to_string();
            assert!(e.starts_with("invalid_argument: workId"), "{bad}: {e}");
        }
    }

    #[test]
    fn text_limits() {
        assert!(check_text("f", "x", 3).is_ok());
        assert!(check_text("f", "  ", 3)
            .unwrap_err()
            .to_string()
            .contains("f cannot be empty"));
        assert!(check_text("f", "abcd", 3)
            .unwrap_err()
            .to_string()
            .contains("cannot exceed 3 characters"));
    }
}
