//! Query-driven extraction: one tree-sitter parse and one pass of the language's query
//! (`src/lang/queries/*.scm`) turn a file's bytes into [`FileFacts`]. For C, Python,
//! Rust and Java, the pass is a walker (`extract/walkers/`): one walk of the tree that
//! finds exactly the query's matches, at about half the cost of tree-sitter's query
//! cursor (which tests run beside it to compare).
//!
//! The queries only *find* nodes; the capture names are the protocol between the `.scm`
//! files and this module:
//!
//! | capture                  | meaning                                                   |
//! |--------------------------|-----------------------------------------------------------|
//! | `@definition.<kind>`     | a symbol's node (its span); kind = a [`SymbolKind`] name  |
//! | `@name`                  | the symbol's name node                                    |
//! | `@value`                 | the function/class bound to the name (`const f = () => ..`); its `body` field ends the signature |
//! | `@declaration`           | where the signature starts, if not at the symbol's node   |
//! | `@body`                  | where the signature ends, when the node has no `body` field (Go `struct { .. }`) |
//! | `@declarator`            | C/C++: a function's declarator, walked to find its name (instead of `@name`) |
//! | `@receiver`              | Go: a method's receiver, whose type scopes the method's name |
//! | `@scope`, `@scope.name`  | a Rust `impl`, a JS object literal bound to a variable: names its methods (`Foo::m`), not a symbol |
//! | `@import.<kind>`         | an import node (`import`, `reexport`, `use`, `mod`, `include`, `include_system`) |
//! | `@import.statement`      | the statement whose line an import reports                |
//! | `@call`, `@call.arguments` | a call's callee (`f`, `a.b`, `a::b`) and its arguments  |
//! | `@reference`             | a name used as a value, not called (`f`, `a.b`): an argument, an assigned or returned value, a literal's element |
//! | `@inherit.extends` / `@inherit.implements` | a base named in a class/interface header |
//! | `@inherit.trait`, `@inherit.type` | Rust `impl Trait for Type`                       |
//! | `@type_checking.condition`, `@type_checking.block` | Python `if TYPE_CHECKING:` |
//! | `@local.name` (+ `@local.type` / `@local.value`) | a name bound in its scope (parameter, assignment, loop or `as` target), with its annotation or value |
//! | `@local.global`          | `global x` / `nonlocal x`: not bound in this scope        |
//! | `@field.name` (+ `@field.object`, `@field.type` / `@field.value`) | an attribute of the enclosing class (`self.x = ..`, a declared field) |
//! | `@export.name` + `@export.local`, `@export.default` | JS/TS `export { a as b }`, `export default a` |
//! | `@returns.yield`         | Python `yield`: its function is a generator (see [`Symbol::returns`]) |
//!
//! Captures whose name starts with `_` are ignored; any other unknown name is a setup
//! error. Everything the queries cannot say (nesting, qualified names, method vs
//! function, enclosing symbols) is computed here from byte ranges, in
//! `extract/outline.rs`. The per-language modules only take nodes apart (use trees, Python
//! import statements, callees, string literals, C declarators, Go receivers, Java
//! annotations). Queries use no predicates, so no
//! Rust code runs per candidate match inside tree-sitter.
//!
//! C and C++ sources are parsed after `extract/macros.rs` blanks the macro idioms that
//! derail the grammar (export macros, bare macro lines), keeping every offset.
//!
//! Threading: compiled queries are shared (`OnceLock`); parsers and query cursors are
//! per thread (`thread_local!`). Nothing here panics on any input.

use std::cell::RefCell;
use std::sync::OnceLock;

use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator, Tree, TreeCursor};

use super::{
    CallRef, ExportRef, FileFacts, ImportKind, ImportRef, InheritRef, LangError, Language, Symbol,
    SymbolKind,
};

mod bindings;
mod c;
mod ecmascript;
mod go;
mod java;
mod macros;
mod outline;
mod python;
mod rust;
mod text;
mod walkers;

use bindings::{BindingKind, Hint, PendingBinding};
use outline::{Definition, Locator, Owners, TypeIndex};
use text::{line_of, offset};

/// Plain JavaScript: javascript.scm (whose node types exist in the TypeScript and TSX
/// grammars too) followed by javascript_params.scm (JavaScript's own parameter shapes).
const JAVASCRIPT_QUERY: &str = concat!(
    include_str!("queries/javascript.scm"),
    "\n",
    include_str!("queries/javascript_params.scm")
);
/// TypeScript and TSX: javascript.scm followed by typescript.scm (the TypeScript grammar
/// is a superset of the JavaScript one).
const TYPESCRIPT_QUERY: &str = concat!(
    include_str!("queries/javascript.scm"),
    "\n",
    include_str!("queries/typescript.scm")
);
const PYTHON_QUERY: &str = include_str!("queries/python.scm");
const RUST_QUERY: &str = include_str!("queries/rust.scm");
const GO_QUERY: &str = include_str!("queries/go.scm");
const JAVA_QUERY: &str = include_str!("queries/java.scm");
const C_QUERY: &str = include_str!("queries/c.scm");
/// C++: c.scm followed by cpp.scm (the C++ grammar is a superset of the C one).
const CPP_QUERY: &str = concat!(
    include_str!("queries/c.scm"),
    "\n",
    include_str!("queries/cpp.scm")
);

/// Names (which may be computed, `[Symbol.iterator]`) keep at most this many characters.
const MAX_NAME_CHARS: usize = 200;

/// Callee qualifiers keep at most this many characters.
const MAX_QUALIFIER_CHARS: usize = 100;

/// Which node-shape rules apply (JS, TS and TSX share theirs; so do C and C++).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Rust,
    Python,
    EcmaScript,
    Go,
    Java,
    C,
}

