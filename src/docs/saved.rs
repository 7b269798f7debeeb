//! What the file and folder documentation tools share: where a document goes on disk,
//! how it is saved (atomically, inside the workspace, and in `file_docs` of the memory
//! database), how a saved document is judged stale, and small markdown helpers.
//!
//! Layout on disk (`.artifacts/src/<path>/<file_name>.md`):
//! - the doc of file `DIR/NAME` is `.artifacts/src/DIR/NAME.md` (the file name keeps
//!   its extension, so `a.ts` and `a.js` never share a doc); a file at the root goes to
//!   `.artifacts/src/NAME.md`;
//! - the doc of folder `DIR` is `.artifacts/src/DIR/README.md`, the root's is
//!   `.artifacts/src/README.md`.
//!
//! `.artifacts` starts with a dot, so the indexer's walk (which skips hidden entries)
//! never indexes the documents themselves.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::memory::doc_rows::{self, DocRow};
use crate::tools::sandbox;
use crate::tools::workspace::Workspace;
use crate::tools::ToolError;

/// The directory, relative to the workspace root, that documents are written under.
pub const ARTIFACTS_DIR: &str = ".artifacts/src";

/// A document saved earlier, as `file_info` / `folder_info` show it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ExistingDoc {
    /// True when the documented content changed since the doc was saved (the digest
    /// then and now differ).
    pub stale: bool,
    /// When it was saved (ISO-8601 UTC).
    pub saved_at: String,
    /// Where the markdown is, relative to the workspace root.
    pub artifact_path: String,
    /// The digest of the content when the doc was saved.
    pub saved_digest: String,
    /// The digest now.
    pub current_digest: String,
    /// The saved markdown.
    pub markdown: String,
}

/// The answer of `report_file_info` and `report_folder_info`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SavedDoc {
    /// Always `saved`.
    pub status: String,
    /// The documented path, relative to the workspace root.
    pub path: String,
    /// Where the markdown was written, relative to the workspace root.
    pub artifact_path: String,
    /// The same as an absolute path.
    pub artifact_absolute_path: String,
    /// The digest the document is tied to (the file's blake3, or the folder's).
    pub digest: String,
    /// When it was saved (ISO-8601 UTC).
    pub saved_at: String,
    /// Names listed in the structure that the report left undocumented (files: the
    /// functions, methods and classes; folders: the files).
    pub undocumented: Vec<String>,
    /// The markdown written (its first lines when cut to `budget_tokens`).
    pub markdown: String,
    /// What was cut to fit `budget_tokens`; absent when nothing was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Default `budget_tokens` of `report_file_info` and `report_folder_info`: the answer
/// mostly echoes what the client just sent.
pub const REPORT_BUDGET: usize = 2_000;
/// The smallest `budget_tokens` they accept: the paths, digest and note alone.
pub const REPORT_MIN_BUDGET: usize = 300;

/// `doc` cut to at most `budget` tokens (cl100k_base, of its JSON): first the markdown
/// echo loses its last lines (halving the count until it fits, down to none), then the
/// `undocumented` list its last names the same way; `note` then says how much of each is
/// shown and that the whole document is at `artifactPath`. Nothing that was saved is
/// cut: only the answer.
pub fn fit_saved(doc: SavedDoc, budget: usize) -> SavedDoc {
    let tokens = |d: &SavedDoc| {
        crate::tools::symbol_summary::count_tokens(&serde_json::to_string(d).unwrap_or_default())
    };
    if tokens(&doc) <= budget {
        return doc;
    }
    let lines: Vec<&str> = doc.markdown.lines().collect();
    let names = doc.undocumented.clone();
    let build = |keep_lines: usize, keep_names: usize| {
        let mut markdown: String = lines[..keep_lines].join("\n");
        if keep_lines > 0 {
            markdown.push('\n');
        }
        SavedDoc {
            markdown,
            undocumented: names[..keep_names].to_vec(),
            note: Some(format!(
                "cut to fit budget_tokens {budget}: markdown shows {keep_lines} of its {} lines \
                 and undocumented {keep_names} of {} names; the whole document is saved at \
                 artifactPath (file_info shows it again); a larger budget_tokens (at most {}) \
                 gives more",
                lines.len(),
                names.len(),
                crate::tools::MAX_BUDGET
            )),
            ..doc.clone()
        }
    };
    let (mut keep_lines, mut keep_names) = (lines.len(), names.len());
    loop {
        if keep_lines > 0 {
            keep_lines /= 2;
        } else if keep_names > 0 {
            keep_names /= 2;
        }
        let cut = build(keep_lines, keep_names);
        if tokens(&cut) <= budget || (keep_lines == 0 && keep_names == 0) {
            return cut;
        }
    }
}

