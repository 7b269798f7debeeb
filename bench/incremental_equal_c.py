#!/usr/bin/env python3
"""Exactness and speed of incremental indexing on C: after each of N random edits of a
real C tree, the incremental index must export the same JSON as a build from nothing.

What it measures:
  1. Copies --corpus (a C tree, e.g. the Linux kernel's include/ and a few subsystems of
     Debian's linux-source-6.1; required) into a temporary directory and indexes it
     (`--no-ignore`: a source tarball's .gitignore may hide everything).
  2. Applies --edits random edits chosen with --seed, one at a time, to headers (.h)
     and sources (.c): append a function; delete a function definition that others
     call; rename a function definition; change a function's parameters; edit only a
     function body; add or remove an `#include`; add a new .c file that defines and
     calls functions; delete a .c file. Edits of headers are weighted towards the most
     included ones (the hub edits of a header every file sees).
  3. After each edit: `constellation index ROOT --db INC --no-ignore --json`
     (incremental; wall ms, resolveMs and refsResolved), then a build from nothing into
     a fresh database, and compares `constellation export` of both byte for byte (the
     export is sorted by path and key, so identical trees give identical bytes).

With --served, the incremental index is a running server's instead: the tree is indexed
into its default database (ROOT/.constellation/index.db), `constellation serve ROOT
--http 127.0.0.1:0 --no-ignore` keeps it fresh from its file watch, and after each edit
`constellation index ROOT --no-ignore --json` asks the server (it must answer:
`fileSource` "server") before the export is compared. This checks what one-shot runs
cannot: the state a server keeps between its runs (the resolver's file tables and the
include lists of C files) must give the same index as a build from nothing.

How to run (after `cargo build --release`):

    python3 bench/incremental_equal_c.py --corpus DIR [--edits 30] [--seed 20] [--served]

The binary is $CONSTELLATION_BIN, else target/release/constellation. It prints one
line per edit (kind, file, equal or MISMATCH, incremental wall ms, resolveMs, refs
resolved again) and p50/p95/max of the incremental wall ms. Exit status 0 when every
incremental index equalled the build from nothing, 1 on a mismatch, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import time

from benchlib import constellation_bin, die, start_http_server, stop_server

FUNC = re.compile(
    rb"^(?:static\s+)?(?:inline\s+)?(?:int|void|long|bool|unsigned int|size_t)\s+\*?(\w+)\(([^)\n]*)\)\s*\n\{\n",
    re.M,
)


def run_index(binary: str, root: str, db: str | None) -> tuple[float, dict]:
    """`index ROOT --no-ignore --json`, into `db` (None: the default database)."""
    t = time.perf_counter()
    out = subprocess.run(
        [binary, "index", root, *(["--db", db] if db else []), "--no-ignore", "--json"],
        capture_output=True,
        check=False,
    )
    ms = (time.perf_counter() - t) * 1000
    if out.returncode != 0:
        die(f"index failed: {out.stderr.decode(errors='replace')[-2000:]}")
    return ms, json.loads(out.stdout)


def export(binary: str, root: str, db: str | None) -> bytes:
    out = subprocess.run([binary, "export", root, *(["--db", db] if db else [])],
                         capture_output=True, check=False)
    if out.returncode != 0:
        die(f"export failed: {out.stderr.decode(errors='replace')[-2000:]}")
    return out.stdout


def files_of(root: str, ext: str) -> list[str]:
    found = []
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(ext):
                found.append(os.path.relpath(os.path.join(d, n), root))
    found.sort()
    return found


def hub_headers(root: str, headers: list[str], top: int = 20) -> list[str]:
    """The headers most often named by an `#include <...>` or `"..."` line."""
    counts: dict[str, int] = {}
    inc = re.compile(rb'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
    for rel in files_of(root, ".c")[:3000] + headers[:3000]:
        with open(os.path.join(root, rel), "rb") as f:
            for m in inc.finditer(f.read()):
                name = m.group(1).decode(errors="replace")
                counts[name] = counts.get(name, 0) + 1
    ranked = []
    for h in headers:
        for name, n in counts.items():
            if h.endswith(name):
                ranked.append((n, h))
                break
    ranked.sort(reverse=True)
    return [h for _, h in ranked[:top]]


def edit(rng: random.Random, root: str, sources: list[str], headers: list[str], hubs: list[str], k: int) -> tuple[str, str]:
    kind = rng.choice(
        ["append", "append_hub", "delete_def", "rename_def", "params", "body", "include", "uninclude", "new_file", "delete_file"]
    )
    if kind == "new_file":
        rel = f"cst_new_{k}.c"
        callee = rng.choice(["kmalloc", "printk", "list_add", "mutex_lock", "memcpy"])
        with open(os.path.join(root, rel), "w") as f:
            f.write(f"#include <linux/kernel.h>\nint cst_new_{k}(void)\n{{\n\t{callee}(0);\n\treturn 0;\n}}\n")
        sources.append(rel)
        return kind, rel
    if kind == "delete_file" and sources:
        rel = sources.pop(rng.randrange(len(sources)))
        os.remove(os.path.join(root, rel))
        return kind, rel
    pool = hubs if kind == "append_hub" else (headers if rng.random() < 0.5 else sources)
    rel = rng.choice(pool)
    path = os.path.join(root, rel)
    with open(path, "rb") as f:
        text = f.read()
    defs = list(FUNC.finditer(text))
    if kind in ("append", "append_hub") or (kind in ("delete_def", "rename_def", "params", "body") and not defs):
        kind = "append" if kind not in ("append", "append_hub") else kind
        text += f"\nstatic inline int cst_probe_{k}(int x)\n{{\n\treturn x + {k};\n}}\n".encode()
    elif kind == "delete_def":
        m = rng.choice(defs)
        # Delete the definition's head line: the name goes, the body stays a block.
        text = text[: m.start()] + b"static void cst_gone_" + str(k).encode() + b"(void)\n{\n" + text[m.end():]
    elif kind == "rename_def":
        m = rng.choice(defs)
        text = text[: m.start(1)] + m.group(1) + f"_r{k}".encode() + text[m.end(1):]
    elif kind == "params":
        m = rng.choice(defs)
        params = m.group(2) + (b", int cst_extra" if m.group(2).strip() not in (b"", b"void") else b"")
        text = text[: m.start(2)] + (params if params != m.group(2) else b"int cst_only") + text[m.end(2):]
    elif kind == "body":
        m = rng.choice(defs)
        text = text[: m.end()] + f"\t(void){k};\n".encode() + text[m.end():]
    elif kind == "include":
        text = f"#include <linux/cst_missing_{k}.h>\n#include <linux/types.h>\n".encode() + text
    elif kind == "uninclude":
        m = re.search(rb"^#include [<\"][^>\"]+[>\"]\n", text, re.M)
        if m:
            text = text[: m.start()] + text[m.end():]
        else:
            kind = "append"
            text += f"\nint cst_probe_{k}(void);\n".encode()
    with open(path, "wb") as f:
        f.write(text)
    return kind, rel


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, help="C tree to copy")
    ap.add_argument("--edits", type=int, default=30)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--served", action="store_true",
                    help="the incremental index is a running server's (see above)")
    args = ap.parse_args()
    binary = constellation_bin()
    if not os.path.isdir(args.corpus):
        die(f"no corpus at {args.corpus}")
    work = tempfile.mkdtemp(prefix="cst-inc-c-")
    server = None
    try:
        root = os.path.join(work, "tree")
        shutil.copytree(args.corpus, root, symlinks=True)
        sources, headers = files_of(root, ".c"), files_of(root, ".h")
        hubs = hub_headers(root, headers)
        inc = None if args.served else os.path.join(work, "inc.db")
        ms, first = run_index(binary, root, inc)
        print(f"corpus: {len(sources)} .c, {len(headers)} .h; build from nothing {ms / 1000:.1f} s; "
              f"{first['nodes']} nodes, {first['edges']} edges; hub headers: {', '.join(hubs[:5])}")
        if args.served:
            server, url = start_http_server(binary, root, None, "incremental-equal-c-token",
                                            ["--no-ignore"])
            if url is None:
                die("serve --http ended before printing its address")
            deadline = time.monotonic() + 120
            while run_index(binary, root, None)[1].get("fileSource") != "server":
                if time.monotonic() > deadline:
                    die("the server's file watch did not answer within 120 s")
                time.sleep(0.2)
        rng = random.Random(args.seed)
        walls, mismatches = [], 0
        for k in range(1, args.edits + 1):
            kind, rel = edit(rng, root, sources, headers, hubs, k)
            wall, report = run_index(binary, root, inc)
            if args.served and report.get("fileSource") != "server":
                die(f"edit {k}: answered by {report.get('fileSource')}, not the server")
            full = os.path.join(work, f"full{k}.db")
            run_index(binary, root, full)
            same = export(binary, root, inc) == export(binary, root, full)
            for ext in ("", "-wal", "-shm", ".lock"):
                if os.path.exists(full + ext):
                    os.remove(full + ext)
            mismatches += not same
            walls.append(wall)
            print(f"{k:3} {kind:11} {rel:60.60} {'equal' if same else 'MISMATCH'} "
                  f"{wall:8.0f} ms  resolve {report['resolveMs']:6} ms  refs {report['refsResolved']}")
        walls.sort()
        pick = lambda q: walls[max(0, min(len(walls) - 1, int(round(q * len(walls) + 0.5)) - 1))]
        print(f"incremental wall ms: p50 {pick(0.5):.0f}, p95 {pick(0.95):.0f}, max {walls[-1]:.0f}; "
              f"mismatches {mismatches} of {len(walls)}")
        return 1 if mismatches else 0
    finally:
        stop_server(server)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
