//! Keeping a workspace's index fresh from file-system events, so that a tool call of a
//! long-lived server does not walk the tree to find out whether anything changed.
//!
//! How it works: a `notify` watcher (inotify on Linux, FSEvents on macOS, the
//! platform's own elsewhere) watches the root recursively. Its callback only counts
//! the events that may change the index (not reads, not the index's own database
//! directory, not hidden paths, which the walk skips) and wakes a refresher thread.
//! That thread waits until the tree has been quiet for [`QUIET`] (a branch switch or a
//! rebase that touches hundreds of files becomes one batch), then runs an incremental
//! index run. While a tool call waits for that run and every file written since the
//! last run has been closed again (inotify's `IN_CLOSE_WRITE`, a removal or a rename:
//! no writer is part-way through a file), the quiet shrinks to [`SETTLED_QUIET`]: the
//! call is not kept waiting for writes that are over. Platforms that report no close
//! events keep [`QUIET`]. The callback also lists the paths the events name (up to [`MAX_LISTED`]):
//! when each is a file the index holds, the run stats only them and walks nothing
//! ([`crate::index::index_paths`]); a new path, a directory or a longer list makes it an
//! ordinary run with a walk of the tree, and so does a write to an ignore file
//! (`.gitignore`, `.ignore`, `.git/info/exclude`), which may change which files are
//! indexed without touching any of them.
//!
//! What a call may rely on: every index run remembers how many events had been counted
//! when it started ([`FreshnessCounters::note_run`]); as long as no event has been
//! counted since the last finished run, the index matches the disk as of that run's
//! walk and a call needs no walk ([`FreshnessCounters::is_current`]). When events are
//! pending, the call waits for the background run those events start (at most
//! [`CALL_WAIT`]; the refresher re-indexes [`QUIET`] after the last event), so an answer
//! never reflects a tree older than the events seen when the call started, and no call
//! walks the tree. Only when the tree does not settle within [`CALL_WAIT`] (a build
//! writing files without pause) does the call run the incremental index itself, which
//! is counted ([`FreshnessCounters::call_walks`]).
//!
//! When events may have been lost (the kernel queue overflowed: a rescan notice; or
//! the watcher reported an error), the list is dropped and the next run is a complete
//! stat walk of the tree, as is the first run of a watch; the log says so. When the watcher
//! cannot be started (no inotify watches left, say), [`Watch::start`] fails and the
//! caller keeps the per-call check.
//!
//! Another process can ask the watch whether the index is current, without walking
//! the tree itself ([`super::watch_sync`]): it creates a *cookie* file beside the
//! database, and the refresher deletes it once a run that began after every event
//! counted before the cookie's creation has finished ([`Cookies`]).

use std::collections::{BTreeSet, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, CreateKind, EventKind, ModifyKind};
use notify::{Event, RecursiveMode, Watcher as _};

use crate::index::IndexReport;

/// What the refresher thread calls: an incremental index run of the watched workspace
/// (the workspace implements it; this module does not know the workspace).
pub trait Refresh: Send + Sync {
    /// Brings the index up to date with the disk (an incremental run). `changed`: the
    /// paths the watch saw change since the last run (absolute), when it knows them
    /// all; `None` when it does not (the first run, lost events): then the tree must
    /// be walked. `events_at_start`: the event count read before `changed` was taken,
    /// for [`FreshnessCounters::note_run`] (every event it counts is in `changed` or in
    /// an earlier run's list).
    ///
    /// Errors: the run's, as text (it is only logged).
    fn refresh_now(
        &self,
        changed: Option<&[PathBuf]>,
        events_at_start: u64,
    ) -> Result<IndexReport, String>;

    /// Called after runs that changed the index, once nothing is pending: when the
    /// tree has been quiet for [`IDLE_AFTER`], or before another process's cookie is
    /// answered. For what the next reader would otherwise do itself, and more slowly
    /// (the workspace keeps its node, edge and file totals: counting them takes a
    /// command with a cold cache about 100 ms on the Linux kernel, this process a few
    /// ms).
    /// Does nothing by default.
    fn idle(&self) {}
}

/// How long the tree must be quiet after a run that changed the index before
/// [`Refresh::idle`] is called.
pub const IDLE_AFTER: Duration = Duration::from_millis(500);

/// Beyond this many changed paths between two runs, the watch stops listing them and
/// the next run walks the tree (a walk is cheaper than stat-ing that many one by one).
pub const MAX_LISTED: usize = 1_000;

/// The paths changed since the last run began: `Some` while the watch saw every
/// event, `None` once it may have missed one (or listed more than [`MAX_LISTED`]).
type Changed = Arc<Mutex<Option<BTreeSet<PathBuf>>>>;

