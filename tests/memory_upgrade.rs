//! Upgrading an index database of schema version 8, which kept agent memory (tasks,
//! work hand-offs, thoughts, audits, file documents) in its own tables: the first open
//! copies every row into the memory database beside it and drops the old tables, and
//! the tools and `query_index` answer from the copy.

mod common;

use std::path::Path;

use common::mcp::{handshake, Client};
use serde_json::{json, Value};

/// The index migrations as version 8 shipped them.
const V8: &[&str] = &[
    include_str!("../schema/001_index.sql"),
    include_str!("../schema/002_work.sql"),
    include_str!("../schema/003_thinking.sql"),
    include_str!("../schema/004_import_flags.sql"),
    include_str!("../schema/005_file_docs.sql"),
    include_str!("../schema/006_call_resolution.sql"),
    include_str!("../schema/007_native_calls.sql"),
    include_str!("../schema/008_scip.sql"),
];

const T: &str = "2026-11-01T10:00:00.000Z";

/// An index database at version 8 with rows in every agent-memory table.
fn old_database(db: &Path) {
    let mut conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;")
        .unwrap();
    let tx = conn.transaction().unwrap();
    for sql in V8 {
        tx.execute_batch(sql).unwrap();
    }
    tx.pragma_update(None, "user_version", 8).unwrap();
    tx.commit().unwrap();
    let tasks = json!([{"taskId": "plan", "description": "old plan", "status": "TODO",
                        "children": [{"taskId": "tests", "description": "old tests", "status": "DONE"}]}]);
    conn.execute_batch(&format!(
        "INSERT INTO task_sessions VALUES ('s1', '{T}', '{T}');
         INSERT INTO tasks VALUES ('s1', '/plan', '', 0, 'plan', 'old plan', 'TODO');
         INSERT INTO tasks VALUES ('s1', '/plan/tests', '/plan', 0, 'tests', 'old tests', 'DONE');
         INSERT INTO work_info VALUES (12345678, 's1', '{T}', 'old hand-off', 'what was done before', '{tasks}', 6);
         INSERT INTO work_info VALUES (23456789, NULL, '{T}', 'older hand-off', 'even earlier', NULL, 3);
         UPDATE meta SET value = '7' WHERE key = 'work_access_seq';
         INSERT INTO thoughts (session_id, thought, thought_number, total_thoughts, next_thought_needed, created_at)
             VALUES ('think-1', 'first', 1, 3, 1, '{T}'), ('think-1', 'second', 2, 3, 1, '{T}');
         INSERT INTO audit_sessions VALUES ('think-1', '{{}}', NULL, 1, '{T}', '{T}');
         INSERT INTO audit_history (session_id, iteration, thought_number, candidate, overall, verdict, review, created_at)
             VALUES ('think-1', 1, 2, 'fn f() {{}}', 70, 'revise', '{{}}', '{T}');
         INSERT INTO file_docs VALUES ('file', 'main.py', 'd1', '# main.py', '{{}}', '.artifacts/src/main.py.md', '{T}');"
    ))
    .unwrap();
}

fn ok(result: Value) -> Value {
    assert_ne!(result["isError"], true, "tool error: {result}");
    result["structuredContent"].clone()
}

fn start(root: &Path, db: &Path) -> Client {
    let mut c = Client::start(root, db);
    handshake(&mut c);
    c
}

fn tables(conn: &rusqlite::Connection) -> Vec<String> {
    common::strings(
        conn,
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name",
    )
}

