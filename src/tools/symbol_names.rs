//! How the symbol tools read a name a person typed: a bare name (`area`), a qualified
//! name (`Shape::area`, `crate::geometry::Shape::area`), a dotted Python name
//! (`pkg.mod.Class.method`), or a file path with a qualified name after `::`
//! (`src/shapes.ts::Shape.area`). Pure text; the tools look the parts up.

/// A name query: an optional file path (matched as a suffix of indexed paths) and the
/// name's segments, outermost first (the last one is the symbol's own name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameQuery {
    pub path: Option<String>,
    pub segments: Vec<String>,
}

/// Extensions that mark a segment as a file name (`shapes.ts::Shape`).
const SOURCE_EXTENSIONS: &[&str] = &[
    "rs", "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "go", "java", "c",
    "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx",
];

/// True when `s` looks like a file path: it has a `/`, or ends in `.EXT` for a
/// source extension.
pub fn looks_like_path(s: &str) -> bool {
    s.contains('/')
        || s.rsplit_once('.')
            .is_some_and(|(stem, ext)| !stem.is_empty() && SOURCE_EXTENSIONS.contains(&ext))
}

/// Reads a name query. `::` separates segments (a leading path segment is the file);
/// without `::`, `.` does (a Python dotted name), unless the whole text is a path.
/// Leading `crate`, `self` and `super` segments are dropped (they name the current
/// crate or module, which a suffix match covers).
pub fn parse_name(text: &str) -> NameQuery {
    let text = text.trim();
    let mut path = None;
    let mut segments: Vec<String> = Vec::new();
    if text.contains("::") {
        for (i, part) in text.split("::").enumerate() {
            if i == 0 && looks_like_path(part) {
                path = Some(part.to_string());
            } else {
                segments.extend(part.split('.').filter(|s| !s.is_empty()).map(String::from));
            }
        }
    } else if looks_like_path(text) {
        path = Some(text.to_string());
    } else {
        segments.extend(text.split('.').filter(|s| !s.is_empty()).map(String::from));
    }
    while segments.len() > 1 && matches!(segments[0].as_str(), "crate" | "self" | "super") {
        segments.remove(0);
    }
    NameQuery { path, segments }
}

/// The segments that name a node from outside its file: the module path of its file
/// (the path without extension, split at `/`, a last `mod`, `lib`, `main`, `__init__`
/// or `index` dropped) followed by its qualified name split at `::` and `.`.
pub fn node_segments(path: &str, qualified_name: &str, kind: &str) -> Vec<String> {
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    let mut segs: Vec<String> = stem.split('/').map(String::from).collect();
    if segs.len() > 1
        && matches!(
            segs.last().map(String::as_str),
            Some("mod" | "lib" | "main" | "__init__" | "index")
        )
    {
        segs.pop();
    }
    if kind != "file" {
        segs.extend(
            qualified_name
                .split("::")
                .flat_map(|s| s.split('.'))
                .filter(|s| !s.is_empty())
                .map(String::from),
        );
    }
    segs
}

/// True when the node (its file path, qualified name and kind) is what `q` names: with a
/// path, the node's file path ends with it and its qualified name's segments equal
/// `q.segments` (a file node when there are none); without one, `q.segments` are a
/// suffix of [`node_segments`]. `ignore_case` compares ASCII case-insensitively.
pub fn names_node(
    q: &NameQuery,
    path: &str,
    qualified_name: &str,
    kind: &str,
    ignore_case: bool,
) -> bool {
    let eq = |a: &str, b: &str| {
        if ignore_case {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    };
    if let Some(p) = &q.path {
        let path_ok = path == p || path.ends_with(&format!("/{p}"));
        if !path_ok {
            return false;
        }
        if q.segments.is_empty() {
            return kind == "file";
        }
        if kind == "file" {
            return false;
        }
        let own: Vec<&str> = qualified_name
            .split("::")
            .flat_map(|s| s.split('.'))
            .filter(|s| !s.is_empty())
            .collect();
        return own.len() == q.segments.len() && own.iter().zip(&q.segments).all(|(a, b)| eq(a, b));
    }
    if q.segments.is_empty() {
        return false;
    }
    let segs = node_segments(path, qualified_name, kind);
    segs.len() >= q.segments.len()
        && segs[segs.len() - q.segments.len()..]
            .iter()
            .zip(&q.segments)
            .all(|(a, b)| eq(a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(path: Option<&str>, segs: &[&str]) -> NameQuery {
        NameQuery {
            path: path.map(String::from),
            segments: segs.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn query_forms() {
        assert_eq!(parse_name("area"), q(None, &["area"]));
        assert_eq!(parse_name("Shape::area"), q(None, &["Shape", "area"]));
        assert_eq!(
            parse_name("crate::geo::Shape::area"),
            q(None, &["geo", "Shape", "area"])
        );
        assert_eq!(
            parse_name("pkg.mod.Class.method"),
            q(None, &["pkg", "mod", "Class", "method"])
        );
        assert_eq!(
            parse_name("src/shapes.ts::Shape.area"),
            q(Some("src/shapes.ts"), &["Shape", "area"])
        );
        assert_eq!(
            parse_name("shapes.ts::Shape.area"),
            q(Some("shapes.ts"), &["Shape", "area"])
        );
        assert_eq!(parse_name("src/a.py"), q(Some("src/a.py"), &[]));
    }

    #[test]
    fn suffix_matching() {
        let segs = node_segments("pkg/mod/__init__.py", "Class::method", "method");
        assert_eq!(segs, ["pkg", "mod", "Class", "method"]);
        assert!(names_node(
            &parse_name("mod.Class.method"),
            "pkg/mod/__init__.py",
            "Class::method",
            "method",
            false
        ));
        assert!(!names_node(
            &parse_name("other.Class.method"),
            "pkg/mod/__init__.py",
            "Class::method",
            "method",
            false
        ));
        assert!(names_node(
            &parse_name("crate::geo::area"),
            "src/geo.rs",
            "area",
            "function",
            false
        ));
        assert!(names_node(
            &parse_name("shape::AREA"),
            "src/geo.rs",
            "Shape::area",
            "method",
            true
        ));
        assert!(!names_node(
            &parse_name("shape::AREA"),
            "src/geo.rs",
            "Shape::area",
            "method",
            false
        ));
        assert!(names_node(
            &parse_name("geo.rs::Shape::area"),
            "src/geo.rs",
            "Shape::area",
            "method",
            false
        ));
        assert!(!names_node(
            &parse_name("geo.rs::area"),
            "src/geo.rs",
            "Shape::area",
            "method",
            false
        ));
    }
}
