//! Reads behind the file and folder documentation tools: one file's
//! symbols, imports and callers, a folder's files and the edges that cross its
//! boundary. The documents those tools save (`file_docs`) are agent memory and live in
//! `memory::doc_rows`.
//!
//! Plain rows only: which rows matter and how they are rendered is `tools`' business.

use rusqlite::{Connection, OptionalExtension};

use crate::store::StoreError;

/// One row of `files`, as the documentation tools need it.
#[derive(Debug, Clone, PartialEq)]
pub struct FileEntry {
    pub id: i64,
    /// Root-relative path, `/` separators.
    pub path: String,
    /// `files.language`; `None` for files that are not parsed.
    pub language: Option<String>,
    /// `files.status`: `parsed`, `parse_errors`, `asset`, `binary`, `too_large`, `unreadable`.
    pub status: String,
    /// Why a file was skipped, when it was.
    pub detail: Option<String>,
    /// blake3 of the contents at the last index run, when read.
    pub digest: Option<String>,
    /// Bytes at the last stat.
    pub size: i64,
}

/// A symbol defined in a file (never the file node itself).
#[derive(Debug, Clone, PartialEq)]
pub struct SymbolDef {
    pub id: i64,
    /// `module`, `function`, `method`, `class`, `struct`, `enum`, `trait`, `interface`.
    pub kind: String,
    pub name: String,
    /// Enclosing names joined by `::`.
    pub qualified_name: String,
    /// Declaration up to its body, whitespace collapsed.
    pub signature: Option<String>,
    /// 1-based, inclusive.
    pub start_line: i64,
    pub end_line: i64,
    /// The innermost enclosing symbol; `None` for top-level symbols (whose parent is
    /// the file node).
    pub parent_id: Option<i64>,
}

/// One import statement of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportEntry {
    /// The specifier as written (`./util`, `os.path`, `crate::store`).
    pub specifier: String,
    /// `import`, `reexport`, `require`, `dynamic`, `mod`, `use`.
    pub form: Option<String>,
    /// 1-based line.
    pub line: i64,
    /// `resolved`, `unresolved`, `ambiguous`, `external`.
    pub status: String,
    /// The file it resolved to, when it did.
    pub target: Option<String>,
}

/// One call into a symbol of the file, from the reverse call index (`edges` of kind
/// `calls` whose destination is the symbol).
#[derive(Debug, Clone, PartialEq)]
pub struct CallerEntry {
    /// The called symbol (`nodes.id`, defined in the file asked about).
    pub callee_id: i64,
    /// Qualified name of the calling symbol; the path for module-level code.
    pub caller: String,
    /// Kind of the calling node (`function`, `method`, `file`, ...).
    pub caller_kind: String,
    /// File of the call.
    pub path: String,
    /// 1-based line of the call.
    pub line: Option<i64>,
    /// Resolution confidence of the call edge.
    pub confidence: f64,
    /// The rule that resolved it (`edges.provenance`).
    pub provenance: String,
}

/// A file under a folder, with its symbol counts.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderFile {
    pub path: String,
    pub language: Option<String>,
    pub status: String,
    pub digest: Option<String>,
    /// Nodes of kind function or method.
    pub functions: i64,
    /// Nodes of kind class, struct, enum, trait or interface.
    pub classes: i64,
    /// Bare names of the file's top-level symbols, in line order (at most 50).
    pub top_level: Vec<String>,
}

/// A file-to-file import edge with both paths (one per distinct pair and line).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportEdge {
    pub src: String,
    pub dst: String,
    pub line: Option<i64>,
}

/// A call edge with names and paths on both ends.
#[derive(Debug, Clone, PartialEq)]
pub struct CallEdge {
    pub caller: String,
    pub caller_path: String,
    pub callee: String,
    pub callee_path: String,
    pub line: Option<i64>,
}

