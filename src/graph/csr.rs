//! The one compressed-sparse-row (CSR) builder of the graph layer: every algorithm that
//! walks adjacency lists in a loop (PageRank, betweenness, k shortest paths, the
//! undirected view of articulation points and label propagation) lays the snapshot's
//! edges out with [`Csr::build`] once per run instead of chasing petgraph's linked
//! edge lists.
//!
//! Owns the shape of the arrays and the rules for direction, filtering, self-loops and
//! parallel edges, so that each algorithm states its semantics as a [`CsrOptions`]
//! value. It knows nothing of files, symbols or confidence: the caller's closures say
//! which edges count and what to store with them. No I/O.
//!
//! petgraph's own `Csr` is a graph type of its own (built from sorted edge lists, no
//! per-entry payload besides the edge weight, no undirected doubling); this one is a
//! read-only index over a `DiGraph`, so node indices stay those of the snapshot.

use petgraph::graph::DiGraph;

/// Which end of an edge a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsrDirection {
    /// Row `u` lists the targets of `u`'s out-edges.
    Outgoing,
    /// Row `v` lists the sources of `v`'s in-edges.
    Incoming,
    /// Every edge `a→b` appears twice: `b` in row `a` and `a` in row `b`, with the same
    /// payload. A self-loop kept by [`CsrOptions::self_loops`] appears twice in its row.
    Undirected,
}

/// How rows are built from the accepted edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsrOptions {
    /// Which end of an edge a row belongs to.
    pub direction: CsrDirection,
    /// Keep self-loops `u→u` (true) or drop them (false).
    pub self_loops: bool,
    /// `false`: one entry per edge, each row in edge insertion order (`raw_edges()`
    /// order), parallel edges repeated. `true`: a simple graph, each row sorted by
    /// neighbour index with parallel edges merged into one entry carrying the payload
    /// of the first of them in insertion order (for [`CsrDirection::Undirected`] `a→b`
    /// and `b→a` merge as well).
    pub simple: bool,
}

impl CsrOptions {
    /// Every edge, insertion order, self-loops kept: a multigraph.
    pub const fn multi(direction: CsrDirection) -> CsrOptions {
        CsrOptions {
            direction,
            self_loops: true,
            simple: false,
        }
    }

    /// The undirected view of articulation points and label propagation: every edge
    /// at both ends in insertion order, parallel edges (and `a→b` next to `b→a`)
    /// repeated, self-loops dropped.
    pub const fn undirected_view() -> CsrOptions {
        CsrOptions {
            direction: CsrDirection::Undirected,
            self_loops: false,
            simple: false,
        }
    }

    /// A simple graph: no self-loops, parallel edges merged, rows sorted.
    pub const fn simple(direction: CsrDirection) -> CsrOptions {
        CsrOptions {
            direction,
            self_loops: false,
            simple: true,
        }
    }
}

/// Adjacency in compressed sparse row form over the `n` nodes of a graph.
///
/// Shape: `offsets` has `n + 1` entries, non-decreasing, `offsets[0] == 0`; row `u`
/// (node `NodeIndex::index() == u`) is the half-open range `offsets[u]..offsets[u + 1]`
/// of `targets` (neighbour node indices, `u32`) and of `payload` (one value per entry,
/// from the caller's closure; `()` when none). Memory: `(n + 1)` `usize` plus one `u32`
/// and one `T` per entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr<T = ()> {
    offsets: Vec<usize>,
    targets: Vec<u32>,
    payload: Vec<T>,
}

impl<T: Copy + Default> Csr<T> {
    /// Lays out the edges of `g` accepted by `keep` as `opts` says, storing
    /// `payload(edge_index, &weight)` with each entry (`edge_index` is the position in
    /// `g.raw_edges()`, i.e. `EdgeIndex::index()`). `keep` is called once per edge and
    /// `payload` once per edge kept, both in insertion order.
    ///
    /// Cost: O(V + E) time and memory by a counting sort on the row (two passes over
    /// the edges, no intermediate list); `simple` adds a sort of each row, O(E log d)
    /// for largest degree `d`, in place.
    pub fn build<N, E>(
        g: &DiGraph<N, E>,
        opts: CsrOptions,
        keep: impl Fn(&E) -> bool,
        mut payload: impl FnMut(usize, &E) -> T,
    ) -> Csr<T> {
        let n = g.node_count();
        let edges = g.raw_edges();
        let undirected = opts.direction == CsrDirection::Undirected;
        // The row an edge `a→b` is listed in (and, undirected, also `b`'s row).
        let row = |a: usize, b: usize| match opts.direction {
            CsrDirection::Incoming => b,
            _ => a,
        };

        // Pass 1: which edges are kept, and the length of every row.
        let mut kept = Vec::with_capacity(edges.len());
        let mut offsets = vec![0_usize; n + 1];
        for e in edges {
            let (a, b) = (e.source().index(), e.target().index());
            let ok = (a != b || opts.self_loops) && keep(&e.weight);
            kept.push(ok);
            if ok {
                offsets[row(a, b) + 1] += 1;
                if undirected {
                    offsets[b + 1] += 1;
                }
            }
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }

        // Pass 2: place the entries, each row in insertion order.
        let total = offsets[n];
        let mut targets = vec![0_u32; total];
        let mut payloads = vec![T::default(); total];
        let mut next = offsets.clone();
        for (id, e) in edges.iter().enumerate() {
            if !kept[id] {
                continue;
            }
            let (a, b) = (e.source().index(), e.target().index());
            let p = payload(id, &e.weight);
            let (r, other) = if row(a, b) == a { (a, b) } else { (b, a) };
            targets[next[r]] = other as u32;
            payloads[next[r]] = p;
            next[r] += 1;
            if undirected {
                targets[next[b]] = a as u32;
                payloads[next[b]] = p;
                next[b] += 1;
            }
        }

        let mut csr = Csr {
            offsets,
            targets,
            payload: payloads,
        };
        if opts.simple {
            csr.simplify();
        }
        csr
    }

