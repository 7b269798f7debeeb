//! Java: calls and bases resolved by Java's own scoping.
//!
//! A class name is looked up as `javac` does: a class of the caller's file (nested ones
//! included), a single-type import (`import a.b.C;`), a class of the caller's package
//! (every source root), an on-demand import (`import a.b.*;`); one named by an import
//! outside the workspace is `external`.
//!
//! - `m()` and `this.m()`: the caller's class, then its superclass and interfaces up
//!   the hierarchy, then the classes around it (a nested class sees its outer class's
//!   methods): `self`. Then a static import (`import static a.b.C.m;`, `C.*`): `import`.
//! - `super.m()`: the hierarchy above the caller's class (`super`).
//! - `new C()`: `C`'s constructor when it declares one, else the class (`class`).
//! - `C.m()` on a class name: `C`'s members through its hierarchy (`class`).
//! - `x.m()` on a receiver whose type the file declares (a local, a parameter, a field,
//!   `var x = new C()`) or on `new C(..)`: that type's members through its hierarchy
//!   (`typed`).
//! - Overloads (several methods of one name in the class that declares it) are
//!   `ambiguous`: arguments are not typed. A member not found in a class whose
//!   hierarchy reaches outside the workspace is `external` (inherited from there), as
//!   is any call on a JDK or library type.

use super::native::{call_outcome, is_literal, one, Item};
use super::rules::Rule;
use super::{Family, Outcome, Resolver};
use crate::index::IndexError;
use crate::lang::CallRef;
use crate::store::files::{DefKind, Definition, IndexTx, Ref};

impl Resolver {
    /// Resolves a Java call reference (module docs).
    pub(super) fn java_call(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let local = r.flags & CallRef::LOCAL != 0;
        if r.flags & CallRef::NEW != 0 {
            let class =
                self.java_class(tx, r.file_id, r.src_id, r.qualifier.as_deref(), &r.name)?;
            return Ok(match class {
                Some(Item::Def(c)) => {
                    let defs = self.symbols.named(tx, &c.name)?;
                    let constructors: Vec<Definition> = defs
                        .iter()
                        .filter(|d| d.kind == DefKind::Method && d.parent_id == Some(c.id))
                        .cloned()
                        .collect();
                    match constructors.as_slice() {
                        [only] => Outcome::edge(only.id, Rule::Class),
                        _ => Outcome::edge(c.id, Rule::Class),
                    }
                }
                other => call_outcome(other, Rule::Class),
            });
        }
        let q = r.qualifier.as_deref().map(str::trim);
        match q {
            None | Some("this") => {
                let Some(class) = self.enclosing_class(tx, r.src_id)? else {
                    return Ok(Outcome::status("unresolved", 0));
                };
                // The class and its hierarchy, then the classes around it.
                let mut outer = Some(class.clone());
                let mut open = false;
                while let Some(c) = outer {
                    match self.java_member(tx, &c, &r.name, 0)? {
                        Some(Item::External) => open = true,
                        Some(item) => return Ok(call_outcome(Some(item), Rule::SelfRef)),
                        None => {}
                    }
                    if q == Some("this") {
                        break;
                    }
                    outer = match c.parent_id {
                        Some(p) => self.enclosing_class(tx, p)?,
                        None => None,
                    };
                }
                if q.is_none() {
                    if let Some(item) = self.java_static_import(tx, r.file_id, &r.name)? {
                        return Ok(call_outcome(Some(item), Rule::Import));
                    }
                }
                Ok(Outcome::status(
                    if open { "external" } else { "unresolved" },
                    0,
                ))
            }
            Some("super") => {
                let Some(class) = self.enclosing_class(tx, r.src_id)? else {
                    return Ok(Outcome::status("unresolved", 0));
                };
                let mut open = false;
                for base in self.symbols.bases_of(tx, class.id)?.iter() {
                    let Some(id) = base.node else {
                        open = true;
                        continue;
                    };
                    let Some(b) = self.symbols.def(tx, id)? else {
                        continue;
                    };
                    match self.java_member(tx, &b, &r.name, 0)? {
                        Some(Item::External) => open = true,
                        Some(item) => return Ok(call_outcome(Some(item), Rule::Super)),
                        None => {}
                    }
                }
                Ok(Outcome::status(
                    if open { "external" } else { "unresolved" },
                    0,
                ))
            }
            Some(q) => {
                if is_literal(q) {
                    return Ok(Outcome::status("external", 0));
                }
                // `new C(..).m()`: the receiver is a `C`.
                let created = q
                    .strip_prefix("new ")
                    .and_then(|rest| rest.split_once('(').map(|(ty, _)| ty.trim()));
                if let Some(hint) = r.receiver_type.as_deref().or(created) {
                    let (qualifier, name) = split_type(hint);
                    return self.java_member_call(tx, r, qualifier, name, Rule::Typed);
                }
                if local {
                    return Ok(Outcome::status("unresolved", 0));
                }
                // `C.m()`, `a.b.C.m()`, `Outer.Inner.m()`: a class name.
                let simple = q.split('.').all(|s| {
                    !s.is_empty()
                        && s.chars()
                            .all(|c| c == '_' || c == '$' || c.is_alphanumeric())
                });
                let last = q.rsplit('.').next().unwrap_or(q);
                if simple && last.starts_with(|c: char| c.is_uppercase()) {
                    let (qualifier, name) = split_type(q);
                    return self.java_member_call(tx, r, qualifier, name, Rule::Class);
                }
                // `System.out.println()`: a field of a class outside the workspace.
                let first = q.split('.').next().unwrap_or(q);
                if simple && first.starts_with(|c: char| c.is_uppercase()) {
                    if let Some(Item::External) =
                        self.java_class(tx, r.file_id, r.src_id, None, first)?
                    {
                        return Ok(Outcome::status("external", 0));
                    }
                }
                Ok(Outcome::status("unresolved", 0))
            }
        }
    }

