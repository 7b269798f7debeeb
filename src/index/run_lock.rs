//! One index run per database at a time, across processes.
//!
//! Several processes index the same database: every MCP server's background refresh,
//! the CLI, a CI job. Two runs that both find the same new file would both insert it
//! (`UNIQUE constraint failed: files.path`), and two builds from nothing would race to
//! rename their file into place. So a run first takes an exclusive advisory lock
//! (`flock(2)` on Unix, `LockFileEx` on Windows, through [`std::fs::File::lock`]) on
//! `DB.lock`, a file beside the database that holds nothing. A second run waits for the
//! first and then finds the index current (its walk sees what the first one wrote). The
//! operating system drops the lock when its holder exits, so a killed run never leaves
//! the database locked.
//!
//! Builds into a private `DB.partial-PID` file take no lock of their own: the lock of
//! the database they will become is held around them ([`super::index_new_database`]).

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::IndexError;
use crate::store::StoreError;

/// The lock file of the database at `db`: `DB.lock` beside it.
pub fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// An exclusive index run on one database, held until dropped.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Takes the run lock of the database at `db`, waiting as long as another process
    /// (or another thread of this one, through its own handle) holds it; logs at info
    /// level when it has to wait and for how long it waited. The database's directory
    /// must exist.
    ///
    /// Errors: [`StoreError::Unwritable`] (as [`IndexError::Store`]) when the lock file
    /// cannot be created for lack of permission or on a read-only file system;
    /// [`IndexError::RunLock`] for any other failure to create or lock it.
    pub fn acquire(db: &Path) -> Result<RunLock, IndexError> {
        let file = open_lock_file(db)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                tracing::info!(
                    "another process is indexing {}: waiting for it to finish",
                    db.display()
                );
                let waited = Instant::now();
                file.lock().map_err(|e| lock_error(db, e))?;
                tracing::info!(
                    "the other index run of {} finished after {} ms",
                    db.display(),
                    waited.elapsed().as_millis()
                );
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(lock_error(db, e)),
        }
        Ok(RunLock { _file: file })
    }

    /// Takes the run lock of the database at `db` if no other process holds it;
    /// `Ok(None)` at once when one does.
    ///
    /// Errors: as [`RunLock::acquire`].
    pub fn try_acquire(db: &Path) -> Result<Option<RunLock>, IndexError> {
        let file = open_lock_file(db)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(RunLock { _file: file })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(lock_error(db, e)),
        }
    }
}

/// Opens (creating it) the lock file of `db`.
///
/// Errors: as [`lock_error`].
fn open_lock_file(db: &Path) -> Result<File, IndexError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock_path(db))
        .map_err(|e| lock_error(db, e))
}

/// The run's error for `error` met creating or locking the lock file of `db`: a
/// permission or read-only file system is said as every other "cannot write the
/// database there" is ([`StoreError::Unwritable`], with what to do); anything else is
/// [`IndexError::RunLock`].
fn lock_error(db: &Path, error: std::io::Error) -> IndexError {
    let path = lock_path(db);
    if matches!(
        error.kind(),
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
    ) {
        return IndexError::Store(StoreError::Unwritable {
            path: db.to_path_buf(),
            message: format!("cannot create its lock file {}: {error}", path.display()),
        });
    }
    IndexError::RunLock { path, error }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_second_run_waits_until_the_first_lock_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db");
        let first = RunLock::acquire(&db).unwrap();
        assert!(lock_path(&db).ends_with("index.db.lock"));
        assert!(
            RunLock::try_acquire(&db).unwrap().is_none(),
            "held: not granted"
        );
        let (tx, rx) = mpsc::channel();
        let db2 = db.clone();
        let waiter = std::thread::spawn(move || {
            let second = RunLock::acquire(&db2).unwrap();
            tx.send(()).unwrap();
            drop(second);
        });
        assert!(
            rx.recv_timeout(Duration::from_millis(300)).is_err(),
            "the second lock was granted while the first was held"
        );
        drop(first);
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the second lock was not granted after the first was dropped");
        waiter.join().unwrap();
        assert!(
            RunLock::try_acquire(&db).unwrap().is_some(),
            "free: granted"
        );
    }

    #[test]
    fn a_directory_that_does_not_exist_is_an_error_naming_the_lock_file() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("missing/index.db");
        let e = RunLock::acquire(&db).unwrap_err().to_string();
        assert!(e.contains("missing/index.db.lock"), "{e}");
    }
}
