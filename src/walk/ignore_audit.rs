//! Which ignore rule hid the tree. A run that finds no file at all, or whose ignore
//! rules hide more code than it indexed, would otherwise say nothing: a root
//! `.gitignore` of `/*` (a packaging rule some source tarballs ship) makes an empty
//! index. [`audit`] names the rules that hide the root's entries (ignore file, line,
//! pattern, the entries they hide) and says how to override them.
//!
//! It looks at the root's own entries (files and directories directly under it), which
//! is where such rules bite: outside git by the root's `.ignore`, `.gitignore` and
//! `.git/info/exclude` (in that order of precedence, as the walk applies them); in a
//! git work tree by asking `git check-ignore -v`. It then counts the code files under
//! the hidden entries, only until they outnumber the indexed ones (so a large ignored
//! build directory costs little), to tell "most of the tree" from an ordinary
//! ignored build output. In a git work tree the listing is git's by definition, so
//! only an empty one is audited.

use std::collections::BTreeMap;
use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use serde::Serialize;

use super::{git, path_text, FileSource, Skips, Walk, WalkOptions};

/// Most entry names listed per rule.
pub const MAX_NAMES: usize = 5;

/// One ignore rule that hides entries of the root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HidingRule {
    /// The ignore file holding the rule: root-relative outside git (`.gitignore`,
    /// `.ignore`, `.git/info/exclude`); in a git work tree as git names it (relative
    /// to the work tree's top, or the global excludes file's path).
    pub file: String,
    /// The rule's line in that file, from 1; `None` when it could not be found again.
    pub line: Option<usize>,
    /// The rule as written (`/*`, `build/`).
    pub pattern: String,
    /// How many of the root's entries it hides.
    pub entries: usize,
    /// The first [`MAX_NAMES`] of them, directories with a trailing `/`.
    pub names: Vec<String>,
}

/// The warning of a run whose ignore rules hide everything or most of the code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IgnoreWarning {
    /// One paragraph for a person: what is hidden, by which rules, and how to override.
    pub message: String,
    /// Code files (a language the indexer parses) the walk found.
    pub code_files_indexed: usize,
    /// Code files under the hidden entries, counted only until they outnumber the
    /// indexed ones: a lower bound.
    pub code_files_hidden: usize,
    /// The rules, most entries first.
    pub rules: Vec<HidingRule>,
}

/// One entry directly under the root.
#[derive(Clone)]
struct Entry {
    /// Its name as path text.
    name: String,
    /// Its name as the operating system gives it.
    os_name: std::ffi::OsString,
    is_dir: bool,
}

/// Audits the ignore rules of a finished walk of `root` (see the module doc): `Some`
/// when they hide every file, or more code files than the walk found (`is_code` says
/// whether a root-relative path is code). `None` when ignore rules were off, nothing
/// is hidden, or a git listing found files.
pub fn audit(
    root: &Path,
    walk: &Walk,
    opts: &WalkOptions,
    is_code: &dyn Fn(&str) -> bool,
) -> Option<IgnoreWarning> {
    if !opts.ignore_files
        || matches!(
            walk.source,
            FileSource::Events | FileSource::Shards | FileSource::Server
        )
        || (walk.source == FileSource::Git && !walk.files.is_empty())
    {
        return None;
    }
    let skips = Skips::new(opts).ok()?;
    let entries = root_entries(root, &skips);
    let hidden = match walk.source {
        FileSource::Git => rules_by_git(root, &entries),
        FileSource::Directories => rules_by_files(root, &entries),
        FileSource::Events | FileSource::Shards | FileSource::Server => return None,
    };
    if hidden.is_empty() {
        return None;
    }
    let indexed = walk.files.iter().filter(|f| is_code(&f.path)).count();
    let hidden_code = count_code(root, &hidden, &skips, is_code, indexed);
    let everything = walk.files.is_empty();
    if !everything && hidden_code <= indexed {
        return None;
    }
    let mut by_rule: BTreeMap<(String, Option<usize>, String), Vec<String>> = BTreeMap::new();
    for (entry, rule) in &hidden {
        let name = if entry.is_dir {
            format!("{}/", entry.name)
        } else {
            entry.name.clone()
        };
        by_rule.entry(rule.clone()).or_default().push(name);
    }
    let mut rules: Vec<HidingRule> = by_rule
        .into_iter()
        .map(|((file, line, pattern), names)| HidingRule {
            file,
            line,
            pattern,
            entries: names.len(),
            names: names.into_iter().take(MAX_NAMES).collect(),
        })
        .collect();
    rules.sort_by(|a, b| b.entries.cmp(&a.entries).then(a.file.cmp(&b.file)));
    let what = if everything {
        format!("ignore rules hide every file under {}", root.display())
    } else {
        format!(
            "ignore rules hide more code under {} than was indexed ({indexed} code files indexed, more than {indexed} hidden)",
            root.display()
        )
    };
    let said: Vec<String> = rules.iter().map(describe).collect();
    let advice = if everything {
        "Pass --no-ignore to index them anyway, or change the rule"
    } else {
        "If that is not intended, pass --no-ignore or change the rule"
    };
    Some(IgnoreWarning {
        message: format!("{what}: {}. {advice}.", said.join("; ")),
        code_files_indexed: indexed,
        code_files_hidden: hidden_code,
        rules,
    })
}

