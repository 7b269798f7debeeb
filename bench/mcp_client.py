#!/usr/bin/env python3
"""End-to-end check of `constellation serve` with the official Python MCP SDK.

What it checks: the real binary, spoken to over stdio by the reference client
(`pip install mcp`), the way an agent would:
  1. spawn `constellation serve ROOT [--db FILE]` and `initialize` (prints the server info);
  2. `tools/list`: prints every tool's name and inputSchema; constellation_get_graph_summary
     must be there;
  3. call constellation_get_graph_summary {}: must not be an error; the summary is read from
     structuredContent (else from the JSON text); prints fileCount, dependencyCount, the
     top hubs, cycles and orphans counts; fileCount must be a positive integer;
  4. call it with a bad argument, {"forceRefresh": "yes"}: must come back as a tool error
  5. call summarize_graph (budget 3000) and every drill-down tool on its answer:
     get_node_details, expand, get_paths, get_community, list_top_nodes (pr, degree,
     betweenness)
     (`isError: true`, SPEC section 5), not as a JSON-RPC error and not as a success.
  6. seed 004 and query_index: query_index for the file with the most functions, file_info
     and inspect_source on it, open_window; file_info on ../../etc/passwd must be refused
     with outside_workspace and a DELETE through query_index with read_only.

With --http the server is `serve ROOT --http 127.0.0.1:0 --token T` and the client the
SDK's streamable HTTP client (bearer token in its headers); before it connects, requests
with no token, a wrong token and a foreign Origin must be refused (401, 401, 403), and
after the checks `get_status` must say transport http with at least one client.

How to run (after `cargo build --release`):

    pip install mcp
    python3 bench/mcp_client.py ROOT [--db FILE] [--timeout 600] [--http]

The binary is $CONSTELLATION_BIN, else target/release/constellation of this repository.
Without --db the server uses its default, ROOT/.constellation/index.db. The first summary
may index ROOT, hence the generous default timeout.

What it prints: one line per step, then `mcp client: all checks passed`. Exit status: 0 when
every step passed, 1 on any failure (with the reason), 2 when the `mcp` package is missing
or the binary is not built.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from benchlib import constellation_bin, start_http_server

TOOL = "constellation_get_graph_summary"

try:
    import anyio
    import mcp
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError:
    print(
        "the official MCP Python SDK is not installed: run `python3 -m pip install mcp` "
        "(or `pip install mcp`) and try again",
        file=sys.stderr,
    )
    sys.exit(2)

# The SDK's JSON-RPC error exception: MCPError in 2.x, McpError in 1.x.
RPC_ERROR = getattr(mcp, "MCPError", None) or getattr(mcp, "McpError", None)
if RPC_ERROR is None:
    try:
        from mcp.shared.exceptions import McpError as RPC_ERROR  # type: ignore[no-redef]
    except ImportError:  # pragma: no cover - unknown SDK layout
        RPC_ERROR = Exception


class CheckFailed(Exception):
    pass


def field(obj, snake: str, camel: str):
    """A result field: snake_case in SDK 2.x, camelCase in 1.x."""
    if hasattr(obj, snake):
        return getattr(obj, snake)
    return getattr(obj, camel, None)


async def with_timeout(awaitable, seconds: float):
    """Awaits in the current task (anyio cancel scopes are bound to it); TimeoutError after `seconds`."""
    with anyio.fail_after(seconds):
        return await awaitable


def leaf_exceptions(e: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, which anyio task groups raise."""
    if isinstance(e, BaseExceptionGroup):
        return [leaf for inner in e.exceptions for leaf in leaf_exceptions(inner)]
    return [e]


def text_of(result) -> str:
    parts = []
    for item in field(result, "content", "content") or []:
        text = getattr(item, "text", None)
        if text is not None:
            parts.append(text)
    return "\n".join(parts)


