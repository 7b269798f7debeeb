//! Seed 004 over MCP against the real binary: file_info / report_file_info,
//! folder_info / report_folder_info, inspect_source, set_workspace_root, open_window,
//! query_index, and path security. Expected answers: fixtures/docs-app/README.md.

mod common;

use std::path::Path;

use common::mcp::{handshake, Client};
use serde_json::{json, Value};

/// Calls a tool that must succeed; returns its structuredContent.
fn ok(c: &mut Client, name: &str, args: Value) -> Value {
    let r = c.call(name, args.clone());
    assert_ne!(r["isError"], json!(true), "{name} {args}: {r}");
    let s = r["structuredContent"].clone();
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, s, "text and structuredContent carry the same JSON");
    s
}

/// Calls a tool that must fail; returns the error text.
fn err(c: &mut Client, name: &str, args: Value) -> String {
    let r = c.call(name, args.clone());
    assert_eq!(r["isError"], json!(true), "{name} {args} should fail: {r}");
    r["content"][0]["text"].as_str().unwrap().to_string()
}

fn start(root: &Path) -> Client {
    let db = root.parent().unwrap().join("docs.db");
    let mut c = Client::start(root, &db);
    handshake(&mut c);
    c
}

/// `[name, start, end, [caller@path:line, ...]]` of every function of a file_info answer.
fn functions(info: &Value) -> Vec<(String, i64, i64, Vec<String>)> {
    info["structure"]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["qualifiedName"].as_str().unwrap().to_string(),
                f["startLine"].as_i64().unwrap(),
                f["endLine"].as_i64().unwrap(),
                f["callers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| {
                        format!(
                            "{}@{}:{}",
                            c["caller"].as_str().unwrap(),
                            c["path"].as_str().unwrap(),
                            c["line"]
                        )
                    })
                    .chain(
                        // Resolved calls whose rule is below the default min_confidence.
                        f["callersBelowMinConfidence"]
                            .as_u64()
                            .filter(|&n| n > 0)
                            .map(|n| format!("{n} below min_confidence")),
                    )
                    .collect(),
            )
        })
        .collect()
}

const EXPECTED_SHAPES_MD: &str = r#"# geo/shapes.py

## Overview

Defines shapes and computes their areas.

**Inputs**: Lengths in metres or centimetres.
**Outputs**: Areas in square metres.
**Connections**: Called by `app.py::main`; imported by `app.py`, `geo/__init__.py`; imports `geo/units.py`

---

## Functions

### `def square(x)`

**Purpose**: Squares a number.

**Implementation Summary**:
- Multiplies x by itself.

**Called by:**
- `main` in `app.py`
- `circle_area` in `geo/shapes.py`

---

### `def circle_area(radius)`

**Purpose**: Area of a circle of the given radius.

**Implementation Summary**:
- Returns pi times the square of the radius.

**Called by:**
- `Circle::area` in `geo/shapes.py`

---

## Classes

### `Circle`

**Purpose**: A circle whose radius is kept in metres.

#### Methods

##### `def __init__(self, radius, unit="m")`

(not documented in the last report)

##### `def area(self)`

The circle's area.

**Implementation Summary**:
- Calls circle_area with the radius.

**Called by:**
- `main` in `app.py`

---
"#;

fn shapes_report() -> Value {
    json!({
        "path": "geo/shapes.py",
        "overview": "Defines shapes and computes their areas.",
        "inputs": "Lengths in metres or centimetres.",
        "outputs": "Areas in square metres.",
        "functions": [
            {"name": "square", "purpose": "Squares a number.", "implementation": "- Multiplies x by itself."},
            {"name": "circle_area", "purpose": "Area of a circle of the given radius.", "implementation": "- Returns pi times the square of the radius."},
            {"name": "Circle", "purpose": "A circle whose radius is kept in metres.", "implementation": ""},
            {"name": "Circle.area", "purpose": "The circle's area.", "implementation": "- Calls circle_area with the radius."}
        ]
    })
}

