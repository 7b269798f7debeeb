//! Reading `git diff -U0` output: which lines of which files a change touches, on the
//! old side and on the new side. Pure text processing, no git.
//!
//! Hunk headers are `@@ -OLD_START[,OLD_COUNT] +NEW_START[,NEW_COUNT] @@`; a missing
//! count is 1, a count of 0 means that side has no lines (a pure insertion or
//! deletion, placed after line START). Renames are not followed (the caller asks git
//! for `--no-renames`), so a moved file is a deletion and an addition.

/// A changed file, with its changed line ranges (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileDiff {
    /// The path before the change; `None` for an added file.
    pub old_path: Option<String>,
    /// The path after the change; `None` for a deleted file.
    pub new_path: Option<String>,
    /// Lines of the old file removed or replaced.
    pub old_ranges: Vec<(u32, u32)>,
    /// Lines of the new file added or replacing others.
    pub new_ranges: Vec<(u32, u32)>,
    /// Points of the new file after which lines were only deleted (the line number
    /// before the gap; 0 at the top).
    pub deletion_points: Vec<u32>,
    /// Binary or mode-only change: no hunks to read.
    pub binary: bool,
}

impl FileDiff {
    /// The path of the file as it is now, or as it was when deleted.
    pub fn path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .unwrap_or("")
    }
}

/// `a/x`, `b/x` or `/dev/null` from a `---`/`+++` line (tab-separated suffixes cut).
fn side_path(rest: &str) -> Option<String> {
    let rest = rest.split('\t').next().unwrap_or(rest).trim_end();
    if rest == "/dev/null" {
        return None;
    }
    Some(
        rest.strip_prefix("a/")
            .or_else(|| rest.strip_prefix("b/"))
            .unwrap_or(rest)
            .to_string(),
    )
}

/// `START[,COUNT]` of one side of a hunk header.
fn side_range(s: &str) -> Option<(u32, u32)> {
    let (start, count) = match s.split_once(',') {
        Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
        None => (s.parse().ok()?, 1),
    };
    Some((start, count))
}

/// The files and changed ranges of a unified diff (any context width; with `-U0` the
/// ranges are exactly the changed lines). Lines it does not understand are skipped.
pub fn parse(diff: &str) -> Vec<FileDiff> {
    let mut files: Vec<FileDiff> = Vec::new();
    for line in diff.lines() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            // Paths come from the ---/+++ lines; keep the header's b/ path for hunkless
            // changes (binary, mode).
            let b = rest.rsplit_once(" b/").map(|(_, b)| b.to_string());
            files.push(FileDiff {
                old_path: b.clone(),
                new_path: b,
                ..FileDiff::default()
            });
        } else if let Some(rest) = line.strip_prefix("--- ") {
            if let Some(f) = files.last_mut() {
                f.old_path = side_path(rest);
            }
        } else if let Some(rest) = line.strip_prefix("+++ ") {
            if let Some(f) = files.last_mut() {
                f.new_path = side_path(rest);
            }
        } else if line.starts_with("new file mode") {
            if let Some(f) = files.last_mut() {
                f.old_path = None;
            }
        } else if line.starts_with("deleted file mode") {
            if let Some(f) = files.last_mut() {
                f.new_path = None;
            }
        } else if line.starts_with("Binary files ") {
            if let Some(f) = files.last_mut() {
                f.binary = true;
            }
        } else if let Some(rest) = line.strip_prefix("@@ ") {
            let Some(f) = files.last_mut() else { continue };
            let mut parts = rest.split_whitespace();
            let (Some(old), Some(new)) = (parts.next(), parts.next()) else {
                continue;
            };
            let (Some((os, oc)), Some((ns, nc))) = (
                old.strip_prefix('-').and_then(side_range),
                new.strip_prefix('+').and_then(side_range),
            ) else {
                continue;
            };
            if oc > 0 {
                f.old_ranges.push((os, os + oc - 1));
            }
            if nc > 0 {
                f.new_ranges.push((ns, ns + nc - 1));
            } else {
                f.deletion_points.push(ns);
            }
        }
    }
    files
}

/// Whether `[start, end]` meets any range.
pub fn overlaps(ranges: &[(u32, u32)], start: u32, end: u32) -> bool {
    ranges.iter().any(|&(a, b)| a <= end && start <= b)
}

/// Whether `[start, end]` lies inside one range.
pub fn inside(ranges: &[(u32, u32)], start: u32, end: u32) -> bool {
    ranges.iter().any(|&(a, b)| a <= start && end <= b)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "\
diff --git a/src/a.py b/src/a.py
index 1111111..2222222 100644
--- a/src/a.py
+++ b/src/a.py
@@ -3 +3 @@ def f():
-    return 1
+    return 2
@@ -10,2 +9,0 @@ def g():
-    x = 1
-    y = 2
@@ -20,0 +20,4 @@ def h():
+def new():
+    pass
+
+
diff --git a/src/gone.py b/src/gone.py
deleted file mode 100644
index 3333333..0000000
--- a/src/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def old():
-    pass
diff --git a/src/new.py b/src/new.py
new file mode 100644
index 0000000..4444444
--- /dev/null
+++ b/src/new.py
@@ -0,0 +1 @@
+x = 1
diff --git a/img.png b/img.png
index 5555555..6666666 100644
Binary files a/img.png and b/img.png differ
";

    #[test]
    fn hunks_become_ranges_per_side() {
        let files = parse(DIFF);
        assert_eq!(files.len(), 4);
        assert_eq!(
            files[0],
            FileDiff {
                old_path: Some("src/a.py".into()),
                new_path: Some("src/a.py".into()),
                old_ranges: vec![(3, 3), (10, 11)],
                new_ranges: vec![(3, 3), (20, 23)],
                deletion_points: vec![9],
                binary: false,
            }
        );
        assert_eq!(files[1].old_path.as_deref(), Some("src/gone.py"));
        assert_eq!(files[1].new_path, None);
        assert_eq!(files[1].old_ranges, vec![(1, 2)]);
        assert!(files[1].new_ranges.is_empty());
        assert_eq!(files[2].old_path, None);
        assert_eq!(files[2].new_path.as_deref(), Some("src/new.py"));
        assert_eq!(files[2].new_ranges, vec![(1, 1)]);
        assert_eq!(files[3].path(), "img.png");
        assert!(files[3].binary);
    }

    #[test]
    fn overlap_and_containment() {
        assert!(overlaps(&[(3, 5)], 5, 9));
        assert!(!overlaps(&[(3, 5)], 6, 9));
        assert!(inside(&[(3, 9)], 4, 9));
        assert!(!inside(&[(3, 8)], 4, 9));
    }
}
