//! The server itself: the workspaces a call may address, the rmcp handler, and the stdio
//! loop. Tools are not named here; they come from the table in the parent module.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool_handler, ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::index::IndexOptions;
use crate::memory::work;
use crate::tools::closest_names::closest_names;
use crate::tools::workspace::Workspace;
use crate::tools::ToolError;

/// The server: the default workspace plus any opened through `workspaceRoot`.
///
/// The default workspace can be switched at run time (`set_workspace_root`), so it
/// sits behind a lock shared by every clone of the server; a call takes its `Arc`
/// once at the start and keeps working on that workspace even if the default moves
/// meanwhile. Every workspace opened stays in `others` (keyed by canonical root), so
/// switching back reuses it, with the database it was opened with.
#[derive(Clone)]
pub struct Server {
    default: Arc<RwLock<Arc<Workspace>>>,
    options: IndexOptions,
    others: Arc<Mutex<HashMap<PathBuf, Arc<Workspace>>>>,
    /// How many saved work entries the LRU keeps.
    work_capacity: usize,
    /// Whether workspaces are kept fresh by a file watch ([`Workspace::watch`]).
    watch: bool,
    /// Clients connected now (a stdio session counts one while it runs).
    clients: Arc<AtomicUsize>,
    /// How the server is reached (`stdio`, `http`) and, for HTTP, how many sessions
    /// are open (set once by the transport).
    transport: Arc<OnceLock<Transport>>,
    /// The directories a call may take as its workspace root, canonical: each one and
    /// everything below it ([`Server::allow_roots`]; the first workspace's root always).
    allowed_roots: Arc<RwLock<Vec<PathBuf>>>,
    tool_router: ToolRouter<Self>,
}

impl Server {
    /// A server over `ws`; `options` are used for workspaces opened later.
    pub fn new(ws: Arc<Workspace>, options: IndexOptions) -> Server {
        let mut others = HashMap::new();
        others.insert(ws.root().to_path_buf(), Arc::clone(&ws));
        let allowed_roots = Arc::new(RwLock::new(vec![ws.root().to_path_buf()]));
        Server {
            allowed_roots,
            default: Arc::new(RwLock::new(ws)),
            options,
            others: Arc::new(Mutex::new(others)),
            work_capacity: work::DEFAULT_CAPACITY,
            watch: false,
            clients: Arc::new(AtomicUsize::new(0)),
            transport: Arc::new(OnceLock::new()),
            tool_router: super::routes(&super::ToolGroup::ALL),
        }
    }

    /// Offers only the tools of `groups` (all of them by default). An empty list
    /// offers all.
    pub fn with_tools(mut self, groups: &[super::ToolGroup]) -> Server {
        if !groups.is_empty() {
            self.tool_router = super::routes(groups);
        }
        self
    }

    /// Allows calls to take `roots` (and any directory below one of them) as their
    /// workspace root, through `workspaceRoot`, `set_workspace_root` or
    /// `summarize_graph`'s `path`, besides the first workspace's root. A root that does
    /// not exist is skipped with a warning. The client's MCP roots are added the same
    /// way when it announces them.
    pub fn allow_roots(self, roots: &[PathBuf]) -> Server {
        self.add_allowed_roots(roots.iter().map(PathBuf::as_path), "--allow-root");
        self
    }

    /// Registers `roots` besides the first workspace's: each is allowed (with everything
    /// below it), opened with its own database (`ROOT/.constellation/index.db`) and, once
    /// the server runs, brought up to date and watched in the background like the first
    /// ([`Server::warm_up`]). A root given twice, or equal to the first, is opened once.
    ///
    /// Errors: `not_found` when a root does not exist or is not a directory; the
    /// opening errors of [`Workspace::open`] (an unreadable or corrupt database).
    pub fn with_roots(self, roots: &[PathBuf]) -> Result<Server, ToolError> {
        for root in roots {
            let canonical = root.canonicalize().map_err(|e| {
                ToolError::NotFound(format!("workspace root {}: {e}", root.display()))
            })?;
            let mut others = self
                .others
                .lock()
                .map_err(|_| ToolError::Internal("workspace table poisoned".into()))?;
            if others.contains_key(&canonical) {
                continue;
            }
            let ws = Arc::new(Workspace::open(
                &canonical,
                None,
                self.options.clone().with_resolver_cache(),
            )?);
            others.insert(canonical.clone(), ws);
            drop(others);
            self.add_allowed_roots(std::iter::once(canonical.as_path()), "serve");
        }
        Ok(self)
    }

