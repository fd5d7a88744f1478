"""The command line's parser: flags, values and lists read as a Unix user means them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from python.helpers.tmux_tool import __version__
from python.helpers.tmux_tool.actions import ACTIONS
from python.helpers.tmux_tool.frontends.cli import Usage, parse

REPO = Path(__file__).resolve().parents[2]


def _parse(action: str, *argv: str) -> tuple[dict[str, object], bool]:
    return parse(list(argv), ACTIONS[action].args)


def test_booleans_are_flags_and_still_take_a_word() -> None:
    assert _parse("send", "--text", "ls", "--force") == ({"text": "ls", "force": True}, False)
    assert _parse("send", "--force", "--text", "ls")[0] == {"force": True, "text": "ls"}
    assert _parse("send", "--text", "ls", "--force", "false")[0]["force"] is False
    assert _parse("send", "--text", "ls", "--force", "TRUE")[0]["force"] is True
    assert _parse("send", "--text", "ls", "--no-enter")[0]["enter"] is False
    assert _parse("send", "--text", "ls", "--enter", "false")[0]["enter"] is False
    assert _parse("start", "--program", "x", "--skip-permissions")[0]["skip_permissions"] is True


def test_values_are_taken_verbatim() -> None:
    assert _parse("send", "--text", "--help")[0] == {"text": "--help"}
    assert _parse("send", "--text=a=b --c")[0] == {"text": "a=b --c"}
    assert _parse("run", "--command", "echo hi", "--timeout", "5", "--json") == (
        {"command": "echo hi", "timeout": "5"}, True)


def test_lists_run_to_the_next_option() -> None:
    assert _parse("keys", "--keys", "Escape", ":", "q", "Enter", "--session", "vi")[0] == {
        "keys": ["Escape", ":", "q", "Enter"], "session": "vi"}
    assert _parse("wait", "--sessions", "a", "b", "--json") == ({"sessions": ["a", "b"]}, True)


@pytest.mark.parametrize("argv", [["--bogus"], ["stray"], ["--command"], ["--no-command"],
                                  ["--no-timeout"]])
def test_what_cannot_be_read_is_a_usage_error(argv: list[str]) -> None:
    with pytest.raises(Usage):
        _parse("run", *argv)


def test_the_package_version_is_the_release() -> None:
    declared = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.MULTILINE)
    assert declared and __version__ == declared.group(1)
