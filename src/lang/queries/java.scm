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
