"""Are the most central nodes the project's own code? Indexes each ROOT (a copy: the
index is written to a temporary directory) with the default excludes, asks the MCP
tools for their top nodes and hubs, and fails when one of them lives in a vendored,
minified, bundled or generated file.

Checked answers, over stdio with `benchlib.McpServer`:
- `list_top_nodes` (top N by PageRank, the whole graph);
- `summarize_graph` with default arguments but `top_k` N (its `top_nodes`);
- `constellation_get_graph_summary` (its `topHubs`, 10 files).

A path is flagged when a component is `vendor`, `_vendor`, `vendored`, `third_party`,
`bower_components`, `node_modules`, `dist`, `build`, `generated` or `__generated__`,
when its name looks minified or bundled (`.min.`, `-min.`, `.bundle.`), or when the
file's first 2 KiB says it is generated (`@generated`, `Code generated`, `DO NOT EDIT`,
`auto-generated`), or its lines average over 110 characters.

Usage: python3 bench/top_nodes_clean.py ROOT [ROOT ...] [--bin EXE] [--top N] [--show]
(N: how many top nodes to check, default 20.)
Exit status 0 when no answer lists such a file, 1 otherwise, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile

from benchlib import McpServer, constellation_bin, die, report

SUSPECT_DIRS = {
    "vendor",
    "_vendor",
    "vendored",
    "third_party",
    "bower_components",
    "node_modules",
    "dist",
    "build",
    "generated",
    "__generated__",
}
GENERATED_MARK = re.compile(r"@generated|Code generated|DO NOT EDIT|auto-generated", re.I)


def path_of(node_id: str) -> str:
    """The file path inside a node id (`func:PATH::q`, `file:PATH`) or a plain path."""
    if node_id.startswith(("func:", "class:", "mod:", "file:")):
        node_id = node_id.split(":", 1)[1]
    return node_id.split("::", 1)[0]


def why_suspect(root: str, path: str) -> str | None:
    """Why `path` is vendored, minified, bundled or generated, or None."""
    parts = path.split("/")
    for d in parts[:-1]:
        if d in SUSPECT_DIRS:
            return f"under {d}/"
    name = parts[-1]
    if any(m in name for m in (".min.", "-min.", ".bundle.")):
        return "minified or bundled name"
    try:
        with open(os.path.join(root, path), "rb") as f:
            data = f.read()
    except OSError:
        return None
    if GENERATED_MARK.search(data[:2048].decode("utf-8", "replace")):
        return "generated (header)"
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if data and (len(data) - data.count(b"\n")) / max(lines, 1) > 110:
        return "minified (average line over 110 characters)"
    return None


def payload(result: dict) -> dict:
    """The JSON answer of a tool result."""
    if result.get("structuredContent") is not None:
        return result["structuredContent"]
    return json.loads(result["content"][0]["text"])


def check(exe: str, root: str, top_n: int, show: bool) -> list[str]:
    problems = []
    with tempfile.TemporaryDirectory(prefix="cst-top-") as tmp:
        db = os.path.join(tmp, "index.db")
        srv = McpServer(exe, root, db, "top-nodes-clean", ["--no-watch"])
        try:
            top = payload(srv.call("list_top_nodes", {"k": top_n}))
            summary = payload(srv.call("summarize_graph", {"top_k": top_n}))
            files = payload(srv.call("constellation_get_graph_summary", {}))
        finally:
            srv.close()
    lists = {
        "list_top_nodes": [n[0] for n in top["nodes"]][:top_n],
        "summarize_graph.top_nodes": [n[0] for n in summary["top_nodes"]][:top_n],
        "topHubs": [h["id"] for h in files["insights"]["topHubs"]],
    }
    name = os.path.basename(os.path.normpath(root))
    for answer, ids in lists.items():
        print(f"{name} {answer}: {len(ids)} nodes")
        for i, node in enumerate(ids, 1):
            why = why_suspect(root, path_of(node))
            if show or why:
                print(f"  {i:2}. {node}" + (f"   <- {why}" if why else ""))
            if why:
                problems.append(f"{name}: {answer} #{i} {node}: {why}")
    by_name = files["insights"].get("loadedByName", [])
    print(
        f"{name} orphans: {len(files['insights']['orphanFiles'])} listed apart from "
        f"{len(by_name)} loaded by name"
    )
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+", help="trees to index (copies: nothing is written there)")
    ap.add_argument("--bin", default=constellation_bin(), help="constellation binary")
    ap.add_argument("--top", type=int, default=20, help="top nodes to check (default 20)")
    ap.add_argument("--show", action="store_true", help="print every node, not only flagged ones")
    a = ap.parse_args()
    if not os.path.exists(a.bin):
        die(f"{a.bin} does not exist; build with cargo build --release or pass --bin")
    problems = []
    for root in a.roots:
        if not os.path.isdir(root):
            die(f"{root} is not a directory")
        problems += check(a.bin, root, a.top, a.show)
    return report(problems)


if __name__ == "__main__":
    sys.exit(main())
