//! `sequentialthinking` (seed 003) through the real binary over MCP stdio: the
//! reference server's answers to a scripted sequence, the audit fixtures' reviews,
//! sessions across restarts, corrupt sessions, stagnation and cycles, the codex judge
//! with stand-in executables, and the context pack's scopes.

mod common;

use std::path::{Path, PathBuf};

use common::mcp::{handshake, Client};
use serde_json::{json, Value};

const FIELDS: [&str; 5] = [
    "thoughtNumber",
    "totalThoughts",
    "nextThoughtNeeded",
    "branches",
    "thoughtHistoryLength",
];

fn fixture_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn start(root: &Path, db: &Path, envs: &[(&str, &str)]) -> Client {
    let mut c = Client::start_with(root, db, &[], envs);
    handshake(&mut c);
    c
}

/// Calls the tool; panics on an error result; returns structuredContent.
fn think(c: &mut Client, args: Value) -> Value {
    let r = c.call("sequentialthinking", args.clone());
    assert_ne!(r["isError"], true, "{args} failed: {r}");
    let sc = r["structuredContent"].clone();
    assert!(sc.is_object(), "no structuredContent: {r}");
    // The text copy parses to the same object.
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, sc);
    sc
}

/// Calls the tool expecting an error result; returns its text.
fn think_err(c: &mut Client, args: Value) -> String {
    let r = c.call("sequentialthinking", args.clone());
    assert_eq!(r["isError"], true, "{args} should fail: {r}");
    r["content"][0]["text"].as_str().unwrap().to_string()
}

fn thought(text: &str, n: i64, next: bool) -> Value {
    json!({"thought": text, "thoughtNumber": n, "totalThoughts": n.max(3), "nextThoughtNeeded": next})
}

fn with(mut v: Value, key: &str, value: Value) -> Value {
    v[key] = value;
    v
}

fn code_thought(path: &str, code: &str) -> String {
    let lang = if path.ends_with(".py") {
        "python"
    } else {
        "rust"
    };
    format!("Here is the candidate:\n```{lang} {path}\n{code}```\n")
}

fn standard(v: &Value) -> Value {
    Value::Object(
        FIELDS
            .iter()
            .map(|k| (k.to_string(), v[*k].clone()))
            .collect(),
    )
}

fn comments(gan: &Value) -> Vec<String> {
    gan["review"]["inline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}:{} {}",
                c["path"].as_str().unwrap(),
                c["line"],
                c["comment"].as_str().unwrap()
            )
        })
        .collect()
}

