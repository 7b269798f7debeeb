//! Precise mode: call and base references resolved from a compiler's SCIP index
//! (`constellation index --scip FILE`, written by scip-python, scip-typescript,
//! rust-analyzer, scip-java, scip-go, ...).
//!
//! Owns reading SCIP files (the `scip` crate's generated protobuf types; nothing is
//! decoded by hand), deciding which of their documents still match the indexed files,
//! and replacing the heuristic outcome of the references of those files with the
//! compiler's: one edge with provenance `scip` and confidence 1.0 to the node the
//! compiler's definition falls in (the class for a constructor: `Foo()`, `new Foo()`),
//! or status `external` (a library, a builtin) with no edge, or `unresolved` (a
//! variable, parameter or attribute: a value, not a function, method or class). A
//! reference SCIP says nothing about, or whose symbol is defined in no usable document,
//! keeps its heuristic outcome.
//!
//! It must not guess: a document is used only when the text at its definitions still
//! reads as their names (at most [`STALE_SHARE`] of them may not; a document that
//! carries its text must equal the file; else it is skipped, named in a warning), each
//! definition only when it spells its name, and each reference only when the SCIP
//! occurrence at its position spells the called name. A renaming assignment
//! (`_Segment = Segment`, `render = console.render`) is followed to what it renames;
//! where SCIP names a variable or parameter whose value the rules did resolve (`cls()`
//! in a classmethod), the rules' edge stays. It adds no nodes and no references; it
//! runs after the heuristic resolution of the run, inside the run's transaction.
//!
//! Positions: SCIP ranges are 0-based `[line, start, end]` or `[line, start, endLine,
//! end]`, characters counted in the document's `position_encoding` (UTF-8, UTF-16 or
//! UTF-32 code units; when unspecified, the one under which the definitions match,
//! UTF-16 on a tie, as LSP); `refs` store 1-based lines and 0-based byte columns.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use protobuf::{Enum, Message};
use scip::types::{occurrence::Typed_range, Document, Index, PositionEncoding, SymbolRole};
use serde::Serialize;

use super::resolve::{Family, Rule};
use super::IndexError;
use crate::store::files::IndexTx;
use crate::store::scip_files::{ScipFile, ScipNode, ScipRef};

/// A document is stale when more than this share of its checked definitions do not
/// spell their symbol's name at their range. An edit that moves lines makes most of
/// them miss; on scip-python's and scip-typescript's indexes of rich, mobx and rxjs
/// none missed, so the margin is for other indexers' unusual names.
const STALE_SHARE: f64 = 0.05;

/// Paths named in one warning at most.
const NAMED_IN_WARNING: usize = 8;

/// A SCIP index read from disk, not yet applied.
pub struct ScipInput {
    /// The file it was read from, as given.
    pub path: PathBuf,
    /// `name version` of the indexer, from the metadata (`scip-python 0.6.6`).
    pub tool: String,
    /// The metadata's project root when it is a `file://` URI.
    project_root: Option<PathBuf>,
    index: Index,
}

impl std::fmt::Debug for ScipInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScipInput")
            .field("path", &self.path)
            .field("tool", &self.tool)
            .field("documents", &self.index.documents.len())
            .finish()
    }
}

/// Reads and decodes a SCIP index.
///
/// Errors: [`IndexError::ScipRead`] when the file cannot be read,
/// [`IndexError::ScipDecode`] when it is not a SCIP index (not protobuf of that shape,
/// truncated, or holding no documents).
pub fn load(path: &Path) -> Result<ScipInput, IndexError> {
    let bytes = std::fs::read(path).map_err(|source| IndexError::ScipRead {
        path: path.to_path_buf(),
        source,
    })?;
    let index = Index::parse_from_bytes(&bytes).map_err(|e| IndexError::ScipDecode {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    if index.documents.is_empty() {
        return Err(IndexError::ScipDecode {
            path: path.to_path_buf(),
            message: "it holds no documents".into(),
        });
    }
    let (tool, root) = match index.metadata.as_ref() {
        Some(m) => {
            let tool = match m.tool_info.as_ref() {
                Some(t) => format!("{} {}", t.name, t.version).trim().to_string(),
                None => String::new(),
            };
            (tool, m.project_root.clone())
        }
        None => (String::new(), String::new()),
    };
    let project_root = root
        .strip_prefix("file://")
        .filter(|p| p.starts_with('/'))
        .map(|p| PathBuf::from(percent_decode(p)));
    Ok(ScipInput {
        path: path.to_path_buf(),
        tool,
        project_root,
        index,
    })
}

/// What applying SCIP indexes did. Serialized in camelCase under `scip` in
/// `index --json`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScipReport {
    /// SCIP files read.
    pub indexes: usize,
    /// Documents in them.
    pub documents: usize,
    /// Files whose references were resolved from a SCIP document.
    pub files_applied: usize,
    /// Documents skipped because their file changed since the SCIP index was made.
    pub files_stale: usize,
    /// Documents naming a file the index does not hold (excluded, ignored, removed,
    /// not read) or holding a file another SCIP file already covered.
    pub files_not_indexed: usize,
    /// Indexed files of the languages the SCIP documents cover that no usable document
    /// covers: they keep heuristic resolution.
    pub files_uncovered: usize,
    /// References given a `scip` edge.
    pub refs_resolved: usize,
    /// References SCIP places outside the workspace (status `external`, no edge).
    pub refs_external: usize,
    /// References SCIP binds to a variable, parameter or attribute of the workspace
    /// (a value, not a function, method or class; `unresolved`, no edge).
    pub refs_local: usize,
    /// References of covered files that keep their heuristic outcome: SCIP has no
    /// occurrence there, names a symbol of the workspace defined in no usable
    /// document, or names a variable or parameter whose value the rules resolved.
    pub refs_kept: usize,
    /// References whose status or edges this run changed.
    pub refs_changed: usize,
    /// The warnings, as printed.
    pub warnings: Vec<String>,
}

/// How characters of a range are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

/// One file's text split into lines (without their `\n`).
struct Text<'a> {
    lines: Vec<&'a [u8]>,
}

