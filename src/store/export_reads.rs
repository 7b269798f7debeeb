//! Streaming reads of the whole index in id order, for `constellation export`.

use rusqlite::Connection;

use super::StoreError;

/// A file as exported: only what is the same on every checkout of the same tree (no
/// mtime, no run generation).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ExportFile {
    pub path: String,
    pub language: Option<String>,
    pub size: i64,
    pub digest: Option<String>,
    pub status: String,
}

/// A node as exported, identified by its key.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportNode {
    pub id: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub path: String,
    pub start_line: i64,
    pub end_line: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// An edge as exported, between node keys.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ExportEdge {
    pub src: String,
    pub dst: String,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<i64>,
    pub confidence: f64,
}

/// Calls `f` for every file in path order.
pub fn each_file(
    conn: &Connection,
    mut f: impl FnMut(ExportFile) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut stmt =
        conn.prepare("SELECT path, language, size, digest, status FROM files ORDER BY path")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(ExportFile {
            path: r.get(0)?,
            language: r.get(1)?,
            size: r.get(2)?,
            digest: r.get(3)?,
            status: r.get(4)?,
        })?;
    }
    Ok(())
}

/// Calls `f` for every node in key order (keys are stable across runs; ids of an
/// incrementally updated index are not).
pub fn each_node(
    conn: &Connection,
    mut f: impl FnMut(ExportNode) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut stmt = conn.prepare(
        "SELECT n.key, n.kind, n.name, n.qualified_name, f.path, n.start_line, n.end_line, n.signature
         FROM nodes n JOIN files f ON f.id = n.file_id ORDER BY n.key",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(ExportNode {
            id: r.get(0)?,
            kind: r.get(1)?,
            name: r.get(2)?,
            qualified_name: r.get(3)?,
            path: r.get(4)?,
            start_line: r.get(5)?,
            end_line: r.get(6)?,
            signature: r.get(7)?,
        })?;
    }
    Ok(())
}

/// Calls `f` for every edge, ordered by (source key, kind, destination key, line).
pub fn each_edge(
    conn: &Connection,
    mut f: impl FnMut(ExportEdge) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut stmt = conn.prepare(
        "SELECT s.key, d.key, e.kind, e.line, e.confidence
         FROM edges e JOIN nodes s ON s.id = e.src_id JOIN nodes d ON d.id = e.dst_id
         ORDER BY s.key, e.kind, d.key, e.line",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(ExportEdge {
            src: r.get(0)?,
            dst: r.get(1)?,
            kind: r.get(2)?,
            line: r.get(3)?,
            confidence: r.get(4)?,
        })?;
    }
    Ok(())
}
