//! What an index holds and how fresh it is: the freshness stamp every MCP answer carries
//! in its `_meta`, and the `get_status` tool / `constellation status` command (roots,
//! generations, pending changes, watcher health, connected clients).
//!
//! "Pending" means changes on disk the index does not hold yet. Under a file watch it is
//! read from the watch's counters (an event arrived after the start of the newest
//! finished index run), so asking costs no walk; without a watch only a walk can tell,
//! which the stamp never does (it says `null`, unknown) and `get_status` does.

use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension};
use schemars::JsonSchema;
use serde::Serialize;

use super::workspace::Workspace;
use super::ToolError;
use crate::index::{self, Staleness};
use crate::store::StoreError;

/// The `_meta` key of the freshness stamp in every tool result.
pub const FRESHNESS_META_KEY: &str = "constellation/freshness";

/// The freshness stamp of an answer: the index it was read from and whether the disk
/// had moved on when it was sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Freshness {
    /// Index generation when the answer was sent (bumped by every index run that
    /// changed anything).
    pub generation: i64,
    /// When the run that made this generation finished (ISO-8601 UTC, milliseconds);
    /// `None` for a database no run has recorded yet.
    pub indexed_at: Option<String>,
    /// Whether file changes were waiting to be indexed when the answer was sent: known
    /// under a file watch; `None` (unknown) without one.
    pub pending_changes: Option<bool>,
    /// Whether a file watch keeps this index fresh.
    pub watched: bool,
    /// Why the last index run failed (a full disk, a read-only database), when the
    /// answer comes from the index as it was before: it may not match the disk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_failed: Option<String>,
}

/// The generation of the database on `conn` and when the run that made it finished.
///
/// Errors: database errors.
pub fn generation_and_time(conn: &Connection) -> Result<(i64, Option<String>), StoreError> {
    let generation = crate::store::read_generation(conn)?;
    let finished = conn
        .query_row(
            "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', started_at, printf('+%.3f seconds', duration_ms / 1000.0))
             FROM index_runs WHERE generation = ?1 ORDER BY id DESC LIMIT 1",
            [generation],
            |r| r.get::<_, Option<String>>(0),
        )
        .optional()?
        .flatten();
    Ok((generation, finished))
}

/// The freshness stamp of `ws` now. Reads two rows; never walks the tree.
///
/// Errors: `database_error` when the index cannot be read.
pub fn freshness(ws: &Workspace) -> Result<Freshness, ToolError> {
    let conn = ws.store().conn()?;
    let (generation, indexed_at) = generation_and_time(&conn)?;
    let watched = ws.is_watched();
    Ok(Freshness {
        generation,
        indexed_at,
        pending_changes: watched.then(|| !ws.freshness().is_current()),
        watched,
        refresh_failed: ws.refresh_failure(),
    })
}

/// The file watch of a served root.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WatcherStatus {
    /// Whether a file watch keeps the index fresh (off with `serve --no-watch`, or when
    /// the watcher could not start: then every tool call checks the disk, at most once
    /// per second).
    pub watching: bool,
    /// Whether the watcher reported an error or lost events since it started (each time,
    /// the next run walked the whole tree).
    pub degraded: bool,
    /// File-system events counted that may change the index.
    pub events: u64,
    /// Index runs made by the background refresher.
    pub background_runs: u64,
    /// Those of them that walked the tree: the first, and those after lost events, a new
    /// path or a directory event; the others stat-ed only the files the events named.
    pub background_walks: u64,
    /// Index runs made by tool calls, each after a walk of the tree (0 under a healthy
    /// watch once the first run is done).
    pub call_walks: u64,
}

/// Files on disk that differ from the index, from a walk (stat first, digest when the
/// stat moved).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PendingFiles {
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
}

impl From<Staleness> for PendingFiles {
    fn from(s: Staleness) -> Self {
        PendingFiles {
            added: s.added,
            changed: s.changed,
            removed: s.removed,
        }
    }
}

/// One workspace root and its index.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RootStatus {
    /// The canonical root directory.
    pub root: String,
    /// The index database file.
    pub database: String,
    /// Index generation.
    pub generation: i64,
    /// When the run that made this generation finished (ISO-8601 UTC); `None` when no
    /// run is recorded.
    pub indexed_at: Option<String>,
    /// Rows of the index: files, nodes, edges.
    pub files: i64,
    pub nodes: i64,
    pub edges: i64,
    /// Whether changes on disk wait to be indexed (see `pendingFiles`).
    pub pending_changes: bool,
    /// The files that differ, when a walk counted them (no watch); `None` under a
    /// watch, which knows that something changed but not how much.
    pub pending_files: Option<PendingFiles>,
    /// The file watch; `None` outside a server.
    pub watcher: Option<WatcherStatus>,
    /// The process id of the server whose file watch keeps this index fresh and
    /// answers the commands run beside it (`constellation index`, `search`, ...: they
    /// ask it instead of walking the tree); `None` when no server does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served_by: Option<u32>,
}

