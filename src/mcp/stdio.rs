//! The stdio front door: the one reader of stdin and the one writer of stdout, between
//! the client and rmcp.
//!
//! Why it exists: rmcp's own stdio transport drops a line it cannot parse (invalid JSON,
//! a lone UTF-16 surrogate, nesting past serde_json's recursion limit, a line over
//! 16 MiB) without an answer, so the client waits for its own timeout; and before
//! `initialize` it ends the session on a notification or a response. Here every line is
//! read with a byte cap and checked first:
//! - a line that is not a JSON-RPC message is answered here with a JSON-RPC error
//!   (-32700 for text that is not JSON, -32600 otherwise, -32602 for a known method
//!   whose params do not fit) carrying the line's `"id"`, recovered by a tolerant
//!   scanner even from text that does not parse ([`Scanner`]), or `null` without one;
//! - before the client's `initialize`, notifications and responses are dropped, `ping`
//!   is answered with an empty result, and other requests get -32002 "not initialized"
//!   (requests carrying the inline protocol metadata of MCP's stateless lifecycle go to
//!   rmcp, which serves them without a handshake);
//! - every other line goes to rmcp unchanged, over an in-process pipe.
//!
//! rmcp writes its answers to a second pipe; one task copies them to stdout line by
//! line, and the front door's own answers go through that same task, so no two
//! messages interleave on stdout. Should the rmcp session end while stdin is open (its
//! handshake failed), a new one is started and the front door is again before
//! `initialize`. End of stdin ends the session.
//!
//! This module knows nothing of tools; it must not parse arguments or answer calls.

use std::future::Future;
use std::io;

