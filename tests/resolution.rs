//! Import and call resolution on the `ts-monorepo`, `py-src-layout`, `ts-calls` and
//! `js-cjs` fixtures: the rows their READMEs list (```imports, ```unresolved, ```calls
//! and ```open blocks) must be exactly the index's; and after each of a series of
//! edits, an incremental run must give the same imports, reference statuses and call
//! edges as a fresh index.

mod common;

use std::path::Path;

use common::*;

/// `src:line specifier -> dst flags`, sorted as the READMEs are.
fn imports(conn: &rusqlite::Connection) -> Vec<String> {
    strings(
        conn,
        "SELECT src_path || ':' || line || ' ' || specifier || ' -> ' || dst_path || ' ' || flags
         FROM file_imports ORDER BY src_path, line, dst_path",
    )
}

/// `path:line specifier status` of import references without an edge.
fn unresolved(conn: &rusqlite::Connection) -> Vec<String> {
    strings(
        conn,
        "SELECT path || ':' || line || ' ' || name || ' ' || status FROM unresolved_refs
         WHERE kind = 'import' ORDER BY path, line, name",
    )
}

/// `caller_path:line caller -> callee_path callee provenance` (the rule that resolved it).
fn calls(conn: &rusqlite::Connection) -> Vec<String> {
    strings(
        conn,
        "SELECT caller_path || ':' || line || ' ' || caller || ' -> ' || callee_path || ' ' ||
                callee || ' ' || provenance
         FROM call_edges ORDER BY caller_path, line, callee_path, callee",
    )
}

/// Every reference with its outcome (for comparing an incremental run with a fresh one).
fn refs(conn: &rusqlite::Connection) -> Vec<String> {
    strings(
        conn,
        "SELECT f.path || ':' || r.line || ' ' || r.kind || ' ' || r.name || ' ' ||
                coalesce(r.qualifier, '') || ' ' || r.flags || ' ' || r.status || ' ' || r.candidates
         FROM refs r JOIN files f ON f.id = r.file_id
         ORDER BY f.path, r.line, r.kind, r.name, r.qualifier",
    )
}

fn check_readme(fixture: &str) {
    let (_dir, root) = fixture_copy(fixture);
    let db = root.parent().unwrap().join("index.db");
    index_json(&root, &db, &[]);
    let conn = open_db(&db);
    assert_eq!(
        imports(&conn),
        readme_block(fixture, "imports"),
        "{fixture}: imports"
    );
    assert_eq!(
        unresolved(&conn),
        readme_block(fixture, "unresolved"),
        "{fixture}: unresolved imports"
    );
    assert_eq!(
        calls(&conn),
        readme_block(fixture, "calls"),
        "{fixture}: calls"
    );
}

#[test]
fn ts_monorepo_imports_and_calls_match_readme() {
    check_readme("ts-monorepo");
}

#[test]
fn py_src_layout_imports_and_calls_match_readme() {
    check_readme("py-src-layout");
}

#[test]
fn type_checking_edges_can_be_left_out() {
    let (_dir, root) = fixture_copy("py-src-layout");
    let db = root.parent().unwrap().join("index.db");
    index_json(&root, &db, &[]);
    let conn = open_db(&db);
    assert_eq!(
        strings(
            &conn,
            "SELECT src_path || ' -> ' || dst_path FROM file_imports WHERE type_checking"
        ),
        vec!["src/acme/core.py -> src/acme/models.py"]
    );
    assert_eq!(
        int(
            &conn,
            "SELECT count(*) FROM file_imports WHERE conditional AND NOT deferred"
        ),
        1
    );
    assert_eq!(
        strings(
            &conn,
            "SELECT src_path || ':' || line FROM file_imports WHERE deferred ORDER BY 1"
        ),
        vec!["src/acme/core.py:33", "tests/conftest.py:6"]
    );
}