impl<'a> Text<'a> {
    fn new(bytes: &'a [u8]) -> Text<'a> {
        Text {
            lines: bytes.split(|&b| b == b'\n').collect(),
        }
    }

    /// The byte offset in line `line` (0-based) of character `ch`, counted in `enc`;
    /// `None` past the end of the line or inside a character.
    fn byte_col(&self, line: i32, ch: i32, enc: Encoding) -> Option<usize> {
        let text = self.lines.get(usize::try_from(line).ok()?)?;
        let ch = usize::try_from(ch).ok()?;
        if enc == Encoding::Utf8 || text.is_ascii() {
            return (ch <= text.len()).then_some(ch);
        }
        let s = std::str::from_utf8(text).ok()?;
        let mut units = 0;
        for (i, c) in s.char_indices() {
            if units == ch {
                return Some(i);
            }
            if units > ch {
                return None;
            }
            units += match enc {
                Encoding::Utf16 => c.len_utf16(),
                _ => 1,
            };
        }
        (units == ch).then_some(s.len())
    }

    /// The text of a single-line range, or `None` when it falls outside the file.
    fn slice(&self, r: &Range, enc: Encoding) -> Option<&'a str> {
        if r.end_line != r.line {
            return None;
        }
        let start = self.byte_col(r.line, r.start, enc)?;
        let end = self.byte_col(r.line, r.end, enc)?;
        let line = self.lines.get(r.line as usize)?;
        std::str::from_utf8(line.get(start..end)?).ok()
    }
}

/// An occurrence's range, 0-based, characters in the document's encoding.
#[derive(Debug, Clone, Copy)]
struct Range {
    line: i32,
    start: i32,
    end_line: i32,
    end: i32,
}

fn range_of(o: &scip::types::Occurrence) -> Option<Range> {
    match &o.typed_range {
        Some(Typed_range::SingleLineRange(r)) => Some(Range {
            line: r.line,
            start: r.start_character,
            end_line: r.line,
            end: r.end_character,
        }),
        Some(Typed_range::MultiLineRange(r)) => Some(Range {
            line: r.start_line,
            start: r.start_character,
            end_line: r.end_line,
            end: r.end_character,
        }),
        _ => match *o.range.as_slice() {
            [line, start, end] => Some(Range {
                line,
                start,
                end_line: line,
                end,
            }),
            [line, start, end_line, end] => Some(Range {
                line,
                start,
                end_line,
                end,
            }),
            _ => None,
        },
    }
}

fn is_definition(o: &scip::types::Occurrence) -> bool {
    o.symbol_roles & SymbolRole::Definition.value() != 0
}

fn is_local(symbol: &str) -> bool {
    symbol.starts_with("local ")
}

/// A global symbol taken apart: its package (`scheme manager name version`) and the
/// name of its last descriptor.
#[derive(Debug, Clone)]
struct SymbolParts {
    package: String,
    name: String,
}

impl SymbolParts {
    fn from(s: &scip::types::Symbol) -> SymbolParts {
        let package = match s.package.as_ref() {
            Some(p) => format!("{} {} {} {}", s.scheme, p.manager, p.name, p.version),
            None => s.scheme.clone(),
        };
        let name = s
            .descriptors
            .last()
            .map(|d| d.name.clone())
            .unwrap_or_default();
        SymbolParts { package, name }
    }
}

/// Parses global symbols once each.
#[derive(Default)]
struct Symbols {
    parsed: HashMap<String, Option<SymbolParts>>,
}

impl Symbols {
    fn get(&mut self, symbol: &str) -> Option<&SymbolParts> {
        if !self.parsed.contains_key(symbol) {
            let parts = scip::symbol::parse_symbol(symbol)
                .ok()
                .map(|s| SymbolParts::from(&s));
            self.parsed.insert(symbol.to_string(), parts);
        }
        self.parsed.get(symbol).and_then(Option::as_ref)
    }
}

