//! The `parse_cache` table (`schema/016_parse_cache.sql`): encoded facts of file
//! contents parsed before, by blake3 digest, language and extracting build.
//!
//! Plain rows only: when a run reads or writes them is decided in `index::parse_cache`.

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};

use super::files::IndexTx;
use super::StoreError;

/// The reusable rows of one build: (digest, language) → row id.
pub type ParseCacheKeys = HashMap<(String, String), i64>;

// The statements that read many rows, named so that the test of their query plans
// checks the very statements the code runs; each reads an index, never the table.

/// The keys of the rows build `?1` wrote (`parse_cache_key`).
const KEYS_SELECT: &str = "SELECT id, digest, language FROM parse_cache WHERE extractor = ?1";

/// The rows of builds other than `?1`, as two ranges of `parse_cache_key`.
const OTHER_BUILDS_DELETE: &str = "DELETE FROM parse_cache WHERE extractor < ?1 OR extractor > ?1";

/// The bytes the blobs add up to (`parse_cache_used`).
const CAP_SUM: &str = "SELECT total(size) FROM parse_cache";

/// The rows with their sizes, least recently used first (`parse_cache_used`).
const LRU_ORDER: &str = "SELECT id, size FROM parse_cache ORDER BY used, id";

impl IndexTx<'_> {
    /// The rows `extractor` wrote, by (digest, language): what a run may reuse.
    /// Read from the key index alone: no blob is read.
    ///
    /// Errors: SQLite's.
    pub fn parse_cache_keys(&self, extractor: &str) -> Result<ParseCacheKeys, StoreError> {
        let mut stmt = self.tx.prepare_cached(KEYS_SELECT)?;
        let rows = stmt.query_map([extractor], |r| {
            Ok(((r.get::<_, String>(1)?, r.get::<_, String>(2)?), r.get(0)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The encoded facts of row `id`, marked as used by `generation`; `None` when the
    /// row is gone.
    ///
    /// Errors: SQLite's.
    pub fn parse_cache_take(
        &self,
        id: i64,
        generation: i64,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let facts = self
            .tx
            .prepare_cached("SELECT facts FROM parse_cache WHERE id = ?1")?
            .query_row([id], |r| r.get::<_, Vec<u8>>(0))
            .optional()?;
        if facts.is_some() {
            self.tx
                .prepare_cached("UPDATE parse_cache SET used = ?2 WHERE id = ?1")?
                .execute(params![id, generation])?;
        }
        Ok(facts)
    }

    /// Deletes row `id` (its facts did not decode).
    ///
    /// Errors: SQLite's.
    pub fn parse_cache_forget(&self, id: i64) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("DELETE FROM parse_cache WHERE id = ?1")?
            .execute([id])?;
        Ok(())
    }

    /// Stores the encoded facts of a content, used by `generation` (a row of the same
    /// key is only marked as used).
    ///
    /// Errors: SQLite's.
    pub fn parse_cache_put(
        &self,
        digest: &str,
        language: &str,
        extractor: &str,
        facts: &[u8],
        generation: i64,
    ) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(
                "INSERT INTO parse_cache (digest, language, extractor, facts, size, used)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (extractor, digest, language) DO UPDATE SET used = excluded.used",
            )?
            .execute(params![
                digest,
                language,
                extractor,
                facts,
                facts.len() as i64,
                generation
            ])?;
        Ok(())
    }

    /// Deletes the rows of other builds, then the least recently used rows (oldest
    /// `used` first, then oldest row) until the blobs of the rest add up to at most
    /// `cap_bytes`. Returns (rows deleted, bytes kept).
    ///
    /// Errors: SQLite's.
    pub fn parse_cache_trim(
        &self,
        extractor: &str,
        cap_bytes: i64,
    ) -> Result<(usize, i64), StoreError> {
        // Two ranges of parse_cache_key, not `extractor <> ?1`: SQLite answers that
        // with a scan of the table, whose leaf pages hold the first part of every blob.
        let mut deleted = self
            .tx
            .prepare_cached(OTHER_BUILDS_DELETE)?
            .execute([extractor])?;
        let total: i64 = self.tx.query_row(CAP_SUM, [], |r| r.get::<_, f64>(0))? as i64;
        if total <= cap_bytes {
            return Ok((deleted, total));
        }
        let mut excess = total - cap_bytes;
        let mut gone = Vec::new();
        {
            let mut stmt = self.tx.prepare(LRU_ORDER)?;
            let mut rows = stmt.query([])?;
            while excess > 0 {
                let Some(row) = rows.next()? else { break };
                let (id, size): (i64, i64) = (row.get(0)?, row.get(1)?);
                gone.push(id);
                excess -= size;
            }
        }
        let mut delete = self
            .tx
            .prepare_cached("DELETE FROM parse_cache WHERE id = ?1")?;
        for id in &gone {
            deleted += delete.execute([id])?;
        }
        Ok((deleted, cap_bytes + excess.min(0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    fn database() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::schema::INDEX_DB
            .migrate(&mut conn, std::path::Path::new(":memory:"))
            .unwrap();
        conn
    }

    #[test]
    fn trim_drops_other_builds_then_the_least_recently_used_down_to_the_cap() {
        let mut conn = database();
        let tx = IndexTx::begin(&mut conn).unwrap();
        let blob = vec![7u8; 100];
        // Rows d1..d4 of this build, used by generations 3, 1, 2, 2; one of another.
        for (digest, used) in [("d1", 3), ("d2", 1), ("d3", 2), ("d4", 2)] {
            tx.parse_cache_put(digest, "python", "this", &blob, used)
                .unwrap();
        }
        tx.parse_cache_put("d1", "python", "other", &blob, 9)
            .unwrap();
        // Storing a key again only marks it used.
        tx.parse_cache_put("d2", "python", "this", &[1, 2], 4)
            .unwrap();
        let keys = tx.parse_cache_keys("this").unwrap();
        assert_eq!(keys.len(), 4);
        let d2 = keys[&("d2".to_string(), "python".to_string())];
        assert_eq!(tx.parse_cache_take(d2, 5).unwrap(), Some(blob.clone()));

        // 400 bytes of this build's over a cap of 250: d3 and d4 (used by 2, the
        // older row first) go, then the cap holds; d2 (now used by 5) and d1 stay.
        assert_eq!(tx.parse_cache_trim("this", 250).unwrap(), (3, 200));
        let mut left: Vec<String> = tx
            .parse_cache_keys("this")
            .unwrap()
            .into_keys()
            .map(|(digest, _)| digest)
            .collect();
        left.sort();
        assert_eq!(left, ["d1", "d2"]);
        assert!(tx.parse_cache_keys("other").unwrap().is_empty());
        // Under the cap, only other builds' rows would go.
        assert_eq!(tx.parse_cache_trim("this", 250).unwrap(), (0, 200));

        tx.parse_cache_forget(d2).unwrap();
        assert_eq!(tx.parse_cache_take(d2, 6).unwrap(), None);
    }

    /// The plan SQLite gives `sql`, its detail lines joined.
    fn plan(conn: &Connection, sql: &str) -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        // Parameters are NULL: the plan is made when the statement is prepared.
        let nulls = vec![rusqlite::types::Null; stmt.parameter_count()];
        let lines: Vec<String> = stmt
            .query_map(rusqlite::params_from_iter(nulls), |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        lines.join("; ")
    }

    #[test]
    fn the_cap_is_read_from_an_index_without_touching_the_blobs() {
        // Every run that stores a parse trims the cache: read from the table, the sum
        // walked every blob's overflow pages (a one-file edit of the stdlib took 89 ms
        // instead of 57, and twice the memory), and the delete of other builds' rows
        // read a leaf page per blob (4-6 ms). Both of the cap's queries are covered by
        // parse_cache_used, the key lookup and that delete by parse_cache_key.
        let conn = database();
        let sum = plan(&conn, CAP_SUM);
        assert!(sum.contains("COVERING INDEX parse_cache_used"), "{sum}");
        let order = plan(&conn, LRU_ORDER);
        assert!(order.contains("COVERING INDEX parse_cache_used"), "{order}");
        let keys = plan(&conn, KEYS_SELECT);
        assert!(keys.contains("COVERING INDEX parse_cache_key"), "{keys}");
        // `extractor <> ?1` would scan the table, reading a page per blob.
        let others = plan(&conn, OTHER_BUILDS_DELETE);
        assert!(!others.contains("SCAN"), "{others}");
        assert!(
            others.contains("COVERING INDEX parse_cache_key"),
            "{others}"
        );
    }
}
