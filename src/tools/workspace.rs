//! A workspace: a root directory, its index database, its agent-memory database (beside
//! the index, see [`crate::memory::db_path`]; opened on first use, so an index run or a
//! graph query never pays for it), and the graph snapshot cached for the current index
//! generation.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::graph::{FileGraph, SymbolGraph};
use crate::index::{self, IndexOptions, IndexReport, Progress};
use crate::memory::{self, MemoryStore};
use crate::store::{self, Store, StoreError};

use super::impact::OpenCalls;
use super::watch_sync;
use super::watcher::{FreshnessCounters, Refresh, Watch};
use super::ToolError;

/// An open workspace. Cheap to share (`Arc`); tool calls on it may run concurrently:
/// index runs are serialized by a lock, snapshots are shared read-only.
pub struct Workspace {
    root: PathBuf,
    store: Store,
    /// The agent-memory database, opened by the first call that needs it.
    memory: Mutex<Option<MemoryStore>>,
    options: IndexOptions,
    /// Serializes index runs of this process (other processes wait on the database's
    /// run lock, [`index::run_lock`]).
    index_lock: Mutex<()>,
    /// The last index run that failed while an index to answer from existed, until a
    /// run succeeds ([`Workspace::refresh_or_stale`]).
    refresh_failure: Mutex<Option<RefreshFailure>>,
    /// The file graph of the newest generation loaded so far.
    file_graph: Mutex<Option<Arc<FileGraph>>>,
    /// The symbol graph of the newest generation loaded so far.
    symbol_graph: Mutex<Option<Arc<SymbolGraph>>>,
    /// The unresolved call sites of the newest generation loaded so far (the name-only
    /// candidates of impact answers).
    open_calls: Mutex<Option<Arc<OpenCalls>>>,
    /// When the index last matched the disk (end of the last successful refresh).
    last_fresh: Mutex<Option<std::time::Instant>>,
    /// The in-degrees of nodes (the search ranking's popularity) read so far, with the
    /// generation they belong to.
    in_degrees: Mutex<Option<(i64, Arc<store::symbol_search::InDegrees>)>>,
    /// Events seen and index runs made, kept whether or not a watch runs.
    freshness: Arc<FreshnessCounters>,
    /// The file watcher, once [`Workspace::watch`] started one.
    watch: OnceLock<Watch>,
    /// The lock that tells other processes this watch answers their cookies
    /// ([`super::watch_sync::publish`]), held while the watch runs.
    published: OnceLock<watch_sync::Published>,
    /// A watch is being started ([`Workspace::expect_watch`]): calls wait for its first
    /// run as they would under the watch.
    watch_starting: AtomicBool,
}

