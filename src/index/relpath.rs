//! Arithmetic on root-relative paths (`/`-separated, no leading `/`), shared by import
//! resolution and the call resolver. Pure string functions: no file system access.

/// Joins a `/`-separated directory and a relative path, folding `.` and `..`.
/// `None` when `..` climbs above the root.
pub fn join_normalized(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// Directory part of a root-relative path (`""` at the root).
pub fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}
