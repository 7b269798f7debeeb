//! `inspect_source`: numbered lines of a file in the workspace, so the host
//! model can read a function without the whole file. Reads the disk, not the index.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tools::sandbox;
use crate::tools::ToolError;

/// At most this many lines per call; a longer range is cut and says so.
pub const MAX_LINES: usize = 500;
/// Default token budget (cl100k_base) of an `inspect_source` answer.
pub const DEFAULT_BUDGET: usize = 4_000;
pub use crate::tools::MAX_BUDGET;

/// Arguments of `inspect_source`. Lines are 1-indexed and inclusive.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InspectArgs {
    /// File path relative to the workspace root.
    pub path: String,
    /// First line, 1-indexed (also `start_line`).
    #[serde(rename = "startLine", alias = "start_line")]
    pub start_line: i64,
    /// Last line, inclusive (also `end_line`).
    #[serde(rename = "endLine", alias = "end_line")]
    pub end_line: i64,
    /// Default 4000, at most 20000.
    #[serde(default)]
    pub budget_tokens: Option<usize>,
    /// Workspace root; the server's when absent.
    #[serde(default, rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// The answer of `inspect_source`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InspectResponse {
    /// Root-relative path of the file read.
    pub path: String,
    /// First line returned.
    pub start_line: usize,
    /// Last line returned (after cutting to the file's end and to [`MAX_LINES`]).
    pub end_line: usize,
    /// Lines in the file.
    pub total_lines: usize,
    /// True when the range was cut, to [`MAX_LINES`] lines or to the token budget.
    pub truncated: bool,
    /// Where the cut was and how to read on, when `truncated`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The lines, each as `NUMBER | text`, numbers right-aligned.
    pub content: String,
}

