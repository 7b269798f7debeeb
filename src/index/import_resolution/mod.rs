//! Import specifiers to files, per language. Works on the set of indexed
//! paths (root-relative, `/`-separated); reads only `package.json` and
//! `tsconfig.json`/`jsconfig.json` (and the configs they extend) from disk, through
//! [`js_config`].
//!
//! - JavaScript/TypeScript: relative specifiers with extension (TypeScript and
//!   declaration files first from a TypeScript file, JavaScript first from a JavaScript
//!   one), `package.json` `main` and `index.*` lookup (`.js` also naming a `.ts` source); `#name` through the
//!   nearest `package.json` `imports`; tsconfig `paths` (exact pattern, else the longest
//!   prefix; several targets tried in order) and `baseUrl`, with `extends`; workspace
//!   packages (any indexed `package.json` with a `name`, as in monorepos with
//!   `packages/*`) through `exports` or `main`/`module`/`types`, a build output under
//!   tsconfig `outDir` mapped back to its source under `rootDir`; other bare packages
//!   are external.
//! - Python: modules named from the directory above the top-most package holding a file
//!   (so the workspace root for `email/utils.py`, `src/` in a src layout, the script's
//!   folder for a loose script), and through namespace packages (directories without
//!   `__init__.py`) from the workspace root and every `src/` directory; `import a.b`
//!   resolves to module `a.b` only; `from a import b` to module `a.b` when it is one,
//!   else `a`; a name that is no module to its longest prefix that is one; relative
//!   imports against the file's package.
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

use js_config::{map_subpath, match_paths, read_manifest, read_tsconfig, split_bare};
use js_config::{Manifest, Mapped, TsConfig};

use crate::index::relpath::{join_normalized, parent_dir};
use crate::lang::Language;
pub use target::Target;

mod go;
mod include;
mod java;
mod js_config;
mod target;

/// Extensions tried, in order, for a specifier without one written in a TypeScript
/// file: sources and declarations before JavaScript, as `tsc` does.
const TS_EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json",
];

/// Extensions tried, in order, for a specifier without one written in a JavaScript
/// file: the JavaScript Node would load first (so `require('./x')` with `x.js` and
/// `x.d.ts` side by side is `x.js`), then TypeScript sources, declarations last.
const JS_EXTENSIONS: &[&str] = &[
    ".js", ".jsx", ".mjs", ".cjs", ".json", ".ts", ".tsx", ".mts", ".cts", ".d.ts",
];

/// Files whose contents steer import resolution (package manifests, tsconfig/jsconfig
/// and the configs they usually extend): when one is added, changed or removed, every
/// import is resolved again.
pub fn is_resolution_config(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "package.json"
        || (name.ends_with(".json")
            && (name.starts_with("tsconfig") || name.starts_with("jsconfig")))
}

/// One Python module name a file answers to, and the directory that name starts at
/// (the `sys.path` entry it assumes).
#[derive(Debug, Clone)]
struct PyName {
    name: String,
    top: String,
}

/// One file a Python module name may mean.
#[derive(Debug, Clone)]
struct PyCandidate {
    id: i64,
    /// The directory the name starts at.
    top: String,
    path: String,
}

/// Candidates of one Python module name: `.py` before `.pyi`, then path order.
type PyCandidates = Vec<PyCandidate>;

/// Path lookups over the indexed files.
pub struct Modules {
    root: PathBuf,
    by_path: HashMap<String, i64>,
    /// Python dotted module name → files defining it under their primary name (several
    /// when script folders clash), `.py` before `.pyi`, then in path order.
    py_modules: HashMap<String, PyCandidates>,
    /// Python names through namespace packages (directories without `__init__.py`) from
    /// a source root above the top-most regular package; consulted after `py_modules`.
    py_namespace: HashMap<String, PyCandidates>,
    /// Python file id → its names: the primary one first, then namespace names from
    /// the nearest source root outwards.
    py_names: HashMap<i64, Vec<PyName>>,
    /// Directory → the nearest tsconfig above it (cached, `None` when there is none).
    tsconfigs: HashMap<String, Option<Arc<TsConfig>>>,
    /// Directory → its `package.json`, read on first use (`None`: none, or unreadable).
    manifests: HashMap<String, Option<Arc<Manifest>>>,
    /// Workspace package name → directories whose `package.json` has that name (in
    /// path order); built on the first bare specifier.
    packages: Option<HashMap<String, Vec<String>>>,
    /// Go packages and modules.
    go: go::GoIndex,
    /// Java files by package directory.
    java: java::JavaIndex,
    /// C/C++ include directories.
    includes: include::IncludeIndex,
    /// Extension order of the JS/TS specifier being resolved ([`TS_EXTENSIONS`] or
    /// [`JS_EXTENSIONS`], by the importing file's language); set by `resolve_js`.
    js_extensions: &'static [&'static str],
}

