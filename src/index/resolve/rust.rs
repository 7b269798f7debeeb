//! Rust: calls and bases resolved by Rust's own paths and receivers.
//!
//! - A bare `f()` is looked up from the caller outwards: items of the enclosing
//!   functions and modules, then at module level the names its `use` declarations bind
//!   (`as` renames and `pub use` re-exports followed, globs last) and its `mod`
//!   declarations (`scope` when defined there, `import` when bound by a `use`).
//! - A path `a::b::f()` walks from its first segment (`crate`, `self`, `super`, a
//!   module, a `use` binding) through modules (`module`); a segment naming a type goes
//!   on to that type's associated items (`Type::new()`, `Self::f()`, `Trait::m()`:
//!   `class`).
//! - A type's methods and associated functions are the items named `Type::m` in the
//!   `impl` blocks of any file of the type's crate (when two types of the crate share
//!   the name, only the impls beside the type count), then the methods of the traits
//!   it implements (default methods). A trait's members are its own items: a call
//!   through a trait goes to the trait's method, never to an implementation.
//! - `self.m()`: the members of the caller's `Self` type (the type of its `impl`, or its
//!   trait for a default method): `self`. A method call on a receiver whose type the file
//!   states (`let x: Foo`, `let x = Foo::new()` with `new` declared `-> Self`/`-> Foo`,
//!   `x: &Foo` parameters, `self.field` with the field's declared type): `typed`.
//! - A method call on any other receiver (`v.push(1)`, `s.is_empty()`) is not resolved,
//!   whatever the workspace defines under that name. Paths into `std`, `core`, `alloc`,
//!   the prelude and crates outside the workspace are `external`.

use std::sync::Arc;

use super::native::{call_outcome, is_literal, one, Item, MethodIn};
use super::rules::Rule;
use super::{Family, Outcome, Resolver};
use crate::index::import_resolution::Target;
use crate::index::IndexError;
use crate::lang::CallRef;
use crate::store::files::{DefKind, Definition, IndexTx, ModuleSpan, Ref};

/// Deepest chain of `use` re-exports, globs and path segments followed.
const MAX_DEPTH: usize = 12;

/// Names the prelude and the primitive types bring into every module: a path or call
/// starting with one that no scope defines is outside the workspace.
const PRELUDE: &[&str] = &[
    "Some",
    "None",
    "Ok",
    "Err",
    "Box",
    "Vec",
    "String",
    "Option",
    "Result",
    "drop",
    "Default",
    "From",
    "Into",
    "Iterator",
    "IntoIterator",
    "ToString",
    "ToOwned",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Sized",
    "Fn",
    "FnMut",
    "FnOnce",
    "AsRef",
    "AsMut",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Extend",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "TryFrom",
    "TryInto",
    "FromIterator",
    "Drop",
    "Unpin",
    "std",
    "core",
    "alloc",
    "bool",
    "char",
    "str",
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "self",
    "Self",
];

/// Smart pointers a method call sees through (auto-deref).
const POINTERS: &[&str] = &["Box", "Arc", "Rc", "Cow", "Pin"];

impl Resolver {
    /// Resolves a Rust call reference (module docs).
    pub(super) fn rust_call(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let local = r.flags & CallRef::LOCAL != 0;
        let Some(q) = r.qualifier.as_deref() else {
            if local {
                return Ok(Outcome::status("unresolved", 0));
            }
            let found = self.rs_name(tx, r.file_id, r.src_id, &r.name, true, 0)?;
            return Ok(match found {
                Some((item, rule)) => call_outcome(Some(item), rule),
                None if PRELUDE.contains(&r.name.as_str()) => Outcome::status("external", 0),
                None => Outcome::status("unresolved", 0),
            });
        };
        let q = q.trim();
        if r.flags & CallRef::PATH != 0 {
            let Some(mut segs) = path_segments(q) else {
                return Ok(Outcome::status("unresolved", 0));
            };
            segs.push(r.name.clone());
            let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
            let found = self.rs_path(tx, r.file_id, r.src_id, &segs, true, 0)?;
            return Ok(match found {
                Some((item, rule)) => call_outcome(Some(item), rule),
                None => Outcome::status("unresolved", 0),
            });
        }
        if is_literal(q) {
            return Ok(Outcome::status("external", 0));
        }
        if q == "self" {
            let Some(ty) = self.rs_self_type(tx, r.src_id)? else {
                return Ok(Outcome::status("unresolved", 0));
            };
            let member = self.rs_member(tx, &ty, &r.name)?;
            return Ok(call_outcome(member, Rule::SelfRef));
        }
        if let Some(hint) = r.receiver_type.as_deref() {
            let ty = self.rs_hint(tx, r.file_id, r.src_id, hint)?;
            return Ok(match ty {
                Some(Item::Def(d)) if d.kind == DefKind::Type => {
                    let member = self.rs_member(tx, &d, &r.name)?;
                    call_outcome(member, Rule::Typed)
                }
                Some(Item::External) => Outcome::status("external", 0),
                _ => Outcome::status("unresolved", 0),
            });
        }
        Ok(Outcome::status("unresolved", 0))
    }

