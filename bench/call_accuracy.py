#!/usr/bin/env python3
"""Call-edge accuracy: how many of Constellation's call edges are right (precision), and
how many real calls into the workspace it has an edge for (recall), measured against each
language's own analyser on real projects.

What it measures, per project and overall:
  precision  Sampled `edges` rows of kind 'calls' (by default only trusted ones:
             confidence >= --min-confidence, 0.9), each asked of the analyser at its call
             site: correct when the analyser's definition is the edge's destination node.
             With a 95% Wilson interval, per resolution rule (`edges.provenance` when the
             database has that column, else the confidence value, "confidence=0.95") next
             to the confidence that rule stores, and per call-site kind.
  recall     Sampled call sites found independently of the indexer whose callee the
             analyser resolves to a function, method or class defined in the workspace:
             found when the index has a call edge from a reference at that site to the
             node of that definition. With and without constructor calls, with any edge
             and with trusted edges only, and per call-site kind (bare name `f()`,
             `self.f()`/`this.f()`, `super().f()`, attribute on another receiver `x.f()`,
             constructor `Foo()`/`new Foo()`).
  examples   Per rule up to 8 wrong edges, and up to 15 missed call sites, as
             `path:line  code  -> our target (path:line)  | analyser: target (path:line)`,
             plus counts of wrong edges and misses by category.

The analysers (installed by this script into --cache, nothing global):
  Python      jedi (PyPI, JEDI_REQUIREMENT), in a worker process (this file run with
              `--jedi-worker`): `jedi.Script(code, path=..., project=jedi.Project(root,
              sys_path=[root, *extra]))` with `goto(line, column, follow_imports=True)`;
              when goto only finds a variable, parameter or attribute (`f = make(); f()`),
              or stops in a typeshed stub (it fails to turn some stub methods back into
              source, e.g. unittest's TestCase.assertEqual), `infer()` at the same place
              adds the function or class it finds. Adjustments, each counted and printed:
              `os.path.f` answers in ntpath become posixpath's `f` off Windows (jedi cannot
              decide typeshed's `if sys.platform == "win32"`); `classmethod.__get__` of
              the builtins stub (what infer says for `f = cls.m`) is dropped; a name that
              jedi can only follow to an import (a compiled module such as _weakref, a
              module not installed) is no answer; a definition whose line lacks its name
              (infer through functools.wraps) is dropped. jedi counts columns in
              characters; the index and `ast` count UTF-8 bytes; the worker converts. jedi's bundled Django stubs are switched off
              (`jedi.inference.gradual.typeshed.DJANGO_INIT_PATH` pointed at a file that
              does not exist: jedi loads `django-stubs/__init__.pyi` from that constant
              whenever a module named `django` is imported), so answers point into
              Django's source, not into `.pyi` stubs; jedi's Django plugin (model fields,
              managers answered from the source's QuerySet) stays on. An answer inside
              jedi's django-stubs is counted and printed (it should be 0).
              Call sites: every `ast.Call` of the Python 3.11 parser; the position is the
              callee's last name (a Name's col_offset; an Attribute's `attr`, at
              end_col_offset - len(attr) on its end line).
  TypeScript/ the `typescript` npm package (TS_REQUIREMENT), compiler API, in one Node
  JavaScript  process per project (bench/ts_calls.mjs, JSON lines in and out): one program
              over the project (its tsconfig.json when present, plus every JS/TS file the
              index holds), `checker.getSymbolAtLocation(name)`, aliases followed with
              `getAliasedSymbol`, the declarations' files and the lines of their names.
              Call sites: every CallExpression and NewExpression whose callee is a name or
              a property access (the name's, or the property's position).

How an analyser's answer is judged:
  - A definition (file, line of its name) maps to the node of that file whose `name`
    equals the definition's name and whose lines contain that line, the innermost one.
    Outside the workspace (a builtin, typeshed, lib.*.d.ts, site-packages, node_modules)
    it maps to nothing and an edge there is wrong. For the standard library, whose copy
    is the workspace, an answer in the original `python3` stdlib (jedi turns typeshed
    stubs back into the running interpreter's sources) maps to the same path in the copy.
  - A constructor call whose answer is the class Foo is correctly answered by an edge to
    the class node and by an edge to Foo's `__init__` / `constructor` method.
  - Precision: correct when any of the answer's definitions maps to the edge's
    destination; wrong when the analyser names at least one function, method or class
    (or anything outside the workspace) and none is ours; "analyser: no answer" when it
    says nothing (nothing found, an error, a timeout) or only a variable, parameter or
    interface member whose value it cannot follow. No answers are excluded from
    precision and printed.
  - Recall samples only sites whose answer includes a callable definition with a body
    inside the workspace (not in a .d.ts, not under node_modules). A site is found when an
    edge of the index leaves a call reference at that line and column (`refs.col`, when
    the database has it) or, without columns, at that line with the callee's name.
  - The call site of an edge is its reference (`edges.ref_id` -> `refs.line`, and
    `refs.col` when present). Without `refs.col` the column is searched in the line: the
    first whole identifier equal to the callee's name followed by `(` (TypeScript type
    arguments `<..>` and `?.(` allowed; after a `.` when the reference has a qualifier),
    else its first whole occurrence.

Projects (pinned; `--list` prints them, `--project NAME` picks, repeatable; default: all):
    django          Django 5.2.19, the sdist from PyPI (with its tests/): the large web
                    framework; jedi's sys.path is the root and tests/ (as its test runner).
    rich            rich 15.0.0, sdist from PyPI: class-heavy (Console, Text, Segment,
                    Style, ...), typed, so jedi follows `self.x.y()` chains through
                    annotations; a small library beside Django's size.
    cpython-stdlib  the standard library of `python3` (bench/corpora.sh), version printed.
    rxjs            rxjs 7.8.2 from npm: TypeScript source in src/ with its tsconfig.json;
                    functions and operator factories.
    mobx            mobx 7.1.3 from npm: TypeScript source in src/ (no tsconfig): classes
                    (ObservableValue, ComputedValue, Reaction, ObservableMap, ...) and
                    `this.method()` calls.
    npm             npm's own tree, `$(npm root -g)/npm` (bench/corpora.sh): CommonJS
                    JavaScript; node_modules is read by the compiler
                    (maxNodeModuleJsDepth 2) but not indexed, so calls into dependencies
                    resolve outside the workspace.
  npm tarballs are indexed without their `dist/` build output (a compiled copy of src/
  that a source checkout does not have; it would double every definition).
  Everything is downloaded once into --cache (default $TMPDIR/constellation-bench-cache)
  and indexed there: those trees are this script's own unpacked copies, never the
  originals, and each database is written under --cache, outside the tree.

How to run (after `cargo build --release`; needs python3.11, node and npm, and the PyPI
and npm registries the first time):

    python3 bench/call_accuracy.py [--bin PATH] [--project NAME ...] [--samples 300]
        [--seed 1] [--min-confidence 0.9] [--cache DIR] [--jobs 2] [--json FILE]

--scip: precise mode. Before indexing, the project's SCIP indexer runs over the copy
(SCIP_PYTHON_REQUIREMENT / SCIP_TS_REQUIREMENT, installed from npm into --cache:
`scip-python index . --project-name NAME --project-version VERSION`, `scip-typescript
index` with `--infer-tsconfig` when the tree has no tsconfig.json), and the index is built
with `index --full --scip FILE`. Precision then samples only edges with provenance `scip`
(whatever --min-confidence says), recall is reported for any edge and for `scip` edges
alone, and what the SCIP pass did (files applied, stale, uncovered; references resolved,
external, kept heuristic) is printed per project.

--samples: edges sampled for precision and call sites for recall, per project.
--jobs: projects measured at once (each runs the indexer and one analyser process).
A default run (six projects, 300 + 300 samples each) takes about 8 minutes on 2 cores,
the first one a minute more for the downloads and installs; the standard library is
the slowest (jedi).

Prints per project: files indexed, edges sampled, precision with its interval, per rule
and per call-site kind, recall with and without constructors, per call-site kind, misses
by reason, the worst examples; then one table over all projects, and the command and
versions. --json FILE writes those figures and every sampled edge and site with its verdict.
Exit status 0, or 2 on a setup error.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import REPO, constellation_bin, die  # noqa: E402

JEDI_REQUIREMENT = "jedi==0.20.1"
TS_REQUIREMENT = "typescript@5.9.3"
SCIP_PYTHON_REQUIREMENT = "@sourcegraph/scip-python@0.6.6"
SCIP_TS_REQUIREMENT = "@sourcegraph/scip-typescript@0.4.0"
BENCH = os.path.dirname(os.path.abspath(__file__))
TS_HELPER = os.path.join(BENCH, "ts_calls.mjs")

PY_LANGS = ("python",)
JS_LANGS = ("javascript", "typescript", "tsx")


@dataclass
class Project:
    """One measured project: where its source comes from and how the analyser sees it."""

    name: str
    family: str  # 'python' | 'js' (JavaScript and TypeScript)
    source: str  # 'pypi' | 'npm' | 'corpus' (a bench/corpora.sh corpus)
    package: str = ""
    version: str = ""  # pinned; for corpora, filled in from the machine
    why: str = ""
    drop: tuple[str, ...] = ()  # top-level directories left out of the copy
    sys_path: tuple[str, ...] = ()  # Python: extra sys.path entries under the root
    node_depth: int = 0  # TypeScript: maxNodeModuleJsDepth
    cost: int = 1  # relative run time: the costliest start first, so --jobs overlap well
    default: bool = True
    scip_partial: bool = False  # --scip: the indexer failed part way; its output is partial

    @property
    def langs(self) -> tuple[str, ...]:
        return PY_LANGS if self.family == "python" else JS_LANGS


PROJECTS = [
    Project("django", "python", "pypi", "Django", "5.2.19",
            "the large web framework (its sdist, tests included)", sys_path=("tests",), cost=3),
    Project("rich", "python", "pypi", "rich", "15.0.0",
            "class-heavy and typed: Console, Text, Segment, Style; self.x.y() chains"),
    Project("cpython-stdlib", "python", "corpus", "cpython-stdlib", "",
            "the Python standard library of python3, copied by bench/corpora.sh", cost=4),
    Project("rxjs", "js", "npm", "rxjs", "7.8.2",
            "TypeScript source (src/, tsconfig.json): functions and operator factories",
            drop=("dist",)),
    Project("mobx", "js", "npm", "mobx", "7.1.3",
            "TypeScript source (src/): classes and this.method() calls", drop=("dist",)),
    Project("npm", "js", "corpus", "npm", "",
            "npm's own CommonJS JavaScript, copied by bench/corpora.sh", node_depth=2),
]


# ---- small helpers ---------------------------------------------------------------------

_print_lock = threading.Lock()


def progress(msg: str) -> None:
    """A progress line on stderr (projects run in parallel; lines are whole)."""
    with _print_lock:
        print(msg, file=sys.stderr, flush=True)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    """Runs cmd capturing text output; dies with its stderr when it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        die(f"{' '.join(cmd)} failed ({p.returncode}): {(p.stderr or p.stdout).strip()[-1500:]}")
    return p


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of k successes in n trials ((0, 1) when n is 0)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def ratio(k: int, n: int) -> str:
    """`0.812 [0.765, 0.852] (k/n)`, or `-` without trials."""
    if n == 0:
        return "-"
    lo, hi = wilson(k, n)
    return f"{k / n:.3f} [{lo:.3f}, {hi:.3f}] ({k}/{n})"


