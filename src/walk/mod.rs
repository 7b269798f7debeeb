//! Which files exist: the walk of a workspace, their stat, and blake3 digests.
//!
//! Honours `.gitignore`, `.ignore` and git's exclude files (also outside a git
//! repository), skips hidden files and directories, `node_modules`, the
//! [`DEFAULT_EXCLUDES`] (vendored, minified and bundled code, lock files; at any depth,
//! unless turned off) and user `--exclude` globs, and never follows a symbolic link (so
//! nothing outside the root is reached).
//! Paths are stored as text by [`path_text`] (lossless: a name that is not UTF-8 is
//! escaped, never merged with another), and workspace files are read by
//! [`read_regular_beneath`]: opened beneath a handle on the root, never through a
//! symbolic link (see [`beneath`]).
//! Does not open the database and does not parse.

pub mod beneath;
pub mod git;
pub mod ignore_audit;
pub mod path_text;
pub mod tracked;

pub use beneath::{
    open_beneath, read_regular_beneath, read_regular_under, read_stored, read_stored_text,
};

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

use globset::{Glob, GlobSet, GlobSetBuilder};

/// Default cap on the size of a file that is read: 2 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 2 * 1024 * 1024;

/// Directory names skipped everywhere, besides hidden ones and ignore files (always:
/// installed packages are never the workspace's own code).
pub const DEFAULT_EXCLUDED_DIRS: &[&str] = &["node_modules"];

/// File and directory names skipped at any depth unless [`WalkOptions::default_excludes`]
/// is off (CLI `--no-default-excludes`): vendored and installed third-party code,
/// minified and bundled JavaScript and CSS, source maps, and package managers' lock
/// files. Each is a glob over one path component (a name), so `vendor` skips
/// `vendor/`, `web/static/vendor/` and so on. A JavaScript file minified under another
/// name is caught by its content instead (see [`looks_minified`]).
pub const DEFAULT_EXCLUDES: &[&str] = &[
    // Vendored or installed third-party code.
    "vendor",
    "bower_components",
    "jspm_packages",
    // Minified and bundled code, source maps.
    "*.min.js",
    "*.min.mjs",
    "*.min.cjs",
    "*.min.css",
    "*-min.js",
    "*.bundle.js",
    "*.js.map",
    "*.css.map",
    // Lock files.
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "Cargo.lock",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "composer.lock",
    "Gemfile.lock",
    "go.sum",
];

/// Average line length, in bytes, above which a JavaScript file counts as minified
/// (GitHub linguist's rule for `.js` and `.css` files).
pub const MINIFIED_AVERAGE_LINE: usize = 110;

/// True when `bytes` (a JavaScript file's content) looks minified: its lines average
/// more than [`MINIFIED_AVERAGE_LINE`] bytes (GitHub linguist's `minified_files?`).
/// Empty content is not minified.
pub fn looks_minified(bytes: &[u8]) -> bool {
    if bytes.is_empty() {
        return false;
    }
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    let lines = newlines + usize::from(bytes.last() != Some(&b'\n'));
    (bytes.len() - newlines) / lines.max(1) > MINIFIED_AVERAGE_LINE
}

/// How to walk.
#[derive(Debug, Clone)]
pub struct WalkOptions {
    /// Globs over root-relative paths (`vendor/**`, `**/*.min.js`); a matching file or
    /// directory is skipped.
    pub excludes: Vec<String>,
    /// Files larger than this many bytes are recorded but not read.
    pub max_file_size: u64,
    /// Skip the [`DEFAULT_EXCLUDES`] and leave minified JavaScript unparsed (default
    /// true).
    pub default_excludes: bool,
    /// Apply ignore rules (default true; CLI `--no-ignore` turns it off): in a git work
    /// tree the file set is git's ([`tracked`]), elsewhere `.gitignore`, `.ignore` and
    /// `.git/info/exclude` apply. Off, every file is listed but for hidden ones,
    /// `node_modules`, the default excludes and `--exclude` globs.
    pub ignore_files: bool,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            excludes: Vec::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            default_excludes: true,
            ignore_files: true,
        }
    }
}

/// One regular file found by the walk.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    /// Relative to the root, `/` separators, in the text form of [`path_text`] (a name
    /// that is not UTF-8 or holds a backslash is escaped).
    pub path: String,
    /// The root joined with the file's path as the operating system names it.
    pub abs_path: PathBuf,
    /// Bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch (0 when unknown).
    pub mtime_ns: i64,
}

