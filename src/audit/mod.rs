//! Code audits of `sequentialthinking` thoughts (a GAN-style auditor): which
//! thoughts are audited, what is judged, by whom, and how a review joins its session.
//!
//! ```text
//!  thought ──candidates──▶ code blocks / diffs (or what the scope names)
//!     │                          │ internal rubric ranks them; the best is judged
//!     ├─gan-config─▶ SessionConfig (over the session's stored one)
//!     └────────────▶ context pack (git diff | paths | tree + central files), token-bounded
//!                                │
//!            judges: internal (tree-sitter + index), codex (subprocess) ──▶ combined GanReview
//! ```
//!
//! This module prepares a review ([`prepare`]) and finishes it once the session's
//! iteration is known ([`finish`]); `memory::thinking` records both in one transaction.
//! It never writes to the workspace.

pub mod candidates;
pub mod codex;
pub mod config;
pub mod context;
pub mod internal;
pub mod review;

use std::collections::HashSet;
use std::path::Path;

use crate::memory::thought_rows as rows;
use crate::tools::workspace::Workspace;
use crate::tools::{ErrorCode, ToolError};

use candidates::Candidate;
use codex::JudgeError;
use config::SessionConfig;
use review::{GanReview, JudgeCard, JudgeOutput, ReviewBody, Verdict};

/// Above this similarity (0–1) a candidate counts as unchanged from the session's
/// previous one: the review says so and the loop stops.
pub const STAGNATION_SIMILARITY: f64 = 0.95;

/// Longest candidates compared character by character (Levenshtein); longer ones are
/// compared line by line.
const CHAR_COMPARE_LIMIT: usize = 20_000;

/// True when a thought asks for an audit: a fenced code block, a unified diff, or a
/// `gan-config` block.
pub fn triggers(thought: &str) -> bool {
    candidates::triggers_audit(thought)
}

/// A workspace-relative path for `p` if it names an existing file inside `root`
/// (symbolic links resolved; `..` that leaves the root refused); else why not.
pub fn resolve_inside(root: &Path, p: &str) -> Result<String, String> {
    let joined = root.join(p); // an absolute `p` replaces the root, then is checked
    let canonical = joined
        .canonicalize()
        .map_err(|e| format!("{} ({e})", ErrorCode::NotFound))?;
    let rel = canonical.strip_prefix(root).map_err(|_| {
        format!(
            "{}: it is not under the workspace root",
            ErrorCode::OutsideWorkspace
        )
    })?;
    if !canonical.is_file() {
        return Err("not a file".into());
    }
    Ok(crate::walk::path_text::encode(rel))
}

/// The text of a workspace file (`None` outside the workspace, missing, or not UTF-8).
pub fn read_inside(root: &Path, p: &str) -> Option<String> {
    let rel = resolve_inside(root, p).ok()?;
    let bytes = crate::walk::read_stored(root, &rel, crate::walk::MAX_TOOL_READ).ok()?;
    String::from_utf8(bytes).ok()
}

/// A review computed but not yet numbered in its session.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The audit session (`branchId`, else the thinking session's id).
    pub session_id: String,
    pub config: SessionConfig,
    /// The combined judges' answer.
    pub combined: JudgeOutput,
    pub cards: Vec<JudgeCard>,
    pub notes: Vec<String>,
    /// The judged candidate as one text.
    pub candidate_text: String,
    pub candidate_label: String,
    /// Similarity to the session's previous candidate, when above the threshold.
    pub stagnation: Option<f64>,
    /// The stored session was unreadable: rename it to this before recording.
    pub rename_corrupt_to: Option<String>,
    /// Overall scores of the session's earlier reviews.
    pub earlier_scores: Vec<u32>,
}

/// Why no review was prepared although the thought asked for one.
#[derive(Debug)]
pub enum NotAudited {
    /// Nothing to judge (e.g. a `gan-config` block alone, scope `diff`, a clean tree).
    NothingToJudge(String),
    /// Every configured judge failed; the first failure.
    JudgesFailed(JudgeError),
}

