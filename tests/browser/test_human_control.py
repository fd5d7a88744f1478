"""The human in control, through the page in real Chromium and the tool's real ``send``.

The page shows what the agent does in the shared terminal (header and
activity panel), and its switches decide what the agent may do: pause, and
approve each step. Every test drives a real install (start.sh, tmux, bash,
the web server) and the tool's public ``call``; nothing is mocked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_terminal import BrowserTerminal
from shared_terminal_harness import SharedTerminalApp, wait_for

from python.helpers.tmux_tool.shared import control
from python.tools.tmux_tool import call
from tests.background import Background
from tests.gates import Gate

pytestmark = pytest.mark.browser

@pytest.fixture
def tool(shared_terminal: SharedTerminalApp, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> SharedTerminalApp:
    """Point the tool's ``call`` at this install's shared session (own state directory)."""
    for key, value in shared_terminal.env.items():
        if key.startswith("TMUX_TOOL_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("TMUX_TOOL_STATE_DIR", str(tmp_path / "state"))
    assert call("status")["ok"]
    return shared_terminal


def agent_log(page: BrowserTerminal) -> list[str]:
    """Every sentence the page's header has shown about the agent, in order."""
    return list(page.page.evaluate("() => window.sharedTerminal.agentLog"))


def header(page: BrowserTerminal) -> str:
    return str(page.page.text_content("#agent"))


def switch_on(page: BrowserTerminal, selector: str) -> bool:
    return page.page.get_attribute(selector, "aria-checked") == "true"


def options(app: SharedTerminalApp) -> control.Control:
    from python.helpers.tmux_tool.transport.tmux import Tmux

    return control.read(Tmux(app.socket), app.target)


def input_line(app: SharedTerminalApp) -> str:
    """The cursor row of the pane: the prompt and whatever is typed after it."""
    y = int(app.display("#{cursor_y}"))
    return app.capture().split("\n")[y]


# --- who is typing ----------------------------------------------------------------------
def test_header_shows_the_agent_typing_then_waiting_then_idle(tool: SharedTerminalApp,
                                                             terminal_page: BrowserTerminal,
                                                             artifacts_dir: Path, tmp_path: Path) -> None:
    gate = Gate(tmp_path / "slow.go")
    command = f"{gate.shell}; echo slow-$((6*7))"
    agent = Background("send", text=command, timeout=30)
    wait_for(lambda: any(s.startswith("agent waiting for the prompt (2 s)") for s in agent_log(terminal_page)),
             "the header to count the wait up to 2 s")
    terminal_page.page.screenshot(path=str(artifacts_dir / "control-waiting.png"))
    # Screen readers hear the state once: the running count is outside the live region.
    assert terminal_page.page.get_attribute("#agent", "role") == "status"
    assert header(terminal_page) == "agent waiting for the prompt"
    assert terminal_page.page.get_attribute("#agent-count", "aria-hidden") == "true"
    assert str(terminal_page.page.text_content("#agent-count")).startswith(" (")
    gate.open()
    result = agent.join()
    assert result["ok"], result
    assert "slow-42" in result["output"]
    wait_for(lambda: header(terminal_page) == "agent idle", "the header to say idle after the call")
    log = agent_log(terminal_page)
    shown = command if len(command) <= 60 else command[:59] + "…"  # the page cuts a long command
    typing = log.index(f"agent typing `{shown}`")
    waits = [i for i, s in enumerate(log) if s.startswith("agent waiting for the prompt (")]
    assert waits and typing < waits[0] < log.index("agent idle", waits[0]), log


