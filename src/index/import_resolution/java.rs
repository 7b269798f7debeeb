//! Java: `import` declarations to the files of the workspace, under source roots derived
//! from package declarations.
//!
//! A source root is a directory such that a file's path below it is its package
//! (`src/main/java` for `src/main/java/com/x/Foo.java` declaring `package com.x;`). Roots
//! are not configured: a class `a.b.C` is looked up as every indexed `C.java` whose
//! directory ends with `a/b`, and a candidate counts only if the `package` declaration
//! of its directory (read from the first file of that directory, once) is `a.b`. So any
//! number of roots (Maven/Gradle `src/main/java`, `src/test/java`, modules side by side,
//! plain `src/`) work, and a directory whose files declare another package is skipped.
//!
//! - `import a.b.C;` → the file of class `C`; `import a.b.C.Inner;` and
//!   `import static a.b.C.m;` → the file of `C` (the longest prefix naming a class file).
//! - `import a.b.*;` → every file of package `a.b`; `import static a.b.C.*;` → `C`'s file.
//! - Several candidates: the one under the importing file's own source root, else the
//!   one sharing the longest path prefix with it, else the first in path order (for
//!   `a.b.*`: every directory of the package when none is under the importer's root).
//! - Not found: unresolved when the package exists in the workspace, else external
//!   (`java.util.List`).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use super::target::Target;
use crate::index::relpath::parent_dir;

/// Bytes read from the top of a file to find its `package` declaration.
const HEAD_BYTES: u64 = 64 * 1024;

/// Java files by directory and name, and the packages of directories read so far.
pub(super) struct JavaIndex {
    /// Directory → its `.java` files `(id, path)`, in path order.
    dirs: HashMap<String, Vec<(i64, String)>>,
    /// Last segment of a directory → the directories with Java files ending with it.
    dirs_by_last: HashMap<String, Vec<String>>,
    /// Directory → the package its files declare (`None`: none, or unreadable).
    packages: HashMap<String, Option<String>>,
}

impl JavaIndex {
    pub(super) fn new(files: &[(i64, String)]) -> JavaIndex {
        let mut dirs: HashMap<String, Vec<(i64, String)>> = HashMap::new();
        for (id, path) in files {
            if path.ends_with(".java") {
                dirs.entry(parent_dir(path).to_string())
                    .or_default()
                    .push((*id, path.clone()));
            }
        }
        let mut dirs_by_last: HashMap<String, Vec<String>> = HashMap::new();
        for dir in dirs.keys() {
            let last = dir.rsplit('/').next().unwrap_or(dir);
            dirs_by_last
                .entry(last.to_string())
                .or_default()
                .push(dir.clone());
        }
        for list in dirs_by_last.values_mut() {
            list.sort();
        }
        JavaIndex {
            dirs,
            dirs_by_last,
            packages: HashMap::new(),
        }
    }

    /// The package declared by the files of `dir` (read once per directory).
    fn package(&mut self, root: &Path, dir: &str) -> Option<String> {
        if let Some(known) = self.packages.get(dir) {
            return known.clone();
        }
        let declared = self
            .dirs
            .get(dir)
            .and_then(|files| files.first())
            .and_then(|(_, path)| read_package(root, path));
        self.packages.insert(dir.to_string(), declared.clone());
        declared
    }

    /// The source root of `dir`: `dir` without its package's path. `None` when the
    /// package does not match the directory.
    fn root_of(&mut self, root: &Path, dir: &str) -> Option<String> {
        let package = self.package(root, dir)?;
        if package.is_empty() {
            return Some(dir.to_string());
        }
        let tail = package.replace('.', "/");
        if dir == tail {
            Some(String::new())
        } else {
            dir.strip_suffix(&tail)
                .and_then(|r| r.strip_suffix('/'))
                .map(str::to_string)
        }
    }