    /// Resolves `impl Trait for Type`: the trait named from the type's scope.
    pub(super) fn rust_base(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let mut segs: Vec<String> = match r.qualifier.as_deref() {
            Some(q) => path_segments(q).unwrap_or_default(),
            None => Vec::new(),
        };
        segs.push(r.name.clone());
        let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
        let found = self.rs_path(tx, r.file_id, r.src_id, &segs, false, 0)?;
        Ok(match found {
            Some((Item::Def(d), rule)) if d.kind == DefKind::Type => Outcome::edge(d.id, rule),
            Some((Item::External, _)) => Outcome::status("external", 0),
            Some((Item::Ambiguous(n), _)) => Outcome::status("ambiguous", n),
            None if PRELUDE.contains(&r.name.as_str()) => Outcome::status("external", 0),
            _ => Outcome::status("unresolved", 0),
        })
    }

    /// What `name` means from node `src` of `file`: the items of the enclosing
    /// functions, then of the enclosing modules with their `use` and `mod` names.
    fn rs_name(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        src: i64,
        name: &str,
        value: bool,
        depth: usize,
    ) -> Result<Option<(Item, Rule)>, IndexError> {
        let file_node = self.file_node(tx, file)?;
        let mut at = Some(src);
        let mut steps = 0;
        while let Some(node) = at {
            steps += 1;
            if steps > 64 {
                break;
            }
            let here = self.symbols.def(tx, node)?;
            let is_module =
                Some(node) == file_node || here.as_ref().is_some_and(|d| d.kind == DefKind::Module);
            if is_module {
                if let Some(found) = self.rs_lookup(tx, file, node, name, value, depth)? {
                    return Ok(Some(found));
                }
            } else if let Some(found) = self.rs_own(tx, node, name, value)? {
                return Ok(Some((found, Rule::Scope)));
            }
            at = match here {
                Some(d) => d.parent_id.or(file_node).filter(|&p| p != node),
                None => None,
            };
        }
        Ok(None)
    }

    /// The items named `name` declared directly in `node` (a module, a function): in
    /// the value namespace functions, then tuple structs; in the type namespace
    /// modules and types. Methods are never found here (they live in impls).
    fn rs_own(
        &mut self,
        tx: &IndexTx<'_>,
        node: i64,
        name: &str,
        value: bool,
    ) -> Result<Option<Item>, IndexError> {
        let defs = self.symbols.named(tx, name)?;
        let here: Vec<&Definition> = defs
            .iter()
            .filter(|d| d.parent_id == Some(node) && self.family(d.file_id) == Family::Rust)
            .collect();
        let pick = |kinds: &[DefKind]| -> Vec<Definition> {
            here.iter()
                .filter(|d| kinds.contains(&d.kind))
                .map(|d| (*d).clone())
                .collect()
        };
        let found = if value {
            let functions = pick(&[DefKind::Function]);
            if functions.is_empty() {
                pick(&[DefKind::Type])
            } else {
                functions
            }
        } else {
            pick(&[DefKind::Module, DefKind::Type])
        };
        Ok(match one(found) {
            Some(Item::Def(d)) if d.kind == DefKind::Module => Some(Item::Module {
                file: d.file_id,
                node: d.id,
            }),
            other => other,
        })
    }

