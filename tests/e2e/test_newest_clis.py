"""The newest release of each AI CLI, driven for real: start, ask, exit, dialogs, failures.

The profiles were written against the pinned versions (tests/e2e/clis/package.json);
users run the newest (tests/e2e/clis/newest/package.json).  These tests run
the newest install against the scripted model server: ``start`` is ready,
``ask`` returns exactly the scripted answer, a failed turn is ``error``,
``exit`` leaves cleanly, and each first-run dialog is reported ``blocked``
with its question and options - and, when listed, accepted by choosing the
option that accepts it wherever the release put the marker (Claude Code
2.1.330 marks "No, exit" in its trust question).  Where today's newest
release is the pinned one, the test runs it all the same: it is what users
get, and it fails the day a newer release changes what detection rests on.

The chat-read CLIs (:data:`CHAT_READ`: pi, Qwen Code, Continue's ``cn``, GitHub Copilot CLI,
Cline CLI), whose answers come off the screen or from their records, are held to the core of it
on their newest install: the install is the newest release, ``start`` is ready, an answer that
stalls 2 s mid-stream comes back whole and exactly, and ``exit`` gives the shell back.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

from python.tools.tmux_tool import call
from tests.e2e.clis import versions
from tests.e2e.conftest import (
    ASK_TIMEOUT,
    CLIS,
    ERRORS,
    QUOTED,
    QUOTED_SHOWN,
    START_TIMEOUT,
    Cli,
    TimedReply,
    answer_of,
    explain,
)
from tests.e2e.model_server import Reply, ToolCall
from tests.e2e.test_generic_clis import SOURCES, STALLED

LONG = "\n".join(f"Line {n:02d} of the long answer keeps going with plain words." for n in range(1, 81))
# The CLIs read by the chat reading (their answers off the screen), newest install beside the
# others.  Kilo CLI is not among them: its newest release (7.8.1) does not install, for its platform
# package (@kilocode/cli-linux-x64@7.8.1) is missing from the npm registry, so only the pinned
# 7.7.7 is driven (tests/e2e/test_generic_clis.py).
CHAT_READ = {"pi": "@mariozechner/pi-coding-agent", "qwen": "@qwen-code/qwen-code", "cn": "@continuedev/cli",
             "copilot": "@github/copilot", "cline": "cline"}
PACKAGES = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex", "gemini": "@google/gemini-cli",
            "opencode": "opencode-ai", **CHAT_READ}

pytestmark = pytest.mark.e2e


def _newest_version(program: str) -> str:
    manifest = json.loads((versions.NEWEST.parents[1] / "package.json").read_text())
    return str(manifest["dependencies"][PACKAGES[program]])


def _start(cli: Cli, **kwargs: object) -> dict:
    return call("start", program=cli.name, session=cli.name, cwd=cli.cwd, timeout=START_TIMEOUT, **kwargs)


def _ask(cli: Cli, prompt: str, reply: Reply) -> dict:
    cli.server.script.push(reply)
    return call("ask", session=cli.name, prompt=prompt, timeout=ASK_TIMEOUT)


def _whole(res: dict, reply: TimedReply) -> None:
    returned = time.monotonic()
    assert res["ok"] and res["status"] == "ready", explain(res)
    assert res["output"] == reply.text, f"answer differs:\n{res['output']!r}\n!=\n{reply.text!r}\n{res['screen']}"
    assert reply.last_byte is not None and returned >= reply.last_byte, "ask returned before the last byte"


@pytest.mark.parametrize("program", [*CLIS, *CHAT_READ])
def test_the_newest_install_is_the_newest_release(program: str) -> None:
    said = versions.version(versions.NEWEST, program)
    assert _newest_version(program) in versions.NUMBER.findall(said), said


@pytest.mark.parametrize("program", CHAT_READ)
def test_chat_read_cli_answers_through_a_stall_and_exits(program: str, newest: Callable[..., Cli],
                                                         terminal_size: Callable[[int, int], None]) -> None:
    """Start (its launch's arguments given: ``cn`` takes its config file so), one answer that stalls
    2 s mid-stream read exactly - off the screen, or from the CLI's record where the tool reads one
    (pi, Qwen Code, cn, Copilot CLI, Cline CLI) - after its last byte, not at the stall, and exit."""
    terminal_size(200, 50)
    cli = newest(program)
    started = _start(cli, args=cli.launch.argv[1:])
    assert started["ok"] and started["status"] == "ready" and started["profile"] == program, explain(started)
    reply = TimedReply(text=STALLED, chunk_size=10, chunk_delay=0.03, pauses=((STALLED.index("After two"), 2.0),))
    res = _ask(cli, "Answer with a stall", reply)
    assert res["answer_source"] == SOURCES.get(program, "screen"), res
    _whole(res, reply)
    asked = cli.server.calls("main")
    assert len(asked) == 1 and "Answer with a stall" in (asked[0].prompt or ""), [r.prompt for r in asked]
    gone = call("exit", session=cli.name, timeout=30)
    assert gone["ok"] and gone["status"] == "ready" and gone["exit_code"] == 0, explain(gone)
    assert call("status", session=cli.name)["program"] == "bash"
    call("kill", session=cli.name)


@pytest.mark.parametrize("program", CLIS)
def test_start_ask_fail_exit(program: str, newest: Callable[..., Cli]) -> None:
    cli = newest(program)
    started = _start(cli)
    assert started["ok"] and started["status"] == "ready", explain(started)
    reply = TimedReply(text="First line of the answer.\nSecond line, after a stall.", chunk_size=8,
                       chunk_delay=0.02, pauses=((26, 2.0),))
    _whole(_ask(cli, "Say two lines", reply), reply)

    failed = _ask(cli, "This turn fails", ERRORS[program])
    assert not failed["ok"] and failed["status"] == "error", explain(failed)
    cli.server.script.clear()

    again = TimedReply(text="Back to normal after the failed turn.")
    _whole(_ask(cli, "Try again", again), again)
    gone = call("exit", session=cli.name)
    assert gone["ok"] and gone["status"] == "ready" and gone["exit_code"] == 0, explain(gone)


@pytest.mark.parametrize("program", CLIS)
def test_long_answer_in_a_small_terminal(program: str, newest: Callable[..., Cli],
                                         terminal_size: Callable[[int, int], None]) -> None:
    """Three screens of answer at 80x24: read back whole (Claude Code 2.1.330 would keep all but the
    last screen behind its full-screen view's pages)."""
    terminal_size(80, 24)
    cli = newest(program)
    assert _start(cli)["status"] == "ready"
    reply = TimedReply(text=LONG, chunk_size=60, chunk_delay=0.01)
    _whole(_ask(cli, "Answer at length", reply), reply)
    call("kill", session=cli.name)


@pytest.mark.parametrize("program", CLIS)
def test_quote_and_code_block_belong_to_the_answer(program: str, newest: Callable[..., Cli]) -> None:
    cli = newest(program)
    assert _start(cli)["status"] == "ready"
    reply = TimedReply(text=QUOTED, chunk_size=20, chunk_delay=0.01)
    res = _ask(cli, "Quote a proverb and show the code", reply)
    want = answer_of(program, QUOTED, QUOTED_SHOWN)
    assert res["ok"] and res["output"] == want, f"{res['output']}\n!=\n{want}\n{explain(res)}"
    call("kill", session=cli.name)


DIALOGS = [
    ("claude", "onboarding", "theme", "Choose the text style"),
    ("claude", "key_approval", "api-key", "Do you want to use this API key?"),
    ("claude", "trust", "trust", "Is this a project you created or one you trust?"),
    ("claude", "auto_mode", "auto-mode", "Make auto mode your default permission mode?"),
    ("codex", "trust", "trust", "Trust this folder?"),
    ("codex", "login", "login", "Sign in with ChatGPT"),
    ("gemini", "auth_dialog", "auth", "How would you like to authenticate for this project?"),
    ("gemini", "trust", "trust", "Do you trust the files in this folder?"),
]


@pytest.mark.parametrize(("program", "flag", "dialog", "question"), DIALOGS,
                         ids=[f"{p}-{d}" for p, _, d, _ in DIALOGS])
def test_dialog_is_reported_blocked_with_its_question(program: str, flag: str, dialog: str, question: str,
                                                      newest: Callable[..., Cli]) -> None:
    cli = newest(program, **{flag: True})
    res = _start(cli)
    assert res["ok"] and res["status"] == "blocked", explain(res)
    assert res["dialog"] == dialog and question in res["question"], res
    assert len(res["options"]) >= 2 and res["answered"] == [], res
    call("kill", session=cli.name)


ACCEPTS = [
    ("claude", "trust", ["trust"], ["trust"]),
    ("claude", "key_approval", ["api-key"], ["api-key"]),
    ("claude", "auto_mode", ["auto-mode"], ["auto-mode"]),
    ("codex", "trust", ["trust"], ["trust"]),
    ("gemini", "trust", ["trust"], ["trust"]),
]


@pytest.mark.parametrize(("program", "flag", "accept", "answered"), ACCEPTS,
                         ids=[f"{p}-{f}" for p, f, _, _ in ACCEPTS])
def test_listed_dialog_is_accepted_by_its_option(program: str, flag: str, accept: list[str], answered: list[str],
                                                 newest: Callable[..., Cli], monkeypatch: pytest.MonkeyPatch) -> None:
    """Accepting picks the accepting option whatever the default is, and a turn then works."""
    cli = newest(program, **{flag: True})
    # Gemini CLI restarts itself after a trust change; it can only do that when allowed to relaunch.
    monkeypatch.delenv("GEMINI_CLI_NO_RELAUNCH", raising=False)
    res = _start(cli, accept=accept)
    assert res["ok"] and res["status"] == "ready" and res["answered"] == answered, explain(res)
    reply = TimedReply(text="The dialog was answered and the turn works.")
    _whole(_ask(cli, "Does it work?", reply), reply)
    call("kill", session=cli.name)


def test_claude_without_credentials_fails_the_turn_as_an_error(newest: Callable[..., Cli]) -> None:
    cli = newest("claude", api_key="")
    started = _start(cli)
    assert started["ok"] and started["status"] == "ready", explain(started)
    res = call("ask", session=cli.name, prompt="Say hello", timeout=ASK_TIMEOUT)
    assert not res["ok"] and res["status"] == "error", explain(res)
    assert cli.server.script.served == 0
    call("kill", session=cli.name)


def test_claude_tool_permission_is_blocked(newest: Callable[..., Cli]) -> None:
    cli = newest("claude")
    assert _start(cli)["status"] == "ready"
    cli.server.script.push(Reply(text="I will create a file.", tool_calls=(
        ToolCall("Bash", {"command": "touch scripted-file.txt", "description": "Create a file"}),)),
        Reply(text="The file was created."))
    res = call("ask", session=cli.name, prompt="Create a file", timeout=ASK_TIMEOUT)
    assert res["ok"] and res["status"] == "blocked", explain(res)
    assert "Do you want to proceed?" in res["question"] and len(res["options"]) >= 2, res
    call("kill", session=cli.name)
