//! Incremental re-index: stat first, hash what moved, parse what changed, drop what is
//! gone — checked through `index --json` counts and the database rows.

mod common;

use common::*;

fn write(root: &std::path::Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn sample(root: &std::path::Path) {
    write(root, "pkg/__init__.py", "");
    write(
        root,
        "pkg/a.py",
        "from . import b\n\ndef alpha():\n    return b.beta()\n",
    );
    write(
        root,
        "pkg/b.py",
        "def beta():\n    return 1\n\ndef gamma():\n    return beta()\n",
    );
    write(
        root,
        "pkg/c.py",
        "import pkg.a\n\nclass C:\n    def run(self):\n        return pkg.a.alpha()\n",
    );
}

/// Sets a file's mtime to a fixed value so a test can tell "touched" from "unchanged".
fn touch(path: &std::path::Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn no_change_hashes_and_parses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let db = dir.path().join("i.db");
    let first = index_json(&root, &db, &[]);
    assert_eq!(first["filesSeen"], 4);
    assert_eq!(first["filesParsed"], 4);
    let again = index_json(&root, &db, &[]);
    assert_eq!(again["filesHashed"], 0);
    assert_eq!(again["filesParsed"], 0);
    assert_eq!(again["changed"], false);
    assert_eq!(again["generation"], first["generation"]);
}

#[test]
fn touch_hashes_one_and_parses_none() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    touch(&root.join("pkg/b.py"), 1_000_000);
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesHashed"], 1);
    assert_eq!(r["filesParsed"], 0);
    assert_eq!(r["filesTouched"], 1);
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesHashed"], 0, "the new stat was recorded");
}

#[test]
fn edit_reparses_only_that_file_and_keeps_edges_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    let conn = open_db(&db);
    let a_id = int(&conn, "SELECT id FROM files WHERE path = 'pkg/a.py'");
    let c_gen = int(
        &conn,
        "SELECT generation FROM files WHERE path = 'pkg/c.py'",
    );
    drop(conn);
    // b.py: beta renamed to delta; gamma still calls it; a.py's call to beta now dangles.
    write(
        &root,
        "pkg/b.py",
        "def delta():\n    return 2\n\ndef gamma():\n    return delta()\n",
    );
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesHashed"], 1);
    assert_eq!(r["filesParsed"], 1);
    let conn = open_db(&db);
    assert_eq!(
        strings(
            &conn,
            "SELECT name FROM symbols WHERE path = 'pkg/b.py' ORDER BY start_line"
        ),
        vec!["delta", "gamma"]
    );
    assert_eq!(
        int(&conn, "SELECT id FROM files WHERE path = 'pkg/a.py'"),
        a_id
    );
    assert_eq!(
        int(
            &conn,
            "SELECT generation FROM files WHERE path = 'pkg/c.py'"
        ),
        c_gen,
        "c.py was not re-parsed"
    );
    // The import a.py -> b.py survives the replacement of b.py's nodes.
    assert_eq!(
        strings(
            &conn,
            "SELECT dst_path FROM file_imports WHERE src_path = 'pkg/a.py'"
        ),
        vec!["pkg/b.py"]
    );
    // alpha's call to beta is now unresolved; gamma calls delta.
    assert_eq!(
        strings(
            &conn,
            "SELECT status FROM refs WHERE kind = 'call' AND name = 'beta'"
        ),
        vec!["unresolved"]
    );
    assert_eq!(
        strings(
            &conn,
            "SELECT callee FROM call_edges WHERE caller = 'gamma'"
        ),
        vec!["delta"]
    );
}

#[test]
fn delete_removes_nodes_and_edges() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    std::fs::remove_file(root.join("pkg/b.py")).unwrap();
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesRemoved"], 1);
    assert_eq!(r["filesParsed"], 0);
    let conn = open_db(&db);
    assert_eq!(
        int(&conn, "SELECT count(*) FROM files WHERE path = 'pkg/b.py'"),
        0
    );
    assert_eq!(
        int(
            &conn,
            "SELECT count(*) FROM nodes WHERE key LIKE '%pkg/b.py%'"
        ),
        0
    );
    assert_eq!(
        int(&conn, "SELECT count(*) FROM file_imports WHERE dst_path = 'pkg/b.py' OR src_path = 'pkg/b.py'"),
        0
    );
    // `from . import b` in a.py now names no module b: it falls back to the package.
    assert_eq!(
        strings(
            &conn,
            "SELECT dst_path FROM file_imports WHERE src_path = 'pkg/a.py'"
        ),
        vec!["pkg/__init__.py"]
    );
}

#[test]
fn added_file_resolves_earlier_unresolved_references() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    write(
        &root,
        "main.py",
        "from helper import assist\n\ndef main():\n    return assist()\n",
    );
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    let conn = open_db(&db);
    assert_eq!(int(&conn, "SELECT count(*) FROM file_imports"), 0);
    drop(conn);
    write(&root, "helper.py", "def assist():\n    return 42\n");
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesParsed"], 1);
    let conn = open_db(&db);
    assert_eq!(
        strings(
            &conn,
            "SELECT dst_path FROM file_imports WHERE src_path = 'main.py'"
        ),
        vec!["helper.py"]
    );
    assert_eq!(
        strings(
            &conn,
            "SELECT callee_path FROM call_edges WHERE caller = 'main'"
        ),
        vec!["helper.py"]
    );
}

#[test]
fn full_rebuild_gives_identical_rows() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    let dump = |db: &std::path::Path| {
        let conn = open_db(db);
        strings(
            &conn,
            "SELECT n.id || ' ' || n.key || ' ' || coalesce(e.kind, '') || ' ' || coalesce(e.dst_id, '')
             FROM nodes n LEFT JOIN edges e ON e.src_id = n.id ORDER BY n.id, e.id",
        )
    };
    let before = dump(&db);
    let r = index_json(&root, &db, &["--full"]);
    assert_eq!(r["filesParsed"], 4);
    assert_eq!(dump(&db), before);
}

/// A build from nothing runs without foreign-key checks (every id is its own); the rows
/// must still satisfy every key, and each pooled connection must have enforcement back
/// on afterwards, or a later incremental run would leave orphans instead of cascading.
#[test]
fn build_from_nothing_keeps_keys_and_switches_enforcement_back_on() {
    use constellation::index::{index, IndexOptions};
    use constellation::store::Store;

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let store = Store::open(&dir.path().join("i.db")).unwrap();
    let check = |store: &Store| {
        // Every connection the pool can hand out at once (max 8).
        let conns: Vec<_> = (0..8).map(|_| store.conn().unwrap()).collect();
        for conn in &conns {
            let on: i64 = conn
                .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
                .unwrap();
            assert_eq!(on, 1, "foreign keys left off on a pooled connection");
        }
        let violations: i64 = conns[0]
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(violations, 0);
    };
    for full in [false, true] {
        let opts = IndexOptions {
            full,
            ..IndexOptions::default()
        };
        let report = index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(report.files_parsed, 4);
        check(&store);
    }
    // An incremental removal cascades from the file to its nodes, references and edges.
    std::fs::remove_file(root.join("pkg/b.py")).unwrap();
    let report = index(&store, &root, &IndexOptions::default(), &|_| {}).unwrap();
    assert_eq!(report.files_removed, 1);
    check(&store);
    let conn = store.conn().unwrap();
    let left: i64 = conn
        .query_row(
            "SELECT (SELECT count(*) FROM nodes WHERE name = 'beta')
                  + (SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id
                     WHERE f.path = 'pkg/b.py')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
}
