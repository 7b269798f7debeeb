//! Betweenness centrality of the nodes of a directed, unweighted graph: exact, or
//! estimated from a seeded sample of source pivots on large graphs.
//!
//! Owns Brandes' accumulation, networkx's normalization (including its correction for
//! sampled sources) and the policy of when to sample ([`betweenness_auto`]). Sources
//! are split into a fixed number of chunks summed in a fixed order, so results are
//! bit-for-bit identical whatever the number of threads. No I/O.

use std::sync::atomic::{AtomicUsize, Ordering};

use petgraph::graph::DiGraph;

use super::csr::{Csr, CsrDirection, CsrOptions};
use crate::graph::splitmix::SplitMix64;

/// [`betweenness_auto`] is exact on graphs with fewer nodes than this.
pub const EXACT_BELOW: usize = 5_000;

/// Source pivots sampled by [`betweenness_auto`] on graphs of [`EXACT_BELOW`] nodes or
/// more.
pub const AUTO_PIVOTS: usize = 256;

/// Fixed number of chunks the sources are split into (see the module docs).
const CHUNKS: usize = 16;

/// Betweenness scores.
#[derive(Debug, Clone, PartialEq)]
pub struct Betweenness {
    /// One normalized score per node, indexed by `NodeIndex::index()`, in `0.0..=1.0`
    /// when exact: the fraction of ordered pairs `(s, t)`, `s != v != t`, weighted by
    /// the share of shortest `s`→`t` paths through `v`.
    pub scores: Vec<f64>,
    /// True when every node was a source; false for a sampled estimate.
    pub exact: bool,
    /// Number of sources whose shortest paths were counted.
    pub pivots: usize,
}

/// Betweenness centrality (Freeman 1977) by Brandes' algorithm (Brandes 2001, "A faster
/// algorithm for betweenness centrality", J. Math. Sociol. 25(2)) on the directed graph
/// `g`, every edge of length 1; parallel edges count once and self-loops are ignored
/// (as networkx on a `DiGraph` or `MultiDiGraph`).
///
/// Normalized as networkx 3.6 `betweenness_centrality(G, normalized=True)` for a
/// directed graph: divided by `(n - 1)(n - 2)`; all zero when `n <= 2`.
///
/// With `sample = Some((k, seed))` and `k < n`, only `k` distinct source pivots are
/// used, drawn by a partial Fisher–Yates shuffle from `SplitMix64::new(seed)`, and the
/// scores are scaled as networkx 3.6 does for `k=`: by `1 / ((k - 1)(n - 2))` for a
/// pivot and `1 / (k (n - 2))` for any other node (an unbiased estimate; networkx
/// before 3.5 multiplied everything by `n / k` instead). `k` below 2 is raised to 2
/// (networkx gives NaN for the pivot when `k = 1`). `exact` is then false. `k >= n`
/// or `None` gives the exact scores.
///
/// Cost: O(V + E) memory per thread; O(p (V + E)) time for `p` sources, spread over
/// the available cores.
pub fn betweenness<N, E>(g: &DiGraph<N, E>, sample: Option<(usize, u64)>) -> Betweenness {
    let n = g.node_count();
    let (sources, exact) = match sample {
        Some((k, seed)) if k < n && n > 2 => (sample_pivots(n, k.max(2), seed), false),
        _ => ((0..n as u32).collect(), true),
    };
    let pivots = sources.len();
    if n <= 2 {
        return Betweenness {
            scores: vec![0.0; n],
            exact,
            pivots,
        };
    }

    let succ = Successors::new(g);
    let work = sources.len() as f64 * (n + succ.0.entry_count()) as f64;
    let threads = if work < 2e6 {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |p| p.get())
    };
    let mut scores = accumulate(&succ, &sources, threads);

    let span = (n - 2) as f64;
    if exact {
        let scale = 1.0 / ((n - 1) as f64 * span);
        for s in &mut scores {
            *s *= scale;
        }
    } else {
        let k = pivots as f64;
        let pivot_scale = 1.0 / ((k - 1.0) * span);
        let other_scale = 1.0 / (k * span);
        let mut is_pivot = vec![false; n];
        for &s in &sources {
            is_pivot[s as usize] = true;
        }
        for (v, s) in scores.iter_mut().enumerate() {
            *s *= if is_pivot[v] {
                pivot_scale
            } else {
                other_scale
            };
        }
    }
    Betweenness {
        scores,
        exact,
        pivots,
    }
}

/// Exact [`betweenness`] on graphs with fewer than [`EXACT_BELOW`] nodes, otherwise
/// estimated from [`AUTO_PIVOTS`] pivots drawn with `seed`.
///
/// Cost: at most O(min(V, 5000) (V + E)) — exact on 4,999 nodes, or 256 breadth-first
/// searches.
pub fn betweenness_auto<N, E>(g: &DiGraph<N, E>, seed: u64) -> Betweenness {
    if g.node_count() < EXACT_BELOW {
        betweenness(g, None)
    } else {
        betweenness(g, Some((AUTO_PIVOTS, seed)))
    }
}

