; JavaScript facts for `lang::extract`, also the first half of the TypeScript
; and TSX queries (so every node type here exists in all three grammars).
; Capture names are the protocol read by `src/lang/extract.rs`.

; ---- definitions ---------------------------------------------------------
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
; A named class expression (`module.exports = class Foo {}`).
(class name: (_) @name) @definition.class
(class_body (method_definition name: (_) @name) @definition.method)
; JS class fields holding a function (`onClick = () => {}`); TypeScript's
; `public_field_definition` is matched in typescript.scm.
(class_body
  (_ property: (property_identifier) @name
     value: [(arrow_function) (function_expression) (generator_function)] @value) @definition.method)

; `const f = () => {}`, `var g = function () {}`, `let C = class {}`.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)] @value) @definition.function) @declaration
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)] @value) @definition.function) @declaration
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class !name) @value) @definition.class) @declaration
(variable_declaration
  (variable_declarator name: (identifier) @name value: (class !name) @value) @definition.class) @declaration

; Functions held by an object literal: `{ run() {} }`, `{ run: function () {} }`,
; `{ 'run': () => {} }` (methods of that object, as ctags counts them); an object
; bound to a variable names them (`const api = { run() {} }` gives `api::run`).
(variable_declarator name: (identifier) @scope.name value: (object) @scope)
(object (method_definition name: (_) @name) @definition.method)
(object
  (pair
    key: [(property_identifier) (string)] @name
    value: [(arrow_function) (function_expression) (generator_function)] @value) @definition.method)

; CommonJS and prototype assignments: `exports.foo = function () {}`,
; `module.exports.bar = () => {}`, `Foo.prototype.baz = function () {}`.
(assignment_expression
  left: [(identifier) @name (member_expression property: (property_identifier) @name)]
  right: [(arrow_function) (function_expression) (generator_function)] @value) @definition.function

; ---- imports (`require(..)` and `import(..)` are found through @call) ----
(import_statement source: (string) @import.import) @import.statement
(export_statement source: (string) @import.reexport) @import.statement

; ---- calls ---------------------------------------------------------------
(call_expression function: (_) @call arguments: (_) @call.arguments)
(new_expression constructor: (_) @call)

; ---- names used as values, not called (`arr.map(double)`, `cb = this.onDone`,
; `return f`, `[f, g]`, `{ key: f }`, `{ f }`): the node that holds the value is
; captured alone, and extract/ecmascript.rs (value_slot) picks its children or field
; that are names (`f` / `a.b.f`) and takes them apart like a callee. A pattern with a
; child would make tree-sitter analyse each parent kind when the query compiles.
[(arguments) (variable_declarator) (assignment_expression) (return_statement)
 (array) (pair) (object)] @reference.holder

; ---- inheritance ---------------------------------------------------------
; In TypeScript the child is an extends_clause / implements_clause node, which
; extract/ecmascript.rs ignores here; typescript.scm matches inside them.
(class_heritage (_) @inherit.extends)

; ---- local bindings (extract/bindings.rs) ----------------------------------
; Names bound inside a function (or at module level) by declarations and
; destructuring: a call through one is a call of a variable, not of a
; same-named definition. `const x = new Foo()` / `const x: Foo` give `x`'s type.
(variable_declarator name: (identifier) @local.name value: (_) @local.value)
(variable_declarator name: (identifier) @local.name !value)
(object_pattern (shorthand_property_identifier_pattern) @local.name)
(object_assignment_pattern left: (shorthand_property_identifier_pattern) @local.name)
(pair_pattern value: (identifier) @local.name)
(array_pattern (identifier) @local.name)
(rest_pattern (identifier) @local.name)
(assignment_pattern left: (identifier) @local.name)
(arrow_function parameter: (identifier) @local.name)
(catch_clause parameter: (identifier) @local.name)
(for_in_statement left: (identifier) @local.name)
; `this.x = new Foo()`: a field of the enclosing class with that value.
(assignment_expression
  left: (member_expression object: (this) @field.object property: (property_identifier) @field.name)
  right: (_) @field.value)

; ---- renamed and default exports ---------------------------------------------
(export_statement !source
  (export_clause (export_specifier name: (_) @export.local alias: (_) @export.name)))
; `export { a }`: exports a name the module declares or imports.
(export_statement !source
  (export_clause (export_specifier name: (_) @export.local @export.name !alias)))
(export_statement value: (identifier) @export.default)
(export_statement
  "default"
  declaration: [(function_declaration name: (identifier) @export.default)
                (generator_function_declaration name: (identifier) @export.default)
                (class_declaration name: (_) @export.default)])
; CommonJS: `module.exports = foo` (or a named class or function),
; `module.exports = { start: run }`.
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: [(identifier) @export.default
          (class name: (_) @export.default)
          (function_expression name: (identifier) @export.default)]
  (#eq? @_module "module") (#eq? @_exports "exports"))
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (object (pair key: (property_identifier) @export.name value: (identifier) @export.local))
  (#eq? @_module "module") (#eq? @_exports "exports"))
