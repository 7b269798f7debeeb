//! Checklists and work hand-offs (seed 002) over MCP stdio against the real binary:
//! persistence across restarts, the LRU, every validation error, two processes on one
//! database, and the original server's contract walked step by step.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::mcp::{handshake, Client};
use serde_json::{json, Value};

/// A tiny workspace (one Python file) so the server's start-up index is instant.
fn workspace() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("main.py"), "def main():\n    return 1\n").unwrap();
    let db = dir.path().join("index.db");
    (dir, root, db)
}

fn start(root: &Path, db: &Path, extra: &[&str], envs: &[(&str, &str)]) -> Client {
    let mut c = Client::start_with(root, db, extra, envs);
    handshake(&mut c);
    c
}

/// The structured answer of a successful call (panics with the result otherwise).
fn ok(result: Value) -> Value {
    assert_ne!(result["isError"], true, "tool error: {result}");
    result["structuredContent"].clone()
}

/// The text of a failed call (panics when the call succeeded).
fn err(result: Value) -> String {
    assert_eq!(result["isError"], true, "expected an error: {result}");
    result["content"][0]["text"].as_str().unwrap().to_string()
}

fn save(c: &mut Client, summary: &str, description: &str, session: Option<&str>) -> Value {
    let mut args = json!({"work_summarize": summary, "work_description": description});
    if let Some(s) = session {
        args["sessionId"] = json!(s);
    }
    ok(c.call("save_current_work_info", args))
}

fn recent_ids(c: &mut Client) -> Vec<String> {
    ok(c.call("get_recent_works_info", json!({})))["works"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["workId"].as_str().unwrap().to_string())
        .collect()
}

fn is_iso_utc(s: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(s).is_ok() && s.ends_with('Z')
}

#[test]
fn save_list_get_survives_a_restart_with_its_snapshot() {
    let (_dir, root, db) = workspace();
    let mut c = start(&root, &db, &[], &[]);
    let tree = ok(c.call(
        "update_tasks",
        json!({"sessionId": "s1", "tasks": [
            {"taskId": "plan", "description": "write the plan", "children": [
                {"taskId": "draft", "description": "first draft", "status": "DONE"}]},
            {"taskId": "ship", "description": "ship it"}]}),
    ));
    assert_eq!(tree["taskCount"], 3);
    assert_eq!(tree["doneCount"], 1);

    let saved = save(
        &mut c,
        "Plan drafted; shipping next.",
        "planning",
        Some("s1"),
    );
    let id = saved["workId"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 8);
    assert!((10_000_000..=99_999_999).contains(&id.parse::<i64>().unwrap()));
    assert!(is_iso_utc(saved["timestamp"].as_str().unwrap()), "{saved}");
    assert!(
        saved["message"]
            .as_str()
            .unwrap()
            .contains("saved a snapshot of its tasks"),
        "{saved}"
    );

    let list = ok(c.call("get_recent_works_info", json!({})));
    assert_eq!(
        list,
        json!({"works": [{"workId": id, "work_timestamp": saved["timestamp"], "work_description": "planning"}]})
    );
    let before = ok(c.call("get_work_by_id", json!({"workId": id})));
    drop(c);
    // A rebuild of the index from scratch leaves tasks and work alone.
    common::run_ok(&[
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--full",
        "-q",
    ]);

    // A new server process on the same database.
    let mut c = start(&root, &db, &[], &[]);
    let after = ok(c.call("get_work_by_id", json!({"workId": id})));
    assert_eq!(after, before, "identical after a restart");
    assert_eq!(
        after,
        json!({
            "workId": id,
            "work_timestamp": saved["timestamp"],
            "work_description": "planning",
            "work_summarize": "Plan drafted; shipping next.",
            "sessionId": "s1",
            "work_tasks": [
                {"taskId": "plan", "description": "write the plan", "status": "TODO", "children": [
                    {"taskId": "draft", "description": "first draft", "status": "DONE"}]},
                {"taskId": "ship", "description": "ship it", "status": "TODO"}]
        })
    );
    // The tasks themselves persisted too.
    let all = ok(c.call("get_all_tasks", json!({"sessionId": "s1"})));
    assert_eq!(all["tasks"], after["work_tasks"]);
}

