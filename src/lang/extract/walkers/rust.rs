//! The Rust query (`queries/rust.scm`) as a walk: 27 patterns starting at 22 node
//! kinds. Each arm below quotes the patterns it stands for.

use tree_sitter::{Language as Grammar, Node};

use super::{of_kind, with_field, Ids, Patterns, Scratch};
use crate::lang::extract::{ImportKind, Parts, SymbolKind};

/// The node kinds where a pattern of the Rust query starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    /// `function_item`, `function_signature_item`.
    Function,
    /// `struct_item`, `union_item`.
    Struct,
    Enum,
    Trait,
    Mod,
    Impl,
    Use,
    Call,
    Parameter,
    Let,
    ClosureParameters,
    /// `tuple_pattern`, `field_pattern`, `mut_pattern`, `ref_pattern`,
    /// `captured_pattern`: identifier children bind.
    BindsChildren,
    TupleStructPattern,
    ShorthandField,
    For,
    FieldDeclaration,
}

/// The Rust grammar's ids the walk compares against.
#[derive(Debug)]
pub(in crate::lang::extract) struct Shapes {
    starts: Vec<Option<Start>>,
    identifier: u16,
    type_identifier: u16,
    field_identifier: u16,
    declaration_list: u16,
    parameter: u16,
    open_paren: u16,
    f_name: u16,
    f_body: u16,
    f_type: u16,
    f_trait: u16,
    f_argument: u16,
    f_function: u16,
    f_pattern: u16,
    f_value: u16,
}

