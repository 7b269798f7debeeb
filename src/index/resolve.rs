//! Resolution: references (imports, base names, calls, value references, exports) to
//! edges.
//!
//! Imports go to files through [`Modules`] (provenance `specifier`, confidence 1.0).
//! Base names and calls go to definitions by rules that follow the language's own
//! scoping; each edge records the rule (`edges.provenance`, see [`Rule`]) and that
//! rule's measured precision as its confidence. The rules per language family live in
//! the submodules (`python.rs`, `javascript.rs`, `rust.rs`, `go.rs`, `java.rs`, `c.rs`
//! for C and C++, the last four sharing `native.rs`; `legacy.rs` keeps the name-scoped
//! rule for files of no family). Nothing is guessed from a name alone: a reference no
//! rule resolves is
//! `unresolved` (or `external`, `ambiguous`) and keeps no edge; the view
//! `possible_calls` lists the definitions that merely share its name.
//!
//! A run resolves in four phases, because each reads what the ones before wrote:
//! imports (everything else follows import bindings), exports (bases and calls follow
//! renamed and default exports), bases (calls follow the class hierarchy), then calls
//! and value references (a name used as a value, not called: resolved as a call of
//! that name would be, written as a `references` edge).

mod c;
mod go;
mod java;
mod javascript;
mod legacy;
mod native;
mod python;
pub mod rules;
mod rust;
mod symbols;

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::import_resolution::{Modules, Target};
use super::interface::dep_key;
use super::ref_queue::{merge_by_id, phase_of, RefQueue};
use super::{IndexError, Progress};
use crate::lang::Language;
use crate::store::files::{DefKind, Definition, IndexTx, Ref, RefLookups, RefWriter};
pub use rules::Rule;
use symbols::Symbols;

/// Above this many references, load every definition, import and base at once instead
/// of querying per name, file and class.
const BULK_THRESHOLD: usize = 5_000;

/// A bulk run resolving at least this many names, and at least a third of all the
/// references, writes them with the secondary indexes of `refs`, `edges` and
/// `ref_dep_sets` suspended (see [`Resolver::run`]). The pipeline uses the same bar for
/// the references of the files a run rewrites, to suspend the lookup indexes before it
/// writes them (see `IndexTx::suspend_lookup_indexes`).
pub(super) const SUSPEND_MIN: usize = 20_000;

/// What resolving one reference gives: its status, the number of candidates, and the
/// edges to write (`(dst node, rule)`; rule `None` for an import edge).
pub(super) struct Outcome {
    status: &'static str,
    candidates: usize,
    edges: Vec<(i64, Option<Rule>)>,
}

impl Outcome {
    fn status(status: &'static str, candidates: usize) -> Outcome {
        Outcome {
            status,
            candidates,
            edges: Vec::new(),
        }
    }

