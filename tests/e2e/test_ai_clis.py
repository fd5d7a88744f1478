"""Claude Code, Codex, Gemini CLI and OpenCode driven for real with start/ask/exit.

Each CLI runs in a private tmux session against the scripted model server
(tests/e2e/model_server), so the answers, their timing and the failures are
known in advance.  ``ask`` must return exactly the scripted answer, whole:
also when the stream stalls for seconds in the middle (Codex shows no busy
sign at all then), when the answer is longer than the screen (OpenCode has
no scrollback and is paged back), and when the answer itself holds lines
that look like prompts or like the CLIs' own end-of-turn markers, with a
stall right after them.  First-run dialogs are reported as ``blocked`` with
their question, and accepted only when asked to.

The answers are mostly plain text that every CLI's Markdown renderer shows
as it is (no list markers, lines shorter than the screen); one holds a block
quote and a code block, which each CLI draws its own way.
The first section checks the profiles' extraction on the recorded screens
under tests/fixtures/screens/ without a terminal.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from python.helpers.tmux_tool.core import config
from python.helpers.tmux_tool.programs import profile_for
from python.helpers.tmux_tool.programs.ai import AiProfile
from python.helpers.tmux_tool.screen import Snapshot, snapshot_from_capture
from python.helpers.tmux_tool.sessions import tap
from python.helpers.tmux_tool.sessions.context import Context
from python.helpers.tmux_tool.transport.target import Target
from python.tools.tmux_tool import call
from tests.conftest import poll
from tests.e2e import choppy_link
from tests.e2e.clis import homes
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

SCREENS = Path(__file__).resolve().parents[1] / "fixtures" / "screens"

PAUSED_LINES = (
    "First line of an answer that stalls on the way.",
    "The stream stops after this line for three seconds.",
    "It goes on with a second paragraph after the stall,",
    "",
    "and stops once more before its last line.",
    "This is the last line of the stalled answer.",
)
PAUSED = "\n".join(PAUSED_LINES)
PAUSED_STALLS = ((PAUSED.index("It goes on"), 3.0), (PAUSED.index("This is the last"), 3.0))

LONG = "\n".join(f"Line {n:02d} of the long answer keeps going with plain words." for n in range(1, 81))

MARKER_LINES = (
    "Lines that look like prompts and end-of-turn markers:",
    "",
    "user@host:~/project$ ls -la",
    "$ echo done",
    "✻ Worked for 3s",
    "Worked for 12s • 10:42",
    "esc to interrupt",
    "? for shortcuts",
    "Type your message or @path/to/file",
    "(esc to cancel, 3s)",
    "▣  Build · Scripted Model · 1.2s",
    "ctrl+p commands",
    "❯",
    "›",
    "",
    "That was the last marker; the answer ends here.",
)
MARKERS = "\n".join(MARKER_LINES)
MARKER_STALLS = ((MARKERS.index("esc to interrupt"), 3.0), (MARKERS.index("\n\nThat was"), 2.0))


def _ask(cli: Cli, prompt: str, reply: Reply) -> dict:
    cli.server.script.push(reply)
    return call("ask", session=cli.name, prompt=prompt, timeout=ASK_TIMEOUT)


def _start(cli: Cli, **kwargs: object) -> dict:
    return call("start", program=cli.name, session=cli.name, cwd=cli.cwd, timeout=START_TIMEOUT, **kwargs)


def _assert_whole(res: dict, reply: TimedReply, returned: float) -> None:
    assert res["ok"] and res["status"] == "ready", explain(res)
    assert res["output"] == reply.text, f"answer differs:\n{res['output']!r}\n!=\n{reply.text!r}\n{res['screen']}"
    assert reply.last_byte is not None and returned >= reply.last_byte, "ask returned before the last byte"


# --- recorded screens -------------------------------------------------------------------------------


def _fixture(path: str) -> tuple[AiProfile, Snapshot]:
    fx = json.loads((SCREENS / path).read_text())
    profile = profile_for(fx["program"])
    assert isinstance(profile, AiProfile)
    w, h = fx["size"]
    snap = snapshot_from_capture(fx["ansi"], width=w, height=h, cursor=tuple(fx["cursor"]),
                                 alternate=fx["alternate"], program=fx["pane_current_command"])
    return profile, snap


AFTERTOOL = sorted(f"{p.parent.name}/{p.name}" for name in (*CLIS, "kimi")
                   for p in (SCREENS / name).glob("aftertool-*.json"))


@pytest.mark.parametrize("path", AFTERTOOL)
def test_recorded_answer_is_cut_without_chrome(path: str) -> None:
    """The tool-call turn: both text blocks, no tool rows, tips, thinking or markers."""
    profile, snap = _fixture(path)
    answer = profile.answer_from(snap, "Create a file named scripted-file.txt")
    assert answer == "I will create a file.\n\nThe file was created."


@pytest.mark.parametrize("program", CLIS)
def test_recorded_long_answer_keeps_its_last_line(program: str) -> None:
    profile, snap = _fixture(f"{program}/answered-200x50.json")
    answer = profile.answer_from(snap, "Say hello and show me a short list")
    if program == "opencode":
        assert answer is None, "the echo scrolled off the alternate screen: the answer must be paged back"
    else:
        assert answer is not None and answer.endswith("That is the end of the long answer.")
        assert "Thought for" not in answer and "Worked for" not in answer and "✻" not in answer


# The CLIs with a reader of their own; the others' quotes (pi's and Qwen Code's among them, whose
# profiles the chat reader reads) are read by the chat reading (tests/unit/test_chat_reading.py).
QUOTED_SCREENS = sorted(f"{p.parent.name}/{p.name}" for p in SCREENS.glob("*/quoted-200x50.json")
                        if isinstance(found := profile_for(p.parent.name), AiProfile)
                        and found.OWN_FACE)


@pytest.mark.parametrize("path", QUOTED_SCREENS)
def test_recorded_quote_and_code_block_are_answer(path: str) -> None:
    """However the CLI draws a block quote (a dim bar, '│', '> ') and a code block (numbered
    lines), the answer is the Markdown's text without the code fences."""
    profile, snap = _fixture(path)
    assert profile.answer_from(snap, "Quote a proverb and show the code") == QUOTED_SHOWN