impl Family {
    /// The scoping rules of the family (see `extract/bindings.rs`).
    fn scoping(self) -> bindings::Rules {
        let (class_scope_in_methods, receivers): (bool, &'static [&'static str]) = match self {
            Family::Python => (false, &["self", "cls"]),
            Family::EcmaScript => (false, &["this"]),
            Family::Rust => (false, &["self"]),
            Family::Go => (false, &[]),
            Family::Java | Family::C => (true, &["this"]),
        };
        bindings::Rules {
            class_scope_in_methods,
            receivers,
            strict: !matches!(self, Family::Python | Family::EcmaScript),
        }
    }

    fn of(lang: Language) -> Family {
        match lang {
            Language::Rust => Family::Rust,
            Language::Python => Family::Python,
            Language::JavaScript | Language::TypeScript | Language::Tsx => Family::EcmaScript,
            Language::Go => Family::Go,
            Language::Java => Family::Java,
            Language::C | Language::Cpp => Family::C,
        }
    }
}

/// What a capture name means (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Definition(SymbolKind),
    Name,
    Value,
    Declaration,
    Body,
    Declarator,
    Receiver,
    Scope,
    ScopeName,
    Import(ImportKind),
    ImportStatement,
    Call,
    CallArguments,
    Reference,
    ReferenceHolder,
    Yield,
    Extends,
    Implements,
    ImplTrait,
    ImplType,
    TypeCheckingCondition,
    TypeCheckingBlock,
    LocalName,
    LocalType,
    LocalValue,
    LocalGlobal,
    FieldName,
    FieldObject,
    FieldType,
    FieldValue,
    ExportName,
    ExportLocal,
    ExportDefault,
    Ignored,
}

impl Role {
    fn from_capture_name(name: &str) -> Option<Role> {
        Some(match name {
            "definition.module" => Role::Definition(SymbolKind::Module),
            "definition.function" => Role::Definition(SymbolKind::Function),
            "definition.method" => Role::Definition(SymbolKind::Method),
            "definition.class" => Role::Definition(SymbolKind::Class),
            "definition.struct" => Role::Definition(SymbolKind::Struct),
            "definition.enum" => Role::Definition(SymbolKind::Enum),
            "definition.trait" => Role::Definition(SymbolKind::Trait),
            "definition.interface" => Role::Definition(SymbolKind::Interface),
            "name" => Role::Name,
            "value" => Role::Value,
            "declaration" => Role::Declaration,
            "body" => Role::Body,
            "declarator" => Role::Declarator,
            "receiver" => Role::Receiver,
            "scope" => Role::Scope,
            "scope.name" => Role::ScopeName,
            "import.import" => Role::Import(ImportKind::Import),
            "import.reexport" => Role::Import(ImportKind::ReExport),
            "import.use" => Role::Import(ImportKind::Use),
            "import.mod" => Role::Import(ImportKind::Mod),
            "import.include" => Role::Import(ImportKind::Include),
            "import.include_system" => Role::Import(ImportKind::SystemInclude),
            "import.statement" => Role::ImportStatement,
            "call" => Role::Call,
            "call.arguments" => Role::CallArguments,
            "reference" => Role::Reference,
            "reference.holder" => Role::ReferenceHolder,
            "inherit.extends" => Role::Extends,
            "inherit.implements" => Role::Implements,
            "inherit.trait" => Role::ImplTrait,
            "inherit.type" => Role::ImplType,
            "type_checking.condition" => Role::TypeCheckingCondition,
            "type_checking.block" => Role::TypeCheckingBlock,
            "local.name" => Role::LocalName,
            "local.type" => Role::LocalType,
            "local.value" => Role::LocalValue,
            "local.global" => Role::LocalGlobal,
            "field.name" => Role::FieldName,
            "field.object" => Role::FieldObject,
            "field.type" => Role::FieldType,
            "field.value" => Role::FieldValue,
            "export.name" => Role::ExportName,
            "export.local" => Role::ExportLocal,
            "export.default" => Role::ExportDefault,
            "returns.yield" => Role::Yield,
            _ if name.starts_with('_') => Role::Ignored,
            _ => return None,
        })
    }
}

/// A language's grammar with its compiled query and the role of each capture index.
struct Compiled {
    grammar: tree_sitter::Language,
    query: Query,
    roles: Vec<Role>,
    /// C, Python, Rust, Java: the walk that finds the query's matches instead of the
    /// query cursor (`extract/walkers/`).
    walker: Option<walkers::Walker>,
}

/// How many languages there are: the size of the per-language tables.
const LANGUAGES: usize = Language::ALL.len();

fn slot(lang: Language) -> usize {
    match lang {
        Language::Rust => 0,
        Language::Python => 1,
        Language::JavaScript => 2,
        Language::TypeScript => 3,
        Language::Tsx => 4,
        Language::Go => 5,
        Language::Java => 6,
        Language::C => 7,
        Language::Cpp => 8,
    }
}

/// The compiled query of `lang`, built on first use and shared by all threads.
fn compiled(lang: Language) -> Result<&'static Compiled, LangError> {
    static COMPILED: [OnceLock<Result<Compiled, String>>; LANGUAGES] =
        [const { OnceLock::new() }; LANGUAGES];
    COMPILED[slot(lang)]
        .get_or_init(|| compile(lang))
        .as_ref()
        .map_err(|message| LangError::Setup {
            lang: lang.name(),
            message: message.clone(),
        })
}

/// Builds the compiled query of `lang` if no thread has yet.
pub(super) fn prepare(lang: Language) -> Result<(), LangError> {
    compiled(lang).map(|_| ())
}

fn compile(lang: Language) -> Result<Compiled, String> {
    let (grammar, source): (tree_sitter::Language, &str) = match lang {
        Language::Rust => (tree_sitter_rust::LANGUAGE.into(), RUST_QUERY),
        Language::Python => (tree_sitter_python::LANGUAGE.into(), PYTHON_QUERY),
        Language::JavaScript => (tree_sitter_javascript::LANGUAGE.into(), JAVASCRIPT_QUERY),
        Language::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            TYPESCRIPT_QUERY,
        ),
        Language::Tsx => (
            tree_sitter_typescript::LANGUAGE_TSX.into(),
            TYPESCRIPT_QUERY,
        ),
        Language::Go => (tree_sitter_go::LANGUAGE.into(), GO_QUERY),
        Language::Java => (tree_sitter_java::LANGUAGE.into(), JAVA_QUERY),
        Language::C => (tree_sitter_c::LANGUAGE.into(), C_QUERY),
        Language::Cpp => (tree_sitter_cpp::LANGUAGE.into(), CPP_QUERY),
    };
    let query = Query::new(&grammar, source).map_err(|e| format!("query: {e}"))?;
    let roles = query
        .capture_names()
        .iter()
        .map(|name| Role::from_capture_name(name).ok_or_else(|| format!("unknown capture @{name}")))
        .collect::<Result<Vec<_>, _>>()?;
    let walker = walkers::Walker::new(lang, &grammar);
    Ok(Compiled {
        grammar,
        query,
        roles,
        walker,
    })
}

