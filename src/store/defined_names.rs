//! The index reads of the code auditor (`tools::audit`): which names the index defines
//! and which files it holds. The auditor's own rows (audit sessions and reviews) are
//! agent memory and live in `memory::thought_rows`.

use std::collections::HashSet;

use rusqlite::Connection;

use super::StoreError;

/// Which of `names` the index defines (as `nodes.name` of any symbol, files excluded).
pub fn defined_names<'n>(
    conn: &Connection,
    names: impl IntoIterator<Item = &'n str>,
) -> Result<HashSet<String>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT 1 FROM nodes WHERE name = ?1 AND kind <> 'file' LIMIT 1")?;
    let mut found = HashSet::new();
    for name in names {
        if stmt.exists([name])? {
            found.insert(name.to_string());
        }
    }
    Ok(found)
}

/// Paths of every indexed file, sorted.
pub fn indexed_paths(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare("SELECT path FROM files ORDER BY path")?;
    let rows = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(rows)
}
