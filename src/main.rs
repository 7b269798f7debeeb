//! The `constellation` command line: parses arguments, calls the library, prints.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};

use constellation::index::{IndexOptions, Progress};
use constellation::tools::workspace::Workspace;
use constellation::tools::{file_graph_summary, query, ToolError};
use constellation::walk::{WalkOptions, DEFAULT_MAX_FILE_SIZE};

/// mimalloc for every allocation of the process: with its `override` feature it also
/// serves the C code (tree-sitter's parser and trees, SQLite), whose many short-lived
/// allocations were about a tenth of a full index's CPU under glibc malloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `print!` that returns the write's `io::Error` instead of panicking: every command
/// prints through it (or `outln!`) with `?`, so a reader that goes away
/// (`constellation summary . | head`) ends the command quietly through [`main`].
macro_rules! out {
    ($($arg:tt)*) => {
        std::io::Write::write_fmt(&mut std::io::stdout().lock(), format_args!($($arg)*))
    };
}

/// `println!` as [`out!`]: the error comes back instead of a panic.
macro_rules! outln {
    ($($arg:tt)*) => {
        out!("{}\n", format_args!($($arg)*))
    };
}

/// Code-intelligence indexer and MCP server: indexes a workspace into SQLite and
/// answers graph summaries.
#[derive(Parser)]
#[command(name = "constellation", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    global: Global,
}

