//! The command line as a new user meets it, against the real binary: a reader that
//! goes away (`| head`), the database directory beside the sources, a tree or a `--db`
//! it cannot write, `--seeds-from-diff` outside git, and the help texts.

mod common;

use std::path::Path;
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
        vec!["status", root, "--db", db],
        vec!["status", root, "--db", db, "--json"],
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

/// A directory this process cannot write, and how to run the binary so that it cannot
/// either: permissions do not stop root, so as root the binary runs as `nobody`
/// (through `setpriv`). `None` when neither works (root without `setpriv`).
#[cfg(unix)]
fn unwritable(dir: &Path) -> Option<Vec<String>> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let probe = dir.join(".probe");
    if std::fs::write(&probe, "").is_err() {
        return Some(Vec::new());
    }
    let _ = std::fs::remove_file(&probe);
    // Root: the temp dirs above `dir` must let `nobody` through.
    let mut up = dir.parent();
    while let Some(p) = up {
        if p == std::env::temp_dir() || p.parent().is_none() {
            break;
        }
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
        up = p.parent();
    }
    let setpriv = Command::new("setpriv").arg("--version").output();
    if !setpriv.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: running as root without setpriv");
        return None;
    }
    Some(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]
        .map(String::from)
        .to_vec(),
    )
}

/// Runs `constellation ARGS` behind `prefix` (see [`unwritable`]).
#[cfg(unix)]
fn run_as(prefix: &[String], args: &[&str]) -> Output {
    let mut cmd = match prefix.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(common::bin());
            c
        }
        None => Command::new(common::bin()),
    };
    cmd.args(args)
        .env_remove("CONSTELLATION_DB")
        .output()
        .expect("run constellation")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// What every error about a database that cannot be written where it is ends with.
const PASS_DB: &str =
    "pass --db FILE (or set CONSTELLATION_DB) to keep the index in a writable place";

#[cfg(unix)]
#[test]
fn a_read_only_tree_says_to_pass_db() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let Some(prefix) = unwritable(&root) else {
        return;
    };
    let dir = root.join(".constellation");
    let cannot = |code: &str| {
        format!(
            "error: {code}cannot create the directory {} for the database {} (Permission \
             denied (os error 13)); {PASS_DB}\n",
            dir.display(),
            dir.join("index.db").display()
        )
    };
    let root_arg = root.to_str().unwrap();
    let out = run_as(&prefix, &["index", root_arg]);
    assert_eq!((out.status.code(), stderr(&out)), (Some(2), cannot("")));
    let out = run_as(&prefix, &["summary", root_arg]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (Some(2), cannot("database_error: "))
    );
}

#[cfg(unix)]
#[test]
fn an_unwritable_db_is_named_as_given() {
    let (dir, root) = common::fixture_copy("py-pkg");
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let Some(prefix) = unwritable(&locked) else {
        return;
    };
    let db = locked.join("index.db");
    let (root, db_arg) = (root.to_str().unwrap(), db.to_str().unwrap());
    let cannot = |code: &str| {
        format!(
            "error: {code}cannot open the database {} for writing (unable to open database \
             file): {} and the file must be writable; {PASS_DB}\n",
            db.display(),
            locked.display()
        )
    };
    // A new database is built in a temporary file beside DB, under DB's run lock: the
    // error names DB.
    let out = run_as(&prefix, &["index", root, "--db", db_arg]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (
            Some(2),
            format!(
                "error: cannot open the database {} for writing (cannot create its lock file \
                 {}.lock: Permission denied (os error 13)): {} and the file must be writable; \
                 {PASS_DB}\n",
                db.display(),
                db.display(),
                locked.display()
            )
        )
    );
    let out = run_as(&prefix, &["summary", root, "--db", db_arg]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (Some(2), cannot("database_error: "))
    );
}

