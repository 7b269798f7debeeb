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
