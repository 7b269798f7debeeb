#!/usr/bin/env python3
"""Every MCP tool, called with default and with adversarial arguments through the
official MCP Python client on a large real tree: is every answer within its token
budget, within 25,000 tokens, and does it say when it was cut?

Tokens are counted with cl100k_base, the tokenizer the server uses, loaded from the
ranks file that the tiktoken-rs crate ships (found in the cargo registry after a build;
its SHA-256 is checked), so nothing is downloaded.

What it does, on ROOT (say a copy of the Python standard library, 2,450 files):
  1. `constellation serve ROOT --db DB --no-watch` over stdio with the SDK's client.
  2. Picks real targets from the index (query_index): the largest parsed file, the
     folder with the most files, the most called function, a community id.
  3. Calls each of the 27 tools with its defaults, then with arguments chosen to make
     the answer large: whole-repository globs, `SELECT *` over the largest tables with
     the highest row limit, the deepest impact, every line of the largest file, the
     widest radius, 1,000 top nodes, a task list of 300 long tasks, ...
  4. For each answer: its tokens (the text content, as a client shows it to the model);
     checks that it is at most the tool's budget (the `budget_tokens` passed, else the
     tool's default) when the tool has one, at most 25,000 in every case, and that an
     answer saying `truncated: true` also says what was left out (a `note`, `hint`,
     `truncation` or `left_out` field). A tool error is fine when it is a clear one
     (`invalid_argument:` for an out-of-range argument, `budget_too_small:`).

How to run (after `cargo build --release`; the Python packages mcp and tiktoken):

    python3 bench/answer_budgets.py ROOT [--db FILE]

ROOT is indexed into DB first when DB does not exist (a temporary file by default).
Prints one line per call (tool, arguments, tokens, budget, verdict). Exit status: 0 when
every check held, 1 when one failed, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from benchlib import constellation_bin, die, report

CEILING = 25_000
# A session of its own per run: an earlier run's tree would be read back otherwise.
SESSION = f"budget-bench-{os.getpid()}"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"

# Default budget_tokens per tool (None: the tool has no budget, only the ceiling).
DEFAULT_BUDGET = {
    "constellation_get_graph_summary": 4000, "summarize_graph": 3000, "get_node_details": 3000, "get_paths": 3000,
    "get_community": 3000, "expand": 3000, "list_top_nodes": 3000,
    "search_symbols": 3000, "get_symbol_source": 3000,
    "get_impact": 4000, "diff_impact": 4000, "query_index": 4000, "inspect_source": 4000,
    "file_info": 8000, "folder_info": 8000,
    "report_file_info": 2000, "report_folder_info": 2000,
    # The review is cut to 6,000 tokens; the answer's other fields take a few dozen.
    "sequentialthinking": 6200,
}


def encoder():
    """cl100k_base from tiktoken-rs's bundled ranks file, checked by its SHA-256."""
    try:
        import tiktoken
        from tiktoken.load import load_tiktoken_bpe
    except ImportError:
        die("needs the Python package tiktoken (pip install tiktoken)")
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    files = sorted(glob.glob(os.path.join(home, "registry/src/*/tiktoken-rs-*/assets/cl100k_base.tiktoken")))
    if not files:
        die("cl100k_base.tiktoken not found in the cargo registry: run `cargo build --release` first")
    path = files[-1]
    with open(path, "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != CL100K_SHA256:
            die(f"{path} is not the cl100k_base ranks file")
    ranks = load_tiktoken_bpe(path)
    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        mergeable_ranks=ranks,
        special_tokens={"<|endoftext|>": 100257},
    )