def short(s: str, n: int = 90) -> str:
    """s with runs of whitespace collapsed, cut to n characters."""
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


# ---- tools and sources -----------------------------------------------------------------

def install_tools(cache: str) -> tuple[str, str]:
    """jedi under CACHE/tools/py (pip --target) and typescript under CACHE/tools/node (npm
    --prefix), installed unless the pinned versions are there; returns (the directory to
    put on PYTHONPATH, the typescript package directory)."""
    tools = os.path.join(cache, "tools")
    py = os.path.join(tools, "py")
    want_jedi = JEDI_REQUIREMENT.split("==")[1]
    have = ""
    init = os.path.join(py, "jedi", "__init__.py")
    if os.path.exists(init):
        m = re.search(r"__version__ = '([^']+)'", open(init, encoding="utf-8").read())
        have = m.group(1) if m else ""
    if have != want_jedi:
        progress(f"installing {JEDI_REQUIREMENT} into {py}")
        shutil.rmtree(py, ignore_errors=True)
        run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
             "--target", py, JEDI_REQUIREMENT])
    node = os.path.join(tools, "node")
    ts_dir = os.path.join(node, "node_modules", "typescript")
    want_ts = TS_REQUIREMENT.split("@")[1]
    pkg = os.path.join(ts_dir, "package.json")
    have = json.load(open(pkg)).get("version", "") if os.path.exists(pkg) else ""
    if have != want_ts:
        if not shutil.which("npm"):
            die("npm not found (needed to install typescript)")
        progress(f"installing {TS_REQUIREMENT} into {node}")
        os.makedirs(node, exist_ok=True)
        with open(os.path.join(node, "package.json"), "w") as f:
            f.write('{"private": true}\n')
        run(["npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", node, TS_REQUIREMENT])
    return py, ts_dir


def install_scip(cache: str) -> str:
    """scip-python and scip-typescript under CACHE/tools/scip (npm --prefix), installed
    unless the pinned versions are there; returns the directory of their executables."""
    prefix = os.path.join(cache, "tools", "scip")
    bins = os.path.join(prefix, "node_modules", ".bin")
    want = {r.rsplit("@", 1)[0]: r.rsplit("@", 1)[1] for r in (SCIP_PYTHON_REQUIREMENT, SCIP_TS_REQUIREMENT)}
    have = {}
    for name in want:
        pkg = os.path.join(prefix, "node_modules", name, "package.json")
        have[name] = json.load(open(pkg)).get("version", "") if os.path.exists(pkg) else ""
    if have != want:
        if not shutil.which("npm"):
            die("npm not found (needed to install the SCIP indexers)")
        progress(f"installing {SCIP_PYTHON_REQUIREMENT} and {SCIP_TS_REQUIREMENT} into {prefix}")
        os.makedirs(prefix, exist_ok=True)
        with open(os.path.join(prefix, "package.json"), "w") as f:
            f.write('{"private": true}\n')
        run(["npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", prefix,
             SCIP_PYTHON_REQUIREMENT, SCIP_TS_REQUIREMENT])
    return bins


def run_scip_indexer(project: "Project", root: str, out: str, bins: str) -> float:
    """Runs the project's SCIP indexer over root, writing out; returns the wall time."""
    if os.path.exists(out):
        os.remove(out)
    started = time.monotonic()
    if project.family == "python":
        cmd = [os.path.join(bins, "scip-python"), "index", ".", "--project-name", project.package,
               "--project-version", project.version or "0", "--output", out]
    else:
        cmd = [os.path.join(bins, "scip-typescript"), "index", "--output", out]
        if not os.path.exists(os.path.join(root, "tsconfig.json")):
            cmd.append("--infer-tsconfig")
    progress(f"{project.name}: {' '.join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd))}")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
        if p.returncode != 0:
            if not os.path.exists(out):
                die(f"{' '.join(cmd)} failed ({p.returncode}): {(p.stderr or p.stdout).strip()[-1500:]}")
            # scip-python can crash part way (a pyright internal error on Django) after
            # writing the documents it finished: a partial index, used where it covers.
            last = [l for l in (p.stderr or p.stdout).strip().splitlines() if l.strip()][-1:] or ["?"]
            progress(f"{project.name}: the SCIP indexer failed ({p.returncode}: {short(last[0], 120)}) "
                     f"but wrote {out}: used as a partial index")
            project.scip_partial = True
    finally:
        if "--infer-tsconfig" in cmd:
            # It writes the tsconfig.json it infers into the tree: gone again, so the
            # tree the index and the TypeScript checker see is the package's own.
            inferred = os.path.join(root, "tsconfig.json")
            if os.path.exists(inferred):
                os.remove(inferred)
    if not os.path.exists(out):
        die(f"{' '.join(cmd)} wrote no {out}")
    return time.monotonic() - started


