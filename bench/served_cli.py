#!/usr/bin/env python3
"""A one-shot command beside a running server: `constellation index` asks the server's
file watch (a cookie file, answered once its index includes every earlier change)
instead of walking the tree, against the same command with `--walk`.

What it measures, on --corpus (a copy: the bench writes CORPUS/.constellation/ and
edits one file, which it puts back as it was at the end):
  1. `constellation index CORPUS` builds the index if there is none (default database,
     inside the corpus: the cookie must lie in the watched tree);
  2. starts `constellation serve CORPUS --http 127.0.0.1:0` and waits until
     `index --json` reports `fileSource: server`;
  3. --runs rounds, each timing four commands, in an order that alternates between
     rounds (served first in even rounds, walking first in odd ones):
       no change, served    `index CORPUS --json`
       no change, walking   `index CORPUS --json --walk`
       one edit, served     append a function `cst_cli_probe_K` to --probe, then
                            `index CORPUS --json`
       one edit, walking    the same with `--walk`
     After each edit, `constellation sql` must find the new function (the command's
     answer includes the edit), and `fileSource` must say who answered. A walking
     command writes the database from another process, so the server's next run
     reads its pages afresh (SQLite drops a connection's cache when another one has
     written): --served-only leaves the walking steps out, as when every command
     beside the server is served;
  4. prints, per step, median / p95 (nearest rank) / max wall ms, and the checks.

How to run (after `cargo build --release`; a copy from bench/corpora.sh, or the Linux
kernel tree with --no-ignore --probe mm/mmap.c):

    python3 bench/served_cli.py --corpus DIR [--runs 20] [--no-ignore] [--probe REL]
        [--served-only]

The binary is $CONSTELLATION_BIN, else target/release/constellation. Exit status 0 when
every check held, 1 otherwise, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from benchlib import constellation_bin, die, start_http_server, stop_server


def nearest_rank(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[max(0, min(len(s) - 1, int(round(q * len(s) + 0.5)) - 1))]


def run_json(cmd: list[str]) -> tuple[float, dict]:
    """Runs cmd; returns (wall ms, the JSON object of its last stdout line)."""
    t0 = time.monotonic()
    out = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    ms = (time.monotonic() - t0) * 1000
    if out.returncode != 0:
        die(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr[-2000:]}", 1)
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    return ms, json.loads(lines[-1])


def median_file(corpus: str, exts: tuple[str, ...]) -> str:
    files = []
    for dirpath, dirnames, filenames in os.walk(corpus):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(exts):
                path = os.path.join(dirpath, name)
                files.append((os.path.getsize(path), os.path.relpath(path, corpus)))
    if not files:
        die(f"no {exts} file in {corpus}")
    files.sort()
    return files[len(files) // 2][1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--corpus", required=True, help="a copy of a source tree")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--no-ignore", action="store_true")
    ap.add_argument("--probe", help="file the edits append to (relative to the corpus)")
    ap.add_argument("--served-only", action="store_true",
                    help="time only the served commands (no walking command writes)")
    args = ap.parse_args()

    binary = constellation_bin()
    corpus = os.path.abspath(args.corpus)
    extra = ["--no-ignore"] if args.no_ignore else []
    probe = args.probe or median_file(corpus, (".py", ".c"))
    probe_path = os.path.join(corpus, probe)
    is_c = probe.endswith((".c", ".h"))
    original = open(probe_path, "rb").read()
    stat = os.stat(probe_path)
    print(f"corpus {corpus}; probe {probe} ({len(original)} bytes); binary {binary}")

    # The index, before the server (it would otherwise build it in the background).
    t0 = time.monotonic()
    subprocess.run([binary, "index", corpus, *extra], check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL)
    print(f"index ready in {time.monotonic() - t0:.1f} s")

    # The server walks with the same options, or commands would not take its answer.
    server, url = start_http_server(binary, corpus, None, "served-cli-bench-token", extra)
    if url is None:
        die("serve --http ended before printing its address")
    problems: list[str] = []
    times: dict[str, list[float]] = {k: [] for k in
                                     ("no change, served", "no change, walking",
                                      "one edit, served", "one edit, walking")}
    try:
        start = time.monotonic()
        while True:
            _, r = run_json([binary, "index", corpus, "--json", *extra])
            if r.get("fileSource") == "server":
                break
            if time.monotonic() - start > 120:
                die(f"the server never answered: {r}", 1)
            time.sleep(0.2)
        print(f"server (process {server.pid}) answers after {time.monotonic() - start:.1f} s")

        def probe_step(k: int, walking: bool) -> None:
            name = f"cst_cli_probe_{k}"
            line = (f"\nint {name}(void) {{ return {k}; }}\n" if is_c
                    else f"\n\ndef {name}():\n    return {k}\n")
            with open(probe_path, "a") as f:
                f.write(line)
            cmd = [binary, "index", corpus, "--json", *extra] + (["--walk"] if walking else [])
            ms, r = run_json(cmd)
            step = "one edit, walking" if walking else "one edit, served"
            times[step].append(ms)
            want = "server" if not walking else None
            if want and r.get("fileSource") != want:
                problems.append(f"{step} {k}: fileSource {r.get('fileSource')}")
            if walking and r.get("fileSource") == "server":
                problems.append(f"{step} {k}: --walk was answered by the server")
            found = subprocess.run(
                [binary, "sql", corpus, f"SELECT count(*) FROM symbols WHERE name = '{name}'"],
                capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
            if "1" not in found.split():
                problems.append(f"{step} {k}: {name} not in the index after the command")

        def no_change(walking: bool) -> None:
            cmd = [binary, "index", corpus, "--json", *extra] + (["--walk"] if walking else [])
            ms, r = run_json(cmd)
            step = "no change, walking" if walking else "no change, served"
            times[step].append(ms)
            if r.get("filesParsed", 0) != 0:
                problems.append(f"{step}: {r.get('filesParsed')} files parsed")
            if (r.get("fileSource") == "server") == walking:
                problems.append(f"{step}: fileSource {r.get('fileSource')}")

        k = 0
        for rnd in range(args.runs):
            order = [False, True] if rnd % 2 == 0 else [True, False]
            if args.served_only:
                order = [False]
            for walking in order:
                time.sleep(0.6)  # past the server's quiet and its totals
                no_change(walking)
            for walking in order:
                time.sleep(0.6)
                probe_step(k, walking)
                k += 1
    finally:
        stop_server(server)
        with open(probe_path, "wb") as f:
            f.write(original)
        os.utime(probe_path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        # Bring the index back to the restored file.
        subprocess.run([binary, "index", corpus, *extra], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL)

    print(f"\n{'step':<22} {'runs':>5} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}")
    for step, values in times.items():
        if values:
            print(f"{step:<22} {len(values):>5} {statistics.median(values):>10.1f} "
                  f"{nearest_rank(values, 0.95):>8.1f} {max(values):>8.1f}")
    if problems:
        print("\nproblems:")
        for p in problems:
            print(f"  {p}")
        sys.exit(1)
    walked = "" if args.served_only else ", every --walk one walked"
    print(f"\nchecks: every served command was answered by the server{walked}, every edit "
          "was in the index after its command")


if __name__ == "__main__":
    main()
