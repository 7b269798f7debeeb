"""Tests-to-run recall of `get_impact` on a JavaScript project, against V8 coverage per
test file (the JS counterpart of `bench/impact.py --coverage`).

What it measures: for a sample of the project's functions (seeded, at most --sample)
that some test file executed, whether the tests `get_impact` lists (reduced to their
files) contain the test files that executed the function (recall: pooled over
(function, test file) pairs, and the mean per function), and how many of the listed
test files did execute it (precision). Depth 3 (the tool's default) and 6, as in the
Python part; the figures are given for every listed test and for the trusted ones only.

How:
1. `npm pack PKG@VERSION` into a temporary directory (never committed); the tarball must
   ship its tests. `npm install --ignore-scripts` there (dependencies and
   devDependencies). When the registry lacks a declared devDependency version, the
   install is retried with only the devDependencies the test files `require`/`import`.
2. Each test file (--tests glob, default `test/*.js`, the tape convention of ljharb's
   packages) runs alone: `NODE_V8_COVERAGE=DIR node FILE` (child processes write there
   too). A test file that fails still counts for what it executed.
3. The truth: V8's precise coverage lists every function of a loaded script with its
   call count (`ranges[0]`, offsets in UTF-16 units of the source). A function node of
   the index (`nodes` table, kind function/method, outside test files; its byte range
   converted to UTF-16 offsets) is matched to the outermost V8 function inside its
   range; it was executed by the test file when that count is > 0.
4. `constellation index`, then `get_impact` over MCP (benchlib.McpServer) per sampled
   function with the tool's default depth, 3 and 6 (`--depths`) and a budget that cuts
   nothing (the tests are searched to depth 10 whatever the depth); the listed tests (test
   functions and test files alike) are reduced to their files.

Granularity: per test file. JS runners have no per-test coverage contexts, and
`get_impact` names a JS test by its file (tape/Jest/Mocha tests are anonymous
callbacks, so the index has no test function to name); a finer truth could not be
compared with a finer answer.

Each miss gets a reason read from the index, at the function itself when nothing calls
it, else at the uncalled functions up its chain (where the chain breaks): its module is
required but `require('./x')` resolves to the `x.d.ts` beside `x.js`; it is
`module.exports = function f`, called through a `require` binding; a prototype method
called on an instance of unknown type; its name is used as a value (a callback, an
object property); no resolved caller otherwise. Or the depth limit cut the chain, or the
chain leads to other test files only.

Usage: python3 bench/impact_js.py [--js-package resolve] [--js-version 1.22.10]
                                  [--tests 'test/*.js'] [--sample 200] [--keep DIR]
e.g.   python3 bench/impact_js.py --js-package qs --js-version 6.14.0 --tests 'test/**/*.js'
(The registry may lag the newest release's devDependencies: the defaults name versions
that install.)
Needs node and npm; CONSTELLATION_BIN or target/release/constellation.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter

from benchlib import McpServer, constellation_bin, die

NPM = ["npm", "--no-audit", "--no-fund", "--loglevel=error"]


def run(args: list[str], cwd: str | None = None, check: bool = True, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, check=check, capture_output=True, text=True, **kw)


def is_test_path(path: str) -> bool:
    """The JS test-file convention Constellation uses (src/tools/test_files.rs)."""
    parts = path.split("/")
    name = parts[-1].split(".")
    return (len(name) > 2 and name[-2] in ("test", "spec")) or any(d in ("test", "tests", "__tests__") for d in parts[:-1])


def fetch(spec: str, tmp: str) -> str:
    """Downloads and unpacks the npm tarball of `spec`; answers the project directory."""
    dl = os.path.join(tmp, "dl")
    os.makedirs(dl)
    cmd = NPM + ["pack", spec, "--pack-destination", dl]
    print("$", " ".join(cmd))
    run(cmd, cwd=dl)
    tgz = os.path.join(dl, os.listdir(dl)[0])
    with tarfile.open(tgz) as t:
        t.extractall(os.path.join(tmp, "x"), filter="data")
    proj = os.path.join(tmp, "proj")
    shutil.move(os.path.join(tmp, "x", "package"), proj)
    return os.path.realpath(proj)


REQUIRE = re.compile(r"""(?:require\(\s*|\bfrom\s+|\bimport\s+)['"]([^'"./][^'"]*)['"]""")


def install(proj: str, tests: list[str]) -> None:
    cmd = NPM + ["install", "--ignore-scripts", "--no-package-lock"]
    print("$", " ".join(cmd))
    r = run(cmd, cwd=proj, check=False)
    if r.returncode == 0:
        return
    err = [l for l in r.stderr.splitlines() if "notarget" in l or "code" in l][:2] or [f"exit {r.returncode}"]
    print(f"  failed ({'; '.join(err)}); "
          "retrying with only the devDependencies the test files load")
    needed = set()
    for t in tests:
        with open(os.path.join(proj, t), encoding="utf-8", errors="replace") as f:
            for m in REQUIRE.finditer(f.read()):
                spec = m.group(1)
                needed.add("/".join(spec.split("/")[:2]) if spec.startswith("@") else spec.split("/")[0])
    with open(os.path.join(proj, "package.json")) as f:
        pkg = json.load(f)
    dev = pkg.get("devDependencies", {})
    pkg["devDependencies"] = {k: v for k, v in dev.items() if k in needed}
    with open(os.path.join(proj, "package.json"), "w") as f:
        json.dump(pkg, f, indent=2)
    print(f"  devDependencies kept: {sorted(pkg['devDependencies'])}")
    run(cmd, cwd=proj)


def run_tests(proj: str, tests: list[str], covroot: str, timeout: int) -> dict[str, list[dict]]:
    """Runs each test file alone under NODE_V8_COVERAGE; answers its V8 script coverages."""
    out: dict[str, list[dict]] = {}
    for i, t in enumerate(tests):
        d = os.path.join(covroot, str(i))
        env = dict(os.environ, NODE_V8_COVERAGE=d)
        t0 = time.perf_counter()
        try:
            r = subprocess.run(["node", t], cwd=proj, env=env, capture_output=True, text=True, timeout=timeout)
            status = "ok" if r.returncode == 0 else f"exit {r.returncode}"
        except subprocess.TimeoutExpired:
            status = f"timeout {timeout}s"
        scripts = []
        for p in sorted(glob.glob(os.path.join(d, "*.json"))):
            with open(p) as f:
                scripts.extend(json.load(f).get("result", []))
        out[t] = scripts
        print(f"  {t}: {status}, {time.perf_counter() - t0:.1f}s, {len(scripts)} scripts")
    return out


def utf16_offsets(data: bytes) -> list[int]:
    """For each byte offset of `data` (and its end), the UTF-16 offset of the text before it."""
    res = [0] * (len(data) + 1)
    u = 0
    i = 0
    while i < len(data):
        b = data[i]
        n = 1 if b < 0x80 else 2 if b >> 5 == 6 else 3 if b >> 4 == 14 else 4 if b >> 3 == 30 else 1
        for k in range(n):
            if i + k < len(data):
                res[i + k] = u
        u += 2 if n == 4 else 1
        i += n
    res[len(data)] = u
    return res


def truth_of(proj: str, db: str, cov: dict[str, list[dict]]) -> tuple[list[tuple], dict[str, set[str]], int, int]:
    """The function nodes outside test files, for each node key the test files that
    called it at least once, and how many of the nodes lie in a file some test loaded
    and have no V8 function inside their range (a check of the matching: 0 expected)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = [
        r
        for r in conn.execute(
            "SELECT n.key, n.name, f.path, n.start_line, n.start_byte, n.end_byte FROM nodes n "
            "JOIN files f ON f.id = n.file_id WHERE n.kind IN ('function', 'method') ORDER BY n.id"
        )
        if not is_test_path(r[2]) and re.search(r"\.(c|m)?[jt]sx?$", r[2]) and not re.search(r"\.d\.[cm]?ts$", r[2])
    ]
    # per test file, per absolute path: [(start16, end16, count)]
    fns: dict[str, dict[str, list[tuple[int, int, int]]]] = {}
    for t, scripts in cov.items():
        per = fns.setdefault(t, {})
        for s in scripts:
            url = s.get("url", "")
            if not url.startswith("file://"):
                continue
            path = os.path.realpath(url[len("file://"):])
            for fn in s["functions"]:
                r0 = fn["ranges"][0]
                per.setdefault(path, []).append((r0["startOffset"], r0["endOffset"], r0["count"]))
    offsets: dict[str, list[int]] = {}
    truth: dict[str, set[str]] = {}
    loaded = {p for per in fns.values() for p in per}
    matched: set[str] = set()
    for key, _name, path, _line, sb, eb in rows:
        absp = os.path.join(proj, path)
        if absp not in offsets:
            with open(absp, "rb") as f:
                offsets[absp] = utf16_offsets(f.read())
        off = offsets[absp]
        s16, e16 = off[min(sb, len(off) - 1)], off[min(eb, len(off) - 1)]
        for t, per in fns.items():
            inside = [(e - s, c) for s, e, c in per.get(absp, []) if s >= s16 and e <= e16]
            if not inside:
                continue
            matched.add(key)
            width = max(w for w, _ in inside)
            if any(c > 0 for w, c in inside if w == width):
                truth.setdefault(key, set()).add(t)
    in_loaded = [r[0] for r in rows if os.path.join(proj, r[2]) in loaded]
    return rows, truth, len(in_loaded), sum(1 for k in in_loaded if k not in matched)


DTS = "its module is required, but require('./x') resolves to the x.d.ts beside x.js"
EXPORT = "module.exports = function NAME, called through a require binding (call unresolved)"
PROTO = "a prototype method (X.prototype.m = function) called on an instance of unknown type"
VALUE = "used as a value (a callback, or an object property called through the object)"
UNRESOLVED = "no resolved caller (a dynamic or unresolved call)"


def no_caller_reason(conn: sqlite3.Connection, proj: str, name: str, path: str, signature: str) -> str:
    """Why nothing in the index calls the function `name` of `path` (it was called at run time)."""
    exported = conn.execute(
        "SELECT 1 FROM refs r JOIN files f ON f.id = r.file_id WHERE f.path = ? AND r.kind = 'export' AND r.qualifier = ?",
        (path, name),
    ).fetchone()
    stem, ext = os.path.splitext(path)
    dts = stem + {".mjs": ".d.mts", ".cjs": ".d.cts"}.get(ext, ".d.ts")
    if exported and conn.execute("SELECT 1 FROM file_imports WHERE dst_path = ?", (dts,)).fetchone():
        return DTS
    if signature.startswith("module.exports ="):
        return EXPORT
    if ".prototype." in signature.split("=")[0]:
        return PROTO
    with open(os.path.join(proj, path), encoding="utf-8", errors="replace") as f:
        src = f.read()
    values = [
        m
        for m in re.finditer(rf"(?<![\w.$]){re.escape(name)}(?![\w$])", src)
        if not re.match(r"\s*\(", src[m.end():]) and not src[max(0, m.start() - 9):m.start()].endswith("function ")
    ]
    return VALUE if values else UNRESOLVED


def node_of(conn: sqlite3.Connection, key: str) -> tuple[str, str, str, str] | None:
    return conn.execute(
        "SELECT n.kind, n.name, f.path, coalesce(n.signature, '') FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.key = ?", (key,)
    ).fetchone()


def has_callers(conn: sqlite3.Connection, key: str) -> bool:
    return conn.execute(
        "SELECT 1 FROM edges e JOIN nodes n ON n.id = e.dst_id WHERE n.key = ? AND e.kind <> 'contains' LIMIT 1", (key,)
    ).fetchone() is not None


def reason(conn: sqlite3.Connection, proj: str, key: str, sc: dict, depth: int) -> tuple[str, str]:
    """Why `get_impact` misses a test file that executed `key`, read from the index and
    the source: (category, detail). The reason at the function itself when nothing calls
    it, else at the functions up its chain that nothing calls (where the chain breaks),
    else the depth limit, else the chain leads elsewhere."""
    _, name, path, signature = node_of(conn, key) or ("", "", "", "")
    if not (sc.get("dependents_total", 0) or sc.get("possible_total", 0)):
        return "itself: " + no_caller_reason(conn, proj, name, path, signature), ""
    deps = [d for g in sc.get("files", []) + sc.get("possible", []) for d in g.get("dependents", [])]
    roots: dict[str, list[str]] = {}
    for d in deps:
        n = node_of(conn, d["node_id"])
        if n and n[0] in ("function", "method") and not has_callers(conn, d["node_id"]):
            roots.setdefault(no_caller_reason(conn, proj, n[1], n[2], n[3]), []).append(n[1])
    if roots:
        return "upstream: " + " / ".join(sorted(roots)), "chain breaks at " + ", ".join(sorted({x for v in roots.values() for x in v}))
    if any(d.get("depth") == depth for d in deps):
        return "its chain is cut by the depth limit", ""
    return "its chain reaches other test files only (through file imports)", ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--js-package", default="resolve")
    ap.add_argument("--js-version", default="1.22.10",
                    help="a version whose devDependencies the registry serves (resolve 1.22.10 installs whole)")
    ap.add_argument("--tests", default="test/*.js", help="glob of the test files, relative to the package")
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--depths", default="default,3,6",
                    help="comma-separated depth arguments of get_impact; 'default' sends none (the tool's default)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per test file")
    ap.add_argument("--keep", help="copy the project (with coverage and index) here instead of deleting it")
    a = ap.parse_args()
    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"no binary at {binary}; cargo build --release first")
    for tool in ("node", "npm"):
        if not shutil.which(tool):
            die(f"{tool} not found")
    print("$ python3 bench/impact_js.py " + shlex.join(sys.argv[1:]))
    tmp = tempfile.mkdtemp(prefix="impact-js-")
    try:
        proj = fetch(f"{a.js_package}@{a.js_version}", tmp)
        tests = sorted(os.path.relpath(p, proj) for p in glob.glob(os.path.join(proj, a.tests), recursive=True))
        if not tests:
            die(f"no file matches {a.tests} in the tarball of {a.js_package}@{a.js_version}: it does not ship its tests")
        install(proj, tests)
        print(f"$ NODE_V8_COVERAGE=DIR node FILE  (each of {len(tests)} files matching {a.tests}, in {a.js_package}'s directory)")
        cov = run_tests(proj, tests, os.path.join(tmp, "cov"), a.timeout)
        db = os.path.join(tmp, "index.db")
        run([binary, "-q", "index", proj, "--db", db])
        rows, truth, in_loaded, unmatched = truth_of(proj, db, cov)
        keys = sorted(truth)
        random.Random(16).shuffle(keys)
        keys = keys[: a.sample]
        files_hit = Counter(t for k in truth for t in truth[k])
        print(
            f"corpus: {a.js_package} {a.js_version}; {len(rows)} functions outside test files ({in_loaded} in files the tests loaded, {unmatched} of them without a V8 function), "
            f"{len(truth)} executed by a test file; "
            f"{len(tests)} test files ({len(files_hit)} executed some); sample {len(keys)} (seed 16)"
        )
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        server = McpServer(binary, proj, db, "impact-js")
        try:
            for depth in a.depths.split(","):
                stats = {"all": [0, 0, 0, []], "trusted": [0, 0, 0, []]}  # hit, truth, listed, per-function
                misses = []
                reasons: Counter = Counter()
                outside: Counter = Counter()
                t0 = time.perf_counter()
                for key in keys:
                    args = {"target": key, "budget_tokens": 1_000_000}
                    if depth != "default":
                        args["depth"] = int(depth)
                    sc = server.call("get_impact", args).get("structuredContent") or {}
                    want = truth[key]
                    for label, only_trusted in (("all", False), ("trusted", True)):
                        listed = {t["file"] for t in sc.get("tests", []) if t.get("trusted") or not only_trusted}
                        got = want & listed
                        s = stats[label]
                        s[0] += len(got)
                        s[1] += len(want)
                        s[2] += len(listed)
                        s[3].append(len(got) / len(want))
                        if label == "all":
                            outside.update(listed - set(tests))
                            if got != want:
                                # The tests are searched to depth 10: the reason is read from
                                # the dependents to that depth.
                                full = server.call("get_impact", {"target": key, "depth": 10, "budget_tokens": 1_000_000}).get("structuredContent") or {}
                                why, detail = reason(conn, proj, key, full, 10)
                                reasons[why] += len(want - got)
                                detail += ("; " if detail else "") + "not listed: " + ", ".join(sorted(want - got))
                                misses.append((len(want - got), len(want), key, why + f" ({detail})"))
                elapsed = time.perf_counter() - t0
                for label, (hit, n, listed_n, per_fn) in stats.items():
                    print(
                        f"get_impact depth {depth} ({label} listed tests): recall {hit / n:.3f} ({hit}/{n} function-test file pairs), "
                        f"mean per function {statistics.mean(per_fn):.3f}, functions fully covered {sum(1 for x in per_fn if x == 1.0)}/{len(per_fn)}, "
                        f"none listed {sum(1 for x in per_fn if x == 0.0)}; precision {f'{hit / listed_n:.3f}' if listed_n else 'n/a'} ({hit}/{listed_n} listed)"
                    )
                print(f"  {elapsed / len(keys) * 1000:.1f} ms per call")
                for why, n in reasons.most_common():
                    print(f"  missed pairs: {n:4d}  {why}")
                if outside:
                    print(f"  listed files that are not run as tests (fixtures by the path convention): {dict(outside)}")
                for n, of, key, why in sorted(misses, key=lambda m: (-m[0], m[2]))[:8]:
                    print(f"  most missed: {key} ({n} of {of} test files not listed): {why}")
        finally:
            server.close()
        if a.keep:
            shutil.copytree(tmp, a.keep, symlinks=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
