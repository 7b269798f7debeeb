//! Typed access to the index tables for the indexer: one write transaction per run
//! ([`IndexTx`]) with the reads that resolution needs inside it.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, LazyLock};

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};

use super::search_build::SearchBuild;
use super::StoreError;

/// A `files` row as the indexer compares it with the disk.
#[derive(Debug, Clone)]
pub struct StoredFile {
    pub id: i64,
    pub path: String,
    pub language: Option<String>,
    pub size: i64,
    pub mtime_ns: i64,
    pub digest: Option<String>,
    pub status: String,
    /// Digest of the file's interface (`files.interface`), `None` when not parsed.
    pub interface: Option<String>,
}

pub(super) const STORED_FILE_COLUMNS: &str =
    "id, path, language, size, mtime_ns, digest, status, interface";

pub(super) fn stored_file(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredFile> {
    Ok(StoredFile {
        id: r.get(0)?,
        path: r.get(1)?,
        language: r.get(2)?,
        size: r.get(3)?,
        mtime_ns: r.get(4)?,
        digest: r.get(5)?,
        status: r.get(6)?,
        interface: r.get(7)?,
    })
}

/// Every `files` row, keyed by path.
pub fn load_files(conn: &Connection) -> Result<HashMap<String, StoredFile>, StoreError> {
    let mut stmt = conn.prepare(&format!("SELECT {STORED_FILE_COLUMNS} FROM files"))?;
    let rows = stmt.query_map([], stored_file)?;
    let mut out = HashMap::new();
    for row in rows {
        let f = row?;
        out.insert(f.path.clone(), f);
    }
    Ok(out)
}

/// Calls `each(id, path, size, mtime_ns)` for every indexed file, in path order (byte
/// order, as Rust orders strings), without allocating the paths; returns how many.
pub fn for_each_file_stat(
    conn: &Connection,
    mut each: impl FnMut(i64, &str, i64, i64),
) -> Result<usize, StoreError> {
    let mut stmt = conn.prepare("SELECT id, path, size, mtime_ns FROM files ORDER BY path")?;
    let mut rows = stmt.query([])?;
    let mut count = 0;
    while let Some(r) = rows.next()? {
        let path = r.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
        each(r.get(0)?, path, r.get(2)?, r.get(3)?);
        count += 1;
    }
    Ok(count)
}

/// The stored rows of the files with these ids, by path (ids not found are skipped).
pub fn load_files_by_id(
    conn: &Connection,
    ids: &[i64],
) -> Result<HashMap<String, StoredFile>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {STORED_FILE_COLUMNS} FROM files WHERE id = ?1"
    ))?;
    let mut out = HashMap::with_capacity(ids.len());
    for id in ids {
        if let Some(f) = stmt.query_row([id], stored_file).optional()? {
            out.insert(f.path.clone(), f);
        }
    }
    Ok(out)
}

/// Every indexed file as `(id, root-relative path)`, in path order.
pub fn file_paths(conn: &Connection) -> Result<Vec<(i64, String)>, StoreError> {
    let mut stmt = conn.prepare("SELECT id, path FROM files ORDER BY path")?;
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// When the latest recorded run started (RFC 3339), `None` before the first.
pub fn last_run_started(conn: &Connection) -> Result<Option<String>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT started_at FROM index_runs ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .optional()?)
}

/// The `files` rows of `paths` (root-relative, in the walk's text form), keyed by path;
/// a path with no row is left out.
pub fn load_files_at(
    conn: &Connection,
    paths: &[&str],
) -> Result<HashMap<String, StoredFile>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {STORED_FILE_COLUMNS} FROM files WHERE path = ?1"
    ))?;
    let mut out = HashMap::new();
    for path in paths {
        if let Some(f) = stmt.query_row([path], stored_file).optional()? {
            out.insert(f.path.clone(), f);
        }
    }
    Ok(out)
}

/// What the indexer writes for one file.
#[derive(Debug, Clone)]
pub struct FileRecord<'a> {
    pub path: &'a str,
    pub language: Option<&'a str>,
    pub size: i64,
    pub mtime_ns: i64,
    pub digest: Option<&'a str>,
    pub status: &'a str,
    pub detail: Option<&'a str>,
    /// Digest of the file's interface (see `schema/006_call_resolution.sql`).
    pub interface: Option<&'a str>,
}

/// A stored symbol as the interface of its file reads it: `(id, parent id, kind,
/// name, qualified name, signature, returns)`.
pub type InterfaceSymbol = (
    i64,
    Option<i64>,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
);

/// A stored import, base or export reference as the interface of its file reads it:
/// `(kind, form, name, qualifier, bindings, source node id)`.
pub type InterfaceRef = (
    String,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    i64,
);

/// A `nodes` row to insert; the id is assigned by [`IndexTx::insert_node`].
#[derive(Debug, Clone)]
pub struct NodeRecord<'a> {
    pub key: &'a str,
    pub file_id: i64,
    pub kind: &'a str,
    pub name: &'a str,
    pub qualified_name: &'a str,
    pub signature: Option<&'a str>,
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: u32,
    pub end_byte: u32,
    pub parent_id: Option<i64>,
    /// `nodes.returns`: what a Python function returns, as its `return`s state it.
    pub returns: Option<&'a str>,
}

/// A node of a file about to be written again, as it is stored (see
/// [`IndexTx::clear_file_for_rewrite`]).
#[derive(Debug, Clone)]
pub struct KeptNode {
    pub id: i64,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub signature: Option<String>,
    /// First and last line.
    pub lines: (u32, u32),
    /// Byte offsets of the first byte and one past the last.
    pub bytes: (u32, u32),
    pub parent_id: Option<i64>,
    pub returns: Option<String>,
}

/// A `refs` row: a reference as extracted, before or after resolution.
#[derive(Debug, Clone)]
pub struct Ref {
    pub id: i64,
    pub file_id: i64,
    /// The enclosing node (a function, a class, or the file node).
    pub src_id: i64,
    /// `import` | `call` | `reference` | `inherit` | `implement` | `export`.
    pub kind: &'static str,
    /// Imports: how the import was written (`import`, `require`, `mod`, `use`, ...).
    pub form: Option<&'static str>,
    pub name: String,
    pub qualifier: Option<String>,
    pub line: u32,
    /// Calls: 0-based byte offset of the called name in its line.
    pub col: u32,
    /// Calls: the receiver's type as the file states it (`refs.receiver_type`).
    pub receiver_type: Option<String>,
    /// Imports: the names bound in the importing file (`refs.bindings`).
    pub bindings: Option<String>,
    pub flags: i64,
}

/// Interns the `refs.kind` and `refs.form` strings read back from the database.
fn intern(s: &str) -> &'static str {
    const KNOWN: &[&str] = &[
        "import",
        "call",
        "reference",
        "inherit",
        "implement",
        "export",
        "reexport",
        "require",
        "dynamic",
        "mod",
        "use",
        "include",
        "include_system",
    ];
    KNOWN
        .iter()
        .find(|k| **k == s)
        .copied()
        .unwrap_or("unknown")
}

/// A base a class names (see [`IndexTx::bases`]).
#[derive(Debug, Clone)]
pub struct Base {
    /// The base's bare name as written (`Model`).
    pub name: String,
    /// True for `implements` (an interface or trait), false for `extends`.
    pub implements: bool,
    /// The class (or interface, trait) it resolved to, if it did.
    pub node: Option<i64>,
}

fn base_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(i64, Base)> {
    let kind: String = r.get(2)?;
    Ok((
        r.get(0)?,
        Base {
            name: r.get(1)?,
            implements: kind == "implement",
            node: r.get(3)?,
        },
    ))
}

/// What a definition is, for resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefKind {
    Function,
    Method,
    /// A class, struct, interface, trait or enum: something with members and bases.
    Type,
    /// An inline module or namespace.
    Module,
}

impl DefKind {
    /// From `nodes.kind`; `None` for `file`.
    pub fn parse(kind: &str) -> Option<DefKind> {
        Some(match kind {
            "function" => DefKind::Function,
            "method" => DefKind::Method,
            "class" | "struct" | "interface" | "trait" | "enum" => DefKind::Type,
            "module" => DefKind::Module,
            _ => return None,
        })
    }

    /// Functions and methods.
    pub fn is_callable(self) -> bool {
        matches!(self, DefKind::Function | DefKind::Method)
    }
}

/// An inline module (a Rust `mod m { .. }`, a C++ namespace): its node, first and last
/// line.
pub type ModuleSpan = (i64, u32, u32);

/// A definition a call or base name may resolve to.
#[derive(Debug, Clone)]
pub struct Definition {
    pub id: i64,
    pub file_id: i64,
    pub parent_id: Option<i64>,
    pub kind: DefKind,
    /// `nodes.name`.
    pub name: std::sync::Arc<str>,
    /// `nodes.qualified_name` (`Shape::area`).
    pub qualified_name: std::sync::Arc<str>,
}

impl Definition {
    /// True for functions and methods.
    pub fn callable(&self) -> bool {
        self.kind.is_callable()
    }
}

/// Columns read by [`definition`], in order.
const DEFINITION_COLUMNS: &str = "id, file_id, parent_id, kind, name, qualified_name";

fn definition(r: &rusqlite::Row<'_>) -> rusqlite::Result<Option<Definition>> {
    let kind: String = r.get(3)?;
    let Some(kind) = DefKind::parse(&kind) else {
        return Ok(None);
    };
    Ok(Some(Definition {
        id: r.get(0)?,
        file_id: r.get(1)?,
        parent_id: r.get(2)?,
        kind,
        name: std::sync::Arc::from(r.get::<_, String>(4)?),
        qualified_name: std::sync::Arc::from(r.get::<_, String>(5)?),
    }))
}

/// One import reference of a file as resolution left it (see [`IndexTx::file_imports`]).
#[derive(Debug, Clone)]
pub struct FileImport {
    /// `refs.id`.
    pub id: i64,
    /// `refs.file_id`: the importing file.
    pub file_id: i64,
    /// How it was written (`refs.form`).
    pub form: Option<&'static str>,
    /// The specifier as written (`refs.name`).
    pub specifier: String,
    /// `refs.qualifier` (Python `from` names; a Go import's alias).
    pub qualifier: Option<String>,
    /// `refs.bindings`: the names bound in the importing file.
    pub bindings: Option<String>,
    /// `refs.status`: `resolved`, `external`, `unresolved`, ...
    pub status: String,
    /// `refs.line`: 1-based line of the statement.
    pub line: u32,
    /// The files its `imports` edges point at.
    pub files: Vec<i64>,
}

