//! Rust node shapes: callees, type names in `impl` headers, `use` trees.

use tree_sitter::Node;

use super::{text, Callee};

/// `f`, `a::b::f`, `x.m`, `f::<T>`, `x.m::<T>`; `None` for anything else (closures
/// called in place, `(self.f)()`, ..).
pub(super) fn callee(node: Node) -> Option<Callee> {
    let mut node = node;
    loop {
        match node.kind() {
            "identifier" => {
                return Some(Callee {
                    name: node,
                    qualifier: None,
                })
            }
            "scoped_identifier" => {
                return Some(Callee {
                    name: node.child_by_field_name("name")?,
                    qualifier: node.child_by_field_name("path"),
                })
            }
            "field_expression" => {
                return Some(Callee {
                    name: node.child_by_field_name("field")?,
                    qualifier: node.child_by_field_name("value"),
                })
            }
            "generic_function" => node = node.child_by_field_name("function")?,
            _ => return None,
        }
    }
}

/// The bare name of a type in an `impl` header: `Foo<T>` → `Foo`, `a::B` → `B`,
/// `&'a mut Foo` → `Foo`. `None` for tuples, slices, `dyn` types and the like.
pub(super) fn type_name(node: Node, source: &[u8]) -> Option<String> {
    let mut node = node;
    loop {
        match node.kind() {
            "type_identifier" | "identifier" | "primitive_type" => {
                return Some(text::node_text(source, node))
            }
            "generic_type" | "reference_type" | "pointer_type" => {
                node = node.child_by_field_name("type")?
            }
            "scoped_type_identifier" | "scoped_identifier" => {
                node = node.child_by_field_name("name")?
            }
            _ => return None,
        }
    }
}

/// The text of a path with whitespace removed (`a :: b` → `a::b`).
fn path_text(source: &[u8], node: Node) -> String {
    let mut path = text::node_text(source, node);
    path.retain(|c| !c.is_whitespace());
    path
}

fn joined(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        path.to_string()
    } else {
        format!("{prefix}::{path}")
    }
}

/// Appends one full path per leaf of the use tree `argument` (the argument of a
/// `use_declaration`), in source order: `crate::a::{b, c::{D, e as f}, self}` gives
/// `crate::a::b`, `crate::a::c::D`, `crate::a::c::e`, `crate::a`. Aliases are dropped;
/// globs keep their `*`. Iterative, so any nesting depth is fine.
pub(super) fn use_paths(argument: Node, source: &[u8], out: &mut Vec<String>) {
    let mut stack = vec![(argument, String::new())];
    while let Some((node, prefix)) = stack.pop() {
        match node.kind() {
            "use_list" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children.into_iter().rev() {
                    stack.push((child, prefix.clone()));
                }
            }
            "scoped_use_list" => {
                let prefix = match node.child_by_field_name("path") {
                    Some(path) => joined(&prefix, &path_text(source, path)),
                    None => prefix,
                };
                if let Some(list) = node.child_by_field_name("list") {
                    stack.push((list, prefix));
                }
            }
            "use_as_clause" => {
                if let Some(path) = node.child_by_field_name("path") {
                    stack.push((path, prefix));
                }
            }
            "self" if !prefix.is_empty() => out.push(prefix),
            "use_wildcard" | "identifier" | "scoped_identifier" | "crate" | "self" | "super"
            | "metavariable" => out.push(joined(&prefix, &path_text(source, node))),
            // Comments, ERROR nodes.
            _ => {}
        }
    }
}
