//! Precise mode: `index --scip FILE` over `fixtures/scip-app` (see its README for the
//! expected edges). The SCIP indexes are built here with the `scip` crate's types; their
//! occurrences are the ones scip-python 0.6.6 and scip-typescript 0.4.0 wrote for the
//! fixture (ranges 0-based `[line, start, end]`, UTF-16 columns, roles 1 = definition,
//! 8 = read).

mod common;

use std::path::{Path, PathBuf};

use protobuf::{Message, MessageField};
use scip::types::{Document, Index, Metadata, Occurrence, ToolInfo};
use serde_json::Value;

const PY: &str = "scip-python python scip-app 0.1 ";
const STD: &str = "scip-python python python-stdlib 3.11 ";
const TS: &str = "scip-typescript npm . . ";

fn occ(range: [i32; 3], roles: i32, symbol: &str) -> Occurrence {
    Occurrence {
        range: range.to_vec(),
        symbol: symbol.to_string(),
        symbol_roles: roles,
        ..Occurrence::default()
    }
}

fn doc(path: &str, occurrences: Vec<Occurrence>) -> Document {
    Document {
        relative_path: path.to_string(),
        language: String::new(),
        occurrences,
        ..Document::default()
    }
}

fn index(tool: &str, project_root: &Path, documents: Vec<Document>) -> Index {
    Index {
        metadata: MessageField::some(Metadata {
            tool_info: MessageField::some(ToolInfo {
                name: tool.to_string(),
                version: "test".to_string(),
                ..ToolInfo::default()
            }),
            project_root: format!("file://{}", project_root.display()),
            ..Metadata::default()
        }),
        documents,
        ..Index::default()
    }
}

/// What scip-python wrote for `app.py` and `shapes.py`.
fn python_index(root: &Path) -> Index {
    let p = |s: &str| format!("{PY}{s}");
    let app = doc(
        "app.py",
        vec![
            occ([0, 0, 0], 1, &p("app/__init__:")),
            occ([0, 5, 11], 8, &p("shapes/__init__:")),
            occ([0, 19, 25], 8, &p("shapes/Square#")),
            occ([3, 4, 9], 1, &p("app/total().")),
            occ([3, 10, 15], 1, &p("app/total().(items)")),
            occ([3, 17, 21], 8, &format!("{STD}builtins/list#")),
            occ([3, 22, 28], 8, &p("shapes/Square#")),
            occ([4, 11, 14], 8, &format!("{STD}builtins/sum().")),
            occ([4, 15, 19], 8, "local 0"),
            occ([4, 20, 24], 8, &p("shapes/Square#area().")),
            occ([4, 31, 35], 1, "local 0"),
            occ([4, 39, 44], 8, &p("app/total().(items)")),
            occ([7, 4, 8], 1, &p("app/main().")),
            occ([8, 4, 6], 1, "local 1"),
            occ([8, 9, 15], 8, &p("shapes/Square#")),
            occ([9, 11, 16], 8, &p("app/total().")),
            occ([9, 18, 20], 8, "local 1"),
            occ([9, 25, 28], 8, "local 2"),
            occ([9, 30, 32], 8, "local 1"),
        ],
    );
    let shapes = doc(
        "shapes.py",
        vec![
            occ([0, 0, 0], 1, &p("shapes/__init__:")),
            occ([0, 6, 11], 1, &p("shapes/Shape#")),
            occ([1, 8, 16], 1, &p("shapes/Shape#__init__().")),
            occ([1, 17, 21], 1, &p("shapes/Shape#__init__().(self)")),
            occ([1, 23, 27], 1, &p("shapes/Shape#__init__().(name)")),
            occ([2, 8, 12], 8, &p("shapes/Shape#__init__().(self)")),
            occ([2, 13, 17], 1, &p("shapes/Shape#name.")),
            occ([2, 20, 24], 8, &p("shapes/Shape#__init__().(name)")),
            occ([4, 8, 12], 1, &p("shapes/Shape#area().")),
            occ([4, 13, 17], 1, &p("shapes/Shape#area().(self)")),
            occ([8, 6, 12], 1, &p("shapes/Square#")),
            occ([8, 13, 18], 8, &p("shapes/Shape#")),
            occ([9, 8, 16], 1, &p("shapes/Square#__init__().")),
            occ([9, 17, 21], 1, &p("shapes/Square#__init__().(self)")),
            occ([9, 23, 27], 1, &p("shapes/Square#__init__().(side)")),
            occ([10, 8, 13], 8, &format!("{STD}builtins/super#")),
            occ([10, 16, 24], 8, &p("shapes/Shape#__init__().")),
            occ([11, 8, 12], 8, &p("shapes/Square#__init__().(self)")),
            occ([11, 13, 17], 1, &p("shapes/Square#side.")),
            occ([11, 20, 24], 8, &p("shapes/Square#__init__().(side)")),
            occ([13, 8, 12], 1, &p("shapes/Square#area().")),
            occ([13, 13, 17], 1, &p("shapes/Square#area().(self)")),
            occ([14, 15, 19], 8, &p("shapes/Square#area().(self)")),
            occ([14, 20, 24], 8, &p("shapes/Square#side.")),
            occ([14, 27, 31], 8, &p("shapes/Square#area().(self)")),
            occ([14, 32, 36], 8, &p("shapes/Square#side.")),
        ],
    );
    let factory = doc(
        "factory.py",
        vec![
            occ([0, 0, 0], 1, &p("factory/__init__:")),
            occ([0, 5, 11], 8, &p("shapes/__init__:")),
            occ([0, 19, 25], 8, &p("shapes/Square#")),
            occ([2, 0, 10], 1, &p("factory/MakeSquare.")),
            occ([2, 13, 19], 8, &p("shapes/Square#")),
            occ([5, 6, 10], 1, &p("factory/Unit#")),
            occ([5, 11, 17], 8, &p("shapes/Square#")),
            occ([6, 5, 16], 8, &format!("{STD}builtins/classmethod#")),
            occ([7, 8, 12], 1, &p("factory/Unit#make().")),
            occ([7, 13, 16], 1, &p("factory/Unit#make().(cls)")),
            occ([8, 15, 18], 8, &p("factory/Unit#make().(cls)")),
            occ([11, 4, 9], 1, &p("factory/build().")),
            occ([12, 11, 21], 8, &p("factory/MakeSquare.")),
        ],
    );
    index("scip-python", root, vec![app, factory, shapes])
}

