//! Local scopes of one file: which names a call's callee or receiver is bound to, and
//! what the file says about the type of a receiver.
//!
//! The query captures every place a name is bound (`@local.name`: parameters,
//! assignment targets, loop and `as` targets; `@field.name`: `self.x = ...` and class
//! attributes) with an optional annotation (`@local.type`) or value (`@local.value`).
//! Each binding belongs to the innermost symbol around it (a function, a class body,
//! or the module). A call then looks its root name up from the innermost scope
//! outwards, as the language does:
//!
//! - a definition (`def`, `class`, `function`) in a scope shadows everything outside it
//!   and is left to `index::resolve` (the name is not local);
//! - a binding in a scope makes the name a local variable there: a bare call through it
//!   (`cb()` where `cb` is a parameter) is not a call of a same-named definition; a
//!   method call on it (`x.m()`) keeps the receiver's type when every binding of the
//!   name in that scope agrees on one (an annotation wins over values);
//! - `global x` / `nonlocal x` make `x` not local to the scope that declares it;
//! - class bodies are scopes only for code written directly in them (Python, JS): a
//!   method sees the module, not its class's attributes — unless the language makes
//!   members visible inside methods (Java, C++).
//!
//! Flow-insensitive by design: a name bound to a `Foo()` in one branch and a `Bar()` in
//! another has no receiver type. Cost: one sort of the bindings and a hash lookup per
//! scope level of each call, O((b + c) log b).

use std::collections::HashMap;

use super::super::{Symbol, SymbolKind};
use super::outline::Locator;

/// What a binding says about the value of its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Hint {
    /// A declared type, as written after normalization (`Foo`, `models.Foo`).
    Type(String),
    /// The value is the result of calling this callee (`Foo()`, `make()`).
    Value(String),
    /// The value is another name of the same scope (`self.engine = engine`): it has
    /// that name's type. Followed one step.
    Name(String),
}

/// How a name is bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BindingKind {
    /// A local variable or parameter of the enclosing scope.
    Local,
    /// `global x` / `nonlocal x`: not local to the enclosing scope.
    NotLocal,
    /// An attribute of the enclosing class, set through `object` (`self`, `this`) or,
    /// with `object` `None`, declared in the class body.
    Field { object: Option<String> },
}

/// A binding as the query found it, before its scope is known.
#[derive(Debug, Clone)]
pub(super) struct PendingBinding {
    /// Byte offset of the bound name.
    pub position: u32,
    pub name: String,
    pub kind: BindingKind,
    pub hint: Option<Hint>,
}

/// Language rules of scoping.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rules {
    /// Class bodies are visible from the methods inside them (Java, C++).
    pub class_scope_in_methods: bool,
    /// Names a method's receiver is written with (`self`, `cls`; `this`).
    pub receivers: &'static [&'static str],
    /// A binding that states no type (an untyped closure parameter, a pattern, a value
    /// the extractor cannot read) makes the name's type unknown in its scope, instead
    /// of leaving it to the bindings that state one (Rust, Go, Java, C: a name is often
    /// bound again in one function, by shadowing or by closures sharing a name).
    pub strict: bool,
}

/// What the scopes say about one call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct CallScope {
    /// See `CallRef::local`.
    pub local: bool,
    /// See `CallRef::receiver_type`.
    pub receiver_type: Option<String>,
}

/// A call to annotate: where it is and how it is written.
pub(super) struct CallSite<'a> {
    pub position: u32,
    pub name: &'a str,
    pub qualifier: Option<&'a str>,
}

/// The bindings of one scope and name.
#[derive(Default)]
struct Entry {
    local: bool,
    not_local: bool,
    hints: Vec<Hint>,
    /// Some binding states no type.
    unhinted: bool,
}

fn is_type_like(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Class
            | SymbolKind::Struct
            | SymbolKind::Interface
            | SymbolKind::Enum
            | SymbolKind::Trait
    )
}

/// The one type the hints agree on: the annotation if all annotations agree, else the
/// value if all values agree, else none.
fn agreed(hints: &[Hint]) -> Option<String> {
    let mut types = hints.iter().filter_map(|h| match h {
        Hint::Type(t) => Some(t),
        _ => None,
    });
    if let Some(first) = types.next() {
        return types.all(|t| t == first).then(|| first.clone());
    }
    let mut values = hints.iter().map(|h| match h {
        Hint::Value(v) | Hint::Type(v) => Some(v),
        Hint::Name(_) => None,
    });
    let first = values.next()??;
    values.all(|v| v == Some(first)).then(|| first.clone())
}

