//! Incremental re-index: stat first, hash what moved, parse what changed, drop what is
//! gone — checked through `index --json` counts and the database rows.

mod common;

use common::*;

fn write(root: &std::path::Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn sample(root: &std::path::Path) {
    write(root, "pkg/__init__.py", "");
    write(
        root,
        "pkg/a.py",
        "from . import b\n\ndef alpha():\n    return b.beta()\n",
    );
    write(
        root,
        "pkg/b.py",
        "def beta():\n    return 1\n\ndef gamma():\n    return beta()\n",
    );
    write(
        root,
        "pkg/c.py",
        "import pkg.a\n\nclass C:\n    def run(self):\n        return pkg.a.alpha()\n",
    );
}

/// Sets a file's mtime to a fixed value so a test can tell "touched" from "unchanged".
fn touch(path: &std::path::Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn no_change_hashes_and_parses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let db = dir.path().join("i.db");
    let first = index_json(&root, &db, &[]);
    assert_eq!(first["filesSeen"], 4);
    assert_eq!(first["filesParsed"], 4);
    let again = index_json(&root, &db, &[]);
    assert_eq!(again["filesHashed"], 0);
    assert_eq!(again["filesParsed"], 0);
    assert_eq!(again["changed"], false);
    assert_eq!(again["generation"], first["generation"]);
}

#[test]
fn touch_hashes_one_and_parses_none() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    touch(&root.join("pkg/b.py"), 1_000_000);
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesHashed"], 1);
    assert_eq!(r["filesParsed"], 0);
    assert_eq!(r["filesTouched"], 1);
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesHashed"], 0, "the new stat was recorded");
}

#[test]
fn edit_reparses_only_that_file_and_keeps_edges_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    let conn = open_db(&db);
    let a_id = int(&conn, "SELECT id FROM files WHERE path = 'pkg/a.py'");
    let c_gen = int(
        &conn,
        "SELECT generation FROM files WHERE path = 'pkg/c.py'",
    );
    drop(conn);
    // b.py: beta renamed to delta; gamma still calls it; a.py's call to beta now dangles.
    write(
        &root,
        "pkg/b.py",
        "def delta():\n    return 2\n\ndef gamma():\n    return delta()\n",
    );
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesHashed"], 1);
    assert_eq!(r["filesParsed"], 1);
    let conn = open_db(&db);
    assert_eq!(
        strings(
            &conn,
            "SELECT name FROM symbols WHERE path = 'pkg/b.py' ORDER BY start_line"
        ),
        vec!["delta", "gamma"]
    );
    assert_eq!(
        int(&conn, "SELECT id FROM files WHERE path = 'pkg/a.py'"),
        a_id
    );
    assert_eq!(
        int(
            &conn,
            "SELECT generation FROM files WHERE path = 'pkg/c.py'"
        ),
        c_gen,
        "c.py was not re-parsed"
    );
    // The import a.py -> b.py survives the replacement of b.py's nodes.
    assert_eq!(
        strings(
            &conn,
            "SELECT dst_path FROM file_imports WHERE src_path = 'pkg/a.py'"
        ),
        vec!["pkg/b.py"]
    );
    // alpha's call to beta is now unresolved; gamma calls delta.
    assert_eq!(
        strings(
            &conn,
            "SELECT status FROM refs WHERE kind = 'call' AND name = 'beta'"
        ),
        vec!["unresolved"]
    );
    assert_eq!(
        strings(
            &conn,
            "SELECT callee FROM call_edges WHERE caller = 'gamma'"
        ),
        vec!["delta"]
    );
}

#[test]
fn delete_removes_nodes_and_edges() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    std::fs::remove_file(root.join("pkg/b.py")).unwrap();
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesRemoved"], 1);
    assert_eq!(r["filesParsed"], 0);
    let conn = open_db(&db);
    assert_eq!(
        int(&conn, "SELECT count(*) FROM files WHERE path = 'pkg/b.py'"),
        0
    );
    assert_eq!(
        int(
            &conn,
            "SELECT count(*) FROM nodes WHERE key LIKE '%pkg/b.py%'"
        ),
        0
    );
    assert_eq!(
        int(&conn, "SELECT count(*) FROM file_imports WHERE dst_path = 'pkg/b.py' OR src_path = 'pkg/b.py'"),
        0
    );
    // `from . import b` in a.py now names no module b: it falls back to the package.
    assert_eq!(
        strings(
            &conn,
            "SELECT dst_path FROM file_imports WHERE src_path = 'pkg/a.py'"
        ),
        vec!["pkg/__init__.py"]
    );
}

