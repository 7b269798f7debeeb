//! The shape of the crate, checked on its source text: no two files import each other
//! (directly or through others), no layer imports a layer above it, and the code map in
//! ARCHITECTURE.md names every module directory and only paths that exist.
//!
//! A submodule may name its own ancestors (`use super::Resolver` in
//! `index/resolve/python.rs`): that is one module split over files, the way Rust
//! places `impl` blocks and helpers. Every other pair of files — siblings, cousins, a
//! parent and a child it names — must not import each other, directly or through
//! others.
//!
//! "Imports" here are the paths a file names: `use` trees (braces expanded),
//! `crate::a::b` / `super::x` / `self::y` paths anywhere in the code, and `child::item`
//! for a `mod child;` the file declares. A path counts as a dependency on the longest
//! module prefix that is a file. Comments and `#[cfg(test)]` modules are left out (a
//! test module may use whatever it tests).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers from the bottom: a file may import its own layer and the ones before it.
/// `lib.rs` and `main.rs` (the crate root and the CLI) sit above everything.
const LAYERS: &[&[&str]] = &[
    &["walk"],
    &["lang"],
    &["store"],
    &["index"],
    &["graph"],
    &["memory", "docs", "audit", "tools"],
    &["mcp"],
];

type ModPath = Vec<String>;

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/` with its module path (`index/resolve/python.rs` →
/// `index::resolve::python`; `mod.rs`, `lib.rs` and `main.rs` name their directory).
fn modules() -> BTreeMap<ModPath, PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&src_dir(), &mut files);
    let mut out = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src_dir()).unwrap().with_extension("");
        let mut parts: ModPath = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
            parts.pop();
        }
        if parts == ["main"] {
            // The binary is its own crate root; keep it apart from lib.rs.
            parts = vec!["<main>".into()];
        }
        out.insert(parts, file);
    }
    out
}

/// The code of a file without comments, string contents and its `#[cfg(test)]` module.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(at) => &text[..at],
        None => text,
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            let end = text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |e| i + 2 + e + 2);
            i = end;
        } else if bytes[i] == b'"' {
            // Skip a string literal (escapes included); raw strings are rare in paths.
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                if bytes[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if bytes[i] == b'\''
            && i + 2 < bytes.len()
            && (bytes[i + 2] == b'\'' || bytes[i + 1] == b'\\')
        {
            // A char literal ('a', '\n'); lifetimes ('a) are left alone.
            let end = text[i + 1..]
                .find('\'')
                .map_or(bytes.len(), |e| i + 1 + e + 1);
            i = end;
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Expands a `use` tree (`a::{b, c::{d, e}}`) into its paths.
fn expand_use(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| {
            if p == "self" {
                vec![prefix.trim_end_matches("::").to_string()]
            } else {
                expand_use(&format!("{prefix}{p}"))
            }
        })
        .collect()
}

/// The paths a file's code names: `use` trees and `crate::`/`super::`/`self::`/`child::`
/// paths elsewhere.
fn paths_in(code: &str, children: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    // `use` statements (any visibility), up to their `;`.
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + 4..];
        rest = after;
        if before.is_some_and(is_ident) {
            continue;
        }
        let Some(end) = after.find(';') else { break };
        let tree = &after[..end];
        if tree.starts_with(|c: char| is_ident(c) || c == '{') {
            out.extend(expand_use(tree));
        }
    }
    // Paths in expressions and types.
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    for (k, &(i, _)) in chars.iter().enumerate() {
        let prev = if k > 0 { Some(chars[k - 1].1) } else { None };
        if prev.is_some_and(|p| is_ident(p) || p == ':') {
            continue;
        }
        let word: String = code[i..].chars().take_while(|&c| is_ident(c)).collect();
        let starts_path =
            matches!(word.as_str(), "crate" | "super" | "self") || children.contains(&word);
        if starts_path && code[i + word.len()..].starts_with("::") {
            let path: String = code[i..]
                .chars()
                .take_while(|&c| is_ident(c) || c == ':')
                .collect();
            out.push(path.trim_end_matches(':').to_string());
        }
    }
    out
}

/// The file a path names, seen from module `at` (a file's own module): the longest
/// prefix that is a module file.
fn target(path: &str, at: &ModPath, files: &BTreeMap<ModPath, PathBuf>) -> Option<ModPath> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut full: ModPath = at.clone();
    let mut i = 0;
    if segs.first() == Some(&"crate") {
        full.clear();
        i = 1;
    }
    while let Some(&s) = segs.get(i) {
        match s {
            "super" => {
                full.pop();
            }
            "self" => {}
            _ => break,
        }
        i += 1;
    }
    full.extend(segs[i..].iter().map(|s| s.to_string()));
    (0..=full.len())
        .rev()
        .map(|k| full[..k].to_vec())
        .find(|m| files.contains_key(m))
}

