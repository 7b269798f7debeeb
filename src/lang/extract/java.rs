//! Java node shapes: import declarations, annotations before a definition, callees,
//! base types.

use tree_sitter::{Node, TreeCursor};

use super::bindings::Hint;
use super::{text, Callee};

/// The specifier of an `import_declaration`: `a.b.C`, `a.b.*`, and for
/// `import static a.b.C.m;` / `import static a.b.C.*;` the same forms (`a.b.C.m`,
/// `a.b.C.*`). Whitespace is removed. `None` for a malformed declaration.
pub(super) fn import(node: Node, source: &[u8]) -> Option<String> {
    let mut cursor = node.walk();
    let mut path = None;
    let mut star = false;
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "identifier" | "scoped_identifier" => {
                let mut name = text::node_text(source, child);
                name.retain(|c| !c.is_whitespace());
                path = Some(name);
            }
            "asterisk" => star = true,
            _ => {}
        }
    }
    let path = path.filter(|p| !p.is_empty())?;
    Some(if star { format!("{path}.*") } else { path })
}

/// The node a definition's span starts at: its first modifier that is not an
/// annotation (`public` in `@Override public void f()`), else the first child after the
/// modifiers (`void`), else the definition itself.
pub(super) fn after_annotations<'t>(node: Node<'t>, cursor: &mut TreeCursor<'t>) -> Node<'t> {
    let is_annotation =
        |n: Node| matches!(n.kind(), "annotation" | "marker_annotation") || n.is_extra();
    cursor.reset(node);
    if !cursor.goto_first_child() {
        return node;
    }
    let first = cursor.node();
    if first.kind() != "modifiers" {
        return node;
    }
    if cursor.goto_first_child() {
        loop {
            if !is_annotation(cursor.node()) {
                return cursor.node();
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
        cursor.goto_parent();
    }
    while cursor.goto_next_sibling() {
        if !cursor.node().is_extra() {
            return cursor.node();
        }
    }
    node
}

/// A `method_invocation` (`m()`, `x.m()`, `a.b.m()`, `super.m()`) or an
/// `object_creation_expression` (`new C()`, `new a.C<T>()`: the constructor `C`, with
/// qualifier `a`).
pub(super) fn callee(node: Node) -> Option<Callee> {
    match node.kind() {
        "method_invocation" => Some(Callee {
            name: node.child_by_field_name("name")?,
            qualifier: node.child_by_field_name("object"),
        }),
        "object_creation_expression" => {
            let mut ty = node.child_by_field_name("type")?;
            // `new Outer.Inner()`: the class `Inner` of `Outer`.
            let mut qualifier = None;
            loop {
                match ty.kind() {
                    "type_identifier" => {
                        return Some(Callee {
                            name: ty,
                            qualifier,
                        })
                    }
                    "generic_type" => ty = ty.named_child(0)?,
                    "scoped_type_identifier" => {
                        qualifier = ty.named_child(0);
                        ty = last_named_child(ty)?;
                    }
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

/// A base type's bare name: `B`, `a.b.B` → `B`, `B<T>` → `B`.
pub(super) fn base_name(node: Node, source: &[u8]) -> Option<String> {
    let mut node = node;
    loop {
        match node.kind() {
            "type_identifier" => return Some(text::node_text(source, node)),
            "generic_type" => node = node.named_child(0)?,
            "scoped_type_identifier" => {
                node = last_named_child(node)?;
            }
            _ => return None,
        }
    }
}

fn last_named_child(node: Node) -> Option<Node> {
    let mut cursor = node.walk();
    let last = node.named_children(&mut cursor).last();
    last
}

/// The receiver type a declared type states (`Foo`, `a.b.Foo`, `List<Foo>`), as
/// written; `None` for `var` (the value tells).
pub(super) fn type_hint(node: Node, source: &[u8]) -> Option<String> {
    let mut hint = text::node_text(source, node);
    hint.retain(|c| !c.is_whitespace());
    (!hint.is_empty() && hint != "var" && hint.len() <= 100).then_some(hint)
}

/// The receiver type a value gives its name: `new Foo(..)` → `Foo`; another name → that
/// name's type.
pub(super) fn value_hint(node: Node, source: &[u8]) -> Option<Hint> {
    match node.kind() {
        "identifier" => Some(Hint::Name(text::node_text(source, node))),
        "object_creation_expression" => {
            let ty = node.child_by_field_name("type")?;
            let mut hint = text::node_text(source, ty);
            hint.retain(|c| !c.is_whitespace());
            Some(Hint::Type(hint))
        }
        _ => None,
    }
}