/// `(directory, file name)` of the document of a file at `rel` (root-relative).
pub fn file_doc_location(rel: &str) -> (String, String) {
    let (dir, name) = match rel.rsplit_once('/') {
        Some((d, n)) => (format!("{ARTIFACTS_DIR}/{d}"), n.to_string()),
        None => (ARTIFACTS_DIR.to_string(), rel.to_string()),
    };
    (dir, format!("{name}.md"))
}

/// `(directory, file name)` of the document of the folder at `rel` (`.` for the root).
pub fn folder_doc_location(rel: &str) -> (String, String) {
    let dir = if rel == "." {
        ARTIFACTS_DIR.to_string()
    } else {
        format!("{ARTIFACTS_DIR}/{rel}")
    };
    (dir, "README.md".to_string())
}

/// The saved doc of `kind` at `rel`, judged against `current_digest`.
pub fn existing(
    ws: &Workspace,
    kind: &str,
    rel: &str,
    current_digest: &str,
) -> Result<Option<ExistingDoc>, ToolError> {
    let conn = ws.memory()?.conn()?;
    Ok(doc_rows::get_doc(&conn, kind, rel)?.map(|d| ExistingDoc {
        stale: d.digest != current_digest,
        saved_at: d.saved_at,
        artifact_path: d.artifact_path,
        saved_digest: d.digest,
        current_digest: current_digest.to_string(),
        markdown: d.markdown,
    }))
}

/// Writes `markdown` to its place under `.artifacts/src` atomically and records it in
/// `file_docs`. The directory is created inside the root only (a link leading out is
/// refused, see [`sandbox::create_dir_inside`]).
///
/// Errors: `outside_workspace`, `io_error`, `database_error`.
#[allow(clippy::too_many_arguments)]
pub fn save(
    ws: &Workspace,
    kind: &str,
    rel: &str,
    location: (String, String),
    digest: &str,
    markdown: String,
    report: &serde_json::Value,
    undocumented: Vec<String>,
) -> Result<SavedDoc, ToolError> {
    let (dir, name) = location;
    let abs_dir = sandbox::create_dir_inside(ws.root(), &dir)?;
    let target = sandbox::write_atomic(&abs_dir, &name, markdown.as_bytes())?;
    let saved_at = now();
    let artifact_path = format!("{dir}/{name}");
    let conn = ws.memory()?.conn()?;
    doc_rows::put_doc(
        &conn,
        &DocRow {
            kind: kind.into(),
            path: rel.into(),
            digest: digest.into(),
            markdown: markdown.clone(),
            report: report.to_string(),
            artifact_path: artifact_path.clone(),
            saved_at: saved_at.clone(),
        },
    )?;
    Ok(SavedDoc {
        status: "saved".into(),
        path: rel.into(),
        artifact_path,
        artifact_absolute_path: target.to_string_lossy().into_owned(),
        digest: digest.into(),
        saved_at,
        undocumented,
        markdown,
        note: None,
    })
}

/// The current time, ISO-8601 UTC with milliseconds.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A code fence longer than any run of backticks in `text`, so the text cannot close
/// it early.
pub fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// Inline code for `text` (backticks doubled around text that holds one).
pub fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// `text` cut to at most `max` bytes at a line boundary; returns the kept text and the
/// number of lines kept when it was cut.
pub fn cut_at_line(text: &str, max: usize) -> (&str, Option<usize>) {
    if text.len() <= max {
        return (text, None);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let kept = &text[..end];
    (kept, Some(kept.lines().count()))
}

/// A list of up to `max` items joined by `, `, with "and N more" after.
pub fn join_capped(items: &[String], max: usize) -> String {
    let mut s = items
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        s.push_str(&format!(" and {} more", items.len() - max));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_follow_the_seed() {
        assert_eq!(
            file_doc_location("src/graph/builder.ts"),
            (".artifacts/src/src/graph".into(), "builder.ts.md".into())
        );
        assert_eq!(
            file_doc_location("main.py"),
            (".artifacts/src".into(), "main.py.md".into())
        );
        assert_eq!(
            folder_doc_location("src/graph"),
            (".artifacts/src/src/graph".into(), "README.md".into())
        );
        assert_eq!(
            folder_doc_location("."),
            (".artifacts/src".into(), "README.md".into())
        );
    }

    #[test]
    fn markdown_helpers() {
        assert_eq!(fence_for("a ``` b"), "````");
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(cut_at_line("ab\ncd\nef\n", 7), ("ab\ncd\n", Some(2)));
        assert_eq!(cut_at_line("ab\n", 7), ("ab\n", None));
        assert_eq!(cut_at_line("héllo\nx", 2), ("", Some(0)));
        let items: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(join_capped(&items, 2), "a, b and 1 more");
    }
}