#[derive(Args, Clone)]
struct Global {
    /// Index database (default ROOT/.constellation/index.db).
    #[arg(long, global = true, env = "CONSTELLATION_DB", value_name = "FILE")]
    db: Option<PathBuf>,
    /// More log output on stderr (-v info, -vv debug).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Only errors on stderr.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Skip paths matching this glob (relative to ROOT; repeatable), besides .gitignore,
    /// hidden files, node_modules and the default excludes.
    #[arg(long, global = true, value_name = "GLOB")]
    exclude: Vec<String>,
    /// Files larger than this many bytes are recorded but not read.
    #[arg(long, global = true, default_value_t = DEFAULT_MAX_FILE_SIZE, value_name = "BYTES")]
    max_file_size: u64,
    /// Also index vendored, minified and bundled code and lock files (skipped at any
    /// depth by default; the README lists the names).
    #[arg(long, global = true)]
    no_default_excludes: bool,
    /// Apply no ignore rules: list every file but hidden ones, node_modules, the default
    /// excludes and --exclude globs (by default a git work tree indexes what git lists,
    /// tracked files and untracked ones not ignored; elsewhere .gitignore, .ignore and
    /// .git/info/exclude apply).
    #[arg(long, global = true)]
    no_ignore: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Index ROOT incrementally (only what changed since the last run). When a
    /// `serve` of ROOT with the same walk options keeps this index fresh from its file
    /// watch, it is asked instead: the command waits until the server's index includes
    /// every change made before it started, and walks nothing.
    Index {
        /// Workspace root.
        #[arg(default_value = ".")]
        root: PathBuf,
        /// Walk the tree and index it here even when a server's file watch keeps this
        /// index fresh.
        #[arg(long)]
        walk: bool,
        /// Rebuild the whole index from scratch.
        #[arg(long)]
        full: bool,
        /// Print one JSON object with counts and timings.
        #[arg(long)]
        json: bool,
        /// Only compare the index with the disk: exit 0 when fresh, 1 when stale
        /// (with the numbers of files added, changed and removed), 2 on error.
        /// Writes nothing.
        #[arg(long, conflicts_with_all = ["full", "vacuum", "vacuum_into", "scip"])]
        check: bool,
        /// After indexing, compact the database file in place (VACUUM).
        #[arg(long)]
        vacuum: bool,
        /// After indexing, write a compacted copy of the database to FILE (VACUUM INTO).
        #[arg(long, value_name = "FILE")]
        vacuum_into: Option<PathBuf>,
        /// Precise mode: a SCIP index (from scip-python, scip-typescript, rust-analyzer,
        /// scip-java, scip-go, ...) whose definitions and references replace the
        /// heuristic call and base resolution of the files it covers and still matches
        /// (provenance `scip`, confidence 1.0). Repeatable.
        #[arg(long, value_name = "FILE")]
        scip: Vec<PathBuf>,
        /// Index only shard K of N of the files (chosen by a hash of each path, the same
        /// on every machine), from nothing, into --db, leaving references unresolved for
        /// `constellation merge`: N jobs index N shards, one merge makes the index.
        #[arg(long, value_name = "K/N", conflicts_with_all = ["check", "scip"])]
        shard: Option<constellation::index::shard::ShardSpec>,
    },
    /// Combine the shard databases of `index --shard K/N` (all N of one tree) into the
    /// new index database OUT, resolving every reference over the whole tree: the
    /// result equals a single build (`export` is byte-identical).
    Merge {
        /// The index database to write; must not exist.
        out: PathBuf,
        /// The shard databases, in any order.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// The tree's checkout on this machine (default: the root the shards were
        /// indexed at); resolution reads its build files (tsconfig.json, go.mod, ...).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Print one JSON object with counts and timings.
        #[arg(long)]
        json: bool,
    },
    /// Export the index to stdout: the whole graph as JSON (byte-identical for identical
    /// trees), the file-level dependency graph as Graphviz DOT, or that graph drawn as a
    /// self-contained HTML page. Reads the database as it is.
    Export {
        /// Workspace root.
        #[arg(default_value = ".")]
        root: PathBuf,
        /// What to write: json, dot or html.
        #[arg(long, value_enum, default_value_t = ExportFormat::Json)]
        format: ExportFormat,
        /// html: draw at most this many files, those of highest PageRank.
        #[arg(long, default_value_t = constellation::docs::window::DEFAULT_MAX_NODES)]
        max_nodes: usize,
    },
    /// The graph summary (constellation_get_graph_summary); indexes first if needed.
    Summary {
        /// Workspace root.
        #[arg(default_value = ".")]
        root: PathBuf,
        /// Print the JSON response instead of text.
        #[arg(long)]
        json: bool,
        /// Rebuild the index from scratch first.
        #[arg(long)]
        force_refresh: bool,
    },
    /// The budgeted symbol-graph summary (summarize_graph); indexes first if needed.
    Summarize {
        /// Workspace root.
        #[arg(default_value = ".")]
        root: PathBuf,
        #[command(flatten)]
        opts: SummarizeOpts,
    },
    /// What depends on a symbol or a file (get_impact), or on the symbols a git change
    /// touches (--diff: diff_impact), and the tests that reach them; indexes first if
    /// needed. Exit 1 when a --fail-on condition holds.
    Impact {
        /// A node id, file path, qualified name or name naming one node (not with --diff).
        #[arg(required_unless_present = "diff", conflicts_with = "diff")]
        target: Option<String>,
        /// Workspace root.
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Assess the working tree's change against BASE (default HEAD) instead of a target.
        #[arg(long, value_name = "BASE", num_args = 0..=1, default_missing_value = "HEAD")]
        diff: Option<String>,
        /// With --diff: only the staged changes.
        #[arg(long, requires = "diff")]
        staged: bool,
        /// Edges followed from the target (1-10).
        #[arg(long, default_value_t = constellation::tools::impact::DEFAULT_DEPTH)]
        depth: usize,
        /// Edges at least this confident are trusted; the rest is listed as possible.
        #[arg(long, default_value_t = constellation::graph::symbol_graph::DEFAULT_MIN_CONFIDENCE)]
        min_confidence: f64,
        /// With --diff: fail (exit 1) when more than N trusted dependents are found (a
        /// number) or a changed file matches (a glob). Repeatable.
        #[arg(long, value_name = "N|GLOB", num_args = 1.., requires = "diff")]
        fail_on: Vec<String>,
        /// Token budget of the answer (cl100k_base).
        #[arg(long, default_value_t = 100_000)]
        budget_tokens: usize,
        /// Print the JSON answer instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Serve MCP over stdio.
    Serve {
        /// Workspace roots. The first is the default one (and the only one --db applies
        /// to); each further root is registered at start: indexed and watched in the
        /// background with its own database (ROOT/.constellation/index.db), listed by
        /// get_status, and named by a call's workspaceRoot.
        #[arg(default_value = ".", value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// How many saved work entries (save_current_work_info) the database keeps; the
        /// least recently used is evicted beyond it.
        #[arg(
            long,
            env = "CONSTELLATION_WORK_CAPACITY",
            default_value_t = constellation::memory::work::DEFAULT_CAPACITY,
            value_parser = clap::builder::ValueParser::new(
                clap::builder::TypedValueParser::map(
                    clap::value_parser!(u32).range(1..=100_000),
                    |n| n as usize
                )
            ),
            value_name = "N"
        )]
        work_capacity: usize,
        /// Do not watch the tree for changes: every tool call then checks the disk
        /// itself (a walk, at most once per second). By default a file watch keeps the
        /// index fresh in the background and calls walk nothing while nothing changed.
        #[arg(long)]
        no_watch: bool,
        /// Serve MCP over streamable HTTP at http://ADDR/mcp instead of stdio, for many
        /// clients at once (e.g. 127.0.0.1:8765; port 0 picks a free one, printed on
        /// stderr). Bind to a loopback address unless other machines must reach it.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// With --http: the bearer token clients must send (`Authorization: Bearer
        /// TOKEN`). Without it (and without CONSTELLATION_TOKEN), a token is generated
        /// once and kept, readable by you only, in `http-token` beside the database.
        #[arg(
            long,
            env = "CONSTELLATION_TOKEN",
            requires = "http",
            hide_env_values = true
        )]
        token: Option<String>,
        /// Offer only these tool groups (comma-separated): graph, memory, docs, audit,
        /// workspace. All by default; `constellation tools` lists each group's tools and
        /// what their descriptions cost a client in tokens.
        #[arg(
            long,
            env = "CONSTELLATION_TOOLS",
            value_delimiter = ',',
            value_name = "GROUPS"
        )]
        tools: Vec<constellation::mcp::ToolGroup>,
        /// Also allow calls to work on DIR or any directory below it (repeatable). A
        /// call's `workspaceRoot`, `set_workspace_root` and `summarize_graph`'s `path`
        /// must lie inside ROOT, one of these, or one of the client's MCP roots; any
        /// other directory is refused with `outside_allowed_roots`.
        #[arg(long, value_name = "DIR")]
        allow_root: Vec<PathBuf>,
    },
    /// List the MCP tools `serve` offers, by group, with the tokens (cl100k_base) each
    /// costs a client's context in the tool list (name, description, input and output
    /// schemas, as `tools/list` sends them).
    Tools {
        /// Only these groups (comma-separated): graph, memory, docs, audit, workspace.
        #[arg(long, value_delimiter = ',', value_name = "GROUPS")]
        tools: Vec<constellation::mcp::ToolGroup>,
        /// Print JSON: {tools: [{name, group, tokens}], groups: {GROUP: tokens}, total}.
        #[arg(long)]
        json: bool,
    },
    /// Run read-only SQL over the index and print a table.
    Sql {
        /// Workspace root (when two arguments are given) and the query.
        #[arg(num_args = 1..=2, required = true, value_names = ["ROOT", "QUERY"])]
        args: Vec<String>,
        /// Print rows as JSON objects, one per line.
        #[arg(long)]
        json: bool,
    },
    /// Search symbols by name, words of their names, qualified name or path
    /// (search_symbols); brings the index up to date first.
    Search {
        /// What to look for (`parseHTTPResponse`, `response parse`, `Shape::area`, `pars*`).
        query: String,
        /// Workspace root.
        #[arg(default_value = ".")]
        root: PathBuf,
        /// Only nodes of this kind (function, method, class, struct, ...).
        #[arg(long)]
        kind: Option<String>,
        /// Only files in this language (rust, python, typescript, ...).
        #[arg(long)]
        language: Option<String>,
        /// Only files whose path matches this glob.
        #[arg(long, value_name = "GLOB")]
        path: Option<String>,
        /// Most hits (1-200).
        #[arg(long, default_value_t = constellation::tools::search::DEFAULT_LIMIT)]
        limit: usize,
        /// Token budget of the answer (cl100k_base).
        #[arg(long, default_value_t = constellation::tools::search::DEFAULT_BUDGET)]
        budget_tokens: usize,
        /// Print the JSON answer instead of one line per hit.
        #[arg(long)]
        json: bool,
        /// Read the index as it is, without bringing it up to date first.
        #[arg(long)]
        no_refresh: bool,
    },
    /// The source of one symbol (get_symbol_source): a node id or key, a qualified
    /// name, path::name or path:line; brings the index up to date first.
    Source {
        /// The symbol.
        symbol: String,
        /// Workspace root.
        #[arg(default_value = ".")]
        root: PathBuf,
        /// Also list callers and/or callees (repeatable).
        #[arg(long, value_name = "callers|callees")]
        include: Vec<String>,
        /// Token budget of the answer (cl100k_base).
        #[arg(long, default_value_t = constellation::tools::symbol_source::DEFAULT_BUDGET)]
        budget_tokens: usize,
        /// Print the JSON answer instead of the numbered lines.
        #[arg(long)]
        json: bool,
        /// Read the index as it is, without bringing it up to date first.
        #[arg(long)]
        no_refresh: bool,
    },
    /// What the index of ROOT holds and whether it is fresh: generation, when it was
    /// built, file/node/edge counts, and the files added, changed or removed on disk
    /// since (a walk; nothing is written). Exit 0 when fresh, 1 when changes are
    /// pending, 2 on error (no index yet, say).
    Status {
        /// Workspace root.
        #[arg(default_value = ".")]
        root: PathBuf,
        /// Print the JSON answer (the shape of the MCP tool get_status) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print the current schemas of the index and agent-memory databases: every table,
    /// index, trigger and view with its column comments, as after all migrations (the
    /// text of schema/CURRENT.sql).
    Schema,
}