/// The `get_status` answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusAnswer {
    /// The root tool calls without `workspaceRoot` work on.
    pub default_root: String,
    /// Every root the server has opened (the default first, then by path).
    pub roots: Vec<RootStatus>,
    /// How clients reach this server: `stdio`, or `cli` for `constellation status`.
    pub transport: String,
    /// Clients connected now (a stdio server has the one that started it).
    pub clients: usize,
}

/// The status of the index on `conn` of the tree at `ws_root`, without a watch: a walk
/// tells what is pending (nothing is written).
///
/// Errors: `database_error` when the index cannot be read; `index_failed` when the
/// root cannot be walked.
pub fn database_status(
    conn: &Connection,
    root: &std::path::Path,
    database: &std::path::Path,
    walk: &crate::walk::WalkOptions,
) -> Result<RootStatus, ToolError> {
    let pending = index::check(conn, database, root, walk)?;
    let mut status = counts(conn, root, database)?;
    status.pending_changes = !pending.is_fresh();
    status.pending_files = Some(pending.into());
    Ok(status)
}

/// A root's rows and generation, nothing pending yet.
fn counts(
    conn: &Connection,
    root: &std::path::Path,
    database: &std::path::Path,
) -> Result<RootStatus, StoreError> {
    let (generation, indexed_at) = generation_and_time(conn)?;
    // The totals kept for this generation when there are (exact: every run that
    // changes a count moves the generation), else counted: 3 million edges take
    // about 100 ms to count from a cold cache.
    let kept = crate::store::read_kept_totals(conn, generation)?
        .and_then(|k| Some((k.files?, k.nodes, k.edges)));
    let (files, nodes, edges) = match kept {
        Some(t) => t,
        None => conn.query_row(
            "SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM nodes), (SELECT count(*) FROM edges)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?,
    };
    Ok(RootStatus {
        root: root.display().to_string(),
        database: database.display().to_string(),
        generation,
        indexed_at,
        files,
        nodes,
        edges,
        pending_changes: false,
        pending_files: None,
        watcher: None,
        served_by: super::watch_sync::watching_server(database).map(|w| w.pid),
    })
}

/// The status of the index on `conn` of the tree at `ws_root` when the file watch of the
/// server of process `pid` has just answered that it holds every change made before
/// the question ([`super::watch_sync::sync`]): nothing pending, and no walk.
///
/// Errors: `database_error` when the index cannot be read.
pub fn served_status(
    conn: &Connection,
    root: &std::path::Path,
    database: &std::path::Path,
    pid: u32,
) -> Result<RootStatus, ToolError> {
    let mut status = counts(conn, root, database)?;
    status.served_by = Some(pid);
    Ok(status)
}

/// The status of a served workspace: pending changes from its watch when it has one
/// (no walk), else from a walk.
///
/// Errors: as [`database_status`].
pub fn workspace_status(ws: &Workspace) -> Result<RootStatus, ToolError> {
    let conn = ws.store().conn()?;
    let f = ws.freshness();
    let mut status = if ws.is_watched() {
        let mut s = counts(&conn, ws.root(), ws.store().path())?;
        s.pending_changes = !f.is_current();
        s
    } else {
        database_status(&conn, ws.root(), ws.store().path(), &ws.options().walk)?
    };
    status.watcher = Some(WatcherStatus {
        watching: ws.is_watched(),
        degraded: f.degraded(),
        events: f.events(),
        background_runs: f.background_runs(),
        background_walks: f.background_walks(),
        call_walks: f.call_walks(),
    });
    Ok(status)
}

/// `get_status`: every root of a server, the default first.
///
/// Errors: as [`workspace_status`], for any root.
pub fn server_status(
    default: &Arc<Workspace>,
    others: &[Arc<Workspace>],
    transport: &str,
    clients: usize,
) -> Result<StatusAnswer, ToolError> {
    let mut roots = vec![workspace_status(default)?];
    let mut rest: Vec<&Arc<Workspace>> = others
        .iter()
        .filter(|w| w.root() != default.root())
        .collect();
    rest.sort_by(|a, b| a.root().cmp(b.root()));
    for ws in rest {
        roots.push(workspace_status(ws)?);
    }
    Ok(StatusAnswer {
        default_root: default.root().display().to_string(),
        roots,
        transport: transport.to_string(),
        clients,
    })
}
