//! JavaScript and TypeScript: calls and bases resolved by the language's own name rules.
//!
//! - A bare name `f()` is looked up lexically: the definitions of the enclosing
//!   functions, then of the module (class bodies are not scopes), then the names the
//!   module's imports bind (`import f from`, `import { g as f }`, `import * as ns`,
//!   `const f = require(..)`, `const { f } = require(..)`). A name the extractor saw
//!   bound to a variable or parameter (destructured ones included) is not resolved:
//!   its value is not known from names. A global of the language or the host (`parseInt`,
//!   `setTimeout`, `Promise`, ...) that nothing in scope defines is `external`.
//! - An imported name is followed into the module it comes from: its definition, a
//!   renamed or default export (`export { run as start }`, `export default foo`,
//!   `module.exports = foo`), a re-export (`export { a as b } from`, `export * from`,
//!   `export * as ns from`), transitively. A package outside the workspace is
//!   `external`.
//! - `this.m()`: the enclosing class and its `extends` chain; `super.m()`: the chain
//!   after the enclosing class.
//! - `new C()` / `C()` where `C` names a class: an edge to the class.
//! - `ns.f()`: member `f` of the module `ns` names (of a CommonJS module whose
//!   `module.exports = X`, also `X.f = require(..)` set at its top level); `C.f()`:
//!   static member of class `C` through its chain; `a.b.f()`: each step the same way.
//! - `x.m()` where the extractor typed `x` (`x: Foo`, `const x = new Foo()`,
//!   `const x = make()` with `make` declared `: Foo`, a field `private x: Foo` or
//!   `this.x = new Foo()`): the member `m` of that class through its chain.
//! - Anything else, in particular a method call on a receiver of unknown type, is
//!   `unresolved` (or `external` for a literal or a global receiver): a method is never
//!   chosen by its name alone.

use super::python::{callee, combine, Value};
use super::rules::Rule;
use super::{Outcome, Resolver};
use crate::index::IndexError;
use crate::lang::{annotations, CallRef};
use crate::store::files::{DefKind, Definition, FileImport, IndexTx, Ref};

/// How deep re-export chains are followed.
const MAX_DEPTH: usize = 16;

/// Globals of ECMAScript, browsers and Node.js: a bare call or a receiver with one of
/// these names that no scope binds is outside the workspace.
const GLOBALS: &[&str] = &[
    "AbortController",
    "Array",
    "ArrayBuffer",
    "Atomics",
    "BigInt",
    "Boolean",
    "Buffer",
    "DataView",
    "Date",
    "Error",
    "EvalError",
    "Event",
    "EventTarget",
    "FinalizationRegistry",
    "Float32Array",
    "Float64Array",
    "FormData",
    "Function",
    "Headers",
    "Int16Array",
    "Int32Array",
    "Int8Array",
    "Intl",
    "JSON",
    "Map",
    "Math",
    "Number",
    "Object",
    "Promise",
    "Proxy",
    "RangeError",
    "ReferenceError",
    "Reflect",
    "RegExp",
    "Request",
    "Response",
    "Set",
    "SharedArrayBuffer",
    "String",
    "Symbol",
    "SyntaxError",
    "TextDecoder",
    "TextEncoder",
    "TypeError",
    "URIError",
    "URL",
    "URLSearchParams",
    "Uint16Array",
    "Uint32Array",
    "Uint8Array",
    "Uint8ClampedArray",
    "WeakMap",
    "WeakRef",
    "WeakSet",
    "alert",
    "atob",
    "btoa",
    "cancelAnimationFrame",
    "clearImmediate",
    "clearInterval",
    "clearTimeout",
    "console",
    "decodeURI",
    "decodeURIComponent",
    "document",
    "encodeURI",
    "encodeURIComponent",
    "escape",
    "eval",
    "exports",
    "fetch",
    "globalThis",
    "isFinite",
    "isNaN",
    "localStorage",
    "module",
    "navigator",
    "parseFloat",
    "parseInt",
    "process",
    "queueMicrotask",
    "require",
    "requestAnimationFrame",
    "setImmediate",
    "setInterval",
    "setTimeout",
    "structuredClone",
    "undefined",
    "unescape",
    "window",
];

