"""The shape the library keeps: what a reader may rely on without reading every module.

* handlers never ask which kind of session they have: each kind is its own
  object behind one interface (``sessions/session.py``);
* every wait is bounded by one deadline made through ``core/clock.py``;
* a result is named after its action by the dispatcher alone;
* every tmux option the tool keeps is named in ``transport/options.py``.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from python.helpers.tmux_tool.private.session import PrivateSession
from python.helpers.tmux_tool.sessions.session import Session
from python.helpers.tmux_tool.shared.session import SharedSession

LIBRARY = Path(__file__).resolve().parents[2] / "python" / "helpers" / "tmux_tool"
MODULES = sorted(LIBRARY.rglob("*.py"))


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """Lines of a module that are code, not docstrings or comments."""
    text = path.read_text(encoding="utf-8")
    docs: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            docs.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return [(i, line) for i, line in enumerate(text.splitlines(), 1)
            if i not in docs and not line.lstrip().startswith("#")]


def test_handlers_do_not_tell_the_kinds_of_session_apart() -> None:
    tree = ast.parse((LIBRARY / "handlers.py").read_text(encoding="utf-8"))
    asked = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "shared"]
    assert not asked, f"handlers.py reads .shared at lines {asked}"


@pytest.mark.parametrize("kind", [PrivateSession, SharedSession], ids=lambda k: k.__name__)
def test_each_kind_of_session_offers_the_whole_interface(kind: type) -> None:
    wanted = {name for name, _ in inspect.getmembers(Session) if not name.startswith("_")} - {"target"}
    for name in sorted(wanted):
        theirs, ours = getattr(Session, name), getattr(kind, name, None)
        assert ours is not None, f"{kind.__name__} has no {name}"
        if callable(theirs):
            assert list(inspect.signature(ours).parameters) == list(inspect.signature(theirs).parameters), name


def test_every_deadline_comes_from_the_clock() -> None:
    made = [f"{p.relative_to(LIBRARY)}:{i}" for p in MODULES if p.name != "clock.py"
            for i, line in _code_lines(p) if re.search(r"deadline\s*=\s*time\.monotonic\(\)", line)]
    assert not made, made


def test_only_the_dispatcher_names_a_result() -> None:
    named = [f"{p.relative_to(LIBRARY)}:{i}" for p in MODULES
             for i, line in _code_lines(p) if re.search(r"\b(?:Result|failure)\(\s*action=|\.action\s*=", line)
             and p.name != "actions.py"]
    assert not named, named


def test_every_tmux_option_is_named_in_one_place() -> None:
    literal = re.compile(r"""["']#?\{?@(?:tt|tmux_tool)_""")
    found = [f"{p.relative_to(LIBRARY)}:{i}" for p in MODULES if p.name not in ("options.py", "install.py")
             for i, line in _code_lines(p) if literal.search(line)]
    assert not found, found
