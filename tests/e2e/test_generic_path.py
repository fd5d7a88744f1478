"""The generic path alone: the AI CLIs with no profile file at all.

``TMUX_TOOL_PROFILES`` names an empty folder, so the registry holds no data profile and each CLI
is read as any chat CLI no profile knows (``programs/chat.py``, ``generic.py``): ``start`` must
find it idle at its input (``profile: "generic"``), the five turns of
``tests/e2e/test_generic_clis.py`` (a 2 s stall mid-answer, the same prompt twice, the same answer
twice) must each come back with its own answer, read off the screen, never before the model's
last byte, and ``exit`` must leave the shell with no process of the CLI behind ("the same e2e
run with the profile files of those CLIs removed").  That holds for the CLIs whose input area is a
band between two rules (Claude Code, pi, Qwen Code, Continue's ``cn``, GitHub Copilot CLI, Cline
CLI, whose hub daemon ``exit`` ends too; Grok CLI, never profiled, in a box of rules); Codex, Gemini CLI, OpenCode and Kilo CLI draw theirs
otherwise, so generic mode gives them up: it must say so, never call them ready nor type a prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from python.helpers.tmux_tool.programs import profile_for, registry
from python.tools.tmux_tool import call
from tests.e2e.conftest import START_TIMEOUT, Cli, explain
from tests.e2e.test_generic_clis import left_behind, take_turns

# The CLIs whose input area the generic reading finds: a band between two rules (chat.input_area),
# or a box of rules (Grok CLI, which no profile here names at all).
RULED = ("claude", "pi", "qwen", "cn", "copilot", "cline", "grok")
# Those it cannot drive by design, and why: their input area is not between two rules.
UNRULED = {
    "codex": "Codex's input row is a bare '›' over a blank row, with no rule or box around it",
    "gemini": "Gemini CLI's input is a shaded band (a background colour) under a single rule",
    "opencode": "OpenCode's input is a box framed by a '┃' bar and shading, on the alternate screen",
    "kilo": "Kilo CLI, an OpenCode fork, draws OpenCode's box",
}


@pytest.fixture
def no_profile_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No data profile for the test's length (an empty folder); the built-in ones back after."""
    empty = tmp_path / "no-profiles"
    empty.mkdir()
    monkeypatch.setenv(registry.VARIABLE, str(empty))
    assert registry.refresh() is None and profile_for("claude") is None
    yield
    monkeypatch.delenv(registry.VARIABLE)
    assert registry.refresh() is None and profile_for("claude") is not None


@pytest.mark.e2e
@pytest.mark.parametrize("program", RULED)
def test_a_profiled_cli_takes_turns_without_its_profile(
        program: str, no_profile_files: None, prepare: Callable[..., Cli],
        terminal_size: Callable[[int, int], None], private_socket: str) -> None:
    terminal_size(200, 50)
    cli = prepare(program)
    started = call("start", program=cli.name, args=cli.launch.argv[1:], session=cli.name,
                   cwd=cli.cwd, timeout=START_TIMEOUT)
    assert started["ok"] and started["status"] == "ready", explain(started)
    assert started["profile"] == "generic", started

    take_turns(cli)

    gone = call("exit", session=cli.name, timeout=30)
    assert gone["ok"] and gone["status"] == "ready" and gone["exit_code"] == 0, explain(gone)
    assert call("status", session=cli.name)["program"] == "bash"
    assert left_behind(private_socket, cli.name) == [], gone
    call("kill", session=cli.name)


@pytest.mark.e2e
@pytest.mark.parametrize("program", sorted(UNRULED))
def test_a_cli_without_an_input_band_is_never_called_ready(
        program: str, no_profile_files: None, prepare: Callable[..., Cli],
        terminal_size: Callable[[int, int], None], private_socket: str) -> None:
    """Generic mode gives these up (:data:`UNRULED`): ``start`` must not call them ready, ``ask``
    must type nothing, and ``exit`` must still leave the shell with none of their processes."""
    terminal_size(200, 50)
    cli = prepare(program)
    started = call("start", program=cli.name, args=cli.launch.argv[1:], session=cli.name,
                   cwd=cli.cwd, timeout=45)
    assert not started["ok"] and started["status"] in ("unknown", "busy"), explain(started)
    assert started["profile"] == "generic", started
    asked = call("ask", session=cli.name, prompt="Name a colour", timeout=10)
    assert not asked["ok"] and cli.server.calls("main") == [], explain(asked)
    gone = call("exit", session=cli.name, timeout=30)
    assert gone["ok"] and gone["status"] == "ready" and gone["exit_code"] == 0, explain(gone)
    assert call("status", session=cli.name)["program"] == "bash"
    assert left_behind(private_socket, cli.name) == [], gone
    call("kill", session=cli.name)