#[test]
fn added_file_resolves_earlier_unresolved_references() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    write(
        &root,
        "main.py",
        "from helper import assist\n\ndef main():\n    return assist()\n",
    );
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    let conn = open_db(&db);
    assert_eq!(int(&conn, "SELECT count(*) FROM file_imports"), 0);
    drop(conn);
    write(&root, "helper.py", "def assist():\n    return 42\n");
    let r = index_json(&root, &db, &[]);
    assert_eq!(r["filesParsed"], 1);
    let conn = open_db(&db);
    assert_eq!(
        strings(
            &conn,
            "SELECT dst_path FROM file_imports WHERE src_path = 'main.py'"
        ),
        vec!["helper.py"]
    );
    assert_eq!(
        strings(
            &conn,
            "SELECT callee_path FROM call_edges WHERE caller = 'main'"
        ),
        vec!["helper.py"]
    );
}

#[test]
fn full_rebuild_gives_identical_rows() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    let dump = |db: &std::path::Path| {
        let conn = open_db(db);
        strings(
            &conn,
            "SELECT n.id || ' ' || n.key || ' ' || coalesce(e.kind, '') || ' ' || coalesce(e.dst_id, '')
             FROM nodes n LEFT JOIN edges e ON e.src_id = n.id ORDER BY n.id, e.id",
        )
    };
    let before = dump(&db);
    let r = index_json(&root, &db, &["--full"]);
    assert_eq!(r["filesParsed"], 4);
    assert_eq!(dump(&db), before);
}

/// Index runs write without foreign-key checks (a build from nothing: every id is its
/// own; an incremental run deletes what the cascades would); the rows must still
/// satisfy every key, and each pooled connection must have enforcement (and the
/// automatic checkpoint, which runs leave off) back on afterwards, for any other writer.
#[test]
fn build_from_nothing_keeps_keys_and_switches_enforcement_back_on() {
    use constellation::index::{index, IndexOptions};
    use constellation::store::Store;

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    sample(&root);
    let store = Store::open(&dir.path().join("i.db")).unwrap();
    let check = |store: &Store| {
        // Every connection the pool can hand out at once (max 8).
        let conns: Vec<_> = (0..8).map(|_| store.conn().unwrap()).collect();
        for conn in &conns {
            let on: i64 = conn
                .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
                .unwrap();
            assert_eq!(on, 1, "foreign keys left off on a pooled connection");
            // The run's commit left the log to a later checkpoint: the automatic one
            // is back on for every other writer.
            let pages: i64 = conn
                .query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))
                .unwrap();
            assert_eq!(
                pages, 1000,
                "automatic checkpoint left off on a pooled connection"
            );
        }
        drop(conns);
        // What the run left in the log goes into the file on request.
        let (frames, copied) = store.checkpoint().unwrap();
        assert_eq!(copied, frames);
        let conns: Vec<_> = (0..8).map(|_| store.conn().unwrap()).collect();
        let violations: i64 = conns[0]
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(violations, 0);
    };
    for full in [false, true] {
        let opts = IndexOptions {
            full,
            ..IndexOptions::default()
        };
        let report = index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(report.files_parsed, 4);
        check(&store);
    }
    // An incremental removal deletes the file's nodes, references and edges.
    std::fs::remove_file(root.join("pkg/b.py")).unwrap();
    let report = index(&store, &root, &IndexOptions::default(), &|_| {}).unwrap();
    assert_eq!(report.files_removed, 1);
    check(&store);
    let conn = store.conn().unwrap();
    let left: i64 = conn
        .query_row(
            "SELECT (SELECT count(*) FROM nodes WHERE name = 'beta')
                  + (SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id
                     WHERE f.path = 'pkg/b.py')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
}

