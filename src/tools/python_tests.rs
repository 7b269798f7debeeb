//! Python tests as pytest and unittest run them, for the test lists of impact answers.
//!
//! A function of a Python test file that the impact walk reaches stands for the test
//! runs that execute it, named as the runner names them (`Class::test_name`, the part of
//! a pytest node id after the file):
//! - a test method runs under every test class that inherits it without overriding it
//!   (a mixin's `test_x` runs as `TestBytes::test_x` and `TestText::test_x`); its own
//!   class is listed too when the runner collects it: its name starts with `Test`, or
//!   no class of the index inherits from it (a `unittest.TestCase` subclass of any
//!   name);
//! - a set-up or tear-down method (`setUp`, `tearDown`, `setUpClass`, `setup_method`,
//!   ...) runs with every test of its class and of the classes inheriting it; a
//!   module's `setup_module`/`setUpModule`/`setup_function` (and tear-downs) with every
//!   test of its file;
//! - a pytest fixture (a function decorated `@pytest.fixture`, `@fixture`,
//!   `@pytest_asyncio.fixture`, called `name=` when the decorator says so) runs with the
//!   tests that request it: a parameter of that name, or `@pytest.mark.usefixtures`
//!   naming it, or every test when it is `autouse=True`; in the fixture's file, or, for
//!   a `conftest.py`, in the test files under its directory. A fixture requesting it
//!   passes it on to the tests that request that fixture.
//!
//! Decorators are read from the source lines above a definition (the index records
//! none). Not seen: fixtures overridden by name in a nearer scope, `usefixtures` on a
//! class, `pytest_generate_tests` and plugins' fixtures.

use std::collections::{HashMap, HashSet};

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use super::members::{by_path, members};
use super::test_files::is_test_file;
use crate::graph::symbol_graph::EdgeKind;
use crate::graph::SymbolGraph;

/// One test run: the node whose code runs as the test, the runner's name for it
/// (qualified, `TestBytes::test_getvalue`) and how many hops beyond the reached node
/// it is (0: the reached node is the test; 1: the test runs a reached set-up method or
/// fixture; more along a chain of fixtures).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRun {
    pub node: NodeIndex,
    pub id: String,
    pub hops: usize,
}

/// Set-up and tear-down methods of a test class (unittest and pytest's xunit style).
const CLASS_FIXTURES: &[&str] = &[
    "setUp",
    "tearDown",
    "setUpClass",
    "tearDownClass",
    "asyncSetUp",
    "asyncTearDown",
    "setup_method",
    "teardown_method",
    "setup_class",
    "teardown_class",
];

/// Set-up and tear-down functions of a test module.
const MODULE_FIXTURES: &[&str] = &[
    "setUpModule",
    "tearDownModule",
    "setup_module",
    "teardown_module",
    "setup_function",
    "teardown_function",
];

/// Deepest chain of fixtures followed.
const MAX_FIXTURE_CHAIN: usize = 8;

