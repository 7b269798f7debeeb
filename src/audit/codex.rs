//! The `codex` judge: the Codex CLI (`codex exec`) as a subprocess, with an argument
//! vector (no shell), a read-only sandbox, a timeout, and greedy JSON parsing of its
//! final message.
//!
//! The binary is `$CONSTELLATION_CODEX_BIN` when set, else `codex` on `PATH`. The
//! instruction is the last argument; the task, candidate and context pack go to its
//! standard input (Codex appends piped input to the prompt). The timeout is
//! `$CONSTELLATION_CODEX_TIMEOUT_SECS` seconds (default 300); when it passes the
//! process is killed and the judge reports `judge_timeout`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::review::{DimensionScore, InlineComment, JudgeOutput, DIMENSIONS};
use crate::tools::error_code::ErrorCode;

/// Environment variable naming the Codex binary.
pub const BIN_ENV: &str = "CONSTELLATION_CODEX_BIN";
/// Environment variable with the timeout in seconds (fractions allowed).
pub const TIMEOUT_ENV: &str = "CONSTELLATION_CODEX_TIMEOUT_SECS";
/// Default timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// How to install the CLI, for the `judge_unavailable` error.
pub const INSTALL_HINT: &str = "install the Codex CLI (`npm install -g @openai/codex`, then `codex login`), or point CONSTELLATION_CODEX_BIN at the binary; or leave \"codex\" out of the gan-config judges";

/// Why a judge gave no score. The message starts with a stable code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    /// The judge's program cannot be found or started.
    #[error("{}: {}", ErrorCode::JudgeUnavailable, .0)]
    Unavailable(String),
    /// It did not answer in time (it was killed).
    #[error("{}: {}", ErrorCode::JudgeTimeout, .0)]
    Timeout(String),
    /// It answered, but no review could be read from the answer.
    #[error("{}: {}", ErrorCode::JudgeInvalidOutput, .0)]
    InvalidOutput(String),
    /// It exited with an error.
    #[error("{}: {}", ErrorCode::JudgeFailed, .0)]
    Failed(String),
}

impl JudgeError {
    /// The stable code, from the crate's one table of codes.
    pub fn kind(&self) -> ErrorCode {
        match self {
            JudgeError::Unavailable(_) => ErrorCode::JudgeUnavailable,
            JudgeError::Timeout(_) => ErrorCode::JudgeTimeout,
            JudgeError::InvalidOutput(_) => ErrorCode::JudgeInvalidOutput,
            JudgeError::Failed(_) => ErrorCode::JudgeFailed,
        }
    }

    /// The stable code as text.
    pub fn code(&self) -> &'static str {
        self.kind().as_str()
    }
}

/// What the codex judge is asked about.
#[derive(Debug, Clone)]
pub struct CodexRequest<'a> {
    pub task: &'a str,
    pub candidate: &'a str,
    pub context: &'a str,
    pub threshold: u32,
    pub apply_fixes: bool,
}

