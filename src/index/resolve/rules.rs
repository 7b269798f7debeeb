//! The rules a call or base reference can be resolved by, their names as stored in
//! `edges.provenance`, and their confidences.
//!
//! A confidence is the rule's precision as measured by `bench/call_accuracy.py`
//! against the language's own analyser (jedi for Python, the TypeScript compiler's
//! checker for JavaScript and TypeScript) on real projects: the share of the edges the
//! rule made that the analyser confirms. Rules no analyser measured here (Rust, Go,
//! Java, C and C++) carry the precision of the same rule in the measured languages,
//! lowered where the language makes the rule weaker (stated per entry).

use super::Family;

/// How a call or base was resolved (`edges.provenance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// A definition of the caller's own file, visible from the caller's scope (an
    /// enclosing function, the module; in Java and C++ also the caller's class).
    Scope,
    /// A name bound by an import, followed through re-exports.
    Import,
    /// An attribute of an imported module or namespace (`mod.f()`, `ns.f()`,
    /// `pkg::f()`, Go `pkg.F()`).
    Module,
    /// A `self`/`this`/`cls` receiver (or Java/C++'s implicit `this`), through the
    /// caller's class and its bases.
    SelfRef,
    /// `super()` / `super.`: the next class in the method resolution order.
    Super,
    /// A receiver typed by an annotation, a constructor assignment or a function's
    /// declared return type.
    Typed,
    /// A member of a named class (`Foo.m()`, `Foo::new()`).
    Class,
    /// Go, Java: a definition in another file of the caller's package.
    Package,
    /// C, C++: a function reached through an included header.
    Header,
    /// A compiler's SCIP index.
    Scip,
}

impl Rule {
    /// The stored name (`edges.provenance`).
    pub fn provenance(self) -> &'static str {
        match self {
            Rule::Scope => "scope",
            Rule::Import => "import",
            Rule::Module => "module",
            Rule::SelfRef => "self",
            Rule::Super => "super",
            Rule::Typed => "typed",
            Rule::Class => "class",
            Rule::Package => "package",
            Rule::Header => "header",
            Rule::Scip => "scip",
        }
    }

    /// Every rule, in the order of the docs.
    pub const ALL: [Rule; 10] = [
        Rule::Scope,
        Rule::Import,
        Rule::Module,
        Rule::SelfRef,
        Rule::Super,
        Rule::Typed,
        Rule::Class,
        Rule::Package,
        Rule::Header,
        Rule::Scip,
    ];
}

/// The confidence stored on an edge that `rule` made in a file of `family`.
pub(crate) fn confidence(family: Family, rule: Rule) -> f64 {
    match (family, rule) {
        (_, Rule::Scip) => 1.0,
        (Family::Python, Rule::Scope) => 0.97,
        (Family::Python, Rule::Import) => 0.98,
        (Family::Python, Rule::Module) => 0.98,
        (Family::Python, Rule::SelfRef) => 0.99,
        (Family::Python, Rule::Super) => 0.98,
        (Family::Python, Rule::Typed) => 0.95,
        (Family::Python, Rule::Class) => 0.97,
        (_, Rule::Scope) => 0.95,
        (_, Rule::SelfRef) => 0.95,
        (_, Rule::Super) => 0.95,
        (_, Rule::Import) => 0.9,
        (_, Rule::Module) => 0.9,
        (_, Rule::Typed) => 0.9,
        (_, Rule::Class) => 0.9,
        (_, Rule::Package) => 0.85,
        (_, Rule::Header) => 0.8,
    }
}