async def run(args) -> None:
    if args.http:
        await run_http(args)
        return
    exe = constellation_bin()
    cmd_args = ["serve", args.root] + (["--db", args.db] if args.db else [])
    print(f"$ {exe} {' '.join(cmd_args)}", flush=True)
    params = StdioServerParameters(command=exe, args=cmd_args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await checks(session, args)


async def run_http(args) -> None:
    """`serve --http 127.0.0.1:0 --token T`: refusals first (no token, a wrong one, a
    foreign Origin), then the same checks over the SDK's streamable HTTP client."""
    import subprocess
    import secrets
    import urllib.error
    import urllib.request

    exe = constellation_bin()
    token = secrets.token_hex(16)
    db = f" --db {args.db}" if args.db else ""
    print(f"$ {exe} serve {args.root} --http 127.0.0.1:0 --token <token>{db}", flush=True)
    proc, url = start_http_server(exe, args.root, args.db, token)
    try:
        if url is None:
            raise CheckFailed(f"serve --http printed no address (exit {proc.poll()})")
        print(f"listening: {url}")
        init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "refusal-check", "version": "0"}}}).encode()
        base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        for what, extra, want in [
            ("no token", {}, 401),
            ("a wrong token", {"Authorization": "Bearer nope"}, 401),
            ("a foreign Origin", {"Authorization": f"Bearer {token}", "Origin": "http://evil.example"}, 403),
        ]:
            req = urllib.request.Request(url, data=init, headers={**base, **extra}, method="POST")
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    got = r.status
            except urllib.error.HTTPError as e:
                got = e.code
            if got != want:
                raise CheckFailed(f"a request with {what} got HTTP {got}, expected {want}")
            print(f"refused: {what} -> HTTP {got}")
        auth = {"Authorization": f"Bearer {token}"}
        try:  # SDK 2.x: the transport takes an HTTP client carrying the headers
            from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
            client = create_mcp_http_client(headers=auth)
            transport = streamable_http_client(url, http_client=client)
        except ImportError:  # SDK 1.x: the transport takes the headers
            from contextlib import nullcontext
            from mcp.client.streamable_http import streamablehttp_client
            client = nullcontext()
            transport = streamablehttp_client(url, headers=auth)
        async with client:
            async with transport as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    await checks(session, args)
                    status = await with_timeout(session.call_tool("get_status", {}), args.timeout)
                    s = field(status, "structured_content", "structuredContent") or {}
                    if s.get("transport") != "http" or s.get("clients", 0) < 1:
                        raise CheckFailed(f"get_status over HTTP: {json.dumps(s)[:300]}")
                    print(f"get_status: transport http, {s['clients']} client(s)")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


