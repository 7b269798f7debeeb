#!/usr/bin/env python3
"""file_info (seed 004) against universal-ctags on every file of a real corpus.

What it measures: for each source file of CORPUS where universal-ctags finds function-like
tags (JavaScript: function, method, generator, getter, setter; Python: function, member;
TypeScript: function, method; Rust: function, method), whether `file_info` over MCP lists
a function or method with the same name on the same line. Prints the recall over all tags,
the files with a miss (with samples), how many files have more than 20 functions and are
complete, and the latency of file_info (median and p95, milliseconds).

    python3 bench/file_info_ctags.py CORPUS [--lang javascript] [--max-files 400] [--db FILE]

CORPUS should be a copy (bench/corpora.sh DEST npm makes one of `$(npm root -g)/npm`):
the server writes its index to --db (default: a temporary file). The binary is
$CONSTELLATION_BIN, else target/release/constellation. Exit status 0, or 2 on a setup error.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import constellation_bin, die

KINDS = {
    "javascript": ("JavaScript", {"function", "method", "generator", "getter", "setter"}),
    "python": ("Python", {"function", "member"}),
    "typescript": ("TypeScript", {"function", "method"}),
    "rust": ("Rust", {"function", "method"}),
}


class Server:
    """`constellation serve` spoken to with JSON-RPC lines."""

    def __init__(self, root: str, db: str):
        self.p = subprocess.Popen(
            [constellation_bin(), "serve", root, "--db", db],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.next = 1
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        i = self.next
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        assert self.p.stdout is not None
        while True:
            line = self.p.stdout.readline()
            if not line:
                die("the server closed its output", 1)
            msg = json.loads(line)
            if msg.get("id") == i:
                return msg

    def call(self, name: str, args: dict) -> dict:
        return self.request("tools/call", {"name": name, "arguments": args})["result"]

    def close(self) -> None:
        self.p.kill()
        self.p.wait()


def ctags(corpus: str, lang: str) -> dict[str, set[tuple[str, int]]]:
    if not shutil.which("ctags"):
        die("ctags not found: apt-get install -y universal-ctags")
    name, kinds = KINDS[lang]
    cmd = ["ctags", "--output-format=json", "--fields=+nKz", "-R", "--exclude=.*", "--exclude=node_modules",
           "--exclude=target", f"--languages={name}", "-f", "-"]
    print(f"$ (cd {corpus} && {' '.join(cmd)})", flush=True)
    out = subprocess.run(cmd, cwd=corpus, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    tags: dict[str, set[tuple[str, int]]] = collections.defaultdict(set)
    for raw in out.splitlines():
        try:
            t = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if t.get("_type") != "tag" or t.get("kind") not in kinds:
            continue
        n = t.get("name", "")
        if n.startswith("AnonymousFunction") or n.startswith("anonFunc"):
            continue
        path = t["path"][2:] if t["path"].startswith("./") else t["path"]
        tags[path].add((n, int(t["line"])))
    return tags


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("--lang", default="javascript", choices=sorted(KINDS))
    ap.add_argument("--max-files", type=int, default=400)
    ap.add_argument("--db")
    a = ap.parse_args()
    corpus = os.path.abspath(a.corpus)
    tags = ctags(corpus, a.lang)
    files = sorted(tags, key=lambda p: (-len(tags[p]), p))[: a.max_files]
    tmp = tempfile.mkdtemp()
    db = a.db or os.path.join(tmp, "index.db")
    print(f"$ {constellation_bin()} serve {corpus} --db {db}  # file_info on {len(files)} files")
    s = Server(corpus, db)
    total = hit = 0
    big = big_complete = 0
    misses: list[tuple[str, list]] = []
    errors: collections.Counter[str] = collections.Counter()
    times = []
    for path in files:
        t0 = time.monotonic()
        r = s.call("file_info", {"path": path})
        times.append((time.monotonic() - t0) * 1000)
        if r.get("isError"):
            errors[r["content"][0]["text"].split(":")[0]] += 1
            continue
        listed = {(f["name"], f["startLine"]) for f in r["structuredContent"]["structure"]["functions"]}
        want = tags[path]
        missing = sorted(want - listed)
        total += len(want)
        hit += len(want) - len(missing)
        if len(want) > 20:
            big += 1
            big_complete += not missing
        if missing:
            misses.append((path, missing))
    s.close()
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"  files compared        {len(files) - sum(errors.values())} ({dict(errors) or 'no errors'})")
    print(f"  ctags functions       {total}")
    print(f"  listed by file_info   {hit}  recall {hit / max(total, 1):.4f}")
    print(f"  files with > 20 functions: {big}, complete: {big_complete}")
    if times:
        times.sort()
        print(f"  file_info latency ms  median {statistics.median(times):.1f}  p95 {times[int(len(times) * 0.95) - 1]:.1f}  (first call indexes)")
    print(f"  files with a miss     {len(misses)}")
    for path, missing in misses[:10]:
        print(f"    {path}: {missing[:5]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
