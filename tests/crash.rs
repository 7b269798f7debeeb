//! Crash safety: SIGKILL the indexer mid-run; the previous generation stays complete
//! and readable, and the next run succeeds.

mod common;

use std::time::Duration;

use common::*;

#[cfg(unix)]
#[test]
fn killed_index_run_leaves_previous_generation_intact() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("big");
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(root.join("pkg/base.py"), "def base():\n    return 0\n").unwrap();
    let db = dir.path().join("i.db");
    let first = index_json(&root, &db, &[]);
    let gen1 = first["generation"].as_i64().unwrap();
    let conn = open_db(&db);
    let nodes1 = int(&conn, "SELECT count(*) FROM nodes");
    drop(conn);

    // A large change: 6000 modules of 40 functions each.
    write_many_modules(&root, 6000, "from pkg import base\n\n");

    let mut child = spawn_index(&root, &db);
    std::thread::sleep(Duration::from_millis(250));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run finished within 250 ms; make the change larger"
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let conn = open_db(&db);
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    assert_eq!(
        int(
            &conn,
            "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'"
        ),
        gen1
    );
    assert_eq!(
        int(&conn, "SELECT count(*) FROM nodes"),
        nodes1,
        "previous generation intact"
    );
    assert_eq!(int(&conn, "SELECT count(*) FROM files"), 2);
    drop(conn);

    let next = index_json(&root, &db, &[]);
    assert_eq!(next["filesParsed"], 6000);
    assert_eq!(next["generation"].as_i64().unwrap(), gen1 + 1);
    let conn = open_db(&db);
    assert_eq!(int(&conn, "SELECT count(*) FROM files"), 6002);
    assert_eq!(
        int(
            &conn,
            "SELECT count(*) FROM symbols WHERE path = 'pkg/m0042.py'"
        ),
        40
    );
}
