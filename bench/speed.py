#!/usr/bin/env python3
"""Indexing speed and memory of Constellation next to universal-ctags, on one corpus.

What it measures, side by side in one run, each step --runs times (median reported):
  1. ctags      `ctags -R -f - CORPUS > /dev/null`: wall time of a peer that parses every
                file (`-f /dev/null` fails at the end: ctags cannot truncate /dev/null).
  2. full       `constellation index CORPUS --db DB --full --json` into a fresh database
                (DB in a temporary directory outside the corpus): wall time and the peak
                resident set size of that one child process (ru_maxrss from os.wait4).
  3. no change  the same command without --full, nothing changed on disk: the cost of
                stat-ing the tree; checks that `filesParsed` is 0.
  4. one file   append a comment line to one mid-sized source file (the median by size of
                the .py files, or of the .rs / .ts / .js files when there is no .py),
                re-index incrementally; checks that `filesParsed` is 1. The file is put
                back as it was (content and mtime) at the end.

Each run also measures the parse floor, when target/release/examples/parse_floor is
built (`cargo build --release --examples`; `cargo test --release` builds it too):
tree-sitter alone parsing the files an index run parses, already in memory, on as many
threads. It is printed under the table with full/floor and ctags/floor.

With --baseline BIN (another build of constellation, e.g. from a worktree of an older
commit), steps 2-4 also run with that binary into its own database, alternating with
the current one inside every run (full, full baseline, no change, no change baseline,
one file, one file baseline; even runs put the baseline first in each pair, since a
step right after the other build's full index shares the disk with its write-back),
and the ratios current/baseline are printed. Use an even number of runs.

How to run (after `cargo build --release`):

    python3 bench/speed.py [--corpus DIR] [--runs 3] [--baseline OTHER_BIN]
        [--no-ignore] [--probe RELATIVE_PATH]

--no-ignore is passed to every index command (a tree whose ignore files hide everything,
such as the Linux kernel's release tarball, whose .gitignore starts with `/*`). --probe
names the file the one-file step edits (e.g. mm/mmap.c), instead of the median one.

Without --corpus, the Python standard library (sysconfig "stdlib", without site-packages,
__pycache__ and *.pyc) is copied into a temporary directory and removed afterwards. The
binary is $CONSTELLATION_BIN, else target/release/constellation of this repository.

What it prints: the corpus (path, files and bytes, skipping hidden entries), a table with
one row per step (command, median/min/max wall seconds, peak RSS MiB of the child), the
ratios index/ctags, no-change/full and one-file/full, and the two filesParsed checks.
Exit status: 0 when every command succeeded and both checks held, 1 otherwise, 2 on a
setup error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from benchlib import constellation_bin, die



def measure(cmd: list[str], workdir: str, discard_stdout: bool = False) -> tuple[float, int, int, str, str]:
    """Runs cmd; returns (wall seconds, peak RSS KiB of that process, exit code, stdout, stderr tail)."""
    out_path = os.devnull if discard_stdout else os.path.join(workdir, "stdout")
    err_path = os.path.join(workdir, "stderr")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        # os.wait4 gives the rusage of this one child (RUSAGE_CHILDREN would be the maximum
        # over every child reaped so far, ctags included).
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped; keep Popen quiet
    with open(out_path, "rb") as f:
        stdout = f.read().decode(errors="replace")
    with open(err_path, "rb") as f:
        stderr = f.read().decode(errors="replace")[-2000:]
    return wall, usage.ru_maxrss, proc.returncode, stdout, stderr


# Probe candidates in order of preference, with their line-comment prefix.
PROBE_EXTENSIONS = {".py": "#", ".rs": "//", ".ts": "//", ".js": "//"}
# Comment starts of the files --probe may name, beyond the default probe's.
COMMENTS = {**PROBE_EXTENSIONS, ".c": "//", ".h": "//", ".go": "//", ".java": "//", ".cpp": "//"}


def corpus_stats(corpus: str) -> tuple[int, int, list[tuple[int, str]]]:
    """Files and bytes under corpus, and the probe candidates as (size, path): the .py
    files, else the files of the first of .rs, .ts, .js that has any. Hidden entries and
    node_modules are skipped, as the indexer skips them (so the probe is an indexed file)."""
    files = 0
    size = 0
    by_ext: dict[str, list[tuple[int, str]]] = {ext: [] for ext in PROBE_EXTENSIONS}
    for d, dirs, names in os.walk(corpus):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "node_modules")
        for name in names:
            if name.startswith("."):
                continue
            path = os.path.join(d, name)
            if not os.path.isfile(path) or os.path.islink(path):
                continue
            st = os.stat(path)
            files += 1
            size += st.st_size
            ext = os.path.splitext(name)[1]
            if ext in by_ext:
                by_ext[ext].append((st.st_size, path))
    py = next((sorted(v) for v in by_ext.values() if v), [])
    return files, size, py


def copy_stdlib(dest: str) -> str:
    src = sysconfig.get_paths()["stdlib"]
    dst = os.path.join(dest, "cpython-stdlib")
    print(f"copying {src} -> {dst} (without site-packages, __pycache__, *.pyc)", flush=True)
    shutil.copytree(
        src, dst, symlinks=True, ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc")
    )
    return dst


def index_json(stdout: str) -> dict:
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", help="directory to index (default: a temporary copy of the Python stdlib)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each step; the median is reported (default 3)")
    ap.add_argument("--baseline", help="another constellation binary to compare with, alternating run by run")
    ap.add_argument("--no-ignore", action="store_true", help="pass --no-ignore to every index command")
    ap.add_argument("--probe", help="the file the one-file step edits, relative to the corpus")
    args = ap.parse_args()
    if args.baseline and not (os.path.isfile(args.baseline) and os.access(args.baseline, os.X_OK)):
        die(f"--baseline {args.baseline} is not an executable file")
    if args.runs < 1:
        die("--runs must be at least 1")

    exe = constellation_bin()
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        die(f"constellation binary not found at {exe}: run `cargo build --release` or set CONSTELLATION_BIN")
    ctags = shutil.which("ctags")
    if not ctags:
        die("ctags not found: apt-get install -y universal-ctags")

    work = tempfile.mkdtemp(prefix="constellation-speed-")
    try:
        if args.corpus:
            corpus = os.path.abspath(args.corpus)
            if not os.path.isdir(corpus):
                die(f"{corpus} is not a directory")
        else:
            corpus = copy_stdlib(work)
        files, size, py = corpus_stats(corpus)
        if args.probe:
            probe = os.path.join(corpus, args.probe)
            if not os.path.isfile(probe) or os.path.splitext(probe)[1] not in COMMENTS:
                die(f"--probe {args.probe}: not a file of {corpus} with one of {sorted(COMMENTS)}")
            py = [(os.path.getsize(probe), probe)]
        if not py:
            die(f"no .py, .rs, .ts or .js file under {corpus} for the one-file-change step")
        probe_size, probe = py[len(py) // 2]
        comment = COMMENTS[os.path.splitext(probe)[1]]
        db = os.path.join(work, "db", "index.db")
        os.makedirs(os.path.dirname(db))

        base_db = os.path.join(work, "db-baseline", "index.db")
        os.makedirs(os.path.dirname(base_db))
        steps = {"ctags": [ctags, "-R", "-f", "-", corpus]}
        # The parse floor: tree-sitter alone over the files an index run parses, in
        # memory, on as many threads (examples/parse_floor.rs; `cargo test --release`
        # and `cargo build --release --examples` build it beside the binary).
        floor_bin = os.path.join(os.path.dirname(exe), "examples", "parse_floor")
        if os.path.isfile(floor_bin) and os.access(floor_bin, os.X_OK):
            steps["parse floor"] = [floor_bin, corpus, *(["--no-ignore"] if args.no_ignore else [])]
        else:
            print(f"no {floor_bin}: the parse floor is not measured (cargo build --release --examples)")
        floors: list[dict] = []
        for step, extra in (("full", ["--full"]), ("no change", []), ("one file", [])):
            if args.no_ignore:
                extra = [*extra, "--no-ignore"]
            steps[step] = [exe, "index", corpus, "--db", db, *extra, "--json"]
            if args.baseline:
                steps[f"{step} (baseline)"] = [args.baseline, "index", corpus, "--db", base_db, *extra, "--json"]
        walls: dict[str, list[float]] = {k: [] for k in steps}
        rss: dict[str, list[int]] = {k: [] for k in steps}
        parsed: dict[str, list] = {k: [] for k in steps if k.startswith(("no change", "one file"))}
        seen = None
        failures = []

        def run_order(run: int) -> list[str]:
            # Even runs put the baseline first in each pair: a step that follows the
            # other build's full index shares the disk with its write-back, so a fixed
            # order would always charge that to the same build.
            names = list(steps)
            if not args.baseline or run % 2 == 1:
                return names
            out = []
            for name in names:
                if name.endswith(" (baseline)"):
                    continue
                other = f"{name} (baseline)"
                out.extend([other, name] if other in steps else [name])
            return out

        original = open(probe, "rb").read()
        st = os.stat(probe)
        try:
            for run in range(1, args.runs + 1):
                for f in (db, db + "-wal", db + "-shm", base_db, base_db + "-wal", base_db + "-shm"):
                    if os.path.exists(f):
                        os.remove(f)
                for step in run_order(run):
                    cmd = steps[step]
                    if step.startswith("one file"):
                        with open(probe, "ab") as f:
                            f.write((b"" if original.endswith(b"\n") else b"\n") + f"{comment} speed.py probe, run {run}\n".encode())
                    wall, maxrss, code, stdout, stderr = measure(cmd, work, discard_stdout=step == "ctags")
                    if step.startswith("one file"):
                        with open(probe, "wb") as f:
                            f.write(original)
                    print(f"run {run}: {step:<20} {wall:8.3f} s  {maxrss / 1024:8.1f} MiB  exit {code}", flush=True)
                    if code != 0:
                        failures.append(f"run {run} {step}: exit {code}: {stderr.strip()[-500:]}")
                        continue
                    if step == "parse floor":
                        floors.append(index_json(stdout))
                        continue
                    walls[step].append(wall)
                    rss[step].append(maxrss)
                    if step != "ctags":
                        stats = index_json(stdout)
                        if not stats:
                            failures.append(f"run {run} {step}: no JSON object on stdout: {stdout[:200]!r}")
                        if step.startswith("full"):
                            seen = stats.get("filesSeen", seen)
                        if step in parsed:
                            parsed[step].append(stats.get("filesParsed"))
        finally:
            with open(probe, "wb") as f:
                f.write(original)
            os.utime(probe, ns=(st.st_atime_ns, st.st_mtime_ns))

        def med(step: str) -> float | None:
            return statistics.median(walls[step]) if walls[step] else None

        print()
        print(f"corpus:   {corpus}")
        print(f"files:    {files} ({size} bytes = {size / 2**20:.1f} MiB; hidden entries skipped)"
              + (f"; constellation filesSeen {seen}" if seen is not None else ""))
        print(f"probe:    {os.path.relpath(probe, corpus)} ({probe_size} bytes, the median of {len(py)} such files)")
        print(f"runs:     {args.runs} (median, min, max wall seconds; peak RSS = max over runs of the child's ru_maxrss)")
        print()
        print(f"{'step':<21} {'median s':>9} {'min s':>8} {'max s':>8} {'peak RSS MiB':>13}  command")
        for step, cmd in steps.items():
            if step == "parse floor":
                continue
            w = walls[step]
            shown = " ".join(cmd).replace(corpus, "CORPUS").replace(db, "DB") + (" > /dev/null" if step == "ctags" else "")
            if w:
                print(f"{step:<21} {med(step):>9.3f} {min(w):>8.3f} {max(w):>8.3f} {max(rss[step]) / 1024:>13.1f}  {shown}")
            else:
                print(f"{step:<21} {'failed':>9} {'':>8} {'':>8} {'':>13}  {shown}")
        print()
        ratios = []
        for label, a, b in (("index --full / ctags", "full", "ctags"), ("no change / full", "no change", "full"),
                            ("one file / full", "one file", "full"),
                            ("full / full baseline", "full", "full (baseline)"),
                            ("one file / one file baseline", "one file", "one file (baseline)")):
            if a not in walls or b not in walls:
                continue
            if med(a) is not None and med(b):
                ratios.append(f"{label} = {med(a) / med(b):.2f}")
        print("ratios:   " + "; ".join(ratios))
        parses = [f["parseSeconds"] for f in floors if "parseSeconds" in f]
        if parses:
            floor = statistics.median(parses)
            first = floors[0]
            print(f"floor:    tree-sitter alone: {floor:.3f} s median ({min(parses):.3f}-{max(parses):.3f}) "
                  f"for {first.get('files')} files, {first.get('bytes', 0) / 2**20:.1f} MiB in memory, on "
                  f"{first.get('threads')} threads ({first.get('megabytesPerSecond')} MB/s); "
                  + "; ".join(f"{label} = {med(step) / floor:.2f}" for label, step in
                              (("full / floor", "full"), ("ctags / floor", "ctags")) if med(step)))

        checks = [(f"{step}: filesParsed == {0 if step.startswith('no change') else 1}", step,
                   0 if step.startswith("no change") else 1) for step in parsed]
        for label, step, want in checks:
            got = parsed[step]
            ok = bool(got) and all(v == want for v in got)
            print(f"check:    {label}: {'ok' if ok else 'FAILED'} (per run: {got})")
            if not ok:
                failures.append(f"{label}: got {got}")
        for failure in failures:
            print(f"FAILED:   {failure}")
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