/// `summarize` options: the `summarize_graph` parameters.
#[derive(Args)]
struct SummarizeOpts {
    /// Neighbourhood radius around the seeds (0-3).
    #[arg(long, default_value_t = 1)]
    radius: usize,
    /// Nodes listed in top_nodes.
    #[arg(long, default_value_t = 200)]
    top_k: usize,
    /// A seed: node id, label, name or file path (repeatable).
    #[arg(long = "seed", value_name = "SEED")]
    seeds: Vec<String>,
    /// Seeds from the files changed against git HEAD.
    #[arg(long)]
    seeds_from_diff: bool,
    /// Only files matching this glob (repeatable).
    #[arg(long = "include-filter", value_name = "GLOB")]
    include_filters: Vec<String>,
    /// Leave out files matching this glob (repeatable; replaces the default
    /// **/tests/**, **/test/**, **/fixtures/**, **/vendor/**, **/generated/**, **/examples/**).
    #[arg(long = "exclude-filter", value_name = "GLOB")]
    exclude_filters: Vec<String>,
    /// Only this language (repeatable).
    #[arg(long = "language", value_name = "LANG")]
    language_filters: Vec<String>,
    /// SeedOnly, Module, Community or Full.
    #[arg(long, default_value = "Community")]
    scope: String,
    /// Leave out communities.
    #[arg(long)]
    no_communities: bool,
    /// Most communities listed.
    #[arg(long, default_value_t = 50)]
    max_communities: usize,
    /// Sample labels listed per community.
    #[arg(long, default_value_t = 10)]
    max_nodes_per_community: usize,
    /// Leave out call-path samples.
    #[arg(long)]
    no_paths: bool,
    /// Most call paths listed.
    #[arg(long, default_value_t = 5)]
    path_samples: usize,
    /// Longest call path listed, in edges.
    #[arg(long, default_value_t = 5)]
    path_max_hops: usize,
    /// Token budget (cl100k_base) of the rendered answer.
    #[arg(long, default_value_t = 3000)]
    budget_tokens: usize,
    /// summary (text), json or dot.
    #[arg(long, default_value = "summary")]
    format: String,
    /// Use only edges at least this confident (0-1): call and base edges carry the
    /// measured precision of the rule that resolved them.
    #[arg(long, default_value_t = constellation::graph::symbol_graph::DEFAULT_MIN_CONFIDENCE)]
    min_confidence: f64,
}

