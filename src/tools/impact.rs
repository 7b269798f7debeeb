//! `get_impact`: everything that depends on a symbol or a file, transitively to a
//! depth, grouped by file, with the chain of nodes that reaches each dependent and the
//! tests that reach the target. `diff_impact` runs the same walk from the symbols a
//! change touches.
//!
//! A dependent is a node with an edge into the target (or into a dependent): a caller
//! (`calls`), a user of it as a value (`references`: it passes, stores or returns the
//! function, so whoever receives the value may call it), an importer (`imports`), a
//! subclass (`inherits`) or an implementation (`implements`). A class stands for its
//! members: the callers of its methods and constructor depend on it. A file stands for every symbol it defines, plus its
//! importers. Containment is never followed upwards (the class of a caller is not a
//! dependent).
//!
//! Trust: the walk runs twice, once along edges at least `min_confidence` confident
//! (default 0.97) and once along every edge, starting also from the name-only
//! candidates of the target (call sites no rule resolved that call one of its names:
//! `via: "same_name"`, confidence 0); what only the second reaches is listed apart as
//! `possible` (some hop of its chain is a weaker rule's guess or a mere name match).
//! Reads only the snapshot and the open call sites of its generation, plus the source
//! lines above Rust and Java functions (attributes) and Python ones (decorators) to
//! tell tests.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::Arc;

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::members::{by_path, is_type_kind, members};
use super::python_tests;
use super::symbol_arg::symbol_arg;
use super::symbol_summary::count_tokens;
use super::test_files::{
    attributes_above, is_test_file, is_test_function, js_test_file_by_directory_only,
    kselftest_fixture, kselftest_id, python_decorators_above, runs_js_tests,
};
use super::{min_confidence, ToolError};
use crate::graph::symbol_graph::EdgeKind;
use crate::graph::SymbolGraph;
use crate::lang::Language;

/// Default `depth` of the impact walk (edges from the target).
pub const DEFAULT_DEPTH: usize = 3;
/// Largest `depth` accepted.
pub const MAX_DEPTH: usize = 10;
/// How far the tests are searched, whatever `depth` is: a test that reaches the
/// target through up to this many edges is listed. Tests sit at the top of long
/// chains (test → helper → API → internals); measured with coverage.py on boltons, a
/// depth of 3 found 66% of the tests that ran a function, 6 found 93%, 10 found 94%.
pub const TEST_DEPTH: usize = MAX_DEPTH;
/// Default `budget_tokens` of the impact answers.
pub const DEFAULT_BUDGET: usize = 4000;
/// A name called at more open call sites than this (`get`, `append`, `create`) gives
/// no name-only candidates: they would bury the answer, and are counted apart instead.
pub const MAX_NAME_CANDIDATES: usize = 200;

/// Arguments of `get_impact`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpactArgs {
    /// Node id, file path, qualified name, name or `path:line`.
    pub target: String,
    /// Default 3, at most 10.
    pub depth: Option<usize>,
    /// Weaker edges go to `possible` (default 0.97).
    pub min_confidence: Option<f64>,
    /// Default 4000.
    pub budget_tokens: Option<usize>,
    #[serde(rename = "workspaceRoot")]
    pub workspace_root: Option<String>,
}

/// One node of a chain.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Step {
    pub node_id: String,
    pub file: String,
    pub line: i64,
}

/// A node that depends on the target.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Dependent {
    pub node_id: String,
    pub label: String,
    pub kind: String,
    pub line: i64,
    /// Edges between it and the target (1: direct).
    pub depth: usize,
    /// The edge kind of its first hop: `calls`, `references`, `imports`, `inherits`,
    /// `implements`; `same_name`: an unresolved call of the target's name;
    /// `overrides`: a base method the next node overrides (its callers may run it).
    pub via: String,
    /// The member of a class it reaches when that is how it depends (`speak` for a
    /// caller of `Duck.speak` while assessing `Duck`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// The smallest edge confidence along its chain.
    pub confidence: f64,
    /// The chain from this node to the target, both ends included.
    pub path: Vec<Step>,
}

/// The dependents defined in one file, nearest first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileGroup {
    pub file: String,
    pub dependents: Vec<Dependent>,
}

/// A test that reaches the target.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TestHit {
    pub file: String,
    /// The test function (qualified name); absent when only the test file is known to
    /// reach the target (an import, or an anonymous Jest/Mocha callback).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    pub node_id: String,
    pub depth: usize,
    /// False when its chain has an edge below `min_confidence`.
    pub trusted: bool,
}

/// The lists of an impact answer, as cut to the budget.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ImpactLists {
    /// Dependents reached along trusted edges only, grouped by file (files in order of
    /// their nearest dependent).
    pub files: Vec<FileGroup>,
    /// Dependents reached only through an edge below `min_confidence`: possible, not
    /// certain.
    pub possible: Vec<FileGroup>,
    /// The tests that reach the target, most direct first.
    pub tests: Vec<TestHit>,
    pub dependents_total: usize,
    pub possible_total: usize,
    pub tests_total: usize,
    /// True when the lists were cut to fit `budget_tokens`.
    pub truncated: bool,
    /// How many dependents, possible dependents and tests the cut left out.
    pub left_out: usize,
    /// How to get the rest, when truncated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// When nothing depends on the target through a trusted edge: what this answer
    /// cannot see, so that an empty list is not read as "safe to change".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Target names called at over 200 unresolved sites (name → sites): not matched
    /// by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub name_only_skipped: BTreeMap<String, usize>,
}

/// [`ImpactLists::note`] for an empty `files` list.
pub const NO_DEPENDENTS_NOTE: &str = "no call, value-use, import or base-class edge at least min_confidence confident reaches it. Not seen by the index: values passed on through a variable or parameter (only the place that names the function is linked to it), decorators, uses as a value in Rust, Go, Java and C/C++, lookups by string (getattr, registries, reflection) and calls or value uses the resolution rules left unresolved (query_index: SELECT * FROM unresolved_refs WHERE name = 'NAME'); the possible list holds the weaker guesses and those unresolved calls of its name";