/// Per-thread parsing state: one parser per language (switching a parser's language
/// is not free) and a reusable query cursor.
#[derive(Default)]
struct Workspace {
    parsers: [Option<Parser>; LANGUAGES],
    cursor: Option<QueryCursor>,
}

thread_local! {
    static WORKSPACE: RefCell<Workspace> = RefCell::new(Workspace::default());
}

impl Workspace {
    fn run(
        &mut self,
        lang: Language,
        source: &[u8],
        finder: Finder,
    ) -> Result<FileFacts, LangError> {
        let compiled = compiled(lang)?;
        let parser = match &mut self.parsers[slot(lang)] {
            Some(parser) => parser,
            empty => {
                let mut parser = Parser::new();
                parser
                    .set_language(&compiled.grammar)
                    .map_err(|e| LangError::Setup {
                        lang: lang.name(),
                        message: e.to_string(),
                    })?;
                empty.insert(parser)
            }
        };
        // C/C++: macro idioms the grammar cannot read are blanked in a same-length copy
        // (extract/macros.rs); names and signatures still come from `source`.
        let parsed = match lang {
            Language::C | Language::Cpp => macros::neutralize(source, lang == Language::Cpp),
            _ => macros::Neutralized {
                text: std::borrow::Cow::Borrowed(source),
                renames: Vec::new(),
            },
        };
        let tree = parser
            .parse(parsed.text.as_ref(), None)
            .ok_or(LangError::Parse { lang: lang.name() })?;
        let cursor = self.cursor.get_or_insert_with(QueryCursor::new);
        Ok(collect(
            Family::of(lang),
            compiled,
            &tree,
            Source {
                text: source,
                renames: &parsed.renames,
            },
            cursor,
            finder,
        ))
    }
}

pub(super) fn extract(lang: Language, source: &[u8]) -> Result<FileFacts, LangError> {
    WORKSPACE
        .try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut workspace) => workspace.run(lang, source, Finder::Fastest),
            // Unreachable in practice (extract does not re-enter itself); stay correct.
            Err(_) => Workspace::default().run(lang, source, Finder::Fastest),
        })
        // The thread is being torn down: use a throwaway workspace.
        .unwrap_or_else(|_| Workspace::default().run(lang, source, Finder::Fastest))
}

/// [`extract`] with the query cursor for every language, those with a walker included:
/// the reference the walkers are tested against.
#[cfg(test)]
fn extract_with_query(lang: Language, source: &[u8]) -> Result<FileFacts, LangError> {
    Workspace::default().run(lang, source, Finder::Query)
}

/// The matches of `lang`'s query in `source`, found by the query cursor and by the
/// language's walker (`None` without one): each match's captures as one `Debug` line,
/// sorted, so tests compare the two as multisets.
#[cfg(test)]
fn matches_both_ways(lang: Language, source: &[u8]) -> Option<(Vec<String>, Vec<String>)> {
    let compiled = compiled(lang).ok()?;
    let walker = compiled.walker.as_ref()?;
    let mut parser = Parser::new();
    parser.set_language(&compiled.grammar).ok()?;
    let parsed = match lang {
        Language::C | Language::Cpp => macros::neutralize(source, lang == Language::Cpp).text,
        _ => std::borrow::Cow::Borrowed(source),
    };
    let tree = parser.parse(parsed.as_ref(), None)?;
    let root = tree.root_node();
    let mut queried = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(&compiled.query, root, source);
    while let Some(m) = matches.next() {
        let mut parts = Parts::default();
        for capture in m.captures() {
            if let Some(role) = compiled.roles.get(capture.index as usize) {
                parts.set(*role, capture.node);
            }
        }
        queried.push(format!("{parts:?}"));
    }
    let mut walked = Vec::new();
    walker.matches(root, |parts| walked.push(format!("{parts:?}")));
    queried.sort();
    walked.sort();
    Some((queried, walked))
}

