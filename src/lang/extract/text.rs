//! Source text helpers: node text, whitespace collapsing, signatures. All of them accept
//! any bytes (invalid UTF-8 is replaced, never rejected) and bound the work they do.

use tree_sitter::{Node, TreeCursor};

/// Signatures keep at most this many characters.
const SIGNATURE_CHARS: usize = 200;

/// At most this many bytes are read for a signature or qualifier: enough for the
/// characters kept even with runs of whitespace in between.
const MAX_SCAN_BYTES: usize = 8 * 1024;

/// The bytes of `start..end`, clamped to the source (never panics).
fn slice(source: &[u8], start: usize, end: usize) -> &[u8] {
    let end = end.min(source.len());
    source.get(start.min(end)..end).unwrap_or_default()
}

/// The node's text, invalid UTF-8 replaced.
pub(super) fn node_text(source: &[u8], node: Node) -> String {
    String::from_utf8_lossy(slice(source, node.start_byte(), node.end_byte())).into_owned()
}

/// `"s"`, `'s'` or `` `s` `` without its quotes; other text unchanged.
pub(super) fn unquoted(text: String) -> String {
    let bytes = text.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last))
            if bytes.len() >= 2 && first == last && matches!(first, b'"' | b'\'' | b'`') =>
        {
            text[1..text.len() - 1].to_string()
        }
        _ => text,
    }
}

/// Whitespace runs collapsed to one space, trimmed, at most `max_chars` characters.
/// The flag is true when characters were left off.
fn collapse(bytes: &[u8], max_chars: usize) -> (String, bool) {
    let bytes = &bytes[..bytes.len().min(MAX_SCAN_BYTES)];
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len().min(max_chars * 2));
    let mut count = 0;
    let mut space = false;
    for ch in text.chars() {
        if ch.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if count + usize::from(space) >= max_chars {
            return (out, true);
        }
        if space {
            out.push(' ');
            count += 1;
            space = false;
        }
        out.push(ch);
        count += 1;
    }
    (out, false)
}

/// The node's text with whitespace collapsed, at most `max_chars` characters.
pub(super) fn collapsed(source: &[u8], node: Node, max_chars: usize) -> String {
    collapse(slice(source, node.start_byte(), node.end_byte()), max_chars).0
}

/// Where a definition's head ends: the end of the last non-comment child before its
/// `body` field (so comments between the head and the body are left out). `None` when
/// the node has no body.
pub(super) fn head_end<'t>(node: Node<'t>, cursor: &mut TreeCursor<'t>) -> Option<usize> {
    cursor.reset(node);
    if !cursor.goto_first_child() {
        return None;
    }
    let mut end = None;
    loop {
        let child = cursor.node();
        if cursor.field_name() == Some("body") {
            return Some(end.unwrap_or(child.start_byte()));
        }
        if !child.is_extra() {
            end = Some(child.end_byte());
        }
        if !cursor.goto_next_sibling() {
            return None;
        }
    }
}

/// The signature of `start..end`: whitespace collapsed, a trailing `{`, `:` or `;`
/// removed, at most 200 characters (cut on a character boundary).
pub(super) fn signature(source: &[u8], start: usize, end: usize) -> String {
    let (mut text, cut) = collapse(slice(source, start, end), SIGNATURE_CHARS + 1);
    if !cut {
        if let Some(stripped) = text.strip_suffix(['{', ':', ';']) {
            text = stripped.trim_end().to_string();
        }
    }
    if let Some((index, _)) = text.char_indices().nth(SIGNATURE_CHARS) {
        text.truncate(index);
        text.truncate(text.trim_end().len());
    }
    text
}

/// 1-based line of a tree-sitter row (0-based); saturates instead of wrapping.
pub(super) fn line_of(row: usize) -> u32 {
    u32::try_from(row).unwrap_or(u32::MAX - 1) + 1
}

/// A byte offset as stored (`u32`); saturates at `u32::MAX` (files over 4 GiB are not
/// parsed).
pub(super) fn offset(byte: usize) -> u32 {
    u32::try_from(byte).unwrap_or(u32::MAX)
}
