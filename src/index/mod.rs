//! The indexing pipeline: walk → compare with the store → hash what moved → parse what
//! changed (in parallel) → write → resolve references → commit.
//!
//! One run is one SQLite transaction: a crash or a kill mid-run leaves the previous
//! index complete and readable, and the next run starts over from it. Paths are stored
//! relative to the root. New rows get ids in path order and document order, so two
//! from-scratch runs over one tree give identical ids whatever the thread timing.

mod import_resolution;
mod interface;
mod parse_cache;
mod ref_queue;
mod relpath;
mod resolve;
pub mod run_lock;
pub mod scip;
pub mod shard;
pub mod worktree;

use resolve::Changes;
pub use resolve::Rule;
pub use scip::ScipReport;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::lang::{self, FileFacts, Language, SymbolKind};
use crate::store::files::{
    load_files, FileRecord, IndexTx, NodeRecord, Ref, RunRecord, SearchedNode, StoredFile,
};
use crate::store::{Store, StoreError};
use crate::walk::{self, WalkError, WalkOptions, WalkedFile};

/// How to index.
#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    /// Re-read and re-parse every file, rebuilding the index from nothing.
    pub full: bool,
    pub walk: WalkOptions,
    /// Write an `index_runs` row even when nothing changed (the CLI does; a freshness
    /// check from the server does not).
    pub record_noop: bool,
    /// SCIP index files (`index --scip`): after the heuristic resolution, the
    /// references of the files they cover and still match are resolved from them
    /// (see [`scip`]). Read before anything is written: an unreadable or corrupt one
    /// fails the run and leaves the database as it was.
    pub scip: Vec<PathBuf>,
    /// `index --shard K/N`: index only the files of shard K of N ([`shard::shard_of`]),
    /// from nothing, and leave their references unresolved for [`shard::merge`].
    pub shard: Option<shard::ShardSpec>,
    /// Tables a long-lived process keeps between its runs (a served workspace); `None`
    /// builds them for each run.
    pub resolver_cache: Option<Arc<ResolverCache>>,
    /// Leave [`IndexReport::nodes`] and [`IndexReport::edges`] at 0 instead of counting
    /// the index's rows (see [`crate::store::files::IndexTx::totals`]): a run that
    /// changed the index counts, and the count reads every page of the smallest index
    /// of `edges` (on the Linux kernel's 2.8M edges about 40–60 ms from a cold cache).
    /// A file watch's runs report no totals.
    pub skip_totals: bool,
}

impl IndexOptions {
    /// These options with a [`ResolverCache`] of their own, for one long-lived workspace
    /// (a served root: an edit seen by the file watch then resolves without reading
    /// every path again). A one-shot command gains nothing from one.
    pub fn with_resolver_cache(self) -> IndexOptions {
        IndexOptions {
            resolver_cache: Some(Arc::new(ResolverCache::default())),
            ..self
        }
    }
}

/// The resolver's file tables ([`resolve::FileTables`]) kept between the runs of one
/// process, with the run they describe (its generation and start time: a database
/// built again from nothing restarts its generations). A run uses them only when that
/// run is still the index's latest (no other process wrote it since), the run adds or
/// removes no file, and no file the lookups read from disk changed (`package.json`,
/// `tsconfig*.json`, `jsconfig*.json`, `go.mod`, `go.work`, `compile_commands.json`,
/// Java sources for their `package` lines). Otherwise it builds them again, as a run
/// without a cache does, and keeps those.
#[derive(Default)]
pub struct ResolverCache {
    slot: Mutex<Option<(RunKey, resolve::FileTables)>>,
    /// Runs that used the kept tables.
    hits: AtomicUsize,
}

impl ResolverCache {
    /// The tables, taken out, when they describe the run `latest`.
    fn take(&self, latest: &RunKey) -> Option<resolve::FileTables> {
        let mut slot = self.slot.lock().ok()?;
        match slot.take() {
            Some((at, tables)) if at == *latest => Some(tables),
            _ => None,
        }
    }

    /// Builds the tables of the index as `conn` reads it now, unless they are kept
    /// already: a run that found nothing to do (the first run of a server) prepares
    /// them for the first edit.
    ///
    /// Errors: [`IndexError::Store`] when the index cannot be read.
    fn warm(&self, conn: &rusqlite::Connection, root: &Path) -> Result<(), IndexError> {
        // One read transaction: the run, its generation and the paths agree.
        let read = conn.unchecked_transaction().map_err(StoreError::from)?;
        let latest: RunKey = (
            crate::store::read_generation(&read).map_err(StoreError::from)?,
            crate::store::files::last_run_started(&read)?,
        );
        let kept = self
            .slot
            .lock()
            .ok()
            .is_some_and(|slot| slot.as_ref().is_some_and(|(at, _)| *at == latest));
        if !kept {
            let tables = resolve::FileTables::new(root, crate::store::files::file_paths(&read)?);
            self.put(latest, tables);
        }
        Ok(())
    }

    /// How many runs used the kept tables.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }

    /// Keeps `tables` as those of the run `at`.
    fn put(&self, at: RunKey, tables: resolve::FileTables) {
        if let Ok(mut slot) = self.slot.lock() {
            *slot = Some((at, tables));
        }
    }

    /// The generation of the run whose tables are kept, if any.
    pub fn generation(&self) -> Option<i64> {
        self.slot.lock().ok()?.as_ref().map(|(at, _)| at.0)
    }
}

/// A recorded run: its generation and start time (`index_runs.started_at`).
type RunKey = (i64, Option<String>);

impl std::fmt::Debug for ResolverCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolverCache")
            .field("generation", &self.generation())
            .finish()
    }
}

/// True for a file the import lookups read from disk while resolving: a run that
/// changes one builds the resolver's tables again. Java sources count: the package a
/// directory's files declare is read from one of them.
fn read_by_lookups(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    import_resolution::is_resolution_config(path)
        || matches!(name, "go.mod" | "go.work" | "compile_commands.json")
        || name.ends_with(".java")
}

/// Progress of a run, for a progress bar or log lines. Counts are files.
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    /// The walk found `files`; `to_read` of them must be hashed (and maybe parsed).
    Walked { files: usize, to_read: usize },
    /// `done` of `total` files read, hashed and parsed when needed.
    Read { done: usize, total: usize },
    /// Resolving `refs` references.
    Resolving { refs: usize },
}

/// What a run did. Serialized in camelCase for `index --json`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexReport {
    /// Regular files the walk found.
    pub files_seen: usize,
    /// Files read and hashed because their stat moved or they are new.
    pub files_hashed: usize,
    /// Files parsed (or re-recorded as assets) because their digest changed.
    pub files_parsed: usize,
    /// Of `files_parsed`, the files whose facts came from the parse cache (a content
    /// an earlier incremental run parsed) instead of a parse.
    pub files_reused: usize,
    /// Files gone from disk, dropped with their nodes and edges.
    pub files_removed: usize,
    /// Files whose stat moved but whose digest did not.
    pub files_touched: usize,
    /// References (imports, calls, bases) resolved again in this run.
    pub refs_resolved: usize,
    /// Totals in the index after the run (0 with [`IndexOptions::skip_totals`]).
    pub nodes: i64,
    pub edges: i64,
    /// Index generation after the run.
    pub generation: i64,
    /// True when the run changed the index contents (the generation moved).
    pub changed: bool,
    /// Wall time, milliseconds.
    pub duration_ms: u64,
    /// Wall time of the walk (listing and stat of every file), milliseconds.
    pub walk_ms: u64,
    /// Wall time of reading, hashing, parsing and writing the files that moved, ms.
    pub parse_ms: u64,
    /// Wall time of resolving references and writing their edges, ms.
    pub resolve_ms: u64,
    /// What the SCIP indexes of `--scip` did; `None` without them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scip: Option<ScipReport>,
    /// Paths that could not be listed, stat-ed or read because of an error other than
    /// "not found" (permissions, I/O). In an incremental run a file indexed before
    /// keeps its rows as they were (it is not taken for deleted, and it is read again
    /// next run); a new one is recorded with status `unreadable`; `--full` keeps only
    /// what it could read. Each is logged as a warning.
    pub unreadable: usize,
    /// The first [`MAX_UNREADABLE_LISTED`] of them, as `PATH: ERROR` (`PATH` is `.`
    /// for the root, `?` when the error names no path).
    pub unreadable_paths: Vec<String>,
    /// Edges with provenance `scip` that this run removed because their files changed
    /// or what they call went (their references were resolved again by the
    /// heuristic rules); 0 when `--scip` was given (it puts them back where it can).
    pub scip_edges_dropped: i64,
    /// Who listed the files: `git` in a git work tree (tracked files plus untracked ones
    /// no ignore rule hides), `directories` otherwise.
    pub file_source: walk::FileSource,
    /// Set when ignore rules hide every file, or more code than was indexed: the rules
    /// that did it and how to override them (also logged as a warning). Checked when a
    /// run finds no file, builds from nothing, or rebuilds (`--full`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignore_warning: Option<walk::ignore_audit::IgnoreWarning>,
    /// The process id of the server whose file watch had the index current, when this
    /// command asked it instead of walking (`file_source` is then `server` and nothing
    /// was read); `None` for a run of this process.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served_by: Option<u32>,
    /// The index of another git worktree this new database started from, and how it
    /// was copied ([`worktree::Seed`]); `None` when it did not start from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeded_from: Option<worktree::Seed>,
}

/// Most unreadable paths listed in [`IndexReport::unreadable_paths`].
pub const MAX_UNREADABLE_LISTED: usize = 20;

impl IndexReport {
    /// Counts one path that could not be read, listing it while there is room.
    fn note_unreadable(&mut self, path: Option<&str>, message: &str) {
        self.unreadable += 1;
        if self.unreadable_paths.len() < MAX_UNREADABLE_LISTED {
            let path = match path {
                None => "?",
                Some("") => ".",
                Some(p) => p,
            };
            self.unreadable_paths.push(format!("{path}: {message}"));
        }
    }
}

/// How a stored index differs from the disk.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Staleness {
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
}

impl Staleness {
    pub fn is_fresh(&self) -> bool {
        self.added == 0 && self.changed == 0 && self.removed == 0
    }
}

/// Errors of the pipeline.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Walk(#[from] WalkError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A `--scip` file could not be read.
    #[error("cannot read the SCIP index {path}: {source}")]
    ScipRead {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A `--scip` file is not a SCIP index.
    #[error(
        "{path} is not a usable SCIP index ({message}); pass the file the SCIP indexer \
         wrote (scip-python, scip-typescript, ...: `index.scip` by default)"
    )]
    ScipDecode { path: PathBuf, message: String },
    /// The run lock ([`run_lock::RunLock`]) could not be taken for another reason than
    /// permissions (which are [`StoreError::Unwritable`]).
    #[error("cannot take the index run lock {path}: {error}")]
    RunLock {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The walk found no file because ignore rules hide every one, while the index
    /// holds `files` files: emptying it is refused (the rules, or a missing
    /// `--no-ignore`, are almost surely a mistake; deleting the files really empties
    /// it). `message` names the rules and the override.
    #[error("{message} The index keeps its {files} files: nothing was removed.")]
    AllHidden { message: String, files: usize },
    /// Shards that cannot be merged, or a merge that cannot write its output; the
    /// message says which and what to do.
    #[error("{0}")]
    Shard(String),
}

