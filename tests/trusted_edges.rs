//! Trust by default: the graph tools use only edges at least `min_confidence`
//! confident, and a node without resolved callers says whether unresolved call sites
//! might reach it (fixture `possible-callers`, see its README).

mod common;

use std::sync::Arc;

use constellation::graph::SymbolGraph;
use constellation::index::IndexOptions;
use constellation::tools::drill::{self, NodeDetailsArgs, TopNodesArgs};
use constellation::tools::workspace::Workspace;
use serde_json::Value;

fn open(name: &str) -> (tempfile::TempDir, Workspace, Arc<SymbolGraph>) {
    let (dir, root) = common::fixture_copy(name);
    let db = dir.path().join("t.db");
    let ws = Workspace::open(&root, Some(&db), IndexOptions::default()).unwrap();
    ws.refresh(false, &|_| {}).unwrap();
    let g = ws.symbol_graph().unwrap();
    (dir, ws, g)
}

fn details(ws: &Workspace, g: &Arc<SymbolGraph>, node: &str, extra: Value) -> Value {
    let mut args = serde_json::json!({"node_id": node});
    if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
        a.extend(e.clone());
    }
    let args: NodeDetailsArgs = serde_json::from_value(args).unwrap();
    let conn = ws.store().conn().unwrap();
    drill::get_node_details(g, Some(&conn), &args).unwrap()
}

fn keys(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| format!("{} ({})", v["node_id"].as_str().unwrap(), v["call_line"]))
        .collect()
}

#[test]
fn resolved_and_possible_callers_are_told_apart() {
    let (_d, ws, g) = open("possible-callers");
    // Every resolved edge (the rules' confidences are calibrated elsewhere).
    let all = serde_json::json!({"min_confidence": 0.0});
    let run = details(&ws, &g, "func:app.py::Worker::run", all.clone());
    assert_eq!(keys(&run["callers"]), ["func:app.py::main (12)"], "{run}");
    assert_eq!(run["callers"][0]["provenance"], "typed");
    assert_eq!(run["possible_callers_total"], 1, "{run}");
    assert!(run.get("possible_callers").is_none(), "{run}");
    assert!(run.get("note").is_none(), "{run}");

    let listed = details(
        &ws,
        &g,
        "func:app.py::Worker::run",
        serde_json::json!({"include_possible": true, "min_confidence": 0.0}),
    );
    assert_eq!(
        keys(&listed["possible_callers"]),
        ["func:app.py::start (7)"]
    );
    assert_eq!(listed["possible_callers"][0]["status"], "unresolved");

    let start = details(&ws, &g, "func:app.py::start", all.clone());
    assert_eq!(start["callees_total"], 0, "{start}");
    assert_eq!(start["calls_unresolved"], 1, "{start}");
    assert_eq!(start["possible_callees_total"], 1, "{start}");
    let note = start["note"].as_str().unwrap();
    assert!(note.starts_with("no callers: no call site"), "{note}");

    let main = details(&ws, &g, "func:app.py::main", all.clone());
    let mut callees = keys(&main["callees"]);
    callees.sort();
    assert_eq!(
        callees,
        ["class:app.py::Worker (11)", "func:app.py::Worker::run (12)"]
    );
    assert_eq!(main["calls_external"], 1, "len() is a builtin: {main}");

    let unused = details(&ws, &g, "func:lonely.py::unused", all);
    assert_eq!(unused["possible_callers_total"], 0);
    assert!(unused["note"].as_str().unwrap().starts_with("no callers"));
}

#[test]
fn a_run_with_no_resolved_callers_but_possible_ones_says_so() {
    let (_d, ws, g) = open("possible-callers");
    // With every resolved edge below the bar, `run` keeps only its possible caller.
    let run = details(
        &ws,
        &g,
        "func:app.py::Worker::run",
        serde_json::json!({"min_confidence": 1.0}),
    );
    assert_eq!(run["callers_total"], 0, "{run}");
    assert_eq!(run["callers_below_min_confidence"], 1, "{run}");
    let note = run["note"].as_str().unwrap();
    assert!(
        note.starts_with("no resolved callers at min_confidence 1 (1 weaker); 1 call site(s)"),
        "{note}"
    );
}

#[test]
fn min_confidence_filters_the_algorithms_and_is_checked() {
    let (_d, _ws, g) = open("possible-callers");
    let top = |min: Option<f64>| -> Result<Value, String> {
        let args: TopNodesArgs = serde_json::from_value(
            serde_json::json!({"metric": "degree", "k": 3, "min_confidence": min}),
        )
        .unwrap();
        drill::list_top_nodes(&g, &args).map_err(|e| e.to_string())
    };
    let degree_of = |v: &Value, key: &str| {
        v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n[0] == key)
            .map(|n| n[1].as_f64().unwrap())
    };
    let all = top(Some(0.0)).unwrap();
    let certain = top(Some(1.0)).unwrap();
    // main: contains-edge from its file, calls to Worker and Worker::run.
    assert_eq!(degree_of(&all, "func:app.py::main"), Some(3.0), "{all}");
    assert_ne!(
        degree_of(&certain, "func:app.py::main"),
        Some(3.0),
        "{certain}"
    );
    let err = top(Some(1.5)).unwrap_err();
    assert!(
        err.starts_with("invalid_argument: min_confidence 1.5"),
        "{err}"
    );
}