    /// What `name` means in module `node` of `file`: its own items, its `mod name;`
    /// children, the names its `use` declarations bind, then its glob imports.
    fn rs_lookup(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        node: i64,
        name: &str,
        value: bool,
        depth: usize,
    ) -> Result<Option<(Item, Rule)>, IndexError> {
        let key = (node, Box::<str>::from(name), value);
        if let Some(known) = self.native.rust_lookups.get(&key) {
            return Ok(known.clone());
        }
        if depth > MAX_DEPTH {
            return Ok(None);
        }
        // A cycle of re-exports or globs ends here.
        self.native.rust_lookups.insert(key.clone(), None);
        let found = self.rs_lookup_uncached(tx, file, node, name, value, depth)?;
        self.native.rust_lookups.insert(key, found.clone());
        Ok(found)
    }

    fn rs_lookup_uncached(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        node: i64,
        name: &str,
        value: bool,
        depth: usize,
    ) -> Result<Option<(Item, Rule)>, IndexError> {
        if let Some(item) = self.rs_own(tx, node, name, value)? {
            return Ok(Some((item, Rule::Scope)));
        }
        let imports = self.symbols.imports_of(tx, file)?;
        if !value && Some(node) == self.file_node(tx, file)? {
            for import in imports.iter() {
                if import.form == Some("mod") && import.specifier == name {
                    if let Some(&child) = import.files.first() {
                        if let Some(child_node) = self.file_node(tx, child)? {
                            return Ok(Some((
                                Item::Module {
                                    file: child,
                                    node: child_node,
                                },
                                Rule::Scope,
                            )));
                        }
                    }
                }
            }
        }
        let mut globs: Vec<String> = Vec::new();
        for import in imports.iter() {
            if import.form != Some("use") || self.rs_import_module(tx, file, import.line)? != node {
                continue;
            }
            for binding in import.bindings.iter() {
                if binding.local == "*" {
                    globs.push(import.specifier.clone());
                } else if binding.local == name {
                    if import.status == "external" {
                        return Ok(Some((Item::External, Rule::Import)));
                    }
                    let segs: Vec<&str> = import.specifier.split("::").collect();
                    if let Some((item, _)) =
                        self.rs_path(tx, file, node, &segs, value, depth + 1)?
                    {
                        return Ok(Some((item, Rule::Import)));
                    }
                }
            }
        }
        let mut external_glob = false;
        for glob in globs {
            let prefix: Vec<&str> = glob.split("::").filter(|s| *s != "*").collect::<Vec<_>>();
            if prefix.is_empty() {
                continue;
            }
            match self.rs_path(tx, file, node, &prefix, false, depth + 1)? {
                Some((Item::Module { file: f, node: n }, _)) => {
                    if let Some((item, _)) = self.rs_lookup(tx, f, n, name, value, depth + 1)? {
                        return Ok(Some((item, Rule::Import)));
                    }
                }
                Some((Item::External, _)) => external_glob = true,
                _ => {}
            }
        }
        Ok(external_glob.then_some((Item::External, Rule::Import)))
    }