/// The write transaction of one index run. Ids of new rows are assigned here in
/// insertion order, so a run that inserts in path order gives reproducible ids.
pub struct IndexTx<'c> {
    pub(super) tx: Transaction<'c>,
    next_file: Cell<i64>,
    next_node: Cell<i64>,
    next_ref: Cell<i64>,
    next_edge: Cell<i64>,
    /// The file whose nodes are being inserted: its id, path parts and language, for
    /// the `symbol_search` rows (nodes come file by file, so one lookup per file).
    search_file: RefCell<Option<(i64, SearchFile)>>,
    /// In a build from nothing, the thread that builds `symbol_search` beside it
    /// ([`IndexTx::build_search_beside`]): the rows go there instead.
    search_build: RefCell<Option<SearchBuild>>,
    /// Files whose `symbol_search` rows [`IndexTx::delete_search_rows`] already deleted,
    /// with whether the `file` node's row was kept: their coming clear or delete
    /// leaves the search table alone.
    search_rows_gone: RefCell<HashMap<i64, bool>>,
    /// Nodes whose `symbol_search` rows [`IndexTx::delete_search_rows`] left in place
    /// because what their rows are made of stays: [`IndexTx::rewrite_node`] writes no
    /// new row for them.
    search_rows_kept: RefCell<HashSet<i64>>,
}

/// What a symbol's `symbol_search` row is made of, besides its file's path and
/// language (see [`super::symbol_search::search_columns`]).
#[derive(Debug, PartialEq, Eq)]
pub struct SearchedNode<'a> {
    pub kind: &'a str,
    pub name: &'a str,
    pub qualified_name: &'a str,
    pub signature: Option<&'a str>,
}

/// Rows one multi-row `INSERT` of a [`RefWriter`] writes: its per-statement work
/// (binding, stepping, resetting, the statement cache) is shared by this many rows.
pub const ROWS_PER_INSERT: usize = 64;

/// The multi-row and the one-row `INSERT` of one table.
struct Insert {
    batch: LazyLock<String>,
    one: LazyLock<String>,
}

const REF_HEAD: &str =
    "INSERT INTO refs (id, file_id, src_id, kind, form, name, qualifier, line, col,
   receiver_type, bindings, flags, status, candidates, deps) VALUES ";
const EDGE_HEAD: &str =
    "INSERT INTO edges (id, src_id, dst_id, kind, file_id, line, confidence, provenance, ref_id) VALUES ";

/// The `INSERT`s of references: 15 parameters a row (see [`bind_ref`]).
static REF_INSERT: Insert = Insert {
    batch: LazyLock::new(|| insert_sql(REF_HEAD, 15, ROWS_PER_INSERT)),
    one: LazyLock::new(|| insert_sql(REF_HEAD, 15, 1)),
};

/// The `INSERT`s of edges: 9 parameters a row (see [`bind_edge`]).
static EDGE_INSERT: Insert = Insert {
    batch: LazyLock::new(|| insert_sql(EDGE_HEAD, 9, ROWS_PER_INSERT)),
    one: LazyLock::new(|| insert_sql(EDGE_HEAD, 9, 1)),
};

/// `head` followed by `rows` groups of `columns` numbered parameters:
/// `... VALUES (?1, ?2), (?3, ?4)`.
fn insert_sql(head: &str, columns: usize, rows: usize) -> String {
    let mut sql = String::from(head);
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ", (" });
        for column in 0..columns {
            if column > 0 {
                sql.push_str(", ");
            }
            sql.push_str(&format!("?{}", row * columns + column + 1));
        }
        sql.push(')');
    }
    sql
}

/// A reference to insert, with its status, candidates and key set (see
/// [`IndexTx::insert_ref`]).
type RefRow<'r> = (Cow<'r, Ref>, &'r str, usize, Option<i64>);

/// An edge to insert, its id already taken.
struct EdgeRow<'r> {
    id: i64,
    src_id: i64,
    dst_id: i64,
    kind: &'r str,
    file_id: i64,
    line: Option<u32>,
    confidence: f64,
    provenance: &'r str,
    ref_id: Option<i64>,
}

/// Binds `values` as row `row` (0-based) of a multi-row insert of as many columns.
fn bind_row(
    stmt: &mut rusqlite::Statement<'_>,
    row: usize,
    values: &[&dyn rusqlite::ToSql],
) -> rusqlite::Result<()> {
    let at = row * values.len();
    for (i, value) in values.iter().enumerate() {
        stmt.raw_bind_parameter(at + i + 1, value)?;
    }
    Ok(())
}

/// Binds a reference as row `row` (0-based) of a `refs` insert.
fn bind_ref(
    stmt: &mut rusqlite::Statement<'_>,
    row: usize,
    (r, status, candidates, deps): &RefRow<'_>,
) -> rusqlite::Result<()> {
    let values: [&dyn rusqlite::ToSql; 15] = [
        &r.id,
        &r.file_id,
        &r.src_id,
        &r.kind,
        &r.form,
        &r.name,
        &r.qualifier,
        &r.line,
        &r.col,
        &r.receiver_type,
        &r.bindings,
        &r.flags,
        status,
        &(*candidates as i64),
        deps,
    ];
    bind_row(stmt, row, &values)
}

/// Binds an edge as row `row` (0-based) of an `edges` insert.
fn bind_edge(
    stmt: &mut rusqlite::Statement<'_>,
    row: usize,
    e: &EdgeRow<'_>,
) -> rusqlite::Result<()> {
    let values: [&dyn rusqlite::ToSql; 9] = [
        &e.id,
        &e.src_id,
        &e.dst_id,
        &e.kind,
        &e.file_id,
        &e.line,
        &e.confidence,
        &e.provenance,
        &e.ref_id,
    ];
    bind_row(stmt, row, &values)
}

/// Inserts the references a resolution run writes, and their edges, in multi-row
/// `INSERT`s of [`ROWS_PER_INSERT`] rows. On the standard library (437,000 references,
/// 212,000 edges) the names phase of a build takes 0.75 s instead of 1.0 s.
///
/// Rows wait in the writer until a batch is full or [`RefWriter::flush`] runs: until
/// then a query does not see them, so the caller reads none of the rows it writes
/// through here (and none of their edges) before flushing. A reference is always
/// written before the edges that name it (`edges.ref_id` is a foreign key). Dropping
/// the writer without [`RefWriter::flush`] loses the waiting rows: only an error path
/// (whose transaction is rolled back) may do that.
pub struct RefWriter<'w, 'c> {
    tx: &'w IndexTx<'c>,
    refs: Vec<RefRow<'w>>,
    edges: Vec<EdgeRow<'w>>,
}

impl<'w, 'c> RefWriter<'w, 'c> {
    /// The transaction the rows go to.
    pub fn tx(&self) -> &'w IndexTx<'c> {
        self.tx
    }

    /// Adds a reference with its status, candidates and key set (see
    /// [`IndexTx::insert_ref`]). The writer keeps it (borrowed, or owned when the
    /// caller has no lasting copy) until the batch is written.
    pub fn insert_ref(
        &mut self,
        r: Cow<'w, Ref>,
        status: &'w str,
        candidates: usize,
        deps: Option<i64>,
    ) -> Result<(), StoreError> {
        self.refs.push((r, status, candidates, deps));
        if self.refs.len() == ROWS_PER_INSERT {
            self.write_refs()?;
        }
        Ok(())
    }

    /// Adds an edge (see [`IndexTx::insert_edge`]); its id is taken now, so ids follow
    /// the order of the calls.
    #[allow(clippy::too_many_arguments)]
    pub fn insert_edge(
        &mut self,
        src_id: i64,
        dst_id: i64,
        kind: &'w str,
        file_id: i64,
        line: Option<u32>,
        confidence: f64,
        provenance: &'w str,
        ref_id: Option<i64>,
    ) -> Result<(), StoreError> {
        self.edges.push(EdgeRow {
            id: take(&self.tx.next_edge),
            src_id,
            dst_id,
            kind,
            file_id,
            line,
            confidence,
            provenance,
            ref_id,
        });
        if self.edges.len() == ROWS_PER_INSERT {
            // The references these edges name first.
            self.write_refs()?;
            self.write_edges()?;
        }
        Ok(())
    }

    /// Writes every waiting row: references, then edges.
    pub fn flush(&mut self) -> Result<(), StoreError> {
        self.write_refs()?;
        self.write_edges()
    }

    fn write_refs(&mut self) -> Result<(), StoreError> {
        self.write(&REF_INSERT, |w| &mut w.refs, bind_ref)
    }

    fn write_edges(&mut self) -> Result<(), StoreError> {
        self.write(&EDGE_INSERT, |w| &mut w.edges, bind_edge)
    }

    /// Writes the rows `rows` holds: a full batch in one statement, fewer one by one
    /// (a statement per row count would crowd the statement cache).
    fn write<T>(
        &mut self,
        insert: &Insert,
        rows: impl Fn(&mut Self) -> &mut Vec<T>,
        bind: impl Fn(&mut rusqlite::Statement<'_>, usize, &T) -> rusqlite::Result<()>,
    ) -> Result<(), StoreError> {
        let tx = self.tx;
        let rows = rows(self);
        if rows.len() == ROWS_PER_INSERT {
            let mut stmt = tx.tx.prepare_cached(&insert.batch)?;
            for (i, row) in rows.iter().enumerate() {
                bind(&mut stmt, i, row)?;
            }
            stmt.raw_execute()?;
        } else {
            let mut stmt = tx.tx.prepare_cached(&insert.one)?;
            for row in rows.iter() {
                bind(&mut stmt, 0, row)?;
                stmt.raw_execute()?;
            }
        }
        rows.clear();
        Ok(())
    }
}

/// A file's `symbol_search` columns: its path's identifier parts and its language,
/// shared by the rows of its nodes.
type SearchFile = Arc<(String, String)>;

/// Hands out the next id of a counter.
fn take(c: &Cell<i64>) -> i64 {
    let id = c.get();
    c.set(id + 1);
    id
}

/// SQL condition: `f.path` is a Python package's `__init__.py` or `__init__.pyi`.
const INIT_PATH: &str = "(f.path = '__init__.py' OR f.path = '__init__.pyi'
    OR substr(f.path, -12) = '/__init__.py' OR substr(f.path, -13) = '/__init__.pyi')";

