"""One tap answers a question of an agent's terminal: the page's buttons, typed only while still asked.

Everything is real: start.sh's web server, the agent's private tmux server
driven by the tool's public ``call``, bash asking with ``read -p`` and
``select``, and Debian's Chromium.  A press whose question is gone by the
time it reaches the server types nothing and says so; the agent's next result
says what the human answered.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from shared_terminal_harness import SharedTerminalApp, wait_for
from test_agent_sessions import agent_install, agent_tmux, open_page, open_view, pane, status_of, view_text

from python.tools.tmux_tool import call
from tests.ai_clis import Cli, explain
from tests.background import Background
from tests.e2e.model_server import ModelServer, Reply, ToolCall

pytestmark = pytest.mark.browser

YES_NO = "read -p 'Continue? [y/N] ' a; echo \"answer=$a\""
MENU = "select f in apple banana cherry; do echo \"picked=$f\"; break; done"


@pytest.fixture
def tapping(browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            private_socket: str) -> Iterator[tuple[SharedTerminalApp, Page]]:
    """The page server sharing the agent's server (``private_socket``) and state with this test's ``call``,
    and the page."""
    with agent_install(tmp_path, monkeypatch, private=private_socket) as app:
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


# --- a real AI CLI's permission question ------------------------------------------------------------
FIRST = ToolCall("Bash", {"command": "touch first.txt", "description": "Create the first file"}, "toolu_first")
SECOND = ToolCall("Bash", {"command": "touch second.txt", "description": "Create the second file"}, "toolu_second")


def tool_results(server: ModelServer) -> dict[str, dict[str, Any]]:
    """The tool results the CLI sent the model server, by the id of the tool call."""
    found: dict[str, dict[str, Any]] = {}
    for entry in server.calls("main"):
        for message in (entry.body or {}).get("messages", []):
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found[str(block.get("tool_use_id"))] = block
    return found


def option(options: list[str], word: str) -> str:
    """The numbered option whose label starts with ``word`` ("1. Yes" for "Yes")."""
    return next(o for o in options if o.split(". ", 1)[-1].split(",")[0] == word)


def test_a_tap_answers_claude_codes_permission_question_and_a_stale_press_types_nothing(
        tapping: tuple[SharedTerminalApp, Page], prepare: Callable[..., Cli]) -> None:
    """Claude Code asks to run a command twice with the same words: the first is allowed with a tap, the
    second refused with a tap; between them, the press made for the first question types nothing."""
    agent_app, tabs = tapping
    cli = prepare("claude")
    started = call("start", program="claude", session="claude", cwd=cli.cwd, timeout=60)
    assert started["status"] == "ready", explain(started)
    cli.server.script.push(Reply(text="I will create the first file.", tool_calls=(FIRST,)),
                           Reply(text="Now the second file.", tool_calls=(SECOND,)),
                           Reply(text="That is all."))
    asked = call("ask", session="claude", prompt="Create two files", timeout=90)
    assert asked["ok"] and asked["status"] == "blocked" and "touch first.txt" in asked["screen"], explain(asked)
    question, options = asked["question"], asked["options"]
    allow, refuse = option(options, "Yes"), option(options, "No")
    wait_for(lambda: status_of(tabs, "claude") == "blocked", "claude listed as blocked")
    open_view(agent_app, tabs, "claude")
    wait_for(lambda: buttons(tabs) == options, "the permission question's options as buttons")
    assert question in str(tabs.text_content("#agent-view-question"))
    stale = tabs.query_selector(f'#agent-view-options button[aria-label="Answer {refuse}"]')
    assert stale is not None

    # A tap allows the first command: it runs, its result goes to the model, and the agent hears who answered.
    heard = tapped(tabs, allow)
    assert heard["ok"] and heard.get("answered_by_human") == allow, explain(heard)
    wait_for(lambda: "toolu_first" in tool_results(cli.server), "the first command's result sent to the model", 60)
    assert not tool_results(cli.server)["toolu_first"].get("is_error"), tool_results(cli.server)
    assert (cli.launch.cwd / "first.txt").exists(), "the allowed command did not run"

    # The model asks for the second command: the same question, word for word, about another command.
    second = wait_for(lambda: asking(SECOND.arguments["command"]), "claude to ask about the second command", 60)
    assert (second["question"], second["options"]) == (question, options), explain(second)
    wait_for(lambda: "touch second.txt" in view_text(tabs), "the second question in the view")
    wait_for(lambda: not stale.evaluate("(button) => button.isConnected"), "the first question's buttons gone")
    wait_for(lambda: buttons(tabs) == options, "the second question's options as buttons")

    # The press made for the first question reaches the server now: nothing is typed.
    before = pane(agent_app, "claude")
    stale.evaluate("(button) => button.click()")
    wait_for(lambda: "nothing was typed" in str(tabs.text_content("#notice")), "the page to say nothing was typed")
    assert "question changed" in str(tabs.text_content("#notice"))
    assert pane(agent_app, "claude") == before, "nothing reached the terminal"
    still = call("status", session="claude")
    assert still["status"] == "blocked" and "answered_by_human" not in still, explain(still)
    assert "toolu_second" not in tool_results(cli.server)
    assert len(audit_entries(agent_app)) == 1, audit_entries(agent_app)

    # A tap on the second question's own button refuses the command: it never runs.
    heard = tapped(tabs, refuse)
    assert heard["ok"] and heard.get("answered_by_human") == refuse, explain(heard)
    refused = call("wait", session="claude", pattern=r"Interrupted · What should Claude do instead\?", timeout=60)
    assert refused["ok"] and refused["status"] == "ready", explain(refused)
    assert not (cli.launch.cwd / "second.txt").exists(), "the refused command ran"
    assert "toolu_second" not in tool_results(cli.server) and cli.server.script.served == 2, "the model was asked on"
    entries = audit_entries(agent_app)
    assert [(e["session"], e["question"], e["option"]) for e in entries] == [
        ("claude", question, allow), ("claude", question, refuse)], entries
    call("kill", session="claude")


def tapped(tabs: Page, option: str) -> dict[str, Any]:
    """The human taps ``option``; once the page says it was typed, the agent's next ``wait``."""
    tabs.click(f'#agent-view-options button[aria-label="Answer {option}"]')
    wait_for(lambda: f"answered {option}" in str(tabs.text_content("#agent-view-answered")), "the page to say it typed")
    return call("wait", session="claude", timeout=90)


def asking(command: str) -> dict[str, Any] | None:
    """Claude Code's status once it asks permission to run ``command`` (None before)."""
    res = call("status", session="claude")
    return res if res["status"] == "blocked" and command in (res.get("screen") or "") else None
