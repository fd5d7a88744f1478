"""The line editors' own modes (history search) are told from real captures, and nothing else is.

Backs :func:`shared.prompt.editor_mode` with the recorded screens of bash,
zsh and fish (tests/fixtures/screens/{bash,zsh,sh}/search-*.json), and checks
that no other recorded shell screen - prompts, typed lines, continuations,
questions, running commands - is taken for one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from python.helpers.tmux_tool.shared.prompt import editor_mode

SCREENS = Path(__file__).resolve().parents[1] / "fixtures" / "screens"
SHELL_FIXTURES = sorted(p for d in ("bash", "zsh", "sh") for p in (SCREENS / d).glob("*.json"))


def mode_of(path: Path) -> str | None:
    fx = json.loads(path.read_text())
    return editor_mode(fx["lines"], fx["cursor"][1], fx["program"])


@pytest.mark.parametrize("path", [p for p in SHELL_FIXTURES if p.name.startswith("search-")],
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_history_search_is_seen(path: Path) -> None:
    assert mode_of(path) == "searching the shell's history (Ctrl+R)"


@pytest.mark.parametrize("path", [p for p in SHELL_FIXTURES if not p.name.startswith("search-")],
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_other_shell_screen_is_a_mode(path: Path) -> None:
    assert mode_of(path) is None


def test_odd_input_is_no_mode() -> None:
    for rows, y in (([], 0), (["x"], 5), (["x"], -1), (None, 0), ([None], 0), (["(arg: 4) "], "0")):
        assert editor_mode(rows, y, "bash") is None  # type: ignore[arg-type]
    assert editor_mode(["(arg: 4)"], 0, "bash") == "giving a line-editor command a count"