/// "`/*` (.gitignore:1) hides 3 entries: a/, b/, c.py".
fn describe(r: &HidingRule) -> String {
    let at = match r.line {
        Some(l) => format!("{}:{l}", r.file),
        None => r.file.clone(),
    };
    let more = if r.entries > r.names.len() {
        format!(" and {} more", r.entries - r.names.len())
    } else {
        String::new()
    };
    let entries = if r.entries == 1 { "entry" } else { "entries" };
    format!(
        "`{}` ({at}) hides {} {entries}: {}{more}",
        r.pattern,
        r.entries,
        r.names.join(", ")
    )
}

/// The root's entries the walk would otherwise list (not hidden, not left out by the
/// default excludes, `node_modules` or `--exclude`), sorted by name.
fn root_entries(root: &Path, skips: &Skips) -> Vec<Entry> {
    let Ok(dir) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut entries: Vec<Entry> = dir
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = path_text::encode_name(&e.file_name());
            let kind = e.file_type().ok()?;
            if kind.is_symlink() || name.starts_with('.') {
                return None;
            }
            let is_dir = kind.is_dir();
            (!skips.skips(&name, &name, is_dir)).then_some(Entry {
                name,
                os_name: e.file_name(),
                is_dir,
            })
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    entries
}

/// A rule's identity: (file, line, pattern).
type RuleKey = (String, Option<usize>, String);

/// The entries hidden by the root's own ignore files, with the rule that hides each.
fn rules_by_files(root: &Path, entries: &[Entry]) -> Vec<(Entry, RuleKey)> {
    // The walk's precedence: `.ignore` over `.gitignore` over `.git/info/exclude`.
    let matchers: Vec<(String, Gitignore)> = [".ignore", ".gitignore", ".git/info/exclude"]
        .iter()
        .filter(|f| root.join(f).is_file())
        .filter_map(|f| {
            let mut b = GitignoreBuilder::new(root);
            if let Some(e) = b.add(root.join(f)) {
                tracing::debug!("ignore audit: {f}: {e}");
            }
            Some((f.to_string(), b.build().ok()?))
        })
        .collect();
    let mut hidden = Vec::new();
    for e in entries {
        let path = root.join(&e.os_name);
        for (file, gi) in &matchers {
            match gi.matched(&path, e.is_dir) {
                Match::None => continue,
                Match::Whitelist(_) => break,
                Match::Ignore(glob) => {
                    let line = line_of(&root.join(file), glob.original());
                    hidden.push((e.clone(), (file.clone(), line, glob.original().to_string())));
                    break;
                }
            }
        }
    }
    hidden
}

/// The last line (from 1) of the ignore file at `path` that reads `pattern` (rules are
/// matched last one first, so a repeated rule acts from its last line).
fn line_of(path: &Path, pattern: &str) -> Option<usize> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end() == pattern.trim_end())
        .map(|(i, _)| i + 1)
        .last()
}