/// Does the text at a definition spell the symbol's name? `None` when the name cannot
/// be checked (an empty range such as a module's, an anonymous or synthetic name).
fn spells(name: &str, text: &str) -> Option<bool> {
    if text.is_empty() || name.is_empty() {
        return None;
    }
    if name == "<constructor>" {
        return Some(text == "constructor");
    }
    if name.starts_with('<') {
        return None;
    }
    let (name, text) = (name.trim_start_matches('#'), text.trim_start_matches('#'));
    // scip-typescript numbers the properties of object literals: `value0`, `name1`.
    let numbered = name
        .strip_prefix(text)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    Some(text == name || numbered)
}

/// Does a reference occurrence's text spell its symbol's name? A local symbol has no
/// name to check; a constructor (`<constructor>`, `__init__`, `__new__`) is written as
/// its class's name; a name a renaming import binds (`import { zip as zipStatic }`,
/// `from m import Segment as _Segment`) is accepted where the document shows that
/// import.
fn consistent(symbols: &mut Symbols, doc: &DocOccs<'_>, symbol: &str, text: &str) -> bool {
    if is_local(symbol) {
        return true;
    }
    match symbols.get(symbol) {
        None => true,
        Some(p) if matches!(p.name.as_str(), "<constructor>" | "__init__" | "__new__") => true,
        Some(p) => spells(&p.name, text) != Some(false) || doc.renames(symbol, text),
    }
}

/// A document whose content matches its file, ready to resolve references with.
struct Matched<'a> {
    file: &'a ScipFile,
    tool: &'a str,
    doc: &'a Document,
    text: Text<'a>,
    enc: Encoding,
}

/// Counts (checked, mismatched) occurrences of a document under an encoding.
fn check(doc: &Document, text: &Text<'_>, enc: Encoding, symbols: &mut Symbols) -> (usize, usize) {
    let (mut checked, mut missed) = (0, 0);
    let mut examples: Vec<String> = Vec::new();
    for o in &doc.occurrences {
        if !is_definition(o) || is_local(&o.symbol) {
            continue;
        }
        let Some(r) = range_of(o) else { continue };
        if r.end_line != r.line {
            continue;
        }
        let Some(parts) = symbols.get(&o.symbol) else {
            continue;
        };
        let name = parts.name.clone();
        let read = text.slice(&r, enc);
        let ok = match read {
            None => Some(false),
            Some(t) => spells(&name, t),
        };
        if let Some(ok) = ok {
            checked += 1;
            if !ok {
                missed += 1;
                if examples.len() < 3 {
                    examples.push(format!(
                        "{name:?} at {}:{} reads {read:?}",
                        r.line + 1,
                        r.start
                    ));
                }
            }
        }
    }
    if missed > 0 {
        tracing::debug!(
            "scip: {}: {missed} of {checked} definitions do not match under {enc:?} ({})",
            doc.relative_path,
            examples.join("; ")
        );
    }
    (checked, missed)
}

/// The encoding a document declares, or the one its definitions match under.
fn encoding_of(doc: &Document, text: &Text<'_>, symbols: &mut Symbols) -> (Encoding, usize, usize) {
    match doc.position_encoding.enum_value() {
        Ok(PositionEncoding::UTF8CodeUnitOffsetFromLineStart) => {
            let (c, m) = check(doc, text, Encoding::Utf8, symbols);
            (Encoding::Utf8, c, m)
        }
        Ok(PositionEncoding::UTF32CodeUnitOffsetFromLineStart) => {
            let (c, m) = check(doc, text, Encoding::Utf32, symbols);
            (Encoding::Utf32, c, m)
        }
        Ok(PositionEncoding::UTF16CodeUnitOffsetFromLineStart) => {
            let (c, m) = check(doc, text, Encoding::Utf16, symbols);
            (Encoding::Utf16, c, m)
        }
        _ => {
            let (c16, m16) = check(doc, text, Encoding::Utf16, symbols);
            if m16 == 0 || text.lines.iter().all(|l| l.is_ascii()) {
                return (Encoding::Utf16, c16, m16);
            }
            let (c8, m8) = check(doc, text, Encoding::Utf8, symbols);
            if m8 < m16 {
                (Encoding::Utf8, c8, m8)
            } else {
                (Encoding::Utf16, c16, m16)
            }
        }
    }
}

/// What SCIP says one reference names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// A node of this workspace.
    Node(i64),
    /// Outside the workspace.
    External,
    /// A variable, parameter or attribute of the workspace (a value, not a function,
    /// method or class): no node to point at.
    Local,
    /// Nothing usable: keep the heuristic outcome.
    Unknown,
}

/// The symbol nodes of one file, and their positions in it by name (`#` dropped).
type FileNodes = (Vec<ScipNode>, HashMap<String, Vec<usize>>);

/// The nodes of the files looked at, by file and name.
#[derive(Default)]
struct Nodes {
    by_file: HashMap<i64, FileNodes>,
}

