; Java facts for `lang::extract`. Capture names are the protocol read by
; `src/lang/extract.rs` (see its module docs). A definition's span starts after
; its annotations (as a Python definition's starts after its decorators).

; ---- definitions ---------------------------------------------------------
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
; Methods anywhere (classes, interfaces, enums, anonymous classes), constructors.
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
; The elements of an `@interface` are its methods (`String value() default "";`).
(annotation_type_element_declaration name: (identifier) @name) @definition.method

; ---- imports: single-type, on-demand, static -------------------------------
(import_declaration) @import.import

; ---- calls: `m()`, `x.m()`, `Type.m()`, `new Type()` ------------------------
(method_invocation) @call
(object_creation_expression) @call

; ---- inheritance ---------------------------------------------------------
(superclass (_) @inherit.extends)
(super_interfaces (type_list (_) @inherit.implements))
(extends_interfaces (type_list (_) @inherit.extends))

; ---- bindings: names bound in their scope (see extract/bindings.rs) -------
; Parameters, locals and fields with their declared types (`var x = new C()`
; has the value's type); fields are visible in the methods of their class.
(formal_parameter type: (_) @local.type name: (identifier) @local.name)
(spread_parameter (_) @local.type (variable_declarator name: (identifier) @local.name))
(local_variable_declaration
  type: (_) @local.type
  declarator: (variable_declarator name: (identifier) @local.name value: (_) @local.value))
(local_variable_declaration
  type: (_) @local.type
  declarator: (variable_declarator name: (identifier) @local.name !value))
(field_declaration
  type: (_) @local.type
  declarator: (variable_declarator name: (identifier) @local.name))
(enhanced_for_statement type: (_) @local.type name: (identifier) @local.name)
(catch_formal_parameter name: (identifier) @local.name)
(lambda_expression parameters: (identifier) @local.name)
(inferred_parameters (identifier) @local.name)
