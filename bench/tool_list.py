#!/usr/bin/env python3
"""What the MCP tool list costs a client's context, in total and per tool group, and
whether every listed schema is valid JSON Schema.

Every client loads the whole tool list (names, descriptions, input and output schemas)
into the model's context on every session, so its size is a cost paid all the time.

What it does:
  1. `constellation tools --json`: the cl100k_base tokens of each tool's entry as
     `tools/list` sends it (the same serialisation), summed per group and in all.
     Prints one line per tool and per group, and checks the targets: the whole list
     at most --max-total tokens (default 6,000), the `graph` group alone at most
     --max-graph (default 2,500).
  2. For each group, and for all groups: `constellation serve ROOT --tools GROUP` with
     the official MCP Python client over stdio; `tools/list` must give exactly the
     tools `constellation tools` puts in that group. Every input and output schema must
     pass the JSON Schema 2020-12 meta-schema (jsonschema's check_schema) and use no
     `format` (the non-standard `uint32`, `double`, ... of schemars were dropped).
  3. With --inspector: the MCP Inspector's CLI (`npx -y @modelcontextprotocol/inspector
     --cli ... --method tools/list`, or the executable given) lists the tools of the
     full server; it must exit 0, list every tool and print nothing on stderr.

How to run (after `cargo build --release`; the Python `mcp` and `jsonschema` packages):

    python3 bench/tool_list.py [ROOT] [--db FILE] [--inspector [EXE]]

ROOT defaults to this repository (any indexed or indexable directory works: the list
does not depend on it). Exit status: 0 when every check held, 1 when one failed, 2 on
a setup error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile

from benchlib import constellation_bin, die, report


def cost(exe: str) -> dict:
    out = subprocess.run([exe, "tools", "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        die(f"`{exe} tools --json` failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def uses_format(schema, in_properties: bool = False) -> bool:
    """Whether a `format` keyword appears (a property named `format` does not count)."""
    if isinstance(schema, dict):
        return any(
            (k == "format" and not in_properties) or uses_format(v, k == "properties" and not in_properties)
            for k, v in schema.items()
        )
    if isinstance(schema, list):
        return any(uses_format(v) for v in schema)
    return False


def check_schema(name: str, which: str, schema, problems: list[str]) -> None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if schema is None:
        problems.append(f"{name}: no {which}")
        return
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as e:
        problems.append(f"{name}: {which} is not valid JSON Schema: {e.message}")
    if uses_format(schema):
        problems.append(f"{name}: {which} uses `format`")
    if schema.get("type") != "object":
        problems.append(f"{name}: {which} is not an object schema")


async def listed(exe: str, root: str, db: str, groups: list[str]) -> list:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    args = ["serve", root, "--db", db, "--no-watch"]
    if groups:
        args += ["--tools", ",".join(groups)]
    params = StdioServerParameters(command=exe, args=args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await asyncio.wait_for(session.initialize(), 120)
            result = await asyncio.wait_for(session.list_tools(), 60)
            return list(result.tools)


def inspector(cmd: list[str], exe: str, root: str, db: str, want: set[str], problems: list[str]) -> None:
    full = cmd + ["--cli", exe, "serve", root, "--db", db, "--no-watch", "--method", "tools/list"]
    print(f"$ {' '.join(full)}")
    out = subprocess.run(full, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        problems.append(f"inspector exited {out.returncode}: {out.stderr.strip()[:500]}")
        return
    if out.stderr.strip():
        problems.append(f"inspector printed on stderr: {out.stderr.strip()[:500]}")
    names = {t["name"] for t in json.loads(out.stdout)["tools"]}
    if names != want:
        problems.append(f"inspector listed {sorted(names ^ want)} differently")
    print(f"inspector: {len(names)} tools listed, stderr {'empty' if not out.stderr.strip() else 'NOT empty'}")


def main() -> int:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", default=here)
    ap.add_argument("--db", help="index database (default: a temporary one)")
    ap.add_argument("--max-total", type=int, default=6000)
    ap.add_argument("--max-graph", type=int, default=2500)
    ap.add_argument("--inspector", nargs="?", const="npx", default=None,
                    help="also list the tools with the MCP Inspector CLI (npx, or this executable)")
    args = ap.parse_args()
    exe = constellation_bin()
    try:
        import mcp  # noqa: F401
        import jsonschema  # noqa: F401
    except ImportError as e:
        die(f"needs the Python packages mcp and jsonschema: {e}")

    c = cost(exe)
    print(f"{'tool':<34} {'group':<10} {'tokens':>6}  description")
    for t in c["tools"]:
        print(f"{t['name']:<34} {t['group']:<10} {t['tokens']:>6}  {t['description_tokens']:>6}")
    for g, n in c["groups"].items():
        print(f"group {g:<10} {n:>6} tokens")
    print(f"total {c['total']:>17} tokens (target <= {args.max_total}); graph {c['groups'].get('graph')} (target <= {args.max_graph})")
    problems: list[str] = []
    if c["total"] > args.max_total:
        problems.append(f"the tool list costs {c['total']} tokens, over {args.max_total}")
    if c["groups"].get("graph", 0) > args.max_graph:
        problems.append(f"the graph group costs {c['groups']['graph']} tokens, over {args.max_graph}")

    by_group: dict[str, set[str]] = {}
    for t in c["tools"]:
        by_group.setdefault(t["group"], set()).add(t["name"])
    everything = set().union(*by_group.values())
    with tempfile.TemporaryDirectory(prefix="constellation-tools-") as tmp:
        db = args.db or os.path.join(tmp, "index.db")
        for groups in [[g] for g in sorted(by_group)] + [[]]:
            tools = asyncio.run(listed(exe, args.root, db, groups))
            names = {t.name for t in tools}
            want = set().union(*(by_group[g] for g in groups)) if groups else everything
            label = ",".join(groups) or "(all)"
            if names != want:
                problems.append(f"--tools {label}: listed {sorted(names)}, expected {sorted(want)}")
            for t in tools:
                # SDK 2.x names the fields input_schema / output_schema, 1.x inputSchema.
                for snake, camel in (("input_schema", "inputSchema"), ("output_schema", "outputSchema")):
                    schema = getattr(t, snake, None) if hasattr(t, snake) else getattr(t, camel, None)
                    check_schema(t.name, camel, schema, problems)
            print(f"serve --tools {label}: {len(names)} tools listed, schemas checked")
        if args.inspector:
            cmd = ["npx", "-y", "@modelcontextprotocol/inspector"] if args.inspector == "npx" else [args.inspector]
            inspector(cmd, exe, args.root, db, everything, problems)

    return report(problems)


if __name__ == "__main__":
    sys.exit(main())