/// The captures of one query match, by role.
#[derive(Debug, Default)]
struct Parts<'t> {
    definition: Option<(SymbolKind, Node<'t>)>,
    name: Option<Node<'t>>,
    value: Option<Node<'t>>,
    declaration: Option<Node<'t>>,
    body: Option<Node<'t>>,
    declarator: Option<Node<'t>>,
    receiver: Option<Node<'t>>,
    scope: Option<Node<'t>>,
    scope_name: Option<Node<'t>>,
    import: Option<(ImportKind, Node<'t>)>,
    import_statement: Option<Node<'t>>,
    call: Option<Node<'t>>,
    call_arguments: Option<Node<'t>>,
    reference: Option<Node<'t>>,
    reference_holder: Option<Node<'t>>,
    inherit: Option<(bool, Node<'t>)>,
    impl_trait: Option<Node<'t>>,
    impl_type: Option<Node<'t>>,
    type_checking_condition: Option<Node<'t>>,
    type_checking_block: Option<Node<'t>>,
    local_name: Option<Node<'t>>,
    local_type: Option<Node<'t>>,
    local_value: Option<Node<'t>>,
    local_global: Option<Node<'t>>,
    field_name: Option<Node<'t>>,
    field_object: Option<Node<'t>>,
    field_type: Option<Node<'t>>,
    field_value: Option<Node<'t>>,
    export_name: Option<Node<'t>>,
    export_local: Option<Node<'t>>,
    export_default: Option<Node<'t>>,
    yield_expression: Option<Node<'t>>,
}

impl<'t> Parts<'t> {
    fn set(&mut self, role: Role, node: Node<'t>) {
        match role {
            Role::Definition(kind) => self.definition = Some((kind, node)),
            Role::Name => self.name = Some(node),
            Role::Value => self.value = Some(node),
            Role::Declaration => self.declaration = Some(node),
            Role::Body => self.body = Some(node),
            Role::Declarator => self.declarator = Some(node),
            Role::Receiver => self.receiver = Some(node),
            Role::Scope => self.scope = Some(node),
            Role::ScopeName => self.scope_name = Some(node),
            Role::Import(kind) => self.import = Some((kind, node)),
            Role::ImportStatement => self.import_statement = Some(node),
            Role::Call => self.call = Some(node),
            Role::CallArguments => self.call_arguments = Some(node),
            Role::Reference => self.reference = Some(node),
            Role::ReferenceHolder => self.reference_holder = Some(node),
            Role::Extends => self.inherit = Some((false, node)),
            Role::Implements => self.inherit = Some((true, node)),
            Role::ImplTrait => self.impl_trait = Some(node),
            Role::ImplType => self.impl_type = Some(node),
            Role::TypeCheckingCondition => self.type_checking_condition = Some(node),
            Role::TypeCheckingBlock => self.type_checking_block = Some(node),
            Role::LocalName => self.local_name = Some(node),
            Role::LocalType => self.local_type = Some(node),
            Role::LocalValue => self.local_value = Some(node),
            Role::LocalGlobal => self.local_global = Some(node),
            Role::FieldName => self.field_name = Some(node),
            Role::FieldObject => self.field_object = Some(node),
            Role::FieldType => self.field_type = Some(node),
            Role::FieldValue => self.field_value = Some(node),
            Role::ExportName => self.export_name = Some(node),
            Role::ExportLocal => self.export_local = Some(node),
            Role::ExportDefault => self.export_default = Some(node),
            Role::Yield => self.yield_expression = Some(node),
            Role::Ignored => {}
        }
    }
}

/// Where a `@reference.holder` node keeps the names it uses as values, and the node
/// kinds that count as names there.
enum ValueSlot {
    /// Any named child of one of these kinds (`f(a, b.c)`, `return f`, `[f, g]`).
    Children(&'static [&'static str]),
    /// The child in this field, when of one of these kinds (`x = f`, `key=f`).
    Field(&'static str, &'static [&'static str]),
}

/// A callee taken apart: the called name and what precedes it.
struct Callee<'t> {
    name: Node<'t>,
    qualifier: Option<Node<'t>>,
}

/// A call found by the query, before its enclosing symbol is known.
struct PendingCall {
    position: u32,
    name: String,
    qualifier: Option<String>,
    line: u32,
    column: u32,
    constructor: bool,
    path: bool,
    /// A name used as a value (`@reference`), not a call.
    value: bool,
}

/// A base named in a class/interface header, before its owner is known.
struct PendingInherit {
    position: u32,
    name: String,
    qualifier: Option<String>,
    implements: bool,
    line: u32,
}

/// A Rust `impl Trait for Type`, before `Type` is looked up among the symbols.
struct PendingImpl {
    position: u32,
    trait_name: String,
    type_name: String,
    line: u32,
}

/// Accumulates the facts of one file while the query runs.
struct Collector<'s, 't> {
    family: Family,
    source: &'s [u8],
    /// See [`Source::renames`].
    renames: &'s [(usize, String)],
    cursor: TreeCursor<'t>,
    definitions: Vec<Definition>,
    imports: Vec<(u32, ImportRef)>,
    calls: Vec<PendingCall>,
    inherits: Vec<PendingInherit>,
    impls: Vec<PendingImpl>,
    type_checking: Vec<(u32, u32)>,
    bindings: Vec<PendingBinding>,
    exports: Vec<(u32, ExportRef)>,
    /// Python `return` statements with a value, and `yield`s (`None`): the value's
    /// receiver hint, `None` when it gives none.
    returns: Vec<(u32, Option<String>)>,
}

/// How [`collect`] finds the query's matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Finder {
    /// The language's walker (`extract/walkers/`) where it has one, else the query
    /// cursor.
    Fastest,
    /// The query cursor for every language (tests compare the two).
    #[cfg_attr(not(test), allow(dead_code))]
    Query,
}

/// The file [`collect`] reads names and signatures from.
struct Source<'s> {
    /// The file as written.
    text: &'s [u8],
    /// C: functions named otherwise than their text says, by the offset of their
    /// name in the parsed text ([`macros::Neutralized::renames`]); in offset order.
    renames: &'s [(usize, String)],
}

fn collect(
    family: Family,
    compiled: &Compiled,
    tree: &Tree,
    source: Source<'_>,
    query_cursor: &mut QueryCursor,
    finder: Finder,
) -> FileFacts {
    let root = tree.root_node();
    let renames = source.renames;
    let source = source.text;
    let mut collector = Collector {
        family,
        source,
        renames,
        cursor: root.walk(),
        definitions: Vec::new(),
        imports: Vec::new(),
        calls: Vec::new(),
        inherits: Vec::new(),
        impls: Vec::new(),
        type_checking: Vec::new(),
        bindings: Vec::new(),
        exports: Vec::new(),
        returns: Vec::new(),
    };
    if let (Some(walker), Finder::Fastest) = (&compiled.walker, finder) {
        walker.matches(root, |parts| collector.add(parts));
        return collector.finish(root.has_error());
    }
    let mut matches = query_cursor.matches(&compiled.query, root, source);
    while let Some(m) = matches.next() {
        let mut parts = Parts::default();
        for capture in m.captures() {
            if let Some(role) = compiled.roles.get(capture.index as usize) {
                parts.set(*role, capture.node);
            }
        }
        collector.add(parts);
    }
    collector.finish(root.has_error())
}

impl<'s, 't> Collector<'s, 't> {
    fn text(&self, node: Node) -> String {
        text::node_text(self.source, node)
    }

