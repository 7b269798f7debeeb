//! What an audit judges: the candidates a thought carries (fenced code blocks and
//! unified diffs), or, when it carries none, the code its scope names.
//!
//! A candidate is one code block or one diff; it is made of units, each one file's
//! worth of code with its path, language, first line number and (for diffs) the lines
//! the change touched. Reads files only inside the workspace root.

use std::path::Path;

use crate::lang::Language;

/// One file's worth of code to judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Workspace-relative path, or the name the thought gave the block
    /// (`candidate-N.EXT` when it gave none).
    pub path: String,
    /// `None` for languages Constellation does not parse (text checks only).
    pub language: Option<Language>,
    pub text: String,
    /// Line number of the text's first line in the file (1 for whole files).
    pub first_line: u32,
    /// Lines (inclusive ranges, file numbering) a diff added or changed; `None` when
    /// the whole unit is new code. Findings outside these ranges are not reported.
    pub changed: Option<Vec<(u32, u32)>>,
    /// A piece of a file (a diff hunk not found applied in the workspace): it cannot be
    /// expected to parse, so parse errors are not reported.
    pub fragment: bool,
}

/// One candidate: a code block, a diff, or the code the scope names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// For people: `code block 2`, `diff 1`, `workspace diff`, `paths`.
    pub label: String,
    pub units: Vec<Unit>,
}

impl Candidate {
    /// The candidate as one text (stored in `audit_history.candidate`, compared for
    /// stagnation, shown to the codex judge).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for u in &self.units {
            if self.units.len() > 1 || u.first_line != 1 {
                out.push_str(&format!("=== {} (from line {})\n", u.path, u.first_line));
            }
            out.push_str(&u.text);
            if !u.text.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }
}

/// A fenced code block (```` ``` ```` or `~~~`, CommonMark rules: the closing fence
/// uses the same character, at least as long; an unclosed block runs to the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FencedBlock {
    /// The info string after the opening fence, trimmed.
    pub info: String,
    pub body: String,
    /// 0-based line indices of the opening and closing fence lines in the thought.
    pub open_line: usize,
    pub close_line: usize,
}

/// Every fenced block of `text`, in order.
pub fn fenced_blocks(text: &str) -> Vec<FencedBlock> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some((ch, len, info)) = fence(lines[i]) else {
            i += 1;
            continue;
        };
        let open = i;
        let mut body = Vec::new();
        i += 1;
        let mut close = lines.len();
        while i < lines.len() {
            if let Some((c2, l2, rest)) = fence(lines[i]) {
                if c2 == ch && l2 >= len && rest.is_empty() {
                    close = i;
                    break;
                }
            }
            body.push(lines[i]);
            i += 1;
        }
        let mut body = body.join("\n");
        if !body.is_empty() {
            body.push('\n');
        }
        out.push(FencedBlock {
            info: info.to_string(),
            body,
            open_line: open,
            close_line: close,
        });
        i = close + 1;
    }
    out
}

/// An opening/closing fence: (character, length, info string).
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let ch = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|c| *c == ch).count();
    if len < 3 {
        return None;
    }
    let info = trimmed[len..].trim();
    if ch == '`' && info.contains('`') {
        return None;
    }
    Some((ch, len, info))
}

/// True when the thought asks for an audit: it has a fenced code block (any but an
/// empty one), a unified diff, or a `gan-config` block.
pub fn triggers_audit(thought: &str) -> bool {
    fenced_blocks(thought)
        .iter()
        .any(|b| !b.body.trim().is_empty() || b.info.starts_with("gan-config"))
        || raw_diff_regions(thought).next().is_some()
}

/// The language named by a fence's info word.
fn language_of_word(word: &str) -> Option<Language> {
    Some(match word.to_ascii_lowercase().as_str() {
        "rust" | "rs" => Language::Rust,
        "python" | "py" | "python3" | "py3" => Language::Python,
        "javascript" | "js" | "jsx" | "mjs" | "cjs" | "node" => Language::JavaScript,
        "typescript" | "ts" => Language::TypeScript,
        "tsx" => Language::Tsx,
        "go" | "golang" => Language::Go,
        "java" => Language::Java,
        "c" | "h" => Language::C,
        "cpp" | "c++" | "cc" | "cxx" | "hpp" | "hh" => Language::Cpp,
        _ => return None,
    })
}

