#!/usr/bin/env python3
"""How soon an edit shows in the answers of a long-lived `constellation serve`.

What it measures, on a copy of the Python standard library (or --corpus, copied too;
the copy is the bench's own and removed afterwards):
  1. indexes the copy (`constellation index COPY --db DB`), then starts one
     `constellation serve COPY --db DB` (file watch on, the default; `--no-watch` with
     --no-watch) and waits for its first answer;
  2. --edits times (default 50, seeded): appends a new function `cst_probe_K` to a
     randomly chosen .py file of the copy, then calls `search_symbols` for that name
     every --poll ms (default 10) until a hit has that name; the latency is from the
     write to the answer that has it. Between edits it waits --gap ms (default 300) so
     each edit is its own burst;
  3. prints the latency p50/p95/max (nearest rank) in ms, with how many edits were
     seen at all within --timeout s, and the watcher counters of `get_status` (events,
     background runs, and tool calls that had to walk the tree: 0 under a healthy watch).

With the watch, the answer of a call right after the write may come from the index
before the edit (the event is not yet counted); the poll then sees the edit once the
background run (50 ms after the last event) has indexed it: a call that finds the
event pending waits for that run.

How to run (after `cargo build --release`):

    python3 bench/freshness.py [--corpus DIR] [--edits 50] [--no-watch]
                               [--language python|c] [--no-ignore]

The binary is $CONSTELLATION_BIN, else target/release/constellation. Exit status 0, or
2 when a prerequisite is missing.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sysconfig
import tempfile
import time

from benchlib import McpServer, constellation_bin, die


def copy_tree(src: str, dst: str) -> None:
    shutil.copytree(
        src,
        dst,
        symlinks=True,
        ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"),
    )


def nearest_rank(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[max(0, min(len(s) - 1, int(round(q * len(s) + 0.5)) - 1))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", help="directory to copy and serve (default: the Python stdlib)")
    ap.add_argument("--edits", type=int, default=50)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--poll", type=float, default=10.0, help="ms between polls")
    ap.add_argument("--gap", type=float, default=300.0, help="ms between edits")
    ap.add_argument("--timeout", type=float, default=10.0, help="s to wait for one edit")
    ap.add_argument("--no-watch", action="store_true", help="serve with --no-watch")
    ap.add_argument("--language", choices=["python", "c"], default="python",
                    help="edit .py files (a new def) or .c files (a new C function)")
    ap.add_argument("--no-ignore", action="store_true",
                    help="index and serve with --no-ignore (a tree whose .gitignore hides it, "
                         "like Debian's kernel source)")
    args = ap.parse_args()

    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"{binary} not found: run `cargo build --release` or set CONSTELLATION_BIN")
    source = args.corpus or sysconfig.get_paths()["stdlib"]
    work = tempfile.mkdtemp(prefix="constellation-freshness-")
    try:
        root = os.path.join(work, "tree")
        copy_tree(source, root)
        db = os.path.join(work, "index.db")
        ignore = ["--no-ignore"] if args.no_ignore else []
        cmd = [binary, "index", root, "--db", db, "--quiet", *ignore]
        print("$ " + " ".join(cmd).replace(root, "COPY").replace(db, "DB"))
        subprocess.run(cmd, check=True)
        ext = ".py" if args.language == "python" else ".c"
        py = sorted(
            os.path.join(d, f)
            for d, _, fs in os.walk(root)
            for f in fs
            if f.endswith(ext) and "test" not in os.path.relpath(d, root)
        )
        if not py:
            die(f"no {ext} files in the corpus")
        extra = (["--no-watch"] if args.no_watch else []) + ignore
        server = McpServer(binary, root, db, "freshness_bench", extra_args=extra)
        print(f"$ {binary} serve COPY --db DB {' '.join(extra)}".rstrip())
        server.call("search_symbols", {"query": "warm"})
        time.sleep(1.0)
        rng = random.Random(args.seed)
        latencies: list[float] = []
        missed = 0
        calls = 0
        for k in range(args.edits):
            name = f"cst_probe_{k}"
            path = rng.choice(py)
            with open(path, "a", encoding="utf-8") as f:
                if args.language == "python":
                    f.write(f"\n\ndef {name}():\n    return {k}\n")
                else:
                    f.write(f"\nint {name}(void)\n{{\n\treturn {k};\n}}\n")
            written = time.perf_counter()
            seen = None
            while time.perf_counter() - written < args.timeout:
                calls += 1
                result = server.call("search_symbols", {"query": name, "limit": 1})
                hits = [] if result.get("isError") else result["structuredContent"]["hits"]
                if hits and hits[0]["name"] == name:
                    seen = (time.perf_counter() - written) * 1000
                    break
                time.sleep(args.poll / 1000)
            if seen is None:
                missed += 1
            else:
                latencies.append(seen)
            time.sleep(args.gap / 1000)
        status = server.call("get_status", {})
        watcher = (status.get("structuredContent") or {}).get("roots", [{}])[0].get("watcher") or {}
        server.close()
        mode = "without a watch (--no-watch)" if args.no_watch else "with the file watch"
        print(f"corpus: {source if args.corpus else 'the Python stdlib'} ({len(py)} {ext} files edited at random), {mode}")
        print(f"edits: {args.edits}, seen within {args.timeout:.0f} s: {len(latencies)}, missed: {missed}; search calls: {calls}")
        if latencies:
            print(
                f"edit -> answer latency: p50 {nearest_rank(latencies, 0.5):.0f} ms, "
                f"p95 {nearest_rank(latencies, 0.95):.0f} ms, max {max(latencies):.0f} ms (target p95 <= 300 ms)"
            )
        print(
            "get_status watcher: "
            f"events {watcher.get('events')}, background runs {watcher.get('backgroundRuns')} (walked the tree: {watcher.get('backgroundWalks')}), "
            f"tool calls that walked the tree {watcher.get('callWalks')} (target 0), degraded {watcher.get('degraded')}"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
