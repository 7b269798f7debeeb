//! Results that depend only on the index snapshot (betweenness, strongly connected
//! components and cycles, communities, PageRank) are computed once per index
//! generation and threshold and shared by every call, also across threads; a re-index
//! gives a new snapshot whose results are computed afresh (fixture `ts-app`).

mod common;

use std::sync::Arc;

use constellation::graph::symbol_graph::TRUSTED_VIEWS;
use constellation::index::IndexOptions;
use constellation::tools::drill::{self, TopNodesArgs};
use constellation::tools::workspace::Workspace;

fn top_betweenness(ws: &Workspace) -> serde_json::Value {
    let args: TopNodesArgs =
        serde_json::from_value(serde_json::json!({"metric": "betweenness", "k": 5})).unwrap();
    drill::list_top_nodes(&ws.symbol_graph().unwrap(), &args).unwrap()
}

#[test]
fn snapshot_results_are_computed_once_per_generation() {
    let (_dir, root) = common::fixture_copy("ts-app");
    let db = root.parent().unwrap().join("t.db");
    let ws = Workspace::open(&root, Some(&db), IndexOptions::default()).unwrap();
    ws.refresh(false, &|_| {}).unwrap();

    // Two calls on one generation share the snapshot, the view of a threshold and the
    // results cached in it: the same allocations, not equal copies.
    let first = ws.symbol_graph().unwrap();
    let view = first.trusted(0.97);
    let again = ws.symbol_graph().unwrap().trusted(0.97);
    assert!(Arc::ptr_eq(&view, &again));
    assert!(std::ptr::eq(view.betweenness(), again.betweenness()));
    assert!(std::ptr::eq(view.communities(), again.communities()));
    assert!(std::ptr::eq(view.pagerank(), again.pagerank()));
    assert_eq!(top_betweenness(&ws), top_betweenness(&ws));
    assert!(std::ptr::eq(
        view.betweenness(),
        ws.symbol_graph().unwrap().trusted(0.97).betweenness()
    ));

    let files = ws.file_graph().unwrap();
    let cycles = files.cycles();
    assert_eq!(
        cycles.components, 1,
        "the fixture's cycle a.ts -> b.ts -> c.ts -> a.ts"
    );
    assert!(std::ptr::eq(cycles, ws.file_graph().unwrap().cycles()));
    assert!(std::ptr::eq(
        files.strong_components(),
        ws.file_graph().unwrap().strong_components()
    ));

    // Concurrent first uses of a new threshold compute once.
    let addresses: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let g = ws.symbol_graph().unwrap().trusted(0.5);
                    g.betweenness() as *const _ as usize
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(addresses.windows(2).all(|w| w[0] == w[1]), "{addresses:?}");

    // Memory is bounded: past TRUSTED_VIEWS other thresholds, the least recently used
    // view is dropped and built again when asked.
    for i in 0..TRUSTED_VIEWS {
        first.trusted(0.1 + i as f64 / 100.0);
    }
    assert!(!Arc::ptr_eq(&view, &first.trusted(0.97)));

    // A re-index (c.ts stops importing a.ts) is a new generation: new snapshot, results
    // computed again (`first`
    // and `view` are still alive, so the addresses cannot be reused).
    std::fs::write(
        root.join("src/cycle/c.ts"),
        "export function stepC(remaining: number): number {\n  return remaining;\n}\n",
    )
    .unwrap();
    ws.refresh(false, &|_| {}).unwrap();
    let next = ws.symbol_graph().unwrap();
    assert!(next.generation > first.generation);
    assert!(!Arc::ptr_eq(&first, &next));
    assert!(!std::ptr::eq(
        view.betweenness(),
        next.trusted(0.97).betweenness()
    ));
    let next_files = ws.file_graph().unwrap();
    assert!(!Arc::ptr_eq(&files, &next_files));
    assert!(!std::ptr::eq(cycles, next_files.cycles()));
    assert_eq!(
        next_files.cycles().components,
        0,
        "c.ts no longer imports a.ts"
    );
}

/// The server builds its snapshot as the rows are read; that must be the graph built
/// from the collected rows: the same nodes in the same order, the same edges, the same
/// `references` edges beside the graph and the same lookups (fixture `ts-value-refs`:
/// `calls`, `contains` and `imports` edges in the graph, `references` beside it).
#[test]
fn a_snapshot_built_while_reading_equals_one_built_from_the_collected_rows() {
    use constellation::graph::symbol_graph::SymbolGraph;
    use petgraph::visit::EdgeRef;

    let (_dir, _root, db) = common::indexed_fixture("ts-value-refs");
    let mut conn = common::open_db(&db);
    let streamed = SymbolGraph::load(&mut conn).unwrap();
    let collected =
        SymbolGraph::from_rows(constellation::store::graph::load_symbol_graph(&mut conn).unwrap());

    let dump = |g: &SymbolGraph| {
        let nodes: Vec<String> = g
            .graph
            .node_indices()
            .map(|ix| {
                let n = g.node(ix);
                assert_eq!(g.by_key(&n.key), Some(ix));
                assert_eq!(g.by_id(n.id), Some(ix));
                let users: Vec<String> = g
                    .value_users(ix)
                    .iter()
                    .map(|(u, e)| format!("{} {e:?}", u.index()))
                    .collect();
                format!("{ix:?} {n:?} used by {users:?}")
            })
            .collect();
        let edges: Vec<String> = g
            .graph
            .edge_references()
            .map(|e| format!("{:?} -> {:?} {:?}", e.source(), e.target(), e.weight()))
            .collect();
        (g.generation, nodes, edges, g.value_reference_count())
    };
    let (generation, nodes, edges, value_refs) = dump(&streamed);
    assert!(generation > 0);
    assert!(value_refs > 0, "the fixture has references edges");
    let kinds: std::collections::BTreeSet<&str> = streamed
        .graph
        .edge_weights()
        .map(|e| e.kind.name())
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["calls", "contains", "imports"]
    );
    assert_eq!((generation, nodes, edges, value_refs), dump(&collected));
}
