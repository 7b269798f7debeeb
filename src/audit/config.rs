//! Audit configuration: `SessionConfig`, its defaults, and the inline
//! ```` ```gan-config ```` JSON block a thought may carry.
//!
//! Bad configuration never fails a call: invalid JSON falls back to the session's
//! configuration (or the defaults), out-of-range numbers are clamped, unknown values
//! fall back to their default, and every such decision becomes a note for the review.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Judges this build knows.
pub const KNOWN_JUDGES: [&str; 2] = ["internal", "codex"];

/// Which context the judges get besides the candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Git header (branch, HEAD, dirty files) and `git diff HEAD` of the workspace.
    Diff,
    /// The files listed in `paths` (inside the workspace only).
    Paths,
    /// A depth-limited tree and the most central files by PageRank.
    Workspace,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Diff => "diff",
            Scope::Paths => "paths",
            Scope::Workspace => "workspace",
        }
    }
}

/// `SessionConfig` (stored as JSON in `audit_sessions.config`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionConfig {
    /// What the candidate should achieve; the codex judge is told it.
    pub task: String,
    pub scope: Scope,
    /// Workspace-relative paths for `scope: paths`.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Score needed for `pass`, 0–100.
    pub threshold: u32,
    /// How many `revise`/`reject` reviews of a session send the caller back for another
    /// thought (force `nextThoughtNeeded: true`), 1–10.
    pub max_cycles: u32,
    /// How many candidates of a thought are judged (the last ones; the best is
    /// reported), 1–5.
    pub candidates: u32,
    /// Judges, in order: `internal`, `codex`.
    pub judges: Vec<String>,
    /// Recorded and passed to the codex judge (which may propose a diff); nothing is
    /// ever written to the workspace.
    pub apply_fixes: bool,
}

impl Default for SessionConfig {
    /// The defaults: scope diff, threshold 85, one cycle, one candidate, the
    /// internal judge, no fixes.
    fn default() -> Self {
        SessionConfig {
            task: "Audit and improve the provided candidate".to_string(),
            scope: Scope::Diff,
            paths: Vec::new(),
            threshold: 85,
            max_cycles: 1,
            candidates: 1,
            judges: vec!["internal".to_string()],
            apply_fixes: false,
        }
    }
}

/// The contents of the thought's ```` ```gan-config ```` blocks, in order.
pub fn inline_config_blocks(thought: &str) -> Vec<String> {
    super::candidates::fenced_blocks(thought)
        .into_iter()
        .filter(|b| b.info.split_whitespace().next() == Some("gan-config"))
        .map(|b| b.body)
        .collect()
}

