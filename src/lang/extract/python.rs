//! Python node shapes: import statements, callees, base classes, `TYPE_CHECKING`.

use tree_sitter::{Node, TreeCursor};

use super::super::ImportBinding;
use super::bindings::Hint;
use super::{text, Callee, ValueSlot};

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

/// Where a `@reference.holder` of this kind keeps the names it uses as values: the
/// elements of an argument list, `return`, expression list, list, tuple or set; the
/// value of a keyword argument, dictionary pair or parameter default; the right side
/// of an assignment. `None` for any other kind.
pub(super) fn value_slot(kind: &str) -> Option<ValueSlot> {
    const NAMES: &[&str] = &["identifier", "attribute"];
    Some(match kind {
        "argument_list" | "return_statement" | "expression_list" | "list" | "tuple" | "set" => {
            ValueSlot::Children(NAMES)
        }
        "keyword_argument" | "pair" | "default_parameter" | "typed_default_parameter" => {
            ValueSlot::Field("value", NAMES)
        }
        "assignment" | "augmented_assignment" => ValueSlot::Field("right", NAMES),
        _ => return None,
    })
}

/// The `self.x` (or `cls.x`) at the start of a receiver `self.x`, `self.x.y`, ..: the
/// attribute read first; `None` for any other receiver.
pub(super) fn self_attribute<'t>(receiver: Node<'t>, source: &[u8]) -> Option<Node<'t>> {
    let mut node = receiver;
    loop {
        if node.kind() != "attribute" {
            return None;
        }
        let object = node.child_by_field_name("object")?;
        if object.kind() == "identifier" {
            let root = source.get(object.start_byte()..object.end_byte())?;
            return matches!(root, b"self" | b"cls").then_some(node);
        }
        node = object;
    }
}

