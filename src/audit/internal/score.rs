//! Findings to a judge output: the per-dimension scores (100 minus the penalties,
//! floored at 0), the weighted overall, inline comments and citations. Pure
//! arithmetic, apart from the checks so the rubric's numbers live in one place.

use std::collections::BTreeSet;

use super::super::review::{
    weighted_overall, DimensionScore, InlineComment, JudgeOutput, DIMENSIONS,
};
use super::finding::{Dimension, Finding, Severity};

/// Scores the findings into a judge output.
pub(super) fn score(label: &str, findings: Vec<Finding>) -> JudgeOutput {
    let dimensions: Vec<DimensionScore> = DIMENSIONS
        .iter()
        .map(|(name, _)| {
            let lost: u32 = findings
                .iter()
                .filter(|f| f.dimension.name() == *name)
                .map(|f| f.severity.penalty())
                .sum();
            DimensionScore {
                name: name.to_string(),
                score: 100u32.saturating_sub(lost),
            }
        })
        .collect();
    let overall = weighted_overall(&dimensions);
    let parse_errors = findings
        .iter()
        .any(|f| f.dimension == Dimension::Correctness && f.severity == Severity::Blocker);
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let summary = format!(
        "internal rubric on {label}: {overall}/100 ({}); {} findings: {} blocker, {} major, {} minor.",
        dimensions
            .iter()
            .map(|d| format!("{} {}", d.name, d.score))
            .collect::<Vec<_>>()
            .join(", "),
        findings.len(),
        count(Severity::Blocker),
        count(Severity::Major),
        count(Severity::Minor),
    );
    let inline = findings
        .iter()
        .map(|f| InlineComment {
            path: f.path.clone(),
            line: f.line,
            comment: f.comment(),
        })
        .collect();
    let citations: BTreeSet<String> = findings
        .iter()
        .map(|f| format!("repo://{}:{}-{}", f.path, f.line, f.end_line))
        .collect();
    JudgeOutput {
        overall,
        dimensions,
        inline,
        citations: citations.into_iter().collect(),
        summary,
        proposed_diff: None,
        parse_errors,
    }
}
