//! Many processes on one workspace at once: servers started together on a workspace
//! with no database yet, index runs that add the same new files, `--full` runs side by
//! side. Every process must succeed and the final index must equal a clean build
//! (compared through `export --format json`, which is byte-identical for identical
//! trees). The larger rounds (32 servers, 20 rounds, on npm's source) are in
//! `bench/reliability.py`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

/// The export of a clean build of `root` into a fresh database.
fn clean_export(root: &Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("clean.db");
    common::run_ok(&[
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "-q",
    ]);
    common::export_json(root, &db)
}

/// `count` processes of `constellation ARGS`, started together; their exit codes and
/// stderr.
fn run_together(count: usize, args: &[&str]) -> Vec<(Option<i32>, String)> {
    let children: Vec<Child> = (0..count)
        .map(|_| {
            Command::new(common::bin())
                .args(args)
                .env_remove("CONSTELLATION_DB")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
        .collect()
}

#[test]
fn servers_started_together_on_a_new_workspace_all_answer() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.join(".constellation/index.db");
    let mut servers: Vec<Child> = (0..8)
        .map(|_| {
            Command::new(common::bin())
                .args(["-v", "serve", root.to_str().unwrap()])
                .env_remove("CONSTELLATION_DB")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut answers = Vec::new();
    for server in &mut servers {
        let mut stdin = server.stdin.take().unwrap();
        let mut stdout = BufReader::new(server.stdout.take().unwrap());
        let mut send = |v: Value| {
            writeln!(stdin, "{v}").unwrap();
            stdin.flush().unwrap();
        };
        send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        );
        send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "query_index", "arguments": {"sql": "SELECT count(*) FROM files"}}}),
        );
        let mut answer = Value::Null;
        let mut line = String::new();
        while stdout.read_line(&mut line).unwrap() > 0 {
            let v: Value = serde_json::from_str(&line).unwrap();
            line.clear();
            if v["id"] == 2 {
                answer = v;
                break;
            }
        }
        drop(stdin);
        answers.push(answer);
    }
    for (server, answer) in servers.into_iter().zip(&answers) {
        let out = server.wait_with_output().unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{log}");
        assert!(
            !log.contains("ERROR") && !log.contains("failed") && !log.contains("locked"),
            "{log}"
        );
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        assert_eq!(
            answer["result"]["structuredContent"]["rows"],
            json!([[12]]),
            "every server answers from the complete index: {answer}"
        );
    }
    assert_eq!(common::export_json(&root, &db), clean_export(&root));
}

#[test]
fn index_runs_side_by_side_all_succeed_and_agree_with_a_clean_build() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let root_arg = root.to_str().unwrap();
    // Four first runs at once: one builds, the others wait and find it current.
    for (code, log) in run_together(4, &["index", root_arg, "-q"]) {
        assert_eq!(code, Some(0), "{log}");
    }
    let db = root.join(".constellation/index.db");
    assert_eq!(common::export_json(&root, &db), clean_export(&root));
    // Four runs that each find the same new files.
    common::write_many_modules(&root, 30, "import shop.cart\n");
    for (code, log) in run_together(4, &["index", root_arg, "-q"]) {
        assert_eq!(code, Some(0), "{log}");
    }
    assert_eq!(common::export_json(&root, &db), clean_export(&root));
    // Four from-scratch rebuilds of the live database.
    for (code, log) in run_together(4, &["index", root_arg, "--full", "-q"]) {
        assert_eq!(code, Some(0), "{log}");
    }
    assert_eq!(common::export_json(&root, &db), clean_export(&root));
}
