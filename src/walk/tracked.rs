//! The file set of a git work tree: what `git ls-files --cached --others
//! --exclude-standard` lists. That is every tracked file, even one an ignore rule
//! matches (`git add -f`, or a rule added after the file), plus the untracked files no
//! ignore rule hides (`.gitignore` at any depth, `.git/info/exclude`, git's global
//! excludes file), which is what `git status` and a user mean by "the files of this
//! repository".
//!
//! A directory git lists as a whole (an untracked repository inside, `nested/`, or an
//! initialised submodule) is listed by git in turn, as its own work tree. The root is
//! left to the directory walker when git cannot list it: git is not installed, the
//! root is not inside a work tree (or git refuses the repository), or the root itself
//! is ignored by its repository (a build or scratch directory inside a checkout, whose
//! files git would not list at all).
//!
//! Each listed path then goes through the same leave-outs as the directory walk
//! (hidden names, `node_modules`, default excludes, `--exclude`) and is `lstat`-ed in
//! parallel: only regular files are kept, a path gone since git listed it (a tracked
//! file deleted in the work tree) is left out, and any other stat error is a
//! [`WalkProblem`].

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{
    git, mtime_ns, path_text, walk_directories, FileSource, Skips, Walk, WalkOptions, WalkProblem,
    WalkedFile,
};

/// Deepest nesting of repositories listed in turn (a submodule inside a submodule ...).
const MAX_NESTING: usize = 16;

/// The paths git lists under `dir`, relative to it (sorted, each once; a directory git
/// lists as a whole ends in `/`), or `None` when git cannot say: git is missing or
/// fails, `dir` is not in a work tree, or `dir` is ignored by its repository and git
/// lists nothing in it.
pub fn list(dir: &Path) -> Option<Vec<PathBuf>> {
    if !may_be_in_work_tree(dir) {
        tracing::debug!(
            "walk: no .git at or above {}: not a git work tree",
            dir.display()
        );
        return None;
    }
    let args = [
        "ls-files",
        "-z",
        "--cached",
        "--others",
        "--exclude-standard",
        // Never indexed (see `DEFAULT_EXCLUDED_DIRS`): spare git listing them.
        "--exclude=node_modules",
    ];
    let out = match git::run_bytes(dir, &args) {
        Ok(out) => out,
        Err(e) => {
            tracing::debug!("walk: git does not list {}: {e}", dir.display());
            return None;
        }
    };
    let mut paths: Vec<PathBuf> = out
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(path_of_bytes)
        .collect();
    if paths.is_empty() && is_ignored_subdirectory(dir) {
        tracing::info!(
            "walk: {} is ignored by its git repository: reading its directories instead",
            dir.display()
        );
        return None;
    }
    // An unmerged path is listed once per conflict stage.
    paths.sort_unstable();
    paths.dedup();
    Some(paths)
}

/// False when git cannot find a repository for `dir`: no `.git` (a directory, or the
/// file of a linked worktree or submodule) in it or any directory above, and no
/// `GIT_DIR` in the environment. Starting git only to hear that costs a few
/// milliseconds, a sixth of an index run that finds nothing changed.
fn may_be_in_work_tree(dir: &Path) -> bool {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    std::env::var_os("GIT_DIR").is_some()
        || dir
            .ancestors()
            .any(|a| a.join(".git").symlink_metadata().is_ok())
}

/// True when `dir` is below the top of its work tree and ignored there (a build or
/// scratch directory): git lists none of its untracked files. The top itself is never
/// taken for ignored, even under a rule of `*`.
fn is_ignored_subdirectory(dir: &Path) -> bool {
    let below_top = git::run(dir, &["rev-parse", "--show-prefix"])
        .is_ok_and(|prefix| !prefix.trim().is_empty());
    // `check-ignore` exits 0 when the path is ignored, 1 when it is not.
    below_top && git::run_bytes(dir, &["check-ignore", "-q", "."]).is_ok()
}

/// A path git printed, as bytes.
#[cfg(unix)]
fn path_of_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt as _;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

/// A path git printed, as bytes (UTF-8 where file names are Unicode).
#[cfg(not(unix))]
fn path_of_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// The walk of `root` by git's listing, or `None` when git cannot list it (see
/// [`list`]); the caller then reads the directories.
pub(super) fn walk(root: &Path, skips: &Skips, opts: &WalkOptions) -> Option<Walk> {
    let listed = list(root)?;
    let mut walk = Walk {
        source: FileSource::Git,
        ..Walk::default()
    };
    collect(root, Path::new(""), listed, skips, opts, 0, &mut walk);
    walk.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    walk.problems
        .sort_unstable_by(|a, b| a.path.cmp(&b.path).then(a.message.cmp(&b.message)));
    Some(walk)
}

/// What one listed path turned out to be.
enum Found {
    File(WalkedFile),
    /// A directory git listed whole; root-relative.
    Directory(PathBuf),
    Problem(WalkProblem),
}