impl Nodes {
    fn load(&mut self, tx: &IndexTx<'_>, file_id: i64) -> Result<(), IndexError> {
        if let std::collections::hash_map::Entry::Vacant(slot) = self.by_file.entry(file_id) {
            let nodes = tx.scip_nodes_of_file(file_id)?;
            let mut names: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, n) in nodes.iter().enumerate() {
                names
                    .entry(n.name.trim_start_matches('#').to_string())
                    .or_default()
                    .push(i);
            }
            slot.insert((nodes, names));
        }
        Ok(())
    }

    /// The innermost node of `file_id` named `name` whose lines hold `line` (1-based).
    fn at(
        &mut self,
        tx: &IndexTx<'_>,
        file_id: i64,
        line: u32,
        name: &str,
    ) -> Result<Option<ScipNode>, IndexError> {
        self.load(tx, file_id)?;
        let Some((nodes, names)) = self.by_file.get(&file_id) else {
            return Ok(None);
        };
        let named = || {
            names
                .get(name.trim_start_matches('#'))
                .into_iter()
                .flatten()
                .map(|&i| &nodes[i])
        };
        let Some(best) = named()
            .filter(|n| n.start_line <= line && line <= n.end_line)
            .min_by_key(|n| (n.end_byte - n.start_byte, n.id))
        else {
            return Ok(None);
        };
        // Overloads (TypeScript signatures, Python `@overload` stubs) are siblings of
        // one name and kind; compilers name the first, the body comes last.
        if is_type_kind(&best.kind) {
            return Ok(Some(best.clone()));
        }
        let body = named()
            .filter(|n| n.parent_id == best.parent_id && n.kind == best.kind)
            .max_by_key(|n| (n.start_byte, n.id))
            .unwrap_or(best);
        Ok(Some(body.clone()))
    }

    fn kind_of(&self, file_id: i64, id: i64) -> Option<&str> {
        let (nodes, _) = self.by_file.get(&file_id)?;
        nodes.iter().find(|n| n.id == id).map(|n| n.kind.as_str())
    }
}

/// Node kinds a class's constructor call lands on.
fn is_type_kind(kind: &str) -> bool {
    matches!(kind, "class" | "struct" | "enum" | "interface" | "trait")
}

