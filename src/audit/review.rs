//! The review an audit answers: `GanReview` (field names as the published format spells
//! them), what each judge contributes, and how several judges are combined.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The rubric's dimensions with their weights in the overall score (they sum to 1).
/// The internal judge scores all five; a codex answer's dimensions are merged by name.
pub const DIMENSIONS: [(&str, f64); 5] = [
    ("correctness", 0.30),
    ("completeness", 0.20),
    ("maintainability", 0.20),
    ("safety", 0.20),
    ("tests", 0.10),
];

/// `pass` | `revise` | `reject`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Revise,
    Reject,
}

impl Verdict {
    /// `reject` on a parse error or below 50, `pass` at or above the threshold, else
    /// `revise`.
    pub fn from_score(overall: u32, threshold: u32, parse_errors: bool) -> Verdict {
        if parse_errors || overall < 50 {
            Verdict::Reject
        } else if overall >= threshold {
            Verdict::Pass
        } else {
            Verdict::Revise
        }
    }

    /// The stored name.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Revise => "revise",
            Verdict::Reject => "reject",
        }
    }
}

/// One dimension's score, 0–100.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DimensionScore {
    pub name: String,
    pub score: u32,
}

/// One comment on one line of the candidate.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct InlineComment {
    /// Path of the candidate file (as named in the thought, or workspace-relative).
    pub path: String,
    /// 1-based line.
    pub line: u32,
    pub comment: String,
}

/// `review` of a `GanReview`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ReviewBody {
    /// What the judges found, for people: the verdict's reasons, then notes (config
    /// fallbacks, stagnation, judges that failed).
    pub summary: String,
    /// Comments on lines, sorted by path and line.
    pub inline: Vec<InlineComment>,
    /// Code the review rests on, as `repo://path:start-end` (1-based, inclusive).
    pub citations: Vec<String>,
}

/// What one judge said about the candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JudgeCard {
    /// `internal` or `codex`.
    pub model: String,
    /// The judge's overall score, 0–100; `null` when the judge failed (then `notes`
    /// starts with the error code: `judge_unavailable`, `judge_timeout`,
    /// `judge_invalid_output`, `judge_failed`).
    pub score: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// `GanReview`, plus `progression` and `notes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GanReview {
    /// Combined score, 0–100: the mean of the answering judges' overall scores.
    pub overall: u32,
    /// Per dimension, the mean over the judges that scored it, in rubric order.
    pub dimensions: Vec<DimensionScore>,
    pub verdict: Verdict,
    pub review: ReviewBody,
    /// A diff a judge proposed (codex may), else `null`.
    pub proposed_diff: Option<String>,
    /// This review's iteration in its audit session (1 for the first).
    pub iterations: u32,
    /// One card per configured judge, in config order.
    pub judge_cards: Vec<JudgeCard>,
    /// Overall scores of the session's reviews so far, this one last.
    pub progression: Vec<u32>,
    /// Everything the caller should know beyond the scores: config fallbacks,
    /// the context pack's scope and size, stagnation, cycles spent, judge failures.
    pub notes: Vec<String>,
}

/// One judge's answer before combination.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeOutput {
    pub overall: u32,
    pub dimensions: Vec<DimensionScore>,
    pub inline: Vec<InlineComment>,
    pub citations: Vec<String>,
    pub summary: String,
    pub proposed_diff: Option<String>,
    /// True when the candidate did not parse (forces `reject`).
    pub parse_errors: bool,
}

/// The weighted mean of `dimensions` over [`DIMENSIONS`] (dimensions it lacks are
/// left out and the remaining weights renormalized), rounded half up.
pub fn weighted_overall(dimensions: &[DimensionScore]) -> u32 {
    let (mut sum, mut weights) = (0.0, 0.0);
    for (name, w) in DIMENSIONS {
        if let Some(d) = dimensions.iter().find(|d| d.name == name) {
            sum += w * f64::from(d.score.min(100));
            weights += w;
        }
    }
    if weights == 0.0 {
        return 0;
    }
    (sum / weights + 0.5).floor().clamp(0.0, 100.0) as u32
}

