#!/usr/bin/env python3
"""Import accuracy: Constellation's file-level import edges next to madge (JavaScript) and
grimp (Python), on the same real trees; precision, recall and the files on cycles.

What it does:
  1. Installs the reference tools into a temporary directory: madge (npm, `madge@8`, with
     `npm install --prefix`) and grimp (PyPI, `grimp>=3,<4`, in a new venv).
  2. Copies the corpora with bench/corpora.sh unless given: npm's own source
     (`$(npm root -g)/npm`, CommonJS) and the Python standard library.
  3. Indexes each copy with Constellation (`index --full`, database outside the tree) and
     reads its edges with `sql`: `SELECT DISTINCT src_path, dst_path FROM file_imports`.
  4. Runs the reference tool on the same copy and compares.

What an edge is, on each side, and how both are put in one form:

  madge (`madge --json .` run in the tree, default options): for every `.js` file under
  the tree (madge's default `fileExtensions`; node_modules skipped), the files its
  `require('literal')`, `import`, `export ... from` and `import('literal')` resolve to
  with Node's rules (relative paths, extensions, `index.js`, a directory's package.json
  `main`). Specifiers that resolve into node_modules (`includeNpm: false`), Node core
  modules and unresolvable ones are left out. Paths are relative to the tree.
  Constellation: every resolved import reference of the same kinds (`require`, `import`,
  re-exports, literal dynamic `import()`); bare packages are external (node_modules is
  not indexed), so both sides hold only tree-internal edges.
  Normalized form: distinct (importer, imported) pairs of different files; only pairs
  whose importer is a file madge scanned (a key of its JSON) count, so files madge does
  not read by default (`.mjs`, `.cjs`, `.ts`) do not make our extra edges. madge's parser
  (babel via node-source-walk, strict mode) fails on some valid sloppy-mode scripts
  (e.g. a variable named `protected`) and then reports no dependency for that file,
  silently. The script re-runs that parser on every importer and prints the figures
  twice: raw, and "parsed" (pairs whose importer madge could not parse left out on both
  sides).

  grimp (`grimp.build_graph(PACKAGE, cache_dir=None)`, default options, run with the
  copy first on PYTHONPATH; the package's location is printed and checked to be inside
  the copy): nodes are the modules of one top-level package (`.py` files of regular
  packages: a directory without `__init__.py` below the package is not part of it);
  an edge m -> n for every import statement anywhere in m (module level, function
  bodies, `if TYPE_CHECKING:` blocks, try/except) whose target is in the package, where
  `import a.b.c` names module `a.b.c` only (not its parents), `from a.b import c` names
  `a.b.c` when that is a module and `a.b` otherwise, relative imports are taken from m's
  package, and a name that is no module maps to its nearest enclosing module.
  Normalized form: module -> file (`a.b` is `a/b.py`, a package `a` is `a/__init__.py`),
  self-imports dropped; Constellation's pairs are restricted to files that are modules
  of that grimp graph (our edges into other files of the package directory, such as
  `.pyi` stubs or namespace directories, are counted apart and not compared).

Cycles: "files on cycles" are the files in strongly connected components of two or
more files of each normalized edge set (the same rule as Constellation's summary). For
madge the script also prints the files of madge's own `--circular` report and checks
them against ours; grimp has no cycle report of its own, so its components are used.

How to run (after `cargo build --release`; needs node/npm and network access to the npm
registry and PyPI):

    python3 bench/import_accuracy.py [--npm DIR] [--stdlib DIR]
        [--packages email,json,asyncio,concurrent,...] [--tools DIR] [--show N]

--npm/--stdlib: existing copies (from bench/corpora.sh); default: fresh copies in a
temporary directory. --tools: keep the installed tools in DIR (reused when present).
--show: how many mismatching edges to list per comparison (default 40).

Prints, per comparison: edges on each side, common edges, precision (common / ours),
recall (common / reference), every mismatching edge with the reference's or our
reason, and the files-on-cycles sets with their differences. Exit status: 0 when every
precision and recall (the "parsed" figures for madge) is at least 0.97 and every
files-on-cycles set agrees, 1 otherwise, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from benchlib import REPO, constellation_bin, die

THRESHOLD = 0.97
DEFAULT_PACKAGES = [
    "email", "json", "asyncio", "concurrent", "importlib", "xml", "http", "unittest",
    "multiprocessing", "logging", "urllib", "ctypes", "tomllib", "lib2to3", "idlelib",
    "tkinter", "sqlite3", "wsgiref", "xmlrpc", "zoneinfo", "re", "dbm", "curses",
]

MADGE_VERSION = "madge@8"
GRIMP_REQUIREMENT = "grimp>=3,<4"


def run(cmd: list[str], ok_codes: tuple[int, ...] = (0,), **kw) -> subprocess.CompletedProcess:
    """Runs cmd, capturing text output; dies with its stderr when it exits with a code
    not in ok_codes."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode not in ok_codes:
        die(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-1500:]}")
    return p


