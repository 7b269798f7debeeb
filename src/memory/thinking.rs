//! `sequentialthinking`: the reference server's tool
//! (`@modelcontextprotocol/server-sequential-thinking`), with its history kept in
//! the memory database per thinking session, and code audits of the thoughts that
//! carry code (the auditor is `tools::audit`; its sessions and reviews are stored here,
//! in the same transaction as the thought).
//!
//! # Compatibility with the reference
//! The input is the reference's (numbers and booleans may be strings, as its zod
//! schema coerces them; unknown fields are ignored) plus `loopId`. The five standard
//! fields are computed as the reference computes them: `totalThoughts` is raised to
//! `thoughtNumber` when smaller, `thoughtHistoryLength` counts the session's thoughts,
//! `branches` lists the `branchId`s of thoughts that also have `branchFromThought`,
//! in order of first appearance.
//!
//! # Sessions
//! The reference keeps one history per process. Here a thought joins the session
//! named by `loopId`; else a plain thought 1 (no revision, no branch point) starts a
//! new session; else it continues the session of the most recent thought — across
//! restarts. Audits run in the audit session named by `branchId` when given, else in
//! the thinking session's id; `sessionId` in the answer names it.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use super::thought_rows::{self as rows, ThoughtRecord};
use super::MemoryError;
use crate::audit::{self, review::GanReview, NotAudited};
use crate::tools::workspace::Workspace;
use crate::tools::ToolError;

/// A number the reference accepts (`z.coerce.number()`): a JSON number, or a string
/// or boolean that converts to one.
#[derive(Debug, Clone, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum NumberLike {
    Number(i64),
    Text(String),
}

/// A boolean the reference accepts: `true`/`false`, or the strings `"true"`/`"false"`
/// (any case).
#[derive(Debug, Clone, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum BoolLike {
    Bool(bool),
    Text(String),
}

/// The arguments, for the tool's input schema (parsing is done by [`parse_input`]).
#[derive(Debug, Clone, JsonSchema)]
#[allow(dead_code)]
pub struct ThoughtArgs {
    /// Your current thinking step. A fenced code block, a unified diff or a
    /// ```` ```gan-config ```` JSON block in it starts a code audit.
    thought: String,
    /// Whether another thought step is needed.
    #[serde(rename = "nextThoughtNeeded")]
    next_thought_needed: BoolLike,
    /// Current thought number (numeric value, e.g., 1, 2, 3).
    #[serde(rename = "thoughtNumber")]
    thought_number: NumberLike,
    /// Estimated total thoughts needed (numeric value, e.g., 5, 10).
    #[serde(rename = "totalThoughts")]
    total_thoughts: NumberLike,
    /// Whether this revises previous thinking.
    #[serde(rename = "isRevision")]
    is_revision: Option<BoolLike>,
    /// Which thought is being reconsidered.
    #[serde(rename = "revisesThought")]
    revises_thought: Option<NumberLike>,
    /// Branching point thought number.
    #[serde(rename = "branchFromThought")]
    branch_from_thought: Option<NumberLike>,
    /// Branch identifier; also names the audit session of a thought with code.
    #[serde(rename = "branchId")]
    branch_id: Option<String>,
    /// If more thoughts are needed.
    #[serde(rename = "needsMoreThoughts")]
    needs_more_thoughts: Option<BoolLike>,
    /// The thinking session to continue (a `sessionId` of an earlier answer); an
    /// unknown id starts a session with that id.
    #[serde(rename = "loopId")]
    loop_id: Option<String>,
}

/// A validated thought.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThoughtInput {
    pub thought: String,
    pub next_thought_needed: bool,
    pub thought_number: i64,
    pub total_thoughts: i64,
    pub is_revision: Option<bool>,
    pub revises_thought: Option<i64>,
    pub branch_from_thought: Option<i64>,
    pub branch_id: Option<String>,
    pub needs_more_thoughts: Option<bool>,
    pub loop_id: Option<String>,
}

/// The most tokens (cl100k_base, of its JSON) the `gan` review of an answer may take;
/// the whole review is stored in `audit_history.review` either way.
pub const REVIEW_BUDGET: usize = 6_000;

