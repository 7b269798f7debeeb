//! Path security for every path argument a tool takes: a client's path is resolved
//! against the workspace root and must stay inside it.
//!
//! Two checks, both needed:
//! - **lexical**: the path (relative to the root, or absolute) is normalized without
//!   touching the disk (`.` dropped, `..` applied); if it leaves the root, it is refused.
//!   This catches `../../etc/passwd` even when the target does not exist.
//! - **canonical**: the existing part of the path is resolved by the operating system
//!   (`canonicalize`, which follows symbolic links); if that leaves the root, it is
//!   refused. This catches a link inside the workspace that points to `/` or elsewhere,
//!   and `link/..` tricks whose meaning differs between the lexical and the real path.
//!
//! A path argument is in the index's text form ([`crate::walk::path_text`]): a file
//! name that is not UTF-8 is written with `\xHH` escapes and a backslash as `\\`, so
//! every path a tool answers with can be given back to a tool.
//!
//! A file is then read by [`read_file`], which opens it beneath a handle on the root
//! and follows no symbolic link ([`crate::walk::open_beneath`]): a directory swapped
//! for a link to elsewhere after the checks is refused, not read through.
//!
//! Refusals are `outside_workspace` errors; nothing outside the root is read, listed or
//! written by the tools that go through here. Directories the tools write into
//! (`.artifacts/...`) are created one component at a time by [`create_dir_inside`], which
//! refuses to descend through a link that leads out.

use std::path::{Component, Path, PathBuf};

use super::ToolError;

/// A path argument that resolved to something inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspacePath {
    /// The canonical absolute path (symbolic links resolved).
    pub abs: PathBuf,
    /// Relative to the root with `/` separators, as the index stores paths (escaped by
    /// [`crate::walk::path_text`]); `.` for the root itself.
    pub rel: String,
    /// True for a directory.
    pub is_dir: bool,
}

/// Resolves `arg` (relative to `root`, or absolute) to an existing file or directory
/// inside `root`, which must be canonical (as [`super::workspace::Workspace::root`] is).
///
/// `arg` is in the index's text form: `\xHH` for a byte that is not UTF-8, `\\` for a
/// backslash ([`crate::walk::path_text`]).
///
/// Errors: `invalid_argument` for an empty path, one with a NUL byte, or one with a
/// backslash that is not such an escape; `outside_workspace` when the path, lexically or after following symbolic links,
/// leaves the root; `not_found` when it is inside but does not exist.
pub fn resolve(root: &Path, arg: &str) -> Result<WorkspacePath, ToolError> {
    if arg.trim().is_empty() {
        return Err(ToolError::InvalidArgument(
            "path is empty; give a path relative to the workspace root (\".\" for the root)".into(),
        ));
    }
    if arg.contains('\0') {
        return Err(ToolError::InvalidArgument(
            "path contains a NUL byte".into(),
        ));
    }
    // Windows file names hold neither backslashes nor bytes that are not UTF-8, and a
    // backslash there is a separator.
    let given = if cfg!(windows) {
        PathBuf::from(arg)
    } else {
        crate::walk::path_text::decode(arg)
            .map_err(|e| ToolError::InvalidArgument(format!("path: {e}")))?
    };
    let joined = if given.is_absolute() {
        given
    } else {
        root.join(given)
    };
    let outside = || {
        ToolError::OutsideWorkspace(format!(
            "{arg:?} resolves outside the workspace root {}; give a path inside it",
            root.display()
        ))
    };
    if !normalize(&joined).starts_with(root) {
        return Err(outside());
    }
    match joined.canonicalize() {
        Ok(canonical) => {
            if !canonical.starts_with(root) {
                return Err(outside());
            }
            let is_dir = canonical.is_dir();
            Ok(WorkspacePath {
                rel: relative(root, &canonical),
                abs: canonical,
                is_dir,
            })
        }
        Err(_) => {
            // Does not exist (or a dangling link): still refuse if the part that does
            // exist leads out, so a link to `/` never answers "not found" for `/etc/...`.
            let mut ancestor = joined.parent();
            while let Some(a) = ancestor {
                if let Ok(c) = a.canonicalize() {
                    if !c.starts_with(root) {
                        return Err(outside());
                    }
                    break;
                }
                ancestor = a.parent();
            }
            Err(ToolError::NotFound(format!(
                "{arg:?} does not exist in the workspace {}",
                root.display()
            )))
        }
    }
}

/// `path` with `.` dropped and `..` applied, without touching the disk (`..` at the
/// filesystem root stays at the root, as the kernel does).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                out.push(c.as_os_str())
            }
            Component::CurDir => {}
            Component::ParentDir => {
                if out.parent().is_some() {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
        }
    }
    out
}

