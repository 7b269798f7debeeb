//! The symbol-level graph: every node of the index (files, modules, functions, methods,
//! classes, ...) and every edge (`contains`, `imports`, `calls`, `inherits`,
//! `implements`), loaded once per index generation and shared read-only.
//!
//! `references` edges (a function, method or class used as a value: a callback,
//! `map(f, xs)`) are kept beside the graph, by target ([`SymbolGraph::value_users`]),
//! not in [`SymbolGraph::graph`]: the algorithms (PageRank, communities, betweenness,
//! articulation points, paths, summaries, degrees) run on the edges they always did,
//! and the dependency walks (`get_impact`, `diff_impact`) read both.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use petgraph::graph::{DiGraph, NodeIndex};

use super::betweenness::{betweenness_auto, Betweenness};
use crate::store::graph::{EdgeRowRef, SymbolGraphRows, SymbolGraphSink};
use crate::store::{self, StoreError};

/// The kind of an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    Contains,
    Imports,
    Calls,
    Inherits,
    Implements,
    /// A function, method or class used as a value by the source node (kept beside
    /// the graph: [`SymbolGraph::value_users`]).
    References,
}

impl EdgeKind {
    /// From `edges.kind`; unknown kinds are `None`.
    pub fn parse(s: &str) -> Option<EdgeKind> {
        Some(match s {
            "contains" => EdgeKind::Contains,
            "imports" => EdgeKind::Imports,
            "calls" => EdgeKind::Calls,
            "inherits" => EdgeKind::Inherits,
            "implements" => EdgeKind::Implements,
            "references" => EdgeKind::References,
            _ => return None,
        })
    }

    /// The stored name.
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Contains => "contains",
            EdgeKind::Imports => "imports",
            EdgeKind::Calls => "calls",
            EdgeKind::Inherits => "inherits",
            EdgeKind::Implements => "implements",
            EdgeKind::References => "references",
        }
    }
}

/// A node of the symbol graph: the row as the store reads it (id, key, kind, name,
/// qualified name, path, language, lines, signature).
pub use crate::store::graph::SymbolRow as SymbolNode;

impl SymbolNode {
    /// The label for people: `fn name()`, `class Name`, `mod name`, or the
    /// file path.
    pub fn label(&self) -> String {
        match self.kind.as_str() {
            "file" => self.path.clone(),
            "function" | "method" => format!("fn {}()", self.name),
            "module" => format!("mod {}", self.name),
            "struct" => format!("struct {}", self.name),
            "enum" => format!("enum {}", self.name),
            "trait" => format!("trait {}", self.name),
            "interface" => format!("interface {}", self.name),
            _ => format!("class {}", self.name),
        }
    }
}

/// The `min_confidence` the graph tools use when the caller gives none: every edge
/// they use is at least this precise. Call and base edges carry the measured precision
/// of the rule that resolved them (`edges.confidence`); 0.97 keeps the rules measured
/// at 97% or better and leaves out weaker ones (see ARCHITECTURE.md, "Call resolution").
pub const DEFAULT_MIN_CONFIDENCE: f64 = 0.97;

/// An edge of the symbol graph.
#[derive(Debug, Clone, Copy)]
pub struct SymbolEdge {
    pub kind: EdgeKind,
    /// 1.0 for certain edges; calls carry their resolution confidence.
    pub confidence: f32,
    /// The rule that found the edge (`edges.provenance`).
    pub provenance: &'static str,
    /// 1-based line of the reference, 0 when none (`contains`).
    pub line: u32,
}

impl SymbolEdge {
    /// The weight used by PageRank, communities and community edges: the confidence
    /// for calls, 1.0 for imports and inheritance, 0.5 for containment (structure, not
    /// use).
    pub fn weight(&self) -> f64 {
        match self.kind {
            EdgeKind::Contains => 0.5,
            EdgeKind::Calls => f64::from(self.confidence),
            _ => 1.0,
        }
    }
}

