//! MCP over stdio against the real binary: JSON-RPC lines in, JSON-RPC lines out.

mod common;

use std::time::Duration;

use common::mcp::{handshake, Client};

use serde_json::{json, Value};

#[test]
fn initialize_list_and_call() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    let started = std::time::Instant::now();
    let init = handshake(&mut c);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "handshake waited"
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "constellation");
    assert!(init["result"]["capabilities"]["tools"].is_object());

    let list = c.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        vec![
            "constellation_get_graph_summary",
            "diff_impact",
            "expand",
            "file_info",
            "folder_info",
            "get_all_tasks",
            "get_community",
            "get_impact",
            "get_node_details",
            "get_paths",
            "get_recent_works_info",
            "get_status",
            "get_symbol_source",
            "get_work_by_id",
            "inspect_source",
            "list_top_nodes",
            "mark_task_as_done",
            "open_window",
            "query_index",
            "report_file_info",
            "report_folder_info",
            "save_current_work_info",
            "search_symbols",
            "sequentialthinking",
            "set_workspace_root",
            "summarize_graph",
            "update_tasks",
        ]
    );
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{}", t["name"]);
        assert!(t["description"].as_str().unwrap().len() > 40);
    }
    let summary_tool = tools
        .iter()
        .find(|t| t["name"] == "constellation_get_graph_summary")
        .unwrap();
    let schema = &summary_tool["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["forceRefresh"]["type"], "boolean");
    assert!(schema["properties"]["workspaceRoot"].is_object());
    assert!(summary_tool["outputSchema"].is_object());

    let r = c.call("constellation_get_graph_summary", json!({}));
    assert_ne!(r["isError"], json!(true), "{r}");
    let s = &r["structuredContent"];
    assert!(s["metrics"]["fileCount"].as_u64().unwrap() > 5);
    assert!(s["summary"].as_str().unwrap().starts_with("Analyzed"));
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, s, "text and structuredContent carry the same JSON");

    // Second call: the index matches the disk, so the cache is used.
    let r = c.call(
        "constellation_get_graph_summary",
        json!({"forceRefresh": false}),
    );
    assert_eq!(r["structuredContent"]["metadata"]["cacheUsed"], true);

    // summarize_graph and a drill-down on its answer.
    let r = c.call(
        "summarize_graph",
        json!({"budget_tokens": 2000, "scope": "Full"}),
    );
    assert_ne!(r["isError"], json!(true), "{r}");
    let s = &r["structuredContent"];
    assert!(s["tokens"].as_u64().unwrap() <= 2000);
    let top = s["top_nodes"][0][0].as_str().unwrap().to_string();
    let d = c.call("get_node_details", json!({"node_id": top}));
    assert_eq!(d["structuredContent"]["node_id"], json!(top), "{d}");
    let community = s["communities"][0]["id"].as_str().unwrap().to_string();
    let cm = c.call("get_community", json!({"community_id": community}));
    assert!(
        cm["structuredContent"]["size"].as_u64().unwrap() > 0,
        "{cm}"
    );
    let t = c.call("list_top_nodes", json!({"metric": "betweenness", "k": 3}));
    assert_eq!(t["structuredContent"]["exact"], true, "{t}");
    let e = c.call("expand", json!({"node_id": top, "radius": 1}));
    assert!(
        e["structuredContent"]["nodes"].as_array().unwrap().len() > 1,
        "{e}"
    );
    let missing = c.call(
        "get_node_details",
        json!({"node_id": "func:nowhere.py::ghost"}),
    );
    assert_eq!(missing["isError"], true);
    assert!(missing["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("not_found:"));
    let missing = c.call("get_community", json!({"community_id": "file:nowhere.py"}));
    assert!(missing["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("not_found:"));
    // seed 001's `path: "."` is the server's own workspace.
    let r = c.call(
        "summarize_graph",
        json!({"path": ".", "budget_tokens": 2000, "scope": "Full"}),
    );
    assert_eq!(
        r["structuredContent"]["graph_stats"], s["graph_stats"],
        "{r}"
    );
    let bad = c.call("summarize_graph", json!({"radius": 99}));
    assert_eq!(bad["isError"], true);
    assert!(bad["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("radius_too_large:"));

    // A changed file makes the next call re-index.
    std::fs::write(root.join("shop/new_module.py"), "from . import models\n").unwrap();
    let r = c.call("constellation_get_graph_summary", json!({}));
    assert_eq!(r["structuredContent"]["metadata"]["cacheUsed"], false);
}

#[test]
fn bad_arguments_are_tool_errors_with_codes() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);

    let r = c.call(
        "constellation_get_graph_summary",
        json!({"forceRefresh": "yes"}),
    );
    assert_eq!(r["isError"], true);
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("invalid_argument:"), "{text}");

    let r = c.call("constellation_get_graph_summary", json!({"bogus": 1}));
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("invalid_argument:"));

    let r = c.call(
        "constellation_get_graph_summary",
        json!({"workspaceRoot": "/definitely/not/here"}),
    );
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("outside_allowed_roots:"));

    let resp = c.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert!(
        resp["error"].is_object() || resp["result"]["isError"] == true,
        "{resp}"
    );
}

