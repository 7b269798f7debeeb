//! `get_impact`, `diff_impact` and the class hierarchy of `get_node_details`, on
//! `fixtures/class-hierarchy` (expected answers in its README) and on temporary git
//! repositories, through the real binary (CLI and MCP).

mod common;

use std::path::Path;

use common::mcp::{handshake, Client};
use serde_json::{json, Value};

/// `impact ARGS --root ROOT --db DB --json`, parsed; panics unless it exits `code`.
fn impact(root: &Path, db: &Path, args: &[&str], code: i32) -> Value {
    let mut all = vec![
        "impact",
        "--root",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--json",
        "-q",
    ];
    all.extend_from_slice(args);
    let out = common::run(&all);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `(file, node_id, depth)` of every dependent of `groups`, in answer order.
fn deps(groups: &Value) -> Vec<(String, String, u64)> {
    groups
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| {
            g["dependents"].as_array().unwrap().iter().map(move |d| {
                (
                    g["file"].as_str().unwrap().to_string(),
                    d["node_id"].as_str().unwrap().to_string(),
                    d["depth"].as_u64().unwrap(),
                )
            })
        })
        .collect()
}

/// `(file, test, depth, trusted)` of the tests.
fn tests_of(v: &Value) -> Vec<(String, Option<String>, u64, bool)> {
    common::impact_tests(v)
}

/// The tests `impact TARGET` lists: `(file::test, depth, trusted)`, in answer order.
fn test_runs(root: &Path, db: &Path, target: &str) -> Vec<(String, u64, bool)> {
    let v = impact(root, db, &[target], 0);
    tests_of(&v)
        .into_iter()
        .map(|(file, test, depth, trusted)| {
            (
                format!("{file}::{}", test.unwrap_or_default()),
                depth,
                trusted,
            )
        })
        .collect()
}

fn s(x: &str) -> String {
    x.to_string()
}

#[test]
fn impact_of_a_class_groups_by_file_with_chains_and_tests() {
    let (_dir, root, db) = common::indexed_fixture("class-hierarchy");
    let v = impact(&root, &db, &["class:zoo/animals.py::Animal"], 0);
    assert_eq!(v["target"], "class:zoo/animals.py::Animal");
    assert_eq!(v["depth"], 3);
    assert_eq!(
        deps(&v["files"]),
        vec![
            (s("zoo/animals.py"), s("class:zoo/animals.py::Duck"), 1),
            (s("zoo/animals.py"), s("class:zoo/animals.py::Duckling"), 2),
            (s("zoo/keeper.py"), s("func:zoo/keeper.py::feed"), 2),
            (s("zoo/keeper.py"), s("func:zoo/keeper.py::visit"), 3),
            (
                s("tests/test_keeper.py"),
                s("func:tests/test_keeper.py::test_feed"),
                3
            ),
        ]
    );
    let visit = &v["files"][1]["dependents"][1];
    assert_eq!(visit["via"], "calls");
    let chain: Vec<&str> = visit["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["node_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        chain,
        [
            "func:zoo/keeper.py::visit",
            "func:zoo/keeper.py::feed",
            "class:zoo/animals.py::Duck",
            "class:zoo/animals.py::Animal"
        ]
    );
    assert_eq!(v["possible_total"], 0);
    // The tests are searched beyond the depth of the lists: `TestVisit.test_visit`
    // calls `visit` (depth 3), so it reaches `Animal` through 4 edges.
    assert_eq!(
        tests_of(&v),
        vec![
            (s("tests/test_keeper.py"), Some(s("test_feed")), 3, true),
            (
                s("tests/test_keeper.py"),
                Some(s("TestVisit::test_visit")),
                4,
                true
            )
        ]
    );
    assert!(
        v.get("note").is_none(),
        "a target with dependents has no note"
    );
    // Nothing calls Swimmer.swim: the answer says what the index cannot see, so that
    // the empty list is not read as "safe to change".
    let v = impact(&root, &db, &["Swimmer::swim"], 0);
    assert_eq!(v["dependents_total"], 0);
    let note = v["note"].as_str().unwrap();
    assert!(note.contains("uses as a value"), "{note}");
    assert!(note.contains("WHERE name = 'swim'"), "{note}");
    // The spellings get_symbol_source reads name the same node: a dotted Python name
    // and a file path with the qualified name.
    for spelling in [
        "zoo.animals.Animal",
        "zoo/animals.py::Animal",
        "zoo.animals.Animal.__init__",
    ] {
        let v = impact(&root, &db, &[spelling], 0);
        let want = if spelling.ends_with("__init__") {
            "func:zoo/animals.py::Animal::__init__"
        } else {
            "class:zoo/animals.py::Animal"
        };
        assert_eq!(v["target"], want, "{spelling}");
    }
    // A constructor runs wherever its class is built: the class's dependents are its own.
    let v = impact(&root, &db, &["func:zoo/animals.py::Animal::__init__"], 0);
    assert_eq!(v["dependents_total"], 5);
    assert_eq!(
        v["files"][1]["dependents"][0]["node_id"],
        "func:zoo/keeper.py::feed"
    );
    // One level deeper reaches the class-based test too.
    let v = impact(&root, &db, &["Animal", "--depth", "4"], 0);
    assert_eq!(
        tests_of(&v),
        vec![
            (s("tests/test_keeper.py"), Some(s("test_feed")), 3, true),
            (
                s("tests/test_keeper.py"),
                Some(s("TestVisit::test_visit")),
                4,
                true
            ),
        ]
    );
}