use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, InitializeRequestParams, PaginatedRequestParams,
};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The longest line read, in bytes without its newline (16 MiB, rmcp's own limit); a
/// longer line is discarded as it is read and answered with -32600.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The deepest nesting of arrays and objects a message may have (the message itself is
/// level 1, so a tool's arguments sit at level 3). serde_json stops at 128; below that
/// the answer names the limit instead of a parser's recursion error.
pub const MAX_DEPTH: usize = 100;

/// JSON-RPC 2.0: the text is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0: the JSON is not a valid request object.
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0: a known method's params do not fit it.
const INVALID_PARAMS: i64 = -32602;
/// MCP (and LSP before it): a request before the handshake.
const NOT_INITIALIZED: i64 = -32002;

/// How many outgoing lines may wait for stdout before their senders wait.
const OUTGOING_QUEUE: usize = 64;
/// The pipes' buffers between the front door and rmcp, in bytes.
const PIPE_BYTES: usize = 64 * 1024;
/// The longest `"id"` value the scanner keeps, in bytes of JSON text.
const MAX_ID_BYTES: usize = 1024;

/// Serves one stdio session: reads `input` until its end, answers bad lines itself,
/// and runs `start(reader, writer)` (an rmcp session over the two pipe ends) for the
/// rest, again if a session ends early. Every line written to `output` is one whole
/// JSON-RPC message.
///
/// Errors: reading `input` (its end is not an error) or writing `output`.
pub async fn serve<I, O, S, F>(input: I, output: O, start: S) -> io::Result<()>
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin + Send + 'static,
    S: Fn(DuplexStream, DuplexStream) -> F,
    F: Future<Output = ()> + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>(OUTGOING_QUEUE);
    let writer = tokio::spawn(write_lines(out_rx, output));
    let mut door = FrontDoor {
        initialized: false,
        session: None,
        out: out_tx,
    };
    let mut lines = LineReader::new(BufReader::new(input), MAX_LINE_BYTES);
    let read = loop {
        match lines.next_line().await {
            Ok(Some(line)) => {
                if door.handle(line, &start).await.is_err() {
                    // stdout is gone: nobody can read an answer any more.
                    break Ok(());
                }
            }
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    let FrontDoor { session, out, .. } = door;
    drop(out);
    if let Some(session) = session {
        // Closing rmcp's input ends its session, as a closed stdin did before.
        drop(session.input);
        let _ = session.task.await;
    }
    let written = writer.await.unwrap_or_else(|e| Err(io::Error::other(e)));
    read.and(written)
}

/// Copies whole lines from the channel to `output`, flushing after each burst.
async fn write_lines<O: AsyncWrite + Unpin>(
    mut rx: mpsc::Receiver<Vec<u8>>,
    mut output: O,
) -> io::Result<()> {
    while let Some(line) = rx.recv().await {
        output.write_all(&line).await?;
        while let Ok(line) = rx.try_recv() {
            output.write_all(&line).await?;
        }
        output.flush().await?;
    }
    Ok(())
}

/// A running rmcp session: the pipe end its input is written to, and its task.
struct Session {
    input: DuplexStream,
    task: JoinHandle<()>,
}

/// The front door's state between lines.
struct FrontDoor {
    /// Whether `initialize` has gone to the current rmcp session.
    initialized: bool,
    session: Option<Session>,
    out: mpsc::Sender<Vec<u8>>,
}

/// The output channel closed (stdout failed).
struct Closed;

impl FrontDoor {
    /// Answers, drops or forwards one line read from stdin.
    async fn handle<S, F>(&mut self, line: Line, start: &S) -> Result<(), Closed>
    where
        S: Fn(DuplexStream, DuplexStream) -> F,
        F: Future<Output = ()> + Send + 'static,
    {
        if self.session.as_ref().is_some_and(|s| s.task.is_finished()) {
            tracing::warn!("the MCP session ended while stdin is open; starting a new one");
            self.session = None;
            self.initialized = false;
        }
        let (bytes, message) = match line {
            Line::TooLong { len, facts } => {
                let reply = error_reply(
                    facts.id,
                    INVALID_REQUEST,
                    format!(
                        "the request's line is {} bytes, over the {} MiB limit; send less in \
                         one message (long text belongs in files the tools read)",
                        group_digits(len),
                        MAX_LINE_BYTES >> 20
                    ),
                );
                return self.send(reply).await;
            }
            Line::Whole(bytes) => match check(&bytes) {
                Checked::Blank => return Ok(()),
                Checked::Reject(reply) => return self.send(reply).await,
                Checked::Ignore(why) => {
                    tracing::debug!("stdin: ignored a message: {why}");
                    return Ok(());
                }
                Checked::Message(message) => (bytes, message),
            },
        };
        if !self.initialized {
            match &message {
                Message::Notification { method } => {
                    tracing::debug!(
                        "stdin: dropped notification {method:?} sent before initialize"
                    );
                    return Ok(());
                }
                Message::Response => {
                    tracing::debug!("stdin: dropped a response sent before initialize");
                    return Ok(());
                }
                Message::Request { id, method, .. } if method == "ping" => {
                    let reply = json!({"jsonrpc": "2.0", "id": id, "result": {}});
                    return self.send(reply).await;
                }
                Message::Request { method, .. } if method == "initialize" => {
                    self.initialized = true;
                }
                Message::Request {
                    inline_meta: true, ..
                } => {}
                Message::Request { id, method, .. } => {
                    let reply = error_reply(
                        id.clone(),
                        NOT_INITIALIZED,
                        format!(
                            "the server is not initialized; send initialize first (then \
                             notifications/initialized), and {method} after it"
                        ),
                    );
                    return self.send(reply).await;
                }
            }
        }
        self.forward(bytes, start).await
    }

    /// Writes `bytes` and a newline to the rmcp session, starting one if none runs.
    async fn forward<S, F>(&mut self, mut bytes: Vec<u8>, start: &S) -> Result<(), Closed>
    where
        S: Fn(DuplexStream, DuplexStream) -> F,
        F: Future<Output = ()> + Send + 'static,
    {
        let session = match &mut self.session {
            Some(session) => session,
            None => self.session.insert(self.start(start)),
        };
        bytes.push(b'\n');
        if let Err(e) = session.input.write_all(&bytes).await {
            // The session ended between the check and the write; the next line starts a
            // new one. This line is lost with the session, as its answers would be.
            tracing::warn!("the MCP session stopped reading: {e}");
        }
        Ok(())
    }

    /// Starts an rmcp session over two new pipes and the task copying its output.
    fn start<S, F>(&self, start: &S) -> Session
    where
        S: Fn(DuplexStream, DuplexStream) -> F,
        F: Future<Output = ()> + Send + 'static,
    {
        let (input, rmcp_in) = tokio::io::duplex(PIPE_BYTES);
        let (rmcp_out, output) = tokio::io::duplex(PIPE_BYTES);
        let task = tokio::spawn(start(rmcp_in, rmcp_out));
        tokio::spawn(copy_lines(BufReader::new(output), self.out.clone()));
        Session { input, task }
    }

    async fn send(&self, reply: Value) -> Result<(), Closed> {
        let mut line = reply.to_string().into_bytes();
        line.push(b'\n');
        self.out.send(line).await.map_err(|_| Closed)
    }
}

/// Sends each line rmcp writes to the stdout writer, until rmcp closes its pipe.
async fn copy_lines(mut from: BufReader<DuplexStream>, to: mpsc::Sender<Vec<u8>>) {
    loop {
        let mut line = Vec::new();
        match from.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                if to.send(line).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// A JSON-RPC error response.
fn error_reply(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// `20000000` as `20,000,000`.
fn group_digits(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One line of stdin.
#[derive(Debug)]
enum Line {
    /// A line within the cap, without its `\n` (or `\r\n`).
    Whole(Vec<u8>),
    /// A line over the cap, discarded as it was read: its length and what the scanner
    /// saw in it.
    TooLong { len: usize, facts: Facts },
}

/// Reads lines of at most `max` bytes; a longer line is scanned and dropped as it
/// streams by, never held whole.
struct LineReader<R> {
    read: R,
    max: usize,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    fn new(read: R, max: usize) -> Self {
        LineReader { read, max }
    }

    /// The next line; `None` at the end of input. A last line without a newline counts.
    ///
    /// Errors: reading the input.
    async fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut buf = Vec::new();
        // Set once the line is over the cap: its scanner and its length so far.
        let mut over: Option<(Scanner, usize)> = None;
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(match over {
                    Some((scanner, len)) => Some(Line::TooLong {
                        len,
                        facts: scanner.finish(),
                    }),
                    None if buf.is_empty() => None,
                    None => Some(Line::Whole(trim_line_end(buf))),
                });
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = &available[..newline.unwrap_or(available.len())];
            match &mut over {
                Some((scanner, len)) => {
                    scanner.feed(chunk);
                    *len += chunk.len();
                }
                None if buf.len() + chunk.len() > self.max => {
                    let mut scanner = Scanner::default();
                    scanner.feed(&buf);
                    scanner.feed(chunk);
                    over = Some((scanner, buf.len() + chunk.len()));
                    buf = Vec::new();
                }
                None => buf.extend_from_slice(chunk),
            }
            self.read.consume(take);
            if newline.is_some() {
                return Ok(Some(match over {
                    Some((scanner, len)) => Line::TooLong {
                        len,
                        facts: scanner.finish(),
                    },
                    None => Line::Whole(trim_line_end(buf)),
                }));
            }
        }
    }
}

/// Drops a trailing `\r`.
fn trim_line_end(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}

/// What a valid JSON-RPC message is, as far as the front door cares.
#[derive(Debug, PartialEq)]
enum Message {
    Request {
        id: Value,
        method: String,
        /// Whether `params._meta` carries the protocol version and client capabilities
        /// of MCP's stateless lifecycle (rmcp serves such a request without a handshake).
        inline_meta: bool,
    },
    Notification {
        method: String,
    },
    Response,
}

/// The verdict on one line.
#[derive(Debug)]
enum Checked {
    /// Empty or whitespace: skipped, as rmcp does.
    Blank,
    /// Answered here with this error response.
    Reject(Value),
    /// Dropped without an answer (a notification or response that rmcp could not
    /// read: no answer is owed for those); the reason is logged.
    Ignore(String),
    /// A message rmcp reads.
    Message(Message),
}

/// The UTF-8 byte order mark, which RFC 8259 lets a parser skip.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Checks one line (without its newline): is it a JSON-RPC message rmcp can read?
fn check(line: &[u8]) -> Checked {
    let line = line.strip_prefix(BOM).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Checked::Blank;
    }
    let mut scanner = Scanner::default();
    scanner.feed(line);
    let facts = scanner.finish();
    let reject =
        |code, message: String| Checked::Reject(error_reply(facts.id.clone(), code, message));
    if facts.max_depth > MAX_DEPTH {
        return reject(
            INVALID_REQUEST,
            format!(
                "the message nests arrays and objects {} levels deep, over this server's limit \
                 of {MAX_DEPTH} (a tool's arguments start at level 3); send flatter arguments",
                facts.max_depth
            ),
        );
    }
    if let Some(surrogate) = &facts.lone_surrogate {
        return reject(
            INVALID_REQUEST,
            format!(
                "a string holds a lone UTF-16 surrogate ({surrogate}), which is not valid \
                 Unicode; send the text as UTF-8 (or escape a character outside the Basic \
                 Multilingual Plane as a surrogate pair)"
            ),
        );
    }
    if let Err(e) = std::str::from_utf8(line) {
        return reject(
            PARSE_ERROR,
            format!(
                "parse error: the line is not valid UTF-8 (at byte {}); JSON text must be UTF-8",
                e.valid_up_to()
            ),
        );
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            return reject(
                PARSE_ERROR,
                format!("parse error: {e}; each line must hold one JSON-RPC message in JSON"),
            )
        }
    };
    let Value::Object(object) = value else {
        let what = match &value {
            Value::Array(_) => "an array (batches are not supported: send one message a line)",
            Value::String(_) => "a string",
            Value::Number(_) => "a number",
            Value::Bool(_) => "a boolean",
            Value::Null => "null",
            Value::Object(_) => "an object",
        };
        return Checked::Reject(error_reply(
            Value::Null,
            INVALID_REQUEST,
            format!("a JSON-RPC message is a JSON object; this line holds {what}"),
        ));
    };
    shape(object)
}

/// Checks the JSON-RPC shape of a parsed message and that rmcp can read it.
fn shape(object: Map<String, Value>) -> Checked {
    if !object.contains_key("method")
        && (object.contains_key("result") || object.contains_key("error"))
    {
        // A response is owed no answer, even a malformed one (an answer to an answer
        // could start an exchange of errors).
        return match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
            Ok(_) => Checked::Message(Message::Response),
            Err(e) => Checked::Ignore(format!("a response that does not fit JSON-RPC: {e}")),
        };
    }
    let id = match object.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        Some(other) => {
            return Checked::Reject(error_reply(
                Value::Null,
                INVALID_REQUEST,
                format!(
                    "\"id\" must be a string or a number, not {}; a message without an answer \
                     (a notification) has no \"id\"",
                    kind_of(other)
                ),
            ))
        }
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    let reject =
        |code, message: String| Checked::Reject(error_reply(reply_id.clone(), code, message));
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return reject(
            INVALID_REQUEST,
            format!(
                "\"jsonrpc\" must be \"2.0\", got {}",
                object
                    .get("jsonrpc")
                    .map_or("nothing".to_string(), Value::to_string)
            ),
        );
    }
    let message = match (object.get("method"), id) {
        (Some(Value::String(method)), Some(id)) => Message::Request {
            id,
            method: method.clone(),
            inline_meta: has_inline_meta(&object),
        },
        (Some(Value::String(method)), None) => Message::Notification {
            method: method.clone(),
        },
        (Some(other), _) => {
            return reject(
                INVALID_REQUEST,
                format!("\"method\" must be a string, not {}", kind_of(other)),
            )
        }
        (None, _) => {
            let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
            keys.sort_unstable();
            return reject(
                INVALID_REQUEST,
                format!(
                    "a JSON-RPC message needs \"method\" (a request or notification) or \
                     \"result\"/\"error\" (a response); this one has {}",
                    if keys.is_empty() {
                        "no keys".to_string()
                    } else {
                        format!("only {}", keys.join(", "))
                    }
                ),
            );
        }
    };
    if let Message::Request { method, .. } = &message {
        // rmcp reads a known method whose params do not fit as a custom request, and
        // answers that the method (tools/call!) is not found.
        if let Some(why) = params_error(method, object.get("params")) {
            return reject(
                INVALID_PARAMS,
                format!("params of {method} do not fit the method: {why}"),
            );
        }
    }
    if let Err(e) = serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
        return match message {
            Message::Request { method, .. } => reject(
                INVALID_PARAMS,
                format!("params of {method} do not fit the method: {e}"),
            ),
            Message::Notification { method } => Checked::Ignore(format!(
                "notification {method:?} does not fit its method: {e}"
            )),
            Message::Response => Checked::Ignore(format!("a response that does not fit: {e}")),
        };
    }
    Checked::Message(message)
}

