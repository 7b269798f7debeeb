"""Fuzzes `constellation serve` over stdio: every request must get an answer.

    python3 bench/fuzz_stdio.py WORKSPACE [-n 10000] [--timeout 60] [--seed 1] [--db DB]

Starts one server on WORKSPACE (index it first: `constellation index WORKSPACE`), checks
that messages sent before `initialize` (a notification, a response, ping, a request)
neither end it nor go unanswered where an answer is owed, then sends N lines one at a
time and waits for each answer (per-request timeout):
- tools/call of every listed tool with arguments generated from its inputSchema, a mix
  of fitting values and garbage (wrong types, huge numbers, unicode, nulls, deep
  nesting, long strings, unknown fields), and unknown tool names;
- the lines rmcp used to drop: a lone UTF-16 surrogate, nesting past serde_json's
  limit, a line over 16 MiB, text that is not JSON (cut, invalid UTF-8);
- JSON that is not JSON-RPC (`[]`, `{}`, `{"id":1}`, a wrong `jsonrpc`), other methods
  (ping, tools/list, an unknown method, tools/call with bad params);
- notifications and stray responses in between (owed no answer; not counted).
A server that exits is restarted (and counted). Prints requests sent, answered,
unanswered, crashes/restarts, p50/p99 latency and the answers by kind; exits 1 when a
request went unanswered or the server crashed. Also counts the `invalid_argument` tool
errors whose message does not start with the field at fault. python3 standard library
only.

Arguments never switch or widen the workspace (no `forceRefresh: true`, no other
existing directory as a root) so the run measures the front door and argument checks,
not re-indexing.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
from collections import Counter

from benchlib import constellation_bin, die


class Server:
    """`constellation serve ROOT` over stdio in bytes; a thread reads stdout lines."""

    def __init__(self, binary: str, root: str, db: str | None):
        cmd = [binary, "serve", root, "--quiet"] + (["--db", db] if db else [])
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.lines: queue.Queue = queue.Queue()
        self.stash: dict = {}
        self.bad_output: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, line: bytes) -> bool:
        """Writes one line; False when the server's stdin is closed."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line + b"\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def wait_for(self, rid, timeout: float):
        """The answer whose id is `rid` (None for a null id), or None after `timeout`."""
        key = json.dumps(rid)
        if key in self.stash and self.stash[key]:
            return self.stash[key].pop(0)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                self.lines.put(None)
                return None
            try:
                msg = json.loads(line)
            except ValueError:
                self.bad_output.append(line[:200])
                continue
            if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
                self.bad_output.append(line[:200])
                continue
            if "method" in msg:
                continue  # a server notification or request: not an answer
            got = json.dumps(msg.get("id"))
            if got == key:
                return msg
            self.stash.setdefault(got, []).append(msg)

    def leftovers(self) -> int:
        """Answers that matched no request."""
        return sum(len(v) for v in self.stash.values())

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def line_of(msg) -> bytes:
    return json.dumps(msg, ensure_ascii=False).encode("utf-8", "surrogatepass")


INIT = {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "fuzz_stdio", "version": "1"}}


