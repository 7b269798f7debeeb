//! Resolution: references (imports, calls, base names) to edges.
//!
//! Imports go to files through [`Modules`]. Calls and base names are resolved by name,
//! scoped by the caller's imports (SPEC §4), with a confidence on the edge:
//!
//! | rule (first that applies)                                   | confidence |
//! |-------------------------------------------------------------|-----------:|
//! | one definition in the caller's own file (`self.f()` prefers the caller's class) | 0.95 |
//! | one definition in the files in scope of the caller's file (below) | 0.80 |
//! | none there: one definition in the files those re-export (barrels, `__init__`) | 0.80 |
//! | one definition of that name in the whole workspace           | 0.50 |
//!
//! The files in scope of a file: the files it imports; for Go and Java also the other
//! files of its package (Go: its directory; Java: the directories of its declared
//! package in every source root), which need no import; for C and C++ also the
//! source file beside each included header with the same stem (`util.h` → `util.c`),
//! where the functions it declares are defined.
//!
//! Only definitions in files of the caller's language family count (JavaScript,
//! TypeScript and TSX are one family, C and C++ another): a Java call never resolves
//! to a C function of the same name.
//!
//! A Go call `pkg.F()` whose qualifier is the local name of one of the file's imports
//! (its alias, else the last element of its path) is looked up in that package's files
//! only, at 0.80; when that import is external (`fmt.Println`) the call is `external`.
//!
//! Several candidates at the first rule that has any → `ambiguous`; none anywhere →
//! `unresolved`. Nothing is guessed: an ambiguous or unresolved reference keeps no edge.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use super::modules::{Modules, Target};
use super::{IndexError, Progress};
use crate::lang::Language;
use crate::store::files::{Definition, IndexTx, Ref};

/// Confidence of a call resolved in the caller's own file.
pub const CONFIDENCE_SAME_FILE: f64 = 0.95;
/// Confidence of a call resolved in a file the caller's file imports.
pub const CONFIDENCE_IMPORTED: f64 = 0.8;
/// Confidence of a call resolved to the only definition of its name.
pub const CONFIDENCE_GLOBAL: f64 = 0.5;

/// Above this many references, load every definition and import at once instead of
/// querying per name and per file.
const BULK_THRESHOLD: usize = 5_000;

/// What resolving one reference gives: its status, the number of candidates, and the
/// edges to write (`(dst node, confidence)`).
struct Outcome {
    status: &'static str,
    candidates: usize,
    edges: Vec<(i64, f64)>,
}

impl Outcome {
    fn status(status: &'static str, candidates: usize) -> Outcome {
        Outcome {
            status,
            candidates,
            edges: Vec::new(),
        }
    }
}

/// What one Go import of a file gives access to, for `pkg.F()` calls.
#[derive(Debug, Clone)]
enum GoImport {
    /// The package's files in the workspace.
    Files(Vec<i64>),
    /// A package outside the workspace.
    External,
    /// Not found.
    Unresolved,
}

/// Which definitions a call may resolve to: languages of one family call each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Family {
    Rust,
    Python,
    JavaScript,
    Go,
    Java,
    C,
    /// Not a parsed language.
    None,
}

impl Family {
    fn of_path(path: &str) -> Family {
        match Language::from_path(path) {
            Some(Language::Rust) => Family::Rust,
            Some(Language::Python) => Family::Python,
            Some(Language::JavaScript | Language::TypeScript | Language::Tsx) => Family::JavaScript,
            Some(Language::Go) => Family::Go,
            Some(Language::Java) => Family::Java,
            Some(Language::C | Language::Cpp) => Family::C,
            None => Family::None,
        }
    }
}