/// The binary to run: `$CONSTELLATION_CODEX_BIN`, else `codex` on `PATH`.
pub fn find_binary() -> Result<PathBuf, JudgeError> {
    if let Some(bin) = std::env::var_os(BIN_ENV).filter(|v| !v.is_empty()) {
        let p = PathBuf::from(&bin);
        if p.is_file() {
            return Ok(p);
        }
        return Err(JudgeError::Unavailable(format!(
            "{BIN_ENV}={} is not a file; {INSTALL_HINT}",
            p.display()
        )));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let p = dir.join("codex");
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(JudgeError::Unavailable(format!(
        "the Codex CLI (`codex`) is not on PATH; {INSTALL_HINT}"
    )))
}

/// The timeout from `$CONSTELLATION_CODEX_TIMEOUT_SECS`, else the default.
pub fn timeout() -> Duration {
    std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(DEFAULT_TIMEOUT)
}

/// The instruction (argv's last element).
fn instruction(req: &CodexRequest<'_>) -> String {
    let dims = DIMENSIONS
        .iter()
        .map(|(n, w)| format!("{n} (weight {w})"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "You are a strict code reviewer. Review the candidate given on standard input against its task and the repository context. \
Score each dimension 0-100: {dims}. overall is their weighted mean. Verdict: pass at or above {threshold}, reject below 50 or when the code cannot compile/parse, otherwise revise. \
{fixes}Do not modify any file. Answer with one JSON object and nothing else, of this shape: \
{{\"overall\": 0-100, \"dimensions\": [{{\"name\": \"correctness\", \"score\": 0-100}}], \"verdict\": \"pass|revise|reject\", \
\"review\": {{\"summary\": \"...\", \"inline\": [{{\"path\": \"...\", \"line\": 1, \"comment\": \"...\"}}], \"citations\": [\"repo://path:start-end\"]}}, \"proposed_diff\": null}}",
        threshold = req.threshold,
        fixes = if req.apply_fixes {
            "Put a unified diff that fixes the problems in proposed_diff. "
        } else {
            ""
        },
    )
}

/// Runs the judge in `root`. Errors: see [`JudgeError`].
pub fn judge(root: &Path, req: &CodexRequest<'_>) -> Result<JudgeOutput, JudgeError> {
    let bin = find_binary()?;
    let stdin_text = format!(
        "# Task\n{}\n\n# Candidate\n{}\n\n# Repository context\n{}\n",
        req.task, req.candidate, req.context
    );
    let limit = timeout();
    let mut child = Command::new(&bin)
        .arg("exec")
        .args(["--sandbox", "read-only", "--skip-git-repo-check"])
        .arg("-C")
        .arg(root)
        .arg(instruction(req))
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound
                || e.kind() == std::io::ErrorKind::PermissionDenied
            {
                JudgeError::Unavailable(format!(
                    "cannot run {}: {e}; {INSTALL_HINT}",
                    bin.display()
                ))
            } else {
                JudgeError::Failed(format!("cannot start {}: {e}", bin.display()))
            }
        })?;
    // Feed stdin and drain stdout/stderr on threads so no pipe fills up.
    let writer = child.stdin.take().map(|mut w| {
        std::thread::spawn(move || {
            let _ = w.write_all(stdin_text.as_bytes());
        })
    });
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        pipe.map(|mut p| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = p.read_to_end(&mut buf);
                buf
            })
        })
    };
    let out_thread = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err_thread = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );

    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                // Reader threads end when the pipes close; grandchildren that keep
                // them open are not waited for.
                return Err(JudgeError::Timeout(format!(
                    "codex exec did not answer within {:.1} s (set {TIMEOUT_ENV} to allow more); it was stopped",
                    limit.as_secs_f64()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(JudgeError::Failed(format!("waiting for codex: {e}"))),
        }
    };
    if let Some(w) = writer {
        let _ = w.join();
    }
    let stdout = out_thread
        .and_then(|t| t.join().ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let stderr = err_thread
        .and_then(|t| t.join().ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    if !status.success() {
        let tail: String = stderr
            .lines()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join(" | ");
        return Err(JudgeError::Failed(format!(
            "codex exec exited with {status}: {tail}"
        )));
    }
    parse_review(&stdout)
}

/// Finds the review in Codex's answer, greedily: the whole text, a ```` ```json ````
/// block, the span from the first `{` to the last `}`, then every `{` from the end
/// backwards; the first JSON object that has a numeric `overall` wins.
pub fn parse_review(text: &str) -> Result<JudgeOutput, JudgeError> {
    let mut tries: Vec<&str> = vec![text.trim()];
    for b in super::candidates::fenced_blocks(text) {
        if b.info.starts_with("json") {
            // Borrow from `text` by locating the body.
            if let Some(pos) = text.find(b.body.trim()) {
                tries.push(&text[pos..pos + b.body.trim().len()]);
            }
        }
    }
    if let (Some(a), Some(z)) = (text.find('{'), text.rfind('}')) {
        if a < z {
            tries.push(&text[a..=z]);
        }
    }
    for t in tries {
        if let Ok(v) = serde_json::from_str::<Value>(t) {
            if let Some(out) = from_value(&v) {
                return Ok(out);
            }
        }
    }
    for (i, _) in text
        .match_indices('{')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        let mut stream = serde_json::Deserializer::from_str(&text[i..]).into_iter::<Value>();
        if let Some(Ok(v)) = stream.next() {
            if let Some(out) = from_value(&v) {
                return Ok(out);
            }
        }
    }
    let excerpt: String = text.trim().chars().take(200).collect();
    Err(JudgeError::InvalidOutput(format!(
        "no JSON review with a numeric \"overall\" in the answer ({} bytes): {excerpt:?}",
        text.len()
    )))
}

/// A judge output from a review object; `None` when `overall` is missing.
fn from_value(v: &Value) -> Option<JudgeOutput> {
    let score = |x: &Value| -> Option<u32> {
        let f = x.as_f64().or_else(|| x.as_str()?.trim().parse().ok())?;
        f.is_finite().then(|| f.round().clamp(0.0, 100.0) as u32)
    };
    let overall = score(v.get("overall")?)?;
    let dimensions = v
        .get("dimensions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|d| {
                    Some(DimensionScore {
                        name: d.get("name")?.as_str()?.to_string(),
                        score: score(d.get("score")?)?,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let review = v.get("review");
    let summary = review
        .and_then(|r| r.get("summary"))
        .and_then(Value::as_str)
        .map(|s| format!("codex: {s}"))
        .unwrap_or_default();
    let inline = review
        .and_then(|r| r.get("inline"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|c| {
                    Some(InlineComment {
                        path: c.get("path")?.as_str()?.to_string(),
                        line: c
                            .get("line")
                            .and_then(Value::as_u64)
                            .map_or(1, |l| l.clamp(1, u64::from(u32::MAX)) as u32),
                        comment: format!("codex: {}", c.get("comment")?.as_str()?),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let citations = review
        .and_then(|r| r.get("citations"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|c| c.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let proposed_diff = v
        .get("proposed_diff")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string);
    Some(JudgeOutput {
        overall,
        dimensions,
        inline,
        citations,
        summary,
        proposed_diff,
        parse_errors: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_parsing() {
        let r =
            parse_review(r#"{"overall": 91.6, "dimensions": [{"name": "safety", "score": 80}]}"#)
                .unwrap();
        assert_eq!(r.overall, 92);
        assert_eq!(r.dimensions[0].score, 80);
        let r = parse_review("Here is my review:\n```json\n{\"overall\": 40, \"review\": {\"summary\": \"bad\", \"inline\": [{\"path\": \"a.rs\", \"line\": 3, \"comment\": \"x\"}]}}\n```\nThanks").unwrap();
        assert_eq!(r.overall, 40);
        assert_eq!(r.inline[0].comment, "codex: x");
        assert_eq!(r.summary, "codex: bad");
        let r = parse_review("noise {\"a\": 1} then {\"overall\": \"77\"} trailing }").unwrap();
        assert_eq!(r.overall, 77);
        let e = parse_review("I could not decide {overall: high").unwrap_err();
        assert_eq!(e.code(), "judge_invalid_output");
    }
}