impl From<rusqlite::Error> for IndexError {
    fn from(e: rusqlite::Error) -> Self {
        IndexError::Store(StoreError::Sqlite(e))
    }
}

/// What reading one file produced.
enum Outcome {
    /// Digest equal to the stored one: only the stat is new.
    Same,
    /// The file vanished between the walk and the read.
    Vanished,
    /// The file was indexed before and cannot be read now (permissions, I/O): its
    /// rows stay as they were, its stat is not updated (so it is read again next run).
    Unreadable(String),
    /// New contents (or a new file).
    Content(Box<Content>),
}

struct Content {
    status: &'static str,
    language: Option<Language>,
    digest: Option<String>,
    detail: Option<String>,
    lines: u32,
    facts: Option<FileFacts>,
    /// The parse cache's row holding this content's facts: `facts` is `None` until
    /// the writing thread decodes them ([`fill_from_cache`]).
    cached: Option<i64>,
    /// The facts encoded for the parse cache, when this run stores what it parses.
    encoded: Option<Vec<u8>>,
}

/// Reads, hashes and (when needed) parses one file. Never fails: problems become a
/// status with a detail. With a parse-cache plan, a content whose facts it holds is
/// not parsed (`Content::cached`), and the facts of one parsed are encoded for it.
fn read_file(
    root: &Path,
    w: &WalkedFile,
    prev: Option<&StoredFile>,
    opts: &IndexOptions,
    cache: Option<&parse_cache::Plan>,
) -> Outcome {
    let content = |status, digest, detail: String| Content {
        status,
        language: None,
        digest,
        detail: Some(detail),
        lines: 0,
        facts: None,
        cached: None,
        encoded: None,
    };
    if w.size > opts.walk.max_file_size {
        // Not read, so only its size can tell a change; same size, nothing to redo.
        if let Some(p) = prev {
            if !opts.full && p.status == "too_large" && p.size == w.size as i64 {
                return Outcome::Same;
            }
        }
        return Outcome::Content(Box::new(content(
            "too_large",
            None,
            format!(
                "{} bytes, over the size cap of {} bytes (--max-file-size)",
                w.size, opts.walk.max_file_size
            ),
        )));
    }
    // The stat said at most the size cap; a file that grew past it meanwhile is read
    // next time, whole, once its stat moves again.
    let bytes =
        match walk::read_regular_under(root, &w.abs_path, opts.walk.max_file_size.max(w.size)) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Outcome::Vanished,
            Err(e) if prev.is_some() => return Outcome::Unreadable(e.to_string()),
            Err(e) => {
                return Outcome::Content(Box::new(content("unreadable", None, e.to_string())))
            }
        };
    let digest = walk::digest(&bytes);
    if let Some(p) = prev {
        if !opts.full && p.digest.as_deref() == Some(digest.as_str()) {
            return Outcome::Same;
        }
    }
    let lines = bytecount_lines(&bytes);
    if walk::looks_binary(&bytes) {
        let mut c = content("binary", Some(digest), "contains NUL bytes".into());
        c.lines = lines;
        c.detail = None;
        return Outcome::Content(Box::new(c));
    }
    let language = Language::detect(&w.path, &bytes);
    if opts.walk.default_excludes
        && language == Some(Language::JavaScript)
        && walk::looks_minified(&bytes)
    {
        // Minified code under an ordinary name: its one-letter symbols and packed calls
        // would crowd the graph; recorded as a file, not parsed.
        let mut c = content(
            "asset",
            Some(digest),
            format!(
                "minified JavaScript (lines average over {} characters): not parsed; \
                 --no-default-excludes parses it",
                walk::MINIFIED_AVERAGE_LINE
            ),
        );
        c.lines = lines;
        return Outcome::Content(Box::new(c));
    }
    if let (Some(plan), Some(lang)) = (cache, language) {
        if let Some(row) = plan.lookup(&digest, lang) {
            // The status and facts come with the row, on the writing thread.
            return Outcome::Content(Box::new(Content {
                status: "parsed",
                language,
                digest: Some(digest),
                detail: None,
                lines,
                facts: None,
                cached: Some(row),
                encoded: None,
            }));
        }
    }
    let (status, facts, detail) = match language {
        None => ("asset", None, None),
        Some(lang) => match lang::extract(lang, &bytes) {
            Ok(f) => {
                let (status, detail) = parse_cache::parsed_status(&f);
                (status, Some(f), detail)
            }
            Err(e) => ("parse_errors", None, Some(e.to_string())),
        },
    };
    let encoded = facts
        .as_ref()
        .zip(cache)
        .and_then(|(facts, plan)| plan.encode(facts));
    Outcome::Content(Box::new(Content {
        status,
        language,
        digest: Some(digest),
        detail,
        lines,
        facts,
        cached: None,
        encoded,
    }))
}

/// On the writing thread: decodes the facts of the contents the parse cache held, and
/// stores the encoded facts of those parsed. A row that is gone or does not decode
/// makes the file read and parsed here instead. Returns how many rows were stored.
///
/// Errors: SQLite's.
fn fill_from_cache(
    root: &Path,
    tx: &IndexTx<'_>,
    chunk: &[(&WalkedFile, Option<&StoredFile>)],
    outcomes: &mut [Outcome],
    opts: &IndexOptions,
    generation: i64,
    report: &mut IndexReport,
) -> Result<usize, IndexError> {
    let mut stored = 0;
    for ((w, prev), outcome) in chunk.iter().zip(outcomes.iter_mut()) {
        let Outcome::Content(content) = outcome else {
            continue;
        };
        if let Some(row) = content.cached {
            match parse_cache::take(tx, row, generation, &w.path)? {
                Some(facts) => {
                    (content.status, content.detail) = parse_cache::parsed_status(&facts);
                    content.facts = Some(facts);
                    report.files_reused += 1;
                    continue;
                }
                None => {
                    *outcome = read_file(root, w, prev.filter(|_| !opts.full), opts, None);
                    let Outcome::Content(content) = outcome else {
                        continue;
                    };
                    // Stored again, as a parse in this run would have been.
                    content.encoded = content.facts.as_ref().and_then(lang::encode_facts);
                }
            }
        }
        let Outcome::Content(content) = outcome else {
            continue;
        };
        if let (Some(bytes), Some(digest), Some(language)) =
            (content.encoded.take(), &content.digest, content.language)
        {
            tx.parse_cache_put(
                digest,
                language.name(),
                lang::EXTRACTOR_ID,
                &bytes,
                generation,
            )?;
            stored += 1;
        }
    }
    Ok(stored)
}

/// Number of lines (a last line without a newline counts).
fn bytecount_lines(bytes: &[u8]) -> u32 {
    let n = bytes.iter().filter(|&&b| b == b'\n').count();
    let extra = usize::from(!bytes.is_empty() && bytes.last() != Some(&b'\n'));
    (n + extra).max(1) as u32
}

/// The stable node key of a symbol: `mod:`, `func:` or `class:` + `PATH::Q`.
fn symbol_key(kind: SymbolKind, path: &str, qualified: &str) -> String {
    let prefix = match kind {
        SymbolKind::Module => "mod",
        SymbolKind::Function | SymbolKind::Method => "func",
        _ => "class",
    };
    format!("{prefix}:{path}::{qualified}")
}

/// The node keys of a file's symbols, in their order: [`symbol_key`], with `#2`, `#3`,
/// ... appended to the second, third, ... symbol of one key.
fn symbol_keys(path: &str, symbols: &[crate::lang::Symbol]) -> Vec<String> {
    let mut seen: HashMap<String, u32> = HashMap::new();
    symbols
        .iter()
        .map(|s| {
            let key = symbol_key(s.kind, path, &s.qualified_name);
            let n = seen.entry(key.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                format!("{key}#{n}")
            } else {
                key
            }
        })
        .collect()
}

/// The key of a file's node.
pub fn file_key(path: &str) -> String {
    format!("file:{path}")
}

/// Files handed to the parser pool at a time; bounds memory on huge trees while the
/// writer works on the previous chunk.
const CHUNK: usize = 256;