/// Python tests as pytest and unittest run them (`fixtures/py-test-runs`, expected
/// lists in its README): a mixin's test method under the test classes that inherit it,
/// the tests of a reached `setUp` or `setup_module`, the tests requesting a reached
/// fixture (by parameter, `name=`, `usefixtures`, through another fixture).
#[test]
fn python_tests_are_listed_as_the_runner_names_them() {
    let (_dir, root, db) = common::indexed_fixture("py-test-runs");
    let tests = |target: &str| test_runs(&root, &db, target);
    let t = |id: &str, depth: u64| (id.to_string(), depth, true);
    assert_eq!(
        tests("func:shop/cart.py::price_of"),
        vec![
            t("tests/test_cart.py::TestBig::test_total", 1),
            t("tests/test_cart.py::SmallCartTest::test_total", 2),
            t("tests/test_cart.py::TestBig::test_add", 2),
        ]
    );
    assert_eq!(
        tests("func:shop/cart.py::make_cart"),
        vec![
            t("tests/test_cart.py::SmallCartTest::test_total", 2),
            t("tests/test_cart.py::TestBig::test_add", 2),
            t("tests/test_cart.py::TestBig::test_total", 2),
        ]
    );
    // `full_cart` calls `add` on its parameter: a name-only candidate, so the test
    // behind it is possible, not trusted.
    assert_eq!(
        tests("func:shop/cart.py::Cart::add"),
        vec![
            t("tests/test_cart.py::TestBig::test_add", 1),
            (s("tests/test_fixtures.py::test_full"), 2, false),
        ]
    );
    assert_eq!(
        tests("class:shop/cart.py::Cart"),
        vec![
            t("tests/test_cart.py::SmallCartTest::test_total", 1),
            t("tests/test_cart.py::TestBig::test_add", 1),
            t("tests/test_fixtures.py::test_empty", 2),
            t("tests/test_fixtures.py::test_marked", 2),
            t("tests/test_cart.py::TestBig::test_total", 3),
            t("tests/test_fixtures.py::test_full", 3),
        ]
    );
    // The name-only candidate itself: possible, via `same_name`, confidence 0; the
    // callers with an edge into `Cart.total` keep their edge.
    let v = impact(&root, &db, &["func:shop/cart.py::Cart::add"], 0);
    assert_eq!(
        deps(&v["possible"]),
        vec![(
            s("tests/conftest.py"),
            s("func:tests/conftest.py::full_cart"),
            1
        )]
    );
    let candidate = &v["possible"][0]["dependents"][0];
    assert_eq!(candidate["via"], "same_name");
    assert_eq!(candidate["confidence"], 0.0);
    let v = impact(&root, &db, &["func:shop/cart.py::Cart::total"], 0);
    let via: Vec<(String, String)> = ["files", "possible"]
        .iter()
        .flat_map(|list| v[*list].as_array().unwrap().clone())
        .flat_map(|g| g["dependents"].as_array().unwrap().clone())
        .map(|d| {
            (
                d["node_id"].as_str().unwrap().to_string(),
                d["via"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(via.contains(&(
        s("func:tests/test_cart.py::SmallCartTest::test_total"),
        s("calls")
    )));
    assert!(via.contains(&(
        s("func:tests/test_cart.py::CartChecks::test_total"),
        s("same_name")
    )));
    assert_eq!(
        tests("func:tests/conftest.py::cart"),
        vec![
            t("tests/test_fixtures.py::test_empty", 1),
            t("tests/test_fixtures.py::test_marked", 1),
            t("tests/test_fixtures.py::test_full", 2),
        ]
    );
}

#[test]
fn kselftest_tests_are_listed_as_the_harness_runner_names_them() {
    let (_dir, root, db) = common::indexed_fixture("c-kselftest");
    let tests = |target: &str| test_runs(&root, &db, target);
    let t = |id: &str, depth: u64| (format!("selftests/hmm-tests.c::{id}"), depth, true);
    // Callers are tests themselves; a reached FIXTURE_SETUP or FIXTURE_TEARDOWN
    // stands for every test of its fixture, one hop on.
    assert_eq!(
        tests("func:lib/hmm.c::hmm_open"),
        vec![
            t("global.no_fixture", 1),
            t("hmm.open_twice", 1),
            t("hmm.nothing", 2),
        ]
    );
    assert_eq!(
        tests("func:lib/hmm.c::hmm_close"),
        vec![
            t("global.no_fixture", 1),
            t("hmm.nothing", 2),
            t("hmm.open_twice", 2),
        ]
    );
    // The set-up itself is no test: what reaches it are its fixture's tests.
    assert_eq!(
        tests("func:selftests/hmm-tests.c::hmm_setup"),
        vec![t("hmm.nothing", 1), t("hmm.open_twice", 1)]
    );
}

#[test]
fn impact_of_a_file_and_weak_edges_as_possible() {
    let (_dir, root, db) = common::indexed_fixture("class-hierarchy");
    let v = impact(&root, &db, &["zoo/animals.py"], 0);
    assert_eq!(v["target"], "file:zoo/animals.py");
    assert_eq!(
        deps(&v["files"]),
        vec![
            (s("zoo/keeper.py"), s("file:zoo/keeper.py"), 1),
            (s("zoo/keeper.py"), s("func:zoo/keeper.py::feed"), 1),
            (s("zoo/keeper.py"), s("func:zoo/keeper.py::visit"), 2),
            (s("tests/test_keeper.py"), s("file:tests/test_keeper.py"), 2),
            (
                s("tests/test_keeper.py"),
                s("func:tests/test_keeper.py::test_feed"),
                2
            ),
            (
                s("tests/test_keeper.py"),
                s("func:tests/test_keeper.py::TestVisit::test_visit"),
                3
            ),
        ]
    );
    assert_eq!(
        tests_of(&v),
        vec![
            (s("tests/test_keeper.py"), Some(s("test_feed")), 2, true),
            (
                s("tests/test_keeper.py"),
                Some(s("TestVisit::test_visit")),
                3,
                true
            ),
        ]
    );
    // Go's package rule (0.95) and Java's (0.85) are below 0.97: possible, not trusted.
    let v = impact(&root, &db, &["func:go/calc.go::Add"], 0);
    assert_eq!(v["dependents_total"], 0);
    assert_eq!(
        deps(&v["possible"]),
        vec![(s("go/calc_test.go"), s("func:go/calc_test.go::TestAdd"), 1)]
    );
    assert_eq!(
        tests_of(&v),
        vec![(s("go/calc_test.go"), Some(s("TestAdd")), 1, false)]
    );
    let v = impact(&root, &db, &["Pet"], 0);
    assert_eq!(
        deps(&v["possible"]),
        vec![
            (
                s("java/src/main/java/zoo/Cat.java"),
                s("class:java/src/main/java/zoo/Cat.java::Cat"),
                1
            ),
            (
                s("java/src/test/java/zoo/CatTest.java"),
                s("func:java/src/test/java/zoo/CatTest.java::CatTest::testName"),
                2
            ),
        ]
    );
    assert_eq!(
        tests_of(&v),
        vec![(
            s("java/src/test/java/zoo/CatTest.java"),
            Some(s("CatTest::testName")),
            2,
            false
        )]
    );
    // min_confidence 0.8 trusts the Java rule.
    let v = impact(&root, &db, &["Pet", "--min-confidence", "0.8"], 0);
    assert_eq!(v["dependents_total"], 2);
    assert_eq!(v["possible_total"], 0);
    let v = impact(&root, &db, &["class:rust/src/lib.rs::Speak"], 0);
    assert_eq!(
        deps(&v["files"]),
        vec![(s("rust/src/lib.rs"), s("class:rust/src/lib.rs::Dog"), 1)]
    );
    assert_eq!(v["tests_total"], 0);
    // A JS test file reached through its anonymous top-level code.
    let v = impact(&root, &db, &["class:ts/shapes.ts::Square"], 0);
    assert_eq!(
        deps(&v["files"]),
        vec![
            (
                s("ts/shapes.test.ts"),
                s("func:ts/shapes.test.ts::check"),
                1
            ),
            (s("ts/shapes.test.ts"), s("file:ts/shapes.test.ts"), 2),
        ]
    );
    assert_eq!(tests_of(&v), vec![(s("ts/shapes.test.ts"), None, 1, true)]);
}

/// `get_node_details` on `node_id` with `extra` arguments, over MCP.
fn details(c: &mut Client, node_id: &str, extra: Value) -> Value {
    let mut args = json!({"node_id": node_id});
    args.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let r = c.call("get_node_details", args);
    assert_ne!(r["isError"], json!(true), "{r}");
    r["structuredContent"].clone()
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x["node_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn class_hierarchy_per_language() {
    let (_dir, root) = common::fixture_copy("class-hierarchy");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    // Python, multiple inheritance.
    let d = details(&mut c, "class:zoo/animals.py::Duck", json!({}));
    assert_eq!(ids(&d["members"]), ["func:zoo/animals.py::Duck::speak"]);
    assert_eq!(
        ids(&d["bases"]),
        [
            "class:zoo/animals.py::Animal",
            "class:zoo/animals.py::Swimmer"
        ]
    );
    assert_eq!(ids(&d["subclasses"]), ["class:zoo/animals.py::Duckling"]);
    assert_eq!(
        d["overrides"],
        json!([{"member": "speak", "node_id": "func:zoo/animals.py::Duck::speak", "overrides": ["func:zoo/animals.py::Animal::speak"], "overridden_by": []}])
    );
    assert_eq!(ids(&d["callers"]), ["func:zoo/keeper.py::feed"]);
    assert_eq!(d["callers"][0]["member"], "constructor");
    assert_eq!(d["callers_total"], 1);
    let d = details(
        &mut c,
        "class:zoo/animals.py::Animal",
        json!({"transitive": true}),
    );
    let depths: Vec<(String, u64)> = d["subclasses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["node_id"].as_str().unwrap().to_string(),
                x["depth"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        depths,
        [
            (s("class:zoo/animals.py::Duck"), 1),
            (s("class:zoo/animals.py::Duckling"), 2)
        ]
    );
    assert_eq!(
        d["overrides"][0]["overridden_by"],
        json!(["func:zoo/animals.py::Duck::speak"])
    );
    // TypeScript extends + implements.
    let d = details(&mut c, "class:ts/shapes.ts::Square", json!({}));
    let bases: Vec<(String, String)> = d["bases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["node_id"].as_str().unwrap().to_string(),
                x["relation"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        bases,
        [
            (s("class:ts/shapes.ts::Shape"), s("implements")),
            (s("class:ts/shapes.ts::Base"), s("inherits"))
        ]
    );
    let overrides: Vec<(String, Value)> = d["overrides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["member"].as_str().unwrap().to_string(),
                x["overrides"].clone(),
            )
        })
        .collect();
    assert_eq!(
        overrides,
        [
            (s("area"), json!(["func:ts/shapes.ts::Shape::area"])),
            (s("describe"), json!(["func:ts/shapes.ts::Base::describe"]))
        ]
    );
    // Rust: a trait and its impl (methods outside the struct's lines).
    let d = details(&mut c, "class:rust/src/lib.rs::Speak", json!({}));
    assert_eq!(ids(&d["implementations"]), ["class:rust/src/lib.rs::Dog"]);
    let d = details(&mut c, "class:rust/src/lib.rs::Dog", json!({}));
    assert_eq!(ids(&d["members"]), ["func:rust/src/lib.rs::Dog::speak"]);
    assert_eq!(ids(&d["bases"]), ["class:rust/src/lib.rs::Speak"]);
    assert_eq!(
        d["overrides"][0]["overrides"],
        json!(["func:rust/src/lib.rs::Speak::speak"])
    );
    // Java: an interface implemented through a weaker rule is listed, marked possible.
    let d = details(
        &mut c,
        "class:java/src/main/java/zoo/Pet.java::Pet",
        json!({}),
    );
    assert_eq!(
        ids(&d["implementations"]),
        ["class:java/src/main/java/zoo/Cat.java::Cat"]
    );
    assert_eq!(d["implementations"][0]["possible"], true);
    assert_eq!(d["implementations"][0]["confidence"], 0.85);
    // C++ bases, two levels.
    let d = details(
        &mut c,
        "class:cpp/shapes.hpp::Shape",
        json!({"hierarchy_depth": 2}),
    );
    assert_eq!(
        ids(&d["subclasses"]),
        ["class:cpp/shapes.hpp::Circle", "class:cpp/shapes.hpp::Ring"]
    );
    assert_eq!(
        d["overrides"][0]["overridden_by"],
        json!(["func:cpp/shapes.hpp::Circle::area"])
    );
    // A function has none of the hierarchy fields.
    let d = details(&mut c, "func:zoo/keeper.py::feed", json!({}));
    assert!(d.get("members").is_none());
    let r = c.call(
        "get_node_details",
        json!({"node_id": "Duck", "hierarchy_depth": 0}),
    );
    assert_eq!(r["isError"], true);
}

#[test]
fn mcp_round_trip_schemas_and_budget() {
    let (_dir, root) = common::fixture_copy("class-hierarchy");
    let db = root.parent().unwrap().join("mcp.db");
    let mut c = Client::start(&root, &db);
    handshake(&mut c);
    let list = c.request("tools/list", json!({}));
    for name in ["get_impact", "diff_impact"] {
        let t = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap();
        assert_eq!(t["outputSchema"]["type"], "object", "{name}");
        assert!(
            t["outputSchema"]["properties"]["tests"].is_object(),
            "{name}"
        );
        assert!(
            t["inputSchema"]["properties"]["depth"].is_object(),
            "{name}"
        );
    }
    let r = c.call("get_impact", json!({"target": "zoo/animals.py"}));
    assert_ne!(r["isError"], json!(true), "{r}");
    assert_eq!(r["structuredContent"]["dependents_total"], 6);
    assert_eq!(r["structuredContent"]["truncated"], false);
    // A budget too small for everything: cut, counted, with a way to get the rest.
    let r = c.call(
        "get_impact",
        json!({"target": "zoo/animals.py", "budget_tokens": 450}),
    );
    let v = &r["structuredContent"];
    assert_eq!(v["truncated"], true, "{r}");
    assert!(v["left_out"].as_u64().unwrap() > 0);
    assert!(v["hint"].as_str().unwrap().contains("budget_tokens"));
    assert!(v["tokens"].as_u64().unwrap() <= 450);
    assert_eq!(v["dependents_total"], 6);
    let r = c.call(
        "get_impact",
        json!({"target": "zoo/animals.py", "budget_tokens": 20}),
    );
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("budget_too_small:"));
    let r = c.call(
        "get_impact",
        json!({"target": "zoo/animals.py", "depth": 11}),
    );
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("invalid_argument:"));
    let r = c.call("get_impact", json!({"target": "Nothing"}));
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("not_found:"));
    // diff_impact outside a repository: one line.
    let r = c.call("diff_impact", json!({}));
    assert_eq!(r["isError"], true);
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("not a git repository: "), "{text}");
    assert_eq!(text.lines().count(), 1);
}

const APP_V1: &str = "def keep():\n    return \"k\"\n\n\ndef change():\n    return \"c\"\n\n\ndef gone():\n    return \"g\"\n\n\ndef caller():\n    return change()\n";
const APP_V2: &str = "def keep():\n    return \"k\"\n\n\ndef change():\n    return \"C\"\n\n\ndef caller():\n    return change()\n\n\ndef fresh():\n    return \"f\"\n";

#[test]
fn diff_impact_on_a_temporary_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("app.py"), APP_V1).unwrap();
    std::fs::write(
        root.join("test_app.py"),
        "from app import change\n\n\ndef test_change():\n    assert change() == \"c\"\n",
    )
    .unwrap();
    std::fs::write(root.join(".gitignore"), ".constellation/\n").unwrap();
    common::git(&root, &["init", "-q"]);
    common::git(&root, &["add", "."]);
    common::git(&root, &["commit", "-qm", "v1"]);
    std::fs::write(root.join("app.py"), APP_V2).unwrap();
    let db = dir.path().join("index.db");

    let v = impact(&root, &db, &["--diff"], 0);
    assert_eq!(v["base"], "HEAD");
    let changed: Vec<(String, String)> = v["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["node_id"].as_str().unwrap().to_string(),
                c["change"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        changed,
        [
            (s("func:app.py::change"), s("modified")),
            (s("func:app.py::gone"), s("removed")),
            (s("func:app.py::fresh"), s("added")),
        ]
    );
    assert_eq!(
        (
            v["added"].as_u64(),
            v["modified"].as_u64(),
            v["removed"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );
    // git aligns the edited `return` with the removed function: one hunk -6,5 +6.
    assert_eq!(
        v["files_changed"],
        json!([{"path": "app.py", "status": "modified", "old_lines": [[6, 10]], "new_lines": [[6, 6], [11, 14]]}])
    );
    assert_eq!(
        deps(&v["files"]),
        vec![
            (s("app.py"), s("func:app.py::caller"), 1),
            (s("test_app.py"), s("func:test_app.py::test_change"), 1)
        ]
    );
    assert_eq!(
        tests_of(&v),
        vec![(s("test_app.py"), Some(s("test_change")), 1, true)]
    );

    // --fail-on: more than N dependents, or a changed path.
    impact(&root, &db, &["--diff", "--fail-on", "5"], 0);
    let v = impact(&root, &db, &["--diff", "--fail-on", "1"], 1);
    assert_eq!(v["fail"]["reasons"], json!(["2 dependents, more than 1"]));
    let v = impact(&root, &db, &["--diff", "--fail-on", "docs/**", "app.*"], 1);
    assert_eq!(v["fail"]["reasons"], json!(["app.py matches app.*"]));

    // Staged only: nothing staged yet, then everything.
    let v = impact(&root, &db, &["--diff", "--staged"], 0);
    assert_eq!(v["changed_total"], 0);
    common::git(&root, &["add", "app.py"]);
    let v = impact(&root, &db, &["--diff", "--staged"], 0);
    assert_eq!(v["changed_total"], 3);
    // Against an explicit base, with a new untracked file counted as added.
    common::git(&root, &["commit", "-qm", "v2"]);
    std::fs::write(root.join("extra.py"), "def more():\n    return 1\n").unwrap();
    let v = impact(&root, &db, &["--diff", "HEAD~1"], 0);
    let changed: Vec<&str> = v["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["node_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        changed,
        [
            "func:app.py::change",
            "func:app.py::gone",
            "func:app.py::fresh",
            "func:extra.py::more"
        ]
    );
}

#[test]
fn diff_outside_a_repository_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "def f():\n    pass\n").unwrap();
    let db = dir.path().join("index.db");
    let out = common::run(&[
        "impact",
        "--diff",
        "--root",
        dir.path().to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("not a git repository: {}", dir.path().display())),
        "{err}"
    );
}
