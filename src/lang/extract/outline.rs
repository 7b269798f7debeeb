//! The outline of a file: definitions found by the query, nested by byte range into
//! symbols with parents and qualified names; and lookups of the symbol around a byte.
//!
//! Nesting is computed from byte ranges alone (tree nodes nest or are disjoint), with
//! one sort and one stack sweep: O(n log n) in the number of definitions.

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::super::{Symbol, SymbolKind};
use super::text::{line_of, offset};

/// A symbol (or a Rust `impl` scope) as the query found it.
pub(super) struct Definition {
    /// `None` for a scope: it names what it contains but is not a symbol.
    kind: Option<SymbolKind>,
    name: String,
    /// A scope written with the name rather than around it: a Go method's receiver type
    /// (`List`), a C++ out-of-line definition's `Foo` in `Foo::bar`. Goes between the
    /// enclosing symbols and the name in the qualified name.
    written_scope: Option<String>,
    signature: String,
    start_byte: u32,
    end_byte: u32,
    start_line: u32,
    end_line: u32,
}

impl Definition {
    /// A symbol spanning from the start of `start` (the node itself, or a node inside it
    /// where the span begins, e.g. after Java annotations) to the end of `node`.
    pub(super) fn symbol(
        kind: SymbolKind,
        node: Node,
        start: Node,
        name: String,
        written_scope: Option<String>,
        signature: String,
    ) -> Self {
        Self::new(Some(kind), node, start, name, written_scope, signature)
    }

    pub(super) fn scope(node: Node, name: String) -> Self {
        Self::new(None, node, node, name, None, String::new())
    }

    fn new(
        kind: Option<SymbolKind>,
        node: Node,
        start_node: Node,
        name: String,
        written_scope: Option<String>,
        signature: String,
    ) -> Self {
        let start_node = if start_node.start_byte() < node.end_byte() {
            start_node
        } else {
            node
        };
        let start = start_node.start_position();
        let end = node.end_position();
        // A node ending at column 0 ends with the line break of the line before.
        let end_row = if end.column == 0 && end.row > start.row {
            end.row - 1
        } else {
            end.row
        };
        Definition {
            kind,
            name,
            written_scope,
            signature,
            start_byte: offset(start_node.start_byte()),
            end_byte: offset(node.end_byte()),
            start_line: line_of(start.row),
            end_line: line_of(end_row),
        }
    }
}

/// Kinds whose direct functions are methods (a Rust `impl` scope counts too; so do
/// C++ structs and Java enums, which hold member functions).
fn holds_methods(kind: Option<SymbolKind>) -> bool {
    matches!(
        kind,
        None | Some(
            SymbolKind::Class
                | SymbolKind::Trait
                | SymbolKind::Interface
                | SymbolKind::Struct
                | SymbolKind::Enum
        )
    )
}

/// One open container during the sweep.
struct Open {
    end_byte: u32,
    kind: Option<SymbolKind>,
    qualified_name: String,
    /// The innermost symbol at or around this container.
    symbol: Option<usize>,
}

/// Nests `definitions` into symbols sorted by start byte (outer first on ties), with
/// parents, qualified names (`Outer::Inner::name`, impl scopes and written scopes
/// included) and functions directly inside a class, struct, enum, trait, interface or
/// impl turned into methods.
pub(super) fn symbols(mut definitions: Vec<Definition>) -> Vec<Symbol> {
    definitions.sort_by_key(|d| (d.start_byte, Reverse(d.end_byte), d.kind.is_none()));
    definitions.dedup_by(|b, a| {
        a.start_byte == b.start_byte && a.end_byte == b.end_byte && a.kind == b.kind
    });
    let mut symbols: Vec<Symbol> = Vec::with_capacity(definitions.len());
    let mut open: Vec<Open> = Vec::new();
    // Qualified names of the modules (C++ namespaces) seen so far.
    let mut namespaces: HashSet<String> = HashSet::new();
    let scoped = |container: Option<&Open>, scope: &str| match container {
        Some(top) => format!("{}::{scope}", top.qualified_name),
        None => scope.to_string(),
    };
    for definition in definitions {
        while open.last().is_some_and(|top| {
            top.end_byte <= definition.start_byte || top.end_byte < definition.end_byte
        }) {
            open.pop();
        }
        let container = open.last();
        let local_name = match &definition.written_scope {
            Some(scope) => format!("{scope}::{}", definition.name),
            None => definition.name.clone(),
        };
        let qualified_name = match container {
            Some(top) => format!("{}::{local_name}", top.qualified_name),
            None => local_name,
        };
        let parent = container.and_then(|top| top.symbol);
        let kind = match definition.kind {
            Some(SymbolKind::Function) if container.is_some_and(|top| holds_methods(top.kind)) => {
                Some(SymbolKind::Method)
            }
            // `void Foo::bar() {}` is a method unless `Foo` is a namespace of this file.
            Some(SymbolKind::Function) => match &definition.written_scope {
                Some(scope) if !namespaces.contains(&scoped(container, scope)) => {
                    Some(SymbolKind::Method)
                }
                _ => Some(SymbolKind::Function),
            },
            kind => kind,
        };
        if kind == Some(SymbolKind::Module) {
            namespaces.insert(qualified_name.clone());
        }
        let symbol = match kind {
            Some(kind) => {
                symbols.push(Symbol {
                    kind,
                    name: definition.name,
                    qualified_name: qualified_name.clone(),
                    signature: definition.signature,
                    start_line: definition.start_line,
                    end_line: definition.end_line,
                    start_byte: definition.start_byte,
                    end_byte: definition.end_byte,
                    parent,
                    returns: None,
                });
                Some(symbols.len() - 1)
            }
            None => parent,
        };
        open.push(Open {
            end_byte: definition.end_byte,
            kind,
            qualified_name,
            symbol,
        });
    }
    symbols
}

