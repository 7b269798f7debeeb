//! The one place that runs git: `git -C ROOT ARGS...` as an argument vector (no
//! shell), without a pager, prompts or path quoting, in the C locale, with stdin
//! closed. The summariser (`seeds_from_diff`) and the auditor (the diff context)
//! both ask git through here, so they see the same paths the same way, and so does the
//! walk when it lists a git work tree's files (`walk::tracked`).
//!
//! It does not interpret what git prints beyond splitting lines; the callers decide
//! what a failure means for their answer. Errors are typed: git missing or unable to
//! start is not the same as git answering "no".

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Errors of running git.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// git could not be started (not installed, not executable).
    #[error("git is not installed or cannot run: {0}")]
    Spawn(#[source] std::io::Error),
    /// git ran and exited with a failure status; `stderr` is what it said, trimmed.
    #[error("git {args} failed: {stderr}")]
    Failed { args: String, stderr: String },
    /// `root` is not inside a git work tree (`git rev-parse --is-inside-work-tree` failed
    /// or answered `false`); `reason` is the first line git printed, if any.
    #[error("{} is not inside a git work tree{}", root.display(), reason_suffix(reason))]
    NotAWorkTree { root: PathBuf, reason: String },
}

/// ` (git: REASON)`, or nothing when git gave no reason.
fn reason_suffix(reason: &str) -> String {
    if reason.is_empty() {
        String::new()
    } else {
        format!(" (git: {reason})")
    }
}

/// Succeeds when `root` is inside a git work tree. Asked before a command that reads
/// the work tree: outside one, `git diff` falls back to comparing two paths and prints
/// its whole usage text instead of an error.
///
/// Errors: [`GitError::Spawn`]; [`GitError::NotAWorkTree`] otherwise (not a repository,
/// inside `.git`, a repository git refuses to read).
pub fn require_work_tree(root: &Path) -> Result<(), GitError> {
    let not = |reason: &str| GitError::NotAWorkTree {
        root: root.to_path_buf(),
        reason: reason
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("fatal: ")
            .to_string(),
    };
    match run(root, &["rev-parse", "--is-inside-work-tree"]) {
        Ok(out) if out.trim() == "true" => Ok(()),
        Ok(_) => Err(not("")),
        Err(GitError::Failed { stderr, .. }) => Err(not(&stderr)),
        Err(e) => Err(e),
    }
}

/// Runs `git -C ROOT -c core.quotepath=off --no-pager ARGS...` and returns its stdout
/// (lossily decoded as UTF-8).
///
/// Errors: [`GitError::Spawn`] when git cannot start, [`GitError::Failed`] when it
/// exits with a failure status.
pub fn run(root: &Path, args: &[&str]) -> Result<String, GitError> {
    Ok(String::from_utf8_lossy(&run_bytes(root, args)?).into_owned())
}

/// [`run`], returning stdout's bytes as git wrote them (for `-z` listings of paths that
/// need not be UTF-8).
///
/// Errors: as [`run`].
pub fn run_bytes(root: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "core.quotepath=off", "--no-pager"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .map_err(GitError::Spawn)?;
    if !out.status.success() {
        return Err(GitError::Failed {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(out.stdout)
}

/// The contents of several blobs (`REV:./PATH` each) from one `git cat-file --batch`
/// process, in order; `None` for one git does not have. One process instead of one
/// `git show` per file: a diff of 50 files costs one start-up, not 50.
///
/// Errors: [`GitError::Spawn`] when git cannot start, [`GitError::Failed`] when it
/// exits with a failure status or its answer cannot be read.
pub fn show_many(root: &Path, specs: &[String]) -> Result<Vec<Option<Vec<u8>>>, GitError> {
    use std::io::{BufRead, BufReader, Read, Write};
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "-c",
            "core.quotepath=off",
            "--no-pager",
            "cat-file",
            "--batch",
        ])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(GitError::Spawn)?;
    let failed = |what: String| GitError::Failed {
        args: "cat-file --batch".into(),
        stderr: what,
    };
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| failed("no stdin".into()))?;
    let input: String = specs.iter().map(|s| format!("{s}\n")).collect();
    // Written from another thread: git answers while it reads, and a full pipe
    // would otherwise block both sides.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let mut out = BufReader::new(
        child
            .stdout
            .take()
            .ok_or_else(|| failed("no stdout".into()))?,
    );
    let mut blobs = Vec::with_capacity(specs.len());
    for _ in specs {
        let mut header = String::new();
        out.read_line(&mut header)
            .map_err(|e| failed(e.to_string()))?;
        let fields: Vec<&str> = header.split_whitespace().collect();
        match fields.as_slice() {
            [_, "blob", size] => {
                let size: usize = size
                    .parse()
                    .map_err(|_| failed(format!("bad header {header:?}")))?;
                let mut blob = vec![0u8; size + 1];
                out.read_exact(&mut blob)
                    .map_err(|e| failed(e.to_string()))?;
                blob.truncate(size);
                blobs.push(Some(blob));
            }
            [_, kind, size] => {
                // Not a blob (a tree, a submodule commit): skip its bytes.
                let size: usize = size
                    .parse()
                    .map_err(|_| failed(format!("bad header {header:?} ({kind})")))?;
                let mut skip = vec![0u8; size + 1];
                out.read_exact(&mut skip)
                    .map_err(|e| failed(e.to_string()))?;
                blobs.push(None);
            }
            _ => blobs.push(None),
        }
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(blobs)
}

/// Files changed against `HEAD` (staged or not) under `root`, root-relative, in git's
/// order: `git diff --name-only HEAD --relative`.
///
/// Errors: as [`run`]; [`GitError::NotAWorkTree`] when `root` is not in a work tree,
/// [`GitError::Failed`] when the repository has no commit yet.
pub fn changed_files(root: &Path) -> Result<Vec<String>, GitError> {
    require_work_tree(root)?;
    Ok(run(root, &["diff", "--name-only", "HEAD", "--relative"])?
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_repository_is_no_work_tree_not_a_spawn_error() {
        let dir = tempfile::tempdir().unwrap();
        // An empty temp dir: git runs (if installed) and answers "not a repository".
        match changed_files(dir.path()) {
            Err(GitError::NotAWorkTree { root, .. }) => assert_eq!(root, dir.path()),
            Err(GitError::Spawn(_)) => {} // git not installed here
            other => panic!("expected NotAWorkTree, got {other:?}"),
        }
    }
}