/// What scip-typescript wrote for `web/` (run in `web/`, so paths are relative to it).
fn typescript_index(root: &Path) -> Index {
    let t = |s: &str| format!("{TS}{s}");
    let counter = doc(
        "counter.ts",
        vec![
            occ([0, 0, 0], 1, &t("`counter.ts`/")),
            occ([0, 13, 20], 1, &t("`counter.ts`/Counter#")),
            occ([1, 2, 13], 1, &t("`counter.ts`/Counter#`<constructor>`().")),
            occ(
                [1, 22, 23],
                1,
                &t("`counter.ts`/Counter#`<constructor>`().(n)"),
            ),
            occ([3, 2, 6], 1, &t("`counter.ts`/Counter#next().")),
            occ(
                [4, 16, 17],
                0,
                &t("`counter.ts`/Counter#`<constructor>`().(n)"),
            ),
        ],
    );
    let main = doc(
        "main.ts",
        vec![
            occ([0, 0, 0], 1, &t("`main.ts`/")),
            occ([0, 9, 16], 0, &t("`counter.ts`/Counter#")),
            occ([0, 24, 35], 0, &t("`counter.ts`/")),
            occ([2, 16, 21], 1, &t("`main.ts`/start().")),
            occ([2, 22, 26], 1, &t("`main.ts`/start().(make)")),
            occ([2, 34, 41], 0, &t("`counter.ts`/Counter#")),
            occ([3, 8, 9], 1, "local 2"),
            occ(
                [3, 16, 23],
                0,
                &t("`counter.ts`/Counter#`<constructor>`()."),
            ),
            occ([4, 9, 10], 0, "local 2"),
            occ([4, 11, 15], 0, &t("`counter.ts`/Counter#next().")),
            occ([4, 20, 24], 0, &t("`main.ts`/start().(make)")),
            occ([4, 27, 31], 0, &t("`counter.ts`/Counter#next().")),
        ],
    );
    index("scip-typescript", &root.join("web"), vec![counter, main])
}