/// A path the walk could not list or stat because of an error other than "not found"
/// (permissions, I/O). What lies at or under it is unknown, not gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkProblem {
    /// Root-relative, `/` separators (`""` for the root itself); `None` when the error
    /// names no path, so nothing can be said about any file.
    pub path: Option<String>,
    /// The error, as the operating system said it.
    pub message: String,
}

impl WalkProblem {
    /// True when `path` (root-relative) is at or under this problem's path, or the
    /// problem names no path: the walk cannot tell whether that file still exists.
    pub fn covers(&self, path: &str) -> bool {
        match self.path.as_deref() {
            None | Some("") => true,
            Some(p) => {
                path == p
                    || (path.len() > p.len()
                        && path.starts_with(p)
                        && path.as_bytes()[p.len()] == b'/')
            }
        }
    }
}

/// Where a walk's file set came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FileSource {
    /// The directories were read and the ignore files applied (outside git, or with
    /// `--no-ignore`).
    #[default]
    Directories,
    /// git listed them: tracked files plus untracked ones no ignore rule hides
    /// ([`tracked`]).
    Git,
    /// No listing: only the indexed files a file watch reported changed were stat-ed
    /// ([`stat_known`]); every other indexed file is taken as unchanged.
    Events,
    /// No listing: the files came from shard databases, each of which walked the tree
    /// (`constellation merge`).
    Shards,
    /// No listing and no stat: another process's file watch had the index current (a
    /// `serve` of the same root, asked through a cookie file), so nothing was read.
    Server,
}

/// What a walk found: the regular files, sorted by path, and the paths it could not
/// list or stat (sorted, each also logged as a warning).
#[derive(Debug, Clone, Default)]
pub struct Walk {
    /// Regular files, sorted by path.
    pub files: Vec<WalkedFile>,
    /// Paths that could not be listed or stat-ed, sorted by path.
    pub problems: Vec<WalkProblem>,
    /// Who listed the files.
    pub source: FileSource,
}

impl Walk {
    /// Leaves out the files that the databases at `databases` keep beside themselves:
    /// in a database's directory, every file whose name starts with the database's file
    /// name ([`database_companion`]). A database in a directory of the root that is not
    /// hidden (`--db ci.db`, `--db data/index.db`) would otherwise index itself, its
    /// `-wal` and `-shm`, its run lock and its build's `.partial-PID` file, and every
    /// run would find them changed. A database outside `root`, or whose directory does
    /// not exist, leaves nothing out. Returns how many files were left out.
    pub fn drop_database_files(&mut self, root: &Path, databases: &[PathBuf]) -> usize {
        let Ok(root) = root.canonicalize() else {
            return 0;
        };
        // Each database as the text a walked path of a file beside it starts with:
        // `DIR/NAME` relative to the root (`NAME` at the root).
        let prefixes: Vec<(String, usize)> = databases
            .iter()
            .filter_map(|db| {
                let name = db.file_name()?;
                let dir = match db.parent().filter(|d| !d.as_os_str().is_empty()) {
                    Some(d) => d.canonicalize().ok()?,
                    None => std::env::current_dir().ok()?.canonicalize().ok()?,
                };
                let rel = dir.strip_prefix(&root).ok()?;
                let dir_text = path_text::encode(rel);
                let name = path_text::encode_name(name);
                Some(if dir_text.is_empty() {
                    (name, 0)
                } else {
                    (format!("{dir_text}/{name}"), dir_text.len() + 1)
                })
            })
            .collect();
        if prefixes.is_empty() {
            return 0;
        }
        let before = self.files.len();
        self.files.retain(|f| {
            !prefixes.iter().any(|(prefix, dir_len)| {
                f.path.starts_with(prefix.as_str()) && !f.path[*dir_len..].contains('/')
            })
        });
        let dropped = before - self.files.len();
        if dropped > 0 {
            tracing::debug!("walk: {dropped} files of the index's own databases left out");
        }
        dropped
    }
}

/// Whether a file named `name` in the directory of the database named `db_name` is
/// one the database keeps beside itself: the database, its `-wal`, `-shm` and
/// `-journal`, its run lock (`.lock`), a server's watch lock and cookies (`.watch`,
/// `.cookie-PID-N`), a build's or a worktree copy's temporary file (`.partial-PID`,
/// `.seed-PID`) and a damaged index set aside (`.corrupt-STAMP`): every name that
/// starts with the database's. The walk ([`Walk::drop_database_files`]) and the file
/// watcher leave them out by this rule.
pub fn database_companion(name: &std::ffi::OsStr, db_name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes()
        .starts_with(db_name.as_encoded_bytes())
}