/// The answer of `get_impact`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ImpactAnswer {
    pub target: String,
    pub target_kind: String,
    pub depth: usize,
    pub min_confidence: f64,
    #[serde(flatten)]
    pub lists: ImpactLists,
    /// Tokens of this answer (cl100k_base).
    pub tokens: usize,
}

/// The result of the two walks, before cutting.
#[derive(Debug, Default)]
pub struct Impact {
    pub trusted: Vec<Dependent>,
    pub possible: Vec<Dependent>,
    pub tests: Vec<TestHit>,
    /// Names of the target whose open call sites were too many to list as name-only
    /// candidates ([`MAX_NAME_CANDIDATES`]).
    pub names_skipped: Vec<SkippedName>,
}

/// A name of the target called at more open call sites than [`MAX_NAME_CANDIDATES`]:
/// its name-only candidates are not listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedName {
    pub name: String,
    /// Open call sites of that name in the target's language family.
    pub call_sites: usize,
}

/// Whether a method is called by the language rather than by name: a Python special
/// method (`__init__`, `__next__`, `__eq__`), a JS/TS `constructor`, or a Java/C++
/// constructor (named like its class).
fn implicitly_called(n: &crate::graph::symbol_graph::SymbolNode) -> bool {
    n.kind == "method"
        && ((n.name.len() > 4 && n.name.starts_with("__") && n.name.ends_with("__"))
            || n.name == "constructor"
            || n.qualified_name
                .rsplit("::")
                .nth(1)
                .is_some_and(|class| class == n.name))
}

/// The nodes a target stands for: itself; a class-like node's members; a file's
/// every node; for a constructor or special method, its class too (without the
/// class's other members).
pub fn target_nodes(g: &SymbolGraph, ix: NodeIndex) -> Vec<NodeIndex> {
    let n = g.node(ix);
    let mut out = vec![ix];
    if n.kind == "file" {
        if let Some(all) = by_path(g).get(&n.path) {
            out.extend(all.iter().copied());
        }
    } else if is_type_kind(&n.kind) {
        out.extend(members(g, ix));
    } else if implicitly_called(n) {
        // A constructor or special method runs wherever its class is built or used
        // through syntax (`Foo()`, `for x in foo`, `a + b`): the class's own
        // dependents (constructor calls, subclasses) are its callers.
        out.extend(classes_of(g, ix));
    }
    out.sort();
    out.dedup();
    out
}

/// The class-like nodes that contain `ix` directly.
fn classes_of(g: &SymbolGraph, ix: NodeIndex) -> Vec<NodeIndex> {
    g.graph
        .edges_directed(ix, Direction::Incoming)
        .filter(|e| e.weight().kind == EdgeKind::Contains && is_type_kind(&g.node(e.source()).kind))
        .map(|e| e.source())
        .collect()
}

/// How a node was reached by one walk.
#[derive(Clone, Copy)]
struct Reach {
    depth: usize,
    /// The node it points to on the way to the target, the hop, and the member of that
    /// node's class it reached (when it reached a member).
    next: Option<(NodeIndex, Via, Option<NodeIndex>)>,
    confidence: f32,
}

/// One hop of a chain: an edge, or an unresolved call of the target's name.
#[derive(Clone, Copy)]
enum Via {
    Edge(EdgeKind),
    /// A call site no rule resolved that calls a name of the target (a name-only
    /// candidate: `possible_calls`). Confidence 0.
    SameName,
    /// A base-class method that the node it points to overrides: the calls of the
    /// base method on an instance of the subclass run the override. Confidence
    /// [`OVERRIDE_CONFIDENCE`].
    Overridden,
}

impl Via {
    fn name(self) -> &'static str {
        match self {
            Via::Edge(kind) => kind.name(),
            Via::SameName => "same_name",
            Via::Overridden => "overrides",
        }
    }
}

/// The confidence of the hop from an overriding method to the base method it
/// overrides: a caller of the base method runs the override only when its receiver is
/// an instance of the subclass, which the index does not know (so such callers are
/// `possible`).
pub const OVERRIDE_CONFIDENCE: f32 = 0.5;

/// For each method of a class, the methods of the same name it overrides: in each
/// line of its bases (through `inherits` and `implements` edges, breadth first), the
/// nearest base that has one. Built once per snapshot. Class hierarchy analysis as in
/// Dean, Grove and Chambers, "Optimization of Object-Oriented Programs Using Static
/// Class Hierarchy Analysis" (ECOOP 1995), upward only.
fn overridden(g: &SymbolGraph) -> Arc<HashMap<NodeIndex, Vec<NodeIndex>>> {
    g.memo("impact:overridden", || {
        let bases = |c: NodeIndex| -> Vec<NodeIndex> {
            g.graph
                .edges_directed(c, Direction::Outgoing)
                .filter(|e| matches!(e.weight().kind, EdgeKind::Inherits | EdgeKind::Implements))
                .map(|e| e.target())
                .filter(|&b| is_type_kind(&g.node(b).kind))
                .collect()
        };
        // Each class's methods, read once (a base is asked for every method of every
        // subclass).
        let mut by_class: HashMap<NodeIndex, Vec<NodeIndex>> = HashMap::new();
        let mut methods = |c: NodeIndex| -> Vec<NodeIndex> {
            by_class
                .entry(c)
                .or_insert_with(|| {
                    members(g, c)
                        .into_iter()
                        .filter(|&m| g.node(m).kind == "method")
                        .collect()
                })
                .clone()
        };
        let mut out: HashMap<NodeIndex, Vec<NodeIndex>> = HashMap::new();
        for class in g.graph.node_indices() {
            if !is_type_kind(&g.node(class).kind) {
                continue;
            }
            let direct = bases(class);
            if direct.is_empty() {
                continue;
            }
            for m in methods(class) {
                let name = &g.node(m).name;
                let mut found = Vec::new();
                let mut seen: HashSet<NodeIndex> = HashSet::from([class]);
                let mut queue: VecDeque<NodeIndex> = direct.iter().copied().collect();
                while let Some(b) = queue.pop_front() {
                    if !seen.insert(b) {
                        continue;
                    }
                    match methods(b).into_iter().find(|&bm| &g.node(bm).name == name) {
                        Some(bm) => found.push(bm),
                        None => queue.extend(bases(b)),
                    }
                }
                if !found.is_empty() {
                    found.sort();
                    out.insert(m, found);
                }
            }
        }
        out
    })
}