/// An index this process cannot write (a read-only mount or directory, as a CI
/// artifact often is) opens read-only: read commands answer from it, saying it may be
/// stale, and `index` says why it cannot refresh it.
#[cfg(unix)]
#[test]
fn a_database_that_cannot_be_written_still_answers() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let root_arg = root.to_str().unwrap();
    let built = common::run(&["index", root_arg]);
    assert_eq!(built.status.code(), Some(0), "{}", stderr(&built));
    let dir = root.join(".constellation");
    let Some(prefix) = unwritable(&dir) else {
        return;
    };
    let db = dir.join("index.db");
    let out = run_as(
        &prefix,
        &["sql", root_arg, "SELECT count(*) FROM files", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"count(*)\":12}\n");
    let out = run_as(&prefix, &["status", root_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run_as(&prefix, &["-q", "search", "Cart", root_arg, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"key\": \"class:shop/cart.py::Cart\""),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let read_only = format!(
        "the database {} is read-only here (its file or directory cannot be written, or \
         the disk is full), so the index is not refreshed and answers come from it as it \
         is; {PASS_DB}",
        db.display()
    );
    assert_eq!(
        stderr(&out),
        format!("warning: answering from the index as it is, which may be stale: {read_only}\n")
    );
    let out = run_as(&prefix, &["-q", "index", root_arg]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (Some(2), format!("error: {read_only}\n"))
    );
}

#[test]
fn a_db_under_a_file_says_to_pass_db() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.join("README.md/index.db");
    let out = common::run(&[
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (
            Some(2),
            format!(
                "error: cannot create the directory {} for the database {} (File exists (os \
                 error 17)); {PASS_DB}\n",
                root.join("README.md").display(),
                db.display()
            )
        )
    );
}

#[test]
fn seeds_from_diff_outside_git_says_so() {
    let (_dir, root, db) = common::indexed_fixture("py-pkg");
    let out = common::run(&[
        "summarize",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--seeds-from-diff",
        "-q",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // The part in parentheses is git's own first line.
    let (head, tail) = err.split_once(" (git: ").expect("git's reason");
    assert_eq!(
        head,
        format!(
            "error: invalid_argument: seeds_from_diff: {} is not inside a git work tree",
            root.canonicalize().unwrap().display()
        )
    );
    assert!(
        tail.ends_with(
            "); it reads the files changed against git HEAD: run it in a git \
             checkout, or name the seeds instead\n"
        ) && tail.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn export_help_names_every_format() {
    let help = common::run_ok(&["export", "-h"]);
    let lines: Vec<&str> = help.lines().collect();
    assert_eq!(
        lines[0],
        "Export the index to stdout: the whole graph as JSON (byte-identical for identical \
         trees), the file-level dependency graph as Graphviz DOT, or that graph drawn as a \
         self-contained HTML page. Reads the database as it is"
    );
    assert!(
        lines.contains(
            &"      --format <FORMAT>        What to write: json, dot or html [default: json] \
              [possible values: json, dot, html]"
        ),
        "{help}"
    );
    let long = common::run_ok(&["export", "--help"]);
    for line in [
        "          - json: The whole index as JSON, byte-identical for identical trees",
        "          - dot:  The file-level dependency graph as Graphviz DOT",
        "          - html: The self-contained HTML view of the file graph (as the MCP tool \
         open_window)",
    ] {
        assert!(long.lines().any(|l| l == line), "{line:?} not in:\n{long}");
    }
}

#[test]
fn summarize_help_describes_every_option() {
    let help = common::run_ok(&["summarize", "-h"]);
    let lines: Vec<&str> = help.lines().collect();
    for pair in [
        ["  [ROOT]  Workspace root [default: .]", ""],
        [
            "      --max-communities <MAX_COMMUNITIES>",
            "          Most communities listed [default: 50]",
        ],
        [
            "      --max-nodes-per-community <MAX_NODES_PER_COMMUNITY>",
            "          Sample labels listed per community [default: 10]",
        ],
        [
            "      --path-samples <PATH_SAMPLES>",
            "          Most call paths listed [default: 5]",
        ],
        [
            "      --path-max-hops <PATH_MAX_HOPS>",
            "          Longest call path listed, in edges [default: 5]",
        ],
    ] {
        assert!(
            lines.windows(2).any(|w| w == pair),
            "{pair:?} not in:\n{help}"
        );
    }
}
