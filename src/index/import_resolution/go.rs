//! Go: import paths to package directories through the module paths of `go.mod`.
//!
//! A package is a directory; importing it depends on every file of it, so an import
//! resolves to all the package's `.go` files except its tests (`_test.go`, which are not
//! part of what an importer gets). Build constraints (`_linux.go`, `//go:build`) are not
//! evaluated: every platform's files are edges.
//!
//! Rules, first that applies, for an import written in file F:
//! 1. the `vendor/` directory of F's module (the nearest `go.mod` above F) holds the path;
//! 2. the longest module path of the workspace that is a prefix of the import path (a
//!    module's `go.mod` `module` line, or a `replace` to a local directory) → its
//!    directory plus the rest of the path; no package there → unresolved;
//! 3. the workspace holds the standard library (a `go.mod` declaring `module std`, as
//!    `GOROOT/src` does) and the path's first element has no dot → that directory;
//! 4. otherwise the package is external (standard library, third-party modules, `"C"`).

use std::collections::HashMap;
use std::path::Path;

use super::target::Target;
use crate::index::relpath::{join_normalized, parent_dir};

/// One module of the workspace: its import path and root-relative directory.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GoModule {
    path: String,
    dir: String,
}

/// Go packages of the workspace, and its modules (read from `go.mod` on first use).
pub(super) struct GoIndex {
    /// Directory → its non-test `.go` files, in path order.
    packages: HashMap<String, Vec<i64>>,
    /// Root-relative paths of the indexed `go.mod` files.
    mod_files: Vec<String>,
    /// Modules, longest import path first; `None` until first needed.
    modules: Option<Vec<GoModule>>,
}

/// Joins a root-relative directory and a relative path (`""` is the root).
fn join(dir: &str, rel: &str) -> String {
    match (dir.is_empty(), rel.is_empty()) {
        (true, _) => rel.to_string(),
        (_, true) => dir.to_string(),
        _ => format!("{dir}/{rel}"),
    }
}

impl GoIndex {
    pub(super) fn new(files: &[(i64, String)]) -> GoIndex {
        let mut packages: HashMap<String, Vec<i64>> = HashMap::new();
        let mut mod_files = Vec::new();
        for (id, path) in files {
            if path.ends_with(".go") && !path.ends_with("_test.go") {
                packages
                    .entry(parent_dir(path).to_string())
                    .or_default()
                    .push(*id);
            } else if path == "go.mod" || path.ends_with("/go.mod") {
                mod_files.push(path.clone());
            }
        }
        GoIndex {
            packages,
            mod_files,
            modules: None,
        }
    }

    /// Reads the `go.mod` files, once.
    fn load_modules(&mut self, root: &Path) {
        if self.modules.is_none() {
            let mut modules = Vec::new();
            for path in &self.mod_files {
                let text =
                    match crate::walk::read_stored_text(root, path, crate::walk::MAX_TOOL_READ) {
                        Ok(text) => text,
                        Err(e) => {
                            tracing::debug!("go.mod {path}: {e}");
                            continue;
                        }
                    };
                let dir = parent_dir(path);
                let parsed = parse_go_mod(&text);
                if let Some(module) = parsed.module {
                    modules.push(GoModule {
                        path: module,
                        dir: dir.to_string(),
                    });
                }
                for (module, target) in parsed.local_replaces {
                    if let Some(target_dir) = join_normalized(dir, &target) {
                        modules.push(GoModule {
                            path: module,
                            dir: target_dir,
                        });
                    }
                }
            }
            // Longest path first, then by directory: deterministic whatever the order
            // of the go.mod files.
            modules.sort_by(|a, b| {
                b.path
                    .len()
                    .cmp(&a.path.len())
                    .then_with(|| a.path.cmp(&b.path))
                    .then_with(|| a.dir.cmp(&b.dir))
            });
            modules.dedup_by(|b, a| a.path == b.path);
            self.modules = Some(modules);
        }
    }

