"""Tell whether every pinned requirement is already installed.

setup.sh runs on every start.sh and every test run. Asking pip to install an
already satisfied requirements file costs seconds and may touch the network;
reading installed versions costs milliseconds. Exit status 0 means "nothing
to install"; 1 means "run pip" (including any line this check cannot judge,
so an unusual requirement is never silently skipped).
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

PINNED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^\s;#]+)\s*(#.*)?$")


def normalise(name: str) -> str:
    """PEP 503 form, so `Foo_Bar` and `foo-bar` compare equal."""
    return re.sub(r"[-_.]+", "-", name).lower()


def unmet(requirements: Path) -> list[str]:
    """The requirement lines that are missing, at another version, or not pins."""
    installed = {normalise(dist.metadata["Name"]): dist.version for dist in metadata.distributions()}
    missing = []
    for raw in requirements.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = PINNED.match(line)
        if match is None or installed.get(normalise(match.group(1))) != match.group(3):
            missing.append(line)
    return missing


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} REQUIREMENTS_FILE", file=sys.stderr)
        return 2
    return 1 if unmet(Path(argv[1])) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