/// Replaces `from` (which must be there) with `to` in file `rel` of `root`.
fn replace_in(root: &Path, rel: &str, from: &str, to: &str) {
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "no {from:?} in {rel}");
    std::fs::write(path, text.replace(from, to)).unwrap();
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Applies each edit in turn; after each, an incremental run over `root` must equal a
/// from-scratch index of the same tree.
fn incremental_agrees(fixture: &str, edits: &[&dyn Fn(&Path)]) {
    let (dir, root) = fixture_copy(fixture);
    let db = dir.path().join("incremental.db");
    index_json(&root, &db, &[]);
    for (step, edit) in edits.iter().enumerate() {
        edit(&root);
        let r = index_json(&root, &db, &[]);
        assert_eq!(
            r["changed"], true,
            "{fixture} step {step}: the run saw the edit"
        );
        let fresh = dir.path().join(format!("fresh-{step}.db"));
        index_json(&root, &fresh, &[]);
        let (a, b) = (open_db(&db), open_db(&fresh));
        assert_eq!(imports(&a), imports(&b), "{fixture} step {step}: imports");
        assert_eq!(refs(&a), refs(&b), "{fixture} step {step}: references");
        assert_eq!(calls(&a), calls(&b), "{fixture} step {step}: calls");
    }
}

#[test]
fn ts_monorepo_incremental_runs_agree_with_fresh_ones() {
    incremental_agrees(
        "ts-monorepo",
        &[
            // A new file where `./widgets` now resolves first (extension before index).
            &|root| {
                write(
                    root,
                    "apps/web/src/widgets.ts",
                    "export const Widget = 'flat';\n",
                )
            },
            // The longest-prefix pattern goes away: `@shared/special/x` moves.
            &|root| {
                write(
                    root,
                    "tsconfig.base.json",
                    r#"{"compilerOptions": {"baseUrl": ".", "paths": {"@shared/*": ["packages/shared/src/*", "packages/legacy/*"]}}}"#,
                )
            },
            // The barrel stops re-exporting `add`: the call in `start` becomes ambiguous.
            &|root| {
                write(
                    root,
                    "packages/math/src/index.ts",
                    "export { mul } from './mul.js';\n",
                )
            },
            // `exports` now exposes the internals and points "." at a real file.
            &|root| {
                write(
                    root,
                    "packages/math/package.json",
                    r#"{"name": "@acme/math", "exports": {".": "./src/add.ts", "./*": "./src/*.ts"}}"#,
                )
            },
            // The logger's entry point disappears.
            &|root| std::fs::remove_file(root.join("packages/logger/lib/main.js")).unwrap(),
        ],
    );
}

#[test]
fn py_src_layout_incremental_runs_agree_with_fresh_ones() {
    incremental_agrees(
        "py-src-layout",
        &[
            // The fallback module goes: `from acme._pure import ..` falls back to `acme`.
            &|root| std::fs::remove_file(root.join("src/acme/_pure.py")).unwrap(),
            // `__init__` re-exports nothing any more: the test's call to `run` becomes
            // ambiguous (re-exports count per file: any import of an `__init__` counts).
            &|root| write(root, "src/acme/__init__.py", "\"\"\"Acme.\"\"\"\n"),
            // `acmeplug` becomes a regular package.
            &|root| write(root, "src/acmeplug/__init__.py", ""),
            // A module appears where `from acme import run` now finds a module `run`.
            &|root| write(root, "src/acme/run.py", "def run():\n    return 1\n"),
        ],
    );
}

/// Python module-level aliases (`fixtures/py-aliases`): calls through `OMD =
/// OrderedMultiDict` reach the class and, through instances, its methods; aliases that
/// name nothing or only themselves, and function-local names, stay open.
#[test]
fn py_aliases_calls_match_readme() {
    check_calls_readme("py-aliases");
}

