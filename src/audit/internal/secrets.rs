//! Hard-coded secrets, found by line with regular expressions in any language
//! (parsed or not): credential literals and the key shapes of AWS, GitHub, OpenAI,
//! Slack and PEM. Apart from the tree walk because it needs no syntax tree.

use std::sync::OnceLock;

use regex::Regex;

use super::super::candidates::Unit;
use super::finding::{push_if_changed, Dimension, Finding, Severity};

/// The text-level checks (secrets, marker comments for unparsed languages).
fn secret_patterns() -> &'static [(Regex, &'static str)] {
    static P: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    P.get_or_init(|| {
        [
            (
                r#"(?i)\b(password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key|client[_-]?secret)\b["']?\s*[:=]\s*["'][^"'\s]{8,}["']"#,
                "a credential assigned a literal",
            ),
            (r"\bAKIA[0-9A-Z]{16}\b", "an AWS access key id"),
            (r"-----BEGIN [A-Z ]*PRIVATE KEY-----", "a PEM private key"),
            (r"\bsk-[A-Za-z0-9_-]{20,}", "an API secret key (sk-...)"),
            (r"\bgh[pousr]_[A-Za-z0-9]{30,}", "a GitHub token"),
            (r"\bxox[abprs]-[A-Za-z0-9-]{10,}", "a Slack token"),
        ]
        .into_iter()
        .filter_map(|(re, what)| Regex::new(re).ok().map(|r| (r, what)))
        .collect()
    })
}

/// Adds a blocker finding for each line of `unit` that holds a secret (the first
/// pattern that matches names it).
pub(super) fn scan(unit: &Unit, findings: &mut Vec<Finding>) {
    for (row, line) in unit.text.lines().enumerate() {
        for (re, what) in secret_patterns() {
            if re.is_match(line) {
                let l = unit.first_line + row as u32;
                push_if_changed(
                    findings,
                    unit,
                    Finding {
                        path: unit.path.clone(),
                        line: l,
                        end_line: l,
                        dimension: Dimension::Safety,
                        severity: Severity::Blocker,
                        message: format!(
                        "hard-coded secret ({what}): load it from the environment or a secret store"
                    ),
                    },
                );
                break;
            }
        }
    }
}
