//! Asking a running server whether its file watch has brought the index up to date,
//! instead of walking the tree: how a one-shot command (`constellation index`,
//! `summary`, `search`, ..) run beside a long-lived `serve` answers in milliseconds on a
//! large tree, the way git's `fsmonitor` daemon and Watchman's cookie files do.
//!
//! The protocol, all through the file system beside the database `DB`:
//! - A server whose watch runs takes an exclusive advisory lock (`flock(2)` on Unix, as
//!   in [`crate::index::run_lock`]) on `DB.watch` and writes one JSON line into it:
//!   its process id, the watched root, and a fingerprint of the options that decide
//!   which files are indexed and how ([`fingerprint`]). The operating system drops the
//!   lock when the server exits, however it exits, so a lock that can be taken means
//!   no server: the file itself may stay behind.
//! - A command that wants the index fresh finds the lock held, checks the root and
//!   the fingerprint, and creates a *cookie*: an empty file `DB.cookie-PID-N`, which must
//!   lie in the watched tree (the server publishes only when it does). The kernel
//!   queues the cookie's creation after every change written before it, so once the
//!   watch has seen the cookie, every earlier change has been seen too.
//! - The server's refresher deletes the cookie once an index run that started after
//!   all those events has committed ([`crate::tools::watcher`]). The command waits for
//!   the deletion (at most [`SYNC_WAIT`], watching that the lock stays held) and then
//!   reads the index as it is: it matches the disk as of the cookie's creation.
//!
//! When there is no server, it watches with other options, it died, or it does not
//! answer in time, the command walks the tree as it always did ([`Synced::No`]): the
//! answer is never older than the disk was when the command started.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::index::IndexOptions;

/// How long a command waits for the server to delete its cookie before it walks the
/// tree itself: the server's longest wait for a quiet tree
/// ([`crate::tools::watcher::CALL_WAIT`]) plus an index run of a branch switch.
pub const SYNC_WAIT: Duration = Duration::from_secs(5);

/// How often the command looks whether its cookie is gone.
const POLL: Duration = Duration::from_millis(1);

/// How often, while waiting, the command checks that the server still holds the lock.
const ALIVE_EVERY: Duration = Duration::from_millis(100);

/// `DB.watch`: the file whose lock a watching server holds.
pub fn watch_file_path(db: &Path) -> PathBuf {
    suffixed(db, ".watch")
}

/// The file-name prefix of the cookies of the database at `db` (`DB.cookie-`), as a
/// full path.
pub fn cookie_prefix(db: &Path) -> PathBuf {
    suffixed(db, ".cookie-")
}

/// Whether `path` is a cookie of the database whose cookie prefix is `prefix`.
pub fn is_cookie(path: &Path, prefix: &Path) -> bool {
    path.parent() == prefix.parent()
        && match (path.file_name(), prefix.file_name()) {
            (Some(name), Some(p)) => {
                let (name, p) = (name.as_encoded_bytes(), p.as_encoded_bytes());
                name.len() > p.len() && name.starts_with(p)
            }
            _ => false,
        }
}

fn suffixed(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// What decides the answer of an index run besides the files: the build and the walk
/// options (`--exclude`, `--max-file-size`, `--no-default-excludes`, `--no-ignore`). A
/// command syncs only with a server whose fingerprint equals its own.
pub fn fingerprint(opts: &IndexOptions) -> String {
    format!("{} {:?}", env!("CARGO_PKG_VERSION"), opts.walk)
}

/// What a watching server publishes in `DB.watch` (one JSON line).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WatchInfo {
    /// The server's process id.
    pub pid: u32,
    /// The watched root (canonical).
    pub root: PathBuf,
    /// [`fingerprint`] of the server's options.
    pub fingerprint: String,
}

/// The lock a watching server holds on `DB.watch` while its watch runs; dropping it
/// releases the lock (and leaves the file, which holds nothing of value).
#[derive(Debug)]
pub struct Published {
    _file: File,
}