/// The call sites no rule resolved (`unresolved` or `ambiguous`), by called name: the
/// name-only candidates of a target. Read once per index generation.
#[derive(Debug, Default)]
pub struct OpenCalls {
    /// The generation of the rows; used only with a graph of the same generation.
    pub generation: i64,
    /// Called name → the calling nodes' ids, one per call site.
    by_name: HashMap<String, Vec<i64>>,
}

impl OpenCalls {
    /// Groups the rows by called name.
    pub fn from_rows(rows: crate::store::graph::OpenCallRows) -> OpenCalls {
        let mut by_name: HashMap<String, Vec<i64>> = HashMap::new();
        for (src, name) in rows.calls {
            by_name.entry(name).or_default().push(src);
        }
        OpenCalls {
            generation: rows.generation,
            by_name,
        }
    }

    /// The name-only callers of the functions, methods and classes among `targets`:
    /// `(caller, target)` for each open call site of a target's name in a file of the
    /// same language family (TypeScript with JavaScript, C++ with C), the target itself
    /// left out; sorted, each pair once. A name with more than [`MAX_NAME_CANDIDATES`]
    /// such sites gives none and is returned apart, with its count.
    fn callers_of(
        &self,
        g: &SymbolGraph,
        targets: &[NodeIndex],
    ) -> (Vec<(NodeIndex, NodeIndex)>, Vec<SkippedName>) {
        fn family(language: Option<&str>) -> Option<&str> {
            match language {
                Some("typescript" | "tsx") => Some("javascript"),
                Some("cpp") => Some("c"),
                other => other,
            }
        }
        let mut out = Vec::new();
        let mut skipped: Vec<SkippedName> = Vec::new();
        for &t in targets {
            let n = g.node(t);
            if !matches!(n.kind.as_str(), "function" | "method" | "class" | "struct") {
                continue;
            }
            let callers: Vec<NodeIndex> = self
                .by_name
                .get(&n.name)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter_map(|&src| g.by_id(src))
                .filter(|&caller| {
                    caller != t
                        && family(g.node(caller).language.as_deref())
                            == family(n.language.as_deref())
                })
                .collect();
            if callers.len() > MAX_NAME_CANDIDATES {
                if !skipped.iter().any(|s| s.name == n.name) {
                    skipped.push(SkippedName {
                        name: n.name.clone(),
                        call_sites: callers.len(),
                    });
                }
                continue;
            }
            out.extend(callers.into_iter().map(|caller| (caller, t)));
        }
        out.sort();
        out.dedup();
        skipped.sort_by(|a, b| a.name.cmp(&b.name));
        (out, skipped)
    }
}

/// Breadth-first walk against the edges (calls, references, imports, inherits,
/// implements) from `seeds`, along edges at least `min` confident, to `depth` hops. A
/// class-like node reached stands for its members too; a constructor or special method
/// reached stands for its class too (not for the class's other members); a method
/// reached leads to the base methods it overrides ([`overridden`], confidence
/// [`OVERRIDE_CONFIDENCE`]), whose callers may run it. `name_links` (`(caller, seed)`:
/// name-only candidates) join at depth 1 after every edge from the seeds, so a caller
/// linked by an edge keeps that edge. Cost: O(reached nodes + their in-edges), after
/// the overrides map is built once per snapshot.
fn walk(
    g: &SymbolGraph,
    seeds: &[NodeIndex],
    depth: usize,
    min: f32,
    name_links: &[(NodeIndex, NodeIndex)],
) -> HashMap<NodeIndex, Reach> {
    let mut reached: HashMap<NodeIndex, Reach> = HashMap::new();
    let mut queue: VecDeque<NodeIndex> = VecDeque::new();
    for &s in seeds {
        reached.insert(
            s,
            Reach {
                depth: 0,
                next: None,
                confidence: 1.0,
            },
        );
        queue.push_back(s);
    }
    let mut names = (depth > 0).then_some(name_links);
    let overrides = overridden(g);
    loop {
        let next = queue.pop_front();
        // The seeds are done: the name-only callers join, behind the edges' callers.
        if next.is_none_or(|u| reached[&u].depth > 0) {
            for &(caller, seed) in names.take().unwrap_or_default() {
                if let std::collections::hash_map::Entry::Vacant(slot) = reached.entry(caller) {
                    slot.insert(Reach {
                        depth: 1,
                        next: Some((seed, Via::SameName, None)),
                        confidence: 0.0,
                    });
                    queue.push_back(caller);
                }
            }
        }
        let Some(u) = next.or_else(|| queue.pop_front()) else {
            break;
        };
        let r = reached[&u];
        if r.depth >= depth {
            continue;
        }
        let mut sinks = vec![(u, None)];
        if r.depth > 0 && is_type_kind(&g.node(u).kind) {
            sinks.extend(members(g, u).into_iter().map(|m| (m, Some(m))));
        }
        // A constructor or special method reached on the way runs wherever its class
        // is built or used through syntax, as for a target (see `target_nodes`).
        if r.depth > 0 && implicitly_called(g.node(u)) {
            sinks.extend(classes_of(g, u).into_iter().map(|c| (c, None)));
        }
        // A method stands for the base methods it overrides: their callers may run it.
        // Each is reached as a node of its own (via `overrides`), so the chain shows it.
        if let Some(bases) = overrides.get(&u) {
            for &b in bases {
                if OVERRIDE_CONFIDENCE < min || reached.contains_key(&b) {
                    continue;
                }
                reached.insert(
                    b,
                    Reach {
                        depth: r.depth + 1,
                        next: Some((u, Via::Overridden, None)),
                        confidence: r.confidence.min(OVERRIDE_CONFIDENCE),
                    },
                );
                queue.push_back(b);
            }
        }
        for (sink, member) in sinks {
            let mut edges: Vec<_> = g
                .graph
                .edges_directed(sink, Direction::Incoming)
                .filter(|e| e.weight().kind != EdgeKind::Contains && e.weight().confidence >= min)
                .map(|e| (e.source(), e.weight().kind, e.weight().confidence))
                .chain(
                    g.value_users(sink)
                        .iter()
                        .filter(|(_, e)| e.confidence >= min)
                        .map(|(src, e)| (*src, e.kind, e.confidence)),
                )
                .collect();
            edges.sort_by_key(|e| e.0);
            for (src, kind, conf) in edges {
                if reached.contains_key(&src) {
                    continue;
                }
                reached.insert(
                    src,
                    Reach {
                        depth: r.depth + 1,
                        next: Some((u, Via::Edge(kind), member)),
                        confidence: r.confidence.min(conf),
                    },
                );
                queue.push_back(src);
            }
        }
    }
    reached
}