/// The rows of an index keyed by names, not row ids (the same dump as
/// `bench/incremental_equal.py`): files, nodes, references and edges, sorted.
fn canonical_rows(db: &std::path::Path) -> Vec<String> {
    let conn = open_db(db);
    let mut rows = Vec::new();
    for sql in [
        "SELECT 'file', path, language, status, digest, interface FROM files",
        "SELECT 'node', n.key, f.path, n.kind, n.name, n.qualified_name, n.signature,
                n.start_line, n.end_line, n.start_byte, n.end_byte, p.key
         FROM nodes n JOIN files f ON f.id = n.file_id LEFT JOIN nodes p ON p.id = n.parent_id",
        "SELECT 'ref', f.path, s.key, r.kind, r.form, r.name, r.qualifier, r.line, r.col,
                r.receiver_type, r.bindings, r.flags, r.status, r.candidates
         FROM refs r JOIN files f ON f.id = r.file_id LEFT JOIN nodes s ON s.id = r.src_id",
        "SELECT 'edge', s.key, d.key, e.kind, f.path, e.line, e.confidence, e.provenance,
                rf.path, r.kind, r.name, r.line, r.col
         FROM edges e JOIN files f ON f.id = e.file_id
         LEFT JOIN nodes s ON s.id = e.src_id LEFT JOIN nodes d ON d.id = e.dst_id
         LEFT JOIN refs r ON r.id = e.ref_id LEFT JOIN files rf ON rf.id = r.file_id",
    ] {
        let mut stmt = conn.prepare(sql).unwrap();
        let n = stmt.column_count();
        let got = stmt
            .query_map([], |row| {
                let mut cells = Vec::with_capacity(n);
                for i in 0..n {
                    let v: rusqlite::types::Value = row.get(i)?;
                    cells.push(format!("{v:?}"));
                }
                Ok(cells.join(" | "))
            })
            .unwrap();
        rows.extend(got.map(Result::unwrap));
    }
    rows.sort();
    rows
}

/// One call edge of `app/use.py` as `caller -> callee` keys, for the assertions that
/// each edit did move what it should.
fn call_edges_of_use(db: &std::path::Path) -> Vec<String> {
    let conn = open_db(db);
    strings(
        &conn,
        "SELECT s.qualified_name || ' -> ' || d.key FROM edges e
         JOIN nodes s ON s.id = e.src_id JOIN nodes d ON d.id = e.dst_id
         JOIN files f ON f.id = e.file_id
         WHERE f.path = 'app/use.py' AND e.kind IN ('calls', 'inherits') ORDER BY 1",
    )
}