#[test]
fn an_unknown_tool_names_the_closest_tools() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let listed = c.request("tools/list", json!({}))["result"]["tools"]
        .as_array()
        .unwrap()
        .len();
    let unknown = |c: &mut Client, name: &str| {
        let resp = c.request("tools/call", json!({"name": name, "arguments": {}}));
        assert_eq!(resp["error"]["code"], -32602, "{resp}");
        (
            resp["error"]["message"].as_str().unwrap().to_string(),
            resp["error"]["data"]["closest"].clone(),
        )
    };
    assert_eq!(
        unknown(&mut c, "summarise_graph"),
        (
            format!(
                "unknown tool \"summarise_graph\"; did you mean summarize_graph? tools/list \
                 names all {listed} tools"
            ),
            json!(["summarize_graph"])
        )
    );
    assert_eq!(
        unknown(&mut c, "get_graph_summary"),
        (
            format!(
                "unknown tool \"get_graph_summary\"; did you mean \
                 constellation_get_graph_summary? tools/list names all {listed} tools"
            ),
            json!(["constellation_get_graph_summary"])
        )
    );
    assert_eq!(
        unknown(&mut c, "xyzzy"),
        (
            format!("unknown tool \"xyzzy\"; tools/list names all {listed} tools"),
            json!([])
        )
    );
}

#[test]
fn a_relative_workspace_root_error_names_where_it_led() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let r = c.call(
        "constellation_get_graph_summary",
        json!({"workspaceRoot": "no/such/dir"}),
    );
    assert_eq!(r["isError"], true);
    assert_eq!(
        r["content"][0]["text"],
        format!(
            "not_found: workspace root no/such/dir (relative to the server's root, so {}): \
             No such file or directory (os error 2)",
            root.canonicalize().unwrap().join("no/such/dir").display()
        )
    );
    // An absolute one is named as it was given.
    let missing = root.canonicalize().unwrap().join("definitely/not/here");
    let r = c.call(
        "set_workspace_root",
        json!({"path": missing.to_str().unwrap()}),
    );
    assert_eq!(
        r["content"][0]["text"],
        format!(
            "not_found: workspace root {}: No such file or directory (os error 2)",
            missing.display()
        )
    );
    // Outside the server's root, whether it exists or not is not told.
    let r = c.call(
        "set_workspace_root",
        json!({"path": "/definitely/not/here"}),
    );
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("outside_allowed_roots: workspace root /definitely/not/here (/definitely/not/here) is not inside a root this server allows ("),
        "{text}"
    );
}