/// The dependent `ix` as reached.
fn dependent(g: &SymbolGraph, reached: &HashMap<NodeIndex, Reach>, ix: NodeIndex) -> Dependent {
    let n = g.node(ix);
    let r = reached[&ix];
    let mut path = vec![];
    let mut at = Some(ix);
    let (mut via, mut member) = (String::new(), None);
    while let Some(x) = at {
        let xn = g.node(x);
        path.push(Step {
            node_id: xn.key.clone(),
            file: xn.path.clone(),
            line: xn.start_line,
        });
        let next = reached.get(&x).and_then(|r| r.next);
        if x == ix {
            if let Some((_, hop, m)) = next {
                via = hop.name().to_string();
                member = m.map(|m| g.node(m).name.clone());
            }
        }
        at = next.map(|(to, _, _)| to);
    }
    Dependent {
        node_id: n.key.clone(),
        label: n.label(),
        kind: n.kind.clone(),
        line: n.start_line,
        depth: r.depth,
        via,
        member,
        confidence: (f64::from(r.confidence) * 1000.0).round() / 1000.0,
        path,
    }
}

/// Reads the attribute lines above Rust and Java functions and the decorators above
/// Python ones, one file read per file.
struct Attributes<'a> {
    root: Option<&'a Path>,
    /// Each file's lines, read once (`None`: unreadable).
    files: HashMap<String, Option<Vec<String>>>,
    /// Decorators by (path, line), read once: fixture lookups ask for the same tests
    /// again.
    decorated: HashMap<(String, i64), Vec<String>>,
    /// [`Attributes::runs_tests`] per file.
    runs: HashMap<String, bool>,
}

impl Attributes<'_> {
    fn lines(&mut self, path: &str) -> Option<&[String]> {
        let root = self.root?;
        self.files
            .entry(path.to_string())
            .or_insert_with(|| {
                crate::walk::read_stored_text(root, path, crate::walk::MAX_TOOL_READ)
                    .ok()
                    .map(|s| s.lines().map(str::to_string).collect())
            })
            .as_deref()
    }

    fn above(&mut self, path: &str, line: i64) -> String {
        if !matches!(
            Language::from_path(path),
            Some(Language::Rust | Language::Java)
        ) {
            return String::new();
        }
        self.lines(path)
            .map(|l| attributes_above(l, line.max(1) as usize))
            .unwrap_or_default()
    }

    /// Whether test file `path` runs tests: a JavaScript/TypeScript file that is a test
    /// file only by its directory must say so in its text (fixtures and helpers live
    /// there too); any other test file, or one that cannot be read, does.
    fn runs_tests(&mut self, path: &str) -> bool {
        if !js_test_file_by_directory_only(path) {
            return true;
        }
        if let Some(&known) = self.runs.get(path) {
            return known;
        }
        let runs = self.lines(path).is_none_or(runs_js_tests);
        self.runs.insert(path.to_string(), runs);
        runs
    }

    /// The decorators above a Python definition (none when the root is not read).
    fn decorators(&mut self, path: &str, line: i64) -> Vec<String> {
        let key = (path.to_string(), line);
        if let Some(found) = self.decorated.get(&key) {
            return found.clone();
        }
        let found = self
            .lines(path)
            .map(|l| python_decorators_above(l, line.max(1) as usize))
            .unwrap_or_default();
        self.decorated.insert(key, found.clone());
        found
    }
}

/// The runs of a C function that the Linux kernel's kselftest harness defines: a
/// test's own, under its runner's name (`fixture.name`, `global.name`), or for a
/// fixture's set-up or teardown every test of that fixture in its file, one hop on.
/// `None` for any other node.
fn kselftest_runs(g: &SymbolGraph, ix: NodeIndex) -> Option<Vec<python_tests::TestRun>> {
    let n = g.node(ix);
    if n.language.as_deref() != Some("c") || n.kind != "function" {
        return None;
    }
    let signature = n.signature.as_deref()?;
    if let Some(id) = kselftest_id(signature) {
        return Some(vec![python_tests::TestRun {
            node: ix,
            id,
            hops: 0,
        }]);
    }
    let prefix = format!("{}.", kselftest_fixture(signature)?);
    let runs = python_tests::functions_in_files(g, &[n.path.as_str()])
        .into_iter()
        .filter_map(|t| {
            let id = g.node(t).signature.as_deref().and_then(kselftest_id)?;
            id.starts_with(&prefix).then_some(python_tests::TestRun {
                node: t,
                id,
                hops: 1,
            })
        })
        .collect();
    Some(runs)
}

/// Whether node `ix` is a test function.
fn is_test_node(g: &SymbolGraph, ix: NodeIndex, attrs: &mut Attributes) -> bool {
    let n = g.node(ix);
    matches!(n.kind.as_str(), "function" | "method")
        && is_test_function(
            &n.path,
            &n.name,
            &n.qualified_name,
            &attrs.above(&n.path, n.start_line),
        )
}