/// After each edit of an interface (a name others call added, then removed; a return
/// annotation that retypes `core.make().run()`; a star-import chain that starts or stops
/// re-exporting a name; a base class's member removed), the incremental index equals a
/// build from nothing of the same tree, row for row.
#[test]
fn interface_edits_leave_the_same_rows_as_a_full_build() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    let core = "class Runner:\n    def run(self):\n        return 1\n\n\
                class Other:\n    def run(self):\n        return 2\n\n\
                def make() -> Runner:\n    return Runner()\n";
    write(&root, "app/__init__.py", "");
    write(&root, "app/core.py", core);
    write(&root, "app/api.py", "from app.core import *\n");
    write(&root, "app/facade.py", "from app.api import *\n");
    write(
        &root,
        "app/use.py",
        "from app import core\nfrom app.facade import make, helper\n\n\
         def go():\n    core.make().run()\n    make().run()\n    helper()\n    core.missing()\n\n\
         class Sub(core.Runner):\n    def go(self):\n        return self.run()\n",
    );
    let db = dir.path().join("inc.db");
    index_json(&root, &db, &[]);
    let mut stamp = 2_000_000_000u64;
    let mut check = |rel: &str, text: Option<&str>, step: &str| {
        match text {
            Some(text) => write(&root, rel, text),
            None => std::fs::remove_file(root.join(rel)).unwrap(),
        }
        if text.is_some() {
            stamp += 10;
            touch(&root.join(rel), stamp);
        }
        index_json(&root, &db, &[]);
        let full = dir.path().join(format!("full-{stamp}.db"));
        index_json(&root, &full, &["--full"]);
        let (inc, want) = (canonical_rows(&db), canonical_rows(&full));
        let only_inc: Vec<&String> = inc.iter().filter(|r| !want.contains(r)).collect();
        let only_full: Vec<&String> = want.iter().filter(|r| !inc.contains(r)).collect();
        assert!(
            inc == want,
            "after {step}: only incremental {only_inc:#?}\nonly full {only_full:#?}"
        );
        // Index runs write without foreign-key enforcement and delete what the
        // cascades would have: no row may be left pointing at a deleted one.
        assert_eq!(
            int(
                &open_db(&db),
                "SELECT count(*) FROM pragma_foreign_key_check"
            ),
            0,
            "after {step}"
        );
        call_edges_of_use(&db)
    };

    let with_names = format!("{core}\ndef helper():\n    pass\n\ndef missing():\n    pass\n");
    let edges = check("app/core.py", Some(&with_names), "adding names others call");
    assert!(
        edges.contains(&"go -> func:app/core.py::helper".to_string()),
        "{edges:?}"
    );
    assert!(
        edges.contains(&"go -> func:app/core.py::missing".to_string()),
        "{edges:?}"
    );

    let edges = check("app/core.py", Some(core), "removing them");
    assert!(!edges.iter().any(|e| e.ends_with("::helper")), "{edges:?}");

    let retyped = core.replace("-> Runner", "-> Other");
    let edges = check("app/core.py", Some(&retyped), "a changed return annotation");
    assert!(
        edges.contains(&"go -> func:app/core.py::Other::run".to_string())
            || edges
                .iter()
                .any(|e| e.starts_with("go -> ") && e.contains("Other::run")),
        "{edges:?}"
    );

    let edges = check(
        "app/api.py",
        Some("from app.core import make\n\ndef helper():\n    pass\n"),
        "a star import replaced by a definition",
    );
    assert!(
        edges.contains(&"go -> func:app/api.py::helper".to_string()),
        "{edges:?}"
    );

    check(
        "app/api.py",
        Some("from app.core import *\n"),
        "the star import back",
    );
    let no_run = retyped.replace("    def run(self):\n        return 1\n", "    pass\n");
    let edges = check(
        "app/core.py",
        Some(&no_run),
        "a base class's member removed",
    );
    assert!(
        !edges.iter().any(|e| e.starts_with("Sub::go -> ")),
        "{edges:?}"
    );
    // A class whose method holds a nested function, called from another file, then
    // removed whole: its methods and their nested functions go with it, and the edges
    // into all of them.
    let nested = format!(
        "{no_run}\nclass Outer:\n    def method(self):\n        def inner():\n            return 3\n        return inner()\n"
    );
    write(
        &root,
        "app/caller.py",
        "from app.core import Outer\n\ndef call():\n    return Outer().method()\n",
    );
    let edges = check(
        "app/core.py",
        Some(&nested),
        "a class with a nested function",
    );
    assert!(!edges.is_empty());
    let outer_nodes = |db: &std::path::Path| {
        int(
            &open_db(db),
            "SELECT count(*) FROM nodes WHERE qualified_name LIKE 'Outer%'",
        )
    };
    assert_eq!(outer_nodes(&db), 3);
    check("app/core.py", Some(&no_run), "that class removed");
    assert_eq!(outer_nodes(&db), 0);
    check("app/facade.py", None, "a re-exporting module deleted");
    check("app/caller.py", None, "the caller deleted");
}

