//! The C query (`queries/c.scm`) as a walk: 15 patterns starting at 8 node kinds.
//! C++ keeps its query (c.scm then cpp.scm), which is not reproduced here.

use tree_sitter::{Language as Grammar, Node};

use super::{with_field, Ids, Patterns, Scratch};
use crate::lang::extract::{ImportKind, Parts, SymbolKind};

/// The node kinds where a pattern of the C query starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    FunctionDefinition,
    /// `struct_specifier`, `union_specifier` (symbol kind struct).
    Record,
    Enum,
    TypeDefinition,
    Include,
    Call,
    Declaration,
}

/// The C grammar's ids the walk compares against.
#[derive(Debug)]
pub(in crate::lang::extract) struct Shapes {
    starts: Vec<Option<Start>>,
    struct_specifier: u16,
    union_specifier: u16,
    enum_specifier: u16,
    type_identifier: u16,
    field_declaration_list: u16,
    enumerator_list: u16,
    string_literal: u16,
    system_lib_string: u16,
    function_declarator: u16,
    pointer_declarator: u16,
    init_declarator: u16,
    parameter_list: u16,
    parameter_declaration: u16,
    identifier: u16,
    f_declarator: u16,
    f_name: u16,
    f_body: u16,
    f_type: u16,
    f_path: u16,
    f_function: u16,
    f_parameters: u16,
}

impl Shapes {
    pub(super) fn new(grammar: &Grammar) -> Option<Shapes> {
        let ids = Ids(grammar);
        Some(Shapes {
            starts: ids.starts(&[
                ("function_definition", Start::FunctionDefinition),
                ("struct_specifier", Start::Record),
                ("union_specifier", Start::Record),
                ("enum_specifier", Start::Enum),
                ("type_definition", Start::TypeDefinition),
                ("preproc_include", Start::Include),
                ("call_expression", Start::Call),
                ("declaration", Start::Declaration),
            ])?,
            struct_specifier: ids.kind("struct_specifier")?,
            union_specifier: ids.kind("union_specifier")?,
            enum_specifier: ids.kind("enum_specifier")?,
            type_identifier: ids.kind("type_identifier")?,
            field_declaration_list: ids.kind("field_declaration_list")?,
            enumerator_list: ids.kind("enumerator_list")?,
            string_literal: ids.kind("string_literal")?,
            system_lib_string: ids.kind("system_lib_string")?,
            function_declarator: ids.kind("function_declarator")?,
            pointer_declarator: ids.kind("pointer_declarator")?,
            init_declarator: ids.kind("init_declarator")?,
            parameter_list: ids.kind("parameter_list")?,
            parameter_declaration: ids.kind("parameter_declaration")?,
            identifier: ids.kind("identifier")?,
            f_declarator: ids.field("declarator")?,
            f_name: ids.field("name")?,
            f_body: ids.field("body")?,
            f_type: ids.field("type")?,
            f_path: ids.field("path")?,
            f_function: ids.field("function")?,
            f_parameters: ids.field("parameters")?,
        })
    }

    /// Calls `found` with the names a declaration's declarator binds under the query's
    /// four shapes (or, with `init` off, a parameter's two: `(identifier)` and
    /// `(pointer_declarator declarator: (identifier))`), in tree order.
    fn declared_names<'t>(
        &self,
        declarator: Node<'t>,
        init: bool,
        scratch: &mut Scratch<'t>,
        found: &mut impl FnMut(Node<'t>),
    ) {
        let kind = declarator.kind_id();
        if kind == self.identifier {
            found(declarator);
        } else if kind == self.pointer_declarator {
            let inner = scratch.kids(declarator);
            with_field(&inner, self.f_declarator)
                .filter(|n| n.kind_id() == self.identifier)
                .for_each(&mut *found);
            scratch.give(inner);
        } else if init && kind == self.init_declarator {
            let inner = scratch.kids(declarator);
            for target in with_field(&inner, self.f_declarator) {
                if target.kind_id() == self.identifier {
                    found(target);
                } else if target.kind_id() == self.pointer_declarator {
                    let deeper = scratch.kids(target);
                    with_field(&deeper, self.f_declarator)
                        .filter(|n| n.kind_id() == self.identifier)
                        .for_each(&mut *found);
                    scratch.give(deeper);
                }
            }
            scratch.give(inner);
        }
    }

    /// The parameters pattern, from one `declarator:` child of a function definition:
    /// `[(function_declarator parameters: (parameter_list (parameter_declaration
    /// type: (_) @local.type declarator: [(identifier) (pointer_declarator declarator:
    /// (identifier))] @local.name)))  (pointer_declarator declarator:
    /// (function_declarator ..same..))]`.
    fn parameters<'t>(
        &self,
        declarator: Node<'t>,
        scratch: &mut Scratch<'t>,
        emit: &mut impl FnMut(Parts<'t>),
    ) {
        if declarator.kind_id() == self.function_declarator {
            self.function_parameters(declarator, scratch, emit);
        } else if declarator.kind_id() == self.pointer_declarator {
            let inner = scratch.kids(declarator);
            for function in with_field(&inner, self.f_declarator) {
                if function.kind_id() == self.function_declarator {
                    self.function_parameters(function, scratch, emit);
                }
            }
            scratch.give(inner);
        }
    }

