//! Import specifiers to files, per language (SPEC §4). Works on the set of indexed
//! paths (root-relative, `/`-separated); reads only `tsconfig.json`/`jsconfig.json`
//! from disk.
//!
//! - JavaScript/TypeScript: relative specifiers with extension and `index.*` lookup
//!   (`.js` also naming a `.ts` source), tsconfig `baseUrl` and `paths`; bare packages
//!   are external.
//! - Python: modules named from the directory above the top-most package holding a file
//!   (so the workspace root for `email/utils.py`, the script's folder for a loose
//!   script); `import a.b` resolves to module `a.b` only; `from a import b` to module
//!   `a.b` when it is one, else `a`; relative imports against the file's package.
//! - Rust: `mod x;` beside the declaring module, `use crate::`/`super::`/`self::`
//!   paths and paths through child modules, to the file of the longest module prefix.
//! - Go (`modules/go.rs`): import paths through `go.mod` module paths to package
//!   directories; an import depends on every non-test file of the package.
//! - Java (`modules/java.rs`): `import` declarations to class files under source roots
//!   derived from `package` declarations; `.*` to every file of the package.
//! - C/C++ (`modules/include.rs`): `#include` against the including file's directory,
//!   `compile_commands.json` include flags, `include/` directories and the directories
//!   above the file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod go;
mod include;
mod java;

/// Outcome of resolving one import reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One or more files of the workspace (Python `from p import a, b` may name two).
    Files(Vec<i64>),
    /// A package outside the workspace (`react`, `os`, `std::`).
    External,
    /// Looks local but names no indexed file.
    Unresolved,
}

/// Extensions tried, in order, for a JS/TS specifier without one.
const JS_EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json",
];