/// A receiver written as a literal (`"a,b".split`, `[1, 2].map`, `` `x`.trim ``,
/// `{}.toString`, `1..toFixed`, `/x/.test`).
fn is_literal(q: &str) -> bool {
    matches!(
        q.chars().next(),
        Some('"' | '\'' | '`' | '[' | '{' | '/' | '0'..='9')
    )
}

/// The segments of a dotted name of identifiers (`a.b.c`, optional chaining `a?.b`
/// read as `a.b`, a non-null assertion `a!.b` as `a.b`), or `None`.
fn dotted(q: &str) -> Option<Vec<String>> {
    let q = q.replace("?.", ".").replace("!.", ".");
    let q = q.strip_suffix('!').unwrap_or(&q);
    let segs: Vec<String> = q.split('.').map(|s| s.trim().to_string()).collect();
    let ok = segs.iter().all(|s| {
        !s.is_empty()
            && !s.starts_with(|c: char| c.is_ascii_digit())
            && s.chars()
                .all(|c| c == '_' || c == '$' || c.is_alphanumeric())
    });
    ok.then_some(segs)
}

impl Resolver {
    /// Resolves a JavaScript/TypeScript call reference (module docs).
    pub(super) fn js_call(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let local = r.flags & CallRef::LOCAL != 0;
        let Some(q) = r.qualifier.as_deref() else {
            if local {
                return Ok(Outcome::status("unresolved", 0));
            }
            return Ok(
                match self.js_name(tx, r.file_id, Some(r.src_id), &r.name)? {
                    Some((value, rule)) => self.js_callee(tx, value, rule)?,
                    None if GLOBALS.contains(&r.name.as_str()) => Outcome::status("external", 0),
                    None => Outcome::status("unresolved", 0),
                },
            );
        };
        let q = q.trim();
        if is_literal(q) {
            return Ok(Outcome::status("external", 0));
        }
        if q == "this" {
            let Some(class) = self.enclosing_class(tx, r.src_id)? else {
                return Ok(Outcome::status("unresolved", 0));
            };
            return self.js_member_call(tx, &class, &r.name, false, Rule::SelfRef);
        }
        if q == "super" {
            let Some(class) = self.enclosing_class(tx, r.src_id)? else {
                return Ok(Outcome::status("unresolved", 0));
            };
            return self.js_member_call(tx, &class, &r.name, true, Rule::Super);
        }
        if let Some(hint) = r.receiver_type.as_deref() {
            let receiver = self.js_type(tx, r.file_id, r.src_id, hint)?;
            let (value, _) = self.js_attr(tx, receiver, &r.name, 0)?;
            return self.js_callee(tx, value, Rule::Typed);
        }
        if local {
            return Ok(Outcome::status("unresolved", 0));
        }
        // `make().m()`: the class of what `make` returns.
        if let Some(inner) = q.strip_suffix(')') {
            let receiver = match inner.find('(') {
                Some(open) if !inner[..open].is_empty() => {
                    let hint = format!("{}()", &inner[..open]);
                    self.js_type(tx, r.file_id, r.src_id, &hint)?
                }
                _ => Value::Unknown,
            };
            let (value, _) = self.js_attr(tx, receiver, &r.name, 0)?;
            return self.js_callee(tx, value, Rule::Typed);
        }
        let Some(segs) = dotted(q) else {
            return Ok(Outcome::status("unresolved", 0));
        };
        let Some((receiver, _)) = self.js_path(tx, r.file_id, r.src_id, &segs)? else {
            let global = GLOBALS.contains(&segs[0].as_str());
            return Ok(Outcome::status(
                if global { "external" } else { "unresolved" },
                0,
            ));
        };
        let (value, rule) = self.js_attr(tx, receiver, &r.name, 0)?;
        self.js_callee(tx, value, rule)
    }