    /// Resolves import path `spec` written in `from_path` (rules in the module docs).
    pub(super) fn resolve(&mut self, root: &Path, from_path: &str, spec: &str) -> Target {
        if spec.is_empty() || spec.starts_with('.') || spec.starts_with('/') {
            // Relative imports are not allowed in module mode.
            return Target::Unresolved;
        }
        self.load_modules(root);
        let modules = self.modules.as_deref().unwrap_or_default();
        let package = |dir: &str| -> Option<Target> {
            self.packages
                .get(dir)
                .filter(|files| !files.is_empty())
                .map(|files| Target::Files(files.clone()))
        };
        // 1. vendor/ of the importing file's own module.
        let from_dir = parent_dir(from_path);
        let home = modules
            .iter()
            .filter(|m| {
                m.dir.is_empty()
                    || from_dir == m.dir
                    || from_dir.starts_with(&format!("{}/", m.dir))
            })
            .max_by_key(|m| m.dir.len());
        if let Some(home) = home {
            if let Some(found) = package(&join(&join(&home.dir, "vendor"), spec)) {
                return found;
            }
        }
        // 2. A module of the workspace whose path prefixes the import path.
        for module in modules {
            let rest = if spec == module.path {
                Some("")
            } else {
                spec.strip_prefix(&module.path)
                    .and_then(|rest| rest.strip_prefix('/'))
            };
            if let Some(rest) = rest {
                return package(&join(&module.dir, rest)).unwrap_or(Target::Unresolved);
            }
        }
        // 3. The standard library, when the workspace is GOROOT/src.
        let first = spec.split('/').next().unwrap_or(spec);
        if !first.contains('.') {
            if let Some(std) = modules.iter().find(|m| m.path == "std") {
                if let Some(found) = package(&join(&std.dir, spec)) {
                    return found;
                }
            }
        }
        Target::External
    }
}

/// What `go.mod` says that resolution needs.
#[derive(Debug, Default, PartialEq, Eq)]
struct GoMod {
    module: Option<String>,
    /// `replace old => ./dir`: (module path, directory relative to the go.mod).
    local_replaces: Vec<(String, String)>,
}

/// Reads the `module` line and the `replace` directives to local directories (in a
/// `replace ( .. )` block or one per line). Comments are ignored; quoted paths unquoted.
fn parse_go_mod(text: &str) -> GoMod {
    let unquote = |s: &str| s.trim_matches(|c| c == '"' || c == '`').to_string();
    let mut out = GoMod::default();
    let mut in_replace_block = false;
    for raw in text.lines() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if in_replace_block && line == ")" {
            in_replace_block = false;
            continue;
        }
        let directive = if in_replace_block {
            Some(line)
        } else if let Some(rest) = line.strip_prefix("module") {
            if rest.starts_with(char::is_whitespace) {
                if let Some(path) = rest.split_whitespace().next() {
                    out.module = Some(unquote(path));
                }
            }
            None
        } else if let Some(rest) = line.strip_prefix("replace") {
            let rest = rest.trim();
            if rest == "(" {
                in_replace_block = true;
                None
            } else {
                Some(rest)
            }
        } else {
            None
        };
        let Some(directive) = directive else { continue };
        let Some((old, new)) = directive.split_once("=>") else {
            continue;
        };
        let (Some(old), Some(new)) = (old.split_whitespace().next(), new.split_whitespace().next())
        else {
            continue;
        };
        let new = unquote(new);
        if new.starts_with("./") || new.starts_with("../") || new == "." || new == ".." {
            out.local_replaces.push((unquote(old), new));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_mod_module_and_local_replaces() {
        let parsed = parse_go_mod(
            "// comment\nmodule \"example.com/app\" // the app\n\ngo 1.22\n\nrequire (\n\tgithub.com/x/y v1.0.0\n)\n\
             replace example.com/lib v1.2.0 => ../lib\nreplace (\n\tgithub.com/x/y => github.com/z/y v1.1.0\n\texample.com/tools => ./tools\n)\n",
        );
        assert_eq!(parsed.module.as_deref(), Some("example.com/app"));
        assert_eq!(
            parsed.local_replaces,
            vec![
                ("example.com/lib".to_string(), "../lib".to_string()),
                ("example.com/tools".to_string(), "./tools".to_string()),
            ]
        );
    }
}
