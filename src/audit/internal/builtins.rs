//! Names callable without a definition in the workspace, per language: builtins,
//! preludes, test-framework globals. A bare call to one of these is never an
//! "undefined name" finding. A table, so it lives alone.

use crate::lang::Language;

/// Names callable without a definition in the workspace (builtins, preludes, test
/// globals), per language.
pub(super) fn is_builtin(lang: Language, name: &str) -> bool {
    const RUST: &[&str] = &["Some", "Ok", "Err", "drop", "Box", "String", "Vec"];
    const PYTHON: &[&str] = crate::lang::builtins::PYTHON;
    const JS: &[&str] = &[
        "eval",
        "parseInt",
        "parseFloat",
        "isNaN",
        "isFinite",
        "require",
        "setTimeout",
        "setInterval",
        "clearTimeout",
        "clearInterval",
        "setImmediate",
        "queueMicrotask",
        "structuredClone",
        "fetch",
        "Symbol",
        "String",
        "Number",
        "Boolean",
        "Array",
        "Object",
        "Error",
        "TypeError",
        "RangeError",
        "SyntaxError",
        "Promise",
        "Date",
        "RegExp",
        "Map",
        "Set",
        "WeakMap",
        "WeakSet",
        "BigInt",
        "encodeURIComponent",
        "decodeURIComponent",
        "encodeURI",
        "decodeURI",
        "alert",
        "atob",
        "btoa",
        "describe",
        "it",
        "test",
        "expect",
        "beforeEach",
        "afterEach",
        "beforeAll",
        "afterAll",
        "jest",
        "vi",
    ];
    match lang {
        Language::Rust => RUST.contains(&name),
        // Exception classes and warnings are builtins too.
        Language::Python => {
            PYTHON.contains(&name)
                || name.ends_with("Error")
                || name.ends_with("Exception")
                || name.ends_with("Warning")
                || matches!(name, "StopIteration" | "KeyboardInterrupt" | "SystemExit")
        }
        _ => JS.contains(&name),
    }
}