    /// Sorts every row by neighbour (stably, so the first parallel edge comes first)
    /// and keeps one entry per neighbour, compacting the arrays in place.
    fn simplify(&mut self) {
        let n = self.node_count();
        let mut row: Vec<(u32, T)> = Vec::new();
        let mut write = 0;
        let mut start = self.offsets[0];
        for u in 0..n {
            let end = self.offsets[u + 1];
            row.clear();
            row.extend(
                self.targets[start..end]
                    .iter()
                    .copied()
                    .zip(self.payload[start..end].iter().copied()),
            );
            row.sort_by_key(|&(v, _)| v);
            row.dedup_by_key(|&mut (v, _)| v);
            self.offsets[u] = write;
            for &(v, p) in &row {
                self.targets[write] = v;
                self.payload[write] = p;
                write += 1;
            }
            start = end;
        }
        self.offsets[n] = write;
        self.targets.truncate(write);
        self.payload.truncate(write);
    }

    /// Number of nodes (rows).
    pub fn node_count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of entries over all rows (twice the edges for the undirected view).
    pub fn entry_count(&self) -> usize {
        self.targets.len()
    }

    /// The row offsets: `n + 1` entries, row `u` is `offsets()[u]..offsets()[u + 1]`.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// Neighbours of every row, concatenated (see the type's docs).
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// Payloads, aligned with [`Csr::targets`].
    pub fn payloads(&self) -> &[T] {
        &self.payload
    }

    /// Number of entries of row `u`.
    pub fn degree(&self, u: usize) -> usize {
        self.offsets[u + 1] - self.offsets[u]
    }

    /// The neighbours of `u`.
    pub fn neighbours(&self, u: usize) -> &[u32] {
        &self.targets[self.offsets[u]..self.offsets[u + 1]]
    }

    /// The payloads of `u`'s entries, aligned with [`Csr::neighbours`].
    pub fn payloads_of(&self, u: usize) -> &[T] {
        &self.payload[self.offsets[u]..self.offsets[u + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0→1, 0→1 (parallel), 1→1 (self-loop), 2→0, 1→0, 0→2.
    fn g() -> DiGraph<(), u8> {
        let mut g = DiGraph::new();
        for _ in 0..4 {
            g.add_node(());
        }
        for (a, b, w) in [
            (0, 1, 10),
            (0, 1, 11),
            (1, 1, 12),
            (2, 0, 13),
            (1, 0, 14),
            (0, 2, 15),
        ] {
            g.add_edge(a.into(), b.into(), w);
        }
        g
    }

    fn rows<T: Copy + Default>(c: &Csr<T>) -> Vec<Vec<(u32, T)>> {
        (0..c.node_count())
            .map(|u| {
                c.neighbours(u)
                    .iter()
                    .copied()
                    .zip(c.payloads_of(u).iter().copied())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn multigraph_rows_keep_insertion_order() {
        let out = Csr::build(
            &g(),
            CsrOptions::multi(CsrDirection::Outgoing),
            |_| true,
            |_, &w| w,
        );
        assert_eq!(
            rows(&out),
            vec![
                vec![(1, 10), (1, 11), (2, 15)],
                vec![(1, 12), (0, 14)],
                vec![(0, 13)],
                vec![]
            ]
        );
        let inc = Csr::build(
            &g(),
            CsrOptions::multi(CsrDirection::Incoming),
            |_| true,
            |i, _| i,
        );
        assert_eq!(
            rows(&inc),
            vec![
                vec![(2, 3), (1, 4)],
                vec![(0, 0), (0, 1), (1, 2)],
                vec![(0, 5)],
                vec![]
            ]
        );
        assert_eq!(inc.offsets(), &[0, 2, 5, 6, 6]);
        assert_eq!(inc.entry_count(), 6);
    }

    #[test]
    fn simple_rows_are_sorted_without_loops_or_duplicates() {
        let out = Csr::build(
            &g(),
            CsrOptions::simple(CsrDirection::Outgoing),
            |_| true,
            |_, &w| w,
        );
        assert_eq!(
            rows(&out),
            vec![vec![(1, 10), (2, 15)], vec![(0, 14)], vec![(0, 13)], vec![]]
        );
        let und = Csr::build(
            &g(),
            CsrOptions::simple(CsrDirection::Undirected),
            |&w| w != 11,
            |_, _| (),
        );
        assert_eq!(und.neighbours(0), &[1, 2]);
        assert_eq!(und.neighbours(1), &[0]);
        assert_eq!(und.degree(3), 0);
    }

    #[test]
    fn undirected_multigraph_without_loops_lists_each_edge_at_both_ends() {
        let und = Csr::build(&g(), CsrOptions::undirected_view(), |_| true, |i, _| i);
        assert_eq!(
            rows(&und),
            vec![
                vec![(1, 0), (1, 1), (2, 3), (1, 4), (2, 5)],
                vec![(0, 0), (0, 1), (0, 4)],
                vec![(0, 3), (0, 5)],
                vec![]
            ]
        );
    }
}