/// Finds the innermost symbol containing a byte, for bytes given in ascending order:
/// one pass over the symbols for all queries.
pub(super) struct Locator<'a> {
    symbols: &'a [Symbol],
    next: usize,
    stack: Vec<usize>,
}

impl<'a> Locator<'a> {
    pub(super) fn new(symbols: &'a [Symbol]) -> Self {
        Locator {
            symbols,
            next: 0,
            stack: Vec::new(),
        }
    }

    /// The innermost symbol with `start_byte <= position < end_byte`. `position` must
    /// not be smaller than in the previous call.
    pub(super) fn innermost(&mut self, position: u32) -> Option<usize> {
        while let Some(symbol) = self.symbols.get(self.next) {
            if symbol.start_byte > position {
                break;
            }
            self.pop_until(|top| top.end_byte > symbol.start_byte);
            self.stack.push(self.next);
            self.next += 1;
        }
        self.pop_until(|top| top.end_byte > position);
        self.stack.last().copied()
    }

    fn pop_until(&mut self, keep: impl Fn(&Symbol) -> bool) {
        while let Some(&top) = self.stack.last() {
            if keep(&self.symbols[top]) {
                break;
            }
            self.stack.pop();
        }
    }
}

/// For each symbol, the symbols that own what is written inside it, computed in one
/// pass (a parent always precedes its children).
pub(super) struct Owners {
    /// Innermost function or method at or around the symbol.
    callable: Vec<Option<usize>>,
    /// Innermost class at or around the symbol.
    class: Vec<Option<usize>>,
    /// Innermost class, interface, struct or enum at or around the symbol.
    type_like: Vec<Option<usize>>,
}

impl Owners {
    pub(super) fn new(symbols: &[Symbol]) -> Self {
        let mut owners = Owners {
            callable: Vec::with_capacity(symbols.len()),
            class: Vec::with_capacity(symbols.len()),
            type_like: Vec::with_capacity(symbols.len()),
        };
        for (index, symbol) in symbols.iter().enumerate() {
            let inherited = |list: &Vec<Option<usize>>| {
                symbol
                    .parent
                    .and_then(|parent| list.get(parent).copied().flatten())
            };
            let own = |yes: bool| yes.then_some(index);
            let callable = own(symbol.kind.is_callable()).or_else(|| inherited(&owners.callable));
            let class = own(symbol.kind == SymbolKind::Class).or_else(|| inherited(&owners.class));
            let type_like = own(matches!(
                symbol.kind,
                SymbolKind::Class | SymbolKind::Interface | SymbolKind::Struct | SymbolKind::Enum
            ))
            .or_else(|| inherited(&owners.type_like));
            owners.callable.push(callable);
            owners.class.push(class);
            owners.type_like.push(type_like);
        }
        owners
    }

    /// What a call inside symbol `index` is attributed to: the innermost function or
    /// method around it, else the innermost class, else nothing.
    pub(super) fn code(&self, index: usize) -> Option<usize> {
        let at = |list: &Vec<Option<usize>>| list.get(index).copied().flatten();
        at(&self.callable).or_else(|| at(&self.class))
    }

    /// The class, interface, struct or enum whose header holds a base found inside
    /// `index`.
    pub(super) fn type_like(&self, index: usize) -> Option<usize> {
        self.type_like.get(index).copied().flatten()
    }
}

/// Struct and enum symbols by qualified name and by bare name (first wins), for
/// matching Rust `impl Trait for Type` to a type of the same file.
pub(super) struct TypeIndex<'a> {
    symbols: &'a [Symbol],
    by_qualified_name: HashMap<&'a str, usize>,
    by_name: HashMap<&'a str, usize>,
}

impl<'a> TypeIndex<'a> {
    pub(super) fn new(symbols: &'a [Symbol]) -> Self {
        let mut by_qualified_name = HashMap::new();
        let mut by_name = HashMap::new();
        for (index, symbol) in symbols.iter().enumerate() {
            if matches!(symbol.kind, SymbolKind::Struct | SymbolKind::Enum) {
                by_qualified_name
                    .entry(symbol.qualified_name.as_str())
                    .or_insert(index);
                by_name.entry(symbol.name.as_str()).or_insert(index);
            }
        }
        TypeIndex {
            symbols,
            by_qualified_name,
            by_name,
        }
    }

    /// The struct or enum called `name` that an `impl` inside symbol `container`
    /// refers to: the one declared next to the impl first, else any of this file.
    pub(super) fn find(&self, container: Option<usize>, name: &str) -> Option<usize> {
        let local = container
            .and_then(|index| self.symbols.get(index))
            .map(|outer| format!("{}::{name}", outer.qualified_name));
        local
            .as_deref()
            .or(Some(name))
            .and_then(|qualified| self.by_qualified_name.get(qualified))
            .or_else(|| self.by_name.get(name))
            .copied()
    }
}

/// Byte ranges (nested or disjoint, as tree nodes are) merged into sorted disjoint
/// ranges.
pub(super) fn disjoint(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match merged.last_mut() {
            Some(last) if start < last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}