/// The names `tools/list` gives, sorted.
fn listed_names(c: &mut Client) -> Vec<String> {
    let list = c.request("tools/list", json!({}));
    let mut names: Vec<String> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// `serve --tools memory,audit` (and CONSTELLATION_TOOLS) lists only those groups'
/// tools, and a call to a tool of another group is refused as unknown.
#[test]
fn tools_option_offers_only_the_chosen_groups() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start_with(&root, &db, &["--tools", "memory,audit"], &[]);
    handshake(&mut c);
    let names = listed_names(&mut c);
    assert_eq!(
        names,
        vec![
            "get_all_tasks",
            "get_recent_works_info",
            "get_work_by_id",
            "mark_task_as_done",
            "save_current_work_info",
            "sequentialthinking",
            "update_tasks",
        ]
    );
    let r = c.request(
        "tools/call",
        json!({"name": "search_symbols", "arguments": {"query": "x"}}),
    );
    assert!(
        r["error"].is_object() || r["result"]["isError"] == json!(true),
        "{r}"
    );

    let mut c = Client::start_with(&root, &db, &[], &[("CONSTELLATION_TOOLS", "workspace")]);
    handshake(&mut c);
    let names = listed_names(&mut c);
    assert_eq!(
        names,
        vec!["get_status", "query_index", "set_workspace_root"]
    );
}

/// Every listed tool has an output schema, and no schema uses `format` (schemars'
/// `uint32`, `double`, ... are not JSON Schema formats) or `$schema`.
#[test]
fn every_tool_lists_plain_input_and_output_schemas() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let list = c.request("tools/list", json!({}));
    fn keywords(v: &Value, in_properties: bool, found: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                for (k, sub) in map {
                    if !in_properties && (k == "format" || k == "$schema") {
                        found.push(k.clone());
                    }
                    keywords(sub, k == "properties" && !in_properties, found);
                }
            }
            Value::Array(list) => list.iter().for_each(|x| keywords(x, false, found)),
            _ => {}
        }
    }
    for t in list["result"]["tools"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        assert_eq!(t["outputSchema"]["type"], "object", "{name}");
        let mut found = Vec::new();
        keywords(&t["inputSchema"], false, &mut found);
        keywords(&t["outputSchema"], false, &mut found);
        assert!(found.is_empty(), "{name} uses {found:?}");
    }
}

/// How long a test waits for an answer the server owes at once.
const QUICK: Duration = Duration::from_secs(10);

/// The error a line gets: (code, message), asserting its id.
fn error_for(c: &mut Client, line: &[u8], id: Value) -> (i64, String) {
    c.send_raw(line);
    let reply = c
        .answer_to(&id, QUICK)
        .unwrap_or_else(|| panic!("no answer with id {id} within {QUICK:?}"));
    assert!(reply.get("result").is_none(), "{reply}");
    (
        reply["error"]["code"].as_i64().unwrap(),
        reply["error"]["message"].as_str().unwrap().to_string(),
    )
}