impl Workspace {
    /// Opens the workspace at `root` with its database at `db` (default
    /// `ROOT/.constellation/index.db`). A corrupt database file is moved aside to
    /// `NAME.corrupt-UNIXTIME` (with a warning in the log) and a new one is created, so
    /// the next index run is a fresh scan; nothing is deleted. The agent-memory database
    /// is opened later, by [`Workspace::memory`].
    ///
    /// Errors: `not_found` when the root is not a directory; `database_error` for a
    /// database from a newer build or one that cannot be created.
    pub fn open(
        root: &Path,
        db: Option<&Path>,
        options: IndexOptions,
    ) -> Result<Workspace, ToolError> {
        let root = root
            .canonicalize()
            .map_err(|e| ToolError::NotFound(format!("workspace root {}: {e}", root.display())))?;
        if !root.is_dir() {
            return Err(ToolError::NotFound(format!(
                "workspace root {} is not a directory",
                root.display()
            )));
        }
        let db = db
            .map(Path::to_path_buf)
            .unwrap_or_else(|| index::default_db_path(&root));
        if !db.exists() && options.shard.is_none() {
            // The directory is made here for the copy (a failure shows when the
            // store opens below).
            if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
                let _ = crate::store::database_file::create_dir(dir);
            }
            index::worktree::seed_from_sibling(&db, &root);
        }
        let store = open_or_recover(&db, Store::open, StoreError::is_corrupt)?;
        Ok(Workspace {
            root,
            store,
            memory: Mutex::new(None),
            options,
            index_lock: Mutex::new(()),
            refresh_failure: Mutex::new(None),
            file_graph: Mutex::new(None),
            symbol_graph: Mutex::new(None),
            open_calls: Mutex::new(None),
            last_fresh: Mutex::new(None),
            in_degrees: Mutex::new(None),
            freshness: Arc::default(),
            watch: OnceLock::new(),
            published: OnceLock::new(),
            watch_starting: AtomicBool::new(false),
        })
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The index database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The options its index runs use (the walk's excludes and size cap among them).
    pub fn options(&self) -> &IndexOptions {
        &self.options
    }

    /// The agent-memory database (tasks, work hand-offs, thoughts, saved documents),
    /// beside the index ([`memory::db_path`]); a clone of one pool shared by every call.
    /// The first call opens it, creating and migrating the file if needed (safe when
    /// several processes do so at once); a corrupt file is moved aside like the index's.
    /// Agent memory an older build kept in the index database is copied to it then,
    /// once ([`memory::upgrade::import_from_index`]).
    ///
    /// Errors: `database_error` when the file cannot be opened, created or migrated
    /// (from a newer build, say) or the older rows cannot be copied; `internal` when the
    /// lock is poisoned.
    pub fn memory(&self) -> Result<MemoryStore, ToolError> {
        let mut slot = self
            .memory
            .lock()
            .map_err(|_| ToolError::Internal("memory database lock poisoned".into()))?;
        if let Some(memory) = slot.as_ref() {
            return Ok(memory.clone());
        }
        let memory = open_or_recover(
            &memory::db_path(self.store.path()),
            MemoryStore::open,
            memory::MemoryError::is_corrupt,
        )?;
        memory::upgrade::import_from_index(&memory, &self.store)?;
        *slot = Some(memory.clone());
        Ok(memory)
    }

    /// Brings the index up to date with the disk (incrementally; from scratch when
    /// `full`). Cheap when nothing moved: a walk and a stat comparison.
    pub fn refresh(
        &self,
        full: bool,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<IndexReport, ToolError> {
        self.run_index(full, None, progress, true)?
            .ok_or_else(|| ToolError::Internal("an index run that waits returned busy".into()))
    }

    /// [`Workspace::refresh`] (incremental) after a file watch reported `changed`
    /// (absolute paths): when each is a file the index holds, only they are stat-ed,
    /// with no walk of the tree ([`index::index_paths`]); else the tree is walked.
    /// `None`: the watch does not know what changed (it lost events, or just started).
    /// `events_at_start`: the watch's event count when `changed` was taken (the run is
    /// current up to it, see [`super::watcher::FreshnessCounters::note_run`]).
    ///
    /// Errors: as [`Workspace::refresh`].
    pub fn refresh_changed(
        &self,
        changed: Option<&[PathBuf]>,
        events_at_start: u64,
    ) -> Result<IndexReport, ToolError> {
        self.run_index(false, Some((changed, events_at_start)), &|_| {}, true)?
            .ok_or_else(|| ToolError::Internal("an index run that waits returned busy".into()))
    }

    /// One index run of this workspace (serialized within the process). With `wait`
    /// false and another process indexing the same database now, `Ok(None)` at once.
    ///
    /// `watched`: a run of the file watch, with the paths it listed (`None`: unknown,
    /// walk) and its event count when it took them; `None` for any other run, which
    /// walks and reads the event count itself.
    fn run_index(
        &self,
        full: bool,
        watched: Option<(Option<&[PathBuf]>, u64)>,
        progress: &(dyn Fn(Progress) + Sync),
        wait: bool,
    ) -> Result<Option<IndexReport>, ToolError> {
        let _guard = self
            .index_lock
            .lock()
            .map_err(|_| ToolError::Internal("index lock poisoned".into()))?;
        // The watch's runs report to nobody but the log: no totals to count.
        let opts = IndexOptions {
            full,
            skip_totals: watched.is_some(),
            ..self.options.clone()
        };
        let (changed, events_at_start) = match watched {
            Some((changed, events)) => (changed, events),
            None => (None, self.freshness.events()),
        };
        let report = if let Some(changed) = changed {
            index::index_paths(&self.store, &self.root, &opts, progress, changed)?
        } else if wait {
            index::index(&self.store, &self.root, &opts, progress)?
        } else {
            match index::index_unless_busy(&self.store, &self.root, &opts, progress)? {
                Some(report) => report,
                None => return Ok(None),
            }
        };
        if let Ok(mut failure) = self.refresh_failure.lock() {
            *failure = None;
        }
        self.freshness.note_run(events_at_start);
        if let Ok(mut t) = self.last_fresh.lock() {
            *t = Some(std::time::Instant::now());
        }
        Ok(Some(report))
    }

    /// An index run for a tool call: when an index exists and another process is
    /// indexing the same database now (a CLI `index --full`, another server), it does
    /// not wait for that run (which may take minutes) but answers `Ok(None)`, with a
    /// staleness notice remembered for the answer; with no index yet, it waits.
    fn refresh_for_call(
        &self,
        full: bool,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Option<IndexReport>, ToolError> {
        if !self.has_index() {
            return self.refresh(full, progress).map(Some);
        }
        let report = self.run_index(full, None, progress, false)?;
        if report.is_none() {
            self.note_refresh_failure(
                "another process is indexing this database now; this answer comes from the \
                 index as it was before that run"
                    .into(),
                true,
            );
        }
        Ok(report)
    }

    /// Like [`Workspace::refresh`], for a tool that reads the index: when the run fails
    /// (a full disk, a read-only database, the root gone) and an index built earlier
    /// exists, the failure is remembered for the answer's staleness notice
    /// ([`Workspace::refresh_failure`]) and `Ok(None)` returned, so the tool answers
    /// from the index as it is. After a failure, runs are not tried again while no
    /// file event arrived and less than [`RETRY_FAILED_AFTER`] passed. A read-only
    /// database is never refreshed.
    ///
    /// Errors: the run's, when no index exists yet; `internal` for a poisoned lock.
    pub fn refresh_or_stale(
        &self,
        full: bool,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Option<IndexReport>, ToolError> {
        if self.answers_as_is(full) {
            return Ok(None);
        }
        if !full && self.synced_by_server().is_some() {
            return Ok(None);
        }
        match self.refresh_for_call(full, progress) {
            Ok(report) => Ok(report),
            Err(e) => self.stale_or(e).map(|()| None),
        }
    }

    /// Whether a tool call answers from the index as it is without trying a run: the
    /// database is read-only (remembered as the staleness notice), or, unless `full`,
    /// the last run failed and nothing changed since ([`RETRY_FAILED_AFTER`]).
    fn answers_as_is(&self, full: bool) -> bool {
        if let Some(e) = self.store.read_only_error() {
            self.note_refresh_failure(e.to_string(), false);
            return true;
        }
        !full && self.failed_and_unchanged()
    }

    /// Whether an index run has built this index at least once (generation above 0).
    fn has_index(&self) -> bool {
        self.store.generation().is_ok_and(|g| g > 0)
    }

    /// `Ok` (with the failure remembered) when `e` is an index or database error and
    /// an index built earlier exists to answer from; `Err(e)` otherwise.
    fn stale_or(&self, e: ToolError) -> Result<(), ToolError> {
        if matches!(e, ToolError::Index(_) | ToolError::Store(_)) && self.has_index() {
            tracing::warn!(
                "the index of {} could not be refreshed ({e}); answering from it as it is",
                self.root.display()
            );
            self.note_refresh_failure(e.to_string(), false);
            return Ok(());
        }
        Err(e)
    }

    /// Remembers why the index could not be refreshed; a `transient` cause (another
    /// process indexing) is tried again by the next call.
    fn note_refresh_failure(&self, message: String, transient: bool) {
        if let Ok(mut slot) = self.refresh_failure.lock() {
            *slot = Some(RefreshFailure {
                message,
                events: self.freshness.events(),
                at: std::time::Instant::now(),
                transient,
            });
        }
    }

    /// Whether the last run failed, no file event arrived since, and it was less than
    /// [`RETRY_FAILED_AFTER`] ago.
    fn failed_and_unchanged(&self) -> bool {
        self.refresh_failure.lock().is_ok_and(|slot| {
            slot.as_ref().is_some_and(|f| {
                !f.transient
                    && f.events == self.freshness.events()
                    && f.at.elapsed() < RETRY_FAILED_AFTER
            })
        })
    }

    /// Why the index could not be refreshed, when the last attempt failed and answers
    /// come from the index as it is: the text of the staleness notice.
    pub fn refresh_failure(&self) -> Option<String> {
        self.refresh_failure
            .lock()
            .ok()
            .and_then(|slot| slot.as_ref().map(|f| f.message.clone()))
    }

    /// Like [`Workspace::refresh`] (incremental), for a tool call about to read the
    /// index. With a file watch running ([`Workspace::watch`]) it walks nothing: when
    /// file-system events arrived since the last index run began, it waits for the
    /// background run they start (at most [`super::watcher::CALL_WAIT`]; only then does
    /// it run the index itself). Without a watch, it is skipped
    /// when the index was found matching the disk less than `max_age` ago: drill-down
    /// calls in quick succession then cost no walk of the tree each.
    ///
    /// When the run fails and an index exists, the call answers from it with a
    /// staleness notice, as [`Workspace::refresh_or_stale`] says.
    pub fn refresh_within(&self, max_age: std::time::Duration) -> Result<(), ToolError> {
        if self.answers_as_is(false) {
            return Ok(());
        }
        self.refresh_within_unchecked(max_age)
            .or_else(|e| self.stale_or(e))
    }

    fn refresh_within_unchecked(&self, max_age: std::time::Duration) -> Result<(), ToolError> {
        if self.watch.get().is_some() || self.watch_starting.load(Ordering::SeqCst) {
            if !self.freshness.wait_current(super::watcher::CALL_WAIT) && !self.current_after_run()
            {
                self.freshness.note_call_walk();
                self.refresh_for_call(false, &|_| {})?;
            }
            return Ok(());
        }
        let recent = self
            .last_fresh
            .lock()
            .ok()
            .and_then(|t| *t)
            .is_some_and(|t| t.elapsed() < max_age);
        if !recent && self.synced_by_server().is_none() {
            self.freshness.note_call_walk();
            self.refresh_for_call(false, &|_| {})?;
        }
        Ok(())
    }

    /// When another process's file watch keeps this database fresh (a `serve` of the
    /// same root with the same walk options), waits until its index includes every
    /// change made before this call and returns that process's id; `None` when no
    /// such watch answers (see [`super::watch_sync`]): the caller walks the tree. A
    /// workspace with a watch of its own, or with no index yet, asks nobody.
    pub fn synced_by_server(&self) -> Option<u32> {
        if self.watch.get().is_some() || !self.has_index() {
            return None;
        }
        let fingerprint = watch_sync::fingerprint(&self.options);
        match watch_sync::sync(
            self.store.path(),
            &self.root,
            &fingerprint,
            watch_sync::SYNC_WAIT,
        ) {
            watch_sync::Synced::Yes { pid, waited } => {
                tracing::debug!(
                    "the file watch of process {pid} has the index current ({} ms): no walk",
                    waited.as_millis()
                );
                if let Ok(mut t) = self.last_fresh.lock() {
                    *t = Some(std::time::Instant::now());
                }
                Some(pid)
            }
            watch_sync::Synced::No { why } => {
                tracing::debug!("walking the tree: {why}");
                None
            }
            watch_sync::Synced::TimedOut { pid } => {
                tracing::warn!(
                    "the server of process {pid} watches {} but did not answer within {} s; walking the tree (`index --walk` skips the wait)",
                    self.root.display(),
                    watch_sync::SYNC_WAIT.as_secs()
                );
                None
            }
        }
    }

    /// An index command's report when [`Workspace::synced_by_server`] answered with
    /// `pid`: nothing was read (`file_source` `server`, `served_by` the pid), the
    /// totals are the index's as it stands. `started`: when the command began.
    ///
    /// Errors: the database cannot be read.
    pub fn served_report(
        &self,
        pid: u32,
        started: std::time::Instant,
    ) -> Result<IndexReport, ToolError> {
        let t = self.store.stored_totals()?;
        Ok(IndexReport {
            files_seen: usize::try_from(t.files).unwrap_or(0),
            nodes: t.nodes,
            edges: t.edges,
            generation: t.generation,
            duration_ms: started.elapsed().as_millis() as u64,
            file_source: crate::walk::FileSource::Server,
            served_by: Some(pid),
            ..IndexReport::default()
        })
    }

    /// Whether the index is current once the run of this process in progress, if any,
    /// has finished: a background run longer than the call's wait (a branch switch of
    /// hundreds of files) is waited for, not followed by a walk of the call's own.
    fn current_after_run(&self) -> bool {
        drop(self.index_lock.lock());
        self.freshness.is_current()
    }

    /// Starts keeping the index fresh from file-system events (see
    /// [`super::watcher`]): a background thread re-indexes after each quiet period, and
    /// [`Workspace::refresh_within`] stops walking the tree while nothing changed. Its
    /// first run starts at once. Calling it again does nothing.
    ///
    /// Errors: the watcher's, as text (e.g. the system's limit of watched directories);
    /// the workspace then keeps checking the disk from tool calls.
    pub fn watch(self: &Arc<Self>) -> Result<(), String> {
        if self.watch.get().is_some() {
            return Ok(());
        }
        let db = self.store.path().to_path_buf();
        let own_files = index::own_files(&db);
        let started = match Watch::start(
            self,
            &self.root,
            own_files,
            Some(watch_sync::cookie_prefix(&self.canonical_db())),
            Arc::clone(&self.freshness),
        ) {
            Ok(watch) => {
                let _ = self.watch.set(watch);
                self.publish_watch(true);
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        };
        self.watch_starting.store(false, Ordering::SeqCst);
        started
    }

    /// The database's path with its directory canonical: the watch reports paths under
    /// the canonical root, so the cookies' prefix must be spelled the same way to be
    /// recognized. The path as given when the directory cannot be resolved.
    fn canonical_db(&self) -> PathBuf {
        let db = self.store.path();
        db.parent()
            .and_then(|dir| dir.canonicalize().ok())
            .zip(db.file_name())
            .map(|(dir, name)| dir.join(name))
            .unwrap_or_else(|| db.to_path_buf())
    }

    /// Tells other processes that this workspace's watch answers their cookies
    /// ([`watch_sync::publish`]), unless it already does or has no watch. Tried when
    /// the watch starts (`first`: the outcome is logged) and again before each of its
    /// runs: another server of the same database that answered in its place may have
    /// exited since.
    fn publish_watch(&self, first: bool) {
        if self.watch.get().is_none() || self.published.get().is_some() {
            return;
        }
        let db = self.store.path();
        let canonical_db = self.canonical_db();
        let fingerprint = watch_sync::fingerprint(&self.options);
        match watch_sync::publish(&canonical_db, &self.root, fingerprint) {
            Ok(Some(published)) => {
                let _ = self.published.set(published);
                if !first {
                    tracing::info!(
                        "the watch of {} now answers other processes",
                        self.root.display()
                    );
                }
            }
            Ok(None) if first => tracing::debug!(
                "the watch of {} answers no other process (its database is outside the root, or another server answers)",
                self.root.display()
            ),
            Err(e) if first => tracing::warn!(
                "the watch of {} answers no other process: {} cannot be written: {e}",
                self.root.display(),
                watch_sync::watch_file_path(db).display()
            ),
            Ok(None) | Err(_) => {}
        }
    }

    /// Says that [`Workspace::watch`] is about to be called (on another thread): until
    /// it has, calls wait for the watch's first run (at most
    /// [`super::watcher::CALL_WAIT`]) instead of walking the tree themselves. If the
    /// watch cannot start, calls go back to checking the disk.
    pub fn expect_watch(&self) {
        if self.watch.get().is_none() {
            self.watch_starting.store(true, Ordering::SeqCst);
        }
    }

    /// Whether a file watch keeps this workspace fresh.
    pub fn is_watched(&self) -> bool {
        self.watch.get().is_some()
    }

    /// The counters of events seen and index runs made (by tool calls and in the
    /// background).
    pub fn freshness(&self) -> &FreshnessCounters {
        &self.freshness
    }

    /// The file-level graph of the current generation, loaded once per generation.
    pub fn file_graph(&self) -> Result<Arc<FileGraph>, ToolError> {
        self.snapshot(
            &self.file_graph,
            |g| g.generation,
            |conn| Ok(FileGraph::from_rows(&store::graph::load_file_graph(conn)?)),
        )
    }

    /// The symbol graph of the current generation, loaded once per generation and
    /// shared read-only by concurrent calls (a call that finds an older snapshot waits
    /// for the reload; the others keep their `Arc`).
    pub fn symbol_graph(&self) -> Result<Arc<SymbolGraph>, ToolError> {
        self.snapshot(&self.symbol_graph, |g| g.generation, SymbolGraph::load)
    }

    /// The symbol graph and the unresolved call sites of one generation, for impact
    /// answers. `None` for the call sites when an index run kept committing between the
    /// two reads (three tries): the answer then lists no name-only candidates.
    pub fn impact_inputs(&self) -> Result<(Arc<SymbolGraph>, Option<Arc<OpenCalls>>), ToolError> {
        for _ in 0..3 {
            let g = self.symbol_graph()?;
            let open = self.snapshot(
                &self.open_calls,
                |o| o.generation,
                |conn| Ok(OpenCalls::from_rows(store::graph::load_open_calls(conn)?)),
            )?;
            if open.generation == g.generation {
                return Ok((g, Some(open)));
            }
        }
        tracing::warn!("impact: the index kept changing; answering without name-only candidates");
        Ok((self.symbol_graph()?, None))
    }

    /// The in-degrees of the nodes (edges other than `contains` and `references`), read
    /// on demand and kept for the current generation: much cheaper than loading the
    /// symbol graph for its PageRank. Takes a pooled connection for the generation: a
    /// caller must not hold one while it calls this.
    pub fn in_degrees(&self) -> Result<Arc<store::symbol_search::InDegrees>, ToolError> {
        let generation = self.store.generation()?;
        let mut cached = self
            .in_degrees
            .lock()
            .map_err(|_| ToolError::Internal("in-degree lock poisoned".into()))?;
        if let Some((g, v)) = cached.as_ref() {
            if *g == generation {
                return Ok(Arc::clone(v));
            }
        }
        let v = Arc::new(store::symbol_search::InDegrees::default());
        *cached = Some((generation, Arc::clone(&v)));
        Ok(v)
    }

    /// The snapshot in `slot` if it is of the current generation, else a new one from
    /// `load` (which reads in one transaction, so it is of one generation).
    fn snapshot<T>(
        &self,
        slot: &Mutex<Option<Arc<T>>>,
        generation_of: fn(&T) -> i64,
        load: impl FnOnce(&mut rusqlite::Connection) -> Result<T, StoreError>,
    ) -> Result<Arc<T>, ToolError> {
        let generation = self.store.generation()?;
        let mut cached = slot
            .lock()
            .map_err(|_| ToolError::Internal("snapshot lock poisoned".into()))?;
        if let Some(g) = cached.as_ref().filter(|g| generation_of(g) == generation) {
            return Ok(Arc::clone(g));
        }
        let mut conn = self.store.conn()?;
        let g = Arc::new(load(&mut conn)?);
        *cached = Some(Arc::clone(&g));
        Ok(g)
    }
}

/// After a failed index run, how long tool calls answer from the index as it is before
/// trying a run again (sooner when a file event arrives).
pub const RETRY_FAILED_AFTER: std::time::Duration = std::time::Duration::from_secs(10);

/// An index run that failed while an older index could answer.
struct RefreshFailure {
    /// The error's text.
    message: String,
    /// File-system events counted when it failed.
    events: u64,
    /// When it failed.
    at: std::time::Instant,
    /// Another process was indexing: worth trying again at the next call.
    transient: bool,
}

/// Opens a database with `open`; moves a file that `is_corrupt` says is unusable aside
/// (with its -wal and -shm) and starts a new one.
fn open_or_recover<T, E>(
    db: &Path,
    open: fn(&Path) -> Result<T, E>,
    is_corrupt: fn(&E) -> bool,
) -> Result<T, ToolError>
where
    E: std::fmt::Display,
    ToolError: From<E>,
{
    match open(db) {
        Ok(s) => Ok(s),
        Err(e) if is_corrupt(&e) => {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let aside = PathBuf::from(format!("{}.corrupt-{stamp}", db.display()));
            let not_moved = |file: &Path, io: std::io::Error| {
                ToolError::Store(StoreError::Corrupt {
                    path: db.to_path_buf(),
                    message: format!("{e}; and {} could not be moved aside: {io}", file.display()),
                })
            };
            std::fs::rename(db, &aside).map_err(|io| not_moved(db, io))?;
            // A log left beside the new file would be replayed into it: a side file that
            // cannot be moved stops the recovery.
            for ext in ["-wal", "-shm"] {
                let side = PathBuf::from(format!("{}{ext}", db.display()));
                match std::fs::rename(&side, format!("{}{ext}", aside.display())) {
                    Ok(()) => {}
                    Err(io) if io.kind() == std::io::ErrorKind::NotFound => {}
                    Err(io) => return Err(not_moved(&side, io)),
                }
            }
            tracing::warn!(
                "{e}; moved it to {} and starting a fresh one",
                aside.display()
            );
            Ok(open(db)?)
        }
        Err(e) => Err(e.into()),
    }
}

impl Refresh for Workspace {
    fn refresh_now(
        &self,
        changed: Option<&[PathBuf]>,
        events_at_start: u64,
    ) -> Result<IndexReport, String> {
        self.publish_watch(false);
        self.refresh_changed(changed, events_at_start)
            .map_err(|e| e.to_string())
    }

    fn idle(&self) {
        let t = std::time::Instant::now();
        match self.store.keep_totals() {
            Ok(totals) => tracing::debug!(
                "file watcher: totals kept for generation {} ({} nodes, {} edges) in {} ms",
                totals.generation,
                totals.nodes,
                totals.edges,
                t.elapsed().as_millis()
            ),
            Err(e) => tracing::debug!("file watcher: totals not kept: {e}"),
        }
        let t = std::time::Instant::now();
        match self.store.checkpoint() {
            Ok((frames, copied)) => tracing::debug!(
                "file watcher: {copied} of {frames} log frames checkpointed in {} ms",
                t.elapsed().as_millis()
            ),
            Err(e) => tracing::debug!("file watcher: checkpoint failed: {e}"),
        }
    }
}
