"""Kilo CLI, an OpenCode fork, as a profile that is only data: ``profiles/kilo.toml`` names OpenCode's
reader with Kilo's own signs, judged on its recorded screens (tests/fixtures/screens/kilo/, with its
README's provenance)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from python.helpers.tmux_tool.programs import detect, profile_for
from python.helpers.tmux_tool.programs.opencode import OpencodeProfile
from python.helpers.tmux_tool.screen import Snapshot, snapshot_from_capture

SCREENS = Path(__file__).resolve().parents[1] / "fixtures" / "screens" / "kilo"


def _snap(path: Path, program: str | None = None) -> Snapshot:
    fx = json.loads(path.read_text(encoding="utf-8"))
    w, h = fx["size"]
    return snapshot_from_capture(fx["ansi"], width=w, height=h, cursor=tuple(fx["cursor"]),
                                 alternate=fx["alternate"], program=program or fx["pane_current_command"])


def test_kilo_is_read_by_opencodes_reader_and_leaves_by_exit() -> None:
    kilo = profile_for("kilo")
    assert isinstance(kilo, OpencodeProfile) and kilo.name == "kilo" and kilo.launch() == ["kilo"]
    assert kilo.exit_steps == (("text", "/exit"), ("keys", "Enter"))
    assert [(d.name, d.safe) for d in kilo.dialogs] == [("permission", False)]
    assert profile_for("node") is not kilo, "the node REPL keeps its name"


@pytest.mark.parametrize("state", ["ready", "typed", "answered", "aftertool", "promptlike"])
def test_kilo_idle_screens_are_ready_and_named_kilo_by_node_alone(state: str) -> None:
    # tmux names Kilo "node" (its Node loader leads the process group): with nothing else known,
    # its screen still names Kilo, not Codex, Gemini CLI or the node REPL, which tmux names so too.
    paths = sorted(SCREENS.glob(f"{state}-*.json"))
    assert paths
    for path in paths:
        verdict = detect(_snap(path, "node"))
        assert (verdict.status, verdict.program) == ("ready", "kilo"), (path.name, verdict)


def test_kilos_permission_question_is_blocked_in_its_own_words() -> None:
    paths = sorted(SCREENS.glob("permission-*.json"))
    assert paths
    for path in paths:
        verdict = detect(_snap(path), program="kilo")
        assert verdict.status == "blocked" and verdict.program == "kilo", verdict
        assert verdict.evidence.startswith("Kilo asks permission to run a tool: 'Permission required:"), verdict
        assert verdict.question is not None and "touch scripted-file.txt" in verdict.question
        assert verdict.options == ("Allow once", "Allow always", "Reject")