# --- pause ----------------------------------------------------------------------------
def test_pause_in_the_page_stops_the_agent_and_resume_lets_it_type(tool: SharedTerminalApp,
                                                                   terminal_page: BrowserTerminal,
                                                                   artifacts_dir: Path) -> None:
    page = terminal_page.page
    running = call("send", text="sleep 30", timeout=1)  # the agent's own command, still running
    assert running["status"] == "busy", running
    page.click("#pause")
    wait_for(lambda: options(tool).paused, "the pause to reach the tmux session")
    wait_for(lambda: switch_on(terminal_page, "#pause") and header(terminal_page) == "agent paused",
             "the page to show the pause")
    page.screenshot(path=str(artifacts_dir / "control-paused.png"))
    before = tool.capture()

    refused = call("send", text="echo must-not-run-$((6*7))", timeout=5)
    assert not refused["ok"]
    assert control.PAUSED in refused["error"]
    for action, args in (("keys", {"keys": "Up"}), ("interrupt", {})):
        answer = call(action, **args)
        assert not answer["ok"] and control.PAUSED in answer["error"], (action, answer)
    assert tool.capture() == before, "nothing may reach the pane while paused"
    assert tool.display("#{pane_current_command}") == "sleep", "not even the agent's own Ctrl+C"

    status = call("status")
    assert status["ok"] and status.get("paused") is True, status
    assert control.PAUSED in json.dumps(status)
    assert call("read")["ok"]
    assert call("wait", until="stable", timeout=5)["ok"]
    shown = tool.script("agent.sh", "status")
    assert shown.returncode == 0 and "is paused" in shown.stdout, shown

    page.click("#pause")
    wait_for(lambda: not options(tool).paused, "the resume to reach the tmux session")
    wait_for(lambda: not switch_on(terminal_page, "#pause"), "the page's switch to show the resume")
    stopped = call("interrupt")
    assert stopped["ok"] and stopped["status"] == "ready", stopped
    done = call("send", text="echo after-resume-$((6*7))", timeout=20)
    assert done["ok"], done
    assert "after-resume-42" in done["output"]


def test_agent_sh_pause_shows_in_the_page(tool: SharedTerminalApp, terminal_page: BrowserTerminal) -> None:
    paused = tool.script("agent.sh", "pause")
    assert paused.returncode == 0, paused.stderr
    wait_for(lambda: switch_on(terminal_page, "#pause"), "the page's switch to follow agent.sh")
    assert header(terminal_page) == "agent paused"
    assert not call("send", text="echo no", timeout=3)["ok"]
    resumed = tool.script("agent.sh", "resume")
    assert resumed.returncode == 0, resumed.stderr
    wait_for(lambda: not switch_on(terminal_page, "#pause"), "the page's switch to follow agent.sh")
    assert "may type" in tool.script("agent.sh", "status").stdout


# --- approve mode ------------------------------------------------------------------------
def approval_request(page: BrowserTerminal) -> str:
    page.page.wait_for_selector("#approval:not([hidden])", timeout=15_000)
    return str(page.page.text_content("#approval-text"))


def test_approve_types_exactly_the_shown_text(tool: SharedTerminalApp, terminal_page: BrowserTerminal,
                                             artifacts_dir: Path) -> None:
    page = terminal_page.page
    page.click("#approve-mode")
    wait_for(lambda: options(tool).approve, "approve mode to reach the tmux session")
    text = "echo \"quoted; $((6*7))\" 'single' | tr a-z A-Z"
    agent = Background("send", text=text, timeout=30)
    assert approval_request(terminal_page) == text
    assert "then Enter" in str(page.text_content("#approval-keys"))
    assert header(terminal_page) == "agent waiting for your approval"
    page.screenshot(path=str(artifacts_dir / "control-approval.png"))
    assert text not in tool.capture(), "nothing is typed before the human approves"
    page.click("#approve")
    result = agent.join()
    assert result["ok"], result
    assert "QUOTED; 42 SINGLE" in result["output"]
    assert text in tool.capture()
    wait_for(lambda: page.is_hidden("#approval"), "the request to leave the page")
    assert options(tool).pending is None and options(tool).approval is None


def test_reject_types_nothing(tool: SharedTerminalApp, terminal_page: BrowserTerminal) -> None:
    page = terminal_page.page
    page.click("#approve-mode")
    wait_for(lambda: options(tool).approve, "approve mode to reach the tmux session")
    before = tool.capture()
    agent = Background("send", text="echo rejected-$((6*7))", timeout=30)
    assert approval_request(terminal_page) == "echo rejected-$((6*7))"
    page.click("#reject")
    result = agent.join()
    assert not result["ok"]
    assert "the human rejected" in result["error"] and "echo rejected-$((6*7))" in result["error"]
    assert tool.capture() == before
    keys = Background("keys", keys="C-l")
    approval_request(terminal_page)
    # The panel may still show the rejected request for a moment: wait for the new one's keys.
    wait_for(lambda: "keys: C-l" in str(page.text_content("#approval-keys")), "the keys request in the panel")
    page.click("#reject")
    assert not keys.join()["ok"]
    assert tool.capture() == before


