"""Helpers shared by the scripts in bench/ (each script is run as `python3 bench/NAME.py`,
so this folder is on sys.path)."""

from __future__ import annotations

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg: str, code: int = 2) -> None:
    """Prints `error: msg` on stderr and exits with `code` (2: a setup error)."""
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(code)


def constellation_bin() -> str:
    """The binary under test: $CONSTELLATION_BIN, else target/release/constellation of
    the working directory, else of this repository (absolute)."""
    env = os.environ.get("CONSTELLATION_BIN")
    if env:
        return env
    rel = os.path.join("target", "release", "constellation")
    return os.path.abspath(rel) if os.path.exists(rel) else os.path.join(REPO, rel)
