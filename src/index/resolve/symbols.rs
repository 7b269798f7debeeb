//! The symbol table resolution reads: definitions by name and by id, each file's
//! imports and exports, each class's bases, signatures, what Python functions return.
//!
//! Two ways to fill it, with the same answers: a bulk run (a build from nothing, or
//! many references) loads each table once with one query; an incremental run asks per
//! name, file or class and caches the answer. Imports are read only after the import
//! phase of the run has written them, bases only after the base phase; the resolver
//! calls [`Symbols::imports_ready`] and [`Symbols::bases_ready`] at those points.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::index::IndexError;
use crate::lang::ImportBinding;
use crate::store::files::{Base, Definition, FileImport, IndexTx};

/// An import reference with its bindings decoded once, when it is read (the rules
/// look names up in them for every call of the file).
#[derive(Debug, Clone)]
pub(super) struct Import {
    /// The stored row; its fields are reachable through `Deref`.
    pub row: FileImport,
    /// `row.bindings` decoded ([`ImportBinding::decode`]).
    pub bindings: Vec<ImportBinding>,
}

impl Import {
    fn new(row: FileImport) -> Import {
        let bindings = ImportBinding::decode(row.bindings.as_deref());
        Import { row, bindings }
    }
}

impl std::ops::Deref for Import {
    type Target = FileImport;
    fn deref(&self) -> &FileImport {
        &self.row
    }
}

/// Cached reads of the index for one resolution run.
#[derive(Default)]
pub(super) struct Symbols {
    /// Everything is loaded up front (no per-item queries).
    bulk: bool,
    by_name: FxHashMap<Arc<str>, Arc<[Definition]>>,
    by_id: FxHashMap<i64, Definition>,
    imports: FxHashMap<i64, Arc<[Import]>>,
    imports_ready: bool,
    exports: FxHashMap<i64, Arc<[(String, String)]>>,
    bases: FxHashMap<i64, Arc<[Base]>>,
    bases_ready: bool,
    signatures: FxHashMap<i64, Option<Arc<str>>>,
    returns: FxHashMap<i64, Option<Arc<str>>>,
}

impl Symbols {
    /// Loads every definition (bulk mode).
    pub(super) fn load_definitions(&mut self, tx: &IndexTx<'_>) -> Result<(), IndexError> {
        self.bulk = true;
        let mut by_name: FxHashMap<Arc<str>, Vec<Definition>> = FxHashMap::default();
        for d in tx.all_definitions()? {
            self.by_id.insert(d.id, d.clone());
            by_name.entry(Arc::clone(&d.name)).or_default().push(d);
        }
        self.by_name = by_name
            .into_iter()
            .map(|(name, defs)| (name, Arc::from(defs)))
            .collect();
        Ok(())
    }

    /// The imports have been written (the import phase is over): from now on they may
    /// be read, all at once in bulk mode.
    pub(super) fn imports_ready(&mut self, tx: &IndexTx<'_>) -> Result<(), IndexError> {
        self.imports.clear();
        self.imports_ready = true;
        if self.bulk {
            let mut by_file: FxHashMap<i64, Vec<Import>> = FxHashMap::default();
            for import in tx.all_file_imports()? {
                by_file
                    .entry(import.file_id)
                    .or_default()
                    .push(Import::new(import));
            }
            self.imports = by_file
                .into_iter()
                .map(|(file, list)| (file, Arc::from(list)))
                .collect();
        }
        Ok(())
    }

    /// The exports have been written (the export phase is over): from now on they may
    /// be read, all at once in bulk mode.
    pub(super) fn exports_ready(&mut self, tx: &IndexTx<'_>) -> Result<(), IndexError> {
        self.exports.clear();
        if self.bulk {
            self.exports = tx
                .all_exports()?
                .into_iter()
                .map(|(file, list)| (file, Arc::from(list)))
                .collect();
        }
        Ok(())
    }

    /// The bases have been written (the base phase is over).
    pub(super) fn bases_ready(&mut self, tx: &IndexTx<'_>) -> Result<(), IndexError> {
        self.bases.clear();
        self.bases_ready = true;
        if self.bulk {
            self.bases = tx
                .all_bases()?
                .into_iter()
                .map(|(class, list)| (class, Arc::from(list)))
                .collect();
        }
        Ok(())
    }