/// The test runs node `ix` stands for when it is a function of a Python test file that
/// is a test, a set-up method or a fixture; `None` for any other node. `decorators`
/// gives the decorator lines above a node (see
/// [`super::test_files::python_decorators_above`]).
pub fn runs(
    g: &SymbolGraph,
    ix: NodeIndex,
    decorators: &mut dyn FnMut(NodeIndex) -> Vec<String>,
) -> Option<Vec<TestRun>> {
    let n = g.node(ix);
    if n.language.as_deref() != Some("python")
        || !matches!(n.kind.as_str(), "function" | "method")
        || !is_test_file(&n.path)
    {
        return None;
    }
    if let Some(fixture) = fixture_name(&decorators(ix), &n.name) {
        let mut out = Vec::new();
        let mut seen = HashSet::from([ix]);
        fixture_users(g, ix, &fixture, 1, decorators, &mut seen, &mut out);
        return Some(out);
    }
    let class = class_of(g, ix);
    if let Some(class) = class.filter(|_| CLASS_FIXTURES.contains(&n.name.as_str())) {
        let mut out = Vec::new();
        for c in std::iter::once(class).chain(subclasses(g, class)) {
            for (name, m) in methods_in_order(g, c) {
                if name.starts_with("test") && !is_fixture(g, m, decorators) {
                    out.push(TestRun {
                        node: m,
                        id: format!("{}::{name}", g.node(c).qualified_name),
                        hops: 1,
                    });
                }
            }
        }
        return Some(out);
    }
    if class.is_none() && MODULE_FIXTURES.contains(&n.name.as_str()) {
        let mut out = Vec::new();
        for t in tests_in_files(g, &[n.path.as_str()], decorators) {
            out.extend(
                test_runs(g, t)
                    .into_iter()
                    .map(|r| TestRun { hops: 1, ..r }),
            );
        }
        return Some(out);
    }
    n.name.starts_with("test").then(|| test_runs(g, ix))
}

/// The runs of a test function or method (not a fixture): a function runs as itself;
/// a method under each collected class that inherits it unchanged.
fn test_runs(g: &SymbolGraph, ix: NodeIndex) -> Vec<TestRun> {
    let n = g.node(ix);
    let Some(class) = class_of(g, ix) else {
        return vec![TestRun {
            node: ix,
            id: n.qualified_name.clone(),
            hops: 0,
        }];
    };
    let mut out = Vec::new();
    let subs = subclasses(g, class);
    let own = g.node(class);
    if own.name.starts_with("Test") || subs.is_empty() {
        out.push(TestRun {
            node: ix,
            id: n.qualified_name.clone(),
            hops: 0,
        });
    }
    for c in subs {
        let cn = g.node(c);
        let collected = cn.name.starts_with("Test") || subclasses(g, c).is_empty();
        let resolves_here = methods_in_order(g, c)
            .into_iter()
            .any(|(name, m)| name == n.name && m == ix);
        if collected && resolves_here {
            out.push(TestRun {
                node: ix,
                id: format!("{}::{}", cn.qualified_name, n.name),
                hops: 0,
            });
        }
    }
    if out.is_empty() {
        // Nothing collects it as far as the index sees: its own name is the best guess.
        out.push(TestRun {
            node: ix,
            id: n.qualified_name.clone(),
            hops: 0,
        });
    }
    out
}

/// The tests (and fixtures, followed) that request fixture `name` defined at `fixture`.
fn fixture_users(
    g: &SymbolGraph,
    fixture: NodeIndex,
    name: &str,
    hops: usize,
    decorators: &mut dyn FnMut(NodeIndex) -> Vec<String>,
    seen: &mut HashSet<NodeIndex>,
    out: &mut Vec<TestRun>,
) {
    if hops > MAX_FIXTURE_CHAIN {
        return;
    }
    let f = g.node(fixture);
    let autouse = decorators(fixture)
        .iter()
        .any(|d| d.replace(' ', "").contains("autouse=True"));
    let files = fixture_scope(g, &f.path);
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    for ix in functions_in_files(g, &files) {
        if seen.contains(&ix) {
            continue;
        }
        let n = g.node(ix);
        let decorated = decorators(ix);
        let requests = autouse
            || n.signature
                .as_deref()
                .is_some_and(|s| parameters(s).contains(&name))
            || decorated.iter().any(|d| uses_fixture(d, name));
        if !requests {
            continue;
        }
        if let Some(other) = fixture_name(&decorated, &n.name) {
            seen.insert(ix);
            fixture_users(g, ix, &other, hops + 1, decorators, seen, out);
        } else if n.name.starts_with("test") {
            seen.insert(ix);
            out.extend(test_runs(g, ix).into_iter().map(|r| TestRun { hops, ..r }));
        }
    }
}

