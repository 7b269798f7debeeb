#!/usr/bin/env python3
"""Reliability suite: many processes, killed processes, read-only and full disks.

Each part runs real `constellation` processes on copies of real trees, in bounded
loops, and prints what it counted. The quick versions of the first parts run in CI as
tests/concurrency.rs, tests/crash.rs and tests/cli.rs; the symlink race and the request
fuzzer have their own scripts (bench/symlink_race.py, bench/fuzz_stdio.py).

Parts (`--part NAME`, repeatable; all by default):
  starts     N servers (`--servers 8 32`) started at once on a workspace with no database
             yet, `--rounds` times each: every server must initialize and answer
             `query_index` from the complete index, exit 0, and log no failure; the final
             index must equal a clean build (`export --format json`, byte-identical).
  races      4 concurrent `index` runs that all find the same new files, then 4
             concurrent `index --full`, `--rounds` times: 0 failures, index equal to a
             clean build after each.
  writes     every write tool (update_tasks, mark_task_as_done, save_current_work_info,
             sequentialthinking, report_file_info, report_folder_info) called in turn
             through one server while `index --full` rebuilds an index of two copies of
             the corpus: errors, p50, p99 (nearest rank) and max latency in ms.
  kills      `--kills` SIGKILLs at random moments of `index` runs (from nothing,
             `--full`, incremental after edits, `--vacuum`) and of a server writing tasks:
             after each, `PRAGMA integrity_check` of both databases, then a normal
             `index` run whose export must equal a clean build, and every task write the
             server acknowledged must be there.
  readonly   (root only: mounts a tmpfs) the index built, the mount remounted read-only:
             a server answers every read tool (errors counted), each answer stamped stale.
  fulldisk   (root only: a tmpfs of fixed size) the index built, the disk filled, a file
             edited: read tools still answer (stale notice), errors counted; the error
             text of the failed refresh must not repeat itself.

How to run (after `cargo build --release`; CORPUS defaults to npm's source, copied):

    python3 bench/reliability.py [--corpus DIR] [--part starts ...] [--rounds 20]
        [--servers 8 32] [--kills 100]

The binary is $CONSTELLATION_BIN, else target/release/constellation. Nothing is
written outside a temporary directory (the corpus is copied). Exit status 0 when every
count is as it must be, 1 when one is not, 2 when a prerequisite is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

from benchlib import constellation_bin, die

BIN = ""
PROBLEMS: list[str] = []
# Extra `serve` arguments of the writes part (`--writes-no-watch` adds --no-watch).
WRITES_SERVE_ARGS: list[str] = []


def problem(msg: str) -> None:
    PROBLEMS.append(msg)
    print(f"  PROBLEM: {msg}", flush=True)


def copy_tree(src: str, dest: str) -> None:
    shutil.copytree(
        src,
        dest,
        symlinks=True,
        ignore=shutil.ignore_patterns(".constellation", "__pycache__", "*.pyc", "node_modules"),
    )


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("CONSTELLATION_DB", None)
    p = subprocess.run([BIN, *args], capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        problem(f"constellation {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    return p


def export(root: str, db: str) -> str:
    return run("export", root, "--db", db, "--format", "json").stdout


def clean_export(root: str, tmp: str) -> str:
    db = os.path.join(tmp, f"clean-{random.randrange(1 << 30)}.db")
    run("index", root, "--db", db, "-q")
    out = export(root, db)
    for ext in ("", "-wal", "-shm", ".lock"):
        if os.path.exists(db + ext):
            os.remove(db + ext)
    return out


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))]


class Server:
    """`serve ROOT [--db DB]` over stdio, initialized; stderr kept in a file."""

    def __init__(self, root: str, db: str | None, log: str, extra: list[str] | None = None):
        args = [BIN, "-v", "serve", root, *(["--db", db] if db else []), *(extra or [])]
        env = dict(os.environ)
        env.pop("CONSTELLATION_DB", None)
        self.log_path = log
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=open(log, "w"),
            text=True,
            bufsize=1,
            env=env,
        )
        self.next_id = 1

    def send(self, msg: dict) -> None:
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def initialize(self) -> dict | None:
        r = self.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "rel", "version": "1"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def request(self, method: str, params: dict) -> dict | None:
        rid = self.next_id
        self.next_id += 1
        try:
            self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    return None
                msg = json.loads(line)
                if msg.get("id") == rid:
                    return msg
        except (BrokenPipeError, OSError):
            return None

    def call(self, name: str, args: dict) -> dict | None:
        r = self.request("tools/call", {"name": name, "arguments": args})
        return None if r is None else r.get("result", r)

    def close(self) -> int:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def log(self) -> str:
        with open(self.log_path, errors="replace") as f:
            return f.read()


def log_failures(log: str) -> list[str]:
    bad = ("ERROR", "failed", "locked", "already exists", "UNIQUE", "panicked")
    return [l for l in log.splitlines() if any(b in l for b in bad)]


def part_starts(corpus: str, tmp: str, counts: list[int], rounds: int) -> None:
    print(f"== starts: {counts} servers at once, {rounds} rounds each, on a workspace with no database")
    reference = None
    for n in counts:
        failures = 0
        slowest = 0.0
        for r in range(rounds):
            ws = os.path.join(tmp, f"starts-{n}-{r}")
            copy_tree(corpus, ws)
            if reference is None:
                reference = clean_export(ws, tmp)
                files = len(json.loads(reference)["files"])
            logs = [os.path.join(tmp, f"starts-{n}-{r}-{i}.log") for i in range(n)]
            t0 = time.time()
            servers = [Server(ws, None, logs[i]) for i in range(n)]
            answers: list[dict | None] = [None] * n

            def talk(i: int) -> None:
                s = servers[i]
                if s.initialize() is None:
                    return
                # The summary brings the index up to date first (or waits for the run
                # that does); then every server must see the whole tree.
                summary = s.call("constellation_get_graph_summary", {})
                if summary is None or summary.get("isError"):
                    answers[i] = summary
                    return
                answers[i] = s.call("query_index", {"sql": "SELECT count(*) FROM files"})

            threads = [threading.Thread(target=talk, args=(i,)) for i in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            slowest = max(slowest, time.time() - t0)
            counts_seen = set()
            for i, s in enumerate(servers):
                code = s.close()
                bad = log_failures(s.log())
                a = answers[i]
                ok = code == 0 and not bad and a is not None and not a.get("isError")
                if a is not None and not a.get("isError"):
                    counts_seen.add(json.dumps(a.get("structuredContent", {}).get("rows")))
                if not ok:
                    failures += 1
                    problem(
                        f"starts n={n} round {r} server {i}: exit {code}, answer {str(a)[:200]}, log {bad[:2]}"
                    )
            if len(counts_seen) != 1 or json.dumps([[files]]) not in counts_seen:
                problem(f"starts n={n} round {r}: servers saw file counts {counts_seen}, not {files}")
            if export(ws, os.path.join(ws, ".constellation/index.db")) != reference:
                problem(f"starts n={n} round {r}: final index differs from a clean build")
            shutil.rmtree(ws)
        print(f"  {n} servers x {rounds} rounds: {failures} failures of {n * rounds}; slowest round {slowest:.1f} s")


def part_races(corpus: str, tmp: str, rounds: int) -> None:
    print(f"== races: 4 concurrent index runs adding the same files, then 4 concurrent --full, {rounds} rounds")
    failures = mismatches = 0
    for r in range(rounds):
        ws = os.path.join(tmp, f"races-{r}")
        copy_tree(corpus, ws)
        run("index", ws, "-q")
        os.makedirs(os.path.join(ws, "added"), exist_ok=True)
        for i in range(50):
            with open(os.path.join(ws, "added", f"m{r}_{i}.py"), "w") as f:
                f.write(f"def f{i}():\n    return {i}\n\ndef g{i}():\n    return f{i}()\n")
        for args in (["index", ws, "-q"], ["index", ws, "--full", "-q"]):
            procs = [
                subprocess.Popen([BIN, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                for _ in range(4)
            ]
            for p in procs:
                _, err = p.communicate()
                if p.returncode != 0:
                    failures += 1
                    problem(f"races round {r} {args[2:]}: exit {p.returncode}: {err.strip()[:300]}")
            if export(ws, os.path.join(ws, ".constellation/index.db")) != clean_export(ws, tmp):
                mismatches += 1
                problem(f"races round {r} {args[2:]}: index differs from a clean build")
        shutil.rmtree(ws)
    print(f"  {rounds * 8} runs: {failures} failures; {mismatches} indexes unequal to a clean build")


def write_calls(server: Server, i: int, path: str, folder: str) -> list[tuple[str, dict]]:
    session = f"reliability-{i % 7}"
    return [
        (
            "update_tasks",
            {"sessionId": session, "tasks": [{"taskId": f"t{k}", "description": f"task {i}-{k}"} for k in range(3)]},
        ),
        ("mark_task_as_done", {"sessionId": session, "taskId": "t1"}),
        ("save_current_work_info", {"work_summarize": f"work {i}", "work_description": "reliability", "sessionId": session}),
        (
            "sequentialthinking",
            {"thought": f"step {i}", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False},
        ),
        ("report_file_info", {"path": path, "overview": f"o{i}", "functions": []}),
        ("report_folder_info", {"path": folder, "overview": f"o{i}", "key_files": [], "architecture": "a"}),
    ]


def part_writes(corpus: str, tmp: str, seconds: float) -> None:
    print("== writes: every write tool while `index --full` rebuilds an index of two copies of the corpus")
    ws = os.path.join(tmp, "writes")
    copy_tree(corpus, os.path.join(ws, "a"))
    copy_tree(corpus, os.path.join(ws, "b"))
    run("index", ws, "-q")
    files = sorted(
        os.path.relpath(os.path.join(b, n), ws)
        for b, _, ns in os.walk(os.path.join(ws, "a"))
        for n in ns
        if n.endswith((".py", ".js"))
    )
    # A file in a package of ordinary size (at most 20 source files): the folder tools'
    # own work grows with the folder, and this part measures waiting, not that.
    per_dir: dict[str, int] = {}
    for f in files:
        per_dir[os.path.dirname(f)] = per_dir.get(os.path.dirname(f), 0) + 1
    ordinary = [f for f in files if 3 <= per_dir[os.path.dirname(f)] <= 20] or files
    path = ordinary[len(ordinary) // 2]
    folder = os.path.dirname(path) or "."
    print(f"  file {path}, folder {folder} ({per_dir.get(folder, 0)} source files)")
    # As `serve` runs by default: a file watch keeps the index fresh, so a tool call
    # walks nothing (`--no-watch` makes each folder_info-style call walk the tree).
    server = Server(ws, None, os.path.join(tmp, "writes.log"), WRITES_SERVE_ARGS)
    server.initialize()
    # The same calls with nothing else running, for comparison.
    idle: dict[str, list[float]] = {}
    for k in range(20):
        for name, args in write_calls(server, 100000 + k, path, folder):
            t0 = time.perf_counter()
            server.call(name, args)
            idle.setdefault(name, []).append((time.perf_counter() - t0) * 1000)
    lat: dict[str, list[float]] = {}
    errors: dict[str, int] = {}
    texts: list[str] = []
    i = 0
    full_runs = 0
    t_end = time.time() + seconds
    while time.time() < t_end:
        full = subprocess.Popen([BIN, "index", ws, "--full", "-q"], stdout=subprocess.DEVNULL)
        full_runs += 1
        time.sleep(0.3)
        while full.poll() is None:
            for name, args in write_calls(server, i, path, folder):
                t0 = time.perf_counter()
                r = server.call(name, args)
                ms = (time.perf_counter() - t0) * 1000
                if r is None or r.get("isError"):
                    errors[name] = errors.get(name, 0) + 1
                    texts.append(f"{name}: {str(r)[:200]}")
                else:
                    lat.setdefault(name, []).append(ms)
                i += 1
                time.sleep(0.01)
        if full.returncode != 0:
            problem(f"writes: index --full exited {full.returncode}")
    server.close()
    every = [v for vs in lat.values() for v in vs]
    print(f"  {full_runs} --full runs; {len(every)} writes answered, {sum(errors.values())} errors")
    for name in sorted(set(lat) | set(errors)):
        vs = lat.get(name, [])
        iv = idle.get(name, [])
        print(
            f"  {name:24} n={len(vs):5} errors={errors.get(name, 0)} p50={pct(vs, 50):7.1f} "
            f"p99={pct(vs, 99):7.1f} max={max(vs) if vs else float('nan'):7.1f} ms "
            f"(idle: p50 {pct(iv, 50):.1f}, max {max(iv) if iv else float('nan'):.1f} ms)"
        )
    print(f"  all writes: p50 {pct(every, 50):.1f} ms, p99 {pct(every, 99):.1f} ms, max {max(every):.1f} ms")
    for t in texts[:5]:
        print(f"    error: {t}")
    if errors:
        problem(f"writes: {sum(errors.values())} write errors during --full")
    if pct(every, 99) > 200:
        problem(f"writes: p99 {pct(every, 99):.1f} ms over 200 ms")


def integrity(db: str) -> str:
    if not os.path.exists(db):
        return "ok"
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
        r = c.execute("PRAGMA integrity_check").fetchone()[0]
        c.close()
        return r
    except sqlite3.DatabaseError as e:
        return str(e)


def part_kills(corpus: str, tmp: str, kills: int, seed: int) -> None:
    print(f"== kills: {kills} SIGKILLs of index runs and of a writing server")
    rng = random.Random(seed)
    ws = os.path.join(tmp, "kills")
    copy_tree(corpus, ws)
    db = os.path.join(ws, ".constellation/index.db")
    mem = os.path.join(ws, ".constellation/memory.db")
    reference_of = lambda: clean_export(ws, tmp)  # noqa: E731
    corrupt = wrong = lost = acked_total = 0
    kinds: dict[str, int] = {}
    files = [
        os.path.join(b, n) for b, _, ns in os.walk(ws) for n in ns if n.endswith(".js") and ".constellation" not in b
    ]
    for k in range(kills):
        kind = rng.choice(["fresh", "full", "incremental", "vacuum", "server"])
        kinds[kind] = kinds.get(kind, 0) + 1
        acked: list[str] = []
        if kind == "fresh":
            for ext in ("", "-wal", "-shm"):
                if os.path.exists(db + ext):
                    os.remove(db + ext)
        if kind == "incremental":
            for f in rng.sample(files, 5):
                with open(f, "a") as fh:
                    fh.write(f"\nfunction killed_{k}() {{ return {k}; }}\n")
        if kind == "server":
            s = Server(ws, None, os.path.join(tmp, "kill-server.log"), ["--no-watch"])
            s.initialize()
            stop = time.time() + rng.uniform(0.2, 1.5)
            n = 0
            while time.time() < stop:
                content = f"kill {k} task {n}"
                r = s.call("update_tasks", {"sessionId": f"kill-{k}-{n}", "tasks": [{"taskId": "t1", "description": content}]})
                if r is not None and not r.get("isError"):
                    acked.append(content)
                n += 1
            # Kill right after a write was acknowledged, with the next one in flight.
            s.send({"jsonrpc": "2.0", "id": 10**6, "method": "tools/call", "params": {"name": "update_tasks", "arguments": {"sessionId": f"kill-{k}-x", "tasks": [{"taskId": "t1", "description": "in flight"}]}}})
            s.proc.send_signal(signal.SIGKILL)
            s.proc.wait()
        else:
            args = {"fresh": [], "full": ["--full"], "incremental": [], "vacuum": ["--vacuum"]}[kind]
            p = subprocess.Popen([BIN, "index", ws, "-q", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.02, 1.5))
            p.send_signal(signal.SIGKILL)
            p.wait()
        for path in (db, mem):
            r = integrity(path)
            if r != "ok":
                corrupt += 1
                problem(f"kill {k} ({kind}): {os.path.basename(path)} integrity: {r}")
        if acked:
            acked_total += len(acked)
            c = sqlite3.connect(f"file:{mem}?mode=ro", uri=True, timeout=30)
            have = {row[0] for row in c.execute("SELECT description FROM tasks")}
            c.close()
            missing = [a for a in acked if a not in have]
            lost += len(missing)
            if missing:
                problem(f"kill {k}: {len(missing)} acknowledged task writes lost, e.g. {missing[0]}")
        after = run("index", ws, "-q", check=False)
        if after.returncode != 0:
            wrong += 1
            problem(f"kill {k} ({kind}): the next index run failed: {after.stderr.strip()[:300]}")
        elif export(ws, db) != reference_of():
            wrong += 1
            problem(f"kill {k} ({kind}): the index after the next run differs from a clean build")
    print(f"  kills by kind: {kinds}")
    print(f"  corrupt databases: {corrupt}; wrong final indexes: {wrong}; acknowledged task writes: {acked_total}, lost: {lost}")


READ_TOOLS = [
    ("constellation_get_graph_summary", {}),
    ("summarize_graph", {"budget_tokens": 2000}),
    ("list_top_nodes", {}),
    ("search_symbols", {"query": "parse"}),
    ("query_index", {"sql": "SELECT count(*) FROM files"}),
    ("get_status", {}),
]


def read_tool_calls(ws: str) -> list[tuple[str, dict]]:
    files = sorted(
        os.path.relpath(os.path.join(b, n), ws)
        for b, _, ns in os.walk(ws)
        for n in ns
        if n.endswith((".js", ".py")) and ".constellation" not in b
    )
    path = files[len(files) // 2]
    return READ_TOOLS + [
        ("file_info", {"path": path}),
        ("inspect_source", {"path": path, "startLine": 1, "endLine": 5}),
        ("folder_info", {"path": os.path.dirname(path) or "."}),
        ("get_impact", {"target": path}),
        ("get_recent_works_info", {}),
    ]


def can_mount() -> bool:
    if os.geteuid() != 0:
        return False
    d = tempfile.mkdtemp()
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", d], capture_output=True).returncode == 0
    if ok:
        subprocess.run(["umount", d])
    os.rmdir(d)
    return ok


def check_reads(ws: str, tmp: str, label: str, edit: str | None) -> None:
    s = Server(ws, None, os.path.join(tmp, f"{label.replace(' ', '-')}.log"))
    s.initialize()
    if edit:
        with open(edit, "a") as f:
            f.write("\nfunction after_full() { return 1; }\n")
        time.sleep(1.5)
    errors = stale = 0
    calls = read_tool_calls(ws)
    for name, args in calls:
        r = s.call(name, args)
        texts = [c.get("text", "") for c in (r or {}).get("content", [])]
        if r is None or r.get("isError"):
            errors += 1
            problem(f"{label}: {name} failed: {texts[:1]}")
            continue
        if any(t.startswith("stale:") for t in texts):
            stale += 1
        for t in texts:
            if t.startswith("stale:"):
                for frag in ("database or disk is full", "read-only"):
                    if t.count(frag) > 1:
                        problem(f"{label}: the notice repeats {frag!r}: {t[:300]}")
    s.close()
    print(f"  {label}: {len(calls)} read tools, {errors} errors, {stale} answers stamped stale")


class Tmpfs:
    """A tmpfs of `size` mounted at `path` for the `with` block, with an index of a copy
    of the corpus built in it (`.ws`); unmounted at the end."""

    def __init__(self, path: str, size: str, corpus: str):
        self.path, self.size, self.corpus = path, size, corpus
        self.ws = os.path.join(path, "ws")

    def __enter__(self) -> "Tmpfs":
        os.makedirs(self.path)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.size}", "tmpfs", self.path], check=True)
        copy_tree(self.corpus, self.ws)
        run("index", self.ws, "-q")
        return self

    def __exit__(self, *exc) -> None:
        subprocess.run(["umount", self.path])


def part_readonly(corpus: str, tmp: str) -> None:
    print("== readonly: an index on a read-only mount")
    if not can_mount():
        print("  skipped: needs root and tmpfs mounts")
        return
    with Tmpfs(os.path.join(tmp, "ro"), "512m", corpus) as fs:
        subprocess.run(["mount", "-o", "remount,ro", fs.path], check=True)
        check_reads(fs.ws, tmp, "read-only mount", None)
        p = run("index", fs.ws, "-q", check=False)
        print(f"  index on it: exit {p.returncode}: {p.stderr.strip()[:200]}")


def part_fulldisk(corpus: str, tmp: str) -> None:
    print("== fulldisk: the disk fills up, a file changes")
    if not can_mount():
        print("  skipped: needs root and tmpfs mounts")
        return
    with Tmpfs(os.path.join(tmp, "full"), "256m", corpus) as fs:
        edit = sorted(
            os.path.join(b, n)
            for b, _, ns in os.walk(fs.ws)
            for n in ns
            if n.endswith(".js") and ".constellation" not in b
        )[0]
        # Fill what is left.
        with open(os.path.join(fs.path, "filler"), "wb") as f:
            try:
                while True:
                    f.write(b"\0" * (1 << 20))
                    f.flush()
            except OSError:
                pass
        check_reads(fs.ws, tmp, "full disk", edit)
        p = run("index", fs.ws, "-q", check=False)
        print(f"  index on it: exit {p.returncode}: {p.stderr.strip()[:300]}")
        for frag in ("database or disk is full", "No space left"):
            if p.stderr.count(frag) > 1:
                problem(f"fulldisk: the index error repeats {frag!r}")


def main() -> int:
    global BIN
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", help="tree to copy (default: npm's source)")
    ap.add_argument("--part", action="append", choices=["starts", "races", "writes", "kills", "readonly", "fulldisk"])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--servers", type=int, nargs="+", default=[8, 32])
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--write-seconds", type=float, default=60)
    ap.add_argument("--writes-corpus", help="tree for the writes part (default: the stdlib)")
    ap.add_argument("--writes-no-watch", action="store_true", help="serve with --no-watch in the writes part")
    ap.add_argument("--seed", type=int, default=18)
    a = ap.parse_args()
    BIN = constellation_bin()
    if a.writes_no_watch:
        WRITES_SERVE_ARGS.append("--no-watch")
    corpus = a.corpus
    if not corpus:
        npm_root = subprocess.run(["npm", "root", "-g"], capture_output=True, text=True).stdout.strip()
        corpus = os.path.join(npm_root, "npm")
    if not os.path.isdir(corpus):
        die(f"corpus {corpus} is not a directory")
    parts = a.part or ["starts", "races", "writes", "kills", "readonly", "fulldisk"]
    print(f"$ {' '.join(sys.argv)}")
    print(f"binary {BIN}; corpus {corpus}")
    with tempfile.TemporaryDirectory(prefix="constellation-reliability-") as tmp:
        if "starts" in parts:
            part_starts(corpus, tmp, a.servers, a.rounds)
        if "races" in parts:
            part_races(corpus, tmp, max(1, a.rounds // 4))
        if "writes" in parts:
            wc = a.writes_corpus
            if not wc:
                import sysconfig

                wc = os.path.join(tmp, "stdlib-src")
                shutil.copytree(
                    sysconfig.get_paths()["stdlib"],
                    wc,
                    symlinks=True,
                    ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"),
                )
            part_writes(wc, tmp, a.write_seconds)
        if "kills" in parts:
            part_kills(corpus, tmp, a.kills, a.seed)
        if "readonly" in parts:
            part_readonly(corpus, tmp)
        if "fulldisk" in parts:
            part_fulldisk(corpus, tmp)
    print(f"problems: {len(PROBLEMS)}")
    return 1 if PROBLEMS else 0


if __name__ == "__main__":
    sys.exit(main())
