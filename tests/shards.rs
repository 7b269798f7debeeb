//! `index --shard K/N` and `merge`: N shard databases merged equal a single build of
//! the same tree, row for row, and shards that do not make one tree are refused.

mod common;

use std::path::{Path, PathBuf};

/// One tree holding several fixtures side by side (Python, TypeScript with path
/// aliases, Go modules, Java, C, Rust, CommonJS, Python value references), so that
/// references cross shards and resolution reads build files (`tsconfig.json`,
/// `go.mod`).
fn mixed_tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for name in [
        "py-pkg",
        "py-value-refs",
        "ts-monorepo",
        "ts-calls",
        "go-mod",
        "java-app",
        "c-lib",
        "rust-crate",
        "js-cjs",
    ] {
        common::copy_tree(&fixtures.join(name), &root.join(name));
    }
    (dir, root)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Indexes shard K/N of `root` into `dir/sK-N.db` for every K; returns the databases.
fn build_shards(root: &Path, dir: &Path, n: u32) -> Vec<PathBuf> {
    (1..=n)
        .map(|k| {
            let db = dir.join(format!("s{k}-{n}.db"));
            common::run_ok(&[
                "index",
                s(root),
                "--db",
                s(&db),
                "--shard",
                &format!("{k}/{n}"),
            ]);
            db
        })
        .collect()
}

fn merge(out: &Path, shards: &[PathBuf], extra: &[&str]) -> std::process::Output {
    let mut args = vec!["merge", s(out)];
    args.extend(shards.iter().map(|p| s(p)));
    args.extend_from_slice(extra);
    common::run(&args)
}

/// Every row of the index tables, ids included (what `export` leaves out too).
fn dump(db: &Path) -> Vec<String> {
    let conn = common::open_db(db);
    let mut out = Vec::new();
    for sql in [
        "SELECT id || '|' || path || '|' || coalesce(language, '') || '|' || size || '|' ||
           coalesce(digest, '') || '|' || status || '|' || coalesce(detail, '') || '|' ||
           coalesce(interface, '') FROM files ORDER BY id",
        "SELECT id || '|' || key || '|' || file_id || '|' || kind || '|' || name || '|' ||
           qualified_name || '|' || coalesce(signature, '') || '|' || start_line || '|' ||
           end_line || '|' || start_byte || '|' || end_byte || '|' || coalesce(parent_id, '')
         FROM nodes ORDER BY id",
        "SELECT id || '|' || src_id || '|' || dst_id || '|' || kind || '|' || file_id || '|' ||
           coalesce(line, '') || '|' || confidence || '|' || provenance || '|' ||
           coalesce(ref_id, '') FROM edges ORDER BY id",
        "SELECT id || '|' || file_id || '|' || src_id || '|' || kind || '|' ||
           coalesce(form, '') || '|' || name || '|' || coalesce(qualifier, '') || '|' || line
           || '|' || col || '|' || coalesce(receiver_type, '') || '|' ||
           coalesce(bindings, '') || '|' || flags || '|' || status || '|' || candidates
           || '|' || coalesce(deps, '')
         FROM refs ORDER BY id",
        "SELECT set_id || '|' || key FROM ref_dep_sets ORDER BY set_id, key",
    ] {
        out.extend(common::strings(&conn, sql));
    }
    out
}