/// The symbol graph of one index generation, with lazily computed whole-graph results
/// that every tool call of that generation shares.
///
/// Caching: the workspace keeps one `Arc<SymbolGraph>` per index generation (a new
/// generation is a new snapshot, so nothing here is ever stale). Results that depend
/// only on the snapshot and on `min_confidence` (PageRank, communities, betweenness)
/// live in the [`SymbolGraph::trusted`] view of that threshold and are computed on
/// first use, once: concurrent first calls wait for the one computing (`OnceLock`).
/// Memory per snapshot: at most [`TRUSTED_VIEWS`] views, each sharing the nodes and
/// lookups of the snapshot and holding the edges that pass, plus O(V) per cached
/// result and at most `MEMO_CAPACITY` (32) derived results of the tools
/// ([`SymbolGraph::memo`]).
#[derive(Debug)]
pub struct SymbolGraph {
    /// Node weights are shared with the [`SymbolGraph::trusted`] views of this
    /// snapshot (`Arc`), which differ only in their edges.
    pub graph: DiGraph<Arc<SymbolNode>, SymbolEdge>,
    pub generation: i64,
    /// Shared with the views, like the nodes.
    by_key: Arc<HashMap<String, NodeIndex>>,
    by_id: Arc<NodeIds>,
    /// `references` edges by target: the nodes that use it as a value, each with its
    /// edge, in edge id order.
    value_users: HashMap<NodeIndex, Vec<(NodeIndex, SymbolEdge)>>,
    pagerank: OnceLock<Vec<f64>>,
    communities: OnceLock<Communities>,
    betweenness: OnceLock<Betweenness>,
    /// The [`SymbolGraph::trusted`] views built from this snapshot, keyed by the bits
    /// of their `min_confidence`, least recently used first.
    views: Mutex<Vec<(u64, Arc<SymbolGraph>)>>,
    /// The `min_confidence` of this snapshot: 0.0 for the whole graph; for a
    /// [`SymbolGraph::trusted`] view, the threshold its edges passed.
    min_confidence: f64,
    /// Edges of the whole graph this view leaves out (0 for the whole graph).
    left_out: usize,
    /// Results derived from this snapshot by the tools, keyed by what they depend on.
    memo: Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>,
}

/// The static name of a stored provenance (`edges.provenance`); `other` for a name this
/// build does not know (a database written by a newer build).
fn intern_provenance(p: &str) -> &'static str {
    match p {
        "syntax" => "syntax",
        "specifier" => "specifier",
        "scope" => "scope",
        "import" => "import",
        "module" => "module",
        "self" => "self",
        "super" => "super",
        "typed" => "typed",
        "class" => "class",
        "package" => "package",
        "header" => "header",
        "scip" => "scip",
        _ => "other",
    }
}

/// Most derived results kept per snapshot; the memo is emptied when it would grow past.
const MEMO_CAPACITY: usize = 32;

/// Communities of the whole graph (label propagation, fixed seed), shared by
/// `summarize_graph` and `get_community` so ids agree between calls.
#[derive(Debug, Clone)]
pub struct Communities {
    /// Community index per node (`NodeIndex::index()`).
    pub labels: Vec<usize>,
    /// Community id per community index: `file:PATH` of the file most members belong
    /// to, with `#2`, `#3` for later communities of the same file (largest first).
    pub ids: Vec<String>,
    /// Members per community index.
    pub sizes: Vec<usize>,
}

/// Seed of the label propagation, so communities are the same on every run.
pub const COMMUNITY_SEED: u64 = 0x5eed;

/// Seed of the pivot sample of [`SymbolGraph::betweenness`] on large graphs.
pub const BETWEENNESS_SEED: u64 = 7;

/// Most [`SymbolGraph::trusted`] views kept per snapshot (distinct `min_confidence`
/// values); the least recently used is dropped beyond, and rebuilt if asked again.
pub const TRUSTED_VIEWS: usize = 4;

