"""Benchmarks of `constellation impact`.

(a) diff impact on a real project's history: two published sdists of a PyPI package
    (default rich 13.6.0 and 13.7.0, downloaded with `pip download --no-binary :all:`
    into a temporary directory, never committed) become two commits of a temporary git
    repository; `constellation impact --diff HEAD~1 --json` runs on it (median of
    several runs, index already fresh), and its changed symbols are compared with an
    independent computation in Python: the line ranges of `git diff -U0 HEAD~1` against
    the `nodes` table of the index (sqlite3): a node is touched when a new-side range
    meets its lines or a pure deletion falls between two of its lines. (The tool also
    leaves out a container whose changed lines all lie inside its members; the check
    does not, so those containers show up as "only the check".) Removed symbols cannot be seen in the new index; they are counted
    apart.

Usage: python3 bench/impact.py [--package rich] [--old 13.6.0] [--new 13.7.0] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

from benchlib import constellation_bin, die


def sh(args: list[str], cwd: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, check=check, capture_output=True, text=True)


def unpack(sdist: str, dest: str) -> None:
    """Extracts an sdist's single top directory's contents into dest."""
    with tarfile.open(sdist) as t:
        top = t.getnames()[0].split("/")[0]
        t.extractall(os.path.dirname(dest) + "/x", filter="data")
    src = os.path.join(os.path.dirname(dest), "x", top)
    for name in os.listdir(src):
        shutil.move(os.path.join(src, name), os.path.join(dest, name))
    shutil.rmtree(os.path.join(os.path.dirname(dest), "x"))


HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def touched_by_diff(repo: str, db: str) -> tuple[set[str], int]:
    """Node keys whose lines meet a new-side range of `git diff -U0 HEAD~1`, and the
    number of changed files."""
    out = sh(["git", "-C", repo, "diff", "-U0", "--no-renames", "--no-color", "HEAD~1"]).stdout
    ranges: dict[str, list[tuple[int, int]]] = {}
    gaps: dict[str, list[int]] = {}
    path = None
    for line in out.splitlines():
        if line.startswith("+++ "):
            p = line[4:]
            path = None if p == "/dev/null" else p[2:]
            if path:
                ranges.setdefault(path, [])
        elif line.startswith("--- ") and line[4:] != "/dev/null":
            ranges.setdefault(line[6:], [])
        elif (m := HUNK.match(line)) and path:
            start, count = int(m.group(3)), int(m.group(4) or 1)
            if count > 0:
                ranges[path].append((start, start + count - 1))
            else:
                gaps.setdefault(path, []).append(start)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    keys: set[str] = set()
    for p, rs in ranges.items():
        p_ = p
        for key, kind, s, e in conn.execute(
            "SELECT n.key, n.kind, n.start_line, n.end_line FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = ?",
            (p_,),
        ):
            if kind != "file" and (
                any(a <= e and s <= b for a, b in rs) or any(s <= p < e for p in gaps.get(p_, []))
            ):
                keys.add(key)
    return keys, len(ranges)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", default="rich")
    ap.add_argument("--old", default="13.6.0")
    ap.add_argument("--new", default="13.7.0")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"no binary at {binary}; cargo build --release first")
    tmp = tempfile.mkdtemp(prefix="impact-bench-")
    try:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        sh(["git", "init", "-q"], cwd=repo)
        for i, version in enumerate([a.old, a.new]):
            dl = os.path.join(tmp, f"dl{i}")
            cmd = ["pip", "download", "--no-binary", ":all:", "--no-deps", f"{a.package}=={version}", "-d", dl]
            print("$", " ".join(cmd))
            sh(cmd)
            for name in os.listdir(repo):
                if name != ".git":
                    p = os.path.join(repo, name)
                    shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
            unpack(os.path.join(dl, os.listdir(dl)[0]), repo)
            with open(os.path.join(repo, ".gitignore"), "w") as f:
                f.write(".constellation/\n")
            sh(["git", "add", "-A"], cwd=repo)
            sh(["git", "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", version], cwd=repo)
        db = os.path.join(tmp, "index.db")
        sh([binary, "-q", "index", repo, "--db", db])
        cmd = [binary, "-q", "impact", "--root", repo, "--db", db, "--diff", "HEAD~1", "--json"]
        times, answer = [], None
        for _ in range(a.runs):
            t0 = time.perf_counter()
            r = sh(cmd)
            times.append(time.perf_counter() - t0)
            answer = json.loads(r.stdout)
        assert answer is not None
        ours = {c["node_id"] for c in answer["changed"] if c["change"] != "removed"}
        removed = [c for c in answer["changed"] if c["change"] == "removed"]
        truth, files = touched_by_diff(repo, db)
        py_files = sum(1 for f in answer["files_changed"] if f["path"].endswith(".py"))
        print(f"$ {' '.join(cmd)}")
        print(f"corpus: {a.package} {a.old} -> {a.new}; {answer['files_changed_total']} files changed ({py_files} .py)")
        print(
            f"changed symbols: {answer['added']} added, {answer['modified']} modified, {answer['removed']} removed; "
            f"dependents {answer['dependents_total']} (+{answer['possible_total']} possible), tests {answer['tests_total']}"
        )
        both = ours & truth
        print(
            f"independent check (git diff -U0 ranges x nodes table): {len(truth)} nodes touched; "
            f"ours {len(ours)}; in both {len(both)}; only ours {len(ours - truth)}; only the check {len(truth - ours)}"
        )
        for k in sorted(truth - ours)[:10]:
            print(f"  only the check: {k}")
        for k in sorted(ours - truth)[:10]:
            print(f"  only ours: {k}")
        print(f"removed (not in the new index, from the old version's parse): {len(removed)}, e.g. {[c['node_id'] for c in removed[:3]]}")
        print(f"wall time of the whole answer: median {statistics.median(times):.3f} s over {a.runs} runs (min {min(times):.3f}, max {max(times):.3f})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
