#!/usr/bin/env python3
"""An idle `constellation serve --http` for half an hour, then a call: does it answer?

What it measures, on a copy of the Python standard library (or --corpus, copied; the
copy is the bench's own and removed afterwards; site-packages, __pycache__ and *.pyc
are left out):
  1. indexes the copy, then starts one `constellation serve COPY --db DB --http
     127.0.0.1:0 --token T` (file watch on) and learns its URL from its start-up line;
  2. opens a session of the official MCP Python SDK over streamable HTTP and calls
     `get_status` once; the session stays open (its client idles too);
  3. leaves the server alone for --minutes (default 30): no call, no file change. Every
     --sample-every s (default 60) it reads the server's resident memory, open file
     descriptors, threads and CPU time from /proc/PID;
  4. then opens a NEW session and calls `get_status` and `search_symbols` (a name the
     corpus defines, --query, default `urlopen`), and calls `get_status` once more on the
     first session: an MCP server may end idle sessions, so that one is reported, not
     failed.

It prints each sample, the start and end resident memory and descriptors, the CPU time
the server spent while idle, each call of the end with its latency and whether it
answered. (The SDK logs `Session termination failed: 202` as it closes a session: rmcp
answers the DELETE that ends a session with 202 Accepted, where the SDK expects 200 or
204; the session is ended all the same.) Exit status: 0 when the server lived through
the soak and the new session's calls answered, 1 otherwise, 2 when a prerequisite is
missing (the `mcp` package: `pip install mcp`; Linux's /proc).

How to run (after `cargo build --release`):

    python3 bench/soak.py [--minutes 30] [--sample-every 60] [--corpus DIR]

The binary is $CONSTELLATION_BIN, else target/release/constellation.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import shutil
import subprocess
import sysconfig
import tempfile
import time

from benchlib import constellation_bin, die, is_error, report, start_http_server, stop_server, structured, text_of

try:
    from mcp import ClientSession
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
except ImportError:
    die("the official MCP Python SDK (2.x) is not installed: `python3 -m pip install mcp`")

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def sample(pid: int) -> dict:
    """Resident memory (MiB), open descriptors, threads and CPU seconds of process pid."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.split()
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read().rsplit(")", 1)[1].split()
    return {
        "rss": int(fields["VmRSS"][0]) / 1024,
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
        "threads": int(fields["Threads"][0]),
        "cpu": (int(stat[11]) + int(stat[12])) / CLOCK_TICKS,  # utime + stime
    }


def show(label: str, s: dict) -> None:
    print(f"{label}: RSS {s['rss']:.1f} MiB, fds {s['fds']}, threads {s['threads']}, CPU {s['cpu']:.2f} s",
          flush=True)


async def open_session(stack: contextlib.AsyncExitStack, url: str, token: str) -> ClientSession:
    http = await stack.enter_async_context(create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}))
    streams = await stack.enter_async_context(streamable_http_client(url, http_client=http))
    session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
    await session.initialize()
    return session


async def timed_call(session: ClientSession, name: str, args: dict, timeout: float) -> tuple[dict | None, str]:
    """Calls a tool: (its structured answer, None when it failed or answered a tool
    error; a one-line account with the latency)."""
    t = time.perf_counter()
    try:
        r = await session.call_tool(name, args, read_timeout_seconds=timeout)
    except Exception as e:  # the transport failed or the server refused the session
        return None, f"{name}: {type(e).__name__}: {str(e)[:200]} after {time.perf_counter() - t:.2f} s"
    ms = (time.perf_counter() - t) * 1000
    if is_error(r):
        return None, f"{name}: tool error after {ms:.0f} ms: {text_of(r)[:200]}"
    return structured(r), f"{name}: answered in {ms:.0f} ms"