/// Reads lines `start_line..=end_line` of `path` in the workspace at `root`.
///
/// Errors: `outside_workspace`, `not_found` (see [`sandbox::resolve`], [`sandbox::read_file`]);
/// `invalid_argument` for a directory, a start below 1, an end before the start, or a
/// start past the last line; `unsupported_file` for a binary file; `io_error`.
pub fn inspect_source(
    root: &std::path::Path,
    args: &InspectArgs,
) -> Result<InspectResponse, ToolError> {
    let p = sandbox::resolve(root, &args.path)?;
    if p.is_dir {
        return Err(ToolError::InvalidArgument(format!(
            "path: {} is a directory; give a file (folder_info describes directories)",
            p.rel
        )));
    }
    if args.start_line < 1 {
        return Err(ToolError::InvalidArgument(format!(
            "startLine is 1-indexed, got {}",
            args.start_line
        )));
    }
    if args.end_line < args.start_line {
        return Err(ToolError::InvalidArgument(format!(
            "endLine ({}) is before startLine ({})",
            args.end_line, args.start_line
        )));
    }
    let bytes = sandbox::read_file(root, &p, crate::walk::MAX_TOOL_READ)?;
    if crate::walk::looks_binary(&bytes) {
        return Err(ToolError::UnsupportedFile(format!(
            "{} is a binary file",
            p.rel
        )));
    }
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    let start = args.start_line as usize;
    if start > total.max(1) {
        return Err(ToolError::InvalidArgument(format!(
            "startLine {start} is past the end of {} ({total} lines)",
            p.rel
        )));
    }
    let budget = crate::tools::budget_tokens(args.budget_tokens, DEFAULT_BUDGET, 100)?;
    let wanted_end = (args.end_line as usize).min(total);
    let mut end = wanted_end.min(start + MAX_LINES - 1);
    let width = end.max(1).to_string().len();
    let mut content = String::new();
    // The other fields and a note take about this many tokens.
    let mut tokens = 100;
    for (i, line) in lines.iter().enumerate().take(end).skip(start - 1) {
        let numbered = format!("{:>width$} | {}\n", i + 1, line);
        // Counted as sent: inside a JSON string (`\n`, `\"` escaped).
        let t = crate::tools::symbol_summary::count_tokens(
            &serde_json::to_string(&numbered).unwrap_or_default(),
        );
        // The first line is always given, so a call always moves on.
        if tokens + t > budget && i + 1 > start {
            end = i;
            break;
        }
        tokens += t;
        content.push_str(&numbered);
    }
    let truncated = end < wanted_end;
    let note = truncated.then(|| {
        format!(
            "lines {start}-{end} of {wanted_end} asked (at most {MAX_LINES} per call, cut to \
             budget_tokens {budget}); continue with startLine {}",
            end + 1
        )
    });
    Ok(InspectResponse {
        path: p.rel,
        start_line: start,
        end_line: end.max(start.min(total)),
        total_lines: total,
        truncated,
        note,
        content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(path: &str, s: i64, e: i64) -> InspectArgs {
        InspectArgs {
            path: path.into(),
            start_line: s,
            end_line: e,
            budget_tokens: None,
            workspace_root: None,
        }
    }

    /// Long lines fill the token budget before 500 lines: the answer stops at a whole
    /// line, says where to continue, and always gives at least the first line.
    #[test]
    fn lines_are_cut_to_the_token_budget() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let long = "word ".repeat(100);
        let body: String = (1..=300).map(|i| format!("{i} {long}\n")).collect();
        std::fs::write(root.join("long.txt"), body).unwrap();
        let r = inspect_source(&root, &args("long.txt", 1, 300)).unwrap();
        assert!(r.truncated);
        assert!(r.end_line > 10 && r.end_line < 300, "{}", r.end_line);
        assert_eq!(r.content.lines().count(), r.end_line);
        let rendered = serde_json::to_string(&r).unwrap();
        assert!(crate::tools::symbol_summary::count_tokens(&rendered) <= DEFAULT_BUDGET);
        let note = r.note.unwrap();
        assert!(
            note.ends_with(&format!("startLine {}", r.end_line + 1)),
            "{note}"
        );
        let mut tiny = args("long.txt", 5, 300);
        tiny.budget_tokens = Some(100);
        let r = inspect_source(&root, &tiny).unwrap();
        assert_eq!((r.start_line, r.end_line, r.truncated), (5, 5, true));
    }

    #[test]
    fn numbered_capped_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let body: String = (1..=1200).map(|i| format!("line {i}\n")).collect();
        std::fs::write(root.join("big.txt"), body).unwrap();
        let r = inspect_source(&root, &args("big.txt", 9, 11)).unwrap();
        assert_eq!(r.content, " 9 | line 9\n10 | line 10\n11 | line 11\n");
        assert_eq!((r.start_line, r.end_line, r.total_lines), (9, 11, 1200));
        assert!(!r.truncated);
        let mut wide = args("big.txt", 1, 5000);
        wide.budget_tokens = Some(MAX_BUDGET);
        let r = inspect_source(&root, &wide).unwrap();
        assert_eq!((r.end_line, r.truncated), (MAX_LINES, true));
        assert_eq!(r.content.lines().count(), MAX_LINES);
        let r = inspect_source(&root, &args("big.txt", 1199, 5000)).unwrap();
        assert_eq!((r.end_line, r.truncated), (1200, false));
        for (s, e) in [(0, 3), (5, 4), (1201, 1300)] {
            let err = inspect_source(&root, &args("big.txt", s, e)).unwrap_err();
            assert_eq!(err.code(), "invalid_argument", "{s}-{e}");
        }
        std::fs::write(root.join("b.bin"), b"\x00\x01\x02").unwrap();
        assert_eq!(
            inspect_source(&root, &args("b.bin", 1, 1))
                .unwrap_err()
                .code(),
            "unsupported_file"
        );
        assert_eq!(
            inspect_source(&root, &args("../x", 1, 1))
                .unwrap_err()
                .code(),
            "outside_workspace"
        );
    }

    /// The race of a directory exchanged with a link to an outside directory holding a
    /// file of the same name (renameat2 RENAME_EXCHANGE in a loop), against 2,000 calls
    /// of the tool: each answers the inside file or refuses, never the outside one.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn a_directory_swapped_for_a_link_is_never_read_through() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(root.join("src/a.py"), "inside\n").unwrap();
        std::fs::write(base.join("outside/a.py"), "OUTSIDE\n").unwrap();
        std::os::unix::fs::symlink(base.join("outside"), root.join("swap")).unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let swapper =
            crate::walk::beneath::swap_until(&root.join("src"), &root.join("swap"), &stop);
        let mut codes = std::collections::BTreeMap::new();
        let mut outside = 0;
        for _ in 0..2000 {
            match inspect_source(&root, &args("src/a.py", 1, 1)) {
                Ok(r) if r.content == "1 | inside\n" => *codes.entry("ok").or_insert(0) += 1,
                Ok(_) => outside += 1,
                Err(e) => *codes.entry(e.code()).or_insert(0) += 1,
            }
        }
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();
        assert_eq!(outside, 0, "{codes:?}");
        // Refusals are outside_workspace (found through the link) and nothing else.
        assert!(
            codes
                .keys()
                .all(|k| *k == "ok" || *k == "outside_workspace"),
            "{codes:?}"
        );
    }
}
