//! PageRank and personalized PageRank over a directed graph snapshot.
//!
//! Owns the power iteration and its exact agreement with networkx 3.x
//! (`nx.pagerank`, which runs `_pagerank_scipy`). It is sparse: the in-edges are laid out
//! once in compressed sparse row (CSR) form by [`super::csr`] and each iteration costs O(V + E), so it
//! scales to graphs with hundreds of thousands of nodes (petgraph's own `page_rank` is
//! O(V²) per iteration and is not used). It does no I/O and knows nothing of files or
//! symbols: nodes are `NodeIndex`es and edge weights come from a caller's closure.

use petgraph::graph::{DiGraph, NodeIndex};

use super::csr::{Csr, CsrDirection, CsrOptions};

/// Parameters of the power iteration; the defaults are networkx's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageRankOptions {
    /// Damping factor `alpha`: probability of following an out-edge rather than
    /// teleporting. Default 0.85.
    pub damping: f64,
    /// Per-node tolerance: the iteration stops once the L1 change of the score vector
    /// is below `node_count * tolerance`. Default 1e-6.
    pub tolerance: f64,
    /// At most this many iterations. Default 100.
    pub max_iterations: usize,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions {
            damping: 0.85,
            tolerance: 1e-6,
            max_iterations: 100,
        }
    }
}

/// Scores of a PageRank run.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRankResult {
    /// One score per node, indexed by `NodeIndex::index()`; they sum to 1 (up to the
    /// convergence tolerance). Empty for an empty graph.
    pub scores: Vec<f64>,
    /// Iterations performed (each one multiplies once by the transition matrix).
    pub iterations: usize,
    /// True when the tolerance was met within `max_iterations`. When false the scores
    /// are those of the last iteration (networkx raises
    /// `PowerIterationFailedConvergence` instead).
    pub converged: bool,
}

/// PageRank (Brin & Page 1998) of every node of `g`.
///
/// Semantics exactly as networkx 3.x `nx.pagerank(G, alpha=damping, tol=tolerance,
/// max_iter=max_iterations, weight=...)` on the corresponding `MultiDiGraph`:
/// - each node passes its score along its out-edges in proportion to
///   `weight(edge) / weighted out-degree`; parallel edges add their weights and a
///   self-loop is an ordinary edge;
/// - dangling nodes (weighted out-degree 0) spread their score uniformly over all
///   nodes, and so does the teleport term `(1 - damping) / N`;
/// - start from `1 / N` everywhere; stop when `sum |x - x_last| < N * tolerance`.
///
/// Weights must be finite and non-negative (networkx makes the same assumption).
///
/// Cost: O(V + E) memory for the CSR of in-edges, O(V + E) per iteration.
pub fn pagerank<N, E>(
    g: &DiGraph<N, E>,
    weight: impl Fn(&E) -> f64,
    opts: PageRankOptions,
) -> PageRankResult {
    let n = g.node_count();
    power_iteration(g, weight, opts, Teleport::Uniform(n))
}

/// Personalized PageRank (Haveliwala 2002) with restarts at `seeds`.
///
/// Same as networkx 3.x `nx.pagerank(G, ..., personalization={s: 1 for s in seeds})`:
/// the teleport term and the dangling nodes' score both go to the seeds, each seed
/// getting an equal share (a seed listed twice counts once). Seeds outside the graph
/// are ignored; with no valid seed the result equals [`pagerank`] (networkx raises
/// `ZeroDivisionError`). The power iteration still starts from `1 / N` everywhere, as
/// networkx does.
///
/// Cost: as [`pagerank`].
pub fn personalized_pagerank<N, E>(
    g: &DiGraph<N, E>,
    weight: impl Fn(&E) -> f64,
    seeds: &[NodeIndex],
    opts: PageRankOptions,
) -> PageRankResult {
    let n = g.node_count();
    let mut is_seed = vec![false; n];
    for s in seeds {
        if let Some(flag) = is_seed.get_mut(s.index()) {
            *flag = true;
        }
    }
    let count = is_seed.iter().filter(|&&f| f).count();
    if count == 0 {
        return power_iteration(g, weight, opts, Teleport::Uniform(n));
    }
    let share = 1.0 / count as f64;
    let p = is_seed
        .iter()
        .map(|&f| if f { share } else { 0.0 })
        .collect();
    power_iteration(g, weight, opts, Teleport::Vector(p))
}

/// Where teleport and dangling mass go: the personalization vector, normalized.
enum Teleport {
    /// `1 / n` everywhere.
    Uniform(usize),
    /// One probability per node, summing to 1.
    Vector(Vec<f64>),
}

