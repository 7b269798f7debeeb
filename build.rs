//! Computes `CONSTELLATION_EXTRACTOR_ID`: a digest of everything that decides what
//! `lang::extract` returns for a file (the sources under `src/lang/`, its queries, and
//! `Cargo.lock`, which pins the tree-sitter grammars). The parse cache keys stored facts
//! by it, so facts extracted by another build are never reused.
//!
//! The digest is std's SipHash with its fixed keys over each file's relative path and
//! bytes, in path order: stable for one toolchain, which is all a cache key needs (a
//! different toolchain only makes every entry a miss).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let mut files = Vec::new();
    files_under(Path::new("src/lang"), &mut files);
    files.push(PathBuf::from("Cargo.lock"));
    files.sort();
    let mut hasher = std::hash::DefaultHasher::new();
    for file in &files {
        file.to_string_lossy().replace('\\', "/").hash(&mut hasher);
        std::fs::read(file).unwrap_or_default().hash(&mut hasher);
    }
    println!("cargo:rerun-if-changed=src/lang");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!(
        "cargo:rustc-env=CONSTELLATION_EXTRACTOR_ID={}-{:016x}",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default(),
        hasher.finish()
    );
}
