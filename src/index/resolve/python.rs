//! Python: calls and bases resolved by Python's own name rules.
//!
//! - A bare name is looked up as Python does (LEGB): the enclosing function scopes,
//!   the module (definitions, then names bound by imports, then star imports), then
//!   the builtins. Class bodies are not scopes for the functions inside them. A name
//!   the extractor saw bound to a local variable or parameter is not resolved (its
//!   value is not known from names), nor is one bound by a module-level assignment.
//!   Among several definitions of one name in one scope the last one wins, as it does
//!   when the module runs.
//! - `self.m()` / `cls.m()`: the caller's class and its bases in method resolution
//!   order (C3 linearization, as `type.mro()` computes it), bases in other files
//!   included. `super().m()` / `super(C, self).m()`: the classes after the caller's
//!   (or `C`) in that order.
//! - `Foo(...)` calls the class `Foo` (an edge to the class).
//! - `a.b.f()`: `a` looked up as above, then attributes: of a module its definitions,
//!   the names it imports (re-exports, `from .x import f` in an `__init__`), its star
//!   imports and its submodules; of a class its members through the method resolution
//!   order.
//! - `x.m()` where the extractor typed `x` (an annotation, `x = Foo()`, `x = make()`
//!   with `make` annotated `-> Foo` or, without an annotation, written
//!   `return Foo(..)`, `return cls(..)` or `return self` in every `return`;
//!   `self.x = Foo()` in the class): the members of that class. An attribute of a
//!   method (`self.query_params.to_text()`) is read from what the method returns: it
//!   is a property.
//! - Outside the workspace (a library import, a builtin, a literal receiver
//!   `",".join`, a receiver typed by a builtin class): `external`. A member not found
//!   in a class whose bases reach outside the workspace: `external` (it is inherited
//!   from there). Anything else that names no definition: `unresolved`; name matches
//!   are never edges.
//!
//! Every lookup in a file is recorded in `Resolver::deps` as a key of the file and the
//! name looked up (`interface::dep_key`), found or not: a module's attribute or star
//! import (`*`), a class's member (one key per class of the method resolution order),
//! the bases of each class of that order (the class's name), the return annotation of
//! a called function (its name), and the names that annotation names in its own
//! module. The cached results of attribute and resolution-order lookups keep the keys
//! they were computed from, so a reference that hits the cache records them too. The
//! pipeline stores the keys of other files (`ref_dep_sets`) and, when a file's interface
//! changes, resolves again only the references that looked up a changed name. Not
//! covered (the conservative path or this rule's limits): the outcome of a lookup
//! inside a cycle of re-exports depends on which reference reached it first, in a
//! build from nothing as in an incremental run.

use std::collections::HashSet;
use std::sync::Arc;

use super::rules::Rule;
use super::{Outcome, Resolver};
use crate::index::import_resolution::Target;
use crate::index::interface::dep_key;
use crate::index::IndexError;
use crate::lang::builtins::PYTHON as BUILTINS;
use crate::lang::{annotations, CallRef, ImportBinding};
use crate::store::files::{DefKind, Definition, FileImport, IndexTx, Ref};

/// Deepest chain of re-exports and attributes followed.
const MAX_DEPTH: usize = 16;

/// What a Python name or dotted path denotes.
#[derive(Debug, Clone)]
pub(super) enum Value {
    /// A module of the workspace (its file).
    Module(i64),
    /// A function, method or class of the workspace.
    Def(Definition),
    /// An object of a workspace class.
    Instance(Definition),
    /// Something outside the workspace: a library, a builtin.
    External,
    /// Bound, but to a value names do not tell (a variable, a module-level
    /// assignment), or several definitions and none preferred.
    Unknown,
}

/// A class's method resolution order.
#[derive(Debug)]
pub(super) struct Mro {
    /// The class first, then its workspace ancestors.
    classes: Vec<Definition>,
    /// Some ancestor is outside the workspace (or did not resolve), so a member not
    /// found here may be inherited from there.
    open: bool,
}

/// True for a literal receiver: a string (with prefixes), a number, a list, dict or set
/// display or comprehension.
fn is_literal(q: &str) -> bool {
    let t = q.trim_start_matches(['r', 'b', 'f', 'u', 'R', 'B', 'F', 'U']);
    let first = t.chars().next();
    let prefixed_string = t.len() < q.len() && matches!(first, Some('"' | '\''));
    prefixed_string
        || matches!(q.chars().next(), Some('"' | '\'' | '[' | '{'))
        || q.starts_with(|c: char| c.is_ascii_digit())
}