/// The local name a Go import binds when it has no alias: the last path element
/// without a major-version element (`example.com/x/v2` → `x`), a `.vN` suffix
/// (`gopkg.in/yaml.v3` → `yaml`), a `go-` prefix or `-go`/`.go` suffix
/// (`github.com/mattn/go-sqlite3` → `sqlite3`).
fn go_package_name(path: &str) -> &str {
    let mut parts = path.rsplit('/');
    let mut last = parts.next().unwrap_or(path);
    let is_major = |s: &str| {
        s.strip_prefix('v')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    if is_major(last) {
        if let Some(previous) = parts.next() {
            last = previous;
        }
    }
    if let Some((stem, version)) = last.rsplit_once('.') {
        if is_major(version) {
            last = stem;
        }
    }
    last = last.strip_prefix("go-").unwrap_or(last);
    last = last.strip_suffix("-go").unwrap_or(last);
    last.strip_suffix(".go").unwrap_or(last)
}

/// The definitions of one name, split by language family and by callability (the
/// filter every reference applies before any rule), each part in id order. Built once
/// per name, so a reference to a name with thousands of definitions (`get`, `run`)
/// scans only those of its own family and kind.
#[derive(Debug, Default)]
struct NameDefs(Vec<((Family, bool), Vec<Definition>)>);

impl NameDefs {
    fn new(defs: Vec<Definition>, families: &HashMap<i64, Family>) -> NameDefs {
        let mut parts: Vec<((Family, bool), Vec<Definition>)> = Vec::new();
        for d in defs {
            let family = families.get(&d.file_id).copied().unwrap_or(Family::None);
            let key = (family, d.callable);
            match parts.iter_mut().find(|(k, _)| *k == key) {
                Some((_, list)) => list.push(d),
                None => parts.push((key, vec![d])),
            }
        }
        NameDefs(parts)
    }

    /// The definitions in files of `family` that are (or are not) callable.
    fn get(&self, family: Family, callable: bool) -> &[Definition] {
        self.0
            .iter()
            .find(|(k, _)| *k == (family, callable))
            .map_or(&[], |(_, list)| list.as_slice())
    }
}

/// Resolution state for one run.
pub struct Resolver {
    modules: Modules,
    paths: HashMap<i64, String>,
    /// File → its `file` node: every file's once [`Resolver::load_file_nodes`] ran
    /// (`all_file_nodes`: a bulk resolution or an import re-check), else those looked up
    /// so far by node key. An incremental run touching a few files needs a few of the
    /// thousands.
    file_nodes: HashMap<i64, i64>,
    all_file_nodes: bool,
    defs: HashMap<String, Arc<NameDefs>>,
    bulk: bool,
    imports: HashMap<i64, Arc<[i64]>>,
    /// File → the files it re-exports directly (cache, or all of them in bulk mode).
    reexports: HashMap<i64, Arc<[i64]>>,
    /// File → [`Resolver::behind_barrels`] (cache).
    behind: HashMap<i64, Arc<[i64]>>,
    parents: HashMap<i64, Option<i64>>,
    /// Language family of every file.
    families: HashMap<i64, Family>,
    /// Files in scope of a file (see the module docs), sorted; filled on first use.
    scopes: HashMap<i64, Arc<[i64]>>,
    /// C/C++ header → the source files beside it with the same stem.
    companions: HashMap<i64, Vec<i64>>,
    /// Go files by directory (all of them, tests included: one package per directory).
    go_dirs: HashMap<String, Vec<i64>>,
    /// Go file → its imports by local name, as resolved in this run or read back.
    go_imports: HashMap<i64, Arc<[(String, GoImport)]>>,
    /// Every import of every file is resolved in this run (a build from nothing), so
    /// `go_imports` is complete and the database need not be asked.
    all_imports_in_run: bool,
}

impl Resolver {
    /// Loads the file list (inside the run's transaction, so new files are there).
    /// `fresh`: the run builds the index from nothing (every reference is new).
    pub fn new(tx: &IndexTx<'_>, root: &Path, fresh: bool) -> Result<Resolver, IndexError> {
        let files = tx.file_paths()?;
        let modules = Modules::new(root, &files);
        let mut families = HashMap::with_capacity(files.len());
        let mut sources: HashMap<(&str, &str), Vec<i64>> = HashMap::new();
        let mut go_dirs: HashMap<String, Vec<i64>> = HashMap::new();
        for (id, path) in &files {
            let family = Family::of_path(path);
            families.insert(*id, family);
            let dir = super::modules::parent_dir(path);
            match family {
                Family::C => {
                    if let Some((stem, ext)) = path.rsplit_once('.') {
                        if !is_header_extension(ext) {
                            let stem = stem.rsplit('/').next().unwrap_or(stem);
                            sources.entry((dir, stem)).or_default().push(*id);
                        }
                    }
                }
                Family::Go => go_dirs.entry(dir.to_string()).or_default().push(*id),
                _ => {}
            }
        }
        let mut companions = HashMap::new();
        for (id, path) in &files {
            if let Some((stem, ext)) = path.rsplit_once('.') {
                if families.get(id) == Some(&Family::C) && is_header_extension(ext) {
                    let dir = super::modules::parent_dir(path);
                    let stem = stem.rsplit('/').next().unwrap_or(stem);
                    if let Some(list) = sources.get(&(dir, stem)) {
                        companions.insert(*id, list.clone());
                    }
                }
            }
        }
        Ok(Resolver {
            modules,
            paths: files.into_iter().collect(),
            file_nodes: HashMap::new(),
            all_file_nodes: false,
            defs: HashMap::new(),
            bulk: false,
            imports: HashMap::new(),
            reexports: HashMap::new(),
            behind: HashMap::new(),
            parents: HashMap::new(),
            families,
            scopes: HashMap::new(),
            companions,
            go_dirs,
            go_imports: HashMap::new(),
            all_imports_in_run: fresh,
        })
    }

    /// Resolves and writes the references of this run:
    /// - `new`: the references of the files this run parsed (inserted here, with their
    ///   status, in id order);
    /// - older references that may resolve differently now: those in `reresolve`
    ///   (their edges pointed into changed or removed files), call/base references
    ///   naming one of `names` (defined or undefined by this run), and, when files were
    ///   added or removed or a resolution config changed (`recheck_imports`), every
    ///   import whose outcome differs from the stored one when resolved again (checked
    ///   in memory), with the call/base references of its file (their scope moved).
    ///
    /// Imports are resolved before calls, since calls are scoped by imports. Returns
    /// how many references were resolved.
    pub fn run(
        &mut self,
        tx: &IndexTx<'_>,
        new: Vec<Ref>,
        reresolve: &BTreeSet<i64>,
        names: &BTreeSet<String>,
        recheck_imports: bool,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<usize, IndexError> {
        let t = std::time::Instant::now();
        let mut old: HashMap<i64, Ref> = HashMap::new();
        for &id in reresolve {
            if let Some(r) = tx.ref_by_id(id)? {
                old.insert(id, r);
            }
        }
        for name in names {
            for r in tx.refs_named(name)? {
                old.insert(r.id, r);
            }
        }
        if recheck_imports {
            self.load_file_nodes(tx)?;
            let mut moved_files = BTreeSet::new();
            for (r, status, mut dsts) in tx.imports_with_targets()? {
                if old.contains_key(&r.id) {
                    continue;
                }
                let outcome = self.resolve_import(tx, &r)?;
                let mut now: Vec<i64> = outcome.edges.iter().map(|(n, _)| *n).collect();
                now.sort_unstable();
                dsts.dedup();
                if outcome.status != status || now != dsts {
                    moved_files.insert(r.file_id);
                    old.insert(r.id, r);
                }
            }
            for file in moved_files {
                for r in tx.name_refs_of_file(file)? {
                    old.insert(r.id, r);
                }
            }
        }
        let total = new.len() + old.len();
        if total > BULK_THRESHOLD {
            self.load_file_nodes(tx)?;
        }
        tracing::debug!(
            "resolve: {} older references to resolve again, found in {} ms",
            old.len(),
            t.elapsed().as_millis()
        );
        progress(Progress::Resolving { refs: total });
        for id in old.keys() {
            tx.delete_edges_of_ref(*id)?;
        }
        // Imports first, each part in id order; sorted in place (a build from nothing
        // holds a few hundred thousand references: no second copy of them).
        let mut new = new;
        let mut old: Vec<Ref> = old.into_values().collect();
        new.sort_unstable_by_key(resolution_order);
        old.sort_unstable_by_key(resolution_order);
        let is_import = |r: &Ref| r.kind == "import";
        let (new_split, old_split) = (
            new.partition_point(is_import),
            old.partition_point(is_import),
        );

        let t = std::time::Instant::now();
        for (r, is_new) in merge_by_id(&new[..new_split], &old[..old_split]) {
            let outcome = self.resolve_import(tx, r)?;
            self.write(tx, r, is_new, "imports", outcome)?;
        }
        tracing::debug!(
            "resolve: {} imports in {} ms",
            new_split + old_split,
            t.elapsed().as_millis()
        );
        let t = std::time::Instant::now();
        if total > BULK_THRESHOLD {
            self.bulk = true;
            let families = &self.families;
            self.defs = tx
                .all_definitions()?
                .into_iter()
                .map(|(k, v)| (k, Arc::new(NameDefs::new(v, families))))
                .collect();
            self.imports = tx
                .all_imported_files()?
                .into_iter()
                .map(|(k, v)| (k, Arc::from(v)))
                .collect();
            self.reexports = tx
                .all_reexported_files()?
                .into_iter()
                .map(|(k, v)| (k, Arc::from(v)))
                .collect();
            tracing::debug!("resolve: bulk load in {} ms", t.elapsed().as_millis());
        }
        let t = std::time::Instant::now();
        for (r, is_new) in merge_by_id(&new[new_split..], &old[old_split..]) {
            let kind = match r.kind {
                "call" => "calls",
                "inherit" => "inherits",
                _ => "implements",
            };
            let outcome = self.resolve_name(tx, r)?;
            self.write(tx, r, is_new, kind, outcome)?;
        }
        tracing::debug!(
            "resolve: {} names in {} ms",
            total - new_split - old_split,
            t.elapsed().as_millis()
        );
        Ok(total)
    }

    /// Writes a reference's status and its edges.
    fn write(
        &self,
        tx: &IndexTx<'_>,
        r: &Ref,
        is_new: bool,
        kind: &str,
        o: Outcome,
    ) -> Result<(), IndexError> {
        if is_new {
            tx.insert_ref(r, o.status, o.candidates)?;
        } else {
            tx.set_ref_status(r.id, o.status, o.candidates)?;
        }
        for (dst, confidence) in o.edges {
            tx.insert_edge(
                r.src_id,
                dst,
                kind,
                r.file_id,
                Some(r.line),
                confidence,
                Some(r.id),
            )?;
        }
        Ok(())
    }

    /// Loads the `file` node of every file (once).
    fn load_file_nodes(&mut self, tx: &IndexTx<'_>) -> Result<(), IndexError> {
        if !self.all_file_nodes {
            self.file_nodes = tx.file_node_ids()?;
            self.all_file_nodes = true;
        }
        Ok(())
    }

    /// The `file` node of a file, if it has one.
    fn file_node(&mut self, tx: &IndexTx<'_>, file_id: i64) -> Result<Option<i64>, IndexError> {
        if let Some(&node) = self.file_nodes.get(&file_id) {
            return Ok(Some(node));
        }
        if self.all_file_nodes {
            return Ok(None);
        }
        let Some(path) = self.paths.get(&file_id) else {
            return Ok(None);
        };
        let node = tx.node_id_by_key(&super::file_key(path))?;
        if let Some(node) = node {
            self.file_nodes.insert(file_id, node);
        }
        Ok(node)
    }

    fn resolve_import(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let Some(path) = self.paths.get(&r.file_id) else {
            return Ok(Outcome::status("unresolved", 0));
        };
        let form = r.form.unwrap_or("import");
        let target = match Language::from_path(path) {
            Some(Language::Python) => {
                let names: Vec<&str> = r
                    .qualifier
                    .as_deref()
                    .map(|q| q.split(',').collect())
                    .unwrap_or_default();
                self.modules
                    .resolve_python(r.file_id, path, &r.name, &names)
            }
            Some(Language::Rust) => self.modules.resolve_rust(r.file_id, path, form, &r.name),
            Some(l) if l.is_js_family() => {
                let path = path.clone();
                self.modules.resolve_js(&path, &r.name)
            }
            Some(Language::Go) => {
                let path = path.clone();
                let target = self.modules.resolve_go(&path, &r.name);
                if self.all_imports_in_run {
                    self.record_go_import(r, &target);
                }
                target
            }
            Some(Language::Java) => {
                let path = path.clone();
                self.modules.resolve_java(&path, &r.name)
            }
            Some(l) if l.is_c_family() => {
                let path = path.clone();
                let system = form == "include_system";
                self.modules.resolve_include(&path, &r.name, system)
            }
            _ => Target::Unresolved,
        };
        Ok(match target {
            Target::Files(files) => {
                let mut edges: Vec<(i64, f64)> = Vec::with_capacity(files.len());
                // A file importing itself is no dependency.
                for f in files.into_iter().filter(|&f| f != r.file_id) {
                    if let Some(node) = self.file_node(tx, f)? {
                        edges.push((node, 1.0));
                    }
                }
                Outcome {
                    status: "resolved",
                    candidates: edges.len(),
                    edges,
                }
            }
            Target::External => Outcome::status("external", 0),
            Target::Unresolved => Outcome::status("unresolved", 0),
        })
    }

    /// Remembers a Go import of this run for `pkg.F()` calls (builds from nothing only;
    /// otherwise the imports are read back from the database, see [`Resolver::go_imports`]).
    fn record_go_import(&mut self, r: &Ref, target: &Target) {
        let import = match target {
            Target::Files(files) => GoImport::Files(files.clone()),
            Target::External => GoImport::External,
            Target::Unresolved => GoImport::Unresolved,
        };
        let local = go_local_name(&r.name, r.qualifier.as_deref());
        let entry = self
            .go_imports
            .entry(r.file_id)
            .or_insert_with(|| Arc::from(Vec::new()));
        let mut list: Vec<(String, GoImport)> = entry.iter().cloned().collect();
        list.push((local, import));
        *entry = Arc::from(list);
    }

    /// The imports of a Go file by local name.
    fn go_imports(
        &mut self,
        tx: &IndexTx<'_>,
        file_id: i64,
    ) -> Result<Arc<[(String, GoImport)]>, IndexError> {
        if let Some(known) = self.go_imports.get(&file_id) {
            return Ok(Arc::clone(known));
        }
        let list: Arc<[(String, GoImport)]> = if self.all_imports_in_run {
            Arc::from(Vec::new())
        } else {
            tx.file_imports(file_id)?
                .into_iter()
                .map(|import| {
                    let local = go_local_name(&import.specifier, import.qualifier.as_deref());
                    let target = match import.status.as_str() {
                        "resolved" => GoImport::Files(import.files),
                        "external" => GoImport::External,
                        _ => GoImport::Unresolved,
                    };
                    (local, target)
                })
                .collect::<Vec<_>>()
                .into()
        };
        self.go_imports.insert(file_id, Arc::clone(&list));
        Ok(list)
    }

    /// The files in scope of `file_id` (module docs), sorted.
    fn scope(&mut self, tx: &IndexTx<'_>, file_id: i64) -> Result<Arc<[i64]>, IndexError> {
        if let Some(known) = self.scopes.get(&file_id) {
            return Ok(Arc::clone(known));
        }
        let mut files: Vec<i64> = self.imported(tx, file_id)?.to_vec();
        match self.families.get(&file_id) {
            Some(Family::Go) => {
                if let Some(path) = self.paths.get(&file_id) {
                    let dir = super::modules::parent_dir(path);
                    files.extend(self.go_dirs.get(dir).into_iter().flatten());
                }
            }
            Some(Family::Java) => {
                if let Some(path) = self.paths.get(&file_id) {
                    let dir = super::modules::parent_dir(path);
                    files.extend(self.modules.java_package(dir));
                }
            }
            Some(Family::C) => {
                let headers = files.clone();
                for header in headers {
                    files.extend(self.companions.get(&header).into_iter().flatten());
                }
            }
            _ => {}
        }
        files.sort_unstable();
        files.dedup();
        let files: Arc<[i64]> = Arc::from(files);
        self.scopes.insert(file_id, Arc::clone(&files));
        Ok(files)
    }

    fn definitions(&mut self, tx: &IndexTx<'_>, name: &str) -> Result<Arc<NameDefs>, IndexError> {
        if let Some(d) = self.defs.get(name) {
            return Ok(Arc::clone(d));
        }
        let d = Arc::new(if self.bulk {
            NameDefs::default()
        } else {
            NameDefs::new(tx.definitions_named(name)?, &self.families)
        });
        self.defs.insert(name.to_string(), Arc::clone(&d));
        Ok(d)
    }

    fn imported(&mut self, tx: &IndexTx<'_>, file_id: i64) -> Result<Arc<[i64]>, IndexError> {
        if let Some(i) = self.imports.get(&file_id) {
            return Ok(Arc::clone(i));
        }
        let i: Arc<[i64]> = if self.bulk {
            Arc::from(Vec::new())
        } else {
            match self.file_node(tx, file_id)? {
                Some(node) => Arc::from(tx.imported_files(node)?),
                None => Arc::from(Vec::new()),
            }
        };
        self.imports.insert(file_id, Arc::clone(&i));
        Ok(i)
    }

    /// The files re-exported, transitively, by the files `file_id` imports
    /// (`export * from './button'` in an `index.ts`, `from .impl import Thing` in an
    /// `__init__.py`), less the files it imports itself, sorted: a name imported
    /// through a barrel is defined behind it.
    fn behind_barrels(&mut self, tx: &IndexTx<'_>, file_id: i64) -> Result<Arc<[i64]>, IndexError> {
        if let Some(b) = self.behind.get(&file_id) {
            return Ok(Arc::clone(b));
        }
        let direct = self.imported(tx, file_id)?;
        let mut seen: Vec<i64> = direct.to_vec();
        let mut queue: Vec<i64> = direct.to_vec();
        let mut out = Vec::new();
        while let Some(f) = queue.pop() {
            for g in self.reexported(tx, f)?.iter() {
                if *g != file_id && !seen.contains(g) {
                    seen.push(*g);
                    out.push(*g);
                    queue.push(*g);
                }
            }
        }
        out.sort_unstable();
        let out: Arc<[i64]> = Arc::from(out);
        self.behind.insert(file_id, Arc::clone(&out));
        Ok(out)
    }

    /// The files `file_id` re-exports directly.
    fn reexported(&mut self, tx: &IndexTx<'_>, file_id: i64) -> Result<Arc<[i64]>, IndexError> {
        if let Some(r) = self.reexports.get(&file_id) {
            return Ok(Arc::clone(r));
        }
        let r: Arc<[i64]> = if self.bulk {
            Arc::from(Vec::new())
        } else {
            match self.file_node(tx, file_id)? {
                Some(node) => Arc::from(tx.reexported_files(node)?),
                None => Arc::from(Vec::new()),
            }
        };
        self.reexports.insert(file_id, Arc::clone(&r));
        Ok(r)
    }

    fn parent(&mut self, tx: &IndexTx<'_>, node: i64) -> Result<Option<i64>, IndexError> {
        if let Some(p) = self.parents.get(&node) {
            return Ok(*p);
        }
        let p = tx.node_parent(node)?;
        self.parents.insert(node, p);
        Ok(p)
    }

    /// Applies the rules of the module docs to a call or base reference.
    fn resolve_name(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let callable = r.kind == "call";
        let defs = self.definitions(tx, &r.name)?;
        let family = self
            .families
            .get(&r.file_id)
            .copied()
            .unwrap_or(Family::None);
        let matching = defs.get(family, callable);
        let candidates = || matching.iter().filter(|d| d.id != r.src_id);
        let one = |d: &Definition, confidence| Outcome {
            status: "resolved",
            candidates: 1,
            edges: vec![(d.id, confidence)],
        };
        // Go `pkg.F()`: only the package that `pkg` names.
        if family == Family::Go && callable {
            if let Some(qualifier) = r.qualifier.as_deref() {
                let imports = self.go_imports(tx, r.file_id)?;
                if let Some((_, import)) = imports.iter().find(|(local, _)| local == qualifier) {
                    return Ok(match import {
                        GoImport::External => Outcome::status("external", 0),
                        GoImport::Unresolved => Outcome::status("unresolved", 0),
                        GoImport::Files(files) => {
                            let mut found = candidates().filter(|d| files.contains(&d.file_id));
                            match (found.next(), found.next()) {
                                (Some(d), None) => one(d, CONFIDENCE_IMPORTED),
                                (None, _) => Outcome::status("unresolved", 0),
                                (Some(_), Some(_)) => Outcome::status(
                                    "ambiguous",
                                    candidates().filter(|d| files.contains(&d.file_id)).count(),
                                ),
                            }
                        }
                    });
                }
            }
        }
        let count = candidates().count();
        if count == 0 {
            return Ok(Outcome::status("unresolved", 0));
        }
        let same_file = candidates().filter(|d| d.file_id == r.file_id).count();
        if same_file == 1 {
            if let Some(d) = candidates().find(|d| d.file_id == r.file_id) {
                return Ok(one(d, CONFIDENCE_SAME_FILE));
            }
        }
        if same_file > 1 {
            // `self.f()` / `this.f()`: the method of the caller's own class.
            if matches!(
                r.qualifier.as_deref(),
                Some("self" | "this" | "Self" | "cls")
            ) {
                let class = self.parent(tx, r.src_id)?;
                if class.is_some() {
                    let mut own =
                        candidates().filter(|d| d.file_id == r.file_id && d.parent_id == class);
                    if let (Some(d), None) = (own.next(), own.next()) {
                        return Ok(one(d, CONFIDENCE_SAME_FILE));
                    }
                }
            }
            return Ok(Outcome::status("ambiguous", same_file));
        }
        let scope = self.scope(tx, r.file_id)?;
        let in_scope = |d: &&Definition| scope.binary_search(&d.file_id).is_ok();
        let mut via = candidates().filter(in_scope);
        match (via.next(), via.next()) {
            (Some(d), None) => return Ok(one(d, CONFIDENCE_IMPORTED)),
            (Some(_), Some(_)) => {
                let n = candidates().filter(in_scope).count();
                return Ok(Outcome::status("ambiguous", n));
            }
            _ => {}
        }
        // Nothing in the imported files themselves: behind the barrels they re-export.
        let behind = self.behind_barrels(tx, r.file_id)?;
        let is_behind = |d: &&Definition| behind.binary_search(&d.file_id).is_ok();
        let mut via = candidates().filter(is_behind);
        match (via.next(), via.next()) {
            (Some(d), None) => return Ok(one(d, CONFIDENCE_IMPORTED)),
            (Some(_), Some(_)) => {
                let n = candidates().filter(is_behind).count();
                return Ok(Outcome::status("ambiguous", n));
            }
            _ => {}
        }
        if count == 1 {
            if let Some(d) = candidates().next() {
                return Ok(one(d, CONFIDENCE_GLOBAL));
            }
        }
        Ok(Outcome::status("ambiguous", count))
    }
}

/// The order references are resolved in: imports first (calls are scoped by them),
/// then by id.
fn resolution_order(r: &Ref) -> (bool, i64) {
    (r.kind != "import", r.id)
}

/// The references of `new` and `old` (each sorted by [`resolution_order`]) merged in
/// that order, each with `true` when it comes from `new`.
fn merge_by_id<'a>(new: &'a [Ref], old: &'a [Ref]) -> impl Iterator<Item = (&'a Ref, bool)> {
    let (mut new, mut old) = (new.iter().peekable(), old.iter().peekable());
    std::iter::from_fn(move || match (new.peek(), old.peek()) {
        (Some(a), Some(b)) if resolution_order(b) < resolution_order(a) => {
            old.next().map(|r| (r, false))
        }
        (Some(_), _) => new.next().map(|r| (r, true)),
        (None, _) => old.next().map(|r| (r, false)),
    })
}

/// The local name of a Go import: its alias when it has one (`.` and `_` included, which
/// no qualifier matches), else [`go_package_name`] of its path.
fn go_local_name(path: &str, alias: Option<&str>) -> String {
    match alias {
        Some(alias) if !alias.is_empty() => alias.to_string(),
        _ => go_package_name(path).to_string(),
    }
}

/// Extensions of C/C++ headers (and files included like them: `.inl`, `.tcc`, ..).
fn is_header_extension(ext: &str) -> bool {
    matches!(
        ext,
        "h" | "hh" | "hpp" | "hxx" | "h++" | "hp" | "H" | "inl" | "ipp" | "tpp" | "tcc"
    )
}

#[cfg(test)]
mod tests {
    use super::go_package_name;

    #[test]
    fn go_package_names_from_paths() {
        assert_eq!(go_package_name("fmt"), "fmt");
        assert_eq!(go_package_name("net/http"), "http");
        assert_eq!(go_package_name("example.com/app/util"), "util");
        assert_eq!(go_package_name("example.com/x/v2"), "x");
        assert_eq!(go_package_name("gopkg.in/yaml.v3"), "yaml");
        assert_eq!(go_package_name("github.com/mattn/go-sqlite3"), "sqlite3");
        assert_eq!(go_package_name("github.com/x/client-go"), "client");
    }
}