/// Applies SCIP indexes to the files of this run's transaction. Returns what it did;
/// warnings are logged and returned in the report.
///
/// Errors: database errors only. A document that does not match is skipped with a
/// warning; an unreadable source file is skipped the same way.
pub(super) fn apply(
    tx: &IndexTx<'_>,
    root: &Path,
    inputs: &[ScipInput],
) -> Result<ScipReport, IndexError> {
    let files = tx.scip_files_on_disk()?;
    let mut report = ScipReport {
        indexes: inputs.len(),
        ..ScipReport::default()
    };
    let mut symbols = Symbols::default();
    // Packages with definitions in any document: a symbol of one of them that has no
    // definition here is of this workspace, not a library.
    let mut own_packages: HashSet<String> = HashSet::new();
    let mut bytes_of: HashMap<i64, Vec<u8>> = HashMap::new();
    let mut accepted: Vec<(usize, &Document, &ScipFile, Encoding)> = Vec::new();
    let mut seen: HashSet<i64> = HashSet::new();
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    for (k, input) in inputs.iter().enumerate() {
        let prefix = prefix_of(input, &canonical_root);
        let mut stale: Vec<String> = Vec::new();
        let mut missing: Vec<String> = Vec::new();
        for doc in &input.index.documents {
            report.documents += 1;
            for o in &doc.occurrences {
                if is_definition(o) && !is_local(&o.symbol) {
                    if let Some(p) = symbols.get(&o.symbol) {
                        own_packages.insert(p.package.clone());
                    }
                }
            }
            let path = format!("{prefix}{}", doc.relative_path.trim_start_matches("./"));
            let Some(file) = files.get(&path) else {
                missing.push(path);
                continue;
            };
            let Some(digest) = file.digest.as_deref() else {
                missing.push(path);
                continue;
            };
            if !seen.insert(file.id) {
                missing.push(path);
                continue;
            }
            let bytes = match crate::walk::read_stored(root, &path, crate::walk::MAX_TOOL_READ) {
                Ok(b) if crate::walk::digest(&b) == digest => b,
                _ => {
                    // Changed on disk since this run read it (or unreadable now).
                    seen.remove(&file.id);
                    stale.push(path);
                    continue;
                }
            };
            // A document that carries its text is compared whole.
            let changed_text = !doc.text.is_empty() && doc.text.as_bytes() != bytes.as_slice();
            let text = Text::new(&bytes);
            let (enc, checked, missed) = encoding_of(doc, &text, &mut symbols);
            if changed_text || (checked > 0 && missed as f64 > checked as f64 * STALE_SHARE) {
                seen.remove(&file.id);
                stale.push(path);
                continue;
            }
            accepted.push((k, doc, file, enc));
            bytes_of.insert(file.id, bytes);
        }
        report.files_stale += stale.len();
        report.files_not_indexed += missing.len();
        if !stale.is_empty() {
            report.warnings.push(format!(
                "SCIP index {}: {} of its documents no longer match their files and were \
                 skipped (their references keep heuristic resolution; run the SCIP indexer \
                 again): {}",
                input.path.display(),
                stale.len(),
                name_some(&stale)
            ));
        }
        if !missing.is_empty() {
            report.warnings.push(format!(
                "SCIP index {}: {} of its documents name files this index does not hold \
                 (excluded, ignored, not read, or covered by an earlier --scip file): {}",
                input.path.display(),
                missing.len(),
                name_some(&missing)
            ));
        }
    }

    let matched: Vec<Matched<'_>> = accepted
        .into_iter()
        .filter_map(|(k, doc, file, enc)| {
            let bytes = bytes_of.get(&file.id)?;
            Some(Matched {
                file,
                tool: inputs[k].tool.as_str(),
                doc,
                text: Text::new(bytes),
                enc,
            })
        })
        .collect();

    // Occurrences of every matched document, and where each global symbol is defined.
    let docs: HashMap<i64, DocOccs<'_>> = matched
        .iter()
        .map(|m| (m.file.id, DocOccs::new(m)))
        .collect();
    let mut defs: HashMap<&str, DefSite> = HashMap::new();
    for m in &matched {
        for (&line0, occs) in &docs[&m.file.id].lines {
            for o in occs.iter().filter(|o| o.def && !is_local(o.symbol)) {
                // A definition whose text no longer spells its name (an edit within a
                // document that still matches as a whole) is not used.
                let name = symbols.get(o.symbol).map(|p| p.name.as_str());
                if name.and_then(|n| spells(n, o.text)) == Some(false) {
                    continue;
                }
                defs.entry(o.symbol).or_insert(DefSite {
                    file_id: m.file.id,
                    line0,
                    end: o.end,
                    name: o.text,
                });
            }
        }
    }
    let mut ctx = Context {
        tx,
        defs: &defs,
        docs: &docs,
        own_packages: &own_packages,
        symbols,
        nodes: Nodes::default(),
    };
    let mut languages: HashSet<&str> = HashSet::new();
    for m in &matched {
        if let Some(l) = m.file.language.as_deref() {
            languages.insert(l);
        }
        let resolved = apply_document(&mut ctx, m.file.id, &mut report)?;
        let digest = m.file.digest.as_deref().unwrap_or_default();
        tx.record_scip_file(m.file.id, digest, m.tool, resolved)?;
        report.files_applied += 1;
    }

    let covered: HashSet<i64> = matched.iter().map(|m| m.file.id).collect();
    let mut uncovered: Vec<(&str, &str)> = files
        .values()
        .filter(|f| f.digest.is_some() && !covered.contains(&f.id))
        .filter_map(|f| {
            let l = f.language.as_deref().filter(|l| languages.contains(l))?;
            Some((f.path.as_str(), l))
        })
        .collect();
    uncovered.sort_unstable();
    report.files_uncovered = uncovered.len();
    if !uncovered.is_empty() {
        let mut per_language: std::collections::BTreeMap<&str, usize> = Default::default();
        for (_, l) in &uncovered {
            *per_language.entry(l).or_default() += 1;
        }
        let counts: Vec<String> = per_language
            .iter()
            .map(|(l, n)| format!("{l} {n}"))
            .collect();
        let paths: Vec<&str> = uncovered.iter().map(|(p, _)| *p).collect();
        report.warnings.push(format!(
            "{} files of the languages the SCIP indexes cover ({}) are in no usable SCIP \
             document and keep heuristic resolution: {}",
            uncovered.len(),
            counts.join(", "),
            name_some(&paths)
        ));
    }
    for w in &report.warnings {
        tracing::warn!("{w}");
    }
    Ok(report)
}

/// One occurrence placed in its file: byte columns and the text it covers.
#[derive(Debug, Clone, Copy)]
struct Occ<'a> {
    start: usize,
    end: usize,
    symbol: &'a str,
    text: &'a str,
    def: bool,
}

/// The single-line occurrences of a matched document, by 0-based line.
struct DocOccs<'a> {
    file_id: i64,
    text: &'a Text<'a>,
    lines: HashMap<u32, Vec<Occ<'a>>>,
    /// Local symbols' definitions: (0-based line, end byte, name).
    locals: HashMap<&'a str, (u32, usize, &'a str)>,
}

