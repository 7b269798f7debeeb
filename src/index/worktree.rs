//! A new index of a git worktree starts from the index of another worktree of the same
//! repository.
//!
//! Worktrees of one repository (`git worktree add`) hold mostly the same files. When a
//! root has no database yet and another worktree of its repository has one at its
//! default place (`W/.constellation/index.db`, or `W/SUB/.constellation/index.db` for a
//! root `SUB` below the top of the work tree), that database is copied and the run that
//! follows is an ordinary incremental one: every file is stat'ed and hashed, and only
//! those whose blake3 digest is not in the copy are parsed; the references whose
//! answers can change are re-resolved, as after any edit. The copy stores paths
//! relative to its root, and nothing else of the other worktree, so the result equals a
//! from-scratch build of this root (`tests/worktree.rs` checks it row for row).
//!
//! The copy is a copy-on-write clone of the database file where the file system can
//! make one ([`SeedCopy::Clone`]: XFS and Btrfs on Linux, APFS on macOS, ReFS on
//! Windows): both files then share their disk blocks, and each worktree's runs pay only
//! for the pages they write. Elsewhere (ext4, tmpfs, two file systems) it is SQLite's
//! online backup ([`SeedCopy::Backup`]), which costs the disk of a whole index: the
//! worktrees then share parse work, not storage.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, OpenFlags};

use crate::walk::git;

/// The index of another worktree of `root`'s repository to start from: the most
/// recently modified existing database at the default place of `root` in another
/// worktree. `None` outside a git work tree, without git, or when no other worktree
/// has one.
pub fn sibling_index(root: &Path) -> Option<PathBuf> {
    let top = PathBuf::from(
        git::run(root, &["rev-parse", "--show-toplevel"])
            .ok()?
            .trim(),
    );
    let top = top.canonicalize().ok()?;
    let root = root.canonicalize().ok()?;
    let sub = root.strip_prefix(&top).ok()?.to_path_buf();
    let listing = git::run(root.as_path(), &["worktree", "list", "--porcelain"]).ok()?;
    let mut best: Option<(SystemTime, PathBuf)> = None;
    for line in listing.lines() {
        let Some(path) = line.strip_prefix("worktree ") else {
            continue;
        };
        let Ok(other) = Path::new(path).canonicalize() else {
            continue;
        };
        if other == top {
            continue;
        }
        let db = super::default_db_path(&other.join(&sub));
        let Ok(modified) = db.metadata().and_then(|m| {
            if m.is_file() {
                m.modified()
            } else {
                Err(std::io::Error::other("not a file"))
            }
        }) else {
            continue;
        };
        if best.as_ref().is_none_or(|(t, _)| modified > *t) {
            best = Some((modified, db));
        }
    }
    best.map(|(_, db)| db)
}

/// How [`seed`] copied another worktree's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SeedCopy {
    /// A copy-on-write clone of the database file (the `FICLONE` ioctl on Linux,
    /// `clonefile` on macOS, block cloning on Windows, through the `reflink-copy`
    /// crate), taken while no index run writes it and its write-ahead log is empty:
    /// the two files share their disk blocks until either writes a page.
    Clone,
    /// SQLite's online backup, every page written anew: the file system cannot clone
    /// files, or the other index was being written.
    Backup,
}

/// Where a new index started: [`super::IndexReport::seeded_from`], `seededFrom` in
/// `index --json` (`{"from": PATH, "copy": "clone" | "backup"}`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Seed {
    /// The other worktree's database.
    pub from: PathBuf,
    /// How it was copied.
    pub copy: SeedCopy,
}

/// Copies the database `from` to the new file `to`, through a temporary file beside
/// `to` that is linked into place only when `to` still does not exist: a
/// copy-on-write clone when [`clone_snapshot`] can take one, else SQLite's online
/// backup (a consistent snapshot, taken while its writers go on). Returns how it was
/// copied, `None` when another process created `to` meanwhile (its file stays).
///
/// Errors (no file is left behind; the caller logs them): `from` unreadable, locked by a
/// writer for over 10 s, or of another schema version than this build's; a full disk.
pub fn seed(from: &Path, to: &Path) -> Result<Option<SeedCopy>, rusqlite::Error> {
    let temp = PathBuf::from(format!("{}.seed-{}", to.display(), std::process::id()));
    super::remove_database_files(&temp);
    let copy = match clone_snapshot(from, &temp, |a, b| reflink_copy::reflink(a, b)) {
        Ok(page_size) => {
            for file in [from, temp.as_path()] {
                if let Err(e) = narrow_copy_on_write(file, page_size) {
                    tracing::debug!("{}: copy-on-write extent size kept: {e}", file.display());
                }
            }
            SeedCopy::Clone
        }
        Err(why) => {
            tracing::debug!(
                "{} not cloned ({why}): copying it with SQLite's online backup",
                from.display()
            );
            super::remove_database_files(&temp);
            if let Err(e) = backup(from, &temp) {
                super::remove_database_files(&temp);
                return Err(e);
            }
            SeedCopy::Backup
        }
    };
    // A hard link does not replace an existing file: a database another process
    // created meanwhile wins.
    let linked = std::fs::hard_link(&temp, to).is_ok();
    super::remove_database_files(&temp);
    Ok(linked.then_some(copy))
}

