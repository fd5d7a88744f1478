"""``ask`` answers from the CLI's own record: the model's text, byte for byte.

Each CLI the tool can read (:mod:`python.helpers.tmux_tool.journals`) is
started by ``start`` as a user would start it, against the scripted model
server.  Its answers carry what a screen cannot give back: a fenced code
block with its language, a table, a line of 600 characters, a trailing
blank line, non-ASCII text, and lines that imitate the CLI's own chrome.
The answer must be the scripted text exactly, labelled ``transcript``; with
the record made unreadable, the screen's answer comes back as before,
labelled ``screen``; with the end of the turn withheld from the record, the
screen alone never makes the turn ready.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from python.helpers.tmux_tool.core import config
from python.helpers.tmux_tool.transport import options
from python.tools.tmux_tool import call
from tests.e2e.conftest import (
    ASK_TIMEOUT,
    RECORDED,
    START_TIMEOUT,
    Cli,
    HeldReply,
    TimedReply,
    answer_of,
    explain,
)
from tests.e2e.model_server import ApiError, Reply
from tests.frozen import Frozen

# Gemini CLI writes its chat file anew wherever it is taken away, and records no end of a turn:
# the screen fallback and the withheld end are proven on the others.
HIDEABLE = ANNOUNCING = ("claude", "codex", "opencode", "kilo")
# the timeout of an ask whose record is taken away: long enough for the CLI to draw the end of the
# turn on a loaded machine (OpenCode took more than 4 s after the model's last byte there)
WITHHELD = 20
# The installs each CLI is tried in: Kilo CLI's newest release does not install (its platform
# package is not in the registry: tests/e2e/clis/newest/package.json), so its pinned one alone.
INSTALLS = {**{program: ("pinned", "newest") for program in RECORDED}, "kilo": ("pinned",)}

EXACT = "\n".join((
    "Here is the patch, the table and the rest.",
    "",
    "```python",
    "def greet(name: str) -> str:",
    "    return f\"Grüße, {name} — 日本語も\"",
    "```",
    "",
    "| tool | exit |",
    "|------|------|",
    "| make | 0    |",
    "",
    "**bold**, _emphasis_ and a [link](https://example.org/a_b).",
    "",
    " ".join(f"word{n:03d}" for n in range(75)),  # 600 characters on one line
    "",
    "✻ Worked for 3s",
    "❯ imitated echo",
    "─" * 40,
    "",
    "",
))


def _start(cli: Cli) -> dict:
    return call("start", program=cli.name, session=cli.name, cwd=cli.cwd, timeout=START_TIMEOUT)


def _folder(cli: Cli) -> Path:
    """The session's private folder, where the CLI's events arrive."""
    return config.load().private_dir / "sessions" / cli.name


def _hide_record(cli: Cli) -> None:
    """Take the CLI's record away from the tool while the CLI runs on: Claude Code's hook events
    go nowhere (their file is a folder now); Codex's rollout files and OpenCode's and Kilo's
    databases are unlinked (each writes on into its open file, which no path names any more)."""
    if cli.name == "claude":
        events = _folder(cli) / "events.jsonl"
        events.unlink()
        events.mkdir()
    elif cli.name == "codex":
        rollouts = list((cli.launch.home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
        assert rollouts, "Codex has written no rollout file"
        for path in rollouts:
            path.unlink()
    elif cli.name == "opencode":
        database = cli.launch.home / ".local" / "share" / "opencode" / "opencode.db"
        assert database.exists(), "OpenCode has no database where its XDG_DATA_HOME says"
        database.unlink()
    elif cli.name == "kilo":
        database = cli.launch.home / ".local" / "share" / "kilo" / "kilo.db"
        assert database.exists(), "Kilo CLI has no database where its XDG_DATA_HOME says"
        database.unlink()
    else:
        raise AssertionError(f"no way to hide the record of {cli.name}")


def _options(cli: Cli, *names: str) -> list[str]:
    """Some of the session's tmux options on the private server (the ask log), read in one look:
    ``ask`` writes its fields together, so one look never sees half of a write."""
    cfg = config.load()
    out = subprocess.run(["tmux", "-L", cfg.private_socket, "display-message", "-p", "-t", f"={cli.name}:",
                          "\t".join(f"#{{{name}}}" for name in names)],
                         check=False, capture_output=True, text=True, timeout=10)
    return (out.stdout.rstrip("\n").split("\t") + [""] * len(names))[:len(names)]


@pytest.mark.e2e
@pytest.mark.parametrize(("program", "install"),
                         [(program, install) for program, installs in INSTALLS.items() for install in installs])
@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
def test_the_answer_is_the_models_text(program: str, size: tuple[int, int], install: str,
                                       prepare: Callable[..., Cli], newest: Callable[..., Cli],
                                       terminal_size: Callable[[int, int], None]) -> None:
    terminal_size(*size)
    cli = (prepare if install == "pinned" else newest)(program)
    started = _start(cli)
    assert started["status"] == "ready", explain(started)
    for n in range(2):  # a second turn: its own answer, not the first one's
        text = EXACT.replace("the rest", f"the rest ({n})")
        reply = TimedReply(text=text, chunk_size=40, chunk_delay=0.01)
        cli.server.script.push(reply)
        res = call("ask", session=cli.name, prompt=f"Show me everything ({n})", timeout=ASK_TIMEOUT)
        returned = time.monotonic()
        assert res["ok"] and res["status"] == "ready", explain(res)
        assert res["answer_source"] == "transcript", explain(res)
        want = answer_of(program, text, text)
        assert res["output"] == want, f"answer differs:\n{res['output']!r}\n!=\n{want!r}"
        assert reply.last_byte is not None and returned >= reply.last_byte, "ask returned before the last byte"
    call("kill", session=cli.name)


@pytest.mark.e2e
@pytest.mark.parametrize("program", HIDEABLE)
def test_without_a_record_the_screen_answers_and_says_so(program: str, prepare: Callable[..., Cli]) -> None:
    """After one turn read from the record, the record is taken away, as when a release stops
    writing it: the next answer is the screen's, labelled so."""
    cli = prepare(program)
    started = _start(cli)
    assert started["status"] == "ready", explain(started)
    cli.server.script.push(Reply(text="From the record."))
    first = call("ask", session=cli.name, prompt="Say it from the record", timeout=ASK_TIMEOUT)
    assert first["ok"] and first["answer_source"] == "transcript", explain(first)
    _hide_record(cli)
    text = "Plain words come back the same from the screen."
    cli.server.script.push(Reply(text=text))
    res = call("ask", session=cli.name, prompt="Say something plain", timeout=ASK_TIMEOUT)
    assert res["ok"] and res["status"] == "ready", explain(res)
    assert res["answer_source"] == "screen", explain(res)
    assert "recorded nothing of this turn" in res["record"], res
    assert res["output"] == text, explain(res)
    call("kill", session=cli.name)