    /// Walks a path (`crate::a::f`, `Foo::new`, `super::x`) from node `src` of `file`.
    fn rs_path(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        src: i64,
        segs: &[&str],
        value: bool,
        depth: usize,
    ) -> Result<Option<(Item, Rule)>, IndexError> {
        let Some((first, _)) = segs.split_first() else {
            return Ok(None);
        };
        if depth > MAX_DEPTH {
            return Ok(None);
        }
        let last = segs.len() - 1;
        let (mut item, mut rule, mut at) = match *first {
            "self" | "super"
                if self
                    .innermost(tx, src, DefKind::Module)?
                    .map(|m| m.id)
                    .is_some() =>
            {
                // Inside `mod m { .. }`: `self` is `m`, `super` the module around it.
                let Some(mut module) = self.innermost(tx, src, DefKind::Module)?.map(|m| m.id)
                else {
                    return Ok(None);
                };
                let file_node = self.file_node(tx, file)?;
                let mut at = 0;
                while at < segs.len() && matches!(segs[at], "self" | "super") {
                    if segs[at] == "super" {
                        if Some(module) == file_node {
                            // Above the file's module: the path goes on from the file.
                            let rest: Vec<&str> = segs[at..].to_vec();
                            return self.rs_path(tx, file, module, &rest, value, depth + 1);
                        }
                        module = self
                            .symbols
                            .def(tx, module)?
                            .and_then(|d| d.parent_id)
                            .or(file_node)
                            .unwrap_or(module);
                    }
                    at += 1;
                }
                (Item::Module { file, node: module }, Rule::Module, at)
            }
            "crate" | "self" | "super" | "$crate" => {
                let keywords = segs
                    .iter()
                    .take_while(|s| matches!(**s, "crate" | "self" | "super" | "$crate"))
                    .count();
                let prefix = segs[..keywords]
                    .iter()
                    .map(|s| if *s == "$crate" { "crate" } else { *s })
                    .collect::<Vec<_>>()
                    .join("::");
                let Some(path) = self.paths.get(&file).cloned() else {
                    return Ok(None);
                };
                let module = match self.modules.resolve_rust(file, &path, "use", &prefix) {
                    Target::Files(files) => match files.first() {
                        Some(&f) => self
                            .file_node(tx, f)?
                            .map(|node| Item::Module { file: f, node }),
                        None => None,
                    },
                    _ => None,
                };
                let Some(module) = module else {
                    return Ok(None);
                };
                (module, Rule::Module, keywords)
            }
            "Self" => {
                let Some(ty) = self.rs_self_type(tx, src)? else {
                    return Ok(None);
                };
                (Item::Def(ty), Rule::Class, 1)
            }
            "std" | "core" | "alloc" => return Ok(Some((Item::External, Rule::Module))),
            name => {
                let found = self.rs_name(tx, file, src, name, value && last == 0, depth)?;
                match found {
                    Some((item, rule)) => (item, rule, 1),
                    None if PRELUDE.contains(&name) => {
                        return Ok(Some((Item::External, Rule::Module)))
                    }
                    // A lower-case root bound nowhere: another crate (`serde::de`).
                    None if last > 0 && name.starts_with(|c: char| c.is_ascii_lowercase()) => {
                        return Ok(Some((Item::External, Rule::Module)))
                    }
                    None => return Ok(None),
                }
            }
        };
        while at < segs.len() {
            let seg = segs[at];
            let value_here = value && at == last;
            (item, rule) = match item {
                Item::Module { file: f, node } => {
                    match self.rs_lookup(tx, f, node, seg, value_here, depth + 1)? {
                        Some((found, _)) => (found, Rule::Module),
                        None => return Ok(None),
                    }
                }
                Item::Def(d) if d.kind == DefKind::Type => {
                    match self.rs_member(tx, &d, seg)? {
                        Some(found) => (found, Rule::Class),
                        // An enum variant or an item of a trait implemented elsewhere.
                        None => return Ok(None),
                    }
                }
                Item::External => return Ok(Some((Item::External, rule))),
                Item::Ambiguous(n) => return Ok(Some((Item::Ambiguous(n), rule))),
                Item::Def(_) => return Ok(None),
            };
            at += 1;
        }
        Ok(Some((item, rule)))
    }

    /// The module a `use` on `line` of `file` is written in: the innermost inline
    /// module around the line, else the file's module (a `use` in a function body
    /// counts for the module around the function).
    fn rs_import_module(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        line: u32,
    ) -> Result<i64, IndexError> {
        if self.bulk && !self.native.rust_modules_loaded {
            self.native.rust_modules = tx
                .all_module_spans()?
                .into_iter()
                .map(|(f, spans)| (f, Arc::from(spans)))
                .collect();
            self.native.rust_modules_loaded = true;
        }
        let spans = match self.native.rust_modules.get(&file) {
            Some(known) => Arc::clone(known),
            None if self.native.rust_modules_loaded => Arc::from(Vec::new()),
            None => {
                let spans: Arc<[ModuleSpan]> = Arc::from(tx.module_spans(file)?);
                self.native.rust_modules.insert(file, Arc::clone(&spans));
                spans
            }
        };
        let inner = spans
            .iter()
            .filter(|(_, start, end)| *start <= line && line <= *end)
            .min_by_key(|(_, start, end)| end - start)
            .map(|(id, _, _)| *id);
        Ok(match inner {
            Some(id) => id,
            None => self.file_node(tx, file)?.unwrap_or(-1),
        })
    }