/// Publishes the watch of `root` on the database at `db` (see the module doc).
/// `Ok(None)` when it cannot serve cookies: the database's directory is not inside the
/// watched root (the cookie's creation would not be seen), or another process already
/// holds the lock (it answers).
///
/// Errors: the file cannot be created, locked or written (the caller logs it; commands
/// then walk the tree as before).
pub fn publish(db: &Path, root: &Path, fingerprint: String) -> std::io::Result<Option<Published>> {
    let in_root = db
        .parent()
        .and_then(|dir| dir.canonicalize().ok())
        .is_some_and(|dir| dir.starts_with(root));
    if !in_root {
        return Ok(None);
    }
    let path = watch_file_path(db);
    // Not truncated before the lock is ours: another server may be answering from it.
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
        Err(std::fs::TryLockError::Error(e)) => return Err(e),
    }
    let info = WatchInfo {
        pid: std::process::id(),
        root: root.to_path_buf(),
        fingerprint,
    };
    file.set_len(0)?;
    let mut line = serde_json::to_vec(&info).map_err(std::io::Error::other)?;
    line.push(b'\n');
    file.write_all(&line)?;
    file.sync_data()?;
    Ok(Some(Published { _file: file }))
}

/// The answer of [`sync`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Synced {
    /// The server of process `pid` deleted the cookie: the index matches the disk as
    /// of the moment [`sync`] created it. `waited`: how long that took.
    Yes { pid: u32, waited: Duration },
    /// No server answered for this database, root and options; `why` says which
    /// (for the log): the caller walks the tree.
    No { why: String },
    /// The server of process `pid` holds the lock but did not delete the cookie within
    /// the wait (hung, or its watch does not see the database's directory): the caller
    /// walks the tree, and says so, since every command will wait as long again.
    TimedOut { pid: u32 },
}

/// The server whose file watch answers cookies for the database at `db` now, if one
/// does (its lock is held and its line is complete).
pub fn watching_server(db: &Path) -> Option<WatchInfo> {
    let mut file = File::open(watch_file_path(db)).ok()?;
    if !held_by_other(&file) {
        return None;
    }
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    serde_json::from_str(text.trim()).ok()
}

/// Whether a server watching `root` with options of fingerprint `fingerprint` keeps
/// the database at `db` fresh, and if so waits until its index includes every change
/// made before this call (at most `wait`). Never fails: any problem is [`Synced::No`].
pub fn sync(db: &Path, root: &Path, fingerprint: &str, wait: Duration) -> Synced {
    let no = |why: String| Synced::No { why };
    let path = watch_file_path(db);
    let mut file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return no("no server watches this database".into())
        }
        Err(e) => return no(format!("{} cannot be read: {e}", path.display())),
    };
    if !held_by_other(&file) {
        return no("no server watches this database".into());
    }
    let mut text = String::new();
    if let Err(e) = file.read_to_string(&mut text) {
        return no(format!("{} cannot be read: {e}", path.display()));
    }
    let info: WatchInfo = match serde_json::from_str(text.trim()) {
        Ok(info) => info,
        // Being written by a server that has just taken the lock.
        Err(e) => return no(format!("{} is not complete yet: {e}", path.display())),
    };
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    if info.root != canonical {
        return no(format!(
            "the server (process {}) watches {}, not {}",
            info.pid,
            info.root.display(),
            canonical.display()
        ));
    }
    if info.fingerprint != fingerprint {
        return no(format!(
            "the server (process {}) indexes with other options ({}; here {fingerprint})",
            info.pid, info.fingerprint
        ));
    }
    let cookie = new_cookie_path(db);
    if let Err(e) = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&cookie)
    {
        return no(format!(
            "cookie {} cannot be created: {e}",
            cookie.display()
        ));
    }
    let started = Instant::now();
    let mut alive_checked = started;
    loop {
        match std::fs::symlink_metadata(&cookie) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Synced::Yes {
                    pid: info.pid,
                    waited: started.elapsed(),
                };
            }
            _ => {}
        }
        let now = Instant::now();
        if now.duration_since(started) >= wait {
            let _ = std::fs::remove_file(&cookie);
            return Synced::TimedOut { pid: info.pid };
        }
        if now.duration_since(alive_checked) >= ALIVE_EVERY {
            alive_checked = now;
            if !held_by_other(&file) {
                let _ = std::fs::remove_file(&cookie);
                return no(format!("the server (process {}) stopped", info.pid));
            }
        }
        std::thread::sleep(POLL);
    }
}

