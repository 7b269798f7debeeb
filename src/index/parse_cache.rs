//! When an index run reuses the facts of a content parsed before, and when it keeps
//! what it parses (the rows: `store::parse_cache`).
//!
//! A branch switch, a rebase or a worktree at another commit brings back contents an
//! earlier run parsed. What `lang::extract` returns depends only on the bytes, the
//! language and the build, so a run looks each content up by (blake3 digest,
//! language) among the rows this build wrote ([`lang::EXTRACTOR_ID`]) and decodes the
//! facts instead of parsing. Incremental runs keep the facts of every file they parse.
//! A build from nothing (`--full`, a new database) never reads the cache, so it stays
//! the reference the others are checked against; it keeps the facts of the files it
//! parses first, in path order, until they add up to [`CAP_BYTES`] (the commit a
//! branch is switched back to is most often the one indexed first). A shard stores
//! nothing: a merge keeps no shard's cache. After a run that stored rows, the least
//! recently used go until the blobs add up to at most [`CAP_BYTES`].
//!
//! A row whose facts no longer decode (a corrupt database page, a build whose types
//! changed under the same id) is deleted and the file parsed as if it were absent:
//! nothing is lost, the log says so.

use std::sync::atomic::{AtomicI64, Ordering};

use crate::lang::{self, FileFacts, Language};
use crate::store::files::IndexTx;
use crate::store::parse_cache::ParseCacheKeys;
use crate::store::StoreError;

/// The most the cache's blobs may add up to after a run: 64 MiB. The facts of one
/// content take about a third of its size (Python), so this holds some 190 MB of
/// source: the differing files of many branch switches of a large project.
pub const CAP_BYTES: i64 = 64 << 20;

/// What a run may reuse and how much it stores: built once per run.
pub(super) struct Plan {
    keys: ParseCacheKeys,
    /// A build from nothing: the bytes it may still store (parsing threads take from
    /// it). `None`: an incremental run, which stores every parse.
    budget: Option<AtomicI64>,
}

impl Plan {
    /// The plan of a run: `None` for a shard; a build from nothing (`fresh`) reads no
    /// key and stores up to [`CAP_BYTES`].
    ///
    /// Errors: SQLite's, reading the keys.
    pub(super) fn new(
        tx: &IndexTx<'_>,
        fresh: bool,
        shard: bool,
    ) -> Result<Option<Plan>, StoreError> {
        if shard {
            return Ok(None);
        }
        if fresh {
            return Ok(Some(Plan {
                keys: ParseCacheKeys::new(),
                budget: Some(AtomicI64::new(CAP_BYTES)),
            }));
        }
        Ok(Some(Plan {
            keys: tx.parse_cache_keys(lang::EXTRACTOR_ID)?,
            budget: None,
        }))
    }

    /// The facts of a parse, encoded for the cache, when this run still stores.
    pub(super) fn encode(&self, facts: &FileFacts) -> Option<Vec<u8>> {
        if let Some(budget) = &self.budget {
            if budget.load(Ordering::Relaxed) <= 0 {
                return None;
            }
        }
        let bytes = lang::encode_facts(facts)?;
        if let Some(budget) = &self.budget {
            if budget.fetch_sub(bytes.len() as i64, Ordering::Relaxed) <= 0 {
                return None;
            }
        }
        Some(bytes)
    }

    /// The row holding the facts of this content, if this build stored them.
    pub(super) fn lookup(&self, digest: &str, language: Language) -> Option<i64> {
        self.keys
            .get(&(digest.to_string(), language.name().to_string()))
            .copied()
    }
}

/// The facts of row `id`, marked as used by `generation`; `None` (and the row
/// deleted, with a warning naming `path`) when it is gone or does not decode.
///
/// Errors: SQLite's.
pub(super) fn take(
    tx: &IndexTx<'_>,
    id: i64,
    generation: i64,
    path: &str,
) -> Result<Option<FileFacts>, StoreError> {
    let Some(bytes) = tx.parse_cache_take(id, generation)? else {
        return Ok(None);
    };
    match lang::decode_facts(&bytes) {
        Ok(facts) => Ok(Some(facts)),
        Err(e) => {
            tracing::warn!("the parse cache's facts of {path} do not decode ({e}): parsing it");
            tx.parse_cache_forget(id)?;
            Ok(None)
        }
    }
}

/// The status and detail of a file whose extraction gave `facts`.
pub(super) fn parsed_status(facts: &FileFacts) -> (&'static str, Option<String>) {
    if facts.has_errors {
        (
            "parse_errors",
            Some("the syntax tree has errors; facts come from the rest".to_string()),
        )
    } else {
        ("parsed", None)
    }
}
