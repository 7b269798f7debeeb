//! The text form of a root-relative path, as the index stores it and the tools take it:
//! components joined by `/`, each file name written losslessly.
//!
//! A file name on Unix is any bytes but `/` and NUL, not necessarily UTF-8. Decoding
//! such a name lossily (`U+FFFD` for each bad byte) would give two names the same text
//! (`\xff.py` and `\xfe.py` both become `�.py`), so the index could neither store both
//! nor find either on disk again. Instead a name is escaped:
//!
//! - a name that is valid UTF-8 and holds no backslash is written unchanged (nearly
//!   every name);
//! - otherwise each byte that is not part of valid UTF-8 is written `\xHH` (two
//!   upper-case hex digits) and each literal backslash `\\`.
//!
//! A backslash in the text thus always starts `\\` or `\xHH`, so the mapping is one to
//! one and [`decode`] reverses [`encode`]. Only the canonical form decodes: `\x41`
//! (an escaped byte that is valid UTF-8) or a lone backslash is refused, so one file
//! has exactly one text. Pure functions: no file system access.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// Why a text is not the escaped form of a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathTextError {
    /// A backslash that starts neither `\\` nor `\xHH` with two hex digits.
    #[error(
        "{0:?} has a backslash that is not an escape: write a backslash in a file name as \\\\ and a byte that is not UTF-8 as \\xHH"
    )]
    BadEscape(String),
    /// Escapes that decode to valid UTF-8 (`\x41` for `A`): the name is written as is.
    #[error(
        "{0:?} escapes bytes that are valid UTF-8; write those characters as they are (only bytes that are not UTF-8 are written \\xHH)"
    )]
    NotCanonical(String),
    /// The bytes are not UTF-8 and this operating system's file names must be.
    #[error("{0:?} names bytes that are not UTF-8, which file names here cannot hold")]
    NotRepresentable(String),
}

/// Appends the escaped form of one file name (raw bytes, no `/`) to `out`.
fn push_escaped(out: &mut String, bytes: &[u8]) {
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            if ch == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(ch);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
}

/// The raw bytes of a file name.
#[cfg(unix)]
fn name_bytes(name: &OsStr) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt as _;
    std::borrow::Cow::Borrowed(name.as_bytes())
}

/// The bytes of a file name (WTF-8 elsewhere: an unpaired surrogate is not UTF-8 and
/// so is escaped, which keeps two names apart though it cannot be decoded back).
#[cfg(not(unix))]
fn name_bytes(name: &OsStr) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Owned(name.as_encoded_bytes().to_vec())
}

/// The escaped text of one file name: unchanged when it is valid UTF-8 without a
/// backslash, else with `\xHH` for bytes that are not UTF-8 and `\\` for a backslash.
pub fn encode_name(name: &OsStr) -> String {
    let bytes = name_bytes(name);
    match std::str::from_utf8(&bytes) {
        Ok(s) if !s.contains('\\') => s.to_owned(),
        _ => {
            let mut out = String::with_capacity(bytes.len() + 8);
            push_escaped(&mut out, &bytes);
            out
        }
    }
}

/// The text of a relative path: its normal components, each [`encode_name`]d, joined
/// by `/` (`.` components are dropped; `""` for an empty path). `..`, a root or a
/// prefix are written as their plain text, so the caller must pass a path below a root.
pub fn encode(rel: &Path) -> String {
    let mut out = String::new();
    for c in rel.components() {
        let name = match c {
            Component::CurDir => continue,
            Component::Normal(n) => encode_name(n),
            other => other.as_os_str().to_string_lossy().into_owned(),
        };
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(&name);
    }
    out
}

/// The value of an ASCII hex digit.
fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// The raw bytes an escaped text stands for (`/` kept as is).
///
/// Errors: [`PathTextError::BadEscape`] for a backslash that starts neither `\\` nor
/// `\xHH`; [`PathTextError::NotCanonical`] for a text [`encode`] would not write.
pub fn decode_bytes(text: &str) -> Result<Vec<u8>, PathTextError> {
    if !text.contains('\\') {
        return Ok(text.as_bytes().to_vec());
    }
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        match b.get(i + 1) {
            Some(b'\\') => {
                out.push(b'\\');
                i += 2;
            }
            Some(b'x') => match (
                b.get(i + 2).and_then(|&h| hex(h)),
                b.get(i + 3).and_then(|&l| hex(l)),
            ) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 4;
                }
                _ => return Err(PathTextError::BadEscape(text.to_owned())),
            },
            _ => return Err(PathTextError::BadEscape(text.to_owned())),
        }
    }
    // One text per name: re-encoding must give the text back (no `\x41`, no lower-case
    // hex, no escaped byte that joins its neighbours into valid UTF-8).
    let mut again = String::with_capacity(text.len());
    for (i, name) in out.split(|&c| c == b'/').enumerate() {
        if i > 0 {
            again.push('/');
        }
        match std::str::from_utf8(name) {
            Ok(s) if !s.contains('\\') => again.push_str(s),
            _ => push_escaped(&mut again, name),
        }
    }
    if again != text {
        return Err(PathTextError::NotCanonical(text.to_owned()));
    }
    Ok(out)
}