/// `nodes.id` → node index. A fresh index numbers its nodes 1..=n, and re-indexed
/// files add ids above, so a table indexed by `id - first` is small and answers with
/// one memory access; when the ids spread over more than four times the node count
/// (plus 1,024) they go in a hash map instead.
#[derive(Debug)]
enum NodeIds {
    /// `slots[id - first]`, `u32::MAX` for no node.
    Table {
        first: i64,
        slots: Vec<u32>,
    },
    Map(HashMap<i64, NodeIndex>),
}

impl NodeIds {
    /// Room for `nodes` ids from `ids.0` to `ids.1`.
    fn new(nodes: usize, ids: Option<(i64, i64)>) -> NodeIds {
        match ids {
            Some((first, last))
                if last >= first
                    && u128::from(last.abs_diff(first)) < 4 * nodes as u128 + 1024
                    && nodes < u32::MAX as usize =>
            {
                NodeIds::Table {
                    first,
                    slots: vec![u32::MAX; last.abs_diff(first) as usize + 1],
                }
            }
            _ => NodeIds::Map(HashMap::with_capacity(nodes)),
        }
    }

    fn insert(&mut self, id: i64, ix: NodeIndex) {
        if let NodeIds::Table { first, slots } = self {
            match id
                .checked_sub(*first)
                .and_then(|at| usize::try_from(at).ok())
            {
                Some(at) if at < slots.len() => {
                    slots[at] = ix.index() as u32;
                    return;
                }
                // An id outside the announced range: keep every id in a map.
                _ => {
                    let map = slots
                        .iter()
                        .enumerate()
                        .filter(|(_, &slot)| slot != u32::MAX)
                        .map(|(at, &slot)| (*first + at as i64, NodeIndex::new(slot as usize)))
                        .collect();
                    *self = NodeIds::Map(map);
                }
            }
        }
        if let NodeIds::Map(map) = self {
            map.insert(id, ix);
        }
    }

    fn get(&self, id: i64) -> Option<NodeIndex> {
        match self {
            NodeIds::Table { first, slots } => {
                let at = usize::try_from(id.checked_sub(*first)?).ok()?;
                let slot = *slots.get(at)?;
                (slot != u32::MAX).then(|| NodeIndex::new(slot as usize))
            }
            NodeIds::Map(map) => map.get(&id).copied(),
        }
    }
}

/// Adds nodes, then edges, to a new [`SymbolGraph`]; edges with an unknown end or
/// kind are skipped.
struct Builder {
    graph: DiGraph<Arc<SymbolNode>, SymbolEdge>,
    by_key: HashMap<String, NodeIndex>,
    by_id: NodeIds,
    value_users: HashMap<NodeIndex, Vec<(NodeIndex, SymbolEdge)>>,
}

impl Builder {
    fn with_capacity(nodes: usize, edges: usize, ids: Option<(i64, i64)>) -> Builder {
        Builder {
            graph: DiGraph::with_capacity(nodes, edges),
            by_key: HashMap::with_capacity(nodes),
            by_id: NodeIds::new(nodes, ids),
            value_users: HashMap::new(),
        }
    }

    fn finish(self, generation: i64) -> SymbolGraph {
        SymbolGraph {
            graph: self.graph,
            generation,
            by_key: Arc::new(self.by_key),
            by_id: Arc::new(self.by_id),
            value_users: self.value_users,
            pagerank: OnceLock::new(),
            communities: OnceLock::new(),
            betweenness: OnceLock::new(),
            views: Mutex::new(Vec::new()),
            min_confidence: 0.0,
            left_out: 0,
            memo: Mutex::new(HashMap::new()),
        }
    }
}

impl SymbolGraphSink for Builder {
    /// Called before any row: starts over with room for that many.
    fn sizes(&mut self, nodes: usize, edges: usize, ids: Option<(i64, i64)>) {
        *self = Builder::with_capacity(nodes, edges, ids);
    }

    fn node(&mut self, n: SymbolNode) {
        let (id, key) = (n.id, n.key.clone());
        let ix = self.graph.add_node(Arc::new(n));
        self.by_key.insert(key, ix);
        self.by_id.insert(id, ix);
    }

