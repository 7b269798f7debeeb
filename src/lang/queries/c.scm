; C facts for `lang::extract`; C++ runs this query too, followed by cpp.scm (the
; C++ grammar is a superset of the C one). Capture names are the protocol read
; by `src/lang/extract.rs` (see its module docs).

; ---- definitions ---------------------------------------------------------
; Function definitions only (prototypes are declarations, as ctags' default).
; The name is found by walking the declarator (`*f(..)`, `(f)(..)`, `A::f(..)`).
(function_definition declarator: (_) @declarator) @definition.function
(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct
(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct
(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list) @body) @definition.enum
; `typedef struct { .. } Name;`: the anonymous struct is `Name`.
(type_definition
  type: (struct_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (union_specifier !name body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier !name body: (enumerator_list) @body)
  declarator: (type_identifier) @name) @definition.enum

; ---- imports -------------------------------------------------------------
(preproc_include path: (string_literal) @import.include) @import.statement
(preproc_include path: (system_lib_string) @import.include_system) @import.statement

; ---- calls ---------------------------------------------------------------
(call_expression function: (_) @call)

; ---- bindings: names bound in their scope (see extract/bindings.rs) -------
; Parameters and local variables with their declared types (`struct vec v`,
; `Foo *p`, `Foo x = ..`).
; Parameters of definitions only (a prototype's names bind nothing).
(function_definition
  declarator: [(function_declarator parameters: (parameter_list (parameter_declaration
                 type: (_) @local.type
                 declarator: [(identifier) @local.name
                              (pointer_declarator declarator: (identifier) @local.name)])))
               (pointer_declarator declarator: (function_declarator parameters: (parameter_list (parameter_declaration
                 type: (_) @local.type
                 declarator: [(identifier) @local.name
                              (pointer_declarator declarator: (identifier) @local.name)]))))])
(declaration type: (_) @local.type declarator: (identifier) @local.name)
(declaration
  type: (_) @local.type
  declarator: (init_declarator declarator: (identifier) @local.name))
(declaration
  type: (_) @local.type
  declarator: (pointer_declarator declarator: (identifier) @local.name))
(declaration
  type: (_) @local.type
  declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @local.name)))
