#!/usr/bin/env python3
"""Warm latency of summarize_graph and list_top_nodes over MCP, and budget adherence.

What it measures, against `constellation serve CORPUS --db DB` driven by the official
Python MCP SDK (`pip install mcp`):
  1. cold      the first summarize_graph call after the index is up to date: loads the
               symbol-graph snapshot from SQLite, computes PageRank and communities.
  2. warm      --runs more summarize_graph calls with default arguments (median, min, max
               milliseconds, client round trip included).
  3. top pr    --runs list_top_nodes {metric: pr} calls (median ms).
  4. budgets   summarize_graph with budget_tokens 500, 1000, 3000, 8000: the `tokens` the
               server counted with cl100k_base must be <= the budget; prints the steps.

How to run (after `cargo build --release`; CORPUS a copy, e.g. from bench/corpora.sh):

    python3 bench/summarize_bench.py CORPUS [--db FILE] [--runs 15] [--no-ignore]
        [--hub KEY_OR_PATH] [--path FROM TO]

The database is indexed first (`constellation index CORPUS --db FILE`) so the server
starts on a fresh index. `--no-ignore` is passed to both commands (a tree whose ignore
files hide everything, such as the Linux kernel's release tarball). `--hub` adds
`get_node_details` of that node and `--path` adds `get_paths` between two nodes, cold
(their first call) and warm. The binary is $CONSTELLATION_BIN, else target/release/constellation.
Exit status 0 when every budget held, 1 otherwise, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import constellation_bin, die



def binary() -> str:
    b = constellation_bin()
    if not os.path.exists(b):
        die(f"no binary at {b}: run cargo build --release (or set CONSTELLATION_BIN)")
    return b


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("--db")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--no-ignore", action="store_true", help="index and serve with --no-ignore")
    ap.add_argument("--hub", help="a node for get_node_details")
    ap.add_argument("--path", nargs=2, metavar=("FROM", "TO"), help="two nodes for get_paths")
    a = ap.parse_args()
    try:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
    except ImportError:
        print("the official MCP SDK is missing: pip install mcp", file=sys.stderr)
        return 2
    b = binary()
    db = a.db or os.path.join(tempfile.mkdtemp(prefix="constellation-bench-"), "index.db")
    t0 = time.monotonic()
    extra = ["--no-ignore"] if a.no_ignore else []
    subprocess.run(
        [b, "index", a.corpus, "--db", db, "-q", *extra], check=True, stdout=subprocess.DEVNULL
    )
    print(f"index {a.corpus} -> {db}: {time.monotonic() - t0:.1f} s")
    params = StdioServerParameters(command=b, args=["serve", a.corpus, "--db", db, *extra])
    ok = True
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(name: str, args: dict) -> tuple[float, dict]:
                t = time.perf_counter()
                r = await session.call_tool(name, args)
                ms = (time.perf_counter() - t) * 1000
                if r.isError if hasattr(r, "isError") else r.is_error:
                    raise SystemExit(f"{name} {args}: {r.content[0].text}")
                sc = getattr(r, "structured_content", None) or getattr(r, "structuredContent", None)
                return ms, sc

            # The background index check at start-up holds the index lock; wait for it.
            await call("constellation_get_graph_summary", {})
            cold, first = await call("summarize_graph", {})
            stats = first["graph_stats"]
            print(f"graph: {stats['node_count']} nodes, {stats['edge_count']} edges")
            warm = [(await call("summarize_graph", {}))[0] for _ in range(a.runs)]
            top = [(await call("list_top_nodes", {"metric": "pr", "k": 20}))[0] for _ in range(a.runs)]
            print(f"{'step':<28}{'median ms':>10}{'min':>9}{'max':>9}")
            print(f"{'summarize_graph cold':<28}{cold:>10.1f}")
            print(f"{'summarize_graph warm':<28}{statistics.median(warm):>10.1f}{min(warm):>9.1f}{max(warm):>9.1f}")
            print(f"{'list_top_nodes pr warm':<28}{statistics.median(top):>10.1f}{min(top):>9.1f}{max(top):>9.1f}")
            drills = []
            if a.hub:
                drills.append(("get_node_details", {"node_id": a.hub}))
            if a.path:
                drills.append(("get_paths", {"src": a.path[0], "dst": a.path[1]}))
            for name, args in drills:
                first = (await call(name, args))[0]
                again = [(await call(name, args))[0] for _ in range(a.runs)]
                print(f"{name + ' first':<28}{first:>10.1f}")
                print(f"{name + ' warm':<28}{statistics.median(again):>10.1f}{min(again):>9.1f}{max(again):>9.1f}")
            for budget in (500, 1000, 3000, 8000):
                ms, r = await call("summarize_graph", {"budget_tokens": budget})
                held = r["tokens"] <= budget
                ok &= held
                steps = (r.get("truncation") or {}).get("steps", [])
                print(
                    f"budget {budget:>5}: tokens {r['tokens']:>5} {'ok' if held else 'OVER'}; "
                    f"top_nodes {len(r['top_nodes'])}, communities {len(r.get('communities') or [])}, "
                    f"paths {len(r.get('path_examples') or [])}; {ms:.0f} ms; steps: {', '.join(steps) or 'none'}"
                )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