def text_of(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def field(obj, snake: str, camel: str):
    return getattr(obj, snake, None) if hasattr(obj, snake) else getattr(obj, camel, None)


def sql(exe: str, root: str, db: str, query: str) -> list[dict]:
    out = subprocess.run([exe, "sql", root, query, "--json", "--db", db], capture_output=True, text=True)
    if out.returncode != 0:
        die(f"sql failed: {out.stderr.strip()}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def calls(exe: str, root: str, db: str) -> list[tuple[str, dict]]:
    big = sql(exe, root, db, "SELECT path FROM files WHERE status = 'parsed' ORDER BY size DESC LIMIT 1")[0]["path"]
    folder = sql(exe, root, db,
                 "SELECT rtrim(path, replace(path, '/', '')) AS d, count(*) AS n FROM files "
                 "WHERE path LIKE '%/%' GROUP BY d ORDER BY n DESC LIMIT 1")[0]["d"].rstrip("/")
    hub = sql(exe, root, db,
              "SELECT n.key AS key, n.id AS id FROM nodes n JOIN edges e ON e.dst_id = n.id "
              "WHERE e.kind = 'calls' AND n.kind IN ('function', 'method') "
              "GROUP BY n.id ORDER BY count(*) DESC LIMIT 1")[0]
    other = sql(exe, root, db, "SELECT key FROM nodes WHERE kind = 'function' ORDER BY id DESC LIMIT 1")[0]["key"]
    long = "x" * 900
    many_tasks = [{"taskId": f"t{i}", "description": f"{i} {long}"} for i in range(300)]
    return [
        ("constellation_get_graph_summary", {}),
        ("constellation_get_graph_summary", {"budget_tokens": 20000}),
        ("summarize_graph", {}),
        ("summarize_graph", {"top_k": 100000, "radius": 3, "scope": "Full", "budget_tokens": 20000,
                             "max_communities": 100000, "path_samples": 1000, "include_filters": ["**"]}),
        ("get_node_details", {"node_id": hub["key"]}),
        ("get_node_details", {"node_id": hub["key"], "include_possible": True, "transitive": True}),
        ("get_node_details", {"node_id": f"file:{big}", "include_possible": True, "budget_tokens": 20000}),
        ("get_paths", {"src": other, "dst": hub["key"]}),
        ("get_paths", {"src": other, "dst": hub["key"], "limit": 100, "max_hops": 20}),
        ("get_community", {"community_id": f"file:{big}"}),
        ("expand", {"node_id": hub["key"]}),
        ("expand", {"node_id": hub["key"], "radius": 3, "budget_tokens": 20000}),
        ("list_top_nodes", {}),
        ("list_top_nodes", {"k": 1000, "metric": "betweenness"}),
        ("get_impact", {"target": hub["key"]}),
        ("get_impact", {"target": f"file:{big}", "depth": 10}),
        ("get_impact", {"target": hub["key"], "depth": 10, "budget_tokens": 20000, "min_confidence": 0}),
        ("diff_impact", {}),
        ("search_symbols", {"query": "get"}),
        ("search_symbols", {"query": "a", "limit": 200, "budget_tokens": 20000}),
        ("search_symbols", {"query": "*", "path": "**"}),
        ("get_symbol_source", {"symbol": hub["key"]}),
        ("get_symbol_source", {"symbol": f"{big}:1", "include": ["callers", "callees"], "budget_tokens": 20000}),
        ("query_index", {"sql": "SELECT * FROM nodes"}),
        ("query_index", {"sql": "SELECT * FROM refs", "limit": 10000, "budget_tokens": 20000}),
        ("query_index", {"sql": "SELECT * FROM files f, nodes n LIMIT 10000", "limit": 10000}),
        ("inspect_source", {"path": big, "startLine": 1, "endLine": 1000000}),
        ("inspect_source", {"path": big, "startLine": 1, "endLine": 1000000, "budget_tokens": 20000}),
        ("file_info", {"path": big}),
        ("file_info", {"path": big, "budget_tokens": 20000}),
        ("folder_info", {"path": folder}),
        ("folder_info", {"path": "."}),
        ("folder_info", {"path": folder, "budget_tokens": 20000}),
        ("open_window", {}),
        ("open_window", {"maxNodes": 1000}),
        ("get_status", {}),
        ("set_workspace_root", {"path": root}),
        ("update_tasks", {"sessionId": SESSION, "tasks": many_tasks}),
        ("get_all_tasks", {"sessionId": SESSION}),
        ("mark_task_as_done", {"sessionId": SESSION, "taskId": "t7"}),
        ("save_current_work_info", {"work_summarize": "y" * 5000, "work_description": "budgets",
                                    "sessionId": SESSION}),
        ("get_recent_works_info", {}),
        ("sequentialthinking", {"thought": "Plan the budget check.", "thoughtNumber": 1,
                                "totalThoughts": 2, "nextThoughtNeeded": True}),
        # An audit of 2,000 functions with a finding on every line (a secret, eval, an
        # undefined name): thousands of inline comments and citations.
        ("sequentialthinking", {"thought": "Review this:\n```python\n" + "\n".join(
            f"def f{i}():\n    api_key = 'sk-{'a' * 20}{i:06d}'\n    return undefined_{i} + eval('1')"
            for i in range(2000)) + "\n```", "thoughtNumber": 2, "totalThoughts": 2,
            "nextThoughtNeeded": False}),
        ("report_file_info", {"path": big, "overview": "o", "functions": []}),
        ("report_file_info", {"path": big, "overview": "o", "functions": [], "budget_tokens": 20000}),
        ("report_folder_info", {"path": folder, "overview": "o", "key_files": [], "architecture": "a"}),
    ]


async def run(exe: str, root: str, db: str, enc, timeout: float) -> list[str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    problems: list[str] = []
    seen: set[str] = set()
    params = StdioServerParameters(command=exe, args=["serve", root, "--db", db, "--no-watch"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await asyncio.wait_for(session.initialize(), timeout)
            listed = {t.name for t in (await session.list_tools()).tools}
            plan = calls(exe, root, db)
            # get_work_by_id needs the id the save gave.
            work_id = None
            for name, args in plan + [("get_work_by_id", {})]:
                if name == "get_work_by_id":
                    args = {"workId": work_id or "00000000"}
                result = await asyncio.wait_for(session.call_tool(name, args), timeout)
                seen.add(name)
                text = text_of(result)
                tokens = len(enc.encode(text))
                is_error = bool(field(result, "is_error", "isError"))
                s = field(result, "structured_content", "structuredContent") or {}
                if name == "save_current_work_info" and not is_error:
                    work_id = s.get("workId")
                budget = args.get("budget_tokens", DEFAULT_BUDGET.get(name))
                verdict = "ok"
                if tokens > CEILING:
                    verdict = f"OVER {CEILING}"
                elif budget is not None and tokens > budget:
                    verdict = f"OVER budget {budget}"
                elif is_error and not text.startswith(("invalid_argument:", "budget_too_small:", "not_found:", "not_a_git_repository", "index_failed:")) and "not a git repository" not in text:
                    verdict = f"ERROR {text[:120]}"
                elif s.get("truncated") is True and not any(s.get(k) for k in ("note", "hint", "truncation", "left_out", "more")):
                    verdict = "cut without saying what was left out"
                shown = json.dumps(args)
                shown = shown if len(shown) <= 90 else shown[:87] + "..."
                cut = " (cut)" if s.get("truncated") or s.get("sourceTruncated") or s.get("note") else ""
                err = " (error)" if is_error else ""
                print(f"{name:<32} {tokens:>6} tokens  budget {budget if budget is not None else '-':>5}  {verdict}{cut}{err}  {shown}")
                if verdict != "ok":
                    problems.append(f"{name} {shown}: {verdict}")
            missing = listed - seen
            if missing:
                problems.append(f"tools not called: {sorted(missing)}")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root")
    ap.add_argument("--db", help="index database (default: a temporary one)")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    exe = constellation_bin()
    try:
        import mcp  # noqa: F401
    except ImportError:
        die("needs the Python package mcp")
    enc = encoder()
    root = os.path.abspath(args.root)
    with tempfile.TemporaryDirectory(prefix="constellation-budgets-") as tmp:
        db = args.db or os.path.join(tmp, "index.db")
        if not os.path.exists(db):
            print(f"$ {exe} index {root} --db {db}")
            if subprocess.run([exe, "index", root, "--db", db, "-q"]).returncode != 0:
                die("indexing failed")
        problems = asyncio.run(run(exe, root, db, enc, args.timeout))
    return report(problems)


if __name__ == "__main__":
    sys.exit(main())