/// The segments of a dotted name of identifiers (`a.b.c`), or `None`.
fn dotted(q: &str) -> Option<Vec<&str>> {
    let segs: Vec<&str> = q.split('.').map(str::trim).collect();
    let ok = segs.iter().all(|s| {
        !s.is_empty()
            && !s.starts_with(|c: char| c.is_ascii_digit())
            && s.chars().all(|c| c == '_' || c.is_alphanumeric())
    });
    ok.then_some(segs)
}

fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

impl Resolver {
    /// Resolves a Python call reference (module docs).
    pub(super) fn python_call(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let local = r.flags & CallRef::LOCAL != 0;
        let Some(q) = r.qualifier.as_deref() else {
            if local {
                // `cls(...)` in a classmethod builds the caller's class.
                if r.name == "cls" {
                    if let Some(class) = self.enclosing_class(tx, r.src_id)? {
                        return Ok(Outcome::edge(class.id, Rule::SelfRef));
                    }
                }
                return Ok(Outcome::status("unresolved", 0));
            }
            let found = self.py_name(tx, r.file_id, Some(r.src_id), &r.name)?;
            return Ok(match found {
                Some((value, rule)) => callee(value, rule),
                None if BUILTINS.contains(&r.name.as_str()) => Outcome::status("external", 0),
                None => Outcome::status("unresolved", 0),
            });
        };
        let q = q.trim();
        if is_literal(q) {
            return Ok(Outcome::status("external", 0));
        }
        if q == "self" || q == "cls" {
            let Some(class) = self.enclosing_class(tx, r.src_id)? else {
                return Ok(Outcome::status("unresolved", 0));
            };
            return self.py_member_call(tx, &class, &r.name, false, Rule::SelfRef);
        }
        if let Some(args) = q.strip_prefix("super(").and_then(|a| a.strip_suffix(')')) {
            let class = match args
                .split(',')
                .next()
                .map(str::trim)
                .filter(|a| !a.is_empty())
            {
                None => self.enclosing_class(tx, r.src_id)?,
                Some(named) => match self.py_name(tx, r.file_id, Some(r.src_id), named)? {
                    Some((Value::Def(d), _)) if d.kind == DefKind::Type => Some(d),
                    _ => None,
                },
            };
            let Some(class) = class else {
                return Ok(Outcome::status("unresolved", 0));
            };
            return self.py_member_call(tx, &class, &r.name, true, Rule::Super);
        }
        if let Some(hint) = r.receiver_type.as_deref() {
            let receiver = self.py_type(tx, r.file_id, r.src_id, hint)?;
            let (value, _) = self.py_attr(tx, receiver, &r.name, 0)?;
            return Ok(callee(value, Rule::Typed));
        }
        if local {
            // `self.prop.m()`: the attribute path from the caller's class, when it
            // ends at a definition (a property's value, a nested class).
            if let Some(segs) = dotted(q).filter(|s| matches!(s[0], "self" | "cls")) {
                if let Some((value @ Value::Def(_), rule)) = self.py_called(tx, r, &segs)? {
                    return Ok(callee(value, rule));
                }
            }
            return Ok(Outcome::status("unresolved", 0));
        }
        // `make().m()`: the class of what `make` returns.
        if let Some(inner) = q.strip_suffix(')') {
            let receiver = match inner.find('(') {
                Some(open) => {
                    let hint = format!("{}()", &inner[..open]);
                    self.py_type(tx, r.file_id, r.src_id, &hint)?
                }
                None => Value::Unknown,
            };
            let (value, _) = self.py_attr(tx, receiver, &r.name, 0)?;
            return Ok(callee(value, Rule::Typed));
        }
        let Some(segs) = dotted(q) else {
            return Ok(Outcome::status("unresolved", 0));
        };
        let Some((value, rule)) = self.py_called(tx, r, &segs)? else {
            let builtin = BUILTINS.contains(&segs[0]);
            return Ok(Outcome::status(
                if builtin { "external" } else { "unresolved" },
                0,
            ));
        };
        Ok(callee(value, rule))
    }

