//! The interface of a file: what other files' references can see of it.
//!
//! Resolution of a reference written in one file reads other files only through their
//! interfaces: module-level definitions and the class members and nested classes
//! under them (kinds, qualified names, signatures, which carry return types), imports
//! with the names they bind, renamed exports, and the bases classes name. Function
//! bodies are not part of it: the calls, locals and nested functions inside them are
//! seen by their own file only. So an edit that leaves a file's interface digest equal
//! re-resolves only the references that pointed at its old nodes; an edit that moves
//! it also re-resolves the references of the files that import it.

use crate::lang::{FileFacts, ImportBinding};

/// The blake3 digest (64 hex digits) of the interface of a parsed file.
pub fn digest(facts: &FileFacts) -> String {
    let mut h = blake3::Hasher::new();
    let mut field = |s: &str| {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    // A symbol inside a function or method is local to it.
    let mut local = vec![false; facts.symbols.len()];
    for (i, s) in facts.symbols.iter().enumerate() {
        let parent = s.parent.and_then(|p| facts.symbols.get(p));
        local[i] =
            s.parent.is_some_and(|p| local[p]) || parent.is_some_and(|p| p.kind.is_callable());
        if local[i] {
            continue;
        }
        field("symbol");
        field(s.kind.name());
        field(&s.qualified_name);
        field(&s.signature);
    }
    for i in &facts.imports {
        field("import");
        field(i.kind.name());
        field(&i.specifier);
        field(&i.names.join(","));
        field(&ImportBinding::encode(&i.bindings).unwrap_or_default());
    }
    for b in &facts.inherits {
        if local.get(b.symbol).copied().unwrap_or(true) {
            continue;
        }
        field("base");
        field(
            facts
                .symbols
                .get(b.symbol)
                .map_or("", |s| s.qualified_name.as_str()),
        );
        field(&b.name);
        field(b.qualifier.as_deref().unwrap_or(""));
        field(if b.implements {
            "implements"
        } else {
            "extends"
        });
    }
    for e in &facts.exports {
        field("export");
        field(&e.name);
        field(&e.local);
    }
    h.finalize().to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{extract, Language};

    fn of(source: &str) -> String {
        digest(&extract(Language::Python, source.as_bytes()).unwrap())
    }

    #[test]
    fn bodies_are_not_part_of_the_interface() {
        let a = of("import os\nclass A(B):\n    def m(self):\n        return 1\n");
        let body = of("import os\nclass A(B):\n    def m(self):\n        x = f()\n        def inner(): pass\n        return x\n");
        assert_eq!(a, body);
        let lines = of("\n\nimport os\n\nclass A(B):\n\n    def m(self):\n        return 1\n");
        assert_eq!(a, lines, "moving code does not change the interface");
    }

    #[test]
    fn names_bases_imports_and_signatures_are() {
        let a = of("import os\nclass A(B):\n    def m(self):\n        return 1\n");
        assert_ne!(
            a,
            of("import sys\nclass A(B):\n    def m(self):\n        return 1\n")
        );
        assert_ne!(
            a,
            of("import os\nclass A(C):\n    def m(self):\n        return 1\n")
        );
        assert_ne!(
            a,
            of("import os\nclass A(B):\n    def n(self):\n        return 1\n")
        );
        assert_ne!(
            a,
            of("import os\nclass A(B):\n    def m(self) -> X:\n        return 1\n")
        );
        assert_ne!(
            a,
            of("import os as o\nclass A(B):\n    def m(self):\n        return 1\n")
        );
    }
}
