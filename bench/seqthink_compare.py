#!/usr/bin/env python3
"""Compare `sequentialthinking` with the reference server, thought by thought.

What it does: drives two MCP servers over stdio with the official Python SDK
(`pip install mcp`) and the same scripted sequence of 20 thoughts, with revisions,
branches and string-typed numbers and booleans (fixtures/seqthink-script/script.json):
  - the reference, npm `@modelcontextprotocol/server-sequential-thinking`, installed with
    npm into a temporary directory (never into this repository), or the one named by
    --reference (a directory where it is installed, or its dist/index.js);
  - `constellation serve` on an empty temporary workspace with a fresh database.
It prints, per thought, the five standard fields of both answers (thoughtNumber,
totalThoughts, nextThoughtNeeded, branches, thoughtHistoryLength) and whether they are
identical, then sends a few invalid inputs to both and checks that both answer with
`isError: true`. It also checks that both pretty-print the same JSON text (two-space
indent) for the standard fields.

With --record it writes the reference's answers to
fixtures/seqthink-script/expected.json, which tests/thinking.rs asserts our server
against on every `cargo test` (so the test needs neither npm nor the network).

How to run (after `cargo build --release`):

    pip install mcp
    python3 bench/seqthink_compare.py [--reference DIR_OR_INDEX_JS] [--record]

Exit status: 0 when every standard field of every answer is identical, 1 on a
difference (listed), 2 when a prerequisite is missing (mcp, npm, node, the binary).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile

from benchlib import REPO, constellation_bin, die

try:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError:
    die("the official MCP Python SDK is not installed: run `python3 -m pip install mcp`")

PACKAGE = "@modelcontextprotocol/server-sequential-thinking"
FIELDS = ["thoughtNumber", "totalThoughts", "nextThoughtNeeded", "branches", "thoughtHistoryLength"]
SCRIPT = os.path.join(REPO, "fixtures", "seqthink-script", "script.json")
EXPECTED = os.path.join(REPO, "fixtures", "seqthink-script", "expected.json")
INVALID = [
    {"thought": "zero", "thoughtNumber": 0, "totalThoughts": 1, "nextThoughtNeeded": True},
    {"thought": "bad flag", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": "yes"},
    {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True},
    {"thought": "fraction", "thoughtNumber": 1.5, "totalThoughts": 2, "nextThoughtNeeded": True},
]


def field(obj, snake: str, camel: str):
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel, None)


def text_of(result) -> str:
    return "\n".join(getattr(c, "text", "") for c in (result.content or []))


def reference_entry(arg: str | None, tmp: str) -> str:
    """The reference's dist/index.js: given, or installed with npm into `tmp`."""
    if arg:
        if arg.endswith(".js"):
            return os.path.abspath(arg)
        return os.path.join(os.path.abspath(arg), "node_modules", PACKAGE, "dist", "index.js")
    if not shutil.which("npm") or not shutil.which("node"):
        die("npm and node are needed to install the reference server (or pass --reference)")
    print(f"$ npm install --prefix {tmp} {PACKAGE}", flush=True)
    r = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefix", tmp, PACKAGE],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        die(f"npm install {PACKAGE} failed (network?): {r.stderr.strip()[-500:]}")
    return os.path.join(tmp, "node_modules", PACKAGE, "dist", "index.js")


async def drive(params: StdioServerParameters, name: str) -> tuple[list[dict], list[str], list[bool], str]:
    """Sends the script then the invalid inputs; returns the answers, their texts,
    the isError flags of the invalid inputs and the server's version."""
    with open(SCRIPT) as f:
        script = json.load(f)
    answers, texts, errors = [], [], []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            info = field(init, "server_info", "serverInfo")
            version = f"{getattr(info, 'name', '?')} {getattr(info, 'version', '?')}"
            for i, args in enumerate(script, 1):
                r = await session.call_tool("sequentialthinking", args)
                if field(r, "is_error", "isError"):
                    raise SystemExit(f"{name}: thought {i} failed: {text_of(r)}")
                sc = field(r, "structured_content", "structuredContent") or json.loads(text_of(r))
                answers.append(sc)
                texts.append(text_of(r))
            for args in INVALID:
                try:
                    r = await session.call_tool("sequentialthinking", args)
                    errors.append(bool(field(r, "is_error", "isError")))
                except Exception:  # a JSON-RPC error counts as an error too
                    errors.append(True)
    return answers, texts, errors, version


def standard_text(answer: dict) -> str:
    return json.dumps({k: answer[k] for k in FIELDS}, indent=2, ensure_ascii=False)


async def main_async(args) -> int:
    exe = constellation_bin()
    if not os.access(exe, os.X_OK):
        die(f"constellation binary not found at {exe}: run `cargo build --release`")
    with tempfile.TemporaryDirectory(prefix="seqthink-") as tmp:
        entry = reference_entry(args.reference, os.path.join(tmp, "npm"))
        if not os.path.isfile(entry):
            die(f"the reference server is not at {entry}")
        ref_params = StdioServerParameters(
            command="node", args=[entry], env={**os.environ, "DISABLE_THOUGHT_LOGGING": "true"}
        )
        ws = os.path.join(tmp, "ws")
        os.makedirs(ws)
        ours_params = StdioServerParameters(
            command=exe, args=["serve", ws, "--db", os.path.join(tmp, "ours.db")]
        )
        ref, ref_texts, ref_err, ref_version = await drive(ref_params, "reference")
        ours, our_texts, our_err, our_version = await drive(ours_params, "constellation")

    print(f"reference: {ref_version} ({PACKAGE}); ours: {our_version}")
    print(f"{'#':>2}  {'reference':<58} {'constellation':<58} same")
    diffs = 0
    for i, (a, b) in enumerate(zip(ref, ours), 1):
        sa = {k: a.get(k) for k in FIELDS}
        sb = {k: b.get(k) for k in FIELDS}
        same = sa == sb
        diffs += not same
        fmt = lambda s: f"{s['thoughtNumber']}/{s['totalThoughts']} next={s['nextThoughtNeeded']} len={s['thoughtHistoryLength']} br={s['branches']}"
        print(f"{i:>2}  {fmt(sa):<58} {fmt(sb):<58} {'yes' if same else 'NO'}")
    # The text content: the reference prints exactly the standard fields; ours prints
    # them first (same order, same indentation) and then sessionId.
    text_same = all(
        rt.strip() == standard_text(json.loads(rt)) and ot.startswith(rt.strip()[:-1].rstrip())
        for rt, ot in zip(ref_texts, our_texts)
    )
    print(f"text content: standard fields printed identically (2-space JSON, same order): {'yes' if text_same else 'NO'}")
    print(f"invalid inputs, isError: reference {ref_err}, ours {our_err}")
    ok = diffs == 0 and len(ref) == len(ours) == 20 and ref_err == our_err and all(ref_err) and text_same
    if args.record:
        with open(EXPECTED, "w") as f:
            json.dump([{k: a[k] for k in FIELDS} for a in ref], f, indent=1)
            f.write("\n")
        print(f"recorded the reference's answers in {os.path.relpath(EXPECTED, REPO)}")
    print(f"{20 - diffs}/20 answers identical in every standard field" + ("" if ok else "; FAILED"))
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", help="directory where the npm package is installed, or its dist/index.js")
    ap.add_argument("--record", action="store_true", help="write the reference's answers to fixtures/seqthink-script/expected.json")
    return asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
