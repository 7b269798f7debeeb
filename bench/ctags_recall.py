#!/usr/bin/env python3
"""Symbol recall of Constellation against universal-ctags on a real corpus.

What it measures: of the definitions universal-ctags finds in CORPUS (functions, classes,
methods, structs, enums, traits, interfaces, per language below), the share for which the
Constellation index has a symbol node in the same file (path relative to CORPUS) starting
on the same line ("line" recall, the figure the threshold applies to), and the share where
that node also has the same name ("name+line" recall). Both per language and kind.

    language    ctags kinds measured                        files
    python      class, function, member (= method)          .py .pyi
    javascript  function, class, method, generator          .js .jsx .mjs .cjs
    typescript  function, class, method, interface, enum    .ts .mts .cts (ctags 5.9
                                                            has no TSX parser: .tsx is
                                                            not measured)
    rust        function, method, struct, enum,             .rs
                interface (= trait)

Tags that name no definition are not counted, and the count of each is printed: names
ctags invents for anonymous functions, and JavaScript/TypeScript `class` tags on lines
without the `class` keyword (ctags 5.9 tags object literals such as `const MAP = {` as
classes).

ctags runs as `ctags --output-format=json --fields=+nKzl -R --exclude=.* --exclude=node_modules
--exclude=target -f -` inside CORPUS, i.e. it skips hidden files and directories, as the
indexer does. Nodes of kind `file` never count as a match.

How to run (CORPUS should be a copy, see bench/corpora.sh: indexing writes into it only
when the default database location is used):

    python3 bench/ctags_recall.py CORPUS [--db FILE] [--lang python|javascript|typescript|rust]
                                  [--min 0.95] [--samples 20]

Without --db, CORPUS is indexed (`constellation index CORPUS --db TMP --full --json`) into
a temporary database. With --db FILE, an existing FILE is read as it is (no indexing); a
missing FILE is created by indexing into it. The binary is $CONSTELLATION_BIN, else
target/release/constellation of this repository.

What it prints: the commands, a table of tags / line hits / name+line hits / recall per
language and kind, totals, a histogram of line offsets for misses whose name exists
elsewhere in the same file (a systematic offset such as decorators shows up here), and
--samples sample misses with the reason. Exit status: 0 if the overall line recall is at
least --min, 1 if below (or no tag was found at all), 2 on a usage or setup error.
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
}
CTAGS_TO_LANG = {v[0]: k for k, v in LANGS.items()}
# Extensions ctags does not map by default but Constellation parses.
CTAGS_MAPS = ["--map-Python=+.pyi", "--map-JavaScript=+.cjs", "--map-TypeScript=+.mts", "--map-TypeScript=+.cts"]


def run_index(corpus: str, db: str) -> None:
    exe = constellation_bin()
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        die(f"constellation binary not found at {exe}: run `cargo build --release` or set CONSTELLATION_BIN")
    cmd = [exe, "index", corpus, "--db", db, "--full", "--json"]
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


def run_ctags(corpus: str, langs: list[str]) -> list[dict]:
    ctags = shutil.which("ctags")
    if not ctags:
        die("ctags not found: apt-get install -y universal-ctags")
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
        "--languages=" + ",".join(LANGS[lang][0] for lang in langs),
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
        lang = CTAGS_TO_LANG.get(tag.get("language", ""))
        if lang is None or lang not in langs:
            continue
        _, kinds, exts = LANGS[lang]
        path = tag.get("path", "")
        if path.startswith("./"):
            path = path[2:]
        path = path.replace(os.sep, "/")
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

    - Names ctags invents for anonymous functions (`AnonymousFunction…`, `anonFunc…`).
    - JavaScript/TypeScript `class` tags on a line without the `class` keyword: ctags 5.9
      labels object literals so (`const ALGO_MAP = {`, `claims: {`).
    """
    name = tag.get("name", "")
    if name.startswith("AnonymousFunction") or name.startswith("anonFunc"):
        return "names ctags invented for anonymous functions"
    if lang in ("javascript", "typescript") and tag.get("kind") == "class":
        pattern = tag.get("pattern", "")
        if pattern and not re.search(r"\bclass\b", pattern):
            return "JS/TS object literals ctags labels `class` (no `class` keyword on the line)"
    return None