/// Indexes `root` into `store`, incrementally unless `opts.full`.
///
/// The run goes in phases, each a function below: [`compare`] (the walk against the
/// stored files), [`read_and_write`] (hash, parse and write what moved, parsing the
/// next chunk while this one is written), [`resolve_and_apply_scip`] (references,
/// secondary indexes, SCIP), [`commit_run`] (the run record and the totals).
///
/// One run at a time per database, across processes: the run first takes the
/// database's run lock ([`run_lock`]), waiting for a run elsewhere to finish.
///
/// Errors: the root is not a directory, a bad exclude glob, the run lock cannot be
/// taken, or a database error (then nothing of this run is committed). A path that cannot be listed, stat-ed or read is
/// not an error: it is counted in [`IndexReport::unreadable`], and its rows are kept.
pub fn index(
    store: &Store,
    root: &Path,
    opts: &IndexOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<IndexReport, IndexError> {
    let _run = take_run_lock(store)?;
    index_locked(store, store.path(), root, opts, progress)
}

/// The database's run lock, waited for (`None` for a private file: a build from nothing
/// is locked through the database it becomes).
///
/// Errors: the database can only be read; the lock cannot be taken.
fn take_run_lock(store: &Store) -> Result<Option<run_lock::RunLock>, IndexError> {
    if let Some(e) = store.read_only_error() {
        return Err(e.into());
    }
    if store.is_private() {
        return Ok(None);
    }
    Ok(Some(run_lock::RunLock::acquire(store.path())?))
}

/// Like [`index`], but without waiting: `Ok(None)` at once when another process holds
/// the database's run lock (it is indexing it now), so a caller that has an index to
/// answer from need not wait for that run.
///
/// Errors: as [`index`].
pub fn index_unless_busy(
    store: &Store,
    root: &Path,
    opts: &IndexOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Option<IndexReport>, IndexError> {
    if let Some(e) = store.read_only_error() {
        return Err(e.into());
    }
    if store.is_private() {
        return index_locked(store, store.path(), root, opts, progress).map(Some);
    }
    match run_lock::RunLock::try_acquire(store.path())? {
        Some(_run) => index_locked(store, store.path(), root, opts, progress).map(Some),
        None => Ok(None),
    }
}

/// An incremental run that stats only `changed` (absolute paths beneath `root`, as a
/// file watch reported them) instead of walking the tree: every other indexed file is
/// taken as unchanged. It applies when each path is a file the index holds, now a
/// regular file or gone; otherwise (a new path, a directory, a symbolic link, a path
/// that cannot be stat-ed, no index yet, `--full`, SCIP inputs) it is an ordinary run
/// with a walk ([`index`]), so the outcome is always that of a walk when the watch
/// reported every change. `IndexReport::file_source` says which: `events` or the
/// walk's.
///
/// Errors: as [`index`].
pub fn index_paths(
    store: &Store,
    root: &Path,
    opts: &IndexOptions,
    progress: &(dyn Fn(Progress) + Sync),
    changed: &[PathBuf],
) -> Result<IndexReport, IndexError> {
    let _run = take_run_lock(store)?;
    let started = Instant::now();
    if let Some((stated, stored)) = known_changes(store, root, opts, changed)? {
        let walked = walk::Walk {
            files: stated.files,
            problems: Vec::new(),
            source: walk::FileSource::Events,
        };
        return index_walked(
            store,
            root,
            opts,
            progress,
            started,
            Vec::new(),
            &walked,
            Some(stored),
        );
    }
    index_locked(store, store.path(), root, opts, progress)
}

/// The paths a file watch listed, stat-ed, with their `files` rows by path.
type KnownChanges = (walk::Stated, HashMap<String, StoredFile>);

/// The stat of `changed` and their `files` rows, when a run over them alone can stand
/// for a walk (see [`index_paths`]); `None` when it cannot.
fn known_changes(
    store: &Store,
    root: &Path,
    opts: &IndexOptions,
    changed: &[PathBuf],
) -> Result<Option<KnownChanges>, IndexError> {
    if changed.is_empty() || opts.full || !opts.scip.is_empty() {
        return Ok(None);
    }
    let Some(stated) = walk::stat_known(root, changed) else {
        return Ok(None);
    };
    let paths: Vec<&str> = stated
        .files
        .iter()
        .map(|f| f.path.as_str())
        .chain(stated.missing.iter().map(String::as_str))
        .collect();
    let conn = store.conn()?;
    let stored = crate::store::files::load_files_at(&conn, &paths)?;
    if stored.len() != paths.len() || crate::store::shard::read_meta(&conn, store.path())?.is_some()
    {
        return Ok(None);
    }
    Ok(Some((stated, stored)))
}

/// [`index`] with the run lock held (or not needed). `db`: the database the run is
/// for, whose files the walk leaves out ([`own_files`]): `store`'s own, or the final
/// name of the `DB.partial-PID` file a build from nothing writes.
fn index_locked(
    store: &Store,
    db: &Path,
    root: &Path,
    opts: &IndexOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<IndexReport, IndexError> {
    let started = Instant::now();
    // SCIP files first: one that cannot be used fails the run before anything is written.
    let scip_inputs = opts
        .scip
        .iter()
        .map(|p| scip::load(p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut walked = walk::walk(root, &opts.walk)?;
    walked.drop_database_files(root, &own_files(db));
    index_walked(
        store,
        root,
        opts,
        progress,
        started,
        scip_inputs,
        &walked,
        None,
    )
}

/// The databases of the index at `db`: itself and its agent-memory database
/// ([`crate::store::database_file::memory_db_path`]). No walk for that index lists them
/// or the files they keep beside themselves ([`walk::Walk::drop_database_files`]).
pub fn own_files(db: &Path) -> Vec<PathBuf> {
    vec![
        db.to_path_buf(),
        crate::store::database_file::memory_db_path(db),
    ]
}

/// What the walk says must be done, against the stored files.
struct Plan<'a> {
    /// Stored files the walk did not find and that no walk problem covers, by path.
    removed: Vec<&'a StoredFile>,
    /// Files whose stat moved or that are new (all of them with `full`), with their
    /// stored row.
    to_read: Vec<(&'a WalkedFile, Option<&'a StoredFile>)>,
}

/// The stored files a run over the whole walked tree needs, and how many files the
/// index holds: with `full` every row; otherwise only the rows of walked files whose
/// stat moved and of stored files the walk did not find. The walk (sorted by path) is
/// merged with `files` in path order, so the files whose stat is unchanged (all of
/// them in a run with nothing to do) cost no allocation and no hash: on the Linux
/// kernel's 78k files, loading every row into a map and comparing took 175 ms of the
/// no-change run.
///
/// Returns the rows by path, the count, and (unless `full`) for each walked file, in
/// order, whether the index holds it with the same stat.
#[allow(clippy::type_complexity)]
fn load_for_walk(
    conn: &rusqlite::Connection,
    walked: &walk::Walk,
    full: bool,
) -> Result<(HashMap<String, StoredFile>, usize, Option<Vec<bool>>), IndexError> {
    if full || !sorted_by_path(&walked.files) {
        let all = load_files(conn)?;
        let count = all.len();
        return Ok((all, count, None));
    }
    let files = &walked.files;
    let mut next = 0;
    let mut wanted = Vec::new();
    let mut unchanged = vec![false; files.len()];
    let count = crate::store::files::for_each_file_stat(conn, |id, path, size, mtime_ns| {
        // Walked files before `path` are not stored: new.
        while next < files.len() && files[next].path.as_str() < path {
            next += 1;
        }
        match files.get(next) {
            Some(w) if w.path == path => {
                if size == w.size as i64 && mtime_ns == w.mtime_ns {
                    unchanged[next] = true;
                } else {
                    wanted.push(id);
                }
                next += 1;
            }
            // Not walked: removed, unless a walk problem covers it.
            _ => wanted.push(id),
        }
    })?;
    Ok((
        crate::store::files::load_files_by_id(conn, &wanted)?,
        count,
        Some(unchanged),
    ))
}

/// Whether `files` are in path order (as every walk lists them), so that they can be
/// merged with `files` rows in path order and searched by path.
fn sorted_by_path(files: &[WalkedFile]) -> bool {
    files.windows(2).all(|w| w[0].path < w[1].path)
}

/// Compares the walk with the stored files. A stored file the walk did not find is
/// removed only when no walk problem covers it: a directory that could not be listed
/// hides its files, it does not delete them. `unchanged`: `None` when `stored` holds
/// the row of every walked path the index has; else ([`load_for_walk`]) per walked
/// file whether the index holds it with the same stat (its row is then left out of
/// `stored`).
fn compare<'a>(
    walked: &'a walk::Walk,
    stored: &'a HashMap<String, StoredFile>,
    full: bool,
    unchanged: Option<&[bool]>,
) -> Plan<'a> {
    // A walk lists its files sorted by path; a walk a test shapes may not.
    let unsorted: Option<std::collections::HashSet<&str>> = (!sorted_by_path(&walked.files))
        .then(|| walked.files.iter().map(|w| w.path.as_str()).collect());
    let walked_path = |p: &str| match &unsorted {
        Some(set) => set.contains(p),
        None => walked
            .files
            .binary_search_by(|w| w.path.as_str().cmp(p))
            .is_ok(),
    };
    let mut removed: Vec<&StoredFile> = stored
        .values()
        .filter(|s| !walked_path(&s.path))
        .filter(|s| !walked.problems.iter().any(|p| p.covers(&s.path)))
        .collect();
    removed.sort_by(|a, b| a.path.cmp(&b.path));
    let to_read = walked
        .files
        .iter()
        .enumerate()
        .filter_map(|(i, w)| match stored.get(&w.path) {
            Some(s) if !full && s.size == w.size as i64 && s.mtime_ns == w.mtime_ns => None,
            None if !full && unchanged.is_some_and(|u| u[i]) => None,
            prev => Some((w, prev)),
        })
        .collect();
    Plan { removed, to_read }
}

/// What the writing phases gather for resolution.
#[derive(Default)]
struct Pending {
    /// References of re-parsed files: inserted after resolution, with their status.
    new_refs: ref_queue::RefQueue,
    changes: Changes,
    /// A file came or went (imports may resolve differently).
    paths_changed: bool,
    /// Rows this run stored in the parse cache.
    cache_rows_stored: usize,
}

/// Whether the files an incremental run reads again or removes hold at least
/// `resolve::SUSPEND_MIN` references and a third of all of them: a checkout replaces
/// most of those with as many. A walk of the whole tree that reads under a tenth of the
/// files is not asked (one-file edits count nothing); a run over known paths counts its
/// files' references through `refs_file`.
fn rewrites_most_references(
    tx: &IndexTx<'_>,
    to_read: &[(&WalkedFile, Option<&StoredFile>)],
    removed: &[&StoredFile],
    stored_count: usize,
) -> Result<bool, IndexError> {
    let ids: Vec<i64> = to_read
        .iter()
        .filter_map(|(_, prev)| prev.map(|p| p.id))
        .chain(removed.iter().map(|s| s.id))
        .collect();
    if ids.len() * 10 < stored_count.max(1) {
        return Ok(false);
    }
    let rewritten = tx.count_refs_of_files(&ids)?;
    Ok(rewritten >= resolve::SUSPEND_MIN && rewritten * 3 >= tx.count_refs()?)
}

/// The run after the walk: compare, write, resolve, commit. `walked` may come from
/// anywhere (tests inject walk problems here). `scope`: the `files` rows of the only
/// paths `walked` looked at ([`index_paths`]); every other stored file is unchanged.
/// `None`: `walked` is the whole tree.
#[allow(clippy::too_many_arguments)]
fn index_walked(
    store: &Store,
    root: &Path,
    opts: &IndexOptions,
    progress: &(dyn Fn(Progress) + Sync),
    started: Instant,
    scip_inputs: Vec<scip::ScipInput>,
    walked: &walk::Walk,
    scope: Option<HashMap<String, StoredFile>>,
) -> Result<IndexReport, IndexError> {
    let started_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    // A shard is always built from nothing, of its part of the tree; the ignore audit
    // below judges the whole walk.
    let whole = walked;
    let cut = opts.shard.map(|spec| shard::cut(walked, spec, root));
    let walked = cut.as_ref().map_or(walked, |(w, _)| w);
    let mut conn = store.conn()?;
    let partial = scope.is_some();
    let (stored, stored_count, unchanged) = match scope {
        Some(rows) => {
            let count = rows.len();
            (rows, count, None)
        }
        None => load_for_walk(&conn, walked, opts.full)?,
    };
    // A shard's references are unresolved: an index of the whole tree made from one
    // is built again from nothing. And a shard never overwrites such an index.
    let held_shard = crate::store::shard::read_meta(&conn, store.path())?;
    match (&cut, &held_shard) {
        (Some(_), None) if stored_count > 0 => {
            return Err(IndexError::Shard(format!(
                "{} holds an index of the whole tree, not a shard; a shard is written to \
                 its own database (--db SHARD.db)",
                store.path().display()
            )));
        }
        (None, Some(m)) => tracing::info!(
            "{} held shard {}/{}: building it again as an index of the whole tree",
            store.path().display(),
            m.k,
            m.n
        ),
        _ => {}
    }
    let forced;
    let opts = if (cut.is_some() || held_shard.is_some()) && !opts.full {
        forced = IndexOptions {
            full: true,
            ..opts.clone()
        };
        &forced
    } else {
        opts
    };
    let Plan { removed, to_read } = compare(walked, &stored, opts.full, unchanged.as_deref());
    // The files the index holds after this run, for a run over some paths only.
    let files_seen = if partial {
        let all: i64 = conn.query_row("SELECT count(*) FROM files", [], |r| r.get(0))?;
        (all as usize).saturating_sub(removed.len())
    } else {
        walked.files.len()
    };
    let walk_ms = started.elapsed().as_millis() as u64;
    if partial {
        tracing::info!(
            "no walk: {} changed paths stat-ed in {walk_ms} ms",
            stored.len()
        );
    } else {
        tracing::info!("walk: {} files in {walk_ms} ms", walked.files.len());
    }
    progress(Progress::Walked {
        files: files_seen,
        to_read: to_read.len(),
    });

    let mut report = IndexReport {
        files_seen,
        files_hashed: to_read.len(),
        walk_ms,
        file_source: walked.source,
        ..IndexReport::default()
    };
    for p in &walked.problems {
        report.note_unreadable(p.path.as_deref(), &p.message);
    }
    if !partial && (whole.files.is_empty() || stored_count == 0 || opts.full) {
        let is_code = |p: &str| crate::lang::Language::from_path(p).is_some();
        report.ignore_warning = walk::ignore_audit::audit(root, whole, &opts.walk, &is_code);
        match &report.ignore_warning {
            Some(w) if whole.files.is_empty() && stored_count > 0 => {
                return Err(IndexError::AllHidden {
                    message: w.message.clone(),
                    files: stored_count,
                });
            }
            Some(w) => tracing::warn!("{}", w.message),
            None => {}
        }
    }
    if to_read.is_empty()
        && removed.is_empty()
        && !opts.full
        && !opts.record_noop
        && scip_inputs.is_empty()
    {
        report.generation = crate::store::read_generation(&conn)?;
        if let Some(cache) = &opts.resolver_cache {
            cache.warm(&conn, root)?;
        }
        report.duration_ms = started.elapsed().as_millis() as u64;
        return Ok(report);
    }

    // Building from nothing: load without secondary indexes (built at the end). No run
    // checks foreign keys or checkpoints the log as it commits (see `RunSettings`).
    let fresh = opts.full || (!partial && stored_count == 0);
    let mut conn = RunSettings::new(&mut conn)?;
    let tx = IndexTx::begin(&mut conn)?;
    let old_generation = tx.generation()?;
    let generation = old_generation + 1;
    // Edges a SCIP index made: counted before and after this run's changes, to warn
    // when the heuristic rules took some of them over.
    let scip_edges_before = if tx.scip_file_ids()?.is_empty() {
        None
    } else {
        Some(tx.count_scip_edges()?)
    };
    if opts.full {
        tx.clear_all()?;
    }
    // A run that rewrites a large share of the references (a branch switch, a rebase)
    // deletes the old rows and writes the new ones without the indexes that only name
    // and key lookups read; the resolver scans for those instead (see
    // `IndexTx::suspend_lookup_indexes`).
    let suspended = if fresh {
        tx.suspend_indexes()?
    } else if cut.is_none() && rewrites_most_references(&tx, &to_read, &removed, stored_count)? {
        let t = Instant::now();
        let sqls = tx.suspend_lookup_indexes()?;
        tracing::debug!(
            "{} lookup indexes suspended in {} ms",
            sqls.len(),
            t.elapsed().as_millis()
        );
        sqls
    } else {
        Vec::new()
    };
    // A private build file's search table is built on a thread of its own and copied
    // in after the commit, before anyone can open the file.
    if fresh && store.is_private() {
        tx.build_search_beside(store.path())?;
    }
    let mut pending = Pending {
        paths_changed: opts.full,
        ..Pending::default()
    };
    let t = Instant::now();
    let cache_plan = parse_cache::Plan::new(&tx, fresh, cut.is_some())?;
    let plan_ms = t.elapsed().as_secs_f64() * 1e3;

    if !opts.full {
        let gone: Vec<(i64, bool)> = removed.iter().map(|s| (s.id, false)).collect();
        tx.delete_search_rows(&gone, &|_, _, _| false)?;
    }
    for gone in &removed {
        if !opts.full {
            pending.changes.remove(&tx, gone)?;
            tx.delete_file(gone.id)?;
        }
        report.files_removed += 1;
        pending.paths_changed = true;
    }

    read_and_write(
        root,
        &tx,
        &to_read,
        opts,
        generation,
        progress,
        &mut report,
        &mut pending,
        cache_plan.as_ref(),
    )?;
    if pending.cache_rows_stored > 0 || report.files_reused > 0 {
        let t = Instant::now();
        let (trimmed, kept) = tx.parse_cache_trim(lang::EXTRACTOR_ID, parse_cache::CAP_BYTES)?;
        tracing::debug!(
            "parse cache: {} files reused, {} stored, {trimmed} rows trimmed, {:.1} MiB kept; keys read in {plan_ms:.1} ms, trimmed in {:.1} ms",
            report.files_reused,
            pending.cache_rows_stored,
            kept as f64 / (1u64 << 20) as f64,
            t.elapsed().as_secs_f64() * 1e3
        );
    }

    // The parsers are done with the cores: the search table's thread may take one.
    tx.start_search_build();
    let mut changed = opts.full || report.files_parsed > 0 || report.files_removed > 0;
    report.parse_ms = started.elapsed().as_millis() as u64 - walk_ms;
    tracing::info!(
        "read, parse and write: {} files in {} ms",
        to_read.len(),
        report.parse_ms
    );
    if cut.is_some() {
        // A shard resolves nothing: what its references name is mostly in other shards.
        for r in pending.new_refs.drain_in_id_order() {
            tx.insert_ref(&r, "unresolved", 0, None)?;
        }
    }
    // A manifest or tsconfig that came, went or moved may change any import.
    let touched = || {
        to_read
            .iter()
            .map(|(w, _)| w.path.as_str())
            .chain(removed.iter().map(|s| s.path.as_str()))
    };
    let configs_moved = touched().any(import_resolution::is_resolution_config);
    // The kept tables serve when no file came or went and no file the lookups read
    // changed; taken out now, put back only after the commit.
    let lookups_moved = touched().any(read_by_lookups);
    let cache = opts.resolver_cache.as_deref();
    let kept = match cache {
        Some(c) => c
            .take(&(old_generation, tx.last_run_started()?))
            .filter(|_| !fresh && !pending.paths_changed && !lookups_moved)
            .map(|mut tables| {
                c.hits.fetch_add(1, Ordering::Relaxed);
                // The files read again have new references: their includes too.
                tables.forget_includes(to_read.iter().filter_map(|(_, s)| s.map(|s| s.id)));
                tables
            }),
        None => None,
    };
    let (scip_changed, tables) = resolve_and_apply_scip(
        &tx,
        root,
        fresh,
        configs_moved,
        pending,
        kept,
        &suspended,
        scip_edges_before,
        &scip_inputs,
        &mut report,
        progress,
    )?;
    changed |= scip_changed;
    report.resolve_ms = started.elapsed().as_millis() as u64 - walk_ms - report.parse_ms;
    tracing::info!(
        "resolved {} references in {} ms",
        report.refs_resolved,
        report.resolve_ms
    );
    let new_generation = if changed { generation } else { old_generation };
    report.duration_ms = started.elapsed().as_millis() as u64;
    report.generation = new_generation;
    report.changed = changed;
    crate::store::shard::write_meta(&tx, cut.as_ref().map(|(_, meta)| meta))?;
    if !opts.skip_totals {
        (report.nodes, report.edges) = tx.totals(new_generation, changed)?;
    }
    let search = tx.take_search_build();
    let t = Instant::now();
    commit_run(tx, &started_at, opts.full, &mut report)?;
    tracing::debug!("committed in {} ms", t.elapsed().as_millis());
    if let (Some(cache), Some(tables)) = (cache, tables) {
        cache.put((new_generation, Some(started_at.clone())), tables);
    }
    if let Some(search) = search {
        let t = Instant::now();
        search.finish(store.path())?;
        tracing::debug!("search table copied in {} ms", t.elapsed().as_millis());
    }
    Ok(report)
}

/// Reads, hashes and parses the files of `to_read` on the thread pool, chunk by chunk,
/// and writes each chunk on this thread while the pool reads the next one. Files are
/// read beneath `root` ([`walk::read_regular_under`]: a directory swapped for a symbolic
/// link since the walk is refused, not followed out).
#[allow(clippy::too_many_arguments)]
fn read_and_write(
    root: &Path,
    tx: &IndexTx<'_>,
    to_read: &[(&WalkedFile, Option<&StoredFile>)],
    opts: &IndexOptions,
    generation: i64,
    progress: &(dyn Fn(Progress) + Sync),
    report: &mut IndexReport,
    pending: &mut Pending,
    cache: Option<&parse_cache::Plan>,
) -> Result<(), IndexError> {
    // Parse chunk k+1 on the pool while this thread writes chunk k.
    let done = AtomicUsize::new(0);
    let total = to_read.len();
    let read_chunk = |chunk: &[(&WalkedFile, Option<&StoredFile>)]| -> Vec<Outcome> {
        chunk
            .par_iter()
            .map(|(w, prev)| {
                let out = read_file(root, w, prev.filter(|_| !opts.full), opts, cache);
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if d.is_multiple_of(64) || d == total {
                    progress(Progress::Read { done: d, total });
                }
                out
            })
            .collect()
    };
    let chunks: Vec<&[(&WalkedFile, Option<&StoredFile>)]> = to_read.chunks(CHUNK).collect();
    // This thread's time: writing, and waiting for the pool's next chunk (the first
    // chunk is read before anything can be written, so it counts as waiting).
    let started = Instant::now();
    let mut read_ahead = chunks.first().map(|c| read_chunk(c));
    let mut waited = started.elapsed();
    for (k, chunk) in chunks.iter().enumerate() {
        let mut outcomes = read_ahead.take().unwrap_or_default();
        pending.cache_rows_stored +=
            fill_from_cache(root, tx, chunk, &mut outcomes, opts, generation, report)?;
        let next = chunks.get(k + 1);
        let (written, next_outcomes) = std::thread::scope(|scope| {
            let reader = next.map(|c| scope.spawn(|| read_chunk(c)));
            // The search rows of every file this chunk clears or deletes go first, in
            // one statement (see `IndexTx::delete_search_rows`), but for the symbols
            // that keep their key, kind, names and signature: their rows stay as they
            // are (a checkout moves the lines of most symbols, not what search reads).
            let mut unchanged: HashMap<i64, HashMap<String, SearchedNode<'_>>> = HashMap::new();
            for ((w, prev), outcome) in chunk.iter().zip(&outcomes) {
                let (Some(prev), Outcome::Content(content)) =
                    (prev.filter(|_| !opts.full), outcome)
                else {
                    continue;
                };
                let Some(facts) = &content.facts else {
                    continue;
                };
                if prev.language.as_deref() != content.language.map(Language::name) {
                    continue;
                }
                let by_key = symbol_keys(&w.path, &facts.symbols)
                    .into_iter()
                    .zip(&facts.symbols)
                    .map(|(key, s)| {
                        let node = SearchedNode {
                            kind: s.kind.name(),
                            name: &s.name,
                            qualified_name: &s.qualified_name,
                            signature: (!s.signature.is_empty()).then_some(s.signature.as_str()),
                        };
                        (key, node)
                    })
                    .collect();
                unchanged.insert(prev.id, by_key);
            }
            let stays = |file_id: i64, key: &str, node: &SearchedNode<'_>| {
                unchanged
                    .get(&file_id)
                    .and_then(|by_key| by_key.get(key))
                    .is_some_and(|new| new == node)
            };
            let cleared: Vec<(i64, bool)> = chunk
                .iter()
                .zip(&outcomes)
                .filter_map(|((_, prev), outcome)| {
                    let prev = prev.filter(|_| !opts.full)?;
                    match outcome {
                        Outcome::Content(_) => Some((prev.id, true)),
                        Outcome::Vanished => Some((prev.id, false)),
                        Outcome::Same | Outcome::Unreadable(_) => None,
                    }
                })
                .collect();
            let mut written: Result<(), IndexError> = tx
                .delete_search_rows(&cleared, &stays)
                .map_err(IndexError::from);
            for ((w, prev), outcome) in chunk.iter().zip(outcomes) {
                if written.is_err() {
                    break;
                }
                let prev = prev.filter(|_| !opts.full);
                written = write_outcome(
                    tx,
                    w,
                    prev,
                    outcome,
                    generation,
                    report,
                    &mut pending.new_refs,
                    &mut pending.changes,
                    &mut pending.paths_changed,
                );
                if written.is_err() {
                    break;
                }
            }
            let wait = Instant::now();
            let next_outcomes =
                reader.map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            waited += wait.elapsed();
            (written, next_outcomes)
        });
        written?;
        read_ahead = next_outcomes;
    }
    tracing::debug!(
        "read, parse and write: {} chunks; the writer wrote for {} ms and waited {} ms for parses",
        chunks.len(),
        started.elapsed().saturating_sub(waited).as_millis(),
        waited.as_millis()
    );
    Ok(())
}

/// Resolves the references this run made or unsettled, rebuilds the suspended
/// secondary indexes and applies the SCIP indexes. `kept`: file tables of the same
/// file set from an earlier run (else they are built from the index). Returns whether
/// SCIP changed any edge, and the file tables of the index after this run when the run
/// had or built them.
#[allow(clippy::too_many_arguments)]
fn resolve_and_apply_scip(
    tx: &IndexTx<'_>,
    root: &Path,
    fresh: bool,
    configs_moved: bool,
    pending: Pending,
    kept: Option<resolve::FileTables>,
    suspended: &[String],
    scip_edges_before: Option<i64>,
    scip_inputs: &[scip::ScipInput],
    report: &mut IndexReport,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(bool, Option<resolve::FileTables>), IndexError> {
    let Pending {
        new_refs,
        mut changes,
        paths_changed,
        cache_rows_stored: _,
    } = pending;
    let mut recheck_imports = paths_changed || configs_moved;
    if fresh {
        // Nothing older than this run exists to re-resolve.
        changes = Changes::default();
        recheck_imports = false;
    }
    // A run that only records itself (nothing parsed or removed) resolves nothing.
    let mut tables = kept;
    if !(new_refs.is_empty() && changes.is_empty() && !recheck_imports) {
        let t = Instant::now();
        let mut resolver = match tables.take() {
            Some(kept) => resolve::Resolver::with_tables(kept, fresh),
            None => resolve::Resolver::new(tx, root, fresh)?,
        };
        // An incremental run that suspended indexes suspended the lookup ones.
        if !fresh && !suspended.is_empty() {
            resolver.scan_lookups();
        }
        tracing::debug!("resolver loaded in {} ms", t.elapsed().as_millis());
        report.refs_resolved = resolver.run(tx, new_refs, &changes, recheck_imports, progress)?;
        tables = Some(resolver.into_tables());
    }
    let t = Instant::now();
    tx.restore_indexes(suspended)?;
    tracing::debug!("indexes rebuilt in {} ms", t.elapsed().as_millis());
    if let Some(before) = scip_edges_before {
        report.scip_edges_dropped = (before - tx.count_scip_edges()?).max(0);
    }
    let mut changed = false;
    if !scip_inputs.is_empty() {
        let t = Instant::now();
        let applied = scip::apply(tx, root, scip_inputs)?;
        tracing::info!(
            "scip: {} files, {} references resolved, {} external, in {} ms",
            applied.files_applied,
            applied.refs_resolved,
            applied.refs_external,
            t.elapsed().as_millis()
        );
        changed = applied.refs_changed > 0;
        report.scip = Some(applied);
        report.scip_edges_dropped = 0;
    } else if report.scip_edges_dropped > 0 {
        tracing::warn!(
            "{} call and base edges that a SCIP index resolved were resolved again by the \
             heuristic rules, because their files changed or what they call went; run the SCIP \
             indexer and `constellation index --scip FILE` again for precise edges",
            report.scip_edges_dropped
        );
    }
    Ok((changed, tables))
}

/// Commits the run's transaction with its `index_runs` row.
fn commit_run(
    tx: IndexTx<'_>,
    started_at: &str,
    full: bool,
    report: &mut IndexReport,
) -> Result<(), IndexError> {
    if report.unreadable > 0 {
        tracing::warn!(
            "{} paths could not be read; their index rows were kept: {}",
            report.unreadable,
            report.unreadable_paths.join("; ")
        );
    }
    tx.commit(&RunRecord {
        started_at,
        duration_ms: report.duration_ms as i64,
        full,
        files_seen: report.files_seen as i64,
        files_hashed: report.files_hashed as i64,
        files_parsed: report.files_parsed as i64,
        files_removed: report.files_removed as i64,
        refs_resolved: report.refs_resolved as i64,
        generation: report.generation,
    })?;
    Ok(())
}

/// The connection settings of an index run, set for the life of the guard and put back
/// when it drops (after the run's transaction has ended: SQLite ignores
/// `foreign_keys` inside a transaction). Two settings:
///
/// - **Foreign-key enforcement off.** A build from nothing inserts about one million
///   rows whose parents always exist (files, then their nodes, then references and
///   edges between nodes of this run); checking each of their foreign keys costs a
///   parent lookup per key (an edge has four), and a deleted reference costs a probe of
///   `edges_ref` for its cascade. An incremental run writes the same kinds of rows, and
///   what the declared cascades would delete is deleted explicitly: `clear_all` deletes
///   children first, [`IndexTx::delete_nodes`] spells out the cascades of nodes, and
///   the edges of a file's references are written in that file. On SQLAlchemy 2.0.0 →
///   2.0.10 (553 files rewritten) the run took 0.35 s less. `tests/` checks `PRAGMA
///   foreign_key_check` after builds from nothing and after incremental runs. Put back:
///   `foreign_keys = ON`.
/// - **SQLite's automatic checkpoint off.** With it on, the commit of a run that wrote
///   more than 1,000 pages also copies the whole write-ahead log into the database
///   file, in the committing call, before the run can report itself done; a branch
///   switch's run on SQLAlchemy writes some 10,000 pages. The copy still happens,
///   later: at the next commit of any connection, when a watching server goes idle
///   ([`crate::store::Store::checkpoint`]), or when the process closes its last
///   connection. Put back: `wal_autocheckpoint = 1000` (SQLite's default).
struct RunSettings<'c> {
    conn: &'c mut rusqlite::Connection,
}

impl<'c> RunSettings<'c> {
    fn new(conn: &'c mut rusqlite::Connection) -> Result<Self, IndexError> {
        conn.execute_batch("PRAGMA foreign_keys = OFF; PRAGMA wal_autocheckpoint = 0")?;
        Ok(RunSettings { conn })
    }
}

impl std::ops::Deref for RunSettings<'_> {
    type Target = rusqlite::Connection;
    fn deref(&self) -> &rusqlite::Connection {
        self.conn
    }
}