/// The cookies of other processes not yet answered (see [`super::watch_sync`]): each
/// path with the event count when the watch saw it created. The refresher deletes one
/// once [`FreshnessCounters::indexed_upto`] is above that count: a finished run began
/// after every event counted before the cookie, so the index includes what they
/// changed.
type Cookies = Arc<Mutex<Vec<(PathBuf, u64)>>>;

/// What wakes the refresher thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wake {
    /// A relevant event was counted: the quiet starts again.
    Event,
    /// A file was closed after writing: the writes may have settled.
    Closed,
    /// A tool call began waiting for the next run.
    Call,
}

/// The indexable files written since the last run began and not closed since: no
/// close after writing (`IN_CLOSE_WRITE`), removal or rename came after their last
/// write or creation. Empty (and known) means no writer is part-way through a file.
#[derive(Debug, Default)]
struct Writes {
    open: HashSet<PathBuf>,
    /// An event of unknown kind, an error or lost events since the last run began, or
    /// more than [`MAX_LISTED`] files open: settled only after the next run begins.
    unknown: bool,
}

impl Writes {
    /// Follows one event (already known to concern the tree; paths the index cannot
    /// hold are skipped).
    fn note(&mut self, event: &Event, root: &Path, own_files: &[PathBuf]) {
        let paths = event
            .paths
            .iter()
            .filter(|p| indexable_path(p, root, own_files));
        match event.kind {
            EventKind::Access(AccessKind::Close(AccessMode::Write))
            | EventKind::Remove(_)
            | EventKind::Modify(ModifyKind::Name(_)) => {
                for p in paths {
                    self.open.remove(p);
                }
            }
            EventKind::Access(_)
            | EventKind::Create(CreateKind::Folder)
            | EventKind::Modify(ModifyKind::Metadata(_)) => {}
            EventKind::Create(_) | EventKind::Modify(_) => {
                self.open.extend(paths.cloned());
                if self.open.len() > MAX_LISTED {
                    self.lost();
                }
            }
            EventKind::Any | EventKind::Other => self.lost(),
        }
    }

    /// Nothing is known of the writes until the next run begins.
    fn lost(&mut self) {
        self.open.clear();
        self.unknown = true;
    }

    /// Whether every file written since the last run began has been closed.
    fn settled(&self) -> bool {
        !self.unknown && self.open.is_empty()
    }
}

/// How long the tree must be quiet before the refresher re-indexes (milliseconds of
/// no relevant event).
pub const QUIET: Duration = Duration::from_millis(50);

/// The quiet that starts a run while a tool call waits for it and no file written
/// since the last run is still open for writing (see [`Writes`]). Long enough for the
/// next file of a checkout to follow (git writes them back to back), short beside an
/// edit's run.
pub const SETTLED_QUIET: Duration = Duration::from_millis(5);

/// How long a tool call that finds events pending waits for the background run before
/// it runs the index itself.
pub const CALL_WAIT: Duration = Duration::from_secs(2);

/// The counters a workspace keeps of events and index runs (all monotonic).
#[derive(Debug, Default)]
pub struct FreshnessCounters {
    /// Notified when an index run finishes (callers of [`FreshnessCounters::wait_current`]
    /// wait on it).
    ran: (Mutex<()>, Condvar),
    /// Relevant file-system events counted since the watch started.
    events: AtomicU64,
    /// One more than the event count read at the start of the newest finished index
    /// run (0: no run finished since the watch started).
    indexed_upto: AtomicU64,
    /// Index runs made by tool calls (each one walks the tree).
    call_walks: AtomicU64,
    /// Index runs made by the refresher thread.
    background_runs: AtomicU64,
    /// Those of them that walked the tree (the others stat-ed the listed paths only).
    background_walks: AtomicU64,
    /// Whether the watcher reported an error or a lost-events notice since the start.
    degraded: AtomicBool,
    /// Tool calls waiting in [`FreshnessCounters::wait_current`] now.
    waiting: AtomicUsize,
    /// Wakes the refresher thread when a call starts waiting (set by [`Watch::start`]).
    waker: Mutex<Option<mpsc::Sender<Wake>>>,
}

impl FreshnessCounters {
    /// The event count to hand to [`FreshnessCounters::note_run`] once the run that is
    /// about to start has finished.
    pub fn events(&self) -> u64 {
        self.events.load(Ordering::SeqCst)
    }

    /// Records a finished index run that started when `events_at_start` events had
    /// been counted.
    pub fn note_run(&self, events_at_start: u64) {
        // Under the lock, so that a waiter between its check and its wait is not missed.
        let _held = self.ran.0.lock().unwrap_or_else(|p| p.into_inner());
        self.indexed_upto
            .fetch_max(events_at_start + 1, Ordering::SeqCst);
        self.ran.1.notify_all();
    }