    /// What call `r` names through its receiver path `segs`: the path looked up from
    /// the caller, then the called name as its attribute; `None` when the path's first
    /// name is bound nowhere.
    fn py_called(
        &mut self,
        tx: &IndexTx<'_>,
        r: &Ref,
        segs: &[&str],
    ) -> Result<Option<(Value, Rule)>, IndexError> {
        let Some((receiver, _)) = self.py_path(tx, r.file_id, r.src_id, segs)? else {
            return Ok(None);
        };
        Ok(Some(self.py_attr(tx, receiver, &r.name, 0)?))
    }

    /// Resolves a Python base class reference: its dotted name, looked up from the
    /// scope around the class.
    pub(super) fn python_base(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let scope = self.parent_of(tx, r.src_id)?;
        let mut path: Vec<&str> = match r.qualifier.as_deref() {
            Some(q) => match dotted(q) {
                Some(segs) => segs,
                None => return Ok(Outcome::status("unresolved", 0)),
            },
            None => Vec::new(),
        };
        path.push(&r.name);
        let found = match path.split_first() {
            Some((first, rest)) => match self.py_name(tx, r.file_id, scope, first)? {
                Some((mut value, mut rule)) => {
                    for seg in rest {
                        (value, rule) = self.py_attr(tx, value, seg, 0)?;
                    }
                    Some((value, rule))
                }
                None => None,
            },
            None => None,
        };
        Ok(match found {
            Some((Value::Def(d), rule)) if d.kind == DefKind::Type => Outcome::edge(d.id, rule),
            Some((Value::External, _)) => Outcome::status("external", 0),
            None if BUILTINS.contains(&path[0]) => Outcome::status("external", 0),
            _ => Outcome::status("unresolved", 0),
        })
    }

    /// A call of member `name` of `class` (or, with `after`, of the classes after it in
    /// its method resolution order).
    fn py_member_call(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
        name: &str,
        after: bool,
        rule: Rule,
    ) -> Result<Outcome, IndexError> {
        let (member, open) = self.mro_member(tx, class, name, after)?;
        Ok(match member {
            Some(member) => callee(Value::Def(member), rule),
            None if open || is_dunder(name) => Outcome::status("external", 0),
            None => Outcome::status("unresolved", 0),
        })
    }

    /// Member `name` of the first class that defines it in `class`'s method resolution
    /// order (with `after`, among the classes after `class`), and whether that order
    /// reaches outside the workspace (then a member not found may be inherited from
    /// there). Shared by the Python and JavaScript rules.
    pub(super) fn mro_member(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
        name: &str,
        after: bool,
    ) -> Result<(Option<Definition>, bool), IndexError> {
        let mro = self.py_mro(tx, class)?;
        let classes = if after {
            &mro.classes[1..]
        } else {
            &mro.classes[..]
        };
        for c in classes {
            if let Some(member) = self.py_own_member(tx, c, name)? {
                return Ok((Some(member), mro.open));
            }
        }
        Ok((None, mro.open))
    }

    /// The definition named `name` directly in `class`'s body (the last one).
    pub(super) fn py_own_member(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
        name: &str,
    ) -> Result<Option<Definition>, IndexError> {
        self.deps.push(dep_key(class.file_id, name));
        let defs = self.symbols.named(tx, name)?;
        Ok(defs
            .iter()
            .rfind(|d| d.parent_id == Some(class.id))
            .cloned())
    }

    /// `class`'s method resolution order (C3; a depth-first order when the bases admit
    /// none).
    pub(super) fn py_mro(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
    ) -> Result<Arc<Mro>, IndexError> {
        if let Some(known) = self.mros.get(&class.id) {
            let known = Arc::clone(known);
            self.extend_deps_of_mro(class);
            return Ok(known);
        }
        let start = self.deps.len();
        let mut visiting = HashSet::new();
        let mro = Arc::new(self.py_mro_of(tx, class, &mut visiting, 0)?);
        self.mros.insert(class.id, Arc::clone(&mro));
        let deps = distinct(&self.deps[start..]);
        self.mro_deps.insert(class.id, deps);
        Ok(mro)
    }

