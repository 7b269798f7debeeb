//! The index database's migrations (the `schema/NNN_name.sql` files, applied in order
//! by [`super::database_file`], the version kept in `PRAGMA user_version`) and the
//! rendering of its current schema.

use rusqlite::Connection;

use super::database_file::DatabaseFile;
use super::error::StoreError;

/// The index database: its migrations, in order (append only: never edit one that has
/// shipped), and a pool of at most 8 connections.
pub(super) const INDEX_DB: DatabaseFile = DatabaseFile {
    migrations: MIGRATIONS,
    pool_size: 8,
};

const MIGRATIONS: &[&str] = &[
    include_str!("../../schema/001_index.sql"),
    include_str!("../../schema/002_work.sql"),
    include_str!("../../schema/003_thinking.sql"),
    include_str!("../../schema/004_import_flags.sql"),
    include_str!("../../schema/005_file_docs.sql"),
    include_str!("../../schema/006_call_resolution.sql"),
    include_str!("../../schema/007_native_calls.sql"),
    include_str!("../../schema/008_scip.sql"),
    include_str!("../../schema/009_memory_moved.sql"),
    include_str!("../../schema/010_symbol_search.sql"),
    include_str!("../../schema/011_value_references.sql"),
    include_str!("../../schema/012_ref_deps.sql"),
    include_str!("../../schema/013_ref_dep_sets.sql"),
    include_str!("../../schema/014_drop_refs_status.sql"),
    include_str!("../../schema/015_python_returns.sql"),
    include_str!("../../schema/016_parse_cache.sql"),
];

/// The schema version this build writes (the number of migrations).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The current schema of the index database as one SQL text (see [`render_schema`]),
/// as SQLite holds it after all migrations ran on an empty database. `constellation
/// schema` prints it, followed by the agent-memory database's, and `schema/CURRENT.sql`
/// is that output (a test keeps it so).
///
/// Errors: [`StoreError::Sqlite`] / [`StoreError::Migration`] if the migrations fail
/// on an in-memory database (a defect of this build).
pub fn current_schema() -> Result<String, StoreError> {
    let title = format!(
        "The index database (index.db), schema version {SCHEMA_VERSION}: schema/001..{SCHEMA_VERSION:03}.\n\
         The legacy_* tables of migration 009 are left out: they hold an older build's\n\
         agent memory until the first open moves it to the memory database."
    );
    INDEX_DB.current_schema(&title)
}

/// Renders the schema of a migrated database: a comment block with `title`, then every
/// table (in creation order, each followed by its indexes and triggers, by name) and
/// every view (by name), as the `CREATE` statements SQLite stores — comments inside
/// them included. Tables named `legacy_*` are left out.
///
/// Errors: a failed read of `sqlite_master`.
pub fn render_schema(conn: &Connection, title: &str) -> rusqlite::Result<String> {
    let mut stmt = conn.prepare(
        "SELECT type, name, tbl_name, sql FROM sqlite_master
         WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND tbl_name NOT LIKE 'legacy_%'
         ORDER BY rowid",
    )?;
    let rows: Vec<(String, String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<Result<_, _>>()?;
    let mut out = String::new();
    for line in title.lines() {
        out.push_str(&format!("-- {line}\n"));
    }
    let of = |kind: &str, table: Option<&str>| {
        let mut v: Vec<&(String, String, String, String)> = rows
            .iter()
            .filter(|r| r.0 == kind && table.is_none_or(|t| r.2 == t))
            .collect();
        if kind != "table" {
            v.sort_by(|a, b| a.1.cmp(&b.1));
        }
        v
    };
    for (_, table, _, sql) in of("table", None) {
        out.push_str(&format!("\n{sql};\n"));
        for kind in ["index", "trigger"] {
            for (_, _, _, sql) in of(kind, Some(table)) {
                out.push_str(&format!("{sql};\n"));
            }
        }
    }
    for (_, _, _, sql) in of("view", None) {
        out.push_str(&format!("\n{sql};\n"));
    }
    Ok(out)
}