/// What is wrong with `params` for the methods this server serves, with the path of
/// the field (`arguments: invalid type: ...`); `None` when they fit or for other methods.
fn params_error(method: &str, params: Option<&Value>) -> Option<String> {
    fn path_error<T: DeserializeOwned>(params: Option<&Value>, required: bool) -> Option<String> {
        let params = match params {
            Some(params) => params,
            None if required => return Some("params are missing".to_string()),
            None => return None,
        };
        let err = serde_path_to_error::deserialize::<_, T>(params).err()?;
        let path = err.path().to_string();
        Some(if path == "." {
            err.into_inner().to_string()
        } else {
            format!("{path}: {}", err.into_inner())
        })
    }
    match method {
        "tools/call" => path_error::<CallToolRequestParams>(params, true),
        "initialize" => path_error::<InitializeRequestParams>(params, true),
        "tools/list" => path_error::<PaginatedRequestParams>(params, false),
        _ => None,
    }
}

/// Whether `params._meta` holds the protocol version and client capabilities.
fn has_inline_meta(object: &Map<String, Value>) -> bool {
    let meta = object.get("params").and_then(|p| p.get("_meta"));
    meta.is_some_and(|m| {
        m.get("io.modelcontextprotocol/protocolVersion").is_some()
            && m.get("io.modelcontextprotocol/clientCapabilities")
                .is_some()
    })
}

