//! C and C++: `#include` paths to files of the workspace.
//!
//! `#include "p"` is looked up, first match wins:
//! 1. in the including file's directory (what every compiler does first);
//! 2. in the `-iquote`, `-I` and `-isystem` directories of `compile_commands.json`
//!    (the indexed ones, plus `compile_commands.json` and `build/compile_commands.json`
//!    at the root, which build trees usually keep out of version control), in the order
//!    they first appear; directories outside the workspace are ignored;
//! 3. in the `include/` directories of the tree (any directory named `include`), the
//!    one nearest the including file first (most shared leading path segments, then
//!    path order);
//! 4. in the directories above the including file, nearest first (`#include
//!    "util/x.h"` from `src/net/a.c` finds `src/util/x.h`, as `-Isrc` would).
//!
//! `#include <p>` is looked up in 2 and 3 only: a project's own public headers are
//! usually included that way, and a system header is never searched for next to the
//! file. Not found: `<p>` is external (the C library, system packages); `"p"` is
//! unresolved (a generated or missing header).

use std::collections::BTreeSet;
use std::collections::HashMap;
use std::path::Path;

use super::target::Target;
use crate::index::relpath::{join_normalized, parent_dir};

/// Include directories of the tree and of the compilation database.
pub(super) struct IncludeIndex {
    /// Every directory named `include` that holds indexed files, in path order.
    include_dirs: Vec<String>,
    /// Indexed `compile_commands.json` files.
    compile_dbs: Vec<String>,
    /// `-iquote`/`-I`/`-isystem` directories, root-relative; `None` until first needed.
    flag_dirs: Option<Vec<String>>,
}

impl IncludeIndex {
    pub(super) fn new(files: &[(i64, String)]) -> IncludeIndex {
        let mut include_dirs = BTreeSet::new();
        let mut compile_dbs = Vec::new();
        for (_, path) in files {
            let mut dir = parent_dir(path);
            while !dir.is_empty() {
                // Known already: so are the directories above it.
                if (dir == "include" || dir.ends_with("/include"))
                    && !include_dirs.insert(dir.to_string())
                {
                    break;
                }
                dir = parent_dir(dir);
            }
            if path == "compile_commands.json" || path.ends_with("/compile_commands.json") {
                compile_dbs.push(path.clone());
            }
        }
        IncludeIndex {
            include_dirs: include_dirs.into_iter().collect(),
            compile_dbs,
            flag_dirs: None,
        }
    }

    /// Reads the include directories of the compilation databases, once.
    fn load_flag_dirs(&mut self, root: &Path) {
        if self.flag_dirs.is_some() {
            return;
        }
        let mut dbs = self.compile_dbs.clone();
        for extra in ["compile_commands.json", "build/compile_commands.json"] {
            if !dbs.iter().any(|d| d == extra) && root.join(extra).is_file() {
                dbs.push(extra.to_string());
            }
        }
        let canonical_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let mut dirs: Vec<String> = Vec::new();
        for db in &dbs {
            let text = match crate::walk::read_stored_text(root, db, crate::walk::MAX_TOOL_READ) {
                Ok(text) => text,
                Err(e) => {
                    tracing::debug!("{db}: {e}");
                    continue;
                }
            };
            let entries: Vec<serde_json::Value> = match serde_json::from_str(&text) {
                Ok(entries) => entries,
                Err(e) => {
                    tracing::warn!("{db} is not a compilation database: {e}");
                    continue;
                }
            };
            for entry in &entries {
                let directory = entry["directory"].as_str().unwrap_or("");
                let arguments: Vec<String> = match entry["arguments"].as_array() {
                    Some(list) => list
                        .iter()
                        .filter_map(|a| a.as_str().map(str::to_string))
                        .collect(),
                    None => entry["command"]
                        .as_str()
                        .and_then(shlex::split)
                        .unwrap_or_default(),
                };
                for dir in include_flags(&arguments) {
                    let absolute = Path::new(directory).join(&dir);
                    let relative = relative_to_root(&absolute, &canonical_root, root, db);
                    if let Some(relative) = relative {
                        if !dirs.contains(&relative) {
                            dirs.push(relative);
                        }
                    }
                }
            }
        }
        self.flag_dirs = Some(dirs);
    }

    /// Resolves an include path written in `from_path` (`system` for `<..>`).
    pub(super) fn resolve(
        &mut self,
        root: &Path,
        files: &HashMap<String, i64>,
        from_path: &str,
        spec: &str,
        system: bool,
    ) -> Target {
        if spec.starts_with('/') || spec.contains('\\') {
            return if system {
                Target::External
            } else {
                Target::Unresolved
            };
        }
        let lookup = |dir: &str| join_normalized(dir, spec).and_then(|p| files.get(&p).copied());
        let from_dir = parent_dir(from_path);
        if !system {
            if let Some(id) = lookup(from_dir) {
                return Target::Files(vec![id]);
            }
        }
        self.load_flag_dirs(root);
        for dir in self.flag_dirs.as_deref().unwrap_or_default() {
            if let Some(id) = lookup(dir) {
                return Target::Files(vec![id]);
            }
        }
        let mut best: Option<(usize, i64)> = None;
        for dir in &self.include_dirs {
            if let Some(id) = lookup(dir) {
                let shared = shared_segments(dir, from_dir);
                if best.is_none_or(|(b, _)| shared > b) {
                    best = Some((shared, id));
                }
            }
        }
        if let Some((_, id)) = best {
            return Target::Files(vec![id]);
        }
        if system {
            return Target::External;
        }
        let mut dir = from_dir;
        while !dir.is_empty() {
            dir = parent_dir(dir);
            if let Some(id) = lookup(dir) {
                return Target::Files(vec![id]);
            }
        }
        Target::Unresolved
    }
}

/// How many leading path segments two directories share.
fn shared_segments(a: &str, b: &str) -> usize {
    a.split('/')
        .zip(b.split('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

/// The directories of `-I`, `-iquote` and `-isystem` flags, joined or separate
/// (`-Iinc`, `-I inc`, `-isystem=inc` is not a GCC form and is not read).
fn include_flags(arguments: &[String]) -> Vec<String> {
    let mut dirs = Vec::new();
    let mut iter = arguments.iter();
    while let Some(argument) = iter.next() {
        for flag in ["-iquote", "-isystem", "-I", "/I"] {
            if let Some(rest) = argument.strip_prefix(flag) {
                if rest.is_empty() {
                    if let Some(next) = iter.next() {
                        dirs.push(next.clone());
                    }
                } else {
                    dirs.push(rest.to_string());
                }
                break;
            }
        }
    }
    dirs
}

/// `absolute` as a root-relative directory, `None` when it lies outside the root. A
/// relative `directory` in the database is taken relative to the database's folder.
fn relative_to_root(
    absolute: &Path,
    canonical_root: &Path,
    root: &Path,
    db: &str,
) -> Option<String> {
    let candidate = if absolute.is_absolute() {
        absolute.to_path_buf()
    } else {
        root.join(parent_dir(db)).join(absolute)
    };
    let canonical = std::fs::canonicalize(&candidate).ok()?;
    let relative = canonical.strip_prefix(canonical_root).ok()?;
    let text = relative.to_str()?.replace('\\', "/");
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_flags_joined_and_separate() {
        let args: Vec<String> = [
            "cc",
            "-Iinclude",
            "-I",
            "third_party/x",
            "-iquote",
            "src",
            "-isystem",
            "/usr/include",
            "-DX",
            "-c",
            "a.c",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            include_flags(&args),
            vec!["include", "third_party/x", "src", "/usr/include"]
        );
    }
}
