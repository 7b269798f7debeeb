//! Reads that build graph snapshots: plain rows, no graph logic.

use rusqlite::Connection;

use super::StoreError;

/// One file as the file-level graph sees it.
#[derive(Debug, Clone)]
pub struct FileRow {
    pub id: i64,
    pub path: String,
    /// `files.language`, `None` for files that are not parsed.
    pub language: Option<String>,
}

/// The rows of the file-level dependency graph: every file, and every distinct
/// (importer, imported) pair of file ids (self-imports excluded).
#[derive(Debug, Clone, Default)]
pub struct FileGraphRows {
    pub files: Vec<FileRow>,
    pub imports: Vec<(i64, i64)>,
    /// The generation these rows were read at (same read transaction).
    pub generation: i64,
}

/// Reads [`FileGraphRows`] in one read transaction, files in path order.
pub fn load_file_graph(conn: &mut Connection) -> Result<FileGraphRows, StoreError> {
    let tx = conn.transaction()?;
    let generation = super::read_generation(&tx)?;
    let files = {
        let mut stmt = tx.prepare("SELECT id, path, language FROM files ORDER BY path")?;
        let rows = stmt
            .query_map([], |r| {
                Ok(FileRow {
                    id: r.get(0)?,
                    path: r.get(1)?,
                    language: r.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows
    };
    let imports = {
        let mut stmt = tx.prepare(
            "SELECT DISTINCT s.file_id, d.file_id FROM edges e
             JOIN nodes s ON s.id = e.src_id JOIN nodes d ON d.id = e.dst_id
             WHERE e.kind = 'imports' AND s.file_id <> d.file_id
             ORDER BY 1, 2",
        )?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows
    };
    tx.finish()?;
    Ok(FileGraphRows {
        files,
        imports,
        generation,
    })
}

/// One node as the symbol-level graph sees it.
#[derive(Debug, Clone)]
pub struct SymbolRow {
    /// `nodes.id`.
    pub id: i64,
    /// Stable identity (`func:PATH::Q`, `file:PATH`, ...).
    pub key: String,
    /// `file`, `module`, `function`, `method`, `class`, `struct`, `enum`, `trait`, `interface`.
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    /// Root-relative path of the defining file.
    pub path: String,
    /// Language of the defining file (`None` for assets).
    pub language: Option<String>,
    /// 1-based first and last line.
    pub start_line: i64,
    pub end_line: i64,
    /// Declaration up to its body, when the node has one.
    pub signature: Option<String>,
}

/// One edge of the symbol-level graph.
#[derive(Debug, Clone)]
pub struct SymbolEdgeRow {
    pub src: i64,
    pub dst: i64,
    /// `imports` | `calls` | `contains` | `inherits` | `implements` | `references`.
    pub kind: String,
    pub confidence: f64,
    /// `edges.provenance`: the rule that found the edge (`syntax`, `specifier`, `scope`,
    /// `import`, `self`, ..., `scip`).
    pub provenance: String,
    pub line: Option<i64>,
}

/// Every node and edge, in one read transaction.
#[derive(Debug, Clone, Default)]
pub struct SymbolGraphRows {
    pub nodes: Vec<SymbolRow>,
    pub edges: Vec<SymbolEdgeRow>,
    pub generation: i64,
}

/// The call sites no rule resolved (`refs.status` `unresolved` or `ambiguous`), as the
/// name-only candidates of impact answers read them: the rows of the view
/// `possible_calls` before its join with the definitions of the called name.
#[derive(Debug, Clone, Default)]
pub struct OpenCallRows {
    /// `(calling node id, called name)`.
    pub calls: Vec<(i64, String)>,
    /// The generation these rows were read at (same read transaction).
    pub generation: i64,
}

/// Reads [`OpenCallRows`]: one scan of `refs` (the 96,000 open call sites of the
/// Python standard library: 77 ms for the same query in the sqlite3 shell, printing
/// included).
pub fn load_open_calls(conn: &mut Connection) -> Result<OpenCallRows, StoreError> {
    let tx = conn.transaction()?;
    let generation = super::read_generation(&tx)?;
    let calls = tx
        .prepare(
            "SELECT src_id, name FROM refs
             WHERE kind = 'call' AND (status = 'unresolved' OR status = 'ambiguous')",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(OpenCallRows { calls, generation })
}

/// Reads [`SymbolGraphRows`]: nodes by id, edges by id (what
/// [`stream_symbol_graph`] hands over, collected).
pub fn load_symbol_graph(conn: &mut Connection) -> Result<SymbolGraphRows, StoreError> {
    let mut rows = SymbolGraphRows::default();
    rows.generation = stream_symbol_graph(conn, &mut rows)?;
    Ok(rows)
}

/// Receives the rows of [`stream_symbol_graph`]: `sizes` first, then every node, then
/// every edge.
pub trait SymbolGraphSink {
    /// The number of node and edge rows to come, to reserve memory once, and the
    /// smallest and largest node id (`None` for no nodes).
    fn sizes(&mut self, nodes: usize, edges: usize, ids: Option<(i64, i64)>);
    fn node(&mut self, node: SymbolRow);
    fn edge(&mut self, edge: EdgeRowRef<'_>);
}

impl SymbolGraphSink for SymbolGraphRows {
    fn sizes(&mut self, nodes: usize, edges: usize, _ids: Option<(i64, i64)>) {
        self.nodes.reserve_exact(nodes);
        self.edges.reserve_exact(edges);
    }

    fn node(&mut self, node: SymbolRow) {
        self.nodes.push(node);
    }

    fn edge(&mut self, e: EdgeRowRef<'_>) {
        self.edges.push(SymbolEdgeRow {
            src: e.src,
            dst: e.dst,
            kind: e.kind.to_string(),
            confidence: e.confidence,
            line: e.line,
            provenance: e.provenance.to_string(),
        });
    }
}

/// One edge row as [`stream_symbol_graph`] reads it: the strings borrow SQLite's
/// buffer, so a caller that maps them to its own values allocates nothing per edge.
#[derive(Debug, Clone, Copy)]
pub struct EdgeRowRef<'a> {
    pub src: i64,
    pub dst: i64,
    /// `edges.kind`.
    pub kind: &'a str,
    pub confidence: f64,
    /// `edges.provenance`.
    pub provenance: &'a str,
    pub line: Option<i64>,
}

/// Reads every node (by id) and then every edge (by id) in one read transaction,
/// handing each to `sink`, and returns the generation read in that transaction.
/// [`SymbolGraphSink::sizes`] is called first with the row counts, so the sink can
/// reserve its memory once. Nothing is held between rows: a snapshot of the Linux
/// kernel (860k nodes, 2.8M edges) is loaded without a copy of the rows beside the
/// caller's own structures.
///
/// Errors: any SQLite error ([`StoreError`]); a row whose text is not UTF-8.
pub fn stream_symbol_graph(
    conn: &mut Connection,
    sink: &mut impl SymbolGraphSink,
) -> Result<i64, StoreError> {
    let tx = conn.transaction()?;
    let generation = super::read_generation(&tx)?;
    let (nodes, first, last): (i64, Option<i64>, Option<i64>) =
        tx.query_row("SELECT count(*), min(id), max(id) FROM nodes", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
    let edges: i64 = tx.query_row("SELECT count(*) FROM edges", [], |r| r.get(0))?;
    sink.sizes(
        nodes.max(0) as usize,
        edges.max(0) as usize,
        first.zip(last),
    );
    {
        let mut stmt = tx.prepare(
            "SELECT n.id, n.key, n.kind, n.name, n.qualified_name, f.path, f.language, n.start_line, n.end_line,
                    n.signature
             FROM nodes n JOIN files f ON f.id = n.file_id ORDER BY n.id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            sink.node(SymbolRow {
                id: r.get(0)?,
                key: r.get(1)?,
                kind: r.get(2)?,
                name: r.get(3)?,
                qualified_name: r.get(4)?,
                path: r.get(5)?,
                language: r.get(6)?,
                start_line: r.get(7)?,
                end_line: r.get(8)?,
                signature: r.get(9)?,
            });
        }
    }
    {
        let mut stmt = tx.prepare(
            "SELECT src_id, dst_id, kind, confidence, line, provenance FROM edges ORDER BY id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            sink.edge(EdgeRowRef {
                src: r.get(0)?,
                dst: r.get(1)?,
                kind: text(r, 2)?,
                confidence: r.get(3)?,
                line: r.get(4)?,
                provenance: text(r, 5)?,
            });
        }
    }
    tx.finish()?;
    Ok(generation)
}

/// Column `i` of `r` as text borrowed from SQLite; an error for NULL or a blob.
fn text<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'r str> {
    let value = r.get_ref(i)?;
    value
        .as_str()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, value.data_type(), Box::new(e)))
}

/// A call site that names a node but that no rule resolved to it: the call is
/// `unresolved` (no rule applies, e.g. a receiver of unknown type) or `ambiguous`
/// (several definitions fit), and the node merely carries the called name. Read from
/// the view `possible_calls`.
#[derive(Debug, Clone, PartialEq)]
pub struct PossibleCall {
    /// The call site (`refs.id`).
    pub ref_id: i64,
    /// The other end: the calling node for a possible caller, a definition with the
    /// called name for a possible callee.
    pub node_id: i64,
    /// 1-based line of the call.
    pub line: i64,
    /// `unresolved` or `ambiguous`.
    pub status: String,
}

/// What the index knows about a node's calls beyond its resolved edges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnresolvedCalls {
    /// Call sites elsewhere whose callee is unresolved or ambiguous and whose name is
    /// this node's name (name match only).
    pub possible_callers_total: usize,
    /// Definitions with the name of one of this node's unresolved or ambiguous calls.
    pub possible_callees_total: usize,
    /// This node's own call sites by status: `unresolved`, `ambiguous`, `external`.
    pub unresolved: usize,
    pub ambiguous: usize,
    pub external: usize,
    /// Up to the requested number of possible callers and callees, by line.
    pub possible_callers: Vec<PossibleCall>,
    pub possible_callees: Vec<PossibleCall>,
}