    /// The crate directory of a Rust file (cached).
    fn rs_crate(&mut self, file: i64) -> Option<Arc<str>> {
        if let Some(known) = self.native.rust_crates.get(&file) {
            return known.clone();
        }
        let dir = self
            .paths
            .get(&file)
            .and_then(|p| self.modules.rust_crate_dir(p))
            .map(Arc::from);
        self.native.rust_crates.insert(file, dir.clone());
        dir
    }

    /// Member `name` of type `ty` (module docs): its own items for a trait; for a
    /// struct, enum or union the `Type::name` items of its crate's impls, then the
    /// methods of the traits it implements.
    fn rs_member(
        &mut self,
        tx: &IndexTx<'_>,
        ty: &Definition,
        name: &str,
    ) -> Result<Option<Item>, IndexError> {
        self.memo_member(tx, ty, name, 0, 0, Resolver::rs_member_uncached)
    }

    fn rs_member_uncached(
        &mut self,
        tx: &IndexTx<'_>,
        ty: &Definition,
        name: &str,
        depth: usize,
    ) -> Result<Option<Item>, IndexError> {
        let defs = self.symbols.named(tx, name)?;
        // A trait's own items.
        let own: Vec<Definition> = defs
            .iter()
            .filter(|d| d.parent_id == Some(ty.id))
            .cloned()
            .collect();
        if !own.is_empty() {
            return Ok(one(own));
        }
        let krate = self.rs_crate(ty.file_id);
        let in_crate = |this: &Self, file: i64| match (&krate, this.paths.get(&file)) {
            (Some(dir), Some(path)) => dir.is_empty() || path.starts_with(&format!("{dir}/")),
            (None, _) => this.rs_crate_of_path(file).is_none(),
            _ => false,
        };
        let exact = format!("{}::{name}", ty.name);
        let suffix = format!("::{exact}");
        let mut found: Vec<Definition> = Vec::new();
        for d in defs.iter() {
            if d.kind != DefKind::Method
                || self.family(d.file_id) != Family::Rust
                || !(*d.qualified_name == *exact || d.qualified_name.ends_with(&suffix))
                || !in_crate(self, d.file_id)
            {
                continue;
            }
            // A trait's own method (`Describe::describe` in `trait Describe`) is no impl.
            if let Some(parent) = d.parent_id {
                if self
                    .symbols
                    .def(tx, parent)?
                    .is_some_and(|p| p.kind == DefKind::Type)
                {
                    continue;
                }
            }
            found.push(d.clone());
        }
        if found.len() > 1 || found.iter().any(|d| d.file_id != ty.file_id) {
            // Another type of the crate with this name: only the impls beside ours count.
            let namesakes = self.symbols.named(tx, &ty.name)?;
            let shared = namesakes.iter().any(|t| {
                t.id != ty.id
                    && t.kind == DefKind::Type
                    && self.family(t.file_id) == Family::Rust
                    && in_crate(self, t.file_id)
            });
            if shared {
                found.retain(|d| d.file_id == ty.file_id);
            }
        }
        if !found.is_empty() {
            return Ok(one(found));
        }
        if depth < 4 {
            // Default methods of the traits it implements.
            let bases = self.symbols.bases_of(tx, ty.id)?;
            let mut inherited: Vec<Definition> = Vec::new();
            for base in bases.iter() {
                if let Some(trait_id) = base.node {
                    let trait_defs = self.symbols.named(tx, name)?;
                    inherited.extend(
                        trait_defs
                            .iter()
                            .filter(|d| d.parent_id == Some(trait_id))
                            .cloned(),
                    );
                }
            }
            if !inherited.is_empty() {
                return Ok(one(inherited));
            }
        }
        Ok(None)
    }

    /// `None` when the file is under no crate root (a loose file).
    fn rs_crate_of_path(&self, file: i64) -> Option<String> {
        self.paths
            .get(&file)
            .and_then(|p| self.modules.rust_crate_dir(p))
    }

