//! JavaScript / TypeScript / TSX node shapes: callees (with `require` and `import()`
//! recognised as imports), string literals, heritage clauses.

use tree_sitter::Node;

use super::super::{ImportBinding, ImportKind};
use super::{text, Callee, ValueSlot};

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

/// Where a `@reference.holder` of this kind keeps the names it uses as values: the
/// elements of an argument list, `return` or array; the value of a declarator or an
/// object pair; the right side of an assignment; the shorthand properties of an object
/// (`{ f }`). `None` for any other kind.
pub(super) fn value_slot(kind: &str) -> Option<ValueSlot> {
    const NAMES: &[&str] = &["identifier", "member_expression"];
    Some(match kind {
        "arguments" | "return_statement" | "array" => ValueSlot::Children(NAMES),
        "variable_declarator" | "pair" => ValueSlot::Field("value", NAMES),
        "assignment_expression" => ValueSlot::Field("right", NAMES),
        "object" => ValueSlot::Children(&["shorthand_property_identifier"]),
        _ => return None,
    })
}

/// The operands of `a || b` and `a ?? b` (nested ones too), where either side may be
/// the value; `node` itself for any other expression.
pub(super) fn alternatives<'t>(node: Node<'t>, source: &[u8], out: &mut Vec<Node<'t>>) {
    let operator = (node.kind() == "binary_expression")
        .then(|| node.child_by_field_name("operator"))
        .flatten()
        .and_then(|op| source.get(op.start_byte()..op.end_byte()));
    match operator {
        Some(b"||" | b"??") => {
            for side in ["left", "right"] {
                if let Some(operand) = node.child_by_field_name(side) {
                    alternatives(operand, source, out);
                }
            }
        }
        _ => out.push(node),
    }
}