/// Combines the answering judges: overall = mean of their overall scores (rounded
/// half up), dimensions = per-name means in rubric order (then any other names in
/// first-seen order), comments and citations = sorted union, `proposed_diff` = the
/// first judge's that has one. `None` when no judge answered.
pub fn combine(outputs: &[&JudgeOutput]) -> Option<JudgeOutput> {
    if outputs.is_empty() {
        return None;
    }
    let mean = |xs: &[u32]| -> u32 {
        let s: u32 = xs.iter().sum();
        ((f64::from(s) / xs.len() as f64) + 0.5).floor() as u32
    };
    let overall = mean(&outputs.iter().map(|o| o.overall).collect::<Vec<_>>());
    let mut names: Vec<String> = DIMENSIONS.iter().map(|(n, _)| n.to_string()).collect();
    for o in outputs {
        for d in &o.dimensions {
            if !names.contains(&d.name) {
                names.push(d.name.clone());
            }
        }
    }
    let dimensions = names
        .into_iter()
        .filter_map(|name| {
            let scores: Vec<u32> = outputs
                .iter()
                .filter_map(|o| o.dimensions.iter().find(|d| d.name == name))
                .map(|d| d.score)
                .collect();
            (!scores.is_empty()).then(|| DimensionScore {
                score: mean(&scores),
                name,
            })
        })
        .collect();
    let mut inline: Vec<InlineComment> = outputs.iter().flat_map(|o| o.inline.clone()).collect();
    inline.sort();
    inline.dedup();
    let mut citations: Vec<String> = outputs.iter().flat_map(|o| o.citations.clone()).collect();
    citations.sort();
    citations.dedup();
    let summary = outputs
        .iter()
        .map(|o| o.summary.as_str())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    Some(JudgeOutput {
        overall,
        dimensions,
        inline,
        citations,
        summary,
        proposed_diff: outputs.iter().find_map(|o| o.proposed_diff.clone()),
        parse_errors: outputs.iter().any(|o| o.parse_errors),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(scores: [u32; 5]) -> Vec<DimensionScore> {
        DIMENSIONS
            .iter()
            .zip(scores)
            .map(|((n, _), s)| DimensionScore {
                name: n.to_string(),
                score: s,
            })
            .collect()
    }

    #[test]
    fn weighted_mean_by_hand() {
        // 0.3*100 + 0.2*20 + 0.2*100 + 0.2*100 + 0.1*100 = 84
        assert_eq!(weighted_overall(&dims([100, 20, 100, 100, 100])), 84);
        // 0.3*0 + 0.2*100*3 + 0.1*20 = 62
        assert_eq!(weighted_overall(&dims([0, 100, 100, 100, 20])), 62);
        assert_eq!(weighted_overall(&[]), 0);
    }

    #[test]
    fn verdict_rules() {
        assert_eq!(Verdict::from_score(85, 85, false), Verdict::Pass);
        assert_eq!(Verdict::from_score(84, 85, false), Verdict::Revise);
        assert_eq!(Verdict::from_score(49, 85, false), Verdict::Reject);
        assert_eq!(Verdict::from_score(99, 85, true), Verdict::Reject);
        assert_eq!(Verdict::from_score(40, 30, false), Verdict::Reject);
    }

    #[test]
    fn combining_two_judges_averages() {
        let a = JudgeOutput {
            overall: 90,
            dimensions: dims([100, 100, 80, 100, 60]),
            inline: vec![],
            citations: vec!["repo://a.rs:1-2".into()],
            summary: "a".into(),
            proposed_diff: None,
            parse_errors: false,
        };
        let mut b = a.clone();
        b.overall = 71;
        b.dimensions = vec![DimensionScore {
            name: "style".into(),
            score: 50,
        }];
        b.proposed_diff = Some("--- a".into());
        let c = combine(&[&a, &b]).unwrap();
        assert_eq!(c.overall, 81); // (90 + 71) / 2 = 80.5, half up
        assert_eq!(c.dimensions.len(), 6);
        assert_eq!(c.dimensions[5].name, "style");
        assert_eq!(c.proposed_diff.as_deref(), Some("--- a"));
        assert_eq!(c.summary, "a a");
        assert!(combine(&[]).is_none());
    }
}