/// The `files` row at `path`, if the index has one.
pub fn file_by_path(conn: &Connection, path: &str) -> Result<Option<FileEntry>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT id, path, language, status, detail, digest, size FROM files WHERE path = ?1",
            [path],
            |r| {
                Ok(FileEntry {
                    id: r.get(0)?,
                    path: r.get(1)?,
                    language: r.get(2)?,
                    status: r.get(3)?,
                    detail: r.get(4)?,
                    digest: r.get(5)?,
                    size: r.get(6)?,
                })
            },
        )
        .optional()?)
}

/// Every symbol of a file (file node excluded), in line order, then by id.
pub fn file_symbols(conn: &Connection, file_id: i64) -> Result<Vec<SymbolDef>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT n.id, n.kind, n.name, n.qualified_name, n.signature, n.start_line, n.end_line,
                CASE WHEN p.kind = 'file' THEN NULL ELSE n.parent_id END
         FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id
         WHERE n.file_id = ?1 AND n.kind <> 'file'
         ORDER BY n.start_line, n.id",
    )?;
    let rows = stmt
        .query_map([file_id], |r| {
            Ok(SymbolDef {
                id: r.get(0)?,
                kind: r.get(1)?,
                name: r.get(2)?,
                qualified_name: r.get(3)?,
                signature: r.get(4)?,
                start_line: r.get(5)?,
                end_line: r.get(6)?,
                parent_id: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The import references of a file in line order, with the file each resolved to.
pub fn file_imports(conn: &Connection, file_id: i64) -> Result<Vec<ImportEntry>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.name, r.form, r.line, r.status,
                (SELECT df.path FROM edges e JOIN nodes d ON d.id = e.dst_id
                 JOIN files df ON df.id = d.file_id WHERE e.ref_id = r.id LIMIT 1)
         FROM refs r WHERE r.file_id = ?1 AND r.kind = 'import'
         ORDER BY r.line, r.id",
    )?;
    let rows = stmt
        .query_map([file_id], |r| {
            Ok(ImportEntry {
                specifier: r.get(0)?,
                form: r.get(1)?,
                line: r.get(2)?,
                status: r.get(3)?,
                target: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Every call edge into a symbol defined in the file, ordered by callee, caller path
/// and line.
pub fn callers_into_file(conn: &Connection, file_id: i64) -> Result<Vec<CallerEntry>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.dst_id, s.qualified_name, s.kind, sf.path, e.line, e.confidence, e.provenance
         FROM nodes d JOIN edges e ON e.dst_id = d.id AND e.kind = 'calls'
         JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
         WHERE d.file_id = ?1
         ORDER BY e.dst_id, sf.path, e.line, s.qualified_name",
    )?;
    let rows = stmt
        .query_map([file_id], |r| {
            Ok(CallerEntry {
                callee_id: r.get(0)?,
                caller: r.get(1)?,
                caller_kind: r.get(2)?,
                path: r.get(3)?,
                line: r.get(4)?,
                confidence: r.get(5)?,
                provenance: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Paths of the other files that import the file, sorted.
pub fn importers_of_file(conn: &Connection, file_id: i64) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT sf.path FROM nodes d JOIN edges e ON e.dst_id = d.id AND e.kind = 'imports'
         JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
         WHERE d.file_id = ?1 AND s.file_id <> ?1 ORDER BY sf.path",
    )?;
    let rows = stmt
        .query_map([file_id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(rows)
}

/// SQL condition "path is inside the folder `?1`" (`''` meaning the whole tree),
/// without LIKE, whose `_` and `%` would match paths that merely look alike.
const UNDER: &str = "(?1 = '' OR substr(PATH, 1, length(?1) + 1) = ?1 || '/')";

fn under(column: &str) -> String {
    UNDER.replace("PATH", column)
}

/// SQL of a CTE `picked(id)`: the ids of the edges of `kind` with at least one end in
/// a file under the folder `?1`, found through the edges' `src_id` and `dst_id` indexes
/// from the folder's nodes rather than by scanning every edge (`CROSS JOIN` fixes that
/// order: without statistics SQLite's planner scanned the edges, 150 ms on 566k edges).
fn edges_touching(kind: &str) -> String {
    format!(
        "inside(id) AS (SELECT id FROM files WHERE {}),
         picked(id) AS (
             SELECT e.id FROM inside CROSS JOIN nodes n ON n.file_id = inside.id
                 CROSS JOIN edges e ON e.src_id = n.id AND e.kind = '{kind}'
             UNION
             SELECT e.id FROM inside CROSS JOIN nodes n ON n.file_id = inside.id
                 CROSS JOIN edges e ON e.dst_id = n.id AND e.kind = '{kind}')",
        under("path")
    )
}

/// The indexed files under `folder` (`""` for the whole tree), in path order, with
/// their symbol counts.
pub fn folder_files(conn: &Connection, folder: &str) -> Result<Vec<FolderFile>, StoreError> {
    let sql = format!(
        "SELECT f.id, f.path, f.language, f.status, f.digest,
                (SELECT count(*) FROM nodes n WHERE n.file_id = f.id AND (n.kind = 'function' OR n.kind = 'method')),
                (SELECT count(*) FROM nodes n WHERE n.file_id = f.id AND (n.kind = 'class' OR n.kind = 'struct'
                    OR n.kind = 'enum' OR n.kind = 'trait' OR n.kind = 'interface'))
         FROM files f WHERE {} ORDER BY f.path",
        under("f.path")
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map([folder], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                FolderFile {
                    path: r.get(1)?,
                    language: r.get(2)?,
                    status: r.get(3)?,
                    digest: r.get(4)?,
                    functions: r.get(5)?,
                    classes: r.get(6)?,
                    top_level: Vec::new(),
                },
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut top = conn.prepare_cached(
        "SELECT n.name FROM nodes n JOIN nodes p ON p.id = n.parent_id
         WHERE n.file_id = ?1 AND p.kind = 'file' ORDER BY n.start_line, n.id LIMIT 50",
    )?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, mut f) in rows {
        f.top_level = top
            .query_map([id], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        out.push(f);
    }
    Ok(out)
}

/// Distinct file-to-file import edges with at least one end under `folder`, by
/// source path, destination path and line.
pub fn folder_import_edges(conn: &Connection, folder: &str) -> Result<Vec<ImportEdge>, StoreError> {
    let sql = format!(
        "WITH {}
         SELECT DISTINCT sf.path, df.path, e.line
         FROM picked CROSS JOIN edges e ON e.id = picked.id
         JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
         JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
         WHERE sf.id <> df.id
         ORDER BY sf.path, df.path, e.line",
        edges_touching("imports")
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map([folder], |r| {
            Ok(ImportEdge {
                src: r.get(0)?,
                dst: r.get(1)?,
                line: r.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Call edges with at least one end under `folder`, by caller path, line, callee.
pub fn folder_call_edges(conn: &Connection, folder: &str) -> Result<Vec<CallEdge>, StoreError> {
    let sql = format!(
        "WITH {}
         SELECT s.qualified_name, sf.path, d.qualified_name, df.path, e.line
         FROM picked CROSS JOIN edges e ON e.id = picked.id
         JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
         JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
         ORDER BY sf.path, e.line, d.qualified_name, df.path",
        edges_touching("calls")
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map([folder], |r| {
            Ok(CallEdge {
                caller: r.get(0)?,
                caller_path: r.get(1)?,
                callee: r.get(2)?,
                callee_path: r.get(3)?,
                line: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::params;

    #[test]
    fn folder_condition_is_not_a_like_pattern() {
        let conn = Connection::open_in_memory().unwrap();
        let sql = format!("SELECT {}", under("?2"));
        let inside = |folder: &str, path: &str| -> bool {
            conn.query_row(&sql, params![folder, path], |r| r.get(0))
                .unwrap()
        };
        assert!(inside("src", "src/a.rs"));
        assert!(inside("", "src/a.rs"));
        assert!(!inside("src", "src_old/a.rs"));
        assert!(!inside("s_c", "src/a.rs"));
        assert!(!inside("src", "src"));
    }
}
