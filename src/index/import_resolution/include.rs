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
    /// Every indexed file below an `include` directory, by its path relative to that
    /// directory: `(index in include_dirs, file id)` for each such directory above it, in
    /// `include_dirs` order. A tree with hundreds of include directories (the Linux
    /// kernel has one per architecture and driver family) would otherwise try a path
    /// join and a hash lookup per directory for each `#include`; building the map costs
    /// about one such step per file. So lookups join until the joins done outnumber the
    /// files, then build it (the rent-or-buy rule: at most twice the cheaper way's
    /// cost). An edit resolving a few includes never builds it; a full build does early.
    below_include: Option<HashMap<String, Vec<(usize, i64)>>>,
    /// Path joins done by lookups without `below_include`.
    joins: usize,
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
            below_include: None,
            joins: 0,
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
        // The nearest include directory holding the path; on a tie, the first in path
        // order.
        let mut best: Option<(usize, i64)> = None;
        let mut consider = |dir: &str, id: i64| {
            let shared = shared_segments(dir, from_dir);
            if best.is_none_or(|(b, _)| shared > b) {
                best = Some((shared, id));
            }
        };
        let relative = plain_relative(spec);
        if self.below_include.is_none() && relative.is_some() && self.joins >= files.len() {
            self.below_include = Some(below_include_dirs(&self.include_dirs, files));
        }
        match (&self.below_include, relative) {
            (Some(below), Some(relative)) => {
                for &(dir, id) in below.get(&relative).into_iter().flatten() {
                    consider(&self.include_dirs[dir], id);
                }
            }
            // Not built yet, or `..` climbs out of the include directory: join with
            // each one.
            _ => {
                self.joins += self.include_dirs.len();
                for dir in &self.include_dirs {
                    if let Some(id) = lookup(dir) {
                        consider(dir, id);
                    }
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

/// `spec` with its empty and `.` segments dropped, as joining it to a directory would
/// give it; `None` when it has a `..` segment (the join then depends on the directory).
fn plain_relative(spec: &str) -> Option<String> {
    if spec.split('/').any(|seg| seg == "..") {
        return None;
    }
    join_normalized("", spec)
}

/// The files of `files` below each of `include_dirs` (sorted), keyed by their path
/// relative to it (see [`IncludeIndex::below_include`]).
fn below_include_dirs(
    include_dirs: &[String],
    files: &HashMap<String, i64>,
) -> HashMap<String, Vec<(usize, i64)>> {
    let index: HashMap<&str, usize> = include_dirs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.as_str(), i))
        .collect();
    let mut below: HashMap<String, Vec<(usize, i64)>> = HashMap::new();
    for (path, &id) in files {
        let mut dir = parent_dir(path);
        while !dir.is_empty() {
            if let Some(&i) = index.get(dir) {
                below
                    .entry(path[dir.len() + 1..].to_string())
                    .or_default()
                    .push((i, id));
            }
            dir = parent_dir(dir);
        }
    }
    for list in below.values_mut() {
        list.sort_unstable();
    }
    below
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

    /// The include-directory step as it was first written: join the path to every
    /// include directory, keep the nearest (first in path order on a tie).
    fn nearest_by_joining(
        index: &IncludeIndex,
        files: &HashMap<String, i64>,
        from: &str,
        spec: &str,
    ) -> Option<i64> {
        let mut best: Option<(usize, i64)> = None;
        for dir in &index.include_dirs {
            if let Some(&id) = join_normalized(dir, spec).and_then(|p| files.get(&p)) {
                let shared = shared_segments(dir, parent_dir(from));
                if best.is_none_or(|(b, _)| shared > b) {
                    best = Some((shared, id));
                }
            }
        }
        best.map(|(_, id)| id)
    }

    #[test]
    fn lookup_by_relative_path_finds_what_joining_every_include_directory_finds() {
        let paths = [
            "include/linux/list.h",
            "include/linux/types.h",
            "include/uapi/linux/types.h",
            "include/asm-generic/io.h",
            "arch/x86/include/asm/io.h",
            "arch/x86/include/uapi/asm/types.h",
            "arch/arm/include/asm/io.h",
            "drivers/gpu/include/linux/list.h",
            "drivers/gpu/include/nested/include/deep.h",
            "drivers/gpu/drm/a.c",
            "arch/x86/kernel/b.c",
            "arch/arm/mm/c.c",
            "kernel/d.c",
            "tools/include/linux/types.h",
        ];
        let list: Vec<(i64, String)> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (i as i64 + 1, p.to_string()))
            .collect();
        let files: HashMap<String, i64> = list.iter().map(|(id, p)| (p.clone(), *id)).collect();
        let mut index = IncludeIndex::new(&list);
        index.flag_dirs = Some(Vec::new());
        let specs = [
            "linux/list.h",
            "linux/types.h",
            "./linux//types.h",
            "asm/io.h",
            "asm/types.h",
            "uapi/asm/types.h",
            "nested/include/deep.h",
            "deep.h",
            "../include/linux/list.h",
            "../../include/asm/io.h",
            "asm-generic/../linux/types.h",
            "missing.h",
            "linux",
        ];
        let mut found = 0;
        for from in [
            "drivers/gpu/drm/a.c",
            "arch/x86/kernel/b.c",
            "arch/arm/mm/c.c",
            "kernel/d.c",
        ] {
            for spec in specs {
                let expected = nearest_by_joining(&index, &files, from, spec);
                let got = match index.resolve(Path::new("."), &files, from, spec, true) {
                    Target::Files(ids) => Some(ids[0]),
                    _ => None,
                };
                assert_eq!(got, expected, "{spec} from {from}");
                found += usize::from(got.is_some());
            }
        }
        // The same header is chosen by nearness: the GPU driver's own `linux/list.h`,
        // the architecture's own `asm/io.h`; a nested include directory's file by its
        // path below the outer one.
        let id = |p: &str| files[p];
        let system = |index: &mut IncludeIndex, from: &str, spec: &str| match index.resolve(
            Path::new("."),
            &files,
            from,
            spec,
            true,
        ) {
            Target::Files(ids) => ids,
            _ => Vec::new(),
        };
        assert_eq!(
            system(&mut index, "drivers/gpu/drm/a.c", "linux/list.h"),
            vec![id("drivers/gpu/include/linux/list.h")]
        );
        assert_eq!(
            system(&mut index, "arch/arm/mm/c.c", "asm/io.h"),
            vec![id("arch/arm/include/asm/io.h")]
        );
        assert_eq!(
            system(&mut index, "kernel/d.c", "nested/include/deep.h"),
            vec![id("drivers/gpu/include/nested/include/deep.h")]
        );
        assert!(found >= 30, "{found} lookups found a file");
        // The first lookups joined; the later ones used the map.
        assert!(index.below_include.is_some());
    }
}
