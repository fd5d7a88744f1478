"""Coding CLIs driven by a profile that is only data: start, turns of their own, exit.

pi, Qwen Code, Continue (`cn`), GitHub Copilot CLI, Cline CLI and Kilo CLI run against the
scripted model server; each has a profile of its own, a data file in ``programs/profiles/`` that
names its reader: the chat reading for the first five (the same CLIs with no profile at all are
driven in ``test_generic_path.py``), OpenCode's reader for Kilo, an OpenCode fork with OpenCode's
screens.  ``start`` must find each idle at its input area (``profile: "pi"``, ``"qwen"``, ``"cn"``,
``"copilot"``, ``"cline"``, ``"kilo"``), every ``ask`` must come back with its own answer
read off the screen, or from the CLI's own record where the tool reads one (:data:`SOURCES`: pi's
session file, Qwen Code's saved chat, cn's session file, Copilot CLI's events, Cline CLI's session
messages, Kilo's database, the model's text exactly) - after the model's last byte, also when the
stream stalls for two seconds in the middle, when a prompt or an answer repeats the one before -
and ``exit`` must leave the shell with no process of the CLI behind.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from python.helpers.tmux_tool.transport import kernel
from python.tools.tmux_tool import call
from tests.conftest import poll
from tests.e2e.conftest import ASK_TIMEOUT, QUOTED, QUOTED_SHOWN, START_TIMEOUT, Cli, TimedReply, explain
from tests.e2e.model_server import Reply, ToolCall

GENERIC = ("pi", "qwen", "cn", "copilot", "cline", "kilo")
# what a CLI leaves running in a session of its own, which exit ends: Cline's hub daemon
DAEMONS = {"cline": "cline"}
PROFILED = GENERIC  # data files read by the chat reader: start names their profile
# where a CLI's answers come from under its profile (journals.for_program): "screen" unless named here
SOURCES = {"pi": "transcript", "qwen": "transcript", "cn": "transcript", "copilot": "transcript",
           "cline": "transcript", "kilo": "transcript"}

STALLED_LINES = ("The first paragraph of an answer that stalls.", "",
                 "After two seconds of silence the stream goes on here,", "and this is its last line.")
STALLED = "\n".join(STALLED_LINES)
SAME = "This answer is given twice, word for word."
# Neighbours that would pass for each other: the same prompt twice (with different answers), then the
# same answer twice (to different prompts).
TURNS = (
    ("Answer with a stall", TimedReply(text=STALLED, chunk_size=10, chunk_delay=0.03,
                                       pauses=((STALLED.index("After two"), 2.0),))),
    ("Name a colour", TimedReply(text="The colour is blue.")),
    ("Name a colour", TimedReply(text="Now the colour is green.\n\nThat is all.", chunk_size=6)),
    ("Repeat the sentence", TimedReply(text=SAME)),
    ("Repeat the sentence once more", TimedReply(text=SAME)),
)


def _processes_under(pid: int) -> list[str]:
    """The command names of every process below ``pid``, from /proc."""
    try:
        children = [int(c) for t in Path(f"/proc/{pid}/task").iterdir()
                    for c in (t / "children").read_text().split()]
    except OSError:
        return []
    names: list[str] = []
    for child in children:
        try:
            names.append(Path(f"/proc/{child}/comm").read_text().strip())
        except OSError:
            continue
        names += _processes_under(child)
    return names


def left_behind(socket: str, session: str) -> list[str]:
    """What a CLI left running in ``session``'s pane once it exited: the processes below the
    pane's shell, and those born in the pane that left it (a daemon in a session of its own, its
    parent gone: Cline's hub), found by the pane's environment (``kernel.born_in``)."""
    found = subprocess.run(["tmux", "-L", socket, "display-message", "-p", "-t", f"={session}:",
                            "#{pid} #{pane_id} #{pane_pid}"], capture_output=True, text=True,
                           check=True, timeout=10).stdout.split()
    server, pane, shell = int(found[0]), found[1], int(found[2])
    return _processes_under(shell) + [f"{p.comm} (pid {p.pid})" for p in kernel.born_in(server, pane, 0, shell)]


def take_turns(cli: Cli, source: str = "screen") -> None:
    """The five :data:`TURNS`, each answered with its own text read from ``source`` (the screen,
    or the CLI's record: ``transcript``), never before the model's last byte."""
    for number, (prompt, reply) in enumerate(TURNS, start=1):
        before = len(cli.server.calls("main"))
        cli.server.script.push(reply)
        res = call("ask", session=cli.name, prompt=prompt, timeout=ASK_TIMEOUT)
        returned = time.monotonic()
        new = cli.server.calls("main")[before:]
        assert res["ok"] and res["status"] == "ready", explain(res)
        assert res["turn"] == number and res["answer_source"] == source, res
        assert len(new) == 1 and prompt in (new[0].prompt or ""), [r.prompt for r in new]
        assert reply.last_byte is not None and returned >= reply.last_byte, "ask returned before the last byte"
        assert res["output"] == reply.text, f"answer differs:\n{res['output']!r}\n!=\n{reply.text!r}\n{explain(res)}"


@pytest.mark.e2e
@pytest.mark.parametrize("program", GENERIC)
def test_an_unprofiled_cli_takes_turns(program: str, prepare: Callable[..., Cli],
                                       terminal_size: Callable[[int, int], None], private_socket: str) -> None:
    terminal_size(200, 50)
    cli = prepare(program)
    started = call("start", program=cli.name, args=cli.launch.argv[1:], session=cli.name, cwd=cli.cwd,
                   timeout=START_TIMEOUT)
    assert started["ok"] and started["status"] == "ready", explain(started)
    assert started["profile"] == (program if program in PROFILED else "generic"), started

    take_turns(cli, SOURCES.get(program, "screen"))

    gone = call("exit", session=cli.name, timeout=30)
    assert gone["ok"] and gone["status"] == "ready" and gone["exit_code"] == 0, explain(gone)
    assert call("status", session=cli.name)["program"] == "bash"
    assert left_behind(private_socket, cli.name) == [], gone
    if program in DAEMONS:
        assert any(e.startswith(DAEMONS[program] + " (pid ") for e in gone.get("ended", [])), gone
    call("kill", session=cli.name)


FENCES_SHOWN = {"pi"}  # the CLIs that draw a code block's fences as the model wrote them
LONG = "\n".join(f"Line {n:02d} of the long answer keeps going with plain words." for n in range(1, 81))


@pytest.mark.e2e
@pytest.mark.parametrize("program", GENERIC)
def test_a_long_answer_and_a_fenced_block_come_back_whole(program: str, prepare: Callable[..., Cli],
                                                          terminal_size: Callable[[int, int], None],
                                                          private_socket: str) -> None:
    """An answer of 80 lines (longer than the screen) and one with a block quote and a fenced code
    block: each comes back whole and as the CLI shows it (a full screen paged back), or where the
    CLI's record is read (:data:`SOURCES`: Copilot CLI's pages cannot be stitched whole) as the
    model wrote it, fences and all."""
    terminal_size(200, 50)
    cli = prepare(program)
    started = call("start", program=cli.name, args=cli.launch.argv[1:], session=cli.name, cwd=cli.cwd,
                   timeout=START_TIMEOUT)
    assert started["ok"] and started["status"] == "ready", explain(started)
    for prompt, reply, want in (
            ("Answer at length", TimedReply(text=LONG, chunk_size=60, chunk_delay=0.01), LONG),
            ("Quote a proverb and show the code", TimedReply(text=QUOTED, chunk_size=20, chunk_delay=0.01),
             QUOTED if program in FENCES_SHOWN or program in SOURCES else QUOTED_SHOWN)):
        cli.server.script.push(reply)
        res = call("ask", session=cli.name, prompt=prompt, timeout=ASK_TIMEOUT)
        assert res["ok"] and res["status"] == "ready", explain(res)
        assert res["answer_source"] == SOURCES.get(program, "screen"), res
        assert res["output"] == want, f"answer differs:\n{res['output']!r}\n!=\n{want!r}\n{explain(res)}"
    call("kill", session=cli.name)


@pytest.mark.e2e
@pytest.mark.parametrize("program", GENERIC)
def test_send_with_enter_submits_in_an_unprofiled_cli(program: str, prepare: Callable[..., Cli],
                                                      terminal_size: Callable[[int, int], None],
                                                      private_socket: str) -> None:
    """``send`` of a text with Enter is a prompt given: the model is asked it once, whole, and ``wait``
    comes back with the CLI idle again (Enter pressed apart from the paste, once the paste shows)."""
    terminal_size(200, 50)
    cli = prepare(program)
    started = call("start", program=cli.name, args=cli.launch.argv[1:], session=cli.name, cwd=cli.cwd,
                   timeout=START_TIMEOUT)
    assert started["ok"] and started["status"] == "ready", explain(started)
    cli.server.script.push(TimedReply(text="Sent and answered."))
    sent = call("send", session=cli.name, text="Say something short", timeout=5)
    assert sent["ok"], explain(sent)
    assert poll(lambda: len(cli.server.calls("main")) >= 1, ASK_TIMEOUT), explain(call("status", session=cli.name))
    done = call("wait", session=cli.name, timeout=ASK_TIMEOUT)
    assert done["ok"] and done["status"] == "ready", explain(done)
    asked = cli.server.calls("main")
    assert len(asked) == 1 and "Say something short" in (asked[0].prompt or ""), [r.prompt for r in asked]
    assert "Sent and answered." in (done.get("screen") or call("status", session=cli.name).get("screen") or "")
    call("kill", session=cli.name)


@pytest.mark.e2e
def test_copilots_trust_dialog_is_reported_at_start(prepare: Callable[..., Cli], private_socket: str) -> None:
    """A folder Copilot CLI was never told to trust: ``start`` reports its question with the options, and
    does not accept it unasked (trusting a folder lets its hooks and servers run)."""
    cli = prepare("copilot", trust=True)
    res = call("start", program=cli.name, session=cli.name, cwd=cli.cwd, timeout=START_TIMEOUT)
    assert res["ok"] and res["status"] == "blocked" and res["dialog"] == "trust", explain(res)
    assert "Do you trust the files in this folder?" in res["question"] and res["answered"] == [], res
    assert res["options"][0] == "1. Yes" and len(res["options"]) == 3, res
    call("kill", session=cli.name)


class Asks(NamedTuple):
    """What a CLI offers the model for a shell command (the tool list of its requests to the
    scripted server), how its permission question reads as a person reads it, and the keys that
    allow the command once."""

    tool: ToolCall
    question: str
    options: list[str]
    keys: list[str]


TOUCH = "touch scripted-file.txt"
ASKS: dict[str, Asks] = {
    # Qwen Code's `run_shell_command`; it asks since homes.qwen sets `tools.approvalMode` "default"
    "qwen": Asks(ToolCall("run_shell_command", {"command": TOUCH, "description": "Create a file"}),
                 "Allow execution of: 'touch'?",
                 ["1. Yes, allow once", "2. Always allow run 'touch *' commands in this project",
                  "3. Always allow run 'touch *' commands for this user",
                  "4. No, suggest changes (esc)"], ["Enter"]),
    # cn's `Bash`, whose default policy in the TUI is "ask" (no setting needed)
    "cn": Asks(ToolCall("Bash", {"command": TOUCH}), "Would you like to continue?",
               ["Continue (tab)", "Continue + don't ask again (shift+tab)",
                "No, and tell Continue what to do differently (esc)"], ["Enter"]),
    "copilot": Asks(ToolCall("bash", {"command": TOUCH, "description": "Create a file"}),
                    "Do you want to run this command?",
                    ["1. Yes", "2. Yes, and don't ask again for `touch` in this directory (~/project)",
                     "3. No, and tell Copilot what to do differently (Esc to stop)"], ["Enter"]),
    # Kilo's question is OpenCode's, in its input area, its choice shown by colour
    "kilo": Asks(ToolCall("bash", {"command": TOUCH, "description": "Create a file"}),
                 "Permission required", ["Allow once", "Allow always", "Reject"], ["Enter"]),
    # Cline's `[y] Approve   [n] Deny` under the command: each answer taken by the key it names
    "cline": Asks(ToolCall("run_commands", {"commands": [TOUCH]}), "Cline asks permission",
                  ["[y] Approve", "[n] Deny"], ["y"]),
}


def _offered(body: Any) -> dict[str, set[str]]:
    """The tools a chat-completions request offers the model, each name with its parameters' names:
    the scripted call must be one the CLI offers, in the shape it offers it."""
    tools = [tool.get("function") or {} for tool in (body or {}).get("tools") or []]
    return {tool.get("name", ""): set((tool.get("parameters") or {}).get("properties") or {})
            for tool in tools}


@pytest.mark.e2e
@pytest.mark.parametrize("program", sorted(ASKS))
def test_a_chat_clis_permission_question_is_blocked_and_answered_with_keys(
        program: str, prepare: Callable[..., Cli], terminal_size: Callable[[int, int], None],
        private_socket: str) -> None:
    """A shell command the model asks for: each CLI's question comes back as ``blocked`` with its
    options as a person reads them, the command not run; ``keys`` allow it once (Enter takes the
    option under the cursor), the command runs, ``wait`` finds the CLI idle with the model's last
    words, and ``exit`` leaves the shell."""
    touch, asked, options, keys = ASKS[program]
    terminal_size(200, 50)
    cli = prepare(program)
    started = call("start", program=cli.name, args=cli.launch.argv[1:], session=cli.name, cwd=cli.cwd,
                   timeout=START_TIMEOUT)
    assert started["ok"] and started["status"] == "ready", explain(started)
    assert started["profile"] == program, started
    cli.server.script.push(Reply(text="I will create a file.", tool_calls=(touch,)),
                           Reply(text="The file was created."))
    res = call("ask", session=cli.name, prompt="Create a file", timeout=ASK_TIMEOUT)
    assert res["ok"] and res["status"] == "blocked", explain(res)
    offered = _offered(cli.server.calls("main")[0].body)
    assert offered.get(touch.name, set()) >= set(touch.arguments), offered
    assert asked in (res.get("question") or ""), res
    assert res["options"] == options, res["options"]
    assert not (cli.launch.cwd / "scripted-file.txt").exists()
    pressed = call("keys", session=cli.name, keys=keys, timeout=10)
    assert pressed["ok"], explain(pressed)
    assert poll(lambda: (cli.launch.cwd / "scripted-file.txt").exists(), 30), "the allowed command did not run"
    done = call("wait", session=cli.name, timeout=ASK_TIMEOUT)
    assert done["ok"] and done["status"] == "ready", explain(done)
    assert "The file was created." in (done.get("screen") or call("status", session=cli.name).get("screen") or "")
    gone = call("exit", session=cli.name, timeout=30)
    assert gone["ok"] and gone["status"] == "ready", explain(gone)
    assert call("status", session=cli.name)["program"] == "bash"
    call("kill", session=cli.name)


@pytest.mark.e2e
def test_clines_start_up_offer_is_closed_at_start(prepare: Callable[..., Cli], private_socket: str) -> None:
    """A fresh HOME: Cline offers ClinePass over its start screen.  ``start`` reports it as the
    safe ``offer`` dialog, and with ``accept=["safe"]`` closes it with Escape (Enter would open its
    web page) and finds Cline ready."""
    cli = prepare("cline", offer=True)
    res = call("start", program=cli.name, session=cli.name, cwd=cli.cwd, timeout=START_TIMEOUT)
    assert res["ok"] and res["status"] == "blocked", explain(res)
    assert res["dialog"] == "offer" and res["safe"] is True and res["answered"] == [], res
    call("kill", session=cli.name)
    res = call("start", program=cli.name, session=cli.name, cwd=cli.cwd, timeout=START_TIMEOUT,
               accept=["safe"])
    assert res["ok"] and res["status"] == "ready", explain(res)
    assert res["answered"] == ["offer"], res
    assert "Press Enter to open" not in (res.get("screen") or ""), explain(res)
    call("kill", session=cli.name)


FAKE_CHAT = r'''#!/usr/bin/env python3
"""A chat CLI that works for seconds (argv[1]) with nothing new on its screen: only the kernel sees it run.
With "late" (argv[2]) it works before it takes the prompt's Enter, the prompt left in its box meanwhile, as
a loaded machine makes any CLI do, and tells on its screen of every Enter that came while it worked.
With "after" it draws the whole answer first and works after it, drawing nothing when the work ends."""
import os, select, sys, termios, time, tty

RULE = "─" * 40
LATE = sys.argv[2:] == ["late"]
AFTER = sys.argv[2:] == ["after"]


def box(transcript, line=""):
    sys.stdout.write("\x1b[2J\x1b[H" + "".join(row + "\r\n" for row in transcript) + RULE + "\r\n> " + line
                     + "\r\n" + RULE + "\r\n  status row\x1b[2A\x1b[" + str(3 + len(line)) + "G")
    sys.stdout.flush()


def work():
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:  # thinking hard, showing nothing
        pass


transcript = []
old = termios.tcgetattr(0)
tty.setraw(0)
drawn = False
try:
    while True:
        if not drawn:
            box(transcript)
        drawn = False
        line = ""
        while not line.endswith("\r"):
            key = os.read(0, 1).decode()
            if key == "\x04":
                sys.exit(0)
            line += key
            if key != "\r":
                sys.stdout.write(key)
                sys.stdout.flush()
        said = "> " + line.replace("\x1b[200~", "").replace("\x1b[201~", "").strip()
        if AFTER:
            transcript += [said, "", "The answer, then silent work.", ""]
            box(transcript)
            work()
            drawn = True
            continue
        if LATE:
            work()
            more = os.read(0, 4096).decode() if select.select([0], [], [], 0)[0] else ""
            transcript += [said, "", "The answer, taken late."]
            transcript += [f"{more.count(chr(13))} more Enter came while I worked."] if "\r" in more else []
        else:
            transcript += [said, "", "The answer begins,"]
            box(transcript)
            work()
            transcript += ["and ends after the work."]
        transcript.append("")
finally:
    termios.tcsetattr(0, termios.TCSADRAIN, old)
'''


def _fake_chat(tmp_path: Path, session: str, *args: str) -> None:
    """:data:`FAKE_CHAT` started in ``session`` with ``args``, and found ready at its input area."""
    script = tmp_path / "fakechat"
    script.write_text(FAKE_CHAT, encoding="utf-8")
    script.chmod(0o755)
    started = call("start", program=str(script), args=list(args), session=session, cwd=str(tmp_path),
                   timeout=START_TIMEOUT)
    assert started["ok"] and started["status"] == "ready" and started["profile"] == "generic", explain(started)


@pytest.mark.e2e
def test_work_the_screen_does_not_show_is_seen_by_the_kernel(tmp_path: Path, private_socket: str) -> None:
    """A CLI that draws the start of its answer, then computes for longer than a turn's settle time
    without drawing anything: its process runs, so the turn is not over; the answer is all of it."""
    _fake_chat(tmp_path, "busychat", "6")
    res = call("ask", session="busychat", prompt="Think hard", timeout=60)
    assert res["ok"] and res["status"] == "ready", explain(res)
    assert res["output"] == "The answer begins,\nand ends after the work.", explain(res)
    call("kill", session="busychat")


@pytest.mark.e2e
def test_a_wait_ends_when_work_the_screen_does_not_show_ends(tmp_path: Path, private_socket: str) -> None:
    """A CLI that draws its whole answer, then computes for seconds without drawing anything, and
    rests: ``wait`` finds it busy while it computes (the kernel sees it) and ready soon after the
    work ends, though nothing on the screen changes then (Qwen Code after a turn: a wait stayed
    busy to its timeout, having looked last while the work still ran)."""
    _fake_chat(tmp_path, "afterchat", "4", "after")
    typed = call("send", session="afterchat", text="Work after", enter=False, timeout=5)
    assert typed["ok"], explain(typed)
    # Enter pressed behind the tool's back (as the human would), so the wait begins amid the work
    subprocess.run(["tmux", "-L", private_socket, "send-keys", "-t", "=afterchat:", "Enter"], check=True,
                   timeout=10)
    time.sleep(1.0)
    began = time.monotonic()
    done = call("wait", session="afterchat", timeout=40)
    took = time.monotonic() - began
    assert done["ok"] and done["status"] == "ready", explain(done)
    assert 2.0 <= took < 20.0, f"wait took {took:.1f}s for 4 s of work"
    call("kill", session="afterchat")


@pytest.mark.e2e
def test_a_cli_that_takes_the_enter_late_gets_one_enter(tmp_path: Path, private_socket: str) -> None:
    """The prompt stays in the input box for longer than a turn takes to start while the CLI works: the CLI
    is taking the Enter, so none is pressed again (a second would submit whatever the box holds next)."""
    _fake_chat(tmp_path, "latechat", "5", "late")
    res = call("ask", session="latechat", prompt="Take your time", timeout=60)
    assert res["ok"] and res["status"] == "ready", explain(res)
    assert res["output"] == "The answer, taken late.", explain(res)
    call("kill", session="latechat")
