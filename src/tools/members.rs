//! Graph lookups the impact, hierarchy and drill-down tools share: which nodes are
//! class-like, a class's members, the nodes of each file.

use std::collections::HashMap;
use std::sync::Arc;

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::graph::symbol_graph::EdgeKind;
use crate::graph::SymbolGraph;

/// Whether a node of this kind is a class-like container whose members stand for it.
pub fn is_type_kind(kind: &str) -> bool {
    matches!(kind, "class" | "struct" | "interface" | "trait" | "enum")
}

/// Nodes per file path, built once per snapshot.
pub fn by_path(g: &SymbolGraph) -> Arc<HashMap<String, Vec<NodeIndex>>> {
    g.memo("impact:by_path", || {
        let mut m: HashMap<String, Vec<NodeIndex>> = HashMap::new();
        for ix in g.graph.node_indices() {
            m.entry(g.node(ix).path.clone()).or_default().push(ix);
        }
        m
    })
}

/// The members of a class-like node: what it contains, plus the methods of its file
/// named `Q::name` for its qualified name `Q` (Rust `impl` blocks, Go receivers and C++
/// out-of-line definitions are not inside the type's span).
pub fn members(g: &SymbolGraph, ix: NodeIndex) -> Vec<NodeIndex> {
    let n = g.node(ix);
    let mut out: Vec<NodeIndex> = g
        .graph
        .edges_directed(ix, Direction::Outgoing)
        .filter(|e| e.weight().kind == EdgeKind::Contains)
        .map(|e| e.target())
        .collect();
    let prefix = format!("{}::", n.qualified_name);
    if let Some(same_file) = by_path(g).get(&n.path) {
        for &m in same_file {
            let mn = g.node(m);
            if matches!(mn.kind.as_str(), "method" | "function")
                && mn
                    .qualified_name
                    .strip_prefix(&prefix)
                    .is_some_and(|rest| !rest.contains("::"))
            {
                out.push(m);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}