/// `null`, `a boolean`, ... for messages.
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What the scanner saw in a line.
#[derive(Debug, Clone, PartialEq)]
struct Facts {
    /// The top-level `"id"` when it is a string or a number, else `null`.
    id: Value,
    /// The deepest nesting of arrays and objects (a flat object is 1).
    max_depth: usize,
    /// The first lone surrogate escape in a string, as written (`\ud800`).
    lone_surrogate: Option<String>,
}

/// A tolerant, streaming scan of JSON text that needs no valid JSON: it tracks strings,
/// escapes and nesting, and picks up the top-level `"id"` (a key of the outermost
/// object, depth 1) and the first lone UTF-16 surrogate escape. One pass, O(bytes),
/// memory bounded by [`MAX_ID_BYTES`], so it also reads the lines too long to keep.
#[derive(Debug, Default)]
struct Scanner {
    depth: usize,
    max_depth: usize,
    /// Whether the outermost value is an object (only its keys are looked at).
    top_is_object: bool,
    /// At depth 1 of the top object, the next string is a key.
    expect_key: bool,
    string: StringState,
    /// Inside a string: whether it is a depth-1 key, and its first bytes.
    key: Option<Vec<u8>>,
    /// A high surrogate escape was just read; the next must be a low one.
    after_high: Option<u16>,
    lone_surrogate: Option<String>,
    id: IdState,
}

