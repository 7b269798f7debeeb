//! The Java query (`queries/java.scm`) as a walk: 24 patterns starting at 23 node
//! kinds. Each arm below quotes the patterns it stands for.

use tree_sitter::{Language as Grammar, Node};

use super::{of_kind, with_field, Ids, Kids, Patterns, Scratch};
use crate::lang::extract::{ImportKind, Parts, SymbolKind};

/// The node kinds where a pattern of the Java query starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    /// A declaration whose `name: (identifier)` names a symbol of this kind.
    Definition(SymbolKind),
    Import,
    /// `method_invocation`, `object_creation_expression`: the node is the call.
    Call,
    Superclass,
    SuperInterfaces,
    ExtendsInterfaces,
    FormalParameter,
    SpreadParameter,
    LocalVariable,
    Field,
    EnhancedFor,
    CatchParameter,
    Lambda,
    InferredParameters,
}

/// The Java grammar's ids the walk compares against.
#[derive(Debug)]
pub(in crate::lang::extract) struct Shapes {
    starts: Vec<Option<Start>>,
    identifier: u16,
    type_list: u16,
    variable_declarator: u16,
    f_name: u16,
    f_type: u16,
    f_value: u16,
    f_declarator: u16,
    f_parameters: u16,
}

impl Shapes {
    pub(super) fn new(grammar: &Grammar) -> Option<Shapes> {
        let ids = Ids(grammar);
        let def = Start::Definition;
        Some(Shapes {
            starts: ids.starts(&[
                ("class_declaration", def(SymbolKind::Class)),
                ("record_declaration", def(SymbolKind::Class)),
                ("interface_declaration", def(SymbolKind::Interface)),
                ("annotation_type_declaration", def(SymbolKind::Interface)),
                ("enum_declaration", def(SymbolKind::Enum)),
                ("method_declaration", def(SymbolKind::Method)),
                ("constructor_declaration", def(SymbolKind::Method)),
                ("compact_constructor_declaration", def(SymbolKind::Method)),
                (
                    "annotation_type_element_declaration",
                    def(SymbolKind::Method),
                ),
                ("import_declaration", Start::Import),
                ("method_invocation", Start::Call),
                ("object_creation_expression", Start::Call),
                ("superclass", Start::Superclass),
                ("super_interfaces", Start::SuperInterfaces),
                ("extends_interfaces", Start::ExtendsInterfaces),
                ("formal_parameter", Start::FormalParameter),
                ("spread_parameter", Start::SpreadParameter),
                ("local_variable_declaration", Start::LocalVariable),
                ("field_declaration", Start::Field),
                ("enhanced_for_statement", Start::EnhancedFor),
                ("catch_formal_parameter", Start::CatchParameter),
                ("lambda_expression", Start::Lambda),
                ("inferred_parameters", Start::InferredParameters),
            ])?,
            identifier: ids.kind("identifier")?,
            type_list: ids.kind("type_list")?,
            variable_declarator: ids.kind("variable_declarator")?,
            f_name: ids.field("name")?,
            f_type: ids.field("type")?,
            f_value: ids.field("value")?,
            f_declarator: ids.field("declarator")?,
            f_parameters: ids.field("parameters")?,
        })
    }

