"""``TMUX_TOOL_TRACE``: what the tool sent to tmux and what it concluded, one JSON object per line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool.core import trace
from python.tools.tmux_tool import call


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_run_is_traced_with_its_commands_and_its_text(private_socket: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "trace.jsonl"
    monkeypatch.setenv(trace.SWITCH, str(path))
    res = call("run", command="echo traced-$((6 * 7))", timeout=20)
    assert res["ok"] and res["output"] == "traced-42", res
    events = _events(path)
    tmux = [e for e in events if e["kind"] == "tmux"]
    assert tmux and all(e["socket"] == private_socket and e["seconds"] >= 0 for e in tmux), tmux
    words = {c[0] for e in tmux for c in e["commands"]}
    assert "new-session" in words, words
    typed = [e for e in tmux if "echo traced-$((6 * 7))" in json.dumps(e)]
    assert typed, "the command's text is in no traced tmux command"
    last = events[-1]
    assert (last["kind"], last["action"], last["ok"], last["exit_code"]) == ("result", "run", True, 0), last


def test_the_trace_masks_secrets_and_records_judgements_and_refusals(private_socket: str, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "trace.jsonl"
    monkeypatch.setenv(trace.SWITCH, str(path))
    token = "sk-" + "a1B2c3D4" * 4
    assert call("run", command=f"true {token}", timeout=20)["ok"]
    assert call("run", command="python3 -c 'import getpass; getpass.getpass()'", session="pw", timeout=20)["status"] \
        == "blocked"
    assert not call("send", session="pw", text="guess")["ok"]
    assert call("status", session="pw")["ok"]
    text = path.read_text()
    assert token not in text and "[masked]" in text
    events = _events(path)
    refused = [e for e in events if e["kind"] == "refused"]
    assert refused and "only the human" in refused[0]["reason"], refused
    states = [e for e in events if e["kind"] == "state" and e["session"] == "pw"]
    assert states and states[-1]["needs_human"] is True and states[-1]["status"] == "blocked", states
