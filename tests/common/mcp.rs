//! An MCP client for the integration tests: JSON-RPC lines to and from `serve`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long [`Client::request`] waits for its answer before failing the test.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// A JSON-RPC client over the real binary's stdin/stdout (`serve ROOT --db DB`). A
/// thread reads stdout, so a wait for a line can time out.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: i64,
}

impl Client {
    /// Starts `serve ROOT --db DB` with `extra` arguments and `envs` added.
    pub fn start(root: &Path, db: &Path) -> Client {
        Client::start_with(root, db, &[], &[])
    }

    /// Like [`Client::start`], with extra arguments and environment variables.
    pub fn start_with(root: &Path, db: &Path, extra: &[&str], envs: &[(&str, &str)]) -> Client {
        let mut child = Command::new(super::bin())
            .args([
                "serve",
                root.to_str().unwrap(),
                "--db",
                db.to_str().unwrap(),
            ])
            .args(extra)
            .env_remove("CONSTELLATION_DB")
            .envs(envs.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn serve");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin: Some(stdin),
            lines,
            next_id: 1,
        }
    }

    /// Writes `bytes` and a newline, as they are (no JSON check).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next stdout line as JSON, or `None` when nothing came within `timeout` (or
    /// stdout closed). Every stdout line must be a JSON-RPC message.
    pub fn next_message(&mut self, timeout: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(timeout).ok()?;
        let msg: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a non-JSON line {line:?}: {e}"));
        assert_eq!(msg["jsonrpc"], "2.0", "{msg}");
        Some(msg)
    }

    /// The answer to `id`, skipping other messages, or `None` after `timeout`.
    pub fn answer_to(&mut self, id: &Value, timeout: Duration) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let msg = self.next_message(left)?;
            if &msg["id"] == id && msg.get("method").is_none() {
                return Some(msg);
            }
        }
    }

    /// Closes the server's stdin and waits up to `timeout` for it to exit; its status,
    /// or `None` when it still runs.
    pub fn close_stdin(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        drop(self.stdin.take());
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Whether the server process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Writes one JSON-RPC message.
    pub fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and returns its response (every stdout line must be JSON-RPC).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer_to(&json!(id), REQUEST_TIMEOUT)
            .unwrap_or_else(|| panic!("no answer to {method} (the server closed stdout or took over {REQUEST_TIMEOUT:?})"))
    }

    /// `tools/call` NAME with ARGS; returns the `result` object.
    pub fn call(&mut self, name: &str, args: Value) -> Value {
        let resp = self.request("tools/call", json!({"name": name, "arguments": args}));
        resp["result"].clone()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `initialize` plus `notifications/initialized`; returns the initialize response.
pub fn handshake(c: &mut Client) -> Value {
    let init = c.request(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "constellation-test", "version": "0"}
        }),
    );
    c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    init
}
