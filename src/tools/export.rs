//! `constellation export`: the whole index as JSON (reproducible byte for byte: keys
//! and paths only, sorted, no run timestamps), or the file-level dependency graph as
//! Graphviz DOT.

use std::io::Write;

use rusqlite::Connection;

use crate::graph::FileGraph;
use crate::store::export_reads::{each_edge, each_file, each_node};
use crate::store::StoreError;

/// Errors of an export: reading the index, or writing the output.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("writing the export: {0}")]
    Write(#[from] std::io::Error),
    #[error("serializing the export: {0}")]
    Json(#[from] serde_json::Error),
}

impl ExportError {
    /// True when the reader went away (`constellation export | head`).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ExportError::Write(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Writes `{"format": "constellation-export", "version": 1, "files": [..], "nodes":
/// [..], "edges": [..]}` with one element per line: files in path order, nodes in key
/// order, edges by (source, kind, destination, line). Two indexes of the same tree give
/// the same bytes, whatever their history.
pub fn export_json(conn: &Connection, out: &mut dyn Write) -> Result<(), ExportError> {
    // One read transaction: files, nodes and edges from the same generation even while
    // an index run commits (a write-ahead-log reader keeps its snapshot until the end).
    let _snapshot = conn
        .unchecked_transaction()
        .map_err(|e| ExportError::Store(e.into()))?;
    write!(
        out,
        "{{\"format\": \"constellation-export\", \"version\": 1,"
    )?;
    // The row callbacks return store errors only: keep the first write error aside.
    let mut failed: Option<ExportError> = None;
    let mut emit = |text: Result<String, serde_json::Error>| {
        if failed.is_none() {
            let written = text
                .map_err(ExportError::from)
                .and_then(|t| out.write_all(t.as_bytes()).map_err(ExportError::from));
            failed = written.err();
        }
    };
    let sep = |first: &mut bool| if std::mem::take(first) { "\n" } else { ",\n" };
    emit(Ok("\n\"files\": [".into()));
    let mut first = true;
    each_file(conn, |f| {
        let s = sep(&mut first);
        emit(serde_json::to_string(&f).map(|j| format!("{s}{j}")));
        Ok(())
    })?;
    emit(Ok("\n],\n\"nodes\": [".into()));
    first = true;
    each_node(conn, |n| {
        let s = sep(&mut first);
        emit(serde_json::to_string(&n).map(|j| format!("{s}{j}")));
        Ok(())
    })?;
    emit(Ok("\n],\n\"edges\": [".into()));
    first = true;
    each_edge(conn, |e| {
        let s = sep(&mut first);
        emit(serde_json::to_string(&e).map(|j| format!("{s}{j}")));
        Ok(())
    })?;
    emit(Ok("\n]}\n".into()));
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Writes the file-level dependency graph as a Graphviz digraph: one node per file
/// (labelled with its path), one edge per distinct import pair.
pub fn export_dot(g: &FileGraph, out: &mut dyn Write) -> Result<(), ExportError> {
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let mut text =
        String::from("digraph constellation {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n");
    for ix in g.graph.node_indices() {
        text.push_str(&format!(
            "  n{} [label={}];\n",
            ix.index(),
            quote(g.path(ix))
        ));
    }
    for e in g.graph.edge_indices() {
        if let Some((a, b)) = g.graph.edge_endpoints(e) {
            text.push_str(&format!("  n{} -> n{};\n", a.index(), b.index()));
        }
    }
    text.push_str("}\n");
    out.write_all(text.as_bytes())?;
    Ok(())
}