/// The impact of `seeds` (each standing for what [`target_nodes`] says): the walks
/// along trusted edges and along every edge plus the name-only candidates of `open`
/// (when it is of the graph's generation), the dependents within `depth`, and the
/// tests among what the walks reach within `depth.max(TEST_DEPTH)` (plus seeds that
/// are tests themselves, at depth 0). `root` is read for test attributes
/// (Rust, Java) and Python decorators; `None` reads nothing. Cost: two walks,
/// O(reached + in-edges).
pub fn impact(
    g: &SymbolGraph,
    root: Option<&Path>,
    seeds: &[NodeIndex],
    depth: usize,
    min: f64,
    open: Option<&OpenCalls>,
) -> Impact {
    let mut start: Vec<NodeIndex> = seeds.iter().flat_map(|&s| target_nodes(g, s)).collect();
    start.sort();
    start.dedup();
    let (name_links, names_skipped) = open
        .filter(|o| o.generation == g.generation)
        .map(|o| o.callers_of(g, &start))
        .unwrap_or_default();
    // One walk of each kind to the test depth: a breadth-first walk reaches every node
    // within `depth` as a walk cut at `depth` would (same hops, same chains), so the
    // lists keep what is within `depth` and the tests come from all of it.
    let reach = depth.max(TEST_DEPTH);
    let strong = walk(g, &start, reach, min as f32, &[]);
    let all = walk(g, &start, reach, f32::MIN, &name_links);
    let order = |v: &mut Vec<Dependent>| {
        v.sort_by(|a, b| {
            a.depth
                .cmp(&b.depth)
                .then(a.path[0].file.cmp(&b.path[0].file))
                .then(a.line.cmp(&b.line))
                .then(a.node_id.cmp(&b.node_id))
        })
    };
    let mut trusted: Vec<Dependent> = strong
        .iter()
        .filter(|(_, r)| r.depth > 0 && r.depth <= depth)
        .map(|(&ix, _)| dependent(g, &strong, ix))
        .collect();
    let mut possible: Vec<Dependent> = all
        .iter()
        .filter(|(ix, r)| r.depth > 0 && r.depth <= depth && !strong.contains_key(ix))
        .map(|(&ix, _)| dependent(g, &all, ix))
        .collect();
    order(&mut trusted);
    order(&mut possible);

    let mut attrs = Attributes {
        root,
        files: HashMap::new(),
        decorated: HashMap::new(),
        runs: HashMap::new(),
    };
    // One entry per test run (file, runner's name), the most direct and trusted kept.
    let mut runs: BTreeMap<(String, String), TestHit> = BTreeMap::new();
    let mut file_hits: BTreeMap<String, TestHit> = BTreeMap::new();
    let better = |new: &TestHit, old: &TestHit| {
        (new.trusted && !old.trusted) || (new.trusted == old.trusted && new.depth < old.depth)
    };
    // Everything reached, trusted first, each part nearest first (node order breaks
    // ties, so the kept hit of a run does not depend on hash order).
    let mut candidates: Vec<(NodeIndex, usize, bool)> = start
        .iter()
        .map(|&ix| (ix, 0usize, true))
        .chain(
            strong
                .iter()
                .filter(|(_, r)| r.depth > 0)
                .map(|(&ix, r)| (ix, r.depth, true)),
        )
        .chain(
            all.iter()
                .filter(|(ix, r)| r.depth > 0 && !strong.contains_key(ix))
                .map(|(&ix, r)| (ix, r.depth, false)),
        )
        .collect();
    candidates.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.cmp(&b.1)).then(a.0.cmp(&b.0)));
    let mut seen: HashSet<NodeIndex> = HashSet::new();
    // Files whose reached nodes are tests, set-ups or fixtures (their runs may be in
    // other files): listed by their runs, not as a whole file.
    let mut files_with_runs: HashSet<String> = HashSet::new();
    for (ix, d, ok) in candidates {
        if !seen.insert(ix) {
            continue;
        }
        let n = g.node(ix);
        let mut decorators = |x: NodeIndex| {
            let xn = g.node(x);
            attrs.decorators(&xn.path, xn.start_line)
        };
        let found: Vec<python_tests::TestRun> =
            match python_tests::runs(g, ix, &mut decorators).or_else(|| kselftest_runs(g, ix)) {
                Some(found) => found,
                None if is_test_node(g, ix, &mut attrs) => vec![python_tests::TestRun {
                    node: ix,
                    id: n.qualified_name.clone(),
                    hops: 0,
                }],
                None => Vec::new(),
            };
        if !found.is_empty() {
            files_with_runs.insert(n.path.clone());
        }
        for run in found {
            let rn = g.node(run.node);
            let hit = TestHit {
                file: rn.path.clone(),
                test: Some(run.id.clone()),
                node_id: rn.key.clone(),
                depth: d + run.hops,
                trusted: ok,
            };
            match runs.entry((rn.path.clone(), run.id)) {
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(hit);
                }
                std::collections::btree_map::Entry::Occupied(mut e) => {
                    if better(&hit, e.get()) {
                        e.insert(hit);
                    }
                }
            }
        }
        if is_test_file(&n.path) && attrs.runs_tests(&n.path) {
            let hit = TestHit {
                file: n.path.clone(),
                test: None,
                node_id: n.key.clone(),
                depth: d,
                trusted: ok,
            };
            let e = file_hits
                .entry(n.path.clone())
                .or_insert_with(|| hit.clone());
            if better(&hit, e) {
                *e = hit;
            }
        }
    }
    files_with_runs.extend(runs.keys().map(|(file, _)| file.clone()));
    let file_only: Vec<TestHit> = file_hits
        .into_values()
        .filter(|h| !files_with_runs.contains(&h.file))
        .collect();
    let mut tests: Vec<TestHit> = runs.into_values().chain(file_only).collect();
    // Trusted tests first (the possible ones can be many: name-only candidates), each
    // part nearest first.
    tests.sort_by(|a, b| {
        b.trusted
            .cmp(&a.trusted)
            .then(a.depth.cmp(&b.depth))
            .then(a.file.cmp(&b.file))
            .then(a.test.cmp(&b.test))
    });
    Impact {
        trusted,
        possible,
        tests,
        names_skipped,
    }
}

