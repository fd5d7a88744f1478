"""The library's folders are layers, and imports only point down (docs/ARCHITECTURE.md).

Every ``import`` in every module of the library is read from its source
(type-only imports included: an arrow is an arrow), and each must land in
the module's own layer or one below it.  ``private`` and ``shared`` are two
rooms of one layer and never import each other.

The human's page (``apps/shared-terminal/web``) enters the library by one
door, ``frontends/page.py``: it imports names from that module and from no
other of the repository's, and the door offers no name the page does not use.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "python" / "helpers" / "tmux_tool"
PACKAGE = "python.helpers.tmux_tool"
PAGE = sorted((REPO / "apps" / "shared-terminal" / "web").glob("*.py"))
DOOR = f"{PACKAGE}.frontends.page"
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


def through_the_door(path: Path) -> tuple[list[str], set[str]]:
    """What ``path`` imports from the repository's ``python`` package: the imports that are not of names
    from the door (by the module they name), and the names it takes from the door."""
    other: list[str] = []
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == DOOR:
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "python":
            other.append(node.module)
        elif isinstance(node, ast.Import):
            other += [a.name for a in node.names if a.name.split(".")[0] == "python"]
    return other, names


@pytest.mark.parametrize("path", PAGE, ids=lambda p: p.name)
def test_the_page_enters_by_its_door(path: Path) -> None:
    other, _ = through_the_door(path)
    assert not other, f"{path.name} imports {other}: the page takes what it needs from {DOOR} alone"


def test_the_door_offers_what_the_page_uses() -> None:
    door = importlib.import_module(DOOR)
    used = set().union(*(through_the_door(path)[1] for path in PAGE))
    assert used == set(door.__all__), (f"taken but not offered: {sorted(used - set(door.__all__))}; "
                                       f"offered but not used: {sorted(set(door.__all__) - used)}")


LONGEST = 80  # lines: a function longer than this does more than one thing


def test_no_function_is_longer_than_a_screen() -> None:
    """Every function of the library reads on one screen (its signature and docstring included)."""
    long = [f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in sorted(LIBRARY.rglob("*.py"))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and (node.end_lineno or node.lineno) - node.lineno + 1 > LONGEST]
    assert long == [], long


WIDE = 100  # characters: a line a person reads without moving their eyes off the code
WIDE_SHARE = 0.01  # of the library's lines may be wider (a long message, a regex kept whole)


def test_lines_read_comfortably() -> None:
    """At most one line in a hundred of the library is wider than WIDE characters."""
    lines = [(path, n, line) for path in sorted(LIBRARY.rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)]
    wide = [f"{path.relative_to(REPO)}:{n}" for path, n, line in lines if len(line) > WIDE]
    said = f"{len(wide)} of {len(lines)} lines are wider than {WIDE} characters"
    assert len(wide) <= WIDE_SHARE * len(lines), (said, wide)