fn scores(gan: &Value) -> Vec<(String, u64)> {
    gan["dimensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_string(),
                d["score"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn notes(gan: &Value) -> Vec<String> {
    gan["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn answers_the_reference_script_like_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let script: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(fixture_file("seqthink-script/script.json")).unwrap(),
    )
    .unwrap();
    let expected: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(fixture_file("seqthink-script/expected.json")).unwrap(),
    )
    .unwrap();
    assert_eq!((script.len(), expected.len()), (20, 20));
    let mut c = start(&root, &dir.path().join("t.db"), &[]);

    let tools = c.request("tools/list", json!({}));
    let tool = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "sequentialthinking")
        .expect("sequentialthinking is listed")
        .clone();
    // Honest annotations: it records every thought.
    assert_eq!(tool["annotations"]["readOnlyHint"], false);
    assert_eq!(tool["annotations"]["idempotentHint"], false);
    assert_eq!(tool["annotations"]["destructiveHint"], false);
    let mut required: Vec<&str> = tool["inputSchema"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    required.sort();
    assert_eq!(
        required,
        vec![
            "nextThoughtNeeded",
            "thought",
            "thoughtNumber",
            "totalThoughts"
        ]
    );

    let mut session = None;
    for (i, (args, want)) in script.iter().zip(&expected).enumerate() {
        let got = think(&mut c, args.clone());
        assert_eq!(&standard(&got), want, "thought {}", i + 1);
        assert!(got.get("gan").is_none(), "no code, no audit: {got}");
        let s = got["sessionId"].as_str().unwrap().to_string();
        assert_eq!(
            session.get_or_insert(s.clone()),
            &s,
            "one session throughout"
        );
        // An invalid call between thoughts is recorded nowhere (the next length is +1).
        let r = c.call("sequentialthinking", json!({}));
        assert_eq!(r["isError"], true);
    }
    // A plain thought 1 starts a new session.
    let fresh = think(&mut c, thought("a new problem", 1, true));
    assert_eq!(fresh["thoughtHistoryLength"], 1);
    assert_eq!(fresh["branches"], json!([]));
    assert_ne!(fresh["sessionId"].as_str(), session.as_deref());
    // loopId continues a named session.
    let back = think(
        &mut c,
        with(
            thought("back to the first problem", 21, false),
            "loopId",
            json!(session),
        ),
    );
    assert_eq!(back["thoughtHistoryLength"], 21);
    assert_eq!(
        back["branches"],
        json!(["alt-a", "alt-b", "Alt-A", "alt-c"])
    );
}

#[test]
fn text_content_is_the_references_pretty_json() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = start(dir.path(), &dir.path().join("t.db"), &[]);
    let r = c.call(
        "sequentialthinking",
        json!({"thought": "a", "thoughtNumber": 2, "totalThoughts": 1, "nextThoughtNeeded": false,
               "branchFromThought": 1, "branchId": "b"}),
    );
    let text = r["content"][0]["text"].as_str().unwrap();
    let reference = "{\n  \"thoughtNumber\": 2,\n  \"totalThoughts\": 2,\n  \"nextThoughtNeeded\": false,\n  \"branches\": [\n    \"b\"\n  ],\n  \"thoughtHistoryLength\": 1,\n";
    assert!(text.starts_with(reference), "{text}");
}

#[test]
fn bad_arguments_are_invalid_argument_errors_and_record_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = start(dir.path(), &dir.path().join("t.db"), &[]);
    let first = think(&mut c, thought("one", 1, true));
    for (args, start) in [
        (with(thought("x", 2, true), "thoughtNumber", json!(0)), "invalid_argument: thoughtNumber must be an integer of at least 1, got 0"),
        (with(thought("x", 2, true), "nextThoughtNeeded", json!("maybe")), "invalid_argument: nextThoughtNeeded must be a boolean or \"true\"/\"false\", got \"maybe\""),
        (json!({"thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": true}), "invalid_argument: thought is required"),
        (with(thought("x", 2, true), "revisesThought", json!("two")), "invalid_argument: revisesThought must be an integer of at least 1, got \"two\""),
    ] {
        let e = think_err(&mut c, args);
        assert!(e.starts_with(start), "{e}");
    }
    let second = think(&mut c, thought("two", 2, true));
    assert_eq!(second["thoughtHistoryLength"], 2);
    assert_eq!(second["sessionId"], first["sessionId"]);
}

/// One fixture's review as its README states it: file, overall, verdict, dimension scores, inline comments,
/// citations.
type Expected = (
    &'static str,
    u64,
    &'static str,
    [u64; 5],
    Vec<&'static str>,
    Vec<&'static str>,
);

