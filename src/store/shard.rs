//! A shard database (`constellation index --shard K/N`) as `merge` reads it: which
//! shard it is (the `meta` row `shard`), its files, and each file's nodes and
//! references in the order the shard inserted them.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use super::files::{stored_file, stored_ref, Ref, StoredFile, REF_COLUMNS, STORED_FILE_COLUMNS};
use super::StoreError;

/// The `meta` key holding a shard's [`ShardMeta`] as JSON.
const SHARD_KEY: &str = "shard";

/// What a shard database says of itself (the `meta` row `shard`, JSON).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShardMeta {
    /// This shard's number, 1-based (`K` of `K/N`).
    pub k: u32,
    /// How many shards the tree was cut into (`N`).
    pub n: u32,
    /// blake3 digest (hex) of the whole tree's file list as the shard's walk found it:
    /// every path with its size, in path order. Shards of one tree agree on it.
    pub tree: String,
    /// Files in the whole tree (all shards together).
    pub tree_files: u64,
    /// The workspace root the shard indexed (absolute), the default root of `merge`.
    pub root: String,
}

/// Opens a shard database read-only, with a page cache of 8 MiB (a merge reads each
/// file's rows once, in order; N shards with the usual 64 MiB each would hold a
/// gigabyte on a large tree). Errors: missing, corrupt, or written by another schema
/// version than this build's (shards and merge must come from one build).
pub fn open(path: &Path) -> Result<Connection, StoreError> {
    let conn = super::schema::INDEX_DB.connect_read_only(path, false)?.0;
    conn.execute_batch("PRAGMA cache_size = -8192")?;
    Ok(conn)
}

/// The shard's own description, `None` for an index built without `--shard`.
///
/// Errors: a database error, or a `shard` row that is not a shard description
/// ([`StoreError::Corrupt`], naming `path`).
pub fn read_meta(conn: &Connection, path: &Path) -> Result<Option<ShardMeta>, StoreError> {
    let text: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [SHARD_KEY], |r| {
            r.get(0)
        })
        .optional()?;
    text.map(|t| {
        serde_json::from_str(&t).map_err(|e| StoreError::Corrupt {
            path: path.to_path_buf(),
            message: format!("its meta row `shard` is not a shard description: {e}"),
        })
    })
    .transpose()
}

/// Writes (`Some`) or removes (`None`: an index of the whole tree) the shard
/// description, inside the run's transaction.
pub fn write_meta(
    tx: &super::files::IndexTx<'_>,
    meta: Option<&ShardMeta>,
) -> Result<(), StoreError> {
    match meta {
        Some(m) => {
            let text = serde_json::to_string(m)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            tx.tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [SHARD_KEY, text.as_str()],
            )?;
        }
        None => {
            tx.tx
                .execute("DELETE FROM meta WHERE key = ?1", [SHARD_KEY])?;
        }
    }
    Ok(())
}

/// A `files` row of a shard, with everything a merge writes back.
#[derive(Debug, Clone)]
pub struct ShardFile {
    pub file: StoredFile,
    /// `files.detail`.
    pub detail: Option<String>,
}

/// Every file of a shard, in path order.
pub fn files(conn: &Connection) -> Result<Vec<ShardFile>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {STORED_FILE_COLUMNS}, detail FROM files ORDER BY path"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(ShardFile {
            file: stored_file(r)?,
            detail: r.get(STORED_FILE_COLUMNS.split(',').count())?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A `nodes` row of a shard.
#[derive(Debug, Clone)]
pub struct ShardNode {
    pub id: i64,
    pub key: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub signature: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: u32,
    pub end_byte: u32,
    pub parent_id: Option<i64>,
    pub returns: Option<String>,
}

/// The nodes of one file in id order: the order the shard inserted them (the `file`
/// node first, every parent before its children).
pub fn file_nodes(conn: &Connection, file_id: i64) -> Result<Vec<ShardNode>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, key, kind, name, qualified_name, signature, start_line, end_line,
           start_byte, end_byte, parent_id, returns
         FROM nodes WHERE file_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([file_id], |r| {
        Ok(ShardNode {
            id: r.get(0)?,
            key: r.get(1)?,
            kind: r.get(2)?,
            name: r.get(3)?,
            qualified_name: r.get(4)?,
            signature: r.get(5)?,
            start_line: r.get(6)?,
            end_line: r.get(7)?,
            start_byte: r.get(8)?,
            end_byte: r.get(9)?,
            parent_id: r.get(10)?,
            returns: r.get(11)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// The references written in one file, in id order (the order extraction gave them).
pub fn file_refs(conn: &Connection, file_id: i64) -> Result<Vec<Ref>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {REF_COLUMNS} FROM refs WHERE file_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([file_id], stored_ref)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}