fn write(index: &Index, path: &Path) {
    std::fs::write(path, index.write_to_bytes().unwrap()).unwrap();
}

/// A copy of the fixture with both SCIP files beside it: (temp dir, root, db, python
/// SCIP file, TypeScript SCIP file).
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf, PathBuf) {
    let (dir, root) = common::fixture_copy("scip-app");
    let root = root.canonicalize().unwrap();
    let py = dir.path().join("py.scip");
    let ts = dir.path().join("ts.scip");
    write(&python_index(&root), &py);
    write(&typescript_index(&root), &ts);
    let db = dir.path().join("index.db");
    (dir, root, db, py, ts)
}

fn sql(root: &Path, db: &Path, query: &str) -> Vec<Value> {
    common::run_ok(&[
        "sql",
        "--db",
        db.to_str().unwrap(),
        root.to_str().unwrap(),
        query,
        "--json",
    ])
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect()
}

/// Every call and base edge as `caller_path:line caller -> callee (provenance)`.
fn edges(root: &Path, db: &Path) -> Vec<String> {
    sql(
        root,
        db,
        "SELECT sf.path || ':' || e.line || ' ' || s.qualified_name || ' -' || e.kind || '-> '
                || d.qualified_name || ' (' || e.provenance || ')' AS edge
         FROM edges e JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
         JOIN nodes d ON d.id = e.dst_id
         WHERE e.kind IN ('calls', 'inherits', 'implements')
         ORDER BY sf.path, e.line, edge",
    )
    .into_iter()
    .map(|v| v["edge"].as_str().unwrap().to_string())
    .collect()
}

/// Call references as `path:line name status`.
fn call_statuses(root: &Path, db: &Path) -> Vec<String> {
    sql(
        root,
        db,
        "SELECT f.path || ':' || r.line || ' ' || r.name || ' ' || r.status AS s
         FROM refs r JOIN files f ON f.id = r.file_id WHERE r.kind = 'call'
         ORDER BY f.path, r.line, r.col",
    )
    .into_iter()
    .map(|v| v["s"].as_str().unwrap().to_string())
    .collect()
}

