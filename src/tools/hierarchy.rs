//! The class hierarchy around one class-like node (class, struct, interface, trait,
//! enum), for `get_node_details`: its members, its bases, its subclasses and
//! implementations (transitively to a depth), and the methods that override or are
//! overridden by a method of the same name up or down the hierarchy.
//!
//! Reads the whole snapshot: an `inherits`/`implements` edge below `min_confidence` is
//! kept but marked `possible: true` (a weaker rule's guess), never dropped silently.

use std::collections::{HashMap, HashSet, VecDeque};

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use serde_json::{json, Value};

use super::members::members;
use crate::graph::symbol_graph::EdgeKind;
use crate::graph::SymbolGraph;

/// Most `hierarchy_depth` accepted.
pub const MAX_HIERARCHY_DEPTH: usize = 10;

/// One relative of the class, as found by [`relatives`].
struct Relative {
    ix: NodeIndex,
    relation: &'static str,
    depth: usize,
    confidence: f32,
    provenance: &'static str,
}

/// The classes reachable from `ix` along `inherits`/`implements` edges in direction
/// `dir` (outgoing: bases; incoming: subclasses and implementations), breadth first,
/// to `depth` hops, each once.
fn relatives(g: &SymbolGraph, ix: NodeIndex, dir: Direction, depth: usize) -> Vec<Relative> {
    let mut out = Vec::new();
    let mut seen: HashSet<NodeIndex> = HashSet::from([ix]);
    let mut queue = VecDeque::from([(ix, 0usize)]);
    while let Some((u, d)) = queue.pop_front() {
        if d == depth {
            continue;
        }
        let mut next: Vec<_> = g
            .graph
            .edges_directed(u, dir)
            .filter(|e| matches!(e.weight().kind, EdgeKind::Inherits | EdgeKind::Implements))
            .map(|e| {
                let other = if dir == Direction::Outgoing {
                    e.target()
                } else {
                    e.source()
                };
                (other, *e.weight())
            })
            .collect();
        next.sort_by_key(|(o, _)| *o);
        for (o, w) in next {
            if seen.insert(o) {
                out.push(Relative {
                    ix: o,
                    relation: w.kind.name(),
                    depth: d + 1,
                    confidence: w.confidence,
                    provenance: w.provenance,
                });
                queue.push_back((o, d + 1));
            }
        }
    }
    out
}

fn rounded(c: f32) -> f64 {
    (f64::from(c) * 1000.0).round() / 1000.0
}

/// The hierarchy fields of a class-like node: `members`, `bases`, `subclasses`,
/// `implementations`, `overrides`, each list at most `limit` long (with `*_total`
/// counts), relatives to `depth` hops. Edges below `min` carry `possible: true`.
pub fn hierarchy(g: &SymbolGraph, ix: NodeIndex, depth: usize, min: f64, limit: usize) -> Value {
    let mem = members(g, ix);
    let bases = relatives(g, ix, Direction::Outgoing, depth);
    let below = relatives(g, ix, Direction::Incoming, depth);
    let rel = |r: &Relative| {
        let n = g.node(r.ix);
        json!({
            "node_id": n.key, "label": n.label(), "file": n.path, "line": n.start_line,
            "relation": r.relation, "depth": r.depth, "confidence": rounded(r.confidence),
            "provenance": r.provenance, "possible": f64::from(r.confidence) < min - 1e-6,
        })
    };
    let methods = |c: NodeIndex| -> HashMap<String, NodeIndex> {
        members(g, c)
            .into_iter()
            .filter(|&m| matches!(g.node(m).kind.as_str(), "method" | "function"))
            .map(|m| (g.node(m).name.clone(), m))
            .collect()
    };
    let mut overrides = Vec::new();
    for &m in &mem {
        let mn = g.node(m);
        if !matches!(mn.kind.as_str(), "method" | "function") {
            continue;
        }
        let find = |list: &[Relative]| -> Vec<String> {
            list.iter()
                .filter_map(|r| methods(r.ix).get(&mn.name).map(|&o| g.node(o).key.clone()))
                .collect()
        };
        let (up, down) = (find(&bases), find(&below));
        if !up.is_empty() || !down.is_empty() {
            overrides.push(json!({"member": mn.name, "node_id": mn.key, "overrides": up, "overridden_by": down}));
        }
    }
    let subclasses: Vec<&Relative> = below.iter().filter(|r| r.relation == "inherits").collect();
    let implementations: Vec<&Relative> = below
        .iter()
        .filter(|r| r.relation == "implements")
        .collect();
    json!({
        "hierarchy_depth": depth,
        "members_total": mem.len(),
        "members": mem.iter().take(limit).map(|&m| {
            let n = g.node(m);
            json!({"node_id": n.key, "name": n.name, "kind": n.kind, "line": n.start_line})
        }).collect::<Vec<_>>(),
        "bases": bases.iter().take(limit).map(rel).collect::<Vec<_>>(),
        "subclasses": subclasses.iter().take(limit).map(|r| rel(r)).collect::<Vec<_>>(),
        "implementations": implementations.iter().take(limit).map(|r| rel(r)).collect::<Vec<_>>(),
        "overrides": overrides.into_iter().take(limit).collect::<Vec<_>>(),
    })
}
