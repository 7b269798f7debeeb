; Python facts for `lang::extract`. Capture names are the protocol read by
; `src/lang/extract.rs` (see its module docs).

; ---- definitions ---------------------------------------------------------
; The span is the `def`/`class` node itself, never the decorators above it; a
; `def` whose innermost container is a class becomes a method.
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
; `area = lambda self: ...` is a function bound to a name.
(assignment left: (identifier) @name right: (lambda) @value) @definition.function

; ---- imports (statements are split into specifiers in extract/python.rs) --
(import_statement) @import.import
(import_from_statement) @import.import
(future_import_statement) @import.import

; `if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:` blocks (condition text is
; checked in Rust; no query predicates on the hot path).
(if_statement
  condition: [(identifier) (attribute)] @type_checking.condition
  consequence: (block) @type_checking.block)

; ---- calls ---------------------------------------------------------------
(call function: (_) @call)

; ---- inheritance: bases, keyword arguments (metaclass=) excluded ---------
(class_definition
  superclasses: (argument_list [(identifier) (attribute) (subscript)] @inherit.extends))