def preinit_checks(server: Server, timeout: float) -> list[str]:
    """The (d) cases: before initialize, a notification and responses are dropped, ping
    and a request are answered, the server keeps running; then the handshake."""
    problems = []
    server.send(line_of({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    server.send(line_of({"jsonrpc": "2.0", "id": "stray", "result": {}}))
    server.send(line_of({"jsonrpc": "2.0", "id": "stray2", "error": {"code": 1, "message": "x"}}))
    server.send(line_of({"jsonrpc": "2.0", "id": "pre-ping", "method": "ping"}))
    server.send(line_of({"jsonrpc": "2.0", "id": "pre-list", "method": "tools/list"}))
    ping = server.wait_for("pre-ping", timeout)
    if not ping or ping.get("result") != {}:
        problems.append(f"ping before initialize: {ping}")
    early = server.wait_for("pre-list", timeout)
    if not early or "error" not in early:
        problems.append(f"tools/list before initialize: {early}")
    if not server.alive():
        problems.append("the server exited before initialize")
        return problems
    server.send(line_of({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": INIT}))
    if not server.wait_for("init", timeout):
        problems.append("no answer to initialize")
    server.send(line_of({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    return problems


# Values ---------------------------------------------------------------------------

WORDS = ["main", "parse", "json", "Thread", "os.path", "__init__", "ÿ", "日本語", "🙂",
         "a\u0000b", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "\u202e", "%s%n", "'; DROP TABLE x; --", "Ω≈ç√", "\\", "\"",
         "*", "**/*.py", "[", "{", "null", "true", "-1", "1e999", ""]


def text(rng: random.Random, max_len: int = 40) -> str:
    """Random text: words, unicode, control characters (never a code fence: a thought
    with one starts an audit)."""
    parts = []
    for _ in range(rng.randint(0, 6)):
        r = rng.random()
        if r < 0.5:
            parts.append(rng.choice(WORDS))
        elif r < 0.8:
            parts.append("".join(chr(rng.randint(0x20, 0x7e)) for _ in range(rng.randint(1, 12))))
        else:
            parts.append("".join(chr(rng.choice([rng.randint(0xa0, 0xd7ff), rng.randint(0xe000, 0x10ffff)]))
                                 for _ in range(rng.randint(1, 6))))
    return "".join(parts).replace("`", "'")[: max_len * 4]


def number(rng: random.Random):
    return rng.choice([0, 1, -1, 2, 3, 10, 100, 999, 1000, 1001, 4000, 20000, 20001,
                       2**31, 2**32, 2**53 + 1, 2**63, 2**64, -(2**63), 10**30,
                       1.5, -0.0, 1e308, -1e-9, rng.randint(-1000, 100000)])


def deep(depth: int):
    v = 0
    for i in range(depth):
        v = [v] if i % 2 else {"k": v}
    return v


def garbage(rng: random.Random):
    """A value of a random, usually wrong, type."""
    return rng.choice([
        lambda: None, lambda: True, lambda: False, lambda: number(rng), lambda: text(rng),
        lambda: [], lambda: {}, lambda: [text(rng), number(rng), None],
        lambda: {"a": {"b": [1, {"c": None}]}}, lambda: deep(rng.randint(5, 90)),
        lambda: "x" * rng.choice([1000, 100_000, 1_000_000]),
        lambda: [number(rng) for _ in range(rng.randint(0, 50))],
    ])()


class ArgMaker:
    """Arguments for a tool from its inputSchema: fitting values or garbage."""

    def __init__(self, rng: random.Random, root: str, files: list[str], dirs: list[str]):
        self.rng = rng
        self.root = root
        self.files = files
        self.dirs = dirs

    def path(self) -> str:
        rng = self.rng
        return rng.choice([
            rng.choice(self.files) if self.files else "x.py",
            rng.choice(self.dirs) if self.dirs else ".",
            ".", "", "no/such/file.py", "../../etc/passwd", "/etc/passwd",
            "/nonexistent/x.py", "a\u0000b", text(rng), "json/__init__.py:12", "x" * 5000,
        ])

    def root_arg(self) -> str:
        # Never another existing directory: that would open (and index) a new workspace.
        return self.rng.choice([".", self.root, "/nonexistent/root", "no-such-dir-ÿ", ""])

    def value(self, name: str, schema: dict):
        rng = self.rng
        if rng.random() < 0.35:
            v = garbage(rng)
            return False if name == "forceRefresh" and v is True else v
        if name in ("workspaceRoot",):
            return self.root_arg()
        if name == "forceRefresh":
            return False
        if name in ("path", "file", "folder", "relPath", "filePath") or name.endswith("Path"):
            return self.path()
        if name == "sql":
            return rng.choice([
                "SELECT count(*) FROM files", "SELECT path FROM files LIMIT 3",
                "SELECT * FROM nodes LIMIT 2", "select", "DROP TABLE files", "PRAGMA foo=1",
                "SELECT 1; SELECT 2", text(rng), "SELECT randomblob(10) FROM files LIMIT 5",
            ])
        if "enum" in schema and schema["enum"] and rng.random() < 0.8:
            return rng.choice(schema["enum"])
        types = schema.get("type")
        if isinstance(types, list):
            types = rng.choice(types)
        if types is None and "anyOf" in schema:
            return self.value(name, rng.choice(schema["anyOf"]))
        if types == "integer":
            return number(rng) if rng.random() < 0.5 else rng.randint(0, 50)
        if types == "number":
            return rng.choice([0.0, 0.5, 0.97, 1.0, -1.0, 2.0, 1e300])
        if types == "boolean":
            return rng.random() < 0.5
        if types == "string":
            return text(rng)
        if types == "array":
            items = schema.get("items", {})
            return [self.value(name, items) for _ in range(rng.randint(0, 4))]
        if types == "object":
            props = schema.get("properties", {})
            return {k: self.value(k, s) for k, s in props.items() if rng.random() < 0.7}
        if types == "null":
            return None
        return garbage(rng)

    def arguments(self, schema: dict):
        rng = self.rng
        props = schema.get("properties", {}) or {}
        required = set(schema.get("required", []) or [])
        args = {}
        for k, s in props.items():
            if rng.random() < (0.9 if k in required else 0.4):
                args[k] = self.value(k, s if isinstance(s, dict) else {})
        if rng.random() < 0.1:
            args[text(rng, 10) or "bogus"] = garbage(rng)
        if rng.random() < 0.03:
            return rng.choice([None, [], "args", 5])  # not an object
        return args


# Lines ----------------------------------------------------------------------------

def make_line(rng: random.Random, rid: int, tools: list[dict], args: ArgMaker):
    """(kind, line bytes, the id its answer carries, whether an answer is owed)."""
    r = rng.random()
    call = lambda name, arguments: {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                    "params": {"name": name, "arguments": arguments}}
    if r < 0.70:
        tool = rng.choice(tools)
        return "tools/call", line_of(call(tool["name"], args.arguments(tool.get("inputSchema", {})))), rid, True
    if r < 0.74:
        name = rng.choice(["", "nope", "get_statu", "x" * 300, text(rng), "tools/call"])
        return "unknown tool", line_of(call(name, {})), rid, True
    if r < 0.78:
        tool = rng.choice(tools)
        body = line_of(call(tool["name"], {"path": "SURROGATE", "query": "q"}))
        lone = rng.choice([b"\\ud800", b"\\udfff", b"a\\ud83d", b"\\udc00\\ud800"])
        return "lone surrogate", body.replace(b"SURROGATE", lone), rid, True
    if r < 0.82:
        depth = rng.randint(101, 3000)
        tool = rng.choice(tools)
        body = line_of(call(tool["name"], {"a": "DEEP"}))
        return "too deep", body.replace(b'"DEEP"', b"[" * depth + b"]" * depth), rid, True
    if r < 0.822:
        size = rng.randint(16 * 1024 * 1024 + 1, 20_000_000)
        head = line_of(call("file_info", {"path": ""}))[:-4]
        return "too long", head + b"x" * (size - len(head) - 4) + b'"}}}', rid, True
    if r < 0.87:
        body = line_of(call("get_status", {}))
        after_id = body.index(b'"id": ') + len(b'"id": ') + len(str(rid)) + 1
        cut = body[: rng.randint(after_id, len(body) - 1)]
        # `{` + a message hides its id a level down: the answer's id is null.
        line, answer_id = rng.choice([(cut, rid), (body.replace(b"get_status", b"get_\xff\xfe"), rid),
                                      (body + b"}", rid), (b"{" + body, None)])
        return "not JSON", line, answer_id, True
    if r < 0.91:
        kind = rng.randrange(5)
        if kind == 0:
            return "not JSON-RPC", b"[]", None, True
        if kind == 1:
            return "not JSON-RPC", b"{}", None, True
        if kind == 2:
            return "not JSON-RPC", line_of({"id": rid}), rid, True
        if kind == 3:
            return "not JSON-RPC", line_of({"jsonrpc": "1.0", "id": rid, "method": "ping"}), rid, True
        return "not JSON-RPC", line_of([{"jsonrpc": "2.0", "id": rid, "method": "ping"}]), None, True
    if r < 0.95:
        msg = rng.choice([
            {"jsonrpc": "2.0", "id": rid, "method": "ping"},
            {"jsonrpc": "2.0", "id": rid, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": rid, "method": "no/such/method", "params": garbage(rng)},
            {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": garbage(rng)},
            {"jsonrpc": "2.0", "id": str(rid), "method": "ping"},
            {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": INIT},
        ])
        return "other method", line_of(msg), msg["id"], True
    msg = rng.choice([
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}},
        {"jsonrpc": "2.0", "method": "notifications/whatever", "params": garbage(rng)},
        {"jsonrpc": "2.0", "id": f"stray-{rid}", "result": {}},
        {"jsonrpc": "2.0", "id": f"stray-{rid}", "error": {"code": -1, "message": "no"}},
    ])
    return "noise", line_of(msg), None, False


def names_a_field(message: str, tools_by_name: dict, line: bytes) -> bool:
    """Whether an invalid_argument message starts with a field: a property of the tool's
    schema or of the call's arguments (`tasks[0].status`, `budget_tokens`), or is serde's
    `missing field`/`unknown field`, which name it."""
    if message.startswith(("missing field `", "unknown field `")) or ": unknown field `" in message:
        return True
    head = message.split(":", 1)[0].split(" ", 1)[0]
    first = head.split("[", 1)[0].split(".", 1)[0]
    try:
        params = json.loads(line.decode("utf-8", "replace"))["params"]
        schema = tools_by_name.get(params["name"], {}).get("inputSchema", {})
        names = set(schema.get("properties", {}) or {})
        if isinstance(params.get("arguments"), dict):
            names |= set(params["arguments"])
    except (ValueError, KeyError, TypeError):
        return False
    return first in names


def percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(p / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def corpus_facts(root: str) -> tuple[list[str], list[str], int]:
    files, dirs, size = [], [], 0
    for d, subdirs, names in os.walk(root):
        subdirs[:] = [s for s in subdirs if not s.startswith(".")]
        rel = os.path.relpath(d, root)
        if rel != ".":
            dirs.append(rel)
        for n in names:
            p = os.path.join(d, n)
            files.append(os.path.relpath(p, root))
            try:
                size += os.path.getsize(p)
            except OSError:
                pass
    return files, dirs, size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workspace", help="a copy of a tree (tools write .artifacts and memory there)")
    ap.add_argument("-n", type=int, default=10000, help="lines to send (default 10000)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each answer")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--db", help="the index database (default: the workspace's)")
    args = ap.parse_args()
    root = os.path.abspath(args.workspace)
    if not os.path.isdir(root):
        die(f"{root} is not a directory")
    binary = constellation_bin()
    rng = random.Random(args.seed)
    files, dirs, size = corpus_facts(root)
    server = Server(binary, root, args.db)
    print(f"command: {' '.join(server.cmd)}")
    print(f"corpus: {root}, {len(files)} files, {size:,} bytes; seed {args.seed}")

    problems = preinit_checks(server, args.timeout)
    server.send(line_of({"jsonrpc": "2.0", "id": "list", "method": "tools/list", "params": {}}))
    listed = server.wait_for("list", args.timeout)
    if not listed:
        die("no answer to tools/list")
    tools = listed["result"]["tools"]
    maker = ArgMaker(rng, root, files, dirs)

    sent = answered = crashes = 0
    unanswered: list[str] = []
    latencies: list[float] = []
    kinds: Counter = Counter()
    outcomes: Counter = Counter()
    slowest: list[tuple[float, str]] = []
    tools_by_name = {t["name"]: t for t in tools}
    invalid_args = 0
    unnamed: list[str] = []
    started = time.monotonic()
    for i in range(args.n):
        rid = 1000 + i
        kind, line, answer_id, owed = make_line(rng, rid, tools, maker)
        kinds[kind] += 1
        t0 = time.monotonic()
        ok = server.send(line)
        if not owed:
            continue
        sent += 1
        reply = server.wait_for(answer_id, args.timeout) if ok else None
        took = time.monotonic() - t0
        if reply is None:
            unanswered.append(f"{kind}: {line[:160]!r}")
        else:
            answered += 1
            latencies.append(took)
            slowest.append((took, f"{kind}: {line[:120]!r}"))
            slowest = sorted(slowest, reverse=True)[:3]
            if "error" in reply:
                outcomes[f"JSON-RPC error {reply['error'].get('code')}"] += 1
            elif isinstance(reply.get("result"), dict) and reply["result"].get("isError"):
                outcomes["tool error (isError)"] += 1
                text_ = (reply["result"].get("content") or [{}])[0].get("text", "")
                if text_.startswith("invalid_argument: "):
                    invalid_args += 1
                    if not names_a_field(text_[len("invalid_argument: "):], tools_by_name, line):
                        unnamed.append(text_[:160])
            else:
                outcomes["result"] += 1
        if not server.alive():
            crashes += 1
            print(f"server exited (status {server.proc.returncode}) after {kind}: {line[:160]!r}")
            server = Server(binary, root, args.db)
            problems += preinit_checks(server, args.timeout)
        if (i + 1) % 1000 == 0:
            print(f"  {i + 1} lines, {time.monotonic() - started:.0f} s", flush=True)

    elapsed = time.monotonic() - started
    leftovers = server.leftovers()
    bad_output = len(server.bad_output)
    server.close()
    latencies.sort()
    print(f"lines sent: {args.n} in {elapsed:.1f} s ({sum(kinds.values()) - sent} owed no answer)")
    print(f"requests sent: {sent}")
    print(f"answered: {answered}")
    print(f"unanswered: {len(unanswered)}")
    print(f"server crashes/restarts: {crashes}")
    print(f"latency p50: {percentile(latencies, 50) * 1000:.1f} ms, "
          f"p99: {percentile(latencies, 99) * 1000:.1f} ms, "
          f"max: {(latencies[-1] if latencies else 0) * 1000:.1f} ms")
    print("lines by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print("answers: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"answers matching no request: {leftovers}; non-JSON-RPC stdout lines: {bad_output}")
    print(f"invalid_argument errors: {invalid_args}, not starting with a field name: {len(unnamed)}")
    for u in Counter(unnamed).most_common(5):
        print(f"  unnamed x{u[1]}: {u[0]}")
    for took, what in slowest:
        print(f"  slow: {took * 1000:.0f} ms {what}")
    for u in unanswered[:10]:
        print(f"  unanswered: {u}")
    for p in problems:
        print(f"FAIL: {p}")
    failed = unanswered or crashes or problems or bad_output
    print("all requests answered, no crash" if not failed else "FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