/// Dependents grouped by file, files in order of their nearest dependent.
fn group(list: &[Dependent]) -> Vec<FileGroup> {
    let mut groups: Vec<FileGroup> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for d in list {
        let file = d.path[0].file.clone();
        let i = *at.entry(file.clone()).or_insert_with(|| {
            groups.push(FileGroup {
                file,
                dependents: Vec::new(),
            });
            groups.len() - 1
        });
        groups[i].dependents.push(d.clone());
    }
    groups
}

impl Impact {
    /// The lists with at most `limit` entries each, saying what was left out; `hint`
    /// tells how to get the rest.
    pub fn lists(&self, limit: usize, hint: &str) -> ImpactLists {
        let shown = |n: usize| n.min(limit);
        let left_out = self.trusted.len() - shown(self.trusted.len()) + self.possible.len()
            - shown(self.possible.len())
            + self.tests.len()
            - shown(self.tests.len());
        ImpactLists {
            files: group(&self.trusted[..shown(self.trusted.len())]),
            possible: group(&self.possible[..shown(self.possible.len())]),
            tests: self.tests[..shown(self.tests.len())].to_vec(),
            dependents_total: self.trusted.len(),
            possible_total: self.possible.len(),
            tests_total: self.tests.len(),
            truncated: left_out > 0,
            left_out,
            hint: (left_out > 0).then(|| hint.to_string()),
            note: self
                .trusted
                .is_empty()
                .then(|| NO_DEPENDENTS_NOTE.to_string()),
            name_only_skipped: self
                .names_skipped
                .iter()
                .map(|n| (n.name.clone(), n.call_sites))
                .collect(),
        }
    }

    /// The longest of the three lists.
    pub fn longest(&self) -> usize {
        self.trusted
            .len()
            .max(self.possible.len())
            .max(self.tests.len())
    }
}

/// The fewest tokens one listed item (a dependent or a test, as JSON) takes: a bound
/// on how many items a budget can hold.
const MIN_ITEM_TOKENS: usize = 8;

/// The largest `limit ≤ max` whose answer `build(limit)` fits `budget` tokens
/// (cl100k_base of its JSON; the answer must grow with `limit`); returns it with its
/// token count. A limit above `budget / MIN_ITEM_TOKENS` cannot fit, so the search
/// starts there and bisects: O(log budget) answers are built and counted, each about
/// the budget's size, however long the lists are (counting a 26,000-dependent answer
/// whole took seconds).
///
/// Errors: `budget_too_small` when even `build(0)` does not fit.
pub fn fit_typed<T: Serialize>(
    budget: usize,
    max: usize,
    build: impl Fn(usize) -> T,
) -> Result<(T, usize), ToolError> {
    let measure = |limit: usize| -> Result<(T, usize), ToolError> {
        let v = build(limit);
        let text = serde_json::to_string(&v).map_err(|e| ToolError::Internal(e.to_string()))?;
        Ok((v, count_tokens(&text) + 8))
    };
    let hi = max.min(budget / MIN_ITEM_TOKENS + 1);
    let top = measure(hi)?;
    if top.1 <= budget {
        return Ok(top);
    }
    let zero = measure(0)?;
    if zero.1 > budget {
        let tokens = zero.1;
        return Err(ToolError::BudgetTooSmall(format!(
            "the smallest answer takes {tokens} tokens (cl100k_base); raise budget_tokens to at least {tokens}"
        )));
    }
    // `lo` fits, `hi` does not.
    let (mut lo, mut hi, mut best) = (0, hi, zero);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let m = measure(mid)?;
        if m.1 <= budget {
            (lo, best) = (mid, m);
        } else {
            hi = mid;
        }
    }
    Ok(best)
}

/// Checks `depth` against [`MAX_DEPTH`].
///
/// Errors: `invalid_argument` for 0 or above the maximum.
pub fn depth_arg(depth: Option<usize>) -> Result<usize, ToolError> {
    match depth.unwrap_or(DEFAULT_DEPTH) {
        d @ 1..=MAX_DEPTH => Ok(d),
        d => Err(ToolError::InvalidArgument(format!(
            "depth {d} is outside 1-{MAX_DEPTH}; 3 (the default) reaches callers of callers of callers"
        ))),
    }
}

/// `get_impact`: what depends on `target` within `depth` edges (trusted and
/// possible), grouped by file, and the tests that reach it; cut to `budget_tokens`.
///
/// Errors: `not_found` / `invalid_argument` for the target, `invalid_argument` for
/// `depth` or `min_confidence`, `budget_too_small`.
pub fn get_impact(
    whole: &Arc<SymbolGraph>,
    open: Option<&OpenCalls>,
    root: Option<&Path>,
    args: &ImpactArgs,
) -> Result<ImpactAnswer, ToolError> {
    let min = min_confidence(args.min_confidence)?;
    let depth = depth_arg(args.depth)?;
    let g = &**whole;
    let ix = symbol_arg(g, "target", &args.target)?;
    let found = impact(g, root, &[ix], depth, min, open);
    let hint = format!(
        "raise budget_tokens, or lower depth (now {depth}), or assess a narrower target (one symbol instead of a file)"
    );
    let n = g.node(ix);
    let (mut answer, tokens) = fit_typed(
        args.budget_tokens.unwrap_or(DEFAULT_BUDGET),
        found.longest(),
        |limit| ImpactAnswer {
            target: n.key.clone(),
            target_kind: n.kind.clone(),
            depth,
            min_confidence: min,
            lists: found.lists(limit, &hint),
            tokens: 0,
        },
    )?;
    if let Some(note) = answer.lists.note.as_mut() {
        *note = note.replace("'NAME'", &format!("'{}'", n.name.replace('\'', "''")));
    }
    answer.tokens = tokens;
    Ok(answer)
}