/// Applies the last inline config block of `thought` (if any) over `base`. Returns the
/// resulting config and notes on every fallback or adjustment.
pub fn apply_inline(base: &SessionConfig, thought: &str) -> (SessionConfig, Vec<String>) {
    let mut notes = Vec::new();
    let Some(block) = inline_config_blocks(thought).pop() else {
        return (base.clone(), notes);
    };
    let obj = match serde_json::from_str::<Value>(&block) {
        Ok(Value::Object(o)) => o,
        Ok(_) => {
            notes.push("gan-config is not a JSON object; using the defaults".to_string());
            return (SessionConfig::default(), notes);
        }
        Err(e) => {
            notes.push(format!(
                "gan-config is not valid JSON ({e}); using the defaults"
            ));
            return (SessionConfig::default(), notes);
        }
    };
    let mut c = base.clone();
    for (key, value) in &obj {
        match key.as_str() {
            "task" => match value.as_str() {
                Some(s) if !s.trim().is_empty() => c.task = s.to_string(),
                _ => notes.push("gan-config task must be a non-empty string; kept".into()),
            },
            "scope" => match value.as_str() {
                Some("diff") => c.scope = Scope::Diff,
                Some("paths") => c.scope = Scope::Paths,
                Some("workspace") => c.scope = Scope::Workspace,
                _ => {
                    notes.push(format!(
                        "gan-config scope {value} is not diff, paths or workspace; using diff"
                    ));
                    c.scope = Scope::Diff;
                }
            },
            "paths" => match value.as_array() {
                Some(a) => {
                    c.paths = a
                        .iter()
                        .filter_map(|p| p.as_str().map(str::to_string))
                        .collect();
                    if c.paths.len() != a.len() {
                        notes.push("gan-config paths: entries that are not strings ignored".into());
                    }
                }
                None => notes.push("gan-config paths must be an array of strings; ignored".into()),
            },
            "threshold" => {
                c.threshold = clamped(value, 0, 100, c.threshold, "threshold", &mut notes)
            }
            "maxCycles" => {
                c.max_cycles = clamped(value, 1, 10, c.max_cycles, "maxCycles", &mut notes)
            }
            "candidates" => {
                c.candidates = clamped(value, 1, 5, c.candidates, "candidates", &mut notes)
            }
            "judges" => {
                let names: Vec<String> = value
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|j| j.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                let mut judges = Vec::new();
                for j in names {
                    if !KNOWN_JUDGES.contains(&j.as_str()) {
                        notes.push(format!(
                            "gan-config judge {j:?} is unknown (known: internal, codex); ignored"
                        ));
                    } else if !judges.contains(&j) {
                        judges.push(j);
                    }
                }
                if judges.is_empty() {
                    notes.push("gan-config names no usable judge; using internal".into());
                    judges.push("internal".into());
                }
                c.judges = judges;
            }
            "applyFixes" => match value.as_bool() {
                Some(b) => c.apply_fixes = b,
                None => notes.push("gan-config applyFixes must be a boolean; kept".into()),
            },
            other => notes.push(format!("gan-config key {other:?} is unknown; ignored")),
        }
    }
    (c, notes)
}

/// A number clamped to `lo..=hi`; a note when it was clamped or not a number.
fn clamped(value: &Value, lo: u32, hi: u32, keep: u32, name: &str, notes: &mut Vec<String>) -> u32 {
    let Some(x) = value.as_f64().filter(|x| x.is_finite()) else {
        notes.push(format!("gan-config {name} must be a number; kept {keep}"));
        return keep;
    };
    let r = x.round().clamp(f64::from(lo), f64::from(hi)) as u32;
    if f64::from(r) != x {
        notes.push(format!("gan-config {name} {x} clamped to {r} ({lo}-{hi})"));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(block: &str) -> (SessionConfig, Vec<String>) {
        apply_inline(
            &SessionConfig::default(),
            &format!("text\n```gan-config\n{block}\n```\n"),
        )
    }

    #[test]
    fn values_are_clamped_and_said() {
        let (c, notes) = with(
            r#"{"threshold": 140, "maxCycles": 0, "candidates": 3, "scope": "paths", "paths": ["a.rs"]}"#,
        );
        assert_eq!(c.threshold, 100);
        assert_eq!(c.max_cycles, 1);
        assert_eq!(c.candidates, 3);
        assert_eq!(c.scope, Scope::Paths);
        assert_eq!(c.paths, vec!["a.rs"]);
        assert_eq!(
            notes,
            vec![
                // Keys in JSON object order, which serde_json sorts.
                "gan-config maxCycles 0 clamped to 1 (1-10)",
                "gan-config threshold 140 clamped to 100 (0-100)",
            ]
        );
    }

    #[test]
    fn invalid_json_falls_back_to_defaults() {
        let base = SessionConfig {
            threshold: 60,
            ..SessionConfig::default()
        };
        let (c, notes) = apply_inline(&base, "```gan-config\n{threshold: 10\n```");
        assert_eq!(c, SessionConfig::default());
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with("gan-config is not valid JSON"),
            "{notes:?}"
        );
    }

    #[test]
    fn unknown_judges_are_dropped() {
        let (c, notes) = with(r#"{"judges": ["gpt9", "codex", "codex"]}"#);
        assert_eq!(c.judges, vec!["codex"]);
        assert_eq!(notes.len(), 1);
        let (c, _) = with(r#"{"judges": []}"#);
        assert_eq!(c.judges, vec!["internal"]);
    }

    #[test]
    fn no_block_keeps_the_base() {
        let (c, notes) = apply_inline(&SessionConfig::default(), "just words");
        assert_eq!(c, SessionConfig::default());
        assert!(notes.is_empty());
    }
}
