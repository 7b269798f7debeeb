//! Graph snapshots loaded from the store into petgraph, and the algorithms over them;
//! the algorithms that loop over adjacency lists lay them out with the one CSR builder,
//! [`csr::Csr`].
//!
//! A snapshot is immutable and tagged with the index generation it was read at; the
//! server keeps one per generation and shares it between tool calls. This layer does no
//! I/O and no SQL: it receives rows from `store::graph`.

pub mod articulation;
pub mod betweenness;
pub mod communities;
pub mod csr;
pub mod cycles;
pub mod file_graph;
pub mod pagerank;
pub mod paths;
pub mod splitmix;
pub mod symbol_graph;

pub use file_graph::FileGraph;
pub use symbol_graph::SymbolGraph;