    /// Waits until [`FreshnessCounters::is_current`] holds, at most `timeout`; returns
    /// whether it does.
    ///
    /// While it waits, the refresher starts the run after [`SETTLED_QUIET`] instead of
    /// [`QUIET`] when every written file has been closed.
    pub fn wait_current(&self, timeout: Duration) -> bool {
        if self.is_current() {
            return true;
        }
        self.waiting.fetch_add(1, Ordering::SeqCst);
        if let Some(waker) = self.waker.lock().ok().and_then(|w| w.clone()) {
            let _ = waker.send(Wake::Call);
        }
        let current = self.wait_current_inner(timeout);
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        current
    }

    fn wait_current_inner(&self, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let mut held = self.ran.0.lock().unwrap_or_else(|p| p.into_inner());
        while !self.is_current() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            held = match self.ran.1.wait_timeout(held, left) {
                Ok((guard, _)) => guard,
                Err(p) => p.into_inner().0,
            };
        }
        true
    }

    /// True when an index run finished after the last counted event began it, i.e.
    /// the index is as fresh as the events tell.
    pub fn is_current(&self) -> bool {
        let upto = self.indexed_upto.load(Ordering::SeqCst);
        upto > 0 && self.events.load(Ordering::SeqCst) < upto
    }

    /// Counts an index run made by a tool call.
    pub fn note_call_walk(&self) {
        self.call_walks.fetch_add(1, Ordering::Relaxed);
    }

    /// Index runs made by tool calls so far (each walked the tree).
    pub fn call_walks(&self) -> u64 {
        self.call_walks.load(Ordering::Relaxed)
    }

    /// Index runs made in the background so far.
    pub fn background_runs(&self) -> u64 {
        self.background_runs.load(Ordering::Relaxed)
    }

    /// Background runs so far that walked the tree: the first one, and those after lost
    /// events, a new path or a directory event (see [`crate::index::index_paths`]).
    pub fn background_walks(&self) -> u64 {
        self.background_walks.load(Ordering::Relaxed)
    }

    /// Whether events may have been lost since the watch started.
    pub fn degraded(&self) -> bool {
        self.degraded.load(Ordering::Relaxed)
    }
}

/// A running watch of one workspace: dropping it stops the watcher, and the refresher
/// thread ends after its current run.
pub struct Watch {
    _watcher: notify::RecommendedWatcher,
    /// Its [`FreshnessCounters::waker`] is dropped with the watch, so that the
    /// refresher's channel has no sender left and the thread ends.
    counters: Arc<FreshnessCounters>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Ok(mut waker) = self.counters.waker.lock() {
            *waker = None;
        }
    }
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch")
    }
}

impl Watch {
    /// Starts watching `root`; events are counted in `counters` and a refresher thread
    /// (holding only a weak reference to `target`) re-indexes after each quiet period.
    /// The first background run starts at once, so the index is brought up to date
    /// with the disk as it was when the watch began. `own_files` are the workspace's
    /// database files (the index and the agent memory), whose writes are not events.
    /// `cookie_prefix`: the path prefix of the cookies other processes create to ask
    /// whether the index is current ([`super::watch_sync::cookie_prefix`] of the
    /// database); `None` answers none.
    ///
    /// Errors: the watcher's own (`notify::Error`), e.g. when the system's limit of
    /// watched directories is reached; nothing keeps running then.
    pub fn start<R: Refresh + 'static>(
        target: &Arc<R>,
        root: &Path,
        own_files: Vec<PathBuf>,
        cookie_prefix: Option<PathBuf>,
        counters: Arc<FreshnessCounters>,
    ) -> Result<Watch, notify::Error> {
        let root = root.to_path_buf();
        let cookies: Cookies = Arc::new(Mutex::new(Vec::new()));
        let asking = Arc::clone(&cookies);
        let (wake, woken) = mpsc::channel::<Wake>();
        if let Ok(mut waker) = counters.waker.lock() {
            *waker = Some(wake.clone());
        }
        let seen = Arc::clone(&counters);
        let handler_root = root.clone();
        // The first run walks: nothing is known of the tree before the watch.
        let changed: Changed = Arc::new(Mutex::new(None));
        let listing = Arc::clone(&changed);
        let writes = Arc::new(Mutex::new(Writes::default()));
        let writing = Arc::clone(&writes);
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<Event>| {
            if let (Ok(event), Some(prefix)) = (&res, &cookie_prefix) {
                if note_cookies(event, prefix, &asking, seen.events()) {
                    let _ = wake.send(Wake::Call);
                }
            }
            if let Ok(mut w) = writing.lock() {
                match &res {
                    Ok(event) if !event.need_rescan() => w.note(event, &handler_root, &own_files),
                    _ => w.lost(),
                }
            }
            let relevant = match &res {
                Ok(event)
                    if event.kind == EventKind::Access(AccessKind::Close(AccessMode::Write)) =>
                {
                    // Not a change: the end of one (see `Writes`).
                    let _ = wake.send(Wake::Closed);
                    false
                }
                Ok(event) if event.need_rescan() => {
                    forget_changes(&listing);
                    if !seen.degraded.swap(true, Ordering::Relaxed) {
                        tracing::warn!(
                            "file watcher: events were lost (queue overflow); the next index run walks the whole tree"
                        );
                    }
                    true
                }
                Ok(event) if changes_ignore_rules(event, &handler_root) => {
                    // Which files are indexed may change: the next run walks.
                    forget_changes(&listing);
                    true
                }
                Ok(event) => {
                    let relevant = is_relevant(event, &handler_root, &own_files);
                    if relevant {
                        list_changes(&listing, event, &handler_root, &own_files);
                    }
                    relevant
                }
                Err(e) => {
                    forget_changes(&listing);
                    seen.degraded.store(true, Ordering::Relaxed);
                    tracing::warn!(
                        "file watcher error: {e}; the next index run walks the whole tree"
                    );
                    true
                }
            };
            if relevant {
                seen.events.fetch_add(1, Ordering::SeqCst);
                let _ = wake.send(Wake::Event);
            }
        })?;
        watcher.watch(&root, RecursiveMode::Recursive)?;
        let weak = Arc::downgrade(target);
        let kept = Arc::clone(&counters);
        let pending = Pending {
            changed,
            writes,
            cookies,
            quiet: QUIET,
        };
        std::thread::Builder::new()
            .name("constellation-refresher".into())
            .spawn(move || refresher(weak, counters, pending, woken))
            .map_err(notify::Error::io)?;
        Ok(Watch {
            _watcher: watcher,
            counters: kept,
        })
    }
}