fn extension_of(lang: Option<Language>) -> &'static str {
    match lang {
        Some(Language::Rust) => "rs",
        Some(Language::Python) => "py",
        Some(Language::JavaScript) => "js",
        Some(Language::TypeScript) => "ts",
        Some(Language::Tsx) => "tsx",
        Some(Language::Go) => "go",
        Some(Language::Java) => "java",
        Some(Language::C) => "c",
        Some(Language::Cpp) => "cpp",
        None => "txt",
    }
}

/// Splits an info string into (language word, path). Accepted forms: `rust`,
/// `rust src/a.rs`, `rust:src/a.rs`, `src/a.rs`, `rust title="src/a.rs"` (also
/// `path=`, `file=`).
fn parse_info(info: &str) -> (Option<String>, Option<String>) {
    let mut words = info.split_whitespace();
    let Some(first) = words.next() else {
        return (None, None);
    };
    let unquote = |s: &str| s.trim_matches(|c| c == '"' || c == '\'').to_string();
    let mut lang = None;
    let mut path = None;
    if let Some((l, p)) = first
        .split_once(':')
        .filter(|(l, _)| language_of_word(l).is_some())
    {
        lang = Some(l.to_string());
        path = Some(unquote(p));
    } else if first.contains('/') || (first.contains('.') && language_of_word(first).is_none()) {
        path = Some(unquote(first));
    } else {
        lang = Some(first.to_string());
    }
    for w in words {
        if let Some((k, v)) = w.split_once('=') {
            if matches!(k, "title" | "path" | "file" | "filename") {
                path = Some(unquote(v));
            }
        } else if path.is_none() && (w.contains('/') || w.contains('.')) {
            path = Some(unquote(w));
        }
    }
    (lang, path.filter(|p| !p.is_empty()))
}

/// The candidates of a thought, in order: fenced blocks (not `gan-config`) and
/// unified diffs (fenced as `diff`/`patch`, or written out in the text). Diff files
/// found applied in the workspace are judged whole, limited to the changed lines.
pub fn from_thought(thought: &str, root: &Path) -> Vec<Candidate> {
    let mut out: Vec<(usize, Candidate)> = Vec::new();
    let blocks = fenced_blocks(thought);
    let mut n_block = 0;
    let mut n_diff = 0;
    for b in &blocks {
        let (word, path) = parse_info(&b.info);
        let word = word.unwrap_or_default();
        if word == "gan-config" || b.body.trim().is_empty() {
            continue;
        }
        let is_diff = matches!(word.as_str(), "diff" | "patch")
            || (language_of_word(&word).is_none() && looks_like_diff(&b.body));
        if is_diff {
            n_diff += 1;
            let units = units_from_diff(&b.body, root);
            if !units.is_empty() {
                out.push((
                    b.open_line,
                    Candidate {
                        label: format!("diff {n_diff}"),
                        units,
                    },
                ));
            }
            continue;
        }
        n_block += 1;
        let language =
            language_of_word(&word).or_else(|| path.as_deref().and_then(Language::from_path));
        let path = path.unwrap_or_else(|| {
            if n_block == 1 {
                format!("candidate.{}", extension_of(language))
            } else {
                format!("candidate-{n_block}.{}", extension_of(language))
            }
        });
        out.push((
            b.open_line,
            Candidate {
                label: format!("code block {n_block}"),
                units: vec![Unit {
                    language,
                    path,
                    text: b.body.clone(),
                    first_line: 1,
                    changed: None,
                    fragment: false,
                }],
            },
        ));
    }
    // Diffs written outside any fence.
    let lines: Vec<&str> = thought.lines().collect();
    let inside_fence = |i: usize| blocks.iter().any(|b| i >= b.open_line && i <= b.close_line);
    for (start, end) in raw_diff_regions(thought) {
        if inside_fence(start) {
            continue;
        }
        n_diff += 1;
        let text = lines[start..end].join("\n") + "\n";
        let units = units_from_diff(&text, root);
        if !units.is_empty() {
            out.push((
                start,
                Candidate {
                    label: format!("diff {n_diff}"),
                    units,
                },
            ));
        }
    }
    out.sort_by_key(|(line, _)| *line);
    out.into_iter().map(|(_, c)| c).collect()
}

/// True when `text` has the `---`/`+++`/`@@` lines of a unified diff.
pub fn looks_like_diff(text: &str) -> bool {
    let mut minus = false;
    let mut plus = false;
    for l in text.lines() {
        if l.starts_with("--- ") {
            minus = true;
        } else if l.starts_with("+++ ") && minus {
            plus = true;
        } else if l.starts_with("@@ ") && plus {
            return true;
        }
    }
    false
}