/// Stats the paths `listed` (relative to `root/prefix`) in parallel into `walk`, and
/// lists the directories among them in turn.
fn collect(
    root: &Path,
    prefix: &Path,
    listed: Vec<PathBuf>,
    skips: &Skips,
    opts: &WalkOptions,
    depth: usize,
    walk: &mut Walk,
) {
    let found: Vec<Found> = listed
        .par_iter()
        .filter_map(|p| {
            let rel_os = prefix.join(p);
            let rel = path_text::encode(&rel_os);
            if rel.is_empty() || skips.skips_path(&rel) {
                return None;
            }
            let abs = root.join(&rel_os);
            match std::fs::symlink_metadata(&abs) {
                Ok(meta) if meta.is_file() => Some(Found::File(WalkedFile {
                    path: rel,
                    abs_path: abs,
                    size: meta.len(),
                    mtime_ns: mtime_ns(&meta),
                })),
                Ok(meta) if meta.is_dir() => Some(Found::Directory(rel_os)),
                // A symbolic link (never followed), a FIFO, a socket, a device.
                Ok(_) => None,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    tracing::debug!("walk: listed by git but gone: {rel}");
                    None
                }
                Err(e) => {
                    tracing::warn!("walk: cannot stat {rel}: {e}");
                    Some(Found::Problem(WalkProblem {
                        path: Some(rel),
                        message: e.to_string(),
                    }))
                }
            }
        })
        .collect();
    for f in found {
        match f {
            Found::File(file) => walk.files.push(file),
            Found::Problem(p) => walk.problems.push(p),
            Found::Directory(rel_os) => {
                let abs = root.join(&rel_os);
                match (depth < MAX_NESTING).then(|| list(&abs)).flatten() {
                    Some(inner) => collect(root, &rel_os, inner, skips, opts, depth + 1, walk),
                    None => {
                        // Not listable by git after all: read it, its own ignore files
                        // applied, and put its paths under it.
                        let inner = walk_directories(&abs, opts, skips.clone());
                        let under = path_text::encode(&rel_os);
                        walk.files.extend(inner.files.into_iter().map(|mut f| {
                            f.path = format!("{under}/{}", f.path);
                            f
                        }));
                        walk.problems
                            .extend(inner.problems.into_iter().map(|mut p| {
                                p.path = Some(match p.path.as_deref() {
                                    None | Some("") => under.clone(),
                                    Some(x) => format!("{under}/{x}"),
                                });
                                p
                            }));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// `git -C dir ARGS` with a throwaway identity; `false` when git cannot run here.
    fn git(dir: &Path, args: &[&str]) -> bool {
        let Ok(out) = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .output()
        else {
            return false;
        };
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        true
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn paths(w: &Walk) -> Vec<&str> {
        w.files.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn a_work_tree_lists_tracked_files_even_if_ignored_and_untracked_ones_not_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        if !git(root, &["init", "-q"]) {
            return; // git is not installed here
        }
        write(root, ".gitignore", "*.gen.py\nbuild/\n");
        write(root, "a.py", "a = 1\n");
        write(root, "kept.gen.py", "k = 1\n"); // tracked with -f: listed
        write(root, "other.gen.py", "o = 1\n"); // untracked and ignored: not listed
        write(root, "build/out.py", "b = 1\n"); // untracked and ignored
        write(root, ".github/w.py", "w = 1\n"); // tracked but hidden
        write(root, "vendor/v.py", "v = 1\n"); // tracked but a default exclude
        write(root, "node_modules/x/i.js", "1\n"); // tracked but never indexed
        write(root, "deleted.py", "d = 1\n"); // tracked, then deleted from disk
        std::os::unix::fs::symlink("a.py", root.join("link.py")).unwrap();
        assert!(git(root, &["add", "."]));
        assert!(git(root, &["add", "-f", "kept.gen.py", "node_modules"]));
        assert!(git(root, &["commit", "-q", "-m", "c"]));
        std::fs::remove_file(root.join("deleted.py")).unwrap();
        write(root, "new.py", "n = 1\n"); // untracked, not ignored: listed
                                          // An untracked repository inside: git lists it whole, then lists it in turn,
                                          // with its own ignore file.
        write(root, "nested/n.py", "n = 2\n");
        write(root, "nested/skip.py", "s = 1\n");
        write(root, "nested/.gitignore", "skip.py\n");
        assert!(git(&root.join("nested"), &["init", "-q"]));

        let opts = WalkOptions::default();
        let w = crate::walk::walk(root, &opts).unwrap();
        assert_eq!(w.source, FileSource::Git);
        assert_eq!(
            paths(&w),
            ["a.py", "kept.gen.py", "nested/n.py", "new.py"],
            "{w:?}"
        );
        assert!(w.problems.is_empty(), "{:?}", w.problems);

        // Without ignore rules the directories are read and everything is listed.
        let all = WalkOptions {
            ignore_files: false,
            ..WalkOptions::default()
        };
        let w = crate::walk::walk(root, &all).unwrap();
        assert_eq!(w.source, FileSource::Directories);
        assert_eq!(
            paths(&w),
            [
                "a.py",
                "build/out.py",
                "kept.gen.py",
                "nested/n.py",
                "nested/skip.py",
                "new.py",
                "other.gen.py"
            ]
        );
    }

    #[test]
    fn a_root_its_repository_ignores_is_read_as_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        if !git(root, &["init", "-q"]) {
            return;
        }
        write(root, ".gitignore", "out/\n");
        write(root, "src/m.py", "m = 1\n");
        write(root, "out/a.py", "a = 1\n");
        write(root, "out/b.py", "b = 1\n");
        write(root, "out/.gitignore", "b.py\n");
        // git would list nothing under `out/`: its own ignore files apply instead.
        let w = crate::walk::walk(&root.join("out"), &WalkOptions::default()).unwrap();
        assert_eq!(w.source, FileSource::Directories);
        assert_eq!(paths(&w), ["a.py"]);
        // Below the top of a work tree, paths are relative to the root walked.
        let w = crate::walk::walk(&root.join("src"), &WalkOptions::default()).unwrap();
        assert_eq!(w.source, FileSource::Git);
        assert_eq!(paths(&w), ["m.py"]);
    }
}