    fn py_mro_of(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
        visiting: &mut HashSet<i64>,
        depth: usize,
    ) -> Result<Mro, IndexError> {
        // The bases of `class` are read: entries of its name in its file.
        self.deps.push(dep_key(class.file_id, &class.name));
        if depth > MAX_DEPTH || !visiting.insert(class.id) {
            return Ok(Mro {
                classes: vec![class.clone()],
                open: true,
            });
        }
        let mut open = false;
        let mut parents: Vec<Vec<Definition>> = Vec::new();
        let mut direct: Vec<Definition> = Vec::new();
        for base in self.symbols.bases_of(tx, class.id)?.iter() {
            match base.node {
                Some(id) => match self.symbols.def(tx, id)? {
                    Some(d) => {
                        let sub = match self.mros.get(&d.id) {
                            Some(known) => {
                                let sub = Mro {
                                    classes: known.classes.clone(),
                                    open: known.open,
                                };
                                self.extend_deps_of_mro(&d);
                                sub
                            }
                            None => self.py_mro_of(tx, &d, visiting, depth + 1)?,
                        };
                        open |= sub.open;
                        parents.push(sub.classes);
                        direct.push(d);
                    }
                    None => open = true,
                },
                // `object` is the implicit root: it adds nothing but dunders.
                None if base.name == "object" => {}
                None => open = true,
            }
        }
        visiting.remove(&class.id);
        parents.push(direct);
        let mut classes = vec![class.clone()];
        match c3_merge(parents.clone()) {
            Some(merged) => classes.extend(merged),
            None => {
                let mut seen: HashSet<i64> = HashSet::from([class.id]);
                for d in parents.into_iter().flatten() {
                    if seen.insert(d.id) {
                        classes.push(d);
                    }
                }
            }
        }
        Ok(Mro { classes, open })
    }

    /// The parent of a node (`None` for a file node).
    pub(super) fn parent_of(
        &mut self,
        tx: &IndexTx<'_>,
        node: i64,
    ) -> Result<Option<i64>, IndexError> {
        Ok(self.symbols.def(tx, node)?.and_then(|d| d.parent_id))
    }

    /// A bare name as seen from node `from` (a function, a class body, or the file
    /// node; `None` means the module scope of `file`): the scopes from `from` outwards,
    /// then the module's imports and star imports. `None` when nothing binds it.
    pub(super) fn py_name(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        from: Option<i64>,
        name: &str,
    ) -> Result<Option<(Value, Rule)>, IndexError> {
        self.deps.push(dep_key(file, name));
        let defs = self.symbols.named(tx, name)?;
        let file_node = self.file_node(tx, file)?;
        let mut scope = from.or(file_node);
        let mut first = true;
        for _ in 0..64 {
            let Some(s) = scope else { break };
            let here = self.symbols.def(tx, s)?;
            let class_body = here.as_ref().is_some_and(|d| d.kind == DefKind::Type);
            if first || !class_body {
                if let Some(d) = defs.iter().rfind(|d| d.parent_id == Some(s)) {
                    return Ok(Some((Value::Def(d.clone()), Rule::Scope)));
                }
            }
            first = false;
            scope = match here {
                Some(d) => d.parent_id,
                None => None,
            };
        }
        // Module level: names bound by imports, then star imports, then aliases.
        if let Some(value) = self.py_imported(tx, file, name, 0)? {
            return Ok(Some((value, Rule::Import)));
        }
        self.py_alias(tx, file, name, 0)
    }

    /// What a module-level alias of `file` named `name` (`OMD = OrderedMultiDict`,
    /// `error = os.error`: an `export` reference, see `lang::extract::python`) stands
    /// for: its path looked up from the module's scope, with the rule of the path's
    /// last step. `None` when no alias has that name, or when its path names nothing
    /// (or comes back to an alias being followed).
    fn py_alias(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        name: &str,
        depth: usize,
    ) -> Result<Option<(Value, Rule)>, IndexError> {
        let exports = self.symbols.exports_of(tx, file)?;
        // The last one written is the one bound once the module has run.
        let Some((_, path)) = exports.iter().rfind(|(exported, _)| exported == name) else {
            return Ok(None);
        };
        let here = (file, Box::<str>::from(name));
        if depth > MAX_DEPTH || self.aliases_followed.contains(&here) {
            return Ok(None);
        }
        let Some(file_node) = self.file_node(tx, file)? else {
            return Ok(None);
        };
        let path = path.clone();
        let segs: Vec<&str> = path.split('.').collect();
        self.aliases_followed.push(here);
        let found = self.py_path(tx, file, file_node, &segs);
        self.aliases_followed.pop();
        found
    }