/// Errors of the walk.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("the workspace root {0} is not a directory")]
    NotADirectory(PathBuf),
    #[error("exclude glob {glob:?} is not valid: {message}")]
    BadGlob { glob: String, message: String },
}

/// Compiles exclude globs.
fn exclude_set(globs: &[String]) -> Result<GlobSet, WalkError> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        let glob = Glob::new(g).map_err(|e| WalkError::BadGlob {
            glob: g.clone(),
            message: e.to_string(),
        })?;
        b.add(glob);
        // `vendor/**` should also skip the directory `vendor` itself, cheaply.
        if let Some(dir) = g.strip_suffix("/**") {
            if let Ok(glob) = Glob::new(dir) {
                b.add(glob);
            }
        }
    }
    b.build().map_err(|e| WalkError::BadGlob {
        glob: globs.join(", "),
        message: e.to_string(),
    })
}

/// The [`DEFAULT_EXCLUDES`], compiled to match one path component.
fn default_exclude_set() -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for g in DEFAULT_EXCLUDES {
        // The globs are constants; one that does not compile is a bug caught by the tests.
        if let Ok(glob) = Glob::new(g) {
            b.add(glob);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// What every walk leaves out besides ignore rules: hidden names, `node_modules`, the
/// default excludes (when on) and the user's `--exclude` globs.
#[derive(Clone)]
struct Skips {
    excludes: GlobSet,
    default_names: GlobSet,
}

impl Skips {
    /// Errors: an exclude glob does not compile.
    fn new(opts: &WalkOptions) -> Result<Skips, WalkError> {
        Ok(Skips {
            excludes: exclude_set(&opts.excludes)?,
            default_names: if opts.default_excludes {
                default_exclude_set()
            } else {
                GlobSet::empty()
            },
        })
    }

    /// True when the entry `name` (a file, or a directory when `is_dir`), at
    /// root-relative path text `rel` (may be empty when there are no `--exclude` globs),
    /// is left out with all that is under it. Hidden names are the caller's: the
    /// directory walker skips them itself.
    fn skips(&self, name: &str, rel: &str, is_dir: bool) -> bool {
        (is_dir && DEFAULT_EXCLUDED_DIRS.contains(&name))
            || self.default_names.is_match(name)
            || (!self.excludes.is_empty() && !rel.is_empty() && self.excludes.is_match(rel))
    }

    /// True when the root-relative file `rel` (path text) or a directory above it is
    /// hidden (a name that starts with `.`) or left out by [`Skips::skips`].
    fn skips_path(&self, rel: &str) -> bool {
        let mut end = 0;
        let names: Vec<&str> = rel.split('/').collect();
        for (i, name) in names.iter().enumerate() {
            end += name.len();
            let is_dir = i + 1 < names.len();
            if name.starts_with('.') || self.skips(name, &rel[..end], is_dir) {
                return true;
            }
            end += 1;
        }
        false
    }
}

/// Root-relative path with `/` separators, each name escaped by [`path_text`].
fn relative(root: &Path, path: &Path) -> Option<String> {
    Some(path_text::encode(path.strip_prefix(root).ok()?))
}

/// What [`stat_known`] found of some paths.
#[derive(Debug, Default)]
pub struct Stated {
    /// The regular files among them, sorted by path.
    pub files: Vec<WalkedFile>,
    /// The paths (in [`path_text`] form) that no longer exist.
    pub missing: Vec<String>,
}

/// Stats `paths` (absolute, beneath `root`; symbolic links not followed) as a walk
/// would list them: each is a regular file (its size and modification time) or gone.
/// `None` when one of them is anything else, lies outside `root`, or cannot be
/// stat-ed: the caller then walks the tree instead. Duplicates are stat-ed once.
pub fn stat_known(root: &Path, paths: &[PathBuf]) -> Option<Stated> {
    let mut out = Stated::default();
    let mut seen = std::collections::HashSet::new();
    for abs in paths {
        let rel = abs.strip_prefix(root).ok()?;
        if rel.as_os_str().is_empty() {
            return None;
        }
        let text = path_text::encode(rel);
        if !seen.insert(text.clone()) {
            continue;
        }
        match std::fs::symlink_metadata(abs) {
            Ok(meta) if meta.is_file() => out.files.push(WalkedFile {
                path: text,
                abs_path: abs.clone(),
                size: meta.len(),
                mtime_ns: mtime_ns(&meta),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => out.missing.push(text),
            _ => return None,
        }
    }
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    out.missing.sort();
    Some(out)
}

/// Modification time of `meta` in nanoseconds since the epoch.
pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// The path an error of the `ignore` walker is about, if it names one.
fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Partial(errs) => errs.iter().find_map(error_path),
        _ => None,
    }
}

/// True when `err` says the path does not exist (it went away during the walk).
fn is_not_found(err: &ignore::Error) -> bool {
    err.io_error()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
}

/// Lists `root`'s files: its regular files sorted by path, and the paths it could not
/// list or stat. In a git work tree (and unless `opts.ignore_files` is off) git says
/// which files there are ([`tracked`]: tracked files, even where an ignore rule matches
/// them, plus untracked files no rule hides); otherwise the directories are read in
/// parallel with the ignore files applied. Either way hidden names, `node_modules`, the
/// default excludes and `--exclude` globs are left out and symbolic links are not
/// followed.
///
/// Errors: the root is not a directory; an exclude glob does not compile. An entry
/// that vanished during the walk (not found) is left out with a debug log: it is gone.
/// Any other error on an entry (permissions, I/O) is a [`WalkProblem`], logged as a
/// warning: the caller must not take the files under it for deleted.
pub fn walk(root: &Path, opts: &WalkOptions) -> Result<Walk, WalkError> {
    if !root.is_dir() {
        return Err(WalkError::NotADirectory(root.to_path_buf()));
    }
    let skips = Skips::new(opts)?;
    if opts.ignore_files {
        if let Some(walk) = tracked::walk(root, &skips, opts) {
            return Ok(walk);
        }
    }
    Ok(walk_directories(root, opts, skips))
}

/// Reads the directories under `root` (in parallel), applying the ignore files unless
/// `opts.ignore_files` is off; see [`walk`].
fn walk_directories(root: &Path, opts: &WalkOptions, skips: Skips) -> Walk {
    let root_owned = root.to_path_buf();
    let filter_root = root_owned.clone();
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(true)
        .git_ignore(opts.ignore_files)
        .git_exclude(opts.ignore_files)
        .git_global(false)
        .ignore(opts.ignore_files)
        .parents(false)
        .require_git(false)
        .follow_links(false)
        .threads(2)
        .filter_entry(move |e| {
            if e.depth() == 0 {
                return true;
            }
            let name = e.file_name().to_string_lossy();
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            let rel = if skips.excludes.is_empty() {
                String::new()
            } else {
                relative(&filter_root, e.path()).unwrap_or_default()
            };
            !skips.skips(&name, &rel, is_dir)
        });
    let found = Mutex::new(Vec::new());
    let problems = Mutex::new(Vec::new());
    builder.build_parallel().run(|| {
        let found = &found;
        let problems = &problems;
        let root = &root_owned;
        Box::new(move |entry| {
            let entry = match entry {
                Ok(e) => e,
                Err(err) if is_not_found(&err) => {
                    tracing::debug!("walk: gone during the walk: {err}");
                    return ignore::WalkState::Continue;
                }
                Err(err) => {
                    tracing::warn!("walk: {err}");
                    let problem = WalkProblem {
                        path: error_path(&err).and_then(|p| relative(root, p)),
                        message: err.to_string(),
                    };
                    if let Ok(mut v) = problems.lock() {
                        v.push(problem);
                    }
                    return ignore::WalkState::Continue;
                }
            };
            // Symbolic links are never followed nor indexed: file_type() is the link's own.
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return ignore::WalkState::Continue;
            }
            let Some(path) = relative(root, entry.path()) else {
                return ignore::WalkState::Continue;
            };
            match entry.metadata() {
                Ok(meta) => {
                    let file = WalkedFile {
                        path,
                        abs_path: entry.into_path(),
                        size: meta.len(),
                        mtime_ns: mtime_ns(&meta),
                    };
                    if let Ok(mut v) = found.lock() {
                        v.push(file);
                    }
                }
                Err(err) if is_not_found(&err) => {
                    tracing::debug!("walk: gone before its stat: {}", entry.path().display())
                }
                Err(err) => {
                    tracing::warn!("walk: cannot stat {}: {err}", entry.path().display());
                    if let Ok(mut v) = problems.lock() {
                        v.push(WalkProblem {
                            path: Some(path),
                            message: err.to_string(),
                        });
                    }
                }
            }
            ignore::WalkState::Continue
        })
    });
    let mut files = found.into_inner().unwrap_or_default();
    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let mut problems = problems.into_inner().unwrap_or_default();
    problems.sort_unstable_by(|a, b| a.path.cmp(&b.path).then(a.message.cmp(&b.message)));
    Walk {
        files,
        problems,
        source: FileSource::Directories,
    }
}

/// The most a tool reads of one file ([`read_regular`]): 64 MiB.
pub const MAX_TOOL_READ: u64 = 64 * 1024 * 1024;

/// Reads the regular file at `path`, at most `max` bytes, without ever blocking on or
/// draining a special file: it is opened non-blocking and without following a symbolic
/// link in its last component, and whatever is not a regular file once open (a FIFO, a
/// socket, a device, a link) is refused with `InvalidInput` at once. The walk lists
/// only regular files, but a file can be swapped between the walk and the read.
///
/// Errors: the open's or read's (`NotFound` when it vanished); `InvalidInput` for a
/// special file or one larger than `max` bytes.
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let file = opts.open(path).map_err(|e| {
        // O_NOFOLLOW on a link: ELOOP.
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a symbolic link, not read",
            );
        }
        e
    })?;
    read_open(file, max)
}