/// The test files a fixture of `path` serves: its own file, or for a `conftest.py`
/// every Python test file under its directory.
fn fixture_scope(g: &SymbolGraph, path: &str) -> Vec<String> {
    let (dir, file) = match path.rsplit_once('/') {
        Some((d, f)) => (Some(d), f),
        None => (None, path),
    };
    if file != "conftest.py" {
        return vec![path.to_string()];
    }
    let mut out: Vec<String> = by_path(g)
        .keys()
        .filter(|p| p.ends_with(".py") && is_test_file(p))
        .filter(|p| dir.is_none_or(|d| p.strip_prefix(d).is_some_and(|r| r.starts_with('/'))))
        .cloned()
        .collect();
    out.sort();
    out
}

/// The functions and methods defined in `files`, in node order.
pub(super) fn functions_in_files(g: &SymbolGraph, files: &[&str]) -> Vec<NodeIndex> {
    let index = by_path(g);
    let mut out: Vec<NodeIndex> = files
        .iter()
        .filter_map(|f| index.get(*f))
        .flatten()
        .copied()
        .filter(|&ix| matches!(g.node(ix).kind.as_str(), "function" | "method"))
        .collect();
    out.sort();
    out
}

/// The test functions and methods (not fixtures) defined in `files`.
fn tests_in_files(
    g: &SymbolGraph,
    files: &[&str],
    decorators: &mut dyn FnMut(NodeIndex) -> Vec<String>,
) -> Vec<NodeIndex> {
    functions_in_files(g, files)
        .into_iter()
        .filter(|&ix| g.node(ix).name.starts_with("test") && !is_fixture(g, ix, decorators))
        .collect()
}

fn is_fixture(
    g: &SymbolGraph,
    ix: NodeIndex,
    decorators: &mut dyn FnMut(NodeIndex) -> Vec<String>,
) -> bool {
    fixture_name(&decorators(ix), &g.node(ix).name).is_some()
}

/// The fixture name a function's decorators give it: its own name, or the decorator's
/// `name="..."`; `None` when no decorator is a fixture decorator.
pub fn fixture_name(decorators: &[String], own: &str) -> Option<String> {
    let d = decorators.iter().find(|d| {
        let head = d.trim_start_matches('@');
        let callee = head.split('(').next().unwrap_or(head).trim();
        callee.rsplit('.').next() == Some("fixture")
    })?;
    let compact: String = d.chars().filter(|c| !c.is_whitespace()).collect();
    for quote in ['"', '\''] {
        if let Some(rest) = compact.split_once(&format!("name={quote}")).map(|(_, r)| r) {
            if let Some(end) = rest.find(quote) {
                return Some(rest[..end].to_string());
            }
        }
    }
    Some(own.to_string())
}

/// Whether a decorator is `@pytest.mark.usefixtures(...)` naming `name`.
fn uses_fixture(decorator: &str, name: &str) -> bool {
    decorator.contains("usefixtures(")
        && (decorator.contains(&format!("\"{name}\"")) || decorator.contains(&format!("'{name}'")))
}

/// The parameter names of a Python signature (`def f(self, a: int, b=1, *args, **kw)`
/// → `self`, `a`, `b`, `args`, `kw`).
pub fn parameters(signature: &str) -> Vec<&str> {
    let Some(open) = signature.find('(') else {
        return Vec::new();
    };
    let body = &signature[open + 1..];
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let mut end = body.len();
    for (i, c) in body.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => {
                end = i;
                break;
            }
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&body[start..end.max(start)]);
    out.into_iter()
        .filter_map(|p| {
            let name = p.split([':', '=']).next()?.trim().trim_start_matches('*');
            (!name.is_empty() && name != "/").then_some(name)
        })
        .collect()
}