def test_a_replayed_approval_changes_nothing(tool: SharedTerminalApp, terminal_page: BrowserTerminal) -> None:
    page = terminal_page.page
    page.click("#approve-mode")
    wait_for(lambda: options(tool).approve, "approve mode to reach the tmux session")
    first = Background("send", text="echo first-$((6*7))", timeout=30)
    approval_request(terminal_page)
    with page.expect_request("**/api/approval") as sent:
        page.click("#approve")
    body = sent.value.post_data
    assert body is not None and json.loads(body)["verdict"] == "approve"
    assert first.join()["ok"]

    def post_again(data: str) -> dict[str, Any]:
        return page.evaluate(
            """async (body) => {
                const r = await fetch('/api/approval', {method: 'POST', body: body,
                    headers: {'Content-Type': 'application/json'}});
                return {status: r.status, body: await r.json()};
            }""",
            data,
        )

    replay = post_again(body)
    assert replay["status"] == 409, replay
    second = Background("send", text="echo second-$((6*7))", timeout=30)
    assert approval_request(terminal_page) == "echo second-$((6*7))"
    assert post_again(body)["status"] == 409, "an old approval must not answer a new request"
    # Written straight into tmux, past the server, the old answer is still not taken.
    old = json.loads(body)
    tool.tmux("set-option", "-t", tool.target, control.APPROVAL_OPTION,
              json.dumps({"id": old["id"], "verdict": "approve", "digest": old["digest"]}))
    wait_for(lambda: options(tool).pending is not None, "the request to stay pending")
    assert "second-42" not in tool.capture()
    # Nor is an answer for this request with a digest of other text.
    pending = options(tool).pending
    assert pending is not None
    forged = post_again(json.dumps({"id": pending["id"], "verdict": "approve",
                                    "digest": control.digest(pending["id"], "rm -rf /", [], True)}))
    assert forged["status"] == 409, forged
    assert "second-42" not in tool.capture()
    page.click("#reject")
    assert not second.join()["ok"]
    assert "second-42" not in tool.capture()


def test_an_approval_expires_with_the_call(tool: SharedTerminalApp, terminal_page: BrowserTerminal) -> None:
    terminal_page.page.click("#approve-mode")
    wait_for(lambda: options(tool).approve, "approve mode to reach the tmux session")
    before = tool.capture()
    result = call("send", text="echo too-late", timeout=2)
    assert not result["ok"] and "did not approve" in result["error"], result
    assert options(tool).pending is None
    assert tool.capture() == before


# --- the activity panel ---------------------------------------------------------------------
def test_activity_panel_lists_the_injections_in_order(tool: SharedTerminalApp, terminal_page: BrowserTerminal,
                                                      artifacts_dir: Path) -> None:
    page = terminal_page.page
    commands = ["echo one-$((1*1))", "echo two-$((1+1))", "printf 'three %s\\n' $((1+2))"]
    for command in commands:
        assert call("send", text=command, timeout=20)["ok"]
    assert call("send", text="echo four-$((2*2))", enter=False)["ok"]
    assert call("keys", keys="Enter")["ok"]
    page.click("#activity-toggle")
    assert page.get_attribute("#activity-toggle", "aria-expanded") == "true"
    wait_for(lambda: page.locator("#activity-list li").count() == 5, "five entries in the panel")
    rows = page.locator("#activity-list li .what").all_text_contents()
    assert rows == [f"{c} ⏎" for c in commands] + ["echo four-$((2*2))", "[Enter]"]
    wait_for(lambda: page.locator("#activity-list li .status").all_text_contents() == ["ready"] * 5,
             "each entry's result status")
    assert page.text_content("#activity-count") == "5"
    page.locator("#activity-list li").nth(1).locator("button.link").click()
    page.wait_for_selector("#screen-after:not([hidden])")
    screen = str(page.text_content("#screen-after-text"))
    assert "two-2" in screen and "three 3" not in screen
    terminal_page.wait_for_text("four-4")
    page.screenshot(path=str(artifacts_dir / "control-activity.png"))  # docs/img/ holds a copy of it
    page.click("#screen-after-close")
    assert page.is_hidden("#screen-after")
    page.click("#activity-close")
    assert page.is_hidden("#activity")