/// A Python interface change re-resolves only the references that looked up one of
/// its changed names: a function nobody calls appended to a module that two others
/// re-export with star imports re-resolves nothing outside that module (the
/// conservative rule re-resolved every reference of `facade.py` and `use.py`). It also
/// checks that the stored rows of a file give the same per-name digests as its facts:
/// otherwise every name would count as changed.
#[test]
fn python_interface_change_re_resolves_only_the_lookups_of_its_changed_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    write(&root, "app/__init__.py", "");
    write(
        &root,
        "app/core.py",
        "import os\nfrom os import path as p\n\nclass Runner(dict):\n    def run(self) -> 'Runner':\n        return self\n\ndef make() -> Runner:\n    return Runner()\n",
    );
    write(&root, "app/api.py", "from app.core import *\n");
    write(&root, "app/facade.py", "from app.api import *\n");
    write(
        &root,
        "app/use.py",
        "from app.facade import make, Runner\nfrom app import core\n\ndef go():\n    make().run()\n    core.make()\n\nclass Sub(Runner):\n    def go(self):\n        return self.run()\n",
    );
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    write(
        &root,
        "app/api.py",
        "from app.core import *\n\ndef unused_name():\n    pass\n",
    );
    touch(&root.join("app/api.py"), 2_100_000_000);
    let r = index_json(&root, &db, &[]);
    let conn = open_db(&db);
    let own = int(
        &conn,
        "SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id WHERE f.path = 'app/api.py'",
    );
    assert_eq!(r["refsResolved"], own, "only api.py's own references: {r}");
    // The same for a changed signature of a method nobody calls by that name (`run`
    // is called, through Sub's bases and make()'s return type: changing it must reach
    // those calls).
    let core = "import os\nfrom os import path as p\n\nclass Runner(dict):\n    def run(self, x=1) -> 'Runner':\n        return self\n\ndef make() -> Runner:\n    return Runner()\n";
    write(&root, "app/core.py", core);
    touch(&root.join("app/core.py"), 2_100_000_100);
    let r = index_json(&root, &db, &[]);
    let full = dir.path().join("full.db");
    index_json(&root, &full, &["--full"]);
    assert_eq!(canonical_rows(&db), canonical_rows(&full), "{r}");
}

/// A C header every source includes gains, changes and loses definitions: each run
/// re-resolves only the references named like them (not every reference of every file
/// that includes it), and the index equals a build from nothing; a changed `#include`
/// still reaches the includers.
#[test]
fn c_header_edit_re_resolves_only_the_references_of_its_changed_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    write(
        &root,
        "kernel.h",
        "int max(int a, int b);\nint min(int a, int b);\n",
    );
    write(&root, "util.h", "int clamp(int x);\n");
    write(
        &root,
        "util.c",
        "#include \"util.h\"\nint clamp(int x) { return x; }\n",
    );
    for i in 0..6 {
        write(
            &root,
            &format!("src{i}.c"),
            &format!(
                "#include \"kernel.h\"\n#include \"util.h\"\nint f{i}(int x) {{ return max(x, min(x, clamp(x))) + probe(x); }}\n"
            ),
        );
    }
    let db = dir.path().join("i.db");
    let full = dir.path().join("full.db");
    index_json(&root, &db, &[]);
    let conn = open_db(&db);
    let refs_named = |name: &str| {
        int(
            &conn,
            &format!("SELECT count(*) FROM refs WHERE name = '{name}' AND kind = 'call'"),
        )
    };
    let probes = refs_named("probe");
    let mut stamp = 2_100_000_000;
    let mut edit = |text: &str| {
        write(&root, "kernel.h", text);
        stamp += 100;
        touch(&root.join("kernel.h"), stamp);
        let r = index_json(&root, &db, &[]);
        std::fs::remove_file(&full).ok();
        index_json(&root, &full, &["--full"]);
        assert_eq!(canonical_rows(&db), canonical_rows(&full), "{r}");
        r
    };
    // `probe` defined: the six calls of it resolve, nothing else is resolved again.
    let r = edit("int max(int a, int b);\nint min(int a, int b);\nstatic inline int probe(int x) { return x; }\n");
    assert_eq!(r["refsResolved"], probes, "only the calls named probe: {r}");
    // A changed prototype of `min` (a declaration, not a definition: no node): nothing
    // is resolved again, since `probe` keeps its node and so the calls their edges.
    let r = edit("int max(int a, int b);\nint min(long a, long b);\nstatic inline int probe(int x) { return x; }\n");
    assert_eq!(r["refsResolved"], 0, "{r}");
    // A changed signature of the definition `probe`: only the calls of probe.
    let r = edit("int max(int a, int b);\nint min(long a, long b);\nstatic inline int probe(long x) { return x; }\n");
    assert_eq!(r["refsResolved"], probes, "{r}");
    // `probe` gone again.
    edit("int max(int a, int b);\nint min(long a, long b);\n");
    // A new include: every includer's references are resolved again.
    let r = edit("#include \"util.h\"\nint max(int a, int b);\nint min(long a, long b);\n");
    assert!(r["refsResolved"].as_i64().unwrap() > 6 * 4, "{r}");
}

