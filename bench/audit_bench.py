#!/usr/bin/env python3
"""`sequentialthinking` audits on real code: latency and what the internal judge finds.

What it does, over MCP stdio with the official Python SDK (`pip install mcp`), on a copy
of a real corpus (e.g. `bash bench/corpora.sh /tmp/corp cpython-stdlib`, then
/tmp/corp/cpython-stdlib):
  1. indexes the corpus (constellation_get_graph_summary; the time is printed, not part
     of the audit figures);
  2. times a plain thought (no audit: one SQLite transaction), median of --runs;
  3. times an audit of the workspace scope (tree + the 5 most central files by PageRank,
     judged as one candidate), median of --runs, and prints its review;
  4. audits the --files largest source files one by one (`scope: paths`), printing per
     file: lines, overall, verdict, findings by severity and the most frequent kinds,
     and the median time per file.

How to run (after `cargo build --release`):

    python3 bench/audit_bench.py ROOT [--db FILE] [--runs 5] [--files 10]

Prints the command, the corpus (files, bytes), and the figures. Exit status 0, or 2
when a prerequisite is missing.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import statistics
import sys
import time

from benchlib import constellation_bin, die

try:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError:
    die("the official MCP Python SDK is not installed: run `python3 -m pip install mcp`")

SOURCE_EXT = (".py", ".rs", ".js", ".ts", ".tsx")


def corpus_stats(root: str) -> tuple[int, int, list[tuple[int, str]]]:
    files, size, sources = 0, 0, []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x != "node_modules"]
        for n in names:
            p = os.path.join(d, n)
            try:
                s = os.path.getsize(p)
            except OSError:
                continue
            files += 1
            size += s
            if n.endswith(SOURCE_EXT):
                sources.append((s, os.path.relpath(p, root)))
    sources.sort(reverse=True)
    return files, size, sources


async def call(session, args: dict) -> tuple[dict, float]:
    t = time.perf_counter()
    r = await session.call_tool("sequentialthinking", args)
    dt = time.perf_counter() - t
    sc = getattr(r, "structured_content", None) or getattr(r, "structuredContent", None)
    if getattr(r, "is_error", None) or getattr(r, "isError", None) or not sc:
        raise SystemExit(f"sequentialthinking failed: {r.content[0].text if r.content else r}")
    return sc, dt


def config_thought(cfg: dict) -> str:
    return "Audit.\n```gan-config\n" + json.dumps(cfg) + "\n```\n"


def kind_of(comment: str) -> str:
    """`major safety: ...` -> `major safety: <first words>`."""
    head, _, rest = comment.partition(": ")
    words = rest.split(" ")
    key = " ".join(w for w in words[:4] if not w.startswith("`") or w in ("`todo!()`", "`.unwrap()`", "`.expect()`"))
    return f"{head}: {key}"


async def run(args) -> None:
    exe = constellation_bin()
    cmd = ["serve", args.root] + (["--db", args.db] if args.db else [])
    print(f"$ {exe} {' '.join(cmd)}")
    files, size, sources = corpus_stats(args.root)
    print(f"corpus {args.root}: {files} files, {size / 1e6:.1f} MB, {len(sources)} source files")
    params = StdioServerParameters(command=exe, args=cmd)
    stamp = int(time.time())  # fresh audit sessions on every run of the script
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            t = time.perf_counter()
            await s.call_tool("constellation_get_graph_summary", {})
            print(f"index (first summary): {time.perf_counter() - t:.1f} s")

            plain = []
            for i in range(args.runs):
                _, dt = await call(s, {"thought": f"plain thought {i}", "thoughtNumber": i + 2,
                                       "totalThoughts": 50, "nextThoughtNeeded": True})
                plain.append(dt)
            print(f"plain thought (no audit): median {statistics.median(plain) * 1000:.1f} ms over {args.runs}")

            ws_times, review = [], None
            for i in range(args.runs):
                sc, dt = await call(s, {"thought": config_thought({"scope": "workspace"}),
                                        "thoughtNumber": 10 + i, "totalThoughts": 50,
                                        "nextThoughtNeeded": True, "branchId": f"bench-ws-{stamp}-{i}"})
                ws_times.append(dt)
                review = sc["gan"]
            print(f"workspace-scope audit: median {statistics.median(ws_times) * 1000:.0f} ms over {args.runs}")
            print(f"  {review['review']['summary'][:400]}")
            print(f"  notes: {review['notes']}")

            per_file = []
            totals = collections.Counter()
            print(f"the {args.files} largest source files, one audit each (scope paths):")
            for k, (bytes_, rel) in enumerate(sources[: args.files]):
                sc, dt = await call(s, {"thought": config_thought({"scope": "paths", "paths": [rel]}),
                                        "thoughtNumber": 100 + k, "totalThoughts": 200,
                                        "nextThoughtNeeded": True, "branchId": f"bench-file-{stamp}-{k}"})
                per_file.append(dt)
                g = sc["gan"]
                inline = g["review"]["inline"]
                sev = collections.Counter(c["comment"].split(" ", 1)[0] for c in inline)
                kinds = collections.Counter(kind_of(c["comment"]) for c in inline)
                totals.update(kinds)
                with open(os.path.join(args.root, rel), errors="replace") as f:
                    lines = sum(1 for _ in f)
                print(f"  {rel}: {lines} lines, {g['overall']}/100 {g['verdict']}, "
                      f"{len(inline)} findings ({', '.join(f'{n} {s}' for s, n in sorted(sev.items()))}), "
                      f"{dt * 1000:.0f} ms")
            if per_file:
                print(f"per-file audit: median {statistics.median(per_file) * 1000:.0f} ms over {len(per_file)} files")
                print("most frequent findings:")
                for kind, n in totals.most_common(8):
                    print(f"  {n:>4}  {kind}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--db")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--files", type=int, default=10)
    args = ap.parse_args()
    args.root = os.path.abspath(args.root)
    if args.db:
        args.db = os.path.abspath(args.db)
    if not os.access(constellation_bin(), os.X_OK):
        die("constellation binary not found: run `cargo build --release` or set CONSTELLATION_BIN")
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