/// Line ranges `[start, end)` of unified diffs written in the text (fenced or not; the
/// caller skips fenced ones).
fn raw_diff_regions(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let lines: Vec<&str> = text.lines().collect();
    let mut regions = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let starts = lines[i].starts_with("diff --git ")
            || (lines[i].starts_with("--- ")
                && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ ")));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < lines.len() && is_diff_line(lines[i]) {
            i += 1;
        }
        if looks_like_diff(&lines[start..i].join("\n")) {
            regions.push((start, i));
        }
    }
    regions.into_iter()
}

fn is_diff_line(l: &str) -> bool {
    l.is_empty()
        || [
            " ",
            "+",
            "-",
            "@@",
            "\\",
            "diff ",
            "index ",
            "new file",
            "deleted file",
            "similarity",
            "rename ",
            "old mode",
            "new mode",
            "Binary files",
        ]
        .iter()
        .any(|p| l.starts_with(p))
}

/// One file of a parsed unified diff: its new path and hunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffFile {
    /// The `+++` path without `b/`.
    pub path: String,
    pub hunks: Vec<Hunk>,
}

/// One hunk: where its new side starts, its new-side lines, the lines it added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub new_start: u32,
    /// Context and added lines, in order.
    pub new_lines: Vec<String>,
    /// New-side line numbers of the added lines.
    pub added: Vec<u32>,
}

/// Parses a unified diff (as `git diff` writes it). Deleted files are left out.
pub fn parse_unified_diff(text: &str) -> Vec<DiffFile> {
    let mut files: Vec<DiffFile> = Vec::new();
    let mut current: Option<DiffFile> = None;
    let mut line_no = 0u32;
    let mut in_hunk = false;
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("+++ ") {
            if let Some(f) = current.take() {
                files.push(f);
            }
            let p = rest.split('\t').next().unwrap_or("").trim();
            in_hunk = false;
            if p != "/dev/null" {
                let p = p.strip_prefix("b/").unwrap_or(p);
                current = Some(DiffFile {
                    path: p.to_string(),
                    hunks: Vec::new(),
                });
            }
            continue;
        }
        if l.starts_with("@@ ") {
            // @@ -a,b +c,d @@
            let new_start = l
                .split_whitespace()
                .find_map(|w| w.strip_prefix('+'))
                .and_then(|w| w.split(',').next())
                .and_then(|n| n.parse::<u32>().ok())
                .unwrap_or(1);
            if let Some(f) = current.as_mut() {
                f.hunks.push(Hunk {
                    new_start,
                    new_lines: Vec::new(),
                    added: Vec::new(),
                });
                line_no = new_start;
                in_hunk = true;
            }
            continue;
        }
        if l.starts_with("diff --git ") || l.starts_with("--- ") && !in_hunk {
            in_hunk = false;
            continue;
        }
        if !in_hunk {
            continue;
        }
        let Some(h) = current.as_mut().and_then(|f| f.hunks.last_mut()) else {
            continue;
        };
        if let Some(added) = l.strip_prefix('+') {
            h.new_lines.push(added.to_string());
            h.added.push(line_no);
            line_no += 1;
        } else if let Some(ctx) = l.strip_prefix(' ') {
            h.new_lines.push(ctx.to_string());
            line_no += 1;
        } else if l.is_empty() {
            // Some tools strip the space of empty context lines.
            h.new_lines.push(String::new());
            line_no += 1;
        }
        // '-' (removed) and '\' (no newline) lines do not exist on the new side.
    }
    if let Some(f) = current.take() {
        files.push(f);
    }
    files.retain(|f| !f.hunks.is_empty());
    files
}

/// Merges sorted line numbers into inclusive ranges.
pub fn ranges(lines: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    let mut sorted = lines.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    for l in sorted {
        match out.last_mut() {
            Some((_, end)) if *end + 1 == l => *end = l,
            _ => out.push((l, l)),
        }
    }
    out
}