impl Teleport {
    fn at(&self, i: usize) -> f64 {
        match self {
            Teleport::Uniform(n) => 1.0 / *n as f64,
            Teleport::Vector(p) => p[i],
        }
    }
}

/// The networkx power iteration, `x = alpha * (x A + sum(x[dangling]) * p) +
/// (1 - alpha) * p`, pulling along a CSR of in-edges.
fn power_iteration<N, E>(
    g: &DiGraph<N, E>,
    weight: impl Fn(&E) -> f64,
    opts: PageRankOptions,
    teleport: Teleport,
) -> PageRankResult {
    let n = g.node_count();
    if n == 0 {
        return PageRankResult {
            scores: Vec::new(),
            iterations: 0,
            converged: true,
        };
    }

    let edges = g.raw_edges();
    let weights: Vec<f64> = edges.iter().map(|e| weight(&e.weight)).collect();
    let mut out_weight = vec![0.0_f64; n];
    for (e, w) in edges.iter().zip(&weights) {
        out_weight[e.source().index()] += w;
    }
    let dangling: Vec<usize> = (0..n).filter(|&u| out_weight[u] == 0.0).collect();

    // In-edges in CSR form, each row in edge insertion order (the order the inflow is
    // summed in), self-loops and parallel edges kept, each entry carrying its
    // transition probability `weight / weighted out-degree of the source`.
    let csr = Csr::build(
        g,
        CsrOptions::multi(CsrDirection::Incoming),
        |_| true,
        |id, _| {
            let u = edges[id].source().index();
            if out_weight[u] == 0.0 {
                0.0
            } else {
                weights[id] / out_weight[u]
            }
        },
    );
    let (offsets, sources, coef) = (csr.offsets(), csr.targets(), csr.payloads());

    let alpha = opts.damping;
    let p: Vec<f64> = (0..n).map(|i| teleport.at(i)).collect();
    let mut x = vec![1.0 / n as f64; n];
    let mut x_next = vec![0.0_f64; n];
    let threshold = n as f64 * opts.tolerance;

    for iteration in 1..=opts.max_iterations {
        let dangling_sum: f64 = dangling.iter().map(|&u| x[u]).sum();
        let mut err = 0.0;
        for v in 0..n {
            let range = offsets[v]..offsets[v + 1];
            let inflow: f64 = sources[range.clone()]
                .iter()
                .zip(&coef[range])
                .map(|(&u, &c)| c * x[u as usize])
                .sum();
            let value = alpha * (inflow + dangling_sum * p[v]) + (1.0 - alpha) * p[v];
            err += (value - x[v]).abs();
            x_next[v] = value;
        }
        std::mem::swap(&mut x, &mut x_next);
        if err < threshold {
            return PageRankResult {
                scores: x,
                iterations: iteration,
                converged: true,
            };
        }
    }
    PageRankResult {
        scores: x,
        iterations: opts.max_iterations,
        converged: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::splitmix::random_digraph;

    /// The 10-node fixture: a 3-cycle 0→1→2→0, a chain into a dangling node 6, a
    /// self-loop on 3, parallel edges 1→3 (weights 1 and 2), an isolated node 9 and
    /// a dangling node 8 reached from 7.
    const FIXTURE: [(u32, u32, f64); 14] = [
        (0, 1, 1.0),
        (1, 2, 2.0),
        (2, 0, 1.0),
        (1, 3, 1.0),
        (1, 3, 2.0),
        (3, 3, 0.5),
        (3, 4, 1.0),
        (4, 5, 3.0),
        (5, 6, 1.0),
        (5, 0, 1.0),
        (2, 4, 0.5),
        (7, 8, 1.0),
        (7, 1, 2.0),
        (4, 7, 1.0),
    ];

    fn fixture() -> DiGraph<(), f64> {
        let mut g = DiGraph::new();
        for _ in 0..10 {
            g.add_node(());
        }
        for (u, v, w) in FIXTURE {
            g.add_edge(u.into(), v.into(), w);
        }
        g
    }

    fn assert_close(got: &[f64], want: &[f64], tol: f64) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() <= tol, "node {i}: got {g}, want {w}");
        }
    }

    // Reference values (networkx 3.6.1; `nx.pagerank` needs numpy and scipy):
    //
    // import networkx as nx
    // E = [(0,1,1.0),(1,2,2.0),(2,0,1.0),(1,3,1.0),(1,3,2.0),(3,3,0.5),(3,4,1.0),
    //      (4,5,3.0),(5,6,1.0),(5,0,1.0),(2,4,0.5),(7,8,1.0),(7,1,2.0),(4,7,1.0)]
    // G = nx.MultiDiGraph(); G.add_nodes_from(range(10)); G.add_weighted_edges_from(E)
    // pr = nx.pagerank(G, alpha=0.85, tol=1e-6, max_iter=100, weight="weight")
    // print([pr[i] for i in range(10)])
    const WEIGHTED: [f64; 10] = [
        0.12552007144499275,
        0.16704957966873485,
        0.08449202792996949,
        0.15752148135271074,
        0.14089832244125466,
        0.11751865023718477,
        0.07764088385537755,
        0.05763683332270629,
        0.0440262248816022,
        0.027695924865467056,
    ];

    // Same graph, weight=None (every edge counts 1, parallel edges twice):
    // pr = nx.pagerank(G, weight=None); print([pr[i] for i in range(10)])
    const UNWEIGHTED: [f64; 10] = [
        0.09714669591017604,
        0.14947235051845212,
        0.0711730515204907,
        0.1974319592745864,
        0.14297916451852477,
        0.08958871833347891,
        0.06689841416137615,
        0.08958871833347891,
        0.06689841416137615,
        0.028822513268059943,
    ];

    // Personalized on seeds 2 and 7 (7 listed twice):
    // pr = nx.pagerank(G, weight="weight", personalization={2: 1, 7: 1})
    // print([pr[i] for i in range(10)])
    const PERSONALIZED: [f64; 10] = [
        0.12676793483703097,
        0.18145742558846564,
        0.16620616113818926,
        0.1291295072811408,
        0.1202649184614484,
        0.07666930124841674,
        0.032584999996482206,
        0.1300674070472923,
        0.03685234440153365,
        0.0,
    ];

    #[test]
    fn weighted_matches_networkx() {
        let r = pagerank(&fixture(), |w| *w, PageRankOptions::default());
        assert!(r.converged);
        assert_close(&r.scores, &WEIGHTED, 1e-6);
    }

    #[test]
    fn unweighted_matches_networkx() {
        let r = pagerank(&fixture(), |_| 1.0, PageRankOptions::default());
        assert!(r.converged);
        assert_close(&r.scores, &UNWEIGHTED, 1e-6);
    }

    #[test]
    fn personalized_matches_networkx() {
        let seeds = [NodeIndex::new(2), NodeIndex::new(7), NodeIndex::new(7)];
        let r = personalized_pagerank(&fixture(), |w| *w, &seeds, PageRankOptions::default());
        assert!(r.converged);
        assert_close(&r.scores, &PERSONALIZED, 1e-6);
    }

    #[test]
    fn personalized_without_valid_seeds_is_plain_pagerank() {
        let g = fixture();
        let plain = pagerank(&g, |w| *w, PageRankOptions::default());
        let none = personalized_pagerank(&g, |w| *w, &[], PageRankOptions::default());
        let outside = personalized_pagerank(
            &g,
            |w| *w,
            &[NodeIndex::new(99)],
            PageRankOptions::default(),
        );
        assert_eq!(plain, none);
        assert_eq!(plain, outside);
    }

    #[test]
    fn empty_graph() {
        let g: DiGraph<(), f64> = DiGraph::new();
        let r = pagerank(&g, |w| *w, PageRankOptions::default());
        assert!(r.scores.is_empty());
        assert!(r.converged);
        assert_eq!(r.iterations, 0);
    }

    #[test]
    fn single_self_loop_node() {
        let mut g: DiGraph<(), f64> = DiGraph::new();
        let a = g.add_node(());
        g.add_edge(a, a, 1.0);
        let r = pagerank(&g, |w| *w, PageRankOptions::default());
        assert!(r.converged);
        assert_close(&r.scores, &[1.0], 1e-12);
    }

    #[test]
    fn non_convergence_is_reported() {
        let opts = PageRankOptions {
            max_iterations: 2,
            ..PageRankOptions::default()
        };
        let r = pagerank(&fixture(), |w| *w, opts);
        assert!(!r.converged);
        assert_eq!(r.iterations, 2);
        let sum: f64 = r.scores.iter().sum();
        assert!((sum - 1.0).abs() < 1e-12);
    }

    // 2,000 nodes, 6,000 edges from `random_edges(2000, 6000, 42)` (generator quoted
    // on `splitmix::random_edges`), networkx 3.6.1:
    //
    // G = nx.MultiDiGraph(); G.add_nodes_from(range(2000))
    // G.add_weighted_edges_from(random_edges(2000, 6000, 42))
    // pr = nx.pagerank(G, weight="weight")
    // x = [pr[i] for i in range(2000)]
    // top = sorted(range(2000), key=lambda i: (-x[i], i))[:5]
    // print(sum(x), sum((i + 1) * x[i] for i in range(2000)), [(i, x[i]) for i in top])
    // pp = nx.pagerank(G, weight="weight", personalization={5: 1, 17: 1, 1999: 1})
    // (same prints for pp)
    const RANDOM_SUM: f64 = 0.999999999999998;
    const RANDOM_MOMENT: f64 = 1011.6975786933814;
    const RANDOM_TOP5: [(usize, f64); 5] = [
        (509, 0.002309621346538246),
        (170, 0.0021367486338487074),
        (1333, 0.002133660670966814),
        (1685, 0.002122972466212106),
        (561, 0.0020848905783411253),
    ];
    const RANDOM_PERSONAL_SUM: f64 = 1.0000000000000007;
    const RANDOM_PERSONAL_MOMENT: f64 = 912.3573840730402;
    const RANDOM_PERSONAL_TOP5: [(usize, f64); 5] = [
        (5, 0.05995982422687077),
        (1999, 0.0587254554115917),
        (17, 0.05871348353493487),
        (685, 0.050992760000211954),
        (434, 0.03008285847984938),
    ];

    fn check_summary(scores: &[f64], sum: f64, moment: f64, top5: &[(usize, f64); 5]) {
        let got_sum: f64 = scores.iter().sum();
        assert!((got_sum - sum).abs() < 1e-9, "sum {got_sum} vs {sum}");
        let got_moment: f64 = scores
            .iter()
            .enumerate()
            .map(|(i, x)| (i + 1) as f64 * x)
            .sum();
        // A checksum over all 2,000 nodes; the arithmetic is networkx's, so the
        // two agree to ~1e-12, far inside this bound.
        assert!(
            (got_moment - moment).abs() < 1e-6,
            "moment {got_moment} vs {moment}"
        );
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        for (rank, &(node, value)) in top5.iter().enumerate() {
            assert_eq!(order[rank], node, "rank {rank}");
            assert!((scores[node] - value).abs() < 1e-6, "node {node}");
        }
    }

    #[test]
    fn random_2000_matches_networkx() {
        let g = random_digraph(2000, 6000, 42);
        let r = pagerank(&g, |w| *w, PageRankOptions::default());
        assert!(r.converged);
        check_summary(&r.scores, RANDOM_SUM, RANDOM_MOMENT, &RANDOM_TOP5);

        let seeds = [5, 17, 1999].map(NodeIndex::new);
        let r = personalized_pagerank(&g, |w| *w, &seeds, PageRankOptions::default());
        assert!(r.converged);
        check_summary(
            &r.scores,
            RANDOM_PERSONAL_SUM,
            RANDOM_PERSONAL_MOMENT,
            &RANDOM_PERSONAL_TOP5,
        );
    }

    /// Timing of the large-graph algorithms, for comparison with python-igraph:
    /// `cargo test --release --lib pagerank_scc_speed -- --ignored --nocapture`.
    ///
    /// Runs on a thread with a 1 GiB stack because petgraph 0.8's `tarjan_scc` is
    /// recursive (one frame per node on the DFS path) and overflows the 2 MiB stack of a
    /// test thread on this graph; `kosaraju_scc` (iterative) is timed next to it.
    #[test]
    #[ignore]
    fn pagerank_scc_speed() {
        let run = std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn(speed_report);
        match run.map(|h| h.join()) {
            Ok(Ok(())) => {}
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(e) => panic!("cannot spawn the benchmark thread: {e}"),
        }
    }

    fn speed_report() {
        use std::time::Instant;
        let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;

        let t = Instant::now();
        let g = random_digraph(100_000, 500_000, 7);
        println!(
            "graph: random_edges(100000, 500000, 7), built in {:.1} ms",
            ms(t)
        );

        let t = Instant::now();
        let r = pagerank(&g, |w| *w, PageRankOptions::default());
        println!(
            "pagerank: {:.1} ms ({} iterations, converged {})",
            ms(t),
            r.iterations,
            r.converged
        );

        let t = Instant::now();
        let sccs = petgraph::algo::tarjan_scc(&g);
        let largest = sccs.iter().map(Vec::len).max().unwrap_or(0);
        println!(
            "tarjan_scc: {:.1} ms ({} components, largest {largest})",
            ms(t),
            sccs.len()
        );

        let t = Instant::now();
        let sccs = petgraph::algo::kosaraju_scc(&g);
        println!("kosaraju_scc: {:.1} ms ({} components)", ms(t), sccs.len());

        let t = Instant::now();
        let b = crate::graph::betweenness::betweenness_auto(&g, 7);
        println!(
            "betweenness_auto: {:.1} ms (exact {}, {} pivots, {} threads)",
            ms(t),
            b.exact,
            b.pivots,
            std::thread::available_parallelism().map_or(1, |p| p.get())
        );
    }
}