#[test]
fn the_eleventh_save_evicts_exactly_the_least_recently_used() {
    let (_dir, root, db) = workspace();
    let mut c = start(&root, &db, &[], &[]);
    let ids: Vec<String> = (0..10)
        .map(|i| {
            save(&mut c, &format!("summary {i}"), &format!("work {i}"), None)["workId"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 10, "ids unique");
    let mut expected: Vec<String> = ids.iter().rev().cloned().collect();
    assert_eq!(recent_ids(&mut c), expected, "most recently used first");

    // Reading the oldest makes it the most recent; the second oldest is now the LRU.
    ok(c.call("get_work_by_id", json!({"workId": ids[0]})));
    expected.retain(|x| x != &ids[0]);
    expected.insert(0, ids[0].clone());
    assert_eq!(recent_ids(&mut c), expected);

    let eleventh = save(&mut c, "summary 10", "work 10", None);
    let new_id = eleventh["workId"].as_str().unwrap().to_string();
    assert!(
        eleventh["message"].as_str().unwrap().contains(&ids[1]),
        "the message names the evicted id: {eleventh}"
    );
    expected.retain(|x| x != &ids[1]);
    expected.insert(0, new_id);
    assert_eq!(recent_ids(&mut c), expected);
    assert_eq!(expected.len(), 10);
    let gone = err(c.call("get_work_by_id", json!({"workId": ids[1]})));
    assert!(gone.starts_with("not_found: "), "{gone}");
    assert!(gone.contains(&ids[1]), "{gone}");
    // Still the same after a restart: the order is in the database.
    drop(c);
    let mut c = start(&root, &db, &[], &[]);
    assert_eq!(recent_ids(&mut c), expected);
}

#[test]
fn capacity_comes_from_the_flag_or_the_environment() {
    let (_dir, root, db) = workspace();
    let mut c = start(&root, &db, &["--work-capacity", "3"], &[]);
    for i in 0..5 {
        save(&mut c, "s", &format!("w{i}"), None);
    }
    assert_eq!(recent_ids(&mut c).len(), 3);
    drop(c);
    let mut c = start(&root, &db, &[], &[("CONSTELLATION_WORK_CAPACITY", "2")]);
    save(&mut c, "s", "w5", None);
    assert_eq!(recent_ids(&mut c).len(), 2);
    drop(c);
    let out = common::run(&["serve", root.to_str().unwrap(), "--work-capacity", "0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--work-capacity"));
}

#[test]
fn every_validation_error_has_its_code_and_message() {
    let (_dir, root, db) = workspace();
    let mut c = start(&root, &db, &[], &[]);
    let cases: Vec<(&str, Value, &str)> = vec![
        // sessionId
        ("update_tasks", json!({"sessionId": "", "tasks": []}),
         "invalid_argument: sessionId must be between 1 and 100 characters long"),
        ("update_tasks", json!({"sessionId": "x".repeat(101), "tasks": []}),
         "invalid_argument: sessionId must be between 1 and 100 characters long"),
        ("get_all_tasks", json!({"sessionId": "has space"}),
         "invalid_argument: sessionId \"has space\" can only contain alphanumeric characters, hyphens, and underscores"),
        ("mark_task_as_done", json!({"sessionId": "a/b", "taskId": "t"}),
         "invalid_argument: sessionId \"a/b\" can only contain"),
        // tasks
        ("update_tasks", json!({"sessionId": "s", "tasks": [{"taskId": "a:b", "description": "d"}]}),
         "invalid_argument: tasks[0]: taskId \"a:b\" contains ':'"),
        ("update_tasks", json!({"sessionId": "s", "tasks": [{"taskId": "t".repeat(21), "description": "d"}]}),
         "invalid_argument: tasks[0]: taskId \"ttttttttttttttttttttt\" must be between 1 and 20 characters long"),
        ("update_tasks", json!({"sessionId": "s", "tasks": [{"taskId": "", "description": "d"}]}),
         "invalid_argument: tasks[0]: taskId \"\" must be between 1 and 20 characters long"),
        ("update_tasks", json!({"sessionId": "s", "tasks": [{"taskId": "a", "description": "d", "children": [{"taskId": "b", "description": "  "}]}]}),
         "invalid_argument: tasks[0].children[0]: task \"b\" description cannot be empty"),
        ("update_tasks", json!({"sessionId": "s", "tasks": [{"taskId": "a", "description": "d".repeat(1001)}]}),
         "invalid_argument: tasks[0]: task \"a\" description is too long (1001 characters, at most 1000)"),
        ("update_tasks", json!({"sessionId": "s", "tasks": [{"taskId": "a", "description": "d"}, {"taskId": "a", "description": "e"}]}),
         "invalid_argument: tasks: duplicate taskId \"a\" among siblings"),
        ("update_tasks", json!({"sessionId": "s", "tasks": [{"taskId": "a", "description": "d", "status": "done"}]}),
         "invalid_argument: tasks[0].status: unknown variant `done`, expected `TODO` or `DONE`"),
        ("update_tasks", json!({"sessionId": "s", "tasks": [{"description": "d"}]}),
         "invalid_argument: tasks[0]: missing field `taskId`"),
        ("update_tasks", json!({"sessionId": "s", "path": "/a//b", "tasks": []}),
         "invalid_argument: path \"/a//b\" cannot contain consecutive slashes"),
        ("update_tasks", json!({"sessionId": "s", "path": "/nope", "tasks": []}),
         "not_found: path \"/nope\" names no task of session \"s\""),
        ("mark_task_as_done", json!({"sessionId": "empty", "taskId": "t"}),
         "not_found: no tasks found for session \"empty\""),
        ("mark_task_as_done", json!({"sessionId": "s", "taskId": "a|b"}),
         "invalid_argument: taskId \"a|b\" contains '|'"),
        // work info
        ("save_current_work_info", json!({"work_summarize": "", "work_description": "d"}),
         "invalid_argument: work_summarize cannot be empty"),
        ("save_current_work_info", json!({"work_summarize": "s".repeat(5001), "work_description": "d"}),
         "invalid_argument: work_summarize cannot exceed 5000 characters (got 5001)"),
        ("save_current_work_info", json!({"work_summarize": "s", "work_description": " "}),
         "invalid_argument: work_description cannot be empty"),
        ("save_current_work_info", json!({"work_summarize": "s", "work_description": "d".repeat(201)}),
         "invalid_argument: work_description cannot exceed 200 characters (got 201)"),
        ("save_current_work_info", json!({"work_summarize": "s", "work_description": "d", "sessionId": "no spaces"}),
         "invalid_argument: sessionId \"no spaces\" can only contain"),
        ("save_current_work_info", json!({"work_description": "d"}),
         "invalid_argument: missing field `work_summarize`"),
        ("get_work_by_id", json!({"workId": "1234567"}),
         "invalid_argument: workId \"1234567\" must be an 8-digit numeric string (10000000-99999999)"),
        ("get_work_by_id", json!({"workId": "0123456a"}),
         "invalid_argument: workId \"0123456a\" must be an 8-digit numeric string"),
        ("get_work_by_id", json!({"workId": 12345678}),
         "invalid_argument: workId: invalid type: integer `12345678`, expected a string"),
        ("get_work_by_id", json!({"workId": "12345678"}),
         "not_found: work not found for workId '12345678'"),
        ("get_recent_works_info", json!({"extra": 1}),
         "invalid_argument: unknown field `extra`"),
    ];
    for (tool, args, expected) in cases {
        let text = err(c.call(tool, args.clone()));
        assert!(
            text.starts_with(expected),
            "{tool} {args}:\n  got      {text}\n  expected {expected}..."
        );
    }

    // Nothing invalid was stored.
    assert_eq!(recent_ids(&mut c), Vec::<String>::new());
    let all = ok(c.call("get_all_tasks", json!({"sessionId": "s"})));
    assert_eq!(all["tasks"], json!([]));
    assert_eq!(all["message"], "No tasks found for session s.");

    // An unknown task id in a real session names the id.
    ok(c.call(
        "update_tasks",
        json!({"sessionId": "s", "tasks": [{"taskId": "a", "description": "d"}]}),
    ));
    let text = err(c.call(
        "mark_task_as_done",
        json!({"sessionId": "s", "taskId": "zz"}),
    ));
    assert_eq!(text, "not_found: task \"zz\" not found in session \"s\"");

    // An unknown session on save: saved, with a warning.
    let saved = save(&mut c, "s", "d", Some("ghost"));
    assert!(
        saved["message"]
            .as_str()
            .unwrap()
            .contains("Warning: Session with ID 'ghost' not found. No tasks were associated."),
        "{saved}"
    );
    let got = ok(c.call("get_work_by_id", json!({"workId": saved["workId"]})));
    assert_eq!(got["sessionId"], "ghost");
    assert!(got.get("work_tasks").is_none(), "{got}");
}

/// The original server's contract, walked: nested tree, a child marked done, work saved
/// with the session, the tasks changed, the work read back with the old snapshot.
#[test]
fn checklist_contract_sequence() {
    let (_dir, root, db) = workspace();
    let mut c = start(&root, &db, &[], &[]);

    let r = c.call(
        "update_tasks",
        json!({"sessionId": "feature-42", "tasks": [
            {"taskId": "design", "description": "Design the API", "children": [
                {"taskId": "schema", "description": "Write the schema"},
                {"taskId": "review", "description": "Get a review"}]},
            {"taskId": "build", "description": "Build it"}]}),
    );
    let tree_text = "├── ○ design: Design the API\n│   ├── ○ schema: Write the schema\n│   └── ○ review: Get a review\n└── ○ build: Build it";
    assert_eq!(
        r["content"][0]["text"],
        format!("Successfully updated 2 tasks for session feature-42.\nComplete task hierarchy:\n{tree_text}")
    );
    let created = ok(r);
    assert_eq!(
        created,
        json!({
            "sessionId": "feature-42",
            "message": "Successfully updated 2 tasks for session feature-42.",
            "tasks": [
                {"taskId": "design", "description": "Design the API", "status": "TODO", "children": [
                    {"taskId": "schema", "description": "Write the schema", "status": "TODO"},
                    {"taskId": "review", "description": "Get a review", "status": "TODO"}]},
                {"taskId": "build", "description": "Build it", "status": "TODO"}],
            "tree": tree_text,
            "taskCount": 4,
            "doneCount": 0
        })
    );

    // Subtree replacement by path.
    let sub = ok(c.call(
        "update_tasks",
        json!({"sessionId": "feature-42", "path": "/build/", "tasks": [
            {"taskId": "code", "description": "Write the code"},
            {"taskId": "test", "description": "Test the code"}]}),
    ));
    assert_eq!(
        sub["message"],
        "Successfully updated 2 tasks at path '/build' for session feature-42."
    );
    assert_eq!(sub["taskCount"], 6);

    // Mark a child done: only it changes; its parent stays TODO.
    let done = ok(c.call(
        "mark_task_as_done",
        json!({"sessionId": "feature-42", "taskId": "schema"}),
    ));
    assert_eq!(done["message"], "Task 'schema' marked as DONE");
    let snapshot_tree = "├── ○ design: Design the API\n│   ├── ✓ schema: Write the schema\n│   └── ○ review: Get a review\n└── ○ build: Build it\n    ├── ○ code: Write the code\n    └── ○ test: Test the code";
    assert_eq!(done["tree"], snapshot_tree);
    assert_eq!(done["doneCount"], 1);
    let snapshot = done["tasks"].clone();

    // Marking a parent leaves its children alone.
    let parent = ok(c.call(
        "mark_task_as_done",
        json!({"sessionId": "feature-42", "taskId": "build"}),
    ));
    assert_eq!(parent["tasks"][1]["status"], "DONE");
    assert_eq!(parent["tasks"][1]["children"][0]["status"], "TODO");
    assert_eq!(parent["tasks"][1]["children"][1]["status"], "TODO");
    let snapshot_after_build = parent["tasks"].clone();
    assert_ne!(snapshot_after_build, snapshot);

    // Save with the session: the snapshot is the tree at this moment.
    let saved = save(
        &mut c,
        "Schema written; code and tests remain.",
        "feature 42 hand-off",
        Some("feature-42"),
    );
    let id = saved["workId"].as_str().unwrap().to_string();
    assert_eq!(
        saved["message"],
        format!("Successfully saved work information with workId: {id}. Associated with session feature-42 and saved a snapshot of its tasks.")
    );

    // Change the tasks afterwards.
    ok(c.call(
        "mark_task_as_done",
        json!({"sessionId": "feature-42", "taskId": "review"}),
    ));
    ok(c.call(
        "update_tasks",
        json!({"sessionId": "feature-42", "tasks": [{"taskId": "other", "description": "Something else"}]}),
    ));
    let now = ok(c.call("get_all_tasks", json!({"sessionId": "feature-42"})));
    assert_eq!(now["tree"], "└── ○ other: Something else");
    assert_eq!(now["message"], "Tasks for session feature-42:");

    // The work still carries the tree as it was when saved.
    let work = ok(c.call("get_work_by_id", json!({"workId": id})));
    assert_eq!(
        work,
        json!({
            "workId": id,
            "work_timestamp": saved["timestamp"],
            "work_description": "feature 42 hand-off",
            "work_summarize": "Schema written; code and tests remain.",
            "sessionId": "feature-42",
            "work_tasks": snapshot_after_build
        })
    );

    // Saving again with the same session replaces that entry (same id, new snapshot).
    let again = save(&mut c, "Pivoted.", "feature 42, take 2", Some("feature-42"));
    assert_eq!(again["workId"], id.as_str());
    assert!(again["message"]
        .as_str()
        .unwrap()
        .contains("replacing this session's earlier entry"));
    let list = ok(c.call("get_recent_works_info", json!({})));
    assert_eq!(list["works"].as_array().unwrap().len(), 1);
    assert_eq!(list["works"][0]["work_description"], "feature 42, take 2");
    let work = ok(c.call("get_work_by_id", json!({"workId": id})));
    assert_eq!(work["work_tasks"], now["tasks"]);
}

/// Two server processes on one database, each saving 50 entries and rewriting task
/// lists at the same time.
#[test]
fn two_processes_share_one_database_without_losing_writes() {
    let (_dir, root, db) = workspace();
    // Create the database first so both servers only open it.
    common::run_ok(&[
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "-q",
    ]);

    let run = |name: &'static str, root: PathBuf, db: PathBuf| {
        std::thread::spawn(move || {
            let mut c = start(&root, &db, &[], &[]);
            let mut saved: BTreeMap<String, (String, String)> = BTreeMap::new();
            let mut errors = Vec::new();
            for i in 0..50 {
                let session = format!("{name}-{}", i % 5);
                let t = c.call(
                    "update_tasks",
                    json!({"sessionId": session, "tasks": [
                        {"taskId": format!("t{i}"), "description": format!("{name} step {i}"),
                         "children": [{"taskId": "sub", "description": "child"}]}]}),
                );
                if t["isError"] == true {
                    errors.push(t.to_string());
                }
                let summary = format!("{name} summary {i}");
                let description = format!("{name} work {i}");
                let r = c.call(
                    "save_current_work_info",
                    json!({"work_summarize": summary, "work_description": description}),
                );
                if r["isError"] == true {
                    errors.push(r.to_string());
                    continue;
                }
                let id = r["structuredContent"]["workId"]
                    .as_str()
                    .unwrap()
                    .to_string();
                assert!(saved.insert(id, (summary, description)).is_none());
            }
            (saved, errors)
        })
    };
    let a = run("alpha", root.clone(), db.clone());
    let b = run("beta", root.clone(), db.clone());
    let (saved_a, errors_a) = a.join().unwrap();
    let (saved_b, errors_b) = b.join().unwrap();
    assert_eq!(errors_a, Vec::<String>::new());
    assert_eq!(errors_b, Vec::<String>::new());
    assert_eq!(saved_a.len() + saved_b.len(), 100);
    let mut all = saved_a.clone();
    for (id, v) in &saved_b {
        assert!(
            all.insert(id.clone(), v.clone()).is_none(),
            "workId {id} handed out twice"
        );
    }

    let mut c = start(&root, &db, &[], &[]);
    let ids = recent_ids(&mut c);
    assert_eq!(ids.len(), 10, "the LRU holds exactly its capacity");
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 10);
    for id in &ids {
        let w = ok(c.call("get_work_by_id", json!({"workId": id})));
        let (summary, description) = &all[id];
        assert_eq!(&w["work_summarize"], summary);
        assert_eq!(&w["work_description"], description);
    }
    // The ten kept are the last five saves of each process or a mix, but always the
    // most recent ones: every survivor is among the last 10 of the 100 by recency, so
    // each process's survivors are a suffix of its own saves.
    for (name, saved) in [("alpha", &saved_a), ("beta", &saved_b)] {
        let mut nums: Vec<usize> = ids
            .iter()
            .filter_map(|id| saved.get(id))
            .map(|(s, _)| s.rsplit(' ').next().unwrap().parse().unwrap())
            .collect();
        nums.sort();
        if let Some(&first) = nums.first() {
            assert_eq!(
                nums,
                (first..50).collect::<Vec<_>>(),
                "{name}: survivors are its latest saves"
            );
        }
    }
    // Every session's tasks are intact: the last write of each (t45..t49 for i % 5).
    for name in ["alpha", "beta"] {
        for k in 0..5 {
            let all = ok(c.call("get_all_tasks", json!({"sessionId": format!("{name}-{k}")})));
            let last = 45 + k;
            assert_eq!(
                all["tasks"],
                json!([{"taskId": format!("t{last}"), "description": format!("{name} step {last}"),
                        "status": "TODO",
                        "children": [{"taskId": "sub", "description": "child", "status": "TODO"}]}])
            );
        }
    }
}