impl std::ops::DerefMut for RunSettings<'_> {
    fn deref_mut(&mut self) -> &mut rusqlite::Connection {
        self.conn
    }
}

impl Drop for RunSettings<'_> {
    fn drop(&mut self) {
        for (pragma, what) in [
            ("PRAGMA foreign_keys = ON", "foreign keys"),
            (
                "PRAGMA wal_autocheckpoint = 1000",
                "the automatic checkpoint",
            ),
        ] {
            if let Err(e) = self.conn.execute_batch(pragma) {
                tracing::warn!("could not switch {what} back on: {e}");
            }
        }
    }
}

impl Changes {
    fn is_empty(&self) -> bool {
        self.reresolve.is_empty()
            && self.interface_changed.is_empty()
            && self.names.is_empty()
            && self.changed_names.is_empty()
            && self.files_gone.is_empty()
    }

    /// A Python module or package at `path` came or went: the lookups of its name as a
    /// submodule of its package (`pkg.sub` through `pkg/__init__.py`) may now give
    /// another answer.
    fn python_path_moved(&mut self, tx: &IndexTx<'_>, path: &str) -> Result<(), IndexError> {
        let module = path
            .strip_suffix("/__init__.py")
            .or_else(|| path.strip_suffix("/__init__.pyi"))
            .or_else(|| path.strip_suffix(".py"))
            .or_else(|| path.strip_suffix(".pyi"));
        let Some((dir, stem)) = module.and_then(|m| m.rsplit_once('/')) else {
            return Ok(());
        };
        for init in ["__init__.py", "__init__.pyi"] {
            if let Some(package) = tx.file_id_by_path(&format!("{dir}/{init}"))? {
                self.changed_names.insert((package, stem.to_string()));
            }
        }
        Ok(())
    }