/// True for a Python identifier as a module segment (ASCII rules; other letters are
/// accepted as they are valid in Python 3 names).
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// True for directories treated as `sys.path` entries for namespace packages: the
/// workspace root and every directory named `src`.
fn is_source_root(dir: &str) -> bool {
    dir.is_empty() || dir == "src" || dir.ends_with("/src")
}

/// Length in bytes of the common directory prefix of two root-relative paths.
fn common_dir_len(a: &str, b: &str) -> usize {
    let mut len = 0;
    for (x, y) in parent_dir(a).split('/').zip(parent_dir(b).split('/')) {
        if x != y || x.is_empty() {
            break;
        }
        len += x.len() + 1;
    }
    len
}

/// What [`python_names`] builds: primary names, namespace names, and each file's names.
type PythonNames = (
    HashMap<String, PyCandidates>,
    HashMap<String, PyCandidates>,
    HashMap<i64, Vec<PyName>>,
);

/// Python module names of every `.py`/`.pyi` file: the primary name counts from the
/// directory above the top-most regular package holding the file (the script's folder
/// for a loose script); namespace names count from each source root above that
/// directory, through directories without `__init__.py` (PEP 420).
fn python_names(files: &[(i64, String)], by_path: &HashMap<String, i64>) -> PythonNames {
    let is_package = |dir: &str| {
        let init = if dir.is_empty() {
            "__init__.py".to_string()
        } else {
            format!("{dir}/__init__.py")
        };
        by_path.contains_key(&init) || by_path.contains_key(&format!("{init}i"))
    };
    let mut primary: HashMap<String, PyCandidates> = HashMap::new();
    let mut namespace: HashMap<String, PyCandidates> = HashMap::new();
    let mut names: HashMap<i64, Vec<PyName>> = HashMap::new();
    let mut package_cache: HashMap<String, bool> = HashMap::new();
    for (id, path) in files {
        let Some(stem) = path
            .strip_suffix(".py")
            .or_else(|| path.strip_suffix(".pyi"))
        else {
            continue;
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
        primary.entry(name.clone()).or_default().push(PyCandidate {
            id: *id,
            top: top.to_string(),
            path: path.clone(),
        });
        let mut own = vec![PyName {
            name,
            top: top.to_string(),
        }];
        // Namespace names: from each source root above `top`, every directory on the
        // way being a valid module segment.
        let mut dir = top;
        let mut name = own[0].name.clone();
        while !dir.is_empty() {
            let segment = dir.rsplit('/').next().unwrap_or(dir);
            if !is_identifier(segment) {
                break;
            }
            name = format!("{segment}.{name}");
            dir = parent_dir(dir);
            if is_source_root(dir) {
                namespace
                    .entry(name.clone())
                    .or_default()
                    .push(PyCandidate {
                        id: *id,
                        top: dir.to_string(),
                        path: path.clone(),
                    });
                own.push(PyName {
                    name: name.clone(),
                    top: dir.to_string(),
                });
            }
        }
        names.insert(*id, own);
    }
    // `.py` before its `.pyi` stub, then path order.
    for list in primary.values_mut().chain(namespace.values_mut()) {
        if list.len() > 1 {
            list.sort_by(|a, b| {
                (a.path.ends_with(".pyi"), &a.path).cmp(&(b.path.ends_with(".pyi"), &b.path))
            });
        }
    }
    (primary, namespace, names)
}

impl Modules {
    /// Builds the lookups from every indexed file `(id, path)`.
    pub fn new(root: &Path, files: &[(i64, String)]) -> Modules {
        let by_path: HashMap<String, i64> = files.iter().map(|(id, p)| (p.clone(), *id)).collect();
        let (py_modules, py_namespace, py_names) = python_names(files, &by_path);
        Modules {
            root: root.to_path_buf(),
            by_path,
            py_modules,
            py_namespace,
            py_names,
            tsconfigs: HashMap::new(),
            manifests: HashMap::new(),
            packages: None,
            go: go::GoIndex::new(files),
            java: java::JavaIndex::new(files),
            includes: include::IncludeIndex::new(files),
            js_extensions: TS_EXTENSIONS,
        }
    }

    /// The id of an indexed file.
    pub fn file(&self, path: &str) -> Option<i64> {
        self.by_path.get(path).copied()
    }

    // ---- Python ---------------------------------------------------------------

    /// The file of Python module `name` as seen from `from_path` (`home`: the
    /// directories the importing file's names start at). Primary names first, then
    /// namespace names. Among several candidates: the first that starts at one of the
    /// importer's own source directories; else the one sharing the longest directory
    /// prefix with the importer; on a tie, the one named from the workspace root; else
    /// none (ambiguous).
    fn py_module(&self, name: &str, from_path: &str, home: &[PyName]) -> Option<i64> {
        let list = self
            .py_modules
            .get(name)
            .or_else(|| self.py_namespace.get(name))?;
        if let [only] = list.as_slice() {
            return Some(only.id);
        }
        if let Some(c) = list.iter().find(|c| home.iter().any(|h| h.top == c.top)) {
            return Some(c.id);
        }
        // The nearest by directory; on a tie, the one named from the workspace root.
        let longest = list
            .iter()
            .map(|c| common_dir_len(&c.path, from_path))
            .max()?;
        // A stub beside its `.py` is the same module (the `.py` comes first).
        let mut nearest: Vec<&PyCandidate> = list
            .iter()
            .filter(|c| common_dir_len(&c.path, from_path) == longest)
            .collect();
        let paths: Vec<&str> = nearest.iter().map(|c| c.path.as_str()).collect();
        nearest.retain(|c| {
            c.path
                .strip_suffix(".pyi")
                .is_none_or(|stem| !paths.contains(&format!("{stem}.py").as_str()))
        });
        match nearest.as_slice() {
            [only] => Some(only.id),
            _ => nearest.iter().find(|c| c.top.is_empty()).map(|c| c.id),
        }
    }

    /// The longest dotted prefix of `name` (itself included) that is a module.
    fn py_module_or_parent(&self, name: &str, from_path: &str, home: &[PyName]) -> Option<i64> {
        let mut name = name;
        loop {
            if let Some(id) = self.py_module(name, from_path, home) {
                return Some(id);
            }
            name = name.rsplit_once('.')?.0;
        }
    }

    /// Resolves a Python import: `specifier` as written (leading dots kept), `names`
    /// the `from` names.
    ///
    /// `import a.b.c` names module `a.b.c`; `from a.b import c` names `a.b.c` when it is
    /// a module, else `a.b`. A dotted name that is no module falls back to its longest
    /// prefix that is one (importing `a.b.f` runs `a/b/__init__.py`; grimp counts the
    /// same edge), but only inside the workspace: a first segment no file defines is
    /// external. Relative imports count from the file's package under its primary name,
    /// else under its namespace names (a file in `src/ns/pkg/` is `ns.pkg.x` there).
    pub fn resolve_python(
        &self,
        from_file: i64,
        from_path: &str,
        specifier: &str,
        names: &[&str],
    ) -> Target {
        self.python_lookup(from_file, from_path, specifier, |base, home| {
            self.py_from_base(base, names, from_path, home)
        })
    }

    /// The one module a Python specifier names exactly, seen from `from_file`
    /// (`from SPEC import x` looks `x` up in it; `import SPEC as y` binds it):
    /// `Files([id])`, `External` when its first segment is no module of the workspace,
    /// else `Unresolved`. Unlike [`Modules::resolve_python`], no shorter prefix stands
    /// in for a missing module.
    pub fn python_module(&self, from_file: i64, from_path: &str, specifier: &str) -> Target {
        self.python_lookup(from_file, from_path, specifier, |base, home| {
            match self.py_module(&base, from_path, home) {
                Some(id) if !base.is_empty() => Target::Files(vec![id]),
                _ => Target::Unresolved,
            }
        })
    }

    /// The submodule `name` of the Python package whose `__init__` is `package` (at
    /// `path`)
    /// (`pkg/__init__.py` and `x` give `pkg/x.py` or `pkg/x/__init__.py`); `None`
    /// when `package` is no package or has no such submodule.
    pub fn python_submodule(&self, package: i64, path: &str, name: &str) -> Option<i64> {
        let names = self.py_names.get(&package)?;
        let own = names.first()?;
        let is_init = path.ends_with("__init__.py") || path.ends_with("__init__.pyi");
        if !is_init {
            return None;
        }
        self.py_module(&format!("{}.{name}", own.name), path, names)
    }

    /// Resolves `specifier` (leading dots for relative imports) with `base_lookup`
    /// applied to each absolute module name it may stand for.
    fn python_lookup(
        &self,
        from_file: i64,
        from_path: &str,
        specifier: &str,
        base_lookup: impl Fn(String, &[PyName]) -> Target,
    ) -> Target {
        let level = specifier.chars().take_while(|&c| c == '.').count();
        let rest = &specifier[level..];
        let empty = Vec::new();
        let home = self.py_names.get(&from_file).unwrap_or(&empty);
        if level == 0 {
            let target = base_lookup(rest.to_string(), home);
            // Unresolved only when a file of the workspace is that top-level module; a
            // name that is nobody's, or only a namespace directory here (other portions
            // may be installed), is external.
            let top = rest.split('.').next().unwrap_or_default();
            return match target {
                Target::Files(_) => target,
                _ if self.py_modules.contains_key(top) => Target::Unresolved,
                _ => Target::External,
            };
        }
        // The package of this file: the module itself for __init__, else its parent.
        let is_init = from_path.ends_with("/__init__.py")
            || from_path.ends_with("/__init__.pyi")
            || from_path == "__init__.py"
            || from_path == "__init__.pyi";
        let mut first = None;
        for own in home {
            let mut parts: Vec<&str> = own.name.split('.').filter(|s| !s.is_empty()).collect();
            if !is_init {
                parts.pop();
            }
            if (1..level).any(|_| parts.pop().is_none()) {
                continue;
            }
            let mut base = parts.join(".");
            if !rest.is_empty() {
                if !base.is_empty() {
                    base.push('.');
                }
                base.push_str(rest);
            }
            let target = base_lookup(base, home);
            if matches!(target, Target::Files(_)) {
                return target;
            }
            first.get_or_insert(target);
        }
        first.unwrap_or(Target::Unresolved)
    }

    /// The files `from BASE import names` (or `import BASE` without names) names.
    fn py_from_base(
        &self,
        base: String,
        names: &[&str],
        from_path: &str,
        home: &[PyName],
    ) -> Target {
        let mut files = Vec::new();
        let mut need_base = names.is_empty() || names.contains(&"*");
        for name in names.iter().filter(|n| **n != "*") {
            let sub = if base.is_empty() {
                name.to_string()
            } else {
                format!("{base}.{name}")
            };
            match self.py_module(&sub, from_path, home) {
                Some(id) => files.push(id),
                None => need_base = true,
            }
        }
        if need_base && !base.is_empty() {
            if let Some(id) = self.py_module_or_parent(&base, from_path, home) {
                files.push(id);
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
    /// its TypeScript source; then as a directory: its `package.json` entry point
    /// (`main`, ...), then an `index` file (Node's LOAD_AS_FILE, LOAD_AS_DIRECTORY).
    fn js_file(&mut self, base: &str) -> Option<i64> {
        self.js_file_at(base, 0)
    }

    fn js_file_at(&mut self, base: &str, depth: usize) -> Option<i64> {
        if let Some(id) = self.js_plain_file(base) {
            return Some(id);
        }
        let manifest = if depth < 4 { self.manifest(base) } else { None };
        if let Some(m) = manifest {
            for entry in &m.entries {
                let Some(target) = join_normalized(base, entry) else {
                    continue;
                };
                if target != base {
                    if let Some(id) = self.js_file_at(&target, depth + 1) {
                        return Some(id);
                    }
                }
            }
        }
        self.js_extensions.iter().find_map(|ext| {
            let index = if base.is_empty() {
                format!("index{ext}")
            } else {
                format!("{base}/index{ext}")
            };
            self.file(&index)
        })
    }

    /// `base` as a file: as is, with each extension, or as the TypeScript source of a
    /// `.js`-family name (`x.js` → `x.ts`, `x.tsx`; `x.mjs` → `x.mts`; `x.d.ts` → `x.ts`).
    fn js_plain_file(&self, base: &str) -> Option<i64> {
        if let Some(id) = self.file(base) {
            return Some(id);
        }
        for ext in self.js_extensions {
            if let Some(id) = self.file(&format!("{base}{ext}")) {
                return Some(id);
            }
        }
        for (js, tss) in [
            (".d.ts", &[".ts", ".tsx"][..]),
            (".d.mts", &[".mts"][..]),
            (".d.cts", &[".cts"][..]),
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
        None
    }

    /// The `package.json` of directory `dir` (cached), if indexed and valid.
    fn manifest(&mut self, dir: &str) -> Option<Arc<Manifest>> {
        if let Some(m) = self.manifests.get(dir) {
            return m.clone();
        }
        let path = if dir.is_empty() {
            "package.json".to_string()
        } else {
            format!("{dir}/package.json")
        };
        let m = if self.by_path.contains_key(&path) {
            read_manifest(&self.root, &path).map(Arc::new)
        } else {
            None
        };
        self.manifests.insert(dir.to_string(), m.clone());
        m
    }

    /// The nearest directory at or above `dir` with a `package.json`, and that manifest.
    fn nearest_manifest(&mut self, dir: &str) -> Option<(String, Arc<Manifest>)> {
        let mut d = dir.to_string();
        loop {
            if let Some(m) = self.manifest(&d) {
                return Some((d, m));
            }
            if d.is_empty() {
                return None;
            }
            d = parent_dir(&d).to_string();
        }
    }

    /// The nearest tsconfig.json / jsconfig.json at or above `dir`, with its `extends`
    /// chain applied.
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
                found = Some(Arc::new(read_tsconfig(&self.root, &path)));
                break;
            }
        }
        if found.is_none() && !dir.is_empty() {
            found = self.tsconfig(parent_dir(dir));
        }
        self.tsconfigs.insert(dir.to_string(), found.clone());
        found
    }

    /// Workspace package name → directories, from every indexed `package.json` that has
    /// a `name` (node_modules is never indexed, so these are the workspace's own).
    fn workspace_packages(&mut self) -> &HashMap<String, Vec<String>> {
        if self.packages.is_none() {
            let mut dirs: Vec<String> = self
                .by_path
                .keys()
                .filter(|p| *p == "package.json" || p.ends_with("/package.json"))
                .map(|p| parent_dir(p).to_string())
                .collect();
            dirs.sort();
            let mut packages: HashMap<String, Vec<String>> = HashMap::new();
            for dir in dirs {
                if let Some(name) = self.manifest(&dir).and_then(|m| m.name.clone()) {
                    packages.entry(name).or_default().push(dir);
                }
            }
            self.packages = Some(packages);
        }
        self.packages.get_or_insert_with(HashMap::new)
    }

    /// A build output path (`pkg/dist/x.js`) back to its source (`pkg/src/x.ts`), through
    /// the `outDir`/`rootDir` of the tsconfig that applies to `pkg_dir` (`rootDir`
    /// defaults to `pkg_dir/src`, then `pkg_dir`).
    fn js_source_of_output(&mut self, pkg_dir: &str, target: &str) -> Option<i64> {
        let cfg = self.tsconfig(pkg_dir)?;
        let out = cfg.out_dir.as_deref()?;
        let rel = if out.is_empty() {
            target
        } else {
            target.strip_prefix(out)?.strip_prefix('/')?
        };
        let roots: Vec<String> = match &cfg.root_dir {
            Some(r) => vec![r.clone()],
            None => vec![
                join_normalized(pkg_dir, "src").unwrap_or_default(),
                pkg_dir.to_string(),
            ],
        };
        roots.iter().find_map(|r| {
            let candidate = if r.is_empty() {
                rel.to_string()
            } else {
                format!("{r}/{rel}")
            };
            self.js_plain_file(&candidate)
                .or_else(|| self.js_file(&candidate))
        })
    }

    /// A package-relative target (`./dist/index.js`) of package `pkg_dir` to a file: the
    /// file itself, else its source through tsconfig `outDir`/`rootDir`.
    fn js_package_target(&mut self, pkg_dir: &str, target: &str) -> Option<i64> {
        if !(target.starts_with("./") || target == ".") {
            return None;
        }
        let path = join_normalized(pkg_dir, target)?;
        if !(path == pkg_dir || pkg_dir.is_empty() || path.starts_with(&format!("{pkg_dir}/"))) {
            return None;
        }
        self.js_file(&path)
            .or_else(|| self.js_source_of_output(pkg_dir, &path))
    }

    /// `subpath` (`.` or `./x`) of the workspace package in `pkg_dir`: through
    /// `exports` when the manifest has it (its conditions in written order, the first
    /// target that is a file winning); else the entry points and plain subpaths.
    fn js_in_package(&mut self, pkg_dir: &str, subpath: &str) -> Target {
        let Some(m) = self.manifest(pkg_dir) else {
            return Target::Unresolved;
        };
        if let Some(exports) = &m.exports {
            return match map_subpath(exports, subpath) {
                Mapped::Targets(targets) => targets
                    .iter()
                    .find_map(|t| self.js_package_target(pkg_dir, t))
                    .map_or(Target::Unresolved, |id| Target::Files(vec![id])),
                Mapped::NotExported => Target::Unresolved,
            };
        }
        if subpath == "." {
            for entry in &m.entries {
                let entry = if entry.starts_with("./") || entry.starts_with("../") {
                    entry.clone()
                } else {
                    format!("./{entry}")
                };
                if let Some(id) = self.js_package_target(pkg_dir, &entry) {
                    return Target::Files(vec![id]);
                }
            }
        }
        match self.js_package_target(pkg_dir, subpath) {
            Some(id) => Target::Files(vec![id]),
            None => Target::Unresolved,
        }
    }

    /// A bare specifier naming a workspace package (`@acme/ui`, `@acme/ui/button`); the
    /// package nearest to the importer when several directories share the name.
    /// `None` when no workspace package has that name.
    fn js_workspace_package(&mut self, from_path: &str, spec: &str) -> Option<Target> {
        let (name, subpath) = split_bare(spec)?;
        let dirs = self.workspace_packages().get(name)?.clone();
        // Longest common directory prefix; the first in path order on a tie.
        let mut best: Option<(usize, &String)> = None;
        for d in &dirs {
            let len = common_dir_len(&format!("{d}/package.json"), from_path);
            if best.is_none_or(|(b, _)| len > b) {
                best = Some((len, d));
            }
        }
        let dir = best?.1.clone();
        Some(self.js_in_package(&dir, &subpath))
    }

    /// Resolves a JS/TS specifier written in `from_path`, in the order of TypeScript's
    /// and Node's resolvers: relative paths; `#name` through the nearest package.json
    /// `imports`; tsconfig `paths` (best pattern, targets in order), then `baseUrl`;
    /// workspace packages by name (`exports`, else `main`/`module`/`types`, else the
    /// subpath as a file); anything else is an external package. A specifier without
    /// an extension tries TypeScript first from a TypeScript file, JavaScript first
    /// from a JavaScript file (a declaration file beside a `.js` is not what runs).
    pub fn resolve_js(&mut self, from_path: &str, specifier: &str) -> Target {
        self.js_extensions = if Language::from_path(from_path) == Some(Language::JavaScript) {
            JS_EXTENSIONS
        } else {
            TS_EXTENSIONS
        };
        let spec = specifier.split(['?', '#']).next().unwrap_or(specifier);
        let spec = if specifier.starts_with('#') {
            specifier
        } else {
            spec
        };
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
        if spec.starts_with('#') {
            let Some((dir, m)) = self.nearest_manifest(parent_dir(from_path)) else {
                return Target::Unresolved;
            };
            return match m.imports.as_ref().map(|i| map_subpath(i, spec)) {
                Some(Mapped::Targets(targets)) => {
                    for t in &targets {
                        if let Some(id) = self.js_package_target(&dir, t) {
                            return Target::Files(vec![id]);
                        }
                    }
                    // A bare target (`"#x": "some-package"`) leaves the workspace.
                    if targets.iter().any(|t| !t.starts_with('.')) {
                        Target::External
                    } else {
                        Target::Unresolved
                    }
                }
                _ => Target::Unresolved,
            };
        }
        if let Some(cfg) = self.tsconfig(parent_dir(from_path)) {
            if let Some(targets) = match_paths(&cfg.paths, spec) {
                for t in &targets {
                    if let Some(id) = self.js_file(t) {
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
        if let Some(target) = self.js_workspace_package(from_path, spec) {
            return target;
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

    /// The directory of the crate a Rust file belongs to (the one holding the nearest
    /// `lib.rs` or `main.rs` above it; `""` at the workspace root), `None` when no crate
    /// root is above it.
    pub fn rust_crate_dir(&self, path: &str) -> Option<String> {
        self.rust_crate_root(path).map(|(dir, _)| dir)
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
        // A name that is no module: its longest prefix that is one (importing
        // `pkg.missing` runs `pkg/__init__.py`; grimp records the same edge).
        assert_eq!(
            m.resolve_python(2, "pkg/a.py", "pkg.missing", &[]),
            Target::Files(vec![1])
        );
        assert_eq!(
            m.resolve_python(2, "pkg/a.py", "pkg.sub.b.func", &[]),
            Target::Files(vec![4])
        );
        assert_eq!(
            m.resolve_python(2, "pkg/a.py", ".nothing", &["x"]),
            Target::Files(vec![1])
        );
    }

    #[test]
    fn python_namespace_packages_and_src_layouts() {
        let m = modules(&[
            "src/ns/common.py",        // 1: namespace package `ns` (no __init__.py)
            "src/ns/plug/__init__.py", // 2
            "src/ns/plug/a.py",        // 3
            "src/app/__init__.py",     // 4: src layout, regular package
            "src/app/core.py",         // 5
            "tests/test_core.py",      // 6: loose test module
        ]);
        assert_eq!(
            m.resolve_python(6, "tests/test_core.py", "app.core", &[]),
            Target::Files(vec![5])
        );
        assert_eq!(
            m.resolve_python(6, "tests/test_core.py", "ns.plug", &["a"]),
            Target::Files(vec![3])
        );
        assert_eq!(
            m.resolve_python(6, "tests/test_core.py", "ns.common", &[]),
            Target::Files(vec![1])
        );
        // `..` from ns.plug.a is the namespace package ns.
        assert_eq!(
            m.resolve_python(3, "src/ns/plug/a.py", "..common", &["f"]),
            Target::Files(vec![1])
        );
        assert_eq!(
            m.resolve_python(3, "src/ns/plug/a.py", "app", &["core"]),
            Target::Files(vec![5])
        );
    }

    #[test]
    fn python_clashing_names_prefer_the_nearest_file() {
        let m = modules(&[
            "a/src/core/__init__.py", // 1
            "a/tests/t.py",           // 2
            "b/src/core/__init__.py", // 3
            "b/tests/t.py",           // 4
            "c/t.py",                 // 5
        ]);
        assert_eq!(
            m.resolve_python(2, "a/tests/t.py", "core", &[]),
            Target::Files(vec![1])
        );
        assert_eq!(
            m.resolve_python(4, "b/tests/t.py", "core", &[]),
            Target::Files(vec![3])
        );
        // Equally far from both, and neither is named from the root: ambiguous.
        assert_eq!(
            m.resolve_python(5, "c/t.py", "core", &[]),
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
    fn js_importers_prefer_javascript_ts_importers_typescript() {
        let mut m = modules(&[
            "lib/results.d.ts", // 1
            "lib/results.js",   // 2
            "lib/types.d.ts",   // 3
            "lib/both.js",      // 4
            "lib/both.ts",      // 5
            "pkg/index.d.ts",   // 6
            "pkg/index.js",     // 7
        ]);
        for from in ["index.js", "index.cjs", "index.mjs", "index.jsx"] {
            assert_eq!(m.resolve_js(from, "./lib/results"), Target::Files(vec![2]));
            assert_eq!(m.resolve_js(from, "./lib/both"), Target::Files(vec![4]));
            assert_eq!(m.resolve_js(from, "./pkg"), Target::Files(vec![7]));
            // No JavaScript file: the declaration file is all there is.
            assert_eq!(m.resolve_js(from, "./lib/types"), Target::Files(vec![3]));
        }
        for from in ["index.ts", "index.tsx", "index.mts", "index.d.ts"] {
            assert_eq!(m.resolve_js(from, "./lib/results"), Target::Files(vec![1]));
            assert_eq!(m.resolve_js(from, "./lib/both"), Target::Files(vec![5]));
            assert_eq!(m.resolve_js(from, "./pkg"), Target::Files(vec![6]));
        }
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