    /// One edge to `dst` found by `rule`.
    fn edge(dst: i64, rule: Rule) -> Outcome {
        Outcome {
            status: "resolved",
            candidates: 1,
            edges: vec![(dst, Some(rule))],
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
pub(crate) enum Family {
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

/// Resolution state for one run.
pub struct Resolver {
    modules: Modules,
    paths: FxHashMap<i64, String>,
    /// File → its `file` node: every file's once [`Resolver::load_file_nodes`] ran
    /// (`all_file_nodes`: a bulk resolution or an import re-check), else those looked up
    /// so far by node key. An incremental run touching a few files needs a few of the
    /// thousands.
    file_nodes: FxHashMap<i64, i64>,
    all_file_nodes: bool,
    /// Definitions, imports, exports, bases and signatures read so far.
    symbols: Symbols,
    /// Python: attribute lookups of modules, by (module file, name).
    py_members: FxHashMap<(i64, Box<str>), Option<python::Value>>,
    /// Python: the module-level aliases being followed, by (file, name): one that
    /// comes back to itself (`A = B`, `B = A`) names nothing.
    aliases_followed: Vec<(i64, Box<str>)>,
    /// Python functions whose recorded `return` value is being looked up (a function
    /// returning its own result ends there).
    returns_followed: Vec<i64>,
    /// Python: method resolution orders by class node.
    mros: FxHashMap<i64, Arc<python::Mro>>,
    /// The keys (see [`dep_key`]) the reference being resolved looked up so far:
    /// pushed by the Python rules at each lookup in a file, written with the reference
    /// as one set of `ref_dep_sets` (those of its own file left out: its references are
    /// all new when it changes).
    deps: Vec<i64>,
    /// The key sets written in this run (whole, not by id: two sets sharing an id are
    /// both written, as the union of their keys under that id).
    dep_sets: FxHashSet<Vec<i64>>,
    /// The keys each `py_members` entry was computed from (a cache hit adds them).
    member_deps: FxHashMap<(i64, Box<str>), Arc<[i64]>>,
    /// The keys each `mros` entry was computed from.
    mro_deps: FxHashMap<i64, Arc<[i64]>>,
    /// Rust, Go, Java, C/C++: lookups and members found so far.
    native: native::Caches,
    bulk: bool,
    imports: FxHashMap<i64, Arc<[i64]>>,
    /// File → the files it re-exports directly (cache, or all of them in bulk mode).
    reexports: FxHashMap<i64, Arc<[i64]>>,
    /// File → [`Resolver::behind_barrels`] (cache).
    behind: FxHashMap<i64, Arc<[i64]>>,
    /// Language family of every file.
    families: FxHashMap<i64, Family>,
    /// Files in scope of a file (see `legacy.rs`), sorted; filled on first use.
    scopes: FxHashMap<i64, Arc<[i64]>>,
    /// C/C++ header → the source files beside it with the same stem.
    companions: FxHashMap<i64, Vec<i64>>,
    /// Go files by directory (all of them, tests included: one package per directory).
    go_dirs: FxHashMap<String, Vec<i64>>,
    /// C/C++ include lists read so far or kept from earlier runs (see
    /// [`FileTables`]).
    includes: FxHashMap<i64, Arc<[i64]>>,
    /// Go file → its imports by local name, as resolved in this run or read back.
    go_imports: FxHashMap<i64, Arc<[(String, GoImport)]>>,
    /// Every import of every file is resolved in this run (a build from nothing), so
    /// `go_imports` is complete and the database need not be asked.
    all_imports_in_run: bool,
    /// The run suspended the lookup indexes of `refs` and `ref_dep_sets` before
    /// writing ([`IndexTx::suspend_lookup_indexes`]): lookups by name and by key scan
    /// the tables once instead ([`Resolver::scan_lookups`]).
    scan_lookups: bool,
    /// The snapshot those key lookups read, taken at the first of them.
    ref_lookups: Option<RefLookups>,
}

/// What a resolver derives from the list of indexed files alone: the module and
/// include lookups, paths, language families, C companions and Go directories. A
/// long-lived process keeps it between runs whose file set did not change (see
/// [`super::ResolverCache`]): on the Linux kernel, building it reads 78k paths and
/// takes 60–110 ms, about half of a one-file edit's run once the walk is left out.
pub struct FileTables {
    modules: Modules,
    paths: FxHashMap<i64, String>,
    families: FxHashMap<i64, Family>,
    companions: FxHashMap<i64, Vec<i64>>,
    go_dirs: FxHashMap<String, Vec<i64>>,
    /// C/C++: file → the files its own includes resolved to, in include order (what the
    /// scope walk reads per file). Kept between runs: an entry goes when its file is
    /// read again ([`FileTables::forget_includes`]) or one of its includes is resolved
    /// again, so what is left is what the database holds. On the Linux kernel a `.c`
    /// file sees about 800 headers, and reading their includes again took 17 ms of a
    /// one-file edit.
    includes: FxHashMap<i64, Arc<[i64]>>,
}

impl FileTables {
    /// Drops the kept include lists of `files` (files a run reads again: their
    /// references are replaced).
    pub fn forget_includes(&mut self, files: impl IntoIterator<Item = i64>) {
        for file in files {
            self.includes.remove(&file);
        }
    }

    /// Builds the tables from every indexed file `(id, root-relative path)`.
    pub fn new(root: &Path, files: Vec<(i64, String)>) -> FileTables {
        let modules = Modules::new(root, &files);
        let mut families = FxHashMap::default();
        families.reserve(files.len());
        let mut sources: HashMap<(&str, &str), Vec<i64>> = HashMap::new();
        let mut go_dirs: FxHashMap<String, Vec<i64>> = FxHashMap::default();
        for (id, path) in &files {
            let family = Family::of_path(path);
            families.insert(*id, family);
            let dir = super::relpath::parent_dir(path);
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
        let mut companions = FxHashMap::default();
        for (id, path) in &files {
            if let Some((stem, ext)) = path.rsplit_once('.') {
                if families.get(id) == Some(&Family::C) && is_header_extension(ext) {
                    let dir = super::relpath::parent_dir(path);
                    let stem = stem.rsplit('/').next().unwrap_or(stem);
                    if let Some(list) = sources.get(&(dir, stem)) {
                        companions.insert(*id, list.clone());
                    }
                }
            }
        }
        drop(sources);
        FileTables {
            modules,
            paths: files.into_iter().collect(),
            families,
            companions,
            go_dirs,
            includes: FxHashMap::default(),
        }
    }
}

impl Resolver {
    /// Loads the file list (inside the run's transaction, so new files are there).
    /// `fresh`: the run builds the index from nothing (every reference is new).
    pub fn new(tx: &IndexTx<'_>, root: &Path, fresh: bool) -> Result<Resolver, IndexError> {
        Ok(Resolver::with_tables(
            FileTables::new(root, tx.file_paths()?),
            fresh,
        ))
    }

    /// A resolver over tables built earlier for the same file set (see [`FileTables`]).
    pub fn with_tables(tables: FileTables, fresh: bool) -> Resolver {
        let FileTables {
            modules,
            paths,
            families,
            companions,
            go_dirs,
            includes,
        } = tables;
        Resolver {
            modules,
            paths,
            file_nodes: Default::default(),
            all_file_nodes: false,
            symbols: Symbols::default(),
            py_members: Default::default(),
            mros: Default::default(),
            aliases_followed: Vec::new(),
            returns_followed: Vec::new(),
            deps: Vec::new(),
            dep_sets: Default::default(),
            member_deps: Default::default(),
            mro_deps: Default::default(),
            native: native::Caches::default(),
            bulk: false,
            imports: Default::default(),
            reexports: Default::default(),
            behind: Default::default(),
            families,
            scopes: Default::default(),
            companions,
            go_dirs,
            includes,
            go_imports: Default::default(),
            all_imports_in_run: fresh,
            scan_lookups: false,
            ref_lookups: None,
        }
    }

    /// Tells the resolver that `refs_name`, `refs_deps` and `ref_dep_sets_key` are
    /// suspended for this run ([`IndexTx::suspend_lookup_indexes`]): the references it
    /// finds by name, and by a key they looked up, come from one scan of the tables
    /// each, not from per-name queries that would each scan them.
    pub fn scan_lookups(&mut self) {
        self.scan_lookups = true;
    }

    /// The references that looked up `key` ([`IndexTx::refs_depending_on`]).
    ///
    /// With the lookup indexes suspended, from a snapshot taken at the first call. Every
    /// call comes before the exports phase writes the first `deps` (imports have no key
    /// sets), so the snapshot holds what the index would say; the exports phase drops
    /// it, so a later call would read the tables again.
    fn refs_depending_on(&mut self, tx: &IndexTx<'_>, key: i64) -> Result<Vec<i64>, IndexError> {
        if !self.scan_lookups {
            return Ok(tx.refs_depending_on(key)?);
        }
        Ok(self.lookups(tx)?.refs_depending_on(key))
    }

    /// The references that looked up any name of `file` ([`IndexTx::refs_depending_on_file`]),
    /// as [`Resolver::refs_depending_on`] reads them.
    fn refs_depending_on_file(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
    ) -> Result<Vec<i64>, IndexError> {
        if !self.scan_lookups {
            return Ok(tx.refs_depending_on_file(file)?);
        }
        Ok(self.lookups(tx)?.refs_depending_on_file(file))
    }

    fn lookups(&mut self, tx: &IndexTx<'_>) -> Result<&RefLookups, IndexError> {
        if self.ref_lookups.is_none() {
            let t = std::time::Instant::now();
            self.ref_lookups = Some(tx.ref_lookups()?);
            tracing::debug!(
                "resolve: key lookups read by a scan in {} ms",
                t.elapsed().as_millis()
            );
        }
        Ok(self.ref_lookups.get_or_insert_with(RefLookups::default))
    }

    /// The file tables back, for the next run over the same file set.
    pub fn into_tables(self) -> FileTables {
        FileTables {
            modules: self.modules,
            paths: self.paths,
            families: self.families,
            companions: self.companions,
            go_dirs: self.go_dirs,
            includes: self.includes,
        }
    }

    /// The family of a file.
    fn family(&self, file_id: i64) -> Family {
        self.families.get(&file_id).copied().unwrap_or(Family::None)
    }

    /// The files whose references may resolve differently when the references of
    /// `files` change: Go and Java files of the same package (they see each other's
    /// names without imports), and C/C++ files beside the same header (a header's
    /// functions are defined in the source file with its stem). Used by the pipeline
    /// with the files' transitive importers.
    pub fn package_mates(&mut self, file_id: i64) -> Vec<i64> {
        let Some(path) = self.paths.get(&file_id).cloned() else {
            return Vec::new();
        };
        let dir = super::relpath::parent_dir(&path).to_string();
        match self.family(file_id) {
            Family::Go => self.go_dirs.get(&dir).cloned().unwrap_or_default(),
            Family::Java => self.modules.java_package(&dir),
            Family::C => self
                .companions
                .iter()
                .filter(|(_, sources)| sources.contains(&file_id))
                .map(|(header, _)| *header)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Resolves and writes the references of this run:
    /// - `new`: the references of the files this run parsed (inserted here, with their
    ///   status, in id order);
    /// - older references that may resolve differently now: those in `reresolve`
    ///   (their edges pointed into changed or removed files, or their files import a
    ///   file whose interface changed), call/base references naming one of `names`
    ///   (defined or undefined by this run), and, when files were added or removed or a
    ///   resolution config changed (`recheck_imports`), every import whose outcome
    ///   differs from the stored one when resolved again (checked in memory), with the
    ///   references of its file and of the files that import it (their scope moved).
    ///
    /// Imports are resolved first, then exports, bases and calls. Returns how many
    /// references were resolved.
    pub fn run(
        &mut self,
        tx: &IndexTx<'_>,
        mut new: RefQueue,
        changes: &Changes,
        recheck_imports: bool,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<usize, IndexError> {
        let Changes {
            reresolve,
            interface_changed,
            names,
            changed_names,
            files_gone,
        } = changes;
        let t = std::time::Instant::now();
        let mut old: HashMap<i64, Ref> = HashMap::new();
        // Older imports resolved again, with what they resolved to before: one whose
        // outcome moves changes the scope of its file.
        let mut prior: HashMap<i64, (String, Vec<i64>)> = HashMap::new();
        for &id in reresolve {
            if let Some(r) = tx.ref_by_id(id)? {
                if r.kind == "import" {
                    if let Some(outcome) = tx.ref_outcome(id)? {
                        prior.insert(id, outcome);
                    }
                }
                old.insert(id, r);
            }
        }
        // Files whose scope changed: the name references of these files and of the
        // files importing them are resolved again after the imports.
        let mut moved_files: BTreeSet<i64> = interface_changed.clone();
        if self.scan_lookups {
            let names: HashSet<&str> = names.iter().map(String::as_str).collect();
            for r in tx.refs_named_any(&names)? {
                old.insert(r.id, r);
            }
        } else {
            for name in names {
                for r in tx.refs_named(name)? {
                    old.insert(r.id, r);
                }
            }
        }
        // Python: the references that looked up a changed name of a changed file, or
        // any name of a removed one.
        let mut depending: BTreeSet<i64> = BTreeSet::new();
        for (file, name) in changed_names {
            depending.extend(self.refs_depending_on(tx, dep_key(*file, name))?);
        }
        for &file in files_gone {
            depending.extend(self.refs_depending_on_file(tx, file)?);
        }
        for id in depending {
            if let std::collections::hash_map::Entry::Vacant(slot) = old.entry(id) {
                if let Some(r) = tx.ref_by_id(id)? {
                    slot.insert(r);
                }
            }
        }
        let mut bases_seen: HashSet<i64> = HashSet::new();
        let more = self.behind_bases(tx, old.values(), &mut bases_seen, |id| {
            old.contains_key(&id)
        })?;
        for r in more {
            old.insert(r.id, r);
        }
        if recheck_imports {
            self.includes.clear();
            self.load_file_nodes(tx)?;
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
        }
        let total = new.len() + old.len();
        tracing::debug!(
            "resolve: {} older references to resolve again, found in {} ms",
            old.len(),
            t.elapsed().as_millis()
        );
        progress(Progress::Resolving { refs: total });
        for id in old.keys() {
            tx.delete_edges_of_ref(*id)?;
        }
        // Phases in order, each part in id order. The new references come packed, in
        // id order per phase (a build from nothing holds millions of them); the older
        // ones are sorted in place.
        let mut old: Vec<Ref> = old.into_values().collect();
        old.sort_unstable_by_key(resolution_order);
        let phase_end = |list: &[Ref], phase: u8| list.partition_point(|r| phase_of(r) <= phase);
        let new_imports = new.phase_len(0);
        let old_imports = phase_end(&old, 0);

        let t = std::time::Instant::now();
        for (r, is_new) in merge_by_id(new.phase(0), &old[..old_imports]) {
            let r = &*r;
            self.includes.remove(&r.file_id);
            let outcome = self.resolve_import(tx, r)?;
            if let Some((status, dsts)) = prior.get(&r.id) {
                let mut now: Vec<i64> = outcome.edges.iter().map(|(n, _)| *n).collect();
                now.sort_unstable();
                if outcome.status != status || &now != dsts {
                    moved_files.insert(r.file_id);
                }
            }
            self.write_now(tx, r, is_new, "imports", outcome, None)?;
        }
        tracing::debug!(
            "resolve: {} imports in {} ms",
            new_imports + old_imports,
            t.elapsed().as_millis()
        );
        // The references of the files whose scope moved, and of every file that sees
        // them through imports (or, in Go, Java and C, through their package).
        let mut extra = self.dependents(tx, &moved_files, &old)?;
        if !extra.is_empty() {
            let known: HashSet<i64> = old.iter().chain(&extra).map(|r| r.id).collect();
            let more =
                self.behind_bases(tx, extra.iter(), &mut bases_seen, |id| known.contains(&id))?;
            extra.extend(more);
        }
        let total = total + extra.len();
        if !extra.is_empty() {
            for r in &extra {
                tx.delete_edges_of_ref(r.id)?;
            }
            old.extend(extra);
            old[old_imports..].sort_unstable_by_key(resolution_order);
        }
        // The added references include exports and bases: their phases end further on.
        let old_exports = phase_end(&old, 1);
        let old_bases = phase_end(&old, 2);
        self.bulk = total > BULK_THRESHOLD || self.all_imports_in_run;
        let t = std::time::Instant::now();
        if self.bulk {
            self.load_file_nodes(tx)?;
            self.symbols.load_definitions(tx)?;
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
        }
        self.symbols.imports_ready(tx)?;
        tracing::debug!("resolve: symbols loaded in {} ms", t.elapsed().as_millis());

        let t = std::time::Instant::now();
        // Exports before bases and calls: those follow renamed and default exports.
        // From here on references get key sets: a key lookup after this point (none
        // is made today) reads a new snapshot.
        self.ref_lookups = None;
        for (r, is_new) in merge_by_id(new.phase(1), &old[old_imports..old_exports]) {
            let r = &*r;
            self.deps.clear();
            let outcome = self.resolve_export(tx, r)?;
            let deps = self.dep_set(tx, r)?;
            self.write_now(tx, r, is_new, "calls", outcome, deps)?;
        }
        self.symbols.exports_ready(tx)?;
        for (r, is_new) in merge_by_id(new.phase(2), &old[old_exports..old_bases]) {
            let r = &*r;
            let kind = if r.kind == "inherit" {
                "inherits"
            } else {
                "implements"
            };
            self.deps.clear();
            let outcome = self.resolve_base(tx, r)?;
            let deps = self.dep_set(tx, r)?;
            self.write_now(tx, r, is_new, kind, outcome, deps)?;
        }
        self.symbols.bases_ready(tx)?;
        // Writing a large share of the references again (a branch switch) costs less
        // with the secondary indexes of refs, edges and ref_dep_sets dropped and rebuilt
        // once after than kept up to date row by row. A bulk run reads nothing through
        // them meanwhile: what it looks up is in memory. (A build from nothing has
        // suspended them already; a run that rewrote many files, the three lookup
        // indexes, which the pipeline rebuilds after this.)
        let names = new.phase_len(3) + (old.len() - old_bases);
        let suspended = if self.bulk
            && !self.all_imports_in_run
            && names >= SUSPEND_MIN
            && names * 3 >= tx.count_refs()?
        {
            let t = std::time::Instant::now();
            let sqls = tx.suspend_indexes_of(&["refs", "edges", "ref_dep_sets"])?;
            tracing::debug!(
                "resolve: {} indexes suspended for {names} names in {} ms",
                sqls.len(),
                t.elapsed().as_millis()
            );
            sqls
        } else {
            Vec::new()
        };
        self.mros.clear();
        self.mro_deps.clear();
        self.native = native::Caches::default();
        // Nothing in this loop reads call or value references, or their edges: they
        // can wait in the writer for a multi-row insert.
        let mut writer = tx.ref_writer();
        for (r, is_new) in merge_by_id(new.phase(3), &old[old_bases..]) {
            self.deps.clear();
            let (outcome, kind) = if r.kind == "reference" {
                (self.resolve_reference(tx, &r)?, "references")
            } else {
                (self.resolve_call(tx, &r)?, "calls")
            };
            let deps = self.dep_set(tx, &r)?;
            self.write(&mut writer, r, is_new, kind, outcome, deps)?;
        }
        writer.flush()?;
        drop(writer);
        tracing::debug!(
            "resolve: {} names in {} ms",
            total - new_imports - old_imports,
            t.elapsed().as_millis()
        );
        // Key sets the references resolved again no longer name stay behind: harmless,
        // but a large run (a branch switch) clears them.
        if self.bulk && !self.all_imports_in_run {
            let t = std::time::Instant::now();
            let gone = tx.delete_unused_dep_sets()?;
            tracing::debug!(
                "resolve: {gone} keys of unused sets deleted in {} ms",
                t.elapsed().as_millis()
            );
        }
        if !suspended.is_empty() {
            let t = std::time::Instant::now();
            tx.restore_indexes(&suspended)?;
            tracing::debug!("resolve: indexes rebuilt in {} ms", t.elapsed().as_millis());
        }
        Ok(total)
    }

    /// The call, base and export references (not yet in `old`) of the files that see
    /// `moved` files: the files that import them, directly or through others, and the
    /// files of the same package (Go, Java) or beside the same header (C, C++).
    fn dependents(
        &mut self,
        tx: &IndexTx<'_>,
        moved: &BTreeSet<i64>,
        old: &[Ref],
    ) -> Result<Vec<Ref>, IndexError> {
        let mut seeds: BTreeSet<i64> = BTreeSet::new();
        for &file in moved {
            seeds.insert(file);
            seeds.extend(self.package_mates(file));
        }
        let files = tx.importer_closure(&seeds)?;
        let known: HashSet<i64> = old.iter().map(|r| r.id).collect();
        let mut out = Vec::new();
        for file in files {
            for r in tx.name_refs_of_file(file)? {
                if !known.contains(&r.id) {
                    out.push(r);
                }
            }
        }
        if !out.is_empty() {
            tracing::debug!(
                "resolve: {} references of files that see {} changed interfaces",
                out.len(),
                moved.len()
            );
        }
        Ok(out)
    }

    /// The references (not `known`) that depend on the outcome of the base references
    /// among `refs`, to their end: a base resolved again may point elsewhere, which
    /// moves the method resolution order of its class, which every reference that read
    /// that class's bases (key: the class's file and name) depends on; those may be
    /// bases again. Python only: the other families record no keys.
    fn behind_bases<'r>(
        &mut self,
        tx: &IndexTx<'_>,
        refs: impl Iterator<Item = &'r Ref>,
        seen: &mut HashSet<i64>,
        known: impl Fn(i64) -> bool,
    ) -> Result<Vec<Ref>, IndexError> {
        let mut queue: Vec<Ref> = refs
            .filter(|r| matches!(r.kind, "inherit" | "implement"))
            .filter(|r| self.family(r.file_id) == Family::Python)
            .cloned()
            .collect();
        let mut out: Vec<Ref> = Vec::new();
        let mut added: HashSet<i64> = HashSet::new();
        while let Some(base) = queue.pop() {
            if !seen.insert(base.id) {
                continue;
            }
            let Some(class) = self.symbols.def(tx, base.src_id)? else {
                continue;
            };
            for id in self.refs_depending_on(tx, dep_key(base.file_id, &class.name))? {
                if known(id) || !added.insert(id) {
                    continue;
                }
                if let Some(r) = tx.ref_by_id(id)? {
                    if matches!(r.kind, "inherit" | "implement") {
                        queue.push(r.clone());
                    }
                    out.push(r);
                }
            }
        }
        Ok(out)
    }

    /// The set of keys a Python reference looked up in other files (`self.deps`,
    /// emptied), stored in `ref_dep_sets` unless it was already: its id, or `None` when
    /// it looked up none. Other families record none.
    fn dep_set(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Option<i64>, IndexError> {
        if self.family(r.file_id) != Family::Python {
            self.deps.clear();
            return Ok(None);
        }
        let own = r.file_id;
        let mut keys: Vec<i64> = self.deps.drain(..).filter(|k| k >> 32 != own).collect();
        if keys.is_empty() {
            return Ok(None);
        }
        keys.sort_unstable();
        keys.dedup();
        let id = dep_set_id(&keys);
        if !self.dep_sets.contains(&keys) {
            tx.insert_dep_set(id, &keys)?;
            self.dep_sets.insert(keys);
        }
        Ok(Some(id))
    }

    /// Resolves a base reference by its file's family.
    fn resolve_base(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        match self.family(r.file_id) {
            Family::Python => self.python_base(tx, r),
            Family::JavaScript => self.js_base(tx, r),
            Family::Rust => self.rust_base(tx, r),
            Family::Go => self.go_base(tx, r),
            Family::Java => self.java_base(tx, r),
            Family::C => self.c_base(tx, r),
            _ => self.legacy_name(tx, r),
        }
    }

    /// Resolves a call reference by its file's family.
    fn resolve_call(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        match self.family(r.file_id) {
            Family::Python => self.python_call(tx, r),
            Family::JavaScript => self.js_call(tx, r),
            Family::Rust => self.rust_call(tx, r),
            Family::Go => self.go_call(tx, r),
            Family::Java => self.java_call(tx, r),
            Family::C => self.c_call(tx, r),
            _ => self.legacy_name(tx, r),
        }
    }

    /// Resolves a name used as a value (`map(f, xs)`, `cb=self.done`, `x = mod.f`) by
    /// the rules its file's family applies to a call of that name: the same lookup, the
    /// same rule and confidence, an edge only to a function, method or class of the
    /// workspace. Families whose extractor records no value references (Rust, Go, Java,
    /// C/C++) leave it `unresolved`.
    fn resolve_reference(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        match self.family(r.file_id) {
            Family::Python => self.python_call(tx, r),
            Family::JavaScript => self.js_call(tx, r),
            _ => Ok(Outcome::status("unresolved", 0)),
        }
    }

    /// An export is resolved when its local name is defined or imported at the top of
    /// its file; it makes no edge.
    fn resolve_export(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        // A Python alias may name a path (`error = os.error`): its first name counts.
        let local = r.qualifier.as_deref().unwrap_or_default();
        let local = local.split('.').next().unwrap_or(local);
        let file_node = self.file_node(tx, r.file_id)?;
        let defined = self
            .symbols
            .named(tx, local)?
            .iter()
            .any(|d| d.file_id == r.file_id && d.parent_id == file_node);
        let imported = defined
            || self
                .symbols
                .imports_of(tx, r.file_id)?
                .iter()
                .any(|i| i.bindings.iter().any(|b| b.local == local));
        Ok(Outcome::status(
            if imported { "resolved" } else { "unresolved" },
            0,
        ))
    }

    /// Writes a reference's status, its set of looked-up keys and its edges at once.
    fn write_now(
        &self,
        tx: &IndexTx<'_>,
        r: &Ref,
        is_new: bool,
        kind: &'static str,
        o: Outcome,
        deps: Option<i64>,
    ) -> Result<(), IndexError> {
        let mut writer = tx.ref_writer();
        self.write(&mut writer, Cow::Borrowed(r), is_new, kind, o, deps)?;
        Ok(writer.flush()?)
    }

    /// Writes a reference's status, its set of looked-up keys and its edges through
    /// `writer`: a new reference and the edges wait there until it flushes; an old
    /// reference's new outcome is written at once.
    fn write<'w>(
        &self,
        writer: &mut RefWriter<'w, '_>,
        r: Cow<'w, Ref>,
        is_new: bool,
        kind: &'static str,
        o: Outcome,
        deps: Option<i64>,
    ) -> Result<(), IndexError> {
        let (id, src_id, file_id, line) = (r.id, r.src_id, r.file_id, r.line);
        if is_new {
            writer.insert_ref(r, o.status, o.candidates, deps)?;
        } else {
            writer
                .tx()
                .set_ref_outcome(id, o.status, o.candidates, deps)?;
        }
        let family = self.family(file_id);
        for (dst, rule) in o.edges {
            let (confidence, provenance) = match rule {
                Some(rule) => (rules::confidence(family, rule), rule.provenance()),
                None => (1.0, "specifier"),
            };
            writer.insert_edge(
                src_id,
                dst,
                kind,
                file_id,
                Some(line),
                confidence,
                provenance,
                Some(id),
            )?;
        }
        Ok(())
    }

    /// Loads the `file` node of every file (once).
    fn load_file_nodes(&mut self, tx: &IndexTx<'_>) -> Result<(), IndexError> {
        if !self.all_file_nodes {
            self.file_nodes = tx.file_node_ids()?.into_iter().collect();
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
                let mut edges: Vec<(i64, Option<Rule>)> = Vec::with_capacity(files.len());
                // A file importing itself is no dependency.
                for f in files.into_iter().filter(|&f| f != r.file_id) {
                    if let Some(node) = self.file_node(tx, f)? {
                        edges.push((node, None));
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

    /// The innermost class around node `src`, `src` itself included (a method's class,
    /// the class of a function nested in a method; Java: an interface, enum or record
    /// too).
    pub(super) fn enclosing_class(
        &mut self,
        tx: &IndexTx<'_>,
        src: i64,
    ) -> Result<Option<Definition>, IndexError> {
        self.innermost(tx, src, DefKind::Type)
    }

    /// The innermost definition of `kind` that node `src` is or is inside of, following
    /// parents at most 64 steps up.
    pub(super) fn innermost(
        &mut self,
        tx: &IndexTx<'_>,
        src: i64,
        kind: DefKind,
    ) -> Result<Option<Definition>, IndexError> {
        let mut at = Some(src);
        for _ in 0..64 {
            let Some(id) = at else { break };
            let Some(d) = self.symbols.def(tx, id)? else {
                break;
            };
            if d.kind == kind {
                return Ok(Some(d));
            }
            at = d.parent_id;
        }
        Ok(None)
    }
}

/// The phase a reference is resolved in: imports (0), then exports (1), then bases
/// (2), then calls and value references (3).
/// The id of a set of keys (sorted, distinct): the 64-bit FNV-1a hash of the keys'
/// little-endian bytes (Fowler, Noll and Vo; the parameters of
/// <http://www.isthe.com/chongo/tech/comp/fnv/>). Two sets with one id are stored as
/// the union of their keys, so an edit would only resolve the references of both
/// again: time, never exactness.
fn dep_set_id(keys: &[i64]) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in keys.iter().flat_map(|k| k.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h as i64
}

/// The order references are resolved in: by phase, then by id.
fn resolution_order(r: &Ref) -> (u8, i64) {
    (phase_of(r), r.id)
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

/// What older references a run must resolve again, gathered while files are written.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// References whose edges pointed into the symbols of changed or removed files.
    pub(crate) reresolve: BTreeSet<i64>,
    /// Files whose interface changed (see `interface.rs`): the references of the
    /// files that import them are resolved again once imports are.
    pub(crate) interface_changed: BTreeSet<i64>,
    /// Names whose references are resolved again everywhere. Rust: the names of the
    /// symbols changed files define or defined (a method may be found through an `impl`
    /// in any file of the crate). C: the names whose definitions in a changed file came,
    /// went or changed, when its includes did not (see `interface::changed_names`).
    pub(crate) names: BTreeSet<String>,
    /// Python: (file, name) whose entries in the file's interface changed (see
    /// `interface::name_digests`), or whose submodule came or went: the references
    /// that looked the name up in that file (`ref_dep_sets`) are resolved again. A Python
    /// file whose interface changed is here instead of in `interface_changed`.
    pub(crate) changed_names: BTreeSet<(i64, String)>,
    /// Python files removed: the references that looked up any name in them.
    pub(crate) files_gone: BTreeSet<i64>,
}