    /// A file is about to be removed: every reference into it (imports included: its
    /// file node goes too) is resolved again.
    fn remove(&mut self, tx: &IndexTx<'_>, gone: &StoredFile) -> Result<(), IndexError> {
        self.reresolve.extend(tx.refs_into_file(gone.id)?);
        // Rust, C and C++ calls resolve by name among what a file sees: one that was
        // ambiguous with a definition of the removed file may now resolve.
        if matches!(gone.language.as_deref(), Some("rust" | "c" | "cpp")) {
            self.names.extend(tx.symbol_names(gone.id)?);
        }
        if gone.language.as_deref() == Some("python") {
            self.files_gone.insert(gone.id);
            self.python_path_moved(tx, &gone.path)?;
        }
        Ok(())
    }
}

/// Writes what reading one file produced.
#[allow(clippy::too_many_arguments)]
fn write_outcome(
    tx: &IndexTx<'_>,
    w: &WalkedFile,
    prev: Option<&StoredFile>,
    outcome: Outcome,
    generation: i64,
    report: &mut IndexReport,
    pending: &mut ref_queue::RefQueue,
    changes: &mut Changes,
    paths_changed: &mut bool,
) -> Result<(), IndexError> {
    let content = match outcome {
        Outcome::Same => {
            if let Some(p) = prev {
                tx.update_stat(p.id, w.size as i64, w.mtime_ns)?;
            }
            report.files_touched += 1;
            return Ok(());
        }
        Outcome::Vanished => {
            if let Some(p) = prev {
                changes.remove(tx, p)?;
                tx.delete_file(p.id)?;
                report.files_removed += 1;
                *paths_changed = true;
            }
            return Ok(());
        }
        Outcome::Unreadable(message) => {
            tracing::warn!("cannot read {}: {message}; its index rows are kept", w.path);
            report.note_unreadable(Some(&w.path), &message);
            return Ok(());
        }
        Outcome::Content(c) => *c,
    };
    if content.status == "unreadable" {
        tracing::warn!(
            "cannot read {}: {}",
            w.path,
            content.detail.as_deref().unwrap_or("")
        );
        report.note_unreadable(Some(&w.path), content.detail.as_deref().unwrap_or(""));
    }
    report.files_parsed += 1;
    let interface = content.facts.as_ref().map(interface::digest);
    let mut kept_node = None;
    // The symbols the file had, by key: one whose key stays keeps its id, so the edges
    // of other files into it stay right (what may resolve differently is in `changes`,
    // from the interface); the others are deleted at the end ([`forget_symbols`]).
    let mut old_symbols: HashMap<String, crate::store::files::KeptNode> = HashMap::new();
    if let Some(p) = prev {
        // Python and C keep to the names whose entries changed (see `Changes`).
        let both = |name: &str| {
            p.language.as_deref() == Some(name)
                && content.language.map(Language::name) == Some(name)
        };
        let (python, c) = (both("python"), both("c"));
        if p.interface != interface && (python || c) && content.facts.is_some() {
            let (symbols, refs) = tx.interface_rows(p.id)?;
            let old = interface::stored_name_digests(&symbols, &refs);
            let new = content
                .facts
                .as_ref()
                .map(interface::name_digests)
                .unwrap_or_default();
            let changed = interface::changed_names(&old, &new);
            if python {
                // The references that looked these names up in this file.
                for name in changed {
                    changes.changed_names.insert((p.id, name));
                }
            } else if changed.iter().any(|n| n == "*") {
                // C: its includes changed, so what its includers see moved.
                changes.interface_changed.insert(p.id);
            } else {
                // C: a call resolves by its name among the definitions its file sees
                // through its includes, so only the references named like a definition
                // that came, went or changed can move, wherever they are: not every
                // reference of every includer (a Linux header is seen by millions).
                changes.names.extend(changed);
            }
        } else if p.interface != interface {
            changes.interface_changed.insert(p.id);
            let rust = |language: Option<&str>| language == Some("rust");
            if rust(p.language.as_deref()) || rust(content.language.map(Language::name)) {
                changes.names.extend(tx.symbol_names(p.id)?);
                if let Some(facts) = &content.facts {
                    changes
                        .names
                        .extend(facts.symbols.iter().map(|s| s.name.clone()));
                }
            }
        }
        // Java: an import names a class by its package, which the file declares: one
        // whose `package` line moved no longer names it (the edit keeps its file node,
        // so the import edges into it stay unless resolved again).
        if p.language.as_deref() == Some("java") {
            changes.reresolve.extend(tx.imports_into_file(p.id)?);
        }
        (kept_node, old_symbols) = tx.clear_file_for_rewrite(p.id)?;
    } else {
        *paths_changed = true;
        if content.language == Some(Language::Python) {
            changes.python_path_moved(tx, &w.path)?;
        }
        // C and C++: a new file's functions may be what a call elsewhere named but
        // found nowhere it looks (a source beside an included header): those
        // references, found by name, are resolved again. No import moves for that.
        if matches!(content.language, Some(Language::C | Language::Cpp)) {
            if let Some(facts) = &content.facts {
                changes
                    .names
                    .extend(facts.symbols.iter().map(|s| s.name.clone()));
            }
        }
    }
    let file_id = tx.write_file(
        prev.map(|p| p.id),
        &FileRecord {
            path: &w.path,
            language: content.language.map(Language::name),
            size: w.size as i64,
            mtime_ns: w.mtime_ns,
            digest: content.digest.as_deref(),
            status: content.status,
            detail: content.detail.as_deref(),
            interface: interface.as_deref(),
        },
        generation,
    )?;
    let file_key = file_key(&w.path);
    let end_line = content.lines.max(1);
    let file_node = match kept_node {
        Some(node) => {
            tx.update_file_node(node, end_line, w.size as u32)?;
            node
        }
        None => tx.insert_node(&NodeRecord {
            key: &file_key,
            file_id,
            kind: "file",
            name: &w.path,
            qualified_name: &w.path,
            signature: None,
            start_line: 1,
            end_line,
            start_byte: 0,
            end_byte: w.size as u32,
            parent_id: None,
            returns: None,
        })?,
    };
    let Some(facts) = content.facts else {
        return forget_symbols(tx, file_id, old_symbols, changes);
    };
    let mut ids = Vec::with_capacity(facts.symbols.len());
    for (s, key) in facts
        .symbols
        .iter()
        .zip(symbol_keys(&w.path, &facts.symbols))
    {
        let parent = s
            .parent
            .and_then(|i| ids.get(i).copied())
            .unwrap_or(file_node);
        let signature = (!s.signature.is_empty()).then_some(s.signature.as_str());
        let record = NodeRecord {
            key: &key,
            file_id,
            kind: s.kind.name(),
            name: &s.name,
            qualified_name: &s.qualified_name,
            signature,
            start_line: s.start_line,
            end_line: s.end_line,
            start_byte: s.start_byte,
            end_byte: s.end_byte,
            parent_id: Some(parent),
            returns: s.returns.as_deref(),
        };
        let id = match old_symbols.remove(&key) {
            Some(old) => {
                tx.rewrite_node(&old, &record)?;
                old.id
            }
            None => tx.insert_node(&record)?,
        };
        tx.insert_edge(parent, id, "contains", file_id, None, 1.0, "syntax", None)?;
        ids.push(id);
    }
    forget_symbols(tx, file_id, old_symbols, changes)?;
    let reference = |tx: &IndexTx<'_>, src_id: i64, kind: &'static str, name: String| Ref {
        id: tx.alloc_ref_id(),
        file_id,
        src_id,
        kind,
        form: None,
        name,
        qualifier: None,
        line: 0,
        col: 0,
        receiver_type: None,
        bindings: None,
        flags: 0,
    };
    for imp in facts.imports {
        let flags = imp.flags();
        pending.push(Ref {
            form: Some(imp.kind.name()),
            qualifier: (!imp.names.is_empty()).then(|| imp.names.join(",")),
            line: imp.line,
            bindings: lang::ImportBinding::encode(&imp.bindings),
            flags,
            ..reference(tx, file_node, "import", imp.specifier)
        });
    }
    for call in facts.calls {
        let flags = call.flags();
        let src_id = call
            .enclosing
            .and_then(|i| ids.get(i).copied())
            .unwrap_or(file_node);
        pending.push(Ref {
            qualifier: call.qualifier,
            line: call.line,
            col: call.column,
            receiver_type: call.receiver_type,
            flags,
            ..reference(tx, src_id, "call", call.name)
        });
    }
    for inh in facts.inherits {
        let Some(&src) = ids.get(inh.symbol) else {
            continue;
        };
        let kind = if inh.implements {
            "implement"
        } else {
            "inherit"
        };
        pending.push(Ref {
            qualifier: inh.qualifier,
            line: inh.line,
            ..reference(tx, src, kind, inh.name)
        });
    }
    for export in facts.exports {
        pending.push(Ref {
            qualifier: Some(export.local),
            line: export.line,
            ..reference(tx, file_node, "export", export.name)
        });
    }
    for value in facts.references {
        let flags = value.flags();
        let src_id = value
            .enclosing
            .and_then(|i| ids.get(i).copied())
            .unwrap_or(file_node);
        pending.push(Ref {
            qualifier: value.qualifier,
            line: value.line,
            col: value.column,
            receiver_type: value.receiver_type,
            flags,
            ..reference(tx, src_id, "reference", value.name)
        });
    }
    Ok(())
}

