//! The symbol search table (`symbol_search`, FTS5, schema/010) and the reads of the
//! symbol tools (`search_symbols`, `get_symbol_source`): the text the indexer writes
//! beside each node, the full-text and term lookups, node rows by id, name, key and
//! line, and the call edges of one node. No ranking here: the tools rank.

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension};

use super::StoreError;
use crate::lang::identifiers::{name_token, split_identifier};

/// The eight columns of a `symbol_search` row, in table order.
pub fn search_columns(
    name: &str,
    qualified_name: &str,
    signature: Option<&str>,
    kind: &str,
    path_parts: &str,
    language: &str,
) -> [String; 8] {
    let token = name_token(name);
    let rname: String = token.chars().rev().collect();
    let scope = match qualified_name.rsplit_once("::") {
        Some((outer, _)) if kind != "file" => split_identifier(outer).join(" "),
        _ => String::new(),
    };
    [
        token,
        rname,
        split_identifier(name).join(" "),
        scope,
        path_parts.to_string(),
        signature
            .map(|s| split_identifier(s).join(" "))
            .unwrap_or_default(),
        kind.to_string(),
        language.to_string(),
    ]
}

/// Inserts the search row of node `id` (inside the index run's transaction).
pub(super) fn insert_row(
    conn: &Connection,
    id: i64,
    columns: &[String; 8],
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO symbol_search (rowid, name, rname, parts, scope, path, signature, kind, language)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        id,
        columns[0],
        columns[1],
        columns[2],
        columns[3],
        columns[4],
        columns[5],
        columns[6],
        columns[7]
    ])?;
    Ok(())
}

/// The ids of the nodes of several files: each `(file_id, keep_file_node)` gives all
/// its nodes, or all but its `file` node.
pub(super) fn node_ids_of_files(
    conn: &Connection,
    files: &[(i64, bool)],
) -> Result<Vec<i64>, StoreError> {
    let mut ids = Vec::new();
    for &(file_id, keep_file_node) in files {
        let sql = if keep_file_node {
            "SELECT id FROM nodes WHERE file_id = ?1 AND kind <> 'file'"
        } else {
            "SELECT id FROM nodes WHERE file_id = ?1"
        };
        let mut stmt = conn.prepare_cached(sql)?;
        for id in stmt.query_map([file_id], |r| r.get::<_, i64>(0))? {
            ids.push(id?);
        }
    }
    Ok(ids)
}

/// Deletes the search rows of the nodes `ids`, in one statement, rowids ascending. Call
/// before deleting the nodes.
///
/// One statement for many files' nodes, because FTS5 writes its pending terms out as a
/// new segment at every statement that deletes (a statement savepoint) and whenever a
/// rowid comes below the last one written; a delete per file, between the inserts of
/// the new nodes, made a segment and an index merge per file (a 553-file checkout spent
/// a third of its run there).
pub(super) fn delete_rows(conn: &Connection, mut ids: Vec<i64>) -> Result<(), StoreError> {
    if ids.is_empty() {
        return Ok(());
    }
    ids.sort_unstable();
    ids.dedup();
    let list = format!(
        "[{}]",
        ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
    );
    conn.prepare_cached(
        "DELETE FROM symbol_search WHERE rowid IN (SELECT value FROM json_each(?1) ORDER BY value)",
    )?
    .execute([list])?;
    Ok(())
}

/// Empties the search table (a `--full` run).
pub(super) fn delete_all(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch("INSERT INTO symbol_search (symbol_search) VALUES ('delete-all');")?;
    Ok(())
}

