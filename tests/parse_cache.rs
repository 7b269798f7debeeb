//! The parse cache: an incremental run keeps the facts of the contents it parses, by
//! blake3 digest and language; a later run that meets one of those contents again (a
//! branch switch back, a file copied elsewhere) decodes them instead of parsing, and
//! the index it writes is the one a build from nothing writes. A build from nothing
//! never reads the cache but stores what it parses (up to the cap); a row that does not
//! decode, or that another build wrote, is never used.
//!
//! The tree (written by `tree`): `pkg/__init__.py` (empty), `pkg/a.py` and `web/app.ts`
//! in two versions each (`A_V1`/`A_V2`, `APP_V1`/`APP_V2`), `pkg/b.py` (one version,
//! what `a.py` imports) and `README.md` (an asset, never cached).

mod common;

use std::path::Path;

const A_V1: &str = "from pkg import b\n\ndef alpha():\n    return b.beta()\n";
const A_V2: &str = "from pkg import b\n\nclass Alpha:\n    def run(self):\n        return b.beta() + b.gamma()\n\ndef alpha():\n    return Alpha().run()\n";
const B: &str = "def beta():\n    return 1\n\ndef gamma():\n    return beta()\n";
const APP_V1: &str = "export function start(): number {\n  return 1;\n}\n";
const APP_V2: &str =
    "function helper(): number {\n  return 2;\n}\nexport function start(): number {\n  return helper();\n}\n";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn tree(root: &Path, a: &str, app: &str) {
    write(root, "pkg/__init__.py", "");
    write(root, "pkg/a.py", a);
    write(root, "pkg/b.py", B);
    write(root, "web/app.ts", app);
    write(root, "README.md", "# sample\n");
}

/// `index --json` on the tree as it is now; asserts the run succeeded.
fn index(root: &Path, db: &Path) -> serde_json::Value {
    common::index_json(root, db, &[])
}

/// The export of a build from nothing of `root` as it is now.
fn fresh_export(root: &Path, scratch: &Path) -> String {
    let db = scratch.join(format!("fresh-{}.db", fastrand::u64(..)));
    common::index_json(root, &db, &[]);
    common::export_json(root, &db)
}

fn rows(db: &Path) -> i64 {
    common::int(&common::open_db(db), "SELECT count(*) FROM parse_cache")
}

#[test]
fn a_content_parsed_by_an_earlier_run_is_decoded_not_parsed_and_gives_a_full_builds_rows() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let db = dir.path().join("index.db");
    tree(&root, A_V1, APP_V1);
    let report = index(&root, &db);
    assert_eq!(report["filesParsed"], 5);
    assert_eq!(report["filesReused"], 0);
    // The four source files (the empty `__init__.py` too), not the asset.
    let conn = common::open_db(&db);
    assert_eq!(
        common::strings(&conn, "SELECT language FROM parse_cache ORDER BY language"),
        ["python", "python", "python", "typescript"]
    );
    drop(conn);

    // "Switch" to the second version: both parsed, both stored.
    tree(&root, A_V2, APP_V2);
    let report = index(&root, &db);
    assert_eq!(
        (
            report["filesParsed"].as_u64(),
            report["filesReused"].as_u64()
        ),
        (Some(2), Some(0))
    );
    assert_eq!(rows(&db), 6);

    // Back: the build from nothing stored the first version.
    tree(&root, A_V1, APP_V1);
    let report = index(&root, &db);
    assert_eq!(
        (
            report["filesParsed"].as_u64(),
            report["filesReused"].as_u64()
        ),
        (Some(2), Some(2))
    );
    assert_eq!(rows(&db), 6, "a reused row is not stored again");
    assert_eq!(
        common::export_json(&root, &db),
        fresh_export(&root, dir.path())
    );

    // And forth.
    tree(&root, A_V2, APP_V2);
    let report = index(&root, &db);
    assert_eq!(
        (
            report["filesParsed"].as_u64(),
            report["filesReused"].as_u64()
        ),
        (Some(2), Some(2))
    );
    assert_eq!(
        common::export_json(&root, &db),
        fresh_export(&root, dir.path())
    );
    let out = common::index_output(&root, &db, &["--check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A copy under another path and name is the same content: its facts are reused
    // too, and its nodes carry its own path.
    write(&root, "pkg/copy_of_a.py", A_V2);
    let report = index(&root, &db);
    assert_eq!(
        (
            report["filesParsed"].as_u64(),
            report["filesReused"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert_eq!(
        common::export_json(&root, &db),
        fresh_export(&root, dir.path())
    );

    // The final line says where the facts came from.
    tree(&root, A_V1, APP_V1);
    let out = common::run_ok(&[
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(out.contains("2 parsed (2 from the parse cache)"), "{out}");

    // --full rebuilds from nothing: the cache goes with the rest, and only what this
    // build parsed is stored again (five files now).
    let report = common::index_json(&root, &db, &["--full"]);
    assert_eq!(report["filesReused"], 0);
    assert_eq!(rows(&db), 5);
    let conn = common::open_db(&db);
    assert_eq!(
        common::int(
            &conn,
            "SELECT count(*) FROM parse_cache p JOIN files f ON f.digest = p.digest"
        ),
        5
    );
}

#[test]
fn a_row_that_does_not_decode_or_that_another_build_wrote_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let db = dir.path().join("index.db");
    tree(&root, A_V1, APP_V1);
    index(&root, &db);
    tree(&root, A_V2, APP_V2);
    index(&root, &db);
    tree(&root, A_V1, APP_V1);
    index(&root, &db);
    assert_eq!(rows(&db), 6);

    // The Python content's facts are damaged; the TypeScript one's row is another
    // build's.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let digest = |text: &str| blake3::hash(text.as_bytes()).to_hex().to_string();
    let damaged = conn
        .execute(
            "UPDATE parse_cache SET facts = x'07ffffffff' WHERE digest = ?1",
            [digest(A_V2)],
        )
        .unwrap();
    let foreign = conn
        .execute(
            "UPDATE parse_cache SET extractor = 'another build' WHERE digest = ?1",
            [digest(APP_V2)],
        )
        .unwrap();
    assert_eq!((damaged, foreign), (1, 1));
    drop(conn);

    tree(&root, A_V2, APP_V2);
    let out = common::index_output(&root, &db, &["--json"]);
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            report["filesParsed"].as_u64(),
            report["filesReused"].as_u64()
        ),
        (Some(2), Some(0))
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the parse cache's facts of pkg/a.py do not decode"),
        "{stderr}"
    );
    assert_eq!(
        common::export_json(&root, &db),
        fresh_export(&root, dir.path())
    );

    // The damaged row was replaced by the new parse's, the other build's deleted and
    // replaced by this one's.
    let conn = common::open_db(&db);
    assert_eq!(
        common::int(
            &conn,
            "SELECT count(*) FROM parse_cache WHERE extractor = 'another build'"
        ),
        0
    );
    assert_eq!(rows(&db), 6);
    drop(conn);
    tree(&root, A_V1, APP_V1);
    assert_eq!(index(&root, &db)["filesReused"], 2);
    tree(&root, A_V2, APP_V2);
    assert_eq!(index(&root, &db)["filesReused"], 2);
    assert_eq!(
        common::export_json(&root, &db),
        fresh_export(&root, dir.path())
    );
}