/// The entries git says are ignored, with the rule (`git check-ignore -v`).
fn rules_by_git(root: &Path, entries: &[Entry]) -> Vec<(Entry, RuleKey)> {
    let mut hidden = Vec::new();
    for e in entries {
        let Some(name) = e.os_name.to_str() else {
            continue;
        };
        // Exit 1 (not ignored) is an error here: nothing to report for that entry.
        let Ok(out) = git::run(root, &["check-ignore", "-v", "--", name]) else {
            continue;
        };
        // `SOURCE:LINE:PATTERN<TAB>PATH`.
        let Some((rule, _)) = out.trim_end().split_once('\t') else {
            continue;
        };
        let mut parts = rule.splitn(3, ':');
        let (Some(file), Some(line), Some(pattern)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        hidden.push((
            e.clone(),
            (file.to_string(), line.parse().ok(), pattern.to_string()),
        ));
    }
    hidden
}

/// Code files under the hidden entries, counted until they exceed `indexed`.
fn count_code(
    root: &Path,
    hidden: &[(Entry, RuleKey)],
    skips: &Skips,
    is_code: &dyn Fn(&str) -> bool,
    indexed: usize,
) -> usize {
    let mut count = 0;
    for (e, _) in hidden {
        if count > indexed {
            break;
        }
        if !e.is_dir {
            count += usize::from(is_code(&e.name));
            continue;
        }
        let skips = skips.clone();
        let walker = ignore::WalkBuilder::new(root.join(&e.os_name))
            .standard_filters(false)
            .hidden(true)
            .follow_links(false)
            .filter_entry(move |d| {
                d.depth() == 0
                    || !skips.skips(
                        &d.file_name().to_string_lossy(),
                        "",
                        d.file_type().is_some_and(|t| t.is_dir()),
                    )
            })
            .build();
        for entry in walker.filter_map(Result::ok) {
            if entry.file_type().is_some_and(|t| t.is_file())
                && is_code(&entry.file_name().to_string_lossy())
            {
                count += 1;
                if count > indexed {
                    break;
                }
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::walk;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn is_code(p: &str) -> bool {
        p.ends_with(".py") || p.ends_with(".c")
    }

    fn audited(root: &Path, opts: &WalkOptions) -> Option<IgnoreWarning> {
        let w = walk(root, opts).unwrap();
        audit(root, &w, opts, &is_code)
    }

    #[test]
    fn a_rule_that_hides_every_file_is_named_with_its_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, ".gitignore", "# packaging\n/*\n");
        write(root, "kernel/a.c", "int f(void) { return 1; }\n");
        write(root, "arch/x86/b.c", "int g(void) { return 2; }\n");
        write(root, "README", "x\n");
        let w = audited(root, &WalkOptions::default()).expect("a warning");
        assert_eq!(
            w.rules,
            [HidingRule {
                file: ".gitignore".into(),
                line: Some(2),
                pattern: "/*".into(),
                entries: 3,
                names: vec!["README".into(), "arch/".into(), "kernel/".into()],
            }]
        );
        assert_eq!((w.code_files_indexed, w.code_files_hidden), (0, 1));
        assert!(w.message.contains("hide every file"), "{}", w.message);
        assert!(w.message.contains("(.gitignore:2)"), "{}", w.message);
        assert!(w.message.contains("--no-ignore"), "{}", w.message);
        // With ignore rules off there is nothing to say.
        let off = WalkOptions {
            ignore_files: false,
            ..WalkOptions::default()
        };
        assert_eq!(audited(root, &off), None);
    }

    #[test]
    fn an_ignored_build_directory_with_less_code_than_the_sources_is_no_warning() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, ".gitignore", "build/\n");
        write(root, "pkg/a.py", "a = 1\n");
        write(root, "pkg/b.py", "b = 1\n");
        write(root, "build/lib/pkg/a.py", "a = 1\n");
        assert_eq!(audited(root, &WalkOptions::default()), None);
    }

    #[test]
    fn rules_that_hide_more_code_than_was_indexed_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, ".ignore", "env/\n");
        write(root, "app.py", "a = 1\n");
        for i in 0..5 {
            write(root, &format!("env/lib/m{i}.py"), "m = 1\n");
        }
        let w = audited(root, &WalkOptions::default()).expect("a warning");
        assert_eq!(w.rules.len(), 1);
        assert_eq!(
            (
                w.rules[0].file.as_str(),
                w.rules[0].line,
                w.rules[0].pattern.as_str()
            ),
            (".ignore", Some(1), "env/")
        );
        // Counted only until the hidden outnumber the indexed.
        assert_eq!((w.code_files_indexed, w.code_files_hidden), (1, 2));
        assert!(w.message.contains("more code"), "{}", w.message);
    }

    #[test]
    fn in_a_git_work_tree_git_names_the_rule() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let Ok(out) = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(root)
            .output()
        else {
            return; // git is not installed here
        };
        assert!(out.status.success());
        write(root, ".gitignore", "*\n");
        write(root, "src/m.py", "m = 1\n");
        let opts = WalkOptions::default();
        let w = walk(root, &opts).unwrap();
        assert_eq!((w.source, w.files.len()), (FileSource::Git, 0));
        let warning = audit(root, &w, &opts, &is_code).expect("a warning");
        assert_eq!(
            warning.rules,
            [HidingRule {
                file: ".gitignore".into(),
                line: Some(1),
                pattern: "*".into(),
                entries: 1,
                names: vec!["src/".into()],
            }]
        );
    }
}