/// The lists as text for people: dependents by file with depth and chain, possible
/// ones apart, then the tests.
pub fn render_text(l: &ImpactLists) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let groups = |out: &mut String, title: &str, gs: &[FileGroup], total: usize| {
        let _ = writeln!(out, "{title} ({total}):");
        for fg in gs {
            let _ = writeln!(out, "  {}", fg.file);
            for d in &fg.dependents {
                let chain: Vec<&str> = d.path.iter().map(|s| s.node_id.as_str()).collect();
                let member = d
                    .member
                    .as_deref()
                    .map(|m| format!(" [{m}]"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "    {}:{} {} depth {} via {}{member} ({})",
                    fg.file,
                    d.line,
                    d.label,
                    d.depth,
                    d.via,
                    chain.join(" -> ")
                );
            }
        }
    };
    groups(&mut out, "dependents", &l.files, l.dependents_total);
    groups(
        &mut out,
        "possible dependents (through edges below min_confidence, or calls of the same name no rule resolved)",
        &l.possible,
        l.possible_total,
    );
    let _ = writeln!(out, "tests ({}):", l.tests_total);
    for t in &l.tests {
        let _ = writeln!(
            out,
            "  {}{} depth {}{}",
            t.file,
            t.test
                .as_deref()
                .map(|n| format!("::{n}"))
                .unwrap_or_default(),
            t.depth,
            if t.trusted { "" } else { " (possible)" }
        );
    }
    for (name, sites) in &l.name_only_skipped {
        let _ = writeln!(
            out,
            "name-only candidates not listed: {sites} open call sites of `{name}`"
        );
    }
    if let Some(h) = &l.hint {
        let _ = writeln!(out, "truncated: {} left out; {h}", l.left_out);
    }
    if let Some(n) = &l.note {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::graph::{OpenCallRows, SymbolGraphRows, SymbolRow};

    fn function(id: i64, name: &str, path: &str, language: &str) -> SymbolRow {
        SymbolRow {
            id,
            key: format!("func:{path}::{name}"),
            kind: "function".into(),
            name: name.into(),
            qualified_name: name.into(),
            path: path.into(),
            language: Some(language.into()),
            start_line: 1,
            end_line: 2,
            signature: None,
        }
    }

    /// Target `get` (id 1) and `callers` functions calling `get` at an open call site,
    /// plus one TypeScript caller that never counts.
    fn graph_and_calls(callers: i64) -> (SymbolGraph, OpenCalls) {
        let mut rows = SymbolGraphRows {
            generation: 7,
            ..SymbolGraphRows::default()
        };
        rows.nodes.push(function(1, "get", "a.py", "python"));
        let mut calls = OpenCallRows {
            generation: 7,
            ..OpenCallRows::default()
        };
        for i in 0..callers {
            rows.nodes
                .push(function(10 + i, &format!("c{i}"), "b.py", "python"));
            calls.calls.push((10 + i, "get".into()));
        }
        rows.nodes.push(function(5, "t", "c.ts", "typescript"));
        calls.calls.push((5, "get".into()));
        // The target calling its own name is no candidate of itself.
        calls.calls.push((1, "get".into()));
        (SymbolGraph::from_rows(rows), OpenCalls::from_rows(calls))
    }

    /// `f0` called by `f1`, ..., each `f(i+1)` calling `fi`, up to `f(len-1)`, which is
    /// `test_chain` in `tests/test_chain.py` (a pytest test function).
    fn chain(len: i64) -> SymbolGraph {
        let mut rows = SymbolGraphRows::default();
        for i in 0..len {
            rows.nodes.push(if i == len - 1 {
                function(i, "test_chain", "tests/test_chain.py", "python")
            } else {
                function(i, &format!("f{i}"), "pkg/m.py", "python")
            });
            if i > 0 {
                rows.edges.push(crate::store::graph::SymbolEdgeRow {
                    src: i,
                    dst: i - 1,
                    kind: "calls".into(),
                    confidence: 0.99,
                    provenance: "scope".into(),
                    line: Some(1),
                });
            }
        }
        SymbolGraph::from_rows(rows)
    }

    #[test]
    fn tests_are_searched_to_the_test_depth_whatever_the_depth() {
        // The test is 6 calls above f0: depth 2 lists f1 and f2, and the test.
        let g = chain(7);
        let f0 = g.by_id(0).unwrap();
        let found = impact(&g, None, &[f0], 2, 0.97, None);
        let listed: Vec<&str> = found.trusted.iter().map(|d| d.node_id.as_str()).collect();
        assert_eq!(listed, ["func:pkg/m.py::f1", "func:pkg/m.py::f2"]);
        assert!(found.possible.is_empty());
        assert_eq!(found.tests.len(), 1);
        let t = &found.tests[0];
        assert_eq!(
            (t.file.as_str(), t.test.as_deref(), t.depth, t.trusted),
            ("tests/test_chain.py", Some("test_chain"), 6, true)
        );
        // One edge beyond the test depth: not listed.
        let g = chain(TEST_DEPTH as i64 + 2);
        let found = impact(&g, None, &[g.by_id(0).unwrap()], 3, 0.97, None);
        assert_eq!(found.trusted.len(), 3);
        assert!(found.tests.is_empty());
        // Exactly at the test depth: listed.
        let g = chain(TEST_DEPTH as i64 + 1);
        let found = impact(&g, None, &[g.by_id(0).unwrap()], 3, 0.97, None);
        assert_eq!(found.tests.len(), 1);
        assert_eq!(found.tests[0].depth, TEST_DEPTH);
    }

    #[test]
    fn a_caller_of_an_overridden_base_method_is_a_possible_dependent_of_the_override() {
        // Base.m (2) overridden by Sub.m (4), Sub inheriting Base; Other.m (6) shares
        // the name only. c (7) calls Base.m; test_c (8) calls c.
        let node = |id: i64, kind: &str, name: &str, qualified: &str, path: &str| SymbolRow {
            kind: kind.into(),
            qualified_name: qualified.into(),
            key: format!("{kind}:{path}::{qualified}"),
            ..function(id, name, path, "python")
        };
        let edge = |src: i64, dst: i64, kind: &str| crate::store::graph::SymbolEdgeRow {
            src,
            dst,
            kind: kind.into(),
            confidence: if kind == "contains" { 1.0 } else { 0.99 },
            provenance: "scope".into(),
            line: Some(1),
        };
        let rows = SymbolGraphRows {
            nodes: vec![
                node(1, "class", "Base", "Base", "pkg/a.py"),
                node(2, "method", "m", "Base::m", "pkg/a.py"),
                node(3, "class", "Sub", "Sub", "pkg/a.py"),
                node(4, "method", "m", "Sub::m", "pkg/a.py"),
                node(5, "class", "Other", "Other", "pkg/a.py"),
                node(6, "method", "m", "Other::m", "pkg/a.py"),
                node(7, "function", "c", "c", "pkg/b.py"),
                node(8, "function", "test_c", "test_c", "tests/test_b.py"),
            ],
            edges: vec![
                edge(1, 2, "contains"),
                edge(3, 4, "contains"),
                edge(5, 6, "contains"),
                edge(3, 1, "inherits"),
                edge(7, 2, "calls"),
                edge(8, 7, "calls"),
            ],
            generation: 1,
        };
        let g = SymbolGraph::from_rows(rows);
        let found = impact(&g, None, &[g.by_id(4).unwrap()], 3, 0.97, None);
        assert!(found.trusted.is_empty());
        let possible: Vec<(&str, usize, &str, f64)> = found
            .possible
            .iter()
            .map(|d| (d.node_id.as_str(), d.depth, d.via.as_str(), d.confidence))
            .collect();
        assert_eq!(
            possible,
            [
                ("method:pkg/a.py::Base::m", 1, "overrides", 0.5),
                ("function:pkg/b.py::c", 2, "calls", 0.5),
                ("function:tests/test_b.py::test_c", 3, "calls", 0.5),
            ]
        );
        assert_eq!(found.tests.len(), 1);
        assert_eq!(found.tests[0].test.as_deref(), Some("test_c"));
        assert!(!found.tests[0].trusted);
        // Downwards nothing: changing Base.m does not change what runs Sub.m.
        let found = impact(&g, None, &[g.by_id(2).unwrap()], 3, 0.97, None);
        let trusted: Vec<&str> = found.trusted.iter().map(|d| d.node_id.as_str()).collect();
        assert_eq!(
            trusted,
            ["function:pkg/b.py::c", "function:tests/test_b.py::test_c"]
        );
        assert!(found.possible.is_empty());
        // A name shared without inheritance is no override.
        let found = impact(&g, None, &[g.by_id(6).unwrap()], 3, 0.0, None);
        assert!(found.trusted.is_empty() && found.possible.is_empty());
    }

    #[test]
    fn fit_typed_finds_the_largest_limit_that_fits() {
        // Each item takes more than MIN_ITEM_TOKENS, as dependents and tests do.
        let items: Vec<String> = (0..5000)
            .map(|i| format!("item number {i} of a long list of listed items"))
            .collect();
        let build = |limit: usize| items[..limit.min(items.len())].to_vec();
        for budget in [40, 100, 333, 1000, 4000] {
            let (v, tokens) = fit_typed(budget, items.len(), build).unwrap();
            assert!(tokens <= budget, "{tokens} > {budget}");
            let one_more = build(v.len() + 1);
            let over = count_tokens(&serde_json::to_string(&one_more).unwrap()) + 8;
            assert!(
                over > budget,
                "{} items fit {budget}, {} too",
                v.len(),
                v.len() + 1
            );
        }
        // Everything fits: all of it.
        assert_eq!(fit_typed(1_000_000, 10, build).unwrap().0.len(), 10);
        assert!(matches!(
            fit_typed(3, 10, build),
            Err(ToolError::BudgetTooSmall(_))
        ));
    }

    #[test]
    fn name_only_candidates_up_to_the_cap_then_counted_apart() {
        let (g, open) = graph_and_calls(MAX_NAME_CANDIDATES as i64);
        let target = g.by_id(1).unwrap();
        let (links, skipped) = open.callers_of(&g, &[target]);
        assert_eq!(links.len(), MAX_NAME_CANDIDATES);
        assert!(links
            .iter()
            .all(|&(caller, t)| t == target && g.node(caller).path == "b.py"));
        assert!(skipped.is_empty());
        let found = impact(&g, None, &[target], 3, 0.97, Some(&open));
        assert!(found.trusted.is_empty());
        assert_eq!(found.possible.len(), MAX_NAME_CANDIDATES);
        assert!(found
            .possible
            .iter()
            .all(|d| d.via == "same_name" && d.confidence == 0.0 && d.depth == 1));

        let (g, open) = graph_and_calls(MAX_NAME_CANDIDATES as i64 + 1);
        let target = g.by_id(1).unwrap();
        let (links, skipped) = open.callers_of(&g, &[target]);
        assert!(links.is_empty());
        assert_eq!(
            skipped,
            vec![SkippedName {
                name: "get".into(),
                call_sites: MAX_NAME_CANDIDATES + 1
            }]
        );
        let found = impact(&g, None, &[target], 3, 0.97, Some(&open));
        assert!(found.possible.is_empty());
        assert_eq!(
            found.lists(10, "").name_only_skipped,
            BTreeMap::from([("get".to_string(), MAX_NAME_CANDIDATES + 1)])
        );
        // Open call sites of another generation are not used.
        let mut stale = open;
        stale.generation = 6;
        assert!(impact(&g, None, &[target], 3, 0.97, Some(&stale))
            .names_skipped
            .is_empty());
    }
}