async def main_async(args) -> int:
    binary = constellation_bin()
    if not os.path.exists(binary):
        die(f"{binary} not found: run `cargo build --release` or set CONSTELLATION_BIN")
    if not os.path.isdir("/proc/self/fd"):
        die("no /proc: the samples need Linux")
    source = args.corpus or sysconfig.get_paths()["stdlib"]
    work = tempfile.mkdtemp(prefix="constellation-soak-")
    proc = None
    problems: list[str] = []
    try:
        root = os.path.join(work, "tree")
        shutil.copytree(source, root, symlinks=True,
                        ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"))
        files = sum(len(fs) for _, _, fs in os.walk(root))
        db = os.path.join(work, "index.db")
        subprocess.run([binary, "index", root, "--db", db, "--quiet"], check=True, stdout=subprocess.DEVNULL)
        token = secrets.token_hex(16)
        proc, url = start_http_server(binary, root, db, token)
        if url is None:
            die("serve --http printed no address")
        print(f"$ {binary} serve COPY --db DB --http 127.0.0.1:0 --token T   ({url})")
        print(f"corpus: {source if args.corpus else 'the Python stdlib'} ({files} files)")
        async with contextlib.AsyncExitStack() as first_stack:
            first = await open_session(first_stack, url, token)
            answer, line = await timed_call(first, "get_status", {}, args.call_timeout)
            print(f"first session, before the soak: {line}")
            if answer is None:
                problems.append(f"the first call failed: {line}")
                return report(problems)
            start = sample(proc.pid)
            show("minute 0", start)
            began = time.monotonic()
            end = start
            while time.monotonic() - began < args.minutes * 60 and proc.poll() is None:
                left = args.minutes * 60 - (time.monotonic() - began)
                await asyncio.sleep(min(args.sample_every, left))
                if proc.poll() is not None:
                    break
                end = sample(proc.pid)
                show(f"minute {(time.monotonic() - began) / 60:.1f}", end)
            if proc.poll() is not None:
                problems.append(f"the server died during the soak (exit status {proc.returncode})")
                return report(problems)
            print(f"idle {args.minutes:g} min: RSS {start['rss']:.1f} -> {end['rss']:.1f} MiB, "
                  f"fds {start['fds']} -> {end['fds']}, threads {start['threads']} -> {end['threads']}, "
                  f"CPU while idle {end['cpu'] - start['cpu']:.2f} s")
            async with contextlib.AsyncExitStack() as second_stack:
                try:
                    second = await open_session(second_stack, url, token)
                except Exception as e:  # the server did not accept a new session
                    problems.append(f"a new session could not start: {type(e).__name__}: {e}")
                    return report(problems)
                answer, line = await timed_call(second, "get_status", {}, args.call_timeout)
                print(f"new session: {line}" + (f"; clients {answer.get('clients')}" if answer else ""))
                if answer is None:
                    problems.append(f"new session: {line}")
                answer, line = await timed_call(second, "search_symbols", {"query": args.query, "limit": 3},
                                                args.call_timeout)
                hits = [h.get("name") for h in (answer or {}).get("hits", [])]
                print(f"new session: {line}; hits {hits}")
                if answer is None:
                    problems.append(f"new session: {line}")
                elif args.query not in hits:
                    problems.append(f"new session: search_symbols {args.query!r} did not find it: {hits}")
            answer, line = await timed_call(first, "get_status", {}, args.call_timeout)
            print(f"first session, after the soak: {'still valid' if answer is not None else 'no longer valid'} ({line})")
            with contextlib.suppress(Exception):
                await first_stack.aclose()
        if proc.poll() is not None:
            problems.append(f"the server exited after the calls (exit status {proc.returncode})")
        else:
            show("after the calls", sample(proc.pid))
        return report(problems)
    finally:
        stop_server(proc)
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", help="directory to copy and serve (default: the Python stdlib)")
    ap.add_argument("--minutes", type=float, default=30.0, help="idle time")
    ap.add_argument("--sample-every", type=float, default=60.0, help="s between samples of /proc/PID")
    ap.add_argument("--query", default="urlopen", help="a name the corpus defines, for search_symbols")
    ap.add_argument("--call-timeout", type=float, default=60.0, help="s to wait for one answer")
    return asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
