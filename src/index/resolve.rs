//! Resolution: references (imports, calls, base names) to edges.
//!
//! Imports go to files through [`Modules`]. Calls and base names are resolved by name,
//! scoped by the caller's imports (SPEC §4), with a confidence on the edge:
//!
//! | rule (first that applies)                                   | confidence |
//! |-------------------------------------------------------------|-----------:|
//! | one definition in the caller's own file (`self.f()` prefers the caller's class) | 0.95 |
//! | one definition in the files the caller's file imports        | 0.80 |
//! | none there: one definition in the files those re-export (barrels, `__init__`) | 0.80 |
//! | one definition of that name in the whole workspace           | 0.50 |
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

/// Resolution state for one run.
pub struct Resolver {
    modules: Modules,
    paths: HashMap<i64, String>,
    file_nodes: HashMap<i64, i64>,
    defs: HashMap<String, Arc<[Definition]>>,
    bulk: bool,
    imports: HashMap<i64, Arc<[i64]>>,
    /// File → the files it re-exports directly (cache, or all of them in bulk mode).
    reexports: HashMap<i64, Arc<[i64]>>,
    /// File → [`Resolver::behind_barrels`] (cache).
    behind: HashMap<i64, Arc<[i64]>>,
    parents: HashMap<i64, Option<i64>>,
}

impl Resolver {
    /// Loads the file list (inside the run's transaction, so new files are there).
    pub fn new(tx: &IndexTx<'_>, root: &Path) -> Result<Resolver, IndexError> {
        let files = tx.file_paths()?;
        let modules = Modules::new(root, &files);
        Ok(Resolver {
            modules,
            paths: files.into_iter().collect(),
            file_nodes: tx.file_node_ids()?,
            defs: HashMap::new(),
            bulk: false,
            imports: HashMap::new(),
            reexports: HashMap::new(),
            behind: HashMap::new(),
            parents: HashMap::new(),
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
            let mut moved_files = BTreeSet::new();
            for (r, status, mut dsts) in tx.imports_with_targets()? {
                if old.contains_key(&r.id) {
                    continue;
                }
                let outcome = self.resolve_import(&r);
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
        progress(Progress::Resolving { refs: total });
        for id in old.keys() {
            tx.delete_edges_of_ref(*id)?;
        }
        let mut all: Vec<(Ref, bool)> = new
            .into_iter()
            .map(|r| (r, true))
            .chain(old.into_values().map(|r| (r, false)))
            .collect();
        all.sort_by_key(|(r, _)| (r.kind != "import", r.id));

        let split = all.partition_point(|(r, _)| r.kind == "import");
        for (r, is_new) in &all[..split] {
            let outcome = self.resolve_import(r);
            self.write(tx, r, *is_new, "imports", outcome)?;
        }
        if total > BULK_THRESHOLD {
            self.bulk = true;
            self.defs = tx
                .all_definitions()?
                .into_iter()
                .map(|(k, v)| (k, Arc::from(v)))
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
        }
        for (r, is_new) in &all[split..] {
            let kind = match r.kind {
                "call" => "calls",
                "inherit" => "inherits",
                _ => "implements",
            };
            let outcome = self.resolve_name(tx, r)?;
            self.write(tx, r, *is_new, kind, outcome)?;
        }
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

    fn resolve_import(&mut self, r: &Ref) -> Outcome {
        let Some(path) = self.paths.get(&r.file_id) else {
            return Outcome::status("unresolved", 0);
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
            _ => Target::Unresolved,
        };
        match target {
            Target::Files(files) => {
                // A file importing itself is no dependency.
                let edges: Vec<(i64, f64)> = files
                    .into_iter()
                    .filter(|&f| f != r.file_id)
                    .filter_map(|f| self.file_nodes.get(&f).map(|&n| (n, 1.0)))
                    .collect();
                Outcome {
                    status: "resolved",
                    candidates: edges.len(),
                    edges,
                }
            }
            Target::External => Outcome::status("external", 0),
            Target::Unresolved => Outcome::status("unresolved", 0),
        }
    }

    fn definitions(
        &mut self,
        tx: &IndexTx<'_>,
        name: &str,
    ) -> Result<Arc<[Definition]>, IndexError> {
        if let Some(d) = self.defs.get(name) {
            return Ok(Arc::clone(d));
        }
        let d: Arc<[Definition]> = if self.bulk {
            Arc::from(Vec::new())
        } else {
            Arc::from(tx.definitions_named(name)?)
        };
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
            Arc::from(tx.imported_files(file_id)?)
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
            Arc::from(tx.reexported_files(file_id)?)
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
        let candidates = || {
            defs.iter()
                .filter(|d| d.callable == callable && d.id != r.src_id)
        };
        let count = candidates().count();
        if count == 0 {
            return Ok(Outcome::status("unresolved", 0));
        }
        let one = |d: &Definition, confidence| Outcome {
            status: "resolved",
            candidates: 1,
            edges: vec![(d.id, confidence)],
        };
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
        let imported = self.imported(tx, r.file_id)?;
        let mut via = candidates().filter(|d| imported.contains(&d.file_id));
        match (via.next(), via.next()) {
            (Some(d), None) => return Ok(one(d, CONFIDENCE_IMPORTED)),
            (Some(_), Some(_)) => {
                let n = candidates()
                    .filter(|d| imported.contains(&d.file_id))
                    .count();
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
