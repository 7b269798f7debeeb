; C++ facts for `lang::extract`, appended to c.scm. Capture names are the
; protocol read by `src/lang/extract.rs`.

; ---- definitions ---------------------------------------------------------
(class_specifier
  name: (_) @name
  body: (field_declaration_list) @body) @definition.class
; `template <> struct Hash<int> { .. }`, `struct Outer::Inner { .. }`.
(struct_specifier
  name: [(template_type) (qualified_identifier)] @name
  body: (field_declaration_list) @body) @definition.struct
(union_specifier
  name: [(template_type) (qualified_identifier)] @name
  body: (field_declaration_list) @body) @definition.struct
(enum_specifier
  name: (qualified_identifier) @name
  body: (enumerator_list) @body) @definition.enum
(namespace_definition name: (_) @name body: (declaration_list) @body) @definition.module

; ---- inheritance: `class A : public B, protected ns::C<T>` -----------------
(base_class_clause
  [(type_identifier) (qualified_identifier) (template_type)] @inherit.extends)

; ---- bindings: references and class members (see extract/bindings.rs) ----
(function_definition
  declarator: (function_declarator parameters: (parameter_list (parameter_declaration
    type: (_) @local.type
    declarator: (reference_declarator (identifier) @local.name)))))
(declaration
  type: (_) @local.type
  declarator: (reference_declarator (identifier) @local.name))
(declaration
  type: (_) @local.type
  declarator: (init_declarator declarator: (reference_declarator (identifier) @local.name)))
; Data members: `this->engine_.run()` and `engine_.run()` in a method.
(field_declaration type: (_) @local.type declarator: (field_identifier) @local.name)
(field_declaration
  type: (_) @local.type
  declarator: (pointer_declarator declarator: (field_identifier) @local.name))
