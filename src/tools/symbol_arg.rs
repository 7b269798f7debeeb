//! The one reading of a symbol argument (`target`, `node_id`): which node of the
//! snapshot a client means by a string. Tools that take a symbol or a file call
//! [`symbol_arg`]; it owns the accepted spellings so they are the same everywhere.
//!
//! It reads only the snapshot (no I/O) and never guesses between several nodes: a
//! string naming more than one is an error listing some of them.

use petgraph::graph::NodeIndex;

use super::closest_names::closest_names;
use super::symbol_names::{names_node, parse_name};
use super::symbol_summary::resolve_seed;
use super::ToolError;
use crate::graph::SymbolGraph;

/// The node `arg` names, tried in this order: a node key (`func:src/a.py::f`,
/// `class:src/a.py::Shape`, `file:src/a.py`), a numeric `nodes.id`, a root-relative
/// file path (`src/a.py`, `./src/a.py`), then a qualified name (`Shape::area`), a bare
/// name or a label (`fn area()`) naming exactly one node, then the other spellings of
/// `get_symbol_source` ([`parse_name`]): `crate::geo::area`, `pkg.mod.Class.method`,
/// `src/shapes.ts::Shape.area`, and last `path:line` (`src/a.py:42`: the innermost
/// symbol of that file whose lines hold line 42, else the file). `what` names the
/// argument in messages.
///
/// Errors: `not_found` when nothing matches (the message offers up to three nodes
/// whose names are closest, by [`closest_names`]), `invalid_argument` when several
/// nodes do (the message lists up to three keys).
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
    if found.is_empty() {
        if let Some(ix) = at_line(g, arg) {
            return Ok(ix);
        }
    }
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(ToolError::NotFound(format!(
            "{what} {arg:?} names no node; {}give a node id such as func:PATH::name, a file path, a qualified name (Class::method) or path:line",
            suggestions(g, arg)
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

/// The node `path:line` names: the innermost symbol of file `path` whose lines hold
/// `line` (the one starting last), else the file's node; `None` when `arg` is not of
/// that form or the file is not in the graph.
fn at_line(g: &SymbolGraph, arg: &str) -> Option<NodeIndex> {
    let (path, line) = arg.rsplit_once(':')?;
    let line: i64 = line.parse().ok()?;
    let path = path.strip_prefix("./").unwrap_or(path);
    let file = g.by_key(&format!("file:{path}"))?;
    g.graph
        .node_indices()
        .filter(|&ix| {
            let n = g.node(ix);
            n.kind != "file" && n.path == path && n.start_line <= line && line <= n.end_line
        })
        .max_by_key(|&ix| {
            (
                g.node(ix).start_line,
                std::cmp::Reverse(g.node(ix).end_line),
            )
        })
        .or(Some(file))
}

/// "did you mean A, B or C? " for the nodes whose names are closest to the last
/// segment of `arg` (or nothing when none is close).
fn suggestions(g: &SymbolGraph, arg: &str) -> String {
    let last = arg
        .rsplit([':', '.', '/'])
        .find(|s| !s.is_empty())
        .unwrap_or(arg);
    let mut names: Vec<&str> = g
        .graph
        .node_indices()
        .map(|ix| g.node(ix).name.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    names.sort_unstable();
    names.dedup();
    let close = closest_names(last, &names, 3);
    let keys: Vec<&str> = close
        .iter()
        .filter_map(|name| {
            g.graph
                .node_indices()
                .filter(|&ix| g.node(ix).name == *name)
                .max_by(|a, b| g.pagerank()[a.index()].total_cmp(&g.pagerank()[b.index()]))
                .map(|ix| g.node(ix).key.as_str())
        })
        .collect();
    match keys.as_slice() {
        [] => String::new(),
        [one] => format!("did you mean {one}? "),
        [init @ .., last] => format!("did you mean {} or {last}? ", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::graph::{SymbolEdgeRow, SymbolGraphRows, SymbolRow};

    /// `shop/cart.py`: class `Cart` (lines 3-20) with method `total` (10-15), and
    /// function `checkout` (22-30).
    fn shop() -> SymbolGraph {
        let mut rows = SymbolGraphRows::default();
        let node = |id, key: &str, kind: &str, name: &str, q: &str, lines: (i64, i64)| SymbolRow {
            id,
            key: key.into(),
            kind: kind.into(),
            name: name.into(),
            qualified_name: q.into(),
            path: "shop/cart.py".into(),
            language: Some("python".into()),
            start_line: lines.0,
            end_line: lines.1,
            signature: None,
        };
        rows.nodes = vec![
            node(
                1,
                "file:shop/cart.py",
                "file",
                "cart.py",
                "shop/cart.py",
                (1, 30),
            ),
            node(
                2,
                "class:shop/cart.py::Cart",
                "class",
                "Cart",
                "Cart",
                (3, 20),
            ),
            node(
                3,
                "func:shop/cart.py::Cart.total",
                "method",
                "total",
                "Cart.total",
                (10, 15),
            ),
            node(
                4,
                "func:shop/cart.py::checkout",
                "function",
                "checkout",
                "checkout",
                (22, 30),
            ),
        ];
        for dst in 2..=4 {
            rows.edges.push(SymbolEdgeRow {
                src: if dst == 3 { 2 } else { 1 },
                dst,
                kind: "contains".into(),
                confidence: 1.0,
                provenance: "syntax".into(),
                line: None,
            });
        }
        SymbolGraph::from_rows(rows)
    }

    fn key(g: &SymbolGraph, arg: &str) -> String {
        g.node(symbol_arg(g, "node_id", arg).unwrap()).key.clone()
    }

    #[test]
    fn every_spelling_names_the_same_node() {
        let g = shop();
        let total = "func:shop/cart.py::Cart.total";
        for arg in [
            total,
            "3",
            "Cart.total",
            "shop.cart.Cart.total",
            "shop/cart.py:12",
        ] {
            assert_eq!(key(&g, arg), total, "{arg}");
        }
        assert_eq!(key(&g, "shop/cart.py:5"), "class:shop/cart.py::Cart");
        assert_eq!(key(&g, "./shop/cart.py:21"), "file:shop/cart.py");
        assert_eq!(key(&g, "shop/cart.py"), "file:shop/cart.py");
    }

    #[test]
    fn an_unknown_name_offers_the_closest_nodes() {
        let g = shop();
        let e = symbol_arg(&g, "node_id", "chekout").unwrap_err();
        assert!(matches!(e, ToolError::NotFound(_)));
        assert!(
            e.to_string()
                .contains("did you mean func:shop/cart.py::checkout?"),
            "{e}"
        );
        let e = symbol_arg(&g, "node_id", "shop.cart.Cart.totl").unwrap_err();
        assert!(
            e.to_string().contains("func:shop/cart.py::Cart.total"),
            "{e}"
        );
        let e = symbol_arg(&g, "node_id", "xyzzy").unwrap_err();
        assert!(!e.to_string().contains("did you mean"), "{e}");
        // A line outside every file of the graph names nothing.
        assert!(symbol_arg(&g, "node_id", "other.py:3").is_err());
    }
}
