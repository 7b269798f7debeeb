//! Go node shapes: import specs, method receivers, callees, embedded types.

use tree_sitter::Node;

use super::bindings::Hint;
use super::{text, Callee};

/// The path and the local name (alias, `.` or `_`) of an `import_spec`; `None` when
/// the path is not a string literal.
pub(super) fn import_spec(spec: Node, source: &[u8]) -> Option<(String, Option<String>)> {
    let path = spec.child_by_field_name("path")?;
    let quoted = text::node_text(source, path);
    let unquoted = text::unquoted(quoted.clone());
    if unquoted.len() == quoted.len() || unquoted.is_empty() {
        return None;
    }
    let local = spec
        .child_by_field_name("name")
        .map(|name| text::node_text(source, name));
    Some((unquoted, local))
}

/// The bare type name of a method receiver: `(l *List[T])` → `List`, `(Point)` →
/// `Point`. `None` when the receiver names no type (a syntax error).
pub(super) fn receiver_type(receiver: Node, source: &[u8]) -> Option<String> {
    let mut cursor = receiver.walk();
    let parameter = receiver
        .named_children(&mut cursor)
        .find(|child| child.kind() == "parameter_declaration")?;
    let mut node = parameter.child_by_field_name("type")?;
    loop {
        match node.kind() {
            "type_identifier" => return Some(text::node_text(source, node)),
            "pointer_type" | "parenthesized_type" => node = node.named_child(0)?,
            "generic_type" => node = node.child_by_field_name("type")?,
            _ => return None,
        }
    }
}

/// Where a type's signature starts: at `type` for `type Point struct`, at the name for
/// a spec inside `type ( .. )`.
pub(super) fn declaration_start(node: Node) -> usize {
    match (node.prev_sibling(), node.parent()) {
        (Some(keyword), Some(parent)) if keyword.kind() == "type" => parent.start_byte(),
        _ => node.start_byte(),
    }
}

/// `f`, `pkg.F`, `x.y.m`, `f[T]`, `(f)`; `None` for conversions (`[]byte(s)`), calls of
/// function literals and the like.
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
            "selector_expression" => {
                return Some(Callee {
                    name: node.child_by_field_name("field")?,
                    qualifier: node.child_by_field_name("operand"),
                })
            }
            "parenthesized_expression" => node = node.named_child(0)?,
            // `f[int](x)`: an instantiation called in place.
            "index_expression" | "generic_type" => {
                node = node
                    .child_by_field_name("operand")
                    .or_else(|| node.child_by_field_name("type"))?
            }
            _ => return None,
        }
    }
}

/// An embedded type's bare name: `Base`, `*Base` → `Base`, `io.Reader` → `Reader`,
/// `List[T]` → `List`.
pub(super) fn base_name(node: Node, source: &[u8]) -> Option<String> {
    let mut node = node;
    loop {
        match node.kind() {
            "type_identifier" => return Some(text::node_text(source, node)),
            "qualified_type" => node = node.child_by_field_name("name")?,
            "pointer_type" => node = node.named_child(0)?,
            "generic_type" => node = node.child_by_field_name("type")?,
            _ => return None,
        }
    }
}

/// The receiver type a declared type states, as written (`*T`, `pkg.T`).
pub(super) fn type_hint(node: Node, source: &[u8]) -> Option<String> {
    let mut hint = text::node_text(source, node);
    hint.retain(|c| !c.is_whitespace());
    (!hint.is_empty() && hint.len() <= 100).then_some(hint)
}

/// The receiver type a value gives its name: `T{..}`, `&T{..}` and `new(T)` → `T`;
/// `NewT(..)` / `pkg.NewT(..)` → `NewT()` / `pkg.NewT()` (its declared result); another
/// name → that name's type.
pub(super) fn value_hint(node: Node, source: &[u8]) -> Option<Hint> {
    match node.kind() {
        "identifier" => Some(Hint::Name(text::node_text(source, node))),
        "composite_literal" => {
            let ty = node.child_by_field_name("type")?;
            matches!(
                ty.kind(),
                "type_identifier" | "qualified_type" | "generic_type"
            )
            .then(|| Hint::Type(text::node_text(source, ty)))
        }
        "unary_expression" => {
            let operand = node.child_by_field_name("operand")?;
            (operand.kind() == "composite_literal")
                .then(|| value_hint(operand, source))
                .flatten()
        }
        "call_expression" => {
            let function = node.child_by_field_name("function")?;
            let callee = text::node_text(source, function);
            if callee == "new" {
                let arguments = node.child_by_field_name("arguments")?;
                let ty = arguments.named_child(0)?;
                return Some(Hint::Type(text::node_text(source, ty)));
            }
            let simple = match function.kind() {
                "identifier" => true,
                "selector_expression" => function
                    .child_by_field_name("operand")
                    .is_some_and(|o| o.kind() == "identifier"),
                _ => false,
            };
            simple.then(|| Hint::Value(format!("{callee}()")))
        }
        _ => None,
    }
}