@pytest.mark.e2e
@pytest.mark.parametrize("program", ANNOUNCING)
def test_a_withheld_end_is_not_taken_from_the_screen(program: str, prepare: Callable[..., Cli]) -> None:
    """Once the turn's start is recorded, the record is taken away: its end never reaches the
    reader.  The screen soon looks done; ``ask`` must still say busy, and only at its timeout."""
    cli = prepare(program)
    started = _start(cli)
    assert started["status"] == "ready", explain(started)
    cli.server.script.push(Reply(text="The first turn makes the record."))
    first = call("ask", session=cli.name, prompt="Make the record", timeout=ASK_TIMEOUT)
    assert first["ok"] and first["answer_source"] == "transcript", explain(first)
    moved = threading.Event()
    reply = HeldReply(text="An answer whose end the reader never hears of.")

    def withhold() -> None:
        """Once the tool has read the second turn's start from the record, take the record away,
        then let the model answer.  The turn's number tells it from the first turn's start, which
        left ``turn_recorded`` at "1" too (the "0" between them may last less than one look on a
        busy machine)."""
        for _ in range(6000):
            if _options(cli, options.TURNS, options.TURN_RECORDED) == ["2", "1"]:
                _hide_record(cli)
                moved.set()
                break
            time.sleep(0.005)
        reply.go.set()

    mover = threading.Thread(target=withhold, daemon=True)
    mover.start()
    cli.server.script.push(reply)
    begun = time.monotonic()
    try:
        res = call("ask", session=cli.name, prompt="Answer me", timeout=WITHHELD)
    finally:
        took = time.monotonic() - begun
        reply.go.set()
    mover.join(5)
    assert moved.is_set(), f"the turn's start was never recorded: {explain(res)}"
    assert not res["ok"] and res["status"] == "busy", explain(res)
    assert "has not ended the turn" in res.get("disagreement", ""), res
    assert WITHHELD <= took < WITHHELD + 5, f"ask came back after {took:.1f}s for a timeout of {WITHHELD}s"
    call("kill", session=cli.name)