def test_every_cli_has_a_recorded_quote() -> None:
    assert {p.split("/")[0] for p in QUOTED_SCREENS} >= {*CLIS, "claude-2.1.330"}


@pytest.mark.parametrize("program", CLIS)
def test_recorded_input_box(program: str) -> None:
    profile, typed = _fixture(f"{program}/typed-80x24.json")
    assert profile.pending_input(typed) == "this text is typed but not submitted"
    _, ready = _fixture(f"{program}/ready-80x24.json")
    assert profile.pending_input(ready) == ""
    _, busy = _fixture(f"{program}/busy-80x24-1.json")
    assert not profile.finished(busy)
    _, answered = _fixture(f"{program}/answered-80x24.json")
    assert profile.finished(answered)


@pytest.mark.parametrize("program", ["codex", "gemini", "opencode"])
def test_recorded_stall_is_not_finished(program: str) -> None:
    """A stream stalled mid-answer shows no end-of-turn sign (Codex shows no busy sign either)."""
    profile, snap = _fixture(f"{program}/paused-80x24-2.json")
    assert not profile.finished(snap)


# --- live CLIs --------------------------------------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("program", CLIS)
def test_turns_in_a_tall_terminal(program: str, prepare: Callable[..., Cli],
                                  terminal_size: Callable[[int, int], None]) -> None:
    """start, then answers that stall, run long and quote markers; a failed turn; exit."""
    terminal_size(200, 60)
    cli = prepare(program)
    started = _start(cli)
    assert started["ok"] and started["status"] == "ready", explain(started)

    for prompt, reply in (
        ("Answer slowly", TimedReply(text=PAUSED, chunk_size=12, chunk_delay=0.03, pauses=PAUSED_STALLS)),
        ("Answer at length", TimedReply(text=LONG, chunk_size=60, chunk_delay=0.01)),
        ("Quote the markers", TimedReply(text=MARKERS, chunk_size=10, chunk_delay=0.02, pauses=MARKER_STALLS)),
    ):
        res = _ask(cli, prompt, reply)
        _assert_whole(res, reply, time.monotonic())

    failed = _ask(cli, "This turn fails", ERRORS[program])
    assert not failed["ok"] and failed["status"] == "error", explain(failed)
    assert failed["error"].startswith("the turn ended with an error"), failed
    cli.server.script.clear()

    after = TimedReply(text="Back to normal after the failed turn.")
    _assert_whole(_ask(cli, "Try again", after), after, time.monotonic())

    gone = call("exit", session=cli.name)
    assert gone["ok"] and gone["status"] == "ready" and gone["exit_code"] == 0, explain(gone)
    assert call("status", session=cli.name)["program"] == "bash"


