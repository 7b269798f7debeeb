//! Indexing one tree on several machines: `index --shard K/N` parses a deterministic
//! 1/N of the files into a shard database, and [`merge`] combines the N shards into
//! one index and resolves every reference once, over the whole tree.
//!
//! - **Which files.** A file belongs to shard `1 + (h mod N)`, where `h` is the first
//!   8 bytes (little-endian) of the blake3 digest of its root-relative path text: the
//!   same answer on every machine and for every run, and an even spread whatever the
//!   directory layout.
//! - **A shard** walks the whole tree (so it knows the tree: [`ShardMeta::tree`]),
//!   then reads, parses and writes only its own files, from nothing. It resolves
//!   nothing: its references are stored `unresolved`, since what they name is mostly
//!   in other shards.
//! - **The merge** checks that the shards are `1/N … N/N` of one tree, then writes
//!   their files, nodes and references into a new database in path order, exactly as a
//!   single build writes them (so every id is the one a single build gives), and runs
//!   the single build's resolution over all of them. Its `export` is byte-identical to
//!   a single build's. Resolution reads the tree's build files (`tsconfig.json`,
//!   `go.mod`, `compile_commands.json`, Java package lines), so the merge needs the
//!   tree too: the shards' root, or `--root`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::store::files::{FileRecord, IndexTx, NodeRecord, Ref};
use crate::store::shard::{self as shard_rows, ShardFile, ShardMeta};
use crate::store::Store;
use crate::walk;

use super::{IndexError, IndexReport, Pending, Progress};

/// `K/N`: shard `k` (1-based) of `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    pub k: u32,
    pub n: u32,
}

/// Most shards a tree may be cut into.
pub const MAX_SHARDS: u32 = 4096;

impl std::str::FromStr for ShardSpec {
    type Err = String;