    /// Resolves a JavaScript/TypeScript base (`extends B`, `extends ns.B`,
    /// `implements I`) from the scope around the class.
    pub(super) fn js_base(&mut self, tx: &IndexTx<'_>, r: &Ref) -> Result<Outcome, IndexError> {
        let scope = self.parent_of(tx, r.src_id)?;
        let mut segs: Vec<String> = match r.qualifier.as_deref() {
            Some(q) => match dotted(q) {
                Some(segs) => segs,
                None => return Ok(Outcome::status("unresolved", 0)),
            },
            None => Vec::new(),
        };
        segs.push(r.name.clone());
        let found = match self.js_name(tx, r.file_id, scope, &segs[0])? {
            Some((mut value, mut rule)) => {
                for seg in &segs[1..] {
                    (value, rule) = self.js_attr(tx, value, seg, 0)?;
                }
                Some((value, rule))
            }
            None => None,
        };
        let found = match found {
            // `class A extends require('./base')`-style bindings: the module's default.
            Some((Value::Module(m), rule)) => self
                .js_export(tx, m, "default", 0)?
                .map(|value| (value, rule)),
            other => other,
        };
        Ok(match found {
            Some((Value::Def(d), rule)) if d.kind == DefKind::Type => Outcome::edge(d.id, rule),
            Some((Value::External, _)) => Outcome::status("external", 0),
            None if GLOBALS.contains(&segs[0].as_str()) => Outcome::status("external", 0),
            _ => Outcome::status("unresolved", 0),
        })
    }

    /// The outcome of calling a value: a module called as a function is its default
    /// export (`module.exports = fn`), followed through modules whose default is
    /// another module (`module.exports = require('./lib/f')`, or a name bound to it).
    fn js_callee(
        &mut self,
        tx: &IndexTx<'_>,
        mut value: Value,
        rule: Rule,
    ) -> Result<Outcome, IndexError> {
        for _ in 0..MAX_DEPTH {
            let Value::Module(m) = value else { break };
            value = self
                .js_export(tx, m, "default", 0)?
                .unwrap_or(Value::Unknown);
        }
        Ok(callee(value, rule))
    }