/// The schema version of the database open on `conn`, checked against this build's:
/// an older index would be emptied by its migrations anyway, a newer one cannot be
/// opened.
fn check_schema(conn: &Connection) -> Result<(), rusqlite::Error> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version != crate::store::SCHEMA_VERSION {
        return Err(rusqlite::Error::InvalidParameterName(format!(
            "its schema version is {version}, this build's {}",
            crate::store::SCHEMA_VERSION
        )));
    }
    Ok(())
}

/// Clones the database file `from` to the new file `to` with `clone` (a copy-on-write
/// clone in [`seed`]) when the clone is a consistent snapshot, that is, when the file
/// holds the whole database and nothing writes it meanwhile:
/// 1. the run lock of `from` is taken without waiting, so no index run writes it, and
///    it must be in WAL mode (a rollback journal beside it would not be cloned);
/// 2. its write-ahead log is checkpointed into the file and truncated
///    (`PRAGMA wal_checkpoint(TRUNCATE)`, waiting up to 2 s for readers of older
///    snapshots);
/// 3. after the clone, `PRAGMA data_version` (which moves with every commit of another
///    connection), the file's length and modification time, and the empty log must be
///    as they were before it.
///
/// Returns the database's page size in bytes.
///
/// Errors, each meaning "copy it some other way" (`to` may be left behind; the caller
/// removes it): another process is indexing `from`, its lock file cannot be made, it
/// cannot be opened for writing, its schema is another version, it is not in WAL mode,
/// its log could not be emptied, `clone` failed (the file system cannot clone files),
/// or it was written during the clone. The message says which.
pub fn clone_snapshot(
    from: &Path,
    to: &Path,
    clone: impl FnOnce(&Path, &Path) -> std::io::Result<()>,
) -> Result<u32, String> {
    let _run = match super::run_lock::RunLock::try_acquire(from) {
        Ok(Some(lock)) => lock,
        Ok(None) => return Err("another process is indexing it".into()),
        Err(e) => return Err(e.to_string()),
    };
    let sql = |e: rusqlite::Error| e.to_string();
    let src = Connection::open_with_flags(
        from,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sql)?;
    src.busy_timeout(Duration::from_secs(2)).map_err(sql)?;
    check_schema(&src).map_err(sql)?;
    // In rollback-journal mode a writer's hot journal beside the file would not be
    // cloned with it.
    let journal: String = src
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .map_err(sql)?;
    if !journal.eq_ignore_ascii_case("wal") {
        return Err(format!("its journal mode is {journal}, not WAL"));
    }
    let page_size: u32 = src
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .map_err(sql)?;
    let busy: i64 = src
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))
        .map_err(sql)?;
    if busy != 0 {
        return Err("its write-ahead log could not be emptied: a reader of an older snapshot held it for 2 s".into());
    }
    let wal = PathBuf::from(format!("{}-wal", from.display()));
    let state = || -> Result<(i64, u64, Option<SystemTime>, u64), String> {
        let version: i64 = src
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(sql)?;
        let file = from.metadata().map_err(|e| e.to_string())?;
        let log = wal.metadata().map(|m| m.len()).unwrap_or(0);
        Ok((version, file.len(), file.modified().ok(), log))
    };
    let before = state()?;
    if before.3 != 0 {
        return Err("its write-ahead log is not empty after a checkpoint".into());
    }
    clone(from, to).map_err(|e| format!("the file system cannot clone it: {e}"))?;
    if state()? != before {
        return Err("it was written while it was cloned".into());
    }
    Ok(page_size)
}

