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

; ---- inheritance ---------------------------------------------------------
; In TypeScript the child is an extends_clause / implements_clause node, which
; extract/ecmascript.rs ignores here; typescript.scm matches inside them.
(class_heritage (_) @inherit.extends)
