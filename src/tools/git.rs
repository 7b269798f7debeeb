//! The one place that runs git: `git -C ROOT ARGS...` as an argument vector (no
//! shell), without a pager, prompts or path quoting, in the C locale, with stdin
//! closed. The summariser (`seeds_from_diff`) and the auditor (the diff context)
//! both ask git through here, so they see the same paths the same way.
//!
//! It does not interpret what git prints beyond splitting lines; the callers decide
//! what a failure means for their answer. Errors are typed: git missing or unable to
//! start is not the same as git answering "no".

use std::path::Path;
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
}

/// Runs `git -C ROOT -c core.quotepath=off --no-pager ARGS...` and returns its stdout
/// (lossily decoded as UTF-8).
///
/// Errors: [`GitError::Spawn`] when git cannot start, [`GitError::Failed`] when it
/// exits with a failure status.
pub fn run(root: &Path, args: &[&str]) -> Result<String, GitError> {
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
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Files changed against `HEAD` (staged or not) under `root`, root-relative, in git's
/// order: `git diff --name-only HEAD --relative`.
///
/// Errors: as [`run`]; [`GitError::Failed`] also when `root` is not a repository or
/// has no commit yet.
pub fn changed_files(root: &Path) -> Result<Vec<String>, GitError> {
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
    fn outside_a_repository_is_a_failure_not_a_spawn_error() {
        let dir = tempfile::tempdir().unwrap();
        // An empty temp dir: git runs (if installed) and answers "not a repository".
        match changed_files(dir.path()) {
            Err(GitError::Failed { args, .. }) => assert!(args.starts_with("diff")),
            Err(GitError::Spawn(_)) => {} // git not installed here
            Ok(files) => panic!("expected a failure, got {files:?}"),
        }
    }
}