    /// What the imports of `file` bind `name` to, star imports last; `None` when none
    /// binds it.
    fn py_imported(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        name: &str,
        depth: usize,
    ) -> Result<Option<Value>, IndexError> {
        self.deps.push(dep_key(file, name));
        let imports = self.symbols.imports_of(tx, file)?;
        let mut found: Vec<Value> = Vec::new();
        for import in imports.iter() {
            for binding in import.bindings.iter() {
                if binding.local == name && binding.local != "*" {
                    found.push(self.py_binding(tx, import, binding, depth)?);
                }
            }
        }
        if found.is_empty() && !name.starts_with('_') {
            // Whether the file has star imports at all is an entry of `*`.
            self.deps.push(dep_key(file, "*"));
            for import in imports.iter() {
                let star = import.bindings.iter().any(|b| b.local == "*");
                if star {
                    if let Value::Module(m) = self.py_module_of_import(tx, import)? {
                        if let Some(v) = self.py_member(tx, m, name, depth + 1)? {
                            found.push(v);
                            break;
                        }
                    }
                }
            }
        }
        Ok(combine(found))
    }

    /// The module a `from X import ...` (or `import X`) names, as a value.
    fn py_module_of_import(
        &mut self,
        tx: &IndexTx<'_>,
        import: &FileImport,
    ) -> Result<Value, IndexError> {
        let Some(path) = self.paths.get(&import.file_id) else {
            return Ok(Value::Unknown);
        };
        Ok(
            match self
                .modules
                .python_module(import.file_id, path, &import.specifier)
            {
                Target::Files(files) => files.first().map_or(Value::Unknown, |&f| Value::Module(f)),
                Target::External => Value::External,
                Target::Unresolved => {
                    let _ = tx;
                    Value::Unknown
                }
            },
        )
    }

    /// What one binding of an import denotes.
    fn py_binding(
        &mut self,
        tx: &IndexTx<'_>,
        import: &FileImport,
        binding: &ImportBinding,
        depth: usize,
    ) -> Result<Value, IndexError> {
        let Some(path) = self.paths.get(&import.file_id).cloned() else {
            return Ok(Value::Unknown);
        };
        if import.qualifier.is_none() {
            // `import a.b` binds `a`; `import a.b as x` binds `x` to `a.b`.
            return Ok(
                match self
                    .modules
                    .python_module(import.file_id, &path, &binding.imported)
                {
                    Target::Files(files) => {
                        files.first().map_or(Value::Unknown, |&f| Value::Module(f))
                    }
                    Target::External => Value::External,
                    Target::Unresolved => Value::Unknown,
                },
            );
        }
        // `from M import a`: the submodule `M.a` (M may be a namespace package with
        // no file of its own), else M's attribute `a`.
        let sep = if import.specifier.ends_with('.') {
            ""
        } else {
            "."
        };
        let sub = format!("{}{sep}{}", import.specifier, binding.imported);
        if let Target::Files(files) = self.modules.python_module(import.file_id, &path, &sub) {
            if let Some(&f) = files.first() {
                return Ok(Value::Module(f));
            }
        }
        match self.py_module_of_import(tx, import)? {
            Value::Module(m) => Ok(self
                .py_member(tx, m, &binding.imported, depth + 1)?
                .unwrap_or(Value::Unknown)),
            other => Ok(other),
        }
    }

    /// Attribute `name` of module `m`: its definition, what its imports bind, its star
    /// imports, its submodule; `None` when none has it. Cached per (module, name).
    fn py_member(
        &mut self,
        tx: &IndexTx<'_>,
        m: i64,
        name: &str,
        depth: usize,
    ) -> Result<Option<Value>, IndexError> {
        let key = (m, Box::<str>::from(name));
        if let Some(known) = self.py_members.get(&key) {
            let known = known.clone();
            // A lookup still in progress (a cycle of re-exports) has no keys yet: its
            // own stands for them.
            match self.member_deps.get(&key) {
                Some(deps) => self.deps.extend_from_slice(deps),
                None => self.deps.push(dep_key(m, name)),
            }
            return Ok(known);
        }
        self.deps.push(dep_key(m, name));
        if depth > MAX_DEPTH {
            return Ok(Some(Value::Unknown));
        }
        let start = self.deps.len() - 1;
        // A cycle of re-exports ends here.
        self.py_members.insert(key.clone(), Some(Value::Unknown));
        let file_node = self.file_node(tx, m)?;
        let defs = self.symbols.named(tx, name)?;
        let own = defs
            .iter()
            .rfind(|d| d.parent_id.is_some() && d.parent_id == file_node)
            .cloned();
        let found = match own {
            Some(d) => Some(Value::Def(d)),
            None => match self.py_imported(tx, m, name, depth)? {
                Some(v) => Some(v),
                None => match self.py_alias(tx, m, name, depth + 1)? {
                    Some((v, _)) => Some(v),
                    None => {
                        let path = self.paths.get(&m).cloned().unwrap_or_default();
                        self.modules
                            .python_submodule(m, &path, name)
                            .map(Value::Module)
                    }
                },
            },
        };
        let deps = distinct(&self.deps[start..]);
        self.member_deps.insert(key.clone(), deps);
        self.py_members.insert(key, found.clone());
        Ok(found)
    }