/// The reviews of fixtures/audit-candidates/README.md.
fn fixture_expectations() -> Vec<Expected> {
    vec![
        (
            "parse_error.rs",
            70,
            "reject",
            [0, 100, 100, 100, 100],
            vec!["parse_error.rs:4 blocker correctness: syntax error: cannot parse `pub fn total(prices: &[u32] ->`"],
            vec!["repo://parse_error.rs:4-4"],
        ),
        (
            "todo_stub.rs",
            84,
            "revise",
            [100, 20, 100, 100, 100],
            vec!["todo_stub.rs:6 major completeness: `todo!()` left in: this path panics when reached"],
            vec!["repo://todo_stub.rs:6-6"],
        ),
        (
            "unwrap_input.rs",
            84,
            "revise",
            [100, 100, 100, 20, 100],
            vec!["unwrap_input.rs:5 major safety: `.unwrap()` outside tests panics on None/Err: return or map the error instead"],
            vec!["repo://unwrap_input.rs:5-5"],
        ),
        (
            "long_function.py",
            84,
            "revise",
            [100, 100, 20, 100, 100],
            vec!["long_function.py:4 major maintainability: `build_report` is 200 lines long (over 100): split it"],
            vec!["repo://long_function.py:4-203"],
        ),
        ("clean.rs", 100, "pass", [100, 100, 100, 100, 100], vec![], vec![]),
    ]
}

fn assert_review(
    gan: &Value,
    file: &str,
    overall: u64,
    verdict: &str,
    dims: [u64; 5],
    inline: &[&str],
    cites: &[&str],
) {
    assert_eq!(gan["overall"], overall, "{file}: {gan}");
    assert_eq!(gan["verdict"], verdict, "{file}");
    let names = [
        "correctness",
        "completeness",
        "maintainability",
        "safety",
        "tests",
    ];
    let want: Vec<(String, u64)> = names.iter().map(|n| n.to_string()).zip(dims).collect();
    assert_eq!(scores(gan), want, "{file}");
    assert_eq!(comments(gan), inline, "{file}");
    assert_eq!(gan["review"]["citations"], json!(cites), "{file}");
    assert_eq!(gan["judge_cards"][0]["model"], "internal");
    assert_eq!(gan["judge_cards"][0]["score"], overall);
    assert_eq!(gan["proposed_diff"], Value::Null);
    assert_eq!(gan["iterations"], 1, "{file}: a new session per branchId");
}

#[test]
fn fixture_candidates_get_the_readme_reviews_every_time() {
    let (_d, root) = common::fixture_copy("audit-candidates");
    let db = root.parent().unwrap().join("t.db");
    let mut c = start(&root, &db, &[]);
    for run in 0..2 {
        for (file, overall, verdict, dims, inline, cites) in fixture_expectations() {
            let code = std::fs::read_to_string(root.join(file)).unwrap();
            let args = with(
                thought(&code_thought(file, &code), 1, false),
                "branchId",
                json!(format!("{file}-block-{run}")),
            );
            let r = think(&mut c, args);
            assert_eq!(r["sessionId"], format!("{file}-block-{run}"));
            let gan = &r["gan"];
            assert_review(gan, file, overall, verdict, dims, &inline, &cites);
            // revise/reject send the caller back; pass leaves the flag as sent.
            assert_eq!(r["nextThoughtNeeded"], verdict != "pass", "{file}");
            let n = notes(gan);
            assert_eq!(
                n[0],
                "the workspace is not a git repository: no diff context; using the workspace context instead"
            );
            assert!(n[1].starts_with("context pack: scope workspace, "), "{n:?}");

            // The same file named by a gan-config paths scope: the same review.
            let cfg = format!(
                "Audit it in place:\n```gan-config\n{{\"scope\": \"paths\", \"paths\": [\"{file}\"]}}\n```\n"
            );
            let r = think(
                &mut c,
                with(
                    thought(&cfg, 1, false),
                    "branchId",
                    json!(format!("{file}-paths-{run}")),
                ),
            );
            assert_review(&r["gan"], file, overall, verdict, dims, &inline, &cites);
            assert!(notes(&r["gan"])[0].starts_with("context pack: scope paths, "));
        }
    }
}

