//! The file-level dependency graph: one node per code or asset file, one edge per
//! distinct (importer, imported) pair.

use std::sync::OnceLock;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::Direction;

use super::cycles::{self, CycleLimits, CycleReport};
use super::pagerank::{self, PageRankOptions};

use crate::store::graph::FileGraphRows;

/// Extensions of asset files that code can import (styles, images, fonts, wasm); they
/// are graph nodes even when nothing imports them, so an unused asset is an orphan.
pub const ASSET_EXTENSIONS: &[&str] = &[
    "css", "scss", "sass", "less", "svg", "png", "jpg", "jpeg", "gif", "webp", "ico", "woff",
    "woff2", "ttf", "wasm",
];

/// The extension of a path without the dot, lower-cased (`""` when none).
pub fn extension(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    match file.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext.to_ascii_lowercase(),
        _ => String::new(),
    }
}

/// A file node of the graph.
#[derive(Debug, Clone)]
pub struct FileNode {
    pub file_id: i64,
    /// Root-relative path; also the node's id in summaries.
    pub path: String,
}

/// The file-level dependency graph of one index generation. Node indices follow path
/// order, so every algorithm that walks indices in order is deterministic.
///
/// Results that depend only on the graph (strongly connected components, the cycle
/// report, PageRank) are computed on first use and kept with the snapshot, so every
/// call of the same generation shares them; a new generation is a new `FileGraph`.
/// Memory: O(V) per result. Concurrent first uses compute once (the others wait).
#[derive(Debug, Clone)]
pub struct FileGraph {
    pub graph: DiGraph<FileNode, ()>,
    pub generation: i64,
    strong_components: OnceLock<Vec<Vec<NodeIndex>>>,
    cycles: OnceLock<CycleReport>,
    pagerank: OnceLock<Vec<f64>>,
}

impl FileGraph {
    /// Builds the graph: files that are parsed as code, assets by extension, and any
    /// file some import resolves to. Other files (docs, data, configs) stay out.
    /// Cost: O(files + imports).
    pub fn from_rows(rows: &FileGraphRows) -> FileGraph {
        let imported: std::collections::HashSet<i64> =
            rows.imports.iter().map(|&(_, d)| d).collect();
        let mut graph = DiGraph::with_capacity(rows.files.len(), rows.imports.len());
        let mut index = std::collections::HashMap::with_capacity(rows.files.len());
        for f in &rows.files {
            let keep = f.language.is_some()
                || imported.contains(&f.id)
                || ASSET_EXTENSIONS.contains(&extension(&f.path).as_str());
            if keep {
                let ix = graph.add_node(FileNode {
                    file_id: f.id,
                    path: f.path.clone(),
                });
                index.insert(f.id, ix);
            }
        }
        for (s, d) in &rows.imports {
            if let (Some(&a), Some(&b)) = (index.get(s), index.get(d)) {
                graph.add_edge(a, b, ());
            }
        }
        FileGraph {
            graph,
            generation: rows.generation,
            strong_components: OnceLock::new(),
            cycles: OnceLock::new(),
            pagerank: OnceLock::new(),
        }
    }

    /// The strongly connected components with two or more files, as
    /// [`cycles::strong_components`] (sorted, ordered by smallest node), computed once
    /// per snapshot. Cost: O(V + E) the first time.
    pub fn strong_components(&self) -> &[Vec<NodeIndex>] {
        self.strong_components
            .get_or_init(|| cycles::strong_components(&self.graph))
    }

    /// Circular imports with the default [`CycleLimits`] (one shortest cycle per
    /// component, as [`cycles::find_cycles`]), computed once per snapshot. Cost: one BFS
    /// per listed component the first time.
    pub fn cycles(&self) -> &CycleReport {
        self.cycles.get_or_init(|| {
            cycles::cycles_of(
                &self.graph,
                self.strong_components(),
                CycleLimits::default(),
            )
        })
    }

    /// PageRank of the files, every import edge of weight 1 (damping 0.85, tolerance
    /// 1e-6, as [`pagerank::pagerank`]), indexed by `NodeIndex::index()`; computed once
    /// per snapshot. Cost: O(V + E) per iteration the first time.
    pub fn pagerank(&self) -> &[f64] {
        self.pagerank.get_or_init(|| {
            pagerank::pagerank(&self.graph, |_| 1.0, PageRankOptions::default()).scores
        })
    }

    /// The path of a node.
    pub fn path(&self, ix: NodeIndex) -> &str {
        &self.graph[ix].path
    }

    /// In-degree plus out-degree (distinct import pairs).
    pub fn degree(&self, ix: NodeIndex) -> usize {
        self.graph
            .neighbors_directed(ix, Direction::Incoming)
            .count()
            + self
                .graph
                .neighbors_directed(ix, Direction::Outgoing)
                .count()
    }

    /// Files by degree, descending, ties by path; files with degree 0 left out.
    pub fn hubs(&self, limit: usize) -> Vec<(NodeIndex, usize)> {
        let mut v: Vec<(NodeIndex, usize)> = self
            .graph
            .node_indices()
            .map(|ix| (ix, self.degree(ix)))
            .filter(|&(_, d)| d > 0)
            .collect();
        v.sort_by(|a, b| {
            b.1.cmp(&a.1)
                .then_with(|| self.path(a.0).cmp(self.path(b.0)))
        });
        v.truncate(limit);
        v
    }

    /// Files with no import edge in or out, in path order.
    pub fn orphans(&self) -> Vec<NodeIndex> {
        self.graph
            .node_indices()
            .filter(|&ix| self.degree(ix) == 0)
            .collect()
    }

    /// Number of files per extension (without the dot; `""` for none).
    pub fn type_breakdown(&self) -> std::collections::BTreeMap<String, usize> {
        let mut m = std::collections::BTreeMap::new();
        for ix in self.graph.node_indices() {
            *m.entry(extension(self.path(ix))).or_insert(0) += 1;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::graph::FileRow;

    fn row(id: i64, path: &str, lang: Option<&str>) -> FileRow {
        FileRow {
            id,
            path: path.into(),
            language: lang.map(Into::into),
        }
    }

    #[test]
    fn keeps_code_assets_and_import_targets() {
        let rows = FileGraphRows {
            files: vec![
                row(1, "README.md", None),
                row(2, "a.ts", Some("typescript")),
                row(3, "data.json", None),
                row(4, "logo.svg", None),
                row(5, "b.ts", Some("typescript")),
                row(6, "config.json", None),
            ],
            imports: vec![(2, 3), (2, 5), (5, 2)],
            generation: 7,
        };
        let g = FileGraph::from_rows(&rows);
        let paths: Vec<&str> = g.graph.node_indices().map(|i| g.path(i)).collect();
        assert_eq!(paths, vec!["a.ts", "data.json", "logo.svg", "b.ts"]);
        let hubs: Vec<(&str, usize)> = g
            .hubs(10)
            .into_iter()
            .map(|(i, d)| (g.path(i), d))
            .collect();
        assert_eq!(hubs, vec![("a.ts", 3), ("b.ts", 2), ("data.json", 1)]);
        let orphans: Vec<&str> = g.orphans().into_iter().map(|i| g.path(i)).collect();
        assert_eq!(orphans, vec!["logo.svg"]);
        assert_eq!(g.type_breakdown().get("ts"), Some(&2));
        assert_eq!(extension("Makefile"), "");
        assert_eq!(extension(".bashrc"), "");
    }
}