/// The operands of `a or b` (nested ones too), where either side may be the value;
/// `node` itself for any other expression.
pub(super) fn alternatives<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    let is_or = node.kind() == "boolean_operator"
        && node
            .child_by_field_name("operator")
            .is_some_and(|op| op.kind() == "or");
    if !is_or {
        out.push(node);
        return;
    }
    for side in ["left", "right"] {
        if let Some(operand) = node.child_by_field_name(side) {
            alternatives(operand, out);
        }
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

/// One Python import as [`imports`] splits it: the specifier, the `from` names (as
/// imported), and the names bound in the importing file.
pub(super) type PyImport = (String, Vec<String>, Vec<ImportBinding>);

/// The imports of a statement: one per module of `import a.b, c as d` (names empty;
/// `a.b` binds `a` to module `a`, `c as d` binds `d` to module `c`); one for
/// `from M import x, y as z` (names `x`, `y`, bindings `x`, `z=y`; `*` for a star
/// import); `from __future__ import x` counts as a from-import of `__future__`.
pub(super) fn imports<'t>(
    statement: Node<'t>,
    source: &[u8],
    cursor: &mut TreeCursor<'t>,
) -> Vec<PyImport> {
    let kind = statement.kind();
    let mut modules: Vec<PyImport> = Vec::new();
    let mut from = match kind {
        "future_import_statement" => Some("__future__".to_string()),
        _ => None,
    };
    let mut names = Vec::new();
    let mut bindings = Vec::new();
    cursor.reset(statement);
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            match cursor.field_name() {
                Some("module_name") => from = Some(dotted(source, child)),
                Some("name") if kind == "import_statement" => {
                    let module = imported(source, child);
                    let binding = match alias(source, child) {
                        Some(local) => ImportBinding::new(local, module.clone()),
                        None => {
                            let top = module.split('.').next().unwrap_or_default().to_string();
                            ImportBinding::new(top.clone(), top)
                        }
                    };
                    let bound = (!binding.local.is_empty()).then_some(binding);
                    modules.push((module, Vec::new(), bound.into_iter().collect()))
                }
                Some("name") => {
                    let name = imported(source, child);
                    let local = alias(source, child).unwrap_or_else(|| name.clone());
                    if !name.is_empty() && !name.contains('.') {
                        bindings.push(ImportBinding::new(local, name.clone()));
                    }
                    names.push(name);
                }
                _ if child.kind() == "wildcard_import" => {
                    names.push("*".to_string());
                    bindings.push(ImportBinding::new("*", "*"));
                }
                _ => {}
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    if let Some(module) = from {
        modules.push((module, names, bindings));
    }
    modules.retain(|(module, _, _)| !module.is_empty());
    modules
}

/// The `as` name of an `aliased_import`.
fn alias(source: &[u8], node: Node) -> Option<String> {
    (node.kind() == "aliased_import")
        .then(|| node.child_by_field_name("alias"))
        .flatten()
        .map(|alias| text::node_text(source, alias))
        .filter(|alias| !alias.is_empty())
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

/// The qualifier of a base (`models` in `models.Model`, `a.b` in `a.b.C[T]`); `None`
/// for a bare name.
pub(super) fn base_qualifier(node: Node, source: &[u8]) -> Option<String> {
    let mut node = node;
    loop {
        match node.kind() {
            "attribute" => {
                return node
                    .child_by_field_name("object")
                    .map(|object| text::node_text(source, object))
            }
            "subscript" => node = node.child_by_field_name("value")?,
            _ => return None,
        }
    }
}

/// The receiver type an annotation (a `type` node) states, normalized by
/// [`crate::lang::annotations::python`].
pub(super) fn type_hint(node: Node, source: &[u8]) -> Option<String> {
    crate::lang::annotations::python(&text::node_text(source, node))
}

/// The receiver type a value gives its name: `Foo(...)` → `Foo()`, `a.make(...)` →
/// `a.make()` (the result of that call), another name → that name's type; `None` for
/// anything else.
/// A module-level alias, `OMD = OrderedMultiDict` or `error = os.error`: `name` is the
/// whole left side of an assignment statement written at the top of the module (not
/// inside an `if`, `try`, loop, function or class: a conditional alias, such as
/// `if 'strcoll' not in globals(): strcoll = _strcoll`, may not be what runs), and
/// `value` a name or a dotted path of names. Returns the path (`OrderedMultiDict`,
/// `os.error`), recorded as an export of the module: another name for what the path
/// names.
pub(super) fn module_alias(name: Node, value: Node, source: &[u8]) -> Option<String> {
    // `Node::parent` walks down from the root, through every top-level statement
    // before this one: asked only of the few bindings whose value is a name.
    if !matches!(value.kind(), "identifier" | "attribute") {
        return None;
    }
    let assignment = name.parent().filter(|p| p.kind() == "assignment")?;
    if assignment.child_by_field_name("left") != Some(name)
        || assignment.child_by_field_name("right") != Some(value)
    {
        return None;
    }
    let statement = assignment
        .parent()
        .filter(|p| p.kind() == "expression_statement")?;
    statement.parent().filter(|p| p.kind() == "module")?;
    dotted_path(value, source)
}

/// `X.__new__(C, ...)` (`super().__new__(cls)`, `object.__new__(cls)`) makes an
/// instance of `C`: the first argument, when it is a name.
fn new_instance_of<'t>(function: Node<'t>, call: Node<'t>, source: &[u8]) -> Option<Node<'t>> {
    if function.kind() != "attribute" {
        return None;
    }
    let attribute = function.child_by_field_name("attribute")?;
    if attribute.kind() != "identifier" || text::node_text(source, attribute) != "__new__" {
        return None;
    }
    let first = call.child_by_field_name("arguments")?.named_child(0)?;
    (first.kind() == "identifier").then_some(first)
}

/// `a` or `a.b.c` when `node` is a name or an attribute path of names only.
fn dotted_path(node: Node, source: &[u8]) -> Option<String> {
    match node.kind() {
        "identifier" => Some(text::node_text(source, node)),
        "attribute" => {
            let object = dotted_path(node.child_by_field_name("object")?, source)?;
            let attribute = node.child_by_field_name("attribute")?;
            (attribute.kind() == "identifier")
                .then(|| format!("{object}.{}", text::node_text(source, attribute)))
        }
        _ => None,
    }
}

/// What a `return` statement gives its function as a receiver hint: `None` when it
/// returns nothing or `None`; `Some(None)` for a value that gives no hint; else
/// `Some(Some(hint))`: `self`, or the call hint of [`value_hint`] (`Foo()`, `cls()`).
pub(super) fn return_hint(statement: Node, source: &[u8]) -> Option<Option<String>> {
    let value = statement.named_child(0)?;
    match value.kind() {
        "none" => None,
        "identifier" if text::node_text(source, value) == "self" => Some(Some("self".into())),
        "call" => Some(match value_hint(value, source) {
            Some(Hint::Value(hint)) => Some(hint),
            _ => None,
        }),
        _ => Some(None),
    }
}

pub(super) fn value_hint(node: Node, source: &[u8]) -> Option<Hint> {
    if node.kind() == "identifier" {
        return Some(Hint::Name(text::node_text(source, node)));
    }
    if node.kind() != "call" {
        return None;
    }
    let function = node.child_by_field_name("function")?;
    if let Some(class) = new_instance_of(function, node, source) {
        return Some(Hint::Value(format!("{}()", text::node_text(source, class))));
    }
    let mut text = text::node_text(source, function);
    text.retain(|c| !c.is_whitespace());
    let dotted = !text.is_empty()
        && text
            .split('.')
            .all(|s| !s.is_empty() && s.chars().all(|c| c == '_' || c.is_alphanumeric()));
    dotted.then(|| Hint::Value(format!("{text}()")))
}
