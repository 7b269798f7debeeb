//! Go, Java, C and C++ on their fixtures (`fixtures/go-mod`, `fixtures/java-app`,
//! `fixtures/c-lib`): the summary, every symbol, every file-level import edge, every
//! call edge and every inheritance edge must be exactly what the fixture's README
//! states (its ```json, ```symbols, ```imports, ```calls and ```bases blocks).

mod common;

use serde_json::Value;

fn readme(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name)
            .join("README.md"),
    )
    .unwrap()
}

/// The lines of the README block fenced as ```label.
fn block(readme: &str, label: &str) -> Vec<String> {
    let fence = format!("```{label}\n");
    let start = readme
        .find(&fence)
        .unwrap_or_else(|| panic!("README has a ```{label} block"))
        + fence.len();
    let end = start + readme[start..].find("```").unwrap();
    readme[start..end]
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// The rows of a query, columns joined by tabs.
fn rows(conn: &rusqlite::Connection, sql: &str) -> Vec<String> {
    let mut stmt = conn.prepare(sql).unwrap();
    let columns = stmt.column_count();
    stmt.query_map([], |row| {
        (0..columns)
            .map(|i| {
                Ok(match row.get_ref(i)? {
                    rusqlite::types::ValueRef::Null => "NULL".to_string(),
                    rusqlite::types::ValueRef::Integer(n) => n.to_string(),
                    rusqlite::types::ValueRef::Real(x) => format!("{x:.2}"),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Blob(_) => "BLOB".to_string(),
                })
            })
            .collect::<rusqlite::Result<Vec<String>>>()
            .map(|cells| cells.join("\t"))
    })
    .unwrap()
    .collect::<rusqlite::Result<Vec<String>>>()
    .unwrap()
}

/// Indexes a copy of fixture `name` through `summary --json` and checks every block of
/// its README.
fn check(name: &str) {
    let readme = readme(name);
    let (_dir, root) = common::fixture_copy(name);
    let db = root.parent().unwrap().join("index.db");
    let out = common::run_ok(&[
        "summary",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--json",
        // go-mod shows how a vendored package resolves; vendor/ is skipped by default.
        "--no-default-excludes",
    ]);
    let got: Value = serde_json::from_str(&out).unwrap();
    let want: Value = serde_json::from_str(&block(&readme, "json").join("\n")).unwrap();
    assert_eq!(got["metrics"], want["metrics"], "{name}: metrics");
    for key in ["topHubs", "circularDependencies", "orphanFiles"] {
        assert_eq!(got["insights"][key], want["insights"][key], "{name}: {key}");
    }
    // A README that lists no file loaded by name expects none.
    let by_name = match &want["insights"]["loadedByName"] {
        Value::Null => Value::Array(Vec::new()),
        v => v.clone(),
    };
    assert_eq!(
        got["insights"]["loadedByName"], by_name,
        "{name}: loadedByName"
    );

    let conn = common::open_db(&db);
    let symbols = rows(
        &conn,
        "SELECT path, start_line, end_line, kind, qualified_name FROM symbols
         ORDER BY path, start_line, qualified_name",
    );
    assert_eq!(symbols, block(&readme, "symbols"), "{name}: symbols");
    let imports = rows(
        &conn,
        "SELECT DISTINCT src_path, dst_path FROM file_imports ORDER BY 1, 2",
    );
    assert_eq!(imports, block(&readme, "imports"), "{name}: import edges");
    let calls = rows(
        &conn,
        "SELECT caller_path, line, caller, callee_path, callee, provenance FROM call_edges
         ORDER BY 1, 2, 3, 5",
    );
    assert_eq!(calls, block(&readme, "calls"), "{name}: call edges");
    let bases = rows(
        &conn,
        "SELECT sf.path, s.qualified_name, e.kind, df.path, d.qualified_name, e.provenance
         FROM edges e
         JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
         JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
         WHERE e.kind = 'inherits' OR e.kind = 'implements'
         ORDER BY 1, 2, 4, 5",
    );
    assert_eq!(bases, block(&readme, "bases"), "{name}: inheritance edges");
}

#[test]
fn go_module_matches_readme() {
    check("go-mod");
}

#[test]
fn java_app_matches_readme() {
    check("java-app");
}

#[test]
fn c_and_cpp_library_matches_readme() {
    check("c-lib");
}

/// Go qualified calls into packages outside the workspace (and methods of their
/// types) are `external`, not guessed against a workspace function of the same name.
#[test]
fn go_calls_into_external_packages_are_external() {
    let (_dir, root) = common::fixture_copy("go-mod");
    let db = root.parent().unwrap().join("index.db");
    let index = |extra: &[&str]| {
        let mut args = vec![
            "index",
            root.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        common::run_ok(&args);
    };
    index(&["--no-default-excludes"]);
    let conn = common::open_db(&db);
    let external = rows(
        &conn,
        "SELECT path, line, qualifier || '.' || name FROM unresolved_refs
         WHERE kind = 'call' AND status = 'external' AND qualifier IS NOT NULL
         ORDER BY 1, 2, 3",
    );
    // `t.Fatal`: `t` is a `*testing.T`, a type of a package outside the workspace.
    assert_eq!(
        external,
        vec![
            "cart/cart_test.go\t7\tt.Fatal",
            "main.go\t19\tfmt.Println",
            "main.go\t24\tfmt.Sprintf",
            "pricing/pricing.go\t30\tmath.Round",
        ]
    );
    drop(conn);
    // By default vendor/ is not indexed: the vendored logger is a package outside the
    // workspace like any other, and its calls are external too.
    index(&[]);
    let conn = common::open_db(&db);
    let vendored = rows(
        &conn,
        "SELECT count(*) FROM files WHERE path LIKE 'vendor/%'",
    );
    assert_eq!(vendored, vec!["0"]);
    let log_calls = rows(
        &conn,
        "SELECT path, line, qualifier || '.' || name, status FROM unresolved_refs
         WHERE kind = 'call' AND qualifier = 'log' ORDER BY 1, 2",
    );
    assert_eq!(
        log_calls,
        vec![
            "main.go\t17\tlog.Info\texternal",
            "main.go\t24\tlog.Info\texternal"
        ]
    );
}

/// Headers are C unless their code is C++; `#include <..>` that the tree does not hold
/// is external, `#include ".."` unresolved.
#[test]
fn c_headers_languages_and_include_statuses() {
    let (_dir, _root, db) = common::indexed_fixture("c-lib");
    let conn = common::open_db(&db);
    let languages = rows(
        &conn,
        "SELECT language, count(*) FROM files WHERE language IS NOT NULL GROUP BY 1 ORDER BY 1",
    );
    assert_eq!(languages, vec!["c\t11", "cpp\t2"]);
    let statuses = rows(
        &conn,
        "SELECT form, status, count(*) FROM refs WHERE kind = 'import' GROUP BY 1, 2 ORDER BY 1, 2",
    );
    assert_eq!(
        statuses,
        vec![
            "include\tresolved\t11",
            "include\tunresolved\t1",
            "include_system\texternal\t5",
        ]
    );
}

/// An incremental run reads a Go file's imports back from the database: after an edit
/// of `main.go`, its qualified calls resolve as in a build from nothing.
#[test]
fn go_qualified_calls_resolve_the_same_after_an_edit() {
    let readme = readme("go-mod");
    let (_dir, root) = common::fixture_copy("go-mod");
    let db = root.parent().unwrap().join("index.db");
    let index = || {
        common::run_ok(&[
            "index",
            root.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "--no-default-excludes",
        ])
    };
    index();
    let main = root.join("main.go");
    let mut text = std::fs::read_to_string(&main).unwrap();
    text.push_str("\n// edited\n");
    std::fs::write(&main, text).unwrap();
    index();
    let conn = common::open_db(&db);
    let calls = rows(
        &conn,
        "SELECT caller_path, line, caller, callee_path, callee, provenance FROM call_edges
         ORDER BY 1, 2, 3, 5",
    );
    assert_eq!(calls, block(&readme, "calls"));
    let external = common::int(
        &conn,
        "SELECT count(*) FROM refs WHERE kind = 'call' AND status = 'external'
         AND qualifier IS NOT NULL",
    );
    assert_eq!(external, 4);
}
