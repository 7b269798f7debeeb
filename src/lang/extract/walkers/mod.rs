//! The matches of a language's query, found by one walk of the tree instead of
//! tree-sitter's query cursor (C: `c.rs`, Python: `python.rs`, Rust: `rust.rs`, Java:
//! `java.rs`).
//!
//! A query cursor visits every node of the tree and, at each one, works out its field
//! and supertypes (`ts_tree_cursor_current_status`) and tries the query's patterns. On
//! the Linux kernel that cost 44% of the parse itself, on the Python standard library
//! 48%. A walker visits every node with a plain `TreeCursor` and, at the node kinds
//! where a pattern starts, reads the children by field as the patterns do. It costs
//! about half of the query cursor's visit.
//!
//! What a walker yields is exactly what the query yields: for each match, the same
//! captures (as [`Parts`]). Matches come in tree order of the node they start at, not
//! in the order the query cursor finishes them; the collector sorts every list it keeps
//! by position, and matches that tie keep the order the query gives them (children in
//! order). Tests compare a walker with its query, match by match and in the facts,
//! on fixtures and on sources written to reach each pattern's edges, and an ignored
//! test on any tree (`tests::walkers_match_the_queries_on_a_corpus`): the Linux
//! kernel's 55,349 C files, the Python standard library, the cargo registry's Rust
//! and the JDK's Java give the same matches and facts both ways.
//!
//! Pattern semantics reproduced, as tree-sitter matches them:
//! - a child pattern with a field matches any child carrying that field (not only the
//!   first); one without a field matches any child, whatever its field;
//! - sibling child patterns match children in their written order, not necessarily
//!   adjacent; each combination is a match;
//! - `(_)` matches a named node; `!field` requires that no child carries `field`;
//! - kinds and fields are compared by the ids the grammar gives their names, as the
//!   query compiler resolves them (aliases included).

use tree_sitter::{Language as Grammar, Node, TreeCursor};

use super::Parts;
use crate::lang::Language;

mod c;
mod java;
mod python;
mod rust;

/// The walker of one language, with the grammar ids it compares against.
#[derive(Debug)]
pub(super) enum Walker {
    C(c::Shapes),
    Python(python::Shapes),
    Rust(rust::Shapes),
    Java(java::Shapes),
}

impl Walker {
    /// The walker for `lang`, or `None` when it has none (its query cursor runs) or
    /// when a kind or field its query names is missing from `grammar` (another grammar
    /// version).
    pub(super) fn new(lang: Language, grammar: &Grammar) -> Option<Walker> {
        match lang {
            Language::C => c::Shapes::new(grammar).map(Walker::C),
            Language::Python => python::Shapes::new(grammar).map(Walker::Python),
            Language::Rust => rust::Shapes::new(grammar).map(Walker::Rust),
            Language::Java => java::Shapes::new(grammar).map(Walker::Java),
            _ => None,
        }
    }

    /// Calls `emit` with the captures of every match the query has in the tree under
    /// `root`, in tree order of the node each match starts at.
    pub(super) fn matches<'t>(&self, root: Node<'t>, mut emit: impl FnMut(Parts<'t>)) {
        match self {
            Walker::C(shapes) => walk(shapes, root, &mut emit),
            Walker::Python(shapes) => walk(shapes, root, &mut emit),
            Walker::Rust(shapes) => walk(shapes, root, &mut emit),
            Walker::Java(shapes) => walk(shapes, root, &mut emit),
        }
    }
}

/// A language's patterns: the node kinds where they start, and what they match there.
trait Patterns {
    type Start: Copy;

    /// `Some(start)` at the kind ids where a pattern starts; indexed by kind id.
    fn starts(&self) -> &[Option<Self::Start>];

    /// Emits the matches of the patterns that start at `node`, of kind `start`.
    fn at<'t>(
        &self,
        start: Self::Start,
        node: Node<'t>,
        scratch: &mut Scratch<'t>,
        emit: &mut impl FnMut(Parts<'t>),
    );
}

