"""The library's folders are layers, and imports only point down (docs/ARCHITECTURE.md).

Every ``import`` in every module of the library is read from its source
(type-only imports included: an arrow is an arrow), and each must land in
the module's own layer or one below it.  ``private`` and ``shared`` are two
rooms of one layer and never import each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIBRARY = Path(__file__).resolve().parents[2] / "python" / "helpers" / "tmux_tool"
PACKAGE = "python.helpers.tmux_tool"
LAYERS = {
    "core": 0, "screen": 1, "transport": 2, "programs": 3, "judgement": 3, "journals": 3,
    "private": 4, "shared": 4, "sessions": 5, "drive": 6, "handlers": 7, "actions": 8, "api": 9, "frontends": 10,
}
MODULES = sorted(p for p in LIBRARY.rglob("*.py") if p.name != "__init__.py" or p.parent != LIBRARY)


def room(path: Path) -> str:
    """The layer a module file belongs to: its top folder, or its own name at the top."""
    return path.relative_to(LIBRARY).parts[0].removesuffix(".py")


def targets(path: Path) -> list[str]:
    """The rooms of the library that ``path`` imports from."""
    rel = path.relative_to(LIBRARY)
    package = list(rel.parts[:-1])
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                names = [".".join([*base, node.module]) if node.module else ".".join([*base, a.name])
                         for a in (node.names if not node.module else [ast.alias("")])]
            elif node.module and node.module.startswith(PACKAGE + "."):
                names = [node.module[len(PACKAGE) + 1:]]
        elif isinstance(node, ast.Import):
            names = [a.name[len(PACKAGE) + 1:] for a in node.names if a.name.startswith(PACKAGE + ".")]
        found += [n.split(".")[0] for n in names if n]
    return found


def test_every_room_is_a_layer() -> None:
    rooms = {room(p) for p in MODULES}
    assert rooms <= set(LAYERS), rooms - set(LAYERS)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(LIBRARY)))
def test_imports_point_down(path: Path) -> None:
    here = room(path)
    upward = [t for t in targets(path) if t in LAYERS and t != here
              and (LAYERS[t] > LAYERS[here] or (LAYERS[t] == LAYERS[here]))]
    assert not upward, f"{path.relative_to(LIBRARY)} ({here}) imports from {upward}"