# A CLI that retries a failed request by itself (Claude Code when allowed to, OpenCode and Kilo CLI
# on a 5xx): the failure and the wait before the retry are on screen, and must not end the turn.
RETRYING = {"claude": {"max_retries": 2}, "opencode": {}, "kilo": {}}


@pytest.mark.e2e
@pytest.mark.parametrize("program", sorted(RETRYING))
def test_a_retried_request_is_no_end(program: str, prepare: Callable[..., Cli]) -> None:
    cli = prepare(program, **RETRYING[program])
    started = _start(cli)
    assert started["status"] == "ready", explain(started)
    text = "The answer after the retry.\n\n```text\nexact\n```\n"
    cli.server.script.push(ApiError(500, "scripted overload", count=1, retry_after=2), Reply(text=text))
    res = call("ask", session=cli.name, prompt="Answer after a failure", timeout=ASK_TIMEOUT)
    assert res["ok"] and res["status"] == "ready", explain(res)
    assert res["output"] == text and res["answer_source"] == "transcript", explain(res)
    assert len(cli.server.calls("main")) >= 2, "the CLI did not retry"
    call("kill", session=cli.name)


@pytest.mark.e2e
def test_a_stale_spinner_against_a_recorded_end(prepare: Callable[..., Cli]) -> None:
    """Claude Code is frozen (every thread held by ptrace) while its answer stalls mid-stream, its
    spinner on screen; then its record is made to say the turn ended (a Stop event in its event
    file, as its hook writes one).  Record and screen now disagree for good: ``ask`` must neither
    take the end before the screen agrees nor hang - at its timeout it gives the recorded answer,
    says the screen still shows work, and stays ``busy``."""
    cli = prepare("claude")
    started = _start(cli)
    assert started["status"] == "ready", explain(started)
    text = "The first half comes, then the stream stalls for a long while before the rest."
    events = _folder(cli) / "events.jsonl"
    frozen: list[Frozen] = []

    def freeze() -> None:
        """When the stream has stalled, freeze Claude Code and record an end of the turn."""
        if not cli.server.stalled.wait(30):
            return
        submitted = [json.loads(line)["event"] for line in events.read_text(encoding="utf-8").splitlines()]
        prompt_id = next(e["prompt_id"] for e in reversed(submitted) if e["hook_event_name"] == "UserPromptSubmit")
        frozen.append(Frozen(_program_pid(cli)).__enter__())
        stop = {"hook_event_name": "Stop", "prompt_id": prompt_id, "last_assistant_message": text,
                "transcript_path": submitted[-1]["transcript_path"]}
        with events.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"at": time.time(), "event": stop}) + "\n")

    freezer = threading.Thread(target=freeze, daemon=True)
    freezer.start()
    cli.server.script.push(Reply(text=text, chunk_size=8, pauses=((20, 30.0),)))
    begun = time.monotonic()
    try:
        res = call("ask", session=cli.name, prompt="Stall on the way", timeout=WITHHELD)
    finally:
        freezer.join(5)
        for held in frozen:
            held.__exit__()
    took = time.monotonic() - begun
    assert frozen and frozen[0].held.is_set() and not frozen[0].errors, "Claude Code was never frozen"
    assert res["status"] == "busy" and res["output"] == text, explain(res)
    assert "the screen still shows work" in res.get("disagreement", ""), res
    assert WITHHELD <= took < WITHHELD + 5, f"ask came back after {took:.1f}s for a timeout of {WITHHELD}s"
    call("kill", session=cli.name)


def _program_pid(cli: Cli) -> int:
    """The pid of the program under the session's shell (its first child), from the kernel."""
    cfg = config.load()
    out = subprocess.run(["tmux", "-L", cfg.private_socket, "display-message", "-p", "-t", f"={cli.name}:",
                          "#{pane_pid}"], check=True, capture_output=True, text=True, timeout=10)
    shell = out.stdout.strip()
    children = Path(f"/proc/{shell}/task/{shell}/children").read_text(encoding="ascii").split()
    return int(children[0])