/// Visits the tree under `root` in pre-order and emits the matches of `patterns`.
fn walk<'t, P: Patterns>(patterns: &P, root: Node<'t>, emit: &mut impl FnMut(Parts<'t>)) {
    let mut scratch = Scratch::new(root);
    preorder(root, |node| {
        let start = patterns
            .starts()
            .get(usize::from(node.kind_id()))
            .copied()
            .flatten();
        if let Some(start) = start {
            patterns.at(start, node, &mut scratch, emit);
        }
    });
}

/// Calls `visit` on every node under `root` (itself included), in pre-order.
fn preorder<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        visit(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// A node's children with their field ids (0: none), in order.
type Kids<'t> = Vec<(u16, Node<'t>)>;

/// Reusable buffers for reading children, so a walk allocates only as deep as the
/// patterns look.
struct Scratch<'t> {
    cursor: TreeCursor<'t>,
    spare: Vec<Kids<'t>>,
}

impl<'t> Scratch<'t> {
    fn new(root: Node<'t>) -> Scratch<'t> {
        Scratch {
            cursor: root.walk(),
            spare: Vec::new(),
        }
    }

    /// `node`'s children with their fields, in a buffer to hand back with [`Self::give`].
    fn kids(&mut self, node: Node<'t>) -> Kids<'t> {
        let mut out = self.spare.pop().unwrap_or_default();
        out.clear();
        self.cursor.reset(node);
        if self.cursor.goto_first_child() {
            loop {
                let field = self.cursor.field_id().map_or(0, |f| f.get());
                out.push((field, self.cursor.node()));
                if !self.cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        out
    }

    fn give(&mut self, kids: Kids<'t>) {
        self.spare.push(kids);
    }
}

/// The children in `kids` carrying `field`.
fn with_field<'a, 't>(
    kids: &'a [(u16, Node<'t>)],
    field: u16,
) -> impl Iterator<Item = Node<'t>> + 'a {
    kids.iter()
        .filter(move |(f, _)| *f == field)
        .map(|(_, n)| *n)
}

/// The children in `kids` of kind `kind`, whatever their field.
fn of_kind<'a, 't>(kids: &'a [(u16, Node<'t>)], kind: u16) -> impl Iterator<Item = Node<'t>> + 'a {
    kids.iter()
        .map(|(_, n)| *n)
        .filter(move |n| n.kind_id() == kind)
}

/// Reads grammar ids by name; a missing name makes the whole table `None`.
struct Ids<'g>(&'g Grammar);

impl Ids<'_> {
    /// The id of the named node kind `name` (as the query compiler resolves it).
    fn kind(&self, name: &str) -> Option<u16> {
        Some(self.0.id_for_node_kind(name, true)).filter(|&id| id != 0)
    }

    fn field(&self, name: &str) -> Option<u16> {
        self.0.field_id_for_name(name).map(|id| id.get())
    }

    /// A table indexed by kind id with `Some(start)` at each of `starts`' kinds.
    fn starts<S: Copy>(&self, starts: &[(&str, S)]) -> Option<Vec<Option<S>>> {
        let mut table = vec![None; self.0.node_kind_count()];
        for (name, start) in starts {
            *table.get_mut(usize::from(self.kind(name)?))? = Some(*start);
        }
        Some(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each walker finds every kind and field it compares against in the grammar this
    /// build links: a grammar upgrade that renames one would otherwise fall back to the
    /// query cursor without a word (the same facts, at the old cost).
    #[test]
    fn every_walker_reads_the_grammar_it_is_built_with() {
        let grammars: [(Language, Grammar); 4] = [
            (Language::C, tree_sitter_c::LANGUAGE.into()),
            (Language::Python, tree_sitter_python::LANGUAGE.into()),
            (Language::Rust, tree_sitter_rust::LANGUAGE.into()),
            (Language::Java, tree_sitter_java::LANGUAGE.into()),
        ];
        for (lang, grammar) in &grammars {
            assert!(Walker::new(*lang, grammar).is_some(), "{lang:?}");
        }
        let go: Grammar = tree_sitter_go::LANGUAGE.into();
        assert!(Walker::new(Language::Go, &go).is_none());
        // A grammar that lacks the kinds (Go's, for C) gives no walker.
        assert!(Walker::new(Language::C, &go).is_none());
    }
}