fn index_scip(root: &Path, db: &Path, scip: &[&Path]) -> std::process::Output {
    let mut args = vec![
        "index".to_string(),
        root.to_str().unwrap().to_string(),
        "--db".to_string(),
        db.to_str().unwrap().to_string(),
        "--json".to_string(),
    ];
    for s in scip {
        args.push("--scip".to_string());
        args.push(s.to_str().unwrap().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::run(&args)
}

fn ok_json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "index failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const PRECISE: &[&str] = &[
    "app.py:5 total -calls-> Square::area (scip)",
    "app.py:9 main -calls-> Square (scip)",
    "app.py:10 main -calls-> total (scip)",
    "factory.py:6 Unit -inherits-> Square (scip)",
    "factory.py:9 Unit::make -calls-> Unit (self)",
    "factory.py:13 build -calls-> Square (scip)",
    "shapes.py:9 Square -inherits-> Shape (scip)",
    "shapes.py:11 Square::__init__ -calls-> Shape::__init__ (scip)",
    "web/main.ts:4 start -calls-> Counter (scip)",
    "web/main.ts:5 start -calls-> Counter::next (scip)",
    "web/main.ts:5 start -calls-> Counter::next (scip)",
];

#[test]
fn scip_edges_replace_the_heuristic_ones() {
    let (_d, root, db, py, ts) = setup();
    // Heuristics alone first (README: what they find and miss).
    common::index_json(&root, &db, &[]);
    let heuristic = edges(&root, &db);
    assert!(
        !heuristic.iter().any(|e| e.contains("(scip)")),
        "{heuristic:#?}"
    );
    assert!(
        heuristic
            .iter()
            .any(|e| e == "factory.py:13 build -calls-> Square (import)"),
        "MakeSquare(3): the rules follow the module-level alias `MakeSquare = Square`: \
         {heuristic:#?}"
    );
    assert!(
        !heuristic.iter().any(|e| e.starts_with("app.py:5 ")),
        "item.area() has a receiver the rules cannot type: {heuristic:#?}"
    );

    let report = ok_json(&index_scip(&root, &db, &[&py, &ts]));
    let s = &report["scip"];
    assert_eq!(s["indexes"], 2, "{report}");
    assert_eq!(s["documents"], 5, "{report}");
    assert_eq!(s["filesApplied"], 5, "{report}");
    assert_eq!(s["filesStale"], 0, "{report}");
    assert_eq!(s["filesUncovered"], 0, "{report}");
    assert_eq!(s["refsResolved"], 10, "{report}");
    assert_eq!(
        s["refsKept"], 1,
        "cls(1): SCIP names a parameter, the rule its value: {report}"
    );
    assert_eq!(s["refsExternal"], 3, "sum(), len(), super(): {report}");
    assert_eq!(s["refsLocal"], 1, "make(): a parameter: {report}");
    assert_eq!(report["changed"], true, "{report}");

    assert_eq!(edges(&root, &db), PRECISE);
    let statuses = call_statuses(&root, &db);
    for expected in [
        "app.py:5 sum external",
        "app.py:10 len external",
        "web/main.ts:5 make unresolved",
    ] {
        assert!(
            statuses.iter().any(|s| s == expected),
            "{expected}: {statuses:#?}"
        );
    }
    let conf = sql(
        &root,
        &db,
        "SELECT DISTINCT confidence FROM edges WHERE provenance = 'scip'",
    );
    assert_eq!(conf, [serde_json::json!({"confidence": 1.0})]);
    let covered = sql(
        &root,
        &db,
        "SELECT f.path, s.tool, s.refs FROM scip_files s JOIN files f ON f.id = s.file_id ORDER BY f.path",
    );
    assert_eq!(covered.len(), 5, "{covered:?}");
    assert_eq!(covered[0]["tool"], "scip-python test");

    // The same SCIP files again on an unchanged tree: nothing moves.
    let again = ok_json(&index_scip(&root, &db, &[&py, &ts]));
    assert_eq!(again["scip"]["refsChanged"], 0, "{again}");
    assert_eq!(again["changed"], false, "{again}");
    assert_eq!(again["generation"], report["generation"], "{again}");
    assert_eq!(edges(&root, &db), PRECISE);
}

#[test]
fn a_stale_document_is_skipped_with_a_warning() {
    let (_d, root, db, py, ts) = setup();
    // Edited after the SCIP index was made: every definition moved down a line.
    let app = root.join("app.py");
    let text = std::fs::read_to_string(&app).unwrap();
    std::fs::write(&app, format!("import os\n{text}")).unwrap();

    let out = index_scip(&root, &db, &[&py, &ts]);
    let report = ok_json(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no longer match") && stderr.contains("app.py"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 files of the languages the SCIP indexes cover (python 1)"),
        "{stderr}"
    );
    assert_eq!(report["scip"]["filesStale"], 1, "{report}");
    assert_eq!(report["scip"]["filesApplied"], 4, "{report}");

    let all = edges(&root, &db);
    // app.py keeps the heuristic edges (one line lower now); shapes.py and web/ are precise.
    let app_edges: Vec<&String> = all.iter().filter(|e| e.starts_with("app.py:")).collect();
    assert!(!app_edges.is_empty(), "{all:#?}");
    assert!(app_edges.iter().all(|e| !e.ends_with("(scip)")), "{all:#?}");
    assert!(
        all.contains(&"shapes.py:11 Square::__init__ -calls-> Shape::__init__ (scip)".to_string()),
        "{all:#?}"
    );
    assert!(
        all.contains(&"web/main.ts:4 start -calls-> Counter (scip)".to_string()),
        "{all:#?}"
    );
}

