//! The interface of a file: what other files' references can see of it.
//!
//! Resolution of a reference written in one file reads other files only through their
//! interfaces: module-level definitions and the class members and nested classes
//! under them (kinds, qualified names, signatures, which carry return types, and what
//! Python functions' `return`s give), imports
//! with the names they bind, renamed exports, and the bases classes name. Function
//! bodies are not part of it: the calls, locals and nested functions inside them are
//! seen by their own file only. So an edit that leaves a file's interface digest equal
//! re-resolves only the references that pointed at its old nodes; an edit that moves
//! it also re-resolves the references of the files that import it.

use std::collections::HashMap;

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
        field(s.returns.as_deref().unwrap_or(""));
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

/// Per name, a digest of what other files see under that name: the definitions with
/// that bare name (module-level, class members, nested classes), the imports binding it
/// (a star import under `*`), the bases of the classes so named, the exports of it.
/// Two files' maps differ at the names whose own entries moved; [`changed_names`] adds
/// the classes whose bases are looked up through such a name. The entries are those
/// [`digest`] hashes.
#[derive(Debug, Clone, Default)]
pub struct NameDigests {
    digests: HashMap<String, u64>,
    /// (class name, base head) of every class base that is not local to a function:
    /// the head is the name a lookup of the base starts from in the file (`B` of `B`,
    /// `mod` of `mod.B`).
    bases: Vec<(String, String)>,
}

/// The name a lookup of a base written `qualifier.name` starts from.
fn base_head(name: &str, qualifier: &str) -> String {
    let first = if qualifier.is_empty() {
        name
    } else {
        qualifier
    };
    first.split('.').next().unwrap_or(first).to_string()
}

/// One entry of a name: its fields hashed, added into the name's digest (a sum: the
/// order of entries does not count, their multiplicity does).
fn add_entry(map: &mut HashMap<String, u64>, key: &str, fields: &[&str]) {
    let mut h = blake3::Hasher::new();
    for f in fields {
        h.update(&(f.len() as u64).to_le_bytes());
        h.update(f.as_bytes());
    }
    let bytes = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&bytes.as_bytes()[..8]);
    let v = map.entry(key.to_string()).or_insert(0);
    *v = v.wrapping_add(u64::from_le_bytes(first));
}

/// [`NameDigests`] of a parsed file.
pub fn name_digests(facts: &FileFacts) -> NameDigests {
    let mut map = HashMap::new();
    let mut bases = Vec::new();
    let mut local = vec![false; facts.symbols.len()];
    for (i, s) in facts.symbols.iter().enumerate() {
        let parent = s.parent.and_then(|p| facts.symbols.get(p));
        local[i] =
            s.parent.is_some_and(|p| local[p]) || parent.is_some_and(|p| p.kind.is_callable());
        if !local[i] {
            add_entry(
                &mut map,
                &s.name,
                &[
                    "symbol",
                    s.kind.name(),
                    &s.qualified_name,
                    &s.signature,
                    s.returns.as_deref().unwrap_or(""),
                ],
            );
        }
    }
    for i in &facts.imports {
        let bindings = ImportBinding::encode(&i.bindings).unwrap_or_default();
        let names = i.names.join(",");
        let fields = ["import", i.kind.name(), &i.specifier, &names, &bindings];
        import_entries(&mut map, &i.bindings, &fields);
    }
    for b in &facts.inherits {
        if local.get(b.symbol).copied().unwrap_or(true) {
            continue;
        }
        let Some(class) = facts.symbols.get(b.symbol) else {
            continue;
        };
        let kind = if b.implements { "implement" } else { "inherit" };
        let qualifier = b.qualifier.as_deref().unwrap_or("");
        add_entry(
            &mut map,
            &class.name,
            &["base", &class.qualified_name, &b.name, qualifier, kind],
        );
        bases.push((class.name.clone(), base_head(&b.name, qualifier)));
    }
    for e in &facts.exports {
        for key in [&e.name, &e.local] {
            add_entry(&mut map, key, &["export", &e.name, &e.local]);
        }
    }
    NameDigests {
        digests: map,
        bases,
    }
}

/// An import's entry under each name it binds (`*` for a star import; `*` too when it
/// binds none, so that a change of it counts as a change of the whole file's lookups).
fn import_entries(map: &mut HashMap<String, u64>, bindings: &[ImportBinding], fields: &[&str]) {
    if bindings.is_empty() {
        add_entry(map, "*", fields);
    }
    for b in bindings {
        add_entry(map, &b.local, fields);
    }
}

/// A stored symbol: `(id, parent id, kind, name, qualified name, signature,
/// returns)`.
pub type StoredSymbol = crate::store::files::InterfaceSymbol;
/// A stored import, base or export reference: `(kind, form, name, qualifier,
/// bindings, source node id)`.
pub type StoredRef = crate::store::files::InterfaceRef;

