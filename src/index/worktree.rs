//! A new index of a git worktree starts from the index of another worktree of the same
//! repository.
//!
//! Worktrees of one repository (`git worktree add`) hold mostly the same files. When a
//! root has no database yet and another worktree of its repository has one at its
//! default place (`W/.constellation/index.db`, or `W/SUB/.constellation/index.db` for a
//! root `SUB` below the top of the work tree), that database is copied (SQLite's
//! online backup: a consistent snapshot, even while its own server writes it) and the
//! run that follows is an ordinary incremental one: every file is stat'ed and hashed,
//! and only those whose blake3 digest is not in the copy are parsed; the references
//! whose answers can change are re-resolved, as after any edit. The copy stores paths
//! relative to its root, and nothing else of the other worktree, so the result equals a
//! from-scratch build of this root (`tests/worktree.rs` checks it row for row).
//!
//! The copy costs the disk of a whole index: worktrees share parse work, not storage.

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

/// Copies the database `from` to the new file `to` with SQLite's online backup (a
/// consistent snapshot, taken while its writers go on), through a temporary file beside
/// `to` that is linked into place only when `to` still does not exist. Returns whether
/// `to` was made (false: another process created it meanwhile, and its file stays).
///
/// Errors (no file is left behind; the caller logs them): `from` unreadable, locked by a
/// writer for over 10 s, or of another schema version than this build's; a full disk.
pub fn seed(from: &Path, to: &Path) -> Result<bool, rusqlite::Error> {
    let temp = PathBuf::from(format!("{}.seed-{}", to.display(), std::process::id()));
    super::remove_database_files(&temp);
    let copied = (|| {
        let src = Connection::open_with_flags(
            from,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        src.busy_timeout(Duration::from_secs(10))?;
        // Only an index of this build's schema: an older one would be emptied by its
        // migrations anyway, a newer one cannot be opened.
        let version: i64 = src.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version != crate::store::SCHEMA_VERSION {
            return Err(rusqlite::Error::InvalidParameterName(format!(
                "its schema version is {version}, this build's {}",
                crate::store::SCHEMA_VERSION
            )));
        }
        let mut dst = Connection::open(&temp)?;
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
    })();
    if let Err(e) = copied {
        super::remove_database_files(&temp);
        return Err(e);
    }
    // A hard link does not replace an existing file: a database another process
    // created meanwhile wins.
    let linked = std::fs::hard_link(&temp, to).is_ok();
    super::remove_database_files(&temp);
    Ok(linked)
}

/// Seeds the new database `db` of `root` from [`sibling_index`], when there is one
/// and `db` is at its default place (an index the user put elsewhere, with `--db` or
/// `CONSTELLATION_DB`, is built as asked), logging what it did. Returns the database
/// copied.
pub fn seed_from_sibling(db: &Path, root: &Path) -> Option<PathBuf> {
    if db.exists() || !at_default_place(db, root) {
        return None;
    }
    let from = sibling_index(root)?;
    match seed(&from, db) {
        Ok(true) => {
            tracing::info!(
                "{}: started from the index of another worktree ({}); only files whose content it lacks are parsed",
                db.display(),
                from.display()
            );
            Some(from)
        }
        Ok(false) => None,
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