@pytest.mark.e2e
def test_opencode_frames_that_arrive_half_drawn(prepare: Callable[..., Cli], terminal_size: Callable[[int, int], None],
                                               tmp_path: Path) -> None:
    """OpenCode behind a link that stalls after every ``┃`` it draws, as a slow link or a loaded
    machine does at random: the echo of a new prompt begins with its bar, drawn over a row of
    the answer before, so for a moment an answer row looks like the echo of another prompt.
    No ask takes it for one, and every answer is whole."""
    terminal_size(200, 60)
    cli = prepare("opencode")
    linked = choppy_link.install(tmp_path / "link", "opencode", str(homes.BIN_DIR / "opencode"), "┃", 0.2)
    started = call("start", program=str(linked), session=cli.name, cwd=cli.cwd, timeout=START_TIMEOUT)
    assert started["ok"] and started["status"] == "ready", explain(started)
    for prompt, reply in (
        ("Answer at length", TimedReply(text=LONG, chunk_size=60, chunk_delay=0.01)),
        ("Quote the markers", TimedReply(text=MARKERS, chunk_size=10, chunk_delay=0.02)),
        ("Answer at length again", TimedReply(text=LONG, chunk_size=60, chunk_delay=0.01)),
    ):
        _assert_whole(_ask(cli, prompt, reply), reply, time.monotonic())


@pytest.mark.e2e
@pytest.mark.parametrize("program", CLIS)
def test_quote_and_code_block_belong_to_the_answer(program: str, prepare: Callable[..., Cli]) -> None:
    """A block quote (drawn dim behind a bar by Claude Code, behind '│' by OpenCode) comes back
    as Markdown's '> ' lines, and a code block as its lines (Gemini CLI's line numbers off)."""
    cli = prepare(program)
    started = _start(cli)
    assert started["status"] == "ready", explain(started)
    reply = TimedReply(text=QUOTED, chunk_size=20, chunk_delay=0.01)
    res = _ask(cli, "Quote a proverb and show the code", reply)
    returned = time.monotonic()
    assert res["ok"] and res["status"] == "ready", explain(res)
    want = answer_of(program, QUOTED, QUOTED_SHOWN)
    assert res["output"] == want, f"answer differs:\n{res['output']}\n!=\n{want}\n{res['screen']}"
    assert reply.last_byte is not None and returned >= reply.last_byte, "ask returned before the last byte"
    call("kill", session=cli.name)


@pytest.mark.e2e
@pytest.mark.parametrize("program", CLIS)
def test_small_terminal_long_answer_and_typed_input(program: str, prepare: Callable[..., Cli],
                                                    terminal_size: Callable[[int, int], None]) -> None:
    """An answer three screens long on 80x24; text somebody left in the input box is never sent."""
    terminal_size(80, 24)
    cli = prepare(program)
    started = _start(cli)
    assert started["status"] == "ready", explain(started)
    reply = TimedReply(text=LONG, chunk_size=60, chunk_delay=0.01)
    _assert_whole(_ask(cli, "Answer at length", reply), reply, time.monotonic())

    call("send", session=cli.name, text="half a thought", enter=False)
    served = cli.server.script.served
    refused = _ask(cli, "Another question", Reply(text="never asked"))
    assert not refused["ok"] and "half a thought" in refused["error"], explain(refused)
    assert cli.server.script.served == served
    call("kill", session=cli.name)


DIALOGS = [
    ("claude", "onboarding", "theme", "Choose the text style"),
    ("claude", "key_approval", "api-key", "Do you want to use this API key?"),
    ("claude", "trust", "trust", "Is this a project you created or one you trust?"),
    ("codex", "trust", "trust", "Trust this folder?"),
    ("codex", "login", "login", "Sign in with ChatGPT"),
    ("gemini", "auth_dialog", "auth", "How would you like to authenticate for this project?"),
    ("gemini", "trust", "trust", "Do you trust the files in this folder?"),
]


@pytest.mark.e2e
@pytest.mark.parametrize(("program", "flag", "dialog", "question"), DIALOGS,
                         ids=[f"{p}-{d}" for p, _, d, _ in DIALOGS])
def test_first_run_dialog_is_reported_blocked(program: str, flag: str, dialog: str, question: str,
                                              prepare: Callable[..., Cli]) -> None:
    cli = prepare(program, **{flag: True})
    res = _start(cli)
    assert res["ok"] and res["status"] == "blocked", explain(res)
    assert res["dialog"] == dialog and question in res["question"], res
    assert len(res["options"]) >= 2 and res["answered"] == [], res
    call("kill", session=cli.name)


ACCEPTS = [
    ("claude", "onboarding", ["safe"], ["theme", "notice"]),
    ("claude", "key_approval", ["api-key"], ["api-key"]),
    ("claude", "trust", ["trust"], ["trust"]),
    ("codex", "trust", ["trust"], ["trust"]),
    ("gemini", "trust", ["trust"], ["trust"]),
]