    /// The `Self` type around node `src`: the type of its `impl` (named by the method's
    /// qualified name `Type::m`, looked up where the impl is written), or its trait.
    fn rs_self_type(
        &mut self,
        tx: &IndexTx<'_>,
        src: i64,
    ) -> Result<Option<Definition>, IndexError> {
        let Some(MethodIn { method, body_type }) = self.method_in(tx, src)? else {
            return Ok(None);
        };
        if body_type.is_some() {
            return Ok(body_type);
        }
        let mut segs = method.qualified_name.rsplit("::");
        segs.next();
        let Some(ty_name) = segs.next().map(str::to_string) else {
            return Ok(None);
        };
        let scope = method
            .parent_id
            .or(self.file_node(tx, method.file_id)?)
            .unwrap_or(src);
        Ok(
            match self.rs_name(tx, method.file_id, scope, &ty_name, false, 0)? {
                Some((Item::Def(d), _)) if d.kind == DefKind::Type => Some(d),
                _ => None,
            },
        )
    }

    /// The type a receiver hint names: a type as written (`Foo`, `a::Foo`, `Self`), or
    /// the result of a call (`Foo::new()`, `make()`, `Foo::open()?`) by the callee's
    /// declared return type.
    fn rs_hint(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        src: i64,
        hint: &str,
    ) -> Result<Option<Item>, IndexError> {
        let (call, tried) = match hint.strip_suffix("?") {
            Some(inner) => (inner, true),
            None => (hint, false),
        };
        if let Some(callee) = call.strip_suffix("()") {
            let Some(segs) = path_segments(callee) else {
                return Ok(None);
            };
            let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
            let found = self.rs_path(tx, file, src, &segs, true, 0)?;
            return match found {
                Some((Item::Def(f), _)) if f.kind.is_callable() => self.rs_returns(tx, &f, tried),
                Some((Item::Def(t), _)) if t.kind == DefKind::Type => Ok(Some(Item::Def(t))),
                Some((Item::External, _)) => Ok(Some(Item::External)),
                _ => Ok(None),
            };
        }
        self.rs_type(tx, file, src, hint)
    }

    /// The type a type expression names from node `src` of `file`.
    fn rs_type(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        src: i64,
        ty: &str,
    ) -> Result<Option<Item>, IndexError> {
        let Some(ty) = normalize_type(ty, false) else {
            return Ok(None);
        };
        if ty == "Self" {
            return Ok(self.rs_self_type(tx, src)?.map(Item::Def));
        }
        let Some(segs) = path_segments(&ty) else {
            return Ok(None);
        };
        let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
        Ok(match self.rs_path(tx, file, src, &segs, false, 0)? {
            Some((Item::Def(d), _)) if d.kind == DefKind::Type => Some(Item::Def(d)),
            Some((Item::External, _)) => Some(Item::External),
            _ => None,
        })
    }

    /// What calling `f` returns, by its declared return type read in `f`'s own scope
    /// (`Self` is its impl's type); with `tried`, the `T` of a `Result<T, _>` or an
    /// `Option<T>` (the call was followed by `?`).
    fn rs_returns(
        &mut self,
        tx: &IndexTx<'_>,
        f: &Definition,
        tried: bool,
    ) -> Result<Option<Item>, IndexError> {
        let Some(signature) = self.symbols.signature(tx, f.id)? else {
            return Ok(None);
        };
        let Some(ret) = return_type(&signature) else {
            return Ok(None);
        };
        let Some(ty) = normalize_type(ret, tried) else {
            return Ok(None);
        };
        if ty == "Self" {
            return Ok(self.rs_self_type(tx, f.id)?.map(Item::Def));
        }
        self.rs_type(tx, f.file_id, f.id, &ty)
    }
}

/// The segments of a path written as a call's qualifier (`a::b`, `Vec::<u8>`,
/// `<T as Trait>` → `Trait`); `None` for anything else.
fn path_segments(q: &str) -> Option<Vec<String>> {
    let mut q: String = q.chars().filter(|c| !c.is_whitespace()).collect();
    if q.starts_with('<') {
        // `<T as Trait>::f`: the trait's item; `<T>::f`: the type's.
        let inner = q.strip_prefix('<')?.strip_suffix('>')?.to_string();
        q = match inner.split_once("as") {
            Some((_, tr)) if inner.contains("as") => tr.to_string(),
            _ => inner,
        };
    }
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    let mut chars = q.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ':' if depth == 0 && chars.peek() == Some(&':') => {
                chars.next();
                out.push(std::mem::take(&mut current));
            }
            _ if depth == 0 => current.push(c),
            _ => {}
        }
    }
    out.push(current);
    // `Vec::<u8>`: the turbofish leaves an empty segment.
    out.retain(|s| !s.is_empty());
    let ok = !out.is_empty()
        && out.iter().all(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c == '_' || c == '$' || c.is_alphanumeric())
        });
    ok.then_some(out)
}

