#!/usr/bin/env python3
"""A sharded build (`index --shard K/N` on N jobs, then `merge`) against a single build of
the same tree: wall times, peak memory, and whether the two indexes export the same bytes.

What it does, --runs times (default 1), alternating the two ways in one run:
  - single: `constellation index CORPUS --db SINGLE.db` from nothing;
  - sharded: `constellation index CORPUS --shard K/N --db SK.db` for K = 1..N, at most
    --jobs at once (default: the machine's cores; each stands for one CI job), then
    `constellation merge MERGED.db S1.db ... SN.db`.
Then `constellation export` of both databases (JSON, byte-identical for identical
indexes) is hashed and compared.

It prints per run each shard's wall time and peak RSS, the merge's, the slowest shard
plus the merge (the wall time of a CI matrix whose jobs run side by side, then a merge
job), the sum of the shards (the CPU a single machine spends on them), the single
build's wall and RSS, and the two exports' sha256. Exit status: 0 when every merged
export equals the single build's, 1 otherwise, 2 on a setup error.

How to run (after `cargo build --release`; the corpus is indexed in place, its
databases go to a temporary directory, so index a copy you own):

    python3 bench/shards.py --corpus DIR [--n 4] [--jobs 2] [--runs 1] [-- INDEX ARGS]

Arguments after `--` go to every `index` call (e.g. `--no-ignore` for the Linux tarball,
whose root `.gitignore` hides everything). The binary is $CONSTELLATION_BIN, else
target/release/constellation.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time

from benchlib import constellation_bin, die


def timed(cmd: list[str]) -> tuple[float, int]:
    """Runs `cmd` (its stdout dropped); returns (wall s, peak RSS MiB) via /usr/bin/time."""
    start = time.monotonic()
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.monotonic() - start
    if out.returncode != 0:
        die(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()[-2000:]}")
    rss_kib = int(out.stderr.strip().splitlines()[-1])
    return wall, rss_kib // 1024


def export_digest(binary: str, corpus: str, db: str) -> str:
    """sha256 of `constellation export` of `db`, streamed."""
    h = hashlib.sha256()
    with subprocess.Popen([binary, "export", corpus, "--db", db], stdout=subprocess.PIPE) as p:
        assert p.stdout is not None
        for block in iter(lambda: p.stdout.read(1 << 20), b""):
            h.update(block)
    if p.returncode != 0:
        die(f"export of {db} failed ({p.returncode})")
    return h.hexdigest()


def remove_db(path: str) -> None:
    for ext in ("", "-wal", "-shm", ".lock"):
        try:
            os.remove(path + ext)
        except FileNotFoundError:
            pass


def sharded(binary: str, corpus: str, tmp: str, n: int, jobs: int, extra: list[str]) -> dict:
    """Indexes the N shards, --jobs at once, then merges them; returns the figures."""
    shards = [os.path.join(tmp, f"s{k}.db") for k in range(1, n + 1)]
    merged = os.path.join(tmp, "merged.db")
    for p in [*shards, merged]:
        remove_db(p)
    walls: list[float] = [0.0] * n
    rss: list[int] = [0] * n
    running: list[tuple[int, subprocess.Popen, float]] = []
    todo = list(range(n))
    while todo or running:
        while todo and len(running) < jobs:
            k = todo.pop(0)
            cmd = ["/usr/bin/time", "-f", "%M", binary, "index", corpus, "--quiet",
                   "--shard", f"{k + 1}/{n}", "--db", shards[k], *extra]
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            running.append((k, proc, time.monotonic()))
        time.sleep(0.01)
        for item in list(running):
            k, proc, start = item
            if proc.poll() is None:
                continue
            walls[k] = time.monotonic() - start
            err = proc.stderr.read() if proc.stderr else ""
            if proc.returncode != 0:
                die(f"shard {k + 1}/{n} failed ({proc.returncode}): {err.strip()[-2000:]}")
            rss[k] = int(err.strip().splitlines()[-1]) // 1024
            running.remove(item)
    merge_wall, merge_rss = timed([binary, "merge", merged, *shards, "--quiet"])
    return {
        "walls": walls,
        "rss": rss,
        "merge": merge_wall,
        "merge_rss": merge_rss,
        "db": merged,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True, help="tree to index (a copy you own)")
    ap.add_argument("--n", type=int, default=4, help="shards (default 4)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="shards indexed at once")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("extra", nargs="*", help="after --: arguments for every index call")
    args = ap.parse_args()
    binary = constellation_bin()
    corpus = os.path.abspath(args.corpus)
    if not os.path.isdir(corpus):
        die(f"{corpus} is not a directory")
    if not os.path.exists("/usr/bin/time"):
        die("needs /usr/bin/time (apt-get install time)")
    failures = 0
    print(f"corpus {corpus}; {args.n} shards, {args.jobs} at once; binary {binary}")
    with tempfile.TemporaryDirectory(prefix="constellation-shards-") as tmp:
        single_db = os.path.join(tmp, "single.db")
        for run in range(1, args.runs + 1):
            order = ["single", "sharded"] if run % 2 else ["sharded", "single"]
            figures: dict = {}
            for way in order:
                if way == "single":
                    remove_db(single_db)
                    figures["single"] = timed([binary, "index", corpus, "--quiet", "--db", single_db, *args.extra])
                else:
                    figures["sharded"] = sharded(binary, corpus, tmp, args.n, args.jobs, args.extra)
            s = figures["sharded"]
            single_wall, single_rss = figures["single"]
            slowest = max(s["walls"])
            a = export_digest(binary, corpus, single_db)
            b = export_digest(binary, corpus, s["db"])
            equal = a == b
            failures += not equal
            shards_text = ", ".join(f"{w:.2f} s/{r} MiB" for w, r in zip(s["walls"], s["rss"]))
            print(f"run {run}:")
            print(f"  shards (wall/peak RSS): {shards_text}")
            print(f"  merge: {s['merge']:.2f} s, {s['merge_rss']} MiB")
            print(f"  slowest shard + merge: {slowest + s['merge']:.2f} s; sum of shards {sum(s['walls']):.2f} s")
            print(f"  single build: {single_wall:.2f} s, {single_rss} MiB")
            print(f"  export sha256: single {a[:16]}, merged {b[:16]}: {'EQUAL' if equal else 'DIFFERENT'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