impl SummarizeOpts {
    fn to_args(&self) -> Result<constellation::tools::symbol_summary::SummarizeArgs> {
        let value = serde_json::json!({
            "radius": self.radius,
            "top_k": self.top_k,
            "seeds": self.seeds,
            "seeds_from_diff": self.seeds_from_diff,
            "include_filters": self.include_filters,
            "exclude_filters": if self.exclude_filters.is_empty() { None } else { Some(&self.exclude_filters) },
            "language_filters": self.language_filters,
            "scope": self.scope,
            "with_communities": !self.no_communities,
            "max_communities": self.max_communities,
            "max_nodes_per_community": self.max_nodes_per_community,
            "with_paths": !self.no_paths,
            "path_samples": self.path_samples,
            "path_max_hops": self.path_max_hops,
            "budget_tokens": self.budget_tokens,
            "format": self.format,
            "min_confidence": self.min_confidence,
        });
        Ok(constellation::tools::parse_arguments(value)?)
    }
}

/// What `export` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ExportFormat {
    /// The whole index as JSON, byte-identical for identical trees.
    Json,
    /// The file-level dependency graph as Graphviz DOT.
    Dot,
    /// The self-contained HTML view of the file graph (as the MCP tool open_window).
    Html,
}

fn init_logging(g: &Global) {
    let default = if g.quiet {
        "error"
    } else {
        match g.verbose {
            0 => "warn",
            1 => "info",
            _ => "debug",
        }
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("CONSTELLATION_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}

fn options(g: &Global) -> IndexOptions {
    IndexOptions {
        full: false,
        walk: WalkOptions {
            excludes: g.exclude.clone(),
            max_file_size: g.max_file_size,
            default_excludes: !g.no_default_excludes,
            ignore_files: !g.no_ignore,
        },
        record_noop: false,
        scip: Vec::new(),
        shard: None,
        resolver_cache: None,
        skip_totals: false,
    }
}

/// Renders index progress on stderr: a bar on a terminal, a line every few seconds
/// otherwise, nothing when quiet.
struct ProgressView {
    bar: Option<indicatif::ProgressBar>,
    lines: bool,
    started: Instant,
    last_line: Mutex<Instant>,
}

impl ProgressView {
    fn new(quiet: bool) -> ProgressView {
        let tty = std::io::stderr().is_terminal();
        let bar = (!quiet && tty).then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(progress_style());
            bar
        });
        ProgressView {
            bar,
            lines: !quiet && !tty,
            started: Instant::now(),
            last_line: Mutex::new(Instant::now()),
        }
    }

    fn update(&self, p: Progress) {
        if let Some(bar) = &self.bar {
            match p {
                Progress::Walked { to_read, .. } => {
                    bar.set_length(to_read as u64);
                    bar.set_message("indexing");
                }
                Progress::Read { done, .. } => bar.set_position(done as u64),
                Progress::Resolving { refs } => {
                    bar.set_message(format!("resolving {refs} references"))
                }
            }
        } else if self.lines {
            let mut last = match self.last_line.lock() {
                Ok(l) => l,
                Err(_) => return,
            };
            let now = Instant::now();
            let due = now.duration_since(*last) >= Duration::from_secs(3);
            match p {
                Progress::Read { done, total } if due => {
                    let rate = done as f64 / self.started.elapsed().as_secs_f64().max(0.001);
                    eprintln!("indexing: {done}/{total} files ({rate:.0} files/s)");
                    *last = now;
                }
                Progress::Resolving { refs } if due => {
                    eprintln!("resolving {refs} references");
                    *last = now;
                }
                _ => {}
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The look of the progress bar: `indexing [====>   ] 120/400 files (342 files/s, 1s)`.
/// The rate is a whole number of files per second (indicatif's own `{per_sec}` prints
/// four decimals, `342.3506/s`).
fn progress_style() -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(
        "{spinner} {msg} [{bar:30}] {pos}/{len} files ({rate}, {eta})",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
    .with_key(
        "rate",
        |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.0} files/s", state.per_sec());
        },
    )
    .progress_chars("=> ")
}

fn open_workspace(root: &Path, g: &Global) -> Result<Workspace> {
    Workspace::open(root, g.db.as_deref(), options(g)).map_err(|e| anyhow::anyhow!("{e}"))
}

/// [`open_workspace`], then (when `refresh`) the index brought up to date with the disk.
fn open_fresh_workspace(root: &Path, g: &Global, refresh: bool) -> Result<Workspace> {
    let ws = open_workspace(root, g)?;
    if refresh {
        refresh_or_warn(&ws, &|_| {})?;
    }
    Ok(ws)
}

/// Brings the index of `ws` up to date before a command reads it. When that fails but
/// an index exists (a read-only database, a full disk), the command goes on with the
/// index as it is, after a `warning:` line on stderr that says why it may be stale.
fn refresh_or_warn(ws: &Workspace, progress: &(dyn Fn(Progress) + Sync)) -> Result<()> {
    ws.refresh_or_stale(false, progress)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if let Some(why) = ws.refresh_failure() {
        eprintln!("warning: answering from the index as it is, which may be stale: {why}");
    }
    Ok(())
}

fn main() {
    constellation::store::configure_sqlite();
    let cli = Cli::parse();
    init_logging(&cli.global);
    match run(cli) {
        Ok(code) => std::process::exit(code),
        // The reader of stdout went away (`| head`): what it wanted is printed.
        Err(e) if is_broken_pipe(&e) => std::process::exit(0),
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            std::process::exit(2);
        }
    }
}

/// The error and its causes, joined by `: `, each cause left out when the text so far
/// already says it (a SQLite error's text is repeated by each layer that wraps it:
/// "database or disk is full" three times).
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        // SQLite's own error ends with its message after "Error code N: ".
        let said = part.rsplit(": ").next().unwrap_or(&part).trim();
        if text.contains(part.trim()) || (!said.is_empty() && text.contains(said)) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// True when `e` comes from writing to a pipe whose reader has gone away, told by the
/// error kind (`BrokenPipe`), not by its text.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The database of `root`: `--db`/`CONSTELLATION_DB`, else `ROOT/.constellation/index.db`.
fn db_path(root: &Path, g: &Global) -> PathBuf {
    g.db.clone()
        .unwrap_or_else(|| constellation::index::default_db_path(root))
}

/// `index --check`: compares without writing; exit 0 fresh, 1 stale.
fn check(root: &Path, g: &Global, json: bool) -> Result<i32> {
    let db = db_path(root, g);
    let conn = constellation::store::open_read_only(&db)?;
    let root = root
        .canonicalize()
        .with_context(|| format!("workspace root {}", root.display()))?;
    let s = constellation::index::check(&conn, &db, &root, &options(g).walk)?;
    if json {
        outln!(
            "{}",
            serde_json::json!({"fresh": s.is_fresh(), "added": s.added, "changed": s.changed, "removed": s.removed})
        )?;
    } else if s.is_fresh() {
        outln!("fresh: the index matches {}", root.display())?;
    } else {
        outln!(
            "stale: {} added, {} changed, {} removed since the index was built",
            s.added,
            s.changed,
            s.removed
        )?;
    }
    Ok(if s.is_fresh() { 0 } else { 1 })
}

/// `status`: the index of `root` against the disk, as `get_status` reports a root. The
/// CLI watches nothing: beside a `serve` whose file watch keeps this index fresh it asks
/// that watch (nothing is then pending and nothing is walked), else it walks the tree.
/// Exit 0 fresh, 1 stale.
fn status(root: &Path, g: &Global, json: bool) -> Result<i32> {
    let db = db_path(root, g);
    let conn = constellation::store::open_read_only(&db)?;
    let root = root
        .canonicalize()
        .with_context(|| format!("workspace root {}", root.display()))?;
    let opts = options(g);
    // Beside a server whose file watch keeps this index fresh, its answer replaces the
    // walk, as for `index`.
    use constellation::tools::{status as st, watch_sync as ws};
    let s = match ws::sync(&db, &root, &ws::fingerprint(&opts), ws::SYNC_WAIT) {
        ws::Synced::Yes { pid, .. } => st::served_status(&conn, &root, &db, pid)?,
        ws::Synced::TimedOut { pid } => {
            tracing::warn!(
                "the server of process {pid} watches {} but did not answer within {} s; walking the tree",
                root.display(),
                ws::SYNC_WAIT.as_secs()
            );
            st::database_status(&conn, &root, &db, &opts.walk)?
        }
        ws::Synced::No { why } => {
            tracing::debug!("walking the tree: {why}");
            st::database_status(&conn, &root, &db, &opts.walk)?
        }
    };
    let code = i32::from(s.pending_changes);
    if json {
        let answer = constellation::tools::status::StatusAnswer {
            default_root: s.root.clone(),
            roots: vec![s],
            transport: "cli".into(),
            clients: 0,
        };
        outln!("{}", serde_json::to_string_pretty(&answer)?)?;
        return Ok(code);
    }
    outln!("root       {}", s.root)?;
    outln!("database   {}", s.database)?;
    outln!(
        "generation {} (built {})",
        s.generation,
        s.indexed_at.as_deref().unwrap_or("at an unrecorded time")
    )?;
    outln!(
        "index      {} files, {} nodes, {} edges",
        s.files,
        s.nodes,
        s.edges
    )?;
    if let Some(pid) = s.served_by {
        outln!(
            "watched    by the server of process {pid}: commands ask it instead of walking the tree"
        )?;
    }
    match &s.pending_files {
        Some(p) if s.pending_changes => outln!(
            "pending    {} added, {} changed, {} removed since it was built (run `constellation index`)",
            p.added, p.changed, p.removed
        )?,
        _ => outln!("pending    nothing: the index matches the disk")?,
    }
    Ok(code)
}

fn run(cli: Cli) -> Result<i32> {
    let g = cli.global;
    match cli.command {
        Command::Index {
            root,
            json,
            check: true,
            ..
        } => return check(&root, &g, json),
        Command::Index {
            root,
            full,
            json,
            vacuum,
            vacuum_into,
            scip,
            shard,
            walk,
            ..
        } => {
            let view = ProgressView::new(g.quiet || json);
            let mut opts = options(&g);
            opts.full = full;
            opts.record_noop = true;
            opts.scip = scip;
            opts.shard = shard;
            let db = db_path(&root, &g);
            let progress = |p| view.update(p);
            let started = std::time::Instant::now();
            let (ws, report) = if db.exists() {
                let ws = open_workspace(&root, &g)?;
                // A server watching this root keeps the index fresh: ask it instead of
                // walking (an incremental run with the server's walk options only).
                let served = (!walk && !full && shard.is_none() && opts.scip.is_empty())
                    .then(|| ws.synced_by_server())
                    .flatten();
                let report = match served {
                    Some(pid) => ws.served_report(pid, started)?,
                    None => constellation::index::index(ws.store(), ws.root(), &opts, &progress)?,
                };
                (ws, report)
            } else {
                // A new database appears complete or not at all.
                let canonical = root
                    .canonicalize()
                    .with_context(|| format!("workspace root {}", root.display()))?;
                let report =
                    constellation::index::index_new_database(&db, &canonical, &opts, &progress)?;
                (open_workspace(&root, &g)?, report)
            };
            view.finish();
            let mut extra = serde_json::Map::new();
            if vacuum {
                extra.insert("vacuumedBytes".into(), ws.store().vacuum()?.into());
            }
            if let Some(out) = &vacuum_into {
                extra.insert(
                    "vacuumIntoBytes".into(),
                    ws.store().vacuum_into(out)?.into(),
                );
            }
            if json {
                let mut v = serde_json::to_value(&report)?;
                if let Some(obj) = v.as_object_mut() {
                    obj.extend(extra);
                }
                outln!("{v}")?;
            } else if let Some(pid) = report.served_by {
                outln!(
                    "up to date: the file watch of process {pid} keeps {} indexed; {} files; {} nodes, {} edges; generation {}; {:.2}s",
                    ws.root().display(),
                    report.files_seen,
                    report.nodes,
                    report.edges,
                    report.generation,
                    report.duration_ms as f64 / 1000.0
                )?;
            } else {
                let what = match shard {
                    Some(s) => format!("shard {s} of {}", ws.root().display()),
                    None => ws.root().display().to_string(),
                };
                let reused = if report.files_reused > 0 {
                    format!(" ({} from the parse cache)", report.files_reused)
                } else {
                    String::new()
                };
                outln!(
                    "indexed {what}: {} files seen, {} hashed, {} parsed{reused}, {} removed; {} nodes, {} edges; generation {}; {:.2}s",
                    report.files_seen,
                    report.files_hashed,
                    report.files_parsed,
                    report.files_removed,
                    report.nodes,
                    report.edges,
                    report.generation,
                    report.duration_ms as f64 / 1000.0
                )?;
                if let Some(s) = &report.scip {
                    outln!(
                        "scip: {} files resolved from {} SCIP documents ({} stale, {} not indexed; {} files uncovered); {} references resolved, {} external, {} local, {} kept heuristic",
                        s.files_applied,
                        s.documents,
                        s.files_stale,
                        s.files_not_indexed,
                        s.files_uncovered,
                        s.refs_resolved,
                        s.refs_external,
                        s.refs_local,
                        s.refs_kept
                    )?;
                }
                if vacuum || vacuum_into.is_some() {
                    outln!("compacted: {}", serde_json::Value::Object(extra))?;
                }
            }
        }
        Command::Merge {
            out,
            shards,
            root,
            json,
        } => {
            let view = ProgressView::new(g.quiet || json);
            let progress = |p| view.update(p);
            let report =
                constellation::index::shard::merge(&out, &shards, root.as_deref(), &progress)?;
            view.finish();
            if json {
                outln!("{}", serde_json::to_value(&report)?)?;
            } else {
                outln!(
                    "merged {} shards into {}: {} files; {} references resolved; {} nodes, {} edges; {:.2}s (write {:.2}s, resolve {:.2}s)",
                    shards.len(),
                    out.display(),
                    report.files_seen,
                    report.refs_resolved,
                    report.nodes,
                    report.edges,
                    report.duration_ms as f64 / 1000.0,
                    report.parse_ms as f64 / 1000.0,
                    report.resolve_ms as f64 / 1000.0
                )?;
            }
        }
        Command::Export {
            root,
            format,
            max_nodes,
        } => {
            let db = db_path(&root, &g);
            let mut conn = constellation::store::open_read_only(&db)?;
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let written = match format {
                ExportFormat::Json => constellation::tools::export::export_json(&conn, &mut out),
                ExportFormat::Dot => {
                    let rows = constellation::store::graph::load_file_graph(&mut conn)?;
                    let g = constellation::graph::FileGraph::from_rows(&rows);
                    constellation::tools::export::export_dot(&g, &mut out)
                }
                ExportFormat::Html => {
                    use constellation::docs::window;
                    let max = window::check_max_nodes(Some(max_nodes))
                        .map_err(|e| anyhow::anyhow!("{e}"))?;
                    let rows = constellation::store::graph::load_file_graph(&mut conn)?;
                    let g = constellation::graph::FileGraph::from_rows(&rows);
                    let title = root
                        .canonicalize()
                        .ok()
                        .and_then(|r| r.file_name().map(|n| n.to_string_lossy().into_owned()))
                        .unwrap_or_else(|| root.display().to_string());
                    let (html, _) =
                        window::render_html(&g, &title, max).map_err(|e| anyhow::anyhow!("{e}"))?;
                    std::io::Write::write_all(&mut out, html.as_bytes())
                        .map_err(constellation::tools::export::ExportError::from)
                }
            }
            .and_then(|()| Ok(std::io::Write::flush(&mut out)?));
            match written {
                Err(e) if e.is_broken_pipe() => {}
                other => other?,
            }
        }
        Command::Summary {
            root,
            json,
            force_refresh,
        } => {
            let ws = open_workspace(&root, &g)?;
            let view = ProgressView::new(g.quiet || json);
            let r = file_graph_summary::get_graph_summary(&ws, force_refresh, &|p| view.update(p))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            view.finish();
            if json {
                outln!("{}", serde_json::to_string_pretty(&r)?)?;
            } else {
                out!("{}", file_graph_summary::render_text(&r))?;
            }
        }
        Command::Summarize { root, opts } => {
            let args = opts.to_args()?;
            let ws = open_workspace(&root, &g)?;
            let view = ProgressView::new(g.quiet);
            refresh_or_warn(&ws, &|p| view.update(p))?;
            view.finish();
            let snapshot = ws.symbol_graph().map_err(|e| anyhow::anyhow!("{e}"))?;
            let rendered =
                constellation::tools::symbol_summary::summarize_graph(&snapshot, ws.root(), &args)
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
            outln!("{}", rendered.text.trim_end())?;
        }
        Command::Impact {
            target,
            root,
            diff,
            staged,
            depth,
            min_confidence,
            fail_on,
            budget_tokens,
            json,
        } => {
            use constellation::tools::{diff_impact, impact};
            let ws = open_workspace(&root, &g)?;
            let view = ProgressView::new(g.quiet || json);
            refresh_or_warn(&ws, &|p| view.update(p))?;
            view.finish();
            let (snapshot, open) = ws.impact_inputs().map_err(|e| anyhow::anyhow!("{e}"))?;
            if let Some(base) = diff {
                let args = diff_impact::DiffImpactArgs {
                    base: Some(base),
                    staged: Some(staged),
                    depth: Some(depth),
                    min_confidence: Some(min_confidence),
                    fail_on: (!fail_on.is_empty()).then_some(fail_on),
                    budget_tokens: Some(budget_tokens),
                    workspace_root: None,
                };
                let a = diff_impact::diff_impact(&snapshot, open.as_deref(), ws.root(), &args)
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                if json {
                    outln!("{}", serde_json::to_string_pretty(&a)?)?;
                } else {
                    out!("{}", diff_impact::render_text(&a))?;
                }
                return Ok(if a.fail.as_ref().is_some_and(|f| f.failed) {
                    1
                } else {
                    0
                });
            }
            let args = impact::ImpactArgs {
                target: target.unwrap_or_default(),
                depth: Some(depth),
                min_confidence: Some(min_confidence),
                budget_tokens: Some(budget_tokens),
                workspace_root: None,
            };
            let a = impact::get_impact(&snapshot, open.as_deref(), Some(ws.root()), &args)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&a)?)?;
            } else {
                out!("{}", impact::render_text(&a.lists))?;
            }
        }
        Command::Serve {
            roots,
            work_capacity,
            no_watch,
            http,
            token,
            tools,
            allow_root,
        } => {
            let (first, more) = roots
                .split_first()
                .context("serve needs a workspace root")?;
            // A served workspace keeps its resolver's file tables between its runs.
            let ws = Arc::new(
                Workspace::open(first, g.db.as_deref(), options(&g).with_resolver_cache())
                    .map_err(|e| anyhow::anyhow!("{e}"))?,
            );
            let db = ws.store().path().to_path_buf();
            let server = constellation::mcp::Server::new(ws, options(&g))
                .with_roots(more)
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .allow_roots(&allow_root)
                .with_work_capacity(work_capacity)
                .with_watch(!no_watch)
                .with_tools(&tools);
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .context("starting the async runtime")?;
            match http {
                None => rt
                    .block_on(constellation::mcp::serve_stdio(server))
                    .map_err(|e| anyhow::anyhow!("{e}"))?,
                Some(addr) => {
                    use constellation::mcp::http;
                    let file = http::token_file(&db);
                    let (token, stored) = http::resolve_token(token, &file)
                        .with_context(|| format!("the HTTP token file {}", file.display()))?;
                    let from = if stored {
                        format!("the token is in {} (owner-only)", file.display())
                    } else {
                        "the token is the one given".to_string()
                    };
                    rt.block_on(http::serve_http(server, addr, token, |bound| {
                        eprintln!(
                            "serving MCP at http://{bound}{} ({from}; send `Authorization: Bearer TOKEN`)",
                            http::ENDPOINT
                        );
                    }))
                    .map_err(|e| anyhow::anyhow!("serving HTTP on {addr}: {e}"))?;
                }
            }
        }
        Command::Tools { tools, json } => {
            let groups = if tools.is_empty() {
                constellation::mcp::ToolGroup::ALL.to_vec()
            } else {
                tools
            };
            let cost = constellation::mcp::tool_list_cost(&groups)?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&cost)?)?;
            } else {
                out!("{}", cost.render_text())?;
            }
        }
        Command::Sql { args, json } => {
            let (root, query) = match args.as_slice() {
                [q] => (PathBuf::from("."), q.clone()),
                [r, q] => (PathBuf::from(r), q.clone()),
                _ => bail!("usage: constellation sql [ROOT] QUERY"),
            };
            let conn = query::open(&db_path(&root, &g)).map_err(|e| anyhow::anyhow!("{e}"))?;
            print_query(&conn, &query, json)?;
        }
        Command::Search {
            query,
            root,
            kind,
            language,
            path,
            limit,
            budget_tokens,
            json,
            no_refresh,
        } => {
            let ws = open_fresh_workspace(&root, &g, !no_refresh)?;
            let args = constellation::tools::search::SearchArgs {
                query,
                kind,
                language,
                path,
                limit: Some(limit),
                budget_tokens: Some(budget_tokens),
                workspace_root: None,
            };
            let answer = constellation::tools::search::search_symbols(&ws, &args)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&answer)?)?;
            } else {
                if answer.fuzzy && !answer.did_you_mean.is_empty() {
                    outln!(
                        "nothing matched; did you mean: {}",
                        answer.did_you_mean.join(", ")
                    )?;
                } else if answer.hits.is_empty() && answer.note.is_none() {
                    outln!("nothing matched {:?}", answer.query)?;
                }
                for h in &answer.hits {
                    outln!(
                        "{:>9.3}  {:<6}  {:<9}  {}  {}:{}-{}  {}",
                        h.score,
                        h.match_kind,
                        h.kind,
                        h.qualified_name,
                        h.path,
                        h.start_line,
                        h.end_line,
                        h.signature.as_deref().unwrap_or("")
                    )?;
                }
                if let Some(note) = &answer.note {
                    outln!("({note})")?;
                }
            }
            return Ok(if answer.hits.is_empty() { 1 } else { 0 });
        }
        Command::Source {
            symbol,
            root,
            include,
            budget_tokens,
            json,
            no_refresh,
        } => {
            let ws = open_fresh_workspace(&root, &g, !no_refresh)?;
            let args = constellation::tools::symbol_source::SourceArgs {
                symbol,
                include: (!include.is_empty()).then_some(include),
                min_confidence: None,
                budget_tokens: Some(budget_tokens),
                workspace_root: None,
            };
            let a = constellation::tools::symbol_source::get_symbol_source(&ws, &args)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&a)?)?;
            } else {
                outln!(
                    "{} {} ({}:{}-{})",
                    a.kind,
                    a.qualified_name,
                    a.path,
                    a.start_line,
                    a.end_line
                )?;
                if let Some(d) = &a.docstring {
                    outln!("  {d}")?;
                }
                if let Some(note) = &a.note {
                    outln!("note: {note}")?;
                }
                out!("{}", a.source)?;
                for (title, links) in [("callers", &a.callers), ("callees", &a.callees)] {
                    if let Some(links) = links {
                        outln!("{title}:")?;
                        for l in links {
                            outln!(
                                "  {:<8} {}  {}  {}",
                                l.status,
                                l.location,
                                l.qualified_name,
                                l.signature.as_deref().unwrap_or("")
                            )?;
                        }
                    }
                }
            }
        }
        Command::Status { root, json } => return status(&root, &g, json),
        Command::Schema => {
            out!(
                "-- The current schemas, generated by `constellation schema`; do not edit (a\n\
                 -- test compares this file with what the migrations build).\n\n{}\n{}",
                constellation::store::current_schema()?,
                constellation::memory::current_schema()?
            )?;
        }
    }
    Ok(0)
}

