#!/usr/bin/env python3
"""Latency of agent-memory writes (`update_tasks`) while a full index run is going on.

What it measures: an index run is one write transaction over the index database for
the whole run. Agent memory (tasks, work hand-offs, thoughts, file documents) lives in
its own database beside the index, so a task write should not wait for that run. For
each binary under test, on a copy of the Python standard library:
  1. copies the stdlib (`sysconfig.get_paths()["stdlib"]`, without site-packages,
     __pycache__ and *.pyc) to a temp dir, once;
  2. builds an index of it (`constellation index COPY --db DB`), so that the measured
     run rewrites an existing database in place, as `--full` does on a real checkout;
  3. starts `constellation serve COPY --db DB` and speaks JSON-RPC to it over stdio
     (initialize, then tools/call), times --idle task writes with nothing else running;
  4. starts `constellation index COPY --db DB --full` in another process and, while it
     runs, calls `update_tasks` in a loop (a new three-task list each time, --pause
     seconds apart), timing each call from request to answer.

How to run (after `cargo build --release`):

    python3 bench/memory_latency.py [--baseline OLD_BINARY] [--pause 0.02] [--idle 20]

The binary under test is $CONSTELLATION_BIN, else target/release/constellation of this
repository; --baseline adds a second binary (e.g. one built before agent memory had its
own database) measured the same way, side by side.

What it prints: the command, the corpus (files, bytes), then per binary the time of
the --full run, and the count, median, p99 (nearest rank) and max latency in ms of the
task writes while it ran (errors counted apart), and the same figures when idle.
Exit status 0, or 2 when a prerequisite is missing.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

from benchlib import McpServer, constellation_bin, die


def copy_stdlib(dest: str) -> tuple[int, int]:
    """Copies the stdlib to `dest` without site-packages, __pycache__ and *.pyc; returns
    (files, bytes)."""
    src = sysconfig.get_paths()["stdlib"]
    shutil.copytree(
        src,
        dest,
        symlinks=True,
        ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"),
    )
    files = size = 0
    for base, _dirs, names in os.walk(dest):
        for n in names:
            p = os.path.join(base, n)
            if not os.path.islink(p):
                files += 1
                size += os.path.getsize(p)
    return files, size


def task_write(server: McpServer, i: int) -> tuple[float, bool]:
    """One `update_tasks` call; returns (milliseconds, succeeded)."""
    args = {
        "sessionId": "latency-bench",
        "tasks": [
            {"taskId": f"t{k}", "description": f"write {i}, task {k}", "status": "TODO"}
            for k in range(3)
        ],
    }
    started = time.perf_counter()
    result = server.call("update_tasks", args)
    ms = (time.perf_counter() - started) * 1000
    return ms, not result.get("isError", False)


def figures(ms: list[float]) -> str:
    if not ms:
        return "count 0"
    s = sorted(ms)
    p99 = s[max(0, math.ceil(0.99 * len(s)) - 1)]
    return (
        f"count {len(s)}, median {statistics.median(s):.1f} ms, "
        f"p99 {p99:.1f} ms, max {s[-1]:.1f} ms"
    )


def measure(label: str, binary: str, root: str, work: str, idle: int, pause: float) -> None:
    db = os.path.join(work, f"{label}.db")
    started = time.perf_counter()
    subprocess.run(
        [binary, "index", root, "--db", db, "--quiet"], check=True, stdout=subprocess.DEVNULL
    )
    print(f"[{label}] {binary}")
    print(f"[{label}] first index: {time.perf_counter() - started:.1f} s")
    server = McpServer(binary, root, db, "memory_latency")
    try:
        quiet = [task_write(server, i)[0] for i in range(idle)]
        print(f"[{label}] idle task writes: {figures(quiet)}")
        during: list[float] = []
        errors = 0
        index = subprocess.Popen(
            [binary, "index", root, "--db", db, "--full", "--quiet"],
            stdout=subprocess.DEVNULL,
        )
        run_started = time.perf_counter()
        i = idle
        while index.poll() is None:
            ms, ok = task_write(server, i)
            i += 1
            # A write that began before the run ended counts as written during it.
            if ok:
                during.append(ms)
            else:
                errors += 1
            time.sleep(pause)
        run_s = time.perf_counter() - run_started
        if index.returncode != 0:
            die(f"[{label}] the --full run failed with exit status {index.returncode}")
        print(f"[{label}] index --full: {run_s:.1f} s")
        print(f"[{label}] task writes during it: {figures(during)}, errors {errors}")
    finally:
        server.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", metavar="BIN", help="also measure this binary")
    ap.add_argument("--pause", type=float, default=0.02, help="seconds between two writes")
    ap.add_argument("--idle", type=int, default=20, help="task writes timed before the run")
    args = ap.parse_args()
    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"{binary} is not built: run `cargo build --release` first")
    if args.baseline and not os.path.exists(args.baseline):
        die(f"--baseline {args.baseline} does not exist")
    print("command: " + " ".join([os.path.basename(sys.executable)] + sys.argv))
    with tempfile.TemporaryDirectory(prefix="memory-latency-") as work:
        root = os.path.join(work, "stdlib")
        files, size = copy_stdlib(root)
        print(
            f"corpus: Python {sys.version.split()[0]} standard library "
            f"({sysconfig.get_paths()['stdlib']}, no site-packages/__pycache__), "
            f"{files} files, {size / 1e6:.1f} MB"
        )
        measure("new", binary, root, work, args.idle, args.pause)
        if args.baseline:
            measure("baseline", args.baseline, root, work, args.idle, args.pause)


if __name__ == "__main__":
    main()
