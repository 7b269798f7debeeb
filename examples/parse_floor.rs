//! The parse floor of a tree: how long tree-sitter alone takes to parse the files an
//! index run would parse, on as many threads, with the files already in memory.
//!
//! An index run cannot be faster than this: every file it parses goes through the same
//! grammar once. What the run spends beyond it (reading, hashing, the extraction
//! queries, writing, resolution) is what can still be cut.
//!
//! The file set is the index's: the same walk (ignore rules unless `--no-ignore`, the
//! default excludes), binary files left out, the language detected the same way
//! (`Language::detect`), minified JavaScript left out. Each file is parsed as read (the
//! index first blanks C annotation macros such as `__acquires(x)`; that pass is not
//! part of the floor).
//!
//! Usage (built by `cargo build --release --examples`, and by `cargo test --release`):
//!
//! ```text
//! target/release/examples/parse_floor ROOT [--no-ignore] [--threads N] [--extract]
//! ```
//!
//! With `--extract`, each file goes through the index's whole extraction instead
//! (`lang::extract`: the parse, the C annotation pass and the walk that collects
//! symbols, imports and references), so `parseSeconds` less the floor is what the
//! extraction adds to the parse.
//!
//! `--threads` defaults to the thread count of an index run (rayon's default: the
//! available cores). Prints one JSON object: `files`, `bytes`, `threads`, `readSeconds`
//! (reading into memory, not part of the floor), `parseSeconds` (wall time of the
//! parses), `megabytesPerSecond`, and `byLanguage` (`files`, `bytes` per language).
//! Exit status 2 on a bad argument or a root that cannot be walked.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;

use constellation::lang::{self, Language};
use constellation::walk::{self, WalkOptions};

fn main() {
    let mut root: Option<PathBuf> = None;
    let mut opts = WalkOptions::default();
    let mut threads: Option<usize> = None;
    let mut with_extraction = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--no-ignore" => opts.ignore_files = false,
            "--extract" => with_extraction = true,
            "--threads" => {
                threads = args.next().and_then(|n| n.parse().ok()).filter(|&n| n > 0);
                if threads.is_none() {
                    fail("--threads needs a positive number");
                }
            }
            "-h" | "--help" => {
                println!("usage: parse_floor ROOT [--no-ignore] [--threads N] [--extract]");
                return;
            }
            _ if root.is_none() && !arg.starts_with('-') => root = Some(PathBuf::from(arg)),
            _ => fail(&format!("unexpected argument {arg}")),
        }
    }
    let Some(root) = root else {
        fail("usage: parse_floor ROOT [--no-ignore] [--threads N] [--extract]")
    };
    let walked = walk::walk(&root, &opts).unwrap_or_else(|e| fail(&e.to_string()));

    let started = Instant::now();
    let sources: Vec<(Language, Vec<u8>)> = walked
        .files
        .iter()
        .filter_map(|f| {
            let bytes = walk::read_regular(&f.abs_path, opts.max_file_size).ok()?;
            if walk::looks_binary(&bytes) {
                return None;
            }
            let language = Language::detect(&f.path, &bytes)?;
            let minified = language == Language::JavaScript && walk::looks_minified(&bytes);
            (!minified).then_some((language, bytes))
        })
        .collect();
    let read_seconds = started.elapsed().as_secs_f64();

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let started = Instant::now();
    let failed = pool.install(|| {
        sources
            .par_iter()
            .map_init(tree_sitter::Parser::new, |parser, (language, bytes)| {
                if with_extraction {
                    return lang::extract(*language, bytes).is_err();
                }
                parser.set_language(&lang::grammar(*language)).is_err()
                    || parser.parse(bytes, None).is_none()
            })
            .filter(|&failed| failed)
            .count()
    });
    let parse_seconds = started.elapsed().as_secs_f64();

    let bytes: usize = sources.iter().map(|(_, b)| b.len()).sum();
    let mut by_language: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (language, b) in &sources {
        let entry = by_language.entry(language.name()).or_default();
        entry.0 += 1;
        entry.1 += b.len();
    }
    let report = serde_json::json!({
        "files": sources.len(),
        "bytes": bytes,
        "threads": pool.current_num_threads(),
        "readSeconds": round(read_seconds),
        "parseSeconds": round(parse_seconds),
        "megabytesPerSecond": round(bytes as f64 / 1e6 / parse_seconds.max(1e-9)),
        "failed": failed,
        "byLanguage": by_language
            .iter()
            .map(|(name, (files, bytes))| (name.to_string(), serde_json::json!({"files": files, "bytes": bytes})))
            .collect::<serde_json::Map<_, _>>(),
    });
    println!("{report}");
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn fail(message: &str) -> ! {
    eprintln!("parse_floor: {message}");
    std::process::exit(2)
}