/// Asks the file system to copy `file`'s shared blocks on write `bytes` at a time (one
/// database page), where it can be told: XFS copies 32 blocks (128 KiB with 4 KiB
/// blocks) for every block first written after a clone, unless a file's copy-on-write
/// extent size hint says otherwise, so each page SQLite writes into a cloned index
/// would unshare 128 KiB. Measured on Django's index (6,892 files, 80 MiB): a second
/// worktree at the same commit writes 294 pages, which made its clone grow by 14 MiB
/// with XFS's default and by 1.2 MiB with a 4 KiB hint. Btrfs copies a block at a time
/// and has no such hint.
///
/// On Linux, the `FS_IOC_FSSETXATTR` ioctl with `FS_XFLAG_COWEXTSIZE` (the call
/// behind `xfs_io -c "cowextsize BYTES"`); a no-op elsewhere.
///
/// Errors: the file cannot be opened, or the file system refuses the hint (any other
/// than XFS: `EINVAL`, `ENOTTY` or `EOPNOTSUPP`); nothing is changed then.
#[cfg(target_os = "linux")]
pub fn narrow_copy_on_write(file: &Path, bytes: u32) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    /// `struct fsxattr` of `<linux/fs.h>`.
    #[repr(C)]
    #[derive(Default)]
    struct FsXattr {
        xflags: u32,
        extsize: u32,
        nextents: u32,
        projid: u32,
        cowextsize: u32,
        pad: [u8; 8],
    }
    const _: () = assert!(std::mem::size_of::<FsXattr>() == 28);
    // _IOR('X', 31, struct fsxattr) and _IOW('X', 32, struct fsxattr).
    const FS_IOC_FSGETXATTR: u32 = 0x801c_581f;
    const FS_IOC_FSSETXATTR: u32 = 0x401c_5820;
    const FS_XFLAG_COWEXTSIZE: u32 = 0x0001_0000;
    let f = std::fs::File::open(file)?;
    let mut attr = FsXattr::default();
    // SAFETY: the ioctl reads or writes one `struct fsxattr`, which `attr` is (its
    // size is checked above), on a descriptor that stays open for the call.
    if unsafe { libc::ioctl(f.as_raw_fd(), FS_IOC_FSGETXATTR as _, &mut attr) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    attr.xflags |= FS_XFLAG_COWEXTSIZE;
    attr.cowextsize = bytes;
    // SAFETY: as above; the kernel only reads `attr`.
    if unsafe { libc::ioctl(f.as_raw_fd(), FS_IOC_FSSETXATTR as _, &attr) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Elsewhere than Linux: nothing to do (see the Linux version).
#[cfg(not(target_os = "linux"))]
pub fn narrow_copy_on_write(_file: &Path, _bytes: u32) -> std::io::Result<()> {
    Ok(())
}

/// Copies the database `from` to the new file `to` with SQLite's online backup, all
/// pages in one step, waiting up to 10 s for a writer's lock.
///
/// Errors: as [`seed`].
fn backup(from: &Path, to: &Path) -> Result<(), rusqlite::Error> {
    let src = Connection::open_with_flags(
        from,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    src.busy_timeout(Duration::from_secs(10))?;
    check_schema(&src)?;
    let mut dst = Connection::open(to)?;
    {
        use rusqlite::backup::{Backup, StepResult};
        let backup = Backup::new(&src, &mut dst)?;
        // All pages in one step (-1): a writer's commit during a stepwise copy
        // would restart it. A lock held by a writer is waited for, up to 10 s.
        let started = std::time::Instant::now();
        loop {
            match backup.step(-1)? {
                StepResult::Done => break,
                StepResult::More => {}
                _ if started.elapsed() < Duration::from_secs(10) => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => {
                    return Err(rusqlite::Error::SqliteFailure(
                        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                        Some("the other index stayed locked for 10 s".into()),
                    ))
                }
            }
        }
    }
    dst.close().map_err(|(_, e)| e)
}

/// Seeds the new database `db` of `root` from [`sibling_index`], when there is one
/// and `db` is at its default place (an index the user put elsewhere, with `--db` or
/// `CONSTELLATION_DB`, is built as asked), logging what it did. Returns the database
/// copied and how.
pub fn seed_from_sibling(db: &Path, root: &Path) -> Option<Seed> {
    if db.exists() || !at_default_place(db, root) {
        return None;
    }
    let from = sibling_index(root)?;
    match seed(&from, db) {
        Ok(Some(copy)) => {
            let how = match copy {
                SeedCopy::Clone => "cloned: both files share their disk blocks until either changes",
                SeedCopy::Backup => "copied whole: this file system cannot clone files, or the other index was being written",
            };
            tracing::info!(
                "{}: started from the index of another worktree ({}, {how}); only files whose content it lacks are parsed",
                db.display(),
                from.display()
            );
            Some(Seed { from, copy })
        }
        Ok(None) => None,
        Err(e) => {
            tracing::warn!(
                "cannot copy the index of another worktree ({}): {e}; building from scratch",
                from.display()
            );
            None
        }
    }
}

/// Whether `db` is `root`'s default database (`ROOT/.constellation/index.db`), however
/// either is spelled (relative, through symbolic links); its directory must exist.
fn at_default_place(db: &Path, root: &Path) -> bool {
    let default = super::default_db_path(root);
    let dir = |p: &Path| p.parent().and_then(|d| d.canonicalize().ok());
    db.file_name() == default.file_name() && dir(db).is_some() && dir(db) == dir(&default)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new index at `dir/NAME` (this build's schema, WAL mode), with `rows` rows
    /// `k0..` in `meta` committed through a connection that stays open, so that they are
    /// still in the write-ahead log (no checkpoint on close) when the caller copies it.
    fn index_with_rows_in_the_log(dir: &Path, name: &str, rows: usize) -> (PathBuf, Connection) {
        let db = dir.join(name);
        drop(crate::store::Store::open(&db).unwrap());
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch("PRAGMA wal_autocheckpoint = 0").unwrap();
        for i in 0..rows {
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?1, 'v')",
                [format!("k{i}")],
            )
            .unwrap();
        }
        (db, conn)
    }

    fn keys(db: &Path) -> i64 {
        Connection::open(db)
            .unwrap()
            .query_row("SELECT count(*) FROM meta WHERE key LIKE 'k%'", [], |r| {
                r.get(0)
            })
            .unwrap()
    }

    fn copy(a: &Path, b: &Path) -> std::io::Result<()> {
        std::fs::copy(a, b).map(|_| ())
    }

    #[test]
    fn a_clone_holds_what_the_log_held_and_needs_no_log_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let (db, _writer) = index_with_rows_in_the_log(dir.path(), "a.db", 50);
        let wal = dir.path().join("a.db-wal");
        assert!(wal.metadata().unwrap().len() > 0, "the rows are in the log");
        let to = dir.path().join("b.db");
        // A plain copy of the file stands for the copy-on-write clone: what is checked
        // is that the file holds the whole database when it is copied.
        assert_eq!(clone_snapshot(&db, &to, copy).unwrap(), 4096);
        assert!(!dir.path().join("b.db-wal").exists());
        assert_eq!(keys(&to), 50);
        assert_eq!(
            wal.metadata().unwrap().len(),
            0,
            "checkpointed and truncated"
        );
        assert_eq!(keys(&db), 50);
    }

    #[test]
    fn a_commit_during_the_clone_a_held_run_lock_or_a_failed_clone_refuse_it() {
        let dir = tempfile::tempdir().unwrap();
        let (db, writer) = index_with_rows_in_the_log(dir.path(), "a.db", 3);
        let to = dir.path().join("b.db");
        let e = clone_snapshot(&db, &to, |a, b| {
            writer
                .execute("INSERT INTO meta (key, value) VALUES ('late', 'v')", [])
                .unwrap();
            copy(a, b)
        })
        .unwrap_err();
        assert_eq!(e, "it was written while it was cloned");
        std::fs::remove_file(&to).unwrap();

        let held = crate::index::run_lock::RunLock::acquire(&db).unwrap();
        let e = clone_snapshot(&db, &to, copy).unwrap_err();
        assert_eq!(e, "another process is indexing it");
        assert!(!to.exists(), "nothing cloned");
        drop(held);

        let e = clone_snapshot(&db, &to, |_, _| {
            Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
        })
        .unwrap_err();
        assert!(e.starts_with("the file system cannot clone it: "), "{e}");

        // A database of another schema version is not cloned.
        writer.execute_batch("PRAGMA user_version = 1").unwrap();
        let e = clone_snapshot(&db, &to, copy).unwrap_err();
        assert!(e.contains("schema version is 1"), "{e}");
        writer
            .pragma_update(None, "user_version", crate::store::SCHEMA_VERSION)
            .unwrap();
        // Nor one in rollback-journal mode.
        writer
            .execute_batch("PRAGMA journal_mode = DELETE")
            .unwrap();
        drop(writer);
        let e = clone_snapshot(&db, &to, copy).unwrap_err();
        assert_eq!(e, "its journal mode is delete, not WAL");
    }

    #[test]
    fn seed_clones_where_the_file_system_can_and_backs_up_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let (db, _writer) = index_with_rows_in_the_log(dir.path(), "a.db", 20);
        // What this file system can do, asked of it directly.
        let probe = dir.path().join("probe");
        std::fs::write(&probe, b"x").unwrap();
        let clones = reflink_copy::reflink(&probe, dir.path().join("probe2")).is_ok();
        let to = dir.path().join("b.db");
        let expected = if clones {
            SeedCopy::Clone
        } else {
            SeedCopy::Backup
        };
        assert_eq!(seed(&db, &to).unwrap(), Some(expected));
        assert_eq!(keys(&to), 20);
        // An existing database stays as it is.
        assert_eq!(seed(&db, &to).unwrap(), None);
        // Nothing is left beside it.
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".seed-"))
            .collect();
        names.sort();
        assert_eq!(names, Vec::<String>::new());
    }
}