/// Lines rmcp used to drop without an answer (a lone surrogate, nesting past serde's
/// limit, a line over 16 MiB, text that is not JSON) and JSON that is not JSON-RPC are
/// answered with the line's id, and the server goes on answering.
#[test]
fn every_line_gets_an_answer_with_its_id() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);

    let surrogate = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"file_info","arguments":{"path":"\ud800"}}}"#;
    assert_eq!(
        error_for(&mut c, surrogate, json!(7)),
        (
            -32600,
            "a string holds a lone UTF-16 surrogate (\\ud800), which is not valid Unicode; send \
             the text as UTF-8 (or escape a character outside the Basic Multilingual Plane as a \
             surrogate pair)"
                .to_string()
        )
    );

    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"get_status","arguments":{{"a":{}0{}}}}}}}"#,
        "[".repeat(125),
        "]".repeat(125)
    );
    assert_eq!(
        error_for(&mut c, deep.as_bytes(), json!("deep")),
        (
            -32600,
            "the message nests arrays and objects 128 levels deep, over this server's limit of \
             100 (a tool's arguments start at level 3); send flatter arguments"
                .to_string()
        )
    );

    let mut long =
        br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"file_info","arguments":{"path":""#
            .to_vec();
    long.resize(20_000_000 - 4, b'x');
    long.extend_from_slice(br#""}}}"#);
    assert_eq!(long.len(), 20_000_000);
    assert_eq!(
        error_for(&mut c, &long, json!(8)),
        (
            -32600,
            "the request's line is 20,000,000 bytes, over the 16 MiB limit; send less in one \
             message (long text belongs in files the tools read)"
                .to_string()
        )
    );

    let (code, message) = error_for(&mut c, br#"{"jsonrpc":"2.0","id":9,"method":"#, json!(9));
    assert_eq!(code, -32700);
    assert!(
        message.starts_with("parse error: EOF while parsing"),
        "{message}"
    );

    // JSON that is not a JSON-RPC message: with an id when it has one, else null.
    assert_eq!(
        error_for(&mut c, br#"{"jsonrpc":"2.0","id":10}"#, json!(10)),
        (
            -32600,
            "a JSON-RPC message needs \"method\" (a request or notification) or \
             \"result\"/\"error\" (a response); this one has only id, jsonrpc"
                .to_string()
        )
    );
    assert_eq!(error_for(&mut c, b"[]", Value::Null).0, -32600);
    assert_eq!(
        error_for(&mut c, b"{}", Value::Null),
        (
            -32600,
            "\"jsonrpc\" must be \"2.0\", got nothing".to_string()
        )
    );
    assert_eq!(error_for(&mut c, b"42", Value::Null).0, -32600);
    // A known method with params that do not fit is invalid params, not "not found".
    assert_eq!(
        error_for(
            &mut c,
            br#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"get_status","arguments":"x"}}"#,
            json!(11)
        ),
        (
            -32602,
            "params of tools/call do not fit the method: arguments: invalid type: string \"x\", \
             expected a map"
                .to_string()
        )
    );
    // rmcp answers an unknown method itself.
    let (code, _) = error_for(
        &mut c,
        br#"{"jsonrpc":"2.0","id":12,"method":"no/such/method"}"#,
        json!(12),
    );
    assert_eq!(code, -32601);
    // A stray response and an unknown notification need no answer and break nothing.
    c.send_raw(br#"{"jsonrpc":"2.0","id":77,"result":{}}"#);
    c.send_raw(br#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#);

    let r = c.call("get_status", json!({}));
    assert_ne!(r["isError"], json!(true), "{r}");
    assert!(r["structuredContent"].is_object(), "{r}");
    assert!(c.is_running());
}

/// Before `initialize`: notifications and responses are dropped, ping is answered,
/// other requests are refused, and the server keeps running for the handshake.
#[test]
fn nothing_before_initialize_is_fatal() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    c.send_raw(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    c.send_raw(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    c.send_raw(br#"{"jsonrpc":"2.0","id":"r1","result":{}}"#);
    c.send_raw(br#"{"jsonrpc":"2.0","id":"r2","error":{"code":-1,"message":"no"}}"#);
    c.send_raw(br#"{"jsonrpc":"2.0","id":501,"method":"ping"}"#);
    c.send_raw(br#"{"jsonrpc":"2.0","id":502,"method":"tools/list"}"#);
    c.send_raw(br#"{"jsonrpc":"2.0","id":503,"method":"tools/call","params":{"name":"get_status","arguments":{}}}"#);
    // The answers come in order, and only to the requests.
    assert_eq!(
        c.next_message(QUICK),
        Some(json!({"jsonrpc": "2.0", "id": 501, "result": {}}))
    );
    let not_initialized = |method: &str, id: i64| {
        Some(
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32002, "message": format!(
                "the server is not initialized; send initialize first (then \
                 notifications/initialized), and {method} after it"
            )}}),
        )
    };
    assert_eq!(c.next_message(QUICK), not_initialized("tools/list", 502));
    assert_eq!(c.next_message(QUICK), not_initialized("tools/call", 503));
    assert_eq!(c.next_message(Duration::from_millis(300)), None);
    assert!(c.is_running());

    let init = handshake(&mut c);
    assert_eq!(init["result"]["serverInfo"]["name"], "constellation");
    let r = c.call("get_status", json!({}));
    assert_ne!(r["isError"], json!(true), "{r}");
    // After the handshake a response is passed on to rmcp, which ignores it.
    c.send_raw(br#"{"jsonrpc":"2.0","id":"r3","result":{}}"#);
    assert_eq!(listed_names(&mut c).len(), 27);
    assert!(c.is_running());
}

/// A wrong argument's `invalid_argument` message starts with the field at fault, for
/// errors of the argument's type (found while parsing) and of its value (found by the
/// tool), nested fields as paths.
#[test]
fn invalid_arguments_name_their_field_first() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let cases = [
        ("summarize_graph", json!({"budget_tokens": "x"}),
         "budget_tokens: invalid type: string \"x\", expected a non-negative integer (usize)"),
        ("get_impact", json!({"target": "a", "depth": -1}),
         "depth: invalid value: integer `-1`, expected a non-negative integer (usize)"),
        ("get_node_details", json!({"node_id": "x", "hierarchy_depth": 1.5}),
         "hierarchy_depth: invalid type: floating point `1.5`, expected a non-negative integer (usize)"),
        ("constellation_get_graph_summary", json!({"forceRefresh": "yes"}),
         "forceRefresh: invalid type: string \"yes\", expected a boolean"),
        ("summarize_graph", json!({"scope": "Everything"}),
         "scope: unknown variant `Everything`, expected one of `SeedOnly`, `Module`, `Community`, `Full`"),
        ("summarize_graph", json!({"include_filters": "*.py"}),
         "include_filters: invalid type: string \"*.py\", expected an array"),
        ("update_tasks", json!({"sessionId": "s", "tasks": {"a": 1}}),
         "tasks: invalid type: object, expected an array"),
        ("update_tasks", json!({"sessionId": "s", "tasks": [{"taskId": "a", "description": "d", "status": "done"}]}),
         "tasks[0].status: unknown variant `done`, expected `TODO` or `DONE`"),
        ("update_tasks", json!({"sessionId": "s", "tasks": [{"description": "d"}]}),
         "tasks[0]: missing field `taskId`"),
        ("query_index", json!({"sql": 5}), "sql: invalid type: integer `5`, expected a string"),
        ("open_window", json!({"maxNodes": "many"}),
         "maxNodes: invalid type: string \"many\", expected a non-negative integer (usize)"),
        ("sequentialthinking",
         json!({"thought": 5, "nextThoughtNeeded": true, "thoughtNumber": 1, "totalThoughts": 1}),
         "thought must be a string, got 5"),
        // Checked by the tool after parsing.
        ("list_top_nodes", json!({"k": 5000}), "k must be between 1 and 1000, got 5000"),
        ("get_paths", json!({"src": "file:shop/cart.py", "dst": "file:shop/models.py", "limit": 0}),
         "limit must be between 1 and 100, got 0"),
        ("get_paths", json!({"src": "file:shop/cart.py", "dst": "file:shop/models.py", "max_hops": 21}),
         "max_hops must be between 1 and 20, got 21"),
        ("file_info", json!({"path": "shop/cart.py", "budget_tokens": 50}),
         "budget_tokens must be between 500 and 20000, got 50"),
        ("inspect_source", json!({"path": "shop", "startLine": 1, "endLine": 2}),
         "path: shop is a directory; give a file (folder_info describes directories)"),
        ("file_info", json!({"path": "shop"}), "path: shop is a directory; use folder_info for directories"),
        // serde's own messages name the field: kept, and the unknown one lists the rest.
        ("query_index", json!({"sql": "SELECT 1", "rows": 1}),
         "unknown field `rows`, expected one of `sql`, `limit`, `budget_tokens`, `workspaceRoot`"),
        ("get_status", json!({"verbose": true}), "unknown field `verbose`, there are no fields"),
        ("query_index", json!({}), "missing field `sql`"),
    ];
    for (tool, args, expected) in cases {
        let r = c.call(tool, args.clone());
        assert_eq!(r["isError"], true, "{tool} {args}: {r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        let expected = format!("invalid_argument: {expected}");
        assert!(
            text.starts_with(&expected),
            "{tool} {args}:\n  got      {text}\n  expected {expected}..."
        );
    }
}

/// The end of stdin ends the server, before and after the handshake.
#[test]
fn the_end_of_stdin_ends_the_server() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    c.send_raw(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let status = c
        .close_stdin(QUICK)
        .expect("serve still runs after its stdin closed");
    assert!(status.success(), "{status}");

    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let r = c.call("get_status", json!({}));
    assert_ne!(r["isError"], json!(true), "{r}");
    let status = c
        .close_stdin(QUICK)
        .expect("serve still runs after its stdin closed");
    assert!(status.success(), "{status}");
}
