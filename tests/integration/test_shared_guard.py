"""The shared session: the agent types as a polite guest (real tmux, real bash)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from python.helpers.tmux_tool.shared import keystroke
from python.tools.tmux_tool import call

from ..conftest import SharedTerminal
from ..gates import Gate


def wait_screen(term: SharedTerminal, needle: str, timeout: float = 5.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = term.screen()
        if needle in screen:
            return screen
        time.sleep(0.05)
    raise AssertionError(f"{needle!r} never appeared:\n{term.screen()}")


def test_missing_shared_session_says_how_to_start_it(monkeypatch) -> None:
    monkeypatch.setenv("TMUX_TOOL_SHARED_SOCKET", f"tt-none-{os.getpid()}")
    for action, args in (("send", {"text": "ls"}), ("read", {}), ("status", {}), ("wait", {"timeout": 1})):
        res = call(action, **args)
        assert not res["ok"] and "start.sh" in res["error"], (action, res)


def test_send_runs_the_command_and_returns_its_output(shared_terminal: SharedTerminal) -> None:
    res = call("send", text="echo one; echo two", timeout=10)
    assert res["ok"] and res["status"] == "ready", res
    assert res["output"] == "one\ntwo"
    screen = shared_terminal.screen()
    assert screen.count("echo one; echo two") == 1
    assert "7771" not in screen and "tt-" not in screen  # no markers, no buffer names


def test_tool_never_creates_or_destroys_the_shared_session(shared_terminal: SharedTerminal) -> None:
    call("send", text="true", timeout=5)
    assert not call("kill", session="shared")["ok"]
    assert shared_terminal.tmux("list-sessions", "-F", "#{session_name}").split() == ["shared"]


def test_human_text_is_never_erased_or_submitted(shared_terminal: SharedTerminal) -> None:
    call("status")
    shared_terminal.type("ls -la /hum")
    wait_screen(shared_terminal, "ls -la /hum")
    res = call("send", text="echo agent", timeout=2)
    assert not res["ok"] and "ls -la /hum" in res["error"]
    screen = shared_terminal.screen()
    assert screen.rstrip().endswith("ls -la /hum") and "agent" not in screen
    status = call("status")
    assert status["status"] == "busy" and "typing" in status["evidence"]


def test_agent_waits_for_the_human_to_submit_then_goes_after(shared_terminal: SharedTerminal,
                                                            tmp_path: Path) -> None:
    log = tmp_path / "order.log"
    call("status")
    shared_terminal.type(f"echo human >> {log}")
    import threading

    def human_finishes() -> None:
        time.sleep(1.0)
        shared_terminal.press("Enter")

    threading.Thread(target=human_finishes).start()
    res = call("send", text=f"echo agent >> {log}", timeout=15)
    assert res["ok"], res
    assert log.read_text().split() == ["human", "agent"]


def test_own_unsent_text_is_cleared_before_typing(shared_terminal: SharedTerminal, tmp_path: Path) -> None:
    log = tmp_path / "own.log"
    res = call("send", text=f"echo leftover >> {log}", enter=False, timeout=5)
    assert res["ok"] and res["status"] == "ready"
    assert "our own" in call("status")["evidence"]
    assert call("send", text=f"echo fresh >> {log}", timeout=10)["ok"]
    assert log.read_text().split() == ["fresh"]


def test_copy_mode_blocks_typing(shared_terminal: SharedTerminal) -> None:
    assert call("wait", timeout=10)["status"] == "ready"  # the shell has started
    shared_terminal.tmux("copy-mode", "-t", "=shared:")
    status = call("status")
    # Copy mode is the human scrolling, not a state of the shell: wait must not stop on it.
    assert status["status"] == "ready" and "copy mode" in status["evidence"]
    res = call("send", text="echo nope", timeout=1)
    assert not res["ok"] and "copy mode" in res["error"]
    shared_terminal.tmux("send-keys", "-t", "=shared:", "-X", "cancel")
    assert "nope" not in shared_terminal.screen()


def test_ctrl_c_only_for_our_own_command(shared_terminal: SharedTerminal) -> None:
    call("status")
    shared_terminal.type("sleep 30")
    shared_terminal.press("Enter")
    deadline = time.monotonic() + 10
    while call("status")["status"] != "busy":  # the human's command runs
        assert time.monotonic() < deadline, shared_terminal.screen()
        time.sleep(0.05)
    refused = call("interrupt", timeout=2)
    assert not refused["ok"] and "human" in refused["error"]
    assert not call("keys", keys="C-c", timeout=1)["ok"]
    shared_terminal.press("C-c")
    deadline = time.monotonic() + 5
    while call("status")["status"] != "ready" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert call("send", text="sleep 30", timeout=2)["status"] == "busy"
    res = call("interrupt", timeout=5)
    assert res["ok"] and res["status"] == "ready", res


def test_prompt_like_output_is_not_ready(shared_terminal: SharedTerminal, tmp_path: Path) -> None:
    call("send", text="true", timeout=5)  # learn the real prompt
    gate = Gate(tmp_path / "go")  # the command runs on until the status was taken
    call("send", text=f"printf 'tester@box:/tmp# \\n$ \\n>>> '; {gate.shell}", timeout=0)
    deadline = time.monotonic() + 10
    while not shared_terminal.screen().rstrip().endswith(">>>"):
        assert time.monotonic() < deadline, shared_terminal.screen()
        time.sleep(0.02)
    assert call("status")["status"] == "busy"
    gate.open()
    done = call("wait", timeout=5)
    assert done["ok"] and done["status"] == "ready"


def test_every_injection_is_audited_and_rate_limited(shared_terminal: SharedTerminal) -> None:
    for word in ("first", "second"):
        assert call("send", text=f"echo {word}", timeout=5)["ok"]
    audit = Path(os.environ["TMUX_TOOL_STATE_DIR"]) / f"shared-{os.environ['TMUX_TOOL_SHARED_SOCKET']}"
    entries = [json.loads(line) for line in (audit / "audit.log").read_text().splitlines()]
    assert [e["text"] for e in entries] == ["echo first", "echo second"]
    assert entries[1]["time"] - entries[0]["time"] >= keystroke.MIN_GAP


def test_long_output_scrolling_past_the_screen(shared_terminal: SharedTerminal) -> None:
    res = call("send", text="seq 1 100", timeout=10)
    assert res["ok"] and res["status"] == "ready"
    assert res["output"].split() == [str(i) for i in range(1, 101)]


def test_read_returns_the_screen_and_history(shared_terminal: SharedTerminal) -> None:
    call("send", text="seq 1 60", timeout=10)
    screen = call("read")
    assert screen["ok"] and "60" in screen["screen"]
    tail = call("read", lines=5)["screen"].splitlines()
    assert len(tail) == 5 and tail[-2] == "60"
    subprocess.run(["true"], check=True)


def test_force_never_types_onto_the_humans_line(shared_terminal: SharedTerminal) -> None:
    call("status")
    shared_terminal.type("ls /half-typed")
    wait_screen(shared_terminal, "ls /half-typed")
    res = call("send", text="echo agent", force=True, timeout=1.5)
    assert not res["ok"] and "ls /half-typed" in res["error"]
    assert shared_terminal.screen().rstrip().endswith("ls /half-typed")
