//! The Python query (`queries/python.scm`) as a walk: 32 patterns starting at 34
//! node kinds. Each arm below quotes the patterns it stands for.

use tree_sitter::{Language as Grammar, Node};

use super::{of_kind, with_field, Ids, Kids, Patterns, Scratch};
use crate::lang::extract::{ImportKind, Parts, SymbolKind};

/// The node kinds where a pattern of the Python query starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    Function,
    Class,
    Assignment,
    Import,
    If,
    Call,
    /// A `@reference.holder` kind with no other pattern.
    Holder,
    Yield,
    /// `parameters`, `lambda_parameters`, `list_splat_pattern`,
    /// `dictionary_splat_pattern`, `as_pattern_target`: identifier children bind.
    BindsChildren,
    DefaultParameter,
    TypedParameter,
    TypedDefaultParameter,
    AugmentedAssignment,
    NamedExpression,
    /// `for_statement`, `for_in_clause`.
    ForTarget,
    /// `global_statement`, `nonlocal_statement`.
    Global,
}

/// The Python grammar's ids the walk compares against.
#[derive(Debug)]
pub(in crate::lang::extract) struct Shapes {
    starts: Vec<Option<Start>>,
    as_pattern_target: u16,
    identifier: u16,
    attribute: u16,
    subscript: u16,
    lambda: u16,
    block: u16,
    argument_list: u16,
    type_: u16,
    pattern_list: u16,
    tuple_pattern: u16,
    list_pattern: u16,
    tuple: u16,
    list: u16,
    f_name: u16,
    f_left: u16,
    f_right: u16,
    f_type: u16,
    f_value: u16,
    f_condition: u16,
    f_consequence: u16,
    f_function: u16,
    f_superclasses: u16,
    f_object: u16,
    f_attribute: u16,
}

impl Shapes {
    pub(super) fn new(grammar: &Grammar) -> Option<Shapes> {
        let ids = Ids(grammar);
        let mut starts = vec![
            ("function_definition", Start::Function),
            ("class_definition", Start::Class),
            ("assignment", Start::Assignment),
            ("import_statement", Start::Import),
            ("import_from_statement", Start::Import),
            ("future_import_statement", Start::Import),
            ("if_statement", Start::If),
            ("call", Start::Call),
            ("yield", Start::Yield),
            ("parameters", Start::BindsChildren),
            ("lambda_parameters", Start::BindsChildren),
            ("list_splat_pattern", Start::BindsChildren),
            ("dictionary_splat_pattern", Start::BindsChildren),
            ("as_pattern_target", Start::BindsChildren),
            ("default_parameter", Start::DefaultParameter),
            ("typed_parameter", Start::TypedParameter),
            ("typed_default_parameter", Start::TypedDefaultParameter),
            ("augmented_assignment", Start::AugmentedAssignment),
            ("named_expression", Start::NamedExpression),
            ("for_statement", Start::ForTarget),
            ("for_in_clause", Start::ForTarget),
            ("global_statement", Start::Global),
            ("nonlocal_statement", Start::Global),
        ];
        // The holders without another pattern (assignment, augmented_assignment,
        // default_parameter and typed_default_parameter are holders too; their arms
        // emit the holder).
        for holder in [
            "argument_list",
            "keyword_argument",
            "return_statement",
            "expression_list",
            "list",
            "tuple",
            "set",
            "pair",
        ] {
            starts.push((holder, Start::Holder));
        }
        Some(Shapes {
            starts: ids.starts(&starts)?,
            as_pattern_target: ids.kind("as_pattern_target")?,
            identifier: ids.kind("identifier")?,
            attribute: ids.kind("attribute")?,
            subscript: ids.kind("subscript")?,
            lambda: ids.kind("lambda")?,
            block: ids.kind("block")?,
            argument_list: ids.kind("argument_list")?,
            type_: ids.kind("type")?,
            pattern_list: ids.kind("pattern_list")?,
            tuple_pattern: ids.kind("tuple_pattern")?,
            list_pattern: ids.kind("list_pattern")?,
            tuple: ids.kind("tuple")?,
            list: ids.kind("list")?,
            f_name: ids.field("name")?,
            f_left: ids.field("left")?,
            f_right: ids.field("right")?,
            f_type: ids.field("type")?,
            f_value: ids.field("value")?,
            f_condition: ids.field("condition")?,
            f_consequence: ids.field("consequence")?,
            f_function: ids.field("function")?,
            f_superclasses: ids.field("superclasses")?,
            f_object: ids.field("object")?,
            f_attribute: ids.field("attribute")?,
        })
    }

