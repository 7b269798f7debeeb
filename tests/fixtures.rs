//! Each fixture's README states the exact expected summary (a ```json block with
//! `metrics` and `insights`); `summary --json` must match it exactly.

mod common;

use serde_json::Value;

/// The first ```json block of the fixture's README.
fn expected(name: &str) -> Value {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name)
            .join("README.md"),
    )
    .unwrap();
    let start = readme.find("```json").expect("README has a ```json block") + "```json".len();
    let end = start + readme[start..].find("```").unwrap();
    serde_json::from_str(&readme[start..end]).expect("README json block parses")
}

fn summary(name: &str) -> Value {
    let (_dir, root) = common::fixture_copy(name);
    let db = root.parent().unwrap().join("index.db");
    let out = common::run_ok(&[
        "summary",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--json",
    ]);
    serde_json::from_str(&out).unwrap()
}

fn check(name: &str) {
    let want = expected(name);
    let got = summary(name);
    assert_eq!(got["metrics"], want["metrics"], "{name}: metrics");
    assert_eq!(
        got["insights"]["circularDependencies"], want["insights"]["circularDependencies"],
        "{name}: cycles"
    );
    assert_eq!(
        got["insights"]["orphanFiles"], want["insights"]["orphanFiles"],
        "{name}: orphans"
    );
    assert_eq!(
        got["insights"]["topHubs"], want["insights"]["topHubs"],
        "{name}: hubs"
    );
    assert_eq!(got["metadata"]["cacheUsed"], false, "first run indexes");
}

#[test]
fn ts_app_summary_matches_readme() {
    check("ts-app");
}

#[test]
fn py_pkg_summary_matches_readme() {
    check("py-pkg");
}

#[test]
fn rust_crate_summary_matches_readme() {
    check("rust-crate");
}

#[test]
fn second_summary_uses_the_cache() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("index.db");
    let args = [
        "summary",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--json",
    ];
    let first: Value = serde_json::from_str(&common::run_ok(&args)).unwrap();
    let second: Value = serde_json::from_str(&common::run_ok(&args)).unwrap();
    assert_eq!(first["metadata"]["cacheUsed"], false);
    assert_eq!(second["metadata"]["cacheUsed"], true);
    assert_eq!(first["insights"], second["insights"]);
}

#[test]
fn corrupt_database_falls_back_to_a_fresh_scan() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("index.db");
    std::fs::write(
        &db,
        b"this is not a sqlite database, just some bytes........",
    )
    .unwrap();
    let out = common::run(&[
        "summary",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["metrics"], expected("py-pkg")["metrics"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("corrupt"), "the log says so: {stderr}");
    let moved = std::fs::read_dir(root.parent().unwrap())
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("index.db.corrupt-")
        });
    assert!(moved, "the corrupt file was kept aside");
}

#[test]
fn newer_schema_is_refused() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("index.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("PRAGMA user_version = 999;").unwrap();
    }
    let out = common::run(&[
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("newer than this build supports"),
        "{stderr}"
    );
}

#[test]
fn sql_is_read_only() {
    let (_dir, root, db) = common::indexed_fixture("py-pkg");
    let out = common::run_ok(&[
        "sql",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "SELECT src_path, dst_path FROM file_imports WHERE src_path = 'shop/pricing.py' ORDER BY 2",
    ]);
    assert!(out.starts_with("src_path\tdst_path\n"), "{out}");
    assert!(out.contains("shop/pricing.py\tshop/cart.py"), "{out}");
    let out = common::run(&[
        "sql",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "DELETE FROM files",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let conn = common::open_db(&db);
    assert!(common::int(&conn, "SELECT count(*) FROM files") > 0);
}

#[cfg(unix)]
#[test]
fn sql_into_a_closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    let (_dir, root, db) = common::indexed_fixture("py-pkg");
    // Enough rows to fill the pipe after the reader has gone.
    let mut child = std::process::Command::new(common::bin())
        .args([
            "sql",
            root.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 200000) \
             SELECT i, 'a fairly long line of text to fill the pipe quickly' FROM n",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with('i'), "{first}");
    // The reader is dropped here, like `| head -1`.
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}
