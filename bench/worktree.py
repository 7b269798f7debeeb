#!/usr/bin/env python3
"""What the index of a second git worktree costs, beside the first's.

What it measures (the criterion: the second indexes in at most 15% of the first's time
and adds at most 15% to the disk used):
  1. downloads two releases of a real Python project as sdists from PyPI (default
     Django 5.2.8 and 5.2.9) into a temporary directory and commits them, in that order,
     as commits A and B of a temporary git repository (the main worktree holds B);
  2. --rounds times (default 3), alternating: the first worktree's index from nothing
     (`constellation index MAIN`, its default database `MAIN/.constellation/index.db`
     removed before), then the second worktree's: `git worktree add SECOND COMMIT`
     (made once per kind) and `constellation index SECOND` with its default database
     removed before, for a second worktree at the same commit (B) and at the previous
     release (A). A second worktree's first index starts from a copy of another
     worktree's index and parses only the files whose content it lacks;
  3. checks that each second index exports (`constellation export`, JSON) the same
     bytes as a from-scratch build of that worktree (`index SECOND --db OTHER`: a
     database given with --db is never seeded);
  4. prints per round the wall times, then the medians, the second's share of the
     first's time, the files parsed, how the second index was copied (`seededFrom` of
     `index --json`: a copy-on-write "clone" or a whole "backup"), and disk:
       - of the first index directory (`.constellation/`: its files' length and the
         blocks they hold) and of the worktree's files;
       - added by each second index: the blocks its index files hold alone, that is,
         their extents that the file system does not mark shared (FIEMAP, Linux),
         median over the rounds. A copy-on-write clone shares the first index's
         blocks until either side writes them; du would count those twice. Where
         FIEMAP is not available, all the blocks its files hold. Shares are of the
         first index's length. Give --dir on a file system that can clone files (an
         XFS or Btrfs image mounted from a loop device, say) to see a clone.

How to run (after `cargo build --release`; needs git and access to PyPI):

    python3 bench/worktree.py [--package django] [--from 5.2.8] [--to 5.2.9] [--rounds 3]
                              [--dir DIR]

To see a clone, on Linux as root with xfsprogs installed:

    truncate -s 8G /tmp/xfs.img && mkfs.xfs -q -m reflink=1 /tmp/xfs.img
    mkdir -p /mnt/cow && mount -o loop /tmp/xfs.img /mnt/cow
    python3 bench/worktree.py --dir /mnt/cow

The binary is $CONSTELLATION_BIN, else target/release/constellation. Everything is made
in a temporary directory (in DIR with --dir), removed afterwards. Exit status 0 when
every second index equals its fresh build, 1 otherwise.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

from benchlib import commit_releases, constellation_bin, export_json, git


def du(path: str) -> int:
    total = 0
    for dirpath, dirnames, filenames in os.walk(path):
        if ".git" in dirnames:
            dirnames.remove(".git")
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                total += os.stat(p).st_blocks * 512
    return total


FS_IOC_FIEMAP = 0xC020660B  # _IOWR('f', 11, struct fiemap)
FIEMAP_FLAG_SYNC = 0x1
FIEMAP_EXTENT_LAST = 0x1
FIEMAP_EXTENT_SHARED = 0x2000
EXTENT = struct.Struct("=QQQQQI12x")  # struct fiemap_extent, 56 bytes
HEADER = struct.Struct("=QQIIII")  # struct fiemap without its extents, 32 bytes


def unshared_bytes(path: str) -> int | None:
    """Bytes of disk that the file at `path` alone holds: the lengths of its extents
    (past its end too) that the file system does not mark shared with another file
    (FIEMAP_EXTENT_SHARED, which a copy-on-write clone's extents carry until one side
    writes them). None where the FIEMAP ioctl is not available."""
    out = 0
    start = 0
    with open(path, "rb") as f:
        while True:
            count = 256
            buf = bytearray(HEADER.pack(start, 2**64 - 1 - start, FIEMAP_FLAG_SYNC, 0, count, 0))
            buf += bytes(EXTENT.size * count)
            try:
                fcntl.ioctl(f.fileno(), FS_IOC_FIEMAP, buf)
            except OSError:
                return None
            mapped = HEADER.unpack_from(buf)[3]
            if mapped == 0:
                return out
            for i in range(mapped):
                logical, _, length, _, _, flags = EXTENT.unpack_from(buf, HEADER.size + i * EXTENT.size)
                if not flags & FIEMAP_EXTENT_SHARED:
                    out += length
                if flags & FIEMAP_EXTENT_LAST:
                    return out
                start = logical + length


def index_disk(directory: str) -> tuple[int, int, int]:
    """(length, blocks held, blocks held alone) of the files in an index directory,
    in bytes; blocks held alone falls back to blocks held without FIEMAP."""
    length = held = alone = 0
    for name in os.listdir(directory):
        p = os.path.join(directory, name)
        length += os.path.getsize(p)
        held += os.stat(p).st_blocks * 512
        u = unshared_bytes(p)
        alone += os.stat(p).st_blocks * 512 if u is None else u
    return length, held, alone


def index(binary: str, root: str, db: str | None = None) -> tuple[float, dict]:
    args = [binary, "index", root, "--json"] + (["--db", db] if db else [])
    t = time.perf_counter()
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t, json.loads(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--package", default="django")
    ap.add_argument("--from", dest="old", default="5.2.8")
    ap.add_argument("--to", dest="new", default="5.2.9")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--index-url", default="https://pypi.org")
    ap.add_argument("--dir", help="where to make the temporary directory (default: the system's)")
    a = ap.parse_args()
    binary = constellation_bin()
    tmp = tempfile.mkdtemp(prefix="worktree-bench-", dir=a.dir)
    ok = True
    try:
        main_wt = os.path.join(tmp, "main")
        commit_releases(main_wt, a.index_url, a.package, [a.old, a.new], tmp)
        changed = git(main_wt, "diff", "--name-only", "HEAD~1").split()
        files = len(git(main_wt, "ls-files").split("\n")) - 1
        print(f"corpus: {a.package} {a.old} (commit A) and {a.new} (B): {files} files in B, {len(changed)} differ")
        seconds = {"same commit (B)": os.path.join(tmp, "same"), f"previous release (A, {a.old})": os.path.join(tmp, "prev")}
        git(main_wt, "worktree", "add", "-q", seconds["same commit (B)"], "HEAD")
        git(main_wt, "worktree", "add", "-q", "--detach", seconds[f"previous release (A, {a.old})"], "HEAD~1")
        firsts: list[float] = []
        times: dict[str, list[float]] = {k: [] for k in seconds}
        parsed: dict[str, int] = {}
        added: dict[str, list[int]] = {k: [] for k in seconds}
        copies: dict[str, set[str]] = {k: set() for k in seconds}
        for r in range(a.rounds):
            # From nothing: no other worktree's index to start from.
            for wt in [main_wt, *seconds.values()]:
                shutil.rmtree(os.path.join(wt, ".constellation"), ignore_errors=True)
            t, rep = index(binary, main_wt)
            firsts.append(t)
            line = f"round {r + 1}: first worktree {t:.2f} s ({rep['filesParsed']} files parsed)"
            for kind, wt in seconds.items():
                shutil.rmtree(os.path.join(wt, ".constellation"), ignore_errors=True)
                t, rep = index(binary, wt)
                added[kind].append(index_disk(os.path.join(wt, ".constellation"))[2])
                copies[kind].add((rep.get("seededFrom") or {}).get("copy", "none"))
                times[kind].append(t)
                parsed[kind] = rep["filesParsed"]
                line += f"; second, {kind}: {t:.2f} s ({rep['filesParsed']} parsed)"
            print(line)
        first_size, first_blocks, _ = index_disk(os.path.join(main_wt, ".constellation"))
        tree_disk = du(main_wt) - first_blocks
        # Shares are of the first index's length, the smallest of its measures (XFS
        # keeps blocks preallocated past a file's end for a while).
        first_disk = min(first_size, first_blocks)
        print(
            f"first worktree: median {statistics.median(firsts):.2f} s; index {first_size / 2**20:.1f} MiB long, "
            f"holding {first_blocks / 2**20:.1f} MiB of blocks; the worktree's files {tree_disk / 2**20:.1f} MiB"
        )
        for kind, wt in seconds.items():
            m = statistics.median(times[kind])
            disk = du(os.path.join(wt, ".constellation"))
            grew = statistics.median(added[kind])
            fresh_db = os.path.join(tmp, "fresh.db")
            for ext in ("", "-wal", "-shm"):
                if os.path.exists(fresh_db + ext):
                    os.remove(fresh_db + ext)
            index(binary, wt, fresh_db)
            equal = export_json(binary, wt, os.path.join(wt, ".constellation", "index.db")) == export_json(binary, wt, fresh_db)
            ok &= equal
            print(
                f"second worktree, {kind}: median {m:.2f} s = {m / statistics.median(firsts):.1%} of the first's; "
                f"{parsed[kind]} files parsed; copied as {'/'.join(sorted(copies[kind]))}; "
                f"index files {disk / 2**20:.1f} MiB (blocks shared with the first's counted); "
                f"blocks it holds alone {grew / 2**20:.1f} MiB (median of {', '.join(f'{x / 2**20:.1f}' for x in added[kind])}) "
                f"= {grew / first_disk:.1%} of the first's index, "
                f"{grew / (first_disk + tree_disk):.1%} of the first worktree with its index; "
                f"export {'equal to' if equal else 'DIFFERENT from'} a fresh build"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
