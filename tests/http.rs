//! `serve --http`: streamable HTTP at `/mcp`, refused without the bearer token or from a
//! foreign Origin, answering `initialize` with it. (The official Python client's full
//! session over HTTP is `bench/mcp_client.py --http`, run by CI.)

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Served {
    child: Child,
    addr: String,
    /// The start-up line that named the address (and where the token is).
    line: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `serve ROOT --db DB --http 127.0.0.1:0 [--token TOKEN]` and reads the bound
/// address from its stderr.
fn serve(root: &std::path::Path, db: &std::path::Path, token: Option<&str>) -> Served {
    serve_with(root, Some(db), token)
}

/// [`serve`], with the default database (`ROOT/.constellation/index.db`) when `db` is
/// `None`.
fn serve_with(root: &std::path::Path, db: Option<&std::path::Path>, token: Option<&str>) -> Served {
    let mut cmd = Command::new(common::bin());
    cmd.args(["serve", root.to_str().unwrap()]);
    if let Some(db) = db {
        cmd.args(["--db", db.to_str().unwrap()]);
    }
    cmd.args(["--http", "127.0.0.1:0"]);
    if let Some(t) = token {
        cmd.args(["--token", t]);
    }
    let mut child = cmd
        .env_remove("CONSTELLATION_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn serve --http");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (addr, line) = loop {
        let line = lines
            .next()
            .expect("serve --http ended before printing its address")
            .unwrap();
        if let Some(rest) = line.split("serving MCP at http://").nth(1) {
            break (rest.split('/').next().unwrap().to_string(), line);
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Served { child, addr, line }
}

/// POSTs `body` to `path` with `headers`; returns the status code and what the server
/// sent within 5 s (headers and the start of the body).
fn post(addr: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                got.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&got);
                // Enough once a refusal's body or the initialize result has arrived.
                if text.contains("serverInfo")
                    || (text.contains("\r\n\r\n") && !text.starts_with("HTTP/1.1 200"))
                {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    let text = String::from_utf8_lossy(&got).to_string();
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, text)
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"http-test","version":"0"}}}"#;

#[test]
fn the_endpoint_needs_the_token_and_a_local_origin() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("http.db");
    let served = serve(&root, &db, Some("t0ken-for-tests"));
    let good = ("Authorization", "Bearer t0ken-for-tests");

    let (code, text) = post(&served.addr, "/mcp", &[], INIT);
    assert_eq!(code, 401, "{text}");
    assert!(text.contains("Authorization: Bearer TOKEN"), "{text}");
    let (code, _) = post(
        &served.addr,
        "/mcp",
        &[("Authorization", "Bearer wrong")],
        INIT,
    );
    assert_eq!(code, 401);
    let (code, text) = post(
        &served.addr,
        "/mcp",
        &[good, ("Origin", "http://evil.example")],
        INIT,
    );
    assert_eq!(code, 403, "a foreign Origin: {text}");
    let (code, _) = post(&served.addr, "/other", &[good], INIT);
    assert_eq!(code, 404);

    // With the token (and a loopback Origin, as a local web client would send).
    let (code, text) = post(
        &served.addr,
        "/mcp",
        &[good, ("Origin", "http://localhost:3000")],
        INIT,
    );
    assert_eq!(code, 200, "{text}");
    assert!(text.contains(r#""name":"constellation""#), "{text}");
}

#[test]
fn a_generated_token_is_stored_beside_the_database_for_its_owner_only() {
    let (_dir, root) = common::fixture_copy("py-pkg");
    let db = root.parent().unwrap().join("state/http.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let line = serve(&root, &db, None).line.clone();
    let file = db.parent().unwrap().join("http-token");
    assert!(line.contains(file.to_str().unwrap()), "{line}");
    let token = std::fs::read_to_string(&file).unwrap();
    assert_eq!(token.trim().len(), 64, "32 random bytes in hex");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

/// `index ROOT --json` with the default database: its report.
fn index_json(root: &std::path::Path) -> serde_json::Value {
    let out = common::run_ok(&["index", root.to_str().unwrap(), "--json"]);
    let last = out.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    serde_json::from_str(last).unwrap()
}

/// `constellation status ROOT --json`: its exit code and answer.
fn status_json(root: &std::path::Path) -> (i32, serde_json::Value) {
    let out = common::run(&["status", root.to_str().unwrap(), "--json"]);
    let v = serde_json::from_slice(&out.stdout).expect("status --json output");
    (out.status.code().unwrap_or(-1), v)
}

#[test]
fn a_command_beside_a_watching_server_asks_it_instead_of_walking() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("m.py"), "def one():\n    pass\n").unwrap();
    // An index exists before the server starts (a command with no index builds one).
    assert_eq!(index_json(&root)["fileSource"], "directories");
    let served = serve_with(&root, None, Some("t0ken-for-tests"));
    let pid = served.child.id();
    // The watch starts in the background: wait until the server answers.
    let start = std::time::Instant::now();
    loop {
        let r = index_json(&root);
        if r["fileSource"] == "server" {
            assert_eq!(r["servedBy"], pid, "{r}");
            assert_eq!(
                (r["filesSeen"].as_u64(), r["filesParsed"].as_u64()),
                (Some(1), Some(0))
            );
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "never served: {r}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // An edit made just before a command is in what the command reads: the command
    // waits for the server's run instead of walking.
    for round in 0..5 {
        std::fs::write(
            root.join(format!("n{round}.py")),
            format!("def fresh{round}():\n    one()\n"),
        )
        .unwrap();
        // `status` asks the watch too, on the even rounds before `index` does.
        if round % 2 == 0 {
            let (code, s) = status_json(&root);
            let s = &s["roots"][0];
            assert_eq!(code, 0, "{s}");
            assert_eq!(s["servedBy"], pid, "{s}");
            assert_eq!(s["pendingChanges"], false, "{s}");
            // A walk would have counted what is pending; the watch's answer counts nothing.
            assert!(s["pendingFiles"].is_null(), "status walked: {s}");
            assert_eq!(s["files"].as_u64(), Some(round + 2), "{s}");
        }
        let r = index_json(&root);
        assert_eq!(r["fileSource"], "server", "{r}");
        assert_eq!(r["filesSeen"].as_u64(), Some(round + 2), "{r}");
        let names = common::run_ok(&[
            "sql",
            root.to_str().unwrap(),
            &format!("SELECT name FROM symbols WHERE name = 'fresh{round}'"),
        ]);
        assert!(names.contains(&format!("fresh{round}")), "{names}");
    }
    // A command with other walk options does not take the server's answer.
    let out = common::run_ok(&["index", root.to_str().unwrap(), "--json", "--no-ignore"]);
    assert!(out.contains("\"fileSource\":\"directories\""), "{out}");
    // No cookie is left behind.
    let cookies: Vec<_> = std::fs::read_dir(root.join(".constellation"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".cookie-"))
        .collect();
    assert!(cookies.is_empty(), "{cookies:?}");
    // The server gone, commands walk again (its lock went with it).
    drop(served);
    std::fs::write(root.join("late.py"), "def late():\n    pass\n").unwrap();
    let (code, s) = status_json(&root);
    let s = &s["roots"][0];
    assert_eq!(code, 1, "{s}");
    assert_eq!(s["pendingChanges"], true, "{s}");
    assert_eq!(s["pendingFiles"]["added"], 1, "{s}");
    assert!(s.get("servedBy").is_none(), "{s}");
    let r = index_json(&root);
    assert_eq!(r["fileSource"], "directories", "{r}");
    assert_eq!(r["filesParsed"].as_u64(), Some(1), "{r}");
}