/// A name used as a value (`f`, `a.b.f`, `this.onDone`, the `f` of a shorthand
/// property `{ f }`) taken apart like a callee; `None` for any other expression.
pub(super) fn value_reference(node: Node<'_>) -> Option<Callee<'_>> {
    match node.kind() {
        "identifier" | "shorthand_property_identifier" => Some(Callee {
            name: node,
            qualifier: None,
        }),
        "member_expression" => {
            let name = node.child_by_field_name("property")?;
            (name.kind() == "property_identifier").then(|| Callee {
                name,
                qualifier: node.child_by_field_name("object"),
            })
        }
        _ => None,
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

/// The names an `import` or `export .. from` statement binds (see [`ImportBinding`]):
/// `import d, { a as b, c } from "m"` → `d=default, b=a, c`; `import * as ns` →
/// `ns=*`; TypeScript's `import fs = require("fs")` → `fs=*`. A re-export binds the
/// names it exports: `export { a as b } from "m"` → `b=a`; `export * from "m"` → `*`;
/// `export * as ns from "m"` → `ns=*`.
pub(super) fn import_bindings(statement: Node, source: &[u8]) -> Vec<ImportBinding> {
    let mut out = Vec::new();
    let name = |n: Node| text::unquoted(text::node_text(source, n));
    let mut cursor = statement.walk();
    for child in statement.named_children(&mut cursor) {
        match child.kind() {
            "import_clause" => {
                let mut inner = child.walk();
                for part in child.named_children(&mut inner) {
                    match part.kind() {
                        "identifier" => out.push(ImportBinding::new(name(part), "default")),
                        "namespace_import" => {
                            if let Some(id) = first_named(part, "identifier") {
                                out.push(ImportBinding::new(name(id), "*"));
                            }
                        }
                        "named_imports" => {
                            let mut specs = part.walk();
                            for spec in part.named_children(&mut specs) {
                                if spec.kind() != "import_specifier" {
                                    continue;
                                }
                                let Some(imported) = spec.child_by_field_name("name") else {
                                    continue;
                                };
                                let local = spec.child_by_field_name("alias").unwrap_or(imported);
                                out.push(ImportBinding::new(name(local), name(imported)));
                            }
                        }
                        _ => {}
                    }
                }
            }
            "import_require_clause" => {
                if let Some(id) = first_named(child, "identifier") {
                    out.push(ImportBinding::new(name(id), "*"));
                }
            }
            "export_clause" => {
                let mut specs = child.walk();
                for spec in child.named_children(&mut specs) {
                    if spec.kind() != "export_specifier" {
                        continue;
                    }
                    let Some(imported) = spec.child_by_field_name("name") else {
                        continue;
                    };
                    let exported = spec.child_by_field_name("alias").unwrap_or(imported);
                    out.push(ImportBinding::new(name(exported), name(imported)));
                }
            }
            "namespace_export" => {
                if let Some(id) = first_named(child, "identifier") {
                    out.push(ImportBinding::new(name(id), "*"));
                }
            }
            _ => {}
        }
    }
    if statement.kind() == "export_statement" && out.is_empty() {
        // `export * from "m"`.
        let star = (0..statement.child_count())
            .filter_map(|i| statement.child(i))
            .any(|c| c.kind() == "*");
        if star {
            out.push(ImportBinding::new("*", "*"));
        }
    }
    out
}

/// The names a `require("s")` (or `await import("s")`) call binds, from the
/// declaration around it: `const m = require("s")` → `m=*`; `const { a, b: c } = require("s")` → `a, c=b`;
/// `const f = require("s").f` → `f`. Nothing for a `require` used otherwise.
pub(super) fn require_bindings(callee: Node, source: &[u8]) -> Vec<ImportBinding> {
    let mut out = Vec::new();
    let Some(call) = callee.parent() else {
        return out;
    };
    let mut value = call;
    // `await import("s")`.
    if let Some(parent) = call.parent().filter(|p| p.kind() == "await_expression") {
        value = parent;
    }
    let mut member: Option<String> = None;
    if let Some(parent) = value.parent() {
        if parent.kind() == "member_expression" {
            member = parent
                .child_by_field_name("property")
                .map(|p| text::node_text(source, p));
            value = parent;
        }
    }
    let Some(declarator) = value.parent() else {
        return out;
    };
    if let Some(local) = expando_target(declarator, value, source) {
        out.push(ImportBinding::new(
            local,
            member.unwrap_or_else(|| "*".into()),
        ));
        return out;
    }
    if declarator.kind() != "variable_declarator"
        || declarator.child_by_field_name("value") != Some(value)
    {
        return out;
    }
    let Some(target) = declarator.child_by_field_name("name") else {
        return out;
    };
    let name = |n: Node| text::node_text(source, n);
    match (target.kind(), member) {
        ("identifier", None) => out.push(ImportBinding::new(name(target), "*")),
        ("identifier", Some(member)) => out.push(ImportBinding::new(name(target), member)),
        ("object_pattern", None) => {
            let mut cursor = target.walk();
            for part in target.named_children(&mut cursor) {
                match part.kind() {
                    "shorthand_property_identifier_pattern" => {
                        out.push(ImportBinding::new(name(part), name(part)))
                    }
                    "pair_pattern" => {
                        let key = part.child_by_field_name("key");
                        let value = part.child_by_field_name("value");
                        if let (Some(key), Some(value)) = (key, value) {
                            if value.kind() == "identifier" {
                                out.push(ImportBinding::new(
                                    name(value),
                                    text::unquoted(name(key)),
                                ));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

/// The binding local of `module.exports = require("s")` (a module that re-exports
/// another whole): no bare name can look it up; the extractor also records it as the
/// module's default export, so the module stands for the one it requires.
pub(super) const REEXPORTED_MODULE: &str = "module.exports";

/// `X.p` when `value` is the right side of the top-level statement `X.p = value`
/// (`async.sync = require('./lib/sync')`): a property set on a module-level object,
/// recorded as the binding `X.p`, which no bare name can look up; the resolver reads it
/// as member `p` of a module whose `module.exports` is `X`. `module.exports` itself
/// for `module.exports = value` ([`REEXPORTED_MODULE`]).
fn expando_target(assignment: Node, value: Node, source: &[u8]) -> Option<String> {
    if assignment.kind() != "assignment_expression"
        || assignment.child_by_field_name("right") != Some(value)
    {
        return None;
    }
    let left = assignment.child_by_field_name("left")?;
    let object = left.child_by_field_name("object")?;
    let property = left.child_by_field_name("property")?;
    if left.kind() != "member_expression"
        || object.kind() != "identifier"
        || property.kind() != "property_identifier"
    {
        return None;
    }
    let statement = assignment
        .parent()
        .filter(|p| p.kind() == "expression_statement")?;
    statement.parent().filter(|p| p.kind() == "program")?;
    let object = text::node_text(source, object);
    let property = text::node_text(source, property);
    if object == "module" && property == "exports" {
        return Some(REEXPORTED_MODULE.to_string());
    }
    // `exports.x = ..` is the module's own export (`module.exports.x = ..` has no
    // identifier as its object).
    (object != "module" && object != "exports").then(|| format!("{object}.{property}"))
}

/// Whether the bound name `name` (an identifier in a declaration) is bound by a
/// `require(..)` or `await import(..)` call: `const x = require("m")`, `const { a } = require("m")`,
/// `const f = require("m").f`.
pub(super) fn bound_by_require(name: Node, source: &[u8]) -> bool {
    let mut at = name;
    for _ in 0..4 {
        let Some(parent) = at.parent() else {
            return false;
        };
        if parent.kind() == "variable_declarator" {
            let Some(mut value) = parent.child_by_field_name("value") else {
                return false;
            };
            if value.kind() == "await_expression" {
                match value.named_child(0) {
                    Some(inner) => value = inner,
                    None => return false,
                }
            }
            if value.kind() == "member_expression" {
                match value.child_by_field_name("object") {
                    Some(object) => value = object,
                    None => return false,
                }
            }
            return value.kind() == "call_expression"
                && value.child_by_field_name("function").is_some_and(|f| {
                    f.kind() == "import" || text::node_text(source, f) == "require"
                });
        }
        at = parent;
    }
    false
}

/// The type a TypeScript annotation (`: Foo`, `: ns.Foo<T>`, `: Foo | undefined`)
/// gives a receiver, as a dotted name without type arguments; `None` for anything
/// else (unions of several types, arrays, functions, object types).
pub(super) fn type_hint(annotation: Node, source: &[u8]) -> Option<String> {
    let mut node = annotation;
    if node.kind() == "type_annotation" {
        node = node.named_child(0)?;
    }
    loop {
        match node.kind() {
            "type_identifier" | "nested_type_identifier" => {
                let mut t = text::node_text(source, node);
                t.retain(|c| !c.is_whitespace());
                return Some(t);
            }
            "generic_type" => node = node.child_by_field_name("name")?,
            "union_type" => {
                // `Foo | undefined` / `Foo | null`: the one type that is not nothing.
                let mut cursor = node.walk();
                let kept: Vec<Node> = node
                    .named_children(&mut cursor)
                    .filter(|n| {
                        let t = text::node_text(source, *n);
                        !matches!(t.as_str(), "undefined" | "null" | "void")
                    })
                    .collect();
                match kept.as_slice() {
                    [one] => node = *one,
                    _ => return None,
                }
            }
            "parenthesized_type" => node = node.named_child(0)?,
            _ => return None,
        }
    }
}

/// The receiver type a value gives its name: `new Foo(..)` → `Foo()`, `make(..)` →
/// `make()` (the result of that call), another name → that name's type, `x as Foo` →
/// `Foo`; `None` for anything else.
pub(super) fn value_hint(value: Node, source: &[u8]) -> Option<super::Hint> {
    use super::Hint;
    let dotted = |n: Node| {
        let mut t = text::node_text(source, n);
        t.retain(|c| !c.is_whitespace());
        let ok = !t.is_empty()
            && t.split('.').all(|s| {
                !s.is_empty()
                    && !s.starts_with(|c: char| c.is_ascii_digit())
                    && s.chars()
                        .all(|c| c == '_' || c == '$' || c.is_alphanumeric())
            });
        ok.then_some(t)
    };
    match value.kind() {
        "identifier" => Some(Hint::Name(text::node_text(source, value))),
        "new_expression" => {
            let constructor = value.child_by_field_name("constructor")?;
            dotted(constructor).map(|t| Hint::Value(format!("{t}()")))
        }
        "call_expression" => {
            let function = value.child_by_field_name("function")?;
            dotted(function).map(|t| Hint::Value(format!("{t}()")))
        }
        "as_expression" | "satisfies_expression" => {
            let ty = value.named_child(1)?;
            type_hint(ty, source).map(Hint::Type)
        }
        "parenthesized_expression" => value_hint(value.named_child(0)?, source),
        _ => None,
    }
}

/// Whether `node`, a TypeScript `function_signature` / `method_signature` named `name`,
/// is followed in its block by another declaration of the same name (an overload
/// signature, or the implementation): then it is not a symbol of its own.
pub(super) fn is_overload(node: Node, name: &str, source: &[u8]) -> bool {
    if !matches!(node.kind(), "function_signature" | "method_signature") {
        return false;
    }
    if node.parent().is_some_and(|p| p.kind() == "interface_body") {
        // Interface methods: overloads there have no implementation; keep the last.
        return next_same_name(node, name, source);
    }
    let statement = match node.parent() {
        Some(p) if p.kind() == "export_statement" => p,
        _ => node,
    };
    next_same_name(statement, name, source)
}

/// Whether the declaration after `node` (comments skipped; through `export`) has the
/// name `name`.
fn next_same_name(node: Node, name: &str, source: &[u8]) -> bool {
    let mut next = node.next_named_sibling();
    while let Some(n) = next {
        if n.is_extra() || n.kind() == "comment" {
            next = n.next_named_sibling();
            continue;
        }
        let declaration = if n.kind() == "export_statement" {
            match n.child_by_field_name("declaration") {
                Some(d) => d,
                None => return false,
            }
        } else {
            n
        };
        return declaration
            .child_by_field_name("name")
            .is_some_and(|found| text::node_text(source, found) == name);
    }
    false
}

/// The first named child of `node` of kind `kind`.
fn first_named<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    let found = node.named_children(&mut cursor).find(|c| c.kind() == kind);
    found
}
