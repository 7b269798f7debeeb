//! C and C++: calls and bases resolved through what a file includes.
//!
//! The files a C or C++ file sees: itself, the headers it includes (transitively, as
//! the preprocessor pastes them) and, for each header, the source files beside it with
//! the same stem (`util.h` → `util.c`), where what it declares is defined.
//!
//! - A bare `f()`: in C++ first a member of the caller's class (and its bases): `self`;
//!   then a function of the caller's own file (`scope`); then one of the files it sees
//!   (`header`). A name bound to a local variable or parameter is not resolved.
//! - `this->m()`: the caller's class and its bases (`self`).
//! - `Class::f()`: the members of a class the file sees (`class`); `ns::f()`: a
//!   function qualified by that namespace in the files it sees (`module`); `std::` is
//!   `external`.
//! - `obj.m()` / `p->m()` where the file declares `obj`'s type (a parameter, a local, a
//!   data member): that class's members (`typed`).
//! - A class's members: the methods defined in its body, and those defined out of line
//!   with its qualified name (`void ns::Foo::bar() {..}`) in any C++ file; then its
//!   bases in order. Anything else is not resolved: a function defined in a file the
//!   caller does not see is never an edge, even if it is the only one of that name.

use std::sync::Arc;

use super::native::{call_outcome, is_literal, one, Item, MethodIn};
use super::rules::Rule;
use super::{Family, Outcome, Resolver};
use crate::index::IndexError;
use crate::lang::CallRef;
use crate::store::files::{DefKind, Definition, IndexTx, Ref};

/// Most files a C/C++ file is taken to see through its includes.
const MAX_SCOPE_FILES: usize = 2_000;

impl Resolver {
    /// Resolves a C or C++ call reference (module docs).
    pub(super) fn c_call(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let local = r.flags & CallRef::LOCAL != 0;
        let q = r.qualifier.as_deref().map(str::trim);
        match q {
            None => {
                if local {
                    return Ok(Outcome::status("unresolved", 0));
                }
                if let Some(class) = self.c_enclosing_class(tx, r.file_id, r.src_id)? {
                    if let Some(item @ (Item::Def(_) | Item::Ambiguous(_))) =
                        self.c_member(tx, &class, &r.name, 0)?
                    {
                        return Ok(call_outcome(Some(item), Rule::SelfRef));
                    }
                }
                // Filtered by reference and cloned once: a common static name (`init`,
                // `probe`) has thousands of definitions.
                let defs = self.symbols.named(tx, &r.name)?;
                let function = |d: &&Definition| d.kind == DefKind::Function && d.id != r.src_id;
                let own: Vec<Definition> = defs
                    .iter()
                    .filter(function)
                    .filter(|d| d.file_id == r.file_id)
                    .cloned()
                    .collect();
                if !own.is_empty() {
                    return Ok(call_outcome(one(own), Rule::Scope));
                }
                let scope = self.c_scope(tx, r.file_id)?;
                let seen: Vec<Definition> = defs
                    .iter()
                    .filter(function)
                    .filter(|d| scope.binary_search(&d.file_id).is_ok())
                    .cloned()
                    .collect();
                Ok(call_outcome(one(seen), Rule::Header))
            }
            Some("this") => {
                let Some(class) = self.c_enclosing_class(tx, r.file_id, r.src_id)? else {
                    return Ok(Outcome::status("unresolved", 0));
                };
                let member = self.c_member(tx, &class, &r.name, 0)?;
                Ok(call_outcome(member, Rule::SelfRef))
            }
            Some(q) if r.flags & CallRef::PATH != 0 => {
                let q = q.split('<').next().unwrap_or(q).trim();
                if q == "std" || q.starts_with("std::") {
                    return Ok(Outcome::status("external", 0));
                }
                if let Some(Item::Def(class)) = self.c_class(tx, r.file_id, q)? {
                    let member = self.c_member(tx, &class, &r.name, 0)?;
                    return Ok(call_outcome(member, Rule::Class));
                }
                let scope = self.c_scope(tx, r.file_id)?;
                let suffix = format!("{q}::{}", r.name);
                let nested = format!("::{suffix}");
                let defs = self.symbols.named(tx, &r.name)?;
                let found: Vec<Definition> = defs
                    .iter()
                    .filter(|d| {
                        d.kind == DefKind::Function
                            && scope.binary_search(&d.file_id).is_ok()
                            && (*d.qualified_name == *suffix || d.qualified_name.ends_with(&nested))
                    })
                    .cloned()
                    .collect();
                Ok(call_outcome(one(found), Rule::Module))
            }
            Some(q) => {
                if is_literal(q) {
                    return Ok(Outcome::status("external", 0));
                }
                let Some(hint) = r.receiver_type.as_deref() else {
                    return Ok(Outcome::status("unresolved", 0));
                };
                Ok(match self.c_class(tx, r.file_id, hint)? {
                    Some(Item::Def(class)) => {
                        let member = self.c_member(tx, &class, &r.name, 0)?;
                        call_outcome(member, Rule::Typed)
                    }
                    Some(Item::External) => Outcome::status("external", 0),
                    _ => Outcome::status("unresolved", 0),
                })
            }
        }
    }