#[test]
fn a_session_survives_a_restart() {
    let (_d, root) = common::fixture_copy("audit-candidates");
    let db = root.parent().unwrap().join("t.db");
    let bad = std::fs::read_to_string(root.join("unwrap_input.rs")).unwrap();
    let fixed = bad.replace(
        "pub fn parse_port(input: &str) -> u16 {\n    input.trim().parse().unwrap()\n}",
        "pub fn parse_port(input: &str) -> Result<u16, std::num::ParseIntError> {\n    input.trim().parse()\n}",
    );
    let fixed = fixed.replace(
        "super::parse_port(\" 8080 \"), 8080",
        "super::parse_port(\" 8080 \"), Ok(8080)",
    );
    assert_ne!(bad, fixed);

    let session = {
        let mut c = start(&root, &db, &[]);
        let one = think(&mut c, thought("Plan: make parse_port safe.", 1, true));
        let two = think(
            &mut c,
            thought(&code_thought("unwrap_input.rs", &bad), 2, false),
        );
        assert_eq!(
            two["sessionId"], one["sessionId"],
            "the audit runs in the thinking session"
        );
        assert_eq!(two["thoughtHistoryLength"], 2);
        assert_eq!(two["gan"]["iterations"], 1);
        assert_eq!(two["gan"]["verdict"], "revise");
        assert_eq!(
            two["nextThoughtNeeded"], true,
            "revise forces another thought"
        );
        two["sessionId"].as_str().unwrap().to_string()
    }; // the server is killed here

    let mut c = start(&root, &db, &[]);
    let three = think(
        &mut c,
        thought(&code_thought("unwrap_input.rs", &fixed), 3, false),
    );
    assert_eq!(three["sessionId"], session.as_str());
    assert_eq!(three["thoughtHistoryLength"], 3);
    assert_eq!(three["gan"]["iterations"], 2);
    assert_eq!(three["gan"]["progression"], json!([84, 100]));
    assert_eq!(three["gan"]["verdict"], "pass");
    assert_eq!(three["nextThoughtNeeded"], false);
    drop(c);

    let conn = common::open_memory_db(&db);
    assert_eq!(
        common::strings(
            &conn,
            "SELECT verdict FROM audit_history ORDER BY iteration"
        ),
        vec!["revise", "pass"]
    );
    assert_eq!(
        common::int(&conn, "SELECT iterations FROM audit_sessions"),
        2
    );
    assert_eq!(
        common::int(
            &conn,
            "SELECT COUNT(*) FROM thoughts WHERE audit_iteration IS NOT NULL"
        ),
        2
    );
}

#[test]
fn a_corrupt_session_row_starts_a_new_session() {
    let (_d, root) = common::fixture_copy("audit-candidates");
    let db = root.parent().unwrap().join("t.db");
    let code = std::fs::read_to_string(root.join("todo_stub.rs")).unwrap();
    {
        let mut c = start(&root, &db, &[]);
        let r = think(
            &mut c,
            with(
                thought(&code_thought("todo_stub.rs", &code), 1, true),
                "branchId",
                json!("refunds"),
            ),
        );
        assert_eq!(r["gan"]["iterations"], 1);
    }
    {
        let conn = rusqlite::Connection::open(constellation::memory::db_path(&db)).unwrap();
        conn.execute(
            "UPDATE audit_sessions SET config = '{not json' WHERE id = 'refunds'",
            [],
        )
        .unwrap();
    }
    let mut c = start(&root, &db, &[]);
    let r = think(
        &mut c,
        with(
            thought(&code_thought("todo_stub.rs", &code), 2, true),
            "branchId",
            json!("refunds"),
        ),
    );
    assert_eq!(r["sessionId"], "refunds");
    assert_eq!(r["gan"]["iterations"], 1, "a new session");
    assert_eq!(r["gan"]["progression"], json!([84]));
    let n = notes(&r["gan"]);
    assert!(
        n[0].starts_with("the stored audit session \"refunds\" could not be read; it was kept as \"refunds#corrupt-"),
        "{n:?}"
    );
    assert!(r["gan"]["review"]["summary"]
        .as_str()
        .unwrap()
        .contains("could not be read"));
    drop(c);
    let conn = common::open_memory_db(&db);
    let ids = common::strings(&conn, "SELECT id FROM audit_sessions ORDER BY id");
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0], "refunds");
    assert!(ids[1].starts_with("refunds#corrupt-"));
    // The old review stayed with the renamed row.
    assert_eq!(
        common::int(
            &conn,
            &format!(
                "SELECT COUNT(*) FROM audit_history WHERE session_id = '{}'",
                ids[1]
            )
        ),
        1
    );
}