/// SQL condition on an import edge `e` with its reference `r` and importing file `f`:
/// the edge re-exports names: `export ... from`, or a `from X import names` in a Python
/// `__init__` (a plain `import os` there binds `os`, not what `os` defines).
const REEXPORT_EDGE: &str = "(r.form = 'reexport' OR (r.qualifier IS NOT NULL
    AND (f.path = '__init__.py' OR f.path = '__init__.pyi'
    OR substr(f.path, -12) = '/__init__.py' OR substr(f.path, -13) = '/__init__.pyi')))";

/// The secondary indexes that only lookups of references by name or by looked-up key
/// read: no step that deletes or writes rows by file, node or reference reads them
/// (see [`IndexTx::suspend_lookup_indexes`]).
pub const LOOKUP_INDEXES: [&str; 3] = ["ref_dep_sets_key", "refs_deps", "refs_name"];

/// The answers of `refs_deps` and `ref_dep_sets_key`, read by scanning `ref_dep_sets`
/// and `refs` once ([`IndexTx::ref_lookups`]): a snapshot, right while no reference's
/// `deps` and no key set has been written since it was read.
#[derive(Debug, Default)]
pub struct RefLookups {
    /// Key (file id × 2³² + name hash) → the ids of the key sets holding it.
    sets_by_key: BTreeMap<i64, Vec<i64>>,
    /// Key set id → the references whose `deps` it is, in id order.
    refs_by_set: HashMap<i64, Vec<i64>>,
}

impl RefLookups {
    fn refs_of_sets<'a>(&self, sets: impl Iterator<Item = &'a i64>) -> Vec<i64> {
        let mut out: Vec<i64> = sets
            .filter_map(|set| self.refs_by_set.get(set))
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// [`IndexTx::refs_depending_on`], from the snapshot: sorted ids.
    pub fn refs_depending_on(&self, key: i64) -> Vec<i64> {
        self.refs_of_sets(self.sets_by_key.get(&key).into_iter().flatten())
    }

    /// [`IndexTx::refs_depending_on_file`], from the snapshot: sorted ids.
    pub fn refs_depending_on_file(&self, file_id: i64) -> Vec<i64> {
        let lo = file_id << 32;
        let hi = (file_id + 1) << 32;
        self.refs_of_sets(self.sets_by_key.range(lo..hi).flat_map(|(_, sets)| sets))
    }
}

pub(super) const REF_COLUMNS: &str =
    "id, file_id, src_id, kind, form, name, qualifier, line, col, receiver_type, bindings, flags";
/// How many columns [`REF_COLUMNS`] reads.
const REF_COLUMN_COUNT: usize = 12;

pub(super) fn stored_ref(r: &rusqlite::Row<'_>) -> rusqlite::Result<Ref> {
    Ok(Ref {
        id: r.get(0)?,
        file_id: r.get(1)?,
        src_id: r.get(2)?,
        kind: intern(&r.get::<_, String>(3)?),
        form: r.get::<_, Option<String>>(4)?.map(|f| intern(&f)),
        name: r.get(5)?,
        qualifier: r.get(6)?,
        line: r.get(7)?,
        col: r.get(8)?,
        receiver_type: r.get(9)?,
        bindings: r.get(10)?,
        flags: r.get(11)?,
    })
}

impl<'c> IndexTx<'c> {
    /// The first column of `sql`'s rows as ids, with `?1` bound to `param` (the
    /// statement is cached per transaction).
    fn ids(&self, sql: &str, param: i64) -> Result<Vec<i64>, StoreError> {
        let mut stmt = self.tx.prepare_cached(sql)?;
        let ids = stmt
            .query_map([param], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(ids)
    }

    /// Begins an IMMEDIATE transaction (takes the write lock now, waiting up to the busy
    /// timeout for another writer).
    pub fn begin(conn: &'c mut Connection) -> Result<IndexTx<'c>, StoreError> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let max = |table: &str| -> rusqlite::Result<i64> {
            tx.query_row(
                &format!("SELECT coalesce(max(id), 0) FROM {table}"),
                [],
                |r| r.get(0),
            )
        };
        let (next_file, next_node, next_ref, next_edge) = (
            max("files")? + 1,
            max("nodes")? + 1,
            max("refs")? + 1,
            max("edges")? + 1,
        );
        Ok(IndexTx {
            tx,
            next_file: Cell::new(next_file),
            next_node: Cell::new(next_node),
            next_ref: Cell::new(next_ref),
            next_edge: Cell::new(next_edge),
            search_file: RefCell::new(None),
            search_build: RefCell::new(None),
            search_rows_gone: RefCell::new(HashMap::new()),
            search_rows_kept: RefCell::new(HashSet::new()),
        })
    }

    /// Empties every index table (for `--full`), the parse cache included; ids restart
    /// at 1.
    pub fn clear_all(&self) -> Result<(), StoreError> {
        self.tx.execute_batch(
            "DELETE FROM edges; DELETE FROM ref_dep_sets; DELETE FROM refs; DELETE FROM nodes;
             DELETE FROM scip_files; DELETE FROM files; DELETE FROM parse_cache;",
        )?;
        super::symbol_search::delete_all(&self.tx)?;
        for c in [
            &self.next_file,
            &self.next_node,
            &self.next_ref,
            &self.next_edge,
        ] {
            c.set(1);
        }
        Ok(())
    }

    /// Drops the secondary indexes of `nodes`, `refs` and `edges` for a bulk load into
    /// empty tables (building an index once over sorted data is much cheaper than
    /// keeping it up to date row by row). Returns their `CREATE` statements for
    /// [`IndexTx::restore_indexes`]; both happen inside the run's transaction, so a
    /// crash leaves the indexes as they were.
    pub fn suspend_indexes(&self) -> Result<Vec<String>, StoreError> {
        self.suspend_indexes_of(&["nodes", "refs", "edges", "ref_dep_sets"])
    }

    /// [`IndexTx::suspend_indexes`] for the named tables only.
    pub fn suspend_indexes_of(&self, tables: &[&str]) -> Result<Vec<String>, StoreError> {
        self.drop_indexes("tbl_name", tables)
    }

    /// Drops the indexes (not those of constraints) whose `column` of `sqlite_master`
    /// (`name` or `tbl_name`) is one of `values`, in name order; returns their `CREATE`
    /// statements.
    fn drop_indexes(&self, column: &str, values: &[&str]) -> Result<Vec<String>, StoreError> {
        let sqls: Vec<(String, String)> = {
            let mut stmt = self.tx.prepare(&format!(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
                 AND {column} IN (SELECT value FROM json_each(?1)) ORDER BY name"
            ))?;
            let list = serde_json::json!(values).to_string();
            let rows = stmt
                .query_map([list], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            rows
        };
        for (name, _) in &sqls {
            self.tx
                .execute_batch(&format!("DROP INDEX \"{}\"", name.replace('"', "\"\"")))?;
        }
        Ok(sqls.into_iter().map(|(_, sql)| sql).collect())
    }

    /// Re-creates the indexes dropped by [`IndexTx::suspend_indexes`], one after the
    /// other, on this thread.
    ///
    /// SQLite's sorter takes no helper threads here: it uses them (`PRAGMA threads`)
    /// only when its runs go to temporary files, and these connections keep temporary
    /// data in memory (`temp_store = MEMORY`). Sorting on disk was measured on the
    /// Linux kernel's full index: `refs_name` (text keys) took 2.2 s instead of
    /// 3.4–3.8 s, but the integer-keyed indexes took longer (`refs_file` 1.3 s against
    /// 0.8 s), and the twelve together took as long (8.8–9.0 s against 8.8–9.2 s).
    ///
    /// Errors: SQLite's.
    pub fn restore_indexes(&self, sqls: &[String]) -> Result<(), StoreError> {
        for sql in sqls {
            self.tx.execute_batch(sql)?;
        }
        Ok(())
    }

    /// Drops the indexes that only name and key lookups of references read
    /// ([`LOOKUP_INDEXES`]), for a run that rewrites a large share of the references:
    /// deleting and writing their rows then keeps fewer indexes up to date. While they
    /// are gone, [`IndexTx::refs_named_any`] and [`RefLookups`] answer what they would
    /// have. Returns their `CREATE` statements for [`IndexTx::restore_indexes`]; inside
    /// the run's transaction, like [`IndexTx::suspend_indexes`].
    ///
    /// Errors: SQLite's.
    pub fn suspend_lookup_indexes(&self) -> Result<Vec<String>, StoreError> {
        self.drop_indexes("name", &LOOKUP_INDEXES)
    }

    /// How many references are written in the files `file_ids` (through `refs_file`).
    pub fn count_refs_of_files(&self, file_ids: &[i64]) -> Result<usize, StoreError> {
        let list = serde_json::json!(file_ids).to_string();
        let n: i64 = self.tx.query_row(
            "SELECT count(*) FROM refs WHERE file_id IN (SELECT value FROM json_each(?1))",
            [list],
            |r| r.get(0),
        )?;
        Ok(n as usize)
    }

    /// [`IndexTx::refs_named`] for every name of `names` at once, in one scan of
    /// `refs` (for runs that suspended `refs_name`: see
    /// [`IndexTx::suspend_lookup_indexes`]). In id order.
    pub fn refs_named_any(&self, names: &HashSet<&str>) -> Result<Vec<Ref>, StoreError> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self.tx.prepare(&format!(
            "SELECT {REF_COLUMNS} FROM refs WHERE kind <> 'import' ORDER BY id"
        ))?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            if names.contains(row.get_ref(5)?.as_str().map_err(rusqlite::Error::from)?) {
                out.push(stored_ref(row)?);
            }
        }
        Ok(out)
    }

    /// Reads what `refs_deps` and `ref_dep_sets_key` would answer, in one scan of each
    /// table (see [`RefLookups`]).
    pub fn ref_lookups(&self) -> Result<RefLookups, StoreError> {
        let mut lookups = RefLookups::default();
        self.for_each_pair("SELECT key, set_id FROM ref_dep_sets", |key, set| {
            lookups.sets_by_key.entry(key).or_default().push(set)
        })?;
        self.for_each_pair(
            "SELECT deps, id FROM refs WHERE deps IS NOT NULL ORDER BY id",
            |set, id| lookups.refs_by_set.entry(set).or_default().push(id),
        )?;
        Ok(lookups)
    }

