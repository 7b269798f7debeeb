//! The command line as a new user meets it, against the real binary: a reader that
//! goes away (`| head`), the database directory beside the sources, a tree or a `--db`
//! it cannot write, `--seeds-from-diff` outside git, and the help texts.

mod common;

use std::process::{Command, Output, Stdio};

/// Runs `constellation ARGS` with stdout a pipe whose reading end is closed before the
/// command prints anything (as `constellation summary . | head -0` would).
fn run_with_closed_stdout(args: &[&str]) -> Output {
    let mut child = Command::new(common::bin())
        .args(args)
        .env_remove("CONSTELLATION_DB")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn constellation");
    drop(child.stdout.take());
    child.wait_with_output().expect("wait for constellation")
}

#[test]
fn a_reader_that_goes_away_ends_every_printing_command_quietly() {
    let (_dir, root, db) = common::indexed_fixture("py-pkg");
    let (root, db) = (root.to_str().unwrap(), db.to_str().unwrap());
    let commands: Vec<Vec<&str>> = vec![
        vec!["summary", root, "--db", db],
        vec!["summary", root, "--db", db, "--json"],
        vec!["summarize", root, "--db", db],
        vec!["search", "cart", root, "--db", db],
        vec!["search", "cart", root, "--db", db, "--json"],
        vec!["source", "Cart", root, "--db", db, "--include", "callers"],
        vec!["impact", "shop/cart.py", "--root", root, "--db", db],
        vec!["index", root, "--db", db],
        vec!["index", root, "--db", db, "--check"],
        vec!["export", root, "--db", db],
        vec!["export", root, "--db", db, "--format", "dot"],
        vec!["export", root, "--db", db, "--format", "html"],
        vec!["sql", root, "SELECT * FROM nodes", "--db", db],
        vec!["schema"],
    ];
    for args in commands {
        let mut args = args.clone();
        args.push("-q");
        let out = run_with_closed_stdout(&args);
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).as_ref()
            ),
            (Some(0), ""),
            "constellation {args:?} with its reader gone"
        );
    }
}

#[test]
fn the_default_database_directory_is_ignored_by_git() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    common::git(&root, &["init", "-q"]);
    common::run_ok(&["index", root.to_str().unwrap(), "-q"]);
    assert_eq!(
        std::fs::read_to_string(root.join(".constellation/.gitignore")).unwrap(),
        "*\n"
    );
    let status = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["status", "--porcelain", "--untracked-files=all"])
        .output()
        .unwrap();
    let listed = String::from_utf8(status.stdout).unwrap();
    assert!(!listed.is_empty(), "the sources are untracked");
    assert!(
        !listed.contains(".constellation"),
        "git status lists the database directory:\n{listed}"
    );
    // The MCP server and the other commands open the database the same way.
    let (_dir, root) = common::fixture_copy("py-pkg");
    common::run_ok(&["summary", root.to_str().unwrap(), "-q"]);
    assert_eq!(
        std::fs::read_to_string(root.join(".constellation/.gitignore")).unwrap(),
        "*\n"
    );
}

#[test]
fn a_database_directory_the_user_made_is_left_alone() {
    let (dir, root) = common::fixture_copy("py-pkg");
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    let db = mine.join("index.db");
    common::run_ok(&[
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "-q",
    ]);
    assert!(!mine.join(".gitignore").exists());
}
