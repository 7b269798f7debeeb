//! Checks of one function: its length, complexity and nesting (measured by
//! [`super::complexity`]), Python stubs (`pass`/`...` bodies that are not abstract
//! methods, overloads or Protocol/ABC members) and empty bodies elsewhere; and it
//! records that the candidate changes functions (for the tests dimension).

use tree_sitter::Node;

use crate::lang::Language;

use super::finding::{touches_changed, Dimension, Severity};
use super::parse::Walker;

impl<'a> Walker<'a> {
    /// Size, complexity, nesting, stubs and emptiness of one function.
    pub(super) fn function(&mut self, n: Node<'a>, in_test: bool) {
        let name = self.name_of(n);
        let (start, end) = (self.line(n), self.end_line(n));
        if !in_test
            && touches_changed(self.unit, start, end)
            && self.facts.changes_functions.is_none()
        {
            self.facts.changes_functions = Some((start, end));
        }
        let lines = end - start + 1;
        if lines > 100 {
            self.add(
                n,
                Dimension::Maintainability,
                Severity::Major,
                format!("`{name}` is {lines} lines long (over 100): split it"),
            );
        } else if lines > 50 {
            self.add(
                n,
                Dimension::Maintainability,
                Severity::Minor,
                format!("`{name}` is {lines} lines long (over 50)"),
            );
        }
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        let (complexity, depth) = self.complexity_and_depth(body);
        if complexity > 20 {
            self.add(
                n,
                Dimension::Maintainability,
                Severity::Major,
                format!("`{name}` has cyclomatic complexity {complexity} (over 20)"),
            );
        } else if complexity > 10 {
            self.add(
                n,
                Dimension::Maintainability,
                Severity::Minor,
                format!("`{name}` has cyclomatic complexity {complexity} (over 10)"),
            );
        }
        if depth > 4 {
            self.add(
                n,
                Dimension::Maintainability,
                Severity::Minor,
                format!("`{name}` nests control flow {depth} deep (over 4)"),
            );
        }
        // Emptiness and pass-only bodies.
        let mut c = body.walk();
        let statements: Vec<Node> = body
            .named_children(&mut c)
            .filter(|s| !s.kind().contains("comment"))
            .collect();
        match self.lang {
            Language::Python => {
                // Declarations, not stubs: abstract methods, overloads, Protocol and
                // ABC members; and test code (fixture classes).
                let decorated = n
                    .parent()
                    .filter(|p| p.kind() == "decorated_definition")
                    .is_some_and(|p| {
                        let t = self.text(p);
                        t.contains("abstractmethod") || t.contains("overload")
                    });
                let declared = self.python_class_of(n).is_some_and(|c| {
                    c.child_by_field_name("superclasses").is_some_and(|b| {
                        let t = self.text(b);
                        t.contains("Protocol") || t.contains("ABC")
                    })
                });
                let stub = !statements.is_empty()
                    && statements.iter().enumerate().all(|(i, s)| {
                        let t = self.text(*s).trim();
                        s.kind() == "pass_statement"
                            || t == "..."
                            // A docstring first.
                            || (i == 0 && s.kind() == "expression_statement" && s.named_child(0).is_some_and(|x| x.kind() == "string") && statements.len() > 1)
                    });
                if stub && !decorated && !declared && !in_test {
                    self.add(
                        n,
                        Dimension::Completeness,
                        Severity::Major,
                        format!("`{name}` has only `pass`/`...` for a body: a stub"),
                    );
                }
            }
            _ => {
                let is_block = matches!(body.kind(), "block" | "statement_block");
                if is_block && statements.is_empty() && name != "constructor" {
                    self.add(
                        n,
                        Dimension::Completeness,
                        Severity::Minor,
                        format!("`{name}` has an empty body"),
                    );
                }
            }
        }
    }

    /// The class whose method encloses `n` most closely (Python), if the nearest
    /// enclosing function is a method.
    pub(super) fn python_class_of(&self, n: Node<'a>) -> Option<Node<'a>> {
        let mut cur = Some(n);
        while let Some(c) = cur {
            if c.kind() == "function_definition" {
                // function_definition (or decorated_definition) -> block -> class_definition
                let mut up = c.parent();
                if up.is_some_and(|u| u.kind() == "decorated_definition") {
                    up = up.and_then(|u| u.parent());
                }
                return up
                    .filter(|b| b.kind() == "block")
                    .and_then(|b| b.parent())
                    .filter(|k| k.kind() == "class_definition");
            }
            cur = c.parent();
        }
        None
    }
}