    /// Parses `K/N` with `1 ≤ K ≤ N ≤` [`MAX_SHARDS`].
    fn from_str(s: &str) -> Result<ShardSpec, String> {
        let bad =
            || format!("{s:?} is not a shard: give K/N with 1 <= K <= N <= {MAX_SHARDS}, e.g. 2/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (u32, u32) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || k > n || n > MAX_SHARDS {
            return Err(bad());
        }
        Ok(ShardSpec { k, n })
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// The shard (1-based) of `n` that a file belongs to, from its root-relative path text.
pub fn shard_of(path: &str, n: u32) -> u32 {
    let digest = blake3::hash(path.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest.as_bytes()[..8]);
    (u64::from_le_bytes(first) % u64::from(n.max(1))) as u32 + 1
}

/// The part of `walked` that shard `spec` indexes, and the shard's description of the
/// whole tree. Walk problems are kept whole (what lies under one is unknown to every
/// shard).
pub(super) fn cut(walked: &walk::Walk, spec: ShardSpec, root: &Path) -> (walk::Walk, ShardMeta) {
    let mut tree = blake3::Hasher::new();
    for f in &walked.files {
        tree.update(f.path.as_bytes());
        tree.update(b"\0");
        tree.update(f.size.to_string().as_bytes());
        tree.update(b"\n");
    }
    let files = walked
        .files
        .iter()
        .filter(|f| shard_of(&f.path, spec.n) == spec.k)
        .cloned()
        .collect();
    let meta = ShardMeta {
        k: spec.k,
        n: spec.n,
        tree: tree.finalize().to_hex().to_string(),
        tree_files: walked.files.len() as u64,
        root: root.display().to_string(),
    };
    let mine = walk::Walk {
        files,
        problems: walked.problems.clone(),
        source: walked.source,
    };
    (mine, meta)
}

/// One shard opened for a merge.
struct Opened {
    path: PathBuf,
    conn: rusqlite::Connection,
    meta: ShardMeta,
}

/// Opens the shards and checks that they are `1/N … N/N` of one tree, each once.
fn open_all(shards: &[PathBuf]) -> Result<Vec<Opened>, IndexError> {
    if shards.is_empty() {
        return Err(IndexError::Shard(
            "merge needs the shard databases to merge".into(),
        ));
    }
    let mut opened: Vec<Opened> = Vec::with_capacity(shards.len());
    for path in shards {
        let conn = shard_rows::open(path)?;
        let meta = shard_rows::read_meta(&conn, path)?.ok_or_else(|| {
            IndexError::Shard(format!(
                "{} is not a shard: it was indexed without --shard K/N",
                path.display()
            ))
        })?;
        if let Some(first) = opened.first() {
            if meta.n != first.meta.n {
                return Err(IndexError::Shard(format!(
                    "{} is shard {}/{} but {} is shard {}/{}: every shard of a merge must \
                     come from one cut",
                    path.display(),
                    meta.k,
                    meta.n,
                    first.path.display(),
                    first.meta.k,
                    first.meta.n
                )));
            }
            if meta.tree != first.meta.tree {
                return Err(IndexError::Shard(format!(
                    "{} and {} were cut from different trees (their file lists differ: \
                     {} and {} files); index every shard from the same commit",
                    path.display(),
                    first.path.display(),
                    meta.tree_files,
                    first.meta.tree_files
                )));
            }
        }
        if let Some(twin) = opened.iter().find(|o| o.meta.k == meta.k) {
            return Err(IndexError::Shard(format!(
                "{} and {} are both shard {}/{}",
                twin.path.display(),
                path.display(),
                meta.k,
                meta.n
            )));
        }
        opened.push(Opened {
            path: path.clone(),
            conn,
            meta,
        });
    }
    let n = opened[0].meta.n;
    let missing: Vec<String> = (1..=n)
        .filter(|k| !opened.iter().any(|o| o.meta.k == *k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(IndexError::Shard(format!(
            "shards {} are missing; a merge needs all {n}",
            missing.join(", ")
        )));
    }
    Ok(opened)
}

/// The workspace root of a merge: `root` when given, else the one every shard names.
fn merge_root(opened: &[Opened], root: Option<&Path>) -> Result<PathBuf, IndexError> {
    let root = match root {
        Some(r) => r.to_path_buf(),
        None => {
            let first = &opened[0].meta.root;
            if let Some(other) = opened.iter().find(|o| &o.meta.root != first) {
                return Err(IndexError::Shard(format!(
                    "the shards were indexed at different roots ({first} and {}); pass \
                     --root with the tree's checkout here",
                    other.meta.root
                )));
            }
            PathBuf::from(first)
        }
    };
    let canonical = root.canonicalize().map_err(|e| {
        IndexError::Shard(format!(
            "the workspace root {} ({e}): the merge reads the tree's build files to resolve \
             imports; pass --root with the tree's checkout here",
            root.display()
        ))
    })?;
    if !canonical.is_dir() {
        return Err(walk::WalkError::NotADirectory(canonical).into());
    }
    Ok(canonical)
}

/// Merges shard databases (`index --shard K/N`, all `N` of one tree) into a new index
/// database `out`, resolving every reference over the whole tree. `root`: the tree's
/// checkout on this machine (default: the root the shards were indexed at).
///
/// The result equals a single build of the tree (`export` byte-identical). `out` is
/// written beside itself and renamed into place when complete, as a first build is.
///
/// Errors: [`IndexError::Shard`] when the shards are not `1/N … N/N` of one tree (a
/// shard missing or given twice, shards of different cuts or trees, a database built
/// without `--shard`), two shards hold one path, or `out` exists; a shard that cannot
/// be opened (missing, corrupt, another schema version); a database error (then no
/// `out` is left).
pub fn merge(
    out: &Path,
    shards: &[PathBuf],
    root: Option<&Path>,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<IndexReport, IndexError> {
    let started = Instant::now();
    let started_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let opened = open_all(shards)?;
    let root = merge_root(&opened, root)?;
    super::create_db_dir(out)?;
    let _run = super::run_lock::RunLock::acquire(out)?;
    let exists = || {
        IndexError::Shard(format!(
            "{} exists; merge writes a new database (remove it, or name another)",
            out.display()
        ))
    };
    if out.exists() {
        return Err(exists());
    }
    // Every file of every shard, in path order: the order a single build writes them.
    let mut files: Vec<(usize, ShardFile)> = Vec::new();
    for (i, o) in opened.iter().enumerate() {
        files.extend(shard_rows::files(&o.conn)?.into_iter().map(|f| (i, f)));
    }
    files.sort_by(|a, b| a.1.file.path.cmp(&b.1.file.path));
    if let Some(pair) = files
        .windows(2)
        .find(|p| p[0].1.file.path == p[1].1.file.path)
    {
        return Err(IndexError::Shard(format!(
            "{} and {} both hold {}: they are not shards of one cut",
            opened[pair[0].0].path.display(),
            opened[pair[1].0].path.display(),
            pair[0].1.file.path
        )));
    }
    let expected = opened[0].meta.tree_files;
    if files.len() as u64 != expected {
        return Err(IndexError::Shard(format!(
            "the shards hold {} files but their tree has {expected}: a shard was changed \
             after it was built; build them again",
            files.len()
        )));
    }
    super::build_new_file(out, |store| {
        write_and_resolve(
            store,
            &root,
            &opened,
            &files,
            &started_at,
            started,
            progress,
        )
    })?
    .ok_or_else(exists)
}

/// The merge's run on the new database: the shards' rows in path order, then
/// resolution as in a build from nothing, then the commit.
fn write_and_resolve(
    store: &Store,
    root: &Path,
    opened: &[Opened],
    files: &[(usize, ShardFile)],
    started_at: &str,
    started: Instant,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<IndexReport, IndexError> {
    let mut conn = store.conn()?;
    let mut conn = super::RunSettings::new(&mut conn)?;
    let tx = IndexTx::begin(&mut conn)?;
    let generation = tx.generation()? + 1;
    let suspended = tx.suspend_indexes()?;
    let mut report = IndexReport {
        files_seen: files.len(),
        files_parsed: files.len(),
        file_source: walk::FileSource::Shards,
        ..IndexReport::default()
    };
    let mut pending = Pending {
        paths_changed: true,
        ..Pending::default()
    };
    for (done, (shard, file)) in files.iter().enumerate() {
        write_file(
            &tx,
            &opened[*shard].conn,
            file,
            generation,
            &mut pending.new_refs,
        )?;
        if (done + 1) % 256 == 0 || done + 1 == files.len() {
            progress(Progress::Read {
                done: done + 1,
                total: files.len(),
            });
        }
        if file.file.status == "unreadable" {
            let detail = file.detail.as_deref().unwrap_or("");
            report.note_unreadable(Some(&file.file.path), detail);
        }
    }
    report.parse_ms = started.elapsed().as_millis() as u64;
    tracing::info!(
        "merge: {} files of {} shards written in {} ms",
        files.len(),
        opened.len(),
        report.parse_ms
    );
    super::resolve_and_apply_scip(
        &tx,
        root,
        true,
        false,
        pending,
        None,
        &suspended,
        None,
        &[],
        &mut report,
        progress,
    )?;
    report.resolve_ms = started.elapsed().as_millis() as u64 - report.parse_ms;
    tracing::info!(
        "resolved {} references in {} ms",
        report.refs_resolved,
        report.resolve_ms
    );
    report.generation = generation;
    report.changed = true;
    report.duration_ms = started.elapsed().as_millis() as u64;
    crate::store::shard::write_meta(&tx, None)?;
    (report.nodes, report.edges) = tx.totals(generation, true)?;
    super::commit_run(tx, started_at, true, &mut report)?;
    Ok(report)
}

/// Writes one shard file as a single build writes it: the `files` row, its nodes in
/// the shard's order (each under its parent, with the `contains` edge), and its
/// references with new ids, queued for resolution.
fn write_file(
    tx: &IndexTx<'_>,
    shard: &rusqlite::Connection,
    row: &ShardFile,
    generation: i64,
    refs: &mut super::ref_queue::RefQueue,
) -> Result<(), IndexError> {
    let file = &row.file;
    let file_id = tx.write_file(
        None,
        &FileRecord {
            path: &file.path,
            language: file.language.as_deref(),
            size: file.size,
            mtime_ns: file.mtime_ns,
            digest: file.digest.as_deref(),
            status: &file.status,
            detail: row.detail.as_deref(),
            interface: file.interface.as_deref(),
        },
        generation,
    )?;
    let mut ids: HashMap<i64, i64> = HashMap::new();
    for n in shard_rows::file_nodes(shard, file.id)? {
        let parent = match n.parent_id {
            Some(p) => Some(*ids.get(&p).ok_or_else(|| orphan(file, "node", n.id))?),
            None => None,
        };
        let id = tx.insert_node(&NodeRecord {
            key: &n.key,
            file_id,
            kind: &n.kind,
            name: &n.name,
            qualified_name: &n.qualified_name,
            signature: n.signature.as_deref(),
            start_line: n.start_line,
            end_line: n.end_line,
            start_byte: n.start_byte,
            end_byte: n.end_byte,
            parent_id: parent,
            returns: n.returns.as_deref(),
        })?;
        if let Some(parent) = parent {
            tx.insert_edge(parent, id, "contains", file_id, None, 1.0, "syntax", None)?;
        }
        ids.insert(n.id, id);
    }
    for r in shard_rows::file_refs(shard, file.id)? {
        let src_id = *ids
            .get(&r.src_id)
            .ok_or_else(|| orphan(file, "reference", r.id))?;
        refs.push(Ref {
            id: tx.alloc_ref_id(),
            file_id,
            src_id,
            ..r
        });
    }
    Ok(())
}

/// A shard row whose parent node is not among its file's nodes.
fn orphan(file: &crate::store::files::StoredFile, what: &str, id: i64) -> IndexError {
    IndexError::Shard(format!(
        "the shard's {what} {id} of {} names a node its file does not hold; the shard \
         database is damaged: build it again",
        file.path
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs_parse_and_print() {
        let s: ShardSpec = "2/4".parse().unwrap();
        assert_eq!(s, ShardSpec { k: 2, n: 4 });
        assert_eq!(s.to_string(), "2/4");
        assert_eq!(
            " 1 / 1 ".trim().parse::<ShardSpec>().unwrap(),
            ShardSpec { k: 1, n: 1 }
        );
        for bad in ["0/4", "5/4", "4", "a/b", "1/0", "1/5000", "-1/2", ""] {
            assert!(bad.parse::<ShardSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn every_path_falls_in_exactly_one_shard_and_the_cut_is_even() {
        let n = 4;
        let mut counts = [0u32; 4];
        for i in 0..4000 {
            let s = shard_of(&format!("src/dir{}/file{i}.py", i % 37), n);
            assert!((1..=n).contains(&s));
            counts[(s - 1) as usize] += 1;
        }
        // 1,000 expected per shard; a blake3 cut stays well within ±15%.
        assert!(
            counts.iter().all(|c| (850..=1150).contains(c)),
            "{counts:?}"
        );
        // Pinned: shards of one tree built by different releases must agree, so the
        // cut may never change.
        assert_eq!(shard_of("src/main.rs", 4), 2);
        assert_eq!(shard_of("src/main.rs", 7), 3);
        assert_eq!(shard_of("anything", 1), 1);
    }
}