    /// A dotted path from node `src` of `file`: its first name looked up from the
    /// scope (`self` and `cls` being the caller's class), then attributes. `None` when
    /// the first name is bound nowhere. The rule is the one of the last step.
    fn py_path(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        src: i64,
        segs: &[&str],
    ) -> Result<Option<(Value, Rule)>, IndexError> {
        let Some((first, rest)) = segs.split_first() else {
            return Ok(None);
        };
        let start = match *first {
            "self" => self
                .enclosing_class(tx, src)?
                .map(|c| (Value::Instance(c), Rule::SelfRef)),
            "cls" => self
                .enclosing_class(tx, src)?
                .map(|c| (Value::Def(c), Rule::SelfRef)),
            _ => self.py_name(tx, file, Some(src), first)?,
        };
        let Some((mut value, mut rule)) = start else {
            return Ok(None);
        };
        for seg in rest {
            (value, rule) = self.py_attr(tx, value, seg, 0)?;
        }
        Ok(Some((value, rule)))
    }

    /// Attribute `name` of a value, with the rule that found it.
    fn py_attr(
        &mut self,
        tx: &IndexTx<'_>,
        value: Value,
        name: &str,
        depth: usize,
    ) -> Result<(Value, Rule), IndexError> {
        Ok(match value {
            Value::Module(m) => (
                self.py_member(tx, m, name, depth)?
                    .unwrap_or(Value::Unknown),
                Rule::Module,
            ),
            Value::Def(d) if d.kind == DefKind::Type => {
                (self.py_class_attr(tx, &d, name)?, Rule::Class)
            }
            Value::Instance(d) => (self.py_class_attr(tx, &d, name)?, Rule::Typed),
            // An attribute of a method (`self.query_params.to_text`): a plain function
            // has none but dunders, so the method is a property (or another
            // descriptor) read through an instance; its value is what it returns.
            Value::Def(d) if d.kind == DefKind::Method && !is_dunder(name) => {
                let value = self.py_returns(tx, &d, None)?;
                match value {
                    Value::Instance(c) => (self.py_class_attr(tx, &c, name)?, Rule::Typed),
                    Value::External => (Value::External, Rule::Module),
                    _ => (Value::Unknown, Rule::Module),
                }
            }
            Value::External => (Value::External, Rule::Module),
            _ => (Value::Unknown, Rule::Module),
        })
    }

    /// Member `name` of a class through its method resolution order.
    pub(super) fn py_class_attr(
        &mut self,
        tx: &IndexTx<'_>,
        class: &Definition,
        name: &str,
    ) -> Result<Value, IndexError> {
        let mro = self.py_mro(tx, class)?;
        for c in &mro.classes {
            if let Some(member) = self.py_own_member(tx, c, name)? {
                return Ok(Value::Def(member));
            }
        }
        Ok(if mro.open || is_dunder(name) {
            Value::External
        } else {
            Value::Unknown
        })
    }

