"""The agent's ``send`` waits while the person in the browser types, and never mixes in."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from browser_terminal import BrowserTerminal
from shared_terminal_harness import SharedTerminalApp

from python.tools.tmux_tool import call


def test_agent_waits_for_the_page_user(shared_terminal: SharedTerminalApp, terminal_page: BrowserTerminal,
                                       monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                       artifacts_dir: Path) -> None:
    for key, value in shared_terminal.env.items():
        if key.startswith("TMUX_TOOL_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("TMUX_TOOL_STATE_DIR", str(tmp_path / "state"))
    log = tmp_path / "order.log"
    assert call("status")["ok"]

    terminal_page.type("echo from-the-page", delay_ms=60)
    result: dict = {}
    agent = threading.Thread(target=lambda: result.update(call("send", text=f"echo from-the-agent >> {log}",
                                                               timeout=30)))
    agent.start()
    terminal_page.type(f" >> {log}", delay_ms=120)  # still typing while the agent waits
    time.sleep(1.0)  # a pause before submitting: the line is left as it is
    assert "from-the-agent" not in shared_terminal.capture()
    terminal_page.press("Enter")
    agent.join(timeout=40)
    assert result.get("ok"), result
    assert log.read_text().split() == ["from-the-page", "from-the-agent"]
    terminal_page.wait_for_text("from-the-agent >>")
    terminal_page.page.screenshot(path=str(artifacts_dir / "agent-and-page.png"))
