//! The judge's own parse of one unit: tree-sitter over the unit's text, then one
//! iterative pre-order walk that tracks test code, reports syntax errors and hands
//! each node to the checks ([`super::visitors`], [`super::functions`]). Units in a
//! language without a grammar get the line-based marker-comment check only.
//! The walk collects facts; it does not ask the index anything.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;
use tree_sitter::{Node, Parser};

use crate::lang::Language;

use super::super::candidates::Unit;
use super::finding::{
    marker_finding, push_if_changed, touches_changed, Dimension, Finding, Severity,
};
use super::is_test_path;

/// Most syntax errors reported per unit (the first ones; one is enough to reject).
const MAX_SYNTAX_ERRORS: usize = 5;

/// What one unit's syntax tree says, before the index is asked about names.
#[derive(Debug, Default)]
pub(super) struct UnitFacts {
    pub(super) findings: Vec<Finding>,
    /// Bare calls (`f(x)`): name, line.
    pub(super) bare_calls: Vec<(String, u32)>,
    /// Identifiers seen anywhere but as the callee of a bare call (definitions,
    /// parameters, imports, variables, arguments).
    pub(super) other_identifiers: HashSet<String>,
    /// The unit has test code.
    pub(super) has_tests: bool,
    /// The unit defines or changes non-test functions.
    pub(super) changes_functions: Option<(u32, u32)>,
}

fn marker_comment() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"\b(TODO|FIXME|XXX|HACK)\b").expect("valid regex"))
}

fn line_comment_marker() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(#|//|/\*|^\s*\*|--)\s*.*?\b(TODO|FIXME|XXX|HACK)\b").expect("valid regex")
    })
}

/// Everything one unit's syntax tree (or text) says.
pub(super) fn analyze_unit(unit: &Unit) -> UnitFacts {
    let mut facts = UnitFacts::default();
    let test_file = is_test_path(&unit.path);
    facts.has_tests = test_file;

    // Secrets, by line, in any language.
    super::secrets::scan(unit, &mut facts.findings);

    let Some(lang) = unit.language else {
        // Not a language we parse: marker comments by line only.
        for (row, line) in unit.text.lines().enumerate() {
            if let Some(c) = line_comment_marker().captures(line) {
                let l = unit.first_line + row as u32;
                let marker = c.get(2).map_or("TODO", |m| m.as_str());
                push_if_changed(&mut facts.findings, unit, marker_finding(unit, l, marker));
            }
        }
        return facts;
    };

    let mut parser = Parser::new();
    if parser.set_language(&crate::lang::grammar(lang)).is_err() {
        return facts;
    }
    let Some(tree) = parser.parse(unit.text.as_bytes(), None) else {
        return facts;
    };
    let mut walker = Walker {
        unit,
        lang,
        src: unit.text.as_bytes(),
        facts,
        test_file,
        syntax_errors: 0,
    };
    walker.walk(tree.root_node());
    walker.facts
}

pub(super) struct Walker<'a> {
    pub(super) unit: &'a Unit,
    pub(super) lang: Language,
    pub(super) src: &'a [u8],
    pub(super) facts: UnitFacts,
    pub(super) test_file: bool,
    pub(super) syntax_errors: usize,
}

/// Function-like node kinds per language.
pub(super) fn is_function(lang: Language, kind: &str) -> bool {
    match lang {
        Language::Rust => kind == "function_item",
        Language::Python => kind == "function_definition",
        _ => crate::lang::is_ecmascript_function(kind),
    }
}

