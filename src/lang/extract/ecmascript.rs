//! JavaScript / TypeScript / TSX node shapes: callees (with `require` and `import()`
//! recognised as imports), string literals, heritage clauses.

use tree_sitter::Node;

use super::super::ImportKind;
use super::{text, Callee};

/// What a call expression is.
pub(super) enum CallSite<'t> {
    /// An ordinary call or `new`.
    Call(Callee<'t>),
    /// `require("s")` or `import("s")` with a literal specifier.
    Import(ImportKind, String),
    /// Nothing to record: `require(variable)`, `super()`, `(0, f)()`, ..
    Other,
}

/// Classifies a call by its callee (`function` / `constructor` field) and arguments.
pub(super) fn call_site<'t>(
    callee: Node<'t>,
    arguments: Option<Node<'t>>,
    source: &[u8],
) -> CallSite<'t> {
    match callee.kind() {
        "identifier" => {
            if source.get(callee.start_byte()..callee.end_byte()) == Some(b"require".as_slice())
                && arguments.is_some()
            {
                return match arguments.and_then(|a| first_literal(a, source)) {
                    Some(specifier) => CallSite::Import(ImportKind::Require, specifier),
                    None => CallSite::Other,
                };
            }
            CallSite::Call(Callee {
                name: callee,
                qualifier: None,
            })
        }
        "import" => match arguments.and_then(|a| first_literal(a, source)) {
            Some(specifier) => CallSite::Import(ImportKind::Dynamic, specifier),
            None => CallSite::Other,
        },
        "member_expression" => match callee.child_by_field_name("property") {
            Some(name) => CallSite::Call(Callee {
                name,
                qualifier: callee.child_by_field_name("object"),
            }),
            None => CallSite::Other,
        },
        _ => CallSite::Other,
    }
}

/// The first argument if it is a string, or a template string without `${}`.
fn first_literal(arguments: Node, source: &[u8]) -> Option<String> {
    let mut cursor = arguments.walk();
    let first = arguments
        .named_children(&mut cursor)
        .find(|child| !child.is_extra())?;
    string_value(first, source)
}

/// The content of a string literal or substitution-free template string, without
/// quotes and as written (escapes are not decoded).
pub(super) fn string_value(node: Node, source: &[u8]) -> Option<String> {
    match node.kind() {
        "string" => {}
        "template_string" => {
            let mut cursor = node.walk();
            let has_substitution = node
                .named_children(&mut cursor)
                .any(|child| child.kind() == "template_substitution");
            if has_substitution {
                return None;
            }
        }
        _ => return None,
    }
    let quoted = text::node_text(source, node);
    let unquoted = text::unquoted(quoted.clone());
    (unquoted.len() < quoted.len()).then_some(unquoted)
}

/// A base's bare name: `B`, `a.B` → `B`, `B<T>` → `B`, `ns.I` → `I`. `None` for
/// computed bases (`mixin(A)`) and for TypeScript's clause wrappers.
pub(super) fn base_name(node: Node, source: &[u8]) -> Option<String> {
    let mut node = node;
    loop {
        match node.kind() {
            "identifier" | "type_identifier" | "property_identifier" => {
                return Some(text::node_text(source, node))
            }
            "member_expression" => node = node.child_by_field_name("property")?,
            "nested_type_identifier" => node = node.child_by_field_name("name")?,
            "nested_identifier" => node = node.child_by_field_name("property")?,
            "generic_type" => node = node.child_by_field_name("name")?,
            _ => return None,
        }
    }
}