/// Deletes the symbols a re-written file no longer has (by key); the references of
/// other files whose edges pointed at them are resolved again.
fn forget_symbols(
    tx: &IndexTx<'_>,
    file_id: i64,
    gone: HashMap<String, crate::store::files::KeptNode>,
    changes: &mut Changes,
) -> Result<(), IndexError> {
    if gone.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = gone.into_values().map(|n| n.id).collect();
    changes.reresolve.extend(tx.refs_into_nodes(file_id, &ids)?);
    tx.delete_nodes(&ids)?;
    Ok(())
}

/// Compares the index at `db`, open on `conn`, with the disk without writing: how many
/// files were added, changed (digest differs, or the file is now over the size cap or
/// unreadable) and removed. Only files whose stat moved are read and hashed.
pub fn check(
    conn: &rusqlite::Connection,
    db: &Path,
    root: &Path,
    opts: &WalkOptions,
) -> Result<Staleness, IndexError> {
    let mut walk = walk::walk(root, opts)?;
    walk.drop_database_files(root, &own_files(db));
    // Only the rows of files whose stat moved or that the walk missed, compared as
    // `index` compares them: a new file has no row, a moved one has its row.
    let (stored, _, unchanged) = load_for_walk(conn, &walk, false)?;
    let Plan { removed, to_read } = compare(&walk, &stored, false, unchanged.as_deref());
    let added = to_read.iter().filter(|(_, prev)| prev.is_none()).count();
    let changed = to_read
        .par_iter()
        .filter_map(|(w, prev)| prev.map(|s| (w, s)))
        .filter(|(w, s)| {
            if w.size > opts.max_file_size {
                return !(s.status == "too_large" && s.size == w.size as i64);
            }
            match walk::read_regular_under(root, &w.abs_path, opts.max_file_size.max(w.size)) {
                Ok(bytes) => s.digest.as_deref() != Some(walk::digest(&bytes).as_str()),
                Err(_) => true,
            }
        })
        .count();
    Ok(Staleness {
        added,
        changed,
        removed: removed.len(),
    })
}

/// Builds the index of `root` into a database file that does not exist yet, atomically:
/// the run writes `DB.partial-PID` beside it, checkpoints and closes it, then renames it
/// to `db`. A killed run leaves no `db` (only the partial file, which is never read).
///
/// The whole build holds the run lock of `db` ([`run_lock`]). When `db` exists once
/// the lock is taken (another process built it meanwhile) or appears during the build
/// (a server opened it), the run indexes into it incrementally instead, so concurrent
/// first runs all succeed and end with the same index.
///
/// Errors: as [`index`]; also when the rename fails.
pub fn index_new_database(
    db: &Path,
    root: &Path,
    opts: &IndexOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<IndexReport, IndexError> {
    create_db_dir(db)?;
    let _run = run_lock::RunLock::acquire(db)?;
    // Another worktree's index, copied, makes this an incremental run (a shard holds
    // a part of the files: it starts empty).
    let seeded = match opts.shard {
        None => worktree::seed_from_sibling(db, root),
        Some(_) => None,
    };
    let into_existing = || -> Result<IndexReport, IndexError> {
        let store = Store::open(db)?;
        index_locked(&store, db, root, opts, progress)
    };
    if db.exists() {
        match into_existing() {
            Ok(mut report) => {
                report.seeded_from = seeded;
                return Ok(report);
            }
            // A copy of a damaged index (the copy takes pages as they are): built
            // from nothing instead.
            Err(IndexError::Store(e)) if seeded.is_some() && e.is_corrupt() => {
                tracing::warn!(
                    "the index copied from another worktree is damaged ({e}); building from scratch"
                );
                remove_database_files(db);
            }
            done => return done,
        }
    }
    match build_new_file(db, |store| index_locked(store, db, root, opts, progress))? {
        Some(report) => Ok(report),
        None => {
            // Opened (and so created) by a process that does not build: a server
            // starting. Renaming over it would leave that process on a file nobody
            // updates.
            tracing::info!(
                "{} appeared while it was being built: indexing into it instead",
                db.display()
            );
            into_existing()
        }
    }
}

/// Creates the directory of the database file `db` (one it creates gets a
/// `.gitignore`, see [`crate::store::database_file::create_dir`]).
fn create_db_dir(db: &Path) -> Result<(), IndexError> {
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::store::database_file::create_dir(dir).map_err(|e| {
            IndexError::Store(StoreError::CreateDir {
                path: db.to_path_buf(),
                error: e,
            })
        })?;
    }
    Ok(())
}