/// `abs` relative to `root` with `/` separators, in the index's text form
/// ([`crate::walk::path_text`]); `.` when they are equal. `abs` must be inside `root`.
pub fn relative(root: &Path, abs: &Path) -> String {
    let text = abs
        .strip_prefix(root)
        .map(crate::walk::path_text::encode)
        .unwrap_or_default();
    if text.is_empty() {
        ".".into()
    } else {
        text
    }
}

/// Reads the file `p` (from [`resolve`] against the same `root`), at most `max` bytes,
/// beneath a handle on `root` and through no symbolic link
/// ([`crate::walk::read_regular_beneath`]).
///
/// Errors: `outside_workspace` when the path now goes through a symbolic link (it
/// changed since [`resolve`] checked it) or is not under the root; `not_found` when the
/// file vanished; `io_error` for a special file, one over `max` bytes, or another
/// failure.
pub fn read_file(root: &Path, p: &WorkspacePath, max: u64) -> Result<Vec<u8>, ToolError> {
    crate::walk::read_regular_under(root, &p.abs, max).map_err(|e| read_error(&p.rel, e))
}

/// The tool error for a failed read of the workspace file `rel` (index text form).
pub fn read_error(rel: &str, e: std::io::Error) -> ToolError {
    if crate::walk::beneath::refusal(&e).is_some() {
        ToolError::OutsideWorkspace(format!(
            "cannot read {rel}: {e}; it changed since it was checked, so nothing was read \
             (links are never followed when reading workspace files); give the file's real path"
        ))
    } else if e.kind() == std::io::ErrorKind::NotFound {
        ToolError::NotFound(format!("{rel} vanished before it could be read: {e}"))
    } else {
        ToolError::Io(format!("cannot read {rel}: {e}"))
    }
}

/// Creates the directory `rel` (root-relative, `/` separators, no `..`) under `root`
/// one component at a time and returns its canonical path. An existing component that
/// is a symbolic link is followed only if it stays inside the root; a file in the way
/// is an error. Nothing is ever created outside the root.
///
/// Errors: `outside_workspace` for a link leading out (or a `..` component),
/// `io_error` when a directory cannot be created.
pub fn create_dir_inside(root: &Path, rel: &str) -> Result<PathBuf, ToolError> {
    let mut cur = root.to_path_buf();
    for part in rel.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part == ".." {
            return Err(ToolError::OutsideWorkspace(format!(
                "{rel:?} contains `..`"
            )));
        }
        let next = cur.join(part);
        match std::fs::symlink_metadata(&next) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = next.canonicalize().map_err(|e| {
                    ToolError::Io(format!("{} is a broken link: {e}", next.display()))
                })?;
                if !target.starts_with(root) {
                    return Err(ToolError::OutsideWorkspace(format!(
                        "{} is a symbolic link to {}, outside the workspace; remove it or point it inside",
                        next.display(),
                        target.display()
                    )));
                }
                if !target.is_dir() {
                    return Err(ToolError::Io(format!(
                        "{} is not a directory",
                        next.display()
                    )));
                }
                cur = target;
            }
            Ok(m) if m.is_dir() => cur = next,
            Ok(_) => {
                return Err(ToolError::Io(format!(
                    "{} exists and is not a directory",
                    next.display()
                )))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match std::fs::create_dir(&next) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => {
                        return Err(ToolError::Io(format!(
                            "cannot create {}: {e}",
                            next.display()
                        )))
                    }
                }
                cur = next;
            }
            Err(e) => {
                return Err(ToolError::Io(format!(
                    "cannot stat {}: {e}",
                    next.display()
                )))
            }
        }
    }
    Ok(cur)
}