    fn function_parameters<'t>(
        &self,
        function: Node<'t>,
        scratch: &mut Scratch<'t>,
        emit: &mut impl FnMut(Parts<'t>),
    ) {
        let inner = scratch.kids(function);
        for list in with_field(&inner, self.f_parameters) {
            if list.kind_id() != self.parameter_list {
                continue;
            }
            let params = scratch.kids(list);
            for &(_, param) in &params {
                if param.kind_id() != self.parameter_declaration {
                    continue;
                }
                let kids = scratch.kids(param);
                for (i, &(field, ty)) in kids.iter().enumerate() {
                    if field != self.f_type || !ty.is_named() {
                        continue;
                    }
                    for target in with_field(&kids[i + 1..], self.f_declarator) {
                        self.declared_names(target, false, scratch, &mut |name| {
                            emit(Parts {
                                local_type: Some(ty),
                                local_name: Some(name),
                                ..Parts::default()
                            })
                        });
                    }
                }
                scratch.give(kids);
            }
            scratch.give(params);
        }
        scratch.give(inner);
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
        let kids = scratch.kids(node);
        match start {
            // (function_definition declarator: (_) @declarator) @definition.function
            // and the parameters pattern.
            Start::FunctionDefinition => {
                for declarator in with_field(&kids, self.f_declarator) {
                    if declarator.is_named() {
                        emit(Parts {
                            definition: Some((SymbolKind::Function, node)),
                            declarator: Some(declarator),
                            ..Parts::default()
                        });
                    }
                }
                for declarator in with_field(&kids, self.f_declarator) {
                    self.parameters(declarator, scratch, emit);
                }
            }
            // (struct_specifier name: (type_identifier) @name
            //   body: (field_declaration_list) @body) @definition.struct; union and
            // enum (enumerator_list) alike.
            Start::Record | Start::Enum => {
                let (kind, body_kind) = if start == Start::Enum {
                    (SymbolKind::Enum, self.enumerator_list)
                } else {
                    (SymbolKind::Struct, self.field_declaration_list)
                };
                for (i, &(field, name)) in kids.iter().enumerate() {
                    if field != self.f_name || name.kind_id() != self.type_identifier {
                        continue;
                    }
                    for body in with_field(&kids[i + 1..], self.f_body) {
                        if body.kind_id() == body_kind {
                            emit(Parts {
                                definition: Some((kind, node)),
                                name: Some(name),
                                body: Some(body),
                                ..Parts::default()
                            });
                        }
                    }
                }
            }
            // (type_definition type: (struct_specifier !name
            //   body: (field_declaration_list) @body) declarator: (type_identifier) @name)
            // and the same for union and enum.
            Start::TypeDefinition => {
                for (i, &(field, ty)) in kids.iter().enumerate() {
                    if field != self.f_type {
                        continue;
                    }
                    let (kind, body_kind) = match ty.kind_id() {
                        k if k == self.struct_specifier || k == self.union_specifier => {
                            (SymbolKind::Struct, self.field_declaration_list)
                        }
                        k if k == self.enum_specifier => (SymbolKind::Enum, self.enumerator_list),
                        _ => continue,
                    };
                    let inner = scratch.kids(ty);
                    if with_field(&inner, self.f_name).next().is_none() {
                        for body in with_field(&inner, self.f_body) {
                            if body.kind_id() != body_kind {
                                continue;
                            }
                            for name in with_field(&kids[i + 1..], self.f_declarator) {
                                if name.kind_id() == self.type_identifier {
                                    emit(Parts {
                                        definition: Some((kind, node)),
                                        name: Some(name),
                                        body: Some(body),
                                        ..Parts::default()
                                    });
                                }
                            }
                        }
                    }
                    scratch.give(inner);
                }
            }
            // (preproc_include path: (string_literal) @import.include) @import.statement
            // and `system_lib_string` for `<..>`.
            Start::Include => {
                for path in with_field(&kids, self.f_path) {
                    let kind = match path.kind_id() {
                        k if k == self.string_literal => ImportKind::Include,
                        k if k == self.system_lib_string => ImportKind::SystemInclude,
                        _ => continue,
                    };
                    emit(Parts {
                        import: Some((kind, path)),
                        import_statement: Some(node),
                        ..Parts::default()
                    });
                }
            }
            // (call_expression function: (_) @call)
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
            // (declaration type: (_) @local.type declarator: X) where X is
            // `(identifier)`, `(init_declarator declarator: (identifier))`,
            // `(pointer_declarator declarator: (identifier))` or
            // `(init_declarator declarator: (pointer_declarator declarator: (identifier)))`.
            Start::Declaration => {
                for (i, &(field, ty)) in kids.iter().enumerate() {
                    if field != self.f_type || !ty.is_named() {
                        continue;
                    }
                    for declarator in with_field(&kids[i + 1..], self.f_declarator) {
                        self.declared_names(declarator, true, scratch, &mut |name| {
                            emit(Parts {
                                local_type: Some(ty),
                                local_name: Some(name),
                                ..Parts::default()
                            })
                        });
                    }
                }
            }
        }
        scratch.give(kids);
    }
}