/// Whether another open file description holds an exclusive lock on `file` (a shared
/// lock of ours cannot be had); ours, if taken, is released at once.
fn held_by_other(file: &File) -> bool {
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            false
        }
        Err(std::fs::TryLockError::WouldBlock) => true,
        Err(std::fs::TryLockError::Error(_)) => false,
    }
}

/// A cookie name no other call uses: the process id and a counter of this process.
fn new_cookie_path(db: &Path) -> PathBuf {
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = cookie_prefix(db).into_os_string();
    name.push(format!("{}-{n}", std::process::id()));
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_named_after_their_database() {
        let db = Path::new("/r/.constellation/index.db");
        let prefix = cookie_prefix(db);
        assert!(is_cookie(
            Path::new("/r/.constellation/index.db.cookie-12-0"),
            &prefix
        ));
        assert!(!is_cookie(
            Path::new("/r/.constellation/index.db.cookie-"),
            &prefix
        ));
        assert!(!is_cookie(Path::new("/r/.constellation/index.db"), &prefix));
        assert!(!is_cookie(
            Path::new("/r/other/index.db.cookie-12-0"),
            &prefix
        ));
        assert_eq!(
            watch_file_path(db),
            PathBuf::from("/r/.constellation/index.db.watch")
        );
        let a = new_cookie_path(db);
        let b = new_cookie_path(db);
        assert!(a != b && is_cookie(&a, &prefix) && is_cookie(&b, &prefix));
    }

    /// A root with its database directory: (the temporary directory, root, database).
    fn tree() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let db = root.join(".constellation/index.db");
        std::fs::create_dir_all(db.parent().unwrap()).unwrap();
        (dir, root, db)
    }

    #[test]
    fn without_a_server_or_with_another_root_or_options_nothing_is_waited_for() {
        let (_dir, root, db) = tree();
        let quick = Duration::from_millis(200);
        assert!(matches!(sync(&db, &root, "f", quick), Synced::No { .. }));

        let published = publish(&db, &root, "f".into()).unwrap().expect("published");
        // A second server of the same database does not publish over the first.
        assert!(publish(&db, &root, "f".into()).unwrap().is_none());
        let Synced::No { why } = sync(&db, &root, "g", quick) else {
            panic!("synced with other options");
        };
        assert!(why.contains("other options"), "{why}");
        let other = tempfile::tempdir().unwrap();
        let Synced::No { why } = sync(&db, other.path(), "f", quick) else {
            panic!("synced with another root");
        };
        assert!(why.contains("watches"), "{why}");

        // Nobody deletes the cookie: the wait ends, and the cookie is removed.
        let t = Instant::now();
        assert_eq!(
            sync(&db, &root, "f", quick),
            Synced::TimedOut {
                pid: std::process::id()
            }
        );
        assert!(t.elapsed() >= quick);
        let left: Vec<_> = std::fs::read_dir(db.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| is_cookie(p, &cookie_prefix(&db)))
            .collect();
        assert!(left.is_empty(), "{left:?}");

        // The server gone (its lock dropped), the file left behind: no server.
        drop(published);
        assert!(watch_file_path(&db).exists());
        let Synced::No { why } = sync(&db, &root, "f", quick) else {
            panic!("synced with a stopped server");
        };
        assert!(why.contains("no server"), "{why}");
    }

    #[test]
    fn a_deleted_cookie_is_an_answer_and_a_database_outside_the_root_is_not_published() {
        let (_dir, root, db) = tree();
        let _published = publish(&db, &root, "f".into()).unwrap().expect("published");
        let prefix = cookie_prefix(&db);
        let dbdir = db.parent().unwrap().to_path_buf();
        let answerer = std::thread::spawn(move || loop {
            for e in std::fs::read_dir(&dbdir).unwrap() {
                let p = e.unwrap().path();
                if is_cookie(&p, &prefix) {
                    std::fs::remove_file(&p).unwrap();
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        });
        let synced = sync(&db, &root, "f", Duration::from_secs(10));
        answerer.join().unwrap();
        assert!(
            matches!(synced, Synced::Yes { pid, .. } if pid == std::process::id()),
            "{synced:?}"
        );

        let elsewhere = tempfile::tempdir().unwrap();
        let outside = elsewhere.path().join("index.db");
        assert!(publish(&outside, &root, "f".into()).unwrap().is_none());
    }
}