/// Runs `build` on a private `DB.partial-PID` file beside `db`, checkpoints and closes
/// it, and renames it to `db`; the caller holds `db`'s run lock and has seen no `db`.
/// `Ok(None)` when `db` appeared meanwhile (the partial file is removed, `db` is left
/// alone). A failed build removes the partial file.
fn build_new_file(
    db: &Path,
    build: impl FnOnce(&Store) -> Result<IndexReport, IndexError>,
) -> Result<Option<IndexReport>, IndexError> {
    let partial = PathBuf::from(format!("{}.partial-{}", db.display(), std::process::id()));
    remove_database_files(&partial);
    remove_stale_partials(db);
    // Errors name `db`, the file the user gave, not the temporary one.
    let store = Store::open_private(&partial).map_err(|e| e.naming(db))?;
    let report = match build(&store) {
        Ok(r) => r,
        Err(e) => {
            drop(store);
            remove_database_files(&partial);
            return Err(e);
        }
    };
    store.publish()?;
    if db.exists() {
        remove_database_files(&partial);
        return Ok(None);
    }
    std::fs::rename(&partial, db).map_err(|e| {
        IndexError::Store(StoreError::Publish {
            path: db.to_path_buf(),
            message: format!("renaming {}: {e}", partial.display()),
        })
    })?;
    remove_database_files(&partial);
    Ok(Some(report))
}

/// Removes the SQLite file `path` and its companions (`-wal`, `-shm`, `-journal`),
/// whichever exist; what cannot be removed stays.
pub(crate) fn remove_database_files(path: &Path) {
    for ext in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
}