    /// Calls `f` with the two integer columns of each row of `sql`, in row order.
    fn for_each_pair(&self, sql: &str, mut f: impl FnMut(i64, i64)) -> Result<(), StoreError> {
        let mut stmt = self.tx.prepare(sql)?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            f(row.get(0)?, row.get(1)?);
        }
        Ok(())
    }

    /// How many references the index holds.
    pub fn count_refs(&self) -> Result<usize, StoreError> {
        let n: i64 = self
            .tx
            .query_row("SELECT count(*) FROM refs", [], |r| r.get(0))?;
        Ok(n as usize)
    }

    /// Records a new stat for a file whose contents did not change.
    pub fn update_stat(&self, file_id: i64, size: i64, mtime_ns: i64) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("UPDATE files SET size = ?2, mtime_ns = ?3 WHERE id = ?1")?
            .execute(params![file_id, size, mtime_ns])?;
        Ok(())
    }

    /// References written in *other* files whose edges point into `file_id`'s nodes:
    /// they must be resolved again once the file's nodes are replaced or removed.
    pub fn refs_into_file(&self, file_id: i64) -> Result<Vec<i64>, StoreError> {
        self.ids(
            "SELECT DISTINCT e.ref_id FROM edges e JOIN nodes d ON d.id = e.dst_id
             WHERE d.file_id = ?1 AND e.file_id <> ?1 AND e.ref_id IS NOT NULL",
            file_id,
        )
    }

    /// Imports written in other files that resolved to `file_id` (their edges point at
    /// its `file` node, which an edit keeps).
    pub fn imports_into_file(&self, file_id: i64) -> Result<Vec<i64>, StoreError> {
        self.ids(
            "SELECT DISTINCT e.ref_id FROM edges e JOIN nodes d ON d.id = e.dst_id
             WHERE d.file_id = ?1 AND d.kind = 'file' AND e.kind = 'imports'
               AND e.file_id <> ?1 AND e.ref_id IS NOT NULL",
            file_id,
        )
    }

    /// References written in other files than `file_id` whose edges point at one of
    /// `nodes`: they must be resolved again once those nodes are deleted.
    pub fn refs_into_nodes(&self, file_id: i64, nodes: &[i64]) -> Result<Vec<i64>, StoreError> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT DISTINCT ref_id FROM edges
             WHERE dst_id = ?1 AND file_id <> ?2 AND ref_id IS NOT NULL",
        )?;
        let mut out = BTreeSet::new();
        for node in nodes {
            let ids = stmt.query_map(params![node, file_id], |r| r.get::<_, i64>(0))?;
            for id in ids {
                out.insert(id?);
            }
        }
        Ok(out.into_iter().collect())
    }

    /// The status of a reference and the nodes its edges point at (sorted).
    pub fn ref_outcome(&self, ref_id: i64) -> Result<Option<(String, Vec<i64>)>, StoreError> {
        let status: Option<String> = self
            .tx
            .prepare_cached("SELECT status FROM refs WHERE id = ?1")?
            .query_row([ref_id], |r| r.get(0))
            .optional()?;
        let Some(status) = status else {
            return Ok(None);
        };
        let dsts = self.ids(
            "SELECT dst_id FROM edges WHERE ref_id = ?1 ORDER BY dst_id",
            ref_id,
        )?;
        Ok(Some((status, dsts)))
    }

    /// Deletes the edges and references written in a file, and what a SCIP index said of
    /// it. The edges of a reference are written in its file (`file_id` is the
    /// reference's), so none is left pointing at a deleted reference.
    fn delete_edges_and_refs(&self, file_id: i64) -> Result<(), StoreError> {
        self.forget_scip_file(file_id)?;
        self.tx
            .prepare_cached("DELETE FROM edges WHERE file_id = ?1")?
            .execute([file_id])?;
        self.tx
            .prepare_cached("DELETE FROM refs WHERE file_id = ?1")?
            .execute([file_id])?;
        Ok(())
    }

    /// Deletes the references and edges written in a file and the search rows of its
    /// symbols, but keeps its nodes, for the file to be written again: a symbol whose
    /// key stays keeps its id ([`IndexTx::rewrite_node`]), so the edges of other files
    /// into it stay right; the caller deletes the others ([`IndexTx::delete_nodes`]).
    /// Returns the `file` node's id, if it has one, and the other nodes by key.
    pub fn clear_file_for_rewrite(
        &self,
        file_id: i64,
    ) -> Result<(Option<i64>, HashMap<String, KeptNode>), StoreError> {
        self.delete_edges_and_refs(file_id)?;
        self.delete_search_rows_of(file_id, true)?;
        let mut stmt = self.tx.prepare_cached(
            "SELECT id, key, kind, name, qualified_name, signature, start_line, end_line,
               start_byte, end_byte, parent_id, returns
             FROM nodes WHERE file_id = ?1",
        )?;
        let rows = stmt.query_map([file_id], |r| {
            Ok((
                r.get::<_, String>(1)?,
                KeptNode {
                    id: r.get(0)?,
                    kind: r.get(2)?,
                    name: r.get(3)?,
                    qualified_name: r.get(4)?,
                    signature: r.get(5)?,
                    lines: (r.get(6)?, r.get(7)?),
                    bytes: (r.get(8)?, r.get(9)?),
                    parent_id: r.get(10)?,
                    returns: r.get(11)?,
                },
            ))
        })?;
        let (mut file_node, mut symbols) = (None, HashMap::new());
        for row in rows {
            let (key, node) = row?;
            if node.kind == "file" {
                file_node = Some(node.id);
            } else {
                symbols.insert(key, node);
            }
        }
        Ok((file_node, symbols))
    }

    /// Writes a node kept by [`IndexTx::clear_file_for_rewrite`] again with the columns
    /// of `n` (its key is `n`'s) and its search row. Only what changed is written: most
    /// symbols of an edited file keep their names and parents and move at most their
    /// lines, so their indexed columns are left alone.
    pub fn rewrite_node(&self, old: &KeptNode, n: &NodeRecord<'_>) -> Result<(), StoreError> {
        let same_identity = old.kind == n.kind
            && old.name == n.name
            && old.qualified_name == n.qualified_name
            && old.parent_id == n.parent_id;
        let same_place = old.signature.as_deref() == n.signature
            && old.lines == (n.start_line, n.end_line)
            && old.bytes == (n.start_byte, n.end_byte)
            && old.returns.as_deref() == n.returns;
        if !same_identity {
            return self.node_row(
                "UPDATE nodes SET key = ?2, file_id = ?3, kind = ?4, name = ?5,
                   qualified_name = ?6, signature = ?7, start_line = ?8, end_line = ?9,
                   start_byte = ?10, end_byte = ?11, parent_id = ?12, returns = ?13
                 WHERE id = ?1",
                old.id,
                n,
            );
        }
        if !same_place {
            self.tx
                .prepare_cached(
                    "UPDATE nodes SET signature = ?2, start_line = ?3, end_line = ?4,
                       start_byte = ?5, end_byte = ?6, returns = ?7
                     WHERE id = ?1",
                )?
                .execute(params![
                    old.id,
                    n.signature,
                    n.start_line,
                    n.end_line,
                    n.start_byte,
                    n.end_byte,
                    n.returns
                ])?;
        }
        if self.search_rows_kept.borrow_mut().remove(&old.id) {
            if same_identity && old.signature.as_deref() == n.signature {
                return Ok(());
            }
            // Kept for columns that did not stay after all: replace the row.
            super::symbol_search::delete_rows(&self.tx, vec![old.id])?;
        }
        self.insert_search_row(old.id, n)
    }

    /// Deletes nodes with what their foreign keys' `ON DELETE CASCADE` would delete:
    /// the edges from and into them, the references they enclose (whose edges start at
    /// them too), and their child nodes, to the leaves. Index runs switch foreign-key
    /// enforcement off (see `index::RunSettings`), so the cascades are spelled out
    /// here, each through the index the cascade would have used.
    pub fn delete_nodes(&self, ids: &[i64]) -> Result<(), StoreError> {
        let mut children = self
            .tx
            .prepare_cached("SELECT id FROM nodes WHERE parent_id = ?1")?;
        let mut stack: Vec<i64> = ids.to_vec();
        let mut all: Vec<i64> = Vec::with_capacity(ids.len());
        let mut seen: HashSet<i64> = HashSet::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            all.push(id);
            let kids = children.query_map([id], |r| r.get::<_, i64>(0))?;
            for kid in kids {
                stack.push(kid?);
            }
        }
        let mut from = self
            .tx
            .prepare_cached("DELETE FROM edges WHERE src_id = ?1")?;
        let mut into = self
            .tx
            .prepare_cached("DELETE FROM edges WHERE dst_id = ?1")?;
        let mut refs = self
            .tx
            .prepare_cached("DELETE FROM refs WHERE src_id = ?1")?;
        let mut node = self.tx.prepare_cached("DELETE FROM nodes WHERE id = ?1")?;
        for id in all {
            // A reference's edges start at its enclosing node: `from` took them.
            from.execute([id])?;
            into.execute([id])?;
            refs.execute([id])?;
            node.execute([id])?;
        }
        Ok(())
    }

    /// Deletes, in one statement, the `symbol_search` rows of files that are about to be
    /// cleared ([`IndexTx::clear_file_for_rewrite`], `keep_file_node` true) or deleted
    /// ([`IndexTx::delete_file_contents`], false); those calls then leave the search
    /// table alone. Deleting per file costs FTS5 a new segment and a merge each time
    /// (see [`super::symbol_search::delete_rows`]).
    ///
    /// A symbol of a file being cleared keeps its row when `stays(file id, node key,
    /// stored columns)` says the file's new version has a symbol of that key made of
    /// the same columns: [`IndexTx::rewrite_node`] then leaves the row alone too.
    pub fn delete_search_rows(
        &self,
        files: &[(i64, bool)],
        stays: &dyn Fn(i64, &str, &SearchedNode<'_>) -> bool,
    ) -> Result<(), StoreError> {
        let mut gone = self.search_rows_gone.borrow_mut();
        let todo: Vec<(i64, bool)> = files
            .iter()
            .copied()
            .filter(|(id, _)| !gone.contains_key(id))
            .collect();
        let mut ids = Vec::new();
        let mut kept = self.search_rows_kept.borrow_mut();
        let mut stmt = self.tx.prepare_cached(
            "SELECT id, key, kind, name, qualified_name, signature FROM nodes
             WHERE file_id = ?1 AND kind <> 'file'",
        )?;
        for &(file_id, keep_file_node) in &todo {
            if !keep_file_node {
                ids.extend(super::symbol_search::node_ids_of_files(
                    &self.tx,
                    &[(file_id, false)],
                )?);
                continue;
            }
            let mut rows = stmt.query([file_id])?;
            while let Some(r) = rows.next()? {
                let id: i64 = r.get(0)?;
                let (key, kind, name, qualified_name, signature): (
                    String,
                    String,
                    String,
                    String,
                    Option<String>,
                ) = (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?);
                let node = SearchedNode {
                    kind: &kind,
                    name: &name,
                    qualified_name: &qualified_name,
                    signature: signature.as_deref(),
                };
                if stays(file_id, &key, &node) {
                    kept.insert(id);
                } else {
                    ids.push(id);
                }
            }
        }
        super::symbol_search::delete_rows(&self.tx, ids)?;
        gone.extend(todo);
        Ok(())
    }

    /// The search rows of one file (all its nodes', or all but its `file` node's), less
    /// those [`IndexTx::delete_search_rows`] deleted already.
    fn delete_search_rows_of(&self, file_id: i64, keep_file_node: bool) -> Result<(), StoreError> {
        let rows = match self.search_rows_gone.borrow_mut().remove(&file_id) {
            None => (file_id, keep_file_node),
            // The symbols' rows went before; the file node's stayed and goes now.
            Some(true) if !keep_file_node => {
                let node = self
                    .tx
                    .prepare_cached("SELECT id FROM nodes WHERE file_id = ?1 AND kind = 'file'")?
                    .query_row([file_id], |r| r.get::<_, i64>(0))
                    .optional()?;
                return super::symbol_search::delete_rows(&self.tx, node.into_iter().collect());
            }
            Some(_) => return Ok(()),
        };
        let ids = super::symbol_search::node_ids_of_files(&self.tx, &[rows])?;
        super::symbol_search::delete_rows(&self.tx, ids)
    }

    /// Updates the span of a `file` node kept by [`IndexTx::clear_file_for_rewrite`].
    pub fn update_file_node(
        &self,
        node_id: i64,
        end_line: u32,
        end_byte: u32,
    ) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("UPDATE nodes SET end_line = ?2, end_byte = ?3 WHERE id = ?1")?
            .execute(params![node_id, end_line, end_byte])?;
        Ok(())
    }

    /// Distinct names of the symbols defined in `file_id`.
    pub fn symbol_names(&self, file_id: i64) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT DISTINCT name FROM nodes WHERE file_id = ?1 AND kind <> 'file'",
        )?;
        let names = stmt
            .query_map([file_id], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(names)
    }

    /// Deletes a file's nodes, references and edges, and the edges of other files
    /// into its nodes; keeps its `files` row.
    pub fn delete_file_contents(&self, file_id: i64) -> Result<(), StoreError> {
        self.delete_edges_and_refs(file_id)?;
        self.delete_search_rows_of(file_id, false)?;
        let ids: Vec<i64> = self
            .tx
            .prepare_cached("SELECT id FROM nodes WHERE file_id = ?1")?
            .query_map([file_id], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        self.delete_nodes(&ids)
    }

    /// Deletes a file and everything that hangs off it.
    pub fn delete_file(&self, file_id: i64) -> Result<(), StoreError> {
        self.delete_file_contents(file_id)?;
        self.tx
            .prepare_cached("DELETE FROM files WHERE id = ?1")?
            .execute([file_id])?;
        Ok(())
    }

    /// Writes a file row: updates `existing` in place, or inserts a new row. Returns the id.
    pub fn write_file(
        &self,
        existing: Option<i64>,
        rec: &FileRecord<'_>,
        generation: i64,
    ) -> Result<i64, StoreError> {
        let id = match existing {
            Some(id) => id,
            None => take(&self.next_file),
        };
        self.tx
            .prepare_cached(
                "INSERT INTO files (id, path, language, size, mtime_ns, digest, status, detail, generation, interface)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                 ON CONFLICT (id) DO UPDATE SET language = excluded.language, size = excluded.size,
                   mtime_ns = excluded.mtime_ns, digest = excluded.digest, status = excluded.status,
                   detail = excluded.detail, generation = excluded.generation,
                   interface = excluded.interface",
            )?
            .execute(params![
                id,
                rec.path,
                rec.language,
                rec.size,
                rec.mtime_ns,
                rec.digest,
                rec.status,
                rec.detail,
                generation,
                rec.interface
            ])?;
        Ok(id)
    }

    /// Inserts a node; returns its id.
    pub fn insert_node(&self, n: &NodeRecord<'_>) -> Result<i64, StoreError> {
        let id = take(&self.next_node);
        self.node_row(
            "INSERT INTO nodes (id, key, file_id, kind, name, qualified_name, signature,
               start_line, end_line, start_byte, end_byte, parent_id, returns)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            id,
            n,
        )?;
        Ok(id)
    }

    /// Runs `sql` (an insert or update of one `nodes` row) with `?1` the id and `?2`
    /// to `?13` the columns of `n` in table order, then writes the node's search row.
    fn node_row(&self, sql: &str, id: i64, n: &NodeRecord<'_>) -> Result<(), StoreError> {
        self.tx.prepare_cached(sql)?.execute(params![
            id,
            n.key,
            n.file_id,
            n.kind,
            n.name,
            n.qualified_name,
            n.signature,
            n.start_line,
            n.end_line,
            n.start_byte,
            n.end_byte,
            n.parent_id,
            n.returns
        ])?;
        self.insert_search_row(id, n)
    }

    /// Writes the `symbol_search` row of node `id` (schema/010).
    fn insert_search_row(&self, id: i64, n: &NodeRecord<'_>) -> Result<(), StoreError> {
        let mut slot = self.search_file.borrow_mut();
        let file = match slot.take() {
            Some(f) if f.0 == n.file_id => f,
            _ => (
                n.file_id,
                Arc::new(super::symbol_search::file_columns(&self.tx, n.file_id)?),
            ),
        };
        let path_and_language = Arc::clone(&file.1);
        *slot = Some(file);
        if let Some(build) = self.search_build.borrow().as_ref() {
            build.send(super::search_build::Row::new(
                id,
                n.name,
                n.qualified_name,
                n.kind,
                n.signature,
                path_and_language,
            ));
            return Ok(());
        }
        let columns = super::symbol_search::search_columns(
            n.name,
            n.qualified_name,
            n.signature,
            n.kind,
            &path_and_language.0,
            &path_and_language.1,
        );
        super::symbol_search::insert_row(&self.tx, id, &columns)
    }

    /// From now on, the `symbol_search` rows of new nodes are built on a thread of
    /// their own, beside the build file `db` (see [`super::search_build`]); the caller
    /// takes it back with [`IndexTx::take_search_build`] and finishes it after the
    /// commit. Only for a build from nothing into a private file: until then the table
    /// holds none of this run's rows, and this run deletes none.
    ///
    /// Errors: as [`SearchBuild`]'s start.
    pub fn build_search_beside(&self, db: &std::path::Path) -> Result<(), StoreError> {
        *self.search_build.borrow_mut() = Some(SearchBuild::start(&self.tx, db)?);
        Ok(())
    }

    /// Lets the thread building the search table beside this run start writing (see
    /// [`super::search_build::SearchBuild::go`]); nothing without one.
    pub fn start_search_build(&self) {
        if let Some(build) = self.search_build.borrow_mut().as_mut() {
            build.go();
        }
    }

    /// The search table being built beside this run, if any (see
    /// [`IndexTx::build_search_beside`]).
    pub fn take_search_build(&self) -> Option<SearchBuild> {
        self.search_build.borrow_mut().take()
    }

    /// Reserves the id of a reference that will be inserted later (after resolution),
    /// so ids follow extraction order whatever the resolution order.
    pub fn alloc_ref_id(&self) -> i64 {
        take(&self.next_ref)
    }

    /// Inserts a reference with its resolution status and the set of keys it looked up
    /// in other files (`deps`: a `ref_dep_sets.set_id`, see [`IndexTx::insert_dep_set`]).
    pub fn insert_ref(
        &self,
        r: &Ref,
        status: &str,
        candidates: usize,
        deps: Option<i64>,
    ) -> Result<(), StoreError> {
        let mut writer = self.ref_writer();
        writer.insert_ref(Cow::Borrowed(r), status, candidates, deps)?;
        writer.flush()
    }

    /// Inserts an edge.
    #[allow(clippy::too_many_arguments)]
    pub fn insert_edge(
        &self,
        src_id: i64,
        dst_id: i64,
        kind: &str,
        file_id: i64,
        line: Option<u32>,
        confidence: f64,
        provenance: &str,
        ref_id: Option<i64>,
    ) -> Result<(), StoreError> {
        let mut writer = self.ref_writer();
        writer.insert_edge(
            src_id, dst_id, kind, file_id, line, confidence, provenance, ref_id,
        )?;
        writer.flush()
    }

    /// A writer that inserts references and edges [`ROWS_PER_INSERT`] at a time (see
    /// [`RefWriter`]). It allocates nothing until a row comes.
    pub fn ref_writer<'w>(&'w self) -> RefWriter<'w, 'c> {
        RefWriter {
            tx: self,
            refs: Vec::new(),
            edges: Vec::new(),
        }
    }

    /// Every file as (id, path), for resolution.
    pub fn file_paths(&self) -> Result<Vec<(i64, String)>, StoreError> {
        file_paths(&self.tx)
    }

    /// When the latest recorded run started (RFC 3339), `None` before the first.
    pub fn last_run_started(&self) -> Result<Option<String>, StoreError> {
        last_run_started(&self.tx)
    }

    /// The id of the node with this key (`file:PATH` for a file's `file` node), read
    /// from the key's unique index alone.
    pub fn node_id_by_key(&self, key: &str) -> Result<Option<i64>, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT id FROM nodes WHERE key = ?1")?
            .query_row([key], |r| r.get(0))
            .optional()?)
    }

    /// The id of a file's `file` node.
    pub fn file_node_ids(&self) -> Result<HashMap<i64, i64>, StoreError> {
        let mut stmt = self
            .tx
            // File nodes are the nodes without a parent: `nodes_parent` finds them
            // without reading the whole table.
            .prepare("SELECT file_id, id FROM nodes WHERE parent_id IS NULL AND kind = 'file'")?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<HashMap<i64, i64>>>()?;
        Ok(rows)
    }

    /// Stores the set of keys `set_id` (`keys` sorted and distinct; `set_id` their
    /// digest, see `schema/013_ref_dep_sets.sql`), unless it is stored already.
    pub fn insert_dep_set(&self, set_id: i64, keys: &[i64]) -> Result<(), StoreError> {
        let mut stmt = self
            .tx
            .prepare_cached("INSERT OR IGNORE INTO ref_dep_sets (set_id, key) VALUES (?1, ?2)")?;
        for key in keys {
            stmt.execute(params![set_id, key])?;
        }
        Ok(())
    }

    /// Deletes the key sets no reference names any more; returns how many keys went.
    pub fn delete_unused_dep_sets(&self) -> Result<usize, StoreError> {
        Ok(self.tx.execute(
            "DELETE FROM ref_dep_sets WHERE set_id NOT IN
               (SELECT deps FROM refs WHERE deps IS NOT NULL)",
            [],
        )?)
    }

    /// The references that looked up `key` (one file's one name) when last resolved.
    pub fn refs_depending_on(&self, key: i64) -> Result<Vec<i64>, StoreError> {
        self.ids(
            "SELECT id FROM refs WHERE deps IN (SELECT set_id FROM ref_dep_sets WHERE key = ?1)",
            key,
        )
    }

    /// The references that looked up any name of file `file_id` (keys `file_id * 2^32`
    /// up to the next file's).
    pub fn refs_depending_on_file(&self, file_id: i64) -> Result<Vec<i64>, StoreError> {
        self.ids(
            "SELECT id FROM refs WHERE deps IN (SELECT set_id FROM ref_dep_sets
               WHERE key >= ?1 * 4294967296 AND key < (?1 + 1) * 4294967296)",
            file_id,
        )
    }

    /// What other files can see of a stored file: its symbols ([`InterfaceSymbol`]) and
    /// its import, base and export references ([`InterfaceRef`]). Read before the file
    /// is written again, to tell which names changed.
    pub fn interface_rows(
        &self,
        file_id: i64,
    ) -> Result<(Vec<InterfaceSymbol>, Vec<InterfaceRef>), StoreError> {
        let nodes = self
            .tx
            .prepare_cached(
                "SELECT id, parent_id, kind, name, qualified_name, signature, returns FROM nodes
                 WHERE file_id = ?1 AND kind <> 'file' ORDER BY id",
            )?
            .query_map([file_id], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let refs = self
            .tx
            .prepare_cached(
                "SELECT kind, form, name, qualifier, bindings, src_id FROM refs
                 WHERE file_id = ?1 AND kind IN ('import', 'inherit', 'implement', 'export')
                 ORDER BY id",
            )?
            .query_map([file_id], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((nodes, refs))
    }

    /// The id of the file at `path`, if it is in the index.
    pub fn file_id_by_path(&self, path: &str) -> Result<Option<i64>, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT id FROM files WHERE path = ?1")?
            .query_row([path], |r| r.get(0))
            .optional()?)
    }

    /// One reference by id, if it still exists.
    pub fn ref_by_id(&self, id: i64) -> Result<Option<Ref>, StoreError> {
        Ok(self
            .tx
            .prepare_cached(&format!("SELECT {REF_COLUMNS} FROM refs WHERE id = ?1"))?
            .query_row([id], stored_ref)
            .optional()?)
    }

    /// Call, inherit and implement references naming `name`.
    pub fn refs_named(&self, name: &str) -> Result<Vec<Ref>, StoreError> {
        let mut stmt = self.tx.prepare_cached(&format!(
            "SELECT {REF_COLUMNS} FROM refs WHERE name = ?1 AND kind <> 'import'"
        ))?;
        let rows = stmt
            .query_map([name], stored_ref)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Removes the edges a reference produced before it is resolved again.
    pub fn delete_edges_of_ref(&self, ref_id: i64) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("DELETE FROM edges WHERE ref_id = ?1")?
            .execute([ref_id])?;
        Ok(())
    }

    /// Records the outcome of resolving a reference again, with the set of keys it
    /// looked up this time (see [`IndexTx::insert_ref`]).
    pub fn set_ref_outcome(
        &self,
        ref_id: i64,
        status: &str,
        candidates: usize,
        deps: Option<i64>,
    ) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(
                "UPDATE refs SET status = ?2, candidates = ?3, deps = ?4 WHERE id = ?1",
            )?
            .execute(params![ref_id, status, candidates as i64, deps])?;
        Ok(())
    }

    /// Records a new status of a reference (a compiler's SCIP index overruling the
    /// resolver); the keys it looked up stay.
    pub fn set_ref_status(
        &self,
        ref_id: i64,
        status: &str,
        candidates: usize,
    ) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("UPDATE refs SET status = ?2, candidates = ?3 WHERE id = ?1")?
            .execute(params![ref_id, status, candidates as i64])?;
        Ok(())
    }

    /// Definitions (non-file nodes) named `name`, in id order.
    pub fn definitions_named(&self, name: &str) -> Result<Vec<Definition>, StoreError> {
        let mut stmt = self.tx.prepare_cached(&format!(
            "SELECT {DEFINITION_COLUMNS} FROM nodes WHERE name = ?1 AND kind <> 'file' ORDER BY id"
        ))?;
        let rows = stmt
            .query_map([name], definition)?
            .filter_map(Result::transpose)
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Every definition in id order (bulk form of [`IndexTx::definitions_named`]).
    pub fn all_definitions(&self) -> Result<Vec<Definition>, StoreError> {
        let mut stmt = self.tx.prepare(&format!(
            "SELECT {DEFINITION_COLUMNS} FROM nodes WHERE kind <> 'file' ORDER BY id"
        ))?;
        let rows = stmt
            .query_map([], definition)?
            .filter_map(Result::transpose)
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// One definition by node id (`None` for a file node or a missing id).
    pub fn definition(&self, node_id: i64) -> Result<Option<Definition>, StoreError> {
        Ok(self
            .tx
            .prepare_cached(&format!(
                "SELECT {DEFINITION_COLUMNS} FROM nodes WHERE id = ?1"
            ))?
            .query_row([node_id], definition)
            .optional()?
            .flatten())
    }

    /// The signature of a node, if it has one.
    pub fn signature(&self, node_id: i64) -> Result<Option<String>, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT signature FROM nodes WHERE id = ?1")?
            .query_row([node_id], |r| r.get(0))
            .optional()?
            .flatten())
    }

    /// What a Python function returns as its `return`s state it (`nodes.returns`).
    pub fn node_returns(&self, node_id: i64) -> Result<Option<String>, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT returns FROM nodes WHERE id = ?1")?
            .query_row([node_id], |r| r.get(0))
            .optional()?
            .flatten())
    }

    /// The parent of a node (the class of a method), if any.
    pub fn node_parent(&self, node_id: i64) -> Result<Option<i64>, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT parent_id FROM nodes WHERE id = ?1")?
            .query_row([node_id], |r| r.get(0))
            .optional()?
            .flatten())
    }

    /// The bases a class names, in the order written: for each inherit/implement
    /// reference of `class_id`, the base's name, whether it is an `implements`, and the
    /// class it resolved to (`None` when it did not: a base outside the workspace or not
    /// found).
    pub fn bases(&self, class_id: i64) -> Result<Vec<Base>, StoreError> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT r.src_id, r.name, r.kind, e.dst_id FROM refs r
             LEFT JOIN edges e ON e.ref_id = r.id
             WHERE r.src_id = ?1 AND (r.kind = 'inherit' OR r.kind = 'implement')
             ORDER BY r.id",
        )?;
        let rows = stmt
            .query_map([class_id], base_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows.into_iter().map(|(_, b)| b).collect())
    }

    /// The bases of every class (bulk form of [`IndexTx::bases`]).
    pub fn all_bases(&self) -> Result<HashMap<i64, Vec<Base>>, StoreError> {
        let mut stmt = self.tx.prepare(
            "SELECT r.src_id, r.name, r.kind, e.dst_id FROM refs r
             LEFT JOIN edges e ON e.ref_id = r.id
             WHERE r.kind = 'inherit' OR r.kind = 'implement'
             ORDER BY r.id",
        )?;
        let mut out: HashMap<i64, Vec<Base>> = HashMap::new();
        for row in stmt.query_map([], base_row)? {
            let (class, base) = row?;
            out.entry(class).or_default().push(base);
        }
        Ok(out)
    }

    /// The renamed and default exports of a file: `(exported name, local name)`.
    pub fn exports(&self, file_id: i64) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT name, coalesce(qualifier, '') FROM refs WHERE file_id = ?1 AND kind = 'export'
             ORDER BY id",
        )?;
        let rows = stmt
            .query_map([file_id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Every file's renamed and default exports (bulk form of [`IndexTx::exports`]).
    pub fn all_exports(&self) -> Result<HashMap<i64, Vec<(String, String)>>, StoreError> {
        let mut stmt = self.tx.prepare(
            "SELECT file_id, name, coalesce(qualifier, '') FROM refs WHERE kind = 'export' ORDER BY id",
        )?;
        let mut rows = stmt.query([])?;
        let mut out: HashMap<i64, Vec<(String, String)>> = HashMap::new();
        while let Some(r) = rows.next()? {
            out.entry(r.get(0)?)
                .or_default()
                .push((r.get(1)?, r.get(2)?));
        }
        Ok(out)
    }

    /// The files that import any of `seeds`, directly or through other files, with the
    /// seeds themselves (the files whose references may resolve through them), sorted.
    /// One breadth-first walk up the import edges (each file's importers are read once,
    /// through the `edges` destination index), so many seeds with overlapping importers
    /// (a C header and its companions, each included by most of a kernel) cost one walk,
    /// not one per seed.
    pub fn importer_closure(&self, seeds: &BTreeSet<i64>) -> Result<Vec<i64>, StoreError> {
        let mut seen: BTreeSet<i64> = seeds.clone();
        let mut queue: Vec<i64> = seeds.iter().copied().collect();
        while let Some(file) = queue.pop() {
            for importer in self.ids(
                "SELECT DISTINCT e.file_id FROM nodes d
                 JOIN edges e ON e.dst_id = d.id AND e.kind = 'imports'
                 WHERE d.file_id = ?1 AND d.parent_id IS NULL AND d.kind = 'file'",
                file,
            )? {
                if seen.insert(importer) {
                    queue.push(importer);
                }
            }
        }
        Ok(seen.into_iter().collect())
    }

    /// Files that the file whose `file` node is `file_node` imports (resolved import
    /// edges: they start at the file node, so `edges_src` finds them without reading the
    /// file's other edges).
    pub fn imported_files(&self, file_node: i64) -> Result<Vec<i64>, StoreError> {
        self.ids(
            "SELECT DISTINCT d.file_id FROM edges e JOIN nodes d ON d.id = e.dst_id
             WHERE e.src_id = ?1 AND e.kind = 'imports'",
            file_node,
        )
    }

    /// The inline modules of a file (`mod m { .. }`, C++ namespaces): `(node, first line,
    /// last line)`, in id order.
    pub fn module_spans(&self, file_id: i64) -> Result<Vec<ModuleSpan>, StoreError> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT id, start_line, end_line FROM nodes
             WHERE file_id = ?1 AND kind = 'module' ORDER BY id",
        )?;
        let rows = stmt
            .query_map([file_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The inline modules of every file (bulk form of [`IndexTx::module_spans`]).
    pub fn all_module_spans(&self) -> Result<HashMap<i64, Vec<ModuleSpan>>, StoreError> {
        let mut stmt = self.tx.prepare(
            "SELECT file_id, id, start_line, end_line FROM nodes WHERE kind = 'module' ORDER BY id",
        )?;
        let mut out: HashMap<i64, Vec<ModuleSpan>> = HashMap::new();
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, i64>(0)?, (r.get(1)?, r.get(2)?, r.get(3)?)))
        })?;
        for row in rows {
            let (file, span) = row?;
            out.entry(file).or_default().push(span);
        }
        Ok(out)
    }

    /// The import references of a file in id order, each with its status and the files
    /// its edges point at.
    pub fn file_imports(&self, file_id: i64) -> Result<Vec<FileImport>, StoreError> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT r.id, r.file_id, r.form, r.name, r.qualifier, r.bindings, r.status, d.file_id, r.line
             FROM refs r
             LEFT JOIN edges e ON e.ref_id = r.id AND e.kind = 'imports'
             LEFT JOIN nodes d ON d.id = e.dst_id
             WHERE r.file_id = ?1 AND r.kind = 'import' ORDER BY r.id, d.file_id",
        )?;
        let rows = stmt.query([file_id])?;
        collect_imports(rows)
    }

    /// Every import reference with its status and target files (bulk form of
    /// [`IndexTx::file_imports`]), in id order.
    pub fn all_file_imports(&self) -> Result<Vec<FileImport>, StoreError> {
        let mut stmt = self.tx.prepare(
            "SELECT r.id, r.file_id, r.form, r.name, r.qualifier, r.bindings, r.status, d.file_id, r.line
             FROM refs r
             LEFT JOIN edges e ON e.ref_id = r.id AND e.kind = 'imports'
             LEFT JOIN nodes d ON d.id = e.dst_id
             WHERE r.kind = 'import' ORDER BY r.id, d.file_id",
        )?;
        let rows = stmt.query([])?;
        collect_imports(rows)
    }

    /// Every (importer file, imported file) pair, for resolving many calls at once.
    pub fn all_imported_files(&self) -> Result<HashMap<i64, Vec<i64>>, StoreError> {
        let mut stmt = self.tx.prepare(
            "SELECT DISTINCT e.file_id, d.file_id FROM edges e JOIN nodes d ON d.id = e.dst_id
             WHERE e.kind = 'imports' ORDER BY 1, 2",
        )?;
        let mut rows = stmt.query([])?;
        let mut out: HashMap<i64, Vec<i64>> = HashMap::new();
        while let Some(r) = rows.next()? {
            out.entry(r.get(0)?).or_default().push(r.get(1)?);
        }
        Ok(out)
    }

    /// Every import reference with its status and the nodes its edges point to (sorted),
    /// for checking which imports resolve differently after files came or went.
    pub fn imports_with_targets(&self) -> Result<Vec<(Ref, String, Vec<i64>)>, StoreError> {
        let cols = REF_COLUMNS
            .split(", ")
            .map(|c| format!("r.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut stmt = self.tx.prepare(&format!(
            "SELECT {cols}, r.status, e.dst_id FROM refs r LEFT JOIN edges e ON e.ref_id = r.id
             WHERE r.kind = 'import' ORDER BY r.id, e.dst_id"
        ))?;
        let mut rows = stmt.query([])?;
        let mut out: Vec<(Ref, String, Vec<i64>)> = Vec::new();
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let dst: Option<i64> = row.get(REF_COLUMN_COUNT + 1)?;
            match out.last_mut() {
                Some((r, _, dsts)) if r.id == id => dsts.extend(dst),
                _ => out.push((
                    stored_ref(row)?,
                    row.get(REF_COLUMN_COUNT)?,
                    dst.into_iter().collect(),
                )),
            }
        }
        Ok(out)
    }

    /// Call, inherit and implement references written in `file_id`.
    pub fn name_refs_of_file(&self, file_id: i64) -> Result<Vec<Ref>, StoreError> {
        let mut stmt = self.tx.prepare_cached(&format!(
            "SELECT {REF_COLUMNS} FROM refs WHERE file_id = ?1 AND kind <> 'import'"
        ))?;
        let rows = stmt
            .query_map([file_id], stored_ref)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// True when `file_id` re-exports what it imports: it has an `export ... from`
    /// reference, or it is a Python package's `__init__.py`/`__init__.pyi`.
    pub fn is_reexporter(&self, file_id: i64) -> Result<bool, StoreError> {
        Ok(self
            .tx
            .prepare_cached(&format!(
                "SELECT EXISTS (SELECT 1 FROM refs WHERE file_id = ?1 AND form = 'reexport')
                     OR EXISTS (SELECT 1 FROM files f WHERE f.id = ?1 AND {INIT_PATH})"
            ))?
            .query_row([file_id], |r| r.get(0))?)
    }

    /// Files that the file whose `file` node is `file_node` re-exports: the files its
    /// `export ... from` references resolve to, and the files a Python `__init__`
    /// imports names from.
    pub fn reexported_files(&self, file_node: i64) -> Result<Vec<i64>, StoreError> {
        self.ids(
            &format!(
                "SELECT DISTINCT d.file_id FROM edges e JOIN nodes d ON d.id = e.dst_id
             JOIN refs r ON r.id = e.ref_id JOIN files f ON f.id = e.file_id
             WHERE e.src_id = ?1 AND e.kind = 'imports' AND {REEXPORT_EDGE}"
            ),
            file_node,
        )
    }

    /// Every (file, file it re-exports) pair (bulk form of
    /// [`IndexTx::reexported_files`]).
    pub fn all_reexported_files(&self) -> Result<HashMap<i64, Vec<i64>>, StoreError> {
        let mut stmt = self.tx.prepare(&format!(
            "SELECT DISTINCT e.file_id, d.file_id FROM edges e JOIN nodes d ON d.id = e.dst_id
             JOIN refs r ON r.id = e.ref_id JOIN files f ON f.id = e.file_id
             WHERE e.kind = 'imports' AND {REEXPORT_EDGE} ORDER BY 1, 2"
        ))?;
        let mut rows = stmt.query([])?;
        let mut out: HashMap<i64, Vec<i64>> = HashMap::new();
        while let Some(r) = rows.next()? {
            out.entry(r.get(0)?).or_default().push(r.get(1)?);
        }
        Ok(out)
    }

    /// Call, inherit and implement references of the files that import `file_id`
    /// directly or through a chain of re-exporting files (their scope depends on what
    /// `file_id` re-exports).
    pub fn name_refs_of_importers(&self, file_id: i64) -> Result<Vec<Ref>, StoreError> {
        let mut stmt = self.tx.prepare_cached(&format!(
            "WITH RECURSIVE up(file_id) AS (
                 SELECT ?1
                 UNION
                 SELECT e.file_id FROM edges e JOIN nodes d ON d.id = e.dst_id
                 JOIN up ON d.file_id = up.file_id
                 JOIN refs r ON r.id = e.ref_id JOIN files f ON f.id = e.file_id
                 WHERE e.kind = 'imports' AND {REEXPORT_EDGE}
             )
             SELECT {REF_COLUMNS} FROM refs WHERE kind <> 'import' AND file_id IN (
                 SELECT e.file_id FROM edges e JOIN nodes d ON d.id = e.dst_id
                 WHERE e.kind = 'imports' AND d.file_id IN (SELECT file_id FROM up))"
        ))?;
        let rows = stmt
            .query_map([file_id], stored_ref)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Bumps the generation and records the run; then commits.
    #[allow(clippy::too_many_arguments)]
    pub fn commit(self, run: &RunRecord<'_>) -> Result<(), StoreError> {
        self.tx.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'generation'",
            [run.generation.to_string()],
        )?;
        self.tx.execute(
            "INSERT INTO index_runs (started_at, duration_ms, full, files_seen, files_hashed,
               files_parsed, files_removed, refs_resolved, generation)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                run.started_at,
                run.duration_ms,
                run.full,
                run.files_seen,
                run.files_hashed,
                run.files_parsed,
                run.files_removed,
                run.refs_resolved,
                run.generation
            ],
        )?;
        self.tx.commit()?;
        Ok(())
    }

    /// The index's node and edge totals at `generation`, as this transaction sees them.
    /// Counting reads every page of the smallest index of `edges` (about 40–60 ms on the
    /// Linux kernel's 2.8M edges from a cold cache), so the count is kept in `meta`
    /// (key `totals`: `GENERATION NODES EDGES FILES`, see [`super::format_totals`]) and
    /// reused by a run that changed nothing (`changed` false) at the same generation;
    /// every run that counts writes it, with the count of `files` too.
    pub fn totals(&self, generation: i64, changed: bool) -> Result<(i64, i64), StoreError> {
        if !changed {
            if let Some(k) = super::read_kept_totals(&self.tx, generation)? {
                return Ok((k.nodes, k.edges));
            }
        }
        let (nodes, edges, files): (i64, i64, i64) = self.tx.query_row(
            "SELECT (SELECT count(*) FROM nodes), (SELECT count(*) FROM edges),
               (SELECT count(*) FROM files)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        self.tx.execute(
            "INSERT INTO meta (key, value) VALUES ('totals', ?1)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [super::format_totals(generation, nodes, edges, files)],
        )?;
        Ok((nodes, edges))
    }

    /// The generation before this run.
    pub fn generation(&self) -> Result<i64, StoreError> {
        Ok(super::read_generation(&self.tx)?)
    }
}

