//! C and C++ node shapes: declarators (to find a function's name), scoped names,
//! `#include` paths, callees, base classes.

use tree_sitter::Node;

use super::{text, Callee};

/// Most declarator levels walked before giving up (real code nests a handful).
const MAX_DEPTH: usize = 64;

/// The name node of the function a definition's declarator declares, and the scope
/// written before it (`Foo` for `Foo::bar`, `ns::Foo` for `ns::Foo<T>::bar`).
///
/// The declarator is walked through pointers, references, parentheses and attributes
/// down to the innermost function declarator (`int (*f(void))(int)` is `f`). `None`
/// when no function declarator is found (macro-made definitions the grammar cannot
/// read).
pub(super) fn function_name<'t>(
    declarator: Node<'t>,
    source: &[u8],
) -> Option<(Node<'t>, Option<String>)> {
    let mut node = declarator;
    let mut in_function = false;
    for _ in 0..MAX_DEPTH {
        match node.kind() {
            "function_declarator" => {
                in_function = true;
                node = node.child_by_field_name("declarator")?;
            }
            "pointer_declarator" => node = node.child_by_field_name("declarator")?,
            "reference_declarator" | "parenthesized_declarator" | "attributed_declarator" => {
                node = first_declarator_child(node)?
            }
            _ if !in_function => return None,
            _ => return Some(scoped_name(node, source)),
        }
    }
    None
}

/// The first named child that is not an attribute or calling-convention modifier.
fn first_declarator_child(node: Node) -> Option<Node> {
    let mut cursor = node.walk();
    let child = node.named_children(&mut cursor).find(|child| {
        !matches!(
            child.kind(),
            "attribute_declaration" | "attribute_specifier" | "ms_call_modifier"
        ) && !child.is_extra()
    });
    child
}

/// The name of a class, struct, union, enum or namespace and its written scope:
/// `Foo`; `Hash<int>` → `Hash`; `Outer::Inner` → `Inner` in `Outer`; `a::b` (a nested
/// namespace) → `b` in `a`.
pub(super) fn type_name<'t>(node: Node<'t>, source: &[u8]) -> (Node<'t>, Option<String>) {
    scoped_name(node, source)
}

/// Takes a possibly qualified, possibly templated name apart into its last name node
/// and the scopes before it (template arguments dropped), joined by `::`.
fn scoped_name<'t>(node: Node<'t>, source: &[u8]) -> (Node<'t>, Option<String>) {
    let mut scopes: Vec<String> = Vec::new();
    let mut node = node;
    for _ in 0..MAX_DEPTH {
        match node.kind() {
            "qualified_identifier" => {
                if let Some(scope) = node.child_by_field_name("scope") {
                    scopes.push(bare(scope, source));
                }
                match node.child_by_field_name("name") {
                    Some(name) => node = name,
                    None => break,
                }
            }
            "nested_namespace_specifier" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                match children.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        scopes.extend(rest.iter().map(|scope| bare(*scope, source)));
                        node = *last;
                    }
                    _ => break,
                }
            }
            "template_type" | "template_function" => match node.child_by_field_name("name") {
                Some(name) => node = name,
                None => break,
            },
            _ => break,
        }
    }
    scopes.retain(|scope| !scope.is_empty());
    let scope = (!scopes.is_empty()).then(|| scopes.join("::"));
    (node, scope)
}

/// A scope's text without template arguments or whitespace (`Foo<T>` → `Foo`).
fn bare(node: Node, source: &[u8]) -> String {
    let node = match node.kind() {
        "template_type" => node.child_by_field_name("name").unwrap_or(node),
        _ => node,
    };
    let mut name = text::node_text(source, node);
    name.retain(|c| !c.is_whitespace());
    name
}

/// The path of an `#include`: `"a/b.h"` → `a/b.h`, `<stdio.h>` → `stdio.h`. `None` for
/// an empty path.
pub(super) fn include_path(node: Node, source: &[u8]) -> Option<String> {
    let written = text::node_text(source, node);
    let path = match node.kind() {
        "system_lib_string" => written
            .strip_prefix('<')
            .and_then(|p| p.strip_suffix('>'))
            .map(str::to_string),
        _ => {
            let unquoted = text::unquoted(written.clone());
            (unquoted.len() < written.len()).then_some(unquoted)
        }
    }?;
    let path = path.trim();
    (!path.is_empty()).then(|| path.to_string())
}

/// `f`, `s.f`, `p->f`, `ns::f` (qualifier: the first scope), `f<T>`, `(f)`; `None` for
/// calls through pointers, of lambdas called in place and the like.
pub(super) fn callee(node: Node) -> Option<Callee> {
    let mut node = node;
    let mut qualifier = None;
    for _ in 0..MAX_DEPTH {
        match node.kind() {
            "identifier" | "field_identifier" | "destructor_name" | "operator_name" => {
                return Some(Callee {
                    name: node,
                    qualifier,
                })
            }
            "field_expression" => {
                return Some(Callee {
                    name: node.child_by_field_name("field")?,
                    qualifier: node.child_by_field_name("argument"),
                })
            }
            "qualified_identifier" => {
                if qualifier.is_none() {
                    qualifier = node.child_by_field_name("scope");
                }
                node = node.child_by_field_name("name")?;
            }
            "template_function" | "template_method" => node = node.child_by_field_name("name")?,
            "parenthesized_expression" => node = node.named_child(0)?,
            _ => return None,
        }
    }
    None
}

/// A base class's bare name: `B`, `ns::B` → `B`, `B<T>` → `B`.
pub(super) fn base_name(node: Node, source: &[u8]) -> Option<String> {
    let mut node = node;
    for _ in 0..MAX_DEPTH {
        match node.kind() {
            "type_identifier" => return Some(text::node_text(source, node)),
            "qualified_identifier" | "template_type" => node = node.child_by_field_name("name")?,
            _ => return None,
        }
    }
    None
}

/// The receiver type a declaration states (`struct vec`, `geo::Circle`,
/// `std::vector<T>`), whitespace collapsed; `auto` tells nothing.
pub(super) fn type_hint(node: Node, source: &[u8]) -> Option<String> {
    let hint = text::collapsed(source, node, 100);
    (!hint.is_empty() && hint != "auto").then_some(hint)
}
