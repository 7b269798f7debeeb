//! `schema/CURRENT.sql` is what `constellation schema` prints: the index and agent-memory
//! schemas after all migrations. After adding a migration, regenerate it with
//! `constellation schema > schema/CURRENT.sql`.

mod common;

#[test]
fn current_sql_file_matches_the_migrations() {
    let printed = common::run_ok(&["schema"]);
    let file = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/CURRENT.sql"),
    )
    .unwrap();
    assert!(
        printed == file,
        "schema/CURRENT.sql is stale: run `constellation schema > schema/CURRENT.sql`"
    );
    // Both databases, every table of each.
    for table in [
        "CREATE TABLE files",
        "CREATE TABLE edges",
        "CREATE TABLE tasks",
        "CREATE TABLE file_docs",
    ] {
        assert!(printed.contains(table), "{table}");
    }
    assert!(
        !printed.contains("CREATE TABLE legacy_"),
        "legacy tables are left out"
    );
}