#[test]
fn an_unusable_scip_file_fails_the_run_and_leaves_the_database() {
    let (dir, root, db, _py, _ts) = setup();
    common::index_json(&root, &db, &[]);
    let before = edges(&root, &db);
    let generation = sql(
        &root,
        &db,
        "SELECT value FROM meta WHERE key = 'generation'",
    );

    let garbage = dir.path().join("garbage.scip");
    std::fs::write(&garbage, b"\xff\xff\xff\xff not protobuf at all").unwrap();
    let missing = dir.path().join("missing.scip");
    let empty = dir.path().join("empty.scip");
    std::fs::write(&empty, b"").unwrap();
    for (file, says) in [
        (&garbage, "is not a usable SCIP index"),
        (&missing, "cannot read the SCIP index"),
        (&empty, "holds no documents"),
    ] {
        let out = index_scip(&root, &db, &[file]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(says) && stderr.contains(file.to_str().unwrap()),
            "{stderr}"
        );
    }
    assert_eq!(edges(&root, &db), before);
    assert_eq!(
        sql(
            &root,
            &db,
            "SELECT value FROM meta WHERE key = 'generation'"
        ),
        generation
    );
    assert_eq!(
        sql(&root, &db, "SELECT count(*) AS n FROM scip_files"),
        [serde_json::json!({"n": 0})]
    );

    // Nor is a new database created by a run that fails that way.
    let fresh = dir.path().join("fresh.db");
    let out = index_scip(&root, &fresh, &[&garbage]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!fresh.exists());
}

#[test]
fn a_later_run_without_scip_keeps_what_did_not_change() {
    let (_d, root, db, py, ts) = setup();
    ok_json(&index_scip(&root, &db, &[&py, &ts]));
    assert_eq!(edges(&root, &db), PRECISE);

    // shapes.py gains a line at the top: re-parsed, so its own references are resolved
    // again by the heuristic rules. Its symbols keep their keys, and so their nodes:
    // the references of other files into them keep their SCIP edges.
    let shapes = root.join("shapes.py");
    let text = std::fs::read_to_string(&shapes).unwrap();
    std::fs::write(&shapes, format!("# shapes\n{text}")).unwrap();
    let out = common::run(&[
        "index",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--json",
    ]);
    let report = ok_json(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("resolved again by the heuristic rules"),
        "{stderr}"
    );
    let dropped = report["scipEdgesDropped"].as_i64().unwrap();
    // shapes.py's own two (the base and super().__init__).
    assert_eq!(dropped, 2, "{report}");
    let all = edges(&root, &db);
    // Unchanged: app.py's and factory.py's calls (item.area(), Square(2),
    // MakeSquare(3), factory.py's base: into symbols that kept their keys), and all
    // of web/.
    for kept in [
        "app.py:5 total -calls-> Square::area (scip)",
        "app.py:9 main -calls-> Square (scip)",
        "app.py:10 main -calls-> total (scip)",
        "factory.py:6 Unit -inherits-> Square (scip)",
        "factory.py:13 build -calls-> Square (scip)",
        "web/main.ts:4 start -calls-> Counter (scip)",
    ] {
        assert!(all.contains(&kept.to_string()), "{kept}: {all:#?}");
    }
    assert!(
        !all.iter()
            .any(|e| e.starts_with("shapes.py") && e.ends_with("(scip)")),
        "{all:#?}"
    );
    let covered = sql(
        &root,
        &db,
        "SELECT f.path FROM scip_files s JOIN files f ON f.id = s.file_id ORDER BY f.path",
    );
    let covered: Vec<&str> = covered
        .iter()
        .map(|v| v["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        covered,
        ["app.py", "factory.py", "web/counter.ts", "web/main.ts"]
    );

    // The old SCIP index again: shapes.py no longer matches it, the rest does; a
    // reference into the stale document keeps the outcome it has (here the SCIP edge
    // the run above kept, into a symbol whose key stayed).
    let out = index_scip(&root, &db, &[&py, &ts]);
    let report = ok_json(&out);
    assert_eq!(report["scip"]["filesStale"], 1, "{report}");
    let all = edges(&root, &db);
    assert!(
        all.contains(&"app.py:9 main -calls-> Square (scip)".to_string()),
        "{all:#?}"
    );
    assert!(
        all.contains(&"app.py:10 main -calls-> total (scip)".to_string()),
        "{all:#?}"
    );
}
