//! PageRank and strongly connected components of Constellation on an edge list, timed
//! for `bench/graph_compare.py` (which times rustworkx on the same file in the same run).
//!
//! Usage: `cargo bench --bench graph_algos -- EDGES.tsv [RUNS] [TOLERANCE]` where each line of
//! EDGES.tsv is `src<TAB>dst<TAB>weight` with node numbers 0..n. Prints one JSON object:
//! node and edge counts, the median milliseconds of each algorithm, the component count
//! and the PageRank scores' sum and top five (to check both libraries agree).

use std::time::Instant;

use petgraph::graph::{DiGraph, NodeIndex};

use constellation::graph::pagerank::{pagerank, PageRankOptions};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(path) = args.first() else {
        eprintln!("usage: graph_algos EDGES.tsv [RUNS] [TOLERANCE]");
        std::process::exit(2);
    };
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    // networkx stops when sum |x - x_last| < N * tolerance; a third argument sets the
    // tolerance (default 1e-6, networkx's).
    let tolerance: f64 = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(1e-6);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let mut edges: Vec<(u32, u32, f64)> = Vec::new();
    let mut n = 0u32;
    for line in text.lines() {
        let mut it = line.split('\t');
        let (Some(a), Some(b), Some(w)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let (Ok(a), Ok(b), Ok(w)) = (a.parse::<u32>(), b.parse::<u32>(), w.parse::<f64>()) else {
            continue;
        };
        n = n.max(a + 1).max(b + 1);
        edges.push((a, b, w));
    }
    let mut g: DiGraph<(), f64> = DiGraph::with_capacity(n as usize, edges.len());
    for _ in 0..n {
        g.add_node(());
    }
    for &(a, b, w) in &edges {
        g.add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), w);
    }
    let mut pr_ms = Vec::new();
    let mut scores = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        scores = pagerank(
            &g,
            |w: &f64| *w,
            PageRankOptions {
                tolerance,
                ..PageRankOptions::default()
            },
        )
        .scores;
        pr_ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let mut scc_ms = Vec::new();
    let mut components = 0;
    for _ in 0..runs {
        let t = Instant::now();
        components = petgraph::algo::kosaraju_scc(&g).len();
        scc_ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let top: Vec<(usize, f64)> = order.iter().take(5).map(|&i| (i, scores[i])).collect();
    println!(
        "{}",
        serde_json::json!({
            "nodes": n, "edges": edges.len(),
            "pagerank_ms": median(pr_ms), "scc_ms": median(scc_ms),
            "components": components,
            "pagerank_sum": scores.iter().sum::<f64>(),
            "pagerank_top5": top,
        })
    );
}
