//! McCabe's cyclomatic complexity (1 + decision points) and the deepest nesting of
//! control flow in a function body, per grammar; nested functions are left out
//! (they are judged on their own). Apart because the node kinds that branch or nest
//! are a table of their own per language.

use tree_sitter::Node;

use crate::lang::Language;

use super::parse::{is_function, Walker};

/// Node kinds that open a nesting level of control flow.
pub(super) fn is_nesting(lang: Language, kind: &str) -> bool {
    match lang {
        Language::Rust => matches!(
            kind,
            "if_expression"
                | "while_expression"
                | "for_expression"
                | "loop_expression"
                | "match_expression"
        ),
        Language::Python => matches!(
            kind,
            "if_statement"
                | "for_statement"
                | "while_statement"
                | "try_statement"
                | "with_statement"
                | "match_statement"
        ),
        _ => matches!(
            kind,
            "if_statement"
                | "for_statement"
                | "for_in_statement"
                | "while_statement"
                | "do_statement"
                | "switch_statement"
                | "try_statement"
        ),
    }
}

impl<'a> Walker<'a> {
    /// McCabe complexity and deepest control-flow nesting of a body, nested functions
    /// excluded (they are judged on their own).
    pub(super) fn complexity_and_depth(&self, body: Node<'a>) -> (u32, u32) {
        let mut complexity = 1u32;
        let mut max_depth = 0u32;
        let mut stack: Vec<(Node<'a>, u32)> = vec![(body, 0)];
        let mut cursor = body.walk();
        while let Some((n, depth)) = stack.pop() {
            let kind = n.kind();
            if n != body && is_function(self.lang, kind) {
                continue;
            }
            complexity += self.branches(n);
            let else_if = n.parent().is_some_and(|p| p.kind() == "else_clause")
                && matches!(kind, "if_expression" | "if_statement");
            let depth = if is_nesting(self.lang, kind) && !else_if {
                depth + 1
            } else {
                depth
            };
            max_depth = max_depth.max(depth);
            let children: Vec<Node<'a>> = n.children(&mut cursor).collect();
            for c in children {
                stack.push((c, depth));
            }
        }
        (complexity, max_depth)
    }

    /// Decision points a node adds.
    pub(super) fn branches(&self, n: Node<'a>) -> u32 {
        let kind = n.kind();
        let operator = || {
            n.child_by_field_name("operator")
                .map(|o| self.text(o))
                .unwrap_or("")
        };
        match self.lang {
            Language::Rust => match kind {
                "if_expression" | "while_expression" | "for_expression" => 1,
                "match_block" => {
                    let mut c = n.walk();
                    let arms = n
                        .named_children(&mut c)
                        .filter(|a| a.kind() == "match_arm")
                        .count() as u32;
                    arms.saturating_sub(1)
                }
                "binary_expression" => u32::from(matches!(operator(), "&&" | "||")),
                _ => 0,
            },
            Language::Python => match kind {
                "if_statement"
                | "elif_clause"
                | "for_statement"
                | "while_statement"
                | "except_clause"
                | "conditional_expression"
                | "for_in_clause"
                | "if_clause"
                | "boolean_operator" => 1,
                "match_statement" => {
                    let cases = n
                        .child_by_field_name("body")
                        .map(|b| {
                            let mut c = b.walk();
                            let k = b
                                .named_children(&mut c)
                                .filter(|x| x.kind() == "case_clause")
                                .count();
                            k
                        })
                        .unwrap_or(0) as u32;
                    cases.saturating_sub(1)
                }
                _ => 0,
            },
            _ => match kind {
                "if_statement" | "for_statement" | "for_in_statement" | "while_statement"
                | "do_statement" | "catch_clause" | "ternary_expression" | "switch_case" => 1,
                "binary_expression" => u32::from(matches!(operator(), "&&" | "||" | "??")),
                _ => 0,
            },
        }
    }
}
