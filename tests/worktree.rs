//! A second git worktree's first index starts from the first worktree's index: only
//! the files whose content it lacks are parsed, and the result equals a from-scratch
//! build (`src/index/worktree.rs`). On a copy of `fixtures/class-hierarchy` committed to
//! a temporary repository.

mod common;

use std::path::Path;

/// A copy of `fixtures/class-hierarchy` at `dir`.
fn fixture_at(dir: &Path) {
    common::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/class-hierarchy"),
        dir,
    );
}

/// A new repository at `dir` with everything in it committed.
fn commit_all(dir: &Path) {
    common::git(dir, &["init", "-q"]);
    common::git(dir, &["add", "."]);
    common::git(dir, &["commit", "-qm", "v1"]);
}

fn index_default(root: &Path) -> serde_json::Value {
    let out = common::run_ok(&["index", root.to_str().unwrap(), "--json"]);
    serde_json::from_str(&out).expect("index --json output")
}

#[test]
fn a_second_worktree_parses_only_what_the_first_index_lacks_and_equals_a_fresh_build() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    fixture_at(&main);
    commit_all(&main);
    let first = index_default(&main);
    let files = first["filesSeen"].as_u64().unwrap();
    assert_eq!(first["filesParsed"], files);
    let main_db = main.join(".constellation/index.db");
    let main_before = common::export_json(&main, &main_db);

    let second = dir.path().join("second");
    common::git(&main, &["worktree", "add", "-q", second.to_str().unwrap()]);
    // One file edited (a new caller of `visit`), one added, one removed.
    let keeper = second.join("zoo/keeper.py");
    let mut text = std::fs::read_to_string(&keeper).unwrap();
    text.push_str("\n\ndef tour():\n    return visit()\n");
    std::fs::write(&keeper, text).unwrap();
    std::fs::write(
        second.join("zoo/extra.py"),
        "from zoo.keeper import feed\n\n\ndef extra():\n    feed()\n",
    )
    .unwrap();
    std::fs::remove_file(second.join("go/calc_test.go")).unwrap();

    let seeded = index_default(&second);
    assert_eq!(seeded["filesParsed"], 2, "{seeded}");
    // Cloned where this file system can clone files, else copied whole.
    let probe = dir.path().join("probe");
    std::fs::write(&probe, b"x").unwrap();
    let clones = reflink_copy::reflink(&probe, dir.path().join("probe2")).is_ok();
    assert_eq!(
        seeded["seededFrom"]["copy"],
        if clones { "clone" } else { "backup" },
        "{seeded}"
    );
    assert_eq!(
        Path::new(seeded["seededFrom"]["from"].as_str().unwrap()),
        main_db.canonicalize().unwrap()
    );
    assert_eq!(seeded["filesRemoved"], 1, "{seeded}");
    assert_eq!(seeded["filesSeen"], files);

    // The same tree built from nothing (a database given with --db is never seeded).
    let fresh_db = dir.path().join("fresh.db");
    let fresh = common::index_json(&second, &fresh_db, &[]);
    assert_eq!(fresh["filesParsed"], files, "{fresh}");
    let second_db = second.join(".constellation/index.db");
    let seeded_export = common::export_json(&second, &second_db);
    assert_eq!(seeded_export, common::export_json(&second, &fresh_db));
    assert!(seeded_export.contains("zoo/extra.py"));
    assert!(!seeded_export.contains("go/calc_test.go"));
    // The first worktree's index is read, not changed.
    assert_eq!(common::export_json(&main, &main_db), main_before);
}

#[test]
fn outside_git_or_without_another_index_the_build_starts_empty() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("plain");
    fixture_at(&root);
    let report = index_default(&root);
    assert_eq!(report["filesParsed"], report["filesSeen"]);
    // A repository whose other worktree has no index yet.
    commit_all(&root);
    let other = dir.path().join("other");
    common::git(&root, &["worktree", "add", "-q", other.to_str().unwrap()]);
    std::fs::remove_dir_all(root.join(".constellation")).unwrap();
    let report = index_default(&other);
    assert_eq!(report["filesParsed"], report["filesSeen"]);
    // An index of another schema version (another build's) is not copied.
    std::fs::remove_dir_all(other.join(".constellation")).unwrap();
    index_default(&root);
    let conn = rusqlite::Connection::open(root.join(".constellation/index.db")).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let report = index_default(&other);
    assert_eq!(report["filesParsed"], report["filesSeen"]);
    assert!(report.get("seededFrom").is_none(), "{report}");
}
