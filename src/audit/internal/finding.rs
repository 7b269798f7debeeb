//! What a finding is (dimension, severity, lines, message) and whether it lands: a
//! finding outside a diff's changed lines is dropped. Kept apart so every check
//! builds its findings the same way.

use super::super::candidates::Unit;

/// A rubric dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dimension {
    Correctness,
    Completeness,
    Maintainability,
    Safety,
    Tests,
}

impl Dimension {
    /// The dimension's name in reviews (`correctness`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Correctness => "correctness",
            Dimension::Completeness => "completeness",
            Dimension::Maintainability => "maintainability",
            Dimension::Safety => "safety",
            Dimension::Tests => "tests",
        }
    }
}

/// How much a finding costs its dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Blocker,
    Major,
    Minor,
}

impl Severity {
    /// Points subtracted from the dimension's 100.
    pub fn penalty(self) -> u32 {
        match self {
            Severity::Blocker => 100,
            Severity::Major => 80,
            Severity::Minor => 20,
        }
    }

    /// The severity's name in comments (`blocker`, `major`, `minor`).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Blocker => "blocker",
            Severity::Major => "major",
            Severity::Minor => "minor",
        }
    }
}

/// One problem found, with the lines it spans (file numbering, inclusive).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finding {
    pub path: String,
    pub line: u32,
    pub end_line: u32,
    pub dimension: Dimension,
    pub severity: Severity,
    pub message: String,
}

impl Finding {
    /// The inline comment: `SEVERITY DIMENSION: MESSAGE`.
    pub fn comment(&self) -> String {
        format!(
            "{} {}: {}",
            self.severity.name(),
            self.dimension.name(),
            self.message
        )
    }
}

/// Adds `f` unless the unit is limited to changed lines that `f` does not touch.
pub(super) fn push_if_changed(out: &mut Vec<Finding>, unit: &Unit, f: Finding) {
    if touches_changed(unit, f.line, f.end_line) {
        out.push(f);
    }
}

pub(super) fn touches_changed(unit: &Unit, line: u32, end: u32) -> bool {
    match &unit.changed {
        None => true,
        Some(ranges) => ranges.iter().any(|&(a, b)| line <= b && end >= a),
    }
}

/// A `TODO`/`FIXME`/`XXX`/`HACK` comment at `line`: unfinished work (minor).
pub(super) fn marker_finding(unit: &Unit, line: u32, marker: &str) -> Finding {
    Finding {
        path: unit.path.clone(),
        line,
        end_line: line,
        dimension: Dimension::Completeness,
        severity: Severity::Minor,
        message: format!("`{marker}` comment: unfinished work"),
    }
}
