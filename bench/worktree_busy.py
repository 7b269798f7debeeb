#!/usr/bin/env python3
"""A second git worktree's first index while the first worktree's server keeps writing
its own: is the copy still right?

What it does:
  1. downloads one release of a real Python project as an sdist from PyPI (default
     Django 5.2.9) into a temporary directory (in DIR with --dir), commits it to a
     temporary git repository and adds a second worktree at the same commit;
  2. builds the reference: the second worktree indexed from nothing into a database of
     its own (`index SECOND --db REF`: a database given with --db is never seeded) and
     exported (`constellation export`, JSON);
  3. indexes the main worktree and starts `constellation serve MAIN --http
     127.0.0.1:0` (file watch on), then rewrites one of its files (--file, default
     django/utils/text.py) every --every s (default 0.12: longer than the watch's 50 ms
     quiet, so the server indexes and commits again and again);
  4. --rounds times (default 10): removes the second worktree's default database and
     runs `constellation index SECOND --json`, which starts from a copy of the main
     worktree's index (the copy is taken while that server writes), then exports it.

It prints per round how the copy was made (`seededFrom.copy`: "clone" where the file
system can clone files and nothing wrote the other index meanwhile, else "backup"), why a
clone was not taken (the debug log), the files parsed, and whether the export equals the
reference; then how many index runs the server made meanwhile (its generation).

How to run (after `cargo build --release`; needs git and access to PyPI):

    python3 bench/worktree_busy.py [--package django] [--version 5.2.9] [--rounds 10]
                                   [--dir DIR]

Give --dir on a file system that can clone files (see bench/worktree.py) to see clones
taken beside the writes; elsewhere every copy is a backup. Exit status 0 when every
round's export equals the reference and the server wrote during the rounds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from benchlib import commit_releases, constellation_bin, export_json, git, report, start_http_server, stop_server


def generation(binary: str, root: str) -> int:
    out = subprocess.run([binary, "sql", root, "SELECT value FROM meta WHERE key = 'generation'"],
                         check=True, capture_output=True, text=True).stdout
    return int(out.split()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--package", default="django")
    ap.add_argument("--version", default="5.2.9")
    ap.add_argument("--file", default="django/utils/text.py", help="the main worktree's file to rewrite")
    ap.add_argument("--every", type=float, default=0.12, help="s between rewrites")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--index-url", default="https://pypi.org")
    ap.add_argument("--dir", help="where to make the temporary directory (default: the system's)")
    a = ap.parse_args()
    binary = constellation_bin()
    tmp = tempfile.mkdtemp(prefix="worktree-busy-", dir=a.dir)
    problems: list[str] = []
    server = None
    stop = threading.Event()
    editor = None
    try:
        main_wt = os.path.join(tmp, "main")
        second = os.path.join(tmp, "second")
        commit_releases(main_wt, a.index_url, a.package, [a.version], tmp)
        git(main_wt, "worktree", "add", "-q", second, "HEAD")
        ref_db = os.path.join(tmp, "ref.db")
        subprocess.run([binary, "index", second, "--db", ref_db], check=True, capture_output=True)
        reference = export_json(binary, second, ref_db)
        subprocess.run([binary, "index", main_wt], check=True, capture_output=True)
        server, url = start_http_server(binary, main_wt, None, "busy-bench-token")
        if url is None:
            problems.append("the server did not start")
            return report(problems)
        target = os.path.join(main_wt, a.file)
        base = open(target, encoding="utf-8").read()

        def rewrite() -> None:
            i = 0
            while not stop.is_set():
                i += 1
                with open(target, "w", encoding="utf-8") as f:
                    f.write(base + f"\n\ndef added_{i}():\n    return {i}\n")
                time.sleep(a.every)

        # The watch starts in the background: let it start before the writes.
        time.sleep(2)
        before = generation(binary, main_wt)
        editor = threading.Thread(target=rewrite, daemon=True)
        editor.start()
        rng = random.Random(19)
        env = {**os.environ, "CONSTELLATION_LOG": "constellation=debug"}
        copies: dict[str, int] = {}
        for r in range(a.rounds):
            shutil.rmtree(os.path.join(second, ".constellation"), ignore_errors=True)
            out = subprocess.run([binary, "index", second, "--json"], check=True,
                                 capture_output=True, text=True, env=env)
            rep = json.loads(out.stdout)
            copy = (rep.get("seededFrom") or {}).get("copy", "none")
            copies[copy] = copies.get(copy, 0) + 1
            why = next((line.split("not cloned", 1)[1].split("):")[0].strip(" (")
                        for line in out.stderr.splitlines() if "not cloned" in line), "")
            equal = export_json(binary, second, os.path.join(second, ".constellation", "index.db")) == reference
            print(f"round {r + 1}: copied as {copy}{f' ({why})' if why else ''}; "
                  f"{rep['filesParsed']} files parsed; export {'equal to' if equal else 'DIFFERENT from'} the reference")
            if not equal:
                problems.append(f"round {r + 1}: the seeded index differs from a fresh build")
            if copy == "none":
                problems.append(f"round {r + 1}: the index did not start from the other worktree's")
            time.sleep(rng.random() * 0.3)
        stop.set()
        editor.join()
        runs = generation(binary, main_wt) - before
        print(f"copies: {copies}; the server's index moved {runs} generations meanwhile")
        if runs < a.rounds:
            problems.append(f"the server wrote only {runs} times during {a.rounds} rounds")
    finally:
        stop.set()
        if editor is not None:
            editor.join()
        stop_server(server)
        shutil.rmtree(tmp, ignore_errors=True)
    return report(problems)


if __name__ == "__main__":
    sys.exit(main())