    /// The patterns that start at an `assignment`, in the query's order.
    fn assignment<'t>(
        &self,
        node: Node<'t>,
        kids: &Kids<'t>,
        scratch: &mut Scratch<'t>,
        emit: &mut impl FnMut(Parts<'t>),
    ) {
        let typed = with_field(kids, self.f_type).next().is_some();
        // (assignment left: (identifier) @name right: (lambda) @value) @definition.function
        for (i, &(field, left)) in kids.iter().enumerate() {
            if field != self.f_left || left.kind_id() != self.identifier {
                continue;
            }
            for value in self.fields_of_kind(&kids[i + 1..], self.f_right, self.lambda) {
                emit(Parts {
                    definition: Some((SymbolKind::Function, node)),
                    name: Some(left),
                    value: Some(value),
                    ..Parts::default()
                });
            }
        }
        // [.. (assignment) ..] @reference.holder
        emit(Parts {
            reference_holder: Some(node),
            ..Parts::default()
        });
        // (assignment left: (identifier) @local.name type: (type) @local.type)
        self.name_then_type(kids, self.f_left, |name, ty| {
            emit(Parts {
                local_name: Some(name),
                local_type: Some(ty),
                ..Parts::default()
            })
        });
        // (assignment left: (identifier) @local.name !type right: (_) @local.value)
        if !typed {
            self.left_then_right(kids, self.identifier, |name, value| {
                emit(Parts {
                    local_name: Some(name),
                    local_value: Some(value),
                    ..Parts::default()
                })
            });
        }
        // (assignment left: [(pattern_list (identifier) @local.name)
        //                    (tuple_pattern (identifier) @local.name)
        //                    (list_pattern (identifier) @local.name)])
        for left in with_field(kids, self.f_left) {
            let k = left.kind_id();
            if k == self.pattern_list || k == self.tuple_pattern || k == self.list_pattern {
                let inner = scratch.kids(left);
                for name in of_kind(&inner, self.identifier) {
                    emit(Parts {
                        local_name: Some(name),
                        ..Parts::default()
                    });
                }
                scratch.give(inner);
            }
        }
        // (assignment left: (attribute object: (identifier) @field.object
        //   attribute: (identifier) @field.name) type: (type) @field.type)
        // (assignment left: (attribute ..same..) !type right: (_) @field.value)
        for (i, &(field, left)) in kids.iter().enumerate() {
            if field != self.f_left || left.kind_id() != self.attribute {
                continue;
            }
            let inner = scratch.kids(left);
            for (j, &(f, object)) in inner.iter().enumerate() {
                if f != self.f_object || object.kind_id() != self.identifier {
                    continue;
                }
                for name in self.fields_of_kind(&inner[j + 1..], self.f_attribute, self.identifier)
                {
                    for ty in self.fields_of_kind(&kids[i + 1..], self.f_type, self.type_) {
                        emit(Parts {
                            field_object: Some(object),
                            field_name: Some(name),
                            field_type: Some(ty),
                            ..Parts::default()
                        });
                    }
                    if !typed {
                        for value in with_field(&kids[i + 1..], self.f_right) {
                            if value.is_named() {
                                emit(Parts {
                                    field_object: Some(object),
                                    field_name: Some(name),
                                    field_value: Some(value),
                                    ..Parts::default()
                                });
                            }
                        }
                    }
                }
            }
            scratch.give(inner);
        }
    }