impl<'a> Walker<'a> {
    pub(super) fn text(&self, n: Node) -> &'a str {
        n.utf8_text(self.src).unwrap_or("")
    }

    pub(super) fn line(&self, n: Node) -> u32 {
        self.unit.first_line + n.start_position().row as u32
    }

    pub(super) fn end_line(&self, n: Node) -> u32 {
        self.unit.first_line + n.end_position().row as u32
    }

    pub(super) fn add(
        &mut self,
        n: Node,
        dimension: Dimension,
        severity: Severity,
        message: String,
    ) {
        let f = Finding {
            path: self.unit.path.clone(),
            line: self.line(n),
            end_line: self.end_line(n),
            dimension,
            severity,
            message,
        };
        push_if_changed(&mut self.facts.findings, self.unit, f);
    }

    /// Iterative pre-order walk; `in_test` is tracked per node on the stack.
    pub(super) fn walk(&mut self, root: Node<'a>) {
        let mut stack: Vec<(Node<'a>, bool)> = vec![(root, self.test_file)];
        let mut cursor = root.walk();
        while let Some((n, in_test)) = stack.pop() {
            if n.is_error() || n.is_missing() {
                self.syntax_error(n);
                if n.is_error() {
                    // Its children are the error's text, not code to judge.
                    continue;
                }
            }
            let in_test = in_test || self.is_test_item(n);
            // Test code counts as touched when it lies in the changed lines.
            if in_test
                && !self.facts.has_tests
                && self.is_test_item(n)
                && touches_changed(self.unit, self.line(n), self.end_line(n))
            {
                self.facts.has_tests = true;
            }
            self.visit(n, in_test);
            let children: Vec<Node<'a>> = n.children(&mut cursor).collect();
            for c in children.into_iter().rev() {
                stack.push((c, in_test));
            }
        }
    }

    pub(super) fn syntax_error(&mut self, n: Node) {
        if self.unit.fragment {
            return;
        }
        self.syntax_errors += 1;
        if self.syntax_errors > MAX_SYNTAX_ERRORS {
            return;
        }
        let message = if n.is_missing() {
            format!("syntax error: missing `{}`", n.kind())
        } else {
            let snippet: String = self
                .text(n)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .chars()
                .take(30)
                .collect();
            format!("syntax error: cannot parse `{snippet}`")
        };
        // A syntax error is reported even outside a diff's changed lines: the file
        // as a whole no longer parses.
        self.facts.findings.push(Finding {
            path: self.unit.path.clone(),
            line: self.line(n),
            end_line: self.line(n),
            dimension: Dimension::Correctness,
            severity: Severity::Blocker,
            message,
        });
    }

    /// True for a node that is test code by itself (a test function, module or suite).
    pub(super) fn is_test_item(&self, n: Node) -> bool {
        match self.lang {
            Language::Rust => {
                if !matches!(n.kind(), "function_item" | "mod_item") {
                    return false;
                }
                let mut prev = n.prev_named_sibling();
                while let Some(p) = prev {
                    match p.kind() {
                        "attribute_item" => {
                            let t = self.text(p);
                            if t.contains("test") {
                                return true;
                            }
                        }
                        "line_comment" | "block_comment" => {}
                        _ => break,
                    }
                    prev = p.prev_named_sibling();
                }
                false
            }
            Language::Python => match n.kind() {
                "function_definition" => self.name_of(n).starts_with("test"),
                "class_definition" => self.name_of(n).starts_with("Test"),
                _ => false,
            },
            _ => {
                n.kind() == "call_expression"
                    && n.child_by_field_name("function")
                        .is_some_and(|f| matches!(self.text(f), "describe" | "it" | "test"))
            }
        }
    }

    pub(super) fn name_of(&self, n: Node) -> String {
        if let Some(name) = n.child_by_field_name("name") {
            return self.text(name).to_string();
        }
        // `const f = () => ...`: the declarator's name.
        if let Some(p) = n.parent().filter(|p| p.kind() == "variable_declarator") {
            if let Some(name) = p.child_by_field_name("name") {
                return self.text(name).to_string();
            }
        }
        "<anonymous>".to_string()
    }

    pub(super) fn visit(&mut self, n: Node<'a>, in_test: bool) {
        let kind = n.kind();
        if kind.contains("comment") {
            if let Some(m) = marker_comment().captures(self.text(n)) {
                let marker = m.get(1).map_or("TODO", |m| m.as_str()).to_string();
                let f = marker_finding(self.unit, self.line(n), &marker);
                push_if_changed(&mut self.facts.findings, self.unit, f);
            }
            return;
        }
        if kind == "identifier" {
            let is_bare_callee = n.parent().is_some_and(|p| {
                matches!(p.kind(), "call_expression" | "call")
                    && p.child_by_field_name("function") == Some(n)
            });
            let name = self.text(n).to_string();
            if is_bare_callee {
                let line = self.line(n);
                if touches_changed(self.unit, line, line) {
                    self.facts.bare_calls.push((name, line));
                }
            } else {
                self.facts.other_identifiers.insert(name);
            }
            return;
        }
        if is_function(self.lang, kind) {
            self.function(n, in_test);
        }
        match self.lang {
            Language::Rust => self.visit_rust(n, in_test),
            Language::Python => self.visit_python(n, in_test),
            _ => self.visit_js(n, in_test),
        }
    }
}