    /// A symbol's or callee's name: quotes dropped (`'key'() {}`, `declare module "m"`)
    /// and, in the JavaScript family, the `#` of private members (`#run` is `run`, as
    /// universal-ctags names it; the signature keeps the `#`).
    /// A name as written (JavaScript private members keep their `#`: `#exec` and
    /// `exec` are two members of one class).
    fn name(&self, node: Node) -> String {
        text::unquoted(text::collapsed(self.source, node, MAX_NAME_CHARS))
    }

    fn add(&mut self, parts: Parts<'t>) {
        if let Some((kind, node)) = parts.definition {
            self.add_definition(kind, node, &parts);
        } else if let (Some(scope), Some(name)) = (parts.scope, parts.scope_name) {
            let name = rust::type_name(name, self.source)
                .unwrap_or_else(|| text::collapsed(self.source, name, MAX_NAME_CHARS));
            self.definitions.push(Definition::scope(scope, name));
        } else if let Some((kind, node)) = parts.import {
            self.add_import(kind, node, parts.import_statement.unwrap_or(node));
        } else if let Some(callee) = parts.call {
            self.add_call(callee, parts.call_arguments);
        } else if let Some(value) = parts.reference {
            self.add_reference(value);
        } else if let Some(holder) = parts.reference_holder {
            if self.family == Family::Python && holder.kind() == "return_statement" {
                if let Some(hint) = python::return_hint(holder, self.source) {
                    self.returns.push((offset(holder.start_byte()), hint));
                }
            }
            self.add_references_in(holder);
        } else if let Some(node) = parts.yield_expression {
            self.returns.push((offset(node.start_byte()), None));
        } else if let Some((implements, base)) = parts.inherit {
            let name = match self.family {
                Family::Python => python::base_name(base, self.source),
                Family::EcmaScript => ecmascript::base_name(base, self.source),
                Family::Go => go::base_name(base, self.source),
                Family::Java => java::base_name(base, self.source),
                Family::C => c::base_name(base, self.source),
                Family::Rust => None,
            };
            let qualifier = match self.family {
                Family::Python => python::base_qualifier(base, self.source),
                _ => None,
            };
            if let Some(name) = name {
                self.inherits.push(PendingInherit {
                    position: offset(base.start_byte()),
                    name,
                    qualifier,
                    implements,
                    line: line_of(base.start_position().row),
                });
            }
        } else if let (Some(trait_node), Some(type_node)) = (parts.impl_trait, parts.impl_type) {
            if let (Some(trait_name), Some(type_name)) = (
                rust::type_name(trait_node, self.source),
                rust::type_name(type_node, self.source),
            ) {
                self.impls.push(PendingImpl {
                    position: offset(trait_node.start_byte()),
                    trait_name,
                    type_name,
                    line: line_of(trait_node.start_position().row),
                });
            }
        } else if let (Some(condition), Some(block)) =
            (parts.type_checking_condition, parts.type_checking_block)
        {
            if python::is_type_checking(condition, self.source) {
                self.type_checking
                    .push((offset(block.start_byte()), offset(block.end_byte())));
            }
        } else if let Some(name) = parts.local_name {
            self.add_binding(
                name,
                BindingKind::Local,
                parts.local_type,
                parts.local_value,
            );
        } else if let Some(name) = parts.local_global {
            self.add_binding(name, BindingKind::NotLocal, None, None);
        } else if let Some(name) = parts.field_name {
            let object = parts.field_object.map(|o| self.text(o));
            self.add_binding(
                name,
                BindingKind::Field { object },
                parts.field_type,
                parts.field_value,
            );
        } else if let Some(local) = parts.export_default {
            let local = self.name(local);
            if !local.is_empty() {
                let line = line_of(parts.export_default.map_or(0, |n| n.start_position().row));
                let position = offset(parts.export_default.map_or(0, |n| n.start_byte()));
                self.exports.push((
                    position,
                    ExportRef {
                        name: "default".to_string(),
                        local,
                        line,
                    },
                ));
            }
        } else if let (Some(name), Some(local)) = (parts.export_name, parts.export_local) {
            let (name, local_text) = (self.name(name), self.name(local));
            if !name.is_empty() && !local_text.is_empty() {
                self.exports.push((
                    offset(local.start_byte()),
                    ExportRef {
                        name,
                        local: local_text,
                        line: line_of(local.start_position().row),
                    },
                ));
            }
        }
    }

    /// Records a name bound in its scope, with the receiver type its annotation or
    /// value gives (see `extract/bindings.rs`). A value that is itself a function or
    /// class is a definition (a symbol), not a variable.
    fn add_binding(
        &mut self,
        name: Node<'t>,
        kind: BindingKind,
        annotation: Option<Node<'t>>,
        value: Option<Node<'t>>,
    ) {
        if self.family != Family::Rust
            && value.is_some_and(|v| {
                matches!(
                    v.kind(),
                    "lambda"
                        | "arrow_function"
                        | "function_expression"
                        | "function"
                        | "generator_function"
                        | "class"
                        | "func_literal"
                        | "closure_expression"
                )
            })
        {
            return;
        }
        let text = self.name(name);
        if text.is_empty() {
            return;
        }
        if self.family == Family::Python && kind == BindingKind::Local {
            if let Some(local) = value.and_then(|v| python::module_alias(name, v, self.source)) {
                self.exports.push((
                    offset(name.start_byte()),
                    ExportRef {
                        name: text.clone(),
                        local,
                        line: line_of(name.start_position().row),
                    },
                ));
            }
        }
        let hint = match self.family {
            Family::Python => annotation
                .and_then(|a| python::type_hint(a, self.source))
                .map(Hint::Type)
                .or_else(|| value.and_then(|v| python::value_hint(v, self.source))),
            Family::EcmaScript => {
                // A name bound by `require(..)` is an import (its binding is recorded
                // with the import), not a variable.
                if ecmascript::bound_by_require(name, self.source) {
                    return;
                }
                annotation
                    .and_then(|a| ecmascript::type_hint(a, self.source))
                    .map(Hint::Type)
                    .or_else(|| value.and_then(|v| ecmascript::value_hint(v, self.source)))
            }
            Family::Rust => annotation
                .and_then(|a| rust::type_hint(a, self.source))
                .map(Hint::Type)
                .or_else(|| value.and_then(|v| rust::value_hint(v, self.source))),
            Family::Go => annotation
                .and_then(|a| go::type_hint(a, self.source))
                .map(Hint::Type)
                .or_else(|| value.and_then(|v| go::value_hint(v, self.source))),
            Family::Java => annotation
                .and_then(|a| java::type_hint(a, self.source))
                .map(Hint::Type)
                .or_else(|| value.and_then(|v| java::value_hint(v, self.source))),
            Family::C => annotation
                .and_then(|a| c::type_hint(a, self.source))
                .map(Hint::Type),
        };
        self.bindings.push(PendingBinding {
            position: offset(name.start_byte()),
            name: text,
            kind,
            hint,
        });
    }