#[test]
fn file_info_structure_prompt_and_report_round_trip() {
    let (_dir, root) = common::fixture_copy("docs-app");
    let mut c = start(&root);

    let info = ok(&mut c, "file_info", json!({"path": "geo/shapes.py"}));
    assert_eq!(info["status"], "prompt_ready");
    assert_eq!(info["callbackTool"], "report_file_info");
    assert_eq!(info["path"], "geo/shapes.py");
    assert_eq!(info["sourceTruncated"], false);
    assert_eq!(info["existingDoc"], Value::Null);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        functions(&info),
        vec![
            (
                "square".into(),
                8,
                9,
                s(&["main@app.py:8", "circle_area@geo/shapes.py:13"])
            ),
            (
                "circle_area".into(),
                12,
                13,
                s(&["Circle::area@geo/shapes.py:21"])
            ),
            ("Circle::__init__".into(), 17, 18, vec![]),
            // `c.area()` on `c = Circle(2)`: a typed receiver (rule `typed`, 0.98).
            ("Circle::area".into(), 20, 21, s(&["main@app.py:8"])),
        ]
    );
    let st = &info["structure"];
    assert_eq!(st["classes"][0]["name"], "Circle");
    assert_eq!(st["classes"][0]["methods"], json!(["__init__", "area"]));
    assert_eq!(
        (
            st["classes"][0]["startLine"].as_i64(),
            st["classes"][0]["endLine"].as_i64()
        ),
        (Some(16), Some(21))
    );
    assert_eq!(st["functions"][2]["class"], "Circle");
    assert_eq!(st["imports"][0]["specifier"], "math");
    assert_eq!(st["imports"][1]["resolvedPath"], "geo/units.py");
    assert_eq!(st["importedBy"], json!(["app.py", "geo/__init__.py"]));
    let prompt = info["promptForHostLLM"].as_str().unwrap();
    for part in [
        "You are a Code Documentation Assistant.",
        "I have extracted the following structure for file: \"geo/shapes.py\"",
        "## Structural Info:",
        "## Source Code:",
        "def circle_area(radius):\n    return math.pi * square(radius)",
        "## Task:",
        "3. Call `report_file_info` with your enriched documentation.",
        "`Circle::area` in `geo/shapes.py` (line 21)",
    ] {
        assert!(prompt.contains(part), "prompt lacks {part:?}:\n{prompt}");
    }

    // A report naming something the file does not define is refused; nothing written.
    let mut bad = shapes_report();
    bad["functions"][0]["name"] = json!("nope");
    let e = err(&mut c, "report_file_info", bad);
    assert!(
        e.starts_with("invalid_argument:") && e.contains("nope"),
        "{e}"
    );
    let md_path = root.join(".artifacts/src/geo/shapes.py.md");
    assert!(!md_path.exists());

    let saved = ok(&mut c, "report_file_info", shapes_report());
    assert_eq!(saved["status"], "saved");
    assert_eq!(saved["artifactPath"], ".artifacts/src/geo/shapes.py.md");
    assert_eq!(saved["undocumented"], json!(["Circle::__init__"]));
    let on_disk = std::fs::read_to_string(&md_path).unwrap();
    assert_eq!(on_disk, EXPECTED_SHAPES_MD);
    assert_eq!(saved["markdown"], json!(EXPECTED_SHAPES_MD));

    // The file_docs row holds the same document and the file's digest.
    let row = ok(
        &mut c,
        "query_index",
        json!({"sql": "SELECT d.kind, d.path, d.markdown, d.artifact_path, d.digest = f.digest FROM file_docs d JOIN files f ON f.path = d.path"}),
    );
    assert_eq!(
        row["rows"],
        json!([[
            "file",
            "geo/shapes.py",
            EXPECTED_SHAPES_MD,
            ".artifacts/src/geo/shapes.py.md",
            1
        ]])
    );

    // Fresh now, stale once the source changes.
    let info = ok(&mut c, "file_info", json!({"path": "geo/shapes.py"}));
    assert_eq!(info["existingDoc"]["stale"], false);
    assert!(info["promptForHostLLM"]
        .as_str()
        .unwrap()
        .contains("## Existing Documentation (up to date"));
    let src = root.join("geo/shapes.py");
    let mut text = std::fs::read_to_string(&src).unwrap();
    text.push_str("\n\ndef cube(x):\n    return x * square(x)\n");
    std::fs::write(&src, text).unwrap();
    let info = ok(&mut c, "file_info", json!({"path": "geo/shapes.py"}));
    assert_eq!(info["existingDoc"]["stale"], true);
    assert_eq!(info["existingDoc"]["markdown"], json!(EXPECTED_SHAPES_MD));
    assert_ne!(
        info["existingDoc"]["savedDigest"],
        info["existingDoc"]["currentDigest"]
    );
    assert!(info["promptForHostLLM"].as_str().unwrap().contains("STALE"));
    // The new function was indexed before answering.
    assert_eq!(functions(&info).last().unwrap().0, "cube");
}

