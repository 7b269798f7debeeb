#!/usr/bin/env python3
"""Exactness and speed of incremental indexing: after each of N random edits, the
incremental index must equal a build from nothing of the same tree, row for row.

What it measures:
  1. Copies a corpus (default: the Python standard library, sysconfig "stdlib", without
     site-packages, __pycache__ and *.pyc) into a temporary directory and indexes it.
  2. Applies --edits random edits chosen with --seed, one at a time. Kinds: append a
     top-level function; delete a top-level function; rename a function or method;
     change a def's return annotation or parameters; add or remove an import or a
     `from x import y`; edit only a function body; add a method to a class; change a
     class's bases; delete a file; add a new module; and edits of a file many others
     import (os.py, typing.py, collections/__init__.py: an appended function, a changed
     signature, a new import).
  3. After each edit: `constellation index ROOT --db INC --json` (incremental; wall ms,
     resolveMs and refsResolved from its JSON), then `constellation index ROOT --db FULL
     --full --json` into a fresh database, and compares canonical dumps of both. The dump
     keys no row by its id: files (path, language, status, digest, interface), nodes
     (key, file, kind, names, signature, lines, bytes, parent key), refs (file, enclosing
     node key, kind, form, name, qualifier, line, column, receiver type, bindings, flags,
     status, candidates) and edges (source key, target key, kind, file, line, confidence,
     provenance, and the reference it resolves by its own key). Each table is compared as
     a multiset through a digest; when digests differ, the differing rows are listed.

With --targets hot:20,random:20 the edits go to chosen files instead: first the 20
files with the most definitions referenced from other files (by the initial index:
distinct symbols of the file that an edge from another file points at), then 20 other
.py files drawn at random; each gets one edit of a random kind that applies to it (an
appended function, a deleted one, a rename, a signature, an import added or removed, a
body, a method, bases). The summary gives p50/p95 per group and overall.

With --served the incremental index is kept by a running `constellation serve ROOT --db
INC` (its file watch on) instead of `constellation index`: after each edit the bench
polls `get_status` until the generation moved and nothing is pending, and takes the
time of the run that picked the edit up from the `index_runs` row it wrote
(`duration_ms`: the run itself, stat to commit), besides the latency from the write to
the poll that saw it (an upper bound, polled every 5 ms).

--pypi NAME==VERSION downloads that sdist from PyPI into the temporary directory and
uses it as the corpus (for example django==5.1.4, 6,900 files).

How to run (after `cargo build --release`):

    python3 bench/incremental_equal.py [--corpus DIR | --pypi NAME==VERSION] [--edits 40]
                                       [--seed 20] [--targets hot:20,random:20] [--served]
                                       [--keep] [--no-compare]

--no-compare skips the full builds and the comparison: only the incremental figures
(to time an older binary on the same edits, which a seed makes the same).

The binary is $CONSTELLATION_BIN, else target/release/constellation of this repository.
The corpus is copied, never edited in place.

What it prints: the corpus and its file count, the initial build time, then one line
per edit (number, kind, file, equal or MISMATCH, incremental wall ms, resolveMs, refs
re-resolved), and at the end p50/p95/max incremental wall ms, p50/p95 resolveMs, the
median refs re-resolved and the number of mismatching edits, with the first differing
rows of each (at most 10 per table).
Exit status: 0 when every incremental index equalled the full build, 1 on any mismatch,
2 on a setup error (a command failed, no corpus).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter

from benchlib import McpServer, constellation_bin, die, fetch_sdist, unpack

# The canonical dump: one query per table, each row keyed by stable names, not ids.
DUMP = {
    "files": """
        SELECT path, language, status, digest, interface FROM files""",
    "nodes": """
        SELECT n.key, f.path, n.kind, n.name, n.qualified_name, n.signature,
               n.start_line, n.end_line, n.start_byte, n.end_byte, p.key
        FROM nodes n JOIN files f ON f.id = n.file_id
        LEFT JOIN nodes p ON p.id = n.parent_id""",
    "refs": """
        SELECT f.path, s.key, r.kind, r.form, r.name, r.qualifier, r.line, r.col,
               r.receiver_type, r.bindings, r.flags, r.status, r.candidates
        FROM refs r JOIN files f ON f.id = r.file_id
        LEFT JOIN nodes s ON s.id = r.src_id""",
    "edges": """
        SELECT s.key, d.key, e.kind, f.path, e.line, round(e.confidence, 6), e.provenance,
               rf.path, r.kind, r.name, r.line, r.col
        FROM edges e JOIN files f ON f.id = e.file_id
        LEFT JOIN nodes s ON s.id = e.src_id
        LEFT JOIN nodes d ON d.id = e.dst_id
        LEFT JOIN refs r ON r.id = e.ref_id
        LEFT JOIN files rf ON rf.id = r.file_id""",
}

HUBS = ["os.py", "typing.py", "collections/__init__.py"]


def stdlib_dir() -> str:
    return sysconfig.get_paths()["stdlib"]


def run_index(binary: str, root: str, db: str, full: bool) -> dict:
    """Runs one index; returns its JSON report with `wallMs` added."""
    cmd = [binary, "index", root, "--db", db, "--json"] + (["--full"] if full else [])
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = (time.monotonic() - t0) * 1000
    if proc.returncode != 0:
        die(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    report = json.loads(proc.stdout)
    report["wallMs"] = wall
    return report


def table_digest(conn: sqlite3.Connection, sql: str) -> tuple[str, int]:
    """A digest of the table's rows as a multiset (the order of rows does not count)."""
    h = hashlib.sha256()
    n = 0
    ncols = len(conn.execute(sql + " LIMIT 0").description)
    order = ",".join(str(i) for i in range(1, ncols + 1))
    for row in conn.execute(f"SELECT * FROM ({sql}) ORDER BY {order}"):
        h.update(repr(row).encode())
        h.update(b"\n")
        n += 1
    return h.hexdigest(), n


