//! How fresh an index is: `constellation status` (a walk, nothing written; exit 0 fresh,
//! 1 stale, 2 no index), the MCP tool `get_status` of a watching server, and the
//! freshness stamp in the `_meta` of every tool result.

mod common;

use std::time::{Duration, Instant};

use common::mcp::{handshake, Client};
use serde_json::{json, Value};

fn write(root: &std::path::Path, rel: &str, text: &str) {
    std::fs::write(root.join(rel), text).unwrap();
}

fn status_json(root: &std::path::Path, db: &std::path::Path) -> (i32, Value) {
    let out = common::run(&[
        "status",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--json",
    ]);
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap(), v)
}

#[test]
fn status_counts_what_changed_on_disk_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    std::fs::create_dir(&root).unwrap();
    let db = dir.path().join("index.db");
    write(&root, "a.py", "def alpha():\n    return 1\n");
    write(
        &root,
        "b.py",
        "from a import alpha\n\ndef beta():\n    return alpha()\n",
    );

    // No index yet: an error that says what to run, exit 2.
    let out = common::run(&[
        "status",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run `constellation index` first"));

    common::index_json(&root, &db, &[]);
    let (code, v) = status_json(&root, &db);
    assert_eq!(code, 0, "{v}");
    let r = &v["roots"][0];
    assert_eq!(r["generation"], 1);
    assert_eq!(
        (r["files"].as_i64(), r["pendingChanges"].as_bool()),
        (Some(2), Some(false))
    );
    assert!(r["indexedAt"].as_str().unwrap().ends_with('Z'), "{r}");
    assert_eq!(v["transport"], "cli");

    // One edit, one new file, one deletion: exit 1 with the three counts.
    write(&root, "a.py", "def alpha():\n    return 2\n");
    write(&root, "c.py", "def gamma():\n    pass\n");
    std::fs::remove_file(root.join("b.py")).unwrap();
    let (code, v) = status_json(&root, &db);
    assert_eq!(code, 1, "{v}");
    let r = &v["roots"][0];
    assert_eq!(r["pendingChanges"], true);
    assert_eq!(
        r["pendingFiles"],
        json!({"added": 1, "changed": 1, "removed": 1})
    );
    // Nothing was written: the same generation and files as before.
    assert_eq!(
        (r["generation"].as_i64(), r["files"].as_i64()),
        (Some(1), Some(2))
    );
}

/// Calls `name` with `args` until `check` holds on its result (10 s at most).
fn eventually(
    c: &mut Client,
    name: &str,
    args: Value,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let start = Instant::now();
    loop {
        let result = c.call(name, args.clone());
        if check(&result) {
            return result;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "not within 10 s: {what}: {result}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_watching_server_reports_its_freshness_in_every_answer_and_in_get_status() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    std::fs::create_dir(&root).unwrap();
    let db = dir.path().join("index.db");
    write(&root, "a.py", "def alpha():\n    return 1\n");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    // A call right after the handshake, while the watch may still be starting: it waits
    // for the watch's first run instead of walking the tree (callWalks stays 0 below).
    let first = c.call("search_symbols", json!({"query": "alpha"}));
    assert_eq!(
        first["structuredContent"]["hits"][0]["name"], "alpha",
        "{first}"
    );

    let status = eventually(
        &mut c,
        "get_status",
        json!({}),
        "the first index run",
        |r| {
            r["structuredContent"]["roots"][0]["generation"].as_i64() >= Some(1)
                && r["structuredContent"]["roots"][0]["pendingChanges"] == false
        },
    );
    let s = &status["structuredContent"];
    assert_eq!(
        (s["transport"].as_str(), s["clients"].as_u64()),
        (Some("stdio"), Some(1))
    );
    let r = &s["roots"][0];
    assert_eq!(r["root"].as_str(), root.canonicalize().unwrap().to_str());
    assert_eq!(r["watcher"]["watching"], true);
    assert_eq!(r["watcher"]["degraded"], false);
    assert_eq!(
        r["pendingFiles"],
        Value::Null,
        "a watch does not walk to count files"
    );
    let first = r["generation"].as_i64().unwrap();

    // Every answer carries the stamp; after an edit it moves to a newer generation with
    // nothing pending, and no tool call has walked the tree.
    let stamp = |r: &Value| r["_meta"]["constellation/freshness"].clone();
    let hit = c.call("search_symbols", json!({"query": "alpha"}));
    let f = stamp(&hit);
    assert_eq!(f["generation"].as_i64(), Some(first), "{hit}");
    assert_eq!(
        (f["watched"].as_bool(), f["pendingChanges"].as_bool()),
        (Some(true), Some(false))
    );
    assert!(f["indexedAt"].as_str().unwrap().ends_with('Z'));

    write(
        &root,
        "a.py",
        "def alpha():\n    return 1\n\ndef beta():\n    pass\n",
    );
    let hit = eventually(
        &mut c,
        "search_symbols",
        json!({"query": "alpha"}),
        "the edit",
        |r| stamp(r)["generation"].as_i64() > Some(first),
    );
    assert_eq!(stamp(&hit)["pendingChanges"], false);
    let status = c.call("get_status", json!({}));
    let watcher = &status["structuredContent"]["roots"][0]["watcher"];
    assert_eq!(watcher["callWalks"], 0);
    assert!(watcher["events"].as_u64() >= Some(1));
    // The edit of an indexed file was read without a walk: only the first run walked.
    assert!(watcher["backgroundRuns"].as_u64() >= Some(2), "{watcher}");
    assert_eq!(watcher["backgroundWalks"], 1, "{watcher}");
    let second = stamp(&hit)["generation"].as_i64().unwrap();

    // A new file is a path the index does not hold: that run walks the tree.
    write(&root, "b.py", "def gamma():\n    pass\n");
    let hit = eventually(
        &mut c,
        "search_symbols",
        json!({"query": "gamma"}),
        "the new file",
        |r| stamp(r)["generation"].as_i64() > Some(second),
    );
    assert_eq!(
        hit["structuredContent"]["hits"][0]["name"], "gamma",
        "{hit}"
    );
    let watcher = watcher_once_walked(&mut c, 2);
    assert_eq!(watcher["backgroundWalks"], 2, "{watcher}");
    assert_eq!(watcher["callWalks"], 0);

    // A rule added to .gitignore changes which files are indexed without touching them:
    // that run walks too, and b.py leaves the index.
    write(&root, ".gitignore", "b.py\n");
    let gone = eventually(
        &mut c,
        "search_symbols",
        json!({"query": "gamma"}),
        "b.py ignored",
        |r| {
            r["structuredContent"]["hits"]
                .as_array()
                .is_some_and(|h| h.is_empty())
        },
    );
    assert_eq!(stamp(&gone)["pendingChanges"], false);
    let watcher = watcher_once_walked(&mut c, 3);
    assert_eq!(watcher["backgroundWalks"], 3, "{watcher}");
    assert_eq!(watcher["callWalks"], 0);
}

/// The first root's watcher counters once `backgroundWalks` has reached `walks`. The
/// background run counts its walk after its commit returns, so a call may see the new
/// generation a moment before the count.
fn watcher_once_walked(c: &mut Client, walks: u64) -> Value {
    let status = eventually(c, "get_status", json!({}), "the walk counted", |r| {
        r["structuredContent"]["roots"][0]["watcher"]["backgroundWalks"].as_u64() >= Some(walks)
    });
    status["structuredContent"]["roots"][0]["watcher"].clone()
}

#[test]
fn roots_given_at_start_are_indexed_watched_and_listed_before_any_call_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    std::fs::create_dir(&one).unwrap();
    std::fs::create_dir(&two).unwrap();
    write(&one, "a.py", "def alpha():\n    return 1\n");
    write(&two, "b.py", "def bravo():\n    return 2\n");
    let db = dir.path().join("one.db");
    let two_str = two.to_str().unwrap();
    // `two` twice: registered once.
    let mut c = Client::start_with(&one, &db, &[two_str, two_str], &[]);
    handshake(&mut c);
    let two_canonical = two.canonicalize().unwrap();
    // No call names `two`: its index is built and watched from the start.
    let status = eventually(&mut c, "get_status", json!({}), "both roots indexed", |r| {
        let roots = &r["structuredContent"]["roots"];
        roots.as_array().map(Vec::len) == Some(2)
            && roots[1]["generation"].as_i64() >= Some(1)
            && roots[1]["files"] == 1
            && roots[1]["watcher"]["watching"] == true
    });
    let s = &status["structuredContent"];
    assert_eq!(
        s["defaultRoot"].as_str(),
        one.canonicalize().unwrap().to_str()
    );
    assert_eq!(s["roots"][0]["database"].as_str(), db.to_str());
    assert_eq!(s["roots"][1]["root"].as_str(), two_canonical.to_str());
    assert_eq!(
        s["roots"][1]["database"].as_str(),
        two_canonical.join(".constellation/index.db").to_str(),
        "--db is the first root's only"
    );
    // A call names it by workspaceRoot; the default root's answers stay its own.
    let hit = c.call(
        "search_symbols",
        json!({"query": "bravo", "workspaceRoot": two_str}),
    );
    assert_eq!(
        hit["structuredContent"]["hits"][0]["name"], "bravo",
        "{hit}"
    );
    let miss = c.call("search_symbols", json!({"query": "bravo"}));
    assert_ne!(miss["structuredContent"]["hits"][0]["name"], "bravo");
    // An edit under the second root is picked up by its watch, with no call walking.
    let generation = s["roots"][1]["generation"].as_i64().unwrap();
    write(
        &two,
        "b.py",
        "def bravo():\n    return 2\n\ndef charlie():\n    pass\n",
    );
    eventually(
        &mut c,
        "get_status",
        json!({}),
        "the edit under the second root",
        |r| r["structuredContent"]["roots"][1]["generation"].as_i64() > Some(generation),
    );
    let status = c.call("get_status", json!({}));
    assert_eq!(
        status["structuredContent"]["roots"][1]["watcher"]["callWalks"],
        0
    );
}

#[test]
fn serve_refuses_a_root_that_does_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let out = common::run(&[
        "serve",
        dir.path().to_str().unwrap(),
        missing.to_str().unwrap(),
        "--db",
        dir.path().join("x.db").to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("workspace root") && err.contains("missing"),
        "{err}"
    );
}
