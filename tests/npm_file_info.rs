//! Acceptance on real code (seed 004): `file_info` on npm's own `lib/npm.js` (a copy of
//! `$(npm root -g)/npm`, more than 20 functions) lists every function universal-ctags
//! lists for that file, and every caller it names is a call edge of the index.
//!
//! Skips (passing, with a note on stderr) when npm or universal-ctags is not installed.
//! `bench/file_info_ctags.py` runs the same comparison over every file of the corpus.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::mcp::{handshake, Client};
use serde_json::{json, Value};

/// The file checked: npm's `Npm` class, 43 methods and getters.
const FILE: &str = "lib/npm.js";

fn npm_root() -> Option<PathBuf> {
    let out = Command::new("npm").args(["root", "-g"]).output().ok()?;
    let root = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim()).join("npm");
    root.join(FILE).is_file().then_some(root)
}

fn has_universal_ctags() -> bool {
    Command::new("ctags")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("Universal Ctags"))
        .unwrap_or(false)
}

/// Copies `from` to `to` without `node_modules` (which the indexer skips anyway).
fn copy_source(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == "node_modules" {
            continue;
        }
        let ty = entry.file_type().unwrap();
        let target = to.join(entry.file_name());
        if ty.is_dir() {
            copy_source(&entry.path(), &target);
        } else if ty.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// (name, line) of the function-like tags universal-ctags finds in `root/FILE`.
fn ctags_functions(root: &Path) -> BTreeSet<(String, i64)> {
    let out = Command::new("ctags")
        .args(["--output-format=json", "--fields=+nKz", "-f", "-", FILE])
        .current_dir(root)
        .output()
        .expect("run ctags");
    assert!(out.status.success(), "ctags failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|t| t["_type"] == "tag")
        .filter(|t| {
            matches!(
                t["kind"].as_str(),
                Some("function" | "method" | "generator" | "getter" | "setter")
            )
        })
        .filter(|t| {
            !t["name"]
                .as_str()
                .unwrap_or("")
                .starts_with("AnonymousFunction")
        })
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["line"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn file_info_on_npm_lists_every_ctags_function_and_true_callers() {
    let Some(npm) = npm_root() else {
        eprintln!("SKIPPED: npm is not installed (no $(npm root -g)/npm/{FILE})");
        return;
    };
    if !has_universal_ctags() {
        eprintln!("SKIPPED: universal-ctags is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("npm");
    copy_source(&npm, &root);
    let db = dir.path().join("npm.db");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let r = c.call("file_info", json!({"path": FILE}));
    assert_ne!(r["isError"], json!(true), "{r}");
    let info = &r["structuredContent"];
    let functions = info["structure"]["functions"].as_array().unwrap();

    let tags = ctags_functions(&root);
    assert!(
        tags.len() > 20,
        "{FILE} should have more than 20 functions, ctags found {}",
        tags.len()
    );
    let listed: BTreeSet<(String, i64)> = functions
        .iter()
        .map(|f| {
            (
                // ctags names private members without their `#`.
                f["name"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches('#')
                    .to_string(),
                f["startLine"].as_i64().unwrap(),
            )
        })
        .collect();
    let missing: Vec<_> = tags.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "file_info misses ctags functions: {missing:?}"
    );
    let prompt = info["promptForHostLLM"].as_str().unwrap();
    for (name, _) in &tags {
        assert!(
            prompt.contains(&format!("`Npm::{name}`"))
                || prompt.contains(&format!("`Npm::#{name}`")),
            "prompt lacks {name}"
        );
    }

    // Every caller named is a call edge in the index, and no call edge is left out:
    // listed (at least 0.97 confident) or counted as below that.
    let conn = common::open_db(&db);
    let mut named = 0;
    let mut counted = 0;
    for f in functions {
        let total =
            f["callersTotal"].as_i64().unwrap() + f["callersBelowMinConfidence"].as_i64().unwrap();
        let in_index: i64 = conn
            .query_row(
                "SELECT count(*) FROM edges e JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
                 WHERE e.kind = 'calls' AND df.path = ?1 AND d.qualified_name = ?2 AND d.start_line = ?3",
                rusqlite::params![FILE, f["qualifiedName"].as_str().unwrap(), f["startLine"].as_i64().unwrap()],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(total, in_index, "callers of {}", f["qualifiedName"]);
        counted += total;
        for caller in f["callers"].as_array().unwrap() {
            let hits: i64 = conn
                .query_row(
                    "SELECT count(*) FROM edges e
                     JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
                     JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
                     WHERE e.kind = 'calls' AND df.path = ?1 AND d.qualified_name = ?2
                       AND s.qualified_name = ?3 AND sf.path = ?4 AND e.line = ?5",
                    rusqlite::params![
                        FILE,
                        f["qualifiedName"].as_str().unwrap(),
                        caller["caller"].as_str().unwrap(),
                        caller["path"].as_str().unwrap(),
                        caller["line"].as_i64().unwrap()
                    ],
                    |r| r.get(0),
                )
                .unwrap();
            assert!(
                hits >= 1,
                "caller {caller} of {} is not an edge of the index",
                f["qualifiedName"]
            );
            named += 1;
        }
    }
    assert!(counted > 0, "some function of {FILE} has callers");
    eprintln!(
        "{FILE}: {} ctags functions, {} listed by file_info, {named} callers verified, {counted} in all",
        tags.len(),
        functions.len()
    );
}
