#!/usr/bin/env bash
# Makes private copies of the real corpora the benchmarks and the CI smoke test run on.
#
# What: the corpora of SPEC section 6, present on every machine of this kind:
#   DEST/cpython-stdlib   the Python standard library of `python3` (sysconfig "stdlib"),
#                         without site-packages/, __pycache__/ and *.pyc
#   DEST/npm              npm's own source, $(npm root -g)/npm
#   DEST/cargo-registry   the unpacked crates, ${CARGO_HOME:-$HOME/.cargo}/registry/src
#                         (Rust, and the C/C++ sources that -sys crates ship)
# and, for the languages those three lack (asked for by name only):
#   DEST/go-stdlib        the Go standard library, GOROOT/src of `go` or of Debian's
#                         golang-*-src package (`apt-get install golang-src`)
#   DEST/jdk-java.base    the java.base module of the JDK's lib/src.zip ($JAVA_HOME, else
#                         the newest /usr/lib/jvm/*/lib/src.zip that exists)
#   DEST/node-headers     Node's C and C++ headers (V8, libuv, OpenSSL, ..), include/node
#                         beside the `node` binary or /usr/include/node
#   DEST/rxjs             the rxjs package from the npm registry (`npm pack rxjs@7`): a
#                         TypeScript source tree (src/*.ts) with its JavaScript builds
# Copies, not the originals, because the benchmarks write `.constellation/` into the
# corpus and edit files in it.
#
# Run:   bench/corpora.sh DEST [cpython-stdlib|npm|cargo-registry|go-stdlib|jdk-java.base|
#                                 node-headers|rxjs ...]
#        (no names: the first three). Idempotent: with rsync a rerun only syncs differences;
#        without rsync a corpus whose copy finished before (marker DEST/.NAME.done) is
#        kept as it is; delete the marker or the copy to redo it.
# Prints: one line per corpus with its path, size and file count. A source that does not
#        exist on this machine (no npm, empty cargo registry) is reported and skipped;
#        the exit status is non-zero only if a requested copy fails.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 DEST [cpython-stdlib|npm|cargo-registry ...]" >&2
    exit 2
fi
DEST=$1
shift
if [ $# -eq 0 ]; then
    set -- cpython-stdlib npm cargo-registry
fi
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

# copy SRC NAME [EXCLUDE ...]: copies directory SRC to DEST/NAME, leaving out every file
# or directory whose name matches one of the EXCLUDE patterns (at any depth).
copy() {
    local src=$1 name=$2
    shift 2
    local dst="$DEST/$name" marker="$DEST/.$name.done"
    if command -v rsync >/dev/null 2>&1; then
        local args=(-a --delete --delete-excluded)
        local pat
        for pat in "$@"; do args+=(--exclude "$pat"); done
        rsync "${args[@]}" "$src/" "$dst/" || return 1
    else
        if [ -f "$marker" ] && [ -d "$dst" ] && [ "$(cat "$marker")" = "$src" ]; then
            echo "  $name: already copied from $src (marker $marker)"
        else
            # `|| return 1` on each step: callers use `copy ... || status=1`, where
            # set -e does not apply inside the function.
            rm -rf "$dst" "$marker" || return 1
            mkdir -p "$dst" || return 1
            cp -a "$src/." "$dst/" || return 1
            local pat
            for pat in "$@"; do
                # -depth so a matching directory is removed after its contents.
                find "$dst" -depth -name "$pat" -exec rm -rf {} + 2>/dev/null || true
            done
            printf '%s' "$src" >"$marker"
        fi
    fi
    report "$name"
}

report() {
    local dst="$DEST/$1"
    local size files
    size=$(du -sh "$dst" | cut -f1)
    files=$(find "$dst" -type f | wc -l | tr -d ' ')
    printf '%-16s %-60s %8s %8s files\n' "$1" "$dst" "$size" "$files"
}

status=0
for corpus in "$@"; do
    case "$corpus" in
    cpython-stdlib)
        src=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
        if [ -d "$src" ]; then
            copy "$src" cpython-stdlib site-packages __pycache__ '*.pyc' || status=1
        else
            echo "skip cpython-stdlib: no directory $src" >&2
        fi
        ;;
    npm)
        if command -v npm >/dev/null 2>&1 && root=$(npm root -g 2>/dev/null) && [ -d "$root/npm" ]; then
            copy "$root/npm" npm || status=1
        else
            echo "skip npm: npm or its global package directory is missing" >&2
        fi
        ;;
    cargo-registry)
        src="${CARGO_HOME:-$HOME/.cargo}/registry/src"
        if [ -d "$src" ]; then
            copy "$src" cargo-registry || status=1
        else
            echo "skip cargo-registry: no directory $src" >&2
        fi
        ;;
    go-stdlib)
        src=""
        if command -v go >/dev/null 2>&1; then
            src="$(go env GOROOT 2>/dev/null)/src"
        fi
        if [ ! -d "$src" ]; then
            src=$(ls -d /usr/share/go-*/src /usr/lib/go-*/src 2>/dev/null | sort -V | tail -n 1 || true)
        fi
        if [ -n "$src" ] && [ -d "$src" ]; then
            copy "$src" go-stdlib || status=1
        else
            echo "skip go-stdlib: no Go installation (apt-get install golang-src)" >&2
        fi
        ;;
    jdk-java.base)
        zip=""
        if [ -n "${JAVA_HOME:-}" ] && [ -f "$JAVA_HOME/lib/src.zip" ]; then
            zip="$JAVA_HOME/lib/src.zip"
        else
            for candidate in $(ls -d /usr/lib/jvm/*/lib/src.zip 2>/dev/null | sort -V -r); do
                if [ -f "$candidate" ]; then
                    zip=$candidate
                    break
                fi
            done
        fi
        if [ -n "$zip" ]; then
            dst="$DEST/jdk-java.base"
            rm -rf "$dst"
            python3 - "$zip" "$dst" <<'PY' || status=1
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as z:
    names = [n for n in z.namelist() if n.startswith("java.base/") and not n.endswith("/")]
    for name in names:
        target = os.path.join(dst, name[len("java.base/"):])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with z.open(name) as f, open(target, "wb") as out:
            out.write(f.read())
print(f"  jdk-java.base: {len(names)} files from {src}")
PY
            report jdk-java.base
        else
            echo "skip jdk-java.base: no JDK lib/src.zip found" >&2
        fi
        ;;
    node-headers)
        src=""
        if command -v node >/dev/null 2>&1; then
            src="$(dirname "$(command -v node)")/../include/node"
        fi
        if [ ! -d "$src" ]; then
            src=/usr/include/node
        fi
        if [ -d "$src" ]; then
            copy "$(cd "$src" && pwd)" node-headers || status=1
        else
            echo "skip node-headers: no include/node directory" >&2
        fi
        ;;
    rxjs)
        if command -v npm >/dev/null 2>&1; then
            tmp=$(mktemp -d)
            if (cd "$tmp" && npm pack rxjs@7 --silent >/dev/null && tar xzf rxjs-*.tgz); then
                rm -rf "$DEST/rxjs"
                mv "$tmp/package" "$DEST/rxjs"
                report rxjs
            else
                echo "rxjs: npm pack failed" >&2
                status=1
            fi
            rm -rf "$tmp"
        else
            echo "skip rxjs: npm is missing" >&2
        fi
        ;;
    *)
        echo "unknown corpus '$corpus' (expected cpython-stdlib, npm, cargo-registry, go-stdlib, jdk-java.base, node-headers or rxjs)" >&2
        status=2
        ;;
    esac
done
exit $status
