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

(b) tests-to-run recall against coverage.py's dynamic contexts (`--coverage`): a
    PyPI project that ships tests (default more-itertools) is downloaded as an sdist,
    its tests run once under pytest-cov with `--cov-context=test` in a temporary
    virtualenv (`pip install pytest pytest-cov coverage`); for a sample of functions
    (seeded) that some test executed, the tests that executed a line of the function's
    body are the truth, and `get_impact` (over MCP) lists
    its tests (`--depths`: the tool's default, 3 and 6 unless told). A parametrized test's run (`test_roundtrip[http://...]`, one context per
    parameter set) counts as listed when its test function is. Prints recall (share of the executing tests listed, over all pairs, and
    the mean per function) and precision (share of the listed tests that executed it),
    for every listed test and for the trusted ones alone (the possible ones come through
    weaker edges or name-only candidates).
    Measured on two projects: more-itertools (the default) and boltons
    (`--cov-package boltons`: its sdist ships `tests/`, which run under pytest in about
    15 s). The package directory must be `PKG/` at the top of the sdist (PKG is the
    name with `-` as `_`) and the tests under `tests/`.
    The JavaScript counterpart (V8 coverage per test file of an npm package) is
    bench/impact_js.py.

Usage: python3 bench/impact.py [--package rich] [--old 13.6.0] [--new 13.7.0] [--runs 5]
       python3 bench/impact.py --coverage [--cov-package more-itertools] [--sample 200]
                               [--project-dir DIR (reuse a tree whose .coverage exists)]
       python3 bench/impact.py --coverage --cov-package boltons
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


def coverage_recall(a: argparse.Namespace, binary: str) -> None:
    import random

    tmp = tempfile.mkdtemp(prefix="impact-cov-")
    try:
        venv = os.path.join(tmp, "venv")
        if a.project_dir:
            proj = a.project_dir
            py = a.python or sys.executable
        else:
            sh([sys.executable, "-m", "venv", venv])
            py = os.path.join(venv, "bin", "python")
            cmd = [py, "-m", "pip", "install", "-q", "pytest", "pytest-cov", "coverage"]
            print("$", " ".join(cmd))
            sh(cmd)
            dl = os.path.join(tmp, "dl")
            cmd = ["pip", "download", "--no-binary", ":all:", "--no-deps", a.cov_package, "-d", dl]
            print("$", " ".join(cmd))
            sh(cmd)
            proj = os.path.join(tmp, "proj")
            os.makedirs(proj)
            unpack(os.path.join(dl, os.listdir(dl)[0]), proj)
        pkg = a.cov_package.replace("-", "_")
        if not os.path.exists(os.path.join(proj, ".coverage")):
            cmd = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--cov={pkg}", "--cov-context=test", "tests"]
            print("$", " ".join(cmd), f"(in {proj})")
            subprocess.run(cmd, cwd=proj, capture_output=True)
        script = (
            "import json,sys\nfrom coverage import CoverageData\n"
            "d=CoverageData(sys.argv[1]); d.read()\n"
            "print(json.dumps({f: {str(k): v for k, v in d.contexts_by_lineno(f).items()} for f in d.measured_files()}))"
        )
        by_line = json.loads(sh([py, "-c", script, os.path.join(proj, ".coverage")]).stdout)
        db = os.path.join(tmp, "index.db")
        sh([binary, "-q", "index", proj, "--db", db])
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        rows = conn.execute(
            "SELECT n.key, f.path, n.start_line, n.end_line FROM nodes n JOIN files f ON f.id = n.file_id "
            "WHERE (n.kind = 'function' OR n.kind = 'method') AND f.path LIKE ? ORDER BY n.id",
            (f"{pkg}/%.py",),
        ).fetchall()
        truth: dict[str, set[str]] = {}
        for key, path, s, e in rows:
            lines = by_line.get(os.path.join(os.path.realpath(proj), path)) or by_line.get(os.path.join(proj, path)) or {}
            tests = set()
            for ln in range(s + 1, e + 1):
                for ctx in lines.get(str(ln), []):
                    if ctx:
                        tests.add(ctx.split("|")[0])
            if tests:
                truth[key] = tests
        keys = sorted(truth)
        random.Random(16).shuffle(keys)
        keys = keys[: a.sample]
        print(f"corpus: {a.cov_package} ({proj}); {len(rows)} functions in {pkg}/, {len(truth)} executed by a test; sample {len(keys)}")
        for depth in a.depths.split(","):
            p = subprocess.Popen([binary, "serve", proj, "--db", db], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

            def req(i: int, method: str, params: dict) -> dict:
                assert p.stdin and p.stdout
                p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
                p.stdin.flush()
                while True:
                    msg = json.loads(p.stdout.readline())
                    if msg.get("id") == i:
                        return msg

            req(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
            assert p.stdin
            p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
            p.stdin.flush()
            hit = listed_n = truth_n = hit_sure = listed_sure = 0
            per_fn = []
            misses = []
            t0 = time.perf_counter()
            for i, key in enumerate(keys):
                args = {"target": key, "budget_tokens": 1_000_000}
                if depth != "default":
                    args["depth"] = int(depth)
                r = req(i + 1, "tools/call", {"name": "get_impact", "arguments": args})
                sc = r["result"].get("structuredContent") or {}
                all_tests = sc.get("tests", [])
                listed = {f"{t['file']}::{t['test']}" for t in all_tests if t.get("test")}
                listed_files = {t["file"] for t in all_tests if not t.get("test")}
                sure = {f"{t['file']}::{t['test']}" for t in all_tests if t.get("test") and t.get("trusted")}
                sure_files = {t["file"] for t in all_tests if not t.get("test") and t.get("trusted")}
                want = truth[key]
                # A parametrized test runs as one context per parameter set
                # (`test_roundtrip[http://...]`); listing its function lists them all.
                got = {t for t in want if t.split("[")[0] in listed or t.split("::")[0] in listed_files}
                got_sure = {t for t in want if t.split("[")[0] in sure or t.split("::")[0] in sure_files}
                hit += len(got)
                hit_sure += len(got_sure)
                truth_n += len(want)
                listed_n += len(listed) + len(listed_files)
                listed_sure += len(sure) + len(sure_files)
                per_fn.append(len(got) / len(want))
                if len(got) < len(want):
                    misses.append((len(want) - len(got), key))
            elapsed = time.perf_counter() - t0
            p.terminate()
            prec_hits = hit  # each listed test that executed the function is counted once in hit
            print(
                f"get_impact depth {depth}: recall {hit / truth_n:.3f} ({hit}/{truth_n} test-function pairs), "
                f"mean per function {statistics.mean(per_fn):.3f}, functions fully covered {sum(1 for x in per_fn if x == 1.0)}/{len(per_fn)}; "
                f"precision {prec_hits / max(listed_n, 1):.3f} ({prec_hits}/{listed_n} listed); {elapsed / len(keys) * 1000:.1f} ms per call"
            )
            print(
                f"  trusted tests only: recall {hit_sure / truth_n:.3f} ({hit_sure}/{truth_n}), "
                f"precision {hit_sure / max(listed_sure, 1):.3f} ({hit_sure}/{listed_sure} listed)"
            )
            for n, key in sorted(misses, reverse=True)[:5]:
                print(f"  most missed: {key} ({n} tests not listed)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", default="rich")
    ap.add_argument("--old", default="13.6.0")
    ap.add_argument("--new", default="13.7.0")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--coverage", action="store_true")
    ap.add_argument("--cov-package", default="more-itertools")
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--project-dir")
    ap.add_argument("--python", help="the interpreter with coverage installed (with --project-dir)")
    ap.add_argument("--depths", default="default,3,6",
                    help="comma-separated depth arguments of get_impact; 'default' sends none (the tool's default)")
    a = ap.parse_args()
    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"no binary at {binary}; cargo build --release first")
    if a.coverage:
        coverage_recall(a, binary)
        return
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
