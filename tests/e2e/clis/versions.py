"""The two installs of the AI CLIs: the pinned reference and the newest releases.

`../package.json` pins the versions the suite was first written against
(`node_modules/.bin`); `newest/package.json` holds the newest release of each
CLI (`newest/node_modules/.bin`), so detection is tried on the versions users
actually run.  Installing the newest Claude Code here needs
`npm install --engine-strict=false` (it declares `node >= 22` but ships a
native binary that runs on the Node this machine has).

A `Launch` from `homes.py` finds its CLI on `PATH`; `on(launch, install)`
points it at the other install without touching anything else.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import tempfile
from pathlib import Path

from .homes import BIN_DIR, CLIS_DIR, Launch

PINNED = BIN_DIR
NEWEST = CLIS_DIR / "newest" / "node_modules" / ".bin"
INSTALLS = {"pinned": PINNED, "newest": NEWEST}


def on(launch: Launch, bin_dir: Path) -> Launch:
    """The same launch with `bin_dir` first on PATH instead of the pinned install."""
    parts = [p for p in launch.env["PATH"].split(os.pathsep) if p != str(PINNED)]
    return dataclasses.replace(launch, env={**launch.env, "PATH": os.pathsep.join([str(bin_dir), *parts])})


NUMBER = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]*[0-9A-Za-z])?")


def version(bin_dir: Path, executable: str) -> str:
    """What `<executable> --version` says in `bin_dir` (its last line that holds a version number:
    Copilot CLI ends with advice, "Run 'copilot update' ..."), or "" when it is not installed."""
    path = bin_dir / executable
    if not path.exists():
        return ""
    with tempfile.TemporaryDirectory(prefix="cli-version-") as home:
        proc = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "HOME": home}, check=False)
    lines = (proc.stdout.strip() or proc.stderr.strip()).splitlines()  # pi says it on stderr
    numbered = [line for line in lines if NUMBER.search(line)]
    return (numbered or lines or [""])[-1].strip()
