//! Name-scoped resolution, the fallback for a file of no language family (every parsed
//! language has rules of its own: `python.rs`, `javascript.rs`, `rust.rs`, `go.rs`,
//! `java.rs`, `c.rs`), and the Go import bookkeeping and file scopes those share: the
//! first rule that applies wins.
//!
//! | rule                                                              | provenance |
//! |-------------------------------------------------------------------|------------|
//! | Go `pkg.F()` whose `pkg` is an import's local name: that package only | `module` |
//! | one definition in the caller's own file (`self.f()`/`this.f()` prefers the caller's class) | `scope` / `self` |
//! | one definition in the files in scope of the caller's file (below) | `import` (Go, Java: `package`; C/C++: `header`) |
//! | none there: one definition in the files those re-export (barrels)  | `import` |
//!
//! The files in scope of a file: the files it imports; for Go and Java also the other
//! files of its package (Go: its directory; Java: the directories of its declared
//! package in every source root), which need no import; for C and C++ also the
//! source file beside each included header with the same stem (`util.h` → `util.c`),
//! where the functions it declares are defined. Only definitions in files of the
//! caller's language family count. Several candidates at the first rule that has any →
//! `ambiguous`; none → `unresolved` (a definition elsewhere in the workspace with the
//! same name is only a possible callee, listed by the view `possible_calls`).

use std::sync::Arc;

use super::rules::Rule;
use super::{go_local_name, Family, GoImport, Outcome, Resolver};
use crate::index::import_resolution::Target;
use crate::index::IndexError;
use crate::store::files::{Definition, IndexTx, Ref};

impl Resolver {
    /// Remembers a Go import of this run for `pkg.F()` calls (builds from nothing only;
    /// otherwise the imports are read back from the database, see [`Resolver::go_imports`]).
    pub(super) fn record_go_import(&mut self, r: &Ref, target: &Target) {
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
            let rows: Vec<crate::store::files::FileImport> = if self.symbols.all_imports_loaded() {
                // A bulk run has them all in memory: no query per file (the secondary
                // indexes may be suspended meanwhile, see `Resolver::run`).
                self.symbols
                    .imports_of(tx, file_id)?
                    .iter()
                    .map(|i| i.row.clone())
                    .collect()
            } else {
                tx.file_imports(file_id)?
            };
            rows.into_iter()
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
                    let dir = crate::index::relpath::parent_dir(path);
                    files.extend(self.go_dirs.get(dir).into_iter().flatten());
                }
            }
            Some(Family::Java) => {
                if let Some(path) = self.paths.get(&file_id) {
                    let dir = crate::index::relpath::parent_dir(path);
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

    /// Applies the rules of the module docs to a call or base reference.
    pub(super) fn legacy_name(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let callable = r.kind == "call";
        let family = self.family(r.file_id);
        let defs = self.symbols.named(tx, &r.name)?;
        let matching: Vec<Definition> = defs
            .iter()
            .filter(|d| d.callable() == callable && d.id != r.src_id)
            .filter(|d| {
                self.families
                    .get(&d.file_id)
                    .copied()
                    .unwrap_or(Family::None)
                    == family
            })
            .cloned()
            .collect();
        let candidates = || matching.iter();
        // Go `pkg.F()`: only the package that `pkg` names.
        if family == Family::Go && callable {
            if let Some(qualifier) = r.qualifier.as_deref() {
                let imports = self.go_imports(tx, r.file_id)?;
                if let Some((_, import)) = imports.iter().find(|(local, _)| local == qualifier) {
                    return Ok(match import {
                        GoImport::External => Outcome::status("external", 0),
                        GoImport::Unresolved => Outcome::status("unresolved", 0),
                        GoImport::Files(files) => {
                            let found: Vec<&Definition> = candidates()
                                .filter(|d| files.contains(&d.file_id))
                                .collect();
                            match found.as_slice() {
                                [d] => Outcome::edge(d.id, Rule::Module),
                                [] => Outcome::status("unresolved", 0),
                                many => Outcome::status("ambiguous", many.len()),
                            }
                        }
                    });
                }
            }
        }
        if matching.is_empty() {
            return Ok(Outcome::status("unresolved", 0));
        }
        let same_file: Vec<&Definition> = candidates().filter(|d| d.file_id == r.file_id).collect();
        if let [d] = same_file.as_slice() {
            return Ok(Outcome::edge(d.id, Rule::Scope));
        }
        if same_file.len() > 1 {
            // `self.f()` / `this.f()`: the method of the caller's own class.
            if matches!(
                r.qualifier.as_deref(),
                Some("self" | "this" | "Self" | "cls")
            ) {
                let class = self.symbols.def(tx, r.src_id)?.and_then(|d| d.parent_id);
                if class.is_some() {
                    let own: Vec<&&Definition> =
                        same_file.iter().filter(|d| d.parent_id == class).collect();
                    if let [d] = own.as_slice() {
                        return Ok(Outcome::edge(d.id, Rule::SelfRef));
                    }
                }
            }
            return Ok(Outcome::status("ambiguous", same_file.len()));
        }
        let scope_rule = match family {
            Family::Go | Family::Java => Rule::Package,
            Family::C => Rule::Header,
            _ => Rule::Import,
        };
        let scope = self.scope(tx, r.file_id)?;
        let via: Vec<&Definition> = candidates()
            .filter(|d| scope.binary_search(&d.file_id).is_ok())
            .collect();
        match via.as_slice() {
            [d] => return Ok(Outcome::edge(d.id, scope_rule)),
            [] => {}
            many => return Ok(Outcome::status("ambiguous", many.len())),
        }
        // Nothing in the imported files themselves: behind the barrels they re-export.
        let behind = self.behind_barrels(tx, r.file_id)?;
        let via: Vec<&Definition> = candidates()
            .filter(|d| behind.binary_search(&d.file_id).is_ok())
            .collect();
        Ok(match via.as_slice() {
            [d] => Outcome::edge(d.id, Rule::Import),
            [] => Outcome::status("unresolved", 0),
            many => Outcome::status("ambiguous", many.len()),
        })
    }
}