/// `k` distinct nodes of `0..n` by a partial Fisher–Yates shuffle (position `i` swaps
/// with `i + below(n - i)`), sorted. O(n).
fn sample_pivots(n: usize, k: usize, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix64::new(seed);
    let mut nodes: Vec<u32> = (0..n as u32).collect();
    let k = k.min(n);
    for i in 0..k {
        let j = i + rng.below(n - i);
        nodes.swap(i, j);
    }
    nodes.truncate(k);
    nodes.sort_unstable();
    nodes
}

/// Out-neighbours of the unweighted simple graph Brandes' algorithm walks: the
/// [`Csr`] of out-edges, rows sorted, parallel edges merged and self-loops dropped.
struct Successors(Csr);

impl Successors {
    fn new<N, E>(g: &DiGraph<N, E>) -> Self {
        Successors(Csr::build(
            g,
            CsrOptions::simple(CsrDirection::Outgoing),
            |_| true,
            |_, _| (),
        ))
    }

    fn of(&self, u: usize) -> &[u32] {
        self.0.neighbours(u)
    }

    fn node_count(&self) -> usize {
        self.0.node_count()
    }
}

/// Unnormalized dependencies summed over `sources`: chunk `c` of `CHUNKS` contiguous
/// chunks is summed on its own, then the chunks are added in order `0..CHUNKS`; the
/// result does not depend on `threads`.
fn accumulate(succ: &Successors, sources: &[u32], threads: usize) -> Vec<f64> {
    let n = succ.node_count();
    let chunk_len = sources.len().div_ceil(CHUNKS).max(1);
    let chunks: Vec<&[u32]> = sources.chunks(chunk_len).collect();
    let threads = threads.min(chunks.len());

    let mut partial: Vec<(usize, Vec<f64>)> = if threads <= 1 {
        let mut state = BrandesState::new(n);
        chunks
            .iter()
            .enumerate()
            .map(|(c, chunk)| (c, state.run(succ, chunk)))
            .collect()
    } else {
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut state = BrandesState::new(n);
                        let mut done = Vec::new();
                        loop {
                            let c = next.fetch_add(1, Ordering::Relaxed);
                            let Some(chunk) = chunks.get(c) else { break };
                            done.push((c, state.run(succ, chunk)));
                        }
                        done
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| match h.join() {
                    Ok(done) => done,
                    Err(panic) => std::panic::resume_unwind(panic),
                })
                .collect()
        })
    };
    partial.sort_unstable_by_key(|(c, _)| *c);

    let mut total = vec![0.0_f64; n];
    for (_, part) in &partial {
        for (t, p) in total.iter_mut().zip(part) {
            *t += p;
        }
    }
    total
}

/// Per-node scratch of one single-source pass, kept together so that visiting a node
/// touches one cache line.
#[derive(Clone, Copy)]
struct Slot {
    /// Hops from the source; `UNSEEN` when not reached.
    dist: u32,
    /// Number of shortest paths from the source (`sigma`), as f64 like Brandes'
    /// implementations (counts overflow u64 on large graphs).
    sigma: f64,
    /// In the backward pass, `(1 + delta(w)) / sigma(w)` once `w` is finished: the
    /// share each predecessor `v` multiplies by `sigma(v)`.
    share: f64,
}

const UNSEEN: u32 = u32::MAX;
const EMPTY: Slot = Slot {
    dist: UNSEEN,
    sigma: 0.0,
    share: 0.0,
};

/// Scratch space for single-source shortest-path counting, reset after each source in
/// O(nodes reached).
struct BrandesState {
    slots: Vec<Slot>,
    /// Nodes in breadth-first order; doubles as the queue and as Brandes' stack.
    order: Vec<u32>,
}

impl BrandesState {
    fn new(n: usize) -> Self {
        BrandesState {
            slots: vec![EMPTY; n],
            order: Vec::with_capacity(n),
        }
    }

    /// Sum over `sources` of the dependencies `delta_s(v)`, one entry per node.
    fn run(&mut self, succ: &Successors, sources: &[u32]) -> Vec<f64> {
        let mut acc = vec![0.0_f64; succ.node_count()];
        for &s in sources {
            self.single_source(succ, s as usize, &mut acc);
        }
        acc
    }