    /// Adds `roots` to the allow-list (canonical), logging each; `from` says where
    /// they came from.
    fn add_allowed_roots<'p>(&self, roots: impl Iterator<Item = &'p Path>, from: &str) {
        let Ok(mut allowed) = self.allowed_roots.write() else {
            tracing::error!("the allowed roots' lock is poisoned: {from} roots not added");
            return;
        };
        for root in roots {
            match root.canonicalize() {
                Ok(c) if c.is_dir() => {
                    if !allowed.contains(&c) {
                        tracing::info!("allowed workspace root {} ({from})", c.display());
                        allowed.push(c);
                    }
                }
                Ok(c) => tracing::warn!("{from} root {} is not a directory: skipped", c.display()),
                Err(e) => tracing::warn!("{from} root {}: {e}; skipped", root.display()),
            }
        }
    }

    /// Refuses a workspace root outside every allowed root: `path` as the call gave
    /// it, `abs` absolute (canonical when it exists, else only normalized).
    ///
    /// Errors: `outside_allowed_roots`, naming the allowed roots; `internal` when the
    /// list's lock is poisoned.
    fn check_allowed(&self, path: &str, abs: &Path) -> Result<(), ToolError> {
        let allowed = self
            .allowed_roots
            .read()
            .map_err(|_| ToolError::Internal("allowed roots lock poisoned".into()))?;
        if allowed.iter().any(|r| abs.starts_with(r)) {
            return Ok(());
        }
        let list: Vec<String> = allowed.iter().map(|r| r.display().to_string()).collect();
        Err(ToolError::OutsideAllowedRoots(format!(
            "workspace root {path} ({}) is not inside a root this server allows ({}); \
             start the server with `--allow-root DIR`, or list the directory among the \
             client's MCP roots",
            abs.display(),
            list.join(", ")
        )))
    }

    /// Sets how many saved work entries the LRU keeps (at least 1).
    pub fn with_work_capacity(mut self, capacity: usize) -> Server {
        self.work_capacity = capacity.max(1);
        self
    }

    /// Keeps every workspace of the server fresh from file-system events (see
    /// [`crate::tools::watcher`]): tool calls then walk the tree only when events are
    /// pending. Off by default; `constellation serve` turns it on unless `--no-watch`.
    pub fn with_watch(mut self, watch: bool) -> Server {
        self.watch = watch;
        self
    }

    /// Starts the file watch of `ws` when the server watches; a failure is logged and
    /// leaves the workspace checking the disk from tool calls.
    fn start_watch(&self, ws: &Arc<Workspace>) {
        if self.watch && ws.store().read_only_error().is_some() {
            tracing::info!(
                "{} is read-only: no file watch (the index is not refreshed)",
                ws.store().path().display()
            );
            return;
        }
        if self.watch {
            if let Err(e) = ws.watch() {
                tracing::warn!(
                    "file watching of {} unavailable ({e}); tool calls check the disk instead (at most once per second)",
                    ws.root().display()
                );
            }
        }
    }

    /// Every workspace opened so far (the default among them), in no order.
    ///
    /// Errors: `internal` when the table's lock is poisoned.
    pub(super) fn open_workspaces(&self) -> Result<Vec<Arc<Workspace>>, ToolError> {
        let others = self
            .others
            .lock()
            .map_err(|_| ToolError::Internal("workspace table poisoned".into()))?;
        Ok(others.values().cloned().collect())
    }

    /// Clients connected now: the open HTTP sessions, or the stdio client.
    pub(super) fn clients(&self) -> usize {
        match self.transport.get() {
            Some(Transport::Http { sessions }) => sessions(),
            _ => self.clients.load(Ordering::SeqCst),
        }
    }

    /// How clients reach the server: `stdio` or `http`.
    pub(super) fn transport_name(&self) -> &'static str {
        match self.transport.get() {
            Some(Transport::Http { .. }) => "http",
            _ => "stdio",
        }
    }

    /// Records that the server is served over HTTP, with the count of its open sessions.
    pub(super) fn set_http_sessions(&self, sessions: Box<dyn Fn() -> usize + Send + Sync>) {
        let _ = self.transport.set(Transport::Http { sessions });
    }

    /// Brings every workspace registered so far (the default one first, then the roots
    /// of [`Server::with_roots`] by path) up to date in the background: starts each
    /// one's file watch when the server watches (the watch's first run is the update),
    /// else runs one incremental index. Returns at once.
    pub(super) fn warm_up(&self) {
        let Ok(default) = self.default_workspace() else {
            return;
        };
        let mut rest = match self.open_workspaces() {
            Ok(all) => all,
            Err(e) => {
                tracing::error!("only the default workspace is brought up to date: {e}");
                Vec::new()
            }
        };
        rest.retain(|w| w.root() != default.root());
        rest.sort_by(|a, b| a.root().cmp(b.root()));
        let all: Vec<Arc<Workspace>> = std::iter::once(default).chain(rest).collect();
        for ws in &all {
            if self.watch && ws.store().read_only_error().is_none() {
                // Calls made before the watch is up wait for its first run, not walk.
                ws.expect_watch();
            }
        }
        // The queries compile once per process, at the first file of each language: a
        // watch whose first run reads nothing would have its first edit pay for them.
        let stores: Vec<Arc<Workspace>> = all.clone();
        let spawned = std::thread::Builder::new()
            .name("constellation-queries".into())
            .spawn(move || {
                let t = std::time::Instant::now();
                let languages: std::collections::BTreeSet<String> = stores
                    .iter()
                    .filter_map(|ws| ws.store().languages().ok())
                    .flatten()
                    .collect();
                drop(stores);
                let known = languages
                    .iter()
                    .filter_map(|l| crate::lang::Language::from_name(l));
                for lang in known {
                    if let Err(e) = crate::lang::prepare(lang) {
                        tracing::error!("{e}");
                    }
                }
                tracing::debug!(
                    "queries of {languages:?} compiled in {} ms",
                    t.elapsed().as_millis()
                );
            });
        if let Err(e) = spawned {
            tracing::debug!("queries not compiled ahead: {e}");
        }
        let starter = self.clone();
        tokio::task::spawn_blocking(move || {
            for ws in &all {
                starter.start_watch(ws);
                if ws.is_watched() {
                    continue;
                }
                if let Err(e) = ws.refresh_or_stale(false, &|_| {}) {
                    tracing::warn!("background index of {} failed: {e}", ws.root().display());
                }
            }
        });
    }

    /// How many saved work entries the LRU keeps.
    pub(super) fn work_capacity(&self) -> usize {
        self.work_capacity
    }

    /// The lock holding the default workspace, shared by every clone of the server.
    pub(super) fn default_slot(&self) -> Arc<RwLock<Arc<Workspace>>> {
        Arc::clone(&self.default)
    }

    /// The current default workspace.
    pub(super) fn default_workspace(&self) -> Result<Arc<Workspace>, ToolError> {
        self.default
            .read()
            .map(|ws| Arc::clone(&ws))
            .map_err(|_| ToolError::Internal("default workspace lock poisoned".into()))
    }

    /// The workspace a call addresses: `default`, or `root` (opened once, with its own
    /// database).
    ///
    /// Errors: `outside_allowed_roots` when `root` is not inside an allowed root
    /// ([`Server::allow_roots`]); `not_found` when it is not a directory; opening errors
    /// of a new one.
    pub(super) fn workspace(
        &self,
        default: &Arc<Workspace>,
        root: Option<&str>,
    ) -> Result<Arc<Workspace>, ToolError> {
        let Some(root) = root else {
            return Ok(Arc::clone(default));
        };
        // A relative root (`path: "."`) is taken from the server's workspace, and its
        // error says where that led.
        let joined = default.root().join(root);
        let canonical = match joined.canonicalize() {
            Ok(c) => c,
            Err(e) => {
                // Whether a directory exists outside the allowed roots is not told.
                self.check_allowed(root, &crate::tools::sandbox::normalize(&joined))?;
                return Err(ToolError::NotFound(if Path::new(root).is_absolute() {
                    format!("workspace root {root}: {e}")
                } else {
                    format!(
                        "workspace root {root} (relative to the server's root, so {}): {e}",
                        joined.display()
                    )
                }));
            }
        };
        self.check_allowed(root, &canonical)?;
        if canonical == default.root() {
            return Ok(Arc::clone(default));
        }
        let mut others = self
            .others
            .lock()
            .map_err(|_| ToolError::Internal("workspace table poisoned".into()))?;
        if let Some(ws) = others.get(&canonical) {
            return Ok(Arc::clone(ws));
        }
        // Another root never shares the server's --db file: it gets its own.
        let ws = Arc::new(Workspace::open(
            &canonical,
            None,
            self.options.clone().with_resolver_cache(),
        )?);
        self.start_watch(&ws);
        others.insert(canonical, Arc::clone(&ws));
        Ok(ws)
    }
}