    /// A call of member `name` of `class` (or, with `after`, of the classes after it in
    /// its chain of bases).
    fn js_member_call(
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
            None if open => Outcome::status("external", 0),
            None => Outcome::status("unresolved", 0),
        })
    }

    /// A bare name as seen from node `from` (`None`: the module scope of `file`): the
    /// declarations of the scopes from `from` outwards (class bodies are no scopes),
    /// then the names the module's imports bind. `None` when nothing
    /// binds it.
    fn js_name(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        from: Option<i64>,
        name: &str,
    ) -> Result<Option<(Value, Rule)>, IndexError> {
        let defs = self.symbols.named(tx, name)?;
        let file_node = self.file_node(tx, file)?;
        let mut scope = from.or(file_node);
        for _ in 0..64 {
            let Some(s) = scope else { break };
            let here = self.symbols.def(tx, s)?;
            let class_body = here.as_ref().is_some_and(|d| d.kind == DefKind::Type);
            if !class_body {
                // Only declarations bind a name: `exports.f = function`,
                // `Foo.prototype.f = ..` and `{ f() {} }` define members, not `f`.
                for d in defs.iter().rev().filter(|d| d.parent_id == Some(s)) {
                    if self.js_binding_of(tx, d, here.as_ref())? == Binding::Declared {
                        return Ok(Some((Value::Def(d.clone()), Rule::Scope)));
                    }
                }
            }
            scope = match here {
                Some(d) => d.parent_id,
                None => None,
            };
        }
        Ok(self
            .js_imported(tx, file, name, 0)?
            .map(|value| (value, Rule::Import)))
    }

    /// What the imports of `file` bind `name` to (re-exports bind no local name);
    /// `None` when none binds it.
    fn js_imported(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        name: &str,
        depth: usize,
    ) -> Result<Option<Value>, IndexError> {
        let imports = self.symbols.imports_of(tx, file)?;
        for import in imports.iter() {
            if import.form == Some("reexport") {
                continue;
            }
            for binding in import.bindings.iter() {
                if binding.local == name {
                    return Ok(Some(self.js_binding(
                        tx,
                        import,
                        &binding.imported,
                        depth,
                    )?));
                }
            }
        }
        Ok(None)
    }

    /// What the name `imported` of an import's module denotes (`*`: the module itself).
    fn js_binding(
        &mut self,
        tx: &IndexTx<'_>,
        import: &FileImport,
        imported: &str,
        depth: usize,
    ) -> Result<Value, IndexError> {
        match import.status.as_str() {
            "resolved" => {}
            "external" => return Ok(Value::External),
            _ => return Ok(Value::Unknown),
        }
        let [target] = import.files.as_slice() else {
            return Ok(Value::Unknown);
        };
        if imported == "*" {
            return Ok(Value::Module(*target));
        }
        Ok(self
            .js_export(tx, *target, imported, depth + 1)?
            .unwrap_or(Value::Unknown))
    }

    /// The export `name` of module `m` (`default` for its default export): a renamed or
    /// default export, a module-level declaration, a name it imports and exports, a
    /// re-export, an `export *`. `None` when it has none. A CommonJS module whose
    /// default is not declared is its own default (`require` gives `module.exports`).
    /// Cached per (module, name).
    fn js_export(
        &mut self,
        tx: &IndexTx<'_>,
        m: i64,
        name: &str,
        depth: usize,
    ) -> Result<Option<Value>, IndexError> {
        self.js_export_in(tx, m, name, depth, false)
    }

    /// [`Resolver::js_export`]; with `star`, as seen through an `export *`: only what
    /// the module exports (its declarations, its `export { .. }` lists, its
    /// re-exports), not the names it merely imports.
    fn js_export_in(
        &mut self,
        tx: &IndexTx<'_>,
        m: i64,
        name: &str,
        depth: usize,
        star: bool,
    ) -> Result<Option<Value>, IndexError> {
        // The cache shares its keys with Python's module members (no file is both);
        // lookups through a star are told apart by a leading NUL.
        let key = (
            m,
            Box::<str>::from(if star {
                format!("\0{name}")
            } else {
                name.to_string()
            }),
        );
        if let Some(known) = self.py_members.get(&key) {
            return Ok(known.clone());
        }
        if depth > MAX_DEPTH {
            return Ok(Some(Value::Unknown));
        }
        // A cycle of re-exports ends here.
        self.py_members.insert(key.clone(), Some(Value::Unknown));
        let found = self.js_export_uncached(tx, m, name, depth, star)?;
        self.py_members.insert(key, found.clone());
        Ok(found)
    }

    fn js_export_uncached(
        &mut self,
        tx: &IndexTx<'_>,
        m: i64,
        name: &str,
        depth: usize,
        star: bool,
    ) -> Result<Option<Value>, IndexError> {
        // `export { local as name }`, `export default local`, `module.exports = local`,
        // `module.exports = function local ..`.
        let exports = self.symbols.exports_of(tx, m)?;
        if let Some((_, local)) = exports.iter().find(|(exported, _)| exported == name) {
            let local = local.clone();
            if name == "default" {
                if let Some(found) = self.js_assigned_default(tx, m, &local)? {
                    return Ok(Some(found));
                }
            }
            return Ok(Some(
                self.js_module_name(tx, m, &local, depth)?
                    .unwrap_or(Value::Unknown),
            ));
        }
        if name != "default" {
            let found = if star {
                self.js_declared(tx, m, name)?
            } else {
                self.js_module_name(tx, m, name, depth)?
            };
            if let Some(found) = found {
                return Ok(Some(found));
            }
        }
        // Re-exports: `export { a as name } from`, `export * as name from`, then
        // `export * from`.
        let imports = self.symbols.imports_of(tx, m)?;
        let mut stars: Vec<FileImport> = Vec::new();
        for import in imports.iter() {
            if import.form != Some("reexport") {
                continue;
            }
            for binding in import.bindings.iter() {
                if binding.local == "*" {
                    stars.push(import.row.clone());
                } else if binding.local == name {
                    return Ok(Some(self.js_binding(
                        tx,
                        import,
                        &binding.imported,
                        depth,
                    )?));
                }
            }
        }
        if name != "default" {
            let mut found: Vec<Value> = Vec::new();
            for import in &stars {
                match import.status.as_str() {
                    "resolved" => {
                        for &target in &import.files {
                            // A module that does not know (a cycle of barrels, an
                            // unresolved import) does not outvote one that does.
                            match self.js_export_in(tx, target, name, depth + 1, true)? {
                                Some(Value::Unknown) | None => {}
                                Some(v) => found.push(v),
                            }
                        }
                    }
                    // A star re-export of a package may bring any name.
                    "external" => found.push(Value::External),
                    _ => {}
                }
            }
            // Several stars giving the same definition (one module exports what
            // another re-exports) agree; different ones make the name ambiguous.
            if let Some(value) = combine(found) {
                return Ok(Some(value));
            }
        }
        Ok(None)
    }

    /// A declaration at the top level of module `m` (a function, class, or
    /// `exports.f = ..`), not what its imports bind.
    fn js_declared(
        &mut self,
        tx: &IndexTx<'_>,
        m: i64,
        name: &str,
    ) -> Result<Option<Value>, IndexError> {
        self.js_top_level(tx, m, name, |b| {
            matches!(b, Binding::Declared | Binding::Exported)
        })
    }

    /// The last definition named `name` directly under module `m` whose binding
    /// `accept` takes.
    fn js_top_level(
        &mut self,
        tx: &IndexTx<'_>,
        m: i64,
        name: &str,
        accept: impl Fn(Binding) -> bool,
    ) -> Result<Option<Value>, IndexError> {
        let file_node = self.file_node(tx, m)?;
        let defs = self.symbols.named(tx, name)?;
        for d in defs
            .iter()
            .rev()
            .filter(|d| d.parent_id.is_some() && d.parent_id == file_node)
        {
            if accept(self.js_binding_of(tx, d, None)?) {
                return Ok(Some(Value::Def(d.clone())));
            }
        }
        Ok(None)
    }

    /// The function module `m` assigns to `module.exports` under its own name `name`
    /// (`module.exports = function name ..`), if any.
    fn js_assigned_default(
        &mut self,
        tx: &IndexTx<'_>,
        m: i64,
        name: &str,
    ) -> Result<Option<Value>, IndexError> {
        self.js_top_level(tx, m, name, |b| b == Binding::Default)
    }

    /// A name at the top level of module `m`: its declaration, else what its imports
    /// bind it to.
    fn js_module_name(
        &mut self,
        tx: &IndexTx<'_>,
        m: i64,
        name: &str,
        depth: usize,
    ) -> Result<Option<Value>, IndexError> {
        if let Some(found) = self.js_declared(tx, m, name)? {
            return Ok(Some(found));
        }
        self.js_imported(tx, m, name, depth)
    }

    /// A dotted path from node `src` of `file`: its first name looked up from the scope
    /// (`this` being an object of the enclosing class), then members. `None` when the
    /// first name is bound nowhere. The rule is the one of the last step.
    fn js_path(
        &mut self,
        tx: &IndexTx<'_>,
        file: i64,
        src: i64,
        segs: &[String],
    ) -> Result<Option<(Value, Rule)>, IndexError> {
        let Some((first, rest)) = segs.split_first() else {
            return Ok(None);
        };
        let start = match first.as_str() {
            "this" => self
                .enclosing_class(tx, src)?
                .map(|c| (Value::Instance(c), Rule::SelfRef)),
            _ => self.js_name(tx, file, Some(src), first)?,
        };
        let Some((mut value, mut rule)) = start else {
            return Ok(None);
        };
        for seg in rest {
            (value, rule) = self.js_attr(tx, value, seg, 0)?;
        }
        Ok(Some((value, rule)))
    }

    /// Member `name` of a value, with the rule that found it.
    fn js_attr(
        &mut self,
        tx: &IndexTx<'_>,
        value: Value,
        name: &str,
        depth: usize,
    ) -> Result<(Value, Rule), IndexError> {
        Ok(match value {
            Value::Module(m) => match self.js_export(tx, m, name, depth)? {
                Some(found) => (found, Rule::Module),
                None => match self.js_expando(tx, m, name, depth)? {
                    Some(found) => (found, Rule::Module),
                    // A CommonJS module that exports a class (`module.exports = Cmd`):
                    // `Cmd.f()` is a static member of that class.
                    None => match self.js_export(tx, m, "default", depth)? {
                        Some(Value::Def(d)) if d.kind == DefKind::Type => {
                            (self.py_class_attr(tx, &d, name)?, Rule::Class)
                        }
                        // `module.exports = require('./lib/x')`: the members of that
                        // module.
                        Some(inner @ Value::Module(_)) if depth < MAX_DEPTH => {
                            self.js_attr(tx, inner, name, depth + 1)?
                        }
                        _ => (Value::Unknown, Rule::Module),
                    },
                },
            },
            Value::Def(d) if d.kind == DefKind::Type => {
                (self.py_class_attr(tx, &d, name)?, Rule::Class)
            }
            // A TypeScript namespace: its own members.
            Value::Def(d) if d.kind == DefKind::Module => {
                let member = self.py_own_member(tx, &d, name)?;
                (member.map_or(Value::Unknown, Value::Def), Rule::Module)
            }
            Value::Instance(d) => (self.py_class_attr(tx, &d, name)?, Rule::Typed),
            Value::External => (Value::External, Rule::Module),
            _ => (Value::Unknown, Rule::Module),
        })
    }

    /// Member `name` of a CommonJS module whose `module.exports` is a module-level name
    /// `X` that the module sets `X.name = require(..)` on, at the top level
    /// (`async.sync = require('./lib/sync'); module.exports = async`): what that
    /// `require` gives. `None` when the module does not.
    fn js_expando(
        &mut self,
        tx: &IndexTx<'_>,
        m: i64,
        name: &str,
        depth: usize,
    ) -> Result<Option<Value>, IndexError> {
        let exports = self.symbols.exports_of(tx, m)?;
        let Some((_, local)) = exports.iter().find(|(exported, _)| exported == "default") else {
            return Ok(None);
        };
        if local.contains('.') {
            return Ok(None);
        }
        let property = format!("{local}.{name}");
        self.js_imported(tx, m, &property, depth)
    }

    /// The value a receiver type hint stands for: a type as written (`Foo`, `ns.Foo`)
    /// or a call result (`Foo()` from `new Foo()`, `make()` with `make` declared to
    /// return a class).
    fn js_type(
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
            let Some((value, _)) = self.js_path(tx, file, src, &segs)? else {
                return Ok(if GLOBALS.contains(&segs[0].as_str()) {
                    Value::External
                } else {
                    Value::Unknown
                });
            };
            let value = match value {
                Value::Module(m) => self
                    .js_export(tx, m, "default", 0)?
                    .unwrap_or(Value::Unknown),
                other => other,
            };
            return match value {
                Value::Def(d) if d.kind == DefKind::Type => Ok(Value::Instance(d)),
                Value::Def(d) if d.kind.is_callable() => self.js_returns(tx, &d),
                Value::External => Ok(Value::External),
                _ => Ok(Value::Unknown),
            };
        }
        let Some(segs) = dotted(hint) else {
            return Ok(Value::Unknown);
        };
        Ok(match self.js_path(tx, file, src, &segs)? {
            Some((Value::Def(d), _)) if d.kind == DefKind::Type => Value::Instance(d),
            Some((Value::External, _)) => Value::External,
            None if GLOBALS.contains(&segs[0].as_str()) => Value::External,
            _ => Value::Unknown,
        })
    }

    /// What calling function `f` returns, by its declared return type (read in `f`'s
    /// own scope).
    fn js_returns(&mut self, tx: &IndexTx<'_>, f: &Definition) -> Result<Value, IndexError> {
        let Some(signature) = self.symbols.signature(tx, f.id)? else {
            return Ok(Value::Unknown);
        };
        let Some(ty) = annotations::typescript_return(&signature) else {
            return Ok(Value::Unknown);
        };
        let Some(segs) = dotted(&ty) else {
            return Ok(Value::Unknown);
        };
        Ok(match self.js_path(tx, f.file_id, f.id, &segs)? {
            Some((Value::Def(d), _)) if d.kind == DefKind::Type => Value::Instance(d),
            Some((Value::External, _)) => Value::External,
            _ => Value::Unknown,
        })
    }
}

