//! The one reading of a symbol argument (`target`, `node_id`): which node of the
//! snapshot a client means by a string. Tools that take a symbol or a file call
//! [`symbol_arg`]; it owns the accepted spellings so they are the same everywhere.
//!
//! It reads only the snapshot (no I/O) and never guesses between several nodes: a
//! string naming more than one is an error listing some of them.

use petgraph::graph::NodeIndex;

use super::symbol_names::{names_node, parse_name};
use super::symbol_summary::resolve_seed;
use super::ToolError;
use crate::graph::SymbolGraph;

/// The node `arg` names, tried in this order: a node key (`func:src/a.py::f`,
/// `class:src/a.py::Shape`, `file:src/a.py`), a numeric `nodes.id`, a root-relative
/// file path (`src/a.py`, `./src/a.py`), then a qualified name (`Shape::area`), a bare
/// name or a label (`fn area()`) naming exactly one node, then the other spellings of
/// `get_symbol_source` ([`parse_name`]): `crate::geo::area`, `pkg.mod.Class.method`,
/// `src/shapes.ts::Shape.area`. `what` names the argument in messages.
///
/// Errors: `not_found` when nothing matches, `invalid_argument` when several nodes do
/// (the message lists up to three keys).
pub fn symbol_arg(g: &SymbolGraph, what: &str, arg: &str) -> Result<NodeIndex, ToolError> {
    let arg = arg.trim();
    if let Some(ix) = g.by_key(arg) {
        return Ok(ix);
    }
    if let Some(ix) = arg.parse::<i64>().ok().and_then(|id| g.by_id(id)) {
        return Ok(ix);
    }
    let mut found = resolve_seed(g, arg);
    if found.is_empty() {
        let q = parse_name(arg);
        found = g
            .graph
            .node_indices()
            .filter(|&ix| {
                let n = g.node(ix);
                names_node(&q, &n.path, &n.qualified_name, &n.kind, false)
            })
            .collect();
    }
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(ToolError::NotFound(format!(
            "{what} {arg:?} names no node; give a node id such as func:PATH::name, a file path, or a qualified name (Class::method)"
        ))),
        many => Err(ToolError::InvalidArgument(format!(
            "{what} {arg:?} names {} nodes ({}, ...); pass one node id",
            many.len(),
            many.iter()
                .take(3)
                .map(|&n| g.node(n).key.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}