/// The leading identifier of a qualifier (`a` of `a.b`, `x` of `x::y`, `self` of
/// `self.x`); `None` when it starts otherwise (a literal, a call, `(...)`).
fn root_name(qualifier: &str) -> Option<&str> {
    let end = qualifier
        .char_indices()
        .find(|&(_, c)| !(c == '_' || c == '$' || c.is_alphanumeric()))
        .map_or(qualifier.len(), |(i, _)| i);
    let root = &qualifier[..end];
    (!root.is_empty() && !root.starts_with(|c: char| c.is_ascii_digit())).then_some(root)
}

/// Computes [`CallScope`] for each call (given in ascending position order) from the
/// file's symbols and bindings.
pub(super) fn annotate(
    rules: Rules,
    symbols: &[Symbol],
    mut bindings: Vec<PendingBinding>,
    calls: &[CallSite<'_>],
    module_aliases: &[&str],
) -> Vec<CallScope> {
    if bindings.is_empty() {
        return vec![CallScope::default(); calls.len()];
    }
    // Definitions by (parent, name): they shadow bindings of their scope.
    let mut defs: HashMap<(Option<usize>, &str), ()> = HashMap::new();
    for s in symbols {
        defs.insert((s.parent, s.name.as_str()), ());
    }
    // Types by (parent, name), for methods written outside their type's body.
    let types: HashMap<(Option<usize>, &str), usize> = symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| is_type_like(s.kind))
        .map(|(i, s)| ((s.parent, s.name.as_str()), i))
        .collect();
    // The innermost class around a symbol (the owner of `self.x = ...`); for a method
    // written outside its type's body (a Rust `impl`, whose block is no symbol), the
    // type of the file its qualified name names (`Foo::m` → `Foo`).
    let class_of = |start: Option<usize>| -> Option<usize> {
        let mut at = start;
        while let Some(i) = at {
            if is_type_like(symbols[i].kind) {
                return Some(i);
            }
            at = symbols[i].parent;
        }
        let mut at = start;
        while let Some(i) = at {
            let s = &symbols[i];
            if s.kind == SymbolKind::Method {
                let mut segs = s.qualified_name.rsplit("::");
                segs.next();
                if let Some(&t) = segs.next().and_then(|ty| types.get(&(s.parent, ty))) {
                    return Some(t);
                }
            }
            at = s.parent;
        }
        None
    };

    bindings.sort_by_key(|b| b.position);
    let mut locator = Locator::new(symbols);
    let binding_scopes: Vec<Option<usize>> = bindings
        .iter()
        .map(|b| locator.innermost(b.position))
        .collect();
    // Local bindings without `Name` hints first, so `x = y` can take `y`'s type.
    let mut scopes: HashMap<(Option<usize>, &str), Entry> = HashMap::new();
    for (b, &scope) in bindings.iter().zip(&binding_scopes) {
        match &b.kind {
            BindingKind::Local => {
                let entry = scopes.entry((scope, b.name.as_str())).or_default();
                entry.local = true;
                entry.hints.extend(b.hint.iter().cloned());
            }
            BindingKind::NotLocal => {
                scopes
                    .entry((scope, b.name.as_str()))
                    .or_default()
                    .not_local = true;
            }
            BindingKind::Field { .. } => {}
        }
    }
    let follow = |hint: &Option<Hint>, scope: Option<usize>| -> Option<Hint> {
        match hint {
            Some(Hint::Name(n)) => lookup(rules, symbols, &defs, &scopes, scope, n)
                .and_then(|(_, entry)| agreed(&entry.hints))
                .map(Hint::Type),
            other => other.clone(),
        }
    };
    let followed: Vec<Option<Hint>> = bindings
        .iter()
        .zip(&binding_scopes)
        .map(|(b, &scope)| follow(&b.hint, scope))
        .collect();
    let mut scopes: HashMap<(Option<usize>, &str), Entry> = HashMap::new();
    let mut fields: HashMap<(usize, &str), Vec<Hint>> = HashMap::new();
    for ((b, &scope), hint) in bindings.iter().zip(&binding_scopes).zip(followed) {
        match &b.kind {
            BindingKind::Local => {
                let entry = scopes.entry((scope, b.name.as_str())).or_default();
                entry.local = true;
                entry.unhinted |= hint.is_none();
                entry.hints.extend(hint.iter().cloned());
                // An annotated name in a class body is also an attribute of the class.
                if let Some(class) = scope.filter(|&i| is_type_like(symbols[i].kind)) {
                    fields
                        .entry((class, b.name.as_str()))
                        .or_default()
                        .extend(hint.iter().cloned());
                }
            }
            BindingKind::NotLocal => {
                scopes
                    .entry((scope, b.name.as_str()))
                    .or_default()
                    .not_local = true;
            }
            BindingKind::Field { object } => {
                let through_receiver = object
                    .as_deref()
                    .is_none_or(|o| rules.receivers.contains(&o));
                if let (true, Some(class)) = (through_receiver, class_of(scope)) {
                    fields
                        .entry((class, b.name.as_str()))
                        .or_default()
                        .extend(hint.iter().cloned());
                }
            }
        }
    }

    let mut locator = Locator::new(symbols);
    calls
        .iter()
        .map(|call| {
            let innermost = locator.innermost(call.position);
            let root = match call.qualifier {
                None => Some(call.name),
                Some(q) => root_name(q),
            };
            let Some(root) = root else {
                return CallScope::default();
            };
            let mut out = CallScope::default();
            if let Some((bound_in, entry)) = lookup(rules, symbols, &defs, &scopes, innermost, root)
            {
                // A module-level alias (`OMD = OrderedMultiDict`) names what its path
                // names: the resolver follows it (see `CallRef::local`).
                out.local = !(bound_in.is_none() && module_aliases.contains(&root));
                if call.qualifier == Some(root) && !(rules.strict && entry.unhinted) {
                    out.receiver_type = agreed(&entry.hints);
                }
            }
            // `self.x.m()`: the type of the attribute `x` of the caller's class.
            if let Some(q) = call.qualifier {
                if let Some((receiver, attribute)) = q.split_once('.') {
                    let simple = !attribute.is_empty()
                        && attribute
                            .chars()
                            .all(|c| c == '_' || c == '$' || c.is_alphanumeric());
                    if simple && rules.receivers.contains(&receiver) {
                        if let Some(class) = class_of(innermost) {
                            if let Some(hints) = fields.get(&(class, attribute)) {
                                out.receiver_type = agreed(hints);
                            }
                        }
                    }
                }
            }
            out
        })
        .collect()
}