/// Runs `query` (one read-only statement, through `tools::query` like the MCP tool
/// `query_index`, without its row and time caps) and prints a tab-separated table with a
/// header, or JSON lines.
fn print_query(conn: &rusqlite::Connection, query: &str, json: bool) -> Result<()> {
    use std::io::Write;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // The column names, for the header and the JSON keys (preparing is cheap; the
    // statement runs once, in `query::run`).
    let names: Vec<String> = match conn.prepare(query) {
        Ok(stmt) => stmt.column_names().iter().map(|s| s.to_string()).collect(),
        Err(_) => Vec::new(), // query::run reports the error with its code
    };
    if !json && !names.is_empty() {
        writeln!(out, "{}", names.join("\t"))?;
    }
    let reader_gone = std::cell::Cell::new(false);
    let mut write_row = |cells: Vec<serde_json::Value>| -> Result<bool, ToolError> {
        let line = if json {
            let obj: serde_json::Map<String, serde_json::Value> =
                names.iter().cloned().zip(cells).collect();
            serde_json::Value::Object(obj).to_string()
        } else {
            cells
                .iter()
                .map(|v| match v {
                    serde_json::Value::String(s) => s.replace(['\t', '\n'], " "),
                    serde_json::Value::Null => "NULL".into(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join("\t")
        };
        writeln!(out, "{line}").map_err(|e| {
            // Told apart by kind, not by the message text.
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                reader_gone.set(true);
            }
            ToolError::Io(e.to_string())
        })?;
        Ok(true)
    };
    let ran = query::run(conn, query, query::QueryLimits::default(), &mut write_row);
    match ran {
        // The reader went away (`constellation query ... | head`): not an error.
        Err(ToolError::Io(_)) if reader_gone.get() => return Ok(()),
        other => {
            other.map_err(|e| anyhow::anyhow!("{e}"))?;
        }
    }
    match out.flush() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_argument_and_option_has_a_help_text() {
        use clap::CommandFactory;
        let cli = Cli::command();
        cli.clone().debug_assert();
        let mut missing: Vec<String> = cli
            .get_arguments()
            .filter(|arg| arg.get_help().is_none())
            .map(|arg| arg.get_id().to_string())
            .collect();
        for sub in cli.get_subcommands() {
            for arg in sub.get_arguments() {
                if arg.get_help().is_none() && arg.get_id() != "help" {
                    missing.push(format!("{} {}", sub.get_name(), arg.get_id()));
                }
            }
        }
        assert_eq!(
            missing,
            Vec::<String>::new(),
            "arguments without a help text"
        );
    }

    /// A terminal that keeps what the bar draws.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(&format!("{s}\n"))
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_progress_bar_prints_whole_files_per_second() {
        let screen = Screen::default();
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(1000),
            indicatif::ProgressDrawTarget::term_like(Box::new(screen.clone())),
        );
        bar.set_style(progress_style());
        bar.set_message("indexing");
        for done in 1..=40 {
            std::thread::sleep(Duration::from_millis(3));
            bar.set_position(done * 7);
        }
        bar.tick();
        let drawn = screen.0.lock().unwrap().clone();
        let last = drawn.lines().last().unwrap_or_default().to_string();
        let rate = regex::Regex::new(r"/1000 files \((\d+) files/s, \d+s\)$").unwrap();
        assert!(rate.is_match(last.trim_end()), "{last:?}");
        let fraction = regex::Regex::new(r"\d\.\d+ ?(files)?/s").unwrap();
        assert!(!fraction.is_match(&drawn), "{drawn:?}");
    }
}