/// `review` cut to at most `budget` tokens (cl100k_base, of its pretty-printed JSON as
/// the answer's text holds it) for the answer: the inline comments and the
/// citations are halved together until it fits, blockers kept before majors before
/// the rest (the comments kept stay in path and line order); a note then says how many of each
/// are listed and where the whole review is (`memory.audit_history`, by `session_id`
/// and `iteration`). A 6,000-line candidate with a finding on every line made a
/// 900,000-character answer before this cut.
pub fn fit_review(review: GanReview, budget: usize, session_id: &str, iteration: i64) -> GanReview {
    // Counted as the answer's text sends it: pretty-printed, one level deep.
    let tokens = |r: &GanReview| {
        crate::tools::symbol_summary::count_tokens(
            &serde_json::to_string_pretty(&serde_json::json!({ "gan": r })).unwrap_or_default(),
        )
    };
    if tokens(&review) <= budget {
        return review;
    }
    let rank = |c: &str| match c.split_whitespace().next() {
        Some("blocker") => 0,
        Some("major") => 1,
        Some("minor") => 2,
        _ => 3,
    };
    // Indices of the inline comments, most severe first (stable: path and line order
    // within a severity).
    let mut by_severity: Vec<usize> = (0..review.review.inline.len()).collect();
    by_severity.sort_by_key(|&i| rank(&review.review.inline[i].comment));
    let totals = (review.review.inline.len(), review.review.citations.len());
    let mut keep = totals;
    loop {
        keep = (keep.0 / 2, keep.1 / 2);
        let mut kept: Vec<usize> = by_severity[..keep.0].to_vec();
        kept.sort_unstable();
        let mut cut = review.clone();
        cut.review.inline = kept
            .iter()
            .map(|&i| review.review.inline[i].clone())
            .collect();
        cut.review.citations.truncate(keep.1);
        cut.notes.push(format!(
            "answer cut to {budget} tokens: {} of {} inline comments listed (most severe \
             first), {} of {} citations; the whole review: query_index \
             \"SELECT review FROM memory.audit_history WHERE session_id = '{}' AND \
             iteration = {iteration}\"",
            keep.0,
            totals.0,
            keep.1,
            totals.1,
            session_id.replace('\'', "''")
        ));
        if tokens(&cut) <= budget || keep == (0, 0) {
            return cut;
        }
    }
}

/// The answer: the reference's five fields, then `sessionId`, and `gan` when an audit
/// ran (or `auditSkipped` when a thought asked for one and there was nothing to judge).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ThinkingResponse {
    #[serde(rename = "thoughtNumber")]
    pub thought_number: i64,
    #[serde(rename = "totalThoughts")]
    pub total_thoughts: i64,
    #[serde(rename = "nextThoughtNeeded")]
    pub next_thought_needed: bool,
    pub branches: Vec<String>,
    #[serde(rename = "thoughtHistoryLength")]
    pub thought_history_length: i64,
    /// The audit session when an audit ran, else the thinking session (pass it back
    /// as `loopId` to continue this session explicitly).
    #[serde(rename = "sessionId")]
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gan: Option<GanReview>,
    /// Why a thought that asked for an audit got none.
    #[serde(rename = "auditSkipped", skip_serializing_if = "Option::is_none")]
    pub audit_skipped: Option<String>,
}

/// Validates the arguments the way the reference's zod schema does.
///
/// Errors: `invalid_argument` naming the field.
pub fn parse_input(args: &Map<String, Value>) -> Result<ThoughtInput, ToolError> {
    let get = |k: &str| args.get(k).filter(|v| !v.is_null());
    let thought = match get("thought") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => return Err(bad("thought", "a string", v)),
        None => return Err(missing("thought")),
    };
    let required_bool = |k: &str| get(k).ok_or_else(|| missing(k)).and_then(|v| boolean(k, v));
    let required_int = |k: &str| get(k).ok_or_else(|| missing(k)).and_then(|v| integer(k, v));
    let optional_bool = |k: &str| get(k).map(|v| boolean(k, v)).transpose();
    let optional_int = |k: &str| get(k).map(|v| integer(k, v)).transpose();
    let optional_str = |k: &str| match get(k) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(bad(k, "a string", v)),
    };
    Ok(ThoughtInput {
        next_thought_needed: required_bool("nextThoughtNeeded")?,
        thought_number: required_int("thoughtNumber")?,
        total_thoughts: required_int("totalThoughts")?,
        is_revision: optional_bool("isRevision")?,
        revises_thought: optional_int("revisesThought")?,
        branch_from_thought: optional_int("branchFromThought")?,
        branch_id: optional_str("branchId")?,
        needs_more_thoughts: optional_bool("needsMoreThoughts")?,
        loop_id: optional_str("loopId")?.filter(|s| !s.trim().is_empty()),
        thought,
    })
}

fn missing(k: &str) -> ToolError {
    ToolError::InvalidArgument(format!("{k} is required"))
}

fn bad(k: &str, want: &str, got: &Value) -> ToolError {
    let mut shown = got.to_string();
    if shown.len() > 60 {
        shown = format!("{}…", shown.chars().take(60).collect::<String>());
    }
    ToolError::InvalidArgument(format!("{k} must be {want}, got {shown}"))
}

