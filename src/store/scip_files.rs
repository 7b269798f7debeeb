//! The reads and writes of precise mode (`index --scip`, see `index::scip`): the files,
//! nodes and references a SCIP index is matched against, the replacement of a
//! reference's heuristic edges, and the `scip_files` table (`schema/008_scip.sql`).
//!
//! Plain rows only: what a SCIP document means is decided in `index::scip`.

use std::collections::{HashMap, HashSet};

use rusqlite::params;

use super::files::IndexTx;
use super::StoreError;

/// A `files` row as precise mode checks it against a SCIP document.
#[derive(Debug, Clone)]
pub struct ScipFile {
    pub id: i64,
    /// Relative to the root, `/` separators.
    pub path: String,
    /// `files.language` (`python`, `typescript`, ...); `None` when not parsed.
    pub language: Option<String>,
    /// blake3 of the indexed content (64 hex digits); `None` when not read.
    pub digest: Option<String>,
}

/// A node of one file, for mapping a SCIP definition (file, line, name) onto it.
#[derive(Debug, Clone)]
pub struct ScipNode {
    pub id: i64,
    /// `nodes.kind` (`function`, `method`, `class`, ...).
    pub kind: String,
    pub name: String,
    /// 1-based, inclusive.
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: u32,
    pub end_byte: u32,
    pub parent_id: Option<i64>,
}

/// A call or base reference of one file, with what resolution left on it.
#[derive(Debug, Clone)]
pub struct ScipRef {
    pub id: i64,
    pub src_id: i64,
    /// `call`, `inherit` or `implement`.
    pub kind: String,
    /// The called or base name as written.
    pub name: String,
    /// 1-based line.
    pub line: u32,
    /// Calls: 0-based byte offset of the called name in its line; 0 for bases.
    pub col: u32,
    /// `refs.status`.
    pub status: String,
    /// Its edges now: (destination node, provenance), sorted.
    pub edges: Vec<(i64, String)>,
}

impl IndexTx<'_> {
    /// Every file row, for matching SCIP documents by path.
    pub fn scip_files_on_disk(&self) -> Result<HashMap<String, ScipFile>, StoreError> {
        let mut stmt = self
            .tx
            .prepare("SELECT id, path, language, digest FROM files")?;
        let rows = stmt.query_map([], |r| {
            Ok(ScipFile {
                id: r.get(0)?,
                path: r.get(1)?,
                language: r.get(2)?,
                digest: r.get(3)?,
            })
        })?;
        let mut out = HashMap::new();
        for row in rows {
            let f = row?;
            out.insert(f.path.clone(), f);
        }
        Ok(out)
    }

    /// The symbol nodes of a file (not its `file` node), in id order.
    pub fn scip_nodes_of_file(&self, file_id: i64) -> Result<Vec<ScipNode>, StoreError> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT id, kind, name, start_line, end_line, start_byte, end_byte, parent_id
             FROM nodes WHERE file_id = ?1 AND kind <> 'file' ORDER BY id",
        )?;
        let rows = stmt
            .query_map([file_id], |r| {
                Ok(ScipNode {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    name: r.get(2)?,
                    start_line: r.get(3)?,
                    end_line: r.get(4)?,
                    start_byte: r.get(5)?,
                    end_byte: r.get(6)?,
                    parent_id: r.get(7)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The call, inherit and implement references of a file with their edges, in id
    /// order.
    pub fn scip_refs_of_file(&self, file_id: i64) -> Result<Vec<ScipRef>, StoreError> {
        let mut edges: HashMap<i64, Vec<(i64, String)>> = HashMap::new();
        {
            let mut stmt = self.tx.prepare_cached(
                "SELECT ref_id, dst_id, provenance FROM edges
                 WHERE file_id = ?1 AND ref_id IS NOT NULL
                   AND (kind = 'calls' OR kind = 'inherits' OR kind = 'implements')",
            )?;
            let rows = stmt.query_map([file_id], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get(2)?))
            })?;
            for row in rows {
                let (ref_id, dst, provenance) = row?;
                edges.entry(ref_id).or_default().push((dst, provenance));
            }
        }
        let mut stmt = self.tx.prepare_cached(
            "SELECT id, src_id, kind, name, line, col, status FROM refs
             WHERE file_id = ?1 AND (kind = 'call' OR kind = 'inherit' OR kind = 'implement')
             ORDER BY id",
        )?;
        let mut rows = stmt
            .query_map([file_id], |r| {
                Ok(ScipRef {
                    id: r.get(0)?,
                    src_id: r.get(1)?,
                    kind: r.get(2)?,
                    name: r.get(3)?,
                    line: r.get(4)?,
                    col: r.get(5)?,
                    status: r.get(6)?,
                    edges: Vec::new(),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        for r in &mut rows {
            if let Some(mut e) = edges.remove(&r.id) {
                e.sort();
                r.edges = e;
            }
        }
        Ok(rows)
    }

    /// Records that a file's references were resolved from a SCIP index (replacing an
    /// older record of the file).
    pub fn record_scip_file(
        &self,
        file_id: i64,
        digest: &str,
        tool: &str,
        refs: usize,
    ) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO scip_files (file_id, digest, tool, refs)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![file_id, digest, tool, refs as i64])?;
        Ok(())
    }

    /// Drops a file's `scip_files` row (its content is being replaced or removed).
    pub fn forget_scip_file(&self, file_id: i64) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("DELETE FROM scip_files WHERE file_id = ?1")?
            .execute([file_id])?;
        Ok(())
    }

    /// The files resolved from a SCIP index.
    pub fn scip_file_ids(&self) -> Result<HashSet<i64>, StoreError> {
        let mut stmt = self.tx.prepare_cached("SELECT file_id FROM scip_files")?;
        let ids = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<HashSet<i64>>>()?;
        Ok(ids)
    }

    /// How many edges have provenance `scip` (a scan of `edges`: only asked when
    /// `scip_files` has rows).
    pub fn count_scip_edges(&self) -> Result<i64, StoreError> {
        Ok(self.tx.query_row(
            "SELECT count(*) FROM edges WHERE provenance = 'scip'",
            [],
            |r| r.get(0),
        )?)
    }
}