    fn add_definition(&mut self, kind: SymbolKind, node: Node<'t>, parts: &Parts<'t>) {
        // C/C++ functions: the name is inside the declarator, with the scope written
        // before it (`Foo::bar`; outline decides whether that makes a method).
        let (name_node, scope) = match (parts.declarator, parts.name) {
            (Some(declarator), _) => match c::function_name(declarator, self.source) {
                Some(found) => found,
                None => return,
            },
            (None, Some(name)) if self.family == Family::C => c::type_name(name, self.source),
            (None, Some(name)) => (name, None),
            (None, None) => return,
        };
        let scope = match parts.receiver {
            Some(receiver) => go::receiver_type(receiver, self.source),
            None => scope,
        };
        let mut name = match self
            .renames
            .binary_search_by_key(&name_node.start_byte(), |(at, _)| *at)
        {
            Ok(found) => self.renames[found].1.clone(),
            Err(_) => self.name(name_node),
        };
        if self.family == Family::EcmaScript && name == "exports" {
            // `module.exports = function foo () {}`: the function's own name, if any.
            match parts
                .value
                .and_then(|value| value.child_by_field_name("name"))
            {
                Some(own) => name = self.name(own),
                None => return,
            }
        }
        if name.is_empty() {
            return;
        }
        // TypeScript overloads: the signatures and the implementation after them are
        // one function, the last declaration of the run.
        if self.family == Family::EcmaScript && ecmascript::is_overload(node, &name, self.source) {
            return;
        }
        // Where the span starts: after Java annotations, else at the node.
        let start = match self.family {
            Family::Java => java::after_annotations(node, &mut self.cursor),
            _ => node,
        };
        let head = parts.value.unwrap_or(node);
        let signature_start = match (parts.declaration, self.family) {
            (Some(declaration), _) => declaration.start_byte(),
            (None, Family::Go) => go::declaration_start(node),
            (None, _) => start.start_byte(),
        };
        let signature_end = match parts.body {
            Some(body) => body.start_byte(),
            None => text::head_end(head, &mut self.cursor).unwrap_or(node.end_byte()),
        };
        let signature = text::signature(self.source, signature_start, signature_end);
        self.definitions.push(Definition::symbol(
            kind, node, start, name, scope, signature,
        ));
    }

    /// Where an import sits: `(conditional, deferred)` (see [`ImportRef`]), from the
    /// statements and functions enclosing `node`. Rust imports are neither.
    fn import_context(&self, node: Node<'t>) -> (bool, bool) {
        let (mut conditional, mut deferred) = (false, false);
        let mut child = node;
        while let Some(parent) = child.parent() {
            match (self.family, parent.kind()) {
                (Family::Python, "function_definition" | "lambda") => deferred = true,
                (Family::Python, "try_statement") => conditional = true,
                (Family::Python, "if_statement") => {
                    let type_checking_body = parent.child_by_field_name("consequence")
                        == Some(child)
                        && parent
                            .child_by_field_name("condition")
                            .is_some_and(|c| python::is_type_checking(c, self.source));
                    conditional |= !type_checking_body;
                }
                (Family::EcmaScript, kind) if super::is_ecmascript_function(kind) => {
                    deferred = true
                }
                (
                    Family::EcmaScript,
                    "if_statement" | "try_statement" | "switch_statement" | "ternary_expression",
                ) => conditional = true,
                (Family::Rust, _) => return (false, false),
                _ => {}
            }
            if conditional && deferred {
                break;
            }
            child = parent;
        }
        (conditional, deferred)
    }

    fn add_import(&mut self, kind: ImportKind, node: Node<'t>, statement: Node<'t>) {
        let position = offset(statement.start_byte());
        let line = line_of(statement.start_position().row);
        let (conditional, deferred) = self.import_context(statement);
        let plain = |specifier: String| ImportRef {
            kind,
            specifier,
            names: Vec::new(),
            bindings: Vec::new(),
            line,
            type_checking: false,
            conditional,
            deferred,
        };
        match (self.family, kind) {
            (Family::Rust, ImportKind::Use) => {
                let mut paths = Vec::new();
                rust::use_paths(node, self.source, &mut paths);
                for (path, local) in paths {
                    let imported = match local.as_str() {
                        "*" => "*".to_string(),
                        _ => path.rsplit("::").next().unwrap_or(&path).to_string(),
                    };
                    let import = ImportRef {
                        bindings: vec![super::ImportBinding::new(local, imported)],
                        ..plain(path)
                    };
                    self.imports.push((position, import));
                }
            }
            (Family::Rust, _) => {
                let name = self.text(node);
                self.imports.push((position, plain(name)));
            }
            (Family::Python, _) => {
                for (specifier, names, bindings) in
                    python::imports(node, self.source, &mut self.cursor)
                {
                    let import = ImportRef {
                        names,
                        bindings,
                        ..plain(specifier)
                    };
                    self.imports.push((position, import));
                }
            }
            (Family::EcmaScript, _) => {
                if let Some(specifier) = ecmascript::string_value(node, self.source) {
                    let import = ImportRef {
                        bindings: ecmascript::import_bindings(statement, self.source),
                        ..plain(specifier)
                    };
                    self.imports.push((position, import));
                }
            }
            (Family::Go, _) => {
                if let Some((path, local)) = go::import_spec(node, self.source) {
                    let import = ImportRef {
                        names: local.into_iter().collect(),
                        ..plain(path)
                    };
                    self.imports.push((position, import));
                }
            }
            (Family::Java, _) => {
                if let Some(specifier) = java::import(node, self.source) {
                    self.imports.push((position, plain(specifier)));
                }
            }
            (Family::C, _) => {
                if let Some(path) = c::include_path(node, self.source) {
                    self.imports.push((position, plain(path)));
                }
            }
        }
    }