def load_index(db: str):
    """Returns (nodes by path -> line -> set of names, names by path -> name -> lines, files status)."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        rows = con.execute(
            "SELECT f.path, n.name, n.start_line FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.kind <> 'file'"
        ).fetchall()
        files = dict(con.execute("SELECT path, status FROM files").fetchall())
        con.close()
    except sqlite3.Error as e:
        die(f"cannot read the index {db}: {e}")
    by_line: dict[str, dict[int, set[str]]] = collections.defaultdict(lambda: collections.defaultdict(set))
    by_name: dict[str, dict[str, list[int]]] = collections.defaultdict(lambda: collections.defaultdict(list))
    for path, name, line in rows:
        if line is None:
            continue
        by_line[path][int(line)].add(name)
        by_name[path][name].append(int(line))
    print(f"  index: {len(rows)} symbol nodes in {len(files)} files")
    return by_line, by_name, files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("--db", help="index database to read (created by indexing if missing)")
    ap.add_argument("--lang", choices=sorted(LANGS), help="measure one language (default: all four)")
    ap.add_argument("--min", type=float, default=0.95, help="minimum overall line recall (default 0.95)")
    ap.add_argument("--samples", type=int, default=20, help="sample misses to print (default 20)")
    args = ap.parse_args()

    corpus = os.path.abspath(args.corpus)
    if not os.path.isdir(corpus):
        die(f"{corpus} is not a directory")
    langs = [args.lang] if args.lang else sorted(LANGS)

    tmp = None
    if args.db:
        db = os.path.abspath(args.db)
        if os.path.exists(db):
            print(f"reading existing index {db}")
        else:
            os.makedirs(os.path.dirname(db), exist_ok=True)
            run_index(corpus, db)
    else:
        tmp = tempfile.mkdtemp(prefix="ctags-recall-")
        db = os.path.join(tmp, "index.db")
        run_index(corpus, db)
    try:
        by_line, by_name, files = load_index(db)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    tags = run_ctags(corpus, langs)
    if not tags:
        print(f"no ctags tags of the measured kinds for {', '.join(langs)} in {corpus}")
        return 1

    stats: dict[tuple[str, str], list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    misses = []
    offsets: collections.Counter[int] = collections.Counter()
    for tag in tags:
        s = stats[(tag["lang"], tag["kind"])]
        s[0] += 1
        names = by_line.get(tag["path"], {}).get(tag["line"])
        if names:
            s[1] += 1
            if tag["name"] in names:
                s[2] += 1
            continue
        lines = by_name.get(tag["path"], {}).get(tag["name"])
        status = files.get(tag["path"])
        if status is None:
            reason = "file not in the index"
        elif status not in ("parsed", "parse_errors"):
            reason = f"file not parsed (status {status})"
        elif lines:
            nearest = min(lines, key=lambda ln: (abs(ln - tag["line"]), ln))
            offsets[nearest - tag["line"]] += 1
            reason = f"same name on another line: {nearest} (offset {nearest - tag['line']:+d})"
        else:
            reason = "no node of this name in the file"
        if status == "parse_errors":
            reason += " [file has parse errors]"
        misses.append((tag, reason))

    print()
    print(f"corpus {corpus}")
    print(f"{'language':<11} {'kind':<10} {'tags':>8} {'line':>8} {'name+line':>10} {'recall':>8} {'name+line':>10}")
    total = [0, 0, 0]
    for lang in langs:
        lt = [0, 0, 0]
        for kind in LANGS[lang][1]:
            s = stats.get((lang, kind))
            if not s:
                continue
            print(f"{lang:<11} {kind:<10} {s[0]:>8} {s[1]:>8} {s[2]:>10} {s[1] / s[0]:>8.2%} {s[2] / s[0]:>10.2%}")
            lt = [a + b for a, b in zip(lt, s)]
        if lt[0]:
            print(f"{lang:<11} {'(all)':<10} {lt[0]:>8} {lt[1]:>8} {lt[2]:>10} {lt[1] / lt[0]:>8.2%} {lt[2] / lt[0]:>10.2%}")
        total = [a + b for a, b in zip(total, lt)]
    recall = total[1] / total[0]
    print(f"{'total':<11} {'':<10} {total[0]:>8} {total[1]:>8} {total[2]:>10} {recall:>8.2%} {total[2] / total[0]:>10.2%}")

    if offsets:
        common = ", ".join(f"{d:+d}: {n}" for d, n in offsets.most_common(8))
        print(f"\nline offsets of misses whose name is elsewhere in the file (offset: count): {common}")
    reasons = collections.Counter(r.split(":")[0] if r.startswith("same name") else r for _, r in misses)
    if reasons:
        print("misses by reason: " + ", ".join(f"{r}: {n}" for r, n in reasons.most_common()))
    if misses and args.samples > 0:
        sample = random.Random(0).sample(misses, min(args.samples, len(misses)))
        sample.sort(key=lambda m: (m[0]["path"], m[0]["line"]))
        print(f"\n{len(sample)} sample misses of {len(misses)}:")
        for tag, reason in sample:
            print(f"  {tag['path']}:{tag['line']} {tag['lang']} {tag['kind']} {tag['name']} -- {reason}")

    ok = recall >= args.min
    print(f"\nline recall {recall:.4f} {'>=' if ok else '<'} minimum {args.min}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