#[test]
fn an_old_index_database_hands_its_memory_over_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("main.py"), "def main():\n    return 1\n").unwrap();
    let db = dir.path().join("old.db");
    old_database(&db);
    let memory = constellation::memory::db_path(&db);
    assert_eq!(memory, dir.path().join("old.memory.db"));
    assert!(!memory.exists());

    let mut c = start(&root, &db);
    let all = ok(c.call("get_all_tasks", json!({"sessionId": "s1"})));
    assert_eq!(
        (all["taskCount"].as_u64(), all["doneCount"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(
        all["tree"],
        "└── ○ plan: old plan\n    └── ✓ tests: old tests"
    );
    let recent: Vec<Value> = ok(c.call("get_recent_works_info", json!({})))["works"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["workId"].clone())
        .collect();
    assert_eq!(recent, vec![json!("12345678"), json!("23456789")]);
    let old = ok(c.call("get_work_by_id", json!({"workId": "23456789"})));
    assert_eq!(old["work_summarize"], "even earlier");
    // The recency counter went on from the old database's 7: the get is now the most recent.
    let new = ok(c.call(
        "save_current_work_info",
        json!({"work_summarize": "new", "work_description": "after the upgrade"}),
    ));
    let recent: Vec<Value> = ok(c.call("get_recent_works_info", json!({})))["works"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["workId"].clone())
        .collect();
    assert_eq!(
        recent,
        vec![new["workId"].clone(), json!("23456789"), json!("12345678")]
    );
    // The thinking session continues where it was.
    let third = ok(c.call(
        "sequentialthinking",
        json!({"thought": "third", "thoughtNumber": 3, "totalThoughts": 3,
               "nextThoughtNeeded": false, "loopId": "think-1"}),
    ));
    assert_eq!(third["thoughtHistoryLength"], 3);
    // Plain SQL finds the rows, qualified or not.
    for (sql, want) in [
        ("SELECT count(*) FROM memory.file_docs", 1),
        ("SELECT count(*) FROM file_docs", 1),
        (
            "SELECT count(*) FROM audit_history WHERE verdict = 'revise'",
            1,
        ),
        ("SELECT count(*) FROM memory.thoughts", 3),
        ("SELECT count(*) FROM open_tasks", 1),
    ] {
        let r = ok(c.call("query_index", json!({"sql": sql})));
        assert_eq!(r["rows"], json!([[want]]), "{sql}");
    }
    drop(c);

    // The index database lost the old tables, and its counter; the memory database
    // holds everything and remembers the import.
    let idx = common::open_db(&db);
    assert_eq!(
        common::int(&idx, "PRAGMA user_version"),
        constellation::store::SCHEMA_VERSION
    );
    let names = tables(&idx);
    for gone in [
        "task_sessions",
        "tasks",
        "work_info",
        "thoughts",
        "audit_sessions",
        "audit_history",
        "file_docs",
        "recent_works",
        "open_tasks",
    ] {
        assert!(
            !names.contains(&gone.to_string()),
            "{gone} still in {names:?}"
        );
    }
    assert!(names.iter().all(|n| !n.starts_with("legacy_")), "{names:?}");
    assert_eq!(
        common::int(
            &idx,
            "SELECT count(*) FROM meta WHERE key = 'work_access_seq'"
        ),
        0
    );
    let mem = common::open_memory_db(&db);
    assert_eq!(common::int(&mem, "SELECT count(*) FROM tasks"), 2);
    assert_eq!(common::int(&mem, "SELECT count(*) FROM work_info"), 3);
    assert_eq!(common::int(&mem, "SELECT count(*) FROM audit_sessions"), 1);
    assert!(
        common::int(
            &mem,
            "SELECT min(access_seq) FROM work_info WHERE work_id <> 12345678"
        ) > 7
    );
    assert_eq!(
        common::int(
            &mem,
            "SELECT count(*) FROM meta WHERE key = 'legacy_import'"
        ),
        1
    );
    drop((idx, mem));

    // A second open copies nothing again.
    let mut c = start(&root, &db);
    let all = ok(c.call("get_all_tasks", json!({"sessionId": "s1"})));
    assert_eq!(all["taskCount"], 2);
    let r = ok(c.call(
        "query_index",
        json!({"sql": "SELECT count(*) FROM work_info"}),
    ));
    assert_eq!(r["rows"], json!([[3]]));
}
