//! Rust node shapes: callees, type names in `impl` headers, `use` trees.

use tree_sitter::Node;

use super::bindings::Hint;
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
/// `use_declaration`), in source order, with the name it binds in the file:
/// `crate::a::{b, c::{D, e as f}, self}` gives `crate::a::b` (`b`), `crate::a::c::D`
/// (`D`), `crate::a::c::e` (`f`), `crate::a` (`a`); a glob keeps its `*` and binds `*`.
/// Iterative, so any nesting depth is fine.
pub(super) fn use_paths(argument: Node, source: &[u8], out: &mut Vec<(String, String)>) {
    let leaf = |path: String, alias: Option<String>| {
        let local = alias.unwrap_or_else(|| {
            let last = path.rsplit("::").next().unwrap_or(&path);
            last.to_string()
        });
        (path, local)
    };
    let mut stack: Vec<(Node, String, Option<String>)> = vec![(argument, String::new(), None)];
    while let Some((node, prefix, alias)) = stack.pop() {
        match node.kind() {
            "use_list" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children.into_iter().rev() {
                    stack.push((child, prefix.clone(), None));
                }
            }
            "scoped_use_list" => {
                let prefix = match node.child_by_field_name("path") {
                    Some(path) => joined(&prefix, &path_text(source, path)),
                    None => prefix,
                };
                if let Some(list) = node.child_by_field_name("list") {
                    stack.push((list, prefix, None));
                }
            }
            "use_as_clause" => {
                if let Some(path) = node.child_by_field_name("path") {
                    let alias = node
                        .child_by_field_name("alias")
                        .map(|a| path_text(source, a));
                    stack.push((path, prefix, alias));
                }
            }
            "self" if !prefix.is_empty() => out.push(leaf(prefix, alias)),
            "use_wildcard" => {
                out.push((joined(&prefix, &path_text(source, node)), "*".to_string()))
            }
            "identifier" | "scoped_identifier" | "crate" | "self" | "super" | "metavariable" => {
                out.push(leaf(joined(&prefix, &path_text(source, node)), alias))
            }
            // Comments, ERROR nodes.
            _ => {}
        }
    }
}

/// Longest receiver hint kept.
const MAX_HINT_CHARS: usize = 100;

/// The receiver type a type annotation states, as written (whitespace collapsed); the
/// resolver reads references, pointers and generics off it.
pub(super) fn type_hint(node: Node, source: &[u8]) -> Option<String> {
    let hint = text::collapsed(source, node, MAX_HINT_CHARS);
    (!hint.is_empty()).then_some(hint)
}

/// The receiver type a value gives its name: `Foo::new(..)` → `Foo::new()` (the result
/// of that call), `make()?` → `make()?`, `Foo { .. }` and `&Foo { .. }` → `Foo`, another
/// name → that name's type; `None` for anything else (a method call's result, a
/// literal, a closure).
pub(super) fn value_hint(node: Node, source: &[u8]) -> Option<Hint> {
    match node.kind() {
        "identifier" => Some(Hint::Name(text::node_text(source, node))),
        "call_expression" => {
            let function = node.child_by_field_name("function")?;
            if !matches!(
                function.kind(),
                "identifier" | "scoped_identifier" | "generic_function"
            ) {
                return None;
            }
            let mut callee = text::collapsed(source, function, MAX_HINT_CHARS);
            callee.retain(|c| !c.is_whitespace());
            Some(Hint::Value(format!("{callee}()")))
        }
        "try_expression" => match value_hint(node.named_child(0)?, source)? {
            Hint::Value(v) => Some(Hint::Value(format!("{v}?"))),
            _ => None,
        },
        "struct_expression" => {
            let name = node.child_by_field_name("name")?;
            Some(Hint::Type(text::collapsed(source, name, MAX_HINT_CHARS)))
        }
        "reference_expression" => value_hint(node.child_by_field_name("value")?, source),
        _ => None,
    }
}
