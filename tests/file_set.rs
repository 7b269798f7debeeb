//! Which files a run indexes, as a user expects them: in a git work tree what git lists
//! (tracked files, even where an ignore rule matches them, plus untracked files no rule
//! hides); elsewhere the ignore files apply, and a run whose rules hide everything says
//! which rule did it and how to override it.

mod common;

use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_tree_whose_ignore_file_hides_everything_names_the_rule_and_the_override() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("linux");
    // A source tarball's packaging rule, as in some kernel snapshots.
    write(&root, ".gitignore", "# packaging\n/*\n");
    write(&root, "kernel/fork.c", "int copy(void) { return 0; }\n");
    write(&root, "mm/mmap.c", "int map(void) { return copy(); }\n");
    let db = dir.path().join("index.db");
    let out = common::index_output(&root, &db, &["--json"]);
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["filesSeen"], 0);
    assert_eq!(report["fileSource"], "directories");
    let warning = &report["ignoreWarning"];
    assert_eq!(
        warning["rules"],
        serde_json::json!([{
            "file": ".gitignore", "line": 2, "pattern": "/*",
            "entries": 2, "names": ["kernel/", "mm/"]
        }])
    );
    // The same words on stderr, where a person running it sees them.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("WARN"), "{stderr}");
    assert!(
        stderr.contains("`/*` (.gitignore:2) hides 2 entries: kernel/, mm/"),
        "{stderr}"
    );
    assert!(stderr.contains("--no-ignore"), "{stderr}");

    // The override the warning names indexes them.
    let db = dir.path().join("all.db");
    let report = common::index_json(&root, &db, &["--no-ignore"]);
    assert_eq!(report["filesSeen"], 2);
    assert!(report.get("ignoreWarning").is_none(), "{report}");
    let conn = common::open_db(&db);
    assert_eq!(
        common::strings(&conn, "SELECT path FROM files ORDER BY path"),
        ["kernel/fork.c", "mm/mmap.c"]
    );

    // A later run that forgets --no-ignore would find no file: it refuses to empty the
    // index, says why, and removes nothing.
    let out = common::index_output(&root, &db, &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("(.gitignore:2)"), "{stderr}");
    assert!(
        stderr.contains("The index keeps its 2 files: nothing was removed"),
        "{stderr}"
    );
    assert_eq!(
        common::strings(&conn, "SELECT path FROM files ORDER BY path"),
        ["kernel/fork.c", "mm/mmap.c"]
    );
    // Deleting the files themselves still empties it.
    std::fs::remove_dir_all(root.join("kernel")).unwrap();
    std::fs::remove_dir_all(root.join("mm")).unwrap();
    let report = common::index_json(&root, &db, &[]);
    assert_eq!(report["filesRemoved"], 2, "{report}");
}

#[test]
fn a_git_work_tree_indexes_its_tracked_files_even_where_an_ignore_rule_matches() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    common::git(&root, &["init", "-q"]);
    write(&root, ".gitignore", "generated_*.py\nscratch/\n");
    // Tracked although the rule matches it (added with -f): indexed.
    write(
        &root,
        "generated_api.py",
        "def generated():\n    return 1\n",
    );
    common::git(&root, &["add", "-A"]);
    common::git(&root, &["add", "-f", "generated_api.py"]);
    common::git(&root, &["commit", "-q", "-m", "sources"]);
    // Untracked and ignored: not indexed. Untracked and not ignored: indexed.
    write(&root, "generated_tmp.py", "def tmp():\n    return 2\n");
    write(&root, "scratch/try.py", "def attempt():\n    return 3\n");
    write(&root, "new_module.py", "def new():\n    return 4\n");

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    let report = common::index_json(&root, &db, &[]);
    assert_eq!(report["fileSource"], "git");
    assert!(report.get("ignoreWarning").is_none(), "{report}");
    let conn = common::open_db(&db);
    let paths = common::strings(&conn, "SELECT path FROM files ORDER BY path");
    assert!(paths.contains(&"generated_api.py".to_string()), "{paths:?}");
    assert!(paths.contains(&"new_module.py".to_string()), "{paths:?}");
    assert!(
        !paths.contains(&"generated_tmp.py".to_string()),
        "{paths:?}"
    );
    assert!(
        !paths.iter().any(|p| p.starts_with("scratch/")),
        "{paths:?}"
    );
    assert_eq!(
        common::strings(&conn, "SELECT name FROM nodes WHERE name = 'generated'"),
        ["generated"]
    );

    // Every tracked file is in the index, and nothing git does not list.
    let tracked = std::process::Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "--cached", "--others", "--exclude-standard"])
        .output()
        .unwrap();
    let mut listed: Vec<String> = String::from_utf8(tracked.stdout)
        .unwrap()
        .lines()
        .filter(|p| !p.starts_with('.'))
        .map(str::to_string)
        .collect();
    listed.sort();
    assert_eq!(paths, listed);

    // An edit to the tracked, ignored file reaches the index like any other.
    write(
        &root,
        "generated_api.py",
        "def generated_v2():\n    return 1\n",
    );
    common::index_json(&root, &db, &[]);
    let conn = common::open_db(&db);
    assert_eq!(
        common::strings(&conn, "SELECT name FROM nodes WHERE kind = 'function' AND name LIKE 'generated%' ORDER BY name"),
        ["generated_v2"]
    );
}

/// A database the user put inside the root, in a directory that is not hidden (`--db
/// ci.db`, `--db data/x.db`), is not indexed with its own files: before, the index held
/// `x.db`, `x.db-wal`, `x.db-shm`, `x.db.lock` and the build's vanished
/// `x.db.partial-PID`, and every run found them changed.
#[test]
fn a_database_inside_the_root_leaves_itself_and_its_companions_out() {
    let dir = tempfile::tempdir().unwrap();
    for (case, db, extra) in [
        ("sub", "data/x.db", &[][..]),
        ("top", "ci.db", &["--no-ignore"][..]),
    ] {
        let root = dir.path().join(case);
        write(&root, "src/a.py", "def f():\n    pass\n");
        write(&root, "data/notes.txt", "kept\n");
        write(&root, "x.db.txt", "a file beside, not of, data/x.db\n");
        let db = root.join(db);
        let first = common::index_json(&root, &db, extra);
        assert_eq!(first["filesSeen"], 3, "{first}");
        // An agent's memory database beside it, as a server makes it.
        std::fs::write(constellation::memory::db_path(&db), b"").unwrap();
        for _ in 0..2 {
            let again = common::index_json(&root, &db, extra);
            assert_eq!(again["changed"], false, "{again}");
            assert_eq!(again["filesSeen"], 3, "{again}");
        }
        assert_eq!(
            common::strings(
                &common::open_db(&db),
                "SELECT path FROM files ORDER BY path"
            ),
            ["data/notes.txt", "src/a.py", "x.db.txt"]
        );
        let mut args = vec![
            "index",
            root.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "--check",
        ];
        args.extend_from_slice(extra);
        let check = common::run(&args);
        assert!(check.status.success(), "{case}: {check:?}");
    }
}