/// The return type of a function signature (`fn f(..) -> T where ..`): `T`.
fn return_type(signature: &str) -> Option<&str> {
    let open = signature.find('(')?;
    let mut depth = 0usize;
    let mut close = None;
    for (i, c) in signature[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let rest = signature[close? + 1..].trim_start();
    let ret = rest.strip_prefix("->")?;
    let ret = match ret.find(" where ") {
        Some(at) => &ret[..at],
        None => ret,
    };
    let ret = ret.trim().trim_end_matches('{').trim();
    (!ret.is_empty()).then_some(ret)
}

/// A type as a path a method call sees: references, `mut`, `dyn`, `impl`, lifetimes
/// and generic arguments dropped, smart pointers seen through (`&mut Box<Foo<T>>` →
/// `Foo`); with `unwrap`, the first argument of a `Result` or `Option`. `None` for
/// tuples, slices, arrays, function pointers.
pub(super) fn normalize_type(ty: &str, unwrap: bool) -> Option<String> {
    let mut t = ty.trim();
    loop {
        let before = t;
        t = t.trim_start_matches('&').trim_start();
        if t.starts_with('\'') {
            t = t.split_once(' ').map_or("", |(_, rest)| rest).trim_start();
        }
        for prefix in ["mut ", "dyn ", "impl "] {
            if let Some(rest) = t.strip_prefix(prefix) {
                t = rest.trim_start();
            }
        }
        if t == before {
            break;
        }
    }
    // `Trait + Send`: the first bound.
    let t = t.split(" +").next().unwrap_or(t).trim();
    if t.is_empty() || t.starts_with(['(', '[', '*']) || t.starts_with("fn") && t.contains('(') {
        return None;
    }
    let (base, args) = match t.find('<') {
        Some(at) => (&t[..at], Some(t[at + 1..].trim_end_matches('>'))),
        None => (t, None),
    };
    let base = base.trim();
    let last = base.rsplit("::").next().unwrap_or(base);
    let first_arg = || {
        args.map(|a| {
            let mut depth = 0usize;
            let end = a
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '<' | '(' => depth += 1,
                        '>' | ')' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    c == ',' && depth == 0
                })
                .map_or(a.len(), |(i, _)| i);
            a[..end].trim()
        })
    };
    if POINTERS.contains(&last) || (unwrap && matches!(last, "Result" | "Option")) {
        return normalize_type(first_arg()?, false);
    }
    let ok = !base.is_empty()
        && base
            .split("::")
            .all(|s| !s.is_empty() && s.chars().all(|c| c == '_' || c.is_alphanumeric()));
    ok.then(|| base.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_of_qualifiers() {
        assert_eq!(path_segments("a::b"), Some(vec!["a".into(), "b".into()]));
        assert_eq!(path_segments("Vec::<u8>"), Some(vec!["Vec".into()]));
        assert_eq!(
            path_segments("<T as fmt::Display>"),
            Some(vec!["fmt".into(), "Display".into()])
        );
        assert_eq!(path_segments("x.y"), None);
    }

    #[test]
    fn return_types_and_normal_forms() {
        assert_eq!(return_type("pub fn new(t: &str) -> Self"), Some("Self"));
        assert_eq!(
            return_type("fn f(g: impl Fn() -> u8) -> Result<Foo, E> where E: X"),
            Some("Result<Foo, E>")
        );
        assert_eq!(return_type("fn f(&self)"), None);
        assert_eq!(
            normalize_type("&'a mut Box<Foo<T>>", false),
            Some("Foo".into())
        );
        assert_eq!(normalize_type("Result<Foo, E>", true), Some("Foo".into()));
        assert_eq!(
            normalize_type("io::Result<Self>", true),
            Some("Self".into())
        );
        assert_eq!(
            normalize_type("&dyn a::Tr + Send", false),
            Some("a::Tr".into())
        );
        assert_eq!(normalize_type("(A, B)", false), None);
        assert_eq!(normalize_type("&[u8]", false), None);
    }
}