def compare(inc_db: str, full_db: str) -> dict[str, list[str]]:
    """Tables whose dumps differ, each with its first differing rows ('-' only in the
    incremental index, '+' only in the full build)."""
    a, b = sqlite3.connect(inc_db), sqlite3.connect(full_db)
    out: dict[str, list[str]] = {}
    try:
        for table, sql in DUMP.items():
            if table_digest(a, sql) == table_digest(b, sql):
                continue
            ra, rb = Counter(a.execute(sql)), Counter(b.execute(sql))
            lines = [f"- {row!r}" for row in sorted((ra - rb).elements(), key=repr)[:10]]
            lines += [f"+ {row!r}" for row in sorted((rb - ra).elements(), key=repr)[:10]]
            if lines:
                out[table] = lines
    finally:
        a.close()
        b.close()
    return out


def py_files(root: str) -> list[str]:
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            if f.endswith(".py"):
                out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def read(root: str, rel: str) -> str:
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def write(root: str, rel: str, text: str) -> None:
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    old = os.stat(path).st_mtime_ns if os.path.exists(path) else time.time_ns()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    # A distinct modification time even when the size stays and the clock is coarse.
    stamp = max(old + 1_000_000_000, time.time_ns())
    os.utime(path, ns=(stamp, stamp))


def parse(root: str, rel: str) -> tuple[str, ast.Module] | None:
    try:
        text = read(root, rel)
        return text, ast.parse(text)
    except (SyntaxError, UnicodeDecodeError, ValueError, RecursionError):
        return None


def first_line(node: ast.AST) -> int:
    """1-based first line of a definition, decorators included."""
    decos = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decos])


