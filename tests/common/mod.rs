//! Helpers shared by the integration tests: run the real binary, copy fixtures.

#![allow(dead_code)]

pub mod mcp;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The built `constellation` binary.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_constellation"))
}

/// Runs the binary with `args`; panics with its stderr when it cannot start.
pub fn run(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env_remove("CONSTELLATION_DB")
        .output()
        .expect("run constellation")
}

/// Runs and expects success; returns stdout.
pub fn run_ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "constellation {args:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

/// `index ROOT --db DB EXTRA...`, whatever its outcome.
pub fn index_output(root: &Path, db: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// `index ROOT --db DB --json EXTRA...`, parsed; panics with stderr when it fails.
pub fn index_json(root: &Path, db: &Path, extra: &[&str]) -> serde_json::Value {
    let out = index_output(root, db, &[&["--json"], extra].concat());
    assert!(
        out.status.success(),
        "index {} failed: {}\n{}",
        root.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("index --json output")
}

/// `export ROOT --db DB --format json`: the whole index, byte-identical for identical
/// trees.
pub fn export_json(root: &Path, db: &Path) -> String {
    run_ok(&[
        "export",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--format",
        "json",
    ])
}

/// Copies a directory tree (files and directories only).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let ty = entry.file_type().unwrap();
        if ty.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if ty.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A fresh copy of `fixtures/NAME` in a temp dir (so tests never write into the repo).
pub fn fixture_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(name);
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name),
        &root,
    );
    (dir, root)
}

/// A fresh copy of `fixtures/NAME`, indexed into `index.db` beside it: (temp dir,
/// root, database).
pub fn indexed_fixture(name: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (dir, root) = fixture_copy(name);
    let db = root.parent().unwrap().join("index.db");
    run_ok(&[
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    (dir, root, db)
}

/// Opens the index database read-only.
pub fn open_db(db: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

/// Opens the agent-memory database beside the index database `db` read-only.
pub fn open_memory_db(db: &Path) -> rusqlite::Connection {
    open_db(&constellation::memory::db_path(db))
}

/// One column of strings from a query.
pub fn strings(conn: &rusqlite::Connection, sql: &str) -> Vec<String> {
    let mut stmt = conn.prepare(sql).unwrap();
    stmt.query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// One integer from a query.
pub fn int(conn: &rusqlite::Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Writes `count` modules `pkg/mNNNN.py` of 40 mutually calling functions each, after
/// `header` (a workload large enough to kill an index run in the middle of).
pub fn write_many_modules(root: &Path, count: usize, header: &str) {
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    let mut body = String::from(header);
    for f in 0..40 {
        body.push_str(&format!(
            "def f{f}(x):\n    if x:\n        return {f}\n    return f{}(x)\n\n",
            (f + 1) % 40
        ));
    }
    for i in 0..count {
        std::fs::write(root.join(format!("pkg/m{i:04}.py")), &body).unwrap();
    }
}

/// Starts `index ROOT --db DB -q` in the background, output discarded.
pub fn spawn_index(root: &Path, db: &Path) -> std::process::Child {
    Command::new(bin())
        .args([
            "index",
            root.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "-q",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn constellation index")
}

/// The lines of the first block of `fixtures/FIXTURE/README.md` fenced as ```tag, with
/// trailing whitespace and empty lines dropped; panics when there is none.
pub fn readme_block(fixture: &str, tag: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(fixture)
            .join("README.md"),
    )
    .unwrap();
    let fence = format!("```{tag}\n");
    let start = readme
        .find(&fence)
        .unwrap_or_else(|| panic!("{fixture}: README has no ```{tag} block"))
        + fence.len();
    let end = start + readme[start..].find("```").unwrap();
    readme[start..end]
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Runs `git -C dir ARGS` with a throwaway identity and no signing; panics with git's
/// stderr when it fails.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `(file, test, depth, trusted)` of the tests listed by a `get_impact` or
/// `diff_impact` answer, in answer order.
pub fn impact_tests(v: &serde_json::Value) -> Vec<(String, Option<String>, u64, bool)> {
    v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["file"].as_str().unwrap().to_string(),
                t["test"].as_str().map(str::to_string),
                t["depth"].as_u64().unwrap(),
                t["trusted"].as_bool().unwrap(),
            )
        })
        .collect()
}