/// The path and language of file `file_id`: the path's identifier parts joined by
/// spaces, and `files.language` (`none` when not parsed as code).
pub(super) fn file_columns(
    conn: &Connection,
    file_id: i64,
) -> Result<(String, String), StoreError> {
    let (path, language): (String, Option<String>) = conn
        .prepare_cached("SELECT path, language FROM files WHERE id = ?1")?
        .query_row([file_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok((
        split_identifier(&path).join(" "),
        language.unwrap_or_else(|| "none".into()),
    ))
}

/// Node ids matching an FTS5 query (`MATCH` syntax), in rowid order, at most `cap`.
pub fn matching_ids(conn: &Connection, query: &str, cap: usize) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn
        .prepare_cached("SELECT rowid FROM symbol_search WHERE symbol_search MATCH ?1 LIMIT ?2")?;
    let ids = stmt
        .query_map(params![query, cap as i64], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

/// Node ids matching an FTS5 query with their names and BM25 scores (higher is better;
/// column weights: name 10, parts 6, scope 3, path 1.5, signature 1), best score first,
/// at most `cap`. The names let the caller rank every candidate before it reads any
/// whole row.
pub fn ranked_names(
    conn: &Connection,
    query: &str,
    cap: usize,
) -> Result<Vec<(i64, String, f64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.rowid, n.name, -bm25(symbol_search, 10.0, 0.0, 6.0, 3.0, 1.5, 1.0, 0.0, 0.0) AS score
         FROM symbol_search s JOIN nodes n ON n.id = s.rowid
         WHERE symbol_search MATCH ?1 ORDER BY score DESC LIMIT ?2",
    )?;
    let rows = stmt
        .query_map(params![query, cap as i64], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Distinct terms of column `column` (`name` or `rname`) from `lo` (inclusive) to `hi`
/// (exclusive), in order, at most `cap`.
pub fn terms_in_range(
    conn: &Connection,
    column: &str,
    lo: &str,
    hi: &str,
    cap: usize,
) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT term FROM symbol_search_terms WHERE term >= ?1 AND term < ?2 AND col = ?3 LIMIT ?4",
    )?;
    let terms = stmt
        .query_map(params![lo, hi, column, cap as i64], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(terms)
}

/// How many edges other than `contains` and `references` point at a node (value uses
/// are left out, as the graph algorithms leave them out), read on demand: one probe of
/// the `edges_dst` index per node asked for, each answer kept. One value serves one
/// index generation (the caller makes a new one when the generation moves).
///
/// Reading only the nodes a search ranks keeps the first search after an edit cheap on
/// a large index: counting every node's edges took a pass over all of them (2.7 million
/// on the Linux kernel) at each new generation.
///
/// When one load asks for more than [`InDegrees::PASS_AT`] unknown nodes (a common name
/// such as `new`), all in-degrees are read in one pass over the index instead, as that
/// is cheaper than so many probes (on the kernel, a probe takes about 5 µs, the pass
/// 0.26 s); every node is known from then on.
#[derive(Debug, Default)]
pub struct InDegrees {
    known: std::sync::Mutex<Known>,
}

/// What an [`InDegrees`] has read.
#[derive(Debug, Default)]
struct Known {
    /// In-degree by node id (only nodes with one, once `all` is set).
    degrees: HashMap<i64, u32>,
    /// Every node's in-degree was read: a node not in `degrees` has none.
    all: bool,
}

impl InDegrees {
    /// Beyond this many unknown nodes in one load, one pass reads them all.
    pub const PASS_AT: usize = 10_000;

    /// Reads the in-degrees of those of `ids` not known yet.
    ///
    /// Errors: a database error.
    pub fn load(
        &self,
        conn: &Connection,
        ids: impl IntoIterator<Item = i64>,
    ) -> Result<(), StoreError> {
        self.load_at(conn, ids, Self::PASS_AT)
    }

    /// [`InDegrees::load`] with the threshold of the single pass given.
    fn load_at(
        &self,
        conn: &Connection,
        ids: impl IntoIterator<Item = i64>,
        pass_at: usize,
    ) -> Result<(), StoreError> {
        let missing: Vec<i64> = {
            let known = self.lock();
            if known.all {
                return Ok(());
            }
            let mut v: Vec<i64> = ids
                .into_iter()
                .filter(|id| !known.degrees.contains_key(id))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        if missing.is_empty() {
            return Ok(());
        }
        if missing.len() > pass_at {
            let mut stmt = conn.prepare(
                "SELECT dst_id, count(*) FROM edges WHERE kind <> 'contains' AND kind <> 'references' GROUP BY dst_id",
            )?;
            let mut degrees = HashMap::new();
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let (id, n): (i64, i64) = (r.get(0)?, r.get(1)?);
                degrees.insert(id, u32::try_from(n).unwrap_or(u32::MAX));
            }
            *self.lock() = Known { degrees, all: true };
            return Ok(());
        }
        let mut stmt = conn.prepare_cached(
            "SELECT count(*) FROM edges WHERE dst_id = ?1 AND kind <> 'contains' AND kind <> 'references'",
        )?;
        let mut found = Vec::with_capacity(missing.len());
        for id in missing {
            let n: i64 = stmt.query_row([id], |r| r.get(0))?;
            found.push((id, u32::try_from(n).unwrap_or(u32::MAX)));
        }
        self.lock().degrees.extend(found);
        Ok(())
    }

    /// The in-degree of `id` as [`InDegrees::load`] read it; 0 when it was not loaded.
    pub fn get(&self, id: i64) -> u32 {
        self.lock().degrees.get(&id).copied().unwrap_or(0)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Known> {
        // The map holds plain numbers: a panic elsewhere cannot leave it half written.
        self.known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A node with its file, its signature and its file's digest, as `search_symbols` and
/// `get_symbol_source` show it (the graph snapshot's row is [`super::graph::SymbolRow`]).
#[derive(Debug, Clone)]
pub struct ShownSymbol {
    pub id: i64,
    pub key: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub path: String,
    pub language: Option<String>,
    pub signature: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    /// `files.digest` of the defining file when it was indexed.
    pub digest: Option<String>,
}

const SYMBOL_COLUMNS: &str = "n.id, n.key, n.kind, n.name, n.qualified_name, f.path, f.language,
    n.signature, n.start_line, n.end_line, f.digest";

fn symbol_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ShownSymbol> {
    Ok(ShownSymbol {
        id: r.get(0)?,
        key: r.get(1)?,
        kind: r.get(2)?,
        name: r.get(3)?,
        qualified_name: r.get(4)?,
        path: r.get(5)?,
        language: r.get(6)?,
        signature: r.get(7)?,
        start_line: r.get(8)?,
        end_line: r.get(9)?,
        digest: r.get(10)?,
    })
}

fn rows(
    conn: &Connection,
    where_clause: &str,
    args: impl rusqlite::Params,
) -> Result<Vec<ShownSymbol>, StoreError> {
    let sql = format!(
        "SELECT {SYMBOL_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id WHERE {where_clause}"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let v = stmt
        .query_map(args, symbol_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(v)
}

/// The node with id `id`.
pub fn symbol_by_id(conn: &Connection, id: i64) -> Result<Option<ShownSymbol>, StoreError> {
    Ok(rows(conn, "n.id = ?1", [id])?.into_iter().next())
}

/// The nodes with these ids, in the order given (missing ids skipped).
pub fn symbols_by_ids(conn: &Connection, ids: &[i64]) -> Result<Vec<ShownSymbol>, StoreError> {
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        if let Some(r) = symbol_by_id(conn, id)? {
            out.push(r);
        }
    }
    Ok(out)
}

/// The node with key `key`.
pub fn symbol_by_key(conn: &Connection, key: &str) -> Result<Option<ShownSymbol>, StoreError> {
    Ok(rows(conn, "n.key = ?1", [key])?.into_iter().next())
}

/// The ids of the nodes named exactly `name` (case-sensitive; the `nodes_name` index).
pub fn ids_named(conn: &Connection, name: &str) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM nodes WHERE name = ?1")?;
    let ids = stmt
        .query_map([name], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

/// The non-file nodes named exactly `name`, in id order.
pub fn symbols_named(conn: &Connection, name: &str) -> Result<Vec<ShownSymbol>, StoreError> {
    rows(
        conn,
        "n.name = ?1 AND n.kind <> 'file' ORDER BY n.id",
        [name],
    )
}

/// The file node of the file at `path`, if indexed.
pub fn file_node(conn: &Connection, path: &str) -> Result<Option<ShownSymbol>, StoreError> {
    Ok(rows(conn, "f.path = ?1 AND n.kind = 'file'", [path])?
        .into_iter()
        .next())
}

/// The innermost node of the file at `path` whose lines hold `line` (the file node
/// when no symbol does).
pub fn innermost_at(
    conn: &Connection,
    path: &str,
    line: u32,
) -> Result<Option<ShownSymbol>, StoreError> {
    Ok(rows(
        conn,
        "f.path = ?1 AND n.start_line <= ?2 AND n.end_line >= ?2
         ORDER BY n.kind = 'file', n.end_line - n.start_line, n.start_line DESC, n.id DESC LIMIT 1",
        params![path, line],
    )?
    .into_iter()
    .next())
}

/// Every indexed file path ending in `suffix` (the whole path or after a `/`).
pub fn paths_ending_with(conn: &Connection, suffix: &str) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT path FROM files WHERE path = ?1 OR path LIKE '%/' || ?2 ESCAPE '\\' ORDER BY path",
    )?;
    let escaped = suffix
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    let v = stmt
        .query_map(params![suffix, escaped], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(v)
}

/// The size and modification time (ns) of the file at `path` when it was indexed.
pub fn file_stat(conn: &Connection, path: &str) -> Result<Option<(i64, i64)>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT size, mtime_ns FROM files WHERE path = ?1")?
        .query_row([path], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// One call edge of a node: the node at the other end, the line of the call and the
/// edge's confidence.
#[derive(Debug, Clone)]
pub struct CallLink {
    pub other: ShownSymbol,
    pub line: Option<u32>,
    pub confidence: f64,
    pub provenance: Option<String>,
}

/// The call edges into (`incoming`) or out of node `id`, most confident first, then by
/// path and line; at most `cap`. Also returns how many there are in all.
pub fn call_links(
    conn: &Connection,
    id: i64,
    incoming: bool,
    cap: usize,
) -> Result<(Vec<CallLink>, usize), StoreError> {
    let (mine, other) = if incoming {
        ("dst_id", "src_id")
    } else {
        ("src_id", "dst_id")
    };
    let total: i64 = conn.query_row(
        &format!("SELECT count(*) FROM edges WHERE {mine} = ?1 AND kind = 'calls'"),
        [id],
        |r| r.get(0),
    )?;
    let sql = format!(
        "SELECT {SYMBOL_COLUMNS}, e.line, e.confidence, e.provenance
         FROM edges e JOIN nodes n ON n.id = e.{other} JOIN files f ON f.id = n.file_id
         WHERE e.{mine} = ?1 AND e.kind = 'calls'
         ORDER BY e.confidence DESC, f.path, e.line, n.id LIMIT ?2"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let links = stmt
        .query_map(params![id, cap as i64], |r| {
            Ok(CallLink {
                other: symbol_row(r)?,
                line: r.get(11)?,
                confidence: r.get(12)?,
                provenance: r.get(13)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((links, usize::try_from(total).unwrap_or(0)))
}

/// The file path of each node among `ids` (in the order given, missing ids skipped),
/// for the filters the tools apply in Rust (globs).
pub fn paths_of(conn: &Connection, ids: &[i64]) -> Result<Vec<(i64, String)>, StoreError> {
    let mut out = Vec::with_capacity(ids.len());
    let mut stmt = conn.prepare_cached(
        "SELECT f.path FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id = ?1",
    )?;
    for &id in ids {
        if let Some(p) = stmt.query_row([id], |r| r.get(0)).optional()? {
            out.push((id, p));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nodes 1-4; edges into 2 (two calls, one `contains`, one `references`) and 3 (one
    /// import).
    fn graph() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE edges (src_id INTEGER, dst_id INTEGER, kind TEXT);
             CREATE INDEX edges_dst ON edges (dst_id, kind);
             INSERT INTO edges VALUES (1, 2, 'calls'), (4, 2, 'calls'), (1, 2, 'contains'),
               (1, 2, 'references'), (1, 3, 'imports');",
        )
        .unwrap();
        conn
    }

    #[test]
    fn in_degrees_by_probe_and_by_one_pass_agree() {
        let conn = graph();
        let probed = InDegrees::default();
        probed.load_at(&conn, [2, 3], 10).unwrap();
        assert_eq!((probed.get(2), probed.get(3), probed.get(4)), (2, 1, 0));
        assert!(!probed.lock().all, "4 was not asked for");
        // A new edge is not seen: one value serves one generation.
        conn.execute("INSERT INTO edges VALUES (3, 2, 'calls')", [])
            .unwrap();
        probed.load_at(&conn, [2, 4], 10).unwrap();
        assert_eq!((probed.get(2), probed.get(4)), (2, 0));

        let passed = InDegrees::default();
        passed.load_at(&conn, [1, 2, 3], 2).unwrap();
        assert!(passed.lock().all);
        assert_eq!(
            (passed.get(1), passed.get(2), passed.get(3), passed.get(4)),
            (0, 3, 1, 0)
        );
    }
}