# ---- tools ---------------------------------------------------------------------------

def install_madge(tools: str) -> str:
    """madge installed under tools/madge; returns that directory."""
    home = os.path.join(tools, "madge")
    if not os.path.exists(os.path.join(home, "node_modules", ".bin", "madge")):
        if not shutil.which("npm"):
            die("npm not found (needed to install madge)")
        os.makedirs(home, exist_ok=True)
        with open(os.path.join(home, "package.json"), "w") as f:
            f.write('{"private": true}\n')
        print(f"installing {MADGE_VERSION} into {home}", flush=True)
        run(["npm", "install", "--no-audit", "--no-fund", "--prefix", home, MADGE_VERSION])
    return home


def install_grimp(tools: str) -> str:
    """A venv under tools/venv with grimp; returns its python."""
    venv = os.path.join(tools, "venv")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        print(f"installing {GRIMP_REQUIREMENT} into {venv}", flush=True)
        run([sys.executable, "-m", "venv", venv])
    probe = subprocess.run([py, "-c", "import grimp"], capture_output=True)
    if probe.returncode != 0:
        run([py, "-m", "pip", "install", "-q", GRIMP_REQUIREMENT])
    return py


# ---- Constellation -------------------------------------------------------------------

def our_edges(exe: str, corpus: str, work: str, name: str) -> set[tuple[str, str]]:
    """Distinct (importer, imported) file pairs from a fresh index of corpus."""
    db = os.path.join(work, f"{name}.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    run([exe, "index", corpus, "--db", db, "--full", "-q"])
    out = run([exe, "sql", corpus, "--db", db, "--json",
               "SELECT DISTINCT src_path, dst_path FROM file_imports"]).stdout
    edges = set()
    for line in out.splitlines():
        if line.strip():
            row = json.loads(line)
            if row["src_path"] != row["dst_path"]:
                edges.add((row["src_path"], row["dst_path"]))
    return edges


def our_specifiers(exe: str, corpus: str, work: str, name: str, src: str, dst: str) -> str:
    """How our edge src -> dst was written (`specifier@line` of its import statements)."""
    db = os.path.join(work, f"{name}.db")
    q = lambda p: p.replace("'", "''")
    sql = (f"SELECT line, specifier FROM file_imports WHERE src_path = '{q(src)}' "
           f"AND dst_path = '{q(dst)}' ORDER BY line")
    out = run([exe, "sql", corpus, "--db", db, "--json", sql]).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return ", ".join(f"{r['specifier']}@{r['line']}" for r in rows)


def our_refs(exe: str, corpus: str, work: str, name: str, path: str) -> list[dict]:
    """The import references written in one file, with their status (for explanations)."""
    db = os.path.join(work, f"{name}.db")
    sql = ("SELECT r.line, r.name AS specifier, r.status FROM refs r JOIN files f ON f.id = r.file_id "
           f"WHERE r.kind = 'import' AND f.path = '{path.replace(chr(39), chr(39) * 2)}' ORDER BY r.line")
    out = run([exe, "sql", corpus, "--db", db, "--json", sql]).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


# ---- graphs --------------------------------------------------------------------------

def cycle_files(edges: set[tuple[str, str]]) -> set[str]:
    """Files in strongly connected components of two or more files (iterative Tarjan)."""
    adj: dict[str, list[str]] = {}
    for a, b in edges:
        if a != b:
            adj.setdefault(a, []).append(b)
            adj.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: set[str] = set()
    counter = 0
    for start in sorted(adj):
        if start in index:
            continue
        work = [(start, iter(sorted(adj[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(adj[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.update(comp)
    return out


class Score:
    """Precision/recall bookkeeping of one comparison."""

    def __init__(self, label: str, ours: set, ref: set):
        self.label = label
        self.ours = ours
        self.ref = ref
        self.common = ours & ref

    @property
    def precision(self) -> float:
        return len(self.common) / len(self.ours) if self.ours else 1.0

    @property
    def recall(self) -> float:
        return len(self.common) / len(self.ref) if self.ref else 1.0

    def line(self) -> str:
        return (f"{self.label:<28} ours {len(self.ours):>5}  ref {len(self.ref):>5}  common {len(self.common):>5}"
                f"  precision {self.precision:.4f}  recall {self.recall:.4f}")

    def ok(self) -> bool:
        return self.precision >= THRESHOLD and self.recall >= THRESHOLD


def print_cycles(label: str, ours: set[str], ref: set[str], ref_name: str) -> bool:
    same = ours == ref
    print(f"  files on cycles ({label}): ours {len(ours)}, {ref_name} {len(ref)}: "
          f"{'same set' if same else 'DIFFERENT'}")
    for f in sorted(ref - ours):
        print(f"    only {ref_name}: {f}")
    for f in sorted(ours - ref):
        print(f"    only ours: {f}")
    return same


# ---- madge / npm ---------------------------------------------------------------------

PARSE_CHECK_JS = r"""
// Re-runs the parser madge's precinct uses (node-source-walk, its default options) on
// each file given on stdin (one path a line); prints the ones it cannot parse as JSON.
const Walker = require(process.argv[2]);
const fs = require('fs');
const files = fs.readFileSync(0, 'utf8').split('\n').filter(Boolean);
const failed = {};
for (const f of files) {
  try { new Walker().parse(fs.readFileSync(f, 'utf8')); }
  catch (e) { failed[f] = String(e.message || e); }
}
process.stdout.write(JSON.stringify(failed));
"""


def compare_madge(exe: str, madge_home: str, corpus: str, work: str, show: int) -> bool:
    print(f"\n== npm's source vs madge ({corpus})")
    madge = os.path.join(madge_home, "node_modules", ".bin", "madge")
    version = run([madge, "--version"]).stdout.strip()
    deps = json.loads(run([madge, "--json", "."], cwd=corpus).stdout)
    # `--circular` exits 1 when it finds a cycle.
    circular = json.loads(run([madge, "--json", "--circular", "."], ok_codes=(0, 1), cwd=corpus).stdout)
    print(f"madge {version}: {len(deps)} files, {sum(len(v) for v in deps.values())} edges, "
          f"{len(circular)} circular chains reported")
    scanned = set(deps)
    ref = {(a, b) for a, v in deps.items() for b in v if a != b}
    ours_all = our_edges(exe, corpus, work, "npm")
    ours = {(a, b) for a, b in ours_all if a in scanned}
    print(f"constellation: {len(ours_all)} edges, {len(ours)} from files madge scanned "
          f"({len(ours_all) - len(ours)} from other files, not compared)")

    walker = os.path.join(madge_home, "node_modules", "node-source-walk")
    script = os.path.join(work, "parse_check.js")
    with open(script, "w") as f:
        f.write(PARSE_CHECK_JS)
    p = subprocess.run(["node", script, walker], input="\n".join(sorted(f for f in scanned if f.endswith(".js"))),
                       capture_output=True, text=True, cwd=corpus)
    if p.returncode != 0:
        die(f"parser check failed: {p.stderr.strip()[-800:]}")
    unparsed = json.loads(p.stdout or "{}")
    print(f"files madge's parser rejects (it then reports no dependency for them): {len(unparsed)}")
    for f, msg in sorted(unparsed.items()):
        print(f"  {f}: {msg}")

    raw = Score("raw", ours, ref)
    parsed = Score("parsed (unparsable left out)",
                   {e for e in ours if e[0] not in unparsed}, {e for e in ref if e[0] not in unparsed})
    print(raw.line())
    print(parsed.line())
    for label, missing, reason in (("only madge", ref - ours, None), ("only ours", ours - ref, "ours")):
        for a, b in sorted(missing)[:show]:
            why = ""
            if reason and a in unparsed:
                why = "madge cannot parse the importer"
            elif not reason:
                specs = [r for r in our_refs(exe, corpus, work, "npm", a) if r["status"] != "resolved"]
                why = "our unresolved specifiers there: " + ", ".join(
                    f"{r['specifier']}@{r['line']}:{r['status']}" for r in specs[:6])
            if reason:
                why = (why + "; " if why else "") + "written as " + our_specifiers(exe, corpus, work, "npm", a, b)
            print(f"  {label}: {a} -> {b}  ({why})")

    ok = parsed.ok()
    ours_cyc = cycle_files(ours)
    ok &= print_cycles("components of both graphs", ours_cyc, cycle_files(ref), "madge")
    madge_report = {f for chain in circular for f in chain}
    ok &= print_cycles("madge --circular", ours_cyc, madge_report, "madge")
    return ok


# ---- grimp / stdlib ------------------------------------------------------------------

GRIMP_DUMP = r"""
import importlib.util, json, sys
import grimp
out = {}
for pkg in sys.argv[1:]:
    spec = importlib.util.find_spec(pkg)
    try:
        g = grimp.build_graph(pkg, cache_dir=None)
    except Exception as e:  # grimp refuses some packages (e.g. undecodable files)
        out[pkg] = {"error": f"{type(e).__name__}: {e}"}
        continue
    out[pkg] = {
        "location": list(spec.submodule_search_locations or [spec.origin]),
        "modules": sorted(g.modules),
        "edges": sorted((m, d) for m in g.modules for d in g.find_modules_directly_imported_by(m)),
    }
json.dump({"grimp": grimp.__version__ if hasattr(grimp, "__version__") else "?", "packages": out}, sys.stdout)
"""


def module_file(corpus: str, module: str) -> str:
    rel = module.replace(".", "/")
    if os.path.isdir(os.path.join(corpus, rel)):
        return rel + "/__init__.py"
    return rel + ".py"


def compare_grimp(exe: str, grimp_py: str, corpus: str, work: str, packages: list[str], show: int) -> bool:
    print(f"\n== Python standard library vs grimp ({corpus})")
    env = dict(os.environ, PYTHONPATH=corpus, PYTHONDONTWRITEBYTECODE="1")
    dump = json.loads(run([grimp_py, "-c", GRIMP_DUMP, *packages], env=env, cwd=work).stdout)
    version = run([grimp_py, "-m", "pip", "show", "grimp"]).stdout
    version = next((l.split(":", 1)[1].strip() for l in version.splitlines() if l.startswith("Version:")), "?")
    print(f"grimp {version}; packages: {', '.join(packages)}")
    ours_all = our_edges(exe, corpus, work, "stdlib")
    ok = True
    total_ours: set = set()
    total_ref: set = set()
    rows = []
    for pkg in packages:
        info = dump["packages"][pkg]
        if "error" in info:
            print(f"  {pkg}: grimp failed ({info['error']}); skipped")
            continue
        loc = os.path.realpath(info["location"][0])
        if not loc.startswith(os.path.realpath(corpus) + os.sep):
            die(f"grimp scanned {pkg} at {loc}, not inside the copy {corpus}")
        files = {module_file(corpus, m) for m in info["modules"]}
        ref = {(module_file(corpus, a), module_file(corpus, b)) for a, b in info["edges"] if a != b}
        ours = {(a, b) for a, b in ours_all if a in files and b in files}
        prefix = pkg.replace(".", "/") + "/"
        aside = {(a, b) for a, b in ours_all
                 if (a.startswith(prefix) and b.startswith(prefix)) and (a, b) not in ours}
        score = Score(pkg, ours, ref)
        rows.append(score)
        total_ours |= ours
        total_ref |= ref
        print(score.line() + (f"  (+{len(aside)} ours outside grimp's modules)" if aside else ""))
        for a, b in sorted(ref - ours)[:show]:
            specs = [r for r in our_refs(exe, corpus, work, "stdlib", a) if r["status"] != "resolved"]
            print(f"    only grimp: {a} -> {b}  (our unresolved there: "
                  + ", ".join(f"{r['specifier']}@{r['line']}" for r in specs[:6]) + ")")
        for a, b in sorted(ours - ref)[:show]:
            print(f"    only ours:  {a} -> {b}  (written as "
                  + our_specifiers(exe, corpus, work, "stdlib", a, b) + ")")
        for a, b in sorted(aside)[:show]:
            print(f"    ours, not a grimp module: {a} -> {b}")
        ok &= score.ok()
        same = cycle_files(ours) == cycle_files(ref)
        if not same or cycle_files(ref):
            ok &= print_cycles(pkg, cycle_files(ours), cycle_files(ref), "grimp")
    total = Score("all packages", total_ours, total_ref)
    print(total.line())
    return ok and total.ok()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--npm", help="copy of npm's source (default: a fresh copy)")
    ap.add_argument("--stdlib", help="copy of the Python standard library (default: a fresh copy)")
    ap.add_argument("--packages", default=",".join(DEFAULT_PACKAGES),
                    help="comma-separated top-level stdlib packages for grimp")
    ap.add_argument("--tools", help="install madge and grimp here and keep them (default: temporary)")
    ap.add_argument("--only", choices=["js", "py"], help="run one comparison only")
    ap.add_argument("--show", type=int, default=40, help="mismatching edges listed per comparison")
    args = ap.parse_args()

    exe = constellation_bin()
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        die(f"constellation binary not found at {exe}: run `cargo build --release` or set CONSTELLATION_BIN")
    work = tempfile.mkdtemp(prefix="constellation-imports-")
    try:
        tools = os.path.abspath(args.tools) if args.tools else os.path.join(work, "tools")
        os.makedirs(tools, exist_ok=True)
        corpora = os.path.join(work, "corpora")
        wanted = [c for c, given, kind in (("npm", args.npm, "js"), ("cpython-stdlib", args.stdlib, "py"))
                  if not given and args.only in (None, kind)]
        if wanted:
            run(["bash", os.path.join(REPO, "bench", "corpora.sh"), corpora, *wanted])
        ok = True
        if args.only in (None, "js"):
            npm = os.path.abspath(args.npm) if args.npm else os.path.join(corpora, "npm")
            if not os.path.isdir(npm):
                die(f"no npm source at {npm}")
            ok &= compare_madge(exe, install_madge(tools), npm, work, args.show)
        if args.only in (None, "py"):
            stdlib = os.path.abspath(args.stdlib) if args.stdlib else os.path.join(corpora, "cpython-stdlib")
            if not os.path.isdir(stdlib):
                die(f"no stdlib copy at {stdlib}")
            packages = [p for p in args.packages.split(",") if p]
            ok &= compare_grimp(exe, install_grimp(tools), stdlib, work, packages, args.show)
        print(f"\nresult: {'all figures at or above ' + str(THRESHOLD) + ' and cycle sets equal' if ok else 'FAILED'}")
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
