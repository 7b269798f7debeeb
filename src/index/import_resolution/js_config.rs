//! The JavaScript/TypeScript project files that steer import resolution, read from disk
//! for [`super`] (import resolution): `package.json` (`name`, `exports`, `imports`, `main`,
//! `module`, `types`) and `tsconfig.json`/`jsconfig.json` (`compilerOptions.baseUrl`,
//! `paths`, `outDir`, `rootDir`, following `extends`).
//!
//! Objects are read with their key order kept ([`Json`]): Node tries the conditions of
//! an `exports` entry in the order they are written, and so does this module. Nothing
//! here knows the indexed file set; it maps specifiers to candidate paths
//! (root-relative, `/`-separated) and [`super`] (import resolution) checks which exist.
//!
//! Sources: Node's "Modules: Packages" (`PACKAGE_EXPORTS_RESOLVE`, pattern keys with one
//! `*`, the longest prefix winning; `null` targets block a subpath) and the TypeScript
//! handbook's tsconfig reference (`extends` chains, `paths` relative to `baseUrl` when
//! set, else to the config that defines them; `outDir`/`rootDir` relative to the config
//! that defines them).

use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::index::relpath::{join_normalized, parent_dir};

/// A JSON value whose objects keep their key order.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value of `key` in an object (the first, if written twice).
    pub(super) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        struct JsonVisitor;

        impl<'de> Visitor<'de> for JsonVisitor {
            type Value = Json;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_none<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
                Json::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Number(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Number(v as f64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
                Ok(Json::Number(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::String(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<Json, E> {
                Ok(Json::String(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut entries = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Json>()? {
                    entries.push((k, v));
                }
                Ok(Json::Object(entries))
            }
        }

        deserializer.deserialize_any(JsonVisitor)
    }
}

/// Reads a JSON (or, for tsconfig, JSON5: comments, trailing commas) file under `root`.
/// `None` when it is missing or not valid (logged: a broken manifest resolves nothing).
fn read_json(root: &Path, path: &str, json5: bool) -> Option<Json> {
    let text = match crate::walk::read_stored_text(root, path, crate::walk::MAX_TOOL_READ) {
        Ok(t) => t,
        Err(e) => {
            tracing::debug!("{path}: {e}");
            return None;
        }
    };
    let parsed = if json5 {
        json5::from_str::<Json>(&text).map_err(|e| e.to_string())
    } else {
        serde_json::from_str::<Json>(&text).map_err(|e| e.to_string())
    };
    match parsed {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::warn!("{path} is not valid JSON: {e}");
            None
        }
    }
}

// ---- package.json ----------------------------------------------------------------------

/// What resolution reads from one `package.json`.
#[derive(Debug, Default)]
pub(super) struct Manifest {
    /// `name`: how other packages of the workspace import this one.
    pub name: Option<String>,
    /// `exports`, as written (absent: every file is importable by subpath).
    pub exports: Option<Json>,
    /// `imports`: the package's private `#name` specifiers.
    pub imports: Option<Json>,
    /// Entry points when there is no `exports`, in the order tried: `main`, `module`,
    /// `types`, `typings`.
    pub entries: Vec<String>,
}

/// Reads the `package.json` at root-relative `path`; `None` if unreadable or invalid.
pub(super) fn read_manifest(root: &Path, path: &str) -> Option<Manifest> {
    let v = read_json(root, path, false)?;
    let text = |key: &str| v.get(key).and_then(Json::as_str).map(str::to_string);
    Some(Manifest {
        name: text("name").filter(|n| !n.is_empty()),
        exports: v.get("exports").cloned(),
        imports: v.get("imports").cloned(),
        entries: ["main", "module", "types", "typings"]
            .iter()
            .filter_map(|k| text(k))
            .filter(|e| !e.is_empty())
            .collect(),
    })
}

/// Splits a bare specifier into its package name and subpath (`"."` or `"./rest"`):
/// `@scope/pkg/a/b` → (`@scope/pkg`, `./a/b`), `pkg` → (`pkg`, `.`).
pub(super) fn split_bare(spec: &str) -> Option<(&str, String)> {
    let mut parts = spec.splitn(if spec.starts_with('@') { 3 } else { 2 }, '/');
    let first = parts.next()?;
    let name_len = if spec.starts_with('@') {
        first.len() + 1 + parts.next().filter(|s| !s.is_empty())?.len()
    } else {
        first.len()
    };
    if name_len == 0 {
        return None;
    }
    let (name, rest) = spec.split_at(name_len);
    let sub = match rest.strip_prefix('/') {
        Some(r) if !r.is_empty() => format!("./{r}"),
        _ => ".".to_string(),
    };
    Some((name, sub))
}

/// How a subpath maps through an `exports` (or `imports`) value.
#[derive(Debug, PartialEq)]
pub(super) enum Mapped {
    /// No key matches: the package does not expose this subpath.
    NotExported,
    /// Candidate targets, package-relative as written (`./dist/x.js`, or a bare
    /// specifier for `imports`), in the order to try (conditions in written order,
    /// array items in order); empty when the match is `null` (blocked).
    Targets(Vec<String>),
}

/// Maps `subpath` (`"."`, `"./x"`, or `"#x"` for `imports`) through `map`, as Node's
/// `PACKAGE_EXPORTS_RESOLVE` / `PACKAGE_IMPORTS_RESOLVE` would, except that every
/// condition is taken (a static index serves all of them) in written order.
pub(super) fn map_subpath(map: &Json, subpath: &str) -> Mapped {
    // Sugar: a string, an array, or an object of conditions is the "." entry.
    let is_subpath_map = match map {
        Json::Object(entries) => entries
            .iter()
            .any(|(k, _)| k.starts_with('.') || k.starts_with('#')),
        _ => false,
    };
    if !is_subpath_map {
        return if subpath == "." {
            Mapped::Targets(targets(map, None))
        } else {
            Mapped::NotExported
        };
    }
    let Json::Object(entries) = map else {
        return Mapped::NotExported;
    };
    if let Some((_, v)) = entries
        .iter()
        .find(|(k, _)| k == subpath && !k.contains('*'))
    {
        return Mapped::Targets(targets(v, None));
    }
    // Pattern keys (one `*`), longest prefix first; then legacy folder keys (`./x/`).
    let mut best: Option<(&str, &Json, String)> = None;
    for (k, v) in entries {
        let Some((pre, post)) = k.split_once('*') else {
            continue;
        };
        if post.contains('*') || subpath.len() < k.len() - 1 {
            continue;
        }
        let Some(star) = subpath.strip_prefix(pre).and_then(|s| s.strip_suffix(post)) else {
            continue;
        };
        let better = match &best {
            None => true,
            Some((bk, _, _)) => {
                let bpre = bk.split_once('*').map_or(bk.len(), |(p, _)| p.len());
                pre.len() > bpre || (pre.len() == bpre && k.len() > bk.len())
            }
        };
        if better {
            best = Some((k, v, star.to_string()));
        }
    }
    if let Some((_, v, star)) = best {
        return Mapped::Targets(targets(v, Some(&star)));
    }
    let folder = entries
        .iter()
        .filter(|(k, _)| k.ends_with('/') && subpath.starts_with(k.as_str()))
        .max_by_key(|(k, _)| k.len());
    if let Some((k, v)) = folder {
        let rest = &subpath[k.len()..];
        return Mapped::Targets(
            targets(v, None)
                .into_iter()
                .map(|t| format!("{t}{rest}"))
                .collect(),
        );
    }
    Mapped::NotExported
}

/// The strings of a target value in preference order, `*` replaced by `star`.
fn targets(v: &Json, star: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    collect_targets(v, star, &mut out, 0);
    out
}

fn collect_targets(v: &Json, star: Option<&str>, out: &mut Vec<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    match v {
        Json::String(s) => out.push(match star {
            Some(star) => s.replace('*', star),
            None => s.clone(),
        }),
        Json::Array(items) => {
            for item in items {
                collect_targets(item, star, out, depth + 1);
            }
        }
        Json::Object(entries) => {
            for (_, item) in entries {
                collect_targets(item, star, out, depth + 1);
            }
        }
        _ => {}
    }
}

// ---- tsconfig.json ---------------------------------------------------------------------

/// The compiler options of a tsconfig/jsconfig that matter for resolution, after its
/// `extends` chain. Every path is root-relative.
#[derive(Debug, Default, Clone)]
pub(super) struct TsConfig {
    /// `baseUrl`: where `paths` targets and non-relative specifiers resolve from.
    pub base: Option<String>,
    /// `paths` patterns in written order, targets root-relative.
    pub paths: PathPatterns,
    /// `outDir` and `rootDir`: the build maps `rootDir/x.ts` to `outDir/x.js`, so a
    /// package entry point under `outDir` names a source under `rootDir`.
    pub out_dir: Option<String>,
    pub root_dir: Option<String>,
}

/// `paths` patterns in written order: (pattern, targets).
type PathPatterns = Vec<(String, Vec<String>)>;

/// One config file's own options, before merging with what it extends.
#[derive(Debug, Default, Clone)]
struct Layer {
    base: Option<String>,
    /// Patterns with their targets as written, and the directory of the defining file.
    paths: Option<(PathPatterns, String)>,
    out_dir: Option<String>,
    root_dir: Option<String>,
}

impl Layer {
    /// `self` overridden by `over` field by field (`paths` as a whole, as tsc does).
    fn merge(self, over: Layer) -> Layer {
        Layer {
            base: over.base.or(self.base),
            paths: over.paths.or(self.paths),
            out_dir: over.out_dir.or(self.out_dir),
            root_dir: over.root_dir.or(self.root_dir),
        }
    }
}

/// Reads the tsconfig at root-relative `path` with its `extends` chain (relative paths,
/// or packages under a `node_modules` at or above it). An unreadable or invalid file
/// gives empty options.
pub(super) fn read_tsconfig(root: &Path, path: &str) -> TsConfig {
    let layer = read_layer(root, path, &mut Vec::new());
    let anchor = layer.base.clone();
    let paths = match layer.paths {
        Some((patterns, defined_in)) => {
            let anchor = anchor.clone().unwrap_or(defined_in);
            patterns
                .into_iter()
                .map(|(pattern, targets)| {
                    let targets = targets
                        .iter()
                        .filter_map(|t| join_normalized(&anchor, t))
                        .collect();
                    (pattern, targets)
                })
                .collect()
        }
        None => Vec::new(),
    };
    TsConfig {
        base: layer.base,
        paths,
        out_dir: layer.out_dir,
        root_dir: layer.root_dir,
    }
}

/// Longest `extends` chain followed.
const MAX_EXTENDS: usize = 16;

fn read_layer(root: &Path, path: &str, chain: &mut Vec<String>) -> Layer {
    if chain.len() >= MAX_EXTENDS || chain.iter().any(|p| p == path) {
        tracing::warn!("tsconfig {path}: extends chain too long or circular");
        return Layer::default();
    }
    let Some(v) = read_json(root, path, true) else {
        return Layer::default();
    };
    chain.push(path.to_string());
    let dir = parent_dir(path).to_string();
    let mut merged = Layer::default();
    let extends: Vec<&str> = match v.get("extends") {
        Some(Json::String(s)) => vec![s.as_str()],
        Some(Json::Array(items)) => items.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    };
    for spec in extends {
        match extends_path(root, &dir, spec) {
            Some(base) => merged = merged.merge(read_layer(root, &base, chain)),
            None => tracing::debug!("tsconfig {path}: extends {spec:?} not found"),
        }
    }
    chain.pop();
    let opts = v.get("compilerOptions");
    let opt = |key: &str| {
        opts.and_then(|o| o.get(key))
            .and_then(Json::as_str)
            .and_then(|p| join_normalized(&dir, p))
    };
    let paths = opts.and_then(|o| o.get("paths")).and_then(|p| match p {
        Json::Object(entries) => Some((
            entries
                .iter()
                .map(|(pattern, targets)| {
                    let targets = match targets {
                        Json::Array(items) => items
                            .iter()
                            .filter_map(Json::as_str)
                            .map(str::to_string)
                            .collect(),
                        _ => Vec::new(),
                    };
                    (pattern.clone(), targets)
                })
                .collect(),
            dir.clone(),
        )),
        _ => None,
    });
    merged.merge(Layer {
        base: opt("baseUrl"),
        paths,
        out_dir: opt("outDir"),
        root_dir: opt("rootDir"),
    })
}

/// The root-relative file an `extends` value names, if it exists on disk under `root`.
fn extends_path(root: &Path, dir: &str, spec: &str) -> Option<String> {
    let exists = |p: &str| crate::walk::path_text::to_abs(root, p).is_file();
    let with_json = |p: String| -> Option<String> {
        if exists(&p) {
            Some(p)
        } else if !p.ends_with(".json") && exists(&format!("{p}.json")) {
            Some(format!("{p}.json"))
        } else if exists(&format!("{p}/tsconfig.json")) {
            Some(format!("{p}/tsconfig.json"))
        } else {
            None
        }
    };
    if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".." {
        return with_json(join_normalized(dir, spec)?);
    }
    if spec.starts_with('/') {
        return None;
    }
    // A package: `node_modules/SPEC` in this directory or any above it, up to the root.
    let mut d = dir.to_string();
    loop {
        let nm = if d.is_empty() {
            "node_modules".to_string()
        } else {
            format!("{d}/node_modules")
        };
        if let Some(p) = join_normalized(&nm, spec).and_then(with_json) {
            return Some(p);
        }
        if d.is_empty() {
            return None;
        }
        d = parent_dir(&d).to_string();
    }
}

/// Picks the `paths` pattern that applies to `spec` as tsc does: an exact (star-less)
/// pattern first, else the matching pattern with the longest prefix before its `*`.
/// Returns the pattern's targets with `*` replaced by what it matched.
pub(super) fn match_paths(paths: &[(String, Vec<String>)], spec: &str) -> Option<Vec<String>> {
    if let Some((_, targets)) = paths.iter().find(|(p, _)| !p.contains('*') && p == spec) {
        return Some(targets.clone());
    }
    let mut best: Option<(usize, &Vec<String>, &str)> = None;
    for (pattern, targets) in paths {
        let Some((pre, post)) = pattern.split_once('*') else {
            continue;
        };
        if spec.len() < pre.len() + post.len() {
            continue;
        }
        let Some(star) = spec.strip_prefix(pre).and_then(|s| s.strip_suffix(post)) else {
            continue;
        };
        if best.is_none_or(|(len, _, _)| pre.len() > len) {
            best = Some((pre.len(), targets, star));
        }
    }
    best.map(|(_, targets, star)| targets.iter().map(|t| t.replace('*', star)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn objects_keep_their_key_order() {
        let v = json(r#"{"z": 1, "a": {"y": "1", "b": null}}"#);
        let Json::Object(entries) = &v else { panic!() };
        assert_eq!(entries[0].0, "z");
        assert_eq!(
            v.get("a"),
            Some(&Json::Object(vec![
                ("y".into(), Json::String("1".into())),
                ("b".into(), Json::Null)
            ]))
        );
    }

    #[test]
    fn bare_specifiers_split_into_package_and_subpath() {
        assert_eq!(split_bare("pkg"), Some(("pkg", ".".into())));
        assert_eq!(split_bare("pkg/a/b"), Some(("pkg", "./a/b".into())));
        assert_eq!(split_bare("@s/pkg"), Some(("@s/pkg", ".".into())));
        assert_eq!(split_bare("@s/pkg/x"), Some(("@s/pkg", "./x".into())));
        assert_eq!(split_bare("@s"), None);
    }

    #[test]
    fn exports_conditions_patterns_and_null() {
        let sugar = json(r#"{"types": "./dist/index.d.ts", "import": "./dist/index.js"}"#);
        assert_eq!(
            map_subpath(&sugar, "."),
            Mapped::Targets(vec!["./dist/index.d.ts".into(), "./dist/index.js".into()])
        );
        assert_eq!(map_subpath(&sugar, "./x"), Mapped::NotExported);
        let map = json(
            r#"{".": "./main.js", "./*": "./dist/*.js", "./feat/*": ["./f/*.js"],
                "./internal/*": null, "./legacy/": "./old/"}"#,
        );
        assert_eq!(
            map_subpath(&map, "."),
            Mapped::Targets(vec!["./main.js".into()])
        );
        assert_eq!(
            map_subpath(&map, "./a/b"),
            Mapped::Targets(vec!["./dist/a/b.js".into()])
        );
        assert_eq!(
            map_subpath(&map, "./feat/x"),
            Mapped::Targets(vec!["./f/x.js".into()])
        );
        assert_eq!(map_subpath(&map, "./internal/x"), Mapped::Targets(vec![]));
        let imports = json(r##"{"#cfg": {"node": "./cfg.node.js", "default": "./cfg.js"}}"##);
        assert_eq!(
            map_subpath(&imports, "#cfg"),
            Mapped::Targets(vec!["./cfg.node.js".into(), "./cfg.js".into()])
        );
        assert_eq!(map_subpath(&imports, "#nope"), Mapped::NotExported);
    }

    #[test]
    fn paths_prefer_exact_then_longest_prefix() {
        let paths = vec![
            ("@a/*".to_string(), vec!["one/*".to_string()]),
            (
                "@a/b/*".to_string(),
                vec!["two/*".to_string(), "three/*".to_string()],
            ),
            ("@a/exact".to_string(), vec!["four".to_string()]),
        ];
        assert_eq!(match_paths(&paths, "@a/x"), Some(vec!["one/x".into()]));
        assert_eq!(
            match_paths(&paths, "@a/b/c"),
            Some(vec!["two/c".into(), "three/c".into()])
        );
        assert_eq!(match_paths(&paths, "@a/exact"), Some(vec!["four".into()]));
        assert_eq!(match_paths(&paths, "other"), None);
    }
}
