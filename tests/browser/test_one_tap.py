"""One tap answers a question of an agent's terminal: the page's buttons, typed only while still asked.

Everything is real: start.sh's web server, the agent's private tmux server
driven by the tool's public ``call``, bash asking with ``read -p`` and
``select``, and Debian's Chromium.  A press whose question is gone by the
time it reaches the server types nothing and says so; the agent's next result
says what the human answered.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from shared_terminal_harness import SharedTerminalApp, wait_for
from test_agent_sessions import agent_install, agent_tmux, open_page, open_view, pane, status_of

from python.tools.tmux_tool import call
from tests.background import Background

pytestmark = pytest.mark.browser

YES_NO = "read -p 'Continue? [y/N] ' a; echo \"answer=$a\""
MENU = "select f in apple banana cherry; do echo \"picked=$f\"; break; done"


@pytest.fixture
def tapping(browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[SharedTerminalApp, Page]]:
    """The page server sharing the agent's server and state with this test's ``call``, and the page."""
    with agent_install(tmp_path, monkeypatch) as app:
        terminal = open_page(browser, app)
        try:
            yield app, terminal.page
        finally:
            terminal.page.context.close()


def buttons(tabs: Page) -> list[str]:
    """The options the open view offers as buttons (none while its box is hidden)."""
    shown: list[str] = tabs.evaluate("""() => document.getElementById("agent-view-answer").hidden ? [] :
        Array.from(document.querySelectorAll("#agent-view-options button"), (b) => b.textContent)""")
    return shown


def audit_entries(app: SharedTerminalApp) -> list[dict[str, object]]:
    """The audit trail's entries of the human's answers."""
    logs = Path(app.overrides["TMUX_TOOL_STATE_DIR"]).glob("shared-*/audit.log")
    rows = [json.loads(line) for log in logs for line in log.read_text().splitlines()]
    return [row for row in rows if row.get("action") == "answered by the human"]


def asked(session: str, command: str) -> dict[str, object]:
    """The agent types ``command`` into ``session``, which then asks its question."""
    result = call("send", session=session, text=command, timeout=30)
    assert result["ok"] and result["status"] == "blocked", result
    return result


def test_a_tap_answers_a_yes_no_question_and_the_agent_hears_it(tapping: tuple[SharedTerminalApp, Page]) -> None:
    agent_app, tabs = tapping
    assert call("run", session="ask", command="true", timeout=30)["ok"]
    result = asked("ask", YES_NO)
    assert result["question"] == "Continue? [y/N]" and result["options"] == ["y", "N"], result
    wait_for(lambda: status_of(tabs, "ask") == "blocked", "ask listed as blocked")
    open_view(agent_app, tabs, "ask")
    wait_for(lambda: buttons(tabs) == ["y", "N"], "the question's options as buttons")
    assert "Continue? [y/N]" in str(tabs.text_content("#agent-view-question"))

    waiting = Background("wait", session="ask", timeout=30)
    tabs.click('#agent-view-options button[aria-label="Answer y"]')
    done = waiting.join()
    assert done["ok"] and done["status"] == "ready", done
    assert "answer=y" in done["output"], done
    assert done["answered_by_human"] == "y", done
    wait_for(lambda: "answered y" in str(tabs.text_content("#agent-view-answered")), "the page to say it typed")
    wait_for(lambda: buttons(tabs) == [], "the buttons gone with the question")
    again = call("status", session="ask")
    assert "answered_by_human" not in again, again  # told once
    entries = audit_entries(agent_app)
    assert [(e["session"], e["question"], e["option"], e["text"], e["keys"]) for e in entries] == [
        ("ask", "Continue? [y/N]", "y", "y", ["Enter"])], entries


def test_a_tap_picks_from_a_numbered_menu(tapping: tuple[SharedTerminalApp, Page]) -> None:
    agent_app, tabs = tapping
    assert call("run", session="menu", command="true", timeout=30)["ok"]
    result = asked("menu", MENU)
    assert result["options"] == ["1) apple", "2) banana", "3) cherry"], result
    wait_for(lambda: status_of(tabs, "menu") == "blocked", "menu listed as blocked")
    open_view(agent_app, tabs, "menu")
    wait_for(lambda: buttons(tabs) == ["1) apple", "2) banana", "3) cherry"], "the menu's entries as buttons")

    waiting = Background("wait", session="menu", timeout=30)
    tabs.click('#agent-view-options button[aria-label="Answer 2) banana"]')
    done = waiting.join()
    assert done["ok"] and done["status"] == "ready" and "picked=banana" in done["output"], done
    assert done["answered_by_human"] == "2) banana", done


def test_a_tap_on_a_question_already_answered_types_nothing(tapping: tuple[SharedTerminalApp, Page]) -> None:
    agent_app, tabs = tapping
    assert call("run", session="late", command="true", timeout=30)["ok"]
    asked("late", YES_NO)
    wait_for(lambda: status_of(tabs, "late") == "blocked", "late listed as blocked")
    open_view(agent_app, tabs, "late")
    wait_for(lambda: buttons(tabs) == ["y", "N"], "the question's options as buttons")
    yes = tabs.query_selector('#agent-view-options button[aria-label="Answer y"]')
    assert yes is not None

    # The question is answered in the terminal before the press reaches the server.
    agent_tmux(agent_app, "send-keys", "-t", "=late:", "n", "Enter")
    wait_for(lambda: "answer=n" in pane(agent_app, "late"), "the question answered in the terminal")
    before = pane(agent_app, "late")
    yes.evaluate("(button) => button.click()")  # the button as the page showed it, gone or not by now
    wait_for(lambda: "nothing was typed" in str(tabs.text_content("#notice")), "the page to say nothing was typed")
    assert "question changed" in str(tabs.text_content("#notice"))
    assert pane(agent_app, "late") == before, "nothing reached the terminal"
    assert "answered_by_human" not in call("status", session="late")
    assert audit_entries(agent_app) == []