/// [`NameDigests`] of a file as the index stores it (its rows before it is written
/// again), equal to [`name_digests`] of the facts that wrote them.
pub fn stored_name_digests(symbols: &[StoredSymbol], refs: &[StoredRef]) -> NameDigests {
    let mut map = HashMap::new();
    let mut bases = Vec::new();
    let by_id: HashMap<i64, &StoredSymbol> = symbols.iter().map(|s| (s.0, s)).collect();
    // Symbols come in id order, parents first, as they were written.
    let mut local: HashMap<i64, bool> = HashMap::new();
    for s in symbols {
        let parent = s.1.and_then(|p| by_id.get(&p));
        let is_local = s.1.is_some_and(|p| local.get(&p).copied().unwrap_or(false))
            || parent.is_some_and(|p| p.2 == "function" || p.2 == "method");
        local.insert(s.0, is_local);
        if !is_local {
            let signature = s.5.as_deref().unwrap_or("");
            let returns = s.6.as_deref().unwrap_or("");
            add_entry(&mut map, &s.3, &["symbol", &s.2, &s.4, signature, returns]);
        }
    }
    for (kind, form, name, qualifier, bindings, src) in refs {
        let qualifier = qualifier.as_deref().unwrap_or("");
        match kind.as_str() {
            "import" => {
                let encoded = bindings.as_deref().unwrap_or("");
                let decoded = ImportBinding::decode(bindings.as_deref());
                let form = form.as_deref().unwrap_or("");
                let fields = ["import", form, name, qualifier, encoded];
                import_entries(&mut map, &decoded, &fields);
            }
            "inherit" | "implement" => {
                if local.get(src).copied().unwrap_or(true) {
                    continue;
                }
                let Some(class) = by_id.get(src) else {
                    continue;
                };
                add_entry(
                    &mut map,
                    &class.3,
                    &["base", &class.4, name, qualifier, kind],
                );
                bases.push((class.3.clone(), base_head(name, qualifier)));
            }
            "export" => {
                for key in [name.as_str(), qualifier] {
                    add_entry(&mut map, key, &["export", name, qualifier]);
                }
            }
            _ => {}
        }
    }
    NameDigests {
        digests: map,
        bases,
    }
}

/// The names whose lookups in one file may now give another answer, sorted: those whose
/// digests differ between two [`NameDigests`] of the file (present in one only, or with
/// other entries), and, to the end, every class (before or after) with a base looked
/// up through such a name. Removing `from m import B` leaves `class A(B)` as written,
/// but A's method resolution order moves, and with it every lookup through A (and
/// through its subclasses elsewhere, whose lookups read A's bases).
pub fn changed_names(old: &NameDigests, new: &NameDigests) -> Vec<String> {
    let (a, b) = (&old.digests, &new.digests);
    let mut out: std::collections::BTreeSet<String> = a
        .iter()
        .filter(|(k, v)| b.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .chain(b.keys().filter(|k| !a.contains_key(*k)).cloned())
        .collect();
    loop {
        let more: Vec<String> = old
            .bases
            .iter()
            .chain(&new.bases)
            .filter(|(class, head)| out.contains(head) && !out.contains(class))
            .map(|(class, _)| class.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        out.extend(more);
    }
    out.into_iter().collect()
}

/// The `ref_dep_sets.key` of a lookup of `name` in file `file_id`: the file id in the high
/// 32 bits, the 32-bit FNV-1a hash of the name in the low ones (two names of one file
/// may share a key: their references are then resolved again together, which costs
/// time, never exactness).
pub fn dep_key(file_id: i64, name: &str) -> i64 {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    (file_id << 32) | i64::from(h)
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

    fn changed(before: &str, after: &str) -> Vec<String> {
        let facts = |s: &str| extract(Language::Python, s.as_bytes()).unwrap();
        changed_names(&name_digests(&facts(before)), &name_digests(&facts(after)))
    }

    #[test]
    fn changed_names_are_the_names_whose_entries_moved() {
        let a = "import os\nfrom m import *\nclass A(B):\n    def m(self):\n        return 1\n";
        assert_eq!(changed(a, &format!("{a}def f(): pass\n")), ["f"]);
        assert_eq!(changed(a, &a.replace("A(B)", "A(C)")), ["A"]);
        assert_eq!(
            changed(a, &a.replace("def m(self)", "def m(self, x)")),
            ["m"]
        );
        assert_eq!(
            changed(a, &a.replace("import os", "import os as o")),
            ["o", "os"]
        );
        assert_eq!(changed(a, &a.replace("from m import *\n", "")), ["*"]);
        // A base's binding moves the class and, to the end, its subclasses.
        let c = "from m import B\nimport mod\nclass A(B):\n    pass\nclass C(A):\n    pass\nclass D(mod.E):\n    pass\n";
        assert_eq!(
            changed(c, &c.replace("from m import B\n", "")),
            ["A", "B", "C"]
        );
        assert_eq!(changed(c, &c.replace("import mod\n", "")), ["D", "mod"]);
        assert!(changed(a, &a.replace("return 1", "return 2")).is_empty());
        assert_eq!(dep_key(3, "f") >> 32, 3);
        assert_ne!(dep_key(3, "f"), dep_key(3, "g"));
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
