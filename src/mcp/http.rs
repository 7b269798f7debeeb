//! MCP over streamable HTTP (`constellation serve --http ADDR`): one long-lived server
//! that many clients share, at the endpoint `/mcp`.
//!
//! The MCP transport itself (sessions, server-sent event streams, JSON-RPC routing) is
//! rmcp's `StreamableHttpService`; this module adds what a local server must have
//! before a request reaches it, as the MCP specification's security notes for
//! streamable HTTP ask:
//! - it binds where it is told, loopback by default (`127.0.0.1:PORT`);
//! - every request must carry `Authorization: Bearer TOKEN` (401 otherwise), compared in
//!   constant time; the token comes from `--token` / `CONSTELLATION_TOKEN`, or is
//!   generated once and kept in a file only its owner can read ([`token_file`]);
//! - the `Host` header must name the loopback or the bound address, and a request that
//!   carries an `Origin` must come from a loopback origin (403 otherwise), against DNS
//!   rebinding from a web page (both checked by rmcp with the lists set here).
//!
//! Every session gets a clone of one [`Server`]: they share the workspaces, their
//! snapshots and file watches, so read tools of different clients never wait for each
//! other, and the indexer runs once for all of them.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower_service::Service as _;

use super::Server;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// The environment variable that may hold the bearer token.
pub const TOKEN_ENV: &str = "CONSTELLATION_TOKEN";

/// How long an HTTP session may go without a request before the server ends it: 24
/// hours. An agent's session idles for as long as its user is away (rmcp's default of
/// 5 minutes ended them over a lunch break, and clients do not open a new one by
/// themselves); a client that vanished without ending its session is cleaned up after
/// a day.
pub const SESSION_IDLE: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// Where a generated token is kept: `token` beside the index database (in its
/// directory, `.constellation/` by default), mode 0600.
pub fn token_file(db: &Path) -> PathBuf {
    db.parent()
        .unwrap_or_else(|| Path::new("."))
        .join("http-token")
}

/// The token clients must send: `given` when set, else the one stored in `file`, else
/// a new random one (32 bytes from the operating system, hex) written to `file` with
/// owner-only permissions. Returns the token and whether it was read or written there.
///
/// Errors: the file cannot be read or written, or the system has no randomness.
pub fn resolve_token(given: Option<String>, file: &Path) -> std::io::Result<(String, bool)> {
    if let Some(t) = given.filter(|t| !t.trim().is_empty()) {
        return Ok((t.trim().to_string(), false));
    }
    if let Ok(text) = std::fs::read_to_string(file) {
        let t = text.trim();
        if !t.is_empty() {
            return Ok((t.to_string(), true));
        }
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    write_private(file, &token)?;
    Ok((token, true))
}

/// Writes `text` to `path` readable and writable by its owner only.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(0o600);
    }
    let mut f = opts.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    f.write_all(text.as_bytes())?;
    f.write_all(b"\n")
}

/// Whether `a` and `b` are equal, in time that depends on their lengths only.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A plain-text answer with `status`.
fn plain(
    status: StatusCode,
    text: &str,
) -> Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    let mut r = Response::new(Full::new(Bytes::from(text.to_string())).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            hyper::header::HeaderValue::from_static("Bearer"),
        );
    }
    r
}

/// The rmcp transport configuration: hosts and origins of the loopback (plus the bound
/// address when it is not a loopback one), server-sent keep-alives every 15 s.
fn transport_config(addr: SocketAddr) -> StreamableHttpServerConfig {
    let mut hosts = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
        "[::1]".to_string(),
    ];
    let ip = addr.ip().to_string();
    if !hosts.contains(&ip) {
        hosts.push(ip);
    }
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins([
            "http://localhost:*",
            "http://127.0.0.1:*",
            "http://[::1]:*",
            "https://localhost:*",
            "https://127.0.0.1:*",
        ])
        .enforce_origin_validation()
}

/// Serves `server` over streamable HTTP on `addr` until the process ends. `ready` is
/// called with the bound address (port 0 picks a free one) once it accepts requests.
///
/// Errors: the address cannot be bound.
pub async fn serve_http(
    server: Server,
    addr: SocketAddr,
    token: String,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    if !bound.ip().is_loopback() {
        tracing::warn!(
            "serving MCP on {bound}, reachable from other machines: anyone with the token can read this workspace"
        );
    }
    server.warm_up();
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(SESSION_IDLE);
    let sessions = Arc::new(manager);
    let open = Arc::clone(&sessions);
    server.set_http_sessions(Box::new(move || {
        open.sessions.try_read().map(|s| s.len()).unwrap_or(0)
    }));
    let mcp = StreamableHttpService::new(
        move || Ok(server.clone()),
        sessions,
        transport_config(bound),
    );
    let expected = Arc::new(format!("Bearer {token}").into_bytes());
    ready(bound);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(conn) => conn,
            Err(e) => {
                tracing::warn!("accepting a connection failed: {e}");
                continue;
            }
        };
        let mcp = mcp.clone();
        let expected = Arc::clone(&expected);
        let service = hyper::service::service_fn(move |req: Request<Incoming>| {
            let mut mcp = mcp.clone();
            let expected = Arc::clone(&expected);
            async move {
                if req.uri().path() != ENDPOINT {
                    return Ok::<_, Infallible>(plain(
                        StatusCode::NOT_FOUND,
                        "not found: the MCP endpoint is /mcp\n",
                    ));
                }
                let authorized = req
                    .headers()
                    .get(hyper::header::AUTHORIZATION)
                    .is_some_and(|v| same_secret(v.as_bytes(), &expected));
                if !authorized {
                    return Ok(plain(
                        StatusCode::UNAUTHORIZED,
                        "unauthorized: send `Authorization: Bearer TOKEN` (the token of `constellation serve --http`: --token, CONSTELLATION_TOKEN, or the http-token file beside the index database)\n",
                    ));
                }
                mcp.call(req).await
            }
        });
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            if let Err(e) = conn.await {
                tracing::debug!("HTTP connection ended: {e}");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"Bearer abc", b"Bearer abc"));
        assert!(!same_secret(b"Bearer abd", b"Bearer abc"));
        assert!(!same_secret(b"Bearer ab", b"Bearer abc"));
        assert!(!same_secret(b"", b"Bearer abc"));
    }

    #[test]
    fn a_generated_token_is_kept_private_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let file = token_file(&dir.path().join("sub/index.db"));
        let (t1, stored) = resolve_token(None, &file).unwrap();
        assert!(stored);
        assert_eq!(t1.len(), 64);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let (t2, _) = resolve_token(None, &file).unwrap();
        assert_eq!(t1, t2, "the stored token is reused");
        let (given, stored) = resolve_token(Some("s3cret".into()), &file).unwrap();
        assert_eq!((given.as_str(), stored), ("s3cret", false));
    }
}
