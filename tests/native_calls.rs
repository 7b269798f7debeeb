//! Call resolution for Rust, Go, Java and C/C++ on the fixtures `rust-calls`,
//! `go-calls`, `java-calls` and `c-calls`: every call edge (with its rule), every call
//! reference left without one (with its status: the look-alikes that share a name with
//! a workspace method must stay unresolved or external) and every base edge must be
//! exactly what the fixture's README states (```calls, ```unresolved, ```bases). After
//! edits of a type, an impl or a header in one file, an incremental run must resolve
//! the calls of the other files as a fresh index does.

mod common;

use std::path::Path;

use common::*;

fn calls(conn: &rusqlite::Connection) -> Vec<String> {
    strings(
        conn,
        "SELECT caller_path || char(9) || line || char(9) || caller || char(9) || callee_path
                || char(9) || callee || char(9) || provenance
         FROM call_edges ORDER BY caller_path, line, caller, callee",
    )
}

fn unresolved(conn: &rusqlite::Connection) -> Vec<String> {
    strings(
        conn,
        "SELECT f.path || char(9) || r.line || char(9) || coalesce(r.qualifier || '.', '')
                || r.name || char(9) || r.status
         FROM refs r JOIN files f ON f.id = r.file_id
         WHERE r.kind = 'call' AND r.status <> 'resolved'
         ORDER BY f.path, r.line, r.col",
    )
}

fn bases(conn: &rusqlite::Connection) -> Vec<String> {
    strings(
        conn,
        "SELECT sf.path || char(9) || s.qualified_name || char(9) || e.kind || char(9) ||
                df.path || char(9) || d.qualified_name || char(9) || e.provenance
         FROM edges e
         JOIN nodes s ON s.id = e.src_id JOIN files sf ON sf.id = s.file_id
         JOIN nodes d ON d.id = e.dst_id JOIN files df ON df.id = d.file_id
         WHERE e.kind = 'inherits' OR e.kind = 'implements'
         ORDER BY sf.path, s.qualified_name, df.path, d.qualified_name",
    )
}

/// Every reference with its outcome.
fn refs(conn: &rusqlite::Connection) -> Vec<String> {
    strings(
        conn,
        "SELECT f.path || ':' || r.line || ' ' || r.kind || ' ' || r.name || ' ' ||
                coalesce(r.qualifier, '') || ' ' || r.flags || ' ' || r.status || ' ' || r.candidates
         FROM refs r JOIN files f ON f.id = r.file_id
         ORDER BY f.path, r.line, r.col, r.kind, r.name, r.qualifier",
    )
}

fn check(fixture: &str) {
    let (_dir, _root, db) = indexed_fixture(fixture);
    let conn = open_db(&db);
    assert_eq!(
        calls(&conn),
        readme_block(fixture, "calls"),
        "{fixture}: calls"
    );
    assert_eq!(
        unresolved(&conn),
        readme_block(fixture, "unresolved"),
        "{fixture}: calls without an edge"
    );
    assert_eq!(
        bases(&conn),
        readme_block(fixture, "bases"),
        "{fixture}: bases"
    );
}

#[test]
fn rust_calls_match_readme() {
    check("rust-calls");
}

#[test]
fn go_calls_match_readme() {
    check("go-calls");
}

#[test]
fn java_calls_match_readme() {
    check("java-calls");
}

#[test]
fn c_calls_match_readme() {
    check("c-calls");
}