/// How the server is reached, when not stdio.
enum Transport {
    /// Streamable HTTP; `sessions` counts the open sessions.
    Http {
        sessions: Box<dyn Fn() -> usize + Send + Sync>,
    },
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    /// Routes a call to its tool; an unknown name is the protocol error MCP specifies
    /// (-32602, invalid params), whose message names the closest tool names
    /// ([`closest_names`]) and whose `data.closest` lists them.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.tool_router.get(&request.name).is_none() {
            let tools = self.tool_router.list_all();
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
            let closest = closest_names(&request.name, &names, 3);
            let hint = if closest.is_empty() {
                String::new()
            } else {
                format!("did you mean {}? ", closest.join(", "))
            };
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; {hint}tools/list names all {} tools",
                    request.name,
                    names.len()
                ),
                Some(serde_json::json!({ "closest": closest })),
            ));
        }
        let call = ToolCallContext::new(self, request, context);
        self.tool_router.call(call).await
    }

    /// Adds the client's MCP roots (`roots/list`, `file://` URIs) to the allowed
    /// workspace roots when the client declares the roots capability. (The newest
    /// protocol revision deprecates roots; clients of the earlier ones still send them.)
    #[allow(deprecated)]
    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        let declares_roots = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !declares_roots {
            return;
        }
        match context.peer.list_roots().await {
            Ok(list) => {
                let paths: Vec<PathBuf> = list
                    .roots
                    .iter()
                    .filter_map(|r| file_uri_path(&r.uri))
                    .collect();
                self.add_allowed_roots(paths.iter().map(PathBuf::as_path), "client");
            }
            Err(e) => tracing::warn!("the client's roots could not be listed: {e}"),
        }
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "constellation",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "Constellation indexes this workspace into SQLite. Call \
                 constellation_get_graph_summary first for the shape of the codebase.",
            )
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin. The handshake is answered
/// at once; a background task brings the index up to date meanwhile (tool calls wait
/// for it through the workspace's index lock) and, when the server watches, starts the
/// file watch, whose first run is that update.
///
/// stdin and stdout belong to the front door ([`super::stdio`]), which answers every
/// line rmcp could not (unparsable, too deep, too long, not JSON-RPC, a request before
/// `initialize`) and hands the rest to an rmcp session over in-process pipes.
///
/// Errors: reading stdin or writing stdout.
pub async fn serve_stdio(server: Server) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    server.warm_up();
    let clients = Arc::clone(&server.clients);
    clients.fetch_add(1, Ordering::SeqCst);
    let start = |input: tokio::io::DuplexStream, output: tokio::io::DuplexStream| {
        let server = server.clone();
        async move {
            match server.serve((input, output)).await {
                Ok(service) => {
                    if let Err(e) = service.waiting().await {
                        tracing::warn!("the MCP session failed: {e}");
                    }
                }
                Err(e) => tracing::warn!("the MCP handshake failed: {e}"),
            }
        }
    };
    let served = super::stdio::serve(tokio::io::stdin(), tokio::io::stdout(), start).await;
    clients.fetch_sub(1, Ordering::SeqCst);
    Ok(served?)
}

/// The path of a `file://` URI (`file:///home/a%20b` → `/home/a b`; `file://localhost/x`
/// → `/x`); `None` for another scheme or host.
fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h)? * 16 + hex(l)?) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt as _;
        Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(out).ok().map(PathBuf::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/a%20b"),
            Some(PathBuf::from("/home/a b"))
        );
        assert_eq!(
            file_uri_path("file://localhost/x"),
            Some(PathBuf::from("/x"))
        );
        assert_eq!(file_uri_path("file://other/x"), None);
        assert_eq!(file_uri_path("https://x/y"), None);
        assert_eq!(file_uri_path("file:///50%"), Some(PathBuf::from("/50%")));
    }
}