/// The units of a diff: each file found applied in the workspace is judged whole
/// (limited to its added lines); otherwise each hunk's new side is a fragment.
pub fn units_from_diff(diff: &str, root: &Path) -> Vec<Unit> {
    let mut units = Vec::new();
    for f in parse_unified_diff(diff) {
        let language = Language::from_path(&f.path);
        let added: Vec<u32> = f.hunks.iter().flat_map(|h| h.added.clone()).collect();
        if added.is_empty() {
            continue;
        }
        let applied = super::read_inside(root, &f.path).filter(|text| {
            let file_lines: Vec<&str> = text.lines().collect();
            f.hunks.iter().all(|h| {
                let start = h.new_start.max(1) as usize - 1;
                h.new_lines
                    .iter()
                    .enumerate()
                    .all(|(k, l)| file_lines.get(start + k) == Some(&l.as_str()))
            })
        });
        match applied {
            Some(text) => units.push(Unit {
                path: f.path.clone(),
                language,
                text,
                first_line: 1,
                changed: Some(ranges(&added)),
                fragment: false,
            }),
            None => {
                for h in &f.hunks {
                    if h.added.is_empty() {
                        continue;
                    }
                    units.push(Unit {
                        path: f.path.clone(),
                        language,
                        text: h.new_lines.join("\n") + "\n",
                        first_line: h.new_start.max(1),
                        changed: Some(ranges(&h.added)),
                        fragment: true,
                    });
                }
            }
        }
    }
    units
}

/// Whole files as one candidate (paths already checked to be inside the workspace).
pub fn from_files(label: &str, root: &Path, paths: &[String]) -> Option<Candidate> {
    let units: Vec<Unit> = paths
        .iter()
        .filter_map(|p| {
            super::read_inside(root, p).map(|text| Unit {
                path: p.clone(),
                language: Language::from_path(p),
                text,
                first_line: 1,
                changed: None,
                fragment: false,
            })
        })
        .collect();
    (!units.is_empty()).then(|| Candidate {
        label: label.to_string(),
        units,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_info_strings() {
        let t = "a\n```rust src/x.rs\nfn f() {}\n```\n~~~~\nx\n~~~\n~~~~\n```gan-config\n{}\n```\n";
        let b = fenced_blocks(t);
        assert_eq!(b.len(), 3);
        assert_eq!(b[0].info, "rust src/x.rs");
        assert_eq!(b[0].body, "fn f() {}\n");
        assert_eq!(b[1].body, "x\n~~~\n");
        assert_eq!(b[2].info, "gan-config");
        assert_eq!(
            parse_info("rust:src/a.rs"),
            (Some("rust".into()), Some("src/a.rs".into()))
        );
        assert_eq!(parse_info("src/a.py"), (None, Some("src/a.py".into())));
        assert_eq!(
            parse_info("ts title=\"w/x.ts\""),
            (Some("ts".into()), Some("w/x.ts".into()))
        );
        assert_eq!(parse_info("python"), (Some("python".into()), None));
    }

    #[test]
    fn candidates_from_blocks_get_paths_and_languages() {
        let dir = tempfile::tempdir().unwrap();
        let t = "x\n```py\nprint(1)\n```\n```\nplain\n```\n```rust src/lib.rs\nfn f() {}\n```\n";
        let c = from_thought(t, dir.path());
        let paths: Vec<(&str, Option<Language>)> = c
            .iter()
            .map(|c| (c.units[0].path.as_str(), c.units[0].language))
            .collect();
        assert_eq!(
            paths,
            vec![
                ("candidate.py", Some(Language::Python)),
                ("candidate-2.txt", None),
                ("src/lib.rs", Some(Language::Rust)),
            ]
        );
        assert!(triggers_audit(t));
        assert!(!triggers_audit("no code here, just `inline` words"));
        assert!(triggers_audit("```gan-config\n{}\n```"));
    }

    #[test]
    fn diff_hunks_map_to_new_lines() {
        let d = "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,4 @@\n def f():\n-    return 1\n+    x = 2\n+    return x\n \n";
        let f = parse_unified_diff(d);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].path, "m.py");
        assert_eq!(f[0].hunks[0].added, vec![2, 3]);
        assert_eq!(
            f[0].hunks[0].new_lines,
            vec!["def f():", "    x = 2", "    return x", ""]
        );
        assert_eq!(ranges(&[5, 2, 3, 9]), vec![(2, 3), (5, 5), (9, 9)]);

        // Not applied in the workspace: hunks become fragments.
        let dir = tempfile::tempdir().unwrap();
        let u = units_from_diff(d, dir.path());
        assert_eq!(u.len(), 1);
        assert!(u[0].fragment);
        // Applied: the whole file, limited to the added lines.
        std::fs::write(
            dir.path().join("m.py"),
            "def f():\n    x = 2\n    return x\n\n",
        )
        .unwrap();
        let u = units_from_diff(d, dir.path());
        assert!(!u[0].fragment);
        assert_eq!(u[0].changed, Some(vec![(2, 3)]));
        // A diff written in the text without a fence is found too.
        let c = from_thought(&format!("Here is my change:\n{d}That's it."), dir.path());
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].label, "diff 1");
    }
}