/// Vendored, minified and lock files are skipped at any depth by default; a minified
/// JavaScript file under an ordinary name is recorded but not parsed; and
/// `--no-default-excludes` indexes all of them.
#[test]
fn default_excludes_skip_vendored_minified_and_lock_files_at_any_depth() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    let packed = format!("!function(e){{{}}}(window);\n", "var a=e.b(1);".repeat(30));
    for (path, text) in [
        (
            "app/main.js",
            "import { f } from './util.js';\nf();\n".to_string(),
        ),
        (
            "app/util.js",
            "export function f() { return 1; }\n".to_string(),
        ),
        (
            "app/static/vendor/jquery/jquery.js",
            "function $() {}\n".to_string(),
        ),
        ("app/static/app.min.js", packed.clone()),
        ("app/static/packed.js", packed),
        ("package-lock.json", "{}\n".to_string()),
    ] {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    let conn = common::open_db(&db);
    let files = common::strings(
        &conn,
        "SELECT path || ' ' || status || ' ' || (SELECT count(*) FROM nodes n WHERE n.file_id = files.id AND n.kind != 'file')
         FROM files ORDER BY path",
    );
    assert_eq!(
        files,
        vec![
            "app/main.js parsed 0",
            "app/static/packed.js asset 0",
            "app/util.js parsed 1",
        ]
    );
    let detail = common::strings(
        &conn,
        "SELECT detail FROM files WHERE path = 'app/static/packed.js'",
    );
    assert!(detail[0].starts_with("minified JavaScript"), "{detail:?}");
    drop(conn);

    let all = dir.path().join("all.db");
    index_json(&root, &all, &["--no-default-excludes"]);
    let conn = common::open_db(&all);
    let files = common::strings(
        &conn,
        "SELECT path || ' ' || status FROM files ORDER BY path",
    );
    assert_eq!(
        files,
        vec![
            "app/main.js parsed",
            "app/static/app.min.js parsed",
            "app/static/packed.js parsed",
            "app/static/vendor/jquery/jquery.js parsed",
            "app/util.js parsed",
            "package-lock.json asset",
        ]
    );
}

/// A class's base name whose import goes away (or comes back) moves the class's method
/// resolution order without any change to the class's own line: the calls that found a
/// method through that base, in other files and through subclasses of it, are resolved
/// again (found by `bench/incremental_equal.py --targets`: removing `from
/// idlelib.delegator import Delegator` from the standard library's `colorizer.py` left
/// `ColorDelegator().resetcache()` resolved to `Delegator.resetcache`).
#[test]
fn a_base_whose_import_goes_away_re_resolves_the_calls_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    write(&root, "app/__init__.py", "");
    write(
        &root,
        "app/base.py",
        "class Base:\n    def helper(self):\n        return 1\n",
    );
    let mid =
        "from app.base import Base\n\nclass Mid(Base):\n    pass\n\nclass Inner(Mid):\n    pass\n";
    write(&root, "app/mid.py", mid);
    write(
        &root,
        "app/leaf.py",
        "from app.mid import Mid, Inner\n\nclass Leaf(Mid):\n    def go(self):\n        return self.helper()\n\n\
         def use():\n    Mid().helper()\n    Inner().helper()\n",
    );
    let db = dir.path().join("inc.db");
    index_json(&root, &db, &[]);
    let calls = |db: &std::path::Path| {
        strings(
            &open_db(db),
            "SELECT s.qualified_name || ' -> ' || d.qualified_name FROM edges e
             JOIN nodes s ON s.id = e.src_id JOIN nodes d ON d.id = e.dst_id
             WHERE e.kind = 'calls' ORDER BY 1",
        )
    };
    assert_eq!(
        calls(&db),
        [
            "Leaf::go -> Base::helper",
            "use -> Base::helper",
            "use -> Base::helper",
            "use -> Inner",
            "use -> Mid"
        ]
    );
    let mut stamp = 2_200_000_000u64;
    for (step, text) in [
        (
            "the import removed",
            mid.replace("from app.base import Base\n", ""),
        ),
        ("the import back", mid.to_string()),
    ] {
        write(&root, "app/mid.py", &text);
        stamp += 10;
        touch(&root.join("app/mid.py"), stamp);
        index_json(&root, &db, &[]);
        let full = dir.path().join(format!("full-{stamp}.db"));
        index_json(&root, &full, &["--full"]);
        assert_eq!(canonical_rows(&db), canonical_rows(&full), "after {step}");
    }
    assert_eq!(calls(&db).len(), 5);
}