#[test]
fn stagnation_and_max_cycles_stop_the_loop() {
    let (_d, root) = common::fixture_copy("audit-candidates");
    let db = root.parent().unwrap().join("t.db");
    let mut c = start(&root, &db, &[]);
    let code = std::fs::read_to_string(root.join("unwrap_input.rs")).unwrap();
    let cfg = "```gan-config\n{\"maxCycles\": 2, \"threshold\": 120}\n```\n";
    let first = think(
        &mut c,
        with(
            thought(
                &format!("{cfg}{}", code_thought("unwrap_input.rs", &code)),
                1,
                false,
            ),
            "branchId",
            json!("loop"),
        ),
    );
    assert_eq!(first["nextThoughtNeeded"], true);
    assert!(notes(&first["gan"])
        .contains(&"gan-config threshold 120 clamped to 100 (0-100)".to_string()));
    // The same code again, one comment added: near-identical.
    let again = code.replace("/// The port", "/// Still the port");
    let second = think(
        &mut c,
        with(
            thought(&code_thought("unwrap_input.rs", &again), 2, false),
            "branchId",
            json!("loop"),
        ),
    );
    assert_eq!(second["gan"]["verdict"], "revise");
    assert_eq!(
        second["nextThoughtNeeded"], false,
        "stagnation stops the loop"
    );
    let n = notes(&second["gan"]);
    assert!(
        n.iter()
            .any(|x| x.starts_with("stagnation: this candidate is 9")
                && x.ends_with("iterating stops here")),
        "{n:?}"
    );
    // A different but still failing candidate: the loop goes on (cycle 2 of 2)...
    let other = std::fs::read_to_string(root.join("todo_stub.rs")).unwrap();
    let third = think(
        &mut c,
        with(
            thought(&code_thought("todo_stub.rs", &other), 3, false),
            "branchId",
            json!("loop"),
        ),
    );
    assert_eq!(third["gan"]["iterations"], 3);
    assert_eq!(
        third["nextThoughtNeeded"], false,
        "iteration 3 > maxCycles 2"
    );
    assert!(notes(&third["gan"]).contains(
        &"maxCycles 2 reached: this review no longer forces another thought".to_string()
    ));
    assert_eq!(third["gan"]["progression"], json!([84, 84, 84]));
}

