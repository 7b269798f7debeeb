//! Resolution: references (imports, calls, base names) to edges.
//!
//! Imports go to files through [`Modules`]. Calls and base names are resolved by name,
//! scoped by the caller's imports (SPEC §4), with a confidence on the edge:
//!
//! | rule (first that applies)                                   | confidence |
//! |-------------------------------------------------------------|-----------:|
//! | one definition in the caller's own file (`self.f()` prefers the caller's class) | 0.95 |
//! | one definition in the files the caller's file imports        | 0.80 |
//! | one definition of that name in the whole workspace           | 0.50 |
//!
//! Several candidates at the first rule that has any → `ambiguous`; none anywhere →
//! `unresolved`. Nothing is guessed: an ambiguous or unresolved reference keeps no edge.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use super::modules::{Modules, Target};
use super::{IndexError, Progress};
use crate::lang::Language;
use crate::store::files::{Definition, IndexTx, StoredRef};

/// Confidence of a call resolved in the caller's own file.
pub const CONFIDENCE_SAME_FILE: f64 = 0.95;
/// Confidence of a call resolved in a file the caller's file imports.
pub const CONFIDENCE_IMPORTED: f64 = 0.8;
/// Confidence of a call resolved to the only definition of its name.
pub const CONFIDENCE_GLOBAL: f64 = 0.5;

/// Above this many references, load every definition at once instead of per name.
const BULK_THRESHOLD: usize = 20_000;

/// Resolution state for one run.
pub struct Resolver {
    modules: Modules,
    paths: HashMap<i64, String>,
    file_nodes: HashMap<i64, i64>,
    defs: HashMap<String, Vec<Definition>>,
    defs_complete: bool,
    imports: HashMap<i64, Vec<i64>>,
    parents: HashMap<i64, Option<i64>>,
}