    /// The value a receiver type hint stands for: an annotation (`Foo`, `mod.Foo`,
    /// `Self`) or a call result (`Foo()`, `make()`, `self.build()`).
    fn py_type(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        src: i64,
        hint: &str,
    ) -> Result<Value, IndexError> {
        if let Some(callee_text) = hint.strip_suffix("()") {
            let Some(segs) = dotted(callee_text) else {
                return Ok(Value::Unknown);
            };
            let builtin = |segs: &[&str]| {
                if BUILTINS.contains(&segs[0]) {
                    Value::External
                } else {
                    Value::Unknown
                }
            };
            // The receiver of a method call (`C.from_text()`, `self.copy()`): a
            // `return cls(..)` or `return self` gives its class.
            let (receiver, value) = match segs.split_last() {
                Some((last, prefix)) if !prefix.is_empty() => {
                    let Some((receiver, _)) = self.py_path(tx, file, src, prefix)? else {
                        return Ok(builtin(&segs));
                    };
                    let (value, _) = self.py_attr(tx, receiver.clone(), last, 0)?;
                    (Some(receiver), value)
                }
                _ => match self.py_path(tx, file, src, &segs)? {
                    Some((value, _)) => (None, value),
                    None => return Ok(builtin(&segs)),
                },
            };
            return match value {
                Value::Def(d) if d.kind == DefKind::Type => Ok(Value::Instance(d)),
                Value::Def(d) if d.kind.is_callable() => self.py_returns(tx, &d, receiver),
                Value::External => Ok(Value::External),
                _ => Ok(Value::Unknown),
            };
        }
        if hint == "Self" {
            return Ok(self
                .enclosing_class(tx, src)?
                .map_or(Value::Unknown, Value::Instance));
        }
        let Some(segs) = dotted(hint) else {
            return Ok(Value::Unknown);
        };
        Ok(match self.py_path(tx, file, src, &segs)? {
            Some((Value::Def(d), _)) if d.kind == DefKind::Type => Value::Instance(d),
            Some((Value::External, _)) => Value::External,
            None if BUILTINS.contains(&segs[0]) => Value::External,
            _ => Value::Unknown,
        })
    }

    /// What calling function `f` returns: by its return annotation (read in `f`'s own
    /// module; `Self` is `f`'s class); without one, by what its `return` statements
    /// give (`nodes.returns`, read in `f`'s scope): `cls()`, `self.__class__()` and
    /// `self` are an instance of `receiver`'s class when the call had one (`C.make()`,
    /// `obj.copy()`), else of `f`'s class. An `async def` returns a coroutine: nothing
    /// known.
    fn py_returns(
        &mut self,
        tx: &IndexTx<'_>,
        f: &Definition,
        receiver: Option<Value>,
    ) -> Result<Value, IndexError> {
        self.deps.push(dep_key(f.file_id, &f.name));
        let signature = self.symbols.signature(tx, f.id)?;
        let annotated = signature.as_deref().and_then(annotations::python_return);
        let Some(ty) = annotated else {
            if signature.is_some_and(|s| s.trim_start().starts_with("async")) {
                return Ok(Value::Unknown);
            }
            return self.py_inferred_return(tx, f, receiver);
        };
        if ty == "Self" {
            return Ok(self
                .enclosing_class(tx, f.id)?
                .map_or(Value::Unknown, Value::Instance));
        }
        let Some(segs) = dotted(&ty) else {
            return Ok(Value::Unknown);
        };
        // The annotation is read where it is written: in the function's scope.
        Ok(match self.py_path(tx, f.file_id, f.id, &segs)? {
            Some((Value::Def(d), _)) if d.kind == DefKind::Type => Value::Instance(d),
            Some((Value::External, _)) => Value::External,
            None if BUILTINS.contains(&segs[0]) => Value::External,
            _ => Value::Unknown,
        })
    }

    /// [`Resolver::py_returns`] without an annotation: `f`'s recorded return value.
    fn py_inferred_return(
        &mut self,
        tx: &IndexTx<'_>,
        f: &Definition,
        receiver: Option<Value>,
    ) -> Result<Value, IndexError> {
        let Some(hint) = self.symbols.returns(tx, f.id)? else {
            return Ok(Value::Unknown);
        };
        if self.returns_followed.contains(&f.id) || self.returns_followed.len() > MAX_DEPTH {
            return Ok(Value::Unknown);
        }
        if matches!(&*hint, "self" | "cls()" | "self.__class__()") {
            match receiver {
                Some(Value::Instance(c)) => return Ok(Value::Instance(c)),
                // `C.m(obj)` returns its argument: not known.
                Some(Value::Def(_)) if &*hint == "self" => return Ok(Value::Unknown),
                Some(Value::Def(c)) if c.kind == DefKind::Type => return Ok(Value::Instance(c)),
                _ => {}
            }
            return Ok(self
                .enclosing_class(tx, f.id)?
                .map_or(Value::Unknown, Value::Instance));
        }
        self.returns_followed.push(f.id);
        let found = self.py_type(tx, f.file_id, f.id, &hint);
        self.returns_followed.pop();
        found
    }
}

impl Resolver {
    /// Adds the keys the cached method resolution order of `class` was built from.
    fn extend_deps_of_mro(&mut self, class: &Definition) {
        match self.mro_deps.get(&class.id) {
            Some(deps) => self.deps.extend_from_slice(deps),
            None => self.deps.push(dep_key(class.file_id, &class.name)),
        }
    }
}