/// What the text of a signature says a function definition is bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    /// A declaration of its name (`function f`, `const f = () =>`, a class, a method).
    Declared,
    /// Assigned to a CommonJS export (`exports.f = ..`, `module.exports.f = ..`).
    Exported,
    /// Assigned to `module.exports` itself (`module.exports = function f ..`): the
    /// module's default export, which the extractor records under the function's own
    /// name; that name is bound nowhere else (not in the module, not as `.f`).
    Default,
    /// Assigned to another object's property (`Foo.prototype.f = ..`, `obj.f = ..`).
    Member,
}

/// How a signature binds its name: from the text before its parameters, an
/// assignment to a dotted target is not a declaration.
fn binding_of(signature: &str) -> Binding {
    let head = signature.split('(').next().unwrap_or(signature);
    let Some((target, _)) = head.split_once('=') else {
        return Binding::Declared;
    };
    let target = target.trim();
    if !target.contains('.') && !target.contains('[') {
        return Binding::Declared;
    }
    let object = target.rsplit_once('.').map_or("", |(o, _)| o.trim());
    if target == "module.exports" {
        Binding::Default
    } else if matches!(object, "exports" | "module.exports") {
        Binding::Exported
    } else {
        Binding::Member
    }
}

impl Resolver {
    /// How definition `d` binds its name (see [`Binding`]); an object literal's member
    /// (`api::run` directly under the module) binds none.
    fn js_binding_of(
        &mut self,
        tx: &IndexTx<'_>,
        d: &Definition,
        scope: Option<&Definition>,
    ) -> Result<Binding, IndexError> {
        let expected = match scope {
            Some(p) => d.qualified_name.as_ref() == format!("{}::{}", p.qualified_name, d.name),
            None => d.qualified_name.as_ref() == d.name.as_ref(),
        };
        if !expected {
            return Ok(Binding::Member);
        }
        if !d.kind.is_callable() {
            return Ok(Binding::Declared);
        }
        Ok(match self.symbols.signature(tx, d.id)? {
            Some(signature) => binding_of(&signature),
            None => Binding::Declared,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_of_reads_the_assignment_target() {
        assert_eq!(binding_of("function f(x)"), Binding::Declared);
        assert_eq!(binding_of("const f = (x) =>"), Binding::Declared);
        assert_eq!(binding_of("exports.f = function f(x)"), Binding::Exported);
        assert_eq!(
            binding_of("module.exports.f = function ()"),
            Binding::Exported
        );
        // The module's default export under the function's own name.
        assert_eq!(
            binding_of("module.exports = function f(x)"),
            Binding::Default
        );
        assert_eq!(binding_of("Foo.prototype.f = function ()"), Binding::Member);
        assert_eq!(binding_of("obj.f = () =>"), Binding::Member);
    }
}
