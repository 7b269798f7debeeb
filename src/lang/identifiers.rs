//! Identifier parts: a name split where a person reads word boundaries, for the
//! full-text symbol search (`parseHTTPResponse` → `parse http response`,
//! `snake_case` → `snake case`). Pure text functions; no parsing, no database.

/// The parts of `text`, lowercased, in order: split at every character that is neither
/// a letter nor a digit (`_`, `.`, `:`, `/`, spaces, ...), at a lower-case letter or
/// digit followed by an upper-case letter (`parseHttp` → `parse` `http`), and before
/// the last capital of a run of capitals followed by a lower-case letter (an acronym:
/// `HTTPResponse` → `http` `response`). Digits stay with the letters before them
/// (`utf8Decode` → `utf8` `decode`, `u32` → `u32`).
///
/// O(n) in the length of `text`.
pub fn split_identifier(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut current, &mut parts);
            continue;
        }
        if let Some(&prev) = i.checked_sub(1).map(|p| &chars[p]) {
            let next = chars.get(i + 1).copied();
            let boundary = c.is_uppercase()
                && ((prev.is_lowercase() || prev.is_ascii_digit())
                    || (prev.is_uppercase() && next.is_some_and(char::is_lowercase)));
            if boundary {
                flush(&mut current, &mut parts);
            }
        }
        current.extend(c.to_lowercase());
    }
    flush(&mut current, &mut parts);
    parts
}

fn flush(current: &mut String, parts: &mut Vec<String>) {
    if !current.is_empty() {
        parts.push(std::mem::take(current));
    }
}

/// The whole name as one search token: lowercased, every character that is neither a
/// letter nor a digit replaced by `_` (`parseHTTPResponse` → `parsehttpresponse`,
/// `Shape::area` → `shape__area`), so a case-insensitive exact name is one token.
pub fn name_token(name: &str) -> String {
    name.chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> Vec<String> {
        split_identifier(s)
    }

    #[test]
    fn camel_snake_and_acronyms() {
        assert_eq!(split("parseHTTPResponse"), ["parse", "http", "response"]);
        assert_eq!(split("snake_case"), ["snake", "case"]);
        assert_eq!(split("HTTPServer"), ["http", "server"]);
        assert_eq!(split("getURL"), ["get", "url"]);
        assert_eq!(split("XMLHttpRequest"), ["xml", "http", "request"]);
        assert_eq!(split("__init__"), ["init"]);
        assert_eq!(split("SCREAMING_SNAKE"), ["screaming", "snake"]);
        assert_eq!(split("utf8Decode"), ["utf8", "decode"]);
        assert_eq!(split("parse_u32"), ["parse", "u32"]);
        assert_eq!(split("Vec2D"), ["vec2", "d"]);
        assert_eq!(split("src/tools/drill.rs"), ["src", "tools", "drill", "rs"]);
        assert_eq!(split("Shape::area"), ["shape", "area"]);
        assert_eq!(
            split("fn parse(s: &str) -> Result<Ast>"),
            ["fn", "parse", "s", "str", "result", "ast"]
        );
        assert_eq!(split(""), Vec::<String>::new());
        assert_eq!(split("$"), Vec::<String>::new());
    }

    #[test]
    fn whole_name_token() {
        assert_eq!(name_token("parseHTTPResponse"), "parsehttpresponse");
        assert_eq!(name_token("snake_case"), "snake_case");
        assert_eq!(name_token("Shape::area"), "shape__area");
        assert_eq!(name_token("src/a.rs"), "src_a_rs");
    }
}