/// `keys` sorted, without repeats.
fn distinct(keys: &[i64]) -> Arc<[i64]> {
    let mut v = keys.to_vec();
    v.sort_unstable();
    v.dedup();
    Arc::from(v)
}

/// The outcome of calling a value: an edge to a workspace function, method or class,
/// `external` for something outside, `unresolved` for anything else.
pub(super) fn callee(value: Value, rule: Rule) -> Outcome {
    match value {
        Value::Def(d) if d.kind.is_callable() || d.kind == DefKind::Type => {
            Outcome::edge(d.id, rule)
        }
        Value::External => Outcome::status("external", 0),
        _ => Outcome::status("unresolved", 0),
    }
}

/// Several bindings of one name (conditional imports): one workspace definition or
/// module when they agree (outside ones aside), `External` when all are outside,
/// `Unknown` when they disagree.
pub(super) fn combine(found: Vec<Value>) -> Option<Value> {
    let mut inside: Vec<Value> = found
        .iter()
        .filter(|v| !matches!(v, Value::External))
        .cloned()
        .collect();
    if found.is_empty() {
        return None;
    }
    if inside.is_empty() {
        return Some(Value::External);
    }
    let key = |v: &Value| match v {
        Value::Module(m) => Some((0, *m)),
        Value::Def(d) => Some((1, d.id)),
        Value::Instance(d) => Some((2, d.id)),
        _ => None,
    };
    let first = key(&inside[0]);
    if first.is_some() && inside.iter().all(|v| key(v) == first) {
        return inside.pop();
    }
    Some(Value::Unknown)
}

/// C3 merge of the linearizations of the bases and the list of bases
/// (`L[C] = C + merge(L[B1], .., L[Bn], [B1, .., Bn])`); `None` when no consistent
/// order exists.
fn c3_merge(mut seqs: Vec<Vec<Definition>>) -> Option<Vec<Definition>> {
    let mut out: Vec<Definition> = Vec::new();
    loop {
        seqs.retain(|s| !s.is_empty());
        if seqs.is_empty() {
            return Some(out);
        }
        let head = seqs.iter().map(|s| &s[0]).find(|candidate| {
            !seqs
                .iter()
                .any(|s| s[1..].iter().any(|d| d.id == candidate.id))
        })?;
        let head = head.clone();
        for s in &mut seqs {
            if s[0].id == head.id {
                s.remove(0);
            }
        }
        out.push(head);
        if out.len() > 1024 {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(id: i64) -> Definition {
        Definition {
            id,
            file_id: 1,
            parent_id: None,
            kind: DefKind::Type,
            name: Arc::from(format!("C{id}")),
            qualified_name: Arc::from(format!("C{id}")),
        }
    }

    #[test]
    fn c3_merges_like_python() {
        // class O; class A(O); class B(O); class C(A, B): C A B O (Python's mro()).
        let (o, a, b) = (class(1), class(2), class(3));
        let la = vec![a.clone(), o.clone()];
        let lb = vec![b.clone(), o.clone()];
        let merged = c3_merge(vec![la, lb, vec![a.clone(), b.clone()]]).unwrap();
        let ids: Vec<i64> = merged.iter().map(|d| d.id).collect();
        assert_eq!(ids, vec![2, 3, 1]);
        // Inconsistent: class X(A, B), class Y(B, A), class Z(X, Y) has no order.
        let (x, y) = (class(4), class(5));
        let lx = vec![x.clone(), a.clone(), b.clone()];
        let ly = vec![y.clone(), b.clone(), a.clone()];
        assert!(c3_merge(vec![lx, ly, vec![x, y]]).is_none());
    }

    #[test]
    fn literals_and_dotted_names() {
        assert!(is_literal("\",\""));
        assert!(is_literal("b''"));
        assert!(is_literal("f\"{x}\""));
        assert!(is_literal("[1, 2]"));
        assert!(is_literal("{}"));
        assert!(is_literal("1"));
        assert!(!is_literal("self"));
        assert!(!is_literal("bar"));
        assert!(!is_literal("(a or b)"));
        assert_eq!(dotted("a.b.c"), Some(vec!["a", "b", "c"]));
        assert_eq!(dotted("a[0]"), None);
        assert_eq!(dotted("f()"), None);
    }
}