/// `X.__new__(C)` makes an instance of `C` (`fixtures/py-new`): `super().__new__(cls)`
/// and `object.__new__(cls)` in a class, `Node.__new__(Leaf)` anywhere.
#[test]
fn py_new_calls_match_readme() {
    check_calls_readme("py-new");
}

/// What unannotated functions return (`fixtures/py-returns`): factories, `cls(..)`,
/// `self`, a property read through `self`; disagreeing returns, generators, coroutines
/// and self-recursion give nothing.
#[test]
fn py_returns_calls_match_readme() {
    let (_dir, conn) = check_calls_readme("py-returns");
    // `self.outline.draw()` reads the property `outline` first: a value reference.
    assert_eq!(
        strings(
            &conn,
            "SELECT user_path || ':' || line || ' ' || user || ' -> ' || target_path || ' ' ||
                    target || ' ' || provenance
             FROM reference_edges ORDER BY user_path, line, target_path, target",
        ),
        readme_block("py-returns", "references")
    );
}

/// Editing what a function returns re-resolves the calls on its results in the other
/// module, and the incremental run equals a fresh one.
#[test]
fn py_returns_incremental_runs_agree_with_fresh_ones() {
    let replace = |root: &Path, from: &str, to: &str| replace_in(root, "pkg/shapes.py", from, to);
    incremental_agrees(
        "py-returns",
        &[
            // The factory now builds the base class: `a.area()` moves to `Shape.area`.
            &|root| {
                replace(
                    root,
                    "    return Square(\"sq\")",
                    "    return Shape(\"sq\")",
                )
            },
            // It becomes a generator: nothing known.
            &|root| {
                replace(
                    root,
                    "    return Shape(\"sq\")",
                    "    yield 1\n    return Shape(\"sq\")",
                )
            },
            // The returns of `make_any` agree again.
            &|root| replace(root, "    return Shape(\"b\")", "    return Square(\"b\")"),
            // The property returns something else.
            &|root| replace(root, "        return Outline(self)", "        return self"),
        ],
    );
}

/// Editing an alias re-resolves the calls of the files that use it, in this module and
/// in the importing test.
#[test]
fn py_aliases_incremental_runs_agree_with_fresh_ones() {
    let replace =
        |root: &Path, from: &str, to: &str| replace_in(root, "pkg/dictutils.py", from, to);
    incremental_agrees(
        "py-aliases",
        &[
            // The alias names a builtin: calls through it and its instances go external.
            &|root| replace(root, "OMD = OrderedMultiDict", "OMD = dict"),
            // Back to the class, and the alias of the alias now names it directly.
            &|root| {
                replace(root, "OMD = dict", "OMD = OrderedMultiDict");
                replace(root, "MultiDict = OMD", "MultiDict = OrderedMultiDict");
            },
            // The alias goes: `from pkg.dictutils import OMD` binds nothing known.
            &|root| replace(root, "OMD = OrderedMultiDict\n", ""),
            // A cycle closes over the test's names.
            &|root| write(root, "pkg/loops.py", "A = B\nB = A\nOMD = A\n"),
        ],
    );
}

/// `path:line receiver.name status` of the call sites without an edge.
fn open_calls(conn: &rusqlite::Connection) -> Vec<String> {
    strings(
        conn,
        "SELECT f.path || ':' || r.line || ' ' || coalesce(r.qualifier || '.', '') || r.name
                || ' ' || r.status
         FROM refs r JOIN files f ON f.id = r.file_id
         WHERE r.kind = 'call' AND r.status <> 'resolved'
         ORDER BY f.path, r.line, r.col",
    )
}

