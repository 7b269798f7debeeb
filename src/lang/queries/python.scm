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

; ---- names used as values, not called (a callback, `map(f, xs)`, `key=self.k`,
; `x = mod.f`, `return f`, `{'a': on_a}`, `def g(cb=f)`): the node that holds the
; value is captured alone, and extract/python.rs (value_slot) picks its children or
; field that are names (`f` / `a.b.f`) and takes them apart like a callee. A pattern
; with a child, `(argument_list (identifier) @reference)`, would say the same but
; makes tree-sitter analyse each parent kind when the query compiles (milliseconds
; each, paid by every run that parses a Python file).
[(argument_list) (keyword_argument) (assignment) (augmented_assignment)
 (return_statement) (expression_list) (list) (tuple) (set) (pair)
 (default_parameter) (typed_default_parameter)] @reference.holder

; ---- `yield`: a generator's `return` values are not what calling it gives
; (extract.rs, set_returns). Return values themselves are read from the
; `return_statement` holders above.
(yield) @returns.yield

; ---- inheritance: bases, keyword arguments (metaclass=) excluded ---------
(class_definition
  superclasses: (argument_list [(identifier) (attribute) (subscript)] @inherit.extends))

; ---- bindings: names bound in their scope (see extract/bindings.rs) -------
; Parameters, with their annotations.
(parameters (identifier) @local.name)
(lambda_parameters (identifier) @local.name)
(default_parameter name: (identifier) @local.name)
(typed_parameter (identifier) @local.name type: (type) @local.type)
(typed_default_parameter name: (identifier) @local.name type: (type) @local.type)
(list_splat_pattern (identifier) @local.name)
(dictionary_splat_pattern (identifier) @local.name)
; Assignments: `x: Foo = ..`, `x = Foo()`, `a, b = ..`, `x += ..`, `(x := ..)`.
(assignment left: (identifier) @local.name type: (type) @local.type)
(assignment left: (identifier) @local.name !type right: (_) @local.value)
(assignment left: [(pattern_list (identifier) @local.name)
                   (tuple_pattern (identifier) @local.name)
                   (list_pattern (identifier) @local.name)])
(augmented_assignment left: (identifier) @local.name)
(named_expression name: (identifier) @local.name value: (_) @local.value)
; Loop, comprehension, `with .. as`, `except .. as` targets.
(for_statement left: (identifier) @local.name)
(for_statement left: [(pattern_list (identifier) @local.name)
                      (tuple_pattern (identifier) @local.name)])
(for_in_clause left: (identifier) @local.name)
(for_in_clause left: [(pattern_list (identifier) @local.name)
                      (tuple_pattern (identifier) @local.name)])
(as_pattern_target (identifier) @local.name)
(as_pattern_target [(tuple (identifier) @local.name) (list (identifier) @local.name)])
; `global x` / `nonlocal x`.
(global_statement (identifier) @local.global)
(nonlocal_statement (identifier) @local.global)
; Attributes set through the receiver: `self.x: Foo = ..`, `self.x = Foo()`.
(assignment
  left: (attribute object: (identifier) @field.object attribute: (identifier) @field.name)
  type: (type) @field.type)
(assignment
  left: (attribute object: (identifier) @field.object attribute: (identifier) @field.name)
  !type
  right: (_) @field.value)