    /// Resolves a base in a class header: the class named from the file.
    pub(super) fn java_base(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let found = self.java_class(tx, r.file_id, r.src_id, r.qualifier.as_deref(), &r.name)?;
        let same_file = matches!(&found, Some(Item::Def(d)) if d.file_id == r.file_id);
        let rule = if same_file {
            Rule::Scope
        } else {
            Rule::Package
        };
        Ok(match found {
            Some(Item::Def(d)) if d.id == r.src_id => Outcome::status("unresolved", 0),
            other => call_outcome(other, rule),
        })
    }

    /// A call of `r.name` on the class `name` (after `qualifier`): an edge to its member
    /// found by `rule`, `external` for a class outside the workspace, else `unresolved`.
    fn java_member_call(
        &mut self,
        tx: &IndexTx<'_>,
        r: &Ref,
        qualifier: Option<&str>,
        name: &str,
        rule: Rule,
    ) -> Result<Outcome, IndexError> {
        let class = self.java_class(tx, r.file_id, r.src_id, qualifier, name)?;
        Ok(match class {
            Some(Item::Def(c)) => {
                let member = self.java_member(tx, &c, &r.name, 0)?;
                call_outcome(member, rule)
            }
            Some(Item::External) => Outcome::status("external", 0),
            _ => Outcome::status("unresolved", 0),
        })
    }