/// Indexes a copy of `fixture` and requires its README's ```calls and ```open blocks
/// to be exactly the index's call edges and call sites without an edge; returns the
/// open database.
fn check_calls_readme(fixture: &str) -> (tempfile::TempDir, rusqlite::Connection) {
    let (dir, root) = fixture_copy(fixture);
    let db = root.parent().unwrap().join("index.db");
    index_json(&root, &db, &[]);
    let conn = open_db(&db);
    assert_eq!(
        calls(&conn),
        readme_block(fixture, "calls"),
        "{fixture}: calls"
    );
    assert_eq!(
        open_calls(&conn),
        readme_block(fixture, "open"),
        "{fixture}: call sites without an edge"
    );
    (dir, conn)
}

#[test]
fn ts_calls_rules_and_look_alikes_match_readme() {
    check_calls_readme("ts-calls");
}

/// CommonJS with declaration files beside the JavaScript (`fixtures/js-cjs`): the
/// imports, call edges and open call sites its README lists.
#[test]
fn js_cjs_imports_and_calls_match_readme() {
    let (_dir, conn) = check_calls_readme("js-cjs");
    assert_eq!(imports(&conn), readme_block("js-cjs", "imports"), "imports");
}

/// Editing a base class in one file moves the resolution of calls in other files, and
/// the incremental run equals a fresh one.
#[test]
fn ts_calls_base_class_edit_re_resolves_other_files() {
    let (dir, root) = fixture_copy("ts-calls");
    let db = dir.path().join("incremental.db");
    index_json(&root, &db, &[]);
    let describe_in_app = |conn: &rusqlite::Connection| -> Vec<String> {
        calls(conn)
            .into_iter()
            .filter(|c| c.starts_with("src/app.ts:18 "))
            .collect()
    };
    assert_eq!(
        describe_in_app(&open_db(&db)),
        vec!["src/app.ts:18 start -> src/shapes/circle.ts Circle::describe typed"]
    );
    // `Circle` no longer overrides `describe`: `c.describe()` in app.ts (a `Circle`)
    // now reaches `Shape::describe`, and Ring's `super.area()` still stops at Circle.
    write(
        &root,
        "src/shapes/circle.ts",
        "import { Shape } from './base';\n\
         export class Circle extends Shape {\n\
         \x20 constructor(private r: number) { super(); }\n\
         \x20 area(): number { return 3 * this.r * this.r; }\n\
         }\n\
         export function makeCircle(r: number): Circle { return new Circle(r); }\n",
    );
    index_json(&root, &db, &[]);
    let incremental = open_db(&db);
    assert_eq!(
        describe_in_app(&incremental),
        vec!["src/app.ts:18 start -> src/shapes/base.ts Shape::describe typed"]
    );
    let fresh = dir.path().join("fresh.db");
    index_json(&root, &fresh, &[]);
    let fresh = open_db(&fresh);
    assert_eq!(calls(&incremental), calls(&fresh), "calls");
    assert_eq!(refs(&incremental), refs(&fresh), "references");
    // `Shape` gains nothing, `Ring` gains its own `name`: `this.name()` in Ring and
    // `super.name()` part ways.
    write(
        &root,
        "src/shapes/ring.ts",
        "import { Circle } from './circle';\n\
         export class Ring extends Circle {\n\
         \x20 name(): string { return 'ring'; }\n\
         \x20 label(): string { return super.name() + this.name(); }\n\
         \x20 size(): number { return super.area(); }\n\
         }\n",
    );
    index_json(&root, &db, &[]);
    let incremental = open_db(&db);
    let ring: Vec<String> = calls(&incremental)
        .into_iter()
        .filter(|c| c.starts_with("src/shapes/ring.ts:4 "))
        .collect();
    assert_eq!(
        ring,
        vec![
            "src/shapes/ring.ts:4 Ring::label -> src/shapes/base.ts Shape::name super",
            "src/shapes/ring.ts:4 Ring::label -> src/shapes/ring.ts Ring::name self",
        ]
    );
    let fresh2 = dir.path().join("fresh2.db");
    index_json(&root, &fresh2, &[]);
    assert_eq!(calls(&incremental), calls(&open_db(&fresh2)), "calls");
}