/// Removes `DB.partial-PID` files (and their -wal/-shm) left by builds that were killed:
/// those whose process no longer runs. Only on Linux, where `/proc/PID` tells; elsewhere
/// they stay (nothing reads them).
fn remove_stale_partials(db: &Path) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let (Some(dir), Some(name)) = (db.parent(), db.file_name()) else {
        return;
    };
    let prefix = format!("{}.partial-", name.to_string_lossy());
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix(&prefix) else {
            continue;
        };
        let pid: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !pid.is_empty() && !Path::new("/proc").join(&pid).exists() {
            tracing::info!("removing {file}, left by a killed build (process {pid})");
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Default database location for a workspace: `ROOT/.constellation/index.db`.
pub fn default_db_path(root: &Path) -> PathBuf {
    root.join(".constellation").join("index.db")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::{Walk, WalkProblem};

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn count(store: &Store, sql: &str) -> i64 {
        store
            .conn()
            .unwrap()
            .query_row(sql, [], |r| r.get(0))
            .unwrap()
    }

    /// Runs the pipeline on a walk that the test shapes (tests run as root here,
    /// where chmod cannot make a directory unreadable).
    fn run_on(store: &Store, root: &Path, walked: &Walk) -> IndexReport {
        let opts = IndexOptions::default();
        index_walked(
            store,
            root,
            &opts,
            &|_| {},
            Instant::now(),
            Vec::new(),
            walked,
            None,
        )
        .unwrap()
    }

    /// Files, nodes and edges by keys (no ids), sorted: equal for equal indexes.
    fn dump(store: &Store) -> Vec<String> {
        let conn = store.conn().unwrap();
        let mut out = Vec::new();
        for sql in [
            "SELECT 'file ' || path || ' ' || coalesce(digest, '') FROM files",
            "SELECT 'node ' || key || ' ' || start_line || '-' || end_line FROM nodes",
            "SELECT 'edge ' || s.key || ' ' || e.kind || ' ' || d.key || ' ' || e.provenance
             FROM edges e JOIN nodes s ON s.id = e.src_id JOIN nodes d ON d.id = e.dst_id",
            "SELECT 'ref ' || f.path || ' ' || r.kind || ' ' || r.name || ' ' || r.line || ' ' || r.status
             FROM refs r JOIN files f ON f.id = r.file_id",
        ] {
            let mut stmt = conn.prepare(sql).unwrap();
            let rows = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap();
            out.extend(rows.map(Result::unwrap));
        }
        out.sort();
        out
    }

    #[test]
    fn the_walk_merged_with_the_stored_files_reads_what_moved_and_no_change_reuses_the_totals() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        // Paths whose byte order interleaves `-`, `.`, `/` and `_` (SQLite's BINARY
        // order and Rust's must agree for the merge).
        for (rel, text) in [
            ("a.py", "def a():\n    return 1\n"),
            ("a-b.py", "def ab():\n    return 2\n"),
            ("a/b.py", "from a import a\n\ndef b():\n    return a()\n"),
            ("a_b.py", "def a_b():\n    return 3\n"),
            ("z.py", "def z():\n    return 4\n"),
        ] {
            write(&root, rel, text);
        }
        let store = Store::open(&dir.path().join("index.db")).unwrap();
        let opts = IndexOptions {
            record_noop: true,
            ..IndexOptions::default()
        };
        let totals = |s: &Store| {
            (
                count(s, "SELECT count(*) FROM nodes"),
                count(s, "SELECT count(*) FROM edges"),
            )
        };
        let first = index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!((first.files_hashed, first.files_seen), (5, 5));
        assert_eq!((first.nodes, first.edges), totals(&store));
        let same = index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!((same.files_hashed, same.files_removed), (0, 0));
        assert_eq!((same.nodes, same.edges), totals(&store));
        // A run that changes nothing reads the totals kept for its generation: a
        // planted value shows through.
        let generation = same.generation;
        store
            .conn()
            .unwrap()
            .execute(
                "UPDATE meta SET value = ?1 WHERE key = 'totals'",
                [format!("{generation} 1 2")],
            )
            .unwrap();
        let planted = index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!((planted.nodes, planted.edges), (1, 2));
        // One file edited, one added, one removed: only those are read, and the run
        // counts again.
        std::thread::sleep(std::time::Duration::from_millis(20));
        write(
            &root,
            "a/b.py",
            "from a import a\n\ndef b():\n    return a()\n\ndef c():\n    return b()\n",
        );
        write(&root, "a0.py", "def a0():\n    return 5\n");
        std::fs::remove_file(root.join("a-b.py")).unwrap();
        let moved = index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(
            (moved.files_seen, moved.files_hashed, moved.files_removed),
            (5, 2, 1)
        );
        assert_eq!((moved.nodes, moved.edges), totals(&store));
        let fresh = Store::open(&dir.path().join("fresh.db")).unwrap();
        index(&fresh, &root, &IndexOptions::default(), &|_| {}).unwrap();
        assert_eq!(dump(&store), dump(&fresh));
    }

    /// A store at `dir/index.db`, a resolver cache, and the options that use it.
    fn store_with_cache(dir: &Path) -> (Store, Arc<ResolverCache>, IndexOptions) {
        let store = Store::open(&dir.join("index.db")).unwrap();
        let cache = Arc::new(ResolverCache::default());
        let opts = IndexOptions {
            resolver_cache: Some(Arc::clone(&cache)),
            ..IndexOptions::default()
        };
        (store, cache, opts)
    }

    /// [`dump`] of a build from nothing of `root` into a new database `dir/ref{n}.db`
    /// (`n` counts up).
    fn fresh_dump(dir: &Path, root: &Path, n: &mut usize) -> Vec<String> {
        *n += 1;
        let other = Store::open(&dir.join(format!("ref{n}.db"))).unwrap();
        index(&other, root, &IndexOptions::default(), &|_| {}).unwrap();
        dump(&other)
    }

    #[test]
    fn kept_include_lists_follow_edits_of_the_includes_of_headers() {
        // main.c sees what b.h includes. Each step edits the includes of a header only
        // (no file comes or goes, so the kept tables serve and keep their include
        // lists), and the index must equal a fresh build's: the calls of main.c move
        // to the functions of the headers it now sees.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        write(&root, "src/a.h", "int fa(void);\n");
        write(&root, "src/a.c", "int fa(void) { return 1; }\n");
        write(&root, "src/c.h", "int fc(void);\n");
        write(&root, "src/c.c", "int fc(void) { return 2; }\n");
        write(&root, "src/b.h", "#include \"a.h\"\n");
        write(
            &root,
            "src/main.c",
            "#include \"b.h\"\nint main(void) { return fa() + fc(); }\n",
        );
        let (store, cache, opts) = store_with_cache(dir.path());
        let mut n = 0;
        let mut reference = || fresh_dump(dir.path(), &root, &mut n);
        index(&store, &root, &IndexOptions::default(), &|_| {}).unwrap();
        index(&store, &root, &opts, &|_| {}).unwrap();
        let calls = |store: &Store| -> Vec<String> {
            dump(store)
                .into_iter()
                .filter(|l| l.starts_with("edge func:src/main.c::main calls"))
                .collect()
        };
        let fa = "edge func:src/main.c::main calls func:src/a.c::fa header".to_string();
        let fc = "edge func:src/main.c::main calls func:src/c.c::fc header".to_string();
        // Each edit re-reads main.c too (its calls must be resolved again), then leaves
        // main.c alone while b.h moves back.
        for (b_h, touch_main, want) in [
            ("#include \"c.h\"\n", true, vec![fc.clone()]),
            (
                "#include \"a.h\"\n#include \"c.h\"\n",
                false,
                vec![fa.clone(), fc.clone()],
            ),
            ("#include \"a.h\"\n", false, vec![fa.clone()]),
            ("\n", true, vec![]),
        ] {
            write(&root, "src/b.h", b_h);
            if touch_main {
                write(
                    &root,
                    "src/main.c",
                    &format!(
                        "#include \"b.h\"\nint main(void) {{ return fa() + fc(); }}\n/* {} */\n",
                        b_h.len()
                    ),
                );
            }
            let hits = cache.hits();
            index(&store, &root, &opts, &|_| {}).unwrap();
            assert_eq!(cache.hits(), hits + 1, "the kept tables served");
            assert_eq!(calls(&store), want, "b.h = {b_h:?}");
            assert_eq!(dump(&store), reference(), "b.h = {b_h:?}");
        }
    }

    #[test]
    fn kept_resolver_tables_give_the_index_of_a_fresh_build_and_go_when_files_move() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        write(&root, "src/util.h", "int twice(int x);\n");
        write(&root, "src/util.c", "int twice(int x) { return 2 * x; }\n");
        write(
            &root,
            "src/main.c",
            "#include \"util.h\"\nint main(void) { return twice(1); }\n",
        );
        write(&root, "pkg/a.py", "def a():\n    return 1\n");
        write(
            &root,
            "pkg/b.py",
            "from pkg.a import a\n\ndef b():\n    return a()\n",
        );
        let (store, cache, opts) = store_with_cache(dir.path());
        let mut n = 0;
        let mut reference = || fresh_dump(dir.path(), &root, &mut n);
        index(&store, &root, &IndexOptions::default(), &|_| {}).unwrap();
        // A run with nothing to do (a server's first) builds the tables for the first
        // edit.
        index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(cache.generation(), Some(1));
        assert_eq!(cache.hits(), 0);

        // Content edits, no file added or removed: the kept tables serve, and the index
        // is the one a fresh build makes (the call moves to the new definition).
        write(
            &root,
            "src/main.c",
            "#include \"util.h\"\nstatic int twice(int x) { return x + x; }\nint main(void) { return twice(1); }\n",
        );
        let r = index_paths(&store, &root, &opts, &|_| {}, &[root.join("src/main.c")]).unwrap();
        assert_eq!(r.file_source, walk::FileSource::Events);
        assert_eq!(cache.hits(), 1);
        assert_eq!(dump(&store), reference());
        write(
            &root,
            "pkg/a.py",
            "def a():\n    return 2\n\ndef c():\n    return a()\n",
        );
        index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(cache.hits(), 2);
        assert_eq!(dump(&store), reference());

        // A file comes: the tables are built again (with it), then serve again.
        write(&root, "src/extra.h", "int extra(void);\n");
        write(
            &root,
            "src/main.c",
            "#include \"util.h\"\n#include \"extra.h\"\nint main(void) { return twice(extra()); }\n",
        );
        index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(cache.hits(), 2);
        assert_eq!(dump(&store), reference());
        write(&root, "src/extra.c", "int extra(void) { return 3; }\n");
        index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(cache.hits(), 2, "a new file is a new file set");
        assert_eq!(dump(&store), reference());
        write(&root, "src/extra.c", "int extra(void) { return 4; }\n");
        index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(cache.hits(), 3);
        assert_eq!(dump(&store), reference());

        // Another writer of the database (here: a run without the cache) moves the
        // latest run: the kept tables no longer describe it.
        std::fs::remove_file(root.join("src/extra.c")).unwrap();
        index(&store, &root, &IndexOptions::default(), &|_| {}).unwrap();
        write(&root, "pkg/a.py", "def a():\n    return 3\n");
        index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(cache.hits(), 3);
        assert_eq!(dump(&store), reference());

        // A file the lookups read from disk changed: built again.
        write(&root, "compile_commands.json", "[]\n");
        index(&store, &root, &opts, &|_| {}).unwrap();
        write(&root, "compile_commands.json", "[ ]\n");
        write(&root, "pkg/a.py", "def a():\n    return 4\n");
        index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(cache.hits(), 3);
        assert_eq!(dump(&store), reference());

        // A Java file's `package` line moves (no path does): the tables read it, so they
        // are built again, and the import that named the old package no longer resolves.
        write(&root, "java/a/A.java", "package a;\npublic class A {}\n");
        write(
            &root,
            "java/b/B.java",
            "package b;\nimport a.A;\nclass B { A x; }\n",
        );
        index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(dump(&store), reference());
        let hits = cache.hits();
        write(
            &root,
            "java/a/A.java",
            "package elsewhere;\npublic class A {}\n",
        );
        index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(cache.hits(), hits);
        let now = dump(&store);
        let import = "edge file:java/b/B.java imports file:java/a/A.java specifier";
        assert!(!now.contains(&import.to_string()), "{now:#?}");
        assert_eq!(now, reference());

        // Two sources beside one header define the function (ambiguous), then one goes:
        // the call resolves to the other.
        write(&root, "src/both.h", "int both(void);\n");
        write(&root, "src/both.c", "int both(void) { return 1; }\n");
        write(&root, "src/both.cpp", "int both(void) { return 2; }\n");
        write(
            &root,
            "src/main.c",
            "#include \"both.h\"\nint main(void) { return both(); }\n",
        );
        index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(dump(&store), reference());
        std::fs::remove_file(root.join("src/both.cpp")).unwrap();
        index(&store, &root, &opts, &|_| {}).unwrap();
        let now = dump(&store);
        assert!(
            now.contains(
                &"edge func:src/main.c::main calls func:src/both.c::both header".to_string()
            ),
            "{now:#?}"
        );
        assert_eq!(now, reference());
    }

    #[test]
    fn a_run_over_the_changed_paths_equals_a_walk_and_falls_back_to_one_for_new_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        write(&root, "a.py", "def a():\n    return 1\n");
        write(
            &root,
            "b.py",
            "from a import a\n\ndef b():\n    return a()\n",
        );
        write(&root, "c.py", "def c():\n    return 3\n");
        let store = Store::open(&dir.path().join("index.db")).unwrap();
        let opts = IndexOptions::default();
        index(&store, &root, &opts, &|_| {}).unwrap();
        let reference = |name: &str| {
            let other = Store::open(&dir.path().join(name)).unwrap();
            index(&other, &root, &opts, &|_| {}).unwrap();
            dump(&other)
        };

        // Known files: one changed (a.py renames its function, so b.py's call moves), one
        // deleted, one listed but untouched. Only they are stat-ed.
        write(
            &root,
            "a.py",
            "def a2():\n    return 1\n\ndef a():\n    return a2()\n",
        );
        std::fs::remove_file(root.join("c.py")).unwrap();
        let changed = [root.join("a.py"), root.join("c.py"), root.join("b.py")];
        let r = index_paths(&store, &root, &opts, &|_| {}, &changed).unwrap();
        assert_eq!(r.file_source, walk::FileSource::Events);
        assert_eq!(
            (
                r.files_seen,
                r.files_hashed,
                r.files_parsed,
                r.files_removed
            ),
            (2, 1, 1, 1)
        );
        assert_eq!(dump(&store), reference("ref1.db"));

        // A path the index does not hold (a new file): the tree is walked.
        write(
            &root,
            "d.py",
            "from a import a2\n\ndef d():\n    return a2()\n",
        );
        let r = index_paths(&store, &root, &opts, &|_| {}, &[root.join("d.py")]).unwrap();
        assert_eq!(r.file_source, walk::FileSource::Directories);
        assert_eq!((r.files_seen, r.files_parsed), (3, 1));
        assert_eq!(dump(&store), reference("ref2.db"));

        // A directory, or a path outside the root: walked too.
        std::fs::create_dir(root.join("sub")).unwrap();
        let r = index_paths(&store, &root, &opts, &|_| {}, &[root.join("sub")]).unwrap();
        assert_eq!(r.file_source, walk::FileSource::Directories);
        let r = index_paths(&store, &root, &opts, &|_| {}, &[dir.path().join("x.py")]).unwrap();
        assert_eq!(r.file_source, walk::FileSource::Directories);
        // Nothing listed: walked.
        let r = index_paths(&store, &root, &opts, &|_| {}, &[]).unwrap();
        assert_eq!(r.file_source, walk::FileSource::Directories);
        assert_eq!(dump(&store), reference("ref3.db"));
    }

    #[test]
    fn a_directory_the_walk_cannot_list_keeps_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        write(&root, "a.py", "def a():\n    return 1\n");
        write(&root, "sub/b.py", "def b():\n    return 2\n");
        write(&root, "sub/deep/c.py", "def c():\n    return 3\n");
        let store = Store::open(&dir.path().join("index.db")).unwrap();
        let opts = IndexOptions::default();
        let first = index(&store, &root, &opts, &|_| {}).unwrap();
        assert_eq!(first.files_seen, 3);
        assert_eq!(first.unreadable, 0);
        let nodes = count(&store, "SELECT count(*) FROM nodes");

        // The walk finds a.py but cannot list sub/: sub's files are unknown, not gone.
        let full = walk::walk(&root, &opts.walk).unwrap();
        let walked = Walk {
            files: full
                .files
                .into_iter()
                .filter(|f| !f.path.starts_with("sub/"))
                .collect(),
            problems: vec![WalkProblem {
                path: Some("sub".into()),
                message: "Permission denied (os error 13)".into(),
            }],
            ..Walk::default()
        };
        let r = run_on(&store, &root, &walked);
        assert_eq!(r.files_removed, 0);
        assert_eq!(r.unreadable, 1);
        assert_eq!(
            r.unreadable_paths,
            vec!["sub: Permission denied (os error 13)"]
        );
        assert_eq!(count(&store, "SELECT count(*) FROM files"), 3);
        assert_eq!(count(&store, "SELECT count(*) FROM nodes"), nodes);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["unreadable"], 1);
        assert_eq!(
            json["unreadablePaths"][0],
            "sub: Permission denied (os error 13)"
        );

        // The same walk without the problem: sub's files are gone and dropped.
        let walked = Walk {
            files: walked.files,
            problems: Vec::new(),
            ..Walk::default()
        };
        let r = run_on(&store, &root, &walked);
        assert_eq!(r.files_removed, 2);
        assert_eq!(r.unreadable, 0);
        assert_eq!(count(&store, "SELECT count(*) FROM files"), 1);
    }

    #[test]
    fn a_walk_out_of_path_order_is_compared_as_a_sorted_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        for rel in ["a.py", "b/c.py", "d.py"] {
            write(&root, rel, "def f():\n    return 1\n");
        }
        let store = Store::open(&dir.path().join("index.db")).unwrap();
        index(&store, &root, &IndexOptions::default(), &|_| {}).unwrap();
        write(&root, "b/c.py", "def g():\n    return 2\n");
        let mut walked = walk::walk(&root, &WalkOptions::default()).unwrap();
        walked.files.reverse();
        let r = run_on(&store, &root, &walked);
        assert_eq!((r.files_seen, r.files_parsed, r.files_removed), (3, 1, 0));
        assert_eq!(count(&store, "SELECT count(*) FROM files"), 3);
    }

    #[test]
    fn a_problem_without_a_path_removes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        write(&root, "a.py", "def a():\n    return 1\n");
        write(&root, "b.py", "def b():\n    return 2\n");
        let store = Store::open(&dir.path().join("index.db")).unwrap();
        index(&store, &root, &IndexOptions::default(), &|_| {}).unwrap();
        let walked = Walk {
            files: Vec::new(),
            problems: vec![WalkProblem {
                path: None,
                message: "I/O error".into(),
            }],
            ..Walk::default()
        };
        let r = run_on(&store, &root, &walked);
        assert_eq!((r.files_removed, r.unreadable), (0, 1));
        assert_eq!(r.unreadable_paths, vec!["?: I/O error"]);
        assert_eq!(count(&store, "SELECT count(*) FROM files"), 2);
    }

    #[test]
    fn an_indexed_file_that_cannot_be_read_keeps_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        write(
            &root,
            "a.py",
            "def a():\n    return 1\n\ndef a2():\n    return 2\n",
        );
        let store = Store::open(&dir.path().join("index.db")).unwrap();
        let opts = IndexOptions::default();
        index(&store, &root, &opts, &|_| {}).unwrap();
        let nodes = count(&store, "SELECT count(*) FROM nodes");
        // Its stat moved, and reading it fails with an error other than "not found"
        // (reading a directory fails even as root: EISDIR).
        std::fs::create_dir_all(root.join("not-a-file")).unwrap();
        let mut walked = walk::walk(&root, &opts.walk).unwrap();
        walked.files[0].abs_path = root.join("not-a-file");
        walked.files[0].mtime_ns += 1;
        let r = run_on(&store, &root, &walked);
        assert_eq!((r.files_parsed, r.files_removed, r.unreadable), (0, 0, 1));
        assert!(
            r.unreadable_paths[0].starts_with("a.py: "),
            "{:?}",
            r.unreadable_paths
        );
        assert_eq!(count(&store, "SELECT count(*) FROM nodes"), nodes);
        // The moved stat was not recorded, so the next run reads the file again (and
        // finds its contents unchanged).
        let mut again = walk::walk(&root, &opts.walk).unwrap();
        again.files[0].mtime_ns += 1;
        let r = run_on(&store, &root, &again);
        assert_eq!((r.files_hashed, r.files_touched, r.unreadable), (1, 1, 0));
    }
}