/// The relative path an escaped text stands for, ready to join to the root.
///
/// Errors: as [`decode_bytes`]; on an operating system whose file names are Unicode,
/// [`PathTextError::NotRepresentable`] for bytes that are not UTF-8.
pub fn decode(text: &str) -> Result<PathBuf, PathTextError> {
    let bytes = decode_bytes(text)?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt as _;
        Ok(PathBuf::from(OsString::from_vec(bytes)))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(bytes)
            .map(|s| PathBuf::from(OsString::from(s)))
            .map_err(|_| PathTextError::NotRepresentable(text.to_owned()))
    }
}

/// `root` joined with the path a stored text stands for. A text that is not a
/// canonical escape (which the index never stores) is joined as it is written, so a
/// read of it fails with "not found" rather than reaching another file.
pub fn to_abs(root: &Path, text: &str) -> PathBuf {
    match decode(text) {
        Ok(rel) => root.join(rel),
        Err(_) => root.join(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn os(bytes: &[u8]) -> OsString {
        use std::os::unix::ffi::OsStringExt as _;
        OsString::from_vec(bytes.to_vec())
    }

    #[test]
    fn plain_names_are_unchanged() {
        assert_eq!(encode(Path::new("src/a.py")), "src/a.py");
        assert_eq!(encode(Path::new("./src/é ü.rs")), "src/é ü.rs");
        assert_eq!(decode("src/é ü.rs").unwrap(), PathBuf::from("src/é ü.rs"));
        assert_eq!(encode(Path::new("")), "");
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_stay_distinct_and_round_trip() {
        let ff = os(b"\xff.py");
        let fe = os(b"\xfe.py");
        assert_eq!(encode_name(&ff), "\\xFF.py");
        assert_eq!(encode_name(&fe), "\\xFE.py");
        let path = Path::new("dir").join(os(b"a\xc3b\\c\xe9.py"));
        let text = encode(&path);
        assert_eq!(text, "dir/a\\xC3b\\\\c\\xE9.py");
        assert_eq!(decode(&text).unwrap(), path);
        assert_eq!(decode("\\xFF.py").unwrap(), PathBuf::from(ff));
    }

    #[cfg(unix)]
    #[test]
    fn a_valid_name_with_a_backslash_or_an_escape_look_round_trips() {
        let name = os(b"a\\b.py");
        assert_eq!(encode_name(&name), "a\\\\b.py");
        assert_eq!(decode("a\\\\b.py").unwrap(), PathBuf::from(&name));
        // A real name that reads like an escape is kept apart from the byte it spells.
        let looks = os(b"\\xFF.py");
        assert_eq!(encode_name(&looks), "\\\\xFF.py");
        assert_eq!(decode("\\\\xFF.py").unwrap(), PathBuf::from(&looks));
        assert_ne!(encode_name(&looks), encode_name(&os(b"\xff.py")));
    }

    #[test]
    fn only_the_canonical_text_decodes() {
        assert!(matches!(
            decode("a\\b.py"),
            Err(PathTextError::BadEscape(_))
        ));
        assert!(matches!(decode("a\\"), Err(PathTextError::BadEscape(_))));
        assert!(matches!(decode("a\\xF"), Err(PathTextError::BadEscape(_))));
        assert!(matches!(
            decode("a\\x41"),
            Err(PathTextError::NotCanonical(_))
        ));
        assert!(matches!(
            decode("a\\xff"),
            Err(PathTextError::NotCanonical(_))
        ));
        // `é` is valid UTF-8 and so is written as a character, not as two escapes.
        assert!(matches!(
            decode("\\xC3\\xA9"),
            Err(PathTextError::NotCanonical(_))
        ));
    }
}