    /// Whether every file's imports are in memory (a bulk run past its import phase):
    /// [`Symbols::imports_of`] then asks the database nothing.
    pub(super) fn all_imports_loaded(&self) -> bool {
        self.bulk && self.imports_ready
    }

    /// Definitions named `name`, in id order.
    pub(super) fn named(
        &mut self,
        tx: &IndexTx<'_>,
        name: &str,
    ) -> Result<Arc<[Definition]>, IndexError> {
        if let Some(found) = self.by_name.get(name) {
            return Ok(Arc::clone(found));
        }
        let found: Arc<[Definition]> = if self.bulk {
            Arc::from(Vec::new())
        } else {
            let defs = tx.definitions_named(name)?;
            for d in &defs {
                self.by_id.entry(d.id).or_insert_with(|| d.clone());
            }
            Arc::from(defs)
        };
        self.by_name.insert(Arc::from(name), Arc::clone(&found));
        Ok(found)
    }

    /// The definition with node id `id` (`None` for a file node).
    pub(super) fn def(
        &mut self,
        tx: &IndexTx<'_>,
        id: i64,
    ) -> Result<Option<Definition>, IndexError> {
        if let Some(d) = self.by_id.get(&id) {
            return Ok(Some(d.clone()));
        }
        if self.bulk {
            return Ok(None);
        }
        let found = tx.definition(id)?;
        if let Some(d) = &found {
            self.by_id.insert(id, d.clone());
        }
        Ok(found)
    }

    /// The import references of a file (after the import phase).
    pub(super) fn imports_of(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
    ) -> Result<Arc<[Import]>, IndexError> {
        debug_assert!(
            self.imports_ready,
            "imports read before the import phase ended"
        );
        if let Some(found) = self.imports.get(&file) {
            return Ok(Arc::clone(found));
        }
        let found: Arc<[Import]> = if self.bulk {
            Arc::from(Vec::new())
        } else {
            tx.file_imports(file)?
                .into_iter()
                .map(Import::new)
                .collect()
        };
        self.imports.insert(file, Arc::clone(&found));
        Ok(found)
    }

    /// The renamed and default exports of a file: `(exported, local)`.
    pub(super) fn exports_of(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
    ) -> Result<Arc<[(String, String)]>, IndexError> {
        if let Some(found) = self.exports.get(&file) {
            return Ok(Arc::clone(found));
        }
        let found: Arc<[(String, String)]> = if self.bulk {
            Arc::from(Vec::new())
        } else {
            Arc::from(tx.exports(file)?)
        };
        self.exports.insert(file, Arc::clone(&found));
        Ok(found)
    }

    /// The bases of a class, in the order written (after the base phase).
    pub(super) fn bases_of(
        &mut self,
        tx: &IndexTx<'_>,
        class: i64,
    ) -> Result<Arc<[Base]>, IndexError> {
        debug_assert!(self.bases_ready, "bases read before the base phase ended");
        if let Some(found) = self.bases.get(&class) {
            return Ok(Arc::clone(found));
        }
        let found: Arc<[Base]> = if self.bulk {
            Arc::from(Vec::new())
        } else {
            Arc::from(tx.bases(class)?)
        };
        self.bases.insert(class, Arc::clone(&found));
        Ok(found)
    }

    /// The signature of a definition.
    pub(super) fn signature(
        &mut self,
        tx: &IndexTx<'_>,
        id: i64,
    ) -> Result<Option<Arc<str>>, IndexError> {
        cached_text(&mut self.signatures, id, || tx.signature(id))
    }

    /// What a Python function's `return`s give (`nodes.returns`), if recorded.
    pub(super) fn returns(
        &mut self,
        tx: &IndexTx<'_>,
        id: i64,
    ) -> Result<Option<Arc<str>>, IndexError> {
        cached_text(&mut self.returns, id, || tx.node_returns(id))
    }
}

/// The text of node `id` in `cache`, read by `read` the first time.
fn cached_text(
    cache: &mut FxHashMap<i64, Option<Arc<str>>>,
    id: i64,
    read: impl FnOnce() -> Result<Option<String>, crate::store::StoreError>,
) -> Result<Option<Arc<str>>, IndexError> {
    if let Some(found) = cache.get(&id) {
        return Ok(found.clone());
    }
    let found: Option<Arc<str>> = read()?.map(Arc::from);
    cache.insert(id, found.clone());
    Ok(found)
}