/// `z.union([z.boolean(), z.string()])` with `"true"`/`"false"` in any case.
fn boolean(k: &str, v: &Value) -> Result<bool, ToolError> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Ok(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(bad(k, "a boolean or \"true\"/\"false\"", v)),
    }
}

/// `z.coerce.number().int().min(1)`: JavaScript's `Number(v)` (a trimmed decimal
/// string, `""` is 0, `true` is 1), then an integer of at least 1.
fn integer(k: &str, v: &Value) -> Result<i64, ToolError> {
    let x = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s.trim().is_empty() => Some(0.0),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    };
    match x {
        Some(x) if x.fract() == 0.0 && (1.0..=9_007_199_254_740_991.0).contains(&x) => Ok(x as i64),
        _ => Err(bad(k, "an integer of at least 1", v)),
    }
}

/// A new session id: `s-` and 16 hex digits of a blake3 hash of the time, the process
/// and a counter.
fn new_session_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut h = blake3::Hasher::new();
    h.update(&nanos.to_le_bytes());
    h.update(&std::process::id().to_le_bytes());
    h.update(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    format!("s-{}", &h.finalize().to_hex()[..16])
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Processes one thought: picks its session, audits it when it carries code, records
/// it, and answers like the reference (plus `sessionId` and `gan`).
///
/// `freshness`: the index is brought up to date before an audit unless it was checked
/// this recently.
///
/// Errors: `invalid_argument`; `judge_unavailable`/`judge_timeout`/
/// `judge_invalid_output`/`judge_failed` when every configured judge failed (the
/// thought is then not recorded, so it can be sent again with other judges);
/// `database_error`.
pub fn sequential_thinking(
    ws: &Workspace,
    input: ThoughtInput,
    freshness: Duration,
) -> Result<ThinkingResponse, ToolError> {
    let total_thoughts = input.total_thoughts.max(input.thought_number);
    let session_id = {
        let conn = ws.memory()?.conn()?;
        let starts_new = input.thought_number == 1
            && input.is_revision != Some(true)
            && input.branch_from_thought.is_none();
        match &input.loop_id {
            Some(id) => id.clone(),
            None if starts_new => new_session_id(),
            None => rows::latest_session(&conn)?.unwrap_or_else(new_session_id),
        }
    };

    let mut prepared = None;
    let mut audit_skipped = None;
    if audit::triggers(&input.thought) {
        let audit_id = input
            .branch_id
            .clone()
            .filter(|b| !b.is_empty())
            .unwrap_or_else(|| session_id.clone());
        let index_note = ws
            .refresh_within(freshness)
            .err()
            .map(|e| format!("the index could not be brought up to date ({e}); names and central files may be stale"));
        match audit::prepare(ws, &audit_id, &input.thought)? {
            Ok(mut p) => {
                if let Some(n) = index_note {
                    p.notes.insert(0, n);
                }
                prepared = Some(p);
            }
            Err(NotAudited::NothingToJudge(why)) => audit_skipped = Some(why),
            Err(NotAudited::JudgesFailed(e)) => return Err(ToolError::Judge(e)),
        }
    }

    let mut conn = ws.memory()?.conn()?;
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(MemoryError::from)?;
    let created_at = now();
    let mut next_thought_needed = input.next_thought_needed;
    let mut gan = None;
    let mut audit_iteration = None;
    if let Some(p) = &prepared {
        if let Some(aside) = &p.rename_corrupt_to {
            rows::rename_audit_session(&tx, &p.session_id, aside)?;
        }
        let iteration = rows::last_iteration(&tx, &p.session_id)? + 1;
        let (review, force) = audit::finish(p, iteration.clamp(1, i64::from(u32::MAX)) as u32);
        if force {
            next_thought_needed = true;
        }
        let review_json =
            serde_json::to_string(&review).map_err(|e| ToolError::Internal(e.to_string()))?;
        let config_json =
            serde_json::to_string(&p.config).map_err(|e| ToolError::Internal(e.to_string()))?;
        rows::record_review(
            &tx,
            &rows::ReviewRecord {
                session_id: &p.session_id,
                iteration,
                thought_number: input.thought_number,
                candidate: &p.candidate_text,
                overall: i64::from(review.overall),
                verdict: review.verdict.name(),
                review: &review_json,
                config: &config_json,
                created_at: &created_at,
            },
        )?;
        audit_iteration = Some(iteration);
        gan = Some(fit_review(review, REVIEW_BUDGET, &p.session_id, iteration));
    }
    rows::insert_thought(
        &tx,
        &ThoughtRecord {
            session_id: &session_id,
            thought: &input.thought,
            thought_number: input.thought_number,
            total_thoughts,
            next_thought_needed,
            is_revision: input.is_revision,
            revises_thought: input.revises_thought,
            branch_from_thought: input.branch_from_thought,
            branch_id: input.branch_id.as_deref(),
            needs_more_thoughts: input.needs_more_thoughts,
            audit_session_id: prepared.as_ref().map(|p| p.session_id.as_str()),
            audit_iteration,
            created_at: &created_at,
        },
    )?;
    let state = rows::session_state(&tx, &session_id)?;
    tx.commit().map_err(MemoryError::from)?;

    Ok(ThinkingResponse {
        thought_number: input.thought_number,
        total_thoughts,
        next_thought_needed,
        branches: state.branches,
        thought_history_length: state.history_length,
        session_id: prepared.map(|p| p.session_id).unwrap_or(session_id),
        gan,
        audit_skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<ThoughtInput, ToolError> {
        parse_input(v.as_object().unwrap())
    }

    #[test]
    fn coerces_like_the_reference() {
        let t = parse(
            json!({"thought": "x", "nextThoughtNeeded": "TRUE", "thoughtNumber": "3",
            "totalThoughts": 2.0, "isRevision": "false", "revisesThought": " 2 ", "branchId": null,
            "unknown": 1}),
        )
        .unwrap();
        assert!(t.next_thought_needed);
        assert_eq!((t.thought_number, t.total_thoughts), (3, 2));
        assert_eq!(t.is_revision, Some(false));
        assert_eq!(t.revises_thought, Some(2));
        assert_eq!(t.branch_id, None);
    }

    #[test]
    fn rejects_what_the_reference_rejects() {
        let base = json!({"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": 1, "totalThoughts": 1});
        for (k, v) in [
            ("thoughtNumber", json!(0)),
            ("thoughtNumber", json!(1.5)),
            ("thoughtNumber", json!("abc")),
            ("thoughtNumber", json!("")),
            ("totalThoughts", json!([1])),
            ("nextThoughtNeeded", json!("yes")),
            ("nextThoughtNeeded", json!(1)),
            ("thought", json!(5)),
            ("branchId", json!(3)),
        ] {
            let mut a = base.clone();
            a[k] = v.clone();
            let e = parse(a).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("invalid_argument: {k} ")),
                "{k}={v}: {e}"
            );
        }
        let mut a = base.clone();
        a.as_object_mut().unwrap().remove("totalThoughts");
        assert_eq!(
            parse(a).unwrap_err().to_string(),
            "invalid_argument: totalThoughts is required"
        );
    }

    #[test]
    fn session_ids_differ() {
        let a = new_session_id();
        let b = new_session_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 18);
    }

    #[test]
    fn a_long_review_is_cut_most_severe_first_and_says_where_the_rest_is() {
        use crate::audit::review::{InlineComment, ReviewBody, Verdict};
        let inline: Vec<InlineComment> = (0..3000)
            .map(|i| InlineComment {
                path: "candidate.py".into(),
                line: i + 1,
                comment: format!(
                    "{} safety: line {i} does something the rubric dislikes at length",
                    if i % 3 == 0 { "blocker" } else { "minor" }
                ),
            })
            .collect();
        let review = GanReview {
            overall: 40,
            dimensions: vec![],
            verdict: Verdict::Reject,
            review: ReviewBody {
                summary: "s".into(),
                inline,
                citations: (0..3000).map(|i| format!("repo://a.py:{i}-{i}")).collect(),
            },
            proposed_diff: None,
            iterations: 1,
            judge_cards: vec![],
            progression: vec![40],
            notes: vec![],
        };
        let cut = fit_review(review.clone(), 6000, "s-1", 1);
        let json = serde_json::to_string(&cut).unwrap();
        assert!(crate::tools::symbol_summary::count_tokens(&json) <= 6000);
        let kept = &cut.review.inline;
        assert!(!kept.is_empty() && kept.len() < 1000, "{}", kept.len());
        assert!(kept.iter().all(|c| c.comment.starts_with("blocker")));
        assert!(kept.windows(2).all(|w| w[0].line < w[1].line));
        let note = cut.notes.last().unwrap();
        assert!(
            note.contains(&format!("{} of 3000 inline comments", kept.len())),
            "{note}"
        );
        assert!(note.contains("memory.audit_history WHERE session_id = 's-1' AND iteration = 1"));
        // A short review is left alone.
        let mut short = review;
        short.review.inline.truncate(3);
        short.review.citations.truncate(3);
        assert_eq!(fit_review(short.clone(), 6000, "s-1", 1), short);
    }
}