/// Writes an executable shell script.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[test]
fn codex_judge_with_stand_in_executables() {
    let (d, root) = common::fixture_copy("audit-candidates");
    let db = d.path().join("t.db");
    let bins = d.path().join("bins");
    std::fs::create_dir(&bins).unwrap();
    let args_file = bins.join("args.txt");
    let stdin_file = bins.join("stdin.txt");
    let review = r#"Reviewing...
```json
{"overall": 72, "dimensions": [{"name": "correctness", "score": 70}, {"name": "style", "score": 60}], "verdict": "pass",
 "review": {"summary": "handle the parse error", "inline": [{"path": "unwrap_input.rs", "line": 5, "comment": "return the error"}], "citations": ["repo://unwrap_input.rs:4-6"]},
 "proposed_diff": "--- a/unwrap_input.rs\n+++ b/unwrap_input.rs\n"}
```"#;
    let fixed = script(
        &bins,
        "codex-fixed",
        &format!(
            "printf '%s\\n' \"$@\" > '{}'\ncat > '{}'\ncat <<'EOF'\n{review}\nEOF",
            args_file.display(),
            stdin_file.display()
        ),
    );
    let slow = script(&bins, "codex-slow", "exec sleep 30");
    let malformed = script(
        &bins,
        "codex-malformed",
        "cat > /dev/null\necho 'Looks fine to me {overall: great'",
    );
    let failing = script(
        &bins,
        "codex-failing",
        "cat > /dev/null\necho 'not logged in' >&2\nexit 3",
    );
    let code = std::fs::read_to_string(root.join("unwrap_input.rs")).unwrap();
    let clean = std::fs::read_to_string(root.join("clean.rs")).unwrap();
    let judges = |list: &str, file: &str, text: &str| {
        format!(
            "```gan-config\n{{\"judges\": {list}}}\n```\n{}",
            code_thought(file, text)
        )
    };

    // 1. A fixed review: its score, comments and diff; the verdict is recomputed.
    {
        let mut c = start(
            &root,
            &db,
            &[("CONSTELLATION_CODEX_BIN", fixed.to_str().unwrap())],
        );
        let r = think(
            &mut c,
            with(
                thought(&judges("[\"codex\"]", "unwrap_input.rs", &code), 1, false),
                "branchId",
                json!("codex-1"),
            ),
        );
        let gan = &r["gan"];
        assert_eq!(gan["overall"], 72);
        assert_eq!(gan["verdict"], "revise", "72 < 85, whatever codex said");
        assert_eq!(
            gan["judge_cards"],
            json!([{"model": "codex", "score": 72, "notes": "codex: handle the parse error"}])
        );
        assert_eq!(
            comments(gan),
            vec!["unwrap_input.rs:5 codex: return the error"]
        );
        assert_eq!(
            gan["review"]["citations"],
            json!(["repo://unwrap_input.rs:4-6"])
        );
        assert_eq!(
            gan["proposed_diff"],
            "--- a/unwrap_input.rs\n+++ b/unwrap_input.rs\n"
        );
        assert_eq!(r["nextThoughtNeeded"], true);
        let args: Vec<String> = std::fs::read_to_string(&args_file)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(
            &args[..5],
            [
                "exec",
                "--sandbox",
                "read-only",
                "--skip-git-repo-check",
                "-C"
            ]
        );
        assert_eq!(
            Path::new(&args[5]).canonicalize().unwrap(),
            root.canonicalize().unwrap()
        );
        assert!(
            args[6].starts_with("You are a strict code reviewer."),
            "{args:?}"
        );
        let stdin = std::fs::read_to_string(&stdin_file).unwrap();
        assert!(
            stdin.contains("# Candidate\n") && stdin.contains("input.trim().parse().unwrap()"),
            "{stdin}"
        );
        assert!(
            stdin.contains("# Repository context\n## tree (depth 3)"),
            "{stdin}"
        );

        // Two judges: one card each, the combined score is their mean.
        let r = think(
            &mut c,
            with(
                thought(
                    &judges("[\"internal\", \"codex\"]", "clean.rs", &clean),
                    1,
                    false,
                ),
                "branchId",
                json!("codex-2"),
            ),
        );
        let gan = &r["gan"];
        assert_eq!(gan["judge_cards"][0]["model"], "internal");
        assert_eq!(gan["judge_cards"][0]["score"], 100);
        assert_eq!(gan["judge_cards"][1]["score"], 72);
        assert_eq!(gan["overall"], 86);
        assert_eq!(gan["verdict"], "pass");
        // correctness: (100 + 70) / 2; codex's extra dimension is kept.
        assert_eq!(scores(gan)[0], ("correctness".to_string(), 85));
        assert_eq!(scores(gan)[5], ("style".to_string(), 60));
    }

    // 2. Past the timeout: killed, judge_timeout; the other judge still answers.
    {
        let mut c = start(
            &root,
            &db,
            &[
                ("CONSTELLATION_CODEX_BIN", slow.to_str().unwrap()),
                ("CONSTELLATION_CODEX_TIMEOUT_SECS", "0.5"),
            ],
        );
        let started = std::time::Instant::now();
        let e = think_err(
            &mut c,
            with(
                thought(&judges("[\"codex\"]", "clean.rs", &clean), 1, false),
                "branchId",
                json!("codex-3"),
            ),
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        assert!(
            e.starts_with("judge_timeout: codex exec did not answer within 0.5 s"),
            "{e}"
        );
        let r = think(
            &mut c,
            with(
                thought(
                    &judges("[\"internal\", \"codex\"]", "clean.rs", &clean),
                    1,
                    false,
                ),
                "branchId",
                json!("codex-3"),
            ),
        );
        let gan = &r["gan"];
        assert_eq!(gan["overall"], 100);
        assert_eq!(gan["judge_cards"][1]["model"], "codex");
        assert_eq!(gan["judge_cards"][1]["score"], Value::Null);
        assert!(gan["judge_cards"][1]["notes"]
            .as_str()
            .unwrap()
            .starts_with("judge_timeout: "));
        // The failed call recorded nothing: this is the session's first thought.
        assert_eq!(r["thoughtHistoryLength"], 1);
        assert_eq!(gan["iterations"], 1);
    }

    // 3. Malformed JSON, and 4. a failing exit status.
    for (bin, code_start) in [
        (&malformed, "judge_invalid_output: no JSON review"),
        (
            &failing,
            "judge_failed: codex exec exited with exit status: 3: not logged in",
        ),
    ] {
        let mut c = start(
            &root,
            &db,
            &[("CONSTELLATION_CODEX_BIN", bin.to_str().unwrap())],
        );
        let e = think_err(
            &mut c,
            with(
                thought(&judges("[\"codex\"]", "clean.rs", &clean), 1, false),
                "branchId",
                json!("codex-4"),
            ),
        );
        assert!(e.starts_with(code_start), "{e}");
    }

    // 5. No binary: judge_unavailable with install instructions.
    let mut c = start(
        &root,
        &db,
        &[("CONSTELLATION_CODEX_BIN", "/nonexistent/codex")],
    );
    let e = think_err(
        &mut c,
        with(
            thought(&judges("[\"codex\"]", "clean.rs", &clean), 1, false),
            "branchId",
            json!("codex-5"),
        ),
    );
    assert!(e.starts_with("judge_unavailable: CONSTELLATION_CODEX_BIN=/nonexistent/codex is not a file; install the Codex CLI (`npm install -g @openai/codex`"), "{e}");
    let r = think(
        &mut c,
        with(
            thought(
                &judges("[\"internal\", \"codex\"]", "clean.rs", &clean),
                1,
                false,
            ),
            "branchId",
            json!("codex-5"),
        ),
    );
    assert_eq!(r["gan"]["overall"], 100);
    assert!(r["gan"]["judge_cards"][1]["notes"]
        .as_str()
        .unwrap()
        .starts_with("judge_unavailable: "));
}

#[test]
fn diff_scope_judges_the_working_tree_changes() {
    let (_d, root) = common::fixture_copy("audit-candidates");
    common::git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join(".gitignore"), ".constellation/\n").unwrap();
    common::git(&root, &["add", "-A"]);
    common::git(&root, &["commit", "-q", "-m", "fixtures"]);
    // Change clean.rs: a new function with an unwrap, at lines 11-13, no test for it.
    let clean = std::fs::read_to_string(root.join("clean.rs")).unwrap();
    let changed = clean.replace(
        "\n#[cfg(test)]",
        "\n/// The first value.\npub fn first(xs: &[f64]) -> f64 {\n    *xs.first().unwrap()\n}\n\n#[cfg(test)]",
    );
    std::fs::write(root.join("clean.rs"), &changed).unwrap();
    std::fs::write(root.join("notes.py"), "def later():\n    pass  # TODO\n").unwrap();
    let db = root.parent().unwrap().join("t.db");
    let mut c = start(&root, &db, &[]);
    let r = think(
        &mut c,
        with(thought("Audit my changes.\n```gan-config\n{\"scope\": \"diff\", \"task\": \"add first()\"}\n```", 1, false), "branchId", json!("diff")),
    );
    let gan = &r["gan"];
    // The candidate is the working tree: clean.rs limited to its added lines (the
    // unwrap in `first`; the old tested code is not re-judged) and the untracked file.
    assert_eq!(
        comments(gan),
        vec![
            "clean.rs:12 major tests: the candidate adds or changes functions but touches no test",
            "clean.rs:13 major safety: `.unwrap()` outside tests panics on None/Err: return or map the error instead",
            "notes.py:1 major completeness: `later` has only `pass`/`...` for a body: a stub",
            "notes.py:2 minor completeness: `TODO` comment: unfinished work",
        ]
    );
    assert!(gan["review"]["summary"]
        .as_str()
        .unwrap()
        .contains("on workspace diff"));
    let n = notes(gan);
    assert!(n[0].starts_with("context pack: scope diff, "), "{n:?}");

    // Not a repository any more: the workspace context, with a note, and its central
    // files are judged.
    std::fs::remove_dir_all(root.join(".git")).unwrap();
    let r = think(
        &mut c,
        with(
            thought(
                "Again.\n```gan-config\n{\"scope\": \"diff\"}\n```",
                2,
                false,
            ),
            "branchId",
            json!("diff-2"),
        ),
    );
    assert_eq!(
        notes(&r["gan"])[0],
        "the workspace is not a git repository: no diff context; using the workspace context instead"
    );
    assert!(r["gan"]["review"]["summary"]
        .as_str()
        .unwrap()
        .contains("on central files"));
}