/// A writer that holds the index database longer than SQLite's busy timeout (10 s), as
/// an index run of a large tree does, delays no agent-memory write: tasks, work and
/// thoughts live in the memory database beside it.
#[test]
fn memory_writes_do_not_wait_for_the_index_writer() {
    let (_dir, root, db) = workspace();
    let mut c = start(&root, &db, &[], &[]);
    ok(c.call("get_recent_works_info", json!({})));

    let locker = rusqlite::Connection::open(&db).unwrap();
    locker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = std::time::Instant::now();
    ok(c.call(
        "update_tasks",
        json!({"sessionId": "busy", "tasks": [{"taskId": "a", "description": "while indexing"}]}),
    ));
    ok(c.call(
        "mark_task_as_done",
        json!({"sessionId": "busy", "taskId": "a"}),
    ));
    let saved = save(&mut c, "during the lock", "did not wait", Some("busy"));
    let id = saved["workId"].as_str().unwrap().to_string();
    ok(c.call("get_work_by_id", json!({"workId": id})));
    ok(c.call(
        "sequentialthinking",
        json!({"thought": "plain", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": false}),
    ));
    let elapsed = started.elapsed();
    assert!(
        elapsed < std::time::Duration::from_secs(5),
        "memory writes waited {elapsed:?} for the index writer"
    );
    locker.execute_batch("COMMIT").unwrap();
    assert_eq!(recent_ids(&mut c), vec![id]);
}

/// Every task tool answers with the whole tree, so a session's tree is capped at
/// 40,000 characters of ids and descriptions: a write past it is refused and changes
/// nothing.
#[test]
fn a_task_tree_too_large_for_an_answer_is_refused_and_changes_nothing() {
    let (_dir, root, db) = workspace();
    let mut c = start(&root, &db, &[], &[]);
    ok(c.call(
        "update_tasks",
        json!({"sessionId": "big", "tasks": [{"taskId": "keep", "description": "small"}]}),
    ));
    let long = "x".repeat(900);
    let tasks: Vec<Value> = (0..50)
        .map(|i| json!({"taskId": format!("t{i}"), "description": long}))
        .collect();
    let e = err(c.call("update_tasks", json!({"sessionId": "big", "tasks": tasks})));
    assert!(
        e.starts_with("invalid_argument:") && e.contains("40000"),
        "{e}"
    );
    let all = ok(c.call("get_all_tasks", json!({"sessionId": "big"})));
    assert_eq!(all["taskCount"], 1, "{all}");
    let fits: Vec<Value> = (0..40)
        .map(|i| json!({"taskId": format!("t{i}"), "description": long}))
        .collect();
    ok(c.call("update_tasks", json!({"sessionId": "big", "tasks": fits})));
}

/// With a capacity above 100, the list stops at the 100 most recently used entries and
/// says how many there are and how to read the rest; the query it gives works.
#[test]
fn the_recent_list_stops_at_100_and_says_how_to_read_the_rest() {
    let (_dir, root, db) = workspace();
    let mut c = start(&root, &db, &["--work-capacity", "500"], &[]);
    for i in 0..103 {
        save(&mut c, "s", &format!("w{i}"), None);
    }
    let answer = ok(c.call("get_recent_works_info", json!({})));
    let works = answer["works"].as_array().unwrap();
    assert_eq!(works.len(), 100);
    assert_eq!(works[0]["work_description"], "w102");
    let note = answer["note"].as_str().unwrap();
    assert!(note.contains("100 most recently used of 103"), "{note}");
    let sql = note.split("lists the rest: ").nth(1).unwrap();
    let rest = ok(c.call("query_index", json!({ "sql": sql })));
    assert_eq!(rest["rowCount"], 3, "{rest}");
    // At or under 100 entries: no note.
    let (_dir2, root2, db2) = workspace();
    let mut c = start(&root2, &db2, &[], &[]);
    save(&mut c, "s", "only", None);
    assert!(ok(c.call("get_recent_works_info", json!({})))
        .get("note")
        .is_none());
}
