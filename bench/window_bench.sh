#!/usr/bin/env bash
# The HTML graph view (open_window / `export --format html`) on a real corpus: how long the
# layout and rendering take for several node caps, how large the page is, and a screenshot
# of each page taken by headless Chromium, with the nodes the page's script found.
#
# Run:   bench/window_bench.sh CORPUS [OUTDIR]
#        CORPUS: a copy made by bench/corpora.sh (indexed into CORPUS/.constellation if
#        needed); OUTDIR (default: a temporary directory) receives graph-N.html and
#        graph-N.png for N in 100 300 1000.
# Needs: target/release/constellation (or $CONSTELLATION_BIN); chromium for screenshots
#        (skipped with a note when absent).
# Prints: one line per cap: files in the graph, files drawn, edges drawn, median of 3
#        render times in ms (wall time of the export, including reading the index), page
#        bytes, nodes counted by the page's own script in Chromium.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 CORPUS [OUTDIR]" >&2
    exit 2
fi
CORPUS=$(cd "$1" && pwd)
OUT=${2:-$(mktemp -d)}
mkdir -p "$OUT"
BIN=${CONSTELLATION_BIN:-$(cd "$(dirname "$0")/.." && pwd)/target/release/constellation}
[ -x "$BIN" ] || { echo "error: no binary at $BIN (cargo build --release)" >&2; exit 2; }
BROWSER=$(command -v chromium || command -v chromium-browser || true)

echo "\$ $BIN index $CORPUS -q"
"$BIN" index "$CORPUS" -q
printf '%-6s %-8s %-8s %-8s %-10s %-10s %s\n' cap files drawn edges render_ms bytes in_browser
for cap in 100 300 1000; do
    page="$OUT/graph-$cap.html"
    times=()
    for _ in 1 2 3; do
        start=$(date +%s%N)
        "$BIN" export "$CORPUS" --format html --max-nodes "$cap" >"$page"
        times+=($(( ($(date +%s%N) - start) / 1000000 )))
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
    drawn=$(grep -o '<g class="node' "$page" | wc -l | tr -d ' ')
    edges=$(grep -o '<path class="edge' "$page" | wc -l | tr -d ' ')
    files=$(grep -o '[0-9]* of [0-9]* files' "$page" | head -1 | awk '{print $3}')
    seen="-"
    if [ -n "$BROWSER" ]; then
        profile=$(mktemp -d)
        seen=$("$BROWSER" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
            --virtual-time-budget=5000 --dump-dom "file://$page" 2>/dev/null |
            grep -o 'data-rendered="[0-9]*"' | grep -o '[0-9]*' || echo "none")
        "$BROWSER" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
            --window-size=1600,1000 --screenshot="$OUT/graph-$cap.png" "file://$page" >/dev/null 2>&1 || true
        rm -rf "$profile"
    fi
    printf '%-6s %-8s %-8s %-8s %-10s %-10s %s\n' "$cap" "$files" "$drawn" "$edges" "$median" "$(wc -c <"$page" | tr -d ' ')" "$seen"
done
[ -n "$BROWSER" ] || echo "note: no chromium on the PATH, no screenshots (apt-get install chromium)"
echo "pages and screenshots in $OUT"