#[test]
fn a_clean_working_tree_has_nothing_to_audit() {
    let (_d, root) = common::fixture_copy("audit-candidates");
    common::git(&root, &["init", "-q", "-b", "main"]);
    common::git(&root, &["add", "-A"]);
    common::git(&root, &["commit", "-q", "-m", "fixtures"]);
    let db = root.parent().unwrap().join("t.db");
    let mut c = start(&root, &db, &[]);
    let r = think(
        &mut c,
        thought(
            "Audit my changes.\n```gan-config\n{\"scope\": \"diff\"}\n```",
            1,
            true,
        ),
    );
    assert!(r.get("gan").is_none(), "{r}");
    assert_eq!(
        r["auditSkipped"],
        "the thought has no code and scope diff names none"
    );
    assert_eq!(
        r["thoughtHistoryLength"], 1,
        "the thought is still recorded"
    );
    assert_eq!(r["nextThoughtNeeded"], true);
}

#[test]
fn paths_outside_the_workspace_are_never_read() {
    let (d, root) = common::fixture_copy("audit-candidates");
    std::fs::write(d.path().join("secret.rs"), "fn f() { todo!() }\n").unwrap();
    let db = d.path().join("t.db");
    let mut c = start(&root, &db, &[]);
    let r = think(
        &mut c,
        with(
            thought("```gan-config\n{\"scope\": \"paths\", \"paths\": [\"../secret.rs\", \"missing.rs\"], \"candidates\": 9}\n```", 1, false),
            "branchId",
            json!("p"),
        ),
    );
    let gan = &r["gan"];
    let n = notes(gan);
    assert_eq!(n[0], "gan-config candidates 9 clamped to 5 (1-5)");
    assert!(
        n[1].starts_with("path \"../secret.rs\" skipped: outside_workspace"),
        "{n:?}"
    );
    assert!(
        n[2].starts_with("path \"missing.rs\" skipped: not_found"),
        "{n:?}"
    );
    assert_eq!(
        n[3],
        "scope paths without a usable path: using the workspace context instead"
    );
    // The central files were judged instead; nothing from ../secret.rs.
    assert!(comments(gan).iter().all(|c| !c.contains("secret")), "{gan}");
    assert!(gan["review"]["citations"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| !c.as_str().unwrap().contains("secret")));
    assert!(gan["review"]["summary"]
        .as_str()
        .unwrap()
        .contains("on central files"));
}