    /// The directories of package `segments` (verified by their declarations), in path
    /// order.
    fn package_dirs(&mut self, root: &Path, segments: &[&str]) -> Vec<String> {
        let Some(last) = segments.last() else {
            return Vec::new();
        };
        let tail = segments.join("/");
        let wanted = segments.join(".");
        let candidates: Vec<String> = self
            .dirs_by_last
            .get(*last)
            .map(|dirs| {
                dirs.iter()
                    .filter(|d| *d == &tail || d.ends_with(&format!("/{tail}")))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        candidates
            .into_iter()
            .filter(|dir| self.package(root, dir).as_deref() == Some(wanted.as_str()))
            .collect()
    }

    /// Orders candidate directories by preference for an importer in `from_dir`:
    /// same source root first, then the longest common path prefix, then path order.
    fn preferred(&mut self, root: &Path, from_dir: &str, mut dirs: Vec<String>) -> Vec<String> {
        let home = self.root_of(root, from_dir);
        let mut keyed: Vec<(bool, usize, String)> = dirs
            .drain(..)
            .map(|dir| {
                let same_root = home.is_some() && self.root_of(root, &dir) == home;
                let common = common_prefix_segments(&dir, from_dir);
                (same_root, common, dir)
            })
            .collect();
        keyed.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        keyed.into_iter().map(|(_, _, dir)| dir).collect()
    }

    /// The file of class `segments` (package segments then the class name).
    fn class_file(&mut self, root: &Path, from_dir: &str, segments: &[&str]) -> Option<i64> {
        let (class, package) = segments.split_last()?;
        if package.is_empty() {
            return None;
        }
        let file_name = format!("{class}.java");
        let dirs: Vec<String> = self
            .package_dirs(root, package)
            .into_iter()
            .filter(|dir| {
                self.dirs.get(dir).is_some_and(|files| {
                    files
                        .iter()
                        .any(|(_, p)| p.ends_with(&format!("/{file_name}")) || *p == file_name)
                })
            })
            .collect();
        let best = self.preferred(root, from_dir, dirs).into_iter().next()?;
        self.dirs.get(&best).and_then(|files| {
            files
                .iter()
                .find(|(_, p)| p.rsplit('/').next() == Some(file_name.as_str()))
                .map(|(id, _)| *id)
        })
    }

    /// The files of directory `dir`.
    fn dir_files(&self, dir: &str) -> Option<Vec<i64>> {
        self.dirs
            .get(dir)
            .map(|files| files.iter().map(|(id, _)| *id).collect())
    }

    /// The files of the package that the files of `dir` declare, in every source root
    /// (a test class sees its package's main classes without an import); just `dir`'s
    /// files when the package does not match the directory.
    pub(super) fn package_files(&mut self, root: &Path, dir: &str) -> Vec<i64> {
        let package = self.package(root, dir);
        let segments: Vec<String> = package
            .iter()
            .flat_map(|p| p.split('.'))
            .map(str::to_string)
            .collect();
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        let mut dirs = self.package_dirs(root, &segments);
        if !dirs.iter().any(|d| d == dir) {
            dirs.push(dir.to_string());
        }
        let mut files: Vec<i64> = dirs
            .iter()
            .filter_map(|d| self.dir_files(d))
            .flatten()
            .collect();
        files.sort_unstable();
        files
    }

    /// Resolves an import specifier (`a.b.C`, `a.b.*`, `a.b.C.m`) written in `from_path`
    /// (rules in the module docs).
    pub(super) fn resolve(&mut self, root: &Path, from_path: &str, spec: &str) -> Target {
        let from_dir = parent_dir(from_path);
        let (body, star) = match spec.strip_suffix(".*") {
            Some(body) => (body, true),
            None => (spec, false),
        };
        let segments: Vec<&str> = body.split('.').filter(|s| !s.is_empty()).collect();
        if segments.is_empty() {
            return Target::Unresolved;
        }
        if star {
            let dirs = self.package_dirs(root, &segments);
            if !dirs.is_empty() {
                let ordered = self.preferred(root, from_dir, dirs);
                let home = self.root_of(root, from_dir);
                let chosen: Vec<String> = match ordered.first() {
                    Some(first) if home.is_some() && self.root_of(root, first) == home => {
                        vec![first.clone()]
                    }
                    _ => ordered,
                };
                let mut files: Vec<i64> = chosen
                    .iter()
                    .filter_map(|dir| self.dir_files(dir))
                    .flatten()
                    .collect();
                files.sort_unstable();
                return Target::Files(files);
            }
        }
        // The longest prefix that names a class file (`a.b.C.Inner`, `a.b.C.m`, and
        // `a.b.C` of `a.b.C.*`).
        for k in (2..=segments.len()).rev() {
            if let Some(id) = self.class_file(root, from_dir, &segments[..k]) {
                return Target::Files(vec![id]);
            }
        }
        let package: &[&str] = if star {
            &segments
        } else {
            &segments[..segments.len() - 1]
        };
        if !package.is_empty() && !self.package_dirs(root, package).is_empty() {
            Target::Unresolved
        } else {
            Target::External
        }
    }
}

/// How many leading path segments two directories share.
fn common_prefix_segments(a: &str, b: &str) -> usize {
    a.split('/')
        .zip(b.split('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

/// The `package` declaration at the top of a Java file (after comments and package
/// annotations); `None` for the default package or an unreadable file.
fn read_package(root: &Path, path: &str) -> Option<String> {
    let mut head = Vec::new();
    let rel = crate::walk::path_text::decode(path).ok()?;
    crate::walk::open_beneath(root, &rel)
        .ok()?
        .take(HEAD_BYTES)
        .read_to_end(&mut head)
        .ok()?;
    package_declaration(&String::from_utf8_lossy(&head))
}

/// Finds `package a.b.c;` before the first other declaration, skipping comments and
/// annotations (`@Ann(...)` of a `package-info.java`).
fn package_declaration(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut at = 0;
    let skip_space_and_comments = |mut at: usize| -> usize {
        loop {
            while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            if bytes[at..].starts_with(b"//") {
                while at < bytes.len() && bytes[at] != b'\n' {
                    at += 1;
                }
            } else if bytes[at..].starts_with(b"/*") {
                match text[at + 2..].find("*/") {
                    Some(end) => at = at + 2 + end + 2,
                    None => return bytes.len(),
                }
            } else {
                return at;
            }
        }
    };
    loop {
        at = skip_space_and_comments(at);
        if at >= bytes.len() {
            return None;
        }
        if bytes[at] == b'@' {
            // An annotation: its name, then a balanced argument list if any.
            at += 1;
            while at < bytes.len()
                && (bytes[at].is_ascii_alphanumeric() || matches!(bytes[at], b'_' | b'.' | b'$'))
            {
                at += 1;
            }
            at = skip_space_and_comments(at);
            if at < bytes.len() && bytes[at] == b'(' {
                let mut depth = 0usize;
                while at < bytes.len() {
                    match bytes[at] {
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                at += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    at += 1;
                }
            }
            continue;
        }
        let rest = &text[at..];
        let after = rest.strip_prefix("package")?;
        if !after.starts_with(|c: char| c.is_whitespace() || c == '/') {
            return None;
        }
        let end = after.find(';')?;
        let mut name: String = after[..end].to_string();
        // Comments inside the name are not worth supporting; whitespace is.
        name.retain(|c| !c.is_whitespace());
        let valid = !name.is_empty()
            && name.split('.').all(|s| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
            });
        return valid.then_some(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_declarations() {
        assert_eq!(
            package_declaration("/* license */\n// x\npackage com.example.app;\nimport a.B;\n")
                .as_deref(),
            Some("com.example.app")
        );
        assert_eq!(
            package_declaration("@Deprecated\n@Ann(value = \"(x)\")\npackage a . b ;").as_deref(),
            Some("a.b")
        );
        assert_eq!(package_declaration("import a.B;\nclass C {}\n"), None);
        assert_eq!(package_declaration("class C {}\n"), None);
        assert_eq!(package_declaration(""), None);
    }
}