/// The bindings `root` refers to from the innermost scope `start`, with the scope that
/// binds it (`None`: the module), or `None` when it is a definition or not bound in
/// the file.
fn lookup<'m, 'n>(
    rules: Rules,
    symbols: &[Symbol],
    defs: &HashMap<(Option<usize>, &'n str), ()>,
    scopes: &'m HashMap<(Option<usize>, &'n str), Entry>,
    start: Option<usize>,
    root: &'n str,
) -> Option<(Option<usize>, &'m Entry)> {
    let mut scope = start;
    let mut first = true;
    loop {
        let visible = match scope {
            Some(i) if is_type_like(symbols[i].kind) => first || rules.class_scope_in_methods,
            _ => true,
        };
        if visible {
            if defs.contains_key(&(scope, root)) {
                return None;
            }
            // `global x` / `nonlocal x` send the lookup outwards.
            if let Some(entry) = scopes.get(&(scope, root)) {
                if entry.local && !entry.not_local {
                    return Some((scope, entry));
                }
            }
        }
        scope = symbols[scope?].parent;
        first = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_prefers_annotations() {
        let t = |s: &str| Hint::Type(s.into());
        let v = |s: &str| Hint::Value(s.into());
        assert_eq!(agreed(&[v("Foo()"), t("Bar")]), Some("Bar".into()));
        assert_eq!(agreed(&[v("Foo()"), v("Foo()")]), Some("Foo()".into()));
        assert_eq!(agreed(&[v("Foo()"), v("Bar()")]), None);
        assert_eq!(agreed(&[t("A"), t("B")]), None);
        assert_eq!(agreed(&[]), None);
    }

    #[test]
    fn roots_of_qualifiers() {
        assert_eq!(root_name("a.b"), Some("a"));
        assert_eq!(root_name("self.x"), Some("self"));
        assert_eq!(root_name("x::y"), Some("x"));
        assert_eq!(root_name("$el"), Some("$el"));
        assert_eq!(root_name("\"s\""), None);
        assert_eq!(root_name("(a)"), None);
        assert_eq!(root_name("1"), None);
    }
}