impl Shapes {
    pub(super) fn new(grammar: &Grammar) -> Option<Shapes> {
        let ids = Ids(grammar);
        Some(Shapes {
            starts: ids.starts(&[
                ("function_item", Start::Function),
                ("function_signature_item", Start::Function),
                ("struct_item", Start::Struct),
                ("union_item", Start::Struct),
                ("enum_item", Start::Enum),
                ("trait_item", Start::Trait),
                ("mod_item", Start::Mod),
                ("impl_item", Start::Impl),
                ("use_declaration", Start::Use),
                ("call_expression", Start::Call),
                ("parameter", Start::Parameter),
                ("let_declaration", Start::Let),
                ("closure_parameters", Start::ClosureParameters),
                ("tuple_pattern", Start::BindsChildren),
                ("field_pattern", Start::BindsChildren),
                ("mut_pattern", Start::BindsChildren),
                ("ref_pattern", Start::BindsChildren),
                ("captured_pattern", Start::BindsChildren),
                ("tuple_struct_pattern", Start::TupleStructPattern),
                ("shorthand_field_identifier", Start::ShorthandField),
                ("for_expression", Start::For),
                ("field_declaration", Start::FieldDeclaration),
            ])?,
            identifier: ids.kind("identifier")?,
            type_identifier: ids.kind("type_identifier")?,
            field_identifier: ids.kind("field_identifier")?,
            declaration_list: ids.kind("declaration_list")?,
            parameter: ids.kind("parameter")?,
            open_paren: Some(grammar.id_for_node_kind("(", false)).filter(|&id| id != 0)?,
            f_name: ids.field("name")?,
            f_body: ids.field("body")?,
            f_type: ids.field("type")?,
            f_trait: ids.field("trait")?,
            f_argument: ids.field("argument")?,
            f_function: ids.field("function")?,
            f_pattern: ids.field("pattern")?,
            f_value: ids.field("value")?,
        })
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
        let local = |name: Node<'t>| Parts {
            local_name: Some(name),
            ..Parts::default()
        };
        // `(shorthand_field_identifier) @local.name` reads no children.
        if start == Start::ShorthandField {
            emit(local(node));
            return;
        }
        let kids = scratch.kids(node);
        let named_fields = |field: u16| with_field(&kids, field).filter(|n| n.is_named());
        let fields_of_kind =
            |field: u16, kind: u16| with_field(&kids, field).filter(move |n| n.kind_id() == kind);
        match start {
            // (function_item name: (identifier) @name) @definition.function, and
            // function_signature_item; struct_item and union_item (struct), enum_item,
            // trait_item with a type_identifier.
            Start::Function | Start::Struct | Start::Enum | Start::Trait => {
                let (kind, name_kind) = match start {
                    Start::Function => (SymbolKind::Function, self.identifier),
                    Start::Struct => (SymbolKind::Struct, self.type_identifier),
                    Start::Enum => (SymbolKind::Enum, self.type_identifier),
                    _ => (SymbolKind::Trait, self.type_identifier),
                };
                for name in fields_of_kind(self.f_name, name_kind) {
                    emit(Parts {
                        definition: Some((kind, node)),
                        name: Some(name),
                        ..Parts::default()
                    });
                }
            }
            // (mod_item name: (identifier) @name body: (declaration_list)) @definition.module
            // (mod_item name: (identifier) @import.mod !body)
            Start::Mod => {
                let has_body = with_field(&kids, self.f_body).next().is_some();
                for (i, &(field, name)) in kids.iter().enumerate() {
                    if field != self.f_name || name.kind_id() != self.identifier {
                        continue;
                    }
                    for _ in with_field(&kids[i + 1..], self.f_body)
                        .filter(|b| b.kind_id() == self.declaration_list)
                    {
                        emit(Parts {
                            definition: Some((SymbolKind::Module, node)),
                            name: Some(name),
                            ..Parts::default()
                        });
                    }
                    if !has_body {
                        emit(Parts {
                            import: Some((ImportKind::Mod, name)),
                            ..Parts::default()
                        });
                    }
                }
            }
            // (impl_item type: (_) @scope.name body: (declaration_list)) @scope
            // (impl_item trait: (_) @inherit.trait type: (_) @inherit.type)
            Start::Impl => {
                for (i, &(field, ty)) in kids.iter().enumerate() {
                    if field != self.f_type || !ty.is_named() {
                        continue;
                    }
                    for _ in with_field(&kids[i + 1..], self.f_body)
                        .filter(|b| b.kind_id() == self.declaration_list)
                    {
                        emit(Parts {
                            scope: Some(node),
                            scope_name: Some(ty),
                            ..Parts::default()
                        });
                    }
                }
                for (i, &(field, tr)) in kids.iter().enumerate() {
                    if field != self.f_trait || !tr.is_named() {
                        continue;
                    }
                    for ty in with_field(&kids[i + 1..], self.f_type).filter(|n| n.is_named()) {
                        emit(Parts {
                            impl_trait: Some(tr),
                            impl_type: Some(ty),
                            ..Parts::default()
                        });
                    }
                }
            }
            // (use_declaration argument: (_) @import.use) @import.statement
            Start::Use => {
                for argument in named_fields(self.f_argument) {
                    emit(Parts {
                        import: Some((ImportKind::Use, argument)),
                        import_statement: Some(node),
                        ..Parts::default()
                    });
                }
            }
            // (call_expression function: (_) @call)
            Start::Call => {
                for callee in named_fields(self.f_function) {
                    emit(Parts {
                        call: Some(callee),
                        ..Parts::default()
                    });
                }
            }
            // (parameter pattern: (identifier) @local.name type: (_) @local.type)
            Start::Parameter => {
                for (i, &(field, name)) in kids.iter().enumerate() {
                    if field != self.f_pattern || name.kind_id() != self.identifier {
                        continue;
                    }
                    for ty in with_field(&kids[i + 1..], self.f_type).filter(|n| n.is_named()) {
                        emit(Parts {
                            local_name: Some(name),
                            local_type: Some(ty),
                            ..Parts::default()
                        });
                    }
                }
            }
            // (let_declaration pattern: (identifier) @local.name type: (_) @local.type)
            // (let_declaration pattern: (identifier) @local.name !type value: (_) @local.value)
            // (let_declaration pattern: (identifier) @local.name !type !value)
            Start::Let => {
                let typed = with_field(&kids, self.f_type).next().is_some();
                let valued = with_field(&kids, self.f_value).next().is_some();
                for (i, &(field, name)) in kids.iter().enumerate() {
                    if field != self.f_pattern || name.kind_id() != self.identifier {
                        continue;
                    }
                    let later = &kids[i + 1..];
                    for ty in with_field(later, self.f_type).filter(|n| n.is_named()) {
                        emit(Parts {
                            local_name: Some(name),
                            local_type: Some(ty),
                            ..Parts::default()
                        });
                    }
                    if !typed {
                        for value in with_field(later, self.f_value).filter(|n| n.is_named()) {
                            emit(Parts {
                                local_name: Some(name),
                                local_value: Some(value),
                                ..Parts::default()
                            });
                        }
                        if !valued {
                            emit(local(name));
                        }
                    }
                }
            }
            // (closure_parameters (identifier) @local.name)
            // (closure_parameters (parameter pattern: (identifier) @local.name))
            Start::ClosureParameters => {
                of_kind(&kids, self.identifier).for_each(|name| emit(local(name)));
                for parameter in of_kind(&kids, self.parameter) {
                    let inner = scratch.kids(parameter);
                    with_field(&inner, self.f_pattern)
                        .filter(|n| n.kind_id() == self.identifier)
                        .for_each(|name| emit(local(name)));
                    scratch.give(inner);
                }
            }
            // (tuple_pattern (identifier) @local.name), field_pattern, mut_pattern,
            // ref_pattern, captured_pattern.
            Start::BindsChildren => {
                of_kind(&kids, self.identifier).for_each(|name| emit(local(name)));
            }
            // (tuple_struct_pattern "(" (identifier) @local.name)
            Start::TupleStructPattern => {
                for (i, &(_, paren)) in kids.iter().enumerate() {
                    if paren.kind_id() == self.open_paren && !paren.is_named() {
                        of_kind(&kids[i + 1..], self.identifier).for_each(|name| emit(local(name)));
                    }
                }
            }
            // (for_expression pattern: (identifier) @local.name)
            Start::For => {
                fields_of_kind(self.f_pattern, self.identifier).for_each(|name| emit(local(name)));
            }
            // (field_declaration name: (field_identifier) @field.name type: (_) @field.type)
            Start::FieldDeclaration => {
                for (i, &(field, name)) in kids.iter().enumerate() {
                    if field != self.f_name || name.kind_id() != self.field_identifier {
                        continue;
                    }
                    for ty in with_field(&kids[i + 1..], self.f_type).filter(|n| n.is_named()) {
                        emit(Parts {
                            field_name: Some(name),
                            field_type: Some(ty),
                            ..Parts::default()
                        });
                    }
                }
            }
            Start::ShorthandField => {}
        }
        scratch.give(kids);
    }
}