/// Loads (or starts) the audit session, applies the thought's inline config, builds
/// the context pack, picks the candidate and runs the judges.
///
/// Errors: `database_error` when the store cannot be read. A session whose stored row
/// cannot be decoded is set aside (see [`Prepared::rename_corrupt_to`]), never an error.
pub fn prepare(
    ws: &Workspace,
    session_id: &str,
    thought: &str,
) -> Result<Result<Prepared, NotAudited>, ToolError> {
    let conn = ws.memory()?.conn()?;
    let mut notes = Vec::new();
    let mut rename_corrupt_to = None;
    let stored = rows::audit_session(&conn, session_id)?;
    let mut base = SessionConfig::default();
    let mut history = Vec::new();
    if let Some(row) = stored {
        let config = serde_json::from_str::<SessionConfig>(&row.config);
        let last_ok = row
            .last_review
            .as_deref()
            .is_none_or(|r| serde_json::from_str::<GanReview>(r).is_ok());
        match config {
            Ok(c) if last_ok => {
                base = c;
                history = rows::audit_history(&conn, session_id)?;
            }
            Ok(_) | Err(_) => {
                let stamp = chrono::Utc::now().timestamp_millis();
                let aside = format!("{session_id}#corrupt-{stamp}");
                notes.push(format!(
                    "the stored audit session {session_id:?} could not be read; it was kept as {aside:?} and a new session started"
                ));
                rename_corrupt_to = Some(aside);
            }
        }
    }
    drop(conn);

    let (config, config_notes) = config::apply_inline(&base, thought);
    notes.extend(config_notes);

    let pack = context::build(ws, &config, context::DEFAULT_CONTEXT_TOKENS);
    notes.extend(pack.notes.iter().cloned());

    let mut found = candidates::from_thought(thought, ws.root());
    if found.is_empty() {
        match pack.scope_candidate(ws.root()) {
            Some(c) => found.push(c),
            None => {
                return Ok(Err(NotAudited::NothingToJudge(format!(
                    "the thought has no code and scope {} names none",
                    pack.scope.map_or("diff", |s| s.name())
                ))))
            }
        }
    }
    let keep = (config.candidates as usize).min(found.len());
    let found: Vec<Candidate> = found.split_off(found.len() - keep);

    let tests_touched = pack
        .git
        .as_ref()
        .is_some_and(|g| g.changed_paths().iter().any(|p| internal::is_test_path(p)));
    // A database error is the tool's error: read as "nothing defined" it would make
    // every call an undefined-name finding.
    let defined = |names: &[String]| -> Result<HashSet<String>, ToolError> {
        let c = ws.store().conn()?;
        Ok(crate::store::defined_names::defined_names(
            &c,
            names.iter().map(String::as_str),
        )?)
    };
    // The internal rubric ranks the candidates; the best (the later one on a tie) is
    // what every judge reviews.
    let mut best: Option<(Candidate, JudgeOutput)> = None;
    for c in found {
        let out = internal::try_judge(&c, &defined, tests_touched)?;
        if best.as_ref().is_none_or(|(_, b)| out.overall >= b.overall) {
            best = Some((c, out));
        }
    }
    let Some((candidate, internal_out)) = best else {
        return Ok(Err(NotAudited::NothingToJudge("no candidate".into())));
    };
    if keep > 1 {
        notes.push(format!(
            "{keep} candidates judged; the review covers the best, {}",
            candidate.label
        ));
    }
    let candidate_text = candidate.text();

    let mut cards = Vec::new();
    let mut answers: Vec<JudgeOutput> = Vec::new();
    let mut first_error: Option<JudgeError> = None;
    for judge in &config.judges {
        let result = match judge.as_str() {
            "internal" => Ok(internal_out.clone()),
            "codex" => codex::judge(
                ws.root(),
                &codex::CodexRequest {
                    task: &config.task,
                    candidate: &candidate_text,
                    context: &pack.text,
                    threshold: config.threshold,
                    apply_fixes: config.apply_fixes,
                },
            ),
            other => Err(JudgeError::Unavailable(format!("unknown judge {other:?}"))),
        };
        match result {
            Ok(out) => {
                cards.push(JudgeCard {
                    model: judge.clone(),
                    score: Some(out.overall),
                    notes: (!out.summary.is_empty()).then(|| out.summary.clone()),
                });
                answers.push(out);
            }
            Err(e) => {
                cards.push(JudgeCard {
                    model: judge.clone(),
                    score: None,
                    notes: Some(e.to_string()),
                });
                notes.push(format!("judge {judge} gave no score: {e}"));
                first_error.get_or_insert(e);
            }
        }
    }
    let Some(combined) = review::combine(&answers.iter().collect::<Vec<_>>()) else {
        let e =
            first_error.unwrap_or_else(|| JudgeError::Unavailable("no judge is configured".into()));
        return Ok(Err(NotAudited::JudgesFailed(e)));
    };

    let stagnation = history
        .last()
        .map(|prev| similarity(&prev.candidate, &candidate_text))
        .filter(|s| *s > STAGNATION_SIMILARITY);
    Ok(Ok(Prepared {
        session_id: session_id.to_string(),
        config,
        combined,
        cards,
        notes,
        candidate_text,
        candidate_label: candidate.label,
        stagnation,
        rename_corrupt_to,
        earlier_scores: history
            .iter()
            .map(|h| h.overall.clamp(0, 100) as u32)
            .collect(),
    }))
}

