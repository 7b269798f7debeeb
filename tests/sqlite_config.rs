//! `store::configure_sqlite` in a process of its own: the settings take only before
//! SQLite initializes, which no other test of this binary does first.

#[test]
fn memory_statistics_are_off_when_configured_before_the_first_connection() {
    assert!(constellation::store::configure_sqlite());
    // A second call changes nothing and says what the first did.
    assert!(constellation::store::configure_sqlite());
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.execute_batch(
        "CREATE TABLE t (x TEXT);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
         INSERT INTO t SELECT printf('%0500d', i) FROM n;",
    )
    .unwrap();
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 2000);
    // With statistics on, SQLite would count the megabyte of pages it holds now.
    let used = unsafe { rusqlite::ffi::sqlite3_memory_used() };
    assert_eq!(used, 0, "SQLite kept memory statistics");
}