    /// The class `name` (written after `qualifier`, if any) as seen from node `src` of
    /// `file` (module docs).
    fn java_class(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        src: i64,
        qualifier: Option<&str>,
        name: &str,
    ) -> Result<Option<Item>, IndexError> {
        let defs = self.symbols.named(tx, name)?;
        let types: Vec<Definition> = defs
            .iter()
            .filter(|d| d.kind == DefKind::Type && self.family(d.file_id) == Family::Java)
            .cloned()
            .collect();
        if types.is_empty() {
            // No class of the workspace has the name: the JDK's or a library's.
            return Ok(Some(Item::External));
        }
        // `Outer.Inner`: a member class of `Outer` (outside the workspace when `Outer` is).
        if let Some(outer) = qualifier.and_then(|q| q.rsplit('.').next()) {
            if outer.starts_with(|c: char| c.is_uppercase()) {
                return Ok(match self.java_class(tx, file, src, None, outer)? {
                    Some(Item::Def(o)) => {
                        let inner: Vec<Definition> = types
                            .iter()
                            .filter(|t| t.parent_id == Some(o.id))
                            .cloned()
                            .collect();
                        one(inner)
                    }
                    other => other,
                });
            }
        }
        // The caller's file: the innermost class of that name around or beside it.
        let here: Vec<Definition> = types
            .iter()
            .filter(|t| t.file_id == file)
            .cloned()
            .collect();
        if here.len() == 1 {
            return Ok(one(here));
        }
        if here.len() > 1 {
            let mut at = Some(src);
            while let Some(id) = at {
                if let Some(t) = here.iter().find(|t| t.parent_id == Some(id) || t.id == id) {
                    return Ok(Some(Item::Def(t.clone())));
                }
                at = self.symbols.def(tx, id)?.and_then(|d| d.parent_id);
            }
            return Ok(Some(Item::Ambiguous(here.len())));
        }
        let top_level = |this: &mut Self, files: &[i64]| -> Result<Vec<Definition>, IndexError> {
            let mut out = Vec::new();
            for t in &types {
                if files.contains(&t.file_id) {
                    let node = this.file_node(tx, t.file_id)?;
                    if t.parent_id == node {
                        out.push(t.clone());
                    }
                }
            }
            Ok(out)
        };
        let imports = self.symbols.imports_of(tx, file)?;
        // Single-type imports.
        for import in imports.iter() {
            let spec = import.specifier.as_str();
            if spec.ends_with(".*") || spec.rsplit('.').next() != Some(name) {
                continue;
            }
            if import.status == "external" {
                return Ok(Some(Item::External));
            }
            let found = top_level(self, &import.files)?;
            let nested: Vec<Definition> = types
                .iter()
                .filter(|t| import.files.contains(&t.file_id))
                .cloned()
                .collect();
            return Ok(one(if found.is_empty() { nested } else { found }));
        }
        // The caller's package.
        let dir = self
            .paths
            .get(&file)
            .map(|p| crate::index::relpath::parent_dir(p).to_string())
            .unwrap_or_default();
        let package = self.modules.java_package(&dir);
        let found = top_level(self, &package)?;
        if !found.is_empty() {
            return Ok(one(found));
        }
        // On-demand imports.
        let mut found = Vec::new();
        for import in imports.iter() {
            if import.specifier.ends_with(".*") {
                found.extend(top_level(self, &import.files)?);
            }
        }
        found.dedup_by_key(|d| d.id);
        if !found.is_empty() {
            return Ok(one(found));
        }
        Ok(Some(Item::External))
    }

    /// A method `name` bound by a static import of `file`.
    fn java_static_import(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        name: &str,
    ) -> Result<Option<Item>, IndexError> {
        let imports = self.symbols.imports_of(tx, file)?;
        for import in imports.iter() {
            let Some((class_path, member)) = import.specifier.rsplit_once('.') else {
                continue;
            };
            if member != name && member != "*" {
                continue;
            }
            let class_name = class_path.rsplit('.').next().unwrap_or(class_path);
            let defs = self.symbols.named(tx, class_name)?;
            let class = defs
                .iter()
                .find(|d| d.kind == DefKind::Type && import.files.contains(&d.file_id))
                .cloned();
            if let Some(class) = class {
                if let Some(item) = self.java_member(tx, &class, name, 0)? {
                    if !matches!(item, Item::External) {
                        return Ok(Some(item));
                    }
                }
            } else if member == name && import.status == "external" {
                return Ok(Some(Item::External));
            }
        }
        Ok(None)
    }

