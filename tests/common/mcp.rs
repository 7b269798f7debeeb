//! An MCP client for the integration tests: JSON-RPC lines to and from `serve`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

/// A JSON-RPC client over the real binary's stdin/stdout (`serve ROOT --db DB`).
pub struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
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
        Client {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    /// Writes one JSON-RPC message.
    pub fn send(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its response (every stdout line must be JSON-RPC).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).unwrap();
            assert!(n > 0, "server closed stdout while waiting for {method}");
            let msg: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carried a non-JSON line {line:?}: {e}"));
            assert_eq!(msg["jsonrpc"], "2.0");
            if msg["id"] == json!(id) {
                return msg;
            }
        }
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
