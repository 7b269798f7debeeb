//! What the rules of the native languages (`rust.rs`, `go.rs`, `java.rs`, `c.rs`)
//! share: their per-run caches and the reading of a definition's outcome.
//!
//! Owns no rule itself: each language module says how its names are looked up.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::rules::Rule;
use super::{Outcome, Resolver};
use crate::index::IndexError;
use crate::store::files::{DefKind, Definition, IndexTx, ModuleSpan};

/// What a name or path denotes in a native language.
#[derive(Debug, Clone)]
pub(super) enum Item {
    /// A module (Rust: a file module or an inline `mod`; `node` is the file node or the
    /// `mod`'s node).
    Module { file: i64, node: i64 },
    /// A function, method or type of the workspace.
    Def(Definition),
    /// Outside the workspace (the standard library, another crate or package).
    External,
    /// Several definitions and no rule prefers one.
    Ambiguous(usize),
}

/// A Rust lookup: (module node, name, value namespace).
pub(super) type LookupKey = (i64, Box<str>, bool);

/// Per-run caches of the native rules.
#[derive(Default)]
pub(super) struct Caches {
    /// Rust: (module node, name, value namespace) → what the name means there.
    pub(super) rust_lookups: FxHashMap<LookupKey, Option<(Item, Rule)>>,
    /// Rust, Go, Java, C++: (type node, member name) → the member.
    pub(super) members: FxHashMap<(i64, Box<str>), Option<Item>>,
    /// Rust: file → the directory of its crate (`None`: no crate root above it).
    pub(super) rust_crates: FxHashMap<i64, Option<Arc<str>>>,
    /// Rust: file → its inline modules `(node, first line, last line)`.
    pub(super) rust_modules: FxHashMap<i64, Arc<[ModuleSpan]>>,
    /// `rust_modules` holds every file's (a bulk run loads them with one query: the
    /// secondary indexes are dropped while a fresh build runs).
    pub(super) rust_modules_loaded: bool,
    /// C/C++: file → the files whose functions it sees (itself, its headers included
    /// transitively, their companion sources), sorted.
    pub(super) c_scopes: FxHashMap<i64, Arc<[i64]>>,
    /// C/C++: the files met by the scope walk in progress (kept to reuse its memory).
    pub(super) c_visited: FxHashSet<i64>,
}

/// The outcome of calling an item found by `rule`: an edge to a workspace function,
/// method or type (a tuple struct, a class built with `new`), `external`, `ambiguous`,
/// or `unresolved` for anything else.
pub(super) fn call_outcome(item: Option<Item>, rule: Rule) -> Outcome {
    match item {
        Some(Item::Def(d)) if d.kind.is_callable() || d.kind == DefKind::Type => {
            Outcome::edge(d.id, rule)
        }
        Some(Item::External) => Outcome::status("external", 0),
        Some(Item::Ambiguous(n)) => Outcome::status("ambiguous", n),
        _ => Outcome::status("unresolved", 0),
    }
}

/// One item from several candidates: the one, `Ambiguous` for more, `None` for none.
pub(super) fn one(found: Vec<Definition>) -> Option<Item> {
    match found.len() {
        0 => None,
        1 => found.into_iter().next().map(Item::Def),
        n => Some(Item::Ambiguous(n)),
    }
}

/// True for a receiver written as a literal (`"a"`, `'c'`, `1`, `[..]`, `{..}`): its
/// methods are the language's own.
pub(super) fn is_literal(q: &str) -> bool {
    matches!(
        q.chars().next(),
        Some('"' | '\'' | '[' | '{' | '`' | '0'..='9')
    ) || q.starts_with("b\"")
        || q.starts_with("r\"")
        || q.starts_with("r#\"")
}

/// A method, and the type whose body holds it.
pub(super) struct MethodIn {
    /// The method's definition.
    pub(super) method: Definition,
    /// The type (class, struct, impl, trait) that is its parent; `None` for a method
    /// defined out of line (`void Foo::bar() {}`, a Rust `impl` whose type lives in
    /// another module), which its qualified name then names.
    pub(super) body_type: Option<Definition>,
}

impl Resolver {
    /// Node `src` as a method with the type around it; `None` when `src` is not a
    /// method (a function, a file).
    pub(super) fn method_in(
        &mut self,
        tx: &IndexTx<'_>,
        src: i64,
    ) -> Result<Option<MethodIn>, IndexError> {
        let Some(method) = self.symbols.def(tx, src)? else {
            return Ok(None);
        };
        if method.kind != DefKind::Method {
            return Ok(None);
        }
        let body_type = match method.parent_id {
            Some(parent) => self
                .symbols
                .def(tx, parent)?
                .filter(|p| p.kind == DefKind::Type),
            None => None,
        };
        Ok(Some(MethodIn { method, body_type }))
    }

    /// Member `name` of one of `class`'s bases, each searched with `lookup` at
    /// `depth + 1`, in declaration order: the first one found; `External` when none is
    /// found and a base is outside the workspace (or has such a base itself); `None`
    /// otherwise.
    pub(super) fn member_in_bases(
        &mut self,
        tx: &IndexTx<'_>,
        class: i64,
        name: &str,
        depth: usize,
        lookup: MemberLookup,
    ) -> Result<Option<Item>, IndexError> {
        let mut open = false;
        for base in self.symbols.bases_of(tx, class)?.iter() {
            let Some(id) = base.node else {
                open = true;
                continue;
            };
            if let Some(b) = self.symbols.def(tx, id)? {
                match lookup(self, tx, &b, name, depth + 1)? {
                    Some(Item::External) => open = true,
                    Some(item) => return Ok(Some(item)),
                    None => {}
                }
            }
        }
        Ok(open.then_some(Item::External))
    }

    /// `uncached(tx, ty, name, depth)` remembered per (type, member name) for the run:
    /// `None` beyond `max_depth` (not remembered), and `None` while the lookup itself
    /// runs, so a cycle of bases ends.
    pub(super) fn memo_member(
        &mut self,
        tx: &IndexTx<'_>,
        ty: &Definition,
        name: &str,
        depth: usize,
        max_depth: usize,
        uncached: MemberLookup,
    ) -> Result<Option<Item>, IndexError> {
        let key = (ty.id, Box::<str>::from(name));
        if let Some(known) = self.native.members.get(&key) {
            return Ok(known.clone());
        }
        if depth > max_depth {
            return Ok(None);
        }
        self.native.members.insert(key.clone(), None);
        let found = uncached(self, tx, ty, name, depth)?;
        self.native.members.insert(key, found.clone());
        Ok(found)
    }
}

/// A language's member lookup (type, member name, depth) for [`Resolver::member_in_bases`].
pub(super) type MemberLookup =
    fn(&mut Resolver, &IndexTx<'_>, &Definition, &str, usize) -> Result<Option<Item>, IndexError>;