/// Similarity of two candidates, 0–1: normalized Levenshtein over characters, or
/// over lines when either is longer than 20,000 characters.
pub fn similarity(a: &str, b: &str) -> f64 {
    if a.len() <= CHAR_COMPARE_LIMIT && b.len() <= CHAR_COMPARE_LIMIT {
        return strsim::normalized_levenshtein(a, b);
    }
    let la: Vec<&str> = a.lines().collect();
    let lb: Vec<&str> = b.lines().collect();
    let longest = la.len().max(lb.len());
    if longest == 0 {
        return 1.0;
    }
    1.0 - strsim::generic_levenshtein(&la, &lb) as f64 / longest as f64
}

/// Numbers the review as the session's `iteration` and decides whether it sends the
/// caller back: `revise`/`reject` force `nextThoughtNeeded: true` unless the candidate
/// stagnated or the session has had `maxCycles` such reviews already. Returns the
/// review and whether `nextThoughtNeeded` is forced.
pub fn finish(p: &Prepared, iteration: u32) -> (GanReview, bool) {
    let c = &p.combined;
    let verdict = Verdict::from_score(c.overall, p.config.threshold, c.parse_errors);
    let mut notes = p.notes.clone();
    let mut force = verdict != Verdict::Pass;
    if let Some(s) = p.stagnation {
        notes.push(format!(
            "stagnation: this candidate is {:.1}% similar to the previous one (over {:.0}%); iterating stops here",
            s * 100.0,
            STAGNATION_SIMILARITY * 100.0
        ));
        force = false;
    }
    if force && iteration > p.config.max_cycles {
        notes.push(format!(
            "maxCycles {} reached: this review no longer forces another thought",
            p.config.max_cycles
        ));
        force = false;
    }
    let mut progression = p.earlier_scores.clone();
    progression.push(c.overall);
    let head = format!(
        "{} at {}/100 (threshold {}) on {}, iteration {}.",
        verdict.name(),
        c.overall,
        p.config.threshold,
        p.candidate_label,
        iteration
    );
    let mut summary = head;
    if !c.summary.is_empty() {
        summary.push(' ');
        summary.push_str(&c.summary);
    }
    if !notes.is_empty() {
        summary.push_str(" Notes: ");
        summary.push_str(&notes.join("; "));
        summary.push('.');
    }
    let review = GanReview {
        overall: c.overall,
        dimensions: c.dimensions.clone(),
        verdict,
        review: ReviewBody {
            summary,
            inline: c.inline.clone(),
            citations: c.citations.clone(),
        },
        proposed_diff: c.proposed_diff.clone(),
        iterations: iteration,
        judge_cards: p.cards.clone(),
        progression,
        notes,
    };
    (review, force)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity_is_normalized() {
        assert_eq!(similarity("abc", "abc"), 1.0);
        assert!(similarity("fn f() { 1 }\n", "fn f() { 2 }\n") > 0.9);
        assert!(similarity("fn f() {}", "def g(): pass") < 0.5);
        let long_a = "x\n".repeat(15_000);
        let mut long_b = long_a.clone();
        long_b.push_str("y\n");
        assert!(similarity(&long_a, &long_b) > 0.99);
    }

    #[test]
    fn paths_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(dir.path().join("outside.txt"), "x").unwrap();
        std::fs::write(root.join("src/a.rs"), "fn a() {}").unwrap();
        assert_eq!(resolve_inside(&root, "src/a.rs").unwrap(), "src/a.rs");
        assert_eq!(
            resolve_inside(&root, "./src/../src/a.rs").unwrap(),
            "src/a.rs"
        );
        let up = resolve_inside(&root, "../outside.txt").unwrap_err();
        assert!(up.starts_with("outside_workspace"), "{up}");
        assert!(resolve_inside(&root, "/etc/passwd")
            .unwrap_err()
            .starts_with("outside_workspace"));
        assert!(resolve_inside(&root, "src").is_err());
        assert_eq!(read_inside(&root, "src/a.rs").as_deref(), Some("fn a() {}"));
    }
}
