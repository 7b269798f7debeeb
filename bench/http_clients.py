#!/usr/bin/env python3
"""Many MCP clients on one `constellation serve --http` while the tree keeps changing.

What it measures, on a copy of the Python standard library (or --corpus, copied; the
copy is the bench's own and removed afterwards):
  1. indexes the copy, then starts one `constellation serve COPY --db DB --http
     127.0.0.1:0 --token T` (file watch on);
  2. --clients sessions (default 16) of the official MCP Python SDK over streamable HTTP
     run for --minutes (default 5), each a loop of: reads (`search_symbols` for a name
     drawn from the index, `get_symbol_source` and `get_node_details` of a function,
     `get_status`) and writes (`update_tasks` of the client's own session with one more
     task each time, `save_current_work_info`), --write-share of the calls (default 0.3);
  3. meanwhile an editor appends a function to a random .py file of the copy every
     --edit-every s (default 2), so the watcher re-indexes throughout;
  4. at the end every client reads its session back with `get_all_tasks`: a write that
     was acknowledged and is missing is a lost write.

It prints calls, errors (tool errors and transport failures), read and write latency
p50/p95/p99/max (nearest rank) in ms, lost writes, and `get_status`'s watcher counters.
Exit status: 0 when there was no error and no lost write, 1 otherwise, 2 when a
prerequisite is missing (the `mcp` package: `pip install mcp`).

How to run (after `cargo build --release`):

    python3 bench/http_clients.py [--clients 16] [--minutes 5] [--corpus DIR]

The binary is $CONSTELLATION_BIN, else target/release/constellation.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import shutil
import sqlite3
import subprocess
import sysconfig
import tempfile
import threading
import time

from benchlib import constellation_bin, die, is_error, start_http_server, stop_server, structured, text_of

try:
    from mcp import ClientSession
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
except ImportError:
    die("the official MCP Python SDK (2.x) is not installed: `python3 -m pip install mcp`")


def nearest_rank(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[max(0, min(len(s) - 1, int(round(q * len(s) + 0.5)) - 1))] if s else float("nan")


class Stats:
    def __init__(self) -> None:
        self.reads: list[float] = []
        self.writes: list[float] = []
        self.errors: list[str] = []
        self.acked: dict[str, list[str]] = {}


async def client(k: int, url: str, token: str, deadline: float, names: list[str], functions: list[str],
                 share: float, stats: Stats) -> None:
    rng = random.Random(k)
    session_id = f"http-bench-{k}"
    tasks: list[dict] = []
    stats.acked[session_id] = []
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                while time.monotonic() < deadline:
                    write = rng.random() < share
                    if write and rng.random() < 0.7:
                        tasks.append({"taskId": f"t{len(tasks)}", "description": f"task {len(tasks)} of {k}"})
                        name, args = "update_tasks", {"sessionId": session_id, "tasks": tasks}
                    elif write:
                        name, args = "save_current_work_info", {
                            "work_summarize": f"client {k} at {time.time():.3f}",
                            "work_description": f"bench {k}", "sessionId": session_id}
                    else:
                        pick = rng.random()
                        if pick < 0.4:
                            name, args = "search_symbols", {"query": rng.choice(names), "limit": 5}
                        elif pick < 0.7:
                            name, args = "get_symbol_source", {"symbol": rng.choice(functions), "budget_tokens": 800}
                        elif pick < 0.95:
                            name, args = "get_node_details", {"node_id": rng.choice(functions), "budget_tokens": 800}
                        else:
                            name, args = "get_status", {}
                    t = time.perf_counter()
                    try:
                        r = await session.call_tool(name, args)
                    except Exception as e:  # the transport or the server failed
                        stats.errors.append(f"{name}: {type(e).__name__}: {e}")
                        continue
                    ms = (time.perf_counter() - t) * 1000
                    if is_error(r) and not text_of(r).startswith(("not_found", "invalid_argument")):
                        stats.errors.append(f"{name} {args}: {text_of(r)[:200]}")
                    (stats.writes if write else stats.reads).append(ms)
                    if name == "update_tasks" and not is_error(r):
                        stats.acked[session_id] = [t["taskId"] for t in tasks]
                # Read back what was acknowledged.
                if stats.acked[session_id]:
                    r = await session.call_tool("get_all_tasks", {"sessionId": session_id})
                    have = {t.get("taskId") for t in structured(r).get("tasks", [])}
                    lost = [t for t in stats.acked[session_id] if t not in have]
                    if lost:
                        stats.errors.append(f"{session_id}: {len(lost)} acknowledged tasks missing")


def editor(root: str, every: float, stop: threading.Event, rng: random.Random) -> int:
    py = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".py")]
    n = 0
    while not stop.wait(every):
        with open(rng.choice(py), "a", encoding="utf-8") as f:
            f.write(f"\n\ndef http_bench_edit_{n}():\n    return {n}\n")
        n += 1
    return n


async def main_async(args) -> int:
    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"{binary} not found: run `cargo build --release` or set CONSTELLATION_BIN")
    source = args.corpus or sysconfig.get_paths()["stdlib"]
    work = tempfile.mkdtemp(prefix="constellation-http-")
    proc = None
    stop = threading.Event()
    try:
        root = os.path.join(work, "tree")
        shutil.copytree(source, root, symlinks=True,
                        ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"))
        db = os.path.join(work, "index.db")
        subprocess.run([binary, "index", root, "--db", db, "--quiet"], check=True)
        con = sqlite3.connect(db)
        rng = random.Random(args.seed)
        names = [r[0] for r in con.execute(
            "SELECT name FROM nodes WHERE kind IN ('function','method','class') ORDER BY id")]
        functions = [r[0] for r in con.execute(
            "SELECT key FROM nodes WHERE kind = 'function' ORDER BY id")]
        con.close()
        names = rng.sample(names, min(2000, len(names)))
        functions = rng.sample(functions, min(2000, len(functions)))
        token = secrets.token_hex(16)
        proc, url = start_http_server(binary, root, db, token)
        if url is None:
            die("serve --http printed no address")
        print(f"$ {binary} serve COPY --db DB --http 127.0.0.1:0 --token T   ({url})")
        edits = {}
        ed = threading.Thread(target=lambda: edits.setdefault("n", editor(root, args.edit_every, stop, rng)))
        ed.start()
        stats = Stats()
        deadline = time.monotonic() + args.minutes * 60
        started = time.perf_counter()
        await asyncio.gather(*(client(k, url, token, deadline, names, functions, args.write_share, stats)
                               for k in range(args.clients)), return_exceptions=False)
        wall = time.perf_counter() - started
        stop.set()
        ed.join()
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with http:
            async with streamable_http_client(url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    status = structured(await session.call_tool("get_status", {}))
        watcher = status.get("roots", [{}])[0].get("watcher") or {}
        calls = len(stats.reads) + len(stats.writes)
        print(f"corpus: {source if args.corpus else 'the Python stdlib'}; {args.clients} clients for "
              f"{wall:.0f} s, {edits.get('n', 0)} file edits meanwhile (one every {args.edit_every:g} s)")
        print(f"calls: {calls} ({len(stats.reads)} reads, {len(stats.writes)} writes), {calls / wall:.0f}/s; "
              f"errors: {len(stats.errors)}; lost writes: "
              f"{sum('missing' in e for e in stats.errors)}")
        for label, xs in (("read", stats.reads), ("write", stats.writes)):
            print(f"{label} latency: p50 {nearest_rank(xs, 0.5):.1f} ms, p95 {nearest_rank(xs, 0.95):.1f} ms, "
                  f"p99 {nearest_rank(xs, 0.99):.1f} ms, max {max(xs, default=float('nan')):.1f} ms")
        print(f"watcher: events {watcher.get('events')}, background runs {watcher.get('backgroundRuns')} (walked the tree: {watcher.get('backgroundWalks')}), "
              f"tool calls that walked the tree {watcher.get('callWalks')}, clients now {status.get('clients')}")
        for e in stats.errors[:10]:
            print(f"  error: {e}")
        return 0 if not stats.errors else 1
    finally:
        stop.set()
        stop_server(proc)
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", help="directory to copy and serve (default: the Python stdlib)")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--write-share", type=float, default=0.3)
    ap.add_argument("--edit-every", type=float, default=2.0, help="seconds between file edits")
    ap.add_argument("--seed", type=int, default=19)
    return asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
