//! The index as a CI artifact: relocatable, reproducible, checkable, atomic.

mod common;

use std::path::Path;
use std::time::Duration;

use common::*;

fn check_code(root: &Path, db: &Path) -> (i32, String) {
    let out = run(&[
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--check",
    ]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn relocated_database_parses_nothing_and_answers_the_same() {
    let (_a, root_a) = fixture_copy("ts-app");
    let db_a = root_a.parent().unwrap().join("built.db");
    let built = index_json(&root_a, &db_a, &[]);
    assert!(built["filesParsed"].as_u64().unwrap() > 10);
    let before = export_json(&root_a, &db_a);
    let query = "SELECT src_path || ' -> ' || dst_path FROM file_imports ORDER BY 1";
    let imports_a = strings(&open_db(&db_a), query);

    // Another checkout: a copy of the tree (new mtimes) at another path, and the database.
    let b = tempfile::tempdir().unwrap();
    let root_b = b.path().join("elsewhere").join("ts-app");
    copy_tree(&root_a, &root_b);
    let db_b = b.path().join("shipped.db");
    std::fs::copy(&db_a, &db_b).unwrap();
    std::thread::sleep(Duration::from_millis(20));

    let (code, text) = check_code(&root_b, &db_b);
    assert_eq!(
        code, 0,
        "same contents: fresh even with new mtimes ({text})"
    );
    let r = index_json(&root_b, &db_b, &[]);
    assert_eq!(r["filesParsed"], 0);
    assert_eq!(
        r["filesHashed"], built["filesSeen"],
        "every stat moved, every file hashed"
    );
    assert_eq!(r["changed"], false);
    assert_eq!(r["generation"], built["generation"]);
    assert_eq!(export_json(&root_b, &db_b), before);
    assert_eq!(strings(&open_db(&db_b), query), imports_a);
    // The stats were recorded: the next run reads nothing.
    assert_eq!(index_json(&root_b, &db_b, &[])["filesHashed"], 0);
}

#[test]
fn two_fresh_builds_export_identical_bytes() {
    let (_a, root) = fixture_copy("py-pkg");
    let dir = root.parent().unwrap();
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    index_json(&root, &one, &[]);
    index_json(&root, &two, &[]);
    let (a, b) = (export_json(&root, &one), export_json(&root, &two));
    assert!(
        a.contains("\"func:shop/cart.py::"),
        "export has the symbols"
    );
    assert_eq!(a, b);
    // Ids too, not only keys.
    let ids = "SELECT id || ' ' || key FROM nodes ORDER BY id";
    assert_eq!(strings(&open_db(&one), ids), strings(&open_db(&two), ids));
    // And after --full on one of them.
    index_json(&root, &one, &["--full"]);
    assert_eq!(export_json(&root, &one), b);
}

#[test]
fn check_exit_codes() {
    let (_a, root) = fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("i.db");
    let (code, text) = check_code(&root, &db);
    assert_eq!(code, 2, "missing database is an error: {text}");
    assert!(text.contains("no index database"), "{text}");
    assert!(!db.exists(), "--check creates nothing");

    index_json(&root, &db, &[]);
    assert_eq!(check_code(&root, &db).0, 0);

    std::fs::write(
        root.join("shop/util.py"),
        "def fmt(x):\n    return str(x)\n",
    )
    .unwrap();
    let (code, text) = check_code(&root, &db);
    assert_eq!(
        (code, text.trim()),
        (
            1,
            "stale: 0 added, 1 changed, 0 removed since the index was built"
        )
    );
    index_json(&root, &db, &[]);
    assert_eq!(check_code(&root, &db).0, 0);

    std::fs::write(root.join("shop/extra.py"), "X = 1\n").unwrap();
    let (code, text) = check_code(&root, &db);
    assert_eq!(
        (code, text.trim()),
        (
            1,
            "stale: 1 added, 0 changed, 0 removed since the index was built"
        )
    );
    index_json(&root, &db, &[]);

    std::fs::remove_file(root.join("shop/unused.py")).unwrap();
    let (code, text) = check_code(&root, &db);
    assert_eq!(
        (code, text.trim()),
        (
            1,
            "stale: 0 added, 0 changed, 1 removed since the index was built"
        )
    );

    // A touched file whose contents did not change is not stale.
    index_json(&root, &db, &[]);
    let f = std::fs::File::options()
        .write(true)
        .open(root.join("shop/models.py"))
        .unwrap();
    f.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(1_000_000))
        .unwrap();
    assert_eq!(check_code(&root, &db).0, 0);
}

#[cfg(unix)]
#[test]
fn killed_build_of_a_new_database_leaves_nothing_or_a_complete_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("big");
    write_many_modules(&root, 3000, "");
    let db = dir.path().join("out").join("NEW.db");
    for delay in [50u64, 200, 400] {
        let mut child = spawn_index(&root, &db);
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().ok();
        child.wait().unwrap();
        if db.exists() {
            // Renamed into place only once complete.
            let conn = open_db(&db);
            let check: String = conn
                .query_row("PRAGMA integrity_check", [], |r| r.get(0))
                .unwrap();
            assert_eq!(check, "ok");
            assert_eq!(
                int(&conn, "SELECT count(*) FROM files"),
                3000,
                "complete, not partial"
            );
            return;
        }
    }
    // Never finished: no database appeared; a later run builds it and removes what the
    // killed runs left.
    assert!(!db.exists());
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesParsed"], 3000);
    assert!(db.exists());
    let leftovers: Vec<String> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".partial-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // Built without a write-ahead log (nobody else reads the partial file), published in
    // WAL mode like every database the tools open.
    let conn = open_db(&db);
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn vacuum_into_writes_a_compact_copy_with_the_same_contents() {
    let (_a, root) = fixture_copy("rust-crate");
    let dir = root.parent().unwrap();
    let (db, copy) = (dir.join("i.db"), dir.join("copy.db"));
    let r = index_json(&root, &db, &["--vacuum-into", copy.to_str().unwrap()]);
    assert!(r["vacuumIntoBytes"].as_u64().unwrap() > 0);
    assert_eq!(export_json(&root, &copy), export_json(&root, &db));
    let r = index_json(&root, &db, &["--vacuum"]);
    assert!(r["vacuumedBytes"].as_u64().unwrap() > 0);
}
