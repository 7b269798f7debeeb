#!/usr/bin/env python3
"""Symbol recall of Constellation against universal-ctags, and how its references resolve.

What it measures, per corpus and per language: of the definitions universal-ctags finds
(the kinds below), the share for which the Constellation index has a symbol node in the
same file (path relative to CORPUS) that starts on the tag's line ("line"), or, failing
that, a node with the tag's name whose declaration head spans the tag's line: it starts
at most 3 lines above it and has not ended ("head": `static int` alone on the line above
a C function's name, `template <..>` above a C++ class). Recall = (line + head) / tags.
"name+line" is the share where the node starting on the line also has the tag's name.

    language    ctags kinds measured                          files
    python      class, function, member (= method)            .py .pyi
    javascript  function, class, method, generator            .js .jsx .mjs .cjs
    typescript  function, class, method, interface, enum      .ts .mts .cts (ctags 5.9
                                                              has no TSX parser: .tsx is
                                                              not measured)
    rust        function, method, struct, enum,               .rs
                interface (= trait)
    go          func (functions and methods), struct,         .go
                interface, methodSpec (interface methods)
    java        class, interface, enum, method (and           .java
                constructors), annotation (@interface)
    c, cpp      function (definitions), class, struct,        .c .h; .cc .cpp .cxx .c++
                union, enum, namespace                        .hh .hpp .hxx .h++ .inl ..

A header is measured under the language the index gave it (C or C++; ctags itself parses
every .h with its C++ parser).

Tags that name no definition are not counted, and the count of each is printed: names
ctags invents for anonymous definitions (`AnonymousFunction…`, `anonFunc…`, `__anon…`),
JavaScript/TypeScript `class` tags on lines without the `class` keyword (ctags 5.9 tags
object literals such as `const MAP = {` as classes), and Java types named in a `permits`
clause (ctags 5.9 predates sealed types).

References: from the index's `refs` table, per language, how many call sites resolved
(by confidence: 0.95 same file, 0.80 in scope, 0.50 unique global), how many are
ambiguous (several candidates, no edge), external (Go `pkg.F()` into a package outside
the workspace) and unresolved; and the same statuses for imports.

ctags runs as `ctags --output-format=json --fields=+nKzl -R --exclude=.* --exclude=node_modules
--exclude=target -f -` inside CORPUS, i.e. it skips hidden files and directories, as the
indexer does. Nodes of kind `file` never count as a match.

How to run (each CORPUS should be a copy, see bench/corpora.sh: indexing writes into it
only when the default database location is used):

    python3 bench/ctags_recall.py CORPUS [CORPUS ...] [--db FILE] [--lang LANG ...]
                                  [--min 0.95] [--samples 20] [--max-file-size BYTES]

Without --db, each CORPUS is indexed (`constellation index CORPUS --db TMP --full --json`,
plus `--max-file-size BYTES` when given) into a temporary database. With --db FILE (one
CORPUS only), an existing FILE is read as it is (no indexing); a missing FILE is created
by indexing into it. The binary is $CONSTELLATION_BIN, else target/release/constellation
of this repository.

What it prints, per corpus: the commands, a table of tags / line hits / head hits /
name+line hits / recall per language and kind, a histogram of line offsets for misses
whose name exists elsewhere in the same file, --samples sample misses with the reason,
and the reference tables. With several corpora, a last table per language over all of
them. Exit status: 0 if the recall of every measured language is at least --min, 1 if
one is below (or no tag was found at all), 2 on a usage or setup error.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from benchlib import constellation_bin, die

C_KINDS = ("function", "class", "struct", "union", "enum", "namespace")
C_EXTS = (".c", ".h")
CPP_EXTS = (".cc", ".cpp", ".cxx", ".c++", ".cp", ".C", ".hh", ".hpp", ".hxx", ".h++", ".hp", ".H",
            ".inl", ".ipp", ".tpp", ".tcc", ".h")

# language -> (ctags language name, ctags kinds measured, file extensions measured)
LANGS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "python": ("Python", ("class", "function", "member"), (".py", ".pyi")),
    "javascript": (
        "JavaScript",
        ("function", "class", "method", "generator"),
        (".js", ".jsx", ".mjs", ".cjs"),
    ),
    "typescript": (
        "TypeScript",
        ("function", "class", "method", "interface", "enum"),
        (".ts", ".mts", ".cts"),
    ),
    "rust": ("Rust", ("function", "method", "struct", "enum", "interface"), (".rs",)),
    "go": ("Go", ("func", "struct", "interface", "methodSpec"), (".go",)),
    "java": ("Java", ("class", "interface", "enum", "method", "annotation"), (".java",)),
    "c": ("C", C_KINDS, C_EXTS),
    "cpp": ("C++", C_KINDS, CPP_EXTS),
}
CTAGS_TO_LANG = {v[0]: k for k, v in LANGS.items()}
# Extensions ctags does not map by default but Constellation parses.
CTAGS_MAPS = [
    "--map-Python=+.pyi",
    "--map-JavaScript=+.cjs",
    "--map-TypeScript=+.mts",
    "--map-TypeScript=+.cts",
    "--map-C++=+.ipp",
    "--map-C++=+.tpp",
    "--map-C++=+.tcc",
]
# A node with the tag's name starting this many lines above the tag's line, and not
# ended before it, is the same definition (a declaration head over several lines).
HEAD_LINES = 3


def run_index(corpus: str, db: str, max_file_size: int | None) -> None:
    exe = constellation_bin()
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        die(f"constellation binary not found at {exe}: run `cargo build --release` or set CONSTELLATION_BIN")
    cmd = [exe, "index", corpus, "--db", db, "--full", "--json"]
    if max_file_size is not None:
        cmd += ["--max-file-size", str(max_file_size)]
    print("$", " ".join(cmd), flush=True)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        die(f"indexing failed with exit status {proc.returncode}", 1)
    out = proc.stdout.strip()
    try:
        stats = json.loads(out.splitlines()[-1]) if out else {}
    except json.JSONDecodeError:
        stats = {}
    print(f"  indexed in {wall:.2f} s: {json.dumps(stats) if stats else out}")


def tag_language(tag_lang: str, path: str, files: dict[str, tuple[str, str | None]]) -> str | None:
    """The language a tag is measured under: the index's for C/C++ files, else ctags'."""
    lang = CTAGS_TO_LANG.get(tag_lang)
    if lang in ("c", "cpp"):
        indexed = files.get(path, (None, None))[1]
        if indexed in ("c", "cpp"):
            return indexed
        return "c" if path.endswith(C_EXTS) else "cpp"
    return lang


def run_ctags(corpus: str, langs: list[str], files: dict[str, tuple[str, str | None]]) -> list[dict]:
    ctags = shutil.which("ctags")
    if not ctags:
        die("ctags not found: apt-get install -y universal-ctags")
    ctags_langs = sorted({LANGS[lang][0] for lang in langs} | ({"C", "C++"} if {"c", "cpp"} & set(langs) else set()))
    cmd = [
        ctags,
        "--output-format=json",
        "--fields=+nKzl",
        "-R",
        # Hidden files and directories. Note `.*` would also match an explicit `.`
        # argument, so ctags gets no path and recurses its working directory.
        "--exclude=.*",
        "--exclude=node_modules",
        "--exclude=target",
        *CTAGS_MAPS,
        "--languages=" + ",".join(ctags_langs),
        "-f",
        "-",
    ]
    print(f"$ (cd {corpus} && {' '.join(cmd)})", flush=True)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=corpus, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        die(f"ctags failed ({proc.returncode}): {proc.stderr.decode(errors='replace')[-2000:]}")
    tags = []
    dropped: collections.Counter[str] = collections.Counter()
    bad = 0
    for raw in proc.stdout.splitlines():
        try:
            tag = json.loads(raw.decode("utf-8", errors="replace"))
        except json.JSONDecodeError:
            bad += 1
            continue
        if tag.get("_type") != "tag":
            continue
        path = tag.get("path", "")
        if path.startswith("./"):
            path = path[2:]
        path = path.replace(os.sep, "/")
        lang = tag_language(tag.get("language", ""), path, files)
        if lang is None or lang not in langs:
            continue
        _, kinds, exts = LANGS[lang]
        if tag.get("kind") not in kinds or not path.endswith(exts) or "line" not in tag:
            continue
        reason = ctags_false_positive(lang, tag)
        if reason:
            dropped[reason] += 1
            continue
        tags.append({"lang": lang, "kind": tag["kind"], "path": path, "line": int(tag["line"]), "name": tag["name"]})
    print(f"  ctags: {len(tags)} tags of the measured kinds in {wall:.2f} s" + (f" ({bad} unparsable lines)" if bad else ""))
    for reason, n in sorted(dropped.items()):
        print(f"  not counted: {n} ctags tags that are {reason}")
    return tags


def ctags_false_positive(lang: str, tag: dict) -> str | None:
    """Tags that name no definition in the source, so no indexer should have them.

    - Names ctags invents for anonymous definitions (`AnonymousFunction…`, `anonFunc…`,
      `__anon…` for C/C++ structs, unions and enums without a name).
    - JavaScript/TypeScript `class` tags on a line without the `class` keyword: ctags 5.9
      labels object literals so (`const ALGO_MAP = {`, `claims: {`).
    - Java classes and interfaces named in a `permits` clause (ctags 5.9 predates
      sealed types and takes them for declarations).
    """
    name = tag.get("name", "")
    if name.startswith("AnonymousFunction") or name.startswith("anonFunc") or name.startswith("__anon"):
        return "names ctags invented for anonymous definitions"
    if lang in ("javascript", "typescript") and tag.get("kind") == "class":
        pattern = tag.get("pattern", "")
        if pattern and not re.search(r"\bclass\b", pattern):
            return "JS/TS object literals ctags labels `class` (no `class` keyword on the line)"
    if lang == "java" and tag.get("kind") in ("class", "interface"):
        # ctags 5.9 predates sealed types: it tags the names of a `permits` clause.
        parts = tag.get("pattern", "").split("permits", 1)
        word = re.compile(r"\b" + re.escape(name.split(".")[-1]) + r"\b")
        if len(parts) == 2 and word.search(parts[1]) and not word.search(parts[0]):
            return "Java types named in a `permits` clause (ctags 5.9 does not know sealed types)"
    return None


class Index:
    """What the benchmark reads from one index database."""

    def __init__(self, db: str):
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            rows = con.execute(
                "SELECT f.path, n.name, n.start_line, n.end_line FROM nodes n JOIN files f ON f.id = n.file_id "
                "WHERE n.kind <> 'file'"
            ).fetchall()
            self.files: dict[str, tuple[str, str | None]] = {
                p: (s, l) for p, s, l in con.execute("SELECT path, status, language FROM files")
            }
            self.call_status = con.execute(
                "SELECT f.language, r.status, count(*) FROM refs r JOIN files f ON f.id = r.file_id "
                "WHERE r.kind = 'call' GROUP BY 1, 2"
            ).fetchall()
            self.call_confidence = con.execute(
                "SELECT f.language, e.confidence, count(DISTINCT e.ref_id) FROM edges e "
                "JOIN files f ON f.id = e.file_id WHERE e.kind = 'calls' GROUP BY 1, 2"
            ).fetchall()
            self.import_status = con.execute(
                "SELECT f.language, r.status, count(*) FROM refs r JOIN files f ON f.id = r.file_id "
                "WHERE r.kind = 'import' GROUP BY 1, 2"
            ).fetchall()
            con.close()
        except sqlite3.Error as e:
            die(f"cannot read the index {db}: {e}")
        self.by_line: dict[str, dict[int, set[str]]] = collections.defaultdict(lambda: collections.defaultdict(set))
        self.by_name: dict[str, dict[str, list[tuple[int, int]]]] = collections.defaultdict(
            lambda: collections.defaultdict(list)
        )
        for path, name, start, end in rows:
            if start is None:
                continue
            self.by_line[path][int(start)].add(name)
            self.by_name[path][name].append((int(start), int(end if end is not None else start)))
        print(f"  index: {len(rows)} symbol nodes in {len(self.files)} files")


def print_references(index: Index, langs: list[str]) -> None:
    """The call and import tables of the module docs."""
    calls: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for lang, status, n in index.call_status:
        calls[lang or "-"][status] += n
    tiers: dict[str, collections.Counter[float]] = collections.defaultdict(collections.Counter)
    for lang, confidence, n in index.call_confidence:
        tiers[lang or "-"][round(confidence, 2)] += n
    shown = [lang for lang in langs if calls.get(lang)]
    if shown:
        print()
        print("call sites (refs of kind call):")
        print(f"{'language':<11} {'calls':>9} {'resolved':>9} {'@0.95':>8} {'@0.80':>8} {'@0.50':>8} "
              f"{'ambiguous':>10} {'external':>9} {'unresolved':>11} {'resolved%':>10}")
        for lang in shown:
            c = calls[lang]
            total = sum(c.values())
            t = tiers.get(lang, collections.Counter())
            print(f"{lang:<11} {total:>9} {c['resolved']:>9} {t[0.95]:>8} {t[0.8]:>8} {t[0.5]:>8} "
                  f"{c['ambiguous']:>10} {c['external']:>9} {c['unresolved']:>11} {c['resolved'] / total:>10.1%}")
    imports: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for lang, status, n in index.import_status:
        imports[lang or "-"][status] += n
    shown = [lang for lang in langs if imports.get(lang)]
    if shown:
        print()
        print("imports (refs of kind import):")
        print(f"{'language':<11} {'imports':>9} {'resolved':>9} {'external':>9} {'unresolved':>11}")
        for lang in shown:
            c = imports[lang]
            print(f"{lang:<11} {sum(c.values()):>9} {c['resolved']:>9} {c['external']:>9} {c['unresolved']:>11}")


def measure(corpus: str, index: Index, tags: list[dict], langs: list[str], samples: int) -> dict[str, list[int]]:
    """Prints the recall tables of one corpus; returns per language [tags, line, head, name+line]."""
    stats: dict[tuple[str, str], list[int]] = collections.defaultdict(lambda: [0, 0, 0, 0])
    misses = []
    offsets: collections.Counter[int] = collections.Counter()
    for tag in tags:
        s = stats[(tag["lang"], tag["kind"])]
        s[0] += 1
        names = index.by_line.get(tag["path"], {}).get(tag["line"])
        if names:
            s[1] += 1
            if tag["name"] in names:
                s[3] += 1
            continue
        spans = index.by_name.get(tag["path"], {}).get(tag["name"], [])
        if any(tag["line"] - HEAD_LINES <= start < tag["line"] <= end for start, end in spans):
            s[2] += 1
            continue
        status = index.files.get(tag["path"], (None, None))[0]
        if status is None:
            reason = "file not in the index"
        elif status not in ("parsed", "parse_errors"):
            reason = f"file not parsed (status {status})"
        elif spans:
            nearest = min((start for start, _ in spans), key=lambda ln: (abs(ln - tag["line"]), ln))
            offsets[nearest - tag["line"]] += 1
            reason = f"same name on another line: {nearest} (offset {nearest - tag['line']:+d})"
        else:
            reason = "no node of this name in the file"
        if status == "parse_errors":
            reason += " [file has parse errors]"
        misses.append((tag, reason))

    print()
    print(f"corpus {corpus}")
    header = f"{'language':<11} {'kind':<11} {'tags':>8} {'line':>8} {'head':>6} {'name+line':>10} {'recall':>8}"
    print(header)
    per_lang: dict[str, list[int]] = {}
    for lang in langs:
        lt = [0, 0, 0, 0]
        for kind in LANGS[lang][1]:
            s = stats.get((lang, kind))
            if not s:
                continue
            print(f"{lang:<11} {kind:<11} {s[0]:>8} {s[1]:>8} {s[2]:>6} {s[3]:>10} {(s[1] + s[2]) / s[0]:>8.2%}")
            lt = [a + b for a, b in zip(lt, s)]
        if lt[0]:
            print(f"{lang:<11} {'(all)':<11} {lt[0]:>8} {lt[1]:>8} {lt[2]:>6} {lt[3]:>10} {(lt[1] + lt[2]) / lt[0]:>8.2%}")
            per_lang[lang] = lt

    if offsets:
        common = ", ".join(f"{d:+d}: {n}" for d, n in offsets.most_common(8))
        print(f"\nline offsets of misses whose name is elsewhere in the file (offset: count): {common}")
    reasons = collections.Counter(r.split(":")[0] if r.startswith("same name") else r for _, r in misses)
    if reasons:
        print("misses by reason: " + ", ".join(f"{r}: {n}" for r, n in reasons.most_common()))
    if misses and samples > 0:
        sample = random.Random(0).sample(misses, min(samples, len(misses)))
        sample.sort(key=lambda m: (m[0]["path"], m[0]["line"]))
        print(f"\n{len(sample)} sample misses of {len(misses)}:")
        for tag, reason in sample:
            print(f"  {tag['path']}:{tag['line']} {tag['lang']} {tag['kind']} {tag['name']} -- {reason}")
    return per_lang


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--db", help="index database to read (created by indexing if missing); one corpus only")
    ap.add_argument("--lang", action="append", choices=sorted(LANGS),
                    help="measure this language (repeatable; default: all eight)")
    ap.add_argument("--min", type=float, default=0.95, help="minimum recall of each language (default 0.95)")
    ap.add_argument("--samples", type=int, default=20, help="sample misses to print per corpus (default 20)")
    ap.add_argument("--max-file-size", type=int, help="passed to `constellation index` (bytes)")
    args = ap.parse_args()

    if args.db and len(args.corpus) != 1:
        die("--db reads one corpus's index: give one CORPUS with it")
    langs = sorted(set(args.lang)) if args.lang else sorted(LANGS)
    totals: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0, 0])
    sources: dict[str, list[str]] = collections.defaultdict(list)
    for corpus in args.corpus:
        corpus = os.path.abspath(corpus)
        if not os.path.isdir(corpus):
            die(f"{corpus} is not a directory")
        tmp = None
        print(f"\n=== {corpus}")
        if args.db:
            db = os.path.abspath(args.db)
            if os.path.exists(db):
                print(f"reading existing index {db}")
            else:
                os.makedirs(os.path.dirname(db), exist_ok=True)
                run_index(corpus, db, args.max_file_size)
        else:
            tmp = tempfile.mkdtemp(prefix="ctags-recall-")
            db = os.path.join(tmp, "index.db")
            run_index(corpus, db, args.max_file_size)
        try:
            index = Index(db)
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
        tags = run_ctags(corpus, langs, index.files)
        per_lang = measure(corpus, index, tags, langs, args.samples)
        print_references(index, langs)
        for lang, lt in per_lang.items():
            totals[lang] = [a + b for a, b in zip(totals[lang], lt)]
            sources[lang].append(os.path.basename(corpus))

    if not totals:
        print(f"\nno ctags tags of the measured kinds for {', '.join(langs)}")
        return 1
    print()
    print(f"recall per language{' over all corpora' if len(args.corpus) > 1 else ''} (minimum {args.min}):")
    print(f"{'language':<11} {'tags':>8} {'line':>8} {'head':>6} {'recall':>8}  verdict  corpora")
    ok = True
    for lang in langs:
        lt = totals.get(lang)
        if not lt:
            continue
        recall = (lt[1] + lt[2]) / lt[0]
        passed = recall >= args.min
        ok &= passed
        print(f"{lang:<11} {lt[0]:>8} {lt[1]:>8} {lt[2]:>6} {recall:>8.2%}  {'PASS' if passed else 'FAIL':<7}  "
              f"{', '.join(sources[lang])}")
    print(f"\n{'PASS' if ok else 'FAIL'}: every measured language {'reaches' if ok else 'does not reach'} {args.min}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