/// Outcome of resolving a name.
enum Found {
    One(Definition, f64),
    Ambiguous(usize),
    None,
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
            defs_complete: false,
            imports: HashMap::new(),
            parents: HashMap::new(),
        })
    }

    /// Resolves the references this run must (re)resolve and writes their edges:
    /// every reference inserted by this run (ids ≥ `first_new`), the older ones in
    /// `reresolve` (their targets changed), older call/base references naming one of
    /// `names` (defined or undefined by this run), and, when files were added or
    /// removed, every unresolved import. Returns how many were resolved.
    pub fn run(
        &mut self,
        tx: &IndexTx<'_>,
        first_new: i64,
        reresolve: &BTreeSet<i64>,
        names: &BTreeSet<String>,
        paths_changed: bool,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<usize, IndexError> {
        let mut refs: HashMap<i64, StoredRef> = HashMap::new();
        for r in tx.refs_from(first_new)? {
            refs.insert(r.id, r);
        }
        let mut old: BTreeSet<i64> = BTreeSet::new();
        for &id in reresolve.iter().filter(|&&id| id < first_new) {
            if let Some(r) = tx.ref_by_id(id)? {
                old.insert(id);
                refs.insert(id, r);
            }
        }
        for name in names {
            for r in tx.refs_named(name)? {
                if r.id < first_new {
                    old.insert(r.id);
                    refs.insert(r.id, r);
                }
            }
        }
        if paths_changed {
            for r in tx.unresolved_imports()? {
                if r.id < first_new {
                    old.insert(r.id);
                    refs.insert(r.id, r);
                }
            }
        }
        progress(Progress::Resolving { refs: refs.len() });
        if refs.len() > BULK_THRESHOLD {
            self.defs = tx.all_definitions()?;
            self.defs_complete = true;
        }
        for id in &old {
            tx.delete_edges_of_ref(*id)?;
        }
        let mut ordered: Vec<StoredRef> = refs.into_values().collect();
        ordered.sort_by_key(|r| (r.kind != "import", r.id));
        let count = ordered.len();
        for r in &ordered {
            if r.kind == "import" {
                self.resolve_import(tx, r)?;
            } else {
                self.resolve_name(tx, r)?;
            }
        }
        Ok(count)
    }

    fn resolve_import(&mut self, tx: &IndexTx<'_>, r: &StoredRef) -> Result<(), IndexError> {
        let Some(path) = self.paths.get(&r.file_id).cloned() else {
            return Ok(());
        };
        let form = r.form.as_deref().unwrap_or("import");
        let target = match Language::from_path(&path) {
            Some(Language::Python) => {
                let names: Vec<&str> = r
                    .qualifier
                    .as_deref()
                    .map(|q| q.split(',').collect())
                    .unwrap_or_default();
                self.modules
                    .resolve_python(r.file_id, &path, &r.name, &names)
            }
            Some(Language::Rust) => self.modules.resolve_rust(r.file_id, &path, form, &r.name),
            Some(l) if l.is_js_family() => self.modules.resolve_js(&path, &r.name),
            _ => Target::Unresolved,
        };
        match target {
            Target::Files(files) => {
                let mut n = 0;
                for f in files {
                    if f == r.file_id {
                        continue; // a file importing itself is no dependency
                    }
                    if let Some(&dst) = self.file_nodes.get(&f) {
                        tx.insert_edge(
                            r.src_id,
                            dst,
                            "imports",
                            r.file_id,
                            Some(r.line),
                            1.0,
                            Some(r.id),
                        )?;
                        n += 1;
                    }
                }
                tx.set_ref_status(r.id, "resolved", n)?;
            }
            Target::External => tx.set_ref_status(r.id, "external", 0)?,
            Target::Unresolved => tx.set_ref_status(r.id, "unresolved", 0)?,
        }
        Ok(())
    }

    fn definitions(&mut self, tx: &IndexTx<'_>, name: &str) -> Result<Vec<Definition>, IndexError> {
        if let Some(d) = self.defs.get(name) {
            return Ok(d.clone());
        }
        if self.defs_complete {
            return Ok(Vec::new());
        }
        let d = tx.definitions_named(name)?;
        self.defs.insert(name.to_string(), d.clone());
        Ok(d)
    }

    fn imported(&mut self, tx: &IndexTx<'_>, file_id: i64) -> Result<&[i64], IndexError> {
        if let std::collections::hash_map::Entry::Vacant(e) = self.imports.entry(file_id) {
            e.insert(tx.imported_files(file_id)?);
        }
        Ok(self.imports.get(&file_id).map(Vec::as_slice).unwrap_or(&[]))
    }

    fn parent(&mut self, tx: &IndexTx<'_>, node: i64) -> Result<Option<i64>, IndexError> {
        if let Some(p) = self.parents.get(&node) {
            return Ok(*p);
        }
        let p = tx.node_parent(node)?;
        self.parents.insert(node, p);
        Ok(p)
    }

    /// Applies the rules of the module docs to the candidates for `r`.
    fn find(&mut self, tx: &IndexTx<'_>, r: &StoredRef) -> Result<Found, IndexError> {
        let callable = r.kind == "call";
        let mut candidates: Vec<Definition> = self
            .definitions(tx, &r.name)?
            .into_iter()
            .filter(|d| d.callable == callable && d.id != r.src_id)
            .collect();
        if candidates.is_empty() {
            return Ok(Found::None);
        }
        let same_file: Vec<Definition> = candidates
            .iter()
            .copied()
            .filter(|d| d.file_id == r.file_id)
            .collect();
        if !same_file.is_empty() {
            if same_file.len() == 1 {
                return Ok(Found::One(same_file[0], CONFIDENCE_SAME_FILE));
            }
            // `self.f()` / `this.f()`: the method of the caller's own class.
            if matches!(
                r.qualifier.as_deref(),
                Some("self" | "this" | "Self" | "cls")
            ) {
                let class = self.parent(tx, r.src_id)?;
                let own: Vec<&Definition> = same_file
                    .iter()
                    .filter(|d| class.is_some() && d.parent_id == class)
                    .collect();
                if own.len() == 1 {
                    return Ok(Found::One(*own[0], CONFIDENCE_SAME_FILE));
                }
            }
            return Ok(Found::Ambiguous(same_file.len()));
        }
        let imported = self.imported(tx, r.file_id)?.to_vec();
        let via_imports: Vec<Definition> = candidates
            .iter()
            .copied()
            .filter(|d| imported.contains(&d.file_id))
            .collect();
        match via_imports.len() {
            1 => return Ok(Found::One(via_imports[0], CONFIDENCE_IMPORTED)),
            n if n > 1 => return Ok(Found::Ambiguous(n)),
            _ => {}
        }
        if candidates.len() == 1 {
            return Ok(Found::One(candidates.remove(0), CONFIDENCE_GLOBAL));
        }
        Ok(Found::Ambiguous(candidates.len()))
    }

    fn resolve_name(&mut self, tx: &IndexTx<'_>, r: &StoredRef) -> Result<(), IndexError> {
        let kind = match r.kind.as_str() {
            "call" => "calls",
            "inherit" => "inherits",
            _ => "implements",
        };
        match self.find(tx, r)? {
            Found::One(def, confidence) => {
                tx.insert_edge(
                    r.src_id,
                    def.id,
                    kind,
                    r.file_id,
                    Some(r.line),
                    confidence,
                    Some(r.id),
                )?;
                tx.set_ref_status(r.id, "resolved", 1)?;
            }
            Found::Ambiguous(n) => tx.set_ref_status(r.id, "ambiguous", n)?,
            Found::None => tx.set_ref_status(r.id, "unresolved", 0)?,
        }
        Ok(())
    }
}