/// Reads an opened file if it is a regular file of at most `max` bytes (the checks of
/// [`read_regular`] and [`read_regular_beneath`]).
///
/// Errors: the stat's or read's; `InvalidInput` for a special file or one larger than
/// `max` bytes.
pub(crate) fn read_open(file: std::fs::File, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a directory, FIFO, socket or device), not read",
        ));
    }
    if meta.len() > max {
        return Err(too_large(meta.len(), max));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64, max));
    }
    Ok(bytes)
}

fn too_large(len: u64, max: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("{len} bytes or more, over the cap of {max} bytes, not read"),
    )
}

/// The blake3 digest of `bytes` as 64 lower-case hex digits.
pub fn digest(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// True when `bytes` looks binary: a NUL byte in the first 8 KiB (git's rule).
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8192)].contains(&0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_of_a_database_inside_the_root_are_left_out_of_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        for rel in [
            "src/a.py",
            "data/x.db",
            "data/x.db-wal",
            "data/x.db.lock",
            "data/x.db.cookie-7-0",
            "data/x.memory.db",
            "data/xx.db",
            "data/sub/x.db",
            "x.db",
        ] {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"x").unwrap();
        }
        let opts = WalkOptions {
            ignore_files: false,
            ..WalkOptions::default()
        };
        let paths = |w: &Walk| w.files.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
        let mut w = walk(&root, &opts).unwrap();
        // Spelled through `..`: the directory is compared, not the text.
        let db = root.join("src/../data/x.db");
        let own = [db.clone(), crate::memory::db_path(&db)];
        assert_eq!(w.drop_database_files(&root, &own), 5);
        assert_eq!(
            paths(&w),
            ["data/sub/x.db", "data/xx.db", "src/a.py", "x.db"],
            "only the files beside the database, whose names start with its name"
        );
        // A database outside the root, or in a directory that does not exist, leaves
        // everything in.
        let mut w = walk(&root, &opts).unwrap();
        let outside = [dir.path().join("x.db"), root.join("nowhere/x.db")];
        assert_eq!(w.drop_database_files(&root, &outside), 0);
        assert_eq!(w.files.len(), 9);
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_read_and_never_block() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.py"), "x = 1\n").unwrap();
        assert_eq!(read_regular(&root.join("a.py"), 100).unwrap(), b"x = 1\n");
        let kind = |p: &Path, max| read_regular(p, max).unwrap_err().kind();
        assert_eq!(
            kind(&root.join("a.py"), 3),
            std::io::ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(&root.join("gone.py"), 100),
            std::io::ErrorKind::NotFound
        );
        // A FIFO with no writer: an open for reading would block; refused at once.
        let fifo = root.join("pipe.py");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let e = read_regular(&fifo, 100).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("not a regular file"), "{e}");
        // A device and a link to a file: refused, not drained or followed.
        assert_eq!(
            kind(Path::new("/dev/zero"), 100),
            std::io::ErrorKind::InvalidInput
        );
        std::os::unix::fs::symlink(root.join("a.py"), root.join("link.py")).unwrap();
        assert_eq!(
            kind(&root.join("link.py"), 100),
            std::io::ErrorKind::InvalidInput
        );
    }

    #[test]
    fn walk_skips_hidden_ignored_excluded_and_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/gen")).unwrap();
        std::fs::create_dir_all(root.join(".hidden")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn a() {}").unwrap();
        std::fs::write(root.join("src/gen/b.rs"), "fn b() {}").unwrap();
        std::fs::write(root.join("src/ignored.log"), "x").unwrap();
        std::fs::write(root.join(".hidden/c.rs"), "fn c() {}").unwrap();
        std::fs::write(root.join("node_modules/x/i.js"), "1").unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc", root.join("src/etc")).unwrap();
        let opts = WalkOptions {
            excludes: vec!["src/gen/**".into()],
            ..WalkOptions::default()
        };
        let files = walk(root, &opts).unwrap().files;
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["src/a.rs"]);
        assert_eq!(files[0].size, 9);
        assert!(files[0].mtime_ns > 0);
    }

    #[test]
    fn default_excludes_match_at_any_depth_and_can_be_turned_off() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for p in [
            "app/main.js",
            "app/static/vendor/jquery/jquery.js",
            "app/static/app.min.js",
            "app/static/app.bundle.js",
            "app/static/app.js.map",
            "vendor/lib.go",
            "web/package-lock.json",
            "Cargo.lock",
            "minimal.js",
        ] {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), "x").unwrap();
        }
        let paths = |opts: &WalkOptions| -> Vec<String> {
            walk(root, opts)
                .unwrap()
                .files
                .into_iter()
                .map(|f| f.path)
                .collect()
        };
        assert_eq!(
            paths(&WalkOptions::default()),
            vec!["app/main.js", "minimal.js"]
        );
        let all = WalkOptions {
            default_excludes: false,
            ..WalkOptions::default()
        };
        assert_eq!(paths(&all).len(), 9);
        // A root that is itself named like a default exclude is still walked.
        let inner = WalkOptions::default();
        let got = walk(&root.join("vendor"), &inner).unwrap().files;
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].path, "lib.go");
    }

    #[test]
    fn minified_means_long_lines_on_average() {
        assert!(!looks_minified(b""));
        assert!(!looks_minified(b"var a = 1;\nfunction f() { return a; }\n"));
        let long = format!("!function(e){{{}}}();\n", "var a=1;".repeat(40));
        assert!(looks_minified(long.as_bytes()));
        // Two long lines among many short ones: not minified.
        let mixed = format!("{long}{long}{}", "x = 1;\n".repeat(50));
        assert!(!looks_minified(mixed.as_bytes()));
    }

    #[test]
    fn a_problem_covers_its_path_and_what_is_under_it() {
        let p = |path: Option<&str>| WalkProblem {
            path: path.map(str::to_string),
            message: String::new(),
        };
        assert!(p(Some("src")).covers("src"));
        assert!(p(Some("src")).covers("src/a/b.rs"));
        assert!(!p(Some("src")).covers("srcx/a.rs"));
        assert!(!p(Some("src/a.rs")).covers("src/a.rs.bak"));
        assert!(p(Some("")).covers("any.rs"));
        assert!(p(None).covers("any.rs"));
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_without_permission_is_a_problem_not_an_absence() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("locked")).unwrap();
        std::fs::write(root.join("locked/a.rs"), "fn a() {}").unwrap();
        std::fs::write(root.join("b.rs"), "fn b() {}").unwrap();
        let locked = root.join("locked");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        let listable = std::fs::read_dir(&locked).is_ok();
        let got = walk(root, &WalkOptions::default());
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
        if listable {
            // Running as root: permissions do not stop the walk (the index tests
            // inject a problem instead).
            return;
        }
        let got = got.unwrap();
        let paths: Vec<&str> = got.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["b.rs"]);
        assert_eq!(got.problems.len(), 1, "{:?}", got.problems);
        assert_eq!(got.problems[0].path.as_deref(), Some("locked"));
    }

    #[test]
    fn bad_glob_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let opts = WalkOptions {
            excludes: vec!["[".into()],
            ..WalkOptions::default()
        };
        assert!(matches!(
            walk(dir.path(), &opts),
            Err(WalkError::BadGlob { .. })
        ));
    }

    #[test]
    fn digest_is_blake3_hex() {
        assert_eq!(
            digest(b""),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
        );
        assert!(looks_binary(b"ab\0c"));
        assert!(!looks_binary(b"abc"));
    }
}