def defs(tree: ast.Module, methods: bool) -> list[ast.AST]:
    out: list[ast.AST] = []
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(n)
        elif methods and isinstance(n, ast.ClassDef):
            out += [m for m in n.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


DEF_LINE = re.compile(r"^(\s*(?:async\s+)?def\s+)(\w+)(\s*\()(.*)(\))(\s*->\s*[^:]+)?(\s*:.*)$")
CLASS_LINE = re.compile(r"^(class\s+)(\w+)(\s*\(([^)]*)\))?(\s*:.*)$")


class Editor:
    """Random edits of a Python tree; each returns (kind, file) or None when the chosen
    file offers nothing of that kind (the caller draws again)."""

    def __init__(self, root: str, rng: random.Random):
        self.root = root
        self.rng = rng
        self.n = 0
        self.files = py_files(root)

    def pick(self, hub: bool = False) -> str:
        if hub:
            hubs = [h for h in HUBS if h in self.files]
            if hubs:
                return self.rng.choice(hubs)
        return self.rng.choice(self.files)

    def uid(self) -> str:
        self.n += 1
        return f"ce{self.n}"

    def lines_of(self, rel: str) -> tuple[list[str], ast.Module] | None:
        parsed = parse(self.root, rel)
        if parsed is None:
            return None
        text, tree = parsed
        return text.splitlines(keepends=True), tree

    def put(self, rel: str, lines: list[str]) -> None:
        write(self.root, rel, "".join(lines))

    def append_function(self, rel: str):
        got = self.lines_of(rel)
        if got is None:
            return None
        lines, tree = got
        # Half the time a name other files already use (the first top-level name of
        # another module, or a common one), so references that found nothing may now.
        names = ["join", "run", "main", "get", "open", "loads", "make", f"f_{self.uid()}"]
        name = self.rng.choice(names)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines.append(f"\n\ndef {name}(x, y=None) -> int:\n    return len(x)\n")
        self.put(rel, lines)
        return "append_function"

    def delete_function(self, rel: str):
        got = self.lines_of(rel)
        if got is None:
            return None
        lines, tree = got
        fs = defs(tree, methods=False)
        if not fs:
            return None
        f = self.rng.choice(fs)
        del lines[first_line(f) - 1 : f.end_lineno]
        self.put(rel, lines)
        return "delete_function"

    def one_def(self, rel: str):
        """A random one-line `def` (function or method) of `rel`: (lines, tree, node, its
        line index), or None when the file has none."""
        got = self.lines_of(rel)
        if got is None:
            return None
        lines, tree = got
        fs = [f for f in defs(tree, methods=True) if DEF_LINE.match(lines[f.lineno - 1].rstrip("\n"))]
        if not fs:
            return None
        f = self.rng.choice(fs)
        return lines, tree, f, f.lineno - 1

    def rename(self, rel: str):
        got = self.one_def(rel)
        if got is None:
            return None
        lines, _, f, i = got
        lines[i] = re.sub(rf"\bdef\s+{f.name}\b", f"def {f.name}_{self.uid()}", lines[i], count=1)
        self.put(rel, lines)
        return "rename"

    def signature(self, rel: str):
        got = self.one_def(rel)
        if got is None:
            return None
        lines, tree, f, i = got
        m = DEF_LINE.match(lines[i].rstrip("\n"))
        assert m
        classes = [c.name for c in tree.body if isinstance(c, ast.ClassDef)]
        ret = self.rng.choice(classes + ["int", "str", "dict"]) if classes else self.rng.choice(["int", "str"])
        params = m.group(4)
        if self.rng.random() < 0.3:
            params = (params + ", " if params.strip() else "") + "extra=None"
        lines[i] = f"{m.group(1)}{m.group(2)}{m.group(3)}{params}{m.group(5)} -> {ret}{m.group(7)}\n"
        self.put(rel, lines)
        return "signature"

    def add_import(self, rel: str):
        got = self.lines_of(rel)
        if got is None:
            return None
        lines, tree = got
        imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        at = max((n.end_lineno for n in imports), default=0)
        choice = self.rng.choice(
            [
                "import json\n",
                "import os.path\n",
                "from os import path as _p\n",
                "from collections import OrderedDict, namedtuple\n",
                "from typing import *\n",
                "from functools import partial, wraps\n",
                "from re import compile\n",
            ]
        )
        if at and not lines[at - 1].endswith("\n"):
            lines[at - 1] += "\n"
        lines.insert(at, choice)
        self.put(rel, lines)
        return "add_import"

    def remove_import(self, rel: str):
        got = self.lines_of(rel)
        if got is None:
            return None
        lines, tree = got
        imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        if not imports:
            return None
        n = self.rng.choice(imports)
        del lines[n.lineno - 1 : n.end_lineno]
        self.put(rel, lines)
        return "remove_import"

    def body(self, rel: str):
        got = self.lines_of(rel)
        if got is None:
            return None
        lines, tree = got
        fs = [f for f in defs(tree, methods=True) if f.body and f.body[0].lineno > f.lineno]
        if not fs:
            return None
        f = self.rng.choice(fs)
        last = f.body[-1]
        indent = " " * last.col_offset
        lines.insert(first_line(last) - 1, f"{indent}_ce = len(str(join))  # edited\n")
        self.put(rel, lines)
        return "body"

    def add_method(self, rel: str):
        got = self.lines_of(rel)
        if got is None:
            return None
        lines, tree = got
        cs = [c for c in tree.body if isinstance(c, ast.ClassDef) and c.body[0].lineno > c.lineno]
        if not cs:
            return None
        c = self.rng.choice(cs)
        indent = " " * c.body[0].col_offset
        name = self.rng.choice(["close", "run", "get", "__init__", "read", f"m_{self.uid()}"])
        if not lines[c.end_lineno - 1].endswith("\n"):
            lines[c.end_lineno - 1] += "\n"
        lines.insert(c.end_lineno, f"\n{indent}def {name}(self, *args):\n{indent}    return self\n")
        self.put(rel, lines)
        return "add_method"

    def bases(self, rel: str):
        got = self.lines_of(rel)
        if got is None:
            return None
        lines, tree = got
        cs = [c for c in tree.body if isinstance(c, ast.ClassDef) and CLASS_LINE.match(lines[c.lineno - 1].rstrip("\n"))]
        if not cs:
            return None
        c = self.rng.choice(cs)
        m = CLASS_LINE.match(lines[c.lineno - 1].rstrip("\n"))
        assert m
        others = [x.name for x in tree.body if isinstance(x, ast.ClassDef) and x.name != c.name and x.lineno < c.lineno]
        new = self.rng.choice(others + ["dict", "Exception", "object", ""])
        bases = f"({new})" if new else ""
        lines[c.lineno - 1] = f"{m.group(1)}{m.group(2)}{bases}{m.group(5)}\n"
        self.put(rel, lines)
        return "bases"

    def delete_file(self, rel: str):
        if rel in HUBS or rel.endswith("__init__.py"):
            return None
        os.remove(os.path.join(self.root, rel))
        self.files.remove(rel)
        return "delete_file"

    def add_module(self, rel: str):
        d = os.path.dirname(rel)
        # A name others import or could: a module of the same package under a new name.
        name = self.rng.choice(["util", "helpers", "compat", "_ce_" + self.uid()])
        new = os.path.join(d, f"{name}.py")
        if os.path.exists(os.path.join(self.root, new)):
            return None
        write(
            self.root,
            new,
            "import os\nfrom os import path\n\n\ndef join(a, b):\n    return os.path.join(a, b)\n\n\n"
            "class Helper(dict):\n    def get(self, k):\n        return join(k, k)\n\n\n"
            "def make() -> Helper:\n    return Helper()\n",
        )
        self.files.append(new)
        return "add_module", new

    def hub(self, _rel: str):
        rel = self.pick(hub=True)
        kind = self.rng.choice([self.append_function, self.signature, self.add_import, self.add_method])
        got = kind(rel)
        return (f"hub_{got}", rel) if got else None

    def file_kinds(self) -> list:
        """The edits that change one given file's contents."""
        return [
            self.append_function,
            self.delete_function,
            self.rename,
            self.signature,
            self.add_import,
            self.remove_import,
            self.body,
            self.add_method,
            self.bases,
        ]

    def edit(self):
        kinds = self.file_kinds() + [self.delete_file, self.add_module, self.hub]
        for _ in range(200):
            kind = self.rng.choice(kinds)
            rel = self.pick()
            got = kind(rel)
            if got is None:
                continue
            if isinstance(got, tuple):
                return got
            return got, rel
        die("no edit applied after 200 draws")

    def edit_file(self, rel: str):
        """One edit of `rel` of a random kind that applies to it; None when none does."""
        kinds = self.file_kinds()
        self.rng.shuffle(kinds)
        for kind in kinds:
            got = kind(rel)
            if got is not None:
                return got
        return None


HOT_SQL = """
    SELECT f.path, count(DISTINCT d.id) AS referenced
    FROM edges e JOIN nodes d ON d.id = e.dst_id JOIN files f ON f.id = d.file_id
    WHERE e.kind IN ('calls', 'references', 'inherits', 'implements')
      AND e.file_id <> d.file_id AND d.kind <> 'file' AND f.path LIKE '%.py'
    GROUP BY f.id ORDER BY referenced DESC, f.path LIMIT ?"""


def targets(spec: str, db: str, files: list[str], rng: random.Random) -> list[tuple[str, str]]:
    """(group, file) pairs for `hot:N,random:M`."""
    out: list[tuple[str, str]] = []
    for part in spec.split(","):
        group, _, n = part.partition(":")
        count = int(n or 20)
        if group == "hot":
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            hot = [p for p, _ in conn.execute(HOT_SQL, (count,))]
            conn.close()
            out += [("hot", p) for p in hot]
        elif group == "random":
            taken = {p for _, p in out}
            pool = [p for p in files if p not in taken]
            out += [("random", p) for p in rng.sample(pool, min(count, len(pool)))]
        else:
            die(f"--targets: unknown group {group!r} (hot:N or random:M)")
    return out


class Served:
    """The incremental index kept by `constellation serve` watching the tree."""

    def __init__(self, binary: str, root: str, db: str):
        self.db = db
        self.server = McpServer(binary, root, db, "incremental_equal")
        deadline = time.monotonic() + 120
        while not (self.status().get("watcher") or {}).get("watching"):
            if time.monotonic() > deadline:
                die("the server did not start watching within 120 s")
            time.sleep(0.05)
        time.sleep(0.5)
        self.generation = self.status().get("generation", 0)

    def status(self) -> dict:
        result = self.server.call("get_status", {})
        return (result.get("structuredContent") or {}).get("roots", [{}])[0]

    def wait(self, written_at: float, timeout: float = 60) -> dict:
        """Waits until a run picked the edit up; returns its figures (`wallMs`: the
        run's own duration_ms, `latencyMs`: write to fresh status)."""
        deadline = written_at + timeout
        while True:
            st = self.status()
            if st.get("generation", 0) > self.generation and not st.get("pendingChanges"):
                latency = (time.monotonic() - written_at) * 1000
                break
            if time.monotonic() > deadline:
                die(f"no run picked the edit up within {timeout} s: {st}")
            time.sleep(0.005)
        self.generation = st["generation"]
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        ms, refs = conn.execute(
            "SELECT duration_ms, refs_resolved FROM index_runs ORDER BY id DESC LIMIT 1"
        ).fetchone()
        conn.close()
        return {"wallMs": float(ms), "latencyMs": latency, "refsResolved": refs, "resolveMs": None}

    def close(self) -> None:
        self.server.close()


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    if not xs:
        return 0.0
    k = (len(xs) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", help="tree to copy (default: the Python stdlib)")
    ap.add_argument("--pypi", metavar="NAME==VERSION", help="download this sdist as the corpus")
    ap.add_argument("--targets", metavar="hot:N,random:M", help="edit these files, one edit each")
    ap.add_argument("--served", action="store_true", help="a watching server keeps the incremental index")
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--no-compare", action="store_true", help="time the incremental runs only")
    args = ap.parse_args()

    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"no binary at {binary}: run `cargo build --release` or set CONSTELLATION_BIN")
    tmp = tempfile.mkdtemp(prefix="incremental_equal.")
    root = os.path.join(tmp, "tree")
    if args.pypi:
        name, _, version = args.pypi.partition("==")
        if not version:
            die("--pypi takes NAME==VERSION")
        os.makedirs(root)
        unpack(fetch_sdist("https://pypi.org", name, version, tmp), root)
        src = args.pypi
    else:
        src = args.corpus or stdlib_dir()
        if not os.path.isdir(src):
            die(f"no corpus at {src}")
        shutil.copytree(src, root, symlinks=True, ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"))
    inc_db, full_db = os.path.join(tmp, "inc.db"), os.path.join(tmp, "full.db")
    print(f"binary {binary}\ncorpus {src} copied to {root}: {len(py_files(root))} .py files", flush=True)
    rng = random.Random(args.seed)
    editor = Editor(root, rng)
    first = run_index(binary, root, inc_db, full=True)
    print(f"initial build: {first['wallMs']:.0f} ms, {first['filesSeen']} files, {first.get('refsResolved')} refs", flush=True)
    plan: list[tuple[str, str]] = targets(args.targets, inc_db, editor.files, rng) if args.targets else []
    if plan:
        print("targets: " + ", ".join(f"{g} {p}" for g, p in plan), flush=True)
    served = Served(binary, root, inc_db) if args.served else None

    walls, resolves, refs, mismatches = [], [], [], []
    groups: dict[str, list[float]] = {}
    latencies: list[float] = []
    what = "run ms" if served else "ms"
    print(f"{'#':>3} {'kind':<24} {'file':<44} {'equal':<8} {what:>7} {'resolveMs':>9} {'refs':>8}")
    try:
        for i in range(1, (len(plan) or args.edits) + 1):
            group = "all"
            if plan:
                group, rel = plan[i - 1]
                kind = editor.edit_file(rel)
                if kind is None:
                    print(f"{i:>3} {'(no edit applies)':<24} {rel[-44:]:<44}")
                    continue
            else:
                kind, rel = editor.edit()
            written = time.monotonic()
            if served:
                inc = served.wait(written)
                latencies.append(inc["latencyMs"])
            else:
                inc = run_index(binary, root, inc_db, full=False)
            groups.setdefault(group, []).append(inc["wallMs"])
            diff: dict[str, list[str]] = {}
            if not args.no_compare:
                if os.path.exists(full_db):
                    os.remove(full_db)
                run_index(binary, root, full_db, full=True)
                diff = compare(inc_db, full_db)
            walls.append(inc["wallMs"])
            resolves.append(inc.get("resolveMs") or 0)
            refs.append(inc.get("refsResolved", 0))
            if diff:
                mismatches.append((i, kind, rel, diff))
            print(
                f"{i:>3} {kind:<24} {rel[-44:]:<44} {('equal' if not diff else 'MISMATCH') if not args.no_compare else '-':<8} "
                f"{inc['wallMs']:>7.0f} {inc.get('resolveMs') if inc.get('resolveMs') is not None else '-':>9} {inc.get('refsResolved', 0):>8}",
                flush=True,
            )
    finally:
        if served:
            served.close()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"kept {tmp}")

    print(
        f"\nedits {len(walls)}  incremental wall ms p50 {pct(walls, .5):.0f} p95 {pct(walls, .95):.0f} "
        f"max {max(walls):.0f}  resolveMs p50 {pct(resolves, .5):.0f} p95 {pct(resolves, .95):.0f}  "
        f"refs re-resolved median {statistics.median(refs):.0f} max {max(refs)}  mismatches {len(mismatches)}"
    )
    if plan or served:
        label = "served run ms (index_runs.duration_ms)" if served else "CLI wall ms"
        for group, xs in groups.items():
            print(f"{group}: {len(xs)} edits, {label} p50 {pct(xs, .5):.1f} p95 {pct(xs, .95):.1f} max {max(xs):.1f}")
        if latencies:
            print(
                f"write to fresh get_status (polled every 5 ms): p50 {pct(latencies, .5):.0f} "
                f"p95 {pct(latencies, .95):.0f} max {max(latencies):.0f} ms"
            )
    for i, kind, rel, diff in mismatches[:5]:
        print(f"\nmismatch after edit {i} ({kind} {rel}):")
        for table, lines in diff.items():
            print(f"  {table}:")
            for line in lines:
                print(f"    {line[:300]}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
