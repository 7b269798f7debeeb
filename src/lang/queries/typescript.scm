; TypeScript / TSX facts for `lang::extract`, appended to javascript.scm.
; Capture names are the protocol read by `src/lang/extract.rs`.

; ---- definitions ---------------------------------------------------------
(function_signature name: (identifier) @name) @definition.function
(abstract_class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: (_) @name) @definition.module
(module name: (_) @name) @definition.module
(interface_body (method_signature name: (_) @name) @definition.method)
(class_body (method_signature name: (_) @name) @definition.method)
(class_body (abstract_method_signature name: (_) @name) @definition.method)
(public_field_definition
  name: (property_identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @value) @definition.method

; ---- imports: `import x = require("s")` ----------------------------------
(import_statement (import_require_clause source: (string) @import.import)) @import.statement

; ---- inheritance ---------------------------------------------------------
(class_heritage (extends_clause value: (_) @inherit.extends))
(class_heritage (implements_clause (_) @inherit.implements))
(interface_declaration (extends_type_clause type: (_) @inherit.extends))

; ---- local bindings with their declared types (extract/bindings.rs) -----------
(variable_declarator name: (identifier) @local.name type: (type_annotation) @local.type)
(required_parameter pattern: (identifier) @local.name type: (type_annotation) @local.type)
(required_parameter pattern: (identifier) @local.name !type)
(optional_parameter pattern: (identifier) @local.name type: (type_annotation) @local.type)
(optional_parameter pattern: (identifier) @local.name !type)
; Parameter properties (`constructor(private readonly db: Db)`) are fields too.
(required_parameter (accessibility_modifier) pattern: (identifier) @field.name type: (type_annotation) @field.type)
(optional_parameter (accessibility_modifier) pattern: (identifier) @field.name type: (type_annotation) @field.type)
(public_field_definition name: (property_identifier) @field.name type: (type_annotation) @field.type)
(public_field_definition name: (property_identifier) @field.name !type value: (_) @field.value)
