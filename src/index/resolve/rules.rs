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
///
/// Python and JavaScript/TypeScript: the rule's precision measured by
/// `bench/call_accuracy.py` (seed 1, 300 trusted edges sampled per project, pooled per
/// rule; correct / judged):
///
/// | rule   | Python (Django 5.2.19, rich 15.0.0, stdlib 3.11) | JS/TS (rxjs 7.8.2, mobx 7.1.3, npm 11) |
/// |--------|------------------|------------------|
/// | scope  | 120/121 = 0.99   | 217/217 = 1.00   |
/// | import | 235/236 = 0.99   | 393/393 = 1.00   |
/// | module |  89/90  = 0.99   |   2/2            |
/// | self   | 287/290 = 0.99   | 191/191 = 1.00   |
/// | super  |   8/8            |   6/6            |
/// | typed  | 111/112 = 0.99   |  76/77  = 0.99   |
/// | class  |  34/35  = 0.97   |   8/8            |
///
/// Rules with fewer than 20 judged edges keep a value a little below the others.
/// Other families: the precision of the same rule in the measured languages, lowered
/// where the language makes the rule weaker; all of them stay below the trust default
/// (0.97) until measured.
pub(super) fn confidence(family: Family, rule: Rule) -> f64 {
    match (family, rule) {
        (_, Rule::Scip) => 1.0,
        (Family::Python, Rule::Scope) => 0.99,
        (Family::Python, Rule::Import) => 0.99,
        (Family::Python, Rule::Module) => 0.99,
        (Family::Python, Rule::SelfRef) => 0.99,
        (Family::Python, Rule::Super) => 0.98,
        (Family::Python, Rule::Typed) => 0.98,
        (Family::Python, Rule::Class) => 0.97,
        (Family::JavaScript, Rule::Scope) => 0.99,
        (Family::JavaScript, Rule::Import) => 0.99,
        (Family::JavaScript, Rule::Module) => 0.98,
        (Family::JavaScript, Rule::SelfRef) => 0.99,
        (Family::JavaScript, Rule::Super) => 0.98,
        (Family::JavaScript, Rule::Typed) => 0.98,
        (Family::JavaScript, Rule::Class) => 0.97,
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