/// Writes `bytes` to `dir/name` atomically: a temporary file in `dir` is written,
/// flushed to disk and renamed over the target, so a reader sees the old file or the
/// new one, never a part. `dir` must already be checked (see [`create_dir_inside`]).
///
/// The file gets the mode of a file the user creates (0666 less the umask, 0644 with the
/// usual umask 022), not the temporary file's private 0600: the pages and documents
/// written here are for the user's browser, editor and colleagues.
///
/// Errors: `io_error`.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, ToolError> {
    use std::io::Write;
    let target = dir.join(name);
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tmp-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Passed to open(2), which applies the umask.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(|e| ToolError::Io(format!("cannot create a file in {}: {e}", dir.display())))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| ToolError::Io(format!("cannot write {}: {e}", target.display())))?;
    tmp.persist(&target)
        .map_err(|e| ToolError::Io(format!("cannot replace {}: {}", target.display(), e.error)))?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ws/src")).unwrap();
        let root = dir.path().join("ws").canonicalize().unwrap();
        std::fs::write(root.join("src/a.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
        (dir, root)
    }

    fn code(r: Result<WorkspacePath, ToolError>) -> &'static str {
        r.err().map(|e| e.code()).unwrap_or("ok")
    }

    #[test]
    fn inside_paths_resolve_to_index_paths() {
        let (_d, root) = setup();
        let p = resolve(&root, "src/a.py").unwrap();
        assert_eq!(p.rel, "src/a.py");
        assert!(!p.is_dir);
        assert_eq!(resolve(&root, "./src/../src/a.py").unwrap().rel, "src/a.py");
        assert_eq!(resolve(&root, ".").unwrap().rel, ".");
        assert!(resolve(&root, "src").unwrap().is_dir);
        let abs = root.join("src/a.py");
        assert_eq!(
            resolve(&root, abs.to_str().unwrap()).unwrap().rel,
            "src/a.py"
        );
    }

    #[test]
    fn escapes_are_refused() {
        let (_d, root) = setup();
        assert_eq!(
            code(resolve(&root, "../../etc/passwd")),
            "outside_workspace"
        );
        assert_eq!(code(resolve(&root, "../secret.txt")), "outside_workspace");
        assert_eq!(
            code(resolve(&root, "src/../../secret.txt")),
            "outside_workspace"
        );
        assert_eq!(code(resolve(&root, "/etc/passwd")), "outside_workspace");
        assert_eq!(code(resolve(&root, "/")), "outside_workspace");
        assert_eq!(code(resolve(&root, "../nope/nothing")), "outside_workspace");
        assert_eq!(code(resolve(&root, "src/missing.py")), "not_found");
        assert_eq!(code(resolve(&root, "")), "invalid_argument");
    }

    #[test]
    fn symlinks_leaving_the_root_are_refused() {
        let (_d, root) = setup();
        std::os::unix::fs::symlink("/", root.join("rootlink")).unwrap();
        std::os::unix::fs::symlink(root.join("src"), root.join("srclink")).unwrap();
        assert_eq!(code(resolve(&root, "rootlink")), "outside_workspace");
        assert_eq!(
            code(resolve(&root, "rootlink/etc/passwd")),
            "outside_workspace"
        );
        assert_eq!(
            code(resolve(&root, "rootlink/no/such/file")),
            "outside_workspace"
        );
        // `srclink/..` is the root lexically but the kernel agrees here; a link inside
        // the root to a place inside the root is fine and names the real path.
        assert_eq!(resolve(&root, "srclink/a.py").unwrap().rel, "src/a.py");
    }

    #[test]
    fn directories_are_not_created_through_links_out() {
        let (d, root) = setup();
        let outside = d.path().join("elsewhere");
        std::fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join(".artifacts")).unwrap();
        let err = create_dir_inside(&root, ".artifacts/src/x").unwrap_err();
        assert_eq!(err.code(), "outside_workspace");
        assert!(std::fs::read_dir(&outside).unwrap().next().is_none());
        let made = create_dir_inside(&root, ".docs/src/x").unwrap();
        assert_eq!(made, root.join(".docs/src/x"));
        let written = write_atomic(&made, "f.md", b"hello").unwrap();
        assert_eq!(std::fs::read(&written).unwrap(), b"hello");
        write_atomic(&made, "f.md", b"again").unwrap();
        assert_eq!(std::fs::read(&written).unwrap(), b"again");
        let names: Vec<_> = std::fs::read_dir(&made).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn normalize_applies_dots_lexically() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
        assert_eq!(normalize(Path::new("a/../../b")), PathBuf::from("../b"));
    }

    #[test]
    fn escaped_names_resolve_and_read() {
        use std::os::unix::ffi::OsStrExt as _;
        let (_d, root) = setup();
        let name = std::ffi::OsStr::from_bytes(b"src/\xff.py");
        std::fs::write(root.join(name), "y = 2\n").unwrap();
        std::fs::write(root.join("src/a\\b.py"), "z = 3\n").unwrap();
        let p = resolve(&root, "src/\\xFF.py").unwrap();
        assert_eq!(p.rel, "src/\\xFF.py");
        assert_eq!(read_file(&root, &p, 100).unwrap(), b"y = 2\n");
        let p = resolve(&root, "src/a\\\\b.py").unwrap();
        assert_eq!(p.rel, "src/a\\\\b.py");
        assert_eq!(read_file(&root, &p, 100).unwrap(), b"z = 3\n");
        assert_eq!(code(resolve(&root, "src/a\\b.py")), "invalid_argument");
        assert_eq!(code(resolve(&root, "src/\\x41.py")), "invalid_argument");
    }
}