    /// Resolves a C++ base class: a class of the file, else of the files it sees.
    pub(super) fn c_base(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let found = self.c_class(tx, r.file_id, &r.name)?;
        let rule = match &found {
            Some(Item::Def(d)) if d.file_id == r.file_id => Rule::Scope,
            _ => Rule::Header,
        };
        Ok(match found {
            Some(Item::Def(d)) if d.id == r.src_id => Outcome::status("unresolved", 0),
            other => call_outcome(other, rule),
        })
    }

    /// The files `file` sees (module docs), sorted.
    fn c_scope(&mut self, tx: &IndexTx<'_>, file: i64) -> Result<Arc<[i64]>, IndexError> {
        if let Some(known) = self.native.c_scopes.get(&file) {
            return Ok(Arc::clone(known));
        }
        let mut seen: Vec<i64> = vec![file];
        let mut known = std::mem::take(&mut self.native.c_visited);
        known.clear();
        known.insert(file);
        let mut queue: Vec<i64> = vec![file];
        while let Some(f) = queue.pop() {
            if seen.len() > MAX_SCOPE_FILES {
                break;
            }
            for &header in self.c_direct(tx, f)?.iter() {
                if known.insert(header) {
                    seen.push(header);
                    queue.push(header);
                }
            }
        }
        self.native.c_visited = known;
        let headers = seen.len();
        for i in 0..headers {
            if let Some(sources) = self.companions.get(&seen[i]) {
                seen.extend_from_slice(sources);
            }
        }
        seen.retain(|f| self.family(*f) == Family::C);
        seen.sort_unstable();
        seen.dedup();
        let scope: Arc<[i64]> = Arc::from(seen);
        self.native.c_scopes.insert(file, Arc::clone(&scope));
        Ok(scope)
    }

    /// The files `file`'s imports resolved to, in import order (cached, across runs of
    /// one process too: see `FileTables::includes`).
    fn c_direct(&mut self, tx: &IndexTx<'_>, file: i64) -> Result<Arc<[i64]>, IndexError> {
        if let Some(known) = self.includes.get(&file) {
            return Ok(Arc::clone(known));
        }
        let imports = self.symbols.imports_of(tx, file)?;
        let direct: Arc<[i64]> = imports
            .iter()
            .flat_map(|import| import.files.iter().copied())
            .collect();
        self.includes.insert(file, Arc::clone(&direct));
        Ok(direct)
    }

    /// The class around node `src`: the class whose body holds the method, or the one
    /// its out-of-line name qualifies (`Foo::bar` → `Foo`).
    fn c_enclosing_class(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        src: i64,
    ) -> Result<Option<Definition>, IndexError> {
        let Some(MethodIn { method, body_type }) = self.method_in(tx, src)? else {
            return Ok(None);
        };
        if body_type.is_some() {
            return Ok(body_type);
        }
        let Some((class, _)) = method.qualified_name.rsplit_once("::") else {
            return Ok(None);
        };
        let class = class.to_string();
        Ok(match self.c_class(tx, file, &class)? {
            Some(Item::Def(d)) => Some(d),
            _ => None,
        })
    }

    /// The class a type as written names (`Foo`, `ns::Foo`, `const struct foo *`,
    /// `std::vector<T>`) among the files `file` sees.
    fn c_class(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        ty: &str,
    ) -> Result<Option<Item>, IndexError> {
        let ty = ty.split('<').next().unwrap_or(ty);
        let ty: String = ty
            .split_whitespace()
            .filter(|w| {
                !matches!(
                    *w,
                    "const" | "volatile" | "struct" | "class" | "union" | "typename"
                )
            })
            .collect::<Vec<_>>()
            .join(" ");
        let ty = ty.trim_matches(|c: char| c == '*' || c == '&' || c.is_whitespace());
        let ty = ty.trim_start_matches("::");
        if ty.is_empty() || ty.contains(' ') {
            return Ok(None);
        }
        if ty.starts_with("std::") {
            return Ok(Some(Item::External));
        }
        let name = ty.rsplit("::").next().unwrap_or(ty);
        let nested = format!("::{ty}");
        let scope = self.c_scope(tx, file)?;
        let defs = self.symbols.named(tx, name)?;
        let found: Vec<Definition> = defs
            .iter()
            .filter(|d| {
                d.kind == DefKind::Type
                    && scope.binary_search(&d.file_id).is_ok()
                    && (*d.qualified_name == *ty || d.qualified_name.ends_with(&nested))
            })
            .cloned()
            .collect();
        // One class may be defined in a header seen twice: same qualified name, one node.
        Ok(one(found))
    }

    /// Member `name` of `class` (module docs).
    fn c_member(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
        name: &str,
        depth: usize,
    ) -> Result<Option<Item>, IndexError> {
        self.memo_member(tx, class, name, depth, 16, Resolver::c_member_uncached)
    }

    fn c_member_uncached(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
        name: &str,
        depth: usize,
    ) -> Result<Option<Item>, IndexError> {
        let qualified = format!("{}::{name}", class.qualified_name);
        let defs = self.symbols.named(tx, name)?;
        let own: Vec<Definition> = defs
            .iter()
            .filter(|d| {
                d.kind == DefKind::Method
                    && self.family(d.file_id) == Family::C
                    && (d.parent_id == Some(class.id) || *d.qualified_name == *qualified)
            })
            .cloned()
            .collect();
        let mut result = one(own);
        if result.is_none() {
            result = self.member_in_bases(tx, class.id, name, depth, Resolver::c_member)?;
        }
        Ok(result)
    }
}