    fn add_call(&mut self, callee: Node<'t>, arguments: Option<Node<'t>>) {
        let parsed = match self.family {
            Family::Rust => rust::callee(callee),
            Family::Python => python::callee(callee),
            Family::Go => go::callee(callee),
            Family::Java => java::callee(callee),
            Family::C => c::callee(callee),
            Family::EcmaScript => match ecmascript::call_site(callee, arguments, self.source) {
                ecmascript::CallSite::Call(parsed) => Some(parsed),
                ecmascript::CallSite::Import(kind, specifier) => {
                    let line = line_of(callee.start_position().row);
                    let (conditional, deferred) = self.import_context(callee);
                    let bindings = match kind {
                        ImportKind::Require | ImportKind::Dynamic => {
                            ecmascript::require_bindings(callee, self.source)
                        }
                        _ => Vec::new(),
                    };
                    // `module.exports = require("s")` (or `require("s").f`): this
                    // module's default is what that names.
                    if bindings
                        .iter()
                        .any(|b| b.local == ecmascript::REEXPORTED_MODULE)
                    {
                        self.exports.push((
                            offset(callee.start_byte()),
                            ExportRef {
                                name: "default".to_string(),
                                local: ecmascript::REEXPORTED_MODULE.to_string(),
                                line,
                            },
                        ));
                    }
                    let import = ImportRef {
                        kind,
                        specifier,
                        names: Vec::new(),
                        bindings,
                        line,
                        type_checking: false,
                        conditional,
                        deferred,
                    };
                    self.imports.push((offset(callee.start_byte()), import));
                    None
                }
                ecmascript::CallSite::Other => None,
            },
        };
        let Some(Callee { name, qualifier }) = parsed else {
            return;
        };
        let name_text = self.name(name);
        if name_text.is_empty() {
            return;
        }
        // `new Foo()` (JS/TS, C++) and `new Foo()` in Java (the whole creation
        // expression is the callee there).
        // `Node::parent` walks down from the root (O(depth)): asked only where the
        // grammar has such a parent.
        let constructor = callee.kind() == "object_creation_expression"
            || (matches!(self.family, Family::EcmaScript | Family::C)
                && callee
                    .parent()
                    .is_some_and(|p| p.kind() == "new_expression"));
        // `a::b::f()`, `ns::f()`: the qualifier is the path of a scoped name.
        let path = matches!(self.family, Family::Rust | Family::C)
            && qualifier
                .and_then(|q| q.parent())
                .is_some_and(|p| matches!(p.kind(), "scoped_identifier" | "qualified_identifier"));
        // C++ `a::B::f()`: the whole scope before the name, not just its first part.
        let qualifier_text = match (self.family, path, qualifier) {
            (Family::C, true, Some(q)) => {
                let scope = self
                    .source
                    .get(q.start_byte()..name.start_byte())
                    .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
                    .unwrap_or_default();
                let mut scope: String = scope.chars().filter(|c| !c.is_whitespace()).collect();
                while scope.ends_with(':') {
                    scope.pop();
                }
                Some(scope.chars().take(MAX_QUALIFIER_CHARS).collect::<String>())
            }
            (_, _, q) => q.map(|q| text::collapsed(self.source, q, MAX_QUALIFIER_CHARS)),
        };
        self.calls.push(PendingCall {
            position: offset(callee.start_byte()),
            name: name_text,
            qualifier: qualifier_text.filter(|q| !q.is_empty()),
            line: line_of(name.start_position().row),
            column: u32::try_from(name.start_position().column).unwrap_or(u32::MAX),
            constructor,
            path,
            value: false,
        });
        // `self.buffer.write()` reads `self.buffer` first: a value reference, which
        // names the method when `buffer` is a property.
        if self.family == Family::Python {
            if let Some(read) = qualifier.and_then(|q| python::self_attribute(q, self.source)) {
                self.add_reference(read);
            }
        }
    }

