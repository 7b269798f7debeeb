//! The file watch of a long-lived workspace (`Workspace::watch`, used by `serve`):
//! edits, new files and deletions reach the index in the background, and tool calls
//! walk the tree only while events are pending.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use constellation::index::IndexOptions;
use constellation::tools::workspace::Workspace;

/// Names of the function nodes of the index, sorted.
fn functions(ws: &Workspace) -> Vec<String> {
    let conn = ws.store().conn().unwrap();
    let mut stmt = conn
        .prepare("SELECT name FROM nodes WHERE kind = 'function' ORDER BY name")
        .unwrap();
    let names = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    names
}

/// Waits (up to 10 s) until `check` holds, polling without any tool call.
fn eventually(what: &str, check: impl Fn() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "not within 10 s: {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn open(root: &Path) -> Arc<Workspace> {
    Arc::new(Workspace::open(root, None, IndexOptions::default()).unwrap())
}

#[test]
fn a_watched_workspace_follows_edits_without_walking_from_calls() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/a.py"), "def alpha():\n    return 1\n").unwrap();
    let ws = open(root);
    ws.watch()
        .expect("inotify is available on the test machines");
    assert!(ws.is_watched());

    // The first background run indexes the tree as it is.
    eventually("the first background run", || ws.freshness().is_current());
    assert_eq!(functions(&ws), ["alpha"]);

    // Idle: calls walk nothing.
    for _ in 0..5 {
        ws.refresh_within(Duration::ZERO).unwrap();
    }
    assert_eq!(ws.freshness().call_walks(), 0);

    // An edit, a new file in a new directory, then a deletion: each reaches the index
    // with no call at all.
    std::fs::write(
        root.join("pkg/a.py"),
        "def alpha():\n    return 2\n\ndef beta():\n    pass\n",
    )
    .unwrap();
    eventually("the edit", || functions(&ws) == ["alpha", "beta"]);
    std::fs::create_dir(root.join("pkg/sub")).unwrap();
    std::fs::write(root.join("pkg/sub/c.py"), "def gamma():\n    pass\n").unwrap();
    eventually("the new file", || {
        functions(&ws) == ["alpha", "beta", "gamma"]
    });
    std::fs::remove_file(root.join("pkg/a.py")).unwrap();
    eventually("the deletion", || functions(&ws) == ["gamma"]);
    eventually("the background run after the deletion", || {
        ws.freshness().is_current()
    });
    assert_eq!(ws.freshness().call_walks(), 0);
    assert!(ws.freshness().background_runs() >= 4);

    // The index's own writes (its database sits inside the root) are not events.
    let runs = ws.freshness().background_runs();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        ws.freshness().background_runs(),
        runs,
        "the watch feeds itself"
    );
}

#[test]
fn a_call_while_events_are_pending_sees_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("m.py"), "def one():\n    pass\n").unwrap();
    let ws = open(root);
    ws.watch().unwrap();
    eventually("the first background run", || ws.freshness().is_current());

    std::fs::write(root.join("n.py"), "def two():\n    pass\n").unwrap();
    // As soon as the event is counted, a call must not answer from the older index,
    // even though the background run waits for a quiet period first. (Should the
    // background run be done before the poll sees the event, the call has nothing to
    // wait for, and the assertion holds all the same.)
    eventually("the event", || {
        !ws.freshness().is_current() || functions(&ws) == ["one", "two"]
    });
    ws.refresh_within(Duration::from_secs(3600)).unwrap();
    assert_eq!(functions(&ws), ["one", "two"]);
    // The call waited for the background run rather than walking the tree itself.
    assert_eq!(ws.freshness().call_walks(), 0);
}

#[test]
fn a_database_above_the_root_does_not_hide_the_tree() {
    // `serve ROOT --db DIR/index.db` with ROOT inside DIR: the tree's events count.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("m.py"), "def one():\n    pass\n").unwrap();
    let db = dir.path().join("index.db");
    let ws = Arc::new(Workspace::open(&root, Some(&db), IndexOptions::default()).unwrap());
    ws.watch().unwrap();
    eventually("the first background run", || ws.freshness().is_current());
    std::fs::write(
        root.join("m.py"),
        "def one():\n    pass\n\ndef two():\n    pass\n",
    )
    .unwrap();
    eventually("the edit", || functions(&ws) == ["one", "two"]);
    assert_eq!(ws.freshness().call_walks(), 0);
}

#[test]
fn an_unwatched_workspace_checks_from_calls() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.py"), "def one():\n    pass\n").unwrap();
    let ws = open(dir.path());
    ws.refresh_within(Duration::ZERO).unwrap();
    std::fs::write(dir.path().join("n.py"), "def two():\n    pass\n").unwrap();
    ws.refresh_within(Duration::ZERO).unwrap();
    assert_eq!(functions(&ws), ["one", "two"]);
    assert_eq!(ws.freshness().call_walks(), 2);
    assert!(!ws.is_watched());
}

