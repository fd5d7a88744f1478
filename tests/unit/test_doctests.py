"""The examples in the docstrings of the pure modules are tests: they must stay true.

Every library module whose docstrings hold ``>>>`` examples is found and
run, so a new example is checked without being listed here.
"""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

EXAMPLE = re.compile(r"^\s*>>> ", re.MULTILINE)  # a doctest line, not ">>> " quoted in prose
LIBRARY = Path(__file__).resolve().parents[2] / "python" / "helpers" / "tmux_tool"
WITH_EXAMPLES = sorted(
    ".".join(("python", "helpers", "tmux_tool", *path.relative_to(LIBRARY).with_suffix("").parts))
    for path in LIBRARY.rglob("*.py")
    if EXAMPLE.search(path.read_text(encoding="utf-8"))
)


def test_some_modules_carry_examples() -> None:
    assert len(WITH_EXAMPLES) >= 3, WITH_EXAMPLES


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result