    fn edge(&mut self, e: EdgeRowRef<'_>) {
        let (Some(a), Some(b), Some(kind)) = (
            self.by_id.get(e.src),
            self.by_id.get(e.dst),
            EdgeKind::parse(e.kind),
        ) else {
            return;
        };
        let edge = SymbolEdge {
            kind,
            confidence: e.confidence as f32,
            provenance: intern_provenance(e.provenance),
            line: e.line.unwrap_or(0).max(0) as u32,
        };
        if kind == EdgeKind::References {
            self.value_users.entry(b).or_default().push((a, edge));
        } else {
            self.graph.add_edge(a, b, edge);
        }
    }
}

impl SymbolGraph {
    /// Builds the graph from rows. Cost: O(nodes + edges).
    pub fn from_rows(rows: SymbolGraphRows) -> SymbolGraph {
        let ids = rows.nodes.iter().map(|n| n.id);
        let range = ids.clone().min().zip(ids.max());
        let mut b = Builder::with_capacity(rows.nodes.len(), rows.edges.len(), range);
        for n in rows.nodes {
            b.node(n);
        }
        for e in &rows.edges {
            b.edge(EdgeRowRef {
                src: e.src,
                dst: e.dst,
                kind: &e.kind,
                confidence: e.confidence,
                provenance: &e.provenance,
                line: e.line,
            });
        }
        b.finish(rows.generation)
    }

    /// Loads the snapshot of the database's current generation, building the graph as
    /// the rows are read ([`store::graph::stream_symbol_graph`]): the same graph as
    /// [`SymbolGraph::from_rows`] of [`store::graph::load_symbol_graph`], without the
    /// rows held beside it. Errors: the store's.
    pub fn load(conn: &mut rusqlite::Connection) -> Result<SymbolGraph, StoreError> {
        let started = std::time::Instant::now();
        let mut b = Builder::with_capacity(0, 0, None);
        let generation = store::graph::stream_symbol_graph(conn, &mut b)?;
        tracing::debug!(
            "symbol graph of generation {generation}: {} nodes, {} edges loaded in {} ms",
            b.graph.node_count(),
            b.graph.edge_count(),
            started.elapsed().as_millis()
        );
        Ok(b.finish(generation))
    }

    /// The view of this snapshot that the graph algorithms run on: every node, and only
    /// the edges whose confidence is at least `min_confidence` (imports, containment and
    /// compiler-index edges are 1.0 and always kept). Node indices are those of `self`.
    /// Built once per threshold and snapshot (also when no edge falls below, so that
    /// [`SymbolGraph::min_confidence`] tells the threshold the answer used) and kept
    /// among the [`TRUSTED_VIEWS`] most recently used, together with the results cached
    /// in it; `self` itself when `self` is already that view. Thread-safe: concurrent
    /// calls for a missing view build it once. Cost: O(nodes + edges) the first time.
    pub fn trusted(self: &Arc<Self>, min_confidence: f64) -> Arc<SymbolGraph> {
        if min_confidence <= self.min_confidence {
            return Arc::clone(self);
        }
        let key = min_confidence.to_bits();
        // Held while a missing view is built, so that concurrent calls build it once.
        let Ok(mut views) = self.views.lock() else {
            return Arc::new(self.filtered(min_confidence));
        };
        if let Some(at) = views.iter().position(|(k, _)| *k == key) {
            let entry = views.remove(at);
            let view = Arc::clone(&entry.1);
            views.push(entry);
            return view;
        }
        let started = std::time::Instant::now();
        let view = Arc::new(self.filtered(min_confidence));
        tracing::debug!(
            "view at confidence {min_confidence}: {} edges built in {} ms",
            view.graph.edge_count(),
            started.elapsed().as_millis()
        );
        if views.len() >= TRUSTED_VIEWS {
            views.remove(0);
        }
        views.push((key, Arc::clone(&view)));
        view
    }