#[test]
fn a_call_before_the_watch_is_up_waits_for_its_first_run_instead_of_walking() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("m.py"), "def one():\n    pass\n").unwrap();
    let ws = open(root);
    // What `serve` does: say a watch is coming, then start it on another thread.
    ws.expect_watch();
    let starter = Arc::clone(&ws);
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        starter.watch().unwrap();
    });
    ws.refresh_within(Duration::ZERO).unwrap();
    assert_eq!(
        functions(&ws),
        ["one"],
        "the call saw the watch's first run"
    );
    assert_eq!(ws.freshness().call_walks(), 0, "and walked nothing itself");
    t.join().unwrap();
}

#[test]
fn more_concurrent_searches_than_pooled_connections_never_wait_for_the_pool() {
    // 16 threads search while edits move the generation, so each round the in-degrees
    // are reloaded: a call that held a connection while reloading them could exhaust
    // the pool (8 connections) and stall everyone for the pool's 30 s timeout.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("m.py"), "def one():\n    pass\n").unwrap();
    let ws = open(root);
    ws.refresh(false, &|_| {}).unwrap();
    let started = Instant::now();
    for round in 0..5 {
        std::fs::write(
            root.join("m.py"),
            format!("def one():\n    pass\n\ndef r{round}():\n    one()\n"),
        )
        .unwrap();
        ws.refresh(false, &|_| {}).unwrap();
        let threads: Vec<_> = (0..16)
            .map(|_| {
                let ws = Arc::clone(&ws);
                std::thread::spawn(move || {
                    let args: constellation::tools::search::SearchArgs =
                        serde_json::from_value(serde_json::json!({"query": "one"})).unwrap();
                    constellation::tools::search::search_symbols(&ws, &args).unwrap();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}: calls waited for the pool",
        started.elapsed()
    );
}

#[test]
fn another_process_asks_the_watch_and_walks_nothing() {
    // Two workspaces of one root and database, as a `serve` and a command beside it
    // would hold them (each open file description takes its own lock).
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("m.py"), "def one():\n    pass\n").unwrap();
    let server = open(root);
    server.watch().unwrap();
    eventually("the first background run", || {
        server.freshness().is_current()
    });
    let command = open(root);
    assert_eq!(command.synced_by_server(), Some(std::process::id()));
    for round in 0..5 {
        std::fs::write(
            root.join("m.py"),
            format!("def one():\n    pass\n\ndef r{round}():\n    one()\n"),
        )
        .unwrap();
        // Right after the write: the command's call waits for the server's run.
        command.refresh_within(Duration::ZERO).unwrap();
        assert_eq!(functions(&command), ["one", format!("r{round}").as_str()]);
    }
    assert_eq!(command.freshness().call_walks(), 0, "the command walked");
    assert_eq!(server.freshness().call_walks(), 0);
    // Once the tree is quiet, the server keeps the totals, so that a command reads
    // them instead of counting: they are the counted ones, at the current generation.
    let kept = || -> Option<String> {
        let conn = command.store().conn().unwrap();
        conn.query_row("SELECT value FROM meta WHERE key = 'totals'", [], |r| {
            r.get(0)
        })
        .ok()
    };
    let counted = || {
        let conn = command.store().conn().unwrap();
        conn.query_row(
            "SELECT (SELECT value FROM meta WHERE key = 'generation') || ' ' ||
                    (SELECT count(*) FROM nodes) || ' ' || (SELECT count(*) FROM edges)
                    || ' ' || (SELECT count(*) FROM files)",
            [],
            |r| r.get::<_, String>(0),
        )
        .unwrap()
    };
    eventually("the totals kept", || {
        kept().as_deref() == Some(counted().as_str())
    });
    let totals = command.store().stored_totals().unwrap();
    assert_eq!(
        format!(
            "{} {} {} {}",
            totals.generation, totals.nodes, totals.edges, totals.files
        ),
        counted()
    );
    assert_eq!(totals.files, 1);
    // Other walk options: the server's answer would not be the command's.
    let mut other = IndexOptions::default();
    other.walk.ignore_files = false;
    let elsewhere = Workspace::open(root, None, other).unwrap();
    assert_eq!(elsewhere.synced_by_server(), None);
    elsewhere.refresh_within(Duration::ZERO).unwrap();
    assert_eq!(elsewhere.freshness().call_walks(), 1);
    // A workspace that watches asks nobody; once the watch is gone, nobody answers.
    assert_eq!(server.synced_by_server(), None);
    drop(server);
    assert_eq!(command.synced_by_server(), None);
}

#[test]
fn a_second_server_of_the_database_answers_once_the_first_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("m.py"), "def one():\n    pass\n").unwrap();
    let first = open(root);
    first.watch().unwrap();
    eventually("the first watch's run", || first.freshness().is_current());
    let second = open(root);
    second.watch().unwrap();
    eventually("the second watch's run", || second.freshness().is_current());
    let command = open(root);
    assert!(command.synced_by_server().is_some(), "the first answers");
    drop(first);
    // The second publishes before its next run, which any change starts.
    std::fs::write(root.join("n.py"), "def two():\n    pass\n").unwrap();
    eventually("the second answers", || {
        command.synced_by_server().is_some()
    });
    command.refresh_within(Duration::ZERO).unwrap();
    assert_eq!(functions(&command), ["one", "two"]);
    assert_eq!(command.freshness().call_walks(), 0);
}
