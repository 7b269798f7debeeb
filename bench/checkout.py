#!/usr/bin/env python3
"""After a `git checkout` of a commit some 200 files away, how soon the index of a
running `constellation serve` equals a from-scratch index of that commit.

What it measures (the criterion: equal within 3 s of the checkout's end):
  1. downloads two releases of a real Python project as sdists from PyPI (its JSON API;
     default SQLAlchemy 2.0.0 and 2.0.10, 250 .py files apart: 239 changed, 11 added)
     into a temporary directory, and commits them, in that order, as commits A and B of
     a temporary git repository; prints how many files (and .py files) the commits add,
     change and remove;
  2. before anything is timed, builds the reference of each commit: a `git worktree` of
     it, indexed from nothing (`constellation index REF --db REFDB`) and exported
     (`constellation export REF --db REFDB`, JSON: relative paths and node keys only,
     byte-identical for identical trees);
  3. checks out A, indexes it (`constellation index REPO --db DB`), starts one
     `constellation serve REPO --db DB` (stdio MCP, file watch on, the default) and waits
     until `get_status` says the tree is watched (the watch starts in the background),
     then one second more;
  4. --rounds times (default 5), alternating B, A, B, ...: `git checkout -q COMMIT`,
     then every --poll s (default 0.1) calls `get_status`; once it reports nothing
     pending and a newer generation (or --export-every s after the last export, in case
     the status is wrong), exports the served database (`constellation export`, a
     read-only reader beside the server's writer) and compares its bytes with the
     reference of that commit. The latency is from the end of `git checkout` to the
     `get_status` poll after which the first equal export was made, when that poll said
     settled and `get_status` reports the same generation after the export (the index
     held the exported content at that poll: every index run moves the generation);
     otherwise to the end of that export (an upper bound: equality held when the export
     read the database). Both are printed. The round fails when no export is equal
     within --timeout s (default 30). After equality the status is polled on until it
     says settled, for the report.

With --call-first, each checkout is followed at once by one `search_symbols` call, which
waits for the background run (the freshness rule of a watched server); the round line
then says when it answered and how many tool-call walks (`callWalks`) it added.

It prints per round the direction, the checkout's own time, when `get_status` first
said settled, the latency to equality, the exports made, then p50/max of the latencies
and `get_status`'s watcher counters (events, background runs, tool calls that walked
the tree). When a round never reaches equality, the lines that differ from the
reference (at most 10 each way).

How to run (after `cargo build --release`; needs git and access to PyPI):

    python3 bench/checkout.py [--package sqlalchemy] [--from 2.0.0] [--to 2.0.10]
                              [--rounds 5] [--timeout 30] [--limit 3] [--call-first]

The binary is $CONSTELLATION_BIN, else target/release/constellation. Everything is
made in a temporary directory, removed afterwards. Exit status: 0 when every round
reached equality within --limit s (default 3), 1 otherwise (the failing rounds are
named), 2 when a prerequisite is missing or a setup step failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from benchlib import McpServer, commit_releases, constellation_bin, die, git, report

def diff_counts(repo: str, a: str, b: str) -> dict[str, dict[str, int]]:
    """Files added (A), changed (M) and removed (D) from commit a to b: all, and .py."""
    counts = {"all": {"A": 0, "M": 0, "D": 0}, "py": {"A": 0, "M": 0, "D": 0}}
    for line in git(repo, "diff", "--name-status", "--no-renames", a, b).splitlines():
        status, path = line.split("\t", 1)
        key = status[0] if status[0] in "AMD" else "M"
        counts["all"][key] += 1
        if path.endswith(".py"):
            counts["py"][key] += 1
    return counts


def export(binary: str, root: str, db: str) -> tuple[bytes | None, str]:
    """`constellation export ROOT --db DB` (JSON): its bytes, or None and its error."""
    r = subprocess.run([binary, "export", root, "--db", db, "--quiet"], capture_output=True)
    if r.returncode != 0:
        return None, r.stderr.decode(errors="replace").strip()
    return r.stdout, ""


def root_status(server: McpServer) -> dict:
    result = server.call("get_status", {})
    return (result.get("structuredContent") or {}).get("roots", [{}])[0]


def secs(s: float | None) -> str:
    return "never" if s is None else f"{s:.2f} s"


def show_difference(served: bytes, reference: bytes) -> None:
    ours, ref = set(served.splitlines()), set(reference.splitlines())
    only_served, only_ref = sorted(ours - ref), sorted(ref - ours)
    print(f"    lines only in the served export: {len(only_served)}; only in the reference: {len(only_ref)}")
    for label, lines in (("served", only_served), ("reference", only_ref)):
        for line in lines[:10]:
            print(f"    only {label}: {line.decode(errors='replace')[:200]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--package", default="sqlalchemy", help="PyPI project (default sqlalchemy)")
    ap.add_argument("--from", dest="old", default="2.0.0", help="version of commit A")
    ap.add_argument("--to", dest="new", default="2.0.10", help="version of commit B")
    ap.add_argument("--index", default="https://pypi.org", help="PyPI base URL (its /pypi/NAME/json API)")
    ap.add_argument("--rounds", type=int, default=5, help="checkouts, alternating B, A, B, ...")
    ap.add_argument("--poll", type=float, default=0.1, help="s between get_status calls")
    ap.add_argument("--export-every", type=float, default=1.0,
                    help="export at least this often (s), whatever get_status says")
    ap.add_argument("--timeout", type=float, default=30.0, help="s to wait for equality in one round")
    ap.add_argument("--limit", type=float, default=3.0, help="the criterion: equal within this many s")
    ap.add_argument("--call-first", action="store_true",
                    help="call search_symbols right after each checkout (it waits for the index)")
    ap.add_argument("--gap", type=float, default=1.0, help="s to wait between rounds")
    args = ap.parse_args()

    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"{binary} not found: run `cargo build --release` or set CONSTELLATION_BIN")
    if shutil.which("git") is None:
        die("git is not installed")
    work = tempfile.mkdtemp(prefix="constellation-checkout-")
    server = None
    try:
        repo = os.path.join(work, "repo")
        a_id, b_id = commit_releases(repo, args.index, args.package, [args.old, args.new], work)
        commits = {"A": a_id, "B": b_id}
        counts = diff_counts(repo, commits["A"], commits["B"])
        tracked = len(git(repo, "ls-files", "-z").split("\0")) - 1
        print(f"corpus: {args.package} {args.old} (A) -> {args.new} (B), {tracked} files in B")
        for kind, label in (("all", "files"), ("py", ".py files")):
            c = counts[kind]
            print(f"  {label} from A to B: {c['A'] + c['M'] + c['D']} differ "
                  f"({c['A']} added, {c['M']} changed, {c['D']} removed)")

        # The references, built before anything is timed.
        references: dict[str, bytes] = {}
        for label, commit in commits.items():
            ref = os.path.join(work, f"ref-{label}")
            git(repo, "worktree", "add", "-q", "--detach", ref, commit)
            ref_db = os.path.join(work, f"ref-{label}.db")
            t = time.perf_counter()
            subprocess.run([binary, "index", ref, "--db", ref_db, "--quiet"], check=True, stdout=subprocess.DEVNULL)
            built = time.perf_counter() - t
            data, err = export(binary, ref, ref_db)
            if data is None:
                die(f"export of the reference of {label}: {err}")
            references[label] = data
            print(f"reference {label}: from-scratch index {built:.1f} s, export {len(data) / 1e6:.1f} MB")

        git(repo, "checkout", "-q", commits["A"])
        db = os.path.join(work, "index.db")
        print("$ " + f"{binary} index REPO --db DB")
        subprocess.run([binary, "index", repo, "--db", db, "--quiet"], check=True, stdout=subprocess.DEVNULL)
        if export(binary, repo, db)[0] != references["A"]:
            die("the index of commit A differs from its reference before any checkout")
        server = McpServer(binary, repo, db, "checkout_bench")
        print("$ " + f"{binary} serve REPO --db DB")
        started = time.perf_counter()
        while not (root_status(server).get("watcher") or {}).get("watching"):
            if time.perf_counter() - started > args.timeout:
                die(f"serve was not watching the tree {args.timeout:g} s after its start")
            time.sleep(args.poll)
        time.sleep(1.0)

        problems: list[str] = []
        latencies: list[float] = []
        current = "A"
        for k in range(args.rounds):
            target = "B" if current == "A" else "A"
            gen0 = root_status(server).get("generation", 0)
            t0 = time.perf_counter()
            git(repo, "checkout", "-q", commits[target])
            t1 = time.perf_counter()
            call = ""
            if args.call_first:
                walks0 = (root_status(server).get("watcher") or {}).get("callWalks", 0)
                server.call("search_symbols", {"query": "cst_checkout_probe", "limit": 1})
                walks = (root_status(server).get("watcher") or {}).get("callWalks", 0) - walks0
                call = f"; search_symbols first answered after {time.perf_counter() - t1:.2f} s, walks {walks}"
            settled = equal = exported = None
            exports, last_export, last_data, errors = 0, t1, b"", []
            while time.perf_counter() - t1 < args.timeout and (equal is None or settled is None):
                st = root_status(server)
                polled = time.perf_counter() - t1
                quiet = st.get("pendingChanges") is False and st.get("generation", 0) > gen0
                if quiet and settled is None:
                    settled = polled
                if equal is None and (quiet or time.perf_counter() - last_export >= args.export_every):
                    data, err = export(binary, repo, db)
                    last_export = time.perf_counter()
                    exports += 1
                    if data is None:
                        errors.append(err)
                    elif data == references[target]:
                        exported = last_export - t1
                        # The generation did not move during the export: the index held
                        # the exported (equal) content already when it was polled.
                        same = root_status(server).get("generation") == st.get("generation")
                        equal = polled if quiet and same else exported
                    else:
                        last_data = data
                time.sleep(args.poll)
            name = f"round {k + 1} ({current} -> {target})"
            print(f"{name}: checkout {t1 - t0:.2f} s; get_status settled {secs(settled)}; "
                  f"equal {secs(equal)} after the checkout's end (export done {secs(exported)}); {exports} exports"
                  + (f", {len(errors)} failed ({errors[0][:120]})" if errors else "") + call)
            if equal is None:
                problems.append(f"{name}: the served index never equalled the reference within {args.timeout:g} s")
                if last_data:
                    show_difference(last_data, references[target])
            else:
                latencies.append(equal)
                if equal > args.limit:
                    problems.append(f"{name}: equal only after {equal:.2f} s (limit {args.limit:g} s)")
            current = target
            time.sleep(args.gap)

        watcher = root_status(server).get("watcher") or {}
        if latencies:
            print(f"checkout -> equal index: p50 {statistics.median(latencies):.2f} s, max {max(latencies):.2f} s "
                  f"over {len(latencies)} of {args.rounds} rounds (limit {args.limit:g} s)")
        print(f"get_status watcher: events {watcher.get('events')}, background runs {watcher.get('backgroundRuns')} (walked the tree: {watcher.get('backgroundWalks')}), "
              f"tool calls that walked the tree (callWalks) {watcher.get('callWalks')}, "
              f"degraded {watcher.get('degraded')}")
        return report(problems)
    finally:
        if server is not None:
            server.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