impl<'a> DocOccs<'a> {
    fn new(m: &'a Matched<'a>) -> DocOccs<'a> {
        let mut lines: HashMap<u32, Vec<Occ<'a>>> = HashMap::new();
        let mut locals = HashMap::new();
        for o in &m.doc.occurrences {
            let Some(r) = range_of(o) else { continue };
            let Some(text) = m.text.slice(&r, m.enc) else {
                continue;
            };
            let (Some(start), Some(end)) = (
                m.text.byte_col(r.line, r.start, m.enc),
                m.text.byte_col(r.line, r.end, m.enc),
            ) else {
                continue;
            };
            if text.is_empty() {
                continue;
            }
            let occ = Occ {
                start,
                end,
                symbol: o.symbol.as_str(),
                text,
                def: is_definition(o),
            };
            if occ.def && is_local(occ.symbol) {
                locals
                    .entry(occ.symbol)
                    .or_insert((r.line as u32, end, text));
            }
            lines.entry(r.line as u32).or_default().push(occ);
        }
        DocOccs {
            file_id: m.file.id,
            text: &m.text,
            lines,
            locals,
        }
    }

    /// Does the document import `symbol` under the name `local` (`name as local`)?
    fn renames(&self, symbol: &str, local: &str) -> bool {
        self.lines.iter().any(|(&line0, occs)| {
            let Some(line) = self.text.lines.get(line0 as usize) else {
                return false;
            };
            occs.iter().filter(|o| o.symbol == symbol).any(|o| {
                let rest = line.get(o.end..).unwrap_or_default();
                let rest = rest.trim_ascii_start();
                let Some(rest) = rest.strip_prefix(b"as") else {
                    return false;
                };
                let trimmed = rest.trim_ascii_start();
                trimmed.len() < rest.len()
                    && trimmed.starts_with(local.as_bytes())
                    && !trimmed
                        .get(local.len())
                        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
            })
        })
    }

    /// The symbol a definition is bound to when its statement only renames another
    /// name: `_Segment = Segment`, `render = console.render`, `const f = mod.g;`
    /// (the definition ends at byte `end` of line `line0`).
    fn alias_of(&self, line0: u32, end: usize) -> Option<Occ<'a>> {
        let line = *self.text.lines.get(line0 as usize)?;
        let mut p = end;
        let skip_ws = |mut p: usize| {
            while p < line.len() && (line[p] == b' ' || line[p] == b'\t') {
                p += 1;
            }
            p
        };
        p = skip_ws(p);
        if line.get(p) == Some(&b':') {
            // An annotation: `x: Type = value`.
            while p < line.len() && line[p] != b'=' {
                p += 1;
            }
        }
        if line.get(p) != Some(&b'=') || matches!(line.get(p + 1), Some(b'=' | b'>')) {
            return None;
        }
        p = skip_ws(p + 1);
        let is_tail = |q: usize| {
            let rest = &line[skip_ws(q)..];
            rest.is_empty()
                || rest == b";"
                || rest == b"\r"
                || rest.starts_with(b"#")
                || rest.starts_with(b"//")
                || rest.starts_with(b"; //")
        };
        let plain = |from: usize, to: usize| {
            line[from..to]
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$')
        };
        self.lines
            .get(&line0)?
            .iter()
            .filter(|o| !o.def && o.start >= p && plain(p, o.start) && is_tail(o.end))
            .max_by_key(|o| o.end)
            .copied()
    }
}

/// Where a global symbol is defined: its file, 0-based line, the end of its name (byte
/// column) and the name written there.
#[derive(Debug, Clone, Copy)]
struct DefSite<'a> {
    file_id: i64,
    line0: u32,
    end: usize,
    name: &'a str,
}

/// What resolving references reads: definitions, documents, nodes.
struct Context<'c, 'a> {
    tx: &'c IndexTx<'c>,
    defs: &'c HashMap<&'a str, DefSite<'a>>,
    docs: &'c HashMap<i64, DocOccs<'a>>,
    own_packages: &'c HashSet<String>,
    symbols: Symbols,
    nodes: Nodes,
}

