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