def unpack(tarball: str, dest: str, top: str | None, drop: tuple[str, ...]) -> None:
    """Unpacks tarball's directory `top` (its only top directory when None) into dest,
    leaving out the top-level directories named in drop; dest appears complete or not."""
    tmp = tempfile.mkdtemp(prefix="unpack-", dir=os.path.dirname(dest))
    try:
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp, filter="data")
        tops = os.listdir(tmp)
        top = top or (tops[0] if len(tops) == 1 else None)
        if top is None or not os.path.isdir(os.path.join(tmp, top)):
            die(f"{tarball}: expected one top directory, found {tops}")
        for d in drop:
            shutil.rmtree(os.path.join(tmp, top, d), ignore_errors=True)
        os.rename(os.path.join(tmp, top), dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fetch(project: Project, cache: str) -> str:
    """The project's source tree under --cache (downloaded and unpacked the first time;
    corpora re-synced by bench/corpora.sh every run); sets project.version for corpora."""
    downloads = os.path.join(cache, "downloads")
    src = os.path.join(cache, "src")
    os.makedirs(downloads, exist_ok=True)
    os.makedirs(src, exist_ok=True)
    if project.source == "corpus":
        corpora = os.path.join(cache, "corpora")
        run(["bash", os.path.join(BENCH, "corpora.sh"), corpora, project.package])
        if project.package == "cpython-stdlib":
            project.version = run(["python3", "-c", "import platform; print(platform.python_version())"]).stdout.strip()
        elif project.package == "npm":
            project.version = run(["npm", "--version"]).stdout.strip()
        return os.path.join(corpora, project.package)
    dest = os.path.join(src, f"{project.name}-{project.version}")
    if os.path.isdir(dest):
        return dest
    progress(f"{project.name}: downloading {project.package} {project.version}")
    if project.source == "pypi":
        run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
             "--no-binary", ":all:", "-d", downloads, f"{project.package}=={project.version}"])
        norm = lambda n: re.sub(r"[-_.]+", "-", n.lower())
        sdist = re.compile(r"(.+)-" + re.escape(project.version) + r"\.(tar\.gz|zip)$")
        names = [n for n in os.listdir(downloads)
                 if (m := sdist.match(n)) and norm(m.group(1)) == norm(project.package)]
        if not names:
            die(f"pip download left no sdist of {project.package} {project.version} in {downloads}")
        unpack(os.path.join(downloads, names[0]), dest, None, project.drop)
    else:
        out = run(["npm", "pack", "--silent", "--pack-destination", downloads,
                   f"{project.package}@{project.version}"]).stdout.strip().splitlines()
        if not out:
            die(f"npm pack {project.package}@{project.version} named no tarball")
        unpack(os.path.join(downloads, out[-1].strip()), dest, "package", project.drop)
    return dest


# ---- the index -------------------------------------------------------------------------

@dataclass
class Node:
    id: int
    file_id: int
    kind: str
    name: str
    qname: str
    start_line: int
    end_line: int
    size: int
    parent_id: int | None


@dataclass
class Ref:
    id: int
    file_id: int
    line: int
    name: str
    qualifier: str | None
    status: str
    candidates: int
    col: int | None


@dataclass
class Edge:
    id: int
    ref_id: int
    src_id: int
    dst_id: int
    confidence: float
    provenance: str | None


class Index:
    """The parts of one index database the benchmark reads, loaded once (read-only)."""

    def __init__(self, db: str, langs: tuple[str, ...]):
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        cols = lambda t: {r[1] for r in con.execute(f"PRAGMA table_info({t})")}
        self.has_col = "col" in cols("refs")
        self.has_provenance = "provenance" in cols("edges")
        self.files: dict[int, tuple[str, str | None]] = {}
        self.file_ids: dict[str, int] = {}
        self.file_status: dict[str, str] = {}
        self.languages: Counter = Counter()
        for fid, path, lang, status in con.execute("SELECT id, path, language, status FROM files"):
            self.files[fid] = (path, lang)
            self.file_status[path] = status
            self.file_ids[path] = fid
            self.languages[lang or "(not parsed)"] += 1
        self.code_files = sorted(p for p, l in self.files.values() if l in langs)
        self.nodes: dict[int, Node] = {}
        self.by_name: dict[tuple[int, str], list[int]] = defaultdict(list)
        self.ctors: dict[int, list[int]] = defaultdict(list)
        for row in con.execute("SELECT id, file_id, kind, name, qualified_name, start_line, end_line, "
                               "end_byte - start_byte, parent_id FROM nodes WHERE kind <> 'file'"):
            n = Node(*row)
            self.nodes[n.id] = n
            self.by_name[(n.file_id, n.name)].append(n.id)
            if n.name in ("__init__", "constructor") and n.parent_id is not None:
                self.ctors[n.parent_id].append(n.id)
        for row in con.execute("SELECT n.id, n.file_id, n.kind, n.name, n.qualified_name, n.start_line, "
                               "n.end_line, 0, NULL FROM nodes n WHERE n.kind = 'file'"):
            self.nodes[row[0]] = Node(*row)
        lang_in = ",".join(f"'{l}'" for l in langs)
        col = "r.col" if self.has_col else "NULL"
        self.refs: dict[int, Ref] = {}
        self.refs_at: dict[tuple[int, int], list[int]] = defaultdict(list)
        for row in con.execute(f"SELECT r.id, r.file_id, r.line, r.name, r.qualifier, r.status, r.candidates, {col} "
                               f"FROM refs r JOIN files f ON f.id = r.file_id "
                               f"WHERE r.kind = 'call' AND f.language IN ({lang_in})"):
            r = Ref(*row)
            self.refs[r.id] = r
            self.refs_at[(r.file_id, r.line)].append(r.id)
        prov = "e.provenance" if self.has_provenance else "NULL"
        self.edges: list[Edge] = []
        self.edges_of_ref: dict[int, list[Edge]] = defaultdict(list)
        for row in con.execute(f"SELECT e.id, e.ref_id, e.src_id, e.dst_id, e.confidence, {prov} "
                               f"FROM edges e JOIN files f ON f.id = e.file_id "
                               f"WHERE e.kind = 'calls' AND f.language IN ({lang_in}) ORDER BY e.id"):
            e = Edge(*row)
            self.edges.append(e)
            self.edges_of_ref[e.ref_id].append(e)
        con.close()

    def rule(self, e: Edge) -> str:
        """The resolution rule of an edge: its provenance, else its confidence."""
        return e.provenance if self.has_provenance and e.provenance else f"confidence={e.confidence:.2f}"

    def path(self, node_id: int) -> str:
        return self.files[self.nodes[node_id].file_id][0]

    def label(self, node_id: int) -> str:
        """`qualified_name (path:line)` of a node."""
        n = self.nodes[node_id]
        return f"{n.qname} ({self.files[n.file_id][0]}:{n.start_line})"