/// Groups rows of (ref id, file id, form, specifier, qualifier, bindings, status, target
/// file) ordered by ref id into [`FileImport`]s.
fn collect_imports(mut rows: rusqlite::Rows<'_>) -> Result<Vec<FileImport>, StoreError> {
    let mut out: Vec<FileImport> = Vec::new();
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        if out.last().map(|last| last.id) != Some(id) {
            out.push(FileImport {
                id,
                file_id: r.get(1)?,
                form: r.get::<_, Option<String>>(2)?.map(|f| intern(&f)),
                specifier: r.get(3)?,
                qualifier: r.get(4)?,
                bindings: r.get(5)?,
                status: r.get(6)?,
                line: r.get(8)?,
                files: Vec::new(),
            });
        }
        if let (Some(entry), Some(file)) = (out.last_mut(), r.get::<_, Option<i64>>(7)?) {
            entry.files.push(file);
        }
    }
    Ok(out)
}

/// The `index_runs` row of a run.
#[derive(Debug, Clone)]
pub struct RunRecord<'a> {
    pub started_at: &'a str,
    pub duration_ms: i64,
    pub full: bool,
    pub files_seen: i64,
    pub files_hashed: i64,
    pub files_parsed: i64,
    pub files_removed: i64,
    pub refs_resolved: i64,
    pub generation: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty index database in memory with one file and `nodes` function nodes;
    /// returns the connection and the file's id.
    fn database(nodes: usize) -> (Connection, i64) {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::schema::INDEX_DB
            .migrate(&mut conn, std::path::Path::new(":memory:"))
            .unwrap();
        conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
        let file_id = {
            let tx = IndexTx::begin(&mut conn).unwrap();
            let file = FileRecord {
                path: "a.py",
                language: Some("python"),
                size: 1,
                mtime_ns: 1,
                digest: None,
                status: "parsed",
                detail: None,
                interface: None,
            };
            let file_id = tx.write_file(None, &file, 1).unwrap();
            for i in 0..nodes {
                let name = format!("f{i}");
                tx.insert_node(&NodeRecord {
                    key: &name,
                    file_id,
                    kind: "function",
                    name: &name,
                    qualified_name: &name,
                    signature: None,
                    start_line: i as u32 + 1,
                    end_line: i as u32 + 1,
                    start_byte: 0,
                    end_byte: 1,
                    returns: None,
                    parent_id: None,
                })
                .unwrap();
            }
            tx.tx.commit().unwrap();
            file_id
        };
        (conn, file_id)
    }

    /// `n` references of `file_id`, each with the nodes its edges point to: every
    /// third has none, the others one or two; every optional column both set and empty.
    fn rows(file_id: i64, n: usize) -> Vec<(Ref, Vec<i64>)> {
        (0..n as i64)
            .map(|i| {
                let r = Ref {
                    id: i + 1,
                    file_id,
                    src_id: i % 10 + 1,
                    kind: if i % 2 == 0 { "call" } else { "reference" },
                    form: None,
                    name: format!("name{i}"),
                    qualifier: (i % 3 == 0).then(|| format!("q{i}")),
                    line: i as u32 + 1,
                    col: i as u32 % 7,
                    receiver_type: (i % 5 == 0).then(|| "Foo()".to_string()),
                    bindings: None,
                    flags: i % 4,
                };
                let dsts = (0..i % 3).map(|k| (i + k) % 10 + 1).collect();
                (r, dsts)
            })
            .collect()
    }

    /// Every row of `sql`, each column's value in debug form, joined by `|`.
    fn dump(conn: &Connection, sql: &str) -> Vec<String> {
        let mut stmt = conn.prepare(sql).unwrap();
        let columns = stmt.column_count();
        stmt.query_map([], |row| {
            (0..columns)
                .map(|c| {
                    row.get::<_, rusqlite::types::Value>(c)
                        .map(|v| format!("{v:?}"))
                })
                .collect::<rusqlite::Result<Vec<_>>>()
                .map(|v| v.join("|"))
        })
        .unwrap()
        .collect::<rusqlite::Result<Vec<_>>>()
        .unwrap()
    }

    /// Writes `given` and its edges in one transaction, in the order a resolution run
    /// does: through a [`RefWriter`] when `batched`, else row by row.
    fn write(conn: &mut Connection, given: &[(Ref, Vec<i64>)], batched: bool) {
        let tx = IndexTx::begin(conn).unwrap();
        let mut writer = tx.ref_writer();
        for (r, dsts) in given {
            let (n, deps) = (dsts.len(), Some(r.id * 3));
            let done = if batched {
                writer.insert_ref(Cow::Borrowed(r), "resolved", n, deps)
            } else {
                tx.insert_ref(r, "resolved", n, deps)
            };
            done.unwrap();
            for &dst in dsts {
                let e = (r.src_id, dst, r.file_id, Some(r.line), Some(r.id));
                let done = if batched {
                    writer.insert_edge(e.0, e.1, "calls", e.2, e.3, 0.9, "scope", e.4)
                } else {
                    tx.insert_edge(e.0, e.1, "calls", e.2, e.3, 0.9, "scope", e.4)
                };
                done.unwrap();
            }
        }
        writer.flush().unwrap();
        drop(writer);
        tx.tx.commit().unwrap();
    }

    /// What [`RefWriter`] writes in batches is row for row what [`IndexTx::insert_ref`]
    /// and [`IndexTx::insert_edge`] write one at a time, ids included: two full
    /// batches of references, then a remainder, and edges whose batches fill at other
    /// points than the references' (an edge batch writes the references it names
    /// first, or the foreign key would fail).
    #[test]
    fn batched_references_and_edges_equal_rows_written_one_by_one() {
        let n = 2 * ROWS_PER_INSERT + 37;
        let (mut one, file_id) = database(10);
        let (mut batched, _) = database(10);
        let given = rows(file_id, n);
        write(&mut one, &given, false);
        write(&mut batched, &given, true);
        for (sql, at_least) in [
            ("SELECT * FROM refs ORDER BY id", n),
            ("SELECT * FROM edges ORDER BY id", n / 2),
        ] {
            let (a, b) = (dump(&one, sql), dump(&batched, sql));
            assert!(a.len() >= at_least, "{sql}: {} rows", a.len());
            assert_eq!(a, b, "{sql}");
        }
        let violations: i64 = batched
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(violations, 0);
    }

    /// Rows the writer holds are not in the table until it flushes.
    #[test]
    fn a_reference_waits_in_the_writer_until_it_flushes() {
        let (mut conn, file_id) = database(10);
        let given = rows(file_id, 3);
        let tx = IndexTx::begin(&mut conn).unwrap();
        let mut writer = tx.ref_writer();
        for (r, _) in &given {
            writer
                .insert_ref(Cow::Borrowed(r), "unresolved", 0, None)
                .unwrap();
        }
        assert_eq!(tx.count_refs().unwrap(), 0);
        writer.flush().unwrap();
        assert_eq!(tx.count_refs().unwrap(), 3);
    }

    /// With the lookup indexes suspended, the scans give what the indexes gave: the
    /// references by name (imports left out) and by looked-up key, for one file's keys
    /// and for one key; restoring puts the three indexes back.
    #[test]
    fn lookups_by_scan_answer_what_the_suspended_indexes_answered() {
        let (mut conn, file_id) = database(10);
        let tx = IndexTx::begin(&mut conn).unwrap();
        // 60 references over 7 names, every fifth an import; key sets 1..=4, each of
        // two keys: file 1 or 2 (high 32 bits) and a name hash.
        for i in 0..60i64 {
            let r = Ref {
                id: i + 1,
                file_id,
                src_id: i % 10 + 1,
                kind: if i % 5 == 0 { "import" } else { "call" },
                form: None,
                name: format!("n{}", i % 7),
                qualifier: None,
                line: i as u32 + 1,
                col: 0,
                receiver_type: None,
                bindings: None,
                flags: 0,
            };
            let deps = (i % 3 != 0).then_some(i % 4 + 1);
            tx.insert_ref(&r, "unresolved", 0, deps).unwrap();
        }
        for set in 1..=4i64 {
            let keys = [((set % 2 + 1) << 32) + set, (2 << 32) + 100 + set];
            tx.insert_dep_set(set, &keys).unwrap();
        }
        let names: HashSet<&str> = ["n1", "n4", "missing"].into_iter().collect();
        let ids = |refs: Vec<Ref>| {
            let mut ids: Vec<i64> = refs.into_iter().map(|r| r.id).collect();
            ids.sort_unstable();
            ids
        };
        let by_name = ids(names
            .iter()
            .flat_map(|n| tx.refs_named(n).unwrap())
            .collect());
        let sorted = |mut v: Vec<i64>| {
            v.sort_unstable();
            v
        };
        let keys = [(2i64 << 32) + 1, (1 << 32) + 2, (2 << 32) + 103, 7];
        let by_key: Vec<Vec<i64>> = keys
            .iter()
            .map(|&k| sorted(tx.refs_depending_on(k).unwrap()))
            .collect();
        let by_file: Vec<Vec<i64>> = (1..=3)
            .map(|f| sorted(tx.refs_depending_on_file(f).unwrap()))
            .collect();
        assert!(!by_name.is_empty() && by_key.iter().any(|v| !v.is_empty()));
        assert!(by_file[0].len() < by_file[1].len() && by_file[2].is_empty());

        let sqls = tx.suspend_lookup_indexes().unwrap();
        assert_eq!(sqls.len(), 3);
        let left: i64 = tx
            .tx
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name IN
                   ('ref_dep_sets_key', 'refs_deps', 'refs_name')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(left, 0);
        assert_eq!(ids(tx.refs_named_any(&names).unwrap()), by_name);
        let lookups = tx.ref_lookups().unwrap();
        for (k, want) in keys.iter().zip(&by_key) {
            assert_eq!(&lookups.refs_depending_on(*k), want, "key {k}");
        }
        for (f, want) in (1..=3).zip(&by_file) {
            assert_eq!(&lookups.refs_depending_on_file(f), want, "file {f}");
        }
        tx.restore_indexes(&sqls).unwrap();
        assert!(tx.suspend_lookup_indexes().unwrap().len() == 3);
    }
}
