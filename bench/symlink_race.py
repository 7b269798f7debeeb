"""Symbolic-link race against the real server: while another process exchanges a
directory inside the workspace with a symbolic link to an outside directory
(renameat2 RENAME_EXCHANGE, as fast as it can), N calls of inspect_source and
file_info ask for the file inside that directory through `constellation serve`, and
`constellation index` runs are made over the same tree. The outside directory holds a
file of the same name with a marker; every answer holding the marker, and every
indexed symbol from the outside file, is a leak (must be 0).

Usage: python3 bench/symlink_race.py [--calls N] [--index-runs K]
Binary: $CONSTELLATION_BIN, else target/release/constellation (see benchlib).
Linux with glibc 2.28 or later (renameat2). Standard library only.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

from benchlib import McpServer, constellation_bin, die

AT_FDCWD = -100
RENAME_EXCHANGE = 2
MARKER = "OUTSIDE_SECRET_7f3a"

INSIDE = "def inside_only():\n    return 1\n\n\ndef inside_too():\n    return inside_only()\n"
OUTSIDE = f"def outside_secret():\n    return '{MARKER}'\n"


def swap_forever(a: str, b: str) -> None:
    """The swapping process: exchanges `a` and `b` until SIGTERM, then prints the count."""
    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "renameat2"):
        die("this libc has no renameat2")
    swaps = 0

    def stop(_sig, _frame):
        print(swaps, flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    ea, eb = a.encode(), b.encode()
    while True:
        if libc.renameat2(AT_FDCWD, ea, AT_FDCWD, eb, RENAME_EXCHANGE) != 0:
            die(f"renameat2: {os.strerror(ctypes.get_errno())}")
        swaps += 1


def text_of(result: dict) -> str:
    return "".join(c.get("text", "") for c in result.get("content", []))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=5000, help="tool calls (default 5000)")
    ap.add_argument("--index-runs", type=int, default=20, help="index runs during swapping (default 20)")
    ap.add_argument("--swap", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.swap:
        swap_forever(*args.swap)
        return 0
    if not sys.platform.startswith("linux"):
        die("renameat2 RENAME_EXCHANGE is Linux only")
    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"no binary at {binary}; cargo build --release first")

    tmp = tempfile.mkdtemp(prefix="symlink-race-")
    base = os.path.realpath(tmp)
    root = os.path.join(base, "ws")
    outside = os.path.join(base, "outside")
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(outside)
    with open(os.path.join(root, "src", "a.py"), "w") as f:
        f.write(INSIDE)
    with open(os.path.join(outside, "a.py"), "w") as f:
        f.write(OUTSIDE)
    os.symlink(outside, os.path.join(root, "swap"))
    db = os.path.join(base, "index.db")
    subprocess.run([binary, "index", root, "--db", db, "-q"], check=True, stdout=subprocess.DEVNULL)

    print(f"command: python3 bench/symlink_race.py --calls {args.calls} --index-runs {args.index_runs}")
    print(f"binary: {binary}")
    print(f"corpus: {root} (src/a.py, {len(INSIDE)} bytes; swap -> {outside}, a.py {len(OUTSIDE)} bytes)")

    swapper = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--swap",
         os.path.join(root, "src"), os.path.join(root, "swap")],
        stdout=subprocess.PIPE, text=True,
    )
    time.sleep(0.2)
    outcomes: collections.Counter[str] = collections.Counter()
    leaks = 0
    examples: list[str] = []
    started = time.monotonic()
    server = McpServer(binary, root, db, "symlink-race")
    try:
        for i in range(args.calls):
            if i % 2 == 0:
                name, call_args = "inspect_source", {"path": "src/a.py", "startLine": 1, "endLine": 6}
            else:
                name, call_args = "file_info", {"path": "src/a.py"}
            result = server.call(name, call_args)
            text = text_of(result)
            if MARKER in text or "outside_secret" in text:
                leaks += 1
                if len(examples) < 3:
                    examples.append(f"{name}: {text[:200]}")
            if result.get("isError"):
                outcomes[f"{name} error {text.split(':', 1)[0]}"] += 1
            else:
                outcomes[f"{name} ok"] += 1
    finally:
        server.close()
    calls_s = time.monotonic() - started

    index_codes: collections.Counter[int] = collections.Counter()
    index_db = os.path.join(base, "race-index.db")
    started = time.monotonic()
    for _ in range(args.index_runs):
        r = subprocess.run([binary, "index", root, "--db", index_db, "-q"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        index_codes[r.returncode] += 1
    index_s = time.monotonic() - started
    swapper.send_signal(signal.SIGTERM)
    out, _ = swapper.communicate(timeout=30)
    swaps = int(out.strip() or 0)

    conn = sqlite3.connect(f"file:{index_db}?mode=ro", uri=True)
    leaked_nodes = conn.execute(
        "SELECT count(*) FROM nodes WHERE name = 'outside_secret'").fetchone()[0]
    conn.close()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    leaked_nodes += conn.execute(
        "SELECT count(*) FROM nodes WHERE name = 'outside_secret'").fetchone()[0]
    conn.close()

    print(f"swaps: {swaps}")
    print(f"calls: {args.calls} in {calls_s:.1f} s")
    print(f"outside contents returned: {leaks}")
    for key, n in sorted(outcomes.items()):
        print(f"  {key}: {n}")
    for e in examples:
        print(f"  leak: {e}")
    print(f"index runs: {args.index_runs} in {index_s:.1f} s, exit codes {dict(sorted(index_codes.items()))}")
    print(f"outside symbols indexed: {leaked_nodes}")
    shutil.rmtree(base, ignore_errors=True)
    return 1 if leaks or leaked_nodes else 0


if __name__ == "__main__":
    sys.exit(main())