    /// Brandes' two passes from `s`: breadth-first counting of shortest paths, then
    /// dependencies `delta(v) = sigma(v) * sum over successors w one hop further of
    /// (1 + delta(w)) / sigma(w)`, added to `acc` for every `v != s`.
    fn single_source(&mut self, succ: &Successors, s: usize, acc: &mut [f64]) {
        let slots = &mut self.slots;
        self.order.clear();
        self.order.push(s as u32);
        slots[s].dist = 0;
        slots[s].sigma = 1.0;
        let mut head = 0;
        while head < self.order.len() {
            let v = self.order[head] as usize;
            head += 1;
            let next = slots[v].dist + 1;
            let sigma_v = slots[v].sigma;
            for &w in succ.of(v) {
                let slot = &mut slots[w as usize];
                if slot.dist == UNSEEN {
                    slot.dist = next;
                    self.order.push(w);
                }
                if slot.dist == next {
                    slot.sigma += sigma_v;
                }
            }
        }
        for &v in self.order.iter().rev() {
            let v = v as usize;
            let next = slots[v].dist + 1;
            let mut sum = 0.0;
            for &w in succ.of(v) {
                let slot = &slots[w as usize];
                if slot.dist == next {
                    sum += slot.share;
                }
            }
            let sigma_v = slots[v].sigma;
            let delta = sigma_v * sum;
            slots[v].share = (1.0 + delta) / sigma_v;
            if v != s {
                acc[v] += delta;
            }
        }
        for &v in &self.order {
            slots[v as usize] = EMPTY;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::splitmix::random_digraph;

    /// The PageRank fixture without weights: a 3-cycle 0→1→2→0, parallel edges 1→3,
    /// a self-loop on 3, a chain 3→4→5→6 with 5→0 and 2→4 back into the cycle, 4→7,
    /// 7→8, 7→1, and the isolated node 9.
    const FIXTURE: [(u32, u32); 14] = [
        (0, 1),
        (1, 2),
        (2, 0),
        (1, 3),
        (1, 3),
        (3, 3),
        (3, 4),
        (4, 5),
        (5, 6),
        (5, 0),
        (2, 4),
        (7, 8),
        (7, 1),
        (4, 7),
    ];

    fn fixture() -> DiGraph<(), ()> {
        let mut g = DiGraph::new();
        for _ in 0..10 {
            g.add_node(());
        }
        for (u, v) in FIXTURE {
            g.add_edge(u.into(), v.into(), ());
        }
        g
    }

    // The Python helpers below are the generator quoted on `splitmix::random_edges`
    // plus:
    //
    // def sample_pivots(n, k, seed):
    //     r = splitmix(seed); nodes = list(range(n))
    //     for i in range(k):
    //         j = i + ((next(r) * (n - i)) >> 64); nodes[i], nodes[j] = nodes[j], nodes[i]
    //     return sorted(nodes[:k])
    // class FixedSample(random.Random):  # makes networkx use our pivots
    //     def __init__(self, pivots): super().__init__(0); self.pivots = pivots
    //     def sample(self, population, k): return list(self.pivots)
    //
    // Fixture, networkx 3.6.1:
    // E = [(0,1),(1,2),(2,0),(1,3),(1,3),(3,3),(3,4),(4,5),(5,6),(5,0),(2,4),(7,8),
    //      (7,1),(4,7)]
    // G = nx.DiGraph(); G.add_nodes_from(range(10)); G.add_edges_from(E)
    // bc = nx.betweenness_centrality(G, normalized=True); print([bc[i] for i in range(10)])
    // p = sample_pivots(10, 4, 5); print(p)
    // bc = nx.betweenness_centrality(G, k=4, normalized=True, seed=FixedSample(p))
    // print([bc[i] for i in range(10)])
    const EXACT: [f64; 10] = [
        0.1111111111111111,
        0.3055555555555555,
        0.1388888888888889,
        0.1111111111111111,
        0.3194444444444444,
        0.1111111111111111,
        0.0,
        0.15277777777777776,
        0.0,
        0.0,
    ];
    const PIVOTS: [u32; 4] = [0, 2, 3, 7];
    const SAMPLED: [f64; 10] = [
        0.08333333333333333,
        0.46875,
        0.20833333333333331,
        0.16666666666666666,
        0.53125,
        0.15625,
        0.0,
        0.20833333333333331,
        0.0,
        0.0,
    ];

    fn assert_close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() <= 1e-9, "node {i}: got {g}, want {w}");
        }
    }

    #[test]
    fn exact_matches_networkx() {
        let b = betweenness(&fixture(), None);
        assert!(b.exact);
        assert_eq!(b.pivots, 10);
        assert_close(&b.scores, &EXACT);
        assert_eq!(betweenness(&fixture(), Some((10, 1))), b);
        assert_eq!(betweenness_auto(&fixture(), 1), b);
    }

    #[test]
    fn sampled_matches_networkx_with_same_pivots() {
        assert_eq!(sample_pivots(10, 4, 5), PIVOTS);
        let b = betweenness(&fixture(), Some((4, 5)));
        assert!(!b.exact);
        assert_eq!(b.pivots, 4);
        assert_close(&b.scores, &SAMPLED);
    }

    #[test]
    fn tiny_graphs() {
        let g: DiGraph<(), ()> = DiGraph::new();
        assert!(betweenness(&g, None).scores.is_empty());
        let mut g: DiGraph<(), ()> = DiGraph::new();
        let (a, b) = (g.add_node(()), g.add_node(()));
        g.add_edge(a, b, ());
        assert_eq!(betweenness(&g, Some((1, 0))).scores, [0.0, 0.0]);
        // A directed path a→b→c: b is on the only a→c path, 1 of (3-1)(3-2) pairs.
        let c = g.add_node(());
        g.add_edge(b, c, ());
        assert_close(&betweenness(&g, None).scores, &[0.0, 0.5, 0.0]);
        // k = 0 and k = 1 are raised to 2 pivots.
        assert_eq!(betweenness(&g, Some((0, 3))).pivots, 2);
    }

    // `random_edges(2000, 6000, 42)` (weights dropped), networkx 3.6.1:
    // G = nx.DiGraph(); G.add_nodes_from(range(2000))
    // G.add_edges_from((u, v) for u, v, _ in random_edges(2000, 6000, 42))
    // for k in (None, 64):
    //     p = None if k is None else sample_pivots(2000, k, 1)
    //     bc = nx.betweenness_centrality(G, k=k, normalized=True,
    //                                    seed=None if k is None else FixedSample(p))
    //     x = [bc[i] for i in range(2000)]
    //     top = sorted(range(2000), key=lambda i: (-x[i], i))[:5]
    //     print(p[:8] if p else None, sum(x), sum((i + 1) * x[i] for i in range(2000)),
    //           [(i, x[i]) for i in top])
    const RANDOM_EXACT: (f64, f64, [(usize, f64); 5]) = (
        5.213100043515243,
        5298.619580841088,
        [
            (1120, 0.016351107626757247),
            (1781, 0.014502049611489147),
            (1134, 0.013642112248403275),
            (1475, 0.013392903769557011),
            (613, 0.013103614335591351),
        ],
    );
    const RANDOM_PIVOTS_FIRST8: [u32; 8] = [3, 114, 119, 150, 182, 193, 225, 266];
    const RANDOM_SAMPLED: (f64, f64, [(usize, f64); 5]) = (
        5.237695657768704,
        5328.282361088526,
        [
            (1943, 0.028818457514076384),
            (1972, 0.023945340225322555),
            (1881, 0.023107264595852217),
            (1134, 0.02300575655163583),
            (1172, 0.021302987296910908),
        ],
    );

    fn check_summary(scores: &[f64], want: &(f64, f64, [(usize, f64); 5])) {
        let sum: f64 = scores.iter().sum();
        assert!((sum - want.0).abs() < 1e-9, "sum {sum} vs {}", want.0);
        let moment: f64 = scores
            .iter()
            .enumerate()
            .map(|(i, x)| (i + 1) as f64 * x)
            .sum();
        assert!(
            (moment - want.1).abs() < 1e-7,
            "moment {moment} vs {}",
            want.1
        );
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        for (rank, &(node, value)) in want.2.iter().enumerate() {
            assert_eq!(order[rank], node, "rank {rank}");
            assert!((scores[node] - value).abs() < 1e-9, "node {node}");
        }
    }

    #[test]
    fn random_2000_matches_networkx() {
        let g = random_digraph(2000, 6000, 42);
        let b = betweenness(&g, None);
        assert!(b.exact);
        check_summary(&b.scores, &RANDOM_EXACT);
        // Below EXACT_BELOW nodes the automatic choice is exact.
        assert_eq!(betweenness_auto(&g, 99), b);

        assert_eq!(sample_pivots(2000, 64, 1)[..8], RANDOM_PIVOTS_FIRST8);
        let b = betweenness(&g, Some((64, 1)));
        assert!(!b.exact);
        assert_eq!(b.pivots, 64);
        check_summary(&b.scores, &RANDOM_SAMPLED);
    }

    #[test]
    fn threads_do_not_change_the_result() {
        let g = random_digraph(3000, 9000, 4);
        let succ = Successors::new(&g);
        let sources: Vec<u32> = (0..300).collect();
        let one = accumulate(&succ, &sources, 1);
        for threads in [2, 3, 16] {
            let many = accumulate(&succ, &sources, threads);
            assert!(one
                .iter()
                .zip(&many)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }

    #[test]
    fn auto_samples_large_graphs() {
        let g = random_digraph(EXACT_BELOW, 3 * EXACT_BELOW, 5);
        let a = betweenness_auto(&g, 8);
        assert!(!a.exact);
        assert_eq!(a.pivots, AUTO_PIVOTS);
        assert_eq!(betweenness_auto(&g, 8), a);
    }
}
