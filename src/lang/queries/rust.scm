; Rust facts for `lang::extract`. Capture names are the protocol read by
; `src/lang/extract.rs` (see its module docs): `@definition.<kind>` + `@name`
; for symbols, `@scope` + `@scope.name` for impl blocks (scopes that name their
; methods but are not symbols), `@import.<kind>`, `@call`, `@inherit.*`.

; ---- definitions ---------------------------------------------------------
; A `fn` becomes a method when its innermost container is an impl or a trait.
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module

; `impl<T> Foo<T>` / `impl Trait for Foo`: methods inside are `Foo::m`.
(impl_item type: (_) @scope.name body: (declaration_list)) @scope

; ---- imports -------------------------------------------------------------
(use_declaration argument: (_) @import.use) @import.statement
(mod_item name: (identifier) @import.mod !body)

; ---- calls (macro invocations are not call_expression) -------------------
(call_expression function: (_) @call)

; ---- inheritance: `impl Trait for Type` ----------------------------------
(impl_item trait: (_) @inherit.trait type: (_) @inherit.type)

; ---- bindings: names bound in their scope (see extract/bindings.rs) -------
; Parameters and `let` with their types or values; other patterns bind names
; whose type is not read (they still make the name local).
(parameter pattern: (identifier) @local.name type: (_) @local.type)
(let_declaration pattern: (identifier) @local.name type: (_) @local.type)
(let_declaration pattern: (identifier) @local.name !type value: (_) @local.value)
(let_declaration pattern: (identifier) @local.name !type !value)
(closure_parameters (identifier) @local.name)
(closure_parameters (parameter pattern: (identifier) @local.name))
(tuple_pattern (identifier) @local.name)
(tuple_struct_pattern "(" (identifier) @local.name)
(field_pattern (identifier) @local.name)
(shorthand_field_identifier) @local.name
(for_expression pattern: (identifier) @local.name)
(mut_pattern (identifier) @local.name)
(ref_pattern (identifier) @local.name)
(captured_pattern (identifier) @local.name)
; Fields declared in a struct: `self.engine.run()` has the field's type.
(field_declaration name: (field_identifier) @field.name type: (_) @field.type)