    /// A new view of this snapshot without the edges below `min_confidence`.
    fn filtered(&self, min_confidence: f64) -> SymbolGraph {
        // Confidences are stored as f32: compare at that precision so 0.97 keeps 0.97.
        let min = min_confidence as f32;
        let graph = self.graph.filter_map(
            |_, n| Some(Arc::clone(n)),
            |_, e| (e.confidence >= min).then_some(*e),
        );
        let left_out = self.graph.edge_count() - graph.edge_count() + self.left_out;
        let value_users = self
            .value_users
            .iter()
            .filter_map(|(&dst, users)| {
                let kept: Vec<(NodeIndex, SymbolEdge)> = users
                    .iter()
                    .filter(|(_, e)| e.confidence >= min)
                    .copied()
                    .collect();
                (!kept.is_empty()).then_some((dst, kept))
            })
            .collect();
        SymbolGraph {
            graph,
            generation: self.generation,
            by_key: Arc::clone(&self.by_key),
            by_id: Arc::clone(&self.by_id),
            value_users,
            pagerank: OnceLock::new(),
            communities: OnceLock::new(),
            betweenness: OnceLock::new(),
            views: Mutex::new(Vec::new()),
            min_confidence,
            left_out,
            memo: Mutex::new(HashMap::new()),
        }
    }

    /// The `min_confidence` this view was filtered at (0.0 for the whole graph).
    pub fn min_confidence(&self) -> f64 {
        self.min_confidence
    }

    /// How many edges of the whole graph this view leaves out for their confidence.
    pub fn left_out(&self) -> usize {
        self.left_out
    }

    /// The `references` edges into `ix`: each node that uses it as a value (passes it,
    /// stores it, returns it) with the edge, in edge id order; empty when none. These
    /// edges are not in [`SymbolGraph::graph`] (module docs). Cost: one hash lookup.
    pub fn value_users(&self, ix: NodeIndex) -> &[(NodeIndex, SymbolEdge)] {
        self.value_users.get(&ix).map_or(&[], Vec::as_slice)
    }

    /// How many `references` edges this snapshot holds beside the graph.
    pub fn value_reference_count(&self) -> usize {
        self.value_users.values().map(Vec::len).sum()
    }

    /// The node with this key (`func:src/a.rs::f`).
    pub fn by_key(&self, key: &str) -> Option<NodeIndex> {
        self.by_key.get(key).copied()
    }

    /// The node with this `nodes.id`.
    pub fn by_id(&self, id: i64) -> Option<NodeIndex> {
        self.by_id.get(id)
    }

    /// The node's data.
    pub fn node(&self, ix: NodeIndex) -> &SymbolNode {
        &self.graph[ix]
    }

    /// A result derived from this snapshot, computed once per `key` (the caller puts
    /// everything the result depends on into the key) and shared between calls.
    pub fn memo<T: Any + Send + Sync>(&self, key: &str, compute: impl FnOnce() -> T) -> Arc<T> {
        if let Ok(m) = self.memo.lock() {
            if let Some(v) = m.get(key).and_then(|v| Arc::clone(v).downcast::<T>().ok()) {
                return v;
            }
        }
        let value = Arc::new(compute());
        if let Ok(mut m) = self.memo.lock() {
            if m.len() >= MEMO_CAPACITY {
                m.clear();
            }
            m.insert(
                key.to_string(),
                Arc::clone(&value) as Arc<dyn Any + Send + Sync>,
            );
        }
        value
    }