/// File-level dependency edges (module path → module paths).
fn dependencies() -> (
    BTreeMap<ModPath, PathBuf>,
    BTreeMap<ModPath, BTreeSet<ModPath>>,
) {
    let files = modules();
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (module, file) in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let code = code_of(&text);
        let children: BTreeSet<String> = code
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                let l = l
                    .strip_prefix("pub ")
                    .or_else(|| l.strip_prefix("pub(crate) "))
                    .unwrap_or(l);
                l.strip_prefix("mod ")?
                    .strip_suffix(';')
                    .map(str::to_string)
            })
            .collect();
        let binary = module == &vec!["<main>".to_string()];
        // `super`/`self` count from the file's own module; the binary's `crate::` is
        // the binary itself (its own items), the library is `constellation::`.
        let deps = edges.entry(module.clone()).or_default();
        for path in paths_in(&code, &children) {
            let first = path.split("::").next().unwrap_or_default();
            let path = if children.contains(first) {
                format!("self::{path}")
            } else {
                path
            };
            if binary {
                continue;
            }
            if let Some(t) = target(&path, module, &files) {
                // A submodule naming its own ancestors (`super::Resolver`) is how Rust
                // splits one module over files: not an import between separate jobs.
                if &t != module && !module.starts_with(&t) {
                    deps.insert(t);
                }
            }
        }
    }
    (files, edges)
}

fn show(m: &ModPath, files: &BTreeMap<ModPath, PathBuf>) -> String {
    files[m]
        .strip_prefix(src_dir())
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Strongly connected components with more than one node (Tarjan 1972, "Depth-first
/// search and linear graph algorithms").
fn cycles(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct Tarjan<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.adj[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut comp = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    self.out.push(comp);
                }
            }
        }
    }
    let n = adj.len();
    let mut t = Tarjan {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.out
}

#[test]
fn no_two_files_import_each_other() {
    let (files, edges) = dependencies();
    let nodes: Vec<&ModPath> = files.keys().collect();
    let index_of: BTreeMap<&ModPath, usize> =
        nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let adj: Vec<Vec<usize>> = nodes
        .iter()
        .map(|m| {
            edges
                .get(*m)
                .map(|d| d.iter().filter_map(|t| index_of.get(t).copied()).collect())
                .unwrap_or_default()
        })
        .collect();
    let report: Vec<String> = cycles(&adj)
        .iter()
        .map(|comp| {
            let members: BTreeSet<usize> = comp.iter().copied().collect();
            let arrows: Vec<String> = comp
                .iter()
                .flat_map(|&a| {
                    adj[a]
                        .iter()
                        .filter(|b| members.contains(b))
                        .map(move |&b| (a, b))
                })
                .map(|(a, b)| format!("{} -> {}", show(nodes[a], &files), show(nodes[b], &files)))
                .collect();
            arrows.join(", ")
        })
        .collect();
    assert!(
        report.is_empty(),
        "files that import each other:\n{}",
        report.join("\n")
    );
}

#[test]
fn nothing_imports_a_layer_above_it() {
    let (files, edges) = dependencies();
    let layer = |m: &ModPath| -> Option<usize> {
        let top = m.first()?;
        LAYERS.iter().position(|l| l.contains(&top.as_str()))
    };
    let mut upward = Vec::new();
    for (from, deps) in &edges {
        let Some(a) = layer(from) else { continue };
        for to in deps {
            if let Some(b) = layer(to) {
                if b > a {
                    upward.push(format!("{} -> {}", show(from, &files), show(to, &files)));
                }
            }
        }
    }
    // Every top-level module has a layer (a new one must be placed deliberately).
    let unplaced: BTreeSet<String> = files
        .keys()
        .filter(|m| !m.is_empty() && m[0] != "<main>" && layer(m).is_none())
        .map(|m| m[0].clone())
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules without a layer in LAYERS: {unplaced:?}"
    );
    assert!(
        upward.is_empty(),
        "imports of a higher layer:\n{}",
        upward.join("\n")
    );
}

#[test]
fn code_map_names_every_module_directory_and_only_paths_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    // Paths the map names in backticks.
    let mut missing = Vec::new();
    for chunk in map.split('`').skip(1).step_by(2) {
        let path = chunk.trim();
        let looks_like_path = (path.starts_with("src/")
            || path.starts_with("schema/")
            || path.starts_with("tests/")
            || path.starts_with("bench/"))
            && !path.contains(' ')
            && !path.contains('*')
            && !path.contains('{')
            && !path.contains("NNN");
        if looks_like_path && !root.join(path.trim_end_matches('/')).exists() {
            missing.push(path.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
    // Every directory under src/ (a module with children) is named.
    let mut dirs = Vec::new();
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && path.file_name().is_some_and(|n| n != "queries") {
                out.push(format!(
                    "{}/",
                    path.strip_prefix(base).unwrap().to_string_lossy()
                ));
                walk(&path, base, out);
            }
        }
    }
    walk(&src_dir(), root, &mut dirs);
    let unnamed: Vec<&String> = dirs.iter().filter(|d| !map.contains(d.as_str())).collect();
    assert!(
        unnamed.is_empty(),
        "ARCHITECTURE.md's code map does not name {unnamed:?}"
    );
}