/// Module `m{i}` of the generated package of
/// `a_switch_that_rewrites_most_references_equals_a_build_from_nothing`: a base class,
/// a subclass of the next module's base, a subclass of the subclass of the module ten
/// on, ten functions and 700 calls (into the next module and the module ten on, where
/// a quarter of them call `h…` functions). `renamed`: the first five functions are `h…`
/// instead of `g…` (their callers in other modules then resolve elsewhere, or at all:
/// only the keys they looked up find them); `rebased`: the subclass derives from the base of the
/// module after next instead (which moves the method resolution order of the classes
/// derived from it in other modules).
fn switch_module(i: usize, n: usize, renamed: bool, rebased: bool) -> String {
    let next = (i + 1) % n;
    let far = (i + 10) % n;
    let base = if rebased { (i + 2) % n } else { next };
    let mut s = format!(
        "from pkg import m{next}, m{far}\nfrom pkg.m{base} import Base{base}\n\n\
         class Base{i}:\n    def run(self):\n        return {i}\n\n\
         class Child{i}(Base{base}):\n    def go(self):\n        return self.run()\n\n\
         class Grand{i}(m{far}.Child{far}):\n    def up(self):\n        return self.run()\n\n"
    );
    for t in 0..10 {
        let prefix = if renamed && t < 5 { "h" } else { "g" };
        s.push_str(&format!("def {prefix}{i}_{t}():\n    return {t}\n\n"));
    }
    s.push_str("def caller():\n");
    for t in 0..175 {
        s.push_str(&format!(
            "    m{next}.g{next}_{}()\n    m{far}.g{far}_{}()\n    m{far}.h{far}_{}()\n    Grand{i}().up()\n",
            t % 10,
            (t + 3) % 10,
            t % 5
        ));
    }
    s
}

#[test]
fn a_switch_that_rewrites_most_references_equals_a_build_from_nothing() {
    // 40 modules of about 700 references each; the switch rewrites 30 of them (5 with
    // renamed functions and 5 with another base, all called or derived from by modules
    // it leaves alone): well over the
    // 20,000 references and the third of them past which a run suspends the lookup
    // indexes of `refs` before writing (checked through the debug log). No file comes or
    // goes: that would resolve again every reference of the files that import it, and
    // here every module imports another, so the references found by key would be
    // resolved again anyway.
    let n = 40;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    write(&root, "pkg/__init__.py", "");
    for i in 0..n {
        write(
            &root,
            &format!("pkg/m{i}.py"),
            &switch_module(i, n, false, false),
        );
    }
    let db = dir.path().join("i.db");
    index_json(&root, &db, &[]);
    for i in 0..30 {
        let text = switch_module(i, n, i < 5, (5..10).contains(&i)) + &format!("# switched {i}\n");
        write(&root, &format!("pkg/m{i}.py"), &text);
    }
    let out = index_output(&root, &db, &["-vv"]);
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        log.contains("3 lookup indexes suspended"),
        "the run did not suspend the lookup indexes: {log}"
    );
    let conn = open_db(&db);
    for name in ["ref_dep_sets_key", "refs_deps", "refs_name"] {
        assert_eq!(
            int(
                &conn,
                &format!(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '{name}'"
                )
            ),
            1,
            "{name} was not rebuilt"
        );
    }
    drop(conn);
    let scratch = dir.path().join("scratch.db");
    index_json(&root, &scratch, &[]);
    assert_eq!(export_json(&root, &db), export_json(&root, &scratch));
}