    /// Label-propagation communities of the whole graph (weights as
    /// [`SymbolEdge::weight`], seed [`COMMUNITY_SEED`]), computed once per snapshot.
    pub fn communities(&self) -> &Communities {
        self.communities.get_or_init(|| {
            let started = std::time::Instant::now();
            let labels = super::communities::label_propagation(
                &self.graph,
                SymbolEdge::weight,
                COMMUNITY_SEED,
                50,
            );
            let k = labels.iter().copied().max().map_or(0, |m| m + 1);
            let mut sizes = vec![0usize; k];
            let mut files: Vec<HashMap<&str, usize>> = vec![HashMap::new(); k];
            for ix in self.graph.node_indices() {
                let c = labels[ix.index()];
                sizes[c] += 1;
                *files[c].entry(self.graph[ix].path.as_str()).or_insert(0) += 1;
            }
            let dominant: Vec<String> = files
                .iter()
                .map(|f| {
                    f.iter()
                        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                        .map(|(p, _)| format!("file:{p}"))
                        .unwrap_or_default()
                })
                .collect();
            // Name the largest community of a file plainly, the others with a suffix.
            let mut order: Vec<usize> = (0..k).collect();
            order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]).then(a.cmp(&b)));
            let mut seen: HashMap<&str, usize> = HashMap::new();
            let mut ids = vec![String::new(); k];
            for c in order {
                let n = seen.entry(dominant[c].as_str()).or_insert(0);
                *n += 1;
                ids[c] = if *n == 1 {
                    dominant[c].clone()
                } else {
                    format!("{}#{n}", dominant[c])
                };
            }
            tracing::debug!(
                "communities: {k} over {} nodes in {} ms",
                labels.len(),
                started.elapsed().as_millis()
            );
            Communities { labels, ids, sizes }
        })
    }

    /// The community index of an id from [`Communities::ids`].
    pub fn community_by_id(&self, id: &str) -> Option<usize> {
        self.communities().ids.iter().position(|c| c == id)
    }

    /// Betweenness centrality of every node (Brandes; exact below
    /// [`super::betweenness::EXACT_BELOW`] nodes, else sampled from
    /// [`super::betweenness::AUTO_PIVOTS`] pivots drawn with [`BETWEENNESS_SEED`]; as
    /// [`super::betweenness::betweenness_auto`]), computed once per snapshot.
    /// Cost: O(min(V, 5000) (V + E)) the first time.
    pub fn betweenness(&self) -> &Betweenness {
        self.betweenness
            .get_or_init(|| betweenness_auto(&self.graph, BETWEENNESS_SEED))
    }

    /// PageRank of the whole graph (damping 0.85, tolerance 1e-6, edge weights as
    /// [`SymbolEdge::weight`]), computed once per snapshot.
    pub fn pagerank(&self) -> &[f64] {
        self.pagerank.get_or_init(|| {
            super::pagerank::pagerank(&self.graph, SymbolEdge::weight, Default::default()).scores
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ix(i: usize) -> NodeIndex {
        NodeIndex::new(i)
    }

    #[test]
    fn node_ids_answer_alike_in_a_table_in_a_map_and_after_an_id_out_of_range() {
        let ids = [7_i64, 9, 8, 30];
        // Announced 7..=30 for 4 nodes: a table.
        let mut table = NodeIds::new(ids.len(), Some((7, 30)));
        assert!(matches!(table, NodeIds::Table { .. }));
        // Spread over more than 4 × 4 + 1,024: a map.
        let mut map = NodeIds::new(ids.len(), Some((7, 7 + 2000)));
        assert!(matches!(map, NodeIds::Map(_)));
        // Announced too narrow (7..=9): the 30 turns the table into a map.
        let mut narrow = NodeIds::new(ids.len(), Some((7, 9)));
        for (i, &id) in ids.iter().enumerate() {
            table.insert(id, ix(i));
            map.insert(id, ix(i));
            narrow.insert(id, ix(i));
        }
        assert!(matches!(narrow, NodeIds::Map(_)));
        // Ids as far apart as i64 allows: a map, without overflow.
        let mut wide = NodeIds::new(2, Some((i64::MIN, i64::MAX)));
        assert!(matches!(wide, NodeIds::Map(_)));
        wide.insert(i64::MIN, ix(0));
        assert_eq!(wide.get(i64::MIN), Some(ix(0)));
        for n in [&table, &map, &narrow] {
            assert_eq!(n.get(7), Some(ix(0)));
            assert_eq!(n.get(9), Some(ix(1)));
            assert_eq!(n.get(8), Some(ix(2)));
            assert_eq!(n.get(30), Some(ix(3)));
            for absent in [i64::MIN, -1, 0, 6, 10, 29, 31, i64::MAX] {
                assert_eq!(n.get(absent), None, "{absent}");
            }
        }
        assert!(matches!(NodeIds::new(0, None), NodeIds::Map(_)));
    }
}
