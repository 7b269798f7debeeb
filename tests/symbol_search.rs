//! `search_symbols` and `get_symbol_source` on fixtures/search-app (its README states
//! the expected answers), through the CLI and over MCP stdio.

mod common;

use std::path::Path;

use serde_json::{json, Value};

fn cli(db: &Path, args: &[&str]) -> std::process::Output {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--db", db.to_str().unwrap()]);
    common::run(&all)
}

fn search(root: &Path, db: &Path, query: &str, extra: &[&str]) -> Value {
    let mut args = vec!["search", query, root.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = cli(db, &args);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "search {query:?}: {e}; stderr {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn source(root: &Path, db: &Path, symbol: &str, extra: &[&str]) -> Result<Value, String> {
    let mut args = vec!["source", symbol, root.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = cli(db, &args);
    if out.status.success() {
        Ok(serde_json::from_slice(&out.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn hits(answer: &Value) -> Vec<(String, String)> {
    answer["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["key"].as_str().unwrap().to_string(),
                h["match"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn exact_names_first_then_prefixes() {
    let (_d, root, db) = common::indexed_fixture("search-app");
    let a = search(&root, &db, "parse", &[]);
    assert_eq!(
        hits(&a),
        pairs(&[
            ("func:pkg/http.py::parse", "exact"),
            ("func:src/lib.rs::Tokenizer::parse", "exact"),
            ("func:pkg/http.py::HTTPServer::parse_request", "prefix"),
            ("func:pkg/http.py::HTTPServer::parseHTTPResponse", "prefix"),
            ("func:pkg/client.py::parse_http_response", "prefix"),
            ("func:pkg/http.py::parse_response_header", "prefix"),
        ])
    );
    assert_eq!(a["truncated"], false);
    let hit = &a["hits"][0];
    assert_eq!(hit["kind"], "function");
    assert_eq!(hit["qualified_name"], "parse");
    assert_eq!(hit["path"], "pkg/http.py");
    assert_eq!(
        (hit["start_line"].as_u64(), hit["end_line"].as_u64()),
        (Some(16), Some(17))
    );
    assert_eq!(hit["signature"], "def parse(text)");
    // Case does not matter for an exact name; an explicit prefix works too.
    assert_eq!(
        hits(&search(&root, &db, "PARSE", &[]))[0].0,
        "func:pkg/http.py::parse"
    );
    assert_eq!(hits(&search(&root, &db, "pars*", &[])).len(), 6);
    assert_eq!(
        hits(&search(&root, &db, "snake_c", &[])),
        pairs(&[("func:src/lib.rs::snake_case", "prefix")])
    );
}

#[test]
fn words_of_names_qualified_names_and_typos() {
    let (_d, root, db) = common::indexed_fixture("search-app");
    let a = search(&root, &db, "response parse", &[]);
    assert_eq!(
        hits(&a),
        pairs(&[
            ("func:pkg/http.py::HTTPServer::parseHTTPResponse", "fts"),
            ("func:pkg/client.py::parse_http_response", "fts"),
            ("func:pkg/http.py::parse_response_header", "fts"),
        ])
    );
    // Whole words before a prefix word, then fewer other parts, then the best copy of
    // a name before the other copies of it, popularity last (pkg/cache.py, pkg/store.py).
    let a = search(&root, &db, "entry cache", &[]);
    assert_eq!(
        hits(&a),
        pairs(&[
            ("func:pkg/cache.py::cache_entry", "fts"),
            ("func:pkg/cache.py::stale_cache_entry", "fts"),
            ("class:pkg/cache.py::CacheEntryBuilder", "fts"),
            ("func:pkg/store.py::stale_cache_entry", "fts"),
            ("func:pkg/cache.py::entry_cached", "fts"),
        ])
    );
    for q in [
        "HTTPServer::parse_request",
        "pkg.http.HTTPServer.parse_request",
        "http.HTTPServer.parse_request",
    ] {
        let a = search(&root, &db, q, &[]);
        assert_eq!(
            hits(&a)[0],
            (
                "func:pkg/http.py::HTTPServer::parse_request".to_string(),
                "exact".to_string()
            ),
            "{q}"
        );
    }
    let a = search(&root, &db, "parse_reqest", &[]);
    assert_eq!(a["fuzzy"], true);
    assert_eq!(a["did_you_mean"], json!(["parse_request"]));
    assert_eq!(
        hits(&a),
        pairs(&[("func:pkg/http.py::HTTPServer::parse_request", "fuzzy")])
    );
    // Two edits away still finds it; nothing close finds nothing.
    let a = search(&root, &db, "prase_requets", &[]);
    assert_eq!(
        hits(&a).len(),
        0,
        "three edits (two transpositions count one each): {a}"
    );
    let a = search(&root, &db, "parse_rekuest", &[]);
    assert_eq!(a["did_you_mean"], json!(["parse_request"]));
    let a = search(&root, &db, "zzzzzzzz", &[]);
    assert_eq!(a["hits"], json!([]));
}

#[test]
fn filters_by_kind_language_and_path() {
    let (_d, root, db) = common::indexed_fixture("search-app");
    let a = search(
        &root,
        &db,
        "parse",
        &["--kind", "method", "--language", "rust"],
    );
    assert_eq!(
        hits(&a),
        pairs(&[("func:src/lib.rs::Tokenizer::parse", "exact")])
    );
    let a = search(&root, &db, "parse", &["--path", "pkg/client.py"]);
    assert_eq!(
        hits(&a),
        pairs(&[("func:pkg/client.py::parse_http_response", "prefix")])
    );
    let a = search(
        &root,
        &db,
        "parse",
        &["--kind", "function", "--path", "pkg/**"],
    );
    assert_eq!(
        hits(&a),
        pairs(&[
            ("func:pkg/http.py::parse", "exact"),
            ("func:pkg/client.py::parse_http_response", "prefix"),
            ("func:pkg/http.py::parse_response_header", "prefix"),
        ])
    );
    for (flag, value, code) in [
        ("--kind", "widget", "invalid_filter"),
        ("--language", "cobol", "invalid_filter"),
        ("--path", "[", "invalid_filter"),
        ("--limit", "0", "invalid_argument"),
    ] {
        let out = cli(
            &db,
            &["search", "parse", root.to_str().unwrap(), flag, value],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(code),
            "{flag} {value}: {err}"
        );
    }
}

#[test]
fn answers_are_cut_to_limit_and_budget() {
    let (_d, root, db) = common::indexed_fixture("search-app");
    // The two exact names fill the answer; longer names are not looked up.
    let a = search(&root, &db, "parse", &["--limit", "2"]);
    assert_eq!(hits(&a).len(), 2);
    assert_eq!(a["truncated"], true);
    assert_eq!(
        (a["more"].as_u64(), a["more_may_exist"].as_bool()),
        (Some(0), Some(true))
    );
    let a = search(&root, &db, "parse", &["--limit", "3"]);
    assert_eq!(hits(&a).len(), 3);
    assert_eq!(
        (a["more"].as_u64(), a["more_may_exist"].as_bool()),
        (Some(3), Some(false))
    );
    assert!(a["note"].as_str().unwrap().contains("raise limit"), "{a}");
    let a = search(&root, &db, "parse", &["--budget-tokens", "400"]);
    let shown = hits(&a).len();
    assert!((1..6).contains(&shown), "{a}");
    assert_eq!(a["truncated"], true);
    assert_eq!(a["more"], 6 - shown);
    assert!(a["tokens"].as_u64().unwrap() <= 400);
    assert!(a["note"].as_str().unwrap().contains("budget_tokens"), "{a}");
    let out = cli(
        &db,
        &[
            "search",
            "parse",
            root.to_str().unwrap(),
            "--budget-tokens",
            "10",
        ],
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("budget_too_small"));
    // No hit and nothing close: the text answer says so (exit 1), not an empty screen.
    let out = cli(&db, &["search", "qqqqzzzz", root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "nothing matched \"qqqqzzzz\"\n"
    );
}

#[test]
fn the_search_table_follows_the_incremental_index() {
    let (_d, root, db) = common::indexed_fixture("search-app");
    let count = |sql: &str| common::int(&common::open_db(&db), sql);
    assert_eq!(
        count("SELECT count(*) FROM symbol_search"),
        count("SELECT count(*) FROM nodes")
    );
    // A one-file change: the new function is found, the old one is gone.
    let http = root.join("pkg/http.py");
    let text = std::fs::read_to_string(&http).unwrap();
    std::fs::write(
        &http,
        text.replace(
            "def parse_response_header(line)",
            "def read_chunked_body(line)",
        ),
    )
    .unwrap();
    let a = search(&root, &db, "chunked body", &[]);
    assert_eq!(
        hits(&a),
        pairs(&[("func:pkg/http.py::read_chunked_body", "fts")])
    );
    assert_eq!(
        hits(&search(&root, &db, "parse_response_header", &[])).len(),
        0
    );
    // A deleted file's symbols vanish.
    std::fs::remove_file(root.join("src/lib.rs")).unwrap();
    let a = search(&root, &db, "tokenizer", &[]);
    assert_eq!(a["hits"], json!([]), "{a}");
    assert_eq!(
        count("SELECT count(*) FROM symbol_search"),
        count("SELECT count(*) FROM nodes")
    );
    // A full rebuild gives the same rows.
    common::index_json(&root, &db, &["--full"]);
    assert_eq!(
        count("SELECT count(*) FROM symbol_search"),
        count("SELECT count(*) FROM nodes")
    );
    assert_eq!(
        hits(&search(&root, &db, "read_chunked_body", &[]))[0].1,
        "exact"
    );
}

#[test]
fn source_by_every_form_of_name() {
    let (_d, root, db) = common::indexed_fixture("search-app");
    let id = common::int(
        &common::open_db(&db),
        "SELECT id FROM nodes WHERE key = 'func:pkg/http.py::HTTPServer::parse_request'",
    )
    .to_string();
    for form in [
        id.as_str(),
        "func:pkg/http.py::HTTPServer::parse_request",
        "HTTPServer::parse_request",
        "pkg.http.HTTPServer.parse_request",
        "pkg/http.py::HTTPServer.parse_request",
        "http.py::HTTPServer::parse_request",
        "parse_request",
        "pkg/http.py:9",
    ] {
        let a = source(&root, &db, form, &[]).unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(
            a["key"], "func:pkg/http.py::HTTPServer::parse_request",
            "{form}"
        );
        assert_eq!(
            a["source"], "8 |     def parse_request(self, raw):\n9 |         return raw\n",
            "{form}"
        );
        assert_eq!(
            (a["shown_start"].as_u64(), a["shown_end"].as_u64()),
            (Some(8), Some(9))
        );
        assert_eq!(a["file_changed"], false);
        assert_eq!(a["truncated"], false);
    }
    let a = source(&root, &db, "crate::Tokenizer::parse", &[]).unwrap();
    assert_eq!(a["key"], "func:src/lib.rs::Tokenizer::parse");
    // Docstrings: a Python string, a Rust doc comment.
    let a = source(&root, &db, "HTTPServer.parseHTTPResponse", &[]).unwrap();
    assert_eq!(a["docstring"], "Parse one HTTP response.");
    let a = source(&root, &db, "snake_case", &[]).unwrap();
    assert_eq!(a["docstring"], "Splits a snake_case name.");
    // A line between symbols is the innermost symbol holding it: the class.
    let a = source(&root, &db, "pkg/http.py:7", &[]).unwrap();
    assert_eq!(a["key"], "class:pkg/http.py::HTTPServer");
}

#[test]
fn source_errors_name_the_candidates() {
    let (_d, root, db) = common::indexed_fixture("search-app");
    let e = source(&root, &db, "parse", &[]).unwrap_err();
    assert!(
        e.contains("invalid_argument") && e.contains("names 2 symbols"),
        "{e}"
    );
    assert!(
        e.contains("func:pkg/http.py::parse") && e.contains("func:src/lib.rs::Tokenizer::parse"),
        "{e}"
    );
    let e = source(&root, &db, "parse_reqest", &[]).unwrap_err();
    assert!(
        e.contains("not_found")
            && e.contains("did you mean func:pkg/http.py::HTTPServer::parse_request"),
        "{e}"
    );
    let e = source(&root, &db, "99999", &[]).unwrap_err();
    assert!(e.contains("not_found"), "{e}");
}

#[test]
fn source_says_when_the_file_changed_and_cuts_to_budget() {
    let (_d, root, db) = common::indexed_fixture("search-app");
    // Callers, trusted first, with their lines.
    let a = source(&root, &db, "pkg/http.py::parse", &["--include", "callers"]).unwrap();
    let callers: Vec<(String, String)> = a["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["location"].as_str().unwrap().into(),
                l["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        callers,
        [
            ("pkg/client.py:4".to_string(), "trusted".to_string()),
            ("pkg/client.py:10".to_string(), "trusted".to_string())
        ]
    );
    assert_eq!(a["callers_total"], 2);
    // Cut to the budget: the first lines, and how to read the rest.
    let a = source(&root, &db, "HTTPServer", &["--budget-tokens", "200"]).unwrap();
    assert_eq!(a["truncated"], true, "{a}");
    let end = a["shown_end"].as_u64().unwrap();
    assert!((1..9).contains(&end), "{a}");
    assert!(
        a["note"]
            .as_str()
            .unwrap()
            .contains(&format!("startLine {} endLine 9", end + 1)),
        "{a}"
    );
    // The file changed after indexing: said, not hidden.
    std::fs::write(root.join("pkg/http.py"), "\n\n\n\n\n\n\n\n\n\n").unwrap();
    let a = source(&root, &db, "HTTPServer::parse_request", &["--no-refresh"]).unwrap();
    assert_eq!(a["file_changed"], true);
    assert!(
        a["note"]
            .as_str()
            .unwrap()
            .contains("changed since it was indexed"),
        "{a}"
    );
    // Re-indexed, the symbol is gone.
    let e = source(&root, &db, "HTTPServer::parse_request", &[]).unwrap_err();
    assert!(e.contains("not_found"), "{e}");
}

#[test]
fn mcp_round_trip() {
    let (_d, root, db) = common::indexed_fixture("search-app");
    let mut c = common::mcp::Client::start(&root, &db);
    common::mcp::handshake(&mut c);
    let list = c.request("tools/list", json!({}));
    for name in ["search_symbols", "get_symbol_source"] {
        let tool = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed"));
        assert!(
            tool["outputSchema"]["properties"].is_object(),
            "{name}: {tool}"
        );
        assert_eq!(tool["annotations"]["readOnlyHint"], true);
    }
    let r = c.call(
        "search_symbols",
        json!({"query": "response parse", "limit": 2}),
    );
    assert_ne!(r["isError"], true, "{r}");
    let s = &r["structuredContent"];
    assert_eq!(
        s["hits"][0]["key"],
        "func:pkg/http.py::HTTPServer::parseHTTPResponse"
    );
    assert_eq!(s["hits"][0]["match"], "fts");
    assert_eq!(s["truncated"], true);
    assert_eq!(s["more"], 1);
    let r = c.call(
        "get_symbol_source",
        json!({"symbol": "pkg.http.parse", "include": ["callers", "callees"]}),
    );
    let s = &r["structuredContent"];
    assert_eq!(
        s["source"], "16 | def parse(text):\n17 |     return text\n",
        "{r}"
    );
    assert_eq!(s["callers"].as_array().unwrap().len(), 2);
    assert_eq!(s["callees"], json!([]));
    let r = c.call("get_symbol_source", json!({"symbol": "parse"}));
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("invalid_argument:"));
    let r = c.call(
        "search_symbols",
        json!({"query": "parse", "kind": "widget"}),
    );
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("invalid_filter:"));
}

/// Every row of the search table's vocabulary: (term, column, documents, occurrences).
fn vocabulary(db: &Path) -> Vec<(String, String, i64, i64)> {
    let conn = common::open_db(db);
    let mut stmt = conn
        .prepare("SELECT term, col, doc, cnt FROM symbol_search_terms ORDER BY term, col")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<rusqlite::Result<Vec<_>>>()
        .unwrap();
    rows
}

#[test]
fn many_files_changed_in_one_run_leave_the_search_table_of_a_fresh_build() {
    // One run clears the rows of several changed files and of a deleted one at once
    // (one statement, before the new rows): the table must end as a fresh build's.
    let (_d, root, db) = common::indexed_fixture("search-app");
    let before = vocabulary(&db);
    assert!(before.len() > 50, "{}", before.len());
    let edit = |rel: &str, from: &str, to: &str| {
        let path = root.join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{rel} has no {from:?}");
        std::fs::write(&path, text.replace(from, to)).unwrap();
    };
    edit(
        "pkg/http.py",
        "def parse_response_header(line)",
        "def read_chunked_body(line)",
    );
    // Symbols that keep their key: one whose signature changes (its row is replaced),
    // and, below a new first line, ones that only move (their rows stay as they are).
    edit(
        "pkg/http.py",
        "def parse_request(self, raw)",
        "def parse_request(self, raw, strict_mode=False)",
    );
    edit(
        "pkg/http.py",
        "class HTTPServer:",
        "import os\n\nclass HTTPServer:",
    );
    std::fs::write(
        root.join("pkg/cache.py"),
        "class TinyCache:\n    def get_entry(self, key):\n        return None\n",
    )
    .unwrap();
    std::fs::remove_file(root.join("src/lib.rs")).unwrap();
    std::fs::write(
        root.join("pkg/extra.py"),
        "def brand_new_helper():\n    pass\n",
    )
    .unwrap();
    let run = common::index_json(&root, &db, &[]);
    assert_eq!(
        (run["filesParsed"].as_u64(), run["filesRemoved"].as_u64()),
        (Some(3), Some(1)),
        "{run}"
    );
    let incremental = vocabulary(&db);
    assert_ne!(incremental, before);

    let fresh_db = root.parent().unwrap().join("fresh.db");
    common::index_json(&root, &fresh_db, &[]);
    assert_eq!(incremental, vocabulary(&fresh_db));
    assert_eq!(
        hits(&search(&root, &db, "brand_new_helper", &[]))[0].1,
        "exact"
    );
    assert_eq!(hits(&search(&root, &db, "tokenizer", &[])).len(), 0);
}

/// A build from nothing writes its search table on a thread of its own, in a file
/// beside the build, and copies it in after the commit (`store::search_build`). The
/// table must be the one the run's own transaction writes (`--full` on an existing
/// database rebuilds in place), pass FTS5's integrity check, answer searches alike,
/// and leave no file behind.
#[test]
fn a_build_from_nothing_copies_in_the_search_table_its_own_transaction_would_write() {
    let (dir, root, side_built) = common::indexed_fixture("search-app");
    let in_place = dir.path().join("in-place.db");
    common::index_json(&root, &in_place, &[]);
    let run = common::index_json(&root, &in_place, &["--full"]);
    assert!(run["filesParsed"].as_u64().unwrap() > 5, "{run}");

    let side = vocabulary(&side_built);
    assert!(side.len() > 50, "{}", side.len());
    assert_eq!(side, vocabulary(&in_place));
    let rows = |db: &Path| -> i64 {
        common::open_db(db)
            .query_row("SELECT count(*) FROM symbol_search_docsize", [], |r| {
                r.get(0)
            })
            .unwrap()
    };
    let nodes: i64 = common::open_db(&side_built)
        .query_row("SELECT count(*) FROM nodes", [], |r| r.get(0))
        .unwrap();
    assert_eq!((rows(&side_built), rows(&in_place)), (nodes, nodes));
    let conn = rusqlite::Connection::open(&side_built).unwrap();
    conn.execute(
        "INSERT INTO symbol_search (symbol_search, rank) VALUES ('integrity-check', 1)",
        [],
    )
    .unwrap();
    drop(conn);
    for query in ["parse_request", "http resp", "tokenzier", "cache"] {
        assert_eq!(
            hits(&search(&root, &side_built, query, &[])),
            hits(&search(&root, &in_place, query, &[])),
            "{query}"
        );
    }
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("partial") || name.ends_with("-search"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