/// The class that directly contains `ix`, if any.
fn class_of(g: &SymbolGraph, ix: NodeIndex) -> Option<NodeIndex> {
    g.graph
        .edges_directed(ix, Direction::Incoming)
        .find(|e| e.weight().kind == EdgeKind::Contains && g.node(e.source()).kind == "class")
        .map(|e| e.source())
}

/// The classes that inherit from `class`, directly or not, nearest first.
fn subclasses(g: &SymbolGraph, class: NodeIndex) -> Vec<NodeIndex> {
    let mut out = Vec::new();
    let mut seen = HashSet::from([class]);
    let mut i = 0;
    let mut frontier = vec![class];
    while i < frontier.len() {
        let c = frontier[i];
        i += 1;
        let mut direct: Vec<NodeIndex> = g
            .graph
            .edges_directed(c, Direction::Incoming)
            .filter(|e| e.weight().kind == EdgeKind::Inherits)
            .map(|e| e.source())
            .filter(|s| g.node(*s).kind == "class")
            .collect();
        direct.sort();
        for s in direct {
            if seen.insert(s) {
                out.push(s);
                frontier.push(s);
            }
        }
    }
    out
}

/// The methods an instance of `class` has by name, through its bases in the index
/// (the class first, then its bases depth-first: the method resolution order of the
/// single and mixin inheritance of test classes; bases written on one line are taken
/// in index order, which may differ from the written order), each name once.
fn methods_in_order(g: &SymbolGraph, class: NodeIndex) -> Vec<(String, NodeIndex)> {
    let mut out: Vec<(String, NodeIndex)> = Vec::new();
    let mut names: HashMap<String, NodeIndex> = HashMap::new();
    let mut stack = vec![class];
    let mut seen = HashSet::new();
    while let Some(c) = stack.pop() {
        if !seen.insert(c) {
            continue;
        }
        let mut own = members(g, c);
        own.sort();
        for m in own {
            let mn = g.node(m);
            if matches!(mn.kind.as_str(), "method" | "function") && !names.contains_key(&mn.name) {
                names.insert(mn.name.clone(), m);
                out.push((mn.name.clone(), m));
            }
        }
        // Bases by line, then index order.
        let mut bases: Vec<(u32, NodeIndex)> = g
            .graph
            .edges_directed(c, Direction::Outgoing)
            .filter(|e| e.weight().kind == EdgeKind::Inherits)
            .map(|e| (e.weight().line, e.target()))
            .collect();
        bases.sort();
        stack.extend(bases.into_iter().rev().map(|(_, b)| b));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_of_signatures() {
        assert_eq!(
            parameters("def f(self, a: int, b=1, *args, **kw)"),
            vec!["self", "a", "b", "args", "kw"]
        );
        assert_eq!(
            parameters("def t(tmp_path, x: dict[str, int] = {}, /)"),
            vec!["tmp_path", "x"]
        );
        assert_eq!(parameters("def t()"), Vec::<&str>::new());
        assert_eq!(parameters("async def t(url)"), vec!["url"]);
    }

    #[test]
    fn fixture_decorators() {
        let d = |s: &str| vec![s.to_string()];
        assert_eq!(
            fixture_name(&d("@pytest.fixture"), "db"),
            Some("db".to_string())
        );
        assert_eq!(
            fixture_name(&d("@pytest.fixture(scope=\"module\", params=URLS)"), "u"),
            Some("u".to_string())
        );
        assert_eq!(
            fixture_name(&d("@fixture(name='conn')"), "make_conn"),
            Some("conn".to_string())
        );
        assert_eq!(
            fixture_name(&d("@pytest_asyncio.fixture"), "a"),
            Some("a".to_string())
        );
        assert_eq!(
            fixture_name(&d("@pytest.mark.parametrize('x', [1])"), "t"),
            None
        );
        assert!(uses_fixture(
            "@pytest.mark.usefixtures(\"db\", 'cache')",
            "cache"
        ));
        assert!(!uses_fixture("@pytest.mark.usefixtures(\"db\")", "d"));
    }
}