@pytest.mark.e2e
@pytest.mark.parametrize(("program", "flag", "accept", "answered"), ACCEPTS,
                         ids=[f"{p}-{f}" for p, f, _, _ in ACCEPTS])
def test_listed_dialogs_are_accepted(program: str, flag: str, accept: list[str], answered: list[str],
                                     prepare: Callable[..., Cli], monkeypatch: pytest.MonkeyPatch) -> None:
    """Accepting really accepts (the API key is used, the folder trusted): a turn then works."""
    cli = prepare(program, **{flag: True})
    # Gemini CLI restarts itself after a trust change; it can only do that when allowed to relaunch.
    monkeypatch.delenv("GEMINI_CLI_NO_RELAUNCH", raising=False)
    res = _start(cli, accept=accept)
    assert res["ok"] and res["status"] == "ready" and res["answered"] == answered, explain(res)
    reply = TimedReply(text="The dialog was answered and the turn works.")
    _assert_whole(_ask(cli, "Does it work?", reply), reply, time.monotonic())
    call("kill", session=cli.name)


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children first), from /proc."""
    try:
        children = [int(c) for t in Path(f"/proc/{pid}/task").iterdir()
                    for c in (t / "children").read_text().split()]
    except OSError:
        return []
    return [d for c in children for d in (c, *_descendants(c))]


def _stall_when_shown(socket: str, session: str, text: str, seconds: float, found: list[str]) -> None:
    """Once ``text`` shows in the session, stop the CLI's worker processes for ``seconds``
    (the process the shell launched stays, so the shell sees no job stop): the CLI is
    then as slow to read a key as a cold start on a loaded machine makes it."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        shown = subprocess.run(["tmux", "-L", socket, "capture-pane", "-p", "-t", f"={session}:"],
                               capture_output=True, text=True, timeout=10, check=False).stdout
        if text in shown:
            break
        time.sleep(0.02)
    else:
        return
    pane = subprocess.run(["tmux", "-L", socket, "display-message", "-p", "-t", f"={session}:", "#{pane_pid}"],
                          capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    launched = _descendants(int(pane))[:1]
    workers = _descendants(launched[0]) if launched else []
    for signal_ in (signal.SIGSTOP, signal.SIGCONT):
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal_)
        if signal_ == signal.SIGSTOP:
            found.extend(map(str, workers))
            time.sleep(seconds)