def index_project(exe: str, root: str, db: str, scip: str | None = None) -> tuple[float, dict]:
    """A fresh `index --full` of root into db (outside the tree), with `--scip FILE` when
    given; returns the wall time and the run's `--json` report."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    started = time.monotonic()
    cmd = [exe, "index", root, "--db", db, "--full", "-q", "--json"]
    if scip:
        cmd += ["--scip", scip]
    out = run(cmd).stdout
    return time.monotonic() - started, json.loads(out)


# ---- analysers -------------------------------------------------------------------------

class Worker:
    """An analyser process spoken to with one JSON object a line each way."""

    def __init__(self, cmd: list[str], env: dict[str, str], label: str):
        self.label = label
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     text=True, encoding="utf-8", env=env, bufsize=1)

    def ask(self, request: dict) -> dict:
        """Sends one request and returns its answer; raises RuntimeError when the process
        died or answered with an error."""
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            self.stderr.seek(0)
            raise RuntimeError(f"{self.label} exited ({self.proc.wait()}): {self.stderr.read()[-2000:]}")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"{self.label}: {answer['error']}")
        return answer

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write('{"op": "quit"}\n')  # type: ignore[union-attr]
                self.proc.stdin.close()  # type: ignore[union-attr]
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired) as e:
                progress(f"{self.label}: did not quit ({e}); killing pid {self.proc.pid}")
                self.proc.kill()
                self.proc.wait()


def start_analyser(project: Project, root: str, files: list[str], py_tools: str, ts_dir: str,
                   query_timeout: float) -> tuple[Worker, dict]:
    """The analyser process of a project, initialised on its root; returns it with the
    init answer (versions, counts)."""
    if project.family == "python":
        env = dict(os.environ, PYTHONPATH=py_tools, PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
        w = Worker([sys.executable, os.path.abspath(__file__), "--jedi-worker"], env, f"jedi ({project.name})")
        info = w.ask({"op": "init", "root": root, "timeout": query_timeout,
                      "cache_dir": os.path.join(os.path.dirname(py_tools), "jedi-cache"),
                      "sys_path": [root] + [os.path.join(root, p) for p in project.sys_path]})
    else:
        if not shutil.which("node"):
            die("node not found (needed for the TypeScript compiler API)")
        w = Worker(["node", TS_HELPER, ts_dir], dict(os.environ), f"typescript ({project.name})")
        info = w.ask({"op": "init", "root": root, "files": files, "maxNodeModuleJsDepth": project.node_depth})
    return w, info


@dataclass
class Def:
    """One definition an analyser gave for a call site, and where it lands in the index."""

    path: str | None  # absolute; None for a compiled builtin
    line: int
    name: str
    kind: str  # jedi's type or the TypeScript SyntaxKind
    callable: bool  # a function, method or class with a body (or a variable holding one)
    definite: bool  # names a function, method or class (with or without body) or lies outside
    dts: bool  # a .d.ts / .pyi declaration file
    where: str = ""  # 'node' | 'nonode' | 'external'
    node: int | None = None
    rel: str = ""  # path relative to the root, or a short external label
    is_class: bool = False


class Mapper:
    """Maps analyser definitions onto nodes of one index."""

    def __init__(self, project: Project, root: str, index: Index, sources: Sources):
        self.project = project
        self.sources = sources
        self.root = os.path.realpath(root)
        self.index = index
        self.stdlib = None
        if project.name == "cpython-stdlib":
            out = run(["python3", "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"]).stdout
            self.stdlib = os.path.realpath(out.strip())
        self._real: dict[str, str] = {}
        self.stub_answers = 0  # answers inside jedi's bundled django-stubs (should stay 0)
        self.inconsistent: Counter = Counter()  # workspace answers whose line lacks their name

    def relative(self, path: str) -> tuple[str | None, str]:
        """(path relative to the root when inside the workspace, a label for printing)."""
        real = self._real.get(path)
        if real is None:
            real = self._real[path] = os.path.realpath(path)
        if real.startswith(self.root + os.sep):
            rel = real[len(self.root) + 1:]
            if "node_modules" in rel.split(os.sep):
                return None, rel
            return rel, rel
        if self.stdlib and real.startswith(self.stdlib + os.sep):
            rel = real[len(self.stdlib) + 1:]
            if not rel.startswith("site-packages" + os.sep):
                return rel, rel
        for marker in ("/third_party/django-stubs/", "/third_party/typeshed/", "/site-packages/",
                       "/node_modules/typescript/lib/", "/node_modules/"):
            if marker in real:
                if marker == "/third_party/django-stubs/":
                    self.stub_answers += 1
                return None, marker.strip("/").split("/")[-1] + "/" + real.split(marker, 1)[1]
        if self.stdlib is None:
            std = os.path.dirname(os.__file__)
            if real.startswith(std + os.sep):
                return None, "stdlib/" + real[len(std) + 1:]
        return None, real

    def map(self, raw: dict) -> Def:
        """A Def from a worker's answer, placed in the index."""
        d = Def(raw.get("path"), raw.get("line") or 0, raw.get("name") or "", raw.get("kind") or "",
                bool(raw.get("callable")), bool(raw.get("definite")), bool(raw.get("dts")))
        d.is_class = d.kind in ("class", "ClassDeclaration", "ClassExpression")
        if raw.get("import"):
            d.where, d.rel = "import", f"import at {self.relative(d.path)[1] if d.path else '?'}"
            return d
        if d.path is None:
            d.where, d.rel, d.definite = "external", "<compiled>", True
            return d
        rel, d.rel = self.relative(d.path)
        if rel is None:
            d.where, d.definite = "external", True
            return d
        rel = rel.replace(os.sep, "/")
        if d.name == "export=":  # `module.exports = function () {..}`: anonymous, no node can match
            d.where, d.rel = "nonode", f"{rel} (anonymous module.exports)"
            return d
        # `#priv` is the node `#priv` (older indexers named it `priv`).
        bare = d.name.lstrip("#")
        if not re.search(rb"(?<![\w$])" + re.escape(bare.encode("utf-8")) + rb"(?![\w$])",
                         self.sources.line(rel, d.line)):
            # jedi's infer() through functools.wraps (`lazy(f)`) names the wrapped
            # function but gives the wrapper's file and line: not a definition.
            d.where, d.callable, d.definite = "inconsistent", False, False
            self.inconsistent[f"{d.name} ({rel}:{d.line})"] += 1
            return d
        fid = self.index.file_ids.get(rel)
        best = None
        if fid is not None:
            for nid in (self.index.by_name.get((fid, d.name), ())
                        or self.index.by_name.get((fid, bare), ())):
                n = self.index.nodes[nid]
                if n.start_line <= d.line <= n.end_line and (best is None or n.size < self.index.nodes[best].size):
                    best = nid
        d.where, d.node = ("node", best) if best is not None else ("nonode", None)
        return d

    def accepted(self, defs: list[Def]) -> set[int]:
        """Nodes an edge may point at to be right: each definition's node, and for a class
        also its own __init__ / constructor."""
        out: set[int] = set()
        for d in defs:
            if d.node is not None:
                out.add(d.node)
                if self.index.nodes[d.node].kind == "class" or d.is_class:
                    out.update(self.index.ctors.get(d.node, ()))
        return out


# ---- call sites ------------------------------------------------------------------------

class Sources:
    """Lines of the project's files as bytes (split on \\n like tree-sitter), cached."""

    def __init__(self, root: str):
        self.root = root
        self._lines: dict[str, list[bytes]] = {}
        self.unreadable: dict[str, str] = {}

    def line(self, rel: str, line: int) -> bytes:
        """Line `line` (1-based) of file rel, b"" past its end or when it cannot be read
        (counted in self.unreadable)."""
        lines = self._lines.get(rel)
        if lines is None:
            try:
                with open(os.path.join(self.root, rel), "rb") as f:
                    lines = [l.rstrip(b"\r") for l in f.read().split(b"\n")]
            except OSError as e:
                self.unreadable[rel] = str(e)
                lines = []
            self._lines[rel] = lines
        return lines[line - 1] if 0 < line <= len(lines) else b""

    def text(self, rel: str, line: int) -> str:
        return self.line(rel, line).decode("utf-8", "replace")


_CALL_AFTER = re.compile(rb"\s*(?:<[^()]*?>)?\s*(?:\?\.)?\s*\(")


def guess_col(text: bytes, name: str, qualified: bool) -> int | None:
    """Byte column of a callee `name` in its line when the index stores none: the first
    whole-identifier occurrence followed by `(` (TypeScript `<T>(` and `?.(` too) that is
    preceded by `.` exactly when the reference has a qualifier, else the first followed by
    `(`, else the first whole occurrence; None when the name is not in the line."""
    nb = name.encode("utf-8")
    occ = [m.start() for m in re.finditer(rb"(?<![\w$])" + re.escape(nb) + rb"(?![\w$])", text)]
    calls = [c for c in occ if _CALL_AFTER.match(text, c + len(nb))]
    dotted = [c for c in calls if text[:c].rstrip().endswith(b".") == qualified]
    for group in (dotted, calls, occ):
        if group:
            return group[0]
    return None


def ref_kind(qualifier: str | None) -> str:
    """The call-site kind of a reference from its qualifier: bare, self, super or attr."""
    if not qualifier:
        return "bare"
    if qualifier in ("self", "cls", "this"):
        return "self"
    if qualifier.startswith("super"):
        return "super"
    return "attr"


SITE_KINDS = ("bare", "self", "super", "attr", "constructor")
SITE_KIND_NAMES = {"bare": "bare name f()", "self": "self.f() / this.f()", "super": "super().f() / super.f()",
                   "attr": "attribute x.f()", "constructor": "constructor Foo() / new Foo()"}


def is_new(text: bytes, col: int) -> bool:
    """Whether the name at col is the callee of a JavaScript `new` (`new a.Foo(`)."""
    return re.search(rb"(?<![\w$])new\s+(?:[\w$]+\s*\.\s*)*$", text[:col]) is not None


def def_label(defs: list[Def]) -> str:
    """`name (path:line)` of each definition, `nothing` when there is none."""
    if not defs:
        return "nothing"
    parts = []
    for d in defs[:3]:
        kind = "" if d.callable else f" [{d.kind}]"
        parts.append(f"{d.name} ({d.rel}:{d.line}){kind}")
    return ", ".join(parts) + (f" +{len(defs) - 3}" if len(defs) > 3 else "")


def wrong_category(index: Index, edge: Edge, defs: list[Def]) -> str:
    """Why an edge is wrong, in a few words: where the analyser's definition lies."""
    definite = [d for d in defs if d.definite] or defs
    d = definite[0]
    if d.where == "external":
        if d.rel.startswith(("typeshed/", "lib/", "<compiled>", "django-stubs/")):
            return "analyser: builtin or standard-library declaration"
        if d.rel.startswith("stdlib/"):
            return "analyser: standard-library source outside the workspace"
        return "analyser: dependency outside the workspace"
    if d.where == "nonode":
        return "analyser: workspace definition without a node"
    ours = index.nodes[edge.dst_id]
    theirs = index.nodes[d.node] if d.node is not None else None
    if theirs and theirs.file_id == ours.file_id:
        return "analyser: another definition of the name in the same file"
    if theirs and ours.parent_id is not None and theirs.parent_id is not None \
            and index.nodes[ours.parent_id].kind == "class" and index.nodes[theirs.parent_id].kind == "class":
        return "analyser: the same-named method of another class"
    return "analyser: another workspace definition"


