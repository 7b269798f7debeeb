//! The `file_docs` table of the memory database (`schema/memory/003_file_docs.sql`):
//! the documents `report_file_info` / `report_folder_info` save, keyed by kind and
//! path so they outlive re-indexing. Plain rows; staleness is `tools::docs`' business.

use rusqlite::{params, Connection, OptionalExtension};

use super::MemoryError;

/// A saved document (one row of `file_docs`).
#[derive(Debug, Clone, PartialEq)]
pub struct DocRow {
    /// `file` or `folder`.
    pub kind: String,
    pub path: String,
    pub digest: String,
    pub markdown: String,
    /// The report as JSON text.
    pub report: String,
    /// Root-relative path of the markdown file.
    pub artifact_path: String,
    /// ISO-8601 UTC.
    pub saved_at: String,
}

/// The saved document of `kind` (`file` | `folder`) at `path`, if any.
pub fn get_doc(conn: &Connection, kind: &str, path: &str) -> Result<Option<DocRow>, MemoryError> {
    Ok(conn
        .query_row(
            "SELECT kind, path, digest, markdown, report, artifact_path, saved_at
             FROM file_docs WHERE kind = ?1 AND path = ?2",
            params![kind, path],
            |r| {
                Ok(DocRow {
                    kind: r.get(0)?,
                    path: r.get(1)?,
                    digest: r.get(2)?,
                    markdown: r.get(3)?,
                    report: r.get(4)?,
                    artifact_path: r.get(5)?,
                    saved_at: r.get(6)?,
                })
            },
        )
        .optional()?)
}

/// Saves a document, replacing the previous one for the same kind and path.
pub fn put_doc(conn: &Connection, doc: &DocRow) -> Result<(), MemoryError> {
    conn.execute(
        "INSERT INTO file_docs (kind, path, digest, markdown, report, artifact_path, saved_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (kind, path) DO UPDATE SET digest = excluded.digest,
             markdown = excluded.markdown, report = excluded.report,
             artifact_path = excluded.artifact_path, saved_at = excluded.saved_at",
        params![
            doc.kind,
            doc.path,
            doc.digest,
            doc.markdown,
            doc.report,
            doc.artifact_path,
            doc.saved_at
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryStore;

    #[test]
    fn docs_round_trip_and_replace() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::open(&dir.path().join("m.db")).unwrap();
        let conn = store.conn().unwrap();
        assert_eq!(get_doc(&conn, "file", "a.py").unwrap(), None);
        let mut doc = DocRow {
            kind: "file".into(),
            path: "a.py".into(),
            digest: "d1".into(),
            markdown: "# a.py\n".into(),
            report: "{}".into(),
            artifact_path: ".artifacts/src/a.py.md".into(),
            saved_at: "2026-01-01T00:00:00Z".into(),
        };
        put_doc(&conn, &doc).unwrap();
        assert_eq!(get_doc(&conn, "file", "a.py").unwrap().as_ref(), Some(&doc));
        assert_eq!(get_doc(&conn, "folder", "a.py").unwrap(), None);
        doc.digest = "d2".into();
        put_doc(&conn, &doc).unwrap();
        assert_eq!(
            get_doc(&conn, "file", "a.py").unwrap().unwrap().digest,
            "d2"
        );
        let n: i64 = conn
            .query_row("SELECT count(*) FROM file_docs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }
}