/// The possible callers and callees of node `id` (name match only, view
/// `possible_calls`) and the outcome counts of its own call sites; lists at most `limit`
/// entries each (0: counts only).
pub fn unresolved_calls(
    conn: &Connection,
    id: i64,
    limit: usize,
) -> Result<UnresolvedCalls, StoreError> {
    let mut out = UnresolvedCalls::default();
    let count = |sql: &str| -> Result<usize, StoreError> {
        Ok(conn
            .prepare_cached(sql)?
            .query_row([id], |r| r.get::<_, i64>(0))?
            .max(0) as usize)
    };
    out.possible_callers_total =
        count("SELECT count(DISTINCT ref_id) FROM possible_calls WHERE dst_id = ?1")?;
    out.possible_callees_total =
        count("SELECT count(DISTINCT dst_id) FROM possible_calls WHERE src_id = ?1")?;
    let mut stmt = conn.prepare_cached(
        "SELECT status, count(*) FROM refs WHERE src_id = ?1 AND kind = 'call' GROUP BY status",
    )?;
    let rows = stmt.query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
    for row in rows {
        let (status, n) = row?;
        let n = n.max(0) as usize;
        match status.as_str() {
            "unresolved" => out.unresolved = n,
            "ambiguous" => out.ambiguous = n,
            "external" => out.external = n,
            _ => {}
        }
    }
    if limit > 0 {
        let list = |sql: &str| -> Result<Vec<PossibleCall>, StoreError> {
            let mut stmt = conn.prepare_cached(sql)?;
            let rows = stmt
                .query_map(rusqlite::params![id, limit as i64], |r| {
                    Ok(PossibleCall {
                        ref_id: r.get(0)?,
                        node_id: r.get(1)?,
                        line: r.get(2)?,
                        status: r.get(3)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        };
        out.possible_callers = list(
            "SELECT ref_id, src_id, line, status FROM possible_calls WHERE dst_id = ?1
             ORDER BY file_id, line, ref_id LIMIT ?2",
        )?;
        out.possible_callees = list(
            "SELECT ref_id, dst_id, line, status FROM possible_calls WHERE src_id = ?1
             ORDER BY line, ref_id, dst_id LIMIT ?2",
        )?;
    }
    Ok(out)
}