#[test]
fn folder_info_roles_edges_and_report() {
    let (_dir, root) = common::fixture_copy("docs-app");
    let mut c = start(&root);
    let info = ok(&mut c, "folder_info", json!({"path": "geo"}));
    assert_eq!(info["status"], "prompt_ready");
    assert_eq!(info["callbackTool"], "report_folder_info");
    let st = &info["structure"];
    let roles: Vec<(String, String, i64, i64)> = st["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["role"].as_str().unwrap().into(),
                f["functions"].as_i64().unwrap(),
                f["classes"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        roles,
        vec![
            ("geo/__init__.py".into(), "entry point".into(), 0, 0),
            ("geo/shapes.py".into(), "public interface".into(), 4, 1),
            ("geo/units.py".into(), "internal module".into(), 1, 0),
        ]
    );
    assert_eq!(
        st["importsIn"],
        json!([{"from": "app.py", "to": "geo/shapes.py"}])
    );
    assert_eq!(st["importsOut"], json!([]));
    assert_eq!(st["internalImportsTotal"], 2);
    assert_eq!(
        st["callsIn"],
        json!([
            {"from": "app.py::main", "to": "geo/shapes.py::Circle"},
            {"from": "app.py::main", "to": "geo/shapes.py::Circle::area"},
            {"from": "app.py::main", "to": "geo/shapes.py::square"}
        ])
    );
    assert_eq!(st["callsOutTotal"], 0);
    assert_eq!(st["internalCallsTotal"], 3);

    let e = err(
        &mut c,
        "report_folder_info",
        json!({"path": "geo", "overview": "o", "architecture": "a", "key_files": [{"name": "missing.py", "summary": "s"}]}),
    );
    assert!(
        e.starts_with("invalid_argument:") && e.contains("missing.py"),
        "{e}"
    );
    let saved = ok(
        &mut c,
        "report_folder_info",
        json!({"path": "geo", "overview": "Geometry.", "inputs": "Lengths.", "outputs": "Circle, square.",
               "key_files": [{"name": "shapes.py", "summary": "Shapes."}, {"name": "geo/units.py", "summary": "Units."}],
               "architecture": "shapes uses units."}),
    );
    assert_eq!(saved["artifactPath"], ".artifacts/src/geo/README.md");
    assert_eq!(saved["undocumented"], json!(["geo/__init__.py"]));
    let md = std::fs::read_to_string(root.join(".artifacts/src/geo/README.md")).unwrap();
    assert_eq!(
        md,
        "# FOLDER: geo\n\n## Overview\n\nGeometry.\n\n**Inputs**: Lengths.\n**Outputs**: Circle, square.\n\
         **Connections**: imported by 1 files outside, imports 0 outside; 3 calls in, 0 calls out (from the index)\n\n\
         ---\n\n## Architecture\n\nshapes uses units.\n\n---\n\n## Key Files\n\n- **shapes.py**: Shapes.\n- **geo/units.py**: Units.\n\n\
         ---\n\n## Files\n\n| file | role | functions | classes |\n| --- | --- | --- | --- |\n\
         | `geo/__init__.py` | entry point | 0 | 0 |\n| `geo/shapes.py` | public interface | 4 | 1 |\n| `geo/units.py` | internal module | 1 | 0 |\n"
    );
    let again = ok(&mut c, "folder_info", json!({"path": "geo"}));
    assert_eq!(again["existingDoc"]["stale"], false);
    std::fs::write(root.join("geo/extra.py"), "def more():\n    return 1\n").unwrap();
    // The server watches the tree: the new file's event reaches it asynchronously (on
    // a loaded machine, after the next call may have answered), so ask until the run
    // it starts is in, for at most 10 s.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let again = loop {
        let again = ok(&mut c, "folder_info", json!({"path": "geo"}));
        if again["existingDoc"]["stale"] == true || std::time::Instant::now() > deadline {
            break again;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(
        again["existingDoc"]["stale"], true,
        "a new file makes the folder doc stale"
    );
    // The root folder works too.
    let whole = ok(&mut c, "folder_info", json!({"path": "."}));
    assert_eq!(whole["structure"]["filesTotal"], 6);
}

#[test]
fn inspect_source_numbers_and_caps() {
    let (_dir, root) = common::fixture_copy("docs-app");
    let mut c = start(&root);
    let r = ok(
        &mut c,
        "inspect_source",
        json!({"path": "geo/shapes.py", "startLine": 8, "endLine": 9}),
    );
    assert_eq!(r["content"], "8 | def square(x):\n9 |     return x * x\n");
    assert_eq!(r["totalLines"], 21);
    let r = ok(
        &mut c,
        "inspect_source",
        json!({"path": "geo/shapes.py", "start_line": 20, "end_line": 99}),
    );
    assert_eq!(
        r["content"],
        "20 |     def area(self):\n21 |         return circle_area(self.radius)\n"
    );
    assert_eq!(
        (r["endLine"].as_i64(), r["truncated"].as_bool()),
        (Some(21), Some(false))
    );
    let e = err(
        &mut c,
        "inspect_source",
        json!({"path": "geo/shapes.py", "startLine": 0, "endLine": 3}),
    );
    assert!(e.starts_with("invalid_argument:"), "{e}");
    let e = err(
        &mut c,
        "inspect_source",
        json!({"path": "geo", "startLine": 1, "endLine": 3}),
    );
    assert!(e.starts_with("invalid_argument:"), "{e}");
}

#[test]
fn path_arguments_cannot_leave_the_workspace() {
    let (dir, root) = common::fixture_copy("docs-app");
    std::fs::write(dir.path().join("secret.py"), "def secret():\n    pass\n").unwrap();
    std::os::unix::fs::symlink("/", root.join("rootlink")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.py"), root.join("leak.py")).unwrap();
    let mut c = start(&root);
    let abs_secret = dir.path().join("secret.py").to_string_lossy().into_owned();
    let attempts = [
        "../../etc/passwd",
        "../secret.py",
        "geo/../../secret.py",
        "/etc/passwd",
        abs_secret.as_str(),
        "rootlink",
        "rootlink/etc/passwd",
        "rootlink/etc/does-not-exist",
        "leak.py",
    ];
    for path in attempts {
        for (tool, args) in [
            ("file_info", json!({"path": path})),
            (
                "inspect_source",
                json!({"path": path, "startLine": 1, "endLine": 5}),
            ),
            ("folder_info", json!({"path": path})),
            (
                "report_file_info",
                json!({"path": path, "overview": "o", "functions": []}),
            ),
            (
                "report_folder_info",
                json!({"path": path, "overview": "o", "architecture": "a", "key_files": []}),
            ),
        ] {
            let e = err(&mut c, tool, args);
            assert!(e.starts_with("outside_workspace:"), "{tool} {path}: {e}");
        }
    }
    // A `.artifacts` link out of the root: the report is refused and nothing is written there.
    let outside = dir.path().join("elsewhere");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, root.join(".artifacts")).unwrap();
    let e = err(
        &mut c,
        "report_file_info",
        json!({"path": "geo/units.py", "overview": "o", "functions": []}),
    );
    assert!(e.starts_with("outside_workspace:"), "{e}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    let e = err(&mut c, "open_window", json!({}));
    assert!(e.starts_with("outside_workspace:"), "{e}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}

#[test]
fn query_index_reads_and_refuses_writes() {
    let (_dir, root) = common::fixture_copy("docs-app");
    let db = root.parent().unwrap().join("docs.db");
    let mut c = start(&root);
    let r = ok(
        &mut c,
        "query_index",
        json!({"sql": "SELECT caller, callee, line FROM call_edges WHERE callee_path = 'geo/shapes.py' ORDER BY caller, callee"}),
    );
    assert_eq!(r["columns"], json!(["caller", "callee", "line"]));
    assert_eq!(
        r["rows"],
        json!([
            ["Circle::area", "circle_area", 21],
            ["circle_area", "square", 13],
            ["main", "Circle", 7],
            ["main", "Circle::area", 8],
            ["main", "square", 8]
        ])
    );
    assert_eq!(r["truncated"], false);
    let r = ok(
        &mut c,
        "query_index",
        json!({"sql": "SELECT path FROM files ORDER BY path", "limit": 2}),
    );
    assert_eq!(
        (r["rowCount"].as_u64(), r["truncated"].as_bool()),
        (Some(2), Some(true))
    );
    let before = std::fs::metadata(&db).unwrap().len();
    for sql in [
        "DELETE FROM files",
        "DROP TABLE nodes",
        "INSERT INTO meta (key, value) VALUES ('k', 'v')",
        "UPDATE files SET path = 'x'",
        "CREATE TABLE t (x)",
        "PRAGMA journal_mode = DELETE",
        "ATTACH DATABASE '/tmp/constellation-attack.db' AS a",
    ] {
        let e = err(&mut c, "query_index", json!({"sql": sql}));
        assert!(e.starts_with("read_only:"), "{sql}: {e}");
    }
    assert!(!Path::new("/tmp/constellation-attack.db").exists());
    let e = err(
        &mut c,
        "query_index",
        json!({"sql": "SELECT 1; DELETE FROM files"}),
    );
    assert!(e.starts_with("invalid_sql:"), "{e}");
    let e = err(
        &mut c,
        "query_index",
        json!({"sql": "SELECT * FROM no_such_table"}),
    );
    assert!(e.starts_with("invalid_sql:"), "{e}");
    let e = err(
        &mut c,
        "query_index",
        json!({"sql": "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(*) FROM c"}),
    );
    assert!(e.starts_with("query_timeout:"), "{e}");
    let r = ok(
        &mut c,
        "query_index",
        json!({"sql": "SELECT count(*) FROM files"}),
    );
    assert_eq!(r["rows"], json!([[5]]), "nothing was deleted");
    assert!(std::fs::metadata(&db).unwrap().len() >= before);
}

#[test]
fn set_workspace_root_switches_to_the_other_index() {
    let (_dir, root) = common::fixture_copy("docs-app");
    let (_dir2, other) = common::fixture_copy("py-pkg");
    // A root the server was not started with is refused, and nothing is created there.
    let mut refused = start(&root);
    let e = err(
        &mut refused,
        "set_workspace_root",
        json!({"path": other.to_str().unwrap()}),
    );
    assert!(e.starts_with("outside_allowed_roots:"), "{e}");
    assert!(e.contains("--allow-root"), "{e}");
    let e = err(
        &mut refused,
        "inspect_source",
        json!({"path": "shop/util.py", "startLine": 1, "endLine": 1, "workspaceRoot": other.to_str().unwrap()}),
    );
    assert!(e.starts_with("outside_allowed_roots:"), "{e}");
    assert!(!other.join(".constellation").exists());
    drop(refused);

    let db = root.parent().unwrap().join("docs.db");
    let mut c = Client::start_with(&root, &db, &["--allow-root", other.to_str().unwrap()], &[]);
    handshake(&mut c);
    ok(&mut c, "file_info", json!({"path": "geo/units.py"}));
    // workspaceRoot addresses another workspace for one call.
    let one = ok(
        &mut c,
        "inspect_source",
        json!({"path": "shop/util.py", "startLine": 1, "endLine": 1, "workspaceRoot": other.to_str().unwrap()}),
    );
    assert_eq!(one["path"], "shop/util.py");
    let e = err(&mut c, "file_info", json!({"path": "shop/cart.py"}));
    assert!(
        e.starts_with("not_found:"),
        "still the first workspace: {e}"
    );

    let r = ok(
        &mut c,
        "set_workspace_root",
        json!({"path": other.to_str().unwrap()}),
    );
    let canonical = other.canonicalize().unwrap();
    assert_eq!(r["workspaceRoot"], json!(canonical.to_str().unwrap()));
    assert_eq!(
        r["database"],
        json!(canonical.join(".constellation/index.db").to_str().unwrap())
    );
    assert!(r["filesSeen"].as_u64().unwrap() >= 12);
    assert!(canonical.join(".constellation/index.db").exists());
    let info = ok(&mut c, "file_info", json!({"path": "shop/cart.py"}));
    assert_eq!(info["structure"]["classes"][1]["name"], "Cart");
    let q = ok(
        &mut c,
        "query_index",
        json!({"sql": "SELECT count(*) FROM files WHERE path LIKE 'shop/%'"}),
    );
    assert_eq!(q["rows"], json!([[10]]));
    // And back: the first workspace keeps its own database (--db).
    ok(
        &mut c,
        "set_workspace_root",
        json!({"path": root.to_str().unwrap()}),
    );
    ok(&mut c, "file_info", json!({"path": "geo/units.py"}));
    assert!(
        !root.join(".constellation").exists(),
        "the first workspace kept its --db file"
    );
    let e = err(
        &mut c,
        "set_workspace_root",
        json!({"path": "/no/such/dir"}),
    );
    assert!(e.starts_with("outside_allowed_roots:"), "{e}");
    let e = err(
        &mut c,
        "set_workspace_root",
        json!({"path": other.join("no/such/dir").to_str().unwrap()}),
    );
    assert!(e.starts_with("not_found:"), "{e}");
}

#[test]
fn file_info_errors_are_clear() {
    let (_dir, root) = common::fixture_copy("docs-app");
    std::fs::write(root.join("blob.bin"), b"\x00\x01\x02binary").unwrap();
    std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
    std::fs::write(root.join("node_modules/x/index.js"), "function f() {}\n").unwrap();
    let mut c = start(&root);
    let e = err(&mut c, "file_info", json!({"path": "blob.bin"}));
    assert!(
        e.starts_with("unsupported_file:") && e.contains("binary"),
        "{e}"
    );
    let e = err(
        &mut c,
        "file_info",
        json!({"path": "node_modules/x/index.js"}),
    );
    assert!(
        e.starts_with("unsupported_file:") && e.contains("not in the index"),
        "{e}"
    );
    let e = err(&mut c, "file_info", json!({"path": "geo"}));
    assert!(
        e.starts_with("invalid_argument:") && e.contains("folder_info"),
        "{e}"
    );
    let e = err(&mut c, "file_info", json!({"path": "missing.py"}));
    assert!(e.starts_with("not_found:"), "{e}");
    let e = err(&mut c, "file_info", json!({"file": "app.py"}));
    assert!(e.starts_with("invalid_argument:"), "{e}");
    // A new file, not yet indexed, is indexed first.
    std::fs::write(root.join("late.py"), "def late():\n    return 1\n").unwrap();
    let info = ok(&mut c, "file_info", json!({"path": "late.py"}));
    assert_eq!(functions(&info), vec![("late".to_string(), 1, 2, vec![])]);
}

#[test]
fn open_window_writes_a_self_contained_page() {
    let (_dir, root) = common::fixture_copy("docs-app");
    let mut c = start(&root);
    let r = ok(&mut c, "open_window", json!({}));
    let path = root.canonicalize().unwrap().join(".artifacts/graph.html");
    assert_eq!(r["path"], json!(path.to_str().unwrap()));
    assert_eq!(r["url"], json!(format!("file://{}", path.display())));
    let st = &r["stats"];
    assert_eq!(
        (
            st["nodesDrawn"].as_u64(),
            st["edgesDrawn"].as_u64(),
            st["cycleNodesDrawn"].as_u64(),
            st["truncated"].as_bool()
        ),
        (Some(4), Some(3), Some(0), Some(false))
    );
    let html = std::fs::read_to_string(&path).unwrap();
    assert_eq!(html.matches("<g class=\"node").count(), 4);
    for p in ["app.py", "geo/__init__.py", "geo/shapes.py", "geo/units.py"] {
        assert!(html.contains(&format!("data-path=\"{p}\"")), "{p}");
    }
    assert!(html.contains("id=\"search\""));
    assert!(
        !html.contains("<script src") && !html.contains("<link "),
        "everything inlined"
    );
    let e = err(&mut c, "open_window", json!({"maxNodes": 0}));
    assert!(e.starts_with("invalid_argument:"), "{e}");
}

#[cfg(unix)]
#[test]
fn open_window_writes_a_page_others_can_read_like_any_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, root) = common::fixture_copy("docs-app");
    let mut c = start(&root);
    let r = ok(&mut c, "open_window", json!({}));
    let page = Path::new(r["path"].as_str().unwrap());
    // A file created the ordinary way, under the same umask (the server inherits it).
    let plain = root.join(".artifacts/plain.txt");
    std::fs::write(&plain, "").unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        format!("{:o}", mode(page)),
        format!("{:o}", mode(&plain)),
        "the page has the mode of any new file (0644 under umask 022), not 0600"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_named_like_source_is_refused_at_once_by_every_reading_tool() {
    let (_dir, root) = common::fixture_copy("docs-app");
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("geo/pipe.py"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let mut c = start(&root);
    let started = std::time::Instant::now();
    for (tool, args) in [
        (
            "inspect_source",
            json!({"path": "geo/pipe.py", "startLine": 1, "endLine": 2}),
        ),
        ("file_info", json!({"path": "geo/pipe.py"})),
    ] {
        let e = err(&mut c, tool, args);
        assert!(e.contains("not a regular file"), "{tool}: {e}");
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "answered at once, not after a hang"
    );
    // The index skipped it: the walk lists only regular files.
    let r = ok(
        &mut c,
        "inspect_source",
        json!({"path": "geo/shapes.py", "startLine": 1, "endLine": 1}),
    );
    assert_eq!(r["totalLines"], 21);
}

/// A file of 1,500 functions, each called from another file: the whole answer would be
/// about 90,000 tokens. Within the default budget (8,000) the structure is cut step by
/// step and the source to what is left, and the answer says what was cut and how to
/// read the rest; a budget too small for even the smallest structure is refused with
/// the budget that would do.
#[test]
fn file_info_fits_its_token_budget() {
    let (_dir, root) = common::fixture_copy("docs-app");
    let body: String = (0..1500)
        .map(|i| format!("def function_number_{i}(argument_a, argument_b):\n    return argument_a + argument_b + {i}\n\n"))
        .collect();
    std::fs::write(root.join("big.py"), body).unwrap();
    let calls: String = (0..1500)
        .map(|i| format!("    big.function_number_{i}(1, 2)\n"))
        .collect();
    std::fs::write(
        root.join("uses_big.py"),
        format!("import big\n\ndef use_all():\n{calls}"),
    )
    .unwrap();
    let mut c = start(&root);
    let info = ok(&mut c, "file_info", json!({"path": "big.py"}));
    let tokens = info["tokens"].as_u64().unwrap();
    assert!(tokens <= 8000, "{tokens}");
    assert_eq!(info["sourceTruncated"], json!(true));
    let note = info["note"].as_str().unwrap();
    assert!(note.contains("budget_tokens 8000"), "{note}");
    assert!(info["promptForHostLLM"]
        .as_str()
        .unwrap()
        .contains("inspect_source"));
    let wide = ok(
        &mut c,
        "file_info",
        json!({"path": "big.py", "budget_tokens": 20000}),
    );
    assert!(wide["tokens"].as_u64().unwrap() <= 20000);
    assert!(wide["tokens"].as_u64().unwrap() > tokens);
    let e = err(
        &mut c,
        "file_info",
        json!({"path": "big.py", "budget_tokens": 600}),
    );
    assert!(e.starts_with("budget_too_small:"), "{e}");
    let e = err(
        &mut c,
        "file_info",
        json!({"path": "big.py", "budget_tokens": 100000}),
    );
    assert!(e.starts_with("invalid_argument:"), "{e}");
    // A small file is whole: no note.
    let small = ok(&mut c, "file_info", json!({"path": "geo/shapes.py"}));
    assert!(small.get("note").is_none(), "{small}");
    assert_eq!(small["sourceTruncated"], json!(false));
}

/// A folder of 400 files: the lists are halved until the answer fits the budget, the
/// totals keep the full counts and the note says what was cut.
#[test]
fn folder_info_fits_its_token_budget() {
    let (_dir, root) = common::fixture_copy("docs-app");
    let many = root.join("many");
    std::fs::create_dir(&many).unwrap();
    for i in 0..400 {
        std::fs::write(
            many.join(format!("module_{i}.py")),
            format!(
                "import many.module_{}\n\ndef helper_{i}():\n    return {i}\n",
                (i + 1) % 400
            ),
        )
        .unwrap();
    }
    let mut c = start(&root);
    let info = ok(
        &mut c,
        "folder_info",
        json!({"path": "many", "budget_tokens": 2000}),
    );
    assert!(
        info["tokens"].as_u64().unwrap() <= 2000,
        "{}",
        info["tokens"]
    );
    assert_eq!(info["structure"]["filesTotal"], 400);
    let listed = info["structure"]["files"].as_array().unwrap().len();
    assert!(listed < 400, "{listed}");
    let note = info["note"].as_str().unwrap();
    assert!(note.contains(&format!("{listed} of 400 files")), "{note}");
    let whole = ok(&mut c, "folder_info", json!({"path": "geo"}));
    assert!(whole.get("note").is_none(), "{whole}");
    let e = err(
        &mut c,
        "folder_info",
        json!({"path": "many", "budget_tokens": 50}),
    );
    assert!(e.starts_with("invalid_argument:"), "{e}");
}

/// report_file_info on a file of 400 functions, each documented: the answer (which
/// echoes the markdown) is cut to its budget, the markdown first, and says so; the saved
/// document is whole. A budget outside 300-20,000 is refused before anything is saved.
#[test]
fn report_answers_fit_their_token_budget() {
    let (_dir, root) = common::fixture_copy("docs-app");
    let body: String = (0..400)
        .map(|i| format!("def function_number_{i}(a, b):\n    return a + b + {i}\n\n"))
        .collect();
    std::fs::write(root.join("big.py"), body).unwrap();
    let mut c = start(&root);
    let report = |budget: Option<u64>| {
        let mut args = json!({
            "path": "big.py",
            "overview": "Four hundred small adders.",
            "functions": (0..400).map(|i| json!({
                "name": format!("function_number_{i}"),
                "purpose": format!("Adds a and b and {i}."),
                "implementation": "- returns the sum of its arguments and a constant",
            })).collect::<Vec<_>>(),
        });
        if let Some(b) = budget {
            args["budget_tokens"] = json!(b);
        }
        args
    };
    let e = err(&mut c, "report_file_info", report(Some(100)));
    assert!(e.starts_with("invalid_argument:"), "{e}");
    assert!(!root.join(".artifacts/src/big.py.md").exists());
    let tokens = |v: &Value| {
        constellation::tools::symbol_summary::count_tokens(&serde_json::to_string(v).unwrap())
    };
    let saved = ok(&mut c, "report_file_info", report(None));
    assert!(tokens(&saved) <= 2000, "{}", tokens(&saved));
    let note = saved["note"].as_str().unwrap();
    assert!(note.contains("budget_tokens 2000"), "{note}");
    let whole =
        std::fs::read_to_string(root.join(saved["artifactPath"].as_str().unwrap())).unwrap();
    assert!(whole.contains("function_number_399"));
    assert!(whole.len() > saved["markdown"].as_str().unwrap().len());
    assert!(whole.starts_with(saved["markdown"].as_str().unwrap()));
    let wide = ok(&mut c, "report_file_info", report(Some(20000)));
    assert!(tokens(&wide) <= 20000);
    assert!(wide["markdown"].as_str().unwrap().len() > saved["markdown"].as_str().unwrap().len());
}