def resolve_batches(worker: Worker, queries: list[list], label: str, batch: int = 50) -> list[dict]:
    """Worker answers for queries, asked `batch` at a time with progress lines."""
    out: list[dict] = []
    for i in range(0, len(queries), batch):
        out.extend(worker.ask({"op": "resolve", "queries": queries[i:i + batch]})["results"])
        if (i // batch) % 4 == 3:
            progress(f"{label}: {len(out)}/{len(queries)}")
    return out


# ---- precision -------------------------------------------------------------------------

def no_answer_reason(defs: list[Def], error: str | None) -> str:
    """Why an analyser answer decides nothing."""
    if error:
        return "timeout" if "timeout" in error.lower() else "error"
    if not defs:
        return "nothing found"
    if all(d.where == "import" for d in defs):
        return "stops at an import it cannot follow (compiled or missing module)"
    return "only a variable, parameter or interface member"


def measure_precision(project: Project, index: Index, mapper: Mapper, worker: Worker,
                      sources: Sources, args) -> dict:
    """Samples trusted call edges and asks the analyser about each one's call site."""
    if args.scip:
        pool = [e for e in index.edges if e.provenance == "scip"]
    else:
        pool = [e for e in index.edges if e.confidence >= args.min_confidence - 1e-9]
    rng = random.Random(f"{args.seed}:{project.name}:edges")
    sample = rng.sample(pool, min(args.samples, len(pool)))
    stored: dict[str, list[float]] = defaultdict(list)
    for e in pool:
        stored[index.rule(e)].append(e.confidence)
    rows: list[dict] = []
    queries: list[list] = []
    for e in sample:
        ref = index.refs[e.ref_id]
        rel = index.files[ref.file_id][0]
        text = sources.line(rel, ref.line)
        col = ref.col if ref.col is not None else guess_col(text, ref.name, bool(ref.qualifier))
        row = {"edge": e.id, "path": rel, "line": ref.line, "col": col, "name": ref.name,
               "qualifier": ref.qualifier, "rule": index.rule(e), "confidence": e.confidence,
               "kind": ref_kind(ref.qualifier), "code": text.decode("utf-8", "replace").strip(),
               "ours": index.label(e.dst_id), "dst": e.dst_id}
        if col is not None and project.family == "js" and is_new(text, col):
            row["kind"] = "constructor"
        rows.append(row)
        if col is not None:
            queries.append([rel, ref.line, col, ref.name])
    answers = iter(resolve_batches(worker, queries, f"{project.name}: precision"))
    failures: Counter = Counter()
    failure_examples: list[str] = []
    notes: Counter = Counter()
    for e, row in zip(sample, rows):
        if row["col"] is None:
            row.update(verdict="no answer", reason="callee name not found in its line", analyser="-")
            failures["callee name not found in its line"] += 1
            failure_examples.append(f"{row['path']}:{row['line']}  {short(row['code'])}  ({row['name']})")
            continue
        ans = next(answers)
        if ans.get("note"):
            notes[ans["note"]] += 1
        if (ans.get("token") or "").lstrip("#") != row["name"].lstrip("#"):
            failures["analyser saw another token there"] += 1
            failure_examples.append(f"{row['path']}:{row['line']}:{row['col']}  {row['name']} vs {ans.get('token')}")
        if ans.get("error"):
            failures[f"analyser {no_answer_reason([], ans['error'])}"] += 1
            if len(failure_examples) < 40:
                failure_examples.append(f"{row['path']}:{row['line']}  {short(ans['error'], 160)}")
        defs = [mapper.map(d) for d in ans.get("defs", [])]
        row["analyser"] = def_label(defs)
        row["defs"] = [{"rel": d.rel, "line": d.line, "name": d.name, "kind": d.kind, "where": d.where,
                        "node": d.node} for d in defs]
        if any(d.is_class for d in defs):
            row["kind"] = "constructor"
        if e.dst_id in mapper.accepted(defs):
            row["verdict"] = "correct"
        elif any(d.definite for d in defs):
            row["verdict"] = "wrong"
            row["category"] = wrong_category(index, e, defs)
        else:
            row.update(verdict="no answer", reason=no_answer_reason(defs, ans.get("error")))
    return {"pool": len(pool), "rows": rows, "failures": failures, "failure_examples": failure_examples,
            "notes": notes,
            "stored": {k: sum(v) / len(v) for k, v in stored.items()},
            "pool_by_rule": {k: len(v) for k, v in stored.items()}}


# ---- recall ----------------------------------------------------------------------------

def measure_recall(project: Project, index: Index, mapper: Mapper, worker: Worker,
                   sources: Sources, args) -> dict:
    """Samples call sites found by the analyser's parser whose callee it resolves to a
    callable inside the workspace, and looks each one up in the index."""
    started = time.monotonic()
    found = worker.ask({"op": "sites", "files": index.code_files})
    sites = found["sites"]
    progress(f"{project.name}: {len(sites)} call sites enumerated in {time.monotonic() - started:.1f}s")
    rng = random.Random(f"{args.seed}:{project.name}:sites")
    order = list(range(len(sites)))
    rng.shuffle(order)
    rows: list[dict] = []
    skipped: Counter = Counter()
    notes: Counter = Counter()
    examined = 0
    pos = 0
    batch = 50
    cap = args.samples * 40
    while len(rows) < args.samples and pos < len(order) and examined < cap:
        chunk = [sites[i] for i in order[pos:pos + batch]]
        pos += batch
        answers = worker.ask({"op": "resolve", "queries": [s[:4] for s in chunk]})["results"]
        for (rel, line, col, name, kind), ans in zip(chunk, answers):
            if len(rows) >= args.samples:
                break
            examined += 1
            if ans.get("note"):
                notes[ans["note"]] += 1
            defs = [mapper.map(d) for d in ans.get("defs", [])]
            inside = [d for d in defs if d.where != "external" and d.callable and not d.dts]
            if not inside:
                if ans.get("error"):
                    skipped[f"analyser {no_answer_reason([], ans['error'])}"] += 1
                elif not defs:
                    skipped["analyser: nothing found"] += 1
                elif all(d.where == "import" for d in defs):
                    skipped["analyser: stops at an import (compiled or missing module)"] += 1
                elif any(d.where == "external" for d in defs):  # `append = lst.append` too
                    skipped["analyser: outside the workspace"] += 1
                elif any(d.definite for d in defs):
                    skipped["analyser: declaration without body (.d.ts, overload, interface)"] += 1
                else:
                    skipped["analyser: a variable, parameter or interface member"] += 1
                continue
            ok = mapper.accepted(inside)
            constructor = kind == "new" or any(d.is_class for d in inside)
            skind = "constructor" if constructor else {"this": "self"}.get(kind, kind)
            fid = index.file_ids.get(rel)
            refs = [index.refs[i] for i in index.refs_at.get((fid, line), ())] if fid is not None else []
            # By column when the index has one (a `#private` name may be stored from its `#`
            # or after it), else by name.
            refs = [r for r in refs if ((r.col == col or (name.startswith("#") and r.col == col + 1))
                                        if r.col is not None else r.name.lstrip("#") == name.lstrip("#"))]
            edges = [e for r in refs for e in index.edges_of_ref.get(r.id, ())]
            hit = any(e.dst_id in ok for e in edges)
            scip_hit = any(e.dst_id in ok and e.provenance == "scip" for e in edges)
            trusted = any(e.dst_id in ok and e.confidence >= args.min_confidence - 1e-9 for e in edges)
            if hit:
                reason = "" if trusted else f"edge below --min-confidence ({args.min_confidence})"
            elif not ok:
                reason = "definition has no node"
            elif not refs:
                reason = "no call reference at the site"
                if index.file_status.get(rel) == "parse_errors":
                    reason += " (file parsed with errors)"
            elif edges:
                reason = "edge to another node"
            else:
                statuses = sorted({r.status + (f" ({r.candidates} candidates)" if r.status == "ambiguous" else "")
                                   for r in refs})
                reason = "reference " + ", ".join(s.split(" (")[0] for s in statuses)
            ours = "; ".join(index.label(e.dst_id) + f" {e.confidence:.2f}" for e in edges[:2]) if edges else (
                ", ".join(r.status + (f" ({r.candidates} candidates)" if r.candidates > 1 else "") for r in refs)
                or "no call reference")
            rows.append({"path": rel, "line": line, "col": col, "name": name, "kind": skind, "hit": hit,
                         "trusted": trusted, "scip": scip_hit, "reason": reason, "ours": ours, "analyser": def_label(inside),
                         "code": sources.text(rel, line).strip()})
        if examined and (pos // batch) % 6 == 0:
            progress(f"{project.name}: recall {len(rows)}/{args.samples} sites ({examined} examined)")
    return {"sites": len(sites), "skipped_syntax": found.get("skipped", 0), "failures": found.get("failures", []),
            "examined": examined, "not_sampled": skipped, "notes": notes, "rows": rows}


# ---- one project -----------------------------------------------------------------------

def measure_project(project: Project, root: str, exe: str, cache: str, py_tools: str, ts_dir: str,
                    args, scip_bins: str | None = None) -> dict:
    """Indexes one project, measures precision and recall, and returns the figures with
    the report's lines."""
    started = time.monotonic()
    db_dir = os.path.join(cache, "db")
    os.makedirs(db_dir, exist_ok=True)
    db = os.path.join(db_dir, f"{project.name}.db")
    scip_file = None
    scip_s = None
    if args.scip and scip_bins:
        scip_file = os.path.join(db_dir, f"{project.name}.scip")
        scip_s = run_scip_indexer(project, root, scip_file, scip_bins)
    progress(f"{project.name}: indexing {root}")
    index_s, index_report = index_project(exe, root, db, scip_file)
    index = Index(db, project.langs)
    progress(f"{project.name}: {len(index.files)} files, {len(index.edges)} call edges in "
             f"{'/'.join(project.langs)} files; starting the analyser")
    worker, info = start_analyser(project, root, index.code_files, py_tools, ts_dir, args.query_timeout)
    try:
        sources = Sources(root)
        mapper = Mapper(project, root, index, sources)
        precision = measure_precision(project, index, mapper, worker, sources, args)
        recall = measure_recall(project, index, mapper, worker, sources, args)
    finally:
        worker.close()
    result = {"project": project.name, "version": project.version, "family": project.family,
              "root": root, "files": len(index.files), "code_files": len(index.code_files),
              "languages": dict(index.languages), "index_seconds": round(index_s, 2),
              "scip": index_report.get("scip"), "scip_seconds": round(scip_s, 1) if scip_s is not None else None,
              "call_edges": len(index.edges), "has_col": index.has_col, "has_provenance": index.has_provenance,
              "analyser": info, "precision": precision, "recall": recall, "stub_answers": mapper.stub_answers,
              "inconsistent": dict(mapper.inconsistent), "unreadable": sources.unreadable,
              "seconds": round(time.monotonic() - started, 1)}
    result["summary"] = summarize(result, args)
    result["report"] = report(project, result, args)
    progress(f"{project.name}: done in {result['seconds']:.0f}s")
    return result


def summarize(r: dict, args) -> dict:
    """The headline counts of one project (also summed over projects)."""
    prows = r["precision"]["rows"]
    rrows = r["recall"]["rows"]
    no_ctor = [x for x in rrows if x["kind"] != "constructor"]
    return {
        "sampled": len(prows),
        "no_answer": sum(x["verdict"] == "no answer" for x in prows),
        "judged": sum(x["verdict"] != "no answer" for x in prows),
        "correct": sum(x["verdict"] == "correct" for x in prows),
        "sites": len(rrows),
        "hits": sum(x["hit"] for x in rrows),
        "hits_trusted": sum(x["trusted"] for x in rrows),
        "hits_scip": sum(x.get("scip", False) for x in rrows),
        "sites_no_ctor": len(no_ctor),
        "hits_no_ctor": sum(x["hit"] for x in no_ctor),
        "hits_trusted_no_ctor": sum(x["trusted"] for x in no_ctor),
    }


def round_robin(rows: list[dict], key: str, limit: int) -> list[dict]:
    """Up to `limit` rows, taking one of each `key` value in turn (so every category shows)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for x in rows:
        groups[x.get(key) or ""].append(x)
    order = sorted(groups, key=lambda k: -len(groups[k]))
    out: list[dict] = []
    while len(out) < limit and any(groups[k] for k in order):
        for k in order:
            if groups[k] and len(out) < limit:
                out.append(groups[k].pop(0))
    return out


def report(project: Project, r: dict, args) -> list[str]:
    """The printed lines of one project."""
    L: list[str] = []
    s = r["summary"]
    info = r["analyser"]
    tool = f"jedi {info.get('version')}" if project.family == "python" else \
        f"typescript {info.get('version')} ({info.get('config') or 'no tsconfig.json: default options'}, " \
        f"{info.get('programFiles')} files in the program)"
    langs = ", ".join(f"{k} {v}" for k, v in sorted(r["languages"].items(), key=lambda kv: -kv[1]))
    L.append(f"== {project.name} {project.version}: {project.why}")
    L.append(f"tree {r['root']}")
    L.append(f"files indexed {r['files']} ({langs}); index --full {r['index_seconds']:.1f}s; "
             f"{r['call_edges']} call edges from {'/'.join(project.langs)} files")
    L.append(f"analyser: {tool}; refs.col {'present' if r['has_col'] else 'absent (columns searched in the line)'}; "
             f"edges.provenance {'present' if r['has_provenance'] else 'absent (rule = confidence value)'}")
    if r.get("scip"):
        sc = r["scip"]
        partial = " (failed part way: a partial index)" if project.scip_partial else ""
        L.append(f"scip: indexer {r['scip_seconds']:.1f}s{partial}; {sc['filesApplied']} files resolved from {sc['documents']} "
                 f"documents ({sc['filesStale']} stale, {sc['filesNotIndexed']} not indexed, {sc['filesUncovered']} "
                 f"files uncovered); references: {sc['refsResolved']} scip edges, {sc['refsExternal']} external, "
                 f"{sc['refsLocal']} values (variable, parameter, attribute), {sc['refsKept']} kept heuristic")
        for w in sc.get("warnings", [])[:3]:
            L.append(f"  warning: {short(w, 200)}")
    if info.get("configErrors"):
        L.append(f"  tsconfig errors: {'; '.join(info['configErrors'])[:300]}")
    if info.get("missing"):
        L.append(f"  indexed files not in the program: {len(info['missing'])} (e.g. {info['missing'][:3]})")
    if r["stub_answers"]:
        L.append(f"  WARNING: {r['stub_answers']} answers inside jedi's django-stubs")
    if r["inconsistent"]:
        L.append(f"  analyser definitions dropped because their line lacks their name: {sum(r['inconsistent'].values())} "
                 f"(e.g. {', '.join(list(r['inconsistent'])[:3])})")
    notes = r["precision"]["notes"] + r["recall"]["notes"]
    if notes:
        L.append(f"  analyser answers adjusted: {', '.join(f'{k} {v}' for k, v in notes.most_common())}")
    if r["unreadable"]:
        L.append(f"  files that could not be read: {len(r['unreadable'])} (e.g. {list(r['unreadable'].items())[:2]})")

    p = r["precision"]
    rows = p["rows"]
    L.append("")
    L.append(f"precision: {s['sampled']} edges sampled of {p['pool']} "
             + ("with provenance scip" if args.scip else f"with confidence >= {args.min_confidence}"))
    na = Counter(x["reason"] for x in rows if x["verdict"] == "no answer")
    L.append(f"  correct {s['correct']}, wrong {s['judged'] - s['correct']}, analyser: no answer {s['no_answer']}"
             + (f" ({', '.join(f'{k} {v}' for k, v in na.most_common())})" if na else ""))
    L.append(f"  precision {ratio(s['correct'], s['judged'])}")
    L.append(f"  {'rule':<22} {'edges':>7} {'sampled':>7} {'no ans':>6}  {'precision [95% CI] (correct/judged)':<38} "
             f"{'stored':>6}  flag")
    for rule in sorted({x["rule"] for x in rows} | set(p["pool_by_rule"]), key=lambda k: -p["pool_by_rule"].get(k, 0)):
        rr = [x for x in rows if x["rule"] == rule]
        judged = [x for x in rr if x["verdict"] != "no answer"]
        ok = sum(x["verdict"] == "correct" for x in judged)
        stored = p["stored"].get(rule)
        flag = ""
        if judged and stored is not None and abs(ok / len(judged) - stored) > 0.05:
            flag = f"DIFFERS by {ok / len(judged) - stored:+.2f}"
        L.append(f"  {rule:<22} {p['pool_by_rule'].get(rule, 0):>7} {len(rr):>7} {len(rr) - len(judged):>6}  "
                 f"{ratio(ok, len(judged)):<38} {stored if stored is not None else float('nan'):>6.3f}  {flag}")
    L.append("  by call-site kind (kind from the reference's qualifier; constructor when the analyser answers a class)")
    for kind in SITE_KINDS:
        judged = [x for x in rows if x["kind"] == kind and x["verdict"] != "no answer"]
        if judged or any(x["kind"] == kind for x in rows):
            ok = sum(x["verdict"] == "correct" for x in judged)
            L.append(f"    {SITE_KIND_NAMES[kind]:<30} {ratio(ok, len(judged))}")
    if p["failures"]:
        L.append(f"  position problems: {', '.join(f'{k} {v}' for k, v in p['failures'].most_common())}")
        for ex in p["failure_examples"][:5]:
            L.append(f"    {ex}")

    rc = r["recall"]
    rrows = rc["rows"]
    L.append("")
    L.append(f"recall: {len(rrows)} call sites whose callee the analyser resolves into the workspace "
             f"({rc['examined']} examined of {rc['sites']} enumerated; not enumerated: {rc['skipped_syntax']} calls "
             f"whose callee is neither a name nor an attribute, as f()(), a[k](), super())")
    if rc["not_sampled"]:
        L.append(f"  examined but not sampled: {', '.join(f'{k} {v}' for k, v in rc['not_sampled'].most_common())}")
    if rc["failures"]:
        L.append(f"  files the analyser could not parse: {len(rc['failures'])} "
                 f"(e.g. {'; '.join(f'{a}: {short(b, 60)}' for a, b in rc['failures'][:3])})")
    L.append(f"  {'':<24} {'any edge':<36} trusted edges only (>= {args.min_confidence})")
    L.append(f"  {'with constructors':<24} {ratio(s['hits'], s['sites']):<36} {ratio(s['hits_trusted'], s['sites'])}")
    L.append(f"  {'without constructors':<24} {ratio(s['hits_no_ctor'], s['sites_no_ctor']):<36} "
             f"{ratio(s['hits_trusted_no_ctor'], s['sites_no_ctor'])}")
    if args.scip:
        L.append(f"  {'scip edges only':<24} {ratio(s['hits_scip'], s['sites'])}")
    L.append("  by call-site kind")
    for kind in SITE_KINDS:
        kr = [x for x in rrows if x["kind"] == kind]
        if kr:
            L.append(f"    {SITE_KIND_NAMES[kind]:<30} {ratio(sum(x['hit'] for x in kr), len(kr)):<36} "
                     f"{ratio(sum(x['trusted'] for x in kr), len(kr))}")
    misses = [x for x in rrows if not x["hit"]]
    if misses:
        L.append("  misses by reason and call-site kind")
        by = Counter((x["reason"], x["kind"]) for x in misses)
        for reason, n in Counter(x["reason"] for x in misses).most_common():
            kinds = ", ".join(f"{k} {by[(reason, k)]}" for k in SITE_KINDS if by[(reason, k)])
            L.append(f"    {reason:<36} {n:>4}  ({kinds})")

    wrong = [x for x in rows if x["verdict"] == "wrong"]
    if wrong:
        L.append("")
        L.append("wrong edges by category")
        for cat, n in Counter((x["category"], x["kind"]) for x in wrong).most_common():
            L.append(f"  {n:>4}  {cat[0]}; {SITE_KIND_NAMES[cat[1]]}")
        L.append(f"wrong edges, per rule (up to {args.show_wrong} each)")
        for rule in sorted({x["rule"] for x in wrong}):
            L.append(f"  [{rule}]")
            for x in round_robin([w for w in wrong if w["rule"] == rule], "category", args.show_wrong):
                L.append(f"    {x['path']}:{x['line']}  {short(x['code'], 70)}  -> {x['ours']}  | analyser: {x['analyser']}")
    if misses:
        L.append(f"missed call sites (up to {args.show_missed})")
        for x in round_robin(misses, "reason", args.show_missed):
            L.append(f"    {x['path']}:{x['line']}  {short(x['code'], 70)}  -> {x['ours']}  | analyser: {x['analyser']}"
                     f"  [{x['reason']}; {x['kind']}]")
    L.append(f"({project.name}: {r['seconds']:.0f}s)")
    return L


# ---- the jedi worker -------------------------------------------------------------------

def jedi_worker() -> None:
    """`call_accuracy.py --jedi-worker`, run with jedi on PYTHONPATH: the Python side of
    the protocol bench/ts_calls.mjs describes (init, sites, resolve, quit), with
    init {"root", "sys_path", "timeout"} and resolve queries [REL, LINE, COL, NAME]."""
    out = sys.stdout
    sys.stdout = sys.stderr  # whatever jedi or parso might print stays off the protocol
    import ast
    import signal
    import warnings
    from pathlib import Path

    import jedi
    import parso
    from jedi.inference.gradual import typeshed

    # jedi loads its bundled django-stubs/__init__.pyi from this constant whenever a module
    # named `django` is imported; pointing it at a missing file makes jedi infer from
    # Django's source instead (answers then name lines of django/*.py, not of stubs).
    typeshed.DJANGO_INIT_PATH = Path("/nonexistent/django-stubs-switched-off/__init__.pyi")
    env = jedi.InterpreterEnvironment()
    state: dict = {}

    class QueryTimeout(Exception):
        pass

    def on_alarm(signum, frame):
        raise QueryTimeout()

    signal.signal(signal.SIGALRM, on_alarm)

    def timed(fn, *a, **kw):
        signal.setitimer(signal.ITIMER_REAL, state["timeout"])
        try:
            return fn(*a, **kw)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def describe(name, via: str) -> dict:
        path = str(name.module_path) if name.module_path else None
        kind = name.type
        # A name bound by an import jedi could not follow further (a compiled module such
        # as _weakref, or one that is not installed): it is no definition.
        tree_name = getattr(name._name, "tree_name", None)
        stopped = tree_name is not None and tree_name.search_ancestor("import_from", "import_name") is not None
        fn = kind in ("function", "class") and not stopped
        return {"path": path, "line": name.line or 0, "name": name.name, "kind": kind, "via": via,
                "callable": fn, "definite": fn, "import": stopped, "dts": bool(path and path.endswith(".pyi"))}

    twins: dict[str, list[dict]] = {}

    def posix_twin(name: str) -> list[dict]:
        """The posixpath definitions of `name` (none when posixpath lacks it)."""
        if name not in twins:
            code = f"import posixpath\nposixpath.{name}\n"
            script = jedi.Script(code, path=Path(state["root"]) / "__posix_twin__.py",
                                 project=state["project"], environment=env)
            col = len("posixpath.")
            names = timed(script.goto, 2, col, follow_imports=True)
            found = [describe(n, "posixpath") for n in names]
            if not any(d["callable"] for d in found) or any(d["dts"] for d in found):
                found += [describe(n, "posixpath") for n in timed(script.infer, 2, col) if n.type in ("function", "class")]
            twins[name] = [d for d in found if d["callable"] or d["dts"]]
        return twins[name]

    def is_ntpath(d: dict) -> bool:
        return bool(d["path"]) and os.path.basename(d["path"]) in ("ntpath.py", "ntpath.pyi")

    def init(req: dict) -> dict:
        state["root"] = req["root"]
        state["timeout"] = float(req.get("timeout") or 30)
        if req.get("cache_dir"):
            jedi.settings.cache_directory = req["cache_dir"]  # parso's pickles, kept in --cache
        state["project"] = jedi.Project(req["root"], sys_path=req["sys_path"], smart_sys_path=False)
        return {"version": jedi.__version__, "parso": parso.__version__, "sys_path": req["sys_path"]}

    def sites(req: dict) -> dict:
        found: list[list] = []
        failures: list[list] = []
        skipped = 0
        for rel in req["files"]:
            path = os.path.join(state["root"], rel)
            try:
                data = open(path, "rb").read()
                data.decode("utf-8")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = ast.parse(data, filename=path)
            except (SyntaxError, ValueError, UnicodeDecodeError, OSError) as e:
                failures.append([rel, f"{type(e).__name__}: {e}"])
                continue
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                f = node.func
                if isinstance(f, ast.Name):
                    found.append([rel, f.lineno, f.col_offset, f.id, "bare"])
                elif isinstance(f, ast.Attribute):
                    v = f.value
                    if isinstance(v, ast.Name) and v.id in ("self", "cls"):
                        kind = "self"
                    elif isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super":
                        kind = "super"
                    else:
                        kind = "attr"
                    found.append([rel, f.end_lineno, f.end_col_offset - len(f.attr.encode("utf-8")), f.attr, kind])
                else:
                    skipped += 1
        return {"sites": found, "skipped": skipped, "failures": failures}

    def resolve(req: dict) -> dict:
        queries = req["queries"]
        results: list[dict | None] = [None] * len(queries)
        by_file: dict[str, list[int]] = defaultdict(list)
        for i, q in enumerate(queries):
            by_file[q[0]].append(i)
        for rel, idx in by_file.items():
            path = os.path.join(state["root"], rel)
            try:
                code = open(path, "rb").read().decode("utf-8")
                script = jedi.Script(code, path=Path(path), project=state["project"], environment=env)
            except (OSError, UnicodeDecodeError) as e:
                for i in idx:
                    results[i] = {"token": None, "defs": [], "error": f"{type(e).__name__}: {e}"}
                continue
            lines = parso.split_lines(code)
            for i in idx:
                _, line, col, _name = queries[i]
                text = lines[line - 1] if 0 < line <= len(lines) else ""
                ccol = len(text.encode("utf-8")[:col].decode("utf-8", "ignore"))
                m = re.match(r"\w+", text[ccol:])
                res: dict = {"token": m.group(0) if m else None, "defs": []}
                try:
                    defs = [describe(n, "goto") for n in timed(script.goto, line, ccol, follow_imports=True)]
                    if not any(d["callable"] for d in defs) or any(d["dts"] for d in defs):
                        # infer() too when goto found no function or class (`f = obj.method;
                        # f()`: the value the variable holds), and when goto stopped in a
                        # typeshed stub: goto fails to turn some stub methods back into their
                        # source (unittest's TestCase.assertEqual), infer does not.
                        # jedi infers `classmethod.__get__` of its builtins stub for a
                        # classmethod read through `cls` (`f = cls.m`): a descriptor
                        # artifact, dropped.
                        seen = {(d["path"], d["line"]) for d in defs}
                        for n in timed(script.infer, line, ccol):
                            d = describe(n, "infer")
                            if d["callable"] and n.name != "__get__" and (d["path"], d["line"]) not in seen:
                                defs.append(d)
                    # typeshed's os/path.pyi star-imports ntpath under `if sys.platform ==
                    # "win32"` and posixpath under `else`; jedi cannot decide the test and
                    # answers ntpath for os.path.join & co. Off Windows such a call reaches
                    # posixpath: its definition replaces ntpath's when the call goes through
                    # os.path (`os.path.join(`, `path.join(`, or a name imported from os.path).
                    if sys.platform != "win32" and any(is_ntpath(d) for d in defs):
                        via_os_path = re.search(r"(?<![\w])path\s*\.\s*$", text[:ccol]) is not None
                        if not via_os_path and not re.search(r"[\w.]\s*$", text[:ccol]):
                            local = timed(script.goto, line, ccol, follow_imports=False)
                            via_os_path = any(re.search(r"\bos\.path\b|\bfrom\s+os\s+import\b", n.get_line_code() or "")
                                              for n in local if n.module_path == Path(path))
                        twin = posix_twin(next(d["name"] for d in defs if is_ntpath(d))) if via_os_path else []
                        if twin:
                            defs = [d for d in defs if not is_ntpath(d)] + twin
                            res["note"] = "os.path answered with posixpath, not ntpath"
                    res["defs"] = defs
                except QueryTimeout:
                    res["error"] = f"timeout after {state['timeout']:.0f}s"
                except Exception as e:  # jedi's own failures on odd code: reported per query
                    res["error"] = f"{type(e).__name__}: {str(e)[:300]}"
                results[i] = res
        return {"results": results}

    handlers = {"init": init, "sites": sites, "resolve": resolve}
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            if req.get("op") == "quit":
                break
            answer = handlers[req["op"]](req)
        except Exception as e:  # a failed request is answered, and the caller stops on it
            import traceback
            answer = {"error": f"{type(e).__name__}: {e}\n{traceback.format_exc()[-1500:]}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


# ---- main ------------------------------------------------------------------------------

def pooled(results: list[dict]) -> dict:
    """Summaries of several projects added up."""
    total: Counter = Counter()
    for r in results:
        total.update(r["summary"])
    return dict(total)


def table_row(label: str, files: str, s: dict) -> str:
    return (f"{label:<30} {files:>7} {s['sampled']:>7} {s['no_answer']:>6}  {ratio(s['correct'], s['judged']):<32} "
            f"{ratio(s['hits'], s['sites']):<32} {ratio(s['hits_no_ctor'], s['sites_no_ctor'])}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--jedi-worker":
        jedi_worker()
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="the constellation binary (default: benchlib.constellation_bin())")
    ap.add_argument("--project", action="append", help="measure only this project (repeatable; see --list)")
    ap.add_argument("--list", action="store_true", help="list the projects and exit")
    ap.add_argument("--samples", type=int, default=300, help="edges and call sites sampled per project (300)")
    ap.add_argument("--seed", type=int, default=1, help="random seed of the samples (1)")
    ap.add_argument("--min-confidence", type=float, default=0.9,
                    help="precision samples edges with at least this confidence; 0 for all (0.9)")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "constellation-bench-cache"),
                    help="where tools, downloads, copies and databases are kept (reused by reruns)")
    ap.add_argument("--jobs", type=int, default=2, help="projects measured at once (2)")
    ap.add_argument("--query-timeout", type=float, default=30, help="seconds jedi may spend on one call site (30)")
    ap.add_argument("--show-wrong", type=int, default=8, help="wrong edges printed per rule (8)")
    ap.add_argument("--show-missed", type=int, default=15, help="missed call sites printed per project (15)")
    ap.add_argument("--json", help="write the figures and every sampled edge and site to this file")
    ap.add_argument("--scip", action="store_true",
                    help="precise mode: run the SCIP indexer first and index with --scip (see above)")
    args = ap.parse_args()

    if args.list:
        for p in PROJECTS:
            src = {"pypi": f"PyPI sdist {p.package}=={p.version}", "npm": f"npm {p.package}@{p.version}",
                   "corpus": f"bench/corpora.sh {p.package}"}[p.source]
            print(f"{p.name:<16} {p.family:<7} {src:<34} {p.why}")
        return
    names = args.project or [p.name for p in PROJECTS if p.default]
    known = {p.name: p for p in PROJECTS}
    for n in names:
        if n not in known:
            die(f"unknown project {n!r}; --list shows them")
    selected = [known[n] for n in dict.fromkeys(names)]
    exe = os.path.abspath(args.bin or constellation_bin())
    if not os.access(exe, os.X_OK):
        die(f"no constellation binary at {exe} (cargo build --release, or --bin PATH)")
    started = time.monotonic()
    cache = os.path.abspath(args.cache)
    os.makedirs(cache, exist_ok=True)
    py_tools, ts_dir = install_tools(cache)
    scip_bins = install_scip(cache) if args.scip else None
    roots = {}
    for p in selected:
        roots[p.name] = fetch(p, cache)
    results: dict[str, dict] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {p.name: pool.submit(measure_project, p, roots[p.name], exe, cache, py_tools, ts_dir, args,
                                       scip_bins)
                   for p in sorted(selected, key=lambda p: -p.cost)}
        for name, fut in futures.items():
            try:
                results[name] = fut.result()
            except RuntimeError as e:
                die(f"{name}: {e}")
    elapsed = time.monotonic() - started

    ordered = [results[p.name] for p in selected]
    for r in ordered:
        print()
        print("\n".join(r["report"]))
    print()
    print("== all projects (precision over " + ("edges with provenance scip" if args.scip else
          f"edges with confidence >= {args.min_confidence}") + "; recall over any edge)")
    print(f"{'project':<30} {'files':>7} {'edges':>7} {'no ans':>6}  {'precision':<32} {'recall with constructors':<32} "
          f"recall without constructors")
    for r in ordered:
        print(table_row(f"{r['project']} {r['version']}", str(r["files"]), r["summary"]))
    families = [("python", "Python"), ("js", "TypeScript/JavaScript")]
    overall = {}
    for fam, label in families:
        rs = [r for r in ordered if r["family"] == fam]
        if rs:
            overall[fam] = pooled(rs)
            print(table_row(f"{label} (pooled)", str(sum(r["files"] for r in rs)), overall[fam]))
    overall["all"] = pooled(ordered)
    print(table_row("all (pooled)", str(sum(r["files"] for r in ordered)), overall["all"]))

    node_v = run(["node", "--version"]).stdout.strip() if shutil.which("node") else "-"
    bin_v = run([exe, "--version"]).stdout.strip()
    jedi_v = next((r["analyser"].get("version") for r in ordered if r["family"] == "python"), "-")
    ts_v = next((r["analyser"].get("version") for r in ordered if r["family"] == "js"), "-")
    print()
    print("command: " + " ".join([os.path.relpath(sys.executable) if False else "python3",
                                   os.path.relpath(os.path.abspath(__file__), REPO)] + sys.argv[1:]))
    print(f"binary: {exe} ({bin_v}, modified {time.strftime('%Y-%m-%d %H:%M', time.localtime(os.path.getmtime(exe)))})")
    print(f"versions: " + ", ".join(f"{r['project']} {r['version']}" for r in ordered)
          + f"; jedi {jedi_v}; typescript {ts_v}; python {sys.version.split()[0]}; node {node_v}")
    print(f"samples {args.samples}, seed {args.seed}, min confidence {args.min_confidence}, jobs {args.jobs}; "
          f"cache {cache}; wall time {elapsed / 60:.1f} min")

    if args.json:
        def clean(r: dict) -> dict:
            out = {k: v for k, v in r.items() if k != "report"}
            out["precision"] = dict(r["precision"], failures=dict(r["precision"]["failures"]),
                                    notes=dict(r["precision"]["notes"]))
            out["recall"] = dict(r["recall"], not_sampled=dict(r["recall"]["not_sampled"]),
                                 notes=dict(r["recall"]["notes"]))
            return out
        with open(args.json, "w") as f:
            json.dump({"command": sys.argv, "binary": exe, "binary_version": bin_v, "samples": args.samples,
                       "seed": args.seed, "min_confidence": args.min_confidence, "jedi": jedi_v, "typescript": ts_v,
                       "python": sys.version.split()[0], "node": node_v, "seconds": round(elapsed, 1),
                       "overall": overall, "projects": [clean(r) for r in ordered]}, f, indent=1)
        print(f"figures written to {args.json}")


if __name__ == "__main__":
    main()