/// Every call edge of the native rules carries its rule's confidence.
#[test]
fn native_edges_carry_their_rule_confidence() {
    let (_dir, _root, db) = indexed_fixture("rust-calls");
    let conn = open_db(&db);
    let rows = strings(
        &conn,
        "SELECT DISTINCT provenance || ' ' || printf('%.2f', confidence) FROM edges
         WHERE kind = 'calls' ORDER BY 1",
    );
    assert!(!rows.is_empty());
    for row in rows {
        let (rule, confidence) = row.split_once(' ').unwrap();
        let confidence: f64 = confidence.parse().unwrap();
        assert!(
            (0.5..=1.0).contains(&confidence),
            "{rule}: confidence {confidence}"
        );
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    std::fs::write(root.join(rel), text).unwrap();
}

fn replace(root: &Path, rel: &str, from: &str, to: &str) {
    let text = std::fs::read_to_string(root.join(rel)).unwrap();
    assert!(text.contains(from), "{rel} holds {from:?}");
    write(root, rel, &text.replace(from, to));
}

/// An edit of a fixture copy, and a text found in a call edge it adds or removes.
type Edit<'a> = (&'a dyn Fn(&Path), &'a str);

/// Applies each edit in turn; after each, an incremental run must equal a fresh index,
/// and the call edges must have changed as `changed` says (a line of the calls that
/// appears or disappears).
fn incremental_agrees(fixture: &str, edits: &[Edit<'_>]) {
    let (dir, root) = fixture_copy(fixture);
    let db = dir.path().join("incremental.db");
    index_json(&root, &db, &[]);
    for (step, (edit, changed)) in edits.iter().enumerate() {
        let before = calls(&open_db(&db));
        edit(&root);
        let r = index_json(&root, &db, &[]);
        assert_eq!(
            r["changed"], true,
            "{fixture} step {step}: the run saw the edit"
        );
        let fresh = dir.path().join(format!("fresh-{step}.db"));
        index_json(&root, &fresh, &[]);
        let (a, b) = (open_db(&db), open_db(&fresh));
        assert_eq!(refs(&a), refs(&b), "{fixture} step {step}: references");
        assert_eq!(calls(&a), calls(&b), "{fixture} step {step}: calls");
        assert_eq!(bases(&a), bases(&b), "{fixture} step {step}: bases");
        let after = calls(&a);
        let moved = before
            .iter()
            .any(|l| !after.contains(l) && l.contains(changed))
            || after
                .iter()
                .any(|l| !before.contains(l) && l.contains(changed));
        assert!(
            moved,
            "{fixture} step {step}: a call edge with {changed:?} moved\n{after:#?}"
        );
    }
}

#[test]
fn rust_incremental_runs_agree_with_fresh_ones() {
    incremental_agrees(
        "rust-calls",
        &[
            // The other impl block renames `check`: `self.check()` in engine.rs is gone.
            (
                &|root| replace(root, "src/store.rs", "fn check", "fn verify"),
                "Engine::check",
            ),
            // An inherent `describe` on Square wins over the trait's default method.
            (
                &|root| {
                    let path = "src/shapes.rs";
                    let text = std::fs::read_to_string(root.join(path)).unwrap();
                    write(
                        root,
                        path,
                        &format!(
                            "{text}\nimpl Square {{\n    pub fn describe(&self) -> String {{\n        String::new()\n    }}\n}}\n"
                        ),
                    )
                },
                "Square::describe",
            ),
            // The re-export names another type: `Motor::new()` no longer finds `new`.
            (
                &|root| {
                    replace(
                        root,
                        "src/lib.rs",
                        "engine::Engine as Motor",
                        "engine::Gauge as Motor",
                    )
                },
                "Engine::new",
            ),
        ],
    );
}

#[test]
fn java_incremental_runs_agree_with_fresh_ones() {
    incremental_agrees(
        "java-calls",
        &[
            // Dog stops overriding `sound`: `super.sound()` in Puppy reaches Animal's.
            (
                &|root| {
                    write(
                        root,
                        "src/main/java/com/acme/Dog.java",
                        "package com.acme;\n\npublic class Dog extends Animal {\n}\n",
                    )
                },
                "Dog::sound",
            ),
            // Dog overrides `describe`: `super.describe()` in Puppy stops one level up.
            (
                &|root| {
                    write(
                        root,
                        "src/main/java/com/acme/Dog.java",
                        "package com.acme;\n\npublic class Dog extends Animal {\n    public String describe() {\n        return \"dog\";\n    }\n}\n",
                    )
                },
                "Dog::describe",
            ),
            // Puppy extends Animal directly: back to Animal's `describe`.
            (
                &|root| {
                    replace(
                        root,
                        "src/main/java/com/acme/Puppy.java",
                        "extends Dog",
                        "extends Animal",
                    )
                },
                "Dog::describe",
            ),
        ],
    );
}

#[test]
fn go_incremental_runs_agree_with_fresh_ones() {
    incremental_agrees(
        "go-calls",
        &[(
            // Square stops embedding Base: `s.Name()` is no longer promoted.
            &|root| replace(root, "shapes/shapes.go", "\tBase\n\tSide", "\tSide"),
            "Base::Name",
        )],
    );
}

#[test]
fn c_incremental_runs_agree_with_fresh_ones() {
    incremental_agrees(
        "c-calls",
        &[(
            // inline.h stops including mathx.h: main.c no longer sees `add`.
            &|root| {
                write(
                    root,
                    "src/inline.h",
                    "#ifndef INLINE_H\n#define INLINE_H\n\nstatic inline int twice(int x)\n{\n    return x + x;\n}\n\n#endif\n",
                )
            },
            "add",
        )],
    );
}