#[test]
fn shards_merged_equal_a_single_build_row_for_row() {
    let (dir, root) = mixed_tree();
    let single = dir.path().join("single.db");
    common::run_ok(&["index", s(&root), "--db", s(&single)]);
    let expected_export = common::export_json(&root, &single);
    let expected_rows = dump(&single);
    let files = common::int(&common::open_db(&single), "SELECT count(*) FROM files");
    let calls = common::int(
        &common::open_db(&single),
        "SELECT count(*) FROM edges WHERE kind IN ('calls', 'imports', 'inherits', 'references')",
    );
    assert!(files > 60 && calls > 100, "{files} files, {calls} edges");

    for n in [1, 3, 5] {
        let shards = build_shards(&root, dir.path(), n);
        // The shards cut the tree: every file in exactly one, nothing resolved yet.
        let mut paths: Vec<String> = Vec::new();
        for db in &shards {
            let conn = common::open_db(db);
            paths.extend(common::strings(&conn, "SELECT path FROM files"));
            assert_eq!(
                common::int(&conn, "SELECT count(*) FROM edges WHERE kind <> 'contains'"),
                0,
                "a shard resolves nothing"
            );
            assert_eq!(
                common::int(
                    &conn,
                    "SELECT count(*) FROM refs WHERE status <> 'unresolved'"
                ),
                0
            );
            let meta = common::strings(&conn, "SELECT value FROM meta WHERE key = 'shard'");
            assert_eq!(meta.len(), 1, "{meta:?}");
            assert!(meta[0].contains(&format!("\"n\":{n}")), "{meta:?}");
        }
        paths.sort();
        let before = paths.len();
        paths.dedup();
        assert_eq!(paths.len(), before, "no file in two shards");
        assert_eq!(paths.len() as i64, files, "every file in a shard");
        if n > 1 {
            assert!(shards
                .iter()
                .all(|db| common::int(&common::open_db(db), "SELECT count(*) FROM files") > 0));
        }

        // Given in any order.
        let mut given = shards.clone();
        given.reverse();
        let merged = dir.path().join(format!("merged-{n}.db"));
        let out = merge(&merged, &given, &["--json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["filesSeen"], files);
        assert_eq!(report["fileSource"], "shards");
        assert_eq!(
            common::export_json(&root, &merged),
            expected_export,
            "{n} shards"
        );
        assert_eq!(dump(&merged), expected_rows, "{n} shards: rows and ids");
        let conn = common::open_db(&merged);
        assert!(common::strings(&conn, "SELECT key FROM meta WHERE key = 'shard'").is_empty());
        assert_eq!(
            common::int(&conn, "SELECT count(*) FROM pragma_foreign_key_check"),
            0
        );
        drop(conn);

        // The merged index is an ordinary one: the next run over the tree finds nothing
        // to do.
        let again = common::index_json(&root, &merged, &[]);
        assert_eq!(again["filesParsed"], 0, "{again}");
    }
    // No partial file is left beside the outputs.
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".partial-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn shards_that_do_not_make_one_tree_are_refused_and_nothing_is_written() {
    let (dir, root) = mixed_tree();
    let d = dir.path();
    let shards = build_shards(&root, d, 3);
    let out = d.join("out.db");
    let refused = |shards: &[PathBuf], expect: &str| {
        let o = merge(&out, shards, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "merged: {shards:?}");
        assert!(err.contains(expect), "expected {expect:?} in: {err}");
        assert!(!out.exists(), "nothing written");
    };
    refused(&shards[..2], "shards 3/3 are missing");
    refused(
        &[shards[0].clone(), shards[1].clone(), shards[0].clone()],
        "are both shard 1/3",
    );

    let single = d.join("single.db");
    common::run_ok(&["index", s(&root), "--db", s(&single)]);
    refused(std::slice::from_ref(&single), "is not a shard");
    // A shard never overwrites an index of the whole tree...
    let files = |db: &Path| common::int(&common::open_db(db), "SELECT count(*) FROM files");
    let before = files(&single);
    let o = common::run(&["index", s(&root), "--db", s(&single), "--shard", "1/3"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("holds an index of the whole tree"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(files(&single), before);
    // ...and an ordinary run on a shard builds the whole index again, from nothing.
    let was_shard = d.join("was-shard.db");
    std::fs::copy(&shards[0], &was_shard).unwrap();
    common::run_ok(&["index", s(&root), "--db", s(&was_shard)]);
    assert_eq!(
        common::export_json(&root, &was_shard),
        common::export_json(&root, &single)
    );
    assert!(common::strings(
        &common::open_db(&was_shard),
        "SELECT value FROM meta WHERE key = 'shard'"
    )
    .is_empty());

    let other_cut = d.join("other-cut.db");
    common::run_ok(&["index", s(&root), "--db", s(&other_cut), "--shard", "2/2"]);
    refused(
        &[shards[0].clone(), other_cut, shards[2].clone()],
        "must come from one cut",
    );

    // A shard of the tree after a file was added: another tree.
    std::fs::write(root.join("py-pkg/added.py"), "def added():\n    return 1\n").unwrap();
    let later = d.join("later.db");
    common::run_ok(&["index", s(&root), "--db", s(&later), "--shard", "3/3"]);
    refused(
        &[shards[0].clone(), shards[1].clone(), later],
        "were cut from different trees",
    );
    std::fs::remove_file(root.join("py-pkg/added.py")).unwrap();

    // A root that is gone, and an output that exists.
    let o = merge(&out, &shards, &["--root", s(&d.join("nowhere"))]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("pass --root"));
    assert!(!out.exists());
    std::fs::write(&out, b"keep me").unwrap();
    refused_existing(&out, &shards);
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");

    for bad in ["0/3", "4/3", "3", "1/0"] {
        let o = common::run(&[
            "index",
            s(&root),
            "--db",
            s(&d.join("x.db")),
            "--shard",
            bad,
        ]);
        assert!(!o.status.success(), "{bad}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("K/N"), "{bad}");
    }
}

fn refused_existing(out: &Path, shards: &[PathBuf]) {
    let o = merge(out, shards, &[]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("exists; merge writes a new database"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