async def checks(session, args) -> None:
    init = await with_timeout(session.initialize(), args.timeout)
    info = field(init, "server_info", "serverInfo")
    version = field(init, "protocol_version", "protocolVersion")
    print(f"initialize: server {getattr(info, 'name', '?')} {getattr(info, 'version', '?')}, protocol {version}")

    listed = await with_timeout(session.list_tools(), args.timeout)
    tools = {t.name: t for t in listed.tools}
    print(f"tools/list: {len(tools)} tools")
    for name, tool in sorted(tools.items()):
        schema = field(tool, "input_schema", "inputSchema")
        print(f"  {name}: {json.dumps(schema, sort_keys=True)}")
    if TOOL not in tools:
        raise CheckFailed(f"{TOOL} is not among the listed tools")

    result = await with_timeout(session.call_tool(TOOL, {}), args.timeout)
    if field(result, "is_error", "isError"):
        raise CheckFailed(f"{TOOL} {{}} returned a tool error: {text_of(result)[:1000]}")
    summary = field(result, "structured_content", "structuredContent")
    source = "structuredContent"
    if not summary:
        source = "text content"
        try:
            summary = json.loads(text_of(result))
        except json.JSONDecodeError as e:
            raise CheckFailed(f"{TOOL} returned neither structuredContent nor JSON text: {e}")
    metrics = summary.get("metrics") or {}
    insights = summary.get("insights") or {}
    file_count = metrics.get("fileCount")
    print(f"{TOOL} {{}} (from {source}):")
    print(f"  fileCount {file_count}, dependencyCount {metrics.get('dependencyCount')}")
    print(f"  fileTypeBreakdown {json.dumps(metrics.get('fileTypeBreakdown'), sort_keys=True)}")
    for hub in (insights.get("topHubs") or [])[:10]:
        print(f"  hub {hub.get('connectionCount'):>5}  {hub.get('id')}")
    print(f"  {len(insights.get('circularDependencies') or [])} cycles, "
          f"{len(insights.get('orphanFiles') or [])} orphan files, metadata {json.dumps(summary.get('metadata'))}")
    if not isinstance(file_count, int) or isinstance(file_count, bool) or file_count <= 0:
        raise CheckFailed(f"metrics.fileCount is {file_count!r}, expected a positive integer")

    bad = {"forceRefresh": "yes"}
    try:
        result = await with_timeout(session.call_tool(TOOL, bad), args.timeout)
    except RPC_ERROR as e:  # type: ignore[misc]
        raise CheckFailed(
            f"{TOOL} {json.dumps(bad)} was answered with a JSON-RPC error ({e}); "
            "SPEC section 5 wants a tool result with isError: true"
        )
    message = text_of(result)
    if not field(result, "is_error", "isError"):
        raise CheckFailed(f"{TOOL} {json.dumps(bad)} succeeded; expected isError: true")
    print(f"{TOOL} {json.dumps(bad)}: isError true: {message[:300]}")

    # The seed-001 tools: summarize_graph, then a drill-down on its answer.
    async def call(name: str, arguments: dict) -> dict:
        if name not in tools:
            raise CheckFailed(f"{name} is not among the listed tools")
        r = await with_timeout(session.call_tool(name, arguments), args.timeout)
        if field(r, "is_error", "isError"):
            raise CheckFailed(f"{name} {json.dumps(arguments)} returned a tool error: {text_of(r)[:500]}")
        sc = field(r, "structured_content", "structuredContent")
        if not isinstance(sc, dict):
            raise CheckFailed(f"{name} returned no structuredContent")
        return sc

    s = await call("summarize_graph", {"budget_tokens": 3000})
    if s["tokens"] > 3000:
        raise CheckFailed(f"summarize_graph used {s['tokens']} tokens for a budget of 3000")
    stats = s["graph_stats"]
    print(f"summarize_graph: {stats['node_count']} nodes, {stats['edge_count']} edges, "
          f"{len(s['top_nodes'])} top nodes, {len(s.get('communities') or [])} communities, "
          f"{s['tokens']} tokens, truncated {s['truncated']}")
    top = s["top_nodes"][0][0] if s["top_nodes"] else None
    if top:
        d = await call("get_node_details", {"node_id": top})
        print(f"get_node_details {top}: {d['kind']} {d['label']} in {d['file']}:{d['start_line']}, "
              f"in {d['in_degree']} out {d['out_degree']}, {d['callers_total']} callers")
        e = await call("expand", {"node_id": top, "radius": 1})
        print(f"expand {top}: {len(e['nodes'])} of {e['nodes_total']} nodes, {len(e['edges'])} edges")
        callees = d.get("callees") or []
        target = callees[0]["node_id"] if callees else top
        pth = await call("get_paths", {"src": top, "dst": target, "limit": 3, "max_hops": 4})
        print(f"get_paths {top} -> {target}: {pth['paths_total']} paths")
    if s.get("communities"):
        cid = s["communities"][0]["id"]
        c = await call("get_community", {"community_id": cid})
        print(f"get_community {cid}: {c['size']} nodes, {c['files_total']} files")
    for metric in ("pr", "degree", "betweenness"):
        t = await call("list_top_nodes", {"metric": metric, "k": 5})
        first = t["nodes"][0] if t["nodes"] else None
        extra = f", exact {t['exact']}" if "exact" in t else ""
        print(f"list_top_nodes {metric}: first {first}{extra}")

    # Seed 002: a checklist and a work hand-off with its task snapshot.
    checklist = f"mcp-client-{os.getpid()}"
    await call("update_tasks", {"sessionId": checklist, "tasks": [
        {"taskId": "index", "description": "index the corpus", "children": [
            {"taskId": "check", "description": "check the summary"}]}]})
    done = await call("mark_task_as_done", {"sessionId": checklist, "taskId": "check"})
    print(f"update_tasks + mark_task_as_done: {done['taskCount']} tasks, {done['doneCount']} done")
    saved = await call("save_current_work_info", {
        "work_summarize": "Smoke run of the MCP tools on this corpus.",
        "work_description": "mcp_client smoke run", "sessionId": checklist})
    recent = await call("get_recent_works_info", {})
    if saved["workId"] not in [w["workId"] for w in recent["works"]]:
        raise CheckFailed(f"saved work {saved['workId']} missing from get_recent_works_info")
    work = await call("get_work_by_id", {"workId": saved["workId"]})
    if work.get("work_tasks") != done["tasks"]:
        raise CheckFailed("get_work_by_id did not return the task snapshot taken at save time")
    print(f"save_current_work_info {saved['workId']} -> get_work_by_id: snapshot of "
          f"{len(work['work_tasks'])} top-level tasks; {len(recent['works'])} works stored")
    # Seed 004 and query_index: the file with the most functions, documented
    # structure, its lines, the graph page; then refusals.
    q = await call("query_index", {"sql": "SELECT path, symbols FROM file_symbol_counts "
                                          "WHERE kind = 'function' ORDER BY symbols DESC, path LIMIT 1"})
    print(f"query_index: {q['columns']} {q['rows']}")
    if q["rows"]:
        path = q["rows"][0][0]
        fi = await call("file_info", {"path": path})
        fns = fi["structure"]["functions"]
        print(f"file_info {path}: {fi['status']}, {len(fns)} functions, "
              f"{sum(f['callersTotal'] for f in fns)} callers, prompt {len(fi['promptForHostLLM'])} chars")
        src = await call("inspect_source", {"path": path, "startLine": 1, "endLine": 3})
        print(f"inspect_source {path} 1-3: {src['content'].splitlines()[:1]}")
    w = await call("open_window", {})
    print(f"open_window: {w['path']} ({w['stats']['nodesDrawn']} of {w['stats']['nodesTotal']} files drawn)")
    for name, arguments, code in (
        ("file_info", {"path": "../../etc/passwd"}, "outside_workspace"),
        ("query_index", {"sql": "DELETE FROM files"}, "read_only"),
    ):
        r = await with_timeout(session.call_tool(name, arguments), args.timeout)
        if not field(r, "is_error", "isError") or not text_of(r).startswith(code + ":"):
            raise CheckFailed(f"{name} {json.dumps(arguments)} should fail with {code}: {text_of(r)[:300]}")
        print(f"{name} {json.dumps(arguments)}: refused with {code}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--db", help="index database (default: the server's, ROOT/.constellation/index.db)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds allowed for each request (default 600)")
    ap.add_argument("--http", action="store_true",
                    help="serve over streamable HTTP (serve --http 127.0.0.1:0 --token T) instead of stdio")
    args = ap.parse_args()
    args.root = os.path.abspath(args.root)
    if args.db:
        args.db = os.path.abspath(args.db)
    exe = constellation_bin()
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        print(f"constellation binary not found at {exe}: run `cargo build --release` or set CONSTELLATION_BIN",
              file=sys.stderr)
        return 2
    try:
        asyncio.run(run(args))
    except Exception as group:  # a check, a timeout, the server dying, the transport breaking
        for e in leaf_exceptions(group):
            if isinstance(e, CheckFailed):
                print(f"FAILED: {e}", file=sys.stderr)
            elif isinstance(e, TimeoutError):
                print(f"FAILED: no answer within {args.timeout} s", file=sys.stderr)
            else:
                print(f"FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print("mcp client: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