    /// Member `name` of `class` through its hierarchy: the methods the class declares
    /// (several: overloads, `Ambiguous`), else those of its bases in order; `External`
    /// when not found and a base is outside the workspace.
    ///
    /// A method found while the hierarchy also declares methods of that name with
    /// another number of parameters is `Ambiguous`: the overload the arguments select is
    /// not known (`super.addAll(c)` in a class whose parent declares `addAll()` and whose
    /// grandparent `addAll(Collection)`).
    fn java_member(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
        name: &str,
        depth: usize,
    ) -> Result<Option<Item>, IndexError> {
        let found = self.java_member_lookup(tx, class, name, depth)?;
        if let Some(Item::Def(d)) = &found {
            let arity = self.java_arity(tx, d.id)?;
            let mut seen = vec![class.id];
            let mut queue = vec![class.id];
            let mut overloads = 0;
            while let Some(c) = queue.pop() {
                if seen.len() > 64 {
                    break;
                }
                let defs = self.symbols.named(tx, name)?;
                for m in defs.iter() {
                    if m.kind == DefKind::Method && m.parent_id == Some(c) {
                        overloads += 1;
                        if self.java_arity(tx, m.id)? != arity {
                            return Ok(Some(Item::Ambiguous(overloads)));
                        }
                    }
                }
                for base in self.symbols.bases_of(tx, c)?.iter() {
                    if let Some(b) = base.node {
                        if !seen.contains(&b) {
                            seen.push(b);
                            queue.push(b);
                        }
                    }
                }
            }
        }
        Ok(found)
    }

    /// The number of parameters a method's signature declares (`None`: unreadable).
    fn java_arity(&mut self, tx: &IndexTx<'_>, id: i64) -> Result<Option<usize>, IndexError> {
        Ok(self
            .symbols
            .signature(tx, id)?
            .and_then(|s| parameter_count(&s)))
    }

    fn java_member_lookup(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
        name: &str,
        depth: usize,
    ) -> Result<Option<Item>, IndexError> {
        self.memo_member(
            tx,
            class,
            name,
            depth,
            16,
            Resolver::java_member_lookup_uncached,
        )
    }

    fn java_member_lookup_uncached(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
        name: &str,
        depth: usize,
    ) -> Result<Option<Item>, IndexError> {
        let defs = self.symbols.named(tx, name)?;
        let own: Vec<Definition> = defs
            .iter()
            .filter(|d| d.kind == DefKind::Method && d.parent_id == Some(class.id))
            .cloned()
            .collect();
        let mut result = one(own);
        if result.is_none() {
            result =
                self.member_in_bases(tx, class.id, name, depth, Resolver::java_member_lookup)?;
        }
        Ok(result)
    }
}

/// A type as written (`a.b.C`, `List<C>`, `C[]`) split into its qualifier and name,
/// type arguments and array brackets dropped.
fn split_type(ty: &str) -> (Option<&str>, &str) {
    let ty = ty.split('<').next().unwrap_or(ty);
    let ty = ty.split('[').next().unwrap_or(ty).trim();
    match ty.rsplit_once('.') {
        Some((q, n)) => (Some(q), n),
        None => (None, ty),
    }
}

/// The number of parameters in the first parenthesized list of a signature
/// (`void f(Map<K, V> m, int n)` → 2); `None` when there is none.
fn parameter_count(signature: &str) -> Option<usize> {
    let open = signature.find('(')?;
    let mut depth = 0usize;
    let mut count = 0;
    let mut any = false;
    for c in signature[open + 1..].chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            '>' | ']' => depth = depth.saturating_sub(1),
            ')' if depth == 0 => return Some(if any { count + 1 } else { 0 }),
            ')' => depth -= 1,
            ',' if depth == 0 => count += 1,
            c if !c.is_whitespace() => any = true,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::parameter_count;

    #[test]
    fn parameters_are_counted_at_the_top_level() {
        assert_eq!(parameter_count("void f()"), Some(0));
        assert_eq!(parameter_count("void f(int a)"), Some(1));
        assert_eq!(
            parameter_count("<K, V> void f(Map<K, V> m, int n)"),
            Some(2)
        );
        assert_eq!(parameter_count("abstract void f"), None);
    }
}
