//! Reads that build graph snapshots: plain rows, no graph logic.

use rusqlite::Connection;

use super::StoreError;

/// One file as the file-level graph sees it.
#[derive(Debug, Clone)]
pub struct FileRow {
    pub id: i64,
    pub path: String,
    /// `files.language`, `None` for files that are not parsed.
    pub language: Option<String>,
}

/// The rows of the file-level dependency graph: every file, and every distinct
/// (importer, imported) pair of file ids (self-imports excluded).
#[derive(Debug, Clone, Default)]
pub struct FileGraphRows {
    pub files: Vec<FileRow>,
    pub imports: Vec<(i64, i64)>,
    /// The generation these rows were read at (same read transaction).
    pub generation: i64,
}

/// Reads [`FileGraphRows`] in one read transaction, files in path order.
pub fn load_file_graph(conn: &mut Connection) -> Result<FileGraphRows, StoreError> {
    let tx = conn.transaction()?;
    let generation = super::read_generation(&tx)?;
    let files = {
        let mut stmt = tx.prepare("SELECT id, path, language FROM files ORDER BY path")?;
        let rows = stmt
            .query_map([], |r| {
                Ok(FileRow {
                    id: r.get(0)?,
                    path: r.get(1)?,
                    language: r.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows
    };
    let imports = {
        let mut stmt = tx.prepare(
            "SELECT DISTINCT s.file_id, d.file_id FROM edges e
             JOIN nodes s ON s.id = e.src_id JOIN nodes d ON d.id = e.dst_id
             WHERE e.kind = 'imports' AND s.file_id <> d.file_id
             ORDER BY 1, 2",
        )?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows
    };
    tx.finish()?;
    Ok(FileGraphRows {
        files,
        imports,
        generation,
    })
}