/// Resolves the references of one matched document; returns how many SCIP resolved.
fn apply_document(
    ctx: &mut Context<'_, '_>,
    file_id: i64,
    report: &mut ScipReport,
) -> Result<usize, IndexError> {
    let doc = &ctx.docs[&file_id];
    let tx = ctx.tx;
    let mut resolved = 0;
    for r in tx.scip_refs_of_file(file_id)? {
        let bare = r.name.trim_start_matches('#');
        let spelled = |o: &&Occ<'_>| !o.def && o.text.trim_start_matches('#') == bare;
        let line: &[Occ<'_>] = doc
            .lines
            .get(&r.line.saturating_sub(1))
            .map(Vec::as_slice)
            .unwrap_or_default();
        let candidates: Vec<&Occ<'_>> = if r.kind == "call" {
            // The called name's column; a `#private` name may start one byte off.
            let col = r.col as usize;
            let mut found: Vec<&Occ<'_>> = Vec::new();
            for c in [Some(col), col.checked_add(1), col.checked_sub(1)]
                .into_iter()
                .flatten()
            {
                found.extend(line.iter().filter(|o| o.start == c).filter(spelled));
                if !found.is_empty() {
                    break;
                }
            }
            found
        } else {
            line.iter().filter(spelled).collect()
        };
        // An occurrence whose text does not spell its own symbol's name (nor a name
        // the document's imports bind it to) is not trusted: scip-python 0.6.6 names
        // `DateTimeField#` at Django's `models.IntegerField()`.
        let candidates: Vec<&str> = candidates
            .into_iter()
            .filter(|o| consistent(&mut ctx.symbols, doc, o.symbol, o.text))
            .map(|o| o.symbol)
            .collect();
        let mut verdict = Verdict::Unknown;
        for symbol in candidates {
            let v = judge(ctx, symbol, &r, doc, 0)?;
            verdict = match (verdict, v) {
                (Verdict::Node(n), _) | (_, Verdict::Node(n)) => Verdict::Node(n),
                (Verdict::External, _) | (_, Verdict::External) => Verdict::External,
                (Verdict::Local, _) | (_, Verdict::Local) => Verdict::Local,
                _ => Verdict::Unknown,
            };
        }
        // A value (variable, parameter, attribute) the rules did resolve keeps their
        // edge: SCIP names the binding, the rules followed its value (`cls()` in a
        // classmethod, `self.handler()` set from a method).
        let heuristic = r.status == "resolved"
            && !r.edges.is_empty()
            && r.edges.iter().all(|(_, p)| p != "scip");
        let (status, dst) = match verdict {
            Verdict::Unknown => {
                report.refs_kept += 1;
                continue;
            }
            Verdict::Local if heuristic => {
                report.refs_kept += 1;
                continue;
            }
            Verdict::Node(n) => {
                report.refs_resolved += 1;
                ("resolved", Some(n))
            }
            Verdict::External => {
                report.refs_external += 1;
                ("external", None)
            }
            Verdict::Local => {
                report.refs_local += 1;
                ("unresolved", None)
            }
        };
        resolved += 1;
        let same = r.status == status
            && match dst {
                Some(n) => r.edges.len() == 1 && r.edges[0].0 == n && r.edges[0].1 == "scip",
                None => r.edges.is_empty(),
            };
        if same {
            continue;
        }
        report.refs_changed += 1;
        tx.delete_edges_of_ref(r.id)?;
        tx.set_ref_status(r.id, status, usize::from(dst.is_some()))?;
        if let Some(dst) = dst {
            let kind = match r.kind.as_str() {
                "inherit" => "inherits",
                "implement" => "implements",
                _ => "calls",
            };
            tx.insert_edge(
                r.src_id,
                dst,
                kind,
                file_id,
                Some(r.line),
                super::resolve::rules::confidence(Family::None, Rule::Scip),
                Rule::Scip.provenance(),
                Some(r.id),
            )?;
        }
    }
    Ok(resolved)
}

/// What one SCIP symbol at a reference of `doc` means here. `depth` counts the
/// renamings followed (`_Segment = Segment`), at most 3.
fn judge(
    ctx: &mut Context<'_, '_>,
    symbol: &str,
    r: &ScipRef,
    doc: &DocOccs<'_>,
    depth: u8,
) -> Result<Verdict, IndexError> {
    let site = if is_local(symbol) {
        match doc.locals.get(symbol) {
            Some(&(line0, end, name)) => DefSite {
                file_id: doc.file_id,
                line0,
                end,
                name,
            },
            // A local the document never defines: a builtin the indexer left unnamed
            // (scip-python's `len`).
            None => return Ok(Verdict::External),
        }
    } else {
        match ctx.defs.get(symbol) {
            Some(site) => *site,
            None => {
                let own = ctx
                    .symbols
                    .get(symbol)
                    .is_some_and(|p| ctx.own_packages.contains(&p.package));
                return Ok(if own {
                    Verdict::Unknown
                } else {
                    Verdict::External
                });
            }
        }
    };
    let Some(node) = ctx
        .nodes
        .at(ctx.tx, site.file_id, site.line0 + 1, site.name)?
    else {
        // Defined in the workspace but not as a function, method or class: a
        // variable, parameter or attribute holding a value; when it only renames
        // another name, that name's answer.
        let docs = ctx.docs;
        if depth < 3 {
            if let Some(def_doc) = docs.get(&site.file_id) {
                if let Some(target) = def_doc.alias_of(site.line0, site.end) {
                    let (target, text) = (target.symbol, target.text);
                    if target != symbol && consistent(&mut ctx.symbols, def_doc, target, text) {
                        let v = judge(ctx, target, r, def_doc, depth + 1)?;
                        if matches!(v, Verdict::Node(_) | Verdict::External) {
                            return Ok(v);
                        }
                    }
                }
            }
        }
        return Ok(Verdict::Local);
    };
    // `Foo()` / `new Foo()` answered with the constructor: the class, as the
    // heuristic rules do.
    let ctor = matches!(node.name.as_str(), "__init__" | "constructor" | "__new__");
    if ctor && r.name != node.name && r.kind == "call" {
        if let Some(parent) = node.parent_id {
            if ctx
                .nodes
                .kind_of(site.file_id, parent)
                .is_some_and(is_type_kind)
            {
                return Ok(Verdict::Node(parent));
            }
        }
    }
    Ok(Verdict::Node(node.id))
}