/// What the watcher's callback gathers for the refresher's next run.
struct Pending {
    changed: Changed,
    writes: Arc<Mutex<Writes>>,
    /// Cookies waiting for their answer.
    cookies: Cookies,
    /// The quiet after the last event ([`QUIET`]; tests shorten or lengthen it).
    quiet: Duration,
}

impl Pending {
    /// The quiet the next run waits for: [`SETTLED_QUIET`] while a call (of this
    /// process, or another's cookie) waits and the writes have settled, else
    /// `self.quiet`.
    fn quiet_now(&self, counters: &FreshnessCounters) -> Duration {
        let settled = || self.writes.lock().is_ok_and(|w| w.settled());
        let asked = || self.cookies.lock().is_ok_and(|c| !c.is_empty());
        if (counters.waiting.load(Ordering::SeqCst) > 0 || asked()) && settled() {
            SETTLED_QUIET.min(self.quiet)
        } else {
            self.quiet
        }
    }
}

/// The refresher thread: one run at start, then one after each quiet period that
/// follows an event; ends when the watcher (the sender) is dropped or the workspace is.
fn refresher<R: Refresh>(
    target: Weak<R>,
    counters: Arc<FreshnessCounters>,
    pending: Pending,
    woken: mpsc::Receiver<Wake>,
) {
    let Pending {
        changed,
        writes,
        cookies,
        ..
    } = &pending;
    let mut last_event = Instant::now();
    // A run changed the index since the last `idle` call.
    let mut owed_idle = false;
    loop {
        // Drain: wait for the quiet after the last event (shorter once a call waits
        // and the writes are over; a close or a call wakes this to look again).
        loop {
            let left = (last_event + pending.quiet_now(&counters))
                .saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match woken.recv_timeout(left) {
                Ok(Wake::Event) => last_event = Instant::now(),
                Ok(Wake::Closed | Wake::Call) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        if !counters.is_current() {
            let Some(target) = target.upgrade() else {
                return;
            };
            counters.background_runs.fetch_add(1, Ordering::Relaxed);
            // The count first, then the list: an event counted by then has its paths in
            // the list (the callback lists before it counts) or in an earlier run's; a
            // later one is not counted, so another run follows it.
            let events_at_start = counters.events();
            let listed = match changed.lock() {
                Ok(mut list) => list.replace(BTreeSet::new()),
                Err(_) => None,
            };
            // The run reads what is on disk now; writes after this are followed anew.
            if let Ok(mut w) = writes.lock() {
                *w = Writes::default();
            }
            let listed: Option<Vec<PathBuf>> = listed.map(|set| set.into_iter().collect());
            let result = target.refresh_now(listed.as_deref(), events_at_start);
            if result.is_err() {
                // The listed paths were not indexed: the next run walks.
                forget_changes(changed);
            }
            match result {
                Ok(r) => {
                    owed_idle |= r.changed;
                    if r.file_source != crate::walk::FileSource::Events {
                        counters.background_walks.fetch_add(1, Ordering::Relaxed);
                    }
                    if r.files_parsed > 0 || r.files_removed > 0 {
                        tracing::info!(
                            "file watcher: re-indexed {} files, removed {} (generation {}, {})",
                            r.files_parsed,
                            r.files_removed,
                            r.generation,
                            if r.file_source == crate::walk::FileSource::Events {
                                "no walk"
                            } else {
                                "after a walk"
                            }
                        );
                    }
                }
                Err(e) => tracing::warn!("file watcher: background index run failed: {e}"),
            }
        }
        let asked = cookies.lock().is_ok_and(|c| !c.is_empty());
        if owed_idle && asked && counters.is_current() {
            let Some(target) = target.upgrade() else {
                return;
            };
            target.idle();
            owed_idle = false;
        }
        answer_cookies(cookies, &counters);
        // Sleep until the next event; after a run that changed the index, at most
        // until the tree has been quiet for IDLE_AFTER.
        let next = if owed_idle {
            woken.recv_timeout(IDLE_AFTER)
        } else {
            woken.recv().map_err(|_| RecvTimeoutError::Disconnected)
        };
        match next {
            Ok(Wake::Event) => last_event = Instant::now(),
            Ok(Wake::Closed | Wake::Call) => {}
            Err(RecvTimeoutError::Timeout) => {
                if counters.is_current() {
                    let Some(target) = target.upgrade() else {
                        return;
                    };
                    target.idle();
                    owed_idle = false;
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Adds the cookies `event` creates to `cookies`, with `events` (the count of events
/// the watch has seen before this one); returns whether it added any. A cookie
/// already waiting keeps its count.
fn note_cookies(event: &Event, prefix: &Path, cookies: &Cookies, events: u64) -> bool {
    if matches!(event.kind, EventKind::Access(_) | EventKind::Remove(_)) {
        return false;
    }
    let Ok(mut waiting) = cookies.lock() else {
        return false;
    };
    let mut added = false;
    for path in &event.paths {
        if super::watch_sync::is_cookie(path, prefix) && !waiting.iter().any(|(p, _)| p == path) {
            waiting.push((path.clone(), events));
            added = true;
        }
    }
    added
}

/// Deletes the cookies whose answer is known: a finished run began after every event
/// counted before each was created. The others wait for a later run.
fn answer_cookies(cookies: &Cookies, counters: &FreshnessCounters) {
    let upto = counters.indexed_upto.load(Ordering::SeqCst);
    let Ok(mut waiting) = cookies.lock() else {
        return;
    };
    waiting.retain(|(path, events)| {
        if upto > *events {
            if let Err(e) = std::fs::remove_file(path) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!("file watcher: cookie {} not deleted: {e}", path.display());
                }
            }
            false
        } else {
            true
        }
    });
}

/// Adds the paths of `event` the index may hold to the list of changes (or drops the
/// list when it grows past [`MAX_LISTED`]).
fn list_changes(changed: &Changed, event: &Event, root: &Path, own_files: &[PathBuf]) {
    let Ok(mut guard) = changed.lock() else {
        return;
    };
    let Some(list) = guard.as_mut() else {
        return;
    };
    for path in &event.paths {
        if indexable_path(path, root, own_files) {
            list.insert(path.clone());
        }
    }
    if list.len() > MAX_LISTED {
        *guard = None;
    }
}

/// Whether `event` writes an ignore file the walk reads (`.gitignore` or `.ignore` at
/// any depth, `.git/info/exclude` of the root): which files are indexed may change
/// without any of them changing, so only a walk can tell.
fn changes_ignore_rules(event: &Event, root: &Path) -> bool {
    if matches!(event.kind, EventKind::Access(_)) {
        return false;
    }
    event.paths.iter().any(|path| {
        let Ok(rel) = path.strip_prefix(root) else {
            return false;
        };
        if rel == Path::new(".git/info/exclude") {
            return true;
        }
        let named = |n: &str| rel.file_name().is_some_and(|f| f == n);
        (named(".gitignore") || named(".ignore"))
            && !rel.components().any(|c| c.as_os_str() == ".git")
    })
}

/// Drops the list of changes: the next run walks the tree.
fn forget_changes(changed: &Changed) {
    if let Ok(mut guard) = changed.lock() {
        *guard = None;
    }
}

/// Whether `event` may change the index: not a read, and some path of it lies under
/// `root`, outside hidden directories (the walk skips those) and is not one of the
/// workspace's own database files (`own_files`: the index and the agent-memory
/// database; their `-wal`, `-shm` and `.partial-PID` companions count as theirs).
fn is_relevant(event: &Event, root: &Path, own_files: &[PathBuf]) -> bool {
    if matches!(event.kind, EventKind::Access(_)) {
        return false;
    }
    event
        .paths
        .iter()
        .any(|p| indexable_path(p, root, own_files))
}

fn indexable_path(path: &Path, root: &Path, own_files: &[PathBuf]) -> bool {
    let own = own_files.iter().any(|db| {
        path.parent() == db.parent()
            && match (path.file_name(), db.file_name()) {
                (Some(name), Some(db_name)) => crate::walk::database_companion(name, db_name),
                _ => false,
            }
    });
    if own {
        return false;
    }
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    !rel.components().any(|c| match c {
        Component::Normal(s) => s.to_string_lossy().starts_with('.'),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, CreateKind, ModifyKind};
    use std::path::PathBuf;

    fn event(kind: EventKind, path: &str) -> Event {
        Event::new(kind).add_path(PathBuf::from(path))
    }

    #[test]
    fn the_changed_paths_are_listed_until_too_many_or_lost() {
        let root = Path::new("/ws");
        let own = vec![PathBuf::from("/ws/.constellation/index.db")];
        let changed: Changed = Arc::new(Mutex::new(Some(BTreeSet::new())));
        let modify = EventKind::Modify(ModifyKind::Any);
        list_changes(&changed, &event(modify, "/ws/a.py"), root, &own);
        list_changes(&changed, &event(modify, "/ws/a.py"), root, &own);
        list_changes(&changed, &event(modify, "/ws/.git/index"), root, &own);
        list_changes(&changed, &event(modify, "/elsewhere/b.py"), root, &own);
        let rename = Event::new(EventKind::Modify(ModifyKind::Any))
            .add_path(PathBuf::from("/ws/old.py"))
            .add_path(PathBuf::from("/ws/new.py"));
        list_changes(&changed, &rename, root, &own);
        let listed: Vec<PathBuf> = changed
            .lock()
            .unwrap()
            .clone()
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(
            listed,
            ["/ws/a.py", "/ws/new.py", "/ws/old.py"].map(PathBuf::from)
        );
        for i in 0..MAX_LISTED {
            list_changes(
                &changed,
                &event(modify, &format!("/ws/f{i}.py")),
                root,
                &own,
            );
        }
        assert!(changed.lock().unwrap().is_none(), "past MAX_LISTED: walk");
        // Once dropped, the list stays dropped until the next run starts a new one.
        list_changes(&changed, &event(modify, "/ws/a.py"), root, &own);
        assert!(changed.lock().unwrap().is_none());
        *changed.lock().unwrap() = Some(BTreeSet::new());
        list_changes(&changed, &event(modify, "/ws/a.py"), root, &own);
        forget_changes(&changed);
        assert!(changed.lock().unwrap().is_none(), "lost events: walk");
    }

    #[test]
    fn writes_to_ignore_files_make_the_next_run_walk() {
        let root = Path::new("/ws");
        let modify = EventKind::Modify(ModifyKind::Any);
        for path in [
            "/ws/.gitignore",
            "/ws/sub/.gitignore",
            "/ws/a/.ignore",
            "/ws/.git/info/exclude",
        ] {
            assert!(changes_ignore_rules(&event(modify, path), root), "{path}");
        }
        for path in [
            "/ws/a.py",
            "/ws/.git/index",
            "/ws/.git/x/.gitignore",
            "/elsewhere/.gitignore",
        ] {
            assert!(!changes_ignore_rules(&event(modify, path), root), "{path}");
        }
        let read = EventKind::Access(AccessKind::Any);
        assert!(!changes_ignore_rules(&event(read, "/ws/.gitignore"), root));
    }

    #[test]
    fn only_writes_to_indexable_paths_count() {
        let root = Path::new("/w");
        let db = [
            PathBuf::from("/w/.constellation/index.db"),
            PathBuf::from("/w/.constellation/memory.db"),
        ];
        let modify = EventKind::Modify(ModifyKind::Any);
        assert!(is_relevant(&event(modify, "/w/src/a.py"), root, &db));
        assert!(is_relevant(
            &event(EventKind::Create(CreateKind::File), "/w/b.rs"),
            root,
            &db
        ));
        assert!(!is_relevant(
            &event(EventKind::Access(AccessKind::Any), "/w/src/a.py"),
            root,
            &db
        ));
        assert!(!is_relevant(
            &event(modify, "/w/.constellation/index.db-wal"),
            root,
            &db
        ));
        assert!(!is_relevant(&event(modify, "/w/.git/index"), root, &db));
        assert!(!is_relevant(&event(modify, "/elsewhere/a.py"), root, &db));
        // A database file in the tree (`--db /w/cst.db`): its files are not events,
        // the sources beside it are.
        let inside = [
            PathBuf::from("/w/cst.db"),
            PathBuf::from("/w/cst.memory.db"),
        ];
        assert!(!is_relevant(&event(modify, "/w/cst.db-wal"), root, &inside));
        assert!(!is_relevant(
            &event(modify, "/w/cst.db.partial-42"),
            root,
            &inside
        ));
        assert!(!is_relevant(
            &event(modify, "/w/cst.memory.db-shm"),
            root,
            &inside
        ));
        assert!(is_relevant(&event(modify, "/w/cst.py"), root, &inside));
        // A database in a directory above the root (`--db /x/index.db`, root /x/tree).
        let above = [PathBuf::from("/w/index.db")];
        assert!(is_relevant(
            &event(modify, "/w/tree/a.py"),
            Path::new("/w/tree"),
            &above
        ));
    }

    #[test]
    fn a_waiting_call_wakes_when_a_run_finishes_and_gives_up_at_its_timeout() {
        let c = Arc::new(FreshnessCounters::default());
        c.note_run(c.events());
        c.events.fetch_add(1, Ordering::SeqCst);
        assert!(
            !c.wait_current(Duration::from_millis(30)),
            "no run: timed out"
        );
        let runner = Arc::clone(&c);
        let at = c.events();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            runner.note_run(at);
        });
        let started = std::time::Instant::now();
        assert!(c.wait_current(Duration::from_secs(10)));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "woken by the run"
        );
        t.join().unwrap();
    }

    #[test]
    fn writes_settle_when_every_written_file_is_closed_removed_or_renamed() {
        let root = Path::new("/ws");
        let own = vec![PathBuf::from("/ws/.constellation/index.db")];
        let close = EventKind::Access(AccessKind::Close(AccessMode::Write));
        let data = EventKind::Modify(ModifyKind::Data(notify::event::DataChange::Any));
        let mut w = Writes::default();
        assert!(w.settled(), "nothing written");
        // An append: written, then closed.
        w.note(&event(data, "/ws/a.c"), root, &own);
        assert!(!w.settled(), "a.c is open for writing");
        w.note(&event(close, "/ws/a.c"), root, &own);
        assert!(w.settled());
        // An editor's atomic save: a temporary file written and closed, renamed over.
        w.note(
            &event(EventKind::Create(CreateKind::File), "/ws/b.c.tmp"),
            root,
            &own,
        );
        w.note(&event(data, "/ws/b.c.tmp"), root, &own);
        assert!(!w.settled());
        let rename = Event::new(EventKind::Modify(ModifyKind::Name(
            notify::event::RenameMode::Both,
        )))
        .add_path(PathBuf::from("/ws/b.c.tmp"))
        .add_path(PathBuf::from("/ws/b.c"));
        w.note(&rename, root, &own);
        assert!(w.settled(), "a renamed file is whole");
        // Two files written, one closed; then the other removed.
        w.note(&event(data, "/ws/c.c"), root, &own);
        w.note(&event(data, "/ws/d.c"), root, &own);
        w.note(&event(close, "/ws/c.c"), root, &own);
        assert!(!w.settled(), "d.c is still open");
        w.note(
            &event(
                EventKind::Remove(notify::event::RemoveKind::File),
                "/ws/d.c",
            ),
            root,
            &own,
        );
        assert!(w.settled());
        // Reads, metadata, directories, hidden paths and the database change nothing.
        for (kind, path) in [
            (EventKind::Access(AccessKind::Any), "/ws/e.c"),
            (
                EventKind::Modify(ModifyKind::Metadata(notify::event::MetadataKind::Any)),
                "/ws/e.c",
            ),
            (EventKind::Create(CreateKind::Folder), "/ws/sub"),
            (data, "/ws/.git/index"),
            (data, "/ws/.constellation/index.db-wal"),
        ] {
            w.note(&event(kind, path), root, &own);
            assert!(w.settled(), "{kind:?} {path}");
        }
        // An event of unknown kind: not settled until the next run starts afresh.
        w.note(&event(EventKind::Any, "/ws/f.c"), root, &own);
        w.note(&event(close, "/ws/f.c"), root, &own);
        assert!(!w.settled(), "unknown");
        // Too many open files to follow: the same.
        let mut w = Writes::default();
        for i in 0..=MAX_LISTED {
            w.note(&event(data, &format!("/ws/g{i}.c")), root, &own);
        }
        assert!(w.unknown && w.open.is_empty() && !w.settled());
    }

    /// A refresh target that counts its runs and marks each finished on `counters`.
    struct Counting {
        counters: Arc<FreshnessCounters>,
        runs: AtomicU64,
    }

    impl Refresh for Counting {
        fn refresh_now(
            &self,
            _changed: Option<&[PathBuf]>,
            events_at_start: u64,
        ) -> Result<IndexReport, String> {
            self.runs.fetch_add(1, Ordering::SeqCst);
            self.counters.note_run(events_at_start);
            Ok(IndexReport::default())
        }
    }

    #[test]
    fn a_waiting_call_cuts_the_quiet_short_once_the_writes_are_closed() {
        // A quiet of an hour: a run before it only comes from the settled path.
        let counters = Arc::new(FreshnessCounters::default());
        let target = Arc::new(Counting {
            counters: Arc::clone(&counters),
            runs: AtomicU64::new(0),
        });
        let (wake, woken) = mpsc::channel::<Wake>();
        *counters.waker.lock().unwrap() = Some(wake.clone());
        let writes = Arc::new(Mutex::new(Writes::default()));
        let pending = Pending {
            changed: Arc::new(Mutex::new(Some(BTreeSet::new()))),
            writes: Arc::clone(&writes),
            cookies: Arc::new(Mutex::new(Vec::new())),
            quiet: Duration::from_secs(3600),
        };
        let weak = Arc::downgrade(&target);
        let thread_counters = Arc::clone(&counters);
        let refresher =
            std::thread::spawn(move || refresher(weak, thread_counters, pending, woken));
        let event = |kind: EventKind| {
            writes.lock().unwrap().note(
                &super::tests::event(kind, "/ws/a.c"),
                Path::new("/ws"),
                &[],
            );
            if !matches!(kind, EventKind::Access(_)) {
                counters.events.fetch_add(1, Ordering::SeqCst);
                wake.send(Wake::Event).unwrap();
            } else {
                wake.send(Wake::Closed).unwrap();
            }
        };
        let data = EventKind::Modify(ModifyKind::Data(notify::event::DataChange::Any));
        let close = EventKind::Access(AccessKind::Close(AccessMode::Write));
        // The watch's first run waits for the quiet: a call cuts it short (nothing written).
        assert!(counters.wait_current(Duration::from_secs(20)), "first run");
        assert_eq!(target.runs.load(Ordering::SeqCst), 1);
        // A write still open: the waiting call times out, no run.
        event(data);
        assert!(!counters.wait_current(Duration::from_millis(300)));
        assert_eq!(
            target.runs.load(Ordering::SeqCst),
            1,
            "a writer is mid-file"
        );
        // Once closed, a call gets its run at once.
        event(close);
        assert!(counters.wait_current(Duration::from_secs(20)));
        assert_eq!(target.runs.load(Ordering::SeqCst), 2);
        // Without a waiting call, a closed write waits for the whole quiet.
        event(data);
        event(close);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(target.runs.load(Ordering::SeqCst), 2, "nobody waits: batch");
        assert!(counters.wait_current(Duration::from_secs(20)));
        assert_eq!(target.runs.load(Ordering::SeqCst), 3);
        drop(wake);
        *counters.waker.lock().unwrap() = None;
        refresher.join().unwrap();
    }

    #[test]
    fn dropping_the_watch_ends_its_refresher_thread() {
        let dir = tempfile::tempdir().unwrap();
        let counters = Arc::new(FreshnessCounters::default());
        let target = Arc::new(Counting {
            counters: Arc::clone(&counters),
            runs: AtomicU64::new(0),
        });
        let watch =
            Watch::start(&target, dir.path(), Vec::new(), None, Arc::clone(&counters)).unwrap();
        assert!(counters.wait_current(Duration::from_secs(20)), "first run");
        assert_eq!(
            Arc::weak_count(&target),
            1,
            "the refresher holds the target"
        );
        drop(watch);
        let start = Instant::now();
        while Arc::weak_count(&target) > 0 {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the refresher thread still runs after its watch was dropped"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_cookie_is_answered_only_by_a_run_that_began_after_the_events_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db");
        let prefix = crate::tools::watch_sync::cookie_prefix(&db);
        let cookie = dir.path().join("index.db.cookie-1-0");
        std::fs::write(&cookie, "").unwrap();
        let cookies: Cookies = Arc::new(Mutex::new(Vec::new()));
        let c = FreshnessCounters::default();
        let create = EventKind::Create(CreateKind::File);
        let path = cookie.to_str().unwrap();
        // Seen after 3 events; a second notice of the same cookie keeps that count.
        assert!(note_cookies(&event(create, path), &prefix, &cookies, 3));
        assert!(!note_cookies(&event(create, path), &prefix, &cookies, 5));
        assert!(!note_cookies(
            &event(EventKind::Remove(notify::event::RemoveKind::File), path),
            &prefix,
            &cookies,
            5
        ));
        assert!(!note_cookies(
            &event(create, dir.path().join("a.py").to_str().unwrap()),
            &prefix,
            &cookies,
            5
        ));
        // No run yet, then a run that began before the third event: no answer.
        answer_cookies(&cookies, &c);
        c.note_run(2);
        answer_cookies(&cookies, &c);
        assert!(cookie.exists() && cookies.lock().unwrap().len() == 1);
        // A run that began once the three were counted: the cookie is deleted.
        c.note_run(3);
        answer_cookies(&cookies, &c);
        assert!(!cookie.exists() && cookies.lock().unwrap().is_empty());
    }

    #[test]
    fn the_index_is_current_only_after_a_run_that_began_after_the_last_event() {
        let c = FreshnessCounters::default();
        assert!(!c.is_current(), "no run yet");
        let at = c.events();
        c.note_run(at);
        assert!(c.is_current());
        c.events.fetch_add(1, Ordering::SeqCst);
        assert!(!c.is_current(), "an event after the run");
        // A run that began before that event does not make the index current.
        c.note_run(at);
        assert!(!c.is_current());
        c.note_run(c.events());
        assert!(c.is_current());
    }
}