@pytest.mark.e2e
def test_dialog_answer_read_late_is_waited_for(prepare: Callable[..., Cli], private_socket: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Gemini CLI stalls for longer than start's settle time right after its trust question
    shows (a cold start on a loaded machine): start answers it only once the CLI can read the
    key (a key typed earlier would wait unread in the terminal), and waits for the answer to
    be read instead of calling the dialog still open."""
    cli = prepare("gemini", trust=True)
    monkeypatch.delenv("GEMINI_CLI_NO_RELAUNCH", raising=False)
    stopped: list[str] = []
    staller = threading.Thread(target=_stall_when_shown,
                               args=(private_socket, cli.name, "Do you trust the files", 2.5, stopped))
    staller.start()
    try:
        res = _start(cli, accept=["trust"])
    finally:
        staller.join()
    assert stopped, "the CLI's worker processes were not found"
    assert res["ok"] and res["status"] == "ready" and res["answered"] == ["trust"], explain(res)
    reply = TimedReply(text="The late answer was read and the turn works.")
    _assert_whole(_ask(cli, "Does it work?", reply), reply, time.monotonic())
    call("kill", session=cli.name)


@pytest.mark.e2e
def test_a_dialog_drawn_after_the_input_box_is_waited_for(prepare: Callable[..., Cli], private_socket: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Gemini CLI draws its idle input box first and puts the trust question over it only once it
    has worked out that the folder is not trusted.  Stalled in between for longer than start's
    settle time (as a cold start on a loaded machine is), its input box holds still the while:
    start waits for the CLI to be idle, and reports the question instead of a ready CLI."""
    cli = prepare("gemini", trust=True)
    monkeypatch.delenv("GEMINI_CLI_NO_RELAUNCH", raising=False)  # the CLI then runs as the launched one's child
    stopped: list[str] = []
    staller = threading.Thread(target=_stall_when_shown,
                               args=(private_socket, cli.name, "Type your message or @path/to/file", 4.0, stopped))
    staller.start()
    try:
        res = _start(cli)
    finally:
        staller.join()
    assert stopped, "the CLI's worker processes were not found"
    assert res["ok"] and res["status"] == "blocked" and res["dialog"] == "trust", explain(res)
    assert "Do you trust the files in this folder?" in res["question"] and res["answered"] == [], res
    call("kill", session=cli.name)


PERMISSION_TOOLS = {
    "claude": ToolCall("Bash", {"command": "touch scripted-file.txt", "description": "Create a file"}),
    "codex": ToolCall("exec_command", {"cmd": "touch scripted-file.txt", "sandbox_permissions": "require_escalated",
                                       "justification": "Create scripted-file.txt?"}),
    "gemini": ToolCall("run_shell_command", {"command": "touch scripted-file.txt", "description": "Create a file"}),
    "opencode": ToolCall("bash", {"command": "touch scripted-file.txt", "description": "Create a file"}),
}


@pytest.mark.e2e
@pytest.mark.parametrize("program", sorted(PERMISSION_TOOLS))
def test_tool_permission_blocks_the_turn(program: str, prepare: Callable[..., Cli]) -> None:
    cli = prepare(program)
    started = _start(cli)
    assert started["status"] == "ready", explain(started)
    cli.server.script.push(Reply(text="I will create a file.", tool_calls=(PERMISSION_TOOLS[program],)),
                           Reply(text="The file was created."))
    res = call("ask", session=cli.name, prompt="Create a file", timeout=ASK_TIMEOUT)
    assert res["ok"] and res["status"] == "blocked", explain(res)
    assert res["question"] and len(res["options"]) >= 2, res
    call("kill", session=cli.name)


@pytest.mark.e2e
def test_claude_codes_permission_question_answered_by_one_tap(prepare: Callable[..., Cli]) -> None:
    """The page's tap (``sessions/tap.py``, what ``POST /api/answer`` runs) on the option that allows the
    command: the keys that choose it are typed, the turn goes on, and the agent's wait says who answered."""
    cli = prepare("claude")
    started = _start(cli)
    assert started["status"] == "ready", explain(started)
    cli.server.script.push(Reply(text="I will create a file.", tool_calls=(PERMISSION_TOOLS["claude"],)),
                           Reply(text="The file was created."))
    asked = call("ask", session=cli.name, prompt="Create a file", timeout=ASK_TIMEOUT)
    assert asked["ok"] and asked["status"] == "blocked", explain(asked)
    allow = next(option for option in asked["options"] if option.split(". ", 1)[-1].startswith("Yes"))
    ctx = Context(config.load())
    target = Target(cli.name, False, ctx.private.tmux)
    st = ctx.open(target).state()
    assert st.question == asked["question"], explain(asked)
    tapped = tap.answer(target, st, asked["question"], allow, cli.launch.cwd.parent / "audit.log",
                        look=ctx.open(target).state)
    assert tapped.typed and tapped.keys[-1] == "Enter", tapped
    heard = call("wait", session=cli.name, timeout=ASK_TIMEOUT)  # may return before Claude Code redraws
    assert heard["answered_by_human"] == allow, explain(heard)
    assert poll(lambda: (cli.launch.cwd / "scripted-file.txt").exists(), 30), "the allowed command did not run"
    done = call("wait", session=cli.name, timeout=ASK_TIMEOUT)
    assert done["status"] == "ready" and "answered_by_human" not in done, explain(done)
    call("kill", session=cli.name)


@pytest.mark.e2e
def test_opencode_run_that_stalls_is_reported_and_interrupted(prepare: Callable[..., Cli],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """``opencode run`` as a command: a clean run returns its answer; one that does not end
    within the timeout is reported busy and still running, and interrupt stops it."""
    cli = prepare("opencode")
    monkeypatch.chdir(cli.launch.cwd)
    cli.server.script.push(Reply(text="Hello from a run."))
    done = call("run", command="opencode run 'Say hello'", timeout=60)
    assert done["ok"] and done["status"] == "ready" and done["exit_code"] == 0, done
    assert done["output"].rstrip().endswith("Hello from a run."), done

    cli.server.script.push(Reply(text="This answer starts.\nIt never finishes in time.", pauses=((20, 120.0),)))
    stuck = call("run", command="opencode run 'Say more'", timeout=8)
    assert stuck["ok"] and stuck["status"] == "busy" and stuck["exit_code"] is None, stuck
    running = call("status", session=stuck["session"])
    assert running["status"] == "busy" and running["program"] == "opencode", running
    stopped = call("interrupt", session=stuck["session"])
    assert stopped["ok"] and stopped["status"] == "ready" and stopped["exit_code"] == 130, stopped
