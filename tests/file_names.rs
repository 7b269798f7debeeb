//! File names that are not UTF-8, or that hold a backslash, against the real binary:
//! each is indexed under its own escaped path text (`\xFF.py`, `a\\b.py`), never merged
//! with another, a second run changes nothing, and the tools given the escaped text
//! read that very file.

#![cfg(unix)]

mod common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use common::mcp::{handshake, Client};
use serde_json::{json, Value};

/// A workspace with two names that decode lossily to the same text (`\xff.py` and
/// `\xfe.py`), a valid name with a backslash, and a file under a directory whose name
/// is not UTF-8. Each file defines its own function, so an answer shows which was read.
fn workspace() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let name = |b: &[u8]| root.join(OsStr::from_bytes(b));
    std::fs::create_dir_all(name(b"d\xfc")).unwrap();
    std::fs::write(name(b"\xff.py"), "def from_ff():\n    return 1\n").unwrap();
    std::fs::write(name(b"\xfe.py"), "def from_fe():\n    return 2\n").unwrap();
    std::fs::write(name(b"a\\b.py"), "def from_backslash():\n    return 3\n").unwrap();
    std::fs::write(name(b"d\xfc/m.py"), "def from_dir():\n    return 4\n").unwrap();
    let db = dir.path().join("index.db");
    (dir, root, db)
}

/// The escaped paths in the files table, sorted.
const PATHS: [&str; 4] = ["\\xFE.py", "\\xFF.py", "a\\\\b.py", "d\\xFC/m.py"];

fn stored(db: &Path) -> Vec<(String, String)> {
    let conn = common::open_db(db);
    let mut stmt = conn
        .prepare("SELECT path, status FROM files ORDER BY path")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn names_that_are_not_utf8_are_indexed_apart_and_a_second_run_changes_nothing() {
    let (_dir, root, db) = workspace();
    let first = common::index_json(&root, &db, &[]);
    assert_eq!(first["filesSeen"], 4, "{first}");
    assert_eq!(first["filesParsed"], 4, "{first}");
    let want: Vec<(String, String)> = PATHS
        .iter()
        .map(|p| (p.to_string(), "parsed".to_string()))
        .collect();
    assert_eq!(stored(&db), want);
    let conn = common::open_db(&db);
    assert_eq!(
        common::strings(
            &conn,
            "SELECT f.path || ' ' || n.name FROM nodes n JOIN files f ON f.id = n.file_id \
             WHERE n.kind = 'function' ORDER BY f.path"
        ),
        [
            "\\xFE.py from_fe",
            "\\xFF.py from_ff",
            "a\\\\b.py from_backslash",
            "d\\xFC/m.py from_dir"
        ]
    );
    drop(conn);

    let second = common::index_json(&root, &db, &[]);
    assert_eq!(
        (
            &second["filesSeen"],
            &second["filesHashed"],
            &second["filesParsed"],
            &second["filesRemoved"],
            &second["changed"]
        ),
        (&json!(4), &json!(0), &json!(0), &json!(0), &json!(false)),
        "{second}"
    );
    assert_eq!(stored(&db), want);
}

/// Calls a tool that must succeed; returns its structuredContent.
fn ok(c: &mut Client, name: &str, args: Value) -> Value {
    let r = c.call(name, args.clone());
    assert_ne!(r["isError"], json!(true), "{name} {args}: {r}");
    r["structuredContent"].clone()
}

#[test]
fn tools_given_the_escaped_text_read_that_file() {
    let (_dir, root, db) = workspace();
    common::index_json(&root, &db, &[]);
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    for (path, function) in [
        ("\\xFF.py", "from_ff"),
        ("\\xFE.py", "from_fe"),
        ("a\\\\b.py", "from_backslash"),
        ("d\\xFC/m.py", "from_dir"),
    ] {
        let r = ok(
            &mut c,
            "inspect_source",
            json!({"path": path, "startLine": 1, "endLine": 1}),
        );
        assert_eq!(
            r["content"],
            format!("1 | def {function}():\n"),
            "{path}: {r}"
        );
        let info = ok(&mut c, "file_info", json!({"path": path}));
        assert_eq!(info["path"], path, "{info}");
        let names: Vec<&str> = info["structure"]["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["qualifiedName"].as_str().unwrap())
            .collect();
        assert_eq!(names, [function], "{path}");
        let src = ok(&mut c, "get_symbol_source", json!({"symbol": function}));
        assert_eq!(src["path"], path, "{src}");
        assert_eq!(src["file_changed"], false, "{src}");
    }
    // A backslash that is not an escape is refused with what to write instead.
    let r = c.call(
        "inspect_source",
        json!({"path": "a\\b.py", "startLine": 1, "endLine": 1}),
    );
    assert_eq!(r["isError"], json!(true), "{r}");
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "invalid_argument: path: \"a\\\\b.py\" has a backslash that is not an escape"
        ),
        "{text}"
    );
}