# --- take over ---------------------------------------------------------------------------
def test_the_human_typing_takes_the_terminal(tool: SharedTerminalApp, terminal_page: BrowserTerminal,
                                            artifacts_dir: Path) -> None:
    terminal_page.type("echo mine", delay_ms=30)
    wait_for(lambda: terminal_page.page.text_content("#you") == "you have the terminal",
             "the page to say the human has the terminal")
    result = call("send", text="echo agent", timeout=3)
    assert not result["ok"]
    assert "the human took over" in result["error"], result
    assert "held back" in " ".join(agent_log(terminal_page))
    terminal_page.page.screenshot(path=str(artifacts_dir / "control-you.png"))
    assert input_line(tool).rstrip().endswith("echo mine"), "the human's text stays as it was"


# --- reachable by keyboard, usable on a phone -----------------------------------------------
def test_controls_are_reachable_by_keyboard(tool: SharedTerminalApp, terminal_page: BrowserTerminal) -> None:
    page = terminal_page.page
    terminal_page.press("Alt+F6")
    assert page.evaluate("() => document.activeElement.id") == "pause"
    page.keyboard.press("Space")
    wait_for(lambda: options(tool).paused, "Space on the focused switch to pause")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "approve-mode"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "activity-toggle"
    page.keyboard.press("Enter")
    assert page.is_visible("#activity")
    page.keyboard.press("Escape")
    assert page.evaluate("() => document.activeElement.classList.contains('xterm-helper-textarea')")
    for selector in ("#pause", "#approve-mode", "#activity-toggle", "#approve", "#reject"):
        label = page.evaluate("(s) => document.querySelector(s).textContent.trim()", selector)
        assert label, f"{selector} needs a visible label"


def test_the_page_works_at_phone_width(tool: SharedTerminalApp, terminal_page: BrowserTerminal,
                                      artifacts_dir: Path) -> None:
    page = terminal_page.page
    page.set_viewport_size({"width": 390, "height": 760})
    wait_for(lambda: terminal_page.size()[0] < 60, "the terminal to refit to the phone's width")
    for selector in ("#agent", "#pause", "#approve-mode", "#activity-toggle"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (selector, box)
    page.click("#activity-toggle")
    box = page.locator("#activity").bounding_box()
    assert box is not None and box["width"] <= 390
    page.click("#approve-mode")
    wait_for(lambda: options(tool).approve, "approve mode from the phone")
    agent = Background("send", text="echo from-a-phone", timeout=30)
    approval_request(terminal_page)
    box = page.locator("#approval").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.screenshot(path=str(artifacts_dir / "control-phone.png"))
    page.click("#approve")
    assert agent.join()["ok"]



# --- the switches stay put -------------------------------------------------------------------
def switches(page: BrowserTerminal) -> list[dict[str, float] | None]:
    return [page.page.locator(s).bounding_box() for s in ("#pause", "#approve-mode", "#activity-toggle")]


@pytest.mark.parametrize("width", [1280, 390])
def test_the_switches_stay_put_while_the_header_changes(tool: SharedTerminalApp, terminal_page: BrowserTerminal,
                                                        tmp_path: Path, width: int) -> None:
    """A person reaching for Pause while the agent works must find it where it was: the words
    that change (what the agent does, "you have the terminal") never move the switches."""
    page = terminal_page.page
    page.set_viewport_size({"width": width, "height": 760})
    wait_for(lambda: header(terminal_page) == "agent idle", "the header to say idle")
    where = switches(terminal_page)
    gate = Gate(tmp_path / "slow.go")
    agent = Background("send", text=f"{gate.shell}; echo a-command-long-enough-to-be-cut-$((6*7))", timeout=30)
    wait_for(lambda: header(terminal_page).startswith("agent waiting for the prompt")
             and str(page.text_content("#agent-count")).startswith(" ("), "the header to count the wait")
    assert switches(terminal_page) == where, "the switches moved while the agent waited"
    gate.open()
    assert agent.join()["ok"]
    wait_for(lambda: header(terminal_page) == "agent idle", "the header to say idle again")
    assert switches(terminal_page) == where, "the switches moved when the agent went idle"
    terminal_page.type("echo mine")
    wait_for(lambda: page.text_content("#you") == "you have the terminal", "the page to say the human has it")
    assert switches(terminal_page) == where, "the switches moved when the human took the terminal"