    /// The children in `kids` carrying `field` and of kind `kind`.
    fn fields_of_kind<'a, 't>(
        &self,
        kids: &'a [(u16, Node<'t>)],
        field: u16,
        kind: u16,
    ) -> impl Iterator<Item = Node<'t>> + 'a {
        with_field(kids, field).filter(move |n| n.kind_id() == kind)
    }

    /// `name_field: (identifier) .. type: (type)`: each identifier in `name_field`
    /// with each later `type` child.
    fn name_then_type<'t>(
        &self,
        kids: &[(u16, Node<'t>)],
        name_field: u16,
        mut found: impl FnMut(Node<'t>, Node<'t>),
    ) {
        for (i, &(field, name)) in kids.iter().enumerate() {
            if field != name_field || name.kind_id() != self.identifier {
                continue;
            }
            for ty in self.fields_of_kind(&kids[i + 1..], self.f_type, self.type_) {
                found(name, ty);
            }
        }
    }

    /// `left: (kind) .. right: (_)`: each `left` child of `kind` with each later named
    /// `right` child.
    fn left_then_right<'t>(
        &self,
        kids: &[(u16, Node<'t>)],
        kind: u16,
        mut found: impl FnMut(Node<'t>, Node<'t>),
    ) {
        for (i, &(field, left)) in kids.iter().enumerate() {
            if field != self.f_left || left.kind_id() != kind {
                continue;
            }
            for value in with_field(&kids[i + 1..], self.f_right) {
                if value.is_named() {
                    found(left, value);
                }
            }
        }
    }
}

impl Patterns for Shapes {
    type Start = Start;

    fn starts(&self) -> &[Option<Start>] {
        &self.starts
    }

    fn at<'t>(
        &self,
        start: Start,
        node: Node<'t>,
        scratch: &mut Scratch<'t>,
        emit: &mut impl FnMut(Parts<'t>),
    ) {
        let holder = |emit: &mut dyn FnMut(Parts<'t>)| {
            emit(Parts {
                reference_holder: Some(node),
                ..Parts::default()
            })
        };
        let local = |name: Node<'t>| Parts {
            local_name: Some(name),
            ..Parts::default()
        };
        // The patterns that read no children.
        match start {
            Start::Holder => return holder(emit),
            // (yield) @returns.yield
            Start::Yield => {
                return emit(Parts {
                    yield_expression: Some(node),
                    ..Parts::default()
                })
            }
            // (import_statement) @import.import, and from / __future__ imports.
            Start::Import => {
                return emit(Parts {
                    import: Some((ImportKind::Import, node)),
                    ..Parts::default()
                })
            }
            _ => {}
        }
        let kids = scratch.kids(node);
        match start {
            // (function_definition name: (identifier) @name) @definition.function
            // (class_definition name: (identifier) @name) @definition.class
            Start::Function | Start::Class => {
                let kind = if start == Start::Function {
                    SymbolKind::Function
                } else {
                    SymbolKind::Class
                };
                for name in self.fields_of_kind(&kids, self.f_name, self.identifier) {
                    emit(Parts {
                        definition: Some((kind, node)),
                        name: Some(name),
                        ..Parts::default()
                    });
                }
                // (class_definition superclasses: (argument_list
                //   [(identifier) (attribute) (subscript)] @inherit.extends))
                if start == Start::Class {
                    for list in self.fields_of_kind(&kids, self.f_superclasses, self.argument_list)
                    {
                        let bases = scratch.kids(list);
                        for &(_, base) in &bases {
                            let k = base.kind_id();
                            if k == self.identifier || k == self.attribute || k == self.subscript {
                                emit(Parts {
                                    inherit: Some((false, base)),
                                    ..Parts::default()
                                });
                            }
                        }
                        scratch.give(bases);
                    }
                }
            }
            Start::Assignment => self.assignment(node, &kids, scratch, emit),
            // (if_statement condition: [(identifier) (attribute)] @type_checking.condition
            //   consequence: (block) @type_checking.block)
            Start::If => {
                for (i, &(field, condition)) in kids.iter().enumerate() {
                    let k = condition.kind_id();
                    if field != self.f_condition || (k != self.identifier && k != self.attribute) {
                        continue;
                    }
                    for block in self.fields_of_kind(&kids[i + 1..], self.f_consequence, self.block)
                    {
                        emit(Parts {
                            type_checking_condition: Some(condition),
                            type_checking_block: Some(block),
                            ..Parts::default()
                        });
                    }
                }
            }
            // (call function: (_) @call)
            Start::Call => {
                for callee in with_field(&kids, self.f_function) {
                    if callee.is_named() {
                        emit(Parts {
                            call: Some(callee),
                            ..Parts::default()
                        });
                    }
                }
            }
            Start::Holder | Start::Yield | Start::Import => {}
            // (parameters (identifier) @local.name), lambda_parameters,
            // list_splat_pattern, dictionary_splat_pattern, and
            // (as_pattern_target [(tuple (identifier) @local.name)
            //   (list (identifier) @local.name)]) besides its identifiers.
            Start::BindsChildren => {
                of_kind(&kids, self.identifier).for_each(|name| emit(local(name)));
                if node.kind_id() == self.as_pattern_target {
                    for &(_, group) in &kids {
                        if group.kind_id() == self.tuple || group.kind_id() == self.list {
                            let inner = scratch.kids(group);
                            of_kind(&inner, self.identifier).for_each(|name| emit(local(name)));
                            scratch.give(inner);
                        }
                    }
                }
            }
            // (default_parameter name: (identifier) @local.name), and a holder.
            Start::DefaultParameter => {
                holder(emit);
                self.fields_of_kind(&kids, self.f_name, self.identifier)
                    .for_each(|name| emit(local(name)));
            }
            // (typed_parameter (identifier) @local.name type: (type) @local.type)
            Start::TypedParameter => {
                for (i, &(_, name)) in kids.iter().enumerate() {
                    if name.kind_id() != self.identifier {
                        continue;
                    }
                    for ty in self.fields_of_kind(&kids[i + 1..], self.f_type, self.type_) {
                        emit(Parts {
                            local_name: Some(name),
                            local_type: Some(ty),
                            ..Parts::default()
                        });
                    }
                }
            }
            // (typed_default_parameter name: (identifier) @local.name type: (type)
            //   @local.type), and a holder.
            Start::TypedDefaultParameter => {
                holder(emit);
                self.name_then_type(&kids, self.f_name, |name, ty| {
                    emit(Parts {
                        local_name: Some(name),
                        local_type: Some(ty),
                        ..Parts::default()
                    })
                });
            }
            // (augmented_assignment left: (identifier) @local.name), and a holder.
            Start::AugmentedAssignment => {
                holder(emit);
                self.fields_of_kind(&kids, self.f_left, self.identifier)
                    .for_each(|name| emit(local(name)));
            }
            // (named_expression name: (identifier) @local.name value: (_) @local.value)
            Start::NamedExpression => {
                for (i, &(field, name)) in kids.iter().enumerate() {
                    if field != self.f_name || name.kind_id() != self.identifier {
                        continue;
                    }
                    for value in with_field(&kids[i + 1..], self.f_value) {
                        if value.is_named() {
                            emit(Parts {
                                local_name: Some(name),
                                local_value: Some(value),
                                ..Parts::default()
                            });
                        }
                    }
                }
            }
            // (for_statement left: (identifier) @local.name)
            // (for_statement left: [(pattern_list (identifier) @local.name)
            //                       (tuple_pattern (identifier) @local.name)])
            // and the same for for_in_clause.
            Start::ForTarget => {
                for target in with_field(&kids, self.f_left) {
                    let k = target.kind_id();
                    if k == self.identifier {
                        emit(local(target));
                    } else if k == self.pattern_list || k == self.tuple_pattern {
                        let inner = scratch.kids(target);
                        of_kind(&inner, self.identifier).for_each(|name| emit(local(name)));
                        scratch.give(inner);
                    }
                }
            }
            // (global_statement (identifier) @local.global), nonlocal_statement.
            Start::Global => {
                for name in of_kind(&kids, self.identifier) {
                    emit(Parts {
                        local_global: Some(name),
                        ..Parts::default()
                    });
                }
            }
        }
        scratch.give(kids);
    }
}
