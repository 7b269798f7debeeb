; JavaScript-only facts for `lang::extract`, appended to javascript.scm for plain
; JavaScript (TypeScript wraps parameters in required_parameter / optional_parameter,
; matched in typescript.scm). Parameters are local bindings (extract/bindings.rs).
(formal_parameters (identifier) @local.name)
(field_definition property: (property_identifier) @field.name value: (_) @field.value)
