; Go facts for `lang::extract`. Capture names are the protocol read by
; `src/lang/extract.rs` (see its module docs).

; ---- definitions ---------------------------------------------------------
(function_declaration name: (identifier) @name) @definition.function
; `func (l *List[T]) Push(v T)`: the receiver's type scopes the name (`List::Push`).
(method_declaration
  receiver: (parameter_list) @receiver
  name: (field_identifier) @name) @definition.method
; `type Point struct { .. }` / `type Reader interface { .. }`: the signature ends
; where the fields or methods begin.
(type_spec
  name: (type_identifier) @name
  type: (struct_type (field_declaration_list) @body)) @definition.struct
(type_spec
  name: (type_identifier) @name
  type: (interface_type "{" @body)) @definition.interface
; `type Entry = struct { .. }`: an alias of a type literal defines that type.
(type_alias
  name: (type_identifier) @name
  type: (struct_type (field_declaration_list) @body)) @definition.struct
(type_alias
  name: (type_identifier) @name
  type: (interface_type "{" @body)) @definition.interface
; Methods of an interface type.
(method_elem name: (field_identifier) @name) @definition.method

; ---- imports: one per spec, `import ( a "x"; "y" )` gives two ------------
(import_spec) @import.import

; ---- calls: `f()`, `pkg.F()`, `x.m()`, `f[T]()` ---------------------------
(call_expression function: (_) @call)

; ---- inheritance: embedded types ------------------------------------------
; An embedded struct field (a field without a name) and an embedded interface
; (a lone type in an interface, not a union of constraints).
(field_declaration !name type: (_) @inherit.extends)
(interface_type
  (type_elem . [(type_identifier) (qualified_type) (generic_type)] @inherit.extends .))

; ---- bindings: names bound in their scope (see extract/bindings.rs) -------
; Parameters and receivers with their types, `x := v`, `var x T`, range keys.
(parameter_declaration name: (identifier) @local.name type: (_) @local.type)
(variadic_parameter_declaration name: (identifier) @local.name)
(short_var_declaration
  left: (expression_list . (identifier) @local.name)
  right: (expression_list . (_) @local.value))
(short_var_declaration left: (expression_list (_) . (identifier) @local.name))
(var_spec name: (identifier) @local.name type: (_) @local.type)
(var_spec name: (identifier) @local.name !type value: (expression_list . (_) @local.value))
(range_clause left: (expression_list (identifier) @local.name))
(type_switch_statement alias: (expression_list (identifier) @local.name))