    /// The `name: (identifier)` children in `kids`.
    fn names<'a, 't>(&self, kids: &'a [(u16, Node<'t>)]) -> impl Iterator<Item = Node<'t>> + 'a {
        let identifier = self.identifier;
        with_field(kids, self.f_name).filter(move |n| n.kind_id() == identifier)
    }

    /// A `variable_declarator`'s matches: with `with_values`, the two patterns of a
    /// local variable (`name: (identifier) value: (_)`, and `name: (identifier)
    /// !value`), each name with its value or none; else one per name, with no value
    /// captured (the field pattern).
    fn declarator<'t>(
        &self,
        inner: &Kids<'t>,
        with_values: bool,
        found: &mut impl FnMut(Node<'t>, Option<Node<'t>>),
    ) {
        if !with_values {
            self.names(inner).for_each(|name| found(name, None));
            return;
        }
        let valued = with_field(inner, self.f_value).next().is_some();
        for (i, &(field, name)) in inner.iter().enumerate() {
            if field != self.f_name || name.kind_id() != self.identifier {
                continue;
            }
            for value in with_field(&inner[i + 1..], self.f_value).filter(|n| n.is_named()) {
                found(name, Some(value));
            }
            if !valued {
                found(name, None);
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
        // The patterns that read no children.
        match start {
            // (import_declaration) @import.import
            Start::Import => {
                return emit(Parts {
                    import: Some((ImportKind::Import, node)),
                    ..Parts::default()
                })
            }
            // (method_invocation) @call, (object_creation_expression) @call
            Start::Call => {
                return emit(Parts {
                    call: Some(node),
                    ..Parts::default()
                })
            }
            _ => {}
        }
        let local = |name: Node<'t>| Parts {
            local_name: Some(name),
            ..Parts::default()
        };
        let typed_local = |ty: Node<'t>, name: Node<'t>| Parts {
            local_type: Some(ty),
            local_name: Some(name),
            ..Parts::default()
        };
        let kids = scratch.kids(node);
        match start {
            // (class_declaration name: (identifier) @name) @definition.class, and the
            // other declarations.
            Start::Definition(kind) => {
                for name in self.names(&kids) {
                    emit(Parts {
                        definition: Some((kind, node)),
                        name: Some(name),
                        ..Parts::default()
                    });
                }
            }
            Start::Import | Start::Call => {}
            // (superclass (_) @inherit.extends)
            Start::Superclass => {
                for base in kids.iter().map(|(_, n)| *n).filter(|n| n.is_named()) {
                    emit(Parts {
                        inherit: Some((false, base)),
                        ..Parts::default()
                    });
                }
            }
            // (super_interfaces (type_list (_) @inherit.implements))
            // (extends_interfaces (type_list (_) @inherit.extends))
            Start::SuperInterfaces | Start::ExtendsInterfaces => {
                let implements = start == Start::SuperInterfaces;
                for list in of_kind(&kids, self.type_list) {
                    let inner = scratch.kids(list);
                    for base in inner.iter().map(|(_, n)| *n).filter(|n| n.is_named()) {
                        emit(Parts {
                            inherit: Some((implements, base)),
                            ..Parts::default()
                        });
                    }
                    scratch.give(inner);
                }
            }
            // (formal_parameter type: (_) @local.type name: (identifier) @local.name)
            // (enhanced_for_statement type: (_) @local.type name: (identifier) @local.name)
            Start::FormalParameter | Start::EnhancedFor => {
                for (i, &(field, ty)) in kids.iter().enumerate() {
                    if field == self.f_type && ty.is_named() {
                        for name in self.names(&kids[i + 1..]) {
                            emit(typed_local(ty, name));
                        }
                    }
                }
            }
            // (spread_parameter (_) @local.type
            //   (variable_declarator name: (identifier) @local.name))
            Start::SpreadParameter => {
                for (i, &(_, ty)) in kids.iter().enumerate() {
                    if !ty.is_named() {
                        continue;
                    }
                    for declarator in of_kind(&kids[i + 1..], self.variable_declarator) {
                        let inner = scratch.kids(declarator);
                        for name in self.names(&inner) {
                            emit(typed_local(ty, name));
                        }
                        scratch.give(inner);
                    }
                }
            }
            // (local_variable_declaration type: (_) @local.type
            //   declarator: (variable_declarator name: (identifier) @local.name
            //   value: (_) @local.value)), and the same with `!value` and no value;
            // (field_declaration type: (_) @local.type
            //   declarator: (variable_declarator name: (identifier) @local.name))
            Start::LocalVariable | Start::Field => {
                let with_values = start == Start::LocalVariable;
                for (i, &(field, ty)) in kids.iter().enumerate() {
                    if field != self.f_type || !ty.is_named() {
                        continue;
                    }
                    for declarator in with_field(&kids[i + 1..], self.f_declarator) {
                        if declarator.kind_id() != self.variable_declarator {
                            continue;
                        }
                        let inner = scratch.kids(declarator);
                        self.declarator(&inner, with_values, &mut |name, value| {
                            emit(Parts {
                                local_value: value,
                                ..typed_local(ty, name)
                            })
                        });
                        scratch.give(inner);
                    }
                }
            }
            // (catch_formal_parameter name: (identifier) @local.name)
            Start::CatchParameter => self.names(&kids).for_each(|name| emit(local(name))),
            // (lambda_expression parameters: (identifier) @local.name)
            Start::Lambda => with_field(&kids, self.f_parameters)
                .filter(|n| n.kind_id() == self.identifier)
                .for_each(|name| emit(local(name))),
            // (inferred_parameters (identifier) @local.name)
            Start::InferredParameters => {
                of_kind(&kids, self.identifier).for_each(|name| emit(local(name)))
            }
        }
        scratch.give(kids);
    }
}