/// Joins a `/`-separated directory and a relative path, folding `.` and `..`.
/// `None` when `..` climbs above the root.
pub fn join_normalized(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// Directory part of a root-relative path (`""` at the root).
pub fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The compilerOptions of a tsconfig/jsconfig that matter for resolution.
#[derive(Debug, Default)]
struct TsConfig {
    /// Root-relative directory that `paths` targets and bare specifiers resolve from.
    base: Option<String>,
    /// `paths` patterns in file order: (pattern, targets), targets root-relative.
    paths: Vec<(String, Vec<String>)>,
}

/// Path lookups over the indexed files.
pub struct Modules {
    root: PathBuf,
    by_path: HashMap<String, i64>,
    /// Python dotted module name → files defining it (several when script folders clash).
    py_modules: HashMap<String, Vec<i64>>,
    /// Python file id → (its module name, the root-relative directory its names start at).
    py_names: HashMap<i64, (String, String)>,
    /// Directory → the nearest tsconfig above it (cached, `None` when there is none).
    tsconfigs: HashMap<String, Option<Arc<TsConfig>>>,
    /// Go packages and modules.
    go: go::GoIndex,
    /// Java files by package directory.
    java: java::JavaIndex,
    /// C/C++ include directories.
    includes: include::IncludeIndex,
}

impl Modules {
    /// Builds the lookups from every indexed file `(id, path)`.
    pub fn new(root: &Path, files: &[(i64, String)]) -> Modules {
        let by_path: HashMap<String, i64> = files.iter().map(|(id, p)| (p.clone(), *id)).collect();
        let is_package = |dir: &str| {
            let init = if dir.is_empty() {
                "__init__.py".to_string()
            } else {
                format!("{dir}/__init__.py")
            };
            by_path.contains_key(&init) || by_path.contains_key(&format!("{init}i"))
        };
        let mut py_modules: HashMap<String, Vec<i64>> = HashMap::new();
        let mut py_names = HashMap::new();
        let mut package_cache: HashMap<String, bool> = HashMap::new();
        for (id, path) in files {
            let stem = match path
                .strip_suffix(".py")
                .or_else(|| path.strip_suffix(".pyi"))
            {
                Some(s) => s,
                None => continue,
            };
            // Climb while the directory is a package.
            let mut top = parent_dir(path);
            while !top.is_empty() {
                let pkg = *package_cache
                    .entry(top.to_string())
                    .or_insert_with(|| is_package(top));
                if !pkg {
                    break;
                }
                top = parent_dir(top);
            }
            let rel = if top.is_empty() {
                stem
            } else {
                &stem[top.len() + 1..]
            };
            let rel = rel.strip_suffix("/__init__").unwrap_or(rel);
            if rel == "__init__" || rel.split('/').any(|s| s.is_empty() || s.contains('.')) {
                continue;
            }
            let name = rel.replace('/', ".");
            let list = py_modules.entry(name.clone()).or_default();
            // A .py and its .pyi stub: keep the .py first.
            if path.ends_with(".pyi") {
                list.push(*id);
            } else {
                list.insert(0, *id);
            }
            py_names.insert(*id, (name, top.to_string()));
        }
        Modules {
            root: root.to_path_buf(),
            by_path,
            py_modules,
            py_names,
            tsconfigs: HashMap::new(),
            go: go::GoIndex::new(files),
            java: java::JavaIndex::new(files),
            includes: include::IncludeIndex::new(files),
        }
    }

    /// The id of an indexed file.
    pub fn file(&self, path: &str) -> Option<i64> {
        self.by_path.get(path).copied()
    }

    // ---- Python ---------------------------------------------------------------

    /// The file of Python module `name` as seen from `from_file` (same source root
    /// preferred when several folders define it).
    fn py_module(&self, name: &str, from_file: i64) -> Option<i64> {
        let list = self.py_modules.get(name)?;
        if list.len() == 1 {
            return Some(list[0]);
        }
        let home = self.py_names.get(&from_file).map(|(_, top)| top.as_str());
        list.iter()
            .copied()
            .find(|id| self.py_names.get(id).map(|(_, t)| t.as_str()) == home)
            .or_else(|| {
                // Otherwise the one rooted at the workspace root.
                list.iter()
                    .copied()
                    .find(|id| self.py_names.get(id).is_some_and(|(_, t)| t.is_empty()))
            })
    }

    /// Resolves a Python import: `specifier` as written (leading dots kept), `names`
    /// the `from` names.
    pub fn resolve_python(
        &self,
        from_file: i64,
        from_path: &str,
        specifier: &str,
        names: &[&str],
    ) -> Target {
        let level = specifier.chars().take_while(|&c| c == '.').count();
        let rest = &specifier[level..];
        let base = if level == 0 {
            rest.to_string()
        } else {
            let Some((module, _)) = self.py_names.get(&from_file) else {
                return Target::Unresolved;
            };
            // The package of this file: the module itself for __init__, else its parent.
            let is_init = from_path.ends_with("/__init__.py")
                || from_path.ends_with("/__init__.pyi")
                || from_path == "__init__.py";
            let mut parts: Vec<&str> = module.split('.').filter(|s| !s.is_empty()).collect();
            if !is_init {
                parts.pop();
            }
            for _ in 1..level {
                if parts.pop().is_none() {
                    return Target::Unresolved;
                }
            }
            let mut base = parts.join(".");
            if !rest.is_empty() {
                if !base.is_empty() {
                    base.push('.');
                }
                base.push_str(rest);
            }
            base
        };
        let mut files = Vec::new();
        let mut need_base = names.is_empty() || names.contains(&"*");
        for name in names.iter().filter(|n| **n != "*") {
            let sub = if base.is_empty() {
                name.to_string()
            } else {
                format!("{base}.{name}")
            };
            match self.py_module(&sub, from_file) {
                Some(id) => files.push(id),
                None => need_base = true,
            }
        }
        if need_base && !base.is_empty() {
            match self.py_module(&base, from_file) {
                Some(id) => files.push(id),
                None if files.is_empty() => {
                    let top = base.split('.').next().unwrap_or_default();
                    return if level == 0 && self.py_module(top, from_file).is_none() {
                        Target::External
                    } else {
                        Target::Unresolved
                    };
                }
                None => {}
            }
        }
        files.dedup();
        if files.is_empty() {
            Target::Unresolved
        } else {
            Target::Files(files)
        }
    }

    // ---- JavaScript / TypeScript -------------------------------------------------

    /// Tries `base` as a file: as is, with each extension, a `.js`-family specifier as
    /// its TypeScript source, then as a directory with an `index` file.
    fn js_file(&self, base: &str) -> Option<i64> {
        if let Some(id) = self.file(base) {
            return Some(id);
        }
        for ext in JS_EXTENSIONS {
            if let Some(id) = self.file(&format!("{base}{ext}")) {
                return Some(id);
            }
        }
        for (js, tss) in [
            (".js", &[".ts", ".tsx"][..]),
            (".jsx", &[".tsx"][..]),
            (".mjs", &[".mts"][..]),
            (".cjs", &[".cts"][..]),
        ] {
            if let Some(stem) = base.strip_suffix(js) {
                for ts in tss {
                    if let Some(id) = self.file(&format!("{stem}{ts}")) {
                        return Some(id);
                    }
                }
            }
        }
        JS_EXTENSIONS.iter().find_map(|ext| {
            let index = if base.is_empty() {
                format!("index{ext}")
            } else {
                format!("{base}/index{ext}")
            };
            self.file(&index)
        })
    }

    /// The nearest tsconfig.json / jsconfig.json at or above `dir`.
    fn tsconfig(&mut self, dir: &str) -> Option<Arc<TsConfig>> {
        if let Some(c) = self.tsconfigs.get(dir) {
            return c.clone();
        }
        let mut found = None;
        for name in ["tsconfig.json", "jsconfig.json"] {
            let path = if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            };
            if self.by_path.contains_key(&path) {
                found = Some(Arc::new(self.read_tsconfig(dir, &path)));
                break;
            }
        }
        if found.is_none() && !dir.is_empty() {
            found = self.tsconfig(parent_dir(dir));
        }
        self.tsconfigs.insert(dir.to_string(), found.clone());
        found
    }

    /// Reads the resolution options of one tsconfig (JSON with comments and trailing
    /// commas, read with json5). An unreadable file gives empty options.
    fn read_tsconfig(&self, dir: &str, path: &str) -> TsConfig {
        let text = match std::fs::read_to_string(self.root.join(path)) {
            Ok(t) => t,
            Err(e) => {
                tracing::debug!("tsconfig {path}: {e}");
                return TsConfig::default();
            }
        };
        let value: serde_json::Value = match json5::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!("tsconfig {path} is not valid JSON: {e}");
                return TsConfig::default();
            }
        };
        let opts = &value["compilerOptions"];
        let base = opts["baseUrl"]
            .as_str()
            .and_then(|b| join_normalized(dir, b));
        let anchor = base.clone().unwrap_or_else(|| dir.to_string());
        let mut paths = Vec::new();
        if let Some(map) = opts["paths"].as_object() {
            for (pattern, targets) in map {
                let targets = targets
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|t| t.as_str())
                            .filter_map(|t| join_normalized(&anchor, t))
                            .collect()
                    })
                    .unwrap_or_default();
                paths.push((pattern.clone(), targets));
            }
        }
        TsConfig { base, paths }
    }

    /// Resolves a JS/TS specifier written in `from_path`.
    pub fn resolve_js(&mut self, from_path: &str, specifier: &str) -> Target {
        let spec = specifier.split(['?', '#']).next().unwrap_or(specifier);
        if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".." {
            return match join_normalized(parent_dir(from_path), spec).and_then(|b| self.js_file(&b))
            {
                Some(id) => Target::Files(vec![id]),
                None => Target::Unresolved,
            };
        }
        if spec.starts_with('/') || spec.contains(':') {
            return Target::External;
        }
        if let Some(cfg) = self.tsconfig(parent_dir(from_path)) {
            for (pattern, targets) in &cfg.paths {
                let star = match pattern.split_once('*') {
                    Some((pre, post)) => spec
                        .strip_prefix(pre)
                        .and_then(|s| s.strip_suffix(post))
                        .map(str::to_string),
                    None if pattern == spec => Some(String::new()),
                    None => None,
                };
                let Some(star) = star else { continue };
                for t in targets {
                    if let Some(id) = self.js_file(&t.replace('*', &star)) {
                        return Target::Files(vec![id]);
                    }
                }
            }
            if let Some(base) = &cfg.base {
                if let Some(id) = join_normalized(base, spec).and_then(|b| self.js_file(&b)) {
                    return Target::Files(vec![id]);
                }
            }
        }
        Target::External
    }

    // ---- Rust -----------------------------------------------------------------

    /// The directory holding the child modules of the module in `path`.
    fn rust_child_dir(path: &str) -> String {
        let dir = parent_dir(path);
        let file = path.rsplit('/').next().unwrap_or(path);
        if matches!(file, "lib.rs" | "main.rs" | "mod.rs" | "build.rs")
            || Self::is_crate_root_dir(dir)
        {
            dir.to_string()
        } else {
            let stem = file.strip_suffix(".rs").unwrap_or(file);
            if dir.is_empty() {
                stem.to_string()
            } else {
                format!("{dir}/{stem}")
            }
        }
    }

    /// `tests/`, `examples/`, `benches/` and `src/bin/` hold one crate root per file.
    fn is_crate_root_dir(dir: &str) -> bool {
        let last = dir.rsplit('/').next().unwrap_or(dir);
        matches!(last, "tests" | "examples" | "benches") || dir.ends_with("src/bin") || dir == "bin"
    }

    /// The file of module `name` inside `dir`: `dir/name.rs` or `dir/name/mod.rs`.
    fn rust_module_file(&self, dir: &str, name: &str) -> Option<i64> {
        let base = if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        };
        self.file(&format!("{base}.rs"))
            .or_else(|| self.file(&format!("{base}/mod.rs")))
    }

    /// The crate root file above `path` (nearest `lib.rs`, else `main.rs`) and its
    /// directory.
    fn rust_crate_root(&self, path: &str) -> Option<(String, i64)> {
        let mut dir = parent_dir(path);
        loop {
            for root in ["lib.rs", "main.rs"] {
                let p = if dir.is_empty() {
                    root.to_string()
                } else {
                    format!("{dir}/{root}")
                };
                if let Some(id) = self.file(&p) {
                    return Some((dir.to_string(), id));
                }
            }
            if dir.is_empty() {
                return None;
            }
            dir = parent_dir(dir);
        }
    }

    /// Walks module segments from (`dir`, `file`), returning the file of the longest
    /// prefix of `segs` that is a module file.
    fn rust_descend(&self, mut dir: String, mut file: i64, segs: &[&str]) -> i64 {
        for seg in segs {
            match self.rust_module_file(&dir, seg) {
                Some(id) => {
                    file = id;
                    dir = if dir.is_empty() {
                        seg.to_string()
                    } else {
                        format!("{dir}/{seg}")
                    };
                }
                None => break,
            }
        }
        file
    }

    /// Resolves a Rust `mod name;` (`form == "mod"`) or `use` path written in `from_path`.
    pub fn resolve_rust(
        &self,
        from_file: i64,
        from_path: &str,
        form: &str,
        specifier: &str,
    ) -> Target {
        if form == "mod" {
            return match self.rust_module_file(&Self::rust_child_dir(from_path), specifier) {
                Some(id) => Target::Files(vec![id]),
                None => Target::Unresolved,
            };
        }
        let segs: Vec<&str> = specifier
            .split("::")
            .filter(|s| !s.is_empty() && *s != "*")
            .collect();
        let Some((first, rest)) = segs.split_first() else {
            return Target::Unresolved;
        };
        let rest: Vec<&str> = rest.iter().copied().filter(|s| *s != "self").collect();
        match *first {
            "crate" => match self.rust_crate_root(from_path) {
                Some((dir, root)) => Target::Files(vec![self.rust_descend(dir, root, &rest)]),
                None => Target::Unresolved,
            },
            "self" => Target::Files(vec![self.rust_descend(
                Self::rust_child_dir(from_path),
                from_file,
                &rest,
            )]),
            "super" => {
                // The parent module of this file's module, then any further `super`s.
                let mut dir = Self::rust_child_dir(from_path);
                let mut rest = &rest[..];
                let mut ups = 1;
                while rest.first() == Some(&"super") {
                    ups += 1;
                    rest = &rest[1..];
                }
                for _ in 0..ups {
                    if dir.is_empty() {
                        return Target::Unresolved;
                    }
                    dir = parent_dir(&dir).to_string();
                }
                let file = self.rust_module_dir_file(&dir).or_else(|| {
                    self.rust_crate_root(&format!("{dir}/x.rs"))
                        .map(|(_, id)| id)
                });
                match file {
                    Some(f) => Target::Files(vec![self.rust_descend(dir, f, rest)]),
                    None => Target::Unresolved,
                }
            }
            name => match self.rust_module_file(&Self::rust_child_dir(from_path), name) {
                Some(id) => {
                    let dir = format!("{}/{name}", Self::rust_child_dir(from_path));
                    let dir = dir.trim_start_matches('/').to_string();
                    Target::Files(vec![self.rust_descend(dir, id, &rest)])
                }
                None => Target::External,
            },
        }
    }

    // ---- Go, Java, C/C++ ------------------------------------------------------------

    /// Resolves a Go import path written in `from_path` (see `modules/go.rs`).
    pub fn resolve_go(&mut self, from_path: &str, specifier: &str) -> Target {
        self.go.resolve(&self.root, from_path, specifier)
    }

    /// Resolves a Java import specifier written in `from_path` (see `modules/java.rs`).
    pub fn resolve_java(&mut self, from_path: &str, specifier: &str) -> Target {
        self.java.resolve(&self.root, from_path, specifier)
    }

    /// The Java files of the package declared in directory `dir`, in every source root.
    pub fn java_package(&mut self, dir: &str) -> Vec<i64> {
        self.java.package_files(&self.root, dir)
    }

    /// Resolves a C/C++ `#include` path written in `from_path`; `system` for `<..>`
    /// (see `modules/include.rs`).
    pub fn resolve_include(&mut self, from_path: &str, specifier: &str, system: bool) -> Target {
        self.includes
            .resolve(&self.root, &self.by_path, from_path, specifier, system)
    }

    /// The file that owns the modules of directory `dir`: `dir.rs`, `dir/mod.rs`, or a
    /// crate root (`dir/lib.rs`, `dir/main.rs`).
    fn rust_module_dir_file(&self, dir: &str) -> Option<i64> {
        let p = |name: &str| {
            if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            }
        };
        self.file(&p("mod.rs"))
            .or_else(|| self.file(&p("lib.rs")))
            .or_else(|| self.file(&p("main.rs")))
            .or_else(|| {
                (!dir.is_empty())
                    .then(|| self.file(&format!("{dir}.rs")))
                    .flatten()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modules(paths: &[&str]) -> Modules {
        let files: Vec<(i64, String)> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (i as i64 + 1, p.to_string()))
            .collect();
        Modules::new(Path::new("/nonexistent"), &files)
    }

    #[test]
    fn joins_and_normalizes() {
        assert_eq!(
            join_normalized("src/a", "../b/./c").as_deref(),
            Some("src/b/c")
        );
        assert_eq!(join_normalized("", ".."), None);
    }

    #[test]
    fn python_absolute_relative_and_from_names() {
        let m = modules(&[
            "pkg/__init__.py",     // 1
            "pkg/a.py",            // 2
            "pkg/sub/__init__.py", // 3
            "pkg/sub/b.py",        // 4
            "tools/script.py",     // 5
            "tools/helper.py",     // 6
        ]);
        assert_eq!(
            m.resolve_python(4, "pkg/sub/b.py", "pkg.a", &[]),
            Target::Files(vec![2])
        );
        assert_eq!(
            m.resolve_python(4, "pkg/sub/b.py", "..", &["a"]),
            Target::Files(vec![2])
        );
        assert_eq!(
            m.resolve_python(4, "pkg/sub/b.py", "..a", &["f"]),
            Target::Files(vec![2])
        );
        assert_eq!(
            m.resolve_python(3, "pkg/sub/__init__.py", ".", &["b"]),
            Target::Files(vec![4])
        );
        assert_eq!(
            m.resolve_python(2, "pkg/a.py", ".", &["nothing"]),
            Target::Files(vec![1])
        );
        assert_eq!(
            m.resolve_python(5, "tools/script.py", "helper", &[]),
            Target::Files(vec![6])
        );
        assert_eq!(m.resolve_python(2, "pkg/a.py", "os", &[]), Target::External);
        assert_eq!(
            m.resolve_python(2, "pkg/a.py", "pkg.missing", &[]),
            Target::Unresolved
        );
    }

    #[test]
    fn js_relative_index_and_ts_source() {
        let mut m = modules(&["src/a.ts", "src/lib/index.ts", "src/x.tsx", "src/App.css"]);
        assert_eq!(m.resolve_js("src/x.tsx", "./a"), Target::Files(vec![1]));
        assert_eq!(m.resolve_js("src/x.tsx", "./a.js"), Target::Files(vec![1]));
        assert_eq!(m.resolve_js("src/x.tsx", "./lib"), Target::Files(vec![2]));
        assert_eq!(
            m.resolve_js("src/x.tsx", "./App.css"),
            Target::Files(vec![4])
        );
        assert_eq!(m.resolve_js("src/x.tsx", "react"), Target::External);
        assert_eq!(m.resolve_js("src/x.tsx", "./nope"), Target::Unresolved);
    }

    #[test]
    fn rust_mod_and_use_paths() {
        let m = modules(&[
            "src/lib.rs",        // 1
            "src/a.rs",          // 2
            "src/util/mod.rs",   // 3
            "src/util/inner.rs", // 4
            "src/a/deep.rs",     // 5
        ]);
        assert_eq!(
            m.resolve_rust(1, "src/lib.rs", "mod", "a"),
            Target::Files(vec![2])
        );
        assert_eq!(
            m.resolve_rust(1, "src/lib.rs", "mod", "util"),
            Target::Files(vec![3])
        );
        assert_eq!(
            m.resolve_rust(3, "src/util/mod.rs", "mod", "inner"),
            Target::Files(vec![4])
        );
        assert_eq!(
            m.resolve_rust(2, "src/a.rs", "mod", "deep"),
            Target::Files(vec![5])
        );
        assert_eq!(
            m.resolve_rust(2, "src/a.rs", "use", "crate::util::inner::X"),
            Target::Files(vec![4])
        );
        assert_eq!(
            m.resolve_rust(2, "src/a.rs", "use", "crate::Thing"),
            Target::Files(vec![1])
        );
        assert_eq!(
            m.resolve_rust(4, "src/util/inner.rs", "use", "super::helper"),
            Target::Files(vec![3])
        );
        assert_eq!(
            m.resolve_rust(3, "src/util/mod.rs", "use", "super::a::f"),
            Target::Files(vec![2])
        );
        assert_eq!(
            m.resolve_rust(2, "src/a.rs", "use", "self::deep::Y"),
            Target::Files(vec![5])
        );
        assert_eq!(
            m.resolve_rust(2, "src/a.rs", "use", "std::fmt"),
            Target::External
        );
    }
}
