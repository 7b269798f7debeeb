"""Helpers shared by the scripts in bench/ (each script is run as `python3 bench/NAME.py`,
so this folder is on sys.path)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import urllib.parse
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg: str, code: int = 2) -> None:
    """Prints `error: msg` on stderr and exits with `code` (2: a setup error)."""
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(code)


def report(problems: list[str]) -> int:
    """Prints each problem as `FAIL: ...` and a last line; the exit status of a check
    script: 0 when there is none, 1 otherwise."""
    for p in problems:
        print(f"FAIL: {p}")
    print("all checks passed" if not problems else f"{len(problems)} check(s) failed")
    return 1 if problems else 0


def constellation_bin() -> str:
    """The binary under test: $CONSTELLATION_BIN, else target/release/constellation of
    the working directory, else of this repository (absolute)."""
    env = os.environ.get("CONSTELLATION_BIN")
    if env:
        return env
    rel = os.path.join("target", "release", "constellation")
    return os.path.abspath(rel) if os.path.exists(rel) else os.path.join(REPO, rel)


class McpServer:
    """`constellation serve ROOT --db DB` spoken to with JSON-RPC lines over stdio:
    initialized on start; `call` answers a tool's `result`, `close` ends it."""

    def __init__(self, binary: str, root: str, db: str, client: str, extra_args: list[str] | None = None):
        self.proc = subprocess.Popen(
            [binary, "serve", root, "--db", db, "--quiet", *(extra_args or [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.next_id = 1
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": client, "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                die(f"the server exited during {method}")
            msg = json.loads(line)
            if msg.get("id") == rid:
                return msg

    def call(self, name: str, args: dict) -> dict:
        return self.request("tools/call", {"name": name, "arguments": args})["result"]

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def structured(result) -> dict:
    """The structured content of an MCP SDK tool result (either spelling), or {}."""
    return getattr(result, "structured_content", None) or getattr(result, "structuredContent", None) or {}


def is_error(result) -> bool:
    """Whether an MCP SDK tool result is a tool error."""
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


def text_of(result) -> str:
    """The text blocks of an MCP SDK tool result, joined by newlines."""
    return "\n".join(getattr(c, "text", "") for c in (getattr(result, "content", None) or []))


def stop_server(proc: subprocess.Popen | None) -> None:
    """Ends a server started by a bench: SIGTERM, then SIGKILL after 10 s."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def start_http_server(binary: str, root: str, db: str | None, token: str,
                      extra: list[str] | None = None):
    """Starts `serve ROOT [--db DB] --http 127.0.0.1:0 --token TOKEN [EXTRA...]` (EXTRA:
    walk options such as --no-ignore) and reads the URL
    of its endpoint from the start-up line on stderr (the rest of stderr is drained on a
    daemon thread, so the server never blocks on a full pipe). Returns (process, url);
    url is None when the server ended without printing one."""
    import threading

    cmd = [binary, "serve", root, "--http", "127.0.0.1:0", "--token", token]
    cmd += ["--db", db] if db else []
    cmd += extra or []
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    url = None
    for line in proc.stderr:
        if "serving MCP at " in line:
            url = line.split("serving MCP at ", 1)[1].split()[0]
            break
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    return proc, url


def fetch_sdist(index: str, package: str, version: str, dest: str) -> str:
    """Downloads the sdist of package==version (checked against its sha256) into dest."""
    meta_url = f"{index}/pypi/{package}/json"
    with urllib.request.urlopen(meta_url, timeout=60) as r:
        meta = json.load(r)
    files = [f for f in meta.get("releases", {}).get(version, []) if f["packagetype"] == "sdist"]
    if not files:
        die(f"{package} {version} has no sdist on {index}")
    url = urllib.parse.urljoin(meta_url, files[0]["url"])
    print(f"$ GET {url}")
    with urllib.request.urlopen(url, timeout=300) as r:
        data = r.read()
    if hashlib.sha256(data).hexdigest() != files[0]["digests"]["sha256"]:
        die(f"{url}: sha256 differs from the one PyPI lists")
    path = os.path.join(dest, files[0]["filename"])
    with open(path, "wb") as f:
        f.write(data)
    return path


def unpack(sdist: str, dest: str) -> None:
    """Extracts the contents of an sdist's single top directory into dest."""
    scratch = dest + ".x"
    with tarfile.open(sdist) as t:
        top = t.getnames()[0].split("/")[0]
        t.extractall(scratch, filter="data")
    src = os.path.join(scratch, top)
    for name in os.listdir(src):
        shutil.move(os.path.join(src, name), os.path.join(dest, name))
    shutil.rmtree(scratch)


GIT = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com", "-c", "commit.gpgsign=false"]


def export_json(binary: str, root: str, db: str) -> bytes:
    """`constellation export ROOT --db DB --format json`: the index's rows by relative
    path and node key, byte-identical for identical trees."""
    return subprocess.run([binary, "export", root, "--db", db, "--format", "json"],
                          check=True, capture_output=True).stdout


def git(repo: str, *args: str) -> str:
    """Runs `git -C repo ARGS` with a throwaway identity; stdout, or exit 2 with git's error."""
    r = subprocess.run([*GIT, "-C", repo, *args], capture_output=True, text=True)
    if r.returncode != 0:
        die(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def commit_releases(repo: str, index: str, package: str, versions: list[str], work: str) -> list[str]:
    """Commits the sdists of package's versions, in order, as consecutive commits of the
    new git repository `repo` (each commit holds that release's files only; the sdists
    are downloaded into `work` and removed). Returns the commit ids."""
    os.makedirs(repo, exist_ok=True)
    git(repo, "init", "-q")
    commits = []
    for version in versions:
        sdist = fetch_sdist(index.rstrip("/"), package, version, work)
        for name in os.listdir(repo):
            if name != ".git":
                p = os.path.join(repo, name)
                shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
        unpack(sdist, repo)
        os.remove(sdist)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"{package} {version}")
        commits.append(git(repo, "rev-parse", "HEAD").strip())
    return commits