    /// Records a name used as a value (`f`, `a.b.f`, `self.f`): taken apart like a
    /// callee; other expressions are not references.
    /// The names a `@reference.holder` node (an argument list, the right side of an
    /// assignment, ...) uses as values: its children, or the one child in a field, that
    /// are names (see [`ValueSlot`]). The query captures the holder alone because a
    /// pattern with a parent step (`(argument_list (identifier) @reference)`) costs
    /// tree-sitter milliseconds of analysis per parent kind when the query compiles, and
    /// the compile is a large part of an incremental run that parses one file.
    fn add_references_in(&mut self, holder: Node<'t>) {
        let slot = match self.family {
            Family::Python => python::value_slot(holder.kind()),
            Family::EcmaScript => ecmascript::value_slot(holder.kind()),
            _ => None,
        };
        // JS/TS `a || b`, `a ?? b`, Python `a or b`: either side may be the value
        // (`opts.isFile || defaultIsFile`, `key or default_key`).
        let family = self.family;
        let mut candidates: Vec<Node<'t>> = Vec::new();
        let mut add = |node: Node<'t>| match family {
            Family::EcmaScript => ecmascript::alternatives(node, self.source, &mut candidates),
            Family::Python => python::alternatives(node, &mut candidates),
            _ => candidates.push(node),
        };
        let kinds = match slot {
            Some(ValueSlot::Children(kinds)) => {
                let mut cursor = holder.walk();
                for child in holder.named_children(&mut cursor) {
                    add(child);
                }
                kinds
            }
            Some(ValueSlot::Field(field, kinds)) => {
                if let Some(value) = holder.child_by_field_name(field) {
                    add(value);
                }
                kinds
            }
            None => return,
        };
        for value in candidates {
            if kinds.contains(&value.kind()) {
                self.add_reference(value);
            }
        }
    }

    fn add_reference(&mut self, node: Node<'t>) {
        let parsed = match self.family {
            Family::Python => python::callee(node),
            Family::EcmaScript => ecmascript::value_reference(node),
            _ => None,
        };
        let Some(Callee { name, qualifier }) = parsed else {
            return;
        };
        let name_text = self.name(name);
        if name_text.is_empty() {
            return;
        }
        let qualifier_text = qualifier
            .map(|q| text::collapsed(self.source, q, MAX_QUALIFIER_CHARS))
            .filter(|q| !q.is_empty());
        self.calls.push(PendingCall {
            position: offset(node.start_byte()),
            name: name_text,
            qualifier: qualifier_text,
            line: line_of(name.start_position().row),
            column: u32::try_from(name.start_position().column).unwrap_or(u32::MAX),
            constructor: false,
            path: false,
            value: true,
        });
    }

    fn finish(mut self, has_errors: bool) -> FileFacts {
        let mut symbols = outline::symbols(std::mem::take(&mut self.definitions));
        set_returns(&mut symbols, std::mem::take(&mut self.returns));

        let owners = Owners::new(&symbols);
        self.calls.sort_by_key(|call| call.position);
        let sites: Vec<bindings::CallSite> = self
            .calls
            .iter()
            .map(|call| bindings::CallSite {
                position: call.position,
                name: &call.name,
                qualifier: call.qualifier.as_deref(),
            })
            .collect();
        let module_aliases: Vec<&str> = self.exports.iter().map(|(_, e)| e.name.as_str()).collect();
        let module_aliases = if self.family == Family::Python {
            module_aliases
        } else {
            Vec::new()
        };
        let scopes = bindings::annotate(
            self.family.scoping(),
            &symbols,
            std::mem::take(&mut self.bindings),
            &sites,
            &module_aliases,
        );
        drop(sites);
        let mut locator = Locator::new(&symbols);
        let receivers = self.family.scoping().receivers;
        let (mut calls, mut references) = (Vec::new(), Vec::new());
        for (call, scope) in self.calls.into_iter().zip(scopes) {
            let enclosing = locator
                .innermost(call.position)
                .and_then(|index| owners.code(index));
            // A value read from a local variable or parameter names no definition
            // (`self.f` and `cls.f` do: the receiver is the enclosing class).
            if call.value
                && scope.local
                && !call
                    .qualifier
                    .as_deref()
                    .is_some_and(|q| receivers.contains(&q.split(['.', '?']).next().unwrap_or(q)))
            {
                continue;
            }
            let reference = CallRef {
                enclosing,
                name: call.name,
                qualifier: call.qualifier,
                line: call.line,
                column: call.column,
                receiver_type: scope.receiver_type,
                local: scope.local,
                constructor: call.constructor,
                path: call.path,
            };
            if call.value {
                references.push(reference);
            } else {
                calls.push(reference);
            }
        }

        // Class headers, and Rust impls matched to a struct/enum of this file.
        let mut inherits: Vec<(u32, InheritRef)> = Vec::new();
        self.inherits.sort_by_key(|inherit| inherit.position);
        let mut locator = Locator::new(&symbols);
        for inherit in self.inherits {
            let owner = locator
                .innermost(inherit.position)
                .and_then(|index| owners.type_like(index));
            if let Some(symbol) = owner {
                inherits.push((
                    inherit.position,
                    InheritRef {
                        symbol,
                        name: inherit.name,
                        qualifier: inherit.qualifier,
                        implements: inherit.implements,
                        line: inherit.line,
                    },
                ));
            }
        }
        self.impls.sort_by_key(|pending| pending.position);
        let types = TypeIndex::new(&symbols);
        let mut locator = Locator::new(&symbols);
        for pending in self.impls {
            let container = locator.innermost(pending.position);
            if let Some(symbol) = types.find(container, &pending.type_name) {
                inherits.push((
                    pending.position,
                    InheritRef {
                        symbol,
                        name: pending.trait_name,
                        qualifier: None,
                        implements: true,
                        line: pending.line,
                    },
                ));
            }
        }
        inherits.sort_by_key(|(position, _)| *position);

        self.imports.sort_by_key(|(position, _)| *position);
        let mut blocks = outline::disjoint(self.type_checking).into_iter().peekable();
        let imports = self
            .imports
            .into_iter()
            .map(|(position, mut import)| {
                while blocks.next_if(|&(_, end)| end <= position).is_some() {}
                import.type_checking = blocks.peek().is_some_and(|&(start, _)| start <= position);
                import
            })
            .collect();

        self.exports.sort_by_key(|(position, _)| *position);
        FileFacts {
            symbols,
            imports,
            calls,
            references,
            inherits: inherits.into_iter().map(|(_, inherit)| inherit).collect(),
            exports: self.exports.into_iter().map(|(_, export)| export).collect(),
            has_errors,
        }
    }
}

/// Sets [`Symbol::returns`] of each function from the `return`s and `yield`s written
/// directly in it (`None` for a yield or a value that gives no hint): the one hint when
/// they all give the same.
fn set_returns(symbols: &mut [Symbol], mut returns: Vec<(u32, Option<String>)>) {
    if returns.is_empty() {
        return;
    }
    returns.sort_by_key(|(position, _)| *position);
    let mut per_symbol: Vec<(usize, Option<String>)> = Vec::new();
    let mut locator = Locator::new(symbols);
    for (position, hint) in returns {
        if let Some(index) = locator.innermost(position) {
            per_symbol.push((index, hint));
        }
    }
    per_symbol.sort_by_key(|(index, _)| *index);
    for group in per_symbol.chunk_by(|a, b| a.0 == b.0) {
        let (index, first) = &group[0];
        let agreed = first.is_some() && group.iter().all(|(_, h)| h == first);
        if agreed && symbols[*index].kind.is_callable() {
            symbols[*index].returns = first.clone();
        }
    }
}

#[cfg(test)]
mod tests;