/// Where the scanner is relative to strings.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum StringState {
    #[default]
    Outside,
    Inside,
    /// After a backslash.
    Escape,
    /// After `\u`, with this many hex digits read and their value.
    Hex(u8, u16),
}

/// The hunt for the top-level `"id"`.
#[derive(Debug, Default)]
enum IdState {
    /// No depth-1 key `"id"` seen yet.
    #[default]
    Looking,
    /// After the key `"id"` (before or after its colon).
    AfterKey,
    /// Inside the id's string, its JSON text so far (with the opening quote).
    InString(Vec<u8>),
    /// Inside the id's number.
    InNumber(Vec<u8>),
    /// The id's JSON text, when it was a string or a number.
    Found(Option<Vec<u8>>),
}

impl Scanner {
    /// Scans the next bytes of the line.
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn byte(&mut self, b: u8) {
        // The id's value is collected alongside the structure.
        match &mut self.id {
            IdState::InString(text) => {
                if text.len() < MAX_ID_BYTES {
                    text.push(b);
                } else {
                    self.id = IdState::Found(None);
                }
            }
            IdState::InNumber(text) => {
                if b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E') {
                    if text.len() < MAX_ID_BYTES {
                        text.push(b);
                    }
                    return;
                }
                self.id = IdState::Found(Some(std::mem::take(text)));
            }
            IdState::AfterKey if self.string == StringState::Outside && self.depth == 1 => {
                match b {
                    b':' | b' ' | b'\t' | b'\r' | b'\n' => {}
                    b'"' => self.id = IdState::InString(Vec::new()),
                    b'-' | b'0'..=b'9' => {
                        self.id = IdState::InNumber(vec![b]);
                        return;
                    }
                    _ => self.id = IdState::Found(None),
                }
            }
            _ => {}
        }
        match self.string {
            StringState::Outside => self.structural(b),
            StringState::Inside => match b {
                b'"' => {
                    self.end_surrogate_run();
                    self.string = StringState::Outside;
                    self.end_string();
                }
                b'\\' => self.string = StringState::Escape,
                _ => {
                    self.end_surrogate_run();
                    self.key_byte(b);
                }
            },
            StringState::Escape => {
                if b == b'u' {
                    self.string = StringState::Hex(0, 0);
                } else {
                    self.end_surrogate_run();
                    self.string = StringState::Inside;
                    // An escaped byte makes a key other than the plain `id`.
                    self.key_byte(b'\\');
                }
            }
            StringState::Hex(n, v) => {
                let Some(d) = (b as char).to_digit(16) else {
                    // Not JSON; the parser says so. Resume as string text.
                    self.string = StringState::Inside;
                    return;
                };
                let v = (v << 4) | d as u16;
                if n < 3 {
                    self.string = StringState::Hex(n + 1, v);
                    return;
                }
                self.string = StringState::Inside;
                self.key_byte(b'\\');
                match v {
                    0xD800..=0xDBFF => {
                        self.end_surrogate_run();
                        self.after_high = Some(v);
                    }
                    0xDC00..=0xDFFF => {
                        if self.after_high.take().is_none() {
                            self.lone(v);
                        }
                    }
                    _ => self.end_surrogate_run(),
                }
            }
        }
    }

    /// A byte outside strings.
    fn structural(&mut self, b: u8) {
        match b {
            b'"' => {
                self.string = StringState::Inside;
                if self.depth == 1 && self.top_is_object && self.expect_key {
                    self.key = Some(Vec::new());
                    self.expect_key = false;
                }
            }
            b'{' | b'[' => {
                if self.depth == 0 && self.max_depth == 0 {
                    self.top_is_object = b == b'{';
                    self.expect_key = self.top_is_object;
                }
                self.depth += 1;
                self.max_depth = self.max_depth.max(self.depth);
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 && self.top_is_object => self.expect_key = true,
            _ => {}
        }
    }

    /// A byte of string content (escapes count as a backslash).
    fn key_byte(&mut self, b: u8) {
        if let Some(key) = &mut self.key {
            if key.len() < 3 {
                key.push(b);
            }
        }
    }

    /// A string just closed: a depth-1 key `"id"` starts the hunt for its value; the
    /// id's own string is complete.
    fn end_string(&mut self) {
        if let Some(key) = self.key.take() {
            if key == b"id" && matches!(self.id, IdState::Looking) {
                self.id = IdState::AfterKey;
            }
            return;
        }
        if let IdState::InString(text) = &mut self.id {
            let mut json = Vec::with_capacity(text.len() + 1);
            json.push(b'"');
            json.extend_from_slice(text);
            self.id = IdState::Found(Some(json));
        }
    }

    /// Something other than a low surrogate escape follows a high one.
    fn end_surrogate_run(&mut self) {
        if let Some(high) = self.after_high.take() {
            self.lone(high);
        }
    }

    fn lone(&mut self, v: u16) {
        if self.lone_surrogate.is_none() {
            self.lone_surrogate = Some(format!("\\u{v:04x}"));
        }
    }

    /// What the scan found.
    fn finish(mut self) -> Facts {
        if let IdState::InNumber(text) = &mut self.id {
            self.id = IdState::Found(Some(std::mem::take(text)));
        }
        let id = match self.id {
            IdState::Found(Some(text)) => match serde_json::from_slice::<Value>(&text) {
                Ok(v @ (Value::String(_) | Value::Number(_))) => v,
                _ => Value::Null,
            },
            _ => Value::Null,
        };
        Facts {
            id,
            max_depth: self.max_depth,
            lone_surrogate: self.lone_surrogate,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Facts {
        let mut scanner = Scanner::default();
        scanner.feed(text.as_bytes());
        scanner.finish()
    }

    /// The reply `check` gives to a rejected line: (id, code, message).
    fn rejected(line: &str) -> (Value, i64, String) {
        match check(line.as_bytes()) {
            Checked::Reject(reply) => (
                reply["id"].clone(),
                reply["error"]["code"].as_i64().unwrap(),
                reply["error"]["message"].as_str().unwrap().to_string(),
            ),
            other => panic!("{line:?} was not rejected: {other:?}"),
        }
    }

    #[test]
    fn the_scanner_finds_the_top_level_id_of_broken_text() {
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#).id,
            json!(7)
        );
        assert_eq!(scan(r#"{"id" : "a\"b", "method":"#).id, json!("a\"b"));
        assert_eq!(scan(r#"{"id":-1.5e3}"#).id, json!(-1500.0));
        assert_eq!(scan(r#"{"id":12"#).id, json!(12));
        // Only a key of the outermost object counts.
        assert_eq!(scan(r#"{"params":{"id":3},"x":"id","id":4}"#).id, json!(4));
        assert_eq!(scan(r#"[{"id":3}]"#).id, Value::Null);
        assert_eq!(scan(r#"{"idx":3,"xid":5}"#).id, Value::Null);
        assert_eq!(scan(r#"{"id":null}"#).id, Value::Null);
        assert_eq!(scan(r#"{"id":[1]}"#).id, Value::Null);
        assert_eq!(scan(r#"{"id":"\ud800"}"#).id, Value::Null);
        assert_eq!(scan("not json at all").id, Value::Null);
    }

    #[test]
    fn the_scanner_measures_depth_and_finds_lone_surrogates() {
        assert_eq!(scan(r#"{"a":[{"b":"[[[{"}]]}"#).max_depth, 3);
        assert_eq!(scan(&"[".repeat(500)).max_depth, 500);
        let facts = scan(r#"{"a":"x\ud800y"}"#);
        assert_eq!(facts.lone_surrogate.as_deref(), Some("\\ud800"));
        assert_eq!(
            scan(r#"{"a":"\uDC00"}"#).lone_surrogate.as_deref(),
            Some("\\udc00")
        );
        assert_eq!(
            scan(r#"{"a":"\ud800\n"}"#).lone_surrogate.as_deref(),
            Some("\\ud800")
        );
        assert_eq!(
            scan(r#"{"a":"\ud800\u0041"}"#).lone_surrogate.as_deref(),
            Some("\\ud800")
        );
        // A pair is one character; an escaped backslash is no escape.
        assert_eq!(scan(r#"{"a":"\ud83d\ude00 \\ud800"}"#).lone_surrogate, None);
    }

    #[test]
    fn a_streamed_scan_equals_a_whole_one() {
        let text = r#"{"jsonrpc":"2.0","id":"req-9","params":{"s":"\ud83d\ude00"}}"#;
        let mut scanner = Scanner::default();
        for b in text.as_bytes() {
            scanner.feed(std::slice::from_ref(b));
        }
        assert_eq!(scanner.finish(), scan(text));
        assert_eq!(scan(text).id, json!("req-9"));
    }

    #[test]
    fn unreadable_lines_are_answered_with_their_id() {
        let (id, code, message) = rejected(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"file_info","arguments":{"path":"\ud800"}}}"#,
        );
        assert_eq!((id, code), (json!(7), -32600));
        assert_eq!(
            message,
            "a string holds a lone UTF-16 surrogate (\\ud800), which is not valid Unicode; send \
             the text as UTF-8 (or escape a character outside the Basic Multilingual Plane as a \
             surrogate pair)"
        );
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{{"name":"x","arguments":{{"a":{}1{}}}}}}}"#,
            "[".repeat(125),
            "]".repeat(125)
        );
        let (id, code, message) = rejected(&deep);
        assert_eq!((id, code), (json!("d"), -32600));
        assert_eq!(
            message,
            "the message nests arrays and objects 128 levels deep, over this server's limit of \
             100 (a tool's arguments start at level 3); send flatter arguments"
        );
        let (id, code, message) = rejected(r#"{"jsonrpc":"2.0","id":3,"method":"#);
        assert_eq!((id, code), (json!(3), -32700));
        assert_eq!(
            message,
            "parse error: EOF while parsing a value at line 1 column 33; each line must hold one \
             JSON-RPC message in JSON"
        );
        let mut latin1 = br#"{"jsonrpc":"2.0","id":5,"method":"x"#.to_vec();
        latin1.extend_from_slice(b"\xff\"}");
        match check(&latin1) {
            Checked::Reject(reply) => assert_eq!(
                reply,
                json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32700, "message":
                    "parse error: the line is not valid UTF-8 (at byte 35); JSON text must be UTF-8"}})
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn json_that_is_not_json_rpc_is_answered() {
        assert_eq!(
            rejected("[]"),
            (
                Value::Null,
                -32600,
                "a JSON-RPC message is a JSON object; this line holds an array (batches are not \
                 supported: send one message a line)"
                    .to_string()
            )
        );
        assert_eq!(rejected("{}").2, "\"jsonrpc\" must be \"2.0\", got nothing");
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":1}"#),
            (
                json!(1),
                -32600,
                "a JSON-RPC message needs \"method\" (a request or notification) or \
                 \"result\"/\"error\" (a response); this one has only id, jsonrpc"
                    .to_string()
            )
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#).0,
            json!("a")
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).2,
            "\"id\" must be a string or a number, not null; a message without an answer (a \
             notification) has no \"id\""
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":"y"}}"#),
            (
                json!(2),
                -32602,
                "params of tools/call do not fit the method: arguments: invalid type: string \"y\", \
                 expected a map"
                    .to_string()
            )
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}"#).2,
            "params of tools/call do not fit the method: missing field `name`"
        );
    }

    #[test]
    fn good_messages_pass() {
        let msg = |line: &str| match check(line.as_bytes()) {
            Checked::Message(m) => m,
            other => panic!("{line:?}: {other:?}"),
        };
        assert_eq!(
            msg(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            Message::Request {
                id: json!(1),
                method: "tools/list".into(),
                inline_meta: false
            }
        );
        assert_eq!(
            msg(r#"{"jsonrpc":"2.0","id":"u","method":"no/such/method","params":{}}"#),
            Message::Request {
                id: json!("u"),
                method: "no/such/method".into(),
                inline_meta: false
            }
        );
        assert_eq!(
            msg("\u{feff}{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"),
            Message::Notification {
                method: "notifications/initialized".into()
            }
        );
        assert_eq!(
            msg(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#),
            Message::Response
        );
        assert!(matches!(check(b"  \t"), Checked::Blank));
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","id":"x","error":"not an object"}"#),
            Checked::Ignore(_)
        ));
    }

    #[tokio::test]
    async fn long_lines_are_dropped_as_they_stream_and_counted() {
        let mut input = br#"{"jsonrpc":"2.0","id":11,"params":""#.to_vec();
        input.extend(std::iter::repeat_n(b'x', 100));
        input.extend_from_slice(b"\"}\nnext\r\nlast");
        let mut lines = LineReader::new(BufReader::with_capacity(16, &input[..]), 64);
        match lines.next_line().await.unwrap() {
            Some(Line::TooLong { len, facts }) => {
                assert_eq!(len, 137);
                assert_eq!(facts.id, json!(11));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(lines.next_line().await.unwrap(), Some(Line::Whole(l)) if l == b"next"));
        assert!(matches!(lines.next_line().await.unwrap(), Some(Line::Whole(l)) if l == b"last"));
        assert!(lines.next_line().await.unwrap().is_none());
        assert_eq!(group_digits(20_000_000), "20,000,000");
        assert_eq!(group_digits(999), "999");
    }
}
