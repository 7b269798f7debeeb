//! Value references (a function, method or class used as a value, not called) on
//! `fixtures/py-value-refs` and `fixtures/ts-value-refs`: the rows their READMEs list (```references and
//! ```unresolved blocks) must be exactly the index's, `get_impact` must reach the tests
//! that pass a function as a value, and the graph algorithms must not see the new edges.

mod common;

use common::mcp::{handshake, Client};
use common::*;
use serde_json::{json, Value};

const FIXTURE: &str = "py-value-refs";

/// `user_path:line user -> target_path target provenance`, sorted as the READMEs are.
fn reference_edges(conn: &rusqlite::Connection) -> Vec<String> {
    strings(
        conn,
        "SELECT user_path || ':' || line || ' ' || user || ' -> ' || target_path || ' ' ||
                target || ' ' || provenance
         FROM reference_edges ORDER BY user_path, line, target_path, target",
    )
}

#[test]
fn value_references_match_readme() {
    let (_dir, root, db) = indexed_fixture(FIXTURE);
    let conn = open_db(&db);
    assert_eq!(reference_edges(&conn), readme_block(FIXTURE, "references"));
    assert_eq!(
        strings(
            &conn,
            "SELECT path || ':' || line || ' ' || coalesce(qualifier || '.', '') || name || ' ' ||
                    status
             FROM unresolved_refs WHERE kind = 'reference' ORDER BY path, line, name",
        ),
        readme_block(FIXTURE, "unresolved"),
    );
    // Every edge of a resolved value reference is a `references` edge with the rule's
    // confidence, and no call edge comes from a value reference.
    assert_eq!(
        int(
            &conn,
            "SELECT count(*) FROM edges e JOIN refs r ON r.id = e.ref_id
             WHERE (r.kind = 'reference') <> (e.kind = 'references')",
        ),
        0
    );
    // Locals and parameters used as values are not recorded.
    assert_eq!(
        int(
            &conn,
            "SELECT count(*) FROM refs WHERE kind = 'reference' AND qualifier IS NULL
               AND name IN ('f', 'cb', 'fn', 'items', 'groups', 'xs', 'words', 'result')"
        ),
        0
    );
    drop(conn);
    let _ = root;
}

#[test]
fn typescript_value_references_match_readme_and_reach_the_test_file() {
    let (_dir, root, db) = indexed_fixture("ts-value-refs");
    let conn = open_db(&db);
    assert_eq!(
        reference_edges(&conn),
        readme_block("ts-value-refs", "references")
    );
    drop(conn);
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let v = c.call("get_impact", json!({"target": "func:handlers.ts::double"}));
    let v = answer(&v);
    let s = |x: &str| x.to_string();
    assert_eq!(
        dependents(&v),
        vec![
            (s("file:handlers.test.ts"), 1, s("references")),
            (s("func:handlers.ts::doubled"), 1, s("references")),
            (s("func:handlers.ts::pick"), 1, s("references")),
        ]
    );
    assert_eq!(tests_of(&v), vec![(s("handlers.test.ts"), None, 1)]);
}

/// `(file, test, depth)` of an impact answer's tests.
fn tests_of(v: &Value) -> Vec<(String, Option<String>, u64)> {
    common::impact_tests(v)
        .into_iter()
        .map(|(file, test, depth, _)| (file, test, depth))
        .collect()
}

/// `(node_id, depth, via)` of the trusted dependents, in answer order.
fn dependents(v: &Value) -> Vec<(String, u64, String)> {
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["dependents"].as_array().unwrap().iter())
        .map(|d| {
            (
                d["node_id"].as_str().unwrap().to_string(),
                d["depth"].as_u64().unwrap(),
                d["via"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn impact_of_a_function_passed_as_a_value_reaches_its_tests() {
    let (_dir, root, db) = indexed_fixture(FIXTURE);
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let s = |x: &str| x.to_string();
    let v = c.call(
        "get_impact",
        json!({"target": "func:pkg/funcs.py::all_equal"}),
    );
    let v = &answer(&v);
    assert_eq!(
        dependents(v),
        vec![
            (s("func:pkg/funcs.py::leading_equal"), 1, s("references")),
            (
                s("func:tests/test_funcs.py::test_filter_directly"),
                1,
                s("references")
            ),
            (
                s("func:tests/test_funcs.py::test_leading_equal"),
                2,
                s("calls")
            ),
        ]
    );
    assert_eq!(
        tests_of(v),
        vec![
            (s("tests/test_funcs.py"), Some(s("test_filter_directly")), 1),
            (s("tests/test_funcs.py"), Some(s("test_leading_equal")), 2),
        ]
    );
    assert!(v.get("note").is_none(), "{v}");

    let v = c.call(
        "get_impact",
        json!({"target": "func:pkg/funcs.py::by_length"}),
    );
    let v = &answer(&v);
    assert_eq!(
        tests_of(v),
        vec![(s("tests/test_funcs.py"), Some(s("test_sort_words")), 2)]
    );

    // A special method reached on the way stands for its class: `len(Bag())`.
    let v = c.call(
        "get_impact",
        json!({"target": "func:pkg/funcs.py::count_items"}),
    );
    let v = &answer(&v);
    assert_eq!(
        dependents(v),
        vec![
            (s("func:pkg/funcs.py::Bag::__len__"), 1, s("calls")),
            (s("func:tests/test_funcs.py::test_bag_len"), 2, s("calls")),
        ]
    );
    assert_eq!(
        tests_of(v),
        vec![(s("tests/test_funcs.py"), Some(s("test_bag_len")), 2)]
    );

    let v = c.call(
        "get_impact",
        json!({"target": "func:pkg/funcs.py::Worker::on_done"}),
    );
    let v = &answer(&v);
    assert_eq!(
        dependents(v),
        vec![(s("func:pkg/funcs.py::Worker::run"), 1, s("references"))]
    );
    assert_eq!(tests_of(v), vec![]);
}

#[test]
fn graph_algorithms_do_not_see_value_references() {
    // `double` is used as a value three times and called by nothing: its in-degree in
    // the graph the algorithms read is its containment edge only, and get_node_details
    // lists the three users apart.
    let (_dir, root, db) = indexed_fixture(FIXTURE);
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let v = c.call(
        "get_node_details",
        json!({"node_id": "func:pkg/funcs.py::double"}),
    );
    let v = answer(&v);
    assert_eq!(v["in_degree"], 1, "{v}");
    assert_eq!(v["callers_total"], 0, "{v}");
    assert_eq!(v["value_users_total"], 3, "{v}");
    let users: Vec<(&str, u64)> = v["value_users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["node_id"].as_str().unwrap(),
                u["use_line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        users,
        vec![
            ("func:pkg/funcs.py::doubled", 18),
            ("file:pkg/funcs.py", 29),
            ("func:pkg/funcs.py::pick", 33),
        ]
    );
    assert!(
        v["note"]
            .as_str()
            .unwrap()
            .contains("used as a value by 3 node(s)"),
        "{v}"
    );
}

/// The answer of a tool call: its structured content, else its text parsed.
fn answer(result: &Value) -> Value {
    match result.get("structuredContent") {
        Some(v) => v.clone(),
        None => serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap(),
    }
}
