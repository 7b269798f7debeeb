#!/usr/bin/env python3
"""Quality and latency of `search_symbols` on the sources of the local cargo registry.

What it measures, on a copy of `${CARGO_HOME:-~/.cargo}/registry/src/*/` (every crate
the machine has built: many crates, 100k+ symbols; copied to a temp dir so the index
and the sources it reads are the bench's own, never committed):
  1. indexes the copy with the release binary (`constellation index COPY --db DB`);
  2. samples --samples symbols (functions, methods, classes, structs, enums, traits,
     interfaces; fixed --seed) from the index;
  3. starts one long-lived `constellation serve COPY --db DB` and calls
     `search_symbols` over MCP stdio (JSON-RPC `tools/call`) for each sample:
     - exact: the symbol's own name. Rule (lenient): correct when the top hit has the
       same name (case-sensitive), since several symbols may share one. Strict: the
       top hit is the sampled symbol itself. Also printed: how many sampled names are
       shared by several symbols;
     - two parts: two distinct identifier parts of a name with at least two parts, in
       random order (`response parse` for parseHTTPResponse); correct when the symbol
       is in the top 5 (strict), or a symbol of the same name is (lenient). The strict
       misses are sorted by kind: `copies` (a symbol of the same name is in the top 5:
       copies of the name fill it), `likelier names` (every top-5 hit is a name holding
       both words with no more parts than the sampled one: as good an answer to those
       two words, ties broken by popularity), `ranking` (the others). Also printed:
       the ceiling, what the best possible ranking can expect under this sampling (for
       each query the 5 symbols likeliest to have been sampled for it: a name of k
       parts yields a given pair of them with chance 1/(k(k-1)), so fewer parts first;
       equal chances split at random);
     - typo: one random substitution or deletion in a name of 5+ characters; correct
       when the symbol is in the top 5 (strict), or a same-named one is (lenient);
  4. latency of every call, from request to answer, through that one server (warm:
     a first call is made before timing starts; the in-degrees that rank hits are read
     as the candidates of each query need them, then kept). The server watches the
     tree (the default of `serve`): nothing changes during the run, so no call walks
     it. Also printed: what a walk of the tree costs (`index --check`), which a call
     pays at most once a second under `serve --no-watch`.

How to run (after `cargo build --release`):

    python3 bench/search.py [--samples 500] [--seed 16] [--work DIR]

--work keeps the copy and its index in DIR between runs (made when missing); without
it a temp dir is used and removed. The binary is $CONSTELLATION_BIN, else
target/release/constellation.

What it prints: the command, the corpus (crates, files, bytes, symbols), the index
time, then per query class the hit rates (strict also over the sampled names that no
other symbol of the sampled kinds has: `unique names`) and latency p50/p99 (nearest
rank) in ms, and the worst examples. Exit status 0, or 2 when a prerequisite is missing.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import McpServer, constellation_bin, die

KINDS = ("function", "method", "class", "struct", "enum", "trait", "interface")


def split_identifier(text: str) -> list[str]:
    """The identifier parts, as `lang::identifiers::split_identifier` (ASCII rules)."""
    parts: list[str] = []
    cur = ""
    for i, c in enumerate(text):
        if not c.isalnum():
            if cur:
                parts.append(cur)
            cur = ""
            continue
        if i > 0 and c.isupper():
            prev = text[i - 1]
            nxt = text[i + 1] if i + 1 < len(text) else ""
            if prev.islower() or prev.isdigit() or (prev.isupper() and nxt.islower()):
                if cur:
                    parts.append(cur)
                cur = ""
        cur += c.lower()
    if cur:
        parts.append(cur)
    return parts


def copy_registry(dest: str) -> tuple[int, int, int]:
    """Copies every crate of the registry sources to dest; (crates, files, bytes)."""
    home = os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo")
    srcs = sorted(glob.glob(os.path.join(home, "registry", "src", "*", "*")))
    if not srcs:
        die(f"no crate sources under {home}/registry/src: build something with cargo first")
    files = size = 0
    for src in srcs:
        target = os.path.join(dest, os.path.basename(src))
        if not os.path.exists(target):
            shutil.copytree(src, target, symlinks=True, ignore_dangling_symlinks=True)
    for dirpath, _, names in os.walk(dest):
        for n in names:
            p = os.path.join(dirpath, n)
            if os.path.isfile(p) and not os.path.islink(p):
                files += 1
                size += os.path.getsize(p)
    return len(srcs), files, size


def search(server: McpServer, query: str, limit: int) -> tuple[float, list[dict], dict]:
    """One `search_symbols` call: (milliseconds, hits, whole answer or {"error": text})."""
    started = time.perf_counter()
    result = server.call("search_symbols", {"query": query, "limit": limit})
    ms = (time.perf_counter() - started) * 1000
    if result.get("isError"):
        return ms, [], {"error": result["content"][0]["text"]}
    answer = result["structuredContent"]
    return ms, answer["hits"], answer


def pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}% ({n}/{d})" if d else "n/a"


def latency(ms: list[float]) -> str:
    if not ms:
        return "n/a"
    s = sorted(ms)
    p99 = s[max(0, math.ceil(0.99 * len(s)) - 1)]
    return f"p50 {statistics.median(s):.2f} ms, p99 {p99:.2f} ms, max {s[-1]:.1f} ms"


def typo(name: str, rng: random.Random) -> str:
    i = rng.randrange(len(name))
    if rng.random() < 0.5:
        return name[:i] + name[i + 1 :]
    letters = [c for c in "abcdefghijklmnopqrstuvwxyz" if c != name[i].lower()]
    return name[:i] + rng.choice(letters) + name[i + 1 :]


def part_index(conn: sqlite3.Connection) -> tuple[dict[int, list[str]], dict[str, set[int]]]:
    """The identifier parts of every symbol of the sampled kinds, and the symbols holding
    each part."""
    parts: dict[int, list[str]] = {}
    by_part: dict[str, set[int]] = {}
    for node_id, name in conn.execute(
        "SELECT id, name FROM nodes WHERE kind IN (%s)" % ",".join("?" * len(KINDS)), KINDS
    ):
        p = split_identifier(name)
        parts[node_id] = p
        for x in set(p):
            by_part.setdefault(x, set()).add(node_id)
    return parts, by_part


def pair_chance(parts: list[str], a: str, b: str) -> float:
    """The chance that the two-part query of a name with these parts is `a b`."""
    pairs = [(i, j) for i in range(len(parts)) for j in range(len(parts)) if parts[i] != parts[j]]
    hits = sum(1 for i, j in pairs if parts[i] == a and parts[j] == b)
    return hits / len(pairs) if pairs else 0.0


def best_chance(
    parts: dict[int, list[str]], by_part: dict[str, set[int]], a: str, b: str, node_id: int
) -> float:
    """The chance that the best ranking has node_id in the top 5 for query `a b`: the 5
    symbols likeliest to have been sampled for it first, equal chances in random order."""
    chances = [pair_chance(parts[n], a, b) for n in by_part.get(a, set()) & by_part.get(b, set())]
    mine = pair_chance(parts[node_id], a, b)
    better = sum(1 for c in chances if c > mine)
    ties = sum(1 for c in chances if c == mine)
    return max(0.0, min(1.0, (5 - better) / max(ties, 1)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=500)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--work", help="keep the copy and index here between runs")
    args = ap.parse_args()
    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"{binary} is not built: run cargo build --release")
    work = args.work or tempfile.mkdtemp(prefix="search-bench-")
    os.makedirs(work, exist_ok=True)
    root = os.path.join(work, "crates")
    os.makedirs(root, exist_ok=True)
    db = os.path.join(work, "index.db")
    try:
        crates, files, size = copy_registry(root)
        cmd = [binary, "index", root, "--db", db, "--json", "--quiet"]
        print("$ " + " ".join(cmd))
        started = time.perf_counter()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        index_s = time.perf_counter() - started
        report = json.loads(out.strip().splitlines()[-1])
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        symbols = conn.execute(
            "SELECT count(*) FROM nodes WHERE kind <> 'file' AND kind <> 'module'"
        ).fetchone()[0]
        code_files = conn.execute("SELECT count(*) FROM files WHERE language IS NOT NULL").fetchone()[0]
        print(
            f"corpus: cargo registry sources, {crates} crates, {files} files ({code_files} parsed as code), "
            f"{size / 1e6:.0f} MB; {symbols} symbols (nodes other than files and modules)"
        )
        print(f"index: {index_s:.1f} s ({report.get('filesParsed', '?')} files parsed)")
        rows = conn.execute(
            "SELECT id, name FROM nodes WHERE kind IN (%s) ORDER BY id" % ",".join("?" * len(KINDS)),
            KINDS,
        ).fetchall()
        rng = random.Random(args.seed)
        sample = rng.sample(rows, min(args.samples, len(rows)))
        name_counts: dict[str, int] = {}
        for (name,) in conn.execute(
            "SELECT name FROM nodes WHERE kind IN (%s)" % ",".join("?" * len(KINDS)), KINDS
        ):
            name_counts[name] = name_counts.get(name, 0) + 1
        symbol_parts, by_part = part_index(conn)
        conn.close()

        server = McpServer(binary, root, db, "search_bench")
        search(server, "warm up", 5)
        classes: dict[str, dict] = {}

        def record(
            cls: str, ms: float, strict: bool, lenient: bool, example: str, unique: bool
        ) -> None:
            c = classes.setdefault(
                cls,
                {"ms": [], "strict": 0, "lenient": 0, "n": 0, "misses": [], "un": 0, "ustrict": 0},
            )
            c["ms"].append(ms)
            c["n"] += 1
            c["strict"] += strict
            c["lenient"] += lenient
            c["un"] += unique
            c["ustrict"] += unique and strict
            if not lenient and len(c["misses"]) < 8:
                c["misses"].append(example)

        shared = 0
        miss_kinds = {"copies": 0, "likelier names": 0, "ranking": 0}
        ceiling = 0.0
        for node_id, name in sample:
            shared += name_counts.get(name, 1) > 1
            unique = name_counts.get(name, 1) == 1
            ms, hits, _ = search(server, name, 5)
            top = hits[0] if hits else None
            record(
                "exact",
                ms,
                bool(top) and top["node_id"] == node_id,
                bool(top) and top["name"] == name,
                f"{name!r} -> {top['qualified_name'] if top else None}",
                unique,
            )
            parts = split_identifier(name)
            if len(parts) >= 2 and len(set(parts)) >= 2:
                i, j = rng.sample(range(len(parts)), 2)
                while parts[i] == parts[j]:
                    i, j = rng.sample(range(len(parts)), 2)
                q = f"{parts[i]} {parts[j]}"
                ms, hits, _ = search(server, q, 5)
                strict = any(h["node_id"] == node_id for h in hits)
                lenient = any(h["name"] == name for h in hits)
                record(
                    "two parts",
                    ms,
                    strict,
                    lenient,
                    f"{q!r} for {name!r} -> {[h['name'] for h in hits]}",
                    unique,
                )
                if lenient and not strict:
                    miss_kinds["copies"] += 1
                elif not strict:
                    likelier = len(hits) == 5 and all(
                        parts[i] in hp and parts[j] in hp and len(hp) <= len(parts)
                        for hp in (split_identifier(h["name"]) for h in hits)
                    )
                    miss_kinds["likelier names" if likelier else "ranking"] += 1
                ceiling += best_chance(symbol_parts, by_part, parts[i], parts[j], node_id)
            if len(name) >= 5:
                q = typo(name, rng)
                ms, hits, answer = search(server, q, 5)
                record(
                    "typo",
                    ms,
                    any(h["node_id"] == node_id for h in hits),
                    any(h["name"] == name for h in hits),
                    f"{q!r} for {name!r} -> {[h['name'] for h in hits]}",
                    unique,
                )
        server.close()

        print(f"sampled {len(sample)} symbols (seed {args.seed}); {pct(shared, len(sample))} have a name shared by several symbols")
        targets = {"exact": "top hit has the name >= 99%", "two parts": "in top 5 >= 90%", "typo": "in top 5 >= 80%"}
        all_ms: list[float] = []
        for cls, c in classes.items():
            all_ms += c["ms"]
            print(f"{cls}: {c['n']} queries (target: {targets[cls]})")
            if cls == "exact":
                print(f"  lenient (top hit has the sampled name): {pct(c['lenient'], c['n'])}")
                print(f"  strict (top hit is the sampled symbol): {pct(c['strict'], c['n'])}")
            else:
                print(f"  strict (the sampled symbol in the top 5): {pct(c['strict'], c['n'])}")
                print(f"  lenient (a symbol of that name in the top 5): {pct(c['lenient'], c['n'])}")
            print(f"  strict on unique names: {pct(c['ustrict'], c['un'])}")
            if cls == "two parts":
                kinds = ", ".join(f"{k} {v}" for k, v in miss_kinds.items())
                print(f"  strict misses by kind: {kinds}")
                print(f"  ceiling (the best ranking's expected strict): {100.0 * ceiling / c['n']:.1f}%")
            print(f"  latency: {latency(c['ms'])}")
            for m in c["misses"]:
                print(f"    miss: {m}")
        print(f"all queries: {len(all_ms)}, latency {latency(all_ms)} (target p50 <= 5 ms, p99 <= 30 ms)")
        slow = sum(1 for m in all_ms if m > 30)
        print(f"  calls over 30 ms: {pct(slow, len(all_ms))}")
        # What a walk and stat of the tree costs: a call pays it at most once a second
        # under `serve --no-watch` (with the watch, only while changes are pending).
        checks = []
        for _ in range(3):
            started = time.perf_counter()
            subprocess.run([binary, "index", root, "--db", db, "--check", "--quiet"], capture_output=True)
            checks.append((time.perf_counter() - started) * 1000)
        print(
            f"  a walk of the tree, which a call pays at most once a second under serve --no-watch "
            f"(index --check, process start included): median {statistics.median(checks):.0f} ms"
        )
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
