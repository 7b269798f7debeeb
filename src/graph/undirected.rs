//! The undirected view of a directed graph in compressed sparse row form, shared by the
//! algorithms that ignore direction (articulation points, label propagation).

use petgraph::graph::DiGraph;

/// Undirected adjacency without self-loops: the neighbours of `u` are
/// `entries[offsets[u]..offsets[u + 1]]` as `(neighbour, payload)`, in edge insertion
/// order; every directed edge appears once at each end. Built in O(V + E).
pub(crate) struct UndirectedCsr<T> {
    pub offsets: Vec<usize>,
    pub entries: Vec<(u32, T)>,
}

impl<T: Copy + Default> UndirectedCsr<T> {
    /// Builds the view; `payload(edge_id, weight)` is stored with both ends of an edge.
    pub fn new<N, E>(g: &DiGraph<N, E>, payload: impl Fn(usize, &E) -> T) -> Self {
        let n = g.node_count();
        let edges = g.raw_edges();
        let mut offsets = vec![0_usize; n + 1];
        for e in edges {
            let (a, b) = (e.source().index(), e.target().index());
            if a != b {
                offsets[a + 1] += 1;
                offsets[b + 1] += 1;
            }
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut next = offsets.clone();
        let mut entries = vec![(0_u32, T::default()); offsets[n]];
        for (id, e) in edges.iter().enumerate() {
            let (a, b) = (e.source().index(), e.target().index());
            if a != b {
                let p = payload(id, &e.weight);
                entries[next[a]] = (b as u32, p);
                next[a] += 1;
                entries[next[b]] = (a as u32, p);
                next[b] += 1;
            }
        }
        UndirectedCsr { offsets, entries }
    }

    /// Number of incident edges (parallel edges counted, self-loops not).
    pub fn degree(&self, u: usize) -> usize {
        self.offsets[u + 1] - self.offsets[u]
    }

    /// The `(neighbour, payload)` pairs of `u`.
    pub fn neighbours(&self, u: usize) -> &[(u32, T)] {
        &self.entries[self.offsets[u]..self.offsets[u + 1]]
    }
}
