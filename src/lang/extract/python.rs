//! Python node shapes: import statements, callees, base classes, `TYPE_CHECKING`.

use tree_sitter::{Node, TreeCursor};

use super::{text, Callee};

/// `f` or `a.b.f` (name `f`, qualifier `a.b`); `None` for `f()()`, `x[0]()`, ..
pub(super) fn callee(node: Node) -> Option<Callee> {
    match node.kind() {
        "identifier" => Some(Callee {
            name: node,
            qualifier: None,
        }),
        "attribute" => Some(Callee {
            name: node.child_by_field_name("attribute")?,
            qualifier: node.child_by_field_name("object"),
        }),
        _ => None,
    }
}

/// A dotted name or relative module as written, whitespace removed (`..pkg.mod`).
fn dotted(source: &[u8], node: Node) -> String {
    let mut name = text::node_text(source, node);
    name.retain(|c| !c.is_whitespace());
    name
}

/// The imported name of an `import` list item: `a.b` in `a.b as c`.
fn imported(source: &[u8], node: Node) -> String {
    match node.kind() {
        "aliased_import" => node
            .child_by_field_name("name")
            .map(|name| dotted(source, name))
            .unwrap_or_default(),
        _ => dotted(source, node),
    }
}

/// The `(specifier, names)` pairs of an import statement: one per module of
/// `import a.b, c as d` (names empty); one for `from M import x, y` (names `x`, `y`,
/// or `*`); `from __future__ import x` counts as a from-import of `__future__`.
pub(super) fn imports<'t>(
    statement: Node<'t>,
    source: &[u8],
    cursor: &mut TreeCursor<'t>,
) -> Vec<(String, Vec<String>)> {
    let kind = statement.kind();
    let mut modules = Vec::new();
    let mut from = match kind {
        "future_import_statement" => Some("__future__".to_string()),
        _ => None,
    };
    let mut names = Vec::new();
    cursor.reset(statement);
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            match cursor.field_name() {
                Some("module_name") => from = Some(dotted(source, child)),
                Some("name") if kind == "import_statement" => {
                    modules.push((imported(source, child), Vec::new()))
                }
                Some("name") => names.push(imported(source, child)),
                _ if child.kind() == "wildcard_import" => names.push("*".to_string()),
                _ => {}
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    if let Some(module) = from {
        modules.push((module, names));
    }
    modules.retain(|(module, _)| !module.is_empty());
    modules
}

/// A base class's bare name: `B`, `m.B` → `B`, `Generic[T]` → `Generic`.
pub(super) fn base_name(node: Node, source: &[u8]) -> Option<String> {
    let mut node = node;
    loop {
        match node.kind() {
            "identifier" => return Some(text::node_text(source, node)),
            "attribute" => node = node.child_by_field_name("attribute")?,
            "subscript" => node = node.child_by_field_name("value")?,
            _ => return None,
        }
    }
}

/// True for the conditions `TYPE_CHECKING` and `<anything>.TYPE_CHECKING`.
pub(super) fn is_type_checking(condition: Node, source: &[u8]) -> bool {
    let name = match condition.kind() {
        "attribute" => condition.child_by_field_name("attribute"),
        _ => Some(condition),
    };
    name.is_some_and(|name| {
        source.get(name.start_byte()..name.end_byte()) == Some(b"TYPE_CHECKING".as_slice())
    })
}