/// The directory of the workspace the index's relative paths start from, with a
/// trailing `/` (empty for the root itself, or when the index was made elsewhere).
fn prefix_of(input: &ScipInput, root: &Path) -> String {
    let Some(project) = &input.project_root else {
        return String::new();
    };
    let project = project.canonicalize().unwrap_or_else(|_| project.clone());
    match project.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => {
            let rel = rel.to_string_lossy().replace('\\', "/");
            format!("{}/", rel.trim_end_matches('/'))
        }
        _ => String::new(),
    }
}

/// `a, b, c and 12 more`.
fn name_some<S: AsRef<str>>(paths: &[S]) -> String {
    let named: Vec<&str> = paths
        .iter()
        .take(NAMED_IN_WARNING)
        .map(AsRef::as_ref)
        .collect();
    let more = paths.len().saturating_sub(NAMED_IN_WARNING);
    let mut s = named.join(", ");
    if more > 0 {
        s.push_str(&format!(" and {more} more"));
    }
    s
}

/// Decodes `%XX` escapes of a `file://` URI path.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_become_byte_offsets() {
        let text = Text::new("é = f()\n𝔸 = g()\nplain()".as_bytes());
        // `f` is character 4 in UTF-16 and UTF-32, byte 5.
        assert_eq!(text.byte_col(0, 4, Encoding::Utf16), Some(5));
        assert_eq!(text.byte_col(0, 4, Encoding::Utf32), Some(5));
        assert_eq!(text.byte_col(0, 5, Encoding::Utf8), Some(5));
        // `𝔸` is two UTF-16 units, one UTF-32 unit, four bytes.
        assert_eq!(text.byte_col(1, 5, Encoding::Utf16), Some(7));
        assert_eq!(text.byte_col(1, 4, Encoding::Utf32), Some(7));
        // Inside a surrogate pair, and past the end of the line.
        assert_eq!(text.byte_col(1, 1, Encoding::Utf16), None);
        assert_eq!(text.byte_col(2, 99, Encoding::Utf16), None);
        assert_eq!(text.byte_col(9, 0, Encoding::Utf16), None);
    }

    #[test]
    fn names_are_checked_against_the_text() {
        assert_eq!(spells("run", "run"), Some(true));
        assert_eq!(spells("run", "walk"), Some(false));
        assert_eq!(spells("<constructor>", "constructor"), Some(true));
        assert_eq!(spells("#bump", "#bump"), Some(true));
        assert_eq!(spells("value0", "value"), Some(true));
        assert_eq!(spells("value0", "val"), Some(false));
        assert_eq!(spells("__init__", ""), None);
    }

    #[test]
    fn renaming_assignments_are_followed() {
        let src = "seg = Segment\nr: Fn = console.render  # alias\nn = f(x)\nm = a.b.c + 1\nfrom m import Segment as Seg\n";
        let occ = |range: [i32; 3], roles: i32, symbol: &str| scip::types::Occurrence {
            range: range.to_vec(),
            symbol: symbol.into(),
            symbol_roles: roles,
            ..Default::default()
        };
        let doc = Document {
            occurrences: vec![
                occ([0, 0, 3], 1, "local 0"),
                occ([0, 6, 13], 8, "p/Segment#"),
                occ([1, 0, 1], 1, "local 1"),
                occ([1, 10, 17], 8, "local 9"),
                occ([1, 18, 24], 8, "p/Console#render()."),
                occ([2, 0, 1], 1, "local 2"),
                occ([2, 4, 5], 8, "p/f()."),
                occ([3, 0, 1], 1, "local 3"),
                occ([3, 8, 9], 8, "p/c."),
                occ([4, 14, 21], 8, "p/Segment#"),
            ],
            ..Default::default()
        };
        let file = ScipFile {
            id: 1,
            path: "a.py".into(),
            language: Some("python".into()),
            digest: None,
        };
        let m = Matched {
            file: &file,
            tool: "",
            doc: &doc,
            text: Text::new(src.as_bytes()),
            enc: Encoding::Utf16,
        };
        let occs = DocOccs::new(&m);
        let alias = |line, end| occs.alias_of(line, end).map(|o| o.symbol);
        assert_eq!(alias(0, 3), Some("p/Segment#"));
        assert_eq!(alias(1, 1), Some("p/Console#render()."));
        // A call or an expression is a value, not a renaming.
        assert_eq!(alias(2, 1), None);
        assert_eq!(alias(3, 1), None);
        // `Seg` is a name the import binds to `Segment`; `Se` is not.
        assert!(occs.renames("p/Segment#", "Seg"));
        assert!(!occs.renames("p/Segment#", "Se"));
        assert!(!occs.renames("p/c.", "Seg"));
    }

    #[test]
    fn file_uris_are_decoded() {
        assert_eq!(percent_decode("/tmp/a%20b/c"), "/tmp/a b/c");
        assert_eq!(percent_decode("/tmp/100%"), "/tmp/100%");
    }
}
